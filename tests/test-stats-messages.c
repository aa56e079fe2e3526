/* cudaoverlap: the statistics and passport messages and the trace file of
 * the engine elements, through GstHarness.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CO_TEST_BACKEND=cpu (default) or cuda.  With cuda and no usable device the
 * program exits 77 (skipped) with the reason.
 */
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>

#include "co-stats-fields.h"
#include "co-test-fault.h"

#define WIDTH 64
#define HEIGHT 37
#define CHUNKS 4
#define FRAME_BYTES (WIDTH * HEIGHT * 4)

static const gchar *
backend (void)
{
  const gchar *b = g_getenv ("CO_TEST_BACKEND");

  return b && *b ? b : "cpu";
}

static gboolean
is_cuda (void)
{
  return g_str_equal (backend (), "cuda");
}

typedef struct
{
  const gchar *name;
  GType type;
} Field;

static const Field stats_fields[] = {
  {"timestamp", G_TYPE_UINT64}, {"duration", G_TYPE_UINT64},
  {"stream-time", G_TYPE_UINT64}, {"running-time", G_TYPE_UINT64},
  {"frames", G_TYPE_UINT64}, {"bytes-h2d", G_TYPE_UINT64},
  {"bytes-d2h", G_TYPE_UINT64}, {"window-ns", G_TYPE_UINT64},
  {"fps", G_TYPE_DOUBLE}, {"h2d-ns", G_TYPE_UINT64},
  {"kernel-ns", G_TYPE_UINT64}, {"d2h-ns", G_TYPE_UINT64},
  {"gpu-busy-ns", G_TYPE_UINT64}, {"gpu-idle-ns", G_TYPE_UINT64},
  {"serial-ns", G_TYPE_UINT64}, {"overlap-efficiency", G_TYPE_DOUBLE},
  {"copy-compute-overlap-ns", G_TYPE_UINT64},
  {"h2d-d2h-overlap-ns", G_TYPE_UINT64}, {"latency-min", G_TYPE_UINT64},
  {"latency-mean", G_TYPE_UINT64}, {"latency-p50", G_TYPE_UINT64},
  {"latency-p95", G_TYPE_UINT64}, {"latency-p99", G_TYPE_UINT64},
  {"latency-max", G_TYPE_UINT64}, {"gpu-latency-p50", G_TYPE_UINT64},
  {"gpu-latency-p99", G_TYPE_UINT64}, {"frames-pinned", G_TYPE_UINT64},
  {"frames-registered", G_TYPE_UINT64}, {"frames-pageable", G_TYPE_UINT64},
  {"frames-staged", G_TYPE_UINT64}, {"frames-passthrough", G_TYPE_UINT64},
  {"frames-device", G_TYPE_UINT64}, {"passthrough", G_TYPE_BOOLEAN},
  {"streams", G_TYPE_UINT}, {"chunks", G_TYPE_UINT},
  {"mode", G_TYPE_STRING}, {"backend", G_TYPE_STRING},
  {"operation", G_TYPE_STRING}, {"first-frame-ns", G_TYPE_UINT64},
  {"settled-ns", G_TYPE_UINT64},
};

static const Field passport_fields[] = {
  {"device-name", G_TYPE_STRING}, {"compute-capability", G_TYPE_STRING},
  {"pci-bus-id", G_TYPE_STRING}, {"driver-version", G_TYPE_INT},
  {"runtime-version", G_TYPE_INT}, {"async-engine-count", G_TYPE_INT},
  {"concurrent-kernels", G_TYPE_INT}, {"streams", G_TYPE_UINT},
  {"chunks", G_TYPE_UINT}, {"mode", G_TYPE_STRING},
  {"backend", G_TYPE_STRING}, {"operation", G_TYPE_STRING},
  {"caps", G_TYPE_STRING}, {"frame-bytes", G_TYPE_UINT64},
  {"plugin-version", G_TYPE_STRING}, {"max-in-flight", G_TYPE_UINT},
  {"wait-mode", G_TYPE_STRING}, {"memory-in", G_TYPE_STRING},
  {"memory-out", G_TYPE_STRING},
};

