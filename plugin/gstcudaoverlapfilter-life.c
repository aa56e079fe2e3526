/* cudaoverlap: GstCudaOverlapFilter's life cycle.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One owner of the engine's life cycle: every caps change, property change,
 * flush, drain (EOS, serialized events) and state change goes through the
 * functions of this file, which move priv->state under priv->lock
 * (gstcudaoverlapfilter-private.h has the lock rules; docs/architecture.md
 * draws the machine):
 *
 *   IDLE ──caps / first buffer──▶ REBUILDING ──built──▶ RUNNING
 *   RUNNING ──serialized event──▶ DRAINING ──all pushed──▶ RUNNING
 *   RUNNING ──params dirty──▶ DRAINING ▶ UPDATING ──▶ RUNNING (or REBUILDING)
 *   RUNNING ──rebuild dirty / new caps──▶ REBUILDING ──▶ RUNNING
 *   any ──PAUSED→READY (after streaming stopped)──▶ IDLE
 *
 * Flushing (FLUSH_START .. FLUSH_STOP) and shutdown (PAUSED→READY ..
 * READY→PAUSED) are flags beside the state, set from any thread under the
 * lock: they put whatever engine and pools are installed into flushing, and
 * an engine installed while one is set is installed flushing, with no push
 * task, so a rebuild carries a flush or a shutdown that arrives meanwhile.
 * Only the streaming thread builds, rebuilds and drains; it never holds the
 * lock while it waits (for the device, the push task or downstream), so a
 * flush or a state change from another thread always gets through and
 * wakes it.
 *
 * Output buffers: a pool allocated at build time (page-locked on CUDA) that
 * grows, while downstream holds its buffers, up to the `pool-budget`
 * property; past that, plainly allocated buffers (one warning).  So a held
 * buffer never blocks chain.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

/* Output buffers beyond the in-flight bound allocated at build time: what
 * downstream (or upstream) usually holds while every slot is busy. */
#define POOL_EXTRA 4

static const gchar *const lc_names[] = {
  "idle", "running", "draining", "updating", "rebuilding"
};

/* With priv->lock. */
static void
set_state_locked (GstCudaOverlapFilter * self, LcState state)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (priv->state != state)
    GST_DEBUG_OBJECT (self, "%s -> %s", lc_names[priv->state], lc_names[state]);
  priv->state = state;
}

static void
set_state (GstCudaOverlapFilter * self, LcState state)
{
  g_mutex_lock (&PRIV (self)->lock);
  set_state_locked (self, state);
  g_mutex_unlock (&PRIV (self)->lock);
}

static gboolean
stopped_locked (GstCudaOverlapFilterPrivate * priv)
{
  return priv->flushing || priv->shutdown;
}

/* With priv->lock: put what is installed into (or out of) flushing. */
static void
apply_flushing_locked (GstCudaOverlapFilterPrivate * priv, gboolean flushing)
{
  if (priv->engine)
    co_engine_set_flushing (priv->engine, flushing);
  if (priv->pool)
    gst_buffer_pool_set_flushing (priv->pool, flushing);
  if (priv->plain_pool)
    gst_buffer_pool_set_flushing (priv->plain_pool, flushing);
  if (flushing)
    priv->srcresult = GST_FLOW_FLUSHING;
  else if (priv->srcresult == GST_FLOW_FLUSHING)
    priv->srcresult = GST_FLOW_OK;
}

/* With priv->lock: the push task runs while an engine is installed and
 * nothing stops it.  Starting a task does not wait for it. */
static void
start_task_locked (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (priv->engine && !stopped_locked (priv))
    gst_pad_start_task (srcpad_of (self),
        (GstTaskFunction) _gst_cuda_overlap_filter_loop, self, NULL);
}

GstFlowReturn
_gst_cuda_overlap_filter_srcresult (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret;

  g_mutex_lock (&priv->lock);
  ret = priv->srcresult;
  g_mutex_unlock (&priv->lock);
  return ret;
}

/* ---- frames -------------------------------------------------------------- */

/* The device has finished reading the frame's input (or never will): drop
 * the frame's reference on its host ranges first, then the buffer, so that
 * a range is unregistered before the input's memory can be freed. */
void
_gst_cuda_overlap_filter_release_input (GstCudaOverlapFilterFrame * fr)
{
  g_clear_pointer (&fr->host_ref, co_hostref_release);
  gst_clear_buffer (&fr->inbuf);
}

/* The device has finished reading @fr's input (co_engine_next_read())
 * while the frame's kernels and copies out may still run: unmap and drop
 * it now, so that the application's buffer (a slot of its ring) comes back
 * before the frame is pushed.  Kept: an input in CUDA memory (the kernels
 * read it in place), and the input of a subclass without finish_input.
 * The output's metadata was copied from the input at chain time. */
void
_gst_cuda_overlap_filter_release_read (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  if (!fr->inbuf || fr->path == CO_PATH_DEVICE || !klass->finish_input)
    return;
  klass->finish_input (self, fr);
  _gst_cuda_overlap_filter_release_input (fr);
}

