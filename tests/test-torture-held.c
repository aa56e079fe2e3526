/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Torture suite of cudavideofilter and cudaaudiofilter, downstream that
 * holds buffers, and changes racing the flow:
 *   test_held_harness          a GstHarness: 40 buffers pushed before any
 *                              is pulled, then all pulled (video, audio)
 *   test_held_lastn            a sink that keeps the last 12 or 30 buffers,
 *                              to EOS (video, audio)
 *   test_held_tee              a tee branch not pulled for a while: the
 *                              other branch must run on
 *   test_props_vs_seeks        property changes racing flushing seeks
 *   test_caps_renegotiation    capsfilter caps changed every few frames,
 *                              with flushing seeks
 *
 * Every scenario is one test function (GST_CHECKS=test_NAME runs one
 * alone) and runs many times with random timing from several threads; the
 * checker, the watchdog and the environment are co-test-torture.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>

#include "co-test-torture.h"

/* a) downstream that holds buffers                                          */
/* ------------------------------------------------------------------------ */


typedef struct
{
  GstHarness *h;
  GRand *rand;
  gboolean audio;
  gsize size;
  guint n;
  gint pushed;
  GstFlowReturn last;
  gint slot;
  gint done;
} HPusher;

static gpointer
hpusher_main (gpointer data)
{
  HPusher *p = data;
  guint i;

  for (i = 0; i < p->n; i++) {
    act_set (p->slot, "pusher: in gst_harness_push #%u of %u (nothing "
        "pulled yet)", i + 1, p->n);
    p->last = gst_harness_push (p->h, random_input (p->rand, p->audio,
            p->size, i));
    if (p->last != GST_FLOW_OK)
      break;
    g_atomic_int_inc (&p->pushed);
  }
  act_set (p->slot, "pusher: done after %d pushes (%s)",
      g_atomic_int_get (&p->pushed), gst_flow_get_name (p->last));
  g_atomic_int_set (&p->done, 1);
  return NULL;
}

/* The variants of test_held_harness */
static const struct
{
  const gchar *name;
  gboolean audio;
} harness_variants[] = {
  {.name = "video",.audio = FALSE},
  {.name = "audio",.audio = TRUE},
};

