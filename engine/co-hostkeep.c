/* cudaoverlap: page-locked blocks kept for reuse.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Page-locking memory is slow and stalls the process's other CUDA calls,
 * so the blocks a pool frees are kept a while for the next pool that asks
 * for the same size (co-hostkeep.h says when and how much).
 *
 * Under keep->lock: the free blocks (most recently given first) and their
 * bytes.  Driver calls are made without the lock.  One thread per keep,
 * started when a block is first kept: it frees blocks idle for idle_us.
 */
#include <unistd.h>

#include "co-hostkeep.h"
#include "co-hostreg.h"
#include "co-fault.h"

typedef struct
{
  gpointer data;
  gsize size;
  gint64 since;                 /* monotonic time it was given back */
} CoKeptBlock;

struct _CoHostKeep
{
  GMutex lock;
  GCond cond;
  CoHostKeepOps ops;
  gpointer user_data;
  gsize max_bytes;
  gint64 idle_us;
  GQueue blocks;                /* CoKeptBlock, newest first */
  gsize kept_bytes;
  GThread *thread;
  gboolean quit;
  /* blocks made ahead of need (co_host_keep_set_ahead) */
  gboolean ahead;
  GQueue wanted;                /* CoWanted, oldest first */
  gsize making;                 /* the size the thread makes now, or 0 */
  GCond made;                   /* a block made ahead was kept (or not) */
};

typedef struct
{
  gsize size;
  gint device_id;
} CoWanted;

gsize
co_host_keep_round (gsize size)
{
  gsize g = size < (1 << 20) ? 4096 : 65536;

  return (MAX (size, 1) + g - 1) / g * g;
}

/* ---- the thread ----------------------------------------------------------- */

/* Frees the blocks idle for idle_us (called and returns locked); the time
 * the oldest one left expires, or -1. */
static gint64
expire (CoHostKeep * keep)
{
  gint64 now = g_get_monotonic_time ();
  CoKeptBlock *b;
  GSList *old = NULL, *l;

  while ((b = g_queue_peek_tail (&keep->blocks)) &&
      b->since + keep->idle_us <= now) {
    g_queue_pop_tail (&keep->blocks);
    keep->kept_bytes -= b->size;
    old = g_slist_prepend (old, b);
  }
  if (old) {
    g_mutex_unlock (&keep->lock);
    for (l = old; l; l = l->next) {
      b = l->data;
      keep->ops.free (b->data, keep->user_data);
      g_free (b);
    }
    g_slist_free (old);
    g_mutex_lock (&keep->lock);
  }
  b = g_queue_peek_tail (&keep->blocks);
  return b ? b->since + keep->idle_us : -1;
}

/* Makes the oldest wanted block (called and returns locked) and keeps it
 * as if a pool had given it back; TRUE when there was one to make. */
static gboolean
make_wanted (CoHostKeep * keep)
{
  CoWanted *w = g_queue_pop_head (&keep->wanted);
  CoKeptBlock *b;
  gpointer p;

  if (!w)
    return FALSE;
  keep->making = w->size;
  g_mutex_unlock (&keep->lock);
  p = keep->ops.alloc_ahead (w->size, w->device_id, keep->user_data, NULL);
  g_mutex_lock (&keep->lock);
  keep->making = 0;
  if (p && (keep->quit || keep->kept_bytes + w->size > keep->max_bytes)) {
    g_mutex_unlock (&keep->lock);
    keep->ops.free (p, keep->user_data);
    g_mutex_lock (&keep->lock);
  } else if (p) {
    b = g_new (CoKeptBlock, 1);
    b->data = p;
    b->size = w->size;
    b->since = g_get_monotonic_time ();
    g_queue_push_head (&keep->blocks, b);
    keep->kept_bytes += w->size;
  }
  g_free (w);
  g_cond_broadcast (&keep->made);
  return TRUE;
}

static gpointer
keep_thread (gpointer data)
{
  CoHostKeep *keep = data;
  gint64 until;

  g_mutex_lock (&keep->lock);
  while (!keep->quit) {
    if (make_wanted (keep))
      continue;
    until = expire (keep);
    if (keep->quit)
      continue;
    if (until < 0)
      g_cond_wait (&keep->cond, &keep->lock);
    else
      g_cond_wait_until (&keep->cond, &keep->lock, until);
  }
  g_mutex_unlock (&keep->lock);
  return NULL;
}

/* Called locked. */
static void
start_thread (CoHostKeep * keep)
{
  if (!keep->thread)
    keep->thread = g_thread_new ("cudaoverlap-keep", keep_thread, keep);
}

/* ---- the keep ------------------------------------------------------------- */

static gpointer
cuda_alloc (gsize size, gint device_id, gpointer user_data, GError ** error)
{
  return co_host_alloc (size, device_id, error);
}

static void
cuda_free (gpointer data, gpointer user_data)
{
  co_host_free (data);
}

static gpointer
cuda_alloc_ahead (gsize size, gint device_id, gpointer user_data,
    GError ** error)
{
  return co_host_alloc_ahead (size, device_id, error);
}

static const CoHostKeepOps cuda_ops = { cuda_alloc, cuda_free,
  cuda_alloc_ahead
};

gsize
co_host_keep_default_max (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  guint64 ram = pages > 0 && page > 0 ? (guint64) pages * page : 0;

  return (gsize) MIN ((guint64) 4 << 30, MAX (ram / 8, (guint64) 256 << 20));
}

CoHostKeep *
co_host_keep_get_default (void)
{
  static CoHostKeep *keep;

  if (g_once_init_enter (&keep)) {
    CoHostKeep *k = co_host_keep_new (&cuda_ops, NULL,
        co_host_keep_default_max (), CO_HOST_KEEP_IDLE_US);

    co_host_keep_set_ahead (k, TRUE);
    g_once_init_leave (&keep, k);
  }
  return keep;
}

