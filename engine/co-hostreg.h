/* cudaoverlap: the process-wide registry of page-locked host ranges, and
 * page-locked host allocation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pure C (GLib and cudart, no GStreamer).  Every cudaHostRegister and
 * cudaHostUnregister of this process's cudaoverlap elements goes through one
 * registry, so that no user ever unregisters a range another user still
 * copies from.
 *
 * Entries are page-granular: a request for [p, p + n) stands for the pages
 * it touches, [round_down (p), round_up (p + n)).  An entry is counted:
 * one reference per holder (a GstMemory over it, a frame in flight that
 * copies from it), and it is undone (cudaHostUnregister for a registered
 * entry) when the last reference is dropped.
 *
 * co_hostreg_acquire() answers, for the pages of a request:
 *  - inside one registered entry: REGISTERED, a reference on that entry;
 *  - overlapping registered entries only partly: with CO_HOSTREG_REGISTER
 *    the pages none of them has are registered (an entry per gap) and
 *    REGISTERED with a reference on every entry over the pages; with
 *    CO_HOSTREG_LOOKUP REGISTERED the same way when the entries leave no
 *    gap; else REFUSED.  The bytes then lie in several adjacent
 *    registrations, and a single copy may not span two of them (the driver
 *    refuses it: cudaErrorInvalidValue), so the copies from them are split
 *    at the boundaries (co_hostreg_boundary());
 *  - overlapping pages that a pageable copy in flight holds (when
 *    registering, or with CO_HOSTREG_HOLD an entry only partly): REFUSED;
 *  - page-locked by the application (cudaHostAlloc, or its own
 *    cudaHostRegister; asked of the driver at both ends of the bytes, after
 *    looking in the registry, and never cached): PINNED, no reference — the
 *    application owns it;
 *  - otherwise, with CO_HOSTREG_REGISTER: cudaHostRegister of the pages,
 *    REGISTERED with a reference on the new entry, or REFUSED when it fails
 *    (for any reason);
 *  - otherwise, with CO_HOSTREG_HOLD: PAGEABLE with a reference on a "held"
 *    entry, which registers nothing but refuses every registration that
 *    would overlap it while it lives: a plain (pageable) copy from memory
 *    whose pages someone registers meanwhile would run as an asynchronous
 *    DMA that nothing keeps alive;
 *  - otherwise, with CO_HOSTREG_LOOKUP: PAGEABLE, no reference and no
 *    entry: the caller copies the bytes into memory of its own first (a
 *    staged copy), which needs neither a registration nor a hold.
 * REFUSED means "not page-locked, and not safe to copy from asynchronously":
 * the caller copies the bytes into memory of its own first (a staged copy).
 */
#ifndef __CO_HOSTREG_H__
#define __CO_HOSTREG_H__

#include "co-engine.h"

G_BEGIN_DECLS
/* Page-locked host memory, portable, on @device_id (< 0: device 0): 2 MiB
 * and more mapped and registered, on huge pages where the kernel has them
 * (co-hostreg.c says why), smaller blocks from cudaHostAlloc.  NULL on
 * failure, with @error (CO_ENGINE_ERROR_CUDA or _NO_MEMORY) set.  Either
 * way it is the fault point "cudaHostAlloc" (co-fault.h). */
    gpointer co_host_alloc (gsize size, gint device_id, GError ** error);
/* The same, made ahead of need on another thread: no fault point, so that
 * no test's count of a pipeline's calls sees it. */
gpointer co_host_alloc_ahead (gsize size, gint device_id, GError ** error);
/* Frees a block of co_host_alloc() or co_host_alloc_ahead(). */
void co_host_free (gpointer data);
/* The length of the mapping that holds a block of @size bytes, when
 * @size is 2 MiB or more (co-hostreg.c). */
gsize co_host_block_length (gsize size);

typedef struct _CoHostReg CoHostReg;
typedef struct _CoHostRef CoHostRef;

