/* cudaoverlap: abstract base of the elements that run on the overlap engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The base class's core is two files.  This one reads top to bottom as a
 * frame goes: the class and its properties, the pads, negotiation, then
 * chain (upstream's streaming thread: a buffer into an engine slot and onto
 * the device), the push task (the source pad's thread: the finished frame
 * downstream), events, queries and state changes.  The life cycle (the one
 * state machine, under the state lock: build, teardown, flush, drain,
 * rebuild) is gstcudaoverlapfilter-life.c.  Beside them, units with their
 * own state and header: the batch being filled and its timer (-batch),
 * QoS (-qos), statistics, passport and trace (-stats), the automatic
 * settings (-tune), the shared CUDA context (-context) and CUDA-memory
 * pools (-devmem).  gstcudaoverlapfilter-private.h holds the private
 * struct and the lock rules every file keeps.
 */
/**
 * SECTION:gstcudaoverlapfilter
 * @title: GstCudaOverlapFilter
 * @short_description: base of the cudaoverlap elements: the overlap engine,
 *   page-locked pools, statistics
 *
 * Properties shared by `cudavideofilter` and `cudaaudiofilter`: `streams`,
 * `chunks`, `mode` (`overlap`, or `serial`: the sequential control),
 * `max-in-flight`, `wait-mode` (`blocking`, `spin` for the lowest
 * latency, or `auto`), `submit-thread`, `backend` (`auto`, `cuda`, `cpu`),
 * `cuda-device-id`,
 * `stats-interval`,
 * `post-messages`, `stats`, `passport`, `pool-budget`, `trace-file`.
 *
 * ## Messages
 *
 * `cudaoverlap-passport` (element message, once when streaming starts;
 * also the `passport` property) and `cudaoverlap-stats` (element message
 * every `stats-interval` ns and at EOS, the last one with `whole-run` =
 * TRUE; also the `stats` property).  docs/stats.md gives every field's
 * type, unit and definition; it and the two lists below are generated from
 * engine/co-stats-fields.c (`make docs-fields`; the `stats-docs` test
 * checks them).
 *
 * `cudaoverlap-passport`:
 * <!-- fields:cudaoverlap-passport names begin -->
 * `device-name`, `compute-capability`, `pci-bus-id`, `driver-version`,
 * `runtime-version`, `async-engine-count`, `concurrent-kernels`, `streams`,
 * `chunks`, `max-in-flight`, `batch`, `mode`, `wait-mode`, `submit-thread`,
 * `auto`, `auto-reason`, `device-engines`, `backend`, `backend-reason`,
 * `operation`, `memory-in`, `memory-out`, `caps`, `frame-bytes`,
 * `plugin-version`, `kernel-compile-ms`, `kernel-cache`.
 * <!-- fields:cudaoverlap-passport names end -->
 *
 * `cudaoverlap-stats`:
 * <!-- fields:cudaoverlap-stats names begin -->
 * `timestamp`, `duration`, `stream-time`, `running-time`, `frames`,
 * `bytes-h2d`, `bytes-d2h`, `window-ns`, `fps`, `h2d-ns`, `kernel-ns`,
 * `d2h-ns`, `gpu-busy-ns`, `gpu-idle-ns`, `serial-ns`, `overlap-efficiency`,
 * `copy-compute-overlap-ns`, `h2d-d2h-overlap-ns`, `latency-min`,
 * `latency-mean`, `latency-p50`, `latency-p95`, `latency-p99`, `latency-max`,
 * `gpu-latency-p50`, `gpu-latency-p99`, `frames-pinned`, `frames-registered`,
 * `frames-pageable`, `frames-staged`, `frames-passthrough`, `frames-device`,
 * `streams`, `chunks`, `mode`, `backend`, `operation`, `passthrough`,
 * `first-frame-ns`, `settled-ns`, `whole-run`.
 * <!-- fields:cudaoverlap-stats names end -->
 *
 * Automatic settings: `streams` and `chunks` at 0, `wait-mode=auto` (and
 * `cudavideofilter`'s `batch` at 0), the defaults, are chosen by the
 * element from the device, the caps, whether upstream is live and, after
 * the first frames, their measured device and host times; an explicit
 * value is kept.  The passport says what was chosen and why (`auto`,
 * `auto-reason`); docs/PERFORMANCE.md has the rules.
 *
 * Each operation's interval comes from CUDA events around it in its stream
 * and so also holds any wait for its engine; docs/stats.md compares them
 * with CUPTI.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstcudaoverlap-nvtx.h"

#include "gstcudaoverlapfilter.h"
#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"
#include "co-fault.h"

GST_DEBUG_CATEGORY (gst_cuda_overlap_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

static GstStateChangeReturn gst_cuda_overlap_filter_change_state (GstElement *
    element, GstStateChange transition);
static void setup_pads (GstCudaOverlapFilter * self);
static GstFlowReturn gst_cuda_overlap_filter_chain (GstPad * pad,
    GstObject * parent, GstBuffer * buf);
static GstFlowReturn gst_cuda_overlap_filter_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_cuda_overlap_filter_sink_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static gboolean gst_cuda_overlap_filter_src_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_cuda_overlap_filter_src_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static gboolean gst_cuda_overlap_filter_src_activate_mode (GstPad * pad,
    GstObject * parent, GstPadMode mode, gboolean active);
/* a stop from inside the element (the end of this file) */
typedef struct _Mark Mark;
/* A thread inside one of @self's pad functions or its push loop (@on_task);
 * @up: the thread's mark of the call around this one. */
struct _Mark
{
  GstCudaOverlapFilter *self;
  gboolean on_task;
  Mark *up;
};
static void mark_enter (GstCudaOverlapFilter * self, Mark * m,
    gboolean on_task);
static void mark_leave (GstCudaOverlapFilter * self, Mark * m,
    gboolean on_task);
static gboolean in_callbacks (GstCudaOverlapFilter * self, gboolean task_only);
static void wait_deferred (GstCudaOverlapFilter * self);
static GstFlowReturn push_event (GstPad * srcpad, GstEvent * event);

/* 0: automatic (gstcudaoverlapfilter-tune.c) */
#define DEFAULT_STREAMS 0
#define DEFAULT_CHUNKS 0
#define DEFAULT_MODE CO_MODE_OVERLAP
#define DEFAULT_BACKEND CO_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_STATS_INTERVAL GST_SECOND
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_MAX_IN_FLIGHT 0
#define DEFAULT_WAIT_MODE CO_WAIT_AUTO
#define DEFAULT_SUBMIT_THREAD FALSE
#define MAX_MAX_IN_FLIGHT 64
/* ~16 4K RGBA frames of page-locked output buffers */
#define DEFAULT_POOL_BUDGET (G_GUINT64_CONSTANT (512) << 20)

enum
{
  PROP_0,
  PROP_STREAMS,
  PROP_CHUNKS,
  PROP_MODE,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_STATS_INTERVAL,
  PROP_POST_MESSAGES,
  PROP_STATS,
  PROP_PASSPORT,
  PROP_TRACE_FILE,
  PROP_MAX_IN_FLIGHT,
  PROP_WAIT_MODE,
  PROP_SUBMIT_THREAD,
  PROP_POOL_BUDGET,
};


G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaOverlapFilter,
    gst_cuda_overlap_filter, GST_TYPE_ELEMENT);

GstCudaOverlapFilterPrivate *
gst_cuda_overlap_filter_priv (gpointer self)
{
  return gst_cuda_overlap_filter_get_instance_private (GST_CUDA_OVERLAP_FILTER
      (self));
}

GType
gst_cuda_overlap_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CO_MODE_OVERLAP, "Chunks of several frames on several streams at once",
        "overlap"},
    {CO_MODE_SERIAL, "Sequential control: one stream, one chunk, each frame "
          "finished before the next is taken", "serial"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaOverlapMode",
            values));
  return type;
}

GType
gst_cuda_overlap_wait_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CO_WAIT_BLOCKING, "Sleep until the device signals the frame done "
          "(little CPU; adds a thread wake-up to each frame's latency)",
        "blocking"},
    {CO_WAIT_SPIN, "Poll the device until the frame is done (lowest "
          "latency; keeps a CPU core busy while frames are in flight)",
        "spin"},
    {CO_WAIT_AUTO, "Spin for live video sources (a frame keeping the "
          "device busy less than half the frame interval) and for "
          "upstreams that wait for their own few buffers back, while at "
          "most two elements of the process spin, else blocking", "auto"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaOverlapWaitMode", values));
  return type;
}

