/* cudaoverlap: GstCudaOverlapFilter's device memory: memory:CUDAMemory
 * buffers in and out.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Output (the source pad negotiated CUDA memory): buffers of a
 * GstCudaBufferPool in the pipeline's CUDA context, the one downstream
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

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

/* Whether @pool is a GstCudaBufferPool of @ctx. */
static gboolean
pool_in_context (const GstCudaOverlapCudaLib * lib, GstBufferPool * pool,
    GstObject * ctx)
{
  return pool && g_type_is_a (G_OBJECT_TYPE (pool),
      lib->buffer_pool_get_type ()) &&
      ((GstCudaOverlapCudaBufferPoolHead *) pool)->context == ctx;
}

/* @pool configured for @caps (its own, pitched, buffer size), @min to
 * @max buffers, with GstVideoMeta. */
static gboolean
configure (GstBufferPool * pool, GstCaps * caps, guint min, guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    gst_structure_free (config);
    return FALSE;
  }
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  return gst_buffer_pool_set_config (pool, config);
}

/* The output pool for CUDA memory (configured, not active): downstream's
 * when it is a CUDA pool of our context, else ours.  *@downstream_min: the
 * buffers downstream asks to hold.  NULL when none could be made. */
GstBufferPool *
_gst_cuda_overlap_filter_cuda_pool (GstCudaOverlapFilter * self,
    GstCaps * caps, guint * downstream_min)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = _gst_cuda_overlap_filter_cuda_context (self, NULL, NULL);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  guint min = 0;

  *downstream_min = 0;
  if (!lib || !ctx)
    goto done;
  if (gst_pad_peer_query (GST_ELEMENT (self)->srcpads->data, q) &&
      gst_query_get_n_allocation_pools (q) > 0) {
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, &min, NULL);
    *downstream_min = MIN (min, 64);
    if (!pool_in_context (lib, pool, ctx))
      gst_clear_object (&pool);
  }
  GST_DEBUG_OBJECT (self, "CUDA output pool: %s", pool ? "downstream's" :
      "our own");
  if (!pool)
    pool = lib->buffer_pool_new (ctx);
  if (pool && !configure (pool, caps, 0, 0))
    gst_clear_object (&pool);
done:
  gst_query_unref (q);
  gst_clear_object (&ctx);
  return pool;
}

/* Upstream writes CUDA memory of our context: a pool of @n buffers (no
 * maximum) for @caps, in the ALLOCATION answer.  FALSE without a context. */
gboolean
_gst_cuda_overlap_filter_propose_cuda_pool (GstCudaOverlapFilter * self,
    GstQuery * query, GstCaps * caps, guint n)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = _gst_cuda_overlap_filter_cuda_context (self, NULL, NULL);
  GstBufferPool *pool;
  gboolean ok;

  if (!lib || !ctx)
    return FALSE;
  pool = lib->buffer_pool_new (ctx);
  gst_object_unref (ctx);
  if (pool && !configure (pool, caps, n, 0))
    gst_clear_object (&pool);
  ok = pool != NULL;
  _gst_cuda_overlap_filter_offer_pool (query, pool, n);
  return ok;
}

/* An input buffer on a CUDA-memory sink pad: every memory must be CUDA
 * memory of our context (then, with 1.24's stream API, synced).  FALSE
 * after an element error. */
gboolean
_gst_cuda_overlap_filter_check_cuda_input (GstCudaOverlapFilter * self,
    GstBuffer * buf)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = _gst_cuda_overlap_filter_cuda_context (self, NULL, NULL);
  guint i, n = gst_buffer_n_memory (buf);
  GstObject *mctx = NULL;

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
