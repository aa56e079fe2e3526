/* cudaoverlap-bench: the raw CUDA ceiling, cudavideofilter, its harness
 * control and the peer, side by side, on the same frames, outputs checked.
 * tools/bench/run-bench.sh (make bench) runs the rows of the bench gate;
 * docs/bench.md describes them and the CSV.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cudaoverlap-bench [--width 3840 --height 2160 --format RGBA]
 *       [--frames 600] [--warmup 30] [--backend auto|cuda|cpu]
 *       [--streams 4 --chunks 4] [--only raw,serial,overlap,pinned,
 *       registered,peer] [--sweep] [--csv FILE] [--live FPS]
 *       [--live-frames N] [--op invert|gamma|custom] [--gamma-ramp]
 *       [--props "PROP=VALUE ..."]
 *       [--input pinned,registered,wrapped,fresh,app-pinned,slots,
 *       slots-pinned,recurring]
 *       [--slots N] [--defaults] [--control] [--check-every K]
 *       [--pipelines N] [--processes N] [--first-frame]
 *       [--memory cuda-cuda,upload,download,blur-cuda-in]
 *       [--raw-frames N] [--raw-warmup N] [--label LABEL]
 *
 * Rows (see --help and the notes printed under the table):
 *  raw          plain CUDA loop, same kernel (bench-raw.c; --op custom: the
 *               module and kernel of --props, loaded and launched per band
 *               and plane as the element does, halo rows included), (streams,
 *               chunks) = (1,1) serial, (2,1), (4,1), (8,1), (4,4), (8,8);
 *               raw-best is the best of them, the ceiling
 *  raw-latency  one frame at a time over 4 streams, 1/4/8 chunks
 *  element      appsrc ! cudavideofilter ! appsink, mode serial and overlap,
 *               input (a) pinned: buffers of the element's own pool (the
 *               ALLOCATION query's first pool), (b) registered: a fresh
 *               GstBuffer per frame over 16 malloc()ed frames, each wrapped
 *               once in a GstMemory that lives for the whole run
 *  sweep        element overlap, streams {1,2,4,8} x chunks {1,2,4,8}
 *  peer         appsrc ! cudaupload ! video/x-raw(memory:CUDAMemory) !
 *               cudadownload ! appsink (no kernel: output = input)
 *  live rows    with --live: element overlap (both inputs), the peer and
 *               the raw one-frame loop, pushed at FPS; latency measured by
 *               the bench (push to appsink for the same PTS)
 *  inputs       --input picks the element rows' inputs: besides (a) and
 *               (b), wrapped: a new GstMemory per frame over a malloc()ed
 *               copy of the ring that nothing else reads (as applications
 *               feed appsrc: gst_buffer_new_wrapped_full; checked not
 *               page-locked after the rows); fresh: new memory per frame
 *               with the frame copied in (as Python's Gst.Buffer.new_wrapped
 *               does); app-pinned: a
 *               new GstMemory per frame over a copy of the ring the bench
 *               page-locked itself (cudaHostAlloc; plain memory without
 *               CUDA, which the log says); slots: a new GstMemory per
 *               frame over one of --slots N slots of pageable memory, frame
 *               i waiting until the destroy notify of slot i mod N's last
 *               memory hands it back (how capture sources and applications
 *               with a fixed set of buffers feed appsrc); slots-pinned: the
 *               same over slots the bench page-locked (cudaHostAlloc);
 *               recurring: --slots N malloc()ed buffers, each wrapped once
 *               in a GstMemory for the run, frame i a new GstBuffer over
 *               buffer i mod N once the last GstBuffer over it was freed
 *               (an application's recurring buffers); with raw rows, the
 *               memcpy rows run for slots too (wrapped, fresh)
 *  control      with --control: per input, the harness control: the same
 *               pipeline with identity in the element's place (appsrc !
 *               identity ! appsink); the x control column is a row's
 *               frames/s over its input's control
 *  defaults     with --defaults: the element with no streams, chunks or
 *               mode set (its automatic settings; with --live also paced;
 *               with --memory cuda-cuda also a memory row, mode "cuda-cuda
 *               auto"); the chosen values and the reason are in the log
 *  gamma        --op gamma: the element rows run operation=gamma gamma=2.2
 *               (the raw rows are skipped: the raw loop runs invert); with
 *               --gamma-ramp each element row (serial, overlap, defaults,
 *               sweep; not the paced ones) is followed by its twin, mode
 *               "... ramp", whose gamma is driven by a GstController linear
 *               interpolation control source over the run's stream time,
 *               0.5 at the first frame to 2.5 at the last; the twin's
 *               x constant column is its frames/s over the constant row's
 *  pipelines    with --pipelines N: N pipelines of the overlap (or, with
 *               --defaults, the defaults) row at once in this process, a
 *               row each and the aggregate (bench-extra.c; slot inputs: a
 *               set of slots per pipeline, as N capture sources), after a
 *               warm-up of the N at once (their pools grown, as in a long
 *               run); and, beside
 *               the raw rows, N raw loops at once ("raw-clients", each on
 *               its own thread and streams, 1 and 2 streams each): the
 *               ceiling of N independent clients of the device
 *  processes    with --processes N: the same N pipelines, each in a child
 *               process of its own (the bench re-executed with the row's
 *               options and --child-of-processes K, never forked alone: a
 *               CUDA context does not survive fork); each warms up and
 *               primes its pipeline, says "ready" on its stdout and waits
 *               for the parent's "start" on its stdin; the parent starts all
 *               once all are ready (60 s at most), then reads each one's row
 *               (first push and last output on CLOCK_MONOTONIC, its own CPU
 *               time per frame, its check) as a line; a row per process and
 *               the aggregate, over the first push to the last output of
 *               any.  A child that fails, crashes or overruns its bounded
 *               wait is killed and named, its row and the aggregate INVALID
 *               (bench-procs.c)
 *  first-frame  with --first-frame: the first frame of a fresh pipeline,
 *               first push to its output: cold (the process's first
 *               pipeline: it creates the CUDA context, which a child process
 *               times alone) and warm (a second pipeline, same caps)
 *  memory       with --memory (bench-devmem.c, the memory paths
 *               of bench-pipeline.c), each path its rows (name memory; the
 *               peer mem-peer; the input column names the memories):
 *               cuda-cuda: invert, memory:CUDAMemory in and out; beside
 *                 raw-device (the invert kernel device to device, no copies,
 *                 the raw rows' settings; raw-device-best the ceiling)
 *               upload: operation=none, system memory in (pinned: the
 *                 element's pool; registered), CUDA memory out; beside
 *                 raw-h2d (whole frames from a cudaHostAlloc ring, 1/2/4
 *                 streams) and the peer appsrc ! cudaupload ! appsink
 *                 (CUDA caps), fed malloc()ed frames
 *               download: operation=none, CUDA memory in, system out;
 *                 raw-d2h, peer appsrc (CUDA caps) ! cudadownload ! appsink
 *               blur-cuda-in: appsrc ! cudaupload ! (CUDA) cudavideofilter
 *                 operation=box-blur radius=16 ! video/x-raw ! appsink, with
 *                 the element's overlap-efficiency; its outputs' checksums
 *                 against the CPU backend's blur of the ring (computed first)
 *               CUDA input: buffers of the pool the element (or
 *               cudadownload) proposes to appsrc, 32 to 64 of them filled
 *               once with the ring and uploaded before the runs.  CUDA
 *               output: its memory must be a GstCudaMemory of the shared
 *               context; the bytes the sampled checksum reads are gathered
 *               on the device (bench-gather.cu) and copied to the host on
 *               the checker threads.  Every memory pipeline is given the
 *               CUDA context (GstContext gst.cuda.context) a cudavideofilter
 *               set to READY alone made: the primary context of device 0,
 *               the CUDA runtime's own.  Untimed, 32 outputs per path and
 *               input compared byte by byte (CUDA outputs mapped to system
 *               memory by libgstcuda; their gathered checksum must equal
 *               that of the copy).  Without a GPU, CUDA or libgstcuda the
 *               rows are skipped with the reason (exit status 0); without
 *               cudaupload/cudadownload the peer (and blur-cuda-in) rows.
 *               --only memory leaves out every other row.
 * Each pipeline row is a warm-up run (--warmup frames) and a timed run in a
 * fresh pipeline: one priming frame, waited for, then --frames frames timed
 * from the first push to the last output.  Every output (with --check-every
 * K: the priming frames and every K-th timed one) is checked with a
 * sampled checksum (bench-frames.c), on checker threads off the pushing
 * and pushed-to threads, against the expected one computed before the
 * runs; before them, one untimed pass of 32 frames per input
 * compares every picture byte with a naive CPU invert (--op custom: with
 * the output of the kernel's CPU implementation, kernel-cpu-library and
 * -symbol of --props, over the whole frame; --op gamma: with a naive CPU
 * gamma, bench-gamma.c, with --gamma-ramp also 32 ramped outputs per input,
 * each at the gamma the control source gives for its PTS, and in the
 * timed ramp rows each checked output's expected checksum computed for its
 * own gamma on the checker thread).  Exit status 1 when anything did not
 * match or failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/video/video.h>

#include "tool-common.h"
#include "bench-cli.h"

/* options */
gint opt_width = 3840, opt_height = 2160, opt_frames = 600;
gint opt_warmup = 30, opt_streams = 4, opt_chunks = 4;
gint opt_live_frames = 300;
gchar *opt_format, *opt_backend, *opt_only, *opt_csv, *opt_op;
gchar *opt_props, *opt_input, *opt_memory;
gboolean opt_sweep, opt_defaults, opt_first_frame, opt_context_ms;
gdouble opt_live;
gint opt_pipelines, opt_processes, opt_child;
gboolean opt_warm_one, opt_control, opt_gamma_ramp;
gint opt_slots = 8, opt_check_every = 1;
gint opt_raw_frames = -1, opt_raw_warmup = -1;
gchar *opt_label;

