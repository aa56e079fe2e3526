/* cudaoverlap: the overlap engine's CUDA backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This backend runs a frame's chunks on CUDA streams: for each chunk, the
 * host-to-device copies, the kernel and the device-to-host copies are
 * queued on the chunk's stream, so that the copies of one chunk overlap
 * the kernel of another.  Streams are created non-blocking, so nothing here
 * waits on the legacy default stream and nothing is queued on it.  All
 * device memory (every slot's input and output area and the constant area)
 * is allocated once, when the engine is made (at caps time); the per-frame
 * path only records events, queues copies and launches kernels, and the
 * consumer thread waits on one event per frame.  There is no device-wide
 * synchronisation.
 *
 * Timing: each chunk records up to four timing events in its stream (see
 * CoChunk): an event with nothing queued since the one before it is not
 * recorded and takes that one's time (co_chunk_ts_sources: a chunk that
 * only runs a kernel on CUDA memory records two), since each record and
 * each elapsed-time read is a driver call on the host.
 * Times are mapped onto CLOCK_MONOTONIC through an anchor: an event whose
 * host time is known.  The first anchor is recorded and waited for when the
 * engine opens; afterwards the anchor is the first event of the most
 * recently completed frame, so every elapsed-time read spans at most a few
 * frames and keeps the float milliseconds of cudaEventElapsedTime precise.
 * The consumer may read a frame's times after it has pushed the frame
 * (wait_done, then read_times), keeping those reads off its latency.
 *
 * Completion: after the frame's last chunk, its stream waits for every
 * other chunk's end event and records the frame's done event, the only
 * event the consumer waits on: it completes after all of the frame's work,
 * whichever chunk ends last (with several streams, chunks' downloads run on
 * two copy engines and may end out of order).  It is never timed, because
 * a timing event costs the host more to record.  With CO_WAIT_BLOCKING it
 * is a blocking-sync event and the consumer sleeps on it: one wake-up per
 * frame, and one interrupt for the driver's event thread, whose CPU grows
 * with the number of blocking-sync events recorded (so the timing events
 * are plain ones).  With CO_WAIT_SPIN the consumer polls it: no wake-up
 * latency, a core busy while frames are in flight.  The stream waits also
 * hold later work of that stream until this frame's other chunks (queued
 * earlier, on other streams) have ended; the stream-count sweeps of
 * docs/PERFORMANCE.md show that this costs no throughput.
 *
 * Errors: every runtime call is made through CO_CUDA_CHECK_GOTO or
 * CO_CUDA_CHECK_LOG (co-cuda-check.h), which log the call and its place
 * and fill the caller's GError; the entry points report through GError,
 * and the wait through the frame's error string (co-engine.h).  In a
 * -Dfault-injection build, each of those checks is a fault point named
 * after the function called ("cudaEventRecord", "cudaMalloc",
 * "co_video_launch_cuda", ...), and so are the driver's context calls.
 *
 * Usable: the device check (co_cuda_usable()) says why a device cannot be
 * used in words a user can act on, told apart by the driver's CUDA version
 * against the runtime's: no driver (0), a driver too old for this build
 * (the minimum driver of the runtime's CUDA major, from one table), no
 * device visible, no device with that id, a device this build has no code
 * for.  backend=cuda fails with that text and backend=auto warns with it.
 *
 * Device context: without CoEngineConfig.device_context the backend runs in
 * the device's primary context (cudaSetDevice before its calls).  With one
 * (the CUcontext of a GstCudaContext shared with other CUDA elements: a
 * wrapped primary context, or a context gst_cuda_context_new made), every
 * entry point (open, close, submit, wait, set_const) pushes it current
 * first and pops it when it returns, on whichever thread calls (the
 * element's streaming thread, the engine's submit thread, the push thread):
 * the runtime then makes every stream, event, allocation, module load and
 * kernel launch in that context.  The driver's context calls are looked up
 * through the runtime (cudaGetDriverEntryPointByVersion), so libcuda is
 * not linked: the plugin loads where it is missing.
 */
#include <string.h>

#include <cuda.h>               /* types only: libcuda is not linked */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "co-engine-cuda.h"
#include "co-cuda-check.h"
#include "co-custom-load.h"
#include "co-hostreg.h"

/* The oldest compute capability cudaoverlap builds for (meson.build's
 * cuda-architectures refuses older ones), as major * 10 + minor. */
#define CO_CUDA_MIN_CC 75

/* Per chunk: the CO_TS_COUNT timing events, then (used for the frame's
 * last chunk only) the frame's done event. */
#define CO_EV_DONE CO_TS_COUNT
#define CO_EV_PER_CHUNK (CO_TS_COUNT + 1)

/* The driver's context calls, from the runtime's entry-point table. */
typedef struct
{
  CUresult (CUDAAPI * ctx_push) (CUcontext ctx);
  CUresult (CUDAAPI * ctx_pop) (CUcontext * ctx);
  CUresult (CUDAAPI * ctx_get_current) (CUcontext * ctx);
  CUresult (CUDAAPI * device_get) (CUdevice * dev, int ordinal);
  CUresult (CUDAAPI * get_error_name) (CUresult err, const char **name);
} CoCuDriver;

typedef struct
{
  gint device;
  CUcontext device_context;     /* CoEngineConfig.device_context, or NULL */
  const CoCuDriver *drv;        /* with a device_context */
  cudaStream_t streams[CO_MAX_STREAMS];
  /* Event sets outlive their frame by one completion (the timestamp
   * anchor), so there is one more set than slots. */
  guint n_evsets;
  guint next_evset;             /* the set of the next frame submitted */
  guint *evset;                 /* per slot: the set of its frame */
  cudaEvent_t *events;          /* n_evsets * chunks * CO_EV_PER_CHUNK */
  guint8 *dev_mem;
  guint8 *dev_const;
  cudaEvent_t anchor_event;     /* recorded once at open */
  guint64 anchor_event_ns;
  cudaEvent_t anchor;           /* current anchor (an event of a completed frame) */
  guint64 anchor_ns;
  gboolean copy_batch;          /* cudaMemcpyBatchAsync usable and not turned off */
  CoCustomCuda *custom;         /* operation=custom's kernel, or NULL */
  /* the chunk-0 copies-done event (CO_TS_H2D_DONE) of the last frame
   * submitted with CoFrame.ordered, or NULL; the submitting thread's */
  cudaEvent_t ordered_done;
} CoCuda;

