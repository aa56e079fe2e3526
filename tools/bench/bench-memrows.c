/* cudaoverlap-bench: the --memory rows: the element with CUDA memory in,
 * out or both, beside its raw loops (bench-devmem.c) and the peer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include "bench-cli.h"

/* ---- --memory ------------------------------------------------------------ */

gboolean
parse_memory (void)
{
  gchar **w;
  guint i, k;
  gboolean ok = TRUE;

  if (!opt_memory)
    return TRUE;
  w = g_strsplit (opt_memory, ",", -1);
  for (i = 0; w[i] && ok; i++) {
    gchar *t = g_strstrip (w[i]);

    for (k = BENCH_MEM_CUDA_CUDA; k <= BENCH_MEM_BLUR_CUDA_IN &&
        strcmp (t, bench_mem_names[k]); k++);
    if (k <= BENCH_MEM_BLUR_CUDA_IN)
      want_mem[k] = TRUE;
    else if (*t) {
      fprintf (stderr, "--memory: unknown path '%s' (cuda-cuda, upload, "
          "download, blur-cuda-in)\n", t);
      ok = FALSE;
    }
  }
  g_strfreev (w);
  return ok;
}

/* The sampled checksum through the pieces (what a CUDA output's check
 * gathers on the device) against bench_checksum of the whole frame, on the
 * CPU: the two loops must agree. */
static gboolean
pieces_self_test (void)
{
  const BenchLayout *l = &bench_gst.fr.lay;
  const guint8 *data[BENCH_MAX_PLANES] = { NULL, };
  gsize stride[BENCH_MAX_PLANES] = { 0, };
  gsize bytes;
  guint n, k;
  gint i;
  BenchPiece *p = bench_pieces (l, &n, &bytes);
  guint8 *compact = g_malloc (MAX (bytes, 1));
  gboolean ok = TRUE;

  for (k = 0; k < 2; k++) {
    for (i = 0; i < l->n_planes; i++) {
      data[i] = bench_gst.fr.ring[k] + l->planes[i].offset;
      stride[i] = l->planes[i].stride;
    }
    bench_gather_host (p, n, data, stride, compact);
    ok &= bench_checksum_pieces (p, n, compact) == bench_gst.fr.sum_id[k];
  }
  bench_note ("memory: a CUDA output's check gathers %u pieces, %"
      G_GSIZE_FORMAT " bytes (%.2f%% of the frame), on the device and copies "
      "them to the host; self-test on the CPU (their checksum = the whole "
      "frame's): %s", n, bytes, 100.0 * bytes / l->size, ok ? "ok" : "FAILED");
  g_free (compact);
  g_free (p);
  return ok;
}

static void
mem_skipped (BenchMemPath m, const gchar * name, const gchar * why)
{
  gchar *w = g_strdup_printf ("skipped: %s", why);

  bench_note ("%s %s: skipped (%s)", name, bench_mem_names[m], why);
  skipped_row (name, bench_mem_names[m], w);
  g_free (w);
}

/* raw-device, raw-h2d or raw-d2h: a row per setting, then the best. */
static void
rawmem_rows (BenchRawMemKind kind)
{
  static const guint dev[][2] = { {1, 1}, {2, 1}, {4, 1}, {8, 1}, {4, 4},
  {8, 8}
  };
  static const guint copy[][2] = { {1, 1}, {2, 1}, {4, 1} };
  const gchar *name = kind == BENCH_RAWMEM_DEVICE ? "raw-device" :
      kind == BENCH_RAWMEM_H2D ? "raw-h2d" : "raw-d2h";
  const guint (*set)[2] = kind == BENCH_RAWMEM_DEVICE ? dev : copy;
  guint n = kind == BENCH_RAWMEM_DEVICE ? G_N_ELEMENTS (dev) :
      G_N_ELEMENTS (copy), i;
  BenchRawMem *raw = bench_rawmem_new (&bench_gst.fr, kind, 0);
  BenchRow row, best;
  gchar bname[24];

  best.fps = -1;
  for (i = 0; i < n; i++) {
    bench_row_init (&row, name, kind == BENCH_RAWMEM_DEVICE ? "invert" :
        "copy", kind == BENCH_RAWMEM_DEVICE ? "device→device" :
        kind == BENCH_RAWMEM_H2D ? "pinned→device" : "device→pinned",
        set[i][0], set[i][1]);
    bench_rawmem_run (raw, set[i][0], set[i][1], opt_warmup, opt_frames, &row);
    fprintf (stderr, "[bench] %s %ux%u: %.1f frames/s, %s\n", name,
        row.streams, row.chunks, row.fps, row.check);
    bench_gst.failed |= row.invalid;
    g_array_append_val (rows, row);
    if (!row.invalid && row.fps > best.fps)
      best = row;
  }
  if (best.fps > 0) {
    g_snprintf (bname, sizeof (bname), "%s-best", name);
    g_strlcpy (best.name, bname, sizeof (best.name));
    g_array_append_val (rows, best);
  }
  bench_rawmem_free (raw);
}

