/* cudaoverlap: Quality of Service of GstCudaOverlapFilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * QoS as GstBaseTransform does it: a QOS event from downstream (src pad,
 * any thread) sets the earliest running time worth processing; chain
 * (streaming thread) drops an input buffer whose start is at or before it,
 * posts a QOS message, and marks the next buffer that goes on DISCONT (a
 * subclass that keeps stream state, like the audio element's FIR history,
 * restarts it there).  Enabled by the subclasses' `qos` property, whose
 * default each subclass chooses.
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_QOS_H__
#define __GST_CUDA_OVERLAP_FILTER_QOS_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* @lock guards the fields marked [Q]; it is taken alone, for a few reads
 * or writes, never with another lock held.  [S]: the streaming thread's
 * (or a state change's once streaming stopped). */
    typedef struct
{
  GMutex lock;
  gboolean enabled;             /* [Q] the `qos` property */
  gdouble proportion;           /* [Q] from the last QOS event */
  GstClockTime earliest;        /* [Q] running time; NONE: nothing late */
  guint64 processed;            /* [S] */
  guint64 dropped;              /* [S] */
  gboolean discont;             /* [S] the next buffer follows a dropped one */
} GstCudaOverlapQos;

void gst_cuda_overlap_qos_init (GstCudaOverlapQos * qos);
void gst_cuda_overlap_qos_clear (GstCudaOverlapQos * qos);
void gst_cuda_overlap_qos_set_enabled (GstCudaOverlapQos * qos,
    gboolean enabled);
gboolean gst_cuda_overlap_qos_get_enabled (GstCudaOverlapQos * qos);
/* A QOS event (src pad, any thread). */
void gst_cuda_overlap_qos_event (GstCudaOverlapQos * qos, GstEvent * event);
/* A new segment, a flush: no lateness known. */
void gst_cuda_overlap_qos_reset (GstCudaOverlapQos * qos);
/* READY→PAUSED: no lateness known, the counters at zero. */
void gst_cuda_overlap_qos_start (GstCudaOverlapQos * qos);
/* Streaming thread: TRUE when @buf (in @segment) is too late to be worth
 * processing: it is counted and a QOS message posted by @element; the
 * caller drops it. */
gboolean gst_cuda_overlap_qos_drop (GstCudaOverlapQos * qos,
    const GstSegment * segment, GstElement * element, GstBuffer * buf);
/* Streaming thread: @buf, flagged DISCONT when it follows a dropped one. */
GstBuffer *gst_cuda_overlap_qos_mark (GstCudaOverlapQos * qos, GstBuffer * buf);

G_END_DECLS
#endif