/* The driver calls of CoCuDriver (NULL and @error when the runtime cannot
 * find one: no driver, or one too old). */
static const CoCuDriver *
co_cu_driver (GError ** error)
{
  static CoCuDriver drv;
  static const gchar *missing;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    static const gchar *const names[] = { "cuCtxPushCurrent",
      "cuCtxPopCurrent", "cuCtxGetCurrent", "cuDeviceGet", "cuGetErrorName"
    };
    void **slots[] = { (void **) &drv.ctx_push, (void **) &drv.ctx_pop,
      (void **) &drv.ctx_get_current, (void **) &drv.device_get,
      (void **) &drv.get_error_name
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (names) && !missing; i++) {
      enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSuccess;

      if (cudaGetDriverEntryPointByVersion (names[i], slots[i], CUDART_VERSION,
              cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess || !*slots[i])
        missing = names[i];
    }
    g_once_init_leave (&once, 1);
  }
  if (missing) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "cudaGetDriverEntryPointByVersion found no %s in the CUDA driver",
        missing);
    return NULL;
  }
  return &drv;
}

/* A driver call's result, reported as co_cuda_result() reports a runtime
 * call's (co-cuda-check.h): FALSE, a log line and @error (naming @call) on
 * failure.  The driver has no error string; its name and number say it. */
static gboolean
co_cu_check (const CoCuDriver * drv, CUresult r, const gchar * call,
    GError ** error)
{
  const char *name = NULL;

  if (r == CUDA_SUCCESS)
    return TRUE;
  if (drv->get_error_name (r, &name) != CUDA_SUCCESS)
    name = NULL;
  g_log ("cudaoverlap", G_LOG_LEVEL_DEBUG, "%s failed: %s (%d)", call,
      name ? name : "unknown error", (int) r);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "%s failed: %s (%d)", call, name ? name : "unknown error", (int) r);
  return FALSE;
}

/* Makes the engine's context current on the calling thread: pushes the
 * device_context, or selects the device (its primary context).  Every
 * TRUE is paired with a co_cuda_leave(). */
static gboolean
co_cuda_enter (CoCuda * c, GError ** error)
{
  if (!c->device_context) {
    CO_CUDA_CHECK_GOTO (cudaSetDevice (c->device), error, fail);
    return TRUE;
  }
  if (co_fault_hit ("cuCtxPushCurrent"))
    return co_cuda_injected ("cuCtxPushCurrent", __FILE__,
        G_STRINGIFY (__LINE__), G_STRFUNC, G_LOG_LEVEL_DEBUG, error);
  return co_cu_check (c->drv, c->drv->ctx_push (c->device_context),
      "cuCtxPushCurrent", error);

fail:
  return FALSE;
}

static void
co_cuda_leave (CoCuda * c)
{
  CUcontext prev = NULL;

  if (c->device_context)
    c->drv->ctx_pop (&prev);
}

/* co_engine_device_context(): the primary context of @device_id, made and
 * kept by the runtime (cudaSetDevice, cudaFree (NULL) initialises it), read
 * back from the driver. */
static gboolean
co_cuda_device_context (gint device_id, gpointer * context, gint * device,
    GError ** error)
{
  const CoCuDriver *drv = co_cu_driver (error);
  CUcontext ctx = NULL;
  CUdevice dev = 0;

  if (!drv)
    return FALSE;
  CO_CUDA_CHECK_GOTO (cudaSetDevice (MAX (device_id, 0)), error, fail);
  CO_CUDA_CHECK_GOTO (cudaFree (NULL), error, fail);
  if (!co_cu_check (drv, drv->ctx_get_current (&ctx), "cuCtxGetCurrent",
          error) || !co_cu_check (drv, drv->device_get (&dev,
              MAX (device_id, 0)), "cuDeviceGet", error))
    return FALSE;
  *context = ctx;
  *device = dev;
  return TRUE;

fail:
  return FALSE;
}

/* The oldest Linux driver of each CUDA major version: any runtime of that
 * major runs on it (NVIDIA's minor version compatibility; the CUDA
 * toolkit's release notes list them). */
static const struct
{
  int cuda_major;
  int driver;
} co_cuda_min_drivers[] = {
  {12, 525},
  {13, 580},
};

/* The driver's CUDA version (e.g. 12040; 0: no driver), or the simulated
 * one of a test build (co-fault.h). */
static int
co_cuda_driver_version (void)
{
  CoFaultCudaSim sim;
  int v = 0;

  co_fault_cuda_sim (&sim);
  if (sim.driver_version >= 0)
    return sim.driver_version;
  if (cudaDriverGetVersion (&v) != cudaSuccess)
    return 0;
  return v;
}

/* cudaGetDeviceCount, or the test build's simulated machine: a driver too
 * old (or none) fails as it does on a real one. */
static cudaError_t
co_cuda_device_count (int *n)
{
  CoFaultCudaSim sim;
  int rt = 0;

  co_fault_cuda_sim (&sim);
  cudaRuntimeGetVersion (&rt);
  if (sim.driver_version >= 0 && sim.driver_version < rt)
    return cudaErrorInsufficientDriver;
  if (sim.device_count >= 0) {
    *n = sim.device_count;
    return *n > 0 ? cudaSuccess : cudaErrorNoDevice;
  }
  return cudaGetDeviceCount (n);
}

/* What this build needs of the driver, e.g. "NVIDIA driver >= 580 (CUDA
 * 13.0)".  Free it. */
static gchar *
co_cuda_driver_needed (int runtime_version)
{
  int major = runtime_version / 1000, minor = runtime_version % 1000 / 10;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (co_cuda_min_drivers); i++)
    if (co_cuda_min_drivers[i].cuda_major == major)
      return g_strdup_printf ("NVIDIA driver >= %d (CUDA %d.%d)",
          co_cuda_min_drivers[i].driver, major, minor);
  return g_strdup_printf ("an NVIDIA driver for CUDA %d.%d or newer", major,
      minor);
}

