/* cudaoverlap: a memcpy spread over a few threads.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Staging a frame (pageable memory copied into page-locked memory before
 * its H2D copies) is bound by the host's memcpy: on the H200's host one
 * thread copies 5.0 GB/s, 2 / 4 / 8 threads 9.2 / 19.1 / 26.0 GB/s
 * (../shared/GPU.md).  co_parallel_copy() cuts a large copy into parts of
 * at least CO_PARCOPY_MIN_PART bytes, at most co_parallel_copy_parts () of
 * them (the host's CPUs less two, 2 to 16: 14 on that 16-CPU host; two
 * are left to the pipelines' own threads), gives all but the first to a
 * process-wide pool of one thread fewer and copies the first on the
 * calling thread; it returns when every part is done.  Measured there
 * (session 11, A/B in one call): 4K staged frames at 0.83-1.02 x the
 * host's a-frame-at-a-time memcpy ceiling with 14 parts of >= 512 KiB,
 * 0.68-0.81 x with 8 parts of >= 2 MiB; 1080p 1.7-2.3 x faster.  Pure C
 * and GLib: no GStreamer, no CUDA.
 */
#include <string.h>

#include "co-parcopy.h"

typedef struct
{
  GMutex lock;
  GCond cond;
  guint left;
} CoParcopyJob;

typedef struct
{
  CoParcopyJob *job;
  guint8 *dst;
  const guint8 *src;
  gsize size;
} CoParcopyPart;

static void
co_parcopy_run (gpointer data, gpointer user_data)
{
  CoParcopyPart *part = data;
  CoParcopyJob *job = part->job;

  memcpy (part->dst, part->src, part->size);
  g_mutex_lock (&job->lock);
  if (--job->left == 0)
    g_cond_signal (&job->cond);
  g_mutex_unlock (&job->lock);
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
        co_parallel_copy_parts () - 1, FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  return pool;
}

guint
co_parallel_copy (gpointer dst, gconstpointer src, gsize size)
{
  CoParcopyPart parts[CO_PARCOPY_MAX_PARTS];
  CoParcopyJob job;
  GThreadPool *pool = size >= 2 * CO_PARCOPY_MIN_PART ? co_parcopy_pool () :
      NULL;
  guint n = pool ? MIN (co_parallel_copy_parts (),
      size / CO_PARCOPY_MIN_PART) : 1, i;
  gsize step = (size / n + 63) & ~(gsize) 63, off = 0;

  if (n <= 1) {
    memcpy (dst, src, size);
    return 1;
  }
  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  job.left = n - 1;
  for (i = 0; i < n; i++, off += step) {
    parts[i].job = &job;
    parts[i].dst = (guint8 *) dst + off;
    parts[i].src = (const guint8 *) src + off;
    parts[i].size = i + 1 < n ? step : size - off;
    if (i > 0)
      g_thread_pool_push (pool, &parts[i], NULL);
  }
  memcpy (parts[0].dst, parts[0].src, parts[0].size);
  g_mutex_lock (&job.lock);
  while (job.left > 0)
    g_cond_wait (&job.cond, &job.lock);
  g_mutex_unlock (&job.lock);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  return n;
}
