/* cudaoverlap: the registry of page-locked host ranges, and page-locked
 * host allocation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An asynchronous copy from host memory needs the memory page-locked, and
 * several elements of a process may copy from the same buffers.  The
 * registry counts who uses which pages, so that a range is registered once
 * and unregistered only when its last user lets go (co-hostreg.h has the
 * rules it answers by).
 *
 * Invariants, under reg->lock: no two entries overlap, except held entries
 * among themselves (a held entry registers nothing); an entry's refs > 0;
 * a registered entry is page-locked from its creation until its removal.
 * The driver calls (register, unregister, the app-pinned question) are made
 * under the lock, so what the registry saw is what the driver does: no
 * registration can slip in between a look-up and the one it decides.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "co-hostreg.h"
#ifdef CO_HAVE_CUDA
#include <cuda_runtime.h>

#include "co-cuda-check.h"
#endif

typedef struct
{
  guintptr start, end;          /* page-aligned, end exclusive */
  gint refs;
  gboolean registered;          /* FALSE: held (pageable copies in flight) */
} CoHostEntry;

struct _CoHostReg
{
  GMutex lock;
  CoHostRegOps ops;
  gpointer user_data;
  gsize page;
  GPtrArray *entries;           /* CoHostEntry, unordered (few) */
  /* registered entries that end where another begins: while 0, no copy
   * from the registry's ranges has a boundary to split at (read without
   * the lock by co_hostreg_boundary(), on every host-to-device copy) */
  gint n_touching;
};

/* One reference per element of @entries (an entry may appear twice). */
struct _CoHostRef
{
  CoHostReg *reg;
  GPtrArray *entries;
};

/* Blocks of at least this size are made in two steps: anonymous memory
 * backed by transparent huge pages where the kernel allows them, its pages
 * made present by this thread (the kernel's work: zeroing and mapping),
 * then cudaHostRegister of the whole block.  cudaHostAlloc does both under
 * the driver's lock, which holds every other CUDA call of the process for
 * as long (4K RGBA, 33 MB: 16-24 ms, against 11-13 ms of page making on
 * the calling thread and 1.3-1.9 ms of cudaHostRegister; H200 host,
 * 2026-12-03).  Smaller blocks take cudaHostAlloc: they are quick either
 * way. */
#define HUGE_BLOCK ((gsize) 2 << 20)

/* A mapped block starts on a huge-page boundary, so the kernel backs its
 * whole huge pages with huge pages.  It ends on the next huge page when
 * that adds at most an eighth of its length (a 1080p RGBA frame, 8.3 MB:
 * 8 MiB), whose pages are made and locked faster (docs/PERFORMANCE.md,
 * *Short runs*); else on the next small page, the rest taking small ones
 * (a 1080p NV12 frame, 3.1 MB, is not rounded up to 4 MiB). */
gsize
co_host_block_length (gsize size)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize len = (size + page - 1) / page * page;
  gsize huge = (size + HUGE_BLOCK - 1) / HUGE_BLOCK * HUGE_BLOCK;

  return huge - len <= len / 8 ? huge : len;
}

#ifdef CO_HAVE_CUDA
/* ---- page-locked allocation ---------------------------------------------- */

/* The blocks made by mapping: start -> mapped length (under map_lock). */
static GMutex map_lock;
static GHashTable *mapped;

/* @call checked; with @counted also a fault point (CO_CUDA_CHECK_GOTO),
 * without it not (a block made ahead of need). */
#define CHECK(counted, call, error)                                     \
  ((counted) ? CO_CUDA_CHECK_AT_LEVEL (call, G_LOG_LEVEL_DEBUG, (error)) : \
      CO_CUDA_CHECK_PLAIN (call, (error)))

/* Makes the pages of [@p, @p + @len) present and writable, zeroed; FALSE
 * with @error set when the kernel has no memory for them (a write per
 * page would then meet the OOM killer instead of an error). */
