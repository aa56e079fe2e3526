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
 * Completion: the frame's last chunk records, instead of its end event, a
 * twin of it that is the only event the consumer waits on; then it only
 * queries the other chunks' end events, which normally finished before (they
 * started earlier).  With CO_WAIT_BLOCKING the twin is a blocking-sync event
 * and the consumer sleeps on it: one wake-up per frame, and one interrupt
 * for the driver's event thread, whose CPU grows with the number of
 * blocking-sync events recorded (so the other end events are plain ones).
 * With CO_WAIT_SPIN the consumer polls the twin: no wake-up latency, a core
 * busy while frames are in flight.
 */
#include <string.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "co-engine-private.h"

/* Per chunk: the CO_TS_COUNT timing events, then the end event's twin. */
#define CO_EV_END_TWIN CO_TS_COUNT
#define CO_EV_PER_CHUNK (CO_TS_COUNT + 1)

/* A frame's submission captured as a graph: per chunk a branch of its
 * events, copies and kernel, so chunks run as concurrently as on separate
 * streams.  Reused while frames keep the same plan (the same copies and
 * kernel parameters, host pointers aside); each launch first points the
 * copy nodes at the frame's host memory. */
typedef struct
{
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  guint n_chunks;
  CoChunk *plan;                /* n_chunks: what it was built from */
  cudaGraphNode_t *nodes;       /* n_chunks * 2 * CO_CHUNK_MAX_COPIES */
} CoGraph;

/* Rebuilding more often than this (plans that change, e.g. audio buffers
 * of varying length) turns graphs off for the engine. */
