/* Tests for engine/co-trace.c, the Chrome trace-event JSON writer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every file is parsed back with json-glib: after open, after a sync in the
 * middle of a run, and after close.
 */
#include "co-trace.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>

#define N_PER_THREAD 50000
#define BASE_TS G_GUINT64_CONSTANT (2592000000000123)   /* 30 days + 123 ns */

static gchar *
tmp_path (const gchar * name)
{
  gchar *dir = g_dir_make_tmp ("co-trace-XXXXXX", NULL);
  gchar *path;

  g_assert_nonnull (dir);
  path = g_build_filename (dir, name, NULL);
  g_free (dir);
  return path;
}

static void
remove_path (gchar * path)
{
  gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (dir);
  g_free (path);
}

/* Parses @path, checks the top level, returns the parser (owning). */
static JsonParser *
parse (const gchar * path, JsonArray ** events)
{
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  JsonObject *root;

  if (!json_parser_load_from_file (parser, path, &err))
    g_error ("%s is not valid JSON: %s", path, err->message);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "displayTimeUnit"),
      ==, "ns");
  *events = json_object_get_array_member (root, "traceEvents");
  g_assert_nonnull (*events);
  return parser;
}

static guint64
get_ns (JsonObject * ev, const gchar * key)
{
  gdouble us = json_object_get_double_member (ev, key);

  return (guint64) llround (us * 1000.0);
}

static void
test_empty (void)
{
  gchar *path = tmp_path ("empty.json");
  CoTrace *t = co_trace_open (path, NULL, 0);
  JsonParser *p;
  JsonArray *events;

  g_assert_nonnull (t);
  p = parse (path, &events);    /* valid right after open */
  g_assert_cmpuint (json_array_get_length (events), ==, 0);
  g_object_unref (p);
  g_assert_cmpint (co_trace_sync (t), ==, 0);
  g_assert_cmpint (co_trace_close (t), ==, 0);
  p = parse (path, &events);
  g_assert_cmpuint (json_array_get_length (events), ==, 0);
  g_object_unref (p);
  remove_path (path);
}

static void
test_unwritable (void)
{
  char msg[256];
  CoTrace *t;

  msg[0] = 'x';
  t = co_trace_open ("/nonexistent-co-trace-dir/sub/t.json", msg, sizeof (msg));
  g_assert_null (t);
  g_assert_nonnull (strstr (msg, "/nonexistent-co-trace-dir/sub/t.json"));
  g_test_message ("error message: %s", msg);
  /* Tiny and absent message buffers are fine too. */
  g_assert_null (co_trace_open ("/nonexistent-co-trace-dir/t", msg, 4));
  g_assert_cmpuint (strlen (msg), ==, 3);
  g_assert_null (co_trace_open ("/nonexistent-co-trace-dir/t", NULL, 0));
  /* A NULL trace is a no-op. */
  co_trace_complete (NULL, 1, 1, "x", NULL, 0, 0, NULL);
  g_assert_cmpint (co_trace_sync (NULL), ==, 0);
  g_assert_cmpint (co_trace_close (NULL), ==, 0);
}

typedef struct
{
  CoTrace *t;
  int tid;
  int from, to;
} Writer;

static guint64
ev_ts (int tid, int i)
{
  return BASE_TS + (guint64) i *1000003 + (guint64) tid *7;
}

static guint64
ev_dur (int tid, int i)
{
  return (guint64) (i % 1000) * 1001 + (guint64) tid;
}

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;
  char args[128];
  int i;

  for (i = w->from; i < w->to; i++) {
    g_snprintf (args, sizeof (args), "{\"frame\":%d,\"chunk\":%d,"
        "\"bytes\":8294400}", i, i % 4);
    co_trace_complete (w->t, 1, w->tid, (i & 1) ? "kernel" : "h2d \"copy\"",
        "gpu", ev_ts (w->tid, i), ev_dur (w->tid, i), args);
  }
  return NULL;
}

