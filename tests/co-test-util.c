/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-util: what the gst-check programs of the elements share (see
 * co-test-util.h).
 */

#include <string.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <execinfo.h>

#include "co-test-util.h"

const gchar *co_test_backend = "cpu";
guint32 co_test_base_seed;
gboolean co_test_full_matrix = FALSE;

/* ------------------------------------------------------------------------ */
/* Configurations                                                            */
/* ------------------------------------------------------------------------ */

const RunCfg co_test_run_cfgs[7] = {
  {1, 1, FALSE},
  {1, 5, FALSE},
  {3, 1, FALSE},
  {3, 5, FALSE},
  {8, 1, FALSE},
  {8, 5, FALSE},
  /* serial ignores streams and chunks: give it odd values to prove it */
  {3, 5, TRUE},
};

gchar *
co_test_run_desc (const RunCfg * run)
{
  if (run->serial)
    return g_strdup_printf ("mode=serial (streams=%u chunks=%u)",
        run->streams, run->chunks);
  return g_strdup_printf ("mode=overlap streams=%u chunks=%u", run->streams,
      run->chunks);
}

guint32
co_test_seed (const gchar * name, gint i)
{
  return co_test_base_seed ^ g_str_hash (name) ^ ((guint32) i * 0x9e3779b9u);
}

/* ------------------------------------------------------------------------ */
/* Environment                                                               */
/* ------------------------------------------------------------------------ */

/* Reads the environment (and prepares GST_TRACERS and CK_FORK): before
 * gst_check_init().  FALSE (with a message) on a bad CO_TEST_BACKEND. */
static gboolean
read_env (guint32 default_seed)
{
  const gchar *env;

  env = g_getenv ("CO_TEST_BACKEND");
  if (env && *env)
    co_test_backend = env;
  if (g_strcmp0 (co_test_backend, "cpu") && g_strcmp0 (co_test_backend, "cuda")) {
    g_printerr ("CO_TEST_BACKEND must be 'cpu' or 'cuda', not '%s'\n",
        co_test_backend);
    return FALSE;
  }
  co_test_base_seed = default_seed;
  env = g_getenv ("CO_TEST_SEED");
  if (env && *env)
    co_test_base_seed = (guint32) g_ascii_strtoull (env, NULL, 0);
  co_test_full_matrix = g_strcmp0 (g_getenv ("CO_TEST_FULL"), "1") == 0;
  if (g_strcmp0 (g_getenv ("CO_TEST_LEAKS"), "0") != 0
      && !g_getenv ("GST_TRACERS"))
    g_setenv ("GST_TRACERS", "leaks(log-leaks-on-deinit=false)", TRUE);

  if (g_str_equal (co_test_backend, "cuda"))
    g_setenv ("CK_FORK", "no", TRUE);
  return TRUE;
}

/* backend=cuda: can @element run at all?  Done in this process (the suite
 * then runs unforked), so CUDA is initialised where it is used.  Returns 0
 * when usable, 77 (skip) when the element refuses backend=cuda, 1 when the
 * element cannot even be made (a set-up error, not a skip). */
