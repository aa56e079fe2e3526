/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, negotiation and the element among
 * others: caps (interlaced, huge, changed mid-stream), the LATENCY query,
 * passthrough, QoS and RECONFIGURE. Outputs are compared with the
 * independent reference in co-reference.c; the set-up and the environment
 * are co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define RUNNING_ON_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNING_ON_SANITIZER 1
#endif
#endif
#ifndef RUNNING_ON_SANITIZER
#define RUNNING_ON_SANITIZER 0
#endif

#include "co-test-video.h"

/* Caps the element cannot take end in a caps refusal and an element error
 * that says why and what to do: box-blur on interlaced video (its window
 * would mix the fields), and frames too large for the memory (under an
 * address-space limit on the CPU backend: the pools fail to allocate, no
 * abort).  invert and gamma take interlaced video (per pixel). */
static gchar *
caps_error (GstHarness * h, GstBus * bus, GstCaps * caps)
{
  GstMessage *msg;
  gchar *text = NULL;

  fail_if (gst_pad_push_event (h->srcpad, gst_event_new_stream_start ("s")) ==
      FALSE);
  /* a sticky event: stored (TRUE) whatever the element said; the element's
   * answer is its error message */
  gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no ERROR message for %" GST_PTR_FORMAT, caps);
  text = co_test_error_text (msg);
  gst_message_unref (msg);
  gst_caps_unref (caps);
  return text;
}

static const struct
{
  const gchar *name;
  guint op;                     /* op_cfgs[] */
} interlaced_variants[] = {
  {.name = "box-blur",.op = 6},
  {.name = "invert",.op = 0},
  {.name = "gamma",.op = 2},
};

GST_START_TEST (test_interlaced)
{
  guint32 seed = co_test_seed ("test_interlaced", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[interlaced_variants[__i__].op];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstBus *bus = gst_bus_new ();
  GstCaps *caps;
  gchar *ctx = g_strdup_printf ("[interlaced, %s, backend=%s seed=0x%08x]",
      co_ref_op_nick (op->op), co_test_backend, seed);
  guint i;

  co_test_print_variant ("test_interlaced", __i__,
      interlaced_variants[__i__].name);
  gst_element_set_bus (h->element, bus);
  gst_video_info_set_interlaced_format (&info, GST_VIDEO_FORMAT_I420,
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED, 161, 94);
  caps = gst_video_info_to_caps (&info);
  if (op->op == CO_REF_BOX_BLUR) {
    gchar *text = caps_error (h, bus, caps);

    fail_unless (strstr (text, "interlace") && strstr (text, "deinterlace"),
        "%s: the error does not say why and what to do: \"%s\"", ctx, text);
    g_free (text);
  } else {
    gst_harness_set_src_caps (h, caps);
    for (i = 0; i < 3; i++) {
      push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
          &pending, ctx);
      pull_and_check (h, &info, &pending, ctx);
    }
  }
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_huge_caps)
{
  const OpCfg *op = &op_cfgs[0];
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
  struct rlimit old, lim;
  gchar *text;

  if (g_str_equal (co_test_backend, "cuda") || RUNNING_ON_SANITIZER) {
    /* an address-space limit breaks CUDA (and ASan) */
    g_print ("test_huge_caps: CPU backend without sanitizer only\n");
    return;
  }
  h = make_harness (op, &co_test_run_cfgs[3]);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 20000, 20000);
  fail_unless (getrlimit (RLIMIT_AS, &old) == 0);
  lim = old;
  lim.rlim_cur = (rlim_t) 4 << 30;      /* 4 GiB: 2.5 frames of 1.6 GB */
  fail_unless (setrlimit (RLIMIT_AS, &lim) == 0);
  text = caps_error (h, bus, gst_video_info_to_caps (&info));
  fail_unless (setrlimit (RLIMIT_AS, &old) == 0);
  fail_unless (strstr (text, "1600000000") && strstr (text, "allocate"),
      "the error does not name the frame size and what failed: \"%s\"", text);
  g_free (text);
  teardown_harness_with_bus (h, bus);
}

