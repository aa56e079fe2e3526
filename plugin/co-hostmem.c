/* cudaoverlap: page-locked host memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CoPinnedAllocator hands out GstMemory over cudaHostAlloc'ed memory.  The
 * buffer pools built on it (input pool proposed upstream, output pool) are
 * made at caps time, so the per-frame path allocates nothing.
 *
 * Foreign memory (a GstMemory that is not ours, e.g. an upstream pool's
 * malloc'ed memory) is registered with cudaHostRegister the first time a
 * frame in it is uploaded; the registration is attached to the GstMemory
 * (qdata) and undone when that GstMemory is finalized, before its memory is
 * freed.  Upstream pools recycle their GstMemory, so each is registered once.
 */
#include <string.h>

#include "co-hostmem.h"
#include "co-engine.h"

GST_DEBUG_CATEGORY_STATIC (co_hostmem_debug);
#define GST_CAT_DEFAULT co_hostmem_debug

typedef struct
{
  GstMemory mem;
  gpointer base;                /* from cudaHostAlloc */
  guint8 *data;                 /* aligned start */
} CoPinnedMemory;

struct _CoPinnedAllocator
{
  GstAllocator parent;
  gint device_id;
};

G_DEFINE_TYPE (CoPinnedAllocator, co_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
co_pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  CoPinnedAllocator *self = CO_PINNED_ALLOCATOR (allocator);
  CoPinnedMemory *m;
  gsize align = params->align | gst_memory_alignment | 63;
  gsize maxsize = size + params->prefix + params->padding;
  gchar *why = NULL;
  gpointer base;

  base = co_cuda_host_alloc (maxsize + align, self->device_id, &why);
  if (!base) {
    GST_ERROR_OBJECT (self, "could not allocate %" G_GSIZE_FORMAT
        " page-locked bytes: %s", maxsize, why);
    g_free (why);
    return NULL;
  }
  m = g_new0 (CoPinnedMemory, 1);
  m->base = base;
  m->data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  gst_memory_init (GST_MEMORY_CAST (m), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (m->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (m->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (m);
}

static void
co_pinned_free (GstAllocator * allocator, GstMemory * mem)
{
  CoPinnedMemory *m = (CoPinnedMemory *) mem;

  co_cuda_host_free (m->base);
  g_free (m);
}

static gpointer
co_pinned_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((CoPinnedMemory *) mem)->data;
}

static void
co_pinned_unmap (GstMemory * mem)
{
}

static GstMemory *
co_pinned_share (GstMemory * mem, gssize offset, gssize size)
{
  CoPinnedMemory *m = (CoPinnedMemory *) mem, *sub;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  sub = g_new0 (CoPinnedMemory, 1);
  sub->base = NULL;
  sub->data = m->data;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      mem->allocator, parent, mem->maxsize, mem->align,
      mem->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
co_pinned_free_shared (GstAllocator * allocator, GstMemory * mem)
{
  CoPinnedMemory *m = (CoPinnedMemory *) mem;

  if (mem->parent)
    g_free (m);
  else
    co_pinned_free (allocator, mem);
}

static void
co_pinned_allocator_class_init (CoPinnedAllocatorClass * klass)
{
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  alloc_class->alloc = co_pinned_alloc;
  alloc_class->free = co_pinned_free_shared;
  GST_DEBUG_CATEGORY_INIT (co_hostmem_debug, "cudaoverlap-hostmem", 0,
      "cudaoverlap page-locked host memory");
}

static void
co_pinned_allocator_init (CoPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);

  alloc->mem_type = CO_PINNED_MEMORY_TYPE;
  alloc->mem_map = co_pinned_map;
  alloc->mem_unmap = co_pinned_unmap;
  alloc->mem_share = co_pinned_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
co_pinned_allocator_new (gint device_id)
{
  CoPinnedAllocator *self = g_object_new (CO_TYPE_PINNED_ALLOCATOR, NULL);

  self->device_id = device_id;
  gst_object_ref_sink (self);
  return GST_ALLOCATOR (self);
}

gboolean
co_is_pinned_memory (GstMemory * mem)
{
  return mem->allocator && gst_memory_is_type (mem, CO_PINNED_MEMORY_TYPE);
}

/* ---- registration of foreign memory ------------------------------------ */

typedef struct
{
  gpointer data;
  gboolean ok;
} CoRegistration;

static GQuark
co_registration_quark (void)
{
  static GQuark q;

  if (!q)
    q = g_quark_from_static_string ("co-host-registration");
  return q;
}

static void
co_registration_free (gpointer data)
{
  CoRegistration *r = data;

  if (r->ok)
    co_cuda_host_unregister (r->data);
  g_free (r);
}

static CoMemPath
co_memory_prepare (GstMemory * mem, gint device_id, gsize min_register)
{
  GstMemory *owner = mem->parent ? mem->parent : mem;
  CoRegistration *r;
  GstMapInfo map;
  gchar *why = NULL;

  if (co_is_pinned_memory (mem))
    return CO_PATH_PINNED;
  if (device_id < -1 || owner->maxsize < min_register)
    return CO_PATH_PAGEABLE;

  r = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (owner),
      co_registration_quark ());
  if (r)
    return r->ok ? CO_PATH_REGISTERED : CO_PATH_PAGEABLE;

  /* Register the whole of the owning memory, once. */
  if (!gst_memory_map (owner, &map, GST_MAP_READ))
    return CO_PATH_PAGEABLE;
  r = g_new0 (CoRegistration, 1);
  r->data = map.data - owner->offset;
  r->ok = co_cuda_host_register (r->data, owner->maxsize, device_id, &why);
  gst_memory_unmap (owner, &map);
  if (!r->ok) {
    GST_INFO ("memory %p not registered, copying from pageable memory: %s",
        owner, why);
    g_free (why);
  } else {
    GST_DEBUG ("registered %" G_GSIZE_FORMAT " bytes at %p", owner->maxsize,
        r->data);
  }
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (owner),
      co_registration_quark (), r, co_registration_free);
  return r->ok ? CO_PATH_REGISTERED : CO_PATH_PAGEABLE;
}

CoMemPath
co_hostmem_prepare (GstBuffer * buf, gint device_id, gsize min_register)
{
  guint i, n = gst_buffer_n_memory (buf);
  CoMemPath path = CO_PATH_PINNED;

  for (i = 0; i < n; i++) {
    CoMemPath p = co_memory_prepare (gst_buffer_peek_memory (buf, i),
        device_id, min_register);

    path = MAX (path, p);
  }
  return path;
}

CoMemPath
co_hostmem_path_of (GstBuffer * buf, gconstpointer data, gsize size)
{
  const guint8 *p = data;
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    GstMemory *owner = mem->parent ? mem->parent : mem;
    const guint8 *start;
    CoMemPath path;

    if (co_is_pinned_memory (owner)) {
      start = ((CoPinnedMemory *) owner)->data;
      path = CO_PATH_PINNED;
    } else {
      CoRegistration *r = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST
          (owner), co_registration_quark ());

      if (!r || !r->ok)
        continue;
      start = r->data;
      path = CO_PATH_REGISTERED;
    }
    if (p >= start && size <= owner->maxsize &&
        (gsize) (p - start) <= owner->maxsize - size)
      return path;
  }
  return CO_PATH_PAGEABLE;
}
