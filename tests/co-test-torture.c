/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-torture: what the torture suites share (see co-test-torture.h).
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <math.h>

#include "co-test-torture.h"

guint torture_slow = 1;

guint torture_scale = 1;

/* ------------------------------------------------------------------------ */
/* What each thread is doing (printed by the watchdog)                       */
/* ------------------------------------------------------------------------ */

#define N_ACT 32

static GMutex act_lock;
static gchar *act_text[N_ACT];
static gint act_next;

gint
act_slot (void)
{
  return g_atomic_int_add (&act_next, 1) % N_ACT;
}

void
act_set (gint slot, const gchar * fmt, ...)
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

/* The phase @fmt starts now and must end within @seconds. */
void
wd_phase (guint seconds, const gchar * fmt, ...)
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

Case *
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

/* Records a failure (any thread); case_end() fails the test with it. */
void
case_error (Case * c, const gchar * fmt, ...)
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

gboolean
case_failed (Case * c)
{
  gboolean f;

  g_mutex_lock (&c->lock);
  f = c->n_errors > 0;
  g_mutex_unlock (&c->lock);
  return f;
}

void
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

Checker *
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

void
checker_free (Checker * k)
{
  g_queue_clear_full (&k->inputs, (GDestroyNotify) inrec_free);
  g_mutex_clear (&k->lock);
  g_mutex_clear (&k->set_lock);
  g_free (k->ctx);
  g_free (k->label);
  g_free (k);
}

guint64
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

gchar *
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
void
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


gchar *
random_video_caps (GRand * rand, gboolean first_size)
{
  guint s = first_size ? 0 : g_rand_int_range (rand, 0,
      G_N_ELEMENTS (torture_sizes));

  return g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=30/1", gst_video_format_to_string (PICK (rand,
              torture_formats)), torture_sizes[s].w, torture_sizes[s].h);
}

/* Element properties of a random configuration (gst-launch syntax). */
gchar *
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
void
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


GstBusSyncReply
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

GstElement *
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
Pipe *
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

void
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

guint64
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
gboolean
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

void
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
gchar *
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

gchar *
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

Racer *
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

guint
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

gpointer
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

gpointer
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
 * Set from the racer's own thread, a change would race the source's
 * streaming thread: between capsfilter taking its new caps and its
 * RECONFIGURE event reaching the source, a source restarting after a
 * flushing seek re-sends its old caps with its first buffer, capsfilter
 * refuses them, and the source, seeing no reconfigure pending, stops with
 * not-negotiated (when the racer thread is preempted inside
 * g_object_set).  That race is between videotestsrc and capsfilter; in
 * the streaming thread the reconfigure flag is set before the source can
 * push again.  The element still sees each caps change race the seeks. */
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

gpointer
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

Racer *
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
void
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
void
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

/* A random input buffer @i of @size bytes (audio: F32 in -1..1) */
GstBuffer *
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

/* ------------------------------------------------------------------------ */
/* Suite and main()                                                          */
/* ------------------------------------------------------------------------ */

TCase *
torture_tcase (Suite * s, const gchar * name)
{
  TCase *tc = tcase_create (name);

  /* the watchdog fires first; this is the last resort */
  tcase_set_timeout (tc, 900);
  tcase_add_checked_fixture (tc, torture_setup, torture_teardown);
  suite_add_tcase (s, tc);
  return tc;
}

int
co_test_torture_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void))
{
  static const gchar *const hooks[] = { "co_test_set_worker_jitter_us",
    "co_test_set_force_staging"
  };
  const gchar *slow = g_getenv ("CO_TORTURE_SLOW");
  const gchar *env = g_getenv ("CO_TORTURE_SCALE");
  guint32 default_seed = (guint32) g_get_real_time () ^ (guint32) getpid ();
  guint i;
  int nf;

  if (env && *env)
    torture_scale = MAX (1, atoi (env));
  if (slow && *slow)
    torture_slow = MAX (1, atoi (slow));
  nf = co_test_init (&argc, &argv, "cudavideofilter", default_seed, FALSE);
  if (nf != 0)
    return nf;
  /* the cases' timing and staging come from the hooks: without them every
   * case would run with less than it says */
  for (i = 0; i < G_N_ELEMENTS (hooks); i++) {
    const gchar *missing = co_test_hook_missing (hooks[i]);

    if (missing) {
      g_print ("SKIP: %s: %s\n", name, missing);
      return 77;
    }
  }
  g_print ("%s: backend=%s seed=0x%08x (CO_TEST_SEED=0x%08x to repeat) "
      "scale=%u, leak check %s\n", name, co_test_backend, co_test_base_seed,
      co_test_base_seed, torture_scale, co_test_leaks_tracer ()? "on" : "off");

  nf = gst_check_run_suite (suite (), name, __FILE__);
  co_test_leaks_free ();
  if (nf != 0)
    g_printerr ("%s: %d failure(s); seed 0x%08x (rerun with "
        "CO_TEST_SEED=0x%08x)\n", name, nf, co_test_base_seed,
        co_test_base_seed);
  return co_test_exit_status (nf);
}
