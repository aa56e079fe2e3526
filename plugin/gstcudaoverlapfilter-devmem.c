/* cudaoverlap: GstCudaOverlapFilter's device memory: memory:CUDAMemory
 * buffers in and out.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Output (the source pad negotiated CUDA memory): buffers of a
 * GstCudaBufferPool in the pipeline's CUDA context (video; audio: our
 * linear pool of gstcudaoverlap-cudapool.c, which 1.22's cannot replace), the one downstream
 * proposes in its ALLOCATION answer when it is such a pool of our context,
 * else our own.  The kernels write into them (no device-to-host copy).  Like
 * the page-locked pool it grows while downstream holds buffers, without a
 * maximum (device memory; pool-budget is about page-locked host memory).
 *
 * Input (the sink pad negotiated CUDA memory): upstream is proposed a
 * GstCudaBufferPool of our context; every input buffer must be CUDA memory
 * of that context (device memory of another context is not addressable by
 * our kernels), which the kernels read in place (no host-to-device copy).
 *
 * Synchronisation: 1.22's GstCudaMemory carries no stream.  A buffer
 * pushed downstream is complete: upstream elements finish their work on it
 * before they push it, and so do we: the push thread pushes a frame only
 * after its done event, i.e. after every copy and kernel that writes it.
 * GStreamer 1.24 attaches a GstCudaStream to the memory and may push it
 * with work still queued on that stream: where the library has
 * gst_cuda_memory_sync() (1.24 and later), each input memory is synced
 * before our streams read it.  Not tested on 1.24 (Debian 12 has 1.22).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"
#include "gstcudaoverlap-cudapool.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

/* Whether @caps are raw video (1.22's GstCudaBufferPool takes them);
 * anything else (audio) takes our linear pool (gstcudaoverlap-cudapool.c). */
static gboolean
caps_are_video (GstCaps * caps)
{
  return gst_structure_has_name (gst_caps_get_structure (caps, 0),
      "video/x-raw");
}

/* Whether @pool is a GstCudaBufferPool, or one of our linear pools, of
 * @ctx. */
static gboolean
pool_in_context (const GstCudaOverlapCudaLib * lib, GstBufferPool * pool,
    GstObject * ctx)
{
  if (!pool)
    return FALSE;
  if (g_type_is_a (G_OBJECT_TYPE (pool), lib->buffer_pool_get_type ()))
    return ((GstCudaOverlapCudaBufferPoolHead *) pool)->context == ctx;
  return gst_cuda_overlap_cuda_pool_context (pool) == ctx;
}

/* A CUDA-memory pool of @ctx for @caps (not configured): video's
 * GstCudaBufferPool, else our linear pool. */
static GstBufferPool *
pool_new (const GstCudaOverlapCudaLib * lib, GstObject * ctx, GstCaps * caps)
{
  if (caps_are_video (caps))
    return lib->buffer_pool_new (ctx);
  return gst_cuda_overlap_cuda_pool_new (ctx);
}

/* @pool configured for @caps, @min to @max buffers: video buffers of the
 * pool's own (pitched) size, with GstVideoMeta; others of @size bytes (the
 * largest buffer the element makes: an audio buffer is cut to its own
 * length when it is filled). */
static gboolean
configure (GstBufferPool * pool, GstCaps * caps, gsize size, guint min,
    guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (caps_are_video (caps)) {
    if (!gst_video_info_from_caps (&info, caps)) {
      gst_structure_free (config);
      return FALSE;
    }
    size = GST_VIDEO_INFO_SIZE (&info);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  }
  if (size == 0 || size > G_MAXUINT) {
    gst_structure_free (config);
    return FALSE;
  }
  gst_buffer_pool_config_set_params (config, caps, (guint) size, min, max);
  return gst_buffer_pool_set_config (pool, config);
}

/* The output pool for CUDA memory (configured, not active): downstream's
 * when it is a CUDA pool of our context, else ours.  *@downstream_min: the
 * buffers downstream asks to hold.  NULL when none could be made. */
