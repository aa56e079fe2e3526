/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-fault: the plugin's test-only exports (see co-test-fault.h).
 */
#include <gmodule.h>

#include "co-test-fault.h"

gpointer
co_test_plugin_symbol (const gchar * name)
{
  static GModule *module;
  gpointer sym = NULL;

  if (!module) {
    GstPlugin *plugin = gst_plugin_load_by_name ("cudaoverlap");

    if (!plugin)
      return NULL;
    /* the same file GStreamer loaded: dlopen hands back that instance */
    module = g_module_open (gst_plugin_get_filename (plugin),
        G_MODULE_BIND_LOCAL);
    gst_object_unref (plugin);
    if (!module)
      return NULL;
  }
  if (!g_module_symbol (module, name, &sym))
    return NULL;
  return sym;
}

const gchar *
co_test_hook_missing (const gchar * name)
{
  gchar *why;
  const gchar *interned;

  if (co_test_plugin_symbol (name))
    return NULL;
  why = g_strdup_printf ("the plugin has no test hook %s (configure with "
      "-Dfault-injection=true)", name);
  interned = g_intern_string (why);
  g_free (why);
  return interned;
}

/* ------------------------------------------------------------------------ */
/* Variants and skips                                                        */
/* ------------------------------------------------------------------------ */

static guint n_skipped;

void
co_test_add_variant_full (TCase * tc, TFun fn, const gchar * fname, gint i,
    const gchar * name, const gchar * missing)
{
  if (missing) {
    if (name)
      g_print ("SKIP: %s[%d] %s: %s\n", fname, i, name, missing);
    else
      g_print ("SKIP: %s: %s\n", fname, missing);
    n_skipped++;
    return;
  }
  _tcase_add_test (tc, fn, fname, 0, 0, i, i + 1);
}

void
co_test_add_loop_full (TCase * tc, TFun fn, const gchar * fname, gint start,
    gint end, const gchar * missing)
{
  if (missing) {
    g_print ("SKIP: %s (all %d variants): %s\n", fname, end - start, missing);
    n_skipped++;
    return;
  }
  _tcase_add_test (tc, fn, fname, 0, 0, start, end);
}

void
co_test_print_variant (const gchar * test, gint i, const gchar * name)
{
  g_print ("%s[%d]: %s\n", test, i, name);
}

int
co_test_exit_status (int n_failed)
{
  if (n_failed != 0)
    return 1;
  if (n_skipped > 0) {
    g_print ("SKIP: %u test(s) or variant(s) not run in this build (the "
        "SKIP lines above say why)\n", n_skipped);
    return 77;
  }
  return 0;
}
