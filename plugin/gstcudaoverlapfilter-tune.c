/* cudaoverlap: GstCudaOverlapFilter's automatic settings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `streams`, `chunks` and `batch` at 0 and `wait-mode=auto` (the defaults)
 * are chosen by the rules of engine/co-tune.h, from what the element knows:
 * the backend and the device (copy engines), the caps (frame size, rows,
 * rate), the operation's cost, whether upstream is live (its answer to a
 * LATENCY query) and, once measured, the first frames' device times per
 * kind, the upstream thread's CPU time in chain and how many frames were
 * staged.  `submit-thread`, unless set, is chosen too (staged input from a
 * non-live source).
 *
 * Each build (gstcudaoverlapfilter-life.c) asks tune_config() for the
 * settings.  A build whose static input (caps, properties, liveness) is
 * new takes the static choice and measures: the push thread takes the
 * statistics of CO_TUNE_MEASURE_FRAMES frames after CO_TUNE_MEASURE_SKIP,
 * chain times the same frames; then, before the next buffer, the choice
 * is made once more with the measures.  A different choice marks the
 * engine dirty, so the life cycle drains and rebuilds (no frame lost or
 * reordered); the rebuild applies it and nothing is measured again until
 * the static input changes (new caps, a property).  A change of batch
 * posts a LATENCY message.  An explicit value is never changed.
 *
 * Spinning waits are budgeted process-wide: each engine that spins holds a
 * token of `spinners` (explicit wait-mode=spin too); the rules spin only
 * while fewer than CO_TUNE_MAX_SPINNERS are held.
 *
 * Devices are shared process-wide the same way: each built engine holds a
 * token of `sharers` for its device (the CPU backend is one more "device"),
 * and the rules give each engine its part of the device's hardware queues
 * (of the cores).  An engine sees the others when it is built and when it
 * decides with its measures; one built earlier is not rebuilt when more
 * come (its next build sees them).
 *
 * Threads: everything here is the streaming thread's ([S] in
 * gstcudaoverlapfilter-private.h), except tune_pushed(), the push thread's,
 * which writes the device measures and then sets `measured` (atomic).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "gstcudaoverlapfilter-private.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

enum
{
  TUNE_NEW,                     /* no choice yet (or a new stream) */
  TUNE_MEASURING,               /* static choice built; measuring */
  TUNE_APPLYING,                /* a measured choice waits for its rebuild */
  TUNE_DONE,                    /* measured choice in effect */
};

/* Engines of the process that wait by spinning. */
static gint spinners;

/* Engines of the process built per device: [0] the CPU backend, [1 + n]
 * CUDA device n (the last slot also counts any device beyond). */
#define SHARE_SLOTS 17
static gint sharers[SHARE_SLOTS];

static guint64
thread_cpu_ns (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* A token of the spinning budget: within it (@bounded), or always (an
 * explicit wait-mode=spin). */
static gboolean
take_spin_token (GstCudaOverlapTune * t, gboolean bounded)
{
  gint n;

  do {
    n = g_atomic_int_get (&spinners);
    if (bounded && n >= CO_TUNE_MAX_SPINNERS)
      return FALSE;
  } while (!g_atomic_int_compare_and_exchange (&spinners, n, n + 1));
  t->spin_token = TRUE;
  return TRUE;
}

static void
release_spin_token (GstCudaOverlapTune * t)
{
  if (t->spin_token)
    g_atomic_int_add (&spinners, -1);
  t->spin_token = FALSE;
}

static gint
share_slot_of (gboolean cpu_backend, gint device_id)
{
  return cpu_backend ? 0 : 1 + CLAMP (device_id, 0, SHARE_SLOTS - 2);
}

/* The other engines of the process on @slot's device (ours not counted). */
static guint
other_sharers (GstCudaOverlapTune * t, gint slot)
{
  gint n = g_atomic_int_get (&sharers[slot]);

  if (t->share_slot == slot)
    n--;
  return MAX (n, 0);
}

static void
take_share_token (GstCudaOverlapTune * t, gint slot)
{
  if (t->share_slot == slot)
    return;
  if (t->share_slot >= 0)
    g_atomic_int_add (&sharers[t->share_slot], -1);
  g_atomic_int_add (&sharers[slot], 1);
  t->share_slot = slot;
}

static void
release_share_token (GstCudaOverlapTune * t)
{
  if (t->share_slot >= 0)
    g_atomic_int_add (&sharers[t->share_slot], -1);
  t->share_slot = -1;
}

void
gst_cuda_overlap_tune_init (GstCudaOverlapTune * t)
{
  memset (t, 0, sizeof (*t));
  t->share_slot = -1;           /* holds no device share */
}

/* Upstream's LATENCY answer: live or not (no answer: not live). */
static gboolean
upstream_live (GstCudaOverlapFilter * self)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (sinkpad_of (self), q))
    gst_query_parse_latency (q, &live, NULL, NULL);
  gst_query_unref (q);
  return live;
}