/* Why there is no device to count (cudaGetDeviceCount gave @r), in words
 * a user can act on: no driver, a driver too old for this build, no
 * device visible; else the runtime's error (CO_ENGINE_ERROR_CUDA). */
static void
co_cuda_no_device (cudaError_t r, GError ** error)
{
  int drv = co_cuda_driver_version (), rt = 0;
  gchar *need;

  cudaRuntimeGetVersion (&rt);
  need = co_cuda_driver_needed (rt);
  if (drv <= 0)
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "no NVIDIA driver found (cudaDriverGetVersion gives 0: libcuda.so.1 "
        "is missing or cannot be loaded); install one: this build needs %s",
        need);
  else if (drv < rt)
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "the NVIDIA driver is too old: it supports CUDA %d.%d, this build "
        "needs %s; update the driver", drv / 1000, drv % 1000 / 10, need);
  else if (r == cudaErrorNoDevice)
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "the NVIDIA driver (CUDA %d.%d) finds no CUDA device; check that "
        "the GPU is visible to this process (nvidia-smi, "
        "CUDA_VISIBLE_DEVICES, a container's GPU options)", drv / 1000,
        drv % 1000 / 10);
  else
    co_cuda_result (r, "cudaGetDeviceCount (&n)", __FILE__,
        G_STRINGIFY (__LINE__), G_STRFUNC, G_LOG_LEVEL_DEBUG, error);
  g_free (need);
}

/* A device this build cannot run: NULL, or what to say (the device, its
 * compute capability, the architectures built and what to do).  A test
 * build may simulate the device's compute capability (co-fault.h): it is
 * then one this build has no code for. */
static gchar *
co_cuda_incompatible (gint device)
{
  struct cudaDeviceProp prop;
  cudaError_t err = cudaErrorNoKernelImageForDevice;
  CoFaultCudaSim sim;

  co_fault_cuda_sim (&sim);
  memset (&prop, 0, sizeof (prop));
  if (sim.cc >= 0) {
    g_strlcpy (prop.name, "simulated", sizeof (prop.name));
    prop.major = sim.cc / 10;
    prop.minor = sim.cc % 10;
  } else if ((err = (cudaError_t) co_kernels_cuda_check_device (device)) ==
      cudaSuccess) {
    return NULL;
  } else if (cudaGetDeviceProperties (&prop, device) != cudaSuccess) {
    return g_strdup_printf ("CUDA device %d cannot run the kernels: %s",
        device, cudaGetErrorString (err));
  }
  if (prop.major * 10 + prop.minor < CO_CUDA_MIN_CC)
    return g_strdup_printf ("CUDA device %d (%s, compute capability %d.%d) "
        "is too old for cudaoverlap, which needs compute capability %d.%d "
        "or newer (this build has code for %s)", device, prop.name,
        prop.major, prop.minor, CO_CUDA_MIN_CC / 10, CO_CUDA_MIN_CC % 10,
        co_kernels_cuda_archs ());
  return g_strdup_printf ("CUDA device %d (%s, compute capability %d.%d) "
      "cannot run this build's kernels (%s), built for %s. Rebuild with "
      "meson setup -Dcuda-architectures=all-major (or %d%d)", device,
      prop.name, prop.major, prop.minor, cudaGetErrorString (err),
      co_kernels_cuda_archs (), prop.major, prop.minor);
}

/* Whether @device_id (-1: the first device) exists and can run this
 * build's kernels: FALSE with @error if not, which says why in words a
 * user can act on (CO_ENGINE_ERROR_NO_DEVICE; CO_ENGINE_ERROR_CUDA when
 * the runtime cannot count the devices for another reason). */
static gboolean
co_cuda_usable (gint device_id, GError ** error)
{
  int n = 0;
  cudaError_t r;
  gchar *msg;

  if (co_fault_hit ("cudaGetDeviceCount"))
    return co_cuda_injected ("cudaGetDeviceCount (&n)", __FILE__,
        G_STRINGIFY (__LINE__), G_STRFUNC, G_LOG_LEVEL_DEBUG, error);
  r = co_cuda_device_count (&n);
  if (r != cudaSuccess || n <= 0) {
    co_cuda_no_device (r != cudaSuccess ? r : cudaErrorNoDevice, error);
    return FALSE;
  }
  if (device_id >= n) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "there is no CUDA device %d (cuda-device-id): this machine has %d "
        "(ids 0 to %d; -1 takes the first)", device_id, n, n - 1);
    return FALSE;
  }
  if (!(msg = co_cuda_incompatible (MAX (device_id, 0))))
    return TRUE;
  g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE, msg);
  g_free (msg);
  return FALSE;
}

static gsize
co_align_up (gsize v)
{
  return (v + 255) & ~(gsize) 255;
}

/* cudaMalloc of @size bytes for @what; the error (CO_ENGINE_ERROR_NO_MEMORY)
 * names both. */
static gboolean
co_cuda_malloc (guint8 ** p, gsize size, const gchar * what, GError ** error)
{
  GError *err = NULL;

  CO_CUDA_CHECK_GOTO (cudaMalloc ((void **) p, size), &err, fail);
  return TRUE;

fail:
  *p = NULL;
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
      "could not allocate %" G_GSIZE_FORMAT " bytes of device memory for "
      "%s: %s", size, what, err->message);
  g_error_free (err);
  return FALSE;
}