/* state */
gboolean have_cuda;
gchar *gpu_passport;
GArray *rows;
BenchCustom *custom;            /* --op custom: the kernel of --props */
gboolean k_raw, k_serial, k_overlap, k_peer, in_use[BENCH_N_INPUTS];
gboolean want_mem[BENCH_N_MEM];

/* A row: a warm-up run, then the timed run, each in a fresh pipeline. */
void
pipeline_row (const gchar * name, BenchRunSpec sp)
{
  BenchRow row;
  BenchRunSpec warm = sp;
  gchar mode[24], input[24];

  if (sp.live_fps > 0)
    g_snprintf (mode, sizeof (mode), "live@%g%s", sp.live_fps,
        sp.peer ? "" : sp.defaults ? " auto" : sp.serial ? " serial" :
        " overlap");
  else
    g_strlcpy (mode, sp.peer ? "upload+download" : sp.control ? "identity" :
        sp.defaults ? "auto" : sp.serial ? "serial" : "overlap", sizeof (mode));
  if (sp.ramp)
    g_strlcat (mode, " ramp", sizeof (mode));
  g_snprintf (input, sizeof (input), "%s%s", sp.peer ? "malloc" :
      bench_input_names[sp.input], sp.peer && bench_gst.peer_as ?
      " as RGBA" : "");
  bench_row_init (&row, name, mode, input, sp.peer || sp.control ? 0 :
      sp.streams, sp.peer || sp.control ? 0 : sp.chunks);
  row.frames = sp.frames;
  warm.frames = opt_warmup;
  warm.live_fps = 0;
  if (opt_warmup > 0 && !bench_run_pipeline (&warm, NULL, NULL)) {
    row.invalid = TRUE;
    g_strlcpy (row.check, "INVALID: error", sizeof (row.check));
  } else {
    bench_run_pipeline (&sp, &row, NULL);
  }
  if (row.invalid)
    bench_gst.failed = TRUE;
  fprintf (stderr, "[bench] %s %s %s %ux%u: %.1f frames/s, %s\n", row.name,
      row.mode, row.input, row.streams, row.chunks, row.fps, row.check);
  g_array_append_val (rows, row);
  /* --gamma-ramp: the element row's twin, its gamma ramped */
  if (opt_gamma_ramp && !sp.ramp && !sp.peer && !sp.control &&
      sp.live_fps <= 0 && sp.mem == BENCH_MEM_NONE) {
    sp.ramp = TRUE;
    pipeline_row (name, sp);
  }
}

