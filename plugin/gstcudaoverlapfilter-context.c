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
 * memory is possible at all (below), the element:
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

/* ---- CUDA memory: possible here? ----------------------------------------- */

void
gst_cuda_overlap_context_changed (GstCudaOverlapContext * context)
{
  context->usable = 0;
  context->warned = FALSE;
  context->gen++;
}

void
gst_cuda_overlap_context_clear (GstCudaOverlapContext * context)
{
  g_clear_pointer (&context->why, g_free);
  gst_clear_object (&context->ctx);
}

/* Whether the subclass's source template lists CUDA memory at all. */
static gboolean
class_takes_cuda (GstCudaOverlapFilter * self)
{
  GstCaps *tmpl = gst_pad_get_pad_template_caps (srcpad_of (self));
  GstCapsFeatures *cuda =
      gst_caps_features_new (GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA, NULL);
  gboolean found = FALSE;
  guint i;

  for (i = 0; i < gst_caps_get_size (tmpl) && !found; i++)
    found = gst_caps_features_is_equal (gst_caps_get_features (tmpl, i), cuda);
  gst_caps_features_free (cuda);
  gst_caps_unref (tmpl);
  return found;
}

/* Why CUDA memory cannot be negotiated (NULL: it can).  Slow the first time
 * (the device check makes a CUDA context). */
static gchar *
cuda_memory_why_not (GstCudaOverlapFilter * self, CoBackendKind backend,
    gint device_id)
{
  const gchar *lib_why = NULL;
  GError *err = NULL;
  gchar *why;

  if (!class_takes_cuda (self))
    return g_strdup ("this element takes system memory only");
  if (backend == CO_BACKEND_CPU)
    return g_strdup ("backend=cpu is set (CUDA memory needs the CUDA "
        "backend)");
  /* the engine's reason first: it says what to install */
  if (!co_engine_backend_usable (CO_BACKEND_CUDA, device_id, &err)) {
    why = g_strdup (err->message);
    g_error_free (err);
    return why;
  }
  if (!gst_cuda_overlap_cuda_lib (&lib_why))
    return g_strdup (lib_why);
  return NULL;
}

gboolean
gst_cuda_overlap_context_memory_usable (GstCudaOverlapFilter * self,
    gchar ** why)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoBackendKind backend;
  gint device_id, usable;
  guint gen;
  gchar *msg;

  if (gst_cuda_overlap_cuda_fake_usable () && class_takes_cuda (self))
    return TRUE;
  GST_OBJECT_LOCK (self);
  usable = priv->context.usable;
  if (usable < 0 && why)
    *why = g_strdup (priv->context.why);
  backend = priv->backend;
  device_id = priv->device_id;
  gen = priv->context.gen;
  GST_OBJECT_UNLOCK (self);
  if (usable != 0)
    return usable > 0;

  msg = cuda_memory_why_not (self, backend, device_id);
  GST_INFO_OBJECT (self, "CUDA memory %s%s", msg ? "cannot be negotiated: " :
      "can be negotiated", msg ? msg : "");
  GST_OBJECT_LOCK (self);
  if (gen == priv->context.gen) {
    priv->context.usable = msg ? -1 : 1;
    g_free (priv->context.why);
    priv->context.why = g_strdup (msg);
  }
  GST_OBJECT_UNLOCK (self);
  if (why)
    *why = msg;
  else
    g_free (msg);
  return msg == NULL;
}

void
gst_cuda_overlap_context_refused (GstCudaOverlapFilter * self,
    const gchar * why)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  gchar *own = NULL;
  gboolean first;

  if (!why && !gst_cuda_overlap_context_memory_usable (self, &own))
    why = own;
  GST_OBJECT_LOCK (self);
  first = !priv->context.warned;
  priv->context.warned = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (first)
    GST_WARNING_OBJECT (self, "memory:CUDAMemory cannot be negotiated "
        "here (caps or a link that need it fail): %s", GST_STR_NULL (why));
  else
    GST_DEBUG_OBJECT (self, "memory:CUDAMemory refused again: %s",
        GST_STR_NULL (why));
  g_free (own);
}

/* ---- the shared context ------------------------------------------------ */

static GstElementClass *
parent_element_class (void)
{
  return GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_ELEMENT));
}

void
gst_cuda_overlap_context_set (GstElement * element, GstContext * context)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (element);
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);

  if (lib && !g_strcmp0 (gst_context_get_context_type (context),
          GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE)) {
    GST_OBJECT_LOCK (element);
    if (lib->handle_set_context (element, context, priv->device_id,
            &priv->context.ctx))
      GST_INFO_OBJECT (element, "CUDA context %" GST_PTR_FORMAT,
          priv->context.ctx);
    GST_OBJECT_UNLOCK (element);
  }
  parent_element_class ()->set_context (element, context);
}

GstObject *
gst_cuda_overlap_context_get (GstCudaOverlapFilter * self,
    gpointer * handle, gint * device)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = NULL;

  GST_OBJECT_LOCK (self);
  if (PRIV (self)->context.ctx)
    ctx = gst_object_ref (PRIV (self)->context.ctx);
  GST_OBJECT_UNLOCK (self);
  if (ctx && handle)
    *handle = lib->context_get_handle (ctx);
  if (ctx && device)
    *device = gst_cuda_overlap_cuda_context_device (ctx);
  return ctx;
}

gboolean
gst_cuda_overlap_context_query (GstCudaOverlapFilter * self, GstQuery * query)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);
  GstObject *ctx = gst_cuda_overlap_context_get (self, NULL, NULL);
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
  have = PRIV (self)->context.ctx != NULL;
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
    ask_peer (self, srcpad_of (self));
  if (!has_context (self))
    ask_peer (self, sinkpad_of (self));
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
  if (priv->context.ctx) {
    /* one was set meanwhile: that one is the pipeline's */
    GST_OBJECT_UNLOCK (self);
    gst_object_unref (ctx);
    return;
  }
  priv->context.ctx = ctx;
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
gst_cuda_overlap_context_ensure (GstCudaOverlapFilter * self)
{
  const GstCudaOverlapCudaLib *lib = gst_cuda_overlap_cuda_lib (NULL);

  if (!lib || gst_cuda_overlap_filter_backend (self) == CO_BACKEND_CPU ||
      !gst_cuda_overlap_context_memory_usable (self, NULL))
    return;
  find_context (self);
  if (!has_context (self))
    wrap_primary (self, lib);
}

void
gst_cuda_overlap_context_release (GstCudaOverlapFilter * self)
{
  GstObject *ctx;

  GST_OBJECT_LOCK (self);
  ctx = g_steal_pointer (&PRIV (self)->context.ctx);
  GST_OBJECT_UNLOCK (self);
  if (ctx)
    gst_object_unref (ctx);
}
