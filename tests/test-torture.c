/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Torture suite of cudavideofilter and cudaaudiofilter: downstream that
 * holds buffers, property changes racing flushing seeks, caps changes,
 * lone and doubled flush events, state changes at any moment, EOS during a
 * rebuild, several pipelines at once.  Every scenario is one test function
 * (GST_CHECKS=test_held_harness runs one alone) and runs many times with
 * random timing from several threads.
 *
 * Every output buffer the element pushes is compared, in its push thread,
 * with the independent reference (co-reference.c) of its input: inputs are
 * tagged (GST_BUFFER_OFFSET_END, which the element copies to the output) on
 * the element's sink pad and copied.  Where a thread changes operation,
 * gamma or radius while frames flow, the output must equal the reference of
 * one of the settings in effect between the moment its input entered the
 * element (the last change that had returned) and the moment it is pushed
 * (the last change that had started).  Where the flow allows (no seek, no
 * flush, no state change) frames in == frames out.
 *
 * The tests (each its own test case; GST_CHECKS=NAME runs one):
 *   test_held_harness          a) GstHarness: 40 buffers pushed before any
 *                                 is pulled, then all pulled ([0] video,
 *                                 [1] audio)
 *   test_held_lastn            a) a sink that keeps the last 12 or 30
 *                                 buffers, to EOS ([0,1] video, [2,3] audio)
 *   test_held_tee              a) a tee branch not pulled for a while: the
 *                                 other branch must run on
 *   test_props_vs_seeks        b) property changes racing flushing seeks
 *   test_caps_renegotiation    c) capsfilter caps changed every few frames,
 *                                 with flushing seeks
 *   test_flush_events          d) stray FLUSH_START/FLUSH_STOP on the sink
 *                                 pad while buffers flow (one variant per
 *                                 loop index, see the test)
 *   test_state_changes         e) PLAYING/PAUSED/READY/NULL at any moment
 *                                 while properties rebuild the engine
 *   test_ready_during_rebuild  e) READY just as a buffer's chain rebuilds
 *   test_eos_during_rebuild    f) a property change right before EOS
 *   test_concurrent_pipelines  g) four pipelines at once (a and b)
 *   test_stop_from_inside      h) READY or NULL from the element's own push
 *                                 thread (a src pad probe, a bus sync
 *                                 handler on its statistics), then PLAYING
 *                                 again or freed (stop_variants[])
 *   test_upstream_pools        i) appsrc fed from a small pool of its own
 *                                 (2 to 8 buffers) or new memory per frame,
 *                                 in bursts with pauses, automatic or random
 *                                 batch: every frame out, no stall
 *
 * A watchdog thread aborts the process when a phase of a test does not end
 * within its deadline, printing the test, the phase, what each thread was
 * doing and the seed: a hang fails the test instead of blocking CI.
 *
 * Environment:
 *   CO_TEST_BACKEND   "cpu" (default) or "cuda" (exit 77, skipped, when no
 *                     device is usable).
 *   CO_TEST_SEED      base seed; default: from the time (printed at the
 *                     start and in every failure).
 *   CO_TORTURE_SCALE  multiplies the number of runs of every scenario
 *                     (default 1: about a minute in all on the CPU backend
 *                     when nothing hangs; `make torture` runs 10).
 *   CO_TORTURE_SLOW   multiplies every deadline (watchdog, stalls) for
 *                     runs under a sanitizer.
 *   CO_TEST_LEAKS     "0": no leak check (see co-test-util.h).
 *   GST_CHECKS        the usual gst-check glob of test names.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "co-reference.h"
#include "co-test-util.h"
#include "co-test-fault.h"

/* CO_TORTURE_SLOW: deadlines times this (under compute-sanitizer or
 * valgrind, where everything runs many times slower) */
static guint torture_slow = 1;
/* seconds a phase may take before the watchdog aborts the process */
#define PHASE_S (20 * torture_slow)
/* no output for this long while it should flow: a stall */
#define STALL_S (5 * torture_slow)
/* settings changes one run may record */
#define HIST_MAX 4096

static guint torture_scale = 1;

/* ------------------------------------------------------------------------ */
/* What each thread is doing (printed by the watchdog)                       */
/* ------------------------------------------------------------------------ */

#define N_ACT 32

static GMutex act_lock;
static gchar *act_text[N_ACT];
static gint act_next;

static gint
act_slot (void)
{
  return g_atomic_int_add (&act_next, 1) % N_ACT;
}

static void
act_set (gint slot, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static void act_set (gint slot, const gchar * fmt, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_mutex_lock (&act_lock);
  g_free (act_text[slot]);
  act_text[slot] = s;
  g_mutex_unlock (&act_lock);
}

static void
act_clear_all (void)
{
  guint i;

  g_mutex_lock (&act_lock);
  for (i = 0; i < N_ACT; i++)
    g_clear_pointer (&act_text[i], g_free);
  act_next = 0;
  g_mutex_unlock (&act_lock);
}

/* ------------------------------------------------------------------------ */
/* Watchdog                                                                  */
/* ------------------------------------------------------------------------ */

static struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean quit;
  gchar *test;                  /* with the loop index */
  gchar *test_fn;               /* for GST_CHECKS */
  gchar *phase;
  guint phase_s;
  gint64 deadline;              /* monotonic us, 0: none */
  guint32 seed;
} wd;

static gpointer
wd_main (gpointer data G_GNUC_UNUSED)
{
  g_mutex_lock (&wd.lock);
  while (!wd.quit) {
    gint64 now = g_get_monotonic_time ();

    if (wd.deadline && now >= wd.deadline) {
      guint i;

      g_printerr ("\n*** WATCHDOG: %s: phase \"%s\" did not finish within "
          "%u s: a hang.\n*** seed 0x%08x; rerun: CO_TEST_SEED=0x%08x "
          "GST_CHECKS=%s\n*** what the threads were doing:\n", wd.test,
          wd.phase, wd.phase_s, wd.seed, co_test_base_seed, wd.test_fn);
      g_mutex_lock (&act_lock);
      for (i = 0; i < N_ACT; i++)
        if (act_text[i])
          g_printerr ("***   %s\n", act_text[i]);
      g_mutex_unlock (&act_lock);
      if (g_strcmp0 (g_getenv ("CO_TORTURE_GDB"), "1") == 0) {
        /* every thread's stack (needs ptrace rights over this process) */
        gchar *cmd = g_strdup_printf ("gdb -p %d -batch -nx -ex \"thread "
            "apply all bt\"", (int) getpid ());
        g_printerr ("*** %s\n", cmd);
        if (system (cmd) != 0)
          g_printerr ("*** gdb failed\n");
        g_free (cmd);
      }
      abort ();
    }
    g_cond_wait_until (&wd.cond, &wd.lock, wd.deadline ? wd.deadline :
        now + G_TIME_SPAN_SECOND);
  }
  g_mutex_unlock (&wd.lock);
  return NULL;
}

static void
wd_start (void)
{
  g_mutex_lock (&wd.lock);
  wd.quit = FALSE;
  wd.deadline = 0;
  g_mutex_unlock (&wd.lock);
  wd.thread = g_thread_new ("watchdog", wd_main, NULL);
}

