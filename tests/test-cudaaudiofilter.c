/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudaaudiofilter, against an independent reference
 * (co-audio-ref.c: a naive double-precision convolution of the whole
 * concatenated input stream, causal, zero history at the start and after
 * every reset, written from the specification, sharing no code
 * with the plugin), with the bounds co-audio-ref.h states for every
 * output sample.
 *
 * Environment:
 *   CO_TEST_BACKEND  "cpu" (default) or "cuda".  With "cuda" the program
 *                    runs every test in one process (CK_FORK=no: CUDA does
 *                    not survive fork) and exits 77 (skipped) with the reason
 *                    on stderr when no CUDA device is usable.
 *   CO_TEST_SEED     base seed (default 0xa0d10404); every failure message
 *                    prints the seed of its test.
 *   CO_TEST_FULL     "1": every stream of the correctness matrix with all
 *                    seven engine configurations (default: two each).
 *   CO_TEST_LEAKS    "0": no leak check.  Otherwise, unless GST_TRACERS is
 *                    already set, the leaks tracer is enabled and every test
 *                    fails when GstObjects or GstMiniObjects it created are
 *                    still alive after it.
 *   CO_TEST_TIMING   set: print every stream's wall time on stderr.
 *   GST_CHECKS       the usual gst-check glob of test names to run.
 */

#include <math.h>
#include <string.h>
#include <stdlib.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>

#include "co-audio-ref.h"
#include "co-test-util.h"
#include "co-test-meta.h"
#include "co-test-fault.h"

#define ELEMENT "cudaaudiofilter"
#define DEFAULT_SEED 0xa0d10404u
#define RATE 48000

/* ------------------------------------------------------------------------ */
/* Configurations                                                            */
/* ------------------------------------------------------------------------ */

static const guint channel_set[] = { 1, 2, 3, 7, 64 };
static const guint taps_set[] = { 1, 3, 64, 1023 };

#define N_CHANNELS G_N_ELEMENTS (channel_set)
#define N_TAPSETS G_N_ELEMENTS (taps_set)

/* ------------------------------------------------------------------------ */
/* Leak check (leaks tracer activity checkpoints)                            */
/* ------------------------------------------------------------------------ */

static void
leaks_teardown (void)
{
  co_test_leaks_check (FALSE);
}

/* ------------------------------------------------------------------------ */
/* Harness and streams                                                       */
/* ------------------------------------------------------------------------ */

/* 3 and 64 channels unpositioned, 7 with no channel-mask at all (as signal
 * sources may send) */
static gchar *
caps_str_rate (const Sig * s, gint rate)
{
  return g_strdup_printf ("audio/x-raw, format=%s, rate=%d, channels=%u, "
      "layout=interleaved%s", s->s16 ? "S16LE" : "F32LE", rate, s->channels,
      s->channels == 3 || s->channels == 64 ? ", channel-mask=(bitmask)0" : "");
}

static gchar *
caps_str (const Sig * s)
{
  return caps_str_rate (s, RATE);
}

static void
set_taps (GstElement * e, const gdouble * taps, guint n)
{
  GValue arr = G_VALUE_INIT;
  guint k;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (k = 0; k < n; k++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, taps[k]);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (e), "taps", &arr);
  g_value_unset (&arr);
}

static void
configure_sig (GstElement * e, const Sig * s)
{
  gst_util_set_object_arg (G_OBJECT (e), "operation", s->fir ? "fir" : "gain");
  if (s->fir)
    set_taps (e, s->taps, s->n_taps);
  else
    g_object_set (e, "gain-db", s->gain_db, NULL);
}

static GstElement *
make_element (const Sig * s, const RunCfg * run)
{
  GstElement *e = co_test_make_element (ELEMENT);

  g_object_set (e, "post-messages", FALSE, NULL);
  if (s)
    configure_sig (e, s);
  if (run)
    co_test_set_run (e, run);
  return e;
}

