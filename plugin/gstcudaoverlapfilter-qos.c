/* cudaoverlap: Quality of Service of GstCudaOverlapFilter
 * (gstcudaoverlapfilter-qos.h says what it does).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-qos.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_overlap_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

void
gst_cuda_overlap_qos_init (GstCudaOverlapQos * qos)
{
  g_mutex_init (&qos->lock);
  qos->enabled = FALSE;
  qos->proportion = 1.0;
  qos->earliest = GST_CLOCK_TIME_NONE;
  qos->processed = qos->dropped = 0;
  qos->discont = FALSE;
}

void
gst_cuda_overlap_qos_clear (GstCudaOverlapQos * qos)
{
  g_mutex_clear (&qos->lock);
}

void
gst_cuda_overlap_qos_set_enabled (GstCudaOverlapQos * qos, gboolean enabled)
{
  g_mutex_lock (&qos->lock);
  qos->enabled = enabled;
  g_mutex_unlock (&qos->lock);
}

gboolean
gst_cuda_overlap_qos_get_enabled (GstCudaOverlapQos * qos)
{
  gboolean enabled;

  g_mutex_lock (&qos->lock);
  enabled = qos->enabled;
  g_mutex_unlock (&qos->lock);
  return enabled;
}

void
gst_cuda_overlap_qos_reset (GstCudaOverlapQos * qos)
{
  g_mutex_lock (&qos->lock);
  qos->proportion = 1.0;
  qos->earliest = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&qos->lock);
}

void
gst_cuda_overlap_qos_start (GstCudaOverlapQos * qos)
{
  gst_cuda_overlap_qos_reset (qos);
  qos->processed = qos->dropped = 0;
  qos->discont = FALSE;
}

void
gst_cuda_overlap_qos_event (GstCudaOverlapQos * qos, GstEvent * event)
{
  GstClockTimeDiff diff;
  GstClockTime timestamp;
  gdouble proportion;

  gst_event_parse_qos (event, NULL, &proportion, &diff, &timestamp);
  g_mutex_lock (&qos->lock);
  qos->proportion = proportion;
  if (GST_CLOCK_TIME_IS_VALID (timestamp) && (diff >= 0
          || timestamp >= (GstClockTime) - diff))
    qos->earliest = timestamp + diff;
  else
    qos->earliest = GST_CLOCK_TIME_NONE;
  g_mutex_unlock (&qos->lock);
  GST_LOG ("QoS: proportion %g, diff %" GST_STIME_FORMAT ", earliest %"
      GST_TIME_FORMAT, proportion, GST_STIME_ARGS (diff),
      GST_TIME_ARGS (timestamp + diff));
}

static void
post_qos (GstCudaOverlapQos * qos, const GstSegment * segment,
    GstElement * element, GstBuffer * buf, GstClockTime qostime,
    GstClockTime earliest, gdouble proportion)
{
  GstClockTime ts = GST_BUFFER_PTS (buf);
  GstMessage *msg;

  msg = gst_message_new_qos (GST_OBJECT (element), FALSE, qostime,
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, ts), ts,
      GST_BUFFER_DURATION (buf));
  gst_message_set_qos_values (msg, GST_CLOCK_DIFF (qostime, earliest),
      proportion, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, qos->processed,
      qos->dropped);
  gst_element_post_message (element, msg);
}

gboolean
gst_cuda_overlap_qos_drop (GstCudaOverlapQos * qos,
    const GstSegment * segment, GstElement * element, GstBuffer * buf)
{
  GstClockTime ts = GST_BUFFER_PTS (buf), qostime, earliest;
  gdouble proportion;
  gboolean enabled;

  g_mutex_lock (&qos->lock);
  enabled = qos->enabled;
  earliest = qos->earliest;
  proportion = qos->proportion;
  g_mutex_unlock (&qos->lock);

  if (!enabled || !GST_CLOCK_TIME_IS_VALID (ts) ||
      !GST_CLOCK_TIME_IS_VALID (earliest) || segment->format != GST_FORMAT_TIME)
    goto keep;
  qostime = gst_segment_to_running_time (segment, GST_FORMAT_TIME, ts);
  if (!GST_CLOCK_TIME_IS_VALID (qostime) || qostime > earliest)
    goto keep;

  qos->dropped++;
  qos->discont = TRUE;
  GST_DEBUG_OBJECT (element, "QoS: dropping a buffer at running time %"
      GST_TIME_FORMAT ", earliest %" GST_TIME_FORMAT " (%" G_GUINT64_FORMAT
      " dropped)", GST_TIME_ARGS (qostime), GST_TIME_ARGS (earliest),
      qos->dropped);
  post_qos (qos, segment, element, buf, qostime, earliest, proportion);
  return TRUE;

keep:
  qos->processed++;
  return FALSE;
}

GstBuffer *
gst_cuda_overlap_qos_mark (GstCudaOverlapQos * qos, GstBuffer * buf)
{
  if (G_LIKELY (!qos->discont))
    return buf;
  qos->discont = FALSE;
  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}
