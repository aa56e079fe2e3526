/* cudaoverlap example: gst-launch-1.0 with readable cudaoverlap messages.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cudaoverlap-run [--whole-run] [--fields LIST] DESCRIPTION...
 *
 * builds a pipeline from a gst-launch-1.0 description, runs it to EOS and
 * prints, as they arrive:
 *   - each cudaoverlap-passport and cudaoverlap-stats message, one field a
 *     line ("key: value"; strings unquoted, times in ns also in ms, sizes in
 *     bytes also in MiB), read with the GstStructure API rather than parsed
 *     from text, so that escaped characters stay as they are;
 *   - each warning and error, with its text and debug string;
 *   - the wall time: PAUSED (the start-up and the first frame) and PLAYING
 *     to EOS.
 * --whole-run prints only the whole-run statistics (posted at EOS), not the
 * windows; --fields frames,fps,... only these fields of the statistics (the
 * passport is printed whole).  Other element messages are not printed.
 * Exit status: 0 at EOS; 1 on an error message or a description that does
 * not parse; 2 on bad arguments.  pipelines/demo.sh, pipelines/stats.sh and
 * pipelines/signal-file.sh run their pipelines with it.
 */
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/cudaoverlap/cudaoverlap.h>

#define CO_MIB (1024.0 * 1024.0)

/* TRUE for the fields that hold nanoseconds: "...-ns" and the latencies */
static gboolean
field_is_ns (const gchar * name)
{
  return g_str_has_suffix (name, "-ns") || g_str_has_prefix (name, "latency-")
      || g_str_has_prefix (name, "gpu-latency-");
}

static gchar *
value_to_text (const gchar * name, const GValue * value)
{
  guint64 u;

  if (G_VALUE_HOLDS_STRING (value))
    return g_strdup (g_value_get_string (value)[0] ? g_value_get_string (value)
        : "\"\"");
  if (G_VALUE_HOLDS_DOUBLE (value))
    return g_strdup_printf ("%.5g", g_value_get_double (value));
  if (G_VALUE_HOLDS_UINT64 (value)) {
    u = g_value_get_uint64 (value);
    if (field_is_ns (name))
      return g_strdup_printf ("%" G_GUINT64_FORMAT " ns (%.3f ms)", u, u / 1e6);
    if (strstr (name, "bytes") != NULL && u >= CO_MIB)
      return g_strdup_printf ("%" G_GUINT64_FORMAT " (%.1f MiB)", u,
          u / CO_MIB);
  }
  return gst_value_serialize (value);
}

/* @user_data: the fields to print (NULL-terminated), NULL for all */
static gboolean
print_field (GQuark field, const GValue * value, gpointer user_data)
{
  const gchar *name = g_quark_to_string (field);
  gchar **only = user_data;
  gchar *text;

  if (only != NULL && !g_strv_contains ((const gchar * const *) only, name))
    return TRUE;
  text = value_to_text (name, value);
  g_print ("  %s: %s\n", name, text != NULL ? text : "?");
  g_free (text);
  return TRUE;
}

typedef struct
{
  gboolean whole_run_only;      /* --whole-run */
  gchar **fields;               /* --fields, split; NULL: all */
  gboolean eos;                 /* EOS came */
  gboolean error;               /* an error came */
} Run;

/* Prints a cudaoverlap message one field a line; others are left out. */
static void
print_element_message (GstMessage * msg, const Run * run)
{
  const GstStructure *s = gst_message_get_structure (msg);
  const gchar *src = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
  gboolean whole_run = FALSE;

  if (gst_structure_has_name (s, GST_CUDA_OVERLAP_MESSAGE_PASSPORT)) {
    g_print ("passport of %s:\n", src);
    gst_structure_foreach (s, print_field, NULL);
  } else if (gst_structure_has_name (s, GST_CUDA_OVERLAP_MESSAGE_STATS)) {
    gst_structure_get_boolean (s, GST_CUDA_OVERLAP_STATS_WHOLE_RUN, &whole_run);
    if (run->whole_run_only && !whole_run)
      return;
    g_print ("statistics of %s%s:\n", src, whole_run ? ", whole run" : "");
    gst_structure_foreach (s, print_field, run->fields);
  }
}

/* Prints a warning or an error with its debug string. */
static void
print_problem (GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;
  const gchar *what = "warning";

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, &debug);
    what = "error";
  } else {
    gst_message_parse_warning (msg, &err, &debug);
  }
  g_print ("%s from %s: %s\n", what, GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
      err->message);
  if (debug != NULL) {
    gchar **lines = g_strsplit (debug, "\n", -1);
    gchar *indented = g_strjoinv ("\n    ", lines);

    g_print ("  debug: %s\n", indented);
    g_free (indented);
    g_strfreev (lines);
  }
  g_clear_error (&err);
  g_free (debug);
}

