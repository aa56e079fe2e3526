/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, the life cycle: state changes, EOS
 * with frames in flight, flushes (mid-stream, mid-batch, cutting a caps
 * drain short, unblocking a push), events while the source pad flushes, and
 * downstream that holds buffers. Outputs are compared with the independent
 * reference in co-reference.c; the set-up and the environment are
 * co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "co-test-video.h"

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

/* The variants of test_eos_in_flight: operation, engine configuration,
 * frames handed to the element's submit thread */
static const struct
{
  const gchar *name;
  guint op, run;                /* op_cfgs[], co_test_run_cfgs[] */
  gboolean submit_thread;
} eos_variants[] = {
  {.name = "box-blur-overlap-3x5",.op = 7,.run = 3},
  {.name = "invert-overlap-8x5",.op = 0,.run = 5},
  {.name = "invert-serial",.op = 0,.run = 6},
  {.name = "invert-serial-submit-thread",.op = 0,.run = 6,
      .submit_thread = TRUE},
};

/* push N frames, then EOS: all N leave, in order, before EOS */
GST_START_TEST (test_eos_in_flight)
{
  guint32 seed = co_test_seed ("test_eos_in_flight", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[eos_variants[__i__].op];
  const RunCfg *run = &co_test_run_cfgs[eos_variants[__i__].run];
  gboolean submit_thread = eos_variants[__i__].submit_thread;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  Recorder *rec = recorder_attach (h);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[EOS in flight, BGRA 160x120, %s "
      "submit-thread=%d backend=%s seed=0x%08x]", rd, submit_thread,
      co_test_backend, seed);
  const guint n = 5;
  guint i, n_buf = 0;
  gchar *dump;
  GstEvent *ev;
  gboolean eos_seen = FALSE;

  co_test_print_variant ("test_eos_in_flight", __i__, eos_variants[__i__].name);
  g_object_set (h->element, "submit-thread", submit_thread, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_BGRA, 160, 120,
          &info));
  for (i = 0; i < n; i++)
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
        &pending, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS not handled", ctx);

  /* EOS leaves the element (within 10 s of the push; normally before the
   * push returns, as the element drains in its event handler) */
  for (i = 0; i < 1000; i++) {
    gboolean seen = FALSE;
    guint j;
    g_mutex_lock (&rec->lock);
    for (j = 0; j < rec->items->len; j++)
      if (g_str_equal (g_ptr_array_index (rec->items, j), "E eos"))
        seen = TRUE;
    g_mutex_unlock (&rec->lock);
    if (seen)
      break;
    g_usleep (10 * 1000);
  }

  /* Everything before EOS, in order */
  dump = recorder_dump (rec);
  g_mutex_lock (&rec->lock);
  for (i = 0; i < rec->items->len; i++) {
    const gchar *it = g_ptr_array_index (rec->items, i);
    if (it[0] == 'B') {
      fail_if (eos_seen, "%s: a buffer left after EOS: %s", ctx, dump);
      fail_unless_equals_uint64 (g_ascii_strtoull (it + 2, NULL, 10),
          n_buf * GST_SECOND);
      n_buf++;
    } else if (g_str_equal (it, "E eos")) {
      eos_seen = TRUE;
    }
  }
  g_mutex_unlock (&rec->lock);
  fail_unless (eos_seen, "%s: EOS did not leave the element within 10 s: "
      "%s", ctx, dump);
  fail_unless_equals_int (n_buf, n);
  g_free (dump);

  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    pull_and_check (h, &info, &pending, ctx);
  /* the EOS event reached the harness */
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
      eos_seen = FALSE;
    gst_event_unref (ev);
  }
  fail_if (eos_seen, "%s: no EOS event at the harness", ctx);

  teardown_harness (h);
  recorder_free (rec);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* frames, flush, more frames: every frame that comes out is right, every
 * frame pushed after the flush comes out, in order.  Frames pushed after
 * the flush are pulled one by one (the output pool is bounded: in serial
 * mode it may hold no more than a few frames the harness keeps). */
static void
move_pending (GQueue * pending, GHashTable * exp_by_pts)
{
  GstBuffer *b;

  while ((b = g_queue_pop_head (pending))) {
    gint64 *k = g_new (gint64, 1);
    *k = GST_BUFFER_PTS (b);
    g_hash_table_insert (exp_by_pts, k, b);
  }
}

