/* cudaoverlap-bench: the rows besides the element's own: the raw ceiling
 * and raw latency (bench-raw.c), the host's memcpy, N pipelines or
 * processes at once (bench-extra.c, bench-procs.c), the first frame.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "bench-cli.h"

/* --input wrapped or fresh: the host's memcpy from pageable into 8
 * page-locked frames (the element's staging buffers are about as many),
 * over 1, 2, 4, 8 threads and one per CPU, one frame at a time (as a
 * frame's staging copy is; the best of them is "memcpy-best", the
 * multi-threaded memcpy ceiling) and free-running (the host's memcpy
 * bandwidth, for comparison). */
void
memcpy_rows (void)
{
  guint threads[] = { 1, 2, 4, 8, g_get_num_processors () };
  guint8 *dst[8] = { NULL, };
  guint8 *const *src = bench_gst.wrap_ring[0] ? bench_gst.wrap_ring :
      bench_gst.fr.ring;
  guint frames = MAX (opt_frames, 20), i, pf;
  const gchar *hostmem = have_cuda ? "pageable to pinned (cudaHostAlloc)" :
      "pageable to pageable (no CUDA)";
  BenchRow best;

  for (i = 0; i < G_N_ELEMENTS (dst); i++)
    dst[i] = have_cuda ? bench_cuda_host_alloc (bench_gst.fr.lay.size) :
        g_malloc (bench_gst.fr.lay.size);
  best.fps = -1;
  for (pf = 0; pf < 2; pf++) {
    for (i = 0; i < G_N_ELEMENTS (threads); i++) {
      BenchRow *r;

      if (i == G_N_ELEMENTS (threads) - 1 && threads[i] <= 8)
        continue;               /* no more CPUs than that */
      bench_memcpy_row (src, BENCH_RING, dst, G_N_ELEMENTS (dst), threads[i],
          pf == 0, frames, hostmem, rows);
      r = &g_array_index (rows, BenchRow, rows->len - 1);
      if (pf == 0 && !r->invalid && r->fps > best.fps)
        best = *r;
    }
  }
  if (best.fps > 0) {
    g_strlcpy (best.name, "memcpy-best", sizeof (best.name));
    g_array_append_val (rows, best);
  }
  for (i = 0; i < G_N_ELEMENTS (dst); i++) {
    if (have_cuda)
      bench_cuda_host_free (dst[i]);
    else
      g_free (dst[i]);
  }
}

/* --raw-frames, --raw-warmup: the raw rows' own, else --frames, --warmup */
static guint
raw_frames (void)
{
  return opt_raw_frames > 0 ? opt_raw_frames : opt_frames;
}

static guint
raw_warmup (void)
{
  return opt_raw_warmup >= 0 ? opt_raw_warmup : opt_warmup;
}

void
raw_rows (void)
{
  static const guint settings[][2] = { {1, 1}, {2, 1}, {4, 1}, {8, 1}, {4, 4},
  {8, 8}
  };
  static const guint lat_chunks[] = { 1, 4, 8 };
  BenchRaw *raw = bench_raw_new (&bench_gst.fr, custom, 0);
  BenchRow row, best;
  guint i;

  best.fps = -1;
  for (i = 0; i < G_N_ELEMENTS (settings); i++) {
    gboolean serial = i == 0;

    bench_row_init (&row, "raw", serial ? "serial" : "overlap", "pinned",
        settings[i][0], settings[i][1]);
    bench_raw_throughput (raw, settings[i][0], settings[i][1], serial,
        raw_warmup (), raw_frames (), &row);
    fprintf (stderr, "[bench] raw %ux%u: %.1f frames/s, %s\n", row.streams,
        row.chunks, row.fps, row.check);
    bench_gst.failed |= row.invalid;
    g_array_append_val (rows, row);
    if (!row.invalid && row.fps > best.fps)
      best = row;
  }
  if (best.fps > 0) {
    g_strlcpy (best.name, "raw-best", sizeof (best.name));
    g_array_append_val (rows, best);
  }
  /* --pipelines N: the same loop as N independent clients of the device,
   * with 1 and with 2 streams each (what the element's engines are) */
  for (i = 1; opt_pipelines > 1 && i <= 2; i++) {
    bench_raw_free (raw);
    raw = NULL;
    bench_gst.failed |= !bench_run_raw_clients (custom, opt_pipelines, i,
        raw_warmup (), raw_frames (), rows);
  }
  if (!raw)
    raw = bench_raw_new (&bench_gst.fr, custom, 0);
  for (i = 0; i < G_N_ELEMENTS (lat_chunks); i++) {
    bench_row_init (&row, "raw-latency", "one-frame", "pinned", 4,
        lat_chunks[i]);
    bench_raw_latency (raw, 4, lat_chunks[i], raw_warmup (), raw_frames (), 0,
        &row);
    bench_gst.failed |= row.invalid;
    g_array_append_val (rows, row);
  }
  if (opt_live > 0) {
    gchar mode[24];

    g_snprintf (mode, sizeof (mode), "live@%g one-frame", opt_live);
    bench_row_init (&row, "raw-latency", mode, "pinned", 4, opt_chunks);
    bench_raw_latency (raw, 4, opt_chunks, opt_warmup, opt_live_frames,
        opt_live, &row);
    bench_gst.failed |= row.invalid;
    g_array_append_val (rows, row);
  }
  bench_raw_free (raw);
}