/* A --memory row: a warm-up run, then the timed run. */
static void
mem_row (const BenchRunSpec * spec, const gchar * input)
{
  BenchRunSpec sp = *spec, warm = *spec;
  BenchRow row;
  gchar *mode = g_strdup_printf ("%s%s", bench_mem_names[sp.mem],
      sp.defaults ? " auto" : "");

  /* defaults: the streams and chunks the element chose fill the row */
  bench_row_init (&row, sp.peer ? "mem-peer" : "memory", mode, input,
      sp.peer ? 0 : sp.streams, sp.peer ? 0 : sp.chunks);
  g_free (mode);
  row.frames = sp.frames;
  warm.frames = opt_warmup;
  if (opt_warmup > 0 && !bench_run_pipeline (&warm, NULL, NULL)) {
    row.invalid = TRUE;
    g_strlcpy (row.check, "INVALID: error", sizeof (row.check));
  } else {
    g_atomic_int_set (&bench_gst.late_fills, 0);
    bench_run_pipeline (&sp, &row, NULL);
    if (g_atomic_int_get (&bench_gst.late_fills))
      bench_note ("%s %s %s: %u CUDA input buffers were new to the bench "
          "during the timed frames (the pool grew): filled and uploaded "
          "then, in the timed time", row.name, row.mode, row.input,
          (guint) g_atomic_int_get (&bench_gst.late_fills));
  }
  /* GB/s: device memory read + written (cuda-cuda), the bytes over PCIe
   * one way (upload, download), both ways (blur-cuda-in: cudaupload's H2D,
   * the element's D2H) */
  if (!isnan (row.fps))
    row.gbps = row.fps * bench_gst.fr.lay.size * (sp.mem == BENCH_MEM_UPLOAD
        || sp.mem == BENCH_MEM_DOWNLOAD ? 1.0 : 2.0) / 1e9;
  if (sp.mem == BENCH_MEM_CUDA_CUDA || sp.mem == BENCH_MEM_DOWNLOAD ||
      sp.mem == BENCH_MEM_BLUR_CUDA_IN)
    g_strlcpy (row.hostmem, sp.mem == BENCH_MEM_DOWNLOAD ? "device in" :
        sp.mem == BENCH_MEM_CUDA_CUDA ? "device in and out" :
        "device in (cudaupload)", sizeof (row.hostmem));
  if (sp.peer && sp.mem == BENCH_MEM_UPLOAD)
    g_strlcpy (row.hostmem, "malloc", sizeof (row.hostmem));
  if (row.invalid)
    bench_gst.failed = TRUE;
  fprintf (stderr, "[bench] %s %s %s %ux%u: %.1f frames/s, %s\n", row.name,
      row.mode, row.input, row.streams, row.chunks, row.fps, row.check);
  g_array_append_val (rows, row);
}

/* The untimed check of every picture byte of 32 outputs of @spec. */
static void
mem_verify (const BenchRunSpec * spec)
{
  BenchRunSpec sp = *spec;

  sp.frames = VERIFY_FRAMES - 1;
  sp.full_check = TRUE;
  bench_run_pipeline (&sp, NULL, NULL);
}

