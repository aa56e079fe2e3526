/* cudaoverlap-check: the element's own statistics against CUPTI's
 * activity records, serial against overlap, and its outputs against the
 * CPU backend's, for video, CUDA memory, custom kernels and audio.
 * check.h lists the files of its parts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cudaoverlap-check --video [--width 3840 --height 2160 --radius 32
 *       --frames 300 --streams 4 --chunks 4] [--props "PROP=VALUE ..."]
 *   cudaoverlap-check --memory cuda-in[,cuda-out] [the video options]
 *   cudaoverlap-check --audio [--taps 255 --samples 1048576 --channels 2
 *       --buffers 200 --cpu-buffers N --cupti]
 *   cudaoverlap-check --taps-sweep [--samples ... --channels ... --buffers]
 *   common: [--backend auto|cuda|cpu]; the parts may be combined.
 *
 * --video: for mode serial, then overlap, a warm-up pipeline of 20
 *   frames, then the timed one: `appsrc ! cudavideofilter operation=box-blur
 *   radius=R mode=M streams=S chunks=C stats-interval=0 backend=B ! appsink
 *   sync=false`.  Input: RGBA frames from the element's own page-locked
 *   pool (ALLOCATION query once the element has posted its passport; the
 *   pool reconfigured to 8 buffers, each filled once from a random frame
 *   and held for the whole run; every push is a fresh gst_buffer_copy () of
 *   one of them, which shares its memory).  The CPU backend proposes no
 *   pool: then 8 malloc()ed frames, each wrapped once in a GstMemory.  With
 *   CUDA, CUPTI records the timed run's memcpy and kernel activity (from
 *   just before the first push to after EOS) and its busy times and overlap
 *   efficiency, computed by the same co-stats arithmetic, are set beside
 *   the element's whole-run cudaoverlap-stats (CUDA events).  Then the
 *   first 3 outputs of the timed overlap run are compared byte for byte
 *   with those of the same 3 input frames through backend=cpu.  CUPTI's
 *   kernel records are not filtered by name: every kernel of the process
 *   counts; the log lists them by name.
 * --props (video and --memory): element properties appended to
 *   the description after the others, so they override them: `operation=
 *   custom kernel-module=build/examples/kernels/sobel.ptx kernel-name=
 *   co_sobel kernel-halo=1` runs a user's kernel beside CUPTI, and a row
 *   says how many CUPTI kernel records carry kernel-name (none: FAIL).  The
 *   CPU reference runs with the same --props: for operation=custom it runs
 *   the kernel's CPU implementation, so --props must also name
 *   kernel-cpu-library and kernel-cpu-symbol; without them the outputs are
 *   not compared (the log and the summary say so).  The overlap-efficiency
 *   threshold (>= 0.8) is box blur's: with operation=custom it is reported,
 *   not judged.
 * --memory: the element with CUDA memory on one side, mode
 *   overlap: cuda-in is `appsrc ! cudaupload ! video/x-raw(memory:
 *   CUDAMemory) ! cudavideofilter ! video/x-raw ! appsink`, fed from 8
 *   malloc()ed (pageable) frames, then from 8 cudaHostAlloc()ed ones;
 *   cuda-out is `appsrc ! cudavideofilter ! video/x-raw(memory:CUDAMemory)
 *   ! cudadownload ! video/x-raw ! appsink`, fed from the element's pool.
 *   Each timed run under CUPTI: a table of its memcpy records by copy kind
 *   (HtoD, DtoH, DtoD, others) and CUPTI's source / destination memory kind
 *   (pageable, pinned, device: CUpti_ActivityMemcpy srcKind / dstKind),
 *   with count, bytes, busy time (union) and the part of it during kernels
 *   (intersection with the union of the kernel intervals, co-intervals),
 *   and the streams (those running kernels are the element's); then the
 *   uploads and downloads against kernel time, the element's marked (by the
 *   pipeline: cudaupload makes the uploads of cuda-in, cudadownload the
 *   downloads of cuda-out).  Not judged (info rows); the first 3 outputs
 *   against the CPU backend as for --video.  Skipped, with the reason, on
 *   --backend cpu, without a CUDA device, or without nvcodec's cudaupload /
 *   cudadownload.
 * --audio: F32LE interleaved, `samples` frames per channel per
 *   buffer, from 8 malloc()ed buffers each wrapped once in a GstMemory (the
 *   element registers them with cudaHostRegister once); a fresh GstBuffer
 *   per push.  cudaaudiofilter operation=fir with `taps` random taps (fixed
 *   seed): mode serial, overlap, and backend=cpu (overlap).  samples/s, the
 *   whole-run busy times and efficiency; overlap / serial.  The first 2
 *   outputs of the overlap run against those of the backend=cpu run
 *   (relative L2 error <= 1e-5).  --cupti: CUPTI beside the element as for
 *   video.
 * --taps-sweep: overlap mode, taps 15 ... 4095: kernel-ns per buffer
 *   against (h2d-ns + d2h-ns) / 2 per buffer, and the number of taps where
 *   they are equal (interpolated on log scales).
 *
 * Every pipeline run: the first buffer is pushed and waited for (the
 * element sets itself up on it: caps, engine rebuild for large audio
 * buffers), then the others are pushed; the wall rate counts buffers 2..N,
 * from the push of buffer 2 to the last output.  The element's whole-run
 * statistics and CUPTI cover all N.
 *
 * Exit status: 0 all checks and verdicts passed (verdicts that do not
 * apply, e.g. on the CPU backend, are not counted); 1 an output check
 * failed or a run failed; 2 bad options; 3 the outputs are right but a
 * performance verdict failed.
 */
