/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Torture suite of cudavideofilter and cudaaudiofilter, events and state
 * changes at any moment:
 *   test_flush_events          stray FLUSH_START/FLUSH_STOP on the sink pad
 *                              while buffers flow (flush_variants[])
 *   test_state_changes         PLAYING/PAUSED/READY/NULL at any moment while
 *                              properties rebuild the engine
 *   test_ready_during_rebuild  READY just as a buffer's chain rebuilds
 *   test_eos_during_rebuild    a property change right before EOS
 *   test_concurrent_pipelines  four pipelines at once (held buffers and
 *                              property changes racing seeks)
 *   test_stop_from_inside      READY or NULL from the element's own push
 *                              thread (a src pad probe, a bus sync handler
 *                              on its statistics), then PLAYING again or
 *                              freed (stop_variants[])
 *   test_upstream_pools        appsrc fed from a small pool of its own (2 to
 *                              8 buffers) or new memory per frame, in bursts
 *                              with pauses, automatic or random batch: every
 *                              frame out, no stall
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

/* ------------------------------------------------------------------------ */
/* d) lone and doubled flush events on the element's sink pad                */
/* ------------------------------------------------------------------------ */

typedef struct
{
  GstHarness *h;
  GRand *rand;
  gsize size;
  GMutex gate;                  /* held by the pusher around each push */
  gint stop;
  guint n, n_flushing;
  gint slot;
  guint64 pts;
} FPusher;

static gpointer
fpusher_main (gpointer data)
{
  FPusher *p = data;

  while (!g_atomic_int_get (&p->stop)) {
    GstBuffer *b = random_input (p->rand, FALSE, p->size, 0);
    GstFlowReturn ret;

    GST_BUFFER_PTS (b) = p->pts++ * GST_MSECOND;
    g_mutex_lock (&p->gate);
    act_set (p->slot, "pusher: in gst_harness_push #%u", p->n + 1);
    ret = gst_harness_push (p->h, b);
    act_set (p->slot, "pusher: idle after push #%u (%s)", p->n + 1,
        gst_flow_get_name (ret));
    g_mutex_unlock (&p->gate);
    p->n++;
    if (ret == GST_FLOW_FLUSHING)
      p->n_flushing++;
    g_usleep (g_rand_int_range (p->rand, 0, 1500));
  }
  return NULL;
}

typedef struct
{
  GstHarness *h;
  gint stop;
  guint n;
  gint slot;
} FPuller;

static gpointer
fpuller_main (gpointer data)
{
  FPuller *p = data;

  while (!g_atomic_int_get (&p->stop)) {
    GstBuffer *b = gst_harness_try_pull (p->h);
    if (b) {
      gst_buffer_unref (b);
      p->n++;
    } else {
      g_usleep (300);
    }
  }
  return NULL;
}

static void
send_flush (GstPad * sinkpad, GstEvent * ev, gint slot, const gchar * what)
{
  act_set (slot, "flusher: in gst_pad_send_event (%s) on the element's "
      "sink pad", what);
  gst_pad_send_event (sinkpad, ev);
  act_set (slot, "flusher: idle after %s", what);
}

static void
send_stop_and_segment (GstPad * sinkpad, FPusher * fp, gint slot,
    const gchar * what, gboolean reset)
{
  GstSegment seg;

  act_set (slot, "flusher: waiting for the pusher's chain to return "
      "(before %s)", what);
  g_mutex_lock (&fp->gate);
  send_flush (sinkpad, gst_event_new_flush_stop (reset), slot, what);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  send_flush (sinkpad, gst_event_new_segment (&seg), slot,
      "the segment after FLUSH_STOP");
  g_mutex_unlock (&fp->gate);
}

/* What test_flush_events sends in each of its rounds */
typedef enum
{
  FLUSH_LONE_STOP,              /* FLUSH_STOP without FLUSH_START */
  FLUSH_START_TWICE,            /* FLUSH_START twice, then FLUSH_STOP */
  FLUSH_PAIR,                   /* the ordinary pair */
  FLUSH_STOP_TWICE,             /* FLUSH_START, FLUSH_STOP twice */
  FLUSH_TWO_LONE_STOPS,         /* two lone FLUSH_STOP */
  FLUSH_N_KINDS,
  FLUSH_MIXED = FLUSH_N_KINDS   /* each round one of the above at random */
} FlushKind;