void
_gst_cuda_overlap_filter_frame_drop (GstCudaOverlapFilter * self,
    GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  if (fr->inbuf || fr->outbuf)
    klass->finish (self, fr);
  _gst_cuda_overlap_filter_release_input (fr);
  gst_clear_buffer (&fr->outbuf);
}

/* Drops the first @n buffers of @slot's batch. */
void
_gst_cuda_overlap_filter_drop_slot (GstCudaOverlapFilter * self, guint slot,
    guint n)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint i;

  for (i = 0; i < n; i++)
    _gst_cuda_overlap_filter_frame_drop (self,
        &priv->frames[slot * priv->batch + i]);
}

/* Drops the batch being filled, then waits for every submitted frame to
 * finish on the device and drops it.  Only with the engine flushing and the push
 * task stopped or paused (we are then its only consumer), and without
 * priv->lock. */
static void
drop_in_flight (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoFrame *cf;

  /* first, so that the batch timer cannot submit it meanwhile */
  gst_cuda_overlap_batch_cancel (self);
  while ((cf = co_engine_wait_oldest (priv->engine))) {
    _gst_cuda_overlap_filter_drop_slot (self, cf->slot,
        priv->slot_images[cf->slot]);
    co_engine_release (priv->engine, cf);
  }
}

/* Submits the batch being filled (full, or partial before a serialized
 * event or a DRAIN).  Streaming thread. */
static GstFlowReturn
submit_pending (GstCudaOverlapFilter * self)
{
  GError *err = NULL;

  if (gst_cuda_overlap_batch_submit (self, &err))
    return GST_FLOW_OK;
  return _gst_cuda_overlap_filter_submit_failed (self, err);
}

/* A submission failed (@err, taken): the frame is queued failed, the push
 * task drops it.  Posts the element error; GST_FLOW_ERROR. */
GstFlowReturn
_gst_cuda_overlap_filter_submit_failed (GstCudaOverlapFilter * self,
    GError * err)
{
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Submitting a frame to the device failed"), ("%s", err->message));
  g_error_free (err);
  return GST_FLOW_ERROR;
}

/* ---- output buffers -------------------------------------------------------- */

/* The most buffers downstream asks to hold (its ALLOCATION answer's min),
 * so that the pool allocates them up front instead of growing. */
static guint
downstream_min_buffers (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstQuery *q = gst_query_new_allocation (caps, FALSE);
  guint i, m, min = 0;

  if (gst_pad_peer_query (srcpad_of (self), q)) {
    for (i = 0; i < gst_query_get_n_allocation_pools (q); i++) {
      gst_query_parse_nth_allocation_pool (q, i, NULL, NULL, &m, NULL);
      min = MAX (min, m);
    }
  }
  gst_query_unref (q);
  return MIN (min, 64);
}

static void
pool_free (GstBufferPool * pool)
{
  if (!pool)
    return;
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* Activates @pool (configured with min 0) and allocates @n buffers now.
 * Not through the config's min: a pool whose activation fails part-way
 * keeps the buffers it made (GStreamer 1.22); acquired ones go back to an
 * active pool, which frees them when it stops. */
static gboolean
activate_pool (GstBufferPool * pool, guint n)
{
  GstBuffer **bufs;
  gboolean ok = TRUE;
  guint i, got = 0;

  if (!pool || !gst_buffer_pool_set_active (pool, TRUE))
    return FALSE;
  bufs = g_new0 (GstBuffer *, MAX (n, 1));
  for (i = 0; i < n && ok; i++)
    if ((ok = gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL) ==
            GST_FLOW_OK))
      got++;
  for (i = 0; i < got; i++)
    gst_buffer_unref (bufs[i]);
  g_free (bufs);
  if (!ok)
    gst_buffer_pool_set_active (pool, FALSE);
  return ok;
}

/* A pool of page-locked buffers: @first made now (the first frames), the
 * rest made as frames need them, or taken from what earlier pools of the
 * process gave back (engine/co-hostkeep.h). */
static gboolean
activate_pinned (GstCudaOverlapFilter * self, GstBufferPool * pool,
    gsize size, guint first)
{
  gint64 t0 = g_get_monotonic_time ();

  if (!activate_pool (pool, first))
    return FALSE;
  GST_INFO_OBJECT (self, "%u buffers of %" G_GSIZE_FORMAT " bytes ready in "
      "%.3f ms", first, size, (g_get_monotonic_time () - t0) / 1000.0);
  return TRUE;
}

/* Staged input (foreign memory that cannot be copied from directly) is
 * copied into these: page-locked, one per image in flight, made when the
 * first frame is staged.  The output size bounds the input (same caps, or
 * the audio capacity); a larger input gets a buffer of its own. */
