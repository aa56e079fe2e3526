/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, the automatic settings (streams,
 * chunks, batch, submit thread): what they decide for live and non-live
 * upstream, staged input, explicit values kept, decisions redone on new
 * caps, one device shared. Outputs are compared with the independent
 * reference in co-reference.c; the set-up and the environment are
 * co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "co-test-video.h"

/* ------------------------------------------------------------------------ */
/* Automatic settings (streams, chunks, batch at 0, wait-mode=auto)          */
/* ------------------------------------------------------------------------ */

/* The harness's source answers LATENCY live (GstHarness does); this one
 * answers it non-live, as a file or a generator would.  Other queries go
 * to the harness's own function. */
static GstPadQueryFunction harness_src_query;

static gboolean
nonlive_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return harness_src_query (pad, parent, query);
  gst_query_set_latency (query, FALSE, 0, GST_CLOCK_TIME_NONE);
  return TRUE;
}

/* A harness whose element posts on @bus; @live: upstream is live. */
static GstHarness *
make_auto_harness (gboolean live, GstBus ** bus)
{
  GstHarness *h = make_harness (&op_cfgs[0], NULL);

  if (!live) {
    harness_src_query = GST_PAD_QUERYFUNC (h->srcpad);
    gst_pad_set_query_function (h->srcpad, nonlive_src_query);
  }
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

typedef struct
{
  guint passports, latency_msgs;
  GstStructure *passport;       /* the property at the end */
} AutoRun;

/* Pushes @n random pictures as fast as the element takes them (all made,
 * with their references, first), then EOS; every output is compared with
 * its reference, in order.  Counts the passports and LATENCY messages. */
static void
run_auto (GstHarness * h, GstBus * bus, const GstVideoInfo * info, guint n,
    GRand * rand, const gchar * ctx, AutoRun * r)
{
  GQueue pending = G_QUEUE_INIT;
  GstBuffer **in = g_new (GstBuffer *, n);
  GstMessage *m;
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *exp;

    in[i] = make_input (rand, info, &layout_default);
    exp = make_expected (&op_cfgs[0], in[i], info);
    GST_BUFFER_PTS (in[i]) = GST_BUFFER_PTS (exp) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (in[i]) = GST_SECOND / 30;
    g_queue_push_tail (&pending, exp);
  }
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, in[i]), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    pull_and_check (h, info, &pending, ctx);
  memset (r, 0, sizeof (*r));
  while ((m = gst_bus_pop (bus))) {
    if (gst_message_has_name (m, "cudaoverlap-passport"))
      r->passports++;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_LATENCY)
      r->latency_msgs++;
    gst_message_unref (m);
  }
  g_object_get (h->element, "passport", &r->passport, NULL);
  fail_unless (r->passport != NULL, "%s: no passport", ctx);
  GST_INFO ("%s: %" GST_PTR_FORMAT, ctx, r->passport);
  g_free (in);
}

static guint
pp_uint (const GstStructure * s, const gchar * field)
{
  guint v = 0;

  fail_unless (gst_structure_get_uint (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static gboolean
pp_auto (const GstStructure * s)
{
  gboolean v = FALSE;

  fail_unless (gst_structure_get_boolean (s, "auto", &v));
  return v;
}

/* The value of @prop's enum nick @nick. */
static gint
enum_value (GstElement * e, const gchar * prop, const gchar * nick)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), prop);
  GEnumValue *v = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (ps)->enum_class,
      nick);

  fail_unless (v != NULL, "%s has no value %s", prop, nick);
  return v->value;
}

/* The properties of @e read back automatic: 0, 0, 0, auto. */
static void
check_props_auto (GstElement * e)
{
  guint s, c, b;
  gint wait;

  g_object_get (e, "streams", &s, "chunks", &c, "batch", &b, "wait-mode",
      &wait, NULL);
  fail_unless (s == 0 && c == 0 && b == 0, "streams %u chunks %u batch %u: "
      "not automatic (0)", s, c, b);
  fail_unless_equals_int (wait, enum_value (e, "wait-mode", "auto"));
}

/* The defaults are automatic: the properties read back 0 and auto, before
 * and after a run, and the passport says what was chosen and why.  The
 * harness is a live source: batch 1. */