static const struct
{
  const gchar *name;
  FlushKind kind;
} flush_variants[] = {
  {.name = "lone-flush-stop",.kind = FLUSH_LONE_STOP},
  {.name = "flush-start-twice",.kind = FLUSH_START_TWICE},
  {.name = "flush-pair",.kind = FLUSH_PAIR},
  {.name = "flush-stop-twice",.kind = FLUSH_STOP_TWICE},
  {.name = "two-lone-flush-stops",.kind = FLUSH_TWO_LONE_STOPS},
  {.name = "mixed",.kind = FLUSH_MIXED},
};

GST_START_TEST (test_flush_events)
{
  Case *cs = case_begin ("test_flush_events", __i__);
  const FlushKind kind = flush_variants[__i__].kind;
  guint run;
  gint slot = act_slot ();

  co_test_print_variant ("test_flush_events", __i__,
      flush_variants[__i__].name);
  for (run = 0; run < 3 * torture_scale && !case_failed (cs); run++) {
    GstElement *e = co_test_make_element ("cudavideofilter");
    gchar *caps_s = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
    gchar *props = random_video_props (cs->rand);
    GstCaps *caps = gst_caps_from_string (caps_s);
    GstVideoInfo info;
    GstHarness *h;
    GstPad *sinkpad;
    Checker *k;
    FPusher fp = { 0, };
    FPuller fl = { 0, };
    GThread *tp, *tl;
    gchar **kv, **it, *ctx, *sum;
    guint i, rounds = 12, final = 8, counts[FLUSH_N_KINDS] = { 0, };
    guint64 base;
    gint64 t;

    kv = g_strsplit (props, " ", -1);
    for (it = kv; *it; it++) {
      gchar **pv = g_strsplit (*it, "=", 2);
      gst_util_set_object_arg (G_OBJECT (e), pv[0], pv[1]);
      g_strfreev (pv);
    }
    g_strfreev (kv);
    gst_video_info_from_caps (&info, caps);
    ctx = g_strdup_printf ("[run %u: flush events on the sink pad while "
        "buffers flow; %s %s]", run, caps_s, props);
    wd_phase (PHASE_S, "%s", ctx);
    h = gst_harness_new_with_element (e, "sink", "src");
    k = checker_new (cs, ctx, e, FALSE);
    gst_harness_set_src_caps (h, caps);
    sinkpad = gst_element_get_static_pad (e, "sink");

    fp.h = fl.h = h;
    fp.rand = g_rand_new_with_seed (g_rand_int (cs->rand));
    fp.size = GST_VIDEO_INFO_SIZE (&info);
    fp.slot = act_slot ();
    fl.slot = act_slot ();
    g_mutex_init (&fp.gate);
    tp = g_thread_new ("pusher", fpusher_main, &fp);
    tl = g_thread_new ("puller", fpuller_main, &fl);

    for (i = 0; i < rounds; i++) {
      FlushKind v = kind != FLUSH_MIXED ? kind :
          (FlushKind) g_rand_int_range (cs->rand, 0, FLUSH_N_KINDS);
      gboolean reset = g_rand_boolean (cs->rand);

      g_usleep (g_rand_int_range (cs->rand, 0, 30000));
      wd_phase (PHASE_S, "%s: flush round %u, %s", ctx, i,
          flush_variants[v].name);
      counts[v]++;
      switch (v) {
        case FLUSH_LONE_STOP:
          send_stop_and_segment (sinkpad, &fp, slot, "a lone FLUSH_STOP",
              reset);
          break;
        case FLUSH_START_TWICE:
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "a second FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP after two "
              "FLUSH_START", reset);
          break;
        case FLUSH_PAIR:
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP", reset);
          break;
        case FLUSH_STOP_TWICE:
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP", reset);
          send_stop_and_segment (sinkpad, &fp, slot, "a second FLUSH_STOP",
              reset);
          break;
        default:               /* FLUSH_TWO_LONE_STOPS */
          send_stop_and_segment (sinkpad, &fp, slot, "a lone FLUSH_STOP",
              reset);
          send_stop_and_segment (sinkpad, &fp, slot, "another lone "
              "FLUSH_STOP", reset);
          break;
      }
    }
    wd_phase (PHASE_S, "%s: stopping the pusher", ctx);
    g_atomic_int_set (&fp.stop, 1);
    g_thread_join (tp);

    /* then it must work normally: every frame out, right, and EOS */
    wd_phase (PHASE_S, "%s: %u frames after the flushes, then EOS", ctx, final);
    base = checker_get (k, &k->next_tag);
    g_mutex_lock (&k->lock);
    k->watch_tag = base;
    g_mutex_unlock (&k->lock);
    for (i = 0; i < final; i++) {
      GstBuffer *b = random_input (cs->rand, FALSE, fp.size, 0);
      GstFlowReturn ret;

      GST_BUFFER_PTS (b) = fp.pts++ * GST_MSECOND;
      act_set (slot, "main: in gst_harness_push (frame %u after the "
          "flushes)", i);
      ret = gst_harness_push (h, b);
      if (ret != GST_FLOW_OK) {
        case_error (cs, "%s: push %u after the flushes returned %s", ctx, i,
            gst_flow_get_name (ret));
        break;
      }
    }
    act_set (slot, "main: pushing EOS");
    gst_harness_push_event (h, gst_event_new_eos ());
    t = g_get_monotonic_time ();
    while (checker_get (k, &k->n_watched) < final
        && g_get_monotonic_time () - t < STALL_S * G_TIME_SPAN_SECOND)
      g_usleep (1000);
    if (checker_get (k, &k->n_watched) != final)
      case_error (cs, "%s: %" G_GUINT64_FORMAT " of the %u frames pushed "
          "after the flushes came out (before or at EOS)", ctx,
          checker_get (k, &k->n_watched), final);
    g_atomic_int_set (&fl.stop, 1);
    g_thread_join (tl);

    wd_phase (PHASE_S, "%s: set_state (NULL)", ctx);
    act_set (slot, "main: in set_state (NULL) / harness teardown");
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (sinkpad);
    gst_harness_teardown (h);
    gst_object_unref (e);
    sum = checker_summary (k);
    g_print ("  run %u: %u pushes (%u flushing), rounds: %u lone stop, %u "
        "double start, %u pair, %u double stop, %u two lone stops; %s\n",
        run, fp.n, fp.n_flushing, counts[0], counts[1], counts[2], counts[3],
        counts[4], sum);
    g_free (sum);
    checker_free (k);
    g_mutex_clear (&fp.gate);
    g_rand_free (fp.rand);
    g_free (ctx);
    g_free (props);
    g_free (caps_s);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* e) state changes at any moment while properties rebuild the engine        */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_state_changes)
{
  Case *cs = case_begin ("test_state_changes", -1);
  static const GstState states[] = { GST_STATE_NULL, GST_STATE_READY,
    GST_STATE_PAUSED, GST_STATE_PLAYING
  };
  guint run, runs = 3 * torture_scale, cycles = 100;
  gint slot = act_slot ();

  /* every run, failed or not: a crash may come later (READY during a
   * rebuild) */
  for (run = 0; run < runs; run++) {
    gchar *caps = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
    gchar *props = random_video_props (cs->rand);
    gchar *launch = video_launch (cs->rand, caps, props, 0,
        "fakesink name=sink sync=false");
    gchar *ctx = g_strdup_printf ("[run %u: state changes while properties "
        "change; %s]", run, launch);
    Pipe *p = pipe_new (cs, ctx, launch, FALSE);
    Racer *ch;
    GstStateChangeReturn ret;
    GstState cur = GST_STATE_NULL;
    guint i, n_ch;
    gchar *sum;

    g_free (caps);
    g_free (props);
    g_free (launch);
    if (!p) {
      g_free (ctx);
      break;
    }
    ch = racer_new (p->k, p, g_rand_int (cs->rand), 3000);
    ch->rebuild = TRUE;
    racer_start (ch, changer_main, "changer");
    for (i = 0; i < cycles; i++) {
      GstState s;
      /* mostly the neighbours (PLAYING <-> PAUSED <-> READY <-> NULL),
       * sometimes a jump */
      if (g_rand_int_range (cs->rand, 0, 4) == 0)
        s = PICK (cs->rand, states);
      else if (cur == GST_STATE_NULL || (cur != GST_STATE_PLAYING
              && g_rand_boolean (cs->rand)))
        s = cur + 1;
      else
        s = cur - 1;
      wd_phase (PHASE_S, "%s: state change %u (%s -> %s)", ctx, i,
          gst_element_state_get_name (cur), gst_element_state_get_name (s));
      pipe_set_state (p, s, slot);
      cur = s;
      g_usleep (g_rand_int_range (cs->rand, 0, 15000));
    }
    wd_phase (PHASE_S, "%s: joining the property changer", ctx);
    n_ch = racer_stop (ch);

    /* then a clean run to EOS */
    wd_phase (PHASE_S, "%s: PLAYING after the cycles, then EOS", ctx);
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    act_set (slot, "%s: in get_state (PLAYING, 10 s)", p->label);
    ret = gst_element_get_state (p->pipe, NULL, NULL, 10 * GST_SECOND);
    if (ret != GST_STATE_CHANGE_SUCCESS)
      case_error (cs, "%s: not PLAYING 10 s after the cycles: get_state "
          "returned %s", ctx, gst_element_state_change_return_get_name (ret));
    else {
      g_usleep (50 * 1000);
      pipe_send_eos (p);
      pipe_wait_eos (p, 60, STALL_S, "after the state changes", NULL, slot);
    }
    wd_phase (PHASE_S, "%s: set_state (NULL)", ctx);
    sum = pipe_free (p, slot);
    g_print ("  run %u: %u state changes, %u property changes; %s\n", run,
        cycles, n_ch, sum);
    g_free (sum);
    g_free (ctx);
  }
  case_end (cs);
}