static void
wd_stop (void)
{
  g_mutex_lock (&wd.lock);
  wd.quit = TRUE;
  g_cond_signal (&wd.cond);
  g_mutex_unlock (&wd.lock);
  g_thread_join (wd.thread);
  wd.thread = NULL;
}

static void
wd_phase (guint seconds, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

/* The phase @fmt starts now and must end within @seconds. */
     static void wd_phase (guint seconds, const gchar * fmt, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_mutex_lock (&wd.lock);
  g_free (wd.phase);
  wd.phase = s;
  wd.phase_s = seconds;
  wd.deadline = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;
  g_cond_signal (&wd.cond);
  g_mutex_unlock (&wd.lock);
}

/* ------------------------------------------------------------------------ */
/* A test case: seed, errors from any thread                                 */
/* ------------------------------------------------------------------------ */

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

/* Every other seed, the CPU backend's workers sleep a random 0..300 us
 * before each chunk, and the push threads before each frame (a
 * -Dfault-injection test hook): chunks and frames then finish late and out
 * of step across streams, as device work does.  No effect in builds
 * without the hook. */
#define JITTER_US 300

static void
set_worker_jitter (guint us)
{
  static CoTestSetDelay set;
  static gsize once;

  if (g_once_init_enter (&once)) {
    set = co_test_plugin_symbol ("co_test_set_worker_jitter_us");
    g_once_init_leave (&once, 1);
  }
  if (set)
    set (us);
}

/* Every other seed (another bit of it), the elements stage every frame
 * they would copy from pageable memory (a -Dfault-injection test hook; on
 * CUDA, large frames are staged anyway): the staged copies run on
 * co-parcopy's threads until the frame is queued, through every flush,
 * rebuild and teardown of the case. */
static void
set_force_staging (gboolean on)
{
  static CoTestSetFlag set;
  static gsize once;

  if (g_once_init_enter (&once)) {
    set = co_test_plugin_symbol ("co_test_set_force_staging");
    g_once_init_leave (&once, 1);
  }
  if (set)
    set (on);
}

static Case *
case_begin (const gchar * name, gint i)
{
  Case *c = g_new0 (Case, 1);

  c->name = i >= 0 ? g_strdup_printf ("%s[%d]", name, i) : g_strdup (name);
  c->test = g_strdup (name);
  c->seed = co_test_seed (name, i);
  c->rand = g_rand_new_with_seed (c->seed);
  g_mutex_init (&c->lock);
  c->errors = g_string_new (NULL);
  c->t0 = g_get_monotonic_time ();
  g_mutex_lock (&wd.lock);
  g_free (wd.test);
  g_free (wd.test_fn);
  wd.test = g_strdup (c->name);
  wd.test_fn = g_strdup (name);
  wd.seed = c->seed;
  g_mutex_unlock (&wd.lock);
  act_clear_all ();
  c->jitter_us = (c->seed >> 7) & 1 ? JITTER_US : 0;
  set_worker_jitter (c->jitter_us);
  c->staged = (c->seed >> 9) & 1;
  set_force_staging (c->staged);
  g_print ("%s: seed 0x%08x (base 0x%08x), backend=%s, scale %u",
      c->name, c->seed, co_test_base_seed, co_test_backend, torture_scale);
  if (c->jitter_us)
    g_print (", jitter 0..%u us (CPU workers, push threads)", c->jitter_us);
  if (c->staged)
    g_print (", staged input");
  g_print ("\n");
  return c;
}

static void
case_error (Case * c, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

/* Records a failure (any thread); case_end() fails the test with it. */
     static void case_error (Case * c, const gchar * fmt, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_mutex_lock (&c->lock);
  /* the first ones in full on stderr; a few, shortened, in the check's
   * message (libcheck refuses long ones) */
  if (c->n_errors < 20)
    g_printerr ("%s: FAIL: %s\n", c->name, s);
  else if (c->n_errors == 20)
    g_printerr ("%s: (more failures not shown)\n", c->name);
  if (c->n_errors < 3)
    g_string_append_printf (c->errors, "\n  %.700s%s", s,
        strlen (s) > 700 ? "..." : "");
  c->n_errors++;
  g_mutex_unlock (&c->lock);
  g_free (s);
}

static gboolean
case_failed (Case * c)
{
  gboolean f;

  g_mutex_lock (&c->lock);
  f = c->n_errors > 0;
  g_mutex_unlock (&c->lock);
  return f;
}

static void
case_end (Case * c)
{
  gchar *msg;
  guint n;

  wd_phase (PHASE_S, "end of the test");
  set_worker_jitter (0);
  set_force_staging (FALSE);
  g_print ("%s: %s in %.1f s\n", c->name, c->n_errors ? "FAILED" : "passed",
      (g_get_monotonic_time () - c->t0) / 1e6);
  n = c->n_errors;
  msg = g_string_free (c->errors, FALSE);
  g_rand_free (c->rand);
  g_mutex_clear (&c->lock);
  fail_unless (n == 0, "%s (seed 0x%08x; rerun: CO_TEST_SEED=0x%08x "
      "GST_CHECKS=%s): %u failure(s):%s%s", c->name, c->seed,
      co_test_base_seed, c->test, n, msg, n > 3 ? "\n  ... (all on stderr)" :
      "");
  g_free (msg);
  g_free (c->test);
  g_free (c->name);
  g_free (c);
}

/* ------------------------------------------------------------------------ */
/* Checker: every output against the reference of its input                  */
/* ------------------------------------------------------------------------ */

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

/* "[run 3: what; settings]" -> "run 3" (for the watchdog's lines) */
static gchar *
short_label (const gchar * ctx)
{
  const gchar *b = ctx[0] == '[' ? ctx + 1 : ctx;
  gsize n = strcspn (b, ":;]");

  return g_strndup (b, n);
}

static void
inrec_free (InRec * r)
{
  gst_buffer_unref (r->copy);
  if (r->caps)
    gst_caps_unref (r->caps);
  g_free (r);
}

static GstPadProbeReturn
entry_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Checker *k = data;
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  InRec *r = g_new0 (InRec, 1);

  GST_PAD_PROBE_INFO_DATA (info) = buf;
  r->caps = gst_pad_get_current_caps (pad);
  r->lo = g_atomic_int_get (&k->completed);
  g_mutex_lock (&k->lock);
  r->tag = ++k->next_tag;
  GST_BUFFER_OFFSET_END (buf) = r->tag;
  r->copy = gst_buffer_copy_deep (buf);
  g_queue_push_tail (&k->inputs, r);
  k->n_in++;
  g_mutex_unlock (&k->lock);
  return GST_PAD_PROBE_OK;
}

static const gchar *
op_nick (CoRefOp op)
{
  return co_ref_op_nick (op);
}

static gboolean
video_matches (InRec * r, GstBuffer * out, const VSettings * s, gchar ** msg)
{
  GstVideoInfo info;
  GstVideoFrame fin, fout, fexp;
  GstBuffer *exp;
  gboolean same;

  if (!r->caps || !gst_video_info_from_caps (&info, r->caps)) {
    *msg = g_strdup ("the input had no video caps");
    return FALSE;
  }
  if (!gst_video_frame_map (&fout, &info, out, GST_MAP_READ)) {
    *msg = g_strdup_printf ("cannot map the output (%" G_GSIZE_FORMAT
        " bytes) as %s %dx%d", gst_buffer_get_size (out),
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)),
        GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info));
    return FALSE;
  }
  if (!gst_video_frame_map (&fin, &info, r->copy, GST_MAP_READ)) {
    gst_video_frame_unmap (&fout);
    *msg = g_strdup ("cannot map the input copy");
    return FALSE;
  }
  exp = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_video_frame_map (&fexp, &info, exp, GST_MAP_WRITE);
  co_ref_apply (s->op, s->gamma, s->radius, &fin, &fexp);
  same = co_ref_compare (&fexp, &fout, msg);
  gst_video_frame_unmap (&fexp);
  gst_video_frame_unmap (&fin);
  gst_video_frame_unmap (&fout);
  gst_buffer_unref (exp);
  return same;
}