static void
run_writers (CoTrace * t, int from, int to)
{
  Writer w[2] = { {t, 10, from, to}, {t, 11, from, to} };
  GThread *th[2];
  int k;

  for (k = 0; k < 2; k++)
    th[k] = g_thread_new ("writer", writer_thread, &w[k]);
  /* Syncs concurrently with the writers must be harmless. */
  for (k = 0; k < 50; k++) {
    g_assert_cmpint (co_trace_sync (t), ==, 0);
    g_usleep (100);
  }
  for (k = 0; k < 2; k++)
    g_thread_join (th[k]);
}

/* Checks that @events holds the 4 metadata events and frames [0, n) of
 * both writer threads, each exactly once and exactly. */
static void
check_events (JsonArray * events, int n)
{
  guint len = json_array_get_length (events), i;
  guint8 *seen = g_new0 (guint8, 2 * N_PER_THREAD);
  int n_meta = 0;

  g_assert_cmpuint (len, ==, 4 + 2 * (guint) n);
  for (i = 0; i < len; i++) {
    JsonObject *ev = json_array_get_object_element (events, i);
    const gchar *ph = json_object_get_string_member (ev, "ph");
    JsonObject *args = json_object_get_object_member (ev, "args");
    int tid = (int) json_object_get_int_member (ev, "tid"), frame;

    g_assert_cmpint (json_object_get_int_member (ev, "pid"), ==, 1);
    if (g_str_equal (ph, "M")) {
      n_meta++;
      continue;
    }
    g_assert_cmpstr (ph, ==, "X");
    g_assert_true (tid == 10 || tid == 11);
    frame = (int) json_object_get_int_member (args, "frame");
    g_assert_cmpint (frame, >=, 0);
    g_assert_cmpint (frame, <, n);
    g_assert_cmpint (json_object_get_int_member (args, "chunk"), ==, frame % 4);
    g_assert_cmpint (json_object_get_int_member (args, "bytes"), ==, 8294400);
    g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==,
        (frame & 1) ? "kernel" : "h2d \"copy\"");
    g_assert_cmpstr (json_object_get_string_member (ev, "cat"), ==, "gpu");
    g_assert_cmpuint (get_ns (ev, "ts"), ==, ev_ts (tid, frame));
    g_assert_cmpuint (get_ns (ev, "dur"), ==, ev_dur (tid, frame));
    g_assert_cmpuint (seen[(tid - 10) * N_PER_THREAD + frame]++, ==, 0);
  }
  g_assert_cmpint (n_meta, ==, 4);
  g_free (seen);
}

static void
test_concurrent (void)
{
  gchar *path = tmp_path ("concurrent.json");
  CoTrace *t = co_trace_open (path, NULL, 0);
  JsonParser *p;
  JsonArray *events;
  const gchar *names[] = { "cudaoverlap0", "stream 1", "stream 0" };
  GStatBuf st;
  guint i;

  g_assert_nonnull (t);
  co_trace_name_process (t, 1, "cudaoverlap0");
  co_trace_name_thread (t, 1, 11, "stream 1");
  co_trace_name_thread (t, 1, 10, "stream 0");
  g_assert_cmpuint (co_trace_n_events (t), ==, 6);

  run_writers (t, 0, N_PER_THREAD / 2);
  /* Written as it goes: far more than the 256 KiB buffer is on disk. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 4 * 1024 * 1024);

  g_assert_cmpint (co_trace_sync (t), ==, 0);
  p = parse (path, &events);
  g_assert_cmpuint (json_array_get_length (events), ==, 6 + N_PER_THREAD);
  g_object_unref (p);

  run_writers (t, N_PER_THREAD / 2, N_PER_THREAD);
  g_assert_cmpuint (co_trace_n_events (t), ==, 6 + 2 * N_PER_THREAD);
  g_assert_cmpint (co_trace_close (t), ==, 0);

  p = parse (path, &events);
  /* Metadata: names and sort indices in call order. */
  for (i = 0; i < 6; i++) {
    JsonObject *ev = json_array_get_object_element (events, i);
    JsonObject *args = json_object_get_object_member (ev, "args");
    const gchar *name = json_object_get_string_member (ev, "name");

    g_assert_cmpstr (json_object_get_string_member (ev, "ph"), ==, "M");
    if (g_str_has_suffix (name, "_sort_index"))
      g_assert_cmpint (json_object_get_int_member (args, "sort_index"), ==,
          i < 2 ? 0 : (int) (i - 2) / 2);
    else
      g_assert_cmpstr (json_object_get_string_member (args, "name"), ==,
          names[i / 2]);
  }
  g_object_unref (p);

  /* check_events() expects 4 metadata events: drop the process ones. */
  p = parse (path, &events);
  json_array_remove_element (events, 0);
  json_array_remove_element (events, 0);
  check_events (events, N_PER_THREAD);
  g_object_unref (p);
  remove_path (path);
}

