/* cudaoverlap-check: --video: box blur (or a custom kernel) serial and overlap,
 * the element's statistics against CUPTI, the outputs against the CPU
 * backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check.h"

/* ---- video --------------------------------------------------------------- */

static gboolean
video_compare (GstBuffer * a, GstBuffer * b, guint idx, gchar * msg, gsize size)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE, ma, mb;
  gint p, y;

  ma = gst_video_frame_map (&fa, &vinfo, a, GST_MAP_READ);
  mb = gst_video_frame_map (&fb, &vinfo, b, GST_MAP_READ);
  if (!ma || !mb) {
    g_snprintf (msg, size, "frame %u: could not map an output", idx);
    if (ma)
      gst_video_frame_unmap (&fa);
    if (mb)
      gst_video_frame_unmap (&fb);
    return FALSE;
  }
  for (p = 0; p < (gint) GST_VIDEO_FRAME_N_PLANES (&fa) && same; p++) {
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, p) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p);

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p) && same; y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      gsize x;

      if (memcmp (ra, rb, row) == 0)
        continue;
      for (x = 0; x < row && ra[x] == rb[x]; x++);
      g_snprintf (msg, size, "frame %u, plane %d, row %d, pixel %"
          G_GSIZE_FORMAT ", component %" G_GSIZE_FORMAT ": CUDA %u, CPU %u",
          idx, p, y, x / ps, x % ps, ra[x], rb[x]);
      same = FALSE;
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

void
video_setup (void)
{
  if (vcaps)
    return;
  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGBA, opt_width,
      opt_height);
  vinfo.fps_n = 60;
  vinfo.fps_d = 1;
  vdur = gst_util_uint64_scale_int (GST_SECOND, 1, 60);
  vcaps = gst_video_info_to_caps (&vinfo);
  fprintf (stderr, "[check] video: filling %u random %dx%d RGBA frames\n",
      RING, opt_width, opt_height);
  host_ring_init (&vring, vinfo.size, FALSE, SEED);
}

/* What the element runs: "operation=box-blur radius=R" and --props. */
gchar *
video_op_desc (void)
{
  return g_strdup_printf ("operation=box-blur radius=%d%s%s", opt_radius,
      opt_props ? ", then --props " : "", opt_props ? opt_props : "");
}

/* The first VIDEO_KEEP frames through backend=cpu with the same properties
 * (--props included), run once and kept for every comparison. */
RunResult vref;
static gint vref_state;         /* 0 not run, 1 ok, -1 failed */

static gboolean
video_cpu_reference (void)
{
  RunSpec c = { "video cpu reference", FALSE, FALSE, "cpu", opt_streams,
    opt_chunks, MIN (VIDEO_KEEP, (guint) opt_frames), VIDEO_KEEP, FALSE, 0,
    NULL, NULL, FALSE
  };

  if (vref_state == 0)
    vref_state = run_pipeline (&c, &vref) ? 1 : -1;
  return vref_state > 0;
}

/* The first outputs of @t against the CPU backend's, byte for byte; the
 * summary rows say "@label outputs ...".  With operation=custom the CPU
 * backend runs the kernel's CPU implementation (kernel-cpu-library and
 * -symbol of --props); without them the outputs are not compared, and the
 * log says so. */
void
video_check_outputs (const RunResult * t, const gchar * label)
{
  gchar check[96], msg[256] = "";
  const gchar *lib = props_get ("kernel-cpu-library");
  const gchar *sym = props_get ("kernel-cpu-symbol");
  guint same = 0, i;

  g_snprintf (check, sizeof (check), "%s outputs identical to the CPU "
      "backend", label);
  printf ("\n### %s outputs against the CPU backend\n\n", label);
  if (!t->ok) {
    printf ("not compared: the timed run failed\n");
    sum_add (V_FAIL, check, "all, byte for byte", "the run failed");
    failed_check = TRUE;
    return;
  }
  if (props_custom () && (!lib || !sym)) {
    printf ("outputs NOT compared: --props sets operation=custom without "
        "kernel-cpu-library and kernel-cpu-symbol, so the CPU backend cannot "
        "run the same kernel (give both to compare byte for byte)\n");
    sum_add (V_NA, check, "all, byte for byte", "not compared: --props names "
        "no kernel-cpu-library/-symbol");
    return;
  }
  if (props_custom ())
    printf ("reference: the CPU backend running the same kernel's CPU "
        "implementation (%s in %s), the same --props\n", sym, lib);
  if (!video_cpu_reference ()) {
    printf ("the CPU backend run FAILED: %s\n", vref.error);
    sum_add (V_FAIL, check, "all, byte for byte", "CPU run failed: %s",
        vref.error);
    failed_check = TRUE;
    return;
  }
  for (i = 0; i < vref.n_kept; i++) {
    if (i >= t->n_kept || !t->kept[i] || !vref.kept[i]) {
      g_snprintf (msg, sizeof (msg), "frame %u: output missing", i);
      break;
    }
    if (!video_compare (t->kept[i], vref.kept[i], i, msg, sizeof (msg)))
      break;
    same++;
  }
  if (same == vref.n_kept) {
    printf ("outputs identical to the CPU backend: %u/%u (the first %u "
        "frames of the timed run, backend %s, every picture byte)\n", same,
        vref.n_kept, vref.n_kept, stat_str (t->whole, "backend"));
    sum_add (V_PASS, check, "all, byte for byte", "%u/%u", same, vref.n_kept);
  } else {
    printf ("outputs DIFFER from the CPU backend: %u/%u identical; first "
        "difference: %s\n", same, vref.n_kept, msg);
    sum_add (V_FAIL, check, "all, byte for byte", "%u/%u; %s", same,
        vref.n_kept, msg);
    failed_check = TRUE;
  }
}

