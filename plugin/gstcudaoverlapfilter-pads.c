/* cudaoverlap: GstCudaOverlapFilter's pads: chain, events, queries and
 * state changes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * chain (upstream's streaming thread): make sure the engine fits
 * (gstcudaoverlapfilter-life.c), acquire an engine slot (blocks at the
 * in-flight bound, wakes on flush), take an output buffer (never waits:
 * the pool grows), plan and submit the frame, return.  Serialized events
 * (caps, EOS, segment, ...) drain the frames in flight first, so they stay
 * in order with the buffers (a drain cut short by a flush drops the event:
 * it would overtake frames still being pushed).  Everything that changes
 * the engine's life goes through the life-cycle functions; the lock rules
 * are in gstcudaoverlapfilter-private.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <nvtx3/nvToolsExt.h>

#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"
#include "co-fault.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

/* Foreign memory smaller than this is copied, not registered: registering
 * costs tens of microseconds per page-locked megabyte, more than a small
 * pageable copy costs. */
#define MIN_REGISTER_BYTES (1 << 20)

static GstPad *
srcpad_of (GstCudaOverlapFilter * self)
{
  return GST_ELEMENT (self)->srcpads->data;
}

/* ---- a stop from inside the element ----------------------------------------
 *
 * An application may stop the pipeline (set_state to READY or NULL) from a
 * pad probe or a bus sync handler, i.e. on a thread that is inside one of
 * our pad functions or our push task.  The state change then must not free
 * what the code below it on the same thread still uses, and the push task
 * cannot join itself.  So each pad function and each run of the push loop
 * marks the thread (a list kept on the thread's stack), and a PAUSED→READY
 * from a marked thread leaves the teardown to that thread: it runs when the
 * outermost marked call of the element returns. */

typedef GstCudaOverlapFilterMark Mark;

/* PAUSED→READY once nothing runs (or, @on_task, at the end of the push
 * loop): engine, pools, statistics and trace go. */
static void
stop_run (GstCudaOverlapFilter * self, gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  _gst_cuda_overlap_filter_teardown (self, on_task);
  g_clear_pointer (&priv->stats, co_stats_free);
  co_trace_close (priv->trace);
  priv->trace = NULL;
}

static GPrivate marks = G_PRIVATE_INIT (NULL);

void
_gst_cuda_overlap_filter_mark_enter (GstCudaOverlapFilter * self, Mark * m,
    gboolean on_task)
{
  m->self = self;
  m->on_task = on_task;
  m->up = g_private_get (&marks);
  g_private_set (&marks, m);
}

gboolean
_gst_cuda_overlap_filter_in_callbacks (GstCudaOverlapFilter * self,
    gboolean task_only)
{
  Mark *m;

  for (m = g_private_get (&marks); m; m = m->up)
    if (m->self == self && (m->on_task || !task_only))
      return TRUE;
  return FALSE;
}

/* Leaves a marked call; the deferred teardown, if this thread owes it and
 * is no longer inside the element.  @on_task: the push task's thread. */
void
_gst_cuda_overlap_filter_mark_leave (GstCudaOverlapFilter * self, Mark * m,
    gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean owed, ctx;

  g_private_set (&marks, m->up);
  if (G_LIKELY (!g_atomic_pointer_get (&priv->deferred_owner)) ||
      _gst_cuda_overlap_filter_in_callbacks (self, FALSE))
    return;
  /* only this thread sets deferred_ctx (its own READY→NULL): other
   * threads' state changes wait for the teardown first */
  g_mutex_lock (&priv->lock);
  owed = priv->deferred_owner == g_thread_self ();
  ctx = priv->deferred_ctx;
  g_mutex_unlock (&priv->lock);
  if (!owed)
    return;
  GST_DEBUG_OBJECT (self, "the stop from inside the element: tearing down "
      "now");
  stop_run (self, on_task);
  if (ctx)
    _gst_cuda_overlap_filter_release_context (self);
  g_mutex_lock (&priv->lock);
  priv->deferred_owner = NULL;
  priv->deferred_ctx = FALSE;
  priv->stopping_inside = FALSE;
  g_cond_broadcast (&priv->deferred_cond);
  g_mutex_unlock (&priv->lock);
}

