/* cudaoverlap-check: the input rings (random frames and audio, each
 * wrapped once; the page-locked copy) and one pipeline run: the element
 * between appsrc and appsink, its statistics and passport, CUPTI beside
 * it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "check.h"

/* ---- shared state -------------------------------------------------------- */

HostRing vring, aring;
static HostRing pring;          /* --memory cuda-in: vring's frames again,
                                 * in cudaHostAlloc()ed memory */
GstVideoInfo vinfo;
GstCaps *vcaps, *acaps;
GstClockTime vdur, adur;
gboolean have_cuda;
gchar *cuda_why;

const gchar *verdict_names[] = { "n/a", "info", "PASS", "FAIL" };

GArray *summary;                /* SumRow */
gboolean failed_check;          /* an output check or a run failed */
gboolean failed_perf;           /* a performance verdict failed */

void
G_GNUC_PRINTF (4, 5)
sum_add (gint verdict, const gchar * check, const gchar * threshold,
    const gchar * fmt, ...)
{
  SumRow r = { {0}, };
  va_list ap;

  g_strlcpy (r.check, check, sizeof (r.check));
  g_strlcpy (r.threshold, threshold, sizeof (r.threshold));
  va_start (ap, fmt);
  g_vsnprintf (r.value, sizeof (r.value), fmt, ap);
  va_end (ap);
  r.verdict = verdict;
  g_array_append_val (summary, r);
}

static guint64
now_ns (void)
{
  return (guint64) g_get_monotonic_time () * 1000;
}

/* xorshift64*: the same numbers on every machine */
static guint64
rng_next (guint64 * s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d);
}

static gdouble
rng_unit (guint64 * s)
{
  return (rng_next (s) >> 11) * (1.0 / 9007199254740992.0);
}

void
host_ring_init (HostRing * r, gsize size, gboolean floats, guint64 seed)
{
  guint i;
  gsize k;

  r->size = size;
  for (i = 0; i < RING; i++) {
    guint64 s = seed ^ (G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) * (i + 1));

    r->data[i] = malloc (size);
    if (!r->data[i])
      g_error ("out of memory (%" G_GSIZE_FORMAT " bytes)", size);
    if (floats) {
      gfloat *f = (gfloat *) r->data[i];

      for (k = 0; k < size / sizeof (gfloat); k++)
        f[k] = (gfloat) (2.0 * rng_unit (&s) - 1.0);
    } else {
      for (k = 0; k + 8 <= size; k += 8) {
        guint64 w = rng_next (&s);

        memcpy (r->data[i] + k, &w, 8);
      }
      for (; k < size; k++)
        r->data[i][k] = (guint8) rng_next (&s);
    }
    r->mem[i] = gst_memory_new_wrapped (0, r->data[i], size, 0, size, NULL,
        NULL);
  }
}

void
host_ring_clear (HostRing * r)
{
  guint i;

  for (i = 0; i < RING; i++) {
    if (r->mem[i])
      gst_memory_unref (r->mem[i]);
    free (r->data[i]);
  }
  memset (r, 0, sizeof (*r));
}


/* vring's frames again in page-locked memory (cudaHostAlloc, portable:
 * page-locked for every context, nvcodec's too), each wrapped once: the
 * page-locked input of --memory cuda-in.  FALSE with *why when
 * CUDA cannot allocate it. */
gboolean
pinned_ring_init (gchar ** why)
{
  guint i;

  if (pring.size)
    return TRUE;
  for (i = 0; i < RING; i++) {
    gchar msg[160];
    guint8 *p = tool_cuda_host_try_new (vring.size, cudaHostAllocPortable,
        vring.data[i], msg, sizeof (msg));

    if (!p) {
      *why = g_strdup (msg);
      break;
    }
    pring.data[i] = p;
    pring.mem[i] = gst_memory_new_wrapped (0, p, vring.size, 0, vring.size,
        NULL, NULL);
  }
  if (i < RING) {
    pinned_ring_clear ();
    return FALSE;
  }
  pring.size = vring.size;
  return TRUE;
}

void
pinned_ring_clear (void)
{
  guint i;

  for (i = 0; i < RING; i++) {
    if (pring.mem[i])
      gst_memory_unref (pring.mem[i]);
    tool_cuda_host_free (pring.data[i]);
  }
  memset (&pring, 0, sizeof (pring));
}

