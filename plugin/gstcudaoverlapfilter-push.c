/* cudaoverlap: GstCudaOverlapFilter's push task.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The src pad's GstTask: wait for the oldest frame to finish on the device,
 * push its buffers (one, or the images of its batch) in order, then, off
 * the latency path, record statistics and trace, unref the inputs, post
 * statistics and release the engine slot (after the push, so that a drain
 * means "all pushed").  It runs only while an engine is installed and
 * nothing flushes (gstcudaoverlapfilter-life.c starts and stops it); while
 * flushing it drops what it gets and pauses once nothing is in flight.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <nvtx3/nvToolsExt.h>

#include "gstcudaoverlapfilter-private.h"
#include "co-fault.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

/* Keeps the first failure: FLUSHING, an error or downstream's answer. */
static void
set_srcresult (GstCudaOverlapFilter * self, GstFlowReturn ret)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  if (priv->srcresult == GST_FLOW_OK)
    priv->srcresult = ret;
  g_mutex_unlock (&priv->lock);
}

/* Pushes the @n buffers of a finished frame. */
static void
push_images (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * frames,
    guint n, CoFrame * cf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = GST_ELEMENT (self)->srcpads->data;
  guint i;

  for (i = 0; i < n; i++) {
    GstCudaOverlapFilterFrame *fr = &frames[i];
    GstBuffer *outbuf;
    GstFlowReturn ret;
    guint64 t2, t3;

    GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->finish (self, fr);
    outbuf = g_steal_pointer (&fr->outbuf);
    if (_gst_cuda_overlap_filter_srcresult (self) != GST_FLOW_OK) {
      /* downstream failed or we are flushing: consume, push nothing */
      gst_buffer_unref (outbuf);
      _gst_cuda_overlap_filter_release_input (fr);
      continue;
    }

    /* Push first, book-keep after: statistics, trace and the input
     * buffer's release are not on the frame's latency path. */
    nvtxRangePushA ("cudaoverlap push");
    t2 = co_engine_now ();
    ret = gst_pad_push (srcpad, outbuf);
    t3 = co_engine_now ();
    nvtxRangePop ();
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "push returned %s", gst_flow_get_name (ret));
      set_srcresult (self, ret);
    }

    _gst_cuda_overlap_filter_release_input (fr);
    _gst_cuda_overlap_filter_record_frame (self, fr, cf, t2);
    if (priv->trace)
      co_trace_complete (priv->trace, 1, TID_PUSH, "push", "host", t2,
          t3 - t2, NULL);
  }
}

static void
loop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = GST_ELEMENT (self)->srcpads->data;
  CoEngine *e;
  CoFrame *cf;
  guint64 t0, t1;
  gulong jitter;
  guint n;

  g_mutex_lock (&priv->lock);
  e = priv->engine;
  g_mutex_unlock (&priv->lock);
  t0 = co_engine_now ();
  if (!e || !(cf = co_engine_wait_oldest (e))) {
    /* flushing and nothing left in flight */
    gst_pad_pause_task (srcpad);
    return;
  }
  t1 = co_engine_now ();
  n = priv->slot_images[cf->slot];
  /* tests: a push thread that comes late (co-fault.h) */
  jitter = co_fault_worker_jitter_us ();
  if (jitter)
    g_usleep (jitter);

  if (cf->error) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Processing a frame failed and it was dropped: %s", cf->error),
        ("%s", cf->error));
    _gst_cuda_overlap_filter_drop_slot (self, cf->slot, n);
    co_engine_release (e, cf);
    set_srcresult (self, GST_FLOW_ERROR);
    return;
  }

  push_images (self, &priv->frames[cf->slot * priv->batch], n, cf);
  _gst_cuda_overlap_filter_tune_pushed (self, n);
  if (priv->trace)
    co_trace_complete (priv->trace, 1, TID_WAIT, "wait", "host", t0,
        t1 - t0, NULL);
  _gst_cuda_overlap_filter_maybe_post_stats (self, t1);
  /* released after the push so that a drain means "all pushed" */
  co_engine_release (e, cf);
}

/* The task's function: one frame, with the thread marked as the push task
 * (a stop from a probe or a bus sync handler here is carried out when the
 * frame is done: gstcudaoverlapfilter-pads.c).  It holds a reference on
 * the element meanwhile: an application that stops the pipeline from here
 * may drop its own at once (the element is then disposed here, at the
 * end: gst_cuda_overlap_filter_dispose). */
void
_gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterMark mark;

  gst_object_ref (self);
  g_atomic_pointer_set (&PRIV (self)->loop_thread, g_thread_self ());
  _gst_cuda_overlap_filter_mark_enter (self, &mark, TRUE);
  loop (self);
  _gst_cuda_overlap_filter_mark_leave (self, &mark, TRUE);
  gst_object_unref (self);
}
