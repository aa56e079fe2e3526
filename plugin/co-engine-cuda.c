/* cudaoverlap: the overlap engine's CUDA backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Streams are created non-blocking, so nothing here ever waits on the
 * legacy default stream and nothing is queued on it.  All device memory
 * (every slot's input and output area and the constant area) is allocated
 * once, when the engine is made (at caps time); the per-frame path only
 * records events, queues copies and launches kernels, and the consumer
 * thread waits on per-chunk events.  No device-wide synchronisation.
 *
 * Timing: each chunk records four timing events in its stream (see CoChunk).
 * Times are mapped onto CLOCK_MONOTONIC through an anchor: an event whose
 * host time is known.  The first anchor is recorded and waited for when the
 * engine opens; afterwards the anchor is the first event of the most recently
 * completed frame, so every elapsed-time read spans at most a few frames and
 * keeps the float milliseconds of cudaEventElapsedTime precise.
 *
 * Completion: after the frame's last chunk, its stream waits for every
 * other chunk's end event and records the frame's done event, the only
 * event the consumer waits on: it completes after all of the frame's work,
 * whichever chunk ends last (with several streams, chunks' downloads run on
 * two copy engines and may end out of order).  It is never timed (a timing
 * event costs the host ~1 us more to record).  With CO_WAIT_BLOCKING it is
 * a blocking-sync event and the consumer sleeps on it: one wake-up per
 * frame, and one interrupt for the driver's event thread, whose CPU grows
 * with the number of blocking-sync events recorded (so the timing events
 * are plain ones).  With CO_WAIT_SPIN the consumer polls it: no wake-up
 * latency, a core busy while frames are in flight.  The stream waits also
 * hold later work of that stream until this frame's other chunks (queued
 * earlier, on other streams) have ended; the H200 sweeps show no throughput
 * change from it (docs/PERFORMANCE.md).
 */
#include <string.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "co-engine-private.h"

/* Per chunk: the CO_TS_COUNT timing events, then (used for the frame's
 * last chunk only) the frame's done event. */
#define CO_EV_DONE CO_TS_COUNT
#define CO_EV_PER_CHUNK (CO_TS_COUNT + 1)

struct _CoCudaState
{
  gint device;
  cudaStream_t streams[CO_MAX_STREAMS];
  cudaEvent_t *events;          /* n_evsets * chunks * CO_EV_PER_CHUNK */
  guint8 *dev_mem;
  guint8 *dev_const;
  cudaEvent_t anchor_event;     /* recorded once at open */
  cudaEvent_t anchor;           /* current anchor (an event of a completed frame) */
  guint64 anchor_ns;
  gboolean copy_batch;          /* cudaMemcpyBatchAsync usable and not turned off */
};

#define CO_CUDA_FAIL(err, call) \
  g_strdup_printf ("%s failed: %s (%s)", call, cudaGetErrorString (err), \
      cudaGetErrorName (err))

static gboolean
co_cuda_check (cudaError_t err, const gchar * call, GError ** error)
{
  if (err == cudaSuccess)
    return TRUE;
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "%s failed: %s (%s)", call, cudaGetErrorString (err),
      cudaGetErrorName (err));
  return FALSE;
}

#define CK(call) \
  if (!co_cuda_check ((call), #call, error)) goto fail

gboolean
co_cuda_available (gint device_id, gchar ** why)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);

  if (err != cudaSuccess) {
    *why = g_strdup_printf ("cudaGetDeviceCount failed: %s",
        cudaGetErrorString (err));
    return FALSE;
  }
  if (n == 0) {
    *why = g_strdup ("no CUDA device found");
    return FALSE;
  }
  if (device_id >= n) {
    *why = g_strdup_printf ("CUDA device %d does not exist (there are %d)",
        device_id, n);
    return FALSE;
  }
  return TRUE;
}

static gsize
co_align_up (gsize v)
{
  return (v + 255) & ~(gsize) 255;
}

gboolean
co_cuda_open (CoEngine * e, GError ** error)
{
  CoCudaState *c;
  gchar *why = NULL;
  guint i, n_events;
  gsize in_sz, out_sz;

  if (!co_cuda_available (e->cfg.device_id, &why)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "no usable CUDA device: %s", why);
    g_free (why);
    return FALSE;
  }

  c = e->cuda = g_new0 (CoCudaState, 1);
  c->device = MAX (e->cfg.device_id, 0);
  CK (cudaSetDevice (c->device));