/* What the element knows before any frame (spinners and sharers aside);
 * @slot: its device's place in sharers. */
static void
static_input (GstCudaOverlapFilter * self, GstCaps * caps,
    const CoEngineConfig * cfg, CoTuneInput * in, gint * slot)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  CoDeviceInfo info;

  memset (in, 0, sizeof (*in));
  if (klass->tune_input)
    klass->tune_input (self, caps, in);
  in->cpu_backend = co_engine_probe (cfg->backend, cfg->device_id, &info) ==
      CO_BACKEND_CPU;
  in->copy_engines = MAX (info.async_engine_count, 0);
  *slot = share_slot_of (in->cpu_backend, info.device_id);
  in->host_cores = g_get_num_processors ();
  in->live = upstream_live (self);
  in->user_streams = cfg->streams;
  in->user_chunks = cfg->chunks;
  in->user_in_flight = cfg->max_in_flight;
  in->user_wait = cfg->wait != CO_WAIT_AUTO;
  in->no_copies = gst_cuda_overlap_filter_pad_is_cuda (self, GST_PAD_SINK) &&
      gst_cuda_overlap_filter_pad_is_cuda (self, GST_PAD_SRC);
  GST_OBJECT_LOCK (self);
  in->user_submit_thread = PRIV (self)->submit_thread_set;
  GST_OBJECT_UNLOCK (self);
}

static void
measure_start (GstCudaOverlapTune * t)
{
  t->n_seen = t->n_host = 0;
  t->host_cpu = t->chain_wall = t->gap = t->gap_cpu = t->n_gap = 0;
  t->in_bytes = t->n_staged = 0;
  t->t_begin = t->last_exit = 0;
  t->pushed = 0;
  t->have_base = FALSE;
  memset (&t->dev, 0, sizeof (t->dev));
  g_atomic_int_set (&t->measured, FALSE);
  g_atomic_int_set (&t->measure, TRUE);
}

/* The static choice for a new static input, else the one in effect (a
 * rebuild for another reason, or the measured choice's own rebuild). */
static void
auto_config (GstCudaOverlapFilter * self, GstCaps * caps, CoEngineConfig * cfg)
{
  GstCudaOverlapTune *t = &PRIV (self)->tune;
  CoTuneInput in;
  gint slot;

  static_input (self, caps, cfg, &in, &slot);
  if (t->phase == TUNE_NEW || memcmp (&in, &t->key, sizeof (in)) != 0) {
    t->key = in;
    in.spinners = g_atomic_int_get (&spinners);
    in.sharers = other_sharers (t, slot);
    co_tune_decide (&in, &t->choice);
    t->phase = TUNE_MEASURING;
  } else if (t->phase == TUNE_APPLYING) {
    t->phase = TUNE_DONE;
  }
  take_share_token (t, slot);
  t->cpu_backend = in.cpu_backend;
  t->active = !in.user_streams || !in.user_chunks || !in.user_wait ||
      (in.can_batch && !in.user_batch) || !in.user_submit_thread;
  if (t->choice.submit_thread)
    cfg->submit_thread = TRUE;
  cfg->streams = t->choice.streams;
  cfg->chunks = t->choice.chunks;
  t->batch = t->choice.batch;
  if (cfg->wait == CO_WAIT_AUTO)
    cfg->wait = t->choice.spin ? CO_WAIT_SPIN : CO_WAIT_BLOCKING;
}