static gboolean
populate (guint8 * p, gsize len, GError ** error)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE), off;

#ifdef MADV_POPULATE_WRITE
  if (madvise (p, len, MADV_POPULATE_WRITE) == 0)
    return TRUE;
  if (errno != EINVAL) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "could not make %" G_GSIZE_FORMAT " bytes of memory present: %s",
        len, g_strerror (errno));
    return FALSE;
  }
#endif
  /* kernels before 5.14: a write per page */
  for (off = 0; off < len; off += page)
    p[off] = 0;
  return TRUE;
}

/* A mapped, page-locked block of @size bytes (co_host_block_length()
 * long); NULL with @error set. */
static gpointer
map_and_register (gsize size, GError ** error)
{
  gsize len = co_host_block_length (size);
  guint8 *raw, *p;
  gsize head, tail;

  /* one huge page of slack, to start on a huge-page boundary */
  raw = mmap (NULL, len + HUGE_BLOCK, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "mmap of %" G_GSIZE_FORMAT " bytes failed: %s", len + HUGE_BLOCK,
        g_strerror (errno));
    return NULL;
  }
  p = (guint8 *) (((guintptr) raw + HUGE_BLOCK - 1) & ~(guintptr)
      (HUGE_BLOCK - 1));
  head = p - raw;
  tail = HUGE_BLOCK - head;
  if (head)
    munmap (raw, head);
  if (tail)
    munmap (p + len, tail);
#ifdef MADV_HUGEPAGE
  /* a hint: where the kernel has no huge pages the block takes small ones */
  madvise (p, len, MADV_HUGEPAGE);
#endif
  if (!populate (p, len, error))
    goto unmap;
  /* the caller asked the fault point of the block already */
  if (!CO_CUDA_CHECK_PLAIN (cudaHostRegister (p, len,
              cudaHostRegisterPortable), error))
    goto unmap;
  g_mutex_lock (&map_lock);
  if (!mapped)
    mapped = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (mapped, p, GSIZE_TO_POINTER (len));
  g_mutex_unlock (&map_lock);
  return p;

unmap:
  munmap (p, len);
  return NULL;
}

/* Portable memory is usable by every context; the device is selected
 * first so that the call runs in the device's context.  @counted: the
 * calls are fault points, the mapped blocks' under the name of the small
 * ones' cudaHostAlloc, so that a test counts one point per block. */
static gpointer
host_alloc (gsize size, gint device_id, gboolean counted, GError ** error)
{
  void *p = NULL;

  if (!CHECK (counted, cudaSetDevice (MAX (device_id, 0)), error))
    return NULL;
  if (size < HUGE_BLOCK) {
    if (!CHECK (counted, cudaHostAlloc (&p, MAX (size, 1),
                cudaHostAllocPortable), error))
      return NULL;
    return p;
  }
  if (counted && co_fault_hit_call ("cudaHostAlloc")) {
    co_cuda_injected ("cudaHostAlloc", __FILE__, G_STRINGIFY (__LINE__),
        G_STRFUNC, G_LOG_LEVEL_DEBUG, error);
    return NULL;
  }
  return map_and_register (size, error);
}

gpointer
co_host_alloc (gsize size, gint device_id, GError ** error)
{
  return host_alloc (size, device_id, TRUE, error);
}

gpointer
co_host_alloc_ahead (gsize size, gint device_id, GError ** error)
{
  return host_alloc (size, device_id, FALSE, error);
}

void
co_host_free (gpointer data)
{
  gpointer len = NULL;

  if (!data)
    return;
  g_mutex_lock (&map_lock);
  if (mapped)
    g_hash_table_steal_extended (mapped, data, NULL, &len);
  g_mutex_unlock (&map_lock);
  /* a release has no caller to fail: the failure is logged, and the
   * memory is lost */
  if (!len) {
    CO_CUDA_CHECK_LOG (cudaFreeHost (data));
    return;
  }
  if (CO_CUDA_CHECK_LOG (cudaHostUnregister (data)))
    munmap (data, GPOINTER_TO_SIZE (len));
}

