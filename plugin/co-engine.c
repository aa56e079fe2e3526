/* cudaoverlap: the overlap engine, generic part and CPU backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU backend runs the same chunk plans as the CUDA backend, on one
 * worker thread per "stream": chunk k of the run goes to worker k mod
 * streams, each worker runs its chunks in order, and frames are handed back
 * in submission order.  So the in-flight, ordering, flush and drain logic
 * that CI exercises is the logic the GPU path uses.  It does no copies of its
 * own: its plans read the input buffer and write the output buffer
 * directly; where a plan has copies (audio halos) the worker does them as
 * part of its work.
 *
 * With submit_thread, co_engine_submit() only hands the frame over (a
 * queue and, when the thread sleeps, a signal) and one engine thread makes
 * the backend calls, in hand-over order: the caller's thread (GStreamer's
 * upstream streaming thread) and the device calls then run on two cores.
 */
#include <string.h>
#include <time.h>

#include "co-engine-private.h"

G_DEFINE_QUARK (co - engine - error - quark, co_engine_error);

static gpointer co_submitter_main (gpointer data);

guint64
co_engine_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* e->cond, with e->lock held.  A frame costs a slot, a submission and a
 * release, each of which would wake e->cond; GLib's g_cond_broadcast ()
 * makes a futex system call whether or not anyone waits, so wake only when
 * someone does (the push thread mostly waits on the device, not here). */
static void
co_engine_wait_locked (CoEngine * e)
{
  e->cond_waiters++;
  g_cond_wait (&e->cond, &e->lock);
  e->cond_waiters--;
}

static void
co_engine_wake_locked (CoEngine * e)
{
  if (e->cond_waiters > 0)
    g_cond_broadcast (&e->cond);
}

static void
co_copy_host (const CoCopy * c)
{
  gsize r;

  if (co_copy_is_plain (c)) {
    memcpy (c->dst, c->src, c->width * c->rows);
    return;
  }
  for (r = 0; r < c->rows; r++)
    memcpy ((guint8 *) c->dst + r * c->dpitch,
        (const guint8 *) c->src + r * c->spitch, c->width);
}

static void
co_cpu_run_chunk (CoChunk * chunk)
{
  guint i;
  guint64 t0 = co_engine_now ();

  for (i = 0; i < chunk->n_h2d; i++)
    co_copy_host (&chunk->h2d[i]);
  if (chunk->kind == CO_KERNEL_VIDEO)
    co_video_run_cpu (&chunk->params.video);
  else
    co_audio_run_cpu (&chunk->params.audio);
  for (i = 0; i < chunk->n_d2h; i++)
    co_copy_host (&chunk->d2h[i]);

  /* The CPU does no transfers: all of its work is "kernel" time. */
  chunk->ts[CO_TS_BEGIN] = chunk->ts[CO_TS_H2D_DONE] = t0;
  chunk->ts[CO_TS_KERNEL_DONE] = chunk->ts[CO_TS_END] = co_engine_now ();
}

static gpointer
co_cpu_worker_main (gpointer data)
{
  CoCpuWorker *w = data;
  CoEngine *e = w->engine;

  g_mutex_lock (&e->lock);
  for (;;) {
    CoCpuJob job;

    while (!e->quit && w->count == 0) {
      w->waiting = TRUE;
      g_cond_wait (&w->cond, &e->lock);
      w->waiting = FALSE;
    }
    if (w->count == 0)
      break;
    job = w->jobs[w->head];
    w->head = (w->head + 1) % w->cap;
    w->count--;
    g_mutex_unlock (&e->lock);

    co_cpu_run_chunk (&job.frame->chunks[job.chunk]);

    g_mutex_lock (&e->lock);
    if (--job.frame->remaining == 0)
      co_engine_wake_locked (e);
  }
  g_mutex_unlock (&e->lock);
  return NULL;
}

static gboolean
co_cpu_open (CoEngine * e, GError ** error)
{
  guint i;
  gsize per_slot = e->cfg.dev_in_size + e->cfg.dev_out_size;

  e->host_mem = g_try_malloc (MAX (per_slot * e->n_slots, 1));
  e->host_const = g_try_malloc0 (MAX (e->cfg.const_size, 1));
  if (!e->host_mem || !e->host_const) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "could not allocate %" G_GSIZE_FORMAT " bytes of work memory",
        per_slot * e->n_slots);
    return FALSE;
  }
  for (i = 0; i < e->n_slots; i++) {
    e->frames[i].dev_in = e->host_mem + i * per_slot;
    e->frames[i].dev_out = e->frames[i].dev_in + e->cfg.dev_in_size;
  }
  for (i = 0; i < e->cfg.streams; i++) {
    CoCpuWorker *w = &e->workers[i];
    gchar *name = g_strdup_printf ("%s:cpu%u", e->cfg.name ? e->cfg.name :
        "co", i);

    w->engine = e;
    w->cap = e->n_slots * CO_MAX_CHUNKS;
    w->jobs = g_new0 (CoCpuJob, w->cap);
    g_cond_init (&w->cond);
    w->thread = g_thread_new (name, co_cpu_worker_main, w);
    g_free (name);
  }
  return TRUE;
}