void
_gst_cuda_overlap_filter_wait_deferred (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  while (priv->deferred_owner && priv->deferred_owner != g_thread_self ())
    g_cond_wait (&priv->deferred_cond, &priv->lock);
  g_mutex_unlock (&priv->lock);
}

/* What of @in holds for @out: timestamps, offsets, flags and the metas of
 * the element's rule (gstcudaoverlap-meta.h). */
static void
copy_metadata (GstCudaOverlapFilter * self, GstBuffer * out, GstBuffer * in)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  const GstBufferFlags keep = GST_BUFFER_FLAG_LIVE | GST_BUFFER_FLAG_DISCONT |
      GST_BUFFER_FLAG_RESYNC | GST_BUFFER_FLAG_GAP |
      GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_HEADER |
      GST_BUFFER_FLAG_DELTA_UNIT | GST_BUFFER_FLAG_MARKER |
      GST_BUFFER_FLAG_CORRUPTED | GST_BUFFER_FLAG_DECODE_ONLY |
      GST_BUFFER_FLAG_NON_DROPPABLE;

  GST_BUFFER_PTS (out) = GST_BUFFER_PTS (in);
  GST_BUFFER_DTS (out) = GST_BUFFER_DTS (in);
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
  GST_BUFFER_OFFSET (out) = GST_BUFFER_OFFSET (in);
  GST_BUFFER_OFFSET_END (out) = GST_BUFFER_OFFSET_END (in);
  GST_MINI_OBJECT_FLAGS (out) = (GST_MINI_OBJECT_FLAGS (out) & ~keep) |
      (GST_MINI_OBJECT_FLAGS (in) & keep);
  gst_cuda_overlap_meta_copy (&klass->meta_rule, out, in);
}

/* The trace spans of a chain call (only when tracing). */
static void
trace_chain (GstCudaOverlapFilter * self, guint64 t0, guint64 t_submit)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 t_end = co_engine_now ();

  co_trace_complete (priv->trace, 1, TID_CHAIN, "chain", "host", t0,
      t_end - t0, NULL);
  if (t_submit)
    co_trace_complete (priv->trace, 1, TID_CHAIN, "submit", "host", t_submit,
        t_end - t_submit, NULL);
}

/* CoMemPath STAGED: the frame's input becomes a copy in our page-locked
 * memory, made by co-parcopy's threads while chain goes on; the engine
 * finishes the copies (cf->host_job) before it queues the frame's device
 * work, on the thread that queues it (chain's, or the submit thread: then
 * the next frame's copies start while this one's run).  The copy holds the
 * original until then; the frame drops its reference now. */
static gboolean
stage_input (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr,
    CoFrame * cf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 t0 = priv->trace ? co_engine_now () : 0;
  GstBuffer *staged;

  if (!cf->host_job)
    cf->host_job = co_parcopy_job_new ();
  staged = gst_cuda_overlap_hostmem_stage (fr->inbuf, priv->staging,
      priv->staging_size, priv->allocator, cf->host_job);
  if (GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->prepare_reads_input)
    co_engine_finish_host (cf); /* prepare reads the copy */

  if (priv->trace)
    co_trace_complete (priv->trace, 1, TID_CHAIN, "stage", "host", t0,
        co_engine_now () - t0, NULL);
  if (!staged) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
        ("could not copy an input buffer of %" G_GSIZE_FORMAT " bytes into "
            "page-locked memory", gst_buffer_get_size (fr->inbuf)));
    return FALSE;
  }
  gst_buffer_unref (fr->inbuf);
  fr->inbuf = staged;
  return TRUE;
}

/* How @fr's input reaches the device (CoMemPath), and its hold on
 * page-locked memory (fr->host_ref). */
static void
input_path (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (priv->in_cuda) {
    fr->path = CO_PATH_DEVICE;  /* read in place: no registration */
    return;
  }
  fr->path = gst_cuda_overlap_hostmem_prepare (fr->inbuf,
      co_engine_backend (priv->engine) == CO_BACKEND_CUDA ?
      gst_cuda_overlap_filter_device_id (self) : -2, MIN_REGISTER_BYTES,
      &fr->host_ref);
  if (G_UNLIKELY (co_fault_force_staging ()) && fr->path == CO_PATH_PAGEABLE) {
    /* a test's: the staged path on the CPU backend too */
    g_clear_pointer (&fr->host_ref, co_hostref_release);
    fr->path = CO_PATH_STAGED;
  }
}

