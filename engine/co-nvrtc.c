/* cudaoverlap: kernel-source, CUDA C compiled at run time with NVRTC.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See co-nvrtc.h.  NVRTC's C API is declared here (the few functions
 * used, as nvrtc.h declares them), so that this file builds without the
 * toolkit's headers and nothing links libnvrtc.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <gmodule.h>

#include "co-nvrtc.h"
#include "co-engine.h"
#include "cudaoverlap-kernel.h"

#ifndef CO_CUDA_LIB64
#define CO_CUDA_LIB64 "/usr/local/cuda/lib64"
#endif
/* NVRTC of the CUDA major version of the build (meson defines them) */
#ifndef CO_NVRTC_SONAME
#define CO_NVRTC_SONAME "libnvrtc.so.13"
#endif
/* NVIDIA's package that brings it, for the message when none loads */
#ifndef CO_NVRTC_PACKAGE
#define CO_NVRTC_PACKAGE "cuda-nvrtc-13-0"
#endif
#define CO_NVRTC_CACHE_MAGIC "cudaoverlap-nvrtc 1"
#define CO_NVRTC_ABI_HEADER "gst/cudaoverlap/cudaoverlap-kernel.h"

/* the ABI header, generated from plugin/gst/cudaoverlap/ at build time
 * (engine/embed-text.py) */
extern const char co_nvrtc_abi_header[];

/* NVRTC has no <stdint.h>: the types the ABI header and a kernel use. */
static const gchar co_nvrtc_stdint[] =
    "#ifndef __CO_NVRTC_STDINT_H__\n"
    "#define __CO_NVRTC_STDINT_H__\n"
    "typedef signed char int8_t;\n"
    "typedef unsigned char uint8_t;\n"
    "typedef short int16_t;\n"
    "typedef unsigned short uint16_t;\n"
    "typedef int int32_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef long long int64_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "typedef long long intptr_t;\n"
    "typedef unsigned long long uintptr_t;\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n"
    "#define INT16_MIN (-32767 - 1)\n#define INT16_MAX 32767\n"
    "#define UINT16_MAX 65535\n"
    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n"
    "#define UINT32_MAX 4294967295u\n"
    "#define INT64_MIN (-9223372036854775807ll - 1)\n"
    "#define INT64_MAX 9223372036854775807ll\n"
    "#define UINT64_MAX 18446744073709551615ull\n" "#endif\n";

typedef int nvrtcResult;        /* NVRTC_SUCCESS = 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

typedef struct
{
  gchar *path;
  const char *(*error_string) (nvrtcResult);
    nvrtcResult (*version) (int *, int *);
    nvrtcResult (*num_archs) (int *);
    nvrtcResult (*archs) (int *);
    nvrtcResult (*create) (nvrtcProgram *, const char *, const char *, int,
      const char *const *, const char *const *);
    nvrtcResult (*destroy) (nvrtcProgram *);
    nvrtcResult (*compile) (nvrtcProgram, int, const char *const *);
    nvrtcResult (*ptx_size) (nvrtcProgram, size_t *);
    nvrtcResult (*ptx) (nvrtcProgram, char *);
    nvrtcResult (*cubin_size) (nvrtcProgram, size_t *);
    nvrtcResult (*cubin) (nvrtcProgram, char *);
    nvrtcResult (*log_size) (nvrtcProgram, size_t *);
    nvrtcResult (*log) (nvrtcProgram, char *);
    nvrtcResult (*add_name) (nvrtcProgram, const char *);
    nvrtcResult (*lowered) (nvrtcProgram, const char *, const char **);
} CoNvrtcApi;

static const struct
{
  const gchar *symbol;
  gsize offset;
} co_nvrtc_symbols[] = {
  {"nvrtcGetErrorString", G_STRUCT_OFFSET (CoNvrtcApi, error_string)},
  {"nvrtcVersion", G_STRUCT_OFFSET (CoNvrtcApi, version)},
  {"nvrtcGetNumSupportedArchs", G_STRUCT_OFFSET (CoNvrtcApi, num_archs)},
  {"nvrtcGetSupportedArchs", G_STRUCT_OFFSET (CoNvrtcApi, archs)},
  {"nvrtcCreateProgram", G_STRUCT_OFFSET (CoNvrtcApi, create)},
  {"nvrtcDestroyProgram", G_STRUCT_OFFSET (CoNvrtcApi, destroy)},
  {"nvrtcCompileProgram", G_STRUCT_OFFSET (CoNvrtcApi, compile)},
  {"nvrtcGetPTXSize", G_STRUCT_OFFSET (CoNvrtcApi, ptx_size)},
  {"nvrtcGetPTX", G_STRUCT_OFFSET (CoNvrtcApi, ptx)},
  {"nvrtcGetCUBINSize", G_STRUCT_OFFSET (CoNvrtcApi, cubin_size)},
  {"nvrtcGetCUBIN", G_STRUCT_OFFSET (CoNvrtcApi, cubin)},
  {"nvrtcGetProgramLogSize", G_STRUCT_OFFSET (CoNvrtcApi, log_size)},
  {"nvrtcGetProgramLog", G_STRUCT_OFFSET (CoNvrtcApi, log)},
  {"nvrtcAddNameExpression", G_STRUCT_OFFSET (CoNvrtcApi, add_name)},
  {"nvrtcGetLoweredName", G_STRUCT_OFFSET (CoNvrtcApi, lowered)},
};

/* Opened libraries, by the name they were opened with: NVRTC stays loaded
 * for the process once opened [co_nvrtc_lock]. */
