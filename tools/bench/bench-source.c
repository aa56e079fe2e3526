/* cudaoverlap-bench-source: a custom kernel's start from its CUDA source
 * (kernel-source-file) against its start from the PTX module.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cudaoverlap-bench-source [--kernels DIR] [--source DIR] [--kernel sobel]
 *       [--width 3840] [--height 2160] [--frames 30] [--starts 7]
 *       [--backend cuda] [--cache DIR]
 *
 * The same pipeline, videotestsrc ! RGBA ! cudavideofilter operation=custom
 * ! fakesink, started three ways, each in a fresh pipeline of a process
 * whose CUDA context is already up (a warm-up pipeline with
 * operation=invert runs first):
 *   module   kernel-module=DIR/KERNEL.ptx (the reference);
 *   first    kernel-source-file=SOURCE/KERNEL.cu with an empty cache: NVRTC
 *            compiles (run in a child process of its own, so that the
 *            parent never opens NVRTC);
 *   cached   the same source, its code from the cache.
 * A start is the time from the PLAYING request to the first output buffer
 * at the sink.  Every output byte of every start is hashed (SHA-256 of the
 * frames in order): the sources' outputs must equal the module's.  It
 * prints one line per start and a summary: the medians of module and
 * cached starts over --starts alternating starts, their difference (the
 * target: cached adds at most 5 ms), the first start's kernel-compile-ms
 * from its passport, and whether NVRTC was mapped in this process after
 * the cached starts (it must not be).  Exit 0 when the outputs match, the
 * cached starts hit the cache and NVRTC was never loaded here; 1
 * otherwise.  docs/bench.md, "kernel-source starts".
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <glib/gstdio.h>
#include <gst/gst.h>

static gchar *opt_kernels = (gchar *) "build/examples/kernels";
static gchar *opt_source = (gchar *) "examples/kernels";
static gchar *opt_kernel = (gchar *) "sobel";
static gchar *opt_backend = (gchar *) "cuda";
static gchar *opt_cache;
static gchar *opt_phase;
static gint opt_width = 3840, opt_height = 2160, opt_frames = 30;
static gint opt_starts = 7;

typedef struct
{
  GChecksum *sum;
  gint64 t0, first;             /* monotonic µs */
  guint frames;
} Sink;

typedef struct
{
  gdouble start_ms;
  gchar *hash;
  gchar *cache;                 /* the passport's kernel-cache */
  gdouble compile_ms;
} Start;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Sink * s)
{
  GstMapInfo m;

  if (s->frames++ == 0)
    s->first = g_get_monotonic_time ();
  if (gst_buffer_map (buf, &m, GST_MAP_READ)) {
    g_checksum_update (s->sum, m.data, m.size);
    gst_buffer_unmap (buf, &m);
  }
}

static gchar *
pipeline_desc (const gchar * kernel_props)
{
  return g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball "
      "! video/x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 "
      "! cudavideofilter name=f backend=%s %s ! fakesink name=s "
      "signal-handoffs=true sync=false", opt_frames, opt_width, opt_height,
      opt_backend, kernel_props);
}

/* The passport's kernel-* fields of element "f" into @st. */
static void
read_passport (GstElement * p, Start * st)
{
  GstElement *f = gst_bin_get_by_name (GST_BIN (p), "f");
  GstStructure *pp = NULL;

  g_object_get (f, "passport", &pp, NULL);
  if (pp) {
    st->cache = g_strdup (gst_structure_get_string (pp, "kernel-cache"));
    gst_structure_get_double (pp, "kernel-compile-ms", &st->compile_ms);
    gst_structure_free (pp);
  }
  gst_object_unref (f);
}

/* One start of the pipeline with @kernel_props, run to EOS. */
static gboolean
run_start (const gchar * kernel_props, Start * st)
{
  gchar *desc = pipeline_desc (kernel_props);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sink;
  Sink s = { g_checksum_new (G_CHECKSUM_SHA256), 0, 0, 0 };
  GstMessage *msg;
  GstBus *bus;
  gboolean ok;

  g_free (desc);
  memset (st, 0, sizeof (*st));
  if (!p) {
    g_printerr ("%s\n", err ? err->message : "no pipeline");
    g_clear_error (&err);
    g_checksum_free (s.sum);
    return FALSE;
  }
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &s);
  bus = gst_element_get_bus (p);
  s.t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 300 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS &&
      s.frames == (guint) opt_frames;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("error: %s\n", err->message);
    g_clear_error (&err);
  }
  st->start_ms = s.frames ? (s.first - s.t0) / 1000.0 : -1;
  st->hash = g_strdup (g_checksum_get_string (s.sum));
  read_passport (p, st);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_checksum_free (s.sum);
  return ok;
}

