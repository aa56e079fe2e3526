/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-torture: what the torture suites (test-torture-*.c) share: a
 * watchdog that aborts a hang with the test, the phase, what each thread
 * was doing and the seed; a Case (seed, errors from any thread); a Checker
 * that compares every output, in its push thread, with the independent
 * reference (co-reference.c) of its input; pipelines; threads that race
 * (property changes, flushing seeks, caps changes); the scenario runners
 * that several tests use; the fixture and main().
 *
 * Inputs are tagged (GST_BUFFER_OFFSET_END, which the element copies to
 * the output) on the element's sink pad and copied.  Where a thread
 * changes operation, gamma or radius while frames flow, the output must
 * equal the reference of one of the settings in effect between the moment
 * its input entered the element (the last change that had returned) and
 * the moment it is pushed (the last change that had started).  Where the
 * flow allows (no seek, no flush, no state change) frames in == frames out.
 *
 * Every case runs with random worker jitter and forced staging on half of
 * the seeds: test hooks of a -Dfault-injection build.  Without them the
 * programs exit 77 (skipped) with the reason.
 *
 * Environment:
 *   CO_TEST_BACKEND   "cpu" (default) or "cuda" (exit 77, skipped, when no
 *                     device is usable).
 *   CO_TEST_SEED      base seed; default: from the time (printed at the
 *                     start and in every failure).
 *   CO_TORTURE_SCALE  multiplies the number of runs of every scenario
 *                     (default 1; `make torture` runs 10).
 *   CO_TORTURE_SLOW   multiplies every deadline (watchdog, stalls) for
 *                     runs under a sanitizer.
 *   CO_TEST_LEAKS     "0": no leak check (see co-test-util.h).
 *   GST_CHECKS        the usual gst-check glob of test names.
 */
#ifndef __CO_TEST_TORTURE_H__
#define __CO_TEST_TORTURE_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "co-reference.h"
#include "co-test-util.h"
#include "co-test-fault.h"

G_BEGIN_DECLS
/* CO_TORTURE_SLOW, CO_TORTURE_SCALE */
extern guint torture_slow;
extern guint torture_scale;

/* seconds a phase may take before the watchdog aborts the process */
#define PHASE_S (20 * torture_slow)
/* no output for this long while it should flow: a stall */
#define STALL_S (5 * torture_slow)
/* settings changes one run may record */
#define HIST_MAX 4096
#define PICK(rand, arr) (arr)[g_rand_int_range ((rand), 0, G_N_ELEMENTS (arr))]

typedef struct
{
  gchar *name;
  gchar *test;                  /* the test function's name */
  guint32 seed;
  GRand *rand;
  GMutex lock;
  GString *errors;
  guint n_errors;
  gint64 t0;
  guint jitter_us;              /* the CPU workers' random delay per chunk */
  gboolean staged;              /* every pageable frame staged */
} Case;

typedef struct
{
  CoRefOp op;
  gdouble gamma;
  guint radius;
} VSettings;

typedef struct
{
  guint64 tag;
  GstBuffer *copy;              /* deep copy of the input */
  GstCaps *caps;                /* the sink pad's caps when it came */
  gint lo;                      /* settings changes done when it came */
} InRec;

typedef struct
{
  Case *cs;
  gchar *ctx;
  gchar *label;
  gboolean audio;
  gdouble gain;                 /* audio: linear gain of gain-db */
  GstElement *f;

  GMutex lock;                  /* inputs and counters */
  GQueue inputs;                /* InRec, tag order */
  guint64 next_tag;
  guint64 n_in, n_out, n_checked, n_unchecked, n_dropped;
  guint64 last_out_tag;
  guint64 watch_tag;            /* outputs of tags above it are counted */
  guint64 n_watched;

  /* settings history (video): hist[k] after the k-th change; one writer
   * at a time (set_lock), readers use the atomics */
  GMutex set_lock;
  VSettings hist[HIST_MAX];
  gint started, completed;
  guint n_changes;
} Checker;

