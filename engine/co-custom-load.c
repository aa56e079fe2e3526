/* cudaoverlap: operation=custom, a user's kernel loaded by the backends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user brings a kernel as a module file (PTX, cubin or fatbin) with a
 * CPU twin in a shared library, or as a table of functions (a
 * kernel-launcher).  This module loads it when an engine opens, so that a
 * wrong file, a missing symbol or a GPU the code was not built for is an
 * error at caps time with a message that says what to do, and runs it per
 * chunk with the launch struct of the public ABI.  A module's kernel errors
 * are worded here (with a hint where one helps, e.g. the architecture to
 * build for); a chunk that fails on the CPU returns its frame's error text.
 * kernel-source (or kernel-source-file) is compiled with NVRTC (co-nvrtc.h)
 * for the engine's GPU, and its code loaded as a module's.
 * Fault points (co-fault.h): "cudaLibraryLoadData" and "cudaLaunchKernel".
 */
#ifdef CO_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <gmodule.h>

#include "co-custom-load.h"
#include "co-fault.h"
#include "co-nvrtc.h"

struct _CoCustomLauncher
{
  GstCudaOverlapKernelLauncher l;
  gint ref;
};

struct _CoCustomCpu
{
  CoCustomLauncher *launcher;   /* kernel-launcher, or NULL: the library */
  gchar *library;
  gchar *symbol;
  gboolean audio;
  GModule *mod;
  gpointer func;
};

CoCustomLauncher *
co_custom_launcher_new (const GstCudaOverlapKernelLauncher * l, GError ** error)
{
  CoCustomLauncher *cl;

  if (l->abi_version < 1 || l->abi_version > GST_CUDA_OVERLAP_KERNEL_ABI_VERSION
      || l->struct_size < sizeof (GstCudaOverlapKernelLauncher)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "a GstCudaOverlapKernelLauncher of ABI version %u and %u bytes; "
        "this plugin takes version 1 .. %d, %u bytes or more",
        l->abi_version, l->struct_size, GST_CUDA_OVERLAP_KERNEL_ABI_VERSION,
        (guint) sizeof (GstCudaOverlapKernelLauncher));
    return NULL;
  }
  cl = g_new0 (CoCustomLauncher, 1);
  cl->l = *l;
  cl->ref = 1;
  return cl;
}

CoCustomLauncher *
co_custom_launcher_ref (CoCustomLauncher * cl)
{
  if (cl)
    g_atomic_int_inc (&cl->ref);
  return cl;
}

void
co_custom_launcher_unref (CoCustomLauncher * cl)
{
  if (!cl || !g_atomic_int_dec_and_test (&cl->ref))
    return;
  if (cl->l.destroy)
    cl->l.destroy (cl->l.user_data);
  g_free (cl);
}

gchar *
co_custom_spec_conflict (const CoCustomSpec * spec)
{
  const gchar *set[3] = { NULL, NULL, NULL };
  guint n = 0;

  if (spec->launcher)
    return NULL;
  if (spec->module && *spec->module)
    set[n++] = "kernel-module";
  if (spec->source && *spec->source)
    set[n++] = "kernel-source";
  if (spec->source_file && *spec->source_file)
    set[n++] = "kernel-source-file";
  if (n < 2)
    return NULL;
  return g_strdup_printf ("operation=custom: %s and %s%s%s are set; each "
      "names the kernel's code: set only one (the others empty)", set[0],
      set[1], n > 2 ? " and " : "", n > 2 ? set[2] : "");
}

/* Where a launch failed, for the messages: "chunk 2" (audio), "chunk 2,
 * plane 0" (video). */
static gchar *
co_custom_where (gboolean audio, guint chunk, gint plane)
{
  if (audio)
    return g_strdup_printf ("chunk %u", chunk);
  return g_strdup_printf ("chunk %u, plane %d", chunk, plane);
}