/* GstHarness: push 40 buffers without pulling, then pull them all. */
GST_START_TEST (test_held_harness)
{
  Case *cs = case_begin ("test_held_harness", __i__);
  gboolean audio = harness_variants[__i__].audio;
  guint run, runs = 2 * torture_scale;

  co_test_print_variant ("test_held_harness", __i__,
      harness_variants[__i__].name);

  for (run = 0; run < runs && !case_failed (cs); run++) {
    const guint n = 40;
    GstElement *e = co_test_make_element (audio ? "cudaaudiofilter" :
        "cudavideofilter");
    GstHarness *h;
    HPusher hp = { 0, };
    GThread *t;
    Checker *k;
    GstCaps *caps;
    gchar *ctx, *sum, *props, *caps_str;
    gint before = 0;
    gint64 last_t;
    guint got = 0, slot = act_slot ();
    GstBuffer *b;

    if (audio) {
      guint ch = g_rand_int_range (cs->rand, 1, 4);
      guint ns = g_rand_int_range (cs->rand, 64, 1500);
      props = g_strdup_printf ("gain-db=%.3f streams=%u chunks=%u "
          "max-in-flight=%u", g_rand_double_range (cs->rand, -12, 6),
          g_rand_int_range (cs->rand, 1, 5), g_rand_int_range (cs->rand, 1,
              5), g_rand_int_range (cs->rand, 0, 9));
      caps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING,
          "F32LE", "rate", G_TYPE_INT, 48000, "channels", G_TYPE_INT, ch,
          "layout", G_TYPE_STRING, "interleaved", NULL);
      hp.size = (gsize) ns *ch * sizeof (gfloat);
    } else {
      gchar *cs_str = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
      GstVideoInfo info;
      props = random_video_props (cs->rand);
      caps = gst_caps_from_string (cs_str);
      gst_video_info_from_caps (&info, caps);
      hp.size = GST_VIDEO_INFO_SIZE (&info);
      g_free (cs_str);
    }
    {
      /* apply the gst-launch style settings */
      gchar **kv = g_strsplit (props, " ", -1), **it;
      for (it = kv; *it; it++) {
        gchar **pv = g_strsplit (*it, "=", 2);
        gst_util_set_object_arg (G_OBJECT (e), pv[0], pv[1]);
        g_strfreev (pv);
      }
      g_strfreev (kv);
    }
    caps_str = gst_caps_to_string (caps);
    ctx = g_strdup_printf ("[%s run %u: harness, %u buffers pushed before "
        "any is pulled, then EOS; %s %s]", audio ? "cudaaudiofilter" :
        "cudavideofilter", run, n, caps_str, props);
    g_free (caps_str);
    wd_phase (PHASE_S, "%s", ctx);
    h = gst_harness_new_with_element (e, "sink", "src");
    k = checker_new (cs, ctx, e, audio);
    gst_harness_set_src_caps (h, caps);

    hp.h = h;
    hp.rand = g_rand_new_with_seed (g_rand_int (cs->rand));
    hp.audio = audio;
    hp.n = n;
    hp.slot = slot;
    t = g_thread_new ("pusher", hpusher_main, &hp);
    /* the pusher must get through all 40 without anyone pulling */
    last_t = g_get_monotonic_time ();
    while (g_atomic_int_get (&hp.pushed) < (gint) n && hp.last == GST_FLOW_OK) {
      gint now_pushed = g_atomic_int_get (&hp.pushed);
      if (now_pushed != before) {
        before = now_pushed;
        last_t = g_get_monotonic_time ();
      } else if (g_get_monotonic_time () - last_t > STALL_S *
          G_TIME_SPAN_SECOND) {
        case_error (cs, "%s: push #%d blocked for %u s while the harness "
            "held %u outputs (never pulled): the element blocks when "
            "downstream holds its buffers", ctx, before + 1, STALL_S,
            gst_harness_buffers_in_queue (h));
        break;
      }
      g_usleep (10 * 1000);
    }
    /* pull everything (this also frees a blocked pusher); the partial
     * batch goes at EOS */
    last_t = g_get_monotonic_time ();
    while (got < n) {
      if (g_atomic_int_get (&hp.done) == 1) {
        act_set (slot, "main: pushing EOS after the %u buffers", n);
        gst_harness_push_event (h, gst_event_new_eos ());
        g_atomic_int_set (&hp.done, 2);
      }
      if ((b = gst_harness_try_pull (h))) {
        gst_buffer_unref (b);
        got++;
        last_t = g_get_monotonic_time ();
      } else if (g_get_monotonic_time () - last_t > STALL_S *
          G_TIME_SPAN_SECOND) {
        break;
      } else {
        g_usleep (1000);
      }
    }
    g_thread_join (t);
    if (hp.last != GST_FLOW_OK)
      case_error (cs, "%s: push returned %s", ctx, gst_flow_get_name (hp.last));
    wd_phase (PHASE_S, "%s: teardown", ctx);
    checker_expect_all (k, n);
    if (got != n)
      case_error (cs, "%s: pulled %u of %u", ctx, got, n);
    gst_harness_teardown (h);
    gst_object_unref (e);
    sum = checker_summary (k);
    g_print ("  run %u: %s\n", run, sum);
    g_free (sum);
    checker_free (k);
    g_rand_free (hp.rand);
    g_free (ctx);
    g_free (props);
  }
  case_end (cs);
}

GST_END_TEST;

/* The variants of test_held_lastn: video or audio, how many buffers the
 * sink keeps */
static const struct
{
  const gchar *name;
  gboolean audio;
  guint hold;
} lastn_variants[] = {
  {.name = "video-keep-12",.audio = FALSE,.hold = 12},
  {.name = "video-keep-30",.audio = FALSE,.hold = 30},
  {.name = "audio-keep-12",.audio = TRUE,.hold = 12},
  {.name = "audio-keep-30",.audio = TRUE,.hold = 30},
};