static GMutex co_nvrtc_lock;
static GHashTable *co_nvrtc_opened;

const gchar *const *
co_nvrtc_default_libraries (void)
{
  static const gchar *const libs[] = { CO_NVRTC_SONAME,
    CO_CUDA_LIB64 "/" CO_NVRTC_SONAME, NULL
  };

  return libs;
}

static const gchar *const *
co_nvrtc_libraries (const CoNvrtcRequest * req)
{
  return req->libraries ? req->libraries : co_nvrtc_default_libraries ();
}

/* NVRTC from @path with all its functions, or NULL with *@why appended. */
static CoNvrtcApi *
co_nvrtc_open_one (const gchar * path, GString * why)
{
  GModule *mod = g_module_open (path, G_MODULE_BIND_LOCAL);
  CoNvrtcApi *api;
  guint i;

  if (!mod) {
    g_string_append_printf (why, "; %s", g_module_error ());
    return NULL;
  }
  api = g_new0 (CoNvrtcApi, 1);
  for (i = 0; i < G_N_ELEMENTS (co_nvrtc_symbols); i++) {
    gpointer *slot = G_STRUCT_MEMBER_P (api, co_nvrtc_symbols[i].offset);

    if (!g_module_symbol (mod, co_nvrtc_symbols[i].symbol, slot) || !*slot) {
      g_string_append_printf (why, "; %s has no %s", path,
          co_nvrtc_symbols[i].symbol);
      g_module_close (mod);
      g_free (api);
      return NULL;
    }
  }
  g_module_make_resident (mod);
  api->path = g_strdup (path);
  return api;
}

/* The first of @req's libraries that opens (kept open). */
static const CoNvrtcApi *
co_nvrtc_open (const CoNvrtcRequest * req, GError ** error)
{
  const gchar *const *libs = co_nvrtc_libraries (req);
  CoNvrtcApi *api = NULL;
  GString *why = g_string_new (NULL);
  gchar *list;
  guint i;

  g_mutex_lock (&co_nvrtc_lock);
  if (!co_nvrtc_opened)
    co_nvrtc_opened = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; libs[i] && !api; i++) {
    api = g_hash_table_lookup (co_nvrtc_opened, libs[i]);
    if (!api && (api = co_nvrtc_open_one (libs[i], why)))
      g_hash_table_insert (co_nvrtc_opened, api->path, api);
  }
  g_mutex_unlock (&co_nvrtc_lock);
  if (!api) {
    list = g_strjoinv (", ", (gchar **) libs);
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: kernel-source needs NVRTC, the CUDA runtime "
        "compiler (%s), and none loads (tried %s%s); install NVIDIA's "
        "package %s (or the CUDA toolkit), or compile the kernel with "
        "nvcc and use kernel-module", CO_NVRTC_SONAME, list, why->str,
        CO_NVRTC_PACKAGE);
    g_free (list);
  }
  g_string_free (why, TRUE);
  return api;
}