/* ---- CUDA (a build without CUDA has no CUDA backend to load for) --------- */
#ifdef CO_HAVE_CUDA
struct _CoCustomCuda
{
  CoCustomLauncher *launcher;   /* kernel-launcher, or NULL: the module */
  gchar *module;
  gchar *name;
  gboolean audio;
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  /* kernel-source: the kernel's symbol in the compiled code (name is the
   * C++ name the user gave), NVRTC's time, where the code came from */
  gchar *symbol;
  gdouble compile_ms;
  CoNvrtcCache cache;
  gboolean compiled;
};

/* "operation=custom: WHAT: the CUDA message (name)", WHAT from @format
 * with @a and @b, then @hint if not NULL. */
static void
co_custom_set_cuda_error (GError ** error, cudaError_t err,
    const gchar * format, const gchar * a, const gchar * b, const gchar * hint)
{
  gchar *what = g_strdup_printf (format, a, b);

  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
      "operation=custom: %s: %s (%s)%s%s", what, cudaGetErrorString (err),
      cudaGetErrorName (err), hint ? "; " : "", hint ? hint : "");
  g_free (what);
}

/* What to do about a module without code for @device (free it). */
static gchar *
co_custom_arch_hint (gint device)
{
  int major = 0, minor = 0;

  cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, device);
  return g_strdup_printf ("CUDA device %d has compute capability %d.%d: a "
      "cubin or fatbin must hold code for it (nvcc -arch=sm_%d%d), or use "
      "PTX (nvcc -ptx -arch=compute_75), which the driver compiles for any "
      "later GPU", device, major, minor, major, minor);
}

/* @data (@len bytes, PTX NUL-terminated), loaded as a library. */
static gboolean
co_custom_cuda_load_image (CoCustomCuda * k, const gchar * data, gsize len,
    gint device, GError ** error)
{
  gchar *hint = NULL;
  gboolean ptx;
  cudaError_t err;

  err = co_fault_hit ("cudaLibraryLoadData") ? cudaErrorInvalidKernelImage :
      cudaLibraryLoadData (&k->lib, data, NULL, NULL, 0, NULL, NULL, 0);
  /* PTX is text with a .target directive; the rest is a cubin or fatbin,
   * which may lack code for this GPU */
  ptx = g_strstr_len (data, MIN (len, 4096), ".target") != NULL;
  if (err == cudaSuccess)
    return TRUE;
  k->lib = NULL;
  if (err == cudaErrorNoKernelImageForDevice || (!ptx && len > 0))
    hint = co_custom_arch_hint (device);
  co_custom_set_cuda_error (error, err, "cudaLibraryLoadData of "
      "%s failed%s", k->module, len == 0 ? " (the file is empty)" : "", hint);
  g_free (hint);
  return FALSE;
}

/* The module's bytes, loaded as a library (PTX, cubin or fatbin). */
static gboolean
co_custom_cuda_open_library (CoCustomCuda * k, gint device, GError ** error)
{
  GError *ferr = NULL;
  gchar *data = NULL, *what;
  gsize len = 0;
  gboolean ok;

  /* NUL-terminated, as PTX must be */
  if (!g_file_get_contents (k->module, &data, &len, &ferr)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: cannot read kernel-module \"%s\": %s", k->module,
        ferr->message);
    g_error_free (ferr);
    return FALSE;
  }
  what = g_strdup_printf ("kernel-module \"%s\"", k->module);
  g_free (k->module);
  k->module = what;
  ok = co_custom_cuda_load_image (k, data, len, device, error);
  g_free (data);
  return ok;
}

/* The cache of kernel-source's code (free it). */
static gchar *
co_custom_cache_dir (const CoCustomSpec * spec)
{
  if (spec->cache_dir)
    return g_strdup (spec->cache_dir);
  return g_build_filename (g_get_user_cache_dir (), "cudaoverlap", NULL);
}

/* kernel-source (-file): compiled for @device (or taken from the cache),
 * loaded, and @k->symbol the compiled kernel's symbol. */
