/* cudaoverlap: abstract base of the elements that run on the overlap engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This file is the GObject side: the enum types, the properties, the pads'
 * creation and the small API for subclasses.  The rest is split by job
 * (gstcudaoverlapfilter-private.h lists the files and the lock rules, which
 * every file keeps).
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
 * `post-messages`, `stats`, `passport`, `trace-file`.
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
 * `auto`, `auto-reason`, `device-engines`, `backend`, `operation`,
 * `memory-in`, `memory-out`, `caps`, `frame-bytes`, `plugin-version`.
 * <!-- fields:cudaoverlap-passport names end -->
 *
 * `cudaoverlap-stats`:
 * <!-- fields:cudaoverlap-stats names begin -->
 * `frames`, `bytes-h2d`, `bytes-d2h`, `window-ns`, `fps`, `h2d-ns`,
 * `kernel-ns`, `d2h-ns`, `gpu-busy-ns`, `gpu-idle-ns`, `serial-ns`,
 * `overlap-efficiency`, `copy-compute-overlap-ns`, `h2d-d2h-overlap-ns`,
 * `latency-min`, `latency-mean`, `latency-p50`, `latency-p95`, `latency-p99`,
 * `latency-max`, `gpu-latency-p50`, `gpu-latency-p99`, `frames-pinned`,
 * `frames-registered`, `frames-pageable`, `frames-staged`,
 * `frames-passthrough`, `frames-device`, `streams`, `chunks`, `mode`,
 * `backend`, `operation`, `passthrough`, `whole-run`.
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

#include "gstcudaoverlapfilter.h"
#include "gstcudaoverlapfilter-private.h"

GST_DEBUG_CATEGORY (gst_cuda_overlap_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

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
    {CO_WAIT_AUTO, "Spin for live video sources while at most two elements "
          "of the process spin and a frame keeps the device busy less than "
          "half the frame interval, else blocking", "auto"},
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

/* The engine's settings: where and how frames run. */
static void
install_engine_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  g_object_class_install_property (gobject_class, PROP_STREAMS,
      g_param_spec_uint ("streams", "Streams",
          "Number of CUDA streams (CPU backend: worker threads) that chunks "
          "are spread over (overlap mode). 0: automatic: the copy engines "
          "+ 1 (at least 2), two per chunk for live sources; CPU backend: "
          "one per core, at most 8; elements of one process on one device "
          "share its 8 hardware queues (CPU backend: the cores)", 0,
          CO_MAX_STREAMS, DEFAULT_STREAMS, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CHUNKS,
      g_param_spec_uint ("chunks", "Chunks",
          "Number of chunks each frame is split into, each copied and "
          "computed on its own stream (overlap mode; fewer when the frame is "
          "too small). 0: automatic: 1 for throughput while the kernel is "
          "cheaper than the copies (measured on the first frames), else and "
          "for live sources one per 4 MiB of frame, at most 4; CPU backend: "
          "one per worker for frames of 256 KiB or more",
          0, CO_MAX_CHUNKS, DEFAULT_CHUNKS, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "overlap, or serial: the sequential control (one stream, one "
          "chunk, wait for each frame before taking the next)",
          GST_TYPE_CUDA_OVERLAP_MODE, DEFAULT_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Frames in flight",
          "Most frames queued on the device at once (overlap mode; each "
          "holds its own device memory; more hides more jitter, fewer keeps "
          "latency under load low). 0: automatic, max (4, streams + 2)",
          0, MAX_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "How the push thread waits for a frame's device work (CUDA "
          "backend; the CPU backend ignores it): blocking for throughput "
          "and low CPU, spin for the lowest latency (live sources), auto "
          "to let the element choose",
          GST_TYPE_CUDA_OVERLAP_WAIT_MODE, DEFAULT_WAIT_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SUBMIT_THREAD,
      g_param_spec_boolean ("submit-thread", "Submit thread",
          "Make the device calls that queue a frame (copies, kernels, "
          "events) on a thread of the element instead of the upstream "
          "streaming thread, so GStreamer's per-buffer work and the device "
          "calls run on two cores: for small frames at high rates, where "
          "the upstream thread is the bottleneck. Adds a hand-over, which "
          "costs latency when the thread has to be woken (live sources). "
          "Unless set, the element turns it on by itself for a non-live "
          "source whose frames it stages (pageable memory seen once, "
          "copied into page-locked memory): the next frame's copies then "
          "run while this one's are finished and queued",
          DEFAULT_SUBMIT_THREAD, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the work runs: auto picks CUDA when a device is usable",
          GST_TYPE_CUDA_OVERLAP_BACKEND, DEFAULT_BACKEND,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: the first one)", -1, 1023,
          DEFAULT_DEVICE_ID, rw | GST_PARAM_MUTABLE_READY));
}

