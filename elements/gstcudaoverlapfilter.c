/* cudaoverlap: abstract base of the elements that run on the overlap engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Data flow (docs/architecture.md has the whole picture):
 *   chain (upstream's thread): acquire an engine slot (blocks at the
 *     in-flight bound), acquire an output buffer from our pool (blocks while
 *     downstream holds them all), plan and submit the frame, return.
 *   srcpad task ("push thread"): wait for the oldest frame to finish on the
 *     device, post statistics, push it, release its slot.
 * Serialized events (caps, EOS, segment, ...) drain the frames in flight
 * first, so they stay in order with the buffers.
 *
 * Locks: GST_OBJECT_LOCK for properties only.  self->priv->lock guards the
 * engine pointer against flush/state-change threads; it is never held
 * while waiting on the engine.  Order: priv->lock, then the object lock.
 */
/**
 * SECTION:gstcudaoverlapfilter
 * @title: GstCudaOverlapFilter
 * @short_description: base of the cudaoverlap elements: the overlap engine,
 *   page-locked pools, statistics
 *
 * Properties shared by `cudavideofilter` and `cudaaudiofilter`: `streams`,
 * `chunks`, `mode` (`overlap`, or `serial`: the sequential control),
 * `max-in-flight`, `wait-mode` (`blocking`, or `spin` for the lowest
 * latency), `submit-thread`, `backend` (`auto`, `cuda`, `cpu`),
 * `cuda-device-id`,
 * `stats-interval`,
 * `post-messages`, `stats`, `passport`, `trace-file`.
 *
 * ## Messages
 *
 * `cudaoverlap-passport` (element message, once when streaming starts;
 * also the `passport` property): `device-name` (string, "cpu" on the CPU
 * backend), `compute-capability` (string, "9.0"), `pci-bus-id` (string),
 * `driver-version`, `runtime-version` (gint, as cudaDriverGetVersion and
 * cudaRuntimeGetVersion give them), `async-engine-count`,
 * `concurrent-kernels` (gint), `streams`, `chunks`, `max-in-flight` (guint),
 * `mode`, `wait-mode`, `backend`, `operation`, `caps` (strings),
 * `submit-thread` (gboolean), `batch` (guint, buffers per engine frame),
 * `frame-bytes` (guint64),
 * `plugin-version` (string).
 *
 * `cudaoverlap-stats` (element message every `stats-interval` ns and at
 * EOS, the last one with `whole-run` = TRUE; also the `stats` property).
 * Durations in ns (guint64), over the frames pushed in the window:
 * `frames`, `bytes-h2d`, `bytes-d2h`; `window-ns` (earliest start to latest
 * end of their operations); `fps` (gdouble); `h2d-ns`, `kernel-ns`,
 * `d2h-ns` (measure of the union of each kind's intervals); `gpu-busy-ns`
 * (union of all); `gpu-idle-ns` (window − busy); `serial-ns` (sum of the
 * three kinds); `overlap-efficiency` (gdouble, (serial − busy) / (serial −
 * longest kind), 0 when that is 0); `copy-compute-overlap-ns` (|(H2D ∪ D2H)
 * ∩ kernels|); `h2d-d2h-overlap-ns` (|H2D ∩ D2H|); `latency-min`,
 * `latency-mean`, `latency-p50`, `latency-p95`, `latency-p99`,
 * `latency-max` (host: entering chain to just before the push);
 * `gpu-latency-p50`, `gpu-latency-p99` (first H2D start to last D2H end);
 * `frames-pinned`, `frames-registered`, `frames-pageable`, `frames-staged`;
 * `streams`,
 * `chunks` (guint, in effect); `mode`, `backend`, `operation` (strings).
 * Each operation's interval comes from CUDA events around it in its stream
 * and so also holds any wait for its engine; docs/stats.md compares them
 * with CUPTI.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <nvtx3/nvToolsExt.h>

#include "gstcudaoverlapfilter.h"
#include "gstcudaoverlapfilter-private.h"

GST_DEBUG_CATEGORY (gst_cuda_overlap_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

#define DEFAULT_STREAMS 4
#define DEFAULT_CHUNKS 4
#define DEFAULT_MODE CO_MODE_OVERLAP
#define DEFAULT_BACKEND CO_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_STATS_INTERVAL GST_SECOND
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_MAX_IN_FLIGHT 0
#define DEFAULT_WAIT_MODE CO_WAIT_BLOCKING
#define DEFAULT_SUBMIT_THREAD FALSE
#define MAX_MAX_IN_FLIGHT 64
/* Foreign memory smaller than this is copied, not registered: registering
 * costs tens of microseconds per page-locked megabyte, more than a small
 * pageable copy costs. */
#define MIN_REGISTER_BYTES (1 << 20)
/* Buffers in each pool beyond the in-flight bound: what downstream (or
 * upstream) may hold while every slot is busy. */
