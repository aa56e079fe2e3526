/* cudaoverlap: page-locked blocks kept for reuse, and made ahead of need.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pure C (GLib and cudart, no GStreamer).  Page-locking is slow (a 4K RGBA
 * frame, 33 MB, takes ~20 ms of cudaHostAlloc on the H200's host), and the
 * pools of one 4K element hold ~20 such frames: made all at caps time, they
 * delayed the first frame by ~350 ms, in every new pipeline.  So:
 *  - a block a pool frees is kept (up to CO_HOST_KEEP_MAX_BYTES in all, for
 *    CO_HOST_KEEP_IDLE_US after its last use) for the next pool of the
 *    process that asks for that size: a second pipeline starts without
 *    page-locking anything;
 *  - a pool asks for its first few buffers now and for the rest ahead of
 *    need (co_host_keep_prefill, which the elements call once their first
 *    frame is out: page-locking holds the driver, and the first frame's
 *    calls would wait for it): one thread of the process page-locks them
 *    in the background; a pool that grows takes them from here, or waits
 *    for the one being made, instead of making its own.
 * Sizes are rounded up (4 KiB below 1 MiB, 64 KiB above), so that pools
 * of the same caps with slightly different alignment share blocks.
 *
 * Fault injection (co-fault.h): a take is the "cudaHostAlloc" point
 * whether the block comes from the keep or from the driver; the background
 * thread's allocations are not fault points (their failures only leave the
 * pool to allocate for itself).
 */
#ifndef __CO_HOSTKEEP_H__
#define __CO_HOSTKEEP_H__

#include <glib.h>

G_BEGIN_DECLS
#define CO_HOST_KEEP_MAX_BYTES ((gsize) 1 << 30)
#define CO_HOST_KEEP_IDLE_US (10 * G_USEC_PER_SEC)
typedef struct _CoHostKeep CoHostKeep;

/* What the keep asks of the driver; a test passes a fake one. */
typedef struct
{
  gpointer (*alloc) (gsize size, gint device_id, gpointer user_data,
      gchar ** why);
  void (*free) (gpointer data, gpointer user_data);
} CoHostKeepOps;

/* The process's keep (cudaHostAlloc / cudaFreeHost), made on first use. */
CoHostKeep *co_host_keep_get_default (void);
/* A keep of its own (tests): @max_bytes kept at most, each block for
 * @idle_us after it was given back. */
CoHostKeep *co_host_keep_new (const CoHostKeepOps * ops, gpointer user_data,
    gsize max_bytes, gint64 idle_us);
/* Frees what is kept, stops the thread (waits for the block being made). */
void co_host_keep_free (CoHostKeep * keep);

/* The size of the block that holds @size bytes. */
gsize co_host_keep_round (gsize size);
/* A page-locked block of co_host_keep_round (@size) bytes: a kept one, the
 * one the background thread is making for that size (waited for), or a new
 * one.  NULL with @why set (free it) on failure. */
gpointer co_host_keep_take (CoHostKeep * keep, gsize size, gint device_id,
    gchar ** why);
/* Gives back a block from co_host_keep_take (@size as asked): kept while
 * the keep has room, else freed now. */
void co_host_keep_give (CoHostKeep * keep, gpointer data, gsize size);
/* Asks the background thread to make blocks for @size until @n of them
 * are kept or being made (as many as fit under the keep's maximum): the
 * blocks an earlier pool of that size gave back count. */
void co_host_keep_prefill (CoHostKeep * keep, gsize size, guint n,
    gint device_id);
/* Frees every kept block now (what is in use stays in use). */
void co_host_keep_drop (CoHostKeep * keep);

/* Tests: bytes kept (free blocks), blocks still to make. */
gsize co_host_keep_kept_bytes (CoHostKeep * keep);
guint co_host_keep_pending (CoHostKeep * keep);
/* Tests: waits until the background thread has nothing to make. */
void co_host_keep_wait_idle (CoHostKeep * keep);

G_END_DECLS
#endif /* __CO_HOSTKEEP_H__ */
