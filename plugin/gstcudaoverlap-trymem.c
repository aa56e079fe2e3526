/* cudaoverlap: system memory that may fail.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer's default (system memory) allocator takes its memory with
 * g_malloc(), which aborts the process when the memory is not there: a
 * 20000x20000 RGBA frame under a memory limit must end in an element error,
 * not an abort.  This allocator takes its memory with g_try_malloc() and
 * returns NULL when it fails, so a buffer pool's activation (or its growth)
 * fails and the element reports it.  The memory is ordinary wrapped system
 * memory: mapping and sharing are the system allocator's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaoverlapfilter-private.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

typedef struct
{
  GstAllocator parent;
} GstCudaOverlapTryAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstCudaOverlapTryAllocatorClass;

GType gst_cuda_overlap_try_allocator_get_type (void);
G_DEFINE_TYPE (GstCudaOverlapTryAllocator, gst_cuda_overlap_try_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
try_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  guint8 *base, *data;

  if (maxsize < size || maxsize + align < maxsize)
    return NULL;                /* overflow */
  base = g_try_malloc (maxsize + align);
  if (!base) {
    GST_WARNING_OBJECT (allocator, "could not allocate %" G_GSIZE_FORMAT
        " bytes", maxsize);
    return NULL;
  }
  data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (data + params->prefix + size, 0, params->padding);
  return gst_memory_new_wrapped (params->flags, data, maxsize, params->prefix,
      size, base, g_free);
}

static void
try_free (GstAllocator * allocator, GstMemory * mem)
{
  /* the memory is wrapped system memory: it never comes back here */
  g_assert_not_reached ();
}

static void
gst_cuda_overlap_try_allocator_class_init (GstCudaOverlapTryAllocatorClass *
    klass)
{
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  alloc_class->alloc = try_alloc;
  alloc_class->free = try_free;
}

static void
gst_cuda_overlap_try_allocator_init (GstCudaOverlapTryAllocator * self)
{
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* A new reference to the one allocator of the process. */
GstAllocator *
gst_cuda_overlap_try_allocator_get (void)
{
  static GstAllocator *allocator;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *a = g_object_new (gst_cuda_overlap_try_allocator_get_type (),
        NULL);

    gst_object_ref_sink (a);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&allocator, a);
  }
  return gst_object_ref (allocator);
}