GstBufferPool *
gst_cuda_overlap_devmem_output_pool (GstCudaOverlapFilter * self,
    GstCaps * caps, gsize size, guint * downstream_min)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = gst_cuda_overlap_context_get (self, NULL, NULL);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint min = 0;

  *downstream_min = 0;
  if (gst_cuda_overlap_cuda_fake_host ()) {
    /* test builds, CPU backend: system memory stands in */
    pool = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self)->make_pool (self, caps,
        size, NULL, 0, 0);
    goto done;
  }
  if (!lib || !ctx)
    goto done;
  if (gst_pad_peer_query (srcpad_of (self), q) &&
      gst_query_get_n_allocation_pools (q) > 0) {
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, &min, NULL);
    *downstream_min = MIN (min, 64);
    if (!pool_in_context (lib, pool, ctx))
      gst_clear_object (&pool);
  }
  GST_DEBUG_OBJECT (self, "CUDA output pool: %s", pool ? "downstream's" :
      "our own");
  if (!pool)
    pool = pool_new (lib, ctx, caps);
  if (pool && !configure (pool, caps, size, 0, 0))
    gst_clear_object (&pool);
done:
  gst_query_unref (q);
  gst_clear_object (&ctx);
  return pool;
}

/* Upstream writes CUDA memory of our context: a pool of @n buffers (no
 * maximum) for @caps, for the ALLOCATION answer.  NULL without a context.
 * Not for audio, whose buffers have no size of their own (as for system
 * memory): upstream makes its own pool (ours, if it is our element). */
GstBufferPool *
gst_cuda_overlap_devmem_proposal (GstCudaOverlapFilter * self, GstCaps * caps,
    guint n)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = gst_cuda_overlap_context_get (self, NULL, NULL);
  GstBufferPool *pool;

  if (!lib || !ctx || !caps_are_video (caps)) {
    gst_clear_object (&ctx);
    return NULL;
  }
  pool = lib->buffer_pool_new (ctx);
  gst_object_unref (ctx);
  if (pool && !configure (pool, caps, 0, n, 0))
    gst_clear_object (&pool);
  return pool;
}

GstMemory *
gst_cuda_overlap_filter_cuda_memory_new (GstCudaOverlapFilter * self,
    gsize size)
{
  GstObject *ctx = gst_cuda_overlap_context_get (self, NULL, NULL);
  GstMemory *mem = NULL;

  if (gst_cuda_overlap_cuda_fake_host ())
    mem = gst_allocator_alloc (NULL, size, NULL);       /* test builds */
  else if (ctx)
    mem = gst_cuda_overlap_cuda_memory_new_linear (ctx, size);
  gst_clear_object (&ctx);
  return mem;
}

/* An input buffer on a CUDA-memory sink pad: every memory must be CUDA
 * memory of our context (then, with 1.24's stream API, synced).  FALSE
 * after an element error. */
gboolean
gst_cuda_overlap_devmem_check_input (GstCudaOverlapFilter * self,
    GstBuffer * buf)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = gst_cuda_overlap_context_get (self, NULL, NULL);
  guint i, n = gst_buffer_n_memory (buf);
  GstObject *mctx = NULL;

  if (gst_cuda_overlap_cuda_fake_host ()) {
    gst_clear_object (&ctx);
    return TRUE;                /* test builds: host memory stands in */
  }
  for (i = 0; i < n && lib && ctx; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);

    mctx = gst_cuda_overlap_cuda_memory_context (mem);
    if (mctx != ctx)
      break;
    if (lib->memory_sync)
      lib->memory_sync (mem);
  }
  if (n > 0 && i == n) {
    gst_object_unref (ctx);
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("The input is not CUDA memory of this element's CUDA context, as its "
          "caps say"), ("%s; share one context (GstContext "
          GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE ") and one cuda-device-id with "
          "the elements upstream", n == 0 ? "an empty buffer" : !mctx ?
          "system memory, or another kind" :
          "CUDA memory of another context (another device, or a context "
          "that was not shared)"));
  gst_clear_object (&ctx);
  return FALSE;
}