/* a sink that keeps the last N (12, 30) buffers: video and audio */
GST_START_TEST (test_held_lastn)
{
  Case *cs = case_begin ("test_held_lastn", __i__);
  gboolean audio = lastn_variants[__i__].audio;
  guint hold = lastn_variants[__i__].hold, run;
  gint slot = act_slot ();

  co_test_print_variant ("test_held_lastn", __i__, lastn_variants[__i__].name);

  for (run = 0; run < 2 * torture_scale && !case_failed (cs); run++) {
    gchar *label = g_strdup_printf ("%s run %u", audio ? "audio" : "video",
        run);
    wd_phase (STALL_S + PHASE_S, "%s: to EOS with the sink keeping %u",
        label, hold);
    run_held_lastn (cs, cs->rand, label, audio, hold, slot);
    g_free (label);
  }
  case_end (cs);
}

GST_END_TEST;

typedef struct
{
  Pipe *p;
  gint stop;
  guint64 n;
  GThread *thread;
  gint slot;
} Drainer;

static gpointer
drainer_main (gpointer data)
{
  Drainer *d = data;

  while (!g_atomic_int_get (&d->stop)) {
    GstSample *s = NULL;

    g_signal_emit_by_name (d->p->stall, "try-pull-sample", 20 * GST_MSECOND,
        &s);
    if (s) {
      gst_sample_unref (s);
      d->n++;
      act_set (d->slot, "drainer: pulled %" G_GUINT64_FORMAT " from the "
          "stalled branch", d->n);
    }
  }
  return NULL;
}

/* A tee: one branch (queue ! appsink max-buffers drop=false) not pulled
 * for a while, the other runs: the running one must get at least as many
 * frames as the stalled branch has room for, then all of them once the
 * stalled one is pulled; EOS. */