/* --input app-pinned: a copy of the ring in memory the bench page-locks
 * itself (plain memory without CUDA: the log says so). */
void
app_ring_make (void)
{
  gsize size = bench_gst.fr.lay.size;
  guint k;

  bench_gst.app_locked = have_cuda;
  for (k = 0; k < BENCH_RING; k++) {
    bench_gst.app_ring[k] = have_cuda ? bench_cuda_host_alloc (size) :
        g_malloc (size);
    memcpy (bench_gst.app_ring[k], bench_gst.fr.ring[k], size);
  }
  bench_note ("app-pinned input: a copy of the %u ring frames in %s",
      BENCH_RING,
      have_cuda ? "memory the bench page-locked (cudaHostAlloc)" :
      "plain memory (no CUDA: nothing to page-lock)");
}

/* What a --processes child is run with: the bench and the options of the
 * row of input @k (the child flag is added per child). */
static gchar **
child_argv (BenchInput k)
{
  GPtrArray *a = g_ptr_array_new ();
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);

  g_ptr_array_add (a, exe ? exe : g_strdup (g_get_prgname ()));
  g_ptr_array_add (a, g_strdup_printf ("--width=%d", opt_width));
  g_ptr_array_add (a, g_strdup_printf ("--height=%d", opt_height));
  g_ptr_array_add (a, g_strdup_printf ("--format=%s", opt_format));
  g_ptr_array_add (a, g_strdup_printf ("--frames=%d", opt_frames));
  g_ptr_array_add (a, g_strdup_printf ("--warmup=%d", opt_warmup));
  g_ptr_array_add (a, g_strdup_printf ("--backend=%s", opt_backend));
  g_ptr_array_add (a, g_strdup_printf ("--streams=%d", opt_streams));
  g_ptr_array_add (a, g_strdup_printf ("--chunks=%d", opt_chunks));
  g_ptr_array_add (a, g_strdup_printf ("--op=%s", opt_op));
  g_ptr_array_add (a, g_strdup_printf ("--input=%s", bench_input_names[k]));
  g_ptr_array_add (a, g_strdup_printf ("--processes=%d", opt_processes));
  if (opt_props)
    g_ptr_array_add (a, g_strdup_printf ("--props=%s", opt_props));
  g_ptr_array_add (a, g_strdup_printf ("--slots=%d", opt_slots));
  g_ptr_array_add (a, g_strdup_printf ("--check-every=%d", opt_check_every));
  if (opt_defaults)
    g_ptr_array_add (a, g_strdup ("--defaults"));
  g_ptr_array_add (a, NULL);
  return (gchar **) g_ptr_array_free (a, FALSE);
}

static void
extra_mode (gchar * mode, gsize size, gint n, const gchar * unit)
{
  g_snprintf (mode, size, "%d%s x %s", n, unit, opt_defaults ? "auto" :
      "overlap");
}