static gint
count_desc (gconstpointer a, gconstpointer b, gpointer data)
{
  guint ca = GPOINTER_TO_UINT (g_hash_table_lookup (data, a));
  guint cb = GPOINTER_TO_UINT (g_hash_table_lookup (data, b));

  return ca < cb ? 1 : ca > cb ? -1 : g_strcmp0 (a, b);
}

/* CUPTI's kernel records by name, most launched first: "NAME xN, ..."; and
 * in *matched the records whose name is or contains @want (NULL: none). */
gchar *
kernel_names (const BenchCuptiDetail * d, const gchar * want, guint * matched)
{
  GHashTable *h = g_hash_table_new (g_direct_hash, g_direct_equal);
  GString *s = g_string_new (NULL);
  GList *keys, *l;
  guint i, shown = 0;

  *matched = 0;
  for (i = 0; d->kernels && i < d->kernels->len; i++) {
    const gchar *n = g_array_index (d->kernels, BenchCuptiKernel, i).name;

    g_hash_table_insert (h, (gpointer) n,
        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (h, n)) + 1));
    if (want && *want && strstr (n, want))
      (*matched)++;
  }
  keys = g_list_sort_with_data (g_hash_table_get_keys (h), count_desc, h);
  for (l = keys; l; l = l->next, shown++) {
    if (shown == 8) {
      g_string_append_printf (s, ", ... (%u names)", g_hash_table_size (h));
      break;
    }
    g_string_append_printf (s, "%s%.80s x%u", shown ? ", " : "",
        (const gchar *) l->data, GPOINTER_TO_UINT (g_hash_table_lookup (h,
                l->data)));
  }
  if (!keys)
    g_string_append (s, "none");
  g_list_free (keys);
  g_hash_table_unref (h);
  return g_string_free (s, FALSE);
}

/* After the CUPTI table of a video run: the kernels CUPTI saw by name, and
 * with operation=custom whether the user's kernel is among them (every
 * kernel record counts in CUPTI's kernel-ns whatever its name: nothing is
 * filtered by name; this row says the custom kernel's launches are what
 * was measured). */
static void
video_cupti_kernels (const RunResult * r, const gchar * mode)
{
  const gchar *want = props_custom ()? props_get ("kernel-name") : NULL;
  guint matched = 0, all;
  gchar *names, check[80];
  gint v;

  if (!r->cupti_ok)
    return;
  names = kernel_names (&r->detail, want, &matched);
  all = r->detail.kernels ? r->detail.kernels->len : 0;
  printf ("CUPTI kernel records by name (all of them count in kernel-ns, "
      "none is filtered out): %s\n", names);
  g_free (names);
  if (!props_custom ())
    return;
  v = matched > 0 ? V_PASS : V_FAIL;
  printf ("custom kernel %s: %u of %u CUPTI kernel records carry its name "
      "(%s)\n", want ? want : "(no kernel-name)", matched, all,
      v == V_PASS ? "its launches are measured" :
      "FAIL: CUPTI saw no launch of it");
  g_snprintf (check, sizeof (check), "video %s: custom kernel in CUPTI", mode);
  sum_add (v, check, ">= 1 record", "%u of %u kernel records named %s",
      matched, all, want ? want : "?");
  note_verdict (v);
}