/* F32 gain: y = x * gain within float rounding. */
static gboolean
audio_matches (InRec * r, GstBuffer * out, gdouble gain, gchar ** msg)
{
  GstMapInfo mi, mo;
  gboolean same = TRUE;
  gsize i, n, bad = 0, first = 0;

  gst_buffer_map (r->copy, &mi, GST_MAP_READ);
  if (!gst_buffer_map (out, &mo, GST_MAP_READ)) {
    gst_buffer_unmap (r->copy, &mi);
    *msg = g_strdup ("cannot map the output");
    return FALSE;
  }
  if (mo.size != mi.size) {
    *msg = g_strdup_printf ("output of %" G_GSIZE_FORMAT " bytes for an "
        "input of %" G_GSIZE_FORMAT, mo.size, mi.size);
    same = FALSE;
  } else {
    const gfloat *x = (const gfloat *) mi.data, *y = (const gfloat *) mo.data;

    n = mi.size / sizeof (gfloat);
    for (i = 0; i < n; i++) {
      gdouble e = x[i] * gain;
      if (fabs (y[i] - e) > 1e-6 + 1e-5 * fabs (e)) {
        if (!bad)
          first = i;
        bad++;
      }
    }
    if (bad) {
      *msg = g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
          " samples differ from x * %g; the first, #%" G_GSIZE_FORMAT
          ": x %g, expected %g, got %g", bad, n, gain, first, x[first],
          x[first] * gain, y[first]);
      same = FALSE;
    }
  }
  gst_buffer_unmap (out, &mo);
  gst_buffer_unmap (r->copy, &mi);
  return same;
}

static gchar *
settings_desc (const VSettings * s)
{
  switch (s->op) {
    case CO_REF_GAMMA:
      return g_strdup_printf ("gamma=%g", s->gamma);
    case CO_REF_BOX_BLUR:
      return g_strdup_printf ("box-blur radius=%u", s->radius);
    default:
      return g_strdup (op_nick (s->op));
  }
}

#define MAX_TRIES 48

/* A wrong output: does it match settings older than its entry (a property
 * change that was lost), or nothing (foreign or stale data)? */
static gchar *
diagnose_older (Checker * k, InRec * r, GstBuffer * out)
{
  gint j, m, tried = 0;
  static const VSettings others[] = {
    {CO_REF_INVERT, 1.0, 0}, {CO_REF_BOX_BLUR, 1.0, 0},
  };

  for (j = r->lo - 1; j >= 0 && tried < MAX_TRIES; j--) {
    gchar *msg = NULL;
    gboolean same;

    for (m = j + 1; m < r->lo; m++)
      if (!memcmp (&k->hist[m], &k->hist[j], sizeof (VSettings)))
        break;
    if (m < r->lo || !memcmp (&k->hist[r->lo], &k->hist[j], sizeof (VSettings)))
      continue;
    tried++;
    same = video_matches (r, out, &k->hist[j], &msg);
    g_free (msg);
    if (same) {
      gchar *d = settings_desc (&k->hist[j]);
      gchar *s = g_strdup_printf ("it equals the reference of change %d "
          "(%s), older than its entry: a property change that did not take "
          "effect", j, d);
      g_free (d);
      return s;
    }
  }
  for (j = 0; j < (gint) G_N_ELEMENTS (others); j++) {
    gchar *msg = NULL;
    gboolean same = video_matches (r, out, &others[j], &msg);
    g_free (msg);
    if (same)
      return g_strdup_printf ("it equals the reference of %s (never set)",
          j ? "box-blur radius=0 (a copy of the input)" : "invert");
  }
  return g_strdup_printf ("it equals the reference of none of the %d "
      "earlier settings either, nor the input itself (another frame's or "
      "stale data?)", tried);
}

static GstPadProbeReturn
out_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Checker *k = data;
  GstBuffer *out = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 tag = GST_BUFFER_OFFSET_END (out), last;
  gint hi = g_atomic_int_get (&k->started);
  InRec *r;
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gboolean flushing;

  /* A push from the streaming thread (passthrough) may still be in this
   * probe while a state change deactivates the pad: flushing first, then
   * its sticky events (the caps) removed.  Such a buffer goes nowhere (the
   * peer, deactivated before, refuses it): not an output.  Caps read
   * first, so that no caps implies flushing seen. */
  GST_OBJECT_LOCK (pad);
  flushing = GST_PAD_IS_FLUSHING (pad);
  GST_OBJECT_UNLOCK (pad);
  if (!caps && flushing)
    return GST_PAD_PROBE_OK;

  g_mutex_lock (&k->lock);
  /* older inputs that did not come out were dropped (flush, state change) */
  while ((r = g_queue_peek_head (&k->inputs)) && r->tag < tag) {
    inrec_free (g_queue_pop_head (&k->inputs));
    k->n_dropped++;
  }
  if (r && r->tag == tag)
    g_queue_pop_head (&k->inputs);
  else
    r = NULL;
  last = k->last_out_tag;
  k->last_out_tag = tag;
  k->n_out++;
  if (k->watch_tag && tag > k->watch_tag)
    k->n_watched++;
  g_mutex_unlock (&k->lock);

  if (!r) {
    case_error (k->cs, "%s: output pts %" GST_TIME_FORMAT " tag %"
        G_GUINT64_FORMAT " is no input waiting to come out (the previous "
        "output was tag %" G_GUINT64_FORMAT "): a duplicate, out of order, "
        "from before a flush, or its offset-end was not copied", k->ctx,
        GST_TIME_ARGS (GST_BUFFER_PTS (out)), tag, last);
    if (caps)
      gst_caps_unref (caps);
    return GST_PAD_PROBE_OK;
  }

  if (!caps || !r->caps || !gst_caps_is_equal (caps, r->caps)) {
    gchar *a = caps ? gst_caps_to_string (caps) : g_strdup ("(none)");
    gchar *b = r->caps ? gst_caps_to_string (r->caps) : g_strdup ("(none)");
    case_error (k->cs, "%s: output tag %" G_GUINT64_FORMAT " pushed with "
        "caps %s; its input came with %s", k->ctx, tag, a, b);
    g_free (a);
    g_free (b);
  }
  if (caps)
    gst_caps_unref (caps);

  if (k->audio) {
    gchar *msg = NULL;

    if (!audio_matches (r, out, k->gain, &msg))
      case_error (k->cs, "%s: output tag %" G_GUINT64_FORMAT " pts %"
          GST_TIME_FORMAT ": %s", k->ctx, tag,
          GST_TIME_ARGS (GST_BUFFER_PTS (out)), msg);
    g_free (msg);
    g_mutex_lock (&k->lock);
    k->n_checked++;
    g_mutex_unlock (&k->lock);
  } else if (hi - r->lo >= MAX_TRIES) {
    /* too many changes while it was inside: not decidable cheaply */
    g_mutex_lock (&k->lock);
    k->n_unchecked++;
    g_mutex_unlock (&k->lock);
  } else {
    gchar *first_msg = NULL;
    gboolean ok = FALSE;
    gint j, m;

    /* newest first; each distinct setting once */
    for (j = hi; j >= r->lo && !ok; j--) {
      gchar *msg = NULL;
      for (m = j + 1; m <= hi; m++)
        if (!memcmp (&k->hist[m], &k->hist[j], sizeof (VSettings)))
          break;
      if (m <= hi)
        continue;
      ok = video_matches (r, out, &k->hist[j], &msg);
      if (!ok && !first_msg)
        first_msg = g_strdup_printf ("with %s: %s",
            settings_desc (&k->hist[j]), msg);
      g_free (msg);
    }
    if (!ok) {
      GString *w = g_string_new (NULL);
      gchar *older = diagnose_older (k, r, out);
      for (j = r->lo; j <= hi; j++) {
        gchar *d = settings_desc (&k->hist[j]);
        g_string_append_printf (w, "%s%s", j > r->lo ? ", " : "", d);
        g_free (d);
      }
      gchar *cstr = gst_caps_to_string (r->caps);
      case_error (k->cs, "%s: output tag %" G_GUINT64_FORMAT " pts %"
          GST_TIME_FORMAT " (%s) matches the reference of none of the "
          "settings in effect while it was inside the element (changes "
          "%d..%d: %s); newest: %s; %s", k->ctx, tag,
          GST_TIME_ARGS (GST_BUFFER_PTS (out)), cstr, r->lo, hi, w->str,
          first_msg, older);
      g_string_free (w, TRUE);
      g_free (cstr);
      g_free (older);
    }
    g_free (first_msg);
    g_mutex_lock (&k->lock);
    k->n_checked++;
    g_mutex_unlock (&k->lock);
  }
  inrec_free (r);
  return GST_PAD_PROBE_OK;
}