/* ---- main ---------------------------------------------------------------- */

/* Whether cudaupload's sink template takes @want (system memory). */
static gboolean
peer_takes_caps (GstCaps * want)
{
  GstElementFactory *f = gst_element_factory_find ("cudaupload");
  const GList *l;
  gboolean ok = FALSE;

  if (!f)
    return FALSE;
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps;

    if (t->direction != GST_PAD_SINK)
      continue;
    caps = gst_static_caps_get (&t->static_caps);
    ok |= gst_caps_can_intersect (caps, want);
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
  return ok;
}

/* The caps the peer is fed (BenchGst.peer_caps): ours, or for a format that
 * cudaupload does not take, RGBA with the same bytes per row, row count and
 * stride, so every frame is the same bytes.  FALSE if there is neither. */
gboolean
peer_choose_caps (void)
{
  const GstVideoInfo *in = &bench_gst.info;
  GstVideoInfo as;
  gsize row = (gsize) GST_VIDEO_INFO_COMP_PSTRIDE (in, 0) *
      GST_VIDEO_INFO_WIDTH (in);

  bench_gst.peer_info = *in;
  bench_gst.peer_caps = gst_caps_ref (bench_gst.caps);
  if (peer_takes_caps (bench_gst.caps))
    return TRUE;
  gst_caps_unref (bench_gst.peer_caps);
  bench_gst.peer_caps = NULL;
  if (GST_VIDEO_INFO_N_PLANES (in) != 1 || row % 4 != 0)
    return FALSE;
  gst_video_info_set_format (&as, GST_VIDEO_FORMAT_RGBA, row / 4,
      GST_VIDEO_INFO_HEIGHT (in));
  as.fps_n = in->fps_n;
  as.fps_d = in->fps_d;
  if (GST_VIDEO_INFO_PLANE_STRIDE (&as, 0) != GST_VIDEO_INFO_PLANE_STRIDE (in,
          0) || GST_VIDEO_INFO_SIZE (&as) != GST_VIDEO_INFO_SIZE (in))
    return FALSE;
  bench_gst.peer_info = as;
  bench_gst.peer_caps = gst_video_info_to_caps (&as);
  if (!peer_takes_caps (bench_gst.peer_caps)) {
    gst_clear_caps (&bench_gst.peer_caps);
    return FALSE;
  }
  bench_gst.peer_as = g_strdup_printf ("RGBA %dx%d",
      GST_VIDEO_INFO_WIDTH (&as), GST_VIDEO_INFO_HEIGHT (&as));
  return TRUE;
}

/* --input: the element rows' inputs, instead of pinned and registered. */
static gboolean
parse_inputs (void)
{
  gchar **w;
  guint i, k;
  gboolean ok = TRUE;

  if (!opt_input)
    return TRUE;
  memset (in_use, 0, sizeof (in_use));
  w = g_strsplit (opt_input, ",", -1);
  for (i = 0; w[i] && ok; i++) {
    gchar *t = g_strstrip (w[i]);

    for (k = 0; k < BENCH_N_INPUTS && strcmp (t, bench_input_names[k]); k++);
    if (k < BENCH_N_INPUTS)
      in_use[k] = TRUE;
    else if (*t)
      ok = FALSE;
    if (!ok)
      fprintf (stderr, "--input: unknown input '%s'\n", t);
  }
  g_strfreev (w);
  return ok;
}

static gboolean
parse_only (void)
{
  gchar **w;
  guint i;
  gboolean any_kind = FALSE, any_input = FALSE;

  k_raw = k_serial = k_overlap = k_peer = TRUE;
  in_use[0] = in_use[1] = TRUE;
  if (!opt_only)
    return parse_inputs ();
  k_raw = k_serial = k_overlap = k_peer = FALSE;
  w = g_strsplit (opt_only, ",", -1);
  for (i = 0; w[i]; i++) {
    gchar *t = g_strstrip (w[i]);

    if (!strcmp (t, "raw"))
      k_raw = any_kind = TRUE;
    else if (!strcmp (t, "serial"))
      k_serial = any_kind = TRUE;
    else if (!strcmp (t, "overlap"))
      k_overlap = any_kind = TRUE;
    else if (!strcmp (t, "peer"))
      k_peer = any_kind = TRUE;
    else if (!strcmp (t, "memory"))
      any_kind = TRUE;          /* none of the classic rows */
    else if (!strcmp (t, "pinned") || !strcmp (t, "registered")) {
      if (!any_input)
        in_use[0] = in_use[1] = FALSE;
      in_use[t[0] == 'r'] = any_input = TRUE;
    } else if (*t) {
      fprintf (stderr, "--only: unknown word '%s'\n", t);
      g_strfreev (w);
      return FALSE;
    }
  }
  g_strfreev (w);
  if (!any_kind)
    k_raw = k_serial = k_overlap = k_peer = TRUE;
  return parse_inputs ();
}