#define CO_GRAPH_MAX_BUILDS(e) (2 * (e)->n_evsets + 8)

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

  /* cfg.graphs: one graph per event set (so per slot and parity), built by
   * capturing a frame's submission; NULL entries until first needed */
  CoGraph *graphs;              /* n_evsets */
  cudaStream_t *cap_streams;    /* chunks: the capture's branches */
  cudaEvent_t *cap_events;      /* chunks: fork and joins of the capture */
  guint graph_builds;
  gboolean graphs_off;          /* plans kept changing: stream path only */
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
    guint flags = (i % CO_EV_PER_CHUNK == CO_EV_END_TWIN &&
        e->cfg.wait == CO_WAIT_BLOCKING) ? cudaEventBlockingSync :
        cudaEventDefault;
    CK (cudaEventCreateWithFlags (&c->events[i], flags));
  }

  if (e->cfg.graphs) {
    c->graphs = g_new0 (CoGraph, e->n_evsets);
    c->cap_streams = g_new0 (cudaStream_t, e->cfg.chunks);
    c->cap_events = g_new0 (cudaEvent_t, e->cfg.chunks);
    for (i = 0; i < e->cfg.chunks; i++) {
      CK (cudaStreamCreateWithFlags (&c->cap_streams[i],
              cudaStreamNonBlocking));
      CK (cudaEventCreateWithFlags (&c->cap_events[i], cudaEventDisableTiming));
    }
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

static void
co_cuda_graph_clear (CoGraph * g)
{
  if (g->exec)
    cudaGraphExecDestroy (g->exec);
  if (g->graph)
    cudaGraphDestroy (g->graph);
  g_free (g->plan);
  g_free (g->nodes);
  memset (g, 0, sizeof (*g));
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
  for (i = 0; c->graphs && i < e->n_evsets; i++)
    co_cuda_graph_clear (&c->graphs[i]);
  g_free (c->graphs);
  for (i = 0; c->cap_streams && i < e->cfg.chunks; i++) {
    if (c->cap_streams[i])
      cudaStreamDestroy (c->cap_streams[i]);
    if (c->cap_events[i])
      cudaEventDestroy (c->cap_events[i]);
  }
  g_free (c->cap_streams);
  g_free (c->cap_events);
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

/* The end event chunk @i records: the twin for the frame's last chunk. */
static inline cudaEvent_t
co_cuda_end_event (CoEngine * e, CoFrame * f, guint i)
{
  return co_cuda_chunk_events (e, f, i)[i + 1 == f->n_chunks ?
      CO_EV_END_TWIN : CO_TS_END];
}

static cudaError_t
co_cuda_copy (const CoCopy * cp, enum cudaMemcpyKind kind, cudaStream_t s)
{
  if (cp->width == cp->spitch && cp->width == cp->dpitch)
    return cudaMemcpyAsync (cp->dst, cp->src, cp->width * cp->rows, kind, s);
  return cudaMemcpy2DAsync (cp->dst, cp->dpitch, cp->src, cp->spitch,
      cp->width, cp->rows, kind, s);
}

/* Queues chunk @i of @f on @s: its events, copies and kernel.  @rec_flags:
 * cudaEventRecordExternal while capturing a graph (the events become event
 * record nodes the host can wait on), else 0. */
static gboolean
co_cuda_queue_chunk (CoEngine * e, CoFrame * f, guint i, cudaStream_t s,
    guint rec_flags, GError ** error)
{
  CoChunk *ch = &f->chunks[i];
  cudaEvent_t *ev = co_cuda_chunk_events (e, f, i);
  guint k;
  int kerr;

  CK (cudaEventRecordWithFlags (ev[CO_TS_BEGIN], s, rec_flags));
  for (k = 0; k < ch->n_h2d; k++)
    CK (co_cuda_copy (&ch->h2d[k], cudaMemcpyHostToDevice, s));
  CK (cudaEventRecordWithFlags (ev[CO_TS_H2D_DONE], s, rec_flags));
  kerr = ch->kind == CO_KERNEL_VIDEO ?
      co_video_launch_cuda (&ch->params.video, s) :
      co_audio_launch_cuda (&ch->params.audio, s);
  if (kerr != 0) {
    co_cuda_check ((cudaError_t) kerr, ch->kind == CO_KERNEL_VIDEO ?
        "co_video_launch_cuda" : "co_audio_launch_cuda", error);
    goto fail;
  }
  CK (cudaEventRecordWithFlags (ev[CO_TS_KERNEL_DONE], s, rec_flags));
  for (k = 0; k < ch->n_d2h; k++)
    CK (co_cuda_copy (&ch->d2h[k], cudaMemcpyDeviceToHost, s));
  CK (cudaEventRecordWithFlags (co_cuda_end_event (e, f, i), s, rec_flags));
  return TRUE;

fail:
  return FALSE;
}

/* Whether every copy of @f is contiguous: exec-time updates of a graph's
 * copy nodes are only possible for 1-D copies. */
static gboolean
co_cuda_frame_1d (const CoFrame * f)
{
  guint i, k;

  for (i = 0; i < f->n_chunks; i++) {
    const CoChunk *ch = &f->chunks[i];

    for (k = 0; k < ch->n_h2d; k++)
      if (ch->h2d[k].width != ch->h2d[k].spitch ||
          ch->h2d[k].width != ch->h2d[k].dpitch)
        return FALSE;
    for (k = 0; k < ch->n_d2h; k++)
      if (ch->d2h[k].width != ch->d2h[k].spitch ||
          ch->d2h[k].width != ch->d2h[k].dpitch)
        return FALSE;
  }
  return TRUE;
}

/* Whether @g was built from the plan of @f, host memory aside. */
static gboolean
co_cuda_graph_fits (const CoGraph * g, const CoFrame * f)
{
  guint i, k;

  if (!g->exec || g->n_chunks != f->n_chunks)
    return FALSE;
  for (i = 0; i < f->n_chunks; i++) {
    const CoChunk *a = &g->plan[i], *b = &f->chunks[i];

    if (a->n_h2d != b->n_h2d || a->n_d2h != b->n_d2h || a->kind != b->kind ||
        memcmp (&a->params, &b->params, sizeof (a->params)) != 0)
      return FALSE;
    for (k = 0; k < a->n_h2d; k++)
      if (a->h2d[k].dst != b->h2d[k].dst || a->h2d[k].width != b->h2d[k].width
          || a->h2d[k].rows != b->h2d[k].rows)
        return FALSE;
    for (k = 0; k < a->n_d2h; k++)
      if (a->d2h[k].src != b->d2h[k].src || a->d2h[k].width != b->d2h[k].width
          || a->d2h[k].rows != b->d2h[k].rows)
        return FALSE;
  }
  return TRUE;
}

/* The copy node of @g that moves @dev_ptr (H2D: its destination, D2H: its
 * source), or NULL. */
static cudaGraphNode_t
co_cuda_graph_find_copy (cudaGraphNode_t * nodes, size_t n,
    const void *dev_ptr, gboolean h2d)
{
  size_t i;

  for (i = 0; i < n; i++) {
    enum cudaGraphNodeType type;
    struct cudaMemcpy3DParms p;

    if (cudaGraphNodeGetType (nodes[i], &type) != cudaSuccess ||
        type != cudaGraphNodeTypeMemcpy ||
        cudaGraphMemcpyNodeGetParams (nodes[i], &p) != cudaSuccess)
      continue;
    if ((h2d ? p.dstPtr.ptr : p.srcPtr.ptr) == dev_ptr)
      return nodes[i];
  }
  return NULL;
}

/* Captures the submission of @f into the graph of its event set. */
static gboolean
co_cuda_graph_build (CoEngine * e, CoFrame * f, CoGraph * g, GError ** error)
{
  CoCudaState *c = e->cuda;
  cudaStream_t origin = c->cap_streams[0];
  cudaGraphNode_t *all = NULL;
  size_t n_all = 0;
  guint i, k;
  gboolean capturing = FALSE;

  co_cuda_graph_clear (g);
  c->graph_builds++;
  CK (cudaStreamBeginCapture (origin, cudaStreamCaptureModeThreadLocal));
  capturing = TRUE;
  /* fork: every branch starts after the origin's first node */
  CK (cudaEventRecord (c->cap_events[0], origin));
  for (i = 1; i < f->n_chunks; i++)
    CK (cudaStreamWaitEvent (c->cap_streams[i], c->cap_events[0], 0));
  for (i = 0; i < f->n_chunks; i++)
    if (!co_cuda_queue_chunk (e, f, i, c->cap_streams[i],
            cudaEventRecordExternal, error))
      goto fail;
  /* join every branch back into the origin */
  for (i = 1; i < f->n_chunks; i++) {
    CK (cudaEventRecord (c->cap_events[i], c->cap_streams[i]));
    CK (cudaStreamWaitEvent (origin, c->cap_events[i], 0));
  }
  capturing = FALSE;
  CK (cudaStreamEndCapture (origin, &g->graph));
  CK (cudaGraphInstantiate (&g->exec, g->graph, 0));

  g->n_chunks = f->n_chunks;
  g->plan = g_memdup2 (f->chunks, sizeof (CoChunk) * f->n_chunks);
  g->nodes = g_new0 (cudaGraphNode_t, f->n_chunks * 2 * CO_CHUNK_MAX_COPIES);
  CK (cudaGraphGetNodes (g->graph, NULL, &n_all));
  all = g_new0 (cudaGraphNode_t, MAX (n_all, 1));
  CK (cudaGraphGetNodes (g->graph, all, &n_all));
  for (i = 0; i < f->n_chunks; i++) {
    const CoChunk *ch = &f->chunks[i];
    cudaGraphNode_t *nd = &g->nodes[i * 2 * CO_CHUNK_MAX_COPIES];

    for (k = 0; k < ch->n_h2d; k++)
      nd[k] = co_cuda_graph_find_copy (all, n_all, ch->h2d[k].dst, TRUE);
    for (k = 0; k < ch->n_d2h; k++)
      nd[CO_CHUNK_MAX_COPIES + k] = co_cuda_graph_find_copy (all, n_all,
          ch->d2h[k].src, FALSE);
    for (k = 0; k < 2 * CO_CHUNK_MAX_COPIES; k++)
      if ((k < ch->n_h2d || (k >= CO_CHUNK_MAX_COPIES &&
                  k - CO_CHUNK_MAX_COPIES < ch->n_d2h)) && !nd[k]) {
        g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
            "building a CUDA graph: copy node of chunk %u not found", i);
        goto fail;
      }
  }
  g_free (all);
  return TRUE;

fail:
  if (capturing) {
    cudaGraph_t partial = NULL;

    cudaStreamEndCapture (origin, &partial);
    if (partial)
      cudaGraphDestroy (partial);
    cudaGetLastError ();
  }
  g_free (all);
  co_cuda_graph_clear (g);
  return FALSE;
}

/* Points @g's copy nodes at @f's host memory and launches it. */
static gboolean
co_cuda_graph_launch (CoEngine * e, CoFrame * f, CoGraph * g,
    cudaStream_t s, GError ** error)
{
  guint i, k;

  for (i = 0; i < f->n_chunks; i++) {
    const CoChunk *ch = &f->chunks[i];
    CoChunk *was = &g->plan[i];
    cudaGraphNode_t *nd = &g->nodes[i * 2 * CO_CHUNK_MAX_COPIES];

    for (k = 0; k < ch->n_h2d; k++) {
      if (ch->h2d[k].src == was->h2d[k].src)
        continue;
      CK (cudaGraphExecMemcpyNodeSetParams1D (g->exec, nd[k], ch->h2d[k].dst,
              ch->h2d[k].src, ch->h2d[k].width * ch->h2d[k].rows,
              cudaMemcpyHostToDevice));
      was->h2d[k].src = ch->h2d[k].src;
    }
    for (k = 0; k < ch->n_d2h; k++) {
      if (ch->d2h[k].dst == was->d2h[k].dst)
        continue;
      CK (cudaGraphExecMemcpyNodeSetParams1D (g->exec,
              nd[CO_CHUNK_MAX_COPIES + k], ch->d2h[k].dst, ch->d2h[k].src,
              ch->d2h[k].width * ch->d2h[k].rows, cudaMemcpyDeviceToHost));
      was->d2h[k].dst = ch->d2h[k].dst;
    }
  }
  CK (cudaGraphLaunch (g->exec, s));
  return TRUE;

fail:
  return FALSE;
}

gboolean
co_cuda_submit (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCudaState *c = e->cuda;
  guint i;

  g_return_val_if_fail (f->n_chunks <= e->cfg.chunks, FALSE);
  nvtxRangePushA ("co submit");
  CK (cudaSetDevice (c->device));
  /* the streams the chunks are labelled with (and, on the stream path,
   * queued on); a graph is launched on the first chunk's */
  for (i = 0; i < f->n_chunks; i++) {
    f->chunks[i].stream = e->next_stream;
    e->next_stream = (e->next_stream + 1) % e->cfg.streams;
  }
  /* Graphs only for page-locked host memory (a copy from pageable memory
   * cannot be captured) and contiguous copies (see co_cuda_frame_1d). */
  if (c->graphs && !c->graphs_off && !f->host_pageable && co_cuda_frame_1d (f)) {
    CoGraph *g = &c->graphs[f->evset];
    cudaStream_t s = c->streams[f->chunks[0].stream];

    if (co_cuda_graph_fits (g, f) && co_cuda_graph_launch (e, f, g, s, NULL)) {
      nvtxRangePop ();
      return TRUE;
    }
    /* a new plan, or host memory the copy nodes cannot be pointed at
     * (another kind of page-locked memory): capture again */
    cudaGetLastError ();
    if (c->graph_builds >= CO_GRAPH_MAX_BUILDS (e)) {
      c->graphs_off = TRUE;
      goto streams;
    }
    if (!co_cuda_graph_build (e, f, g, error) ||
        !co_cuda_graph_launch (e, f, g, s, error))
      goto fail;
    nvtxRangePop ();
    return TRUE;
  }
streams:
  for (i = 0; i < f->n_chunks; i++)
    if (!co_cuda_queue_chunk (e, f, i, c->streams[f->chunks[i].stream], 0,
            error))
      goto fail;
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
  /* The last chunk first (one wake-up), then the others, normally done. */
  for (i = f->n_chunks; i-- > 0;) {
    cudaEvent_t end = co_cuda_end_event (e, f, i);
    const gchar *call = "cudaEventQuery";

    err = cudaEventQuery (end);
    if (i + 1 == f->n_chunks && e->cfg.wait == CO_WAIT_SPIN) {
      while (err == cudaErrorNotReady) {
        g_thread_yield ();
        err = cudaEventQuery (end);
      }
    }
    if (err == cudaErrorNotReady) {
      call = "cudaEventSynchronize";
      err = cudaEventSynchronize (end);
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
      gint64 d = co_cuda_elapsed_ns (c->anchor, k == CO_TS_END ?
          co_cuda_end_event (e, f, i) : ev[k], &err);

      if (err != cudaSuccess) {
        f->error = CO_CUDA_FAIL (err, "cudaEventElapsedTime");
        nvtxRangePop ();
        return;
      }
      f->chunks[i].ts[k] = (guint64) ((gint64) c->anchor_ns + d);
    }
  }
  /* Re-anchor on this frame's first event; its event set is not recorded
   * again before a later frame has completed (see co_engine_new). */
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

/* ---- host memory --------------------------------------------------------- */

gpointer
co_cuda_host_alloc (gsize size, gint device_id, gchar ** why)
{
  void *p = NULL;
  cudaError_t err = cudaSetDevice (MAX (device_id, 0));

  if (err == cudaSuccess)
    err = cudaHostAlloc (&p, MAX (size, 1), cudaHostAllocPortable);
  if (err != cudaSuccess) {
    *why = CO_CUDA_FAIL (err, "cudaHostAlloc");
    return NULL;
  }
  return p;
}

void
co_cuda_host_free (gpointer data)
{
  cudaFreeHost (data);
}

gboolean
co_cuda_host_register (gpointer data, gsize size, gint device_id, gchar ** why)
{
  cudaError_t err = cudaSetDevice (MAX (device_id, 0));

  if (err == cudaSuccess)
    err = cudaHostRegister (data, size, cudaHostRegisterPortable);
  if (err != cudaSuccess) {
    cudaGetLastError ();        /* not sticky: clear it */
    *why = CO_CUDA_FAIL (err, "cudaHostRegister");
    return FALSE;
  }
  return TRUE;
}

void
co_cuda_host_unregister (gpointer data)
{
  cudaHostUnregister (data);
}