/* ---- the driver behind the default registry ------------------------------ */

static gboolean
cuda_register (gpointer data, gsize size, gint device_id, gpointer user_data,
    GError ** error)
{
  CO_CUDA_CHECK_GOTO (cudaSetDevice (MAX (device_id, 0)), error, fail);
  CO_CUDA_CHECK_GOTO (cudaHostRegister (data, size,
          cudaHostRegisterPortable), error, fail);
  return TRUE;

fail:
  return FALSE;
}

static void
cuda_unregister (gpointer data, gpointer user_data)
{
  /* a release has no caller to fail: the failure is logged, and the range
   * stays page-locked */
  CO_CUDA_CHECK_LOG (cudaHostUnregister (data));
}

static gboolean
cuda_is_pinned_at (gconstpointer p)
{
  struct cudaPointerAttributes attr;

  CO_CUDA_CHECK_GOTO (cudaPointerGetAttributes (&attr, p), NULL, unknown);
  return attr.type == cudaMemoryTypeHost;

unknown:
  /* not pinned, then: it is registered (or refused) by us */
  return FALSE;
}

static gboolean
cuda_is_app_pinned (gconstpointer data, gsize size, gint device_id,
    gpointer user_data)
{
  return cuda_is_pinned_at (data) &&
      cuda_is_pinned_at ((const guint8 *) data + size - 1);
}

#else
/* ---- without CUDA (-Dcuda=disabled) -------------------------------------- */

/* Nothing is page-locked: every range is pageable to the registry (the
 * allocation's stand-in is in co-nocuda.c). */
static gboolean
cuda_register (gpointer data, gsize size, gint device_id, gpointer user_data,
    GError ** error)
{
  g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
      "no page-locking: this build of cudaoverlap has no CUDA backend "
      "(built with -Dcuda=disabled)");
  return FALSE;
}

static void
cuda_unregister (gpointer data, gpointer user_data)
{
}

static gboolean
cuda_is_app_pinned (gconstpointer data, gsize size, gint device_id,
    gpointer user_data)
{
  return FALSE;
}
#endif /* CO_HAVE_CUDA */

static gsize
system_page_size (gpointer user_data)
{
  long p = sysconf (_SC_PAGESIZE);

  return p > 0 ? (gsize) p : 4096;
}

static const CoHostRegOps cuda_ops = {
  cuda_register, cuda_unregister, cuda_is_app_pinned, system_page_size,
};

/* ---- the registry -------------------------------------------------------- */

CoHostReg *
co_hostreg_new (const CoHostRegOps * ops, gpointer user_data)
{
  CoHostReg *reg = g_new0 (CoHostReg, 1);

  g_mutex_init (&reg->lock);
  reg->ops = *ops;
  reg->user_data = user_data;
  reg->page = ops->page_size (user_data);
  g_return_val_if_fail (reg->page > 0 && (reg->page & (reg->page - 1)) == 0,
      NULL);
  reg->entries = g_ptr_array_new ();
  return reg;
}

void
co_hostreg_free (CoHostReg * reg)
{
  if (!reg)
    return;
  g_return_if_fail (reg->entries->len == 0);
  g_ptr_array_unref (reg->entries);
  g_mutex_clear (&reg->lock);
  g_free (reg);
}

#ifdef CO_FAULT_INJECTION
static CoHostReg *test_default;

void
co_test_hostreg_set_default (CoHostReg * reg)
{
  g_atomic_pointer_set (&test_default, reg);
}
#endif

