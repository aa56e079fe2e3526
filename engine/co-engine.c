/* cudaoverlap: the overlap engine, the part both backends share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Slots (the bound on frames in flight), submission order, the submit
 * thread, flushing and draining.  The device work goes through the backend
 * table (co-engine-private.h), whatever the backend: this file never names
 * one.  Chunk k of the run goes to stream k mod streams on either backend.
 *
 * With submit_thread, co_engine_submit() only hands the frame over (a
 * queue and, when the thread sleeps, a signal) and one engine thread makes
 * the backend calls, in hand-over order: the caller's thread (GStreamer's
 * upstream streaming thread) and the device calls then run on two cores.
 */
#include <string.h>
#include <time.h>

#include "co-engine-private.h"
#include "co-fault.h"
#include "co-tune.h"

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

gpointer
co_engine_try_alloc0 (gsize n_elems, gsize elem_size, const gchar * what,
    GError ** error)
{
  gpointer p = NULL;
  gsize size = n_elems * elem_size;

  if (elem_size == 0 || size / elem_size == n_elems) {
    if (!co_fault_hit ("g_try_malloc"))
      p = g_try_malloc0 (MAX (size, 1));
  }
  if (!p)
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "could not allocate %" G_GSIZE_FORMAT " x %" G_GSIZE_FORMAT
        " bytes of %s", n_elems, elem_size, what);
  return p;
}

/* The effective configuration: clamped, and the number of slots. */
static void
co_engine_configure (CoEngine * e, const CoEngineConfig * config)
{
  e->cfg = *config;
  e->cfg.streams = CLAMP (e->cfg.streams, 1, CO_MAX_STREAMS);
  e->cfg.chunks = CLAMP (e->cfg.chunks, 1, CO_MAX_CHUNKS);
  if (e->cfg.wait != CO_WAIT_SPIN)
    e->cfg.wait = CO_WAIT_BLOCKING;
  if (e->cfg.mode == CO_MODE_SERIAL) {
    e->cfg.streams = 1;
    e->cfg.chunks = 1;
    e->n_slots = 1;
  } else if (e->cfg.max_in_flight > 0) {
    e->n_slots = e->cfg.max_in_flight;
  } else {
    e->n_slots = co_tune_default_in_flight (e->cfg.streams);
  }
  e->cfg.max_in_flight = e->n_slots;
}

static gboolean
co_engine_alloc_slots (CoEngine * e, GError ** error)
{
  guint i;

  e->frames = co_engine_try_alloc0 (e->n_slots, sizeof (CoFrame),
      "frame descriptors", error);
  if (!e->frames)
    return FALSE;
  e->free_slots = co_engine_try_alloc0 (e->n_slots, sizeof (guint),
      "slot indices", error);
  if (!e->free_slots)
    return FALSE;
  for (i = 0; i < e->n_slots; i++) {
    e->frames[i].slot = i;
    e->frames[i].dev_in_size = e->cfg.dev_in_size;
    e->frames[i].dev_out_size = e->cfg.dev_out_size;
    e->free_slots[e->n_slots - 1 - i] = i;
  }
  e->n_free = e->n_slots;
  return TRUE;
}

