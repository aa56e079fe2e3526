/* cudaoverlap-bench: the report: the run's passport, the table (and its
 * CSV, docs/bench.md), each row's ratio to its ceiling and to its harness
 * control, the summary.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench-cli.h"

/* ---- the report ---------------------------------------------------------- */

static gdouble
row_fps (const gchar * name)
{
  guint i;

  for (i = 0; i < rows->len; i++) {
    BenchRow *r = &g_array_index (rows, BenchRow, i);

    if (!strcmp (r->name, name))
      return r->fps;
  }
  return NAN;
}

static gdouble
raw_best (void)
{
  return row_fps ("raw-best");
}

/* The best raw row of @r's path: the round trip (raw-best), or for the
 * --memory rows their own: device only, one-way H2D or D2H; NAN for the
 * box blur (no raw loop of it). */
static const gchar *
ceiling_name (const BenchRow * r)
{
  if (g_str_has_prefix (r->name, "raw-device") || (!strcmp (r->mode,
              "cuda-cuda") && g_str_has_prefix (r->name, "mem")))
    return "raw-device-best";
  if (g_str_has_prefix (r->name, "raw-h2d") || (!strcmp (r->mode, "upload")
          && g_str_has_prefix (r->name, "mem")))
    return "raw-h2d-best";
  if (g_str_has_prefix (r->name, "raw-d2h") || (!strcmp (r->mode, "download")
          && g_str_has_prefix (r->name, "mem")))
    return "raw-d2h-best";
  if (g_str_has_prefix (r->name, "mem"))
    return NULL;
  return "raw-best";
}

static gdouble
row_ceiling (const BenchRow * r)
{
  const gchar *n = ceiling_name (r);

  return n ? row_fps (n) : NAN;
}

/* @r's harness control: the control row of the same input (identity in
 * the element's place); NAN for the raw, memcpy, peer and paced rows. */
static gdouble
row_control (const BenchRow * r)
{
  guint i;

  if (g_str_has_prefix (r->name, "raw") || g_str_has_prefix (r->name,
          "memcpy") || g_str_has_prefix (r->name, "control") ||
      g_str_has_prefix (r->name, "peer") || g_str_has_prefix (r->mode, "live"))
    return NAN;
  for (i = 0; i < rows->len; i++) {
    BenchRow *c = &g_array_index (rows, BenchRow, i);

    if (!strcmp (c->name, "control") && !strcmp (c->input, r->input) &&
        !c->invalid)
      return c->fps;
  }
  return NAN;
}

/* A ramp row's (--gamma-ramp, mode "... ramp") constant twin: the nearest
 * row before it of the same name and input, its mode without " ramp" and
 * (unless chosen by the element: auto) its streams and chunks; NULL for
 * the other rows. */
static const BenchRow *
row_constant (guint index)
{
  const BenchRow *r = &g_array_index (rows, BenchRow, index);
  gsize n = strlen (r->mode);
  guint i;

  if (!g_str_has_suffix (r->mode, " ramp"))
    return NULL;
  for (i = index; i-- > 0;) {
    const BenchRow *c = &g_array_index (rows, BenchRow, i);

    if (!strcmp (c->name, r->name) && !strcmp (c->input, r->input) &&
        strlen (c->mode) == n - 5 && !strncmp (c->mode, r->mode, n - 5) &&
        (g_str_has_prefix (r->mode, "auto") || (c->streams == r->streams &&
                c->chunks == r->chunks)))
      return c->invalid || c->skipped ? NULL : c;
  }
  return NULL;
}

static gdouble
row_x_constant (guint index)
{
  const BenchRow *c = row_constant (index);

  return c ? g_array_index (rows, BenchRow, index).fps / c->fps : NAN;
}

static void
fmt_num (gchar * buf, gsize size, gdouble v, const gchar * fmt,
    const gchar * na)
{
  if (isnan (v))
    g_strlcpy (buf, na, size);
  else
    g_snprintf (buf, size, fmt, v);
}

