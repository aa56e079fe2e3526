/* cudaoverlap: a memcpy spread over a few threads (co-parcopy.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_PARCOPY_H__
#define __CO_PARCOPY_H__

#include <glib.h>

G_BEGIN_DECLS
/* Threads of the process-wide pool (the caller copies a part too). */
#define CO_PARCOPY_THREADS 3
/* No part is smaller: below 2 of them a copy stays on the caller. */
#define CO_PARCOPY_MIN_PART (2u << 20)
/* memcpy (@dst, @src, @size) in up to CO_PARCOPY_THREADS + 1 parts at
 * once; returns when all are copied, and how many parts there were.  Any
 * thread; the areas must not overlap. */
    guint co_parallel_copy (gpointer dst, gconstpointer src, gsize size);

G_END_DECLS
#endif