#if CUDART_VERSION >= 13000
  {
    int drv = 0;

    /* CO_CUDA_NO_COPY_BATCH: one call per copy (for A/B measurements) */
    CK (cudaDriverGetVersion (&drv));
    c->copy_batch = drv >= 13000 && !g_getenv ("CO_CUDA_NO_COPY_BATCH");
  }
#endif

  for (i = 0; i < e->cfg.streams; i++) {
    gchar name[64];

    CK (cudaStreamCreateWithFlags (&c->streams[i], cudaStreamNonBlocking));
    g_snprintf (name, sizeof (name), "%s stream %u",
        e->cfg.name ? e->cfg.name : "cudaoverlap", i);
    nvtxNameCudaStreamA (c->streams[i], name);
  }

  n_events = e->n_evsets * e->cfg.chunks * CO_EV_PER_CHUNK;
  c->events = g_new0 (cudaEvent_t, n_events);
  for (i = 0; i < n_events; i++) {
    /* the done event: untimed (see the top of this file) */
    guint flags = i % CO_EV_PER_CHUNK != CO_EV_DONE ? cudaEventDefault :
        e->cfg.wait == CO_WAIT_BLOCKING ?
        cudaEventBlockingSync | cudaEventDisableTiming : cudaEventDisableTiming;
    CK (cudaEventCreateWithFlags (&c->events[i], flags));
  }

  in_sz = co_align_up (e->cfg.dev_in_size);
  out_sz = co_align_up (e->cfg.dev_out_size);
  if (in_sz + out_sz > 0) {
    CK (cudaMalloc ((void **) &c->dev_mem, (in_sz + out_sz) * e->n_slots));
    for (i = 0; i < e->n_slots; i++) {
      e->frames[i].dev_in = c->dev_mem + i * (in_sz + out_sz);
      e->frames[i].dev_out = e->frames[i].dev_in + in_sz;
    }
  }
  if (e->cfg.const_size > 0) {
    CK (cudaMalloc ((void **) &c->dev_const, e->cfg.const_size));
    CK (cudaMemsetAsync (c->dev_const, 0, e->cfg.const_size, c->streams[0]));
  }

  /* Every kernel is loaded now, not at its first launch in the middle of
   * the stream (with lazy module loading, the CUDA default, that launch may
   * wait for all work on the device). */
  {
    int kerr = co_kernels_cuda_preload ();

    if (kerr != 0) {
      co_cuda_check ((cudaError_t) kerr, "co_kernels_cuda_preload", error);
      goto fail;
    }
  }
  CK (cudaEventCreate (&c->anchor_event));
  CK (cudaEventRecord (c->anchor_event, c->streams[0]));
  CK (cudaEventSynchronize (c->anchor_event));
  c->anchor_ns = co_engine_now ();
  c->anchor = c->anchor_event;
  return TRUE;

fail:
  return FALSE;
}

void
co_cuda_close (CoEngine * e)
{
  CoCudaState *c = e->cuda;
  guint i, n_events;

  if (!c)
    return;
  cudaSetDevice (c->device);
  /* Nothing may still run on memory we free: wait for our own streams. */
  for (i = 0; i < e->cfg.streams; i++)
    if (c->streams[i])
      cudaStreamSynchronize (c->streams[i]);
  n_events = e->n_evsets * e->cfg.chunks * CO_EV_PER_CHUNK;
  for (i = 0; c->events && i < n_events; i++)
    if (c->events[i])
      cudaEventDestroy (c->events[i]);
  g_free (c->events);
  if (c->anchor_event)
    cudaEventDestroy (c->anchor_event);
  if (c->dev_mem)
    cudaFree (c->dev_mem);
  if (c->dev_const)
    cudaFree (c->dev_const);
  for (i = 0; i < e->cfg.streams; i++)
    if (c->streams[i])
      cudaStreamDestroy (c->streams[i]);
  g_free (c);
  e->cuda = NULL;
}

static inline cudaEvent_t *
co_cuda_chunk_events (CoEngine * e, CoFrame * f, guint chunk)
{
  return &e->cuda->events[(f->evset * e->cfg.chunks + chunk) * CO_EV_PER_CHUNK];
}

