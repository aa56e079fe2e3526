/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-audio: what the cudaaudiofilter suites share (see
 * co-test-audio.h).
 */

#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "co-test-audio.h"

#define ELEMENT CO_TEST_AUDIO_ELEMENT
#define DEFAULT_SEED 0xa0d10404u

/* ------------------------------------------------------------------------ */
/* Configurations                                                            */
/* ------------------------------------------------------------------------ */

const guint channel_set[N_CHANNELS] = { 1, 2, 3, 7, 64 };
const guint taps_set[N_TAPSETS] = { 1, 3, 64, 1023 };

/* ------------------------------------------------------------------------ */
/* Leak check (leaks tracer activity checkpoints)                            */
/* ------------------------------------------------------------------------ */

void
leaks_teardown (void)
{
  co_test_leaks_check (FALSE);
}

/* ------------------------------------------------------------------------ */
/* Harness and streams                                                       */
/* ------------------------------------------------------------------------ */

/* 3 and 64 channels unpositioned, 7 with no channel-mask at all (as signal
 * sources may send) */
gchar *
caps_str_rate (const Sig * s, gint rate)
{
  return g_strdup_printf ("audio/x-raw, format=%s, rate=%d, channels=%u, "
      "layout=interleaved%s", s->s16 ? "S16LE" : "F32LE", rate, s->channels,
      s->channels == 3 || s->channels == 64 ? ", channel-mask=(bitmask)0" : "");
}

gchar *
caps_str (const Sig * s)
{
  return caps_str_rate (s, RATE);
}

void
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

void
configure_sig (GstElement * e, const Sig * s)
{
  gst_util_set_object_arg (G_OBJECT (e), "operation", s->fir ? "fir" : "gain");
  if (s->fir)
    set_taps (e, s->taps, s->n_taps);
  else
    g_object_set (e, "gain-db", s->gain_db, NULL);
}

GstElement *
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

GstHarness *
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

void
expected_free (Expected * x)
{
  g_free (x->y);
  g_free (x->ab);
  g_free (x);
}

void
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

void
stream_clear (Stream * st)
{
  g_queue_clear_full (&st->pending, (GDestroyNotify) expected_free);
  co_aref_clear (&st->ref);
  g_free (st->ctx);
  if (st->outputs)
    g_byte_array_unref (st->outputs);
}

/* The reference (only) starts again from zero history. */
void
stream_ref_reset (Stream * st)
{
  co_aref_reset (&st->ref);
  st->ref_frame = 0;
}

/* The reference follows a new signal (taps, gain or format changed). */
void
stream_set_sig (Stream * st, const Sig * sig)
{
  co_aref_clear (&st->ref);
  co_aref_init (&st->ref, sig);
  st->sig = sig;
  st->ref_frame = 0;
}

void
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

void
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

void
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
void
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

void
stream_pull_all (Stream * st)
{
  while (!g_queue_is_empty (&st->pending))
    stream_pull_one (st);
}

/* Random buffer sizes: log-uniform from 1 frame up, some of exactly 1 frame,
 * some around the halo, and a few large ones (up to @max_frames) while the
 * budget of frames lasts. */
GArray *
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
void
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
/* main()                                                                    */
/* ------------------------------------------------------------------------ */

int
co_test_audio_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void))
{
  int nf;

  /* here an element that cannot be made is a skip too */
  nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, TRUE);
  if (nf != 0)
    return nf;
  g_print ("%s tests: backend=%s seed=0x%08x%s\n", name, co_test_backend,
      co_test_base_seed, co_test_full_matrix ? " (full matrix)" : "");

  nf = gst_check_run_suite (suite (), name, __FILE__);
  co_test_leaks_free ();
  return co_test_exit_status (nf);
}
