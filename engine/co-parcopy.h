/* cudaoverlap: a memcpy spread over a few threads (co-parcopy.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_PARCOPY_H__
#define __CO_PARCOPY_H__

#include <glib.h>

G_BEGIN_DECLS
/* The most parts of one copy (the process-wide pool's threads run them;
 * a job's finish runs those no thread has started). */
#define CO_PARCOPY_MAX_PARTS 16
/* No part is smaller: below 2 of them a copy is made at once, on the
 * caller. */
#define CO_PARCOPY_MIN_PART (512u << 10)
/* A job that queues small copies (co_parcopy_job_queue_small) queues
 * those of at least this many bytes; smaller ones cost less than a
 * thread's wake-up. */
#define CO_PARCOPY_MIN_QUEUED (64u << 10)
/* How many parts a large copy is cut into on this host: its CPUs but two,
 * at least 2, at most CO_PARCOPY_MAX_PARTS (the pool has as many
 * threads). */
    guint co_parallel_copy_parts (void);

/* Copies that run while their caller goes on: add them to a job, finish
 * the job before the destinations are read.  A job belongs to one thread
 * at a time (the pool's threads only copy its parts). */
typedef struct _CoParcopyJob CoParcopyJob;

CoParcopyJob *co_parcopy_job_new (void);
/* Starts memcpy (@dst, @src, @size) in up to co_parallel_copy_parts ()
 * parts on the pool (a copy too small to cut is made now, on the calling
 * thread); @done (when not NULL) is called with @data by
 * co_parcopy_job_finish () once the copy is complete.  Returns the number
 * of parts.  The areas must not overlap, and stay valid until @done. */
guint co_parcopy_job_add (CoParcopyJob * job, gpointer dst,
    gconstpointer src, gsize size, GDestroyNotify done, gpointer data);
/* From now on, @job queues a copy too small to cut (CO_PARCOPY_MIN_QUEUED
 * bytes or more) to the pool whole, rather than making it at once: for a
 * job finished later (by another thread, or after more copies), so that
 * its copies run at once, each on a thread, while the caller goes on. */
void co_parcopy_job_queue_small (CoParcopyJob * job);
/* The parts of @job's copies not made yet: 0 once every byte is in place
 * (what a caller may read without finishing the job; tests).  The owner's
 * thread only. */
guint co_parcopy_job_left (CoParcopyJob * job);
/* Copies on the calling thread the parts no pool thread has started, waits
 * for the others, calls the copies' @done in the order they were added,
 * and frees @job.  NULL: nothing. */
void co_parcopy_job_finish (CoParcopyJob * job);

G_END_DECLS
#endif