void
skipped_row (const gchar * name, const gchar * mode, const gchar * why)
{
  BenchRow row;

  bench_row_init (&row, name, mode, "-", 0, 0);
  row.skipped = TRUE;
  g_strlcpy (row.check, why, sizeof (row.check));
  g_array_append_val (rows, row);
}

/* A malloc()ed copy of the ring in @copy (made once). */
static void
ring_copy_make (guint8 ** copy)
{
  guint k;

  for (k = 0; k < BENCH_RING && !copy[k]; k++) {
    copy[k] = malloc (bench_gst.fr.lay.size);
    if (!copy[k])
      g_error ("out of memory (%" G_GSIZE_FORMAT " bytes)",
          bench_gst.fr.lay.size);
    memcpy (copy[k], bench_gst.fr.ring[k], bench_gst.fr.lay.size);
  }
}

/* The peer's own malloc()ed copy of the ring (see BenchGst.peer_ring). */
void
peer_ring_make (void)
{
  guint k;

  ring_copy_make (bench_gst.peer_ring);
  for (k = 0; k < BENCH_RING; k++)
    if (!bench_gst.peer_mem[k])
      bench_gst.peer_mem[k] = gst_memory_new_wrapped (0,
          bench_gst.peer_ring[k], bench_gst.fr.lay.size, 0,
          bench_gst.fr.lay.size, NULL, NULL);
}

/* --op custom: the kernel-* properties of --props, set on a cudavideofilter
 * of our own and read back (the element's own parsing), for the raw rows
 * and the expected outputs.  NULL with a message when --props is not
 * parsable. */
static BenchCustom *
custom_from_props (GstVideoFormat vfmt)
{
  GstElement *e = gst_element_factory_make ("cudavideofilter", NULL);
  gchar **argv = NULL, *eq;
  GValue params = G_VALUE_INIT;
  BenchCustom *c = g_new0 (BenchCustom, 1);
  guint i, halo = 0;

  if (opt_props && !g_shell_parse_argv (opt_props, NULL, &argv, NULL)) {
    fprintf (stderr, "--props: cannot parse \"%s\"\n", opt_props);
    gst_object_unref (e);
    g_free (c);
    return NULL;
  }
  for (i = 0; argv && argv[i]; i++)
    if ((eq = strchr (argv[i], '=')) && g_str_has_prefix (argv[i], "kernel-")) {
      *eq = '\0';
      gst_util_set_object_arg (G_OBJECT (e), argv[i], eq + 1);
    }
  g_strfreev (argv);
  g_object_get (e, "kernel-module", &c->module, "kernel-name", &c->name,
      "kernel-cpu-library", &c->cpu_library, "kernel-cpu-symbol",
      &c->cpu_symbol, "kernel-halo", &halo, NULL);
  g_value_init (&params, GST_TYPE_ARRAY);
  g_object_get_property (G_OBJECT (e), "kernel-params", &params);
  c->run.n_params = MIN (gst_value_array_get_size (&params),
      GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS);
  for (i = 0; i < (guint) c->run.n_params; i++)
    c->run.params[i] = g_value_get_double (gst_value_array_get_value (&params,
            i));
  g_value_unset (&params);
  gst_object_unref (e);
  c->run.format =
      gst_cuda_overlap_kernel_format_from_name (gst_video_format_to_string
      (vfmt));
  c->run.halo = halo;
  c->run.width = opt_width;
  for (i = 0; i < (guint) bench_gst.fr.lay.n_planes; i++) {
    c->run.x_shift[i] = bench_gst.fr.lay.planes[i].xsub;
    c->run.y_shift[i] = bench_gst.fr.lay.planes[i].ysub;
  }
  return c;
}

/* --op custom: the expected outputs from the kernel's CPU implementation;
 * without one, from invert (the kernel must invert), said in the log. */
static gboolean
custom_expect (BenchCustom * c)
{
  gchar *why = NULL;

  if (!bench_custom_open_cpu (c, &why)) {
    bench_note ("--op custom: outputs checked against invert (%s: the "
        "kernel must invert, as examples/kernels/invert.cu does)", why);
    g_free (why);
    return TRUE;
  }
  if (!bench_frames_set_custom (&bench_gst.fr, c, &why)) {
    fprintf (stderr, "--op custom: cannot compute the expected outputs: "
        "%s\n", why);
    g_free (why);
    return FALSE;
  }
  bench_note ("--op custom: kernel \"%s\" of %s (kernel-halo %d, %d "
      "kernel-params); outputs checked against %s of %s, run over each "
      "whole ring frame before the runs; raw rows: the same module and "
      "kernel, launched per band and plane as the element launches it",
      c->name ? c->name : "(none)", c->module ? c->module : "(none)",
      c->run.halo, c->run.n_params, c->cpu_symbol, c->cpu_library);
  return TRUE;
}