static void
flush_round (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, guint n_before, guint n_after, gboolean reset_time,
    const gchar * ctx)
{
  GHashTable *exp_by_pts = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, (GDestroyNotify) gst_buffer_unref);
  GQueue pending = G_QUEUE_INIT;
  GstSegment seg;
  guint i, got_after = 0;
  GstClockTime last = 0;
  gboolean first = TRUE;
  GstBuffer *out;

  for (i = 0; i < n_before; i++)
    push_frame (h, rand, info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
  move_pending (&pending, exp_by_pts);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h,
          gst_event_new_flush_stop (reset_time)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  for (i = 0; i < n_after; i++) {
    push_frame (h, rand, info, op, &layout_default, (1000 + i) * GST_SECOND,
        &pending, ctx);
    move_pending (&pending, exp_by_pts);

    /* pre-flush frames may or may not be in the queue; post-flush must */
    while (got_after < i + 1) {
      gint64 k;
      GstBuffer *exp;
      gchar *c;

      out = co_test_pull_buffer (h, ctx);
      k = GST_BUFFER_PTS (out);
      exp = g_hash_table_lookup (exp_by_pts, &k);
      c = g_strdup_printf ("%s, output pts %" GST_TIME_FORMAT, ctx,
          GST_TIME_ARGS (k));
      fail_unless (exp != NULL, "%s: unexpected output timestamp", c);
      fail_unless (first || (GstClockTime) k > last, "%s: out of order "
          "(after %" GST_TIME_FORMAT ")", c, GST_TIME_ARGS (last));
      check_output (out, exp, info, c);
      if ((GstClockTime) k >= 1000 * GST_SECOND) {
        fail_unless_equals_uint64 (k, (1000 + got_after) * GST_SECOND);
        got_after++;
      }
      last = k;
      first = FALSE;
      g_free (c);
      gst_buffer_unref (out);
    }
  }
  /* nothing else may come */
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "%s: an extra buffer, pts %" GST_TIME_FORMAT,
      ctx, GST_TIME_ARGS (out ? GST_BUFFER_PTS (out) : 0));
  g_hash_table_unref (exp_by_pts);
}

/* The variants of test_flush_midstream: an engine configuration; frames
 * handed to the element's submit thread (held there a while by a test
 * hook, so that a flush finds them between the hand-over queue and the
 * device's); staged frames (their copies run on co-parcopy's threads until
 * the frame is queued). */
typedef struct
{
  const gchar *name;
  guint run;                    /* co_test_run_cfgs[] */
  gboolean submit_thread;
  gboolean staged;
} FlushVariant;

static const FlushVariant flush_variants[] = {
  {.name = "overlap-3x5",.run = 3},
  {.name = "overlap-8x5",.run = 5},
  {.name = "overlap-1x1",.run = 0},
  {.name = "serial",.run = 6},
  {.name = "submit-thread-3x5",.run = 3,.submit_thread = TRUE},
  {.name = "submit-thread-serial",.run = 6,.submit_thread = TRUE},
  {.name = "staged-3x5",.run = 3,.staged = TRUE},
  {.name = "staged-submit-thread-serial",.run = 6,.submit_thread = TRUE,
      .staged = TRUE},
};

/* What flush_variants[@i] needs that this build may lack */
static const gchar *
flush_variant_missing (guint i)
{
  const FlushVariant *v = &flush_variants[i];

  if (v->submit_thread && co_test_hook_missing ("co_test_set_submit_delay_us"))
    return co_test_hook_missing ("co_test_set_submit_delay_us");
  /* the CPU backend stages only what the hook forces */
  if (v->staged && !g_str_equal (co_test_backend, "cuda"))
    return co_test_hook_missing ("co_test_set_force_staging");
  return NULL;
}