GST_END_TEST;

/* The variants of test_caps_change: operation, frames pulled as they
 * come, batches of 2 (every caps change finds a partial one to send) */
static const struct
{
  const gchar *name;
  guint op;                     /* op_cfgs[] */
  gboolean interleave;
  guint batch;
} caps_variants[] = {
  {.name = "blur",.op = 6,.batch = 1},
  {.name = "gamma-interleaved",.op = 2,.interleave = TRUE,.batch = 1},
  {.name = "gamma-batch-2",.op = 2,.batch = 2},
};

GST_START_TEST (test_caps_change)
{
  guint32 seed = co_test_seed ("test_caps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[caps_variants[__i__].op];
  static const struct
  {
    GstVideoFormat f;
    guint w, h;
  } stages[] = {
    {GST_VIDEO_FORMAT_RGBA, 64, 48},
    {GST_VIDEO_FORMAT_I420, 33, 17},
    {GST_VIDEO_FORMAT_GRAY8, 100, 3},
    {GST_VIDEO_FORMAT_GRAY16_LE, 65, 31},
    {GST_VIDEO_FORMAT_NV12, 66, 30},
    {GST_VIDEO_FORMAT_NV12, 3, 5},
    {GST_VIDEO_FORMAT_RGBA, 64, 48},
  };
  const guint n_stages = G_N_ELEMENTS (stages), per = 3;
  GstVideoInfo info[G_N_ELEMENTS (stages)];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  Recorder *rec = recorder_attach (h);
  GQueue pending[G_N_ELEMENTS (stages)];
  gboolean interleave = caps_variants[__i__].interleave;
  guint batch = caps_variants[__i__].batch;
  gchar *ctx;
  guint s, i, j, n_caps = 0, n_buf = 0;
  gchar *dump;

  co_test_print_variant ("test_caps_change", __i__, caps_variants[__i__].name);
  g_object_set (h->element, "batch", batch, NULL);
  for (s = 0; s < n_stages; s++) {
    g_queue_init (&pending[s]);
    ctx = g_strdup_printf ("[caps change, stage %u %s %ux%u backend=%s%s "
        "batch=%u seed=0x%08x]", s, gst_video_format_to_string (stages[s].f),
        stages[s].w, stages[s].h, co_test_backend, interleave ? " interleaved" :
        "", batch, seed);
    gst_harness_set_src_caps (h, caps_of (stages[s].f, stages[s].w,
            stages[s].h, &info[s]));
    for (i = 0; i < per; i++) {
      push_frame (h, rand, &info[s], op, &layout_default,
          (s * per + i) * GST_SECOND, &pending[s], ctx);
      if (interleave)
        pull_and_check (h, &info[s], &pending[s], ctx);
    }
    if (interleave)
      check_output_caps (h, &info[s], ctx);
    g_free (ctx);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  if (!interleave) {
    for (s = 0; s < n_stages; s++) {
      ctx = g_strdup_printf ("[caps change, stage %u %s %ux%u backend=%s "
          "seed=0x%08x]", s, gst_video_format_to_string (stages[s].f),
          stages[s].w, stages[s].h, co_test_backend, seed);
      for (i = 0; i < per; i++)
        pull_and_check (h, &info[s], &pending[s], ctx);
      g_free (ctx);
    }
  }

  /* Sequence downstream: caps(s), its buffers, caps(s+1), ... */
  dump = recorder_dump (rec);
  g_mutex_lock (&rec->lock);
  s = 0;
  for (j = 0; j < rec->items->len; j++) {
    const gchar *it = g_ptr_array_index (rec->items, j);
    if (g_str_has_prefix (it, "E caps ")) {
      GstCaps *got = gst_caps_from_string (it + 7);
      GstCaps *want = gst_video_info_to_caps (&info[n_caps]);
      fail_unless (n_buf == n_caps * per, "caps %u sent after %u buffers: "
          "%s", n_caps, n_buf, dump);
      fail_unless (gst_caps_is_equal (got, want), "caps %u: got %s: %s",
          n_caps, it + 7, dump);
      gst_caps_unref (got);
      gst_caps_unref (want);
      n_caps++;
    } else if (it[0] == 'B') {
      fail_unless (n_caps == n_buf / per + 1, "buffer %u under caps %u: %s",
          n_buf, n_caps - 1, dump);
      n_buf++;
    }
  }
  g_mutex_unlock (&rec->lock);
  /* the last stage has the caps of the first: a repeated caps event may
   * be dropped by the pad as unchanged, but not here (changed before) */
  fail_unless_equals_int (n_caps, n_stages);
  fail_unless_equals_int (n_buf, n_stages * per);
  g_free (dump);

  teardown_harness (h);
  recorder_free (rec);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_latency_query)
{
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  GstVideoInfo info;
  GstClockTime lat;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 32, 32, &info));
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  lat = gst_harness_query_latency (h);
  fail_unless (GST_CLOCK_TIME_IS_VALID (lat), "latency query failed");
  fail_unless (lat >= 10 * GST_MSECOND, "latency %" GST_TIME_FORMAT
      " lost upstream's 10 ms", GST_TIME_ARGS (lat));
  fail_unless_equals_uint64 (lat, 10 * GST_MSECOND);
  teardown_harness (h);

  /* batch=4 at 30 frames/s: a frame may wait for 3 more, each within the
   * batch timeout of the one before (the batch goes without them then) */
  h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  g_object_set (h->element, "batch", 4, NULL);
  gst_harness_set_src_caps (h, gst_caps_new_simple ("video/x-raw", "format",
          G_TYPE_STRING, "RGBA", "width", G_TYPE_INT, 32, "height",
          G_TYPE_INT, 32, "framerate", GST_TYPE_FRACTION, 30, 1, NULL));
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  /* the engine (and the batch in effect) exists once a buffer went in */
  {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 32 * 32 * 4, NULL);

    gst_buffer_memset (in, 0, 0x5a, 32 * 32 * 4);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  /* each of the 3 may come up to the batch timeout after the one before:
   * min (one frame duration, 20 ms) = 20 ms at 30 frames/s */
  lat = gst_harness_query_latency (h);
  fail_unless_equals_uint64 (lat, 10 * GST_MSECOND + 3 * 20 * GST_MSECOND);
  teardown_harness (h);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* A good citizen: passthrough, QoS, one whole-run message                   */
/* ------------------------------------------------------------------------ */

/* The whole-run statistics messages on @bus (and no window message when
 * @windows is FALSE); returns the last one, or NULL. */
static GstStructure *
pop_whole_run (GstBus * bus, gboolean windows, guint * n_whole)
{
  GstStructure *last = NULL;
  GstMessage *m;

  *n_whole = 0;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *st = gst_message_get_structure (m);

    if (gst_structure_has_name (st, "cudaoverlap-stats")) {
      gboolean whole = FALSE;

      gst_structure_get_boolean (st, "whole-run", &whole);
      fail_unless (whole || windows, "a window message with "
          "stats-interval=0: %" GST_PTR_FORMAT, st);
      if (whole) {
        (*n_whole)++;
        if (last)
          gst_structure_free (last);
        last = gst_structure_copy (st);
      }
    }
    gst_message_unref (m);
  }
  return last;
}