/* --op gamma: the expected outputs, the naive gamma of each ring frame. */
static gboolean
gamma_expect (void)
{
  if (!bench_frames_set_gamma (&bench_gst.fr, BENCH_GAMMA)) {
    fprintf (stderr, "--op gamma: the expected checksum from the sampled "
        "pieces differs from that of the whole expected frame\n");
    return FALSE;
  }
  if (!opt_child)
    bench_note ("--op gamma: operation=gamma gamma=%g, outputs checked "
        "against a naive CPU gamma (floor (max * pow (c / max, 1 / gamma) + "
        "0.5) in double, colour components, luma only for YUV)%s",
        BENCH_GAMMA, opt_gamma_ramp ? "; --gamma-ramp: each element row "
        "again (mode \"... ramp\") with gamma driven by a linear "
        "interpolation control source, " G_STRINGIFY (BENCH_RAMP_FROM)
        " at the first frame's PTS to " G_STRINGIFY (BENCH_RAMP_TO)
        " at the last's, each checked output against the gamma the "
        "control source gives for its stream time" : "");
  return TRUE;
}

static GOptionEntry entries[] = {
  {"width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Frame width (3840)", "W"},
  {"height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Frame height (2160)",
      "H"},
  {"format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
      "Video format (RGBA; any the element takes)", "FMT"},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames,
      "Timed frames per row (600)", "N"},
  {"warmup", 0, 0, G_OPTION_ARG_INT, &opt_warmup,
      "Warm-up frames before each row (30)", "N"},
  {"backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend,
      "auto, cuda or cpu (auto)", "B"},
  {"streams", 0, 0, G_OPTION_ARG_INT, &opt_streams,
      "Element streams in overlap mode (4)", "N"},
  {"chunks", 0, 0, G_OPTION_ARG_INT, &opt_chunks,
      "Element chunks in overlap mode (4)", "N"},
  {"only", 0, 0, G_OPTION_ARG_STRING, &opt_only,
        "Comma list of raw, serial, overlap, peer (kinds) and pinned, "
        "registered (element inputs); a group left out means all of it; "
        "memory: none of them (with --memory)",
      "LIST"},
  {"sweep", 0, 0, G_OPTION_ARG_NONE, &opt_sweep,
      "Also run the element (overlap) over streams {1,2,4,8} x chunks "
        "{1,2,4,8}", NULL},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv, "Write the rows as CSV",
      "FILE"},
  {"live", 0, 0, G_OPTION_ARG_DOUBLE, &opt_live,
      "Also push at FPS frames/s and measure push-to-output latency", "FPS"},
  {"live-frames", 0, 0, G_OPTION_ARG_INT, &opt_live_frames,
      "Frames of each --live row (300)", "N"},
  {"op", 0, 0, G_OPTION_ARG_STRING, &opt_op, "Operation: invert, gamma "
        "(gamma 2.2; no raw rows), or "
        "custom with --props naming the kernel (kernel-module, "
        "kernel-name, kernel-halo, kernel-params) and its CPU "
        "implementation (kernel-cpu-library, kernel-cpu-symbol: the "
        "expected outputs; without them the kernel must invert)", "OP"},
  {"gamma-ramp", 0, 0, G_OPTION_ARG_NONE, &opt_gamma_ramp,
      "--op gamma: also run each element row with its gamma driven by a "
        "linear control source, 0.5 at the first frame to 2.5 at the last "
        "(mode \"... ramp\"; x constant: over the constant row)", NULL},
  {"props", 0, 0, G_OPTION_ARG_STRING, &opt_props,
      "More cudavideofilter properties, e.g. \"trace-file=t.json\" "
        "(they come last, so they win)", "PROPS"},
  {"input", 0, 0, G_OPTION_ARG_STRING, &opt_input,
      "Comma list of the element rows' inputs: pinned, registered (the "
        "default), wrapped, fresh, app-pinned, slots, slots-pinned, "
        "recurring (see the top of cudaoverlap-bench.c)", "LIST"},
  {"defaults", 0, 0, G_OPTION_ARG_NONE, &opt_defaults,
        "Also run the element with no properties set (automatic settings)",
      NULL},
  {"pipelines", 0, 0, G_OPTION_ARG_INT, &opt_pipelines,
      "Also run N pipelines at once in this process (the defaults row "
        "with --defaults, else the overlap row), per input", "N"},
  {"warm-up-one", 0, 0, G_OPTION_ARG_NONE, &opt_warm_one,
      "--pipelines: warm up with one pipeline, not the N at once (the "
        "control: the timed pipelines' pools then grow during the timed "
        "frames)", NULL},
  {"processes", 0, 0, G_OPTION_ARG_INT, &opt_processes,
      "Also run N pipelines at once (1..64), each in a child process of "
        "its own, started together once all are primed (the defaults row "
        "with --defaults, else the overlap row), per input", "N"},
  {"first-frame", 0, 0, G_OPTION_ARG_NONE, &opt_first_frame,
      "Also time a fresh pipeline's first frame, cold (first pipeline "
        "of the process) and warm (a second one)", NULL},
  {"memory", 0, 0, G_OPTION_ARG_STRING, &opt_memory,
      "Also the CUDA-memory paths (comma list): cuda-cuda, upload, "
        "download, blur-cuda-in, each with its raw ceiling and peer (see "
        "the top of cudaoverlap-bench.c); --only memory leaves out the "
        "other rows", "LIST"},
  {"control", 0, 0, G_OPTION_ARG_NONE, &opt_control,
        "Also run the harness control per input: the same pipeline with "
        "identity in the element's place (the rows' x control column)",
      NULL},
  {"slots", 0, 0, G_OPTION_ARG_INT, &opt_slots,
      "--input slots, slots-pinned, recurring: the number of slots, each "
        "handed back by its memory's destroy notify (recurring: when the "
        "GstBuffer over it is freed) (8; 1..16)", "N"},
  {"check-every", 0, 0, G_OPTION_ARG_INT, &opt_check_every,
      "Check every K-th timed output's sampled checksum (1: all); the "
        "priming frames and the untimed full checks always", "K"},
  {"raw-frames", 0, 0, G_OPTION_ARG_INT, &opt_raw_frames,
      "Timed frames of each raw row (--frames)", "N"},
  {"raw-warmup", 0, 0, G_OPTION_ARG_INT, &opt_raw_warmup,
      "Warm-up frames of each raw row (--warmup)", "N"},
  {"label", 0, 0, G_OPTION_ARG_STRING, &opt_label,
      "A label for the CSV's label column (e.g. the run's name)", "LABEL"},
  {"context-ms", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE,
      &opt_context_ms, "Print the CUDA context's creation time", NULL},
  {"child-of-processes", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT,
        &opt_child, "Run as process K of --processes (bench-procs.c)",
      "K"},
  {NULL}
};