GST_START_TEST (test_flush_midstream)
{
  const FlushVariant *v = &flush_variants[__i__];
  guint32 seed = co_test_seed ("test_flush_midstream", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const RunCfg *run = &co_test_run_cfgs[v->run];
  const OpCfg *op = &op_cfgs[7];        /* box-blur r=7: slow enough to be in flight */
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_submit_delay_us");
  CoTestSetFlag force = co_test_plugin_symbol ("co_test_set_force_staging");
  guint w = v->staged ? 1280 : 320, ht = v->staged ? 721 : 241;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[flush %s, I420 %ux%u box-blur r=7, %s "
      "submit-thread=%d staged=%d backend=%s seed=0x%08x]", v->name, w, ht,
      rd, v->submit_thread, v->staged, co_test_backend, seed);
  guint round;

  co_test_print_variant ("test_flush_midstream", __i__, v->name);
  /* the suite adds a variant only where what it needs exists */
  fail_unless (!v->submit_thread || set_delay, "%s: no hook", ctx);
  if (v->staged && force)
    force (TRUE);
  g_object_set (h->element, "submit-thread", v->submit_thread, NULL);
  if (v->submit_thread)
    set_delay (3000);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, w, ht, &info));
  for (round = 0; round < 3; round++)
    flush_round (h, rand, &info, op, 4, 3, round != 1, ctx);
  if (set_delay)
    set_delay (0);
  if (v->staged && force)
    force (FALSE);
  if (v->staged) {
    GstStructure *st = NULL;
    guint64 n_staged = 0;

    /* the staged path ran; EOS posts the statistics of the whole run (the
     * property holds the latest posted, none yet before it) */
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    g_object_get (h->element, "stats", &st, NULL);
    fail_unless (st && gst_structure_get_uint64 (st, "frames-staged",
            &n_staged), "%s: no statistics", ctx);
    fail_unless (n_staged > 0, "%s: no frame staged", ctx);
    gst_structure_free (st);
  }

  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* A push blocked because downstream blocks (the push task waits in a
 * blocked pad, so every engine slot fills) must return when flushing
 * starts.  Downstream that only holds buffers does not block anything: see
 * test_held_outputs_never_block. */
typedef struct
{
  GstHarness *h;
  GRand *rand;
  const GstVideoInfo *info;
  const OpCfg *op;
  GQueue *pending;              /* NULL: do not record references */
  guint n;
  volatile gint pushed;
  volatile gint done;
  GstFlowReturn last;
} Pusher;

static gpointer
pusher_thread (gpointer data)
{
  Pusher *p = data;
  guint i;

  for (i = 0; i < p->n; i++) {
    if (p->pending) {
      push_frame (p->h, p->rand, p->info, p->op, &layout_default,
          i * GST_SECOND, p->pending, "[pusher]");
      p->last = GST_FLOW_OK;
    } else {
      GstBuffer *in = make_input (p->rand, p->info, &layout_default);

      GST_BUFFER_PTS (in) = i * GST_SECOND;
      p->last = gst_harness_push (p->h, in);
    }
    if (p->last != GST_FLOW_OK)
      break;
    g_atomic_int_inc (&p->pushed);
  }
  g_atomic_int_set (&p->done, 1);
  return NULL;
}

/* Waits until the pusher made no progress for 300 ms, or ended. */
static gint
wait_stuck (Pusher * p)
{
  gint before;

  do {
    before = g_atomic_int_get (&p->pushed);
    g_usleep (300 * 1000);
  } while (g_atomic_int_get (&p->pushed) != before &&
      !g_atomic_int_get (&p->done));
  return before;
}