/* gamma 1.0 and box-blur radius 0 are identities */
static const struct
{
  const gchar *name;
  guint op, batch;              /* op_cfgs[] */
} passthrough_variants[] = {
  {.name = "gamma-1",.op = 3,.batch = 1},
  {.name = "box-blur-radius-0",.op = 4,.batch = 1},
  {.name = "gamma-1-batch-3",.op = 3,.batch = 3},
};

/* Identity settings (gamma 1, box-blur radius 0; batch 1 and 3): every
 * input buffer itself comes out (no copy, no kernel), the statistics say
 * passthrough and count the frames, and with stats-interval=0 one
 * whole-run message arrives at EOS, no window message. */
GST_START_TEST (test_passthrough)
{
  guint32 seed = co_test_seed ("test_passthrough", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[passthrough_variants[__i__].op];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstStructure *st;
  gboolean pt = FALSE;
  guint64 frames = 0, frames_pt = 0;
  guint i, n_whole;
  const guint n = 7;
  gchar *ctx = g_strdup_printf ("[passthrough, %s batch=%u, RGBA 33x17 "
      "backend=%s seed=0x%08x]", co_ref_op_nick (op->op),
      passthrough_variants[__i__].batch,
      co_test_backend, seed);

  co_test_print_variant ("test_passthrough", __i__,
      passthrough_variants[__i__].name);
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "batch", passthrough_variants[__i__].batch,
      "stats-interval", (guint64) 0, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 33, 17, &info));
  for (i = 0; i < n; i++) {
    GstBuffer *in = make_input (rand, &info, &layout_default), *out;
    GstMapInfo mi, mo;

    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = co_test_pull_buffer (h, ctx);
    fail_unless (out == in, "%s: frame %u: a new buffer came out, not the "
        "input", ctx, i);
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
    fail_unless (mi.data == mo.data && mi.size == mo.size);
    gst_buffer_unmap (in, &mi);
    gst_buffer_unmap (out, &mo);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = pop_whole_run (bus, FALSE, &n_whole);
  fail_unless_equals_int (n_whole, 1);
  fail_unless (gst_structure_get (st, "passthrough", G_TYPE_BOOLEAN, &pt,
          "frames", G_TYPE_UINT64, &frames, "frames-passthrough",
          G_TYPE_UINT64, &frames_pt, NULL), "%s: %" GST_PTR_FORMAT, ctx, st);
  fail_unless (pt, "%s: passthrough not said", ctx);
  fail_unless_equals_uint64 (frames, n);
  fail_unless_equals_uint64 (frames_pt, n);
  gst_structure_free (st);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  guint batch;
} switch_variants[] = {
  {.name = "batch-1",.batch = 1},
  {.name = "batch-3",.batch = 3},
};