/* Ends the streaming thread's add to the batch being filled: @added, one
 * more image (@foreign: from a pool not ours); then submits the batch if
 * it is full.  Not added: a batch with no image yet is given back.  FALSE
 * (with @error) when the submission failed. */
static gboolean
end_add (GstCudaOverlapFilter * self, gboolean added, gboolean foreign,
    GError ** error)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean ok = TRUE;

  g_mutex_lock (&priv->batch_lock);
  if (added) {
    priv->pending_n++;
    if (priv->pending_n >= priv->batch_fill)
      ok = _gst_cuda_overlap_filter_submit_pending_locked (self, error);
    else
      _gst_cuda_overlap_filter_batch_added_locked (self, foreign);
  } else if (priv->pending && priv->pending_n == 0) {
    _gst_cuda_overlap_filter_cancel_pending_locked (self);
  }
  priv->adding = FALSE;
  /* a batch left partial (also after a failed add) is the timer's again */
  if (priv->pending && priv->timer_idle)
    g_cond_signal (&priv->batch_cond);
  g_mutex_unlock (&priv->batch_lock);
  return ok;
}

/* The streaming thread starts adding to the batch being filled: the batch
 * (a new engine frame when there is none; NULL when flushing). */
static CoFrame *
begin_add (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 t_acq;
  CoFrame *cf;

  g_mutex_lock (&priv->batch_lock);
  priv->adding = TRUE;
  cf = priv->pending;
  g_mutex_unlock (&priv->batch_lock);
  if (cf)
    return cf;
  /* the first buffer of a frame (of a batch, with batches) */
  t_acq = priv->trace ? co_engine_now () : 0;
  cf = co_engine_acquire (priv->engine);
  if (priv->trace && cf)
    co_trace_complete (priv->trace, 1, TID_CHAIN, "acquire", "host", t_acq,
        co_engine_now () - t_acq, NULL);
  g_mutex_lock (&priv->batch_lock);
  priv->pending = cf;
  priv->pending_n = 0;
  priv->pending_foreign = FALSE;
  g_mutex_unlock (&priv->batch_lock);
  return cf;
}

/* @fr (image pending_n of @cf, its buffers set) mapped and planned. */
static GstFlowReturn
prepare_image (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr,
    CoFrame * cf, gboolean * staged)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBuffer *buf = fr->inbuf;

  input_path (self, fr);
  copy_metadata (self, fr->outbuf, buf);
  *staged = fr->path == CO_PATH_STAGED;
  if (fr->path == CO_PATH_STAGED && !stage_input (self, fr, cf))
    return GST_FLOW_ERROR;
  if (priv->in_cuda && !_gst_cuda_overlap_filter_check_cuda_input (self, buf))
    return GST_FLOW_ERROR;
  return GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->prepare (self,
      priv->engine, fr, cf);
}

/* Puts @buf into the batch being filled and submits the batch when it is
 * full; @staged: whether its input was staged.  The batch timer
 * (gstcudaoverlapfilter-batch.c) keeps off the batch while this adds to
 * it. */