/* The kernel's properties (the CPU library too: the CUDA backend ignores
 * it, the CPU backend runs it, for a check of this program without GPU). */
static gchar *
kernel_props (gboolean source)
{
  return g_strdup_printf ("operation=custom %s=%s/%s.%s kernel-name=co_%s "
      "kernel-halo=1 kernel-cpu-library=%s/libco-%s-cpu.so "
      "kernel-cpu-symbol=co_%s_cpu", source ? "kernel-source-file" :
      "kernel-module", source ? opt_source : opt_kernels, opt_kernel,
      source ? "cu" : "ptx", opt_kernel, opt_kernels, opt_kernel, opt_kernel);
}

static gchar *
module_props (void)
{
  return kernel_props (FALSE);
}

static gchar *
source_props (void)
{
  return kernel_props (TRUE);
}

static gboolean
nvrtc_mapped (void)
{
  gchar *maps = NULL;
  gboolean mapped = FALSE;

  if (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    mapped = strstr (maps, "libnvrtc") != NULL;
  g_free (maps);
  return mapped;
}

static void
print_start (const gchar * what, guint i, const Start * st)
{
  g_print ("%-7s %2u start %9.3f ms  kernel-cache %-8s kernel-compile-ms "
      "%9.3f  output %.16s\n", what, i, st->start_ms,
      st->cache ? st->cache : "", st->compile_ms, st->hash);
}

static void
start_clear (Start * st)
{
  g_free (st->hash);
  g_free (st->cache);
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Child process: the first start, with an empty cache. */
static int
phase_first (void)
{
  gchar *props = source_props ();
  Start st;
  gboolean ok = run_start (props, &st);

  /* one line the parent reads */
  g_print ("FIRST %s %s %.3f %.3f\n", ok ? "ok" : "failed", st.hash,
      st.compile_ms, st.start_ms);
  start_clear (&st);
  g_free (props);
  return ok ? 0 : 1;
}

/* The first start in a child process; FALSE when it failed. */
static gboolean
spawn_first (const gchar * self, gchar ** hash, gdouble * compile_ms,
    gdouble * start_ms)
{
  gchar *argv[20], *out = NULL, *line, w[4][80];
  gchar *dims[6];
  gint status = 1, n = 0, i;
  GError *err = NULL;

  dims[0] = g_strdup_printf ("--width=%d", opt_width);
  dims[1] = g_strdup_printf ("--height=%d", opt_height);
  dims[2] = g_strdup_printf ("--frames=%d", opt_frames);
  dims[3] = g_strdup_printf ("--kernels=%s", opt_kernels);
  dims[4] = g_strdup_printf ("--source=%s", opt_source);
  dims[5] = g_strdup_printf ("--kernel=%s", opt_kernel);
  argv[n++] = (gchar *) self;
  for (i = 0; i < 6; i++)
    argv[n++] = dims[i];
  argv[n++] = g_strdup_printf ("--backend=%s", opt_backend);
  argv[n++] = (gchar *) "--phase=first";
  argv[n] = NULL;
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL,
          NULL, &out, NULL, &status, &err))
    g_printerr ("%s\n", err->message);
  g_clear_error (&err);
  line = out ? strstr (out, "FIRST ") : NULL;
  *hash = NULL;
  if (line && sscanf (line, "FIRST %79s %79s %79s %79s", w[0], w[1], w[2],
          w[3]) == 4 && strcmp (w[0], "ok") == 0) {
    *hash = g_strdup (w[1]);
    *compile_ms = g_ascii_strtod (w[2], NULL);
    *start_ms = g_ascii_strtod (w[3], NULL);
  }
  for (i = 0; i < 6; i++)
    g_free (dims[i]);
  g_free (argv[7]);
  g_free (out);
  return *hash != NULL && g_spawn_check_wait_status (status, NULL);
}

