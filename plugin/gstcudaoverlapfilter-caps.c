/* cudaoverlap: GstCudaOverlapFilter's negotiation: system memory or
 * memory:CUDAMemory on each pad.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element changes no format, size or rate: its output caps are its
 * input caps, except that each pad may carry system memory or CUDA memory
 * (a subclass whose pad templates list "memory:CUDAMemory" structures:
 * cudavideofilter, for the formats 1.22's CUDA memory supports).  So:
 *
 *  - a CAPS query on one pad asks the other pad's peer with the filter in
 *    both memories, and answers the peer's caps in both memories (each
 *    structure as the peer gave it first, then in the other memory), cut to
 *    the pad's template: e.g. downstream's system-memory RGBA is offered
 *    upstream as RGBA in system memory and in CUDA memory;
 *  - without a usable GPU for CUDA memory (gst-plugins-bad's CUDA library,
 *    the NVIDIA driver and a device this build runs on, and backend not
 *    cpu) the CUDA structures are left out of every answer, so nothing
 *    negotiates them; caps forced on the element anyway (a capsfilter, an
 *    application's caps) are not refused by ACCEPT_CAPS but by the CAPS
 *    event, with an element error that says what is missing;
 *  - on the CAPS event the output caps are the input caps in the same
 *    memory when downstream accepts them, else in the other memory: a
 *    pipeline stays in the memory it is in unless a neighbour asks for the
 *    other one (`... ! video/x-raw(memory:CUDAMemory) ! ...` after the
 *    element makes it upload, before it download).  The source pad's CAPS
 *    query answers the current input caps in both memories once there are
 *    any (as fixed caps would).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaoverlapfilter-private.h"
#include "gstcudaoverlap-cudamem.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

static GstPad *
sinkpad_of (GstCudaOverlapFilter * self)
{
  return GST_ELEMENT (self)->sinkpads->data;
}

static GstPad *
srcpad_of (GstCudaOverlapFilter * self)
{
  return GST_ELEMENT (self)->srcpads->data;
}

/* ---- CUDA memory: possible here? ----------------------------------------- */

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
    return g_strdup ("backend=cpu");
  if (!gst_cuda_overlap_cuda_lib (&lib_why))
    return g_strdup (lib_why);
  if (!co_engine_backend_usable (CO_BACKEND_CUDA, device_id, &err)) {
    why = g_strdup (err->message);
    g_error_free (err);
    return why;
  }
  return NULL;
}

/* Whether memory:CUDAMemory can be negotiated now; if not, *@why (free it)
 * says why.  Cached until backend or cuda-device-id change.  Any thread. */
gboolean
_gst_cuda_overlap_filter_cuda_memory_usable (GstCudaOverlapFilter * self,
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
  usable = priv->cudamem_usable;
  if (usable < 0 && why)
    *why = g_strdup (priv->cudamem_why);
  backend = priv->backend;
  device_id = priv->device_id;
  gen = priv->cudamem_gen;
  GST_OBJECT_UNLOCK (self);
  if (usable != 0)
    return usable > 0;

  msg = cuda_memory_why_not (self, backend, device_id);
  GST_INFO_OBJECT (self, "CUDA memory %s%s", msg ? "cannot be negotiated: " :
      "can be negotiated", msg ? msg : "");
  GST_OBJECT_LOCK (self);
  if (gen == priv->cudamem_gen) {
    priv->cudamem_usable = msg ? -1 : 1;
    g_free (priv->cudamem_why);
    priv->cudamem_why = g_strdup (msg);
  }
  GST_OBJECT_UNLOCK (self);
  if (why)
    *why = msg;
  else
    g_free (msg);
  return msg == NULL;
}

/* ---- caps in both memories ----------------------------------------------- */

static gboolean
features_are (GstCapsFeatures * f, const gchar * feature)
{
  GstCapsFeatures *want = gst_caps_features_new (feature, NULL);
  gboolean eq = gst_caps_features_is_equal (f, want);

  gst_caps_features_free (want);
  return eq;
}

/* @caps with every system- or CUDA-memory structure also in the other
 * memory, right after it; structures with other features are left out.
 * ANY stays ANY. */
static GstCaps *
both_memories (GstCaps * caps)
{
  GstCaps *res;
  guint i, k;

  if (gst_caps_is_any (caps))
    return gst_caps_ref (caps);
  res = gst_caps_new_empty ();
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean cuda, any = f && gst_caps_features_is_any (f);

    if (!f || any || features_are (f, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY))
      cuda = FALSE;
    else if (features_are (f, GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA))
      cuda = TRUE;
    else
      continue;
    for (k = 0; k < 2; k++)
      res = gst_caps_merge_structure_full (res,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          gst_caps_features_new (cuda == (k == 0) ?
              GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA :
              GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, NULL));
  }
  return res;
}