/* The value of the last KEY=VALUE of --props, NULL when it has none. */
const gchar *
props_get (const gchar * key)
{
  const gchar *v = NULL;
  gsize n = strlen (key);
  guint i;

  for (i = 0; props_argv && props_argv[i]; i++)
    if (!strncmp (props_argv[i], key, n) && props_argv[i][n] == '=')
      v = props_argv[i] + n + 1;
  return v;
}

/* --props sets operation=custom: a user's kernel instead of box blur */
gboolean
props_custom (void)
{
  return !g_strcmp0 (props_get ("operation"), "custom");
}

/* FIR taps, random with a fixed seed per count, about unit gain */
gdouble *
make_taps (guint n)
{
  gdouble *t = g_new (gdouble, n);
  guint64 s = SEED ^ (G_GUINT64_CONSTANT (0x2545f4914f6cdd1d) * n);
  guint i;

  for (i = 0; i < n; i++)
    t[i] = (2.0 * rng_unit (&s) - 1.0) / sqrt ((gdouble) n);
  return t;
}

/* ---- one pipeline run ---------------------------------------------------- */

typedef struct
{
  const RunSpec *sp;
  RunResult *res;
  GMutex lock;
  GCond cond;
  gboolean have_passport, eos, first_out;
  gboolean closing;             /* tearing down: no more stopper threads */
  gchar *error;
  guint8 *seen;
  guint stray;
  guint64 t_last;
  GstElement *pipeline;
  GThread *stopper;
} Run;

void
run_result_clear (RunResult * r)
{
  guint i;

  g_free (r->error);
  g_free (r->input_note);
  g_free (r->cupti_why);
  if (r->whole)
    gst_structure_free (r->whole);
  if (r->passport)
    gst_structure_free (r->passport);
  for (i = 0; i < r->n_kept; i++)
    gst_clear_buffer (&r->kept[i]);
  g_free (r->kept);
  bench_cupti_detail_clear (&r->detail);
  memset (r, 0, sizeof (*r));
}

static gpointer
stop_pipeline (gpointer data)
{
  gst_element_set_state (GST_ELEMENT (data), GST_STATE_NULL);
  return NULL;
}

/* Every message is handled here, on the thread that posts it, and dropped.
 * An error stops the pipeline from a thread of its own, so that a push
 * blocked in appsrc returns. */