/* The event that completes after all of the frame's work (see above). */
static inline cudaEvent_t
co_cuda_done_event (CoEngine * e, CoFrame * f)
{
  return co_cuda_chunk_events (e, f, f->n_chunks - 1)[CO_EV_DONE];
}

/* The copies of one chunk in one direction.  CO_COPY_BATCH_MIN or more
 * unpitched ones (the images of a batch, the planes of a frame) go in one
 * cudaMemcpyBatchAsync, which the H200 measured at ~1-2 us of host CPU per
 * copy against ~2.5 for a cudaMemcpyAsync each (tools/cudaoverlap-callcost,
 * docs/PERFORMANCE.md); a batch of one costs ~4 us, so fewer copies, and
 * pitched ones, go one call each.  The copies of a batch are independent
 * (distinct bands, distinct images), so their order within it is free; the
 * source is read in stream order, after the events recorded before it. */
#define CO_COPY_BATCH_MIN 4

static gboolean
co_cuda_copies (CoCudaState * c, const CoCopy * cps, guint n,
    enum cudaMemcpyKind kind, cudaStream_t s, GError ** error)
{
  guint k;

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
      return co_cuda_check (cudaMemcpyBatchAsync (dsts, srcs, sizes, n, &attr,
              &attr_idx, 1, s), "cudaMemcpyBatchAsync", error);
    }
  }