GST_END_TEST;

/* e') READY at the moment a rebuild starts: a property change, then the
 * next buffer's chain (which rebuilds the engine) races set_state (READY). */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean armed, fired;
} Trigger;

static GstPadProbeReturn
trigger_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info
    G_GNUC_UNUSED, gpointer data)
{
  Trigger *t = data;

  g_mutex_lock (&t->lock);
  if (t->armed) {
    t->armed = FALSE;
    t->fired = TRUE;
    g_cond_signal (&t->cond);
  }
  g_mutex_unlock (&t->lock);
  return GST_PAD_PROBE_OK;
}

/* Waits (at most @seconds) for the next buffer to reach the element. */
static gboolean
wait_trigger (Trigger * t, guint seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
  gboolean fired;

  g_mutex_lock (&t->lock);
  t->fired = FALSE;
  t->armed = TRUE;
  while (!t->fired && g_cond_wait_until (&t->cond, &t->lock, end));
  fired = t->fired;
  t->armed = FALSE;
  g_mutex_unlock (&t->lock);
  return fired;
}

GST_START_TEST (test_ready_during_rebuild)
{
  Case *cs = case_begin ("test_ready_during_rebuild", -1);
  guint run, runs = 2 * torture_scale, cycles = 50;
  gint slot = act_slot ();

  for (run = 0; run < runs; run++) {
    gchar *caps = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
    gchar *props = random_video_props (cs->rand);
    gchar *launch = video_launch (cs->rand, caps, props, 0,
        "fakesink name=sink sync=false");
    gchar *ctx = g_strdup_printf ("[run %u: READY as a rebuild starts; %s]",
        run, launch);
    Pipe *p = pipe_new (cs, ctx, launch, FALSE);
    Trigger tr;
    GstPad *pad;
    guint i, n_fired = 0;
    gchar *sum;

    g_free (caps);
    g_free (props);
    g_free (launch);
    if (!p) {
      g_free (ctx);
      break;
    }
    g_mutex_init (&tr.lock);
    g_cond_init (&tr.cond);
    tr.armed = tr.fired = FALSE;
    pad = gst_element_get_static_pad (p->f, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, trigger_probe, &tr,
        NULL);
    gst_object_unref (pad);
    for (i = 0; i < cycles; i++) {
      gboolean fired;

      wd_phase (PHASE_S, "%s: cycle %u: PLAYING, property change, READY "
          "while the next buffer rebuilds", ctx, i);
      pipe_set_state (p, GST_STATE_PLAYING, slot);
      /* a first buffer: the engine built at caps time is running; then the
       * change, and the next buffer's chain rebuilds */
      fired = wait_trigger (&tr, 3);
      if (fired) {
        random_change (p->k, cs->rand, TRUE, slot);
        fired = wait_trigger (&tr, 3);
      }
      if (!fired) {
        case_error (cs, "%s: cycle %u: no buffer reached the element within "
            "3 s of PLAYING", ctx, i);
        break;
      }
      n_fired++;
      g_usleep (g_rand_int_range (cs->rand, 0, 800));
      pipe_set_state (p, GST_STATE_READY, slot);
    }
    wd_phase (PHASE_S, "%s: PLAYING after the cycles, then EOS", ctx);
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    pipe_send_eos (p);
    pipe_wait_eos (p, 60, STALL_S, "after READY during rebuilds", NULL, slot);
    wd_phase (PHASE_S, "%s: set_state (NULL)", ctx);
    sum = pipe_free (p, slot);
    g_mutex_clear (&tr.lock);
    g_cond_clear (&tr.cond);
    g_print ("  run %u: %u READY during a rebuild; %s\n", run, n_fired, sum);
    g_free (sum);
    g_free (ctx);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* f) EOS during a rebuild                                                   */
/* ------------------------------------------------------------------------ */

typedef struct
{
  Checker *k;
  GRand *rand;
  guint64 last;                 /* buffer offset of the last frame */
  gboolean on_eos;
  gint slot;
} EosChanger;

static GstPadProbeReturn
eos_rebuild_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer data)
{
  EosChanger *c = data;

  if (c->on_eos && (GST_PAD_PROBE_INFO_TYPE (info) &
          GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM)
      && GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    random_change (c->k, c->rand, TRUE, c->slot);
    random_change (c->k, c->rand, TRUE, c->slot);
  } else if (!c->on_eos && (GST_PAD_PROBE_INFO_TYPE (info) &
          GST_PAD_PROBE_TYPE_BUFFER)
      && GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info)) >= c->last) {
    random_change (c->k, c->rand, TRUE, c->slot);
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_eos_during_rebuild)
{
  Case *cs = case_begin ("test_eos_during_rebuild", -1);
  guint run;
  gint slot = act_slot ();

  for (run = 0; run < 30 * torture_scale && !case_failed (cs); run++) {
    guint n = g_rand_int_range (cs->rand, 3, 40);
    guint how = run % 3;
    gchar *caps = random_video_caps (cs->rand, g_rand_boolean (cs->rand));
    gchar *props = random_video_props (cs->rand);
    gchar *launch = video_launch (cs->rand, caps, props, n,
        "fakesink name=sink sync=false");
    static const gchar *const hows[] = { "a property change in the EOS "
          "event's path", "a property change before the last frame",
      "a thread changing properties as the stream ends"
    };
    gchar *ctx = g_strdup_printf ("[run %u: EOS after %u frames with %s; "
        "%s]", run, n, hows[how], launch);
    Pipe *p = pipe_new (cs, ctx, launch, FALSE);
    EosChanger ec = { 0, };
    Racer *ch = NULL;
    GstPad *pad;
    gchar *sum;

    g_free (caps);
    g_free (props);
    g_free (launch);
    if (!p) {
      g_free (ctx);
      break;
    }
    ec.k = p->k;
    ec.rand = g_rand_new_with_seed (g_rand_int (cs->rand));
    ec.last = n - 1;
    ec.on_eos = how == 0;
    ec.slot = act_slot ();
    pad = gst_element_get_static_pad (p->f, "sink");
    if (how < 2)
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
          GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, eos_rebuild_probe, &ec, NULL);
    gst_object_unref (pad);
    if (how == 2) {
      ch = racer_new (p->k, p, g_rand_int (cs->rand), 2000);
      ch->rebuild = TRUE;
    }
    wd_phase (PHASE_S, "%s", ctx);
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    if (ch)
      racer_start (ch, changer_main, "changer");
    if (pipe_wait_eos (p, 60, STALL_S, "at the end of the stream", NULL, slot))
      checker_expect_all (p->k, n);
    if (ch)
      racer_stop (ch);
    sum = pipe_free (p, slot);
    g_print ("  run %u (%s): %s\n", run, hows[how], sum);
    g_free (sum);
    g_rand_free (ec.rand);
    g_free (ctx);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* g) several pipelines in one process                                       */