/* The streams and every event set. */
static gboolean
co_cuda_open_streams (CoEngine * e, CoCuda * c, GError ** error)
{
  guint i, n_events;

  for (i = 0; i < e->cfg.streams; i++) {
    gchar name[64];

    CO_CUDA_CHECK_GOTO (cudaStreamCreateWithFlags (&c->streams[i],
            cudaStreamNonBlocking), error, fail);
    g_snprintf (name, sizeof (name), "%s stream %u",
        e->cfg.name ? e->cfg.name : "cudaoverlap", i);
    nvtxNameCudaStreamA (c->streams[i], name);
  }

  c->n_evsets = e->n_slots + 1;
  c->evset = co_engine_try_alloc0 (e->n_slots, sizeof (guint),
      "event set indices", error);
  n_events = c->n_evsets * e->cfg.chunks * CO_EV_PER_CHUNK;
  c->events = c->evset ? co_engine_try_alloc0 (n_events,
      sizeof (cudaEvent_t), "CUDA event handles", error) : NULL;
  if (!c->events)
    return FALSE;
  for (i = 0; i < n_events; i++) {
    /* the done event: untimed (see the top of this file) */
    guint flags = i % CO_EV_PER_CHUNK != CO_EV_DONE ? cudaEventDefault :
        e->cfg.wait == CO_WAIT_BLOCKING ?
        cudaEventBlockingSync | cudaEventDisableTiming : cudaEventDisableTiming;
    CO_CUDA_CHECK_GOTO (cudaEventCreateWithFlags (&c->events[i], flags), error,
        fail);
  }
  return TRUE;

fail:
  return FALSE;
}

/* Every slot's input and output area and the constant area. */
static gboolean
co_cuda_open_memory (CoEngine * e, CoCuda * c, GError ** error)
{
  gsize in_sz = co_align_up (e->cfg.dev_in_size);
  gsize out_sz = co_align_up (e->cfg.dev_out_size);
  guint i;

  if (in_sz + out_sz > 0) {
    if (!co_cuda_malloc (&c->dev_mem, (in_sz + out_sz) * e->n_slots,
            "the slots' input and output areas", error))
      return FALSE;
    for (i = 0; i < e->n_slots; i++) {
      e->frames[i].dev_in = c->dev_mem + i * (in_sz + out_sz);
      e->frames[i].dev_out = e->frames[i].dev_in + in_sz;
    }
    if (e->cfg.custom) {
      /* a user's kernel: the guard rows around its bands read as zeros
       * (co-video.h); done before any frame's copy on another stream */
      CO_CUDA_CHECK_GOTO (cudaMemsetAsync (c->dev_mem, 0,
              (in_sz + out_sz) * e->n_slots, c->streams[0]), error, fail);
      CO_CUDA_CHECK_GOTO (cudaStreamSynchronize (c->streams[0]), error, fail);
    }
  }
  if (e->cfg.const_size > 0) {
    if (!co_cuda_malloc (&c->dev_const, e->cfg.const_size,
            "the constant area", error))
      return FALSE;
    CO_CUDA_CHECK_GOTO (cudaMemsetAsync (c->dev_const, 0, e->cfg.const_size,
            c->streams[0]), error, fail);
  }
  return TRUE;

fail:
  return FALSE;
}

/* The rest of open, in the engine's context. */
static gboolean
co_cuda_open_in_context (CoEngine * e, CoCuda * c, GError ** error)
{
#if CUDART_VERSION >= 13000
  {
    int drv = 0;

    CO_CUDA_CHECK_GOTO (cudaDriverGetVersion (&drv), error, fail);
    c->copy_batch = drv >= 13000 && !e->cfg.no_copy_batch;
  }
#endif
  if (!co_cuda_open_streams (e, c, error) || !co_cuda_open_memory (e, c, error))
    goto fail;

  /* Every kernel is loaded now, not at its first launch in the middle of
   * the stream (with lazy module loading, the CUDA default, that launch may
   * wait for all work on the device). */
  CO_CUDA_CHECK_GOTO (co_kernels_cuda_preload (), error, fail);
  /* the user's kernel, loaded and made resident in this context now */
  if (e->cfg.custom && !(c->custom = co_custom_cuda_load (e->cfg.custom,
              c->device, error)))
    goto fail;
  CO_CUDA_CHECK_GOTO (cudaEventCreate (&c->anchor_event), error, fail);
  CO_CUDA_CHECK_GOTO (cudaEventRecord (c->anchor_event, c->streams[0]), error,
      fail);
  CO_CUDA_CHECK_GOTO (cudaEventSynchronize (c->anchor_event), error, fail);
  c->anchor_event_ns = c->anchor_ns = co_engine_now ();
  c->anchor = c->anchor_event;
  return TRUE;

fail:
  return FALSE;
}

static gboolean
co_cuda_open (CoEngine * e, GError ** error)
{
  CoCuda *c;
  GError *err = NULL;
  gboolean ok;

  if (!co_cuda_usable (e->cfg.device_id, &err)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "no usable CUDA device: %s", err->message);
    g_error_free (err);
    return FALSE;
  }

  c = g_new0 (CoCuda, 1);
  e->backend_state = c;
  c->device = MAX (e->cfg.device_id, 0);
  c->device_context = e->cfg.device_context;
  if (c->device_context && !(c->drv = co_cu_driver (error))) {
    c->device_context = NULL;
    return FALSE;
  }
  if (!co_cuda_enter (c, error))
    return FALSE;
  ok = co_cuda_open_in_context (e, c, error);
  co_cuda_leave (c);
  return ok;
}

static void
co_cuda_close (CoEngine * e)
{
  CoCuda *c = e->backend_state;
  guint i, n_events;
  gboolean entered;

  if (!c)
    return;
  entered = co_cuda_enter (c, NULL);
  /* The releases below are not checked: they have no caller to fail and
   * nothing to undo, and a device fault that makes them fail was reported
   * by the call that met it first.  Nor are they fault points: a test never
   * skips the wait and frees memory the device may still use.
   * Nothing may still run on memory we free: wait for our own streams. */
  for (i = 0; i < e->cfg.streams; i++)
    if (c->streams[i])
      cudaStreamSynchronize (c->streams[i]);
  n_events = c->n_evsets * e->cfg.chunks * CO_EV_PER_CHUNK;
  for (i = 0; c->events && i < n_events; i++)
    if (c->events[i])
      cudaEventDestroy (c->events[i]);
  g_free (c->events);
  g_free (c->evset);
  if (c->anchor_event)
    cudaEventDestroy (c->anchor_event);
  if (c->dev_mem)
    cudaFree (c->dev_mem);
  if (c->dev_const)
    cudaFree (c->dev_const);
  co_custom_cuda_unload (c->custom);
  for (i = 0; i < e->cfg.streams; i++)
    if (c->streams[i])
      cudaStreamDestroy (c->streams[i]);
  for (i = 0; c->dev_mem && i < e->n_slots; i++)
    e->frames[i].dev_in = e->frames[i].dev_out = NULL;
  if (entered)
    co_cuda_leave (c);
  g_free (c);
  e->backend_state = NULL;
}