/* ---- the cache key --------------------------------------------------------- */

/* Where the dynamic loader finds a bare library name on the systems the
 * plugin is packaged for (its cache and LD_LIBRARY_PATH aside). */
static const gchar *const co_nvrtc_system_dirs[] =
    { "/usr/lib/x86_64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib",
  "/usr/local/lib", NULL
};

static gint
co_nvrtc_cmp_names (const gchar ** a, const gchar ** b)
{
  return strcmp (*a, *b);
}

static void
co_nvrtc_key_file (GChecksum * sum, const gchar * path)
{
  GStatBuf st;
  gchar *line;

  if (g_stat (path, &st) != 0)
    return;
  line = g_strdup_printf ("file %s %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT
      ".%09ld\n", path, (guint64) st.st_size, (gint64) st.st_mtime,
#ifdef __linux__
      (long) st.st_mtim.tv_nsec
#else
      0L
#endif
      );
  g_checksum_update (sum, (const guchar *) line, -1);
  g_free (line);
}

/* The NVRTC files that may be loaded, by a stat of each (never opened). */
static void
co_nvrtc_key_libraries (GChecksum * sum, const CoNvrtcRequest * req)
{
  const gchar *const *libs = co_nvrtc_libraries (req);
  guint i, j;

  for (i = 0; libs[i]; i++) {
    if (strchr (libs[i], '/')) {
      co_nvrtc_key_file (sum, libs[i]);
      continue;
    }
    for (j = 0; co_nvrtc_system_dirs[j]; j++) {
      gchar *p = g_build_filename (co_nvrtc_system_dirs[j], libs[i], NULL);

      co_nvrtc_key_file (sum, p);
      g_free (p);
    }
  }
}

/* The files of the include folder (kernel-source-file's), by a stat of
 * each, in name order: an edited header there compiles anew.  Not its
 * subfolders. */
static void
co_nvrtc_key_include_dir (GChecksum * sum, const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *n;
  guint i;

  while (d && (n = g_dir_read_name (d)) && names->len < 4096)
    g_ptr_array_add (names, g_strdup (n));
  if (d)
    g_dir_close (d);
  g_ptr_array_sort (names, (GCompareFunc) co_nvrtc_cmp_names);
  for (i = 0; i < names->len; i++) {
    gchar *p = g_build_filename (dir, g_ptr_array_index (names, i), NULL);

    if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
      co_nvrtc_key_file (sum, p);
    g_free (p);
  }
  g_ptr_array_unref (names);
}

/* The compile options but the architecture (which follows from the
 * compute capability and the NVRTC, both in the key). */
static GPtrArray *
co_nvrtc_options (const CoNvrtcRequest * req)
{
  GPtrArray *o = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (o, g_strdup ("-std=c++17"));
  /* a function without __device__ (the ABI header's inline helpers, a
   * user's) is compiled for the device: NVRTC compiles no host code */
  g_ptr_array_add (o, g_strdup ("-default-device"));
  /* the ABI's types without an #include: a kernel fits in one line */
  g_ptr_array_add (o, g_strdup ("--pre-include=" CO_NVRTC_ABI_HEADER));
  g_ptr_array_add (o, g_strdup ("-DGST_CUDA_OVERLAP_KERNEL_NVRTC=1"));
  if (req->include_dir)
    g_ptr_array_add (o, g_strdup_printf ("-I%s", req->include_dir));
  return o;
}

static gchar *
co_nvrtc_key (const CoNvrtcRequest * req)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  GPtrArray *o = co_nvrtc_options (req);
  gchar *head, *key;
  guint i;

  head = g_strdup_printf ("%s\nabi %d\nsm_%d%d\nname %s\n",
      CO_NVRTC_CACHE_MAGIC, GST_CUDA_OVERLAP_KERNEL_ABI_VERSION,
      req->cc_major, req->cc_minor, req->name);
  g_checksum_update (sum, (const guchar *) head, -1);
  for (i = 0; i < o->len; i++) {
    g_checksum_update (sum, (const guchar *) "option ", -1);
    g_checksum_update (sum, g_ptr_array_index (o, i), -1);
    g_checksum_update (sum, (const guchar *) "\n", 1);
  }
  g_checksum_update (sum, (const guchar *) co_nvrtc_abi_header, -1);
  g_checksum_update (sum, (const guchar *) "\nsource\n", -1);
  g_checksum_update (sum, (const guchar *) req->source, -1);
  co_nvrtc_key_libraries (sum, req);
  if (req->include_dir)
    co_nvrtc_key_include_dir (sum, req->include_dir);
  key = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  g_ptr_array_unref (o);
  g_free (head);
  return key;
}