/* --defaults, --pipelines and --processes rows, per input. */
void
extra_rows (void)
{
  guint k;

  for (k = 0; k < BENCH_N_INPUTS; k++) {
    BenchRunSpec sp = { FALSE, FALSE, k, opt_streams, opt_chunks, opt_frames,
      FALSE, 0
    };
    BenchRunSpec warm;
    gchar mode[32];

    if (!in_use[k])
      continue;
    sp.defaults = opt_defaults;
    if (opt_defaults)
      pipeline_row ("defaults", sp);
    if (opt_control) {
      BenchRunSpec ctl = sp;

      ctl.defaults = FALSE;
      ctl.control = TRUE;
      pipeline_row ("control", ctl);
    }
    if (!opt_defaults && !k_overlap)
      continue;
    if (opt_pipelines >= 1) {
      GArray *scratch = g_array_new (FALSE, TRUE, sizeof (BenchRow));

      /* the warm-up: the N pipelines at once, so that their pools have
       * grown (page-locked blocks in the process's keep, taken again by
       * the timed pipelines) as after the first seconds of a long run;
       * after a single warm-up pipeline the others would page-lock their
       * output buffers during the timed frames (--warm-up-one) */
      warm = sp;
      warm.frames = MAX (opt_warmup, 1);
      extra_mode (mode, sizeof (mode), opt_pipelines, " warm-up");
      if (opt_warm_one)
        bench_run_pipeline (&warm, NULL, NULL);
      else
        bench_run_concurrent (&warm, opt_pipelines, mode, scratch);
      g_array_unref (scratch);
      extra_mode (mode, sizeof (mode), opt_pipelines, "");
      bench_gst.failed |= !bench_run_concurrent (&sp, opt_pipelines, mode,
          rows);
    }
    if (opt_processes >= 1) {
      gchar **argv = child_argv (k);

      extra_mode (mode, sizeof (mode), opt_processes, " procs");
      bench_gst.failed |= !bench_run_processes (&sp, opt_processes, mode,
          (const gchar * const *) argv, rows);
      g_strfreev (argv);
    }
  }
}

/* --child-of-processes K: process K of --processes, the row of the one
 * input of --input; the parent reads its stdout. */
int
child_main (void)
{
  BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_REGISTERED, opt_streams,
    opt_chunks, opt_frames, FALSE, 0
  };
  gchar mode[32];
  guint k;

  for (k = 0; k < BENCH_N_INPUTS && !in_use[k]; k++);
  sp.input = k < BENCH_N_INPUTS ? k : BENCH_IN_REGISTERED;
  sp.defaults = opt_defaults;
  extra_mode (mode, sizeof (mode), opt_processes, " procs");
  return bench_process_child (&sp, opt_warmup, opt_child, opt_processes, mode);
}

/* --first-frame: the CUDA context's creation in a fresh process (a child),
 * then the first frame of the process's first pipeline (cold) and of a
 * second one (warm). */
void
first_frame_rows (const gchar * argv0, gboolean want_cuda)
{
  BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_REGISTERED, opt_streams,
    opt_chunks, 1, FALSE, 0
  };
  const gchar *child[] = { argv0, "--context-ms", NULL };
  gchar *out = NULL;
  gint status = 1;
  BenchRow row;

  if (!want_cuda)
    bench_note ("first-frame: backend cpu: no CUDA context");
  else if (g_spawn_sync (NULL, (gchar **) child, NULL, G_SPAWN_SEARCH_PATH,
          NULL, NULL, &out, NULL, &status, NULL) && status == 0
      && g_str_has_prefix (out, "context-ms "))
    bench_note ("first-frame: CUDA context creation in a fresh process "
        "(cudaFree (0), its first CUDA call): %s ms", g_strchomp (out + 11));
  else
    bench_note ("first-frame: the CUDA context could not be timed (no "
        "device?)");
  g_free (out);
  sp.defaults = opt_defaults;
  bench_gst.failed |= !bench_first_frame (&sp, "cold", &row);
  g_array_append_val (rows, row);
  bench_gst.failed |= !bench_first_frame (&sp, "warm", &row);
  g_array_append_val (rows, row);
}