/* Into and out of passthrough while frames are in flight (nothing pulled
 * until the end; batch 1 and 3, the switch falling mid-batch): every
 * output in order and computed with the settings in effect when its input
 * entered; the identity ones are the input buffers themselves. */
GST_START_TEST (test_passthrough_switch)
{
  static const guint seq[] = { 2, 2, 3, 3, 3, 1, 1, 4, 4, 6, 3, 0, 0, 0 };
  const guint batch = switch_variants[__i__].batch;
  guint32 seed = co_test_seed ("test_passthrough_switch", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  GstHarness *h = make_harness (&op_cfgs[2], &co_test_run_cfgs[3]);
  GstVideoInfo info;
  GstBuffer *ins[G_N_ELEMENTS (seq)], *exp[G_N_ELEMENTS (seq)];
  guint i;
  gchar *ctx = g_strdup_printf ("[passthrough switches, batch=%u, I420 "
      "75x41 backend=%s seed=0x%08x]", batch, co_test_backend, seed);

  co_test_print_variant ("test_passthrough_switch", __i__,
      switch_variants[__i__].name);
  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];

    gst_util_set_object_arg (G_OBJECT (h->element), "operation",
        co_ref_op_nick (op->op));
    g_object_set (h->element, "gamma", op->gamma, "radius", op->radius, NULL);
    ins[i] = make_input (rand, &info, &layout_default);
    exp[i] = make_expected (op, ins[i], &info);
    GST_BUFFER_PTS (ins[i]) = GST_BUFFER_PTS (exp[i]) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (ins[i])),
        GST_FLOW_OK);
  }
  /* the last partial batch goes at EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];
    gboolean identity = (op->op == CO_REF_GAMMA && op->gamma == 1.0) ||
        (op->op == CO_REF_BOX_BLUR && op->radius == 0);
    gchar *c = g_strdup_printf ("%s, frame %u (%s)", ctx, i,
        co_ref_op_nick (op->op));
    GstBuffer *out = co_test_pull_buffer (h, c);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp[i]));
    fail_unless (!identity || out == ins[i], "%s: not passed through", c);
    fail_unless (identity || out != ins[i], "%s: passed through", c);
    check_output (out, exp[i], &info, c);
    gst_buffer_unref (out);
    gst_buffer_unref (ins[i]);
    gst_buffer_unref (exp[i]);
    g_free (c);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean qos;
  gboolean identity;            /* gamma 1.0: passthrough */
} qos_variants[] = {
  {.name = "qos-on",.qos = TRUE},
  {.name = "qos-off",.qos = FALSE},
  {.name = "qos-on-passthrough",.qos = TRUE,.identity = TRUE},
};

