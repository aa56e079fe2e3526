/* cudaoverlap: a memcpy spread over a few threads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Staging a frame (pageable memory copied into page-locked memory before
 * its H2D copies) is bound by the host's memcpy, which one thread does not
 * saturate: the memory system serves the loads and stores of several
 * cores at once.  A copy is cut into parts of at least
 * CO_PARCOPY_MIN_PART bytes, at most co_parallel_copy_parts () of them
 * (the host's CPUs less two, 2 to 16; two are left to the pipelines' own
 * threads), queued to a process-wide pool of as many threads.  A job
 * (co_parcopy_job_*) lets its caller go on while they run: an element stages frame N + 1 while its submit thread waits
 * for frame N's copies (the copies of consecutive frames then overlap; one
 * frame at a time, the pool's threads would wait for the slowest part of
 * each).  Finishing a job copies the parts no pool thread has started on
 * the finishing thread, so a job finished at once costs no more than one
 * thread's share.  Many small parts beat a few large ones, and fewer,
 * larger parts or non-temporal stores are slower or no faster
 * (docs/PERFORMANCE.md has the measurements).
 * Pure C and GLib: no GStreamer, no CUDA.
 */
#include <string.h>

#include "co-parcopy.h"

typedef struct
{
  CoParcopyJob *job;
  guint8 *dst;
  const guint8 *src;
  gsize size;
  gint claimed;                 /* atomic: a thread copies it */
} CoParcopyPart;

typedef struct
{
  GDestroyNotify done;
  gpointer data;
} CoParcopyDone;

struct _CoParcopyJob
{
  gint refs;                    /* atomic: the owner's, one per queued part */
  GMutex lock;
  GCond cond;
  guint left;                   /* parts not copied yet [lock] */
  GPtrArray *parts;             /* of CoParcopyPart: the owner's */
  GArray *done;                 /* of CoParcopyDone: the owner's */
  gboolean queue_small;         /* the owner's (co_parcopy_job_queue_small) */
};

static void
co_parcopy_job_unref (CoParcopyJob * job)
{
  if (!g_atomic_int_dec_and_test (&job->refs))
    return;
  g_ptr_array_free (job->parts, TRUE);
  g_array_free (job->done, TRUE);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_free (job);
}

/* Copies @part unless another thread took it. */
static void
co_parcopy_part_run (CoParcopyPart * part)
{
  CoParcopyJob *job = part->job;

  if (!g_atomic_int_compare_and_exchange (&part->claimed, 0, 1))
    return;
  memcpy (part->dst, part->src, part->size);
  g_mutex_lock (&job->lock);
  if (--job->left == 0)
    g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
}

/* A pool thread. */
static void
co_parcopy_run (gpointer data, gpointer user_data)
{
  CoParcopyPart *part = data;
  CoParcopyJob *job = part->job;

  co_parcopy_part_run (part);
  co_parcopy_job_unref (job);
}

guint
co_parallel_copy_parts (void)
{
  static gsize parts = 0;

  if (g_once_init_enter (&parts))
    g_once_init_leave (&parts, CLAMP ((gint) g_get_num_processors () - 2, 2,
            CO_PARCOPY_MAX_PARTS));
  return parts;
}

static GThreadPool *
co_parcopy_pool (void)
{
  static GThreadPool *pool;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    /* shared by every element of the process; NULL: copy on one thread */
    pool = g_thread_pool_new (co_parcopy_run, NULL,
        co_parallel_copy_parts (), FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  return pool;
}

CoParcopyJob *
co_parcopy_job_new (void)
{
  CoParcopyJob *job = g_new0 (CoParcopyJob, 1);

  job->refs = 1;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);
  job->parts = g_ptr_array_new_with_free_func (g_free);
  job->done = g_array_new (FALSE, FALSE, sizeof (CoParcopyDone));
  return job;
}

void
co_parcopy_job_queue_small (CoParcopyJob * job)
{
  job->queue_small = TRUE;
}

guint
co_parcopy_job_add (CoParcopyJob * job, gpointer dst, gconstpointer src,
    gsize size, GDestroyNotify done, gpointer data)
{
  gboolean queued = size >= 2 * CO_PARCOPY_MIN_PART ||
      (job->queue_small && size >= CO_PARCOPY_MIN_QUEUED);
  GThreadPool *pool = queued ? co_parcopy_pool () : NULL;
  guint n = pool ? CLAMP (size / CO_PARCOPY_MIN_PART, 1,
      co_parallel_copy_parts ()) : 1, i;
  gsize step = (size / n + 63) & ~(gsize) 63, off = 0;
  CoParcopyDone d = { done, data };

  if (done)
    g_array_append_val (job->done, d);
  if (!pool) {
    memcpy (dst, src, size);
    return 1;
  }
  g_mutex_lock (&job->lock);
  job->left += n;
  g_mutex_unlock (&job->lock);
  for (i = 0; i < n; i++, off += step) {
    CoParcopyPart *part = g_new0 (CoParcopyPart, 1);

    part->job = job;
    part->dst = (guint8 *) dst + off;
    part->src = (const guint8 *) src + off;
    part->size = i + 1 < n ? step : size - off;
    g_ptr_array_add (job->parts, part);
    g_atomic_int_inc (&job->refs);
    g_thread_pool_push (pool, part, NULL);
  }
  return n;
}

guint
co_parcopy_job_left (CoParcopyJob * job)
{
  guint left;

  g_mutex_lock (&job->lock);
  left = job->left;
  g_mutex_unlock (&job->lock);
  return left;
}

void
co_parcopy_job_finish (CoParcopyJob * job)
{
  guint i;

  if (!job)
    return;
  /* the pool takes parts in order: help from the other end */
  for (i = job->parts->len; i > 0; i--)
    co_parcopy_part_run (g_ptr_array_index (job->parts, i - 1));
  g_mutex_lock (&job->lock);
  while (job->left > 0)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
  for (i = 0; i < job->done->len; i++) {
    CoParcopyDone *d = &g_array_index (job->done, CoParcopyDone, i);

    d->done (d->data);
  }
  co_parcopy_job_unref (job);
}
