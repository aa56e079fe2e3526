/* cudaoverlap: GstCudaOverlapFilter internals shared by its files.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One file per job:
 *   gstcudaoverlapfilter.c        GObject side: enums, properties, pads made
 *   gstcudaoverlapfilter-pads.c   chain, events, queries, state changes
 *   gstcudaoverlapfilter-life.c   the life cycle: this lock's state machine,
 *                                 engine and pools built, torn down, flushed
 *   gstcudaoverlapfilter-push.c   the push task (src pad GstTask)
 *   gstcudaoverlapfilter-stats.c  statistics and passport messages, trace
 *   gstcudaoverlapfilter-qos.c    QoS (late buffers dropped), passthrough
 *   gstcudaoverlapfilter-tune.c   the automatic settings (engine/co-tune.h)
 *   gstcudaoverlapfilter-caps.c   negotiation: system or CUDA memory per pad
 *   gstcudaoverlapfilter-context.c  the GstCudaContext shared with the
 *                                 pipeline
 *   gstcudaoverlapfilter-devmem.c CUDA-memory pools and input buffers
 *
 * Locks (the rules; every file keeps them):
 *   priv->lock, the state lock, guards every field marked [L] below.  It
 *     is held only for short sections: never while waiting on the device or
 *     the engine (co_engine_acquire/wait_oldest/drain), on a buffer pool, on
 *     the push task (pause/stop/join), or while pushing or posting.
 *   GST_OBJECT_LOCK guards the property values ([O]) and nothing else.
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
 *   priv->batch_lock guards the batch being filled ([B]): the streaming
 *     thread and the batch timer (gstcudaoverlapfilter-batch.c), which
 *     submits a partial batch once no buffer has come for a while.  It is
 *     taken alone (never with priv->lock or the object lock held), and it
 *     is not held while posting or while waiting for a slot.
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__
#define __GST_CUDA_OVERLAP_FILTER_PRIVATE_H__

#include "gstcudaoverlapfilter.h"
#include "co-tune.h"

/* Page-locked buffers a pool makes before the first frame; it makes the
 * rest as frames need them (engine/co-hostkeep.h). */
#define CO_FIRST_BUFFERS 2

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_cuda_overlap_filter_debug);

/* Track ids in the trace file. */
enum
{
  TID_CHAIN = 1,
  TID_WAIT = 2,
  TID_PUSH = 3,
  TID_STREAM0 = 100,            /* + stream * 3 + kind */
};

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

/* The automatic settings (gstcudaoverlapfilter-tune.c): [S], except the
 * device measures, which the push thread writes while @measure is set and
 * hands over by setting @measured (atomics). */