static Checker *
checker_new (Case * cs, const gchar * ctx, GstElement * f, gboolean audio)
{
  Checker *k = g_new0 (Checker, 1);
  GstPad *pad;

  k->cs = cs;
  k->ctx = g_strdup (ctx);
  k->label = short_label (ctx);
  k->audio = audio;
  k->f = f;
  g_mutex_init (&k->lock);
  g_mutex_init (&k->set_lock);
  g_queue_init (&k->inputs);
  if (audio) {
    gdouble db;
    g_object_get (f, "gain-db", &db, NULL);
    k->gain = pow (10.0, db / 20.0);
  } else {
    gint op;
    g_object_get (f, "operation", &op, "gamma", &k->hist[0].gamma, "radius",
        &k->hist[0].radius, NULL);
    k->hist[0].op = op;
  }
  pad = gst_element_get_static_pad (f, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, entry_probe, k, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (f, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, out_probe, k, NULL);
  gst_object_unref (pad);
  return k;
}

static void
checker_free (Checker * k)
{
  g_queue_clear_full (&k->inputs, (GDestroyNotify) inrec_free);
  g_mutex_clear (&k->lock);
  g_mutex_clear (&k->set_lock);
  g_free (k->ctx);
  g_free (k->label);
  g_free (k);
}

static guint64
checker_get (Checker * k, guint64 * field)
{
  guint64 v;

  g_mutex_lock (&k->lock);
  v = *field;
  g_mutex_unlock (&k->lock);
  return v;
}

/* Sets @prop to @val on the checked element, recording the settings it
 * leads to when it is operation, gamma or radius (video). */
static void
checker_set (Checker * k, const gchar * prop, const gchar * val, gint slot)
{
  gboolean tracked = !k->audio && (!strcmp (prop, "operation")
      || !strcmp (prop, "gamma") || !strcmp (prop, "radius"));
  gint n;

  g_mutex_lock (&k->set_lock);
  n = k->started;
  if (tracked) {
    VSettings s = k->hist[n];
    guint i;

    if (n + 1 >= HIST_MAX) {
      g_mutex_unlock (&k->set_lock);
      return;
    }
    if (!strcmp (prop, "gamma"))
      s.gamma = g_ascii_strtod (val, NULL);
    else if (!strcmp (prop, "radius"))
      s.radius = atoi (val);
    else
      for (i = 0; i < 4; i++)
        if (!strcmp (val, op_nick (i)))
          s.op = i;
    k->hist[n + 1] = s;
    g_atomic_int_set (&k->started, n + 1);
  }
  if (slot >= 0)
    act_set (slot, "%s: in g_object_set (%s=%s)", k->label, prop, val);
  gst_util_set_object_arg (G_OBJECT (k->f), prop, val);
  if (slot >= 0)
    act_set (slot, "%s: idle after setting %s=%s", k->label, prop, val);
  if (tracked)
    g_atomic_int_set (&k->completed, n + 1);
  k->n_changes++;
  g_mutex_unlock (&k->set_lock);
}

static gchar *
checker_summary (Checker * k)
{
  gchar *s;

  g_mutex_lock (&k->lock);
  s = g_strdup_printf ("%" G_GUINT64_FORMAT " in, %" G_GUINT64_FORMAT
      " out (%" G_GUINT64_FORMAT " compared, %" G_GUINT64_FORMAT
      " not decidable), %" G_GUINT64_FORMAT " dropped, %u changes", k->n_in,
      k->n_out, k->n_checked, k->n_unchecked, k->n_dropped, k->n_changes);
  g_mutex_unlock (&k->lock);
  return s;
}

/* No seek, flush or state change: every input came out. */
static void
checker_expect_all (Checker * k, guint64 n_expected)
{
  guint64 in, out;

  g_mutex_lock (&k->lock);
  in = k->n_in;
  out = k->n_out;
  g_mutex_unlock (&k->lock);
  if (in != out || (n_expected && in != n_expected))
    case_error (k->cs, "%s: %" G_GUINT64_FORMAT " frames in, %"
        G_GUINT64_FORMAT " out (expected %" G_GUINT64_FORMAT " each)",
        k->ctx, in, out, n_expected ? n_expected : in);
}

/* ------------------------------------------------------------------------ */
/* Random settings                                                           */
/* ------------------------------------------------------------------------ */

/* streams, chunks and batch are drawn from 0 up: 0 is automatic (the
 * element chooses, then may choose again after its first frames, through
 * a rebuild), so the automatic settings race everything here too. */

static const GstVideoFormat torture_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_GRAY8,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_GRAY16_LE,
};

static const struct
{
  guint w, h;
} torture_sizes[] = {
  {161, 93}, {97, 33}, {33, 17}, {7, 3}, {64, 48}, {2, 2},
};

static const gchar *const gammas[] = { "0.45", "1", "2.2", "0.8", "1.7", "3" };