/* The options' values, and the frames' layout from --format, --width and
 * --height (into bench_gst); FALSE with a message on a bad one. */
static gboolean
options_valid (GstVideoFormat vfmt)
{
  /* custom: the kernel of --props; the raw rows load the same module, the
   * checks compare with its CPU implementation (kernel-cpu-library and
   * -symbol in --props), or with invert when --props names none */
  if (strcmp (bench_gst.op, "invert") && strcmp (bench_gst.op, "custom") &&
      strcmp (bench_gst.op, "gamma")) {
    fprintf (stderr, "--op: invert, gamma or custom\n");
    return FALSE;
  }
  if (opt_gamma_ramp && strcmp (bench_gst.op, "gamma")) {
    fprintf (stderr, "--gamma-ramp: with --op gamma only\n");
    return FALSE;
  }
  if (opt_memory && !strcmp (bench_gst.op, "gamma")) {
    fprintf (stderr, "--memory: with --op invert or custom only\n");
    return FALSE;
  }
  if (strcmp (bench_gst.backend, "auto") && strcmp (bench_gst.backend, "cuda")
      && strcmp (bench_gst.backend, "cpu")) {
    fprintf (stderr, "--backend: auto, cuda or cpu\n");
    return FALSE;
  }
  if (opt_width < 1 || opt_height < 1 || opt_frames < 1 || opt_warmup < 0 ||
      opt_streams < 1 || opt_streams > 32 || opt_chunks < 1 ||
      opt_chunks > 64 || opt_live < 0 || opt_live_frames < 1 ||
      opt_pipelines < 0 || opt_pipelines > 64 || opt_processes < 0 ||
      opt_processes > 64 || opt_child < 0 || opt_child > 64 ||
      opt_slots < 1 || opt_slots > BENCH_RING || opt_check_every < 1 ||
      !parse_only () || !parse_memory ()) {
    fprintf (stderr, "invalid option value (see --help)\n");
    return FALSE;
  }
  gst_video_info_set_format (&bench_gst.info, vfmt, opt_width, opt_height);
  if (vfmt == GST_VIDEO_FORMAT_UNKNOWN
      || !bench_layout_from_info (&bench_gst.info, &bench_gst.fr.lay)) {
    gchar *all = g_strjoinv (" ", (gchar **) bench_formats);

    fprintf (stderr, "--format %s: not one of %s\n", opt_format, all);
    g_free (all);
    return FALSE;
  }
  return TRUE;
}

/* The copies of the ring that the --input kinds read. */
static void
inputs_make (void)
{
  if (in_use[BENCH_IN_APP_PINNED])
    app_ring_make ();
  bench_gst.check_every = opt_check_every;
  if (in_use[BENCH_IN_SLOTS]) {
    bench_slots_init (&bench_gst.slots, opt_slots, FALSE, FALSE);
    if (!opt_child)
      bench_note ("slots input: %d slots of pageable memory, each holding a "
          "ring frame; frame i waits for slot i mod %d, handed back by the "
          "destroy notify of the GstMemory over it (as a capture source "
          "feeds appsrc)", opt_slots, opt_slots);
  }
  if (in_use[BENCH_IN_SLOTS_PINNED]) {
    bench_slots_init (&bench_gst.slots_pinned, opt_slots, have_cuda, FALSE);
    if (!opt_child)
      bench_note ("slots-pinned input: the same over %d slots in %s",
          opt_slots, have_cuda ? "memory the bench page-locked "
          "(cudaHostAlloc)" : "plain memory (no CUDA: nothing to page-lock)");
  }
  if (in_use[BENCH_IN_RECURRING]) {
    bench_slots_init (&bench_gst.recurring, opt_slots, FALSE, TRUE);
    if (!opt_child)
      bench_note ("recurring input: %d malloc()ed buffers, each wrapped once "
          "in a GstMemory for the run; frame i is a new GstBuffer over "
          "buffer i mod %d once the last GstBuffer over it was freed (an "
          "application's recurring buffers)", opt_slots, opt_slots);
  }
  if (in_use[BENCH_IN_WRAPPED]) {
    ring_copy_make (bench_gst.wrap_ring);
    if (have_cuda && !opt_child)
      bench_note ("wrapped input: a new GstMemory per frame over the bench's "
          "own malloc()ed copy of the %u ring frames, %u of them page-locked "
          "before the rows (none may be)", BENCH_RING,
          bench_cuda_count_locked (bench_gst.wrap_ring, BENCH_RING));
  }
}

