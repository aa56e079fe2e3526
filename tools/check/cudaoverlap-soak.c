/* cudaoverlap-soak: a long run with seeks, renegotiations, property changes
 * and pauses, watching host and device memory (tools/check/soak.sh).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `videotestsrc pattern=snow is-live=false ! capsfilter ! cudavideofilter
 * backend=B ! fakesink sync=false` runs for --seconds.  Every --period s
 * the main loop does one action, in turn: a flushing seek to the start, a
 * renegotiation (the capsfilter switches between WxH and W/2xH/2 and between
 * RGBA and NV12), a property change (operation, gamma, radius; chunks and
 * streams, which are mutable in READY only and so take effect at the next
 * rebuild), and every seventh action a PAUSED -> PLAYING toggle.  Every
 * --sample s one line: elapsed s, frames out (a probe on fakesink's sink
 * pad), host RSS MiB (/proc/self/statm), device memory used MiB
 * (cudaMemGetInfo total - free; "-" without a device or with backend=cpu),
 * actions done.  At the deadline: EOS, waited for at most --eos-timeout s,
 * then NULL.  Memory swings with the settings in force (4K RGBA pools are
 * several times 1080p NV12 ones), so the verdict compares windows, not
 * samples: the samples after --warmup s are split into a first and a
 * second half, and the floor (least) of host RSS and of device memory in
 * each half is compared (a leak raises every setting's memory, so the
 * floor; the ceiling depends on which settings a window happened to hold,
 * and is printed only): "soak: flat" (exit 0) when neither floor rose by
 * 5 % + 20 MiB (host) or 64 MiB (device), "soak: GROWTH" (exit 1)
 * otherwise, "soak: ERROR msg" (an error on the bus, exit 2), "soak: HANG
 * what" (EOS not arriving, no frames for --stall s, or the whole run
 * overdue, exit 3).
 */
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <gst/gst.h>
#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_STATIC (soak_debug);
#define GST_CAT_DEFAULT soak_debug

#define MIB (1024.0 * 1024.0)
#define MAX_SAMPLES 100000

typedef struct
{
  gdouble t, rss, dev;          /* s, MiB, MiB (-1: none) */
  guint64 frames, actions;
} Sample;

enum
{ ACT_SEEK, ACT_CAPS, ACT_PROP, ACT_PAUSE, N_ACT };
static const gchar *act_names[N_ACT] = { "seek", "caps", "prop", "pause" };

static gint opt_seconds = 300, opt_width = 3840, opt_height = 2160;
static gint opt_eos_timeout = 30, opt_stall = 30;
static gdouble opt_period = 3.0, opt_sample = 10.0, opt_warmup = 30.0;
static gchar *opt_backend = (gchar *) "auto", *opt_csv, *opt_pattern =
    (gchar *) "snow";
static gboolean opt_verbose, opt_playing_only;

static GstElement *pipeline, *capsf, *filter;
static GMainLoop *loop;
static FILE *csv;
static gint64 t0;
G_LOCK_DEFINE_STATIC (frames);
static guint64 frames;          /* under the frames lock */
static guint64 n_act[N_ACT], n_actions, n_warnings, step, stall_s;
static guint64 last_frames;
static Sample *samples;
static guint n_samples;
static gboolean use_device, paused, draining;
static gchar *error_msg;
static const gchar *hang_msg;
static guint src_action, src_sample, src_deadline, src_resume;

static guint64
frames_out (void)
{
  guint64 n;

  G_LOCK (frames);
  n = frames;
  G_UNLOCK (frames);
  return n;
}

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint n = 1;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    n = gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  G_LOCK (frames);
  frames += n;
  G_UNLOCK (frames);
  return GST_PAD_PROBE_OK;
}

static gdouble
rss_mib (void)
{
  unsigned long size = 0, res = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f) {
    if (fscanf (f, "%lu %lu", &size, &res) != 2)
      res = 0;
    fclose (f);
  }
  return res * (gdouble) sysconf (_SC_PAGESIZE) / MIB;
}