typedef struct
{
  gint phase;                   /* TUNE_* of gstcudaoverlapfilter-tune.c */
  CoTuneInput key;              /* the static input of @choice */
  CoTuneChoice choice;          /* in effect */
  gboolean active;              /* anything chosen automatically */
  gboolean cpu_backend;
  guint batch;                  /* the automatic batch, for configure */
  CoWaitMode wait;              /* in effect */
  gboolean spin_token;          /* counted in the process's spinners */
  gint share_slot;              /* counted in sharers[share_slot] of
                                 * gstcudaoverlapfilter-tune.c; -1: not */
  guint device_engines;         /* on the device at the build, with this */
  guint prev_batch;             /* of the previous build; 0: none */
  /* chain's measures */
  guint64 t_begin, cpu_begin, last_exit, cpu_exit;
  guint64 n_seen, n_host, host_cpu, chain_wall, gap, gap_cpu, n_gap;
  guint64 in_bytes, n_staged;
  /* the push thread's measures */
  guint64 pushed;
  gboolean have_base;
  CoStatsSummary base;
  CoTuneMeasure dev;
  gint measure;
  gint measured;
} GstCudaOverlapFilterTune;

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
  gboolean warned_fallback;     /* [S] backend=auto fell back to the CPU */
  GstAllocator *allocator;      /* [S] page-locked on CUDA, else g_try_malloc */
  GstBufferPool *staging;       /* [S] input copies (CoMemPath STAGED), CUDA */
  gsize staging_size;           /* [S] */
  guint in_flight_max;          /* [L] the engine's bound, for queries */
  guint batch;                  /* [L,S] images per engine frame, >= 1 */
  guint pool_min;               /* [S] output buffers allocated at build */
  GstCaps *caps;                /* [S] the input caps */
  GstCaps *src_caps;            /* [S] the output caps: the input's, in
                                 * system or CUDA memory (-caps.c) */
  gboolean in_cuda, out_cuda;   /* [S] memory:CUDAMemory on that pad */

  /* CUDA memory and the shared CUDA context (gstcudaoverlapfilter-caps.c,
   * gstcudaoverlapfilter-context.c) */
  GstObject *cuda_ctx;          /* [O] the pipeline's GstCudaContext (found
                                 * or made at NULL->READY, or set), NULL
                                 * without one */
  gint cudamem_usable;          /* [O] 0: not asked yet, 1: yes, -1: no */
  guint cudamem_gen;            /* [O] bumped when backend or device change */
  gchar *cudamem_why;           /* [O] why not */
  gboolean warned_cudamem;      /* [S] */

  /* [S] per engine slot */
  GstCudaOverlapFilterFrame *frames;    /* batch per engine slot */
  guint n_frames;
  guint *slot_images;           /* [B] per slot: images of its submitted
                                 * batch */

  /* The batch being filled and its timer (gstcudaoverlapfilter-batch.c) */
  GMutex batch_lock;
  GCond batch_cond;
  CoFrame *pending;             /* [B] a batch being filled */
  guint pending_n;              /* [B] its images */
  gboolean pending_foreign;     /* [B] one of them came from a pool not ours */
  gboolean adding;              /* [B] the streaming thread is adding an
                                 * image: the timer keeps off */
  guint64 last_add_ns;          /* [B] when the last image was added */
  guint64 batch_timeout_ns;     /* [B] a partial batch goes after this */
  guint batch_fill;             /* [B] images that make a batch full: batch,
                                 * or less once upstream showed it cannot
                                 * fill one (a small pool of its own) */
  guint batch_learned;          /* [S] the fill learned for these caps
                                 * (G_MAXUINT: nothing learned), kept across
                                 * rebuilds */
  GstBufferPool *fill_pool;     /* [S] the foreign pool last looked at */
  GThread *batch_timer;         /* [S] while an engine with batch > 1 runs */
  gboolean timer_stop;          /* [B] */
  gboolean timer_idle;          /* [B] the timer waits for a batch to start */
  gint latency_changed;         /* atomic: post a LATENCY message */
  GstBufferPool *proposed;      /* [S] the pool proposed upstream (a ref) */

  /* A stop (PAUSED→READY) from inside one of the element's own threads'
   * callbacks (a pad probe, a bus sync handler): teardown waits until that
   * thread leaves the element (gstcudaoverlapfilter-pads.c). */
  GThread *deferred_owner;      /* [L] the thread that runs the teardown;
                                 * NULL once it has run */
  gboolean deferred_ctx;        /* [L] READY→NULL came meanwhile too */
  GCond deferred_cond;          /* with priv->lock: deferred_owner cleared */
  GThread *loop_thread;         /* atomic: the thread that last ran the push
                                 * loop (dispose: is it the task's?) */
  gboolean stopping_inside;     /* [L] the push task is stopping the element
                                 * (from PAUSED→READY until its teardown) */

  /* QoS and passthrough (gstcudaoverlapfilter-qos.c) */
  GstSegment segment;           /* [S] the input segment */
  gdouble qos_proportion;       /* [O] from the last QOS event */
  GstClockTime qos_earliest;    /* [O] running time; NONE: nothing late */
  guint64 qos_processed;        /* [S] */
  guint64 qos_dropped;          /* [S] */
  gboolean qos_discont;         /* [S] the next buffer follows a dropped one */
  gboolean passthrough;         /* [S] identity settings: buffers go through
                                 * (others read it with g_atomic_int_get) */
  GstCudaOverlapFilterTune tune;

  /* statistics: touched by the push thread, and by the streaming thread
   * only while nothing is in flight (at EOS, in passthrough) */
  CoStats *stats;
  guint64 last_post_ns;
  GstStructure *last_stats;     /* [O] */
  GstStructure *passport;       /* [O] */
  CoTrace *trace;

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
  gboolean qos;
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
GstFlowReturn _gst_cuda_overlap_filter_submit_pending (GstCudaOverlapFilter *
    self);
void _gst_cuda_overlap_filter_cancel_pending (GstCudaOverlapFilter * self);
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
void _gst_cuda_overlap_filter_drop_slot (GstCudaOverlapFilter * self,
    guint slot, guint n);
GstFlowReturn _gst_cuda_overlap_filter_srcresult (GstCudaOverlapFilter * self);