static GstHarness *
make_harness (const Sig * s, const RunCfg * run)
{
  GstElement *e = make_element (s, run);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");
  gchar *caps = caps_str (s);

  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* One buffer's expected output. */
typedef struct
{
  guint64 offset;               /* the input's buffer offset (its index) */
  guint64 first_frame;          /* its first frame in the reference stream */
  gsize frames;
  const Sig *sig;
  gdouble *y, *ab;
} Expected;

static void
expected_free (Expected * x)
{
  g_free (x->y);
  g_free (x->ab);
  g_free (x);
}

/* A stream through one harness: inputs pushed, expected outputs queued,
 * outputs pulled and checked in order. */
typedef struct _Stream Stream;
struct _Stream
{
  GstHarness *h;
  const Sig *sig;
  Ref ref;
  GQueue pending;
  StreamErr se;
  guint64 next_offset;
  guint64 ref_frame;            /* frames since the reference's last reset */
  GstClockTime pts;
  GRand *rand;
  gchar *ctx;
  guint window;                 /* outputs left unpulled at most */
  gboolean keep_outputs;        /* collect every output's bytes */
  GByteArray *outputs;
  /* optional: each input before it is pushed, each output once checked
   * (with its input's offset) */
  void (*on_push) (Stream * st, GstBuffer * in, guint64 offset);
  void (*on_pull) (Stream * st, GstBuffer * out, guint64 offset);
  gpointer user_data;
};

static void
stream_init (Stream * st, GstHarness * h, const Sig * sig, GRand * rand,
    const gchar * ctx)
{
  memset (st, 0, sizeof (*st));
  st->h = h;
  st->sig = sig;
  co_aref_init (&st->ref, sig);
  g_queue_init (&st->pending);
  st->rand = rand;
  st->ctx = g_strdup (ctx);
  st->window = 3;
}

static void
stream_clear (Stream * st)
{
  g_queue_clear_full (&st->pending, (GDestroyNotify) expected_free);
  co_aref_clear (&st->ref);
  g_free (st->ctx);
  if (st->outputs)
    g_byte_array_unref (st->outputs);
}

/* The reference (only) starts again from zero history. */
static void
stream_ref_reset (Stream * st)
{
  co_aref_reset (&st->ref);
  st->ref_frame = 0;
}

/* The reference follows a new signal (taps, gain or format changed). */
static void
stream_set_sig (Stream * st, const Sig * sig)
{
  co_aref_clear (&st->ref);
  co_aref_init (&st->ref, sig);
  st->sig = sig;
  st->ref_frame = 0;
}

static void
fill_signal (GRand * rand, const Sig * s, guint8 * data, gsize frames)
{
  gsize i, ns = frames * s->channels;

  for (i = 0; i < ns; i++) {
    if (s->s16) {
      /* full range, the extremes now and then */
      guint32 r = g_rand_int (rand);
      gint16 v = (r & 0xff) == 0 ? ((r & 0x100) ? 32767 : -32768) :
          (gint16) (r >> 16);
      memcpy (data + 2 * i, &v, 2);
    } else {
      gfloat v = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
      memcpy (data + 4 * i, &v, 4);
    }
  }
}

static void
check_buffer (Stream * st, GstBuffer * out, Expected * x)
{
  GstMapInfo map;
  gchar *c = g_strdup_printf ("%s, buffer %" G_GUINT64_FORMAT " (%"
      G_GSIZE_FORMAT " frames)", st->ctx, x->offset, x->frames);

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (out), x->offset);
  fail_unless (gst_buffer_get_size (out) == x->frames * co_sig_bpf (x->sig),
      "%s: output has %" G_GSIZE_FORMAT " bytes, input had %" G_GSIZE_FORMAT,
      c, gst_buffer_get_size (out), x->frames * co_sig_bpf (x->sig));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  co_aref_check_samples (x->sig, map.data, x->y, x->ab, x->frames,
      x->first_frame, &st->se, c);
  if (st->keep_outputs)
    g_byte_array_append (st->outputs, map.data, map.size);
  gst_buffer_unmap (out, &map);
  g_free (c);
}

