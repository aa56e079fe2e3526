/* cudaoverlap: GstCudaOverlapFilter internals shared by its two files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstcudaoverlapfilter.c: pads, events, queries, the engine's life cycle and
 *   the two streaming threads.
 * gstcudaoverlapfilter-stats.c: statistics and passport messages, the trace.
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__
#define __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_cuda_overlap_filter_debug);

/* Track ids in the trace file. */
enum
{
  TID_CHAIN = 1,
  TID_WAIT = 2,
  TID_PUSH = 3,
  TID_STREAM0 = 100,            /* + stream * 3 + kind */
};

typedef struct
{
  GMutex lock;
  CoEngine *engine;
  GstCaps *caps;
  gboolean dirty;
  GstBufferPool *pool;          /* output */
  GstAllocator *allocator;      /* page-locked, CUDA backend only */
  GstBufferPool *staging;       /* input copies (CoMemPath STAGED), CUDA only */
  gsize staging_size;
  GstCudaOverlapFilterFrame *frames;    /* batch per engine slot */
  guint n_frames;
  guint batch;                  /* images per engine frame, >= 1 */
  guint *slot_images;           /* per slot: images of its submitted batch */
  CoFrame *pending;             /* a batch being filled (streaming thread) */
  guint pending_n;
  GstFlowReturn srcresult;

  /* statistics: touched by the push thread, and by the streaming thread
   * only while nothing is in flight */
  CoStats *stats;
  guint64 last_post_ns;
  GstStructure *last_stats;
  GstStructure *passport;
  CoTrace *trace;

  /* properties */
  guint streams, chunks;
  guint max_in_flight;
  CoWaitMode wait_mode;
  gboolean submit_thread;
  CoMode mode;
  CoBackendKind backend;
  gint device_id;
  guint64 stats_interval;
  gboolean post_messages;
  gchar *trace_file;
} GstCudaOverlapFilterPrivate;

GstCudaOverlapFilterPrivate *gst_cuda_overlap_filter_priv (gpointer self);
#define PRIV(self) gst_cuda_overlap_filter_priv (self)

/* gstcudaoverlapfilter-stats.c */
const gchar *_gst_cuda_overlap_filter_enum_nick (GType type, gint value);
void _gst_cuda_overlap_filter_post_stats (GstCudaOverlapFilter * self,
    gboolean whole_run);
void _gst_cuda_overlap_filter_post_passport (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize frame_bytes);
void _gst_cuda_overlap_filter_trace_open (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_record_frame (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr, CoFrame * cf, guint64 push_ns);

G_END_DECLS
#endif