static gboolean
build_staging (GstCudaOverlapFilter * self, gsize size, guint slots)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint n = slots * priv->batch;

  gst_buffer_pool_config_set_params (config, NULL, size, 0, n);
  gst_buffer_pool_config_set_allocator (config, priv->allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !activate_pinned (self, pool, size, 0)) {
    gst_object_unref (pool);
    return FALSE;
  }
  priv->staging = pool;
  priv->staging_size = size;
  return TRUE;
}

/* The output pool: @min buffers now, growing to the budget while
 * streaming (page-locked), or without bound on the CPU backend.  Returned
 * in *@pool, installed later under the lock (a flush from another thread
 * must not see it half-made). */
static gboolean
build_pool (GstCudaOverlapFilter * self, CoEngine * e, GstCaps * caps,
    gsize out_size, GstBufferPool ** pool, GError ** error)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  gboolean cuda = co_engine_backend (e) == CO_BACKEND_CUDA;
  guint64 budget;
  guint min, max;

  guint down_min = 0;

  GST_OBJECT_LOCK (self);
  budget = priv->pool_budget;
  GST_OBJECT_UNLOCK (self);
  priv->allocator = cuda ?
      gst_cuda_overlap_pinned_allocator_new (gst_cuda_overlap_filter_device_id
      (self)) : gst_cuda_overlap_try_allocator_get ();
  if (priv->out_cuda) {
    /* device memory of the CUDA context (gstcudaoverlapfilter-devmem.c) */
    *pool = gst_cuda_overlap_devmem_output_pool (self, priv->src_caps,
        out_size, &down_min);
  } else {
    down_min = downstream_min_buffers (self, priv->src_caps ?
        priv->src_caps : caps);
  }
  /* every slot's batch, the batch being filled, and downstream's share */
  min = (co_engine_max_in_flight (e) + 1) * priv->batch + POOL_EXTRA + down_min;
  max = cuda ? (guint) MIN (MAX (min, budget / MAX (out_size, 1)), G_MAXUINT)
      : 0;
  priv->pool_min = min;
  if (!priv->out_cuda)
    *pool = klass->make_pool (self, caps, out_size, priv->allocator, 0, max);
  /* staged input: host memory that cannot be copied from in place */
  if ((cuda && !priv->out_cuda ? activate_pinned (self, *pool, out_size,
              MIN (min, CO_FIRST_BUFFERS))
          : activate_pool (*pool, min)) && (!cuda || priv->in_cuda ||
          build_staging (self, out_size, co_engine_max_in_flight (e))))
    return TRUE;
  pool_free (g_steal_pointer (pool));
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
      "could not allocate %u output buffers (and, on CUDA, as many input "
      "staging buffers) of %" G_GSIZE_FORMAT " bytes (%s memory, %.1f MiB "
      "in all)", min, out_size, priv->out_cuda ? "device" :
      cuda ? "page-locked" : "system", (gdouble) min * out_size / (1 << 20));
  return FALSE;
}

/* Past the budget: a pool of plain system memory, made once. */
static GstFlowReturn
acquire_plain (GstCudaOverlapFilter * self, GstBuffer ** outbuf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstBufferPool *pool;
  GstAllocator *alloc;
  GstStructure *config;
  guint size = 0;

  if (!priv->plain_pool) {
    config = gst_buffer_pool_get_config (priv->pool);
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
    alloc = gst_cuda_overlap_try_allocator_get ();
    pool = klass->make_pool (self, priv->caps, size, alloc, 0, 0);
    gst_object_unref (alloc);
    if (!activate_pool (pool, 0))
      goto no_memory;
    g_mutex_lock (&priv->lock);
    priv->plain_pool = pool;
    if (stopped_locked (priv))
      gst_buffer_pool_set_flushing (pool, TRUE);
    g_mutex_unlock (&priv->lock);
  }
  if (!priv->warned_plain) {
    priv->warned_plain = TRUE;
    GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
        ("Downstream holds more output buffers than the pool-budget allows: "
            "further output buffers are plain memory, whose device-to-host "
            "copies are synchronous (slower). Raise pool-budget to keep "
            "them page-locked."), ("page-locked output pool at its maximum"));
  }
  return gst_buffer_pool_acquire_buffer (priv->plain_pool, outbuf, NULL);

  /* ERRORS */
no_memory:
  {
    gst_clear_object (&pool);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory for output buffers"),
        ("downstream holds every buffer of the output pool and a plain "
            "buffer of %u bytes could not be allocated", size));
    return GST_FLOW_ERROR;
  }
}

/* An output buffer, never waiting for one that downstream holds: the pool
 * grows (page-locked, up to the budget), then plain buffers.  Streaming
 * thread. */