#define POOL_EXTRA 4

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
static void gst_cuda_overlap_filter_finalize (GObject * object);
static void gst_cuda_overlap_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_overlap_filter_get_property (GObject * object, guint id,
    GValue * value, GParamSpec * pspec);
static GstStateChangeReturn gst_cuda_overlap_filter_change_state (GstElement *
    element, GstStateChange transition);
static GstFlowReturn gst_cuda_overlap_filter_chain (GstPad * pad,
    GstObject * parent, GstBuffer * buf);
static gboolean gst_cuda_overlap_filter_sink_event (GstPad * pad,
    GstObject * parent, GstEvent * event);
static gboolean gst_cuda_overlap_filter_sink_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static gboolean gst_cuda_overlap_filter_src_query (GstPad * pad,
    GstObject * parent, GstQuery * query);
static gboolean gst_cuda_overlap_filter_src_activate_mode (GstPad * pad,
    GstObject * parent, GstPadMode mode, gboolean active);
static void gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self);

static void
gst_cuda_overlap_filter_class_init (GstCudaOverlapFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gobject_class->constructed = gst_cuda_overlap_filter_constructed;
  gobject_class->finalize = gst_cuda_overlap_filter_finalize;
  gobject_class->set_property = gst_cuda_overlap_filter_set_property;
  gobject_class->get_property = gst_cuda_overlap_filter_get_property;
  element_class->change_state = gst_cuda_overlap_filter_change_state;

  g_object_class_install_property (gobject_class, PROP_STREAMS,
      g_param_spec_uint ("streams", "Streams",
          "Number of CUDA streams (CPU backend: worker threads) that chunks "
          "are spread over (overlap mode)", 1, CO_MAX_STREAMS,
          DEFAULT_STREAMS, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CHUNKS,
      g_param_spec_uint ("chunks", "Chunks",
          "Number of chunks each frame is split into, each copied and "
          "computed on its own stream (overlap mode; fewer when the frame is "
          "too small)", 1, CO_MAX_CHUNKS, DEFAULT_CHUNKS,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "overlap, or serial: the sequential control (one stream, one "
          "chunk, wait for each frame before taking the next)",
          GST_TYPE_CUDA_OVERLAP_MODE, DEFAULT_MODE,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Frames in flight",
          "Most frames queued on the device at once (overlap mode; each "
          "holds its own device memory; more hides more jitter, fewer keeps "
          "latency under load low). 0: automatic, max (4, streams + 2)",
          0, MAX_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_WAIT_MODE,
      g_param_spec_enum ("wait-mode", "Wait mode",
          "How the push thread waits for a frame's device work (CUDA "
          "backend; the CPU backend ignores it): blocking for throughput "
          "and low CPU, spin for the lowest latency (live sources)",
          GST_TYPE_CUDA_OVERLAP_WAIT_MODE, DEFAULT_WAIT_MODE,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_SUBMIT_THREAD,
      g_param_spec_boolean ("submit-thread", "Submit thread",
          "Make the device calls that queue a frame (copies, kernels, "
          "events) on a thread of the element instead of the upstream "
          "streaming thread, so GStreamer's per-buffer work and the device "
          "calls run on two cores: for small frames at high rates, where "
          "the upstream thread is the bottleneck. Adds a hand-over, which "
          "costs latency when the thread has to be woken (live sources)",
          DEFAULT_SUBMIT_THREAD, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the work runs: auto picks CUDA when a device is usable",
          GST_TYPE_CUDA_OVERLAP_BACKEND, DEFAULT_BACKEND,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device id",
          "CUDA device to use (-1: the first one)", -1, 1023,
          DEFAULT_DEVICE_ID, rw | GST_PARAM_MUTABLE_READY));
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
  g_object_class_install_property (gobject_class, PROP_TRACE_FILE,
      g_param_spec_string ("trace-file", "Trace file",
          "Write a Chrome trace-event JSON timeline (Perfetto, "
          "chrome://tracing) of every copy, kernel and host step to this "
          "file (NULL: none)", NULL, rw | GST_PARAM_MUTABLE_READY));

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
  priv->streams = DEFAULT_STREAMS;
  priv->chunks = DEFAULT_CHUNKS;
  priv->mode = DEFAULT_MODE;
  priv->wait_mode = DEFAULT_WAIT_MODE;
  priv->submit_thread = DEFAULT_SUBMIT_THREAD;
  priv->backend = DEFAULT_BACKEND;
  priv->device_id = DEFAULT_DEVICE_ID;
  priv->stats_interval = DEFAULT_STATS_INTERVAL;
  priv->post_messages = DEFAULT_POST_MESSAGES;
  priv->srcresult = GST_FLOW_FLUSHING;
}

/* The pads come from the subclass's templates, which instance init of this
 * abstract class cannot see yet. */
static void
gst_cuda_overlap_filter_constructed (GObject * object)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (object);
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  GstPad *sinkpad, *srcpad;

  G_OBJECT_CLASS (gst_cuda_overlap_filter_parent_class)->constructed (object);

  sinkpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "sink"), "sink");
  gst_pad_set_chain_function (sinkpad, gst_cuda_overlap_filter_chain);
  gst_pad_set_event_function (sinkpad, gst_cuda_overlap_filter_sink_event);
  gst_pad_set_query_function (sinkpad, gst_cuda_overlap_filter_sink_query);
  GST_PAD_SET_PROXY_CAPS (sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), sinkpad);

  srcpad = gst_pad_new_from_template (gst_element_class_get_pad_template
      (klass, "src"), "src");
  gst_pad_set_activatemode_function (srcpad,
      gst_cuda_overlap_filter_src_activate_mode);
  gst_pad_set_query_function (srcpad, gst_cuda_overlap_filter_src_query);
  gst_pad_use_fixed_caps (srcpad);
  GST_PAD_SET_PROXY_CAPS (srcpad);
  gst_element_add_pad (GST_ELEMENT (self), srcpad);
}