/* ------------------------------------------------------------------------ */

typedef struct
{
  Case *cs;
  guint index;
  guint32 seed;
  gint done;
} Worker;

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;
  GRand *rand = g_rand_new_with_seed (w->seed);
  gchar *label = g_strdup_printf ("pipeline %u", w->index);
  gint slot = act_slot ();

  if (w->index % 2 == 0)
    run_held_lastn (w->cs, rand, label, w->index % 4 == 2,
        g_rand_boolean (rand) ? 12 : 30, slot);
  else
    run_props_seeks (w->cs, rand, label, 1000 + g_rand_int_range (rand, 0,
            800), slot);
  act_set (slot, "%s: done", label);
  g_free (label);
  g_rand_free (rand);
  g_atomic_int_set (&w->done, 1);
  return NULL;
}

GST_START_TEST (test_concurrent_pipelines)
{
  Case *cs = case_begin ("test_concurrent_pipelines", -1);
  guint run, i;

  for (run = 0; run < torture_scale && !case_failed (cs); run++) {
    Worker w[4];
    GThread *t[4];

    wd_phase (2 * PHASE_S, "run %u: 4 pipelines at once (held buffers, "
        "properties vs seeks)", run);
    for (i = 0; i < 4; i++) {
      w[i].cs = cs;
      w[i].index = i;
      w[i].seed = g_rand_int (cs->rand);
      w[i].done = 0;
      t[i] = g_thread_new ("worker", worker_main, &w[i]);
    }
    for (i = 0; i < 4; i++)
      g_thread_join (t[i]);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* h) a stop from inside the element's threads                               */
/* ------------------------------------------------------------------------ */

typedef enum
{
  STOP_SRC_PROBE,               /* a buffer probe on the element's src pad:
                                 * its push thread */
  STOP_STATS_HANDLER,           /* a bus sync handler on its statistics
                                 * messages (posted by the push thread) */
} StopWhere;

static const struct
{
  const gchar *name;
  StopWhere where;
  GstState target;
} stop_variants[] = {
  {"src-probe-ready", STOP_SRC_PROBE, GST_STATE_READY},
  {"src-probe-null", STOP_SRC_PROBE, GST_STATE_NULL},
  {"stats-handler-ready", STOP_STATS_HANDLER, GST_STATE_READY},
  {"stats-handler-null", STOP_STATS_HANDLER, GST_STATE_NULL},
};

typedef struct
{
  Pipe *p;
  GstState target;
  guint after;
  gint count;
  gint fired;
  gint done;
} Stopper;

/* On the element's thread: the pipeline to @target, once, after @after
 * buffers (or messages); TRUE when this call stopped it. */
static gboolean
stopper_hit (Stopper * st)
{
  if ((guint) g_atomic_int_add (&st->count, 1) < st->after ||
      !g_atomic_int_compare_and_exchange (&st->fired, 0, 1))
    return FALSE;
  gst_element_set_state (st->p->pipe, st->target);
  g_atomic_int_set (&st->done, 1);
  return TRUE;
}

/* The buffer during which the probe stopped the pipeline is dropped:
 * gst_pad_push() does not look at the pad's flushing flag again after its
 * probes, so once the test sets PLAYING again from its own thread, that
 * buffer could reach the re-activated sink ahead of the new stream-start
 * (with any element, not only this one). */
static GstPadProbeReturn
stopper_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info
    G_GNUC_UNUSED, gpointer data)
{
  return stopper_hit (data) ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static GstBusSyncReply
stopper_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  Stopper *st = data;
  const GstStructure *s = gst_message_get_structure (msg);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s &&
      gst_structure_has_name (s, "cudaoverlap-stats") &&
      GST_MESSAGE_SRC (msg) == GST_OBJECT (st->p->f))
    stopper_hit (st);
  return pipe_bus (bus, msg, st->p);
}