static void
check_fields (const GstStructure * s, const Field * f, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    const GValue *v = gst_structure_get_value (s, f[i].name);

    fail_unless (v != NULL, "%s: no field %s", gst_structure_get_name (s),
        f[i].name);
    fail_unless_equals_string (g_type_name (G_VALUE_TYPE (v)),
        g_type_name (f[i].type));
  }
}

/* The message holds exactly the fields of its list (engine/co-stats-fields.c,
 * from which the docs are generated), in order and with their types; a
 * CO_FIELD_ONLY_IF_TRUE field may be absent.  With the lists above, this
 * pins today's fields and makes the docs cover every field. */
static void
check_list (const GstStructure * s, const CoFieldList * l)
{
  static const GType gtypes[] = {
    [CO_FIELD_UINT64] = G_TYPE_UINT64,[CO_FIELD_DOUBLE] = G_TYPE_DOUBLE,
    [CO_FIELD_UINT] = G_TYPE_UINT,[CO_FIELD_INT] = G_TYPE_INT,
    [CO_FIELD_STRING] = G_TYPE_STRING,[CO_FIELD_BOOLEAN] = G_TYPE_BOOLEAN,
    [CO_FIELD_CLOCK_TIME] = GST_TYPE_CLOCK_TIME,
  };
  gint n = gst_structure_n_fields (s), i = 0;
  gsize j;

  fail_unless_equals_string (gst_structure_get_name (s), l->name);
  for (j = 0; j < l->n_fields; j++) {
    const CoField *f = &l->fields[j];

    if (i < n && g_str_equal (gst_structure_nth_field_name (s, i), f->name)) {
      const GValue *v = gst_structure_get_value (s, f->name);

      fail_unless_equals_string (g_type_name (G_VALUE_TYPE (v)),
          g_type_name (gtypes[f->type]));
      i++;
    } else {
      fail_unless (f->flags & CO_FIELD_ONLY_IF_TRUE,
          "%s: field %s missing or out of order", l->name, f->name);
    }
  }
  fail_unless (i == n, "%s: field %s is not in engine/co-stats-fields.c",
      l->name, i < n ? gst_structure_nth_field_name (s, i) : "");
}

static guint64
u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &v), "%s", name);
  return v;
}

static gdouble
dbl (const GstStructure * s, const gchar * name)
{
  gdouble v = -1;

  fail_unless (gst_structure_get_double (s, name, &v), "%s", name);
  return v;
}

static void
check_invariants (const GstStructure * s)
{
  guint64 h2d = u64 (s, "h2d-ns"), k = u64 (s, "kernel-ns");
  guint64 d2h = u64 (s, "d2h-ns"), busy = u64 (s, "gpu-busy-ns");
  guint64 serial = u64 (s, "serial-ns"), window = u64 (s, "window-ns");
  guint64 frames = u64 (s, "frames");
  gdouble eff = dbl (s, "overlap-efficiency");

  fail_unless (MAX (MAX (h2d, k), d2h) <= busy);
  fail_unless (busy <= serial);
  fail_unless_equals_uint64 (serial, h2d + k + d2h);
  fail_unless (busy <= window);
  fail_unless_equals_uint64 (u64 (s, "gpu-idle-ns"), window - busy);
  fail_unless (eff >= 0.0 && eff <= 1.0);
  fail_unless (u64 (s, "latency-min") <= u64 (s, "latency-p50"));
  fail_unless (u64 (s, "latency-p50") <= u64 (s, "latency-p95"));
  fail_unless (u64 (s, "latency-p95") <= u64 (s, "latency-p99"));
  fail_unless (u64 (s, "latency-p99") <= u64 (s, "latency-max"));
  fail_unless (u64 (s, "latency-min") <= u64 (s, "latency-mean"));
  fail_unless (u64 (s, "latency-mean") <= u64 (s, "latency-max"));
  fail_unless (u64 (s, "gpu-latency-p50") <= u64 (s, "gpu-latency-p99"));
  fail_unless_equals_uint64 (u64 (s, "frames-pinned") +
      u64 (s, "frames-registered") + u64 (s, "frames-pageable") +
      u64 (s, "frames-staged") + u64 (s, "frames-passthrough") +
      u64 (s, "frames-device"), frames);
  if (!is_cuda ()) {
    fail_unless_equals_uint64 (u64 (s, "bytes-h2d"), 0);
    fail_unless_equals_uint64 (u64 (s, "bytes-d2h"), 0);
    fail_unless_equals_uint64 (h2d, 0);
    fail_unless_equals_uint64 (d2h, 0);
  } else if (frames > 0) {
    fail_unless (u64 (s, "bytes-h2d") >= frames * FRAME_BYTES);
    fail_unless (u64 (s, "bytes-d2h") >= frames * FRAME_BYTES);
  }
}