CoHostReg *
co_hostreg_get_default (void)
{
  static CoHostReg *reg;

#ifdef CO_FAULT_INJECTION
  CoHostReg *test = g_atomic_pointer_get (&test_default);

  if (test)
    return test;
#endif
  if (g_once_init_enter (&reg))
    g_once_init_leave (&reg, co_hostreg_new (&cuda_ops, NULL));
  return reg;
}

guint
co_hostreg_n_entries (CoHostReg * reg)
{
  guint n;

  g_mutex_lock (&reg->lock);
  n = reg->entries->len;
  g_mutex_unlock (&reg->lock);
  return n;
}

static void
ref_add_entry (CoHostRef ** ref, CoHostReg * reg, CoHostEntry * en)
{
  if (!*ref) {
    *ref = g_new0 (CoHostRef, 1);
    (*ref)->reg = reg;
    (*ref)->entries = g_ptr_array_new ();
  }
  g_return_if_fail ((*ref)->reg == reg);
  en->refs++;
  g_ptr_array_add ((*ref)->entries, en);
}

/* @en (registered) and each registered entry it touches, end to start: one
 * pair each, added (@sign 1) or removed (-1).  Under reg->lock. */
static void
count_touching (CoHostReg * reg, const CoHostEntry * en, gint sign)
{
  guint i;

  if (!en->registered)
    return;
  for (i = 0; i < reg->entries->len; i++) {
    const CoHostEntry *o = g_ptr_array_index (reg->entries, i);

    if (o != en && o->registered && (o->end == en->start ||
            o->start == en->end))
      g_atomic_int_add (&reg->n_touching, sign);
  }
}

static CoHostEntry *
entry_new (CoHostReg * reg, guintptr start, guintptr end, gboolean registered)
{
  CoHostEntry *en = g_new0 (CoHostEntry, 1);

  en->start = start;
  en->end = end;
  en->registered = registered;
  g_ptr_array_add (reg->entries, en);
  count_touching (reg, en, 1);
  return en;
}

static void
refuse_partial (guintptr start, guintptr end, GError ** reason)
{
  g_set_error (reason, CO_ENGINE_ERROR, CO_ENGINE_ERROR_REFUSED,
      "pages %#" G_GINTPTR_MODIFIER "x-%#" G_GINTPTR_MODIFIER "x overlap "
      "a registered range only partly", start, end);
}

static gint
entry_cmp_start (gconstpointer a, gconstpointer b)
{
  const CoHostEntry *x = *(CoHostEntry * const *) a;
  const CoHostEntry *y = *(CoHostEntry * const *) b;

  return x->start < y->start ? -1 : x->start > y->start;
}

/* Pages [@start, @end) that overlap registered entries only partly (none
 * contains them all; no held entry overlaps them): with @do_register the
 * pages no entry has are registered, an entry per gap, and *@ref takes a
 * reference on every entry over the pages (REGISTERED: the bytes lie in
 * several adjacent registrations, and a copy from them is split at the
 * boundaries, co_hostreg_boundary()); without it, REGISTERED only when the
 * entries leave no gap.  REFUSED with @reason: a gap not registered (or
 * the driver refused one), nothing done.  Under reg->lock. */