/* One run: streaming (no passthrough, so that the statistics come from the
 * push thread), stopped from inside, then back to PLAYING after a READY
 * (every frame right again) or freed after a NULL. */
static void
run_stop_inside (Case * cs, GRand * rand, guint v, gint slot)
{
  gchar *caps = random_video_caps (rand, g_rand_boolean (rand));
  gchar *props = g_strdup_printf ("operation=invert streams=%u chunks=%u "
      "max-in-flight=%u batch=%u submit-thread=%s stats-interval=1000000",
      g_rand_int_range (rand, 0, 5), g_rand_int_range (rand, 0, 7),
      g_rand_int_range (rand, 0, 9), g_rand_int_range (rand, 0, 5),
      g_rand_boolean (rand) ? "true" : "false");
  gchar *launch = video_launch (rand, caps, props, 0,
      "fakesink name=sink sync=false");
  gchar *ctx = g_strdup_printf ("[%s: stopped to %s from inside; %s]",
      stop_variants[v].name,
      gst_element_state_get_name (stop_variants[v].target), launch);
  Pipe *p = pipe_new (cs, ctx, launch, FALSE);
  Stopper st = { 0, };
  GstPad *pad = NULL;
  gulong probe = 0;
  gint64 until;
  gchar *sum;

  if (!p)
    goto out;
  st.p = p;
  st.target = stop_variants[v].target;
  st.after = g_rand_int_range (rand, 0, 40);
  if (stop_variants[v].where == STOP_SRC_PROBE) {
    pad = gst_element_get_static_pad (p->f, "src");
    probe = gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stopper_probe,
        &st, NULL);
  } else {
    GstBus *bus = gst_element_get_bus (p->pipe);
    gst_bus_set_sync_handler (bus, stopper_bus, &st, NULL);
    gst_object_unref (bus);
  }
  pipe_set_state (p, GST_STATE_PLAYING, slot);
  act_set (slot, "%s: waiting for the stop from inside", p->label);
  until = g_get_monotonic_time () + STALL_S * G_TIME_SPAN_SECOND;
  while (!g_atomic_int_get (&st.done) && g_get_monotonic_time () < until)
    g_usleep (1000);
  if (!g_atomic_int_get (&st.done))
    case_error (cs, "%s: the stop from inside did not happen (or hung) "
        "within %u s", ctx, STALL_S);
  if (probe)
    gst_pad_remove_probe (pad, probe);
  g_clear_object (&pad);
  gst_element_get_state (p->pipe, NULL, NULL, 5 * GST_SECOND);
  if (g_atomic_int_get (&st.done) && st.target == GST_STATE_READY &&
      !case_failed (cs)) {
    /* the same pipeline runs again: frames flow and stay right */
    guint64 n0 = checker_get (p->k, &p->k->n_out);

    pipe_set_state (p, GST_STATE_PLAYING, slot);
    until = g_get_monotonic_time () + STALL_S * G_TIME_SPAN_SECOND;
    while (checker_get (p->k, &p->k->n_out) < n0 + 10 &&
        g_get_monotonic_time () < until)
      g_usleep (1000);
    if (checker_get (p->k, &p->k->n_out) < n0 + 10)
      case_error (cs, "%s: no frames after PLAYING again", ctx);
  }
  sum = pipe_free (p, slot);
  g_print ("  %s: stopped after %u; %s\n", stop_variants[v].name, st.after,
      sum);
  g_free (sum);