void
run_video (void)
{
  RunResult warm, timed[2];
  const GstStructure *passport = NULL;
  gchar *pp = NULL, *op;
  guint m;

  video_setup ();
  op = video_op_desc ();
  printf ("\n## video: cudavideofilter %s, %dx%d RGBA (%" G_GSIZE_FORMAT
      " bytes), %d frames per timed run\n\n", op, opt_width, opt_height,
      vinfo.size, opt_frames);
  g_free (op);
  printf ("Per mode: a warm-up pipeline of %d frames, then the timed one "
      "(frame 1 pushed and waited for, then the others); stats-interval=0, "
      "appsink sync=false.\n", VIDEO_WARMUP);

  for (m = 0; m < 2; m++) {
    gboolean serial = m == 0;
    const gchar *mode = serial ? "serial" : "overlap";
    RunSpec w = { NULL, FALSE, serial, opt_backend,
      serial ? 1 : opt_streams, serial ? 1 : opt_chunks, VIDEO_WARMUP, 0,
      FALSE, 0, NULL, NULL, FALSE
    };
    RunSpec t = w;
    gchar wn[48], tn[48], worst[96] = "";
    gint v;

    g_snprintf (wn, sizeof (wn), "video %s warm-up", mode);
    g_snprintf (tn, sizeof (tn), "video %s timed", mode);
    w.name = wn;
    t.name = tn;
    t.n = opt_frames;
    t.keep = serial ? 0 : VIDEO_KEEP;
    t.cupti = TRUE;

    if (!run_pipeline (&w, &warm))
      failed_check = TRUE;
    if (!passport && warm.passport)
      pp = gst_structure_to_string (warm.passport);
    run_result_clear (&warm);
    run_pipeline (&t, &timed[m]);
    if (!passport && timed[m].passport)
      passport = timed[m].passport;

    printf ("\n### video %s\n\n", mode);
    if (!timed[m].ok) {
      printf ("RUN FAILED: %s\n", timed[m].error);
      failed_check = TRUE;
      sum_add (V_FAIL, serial ? "video serial run" : "video overlap run",
          "-", "failed: %s", timed[m].error);
      continue;
    }
    print_run_line (&timed[m]);
    printf ("- wall: %u frames (2..%u) in %.3f s = %.1f frames/s (push of "
        "frame 2 to the last output); all %u from the first push: %.1f "
        "frames/s\n", opt_frames - 1, opt_frames, timed[m].wall_s,
        timed[m].rate, opt_frames, timed[m].rate_all);
    v = print_cupti_table (&timed[m], worst, sizeof (worst));
    video_cupti_kernels (&timed[m], mode);
    {
      gdouble eff = stat_dbl (timed[m].whole, "overlap-efficiency");
      gboolean cuda = on_cuda (&timed[m]);
      /* the overlap threshold is box blur's: for a user's
       * kernel the efficiency is reported, not judged */
      gboolean judged = serial || !props_custom ();
      gint ve = !cuda ? V_NA : !judged ? V_INFO : serial ?
          (eff <= SERIAL_EFF_MAX ? V_PASS : V_FAIL) :
          (eff >= OVERLAP_EFF_MIN ? V_PASS : V_FAIL);
      gchar check[80];

      printf ("\nverdict: %s overlap-efficiency %.4f %s %.2f: %s%s\n", mode,
          eff, serial ? "<=" : ">=", serial ? SERIAL_EFF_MAX : OVERLAP_EFF_MIN,
          verdict_names[ve], !cuda ? " (CPU backend: no copies to "
          "overlap)" : judged ? "" : " (operation=custom: box blur's "
          "threshold, not judged)");
      printf ("verdict: busy times and efficiency within %.0f%% of CUPTI: "
          "%s%s%s%s\n", 100 * CUPTI_TOL, verdict_names[v], *worst ? " (" :
          "", worst, *worst ? ")" : "");
      g_snprintf (check, sizeof (check), "video %s overlap-efficiency", mode);
      sum_add (ve, check, !judged ? "-" : serial ? "<= 0.05" : ">= 0.8",
          "%.4f%s", eff, cuda ? "" : " (CPU backend)");
      note_verdict (ve);
      g_snprintf (check, sizeof (check), "video %s: element vs CUPTI", mode);
      if (v == V_NA)
        sum_add (V_NA, check, "within 10%", "%s", timed[m].cupti_why ?
            timed[m].cupti_why : "skipped");
      else
        sum_add (v, check, "within 10%", "%s", worst);
      note_verdict (v);
      g_snprintf (check, sizeof (check), "video %s frames/s (wall, element)",
          mode);
      sum_add (V_INFO, check, "-", "%.1f, %.1f", timed[m].rate,
          stat_dbl (timed[m].whole, "fps"));
    }
  }

  printf ("\n- video passport (first timed run): ");
  if (passport) {
    gchar *str = gst_structure_to_string (passport);

    printf ("%s\n", str);
    g_free (str);
  } else {
    printf ("%s\n", pp ? pp : "none");
  }
  g_free (pp);

  /* the same first frames through the CPU backend */
  video_check_outputs (&timed[1], "video");
  for (m = 0; m < 2; m++)
    run_result_clear (&timed[m]);
}