static void
gst_cuda_overlap_filter_finalize (GObject * object)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (object);

  g_mutex_clear (&priv->lock);
  g_free (priv->trace_file);
  if (priv->last_stats)
    gst_structure_free (priv->last_stats);
  if (priv->passport)
    gst_structure_free (priv->passport);
  G_OBJECT_CLASS (gst_cuda_overlap_filter_parent_class)->finalize (object);
}

static void
gst_cuda_overlap_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (id) {
    case PROP_STREAMS:
      priv->streams = g_value_get_uint (value);
      break;
    case PROP_CHUNKS:
      priv->chunks = g_value_get_uint (value);
      break;
    case PROP_MODE:
      priv->mode = g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      priv->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_SUBMIT_THREAD:
      priv->submit_thread = g_value_get_boolean (value);
      break;
    case PROP_WAIT_MODE:
      priv->wait_mode = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_STATS_INTERVAL:
      priv->stats_interval = g_value_get_uint64 (value);
      break;
    case PROP_POST_MESSAGES:
      priv->post_messages = g_value_get_boolean (value);
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
    case PROP_TRACE_FILE:
      g_value_set_string (value, priv->trace_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_cuda_overlap_filter_mark_dirty (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->dirty = TRUE;
  g_mutex_unlock (&priv->lock);
}

CoBackendKind
gst_cuda_overlap_filter_backend (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  return priv->engine ? co_engine_backend (priv->engine) : priv->backend;
}

gint
gst_cuda_overlap_filter_device_id (GstCudaOverlapFilter * self)
{
  return PRIV (self)->device_id;
}

void
gst_cuda_overlap_filter_frame_check_input (GstCudaOverlapFilterFrame * fr,
    gconstpointer data, gsize size)
{
  if (fr->path != CO_PATH_PAGEABLE)
    fr->path = MAX (fr->path,
        gst_cuda_overlap_hostmem_path_of (fr->inbuf, data, size));
}

/* ---- engine life cycle --------------------------------------------------- */

/* The device has finished reading the frame's input (or never will): drop
 * the frame's reference on its host ranges first, then the buffer, so that
 * a range is unregistered before the input's memory can be freed. */
static void
frame_release_input (GstCudaOverlapFilterFrame * fr)
{
  g_clear_pointer (&fr->host_ref, co_hostref_release);
  gst_clear_buffer (&fr->inbuf);
}

static void
frame_drop (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  if (fr->inbuf || fr->outbuf)
    klass->finish (self, fr);
  frame_release_input (fr);
  gst_clear_buffer (&fr->outbuf);
}

/* Drops the first @n buffers of @slot's batch. */
static void
drop_slot (GstCudaOverlapFilter * self, guint slot, guint n)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint i;

  for (i = 0; i < n; i++)
    frame_drop (self, &priv->frames[slot * priv->batch + i]);
}

/* The batch being filled, if any, is dropped (flush, shutdown).  Only from
 * the streaming thread, or with streaming stopped. */
static void
cancel_pending (GstCudaOverlapFilter * self, CoEngine * e)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (!priv->pending)
    return;
  drop_slot (self, priv->pending->slot, priv->pending_n);
  co_engine_cancel (e, priv->pending);
  priv->pending = NULL;
  priv->pending_n = 0;
}

/* Waits for every submitted frame to finish on the device and drops it,
 * then the batch being filled.  Only while flushing (or with the push task
 * stopped). */
static void
drop_in_flight (GstCudaOverlapFilter * self, CoEngine * e)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoFrame *cf;

  while ((cf = co_engine_wait_oldest (e))) {
    drop_slot (self, cf->slot, priv->slot_images[cf->slot]);
    co_engine_release (e, cf);
  }
  cancel_pending (self, e);
}