GType
gst_cuda_overlap_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CO_BACKEND_AUTO, "CUDA when a device is usable, else CPU", "auto"},
    {CO_BACKEND_CUDA, "CUDA (an error if no device is usable)", "cuda"},
    {CO_BACKEND_CPU, "CPU worker threads, same results", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstCudaOverlapBackend",
            values));
  return type;
}

static void gst_cuda_overlap_filter_constructed (GObject * object);
static void gst_cuda_overlap_filter_dispose (GObject * object);
static void gst_cuda_overlap_filter_finalize (GObject * object);
static void gst_cuda_overlap_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_overlap_filter_get_property (GObject * object, guint id,
    GValue * value, GParamSpec * pspec);

/* How frames are spread over the device: streams, chunks, mode, frames in
 * flight. */
static void
install_parallel_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaOverlapFilter:streams:
   *
   * Number of CUDA streams (CPU backend: worker threads) that chunks are
   * spread over (overlap mode).  0: automatic: the copy engines + 1 (at
   * least 2), two per chunk for live sources; CPU backend: one per core,
   * at most 8.  Elements of one process on one device share its 8
   * hardware queues (CPU backend: the cores).
   */
  g_object_class_install_property (gobject_class, PROP_STREAMS,
      g_param_spec_uint ("streams", "Streams",
          "Streams (CPU: worker threads) the chunks are spread over "
          "(0: automatic)", 0, CO_MAX_STREAMS, DEFAULT_STREAMS, rw));
  /**
   * GstCudaOverlapFilter:chunks:
   *
   * Number of chunks each frame is split into, each copied and computed
   * on its own stream (overlap mode; fewer when the frame is too small).
   * 0: automatic: 1 for throughput while the kernel is cheaper than the
   * copies (measured on the first frames), else one per 4 MiB of frame,
   * at most 4; for live sources one per 4 MiB, at most 8; 1 with CUDA
   * memory on both pads (no copies to overlap); CPU backend: one per
   * worker for frames of 256 KiB or more.
   */
  g_object_class_install_property (gobject_class, PROP_CHUNKS,
      g_param_spec_uint ("chunks", "Chunks",
          "Chunks each frame is cut into (0: automatic)", 0, CO_MAX_CHUNKS,
          DEFAULT_CHUNKS, rw));
  /**
   * GstCudaOverlapFilter:mode:
   *
   * `overlap`, or `serial`: the sequential control (one stream, one chunk,
   * wait for each frame before taking the next).
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "overlap, or serial: one stream, one chunk, one frame at a time",
          GST_TYPE_CUDA_OVERLAP_MODE, DEFAULT_MODE, rw));
  /**
   * GstCudaOverlapFilter:max-in-flight:
   *
   * Most frames queued on the device at once (overlap mode).  Each holds
   * its own device memory; more hides more jitter, fewer keeps latency
   * under load low.  0: automatic, max (4, streams + 2).
   */
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Frames in flight",
          "Most frames queued on the device at once (0: automatic)",
          0, MAX_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT, rw));
}

/* The engine's settings: where and how frames run. */
static void
install_engine_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  install_parallel_properties (gobject_class);
  /**
   * GstCudaOverlapFilter:wait-mode:
   *
   * How the push thread waits for a frame's device work (CUDA backend; the
   * CPU backend ignores it): `blocking` for throughput and low CPU, `spin`
   * for the lowest latency (live sources), `auto` to let the element
   * choose.
   */
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "How to wait for the device: blocking, spin (lowest latency) or auto",
          GST_TYPE_CUDA_OVERLAP_WAIT_MODE, DEFAULT_WAIT_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaOverlapFilter:submit-thread:
   *
   * Make the device calls that queue a frame (copies, kernels, events) on
   * a thread of the element instead of the upstream streaming thread, so
   * GStreamer's per-buffer work and the device calls run on two cores: for
   * small frames at high rates, where the upstream thread is the
   * bottleneck.  Adds a hand-over, which costs latency when the thread has
   * to be woken (live sources).
   *
   * Unless set, the element turns it on by itself for a non-live source
   * whose frames it stages (pageable memory seen once, copied into
   * page-locked memory): the next frame's copies then run while this
   * one's are finished and queued.
   */
  g_object_class_install_property (gobject_class, PROP_SUBMIT_THREAD,
      g_param_spec_boolean ("submit-thread", "Submit thread",
          "Queue the device work on a thread of the element's own",
          DEFAULT_SUBMIT_THREAD, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaOverlapFilter:backend:
   *
   * Where the work runs: `auto` picks CUDA when a device is usable and the
   * CPU otherwise, `cuda` insists on a device (an error if none is
   * usable), `cpu` runs the same operations on worker threads with the
   * same results.  The passport's `backend` says which one runs.
   */
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the work runs: auto picks CUDA when a device is usable",
          GST_TYPE_CUDA_OVERLAP_BACKEND, DEFAULT_BACKEND,
          rw | GST_PARAM_MUTABLE_READY));
  /**
   * GstCudaOverlapFilter:cuda-device-id:
   *
   * The CUDA device to use, by its CUDA index (-1: the first one).  The
   * CPU backend uses no device.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: the first one)", -1, 1023,
          DEFAULT_DEVICE_ID, rw | GST_PARAM_MUTABLE_READY));
}

/* Statistics and passport. */
static void
install_stats_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  /**
   * GstCudaOverlapFilter:stats-interval:
   *
   * Interval between `cudaoverlap-stats` messages, in nanoseconds.  0:
   * only the whole-run message at EOS (`whole-run` TRUE), which is posted
   * in any case.
   */
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Statistics interval",
          "Interval between cudaoverlap-stats messages in ns (0: only at EOS)",
          0, G_MAXUINT64, DEFAULT_STATS_INTERVAL,
          rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaOverlapFilter:post-messages:
   *
   * Post the `cudaoverlap-stats` and `cudaoverlap-passport` element
   * messages on the bus.  The `stats` and `passport` properties hold the
   * same structures either way.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post cudaoverlap-stats and cudaoverlap-passport messages on the bus",
          DEFAULT_POST_MESSAGES, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaOverlapFilter:stats:
   *
   * The latest `cudaoverlap-stats` structure, as posted (NULL before the
   * first).  docs/stats.md describes its fields.
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "The latest cudaoverlap-stats structure (NULL before the first)",
          GST_TYPE_STRUCTURE, ro));
  /**
   * GstCudaOverlapFilter:passport:
   *
   * The `cudaoverlap-passport` structure of the current run: the device,
   * the versions and the settings in effect (NULL before streaming
   * starts).  docs/stats.md describes its fields.
   */
  g_object_class_install_property (gobject_class, PROP_PASSPORT,
      g_param_spec_boxed ("passport", "Passport",
          "The cudaoverlap-passport of the current run (NULL before streaming)",
          GST_TYPE_STRUCTURE, ro));
}