/* QoS (qos=true by default): frames whose running time is at or before
 * the earliest time of downstream's last QOS event are dropped, each with
 * a QOS message (processed/dropped counts), and the next frame that goes
 * on carries DISCONT; passthrough frames are dropped the same way.  With
 * qos=false nothing is dropped. */
GST_START_TEST (test_qos)
{
  const gboolean qos = qos_variants[__i__].qos;
  const gboolean identity = qos_variants[__i__].identity;
  guint32 seed = co_test_seed ("test_qos", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[identity ? 3 : 0];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstSegment seg;
  GstMessage *m;
  gboolean enabled = FALSE;
  guint i, n_msgs = 0;
  /* 30 fps; downstream says: 1 s late at 1 s (earliest: 2 s) */
  static const GstClockTime pts[] = { 0, 1000, 1500, 2000, 2500, 3000 };
  gchar *ctx = g_strdup_printf ("[QoS, qos=%d, %s, NV12 161x93 backend=%s "
      "seed=0x%08x]", qos, co_ref_op_nick (op->op), co_test_backend, seed);

  co_test_print_variant ("test_qos", __i__, qos_variants[__i__].name);
  g_object_get (h->element, "qos", &enabled, NULL);
  fail_unless (enabled, "%s: qos is not on by default", ctx);
  g_object_set (h->element, "qos", qos, NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_NV12, 161, 93, &info));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = 0;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 0; i < G_N_ELEMENTS (pts); i++) {
    GstClockTime t = pts[i] * GST_MSECOND;
    gboolean late = qos && t > 0 && t <= 2 * GST_SECOND;

    if (i == 1)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.8, GST_SECOND,
                  GST_SECOND)));
    if (late) {
      GstBuffer *in = make_input (rand, &info, &layout_default);

      GST_BUFFER_PTS (in) = t;
      GST_BUFFER_DURATION (in) = GST_SECOND / 30;
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    } else {
      push_frame (h, rand, &info, op, &layout_default, t, &pending, ctx);
    }
  }
  while (g_queue_get_length (&pending) > 0) {
    GstBuffer *exp = g_queue_peek_head (&pending), *out;
    GstClockTime t = GST_BUFFER_PTS (exp);

    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), t);
    /* the first frame after the dropped ones */
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (out,
            GST_BUFFER_FLAG_DISCONT), qos && t == 2500 * GST_MSECOND);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (g_queue_pop_head (&pending));
  }
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: more outputs", ctx);

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS))) {
    guint64 processed, dropped;
    GstFormat fmt;

    gst_message_parse_qos_stats (m, &fmt, &processed, &dropped);
    n_msgs++;
    fail_unless_equals_int (fmt, GST_FORMAT_BUFFERS);
    fail_unless_equals_uint64 (dropped, n_msgs);
    fail_unless_equals_uint64 (processed, 1);
    gst_message_unref (m);
  }
  fail_unless_equals_int (n_msgs, qos ? 3 : 0);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* A RECONFIGURE from downstream (it may take other caps now) makes the
 * element decide its output caps again before the next frame: with the
 * same answer (system memory here) nothing is sent again, nothing is
 * rebuilt, and frames go on right. */
