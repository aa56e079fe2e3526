/* cudaoverlap example: an application that runs cudavideofilter and reads
 * the cudaoverlap-passport and cudaoverlap-stats messages from the bus.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build it against an installed cudaoverlap:
 *
 *   cc stats-summary.c -o stats-summary \
 *       $(pkg-config --cflags --libs gstreamer-cudaoverlap-1.0)
 *
 * and run it with the plugin on GStreamer's path (an installed plugin is
 * found where `pkg-config --variable=pluginsdir gstreamer-cudaoverlap-1.0`
 * says; GST_PLUGIN_PATH for one elsewhere):
 *
 *   ./stats-summary --frames 120 --width 1920 --height 1080 \
 *       --operation box-blur --stats-interval 100000000
 *
 * It runs
 *   videotestsrc num-buffers=N ! video/x-raw,format=F,width=W,height=H
 *     ! cudavideofilter operation=OP backend=B streams=S chunks=C
 *       stats-interval=NS ! fakesink
 * to EOS and prints the device and settings (passport), the number of
 * statistics windows, and the whole run's place in the stream (timestamp,
 * duration, running-time, stream-time), rate, latencies, overlap and
 * memory paths.  Every message and field name comes from
 * <gst/cudaoverlap/cudaoverlap.h>.  Exit status: 0; 1 on an error message,
 * when a message or field is missing, or when the whole run does not count
 * every frame; 2 on bad arguments.
 */
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/cudaoverlap/cudaoverlap.h>

typedef struct
{
  gint frames;
  gint width;
  gint height;
  gchar *format;
  gchar *operation;
  gchar *backend;
  gint streams;
  gint chunks;
  gint64 stats_interval;
} Settings;

typedef struct
{
  GstStructure *passport;
  GstStructure *whole_run;
  guint windows;                /* statistics messages before the whole run */
} Summary;

static GstElement *
build_pipeline (const Settings * set)
{
  GError *err = NULL;
  gchar *desc;
  GstElement *pipeline;

  desc = g_strdup_printf ("videotestsrc num-buffers=%d "
      "! video/x-raw,format=%s,width=%d,height=%d "
      "! cudavideofilter operation=%s backend=%s streams=%d chunks=%d "
      "stats-interval=%" G_GINT64_FORMAT " ! fakesink", set->frames,
      set->format, set->width, set->height, set->operation, set->backend,
      set->streams, set->chunks, set->stats_interval);
  g_print ("pipeline: %s\n", desc);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (err != NULL) {
    g_printerr ("cannot build the pipeline: %s\n", err->message);
    g_clear_error (&err);
    gst_clear_object (&pipeline);
  }
  return pipeline;
}

/* Keeps the passport and the whole-run statistics; counts the windows. */
static void
take_element_message (Summary * sum, GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  gboolean whole_run = FALSE;

  if (gst_structure_has_name (s, GST_CUDA_OVERLAP_MESSAGE_PASSPORT)) {
    g_clear_pointer (&sum->passport, gst_structure_free);
    sum->passport = gst_structure_copy (s);
  } else if (gst_structure_has_name (s, GST_CUDA_OVERLAP_MESSAGE_STATS)) {
    /* present, and TRUE, only in the whole-run message at EOS */
    gst_structure_get_boolean (s, GST_CUDA_OVERLAP_STATS_WHOLE_RUN, &whole_run);
    if (whole_run) {
      g_clear_pointer (&sum->whole_run, gst_structure_free);
      sum->whole_run = gst_structure_copy (s);
    } else {
      sum->windows++;
    }
  }
}

/* Runs @pipeline to EOS or an error; FALSE on an error. */
static gboolean
run (GstElement * pipeline, Summary * sum)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = TRUE, done = FALSE;

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_printerr ("the pipeline did not start (the error follows)\n");
  while (!done) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    GError *err = NULL;
    gchar *debug = NULL;

    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        take_element_message (sum, msg);
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &err, &debug);
        g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
            err->message, debug ? debug : "");
        g_clear_error (&err);
        g_free (debug);
        ok = FALSE;
        done = TRUE;
        break;
      default:                 /* EOS */
        done = TRUE;
        break;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return ok;
}

/* Prints the device and the settings in effect; FALSE when a field is
 * missing (or of another type than the header says). */
