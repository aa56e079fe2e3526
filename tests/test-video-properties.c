/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, the properties: their specs and
 * defaults, and changes while frames flow (gamma, operation, batch). Outputs
 * are compared with the independent reference in co-reference.c; the set-up
 * and the environment are co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>

#include "co-test-video.h"

/* ------------------------------------------------------------------------ */
/* Properties                                                                */
/* ------------------------------------------------------------------------ */

/* Enum property @name has these values, and @def (if not NULL) by default. */
static void
check_enum_nicks (GObjectClass * k, const gchar * name,
    const gchar * const *nicks, const gchar * def)
{
  GParamSpec *ps = g_object_class_find_property (k, name);
  GEnumClass *ec;
  guint i;

  fail_unless (ps != NULL, "no property %s", name);
  fail_unless (G_IS_PARAM_SPEC_ENUM (ps), "%s is not an enum", name);
  ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  for (i = 0; nicks[i]; i++)
    fail_unless (g_enum_get_value_by_nick (ec, nicks[i]) != NULL,
        "property %s has no value '%s'", name, nicks[i]);
  if (def)
    fail_unless_equals_string (g_enum_get_value (ec,
            G_PARAM_SPEC_ENUM (ps)->default_value)->value_nick, def);
}

GST_START_TEST (test_properties)
{
  GstElement *e = make_element (NULL, NULL);
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  GParamSpec *ps;
  static const gchar *ops[] = { "invert", "gamma", "box-blur", NULL };
  static const gchar *modes[] = { "overlap", "serial", NULL };
  static const gchar *backends[] = { "auto", "cuda", "cpu", NULL };
  static const gchar *waits[] = { "blocking", "spin", "auto", NULL };
  gdouble g;
  guint u, s, c;
  gint d;

  check_enum_nicks (k, "operation", ops, NULL);

  ps = g_object_class_find_property (k, "gamma");
  fail_unless (ps && G_IS_PARAM_SPEC_DOUBLE (ps));
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->minimum == 0.01);
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->maximum == 10.0);
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->default_value == 1.0);

  ps = g_object_class_find_property (k, "radius");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 32);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 2);

  /* 0: automatic, the default */
  ps = g_object_class_find_property (k, "streams");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 32);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  ps = g_object_class_find_property (k, "chunks");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 64);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  check_enum_nicks (k, "mode", modes, "overlap");

  check_enum_nicks (k, "backend", backends, "auto");

  ps = g_object_class_find_property (k, "max-in-flight");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 64);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  check_enum_nicks (k, "wait-mode", waits, "auto");

  ps = g_object_class_find_property (k, "batch");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 16);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  ps = g_object_class_find_property (k, "submit-thread");
  fail_unless (ps && G_IS_PARAM_SPEC_BOOLEAN (ps));
  fail_unless (!G_PARAM_SPEC_BOOLEAN (ps)->default_value);

  ps = g_object_class_find_property (k, "cuda-device-id");
  fail_unless (ps && G_IS_PARAM_SPEC_INT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, -1);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->default_value, -1);

  /* values round-trip */
  g_object_set (e, "gamma", 2.2, "radius", 32, "streams", 32, "chunks", 64,
      "cuda-device-id", 0, NULL);
  g_object_get (e, "gamma", &g, "radius", &u, "streams", &s, "chunks", &c,
      "cuda-device-id", &d, NULL);
  fail_unless (g == 2.2);
  fail_unless_equals_int (u, 32);
  fail_unless_equals_int (s, 32);
  fail_unless_equals_int (c, 64);
  fail_unless_equals_int (d, 0);
  g_object_set (e, "streams", 1, "chunks", 1, "radius", 0, "gamma", 0.01, NULL);
  g_object_get (e, "gamma", &g, "radius", &u, "streams", &s, "chunks", &c,
      NULL);
  fail_unless (g == 0.01);
  fail_unless_equals_int (u, 0);
  fail_unless_equals_int (s, 1);
  fail_unless_equals_int (c, 1);
  {
    gst_util_set_object_arg (G_OBJECT (e), "operation", "box-blur");
    gst_util_set_object_arg (G_OBJECT (e), "mode", "serial");
    g_object_get (e, "operation", &d, NULL);
    fail_unless_equals_int (d, g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
            (g_object_class_find_property (k, "operation"))->enum_class,
            "box-blur")->value);
    g_object_get (e, "mode", &d, NULL);
    fail_unless_equals_int (d, g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
            (g_object_class_find_property (k, "mode"))->enum_class,
            "serial")->value);
  }

  gst_object_unref (e);
}