static void
co_cpu_close (CoEngine * e)
{
  guint i;

  g_mutex_lock (&e->lock);
  e->quit = TRUE;
  for (i = 0; i < e->cfg.streams; i++)
    if (e->workers[i].thread)
      g_cond_signal (&e->workers[i].cond);
  g_mutex_unlock (&e->lock);
  for (i = 0; i < e->cfg.streams; i++) {
    CoCpuWorker *w = &e->workers[i];

    if (!w->thread)
      continue;
    g_thread_join (w->thread);
    g_cond_clear (&w->cond);
    g_free (w->jobs);
  }
  g_free (e->host_mem);
  g_free (e->host_const);
}

CoEngine *
co_engine_new (const CoEngineConfig * config, GError ** error)
{
  CoEngine *e;
  gchar *why = NULL;
  guint i;

  g_return_val_if_fail (config != NULL, NULL);

  e = g_new0 (CoEngine, 1);
  e->cfg = *config;
  e->cfg.streams = CLAMP (e->cfg.streams, 1, CO_MAX_STREAMS);
  e->cfg.chunks = CLAMP (e->cfg.chunks, 1, CO_MAX_CHUNKS);
  if (e->cfg.mode == CO_MODE_SERIAL) {
    e->cfg.streams = 1;
    e->cfg.chunks = 1;
    e->n_slots = 1;
  } else if (e->cfg.max_in_flight > 0) {
    e->n_slots = e->cfg.max_in_flight;
  } else {
    /* Enough for an upload, a kernel and a download of different frames
     * at once on every stream, plus the frame being pushed. */
    e->n_slots = MAX (4, e->cfg.streams + 2);
  }
  e->cfg.max_in_flight = e->n_slots;
  /* Event sets outlive their frame by one completion (the timestamp
   * anchor), so there is one more set than slots. */
  e->n_evsets = e->n_slots + 1;

  /* Test hook: make every submission from frame N on fail, so the error
   * path that a failing CUDA call takes can be tested without a GPU. */
  e->fail_after = g_getenv ("CO_ENGINE_FAIL_AFTER") ?
      g_ascii_strtoll (g_getenv ("CO_ENGINE_FAIL_AFTER"), NULL, 10) : -1;
  /* Test hook: the submit thread sleeps this long before queueing each
   * frame, so that the hand-over's races show on the fast CPU backend. */
  e->submit_delay_us = g_getenv ("CO_ENGINE_SUBMIT_DELAY_US") ?
      g_ascii_strtoull (g_getenv ("CO_ENGINE_SUBMIT_DELAY_US"), NULL, 10) : 0;

  e->backend = config->backend;
  if (e->backend == CO_BACKEND_AUTO)
    e->backend = co_cuda_available (config->device_id, &why) ?
        CO_BACKEND_CUDA : CO_BACKEND_CPU;
  g_free (why);

  g_mutex_init (&e->lock);
  g_cond_init (&e->cond);
  g_queue_init (&e->submitted);
  e->frames = g_new0 (CoFrame, e->n_slots);
  e->free_slots = g_new (guint, e->n_slots);
  for (i = 0; i < e->n_slots; i++) {
    e->frames[i].slot = i;
    e->frames[i].dev_in_size = e->cfg.dev_in_size;
    e->frames[i].dev_out_size = e->cfg.dev_out_size;
    e->free_slots[e->n_slots - 1 - i] = i;
  }
  e->n_free = e->n_slots;

  g_queue_init (&e->to_submit);
  g_cond_init (&e->submit_cond);
  if (!(e->backend == CO_BACKEND_CUDA ? co_cuda_open (e, error) :
          co_cpu_open (e, error))) {
    co_engine_free (e);
    return NULL;
  }
  if (e->cfg.submit_thread) {
    gchar *name = g_strdup_printf ("%s:submit", e->cfg.name ? e->cfg.name :
        "co");

    e->submitter = g_thread_new (name, co_submitter_main, e);
    g_free (name);
  }
  return e;
}

