/* cudaoverlap: the overlap engine's CPU backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the same chunk plans as the CUDA backend, on one worker thread per
 * "stream": the engine gives chunk k of the run to stream k mod streams,
 * each worker runs its chunks in order, and the engine hands frames back in
 * submission order.  So the in-flight, ordering, flush and drain logic that
 * CI exercises is the logic the GPU path uses.  It does no copies of its
 * own: a chunk's copies (audio halos; video through the work memory) are
 * memcpy()s the worker does as part of its work.  With cpu_direct the plans
 * read the input buffer and write the output buffer directly and no slot
 * has work memory.
 *
 * Fault points (co-fault.h): "g_try_malloc" (work memory, the constant
 * area, the job rings), "g_thread_try_new" (a worker), "co_cpu_submit" (a
 * frame's submission: none of its chunks runs) and "co_cpu_run_chunk" (a
 * chunk does not run and its frame completes with an error).
 */
#include <string.h>

#include "co-engine-cpu.h"
#include "co-custom-load.h"
#include "co-fault.h"

typedef struct _CoCpu CoCpu;

typedef struct
{
  CoFrame *frame;
  guint chunk;
  gboolean copied;              /* its copies were made at submission */
} CoCpuJob;

typedef struct
{
  CoCpu *cpu;
  GThread *thread;
  GCond cond;                   /* a job queued, quit */
  CoCpuJob *jobs;               /* ring of n_slots * CO_MAX_CHUNKS */
  guint head, count, cap;
  gboolean waiting;             /* on cond */
} CoCpuWorker;

/* Lock order: lock is the backend's only lock; it is never taken with the
 * engine's held. */
struct _CoCpu
{
  GMutex lock;
  GCond done;                   /* a frame's last chunk ran */
  guint done_waiters;           /* threads waiting on done */
  gboolean quit;
  guint n_workers;              /* started (their cond initialised) */
  CoCpuWorker workers[CO_MAX_STREAMS];
  gint *remaining;              /* per slot: chunks not yet run */
  guint8 *work_mem;             /* every slot's areas; NULL with cpu_direct */
  guint8 *const_mem;
  CoCustomCpu *custom;          /* operation=custom's function, or NULL */
};

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

/* The chunk's copies before its kernel: h2d, then d2d (src NULL: zeros). */
static void
co_cpu_copies_in (CoChunk * chunk)
{
  guint i;

  for (i = 0; i < chunk->n_h2d; i++)
    co_copy_host (&chunk->h2d[i]);
  for (i = 0; i < chunk->n_d2d; i++) {
    const CoCopy *d = &chunk->d2d[i];

    if (d->src)
      memmove (d->dst, d->src, d->width * d->rows);
    else
      memset (d->dst, 0, d->width * d->rows);
  }
}

/* The chunk's kernel: NULL, or what failed. */
static gchar *
co_cpu_kernel (CoCpu * c, CoFrame * f, guint idx)
{
  CoChunk *chunk = &f->chunks[idx];

  switch (chunk->kind) {
    case CO_KERNEL_VIDEO:
      co_video_run_cpu (&chunk->params.video);
      return NULL;
    case CO_KERNEL_AUDIO:
      co_audio_run_cpu (&chunk->params.audio);
      return NULL;
    case CO_KERNEL_CUSTOM_VIDEO:
    case CO_KERNEL_CUSTOM_AUDIO:
      if (!c->custom)
        return g_strdup ("a custom chunk, but no custom kernel is loaded");
      return co_custom_cpu_run (c->custom, chunk, idx, f->n_chunks);
    default:
      return NULL;
  }
}

/* Chunk @idx of @f: its copies and kernel.  NULL, or what failed (the
 * chunk was made to fail, or its custom kernel did). */
static gchar *
co_cpu_run_chunk (CoCpu * c, CoFrame * f, guint idx, gboolean copied)
{
  CoChunk *chunk = &f->chunks[idx];
  gchar *err = NULL;
  guint i;
  guint64 t0 = co_engine_now ();

  if (co_fault_hit ("co_cpu_run_chunk")) {
    chunk->ts[CO_TS_BEGIN] = chunk->ts[CO_TS_H2D_DONE] = t0;
    chunk->ts[CO_TS_KERNEL_DONE] = chunk->ts[CO_TS_END] = t0;
    return g_strdup_printf ("injected failure of co_cpu_run_chunk (chunk %u "
        "of frame %" G_GUINT64_FORMAT ")", idx, f->seqnum);
  }
  if (!copied)
    co_cpu_copies_in (chunk);
  err = co_cpu_kernel (c, f, idx);
  for (i = 0; i < chunk->n_d2h && !err; i++)
    co_copy_host (&chunk->d2h[i]);

  /* The CPU does no transfers: all of its work is "kernel" time. */
  chunk->ts[CO_TS_BEGIN] = chunk->ts[CO_TS_H2D_DONE] = t0;
  chunk->ts[CO_TS_KERNEL_DONE] = chunk->ts[CO_TS_END] = co_engine_now ();
  return err;
}