GST_END_TEST;

/* operation, gamma and radius may change in PLAYING: with no frame in
 * flight, the next frame uses the new values. */
GST_START_TEST (test_property_change_playing)
{
  guint32 seed = co_test_seed ("test_property_change_playing", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoInfo info;
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  static const guint seq[] = { 0, 8, 1, 5, 2, 0, 7 };
  guint i;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];
    GQueue pending = G_QUEUE_INIT;
    gchar *od = op_desc (op);
    gchar *ctx = g_strdup_printf ("[property change in PLAYING, step %u: %s, "
        "I420 75x41 backend=%s seed=0x%08x]", i, od, co_test_backend, seed);

    gst_util_set_object_arg (G_OBJECT (h->element), "operation",
        co_ref_op_nick (op->op));
    g_object_set (h->element, "gamma", op->gamma, "radius",
        op->op == CO_REF_BOX_BLUR ? op->radius : 3, NULL);
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
        &pending, ctx);
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND + 1,
        &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    g_free (ctx);
    g_free (od);
  }
  teardown_harness (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* A property change while a batch is being filled: the partial batch goes
 * out with the old operation before the engine is rebuilt for the new one. */
/* Gamma is applied without a rebuild (a drain, then a new table): every
 * frame pushed before a change comes out with the old table, every frame
 * pushed after it with the new one, in batches partly filled when the
 * change comes, with and without the submit thread; and no rebuild (one
 * passport for the whole run).  Operation changes in between do rebuild. */
static guint
count_passports (GstBus * bus)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (m, "cudaoverlap-passport"))
      n++;
    gst_message_unref (m);
  }
  return n;
}

/* EOS, the @n frames pushed pulled and checked, one engine build for them
 * all (gamma changes apply without a rebuild), the harness torn down. */
static void
end_with_one_build (GstHarness * h, GstBus * bus, const GstVideoInfo * info,
    GQueue * pending, guint n, const gchar * ctx)
{
  guint k, passports;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (k = 0; k < n; k++)
    pull_and_check (h, info, pending, ctx);
  passports = count_passports (bus);
  fail_unless (passports == 1, "%s: %u engine builds for gamma changes only "
      "(expected one: they apply without a rebuild)", ctx, passports);
  teardown_harness_with_bus (h, bus);
}

static const struct
{
  const gchar *name;
  guint batch;
  gboolean submit_thread;
} gamma_variants[] = {
  {.name = "batch-1",.batch = 1},
  {.name = "batch-2",.batch = 2},
  {.name = "batch-3",.batch = 3},
  {.name = "batch-1-submit-thread",.batch = 1,.submit_thread = TRUE},
  {.name = "batch-2-submit-thread",.batch = 2,.submit_thread = TRUE},
  {.name = "batch-3-submit-thread",.batch = 3,.submit_thread = TRUE},
};