out:
  g_free (ctx);
  g_free (launch);
  g_free (props);
  g_free (caps);
}

GST_START_TEST (test_stop_from_inside)
{
  Case *cs = case_begin ("test_stop_from_inside", __i__);
  guint run;
  gint slot = act_slot ();

  co_test_print_variant ("test_stop_from_inside", __i__,
      stop_variants[__i__].name);
  for (run = 0; run < 6 * torture_scale && !case_failed (cs); run++) {
    wd_phase (PHASE_S, "%s run %u: a stop from inside the element",
        stop_variants[__i__].name, run);
    run_stop_inside (cs, cs->rand, __i__, slot);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* i) upstreams with buffers of their own: small pools, sparse frames        */
/* ------------------------------------------------------------------------ */

/* appsrc fed from a pool of @pool_n buffers of the feeder's own (0: new
 * memory per frame), in bursts with random pauses; the element with its
 * automatic settings or a random batch: every frame comes out, right, with
 * no stall (a batch never waits for buffers upstream does not have). */
static void
run_upstream_pool (Case * cs, GRand * rand, guint pool_n, gint slot)
{
  guint n = 60 + g_rand_int_range (rand, 0, 60), i, batch =
      g_rand_boolean (rand) ? 0 : g_rand_int_range (rand, 2, 17);
  gchar *caps_s = random_video_caps (rand, g_rand_boolean (rand));
  gchar *launch = g_strdup_printf ("appsrc name=src format=time "
      "caps=\"%s\" ! cudavideofilter name=f backend=%s batch=%u ! "
      "fakesink name=sink sync=false", caps_s, co_test_backend, batch);
  gchar *ctx = g_strdup_printf ("[pool of %u: upstream's own buffers; %s]",
      pool_n, launch);
  Pipe *p = pipe_new (cs, ctx, launch, FALSE);
  GstCaps *caps = gst_caps_from_string (caps_s);
  GstBufferPool *pool = NULL;
  GstFlowReturn eos_ret;
  GstElement *src;
  GstVideoInfo info;
  gchar *sum;

  if (!p)
    goto out;
  gst_video_info_from_caps (&info, caps);
  if (pool_n) {
    GstStructure *config;

    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, info.size, pool_n, pool_n);
    gst_buffer_pool_set_config (pool, config);
    gst_buffer_pool_set_active (pool, TRUE);
  }
  src = bin_get (p->pipe, "src");
  pipe_set_state (p, GST_STATE_PLAYING, slot);
  for (i = 0; i < n && !case_failed (cs); i++) {
    GstBuffer *buf = NULL;
    GstFlowReturn ret;
    GstMapInfo m;

    act_set (slot, "%s: acquiring input %u of %u (pool of %u)", p->label,
        i + 1, n, pool_n);
    if (pool)
      gst_buffer_pool_acquire_buffer (pool, &buf, NULL);
    else
      buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (buf, &m, GST_MAP_WRITE);
    co_test_fill_random (rand, m.data, m.size);
    gst_buffer_unmap (buf, &m);
    GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    /* bursts, and now and then a pause longer than the batch timeout */
    if (g_rand_int_range (rand, 0, 8) == 0)
      g_usleep (g_rand_int_range (rand, 0, 40000));
  }
  g_signal_emit_by_name (src, "end-of-stream", &eos_ret);
  if (pipe_wait_eos (p, 60, STALL_S, "a batch waits for buffers upstream "
          "does not have", NULL, slot))
    checker_expect_all (p->k, n);
  sum = pipe_free (p, slot);
  g_print ("  pool of %u, batch %u: %s\n", pool_n, batch, sum);
  g_free (sum);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
out:
  gst_caps_unref (caps);
  g_free (ctx);
  g_free (launch);
  g_free (caps_s);
}