typedef struct
{
  Case *cs;
  gchar *ctx;
  gchar *label;
  GstElement *pipe, *f, *cf, *sink, *stall;
  Checker *k;

  GMutex lock;                  /* the fields below */
  gboolean eos, error;
  guint64 n_sink;
  guint hold_n;                 /* the sink keeps the last hold_n buffers */
  GQueue held;
  gboolean released;
} Pipe;

typedef struct
{
  Checker *k;
  Pipe *p;
  GRand *rand;
  gint stop;
  gint slot;
  gboolean rebuild;
  guint max_sleep_us;
  guint n;
  guint n_failed;
  GThread *thread;
} Racer;

/* caps_changer_main's next capsfilter caps, applied by a probe in the
 * source's streaming thread (caps_apply_probe); shared by the racer and
 * the probe, which may still run once after its removal. */
typedef struct
{
  gint refs;
  GMutex lock;
  GstCaps *next;
  GstElement *cf;
} CapsNext;

gint act_slot (void);
void
act_set (gint slot, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);
     void wd_phase (guint seconds, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);
     Case *case_begin (const gchar * name, gint i);
     void case_error (Case * c, const gchar * fmt, ...) G_GNUC_PRINTF (2, 3);
     gboolean case_failed (Case * c);
     void case_end (Case * c);
     Checker *checker_new (Case * cs, const gchar * ctx, GstElement * f,
    gboolean audio);
     void checker_free (Checker * k);
     guint64 checker_get (Checker * k, guint64 * field);
     gchar *checker_summary (Checker * k);
     void checker_expect_all (Checker * k, guint64 n_expected);
     gchar *random_video_caps (GRand * rand, gboolean first_size);
     gchar *random_video_props (GRand * rand);
     void random_change (Checker * k, GRand * rand, gboolean rebuild,
    gint slot);
     GstBusSyncReply pipe_bus (GstBus * bus, GstMessage * msg, gpointer data);
     GstElement *bin_get (GstElement * bin, const gchar * name);
     Pipe *pipe_new (Case * cs, const gchar * ctx, const gchar * launch,
    gboolean audio);
     void pipe_set_state (Pipe * p, GstState state, gint slot);
     guint64 pipe_n_sink (Pipe * p);
     gboolean pipe_wait_eos (Pipe * p, guint timeout_s, guint stall_s,
    const gchar * why, void (*on_stall) (Pipe * p), gint slot);
     void pipe_send_eos (Pipe * p);
     gchar *pipe_free (Pipe * p, gint slot);
     gchar *video_launch (GRand * rand, const gchar * caps, const gchar * props,
    guint num_buffers, const gchar * sink);
     Racer *racer_new (Checker * k, Pipe * p, guint32 seed, guint max_sleep_us);
     guint racer_stop (Racer * r);
     gpointer changer_main (gpointer data);
     gpointer seeker_main (gpointer data);
     gpointer caps_changer_main (gpointer data);
     Racer *racer_start (Racer * r, GThreadFunc fn, const gchar * name);
     void run_held_lastn (Case * cs, GRand * rand, const gchar * label,
    gboolean audio, guint hold, gint slot);
     void run_props_seeks (Case * cs, GRand * rand, const gchar * label,
    guint duration_ms, gint slot);
/* A random input buffer @i of @size bytes (audio: F32 in -1..1), PTS and
 * duration of 100 per second */
     GstBuffer *random_input (GRand * rand, gboolean audio, gsize size,
    guint i);

/* A test case of @s with the watchdog and the leak check as its fixture */
     TCase *torture_tcase (Suite * s, const gchar * name);
/* The programs' main(): the environment, the test hooks, the CUDA probe,
 * then @suite named @name; returns the exit status. */
     int co_test_torture_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void));

G_END_DECLS
#endif