GST_START_TEST (test_held_tee)
{
  Case *cs = case_begin ("test_held_tee", -1);
  guint run;
  gint slot = act_slot ();

  for (run = 0; run < 2 * torture_scale && !case_failed (cs); run++) {
    guint n = 120 + g_rand_int_range (cs->rand, 0, 60);
    guint q = g_rand_int_range (cs->rand, 5, 30);
    guint m = g_rand_int_range (cs->rand, 5, 30);
    gchar *caps = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
    gchar *props = random_video_props (cs->rand);
    gchar *sink = g_strdup_printf ("tee name=t t. ! queue "
        "max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "
        "fakesink name=sink sync=false t. ! queue max-size-buffers=%u "
        "max-size-bytes=0 max-size-time=0 ! appsink name=stall sync=false "
        "max-buffers=%u drop=false emit-signals=false", q, m);
    gchar *launch = video_launch (cs->rand, caps, props, n, sink);
    gchar *ctx = g_strdup_printf ("[run %u: tee, a branch with room for %u "
        "not pulled; %s]", run, q + m, launch);
    Pipe *p = pipe_new (cs, ctx, launch, FALSE);
    Drainer d = { 0, };
    gint64 last_t;
    guint64 before = 0, want = MIN (n, q + m);
    gchar *sum;

    g_free (caps);
    g_free (props);
    g_free (sink);
    g_free (launch);
    if (!p) {
      g_free (ctx);
      break;
    }
    wd_phase (PHASE_S, "%s: the running branch while the other stalls", ctx);
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    last_t = g_get_monotonic_time ();
    while (pipe_n_sink (p) < want) {
      guint64 now_n = pipe_n_sink (p);
      if (now_n != before) {
        before = now_n;
        last_t = g_get_monotonic_time ();
      } else if (g_get_monotonic_time () - last_t > 3 * G_TIME_SPAN_SECOND) {
        case_error (cs, "%s: the running branch stopped at %" G_GUINT64_FORMAT
            " frames while the stalled branch had room for %u (%u in the "
            "queue, %u in appsink): the element blocks when one branch "
            "holds its buffers", ctx, now_n, q + m, q, m);
        break;
      }
      g_usleep (10 * 1000);
    }
    /* a while longer, then the stalled branch is pulled */
    g_usleep (g_rand_int_range (cs->rand, 0, 300) * 1000);
    wd_phase (PHASE_S, "%s: to EOS once the stalled branch is pulled", ctx);
    d.p = p;
    d.slot = act_slot ();
    d.thread = g_thread_new ("drainer", drainer_main, &d);
    if (pipe_wait_eos (p, 60, STALL_S, "with both branches pulled", NULL, slot)) {
      checker_expect_all (p->k, n);
      /* appsink may still hold the last ones */
      while (d.n < n && g_get_monotonic_time () - last_t < 100 *
          G_TIME_SPAN_SECOND)
        g_usleep (1000);
      if (pipe_n_sink (p) != n)
        case_error (cs, "%s: the running branch got %" G_GUINT64_FORMAT
            " of %u", ctx, pipe_n_sink (p), n);
    }
    g_atomic_int_set (&d.stop, 1);
    g_thread_join (d.thread);
    if (!case_failed (cs) && d.n != n)
      case_error (cs, "%s: the stalled branch got %" G_GUINT64_FORMAT
          " of %u", ctx, d.n, n);
    sum = pipe_free (p, slot);
    g_print ("  run %u: %s\n", run, sum);
    g_free (sum);
    g_free (ctx);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* b) property changes racing flushing seeks                                 */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_props_vs_seeks)
{
  Case *cs = case_begin ("test_props_vs_seeks", -1);
  guint run;
  gint slot = act_slot ();

  for (run = 0; run < 3 * torture_scale && !case_failed (cs); run++) {
    gchar *label = g_strdup_printf ("run %u", run);
    wd_phase (PHASE_S, "%s: properties vs flushing seeks, then EOS", label);
    run_props_seeks (cs, cs->rand, label, 1000 + g_rand_int_range (cs->rand,
            0, 1000), slot);
    g_free (label);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* c) caps renegotiation every few frames, with seeks                        */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_caps_renegotiation)
{
  Case *cs = case_begin ("test_caps_renegotiation", -1);
  guint run;
  gint slot = act_slot ();

  for (run = 0; run < 3 * torture_scale && !case_failed (cs); run++) {
    gchar *caps = random_video_caps (cs->rand, TRUE);
    /* operation, gamma and radius stay: outputs are decidable */
    gchar *props = random_video_props (cs->rand);
    gchar *launch = video_launch (cs->rand, caps, props, 0,
        "fakesink name=sink sync=false");
    gchar *ctx = g_strdup_printf ("[run %u: caps changes and seeks; %s]",
        run, launch);
    Pipe *p = pipe_new (cs, ctx, launch, FALSE);
    gboolean seeks = run % 3 != 0;
    Racer *cc, *sk = NULL;
    guint n_cc, n_sk = 0;
    gchar *sum;

    g_free (caps);
    g_free (props);
    g_free (launch);
    if (!p) {
      g_free (ctx);
      break;
    }
    wd_phase (PHASE_S, "%s", ctx);
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    cc = racer_start (racer_new (p->k, p, g_rand_int (cs->rand), 0),
        caps_changer_main, "caps-changer");
    if (seeks)
      sk = racer_start (racer_new (p->k, p, g_rand_int (cs->rand), 60000),
          seeker_main, "seeker");
    act_set (slot, "%s: streaming", p->label);
    g_usleep ((1000 + g_rand_int_range (cs->rand, 0, 1000)) * 1000);
    act_set (slot, "%s: joining the racers", p->label);
    if (sk)
      n_sk = racer_stop (sk);
    if (cc->n_failed)
      g_print ("  run %u: note: the last caps change had not reached the "
          "element when the run ended\n", run);
    n_cc = racer_stop (cc);
    pipe_send_eos (p);
    pipe_wait_eos (p, 60, STALL_S, "after the caps changes", NULL, slot);
    sum = pipe_free (p, slot);
    g_print ("  run %u: %u caps changes, %u seeks; %s\n", run, n_cc, n_sk, sum);
    g_free (sum);
    g_free (ctx);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
torture_held_suite (void)
{
  Suite *s = suite_create ("torture-held");

  /* one test case per scenario (GST_CHECKS=test_NAME runs one alone) */
  tcase_add_loop_test (torture_tcase (s, "held-harness"), test_held_harness,
      0, G_N_ELEMENTS (harness_variants));
  tcase_add_loop_test (torture_tcase (s, "held-lastn"), test_held_lastn, 0,
      G_N_ELEMENTS (lastn_variants));
  tcase_add_test (torture_tcase (s, "held-tee"), test_held_tee);
  tcase_add_test (torture_tcase (s, "props-vs-seeks"), test_props_vs_seeks);
  tcase_add_test (torture_tcase (s, "caps-renegotiation"),
      test_caps_renegotiation);
  return s;
}

int
main (int argc, char **argv)
{
  return co_test_torture_main (argc, argv, "torture-held", torture_held_suite);
}