static gpointer
co_cpu_worker_main (gpointer data)
{
  CoCpuWorker *w = data;
  CoCpu *c = w->cpu;

  g_mutex_lock (&c->lock);
  for (;;) {
    CoCpuJob job;
    gulong jitter;
    gchar *err;

    while (!c->quit && w->count == 0) {
      w->waiting = TRUE;
      g_cond_wait (&w->cond, &c->lock);
      w->waiting = FALSE;
    }
    if (w->count == 0)
      break;
    job = w->jobs[w->head];
    w->head = (w->head + 1) % w->cap;
    w->count--;
    g_mutex_unlock (&c->lock);

    jitter = co_fault_worker_jitter_us ();
    if (jitter)
      g_usleep (jitter);
    err = co_cpu_run_chunk (c, job.frame, job.chunk, job.copied);

    g_mutex_lock (&c->lock);
    if (err && !job.frame->error)
      job.frame->error = g_steal_pointer (&err);
    g_free (err);
    if (--c->remaining[job.frame->slot] == 0 && c->done_waiters > 0)
      g_cond_broadcast (&c->done);
  }
  g_mutex_unlock (&c->lock);
  return NULL;
}

static gboolean
co_cpu_usable (gint device_id, GError ** error)
{
  return TRUE;
}

static gboolean
co_cpu_start_worker (CoEngine * e, CoCpu * c, guint i, GError ** error)
{
  CoCpuWorker *w = &c->workers[i];
  GError *err = NULL;
  gchar *name;

  w->cpu = c;
  w->cap = e->n_slots * CO_MAX_CHUNKS;
  w->jobs = co_engine_try_alloc0 (w->cap, sizeof (CoCpuJob),
      "a CPU worker's job ring", error);
  if (!w->jobs)
    return FALSE;
  g_cond_init (&w->cond);
  c->n_workers = i + 1;
  name = g_strdup_printf ("%s:cpu%u", e->cfg.name ? e->cfg.name : "co", i);
  if (co_fault_hit ("g_thread_try_new"))
    g_set_error_literal (&err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "injected failure of g_thread_try_new");
  else
    w->thread = g_thread_try_new (name, co_cpu_worker_main, w, &err);
  if (!w->thread) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "could not start the worker thread %s: %s", name, err->message);
    g_clear_error (&err);
  }
  g_free (name);
  return w->thread != NULL;
}

static gboolean
co_cpu_open (CoEngine * e, GError ** error)
{
  CoCpu *c = g_new0 (CoCpu, 1);
  gsize per_slot = e->cfg.dev_in_size + e->cfg.dev_out_size;
  guint i;

  g_mutex_init (&c->lock);
  g_cond_init (&c->done);
  e->backend_state = c;

  c->remaining = co_engine_try_alloc0 (e->n_slots, sizeof (gint),
      "chunk counters", error);
  if (!c->remaining)
    return FALSE;
  c->const_mem = co_engine_try_alloc0 (1, e->cfg.const_size,
      "constant area (CPU backend)", error);
  if (!c->const_mem)
    return FALSE;
  if (!e->cfg.cpu_direct) {
    c->work_mem = co_engine_try_alloc0 (e->n_slots, per_slot,
        "work memory (CPU backend: a slot's input and output areas)", error);
    if (!c->work_mem)
      return FALSE;
    for (i = 0; i < e->n_slots; i++) {
      e->frames[i].dev_in = c->work_mem + i * per_slot;
      e->frames[i].dev_out = e->frames[i].dev_in + e->cfg.dev_in_size;
    }
  }
  if (e->cfg.custom && !(c->custom = co_custom_cpu_load (e->cfg.custom, error)))
    return FALSE;
  for (i = 0; i < e->cfg.streams; i++)
    if (!co_cpu_start_worker (e, c, i, error))
      return FALSE;
  return TRUE;
}