static gboolean
print_passport (const GstStructure * p)
{
  gchar *device = NULL, *cc = NULL, *backend = NULL, *op = NULL, *mode = NULL;
  gchar *caps = NULL;
  guint streams = 0, chunks = 0, in_flight = 0, batch = 0;
  guint64 frame_bytes = 0;
  gboolean ok;

  ok = gst_structure_get (p,
      GST_CUDA_OVERLAP_PASSPORT_DEVICE_NAME, G_TYPE_STRING, &device,
      GST_CUDA_OVERLAP_PASSPORT_COMPUTE_CAPABILITY, G_TYPE_STRING, &cc,
      GST_CUDA_OVERLAP_PASSPORT_BACKEND, G_TYPE_STRING, &backend,
      GST_CUDA_OVERLAP_PASSPORT_OPERATION, G_TYPE_STRING, &op,
      GST_CUDA_OVERLAP_PASSPORT_MODE, G_TYPE_STRING, &mode,
      GST_CUDA_OVERLAP_PASSPORT_STREAMS, G_TYPE_UINT, &streams,
      GST_CUDA_OVERLAP_PASSPORT_CHUNKS, G_TYPE_UINT, &chunks,
      GST_CUDA_OVERLAP_PASSPORT_MAX_IN_FLIGHT, G_TYPE_UINT, &in_flight,
      GST_CUDA_OVERLAP_PASSPORT_BATCH, G_TYPE_UINT, &batch,
      GST_CUDA_OVERLAP_PASSPORT_FRAME_BYTES, G_TYPE_UINT64, &frame_bytes,
      GST_CUDA_OVERLAP_PASSPORT_CAPS, G_TYPE_STRING, &caps, NULL);
  if (ok) {
    g_print ("device:    %s (compute capability %s), backend %s\n", device, cc,
        backend);
    g_print ("settings:  %s, mode %s, %u streams x %u chunks, "
        "%u frames in flight, batch %u\n", op, mode, streams, chunks,
        in_flight, batch);
    g_print ("frames:    %" G_GUINT64_FORMAT " bytes, %s\n", frame_bytes, caps);
  }
  g_free (device);
  g_free (cc);
  g_free (backend);
  g_free (op);
  g_free (mode);
  g_free (caps);
  return ok;
}

/* The whole run's rate, latencies, device times and memory paths; FALSE
 * when a field is missing. */
static gboolean
print_whole_run (const GstStructure * w, guint windows, guint64 * frames)
{
  guint64 p50 = 0, p99 = 0, max = 0, gpu_p50 = 0, gpu_p99 = 0;
  guint64 busy = 0, h2d = 0, kernel = 0, d2h = 0, hidden = 0;
  guint64 pinned = 0, registered = 0, pageable = 0, staged = 0;
  GstClockTime ts = 0, dur = 0, running = 0, stream = 0;
  gdouble fps = 0, efficiency = 0;
  gboolean ok;

  ok = gst_structure_get (w,
      GST_CUDA_OVERLAP_STATS_TIMESTAMP, GST_TYPE_CLOCK_TIME, &ts,
      GST_CUDA_OVERLAP_STATS_DURATION, GST_TYPE_CLOCK_TIME, &dur,
      GST_CUDA_OVERLAP_STATS_RUNNING_TIME, GST_TYPE_CLOCK_TIME, &running,
      GST_CUDA_OVERLAP_STATS_STREAM_TIME, GST_TYPE_CLOCK_TIME, &stream,
      GST_CUDA_OVERLAP_STATS_FRAMES, G_TYPE_UINT64, frames,
      GST_CUDA_OVERLAP_STATS_FPS, G_TYPE_DOUBLE, &fps,
      GST_CUDA_OVERLAP_STATS_LATENCY_P50, G_TYPE_UINT64, &p50,
      GST_CUDA_OVERLAP_STATS_LATENCY_P99, G_TYPE_UINT64, &p99,
      GST_CUDA_OVERLAP_STATS_LATENCY_MAX, G_TYPE_UINT64, &max,
      GST_CUDA_OVERLAP_STATS_GPU_LATENCY_P50, G_TYPE_UINT64, &gpu_p50,
      GST_CUDA_OVERLAP_STATS_GPU_LATENCY_P99, G_TYPE_UINT64, &gpu_p99,
      GST_CUDA_OVERLAP_STATS_GPU_BUSY_NS, G_TYPE_UINT64, &busy,
      GST_CUDA_OVERLAP_STATS_H2D_NS, G_TYPE_UINT64, &h2d,
      GST_CUDA_OVERLAP_STATS_KERNEL_NS, G_TYPE_UINT64, &kernel,
      GST_CUDA_OVERLAP_STATS_D2H_NS, G_TYPE_UINT64, &d2h,
      GST_CUDA_OVERLAP_STATS_OVERLAP_EFFICIENCY, G_TYPE_DOUBLE, &efficiency,
      GST_CUDA_OVERLAP_STATS_COPY_COMPUTE_OVERLAP_NS, G_TYPE_UINT64, &hidden,
      GST_CUDA_OVERLAP_STATS_FRAMES_PINNED, G_TYPE_UINT64, &pinned,
      GST_CUDA_OVERLAP_STATS_FRAMES_REGISTERED, G_TYPE_UINT64, &registered,
      GST_CUDA_OVERLAP_STATS_FRAMES_PAGEABLE, G_TYPE_UINT64, &pageable,
      GST_CUDA_OVERLAP_STATS_FRAMES_STAGED, G_TYPE_UINT64, &staged, NULL);
  if (!ok)
    return FALSE;
  g_print ("whole run: %" G_GUINT64_FORMAT " frames at %.1f frames/s "
      "(after %u window messages)\n", *frames, fps, windows);
  g_print ("stream:    timestamp %" GST_TIME_FORMAT " + duration %"
      GST_TIME_FORMAT ", running-time %" GST_TIME_FORMAT ", stream-time %"
      GST_TIME_FORMAT "\n", GST_TIME_ARGS (ts), GST_TIME_ARGS (dur),
      GST_TIME_ARGS (running), GST_TIME_ARGS (stream));
  g_print ("latency:   host p50 %.3f ms, p99 %.3f ms, max %.3f ms; "
      "device p50 %.3f ms, p99 %.3f ms\n", p50 / 1e6, p99 / 1e6, max / 1e6,
      gpu_p50 / 1e6, gpu_p99 / 1e6);
  g_print ("device:    busy %.3f ms (H2D %.3f, kernels %.3f, D2H %.3f), "
      "overlap efficiency %.3f, copies under compute %.3f ms\n", busy / 1e6,
      h2d / 1e6, kernel / 1e6, d2h / 1e6, efficiency, hidden / 1e6);
  g_print ("memory:    %" G_GUINT64_FORMAT " pinned, %" G_GUINT64_FORMAT
      " registered, %" G_GUINT64_FORMAT " pageable, %" G_GUINT64_FORMAT
      " staged frames\n", pinned, registered, pageable, staged);
  return TRUE;
}