static gdouble
device_mib (void)
{
  size_t free_b = 0, total_b = 0;

  if (!use_device || cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    return -1;
  return (total_b - free_b) / MIB;
}

static void
fmt_mib (gchar * buf, gsize len, gdouble v)
{
  if (v < 0)
    g_strlcpy (buf, "-", len);
  else
    g_snprintf (buf, len, "%.1f", v);
}

static void
take_sample (void)
{
  Sample *s;
  gchar dev[32];

  if (n_samples == MAX_SAMPLES)
    return;
  s = &samples[n_samples++];
  s->t = (g_get_monotonic_time () - t0) / 1e6;
  s->frames = frames_out ();
  s->rss = rss_mib ();
  s->dev = device_mib ();
  s->actions = n_actions;
  fmt_mib (dev, sizeof (dev), s->dev);
  g_print ("%8.1f s %10" G_GUINT64_FORMAT " frames %8.1f MiB rss %8s MiB dev "
      "%6" G_GUINT64_FORMAT " actions\n", s->t, s->frames, s->rss, dev,
      s->actions);
  if (csv) {
    fprintf (csv, "%.1f,%" G_GUINT64_FORMAT ",%.1f,%s,%" G_GUINT64_FORMAT
        "\n", s->t, s->frames, s->rss, dev, s->actions);
    fflush (csv);
  }
}

static void
fail_hang (const gchar * what)
{
  hang_msg = what;
  g_main_loop_quit (loop);
}

static gboolean
on_sample (gpointer data)
{
  if (draining)
    return G_SOURCE_CONTINUE;
  take_sample ();
  if (samples[n_samples - 1].frames == last_frames && !paused && !draining) {
    stall_s += (guint64) opt_sample;
    g_print ("soak: no frames for %" G_GUINT64_FORMAT " s\n", stall_s);
    if (stall_s >= (guint64) opt_stall)
      fail_hang ("no frames out");
  } else {
    stall_s = 0;
  }
  last_frames = samples[n_samples - 1].frames;
  return G_SOURCE_CONTINUE;
}

static gboolean
on_resume (gpointer data)
{
  src_resume = 0;
  paused = FALSE;
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_print ("soak: PLAYING after the pause failed\n");
  return G_SOURCE_REMOVE;
}

static void
set_caps (guint k)
{
  gint w = k & 1 ? (opt_width / 2) & ~1 : opt_width;
  gint h = k & 1 ? (opt_height / 2) & ~1 : opt_height;
  const gchar *fmt = k & 2 ? "NV12" : "RGBA";
  GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
      G_TYPE_STRING, fmt, "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
      NULL);

  g_object_set (capsf, "caps", caps, NULL);
  gst_caps_unref (caps);
  if (opt_verbose)
    g_print ("  caps %s %dx%d\n", fmt, w, h);
}

/* The k-th property change.  chunks and streams are mutable in READY only:
 * the element keeps them for its next rebuild (a renegotiation); with
 * --playing-only, or if one is not writable, the change is skipped. */
static const struct
{
  const gchar *name, *vals[9];
} props[] = {
  {"operation", {"gamma", "box-blur", "invert"}},
  {"gamma", {"0.45", "2.2", "1.0", "0.8", "1.8"}},
  {"radius", {"1", "2", "3", "4", "5", "6", "7", "8"}},
  {"chunks", {"1", "2", "4"}},
  {"streams", {"2", "4"}},
};

static void
change_property (guint64 k)
{
  const gchar *name = props[k % G_N_ELEMENTS (props)].name;
  const gchar *const *vals = props[k % G_N_ELEMENTS (props)].vals;
  guint n = 0;
  const gchar *v;
  GParamSpec *ps;

  while (n < G_N_ELEMENTS (props[0].vals) && vals[n])
    n++;
  v = vals[(k / G_N_ELEMENTS (props)) % n];
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (filter), name);
  if (!ps || !(ps->flags & G_PARAM_WRITABLE) || (opt_playing_only &&
          !(ps->flags & GST_PARAM_MUTABLE_PLAYING))) {
    if (opt_verbose)
      g_print ("  prop %s skipped\n", name);
    return;
  }
  gst_util_set_object_arg (G_OBJECT (filter), name, v);
  if (opt_verbose)
    g_print ("  prop %s=%s%s\n", name, v,
        ps->flags & GST_PARAM_MUTABLE_PLAYING ? "" : " (next rebuild)");
}

static gboolean
on_action (gpointer data)
{
  static const guint order[7] = { ACT_SEEK, ACT_CAPS, ACT_PROP, ACT_SEEK,
    ACT_CAPS, ACT_PROP, ACT_PAUSE
  };
  guint a = order[step % 7];

  if (paused)                   /* the pause is still on: wait for it */
    return G_SOURCE_CONTINUE;
  switch (a) {
    case ACT_SEEK:
      if (opt_verbose)
        g_print ("  seek to 0\n");
      if (!gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_KEY_UNIT, 0))
        g_print ("soak: seek refused\n");
      break;
    case ACT_CAPS:
      set_caps ((guint) (1 + n_act[ACT_CAPS]));
      break;
    case ACT_PROP:
      change_property (n_act[ACT_PROP]);
      break;
    case ACT_PAUSE:
      if (opt_verbose)
        g_print ("  pause\n");
      paused = TRUE;
      gst_element_set_state (pipeline, GST_STATE_PAUSED);
      src_resume = g_timeout_add (300, on_resume, NULL);
      break;
  }
  GST_INFO ("action %" G_GUINT64_FORMAT ": %s", n_actions, act_names[a]);
  n_act[a]++;
  n_actions++;
  step++;
  return G_SOURCE_CONTINUE;
}