static CoHostRegResult
acquire_around (CoHostReg * reg, guintptr start, guintptr end, gint device_id,
    gboolean do_register, CoHostRef ** ref, GError ** reason)
{
  GPtrArray *over = g_ptr_array_new ();
  GArray *gaps = g_array_new (FALSE, FALSE, sizeof (guintptr));
  CoHostRegResult res = CO_HOSTREG_REGISTERED;
  guintptr at = start;
  guint i;

  for (i = 0; i < reg->entries->len; i++) {
    CoHostEntry *en = g_ptr_array_index (reg->entries, i);

    if (en->registered && en->start < end && start < en->end)
      g_ptr_array_add (over, en);
  }
  g_ptr_array_sort (over, entry_cmp_start);
  for (i = 0; i <= over->len; i++) {
    guintptr next = i < over->len ?
        ((CoHostEntry *) g_ptr_array_index (over, i))->start : end;

    if (next > at) {
      g_array_append_val (gaps, at);
      g_array_append_val (gaps, next);
    }
    if (i < over->len)
      at = MAX (at, ((CoHostEntry *) g_ptr_array_index (over, i))->end);
  }
  if (gaps->len > 0 && !do_register) {
    refuse_partial (start, end, reason);
    res = CO_HOSTREG_REFUSED;
  }
  for (i = 0; res == CO_HOSTREG_REGISTERED && i < gaps->len; i += 2) {
    guintptr gs = g_array_index (gaps, guintptr, i);
    guintptr ge = g_array_index (gaps, guintptr, i + 1);

    if (!reg->ops.register_range ((gpointer) gs, ge - gs, device_id,
            reg->user_data, reason)) {
      /* undo the gaps registered so far */
      while (i > 0) {
        i -= 2;
        reg->ops.unregister_range ((gpointer) g_array_index (gaps, guintptr,
                i), reg->user_data);
      }
      res = CO_HOSTREG_REFUSED;
    }
  }
  if (res == CO_HOSTREG_REGISTERED) {
    for (i = 0; i < gaps->len; i += 2)
      g_ptr_array_add (over, entry_new (reg, g_array_index (gaps, guintptr, i),
              g_array_index (gaps, guintptr, i + 1), TRUE));
    for (i = 0; i < over->len; i++)
      ref_add_entry (ref, reg, g_ptr_array_index (over, i));
  }
  g_array_unref (gaps);
  g_ptr_array_unref (over);
  return res;
}

CoHostRegResult
co_hostreg_acquire (CoHostReg * reg, gconstpointer data, gsize size,
    gint device_id, CoHostRegMode mode, CoHostRef ** ref, GError ** error)
{
  guintptr p = (guintptr) data, start, end;
  CoHostEntry *inside = NULL, *held_inside = NULL;
  gboolean overlap_registered = FALSE, overlap_held = FALSE;
  CoHostRegResult res;
  GError *reason = NULL;
  guint i;

  g_return_val_if_fail (reg != NULL && ref != NULL, CO_HOSTREG_REFUSED);
  g_return_val_if_fail (data != NULL && size > 0, CO_HOSTREG_REFUSED);
  g_return_val_if_fail (*ref == NULL || (*ref)->reg == reg, CO_HOSTREG_REFUSED);

  start = p & ~(guintptr) (reg->page - 1);
  if (p + size < p || p + size + reg->page - 1 < p + size) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_REFUSED,
        "the range wraps around the address space");
    return CO_HOSTREG_REFUSED;
  }
  end = (p + size + reg->page - 1) & ~(guintptr) (reg->page - 1);

  g_mutex_lock (&reg->lock);
  for (i = 0; i < reg->entries->len; i++) {
    CoHostEntry *en = g_ptr_array_index (reg->entries, i);
    gboolean contains = en->start <= start && end <= en->end;

    if (en->end <= start || en->start >= end)
      continue;
    if (en->registered) {
      if (contains) {
        inside = en;
        break;
      }
      overlap_registered = TRUE;
    } else {
      overlap_held = TRUE;
      if (contains)
        held_inside = en;
    }
  }

  if (inside) {
    ref_add_entry (ref, reg, inside);
    res = CO_HOSTREG_REGISTERED;
  } else if (overlap_registered && !overlap_held && mode != CO_HOSTREG_HOLD) {
    res = acquire_around (reg, start, end, device_id,
        mode == CO_HOSTREG_REGISTER, ref, &reason);
  } else if (overlap_registered) {
    refuse_partial (start, end, &reason);
    res = CO_HOSTREG_REFUSED;
  } else if (reg->ops.is_app_pinned (data, size, device_id, reg->user_data)) {
    res = CO_HOSTREG_PINNED;
  } else if (mode == CO_HOSTREG_LOOKUP) {
    res = CO_HOSTREG_PAGEABLE;
  } else if (mode == CO_HOSTREG_HOLD) {
    ref_add_entry (ref, reg, held_inside ? held_inside :
        entry_new (reg, start, end, FALSE));
    res = CO_HOSTREG_PAGEABLE;
  } else if (overlap_held) {
    g_set_error (&reason, CO_ENGINE_ERROR, CO_ENGINE_ERROR_REFUSED,
        "pages %#" G_GINTPTR_MODIFIER "x-%#" G_GINTPTR_MODIFIER "x are "
        "shared with pageable copies in flight", start, end);
    res = CO_HOSTREG_REFUSED;
  } else if (reg->ops.register_range ((gpointer) start, end - start,
          device_id, reg->user_data, &reason)) {
    ref_add_entry (ref, reg, entry_new (reg, start, end, TRUE));
    res = CO_HOSTREG_REGISTERED;
  } else {
    res = CO_HOSTREG_REFUSED;
  }
  g_mutex_unlock (&reg->lock);

  /* set here, outside the lock */
  if (reason)
    g_propagate_error (error, reason);
  return res;
}