/* Statistics, passport, trace and memory. */
static void
install_output_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  install_stats_properties (gobject_class);
  /**
   * GstCudaOverlapFilter:pool-budget:
   *
   * Most bytes of page-locked output buffers (CUDA backend).  When
   * downstream holds buffers (an encoder's look-ahead, a tee branch, an
   * application), the output pool grows up to this instead of waiting;
   * past it, output buffers are plain memory (one warning), whose
   * device-to-host copies are synchronous.
   *
   * The pool makes 2 buffers before the first frame and the rest as frames
   * need them (at least those in flight); at READY they go to the
   * process's keep of page-locked memory, for the next pipeline (freed
   * after 10 s unused).
   */
  g_object_class_install_property (gobject_class, PROP_POOL_BUDGET,
      g_param_spec_uint64 ("pool-budget", "Output pool budget",
          "Most bytes of page-locked output buffers (CUDA backend)",
          0, G_MAXUINT64, DEFAULT_POOL_BUDGET, rw | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstCudaOverlapFilter:trace-file:
   *
   * Write a Chrome trace-event JSON timeline (Perfetto,
   * chrome://tracing) of every copy, kernel and host step to this file
   * (NULL: none).
   */
  g_object_class_install_property (gobject_class, PROP_TRACE_FILE,
      g_param_spec_string ("trace-file", "Trace file",
          "Chrome trace-event JSON timeline file of the work (NULL: none)",
          NULL, rw | GST_PARAM_MUTABLE_READY));
}

static void
gst_cuda_overlap_filter_class_init (GstCudaOverlapFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->constructed = gst_cuda_overlap_filter_constructed;
  gobject_class->dispose = gst_cuda_overlap_filter_dispose;
  gobject_class->finalize = gst_cuda_overlap_filter_finalize;
  gobject_class->set_property = gst_cuda_overlap_filter_set_property;
  gobject_class->get_property = gst_cuda_overlap_filter_get_property;
  element_class->change_state = gst_cuda_overlap_filter_change_state;
  element_class->set_context = gst_cuda_overlap_context_set;

  install_engine_properties (gobject_class);
  install_output_properties (gobject_class);
  /* metas without tags; the subclasses say what else holds */
  gst_cuda_overlap_meta_rule_init (&klass->meta_rule, 0, NULL);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_OVERLAP_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_OVERLAP_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_OVERLAP_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_OVERLAP_WAIT_MODE, 0);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_filter_debug, "cudaoverlap", 0,
      "cudaoverlap engine element base");
}

static void
gst_cuda_overlap_filter_init (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_init (&priv->lock);
  gst_cuda_overlap_batch_init (&priv->filling);
  gst_cuda_overlap_qos_init (&priv->qos);
  gst_cuda_overlap_tune_init (&priv->tune);
  g_cond_init (&priv->deferred_cond);
  priv->streams = DEFAULT_STREAMS;
  priv->chunks = DEFAULT_CHUNKS;
  priv->mode = DEFAULT_MODE;
  priv->wait_mode = DEFAULT_WAIT_MODE;
  priv->submit_thread = DEFAULT_SUBMIT_THREAD;
  priv->backend = DEFAULT_BACKEND;
  priv->device_id = DEFAULT_DEVICE_ID;
  priv->stats_interval = DEFAULT_STATS_INTERVAL;
  priv->post_messages = DEFAULT_POST_MESSAGES;
  priv->pool_budget = DEFAULT_POOL_BUDGET;
  gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
  priv->srcresult = GST_FLOW_FLUSHING;
}

/* An element made without a name is named after its element name and a
 * count ("cudavideofilter0"), not after its type ("cudaoverlapvideofilter0":
 * the types have a namespace of their own, the element names none). */
static void
keep_default_name (GstObject * object)
{
  static GMutex lock;
  static GHashTable *counts;
  gchar *type = g_ascii_strdown (G_OBJECT_TYPE_NAME (object) + 3, -1);
  gchar *name = GST_OBJECT_NAME (object), *want = NULL, *elem;
  gsize n = strlen (type);

  /* "cudaoverlapvideofilter" -> "cudavideofilter" */
  if (g_str_has_prefix (type, "cudaoverlap") && name &&
      g_str_has_prefix (name, type) && strspn (name + n, "0123456789") ==
      strlen (name + n) && name[n]) {
    elem = g_strconcat ("cuda", type + strlen ("cudaoverlap"), NULL);
    g_mutex_lock (&lock);
    if (!counts)
      counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, elem));
    g_hash_table_insert (counts, g_strdup (elem), GUINT_TO_POINTER (n + 1));
    g_mutex_unlock (&lock);
    want = g_strdup_printf ("%s%" G_GSIZE_FORMAT, elem, n);
    gst_object_set_name (object, want);
    g_free (elem);
  }
  g_free (want);
  g_free (type);
}

static void
gst_cuda_overlap_filter_constructed (GObject * object)
{
  G_OBJECT_CLASS (gst_cuda_overlap_filter_parent_class)->constructed (object);
  keep_default_name (GST_OBJECT (object));
  /* the pads come from the subclass's templates, which instance init of
   * this abstract class cannot see yet */
  setup_pads (GST_CUDA_OVERLAP_FILTER (object));
}

static void
task_left (GstTask * task G_GNUC_UNUSED, GThread * thread G_GNUC_UNUSED,
    gpointer pad G_GNUC_UNUSED)
{
}

/* A stop from inside the element leaves its teardown to the thread it came
 * from (mark_leave): the application may drop its last
 * reference meanwhile; the pads (and the push task) go only after it. */
static void
gst_cuda_overlap_filter_dispose (GObject * object)
{
  GstElement *element = GST_ELEMENT (object);
  GstPad *srcpad = element->srcpads ? element->srcpads->data : NULL;
  GstTask *task = NULL;

  wait_deferred (GST_CUDA_OVERLAP_FILTER (object));
  /* the last reference dropped by the push task itself (at the end of its
   * loop, after the application stopped and released the pipeline from
   * there): the pad must not join the task from its own thread; the task
   * is left to end by itself (it holds its own reference while it runs) */
  if (srcpad) {
    GThread *self_thread = g_thread_self ();
    gboolean here = FALSE;

    GST_OBJECT_LOCK (srcpad);
    task = GST_PAD_TASK (srcpad);
    if (task) {
      /* (in the task's leave callback, task->thread is NULL already) */
      GST_OBJECT_LOCK (task);
      here = task->running && (task->thread == self_thread ||
          g_atomic_pointer_get (&PRIV (object)->loop_thread) == self_thread);
      GST_OBJECT_UNLOCK (task);
    }
    if (here)
      GST_PAD_TASK (srcpad) = NULL;
    else
      task = NULL;
    GST_OBJECT_UNLOCK (srcpad);
  }
  if (task) {
    /* the pad's own leave callback would post from a pad freed by then:
     * this one keeps the pad until the task is gone */
    gst_task_set_leave_callback (task, task_left, gst_object_ref (srcpad),
        gst_object_unref);
    gst_task_set_state (task, GST_TASK_STOPPED);
    gst_object_unref (task);
  }
  G_OBJECT_CLASS (gst_cuda_overlap_filter_parent_class)->dispose (object);
}

static void
gst_cuda_overlap_filter_finalize (GObject * object)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (object);

  g_mutex_clear (&priv->lock);
  gst_cuda_overlap_batch_clear (&priv->filling);
  gst_cuda_overlap_qos_clear (&priv->qos);
  g_cond_clear (&priv->deferred_cond);
  gst_clear_object (&priv->proposed);
  g_free (priv->trace_file);
  gst_cuda_overlap_context_clear (&priv->context);
  gst_cuda_overlap_stats_clear (&priv->stats);
  G_OBJECT_CLASS (gst_cuda_overlap_filter_parent_class)->finalize (object);
}

/* Whether a property that only READY may change is set later: refused,
 * with a warning (GObject does not enforce GST_PARAM_MUTABLE_READY).  With
 * the object lock. */
static gboolean
refuse_locked (GObject * object, GParamSpec * pspec)
{
  return (pspec->flags & GST_PARAM_MUTABLE_READY) &&
      (GST_STATE (object) > GST_STATE_READY ||
      GST_STATE_NEXT (object) > GST_STATE_READY);
}

static void
gst_cuda_overlap_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (object);
  gboolean rebuild = FALSE;

  GST_OBJECT_LOCK (object);
  if (refuse_locked (object, pspec)) {
    GST_OBJECT_UNLOCK (object);
    GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS,
        ("Property '%s' can only be changed in the NULL or READY state: the "
            "value in effect is kept", pspec->name),
        ("set while %s", gst_element_state_get_name (GST_STATE (object))));
    return;
  }
  switch (id) {
    case PROP_STREAMS:
      rebuild = priv->streams != g_value_get_uint (value);
      priv->streams = g_value_get_uint (value);
      break;
    case PROP_CHUNKS:
      rebuild = priv->chunks != g_value_get_uint (value);
      priv->chunks = g_value_get_uint (value);
      break;
    case PROP_MODE:
      rebuild = priv->mode != (CoMode) g_value_get_enum (value);
      priv->mode = g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      gst_cuda_overlap_context_changed (&priv->context);
      break;
    case PROP_MAX_IN_FLIGHT:
      rebuild = priv->max_in_flight != g_value_get_uint (value);
      priv->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_SUBMIT_THREAD:
      rebuild = priv->submit_thread != g_value_get_boolean (value) ||
          !priv->submit_thread_set;
      priv->submit_thread = g_value_get_boolean (value);
      priv->submit_thread_set = TRUE;
      break;
    case PROP_WAIT_MODE:
      rebuild = priv->wait_mode != (CoWaitMode) g_value_get_enum (value);
      priv->wait_mode = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      gst_cuda_overlap_context_changed (&priv->context);
      break;
    case PROP_STATS_INTERVAL:
      priv->stats_interval = g_value_get_uint64 (value);
      break;
    case PROP_POST_MESSAGES:
      priv->post_messages = g_value_get_boolean (value);
      break;
    case PROP_POOL_BUDGET:
      rebuild = priv->pool_budget != g_value_get_uint64 (value);
      priv->pool_budget = g_value_get_uint64 (value);
      break;
    case PROP_TRACE_FILE:
      g_free (priv->trace_file);
      priv->trace_file = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
  /* streaming: the engine is rebuilt with it before the next buffer, after
   * the frames in flight (harmless before an engine exists) */
  if (rebuild)
    gst_cuda_overlap_filter_mark_dirty (GST_CUDA_OVERLAP_FILTER (object));
}

