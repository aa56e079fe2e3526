/* cudaoverlap: GstCudaOverlapFilter's private struct and lock rules.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The class's core:
 *   gstcudaoverlapfilter.c        class, properties, pads, caps, chain,
 *                                 the push task, events, queries, state
 *                                 changes (in that order)
 *   gstcudaoverlapfilter-life.c   the life cycle: the state machine under
 *                                 priv->lock; engine and pools built, torn
 *                                 down, flushed, drained, rebuilt
 * Units, each with its own state struct (embedded below) and header:
 *   gstcudaoverlapfilter-batch    the batch being filled and its timer
 *   gstcudaoverlapfilter-qos      QoS: late buffers dropped
 *   gstcudaoverlapfilter-stats    statistics and passport messages, trace
 *   gstcudaoverlapfilter-tune     the automatic settings (engine/co-tune.h)
 *   gstcudaoverlapfilter-context  the GstCudaContext shared with the
 *                                 pipeline; whether CUDA memory is possible
 *   gstcudaoverlapfilter-devmem   CUDA-memory pools and input buffers
 *
 * Locks (the rules; every file keeps them):
 *   priv->lock, the state lock, guards every field marked [L] below.  It
 *     is held only for short sections: never while waiting on the device or
 *     the engine (co_engine_acquire/wait_oldest/drain), on a buffer pool, on
 *     the push task (pause/stop/join), or while pushing or posting.
 *   GST_OBJECT_LOCK guards the property values ([O]) and nothing else
 *     (the context unit's fields and the kept statistics structures are
 *     property-like values too).
 *   Order: priv->lock, then the object lock, then the engine's own lock
 *     (co_engine_set_flushing() is called under priv->lock).
 *   [S] fields belong to the streaming thread (chain and serialized events,
 *     which GStreamer runs under the sink pad's stream lock, one at a time):
 *     only it writes them, and it reads them without a lock.  The push task
 *     reads [S] fields only while it runs, and it runs only between an
 *     engine's install and its teardown, which stops it first.
 *   A pointer marked [L,S] is written by the streaming thread (or at a
 *     state change once streaming has stopped) under the lock, and read
 *     without it there; any other thread reads it under the lock.
 *   priv->filling.lock guards the batch being filled ([B]): the streaming
 *     thread and the batch timer, which submits a partial batch once no
 *     buffer has come for a while.  It is taken alone (never with
 *     priv->lock or the object lock held), and it is not held while posting
 *     or while waiting for a slot.
 *   priv->qos.lock guards the QoS values ([Q]); it is taken alone.
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__
#define __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__

#include "gstcudaoverlapfilter.h"
#include "gstcudaoverlapfilter-batch.h"
#include "gstcudaoverlapfilter-context.h"
#include "gstcudaoverlapfilter-devmem.h"
#include "gstcudaoverlapfilter-qos.h"
#include "gstcudaoverlapfilter-stats.h"
#include "gstcudaoverlapfilter-tune.h"

/* Page-locked buffers a pool makes before the first frame; it makes the
 * rest as frames need them (engine/co-hostkeep.h). */
#define CO_FIRST_BUFFERS 2

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_cuda_overlap_filter_debug);

/* The life cycle (docs/architecture.md draws it).  Flushing is not a
 * state but two flags beside it, so that a build or rebuild carries a
 * flush or a shutdown that arrives meanwhile instead of forgetting it. */
typedef enum
{
  LC_IDLE,                      /* no engine (NULL, READY, or no caps yet) */
  LC_RUNNING,                   /* engine, pools; push task unless flushing */
  LC_DRAINING,                  /* the streaming thread waits for every frame
                                 * in flight to be pushed (serialized event) */
  LC_UPDATING,                  /* drained; new parameters being uploaded */
  LC_REBUILDING,                /* engine being torn down and built anew,
                                 * outside the lock */
} LcState;

/* What a property change asks of the engine, strongest last. */
typedef enum
{
  LC_DIRTY_NONE = 0,
  LC_DIRTY_PARAMS = 1,          /* new constants: drain, klass->update */
  LC_DIRTY_REBUILD = 2,         /* new sizes or plan: drain, rebuild */
} LcDirty;