gchar *
co_nvrtc_cache_path (const CoNvrtcRequest * req)
{
  gchar *key, *file, *path;

  if (!req->cache_dir)
    return NULL;
  key = co_nvrtc_key (req);
  file = g_strconcat (key, ".nvrtc", NULL);
  path = g_build_filename (req->cache_dir, file, NULL);
  g_free (key);
  g_free (file);
  return path;
}

const gchar *
co_nvrtc_cache_nick (CoNvrtcCache cache)
{
  static const gchar *const nicks[] = { "", "hit", "stored", "unwritable" };

  return (guint) cache < G_N_ELEMENTS (nicks) ? nicks[cache] : "";
}

/* ---- cache entries ----------------------------------------------------------
 * A text head, a blank line, then the code:
 *   cudaoverlap-nvrtc 1
 *   kind cubin|ptx
 *   target sm_90
 *   lowered <symbol>
 *   size <bytes of the code>
 *   sha256 <of the code>
 */

static gchar *
co_nvrtc_sha256 (const guint8 * data, gsize len)
{
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, len);
}

/* @line's value after "@name ", or NULL. */
static const gchar *
co_nvrtc_field (gchar ** lines, const gchar * name)
{
  gsize n = strlen (name);
  guint i;

  for (i = 0; lines[i]; i++)
    if (strncmp (lines[i], name, n) == 0 && lines[i][n] == ' ')
      return lines[i] + n + 1;
  return NULL;
}

/* The entry's fields into @res; FALSE when it does not check out. */
static gboolean
co_nvrtc_parse_entry (const gchar * data, gsize len, CoNvrtcResult * res)
{
  const gchar *end = g_strstr_len (data, MIN (len, 65536), "\n\n");
  const gchar *kind, *target, *lowered, *size, *sha;
  gchar *head, **lines, *sum = NULL;
  const guint8 *code;
  gsize code_len;
  gboolean ok = FALSE;

  if (!end)
    return FALSE;
  head = g_strndup (data, end - data);
  lines = g_strsplit (head, "\n", -1);
  code = (const guint8 *) end + 2;
  code_len = len - (end + 2 - data);
  kind = co_nvrtc_field (lines, "kind");
  target = co_nvrtc_field (lines, "target");
  lowered = co_nvrtc_field (lines, "lowered");
  size = co_nvrtc_field (lines, "size");
  sha = co_nvrtc_field (lines, "sha256");
  if (g_strcmp0 (lines[0], CO_NVRTC_CACHE_MAGIC) == 0 && kind && target &&
      lowered && *lowered && size && sha && (!strcmp (kind, "cubin") ||
          !strcmp (kind, "ptx")) && g_ascii_strtoull (size, NULL, 10) ==
      code_len && code_len > 0) {
    sum = co_nvrtc_sha256 (code, code_len);
    ok = strcmp (sum, sha) == 0;
  }
  if (ok) {
    res->cubin = strcmp (kind, "cubin") == 0;
    res->target = g_strdup (target);
    res->lowered_name = g_strdup (lowered);
    /* PTX is handed to the driver as a NUL-terminated string */
    res->image = res->cubin ? g_bytes_new (code, code_len) :
        g_bytes_new_take (g_strndup ((const gchar *) code, code_len),
        code_len + 1);
  }
  g_free (sum);
  g_strfreev (lines);
  g_free (head);
  return ok;
}

static gboolean
co_nvrtc_cache_read (const gchar * path, CoNvrtcResult * res)
{
  gchar *data = NULL;
  gsize len = 0;
  gboolean ok;

  if (!g_file_get_contents (path, &data, &len, NULL))
    return FALSE;
  ok = co_nvrtc_parse_entry (data, len, res);
  g_free (data);
  return ok;
}