static void
gst_cuda_overlap_filter_get_property (GObject * object, guint id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (id) {
    case PROP_STREAMS:
      g_value_set_uint (value, priv->streams);
      break;
    case PROP_CHUNKS:
      g_value_set_uint (value, priv->chunks);
      break;
    case PROP_MODE:
      g_value_set_enum (value, priv->mode);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, priv->backend);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, priv->max_in_flight);
      break;
    case PROP_SUBMIT_THREAD:
      g_value_set_boolean (value, priv->submit_thread);
      break;
    case PROP_WAIT_MODE:
      g_value_set_enum (value, priv->wait_mode);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_STATS_INTERVAL:
      g_value_set_uint64 (value, priv->stats_interval);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, priv->post_messages);
      break;
    case PROP_STATS:
      g_value_set_boxed (value, priv->stats.last);
      break;
    case PROP_PASSPORT:
      g_value_set_boxed (value, priv->stats.passport);
      break;
    case PROP_POOL_BUDGET:
      g_value_set_uint64 (value, priv->pool_budget);
      break;
    case PROP_TRACE_FILE:
      g_value_set_string (value, priv->trace_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
mark_dirty (GstCudaOverlapFilter * self, LcDirty dirty)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->dirty = MAX (priv->dirty, dirty);
  priv->build_failed = FALSE;
  g_mutex_unlock (&priv->lock);
}

void
gst_cuda_overlap_filter_mark_dirty (GstCudaOverlapFilter * self)
{
  mark_dirty (self, LC_DIRTY_REBUILD);
}

void
gst_cuda_overlap_filter_mark_params_dirty (GstCudaOverlapFilter * self)
{
  mark_dirty (self, LC_DIRTY_PARAMS);
}

/* The backend in use (the property's value before an engine exists). */
CoBackendKind
gst_cuda_overlap_filter_backend (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoBackendKind kind;

  g_mutex_lock (&priv->lock);
  kind = priv->engine ? co_engine_backend (priv->engine) : CO_BACKEND_AUTO;
  g_mutex_unlock (&priv->lock);
  if (kind == CO_BACKEND_AUTO) {
    GST_OBJECT_LOCK (self);
    kind = priv->backend;
    GST_OBJECT_UNLOCK (self);
  }
  return kind;
}

gint
gst_cuda_overlap_filter_device_id (GstCudaOverlapFilter * self)
{
  gint id;

  GST_OBJECT_LOCK (self);
  id = PRIV (self)->device_id;
  GST_OBJECT_UNLOCK (self);
  return id;
}

void
gst_cuda_overlap_filter_frame_check_input (GstCudaOverlapFilterFrame * fr,
    gconstpointer data, gsize size)
{
  if (fr->path != CO_PATH_PAGEABLE)
    fr->path = MAX (fr->path,
        gst_cuda_overlap_hostmem_path_of (fr->inbuf, data, size));
}

void
gst_cuda_overlap_filter_set_qos_enabled (GstCudaOverlapFilter * self,
    gboolean enabled)
{
  gst_cuda_overlap_qos_set_enabled (&PRIV (self)->qos, enabled);
}

gboolean
gst_cuda_overlap_filter_is_qos_enabled (GstCudaOverlapFilter * self)
{
  return gst_cuda_overlap_qos_get_enabled (&PRIV (self)->qos);
}

gboolean
gst_cuda_overlap_filter_pad_is_cuda (GstCudaOverlapFilter * self,
    GstPadDirection direction)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  return direction == GST_PAD_SINK ? priv->in_cuda : priv->out_cuda;
}

/* ---- pads ---------------------------------------------------------------- */

static void
setup_pads (GstCudaOverlapFilter * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstPad *sinkpad, *srcpad;

  sinkpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "sink"), "sink");
  gst_pad_set_chain_function (sinkpad, gst_cuda_overlap_filter_chain);
  gst_pad_set_event_full_function (sinkpad, gst_cuda_overlap_filter_sink_event);
  gst_pad_set_query_function (sinkpad, gst_cuda_overlap_filter_sink_query);
  /* caps: query_caps and sink_caps below (the memory may differ per pad) */
  gst_element_add_pad (GST_ELEMENT (self), sinkpad);

  srcpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "src"), "src");
  gst_pad_set_activatemode_function (srcpad,
      gst_cuda_overlap_filter_src_activate_mode);
  gst_pad_set_query_function (srcpad, gst_cuda_overlap_filter_src_query);
  gst_pad_set_event_function (srcpad, gst_cuda_overlap_filter_src_event);
  gst_element_add_pad (GST_ELEMENT (self), srcpad);
}

/* ---- caps: system memory or memory:CUDAMemory on each pad ------------------
 *
 * The element changes no format, size or rate: its output caps are its
 * input caps, except that each pad may carry system memory or CUDA memory
 * (a subclass whose pad templates list "memory:CUDAMemory" structures:
 * cudavideofilter, for the formats 1.22's CUDA memory supports).  So:
 *
 *  - a CAPS query on one pad asks the other pad's peer with the filter in
 *    both memories, and answers the peer's caps in both memories (each
 *    structure as the peer gave it first, then in the other memory), cut to
 *    the pad's template: e.g. downstream's system-memory RGBA is offered
 *    upstream as RGBA in system memory and in CUDA memory;
 *  - without a usable GPU for CUDA memory (gst-plugins-bad's CUDA library,
 *    the NVIDIA driver and a device this build runs on, and backend not
 *    cpu) the CUDA structures are left out of every answer, so nothing
 *    negotiates them; caps forced on the element anyway (a capsfilter, an
 *    application's caps) are not refused by ACCEPT_CAPS but by the CAPS
 *    event, with an element error that says what is missing;
 *  - on the CAPS event the output caps are the input caps in the same
 *    memory when downstream accepts them, else in the other memory: a
 *    pipeline stays in the memory it is in unless a neighbour asks for the
 *    other one (`... ! video/x-raw(memory:CUDAMemory) ! ...` after the
 *    element makes it upload, before it download).  The source pad's CAPS
 *    query answers the current input caps in both memories once there are
 *    any (as fixed caps would).
 */

/* ---- caps in both memories ----------------------------------------------- */

static gboolean
features_are (GstCapsFeatures * f, const gchar * feature)
{
  GstCapsFeatures *want = gst_caps_features_new (feature, NULL);
  gboolean eq = gst_caps_features_is_equal (f, want);

  gst_caps_features_free (want);
  return eq;
}

/* @caps with every system- or CUDA-memory structure also in the other
 * memory, right after it; structures with other features are left out.
 * ANY stays ANY. */
static GstCaps *
both_memories (GstCaps * caps)
{
  GstCaps *res;
  guint i, k;

  if (gst_caps_is_any (caps))
    return gst_caps_ref (caps);
  res = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean cuda, any = f && gst_caps_features_is_any (f);

    if (!f || any || features_are (f, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY))
      cuda = FALSE;
    else if (features_are (f, GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA))
      cuda = TRUE;
    else
      continue;
    for (k = 0; k < 2; k++)
      res = gst_caps_merge_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_new (cuda == (k == 0) ?
              GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA :
              GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
  }
  return res;
}