static gboolean
on_eos_timeout (gpointer data)
{
  fail_hang ("EOS did not arrive");
  return G_SOURCE_REMOVE;
}

static gboolean
on_deadline (gpointer data)
{
  src_deadline = 0;
  g_source_remove (src_action);
  src_action = 0;
  if (src_resume) {
    g_source_remove (src_resume);
    on_resume (NULL);
  }
  if (n_samples == 0 || (g_get_monotonic_time () - t0) / 1e6 >
      samples[n_samples - 1].t + 1)
    take_sample ();             /* the end point, unless one was just taken */
  draining = TRUE;
  gst_element_send_event (pipeline, gst_event_new_eos ());
  g_timeout_add_seconds (opt_eos_timeout, on_eos_timeout, NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
on_bus (GstBus * bus, GstMessage * msg, gpointer data)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &dbg);
      error_msg = g_strdup_printf ("%s: %s (%s)", GST_MESSAGE_SRC_NAME (msg),
          err->message, dbg ? dbg : "");
      g_main_loop_quit (loop);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &dbg);
      g_print ("soak: warning from %s: %s (%s)\n", GST_MESSAGE_SRC_NAME (msg),
          err->message, dbg ? dbg : "");
      n_warnings++;
      break;
    case GST_MESSAGE_EOS:
      if (draining)
        g_main_loop_quit (loop);
      else
        g_print ("soak: EOS before the deadline\n");
      break;
    default:
      break;
  }
  g_clear_error (&err);
  g_free (dbg);
  return G_SOURCE_CONTINUE;
}

static void
on_alarm (int sig)
{
  static const char m[] = "soak: HANG the run is overdue (watchdog)\n";

  if (write (STDOUT_FILENO, m, sizeof (m) - 1) < 0)
    _exit (3);
  _exit (3);
}