/* @caps (taken) without its CUDA-memory structures. */
static GstCaps *
drop_cuda (GstCaps * caps)
{
  gint i;

  caps = gst_caps_make_writable (caps);
  for (i = (gint) gst_caps_get_size (caps) - 1; i >= 0; i--)
    if (features_are (gst_caps_get_features (caps, i),
            GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA))
      gst_caps_remove_structure (caps, i);
  return caps;
}

/* @pad's template, narrowed (in both memories) to the subclass's
 * allowed_caps when it has any. */
static GstCaps *
template_caps (GstCudaOverlapFilter * self, GstPad * pad)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  GstCaps *allowed = klass->allowed_caps ? klass->allowed_caps (self) : NULL;
  GstCaps *both, *res;

  if (!allowed)
    return tmpl;
  both = both_memories (allowed);
  res = gst_caps_intersect_full (tmpl, both, GST_CAPS_INTERSECT_FIRST);
  /* a "not-negotiated" upstream is all a user sees of a format left out */
  GST_INFO_OBJECT (pad, "operation=custom: kernel-formats lets through %"
      GST_PTR_FORMAT, allowed);
  gst_caps_unref (both);
  gst_caps_unref (allowed);
  gst_caps_unref (tmpl);
  return res;
}

/* What @pad can carry, given what the other side's peer can (the current
 * input caps for the source pad once there are any), in both memories, cut
 * to @pad's template and to @filter; CUDA memory only with @keep_cuda. */
static GstCaps *
pad_caps (GstCudaOverlapFilter * self, GstPad * pad, GstCaps * filter,
    gboolean keep_cuda)
{
  GstPad *other = pad == srcpad_of (self) ? sinkpad_of (self) :
      srcpad_of (self);
  GstCaps *tmpl = template_caps (self, pad);
  GstCaps *peer = NULL, *both, *res;

  if (pad == srcpad_of (self))
    peer = gst_pad_get_current_caps (other);
  if (!peer) {
    GstCaps *peer_filter = NULL;

    if (filter) {
      GstCaps *other_tmpl = template_caps (self, other);

      both = both_memories (filter);
      peer_filter = gst_caps_intersect_full (both, other_tmpl,
          GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (both);
      gst_caps_unref (other_tmpl);
    }
    peer = gst_pad_peer_query_caps (other, peer_filter);
    gst_clear_caps (&peer_filter);
  }
  both = both_memories (peer);
  res = gst_caps_intersect_full (both, tmpl, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (both);
  gst_caps_unref (peer);
  gst_caps_unref (tmpl);
  if (!keep_cuda)
    res = drop_cuda (res);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (res);
    res = tmp;
  }
  return res;
}

gboolean
_gst_cuda_overlap_filter_query_caps (GstCudaOverlapFilter * self,
    GstPad * pad, GstQuery * query)
{
  GstCaps *filter, *res;

  gst_query_parse_caps (query, &filter);
  res = pad_caps (self, pad, filter,
      _gst_cuda_overlap_filter_cuda_memory_usable (self, NULL));
  GST_LOG_OBJECT (pad, "caps %" GST_PTR_FORMAT, res);
  gst_query_set_caps_result (query, res);
  gst_caps_unref (res);
  return TRUE;
}

/* CUDA memory is accepted here even without a GPU: the CAPS event then
 * refuses it with an element error that says why. */
gboolean
_gst_cuda_overlap_filter_query_accept_caps (GstCudaOverlapFilter * self,
    GstPad * pad, GstQuery * query)
{
  GstCaps *caps, *allowed;
  gboolean ok;

  gst_query_parse_accept_caps (query, &caps);
  allowed = pad_caps (self, pad, caps, TRUE);
  ok = gst_caps_is_subset (caps, allowed);
  GST_DEBUG_OBJECT (pad, "%s %" GST_PTR_FORMAT, ok ? "accept" : "refuse", caps);
  gst_caps_unref (allowed);
  gst_query_set_accept_caps_result (query, ok);
  return TRUE;
}

/* ---- the CAPS event --------------------------------------------------------- */

/* @caps (fixed) in the other memory. */
static GstCaps *
other_memory (GstCaps * caps)
{
  GstCaps *res = gst_caps_copy (caps);

  gst_caps_set_features (res, 0,
      gst_caps_features_new (gst_cuda_overlap_caps_is_cuda (caps) ?
          GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY :
          GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA, NULL));
  return res;
}

/* The output caps for the input @caps: the same memory when downstream
 * accepts it, else the other one (when this element can carry it).  NULL,
 * after an element error, when the input is CUDA memory, or only CUDA
 * memory would do downstream, and there is no GPU for it; when nothing
 * would do, @caps (pushing them fails as any refused caps do). */
static GstCaps *
decide_src_caps (GstCudaOverlapFilter * self, GstCaps * caps)
{
  GstPad *srcpad = srcpad_of (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (srcpad);
  GstCaps *other = other_memory (caps), *res = NULL;
  gchar *why = NULL;
  gboolean usable = _gst_cuda_overlap_filter_cuda_memory_usable (self, &why);
  gboolean in_cuda = gst_cuda_overlap_caps_is_cuda (caps);
  gboolean other_fits = gst_caps_is_subset (other, tmpl);

  gst_caps_unref (tmpl);
  if (in_cuda && !usable) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The input is CUDA memory, which this element cannot take here: %s",
            why), ("caps %" GST_PTR_FORMAT, caps));
  } else if (!gst_pad_is_linked (srcpad) ||
      gst_pad_peer_query_accept_caps (srcpad, caps)) {
    res = gst_caps_ref (caps);
  } else if (other_fits && usable &&
      gst_pad_peer_query_accept_caps (srcpad, other)) {
    res = gst_caps_ref (other);
  } else if (other_fits && !usable &&
      gst_pad_peer_query_accept_caps (srcpad, other)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream takes only CUDA memory here, which this element cannot "
            "give: %s", why), ("caps %" GST_PTR_FORMAT, other));
  } else {
    res = gst_caps_ref (caps);
  }
  g_free (why);
  gst_caps_unref (other);
  return res;
}

