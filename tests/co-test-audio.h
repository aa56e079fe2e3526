/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-audio: what the cudaaudiofilter suites (test-audio-*.c) share:
 * the formats and filters they run, harnesses, and streams whose every
 * output is checked against an independent reference (co-audio-ref.c: a
 * naive double-precision convolution of the whole concatenated input
 * stream, causal, zero history at the start and after every reset,
 * written from the specification, sharing no code with the plugin), with
 * the bounds co-audio-ref.h states for every output sample; and the
 * programs' main().
 *
 * Environment (every test-audio-* program):
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
#ifndef __CO_TEST_AUDIO_H__
#define __CO_TEST_AUDIO_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>

#include "co-audio-ref.h"
#include "co-test-util.h"
#include "co-test-meta.h"
#include "co-test-fault.h"

G_BEGIN_DECLS
#define CO_TEST_AUDIO_ELEMENT "cudaaudiofilter"
#define RATE 48000
/* channel counts and FIR lengths of the correctness matrix */
#define N_CHANNELS 5
#define N_TAPSETS 4
extern const guint channel_set[N_CHANNELS];
extern const guint taps_set[N_TAPSETS];

/* the fixture's teardown: the leak check */
void leaks_teardown (void);

/* Caps, properties, elements and harnesses for the signal @s */
gchar *caps_str_rate (const Sig * s, gint rate);
gchar *caps_str (const Sig * s);
void set_taps (GstElement * e, const gdouble * taps, guint n);
void configure_sig (GstElement * e, const Sig * s);
GstElement *make_element (const Sig * s, const RunCfg * run);
GstHarness *make_harness (const Sig * s, const RunCfg * run);

/* One buffer's expected output. */
typedef struct
{
  guint64 offset;               /* the input's buffer offset (its index) */
  guint64 first_frame;          /* its first frame in the reference stream */
  gsize frames;
  const Sig *sig;
  gdouble *y, *ab;
} Expected;
void expected_free (Expected * x);

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

void stream_init (Stream * st, GstHarness * h, const Sig * sig, GRand * rand,
    const gchar * ctx);
void stream_clear (Stream * st);
void stream_ref_reset (Stream * st);
void stream_set_sig (Stream * st, const Sig * sig);
/* random samples of @s's format */
void fill_signal (GRand * rand, const Sig * s, guint8 * data, gsize frames);
/* @out against @x; the error statistics go to @st */
void check_buffer (Stream * st, GstBuffer * out, Expected * x);
/* pull and check the next output; push @frames new frames; pull the rest */
void stream_pull_one (Stream * st);
void stream_push (Stream * st, gsize frames, gboolean discont);
void stream_pull_all (Stream * st);
/* random buffer sizes up to @budget frames in all */
GArray *random_sizes (GRand * rand, guint64 budget, gsize max_frames,
    guint halo, guint max_count);
/* One stream: @sizes through a fresh harness with @run; every output
 * checked; EOS at the end. */
void run_stream (const Sig * s, const RunCfg * run, GArray * sizes,
    GRand * rand, guint32 seed, GByteArray ** outputs);

/* The programs' main(): the environment, the CUDA probe (an element that
 * cannot be made is a skip too), then @suite named @name; returns the exit
 * status. */
int co_test_audio_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void));

G_END_DECLS
#endif