/* The settings of the engine about to be built: fills @cfg's streams,
 * chunks and wait mode (the automatic ones), and the automatic batch
 * (gst_cuda_overlap_filter_auto_batch()).  Streaming thread, nothing
 * installed, before klass->configure. */
void
gst_cuda_overlap_tune_config (GstCudaOverlapFilter * self,
    GstCaps * caps, CoEngineConfig * cfg)
{
  GstCudaOverlapTune *t = &PRIV (self)->tune;
  gboolean auto_wait = cfg->wait == CO_WAIT_AUTO;
  CoDeviceInfo info;

  release_spin_token (t);
  g_atomic_int_set (&t->measure, FALSE);
  if (cfg->mode == CO_MODE_SERIAL) {
    /* the sequential control: one stream, one chunk, one frame */
    memset (&t->choice, 0, sizeof (t->choice));
    t->phase = TUNE_NEW;
    t->active = FALSE;
    t->batch = 1;
    t->cpu_backend = co_engine_probe (cfg->backend, cfg->device_id, &info)
        == CO_BACKEND_CPU;
    take_share_token (t, share_slot_of (t->cpu_backend, info.device_id));
    if (auto_wait)
      cfg->wait = CO_WAIT_BLOCKING;
  } else {
    auto_config (self, caps, cfg);
  }
  /* the CPU backend ignores the wait mode: it spins no core */
  if (cfg->wait == CO_WAIT_SPIN && !t->cpu_backend &&
      !take_spin_token (t, auto_wait))
    cfg->wait = CO_WAIT_BLOCKING;       /* the budget went meanwhile */
  t->wait = cfg->wait;
  t->device_engines = g_atomic_int_get (&sharers[t->share_slot]);
  if (t->phase == TUNE_MEASURING && t->active)
    measure_start (t);
}

/* The engine is installed: say what was chosen; a new batch changes the
 * latency.  Streaming thread. */