static GstFlowReturn
chain_frame (GstCudaOverlapFilter * self, GstBuffer * buf, guint64 t0,
    gboolean * staged)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean foreign = !buf->pool || buf->pool != priv->proposed;
  GstCudaOverlapFilterFrame *fr;
  GstBuffer *outbuf = NULL;
  GstFlowReturn ret;
  GError *err = NULL;
  guint64 t_submit;
  CoFrame *cf;

  if (priv->batch > 1)
    _gst_cuda_overlap_filter_batch_see_pool (self, buf);
  if (!(cf = begin_add (self))) {
    end_add (self, FALSE, FALSE, NULL);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  ret = _gst_cuda_overlap_filter_acquire_output (self, &outbuf);
  if (ret != GST_FLOW_OK) {
    end_add (self, FALSE, FALSE, NULL);
    gst_buffer_unref (buf);
    return ret;
  }
  /* pending_n is the streaming thread's while it adds */
  fr = &priv->frames[cf->slot * priv->batch + priv->pending_n];
  fr->inbuf = buf;
  fr->outbuf = outbuf;
  fr->chain_ns = t0;
  ret = prepare_image (self, fr, cf, staged);
  if (ret != GST_FLOW_OK) {
    /* the batch's copies so far write into its buffers: done first */
    co_engine_finish_host (cf);
    _gst_cuda_overlap_filter_frame_drop (self, fr);
    end_add (self, FALSE, FALSE, NULL);
    return ret;
  }
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " image %u pts %"
      GST_TIME_FORMAT ": %u chunks, %s input", cf->seqnum, fr->image,
      GST_TIME_ARGS (GST_BUFFER_PTS (fr->inbuf)), cf->n_chunks,
      fr->path == CO_PATH_PINNED ? "pinned" :
      fr->path == CO_PATH_REGISTERED ? "registered" :
      fr->path == CO_PATH_PAGEABLE ? "pageable" :
      fr->path == CO_PATH_DEVICE ? "device" : "staged");
  t_submit = priv->trace ? co_engine_now () : 0;
  if (!end_add (self, TRUE, foreign, &err))
    ret = _gst_cuda_overlap_filter_submit_failed (self, err);
  if (priv->trace)
    trace_chain (self, t0, t_submit);
  return ret;
}

static GstFlowReturn
chain (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstFlowReturn ret;
  guint64 t0 = co_engine_now ();
  gboolean staged = FALSE;
  gsize size;

  _gst_cuda_overlap_filter_batch_post_latency (self);

  if (klass->sink_buffer) {
    ret = klass->sink_buffer (self, buf);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }
  if (_gst_cuda_overlap_filter_qos_drop (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  _gst_cuda_overlap_filter_tune_begin (self);
  ret = _gst_cuda_overlap_filter_reconfigure (self);
  if (ret == GST_FLOW_OK)
    ret = _gst_cuda_overlap_filter_ensure (self);
  if (ret == GST_FLOW_OK)
    ret = _gst_cuda_overlap_filter_check_passthrough (self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    if (ret == GST_FLOW_NOT_NEGOTIATED)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("no caps before the first buffer"));
    return ret;
  }
  buf = _gst_cuda_overlap_filter_qos_mark (self, buf);
  if (PRIV (self)->passthrough)
    return _gst_cuda_overlap_filter_push_through (self, buf, t0);
  if (klass->check_input && !klass->check_input (self, buf)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }

  nvtxRangePushA ("cudaoverlap chain");
  size = gst_buffer_get_size (buf);
  ret = chain_frame (self, buf, t0, &staged);
  nvtxRangePop ();
  _gst_cuda_overlap_filter_tune_end (self, size, staged);
  if (ret != GST_FLOW_OK)
    return ret;
  /* downstream's last word (or FLUSHING) */
  return _gst_cuda_overlap_filter_srcresult (self);
}

static GstFlowReturn
gst_cuda_overlap_filter_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterMark mark;
  GstFlowReturn ret;

  _gst_cuda_overlap_filter_mark_enter (self, &mark, FALSE);
  ret = chain (self, buf);
  _gst_cuda_overlap_filter_mark_leave (self, &mark, FALSE);
  return ret;
}

/* ---- events ---------------------------------------------------------------- */

/* Forwards @event downstream.  A failure while our source pad flushes (a
 * state change deactivates it before the sink pad, and a flushing seek
 * races the streaming thread) is FLUSHING, not an error: upstream must
 * not post "not-negotiated" or "Internal data stream error" for it. */
GstFlowReturn
_gst_cuda_overlap_filter_push_event (GstPad * srcpad, GstEvent * event)
{
  GstEventType type = GST_EVENT_TYPE (event);
  gboolean flushing;

  if (gst_pad_push_event (srcpad, event))
    return GST_FLOW_OK;
  GST_OBJECT_LOCK (srcpad);
  flushing = GST_PAD_IS_FLUSHING (srcpad);
  GST_OBJECT_UNLOCK (srcpad);
  if (flushing)
    return GST_FLOW_FLUSHING;
  return type == GST_EVENT_CAPS ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_ERROR;
}