void
co_hostref_add (CoHostRef ** dst, const CoHostRef * src)
{
  guint i;

  if (!src || src->entries->len == 0)
    return;
  g_mutex_lock (&src->reg->lock);
  for (i = 0; i < src->entries->len; i++)
    ref_add_entry (dst, src->reg, g_ptr_array_index (src->entries, i));
  g_mutex_unlock (&src->reg->lock);
}

gboolean
co_hostref_covers (const CoHostRef * ref, gconstpointer data, gsize size)
{
  guintptr p = (guintptr) data, end = p + size, at = p;
  gboolean moved = TRUE;
  guint i;

  if (!ref || end < p)
    return FALSE;
  /* start and end never change while @ref holds the entries: no lock; the
   * registered entries it holds, end to end, from @data to @data + @size */
  while (at < end && moved) {
    moved = FALSE;
    for (i = 0; i < ref->entries->len; i++) {
      const CoHostEntry *en = g_ptr_array_index (ref->entries, i);

      if (en->registered && en->start <= at && at < en->end) {
        at = en->end;
        moved = TRUE;
      }
    }
  }
  return at >= end;
}

guintptr
co_hostreg_boundary (CoHostReg * reg, gconstpointer data, gsize size)
{
  guintptr p = (guintptr) data, end = p + size, b = 0;
  guint i;

  if (!reg || end <= p || !g_atomic_int_get (&reg->n_touching))
    return 0;
  g_mutex_lock (&reg->lock);
  for (i = 0; i < reg->entries->len; i++) {
    CoHostEntry *en = g_ptr_array_index (reg->entries, i);

    if (!en->registered || en->end <= p || en->start >= end)
      continue;
    if (en->start > p && (!b || en->start < b))
      b = en->start;
    if (en->end < end && (!b || en->end < b))
      b = en->end;
  }
  g_mutex_unlock (&reg->lock);
  return b ? b - p : 0;
}

void
co_hostref_release (CoHostRef * ref)
{
  CoHostReg *reg;
  guint i;

  if (!ref)
    return;
  reg = ref->reg;
  g_mutex_lock (&reg->lock);
  for (i = 0; i < ref->entries->len; i++) {
    CoHostEntry *en = g_ptr_array_index (ref->entries, i);

    g_assert (en->refs > 0);
    if (--en->refs > 0)
      continue;
    /* under the lock: nobody registers these pages before they are free */
    if (en->registered)
      reg->ops.unregister_range ((gpointer) en->start, reg->user_data);
    count_touching (reg, en, -1);
    g_ptr_array_remove_fast (reg->entries, en);
    g_free (en);
  }
  g_mutex_unlock (&reg->lock);
  g_ptr_array_unref (ref->entries);
  g_free (ref);
}