/* Submits the batch being filled (full, or partial before a serialized
 * event).  Streaming thread. */
static GstFlowReturn
submit_pending (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoFrame *cf = priv->pending;
  GError *err = NULL;

  if (!cf)
    return GST_FLOW_OK;
  priv->pending = NULL;
  priv->slot_images[cf->slot] = priv->pending_n;
  priv->pending_n = 0;
  if (!co_engine_submit (priv->engine, cf, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Submitting a frame to the device failed"), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static void
engine_destroy (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoEngine *e;
  guint i;

  g_mutex_lock (&priv->lock);
  e = priv->engine;
  if (e)
    co_engine_set_flushing (e, TRUE);
  if (priv->pool)
    gst_buffer_pool_set_flushing (priv->pool, TRUE);
  g_mutex_unlock (&priv->lock);

  gst_pad_stop_task (GST_ELEMENT (self)->srcpads->data);

  g_mutex_lock (&priv->lock);
  if (e) {
    drop_in_flight (self, e);
    priv->engine = NULL;
  }
  g_mutex_unlock (&priv->lock);
  co_engine_free (e);

  for (i = 0; i < priv->n_frames; i++) {
    frame_drop (self, &priv->frames[i]);
    g_free (priv->frames[i].priv);
  }
  g_clear_pointer (&priv->frames, g_free);
  g_clear_pointer (&priv->slot_images, g_free);
  priv->n_frames = 0;
  if (priv->pool) {
    gst_buffer_pool_set_active (priv->pool, FALSE);
    gst_clear_object (&priv->pool);
  }
  if (priv->staging) {
    gst_buffer_pool_set_active (priv->staging, FALSE);
    gst_clear_object (&priv->staging);
  }
  gst_clear_object (&priv->allocator);
}

/* The input staging pool: page-locked buffers of @size bytes, one per
 * image in flight, all allocated now. */
static GstBufferPool *
staging_pool_new (GstAllocator * allocator, gsize size, guint n)
{
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, NULL, size, n, n);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

static gboolean
engine_create (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoEngineConfig cfg = { 0, };
  GError *err = NULL;
  CoEngine *e;
  gsize out_size;
  guint i, n;
  GstPad *srcpad = GST_ELEMENT (self)->srcpads->data;

  GST_OBJECT_LOCK (self);
  cfg.backend = priv->backend;
  cfg.device_id = priv->device_id;
  cfg.streams = priv->streams;
  cfg.chunks = priv->chunks;
  cfg.mode = priv->mode;
  cfg.max_in_flight = priv->max_in_flight;
  cfg.wait = priv->wait_mode;
  cfg.submit_thread = priv->submit_thread;
  GST_OBJECT_UNLOCK (self);
  cfg.name = GST_OBJECT_NAME (self);

  if (cfg.mode == CO_MODE_SERIAL)
    cfg.streams = cfg.chunks = 1;
  out_size = klass->configure (self, caps, &cfg, &err);
  if (!out_size)
    goto config_failed;

  e = co_engine_new (&cfg, &err);
  if (!e)
    goto engine_failed;

  if (klass->engine_ready && !klass->engine_ready (self, e, &err)) {
    co_engine_free (e);
    goto engine_failed;
  }

  n = co_engine_max_in_flight (e);
  priv->batch = klass->batch_size ? MAX (klass->batch_size (self), 1) : 1;
  if (co_engine_backend (e) == CO_BACKEND_CUDA)
    priv->allocator = gst_cuda_overlap_pinned_allocator_new (cfg.device_id);
  /* min = max: every buffer is allocated now, at caps time, none while
   * streaming (page-locked allocation is slow and may synchronise) */
  /* (with batches, downstream gets them in bursts of a batch: its share
   * grows with it) */
  priv->pool = klass->make_pool (self, caps, out_size, priv->allocator,
      (n + POOL_EXTRA) * priv->batch, (n + POOL_EXTRA) * priv->batch);
  if (!priv->pool || !gst_buffer_pool_set_active (priv->pool, TRUE)) {
    co_engine_free (e);
    gst_clear_object (&priv->pool);
    gst_clear_object (&priv->allocator);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate the output buffers (%u of %" G_GSIZE_FORMAT
            " bytes)", (n + POOL_EXTRA) * priv->batch, out_size),
        ("the page-locked buffer pool could not be activated"));
    return FALSE;
  }
  /* Staged input (foreign memory that cannot be copied from directly) is
   * copied into these.  The output size bounds the input (same caps, or
   * the audio capacity); a larger input gets a buffer of its own. */
  if (priv->allocator) {
    priv->staging = staging_pool_new (priv->allocator, out_size,
        n * priv->batch);
    priv->staging_size = out_size;
    if (!priv->staging) {
      co_engine_free (e);
      gst_buffer_pool_set_active (priv->pool, FALSE);
      gst_clear_object (&priv->pool);
      gst_clear_object (&priv->allocator);
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate the input staging buffers (%u of %"
              G_GSIZE_FORMAT " bytes)", n * priv->batch, out_size),
          ("the page-locked staging pool could not be activated"));
      return FALSE;
    }
  }

  priv->n_frames = n * priv->batch;
  priv->frames = g_new0 (GstCudaOverlapFilterFrame, priv->n_frames);
  for (i = 0; i < priv->n_frames; i++) {
    priv->frames[i].image = i % priv->batch;
    priv->frames[i].priv = g_malloc0 (MAX (klass->frame_priv_size, 1));
  }
  priv->slot_images = g_new0 (guint, n);

  if (!priv->stats)
    priv->stats = co_stats_new ();
  priv->last_post_ns = co_engine_now ();

  g_mutex_lock (&priv->lock);
  priv->engine = e;
  priv->dirty = FALSE;
  priv->srcresult = GST_FLOW_OK;
  g_mutex_unlock (&priv->lock);

  _gst_cuda_overlap_filter_post_passport (self, caps, out_size);
  GST_INFO_OBJECT (self, "engine ready: backend %s, %u streams, %u chunks, "
      "%u frames in flight at most, %u buffers per frame",
      co_engine_backend (e) == CO_BACKEND_CUDA ? "cuda" : "cpu",
      co_engine_streams (e), co_engine_chunks (e), n, priv->batch);

  gst_pad_start_task (srcpad, (GstTaskFunction) gst_cuda_overlap_filter_loop,
      self, NULL);
  return TRUE;

config_failed:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Cannot process %" GST_PTR_FORMAT, caps), ("%s", err->message));
  g_clear_error (&err);
  return FALSE;

engine_failed:
  if (g_error_matches (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE))
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device. Use backend=cpu or backend=auto to run "
            "without one."), ("%s", err->message));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not set up the CUDA engine"), ("%s", err->message));
  g_clear_error (&err);
  return FALSE;
}