/* The CAPS event: the frames of the old caps are pushed first, then the
 * output caps are decided and pushed, then the engine is rebuilt for them
 * (its ALLOCATION query downstream comes after downstream has the caps). */
GstFlowReturn
_gst_cuda_overlap_filter_sink_caps (GstCudaOverlapFilter * self,
    GstEvent * event)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstCaps *caps, *outcaps;
  GstEvent *out;
  GstFlowReturn ret;
  gboolean same;

  gst_event_parse_caps (event, &caps);
  gst_caps_ref (caps);
  if ((ret = _gst_cuda_overlap_filter_drain_event (self, event))) {
    gst_caps_unref (caps);
    return ret;
  }
  outcaps = decide_src_caps (self, caps);
  if (!outcaps) {
    gst_event_unref (event);
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  same = priv->caps && gst_caps_is_equal (caps, priv->caps) &&
      priv->src_caps && gst_caps_is_equal (outcaps, priv->src_caps);
  if (gst_caps_is_equal (outcaps, caps)) {
    out = event;
  } else {
    out = gst_event_new_caps (outcaps);
    gst_event_set_seqnum (out, gst_event_get_seqnum (event));
    gst_event_unref (event);
  }
  GST_DEBUG_OBJECT (self, "input %" GST_PTR_FORMAT ", output %"
      GST_PTR_FORMAT, caps, outcaps);
  if (!same) {
    priv->in_cuda = gst_cuda_overlap_caps_is_cuda (caps);
    priv->out_cuda = gst_cuda_overlap_caps_is_cuda (outcaps);
    gst_caps_replace (&priv->src_caps, outcaps);
  }
  gst_caps_unref (outcaps);
  ret = _gst_cuda_overlap_filter_push_event (srcpad_of (self), out);
  if (ret == GST_FLOW_OK && !same &&
      !_gst_cuda_overlap_filter_set_caps (self, caps))
    ret = GST_FLOW_NOT_NEGOTIATED;
  gst_caps_unref (caps);
  return ret;
}

/* Downstream asked for a new negotiation (a RECONFIGURE event: it may take
 * the other memory now): the output caps are decided again for the same
 * input caps; only a different output memory rebuilds.  Streaming thread,
 * before a buffer. */
GstFlowReturn
_gst_cuda_overlap_filter_reconfigure (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstCaps *outcaps;

  if (!priv->caps || !gst_pad_check_reconfigure (srcpad_of (self)))
    return GST_FLOW_OK;
  outcaps = decide_src_caps (self, priv->caps);
  if (outcaps && priv->src_caps && gst_caps_is_equal (outcaps, priv->src_caps)) {
    /* the same answer: nothing to send again */
    gst_caps_unref (outcaps);
    return GST_FLOW_OK;
  }
  GST_DEBUG_OBJECT (self, "downstream asked to negotiate again: output %"
      GST_PTR_FORMAT, outcaps);
  if (outcaps)
    gst_caps_unref (outcaps);
  ret = _gst_cuda_overlap_filter_sink_caps (self,
      gst_event_new_caps (priv->caps));
  if (ret != GST_FLOW_OK)
    gst_pad_mark_reconfigure (srcpad_of (self));
  return ret;
}