static const GOptionEntry entries[] = {
  {"seconds", 0, 0, G_OPTION_ARG_INT, &opt_seconds, "Duration (300)", "S"},
  {"period", 0, 0, G_OPTION_ARG_DOUBLE, &opt_period, "Between actions (3)",
      "S"},
  {"sample", 0, 0, G_OPTION_ARG_DOUBLE, &opt_sample, "Between samples (10)",
      "S"},
  {"warmup", 0, 0, G_OPTION_ARG_DOUBLE, &opt_warmup,
      "Baseline sample at or after this (30)", "S"},
  {"backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend, "auto|cuda|cpu", "B"},
  {"width", 0, 0, G_OPTION_ARG_INT, &opt_width, "Width (3840)", "W"},
  {"height", 0, 0, G_OPTION_ARG_INT, &opt_height, "Height (2160)", "H"},
  {"pattern", 0, 0, G_OPTION_ARG_STRING, &opt_pattern, "snow|ball", "P"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt_csv, "Write the samples", "FILE"},
  {"eos-timeout", 0, 0, G_OPTION_ARG_INT, &opt_eos_timeout,
      "Longest wait for EOS (30)", "S"},
  {"stall", 0, 0, G_OPTION_ARG_INT, &opt_stall,
      "No frames for this long is a hang (30)", "S"},
  {"playing-only", 0, 0, G_OPTION_ARG_NONE, &opt_playing_only,
      "Change only properties mutable in PLAYING", NULL},
  {"verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose, "Print each action",
      NULL},
  {NULL}
};

/* Floor and ceiling of the samples [a, b). */
static void
window (guint a, guint b, gdouble * rss_lo, gdouble * rss_hi,
    gdouble * dev_lo, gdouble * dev_hi)
{
  guint i;

  *rss_lo = *dev_lo = G_MAXDOUBLE;
  *rss_hi = *dev_hi = -1;
  for (i = a; i < b; i++) {
    *rss_lo = MIN (*rss_lo, samples[i].rss);
    *rss_hi = MAX (*rss_hi, samples[i].rss);
    *dev_lo = MIN (*dev_lo, samples[i].dev);
    *dev_hi = MAX (*dev_hi, samples[i].dev);
  }
}

static gboolean
rose (gdouble before, gdouble after, gdouble rel, gdouble abs_mib)
{
  return after - before >= rel * before + abs_mib;
}

/* First half against second half of the samples after the warm-up. */
static gboolean
verdict (void)
{
  gdouble r1, R1, d1, D1, r2, R2, d2, D2;
  guint base = 0, half;

  while (base < n_samples && samples[base].t < opt_warmup - 0.5)
    base++;
  if (n_samples - base < 4) {
    g_print ("soak: fewer than four samples after the warm-up, no "
        "comparison\n");
    return FALSE;
  }
  half = base + (n_samples - base) / 2;
  window (base, half, &r1, &R1, &d1, &D1);
  window (half, n_samples, &r2, &R2, &d2, &D2);
  g_print ("soak: rss floor/ceiling %.1f/%.1f MiB in %.0f-%.0f s, %.1f/%.1f "
      "MiB in %.0f-%.0f s\n", r1, R1, samples[base].t, samples[half - 1].t,
      r2, R2, samples[half].t, samples[n_samples - 1].t);
  if (d1 < 0) {
    g_print ("soak: device -\n");
    return rose (r1, r2, 0.05, 20);
  }
  g_print ("soak: device floor/ceiling %.1f/%.1f MiB, then %.1f/%.1f MiB\n",
      d1, D1, d2, D2);
  return rose (r1, r2, 0.05, 20) || rose (d1, d2, 0, 64);
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- soak cudavideofilter");
  GError *err = NULL;
  GstPad *pad;
  GstBus *bus;
  gchar *desc;
  gint ndev = 0;
  guint k;
  gboolean grew;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 4;
  }
  g_option_context_free (ctx);
  if (opt_period <= 0 || opt_sample <= 0 || opt_seconds <= 0) {
    g_printerr ("--seconds, --period and --sample must be > 0\n");
    return 4;
  }
  GST_DEBUG_CATEGORY_INIT (soak_debug, "cudaoverlapsoak", 0, "soak tool");
  use_device = strcmp (opt_backend, "cpu") != 0 &&
      cudaGetDeviceCount (&ndev) == cudaSuccess && ndev > 0;
  if (opt_csv && !(csv = fopen (opt_csv, "w"))) {
    g_printerr ("cannot write %s\n", opt_csv);
    return 4;
  }
  if (csv)
    fprintf (csv, "seconds,frames,rss_mib,device_mib,actions\n");

  desc = g_strdup_printf ("videotestsrc pattern=%s is-live=false ! "
      "capsfilter name=cf ! cudavideofilter name=f backend=%s ! "
      "fakesink name=sink sync=false", opt_pattern, opt_backend);
  pipeline = gst_parse_launch (desc, &err);
  if (err) {                    /* a missing element: no partial pipelines */
    g_print ("soak: ERROR %s\n", err->message);
    return 2;
  }
  g_print ("soak: %s, %dx%d, %d s, action every %.1f s\n", desc, opt_width,
      opt_height, opt_seconds, opt_period);
  g_free (desc);
  capsf = gst_bin_get_by_name (GST_BIN (pipeline), "cf");
  filter = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  set_caps (0);
  {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

    pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_BUFFER_LIST, count_probe, NULL, NULL);
    gst_object_unref (pad);
    gst_object_unref (sink);
  }
  samples = g_new0 (Sample, MAX_SAMPLES);
  loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_bus, NULL);

  signal (SIGALRM, on_alarm);
  alarm (opt_seconds + 2 * opt_eos_timeout + 30);
  t0 = g_get_monotonic_time ();
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    g_print ("soak: PLAYING failed\n");
  src_action = g_timeout_add ((guint) (opt_period * 1000), on_action, NULL);
  src_sample = g_timeout_add ((guint) (opt_sample * 1000), on_sample, NULL);
  src_deadline = g_timeout_add (opt_seconds * 1000, on_deadline, NULL);
  g_main_loop_run (loop);

  g_source_remove (src_sample);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  alarm (0);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);

  g_print ("soak: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
      " actions (", frames_out (), n_actions);
  for (k = 0; k < N_ACT; k++)
    g_print ("%s%s %" G_GUINT64_FORMAT, k ? ", " : "", act_names[k], n_act[k]);
  g_print ("), %" G_GUINT64_FORMAT " warnings\n", n_warnings);
  grew = verdict ();
  gst_object_unref (capsf);
  gst_object_unref (filter);
  gst_object_unref (pipeline);
  if (csv)
    fclose (csv);
  if (error_msg) {
    g_print ("soak: ERROR %s\n", error_msg);
    return 2;
  }
  if (hang_msg) {
    g_print ("soak: HANG %s\n", hang_msg);
    return 3;
  }
  g_print ("soak: %s\n", grew ? "GROWTH" : "flat");
  return grew ? 1 : 0;
}