/* The untimed full checks, one per input: every picture byte of
 * VERIFY_FRAMES outputs. */
static void
verify_inputs (void)
{
  guint k;

  for (k = 0; k < BENCH_N_INPUTS; k++) {
    BenchRunSpec sp = { FALSE, FALSE, k, opt_streams, opt_chunks,
      VERIFY_FRAMES - 1, TRUE, 0
    };
    gchar *pool_note = NULL;

    if (in_use[k] && (k_serial || k_overlap)) {
      bench_run_pipeline (&sp, NULL, k == BENCH_IN_PINNED ? &pool_note : NULL);
      if (pool_note)
        bench_note ("pinned input: %s", pool_note);
      g_free (pool_note);
      sp.ramp = TRUE;
      if (opt_gamma_ramp)
        bench_run_pipeline (&sp, NULL, NULL);
    }
  }
}

/* The peer's caps and its own ring, its outputs checked byte by byte;
 * why it is skipped (k_peer then FALSE), or NULL. */
static const gchar *
peer_prepare (gboolean want_cuda)
{
  const gchar *peer_skipped = NULL;

  if (k_peer && !want_cuda)
    peer_skipped = "backend cpu";
  else if (k_peer && (!bench_have_feature ("cudaupload") ||
          !bench_have_feature ("cudadownload")))
    peer_skipped = "nvcodec not installed";
  else if (k_peer && !peer_choose_caps ())
    peer_skipped = g_strdup_printf ("cudaupload does not take %s", opt_format);
  if (k_peer && !peer_skipped && bench_gst.peer_as)
    bench_note ("peer: cudaupload does not take %s; it is fed the same frames "
        "as %s (the same bytes: %" G_GSIZE_FORMAT " per frame, stride %d), and "
        "its outputs are checked as those bytes", opt_format,
        bench_gst.peer_as, GST_VIDEO_INFO_SIZE (&bench_gst.info),
        GST_VIDEO_INFO_PLANE_STRIDE (&bench_gst.info, 0));
  if (k_peer && !peer_skipped) {
    BenchRunSpec sp = { TRUE, FALSE, BENCH_IN_REGISTERED, 0, 0,
      VERIFY_FRAMES - 1, TRUE, 0
    };
    guint locked;

    /* same frames, other addresses (see BenchGst.peer_ring) */
    peer_ring_make ();
    locked = bench_cuda_count_locked (bench_gst.peer_ring, BENCH_RING);
    bench_note ("peer input: its own malloc()ed copy of the %u ring frames, "
        "%u of them page-locked (the element's registered runs page-lock "
        "the ring it reads; the peer never sees those addresses)",
        BENCH_RING, locked);
    bench_run_pipeline (&sp, NULL, NULL);
  } else if (k_peer) {
    k_peer = FALSE;
    bench_note ("peer: skipped (%s)", peer_skipped);
  }
  return peer_skipped;
}

/* The element's rows per input: serial, overlap, then the defaults, the
 * control, the pipelines and processes (extra_rows), the sweep. */
static void
element_rows (void)
{
  guint k, s, c;

  for (k = 0; k < BENCH_N_INPUTS; k++) {
    BenchRunSpec sp = { FALSE, TRUE, k, 1, 1, opt_frames, FALSE, 0 };

    if (!in_use[k])
      continue;
    if (k_serial)
      pipeline_row ("element", sp);
    sp.serial = FALSE;
    sp.streams = opt_streams;
    sp.chunks = opt_chunks;
    if (k_overlap)
      pipeline_row ("element", sp);
  }
  extra_rows ();
  for (k = 0; k < 2 && opt_sweep && k_overlap; k++)
    for (s = 1; s <= 8 && in_use[k]; s *= 2)
      for (c = 1; c <= 8; c *= 2) {
        BenchRunSpec sp = { FALSE, FALSE, k, s, c, opt_frames, FALSE, 0 };
        pipeline_row ("sweep", sp);
      }
}

/* The peer's row, then with --live the paced rows. */
static void
peer_and_live_rows (const gchar * peer_skipped)
{
  guint k;

  if (k_peer) {
    BenchRunSpec sp =
        { TRUE, FALSE, BENCH_IN_REGISTERED, 0, 0, opt_frames, FALSE, 0 };
    pipeline_row ("peer", sp);
  } else if (peer_skipped) {
    gchar *why = g_strdup_printf ("skipped: %s", peer_skipped);

    skipped_row ("peer", "upload+download", why);
    g_free (why);
  }
  if (opt_live > 0) {
    for (k = 0; k < BENCH_N_INPUTS && k_overlap; k++) {
      BenchRunSpec sp = { FALSE, FALSE, k, opt_streams, opt_chunks,
        opt_live_frames, FALSE, opt_live
      };
      if (in_use[k])
        pipeline_row ("element", sp);
      sp.defaults = TRUE;
      if (in_use[k] && opt_defaults)
        pipeline_row ("defaults", sp);
    }
    if (k_peer) {
      BenchRunSpec sp =
          { TRUE, FALSE, BENCH_IN_REGISTERED, 0, 0, opt_live_frames,
        FALSE, opt_live
      };
      pipeline_row ("peer", sp);
    }
  }
}

