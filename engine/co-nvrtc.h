/* cudaoverlap: kernel-source, CUDA C compiled at run time with NVRTC.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * co_nvrtc_build() turns a user's CUDA C source into code for one GPU: a
 * cubin for its sm_XY when the NVRTC at hand lists that architecture
 * (nvrtcGetSupportedArchs), else PTX for the newest one it lists, which
 * the driver compiles for the GPU.  NVRTC is not linked: it is opened with
 * GModule at the first compile (libnvrtc.so.13 through the dynamic
 * loader's search, then the CUDA toolkit's lib64 this build was made with),
 * so the plugin loads and runs kernel-module without it.  The ABI header
 * <gst/cudaoverlap/cudaoverlap-kernel.h> and a <stdint.h> of its own (NVRTC
 * has none) are handed to NVRTC in memory; the kernel's name is a C++ name
 * expression (nvrtcAddNameExpression), so no extern "C" is needed.
 *
 * The code is cached on disk, one file per key: the SHA-256 of the
 * source, the options, the ABI header, the compute capability and the
 * path, size and modification time of every NVRTC library file that may
 * be loaded (a stat, so a cache hit opens no NVRTC) and of every file of
 * the include folder (an edited header there is compiled anew).  An entry carries the
 * SHA-256 of its code and is written to a temporary file that is then
 * renamed, so that a reader sees a whole entry or none; two processes that
 * compile the same source both write the same entry, the last rename
 * stays.  An entry that does not check out is compiled again and
 * rewritten; a cache that cannot be written is skipped (the code is
 * compiled every time; GLib's debug log says why, once per process).
 * Pure C with GLib and GModule: no CUDA, no GStreamer.
 */
#ifndef __CO_NVRTC_H__
#define __CO_NVRTC_H__

#include <glib.h>

G_BEGIN_DECLS
/* Where the code of a build came from. */
    typedef enum
{
  CO_NVRTC_CACHE_NONE = 0,      /* compiled; no cache asked for */
  CO_NVRTC_CACHE_HIT = 1,       /* read from the cache: NVRTC not opened */
  CO_NVRTC_CACHE_STORED = 2,    /* compiled and stored in the cache */
  CO_NVRTC_CACHE_UNWRITABLE = 3,        /* compiled; the cache could not be
                                         * written */
} CoNvrtcCache;

typedef struct
{
  const gchar *source;          /* the CUDA C source (NUL-terminated) */
  /* what the messages call it, e.g. "kernel-source" */
  const gchar *origin;
  /* the source's file, NVRTC's name of the program (its log's lines
   * name it), or NULL: @origin */
  const gchar *file;
  /* a folder searched for #include "..." (kernel-source-file's), or NULL */
  const gchar *include_dir;
  const gchar *name;            /* the kernel's C++ name, e.g. "invert" */
  gint cc_major, cc_minor;      /* the GPU's compute capability */
  /* the cache's folder (made when missing), or NULL: no cache */
  const gchar *cache_dir;
  /* the NVRTC library files tried in order (a bare name goes through the
   * dynamic loader's search); NULL: co_nvrtc_default_libraries () */
  const gchar *const *libraries;
} CoNvrtcRequest;

typedef struct
{
  GBytes *image;                /* a cubin, or PTX (NUL-terminated) */
  gboolean cubin;
  gchar *target;                /* "sm_90", "compute_120" */
  gchar *lowered_name;          /* the kernel's symbol in the image */
  CoNvrtcCache cache;
  gdouble compile_ms;           /* NVRTC's time (0 on a cache hit) */
  gchar *library;               /* the NVRTC that compiled (NULL on a hit) */
  gchar *log;                   /* NVRTC's log of a compile (warnings), or
                                 * NULL */
} CoNvrtcResult;

/* The NVRTC library files tried by default: libnvrtc.so.13 (the CUDA
 * major version of the build), then CO_CUDA_LIB64/libnvrtc.so.13 (the
 * toolkit of this build). */
const gchar *const *co_nvrtc_default_libraries (void);

/* Compiles @req (or reads it from the cache) into @res (cleared first).
 * FALSE with @error (CO_ENGINE_ERROR_KERNEL): no NVRTC (the message names
 * the library files and the package to install), a source that does not
 * compile (the message's first line says so, the lines after it are
 * NVRTC's log), or a name the source does not define. */
gboolean co_nvrtc_build (const CoNvrtcRequest * req, CoNvrtcResult * res,
    GError ** error);
void co_nvrtc_result_clear (CoNvrtcResult * res);
/* The cache file of @req (free it), or NULL without a cache_dir. */
gchar *co_nvrtc_cache_path (const CoNvrtcRequest * req);
/* "hit", "stored", "unwritable" or "" (no cache), for the passport. */
const gchar *co_nvrtc_cache_nick (CoNvrtcCache cache);

G_END_DECLS
#endif