GstFlowReturn
_gst_cuda_overlap_filter_acquire_output (GstCudaOverlapFilter * self,
    GstBuffer ** outbuf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBufferPoolAcquireParams params = { 0, };
  GstFlowReturn ret;

  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  ret = gst_buffer_pool_acquire_buffer (priv->pool, outbuf, &params);
  if (ret == GST_FLOW_ERROR && priv->out_cuda) {
    /* no maximum: the device is out of memory; CUDA memory or nothing */
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of device memory for output buffers"),
        ("downstream holds every CUDA-memory output buffer and no new one "
            "could be allocated"));
  } else if (ret == GST_FLOW_EOS || ret == GST_FLOW_ERROR) {
    /* at its maximum, or page-locked memory ran out while growing */
    GST_DEBUG_OBJECT (self, "output pool exhausted (%s)",
        gst_flow_get_name (ret));
    ret = acquire_plain (self, outbuf);
  }
  return ret;
}

/* ---- build and teardown ---------------------------------------------------- */

static void
read_config (GstCudaOverlapFilter * self, CoEngineConfig * cfg)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  memset (cfg, 0, sizeof (*cfg));
  GST_OBJECT_LOCK (self);
  cfg->backend = priv->backend;
  cfg->device_id = priv->device_id;
  cfg->streams = priv->streams;
  cfg->chunks = priv->chunks;
  cfg->mode = priv->mode;
  cfg->max_in_flight = priv->max_in_flight;
  cfg->wait = priv->wait_mode;
  cfg->submit_thread = priv->submit_thread;
  GST_OBJECT_UNLOCK (self);
  cfg->name = GST_OBJECT_NAME (self);
  if (cfg->mode == CO_MODE_SERIAL)
    cfg->streams = cfg->chunks = 1;
  if (cfg->backend != CO_BACKEND_CPU) {
    /* the pipeline's CUDA context: the engine runs in it, on its device */
    GstObject *ctx = gst_cuda_overlap_context_get (self,
        &cfg->device_context, &cfg->device_id);

    /* held by priv->context.ctx until READY->NULL, after the engine is gone */
    if (ctx)
      gst_object_unref (ctx);
  }
}

/* operation=custom: the message names the file, the kernel and the CUDA
 * (or GModule) message: what the user must fix.  A kernel-source that does
 * not compile: its first line, with the compiler's log (the lines after
 * it) in the debug text and in the log. */
static void
post_kernel_error (GstCudaOverlapFilter * self, GstCaps * caps,
    const gchar * message)
{
  const gchar *nl = strchr (message, '\n');
  gchar *first = g_strndup (message, nl ? (gsize) (nl - message) :
      strlen (message));

  /* "...:" introduces the log */
  if (nl && g_str_has_suffix (first, ":"))
    first[strlen (first) - 1] = '\0';

  if (nl)
    GST_ERROR_OBJECT (self, "%s", message);
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", first),
      ("operation=custom, caps %" GST_PTR_FORMAT "%s%s", caps,
          nl ? "; the compiler's log:" : "", nl ? nl : ""));
  g_free (first);
}

static void
post_build_error (GstCudaOverlapFilter * self, GstCaps * caps, GError * err,
    gboolean configured)
{
  if (!configured)
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot process %" GST_PTR_FORMAT, caps), ("%s", err->message));
  else if (g_error_matches (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE))
    _gst_cuda_overlap_filter_no_device_error (self, err->message);
  else if (g_error_matches (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_KERNEL))
    post_kernel_error (self, caps, err->message);
  else if (g_error_matches (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY))
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate the memory for %" GST_PTR_FORMAT ". Use "
            "smaller frames, or fewer frames in flight (max-in-flight, "
            "streams).", caps), ("%s", err->message));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not set up the CUDA engine"), ("%s", err->message));
}

void
_gst_cuda_overlap_filter_no_device_error (GstCudaOverlapFilter * self,
    const gchar * why)
{
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("No usable CUDA device. Use backend=cpu or backend=auto to run "
          "without one."), ("%s", why));
}

static void
frames_new (GstCudaOverlapFilter * self, guint slots)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  guint i;

  priv->n_frames = slots * priv->batch;
  priv->frames = g_new0 (GstCudaOverlapFilterFrame, priv->n_frames);
  for (i = 0; i < priv->n_frames; i++) {
    priv->frames[i].image = i % priv->batch;
    priv->frames[i].priv = g_malloc0 (MAX (klass->frame_priv_size, 1));
  }
  priv->slot_images = g_new0 (guint, slots);
}

static void
frames_free (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint i;

  for (i = 0; i < priv->n_frames; i++) {
    _gst_cuda_overlap_filter_frame_drop (self, &priv->frames[i]);
    g_free (priv->frames[i].priv);
  }
  g_clear_pointer (&priv->frames, g_free);
  g_clear_pointer (&priv->slot_images, g_free);
  priv->n_frames = 0;
}

/* Installs a built engine; the push task starts unless flushing or shut
 * down, which the new engine and pool then inherit. */
static void
install (GstCudaOverlapFilter * self, CoEngine * e, GstBufferPool * pool)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->engine = e;
  priv->pool = pool;
  priv->in_flight_max = co_engine_max_in_flight (e);
  set_state_locked (self, LC_RUNNING);
  apply_flushing_locked (priv, stopped_locked (priv));
  start_task_locked (self);
  g_mutex_unlock (&priv->lock);
}