static void
print_rows (FILE * out, gboolean csv)
{
  const gchar *sep = csv ? "," : " | ";
  guint i, k;

  if (csv)
    fprintf (out, "name,mode,input,streams,chunks,fps,gbps,lat_p50_ms,"
        "lat_p99_ms,overlap_eff,cpu_ms_per_frame,x_raw,x_control,x_constant,"
        "check,host_memory,width,height,format,frames,checked,label,"
        "backend\n");
  else
    fprintf (out, "| name | mode | input | streams | chunks | frames/s | "
        "GB/s | lat p50 ms | lat p99 ms | overlap eff | cpu ms/frame | "
        "x raw | x control | x constant | check | host memory |\n"
        "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
  for (i = 0; i < rows->len; i++) {
    BenchRow *r = &g_array_index (rows, BenchRow, i);
    gchar f[11][32];
    const gchar *na = csv ? "" : "-";

    if (r->skipped) {
      if (!csv)
        fprintf (out, "| %s | %s | - | - | - | - | - | - | - | - | - | - | "
            "- | - | %s | - |\n", r->name, r->mode, r->check);
      continue;
    }
    g_snprintf (f[0], 32, "%u", r->streams);
    g_snprintf (f[1], 32, "%u", r->chunks);
    if (!r->streams)            /* the peer */
      g_strlcpy (f[0], na, 32), g_strlcpy (f[1], na, 32);
    fmt_num (f[2], 32, r->fps, "%.1f", na);
    fmt_num (f[3], 32, r->gbps, "%.2f", na);
    fmt_num (f[4], 32, r->p50_ms, "%.3f", na);
    fmt_num (f[5], 32, r->p99_ms, "%.3f", na);
    fmt_num (f[6], 32, r->eff, "%.3f", na);
    fmt_num (f[7], 32, r->cpu_ms, "%.4f", na);
    /* paced rows run at the pace, not at a ratio of anything */
    fmt_num (f[8], 32, g_str_has_prefix (r->mode, "live") ? NAN :
        r->fps / row_ceiling (r), csv ? "%.5f" : "%.3f", na);
    fmt_num (f[9], 32, r->fps / row_control (r), csv ? "%.5f" : "%.3f", na);
    fmt_num (f[10], 32, row_x_constant (i), csv ? "%.5f" : "%.3f", na);
    fprintf (out, "%s%s%s%s%s%s", csv ? "" : "| ", r->name, sep, r->mode, sep,
        r->input);
    for (k = 0; k < G_N_ELEMENTS (f); k++)
      fprintf (out, "%s%s", sep, f[k]);
    if (csv)                    /* quoted: they may hold commas */
      fprintf (out, ",\"%s\",\"%s\"", r->check, r->hostmem);
    else
      fprintf (out, "%s%s%s%s", sep, r->check, sep, r->hostmem);
    if (csv)
      fprintf (out, ",%d,%d,%s,%u,%" G_GUINT64_FORMAT ",%s,%s\n", opt_width,
          opt_height, opt_format, r->frames, r->checked,
          opt_label ? opt_label : "", have_cuda ? "cuda" : "cpu");
    else
      fprintf (out, " |\n");
  }
}

static BenchRow *
find_row (const gchar * name, const gchar * mode, const gchar * input)
{
  BenchRow *best = NULL;
  guint i;

  for (i = 0; i < rows->len; i++) {
    BenchRow *r = &g_array_index (rows, BenchRow, i);

    if (strcmp (r->name, name) || (mode && strcmp (r->mode, mode)) ||
        (input && strcmp (r->input, input)) || r->invalid || isnan (r->fps))
      continue;
    if (!best || r->fps > best->fps)
      best = r;
  }
  return best;
}

/* Wrapped, fresh and slots input: @r against the lower of the raw ceiling
 * @raw and the host's memcpy (memcpy-best), the bound of a staged frame. */
static void
print_staged_ceiling (FILE * out, BenchInput k, const BenchRow * r, gdouble raw)
{
  gdouble mc = row_fps ("memcpy-best"), ceil;

  if ((k != BENCH_IN_WRAPPED && k != BENCH_IN_FRESH && k != BENCH_IN_SLOTS)
      || isnan (mc))
    return;
  ceil = isnan (raw) ? mc : MIN (raw, mc);
  fprintf (out, ", %.3f x the lower of raw and memcpy-best (%.1f fps)",
      r->fps / ceil, ceil);
}

/* Slots input (malloc()ed or page-locked): @r against its twin row (same
 * name and mode) of recurring input, the rate an application's buffers
 * reach when they come back as the same GstMemory. */
static void
print_recurring_ratio (FILE * out, BenchInput k, const BenchRow * r)
{
  const BenchRow *rec;

  if (k != BENCH_IN_SLOTS && k != BENCH_IN_SLOTS_PINNED)
    return;
  rec = find_row (r->name, r->mode, bench_input_names[BENCH_IN_RECURRING]);
  if (rec && rec->fps > 0)
    fprintf (out, ", %.3f x recurring (%.1f fps)", r->fps / rec->fps, rec->fps);
}

/* --gamma-ramp: each ramp row against its constant twin. */
static void
print_ramp_summary (FILE * out)
{
  guint i;

  for (i = 0; i < rows->len; i++) {
    const BenchRow *r = &g_array_index (rows, BenchRow, i);
    const BenchRow *c = row_constant (i);

    if (!g_str_has_suffix (r->mode, " ramp"))
      continue;
    fprintf (out, "  gamma ramp: %s %s %s %ux%u: ", r->name, r->mode,
        r->input, r->streams, r->chunks);
    if (r->invalid || isnan (r->fps))
      fprintf (out, "%s\n", r->check);
    else if (!c)
      fprintf (out, "%.1f fps, no valid constant row\n", r->fps);
    else
      fprintf (out, "%.1f fps = %.3f x the constant gamma's %.1f fps\n",
          r->fps, r->fps / c->fps, c->fps);
  }
}

static void
print_summary (FILE * out)
{
  gdouble best = raw_best ();
  BenchRow *peer = find_row ("peer", "upload+download", NULL);
  guint k;

  fprintf (out, "\nSummary (best valid rows):\n");
  if ((k_serial || k_overlap) && !find_row ("element", NULL, NULL) &&
      !find_row ("sweep", NULL, NULL))
    fprintf (out, "  no valid element row\n");
  for (k = BENCH_MEM_CUDA_CUDA; k <= BENCH_MEM_BLUR_CUDA_IN; k++) {
    const gchar *path = bench_mem_names[k];
    BenchRow *pe = find_row ("mem-peer", path, NULL);
    guint i;

    for (i = 0; i < rows->len; i++) {
      BenchRow *r = &g_array_index (rows, BenchRow, i);
      gdouble ceil = row_ceiling (r);

      if (strcmp (r->name, "memory") || strcmp (r->mode, path))
        continue;
      if (r->skipped) {
        fprintf (out, "  memory %s: %s\n", path, r->check);
        continue;
      }
      fprintf (out, "  memory %s %s %ux%u: ", path, r->input, r->streams,
          r->chunks);
      if (r->invalid || isnan (r->fps)) {
        fprintf (out, "%s\n", r->check);
        continue;
      }
      fprintf (out, "%.1f fps", r->fps);
      if (!isnan (ceil))
        fprintf (out, " = %.3f x %s (%.1f fps)", r->fps / ceil,
            ceiling_name (r), ceil);
      if (pe)
        fprintf (out, ", %.2f x the peer (%.1f fps)", r->fps / pe->fps,
            pe->fps);
      if (!isnan (r->eff))
        fprintf (out, ", overlap-efficiency %.3f", r->eff);
      fputc ('\n', out);
    }
  }
  for (k = 0; k < BENCH_N_INPUTS; k++) {
    const gchar *in = bench_input_names[k];
    BenchRow *ov = find_row ("element", "overlap", in);
    BenchRow *sw = find_row ("sweep", "overlap", in);
    BenchRow *se = find_row ("element", "serial", in);
    BenchRow *de = find_row ("defaults", "auto", in);

    if (de) {
      fprintf (out, "  defaults %s: %ux%u %.1f fps", in, de->streams,
          de->chunks, de->fps);
      if (!isnan (best))
        fprintf (out, " = %.3f x raw", de->fps / best);
      if (ov || sw)
        fprintf (out, ", %.3f x the best overlap row", de->fps /
            MAX (ov ? ov->fps : 0, sw ? sw->fps : 0));
      print_staged_ceiling (out, k, de, best);
      print_recurring_ratio (out, k, de);
      fputc ('\n', out);
    }
    if (sw && (!ov || sw->fps > ov->fps))
      ov = sw;
    if (!ov)
      continue;
    fprintf (out, "  element %s: best overlap %ux%u %.1f fps", in,
        ov->streams, ov->chunks, ov->fps);
    if (!isnan (best))
      fprintf (out, " = %.3f x raw", ov->fps / best);
    if (se)
      fprintf (out, ", %.2f x serial", ov->fps / se->fps);
    if (peer)
      fprintf (out, ", %.2f x peer", ov->fps / peer->fps);
    print_staged_ceiling (out, k, ov, best);
    print_recurring_ratio (out, k, ov);
    fputc ('\n', out);
  }
  print_ramp_summary (out);
}

/* The report on @out: the run's passport (@cmd, the command line; the GPU
 * unless @want_cuda is FALSE), the notes, the table and the summary; the
 * rows also as CSV to --csv. */
void
bench_print_report (FILE * out, const gchar * cmd, gboolean want_cuda)
{
  GDateTime *now;
  gchar *date;

  now = g_date_time_new_now_utc ();
  date = g_date_time_format_iso8601 (now);
  fprintf (out, "# cudaoverlap-bench\n\n");
  fprintf (out, "- date: %s\n- command: %s\n", date, cmd);
  {
    gchar host[256] = "";

    gchar *cpuinfo = NULL, *model = NULL, *p;

    gethostname (host, sizeof (host) - 1);
    if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL) &&
        (p = strstr (cpuinfo, "model name")) && (p = strchr (p, ':')))
      model = g_strndup (p + 2, strcspn (p + 2, "\n"));
    fprintf (out, "- host: %s, %ld CPUs (%s), %s\n", host,
        sysconf (_SC_NPROCESSORS_ONLN), model ? model : "?",
        gst_version_string ());
    g_free (model);
    g_free (cpuinfo);
  }
  fprintf (out, "- GPU: %s\n", gpu_passport ? gpu_passport : want_cuda ?
      "none (no CUDA device)" : "not used (--backend cpu)");
  fprintf (out, "- element passport (first run): %s\n",
      bench_gst.elem_passport ? bench_gst.elem_passport : "none");
  fprintf (out, "- frames: %dx%d %s, %" G_GSIZE_FORMAT " bytes, a ring of %u "
      "random frames; per row %d warm-up frames (separate pipeline), then 1 "
      "priming frame + %d timed frames (live rows: %d)\n", opt_width,
      opt_height, opt_format, bench_gst.fr.lay.size, BENCH_RING, opt_warmup,
      opt_frames, opt_live_frames);
  fprintf (out, "- host memory: raw: cudaHostAlloc rings; element pinned: "
      "buffers of the pool the element proposes (its page-locked "
      "allocator; the CPU backend proposes none); element registered: "
      "16 malloc()ed frames, each wrapped once in a GstMemory, a fresh "
      "GstBuffer per frame; wrapped: a new GstMemory per frame over another "
      "malloc()ed copy that nothing registers; slots: a new GstMemory per "
      "frame over one of a few malloc()ed slots, each handed back by its "
      "destroy notify; slots-pinned: the same over slots the bench "
      "page-locked (cudaHostAlloc); recurring: a few malloc()ed buffers, "
      "each a GstMemory for the run, a new GstBuffer over one once the last "
      "over it was freed; control: identity in the element's place, the same "
      "input (pinned: a plain video pool of the bench); "
      "peer: its own malloc()ed copy; "
      "memcpy: ring frames copied into page-locked frames by N threads, each "
      "its slice of every frame. The last column gives each row's kind as "
      "the element counted it.\n");
  if (opt_check_every > 1)
    fprintf (out, "- checked: the priming frames and every %d-th timed "
        "output (the check column: checked/outputs), ", opt_check_every);
  else
    fprintf (out, "- checked: every output (priming and timed frames), ");
  fprintf (out, "by a "
      "sampled checksum computed on %d checker threads while the run goes "
      "on and compared with the expected one after it: per plane its first "
      "and last row whole, and in every k-th other row (k = max (1, 64 / "
      "runs per row)) one 256-byte run of picture bytes, the run moving "
      "one to the right per sampled row (about 1/64 of the picture; padding "
      "excluded; multiply-add mix per run, FNV-1a chain; tools/bench/"
      "bench-frames.c). Before the runs, %d outputs per input compared "
      "byte by byte with %s (the peer: with its input)%s%s\n",
      BENCH_CHECK_THREADS, VERIFY_FRAMES, bench_reference_name (FALSE),
      opt_gamma_ramp ? "; the ramp rows and 32 ramped outputs per input "
      "with " : "", opt_gamma_ramp ? bench_reference_name (TRUE) : "");
  fprintf (out, "- GB/s: bytes in + out (2 x frame bytes per frame). "
      "lat: element rows: the element's whole-run latency-p50/p99 (chain "
      "to push, so a wait for a free slot in chain is included); live "
      "rows: the bench's push to appsink; raw-latency: one frame queued "
      "and waited for. cpu ms/frame: getrusage(RUSAGE_SELF) user+sys over "
      "the timed frames, less the checker threads' CPU time, / frames "
      "(appsrc pushing and the appsink callback included)\n\n");
  fprintf (out, "%s\n", bench_note_log ());
  print_rows (out, FALSE);
  print_summary (out);
  if (opt_csv) {
    FILE *f = fopen (opt_csv, "w");

    if (!f) {
      perror (opt_csv);
      bench_gst.failed = TRUE;
    } else {
      print_rows (f, TRUE);
      fclose (f);
      fprintf (out, "\nCSV: %s\n", opt_csv);
    }
  }
  fprintf (out, "\n%s\n",
      bench_gst.failed ? "RESULT: INVALID (a check failed or a "
      "run failed; see above)" : "RESULT: all outputs checked ok");
  g_date_time_unref (now);
  g_free (date);
}
