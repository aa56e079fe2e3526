/* cudaoverlap: a memcpy spread over a few threads (co-parcopy.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_PARCOPY_H__
#define __CO_PARCOPY_H__

#include <glib.h>

G_BEGIN_DECLS
/* The most parts of one copy (the caller copies one, the process-wide
 * pool's threads the others). */
#define CO_PARCOPY_MAX_PARTS 16
/* No part is smaller: below 2 of them a copy stays on the caller. */
#define CO_PARCOPY_MIN_PART (512u << 10)
/* How many parts a large copy is cut into on this host: its CPUs but two,
 * at least 2, at most CO_PARCOPY_MAX_PARTS (the pool has one thread
 * fewer). */
    guint co_parallel_copy_parts (void);
/* memcpy (@dst, @src, @size) in up to co_parallel_copy_parts () parts at
 * once; returns when all are copied, and how many parts there were.  Any
 * thread; the areas must not overlap. */
guint co_parallel_copy (gpointer dst, gconstpointer src, gsize size);

G_END_DECLS
#endif
