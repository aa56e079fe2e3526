/* cudaoverlap: GstCudaOverlapFilter's CUDA context, shared with the
 * pipeline's other CUDA elements.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * nvcodec's elements (cudaupload, cudadownload, cudaconvert, nvh264dec,
 * nvh264enc, ...) share one GstCudaContext per device through GstContext
 * "gst.cuda.context": device memory made in one CUDA context is not
 * addressable from kernels of another, so every element that exchanges
 * memory:CUDAMemory must run in the same one.  At NULL->READY, when CUDA
 * memory is possible at all (gstcudaoverlapfilter-caps.c), the element:
 *
 *  1. keeps a context already set on it (gst_element_set_context: the
 *     application, or a bin that saw another element's HAVE_CONTEXT);
 *  2. else asks its peers (a CONTEXT query downstream, then upstream), then
 *     the application and the bins (a NEED_CONTEXT message);
 *  3. else, being first, wraps the device's primary context (the CUDA
 *     runtime's own, which the engine would use anyway) with
 *     gst_cuda_context_new_wrapped() and announces it (HAVE_CONTEXT), so
 *     the elements that come later join it instead of making their own.
 *
 * It answers CONTEXT queries with it and gives it up at READY->NULL.  The
 * engine then runs in its CUcontext (CoEngineConfig.device_context: pushed
 * current around every CUDA call of the backend, on every thread).  A
 * context of 1.22's gst_cuda_context_new() is not the primary one: then
 * the engine's streams, memory and kernels live in that context.
 * `cuda-device-id` has its upstream meaning: -1 takes a context of any
 * device, N only one of device N.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

static GstElementClass *
parent_element_class (void)
{
  return GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_ELEMENT));
}

void
_gst_cuda_overlap_filter_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (element);
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);

  if (lib && !g_strcmp0 (gst_context_get_context_type (context),
          GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE)) {
    GST_OBJECT_LOCK (element);
    if (lib->handle_set_context (element, context, priv->device_id,
            &priv->cuda_ctx))
      GST_INFO_OBJECT (element, "CUDA context %" GST_PTR_FORMAT,
          priv->cuda_ctx);
    GST_OBJECT_UNLOCK (element);
  }
  parent_element_class ()->set_context (element, context);
}

GstObject *
_gst_cuda_overlap_filter_cuda_context (GstCudaOverlapFilter * self,
    gpointer * handle, gint * device)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = NULL;

  GST_OBJECT_LOCK (self);
  if (PRIV (self)->cuda_ctx)
    ctx = gst_object_ref (PRIV (self)->cuda_ctx);
  GST_OBJECT_UNLOCK (self);
  if (ctx && handle)
    *handle = lib->context_get_handle (ctx);
  if (ctx && device)
    *device = gst_cuda_overlap_cuda_context_device (ctx);
  return ctx;
}

gboolean
_gst_cuda_overlap_filter_query_context (GstCudaOverlapFilter * self,
    GstQuery * query)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = _gst_cuda_overlap_filter_cuda_context (self, NULL, NULL);
  gboolean ret = FALSE;

  if (ctx) {
    ret = lib->handle_context_query (GST_ELEMENT (self), query, ctx);
    gst_object_unref (ctx);
  }
  return ret;
}

static gboolean
has_context (GstCudaOverlapFilter * self)
{
  gboolean have;

  GST_OBJECT_LOCK (self);
  have = PRIV (self)->cuda_ctx != NULL;
  GST_OBJECT_UNLOCK (self);
  return have;
}

/* A CONTEXT query to @pad's peer; its answer is set on us (our set_context
 * takes it if the device fits). */
static void
ask_peer (GstCudaOverlapFilter * self, GstPad * pad)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;

  if (gst_pad_peer_query (pad, query)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_element_set_context (GST_ELEMENT (self), context);
  }
  gst_query_unref (query);
}

/* Steps 1 and 2 of the top comment. */
static void
find_context (GstCudaOverlapFilter * self)
{
  GstElement *element = GST_ELEMENT (self);

  if (!has_context (self))
    ask_peer (self, element->srcpads->data);
  if (!has_context (self))
    ask_peer (self, element->sinkpads->data);
  if (!has_context (self))
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (self),
            GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE));
}

/* Step 3: the primary context of our device, wrapped and announced. */
static void
wrap_primary (GstCudaOverlapFilter * self, const GstCudaOverlapCudaLib * lib)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstObject *ctx;
  GstContext *context;
  GError *err = NULL;
  gpointer handle = NULL;
  gint device = 0;

  if (!co_engine_device_context (CO_BACKEND_CUDA,
          gst_cuda_overlap_filter_device_id (self), &handle, &device, &err)) {
    GST_WARNING_OBJECT (self, "no CUDA context to share: %s", err->message);
    g_clear_error (&err);
    return;
  }
  ctx = lib->context_new_wrapped (handle, device);
  if (!ctx) {
    GST_WARNING_OBJECT (self, "gst_cuda_context_new_wrapped failed");
    return;
  }
  GST_OBJECT_LOCK (self);
  if (priv->cuda_ctx) {
    /* one was set meanwhile: that one is the pipeline's */
    GST_OBJECT_UNLOCK (self);
    gst_object_unref (ctx);
    return;
  }
  priv->cuda_ctx = ctx;
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "sharing the primary context of CUDA device %d: %"
      GST_PTR_FORMAT, device, ctx);
  context = lib->context_new_cuda_context (ctx);
  /* ours too (gst_element_get_context), then the bins' and the app's */
  gst_element_set_context (GST_ELEMENT (self), context);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_have_context (GST_OBJECT (self), context));
}

void
_gst_cuda_overlap_filter_ensure_context (GstCudaOverlapFilter * self)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);

  if (!lib || gst_cuda_overlap_filter_backend (self) == CO_BACKEND_CPU ||
      !_gst_cuda_overlap_filter_cuda_memory_usable (self, NULL))
    return;
  find_context (self);
  if (!has_context (self))
    wrap_primary (self, lib);
}

void
_gst_cuda_overlap_filter_release_context (GstCudaOverlapFilter * self)
{
  GstObject *ctx;

  GST_OBJECT_LOCK (self);
  ctx = g_steal_pointer (&PRIV (self)->cuda_ctx);
  GST_OBJECT_UNLOCK (self);
  if (ctx)
    gst_object_unref (ctx);
}