/* Submits the batch being filled (a partial one: nothing waits behind a
 * serialized event, EOS or a rebuild), then waits until every frame in
 * flight has been pushed.  FALSE when flushing or when pushing failed.
 * Streaming thread. */
static gboolean
drain (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (!priv->engine)
    return TRUE;
  submit_pending (self);
  return co_engine_drain (priv->engine);
}

static gboolean
ensure_engine (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCaps *caps;
  gboolean ret;

  if (priv->engine && !priv->dirty)
    return TRUE;
  if (!priv->caps)
    return FALSE;
  drain (self);
  engine_destroy (self);
  caps = gst_caps_ref (priv->caps);
  ret = engine_create (self, caps);
  gst_caps_unref (caps);
  return ret;
}

/* ---- streaming ----------------------------------------------------------- */

static void
copy_metadata (GstBuffer * out, GstBuffer * in)
{
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
}

/* gst_buffer_copy_into() leaves out the metas tagged "memory" (the video
 * meta among them) unless it copies the memories too; a staged copy has
 * every byte at the same offset, so they hold for it as well. */
static void
copy_memory_metas (GstBuffer * staged, GstBuffer * in)
{
  GQuark tag = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);
  GstMetaTransformCopy copy = { FALSE, 0, gst_buffer_get_size (in) };
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta (in, &state))) {
    const GstMetaInfo *info = meta->info;

    if (info->transform_func && gst_meta_api_type_has_tag (info->api, tag))
      info->transform_func (staged, meta, in, _gst_meta_transform_copy, &copy);
  }
}

/* CoMemPath STAGED: replaces the frame's input with a copy in one of our
 * page-locked buffers (metadata, video meta included, and every byte, so
 * offsets and strides stay valid); the original is unreffed now. */
static gboolean
stage_input (GstCudaOverlapFilter * self, GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBufferPoolAcquireParams params = {
    .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  GstBuffer *in = fr->inbuf, *staged = NULL;
  gsize size = gst_buffer_get_size (in);
  GstMapInfo map;

  /* a free one is always there (one per image in flight), unless the
   * input is larger than the caps say */
  if (priv->staging && size <= priv->staging_size &&
      gst_buffer_pool_acquire_buffer (priv->staging, &staged,
          &params) != GST_FLOW_OK)
    staged = NULL;
  if (!staged)
    staged = gst_buffer_new_allocate (priv->allocator, size, NULL);
  if (!staged)
    goto failed;
  gst_buffer_set_size (staged, size);
  if (!gst_buffer_copy_into (staged, in, GST_BUFFER_COPY_METADATA, 0, -1) ||
      !gst_buffer_map (staged, &map, GST_MAP_WRITE)) {
    gst_buffer_unref (staged);
    goto failed;
  }
  copy_memory_metas (staged, in);
  gst_buffer_extract (in, 0, map.data, size);
  gst_buffer_unmap (staged, &map);
  gst_buffer_unref (in);
  fr->inbuf = staged;
  return TRUE;

failed:
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
      ("could not copy an input buffer of %" G_GSIZE_FORMAT " bytes into "
          "page-locked memory", size));
  return FALSE;
}

