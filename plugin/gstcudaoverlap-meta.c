/* cudaoverlap: which metas of an input buffer still hold for the output
 * buffer made from it, and copying them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Our operations change sample values, never geometry, layout, channels or
 * rate.  So a meta that depends on none of what they change is true of the
 * output too: a meta without tags (timecode, captions, reference
 * timestamps, custom metas), and a meta tagged only with what the element
 * keeps (video: "video", "orientation", "size": ROI, crop, affine
 * transformation, AFD, bars; audio: "audio", "channels", "rate": downmix,
 * clipping).  Not copied: the meta that describes the input's memory layout
 * (GstVideoMeta, GstAudioMeta: the output has its own from the element's
 * pool, or none), metas bound to the input's memory (tagged "memory" or
 * "memory-reference", GstParentBufferMeta), GstProtectionMeta (the output
 * is not the input's protected bytes), anything tagged otherwise
 * ("colorspace" among them: our values are not the input's colours), and
 * metas without a transform function (nothing to copy with).  This is
 * broader than GstVideoFilter's rule (no tags, or the single tag "video";
 * GstBaseTransform's default: no tags) on purpose: a region of interest or
 * a crop holds for our output as well.
 *
 * The copy is the meta's own transform function with
 * _gst_meta_transform_copy over the whole buffer (region FALSE), as
 * GstBaseTransform's default_copy_metadata does.  The copies are added to
 * an output buffer after it left its pool, so they are never POOLED: the
 * pool's reset_buffer removes them when the buffer returns.  The rule is
 * gst_cuda_overlap_meta_holds(), for every path that makes an output.
 */
#include "gstcudaoverlap-meta.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_meta_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_meta_debug

void
gst_cuda_overlap_meta_rule_init (GstCudaOverlapMetaRule * rule, GType own_api,
    const gchar * const *tags)
{
  GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_meta_debug, "cudaoverlap-meta",
      0, "cudaoverlap: metas copied from input to output buffers");
  rule->own_api = own_api;
  rule->tags = tags;
}

gboolean
gst_cuda_overlap_meta_holds (const GstCudaOverlapMetaRule * rule,
    const GstMeta * meta)
{
  GType api = meta->info->api;
  const gchar *const *tags;

  if ((rule->own_api && api == rule->own_api)
      || api == GST_PARENT_BUFFER_META_API_TYPE
      || api == GST_PROTECTION_META_API_TYPE)
    return FALSE;
  tags = gst_meta_api_type_get_tags (api);
  for (; tags && *tags; tags++) {
    if (g_str_equal (*tags, GST_META_TAG_MEMORY_STR) || !rule->tags
        || !g_strv_contains (rule->tags, *tags))
      return FALSE;
  }
  return TRUE;
}

typedef struct
{
  const GstCudaOverlapMetaRule *rule;
  GstBuffer *out;
  guint copied;
} CopyData;

static gboolean
copy_one (GstBuffer * in, GstMeta ** meta, gpointer user_data)
{
  CopyData *data = user_data;
  const GstMetaInfo *info = (*meta)->info;
  GstMetaTransformCopy copy = { FALSE, 0, -1 };

  if (!gst_cuda_overlap_meta_holds (data->rule, *meta)) {
    GST_TRACE ("not copying %s", g_type_name (info->api));
  } else if (!info->transform_func) {
    GST_LOG ("%s has no transform function: not copied",
        g_type_name (info->api));
  } else if (info->transform_func (data->out, *meta, in,
          _gst_meta_transform_copy, &copy)) {
    GST_TRACE ("copied %s", g_type_name (info->api));
    data->copied++;
  } else {
    GST_LOG ("%s: its transform function failed", g_type_name (info->api));
  }
  return TRUE;
}

guint
gst_cuda_overlap_meta_copy (const GstCudaOverlapMetaRule * rule,
    GstBuffer * out, GstBuffer * in)
{
  CopyData data = { rule, out, 0 };

  g_return_val_if_fail (gst_buffer_is_writable (out), 0);
  gst_buffer_foreach_meta (in, copy_one, &data);
  return data.copied;
}