static void
co_cpu_close (CoEngine * e)
{
  CoCpu *c = e->backend_state;
  guint i;

  if (!c)
    return;
  /* the workers run what is queued, then end */
  g_mutex_lock (&c->lock);
  c->quit = TRUE;
  for (i = 0; i < c->n_workers; i++)
    g_cond_signal (&c->workers[i].cond);
  g_mutex_unlock (&c->lock);
  for (i = 0; i < c->n_workers; i++) {
    CoCpuWorker *w = &c->workers[i];

    if (w->thread)
      g_thread_join (w->thread);
    g_cond_clear (&w->cond);
    g_free (w->jobs);
  }
  for (i = 0; c->work_mem && i < e->n_slots; i++)
    e->frames[i].dev_in = e->frames[i].dev_out = NULL;
  g_free (c->remaining);
  g_free (c->work_mem);
  g_free (c->const_mem);
  co_custom_cpu_unload (c->custom);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->done);
  g_free (c);
  e->backend_state = NULL;
}

static gboolean
co_cpu_submit (CoEngine * e, CoFrame * f, GError ** error)
{
  CoCpu *c = e->backend_state;
  guint i;

  if (co_fault_hit ("co_cpu_submit")) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        "injected failure of co_cpu_submit (frame %" G_GUINT64_FORMAT ")",
        f->seqnum);
    return FALSE;
  }
  /* CoFrame.ordered: chunk 0's copies now, on the submitting thread, so
   * that they follow the previous ordered frame's (made here too) */
  if (f->ordered && f->n_chunks > 0)
    co_cpu_copies_in (&f->chunks[0]);
  /* CoFrame.pre: before any chunk runs */
  for (i = 0; i < f->n_pre; i++)
    co_copy_host (&f->pre[i]);
  g_mutex_lock (&c->lock);
  c->remaining[f->slot] = f->n_chunks;
  for (i = 0; i < f->n_chunks; i++) {
    CoCpuWorker *w = &c->workers[f->chunks[i].stream];
    CoCpuJob *job;

    g_assert (w->count < w->cap);
    job = &w->jobs[(w->head + w->count) % w->cap];
    job->frame = f;
    job->chunk = i;
    job->copied = i == 0 && f->ordered;
    w->count++;
    if (w->waiting)
      g_cond_signal (&w->cond);
  }
  g_mutex_unlock (&c->lock);
  return TRUE;
}

static void
co_cpu_wait (CoEngine * e, CoFrame * f)
{
  CoCpu *c = e->backend_state;

  g_mutex_lock (&c->lock);
  while (c->remaining[f->slot] > 0) {
    c->done_waiters++;
    g_cond_wait (&c->done, &c->lock);
    c->done_waiters--;
  }
  g_mutex_unlock (&c->lock);
}

/* The workers read the input (or, with cpu_direct, the caller's buffers)
 * until a chunk has run: the frame's host memory is read once its work is
 * done.  Never waits: the consumer's wait for the frame follows. */
static gboolean
co_cpu_host_read (CoEngine * e, CoFrame * f, gboolean poll)
{
  CoCpu *c = e->backend_state;
  gboolean read;

  g_mutex_lock (&c->lock);
  read = c->remaining[f->slot] == 0;
  g_mutex_unlock (&c->lock);
  return read;
}

static gboolean
co_cpu_set_const (CoEngine * e, gconstpointer data, gsize size, GError ** error)
{
  CoCpu *c = e->backend_state;

  memcpy (c->const_mem, data, size);
  return TRUE;
}

static gpointer
co_cpu_const_ptr (CoEngine * e)
{
  CoCpu *c = e->backend_state;

  return c->const_mem;
}

static void
co_cpu_probe (gint device_id, CoDeviceInfo * info)
{
  g_strlcpy (info->name, "cpu", sizeof (info->name));
  info->device_id = -1;
}

static void
co_cpu_device_info (CoEngine * e, CoDeviceInfo * info)
{
  co_cpu_probe (-1, info);
}

const CoBackendOps co_cpu_backend = {
  .name = "cpu",
  .kind = CO_BACKEND_CPU,
  .usable = co_cpu_usable,
  .open = co_cpu_open,
  .close = co_cpu_close,
  .submit = co_cpu_submit,
  .wait = co_cpu_wait,
  .host_read = co_cpu_host_read,
  .set_const = co_cpu_set_const,
  .const_ptr = co_cpu_const_ptr,
  .device_info = co_cpu_device_info,
  .probe = co_cpu_probe,
};