static inline cudaEvent_t *
co_cuda_chunk_events (CoEngine * e, CoFrame * f, guint chunk)
{
  CoCuda *c = e->backend_state;

  return &c->events[(c->evset[f->slot] * e->cfg.chunks + chunk) *
      CO_EV_PER_CHUNK];
}

/* The event that completes after all of the frame's work (see above). */
static inline cudaEvent_t
co_cuda_done_event (CoEngine * e, CoFrame * f)
{
  return co_cuda_chunk_events (e, f, f->n_chunks - 1)[CO_EV_DONE];
}

/* The copies of one chunk in one direction.  CO_COPY_BATCH_MIN or more
 * unpitched ones (the images of a batch, the planes of a frame) go in one
 * cudaMemcpyBatchAsync, which costs less host CPU per copy than a
 * cudaMemcpyAsync each once there are several (tools/bench/cudaoverlap-callcost,
 * docs/PERFORMANCE.md); a batch of one costs more than one plain call, so
 * fewer copies, and pitched ones, go one call each.  The copies of a batch are independent
 * (distinct bands, distinct images), so their order within it is free; the
 * source is read in stream order, after the events recorded before it. */
#define CO_COPY_BATCH_MIN 4

/* One copy, one call. */
static gboolean
co_cuda_copy (const CoCopy * cp, enum cudaMemcpyKind kind, cudaStream_t s,
    GError ** error)
{
  if (co_copy_is_plain (cp))
    CO_CUDA_CHECK_GOTO (cudaMemcpyAsync (cp->dst, cp->src,
            cp->width * cp->rows, kind, s), error, fail);
  else
    CO_CUDA_CHECK_GOTO (cudaMemcpy2DAsync (cp->dst, cp->dpitch, cp->src,
            cp->spitch, cp->width, cp->rows, kind, s), error, fail);
  return TRUE;

fail:
  return FALSE;
}

/* The offset where @cp's host source crosses from one registration of the
 * registry into the next (co-hostreg.h), 0 when it does not. */
static gsize
co_cuda_host_boundary (const CoCopy * cp)
{
  return co_hostreg_boundary (co_hostreg_get_default (), cp->src,
      co_copy_extent (cp));
}

/* A host-to-device copy, split where its source crosses from one
 * registration into the next (@off: that offset, 0 when it does not): the
 * driver refuses a copy that spans two (cudaErrorInvalidValue).  A memory
 * whose pages it shares with a neighbour's registration lies in several
 * (co-hostreg.h). */
static gboolean
co_cuda_copy_h2d (const CoCopy * cp, gsize off, cudaStream_t s, guint depth,
    GError ** error)
{
  CoCopy parts[4];
  guint n, k;

  /* one level per boundary (the pieces before it have none): a memory
   * over more than 64 registrations goes as it is, and the driver's
   * refusal fails the frame */
  if (off == 0 || depth >= 64 || (n = co_copy_split (cp, off, parts)) == 0)
    return co_cuda_copy (cp, cudaMemcpyHostToDevice, s, error);
  for (k = 0; k < n; k++)
    if (!co_cuda_copy_h2d (&parts[k], co_cuda_host_boundary (&parts[k]), s,
            depth + 1, error))
      return FALSE;
  return TRUE;
}

static gboolean
co_cuda_copies (CoCuda * c, const CoCopy * cps, guint n,
    enum cudaMemcpyKind kind, cudaStream_t s, GError ** error)
{
  gsize off[CO_CHUNK_MAX_COPIES];
  gboolean split = FALSE;
  guint k;

  for (k = 0; kind == cudaMemcpyHostToDevice && k < n; k++)
    split |= (off[k] = co_cuda_host_boundary (&cps[k])) != 0;
  if (split) {
    for (k = 0; k < n; k++)
      if (!co_cuda_copy_h2d (&cps[k], off[k], s, 0, error))
        return FALSE;
    return TRUE;
  }

#if CUDART_VERSION >= 13000
  if (c->copy_batch && n >= CO_COPY_BATCH_MIN) {
    void *dsts[CO_CHUNK_MAX_COPIES];
    const void *srcs[CO_CHUNK_MAX_COPIES];
    size_t sizes[CO_CHUNK_MAX_COPIES], attr_idx = 0;
    struct cudaMemcpyAttributes attr;

    for (k = 0; k < n; k++) {
      if (!co_copy_is_plain (&cps[k]))
        break;
      dsts[k] = cps[k].dst;
      srcs[k] = cps[k].src;
      sizes[k] = cps[k].width * cps[k].rows;
    }
    if (k == n) {
      memset (&attr, 0, sizeof (attr));
      attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
      CO_CUDA_CHECK_GOTO (cudaMemcpyBatchAsync (dsts, srcs, sizes, n, &attr,
              &attr_idx, 1, s), error, fail);
      return TRUE;
    }
  }
#endif
  for (k = 0; k < n; k++)
    if (!co_cuda_copy (&cps[k], kind, s, error))
      return FALSE;
  return TRUE;

#if CUDART_VERSION >= 13000
fail:
  return FALSE;
#endif
}

/* A chunk's copies within device memory (CoChunk.d2d), in order. */
static gboolean
co_cuda_device_copies (CoCuda * c, const CoChunk * ch, cudaStream_t s,
    GError ** error)
{
  guint k;

  for (k = 0; k < ch->n_d2d; k++) {
    const CoCopy *cp = &ch->d2d[k];
    gsize bytes = cp->width * cp->rows;

    if (bytes == 0)
      continue;
    if (!cp->src)
      CO_CUDA_CHECK_GOTO (cudaMemsetAsync (cp->dst, 0, bytes, s), error, fail);
    else
      CO_CUDA_CHECK_GOTO (cudaMemcpyAsync (cp->dst, cp->src, bytes,
              cudaMemcpyDeviceToDevice, s), error, fail);
  }
  return TRUE;

fail:
  return FALSE;
}