static GstBusSyncReply
on_bus (GstBus * bus, GstMessage * m, gpointer data)
{
  Run *r = data;
  const GstStructure *s = gst_message_get_structure (m);
  gboolean whole = FALSE;

  g_mutex_lock (&r->lock);
  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (m, &err, &dbg);
      if (!r->error) {
        r->error = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (m->src),
            err->message);
        fprintf (stderr, "[check] %s: error from %s: %s\n%s\n", r->sp->name,
            GST_OBJECT_NAME (m->src), err->message, dbg ? dbg : "");
        if (!r->closing)
          r->stopper = g_thread_new ("check-stop", stop_pipeline, r->pipeline);
      }
      g_clear_error (&err);
      g_free (dbg);
      break;
    }
    case GST_MESSAGE_EOS:
      r->eos = TRUE;
      break;
    case GST_MESSAGE_ELEMENT:
      if (s && gst_structure_has_name (s, "cudaoverlap-passport")) {
        if (r->res->passport)
          gst_structure_free (r->res->passport);
        r->res->passport = gst_structure_copy (s);
        r->have_passport = TRUE;
      } else if (s && gst_structure_has_name (s, "cudaoverlap-stats") &&
          gst_structure_get_boolean (s, "whole-run", &whole) && whole) {
        if (r->res->whole)
          gst_structure_free (r->res->whole);
        r->res->whole = gst_structure_copy (s);
      }
      break;
    default:
      break;
  }
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  return GST_BUS_DROP;
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer data)
{
  Run *r = data;
  guint64 t = now_ns ();
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  guint64 i;

  if (!sample)
    return GST_FLOW_FLUSHING;
  buf = gst_sample_get_buffer (sample);
  i = GST_BUFFER_OFFSET (buf);
  /* an element of nvcodec's that would not carry the offset over: the
   * index from the timestamp (i * duration) */
  if (i == GST_BUFFER_OFFSET_NONE && GST_BUFFER_PTS_IS_VALID (buf) &&
      !r->sp->audio && vdur > 0)
    i = (GST_BUFFER_PTS (buf) + vdur / 2) / vdur;
  g_mutex_lock (&r->lock);
  if (i >= r->sp->n || r->seen[i]) {
    r->stray++;
  } else {
    r->seen[i] = 1;
    r->first_out |= i == 0;
    r->res->got++;
    if (i < r->res->n_kept)
      r->res->kept[i] = gst_buffer_ref (buf);
  }
  r->t_last = t;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* Waits, with r->lock held, until *flag or an error, or the deadline. */
static gboolean
wait_flag (Run * r, const gboolean * flag, gint64 timeout_us,
    const gchar * what)
{
  gint64 deadline = g_get_monotonic_time () + timeout_us;

  while (!*flag && !r->error)
    if (!g_cond_wait_until (&r->cond, &r->lock, deadline))
      break;
  if (!*flag && !r->error) {
    r->error = g_strdup_printf ("timed out waiting for %s", what);
    r->stopper = g_thread_new ("check-stop", stop_pipeline, r->pipeline);
  }
  return *flag && !r->error;
}

/* Video input from the element's pool: the first pool of its answer to an
 * ALLOCATION query, reconfigured to RING buffers, activated; each buffer
 * acquired, filled once with a ring frame and held.  NULL when no pool is
 * proposed (CPU backend). */
static GstBufferPool *
video_pool_ring (GstElement * src, GstBuffer * held[RING], gchar ** error)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstQuery *q = gst_query_new_allocation (vcaps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint size = 0, min = 0, max = 0, i;
  gint p, y;

  if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  gst_query_unref (q);
  gst_object_unref (pad);
  if (!pool)
    return NULL;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, vcaps, MAX (size, vinfo.size),
      RING, RING);
  if (!gst_buffer_pool_set_config (pool, config) ||
      !gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup ("could not configure and activate the element's pool "
        "for " G_STRINGIFY (RING) " buffers");
    gst_object_unref (pool);
    return NULL;
  }
  for (i = 0; i < RING; i++) {
    GstBufferPoolAcquireParams params = {.flags =
          GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
    };
    GstVideoFrame vf;

    if (gst_buffer_pool_acquire_buffer (pool, &held[i], &params) !=
        GST_FLOW_OK || !gst_video_frame_map (&vf, &vinfo, held[i],
            GST_MAP_WRITE)) {
      *error = g_strdup_printf ("could not acquire and map buffer %u of the "
          "element's pool", i);
      break;
    }
    for (p = 0; p < (gint) GST_VIDEO_INFO_N_PLANES (&vinfo); p++) {
      guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
      gsize ds = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
      gsize ss = GST_VIDEO_INFO_PLANE_STRIDE (&vinfo, p);
      const guint8 *s = vring.data[i] + GST_VIDEO_INFO_PLANE_OFFSET (&vinfo,
          p);

      for (y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (&vinfo, p); y++)
        memcpy (d + y * ds, s + y * ss, MIN (ds, ss));
    }
    gst_video_frame_unmap (&vf);
  }
  return pool;
}

static void
set_taps (GstElement * filter, const gdouble * taps, guint n)
{
  GValue arr = G_VALUE_INIT;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, taps[i]);
    gst_value_array_append_and_take_value (&arr, &v);
  }
  g_object_set_property (G_OBJECT (filter), "taps", &arr);
  g_value_unset (&arr);
}