static gboolean
co_custom_cuda_compile (CoCustomCuda * k, const CoCustomSpec * spec,
    gint device, GError ** error)
{
  CoNvrtcRequest req = { 0 };
  CoNvrtcResult res;
  GError *ferr = NULL;
  gchar *text = NULL, *dir = NULL, *cache = co_custom_cache_dir (spec);
  gboolean ok = FALSE;
  gsize len;

  if (spec->source_file && *spec->source_file) {
    if (!g_file_get_contents (spec->source_file, &text, NULL, &ferr)) {
      g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
          "operation=custom: cannot read kernel-source-file \"%s\": %s",
          spec->source_file, ferr->message);
      g_error_free (ferr);
      g_free (cache);
      return FALSE;
    }
    dir = g_path_get_dirname (spec->source_file);
  }
  req.source = text ? text : spec->source;
  req.origin = k->module;
  req.file = text ? spec->source_file : NULL;
  req.include_dir = dir;
  req.name = spec->name;
  req.cache_dir = cache;
  cudaDeviceGetAttribute (&req.cc_major, cudaDevAttrComputeCapabilityMajor,
      device);
  cudaDeviceGetAttribute (&req.cc_minor, cudaDevAttrComputeCapabilityMinor,
      device);
  if (co_nvrtc_build (&req, &res, error)) {
    k->compiled = TRUE;
    k->compile_ms = res.compile_ms;
    k->cache = res.cache;
    k->symbol = g_strdup (res.lowered_name);
    ok = co_custom_cuda_load_image (k, g_bytes_get_data (res.image, &len),
        len, device, error);
    co_nvrtc_result_clear (&res);
  }
  g_free (text);
  g_free (dir);
  g_free (cache);
  return ok;
}

/* The kernel, made resident in the current context now (with lazy
 * loading, an architecture mismatch shows here). */
static gboolean
co_custom_cuda_find_kernel (CoCustomCuda * k, gint device, GError ** error)
{
  struct cudaFuncAttributes attr;
  cudaError_t err;
  gchar *hint;

  err = cudaLibraryGetKernel (&k->kernel, k->lib, k->symbol ? k->symbol :
      k->name);
  if (err == cudaErrorSymbolNotFound) {
    co_custom_set_cuda_error (error, err, "no kernel \"%s\" in %s",
        k->name, k->module,
        "declare it extern \"C\" __global__ (an unmangled name)");
    return FALSE;
  }
  if (err != cudaSuccess) {
    /* the driver loads a library lazily: a file that is no module at
     * all passes cudaLibraryLoadData and fails here */
    hint = err == cudaErrorNoKernelImageForDevice ?
        co_custom_arch_hint (device) : NULL;
    co_custom_set_cuda_error (error, err, "%s cannot be loaded "
        "(cudaLibraryGetKernel of \"%s\": the driver reads a module at its "
        "first use; is it PTX, a cubin or a fatbin?)", k->module, k->name,
        hint);
    g_free (hint);
    return FALSE;
  }
  err = cudaFuncGetAttributes (&attr, (const void *) k->kernel);
  if (err != cudaSuccess) {
    hint = co_custom_arch_hint (device);
    co_custom_set_cuda_error (error, err, "kernel \"%s\" of %s cannot be "
        "loaded on this GPU", k->name, k->module, hint);
    g_free (hint);
    return FALSE;
  }
  if (attr.maxThreadsPerBlock < GST_CUDA_OVERLAP_KERNEL_AUDIO_BLOCK) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: kernel \"%s\" of %s runs at "
        "most %d threads per block (registers or __launch_bounds__); the "
        "ABI launches blocks of %d", k->name, k->module,
        attr.maxThreadsPerBlock, GST_CUDA_OVERLAP_KERNEL_AUDIO_BLOCK);
    return FALSE;
  }
  return TRUE;
}

/* kernel-launcher on the CUDA backend: its video (or audio) function. */
static CoCustomCuda *
co_custom_cuda_use_launcher (const CoCustomSpec * spec, GError ** error)
{
  const GstCudaOverlapKernelLauncher *l = &spec->launcher->l;
  CoCustomCuda *k;

  if (spec->audio ? !l->audio : !l->video) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: the kernel-launcher has no %s function for the "
        "CUDA backend (GstCudaOverlapKernelLauncher.%s is NULL)",
        spec->audio ? "audio" : "video", spec->audio ? "audio" : "video");
    return NULL;
  }
  k = g_new0 (CoCustomCuda, 1);
  k->launcher = co_custom_launcher_ref (spec->launcher);
  k->module = g_strdup ("kernel-launcher");
  k->name = g_strdup (spec->audio ? "audio" : "video");
  k->audio = spec->audio;
  return k;
}

