/* cudaoverlap: a pool of linear CUDA memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * 1.22's GstCudaBufferPool reads video caps (its set_config fails on
 * audio), and the only way to make a GstCudaMemory, gst_cuda_allocator_
 * alloc(), takes a GstVideoInfo: it allocates cuMemAllocPitch (stride[0]
 * bytes wide, height rows) and aborts (g_assert_not_reached) on a format
 * missing from its table, GRAY8 among them.  So a buffer of N bytes is
 * described as ONE row of RGBA pixels, ceil (N / 4) wide, and cut to N
 * bytes (gst_buffer_set_size; the pool's reset brings every buffer back to
 * that size).  One row makes the memory linear: the pitch pads only the
 * end of each row, and there is one, so bytes 0 .. N - 1 are contiguous,
 * which the kernels and the copies need (they address the samples as
 * bytes).  A W x H layout would be linear only where the driver's pitch
 * equals the row width, which cuMemAllocPitch does not promise.  The
 * memory's own GstVideoInfo says RGBA, w x 1: an application that maps it
 * with GST_MAP_CUDA gets the same bytes at the device pointer; a system
 * map downloads them, as for any GstCudaMemory.
 *
 * The pool is ours (GstCudaOverlapCudaPool), with the context it was made
 * for, so that an element upstream can tell (gstcudaoverlapfilter-devmem.c)
 * whether a pool downstream proposes is one of its own context.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudaoverlap-cudapool.h"
#include "gstcudaoverlap-cudamem.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_cudapool_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_cudapool_debug

struct _GstCudaOverlapCudaPool
{
  GstBufferPool parent;

  GstObject *context;           /* GstCudaContext */
  guint size;                   /* bytes per buffer, from the config */
};

G_DEFINE_TYPE_WITH_CODE (GstCudaOverlapCudaPool, gst_cuda_overlap_cuda_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_cudapool_debug,
        "cudaoverlap-cudapool", 0, "cudaoverlap: linear CUDA memory pool"));

GstMemory *
gst_cuda_overlap_cuda_memory_new_linear (GstObject * cuda_context, gsize size)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstAllocator *allocator;
  GstVideoInfo info;
  GstMemory *mem;

  if (!lib || size == 0 || size > (gsize) G_MAXINT - 3)
    return NULL;
  /* one row of RGBA: see the top of this file */
  if (!gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA,
          (guint) ((size + 3) / 4), 1))
    return NULL;
  allocator = gst_allocator_find (GST_CUDA_OVERLAP_CUDA_MEMORY_TYPE);
  if (!allocator)
    return NULL;
  mem = lib->allocator_alloc (allocator, cuda_context, &info);
  gst_object_unref (allocator);
  if (mem && mem->size < size) {
    /* cannot happen (pitch >= row width); never hand out a short one */
    gst_memory_unref (mem);
    mem = NULL;
  }
  if (mem)
    gst_memory_resize (mem, 0, size);
  GST_LOG ("%" G_GSIZE_FORMAT " bytes of CUDA memory: %p", size, mem);
  return mem;
}

GstBufferPool *
gst_cuda_overlap_cuda_pool_new (GstObject * cuda_context)
{
  GstCudaOverlapCudaPool *pool;

  if (!gst_cuda_overlap_cuda_lib (NULL) || !cuda_context)
    return NULL;
  pool = g_object_new (GST_TYPE_CUDA_OVERLAP_CUDA_POOL, NULL);
  gst_object_ref_sink (pool);
  pool->context = gst_object_ref (cuda_context);
  return GST_BUFFER_POOL (pool);
}

GstObject *
gst_cuda_overlap_cuda_pool_context (GstBufferPool * pool)
{
  if (!pool || !GST_IS_CUDA_OVERLAP_CUDA_POOL (pool))
    return NULL;
  return GST_CUDA_OVERLAP_CUDA_POOL (pool)->context;
}

static gboolean
gst_cuda_overlap_cuda_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstCudaOverlapCudaPool *self = GST_CUDA_OVERLAP_CUDA_POOL (pool);
  guint size = 0;

  if (!gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL) ||
      size == 0) {
    GST_WARNING_OBJECT (self, "no buffer size in the config");
    return FALSE;
  }
  self->size = size;
  return GST_BUFFER_POOL_CLASS (gst_cuda_overlap_cuda_pool_parent_class)
      ->set_config (pool, config);
}

static GstFlowReturn
gst_cuda_overlap_cuda_pool_alloc_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  GstCudaOverlapCudaPool *self = GST_CUDA_OVERLAP_CUDA_POOL (pool);
  GstMemory *mem = gst_cuda_overlap_cuda_memory_new_linear (self->context,
      self->size);

  if (!mem) {
    GST_ERROR_OBJECT (self, "could not allocate %u bytes of CUDA memory",
        self->size);
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new ();
  gst_buffer_append_memory (*buffer, mem);
  return GST_FLOW_OK;
}

static void
gst_cuda_overlap_cuda_pool_dispose (GObject * object)
{
  GstCudaOverlapCudaPool *self = GST_CUDA_OVERLAP_CUDA_POOL (object);

  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cuda_overlap_cuda_pool_parent_class)->dispose (object);
}

static void
gst_cuda_overlap_cuda_pool_class_init (GstCudaOverlapCudaPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->dispose = gst_cuda_overlap_cuda_pool_dispose;
  pool_class->set_config = gst_cuda_overlap_cuda_pool_set_config;
  pool_class->alloc_buffer = gst_cuda_overlap_cuda_pool_alloc_buffer;
}

static void
gst_cuda_overlap_cuda_pool_init (GstCudaOverlapCudaPool * self)
{
}