#include "check.h"

/* ---- options ------------------------------------------------------------- */

gboolean opt_video, opt_audio, opt_sweep, opt_cupti;
gint opt_width = 3840, opt_height = 2160, opt_radius = 32;
gint opt_frames = 300, opt_streams = 4, opt_chunks = 4;
gint opt_taps = 255, opt_samples = 1048576, opt_channels = 2;
gint opt_buffers = 200, opt_cpu_buffers = -1;
gchar *opt_backend, *opt_props, *opt_memory;
gchar **props_argv;             /* --props, split like a shell */

/* ---- main ---------------------------------------------------------------- */

static gboolean
cuda_probe (gchar ** why)
{
  char msg[160];

  if (tool_cuda_probe (0, 0, msg, sizeof (msg)))
    return TRUE;
  *why = g_strdup (msg);
  return FALSE;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"video", 0, 0, G_OPTION_ARG_NONE, &opt_video,
        "Video: box-blur serial and overlap against CUPTI, outputs against "
          "the CPU backend", NULL},
    {"audio", 0, 0, G_OPTION_ARG_NONE, &opt_audio,
        "Audio: FIR serial, overlap and CPU backend, samples/s, outputs "
          "against the CPU backend", NULL},
    {"taps-sweep", 0, 0, G_OPTION_ARG_NONE, &opt_sweep,
        "Audio FIR overlap over taps 15 ... 4095: kernel against copy "
          "time per buffer", NULL},
    {"memory", 0, 0, G_OPTION_ARG_STRING, &opt_memory,
          "Video with CUDA memory on one side: cuda-in (cudaupload before "
          "the element), cuda-out (cudadownload after it) or cuda-in,cuda-out; "
          "an independent CUPTI profile of the copies",
        "MODES"},
    {"props", 0, 0, G_OPTION_ARG_STRING, &opt_props,
        "Video: more element properties, after the others (so they "
          "override them), e.g. \"operation=custom kernel-module=K.ptx "
          "kernel-name=k kernel-halo=1 kernel-cpu-library=libk.so "
          "kernel-cpu-symbol=k_cpu\"", "\"PROP=VALUE ...\""},
    {"cupti", 0, 0, G_OPTION_ARG_NONE, &opt_cupti,
        "Audio: also compare the serial and overlap runs with CUPTI", NULL},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend,
        "auto, cuda or cpu (auto)", "B"},
    {"width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Video width (3840)", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Video height (2160)",
        "H"},
    {"radius", 0, 0, G_OPTION_ARG_INT, &opt_radius, "Box-blur radius (32)",
        "R"},
    {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames,
        "Video frames per timed run (300)", "N"},
    {"streams", 0, 0, G_OPTION_ARG_INT, &opt_streams,
          "Streams in overlap mode (4; 0: the element's automatic choice)",
        "N"},
    {"chunks", 0, 0, G_OPTION_ARG_INT, &opt_chunks,
          "Chunks in overlap mode (4; 0: the element's automatic choice)",
        "N"},
    {"taps", 0, 0, G_OPTION_ARG_INT, &opt_taps, "Audio FIR taps (255)", "N"},
    {"samples", 0, 0, G_OPTION_ARG_INT, &opt_samples,
        "Audio samples per channel per buffer (1048576)", "N"},
    {"channels", 0, 0, G_OPTION_ARG_INT, &opt_channels,
        "Audio channels (2)", "N"},
    {"buffers", 0, 0, G_OPTION_ARG_INT, &opt_buffers,
        "Audio buffers per run, also per taps-sweep point (200)", "N"},
    {"cpu-buffers", 0, 0, G_OPTION_ARG_INT, &opt_cpu_buffers,
        "Audio buffers of the backend=cpu run (min (buffers, 40))", "N"},
    {NULL}
  };
  GDateTime *now;
  gchar *date, *cmd, host[256] = "", *cpuinfo = NULL, *model = NULL, *p;
  guint i;

  /* a line at a time: the report (stdout) and the progress (stderr) go to
   * one log, and a block-buffered report split its lines there */
  setvbuf (stdout, NULL, _IOLBF, 0);
  cmd = g_strjoinv (" ", argv);
  opt_backend = g_strdup ("auto");
  if (!bench_parse_options ("- cudaoverlap: overlap against serial and "
          "CUPTI, outputs against the CPU backend", entries, &argc, &argv))
    return 2;
  if (!opt_video && !opt_audio && !opt_sweep && !opt_memory) {
    fprintf (stderr, "nothing to do: give --video, --memory, --audio and/or "
        "--taps-sweep (see --help)\n");
    return 2;
  }
  if (opt_props && !g_shell_parse_argv (opt_props, NULL, &props_argv, NULL)) {
    fprintf (stderr, "--props: cannot parse \"%s\"\n", opt_props);
    return 2;
  }
  for (i = 0; props_argv && props_argv[i]; i++)
    if (!strchr (props_argv[i], '=')) {
      fprintf (stderr, "--props: \"%s\" is not PROP=VALUE\n", props_argv[i]);
      return 2;
    }
  if (opt_memory) {
    gchar **m = g_strsplit (opt_memory, ",", -1);
    gboolean ok = m[0] != NULL;

    for (i = 0; m[i]; i++)
      ok &= !strcmp (m[i], "cuda-in") || !strcmp (m[i], "cuda-out");
    g_strfreev (m);
    if (!ok) {
      fprintf (stderr, "--memory: cuda-in, cuda-out or cuda-in,cuda-out\n");
      return 2;
    }
  }
  if (strcmp (opt_backend, "auto") && strcmp (opt_backend, "cuda") &&
      strcmp (opt_backend, "cpu")) {
    fprintf (stderr, "--backend: auto, cuda or cpu\n");
    return 2;
  }
  if (opt_width < 1 || opt_height < 1 || opt_radius < 0 || opt_frames < 1 ||
      opt_streams < 0 || opt_streams > 32 || opt_chunks < 0 ||
      opt_chunks > 64 || opt_taps < 1 || opt_taps > 4096 || opt_samples < 1 ||
      opt_channels < 1 || opt_channels > 64 || opt_buffers < 1) {
    fprintf (stderr, "invalid option value (see --help)\n");
    return 2;
  }
  if (!bench_have_feature ("cudavideofilter")
      || !bench_have_feature ("cudaaudiofilter")) {
    fprintf (stderr,
        "cudavideofilter / cudaaudiofilter not found: point "
        "GST_PLUGIN_PATH at the built plugin (build/plugin)\n");
    return 2;
  }
  summary = g_array_new (FALSE, TRUE, sizeof (SumRow));
  have_cuda = cuda_probe (&cuda_why);

  now = g_date_time_new_now_utc ();
  date = g_date_time_format_iso8601 (now);
  gethostname (host, sizeof (host) - 1);
  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL) &&
      (p = strstr (cpuinfo, "model name")) && (p = strchr (p, ':')))
    model = g_strndup (p + 2, strcspn (p + 2, "\n"));
  printf ("# cudaoverlap-check\n\n- date: %s\n- command: %s\n- host: %s, %ld "
      "CPUs (%s), %s\n- CUDA: %s%s%s\n", date, cmd, host,
      sysconf (_SC_NPROCESSORS_ONLN), model ? model : "?",
      gst_version_string (), have_cuda ? "a device is present" :
      "no CUDA device", have_cuda ? "" : ": ", have_cuda ? "" : cuda_why);
  printf ("- backend asked: %s\n", opt_backend);
  fflush (stdout);
  g_free (model);
  g_free (cpuinfo);
  g_date_time_unref (now);
  g_free (date);

  if (opt_props)
    printf ("- element properties added (--props, video and memory runs): "
        "%s\n", opt_props);
  if (opt_video)
    run_video ();
  if (opt_memory)
    run_memory ();
  if (opt_audio)
    run_audio ();
  if (opt_sweep)
    run_sweep ();

  printf ("\n## summary\n\n| check | value | threshold | verdict |\n"
      "|---|---|---|---|\n");
  for (i = 0; i < summary->len; i++) {
    SumRow *r = &g_array_index (summary, SumRow, i);

    printf ("| %s | %s | %s | %s |\n", r->check, r->value, r->threshold,
        verdict_names[r->verdict]);
  }
  printf ("\nRESULT: %s\n", failed_check ? "FAILED (an output check or a run "
      "failed)" : failed_perf ? "outputs ok, a performance verdict FAILED" :
      "all checks passed (verdicts marked n/a were not judged)");

  host_ring_clear (&aring);
  host_ring_clear (&vring);
  pinned_ring_clear ();
  run_result_clear (&vref);
  g_strfreev (props_argv);
  g_free (opt_props);
  g_free (opt_memory);
  if (acaps)
    gst_caps_unref (acaps);
  if (vcaps)
    gst_caps_unref (vcaps);
  g_array_unref (summary);
  g_free (cmd);
  g_free (cuda_why);
  g_free (opt_backend);
  return failed_check ? 1 : failed_perf ? 3 : 0;
}