static GstHarness *
make_harness (const gchar * extra, GstBus ** bus)
{
  gchar *desc = g_strdup_printf ("cudavideofilter name=f backend=%s chunks=%d "
      "streams=3 operation=box-blur radius=2 %s", backend (), CHUNKS,
      extra ? extra : "");
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  if (GST_IS_BIN (h->element)) {
    /* a launch line gives a bin: watch the filter itself */
    GstElement *f = gst_bin_get_by_name (GST_BIN (h->element), "f");

    gst_element_set_bus (f, *bus);
    gst_object_unref (f);
  }
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
      "height=37,framerate=30/1");
  return h;
}

static GstElement *
filter (GstHarness * h)
{
  GstElement *f;

  if (!GST_IS_BIN (h->element))
    return h->element;
  f = gst_bin_get_by_name (GST_BIN (h->element), "f");
  gst_object_unref (f);         /* the bin keeps it alive */
  return f;
}

static void
fill_random (guint8 * p, gsize n)
{
  gsize j;

  for (j = 0; j < n; j++)
    p[j] = g_random_int ();
}

static void
push_pull (GstHarness * h, guint n, guint first)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_harness_create_buffer (h, FRAME_BYTES);
    GstMapInfo map;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    fill_random (map.data, map.size);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = (first + i) * GST_SECOND / 30;
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
}