/* Chunk @i's kernel (fault points: the launcher's name).  The launchers
 * return a cudaError_t as an int (kernels/co-kernels.h). */
static gboolean
co_cuda_launch (CoCuda * c, CoFrame * f, guint i, cudaStream_t s,
    GError ** error)
{
  CoChunk *ch = &f->chunks[i];

  switch (ch->kind) {
    case CO_KERNEL_NONE:
      return TRUE;
    case CO_KERNEL_VIDEO:
      CO_CUDA_CHECK_GOTO (co_video_launch_cuda (&ch->params.video, s), error,
          fail);
      return TRUE;
    case CO_KERNEL_AUDIO:
      CO_CUDA_CHECK_GOTO (co_audio_launch_cuda (&ch->params.audio, s), error,
          fail);
      return TRUE;
    default:
      break;
  }
  if (c->custom)
    return co_custom_cuda_launch (c->custom, ch, i, f->n_chunks, s, error);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
      "a custom chunk, but no custom kernel is loaded");
  return FALSE;

fail:
  return FALSE;
}

/* @what, and which custom kernel ran (a fault of it makes the next call
 * fail, whichever it is). */
static gchar *
co_cuda_custom_note (CoCuda * c, const gchar * what)
{
  gchar *which = co_custom_cuda_describe (c->custom);
  gchar *msg = g_strdup_printf ("%s; %s", what, which);

  g_free (which);
  return msg;
}

/* Records timestamp @k of a chunk unless another event stands for it
 * (co_chunk_ts_sources). */
static gboolean
co_cuda_record_ts (cudaEvent_t * ev, const guint * src, guint k,
    cudaStream_t s, GError ** error)
{
  if (src[k] != k)
    return TRUE;
  CO_CUDA_CHECK_GOTO (cudaEventRecord (ev[k], s), error, fail);
  return TRUE;

fail:
  return FALSE;
}

/* The event that marks chunk @i's timestamp @k. */
static cudaEvent_t
co_cuda_ts_event (CoEngine * e, CoFrame * f, guint i, guint k)
{
  guint src[CO_TS_COUNT];

  co_chunk_ts_sources (f, i, src);
  return co_cuda_chunk_events (e, f, i)[src[k]];
}

/* What queueing chunk @i needs: its stream, its events and which of them
 * it records (co_chunk_ts_sources). */
typedef struct
{
  CoChunk *ch;
  cudaStream_t s;
  cudaEvent_t *ev;
  guint src[CO_TS_COUNT];
} CoChunkQueue;

static void
co_cuda_chunk_queue (CoEngine * e, CoFrame * f, guint i, CoChunkQueue * q)
{
  CoCuda *c = e->backend_state;

  q->ch = &f->chunks[i];
  q->s = c->streams[q->ch->stream];
  q->ev = co_cuda_chunk_events (e, f, i);
  co_chunk_ts_sources (f, i, q->src);
}

/* Chunk @i's first part: BEGIN, its copies in (chunk 0: after the
 * previous ordered frame's, with the frame's pre copies), H2D_DONE. */
static gboolean
co_cuda_queue_in (CoEngine * e, CoFrame * f, guint i, const CoChunkQueue * q,
    GError ** error)
{
  CoCuda *c = e->backend_state;
  CoChunk *ch = q->ch;
  cudaEvent_t *ev = q->ev;
  cudaStream_t s = q->s;

  /* after the previous ordered frame's chunk-0 copies (the event is
   * taken as last recorded: a later frame of that event set records it
   * again only after this call); before BEGIN, so that the wait is not
   * timed as copies */
  if (i == 0 && f->ordered && c->ordered_done)
    CO_CUDA_CHECK_GOTO (cudaStreamWaitEvent (s, c->ordered_done, 0), error,
        fail);
  CO_CUDA_CHECK_GOTO (cudaEventRecord (ev[CO_TS_BEGIN], s), error, fail);
  if ((i == 0 && f->n_pre > 0 && !co_cuda_copies (c, f->pre, f->n_pre,
              cudaMemcpyHostToDevice, s, error)) ||
      !co_cuda_copies (c, ch->h2d, ch->n_h2d, cudaMemcpyHostToDevice, s,
          error) || !co_cuda_device_copies (c, ch, s, error))
    goto fail;
  /* the frame's tables (CoFrame.pre) are in place before this kernel */
  if (i > 0 && f->n_pre > 0 && ch->stream != f->chunks[0].stream)
    CO_CUDA_CHECK_GOTO (cudaStreamWaitEvent (s, co_cuda_ts_event (e, f, 0,
                CO_TS_H2D_DONE), 0), error, fail);
  if (!co_cuda_record_ts (ev, q->src, CO_TS_H2D_DONE, s, error))
    goto fail;
  if (i == 0 && f->ordered)
    c->ordered_done = ev[q->src[CO_TS_H2D_DONE]];
  return TRUE;

fail:
  return FALSE;
}

/* Chunk @i's second part: its kernel, KERNEL_DONE, its copies out, END. */
static gboolean
co_cuda_queue_out (CoCuda * c, CoFrame * f, guint i, const CoChunkQueue * q,
    GError ** error)
{
  return co_cuda_launch (c, f, i, q->s, error) &&
      co_cuda_record_ts (q->ev, q->src, CO_TS_KERNEL_DONE, q->s, error) &&
      co_cuda_copies (c, q->ch->d2h, q->ch->n_d2h, cudaMemcpyDeviceToHost,
      q->s, error) && co_cuda_record_ts (q->ev, q->src, CO_TS_END, q->s, error);
}

