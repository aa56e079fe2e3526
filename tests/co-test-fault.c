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