#define PICK(rand, arr) (arr)[g_rand_int_range ((rand), 0, G_N_ELEMENTS (arr))]

static gchar *
random_video_caps (GRand * rand, gboolean first_size)
{
  guint s = first_size ? 0 : g_rand_int_range (rand, 0,
      G_N_ELEMENTS (torture_sizes));

  return g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", gst_video_format_to_string (PICK (rand,
              torture_formats)), torture_sizes[s].w, torture_sizes[s].h);
}

/* Element properties of a random configuration (gst-launch syntax). */
static gchar *
random_video_props (GRand * rand)
{
  return g_strdup_printf ("operation=%s gamma=%s radius=%u streams=%u "
      "chunks=%u max-in-flight=%u batch=%u mode=%s submit-thread=%s",
      op_nick (g_rand_int_range (rand, 0, 4)), PICK (rand, gammas),
      g_rand_int_range (rand, 0, 4), g_rand_int_range (rand, 0, 5),
      g_rand_int_range (rand, 0, 7), g_rand_int_range (rand, 0, 9),
      g_rand_int_range (rand, 0, 5),
      g_rand_int_range (rand, 0, 5) ? "overlap" : "serial",
      g_rand_boolean (rand) ? "true" : "false");
}

/* One random property change: @rebuild also picks the ones that rebuild the
 * engine (operation, radius, batch, chunks, streams, max-in-flight, mode);
 * else gamma only. */
static void
random_change (Checker * k, GRand * rand, gboolean rebuild, gint slot)
{
  gchar v[32];
  const gchar *prop;

  switch (rebuild ? g_rand_int_range (rand, 0, 8) : 0) {
    case 0:
      prop = "gamma";
      g_strlcpy (v, PICK (rand, gammas), sizeof (v));
      break;
    case 1:
      prop = "operation";
      g_strlcpy (v, op_nick (g_rand_int_range (rand, 0, 4)), sizeof (v));
      break;
    case 2:
      prop = "radius";
      g_snprintf (v, sizeof (v), "%d", g_rand_int_range (rand, 0, 4));
      break;
    case 3:
      prop = "batch";
      g_snprintf (v, sizeof (v), "%d", g_rand_int_range (rand, 0, 5));
      break;
    case 4:
      prop = "chunks";
      g_snprintf (v, sizeof (v), "%d", g_rand_int_range (rand, 0, 7));
      break;
    case 5:
      prop = "streams";
      g_snprintf (v, sizeof (v), "%d", g_rand_int_range (rand, 0, 5));
      break;
    case 6:
      prop = "max-in-flight";
      g_snprintf (v, sizeof (v), "%d", g_rand_int_range (rand, 0, 9));
      break;
    default:
      prop = "mode";
      g_strlcpy (v, g_rand_boolean (rand) ? "serial" : "overlap", sizeof (v));
      break;
  }
  checker_set (k, prop, v, slot);
}

/* ------------------------------------------------------------------------ */
/* Pipelines                                                                 */
/* ------------------------------------------------------------------------ */

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

static GstBusSyncReply
pipe_bus (GstBus * bus G_GNUC_UNUSED, GstMessage * msg, gpointer data)
{
  Pipe *p = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *t = co_test_error_text (msg);
    case_error (p->cs, "%s: ERROR from %s: %s", p->ctx,
        GST_MESSAGE_SRC_NAME (msg), t);
    g_free (t);
    g_mutex_lock (&p->lock);
    p->error = TRUE;
    g_mutex_unlock (&p->lock);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    g_mutex_lock (&p->lock);
    p->eos = TRUE;
    g_mutex_unlock (&p->lock);
  }
  return GST_BUS_PASS;
}

/* The sink: counts, and keeps the last hold_n buffers (an encoder's
 * look-ahead) until released. */
static GstPadProbeReturn
sink_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer data)
{
  Pipe *p = data;
  GstBuffer *drop = NULL;

  g_mutex_lock (&p->lock);
  p->n_sink++;
  if (p->hold_n && !p->released) {
    g_queue_push_tail (&p->held,
        gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info)));
    if (g_queue_get_length (&p->held) > p->hold_n)
      drop = g_queue_pop_head (&p->held);
  }
  g_mutex_unlock (&p->lock);
  if (drop)
    gst_buffer_unref (drop);
  return GST_PAD_PROBE_OK;
}

static void
pipe_release (Pipe * p)
{
  GQueue q = G_QUEUE_INIT;

  g_mutex_lock (&p->lock);
  p->released = TRUE;
  q = p->held;
  g_queue_init (&p->held);
  g_mutex_unlock (&p->lock);
  g_queue_clear_full (&q, (GDestroyNotify) gst_buffer_unref);
}

static GstElement *
bin_get (GstElement * bin, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), name);

  if (e)
    gst_object_unref (e);       /* the bin holds it */
  return e;
}

/* A pipeline from @launch with elements named f (the element under test),
 * sink, and optionally cf (capsfilter) and stall.  NULL (an error
 * recorded) when it cannot be made. */