gboolean
run_pipeline (const RunSpec * sp, RunResult * res)
{
  Run r = { 0, };
  GstAppSinkCallbacks cb = { 0, };
  GstElement *src = NULL, *sink = NULL, *filter = NULL;
  GstBus *bus = NULL;
  GstBufferPool *pool = NULL;
  GstBuffer *held[RING] = { NULL, };
  HostRing *ring = sp->audio ? &aring : sp->app_pinned ? &pring : &vring;
  GstClockTime dur = sp->audio ? adur : vdur;
  GError *err = NULL;
  gchar *desc, *trace;
  const gchar *trace_dir;
  guint64 t_start = now_ns (), t_push1 = 0, t_push2 = 0;
  gboolean cupti_on = FALSE;
  GThread *stopper;
  guint i;

  memset (res, 0, sizeof (*res));
  r.sp = sp;
  r.res = res;
  r.seen = g_new0 (guint8, sp->n);
  res->n_kept = MIN (sp->keep, sp->n);
  res->kept = g_new0 (GstBuffer *, MAX (res->n_kept, 1));
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);

  /* CO_CHECK_TRACE_DIR=DIR: each run also writes its timeline to
   * DIR/trace-{video,audio}-{serial,overlap}-BACKEND.json (the timed run,
   * which comes last, is the one left). */
  trace_dir = g_getenv ("CO_CHECK_TRACE_DIR");
  if (trace_dir && g_mkdir_with_parents (trace_dir, 0755) != 0)
    g_printerr ("[check] cannot create %s: %s\n", trace_dir,
        g_strerror (errno));
  trace =
      trace_dir ? g_strdup_printf (" trace-file=%s/trace-%s%s%s-%s-%s.json",
      trace_dir, sp->audio ? "audio" : "video", sp->memory ? "-" : "",
      sp->memory ? sp->memory : "", sp->serial ? "serial" : "overlap",
      sp->backend) : g_strdup ("");
  if (sp->audio)
    desc = g_strdup_printf ("appsrc name=src ! cudaaudiofilter name=filter "
        "operation=fir mode=%s streams=%u chunks=%u backend=%s "
        "stats-interval=0%s ! appsink name=sink", sp->serial ? "serial" :
        "overlap", sp->streams, sp->chunks, sp->backend, trace);
  else
    /* --props last: they override what comes before (operation=custom) */
    desc = g_strdup_printf ("appsrc name=src ! %scudavideofilter name=filter "
        "operation=box-blur radius=%d mode=%s streams=%u chunks=%u "
        "backend=%s stats-interval=0%s %s ! %sappsink name=sink",
        !g_strcmp0 (sp->memory, "cuda-in") ? "cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! " : "", opt_radius,
        sp->serial ? "serial" : "overlap", sp->streams, sp->chunks,
        sp->backend, trace, opt_props ? opt_props : "",
        !g_strcmp0 (sp->memory, "cuda-in") ? "video/x-raw ! " :
        !g_strcmp0 (sp->memory, "cuda-out") ?
        "video/x-raw(memory:CUDAMemory) ! cudadownload ! video/x-raw ! " : "");
  g_free (trace);
  r.pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!r.pipeline) {
    r.error = g_strdup (err ? err->message : "gst_parse_launch failed");
    g_clear_error (&err);
    goto done;
  }
  src = gst_bin_get_by_name (GST_BIN (r.pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (r.pipeline), "sink");
  filter = gst_bin_get_by_name (GST_BIN (r.pipeline), "filter");
  if (sp->audio)
    set_taps (filter, sp->taps, sp->n_taps);
  g_object_set (src, "caps", sp->audio ? acaps : vcaps, "format",
      GST_FORMAT_TIME, "is-live", FALSE, "do-timestamp", FALSE, "block", TRUE,
      "max-bytes", (guint64) (2 * ring->size), "emit-signals", FALSE, NULL);
  g_object_set (sink, "sync", FALSE, "max-buffers", 2, "drop", FALSE,
      "enable-last-sample", FALSE, "emit-signals", FALSE, NULL);
  cb.new_sample = on_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, &r, NULL);
  bus = gst_element_get_bus (r.pipeline);
  gst_bus_set_sync_handler (bus, on_bus, &r, NULL);

  if (gst_element_set_state (r.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    g_mutex_lock (&r.lock);
    if (!r.error)
      r.error = g_strdup ("the pipeline did not start");
    g_mutex_unlock (&r.lock);
    goto done;
  }
  /* the caps reach the element before any buffer: its engine exists once
   * it has posted its passport */
  g_mutex_lock (&r.lock);
  wait_flag (&r, &r.have_passport, WAIT_START_US, "the element's passport");
  g_mutex_unlock (&r.lock);
  if (r.error)
    goto done;

  /* cuda-in: appsrc feeds cudaupload, the ring itself is the input */
  if (!sp->audio && g_strcmp0 (sp->memory, "cuda-in")) {
    gchar *why = NULL;

    pool = video_pool_ring (src, held, &why);
    if (why) {
      g_mutex_lock (&r.lock);
      if (!r.error)
        r.error = why;
      else
        g_free (why);
      g_mutex_unlock (&r.lock);
      goto done;
    }
  }
  if (pool)
    res->input_note = g_strdup_printf ("the element's page-locked pool "
        "(ALLOCATION query), %u buffers filled once, a gst_buffer_copy () "
        "per push", RING);
  else if (!g_strcmp0 (sp->memory, "cuda-in"))
    res->input_note = g_strdup_printf ("%u %s frames, each wrapped once in a "
        "GstMemory, a fresh GstBuffer per push, into cudaupload", RING,
        sp->app_pinned ? "cudaHostAlloc()ed (page-locked)" :
        "malloc()ed (pageable)");
  else
    res->input_note = g_strdup_printf ("%u malloc()ed %s, each wrapped once "
        "in a GstMemory, a fresh GstBuffer per push%s", RING,
        sp->audio ? "buffers" : "frames", sp->audio ? "" :
        " (no pool proposed: CPU backend)");

  if (sp->cupti) {
    const gchar *b = gst_structure_get_string (res->passport, "backend");
    gchar *why = NULL;

    if (g_strcmp0 (b, "cuda") != 0)
      res->cupti_why = g_strdup (have_cuda ? "skipped: backend cpu" :
          "skipped: no CUDA device");
    else if (!(cupti_on = bench_cupti_start (&why))) {
      res->cupti_why = g_strdup_printf ("skipped: %s", why);
      g_free (why);
    }
  }

  for (i = 0; i < sp->n; i++) {
    GstBuffer *b;

    if (pool) {
      b = gst_buffer_copy (held[i % RING]);
    } else {
      b = gst_buffer_new ();
      gst_buffer_append_memory (b, gst_memory_ref (ring->mem[i % RING]));
    }
    GST_BUFFER_PTS (b) = i * dur;
    GST_BUFFER_DURATION (b) = dur;
    GST_BUFFER_OFFSET (b) = i;
    GST_BUFFER_OFFSET_END (b) = i + 1;
    if (i == 0)
      t_push1 = now_ns ();
    if (i == 1)
      t_push2 = now_ns ();
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK)
      break;
    if (i == 0) {
      g_mutex_lock (&r.lock);
      wait_flag (&r, &r.first_out, WAIT_START_US, "the first output");
      g_mutex_unlock (&r.lock);
      if (r.error)
        break;
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  g_mutex_lock (&r.lock);
  wait_flag (&r, &r.eos, WAIT_END_US, "EOS");
  g_mutex_unlock (&r.lock);

done:
  if (cupti_on && !bench_cupti_stop_detail (&res->cupti, &res->cupti_records,
          &res->detail, &res->cupti_why))
    cupti_on = FALSE;
  res->cupti_ok = cupti_on;
  /* joined without the lock: the stopper's state change waits for the
   * streaming threads, which may be posting a message to on_bus (it takes
   * the lock) */
  g_mutex_lock (&r.lock);
  r.closing = TRUE;
  stopper = g_steal_pointer (&r.stopper);
  g_mutex_unlock (&r.lock);
  if (stopper)
    g_thread_join (stopper);
  if (r.pipeline)
    gst_element_set_state (r.pipeline, GST_STATE_NULL);
  for (i = 0; i < RING; i++)
    gst_clear_buffer (&held[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (bus) {
    gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
    gst_object_unref (bus);
  }
  gst_clear_object (&src);
  gst_clear_object (&sink);
  gst_clear_object (&filter);
  gst_clear_object (&r.pipeline);

  if (!r.error && res->got != sp->n)
    r.error = g_strdup_printf ("%u of %u outputs came out", res->got, sp->n);
  if (!r.error && r.stray)
    r.error = g_strdup_printf ("%u unexpected outputs", r.stray);
  if (!r.error && !res->whole)
    r.error = g_strdup ("no whole-run cudaoverlap-stats message at EOS");
  if (!r.error && sp->n >= 2 && r.t_last > t_push2) {
    res->wall_s = (r.t_last - t_push2) / 1e9;
    res->rate = (sp->n - 1) / res->wall_s;
  }
  if (!r.error && r.t_last > t_push1)
    res->rate_all = sp->n * 1e9 / (r.t_last - t_push1);
  res->elapsed_s = (now_ns () - t_start) / 1e9;
  res->error = r.error;
  res->ok = !r.error;
  fprintf (stderr, "[check] %s: %u buffers, %.2f s%s%s\n", sp->name, sp->n,
      res->elapsed_s, res->error ? ", FAILED: " : "",
      res->error ? res->error : "");
  g_free (r.seen);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
  return res->ok;
}