/* The settings that only the CUDA backend uses, where they differ from
 * what the CPU backend does ("cuda-device-id=3, wait-mode=spin"), or NULL.
 * The CPU backend uses no device, waits by blocking, and its output pool
 * is plain memory without a budget.  Free it. */
static gchar *
gpu_only_settings (GstCudaOverlapFilter * self)
{
  static const gchar *const names[] = { "cuda-device-id", "wait-mode",
    "pool-budget"
  };
  GObjectClass *klass = G_OBJECT_GET_CLASS (self);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *ps = g_object_class_find_property (klass, names[i]);
    GValue v = G_VALUE_INIT;
    gchar *text;

    g_value_init (&v, ps->value_type);
    g_object_get_property (G_OBJECT (self), names[i], &v);
    if (!g_param_value_defaults (ps, &v) && !(G_VALUE_HOLDS_ENUM (&v) &&
            g_value_get_enum (&v) == CO_WAIT_BLOCKING)) {
      text = gst_value_serialize (&v);
      g_string_append_printf (s, "%s%s=%s", s->len ? ", " : "", names[i], text);
      g_free (text);
    }
    g_value_unset (&v);
  }
  return g_string_free (s, s->len == 0);
}

/* GPU-only settings @set (or NULL) on the CPU backend: say which, once per
 * set of them. */
static void
warn_gpu_only (GstCudaOverlapFilter * self, const gchar * set)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint hash = set ? g_str_hash (set) | 1 : 0;

  if (set && priv->warned_gpu_only != hash)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("Settings for the GPU have no effect on the CPU backend: %s", set),
        ("the CPU backend uses no CUDA device, waits by blocking, and "
            "makes plain output buffers without a budget; the passport "
            "shows the settings in effect"));
  priv->warned_gpu_only = hash;
}

/* backend=auto runs on the CPU: say why, once per reason, in one warning
 * with the GPU-only settings @set (or NULL) that have no effect then. */
static void
warn_fallback (GstCudaOverlapFilter * self, gint device_id,
    const gchar * reason, const gchar * set)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint hash = g_str_hash (reason) | 1;

  if (priv->warned_fallback == hash) {
    warn_gpu_only (self, set);
    return;
  }
  priv->warned_fallback = hash;
  priv->warned_gpu_only = set ? g_str_hash (set) | 1 : 0;
  GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
      ("No usable GPU: running on the CPU backend (slower): %s. Set "
          "backend=cpu to choose the CPU without this warning.", reason),
      ("backend=auto, cuda-device-id=%d: %s%s%s", device_id, reason,
          set ? "; no effect on the CPU backend: " : "", set ? set : ""));
}

/* Why engine @e runs on its backend (the passport's backend-reason), for
 * backend @asked on @device_id; on the CPU backend, the warning a user
 * needs: backend=auto's reason, GPU-only settings. */
static void
note_backend (GstCudaOverlapFilter * self, CoBackendKind asked,
    gint device_id, CoEngine * e)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gchar *reason, *set = NULL;

  if (co_engine_backend (e) == CO_BACKEND_CUDA) {
    reason = g_strdup (asked == CO_BACKEND_AUTO ?
        "backend=auto: a CUDA device is usable" : "backend=cuda is set");
  } else if (asked == CO_BACKEND_CPU) {
    reason = g_strdup ("backend=cpu is set");
    warn_gpu_only (self, (set = gpu_only_settings (self)));
  } else {
    if (!(reason = co_engine_backend_fallback_reason (device_id)))
      reason = g_strdup ("no CUDA device was usable when the engine was "
          "made");
    warn_fallback (self, device_id, reason, (set = gpu_only_settings (self)));
  }
  g_free (set);
  g_free (priv->stats.backend_reason);
  priv->stats.backend_reason = reason;
}

/* CUDA memory on a pad: the engine must run on the CUDA backend (auto
 * does not fall back to the CPU then) in the pipeline's CUDA context. */
static gboolean
check_cuda_memory (GstCudaOverlapFilter * self, CoEngineConfig * cfg,
    GError ** error)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gchar *why = NULL;

  if (!priv->in_cuda && !priv->out_cuda)
    return TRUE;
  if (cfg->backend == CO_BACKEND_CPU && gst_cuda_overlap_cuda_fake_host ())
    return TRUE;                /* test builds: host memory stands in */
  if (cfg->backend != CO_BACKEND_CPU && cfg->device_context) {
    cfg->backend = CO_BACKEND_CUDA;
    return TRUE;
  }
  if (gst_cuda_overlap_context_memory_usable (self, &why) && !why)
    why = g_strdup ("no CUDA context could be found or made");
  gst_cuda_overlap_context_refused (self, why);
  g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
      "CUDA memory needs the CUDA backend and a CUDA context: %s", why);
  g_free (why);
  return FALSE;
}

/* Builds engine, pool and frames for @caps and installs them.  Posts an
 * element error on failure.  Streaming thread, nothing installed. */
