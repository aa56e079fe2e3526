/* cudaoverlap-bench and cudaoverlap-check: small GStreamer helpers both
 * tools share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>

#include "tool-common.h"

gboolean
bench_parse_options (const gchar * summary, const GOptionEntry * entries,
    int *argc, char ***argv)
{
  GOptionContext *ctx = g_option_context_new (summary);
  GError *err = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, argc, argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return FALSE;
  }
  g_option_context_free (ctx);
  gst_init (argc, argv);
  return TRUE;
}

gboolean
bench_have_feature (const gchar * name)
{
  GstPluginFeature *f = gst_registry_lookup_feature (gst_registry_get (),
      name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

guint64
bench_stat_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (s)
    gst_structure_get_uint64 (s, field, &v);
  return v;
}