void
co_engine_free (CoEngine * e)
{
  guint i;

  if (!e)
    return;
  if (e->submitter) {
    /* it queues what was handed over, then ends */
    g_mutex_lock (&e->lock);
    e->submitter_quit = TRUE;
    g_cond_signal (&e->submit_cond);
    g_mutex_unlock (&e->lock);
    g_thread_join (e->submitter);
  }
  if (e->backend == CO_BACKEND_CUDA)
    co_cuda_close (e);
  else
    co_cpu_close (e);
  for (i = 0; i < e->n_slots; i++)
    g_free (e->frames[i].error);
  g_queue_clear (&e->submitted);
  g_queue_clear (&e->to_submit);
  g_cond_clear (&e->submit_cond);
  g_free (e->frames);
  g_free (e->free_slots);
  g_mutex_clear (&e->lock);
  g_cond_clear (&e->cond);
  g_free (e);
}

CoBackendKind
co_engine_backend (CoEngine * e)
{
  return e->backend;
}

guint
co_engine_streams (CoEngine * e)
{
  return e->cfg.streams;
}

guint
co_engine_chunks (CoEngine * e)
{
  return e->cfg.chunks;
}

guint
co_engine_max_in_flight (CoEngine * e)
{
  return e->n_slots;
}

void
co_engine_device_info (CoEngine * e, CoDeviceInfo * info)
{
  memset (info, 0, sizeof (*info));
  if (e->backend == CO_BACKEND_CUDA) {
    co_cuda_device_info (e, info);
  } else {
    g_strlcpy (info->name, "cpu", sizeof (info->name));
    info->device_id = -1;
  }
}

gpointer
co_engine_const_ptr (CoEngine * e)
{
  return e->backend == CO_BACKEND_CUDA ? co_cuda_const_ptr (e) : e->host_const;
}

gboolean
co_engine_set_const (CoEngine * e, gconstpointer data, gsize size,
    GError ** error)
{
  if (size > e->cfg.const_size) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "constant data of %" G_GSIZE_FORMAT " bytes exceeds the %"
        G_GSIZE_FORMAT " reserved", size, e->cfg.const_size);
    return FALSE;
  }
  g_return_val_if_fail (co_engine_in_flight (e) == 0, FALSE);
  if (e->backend == CO_BACKEND_CUDA)
    return co_cuda_set_const (e, data, size, error);
  memcpy (e->host_const, data, size);
  return TRUE;
}

CoFrame *
co_engine_acquire (CoEngine * e)
{
  CoFrame *f;

  g_mutex_lock (&e->lock);
  while (!e->flushing && e->n_free == 0)
    co_engine_wait_locked (e);
  if (e->flushing) {
    g_mutex_unlock (&e->lock);
    return NULL;
  }
  f = &e->frames[e->free_slots[--e->n_free]];
  f->seqnum = e->next_seqnum++;
  f->evset = f->seqnum % e->n_evsets;
  g_mutex_unlock (&e->lock);

  f->n_chunks = 0;
  f->remaining = 0;
  g_clear_pointer (&f->error, g_free);
  return f;
}

static void
co_engine_put_slot_locked (CoEngine * e, CoFrame * f)
{
  g_clear_pointer (&f->error, g_free);
  e->free_slots[e->n_free++] = f->slot;
  co_engine_wake_locked (e);
}

void
co_engine_cancel (CoEngine * e, CoFrame * f)
{
  g_mutex_lock (&e->lock);
  co_engine_put_slot_locked (e, f);
  g_mutex_unlock (&e->lock);
}

