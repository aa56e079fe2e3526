/* cudaoverlap-check: the lines and tables every part prints: a run's rate and
 * statistics, CUPTI beside the element's own figures.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check.h"

/* ---- reporting helpers --------------------------------------------------- */

gdouble
stat_dbl (const GstStructure * s, const gchar * f)
{
  gdouble v = 0;

  if (s)
    gst_structure_get_double (s, f, &v);
  return v;
}

const gchar *
stat_str (const GstStructure * s, const gchar * f)
{
  const gchar *v = s ? gst_structure_get_string (s, f) : NULL;

  return v ? v : "?";
}

void
print_run_line (const RunResult * r)
{
  const GstStructure *s = r->whole;
  guint u = 0;

  printf ("- element: backend %s, mode %s, streams %u x chunks %u",
      stat_str (s, "backend"), stat_str (s, "mode"),
      (gst_structure_get_uint (s, "streams", &u), u),
      (gst_structure_get_uint (s, "chunks", &u), u));
  if (r->passport && gst_structure_get_uint (r->passport, "max-in-flight", &u))
    printf (", max in flight %u", u);
  printf ("\n- input: %s; the element counted frames pinned %" G_GUINT64_FORMAT
      ", registered %" G_GUINT64_FORMAT ", pageable %" G_GUINT64_FORMAT "\n",
      r->input_note, bench_stat_u64 (s, "frames-pinned"),
      bench_stat_u64 (s, "frames-registered"), bench_stat_u64 (s,
          "frames-pageable"));
}

/* The events' excess over CUPTI per operation of each kind: (element -
 * CUPTI) / CUPTI's records of that kind.  An event interval holds the
 * device's scheduling of the operation after the event before it, a
 * roughly constant time per operation, so the relative difference grows as
 * operations shrink; this says how large it is (not judged). */
static void
print_excess_per_op (const RunResult * r)
{
  const CoStatsSummary *c = &r->cupti;
  const GstStructure *s = r->whole;
  guint64 n_h2d = 0, n_d2h = 0, n_k;
  guint i;

  if (!r->detail.copies || !r->detail.kernels)
    return;
  for (i = 0; i < r->detail.copies->len; i++) {
    const BenchCuptiCopy *k = &g_array_index (r->detail.copies,
        BenchCuptiCopy, i);

    n_h2d += k->copy_kind == bench_cupti_copy_kind_htod ();
    n_d2h += k->copy_kind == bench_cupti_copy_kind_dtoh ();
  }
  n_k = r->detail.kernels->len;
  printf ("Events' excess over CUPTI per operation (element - CUPTI, over "
      "CUPTI's records of the kind; not judged):");
  if (n_h2d)
    printf (" H2D %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "h2d-ns") - c->h2d_ns) / n_h2d / 1e3,
        n_h2d);
  if (n_k)
    printf (", kernel %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "kernel-ns") - c->kernel_ns) / n_k /
        1e3, n_k);
  if (n_d2h)
    printf (", D2H %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "d2h-ns") - c->d2h_ns) / n_d2h / 1e3,
        n_d2h);
  printf ("\n");
}

/* Element (events) beside CUPTI; the busy times and the efficiency must
 * agree within CUPTI_TOL.  Returns the verdict (V_PASS / V_FAIL / V_NA)
 * and the largest relative difference in *worst. */