/* Writes @res's entry (a temporary file in the same folder, renamed over
 * @path): FALSE with *@why when the cache cannot be written. */
static gboolean
co_nvrtc_cache_write (const gchar * path, const CoNvrtcResult * res,
    gchar ** why)
{
  gsize len = 0;
  const guint8 *code = g_bytes_get_data (res->image, &len);
  gchar *dir = g_path_get_dirname (path), *sum, *head;
  GByteArray *entry = g_byte_array_new ();
  GError *err = NULL;
  gboolean ok = FALSE;

  /* PTX: its text without the NUL the driver gets */
  if (!res->cubin && len > 0 && code[len - 1] == 0)
    len--;
  sum = co_nvrtc_sha256 (code, len);
  head = g_strdup_printf ("%s\nkind %s\ntarget %s\nlowered %s\nsize %"
      G_GSIZE_FORMAT "\nsha256 %s\n\n", CO_NVRTC_CACHE_MAGIC,
      res->cubin ? "cubin" : "ptx", res->target, res->lowered_name, len, sum);
  g_byte_array_append (entry, (const guint8 *) head, strlen (head));
  g_byte_array_append (entry, code, len);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    *why = g_strdup_printf ("cannot make %s: %s", dir, g_strerror (errno));
  else if (!g_file_set_contents_full (path, (const gchar *) entry->data,
          entry->len, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &err))
    *why = g_strdup (err->message);
  else
    ok = TRUE;
  g_clear_error (&err);
  g_byte_array_unref (entry);
  g_free (head);
  g_free (sum);
  g_free (dir);
  return ok;
}

/* ---- compiling --------------------------------------------------------------- */

/* The architecture to compile for: the GPU's sm_XY when NVRTC lists it
 * (a cubin), else PTX for the newest it lists. */
static gchar *
co_nvrtc_target (const CoNvrtcApi * api, const CoNvrtcRequest * req,
    gboolean * cubin)
{
  int n = 0, *archs, i, want = req->cc_major * 10 + req->cc_minor, newest = 0;
  gboolean listed = FALSE;

  if (api->num_archs (&n) != 0 || n <= 0)
    n = 0;
  archs = g_new0 (int, MAX (n, 1));
  if (n > 0 && api->archs (archs) != 0)
    n = 0;
  for (i = 0; i < n; i++) {
    listed |= archs[i] == want;
    newest = MAX (newest, archs[i]);
  }
  g_free (archs);
  *cubin = listed;
  if (listed)
    return g_strdup_printf ("sm_%d", want);
  return g_strdup_printf ("compute_%d", newest > 0 ? newest : want);
}

static gchar *
co_nvrtc_program_log (const CoNvrtcApi * api, nvrtcProgram prog)
{
  size_t n = 0;
  gchar *log;

  if (api->log_size (prog, &n) != 0 || n <= 1)
    return NULL;
  log = g_malloc0 (n + 1);
  if (api->log (prog, log) != 0)
    g_clear_pointer (&log, g_free);
  else
    g_strchomp (log);
  return log;
}

/* The compiled code of @prog into @res. */
static nvrtcResult
co_nvrtc_take_code (const CoNvrtcApi * api, nvrtcProgram prog,
    CoNvrtcResult * res)
{
  size_t n = 0;
  nvrtcResult r;
  gchar *code;

  r = res->cubin ? api->cubin_size (prog, &n) : api->ptx_size (prog, &n);
  if (r != 0)
    return r;
  code = g_malloc0 (n + 1);
  r = res->cubin ? api->cubin (prog, code) : api->ptx (prog, code);
  if (r != 0) {
    g_free (code);
    return r;
  }
  /* PTX: NVRTC's size counts its NUL */
  res->image = g_bytes_new_take (code, n);
  return 0;
}

static void
co_nvrtc_compile_error (GError ** error, const CoNvrtcApi * api,
    const CoNvrtcRequest * req, const gchar * what, nvrtcResult r,
    const gchar * target, const gchar * log)
{
  int major = 0, minor = 0;

  api->version (&major, &minor);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
      "operation=custom: %s %s (%s; NVRTC %d.%d, %s, -arch=%s)%s%s",
      req->origin, what, api->error_string (r), major, minor, api->path,
      target, log ? ":\n" : "", log ? log : "");
}