static int
cuda_usable (const gchar * element, gchar ** why)
{
  GstElement *e = gst_element_factory_make (element, NULL);
  GstBus *bus;
  GstStateChangeReturn ret;
  int rc = 0;

  if (!e) {
    *why = g_strdup_printf ("cannot make the '%s' element (is "
        "GST_PLUGIN_PATH set to the build's plugin/ folder?)", element);
    return 1;
  }
  bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  ret = gst_element_set_state (e, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    *why = msg ? co_test_error_text (msg) :
        g_strdup ("the state change to PLAYING failed");
    if (msg)
      gst_message_unref (msg);
    rc = 77;
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
  return rc;
}

/* A crash prints the stack (addresses in each library: resolve them with
 * addr2line -e LIB OFFSET on the same build) and the test that ran. */
static void
on_fatal_signal (int sig)
{
  static const char msg[] = "\n*** fatal signal; stack:\n";
  void *frames[64];
  int n = backtrace (frames, 64);

  if (write (2, msg, sizeof (msg) - 1) < 0)
    _exit (128 + sig);
  backtrace_symbols_fd (frames, n, 2);
  signal (sig, SIG_DFL);
  raise (sig);
}

int
co_test_init (int *argc, char ***argv, const gchar * element,
    guint32 default_seed, gboolean missing_element_skips)
{
  gchar *why = NULL;
  int rc;

  if (!read_env (default_seed))
    return 1;
  /* unforked (the GPU runs), a crash would otherwise say nothing */
  signal (SIGSEGV, on_fatal_signal);
  signal (SIGABRT, on_fatal_signal);

  gst_check_init (argc, argv);

  if (!g_str_equal (co_test_backend, "cuda"))
    return 0;
  rc = cuda_usable (element, &why);
  if (rc == 77 || (rc != 0 && missing_element_skips)) {
    g_printerr ("SKIP: CO_TEST_BACKEND=cuda but no usable CUDA device: "
        "%s\n", why);
    g_free (why);
    return 77;
  } else if (rc != 0) {
    g_printerr ("ERROR: %s\n", why);
    g_free (why);
    return rc;
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Leak check (leaks tracer activity checkpoints)                            */
/* ------------------------------------------------------------------------ */

static GstTracer *leaks_tracer;

static GstTracer *
find_leaks_tracer (void)
{
  GList *l, *tracers = gst_tracing_get_active_tracers ();
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next) {
    if (!found && g_strcmp0 (G_OBJECT_TYPE_NAME (l->data),
            "GstLeaksTracer") == 0)
      found = gst_object_ref (l->data);
  }
  g_list_free_full (tracers, gst_object_unref);
  return found;
}

GstTracer *
co_test_leaks_tracer (void)
{
  if (!leaks_tracer)
    leaks_tracer = find_leaks_tracer ();
  return leaks_tracer;
}

void
co_test_leaks_setup (void)
{
  if (!co_test_leaks_tracer ())
    return;
  /* stop first: a test of a no-fork run that failed may have left it on */
  g_signal_emit_by_name (leaks_tracer, "activity-stop-tracking");
  g_signal_emit_by_name (leaks_tracer, "activity-start-tracking");
}

void
co_test_leaks_stop (void)
{
  if (leaks_tracer)
    g_signal_emit_by_name (leaks_tracer, "activity-stop-tracking");
}

/* Adds @delta to the count of every object of @cp's list @field. */
static void
count_objects (GHashTable * count, const GstStructure * cp,
    const gchar * field, gint delta)
{
  const GValue *list = gst_structure_get_value (cp, field);
  guint i;

  for (i = 0; list && i < gst_value_list_get_size (list); i++) {
    const GstStructure *s =
        gst_value_get_structure (gst_value_list_get_value (list, i));
    gchar *k = g_strdup_printf ("%s@%s", gst_structure_get_string (s,
            "type-name"), gst_structure_get_string (s, "address"));
    gint c = GPOINTER_TO_INT (g_hash_table_lookup (count, k));
    g_hash_table_insert (count, k, GINT_TO_POINTER (c + delta));
  }
}

void
co_test_leaks_check (gboolean ignore_registry)
{
  GstStructure *cp = NULL;
  GHashTable *count;
  GHashTableIter iter;
  gpointer key, value;
  GString *leaked;
  guint n_leaked = 0;

  if (!leaks_tracer)
    return;

  gst_task_cleanup_all ();
  g_signal_emit_by_name (leaks_tracer, "activity-get-checkpoint", &cp);
  g_signal_emit_by_name (leaks_tracer, "activity-stop-tracking");
  if (!cp)
    return;

  /* address -> (created - removed); "type@address" kept for the message */
  count = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  count_objects (count, cp, "objects-created-list", 1);
  count_objects (count, cp, "objects-removed-list", -1);

  leaked = g_string_new (NULL);
  g_hash_table_iter_init (&iter, count);
  while (g_hash_table_iter_next (&iter, &key, &value)) {
    const gchar *k = key;
    const gchar *at = strchr (k, '@');
    gchar *type_name;
    GType type;
    gpointer addr;

    if (GPOINTER_TO_INT (value) <= 0)
      continue;
    type_name = g_strndup (k, at - k);
    type = g_type_from_name (type_name);
    addr = GSIZE_TO_POINTER (g_ascii_strtoull (at + 1, NULL, 16));
    g_free (type_name);
    /* registry objects live as long as the registry (a plugin loaded by
     * this test registers its features anew) */
    if (ignore_registry && type && (g_type_is_a (type, GST_TYPE_PLUGIN_FEATURE)
            || g_type_is_a (type, GST_TYPE_PLUGIN)
            || g_type_is_a (type, GST_TYPE_REGISTRY)))
      continue;
    /* Still alive: it may be a lazily made singleton, flagged so. */
    if (type && g_type_is_a (type, GST_TYPE_OBJECT)) {
      if (GST_OBJECT_FLAG_IS_SET (addr, GST_OBJECT_FLAG_MAY_BE_LEAKED))
        continue;
    } else if (type && !G_TYPE_IS_OBJECT (type)) {
      if (GST_MINI_OBJECT_FLAG_IS_SET (addr,
              GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED))
        continue;
    }
    n_leaked++;
    if (n_leaked <= 20)
      g_string_append_printf (leaked, " %s", k);
  }
  g_hash_table_unref (count);
  gst_structure_free (cp);

  fail_unless (n_leaked == 0, "%u object(s) created by the test are still "
      "alive after it (leaks):%s%s", n_leaked, leaked->str,
      n_leaked > 20 ? " ..." : "");
  g_string_free (leaked, TRUE);
}

void
co_test_leaks_free (void)
{
  if (leaks_tracer)
    gst_object_unref (leaks_tracer);
  leaks_tracer = NULL;
}

TCase *
co_test_new_tcase (Suite * s, const gchar * name, SFun teardown)
{
  TCase *tc = tcase_create (name);

  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, co_test_leaks_setup, teardown);
  suite_add_tcase (s, tc);
  return tc;
}

/* ------------------------------------------------------------------------ */
/* Elements and harnesses                                                    */
/* ------------------------------------------------------------------------ */

gchar *
co_test_error_text (GstMessage * msg)
{
  GError *err = NULL;
  gchar *dbg = NULL, *s;

  gst_message_parse_error (msg, &err, &dbg);
  s = g_strdup_printf ("%s | %s", err ? err->message : "", dbg ? dbg : "");
  g_clear_error (&err);
  g_free (dbg);
  return s;
}

GstElement *
co_test_make_element (const gchar * element)
{
  GstElement *e = gst_element_factory_make (element, NULL);

  fail_unless (e != NULL, "cannot make the '%s' element: is "
      "GST_PLUGIN_PATH set to the build's plugin/ folder?", element);
  gst_object_ref_sink (e);
  gst_util_set_object_arg (G_OBJECT (e), "backend", co_test_backend);
  return e;
}

void
co_test_set_run (GstElement * e, const RunCfg * run)
{
  g_object_set (e, "streams", run->streams, "chunks", run->chunks, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "mode",
      run->serial ? "serial" : "overlap");
}

GstBuffer *
co_test_pull_buffer (GstHarness * h, const gchar * ctx)
{
  GstBuffer *out = gst_harness_pull (h);

  fail_unless (out != NULL, "%s: no output buffer within 60 s (expected "
      "one)", ctx);
  return out;
}

/* Fresh non-trivial bytes (never zeros): a whole random word at a time. */
void
co_test_fill_random (GRand * rand, guint8 * data, gsize size)
{
  gsize i;

  for (i = 0; i + 4 <= size; i += 4) {
    guint32 v = g_rand_int (rand);
    memcpy (data + i, &v, 4);
  }
  for (; i < size; i++)
    data[i] = g_rand_int (rand) & 0xff;
}

void
co_test_check_doubles (GObject * obj, const gchar * prop, const gdouble * want,
    guint n, const gchar * ctx)
{
  GValue v = G_VALUE_INIT;
  guint k;

  g_value_init (&v, GST_TYPE_ARRAY);
  g_object_get_property (obj, prop, &v);
  fail_unless (gst_value_array_get_size (&v) == n, "%s: %s has %u values, "
      "not %u", ctx, prop, gst_value_array_get_size (&v), n);
  for (k = 0; k < n; k++) {
    const GValue *t = gst_value_array_get_value (&v, k);

    fail_unless (G_VALUE_HOLDS_DOUBLE (t), "%s: %s[%u] is a %s", ctx, prop,
        k, G_VALUE_TYPE_NAME (t));
    fail_unless (g_value_get_double (t) == want[k], "%s: %s[%u] is %g, not "
        "%g", ctx, prop, k, g_value_get_double (t), want[k]);
  }
  g_value_unset (&v);
}
