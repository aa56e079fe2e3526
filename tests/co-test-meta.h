/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-meta: metas that the tests of both elements put on input buffers
 * and look for on the outputs (the test-video-* and test-audio-* suites).
 * Every meta carries the index of its buffer, so that a meta that reaches
 * the wrong output, or stays on a reused pool buffer, is seen.
 */
#ifndef __CO_TEST_META_H__
#define __CO_TEST_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* A custom meta (gst_meta_register_custom: a GstStructure, copied by
 * GStreamer's own transform) named @name with @tags, registered on the
 * first call in this process. */
const GstMetaInfo *co_test_custom_meta (const gchar * name,
    const gchar * const *tags);
/* Adds the custom meta @name (registered before) with its structure's
 * "index" field set to @index. */
void co_test_add_custom_meta (GstBuffer * buf, const gchar * name,
    guint64 index);
/* The number of metas of @api on @buf. */
guint co_test_count_metas (GstBuffer * buf, GType api);
/* Fails unless @out carries @want metas of @api. */
void co_test_check_meta_count (GstBuffer * out, GType api, guint want,
    const gchar * ctx);
/* Fails unless @out carries exactly one custom meta @name with "index"
 * @index, or, when @index is negative, none. */
void co_test_check_custom_meta (GstBuffer * out, const gchar * name,
    gint64 index, const gchar * ctx);

/* Fails unless @out carries at most one meta of @api, and that one its
 * pool's own (POOLED: a meta copied from the input never is). */
void co_test_check_own_meta (GstBuffer * out, GType api, const gchar * ctx);

/* The metas both elements treat alike.  Copied: a GstReferenceTimestampMeta
 * (timestamp/x-ntp), a custom meta without tags, a plain GstMeta without
 * tags with a transform function of its own.  Not copied: a custom meta
 * tagged "memory", a meta without a transform function, a
 * GstParentBufferMeta and a GstProtectionMeta. */
void co_test_add_common_metas (GstBuffer * buf, guint64 index);
/* Fails unless @out carries each copied one once, with @index, and none of
 * the others; @index negative: the input had none, @out must have none. */
void co_test_check_common_metas (GstBuffer * out, gint64 index,
    const gchar * ctx);

G_END_DECLS
#endif