GST_START_TEST (test_stats_fields_and_invariants)
{
  GstBus *bus;
  GstHarness *h = make_harness ("stats-interval=1", &bus);
  GstMessage *m;
  GstStructure *prop = NULL;
  guint64 window_frames = 0, first_frame = 0;
  guint n_windows = 0, n_whole = 0, n_passport = 0;
  const guint n = 12;
  gint64 t0 = g_get_monotonic_time ();

  push_pull (h, n, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean whole = FALSE;

    if (gst_structure_has_name (s, "cudaoverlap-passport")) {
      n_passport++;
      check_fields (s, passport_fields, G_N_ELEMENTS (passport_fields));
      check_list (s, &co_passport_fields);
      fail_unless_equals_string (gst_structure_get_string (s, "backend"),
          backend ());
      if (!is_cuda ())
        fail_unless_equals_string (gst_structure_get_string (s,
                "device-name"), "cpu");
      fail_unless_equals_uint64 (u64 (s, "frame-bytes"), FRAME_BYTES);
    } else if (gst_structure_has_name (s, "cudaoverlap-stats")) {
      check_fields (s, stats_fields, G_N_ELEMENTS (stats_fields));
      check_list (s, &co_stats_fields);
      check_invariants (s);
      fail_unless_equals_string (gst_structure_get_string (s, "operation"),
          "box-blur");
      gst_structure_get_boolean (s, "whole-run", &whole);
      fail_unless_equals_int (gst_structure_has_field (s, "whole-run"), whole);
      /* the run's first frame, the same in every message, within the
       * test's own time */
      if (!first_frame)
        first_frame = u64 (s, "first-frame-ns");
      fail_unless (first_frame > 0);
      fail_unless (first_frame <= (guint64) (g_get_monotonic_time () - t0) *
          1000);
      fail_unless_equals_uint64 (u64 (s, "first-frame-ns"), first_frame);
      /* 12 frames: the automatic settings' measures are not in yet */
      fail_unless_equals_uint64 (u64 (s, "settled-ns"), 0);
      if (whole) {
        n_whole++;
        fail_unless_equals_uint64 (u64 (s, "frames"), n);
      } else {
        n_windows++;
        window_frames += u64 (s, "frames");
      }
    }
    gst_message_unref (m);
  }
  fail_unless_equals_int (n_passport, 1);
  fail_unless_equals_int (n_whole, 1);
  fail_unless (n_windows >= 2);
  /* every frame is in exactly one window */
  fail_unless_equals_uint64 (window_frames, n);

  g_object_get (filter (h), "stats", &prop, NULL);
  fail_unless (prop != NULL);
  check_fields (prop, stats_fields, G_N_ELEMENTS (stats_fields));
  check_list (prop, &co_stats_fields);
  fail_unless (gst_structure_has_field (prop, "whole-run"));
  gst_structure_free (prop);
  g_object_get (filter (h), "passport", &prop, NULL);
  fail_unless (prop != NULL);
  check_list (prop, &co_passport_fields);
  gst_structure_free (prop);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstBuffer *
random_buffer (const gsize * parts, guint n_parts)
{
  GstBuffer *b = gst_buffer_new ();
  guint i;

  for (i = 0; i < n_parts; i++) {
    GstMemory *m = gst_allocator_alloc (NULL, parts[i], NULL);
    GstMapInfo map;

    gst_memory_map (m, &map, GST_MAP_WRITE);
    fill_random (map.data, map.size);
    gst_memory_unmap (m, &map);
    gst_buffer_append_memory (b, m);
  }
  return b;
}

/* The memory-path counts follow the memory the copies really read: a frame
 * in one large malloc()ed memory is staged (copied into the element's
 * page-locked memory by a few threads) the first time the element sees
 * that GstMemory, and registered when it comes back (CUDA); a frame in two
 * memories, which mapping would merge into a temporary copy, is staged
 * every time.  The CPU backend counts all four pageable. */
GST_START_TEST (test_memory_path_merged)
{
  const gsize whole[] = { 1024 * 512 * 4 };
  const gsize halves[] = { 1024 * 256 * 4, 1024 * 256 * 4 };
  gchar *desc = g_strdup_printf ("cudavideofilter name=f backend=%s streams=2 "
      "chunks=2 stats-interval=0 post-messages=false", backend ());
  GstHarness *h = gst_harness_new_parse (desc);
  GstStructure *st = NULL;
  GstBuffer *in[4];
  guint i;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=1024,"
      "height=512,framerate=30/1");
  /* kept alive: their registrations last as long as the memories */
  in[0] = random_buffer (whole, 1);
  in[1] = random_buffer (halves, 2);
  in[2] = gst_buffer_ref (in[0]);       /* the same memory again */
  in[3] = random_buffer (halves, 2);
  for (i = 0; i < 4; i++) {
    GST_BUFFER_PTS (in[i]) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_object_get (filter (h), "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless_equals_uint64 (u64 (st, "frames"), 4);
  fail_unless_equals_uint64 (u64 (st, "frames-pinned"), 0);
  fail_unless_equals_uint64 (u64 (st, "frames-registered"), is_cuda ()? 1 : 0);
  fail_unless_equals_uint64 (u64 (st, "frames-pageable"), is_cuda ()? 0 : 4);
  fail_unless_equals_uint64 (u64 (st, "frames-staged"), is_cuda ()? 3 : 0);
  gst_structure_free (st);
  gst_harness_teardown (h);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (in[i]);
  g_free (desc);
}

GST_END_TEST;

/* max-in-flight: the passport reports the bound in effect. */
GST_START_TEST (test_max_in_flight)
{
  static const guint asked[] = { 0, 1, 2, 9 };
  /* streams=3: automatic is max (4, 3 + 2) */
  static const guint want[] = { 5, 1, 2, 9 };
  guint i, got = 0;

  for (i = 0; i < G_N_ELEMENTS (asked); i++) {
    gchar *extra = g_strdup_printf ("max-in-flight=%u", asked[i]);
    GstBus *bus;
    GstHarness *h = make_harness (extra, &bus);
    GstStructure *pp = NULL;

    push_pull (h, 6, 0);
    g_object_get (filter (h), "passport", &pp, NULL);
    fail_unless (pp != NULL);
    fail_unless (gst_structure_get_uint (pp, "max-in-flight", &got));
    fail_unless_equals_int (got, want[i]);
    gst_structure_free (pp);
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (extra);
  }
}

GST_END_TEST;

/* settled-ns: with every setting explicit, the first frame's time; with
 * automatic settings, a frame's after their measured decision (30 frames
 * after the first 5), so later than the first frame; the same in every
 * message once set. */
static const struct
{
  const gchar *name;
  const gchar *props;
  guint frames;
  gboolean automatic;
} settled_cases[] = {
  {"explicit", "batch=1 wait-mode=blocking submit-thread=false", 12, FALSE},
  {"automatic", "", 60, TRUE},
};

GST_START_TEST (test_settled)
{
  GstBus *bus;
  GstHarness *h = make_harness (settled_cases[__i__].props, &bus);
  guint64 settled = 0, first = 0;
  gboolean seen_whole = FALSE;
  GstMessage *m;

  co_test_print_variant ("test_settled", __i__, settled_cases[__i__].name);
  push_pull (h, settled_cases[__i__].frames, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean whole = FALSE;

    if (gst_structure_has_name (s, "cudaoverlap-stats")) {
      gst_structure_get_boolean (s, "whole-run", &whole);
      if (u64 (s, "settled-ns")) {
        if (settled)
          fail_unless_equals_uint64 (u64 (s, "settled-ns"), settled);
        settled = u64 (s, "settled-ns");
      }
      if (whole) {
        seen_whole = TRUE;
        first = u64 (s, "first-frame-ns");
        fail_unless (first > 0);
        fail_unless (settled > 0, "[%s] no settled-ns at EOS",
            settled_cases[__i__].name);
        if (settled_cases[__i__].automatic)
          fail_unless (settled > first, "[%s] settled-ns %" G_GUINT64_FORMAT
              " not after the first frame (%" G_GUINT64_FORMAT ")",
              settled_cases[__i__].name, settled, first);
        else
          fail_unless_equals_uint64 (settled, first);
      }
    }
    gst_message_unref (m);
  }
  fail_unless (seen_whole);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_post_messages_off)
{
  GstBus *bus;
  GstHarness *h = make_harness ("stats-interval=0 post-messages=false", &bus);
  GstStructure *prop = NULL;

  push_pull (h, 3, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
  /* the property still has the whole-run statistics */
  g_object_get (filter (h), "stats", &prop, NULL);
  fail_unless (prop != NULL);
  fail_unless_equals_uint64 (u64 (prop, "frames"), 3);
  gst_structure_free (prop);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Parses the trace file and counts the device events per kind. */
static void
check_trace (const gchar * path, guint frames, gboolean exact)
{
  JsonParser *p = json_parser_new ();
  GError *err = NULL;
  JsonArray *events;
  guint i, kernels = 0, copies = 0;

  fail_unless (json_parser_load_from_file (p, path, &err), "%s: %s", path,
      err ? err->message : "?");
  events = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (p)), "traceEvents");
  for (i = 0; i < json_array_get_length (events); i++) {
    JsonObject *e = json_array_get_object_element (events, i);
    const gchar *ph = json_object_get_string_member (e, "ph");
    const gchar *name = json_object_get_string_member (e, "name");

    if (!g_str_equal (ph, "X") || !json_object_has_member (e, "cat") ||
        !g_str_equal (json_object_get_string_member (e, "cat"), "device"))
      continue;
    fail_unless (json_object_has_member (json_object_get_object_member (e,
                "args"), "frame"));
    if (g_str_equal (name, "kernel"))
      kernels++;
    else
      copies++;
  }
  if (exact) {
    fail_unless_equals_int (kernels, frames * CHUNKS);
    fail_unless_equals_int (copies, is_cuda ()? 2 * frames * CHUNKS : 0);
  } else {
    fail_unless (kernels <= frames * CHUNKS);
  }
  g_object_unref (p);
}

GST_START_TEST (test_trace_file)
{
  gchar *dir = g_dir_make_tmp ("co-trace-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "trace.json", NULL);
  gchar *extra = g_strdup_printf ("trace-file=%s", path);
  GstBus *bus;
  GstHarness *h = make_harness (extra, &bus);

  /* valid after a flush, every frame pushed before it is in the trace */
  push_pull (h, 5, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  check_trace (path, 5, TRUE);

  /* valid after EOS */
  {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  push_pull (h, 4, 5);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  check_trace (path, 9, TRUE);

  /* valid after a stop from PLAYING */
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  check_trace (path, 9, TRUE);

  g_unlink (path);
  g_rmdir (dir);
  g_free (extra);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;


/* A failing device operation (injected at the backend's call point: the
 * path a failing CUDA call takes): an element error that names it, the
 * push fails, no frame from the failure on comes out, no hang. */
GST_START_TEST (test_device_failure)
{
  CoTestFaultArm arm = co_test_plugin_symbol ("co_fault_arm");
  /* one call per frame on the CPU backend; the first chunk's kernel on
   * the CUDA one */
  const gchar *point = is_cuda ()? "co_video_launch_cuda" : "co_cpu_submit";
  gchar *expect = g_strdup_printf ("injected failure of %s", point);
  GstBus *bus;
  GstHarness *h;
  GstBuffer *b;
  GstMessage *m;
  GError *err = NULL;
  gchar *debug = NULL;
  GstFlowReturn ret;

  /* the suite adds this test only where the hook exists */
  fail_unless (arm != NULL, "no co_fault_arm");
  h = make_harness (NULL, &bus);
  push_pull (h, 3, 0);

  /* every frame from the next one on fails */
  arm (point, 0);
  b = gst_harness_create_buffer (h, FRAME_BYTES);
  gst_buffer_memset (b, 0, 0x5a, FRAME_BYTES);
  ret = gst_harness_push (h, b);
  fail_unless_equals_int (ret, GST_FLOW_ERROR);

  m = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "no error message");
  gst_message_parse_error (m, &err, &debug);
  fail_unless (strstr (debug, expect) != NULL, "%s", debug);
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (m);

  /* nothing of the failed frame is pushed */
  fail_unless (gst_harness_try_pull (h) == NULL);
  fail_unless_equals_int (gst_harness_buffers_received (h), 3);

  arm (NULL, -1);
  gst_element_set_bus (filter (h), NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (expect);
}

GST_END_TEST;

/* ---- the time fields: timestamp, duration, stream-time, running-time ----
 *
 * The references are computed here from the buffers pushed and the
 * segment's values (rate 1: running time = PTS − start + base, stream time
 * = PTS − start + time), not with gst_segment_*(). */

typedef struct
{
  const gchar *name;
  const gchar *element;         /* the launch line, %s: the backend */
  const gchar *caps;
  gsize bytes;                  /* of a buffer */
  GstClockTime duration;        /* of a buffer */
} TimedElement;

static const TimedElement timed[] = {
  {.name = "video",
        .element = "cudavideofilter name=f backend=%s streams=2 chunks=2 "
        "operation=invert",
        .caps = "video/x-raw,format=RGBA,width=64,height=37,framerate=30/1",
      .bytes = FRAME_BYTES,.duration = GST_SECOND / 30},
  {.name = "audio",
        .element = "cudaaudiofilter name=f backend=%s operation=gain "
        "gain-db=6",
        .caps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,"
        "channels=2",
      .bytes = 480 * 4,.duration = 10 * GST_MSECOND},
};

/* A segment with every value that the times depend on away from 0. */
typedef struct
{
  GstClockTime start, base, time;
} Seg;

static const Seg seg_a = { 10 * GST_SECOND, 3 * GST_SECOND, 100 * GST_SECOND };
static const Seg seg_b = { 50 * GST_SECOND, 7 * GST_SECOND, 2 * GST_SECOND };

static GstHarness *
timed_harness (const TimedElement * t, const gchar * extra, GstBus ** bus)
{
  gchar *launch = g_strdup_printf (t->element, backend ());
  gchar *desc = g_strdup_printf ("%s %s", launch, extra);
  GstHarness *h = gst_harness_new_parse (desc);

  g_free (desc);
  g_free (launch);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_element_set_bus (filter (h), *bus);
  gst_harness_set_src_caps_str (h, t->caps);
  return h;
}

static void
push_segment (GstHarness * h, const Seg * v)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.position = v->start;
  seg.base = v->base;
  seg.time = v->time;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
}

/* Pushes and pulls @n buffers of @t; the first at @pts0 (NONE: no PTS). */
static void
push_timed (GstHarness * h, const TimedElement * t, guint n, GstClockTime pts0)
{
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = gst_harness_create_buffer (h, t->bytes);
    GstMapInfo map;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    fill_random (map.data, map.size);
    gst_buffer_unmap (b, &map);
    if (GST_CLOCK_TIME_IS_VALID (pts0)) {
      GST_BUFFER_PTS (b) = pts0 + i * t->duration;
      GST_BUFFER_DURATION (b) = t->duration;
    }
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
}

/* The four time fields of @s are those of @n frames of @t from @pts in @v;
 * all NONE when @n is 0 or @v is NULL (no PTS). */
static void
check_times (const GstStructure * s, const TimedElement * t, const Seg * v,
    GstClockTime pts, guint64 n)
{
  GstClockTime none = GST_CLOCK_TIME_NONE;
  gboolean known = n > 0 && v != NULL;

  fail_unless_equals_uint64 (u64 (s, "timestamp"), known ? pts : none);
  fail_unless_equals_uint64 (u64 (s, "duration"),
      known ? n * t->duration : none);
  fail_unless_equals_uint64 (u64 (s, "running-time"),
      known ? pts - v->start + v->base : none);
  fail_unless_equals_uint64 (u64 (s, "stream-time"),
      known ? pts - v->start + v->time : none);
}

/* Every window (stats-interval=1: about one per frame) and the whole run
 * carry the PTS span of their own frames and its times in the segment. */
GST_START_TEST (test_time_fields)
{
  const TimedElement *t = &timed[__i__];
  const guint n = 8;
  GstBus *bus;
  GstHarness *h = timed_harness (t, "stats-interval=1", &bus);
  GstMessage *m;
  guint64 done = 0;
  guint windows = 0;
  gboolean whole_seen = FALSE;

  push_segment (h, &seg_a);
  push_timed (h, t, n, seg_a.start + GST_SECOND);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean whole = FALSE;
    guint64 frames;

    if (gst_structure_has_name (s, "cudaoverlap-stats")) {
      frames = u64 (s, "frames");
      gst_structure_get_boolean (s, "whole-run", &whole);
      if (whole) {
        check_times (s, t, &seg_a, seg_a.start + GST_SECOND, n);
        whole_seen = TRUE;
      } else {
        check_times (s, t, &seg_a, seg_a.start + GST_SECOND +
            done * t->duration, frames);
        done += frames;
        windows += frames > 0;
      }
    }
    gst_message_unref (m);
  }
  fail_unless (whole_seen, "%s: no whole-run message", t->name);
  fail_unless_equals_uint64 (done, n);
  fail_unless (windows >= 2, "%s: %u windows with frames", t->name, windows);
  gst_element_set_bus (filter (h), NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* How the frames of a run reach the element in test_time_fields_segments. */
typedef enum
{
  NEW_SEGMENT,                  /* a segment, frames, another, frames */
  FLUSH,                        /* the same with a flush between */
  SAME_AGAIN,                   /* the first segment sent again (a new
                                 * position): one span */
  NO_PTS,                       /* frames without a PTS */
} SegCase;

static const struct
{
  const gchar *name;
  const TimedElement *element;
  SegCase what;
} seg_cases[] = {
  {"video-new-segment", &timed[0], NEW_SEGMENT},
  {"video-flush", &timed[0], FLUSH},
  {"video-same-segment-again", &timed[0], SAME_AGAIN},
  {"video-no-pts", &timed[0], NO_PTS},
  {"audio-new-segment", &timed[1], NEW_SEGMENT},
  {"audio-flush", &timed[1], FLUSH},
  {"audio-same-segment-again", &timed[1], SAME_AGAIN},
  {"audio-no-pts", &timed[1], NO_PTS},
};

/* A new segment (after a flush, or between buffers) starts the span anew:
 * the whole run's times are those of the frames of the last segment, in
 * it; the same segment sent again does not.  Frames without a PTS: every
 * time field GST_CLOCK_TIME_NONE. */
GST_START_TEST (test_time_fields_segments)
{
  const TimedElement *t = seg_cases[__i__].element;
  const SegCase what = seg_cases[__i__].what;
  const GstClockTime pts_b = seg_b.start + GST_SECOND / 2;
  const GstClockTime pts_a2 = seg_a.start + 4 * t->duration;
  GstBus *bus;
  GstHarness *h = timed_harness (t, "stats-interval=0", &bus);
  GstStructure *st = NULL;

  push_segment (h, &seg_a);
  push_timed (h, t, 4, what == NO_PTS ? GST_CLOCK_TIME_NONE : seg_a.start);
  if (what == FLUSH) {
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  }
  if (what == SAME_AGAIN) {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    seg.start = seg_a.start;
    seg.base = seg_a.base;
    seg.time = seg_a.time;
    seg.position = pts_a2;
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    push_timed (h, t, 5, pts_a2);
  } else if (what != NO_PTS) {
    push_segment (h, &seg_b);
    push_timed (h, t, 5, pts_b);
  } else {
    push_timed (h, t, 5, GST_CLOCK_TIME_NONE);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_object_get (filter (h), "stats", &st, NULL);
  fail_unless (st != NULL, "%s: no stats", seg_cases[__i__].name);
  fail_unless (gst_structure_has_field (st, "whole-run"));
  fail_unless_equals_uint64 (u64 (st, "frames"), 9);
  if (what == SAME_AGAIN)
    check_times (st, t, &seg_a, seg_a.start, 9);
  else
    check_times (st, t, what == NO_PTS ? NULL : &seg_b, pts_b, 5);
  gst_structure_free (st);
  gst_element_set_bus (filter (h), NULL);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
stats_suite (void)
{
  Suite *s = suite_create ("cudaoverlap-stats");
  TCase *tc = tcase_create ("messages");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_stats_fields_and_invariants);
  tcase_add_loop_test (tc, test_settled, 0, G_N_ELEMENTS (settled_cases));
  tcase_add_test (tc, test_post_messages_off);
  tcase_add_test (tc, test_max_in_flight);
  tcase_add_test (tc, test_memory_path_merged);
  tcase_add_test (tc, test_trace_file);
  tcase_add_loop_test (tc, test_time_fields, 0, G_N_ELEMENTS (timed));
  tcase_add_loop_test (tc, test_time_fields_segments, 0,
      G_N_ELEMENTS (seg_cases));
  co_test_add_if (tc, test_device_failure,
      co_test_hook_missing ("co_fault_arm"));
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  SRunner *sr;
  int nf;

  if (is_cuda ())
    g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);

  if (is_cuda ()) {
    GstElement *e = gst_element_factory_make ("cudavideofilter", NULL);

    if (!e) {
      g_printerr ("cudavideofilter not found\n");
      return 1;
    }
    g_object_set (e, "backend", 1, NULL);
    if (gst_element_set_state (e, GST_STATE_READY) == GST_STATE_CHANGE_FAILURE) {
      g_printerr ("SKIP: CO_TEST_BACKEND=cuda but no usable CUDA device\n");
      gst_element_set_state (e, GST_STATE_NULL);
      gst_object_unref (e);
      return 77;
    }
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
  }
  s = stats_suite ();
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  nf = srunner_ntests_failed (sr);
  srunner_free (sr);
  return co_test_exit_status (nf);
}