GST_START_TEST (test_auto_defaults)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_defaults", 0));
  GstBus *bus;
  GstHarness *h = make_auto_harness (TRUE, &bus);
  GstVideoInfo info;
  AutoRun r;

  check_props_auto (h->element);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 640, 480,
          &info));
  run_auto (h, bus, &info, 12, rand, "[auto defaults, live]", &r);
  check_props_auto (h->element);
  fail_unless (pp_auto (r.passport));
  fail_unless (pp_uint (r.passport, "streams") >= 2);
  fail_unless (pp_uint (r.passport, "chunks") >= 1);
  fail_unless_equals_int (pp_uint (r.passport, "batch"), 1);
  fail_unless (g_str_has_prefix (gst_structure_get_string (r.passport,
              "auto-reason"), "live"), "%" GST_PTR_FORMAT, r.passport);
  fail_unless_equals_int (r.passports, 1);
  fail_unless_equals_int (r.latency_msgs, 0);
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);
  g_rand_free (rand);
}

GST_END_TEST;

/* A run of @n RGBA 64x48 frames with @streams set (G_MAXUINT: left
 * alone); the passport. */
static GstStructure *
run_streams (guint streams, gboolean live, guint n, GRand * rand,
    const gchar * ctx)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  AutoRun r;

  if (streams != G_MAXUINT)
    g_object_set (h->element, "streams", streams, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &info));
  run_auto (h, bus, &info, n, rand, ctx, &r);
  fail_unless_equals_int (r.passports, 1);
  teardown_harness_with_bus (h, bus);
  return r.passport;
}

/* Staged input (pageable frames seen once, copied into page-locked memory
 * by a few threads; forced on the CPU backend by a test hook): from a
 * non-live source the element turns its submit thread on once the first
 * frames are measured, so the next frame's copies run while this one's
 * are finished; not from a live one, nor when submit-thread is set.  Every
 * output is compared, and every frame counted staged. */
static GstStructure *
run_staged (gboolean live, gint submit_thread, GRand * rand, const gchar * ctx)
{
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  GstStructure *st = NULL;
  guint64 staged = 0;
  GstVideoInfo info;
  AutoRun r;

  if (submit_thread >= 0)
    g_object_set (h->element, "submit-thread", submit_thread, NULL);
  /* 1.2 MB frames: cut in parts */
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 641, 481,
          &info));
  run_auto (h, bus, &info, 48, rand, ctx, &r);
  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st && gst_structure_get_uint64 (st, "frames-staged", &staged),
      "%s: no statistics", ctx);
  fail_unless_equals_uint64 (staged, 48);
  gst_structure_free (st);
  teardown_harness_with_bus (h, bus);
  return r.passport;
}

GST_START_TEST (test_auto_staged)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_staged", 0));
  CoTestSetFlag force = co_test_plugin_symbol ("co_test_set_force_staging");
  gboolean st = FALSE;
  GstStructure *pp;

  /* the suite adds this test only where frames are staged: on CUDA, or
   * where the hook forces staging */
  fail_unless (force || g_str_equal (co_test_backend, "cuda"),
      "test_auto_staged: no co_test_set_force_staging");
  if (force)
    force (TRUE);
  pp = run_staged (FALSE, -1, rand, "[staged, non-live]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && st,
      "%" GST_PTR_FORMAT, pp);
  fail_unless (pp_auto (pp));
  fail_unless (strstr (gst_structure_get_string (pp, "auto-reason"),
          "submit thread (staged input"), "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  pp = run_staged (TRUE, -1, rand, "[staged, live]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && !st,
      "%" GST_PTR_FORMAT, pp);
  fail_unless (strstr (gst_structure_get_string (pp, "auto-reason"),
          "no submit thread (live"), "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  pp = run_staged (FALSE, FALSE, rand, "[staged, submit-thread=false]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && !st,
      "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  if (force)
    force (FALSE);
  g_rand_free (rand);
}

GST_END_TEST;

/* Explicit values are kept exactly (and read back); with all of them set
 * (submit-thread too, which is chosen unless set) nothing is automatic,
 * even after the first frames were measured.  One
 * explicit value leaves the others automatic, and setting it back to 0
 * makes it automatic again. */