/* gstcudaoverlapfilter-push.c */
void _gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self);

/* gstcudaoverlapfilter-batch.c: the batch being filled and its timer.
 * At a build and a teardown (streaming thread, push task stopped): */
void _gst_cuda_overlap_filter_batch_start (GstCudaOverlapFilter * self,
    guint batch);
void _gst_cuda_overlap_filter_batch_stop (GstCudaOverlapFilter * self);
/* With priv->batch_lock: submits the batch being filled (FALSE with
 * @error when the device calls failed: the frame is queued failed and the
 * push task drops it). */
gboolean _gst_cuda_overlap_filter_submit_pending_locked (GstCudaOverlapFilter
    * self, GError ** error);
/* With priv->batch_lock: drops the batch being filled. */
void _gst_cuda_overlap_filter_cancel_pending_locked (GstCudaOverlapFilter *
    self);
/* Streaming thread, before @buf is added: its pool may make the batch
 * smaller. */
void _gst_cuda_overlap_filter_batch_see_pool (GstCudaOverlapFilter * self,
    GstBuffer * buf);
/* Streaming thread, an image was added (with priv->batch_lock; @foreign:
 * from a pool not ours): the timer counts from now (the caller wakes it
 * when it waits for a batch to start). */
void _gst_cuda_overlap_filter_batch_added_locked (GstCudaOverlapFilter * self,
    gboolean foreign);
/* Streaming thread: a LATENCY message if the batch's bounds changed. */
void _gst_cuda_overlap_filter_batch_post_latency (GstCudaOverlapFilter * self);
/* The batch's bounds for queries (any thread): images per submission now,
 * and how long a partial batch may wait for its next image. */
void _gst_cuda_overlap_filter_batch_bounds (GstCudaOverlapFilter * self,
    guint * fill, GstClockTime * timeout);

/* Saturating time arithmetic (GST_CLOCK_TIME_NONE stays NONE). */
GstClockTime _gst_cuda_overlap_time_add (GstClockTime a, GstClockTime b);
GstClockTime _gst_cuda_overlap_time_mul (GstClockTime a, guint64 n);

/* gstcudaoverlapfilter-pads.c: a thread inside one of @self's pad
 * functions or its push loop is marked (@mark lives on its stack); a stop
 * (PAUSED→READY) on a marked thread is carried out when it leaves the
 * element (@on_task: it is the push task's thread). */
typedef struct _GstCudaOverlapFilterMark GstCudaOverlapFilterMark;
struct _GstCudaOverlapFilterMark
{
  GstCudaOverlapFilter *self;
  gboolean on_task;
  GstCudaOverlapFilterMark *up;
};
void _gst_cuda_overlap_filter_mark_enter (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterMark * mark, gboolean on_task);
void _gst_cuda_overlap_filter_mark_leave (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterMark * mark, gboolean on_task);
/* Whether the calling thread is marked for @self (@task_only: as its push
 * task). */
gboolean _gst_cuda_overlap_filter_in_callbacks (GstCudaOverlapFilter * self,
    gboolean task_only);
/* Any other thread (a state change, dispose): waits until a deferred
 * teardown has run. */
void _gst_cuda_overlap_filter_wait_deferred (GstCudaOverlapFilter * self);

/* gstcudaoverlapfilter-pads.c */
/* Adds @pool (taken; NULL: nothing) to an ALLOCATION answer with its
 * configured buffer size, @n buffers at least, no maximum; returns that
 * size (0: no pool). */
guint _gst_cuda_overlap_filter_offer_pool (GstQuery * query,
    GstBufferPool * pool, guint n);
/* Pushes @event on @srcpad; a refusal while the pad flushes is FLUSHING. */
GstFlowReturn _gst_cuda_overlap_filter_push_event (GstPad * srcpad,
    GstEvent * event);
void _gst_cuda_overlap_filter_setup_pads (GstCudaOverlapFilter * self);
GstStateChangeReturn _gst_cuda_overlap_filter_change_state (GstElement *
    element, GstStateChange transition);

/* gstcudaoverlapfilter-stats.c */
void _gst_cuda_overlap_filter_post_stats (GstCudaOverlapFilter * self,
    gboolean whole_run);
