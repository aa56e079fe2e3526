/* cudaoverlap-check: --audio: the FIR filter serial, overlap and on the
 * CPU backend; --taps-sweep: the taps where the kernel takes as long as
 * the copies.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check.h"

const guint sweep_taps[] = { 15, 31, 63, 127, 255, 511, 1023, 2047,
  4095
};

/* ---- audio --------------------------------------------------------------- */

static void
audio_setup (void)
{
  if (acaps)
    return;
  acaps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING, "F32LE",
      "rate", G_TYPE_INT, AUDIO_RATE, "channels", G_TYPE_INT, opt_channels,
      "layout", G_TYPE_STRING, "interleaved", NULL);
  adur = gst_util_uint64_scale_int (opt_samples, GST_SECOND, AUDIO_RATE);
  fprintf (stderr, "[check] audio: filling %u random buffers of %d x %d "
      "F32 samples\n", RING, opt_samples, opt_channels);
  host_ring_init (&aring, (gsize) opt_samples * opt_channels * sizeof (gfloat),
      TRUE, SEED + 1);
}

/* Relative L2 error of @a against @ref (F32 samples); -1 when they cannot
 * be compared (sizes, mapping), INFINITY for non-finite values. */
static gdouble
audio_rel_l2 (GstBuffer * a, GstBuffer * ref, gchar * msg, gsize size)
{
  GstMapInfo ma, mr;
  gdouble num = 0, den = 0;
  gsize i, n;

  if (!gst_buffer_map (a, &ma, GST_MAP_READ)) {
    g_snprintf (msg, size, "could not map an output");
    return -1;
  }
  if (!gst_buffer_map (ref, &mr, GST_MAP_READ)) {
    gst_buffer_unmap (a, &ma);
    g_snprintf (msg, size, "could not map an output");
    return -1;
  }
  if (ma.size != mr.size) {
    g_snprintf (msg, size, "sizes differ: %" G_GSIZE_FORMAT " and %"
        G_GSIZE_FORMAT " bytes", ma.size, mr.size);
    gst_buffer_unmap (a, &ma);
    gst_buffer_unmap (ref, &mr);
    return -1;
  }
  n = ma.size / sizeof (gfloat);
  for (i = 0; i < n; i++) {
    gdouble x = ((const gfloat *) ma.data)[i];
    gdouble y = ((const gfloat *) mr.data)[i];

    num += (x - y) * (x - y);
    den += y * y;
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (ref, &mr);
  if (!isfinite (num) || !isfinite (den))
    return INFINITY;
  return den > 0 ? sqrt (num / den) : (num > 0 ? INFINITY : 0);
}

static void
print_audio_row (const gchar * name, const RunResult * r, guint n)
{
  const GstStructure *s = r->whole;
  gdouble sps = r->rate * opt_samples;
  guint u = 0, c = 0;

  if (!r->ok) {
    printf ("| %s | - | - | %u | FAILED: %s | - | - | - | - | - | - | - |\n",
        name, n, r->error);
    return;
  }
  gst_structure_get_uint (s, "streams", &u);
  gst_structure_get_uint (s, "chunks", &c);
  printf ("| %s | %s | %ux%u | %u | %.4g | %.4g | %.2f | %.3f | %.3f | %.3f "
      "| %.4f "
      "| %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
      " |\n", name, stat_str (s, "backend"), u, c, n, sps,
      r->rate_all * opt_samples,
      2.0 * sps * opt_channels * sizeof (gfloat) / 1e9,
      bench_stat_u64 (s, "h2d-ns") / 1e6 / MAX (bench_stat_u64 (s, "frames"),
          1), bench_stat_u64 (s, "kernel-ns") / 1e6 / MAX (bench_stat_u64 (s,
              "frames"), 1), bench_stat_u64 (s,
          "d2h-ns") / 1e6 / MAX (bench_stat_u64 (s, "frames"), 1), stat_dbl (s,
          "overlap-efficiency"), bench_stat_u64 (s, "frames-pinned"),
      bench_stat_u64 (s, "frames-registered"), bench_stat_u64 (s,
          "frames-pageable"));
}

void
run_audio (void)
{
  gdouble *taps = make_taps (opt_taps);
  RunResult warm, runs[3];
  static const gchar *names[3] = { "serial", "overlap", "cpu (overlap)" };
  gchar *pp = NULL;
  guint k, n_cpu;
  gdouble ratio = 0;

  audio_setup ();
  n_cpu = opt_cpu_buffers > 0 ? (guint) opt_cpu_buffers :
      (guint) MIN (opt_buffers, 40);
  printf ("\n## audio: cudaaudiofilter operation=fir, %d random taps (fixed "
      "seed), F32LE %d channels, %d samples per channel per buffer (%"
      G_GSIZE_FORMAT " bytes)\n\n", opt_taps, opt_channels, opt_samples,
      aring.size);
  printf ("Runs: serial and overlap (backend %s), each after a warm-up "
      "pipeline of %d buffers; backend=cpu overlap (%u buffers, no warm-up). "
      "Input: %s. samples/s: per channel, buffers 2..N over the wall time "
      "from the push of buffer 2 to the last output (buffer 1 was pushed and "
      "waited for: the element rebuilds its engine for buffers of more than "
      "1 MiB). Busy times: the element's whole-run statistics (all N "
      "buffers) / frames.\n", opt_backend, MIN (AUDIO_WARMUP, opt_buffers),
      n_cpu, "8 malloc()ed buffers, each wrapped once in a GstMemory (the "
      "CUDA backend registers them with cudaHostRegister once), a fresh "
      "GstBuffer per push");

  for (k = 0; k < 3; k++) {
    gboolean cpu = k == 2, serial = k == 0;
    RunSpec t = { NULL, TRUE, serial, cpu ? "cpu" : opt_backend,
      serial ? 1 : opt_streams, serial ? 1 : opt_chunks,
      cpu ? n_cpu : (guint) opt_buffers, serial ? 0 : AUDIO_KEEP,
      opt_cupti && !cpu, opt_taps, taps
    };
    gchar tn[48];

    if (!cpu) {
      RunSpec w = t;
      gchar wn[48];

      g_snprintf (wn, sizeof (wn), "audio %s warm-up", names[k]);
      w.name = wn;
      w.n = MIN (AUDIO_WARMUP, opt_buffers);
      w.keep = 0;
      w.cupti = FALSE;
      if (!run_pipeline (&w, &warm))
        failed_check = TRUE;
      if (!pp && warm.passport)
        pp = gst_structure_to_string (warm.passport);
      run_result_clear (&warm);
    }
    g_snprintf (tn, sizeof (tn), "audio %s timed", names[k]);
    t.name = tn;
    if (!run_pipeline (&t, &runs[k]))
      failed_check = TRUE;
    if (!pp && runs[k].passport)
      pp = gst_structure_to_string (runs[k].passport);
  }

  printf ("\n| run | backend | streams x chunks | buffers | samples/s | "
      "samples/s all N from the first push | GB/s in+out | h2d ms/buffer | "
      "kernel ms/buffer | d2h ms/buffer | overlap eff | frames "
      "pinned/registered/pageable |\n"
      "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (k = 0; k < 3; k++)
    print_audio_row (names[k], &runs[k], k == 2 ? n_cpu : (guint) opt_buffers);
  printf ("\n- audio passport (the first run's last one, i.e. after the "
      "rebuild for the buffer size): %s\n", pp ? pp : "none");
  g_free (pp);

  if (runs[0].ok && runs[1].ok && runs[0].rate > 0) {
    gboolean cuda = on_cuda (&runs[1]) && on_cuda (&runs[0]);
    gint v;

    ratio = runs[1].rate / runs[0].rate;
    v = !cuda ? V_NA : ratio >= AUDIO_SPEEDUP_MIN ? V_PASS : V_FAIL;
    printf ("\nverdict: overlap / serial samples/s = %.3f (>= %.1f): %s%s\n",
        ratio, AUDIO_SPEEDUP_MIN, verdict_names[v], cuda ? "" :
        " (CPU backend)");
    sum_add (v, "audio overlap / serial samples/s", ">= 1.4", "%.3f (%.4g / "
        "%.4g)%s", ratio, runs[1].rate * opt_samples,
        runs[0].rate * opt_samples, cuda ? "" : " (CPU backend)");
    note_verdict (v);
  } else {
    sum_add (V_FAIL, "audio overlap / serial samples/s", ">= 1.4",
        "a run failed");
  }
  if (runs[1].ok && runs[2].ok && runs[2].rate > 0) {
    printf ("overlap / cpu samples/s = %.3f\n", runs[1].rate / runs[2].rate);
    sum_add (V_INFO, "audio overlap / cpu-backend samples/s", "-", "%.3f",
        runs[1].rate / runs[2].rate);
  }

  if (opt_cupti) {
    for (k = 0; k < 2; k++) {
      gchar worst[96] = "", check[80];
      gint v;

      printf ("\n### audio %s: element against CUPTI\n", names[k]);
      if (!runs[k].ok) {
        printf ("RUN FAILED\n");
        continue;
      }
      v = print_cupti_table (&runs[k], worst, sizeof (worst));
      printf ("\nverdict: busy times and efficiency within %.0f%% of CUPTI: "
          "%s%s%s%s\n", 100 * CUPTI_TOL, verdict_names[v], *worst ? " (" :
          "", worst, *worst ? ")" : "");
      g_snprintf (check, sizeof (check), "audio %s: element vs CUPTI",
          names[k]);
      if (v == V_NA)
        sum_add (V_NA, check, "within 10%", "%s", runs[k].cupti_why ?
            runs[k].cupti_why : "skipped");
      else
        sum_add (v, check, "within 10%", "%s", worst);
      note_verdict (v);
    }
  }

  /* accuracy: the first outputs of the overlap run against the CPU ones */
  printf ("\n### audio outputs against the CPU backend\n\n");
  if (runs[1].ok && runs[2].ok) {
    guint n = MIN (runs[1].n_kept, runs[2].n_kept), i;
    gdouble worst = 0;
    gchar msg[160] = "";

    for (i = 0; i < n; i++) {
      gdouble e = audio_rel_l2 (runs[1].kept[i], runs[2].kept[i], msg,
          sizeof (msg));

      printf ("buffer %u: relative L2 error of the overlap run (backend %s) "
          "against the backend=cpu run: %.3g\n", i + 1,
          stat_str (runs[1].whole, "backend"), e);
      if (e < 0 || isnan (e)) {
        worst = INFINITY;
        printf ("  not comparable: %s\n", msg);
      } else {
        worst = MAX (worst, e);
      }
    }
    if (n > 0 && worst <= AUDIO_MAX_REL_L2) {
      printf ("outputs match the CPU backend: %u/%u buffers, relative L2 "
          "error <= %.0e (largest %.3g)\n", n, n, AUDIO_MAX_REL_L2, worst);
      sum_add (V_PASS, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
          "%.3g over %u buffers", worst, n);
    } else {
      printf ("outputs DIFFER from the CPU backend: largest relative L2 "
          "error %.3g > %.0e\n", worst, AUDIO_MAX_REL_L2);
      sum_add (V_FAIL, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
          "%.3g over %u buffers", worst, n);
      failed_check = TRUE;
    }
  } else {
    printf ("not compared: a run failed\n");
    sum_add (V_FAIL, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
        "a run failed");
    failed_check = TRUE;
  }
  for (k = 0; k < 3; k++) {
    if (!runs[k].ok)
      sum_add (V_FAIL, k == 0 ? "audio serial run" : k == 1 ?
          "audio overlap run" : "audio cpu-backend run", "-", "failed: %s",
          runs[k].error);
    run_result_clear (&runs[k]);
  }
  g_free (taps);
}

/* ---- taps sweep ---------------------------------------------------------- */

/* Where kernel time per buffer crosses copy time per buffer, going up in
 * taps: interpolated linearly in log2 (taps) and log (kernel / copy)
 * between the last point below 1 and the first at or above it. */
static void
kernel_copy_crossing (const guint * taps, const gdouble * kern,
    const gdouble * copy, const gboolean * ok, guint n, gchar * res, gsize size)
{
  gint prev = -1;
  guint i;

  *res = 0;
  for (i = 0; i < n && !*res; i++) {
    gdouble q;

    if (!ok[i] || copy[i] <= 0 || kern[i] <= 0)
      continue;
    q = kern[i] / copy[i];
    if (q >= 1) {
      if (prev < 0) {
        g_snprintf (res, size, "kernel >= copy already at %u taps (ratio "
            "%.3f)", taps[i], q);
      } else {
        gdouble x0 = log2 (taps[prev]), x1 = log2 (taps[i]);
        gdouble y0 = log (kern[prev] / copy[prev]), y1 = log (q);
        gdouble x = y1 != y0 ? x0 - y0 * (x1 - x0) / (y1 - y0) : x0;

        g_snprintf (res, size, "about %.0f taps (between %u and %u, "
            "interpolated linearly in log(taps) and log(kernel/copy))",
            exp2 (x), taps[prev], taps[i]);
      }
    }
    prev = i;
  }
  if (!*res && prev < 0)
    g_snprintf (res, size, "no usable point");
  else if (!*res)
    g_snprintf (res, size, "kernel < copy up to %u taps (ratio %.3f there)",
        taps[prev], kern[prev] / copy[prev]);
}

void
run_sweep (void)
{
  gdouble kern[G_N_ELEMENTS (sweep_taps)], copy[G_N_ELEMENTS (sweep_taps)];
  gboolean ok[G_N_ELEMENTS (sweep_taps)], cuda = FALSE;
  guint i;

  audio_setup ();
  printf ("\n## taps sweep: cudaaudiofilter operation=fir mode=overlap "
      "streams=%d chunks=%d backend=%s, %d buffers of %d x %d F32 per taps "
      "count\n\n", opt_streams, opt_chunks, opt_backend, opt_buffers,
      opt_samples, opt_channels);
  {
    gdouble *taps = make_taps (sweep_taps[0]);
    RunSpec w = { "sweep warm-up", TRUE, FALSE, opt_backend, opt_streams,
      opt_chunks, MIN (AUDIO_WARMUP, opt_buffers), 0, FALSE, sweep_taps[0],
      taps
    };
    RunResult r;

    if (!run_pipeline (&w, &r))
      failed_check = TRUE;
    run_result_clear (&r);
    g_free (taps);
  }
  printf ("One warm-up pipeline of %d buffers first; per taps count one "
      "pipeline (its first buffer pushed and waited for). Per buffer: the "
      "element's whole-run busy times / frames.\n\n",
      MIN (AUDIO_WARMUP, opt_buffers));
  printf ("| taps | kernel ms/buffer | copy ms/buffer ((h2d + d2h) / 2) | "
      "kernel / copy | h2d ms/buffer | d2h ms/buffer | samples/s | overlap "
      "eff |\n|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (i = 0; i < G_N_ELEMENTS (sweep_taps); i++) {
    gdouble *taps = make_taps (sweep_taps[i]);
    gchar name[48], q[32];
    RunSpec t = { name, TRUE, FALSE, opt_backend, opt_streams, opt_chunks,
      opt_buffers, 0, FALSE, sweep_taps[i], taps
    };
    RunResult r;

    g_snprintf (name, sizeof (name), "sweep %u taps", sweep_taps[i]);
    ok[i] = run_pipeline (&t, &r);
    if (ok[i]) {
      gdouble f = MAX (bench_stat_u64 (r.whole, "frames"), 1);
      gdouble h = bench_stat_u64 (r.whole, "h2d-ns") / f;
      gdouble d = bench_stat_u64 (r.whole, "d2h-ns") / f;

      kern[i] = bench_stat_u64 (r.whole, "kernel-ns") / f;
      copy[i] = (h + d) / 2;
      cuda |= on_cuda (&r);
      if (copy[i] > 0)
        g_snprintf (q, sizeof (q), "%.3f", kern[i] / copy[i]);
      else
        g_strlcpy (q, "n/a", sizeof (q));
      printf ("| %u | %.4f | %.4f | %s | %.4f | %.4f | %.4g | %.4f |\n",
          sweep_taps[i], kern[i] / 1e6, copy[i] / 1e6, q, h / 1e6,
          d / 1e6, r.rate * opt_samples, stat_dbl (r.whole,
              "overlap-efficiency"));
    } else {
      printf ("| %u | FAILED: %s | | | | | | |\n", sweep_taps[i], r.error);
      failed_check = TRUE;
    }
    run_result_clear (&r);
    g_free (taps);
  }

  if (!cuda) {
    printf ("\nkernel = copy: n/a (CPU backend: no copies)\n");
    sum_add (V_NA, "taps where kernel time = copy time", "-",
        "CPU backend: no copies");
    return;
  }
  {
    gchar res[160];

    kernel_copy_crossing (sweep_taps, kern, copy, ok, G_N_ELEMENTS (sweep_taps),
        res, sizeof (res));
    printf ("\nkernel time = copy time ((h2d + d2h) / 2, per buffer, element "
        "events): %s\n", res);
    sum_add (V_INFO, "taps where kernel time = copy time", "-", "%s", res);
  }
}