typedef struct
{
  GMutex lock;                  /* the state lock */
  LcState state;                /* [L] */
  LcDirty dirty;                /* [L] */
  gboolean build_failed;        /* [L] the last build posted its error; no
                                 * new build (and error) until something
                                 * changes: a property, the caps, READY */
  gboolean flushing;            /* [L] FLUSH_START (or a lone FLUSH_STOP)
                                 * until FLUSH_STOP */
  gboolean shutdown;            /* [L] PAUSED→READY until READY→PAUSED */
  GstFlowReturn srcresult;      /* [L] FLUSHING while flushing or shut
                                 * down, else OK or downstream's failure */
  CoEngine *engine;             /* [L,S] */
  GstBufferPool *pool;          /* [L,S] output, page-locked on CUDA */
  GstBufferPool *plain_pool;    /* [L,S] output past the budget (made when
                                 * first needed) */
  gboolean warned_plain;        /* [S] */
  guint warned_fallback;        /* [S] g_str_hash | 1 of the reason why
                                 * backend=auto runs on the CPU, last warned
                                 * (0: none) */
  guint warned_gpu_only;        /* [S] the same of the GPU-only settings
                                 * warned about on the CPU backend */
  GstAllocator *allocator;      /* [S] page-locked on CUDA, else g_try_malloc */
  GstBufferPool *staging;       /* [S] input copies (CoMemPath STAGED), CUDA */
  gsize staging_size;           /* [S] */
  guint in_flight_max;          /* [L] the engine's bound, for queries */
  guint batch;                  /* [L,S] images per engine frame, >= 1 */
  guint pool_min;               /* [S] output buffers allocated at build */
  GstCaps *caps;                /* [S] the input caps */
  GstCaps *src_caps;            /* [S] the output caps: the input's, in
                                 * system or CUDA memory (sink_caps) */
  gboolean in_cuda, out_cuda;   /* [S] memory:CUDAMemory on that pad */

  GstCudaOverlapContext context;        /* the shared CUDA context
                                         * (gstcudaoverlapfilter-context.h) */

  /* [S] per engine slot */
  GstCudaOverlapFilterFrame *frames;    /* batch per engine slot */
  guint n_frames;
  guint *slot_images;           /* [B] per slot: images of its submitted
                                 * batch */

  GstCudaOverlapBatch filling;  /* the batch being filled and its timer
                                 * (gstcudaoverlapfilter-batch.h) */
  GstBufferPool *proposed;      /* [S] the pool proposed upstream (a ref) */

  /* A stop (PAUSED→READY) from inside one of the element's own threads'
   * callbacks (a pad probe, a bus sync handler): teardown waits until that
   * thread leaves the element (mark_leave of gstcudaoverlapfilter.c). */
  GThread *deferred_owner;      /* [L] the thread that runs the teardown;
                                 * NULL once it has run */
  gboolean deferred_ctx;        /* [L] READY→NULL came meanwhile too */
  GCond deferred_cond;          /* with priv->lock: deferred_owner cleared */
  GThread *loop_thread;         /* atomic: the thread that last ran the push
                                 * loop (dispose: is it the task's?) */
  gboolean stopping_inside;     /* [L] the push task is stopping the element
                                 * (from PAUSED→READY until its teardown) */

  GstSegment segment;           /* [S] the input segment */
  gboolean passthrough;         /* [S] identity settings: buffers go through
                                 * (others read it with g_atomic_int_get) */
  GstCudaOverlapQos qos;        /* gstcudaoverlapfilter-qos.h */
  GstCudaOverlapTune tune;      /* gstcudaoverlapfilter-tune.h */
  GstCudaOverlapStats stats;    /* gstcudaoverlapfilter-stats.h */

  /* properties [O] */
  guint streams, chunks;
  guint max_in_flight;
  CoWaitMode wait_mode;
  gboolean submit_thread;
  gboolean submit_thread_set;   /* set by the user: never chosen */
  CoMode mode;
  CoBackendKind backend;
  gint device_id;
  guint64 stats_interval;
  gboolean post_messages;
  gchar *trace_file;
  guint64 pool_budget;
} GstCudaOverlapFilterPrivate;

GstCudaOverlapFilterPrivate *gst_cuda_overlap_filter_priv (gpointer self);
#define PRIV(self) gst_cuda_overlap_filter_priv (self)

/* gstcudaoverlapfilter-life.c: the state machine.  Streaming thread: */
GstFlowReturn _gst_cuda_overlap_filter_ensure (GstCudaOverlapFilter * self);
gboolean _gst_cuda_overlap_filter_set_caps (GstCudaOverlapFilter * self,
    GstCaps * caps);
gboolean _gst_cuda_overlap_filter_drain (GstCudaOverlapFilter * self);
gboolean _gst_cuda_overlap_filter_drain_cut (GstCudaOverlapFilter * self);
GstFlowReturn _gst_cuda_overlap_filter_drain_event (GstCudaOverlapFilter *
    self, GstEvent * event);
GstFlowReturn _gst_cuda_overlap_filter_submit_failed (GstCudaOverlapFilter *
    self, GError * err);
void _gst_cuda_overlap_filter_flush_stop (GstCudaOverlapFilter * self);
GstFlowReturn _gst_cuda_overlap_filter_acquire_output (GstCudaOverlapFilter *
    self, GstBuffer ** outbuf);
/* The push task's own thread: the task stops when its loop returns. */
void _gst_cuda_overlap_filter_stop_own_task (GstPad * pad);
/* Any thread: */
void _gst_cuda_overlap_filter_flush_start (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_set_shutdown (GstCudaOverlapFilter * self,
    gboolean shutdown);
/* With streaming stopped (PAUSED→READY, after the pads are deactivated): */
void _gst_cuda_overlap_filter_teardown (GstCudaOverlapFilter * self,
    gboolean on_task);
void _gst_cuda_overlap_filter_no_device_error (GstCudaOverlapFilter * self,
    const gchar * why);
/* Frames: */
void _gst_cuda_overlap_filter_frame_drop (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr);
void _gst_cuda_overlap_filter_release_input (GstCudaOverlapFilterFrame * fr);
void _gst_cuda_overlap_filter_release_read (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr);
void _gst_cuda_overlap_filter_drop_slot (GstCudaOverlapFilter * self,
    guint slot, guint n);
GstFlowReturn _gst_cuda_overlap_filter_srcresult (GstCudaOverlapFilter * self);

/* gstcudaoverlapfilter.c: the push task's function (the life cycle starts
 * it on the source pad). */
void _gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self);

/* The element's two pads. */
static inline GstPad *
srcpad_of (GstCudaOverlapFilter * self)
{
  return GST_ELEMENT (self)->srcpads->data;
}

static inline GstPad *
sinkpad_of (GstCudaOverlapFilter * self)
{
  return GST_ELEMENT (self)->sinkpads->data;
}

/* gstcudaoverlap-trymem.c: memory from g_try_malloc (an allocation that
 * fails returns NULL instead of aborting the process). */
GstAllocator *gst_cuda_overlap_try_allocator_get (void);

G_END_DECLS
#endif