/* Prints the summary; FALSE when something the run must post is missing. */
static gboolean
print_summary (const Summary * sum, const Settings * set)
{
  guint64 frames = 0;

  if (sum->passport == NULL || sum->whole_run == NULL) {
    g_printerr ("no %s message arrived\n", sum->passport == NULL ?
        GST_CUDA_OVERLAP_MESSAGE_PASSPORT : GST_CUDA_OVERLAP_MESSAGE_STATS);
    return FALSE;
  }
  if (!print_passport (sum->passport)
      || !print_whole_run (sum->whole_run, sum->windows, &frames)) {
    g_printerr ("a field that <gst/cudaoverlap/cudaoverlap.h> names is "
        "missing or of another type:\n%" GST_PTR_FORMAT "\n%" GST_PTR_FORMAT
        "\n", sum->passport, sum->whole_run);
    return FALSE;
  }
  if (frames != (guint64) set->frames) {
    g_printerr ("the whole run counted %" G_GUINT64_FORMAT " frames, not %d\n",
        frames, set->frames);
    return FALSE;
  }
  return TRUE;
}

static gboolean
parse_args (Settings * set, int *argc, char ***argv)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &set->frames,
        "Frames to run (default 60)", "N"},
    {"width", 'W', 0, G_OPTION_ARG_INT, &set->width,
        "Frame width (default 640)", "W"},
    {"height", 'H', 0, G_OPTION_ARG_INT, &set->height,
        "Frame height (default 480)", "H"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &set->format,
        "Video format (default RGBA)", "FORMAT"},
    {"operation", 'o', 0, G_OPTION_ARG_STRING, &set->operation,
        "invert, gamma or box-blur (default invert)", "OP"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &set->backend,
        "auto, cuda or cpu (default auto)", "BACKEND"},
    {"streams", 's', 0, G_OPTION_ARG_INT, &set->streams,
        "CUDA streams (default 4)", "S"},
    {"chunks", 'c', 0, G_OPTION_ARG_INT, &set->chunks,
        "Chunks per frame (default 4)", "C"},
    {"stats-interval", 'i', 0, G_OPTION_ARG_INT64, &set->stats_interval,
        "ns between statistics windows; 0: only the whole run "
          "(default 100000000)", "NS"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- run cudavideofilter and "
      "print its passport and statistics");
  GError *err = NULL;
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  ok = g_option_context_parse (ctx, argc, argv, &err);
  if (!ok) {
    g_printerr ("%s\n", err->message);
    g_clear_error (&err);
  } else if (set->frames < 1 || set->width < 1 || set->height < 1
      || set->stats_interval < 0) {
    g_printerr ("--frames, --width and --height must be at least 1, "
        "--stats-interval at least 0\n");
    ok = FALSE;
  }
  g_option_context_free (ctx);
  return ok;
}

int
main (int argc, char **argv)
{
  Settings set = { 60, 640, 480, NULL, NULL, NULL, 4, 4, 100 * GST_MSECOND };
  Summary sum = { NULL, NULL, 0 };
  GstElement *pipeline;
  gboolean ok;

  if (!parse_args (&set, &argc, &argv))
    return 2;
  if (set.format == NULL)
    set.format = g_strdup ("RGBA");
  if (set.operation == NULL)
    set.operation = g_strdup ("invert");
  if (set.backend == NULL)
    set.backend = g_strdup ("auto");
  pipeline = build_pipeline (&set);
  ok = pipeline != NULL && run (pipeline, &sum);
  ok = ok && print_summary (&sum, &set);
  gst_clear_object (&pipeline);
  g_clear_pointer (&sum.passport, gst_structure_free);
  g_clear_pointer (&sum.whole_run, gst_structure_free);
  g_free (set.format);
  g_free (set.operation);
  g_free (set.backend);
  gst_deinit ();
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