static GstFlowReturn
gst_cuda_overlap_filter_chain (GstPad * pad, GstObject * parent,
    GstBuffer * buf)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstCudaOverlapFilterFrame *fr;
  GstBuffer *outbuf = NULL;
  GstFlowReturn ret;
  CoFrame *cf;
  CoEngine *e;
  guint64 t0 = co_engine_now (), t_submit;

  if (klass->sink_buffer) {
    ret = klass->sink_buffer (self, buf);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref (buf);
      return ret;
    }
  }
  if (!ensure_engine (self)) {
    gst_buffer_unref (buf);
    if (!priv->caps) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
          ("no caps before the first buffer"));
      return GST_FLOW_NOT_NEGOTIATED;
    }
    return GST_FLOW_ERROR;
  }
  e = priv->engine;

  g_mutex_lock (&priv->lock);
  ret = priv->srcresult;
  g_mutex_unlock (&priv->lock);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (buf);
    return ret;
  }

  nvtxRangePushA ("cudaoverlap chain");
  cf = priv->pending;
  if (!cf) {
    /* the first buffer of a frame (of a batch, with batches) */
    cf = co_engine_acquire (e);
    if (!cf) {
      gst_buffer_unref (buf);
      nvtxRangePop ();
      return GST_FLOW_FLUSHING;
    }
    priv->pending = cf;
    priv->pending_n = 0;
  }
  ret = gst_buffer_pool_acquire_buffer (priv->pool, &outbuf, NULL);
  if (ret != GST_FLOW_OK) {
    if (priv->pending_n == 0)
      cancel_pending (self, e);
    gst_buffer_unref (buf);
    nvtxRangePop ();
    return ret;
  }

  fr = &priv->frames[cf->slot * priv->batch + priv->pending_n];
  fr->inbuf = buf;
  fr->outbuf = outbuf;
  fr->chain_ns = t0;
  fr->path = gst_cuda_overlap_hostmem_prepare (buf, co_engine_backend (e) ==
      CO_BACKEND_CUDA ? gst_cuda_overlap_filter_device_id (self) : -2,
      MIN_REGISTER_BYTES, &fr->host_ref);
  copy_metadata (outbuf, buf);

  if (fr->path == CO_PATH_STAGED && !stage_input (self, fr))
    ret = GST_FLOW_ERROR;
  else
    ret = klass->prepare (self, e, fr, cf);
  if (ret != GST_FLOW_OK) {
    frame_drop (self, fr);
    if (priv->pending_n == 0)
      cancel_pending (self, e);
    nvtxRangePop ();
    return ret;
  }
  priv->pending_n++;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " image %u pts %"
      GST_TIME_FORMAT ": %u chunks, %s input", cf->seqnum, fr->image,
      GST_TIME_ARGS (GST_BUFFER_PTS (fr->inbuf)), cf->n_chunks,
      fr->path == CO_PATH_PINNED ? "pinned" :
      fr->path == CO_PATH_REGISTERED ? "registered" :
      fr->path == CO_PATH_PAGEABLE ? "pageable" : "staged");
  if (priv->pending_n < priv->batch) {
    /* the batch is not full yet */
    if (priv->trace)
      co_trace_complete (priv->trace, 1, TID_CHAIN, "chain", "host", t0,
          co_engine_now () - t0, NULL);
    nvtxRangePop ();
    goto done;
  }

  t_submit = priv->trace ? co_engine_now () : 0;        /* only the trace uses it */
  if (submit_pending (self) != GST_FLOW_OK) {
    nvtxRangePop ();
    return GST_FLOW_ERROR;
  }
  if (priv->trace) {
    guint64 t_end = co_engine_now ();

    co_trace_complete (priv->trace, 1, TID_CHAIN, "chain", "host", t0,
        t_end - t0, NULL);
    co_trace_complete (priv->trace, 1, TID_CHAIN, "submit", "host", t_submit,
        t_end - t_submit, NULL);
  }
  nvtxRangePop ();

done:
  g_mutex_lock (&priv->lock);
  ret = priv->srcresult;
  g_mutex_unlock (&priv->lock);
  return ret;
}