CoEngine *
co_engine_new (const CoEngineConfig * config, GError ** error)
{
  CoEngine *e;

  g_return_val_if_fail (config != NULL, NULL);

  e = g_new0 (CoEngine, 1);
  co_engine_configure (e, config);
  g_mutex_init (&e->lock);
  g_cond_init (&e->cond);
  g_queue_init (&e->submitted);
  g_queue_init (&e->to_submit);
  g_cond_init (&e->submit_cond);
  if (!co_engine_alloc_slots (e, error)) {
    co_engine_free (e);
    return NULL;
  }

  e->ops = co_backend_select (config->backend, config->device_id);
  if (!e->ops->open (e, error)) {
    co_engine_free (e);
    return NULL;
  }
  /* the backend has loaded the custom kernel: the caller's strings may go */
  e->cfg.custom = NULL;
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
  if (e->ops)
    e->ops->close (e);
  for (i = 0; e->frames && i < e->n_slots; i++)
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
  return e->ops->kind;
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

gboolean
co_engine_submit_thread (CoEngine * e)
{
  return e->submitter != NULL;
}

void
co_engine_device_info (CoEngine * e, CoDeviceInfo * info)
{
  memset (info, 0, sizeof (*info));
  e->ops->device_info (e, info);
}

gpointer
co_engine_const_ptr (CoEngine * e)
{
  return e->ops->const_ptr (e);
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
  return e->ops->set_const (e, data, size, error);
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
  g_mutex_unlock (&e->lock);

  f->n_chunks = 0;
  f->n_pre = 0;
  f->ordered = FALSE;
  f->times_pending = FALSE;
  f->host_read = FALSE;
  g_warn_if_fail (f->host_job == NULL);
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
co_engine_finish_host (CoFrame * f)
{
  co_parcopy_job_finish (g_steal_pointer (&f->host_job));
}

void
co_engine_cancel (CoEngine * e, CoFrame * f)
{
  co_engine_finish_host (f);
  g_mutex_lock (&e->lock);
  co_engine_put_slot_locked (e, f);
  g_mutex_unlock (&e->lock);
}

/* @handed: called by the submit thread for a frame handed over */
static gboolean
co_engine_submit_now (CoEngine * e, CoFrame * f, gboolean handed,
    GError ** error)
{
  GError *err = NULL;
  gboolean ret;
  guint i;

  g_return_val_if_fail (f->n_chunks >= 1 && f->n_chunks <= CO_MAX_CHUNKS,
      FALSE);

  /* the staged inputs, copied meanwhile by co-parcopy's threads */
  co_engine_finish_host (f);
  for (i = 0; i < f->n_chunks; i++) {
    f->chunks[i].stream = e->next_stream;
    e->next_stream = (e->next_stream + 1) % e->cfg.streams;
  }
  /* Queued on the device outside the lock; the consumer only sees the
   * frame once it is in the queue below. */
  ret = e->ops->submit (e, f, &err);
  if (G_UNLIKELY (!ret)) {
    /* The frame still goes into the queue: its consumer sees the error and
     * nothing of it is pushed. */
    f->error = g_strdup (err ? err->message : "submitting the frame failed");
    g_propagate_error (error, err);
  }
  g_mutex_lock (&e->lock);
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
    /* a test's hold-up, between the two queues (0 but in fault builds) */
    if (G_UNLIKELY (co_fault_submit_delay_us () > 0))
      g_usleep (co_fault_submit_delay_us ());
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

/* The oldest submitted frame once done; with @times its timestamps read
 * too, else left for co_engine_read_times(). */
static CoFrame *
co_engine_wait_oldest_full (CoEngine * e, gboolean times)
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
  g_mutex_unlock (&e->lock);

  if (times || !e->ops->wait_done) {
    e->ops->wait (e, f);
  } else {
    e->ops->wait_done (e, f);
    f->times_pending = !f->error;
  }

  g_mutex_lock (&e->lock);
  g_queue_pop_head (&e->submitted);
  g_mutex_unlock (&e->lock);
  return f;
}

CoFrame *
co_engine_wait_oldest (CoEngine * e)
{
  return co_engine_wait_oldest_full (e, TRUE);
}

CoFrame *
co_engine_wait_oldest_done (CoEngine * e)
{
  return co_engine_wait_oldest_full (e, FALSE);
}

gboolean
co_engine_read_times (CoEngine * e, CoFrame * f)
{
  guint i;

  if (!f->times_pending)
    return !f->error;
  f->times_pending = FALSE;
  e->ops->read_times (e, f);
  if (!f->error)
    return TRUE;
  for (i = 0; i < f->n_chunks; i++)
    memset (f->chunks[i].ts, 0, sizeof (f->chunks[i].ts));
  return FALSE;
}

void
co_engine_release (CoEngine * e, CoFrame * f)
{
  /* the backend's reads go in the order of the waits (its timeline's
   * anchor moves from frame to frame) */
  co_engine_read_times (e, f);
  g_mutex_lock (&e->lock);
  co_engine_put_slot_locked (e, f);
  g_mutex_unlock (&e->lock);
}

CoFrame *
co_engine_next_read (CoEngine * e, gboolean wait, gboolean poll)
{
  CoFrame *f = NULL;
  GList *l;

  if (!e->ops->host_read)
    return NULL;
  /* the frames handed on are a prefix of the queue; only this thread pops
   * it, so the frame found stays in it after the unlock */
  g_mutex_lock (&e->lock);
  /* as co_engine_wait_oldest_full: for a frame, or flushing and none left */
  while (wait && g_queue_is_empty (&e->submitted) &&
      !(e->flushing && e->handing == 0))
    co_engine_wait_locked (e);
  for (l = e->submitted.head; l; l = l->next)
    if (!((CoFrame *) l->data)->host_read) {
      f = l->data;
      break;
    }
  g_mutex_unlock (&e->lock);
  if (!f || f->error)
    return NULL;
  if (!e->ops->host_read (e, f, wait && (poll || e->cfg.wait == CO_WAIT_SPIN)))
    return NULL;
  f->host_read = TRUE;
  return f;
}

/* Rows [@r0, @r1) of @c, columns [@c0, @c1) (a part of one row when
 * @r1 == @r0 + 1). */
static void
copy_part (const CoCopy * c, gsize r0, gsize r1, gsize c0, gsize c1,
    CoCopy * out)
{
  out->src = (const guint8 *) c->src + r0 * c->spitch + c0;
  out->dst = (guint8 *) c->dst + r0 * c->dpitch + c0;
  out->width = c1 - c0;
  out->rows = r1 - r0;
  /* one row: a plain block */
  out->spitch = out->rows > 1 ? c->spitch : out->width;
  out->dpitch = out->rows > 1 ? c->dpitch : out->width;
}

guint
co_copy_split (const CoCopy * c, gsize off, CoCopy out[4])
{
  CoCopy flat = *c;
  gsize r, col;
  guint n = 0;

  g_return_val_if_fail (off > 0 && off < co_copy_extent (c), 0);
  /* a plain block is one long row */
  if (co_copy_is_plain (c)) {
    flat.width = flat.spitch = flat.dpitch = c->width * c->rows;
    flat.rows = 1;
  }
  r = off / flat.spitch;
  col = off % flat.spitch;
  if (col == 0 || col >= flat.width) {
    /* between two rows (or in row r's padding) */
    gsize split = col == 0 ? r : r + 1;

    copy_part (&flat, 0, split, 0, flat.width, &out[n++]);
    copy_part (&flat, split, flat.rows, 0, flat.width, &out[n++]);
    return n;
  }
  if (r > 0)
    copy_part (&flat, 0, r, 0, flat.width, &out[n++]);
  copy_part (&flat, r, r + 1, 0, col, &out[n++]);
  copy_part (&flat, r, r + 1, col, flat.width, &out[n++]);
  if (r + 1 < flat.rows)
    copy_part (&flat, r + 1, flat.rows, 0, flat.width, &out[n++]);
  return n;
}

void
co_chunk_ts_sources (const CoFrame * f, guint i, guint src[CO_TS_COUNT])
{
  const CoChunk *ch = &f->chunks[i];
  /* what is queued before each event, after the one before it */
  gboolean pre = f->n_pre > 0 && (i == 0 || ch->stream != f->chunks[0].stream);
  gboolean work[CO_TS_COUNT];
  guint k;

  work[CO_TS_BEGIN] = TRUE;
  work[CO_TS_H2D_DONE] = pre || ch->n_h2d > 0 || ch->n_d2d > 0;
  work[CO_TS_KERNEL_DONE] = ch->kind != CO_KERNEL_NONE;
  work[CO_TS_END] = ch->n_d2h > 0;
  for (k = 0; k < CO_TS_COUNT; k++)
    src[k] = work[k] ? k : src[k - 1];
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