static GstPadProbeReturn
block_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_flush_unblocks_chain)
{
  guint32 seed = co_test_seed ("test_flush_unblocks_chain", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[6]);      /* serial: smallest bound */
  Pusher p = { 0, };
  GThread *t;
  GstBuffer *out;
  GstSegment seg;
  GQueue pending = G_QUEUE_INIT;
  gulong probe;
  gint stuck;
  guint i;
  gchar *ctx = g_strdup_printf ("[flush unblocks chain, GRAY8 64x64 serial "
      "backend=%s seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 64, 64, &info));
  /* downstream blocks: the push task waits in it, the slots fill up */
  probe = gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, block_probe, NULL, NULL);
  p.h = h;
  p.rand = rand;
  p.info = &info;
  p.op = op;
  p.n = 200;
  t = g_thread_new ("pusher", pusher_thread, &p);
  stuck = wait_stuck (&p);
  fail_unless (stuck < 200 && !g_atomic_int_get (&p.done), "%s: 200 frames "
      "pushed while downstream blocked: the in-flight bound does not hold",
      ctx);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_thread_join (t);
  fail_unless (p.last == GST_FLOW_FLUSHING, "%s: the blocked push returned "
      "%s, expected flushing", ctx, gst_flow_get_name (p.last));
  gst_pad_remove_probe (h->sinkpad, probe);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  /* drop what came out before (it was correct or not: invert of random
   * data, we did not keep it), then new frames must come out right */
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  for (i = 0; i < 4; i++) {
    push_frame (h, rand, &info, op, &layout_default, (500 + i) * GST_SECOND,
        &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* A state change downwards deactivates the element's source pad before
 * its sink pad; meanwhile upstream's streaming thread still pushes.  Its
 * sticky events (caps, segment: re-sent after a flush), other serialized
 * events and buffers must then come back FLUSHING, never NOT_NEGOTIATED
 * or ERROR (upstream would post "Internal data stream error").  Seen in
 * CI as a torture-suite failure one run in ten. */
GST_START_TEST (test_events_while_src_flushing)
{
  guint32 seed = co_test_seed ("test_events_while_src_flushing", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[0]);
  GstPad *fsrc = gst_element_get_static_pad (h->element, "src");
  GQueue pending = G_QUEUE_INIT;
  GstBuffer *out;
  GstSegment seg;
  GstFlowReturn ret;
  gchar *ctx = g_strdup_printf ("[events while the source pad flushes, "
      "GRAY8 33x17 backend=%s seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 33, 17, &info));
  push_frame (h, rand, &info, op, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &info, &pending, ctx);

  fail_unless (gst_pad_set_active (fsrc, FALSE));
  /* a new segment: stored on the harness's pad, the push fails, it stays
   * pending; the next buffer re-sends it and gets its flow return */
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.base = GST_SECOND;
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  ret = gst_harness_push (h, make_input (rand, &info, &layout_default));
  fail_unless_equals_string (gst_flow_get_name (ret),
      gst_flow_get_name (GST_FLOW_FLUSHING));
  /* new caps: the same */
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 35, 19, &info));
  ret = gst_harness_push (h, make_input (rand, &info, &layout_default));
  fail_unless_equals_string (gst_flow_get_name (ret),
      gst_flow_get_name (GST_FLOW_FLUSHING));
  fail_if (gst_harness_try_pull (h) != NULL, "%s: output while flushing", ctx);

  /* the state change completes, then goes back up: frames flow and are
   * right */
  fail_unless (gst_element_set_state (h->element, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 35, 19, &info));
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  push_frame (h, rand, &info, op, &layout_default, 2 * GST_SECOND, &pending,
      ctx);
  pull_and_check (h, &info, &pending, ctx);
  gst_object_unref (fsrc);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The variants of test_held_outputs_never_block: operation, engine
 * configuration, a pool budget of two frames (plain buffers after) */
static const struct
{
  const gchar *name;
  guint op, run;                /* op_cfgs[], co_test_run_cfgs[] */
  gboolean small_budget;
} held_variants[] = {
  {.name = "invert-serial",.op = 0,.run = 6},
  {.name = "gamma-overlap-3x5",.op = 2,.run = 3},
  {.name = "gamma-overlap-3x5-budget-2-frames",.op = 2,.run = 3,
      .small_budget = TRUE},
};

/* Downstream that keeps every output buffer (an encoder's look-ahead, a
 * tee branch, gst-check's push-many-then-pull) never blocks chain: the
 * output pool grows.  Both backends, serial (the smallest pool) and 4x4,
 * and a pool budget that runs out (plain buffers after one warning). */
GST_START_TEST (test_held_outputs_never_block)
{
  guint32 seed = co_test_seed ("test_held_outputs_never_block", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[held_variants[__i__].op];
  const RunCfg *run = &co_test_run_cfgs[held_variants[__i__].run];
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  Pusher p = { 0, };
  GThread *t;
  gint64 deadline;
  guint i;
  gchar *ctx = g_strdup_printf ("[held outputs, %s, backend=%s "
      "seed=0x%08x]", held_variants[__i__].name, co_test_backend, seed);

  co_test_print_variant ("test_held_outputs_never_block", __i__,
      held_variants[__i__].name);
  if (held_variants[__i__].small_budget)
    g_object_set (h->element, "pool-budget", (guint64) 2 * 161 * 93 * 4, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 161, 93, &info));
  p.h = h;
  p.rand = rand;
  p.info = &info;
  p.op = op;
  p.pending = &pending;
  p.n = 60;
  t = g_thread_new ("pusher", pusher_thread, &p);
  deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (!g_atomic_int_get (&p.done) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  fail_unless (g_atomic_int_get (&p.done), "%s: chain blocked after %d of "
      "60 frames while the harness held every output", ctx,
      g_atomic_int_get (&p.pushed));
  g_thread_join (t);
  fail_unless_equals_int (g_atomic_int_get (&p.pushed), 60);
  for (i = 0; i < 60; i++)
    pull_and_check (h, &info, &pending, ctx);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_state_cycling)
{
  guint32 seed = co_test_seed ("test_state_cycling", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[5];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_I420,
  };
  guint cycle;

  for (cycle = 0; cycle < G_N_ELEMENTS (fmts); cycle++) {
    GstVideoInfo info;
    GQueue pending = G_QUEUE_INIT;
    gchar *ctx = g_strdup_printf ("[state cycle %u, %s 45x23 backend=%s "
        "seed=0x%08x]", cycle, gst_video_format_to_string (fmts[cycle]),
        co_test_backend, seed);
    gchar *sid = g_strdup_printf ("cycle-%u", cycle);
    GstStateChangeReturn ret;

    if (cycle > 0) {
      if (cycle % 2) {
        ret = gst_element_set_state (h->element, GST_STATE_NULL);
        fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
      } else {
        /* the long way down and up */
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
      }
      ret = gst_element_set_state (h->element, GST_STATE_PLAYING);
      fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_stream_start (sid)));
    }
    gst_harness_set_src_caps (h, caps_of (fmts[cycle], 45, 23, &info));
    push_frame (h, rand, &info, op, &layout_default, 0, &pending, ctx);
    push_frame (h, rand, &info, op, &layout_default, GST_SECOND, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    g_free (ctx);
    g_free (sid);
  }
  /* down with a frame in flight */
  {
    GstVideoInfo info;
    GQueue pending = G_QUEUE_INIT;
    GstBuffer *b;
    gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 640, 480,
            &info));
    push_frame (h, rand, &info, &op_cfgs[8], &layout_default, 0, &pending,
        "[state cycle with a frame in flight]");
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    while ((b = g_queue_pop_head (&pending)))
      gst_buffer_unref (b);
  }
  teardown_harness (h);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  guint op, run;                /* op_cfgs[], co_test_run_cfgs[] */
} batch_flush_variants[] = {
  {.name = "invert-overlap-3x5",.op = 0,.run = 3},
  {.name = "box-blur-serial",.op = 7,.run = 6},
};

/* A flush while a batch is being filled drops it (it was never submitted);
 * the frames after the flush come out right.  Then a partial batch is left
 * pending at teardown (dropped, nothing leaked or hung). */
GST_START_TEST (test_batch_flush)
{
  guint32 seed = co_test_seed ("test_batch_flush", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[batch_flush_variants[__i__].op];
  const RunCfg *run = &co_test_run_cfgs[batch_flush_variants[__i__].run];
  const guint batch = 4;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT, dropped = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  gchar *ctx = g_strdup_printf ("[batch=%u flush, %s I420 77x43 %s backend=%s "
      "seed=0x%08x]", batch, od, rd, co_test_backend, seed);
  GstSegment seg;
  guint i, n;

  co_test_print_variant ("test_batch_flush", __i__,
      batch_flush_variants[__i__].name);
  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 77, 43, &info));
  /* one full batch out, then a partial one pending */
  for (i = 0; i < batch; i++)
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
  for (i = 0; i < batch; i++)
    pull_and_check (h, &info, &pending, ctx);
  for (i = 0; i < batch - 1; i++)
    push_frame (h, rand, &info, op, &layout_default, (10 + i) * GST_SECOND,
        &dropped, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  /* the partial batch is dropped by the flush, unless the batch timer sent
   * it first (no frame for 20 ms: a loaded machine): then the frames that
   * came out before the flush are the first of it, in order, and right */
  n = gst_harness_buffers_in_queue (h);
  fail_unless (n < batch, "%s: %u frames out of a partial batch of %u", ctx,
      n, batch - 1);
  for (i = 0; i < n; i++)
    pull_and_check (h, &info, &dropped, ctx);

  for (i = 0; i < batch + 1; i++)
    push_frame (h, rand, &info, op, &layout_default, (100 + i) * GST_SECOND,
        &pending, ctx);
  /* the batch after the flush is full: out without an event */
  for (i = 0; i < batch; i++)
    pull_and_check (h, &info, &pending, ctx);
  /* one frame left pending in a partial batch at teardown */
  fail_unless_equals_int (g_queue_get_length (&pending), 1);
  g_queue_clear_full (&pending, (GDestroyNotify) gst_buffer_unref);
  g_queue_clear_full (&dropped, (GDestroyNotify) gst_buffer_unref);
  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
  g_free (od);
  g_rand_free (rand);
}

GST_END_TEST;

/* A CAPS event whose drain a FLUSH_START cuts short must not overtake a
 * frame the push task is still pushing: downstream would get that frame
 * after the new caps (a frame of 64x48 with caps of 32x16).  The push task
 * is held inside its push (a probe on our source pad) while the CAPS event
 * drains on another thread; FLUSH_START then ends the drain and is held
 * between the element's flushing and its going downstream (a
 * -Dfault-injection hook), the window in which pushing the new caps
 * would overtake the frame; the held push goes on once downstream has the
 * new caps or the flush.  Every buffer downstream must be the size its
 * caps say. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean go;                  /* the held push may go on */
  gboolean held;                /* the first push is being held */
  gsize bad_size;               /* a buffer of the wrong size for its caps */
  gsize want_size;
} CapsOrder;