static void
gst_cuda_overlap_filter_loop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = GST_ELEMENT (self)->srcpads->data;
  GstCudaOverlapFilterFrame *frames;
  GstFlowReturn ret;
  CoEngine *e = priv->engine;
  CoFrame *cf;
  guint64 t0, t1, interval;
  guint i, n;

  t0 = co_engine_now ();
  cf = co_engine_wait_oldest (e);
  if (!cf) {
    gst_pad_pause_task (srcpad);
    return;
  }
  t1 = co_engine_now ();
  /* the frame's buffers: one, or the images of its batch */
  frames = &priv->frames[cf->slot * priv->batch];
  n = priv->slot_images[cf->slot];

  if (cf->error) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("A device operation failed; the frame was dropped"), ("%s",
            cf->error));
    drop_slot (self, cf->slot, n);
    co_engine_release (e, cf);
    g_mutex_lock (&priv->lock);
    priv->srcresult = GST_FLOW_ERROR;
    g_mutex_unlock (&priv->lock);
    return;
  }

  for (i = 0; i < n; i++) {
    GstCudaOverlapFilterFrame *fr = &frames[i];
    GstBuffer *outbuf;
    guint64 t2, t3;

    GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->finish (self, fr);
    outbuf = g_steal_pointer (&fr->outbuf);

    g_mutex_lock (&priv->lock);
    ret = priv->srcresult;
    g_mutex_unlock (&priv->lock);
    if (ret != GST_FLOW_OK) {
      /* downstream failed or we are flushing: keep consuming, push nothing */
      gst_buffer_unref (outbuf);
      frame_release_input (fr);
      continue;
    }

    /* Push first, book-keep after: statistics, trace and the input buffer's
     * release are not on the frame's latency path. */
    nvtxRangePushA ("cudaoverlap push");
    t2 = co_engine_now ();
    ret = gst_pad_push (srcpad, outbuf);
    t3 = co_engine_now ();
    nvtxRangePop ();

    g_mutex_lock (&priv->lock);
    if (priv->srcresult == GST_FLOW_OK)
      priv->srcresult = ret;
    g_mutex_unlock (&priv->lock);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "push returned %s", gst_flow_get_name (ret));

    frame_release_input (fr);
    _gst_cuda_overlap_filter_record_frame (self, fr, cf, t2);
    if (priv->trace)
      co_trace_complete (priv->trace, 1, TID_PUSH, "push", "host", t2,
          t3 - t2, NULL);
  }
  if (priv->trace)
    co_trace_complete (priv->trace, 1, TID_WAIT, "wait", "host", t0,
        t1 - t0, NULL);
  GST_OBJECT_LOCK (self);
  interval = priv->stats_interval;
  GST_OBJECT_UNLOCK (self);
  if (interval > 0 && t1 - priv->last_post_ns >= interval) {
    priv->last_post_ns = t1;
    _gst_cuda_overlap_filter_post_stats (self, FALSE);
  }

  /* released after the push so that drain() means "all pushed" */
  co_engine_release (e, cf);
}

static gboolean
gst_cuda_overlap_filter_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (!active) {
    g_mutex_lock (&priv->lock);
    if (priv->engine)
      co_engine_set_flushing (priv->engine, TRUE);
    if (priv->pool)
      gst_buffer_pool_set_flushing (priv->pool, TRUE);
    priv->srcresult = GST_FLOW_FLUSHING;
    g_mutex_unlock (&priv->lock);
    return gst_pad_stop_task (pad);
  }
  return TRUE;
}

static void
set_flushing (GstCudaOverlapFilter * self, gboolean flushing)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  if (priv->engine)
    co_engine_set_flushing (priv->engine, flushing);
  if (priv->pool)
    gst_buffer_pool_set_flushing (priv->pool, flushing);
  priv->srcresult = flushing ? GST_FLOW_FLUSHING : GST_FLOW_OK;
  g_mutex_unlock (&priv->lock);
}