static Pipe *
pipe_new (Case * cs, const gchar * ctx, const gchar * launch, gboolean audio)
{
  Pipe *p = g_new0 (Pipe, 1);
  GError *err = NULL;
  GstBus *bus;
  GstPad *pad;

  p->cs = cs;
  p->ctx = g_strdup (ctx);
  p->label = short_label (ctx);
  g_mutex_init (&p->lock);
  g_queue_init (&p->held);
  p->pipe = gst_parse_launch (launch, &err);
  if (!p->pipe || err) {
    case_error (cs, "%s: cannot make '%s': %s", ctx, launch,
        err ? err->message : "?");
    g_clear_error (&err);
    if (p->pipe)
      gst_object_unref (p->pipe);
    g_free (p->ctx);
    g_free (p->label);
    g_free (p);
    return NULL;
  }
  p->f = bin_get (p->pipe, "f");
  p->cf = bin_get (p->pipe, "cf");
  p->sink = bin_get (p->pipe, "sink");
  p->stall = bin_get (p->pipe, "stall");
  p->k = checker_new (cs, ctx, p->f, audio);
  pad = gst_element_get_static_pad (p->sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_probe, p, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (p->pipe);
  gst_bus_set_sync_handler (bus, pipe_bus, p, NULL);
  gst_object_unref (bus);
  return p;
}

static void
pipe_set_state (Pipe * p, GstState state, gint slot)
{
  if (slot >= 0)
    act_set (slot, "%s: in gst_element_set_state (%s)", p->label,
        gst_element_state_get_name (state));
  gst_element_set_state (p->pipe, state);
  if (slot >= 0)
    act_set (slot, "%s: idle after set_state (%s)", p->label,
        gst_element_state_get_name (state));
}

static guint64
pipe_n_sink (Pipe * p)
{
  guint64 n;

  g_mutex_lock (&p->lock);
  n = p->n_sink;
  g_mutex_unlock (&p->lock);
  return n;
}

/* Waits for EOS (TRUE) or an error, at most @timeout_s.  With @stall_s: no
 * output from the element for that long is a stall, recorded as a failure
 * with @why; the sink then lets go of what it holds (and @on_stall runs) so
 * that the run can end. */
static gboolean
pipe_wait_eos (Pipe * p, guint timeout_s, guint stall_s, const gchar * why,
    void (*on_stall) (Pipe * p), gint slot)
{
  gint64 start = g_get_monotonic_time (), last_t = start;
  guint64 last_n = checker_get (p->k, &p->k->n_out);
  gboolean stalled = FALSE;

  for (;;) {
    gint64 now = g_get_monotonic_time ();
    guint64 n = checker_get (p->k, &p->k->n_out);
    gboolean eos, error;

    g_mutex_lock (&p->lock);
    eos = p->eos;
    error = p->error;
    g_mutex_unlock (&p->lock);
    if (eos || error)
      return eos;
    if (n != last_n) {
      last_n = n;
      last_t = now;
    }
    if (stall_s && !stalled && now - last_t >= stall_s * G_TIME_SPAN_SECOND) {
      guint held;

      g_mutex_lock (&p->lock);
      held = g_queue_get_length (&p->held);
      g_mutex_unlock (&p->lock);
      case_error (p->cs, "%s: stalled: no output for %u s after %"
          G_GUINT64_FORMAT " frames out (%" G_GUINT64_FORMAT " in; the sink "
          "holds %u)%s%s", p->ctx, stall_s, n,
          checker_get (p->k, &p->k->n_in), held, why ? ": " : "",
          why ? why : "");
      stalled = TRUE;
      pipe_release (p);
      if (on_stall)
        on_stall (p);
    }
    if (now - start >= timeout_s * G_TIME_SPAN_SECOND) {
      case_error (p->cs, "%s: no EOS within %u s (%" G_GUINT64_FORMAT
          " frames out)", p->ctx, timeout_s, n);
      return FALSE;
    }
    if (slot >= 0)
      act_set (slot, "%s: waiting for EOS (%" G_GUINT64_FORMAT " out)",
          p->label, n);
    g_usleep (20 * 1000);
  }
}

static void
pipe_send_eos (Pipe * p)
{
  g_mutex_lock (&p->lock);
  p->eos = FALSE;
  g_mutex_unlock (&p->lock);
  /* Let an asynchronous state change (a flushing seek's lost preroll)
   * finish first: gst_element_send_event() holds the pipeline's STATE_LOCK
   * while basesrc waits for its streaming thread, and a sink waiting in
   * preroll only lets that thread go once the state change, which needs
   * the same lock, completes.  That deadlock is GStreamer's with any
   * element between source and sink (identity too), not the element's. */
  act_set (0, "%s: waiting for the state to settle before EOS", p->label);
  {
    GstState cur, pend;
    GstStateChangeReturn r = gst_element_get_state (p->pipe, &cur, &pend,
        10 * GST_SECOND);

    act_set (0, "%s: in gst_element_send_event (EOS) (pipeline %s, %s "
        "pending, get_state %s)", p->label, gst_element_state_get_name (cur),
        gst_element_state_get_name (pend),
        gst_element_state_change_return_get_name (r));
  }
  gst_element_send_event (p->pipe, gst_event_new_eos ());
  act_set (0, "%s: EOS sent", p->label);
}

/* set_state (NULL) and free; returns the checker's summary. */
static gchar *
pipe_free (Pipe * p, gint slot)
{
  GstBus *bus;
  gchar *s;

  pipe_set_state (p, GST_STATE_NULL, slot);
  pipe_release (p);
  bus = gst_element_get_bus (p->pipe);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (p->pipe);
  s = checker_summary (p->k);
  checker_free (p->k);
  g_mutex_clear (&p->lock);
  g_free (p->ctx);
  g_free (p->label);
  g_free (p);
  return s;
}

static gchar *
video_launch (GRand * rand, const gchar * caps, const gchar * props,
    guint num_buffers, const gchar * sink)
{
  gchar *nb = num_buffers ? g_strdup_printf (" num-buffers=%u", num_buffers)
      : g_strdup ("");
  gchar *s = g_strdup_printf ("videotestsrc name=src pattern=snow%s ! "
      "capsfilter name=cf caps=\"%s\" ! cudavideofilter name=f backend=%s "
      "stats-interval=%u %s ! %s", nb, caps, co_test_backend,
      g_rand_boolean (rand) ? 0 : 100000000, props, sink);

  g_free (nb);
  return s;
}

/* ------------------------------------------------------------------------ */
/* Threads that race                                                         */
/* ------------------------------------------------------------------------ */

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

static CapsNext *
caps_next_new (GstElement * cf)
{
  CapsNext *c = g_new0 (CapsNext, 1);

  c->refs = 1;
  g_mutex_init (&c->lock);
  c->cf = gst_object_ref (cf);
  return c;
}

static void
caps_next_unref (gpointer data)
{
  CapsNext *c = data;

  if (!g_atomic_int_dec_and_test (&c->refs))
    return;
  gst_clear_caps (&c->next);
  gst_object_unref (c->cf);
  g_mutex_clear (&c->lock);
  g_free (c);
}

static Racer *
racer_new (Checker * k, Pipe * p, guint32 seed, guint max_sleep_us)
{
  Racer *r = g_new0 (Racer, 1);

  r->k = k;
  r->p = p;
  r->rand = g_rand_new_with_seed (seed);
  r->slot = act_slot ();
  r->max_sleep_us = max_sleep_us;
  return r;
}

static guint
racer_stop (Racer * r)
{
  guint n;

  g_atomic_int_set (&r->stop, 1);
  if (r->thread)
    g_thread_join (r->thread);
  n = r->n;
  act_set (r->slot, "(a racer that has ended)");
  g_rand_free (r->rand);
  g_free (r);
  return n;
}

static void
racer_sleep (Racer * r)
{
  g_usleep (g_rand_int_range (r->rand, 0, r->max_sleep_us + 1));
}

static gpointer
changer_main (gpointer data)
{
  Racer *r = data;

  while (!g_atomic_int_get (&r->stop)) {
    random_change (r->k, r->rand, r->rebuild, r->slot);
    r->n++;
    racer_sleep (r);
  }
  return NULL;
}

static gpointer
seeker_main (gpointer data)
{
  Racer *r = data;

  while (!g_atomic_int_get (&r->stop)) {
    GstClockTime pos = g_rand_int_range (r->rand, 0, 3000) * GST_MSECOND;
    GstSeekFlags flags = GST_SEEK_FLAG_FLUSH |
        (g_rand_boolean (r->rand) ? GST_SEEK_FLAG_ACCURATE : 0);

    act_set (r->slot, "%s: in gst_element_seek_simple (flushing seek #%u to "
        "%" GST_TIME_FORMAT ")", r->p->label, r->n + 1, GST_TIME_ARGS (pos));
    if (!gst_element_seek_simple (r->p->pipe, GST_FORMAT_TIME, flags, pos))
      r->n_failed++;
    act_set (r->slot, "%s: idle after seek #%u", r->p->label, r->n + 1);
    r->n++;
    racer_sleep (r);
  }
  return NULL;
}

/* capsfilter caps changed every 1 to 6 frames (or 40 ms) after the last
 * change reached the element: a change while videotestsrc negotiates the
 * previous one fails the negotiation there (not-negotiated, in
 * capsfilter's transform_caps, not in the element under test). */
static gboolean
caps_arrived (Racer * r, GstPad * pad, GstCaps * want)
{
  GstCaps *cur = gst_pad_get_current_caps (pad);
  gboolean ok = cur && gst_caps_is_subset (cur, want);

  if (cur)
    gst_caps_unref (cur);
  return ok;
}

/* On videotestsrc's source pad, in its streaming thread, before a
 * buffer goes out: the capsfilter caps that caps_changer_main asked for,
 * and the pad told to negotiate again before its next buffer.
 *
 * Set from the racer's own thread (as before), a change raced the
 * source's streaming thread: between capsfilter taking its new caps and
 * its RECONFIGURE event reaching the source, a source restarting after a
 * flushing seek re-sent its old caps with its first buffer, capsfilter
 * refused them, and the source, seeing no reconfigure pending, stopped
 * with not-negotiated (the racer thread was preempted inside
 * g_object_set: 5 ms from the caps to the event, seed 0xe5193c0b).  That
 * race is between videotestsrc and capsfilter; in the streaming thread
 * the reconfigure flag is set before the source can push again.  The
 * element still sees each caps change race the seeks. */
static GstPadProbeReturn
caps_apply_probe (GstPad * pad, GstPadProbeInfo * info G_GNUC_UNUSED,
    gpointer data)
{
  CapsNext *c = data;
  GstCaps *caps;

  g_mutex_lock (&c->lock);
  caps = c->next;
  c->next = NULL;
  g_mutex_unlock (&c->lock);
  if (caps) {
    g_object_set (c->cf, "caps", caps, NULL);
    gst_pad_mark_reconfigure (pad);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

static gpointer
caps_changer_main (gpointer data)
{
  Racer *r = data;
  GstPad *pad = gst_element_get_static_pad (r->p->f, "sink");
  gint64 until = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  GstPad *cf_sink = gst_element_get_static_pad (r->p->cf, "sink");
  GstPad *src = gst_pad_get_peer (cf_sink);
  CapsNext *next = caps_next_new (r->p->cf);
  gulong probe = 0;

  g_assert (src != NULL);       /* capsfilter's sink is linked to the source */
  g_atomic_int_inc (&next->refs);
  probe = gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER,
      caps_apply_probe, next, caps_next_unref);

  /* the first change only once the source has negotiated its first caps:
   * a capsfilter whose caps change under a source still negotiating
   * refuses the source's caps (not-negotiated from the source, nothing to
   * do with the element) */
  act_set (r->slot, "%s: waiting for the first caps", r->p->label);
  while (!g_atomic_int_get (&r->stop) && !gst_pad_has_current_caps (pad) &&
      g_get_monotonic_time () < until)
    g_usleep (500);
  while (!g_atomic_int_get (&r->stop)) {
    guint every = g_rand_int_range (r->rand, 1, 7), waited = 0;
    gchar *s = random_video_caps (r->rand, FALSE);
    GstCaps *caps = gst_caps_from_string (s);
    guint64 n0;

    act_set (r->slot, "%s: asking for capsfilter caps=%s", r->p->label, s);
    /* applied by caps_apply_probe, in the source's streaming thread */
    g_mutex_lock (&next->lock);
    gst_caps_replace (&next->next, caps);
    g_mutex_unlock (&next->lock);
    act_set (r->slot, "%s: waiting for caps=%s to reach the element",
        r->p->label, s);
    /* (a flushing seek may keep it from coming: then no more changes) */
    r->n_failed = 1;
    while (!g_atomic_int_get (&r->stop) && !caps_arrived (r, pad, caps))
      g_usleep (500);
    if (caps_arrived (r, pad, caps))
      r->n_failed = 0;
    n0 = checker_get (r->k, &r->k->n_in);
    while (!g_atomic_int_get (&r->stop) && waited < 40
        && checker_get (r->k, &r->k->n_in) < n0 + every) {
      g_usleep (1000);
      waited++;
    }
    gst_caps_unref (caps);
    g_free (s);
    r->n++;
  }
  gst_pad_remove_probe (src, probe);
  gst_object_unref (src);
  gst_object_unref (cf_sink);
  caps_next_unref (next);
  gst_object_unref (pad);
  return NULL;
}

static Racer *
racer_start (Racer * r, GThreadFunc fn, const gchar * name)
{
  r->thread = g_thread_new (name, fn, r);
  return r;
}

/* ------------------------------------------------------------------------ */
/* Scenario runners (any thread: failures go to the Case)                    */
/* ------------------------------------------------------------------------ */

static void
stall_note (Pipe * p G_GNUC_UNUSED)
{
}

/* a) videotestsrc/audiotestsrc ! element ! a sink that keeps the last
 * @hold buffers: EOS, frames in == out, every one right. */
static void
run_held_lastn (Case * cs, GRand * rand, const gchar * label, gboolean audio,
    guint hold, gint slot)
{
  guint n = 60 + g_rand_int_range (rand, 0, 40);
  gchar *launch, *ctx, *sum;
  Pipe *p;

  if (audio) {
    gdouble db = g_rand_double_range (rand, -12.0, 6.0);
    launch = g_strdup_printf ("audiotestsrc name=src wave=white-noise "
        "samplesperbuffer=%u num-buffers=%u ! capsfilter name=cf "
        "caps=\"audio/x-raw,format=F32LE,rate=48000,channels=%u,"
        "layout=interleaved\" ! cudaaudiofilter name=f backend=%s "
        "gain-db=%.3f streams=%u chunks=%u max-in-flight=%u ! "
        "fakesink name=sink sync=false", g_rand_int_range (rand, 64, 2000),
        n, g_rand_int_range (rand, 1, 4), co_test_backend, db,
        g_rand_int_range (rand, 0, 5), g_rand_int_range (rand, 0, 5),
        g_rand_int_range (rand, 0, 9));
  } else {
    gchar *caps = random_video_caps (rand, g_rand_boolean (rand));
    gchar *props = random_video_props (rand);
    launch = video_launch (rand, caps, props, n,
        "fakesink name=sink sync=false");
    g_free (caps);
    g_free (props);
  }
  ctx = g_strdup_printf ("[%s: sink keeps the last %u buffers; %s]", label,
      hold, launch);
  p = pipe_new (cs, ctx, launch, audio);
  if (p) {
    p->hold_n = hold;
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    if (pipe_wait_eos (p, 60, STALL_S, "the element blocks while "
            "downstream holds its buffers", stall_note, slot))
      checker_expect_all (p->k, n);
    sum = pipe_free (p, slot);
    g_print ("  %s: %s\n", label, sum);
    g_free (sum);
  }
  g_free (ctx);
  g_free (launch);
}

/* b) property changes (rebuilding ones and gamma) racing flushing seeks
 * while streaming, then EOS. */
static void
run_props_seeks (Case * cs, GRand * rand, const gchar * label,
    guint duration_ms, gint slot)
{
  gchar *caps = random_video_caps (rand, g_rand_boolean (rand));
  gchar *props = random_video_props (rand);
  gchar *launch = video_launch (rand, caps, props, 0,
      "fakesink name=sink sync=false");
  gchar *ctx = g_strdup_printf ("[%s: properties vs flushing seeks; %s]",
      label, launch);
  Pipe *p = pipe_new (cs, ctx, launch, FALSE);
  Racer *ch, *sk;
  guint n_ch, n_sk, n_fail;
  gchar *sum;

  if (p) {
    pipe_set_state (p, GST_STATE_PLAYING, slot);
    ch = racer_new (p->k, p, g_rand_int (rand), 4000);
    ch->rebuild = TRUE;
    racer_start (ch, changer_main, "changer");
    sk = racer_new (p->k, p, g_rand_int (rand), 30000);
    racer_start (sk, seeker_main, "seeker");
    act_set (slot, "%s: streaming for %u ms", p->label, duration_ms);
    g_usleep (duration_ms * 1000);
    act_set (slot, "%s: joining the seeker", p->label);
    n_fail = sk->n_failed;
    n_sk = racer_stop (sk);
    act_set (slot, "%s: joining the property changer", p->label);
    n_ch = racer_stop (ch);
    act_set (slot, "%s: EOS", p->label);
    pipe_send_eos (p);
    pipe_wait_eos (p, 60, STALL_S, "after the property changes and seeks",
        NULL, slot);
    sum = pipe_free (p, slot);
    g_print ("  %s: %u seeks (%u refused), %u property changes; %s\n", label,
        n_sk, n_fail, n_ch, sum);
    g_free (sum);
  }
  g_free (ctx);
  g_free (launch);
  g_free (props);
  g_free (caps);
}

/* ------------------------------------------------------------------------ */
/* Fixture                                                                   */
/* ------------------------------------------------------------------------ */

static void
torture_setup (void)
{
  co_test_leaks_setup ();
  wd_start ();
}

static void
torture_teardown (void)
{
  wd_stop ();
  co_test_leaks_check (TRUE);
}

/* ------------------------------------------------------------------------ */
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

static GstBuffer *
random_input (GRand * rand, gboolean audio, gsize size, guint i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo m;

  gst_buffer_map (b, &m, GST_MAP_WRITE);
  if (audio) {
    gfloat *x = (gfloat *) m.data;
    gsize j;
    for (j = 0; j < size / sizeof (gfloat); j++)
      x[j] = g_rand_double_range (rand, -1.0, 1.0);
  } else {
    co_test_fill_random (rand, m.data, size);
  }
  gst_buffer_unmap (b, &m);
  GST_BUFFER_PTS (b) = i * GST_SECOND / 100;
  GST_BUFFER_DURATION (b) = GST_SECOND / 100;
  return b;
}

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

/* GstHarness: push 40 buffers without pulling, then pull them all. */
GST_START_TEST (test_held_harness)
{
  Case *cs = case_begin ("test_held_harness", __i__);
  gboolean audio = __i__ == 1;
  guint run, runs = 2 * torture_scale;

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

/* a sink that keeps the last N (12, 30) buffers: video and audio */
GST_START_TEST (test_held_lastn)
{
  Case *cs = case_begin ("test_held_lastn", __i__);
  static const guint holds[] = { 12, 30 };
  gboolean audio = __i__ >= 2;
  guint hold = holds[__i__ % 2], run;
  gint slot = act_slot ();

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

/* __i__: 0 lone FLUSH_STOP, 1 FLUSH_START twice then FLUSH_STOP, 2 the
 * ordinary pair, 3 FLUSH_START then FLUSH_STOP twice, 4 two lone FLUSH_STOP,
 * 5 all of them mixed at random */
GST_START_TEST (test_flush_events)
{
  Case *cs = case_begin ("test_flush_events", __i__);
  guint run;
  gint slot = act_slot ();

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
    guint i, rounds = 12, final = 8, counts[5] = { 0, };
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
      guint v = __i__ < 5 ? (guint) __i__ :
          (guint) g_rand_int_range (cs->rand, 0, 5);
      gboolean reset = g_rand_boolean (cs->rand);

      g_usleep (g_rand_int_range (cs->rand, 0, 30000));
      wd_phase (PHASE_S, "%s: flush round %u, variant %u", ctx, i, v);
      counts[v]++;
      switch (v) {
        case 0:                /* FLUSH_STOP without FLUSH_START */
          send_stop_and_segment (sinkpad, &fp, slot, "a lone FLUSH_STOP",
              reset);
          break;
        case 1:                /* FLUSH_START twice, then FLUSH_STOP */
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "a second FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP after two "
              "FLUSH_START", reset);
          break;
        case 2:                /* the ordinary pair */
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          g_usleep (g_rand_int_range (cs->rand, 0, 5000));
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP", reset);
          break;
        case 3:                /* FLUSH_START, FLUSH_STOP twice */
          send_flush (sinkpad, gst_event_new_flush_start (), slot,
              "FLUSH_START");
          send_stop_and_segment (sinkpad, &fp, slot, "FLUSH_STOP", reset);
          send_stop_and_segment (sinkpad, &fp, slot, "a second FLUSH_STOP",
              reset);
          break;
        default:               /* two lone FLUSH_STOP */
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

static TCase *
torture_tcase (Suite * s, const gchar * name)
{
  TCase *tc = tcase_create (name);

  /* the watchdog fires first; this is the last resort */
  tcase_set_timeout (tc, 900);
  tcase_add_checked_fixture (tc, torture_setup, torture_teardown);
  suite_add_tcase (s, tc);
  return tc;
}

static Suite *
torture_suite (void)
{
  Suite *s = suite_create ("torture");

  /* one test case per scenario (GST_CHECKS=test_NAME runs one alone) */
  tcase_add_loop_test (torture_tcase (s, "held-harness"), test_held_harness,
      0, 2);
  tcase_add_loop_test (torture_tcase (s, "held-lastn"), test_held_lastn, 0, 4);
  tcase_add_test (torture_tcase (s, "held-tee"), test_held_tee);
  tcase_add_test (torture_tcase (s, "props-vs-seeks"), test_props_vs_seeks);
  tcase_add_test (torture_tcase (s, "caps-renegotiation"),
      test_caps_renegotiation);
  tcase_add_loop_test (torture_tcase (s, "flush-events"), test_flush_events,
      0, 6);
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
  const gchar *slow = g_getenv ("CO_TORTURE_SLOW");
  const gchar *env = g_getenv ("CO_TORTURE_SCALE");
  guint32 default_seed = (guint32) g_get_real_time () ^ (guint32) getpid ();
  Suite *s;
  int nf;

  if (env && *env)
    torture_scale = MAX (1, atoi (env));
  if (slow && *slow)
    torture_slow = MAX (1, atoi (slow));
  nf = co_test_init (&argc, &argv, "cudavideofilter", default_seed, FALSE);
  if (nf != 0)
    return nf;
  g_print ("torture: backend=%s seed=0x%08x (CO_TEST_SEED=0x%08x to repeat) "
      "scale=%u, leak check %s\n", co_test_backend, co_test_base_seed,
      co_test_base_seed, torture_scale, co_test_leaks_tracer ()? "on" : "off");

  s = torture_suite ();
  nf = gst_check_run_suite (s, "torture", __FILE__);
  co_test_leaks_free ();
  if (nf != 0)
    g_printerr ("torture: %d failure(s); seed 0x%08x (rerun with "
        "CO_TEST_SEED=0x%08x)\n", nf, co_test_base_seed, co_test_base_seed);
  return nf == 0 ? 0 : 1;
}