/* Whether @caps (or NULL) has a CUDA-memory structure; ANY has none. */
static gboolean
has_cuda (GstCaps * caps)
{
  guint i;

  if (!caps || gst_caps_is_any (caps))
    return FALSE;
  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (features_are (gst_caps_get_features (caps, i),
            GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA))
      return TRUE;
  return FALSE;
}

/* @caps (taken) without its CUDA-memory structures. */
static GstCaps *
drop_cuda (GstCaps * caps)
{
  gint i;

  caps = gst_caps_make_writable (caps);
  for (i = (gint) gst_caps_get_size (caps) - 1; i >= 0; i--)
    if (features_are (gst_caps_get_features (caps, i),
            GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA))
      gst_caps_remove_structure (caps, i);
  return caps;
}

/* @pad's template, narrowed (in both memories) to the subclass's
 * allowed_caps when it has any. */
static GstCaps *
template_caps (GstCudaOverlapFilter * self, GstPad * pad)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  GstCaps *allowed = klass->allowed_caps ? klass->allowed_caps (self) : NULL;
  GstCaps *both, *res;

  if (!allowed)
    return tmpl;
  both = both_memories (allowed);
  res = gst_caps_intersect_full (tmpl, both, GST_CAPS_INTERSECT_FIRST);
  /* a "not-negotiated" upstream is all a user sees of a format left out */
  GST_INFO_OBJECT (pad, "operation=custom: kernel-formats lets through %"
      GST_PTR_FORMAT, allowed);
  gst_caps_unref (both);
  gst_caps_unref (allowed);
  gst_caps_unref (tmpl);
  return res;
}

/* What @pad can carry, given what the other side's peer can (the current
 * input caps for the source pad once there are any), in both memories, cut
 * to @pad's template and to @filter; CUDA memory only with @keep_cuda. */
static GstCaps *
pad_caps (GstCudaOverlapFilter * self, GstPad * pad, GstCaps * filter,
    gboolean keep_cuda)
{
  GstPad *other = pad == srcpad_of (self) ? sinkpad_of (self) :
      srcpad_of (self);
  GstCaps *tmpl = template_caps (self, pad);
  GstCaps *peer = NULL, *both, *res;

  if (pad == srcpad_of (self))
    peer = gst_pad_get_current_caps (other);
  if (!peer) {
    GstCaps *peer_filter = NULL;

    if (filter) {
      GstCaps *other_tmpl = template_caps (self, other);

      both = both_memories (filter);
      peer_filter = gst_caps_intersect_full (both, other_tmpl,
          GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (both);
      gst_caps_unref (other_tmpl);
    }
    peer = gst_pad_peer_query_caps (other, peer_filter);
    gst_clear_caps (&peer_filter);
  }
  /* CUDA memory offered, or a link being checked (gst-parse then says
   * only "can't handle caps"): the log says why it is left out */
  if (!keep_cuda && (has_cuda (peer) || has_cuda (filter) ||
          !gst_pad_is_linked (pad)))
    gst_cuda_overlap_context_refused (self, NULL);
  both = both_memories (peer);
  res = gst_caps_intersect_full (both, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (both);
  gst_caps_unref (peer);
  gst_caps_unref (tmpl);
  if (!keep_cuda)
    res = drop_cuda (res);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (res);
    res = tmp;
  }
  return res;
}

static gboolean
query_caps (GstCudaOverlapFilter * self, GstPad * pad, GstQuery * query)
{
  GstCaps *filter, *res;

  gst_query_parse_caps (query, &filter);
  res = pad_caps (self, pad, filter,
      gst_cuda_overlap_context_memory_usable (self, NULL));
  GST_LOG_OBJECT (pad, "caps %" GST_PTR_FORMAT, res);
  gst_query_set_caps_result (query, res);
  gst_caps_unref (res);
  return TRUE;
}

/* CUDA memory is accepted here even without a GPU: the CAPS event then
 * refuses it with an element error that says why. */
static gboolean
query_accept_caps (GstCudaOverlapFilter * self, GstPad * pad, GstQuery * query)
{
  GstCaps *caps, *allowed;
  gboolean ok;

  gst_query_parse_accept_caps (query, &caps);
  allowed = pad_caps (self, pad, caps, TRUE);
  ok = gst_caps_is_subset (caps, allowed);
  GST_DEBUG_OBJECT (pad, "%s %" GST_PTR_FORMAT, ok ? "accept" : "refuse", caps);
  gst_caps_unref (allowed);
  gst_query_set_accept_caps_result (query, ok);
  return TRUE;
}

/* ---- the CAPS event --------------------------------------------------------- */

/* @caps (fixed) in the other memory. */
static GstCaps *
other_memory (GstCaps * caps)
{
  GstCaps *res = gst_caps_copy (caps);

  gst_caps_set_features (res, 0,
      gst_caps_features_new (gst_cuda_overlap_caps_is_cuda (caps) ?
          GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY :
          GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA, NULL));
  return res;
}

/* The output caps for the input @caps: the same memory when downstream
 * accepts it, else the other one (when this element can carry it).  NULL,
 * after an element error, when the input is CUDA memory, or only CUDA
 * memory would do downstream, and there is no GPU for it; when nothing
 * would do, @caps (pushing them fails as any refused caps do). */
static GstCaps *
decide_src_caps (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstPad *srcpad = srcpad_of (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (srcpad);
  GstCaps *other = other_memory (caps), *res = NULL;
  gchar *why = NULL;
  gboolean usable = gst_cuda_overlap_context_memory_usable (self, &why);
  gboolean in_cuda = gst_cuda_overlap_caps_is_cuda (caps);
  gboolean other_fits = gst_caps_is_subset (other, tmpl);

  gst_caps_unref (tmpl);
  if (in_cuda && !usable) {
    gst_cuda_overlap_context_refused (self, why);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The input is CUDA memory, which this element cannot take here: %s",
            why), ("%s; caps %" GST_PTR_FORMAT, why, caps));
  } else if (!gst_pad_is_linked (srcpad) ||
      gst_pad_peer_query_accept_caps (srcpad, caps)) {
    res = gst_caps_ref (caps);
  } else if (other_fits && usable &&
      gst_pad_peer_query_accept_caps (srcpad, other)) {
    res = gst_caps_ref (other);
  } else if (other_fits && !usable &&
      gst_pad_peer_query_accept_caps (srcpad, other)) {
    gst_cuda_overlap_context_refused (self, why);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream takes only CUDA memory here, which this element cannot "
            "give: %s", why), ("%s; caps %" GST_PTR_FORMAT, why, other));
  } else {
    res = gst_caps_ref (caps);
  }
  g_free (why);
  gst_caps_unref (other);
  return res;
}

/* The CAPS event: the frames of the old caps are pushed first, then the
 * output caps are decided and pushed, then the engine is rebuilt for them
 * (its ALLOCATION query downstream comes after downstream has the caps). */
static GstFlowReturn
sink_caps (GstCudaOverlapFilter * self, GstEvent * event)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCaps *caps, *outcaps;
  GstEvent *out;
  GstFlowReturn ret;
  gboolean same;

  gst_event_parse_caps (event, &caps);
  gst_caps_ref (caps);
  if ((ret = _gst_cuda_overlap_filter_drain_event (self, event))) {
    gst_caps_unref (caps);
    return ret;
  }
  outcaps = decide_src_caps (self, caps);
  if (!outcaps) {
    gst_event_unref (event);
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  same = priv->caps && gst_caps_is_equal (caps, priv->caps) &&
      priv->src_caps && gst_caps_is_equal (outcaps, priv->src_caps);
  if (gst_caps_is_equal (outcaps, caps)) {
    out = event;
  } else {
    out = gst_event_new_caps (outcaps);
    gst_event_set_seqnum (out, gst_event_get_seqnum (event));
    gst_event_unref (event);
  }
  GST_DEBUG_OBJECT (self, "input %" GST_PTR_FORMAT ", output %"
      GST_PTR_FORMAT, caps, outcaps);
  if (!same) {
    priv->in_cuda = gst_cuda_overlap_caps_is_cuda (caps);
    priv->out_cuda = gst_cuda_overlap_caps_is_cuda (outcaps);
    gst_caps_replace (&priv->src_caps, outcaps);
  }
  gst_caps_unref (outcaps);
  ret = push_event (srcpad_of (self), out);
  if (ret == GST_FLOW_OK && !same &&
      !_gst_cuda_overlap_filter_set_caps (self, caps))
    ret = GST_FLOW_NOT_NEGOTIATED;
  gst_caps_unref (caps);
  return ret;
}