/* @handed: called by the submit thread for a frame handed over */
static gboolean
co_engine_submit_now (CoEngine * e, CoFrame * f, gboolean handed,
    GError ** error)
{
  gboolean ret = TRUE;
  guint i;

  g_return_val_if_fail (f->n_chunks >= 1 && f->n_chunks <= CO_MAX_CHUNKS,
      FALSE);

  if (G_UNLIKELY (e->fail_after >= 0 && f->seqnum >= (guint64) e->fail_after)) {
    /* queued as a failed frame, exactly like a failed CUDA submission */
    f->error = g_strdup_printf ("injected failure of frame %" G_GUINT64_FORMAT
        " (CO_ENGINE_FAIL_AFTER=%" G_GINT64_FORMAT ")", f->seqnum,
        e->fail_after);
    g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        f->error);
    g_mutex_lock (&e->lock);
    f->remaining = 0;
    ret = FALSE;
  } else if (e->backend == CO_BACKEND_CUDA) {
    /* Queued on the device outside the lock; the consumer only sees the
     * frame once it is in the queue below. */
    ret = co_cuda_submit (e, f, error);
    g_mutex_lock (&e->lock);
  } else {
    g_mutex_lock (&e->lock);
    f->remaining = f->n_chunks;
    for (i = 0; i < f->n_chunks; i++) {
      CoCpuWorker *w = &e->workers[e->next_stream];
      CoCpuJob *job;

      f->chunks[i].stream = e->next_stream;
      e->next_stream = (e->next_stream + 1) % e->cfg.streams;
      g_assert (w->count < w->cap);
      job = &w->jobs[(w->head + w->count) % w->cap];
      job->frame = f;
      job->chunk = i;
      w->count++;
      if (w->waiting)
        g_cond_signal (&w->cond);
    }
  }
  g_queue_push_tail (&e->submitted, f);
  if (handed)
    e->handing--;               /* in `submitted` now, under the same lock */
  co_engine_wake_locked (e);
  g_mutex_unlock (&e->lock);
  return ret;
}

static gpointer
co_submitter_main (gpointer data)
{
  CoEngine *e = data;

  g_mutex_lock (&e->lock);
  for (;;) {
    CoFrame *f;

    while (!e->submitter_quit && g_queue_is_empty (&e->to_submit)) {
      e->submitter_idle = TRUE;
      g_cond_wait (&e->submit_cond, &e->lock);
      e->submitter_idle = FALSE;
    }
    if (g_queue_is_empty (&e->to_submit))
      break;                    /* quit, and everything handed over is queued */
    f = g_queue_pop_head (&e->to_submit);
    g_mutex_unlock (&e->lock);
    if (G_UNLIKELY (e->submit_delay_us))
      g_usleep (e->submit_delay_us);
    /* a failure is in f->error, which its consumer reports */
    co_engine_submit_now (e, f, TRUE, NULL);
    g_mutex_lock (&e->lock);
  }
  g_mutex_unlock (&e->lock);
  return NULL;
}

gboolean
co_engine_submit (CoEngine * e, CoFrame * f, GError ** error)
{
  if (!e->submitter)
    return co_engine_submit_now (e, f, FALSE, error);
  g_return_val_if_fail (f->n_chunks >= 1 && f->n_chunks <= CO_MAX_CHUNKS,
      FALSE);
  g_mutex_lock (&e->lock);
  g_queue_push_tail (&e->to_submit, f);
  e->handing++;
  if (e->submitter_idle)
    g_cond_signal (&e->submit_cond);
  g_mutex_unlock (&e->lock);
  return TRUE;
}

CoFrame *
co_engine_wait_oldest (CoEngine * e)
{
  CoFrame *f;

  g_mutex_lock (&e->lock);
  while (g_queue_is_empty (&e->submitted)) {
    /* frames still being handed over are waited for, even when flushing:
     * a flush drops every frame submitted before it */
    if (e->flushing && e->handing == 0) {
      g_mutex_unlock (&e->lock);
      return NULL;
    }
    co_engine_wait_locked (e);
  }
  f = g_queue_peek_head (&e->submitted);
  if (e->backend == CO_BACKEND_CPU) {
    while (f->remaining > 0)
      co_engine_wait_locked (e);
    g_queue_pop_head (&e->submitted);
    g_mutex_unlock (&e->lock);
    return f;
  }
  g_mutex_unlock (&e->lock);

  co_cuda_wait (e, f);

  g_mutex_lock (&e->lock);
  g_queue_pop_head (&e->submitted);
  g_mutex_unlock (&e->lock);
  return f;
}

void
co_engine_release (CoEngine * e, CoFrame * f)
{
  g_mutex_lock (&e->lock);
  co_engine_put_slot_locked (e, f);
  g_mutex_unlock (&e->lock);
}

void
co_engine_set_flushing (CoEngine * e, gboolean flushing)
{
  g_mutex_lock (&e->lock);
  e->flushing = flushing;
  co_engine_wake_locked (e);
  g_mutex_unlock (&e->lock);
}

gboolean
co_engine_drain (CoEngine * e)
{
  gboolean ret;

  g_mutex_lock (&e->lock);
  while (!e->flushing && e->n_free < e->n_slots)
    co_engine_wait_locked (e);
  ret = !e->flushing;
  g_mutex_unlock (&e->lock);
  return ret;
}

guint
co_engine_in_flight (CoEngine * e)
{
  guint n;

  g_mutex_lock (&e->lock);
  n = e->n_slots - e->n_free;
  g_mutex_unlock (&e->lock);
  return n;
}