void
gst_cuda_overlap_tune_built (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapTune *t = &priv->tune;
  guint batch = priv->batch;

  /* settled unless the measured decision is still to come */
  gst_cuda_overlap_stats_set_settled (&priv->stats, !t->active ||
      t->phase != TUNE_MEASURING);
  if (t->active)
    GST_INFO_OBJECT (self, "automatic settings%s: %u streams, %u chunks, "
        "batch %u, %s wait%s: %s", t->phase == TUNE_DONE ? " (measured)" : "",
        co_engine_streams (priv->engine), co_engine_chunks (priv->engine),
        batch, t->wait == CO_WAIT_SPIN ? "spinning" : "blocking",
        co_engine_submit_thread (priv->engine) ? ", submit thread" : "",
        t->choice.reason);
  if (t->prev_batch && t->prev_batch != batch) {
    GST_INFO_OBJECT (self, "batch %u -> %u: latency changed", t->prev_batch,
        batch);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
  t->prev_batch = batch;
}

/* The choice once more, with the measures; a different one rebuilds. */
static void
redecide (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCudaOverlapTune *t = &priv->tune;
  CoTuneInput in = t->key;
  CoTuneMeasure *m = &in.measured;
  CoTuneChoice ch;

  in.spinners = g_atomic_int_get (&spinners) - (t->spin_token ? 1 : 0);
  in.sharers = other_sharers (t, t->share_slot);
  *m = t->dev;
  m->frames = t->n_host;
  m->host_cpu_ns = t->host_cpu / t->n_host;
  m->chain_wall_ns = t->chain_wall / t->n_host;
  m->gap_ns = t->n_gap ? t->gap / t->n_gap : 0;
  m->gap_cpu_ns = t->n_gap ? t->gap_cpu / t->n_gap : 0;
  m->bytes = t->in_bytes / t->n_host;
  m->staged = t->n_staged;
  m->ring = g_atomic_int_get (&priv->filling.ring);
  co_tune_decide (&in, &ch);
  t->phase = TUNE_DONE;
  GST_INFO_OBJECT (self, "automatic settings measured: %u streams, %u "
      "chunks, batch %u, %s: %s%s", ch.streams, ch.chunks, ch.batch,
      ch.spin ? "spin" : "blocking", ch.reason, co_tune_same (&ch,
          &t->choice) ? " (unchanged)" : " (rebuilding)");
  if (co_tune_same (&ch, &t->choice)) {
    /* the passport property says why, without a new build */
    t->choice = ch;
    gst_cuda_overlap_stats_set_settled (&priv->stats, TRUE);
    GST_OBJECT_LOCK (self);
    if (priv->stats.passport)
      gst_structure_set (priv->stats.passport, "auto-reason", G_TYPE_STRING,
          ch.reason, NULL);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  t->choice = ch;
  t->phase = TUNE_APPLYING;
  gst_cuda_overlap_filter_mark_dirty (self);
}

/* Before a buffer's ensure (streaming thread): decide once more when the
 * measures are in, and start timing this buffer while measuring. */
void
gst_cuda_overlap_tune_begin (GstCudaOverlapFilter * self)
{
  GstCudaOverlapTune *t = &PRIV (self)->tune;
  guint64 now;

  if (t->phase != TUNE_MEASURING || !t->active)
    return;
  if (t->n_host >= CO_TUNE_MEASURE_FRAMES) {
    if (g_atomic_int_get (&t->measured))
      redecide (self);
    return;
  }
  now = co_engine_now ();
  t->t_begin = now;
  t->cpu_begin = thread_cpu_ns ();
  if (t->last_exit && t->n_seen > CO_TUNE_MEASURE_SKIP) {
    t->gap += now - t->last_exit;
    t->gap_cpu += t->cpu_begin - t->cpu_exit;
    t->n_gap++;
  }
}

/* After a buffer of @size bytes went to the engine, @staged or not
 * (streaming thread). */
void
gst_cuda_overlap_tune_end (GstCudaOverlapTune * t, gsize size, gboolean staged)
{
  guint64 now;

  if (t->phase != TUNE_MEASURING || !t->t_begin)
    return;
  now = co_engine_now ();
  t->cpu_exit = thread_cpu_ns ();
  if (t->n_seen++ >= CO_TUNE_MEASURE_SKIP) {
    t->chain_wall += now - t->t_begin;
    t->host_cpu += t->cpu_exit - t->cpu_begin;
    t->in_bytes += size;
    t->n_staged += staged ? 1 : 0;
    t->n_host++;
  }
  t->t_begin = 0;
  t->last_exit = now;
}

/* The push thread, after @n images were pushed and recorded: the device
 * measures over the same frames as chain's. */
void
gst_cuda_overlap_tune_pushed (GstCudaOverlapTune * t, CoStats * stats, guint n)
{
  CoTuneMeasure *d = &t->dev;
  CoStatsSummary now, *b = &t->base;
  guint64 f;

  if (!g_atomic_int_get (&t->measure))
    return;
  t->pushed += n;
  if (!t->have_base && t->pushed >= CO_TUNE_MEASURE_SKIP) {
    co_stats_total (stats, b);
    t->have_base = TRUE;
  }
  if (!t->have_base || t->pushed < CO_TUNE_MEASURE_SKIP +
      CO_TUNE_MEASURE_FRAMES)
    return;
  co_stats_total (stats, &now);
  f = MAX (now.frames - b->frames, 1);
  d->h2d_ns = (now.h2d_ns - b->h2d_ns) / f;
  d->kernel_ns = (now.kernel_ns - b->kernel_ns) / f;
  d->d2h_ns = (now.d2h_ns - b->d2h_ns) / f;
  d->busy_ns = (now.gpu_busy_ns - b->gpu_busy_ns) / f;
  d->gpu_latency_ns = now.gpu_latency_p50;
  g_atomic_int_set (&t->measure, FALSE);
  g_atomic_int_set (&t->measured, TRUE);
}

/* PAUSED→READY, the engine torn down: a new stream decides anew. */
void
gst_cuda_overlap_tune_reset (GstCudaOverlapTune * t)
{

  release_spin_token (t);
  release_share_token (t);
  g_atomic_int_set (&t->measure, FALSE);
  t->phase = TUNE_NEW;
  t->prev_batch = 0;
}

guint
gst_cuda_overlap_filter_auto_batch (GstCudaOverlapFilter * self)
{
  return MAX (PRIV (self)->tune.batch, 1);
}