GST_START_TEST (test_upstream_pools)
{
  Case *cs = case_begin ("test_upstream_pools", -1);
  guint run;
  gint slot = act_slot ();

  for (run = 0; run < 6 * torture_scale && !case_failed (cs); run++) {
    /* 0: new memory per frame (sparse frames from an application) */
    guint pool_n = g_rand_int_range (cs->rand, 0, 4) ? g_rand_int_range
        (cs->rand, 2, 9) : 0;

    wd_phase (PHASE_S, "run %u: upstream's own pool of %u", run, pool_n);
    run_upstream_pool (cs, cs->rand, pool_n, slot);
  }
  case_end (cs);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
torture_state_suite (void)
{
  Suite *s = suite_create ("torture-state");

  /* one test case per scenario (GST_CHECKS=test_NAME runs one alone) */
  tcase_add_loop_test (torture_tcase (s, "flush-events"), test_flush_events,
      0, G_N_ELEMENTS (flush_variants));
  tcase_add_test (torture_tcase (s, "state-changes"), test_state_changes);
  tcase_add_test (torture_tcase (s, "ready-during-rebuild"),
      test_ready_during_rebuild);
  tcase_add_test (torture_tcase (s, "eos-during-rebuild"),
      test_eos_during_rebuild);
  tcase_add_test (torture_tcase (s, "concurrent-pipelines"),
      test_concurrent_pipelines);
  tcase_add_loop_test (torture_tcase (s, "stop-from-inside"),
      test_stop_from_inside, 0, G_N_ELEMENTS (stop_variants));
  tcase_add_test (torture_tcase (s, "upstream-pools"), test_upstream_pools);
  return s;
}

int
main (int argc, char **argv)
{
  return co_test_torture_main (argc, argv, "torture-state",
      torture_state_suite);
}