/* "kernel-source", "kernel-source-file \"path\"", or NULL: a module. */
static gchar *
co_custom_source_name (const CoCustomSpec * spec)
{
  if (spec->source_file && *spec->source_file)
    return g_strdup_printf ("kernel-source-file \"%s\"", spec->source_file);
  if (spec->source && *spec->source)
    return g_strdup ("kernel-source");
  return NULL;
}

CoCustomCuda *
co_custom_cuda_load (const CoCustomSpec * spec, gint device, GError ** error)
{
  gchar *conflict = co_custom_spec_conflict (spec);
  gchar *source = co_custom_source_name (spec);
  CoCustomCuda *k;

  if (spec->launcher)
    return co_custom_cuda_use_launcher (spec, error);
  if (conflict || (!source && (!spec->module || !*spec->module)) ||
      !spec->name || !*spec->name) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL, "%s",
        conflict ? conflict : "operation=custom needs kernel-module (or "
        "kernel-source, or kernel-source-file) and kernel-name, or a "
        "kernel-launcher (the CUDA backend runs the kernel they name)");
    g_free (conflict);
    g_free (source);
    return NULL;
  }
  k = g_new0 (CoCustomCuda, 1);
  k->module = source ? source : g_strdup (spec->module);
  k->name = g_strdup (spec->name);
  k->audio = spec->audio;
  if (!(source ? co_custom_cuda_compile (k, spec, device, error) :
          co_custom_cuda_open_library (k, device, error)) ||
      !co_custom_cuda_find_kernel (k, device, error)) {
    co_custom_cuda_unload (k);
    return NULL;
  }
  return k;
}

void
co_custom_cuda_unload (CoCustomCuda * k)
{
  if (!k)
    return;
  if (k->lib)
    cudaLibraryUnload (k->lib);
  co_custom_launcher_unref (k->launcher);
  g_free (k->module);
  g_free (k->name);
  g_free (k->symbol);
  g_free (k);
}

gchar *
co_custom_cuda_describe (const CoCustomCuda * k)
{
  if (k->launcher)
    return g_strdup_printf ("operation=custom: the kernel-launcher's %s "
        "function ran in this frame", k->name);
  return g_strdup_printf ("operation=custom: kernel \"%s\" of %s ran in "
      "this frame", k->name, k->module);
}

void
co_custom_cuda_compile_info (const CoCustomCuda * k, gdouble * ms,
    const gchar ** cache)
{
  *ms = k->compiled ? k->compile_ms : 0;
  *cache = k->compiled ? co_nvrtc_cache_nick (k->cache) : "";
  /* a compile without a cache: "compiled" says it was not read from one */
  if (k->compiled && k->cache == CO_NVRTC_CACHE_NONE)
    *cache = "compiled";
}

typedef struct
{
  const CoCustomCuda *k;
  cudaStream_t stream;
  cudaError_t err;
  int ret;                      /* kernel-launcher: its last return */
  int plane;
} CoCustomCudaLaunch;

/* kernel-launcher: its function; a non-zero return or a launch error
 * (cudaGetLastError) fails the chunk. */
static cudaError_t
co_custom_cuda_call_launcher (CoCustomCudaLaunch * l, void *launch)
{
  const GstCudaOverlapKernelLauncher *kl = &l->k->launcher->l;
  cudaError_t err;

  l->ret = l->k->audio ? kl->audio (l->stream, launch, kl->user_data) :
      kl->video (l->stream, launch, kl->user_data);
  err = cudaGetLastError ();
  if (err == cudaSuccess && l->ret != 0)
    err = cudaErrorLaunchFailure;
  return err;
}