/* Pops the bus until @until (the pipeline's ASYNC_DONE, or EOS), EOS or an
 * error, printing on the way; with @timeout 0, only what is there. */
static void
wait_for (GstElement * pipeline, GstMessageType until, GstClockTime timeout,
    Run * run)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  gboolean done = FALSE;

  while (!done && (msg = gst_bus_timed_pop_filtered (bus, timeout,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_WARNING | GST_MESSAGE_ERROR |
              GST_MESSAGE_EOS | until)) != NULL) {
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        print_element_message (msg, run);
        break;
      case GST_MESSAGE_WARNING:
        print_problem (msg);
        break;
      case GST_MESSAGE_ERROR:
        print_problem (msg);
        run->error = done = TRUE;
        break;
      case GST_MESSAGE_EOS:
        run->eos = done = TRUE;
        break;
      default:                 /* ASYNC_DONE, of the pipeline or a bin in it */
        done = GST_MESSAGE_SRC (msg) == GST_OBJECT (pipeline);
        break;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
}

/* Sets @state, then waits for @until; FALSE on a failure or an error. */
static gboolean
go_to (GstElement * pipeline, GstState state, GstMessageType until, Run * run)
{
  GstStateChangeReturn ret = gst_element_set_state (pipeline, state);

  if (ret == GST_STATE_CHANGE_FAILURE) {
    wait_for (pipeline, GST_MESSAGE_EOS, 0, run);       /* its error */
    if (!run->error)
      g_print ("error: the pipeline did not change to %s\n",
          gst_element_state_get_name (state));
    run->error = TRUE;
  } else if (ret == GST_STATE_CHANGE_ASYNC || until == GST_MESSAGE_EOS) {
    wait_for (pipeline, until, GST_CLOCK_TIME_NONE, run);
  }
  return !run->error;
}

/* PAUSED (preroll: the start-up and the first frame), then PLAYING to EOS,
 * each timed; FALSE on an error. */
static gboolean
run_pipeline (GstElement * pipeline, Run * run)
{
  gint64 t0 = g_get_monotonic_time (), t1 = t0;

  if (go_to (pipeline, GST_STATE_PAUSED, GST_MESSAGE_ASYNC_DONE, run)) {
    t1 = g_get_monotonic_time ();
    if (!run->eos)
      go_to (pipeline, GST_STATE_PLAYING, GST_MESSAGE_EOS, run);
  }
  if (!run->error)
    g_print ("wall time: %.3f s to PAUSED (the start-up and the first "
        "frame), %.3f s PLAYING to EOS\n", (t1 - t0) / 1e6,
        (g_get_monotonic_time () - t1) / 1e6);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return !run->error;
}

int
main (int argc, char **argv)
{
  Run run = { FALSE, NULL, FALSE, FALSE };
  gchar *fields = NULL;
  GOptionEntry entries[] = {
    {"whole-run", 'w', 0, G_OPTION_ARG_NONE, &run.whole_run_only,
        "Print only the whole-run statistics, not the windows", NULL},
    {"fields", 'f', 0, G_OPTION_ARG_STRING, &fields,
        "Statistics fields to print, comma-separated (default: all)", "LIST"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("DESCRIPTION... - run a "
      "pipeline to EOS, print the cudaoverlap messages one field a line");
  GError *err = NULL;
  GstElement *pipeline;
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  g_option_context_set_strict_posix (ctx, TRUE);
  ok = g_option_context_parse (ctx, &argc, &argv, &err);
  g_option_context_free (ctx);
  if (!ok || argc < 2) {
    g_printerr ("%s\n", ok ? "no pipeline description (--help for the "
        "usage)" : err->message);
    g_clear_error (&err);
    return 2;
  }
  if (fields != NULL)
    run.fields = g_strsplit (fields, ",", -1);
  g_free (fields);
  pipeline = gst_parse_launchv_full ((const gchar **) argv + 1, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (pipeline == NULL || err != NULL) {
    g_printerr ("the pipeline does not parse: %s\n",
        err != NULL ? err->message : "?");
    g_clear_error (&err);
    gst_clear_object (&pipeline);
    return 1;
  }
  ok = run_pipeline (pipeline, &run);
  gst_object_unref (pipeline);
  g_strfreev (run.fields);
  gst_deinit ();
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