/* The frame's copies, kernels and events, in the engine's context.  When
 * each chunk has a stream of its own, every chunk's copies in are queued
 * before any kernel, so that a chunk's copy in does not wait behind the
 * calls of every chunk before it (a traced live 4K RGBA frame in 8 chunks
 * started its first copy in 61 µs after chain was entered, against 164 µs
 * with each chunk queued whole: docs/PERFORMANCE.md, *A frame's copies in
 * queued first*).  Chunks that share a stream are queued whole: a later chunk's
 * copies in would queue ahead of an earlier chunk's kernel.  The last
 * chunk's stream then waits for every other stream's END and records the
 * frame's done event. */
static gboolean
co_cuda_submit_chunks (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCuda *c = e->backend_state;
  gboolean in_first = f->n_chunks > 1 && f->n_chunks <= e->cfg.streams;
  CoChunkQueue q[CO_MAX_CHUNKS];
  guint i;

  for (i = 0; i < f->n_chunks; i++) {
    co_cuda_chunk_queue (e, f, i, &q[i]);
    if (!co_cuda_queue_in (e, f, i, &q[i], error) ||
        (!in_first && !co_cuda_queue_out (c, f, i, &q[i], error)))
      goto fail;
  }
  for (i = 0; in_first && i < f->n_chunks; i++)
    if (!co_cuda_queue_out (c, f, i, &q[i], error))
      goto fail;
  {
    cudaStream_t s = q[f->n_chunks - 1].s;

    for (i = 0; i + 1 < f->n_chunks; i++)
      if (q[i].s != s)
        CO_CUDA_CHECK_GOTO (cudaStreamWaitEvent (s,
                q[i].ev[q[i].src[CO_TS_END]], 0), error, fail);
    CO_CUDA_CHECK_GOTO (cudaEventRecord (co_cuda_done_event (e, f), s), error,
        fail);
  }
  return TRUE;

fail:
  /* The engine queues the frame with the error; its wait then waits for
   * whatever was queued (events of chunks never recorded would make the
   * frame's own wait fail). */
  return FALSE;
}

static gboolean
co_cuda_submit (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCuda *c = e->backend_state;
  gboolean ok;

  g_return_val_if_fail (f->n_chunks <= e->cfg.chunks, FALSE);
  /* Sets in submission order, not by seqnum: a frame acquired and then
   * cancelled (a flush) takes a seqnum but no set, and by seqnum a frame
   * in flight could take the set of the anchor (the last waited frame's
   * BEGIN) before the frame after the anchor was read:
   * cudaEventElapsedTime would fail with cudaErrorNotReady (caps changes
   * racing seeks with max-in-flight=2 do that).  In submission
   * order the anchor's set comes round again only after n_slots + 1
   * submissions, when the frame after it has been waited for. */
  c->evset[f->slot] = c->next_evset;
  c->next_evset = (c->next_evset + 1) % c->n_evsets;
  nvtxRangePushA ("co submit");
  ok = co_cuda_enter (c, error);
  if (ok) {
    ok = co_cuda_submit_chunks (e, f, error);
    co_cuda_leave (c);
  }
  if (!ok && c->custom && error && *error) {
    gchar *msg = co_cuda_custom_note (c, (*error)->message);

    g_free ((*error)->message);
    (*error)->message = msg;
  }
  nvtxRangePop ();
  return ok;
}

/* cudaEventQuery until @ev is done: its first answer that is not
 * cudaErrorNotReady. */
static cudaError_t
co_cuda_event_spin (cudaEvent_t ev)
{
  cudaError_t err;

  while ((err = cudaEventQuery (ev)) == cudaErrorNotReady)
    g_thread_yield ();
  return err;
}

/* Waits on the frame's done event: one event for the whole frame (one
 * wake-up when blocking). */
static gboolean
co_cuda_wait_done (CoEngine * e, CoFrame * f, GError ** error)
{
  cudaEvent_t done = co_cuda_done_event (e, f);

  /* blocking: no query first, it costs as much as the synchronize when
   * the frame is done */
  if (e->cfg.wait == CO_WAIT_SPIN)
    CO_CUDA_CHECK_GOTO (co_cuda_event_spin (done), error, fail);
  else
    CO_CUDA_CHECK_GOTO (cudaEventSynchronize (done), error, fail);
  return TRUE;

fail:
  return FALSE;
}

/* Whether chunk @i copies from host memory (chunk 0 also the frame's
 * pre copies). */
static inline gboolean
co_cuda_reads_host (const CoFrame * f, guint i)
{
  return f->chunks[i].n_h2d > 0 || (i == 0 && f->n_pre > 0);
}

/* Whether every chunk's reads of host memory have completed: its
 * H2D_DONE event, recorded after its h2d copies (chunk 0's: after the
 * frame's pre copies too); chunks that read no host memory are skipped.
 * With @poll, polled: a timing event is no blocking-sync one, so a
 * synchronize would spin as well.  Queries only from the consumer's
 * thread, never from a stream callback. */
static gboolean
co_cuda_host_read (CoEngine * e, CoFrame * f, gboolean poll)
{
  CoCuda *c = e->backend_state;
  gboolean read = TRUE;
  cudaError_t err;
  guint i;

  /* a frame in CUDA memory: no context push, nothing to ask */
  for (i = 0; i < f->n_chunks; i++)
    if (co_cuda_reads_host (f, i))
      break;
  if (i == f->n_chunks)
    return TRUE;
  if (!co_cuda_enter (c, NULL))
    return FALSE;
  for (; read && i < f->n_chunks; i++) {
    cudaEvent_t ev;

    if (!co_cuda_reads_host (f, i))
      continue;
    ev = co_cuda_ts_event (e, f, i, CO_TS_H2D_DONE);
    err = poll ? co_cuda_event_spin (ev) : cudaEventQuery (ev);
    /* cudaErrorNotReady, or a failure the frame's wait reports */
    read = err == cudaSuccess;
  }
  co_cuda_leave (c);
  return read;
}