static cudaError_t
co_custom_cuda_launch_one (CoCustomCudaLaunch * l, void *launch,
    const unsigned g[3], const unsigned b[3])
{
  dim3 grid = { g[0], g[1], g[2] }, block = { b[0], b[1], b[2] };
  void *args[1] = { launch };

  if (g[0] == 0 || g[1] == 0)
    return cudaSuccess;
  if (co_fault_hit ("cudaLaunchKernel"))
    return cudaErrorLaunchFailure;
  if (l->k->launcher)
    return co_custom_cuda_call_launcher (l, launch);
  return cudaLaunchKernel ((const void *) l->k->kernel, grid, block, args, 0,
      l->stream);
}

static int
co_custom_cuda_video_one (const GstCudaOverlapVideoLaunch * a, void *user)
{
  CoCustomCudaLaunch *l = user;
  unsigned g[3], b[3];

  co_custom_video_geometry (a, g, b);
  l->plane = a->plane;
  l->err = co_custom_cuda_launch_one (l, (void *) a, g, b);
  return l->err != cudaSuccess;
}

gboolean
co_custom_cuda_launch (CoCustomCuda * k, const CoChunk * ch, guint chunk,
    guint n_chunks, gpointer stream, GError ** error)
{
  CoCustomCudaLaunch l = { k, stream, cudaSuccess, 0, -1 };

  if (ch->kind == CO_KERNEL_CUSTOM_VIDEO && !k->audio) {
    if (co_custom_video_each (&ch->params.video, chunk, n_chunks,
            co_custom_cuda_video_one, &l) != 0 && l.err == cudaSuccess)
      l.err = cudaErrorInvalidValue;
  } else if (ch->kind == CO_KERNEL_CUSTOM_AUDIO && k->audio) {
    GstCudaOverlapAudioLaunch a;
    unsigned g[3], b[3];

    co_custom_audio_fill (&a, &ch->params.audio, chunk, n_chunks);
    co_custom_audio_geometry (&a, g, b);
    l.err = co_custom_cuda_launch_one (&l, &a, g, b);
  } else {
    l.err = cudaErrorInvalidValue;
  }
  if (l.err == cudaSuccess)
    return TRUE;
  if (k->launcher && l.ret != 0) {
    gchar *where = co_custom_where (k->audio, chunk, l.plane);

    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: the kernel-launcher's %s function returned %d "
        "(%s)", k->name, l.ret, where);
    g_free (where);
    return FALSE;
  }
  if (k->launcher) {
    co_custom_set_cuda_error (error, l.err, "the kernel-launcher's %s "
        "function%s left a CUDA error (a launch of its own failed)", k->name,
        "", NULL);
    return FALSE;
  }
  co_custom_set_cuda_error (error, l.err, "cudaLaunchKernel of kernel \"%s\" "
      "(%s) failed", k->name, k->module, NULL);
  return FALSE;
}

#endif /* CO_HAVE_CUDA */

/* ---- CPU ------------------------------------------------------------------- */

/* kernel-launcher on the CPU backend: its video_cpu (or audio_cpu). */
static CoCustomCpu *
co_custom_cpu_use_launcher (const CoCustomSpec * spec, GError ** error)
{
  const GstCudaOverlapKernelLauncher *l = &spec->launcher->l;
  CoCustomCpu *k;

  if (spec->audio ? !l->audio_cpu : !l->video_cpu) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom on the CPU backend: the kernel-launcher has no "
        "CPU function (GstCudaOverlapKernelLauncher.%s is NULL); give one, "
        "or use backend=cuda", spec->audio ? "audio_cpu" : "video_cpu");
    return NULL;
  }
  k = g_new0 (CoCustomCpu, 1);
  k->launcher = co_custom_launcher_ref (spec->launcher);
  k->library = g_strdup ("kernel-launcher");
  k->symbol = g_strdup (spec->audio ? "audio_cpu" : "video_cpu");
  k->audio = spec->audio;
  return k;
}