static void
stream_pull_one (Stream * st)
{
  Expected *x = g_queue_pop_head (&st->pending);
  GstBuffer *out;

  fail_unless (x != NULL);
  out = co_test_pull_buffer (st->h, st->ctx);
  check_buffer (st, out, x);
  if (st->on_pull)
    st->on_pull (st, out, x->offset);
  gst_buffer_unref (out);
  expected_free (x);
}

/* Pushes a new random buffer of @frames frames (DISCONT if asked: the
 * reference resets too). */
static void
stream_push (Stream * st, gsize frames, gboolean discont)
{
  const Sig *s = st->sig;
  gsize bytes = frames * co_sig_bpf (s);
  GstBuffer *in = gst_buffer_new_allocate (NULL, bytes, NULL);
  Expected *x = g_new0 (Expected, 1);
  GstMapInfo map;
  GstFlowReturn ret;

  if (discont)
    stream_ref_reset (st);
  fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
  fill_signal (st->rand, s, map.data, frames);
  x->offset = st->next_offset++;
  x->first_frame = st->ref_frame;
  x->frames = frames;
  x->sig = s;
  x->y = g_new (gdouble, frames * s->channels + 1);
  x->ab = g_new (gdouble, frames * s->channels + 1);
  co_aref_process (&st->ref, map.data, frames, x->y, x->ab);
  gst_buffer_unmap (in, &map);
  st->ref_frame += frames;

  GST_BUFFER_OFFSET (in) = x->offset;
  GST_BUFFER_PTS (in) = st->pts;
  GST_BUFFER_DURATION (in) = gst_util_uint64_scale_int (frames, GST_SECOND,
      RATE);
  st->pts += GST_BUFFER_DURATION (in);
  if (discont)
    GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  g_queue_push_tail (&st->pending, x);
  if (st->on_push)
    st->on_push (st, in, x->offset);

  ret = gst_harness_push (st->h, in);
  fail_unless (ret == GST_FLOW_OK, "%s: push of buffer %" G_GUINT64_FORMAT
      " (%" G_GSIZE_FORMAT " frames) returned %s", st->ctx, x->offset, frames,
      gst_flow_get_name (ret));
  while (g_queue_get_length (&st->pending) > st->window)
    stream_pull_one (st);
}

static void
stream_pull_all (Stream * st)
{
  while (!g_queue_is_empty (&st->pending))
    stream_pull_one (st);
}

/* Random buffer sizes: log-uniform from 1 frame up, some of exactly 1 frame,
 * some around the halo, and a few large ones (up to @max_frames) while the
 * budget of frames lasts. */
static GArray *
random_sizes (GRand * rand, guint64 budget, gsize max_frames, guint halo,
    guint max_count)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gsize));
  guint64 total = 0;
  gsize small_max = MIN (max_frames, 8192);

  while (total < budget && a->len < max_count) {
    gsize n;
    guint pick = g_rand_int_range (rand, 0, 20);

    if (pick == 0)
      n = 1;
    else if (pick == 1 && halo > 0)
      n = MAX (halo + g_rand_int_range (rand, -2, 3), 1);
    else if (pick == 2 && max_frames > small_max)
      n = g_rand_int_range (rand, max_frames / 4, max_frames + 1);
    else
      n = (gsize) exp (g_rand_double_range (rand, 0.0, log (small_max + 1.0)));
    n = CLAMP (n, 1, max_frames);
    if (total + n > budget && a->len > 0)
      n = MAX (budget - total, 1);
    g_array_append_val (a, n);
    total += n;
  }
  return a;
}

/* One stream: @sizes through a fresh harness with @run; every output
 * checked; EOS at the end. */