static GstFlowReturn
sink_event (GstCudaOverlapFilter * self, GstEvent * event)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = srcpad_of (self);
  GstFlowReturn ret;

  GST_LOG_OBJECT (self, "event %" GST_PTR_FORMAT, event);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      _gst_cuda_overlap_filter_flush_start (self);
      if (co_fault_flush_delay_us ())
        g_usleep (co_fault_flush_delay_us ());
      ret = _gst_cuda_overlap_filter_push_event (srcpad, event);
      /* wait for the push task to stop; it drops what it holds */
      gst_pad_pause_task (srcpad);
      return ret;
    case GST_EVENT_FLUSH_STOP:
      _gst_cuda_overlap_filter_flush_stop (self);
      _gst_cuda_overlap_filter_qos_reset (self);
      gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
      return _gst_cuda_overlap_filter_push_event (srcpad, event);
    case GST_EVENT_SEGMENT:
      if ((ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      gst_event_copy_segment (event, &priv->segment);
      _gst_cuda_overlap_filter_qos_reset (self);
      return _gst_cuda_overlap_filter_push_event (srcpad, event);
    case GST_EVENT_CAPS:
      return _gst_cuda_overlap_filter_sink_caps (self, event);
    case GST_EVENT_EOS:
      if ((ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      _gst_cuda_overlap_filter_post_eos_stats (self);
      co_trace_sync (priv->trace);
      return _gst_cuda_overlap_filter_push_event (srcpad, event);
    default:
      if (GST_EVENT_IS_SERIALIZED (event) &&
          (ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      /* our one source pad: what gst_pad_event_default would do */
      return _gst_cuda_overlap_filter_push_event (srcpad, event);
  }
}

static GstFlowReturn
gst_cuda_overlap_filter_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterMark mark;
  GstFlowReturn ret;

  _gst_cuda_overlap_filter_mark_enter (self, &mark, FALSE);
  ret = sink_event (self, event);
  _gst_cuda_overlap_filter_mark_leave (self, &mark, FALSE);
  return ret;
}

static gboolean
gst_cuda_overlap_filter_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS)
    _gst_cuda_overlap_filter_qos_event (GST_CUDA_OVERLAP_FILTER (parent),
        event);
  return gst_pad_event_default (pad, parent, event);
}

/* ---- queries --------------------------------------------------------------- */

guint
_gst_cuda_overlap_filter_offer_pool (GstQuery * query, GstBufferPool * pool,
    guint n)
{
  GstStructure *config;
  guint size = 0;

  if (!pool)
    return 0;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  gst_query_add_allocation_pool (query, pool, size, n, 0);
  gst_object_unref (pool);
  return size;
}

/* The buffers the element holds: a batch in every slot (the one being
 * filled holds a slot too), and one more for upstream to go on with.  The
 * pool proposed on CUDA has no maximum (upstream's own downstream, a tee,
 * may hold its buffers) and makes only the first few up front. */
static gboolean
propose_allocation (GstCudaOverlapFilter * self, GstQuery * query)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstAllocationParams params;
  GstBufferPool *pool;
  GstCaps *caps;
  gboolean need_pool;
  guint n, first, size = 0;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !priv->engine)
    return FALSE;
  if (klass->propose_allocation)
    klass->propose_allocation (self, query);
  n = co_engine_max_in_flight (priv->engine) * priv->batch + 1;
  if (co_engine_backend (priv->engine) != CO_BACKEND_CUDA) {
    /* CPU backend: any memory will do; say how many buffers we hold */
    if (klass->offer_pool_params && priv->pool && priv->caps &&
        gst_caps_is_equal (caps, priv->caps)) {
      GstStructure *config = gst_buffer_pool_get_config (priv->pool);

      gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
      gst_structure_free (config);
      gst_query_add_allocation_pool (query, NULL, size, n, 0);
    }
    return TRUE;
  }
  if (gst_cuda_overlap_caps_is_cuda (caps)) {
    /* device memory of our CUDA context, read in place */
    if (need_pool)
      _gst_cuda_overlap_filter_propose_cuda_pool (self, query, caps, n);
    return TRUE;
  }
  gst_allocation_params_init (&params);
  gst_query_add_allocation_param (query, priv->allocator, &params);
  if (!need_pool)
    return TRUE;
  /* a few buffers now: the pool grows (no maximum) as upstream needs,
   * from the blocks earlier pools gave back where it can */
  first = MIN (n, CO_FIRST_BUFFERS);
  pool = klass->make_pool (self, caps, 0, priv->allocator, first, 0);
  if (pool)
    gst_object_replace ((GstObject **) & priv->proposed, GST_OBJECT (pool));
  /* the answer states every buffer we may hold; the pool itself makes only
   * the first ones when it starts (the subclass's make_pool) */
  _gst_cuda_overlap_filter_offer_pool (query, pool, n);
  return TRUE;
}