/* Downstream asked for a new negotiation (a RECONFIGURE event: it may take
 * the other memory now): the output caps are decided again for the same
 * input caps; only a different output memory rebuilds.  Streaming thread,
 * before a buffer. */
static GstFlowReturn
reconfigure (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstCaps *outcaps;

  if (!priv->caps || !gst_pad_check_reconfigure (srcpad_of (self)))
    return GST_FLOW_OK;
  outcaps = decide_src_caps (self, priv->caps);
  if (outcaps && priv->src_caps && gst_caps_is_equal (outcaps, priv->src_caps)) {
    /* the same answer: nothing to send again */
    gst_caps_unref (outcaps);
    return GST_FLOW_OK;
  }
  GST_DEBUG_OBJECT (self, "downstream asked to negotiate again: output %"
      GST_PTR_FORMAT, outcaps);
  if (outcaps)
    gst_caps_unref (outcaps);
  ret = sink_caps (self, gst_event_new_caps (priv->caps));
  if (ret != GST_FLOW_OK)
    gst_pad_mark_reconfigure (srcpad_of (self));
  return ret;
}

/* ---- chain: a buffer to the device --------------------------------------------
 *
 * chain (upstream's streaming thread): make sure the engine fits
 * (_gst_cuda_overlap_filter_ensure of gstcudaoverlapfilter-life.c), acquire
 * an engine slot (blocks at the in-flight bound, wakes on flush), take an
 * output buffer (never waits: the pool grows), map and plan the image into
 * the batch being filled, submit the batch when it is full, return.  From
 * chain to the push, the frame's slot holds the input buffer (and its hold
 * on page-locked memory) and the output buffer. */

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

  co_trace_complete (priv->stats.trace, 1, TID_CHAIN, "chain", "host", t0,
      t_end - t0, NULL);
  if (t_submit)
    co_trace_complete (priv->stats.trace, 1, TID_CHAIN, "submit", "host",
        t_submit, t_end - t_submit, NULL);
}

/* CoMemPath STAGED: the frame's input becomes a copy in our page-locked
 * memory, made by co-parcopy's threads while chain goes on; the engine
 * finishes the copies (cf->host_job) before it queues the frame's device
 * work, on the thread that queues it (chain's, or the submit thread: then
 * the next frame's copies start while this one's run).  Where the job is
 * finished later than now (the submit thread, or a batch's later images
 * first), a small frame's copy goes to the pool whole too, so consecutive
 * frames' copies run at once on the pool's threads.  The copy holds the
 * original until then; the frame drops its reference now. */
static gboolean
stage_input (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr,
    CoFrame * cf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 t0 = priv->stats.trace ? co_engine_now () : 0;
  GstBuffer *staged;

  if (!cf->host_job) {
    cf->host_job = co_parcopy_job_new ();
    if (!GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->prepare_reads_input &&
        (priv->batch > 1 || co_engine_submit_thread (priv->engine)))
      co_parcopy_job_queue_small (cf->host_job);
  }
  staged = gst_cuda_overlap_hostmem_stage (fr->inbuf, priv->staging,
      priv->staging_size, priv->allocator, cf->host_job);
  if (GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->prepare_reads_input)
    co_engine_finish_host (cf); /* prepare reads the copy */

  if (priv->stats.trace)
    co_trace_complete (priv->stats.trace, 1, TID_CHAIN, "stage", "host", t0,
        co_engine_now () - t0, NULL);
  if (!staged)
    goto no_memory;
  gst_buffer_unref (fr->inbuf);
  fr->inbuf = staged;
  return TRUE;

  /* ERRORS */
no_memory:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of page-locked memory for a copy of the input"),
        ("could not copy an input buffer of %" G_GSIZE_FORMAT " bytes into "
            "page-locked memory", gst_buffer_get_size (fr->inbuf)));
    return FALSE;
  }
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
      gst_cuda_overlap_filter_device_id (self) : -2, &fr->host_ref);
  if (G_UNLIKELY (co_fault_force_staging ()) && fr->path == CO_PATH_PAGEABLE) {
    /* a test's: the staged path on the CPU backend too */
    g_clear_pointer (&fr->host_ref, co_hostref_release);
    fr->path = CO_PATH_STAGED;
  }
}

/* The streaming thread starts adding to the batch being filled: the batch
 * (a new engine frame when there is none; NULL when flushing). */
static CoFrame *
begin_add (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint64 t_acq;
  CoFrame *cf;

  if ((cf = gst_cuda_overlap_batch_begin_add (&priv->filling)))
    return cf;
  /* the first buffer of a frame (of a batch, with batches) */
  t_acq = priv->stats.trace ? co_engine_now () : 0;
  cf = co_engine_acquire (priv->engine);
  if (priv->stats.trace && cf)
    co_trace_complete (priv->stats.trace, 1, TID_CHAIN, "acquire", "host",
        t_acq, co_engine_now () - t_acq, NULL);
  gst_cuda_overlap_batch_set_frame (&priv->filling, cf);
  return cf;
}

/* @fr (the next image of @cf, its buffers set) mapped and planned. */
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
  if (priv->in_cuda && !gst_cuda_overlap_devmem_check_input (self, buf))
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

  /* also with batch 1: the push task asks whether upstream is ring-bound */
  gst_cuda_overlap_batch_see_pool (self, buf);
  if (!(cf = begin_add (self))) {
    gst_cuda_overlap_batch_end_add (self, FALSE, FALSE, NULL);
    gst_buffer_unref (buf);
    return GST_FLOW_FLUSHING;
  }
  ret = _gst_cuda_overlap_filter_acquire_output (self, &outbuf);
  if (ret != GST_FLOW_OK) {
    gst_cuda_overlap_batch_end_add (self, FALSE, FALSE, NULL);
    gst_buffer_unref (buf);
    return ret;
  }
  fr = &priv->frames[cf->slot * priv->batch +
      gst_cuda_overlap_batch_next_image (&priv->filling)];
  fr->inbuf = buf;
  fr->outbuf = outbuf;
  fr->chain_ns = t0;
  ret = prepare_image (self, fr, cf, staged);
  if (ret != GST_FLOW_OK) {
    /* the batch's copies so far write into its buffers: done first */
    co_engine_finish_host (cf);
    _gst_cuda_overlap_filter_frame_drop (self, fr);
    gst_cuda_overlap_batch_end_add (self, FALSE, FALSE, NULL);
    return ret;
  }
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " image %u pts %"
      GST_TIME_FORMAT ": %u chunks, %s input", cf->seqnum, fr->image,
      GST_TIME_ARGS (GST_BUFFER_PTS (fr->inbuf)), cf->n_chunks,
      fr->path == CO_PATH_PINNED ? "pinned" :
      fr->path == CO_PATH_REGISTERED ? "registered" :
      fr->path == CO_PATH_PAGEABLE ? "pageable" :
      fr->path == CO_PATH_DEVICE ? "device" : "staged");
  t_submit = priv->stats.trace ? co_engine_now () : 0;
  if (!gst_cuda_overlap_batch_end_add (self, TRUE, foreign, &err))
    ret = _gst_cuda_overlap_filter_submit_failed (self, err);
  if (priv->stats.trace)
    trace_chain (self, t0, t_submit);
  return ret;
}

/* Into or out of passthrough as the settings ask, draining the frames in
 * flight first.  Streaming thread. */
static GstFlowReturn
check_passthrough (GstCudaOverlapFilter * self)
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
static GstFlowReturn
push_through (GstCudaOverlapFilter * self, GstBuffer * buf, guint64 t0)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret;
  guint64 t1 = co_engine_now ();
  GstClockTime pts = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);

  ret = gst_pad_push (srcpad_of (self), buf);
  gst_cuda_overlap_stats_pushed (&priv->stats, t1, TRUE);
  if (priv->stats.counts) {
    co_stats_add_frame (priv->stats.counts, NULL, 0, t1 - t0,
        CO_PATH_PASSTHROUGH);
    gst_cuda_overlap_stats_record_time (&priv->stats, &priv->segment, pts, dur);
  }
  gst_cuda_overlap_stats_maybe_post (self, t1);
  return ret;
}