static gboolean
build (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoEngineConfig cfg;
  CoBackendKind asked;
  GError *err = NULL;
  CoEngine *e = NULL;
  GstBufferPool *pool = NULL;
  gsize out_size;

  read_config (self, &cfg);
  asked = cfg.backend;
  gst_cuda_overlap_tune_config (self, caps, &cfg);
  out_size = check_cuda_memory (self, &cfg, &err) ?
      klass->configure (self, caps, &cfg, &err) : 0;
  if (!out_size)
    goto config_failed;
  g_mutex_lock (&priv->lock);
  priv->batch = klass->batch_size ? MAX (klass->batch_size (self), 1) : 1;
  g_mutex_unlock (&priv->lock);
  e = co_engine_new (&cfg, &err);
  if (!e || (klass->engine_ready && !klass->engine_ready (self, e, &err)) ||
      !build_pool (self, e, caps, out_size, &pool, &err))
    goto build_failed;
  note_backend (self, asked, cfg.device_id, e);
  frames_new (self, co_engine_max_in_flight (e));
  gst_cuda_overlap_stats_begin (&priv->stats);
  priv->warned_plain = FALSE;
  gst_cuda_overlap_batch_start (self, priv->batch);
  install (self, e, pool);
  gst_cuda_overlap_tune_built (self);

  gst_cuda_overlap_stats_post_passport (self, caps, out_size);
  GST_INFO_OBJECT (self, "engine ready: backend %s, %u streams, %u chunks, "
      "%u frames in flight at most, %u buffers per frame, %u output buffers "
      "allocated", co_engine_backend (e) == CO_BACKEND_CUDA ? "cuda" : "cpu",
      co_engine_streams (e), co_engine_chunks (e), co_engine_max_in_flight (e),
      priv->batch, priv->pool_min);
  return TRUE;

  /* ERRORS */
config_failed:
  {
    post_build_error (self, caps, err, FALSE);
    g_clear_error (&err);
    return FALSE;
  }
build_failed:
  {
    post_build_error (self, caps, err, TRUE);
    g_clear_error (&err);
    co_engine_free (e);
    gst_clear_object (&priv->allocator);
    return FALSE;
  }
}

/* On the push task's own thread: the task stops once its loop returns
 * (it cannot join itself; gst_pad_stop_task() would try).  A later
 * gst_pad_start_task() starts it again, gst_pad_stop_task() joins it. */
static GstTask *
pad_task_ref (GstPad * pad)
{
  GstTask *task;

  GST_OBJECT_LOCK (pad);
  task = GST_PAD_TASK (pad) ? gst_object_ref (GST_PAD_TASK (pad)) : NULL;
  GST_OBJECT_UNLOCK (pad);
  return task;
}

void
_gst_cuda_overlap_filter_stop_own_task (GstPad * pad)
{
  GstTask *task = pad_task_ref (pad);

  if (task) {
    gst_task_stop (task);
    gst_object_unref (task);
  }
}

/* Stops (@stop) or pauses the push task from the streaming thread, which
 * holds the sink pad's stream lock.  A stop from inside the push task (a
 * probe, a bus sync handler on it: gstcudaoverlapfilter.c) waits for
 * that lock to deactivate the sink pad while the task holds its own, so
 * this waits for the task without blocking on it, and gives up (FALSE)
 * once such a stop has begun: the task then tears down itself when its
 * loop returns. */
static gboolean
halt_task (GstCudaOverlapFilter * self, gboolean stop)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstPad *pad = srcpad_of (self);
  GRecMutex *lock = GST_PAD_GET_STREAM_LOCK (pad);
  GstTask *task = pad_task_ref (pad);
  gboolean inside = FALSE;

  if (task) {
    /* the loop leaves at the end of its frame (the engine is flushing) */
    if (gst_task_get_state (task) == GST_TASK_STARTED)
      gst_task_set_state (task, stop ? GST_TASK_STOPPED : GST_TASK_PAUSED);
    while (!g_rec_mutex_trylock (lock)) {
      g_mutex_lock (&priv->lock);
      inside = priv->stopping_inside;
      g_mutex_unlock (&priv->lock);
      if (inside)
        break;
      g_usleep (50);
    }
    if (!inside)
      g_rec_mutex_unlock (lock);
    gst_object_unref (task);
  }
  if (inside) {
    GST_DEBUG_OBJECT (self, "the push task stops the element: it tears "
        "down itself");
    return FALSE;
  }
  /* (FALSE from these only means there was no task) */
  if (stop)
    gst_pad_stop_task (pad);
  else
    gst_pad_pause_task (pad);
  return TRUE;
}

/* Stops the push task, drops what is in flight and frees engine, pools and
 * frames.  Streaming thread, or a state change once streaming stopped;
 * @on_task: the push task's own thread, which cannot join itself: the
 * task is stopped without a join (it is at the end of its loop). */