static GstPadProbeReturn
hold_first_push (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info
    G_GNUC_UNUSED, gpointer data)
{
  CapsOrder *o = data;
  gint64 until = g_get_monotonic_time () + 3 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&o->lock);
  if (!o->held) {
    o->held = TRUE;
    g_cond_broadcast (&o->cond);
    while (!o->go && g_cond_wait_until (&o->cond, &o->lock, until));
  }
  g_mutex_unlock (&o->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
watch_downstream (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  CapsOrder *o = data;

  g_mutex_lock (&o->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstVideoInfo vi;

    if (caps && gst_video_info_from_caps (&vi, caps) &&
        gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)) !=
        GST_VIDEO_INFO_SIZE (&vi) && !o->bad_size) {
      o->bad_size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
      o->want_size = GST_VIDEO_INFO_SIZE (&vi);
    }
    if (caps)
      gst_caps_unref (caps);
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS ||
        GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_START) {
      o->go = TRUE;
      g_cond_broadcast (&o->cond);
    }
  }
  g_mutex_unlock (&o->lock);
  return GST_PAD_PROBE_OK;
}

static gpointer
push_caps_event (gpointer data)
{
  GstHarness *h = data;
  GstCaps *caps = g_object_get_data (G_OBJECT (h->element), "co-test-caps");

  gst_harness_push_event (h, gst_event_new_caps (caps));
  return NULL;
}