GST_START_TEST (test_gamma_updates)
{
  static const gdouble gammas[] = { 0.8, 1.0, 2.2, 0.45, 1.0, 3.0 };
  guint32 seed = co_test_seed ("test_gamma_updates", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const guint batch = gamma_variants[__i__].batch;
  const gboolean submit_thread = gamma_variants[__i__].submit_thread;
  OpCfg cfg = { CO_REF_GAMMA, gammas[0], 0 };
  GstHarness *h = make_harness (&cfg, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  guint g, k, n = 0;
  gchar *ctx = g_strdup_printf ("[gamma updates, batch=%u submit-thread=%d, "
      "I420 161x93 backend=%s seed=0x%08x]", batch, submit_thread,
      co_test_backend, seed);

  co_test_print_variant ("test_gamma_updates", __i__,
      gamma_variants[__i__].name);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "batch", batch, "submit-thread", submit_thread,
      "gamma", gammas[0], NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 161, 93, &info));
  for (g = 0; g < G_N_ELEMENTS (gammas); g++) {
    if (g > 0) {
      cfg.gamma = gammas[g];
      g_object_set (h->element, "gamma", cfg.gamma, NULL);
    }
    /* 1 to 4 frames: batches are left partly filled at the change */
    for (k = g_rand_int_range (rand, 1, 5); k > 0; k--, n++)
      push_frame (h, rand, &info, &cfg, &layout_default, n * GST_SECOND / 30,
          &pending, ctx);
  }
  end_with_one_build (h, bus, &info, &pending, n, ctx);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Whether @out is @op's reference for @in. */
static gboolean
output_is (GstBuffer * out, const OpCfg * op, GstBuffer * in,
    const GstVideoInfo * info)
{
  GstBuffer *exp = make_expected (op, in, info);
  GstVideoFrame fe, fo;
  gchar *msg = NULL;
  gboolean same;

  fail_unless (gst_video_frame_map (&fe, info, exp, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  same = co_ref_compare (&fe, &fo, &msg);
  gst_video_frame_unmap (&fe);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (exp);
  g_free (msg);
  return same;
}

static gpointer
push_one (gpointer data)
{
  GstHarness *h = data;

  return GINT_TO_POINTER (gst_harness_push (h, g_object_steal_data (G_OBJECT
              (h->element), "co-test-buffer")));
}

/* A gamma applied without a rebuild is read with the operation it goes
 * with.  gamma 1.7 is set; while the element applies it (held between
 * reading the settings and making the table by a -Dfault-injection hook),
 * the operation becomes box-blur and gamma 3: the frame must come out with
 * gamma 1.7, or box-blur, never the operation gamma with gamma 3, a pair
 * never set (what reading gamma after the operation would give). */
GST_START_TEST (test_gamma_read_with_operation)
{
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_update_delay_us");
  guint32 seed = co_test_seed ("test_gamma_read_with_operation", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg g22 = { CO_REF_GAMMA, 2.2, 0 }, g17 = { CO_REF_GAMMA, 1.7, 0 };
  const OpCfg g3 = { CO_REF_GAMMA, 3.0, 0 }, blur = { CO_REF_BOX_BLUR, 3.0, 3 };
  GstHarness *h;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GQueue pending = G_QUEUE_INIT;
  GThread *t;
  gchar *ctx = g_strdup_printf ("[gamma read with the operation, I420 161x93 "
      "backend=%s seed=0x%08x]", co_test_backend, seed);

  /* the suite adds this test only where the hook exists */
  fail_unless (set_delay != NULL, "%s: no co_test_set_update_delay_us", ctx);
  h = make_harness (&g22, &co_test_run_cfgs[3]);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 161, 93, &info));
  push_frame (h, rand, &info, &g22, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &info, &pending, ctx);

  g_object_set (h->element, "gamma", g17.gamma, NULL);
  set_delay (300 * 1000);
  in = make_input (rand, &info, &layout_default);
  g_object_set_data (G_OBJECT (h->element), "co-test-buffer",
      gst_buffer_ref (in));
  t = g_thread_new ("push", push_one, h);
  g_usleep (100 * 1000);        /* the element is inside the update now */
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "box-blur");
  g_object_set (h->element, "radius", blur.radius, "gamma", g3.gamma, NULL);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (t)), GST_FLOW_OK);
  set_delay (0);
  out = co_test_pull_buffer (h, ctx);
  fail_if (output_is (out, &g3, in, &info), "%s: the operation gamma with "
      "the gamma set after the operation had changed", ctx);
  fail_unless (output_is (out, &g17, in, &info) ||
      output_is (out, &blur, in, &info), "%s: neither gamma 1.7 nor "
      "box-blur radius 3", ctx);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_batch_property_change)
{
  guint32 seed = co_test_seed ("test_batch_property_change", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *before = &op_cfgs[0], *after = &op_cfgs[2];
  GstVideoInfo info;
  GstHarness *h = make_harness (before, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  gchar *ctx = g_strdup_printf ("[batch=3, invert then gamma 2.2 mid-batch, "
      "I420 75x41 backend=%s seed=0x%08x]", co_test_backend, seed);
  guint i;

  g_object_set (h->element, "batch", 3, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < 2; i++)
    push_frame (h, rand, &info, before, &layout_default, i * GST_SECOND,
        &pending, ctx);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "gamma");
  g_object_set (h->element, "gamma", after->gamma, NULL);
  push_frame (h, rand, &info, after, &layout_default, 2 * GST_SECOND,
      &pending, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  for (i = 0; i < 3; i++)
    pull_and_check (h, &info, &pending, ctx);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* gamma driven by a GstController: a linear ramp through 1.0 (where the
 * element passes frames through) and a hold.  Every frame must come out
 * with the gamma the control source gives for its stream time (here its
 * PTS), whatever the batch and the frames in flight, with one engine build
 * (the ramp needs no rebuild). */
static const struct
{
  const gchar *name;
  GstVideoFormat format;
  guint width, height;
  guint batch;
} controlled_variants[] = {
  {.name = "GRAY8-97x31-batch-1",.format = GST_VIDEO_FORMAT_GRAY8,
      .width = 97,.height = 31,.batch = 1},
  {.name = "RGBA-161x93-batch-4",.format = GST_VIDEO_FORMAT_RGBA,
      .width = 161,.height = 93,.batch = 4},
  {.name = "GRAY16_LE-75x41-batch-1",.format = GST_VIDEO_FORMAT_GRAY16_LE,
      .width = 75,.height = 41,.batch = 1},
  {.name = "GRAY16_LE-75x41-batch-3",.format = GST_VIDEO_FORMAT_GRAY16_LE,
      .width = 75,.height = 41,.batch = 3},
  {.name = "I420-161x93-batch-3",.format = GST_VIDEO_FORMAT_I420,
      .width = 161,.height = 93,.batch = 3},
};

#define RAMP_FRAMES 20
#define HOLD_FRAMES 7

GST_START_TEST (test_gamma_controlled)
{
  guint32 seed = co_test_seed ("test_gamma_controlled", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const GstClockTime dur = GST_SECOND / 30;
  OpCfg cfg = { CO_REF_GAMMA, 0.5, 0 };
  GstHarness *h = make_harness (&cfg, &co_test_run_cfgs[3]);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  guint i, n = RAMP_FRAMES + HOLD_FRAMES;
  gchar *ctx = g_strdup_printf ("[gamma controlled, %s backend=%s "
      "seed=0x%08x]", controlled_variants[__i__].name, co_test_backend, seed);

  co_test_print_variant ("test_gamma_controlled", __i__,
      controlled_variants[__i__].name);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "batch", controlled_variants[__i__].batch, NULL);
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  /* 0.5 at the first frame, 1.5 at the last of the ramp: 1.0 half way */
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0,
      0.5);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      (RAMP_FRAMES - 1) * dur, 1.5);
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs),
      RAMP_FRAMES * dur, 2.4);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "gamma", cs)));
  gst_harness_set_src_caps (h, caps_of (controlled_variants[__i__].format,
          controlled_variants[__i__].width, controlled_variants[__i__].height,
          &info));
  for (i = 0; i < n; i++) {
    fail_unless (gst_control_source_get_value (cs, i * dur, &cfg.gamma),
        "%s: no control value at frame %u", ctx, i);
    push_frame (h, rand, &info, &cfg, &layout_default, i * dur, &pending, ctx);
  }
  end_with_one_build (h, bus, &info, &pending, n, ctx);
  gst_object_unref (cs);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_properties_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-properties");
  TCase *tc;

  tc = co_test_new_tcase (s, "properties", leaks_teardown);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_property_change_playing);
  tcase_add_test (tc, test_batch_property_change);
  co_test_add_if (tc, test_gamma_read_with_operation,
      co_test_hook_missing ("co_test_set_update_delay_us"));
  tcase_add_loop_test (tc, test_gamma_updates, 0,
      G_N_ELEMENTS (gamma_variants));
  tcase_add_loop_test (tc, test_gamma_controlled, 0,
      G_N_ELEMENTS (controlled_variants));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-properties",
      video_properties_suite);
}