static void
run_stream (const Sig * s, const RunCfg * run, GArray * sizes, GRand * rand,
    guint32 seed, GByteArray ** outputs)
{
  GstHarness *h = make_harness (s, run);
  gchar *sd = co_sig_desc (s), *rd = co_test_run_desc (run), *ctx;
  Stream st;
  guint i;
  GstEvent *ev;
  gboolean eos = FALSE;

  gint64 t_start = g_get_monotonic_time ();

  ctx = g_strdup_printf ("[%s %s backend=%s %u buffers seed=0x%08x]", sd, rd,
      co_test_backend, sizes->len, seed);
  stream_init (&st, h, s, rand, ctx);
  if (outputs) {
    st.keep_outputs = TRUE;
    st.outputs = g_byte_array_new ();
  }
  for (i = 0; i < sizes->len; i++)
    stream_push (&st, g_array_index (sizes, gsize, i), FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  stream_pull_all (&st);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
      eos = TRUE;
    gst_event_unref (ev);
  }
  fail_unless (eos, "%s: no EOS at the end", ctx);
  co_aref_check_stream_error (s, &st.se, ctx);
  GST_INFO ("%s: %" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT
      " S16 samples 1 LSB off", ctx, st.se.samples, st.se.inexact_s16);

  if (outputs)
    *outputs = g_byte_array_ref (st.outputs);
  if (g_getenv ("CO_TEST_TIMING"))
    g_printerr ("%s: %.3f s\n", ctx, (g_get_monotonic_time () - t_start) / 1e6);
  stream_clear (&st);
  gst_harness_teardown (h);
  g_free (ctx);
  g_free (sd);
  g_free (rd);
}

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
 * on.  Cases 2, 3: the same with every input staged (copied into
 * page-locked memory by a few threads; a -Dfault-injection hook on the
 * CPU backend, the harness's large buffers on CUDA): the history of the
 * next buffer is read from the copy, so it must be complete first. */
GST_START_TEST (test_fir_large_buffers)
{
  guint32 seed = co_test_seed ("test_fir_large_buffers", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  CoTestSetFlag force = __i__ >= 2 ?
      co_test_plugin_symbol ("co_test_set_force_staging") : NULL;
  static const gsize f32_sizes[] = { 1 << 20, 1, 999999, 7, 300000,
    (1 << 20) + 3, 2, 5000
  };
  static const gsize s16_sizes[] = { 3, 250000, 1, 700, 1 << 20, 1022, 1023 };
  Sig s = { __i__ % 2 == 1, __i__ % 2 == 1 ? 3 : 2, TRUE,
    __i__ % 2 == 1 ? 255 : 64,
    NULL, 0.0
  };
  const gsize *v = __i__ % 2 == 1 ? s16_sizes : f32_sizes;
  guint n = __i__ % 2 == 1 ? G_N_ELEMENTS (s16_sizes) :
      G_N_ELEMENTS (f32_sizes);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (gsize));

  g_array_append_vals (sizes, v, n);
  s.taps = co_sig_random_taps (rand, s.n_taps, s.s16);
  if (force)
    force (TRUE);
  run_stream (&s, &co_test_run_cfgs[__i__ % 2 == 1 ? 5 : 3], sizes, rand,
      seed, NULL);
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

/* The same stream through every engine configuration: identical bytes
 * (the per-sample sum order does not depend on chunking), and right. */
GST_START_TEST (test_configs_agree)
{
  guint32 seed = co_test_seed ("test_configs_agree", __i__);
  Sig s = { __i__ == 1, __i__ == 1 ? 7 : 3, TRUE, __i__ == 1 ? 64 : 1023,
    NULL, 0.0
  };
  GByteArray *ref_out = NULL;
  guint r;

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
/* Stream events                                                             */
/* ------------------------------------------------------------------------ */

/* DISCONT buffers restart the filter (zero history); others continue. */
GST_START_TEST (test_discont_resets)
{
  guint32 seed = co_test_seed ("test_discont_resets", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { __i__ % 2 == 1, 2, TRUE, 64, NULL, 0.0 };
  const RunCfg *run = &co_test_run_cfgs[__i__ < 2 ? 5 : 6];
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
 * before it come out right or not at all. */
GST_START_TEST (test_flush_resets)
{
  guint32 seed = co_test_seed ("test_flush_resets", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { FALSE, 64, TRUE, 1023, NULL, 0.0 };
  static const guint runs[] = { 3, 5, 0, 6 };
  const RunCfg *run = &co_test_run_cfgs[runs[__i__]];
  GstHarness *h;
  Stream st;
  GstSegment seg;
  gchar *rd = co_test_run_desc (run), *ctx;
  guint round, i;

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
 * their inputs' lengths (no tail). */
GST_START_TEST (test_eos_in_flight)
{
  guint32 seed = co_test_seed ("test_eos_in_flight", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { __i__ == 1, 7, TRUE, 1023, NULL, 0.0 };
  static const guint runs[] = { 5, 6, 0 };
  const RunCfg *run = &co_test_run_cfgs[runs[__i__]];
  GstHarness *h;
  Stream st;
  gchar *rd = co_test_run_desc (run), *ctx;
  GstEvent *ev;
  gboolean eos = FALSE;
  guint i, n = 4;

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

/* Taps changed while buffers are in flight: the buffers pushed before use
 * the old taps and history, those after the new taps from zero history.
 * Setting the same taps again changes nothing; operation changes reset. */
GST_START_TEST (test_taps_change)
{
  guint32 seed = co_test_seed ("test_taps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 5 : 6];
  Sig a = { FALSE, 3, TRUE, 64, NULL, 0.0 };
  Sig b = { FALSE, 3, TRUE, 1023, NULL, 0.0 };
  Sig c = { FALSE, 3, TRUE, 1023, NULL, 0.0 };
  Sig g = { FALSE, 3, FALSE, 1, NULL, -6.0 };
  GstHarness *h;
  Stream st;
  gchar *rd = co_test_run_desc (run), *ctx;
  guint i;

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

/* Identity settings (gain 0 dB, a one-tap FIR of 1): every input buffer
 * itself comes out, and the statistics count it as passed through. */
GST_START_TEST (test_passthrough)
{
  guint32 seed = co_test_seed ("test_passthrough", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  gdouble one = 1.0;
  Sig sig = { __i__ == 0, 3, __i__ == 1, 1, &one, 0.0 };
  GstHarness *h = make_harness (&sig, &co_test_run_cfgs[3]);
  GstStructure *st = NULL;
  guint64 frames_pt = 0;
  gboolean pt = FALSE;
  guint i;
  const guint n = 5;
  gchar *ctx = g_strdup_printf ("[passthrough, %s, backend=%s seed=0x%08x]",
      __i__ ? "F32LE fir taps=<1>" : "S16LE gain-db=0", co_test_backend,
      seed);

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
  const gboolean fir = __i__ == 1;
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

/* New caps mid-stream: a new format, the history starts from zero. */
GST_START_TEST (test_caps_change)
{
  guint32 seed = co_test_seed ("test_caps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 3 : 6];
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

  stream_init (&st, h, &sigs[0], rand, ctx);
  for (stage = 0; stage < G_N_ELEMENTS (sigs); stage++) {
    if (stage > 0) {
      gchar *caps = caps_str_rate (&sigs[stage], rates[stage]);

      if (stage != 2)
        stream_set_sig (&st, &sigs[stage]);
      else
        st.sig = &sigs[stage];  /* identical: the reference continues */
      if (__i__ == 0)
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
/* Errors and properties                                                     */
/* ------------------------------------------------------------------------ */

/* A buffer that is not a whole number of frames: an error naming sizes. */
GST_START_TEST (test_malformed_buffer)
{
  guint32 seed = co_test_seed ("test_malformed_buffer", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { __i__ == 1, 3, TRUE, 5, NULL, 0.0 };
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  Stream st;
  GstBuffer *in;
  GstMessage *msg;
  GstFlowReturn ret;
  gsize bpf = co_sig_bpf (&s), bad = 10 * bpf + 1;
  gchar *text, *bs, *fs;

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
  GstElement *e = gst_element_factory_make (ELEMENT, NULL);
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
  e = gst_element_factory_make (ELEMENT, NULL);
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
  pipe = gst_parse_launch (ELEMENT " name=f operation=fir "
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
      "channels=2 ! " ELEMENT " name=f operation=fir taps=\"<0.25, 0.5, "
      "0.25>\" backend=%s ! fakesink", co_test_backend);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err), *f;
  GstStructure *pp = NULL;
  gboolean is_auto = FALSE;
  GstBus *bus;
  GstMessage *msg;

  if (!gst_registry_check_feature_version (gst_registry_get (),
          "audiotestsrc", 1, 0, 0)) {
    /* GST_PLUGIN_SYSTEM_PATH_1_0 is empty and GST_PLUGIN_PATH lacks the
     * system plugins */
    GST_WARNING ("no audiotestsrc: pipeline test skipped");
    g_clear_object (&pipe);
    g_clear_error (&err);
    g_free (desc);
    return;
  }
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

/* 40 buffers of random sizes; their outputs go back to the element's pool
 * and come out again (a reused buffer carries no stale copy either). */
GST_START_TEST (test_metas_survive)
{
  guint32 seed = co_test_seed ("test_metas_survive", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  Sig s = { __i__ % 2 == 1, __i__ < 2 ? 2 : 7, __i__ >= 2, 17, NULL, -6.0 };
  const RunCfg *run = &co_test_run_cfgs[__i__ % 2 ? 6 : 3];
  MetaLog log = { g_ptr_array_new (), 0 };
  GArray *sizes;
  GstHarness *h;
  Stream st;
  gchar *sd, *rd, *ctx;
  guint i;

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
cudaaudiofilter_suite (void)
{
  Suite *s = suite_create (ELEMENT);
  TCase *tc;

  tc = co_test_new_tcase (s, "reference", leaks_teardown);
  tcase_add_test (tc, test_reference_self_check);

  tc = co_test_new_tcase (s, "properties", leaks_teardown);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_pipeline);

  tc = co_test_new_tcase (s, "correctness", leaks_teardown);
  tcase_add_loop_test (tc, test_fir_streams, 0, 2 * N_CHANNELS * N_TAPSETS);
  tcase_add_loop_test (tc, test_fir_large_buffers, 0, 4);
  tcase_add_loop_test (tc, test_gain, 0, 24);
  tcase_add_loop_test (tc, test_configs_agree, 0, 2);

  tc = co_test_new_tcase (s, "stream", leaks_teardown);
  tcase_add_loop_test (tc, test_discont_resets, 0, 4);
  tcase_add_loop_test (tc, test_flush_resets, 0, 4);
  tcase_add_loop_test (tc, test_eos_in_flight, 0, 3);
  tcase_add_loop_test (tc, test_taps_change, 0, 2);
  tcase_add_test (tc, test_gain_change);
  tcase_add_loop_test (tc, test_caps_change, 0, 2);
  tcase_add_test (tc, test_state_cycle);
  tcase_add_test (tc, test_latency_query);
  tcase_add_loop_test (tc, test_metas_survive, 0, 4);

  tc = co_test_new_tcase (s, "citizen", leaks_teardown);
  tcase_add_loop_test (tc, test_passthrough, 0, 2);
  tcase_add_loop_test (tc, test_passthrough_switch, 0, 2);
  tcase_add_test (tc, test_qos);

  tc = co_test_new_tcase (s, "errors", leaks_teardown);
  tcase_add_loop_test (tc, test_malformed_buffer, 0, 2);

  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  int nf;

  /* here an element that cannot be made is a skip too */
  nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, TRUE);
  if (nf != 0)
    return nf;
  g_print ("cudaaudiofilter tests: backend=%s seed=0x%08x%s\n", co_test_backend,
      co_test_base_seed, co_test_full_matrix ? " (full matrix)" : "");

  s = cudaaudiofilter_suite ();
  nf = gst_check_run_suite (s, "cudaaudiofilter", __FILE__);
  co_test_leaks_free ();
  return nf == 0 ? 0 : 1;
}
