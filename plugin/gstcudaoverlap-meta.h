/* cudaoverlap: which metas of an input buffer still hold for the output
 * buffer made from it, and copying them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_META_H__
#define __GST_CUDA_OVERLAP_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/**
 * GstCudaOverlapMetaRule:
 * @own_api: the API of the meta that describes a buffer's memory layout
 *   (#GstVideoMeta, #GstAudioMeta), or 0: an output buffer has its own
 *   from the element's pool, or none, never the input's.
 * @tags: %NULL-terminated: the meta tags (GST_META_TAG_*_STR) whose
 *   properties the element's operations leave unchanged; %NULL: none.
 *
 * An input meta holds for the output (is copied onto it) when its API is
 * not @own_api, #GstParentBufferMeta or #GstProtectionMeta, and it has no
 * tag or only tags of @tags ("memory" never counts as one of them).
 */
typedef struct _GstCudaOverlapMetaRule GstCudaOverlapMetaRule;
struct _GstCudaOverlapMetaRule
{
  GType own_api;
  const gchar *const *tags;
};

void gst_cuda_overlap_meta_rule_init (GstCudaOverlapMetaRule * rule,
    GType own_api, const gchar * const *tags);

/* Whether @meta (of an input buffer) holds for the output buffer made from
 * it under @rule. */
gboolean gst_cuda_overlap_meta_holds (const GstCudaOverlapMetaRule * rule,
    const GstMeta * meta);

/* Copies onto @out (writable) every meta of @in that holds under @rule and
 * has a transform function (a copy of the whole buffer).  The copies are
 * plain metas, never POOLED: a buffer pool drops them when @out returns to
 * it.  Returns how many were copied. */
guint gst_cuda_overlap_meta_copy (const GstCudaOverlapMetaRule * rule,
    GstBuffer * out, GstBuffer * in);

G_END_DECLS
#endif