gint
print_cupti_table (const RunResult * r, gchar * worst, gsize worst_size)
{
  static const struct
  {
    const gchar *field;
    gboolean judged;
  } rows[] = {
    {"h2d-ns", TRUE}, {"kernel-ns", TRUE}, {"d2h-ns", TRUE},
    {"gpu-busy-ns", TRUE}, {"serial-ns", FALSE},
    {"overlap-efficiency", TRUE}, {"copy-compute-overlap-ns", FALSE},
  };
  const GstStructure *s = r->whole;
  const CoStatsSummary *c = &r->cupti;
  gdouble worst_rel = -1;
  gboolean fail = FALSE;
  guint i;

  printf ("\n| field | element (events) | CUPTI | relative difference |\n"
      "|---|--:|--:|--:|\n");
  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    const gchar *f = rows[i].field;
    gboolean eff = !strcmp (f, "overlap-efficiency");
    gdouble e, k = 0, rel = NAN, tol;
    gchar ev[48], cv[48], dv[64];

    if (eff) {
      e = stat_dbl (s, f);
      g_snprintf (ev, sizeof (ev), "%.4f", e);
    } else {
      e = bench_stat_u64 (s, f);
      g_snprintf (ev, sizeof (ev), "%" G_GUINT64_FORMAT, bench_stat_u64 (s, f));
    }
    if (!r->cupti_ok) {
      g_strlcpy (cv, "-", sizeof (cv));
      g_strlcpy (dv, "-", sizeof (dv));
    } else {
      if (!strcmp (f, "h2d-ns"))
        k = c->h2d_ns;
      else if (!strcmp (f, "kernel-ns"))
        k = c->kernel_ns;
      else if (!strcmp (f, "d2h-ns"))
        k = c->d2h_ns;
      else if (!strcmp (f, "gpu-busy-ns"))
        k = c->gpu_busy_ns;
      else if (!strcmp (f, "serial-ns"))
        k = c->serial_ns;
      else if (eff)
        k = c->overlap_efficiency;
      else
        k = c->copy_compute_overlap_ns;
      if (eff)
        g_snprintf (cv, sizeof (cv), "%.4f", k);
      else
        g_snprintf (cv, sizeof (cv), "%.0f", k);
      if (k != 0)
        rel = (e - k) / k;
      if (eff) {
        /* near 0 a relative difference means nothing: a floor */
        tol = MAX (CUPTI_TOL * fabs (k), EFF_ABS_FLOOR);
        if (isnan (rel))
          g_snprintf (dv, sizeof (dv), "abs %+.4f (CUPTI 0)%s", e - k,
              fabs (e - k) <= tol ? "" : " **");
        else
          g_snprintf (dv, sizeof (dv), "%+.1f%% (abs %+.4f)%s", 100 * rel,
              e - k, fabs (e - k) <= tol ? "" : " **");
        if (rows[i].judged && fabs (e - k) > tol)
          fail = TRUE;
      } else {
        tol = CUPTI_TOL * fabs (k);
        if (isnan (rel))
          g_snprintf (dv, sizeof (dv), "n/a (CUPTI 0)%s", rows[i].judged &&
              e > 0 ? " **" : "");
        else
          g_snprintf (dv, sizeof (dv), "%+.1f%%%s%s", 100 * rel,
              rows[i].judged ? "" : " (not judged)",
              rows[i].judged && fabs (e - k) > tol ? " **" : "");
        if (rows[i].judged && fabs (e - k) > tol)
          fail = TRUE;
      }
      if (rows[i].judged && !isnan (rel) && fabs (rel) > worst_rel) {
        worst_rel = fabs (rel);
        g_snprintf (worst, worst_size, "largest %s %+.1f%%", f, 100 * rel);
      }
    }
    printf ("| %s | %s | %s | %s |\n", f, ev, cv, dv);
  }
  {
    gdouble fps = stat_dbl (s, "fps");
    guint64 frames = bench_stat_u64 (s, "frames");

    if (r->cupti_ok && c->window_ns > 0) {
      gdouble cf = frames * 1e9 / c->window_ns;

      printf ("| fps (frames / device window) | %.1f | %.1f | %+.1f%% (not "
          "judged) |\n", fps, cf, 100 * (fps - cf) / cf);
      printf ("| frames | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
          " records | - |\n", frames, r->cupti_records);
    } else {
      printf ("| fps (frames / device window) | %.1f | - | - |\n", fps);
      printf ("| frames | %" G_GUINT64_FORMAT " | - | - |\n", frames);
    }
  }
  if (!r->cupti_ok) {
    printf ("\nCUPTI: %s\n", r->cupti_why ? r->cupti_why :
        "skipped: not requested");
    return V_NA;
  }
  printf ("\nCUPTI: %" G_GUINT64_FORMAT " memcpy/kernel records from just "
      "before the first push to EOS, summed by co-stats like the element's "
      "(** = outside %.0f%%; efficiency: |difference| <= max (%.0f%% of "
      "CUPTI, %.2f)). CUPTI counts every H2D/D2H of the process in that "
      "time (audio: also the taps upload of the engine rebuild on the first "
      "buffer); the element counts its frames' copies.\n", r->cupti_records,
      100 * CUPTI_TOL, 100 * CUPTI_TOL, EFF_ABS_FLOOR);
  if (r->cupti_records == 0) {
    printf ("CUPTI delivered no record at all: nothing to compare with (was "
        "its activity recording attached to the element's context?)\n");
    g_strlcpy (worst, "CUPTI recorded nothing", worst_size);
    return V_FAIL;
  }
  print_excess_per_op (r);
  if (worst_rel < 0)
    g_strlcpy (worst, "no comparable field", worst_size);
  return fail ? V_FAIL : V_PASS;
}

gboolean
on_cuda (const RunResult * r)
{
  return r->whole && !g_strcmp0 (gst_structure_get_string (r->whole,
          "backend"), "cuda");
}

void
note_verdict (gint v)
{
  if (v == V_FAIL)
    failed_perf = TRUE;
}
