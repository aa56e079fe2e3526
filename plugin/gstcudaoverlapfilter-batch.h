/* cudaoverlap: the batch GstCudaOverlapFilter is filling, and its timer
 * (gstcudaoverlapfilter-batch.c explains when a batch goes and how it
 * learns a smaller size).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_BATCH_H__
#define __GST_CUDA_OVERLAP_FILTER_BATCH_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
/* How many pool-less inputs the batch remembers (their bytes' address). */
#define GST_CUDA_OVERLAP_BATCH_SEEN 64
/* @lock guards the fields marked [B]: the streaming thread and the timer
 * take it.  It is taken alone (never with the element's state lock or
 * object lock held), and it is not held while posting or while waiting for
 * a slot.  [S]: the streaming thread's. */
    typedef struct
{
  GMutex lock;
  GCond cond;                   /* wakes the timer */
  CoFrame *frame;               /* [B] the engine frame being filled */
  guint n;                      /* [B] its images */
  gboolean foreign;             /* [B] one of them came from a pool not ours */
  gboolean adding;              /* [B] the streaming thread is adding an
                                 * image: the timer keeps off */
  guint64 last_add_ns;          /* [B] when the last image was added */
  guint64 timeout_ns;           /* [B] a partial batch goes after this */
  guint fill;                   /* [B] images that make a batch full: the
                                 * batch, or less once upstream showed it
                                 * cannot fill one (a small pool of its own) */
  guint learned;                /* [S] the fill learned for these caps
                                 * (G_MAXUINT: nothing learned), kept across
                                 * rebuilds */
  GstBufferPool *fill_pool;     /* [S] the foreign pool last looked at */
  /* [S] where the bytes of the last pool-less inputs were (a ring, compared
   * and never dereferenced), the next one at @seen_pos */
  gconstpointer seen[GST_CUDA_OVERLAP_BATCH_SEEN];
  guint seen_pos;
  gint ring;                    /* atomic: how many buffers upstream cycles
                                 * through (its pool's maximum, or the ring
                                 * seen), 0: not known */
  GThread *timer;               /* [S] while an engine with batch > 1 runs */
  gboolean timer_stop;          /* [B] */
  gboolean timer_idle;          /* [B] the timer waits for a batch to start */
  gint latency_changed;         /* atomic: post a LATENCY message */
} GstCudaOverlapBatch;

void gst_cuda_overlap_batch_init (GstCudaOverlapBatch * b);
void gst_cuda_overlap_batch_clear (GstCudaOverlapBatch * b);
/* New caps or READY: nothing learned, no pool of upstream's known (a pool
 * reconfigured for new caps may have another maximum). */
void gst_cuda_overlap_batch_forget (GstCudaOverlapBatch * b);
/* co_tune_ring_bound() for the ring seen so far: whether upstream waits
 * for the element to let its buffers go.  Any thread. */
gboolean gst_cuda_overlap_batch_ring_bound (GstCudaOverlapBatch * b,
    guint in_flight, guint batch);

/* At a build, the engine installed: @batch images per engine frame. */
void gst_cuda_overlap_batch_start (GstCudaOverlapFilter * self, guint batch);
/* At a teardown, before what is in flight is dropped: the timer stops; the
 * batch learned is kept for the next build of the same caps. */
void gst_cuda_overlap_batch_stop (GstCudaOverlapFilter * self);
/* Submits the batch being filled, if any (FALSE with @error when the
 * device calls failed: the frame is queued failed and the push task drops
 * it).  The streaming thread, before a serialized event or a DRAIN. */
gboolean gst_cuda_overlap_batch_submit (GstCudaOverlapFilter * self,
    GError ** error);
/* Drops the batch being filled, if any (flush, shutdown). */
void gst_cuda_overlap_batch_cancel (GstCudaOverlapFilter * self);
/* Streaming thread, before @buf is added: its pool, or (without a pool)
 * the ring of buffers upstream cycles through, may make the batch
 * smaller. */
void gst_cuda_overlap_batch_see_pool (GstCudaOverlapFilter * self,
    GstBuffer * buf);
/* Streaming thread, adding an image to the batch: begin_add marks the
 * batch busy (the timer keeps off) and returns the engine frame being
 * filled, or NULL when the caller must acquire one and set it with
 * set_frame (NULL there too when flushing).  end_add counts the image
 * (@added; @foreign: from a pool not ours) or, not added, gives back a
 * batch with no image yet; it submits a full batch (FALSE with @error when
 * that failed) and wakes the timer for a partial one. */
CoFrame *gst_cuda_overlap_batch_begin_add (GstCudaOverlapBatch * b);
/* Between begin_add and end_add: the image's place in the batch (read
 * without the lock: the count is the adding thread's meanwhile). */
guint gst_cuda_overlap_batch_next_image (GstCudaOverlapBatch * b);
void gst_cuda_overlap_batch_set_frame (GstCudaOverlapBatch * b, CoFrame * cf);
gboolean gst_cuda_overlap_batch_end_add (GstCudaOverlapFilter * self,
    gboolean added, gboolean foreign, GError ** error);
/* Streaming thread: a LATENCY message from @element if the batch's bounds
 * changed. */
void gst_cuda_overlap_batch_post_latency (GstCudaOverlapBatch * b,
    GstElement * element);
/* Any thread: images per submission now, and how long a partial batch may
 * wait for its next image. */
void gst_cuda_overlap_batch_bounds (GstCudaOverlapBatch * b, guint * fill,
    GstClockTime * timeout);

/* Saturating time arithmetic (GST_CLOCK_TIME_NONE stays NONE). */
GstClockTime gst_cuda_overlap_time_add (GstClockTime a, GstClockTime b);
GstClockTime gst_cuda_overlap_time_mul (GstClockTime a, guint64 n);

G_END_DECLS
#endif