#endif
  for (k = 0; k < n; k++) {
    const CoCopy *cp = &cps[k];

    if (co_copy_is_plain (cp)) {
      if (!co_cuda_check (cudaMemcpyAsync (cp->dst, cp->src,
                  cp->width * cp->rows, kind, s), "cudaMemcpyAsync", error))
        return FALSE;
    } else if (!co_cuda_check (cudaMemcpy2DAsync (cp->dst, cp->dpitch,
                cp->src, cp->spitch, cp->width, cp->rows, kind, s),
            "cudaMemcpy2DAsync", error)) {
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
co_cuda_submit (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCudaState *c = e->cuda;
  guint i;

  g_return_val_if_fail (f->n_chunks <= e->cfg.chunks, FALSE);
  nvtxRangePushA ("co submit");
  CK (cudaSetDevice (c->device));
  for (i = 0; i < f->n_chunks; i++) {
    CoChunk *ch = &f->chunks[i];
    cudaEvent_t *ev = co_cuda_chunk_events (e, f, i);
    cudaStream_t s;
    int kerr;

    ch->stream = e->next_stream;
    e->next_stream = (e->next_stream + 1) % e->cfg.streams;
    s = c->streams[ch->stream];

    CK (cudaEventRecord (ev[CO_TS_BEGIN], s));
    if (!co_cuda_copies (c, ch->h2d, ch->n_h2d, cudaMemcpyHostToDevice, s,
            error))
      goto fail;
    CK (cudaEventRecord (ev[CO_TS_H2D_DONE], s));
    kerr = ch->kind == CO_KERNEL_VIDEO ?
        co_video_launch_cuda (&ch->params.video, s) :
        co_audio_launch_cuda (&ch->params.audio, s);
    if (kerr != 0) {
      co_cuda_check ((cudaError_t) kerr, ch->kind == CO_KERNEL_VIDEO ?
          "co_video_launch_cuda" : "co_audio_launch_cuda", error);
      goto fail;
    }
    CK (cudaEventRecord (ev[CO_TS_KERNEL_DONE], s));
    if (!co_cuda_copies (c, ch->d2h, ch->n_d2h, cudaMemcpyDeviceToHost, s,
            error))
      goto fail;
    CK (cudaEventRecord (ev[CO_TS_END], s));
  }
  {
    CoChunk *last = &f->chunks[f->n_chunks - 1];
    cudaStream_t s = c->streams[last->stream];

    for (i = 0; i + 1 < f->n_chunks; i++)
      if (f->chunks[i].stream != last->stream)
        CK (cudaStreamWaitEvent (s, co_cuda_chunk_events (e, f,
                    i)[CO_TS_END], 0));
    CK (cudaEventRecord (co_cuda_done_event (e, f), s));
  }
  nvtxRangePop ();
  return TRUE;

fail:
  nvtxRangePop ();
  /* The frame still goes into the queue: its consumer sees the error and
   * nothing of it is pushed.  Events of chunks never recorded would make
   * the wait fail, so the error is stored now. */
  f->error = g_strdup (error && *error ? (*error)->message :
      "submitting to the device failed");
  return FALSE;
}

static gint64
co_cuda_elapsed_ns (cudaEvent_t from, cudaEvent_t to, cudaError_t * err)
{
  float ms = 0;

  *err = cudaEventElapsedTime (&ms, from, to);
  return (gint64) ((double) ms * 1e6);
}

void
co_cuda_wait (CoEngine * e, CoFrame * f)
{
  CoCudaState *c = e->cuda;
  cudaError_t err;
  guint i, k;

  nvtxRangePushA ("co wait");
  err = cudaSetDevice (c->device);
  if (err != cudaSuccess && !f->error)
    f->error = CO_CUDA_FAIL (err, "cudaSetDevice");
  if (f->error) {
    /* Submission failed part-way: wait for whatever was queued so the
     * slot's memory is idle before it is reused. */
    for (i = 0; i < e->cfg.streams; i++)
      cudaStreamSynchronize (c->streams[i]);
    nvtxRangePop ();
    return;
  }
  /* One event for the whole frame (one wake-up when blocking). */
  {
    cudaEvent_t done = co_cuda_done_event (e, f);
    const gchar *call = "cudaEventSynchronize";

    if (e->cfg.wait == CO_WAIT_SPIN) {
      call = "cudaEventQuery";
      while ((err = cudaEventQuery (done)) == cudaErrorNotReady)
        g_thread_yield ();
    } else {
      /* no query first: it costs as much as this when the frame is done */
      err = cudaEventSynchronize (done);
    }
    if (err != cudaSuccess) {
      f->error = CO_CUDA_FAIL (err, call);
      nvtxRangePop ();
      return;
    }
  }
  for (i = 0; i < f->n_chunks; i++) {
    cudaEvent_t *ev = co_cuda_chunk_events (e, f, i);

    for (k = 0; k < CO_TS_COUNT; k++) {
      gint64 d = co_cuda_elapsed_ns (c->anchor, ev[k], &err);

      if (err != cudaSuccess) {
        f->error = CO_CUDA_FAIL (err, "cudaEventElapsedTime");
        nvtxRangePop ();
        return;
      }
      f->chunks[i].ts[k] = (guint64) ((gint64) c->anchor_ns + d);
    }
  }
  /* Re-anchor on this frame's first event; its event set is not reused
   * before the next frame has completed (n_evsets = n_slots + 1). */
  c->anchor = co_cuda_chunk_events (e, f, 0)[CO_TS_BEGIN];
  c->anchor_ns = f->chunks[0].ts[CO_TS_BEGIN];
  nvtxRangePop ();
}

gboolean
co_cuda_set_const (CoEngine * e, gconstpointer data, gsize size,
    GError ** error)
{
  CoCudaState *c = e->cuda;

  CK (cudaSetDevice (c->device));
  CK (cudaMemcpyAsync (c->dev_const, data, size, cudaMemcpyHostToDevice,
          c->streams[0]));
  CK (cudaStreamSynchronize (c->streams[0]));
  return TRUE;
fail:
  return FALSE;
}

gpointer
co_cuda_const_ptr (CoEngine * e)
{
  return e->cuda->dev_const;
}

void
co_cuda_device_info (CoEngine * e, CoDeviceInfo * info)
{
  CoCudaState *c = e->cuda;
  struct cudaDeviceProp prop;

  info->device_id = c->device;
  if (cudaGetDeviceProperties (&prop, c->device) == cudaSuccess)
    g_strlcpy (info->name, prop.name, sizeof (info->name));
  cudaDeviceGetPCIBusId (info->pci_bus_id, sizeof (info->pci_bus_id),
      c->device);
  cudaDeviceGetAttribute (&info->cc_major,
      cudaDevAttrComputeCapabilityMajor, c->device);
  cudaDeviceGetAttribute (&info->cc_minor,
      cudaDevAttrComputeCapabilityMinor, c->device);
  cudaDeviceGetAttribute (&info->async_engine_count,
      cudaDevAttrAsyncEngineCount, c->device);
  cudaDeviceGetAttribute (&info->concurrent_kernels,
      cudaDevAttrConcurrentKernels, c->device);
  cudaDriverGetVersion (&info->driver_version);
  cudaRuntimeGetVersion (&info->runtime_version);
}
