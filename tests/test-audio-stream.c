/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudaaudiofilter, the stream: DISCONT and flushes that
 * reset the history, EOS with buffers in flight, taps, gain and caps changed
 * mid-stream, state changes, the LATENCY query, metas, passthrough and QoS.
 * The reference, the set-up and the environment are co-test-audio.h's.
 */

#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "co-test-audio.h"

/* ------------------------------------------------------------------------ */
/* Stream events                                                             */
/* ------------------------------------------------------------------------ */

static const struct
{
  const gchar *name;
  gboolean s16;
  guint run;                    /* co_test_run_cfgs[] */
} discont_variants[] = {
  {.name = "f32-overlap-8x5",.s16 = FALSE,.run = 5},
  {.name = "s16-overlap-8x5",.s16 = TRUE,.run = 5},
  {.name = "f32-serial",.s16 = FALSE,.run = 6},
  {.name = "s16-serial",.s16 = TRUE,.run = 6},
};

/* DISCONT buffers restart the filter (zero history); others continue. */
GST_START_TEST (test_discont_resets)
{
  guint32 seed = co_test_seed ("test_discont_resets", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { discont_variants[__i__].s16, 2, TRUE, 64, NULL, 0.0 };
  const RunCfg *run = &co_test_run_cfgs[discont_variants[__i__].run];
  GstHarness *h;
  Stream st;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx;
  /* frames, DISCONT? */
  static const struct
  {
    gsize n;
    gboolean d;
  } seq[] = {
    {5000, FALSE}, {3000, TRUE}, {1, FALSE}, {10, TRUE}, {1, TRUE},
    {2, FALSE}, {700, FALSE}, {40000, TRUE}, {63, FALSE}, {20, TRUE},
    {9000, FALSE},
  };
  guint i;

  co_test_print_variant ("test_discont_resets", __i__,
      discont_variants[__i__].name);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  h = make_harness (&s, run);
  ctx = g_strdup_printf ("[discont, %s 2ch fir taps=64 %s backend=%s "
      "seed=0x%08x]", s.s16 ? "S16LE" : "F32LE", rd, co_test_backend, seed);
  stream_init (&st, h, &s, rand, ctx);
  for (i = 0; i < G_N_ELEMENTS (seq); i++)
    stream_push (&st, seq[i].n, seq[i].d);
  stream_pull_all (&st);
  co_aref_check_stream_error (&s, &st.se, ctx);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (s.taps);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* buffers, flush (some in flight), more buffers: the history is reset;
 * every buffer pushed after the flush comes out, in order, right; those
 * before it come out right or not at all.  One variant per engine
 * configuration. */
static const struct
{
  const gchar *name;
  guint run;                    /* co_test_run_cfgs[] */
} flush_variants[] = {
  {.name = "overlap-3x5",.run = 3},
  {.name = "overlap-8x5",.run = 5},
  {.name = "overlap-1x1",.run = 0},
  {.name = "serial",.run = 6},
};

GST_START_TEST (test_flush_resets)
{
  guint32 seed = co_test_seed ("test_flush_resets", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { FALSE, 64, TRUE, 1023, NULL, 0.0 };
  const RunCfg *run = &co_test_run_cfgs[flush_variants[__i__].run];
  GstHarness *h;
  Stream st;
  GstSegment seg;
  gchar *rd = co_test_run_desc (run), *ctx;
  guint round, i;

  co_test_print_variant ("test_flush_resets", __i__,
      flush_variants[__i__].name);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  h = make_harness (&s, run);
  ctx = g_strdup_printf ("[flush, F32LE 64ch fir taps=1023 %s backend=%s "
      "seed=0x%08x]", rd, co_test_backend, seed);
  stream_init (&st, h, &s, rand, ctx);
  st.window = 100;              /* nothing is pulled before the flush */

  for (round = 0; round < 3; round++) {
    guint64 first_after;
    GstBuffer *out;

    /* heavy enough (64 x 1023 x 1000 multiply-adds) to be in flight */
    for (i = 0; i < 4; i++)
      stream_push (&st, 1000 + g_rand_int_range (rand, 0, 100), FALSE);
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

    /* what came out before the flush must be right */
    while ((out = gst_harness_try_pull (h))) {
      Expected *x = g_queue_pop_head (&st.pending);

      while (x && x->offset != GST_BUFFER_OFFSET (out)) {
        expected_free (x);
        x = g_queue_pop_head (&st.pending);
      }
      fail_unless (x != NULL, "%s: output with offset %" G_GUINT64_FORMAT
          " is not one of the buffers pushed before the flush", ctx,
          GST_BUFFER_OFFSET (out));
      check_buffer (&st, out, x);
      expected_free (x);
      gst_buffer_unref (out);
    }
    g_queue_clear_full (&st.pending, (GDestroyNotify) expected_free);

    stream_ref_reset (&st);
    first_after = st.next_offset;
    for (i = 0; i < 3; i++)
      stream_push (&st, g_rand_int_range (rand, 1, 3000), FALSE);
    stream_pull_all (&st);
    fail_unless (st.next_offset == first_after + 3);
    out = gst_harness_try_pull (h);
    fail_unless (out == NULL, "%s: an extra buffer, offset %" G_GUINT64_FORMAT,
        ctx, out ? GST_BUFFER_OFFSET (out) : 0);
  }
  co_aref_check_stream_error (&s, &st.se, ctx);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (s.taps);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* EOS while buffers are in flight: they all come out, before the EOS, with
 * their inputs' lengths (no tail).  The variants: format, engine
 * configuration. */
static const struct
{
  const gchar *name;
  gboolean s16;
  guint run;                    /* co_test_run_cfgs[] */
} eos_variants[] = {
  {.name = "f32-overlap-8x5",.s16 = FALSE,.run = 5},
  {.name = "s16-serial",.s16 = TRUE,.run = 6},
  {.name = "f32-overlap-1x1",.s16 = FALSE,.run = 0},
};

GST_START_TEST (test_eos_in_flight)
{
  guint32 seed = co_test_seed ("test_eos_in_flight", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { eos_variants[__i__].s16, 7, TRUE, 1023, NULL, 0.0 };
  const RunCfg *run = &co_test_run_cfgs[eos_variants[__i__].run];
  GstHarness *h;
  Stream st;
  gchar *rd = co_test_run_desc (run), *ctx;
  GstEvent *ev;
  gboolean eos = FALSE;
  guint i, n = 4;

  co_test_print_variant ("test_eos_in_flight", __i__, eos_variants[__i__].name);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  h = make_harness (&s, run);
  ctx = g_strdup_printf ("[eos in flight, %s 7ch fir taps=1023 %s "
      "backend=%s seed=0x%08x]", s.s16 ? "S16LE" : "F32LE", rd, co_test_backend,
      seed);
  stream_init (&st, h, &s, rand, ctx);
  st.window = 100;
  for (i = 0; i < n; i++)
    stream_push (&st, i == 2 ? 1 : 6000, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* the EOS left the element after every buffer */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
      eos = TRUE;
    gst_event_unref (ev);
  }
  fail_unless (eos, "%s: no EOS at the harness", ctx);
  stream_pull_all (&st);
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: a tail buffer after "
      "the last one", ctx);
  co_aref_check_stream_error (&s, &st.se, ctx);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (s.taps);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  guint run;                    /* co_test_run_cfgs[] */
} taps_variants[] = {
  {.name = "overlap-8x5",.run = 5},
  {.name = "serial",.run = 6},
};

/* Taps changed while buffers are in flight: the buffers pushed before use
 * the old taps and history, those after the new taps from zero history.
 * Setting the same taps again changes nothing; operation changes reset. */
GST_START_TEST (test_taps_change)
{
  guint32 seed = co_test_seed ("test_taps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const RunCfg *run = &co_test_run_cfgs[taps_variants[__i__].run];
  Sig a = { FALSE, 3, TRUE, 64, NULL, 0.0 };
  Sig b = { FALSE, 3, TRUE, 1023, NULL, 0.0 };
  Sig c = { FALSE, 3, TRUE, 1023, NULL, 0.0 };
  Sig g = { FALSE, 3, FALSE, 1, NULL, -6.0 };
  GstHarness *h;
  Stream st;
  gchar *rd = co_test_run_desc (run), *ctx;
  guint i;

  co_test_print_variant ("test_taps_change", __i__, taps_variants[__i__].name);
  a.taps = co_sig_random_taps (rand, a.n_taps, FALSE);
  b.taps = co_sig_random_taps (rand, b.n_taps, FALSE);
  c.taps = co_sig_random_taps (rand, c.n_taps, FALSE);
  h = make_harness (&a, run);
  ctx = g_strdup_printf ("[taps change, F32LE 3ch %s backend=%s "
      "seed=0x%08x]", rd, co_test_backend, seed);
  stream_init (&st, h, &a, rand, ctx);

  for (i = 0; i < 4; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 5000), FALSE);
  /* the same taps again: no reset, no change */
  set_taps (h->element, a.taps, a.n_taps);
  for (i = 0; i < 3; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 100), FALSE);

  /* new taps with buffers in flight */
  set_taps (h->element, b.taps, b.n_taps);
  stream_set_sig (&st, &b);
  for (i = 0; i < 4; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 3000), FALSE);

  /* other taps of the same length (the same halo): a reset all the same */
  set_taps (h->element, c.taps, c.n_taps);
  stream_set_sig (&st, &c);
  for (i = 0; i < 3; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 3000), FALSE);
  set_taps (h->element, b.taps, b.n_taps);
  stream_set_sig (&st, &b);

  /* to gain and back to fir (b): both reset */
  g_object_set (h->element, "gain-db", g.gain_db, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "gain");
  stream_set_sig (&st, &g);
  for (i = 0; i < 3; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 3000), FALSE);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "fir");
  stream_set_sig (&st, &b);
  for (i = 0; i < 3; i++)
    stream_push (&st, g_rand_int_range (rand, 1, 3000), FALSE);

  stream_pull_all (&st);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (a.taps);
  g_free (b.taps);
  g_free (c.taps);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* gain-db changes at run time take effect with the next buffer, without a
 * rebuild and without touching a FIR history. */
