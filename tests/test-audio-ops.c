/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudaaudiofilter, what it computes: the reference's
 * self-check, FIR and gain in both formats over many channel counts, filter
 * lengths and buffer sizes, every engine configuration agreeing, malformed
 * buffers, the properties and a pipeline. The reference, the set-up and the
 * environment are co-test-audio.h's.
 */

#include <math.h>
#include <string.h>
#include <stdlib.h>

#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>

#include "co-test-audio.h"

/* ------------------------------------------------------------------------ */
/* Self-check of the reference                                               */
/* ------------------------------------------------------------------------ */

/* Known values, and one stream cut into buffers equals the same stream in
 * one buffer: the reference's own continuity. */
GST_START_TEST (test_reference_self_check)
{
  gdouble taps[3] = { 0.5, 0.25, -1.0 };
  Sig s = { FALSE, 2, TRUE, 3, taps, 0.0 };
  gfloat in[10] = { 1, 10, 2, 20, 3, 30, 4, 40, 5, 50 };
  gdouble y[10], ab[10], y2[10], ab2[10];
  /* y[n] = 0.5 x[n] + 0.25 x[n-1] - x[n-2] per channel */
  gdouble want[10] = { 0.5, 5, 1.25, 12.5, 1.0, 10, 0.75, 7.5, 0.5, 5 };
  Ref r;
  guint i;

  co_aref_init (&r, &s);
  co_aref_process (&r, (const guint8 *) in, 5, y, ab);
  for (i = 0; i < 10; i++)
    fail_unless (fabs (y[i] - want[i]) < 1e-12, "sample %u: %g, not %g", i,
        y[i], want[i]);
  fail_unless (fabs (ab[4] - (1.5 + 0.5 + 1.0)) < 1e-12);

  co_aref_reset (&r);
  co_aref_process (&r, (const guint8 *) in, 1, y2, ab2);
  co_aref_process (&r, (const guint8 *) (in + 2), 1, y2 + 2, ab2 + 2);
  co_aref_process (&r, (const guint8 *) (in + 4), 3, y2 + 4, ab2 + 4);
  for (i = 0; i < 10; i++)
    fail_unless (y2[i] == y[i], "split stream differs at sample %u", i);
  co_aref_clear (&r);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Correctness                                                               */
/* ------------------------------------------------------------------------ */

/* __i__ = (format, channels, taps); two engine configurations each (all
 * seven with CO_TEST_FULL=1). */
GST_START_TEST (test_fir_streams)
{
  guint32 seed = co_test_seed ("test_fir_streams", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint fmt = __i__ / (N_CHANNELS * N_TAPSETS);
  guint ch = channel_set[(__i__ / N_TAPSETS) % N_CHANNELS];
  guint nt = taps_set[__i__ % N_TAPSETS];
  Sig s = { fmt == 1, ch, TRUE, nt, NULL, 0.0 };
  /* multiply-adds of one stream (reference and CPU backend each) */
  const guint64 budget_macs = 40000000;
  /* and samples (memory traffic: input, output, reference) */
  const guint64 budget_samples = 3000000;
  guint64 frames = MIN (budget_macs / ((guint64) ch * nt),
      budget_samples / ch);
  gsize max_frames = MIN (frames / 3 + 1, 1 << 20);
  guint r;

  s.taps = co_sig_random_taps (rand, nt, s.s16);
  for (r = 0; r < CO_TEST_N_RUNS; r++) {
    GArray *sizes;

    if (!co_test_full_matrix && r != __i__ % CO_TEST_N_RUNS
        && r != (__i__ + 3) % CO_TEST_N_RUNS)
      continue;
    sizes = random_sizes (rand, frames, max_frames, nt - 1, 60);
    run_stream (&s, &co_test_run_cfgs[r], sizes, rand, seed, NULL);
    g_array_unref (sizes);
  }
  g_free (s.taps);
  g_rand_free (rand);
}

GST_END_TEST;

/* Buffers of a million frames and more, mixed with tiny ones: the slots
 * grow (the engine is rebuilt between buffers) and the history carries
 * on.  The staged variants: the same with every input staged (copied into
 * page-locked memory by a few threads; a -Dfault-injection hook on the
 * CPU backend, the harness's large buffers on CUDA): the history of the
 * next buffer is read from the copy, so it must be complete first.  F32
 * runs with 3 x 5 streams and chunks, S16 with 8 x 5. */
static const struct
{
  const gchar *name;
  gboolean s16;
  gboolean staged;
} large_variants[] = {
  {.name = "f32-fir-64",.s16 = FALSE},
  {.name = "s16-fir-255",.s16 = TRUE},
  {.name = "f32-fir-64-staged",.s16 = FALSE,.staged = TRUE},
  {.name = "s16-fir-255-staged",.s16 = TRUE,.staged = TRUE},
};

/* What large_variants[@i] needs that this build may lack */
static const gchar *
large_variant_missing (guint i)
{
  /* the CPU backend stages only what the hook forces */
  if (large_variants[i].staged && !g_str_equal (co_test_backend, "cuda"))
    return co_test_hook_missing ("co_test_set_force_staging");
  return NULL;
}

GST_START_TEST (test_fir_large_buffers)
{
  guint32 seed = co_test_seed ("test_fir_large_buffers", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const gboolean s16 = large_variants[__i__].s16;
  CoTestSetFlag force = large_variants[__i__].staged ?
      co_test_plugin_symbol ("co_test_set_force_staging") : NULL;
  static const gsize f32_sizes[] = { 1 << 20, 1, 999999, 7, 300000,
    (1 << 20) + 3, 2, 5000
  };
  static const gsize s16_sizes[] = { 3, 250000, 1, 700, 1 << 20, 1022, 1023 };
  Sig s = { s16, s16 ? 3 : 2, TRUE, s16 ? 255 : 64, NULL, 0.0 };
  const gsize *v = s16 ? s16_sizes : f32_sizes;
  guint n = s16 ? G_N_ELEMENTS (s16_sizes) : G_N_ELEMENTS (f32_sizes);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (gsize));

  co_test_print_variant ("test_fir_large_buffers", __i__,
      large_variants[__i__].name);
  g_array_append_vals (sizes, v, n);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  if (force)
    force (TRUE);
  run_stream (&s, &co_test_run_cfgs[s16 ? 5 : 3], sizes, rand, seed, NULL);
  if (force)
    force (FALSE);
  g_array_unref (sizes);
  g_free (s.taps);
  g_rand_free (rand);
}

GST_END_TEST;

/* Gain in both formats: within the bound, exact at 0 dB, exact where S16
 * saturates. */
GST_START_TEST (test_gain)
{
  static const gdouble gains[] = { 0.0, 6.0206, -3.5, -120.0, 60.0, 0.1 };
  guint32 seed = co_test_seed ("test_gain", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { __i__ % 2 == 1, __i__ / 2 % 2 ? 7 : 2, FALSE, 1, NULL,
    gains[__i__ / 4]
  };
  GArray *sizes = random_sizes (rand, 200000, 60000, 0, 30);
  GByteArray *out = NULL;
  gsize i;

  run_stream (&s, &co_test_run_cfgs[__i__ % CO_TEST_N_RUNS], sizes, rand, seed,
      &out);
  if (s.gain_db == 0.0) {
    /* the output is the input: regenerate it with the same seed */
    GRand *again = g_rand_new_with_seed (seed);
    GArray *sz = random_sizes (again, 200000, 60000, 0, 30);
    GByteArray *in = g_byte_array_new ();

    for (i = 0; i < sz->len; i++) {
      gsize f = g_array_index (sz, gsize, i);
      gsize b = f * co_sig_bpf (&s);
      guint8 *tmp = g_malloc (b);

      fill_signal (again, &s, tmp, f);
      g_byte_array_append (in, tmp, b);
      g_free (tmp);
    }
    fail_unless_equals_int (in->len, out->len);
    fail_unless (memcmp (in->data, out->data, in->len) == 0,
        "gain-db=0 changed samples [%s %uch seed=0x%08x]", s.s16 ? "S16LE" :
        "F32LE", s.channels, seed);
    g_byte_array_unref (in);
    g_array_unref (sz);
    g_rand_free (again);
  }
  if (s.s16 && s.gain_db >= 60.0) {
    /* x * 1000 saturates for |x| >= 33 */
    gint16 *o = (gint16 *) out->data;
    guint sat = 0;

    for (i = 0; i < out->len / 2; i++)
      if (o[i] == 32767 || o[i] == -32768)
        sat++;
    fail_unless (sat > out->len / 2 * 9 / 10, "S16 +60 dB: only %u of %u "
        "samples saturated", sat, out->len / 2);
  }
  g_byte_array_unref (out);
  g_array_unref (sizes);
  g_rand_free (rand);
}

GST_END_TEST;

/* gain-db driven by a GstController: a linear ramp through 0 dB (where
 * the element passes buffers through) up to +6 dB.  Every buffer must come
 * out with the gain the control source gives for its stream time (its
 * PTS here). */
#define GAIN_BUFFERS 14
#define GAIN_FRAMES 2400

GST_START_TEST (test_gain_controlled)
{
  guint32 seed = co_test_seed ("test_gain_controlled", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const GstClockTime dur = gst_util_uint64_scale_int (GAIN_FRAMES,
      GST_SECOND, RATE);
  Sig sigs[GAIN_BUFFERS];
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE (cs);
  GstHarness *h;
  Stream st;
  guint i;
  gchar *ctx;

  for (i = 0; i < GAIN_BUFFERS; i++)
    sigs[i] = (Sig) {
    __i__ == 1, __i__ == 1 ? 2 : 3, FALSE, 1, NULL, -9.0};
  ctx = g_strdup_printf ("[gain-db controlled, %s backend=%s seed=0x%08x]",
      __i__ == 1 ? "S16LE 2ch" : "F32LE 3ch", co_test_backend, seed);
  h = make_harness (&sigs[0], &co_test_run_cfgs[__i__ % CO_TEST_N_RUNS]);
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  /* -9 dB at the first buffer, 0 dB at the seventh, +6 dB at the last */
  gst_timed_value_control_source_set (tv, 0, -9.0);
  gst_timed_value_control_source_set (tv, 6 * dur, 0.0);
  gst_timed_value_control_source_set (tv, (GAIN_BUFFERS - 1) * dur, 6.0);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "gain-db", cs)));
  stream_init (&st, h, &sigs[0], rand, ctx);
  for (i = 0; i < GAIN_BUFFERS; i++) {
    fail_unless (gst_control_source_get_value (cs, st.pts, &sigs[i].gain_db),
        "%s: no control value at buffer %u", ctx, i);
    stream_set_sig (&st, &sigs[i]);
    stream_push (&st, GAIN_FRAMES, FALSE);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  stream_pull_all (&st);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  co_aref_check_stream_error (&sigs[0], &st.se, ctx);
  stream_clear (&st);
  gst_harness_teardown (h);
  gst_object_unref (cs);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean s16;
  guint channels, n_taps;
} agree_variants[] = {
  {.name = "f32-3ch-fir-1023",.s16 = FALSE,.channels = 3,.n_taps = 1023},
  {.name = "s16-7ch-fir-64",.s16 = TRUE,.channels = 7,.n_taps = 64},
};

/* The same stream through every engine configuration: identical bytes
 * (the per-sample sum order does not depend on chunking), and right. */
GST_START_TEST (test_configs_agree)
{
  guint32 seed = co_test_seed ("test_configs_agree", __i__);
  Sig s = { agree_variants[__i__].s16, agree_variants[__i__].channels, TRUE,
    agree_variants[__i__].n_taps, NULL, 0.0
  };
  GByteArray *ref_out = NULL;
  guint r;

  co_test_print_variant ("test_configs_agree", __i__,
      agree_variants[__i__].name);
  for (r = 0; r < CO_TEST_N_RUNS; r++) {
    GRand *rand = g_rand_new_with_seed (seed);
    GArray *sizes;
    GByteArray *out = NULL;

    s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
    sizes = random_sizes (rand, 60000, 20000, s.n_taps - 1, 40);
    run_stream (&s, &co_test_run_cfgs[r], sizes, rand, seed, &out);
    if (!ref_out) {
      ref_out = out;
    } else {
      gchar *rd = co_test_run_desc (&co_test_run_cfgs[r]);
      fail_unless_equals_int (out->len, ref_out->len);
      fail_unless (memcmp (out->data, ref_out->data, out->len) == 0,
          "[configs agree, %s seed=0x%08x] %s differs from %s", rd, seed,
          rd, "streams=1 chunks=1");
      g_free (rd);
      g_byte_array_unref (out);
    }
    g_free (s.taps);
    g_array_unref (sizes);
    g_rand_free (rand);
  }
  g_byte_array_unref (ref_out);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Errors and properties                                                     */
/* ------------------------------------------------------------------------ */

static const struct
{
  const gchar *name;
  gboolean s16;
} malformed_variants[] = {
  {.name = "f32",.s16 = FALSE},
  {.name = "s16",.s16 = TRUE},
};

/* A buffer that is not a whole number of frames: an error naming sizes. */
GST_START_TEST (test_malformed_buffer)
{
  guint32 seed = co_test_seed ("test_malformed_buffer", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { malformed_variants[__i__].s16, 3, TRUE, 5, NULL, 0.0 };
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  Stream st;
  GstBuffer *in;
  GstMessage *msg;
  GstFlowReturn ret;
  gsize bpf = co_sig_bpf (&s), bad = 10 * bpf + 1;
  gchar *text, *bs, *fs;

  co_test_print_variant ("test_malformed_buffer", __i__,
      malformed_variants[__i__].name);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  h = make_harness (&s, &co_test_run_cfgs[3]);
  gst_element_set_bus (h->element, bus);
  stream_init (&st, h, &s, rand, "[malformed]");
  stream_push (&st, 100, FALSE);
  stream_pull_all (&st);

  in = gst_buffer_new_allocate (NULL, bad, NULL);
  gst_buffer_memset (in, 0, 0, bad);
  ret = gst_harness_push (h, in);
  fail_unless (ret == GST_FLOW_ERROR, "push of %" G_GSIZE_FORMAT " bytes "
      "(frames of %" G_GSIZE_FORMAT ") returned %s", bad, bpf,
      gst_flow_get_name (ret));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no ERROR message on the bus");
  text = co_test_error_text (msg);
  bs = g_strdup_printf ("%" G_GSIZE_FORMAT, bad);
  fs = g_strdup_printf ("%" G_GSIZE_FORMAT, bpf);
  fail_unless (strstr (text, bs) && strstr (text, fs), "the error does not "
      "name the buffer size %s and the frame size %s: \"%s\"", bs, fs, text);
  g_free (text);
  g_free (bs);
  g_free (fs);
  gst_message_unref (msg);

  stream_clear (&st);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (s.taps);
  g_rand_free (rand);
}

GST_END_TEST;

static void
check_taps (GstElement * e, const gdouble * want, guint n, const gchar * ctx)
{
  co_test_check_doubles (G_OBJECT (e), "taps", want, n, ctx);
}

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make (CO_TEST_AUDIO_ELEMENT, NULL);
  GstElement *pipe;
  GstPadTemplate *tmpl;
  GstCaps *caps;
  GError *err = NULL;
  gdouble one = 1.0, gdb;
  static const gdouble t3[] = { 0.25, 0.5, 0.25 };
  static const gdouble ti[] = { 1, 0, -2 };
  gdouble *many;
  guint k;

  fail_unless (e != NULL);
  g_object_get (e, "gain-db", &gdb, NULL);
  fail_unless (gdb == 0.0);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "fir");
  g_object_get (e, "operation", &k, NULL);
  fail_unless_equals_int (k, 1);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "gain");
  g_object_get (e, "operation", &k, NULL);
  fail_unless_equals_int (k, 0);
  check_taps (e, &one, 1, "default");

  /* as gst-launch sets it */
  gst_util_set_object_arg (G_OBJECT (e), "taps", "<0.25, 0.5, 0.25>");
  check_taps (e, t3, 3, "<0.25, 0.5, 0.25>");
  gst_util_set_object_arg (G_OBJECT (e), "taps", "<1, 0, -2>");
  check_taps (e, ti, 3, "<1, 0, -2> (integers)");

  /* 4096 taps are fine, 4097 and 0 are refused (with a warning) */
  many = g_new (gdouble, 4097);
  for (k = 0; k < 4097; k++)
    many[k] = k;
  set_taps (e, many, 4096);
  check_taps (e, many, 4096, "4096 taps");
  ASSERT_WARNING (set_taps (e, many, 4097));
  check_taps (e, many, 4096, "after 4097 taps");
  ASSERT_WARNING (set_taps (e, many, 0));
  check_taps (e, many, 4096, "after 0 taps");
  g_free (many);
  gst_object_unref (e);

  /* caps: F32LE and S16LE, interleaved, 1 to 64 channels */
  e = gst_element_factory_make (CO_TEST_AUDIO_ELEMENT, NULL);
  tmpl = gst_element_get_pad_template (e, "sink");
  caps = gst_caps_from_string ("audio/x-raw, format=F32LE, rate=2400000, "
      "channels=64, layout=interleaved");
  fail_unless (gst_caps_can_intersect (caps, gst_pad_template_get_caps (tmpl)));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("audio/x-raw, format=S16LE, rate=8000, "
      "channels=1, layout=interleaved");
  fail_unless (gst_caps_can_intersect (caps, gst_pad_template_get_caps (tmpl)));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("audio/x-raw, format=F32LE, rate=8000, "
      "channels=65, layout=interleaved");
  fail_if (gst_caps_can_intersect (caps, gst_pad_template_get_caps (tmpl)));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("audio/x-raw, format=S16LE, rate=8000, "
      "channels=2, layout=non-interleaved");
  fail_if (gst_caps_can_intersect (caps, gst_pad_template_get_caps (tmpl)));
  gst_caps_unref (caps);
  gst_object_unref (e);

  /* a launch line */
  pipe = gst_parse_launch (CO_TEST_AUDIO_ELEMENT " name=f operation=fir "
      "taps=\"<0.25, 0.5, 0.25>\"", &err);
  fail_unless (pipe != NULL && err == NULL, "parse: %s",
      err ? err->message : "");
  e = GST_IS_BIN (pipe) ? gst_bin_get_by_name (GST_BIN (pipe), "f") :
      gst_object_ref (pipe);
  check_taps (e, t3, 3, "launch line");
  g_object_get (e, "operation", &k, NULL);
  fail_unless_equals_int (k, 1);
  gst_object_unref (e);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A whole pipeline: audiotestsrc through the element to EOS. */
/* A pipeline, with the automatic settings (the defaults): the passport
 * says so and, once the first buffers were measured, why, from the
 * buffers' size (3000 S16 stereo frames: 12000 bytes). */
GST_START_TEST (test_pipeline)
{
  gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=60 "
      "samplesperbuffer=3000 wave=white-noise ! audio/x-raw,format=S16LE,"
      "channels=2 ! " CO_TEST_AUDIO_ELEMENT
      " name=f operation=fir taps=\"<0.25, 0.5, "
      "0.25>\" backend=%s ! fakesink", co_test_backend);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err), *f;
  GstStructure *pp = NULL;
  gboolean is_auto = FALSE;
  GstBus *bus;
  GstMessage *msg;

  /* the suite adds this test only where audiotestsrc exists */
  fail_unless (gst_registry_check_feature_version (gst_registry_get (),
          "audiotestsrc", 1, 0, 0), "no audiotestsrc");
  fail_unless (pipe != NULL, "parse: %s", err ? err->message : "");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within 60 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *t = co_test_error_text (msg);
    fail ("pipeline error: %s", t);
    g_free (t);
  }
  gst_message_unref (msg);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  g_object_get (f, "passport", &pp, NULL);
  fail_unless (pp && gst_structure_get_boolean (pp, "auto", &is_auto) &&
      is_auto, "%" GST_PTR_FORMAT, pp);
  fail_unless (strstr (gst_structure_get_string (pp, "auto-reason"),
          "measured 30 frames of 12000 bytes"), "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  gst_object_unref (f);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
audio_ops_suite (void)
{
  Suite *s = suite_create (CO_TEST_AUDIO_ELEMENT "-ops");
  TCase *tc;
  guint i;

  tc = co_test_new_tcase (s, "reference", leaks_teardown);
  tcase_add_test (tc, test_reference_self_check);

  tc = co_test_new_tcase (s, "properties", leaks_teardown);
  tcase_add_test (tc, test_properties);
  /* audiotestsrc: where GST_PLUGIN_PATH has the system plugins */
  co_test_add_if (tc, test_pipeline,
      gst_registry_check_feature_version (gst_registry_get (), "audiotestsrc",
          1, 0, 0) ? NULL : "no audiotestsrc (the system plugins are not on "
      "GST_PLUGIN_PATH)");

  tc = co_test_new_tcase (s, "correctness", leaks_teardown);
  tcase_add_loop_test (tc, test_fir_streams, 0, 2 * N_CHANNELS * N_TAPSETS);
  for (i = 0; i < G_N_ELEMENTS (large_variants); i++)
    co_test_add_variant (tc, test_fir_large_buffers, i,
        large_variants[i].name, large_variant_missing (i));
  tcase_add_loop_test (tc, test_gain, 0, 24);
  tcase_add_loop_test (tc, test_gain_controlled, 0, 2);
  tcase_add_loop_test (tc, test_configs_agree, 0,
      G_N_ELEMENTS (agree_variants));

  tc = co_test_new_tcase (s, "errors", leaks_teardown);
  tcase_add_loop_test (tc, test_malformed_buffer, 0,
      G_N_ELEMENTS (malformed_variants));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_audio_main (argc, argv, "audio-ops", audio_ops_suite);
}