/* What the registry asks of the driver; a test passes a fake one.
 * @register_range: page-lock [@data, @data + @size) (page-aligned); FALSE
 *   with @error set on failure.
 * @unregister_range: undo a successful @register_range of @data.
 * @is_app_pinned: whether the bytes [@data, @data + @size) are page-locked
 *   already (by someone else than this registry: asked after the registry
 *   found no entry of its own there).
 * @page_size: the granularity of registrations (a power of two). */
typedef struct
{
  gboolean (*register_range) (gpointer data, gsize size, gint device_id,
      gpointer user_data, GError ** error);
  void (*unregister_range) (gpointer data, gpointer user_data);
    gboolean (*is_app_pinned) (gconstpointer data, gsize size,
      gint device_id, gpointer user_data);
    gsize (*page_size) (gpointer user_data);
} CoHostRegOps;

typedef enum
{
  CO_HOSTREG_REGISTER,          /* register the pages if nobody has */
  CO_HOSTREG_HOLD,              /* never register: keep registrations off them */
  CO_HOSTREG_LOOKUP,            /* never register, never hold: only what the
                                 * pages are (the caller stages pageable ones) */
} CoHostRegMode;

typedef enum
{
  CO_HOSTREG_PINNED,            /* the application's page-locked memory */
  CO_HOSTREG_REGISTERED,        /* inside a registered entry (referenced) */
  CO_HOSTREG_PAGEABLE,          /* pageable, held against registrations */
  CO_HOSTREG_REFUSED,           /* neither: stage the bytes */
} CoHostRegResult;

/* The process-wide registry (cudart).  Never freed. */
CoHostReg *co_hostreg_get_default (void);

/* A registry of its own over @ops (tests). */
CoHostReg *co_hostreg_new (const CoHostRegOps * ops, gpointer user_data);
/* Every reference must have been released. */
void co_hostreg_free (CoHostReg * reg);

/* Looks up (and with CO_HOSTREG_REGISTER, registers) the pages of the
 * @size > 0 bytes at @data, see above.  For REGISTERED, and PAGEABLE
 * with CO_HOSTREG_HOLD, one reference is added to *@ref (made when *@ref is
 * NULL).  For REFUSED,
 * @error says why: CO_ENGINE_ERROR_REFUSED for the registry's own reasons,
 * the driver's error when registering failed. */
CoHostRegResult co_hostreg_acquire (CoHostReg * reg, gconstpointer data,
    gsize size, gint device_id, CoHostRegMode mode, CoHostRef ** ref,
    GError ** error);

/* Adds another reference on each entry @src holds to *@dst (made when
 * NULL).  Nothing when @src is NULL. */
void co_hostref_add (CoHostRef ** dst, const CoHostRef * src);
/* Whether the @size bytes at @data lie inside @ref's registered entries
 * (one, or several end to end). */
gboolean co_hostref_covers (const CoHostRef * ref, gconstpointer data,
    gsize size);
/* For @size bytes at @data that lie in registered entries (one, or several
 * end to end: what a REGISTERED answer covers), the offset from @data of
 * the first boundary between two of them (where a copy from the bytes must
 * be split: no copy may span two registrations), or 0 when there is none.
 * While no two registered entries touch it answers 0 without the lock. */
guintptr co_hostreg_boundary (CoHostReg * reg, gconstpointer data, gsize size);
/* Drops every reference @ref holds (the last one on an entry undoes it)
 * and frees @ref.  NULL is allowed. */
void co_hostref_release (CoHostRef * ref);

/* Number of live entries (registered and held): tests. */
guint co_hostreg_n_entries (CoHostReg * reg);

#ifdef CO_FAULT_INJECTION
/* Tests (-Dfault-injection builds): co_hostreg_get_default() answers @reg
 * (a registry over a fake driver) until it is called again with NULL. */
void co_test_hostreg_set_default (CoHostReg * reg);
#endif

G_END_DECLS
#endif /* __CO_HOSTREG_H__ */