/* DRAIN (serialized): every frame in flight and the batch being filled
 * pushed, then the query goes downstream and its answer is ours, as
 * `queue` does.  A flush cuts the drain short: the query fails. */
static gboolean
drain_query (GstCudaOverlapFilter * self, GstQuery * query)
{
  if (_gst_cuda_overlap_filter_drain_cut (self)) {
    GST_DEBUG_OBJECT (self, "flushing: DRAIN not forwarded");
    return FALSE;
  }
  return gst_pad_peer_query (srcpad_of (self), query);
}

static gboolean
sink_query (GstPad * pad, GstCudaOverlapFilter * self, GstQuery * query)
{
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_DRAIN:
      return drain_query (self, query);
    case GST_QUERY_ALLOCATION:
      /* serialized: the streaming thread's, like the engine */
      return propose_allocation (self, query);
    case GST_QUERY_CAPS:
      return _gst_cuda_overlap_filter_query_caps (self, pad, query);
    case GST_QUERY_ACCEPT_CAPS:
      return _gst_cuda_overlap_filter_query_accept_caps (self, pad, query);
    case GST_QUERY_CONTEXT:
      if (_gst_cuda_overlap_filter_query_context (self, query))
        return TRUE;
      break;
    default:
      break;
  }
  return gst_pad_query_default (pad, GST_OBJECT (self), query);
}

static gboolean
gst_cuda_overlap_filter_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterMark mark;
  gboolean ret;

  _gst_cuda_overlap_filter_mark_enter (self, &mark, FALSE);
  ret = sink_query (pad, self, query);
  _gst_cuda_overlap_filter_mark_leave (self, &mark, FALSE);
  return ret;
}

/* Any thread: reads the engine's bounds under the lock. */
static gboolean
gst_cuda_overlap_filter_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstClockTime min, max, dur, timeout, wait;
  guint in_flight, batch;
  gboolean live;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      break;
    case GST_QUERY_CAPS:
      return _gst_cuda_overlap_filter_query_caps (self, pad, query);
    case GST_QUERY_CONTEXT:
      if (_gst_cuda_overlap_filter_query_context (self, query))
        return TRUE;
      return gst_pad_query_default (pad, parent, query);
    default:
      return gst_pad_query_default (pad, parent, query);
  }
  if (!gst_pad_peer_query (GST_ELEMENT (self)->sinkpads->data, query))
    return FALSE;
  gst_query_parse_latency (query, &live, &min, &max);
  g_mutex_lock (&priv->lock);
  in_flight = priv->in_flight_max;
  g_mutex_unlock (&priv->lock);
  _gst_cuda_overlap_filter_batch_bounds (self, &batch, &timeout);
  /* We hold up to max-in-flight frames, but push each one as soon as the
   * device is done: no added minimum, max-in-flight frames of maximum.
   * With batches, a buffer waits for the batch to fill, each next buffer
   * coming within the batch timeout or the batch going without it: up to
   * (batch - 1) timeouts, of minimum and of maximum.  Saturating: a
   * frame rate of 1/2147483647 must not wrap around. */
  dur = klass->frame_duration ? klass->frame_duration (self) :
      GST_CLOCK_TIME_NONE;
  if (in_flight > 0 && batch > 1) {
    wait = _gst_cuda_overlap_time_mul (timeout, batch - 1);
    min = _gst_cuda_overlap_time_add (min, wait);
    max = _gst_cuda_overlap_time_add (max, wait);
  }
  if (in_flight > 0 && GST_CLOCK_TIME_IS_VALID (dur))
    max = _gst_cuda_overlap_time_add (max,
        _gst_cuda_overlap_time_mul (dur, (guint64) in_flight * batch));
  GST_DEBUG_OBJECT (self, "latency min %" GST_TIME_FORMAT " max %"
      GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

static gboolean
gst_cuda_overlap_filter_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (active)
    return TRUE;
  _gst_cuda_overlap_filter_set_shutdown (self, TRUE);
  /* a stop from our own push task (a probe, a bus sync handler): it
   * cannot join itself; it stops when its loop returns */
  if (_gst_cuda_overlap_filter_in_callbacks (self, TRUE)) {
    _gst_cuda_overlap_filter_stop_own_task (pad);
    return TRUE;
  }
  return gst_pad_stop_task (pad);
}