static void
teardown (GstCudaOverlapFilter * self, gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool, *plain;
  CoEngine *e;

  g_mutex_lock (&priv->lock);
  e = priv->engine;
  /* the engine only: srcresult stays what it is */
  if (e)
    co_engine_set_flushing (e, TRUE);
  g_mutex_unlock (&priv->lock);

  gst_cuda_overlap_batch_stop (self);
  /* joins the push task; it drops what it holds */
  if (on_task)
    _gst_cuda_overlap_filter_stop_own_task (srcpad_of (self));
  else if (!halt_task (self, TRUE))
    return;
  if (e)
    drop_in_flight (self);

  g_mutex_lock (&priv->lock);
  priv->engine = NULL;
  priv->in_flight_max = 0;
  pool = g_steal_pointer (&priv->pool);
  plain = g_steal_pointer (&priv->plain_pool);
  set_state_locked (self, LC_IDLE);
  g_mutex_unlock (&priv->lock);

  co_engine_free (e);
  frames_free (self);
  pool_free (pool);
  pool_free (plain);
  pool_free (g_steal_pointer (&priv->staging));
  gst_clear_object (&priv->allocator);
}

/* ---- the transitions ------------------------------------------------------- */

/* Submits the batch being filled, then waits until every frame in flight
 * has been pushed.  FALSE when flushing (or shut down) or when a frame
 * failed.  Streaming thread. */
gboolean
_gst_cuda_overlap_filter_drain (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean ret;

  if (!priv->engine)
    return TRUE;
  set_state (self, LC_DRAINING);
  ret = submit_pending (self) == GST_FLOW_OK;
  ret = co_engine_drain (priv->engine) && ret;
  g_mutex_lock (&priv->lock);
  if (priv->state == LC_DRAINING)
    set_state_locked (self, LC_RUNNING);
  g_mutex_unlock (&priv->lock);
  return ret;
}

/* Drains; TRUE when a flush (or a state change to READY) cut the drain
 * short: frames of before may still be on their way downstream. */
gboolean
_gst_cuda_overlap_filter_drain_cut (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean cut;

  _gst_cuda_overlap_filter_drain (self);
  g_mutex_lock (&priv->lock);
  cut = priv->flushing || priv->shutdown;
  g_mutex_unlock (&priv->lock);
  return cut;
}

/* Before serialized @event goes downstream: drains.  GST_FLOW_OK when
 * the event may go (every frame in flight was pushed, or a frame failed and
 * the others were pushed).  When a flush (or a state change to READY) cut
 * the drain short, frames of before the event may still be inside the push
 * task's gst_pad_push (it checked for flushing just before): the event
 * would overtake them (new caps, then a frame of the old ones), so it is
 * dropped (unreffed) and GST_FLOW_FLUSHING returned, as a flushing pad
 * refuses it; upstream sends a sticky one again after the flush. */
GstFlowReturn
_gst_cuda_overlap_filter_drain_event (GstCudaOverlapFilter * self,
    GstEvent * event)
{
  if (!_gst_cuda_overlap_filter_drain_cut (self))
    return GST_FLOW_OK;
  GST_DEBUG_OBJECT (self, "flushing: %" GST_PTR_FORMAT " dropped, it would "
      "overtake the frames in flight", event);
  gst_event_unref (event);
  return GST_FLOW_FLUSHING;
}

/* Drains, tears down and builds anew for priv->caps.  While flushing or
 * shut down, only tears down: the build waits for the next buffer. */
static GstFlowReturn
rebuild (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gboolean stopped;

  _gst_cuda_overlap_filter_drain (self);
  g_mutex_lock (&priv->lock);
  set_state_locked (self, LC_REBUILDING);
  /* the build reads every setting anew; a change from now on rebuilds
   * again at the next buffer */
  priv->dirty = LC_DIRTY_NONE;
  g_mutex_unlock (&priv->lock);
  teardown (self, FALSE);
  g_mutex_lock (&priv->lock);
  stopped = stopped_locked (priv);
  if (stopped)
    priv->dirty = LC_DIRTY_REBUILD;
  g_mutex_unlock (&priv->lock);
  if (stopped)
    return GST_FLOW_FLUSHING;
  if (build (self, priv->caps))
    return GST_FLOW_OK;
  g_mutex_lock (&priv->lock);
  priv->build_failed = TRUE;
  g_mutex_unlock (&priv->lock);
  return GST_FLOW_ERROR;
}

/* New constants without a rebuild, when the subclass can. */
static GstFlowReturn
update (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GError *err = NULL;
  gboolean done;

  if (!klass->update)
    return rebuild (self);
  if (!_gst_cuda_overlap_filter_drain (self)) {
    /* flushing: the change applies after it */
    g_mutex_lock (&priv->lock);
    priv->dirty = MAX (priv->dirty, LC_DIRTY_PARAMS);
    g_mutex_unlock (&priv->lock);
    return _gst_cuda_overlap_filter_srcresult (self);
  }
  set_state (self, LC_UPDATING);
  done = klass->update (self, priv->engine, &err);
  set_state (self, LC_RUNNING);
  if (err)
    goto update_failed;
  return done ? GST_FLOW_OK : rebuild (self);

  /* ERRORS */
update_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not apply the new settings"), ("%s", err->message));
    g_clear_error (&err);
    return GST_FLOW_ERROR;
  }
}