GST_START_TEST (test_caps_drain_cut_by_flush)
{
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_flush_delay_us");
  guint32 seed = co_test_seed ("test_caps_drain_cut_by_flush", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo a, b;
  GstCaps *caps_a = caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &a);
  GstCaps *caps_b = caps_of (GST_VIDEO_FORMAT_RGBA, 32, 16, &b);
  GstHarness *h;
  GstPad *src;
  GQueue pending = G_QUEUE_INIT;
  CapsOrder o;
  GThread *t;
  gulong hold;
  gchar *ctx = g_strdup_printf ("[caps drain cut by a flush, RGBA 64x48 then "
      "32x16, backend=%s seed=0x%08x]", co_test_backend, seed);

  /* the suite adds this test only where the hook exists */
  fail_unless (set_delay != NULL, "%s: no co_test_set_flush_delay_us", ctx);
  memset (&o, 0, sizeof (o));
  g_mutex_init (&o.lock);
  g_cond_init (&o.cond);
  h = make_harness (op, &co_test_run_cfgs[3]);
  gst_harness_set_src_caps (h, gst_caps_ref (caps_a));
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      watch_downstream, &o, NULL);
  src = gst_element_get_static_pad (h->element, "src");
  hold = gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, hold_first_push,
      &o, NULL);

  /* a frame of A, held inside its push */
  fail_unless_equals_int (gst_harness_push (h, make_input (rand, &a,
              &layout_default)), GST_FLOW_OK);
  g_mutex_lock (&o.lock);
  while (!o.held)
    g_cond_wait (&o.cond, &o.lock);
  g_mutex_unlock (&o.lock);
  /* caps B: its drain waits for that frame */
  g_object_set_data_full (G_OBJECT (h->element), "co-test-caps",
      gst_caps_ref (caps_b), (GDestroyNotify) gst_caps_unref);
  t = g_thread_new ("caps", push_caps_event, h);
  g_usleep (200 * 1000);
  /* the flush ends the drain and waits 300 ms before going downstream */
  set_delay (300 * 1000);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  set_delay (0);
  g_thread_join (t);
  gst_pad_remove_probe (src, hold);
  gst_object_unref (src);
  fail_unless (o.bad_size == 0, "%s: a buffer of %" G_GSIZE_FORMAT " bytes "
      "went downstream under caps of %" G_GSIZE_FORMAT "-byte frames: the new "
      "caps overtook a frame being pushed", ctx, o.bad_size, o.want_size);

  /* after the flush: caps B again, and its frames come out right */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps (h, gst_caps_ref (caps_b));
  while (gst_harness_buffers_in_queue (h))
    gst_buffer_unref (gst_harness_pull (h));
  push_frame (h, rand, &b, op, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &b, &pending, ctx);
  fail_unless (o.bad_size == 0, "%s: a buffer of the wrong size after the "
      "flush", ctx);
  teardown_harness (h);
  gst_caps_unref (caps_a);
  gst_caps_unref (caps_b);
  g_mutex_clear (&o.lock);
  g_cond_clear (&o.cond);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* backend=cuda: an error at the state change where no GPU is usable (the
 * error message says so); where one is, PLAYING works. */