GST_START_TEST (test_reconfigure)
{
  guint32 seed = co_test_seed ("test_reconfigure", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[2];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstEvent *ev;
  guint i, caps_events = 0;
  gchar *ctx = g_strdup_printf ("[reconfigure, gamma, I420 75x41 backend=%s "
      "seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < 6; i++) {
    if (i == 2 || i == 4)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_reconfigure ()));
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
    pull_and_check (h, &info, &pending, ctx);
  }
  while ((ev = gst_harness_try_pull_event (h))) {
    caps_events += GST_EVENT_TYPE (ev) == GST_EVENT_CAPS;
    gst_event_unref (ev);
  }
  fail_unless_equals_int (caps_events, 1);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  gboolean qos;
} slow_sink_variants[] = {
  {.name = "qos-on",.qos = TRUE},
  {.name = "qos-off",.qos = FALSE},
};

/* QoS as a pipeline meets it: a sink that syncs to the clock behind a
 * stage that takes longer than a frame (identity sleep-time) sends QOS
 * events; with qos on, the element drops frames and says so (QOS messages
 * from it, fewer frames at the sink); with qos off it drops none. */
GST_START_TEST (test_qos_slow_sink)
{
  const gboolean qos = slow_sink_variants[__i__].qos;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=40 ! "
      "video/x-raw,format=GRAY8,width=65,height=33,framerate=50/1 ! "
      "cudavideofilter name=f backend=%s qos=%d ! identity sleep-time=40000 ! "
      "fakesink name=sink sync=true qos=true", co_test_backend, qos);
  GstElement *pipe = gst_parse_launch (desc, NULL), *f, *sink;
  GstBus *bus;
  GstMessage *m;
  guint64 rendered = 0, from_f = 0;

  co_test_print_variant ("test_qos_slow_sink", __i__,
      slow_sink_variants[__i__].name);
  fail_unless (pipe != NULL, "cannot make %s", desc);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_QOS))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);

    if (t == GST_MESSAGE_QOS && GST_MESSAGE_SRC (m) == GST_OBJECT (f))
      from_f++;
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS)
      break;
    fail_if (t == GST_MESSAGE_ERROR, "%s: error", desc);
  }
  g_object_get (sink, "stats", &m, NULL);
  gst_structure_get_uint64 ((GstStructure *) m, "rendered", &rendered);
  gst_structure_free ((GstStructure *) m);
  GST_INFO ("qos=%d: %" G_GUINT64_FORMAT " QOS messages from the element, %"
      G_GUINT64_FORMAT " frames rendered", qos, from_f, rendered);
  if (qos) {
    fail_unless (from_f > 0, "%s: the element dropped nothing", desc);
    fail_unless (rendered + from_f <= 40);
  } else {
    fail_unless_equals_uint64 (from_f, 0);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_negotiation_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-negotiation");
  TCase *tc;

  tc = co_test_new_tcase (s, "caps", leaks_teardown);
  tcase_add_loop_test (tc, test_interlaced, 0,
      G_N_ELEMENTS (interlaced_variants));
  tcase_add_test (tc, test_huge_caps);
  tcase_add_loop_test (tc, test_caps_change, 0, G_N_ELEMENTS (caps_variants));
  tcase_add_test (tc, test_latency_query);

  tc = co_test_new_tcase (s, "citizen", leaks_teardown);
  tcase_add_loop_test (tc, test_passthrough, 0,
      G_N_ELEMENTS (passthrough_variants));
  tcase_add_loop_test (tc, test_passthrough_switch, 0,
      G_N_ELEMENTS (switch_variants));
  tcase_add_loop_test (tc, test_qos, 0, G_N_ELEMENTS (qos_variants));
  tcase_add_loop_test (tc, test_qos_slow_sink, 0,
      G_N_ELEMENTS (slow_sink_variants));
  tcase_add_test (tc, test_reconfigure);

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-negotiation",
      video_negotiation_suite);
}