/* Statistics, passport, trace and memory. */
static void
install_output_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      g_param_spec_uint64 ("stats-interval", "Statistics interval",
          "Interval between cudaoverlap-stats messages in ns (0: only the "
          "whole-run message at EOS)", 0, G_MAXUINT64,
          DEFAULT_STATS_INTERVAL, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post cudaoverlap-stats and cudaoverlap-passport element messages "
          "on the bus", DEFAULT_POST_MESSAGES, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "The latest cudaoverlap-stats structure (NULL before the first)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_PASSPORT,
      g_param_spec_boxed ("passport", "Passport",
          "The cudaoverlap-passport structure of the current run: device, "
          "versions and settings (NULL before streaming starts)",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_POOL_BUDGET,
      g_param_spec_uint64 ("pool-budget", "Output pool budget",
          "Most bytes of page-locked output buffers (CUDA backend). When "
          "downstream holds buffers (an encoder's look-ahead, a tee branch, "
          "an application), the output pool grows up to this instead of "
          "waiting; past it, output buffers are plain memory (one warning), "
          "whose device-to-host copies are synchronous. The pool makes 2 "
          "buffers before the first frame and the rest as frames need them "
          "(at least those in flight); at READY they go to the process's "
          "keep of page-locked memory, for the next pipeline (freed after "
          "10 s unused)",
          0, G_MAXUINT64, DEFAULT_POOL_BUDGET, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TRACE_FILE,
      g_param_spec_string ("trace-file", "Trace file",
          "Write a Chrome trace-event JSON timeline (Perfetto, "
          "chrome://tracing) of every copy, kernel and host step to this "
          "file (NULL: none)", NULL, rw | GST_PARAM_MUTABLE_READY));

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
  element_class->change_state = _gst_cuda_overlap_filter_change_state;
  element_class->set_context = _gst_cuda_overlap_filter_set_context;

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
  g_mutex_init (&priv->batch_lock);
  g_cond_init (&priv->batch_cond);
  g_cond_init (&priv->deferred_cond);
  priv->batch_learned = G_MAXUINT;
  priv->batch_fill = 1;
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
  priv->qos_proportion = 1.0;
  priv->qos_earliest = GST_CLOCK_TIME_NONE;
  priv->tune.share_slot = -1;   /* holds no device share */
  gst_segment_init (&priv->segment, GST_FORMAT_UNDEFINED);
  priv->srcresult = GST_FLOW_FLUSHING;
}

/* The pads come from the subclass's templates, which instance init of this
 * abstract class cannot see yet. */
/* An element made without a name keeps the default name it had before
 * the types moved to their own namespace: "cudavideofilter0", the element
 * name and a count, not "cudaoverlapvideofilter0". */
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
  _gst_cuda_overlap_filter_setup_pads (GST_CUDA_OVERLAP_FILTER (object));
}

static void
task_left (GstTask * task G_GNUC_UNUSED, GThread * thread G_GNUC_UNUSED,
    gpointer pad G_GNUC_UNUSED)
{
}

/* A stop from inside the element leaves its teardown to the thread it came
 * from (gstcudaoverlapfilter-pads.c): the application may drop its last
 * reference meanwhile; the pads (and the push task) go only after it. */
static void
gst_cuda_overlap_filter_dispose (GObject * object)
{
  GstElement *element = GST_ELEMENT (object);
  GstPad *srcpad = element->srcpads ? element->srcpads->data : NULL;
  GstTask *task = NULL;

  _gst_cuda_overlap_filter_wait_deferred (GST_CUDA_OVERLAP_FILTER (object));
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
  g_mutex_clear (&priv->batch_lock);
  g_cond_clear (&priv->batch_cond);
  g_cond_clear (&priv->deferred_cond);
  gst_clear_object (&priv->proposed);
  g_free (priv->trace_file);
  g_free (priv->cudamem_why);
  gst_clear_object (&priv->cuda_ctx);
  if (priv->last_stats)
    gst_structure_free (priv->last_stats);
  if (priv->passport)
    gst_structure_free (priv->passport);
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
      priv->cudamem_usable = 0;
      priv->cudamem_gen++;
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
      priv->cudamem_usable = 0;
      priv->cudamem_gen++;
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
      g_value_set_boxed (value, priv->last_stats);
      break;
    case PROP_PASSPORT:
      g_value_set_boxed (value, priv->passport);
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

gboolean
gst_cuda_overlap_filter_pad_is_cuda (GstCudaOverlapFilter * self,
    GstPadDirection direction)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  return direction == GST_PAD_SINK ? priv->in_cuda : priv->out_cuda;
}