GST_START_TEST (test_auto_explicit_kept)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_explicit", 0));
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (FALSE, &bus);
  GstStructure *a, *b;
  guint s, c, bt;
  AutoRun r;

  g_object_set (h->element, "streams", 3, "chunks", 5, "batch", 2,
      "submit-thread", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode", "blocking");
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &info));
  run_auto (h, bus, &info, 60, rand, "[explicit 3 x 5 batch 2]", &r);
  fail_unless (!pp_auto (r.passport));
  fail_unless_equals_int (pp_uint (r.passport, "streams"), 3);
  fail_unless_equals_int (pp_uint (r.passport, "chunks"), 5);
  fail_unless_equals_int (pp_uint (r.passport, "batch"), 2);
  fail_unless_equals_string (gst_structure_get_string (r.passport,
          "auto-reason"), "");
  fail_unless_equals_int (r.passports, 1);
  fail_unless_equals_int (r.latency_msgs, 0);
  g_object_get (h->element, "streams", &s, "chunks", &c, "batch", &bt, NULL);
  fail_unless (s == 3 && c == 5 && bt == 2);
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);

  /* streams set, the rest automatic; set back to 0: automatic again */
  a = run_streams (3, TRUE, 4, rand, "[explicit streams 3]");
  fail_unless (pp_auto (a));
  fail_unless_equals_int (pp_uint (a, "streams"), 3);
  fail_unless (strstr (gst_structure_get_string (a, "auto-reason"),
          "streams 3 (set)"), "%" GST_PTR_FORMAT, a);
  gst_structure_free (a);
  a = run_streams (G_MAXUINT, TRUE, 4, rand, "[default streams]");
  h = make_auto_harness (TRUE, &bus);
  g_object_set (h->element, "streams", 3, NULL);
  g_object_set (h->element, "streams", 0, NULL);
  check_props_auto (h->element);
  teardown_harness_with_bus (h, bus);
  b = run_streams (0, TRUE, 4, rand, "[streams 0]");
  fail_unless_equals_int (pp_uint (b, "streams"), pp_uint (a, "streams"));
  fail_unless (!strstr (gst_structure_get_string (b, "auto-reason"),
          "(set)"), "%" GST_PTR_FORMAT, b);
  gst_structure_free (a);
  gst_structure_free (b);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean live;
} redecide_variants[] = {
  {.name = "non-live",.live = FALSE},
  {.name = "live",.live = TRUE},
};

/* The first frames of a non-live source are measured and the choice made
 * again: tiny frames pushed as fast as the element takes them make the
 * host the bound, so the batch grows: a rebuild after a drain (every
 * output still there, in order, equal to the reference), a second
 * passport, and a LATENCY message for the new batch.  A live source with
 * the same frames keeps batch 1, without a rebuild. */