void
memory_rows (gboolean want_cuda, const gchar * cuda_why)
{
  gboolean any = FALSE, up, down;
  gchar *why = NULL;
  guint m;

  for (m = 0; m < BENCH_N_MEM; m++)
    any |= want_mem[m];
  if (!any)
    return;
  if (!pieces_self_test ()) {
    bench_gst.failed = TRUE;
    return;
  }
  if (!want_cuda)
    why = g_strdup ("backend cpu: the CPU backend cannot do CUDA memory");
  else if (!have_cuda)
    why = g_strdup_printf ("no CUDA device%s%s%s", cuda_why ? " (" : "",
        cuda_why ? cuda_why : "", cuda_why ? ")" : "");
  else if (bench_cuda_gst_context (&why))
    g_clear_pointer (&why, g_free);
  if (why) {
    for (m = 0; m < BENCH_N_MEM; m++)
      if (want_mem[m]) {
        bench_note ("memory %s: skipped (%s)", bench_mem_names[m], why);
        skipped_row ("memory", bench_mem_names[m], !want_cuda ?
            "skipped: backend cpu" : !have_cuda ? "skipped: no CUDA device" :
            "skipped: no CUDA memory (see the log)");
      }
    g_free (why);
    return;
  }
  bench_note ("memory: every memory pipeline is given the CUDA context "
      "cudavideofilter made alone (the primary context of device 0, the "
      "bench's own); CUDA outputs must be CUDA memory of it");
  bench_gst.cuda_caps = bench_caps_cuda (bench_gst.caps);
  bench_gst.gather = bench_gather_new (&bench_gst.fr.lay,
      2 * BENCH_CHECK_THREADS);
  up = bench_have_feature ("cudaupload");
  down = bench_have_feature ("cudadownload");
  if (up && !bench_gst.peer_caps && !peer_choose_caps ())
    up = down = FALSE;
  if (bench_gst.peer_caps) {
    bench_gst.peer_cuda_caps = bench_caps_cuda (bench_gst.peer_caps);
    peer_ring_make ();
  }

  if (want_mem[BENCH_MEM_CUDA_CUDA]) {
    BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_REGISTERED, opt_streams,
      opt_chunks, opt_frames, FALSE, 0
    };

    sp.mem = BENCH_MEM_CUDA_CUDA;
    rawmem_rows (BENCH_RAWMEM_DEVICE);
    mem_verify (&sp);
    mem_row (&sp, "cuda→cuda");
    /* with --defaults also the element's automatic settings */
    sp.defaults = TRUE;
    if (opt_defaults) {
      mem_verify (&sp);
      mem_row (&sp, "cuda→cuda");
    }
  }
  if (want_mem[BENCH_MEM_UPLOAD]) {
    BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_PINNED, opt_streams,
      opt_chunks, opt_frames, FALSE, 0
    };

    sp.mem = BENCH_MEM_UPLOAD;
    rawmem_rows (BENCH_RAWMEM_H2D);
    mem_verify (&sp);
    mem_row (&sp, "pinned→cuda");
    sp.input = BENCH_IN_REGISTERED;
    mem_verify (&sp);
    mem_row (&sp, "registered→cuda");
    sp.peer = TRUE;
    if (up && !bench_gst.peer_as) {
      mem_verify (&sp);
      mem_row (&sp, "malloc→cuda");
    } else {
      mem_skipped (BENCH_MEM_UPLOAD, "mem-peer", up ? "cudaupload does not "
          "take the format" : "no cudaupload (nvcodec)");
    }
  }
  if (want_mem[BENCH_MEM_DOWNLOAD]) {
    BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_REGISTERED, opt_streams,
      opt_chunks, opt_frames, FALSE, 0
    };

    sp.mem = BENCH_MEM_DOWNLOAD;
    rawmem_rows (BENCH_RAWMEM_D2H);
    mem_verify (&sp);
    mem_row (&sp, "cuda→system");
    sp.peer = TRUE;
    if (down && bench_gst.peer_caps && !bench_gst.peer_as) {
      mem_verify (&sp);
      mem_row (&sp, "cuda→system");
    } else {
      mem_skipped (BENCH_MEM_DOWNLOAD, "mem-peer", down ? "cudadownload "
          "does not take the format" : "no cudadownload (nvcodec)");
    }
  }
  if (want_mem[BENCH_MEM_BLUR_CUDA_IN]) {
    BenchRunSpec ref = { FALSE, FALSE, BENCH_IN_REGISTERED, 1, 1,
      BENCH_RING - 1, FALSE, 0
    };
    BenchRunSpec sp = { FALSE, FALSE, BENCH_IN_REGISTERED, opt_streams,
      opt_chunks, opt_frames, FALSE, 0
    };
    guint k, have = 0;

    ref.mem = BENCH_MEM_BLUR_REF;
    sp.mem = BENCH_MEM_BLUR_CUDA_IN;
    if (!up || bench_gst.peer_as) {
      mem_skipped (BENCH_MEM_BLUR_CUDA_IN, "memory", up ? "cudaupload does "
          "not take the format" : "no cudaupload (nvcodec)");
      return;
    }
    bench_run_pipeline (&ref, NULL, NULL);
    for (k = 0; k < BENCH_RING; k++)
      have += bench_gst.have_blur[k];
    if (have < BENCH_RING) {
      bench_note ("memory blur-cuda-in: the CPU backend's box blur gave %u "
          "of the %u reference outputs", have, BENCH_RING);
      bench_gst.failed = TRUE;
      mem_skipped (BENCH_MEM_BLUR_CUDA_IN, "memory", "no reference");
      return;
    }
    bench_note ("memory blur-cuda-in: each output's sampled checksum is "
        "compared with that of the CPU backend's box blur (radius 16) of the "
        "same ring frame, computed before the runs (the GPU test suite and "
        "cudaoverlap-check compare every byte of the two backends); no "
        "byte-by-byte pass here");
    mem_row (&sp, "malloc→cudaupload");
    /* with --input app-pinned also fed from page-locked frames: cudaupload
     * copies synchronously, slowly from malloc()ed frames, so the filter
     * then waits for every frame alone, and a frame's D2H can only overlap
     * its own kernel (1 - 1/chunks of it at best) */
    if (bench_gst.app_ring[0]) {
      sp.input = BENCH_IN_APP_PINNED;
      mem_row (&sp, "app-pinned→cudaupload");
    }
  }
}
