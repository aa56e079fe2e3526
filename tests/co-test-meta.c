/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-meta: metas for the tests of both elements (see co-test-meta.h).
 */

#include <gst/check/gstcheck.h>

#include "co-test-meta.h"

#define REF_TS_CAPS "timestamp/x-ntp"
#define REF_TS_BASE (1000 * GST_SECOND)
#define REF_TS_STEP (40 * GST_MSECOND)

#define PLAIN_META "CoTestPlainMeta"
#define MEMORY_META "CoTestMemoryMeta"

/* ---- custom metas --------------------------------------------------------- */

const GstMetaInfo *
co_test_custom_meta (const gchar * name, const gchar * const *tags)
{
  static const gchar *no_tags[] = { NULL };
  const GstMetaInfo *info = gst_meta_get_info (name);

  if (!info)
    info = gst_meta_register_custom (name, tags ? (const gchar **) tags :
        no_tags, NULL, NULL, NULL);
  fail_unless (info != NULL && gst_meta_info_is_custom (info),
      "cannot register the custom meta %s", name);
  return info;
}

void
co_test_add_custom_meta (GstBuffer * buf, const gchar * name, guint64 index)
{
  GstCustomMeta *m = gst_buffer_add_custom_meta (buf, name);

  fail_unless (m != NULL, "cannot add the custom meta %s", name);
  gst_structure_set (gst_custom_meta_get_structure (m), "index",
      G_TYPE_UINT64, index, NULL);
}

guint
co_test_count_metas (GstBuffer * buf, GType api)
{
  gpointer state = NULL;
  guint n = 0;

  while (gst_buffer_iterate_meta_filtered (buf, &state, api))
    n++;
  return n;
}

void
co_test_check_meta_count (GstBuffer * out, GType api, guint want,
    const gchar * ctx)
{
  guint n = co_test_count_metas (out, api);

  fail_unless (n == want, "%s: the output carries %u %s, expected %u", ctx,
      n, g_type_name (api), want);
}

void
co_test_check_custom_meta (GstBuffer * out, const gchar * name, gint64 index,
    const gchar * ctx)
{
  GstCustomMeta *m = gst_buffer_get_custom_meta (out, name);
  guint64 got = G_MAXUINT64;

  co_test_check_meta_count (out, gst_meta_get_info (name)->api, index >= 0,
      ctx);
  if (index < 0)
    return;
  fail_unless (gst_structure_get_uint64 (gst_custom_meta_get_structure (m),
          "index", &got), "%s: %s lost its fields", ctx, name);
  fail_unless (got == (guint64) index, "%s: %s of input %" G_GUINT64_FORMAT
      " on output %" G_GINT64_FORMAT, ctx, name, got, index);
}

void
co_test_check_own_meta (GstBuffer * out, GType api, const gchar * ctx)
{
  GstMeta *m = gst_buffer_get_meta (out, api);

  fail_unless (co_test_count_metas (out, api) <= 1, "%s: the output carries "
      "%u %s", ctx, co_test_count_metas (out, api), g_type_name (api));
  fail_unless (!m || GST_META_FLAG_IS_SET (m, GST_META_FLAG_POOLED),
      "%s: the output's %s is not its pool's own (copied from the input?)",
      ctx, g_type_name (api));
}

/* ---- a plain GstMeta of the test's --------------------------------------- */

typedef struct
{
  GstMeta meta;
  guint64 index;
} ValueMeta;

static const GstMetaInfo *value_meta_info (gboolean copyable);

static gboolean
value_meta_init (GstMeta * meta, gpointer params, GstBuffer * buf)
{
  ((ValueMeta *) meta)->index = G_MAXUINT64;
  return TRUE;
}

static gboolean
value_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buf,
    GQuark type, gpointer data)
{
  ValueMeta *copy;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  copy = (ValueMeta *) gst_buffer_add_meta (dest, value_meta_info (TRUE), NULL);
  copy->index = ((ValueMeta *) meta)->index;
  return TRUE;
}