void _gst_cuda_overlap_filter_post_passport (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize frame_bytes);
void _gst_cuda_overlap_filter_trace_open (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_record_frame (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr, CoFrame * cf, guint64 push_ns);
void _gst_cuda_overlap_filter_maybe_post_stats (GstCudaOverlapFilter * self,
    guint64 now);
void _gst_cuda_overlap_filter_post_eos_stats (GstCudaOverlapFilter * self);

/* gstcudaoverlapfilter-qos.c.  Src pad, any thread: */
void _gst_cuda_overlap_filter_qos_event (GstCudaOverlapFilter * self,
    GstEvent * event);
/* Streaming thread (or a state change once streaming stopped): */
void _gst_cuda_overlap_filter_qos_reset (GstCudaOverlapFilter * self);
gboolean _gst_cuda_overlap_filter_qos_drop (GstCudaOverlapFilter * self,
    GstBuffer * buf);
GstBuffer *_gst_cuda_overlap_filter_qos_mark (GstCudaOverlapFilter * self,
    GstBuffer * buf);
GstFlowReturn _gst_cuda_overlap_filter_check_passthrough (GstCudaOverlapFilter
    * self);
GstFlowReturn _gst_cuda_overlap_filter_push_through (GstCudaOverlapFilter *
    self, GstBuffer * buf, guint64 t0);

/* gstcudaoverlapfilter-tune.c.  Streaming thread: */
void _gst_cuda_overlap_filter_tune_config (GstCudaOverlapFilter * self,
    GstCaps * caps, CoEngineConfig * cfg);
void _gst_cuda_overlap_filter_tune_built (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_tune_begin (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_tune_end (GstCudaOverlapFilter * self,
    gsize size, gboolean staged);
/* With streaming stopped (PAUSED→READY): */
void _gst_cuda_overlap_filter_tune_reset (GstCudaOverlapFilter * self);
/* The push thread: */
void _gst_cuda_overlap_filter_tune_pushed (GstCudaOverlapFilter * self,
    guint n);
/* gstcudaoverlapfilter-caps.c: negotiation (system or CUDA memory per
 * pad).  Any thread: */
gboolean _gst_cuda_overlap_filter_cuda_memory_usable (GstCudaOverlapFilter *
    self, gchar ** why);
gboolean _gst_cuda_overlap_filter_query_caps (GstCudaOverlapFilter * self,
    GstPad * pad, GstQuery * query);
gboolean _gst_cuda_overlap_filter_query_accept_caps (GstCudaOverlapFilter *
    self, GstPad * pad, GstQuery * query);
/* Streaming thread, the CAPS event: drains, decides the output caps,
 * pushes them and rebuilds. */
GstFlowReturn _gst_cuda_overlap_filter_sink_caps (GstCudaOverlapFilter * self,
    GstEvent * event);
/* Streaming thread, before a buffer: a RECONFIGURE from downstream. */
GstFlowReturn _gst_cuda_overlap_filter_reconfigure (GstCudaOverlapFilter *
    self);

/* gstcudaoverlapfilter-context.c: the GstCudaContext shared with the
 * pipeline's other CUDA elements. */
void _gst_cuda_overlap_filter_set_context (GstElement * element,
    GstContext * context);
gboolean _gst_cuda_overlap_filter_query_context (GstCudaOverlapFilter * self,
    GstQuery * query);
/* NULL->READY (found, or the primary context wrapped) and READY->NULL: */
void _gst_cuda_overlap_filter_ensure_context (GstCudaOverlapFilter * self);
void _gst_cuda_overlap_filter_release_context (GstCudaOverlapFilter * self);
/* A reference to the context, or NULL; @handle its CUcontext, @device its
 * device (either may be NULL). */
GstObject *_gst_cuda_overlap_filter_cuda_context (GstCudaOverlapFilter *
    self, gpointer * handle, gint * device);

/* gstcudaoverlapfilter-devmem.c: memory:CUDAMemory buffers (streaming
 * thread). */
GstBufferPool *_gst_cuda_overlap_filter_cuda_pool (GstCudaOverlapFilter *
    self, GstCaps * caps, gsize size, guint * downstream_min);
gboolean _gst_cuda_overlap_filter_propose_cuda_pool (GstCudaOverlapFilter *
    self, GstQuery * query, GstCaps * caps, guint n);
gboolean _gst_cuda_overlap_filter_check_cuda_input (GstCudaOverlapFilter *
    self, GstBuffer * buf);

/* gstcudaoverlap-trymem.c: memory from g_try_malloc (an allocation that
 * fails returns NULL instead of aborting the process). */
GstAllocator *gst_cuda_overlap_try_allocator_get (void);

G_END_DECLS
#endif