GST_START_TEST (test_backend_cuda_state_change)
{
  GstElement *e = gst_element_factory_make (CO_TEST_VIDEO_ELEMENT, NULL);
  GstBus *bus = gst_bus_new ();
  GstStateChangeReturn ret;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  ret = gst_element_set_state (e, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    gchar *text, *lower;
    fail_unless (msg != NULL, "state change failed with no ERROR message");
    text = co_test_error_text (msg);
    lower = g_ascii_strdown (text, -1);
    fail_unless (strstr (lower, "cuda") != NULL, "the error does not "
        "mention CUDA: \"%s\"", text);
    GST_INFO ("backend=cuda refused: %s", text);
    g_free (lower);
    g_free (text);
    gst_message_unref (msg);
  } else {
    fail_unless_equals_int (gst_element_get_state (e, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_lifecycle_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-lifecycle");
  TCase *tc;
  guint i;

  tc = co_test_new_tcase (s, "state", leaks_teardown);
  tcase_add_test (tc, test_state_cycling);
  tcase_add_test (tc, test_backend_cuda_state_change);

  tc = co_test_new_tcase (s, "drain-flush", leaks_teardown);
  tcase_add_loop_test (tc, test_eos_in_flight, 0, G_N_ELEMENTS (eos_variants));
  for (i = 0; i < G_N_ELEMENTS (flush_variants); i++)
    co_test_add_variant (tc, test_flush_midstream, i, flush_variants[i].name,
        flush_variant_missing (i));
  tcase_add_test (tc, test_flush_unblocks_chain);
  tcase_add_test (tc, test_events_while_src_flushing);
  tcase_add_loop_test (tc, test_held_outputs_never_block, 0,
      G_N_ELEMENTS (held_variants));
  tcase_add_loop_test (tc, test_batch_flush, 0,
      G_N_ELEMENTS (batch_flush_variants));
  co_test_add_if (tc, test_caps_drain_cut_by_flush,
      co_test_hook_missing ("co_test_set_flush_delay_us"));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-lifecycle",
      video_lifecycle_suite);
}