/* Without tags; @copyable: with a transform function, else none. */
static const GstMetaInfo *
value_meta_info (gboolean copyable)
{
  static const gchar *no_tags[] = { NULL };
  const gchar *impl = copyable ? "CoTestValueMeta" : "CoTestUncopyableMeta";
  const GstMetaInfo *info = gst_meta_get_info (impl);

  if (!info)
    info = gst_meta_register (gst_meta_api_type_register (copyable ?
            "CoTestValueMetaAPI" : "CoTestUncopyableMetaAPI", no_tags), impl,
        sizeof (ValueMeta), value_meta_init, NULL,
        copyable ? value_meta_transform : NULL);
  fail_unless (info != NULL);
  return info;
}

static void
add_value_meta (GstBuffer * buf, gboolean copyable, guint64 index)
{
  ValueMeta *m = (ValueMeta *) gst_buffer_add_meta (buf,
      value_meta_info (copyable), NULL);

  m->index = index;
}

/* ---- both elements -------------------------------------------------------- */

static void
register_common (void)
{
  static const gchar *memory_tags[] = { GST_META_TAG_MEMORY_STR, NULL };

  co_test_custom_meta (PLAIN_META, NULL);
  co_test_custom_meta (MEMORY_META, memory_tags);
}

void
co_test_add_common_metas (GstBuffer * buf, guint64 index)
{
  GstCaps *caps = gst_caps_new_empty_simple (REF_TS_CAPS);
  GstBuffer *parent = gst_buffer_new ();

  register_common ();
  gst_buffer_add_reference_timestamp_meta (buf, caps,
      REF_TS_BASE + index * REF_TS_STEP, REF_TS_STEP);
  co_test_add_custom_meta (buf, PLAIN_META, index);
  add_value_meta (buf, TRUE, index);
  co_test_add_custom_meta (buf, MEMORY_META, index);
  add_value_meta (buf, FALSE, index);
  gst_buffer_add_parent_buffer_meta (buf, parent);
  gst_buffer_add_protection_meta (buf, gst_structure_new ("application/x-cenc",
          "index", G_TYPE_UINT64, index, NULL));
  gst_buffer_unref (parent);
  gst_caps_unref (caps);
}

void
co_test_check_common_metas (GstBuffer * out, gint64 index, const gchar * ctx)
{
  GstCaps *caps = gst_caps_new_empty_simple (REF_TS_CAPS);
  GstReferenceTimestampMeta *ts;
  ValueMeta *vm;

  register_common ();
  co_test_check_meta_count (out, GST_REFERENCE_TIMESTAMP_META_API_TYPE,
      index >= 0, ctx);
  ts = gst_buffer_get_reference_timestamp_meta (out, caps);
  gst_caps_unref (caps);
  if (index >= 0) {
    fail_unless (ts != NULL, "%s: the GstReferenceTimestampMeta lost its "
        "caps", ctx);
    fail_unless (ts->timestamp == REF_TS_BASE + (guint64) index * REF_TS_STEP
        && ts->duration == REF_TS_STEP, "%s: GstReferenceTimestampMeta %"
        GST_TIME_FORMAT " + %" GST_TIME_FORMAT " on the output of input %"
        G_GINT64_FORMAT, ctx, GST_TIME_ARGS (ts->timestamp),
        GST_TIME_ARGS (ts->duration), index);
  }
  co_test_check_custom_meta (out, PLAIN_META, index, ctx);

  co_test_check_meta_count (out, value_meta_info (TRUE)->api, index >= 0, ctx);
  vm = (ValueMeta *) gst_buffer_get_meta (out, value_meta_info (TRUE)->api);
  fail_unless (!vm || vm->index == (guint64) index, "%s: CoTestValueMeta of "
      "input %" G_GUINT64_FORMAT " on the output of input %" G_GINT64_FORMAT,
      ctx, vm ? vm->index : 0, index);

  co_test_check_custom_meta (out, MEMORY_META, -1, ctx);
  co_test_check_meta_count (out, value_meta_info (FALSE)->api, 0, ctx);
  co_test_check_meta_count (out, GST_PARENT_BUFFER_META_API_TYPE, 0, ctx);
  co_test_check_meta_count (out, GST_PROTECTION_META_API_TYPE, 0, ctx);
}