GST_START_TEST (test_auto_redecide)
{
  const gboolean live = redecide_variants[__i__].live;
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_redecide",
          __i__));
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  const gchar *reason;
  gchar *ctx = g_strdup_printf ("[auto re-decision, %s, GRAY8 16x16, "
      "backend=%s]", live ? "live" : "non-live", co_test_backend);
  AutoRun r;

  co_test_print_variant ("test_auto_redecide", __i__,
      redecide_variants[__i__].name);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info));
  run_auto (h, bus, &info, 100, rand, ctx, &r);
  reason = gst_structure_get_string (r.passport, "auto-reason");
  fail_unless (strstr (reason, "measured") != NULL, "%s: not measured: %s",
      ctx, reason);
  if (live) {
    fail_unless_equals_int (pp_uint (r.passport, "batch"), 1);
    fail_unless_equals_int (r.passports, 1);
    fail_unless_equals_int (r.latency_msgs, 0);
  } else {
    fail_unless (pp_uint (r.passport, "batch") == 8, "%s: batch %u: %s", ctx,
        pp_uint (r.passport, "batch"), reason);
    fail_unless_equals_int (r.passports, 2);
    fail_unless_equals_int (r.latency_msgs, 1);
  }
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Elements of one process on one device share it: each built engine is
 * counted (the passport's device-engines, itself included), the automatic
 * streams of each new one take the others into account (the CPU backend:
 * the cores; a GPU: its hardware queues), and an element that stops
 * leaves the count. */
GST_START_TEST (test_auto_device_share)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_device_share",
          0));
  GstVideoInfo info;
  GstHarness *h[3];
  GstBus *bus[3];
  AutoRun r[3], last;
  guint base = 0, i, n, s;

  for (i = 0; i < 3; i++) {
    gchar *ctx = g_strdup_printf ("[device share, element %u]", i);

    h[i] = make_auto_harness (FALSE, &bus[i]);
    gst_harness_set_src_caps (h[i], caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48,
            &info));
    run_auto (h[i], bus[i], &info, 4, rand, ctx, &r[i]);
    g_free (ctx);
    n = pp_uint (r[i].passport, "device-engines");
    s = pp_uint (r[i].passport, "streams");
    if (i == 0)
      base = n;
    fail_unless (base >= 1);
    fail_unless_equals_int (n, base + i);
    if (i > 0)
      fail_unless (s <= pp_uint (r[i - 1].passport, "streams"), "%"
          GST_PTR_FORMAT, r[i].passport);
    if (!g_strcmp0 (gst_structure_get_string (r[i].passport, "backend"), "cpu")) {
      fail_unless_equals_int (s, CLAMP (g_get_num_processors () / n, 1, 8));
      if (n > 1)
        fail_unless (strstr (gst_structure_get_string (r[i].passport,
                    "auto-reason"), "shared by") != NULL, "%" GST_PTR_FORMAT,
            r[i].passport);
    }
  }
  for (i = 0; i < 3; i++) {
    gst_structure_free (r[i].passport);
    teardown_harness_with_bus (h[i], bus[i]);
  }
  /* the three stopped: a new one counts as the first did */
  h[0] = make_auto_harness (FALSE, &bus[0]);
  gst_harness_set_src_caps (h[0], caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48,
          &info));
  run_auto (h[0], bus[0], &info, 4, rand, "[device share, after]", &last);
  fail_unless_equals_int (pp_uint (last.passport, "device-engines"), base);
  gst_structure_free (last.passport);
  teardown_harness_with_bus (h[0], bus[0]);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean live;
} pipeline_live_variants[] = {
  {.name = "is-live",.live = TRUE},
  {.name = "not-live",.live = FALSE},
};

/* In a pipeline: videotestsrc is-live=true gets the live settings (batch
 * 1); without is-live, the non-live ones. */
GST_START_TEST (test_auto_pipeline_live)
{
  const gboolean live = pipeline_live_variants[__i__].live;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=20 is-live=%d ! "
      "video/x-raw,format=GRAY8,width=32,height=16,framerate=200/1 ! "
      "cudavideofilter name=f backend=%s ! fakesink", live, co_test_backend);
  GstElement *pipe = gst_parse_launch (desc, NULL), *f;
  GstStructure *pp = NULL;
  GstMessage *m;
  GstBus *bus;

  co_test_print_variant ("test_auto_pipeline_live", __i__,
      pipeline_live_variants[__i__].name);
  fail_unless (pipe != NULL, "cannot make %s", desc);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s: no EOS",
      desc);
  gst_message_unref (m);
  g_object_get (f, "passport", &pp, NULL);
  fail_unless (pp != NULL);
  fail_unless (pp_auto (pp));
  fail_unless_equals_int (pp_uint (pp, "batch"), 1);
  fail_unless (g_str_has_prefix (gst_structure_get_string (pp, "auto-reason"),
          live ? "live" : "non-live"), "%s: %" GST_PTR_FORMAT, desc, pp);
  gst_structure_free (pp);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_auto_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-auto");
  TCase *tc;

  tc = co_test_new_tcase (s, "auto", leaks_teardown);
  tcase_add_test (tc, test_auto_defaults);
  tcase_add_test (tc, test_auto_explicit_kept);
  /* the CPU backend stages only what the hook forces */
  co_test_add_if (tc, test_auto_staged, g_str_equal (co_test_backend, "cuda")
      ? NULL : co_test_hook_missing ("co_test_set_force_staging"));
  tcase_add_loop_test (tc, test_auto_redecide, 0,
      G_N_ELEMENTS (redecide_variants));
  tcase_add_loop_test (tc, test_auto_pipeline_live, 0,
      G_N_ELEMENTS (pipeline_live_variants));
  tcase_add_test (tc, test_auto_device_share);

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-auto", video_auto_suite);
}
