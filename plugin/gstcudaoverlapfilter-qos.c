/* cudaoverlap: GstCudaOverlapFilter's Quality of Service and passthrough.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * QoS, as GstBaseTransform does it: a QOS event from downstream (src pad,
 * any thread) sets the earliest running time worth processing; chain
 * (streaming thread) drops an input buffer whose start is at or before it,
 * posts a QOS message, and marks the next buffer that goes on DISCONT (a
 * subclass that keeps stream state, like the audio element's FIR history,
 * restarts it there).  Enabled by the `qos` property, whose default each
 * subclass chooses.
 *
 * Passthrough: when the subclass says its settings are identity
 * (klass->is_identity) and both pads have the same memory (system or CUDA),
 * chain pushes the input buffer itself, from the streaming thread: no
 * slot, no copy, no kernel.  A switch into or out of
 * passthrough first drains what is in flight (the push task pushes it), so
 * buffers stay in order; the statistics are then the streaming thread's
 * (nothing is in flight) and count the frames as CO_PATH_PASSTHROUGH.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-private.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

void
gst_cuda_overlap_filter_set_qos_enabled (GstCudaOverlapFilter * self,
    gboolean enabled)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->qos = enabled;
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_cuda_overlap_filter_is_qos_enabled (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean enabled;

  GST_OBJECT_LOCK (self);
  enabled = priv->qos;
  GST_OBJECT_UNLOCK (self);
  return enabled;
}

/* A new segment, a flush, READY→PAUSED: no lateness known. */
void
_gst_cuda_overlap_filter_qos_reset (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->qos_proportion = 1.0;
  priv->qos_earliest = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
}

/* Src pad, any thread. */
void
_gst_cuda_overlap_filter_qos_event (GstCudaOverlapFilter * self,
    GstEvent * event)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstClockTimeDiff diff;
  GstClockTime timestamp;
  gdouble proportion;

  gst_event_parse_qos (event, NULL, &proportion, &diff, &timestamp);
  GST_OBJECT_LOCK (self);
  priv->qos_proportion = proportion;
  if (GST_CLOCK_TIME_IS_VALID (timestamp) && (diff >= 0
          || timestamp >= (GstClockTime) - diff))
    priv->qos_earliest = timestamp + diff;
  else
    priv->qos_earliest = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  GST_LOG_OBJECT (self, "QoS: proportion %g, diff %" GST_STIME_FORMAT
      ", earliest %" GST_TIME_FORMAT, proportion, GST_STIME_ARGS (diff),
      GST_TIME_ARGS (timestamp + diff));
}

static void
post_qos (GstCudaOverlapFilter * self, GstBuffer * buf, GstClockTime qostime,
    GstClockTime earliest, gdouble proportion)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstClockTime ts = GST_BUFFER_PTS (buf);
  GstMessage *msg;

  msg = gst_message_new_qos (GST_OBJECT (self), FALSE, qostime,
      gst_segment_to_stream_time (&priv->segment, GST_FORMAT_TIME, ts), ts,
      GST_BUFFER_DURATION (buf));
  gst_message_set_qos_values (msg, GST_CLOCK_DIFF (qostime, earliest),
      proportion, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, priv->qos_processed,
      priv->qos_dropped);
  gst_element_post_message (GST_ELEMENT (self), msg);
}

/* TRUE when @buf is already too late to be worth processing: it is counted
 * and a QOS message posted; the caller drops it.  Streaming thread. */
gboolean
_gst_cuda_overlap_filter_qos_drop (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstClockTime ts = GST_BUFFER_PTS (buf), qostime, earliest;
  gdouble proportion;
  gboolean enabled;

  GST_OBJECT_LOCK (self);
  enabled = priv->qos;
  earliest = priv->qos_earliest;
  proportion = priv->qos_proportion;
  GST_OBJECT_UNLOCK (self);

  if (!enabled || !GST_CLOCK_TIME_IS_VALID (ts) ||
      !GST_CLOCK_TIME_IS_VALID (earliest) ||
      priv->segment.format != GST_FORMAT_TIME)
    goto keep;
  qostime = gst_segment_to_running_time (&priv->segment, GST_FORMAT_TIME, ts);
  if (!GST_CLOCK_TIME_IS_VALID (qostime) || qostime > earliest)
    goto keep;

  priv->qos_dropped++;
  priv->qos_discont = TRUE;
  GST_DEBUG_OBJECT (self, "QoS: dropping a buffer at running time %"
      GST_TIME_FORMAT ", earliest %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT
      " dropped)", GST_TIME_ARGS (qostime), GST_TIME_ARGS (earliest),
      priv->qos_dropped);
  post_qos (self, buf, qostime, earliest, proportion);
  return TRUE;

keep:
  priv->qos_processed++;
  return FALSE;
}

/* The first buffer after a dropped one is a discontinuity. */
GstBuffer *
_gst_cuda_overlap_filter_qos_mark (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (G_LIKELY (!priv->qos_discont))
    return buf;
  priv->qos_discont = FALSE;
  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

/* Into or out of passthrough as the settings ask, draining the frames in
 * flight first.  Streaming thread. */
GstFlowReturn
_gst_cuda_overlap_filter_check_passthrough (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  /* the input buffer itself only where the output is the same memory */
  gboolean want = klass->is_identity && klass->is_identity (self) &&
      priv->in_cuda == priv->out_cuda;
  GstFlowReturn ret;

  if (want == priv->passthrough)
    return GST_FLOW_OK;
  if (!_gst_cuda_overlap_filter_drain (self)) {
    /* flushing, or a frame failed: switch with the next buffer */
    ret = _gst_cuda_overlap_filter_srcresult (self);
    return ret == GST_FLOW_OK ? GST_FLOW_FLUSHING : ret;
  }
  GST_INFO_OBJECT (self, "%s passthrough: the settings are %sidentity",
      want ? "into" : "out of", want ? "" : "no longer ");
  g_atomic_int_set (&priv->passthrough, want);
  return GST_FLOW_OK;
}

/* Passthrough: @buf goes on as it is.  Streaming thread, nothing in
 * flight. */
GstFlowReturn
_gst_cuda_overlap_filter_push_through (GstCudaOverlapFilter * self,
    GstBuffer * buf, guint64 t0)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret;
  guint64 t1 = co_engine_now ();

  ret = gst_pad_push (GST_ELEMENT (self)->srcpads->data, buf);
  if (priv->stats)
    co_stats_add_frame (priv->stats, NULL, 0, t1 - t0, CO_PATH_PASSTHROUGH);
  _gst_cuda_overlap_filter_maybe_post_stats (self, t1);
  return ret;
}