/* Controlled properties (gamma, gain-db) take their values for @buf's
 * stream time, as GstBaseTransform does, before anything reads them for
 * it.  Streaming thread. */
static void
sync_controlled (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstSegment *seg = &PRIV (self)->segment;
  GstClockTime st;

  if (seg->format != GST_FORMAT_TIME || !GST_BUFFER_PTS_IS_VALID (buf))
    return;
  st = gst_segment_to_stream_time (seg, GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  if (GST_CLOCK_TIME_IS_VALID (st))
    gst_object_sync_values (GST_OBJECT (self), st);
}

static GstFlowReturn
chain (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstFlowReturn ret;
  guint64 t0 = co_engine_now ();
  gboolean staged = FALSE;
  gsize size;

  gst_cuda_overlap_stats_buffer_in (&priv->stats, t0);
  gst_cuda_overlap_batch_post_latency (&priv->filling, GST_ELEMENT (self));
  sync_controlled (self, buf);

  if (klass->sink_buffer &&
      (ret = klass->sink_buffer (self, buf)) != GST_FLOW_OK)
    goto drop;
  if (gst_cuda_overlap_qos_drop (&priv->qos, &priv->segment,
          GST_ELEMENT (self), buf)) {
    ret = GST_FLOW_OK;
    goto drop;
  }
  gst_cuda_overlap_tune_begin (self);
  ret = reconfigure (self);
  if (ret == GST_FLOW_OK)
    ret = _gst_cuda_overlap_filter_ensure (self);
  if (ret == GST_FLOW_OK)
    ret = check_passthrough (self);
  if (ret == GST_FLOW_NOT_NEGOTIATED)
    goto not_negotiated;
  if (ret != GST_FLOW_OK)
    goto drop;
  buf = gst_cuda_overlap_qos_mark (&priv->qos, buf);
  if (priv->passthrough)
    return push_through (self, buf, t0);
  /* the subclass posts the error of an input it cannot read */
  if (klass->check_input && !klass->check_input (self, buf)) {
    ret = GST_FLOW_ERROR;
    goto drop;
  }

  nvtxRangePushA ("cudaoverlap chain");
  size = gst_buffer_get_size (buf);
  ret = chain_frame (self, buf, t0, &staged);
  nvtxRangePop ();
  gst_cuda_overlap_tune_end (&priv->tune, size, staged);
  if (ret != GST_FLOW_OK)
    return ret;
  /* downstream's last word (or FLUSHING) */
  return _gst_cuda_overlap_filter_srcresult (self);

  /* ERRORS */
drop:
  {
    /* late (QoS), refused by the subclass, flushing, or failed */
    gst_buffer_unref (buf);
    return ret;
  }
not_negotiated:
  {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("No format was negotiated before the first buffer"),
        ("no caps before the first buffer"));
    return ret;
  }
}

static GstFlowReturn
gst_cuda_overlap_filter_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  Mark mark;
  GstFlowReturn ret;

  mark_enter (self, &mark, FALSE);
  ret = chain (self, buf);
  mark_leave (self, &mark, FALSE);
  return ret;
}

/* ---- the push task: finished frames downstream ---------------------------------
 *
 * The source pad's GstTask: drop the host inputs the device has finished
 * copying in (release_read_inputs), wait for the oldest frame to finish on
 * the device, push its buffers (one, or the images of its batch) in order,
 * then, off the latency path, record statistics and trace, unref the
 * inputs still held, post statistics and release the engine slot (after
 * the push, so that a drain means "all pushed").  It runs only while an
 * engine is installed and nothing flushes (the life cycle starts and stops
 * it); while flushing it drops what it gets and pauses once nothing is in
 * flight. */

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

/* Pushes the @n buffers of a finished frame of @e.  Its device times are
 * read after the first push (off the frame's latency), before the
 * statistics take them; FALSE when reading them failed. */
static gboolean
push_images (GstCudaOverlapFilter * self, CoEngine * e,
    GstCudaOverlapFilterFrame * frames, guint n, CoFrame * cf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = srcpad_of (self);
  gboolean times = TRUE;
  guint i;

  for (i = 0; i < n; i++) {
    GstCudaOverlapFilterFrame *fr = &frames[i];
    GstBuffer *outbuf;
    GstFlowReturn ret;
    guint64 t2, t3;
    GstClockTime pts, dur;

    fr->completed = TRUE;
    GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->finish (self, fr);
    fr->completed = FALSE;
    outbuf = g_steal_pointer (&fr->outbuf);
    pts = GST_BUFFER_PTS (outbuf);
    dur = GST_BUFFER_DURATION (outbuf);
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
    gst_cuda_overlap_stats_pushed (&priv->stats, t2, FALSE);
    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "push returned %s", gst_flow_get_name (ret));
      set_srcresult (self, ret);
    }

    _gst_cuda_overlap_filter_release_input (fr);
    if (i == 0)
      times = co_engine_read_times (e, cf);
    if (times)
      gst_cuda_overlap_stats_record_frame (&priv->stats, fr, cf, t2,
          co_engine_backend (e) == CO_BACKEND_CPU);
    /* segment events drain first: the sink pad's segment is the frame's */
    gst_cuda_overlap_stats_record_time (&priv->stats, &priv->segment, pts, dur);
    if (priv->stats.trace)
      co_trace_complete (priv->stats.trace, 1, TID_PUSH, "push", "host", t2,
          t3 - t2, NULL);
  }
  return times;
}

/* Drops the inputs of the frames whose host memory the device has
 * finished reading (co_engine_next_read()), oldest first, while their
 * kernels and copies out run: an application's ring of buffers then
 * waits for the copies in, not for the whole frame and its push.  @wait:
 * for a frame to be submitted, then for the oldest frame's reads — polled
 * when the push task spins anyway, or when upstream waits for its buffers
 * (a ring that the frames in flight hold whole): its next buffer is one of
 * those.  Otherwise the oldest frame's input goes after its push, and the
 * task sleeps on its done event alone. */
static void
release_read_inputs (GstCudaOverlapFilter * self, CoEngine * e, gboolean wait)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean poll = wait && gst_cuda_overlap_batch_ring_bound (&priv->filling,
      co_engine_max_in_flight (e), priv->batch);
  CoFrame *cf;
  guint i;

  while ((cf = co_engine_next_read (e, wait, poll))) {
    for (i = 0; i < priv->slot_images[cf->slot]; i++)
      _gst_cuda_overlap_filter_release_read (self,
          &priv->frames[cf->slot * priv->batch + i]);
    wait = poll = FALSE;
  }
}

static void
loop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = srcpad_of (self);
  CoEngine *e;
  CoFrame *cf;
  guint64 t0, t1;
  gulong jitter;
  guint n;

  g_mutex_lock (&priv->lock);
  e = priv->engine;
  g_mutex_unlock (&priv->lock);
  t0 = co_engine_now ();
  if (e)
    release_read_inputs (self, e, TRUE);
  if (!e || !(cf = co_engine_wait_oldest_done (e))) {
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

  if (cf->error)
    goto frame_failed;

  if (!push_images (self, e, &priv->frames[cf->slot * priv->batch], n, cf))
    goto times_failed;
  gst_cuda_overlap_tune_pushed (&priv->tune, priv->stats.counts, n);
  if (priv->stats.trace)
    co_trace_complete (priv->stats.trace, 1, TID_WAIT, "wait", "host", t0,
        t1 - t0, NULL);
  gst_cuda_overlap_stats_maybe_post (self, t1);
  /* released after the push so that a drain means "all pushed" */
  co_engine_release (e, cf);
  return;

  /* ERRORS */
frame_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Processing a frame failed and it was dropped: %s", cf->error),
        ("%s", cf->error));
    _gst_cuda_overlap_filter_drop_slot (self, cf->slot, n);
    co_engine_release (e, cf);
    set_srcresult (self, GST_FLOW_ERROR);
    return;
  }
times_failed:
  {
    /* pushed, but the device failed meanwhile: the next frames would too */
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Reading a frame's device times failed: %s", cf->error),
        ("%s", cf->error));
    co_engine_release (e, cf);
    set_srcresult (self, GST_FLOW_ERROR);
    return;
  }
}