/* The chunks' timestamps, from the anchor. */
static gboolean
co_cuda_read_times (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCuda *c = e->backend_state;
  guint i, k;

  for (i = 0; i < f->n_chunks; i++) {
    cudaEvent_t *ev = co_cuda_chunk_events (e, f, i);
    guint src[CO_TS_COUNT];

    co_chunk_ts_sources (f, i, src);
    for (k = 0; k < CO_TS_COUNT; k++) {
      float ms = 0;

      if (src[k] != k) {
        /* not recorded: the same point as an earlier event */
        f->chunks[i].ts[k] = f->chunks[i].ts[src[k]];
        continue;
      }
      CO_CUDA_CHECK_GOTO (cudaEventElapsedTime (&ms, c->anchor, ev[k]), error,
          fail);
      f->chunks[i].ts[k] = (guint64) ((gint64) c->anchor_ns +
          (gint64) ((double) ms * 1e6));
    }
  }
  /* Re-anchor on this frame's first event; its event set is not reused
   * before the next frame has completed (n_evsets = n_slots + 1). */
  c->anchor = co_cuda_chunk_events (e, f, 0)[CO_TS_BEGIN];
  c->anchor_ns = f->chunks[0].ts[CO_TS_BEGIN];
  return TRUE;

fail:
  return FALSE;
}

/* The frame's error string (co-engine.h: the per-frame channel) is set
 * from the first failure, the submission's, this wait's or the reading of
 * its times (@times: read them after the wait). */
static void
co_cuda_wait_full (CoEngine * e, CoFrame * f, gboolean times)
{
  CoCuda *c = e->backend_state;
  GError *err = NULL;
  gboolean entered;
  guint i;

  nvtxRangePushA ("co wait");
  entered = co_cuda_enter (c, &err);
  if (entered && !f->error && co_cuda_wait_done (e, f, &err) && times)
    co_cuda_read_times (e, f, &err);
  if (err && !f->error)
    f->error = g_strdup (err->message);
  g_clear_error (&err);
  if (f->error && c->custom) {
    /* a fault of the user's kernel shows here: name it */
    gchar *msg = co_cuda_custom_note (c, f->error);

    g_free (f->error);
    f->error = msg;
  }
  if (f->error) {
    /* Submission failed part-way, or the wait did: wait for whatever was
     * queued so the slot's memory is idle before it is reused, and go back
     * to the anchor of open (the current one's event set may be reused
     * before a frame completes again).  Unchecked: the frame has failed
     * already, and the wait is what keeps the memory safe. */
    for (i = 0; i < e->cfg.streams; i++)
      cudaStreamSynchronize (c->streams[i]);
    c->anchor = c->anchor_event;
    c->anchor_ns = c->anchor_event_ns;
  }
  if (entered)
    co_cuda_leave (c);
  nvtxRangePop ();
}

static void
co_cuda_wait (CoEngine * e, CoFrame * f)
{
  co_cuda_wait_full (e, f, TRUE);
}

static void
co_cuda_wait_only (CoEngine * e, CoFrame * f)
{
  co_cuda_wait_full (e, f, FALSE);
}

/* The times of a frame waited for by co_cuda_wait_only, later (after the
 * frame was pushed).  On failure the anchor goes back to the one of open,
 * as after a failed wait. */
static void
co_cuda_read_times_later (CoEngine * e, CoFrame * f)
{
  CoCuda *c = e->backend_state;
  GError *err = NULL;

  if (co_cuda_enter (c, &err)) {
    co_cuda_read_times (e, f, &err);
    co_cuda_leave (c);
  }
  if (err) {
    if (!f->error)
      f->error = g_strdup (err->message);
    c->anchor = c->anchor_event;
    c->anchor_ns = c->anchor_event_ns;
  }
  g_clear_error (&err);
}

static gboolean
co_cuda_set_const (CoEngine * e, gconstpointer data, gsize size,
    GError ** error)
{
  CoCuda *c = e->backend_state;
  gboolean ok = FALSE;

  if (!co_cuda_enter (c, error))
    return FALSE;
  CO_CUDA_CHECK_GOTO (cudaMemcpyAsync (c->dev_const, data, size,
          cudaMemcpyHostToDevice, c->streams[0]), error, fail);
  CO_CUDA_CHECK_GOTO (cudaStreamSynchronize (c->streams[0]), error, fail);
  ok = TRUE;
fail:
  co_cuda_leave (c);
  return ok;
}

static gpointer
co_cuda_const_ptr (CoEngine * e)
{
  CoCuda *c = e->backend_state;

  return c->dev_const;
}

static void
co_cuda_probe (gint device_id, CoDeviceInfo * info)
{
  struct cudaDeviceProp prop;
  int device = MAX (device_id, 0);

  info->device_id = device;
  if (cudaGetDeviceProperties (&prop, device) == cudaSuccess)
    g_strlcpy (info->name, prop.name, sizeof (info->name));
  cudaDeviceGetPCIBusId (info->pci_bus_id, sizeof (info->pci_bus_id), device);
  cudaDeviceGetAttribute (&info->cc_major,
      cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute (&info->cc_minor,
      cudaDevAttrComputeCapabilityMinor, device);
  cudaDeviceGetAttribute (&info->async_engine_count,
      cudaDevAttrAsyncEngineCount, device);
  cudaDeviceGetAttribute (&info->concurrent_kernels,
      cudaDevAttrConcurrentKernels, device);
  cudaDriverGetVersion (&info->driver_version);
  cudaRuntimeGetVersion (&info->runtime_version);
}

static void
co_cuda_device_info (CoEngine * e, CoDeviceInfo * info)
{
  CoCuda *c = e->backend_state;

  co_cuda_probe (c->device, info);
  if (c->custom)
    co_custom_cuda_compile_info (c->custom, &info->kernel_compile_ms,
        &info->kernel_cache);
}

const CoBackendOps co_cuda_backend = {
  .name = "cuda",
  .kind = CO_BACKEND_CUDA,
  .usable = co_cuda_usable,
  .open = co_cuda_open,
  .close = co_cuda_close,
  .submit = co_cuda_submit,
  .wait = co_cuda_wait,
  .wait_done = co_cuda_wait_only,
  .read_times = co_cuda_read_times_later,
  .host_read = co_cuda_host_read,
  .set_const = co_cuda_set_const,
  .const_ptr = co_cuda_const_ptr,
  .device_info = co_cuda_device_info,
  .probe = co_cuda_probe,
  .device_context = co_cuda_device_context,
};