void
_gst_cuda_overlap_filter_setup_pads (GstCudaOverlapFilter * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstPad *sinkpad, *srcpad;

  sinkpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "sink"), "sink");
  gst_pad_set_chain_function (sinkpad, gst_cuda_overlap_filter_chain);
  gst_pad_set_event_full_function (sinkpad, gst_cuda_overlap_filter_sink_event);
  gst_pad_set_query_function (sinkpad, gst_cuda_overlap_filter_sink_query);
  /* caps: gstcudaoverlapfilter-caps.c (the memory may differ per pad) */
  gst_element_add_pad (GST_ELEMENT (self), sinkpad);

  srcpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "src"), "src");
  gst_pad_set_activatemode_function (srcpad,
      gst_cuda_overlap_filter_src_activate_mode);
  gst_pad_set_query_function (srcpad, gst_cuda_overlap_filter_src_query);
  gst_pad_set_event_function (srcpad, gst_cuda_overlap_filter_src_event);
  gst_element_add_pad (GST_ELEMENT (self), srcpad);
}

/* ---- state changes ------------------------------------------------------------ */

static gboolean
check_backend (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoBackendKind backend;
  GError *err = NULL;
  gint dev;

  GST_OBJECT_LOCK (self);
  backend = priv->backend;
  dev = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (backend != CO_BACKEND_CUDA
      || co_engine_backend_usable (backend, dev, &err))
    return TRUE;
  _gst_cuda_overlap_filter_no_device_error (self, err->message);
  g_error_free (err);
  return FALSE;
}

GstStateChangeReturn
_gst_cuda_overlap_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (element);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstStateChangeReturn ret;

  /* a teardown left to a thread of the element by a stop from inside it
   * ends before anything else changes */
  _gst_cuda_overlap_filter_wait_deferred (self);
  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      if (!check_backend (self))
        return GST_STATE_CHANGE_FAILURE;
      _gst_cuda_overlap_filter_ensure_context (self);
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      _gst_cuda_overlap_filter_set_shutdown (self, FALSE);
      _gst_cuda_overlap_filter_qos_reset (self);
      gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
      priv->qos_processed = priv->qos_dropped = 0;
      priv->qos_discont = FALSE;
      _gst_cuda_overlap_filter_trace_open (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* from our push task: the streaming thread must not wait for it
       * (halt_task of gstcudaoverlapfilter-life.c) */
      if (_gst_cuda_overlap_filter_in_callbacks (self, TRUE)) {
        g_mutex_lock (&priv->lock);
        priv->stopping_inside = TRUE;
        g_mutex_unlock (&priv->lock);
      }
      /* wakes the streaming thread wherever it waits, also mid-rebuild */
      _gst_cuda_overlap_filter_set_shutdown (self, TRUE);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_ELEMENT))->change_state
      (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY &&
      _gst_cuda_overlap_filter_in_callbacks (self, FALSE)) {
    /* a stop from inside the element (a pad probe, a bus sync handler on
     * one of our threads): code below us on this thread still uses the
     * engine; the teardown runs when the thread leaves the element */
    GST_DEBUG_OBJECT (self, "stopped from inside the element: teardown "
        "deferred");
    g_mutex_lock (&priv->lock);
    priv->deferred_owner = g_thread_self ();
    g_mutex_unlock (&priv->lock);
  } else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    /* the pads are deactivated: no chain runs, the push task is stopped */
    stop_run (self, FALSE);
  } else if (transition == GST_STATE_CHANGE_READY_TO_NULL) {
    gboolean deferred;

    g_mutex_lock (&priv->lock);
    deferred = priv->deferred_owner != NULL;
    if (deferred)
      priv->deferred_ctx = TRUE;        /* released after the teardown */
    g_mutex_unlock (&priv->lock);
    if (!deferred)
      _gst_cuda_overlap_filter_release_context (self);
  }
  return ret;
}
