/* cudaoverlap: page-locked blocks kept for reuse.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pure C (GLib and cudart, no GStreamer).  Page-locking is slow (a 4K RGBA
 * frame takes milliseconds), so a pool does not make all its buffers at
 * caps time, which would delay a new pipeline's first frame by the whole
 * pool: it makes two buffers before the first frame and grows as frames
 * need more, and a block a pool frees is kept (up to
 * co_host_keep_default_max() bytes in all, for CO_HOST_KEEP_IDLE_US after
 * its last use) for the next pool of the process that asks for that size:
 * a second pipeline starts, and grows, without page-locking anything.
 * The process's keep also makes the next block of a size ahead of need,
 * on its thread, after each take that leaves none of that size kept: a
 * growing pool then finds it made.  That is worth it since a large block
 * holds the driver only for its cudaHostRegister, not for the making of
 * its pages (co_host_alloc(); docs/architecture.md, "When page-locked
 * memory is made").
 *
 * Sizes are rounded up (4 KiB below 1 MiB, 64 KiB above), so that pools
 * of the same caps with slightly different alignment share blocks.
 *
 * Fault injection (co-fault.h): a take is the "cudaHostAlloc" point
 * whether the block comes from the keep (the keep asks the point) or from
 * the driver (co_host_alloc's check asks it).
 */
#ifndef __CO_HOSTKEEP_H__
#define __CO_HOSTKEEP_H__

#include "co-engine.h"

G_BEGIN_DECLS
#define CO_HOST_KEEP_IDLE_US (10 * G_USEC_PER_SEC)
typedef struct _CoHostKeep CoHostKeep;

/* What the keep asks of the driver; a test passes a fake one. */
typedef struct
{
  gpointer (*alloc) (gsize size, gint device_id, gpointer user_data,
      GError ** error);
  void (*free) (gpointer data, gpointer user_data);
  /* a block made ahead of need, on the keep's thread (NULL: alloc) */
    gpointer (*alloc_ahead) (gsize size, gint device_id, gpointer user_data,
      GError ** error);
} CoHostKeepOps;

/* What the process's keep holds at most: an eighth of the host's memory,
 * at most 4 GiB (a 4K pipeline's pools, with an upstream that holds 32
 * frames of our pool, take more than a GiB: all of it must fit for a
 * second pipeline to start without page-locking). */
gsize co_host_keep_default_max (void);
/* The process's keep (cudaHostAlloc / cudaFreeHost), made on first use. */
CoHostKeep *co_host_keep_get_default (void);
/* A keep of its own (tests): @max_bytes kept at most, each block for
 * @idle_us after it was given back. */
CoHostKeep *co_host_keep_new (const CoHostKeepOps * ops, gpointer user_data,
    gsize max_bytes, gint64 idle_us);
/* With @ahead, each take of a size that leaves none of it kept asks the
 * keep's thread to make the next block of that size (the process's keep
 * does): a pool that grows then finds its next buffer made, and a take
 * while that block is being made waits for it.  Off by default. */
void co_host_keep_set_ahead (CoHostKeep * keep, gboolean ahead);
/* Frees what is kept, stops the thread. */
void co_host_keep_free (CoHostKeep * keep);

/* The size of the block that holds @size bytes. */
gsize co_host_keep_round (gsize size);
/* A page-locked block of co_host_keep_round (@size) bytes: a kept one, or
 * a new one.  NULL with @error set on failure. */
gpointer co_host_keep_take (CoHostKeep * keep, gsize size, gint device_id,
    GError ** error);
/* Gives back a block from co_host_keep_take (@size as asked): kept while
 * the keep has room, else freed now. */
void co_host_keep_give (CoHostKeep * keep, gpointer data, gsize size);
/* Frees every kept block now (what is in use stays in use). */
void co_host_keep_drop (CoHostKeep * keep);

/* Tests: bytes kept (free blocks). */
gsize co_host_keep_kept_bytes (CoHostKeep * keep);

G_END_DECLS
#endif /* __CO_HOSTKEEP_H__ */