CoCustomCpu *
co_custom_cpu_load (const CoCustomSpec * spec, GError ** error)
{
  gchar *conflict = co_custom_spec_conflict (spec);
  gboolean source = (spec->source && *spec->source) ||
      (spec->source_file && *spec->source_file);
  CoCustomCpu *k;

  if (spec->launcher)
    return co_custom_cpu_use_launcher (spec, error);
  if (conflict) {
    g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        conflict);
    g_free (conflict);
    return NULL;
  }
  if (!spec->cpu_library || !*spec->cpu_library || !spec->cpu_symbol ||
      !*spec->cpu_symbol) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom on the CPU backend needs kernel-cpu-library and "
        "kernel-cpu-symbol (a C function with the kernel's ABI, "
        "docs/custom-kernels.md), or a kernel-launcher with a CPU function%s",
        source ? "; kernel-source is CUDA C, compiled for the CUDA backend "
        "only (the CPU backend does not emulate it)" : "");
    return NULL;
  }
  k = g_new0 (CoCustomCpu, 1);
  k->library = g_strdup (spec->cpu_library);
  k->symbol = g_strdup (spec->cpu_symbol);
  k->audio = spec->audio;
  k->mod = g_module_open (k->library, G_MODULE_BIND_LOCAL);
  if (!k->mod) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: cannot load kernel-cpu-library \"%s\": %s",
        k->library, g_module_error ());
  } else if (!g_module_symbol (k->mod, k->symbol, &k->func) || !k->func) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL,
        "operation=custom: no function \"%s\" in kernel-cpu-library \"%s\": "
        "%s; it must be an exported C function (in C++: extern \"C\")",
        k->symbol, k->library, g_module_error ());
  } else {
    return k;
  }
  co_custom_cpu_unload (k);
  return NULL;
}

void
co_custom_cpu_unload (CoCustomCpu * k)
{
  if (!k)
    return;
  if (k->mod)
    g_module_close (k->mod);
  co_custom_launcher_unref (k->launcher);
  g_free (k->library);
  g_free (k->symbol);
  g_free (k);
}

typedef struct
{
  GstCudaOverlapVideoKernelCpu func;
  int plane;
  const CoCustomLauncher *launcher;     /* or NULL: func */
} CoCustomCpuCall;

static int
co_custom_cpu_video_one (const GstCudaOverlapVideoLaunch * a, void *user)
{
  CoCustomCpuCall *c = user;

  c->plane = a->plane;
  if (c->launcher)
    return c->launcher->l.video_cpu (a, c->launcher->l.user_data);
  return c->func (a);
}

static int
co_custom_cpu_audio (const CoCustomCpu * k, const GstCudaOverlapAudioLaunch * a)
{
  if (a->frames <= 0)
    return 0;
  if (k->launcher)
    return k->launcher->l.audio_cpu (a, k->launcher->l.user_data);
  return ((GstCudaOverlapAudioKernelCpu) k->func) (a);
}

gchar *
co_custom_cpu_run (const CoCustomCpu * k, const CoChunk * ch, guint chunk,
    guint n_chunks)
{
  CoCustomCpuCall c = { (GstCudaOverlapVideoKernelCpu) k->func, -1,
    k->launcher
  };
  gchar *where, *msg;
  int ret;

  if (ch->kind == CO_KERNEL_CUSTOM_VIDEO && !k->audio) {
    ret = co_custom_video_each (&ch->params.video, chunk, n_chunks,
        co_custom_cpu_video_one, &c);
  } else if (ch->kind == CO_KERNEL_CUSTOM_AUDIO && k->audio) {
    GstCudaOverlapAudioLaunch a;

    co_custom_audio_fill (&a, &ch->params.audio, chunk, n_chunks);
    ret = co_custom_cpu_audio (k, &a);
  } else {
    return g_strdup ("operation=custom: a chunk of the other media");
  }
  if (ret == 0)
    return NULL;
  where = co_custom_where (k->audio, chunk, c.plane);
  if (k->launcher)
    msg = g_strdup_printf ("operation=custom: the kernel-launcher's %s "
        "function returned %d (%s)", k->symbol, ret, where);
  else
    msg = g_strdup_printf ("operation=custom: kernel-cpu-symbol \"%s\" of "
        "\"%s\" returned %d (%s)", k->symbol, k->library, ret, where);
  g_free (where);
  return msg;
}