static void
bench_free_all (void)
{
  guint k;

  for (k = 0; k < BENCH_RING; k++) {
    if (bench_gst.app_locked)
      bench_cuda_host_free (bench_gst.app_ring[k]);
    else
      g_free (bench_gst.app_ring[k]);
    gst_memory_unref (bench_gst.mem[k]);
    if (bench_gst.peer_mem[k])
      gst_memory_unref (bench_gst.peer_mem[k]);
    free (bench_gst.peer_ring[k]);
    free (bench_gst.wrap_ring[k]);
  }
  gst_clear_caps (&bench_gst.peer_caps);
  g_free (bench_gst.peer_as);
  gst_clear_caps (&bench_gst.cuda_caps);
  gst_clear_caps (&bench_gst.peer_cuda_caps);
  bench_gather_free (bench_gst.gather);
  if (bench_gst.cuda_context)
    gst_context_unref (bench_gst.cuda_context);
  bench_slots_clear (&bench_gst.slots);
  bench_slots_clear (&bench_gst.slots_pinned);
  bench_slots_clear (&bench_gst.recurring);
  bench_frames_clear (&bench_gst.fr);
  bench_custom_free (custom);
}

int
main (int argc, char **argv)
{
  GstVideoFormat vfmt;
  gchar *cmd, *cuda_why = NULL;
  const gchar *peer_skipped;
  gboolean want_cuda;
  guint k;
  FILE *out = stdout;

  cmd = g_strjoinv (" ", argv);
  opt_format = g_strdup ("RGBA");
  opt_backend = g_strdup ("auto");
  opt_op = g_strdup ("invert");
  if (!bench_parse_options ("- cudaoverlap benchmark: raw CUDA ceiling, "
          "cudavideofilter and cudaupload/cudadownload on the same frames",
          entries, &argc, &argv))
    return 2;
  if (opt_context_ms) {
    printf ("context-ms %.3f\n", bench_cuda_context_ms (0));
    return 0;
  }
  bench_gst.op = opt_op;
  bench_gst.backend = opt_backend;
  bench_gst.props = opt_props;
  rows = g_array_new (FALSE, TRUE, sizeof (BenchRow));

  vfmt = gst_video_format_from_string (opt_format);
  if (!options_valid (vfmt))
    return 2;
  if (opt_live > 0)
    gst_util_double_to_fraction (opt_live, &bench_gst.info.fps_n,
        &bench_gst.info.fps_d);
  else
    bench_gst.info.fps_n = 60, bench_gst.info.fps_d = 1;
  bench_gst.dur =
      gst_util_uint64_scale_int (GST_SECOND, bench_gst.info.fps_d,
      bench_gst.info.fps_n);
  bench_gst.caps = gst_video_info_to_caps (&bench_gst.info);
  if (!bench_have_feature ("cudavideofilter")) {
    fprintf (stderr, "element cudavideofilter not found: point "
        "GST_PLUGIN_PATH at the built plugin (build/plugin)\n");
    return 2;
  }

  fprintf (stderr, "[bench] filling %u random %dx%d %s frames (%"
      G_GSIZE_FORMAT " bytes each)\n", BENCH_RING, opt_width, opt_height,
      opt_format, bench_gst.fr.lay.size);
  bench_frames_init (&bench_gst.fr, 0x5eed);
  if (!strcmp (bench_gst.op, "custom") && (!(custom = custom_from_props (vfmt))
          || !custom_expect (custom)))
    return 2;
  if (!strcmp (bench_gst.op, "gamma") && !gamma_expect ())
    return 1;
  for (k = 0; k < BENCH_RING; k++)
    bench_gst.mem[k] =
        gst_memory_new_wrapped (0, bench_gst.fr.ring[k], bench_gst.fr.lay.size,
        0, bench_gst.fr.lay.size, NULL, NULL);

  /* CUDA only when the backend may use it and a device is there */
  want_cuda = strcmp (bench_gst.backend, "cpu") != 0;
  /* before anything in this process touches CUDA */
  if (opt_first_frame)
    first_frame_rows (argv[0], want_cuda);
  if (want_cuda && (have_cuda = bench_cuda_probe (0, &cuda_why)) && !opt_child)
    gpu_passport = bench_cuda_passport (0);
  inputs_make ();
  if (opt_child)
    return child_main ();

  verify_inputs ();
  peer_skipped = peer_prepare (want_cuda);

  if (k_raw && (in_use[BENCH_IN_WRAPPED] || in_use[BENCH_IN_FRESH] ||
          in_use[BENCH_IN_SLOTS]))
    memcpy_rows ();
  if (k_raw && have_cuda && bench_gst.fr.gamma <= 0) {
    raw_rows ();
  } else if (k_raw) {
    const gchar *why = bench_gst.fr.gamma > 0 ? "skipped: --op gamma (the "
        "raw loop runs invert)" : want_cuda ? "skipped: no CUDA device" :
        "skipped: backend cpu";

    bench_note ("raw: %s%s%s%s", why, cuda_why ? " (" : "",
        cuda_why ? cuda_why : "", cuda_why ? ")" : "");
    skipped_row ("raw", "-", why);
    skipped_row ("raw-latency", "one-frame", why);
  }

  element_rows ();
  peer_and_live_rows (peer_skipped);

  memory_rows (want_cuda, cuda_why);
  if (in_use[BENCH_IN_WRAPPED] && have_cuda) {
    guint locked = bench_cuda_count_locked (bench_gst.wrap_ring, BENCH_RING);

    bench_note ("wrapped input: %u of its %u ring frames page-locked after "
        "the rows%s", locked, BENCH_RING, locked ? " (INVALID: the wrapped "
        "rows did not measure a ring that no one page-locked)" : "");
    bench_gst.failed |= locked > 0;
  }

  bench_print_report (out, cmd, want_cuda);

  bench_free_all ();
  return bench_gst.failed ? 1 : 0;
}