/* Alternating module and cached starts; their medians and hashes. */
static gboolean
cached_starts (const gchar * first_hash, gdouble * m_med, gdouble * c_med)
{
  gchar *mp = module_props (), *sp = source_props (), *ref = NULL;
  gdouble *mt = g_new0 (gdouble, opt_starts), *ct = g_new0 (gdouble,
      opt_starts);
  gboolean ok = TRUE;
  gint i;

  for (i = 0; i < opt_starts; i++) {
    Start m, c;

    ok &= run_start (mp, &m);
    ok &= run_start (sp, &c);
    print_start ("module", i, &m);
    print_start ("cached", i, &c);
    if (!ref)
      ref = g_strdup (m.hash);
    ok &= g_strcmp0 (m.hash, ref) == 0 && g_strcmp0 (c.hash, ref) == 0;
    /* the CPU backend runs the CPU library: no cache */
    ok &= g_strcmp0 (c.cache, "hit") == 0 || g_strcmp0 (opt_backend,
        "cpu") == 0;
    mt[i] = m.start_ms;
    ct[i] = c.start_ms;
    start_clear (&m);
    start_clear (&c);
  }
  if (g_strcmp0 (first_hash, ref) != 0) {
    g_print ("the first (compiled) start's output differs from the "
        "module's\n");
    ok = FALSE;
  }
  *m_med = median (mt, opt_starts);
  *c_med = median (ct, opt_starts);
  g_free (mt);
  g_free (ct);
  g_free (ref);
  g_free (mp);
  g_free (sp);
  return ok;
}

static GOptionEntry entries[] = {
  {"kernels", 0, 0, G_OPTION_ARG_STRING, &opt_kernels,
      "the build's examples/kernels (the PTX modules)", "DIR"},
  {"source", 0, 0, G_OPTION_ARG_STRING, &opt_source,
      "the examples' sources (examples/kernels)", "DIR"},
  {"kernel", 0, 0, G_OPTION_ARG_STRING, &opt_kernel,
      "the example: sobel (default), invert", "NAME"},
  {"width", 0, 0, G_OPTION_ARG_INT, &opt_width, "frame width", "W"},
  {"height", 0, 0, G_OPTION_ARG_INT, &opt_height, "frame height", "H"},
  {"frames", 0, 0, G_OPTION_ARG_INT, &opt_frames, "frames per start", "N"},
  {"starts", 0, 0, G_OPTION_ARG_INT, &opt_starts,
      "module and cached starts each (medians)", "N"},
  {"backend", 0, 0, G_OPTION_ARG_STRING, &opt_backend, "cuda", "B"},
  {"cache", 0, 0, G_OPTION_ARG_STRING, &opt_cache,
      "the cache home (XDG_CACHE_HOME; default: a new temporary folder, "
        "removed at the end)", "DIR"},
  {"phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
      NULL},
  {NULL}
};

/* The warm-up: the CUDA context and the plugin, before any measure. */
static void
warm_up (void)
{
  Start st;

  if (!run_start ("operation=invert", &st))
    g_printerr ("the warm-up pipeline failed\n");
  start_clear (&st);
}

static void
remove_cache (const gchar * home)
{
  gchar *dir = g_build_filename (home, "cudaoverlap", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *p = g_build_filename (dir, n, NULL);

    g_remove (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_remove (dir);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- kernel-source starts");
  gchar *tmp = NULL, *first_hash = NULL;
  gdouble compile_ms = 0, first_ms = 0, m_med = 0, c_med = 0;
  GError *err = NULL;
  gboolean ok;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (g_strcmp0 (opt_phase, "first") == 0) {
    warm_up ();
    return phase_first ();
  }
  if (!opt_cache)
    opt_cache = tmp = g_dir_make_tmp ("co-bench-source-XXXXXX", NULL);
  /* the cache of this run, also for the child */
  g_setenv ("XDG_CACHE_HOME", opt_cache, TRUE);
  remove_cache (opt_cache);
  warm_up ();
  ok = spawn_first (argv[0], &first_hash, &compile_ms, &first_ms);
  g_print ("first   start %9.3f ms  kernel-compile-ms %9.3f (NVRTC, in a "
      "child process)\n", first_ms, compile_ms);
  ok &= cached_starts (first_hash, &m_med, &c_med);
  g_print ("%s %dx%d RGBA, %d frames, %d starts each: module median %.3f "
      "ms, cached median %.3f ms, cached - module %+.3f ms (target <= 5); "
      "first start compile %.3f ms; outputs %s; NVRTC loaded here: %s\n",
      opt_kernel, opt_width, opt_height, opt_frames, opt_starts, m_med,
      c_med, c_med - m_med, compile_ms, ok ? "equal" : "DIFFER or failed",
      nvrtc_mapped ()? "YES" : "no");
  ok &= !nvrtc_mapped ();
  if (tmp) {
    remove_cache (tmp);
    g_rmdir (tmp);
  }
  g_free (first_hash);
  return ok ? 0 : 1;
}