/* The source compiled by @api: the code, its symbol, the log. */
static gboolean
co_nvrtc_compile (const CoNvrtcApi * api, const CoNvrtcRequest * req,
    CoNvrtcResult * res, GError ** error)
{
  const char *headers[2] = { co_nvrtc_abi_header, co_nvrtc_stdint };
  const char *names[2] = { CO_NVRTC_ABI_HEADER, "stdint.h" };
  GPtrArray *o = co_nvrtc_options (req);
  nvrtcProgram prog = NULL;
  const char *lowered = NULL;
  gint64 t0 = g_get_monotonic_time ();
  gchar *arch;
  nvrtcResult r;

  res->target = co_nvrtc_target (api, req, &res->cubin);
  arch = g_strdup_printf ("-arch=%s", res->target);
  g_ptr_array_add (o, arch);
  r = api->create (&prog, req->source, req->file ? req->file : req->origin,
      2, headers, names);
  if (r == 0)
    r = api->add_name (prog, req->name);
  if (r == 0) {
    r = api->compile (prog, o->len, (const char *const *) o->pdata);
    res->log = co_nvrtc_program_log (api, prog);
  }
  if (r != 0) {
    co_nvrtc_compile_error (error, api, req, "does not compile", r,
        res->target, res->log);
  } else if ((r = api->lowered (prog, req->name, &lowered)) != 0 || !lowered) {
    gchar *what = g_strdup_printf ("defines no kernel \"%s\" (kernel-name)",
        req->name);

    co_nvrtc_compile_error (error, api, req, what, r ? r : 1, res->target,
        NULL);
    g_free (what);
    r = r ? r : 1;
  } else {
    res->lowered_name = g_strdup (lowered);
    if ((r = co_nvrtc_take_code (api, prog, res)) != 0)
      co_nvrtc_compile_error (error, api, req, "gives no code", r,
          res->target, NULL);
  }
  res->compile_ms = (g_get_monotonic_time () - t0) / 1000.0;
  res->library = g_strdup (api->path);
  if (prog)
    api->destroy (&prog);
  g_ptr_array_unref (o);
  return r == 0;
}

/* The cache's trouble, in GLib's debug log once per process. */
static void
co_nvrtc_cache_trouble (const gchar * why)
{
  static gint said;

  if (g_atomic_int_compare_and_exchange (&said, 0, 1))
    g_debug ("cudaoverlap: the kernel-source cache is not written (%s): "
        "each engine compiles its kernel", why);
}

gboolean
co_nvrtc_build (const CoNvrtcRequest * req, CoNvrtcResult * res,
    GError ** error)
{
  gchar *path = co_nvrtc_cache_path (req), *why = NULL;
  const CoNvrtcApi *api;
  gboolean ok;

  memset (res, 0, sizeof (*res));
  if (path && co_nvrtc_cache_read (path, res)) {
    res->cache = CO_NVRTC_CACHE_HIT;
    g_free (path);
    return TRUE;
  }
  /* a missing or bad entry: whatever it left is dropped */
  co_nvrtc_result_clear (res);
  if (!(api = co_nvrtc_open (req, error))) {
    g_free (path);
    return FALSE;
  }
  ok = co_nvrtc_compile (api, req, res, error);
  if (ok && path) {
    res->cache = co_nvrtc_cache_write (path, res, &why) ?
        CO_NVRTC_CACHE_STORED : CO_NVRTC_CACHE_UNWRITABLE;
    if (why)
      co_nvrtc_cache_trouble (why);
  }
  g_free (why);
  g_free (path);
  return ok;
}

void
co_nvrtc_result_clear (CoNvrtcResult * res)
{
  g_clear_pointer (&res->image, g_bytes_unref);
  g_clear_pointer (&res->target, g_free);
  g_clear_pointer (&res->lowered_name, g_free);
  g_clear_pointer (&res->library, g_free);
  g_clear_pointer (&res->log, g_free);
  memset (res, 0, sizeof (*res));
}