static void
test_strings_and_big (void)
{
  gchar *path = tmp_path ("strings.json");
  CoTrace *t = co_trace_open (path, NULL, 0);
  const gchar *weird = "q\"b\\s/n\nr\rt\tc\x01\x1f" "caf\xc3\xa9 \xe2\x82\xac "
      "\xf0\x9f\x8e\xac bad\xff\xc3(\xed\xa0\x80!";
  const gchar *fixed = "q\"b\\s/n\nr\rt\tc\x01\x1f" "caf\xc3\xa9 \xe2\x82\xac "
      "\xf0\x9f\x8e\xac bad\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd"
      "\xef\xbf\xbd!";
  gsize big_len = 700 * 1024;
  gchar *blob = g_malloc (big_len + 1), *args;
  JsonParser *p;
  JsonArray *events;
  JsonObject *ev;

  memset (blob, 'a', big_len);
  blob[big_len] = '\0';
  args = g_strdup_printf ("{\"blob\":\"%s\"}", blob);

  co_trace_name_thread (t, 2, 3, weird);
  co_trace_instant (t, 2, 3, weird, NULL, 0, NULL);
  co_trace_complete (t, 2, 3, blob, weird, 999, 1, args);       /* > buffer */
  co_trace_instant (t, 2, 3, "eos", "host", G_MAXUINT64, "{\"a\":[1,2]}");
  g_assert_cmpint (co_trace_close (t), ==, 0);

  p = parse (path, &events);
  g_assert_cmpuint (json_array_get_length (events), ==, 5);
  ev = json_array_get_object_element (events, 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member
          (ev, "args"), "name"), ==, fixed);
  ev = json_array_get_object_element (events, 2);
  g_assert_cmpstr (json_object_get_string_member (ev, "ph"), ==, "i");
  g_assert_cmpstr (json_object_get_string_member (ev, "s"), ==, "t");
  g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==, fixed);
  g_assert_false (json_object_has_member (ev, "cat"));
  g_assert_false (json_object_has_member (ev, "args"));
  g_assert_cmpuint (get_ns (ev, "ts"), ==, 0);
  ev = json_array_get_object_element (events, 3);
  g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==, blob);
  g_assert_cmpstr (json_object_get_string_member (ev, "cat"), ==, fixed);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member
          (ev, "args"), "blob"), ==, blob);
  g_assert_cmpuint (get_ns (ev, "ts"), ==, 999);
  g_assert_cmpuint (get_ns (ev, "dur"), ==, 1);
  ev = json_array_get_object_element (events, 4);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member
          (json_object_get_object_member (ev, "args"), "a")), ==, 2);
  g_object_unref (p);

  /* The largest timestamp is written exactly (a double cannot hold it). */
  {
    gchar *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "\"ts\":18446744073709551.615"));
    g_free (text);
  }
  g_free (args);
  g_free (blob);
  remove_path (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trace/empty", test_empty);
  g_test_add_func ("/trace/unwritable", test_unwritable);
  g_test_add_func ("/trace/concurrent", test_concurrent);
  g_test_add_func ("/trace/strings-and-big", test_strings_and_big);
  return g_test_run ();
}