static gboolean
gst_cuda_overlap_filter_sink_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *srcpad = GST_ELEMENT (self)->srcpads->data;

  GST_LOG_OBJECT (self, "event %" GST_PTR_FORMAT, event);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:{
      gboolean ret;

      set_flushing (self, TRUE);
      ret = gst_pad_push_event (srcpad, event);
      /* wait for the push thread to stop; it drops what it holds */
      gst_pad_pause_task (srcpad);
      return ret;
    }
    case GST_EVENT_FLUSH_STOP:{
      gboolean ret;

      /* frames still in flight are dropped once the device is done with
       * them; nothing of the old segment is pushed after this */
      g_mutex_lock (&priv->lock);
      if (priv->engine)
        drop_in_flight (self, priv->engine);
      g_mutex_unlock (&priv->lock);
      if (GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->flush)
        GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->flush (self);
      co_trace_sync (priv->trace);
      set_flushing (self, FALSE);
      ret = gst_pad_push_event (srcpad, event);
      if (priv->engine)
        gst_pad_start_task (srcpad,
            (GstTaskFunction) gst_cuda_overlap_filter_loop, self, NULL);
      return ret;
    }
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ret;

      gst_event_parse_caps (event, &caps);
      if (priv->caps && gst_caps_is_equal (caps, priv->caps))
        return gst_pad_push_event (srcpad, event);
      /* finish the frames of the old caps, then rebuild */
      drain (self);
      gst_caps_replace (&priv->caps, caps);
      engine_destroy (self);
      if (!engine_create (self, caps)) {
        gst_event_unref (event);
        return FALSE;
      }
      ret = gst_pad_push_event (srcpad, event);
      return ret;
    }
    case GST_EVENT_EOS:
      drain (self);
      if (priv->stats && priv->engine) {
        /* the last window, then the whole run */
        if (co_engine_in_flight (priv->engine) == 0)
          _gst_cuda_overlap_filter_post_stats (self, FALSE);
        _gst_cuda_overlap_filter_post_stats (self, TRUE);
      }
      co_trace_sync (priv->trace);
      return gst_pad_push_event (srcpad, event);
    default:
      if (GST_EVENT_IS_SERIALIZED (event))
        drain (self);
      return gst_pad_event_default (pad, parent, event);
  }
}

static gboolean
gst_cuda_overlap_filter_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  if (GST_QUERY_TYPE (query) == GST_QUERY_ALLOCATION) {
    GstCaps *caps;
    gboolean need_pool;
    GstBufferPool *pool;
    GstAllocationParams params;
    guint n;

    gst_query_parse_allocation (query, &caps, &need_pool);
    if (!caps || !priv->engine)
      return FALSE;
    if (klass->propose_allocation)
      klass->propose_allocation (self, query);
    if (!priv->allocator)
      return TRUE;              /* CPU backend: any memory will do */
    /* Upstream writes straight into page-locked memory. */
    /* every slot's batch (the one being filled holds a slot too) */
    n = co_engine_max_in_flight (priv->engine) * priv->batch;
    gst_allocation_params_init (&params);
    gst_query_add_allocation_param (query, priv->allocator, &params);
    if (need_pool) {
      pool = klass->make_pool (self, caps, 0, priv->allocator,
          n + POOL_EXTRA, n + POOL_EXTRA);
      if (pool) {
        GstStructure *config = gst_buffer_pool_get_config (pool);
        guint size = 0;

        gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
        gst_structure_free (config);
        gst_query_add_allocation_pool (query, pool, size, n + POOL_EXTRA,
            n + POOL_EXTRA);
        gst_object_unref (pool);
      }
    }
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
gst_cuda_overlap_filter_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (parent);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, dur;
    gboolean live;

    if (!gst_pad_peer_query (GST_ELEMENT (self)->sinkpads->data, query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    /* We hold up to max-in-flight frames, but push each one as soon as the
     * device is done: no added minimum, max-in-flight frames of maximum.
     * With batches, a buffer waits for the batch to fill: batch - 1 frame
     * durations of minimum, and max-in-flight batches of maximum. */
    dur = klass->frame_duration ? klass->frame_duration (self) :
        GST_CLOCK_TIME_NONE;
    if (priv->engine && GST_CLOCK_TIME_IS_VALID (dur)) {
      min += dur * (priv->batch - 1);
      if (GST_CLOCK_TIME_IS_VALID (max))
        max += dur * (co_engine_max_in_flight (priv->engine) * priv->batch +
            priv->batch - 1);
    }
    GST_DEBUG_OBJECT (self, "latency min %" GST_TIME_FORMAT " max %"
        GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static GstStateChangeReturn
gst_cuda_overlap_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstCudaOverlapFilter *self = GST_CUDA_OVERLAP_FILTER (element);
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_NULL_TO_READY:{
      CoBackendKind backend;
      gint dev;
      gchar *why = NULL;

      GST_OBJECT_LOCK (self);
      backend = priv->backend;
      dev = priv->device_id;
      GST_OBJECT_UNLOCK (self);
      if (backend == CO_BACKEND_CUDA && !co_cuda_available (MAX (dev, 0), &why)) {
        GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
            ("No usable CUDA device. Use backend=cpu or backend=auto to run "
                "without one."), ("%s", why));
        g_free (why);
        return GST_STATE_CHANGE_FAILURE;
      }
      break;
    }
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      priv->srcresult = GST_FLOW_OK;
      _gst_cuda_overlap_filter_trace_open (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      set_flushing (self, TRUE);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (gst_cuda_overlap_filter_parent_class)->change_state
      (element, transition);

  switch (transition) {
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      engine_destroy (self);
      gst_caps_replace (&priv->caps, NULL);
      g_clear_pointer (&priv->stats, co_stats_free);
      co_trace_close (priv->trace);
      priv->trace = NULL;
      break;
    default:
      break;
  }
  return ret;
}