GST_START_TEST (test_gain_change)
{
  guint32 seed = co_test_seed ("test_gain_change", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig g1 = { TRUE, 2, FALSE, 1, NULL, -6.0 };
  Sig g2 = { TRUE, 2, FALSE, 1, NULL, 12.0 };
  GstHarness *h = make_harness (&g1, &co_test_run_cfgs[3]);
  Stream st;
  gchar *ctx = g_strdup_printf ("[gain change, S16LE 2ch backend=%s "
      "seed=0x%08x]", co_test_backend, seed);

  stream_init (&st, h, &g1, rand, ctx);
  st.window = 0;
  stream_push (&st, 3000, FALSE);
  g_object_set (h->element, "gain-db", g2.gain_db, NULL);
  stream_set_sig (&st, &g2);
  stream_push (&st, 3000, FALSE);
  stream_pull_all (&st);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean fir;                 /* F32 FIR taps=<1>, else S16 gain 0 dB */
} passthrough_variants[] = {
  {.name = "s16-gain-0-db",.fir = FALSE},
  {.name = "f32-fir-one-tap",.fir = TRUE},
};

/* Identity settings (gain 0 dB, a one-tap FIR of 1): every input buffer
 * itself comes out, and the statistics count it as passed through. */
GST_START_TEST (test_passthrough)
{
  guint32 seed = co_test_seed ("test_passthrough", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  gdouble one = 1.0;
  const gboolean fir = passthrough_variants[__i__].fir;
  Sig sig = { !fir, 3, fir, 1, &one, 0.0 };
  GstHarness *h = make_harness (&sig, &co_test_run_cfgs[3]);
  GstStructure *st = NULL;
  guint64 frames_pt = 0;
  gboolean pt = FALSE;
  guint i;
  const guint n = 5;
  gchar *ctx = g_strdup_printf ("[passthrough, %s, backend=%s seed=0x%08x]",
      fir ? "F32LE fir taps=<1>" : "S16LE gain-db=0", co_test_backend,
      seed);

  co_test_print_variant ("test_passthrough", __i__,
      passthrough_variants[__i__].name);
  for (i = 0; i < n; i++) {
    gsize frames = 1 + g_rand_int_range (rand, 0, 5000);
    GstBuffer *in = gst_buffer_new_allocate (NULL, frames * co_sig_bpf (&sig),
        NULL), *out;
    GstMapInfo map;

    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    fill_signal (rand, &sig, map.data, frames);
    gst_buffer_unmap (in, &map);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = co_test_pull_buffer (h, ctx);
    fail_unless (out == in, "%s: buffer %u: a new buffer came out", ctx, i);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get (st, "passthrough", G_TYPE_BOOLEAN, &pt,
          "frames-passthrough", G_TYPE_UINT64, &frames_pt, NULL));
  fail_unless (pt, "%s: passthrough not said", ctx);
  fail_unless_equals_uint64 (frames_pt, n);
  gst_structure_free (st);
  gst_harness_teardown (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Into and out of passthrough with buffers in flight: gain -6, 0 (through),
 * +12 dB; FIR of 64 taps, one tap of 1 (through), 64 taps again (a new
 * filter: its history starts from zeros, as for any taps change).  Every
 * output in order and right. */
GST_START_TEST (test_passthrough_switch)
{
  guint32 seed = co_test_seed ("test_passthrough_switch", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const gboolean fir = passthrough_variants[__i__].fir;
  gdouble one = 1.0;
  Sig a = { !fir, 2, fir, fir ? 64 : 1, NULL, -6.0 };
  Sig b = { !fir, 2, fir, 1, &one, 0.0 };
  Sig c = { !fir, 2, fir, fir ? 64 : 1, NULL, 12.0 };
  GstHarness *h;
  Stream st;
  const Sig *seq[] = { &a, &b, &c };
  guint i, k;
  gchar *ctx = g_strdup_printf ("[passthrough switches, %s, backend=%s "
      "seed=0x%08x]", fir ? "F32LE fir" : "S16LE gain", co_test_backend,
      seed);

  co_test_print_variant ("test_passthrough_switch", __i__,
      passthrough_variants[__i__].name);
  if (fir) {
    a.taps = co_sig_random_taps (rand, 64, FALSE);
    c.taps = co_sig_random_taps (rand, 64, FALSE);
  }
  h = make_harness (&a, &co_test_run_cfgs[3]);
  stream_init (&st, h, &a, rand, ctx);
  st.window = 16;
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    if (i > 0) {
      configure_sig (h->element, seq[i]);
      stream_set_sig (&st, seq[i]);
    }
    for (k = 0; k < 4; k++)
      stream_push (&st, 1 + g_rand_int_range (rand, 0, 3000), FALSE);
  }
  stream_pull_all (&st);
  co_aref_check_stream_error (&a, &st.se, ctx);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (a.taps);
  g_free (c.taps);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* qos is off by default; turned on, a buffer that a QOS event says is late
 * is dropped, and the next one restarts the FIR history from zeros and
 * carries DISCONT. */
GST_START_TEST (test_qos)
{
  guint32 seed = co_test_seed ("test_qos", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig sig = { FALSE, 2, TRUE, 64, NULL, 0.0 };
  GstHarness *h;
  Stream st;
  GstBuffer *late, *out;
  GstMessage *m;
  GstBus *bus = gst_bus_new ();
  gboolean enabled = TRUE;
  gchar *ctx = g_strdup_printf ("[QoS, F32LE 2ch fir taps=64, backend=%s "
      "seed=0x%08x]", co_test_backend, seed);

  sig.taps = co_sig_random_taps (rand, sig.n_taps, FALSE);
  h = make_harness (&sig, &co_test_run_cfgs[3]);
  g_object_get (h->element, "qos", &enabled, NULL);
  fail_unless (!enabled, "%s: qos is on by default", ctx);
  g_object_set (h->element, "qos", TRUE, NULL);
  gst_element_set_bus (h->element, bus);
  stream_init (&st, h, &sig, rand, ctx);
  st.window = 8;
  stream_push (&st, 2000, FALSE);
  stream_push (&st, 2000, FALSE);
  stream_pull_all (&st);

  /* downstream: everything up to this buffer's start is late */
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.5, 0, st.pts)));
  late = gst_buffer_new_allocate (NULL, 1000 * co_sig_bpf (&sig), NULL);
  gst_buffer_memset (late, 0, 0x3f, gst_buffer_get_size (late));
  GST_BUFFER_PTS (late) = st.pts;
  GST_BUFFER_OFFSET (late) = st.next_offset++;
  st.pts += gst_util_uint64_scale_int (1000, GST_SECOND, RATE);
  fail_unless_equals_int (gst_harness_push (h, late), GST_FLOW_OK);
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: the late buffer came "
      "out", ctx);
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS);
  fail_unless (m != NULL, "%s: no QOS message", ctx);
  gst_message_unref (m);

  /* the next one: a discontinuity, history from zeros */
  stream_ref_reset (&st);
  st.window = 8;
  stream_push (&st, 3000, FALSE);
  out = co_test_pull_buffer (h, ctx);
  fail_unless (GST_BUFFER_FLAG_IS_SET (out, GST_BUFFER_FLAG_DISCONT),
      "%s: no DISCONT after a dropped buffer", ctx);
  check_buffer (&st, out, g_queue_peek_head (&st.pending));
  expected_free (g_queue_pop_head (&st.pending));
  gst_buffer_unref (out);
  co_aref_check_stream_error (&sig, &st.se, ctx);
  stream_clear (&st);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_free (sig.taps);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The variants: engine configuration, every output pulled before the caps
 * change (else left in flight across it) */
static const struct
{
  const gchar *name;
  guint run;                    /* co_test_run_cfgs[] */
  gboolean drained;
} caps_variants[] = {
  {.name = "overlap-3x5-drained",.run = 3,.drained = TRUE},
  {.name = "serial-in-flight",.run = 6,.drained = FALSE},
};

/* New caps mid-stream: a new format, the history starts from zero. */
GST_START_TEST (test_caps_change)
{
  guint32 seed = co_test_seed ("test_caps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const RunCfg *run = &co_test_run_cfgs[caps_variants[__i__].run];
  gdouble *taps = co_sig_random_taps (rand, 33, TRUE);
  Sig sigs[5] = {
    {FALSE, 2, TRUE, 33, taps, 0.0},
    {TRUE, 3, TRUE, 33, taps, 0.0},
    {TRUE, 3, TRUE, 33, taps, 0.0},     /* same caps again: continues */
    {FALSE, 2, TRUE, 33, taps, 0.0},
    {FALSE, 2, TRUE, 33, taps, 0.0},    /* only the rate changes: resets */
  };
  static const gint rates[5] = { RATE, RATE, RATE, RATE, 44100 };
  GstHarness *h = make_harness (&sigs[0], run);
  Stream st;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[caps change, fir taps=33 %s backend=%s "
      "seed=0x%08x]", rd, co_test_backend, seed);
  guint stage, i;

  co_test_print_variant ("test_caps_change", __i__, caps_variants[__i__].name);
  stream_init (&st, h, &sigs[0], rand, ctx);
  for (stage = 0; stage < G_N_ELEMENTS (sigs); stage++) {
    if (stage > 0) {
      gchar *caps = caps_str_rate (&sigs[stage], rates[stage]);

      if (stage != 2)
        stream_set_sig (&st, &sigs[stage]);
      else
        st.sig = &sigs[stage];  /* identical: the reference continues */
      if (caps_variants[__i__].drained)
        stream_pull_all (&st);
      gst_harness_set_src_caps_str (h, caps);
      g_free (caps);
    }
    for (i = 0; i < 3; i++)
      stream_push (&st, g_rand_int_range (rand, 1, 2000), FALSE);
  }
  stream_pull_all (&st);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (taps);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* READY and back: a new stream with zero history. */
GST_START_TEST (test_state_cycle)
{
  guint32 seed = co_test_seed ("test_state_cycle", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { FALSE, 2, TRUE, 17, NULL, 0.0 };
  GstHarness *h;
  Stream st;
  gchar *ctx = g_strdup_printf ("[state cycle, F32LE 2ch fir taps=17 "
      "backend=%s seed=0x%08x]", co_test_backend, seed);
  guint cycle;

  s.taps = co_sig_random_taps (rand, s.n_taps, FALSE);
  h = make_harness (&s, &co_test_run_cfgs[3]);
  stream_init (&st, h, &s, rand, ctx);
  for (cycle = 0; cycle < 3; cycle++) {
    if (cycle > 0) {
      gchar *caps = caps_str (&s), *sid = g_strdup_printf ("cycle-%u", cycle);

      stream_pull_all (&st);
      fail_unless_equals_int (gst_element_set_state (h->element,
              cycle == 1 ? GST_STATE_READY : GST_STATE_NULL),
          GST_STATE_CHANGE_SUCCESS);
      fail_unless_equals_int (gst_element_set_state (h->element,
              GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_stream_start (sid)));
      gst_harness_set_src_caps_str (h, caps);
      stream_ref_reset (&st);
      g_free (caps);
      g_free (sid);
    }
    stream_push (&st, 1000, FALSE);
    stream_push (&st, 5, FALSE);
  }
  stream_pull_all (&st);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (s.taps);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_latency_query)
{
  Sig s = { FALSE, 2, FALSE, 1, NULL, 0.0 };
  GstHarness *h = make_harness (&s, &co_test_run_cfgs[3]);
  GRand *rand = g_rand_new_with_seed (1);
  Stream st;
  GstQuery *q;
  gboolean live;
  GstClockTime min, max;

  stream_init (&st, h, &s, rand, "[latency]");
  stream_push (&st, RATE / 100, FALSE); /* 10 ms */
  stream_pull_all (&st);
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q), "latency query failed");
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (min >= 10 * GST_MSECOND, "latency %" GST_TIME_FORMAT
      " lost upstream's 10 ms", GST_TIME_ARGS (min));
  /* up to max-in-flight buffers of 10 ms are held */
  if (GST_CLOCK_TIME_IS_VALID (max))
    fail_unless (max >= 10 * GST_MSECOND + 4 * 10 * GST_MSECOND,
        "maximum latency %" GST_TIME_FORMAT " misses the buffers in flight",
        GST_TIME_ARGS (max));
  gst_query_unref (q);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Metas                                                                     */
/* ------------------------------------------------------------------------ */

/* Every meta without tags, or tagged only audio/channels/rate, reaches the
 * output of its own input; the input's GstAudioMeta (the element's pool
 * sets the output's layout, if anything), metas bound to its memory and
 * metas tagged otherwise do not (co-test-meta.h has the ones both elements
 * share).  Inputs with offset % 3 == 1 carry none but a GstAudioMeta. */
#define RATE_META "CoTestRateMeta"
#define VIDEO_TAGGED_META "CoTestVideoTaggedMeta"

typedef struct
{
  GPtrArray *outputs;           /* compared only, never dereferenced */
  guint reused;
} MetaLog;

static gint64
meta_index (guint64 offset)
{
  return offset % 3 == 1 ? -1 : (gint64) offset;
}

static void
register_audio_metas (void)
{
  static const gchar *rate[] = { GST_META_TAG_AUDIO_STR,
    GST_META_TAG_AUDIO_RATE_STR, NULL
  };
  static const gchar *video[] = { "video", NULL };

  co_test_custom_meta (RATE_META, rate);
  co_test_custom_meta (VIDEO_TAGGED_META, video);
}

static void
add_audio_metas (Stream * st, GstBuffer * in, guint64 offset)
{
  GstAudioInfo info;

  register_audio_metas ();
  gst_audio_info_set_format (&info, st->sig->s16 ? GST_AUDIO_FORMAT_S16LE :
      GST_AUDIO_FORMAT_F32LE, RATE, st->sig->channels, NULL);
  gst_buffer_add_audio_meta (in, &info, gst_buffer_get_size (in) /
      GST_AUDIO_INFO_BPF (&info), NULL);
  if (meta_index (offset) < 0)
    return;
  co_test_add_common_metas (in, offset);
  gst_buffer_add_audio_clipping_meta (in, GST_FORMAT_DEFAULT, offset,
      offset + 1);
  co_test_add_custom_meta (in, RATE_META, offset);
  co_test_add_custom_meta (in, VIDEO_TAGGED_META, offset);
}

static void
check_audio_metas (Stream * st, GstBuffer * out, guint64 offset)
{
  gint64 index = meta_index (offset);
  GstAudioClippingMeta *clip = gst_buffer_get_audio_clipping_meta (out);
  MetaLog *log = st->user_data;

  register_audio_metas ();
  co_test_check_common_metas (out, index, st->ctx);
  co_test_check_own_meta (out, GST_AUDIO_META_API_TYPE, st->ctx);
  co_test_check_meta_count (out, GST_AUDIO_CLIPPING_META_API_TYPE,
      index >= 0, st->ctx);
  fail_unless (!clip || (clip->format == GST_FORMAT_DEFAULT
          && clip->start == offset && clip->end == offset + 1),
      "%s: the clipping of another input on buffer %" G_GUINT64_FORMAT,
      st->ctx, offset);
  co_test_check_custom_meta (out, RATE_META, index, st->ctx);
  co_test_check_custom_meta (out, VIDEO_TAGGED_META, -1, st->ctx);
  if (g_ptr_array_find (log->outputs, out, NULL))
    log->reused++;
  else
    g_ptr_array_add (log->outputs, out);
}

static const struct
{
  const gchar *name;
  gboolean s16;
  guint channels;
  gboolean fir;                 /* FIR taps=17, else gain -6 dB */
  guint run;                    /* co_test_run_cfgs[] */
} metas_variants[] = {
  {.name = "f32-2ch-gain-overlap",.s16 = FALSE,.channels = 2,.run = 3},
  {.name = "s16-2ch-gain-serial",.s16 = TRUE,.channels = 2,.run = 6},
  {.name = "f32-7ch-fir-overlap",.s16 = FALSE,.channels = 7,.fir = TRUE,
      .run = 3},
  {.name = "s16-7ch-fir-serial",.s16 = TRUE,.channels = 7,.fir = TRUE,
      .run = 6},
};

/* 40 buffers of random sizes; their outputs go back to the element's pool
 * and come out again (a reused buffer carries no stale copy either). */
GST_START_TEST (test_metas_survive)
{
  guint32 seed = co_test_seed ("test_metas_survive", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { metas_variants[__i__].s16, metas_variants[__i__].channels,
    metas_variants[__i__].fir, 17, NULL, -6.0
  };
  const RunCfg *run = &co_test_run_cfgs[metas_variants[__i__].run];
  MetaLog log = { g_ptr_array_new (), 0 };
  GArray *sizes;
  GstHarness *h;
  Stream st;
  gchar *sd, *rd, *ctx;
  guint i;

  co_test_print_variant ("test_metas_survive", __i__,
      metas_variants[__i__].name);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  sizes = random_sizes (rand, 40000, 4000, s.n_taps - 1, 40);
  sd = co_sig_desc (&s);
  rd = co_test_run_desc (run);
  ctx = g_strdup_printf ("[metas, %s %s backend=%s seed=0x%08x]", sd, rd,
      co_test_backend, seed);
  h = make_harness (&s, run);
  stream_init (&st, h, &s, rand, ctx);
  st.on_push = add_audio_metas;
  st.on_pull = check_audio_metas;
  st.user_data = &log;
  for (i = 0; i < sizes->len; i++)
    stream_push (&st, g_array_index (sizes, gsize, i), FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  stream_pull_all (&st);
  fail_unless (log.reused > 0, "%s: no output buffer came back from the "
      "pool in %u buffers", ctx, sizes->len);

  stream_clear (&st);
  gst_harness_teardown (h);
  g_ptr_array_unref (log.outputs);
  g_array_unref (sizes);
  g_free (s.taps);
  g_free (ctx);
  g_free (sd);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
audio_stream_suite (void)
{
  Suite *s = suite_create (CO_TEST_AUDIO_ELEMENT "-stream");
  TCase *tc;

  tc = co_test_new_tcase (s, "stream", leaks_teardown);
  tcase_add_loop_test (tc, test_discont_resets, 0,
      G_N_ELEMENTS (discont_variants));
  tcase_add_loop_test (tc, test_flush_resets, 0, G_N_ELEMENTS (flush_variants));
  tcase_add_loop_test (tc, test_eos_in_flight, 0, G_N_ELEMENTS (eos_variants));
  tcase_add_loop_test (tc, test_taps_change, 0, G_N_ELEMENTS (taps_variants));
  tcase_add_test (tc, test_gain_change);
  tcase_add_loop_test (tc, test_caps_change, 0, G_N_ELEMENTS (caps_variants));
  tcase_add_test (tc, test_state_cycle);
  tcase_add_test (tc, test_latency_query);
  tcase_add_loop_test (tc, test_metas_survive, 0,
      G_N_ELEMENTS (metas_variants));

  tc = co_test_new_tcase (s, "citizen", leaks_teardown);
  tcase_add_loop_test (tc, test_passthrough, 0,
      G_N_ELEMENTS (passthrough_variants));
  tcase_add_loop_test (tc, test_passthrough_switch, 0,
      G_N_ELEMENTS (passthrough_variants));
  tcase_add_test (tc, test_qos);

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_audio_main (argc, argv, "audio-stream", audio_stream_suite);
}