/* Before each buffer: an engine that fits the caps and the properties.
 * Streaming thread. */
GstFlowReturn
_gst_cuda_overlap_filter_ensure (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  LcDirty dirty;

  g_mutex_lock (&priv->lock);
  if (stopped_locked (priv)) {
    g_mutex_unlock (&priv->lock);
    return GST_FLOW_FLUSHING;
  }
  if (!priv->engine && priv->build_failed && priv->dirty == LC_DIRTY_NONE) {
    /* the same settings would fail the same way: posted once already */
    g_mutex_unlock (&priv->lock);
    return GST_FLOW_ERROR;
  }
  dirty = priv->engine ? priv->dirty : LC_DIRTY_REBUILD;
  priv->dirty = LC_DIRTY_NONE;
  g_mutex_unlock (&priv->lock);

  if (dirty == LC_DIRTY_NONE)
    return GST_FLOW_OK;
  if (!priv->caps)
    return GST_FLOW_NOT_NEGOTIATED;
  if (dirty == LC_DIRTY_PARAMS)
    return update (self);
  return rebuild (self);
}

/* New caps: the frames of the old ones are pushed first.  Streaming
 * thread. */
gboolean
_gst_cuda_overlap_filter_set_caps (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret;

  _gst_cuda_overlap_filter_drain (self);
  gst_caps_replace (&priv->caps, caps);
  gst_cuda_overlap_batch_forget (&priv->filling);       /* new caps */
  g_mutex_lock (&priv->lock);
  priv->build_failed = FALSE;   /* new caps: worth a new try */
  g_mutex_unlock (&priv->lock);
  ret = rebuild (self);
  return ret == GST_FLOW_OK || ret == GST_FLOW_FLUSHING;
}

/* FLUSH_START (or a lone FLUSH_STOP): any thread.  The caller then pauses
 * the push task, outside the lock. */
void
_gst_cuda_overlap_filter_flush_start (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->flushing = TRUE;
  apply_flushing_locked (priv, TRUE);
  g_mutex_unlock (&priv->lock);
}

/* FLUSH_STOP: streaming thread.  Without a FLUSH_START before it, flushes
 * first.  Frames in flight are dropped once the device is done with them;
 * nothing of the old segment is pushed after this. */
void
_gst_cuda_overlap_filter_flush_stop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);

  g_mutex_lock (&priv->lock);
  if (!priv->flushing) {
    GST_DEBUG_OBJECT (self, "FLUSH_STOP without FLUSH_START: flushing now");
    priv->flushing = TRUE;
    apply_flushing_locked (priv, TRUE);
  }
  g_mutex_unlock (&priv->lock);

  if (!halt_task (self, FALSE))
    return;                     /* stopping: the teardown drops the frames */
  if (priv->engine)
    drop_in_flight (self);
  if (klass->flush)
    klass->flush (self);
  co_trace_sync (priv->stats.trace);

  g_mutex_lock (&priv->lock);
  priv->flushing = FALSE;
  if (!priv->shutdown) {
    apply_flushing_locked (priv, FALSE);
    start_task_locked (self);
  }
  g_mutex_unlock (&priv->lock);
}

/* PAUSED→READY (TRUE, before the pads are deactivated, and when the src
 * pad is deactivated) and READY→PAUSED (FALSE).  Any thread. */
void
_gst_cuda_overlap_filter_set_shutdown (GstCudaOverlapFilter * self,
    gboolean shutdown)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->shutdown = shutdown;
  if (shutdown) {
    apply_flushing_locked (priv, TRUE);
  } else {
    priv->flushing = FALSE;
    priv->srcresult = GST_FLOW_OK;
  }
  g_mutex_unlock (&priv->lock);
}

/* PAUSED→READY, once the pads are deactivated (no chain, no push task, or
 * @on_task: on the push task's thread, at the end of its loop). */
void
_gst_cuda_overlap_filter_teardown (GstCudaOverlapFilter * self,
    gboolean on_task)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  teardown (self, on_task);
  gst_cuda_overlap_batch_forget (&priv->filling);
  gst_clear_object (&priv->proposed);
  gst_cuda_overlap_tune_reset (&priv->tune);
  g_mutex_lock (&priv->lock);
  priv->dirty = LC_DIRTY_NONE;
  priv->build_failed = FALSE;
  g_mutex_unlock (&priv->lock);
  gst_caps_replace (&priv->caps, NULL);
  gst_caps_replace (&priv->src_caps, NULL);
  priv->in_cuda = priv->out_cuda = FALSE;
  /* the next run starts processing; its first buffer checks again */
  g_atomic_int_set (&priv->passthrough, FALSE);
}