CoHostKeep *
co_host_keep_new (const CoHostKeepOps * ops, gpointer user_data,
    gsize max_bytes, gint64 idle_us)
{
  CoHostKeep *keep = g_new0 (CoHostKeep, 1);

  g_mutex_init (&keep->lock);
  g_cond_init (&keep->cond);
  g_cond_init (&keep->made);
  g_queue_init (&keep->wanted);
  keep->ops = *ops;
  if (!keep->ops.alloc_ahead)
    keep->ops.alloc_ahead = keep->ops.alloc;
  keep->user_data = user_data;
  keep->max_bytes = max_bytes;
  keep->idle_us = idle_us;
  g_queue_init (&keep->blocks);
  return keep;
}

void
co_host_keep_free (CoHostKeep * keep)
{
  if (!keep)
    return;
  g_mutex_lock (&keep->lock);
  keep->quit = TRUE;
  g_cond_broadcast (&keep->cond);
  g_mutex_unlock (&keep->lock);
  if (keep->thread)
    g_thread_join (keep->thread);
  co_host_keep_drop (keep);
  g_queue_clear_full (&keep->wanted, g_free);
  g_mutex_clear (&keep->lock);
  g_cond_clear (&keep->cond);
  g_cond_clear (&keep->made);
  g_free (keep);
}

/* A kept block of @size, removed from the keep (called locked). */
static gpointer
take_kept (CoHostKeep * keep, gsize size)
{
  GList *l;

  for (l = keep->blocks.head; l; l = l->next) {
    CoKeptBlock *b = l->data;
    gpointer p = b->data;

    if (b->size != size)
      continue;
    g_queue_delete_link (&keep->blocks, l);
    keep->kept_bytes -= size;
    g_free (b);
    return p;
  }
  return NULL;
}

void
co_host_keep_set_ahead (CoHostKeep * keep, gboolean ahead)
{
  g_mutex_lock (&keep->lock);
  keep->ahead = ahead;
  g_mutex_unlock (&keep->lock);
}

/* After a take of @size: the next block of that size made ahead, unless
 * one is kept, made or wanted already, or the keep has no room for it
 * (called locked). */
static void
want_next (CoHostKeep * keep, gsize size, gint device_id)
{
  gsize pending = keep->making;
  CoWanted *w;
  GList *l;

  if (!keep->ahead || keep->quit || keep->making == size)
    return;
  for (l = keep->blocks.head; l; l = l->next)
    if (((CoKeptBlock *) l->data)->size == size)
      return;
  for (l = keep->wanted.head; l; l = l->next) {
    if (((CoWanted *) l->data)->size == size)
      return;
    pending += ((CoWanted *) l->data)->size;
  }
  if (keep->kept_bytes + pending + size > keep->max_bytes)
    return;
  w = g_new (CoWanted, 1);
  w->size = size;
  w->device_id = device_id;
  g_queue_push_tail (&keep->wanted, w);
  start_thread (keep);
  g_cond_signal (&keep->cond);
}

gpointer
co_host_keep_take (CoHostKeep * keep, gsize size, gint device_id,
    GError ** error)
{
  gsize rounded = co_host_keep_round (size);
  gpointer p;

  g_mutex_lock (&keep->lock);
  p = take_kept (keep, rounded);
  /* one being made ahead is nearer than a new one */
  while (!p && keep->making == rounded) {
    g_cond_wait (&keep->made, &keep->lock);
    p = take_kept (keep, rounded);
  }
  want_next (keep, rounded, device_id);
  g_mutex_unlock (&keep->lock);
  if (!p)
    return keep->ops.alloc (rounded, device_id, keep->user_data, error);
  /* a kept block stands for the cudaHostAlloc it saves: the same fault
   * point, so that a take can fail in a test whichever way it goes */
  if (co_fault_hit ("cudaHostAlloc")) {
    co_host_keep_give (keep, p, size);
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        "injected failure of cudaHostAlloc (a kept block)");
    return NULL;
  }
  return p;
}

void
co_host_keep_give (CoHostKeep * keep, gpointer data, gsize size)
{
  gsize rounded = co_host_keep_round (size);
  CoKeptBlock *b;

  if (!data)
    return;
  g_mutex_lock (&keep->lock);
  if (keep->quit || keep->kept_bytes + rounded > keep->max_bytes) {
    g_mutex_unlock (&keep->lock);
    keep->ops.free (data, keep->user_data);
    return;
  }
  b = g_new (CoKeptBlock, 1);
  b->data = data;
  b->size = rounded;
  b->since = g_get_monotonic_time ();
  g_queue_push_head (&keep->blocks, b);
  keep->kept_bytes += rounded;
  start_thread (keep);          /* to expire it */
  g_cond_signal (&keep->cond);
  g_mutex_unlock (&keep->lock);
}

void
co_host_keep_drop (CoHostKeep * keep)
{
  GQueue old = G_QUEUE_INIT;
  CoKeptBlock *b;

  g_mutex_lock (&keep->lock);
  old = keep->blocks;
  g_queue_init (&keep->blocks);
  keep->kept_bytes = 0;
  g_mutex_unlock (&keep->lock);
  while ((b = g_queue_pop_head (&old))) {
    keep->ops.free (b->data, keep->user_data);
    g_free (b);
  }
}

gsize
co_host_keep_kept_bytes (CoHostKeep * keep)
{
  gsize n;

  g_mutex_lock (&keep->lock);
  n = keep->kept_bytes;
  g_mutex_unlock (&keep->lock);
  return n;
}