/* The task's function: one frame, with the thread marked as the push task
 * (a stop from a probe or a bus sync handler here is carried out when the
 * frame is done: mark_leave).  It holds a reference on
 * the element meanwhile: an application that stops the pipeline from here
 * may drop its own at once (the element is then disposed here, at the
 * end: gst_cuda_overlap_filter_dispose). */
void
_gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self)
{
  Mark mark;

  gst_object_ref (self);
  g_atomic_pointer_set (&PRIV (self)->loop_thread, g_thread_self ());
  mark_enter (self, &mark, TRUE);
  loop (self);
  mark_leave (self, &mark, TRUE);
  gst_object_unref (self);
}

/* ---- events ----------------------------------------------------------------------
 *
 * Serialized events (caps, EOS, segment, ...) drain the frames in flight
 * first, so they stay in order with the buffers (a drain cut short by a
 * flush drops the event: it would overtake frames still being pushed). */

/* Forwards @event downstream.  A failure while our source pad flushes (a
 * state change deactivates it before the sink pad, and a flushing seek
 * races the streaming thread) is FLUSHING, not an error: upstream must
 * not post "not-negotiated" or "Internal data stream error" for it. */
static GstFlowReturn
push_event (GstPad * srcpad, GstEvent * event)
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
      ret = push_event (srcpad, event);
      /* wait for the push task to stop; it drops what it holds */
      gst_pad_pause_task (srcpad);
      return ret;
    case GST_EVENT_FLUSH_STOP:
      _gst_cuda_overlap_filter_flush_stop (self);
      gst_cuda_overlap_qos_reset (&priv->qos);
      gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
      return push_event (srcpad, event);
    case GST_EVENT_SEGMENT:
      if ((ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      gst_event_copy_segment (event, &priv->segment);
      gst_cuda_overlap_qos_reset (&priv->qos);
      return push_event (srcpad, event);
    case GST_EVENT_CAPS:
      return sink_caps (self, event);
    case GST_EVENT_EOS:
      if ((ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      gst_cuda_overlap_stats_post_eos (self);
      co_trace_sync (priv->stats.trace);
      return push_event (srcpad, event);
    default:
      if (GST_EVENT_IS_SERIALIZED (event) &&
          (ret = _gst_cuda_overlap_filter_drain_event (self, event)))
        return ret;
      /* our one source pad: what gst_pad_event_default would do */
      return push_event (srcpad, event);
  }
}

static GstFlowReturn
gst_cuda_overlap_filter_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  Mark mark;
  GstFlowReturn ret;

  mark_enter (self, &mark, FALSE);
  ret = sink_event (self, event);
  mark_leave (self, &mark, FALSE);
  return ret;
}

static gboolean
gst_cuda_overlap_filter_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS)
    gst_cuda_overlap_qos_event (&PRIV (parent)->qos, event);
  return gst_pad_event_default (pad, parent, event);
}

/* ---- queries --------------------------------------------------------------- */

static guint
offer_pool (GstQuery * query, GstBufferPool * pool, guint n)
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
      offer_pool (query, gst_cuda_overlap_devmem_proposal (self, caps, n), n);
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
  offer_pool (query, pool, n);
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
      return query_caps (self, pad, query);
    case GST_QUERY_ACCEPT_CAPS:
      return query_accept_caps (self, pad, query);
    case GST_QUERY_CONTEXT:
      if (gst_cuda_overlap_context_query (self, query))
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
  Mark mark;
  gboolean ret;

  mark_enter (self, &mark, FALSE);
  ret = sink_query (pad, self, query);
  mark_leave (self, &mark, FALSE);
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
      return query_caps (self, pad, query);
    case GST_QUERY_CONTEXT:
      if (gst_cuda_overlap_context_query (self, query))
        return TRUE;
      return gst_pad_query_default (pad, parent, query);
    default:
      return gst_pad_query_default (pad, parent, query);
  }
  if (!gst_pad_peer_query (sinkpad_of (self), query))
    return FALSE;
  gst_query_parse_latency (query, &live, &min, &max);
  g_mutex_lock (&priv->lock);
  in_flight = priv->in_flight_max;
  g_mutex_unlock (&priv->lock);
  gst_cuda_overlap_batch_bounds (&priv->filling, &batch, &timeout);
  /* We hold up to max-in-flight frames, but push each one as soon as the
   * device is done: no added minimum, max-in-flight frames of maximum.
   * With batches, a buffer waits for the batch to fill, each next buffer
   * coming within the batch timeout or the batch going without it: up to
   * (batch - 1) timeouts, of minimum and of maximum.  Saturating: a
   * frame rate of 1/2147483647 must not wrap around. */
  dur = klass->frame_duration ? klass->frame_duration (self) :
      GST_CLOCK_TIME_NONE;
  if (in_flight > 0 && batch > 1) {
    wait = gst_cuda_overlap_time_mul (timeout, batch - 1);
    min = gst_cuda_overlap_time_add (min, wait);
    max = gst_cuda_overlap_time_add (max, wait);
  }
  if (in_flight > 0 && GST_CLOCK_TIME_IS_VALID (dur))
    max = gst_cuda_overlap_time_add (max,
        gst_cuda_overlap_time_mul (dur, (guint64) in_flight * batch));
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
  if (in_callbacks (self, TRUE)) {
    _gst_cuda_overlap_filter_stop_own_task (pad);
    return TRUE;
  }
  return gst_pad_stop_task (pad);
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


/* PAUSED→READY once nothing runs (or, @on_task, at the end of the push
 * loop): engine, pools, statistics and trace go. */
static void
stop_run (GstCudaOverlapFilter * self, gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  _gst_cuda_overlap_filter_teardown (self, on_task);
  gst_cuda_overlap_stats_stop (&priv->stats);
}

static GPrivate marks = G_PRIVATE_INIT (NULL);

static void
mark_enter (GstCudaOverlapFilter * self, Mark * m, gboolean on_task)
{
  m->self = self;
  m->on_task = on_task;
  m->up = g_private_get (&marks);
  g_private_set (&marks, m);
}

static gboolean
in_callbacks (GstCudaOverlapFilter * self, gboolean task_only)
{
  Mark *m;

  for (m = g_private_get (&marks); m; m = m->up)
    if (m->self == self && (m->on_task || !task_only))
      return TRUE;
  return FALSE;
}

/* Leaves a marked call; the deferred teardown, if this thread owes it and
 * is no longer inside the element.  @on_task: the push task's thread. */
static void
mark_leave (GstCudaOverlapFilter * self, Mark * m, gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean owed, ctx;

  g_private_set (&marks, m->up);
  if (G_LIKELY (!g_atomic_pointer_get (&priv->deferred_owner)) ||
      in_callbacks (self, FALSE))
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
    gst_cuda_overlap_context_release (self);
  g_mutex_lock (&priv->lock);
  priv->deferred_owner = NULL;
  priv->deferred_ctx = FALSE;
  priv->stopping_inside = FALSE;
  g_cond_broadcast (&priv->deferred_cond);
  g_mutex_unlock (&priv->lock);
}

static void
wait_deferred (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  while (priv->deferred_owner && priv->deferred_owner != g_thread_self ())
    g_cond_wait (&priv->deferred_cond, &priv->lock);
  g_mutex_unlock (&priv->lock);
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

static GstStateChangeReturn
gst_cuda_overlap_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (element);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstStateChangeReturn ret;

  /* a teardown left to a thread of the element by a stop from inside it
   * ends before anything else changes */
  wait_deferred (self);
  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:
      if (!check_backend (self))
        return GST_STATE_CHANGE_FAILURE;
      gst_cuda_overlap_context_ensure (self);
      break;
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      _gst_cuda_overlap_filter_set_shutdown (self, FALSE);
      gst_cuda_overlap_qos_start (&priv->qos);
      gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
      gst_cuda_overlap_stats_open_trace (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* from our push task: the streaming thread must not wait for it
       * (halt_task of gstcudaoverlapfilter-life.c) */
      if (in_callbacks (self, TRUE)) {
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
      in_callbacks (self, FALSE)) {
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
      gst_cuda_overlap_context_release (self);
  }
  return ret;
}
