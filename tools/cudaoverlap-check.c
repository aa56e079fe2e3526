/* cudaoverlap-check: the measurements that issues 3 and 4 are judged by.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   cudaoverlap-check --video [--width 3840 --height 2160 --radius 32
 *       --frames 300 --streams 4 --chunks 4]
 *   cudaoverlap-check --audio [--taps 255 --samples 1048576 --channels 2
 *       --buffers 200 --cpu-buffers N --cupti]
 *   cudaoverlap-check --taps-sweep [--samples ... --channels ... --buffers]
 *   common: [--backend auto|cuda|cpu]; the parts may be combined.
 *
 * --video (issue 3): for mode serial, then overlap, a warm-up pipeline of 20
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
 *   with those of the same 3 input frames through backend=cpu.
 * --audio (issue 4): F32LE interleaved, `samples` frames per channel per
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "bench-common.h"
#include "bench-cupti.h"

#define RING 8
#define VIDEO_WARMUP 20
#define AUDIO_WARMUP 10
#define VIDEO_KEEP 3
#define AUDIO_KEEP 2
#define AUDIO_RATE 48000
#define AUDIO_MAX_REL_L2 1e-5
#define CUPTI_TOL 0.10
#define EFF_ABS_FLOOR 0.01
#define SERIAL_EFF_MAX 0.05
#define OVERLAP_EFF_MIN 0.8
#define AUDIO_SPEEDUP_MIN 1.4
#define WAIT_START_US (60 * G_USEC_PER_SEC)
#define WAIT_END_US (600 * G_USEC_PER_SEC)
#define SEED G_GUINT64_CONSTANT (0x5eed)

static const guint sweep_taps[] = { 15, 31, 63, 127, 255, 511, 1023, 2047,
  4095
};

/* ---- options ------------------------------------------------------------ */

static gboolean opt_video, opt_audio, opt_sweep, opt_cupti;
static gint opt_width = 3840, opt_height = 2160, opt_radius = 32;
static gint opt_frames = 300, opt_streams = 4, opt_chunks = 4;
static gint opt_taps = 255, opt_samples = 1048576, opt_channels = 2;
static gint opt_buffers = 200, opt_cpu_buffers = -1;
static gchar *opt_backend;

/* ---- shared state --------------------------------------------------------- */

typedef struct
{
  gsize size;
  guint8 *data[RING];           /* malloc()ed, random */
  GstMemory *mem[RING];         /* each wrapped once, for the whole program */
} HostRing;

static HostRing vring, aring;
static GstVideoInfo vinfo;
static GstCaps *vcaps, *acaps;
static GstClockTime vdur, adur;
static gboolean have_cuda;
static gchar *cuda_why;

enum
{
  V_NA, V_INFO, V_PASS, V_FAIL
};
static const gchar *verdict_names[] = { "n/a", "info", "PASS", "FAIL" };

typedef struct
{
  gchar check[80];
  gchar value[112];
  gchar threshold[40];
  gint verdict;
} SumRow;

static GArray *summary;         /* SumRow */
static gboolean failed_check;   /* an output check or a run failed */
static gboolean failed_perf;    /* a performance verdict failed */

static void
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

static void
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

static void
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

/* FIR taps, random with a fixed seed per count, about unit gain */
static gdouble *
make_taps (guint n)
{
  gdouble *t = g_new (gdouble, n);
  guint64 s = SEED ^ (G_GUINT64_CONSTANT (0x2545f4914f6cdd1d) * n);
  guint i;

  for (i = 0; i < n; i++)
    t[i] = (2.0 * rng_unit (&s) - 1.0) / sqrt ((gdouble) n);
  return t;
}

/* ---- one pipeline run ----------------------------------------------------- */

typedef struct
{
  const gchar *name;            /* for messages: "video overlap timed" */
  gboolean audio;
  gboolean serial;
  const gchar *backend;
  guint streams, chunks;
  guint n;                      /* buffers pushed, the first one included */
  guint keep;                   /* refs kept to the first outputs */
  gboolean cupti;               /* record with CUPTI when on CUDA */
  guint n_taps;                 /* audio */
  const gdouble *taps;
} RunSpec;

typedef struct
{
  gboolean ok;
  gchar *error;
  GstStructure *whole;          /* the whole-run cudaoverlap-stats */
  GstStructure *passport;       /* the latest cudaoverlap-passport */
  gchar *input_note;
  guint got;
  gdouble wall_s;               /* push of buffer 2 to the last output */
  gdouble rate;                 /* buffers 2..n per second of wall_s */
  gdouble rate_all;             /* all n, first push to the last output */
  gdouble elapsed_s;            /* the whole run, set-up included */
  GstBuffer **kept;
  guint n_kept;
  gboolean cupti_ok;
  gchar *cupti_why;
  CoStatsSummary cupti;
  guint64 cupti_records;
} RunResult;

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

static void
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

static gboolean
run_pipeline (const RunSpec * sp, RunResult * res)
{
  Run r = { 0, };
  GstAppSinkCallbacks cb = { 0, };
  GstElement *src = NULL, *sink = NULL, *filter = NULL;
  GstBus *bus = NULL;
  GstBufferPool *pool = NULL;
  GstBuffer *held[RING] = { NULL, };
  HostRing *ring = sp->audio ? &aring : &vring;
  GstClockTime dur = sp->audio ? adur : vdur;
  GError *err = NULL;
  gchar *desc, *trace;
  const gchar *trace_dir;
  guint64 t_start = now_ns (), t_push1 = 0, t_push2 = 0;
  gboolean cupti_on = FALSE;
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
      trace_dir ? g_strdup_printf (" trace-file=%s/trace-%s-%s-%s.json",
      trace_dir, sp->audio ? "audio" : "video",
      sp->serial ? "serial" : "overlap", sp->backend) : g_strdup ("");
  if (sp->audio)
    desc = g_strdup_printf ("appsrc name=src ! cudaaudiofilter name=filter "
        "operation=fir mode=%s streams=%u chunks=%u backend=%s "
        "stats-interval=0%s ! appsink name=sink", sp->serial ? "serial" :
        "overlap", sp->streams, sp->chunks, sp->backend, trace);
  else
    desc = g_strdup_printf ("appsrc name=src ! cudavideofilter name=filter "
        "operation=box-blur radius=%d mode=%s streams=%u chunks=%u "
        "backend=%s stats-interval=0%s ! appsink name=sink", opt_radius,
        sp->serial ? "serial" : "overlap", sp->streams, sp->chunks,
        sp->backend, trace);
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

  if (!sp->audio) {
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
  if (cupti_on && !bench_cupti_stop (&res->cupti, &res->cupti_records,
          &res->cupti_why))
    cupti_on = FALSE;
  res->cupti_ok = cupti_on;
  g_mutex_lock (&r.lock);
  r.closing = TRUE;
  if (r.stopper)
    g_thread_join (g_steal_pointer (&r.stopper));
  g_mutex_unlock (&r.lock);
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

/* ---- reporting helpers ---------------------------------------------------- */

static gdouble
stat_dbl (const GstStructure * s, const gchar * f)
{
  gdouble v = 0;

  if (s)
    gst_structure_get_double (s, f, &v);
  return v;
}

static const gchar *
stat_str (const GstStructure * s, const gchar * f)
{
  const gchar *v = s ? gst_structure_get_string (s, f) : NULL;

  return v ? v : "?";
}

static void
print_run_line (const RunResult * r)
{
  const GstStructure *s = r->whole;
  guint u = 0;

  printf ("- element: backend %s, mode %s, streams %u x chunks %u",
      stat_str (s, "backend"), stat_str (s, "mode"),
      (gst_structure_get_uint (s, "streams", &u), u),
      (gst_structure_get_uint (s, "chunks", &u), u));
  if (r->passport && gst_structure_get_uint (r->passport, "max-in-flight", &u))
    printf (", max in flight %u", u);
  printf ("\n- input: %s; the element counted frames pinned %" G_GUINT64_FORMAT
      ", registered %" G_GUINT64_FORMAT ", pageable %" G_GUINT64_FORMAT "\n",
      r->input_note, bench_stat_u64 (s, "frames-pinned"),
      bench_stat_u64 (s, "frames-registered"), bench_stat_u64 (s,
          "frames-pageable"));
}

/* Element (events) beside CUPTI; the busy times and the efficiency must
 * agree within CUPTI_TOL.  Returns the verdict (V_PASS / V_FAIL / V_NA)
 * and the largest relative difference in *worst. */
static gint
print_cupti_table (const RunResult * r, gchar * worst, gsize worst_size)
{
  static const struct
  {
    const gchar *field;
    gboolean judged;
  } rows[] = {
    {"h2d-ns", TRUE}, {"kernel-ns", TRUE}, {"d2h-ns", TRUE},
    {"gpu-busy-ns", TRUE}, {"serial-ns", FALSE},
    {"overlap-efficiency", TRUE}, {"copy-compute-overlap-ns", FALSE},
  };
  const GstStructure *s = r->whole;
  const CoStatsSummary *c = &r->cupti;
  gdouble worst_rel = -1;
  gboolean fail = FALSE;
  guint i;

  printf ("\n| field | element (events) | CUPTI | relative difference |\n"
      "|---|--:|--:|--:|\n");
  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    const gchar *f = rows[i].field;
    gboolean eff = !strcmp (f, "overlap-efficiency");
    gdouble e, k = 0, rel = NAN, tol;
    gchar ev[48], cv[48], dv[64];

    if (eff) {
      e = stat_dbl (s, f);
      g_snprintf (ev, sizeof (ev), "%.4f", e);
    } else {
      e = bench_stat_u64 (s, f);
      g_snprintf (ev, sizeof (ev), "%" G_GUINT64_FORMAT, bench_stat_u64 (s, f));
    }
    if (!r->cupti_ok) {
      g_strlcpy (cv, "-", sizeof (cv));
      g_strlcpy (dv, "-", sizeof (dv));
    } else {
      if (!strcmp (f, "h2d-ns"))
        k = c->h2d_ns;
      else if (!strcmp (f, "kernel-ns"))
        k = c->kernel_ns;
      else if (!strcmp (f, "d2h-ns"))
        k = c->d2h_ns;
      else if (!strcmp (f, "gpu-busy-ns"))
        k = c->gpu_busy_ns;
      else if (!strcmp (f, "serial-ns"))
        k = c->serial_ns;
      else if (eff)
        k = c->overlap_efficiency;
      else
        k = c->copy_compute_overlap_ns;
      if (eff)
        g_snprintf (cv, sizeof (cv), "%.4f", k);
      else
        g_snprintf (cv, sizeof (cv), "%.0f", k);
      if (k != 0)
        rel = (e - k) / k;
      if (eff) {
        /* near 0 a relative difference means nothing: a floor */
        tol = MAX (CUPTI_TOL * fabs (k), EFF_ABS_FLOOR);
        if (isnan (rel))
          g_snprintf (dv, sizeof (dv), "abs %+.4f (CUPTI 0)%s", e - k,
              fabs (e - k) <= tol ? "" : " **");
        else
          g_snprintf (dv, sizeof (dv), "%+.1f%% (abs %+.4f)%s", 100 * rel,
              e - k, fabs (e - k) <= tol ? "" : " **");
        if (rows[i].judged && fabs (e - k) > tol)
          fail = TRUE;
      } else {
        tol = CUPTI_TOL * fabs (k);
        if (isnan (rel))
          g_snprintf (dv, sizeof (dv), "n/a (CUPTI 0)%s", rows[i].judged &&
              e > 0 ? " **" : "");
        else
          g_snprintf (dv, sizeof (dv), "%+.1f%%%s%s", 100 * rel,
              rows[i].judged ? "" : " (not judged)",
              rows[i].judged && fabs (e - k) > tol ? " **" : "");
        if (rows[i].judged && fabs (e - k) > tol)
          fail = TRUE;
      }
      if (rows[i].judged && !isnan (rel) && fabs (rel) > worst_rel) {
        worst_rel = fabs (rel);
        g_snprintf (worst, worst_size, "largest %s %+.1f%%", f, 100 * rel);
      }
    }
    printf ("| %s | %s | %s | %s |\n", f, ev, cv, dv);
  }
  {
    gdouble fps = stat_dbl (s, "fps");
    guint64 frames = bench_stat_u64 (s, "frames");

    if (r->cupti_ok && c->window_ns > 0) {
      gdouble cf = frames * 1e9 / c->window_ns;

      printf ("| fps (frames / device window) | %.1f | %.1f | %+.1f%% (not "
          "judged) |\n", fps, cf, 100 * (fps - cf) / cf);
      printf ("| frames | %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT
          " records | - |\n", frames, r->cupti_records);
    } else {
      printf ("| fps (frames / device window) | %.1f | - | - |\n", fps);
      printf ("| frames | %" G_GUINT64_FORMAT " | - | - |\n", frames);
    }
  }
  if (!r->cupti_ok) {
    printf ("\nCUPTI: %s\n", r->cupti_why ? r->cupti_why :
        "skipped: not requested");
    return V_NA;
  }
  printf ("\nCUPTI: %" G_GUINT64_FORMAT " memcpy/kernel records from just "
      "before the first push to EOS, summed by co-stats like the element's "
      "(** = outside %.0f%%; efficiency: |difference| <= max (%.0f%% of "
      "CUPTI, %.2f)). CUPTI counts every H2D/D2H of the process in that "
      "time (audio: also the taps upload of the engine rebuild on the first "
      "buffer); the element counts its frames' copies.\n", r->cupti_records,
      100 * CUPTI_TOL, 100 * CUPTI_TOL, EFF_ABS_FLOOR);
  if (r->cupti_records == 0) {
    printf ("CUPTI delivered no record at all: nothing to compare with (was "
        "its activity recording attached to the element's context?)\n");
    g_strlcpy (worst, "CUPTI recorded nothing", worst_size);
    return V_FAIL;
  }
  if (worst_rel < 0)
    g_strlcpy (worst, "no comparable field", worst_size);
  return fail ? V_FAIL : V_PASS;
}

static gboolean
on_cuda (const RunResult * r)
{
  return r->whole && !g_strcmp0 (gst_structure_get_string (r->whole,
          "backend"), "cuda");
}

static void
note_verdict (gint v)
{
  if (v == V_FAIL)
    failed_perf = TRUE;
}

/* ---- video ---------------------------------------------------------------- */

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

static void
run_video (void)
{
  RunResult warm, timed[2], cpu;
  const GstStructure *passport = NULL;
  gchar *pp = NULL;
  guint m;

  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGBA, opt_width,
      opt_height);
  vinfo.fps_n = 60;
  vinfo.fps_d = 1;
  vdur = gst_util_uint64_scale_int (GST_SECOND, 1, 60);
  vcaps = gst_video_info_to_caps (&vinfo);
  fprintf (stderr, "[check] video: filling %u random %dx%d RGBA frames\n",
      RING, opt_width, opt_height);
  host_ring_init (&vring, vinfo.size, FALSE, SEED);

  printf ("\n## video: cudavideofilter operation=box-blur radius=%d, %dx%d "
      "RGBA (%" G_GSIZE_FORMAT " bytes), %d frames per timed run\n\n",
      opt_radius, opt_width, opt_height, vinfo.size, opt_frames);
  printf ("Per mode: a warm-up pipeline of %d frames, then the timed one "
      "(frame 1 pushed and waited for, then the others); stats-interval=0, "
      "appsink sync=false.\n", VIDEO_WARMUP);

  for (m = 0; m < 2; m++) {
    gboolean serial = m == 0;
    const gchar *mode = serial ? "serial" : "overlap";
    RunSpec w = { NULL, FALSE, serial, opt_backend,
      serial ? 1 : opt_streams, serial ? 1 : opt_chunks, VIDEO_WARMUP, 0,
      FALSE, 0, NULL
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
    {
      gdouble eff = stat_dbl (timed[m].whole, "overlap-efficiency");
      gboolean cuda = on_cuda (&timed[m]);
      gint ve = !cuda ? V_NA : serial ? (eff <= SERIAL_EFF_MAX ? V_PASS :
          V_FAIL) : (eff >= OVERLAP_EFF_MIN ? V_PASS : V_FAIL);
      gchar check[80];

      printf ("\nverdict: %s overlap-efficiency %.4f %s %.2f: %s%s\n", mode,
          eff, serial ? "<=" : ">=", serial ? SERIAL_EFF_MAX : OVERLAP_EFF_MIN,
          verdict_names[ve], cuda ? "" : " (CPU backend: no copies to "
          "overlap)");
      printf ("verdict: busy times and efficiency within %.0f%% of CUPTI: "
          "%s%s%s%s\n", 100 * CUPTI_TOL, verdict_names[v], *worst ? " (" :
          "", worst, *worst ? ")" : "");
      g_snprintf (check, sizeof (check), "video %s overlap-efficiency", mode);
      sum_add (ve, check, serial ? "<= 0.05" : ">= 0.8", "%.4f%s", eff,
          cuda ? "" : " (CPU backend)");
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
  printf ("\n### video outputs against the CPU backend\n\n");
  if (timed[1].ok) {
    RunSpec c = { "video cpu reference", FALSE, FALSE, "cpu", opt_streams,
      opt_chunks, MIN (VIDEO_KEEP, (guint) opt_frames), VIDEO_KEEP, FALSE, 0,
      NULL
    };
    guint same = 0, i;
    gchar msg[256] = "";

    if (run_pipeline (&c, &cpu)) {
      for (i = 0; i < cpu.n_kept; i++) {
        if (!timed[1].kept[i] || !cpu.kept[i]) {
          g_snprintf (msg, sizeof (msg), "frame %u: output missing", i);
          break;
        }
        if (!video_compare (timed[1].kept[i], cpu.kept[i], i, msg,
                sizeof (msg)))
          break;
        same++;
      }
      if (same == cpu.n_kept) {
        printf ("outputs identical to the CPU backend: %u/%u (the first %u "
            "frames of the timed overlap run, backend %s, every picture "
            "byte)\n", same, cpu.n_kept, cpu.n_kept,
            stat_str (timed[1].whole, "backend"));
        sum_add (V_PASS, "video outputs identical to the CPU backend",
            "all, byte for byte", "%u/%u", same, cpu.n_kept);
      } else {
        printf ("outputs DIFFER from the CPU backend: %u/%u identical; first "
            "difference: %s\n", same, cpu.n_kept, msg);
        sum_add (V_FAIL, "video outputs identical to the CPU backend",
            "all, byte for byte", "%u/%u; %s", same, cpu.n_kept, msg);
        failed_check = TRUE;
      }
    } else {
      printf ("the CPU backend run FAILED: %s\n", cpu.error);
      sum_add (V_FAIL, "video outputs identical to the CPU backend",
          "all, byte for byte", "CPU run failed: %s", cpu.error);
      failed_check = TRUE;
    }
    run_result_clear (&cpu);
  } else {
    printf ("not compared: the timed overlap run failed\n");
    sum_add (V_FAIL, "video outputs identical to the CPU backend",
        "all, byte for byte", "overlap run failed");
    failed_check = TRUE;
  }
  for (m = 0; m < 2; m++)
    run_result_clear (&timed[m]);
  host_ring_clear (&vring);
}

/* ---- audio ---------------------------------------------------------------- */

static void
audio_setup (void)
{
  if (acaps)
    return;
  acaps = gst_caps_new_simple ("audio/x-raw", "format", G_TYPE_STRING, "F32LE",
      "rate", G_TYPE_INT, AUDIO_RATE, "channels", G_TYPE_INT, opt_channels,
      "layout", G_TYPE_STRING, "interleaved", NULL);
  adur = gst_util_uint64_scale_int (opt_samples, GST_SECOND, AUDIO_RATE);
  fprintf (stderr, "[check] audio: filling %u random buffers of %d x %d "
      "F32 samples\n", RING, opt_samples, opt_channels);
  host_ring_init (&aring, (gsize) opt_samples * opt_channels * sizeof (gfloat),
      TRUE, SEED + 1);
}

/* Relative L2 error of @a against @ref (F32 samples); -1 when they cannot
 * be compared (sizes, mapping), INFINITY for non-finite values. */
static gdouble
audio_rel_l2 (GstBuffer * a, GstBuffer * ref, gchar * msg, gsize size)
{
  GstMapInfo ma, mr;
  gdouble num = 0, den = 0;
  gsize i, n;

  if (!gst_buffer_map (a, &ma, GST_MAP_READ)) {
    g_snprintf (msg, size, "could not map an output");
    return -1;
  }
  if (!gst_buffer_map (ref, &mr, GST_MAP_READ)) {
    gst_buffer_unmap (a, &ma);
    g_snprintf (msg, size, "could not map an output");
    return -1;
  }
  if (ma.size != mr.size) {
    g_snprintf (msg, size, "sizes differ: %" G_GSIZE_FORMAT " and %"
        G_GSIZE_FORMAT " bytes", ma.size, mr.size);
    gst_buffer_unmap (a, &ma);
    gst_buffer_unmap (ref, &mr);
    return -1;
  }
  n = ma.size / sizeof (gfloat);
  for (i = 0; i < n; i++) {
    gdouble x = ((const gfloat *) ma.data)[i];
    gdouble y = ((const gfloat *) mr.data)[i];

    num += (x - y) * (x - y);
    den += y * y;
  }
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (ref, &mr);
  if (!isfinite (num) || !isfinite (den))
    return INFINITY;
  return den > 0 ? sqrt (num / den) : (num > 0 ? INFINITY : 0);
}

static void
print_audio_row (const gchar * name, const RunResult * r, guint n)
{
  const GstStructure *s = r->whole;
  gdouble sps = r->rate * opt_samples;
  guint u = 0, c = 0;

  if (!r->ok) {
    printf ("| %s | - | - | %u | FAILED: %s | - | - | - | - | - | - | - |\n",
        name, n, r->error);
    return;
  }
  gst_structure_get_uint (s, "streams", &u);
  gst_structure_get_uint (s, "chunks", &c);
  printf ("| %s | %s | %ux%u | %u | %.4g | %.4g | %.2f | %.3f | %.3f | %.3f "
      "| %.4f "
      "| %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
      " |\n", name, stat_str (s, "backend"), u, c, n, sps,
      r->rate_all * opt_samples,
      2.0 * sps * opt_channels * sizeof (gfloat) / 1e9,
      bench_stat_u64 (s, "h2d-ns") / 1e6 / MAX (bench_stat_u64 (s, "frames"),
          1), bench_stat_u64 (s, "kernel-ns") / 1e6 / MAX (bench_stat_u64 (s,
              "frames"), 1), bench_stat_u64 (s,
          "d2h-ns") / 1e6 / MAX (bench_stat_u64 (s, "frames"), 1), stat_dbl (s,
          "overlap-efficiency"), bench_stat_u64 (s, "frames-pinned"),
      bench_stat_u64 (s, "frames-registered"), bench_stat_u64 (s,
          "frames-pageable"));
}

static void
run_audio (void)
{
  gdouble *taps = make_taps (opt_taps);
  RunResult warm, runs[3];
  static const gchar *names[3] = { "serial", "overlap", "cpu (overlap)" };
  gchar *pp = NULL;
  guint k, n_cpu;
  gdouble ratio = 0;

  audio_setup ();
  n_cpu = opt_cpu_buffers > 0 ? (guint) opt_cpu_buffers :
      (guint) MIN (opt_buffers, 40);
  printf ("\n## audio: cudaaudiofilter operation=fir, %d random taps (fixed "
      "seed), F32LE %d channels, %d samples per channel per buffer (%"
      G_GSIZE_FORMAT " bytes)\n\n", opt_taps, opt_channels, opt_samples,
      aring.size);
  printf ("Runs: serial and overlap (backend %s), each after a warm-up "
      "pipeline of %d buffers; backend=cpu overlap (%u buffers, no warm-up). "
      "Input: %s. samples/s: per channel, buffers 2..N over the wall time "
      "from the push of buffer 2 to the last output (buffer 1 was pushed and "
      "waited for: the element rebuilds its engine for buffers of more than "
      "1 MiB). Busy times: the element's whole-run statistics (all N "
      "buffers) / frames.\n", opt_backend, MIN (AUDIO_WARMUP, opt_buffers),
      n_cpu, "8 malloc()ed buffers, each wrapped once in a GstMemory (the "
      "CUDA backend registers them with cudaHostRegister once), a fresh "
      "GstBuffer per push");

  for (k = 0; k < 3; k++) {
    gboolean cpu = k == 2, serial = k == 0;
    RunSpec t = { NULL, TRUE, serial, cpu ? "cpu" : opt_backend,
      serial ? 1 : opt_streams, serial ? 1 : opt_chunks,
      cpu ? n_cpu : (guint) opt_buffers, serial ? 0 : AUDIO_KEEP,
      opt_cupti && !cpu, opt_taps, taps
    };
    gchar tn[48];

    if (!cpu) {
      RunSpec w = t;
      gchar wn[48];

      g_snprintf (wn, sizeof (wn), "audio %s warm-up", names[k]);
      w.name = wn;
      w.n = MIN (AUDIO_WARMUP, opt_buffers);
      w.keep = 0;
      w.cupti = FALSE;
      if (!run_pipeline (&w, &warm))
        failed_check = TRUE;
      if (!pp && warm.passport)
        pp = gst_structure_to_string (warm.passport);
      run_result_clear (&warm);
    }
    g_snprintf (tn, sizeof (tn), "audio %s timed", names[k]);
    t.name = tn;
    if (!run_pipeline (&t, &runs[k]))
      failed_check = TRUE;
    if (!pp && runs[k].passport)
      pp = gst_structure_to_string (runs[k].passport);
  }

  printf ("\n| run | backend | streams x chunks | buffers | samples/s | "
      "samples/s all N from the first push | GB/s in+out | h2d ms/buffer | "
      "kernel ms/buffer | d2h ms/buffer | overlap eff | frames "
      "pinned/registered/pageable |\n"
      "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  for (k = 0; k < 3; k++)
    print_audio_row (names[k], &runs[k], k == 2 ? n_cpu : (guint) opt_buffers);
  printf ("\n- audio passport (the first run's last one, i.e. after the "
      "rebuild for the buffer size): %s\n", pp ? pp : "none");
  g_free (pp);

  if (runs[0].ok && runs[1].ok && runs[0].rate > 0) {
    gboolean cuda = on_cuda (&runs[1]) && on_cuda (&runs[0]);
    gint v;

    ratio = runs[1].rate / runs[0].rate;
    v = !cuda ? V_NA : ratio >= AUDIO_SPEEDUP_MIN ? V_PASS : V_FAIL;
    printf ("\nverdict: overlap / serial samples/s = %.3f (>= %.1f): %s%s\n",
        ratio, AUDIO_SPEEDUP_MIN, verdict_names[v], cuda ? "" :
        " (CPU backend)");
    sum_add (v, "audio overlap / serial samples/s", ">= 1.4", "%.3f (%.4g / "
        "%.4g)%s", ratio, runs[1].rate * opt_samples,
        runs[0].rate * opt_samples, cuda ? "" : " (CPU backend)");
    note_verdict (v);
  } else {
    sum_add (V_FAIL, "audio overlap / serial samples/s", ">= 1.4",
        "a run failed");
  }
  if (runs[1].ok && runs[2].ok && runs[2].rate > 0) {
    printf ("overlap / cpu samples/s = %.3f\n", runs[1].rate / runs[2].rate);
    sum_add (V_INFO, "audio overlap / cpu-backend samples/s", "-", "%.3f",
        runs[1].rate / runs[2].rate);
  }

  if (opt_cupti) {
    for (k = 0; k < 2; k++) {
      gchar worst[96] = "", check[80];
      gint v;

      printf ("\n### audio %s: element against CUPTI\n", names[k]);
      if (!runs[k].ok) {
        printf ("RUN FAILED\n");
        continue;
      }
      v = print_cupti_table (&runs[k], worst, sizeof (worst));
      printf ("\nverdict: busy times and efficiency within %.0f%% of CUPTI: "
          "%s%s%s%s\n", 100 * CUPTI_TOL, verdict_names[v], *worst ? " (" :
          "", worst, *worst ? ")" : "");
      g_snprintf (check, sizeof (check), "audio %s: element vs CUPTI",
          names[k]);
      if (v == V_NA)
        sum_add (V_NA, check, "within 10%", "%s", runs[k].cupti_why ?
            runs[k].cupti_why : "skipped");
      else
        sum_add (v, check, "within 10%", "%s", worst);
      note_verdict (v);
    }
  }

  /* accuracy: the first outputs of the overlap run against the CPU ones */
  printf ("\n### audio outputs against the CPU backend\n\n");
  if (runs[1].ok && runs[2].ok) {
    guint n = MIN (runs[1].n_kept, runs[2].n_kept), i;
    gdouble worst = 0;
    gchar msg[160] = "";

    for (i = 0; i < n; i++) {
      gdouble e = audio_rel_l2 (runs[1].kept[i], runs[2].kept[i], msg,
          sizeof (msg));

      printf ("buffer %u: relative L2 error of the overlap run (backend %s) "
          "against the backend=cpu run: %.3g\n", i + 1,
          stat_str (runs[1].whole, "backend"), e);
      if (e < 0 || isnan (e)) {
        worst = INFINITY;
        printf ("  not comparable: %s\n", msg);
      } else {
        worst = MAX (worst, e);
      }
    }
    if (n > 0 && worst <= AUDIO_MAX_REL_L2) {
      printf ("outputs match the CPU backend: %u/%u buffers, relative L2 "
          "error <= %.0e (largest %.3g)\n", n, n, AUDIO_MAX_REL_L2, worst);
      sum_add (V_PASS, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
          "%.3g over %u buffers", worst, n);
    } else {
      printf ("outputs DIFFER from the CPU backend: largest relative L2 "
          "error %.3g > %.0e\n", worst, AUDIO_MAX_REL_L2);
      sum_add (V_FAIL, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
          "%.3g over %u buffers", worst, n);
      failed_check = TRUE;
    }
  } else {
    printf ("not compared: a run failed\n");
    sum_add (V_FAIL, "audio outputs vs CPU backend (rel. L2)", "<= 1e-5",
        "a run failed");
    failed_check = TRUE;
  }
  for (k = 0; k < 3; k++) {
    if (!runs[k].ok)
      sum_add (V_FAIL, k == 0 ? "audio serial run" : k == 1 ?
          "audio overlap run" : "audio cpu-backend run", "-", "failed: %s",
          runs[k].error);
    run_result_clear (&runs[k]);
  }
  g_free (taps);
}

/* ---- taps sweep ----------------------------------------------------------- */

/* Where kernel time per buffer crosses copy time per buffer, going up in
 * taps: interpolated linearly in log2 (taps) and log (kernel / copy)
 * between the last point below 1 and the first at or above it. */
static void
kernel_copy_crossing (const guint * taps, const gdouble * kern,
    const gdouble * copy, const gboolean * ok, guint n, gchar * res, gsize size)
{
  gint prev = -1;
  guint i;

  *res = 0;
  for (i = 0; i < n && !*res; i++) {
    gdouble q;

    if (!ok[i] || copy[i] <= 0 || kern[i] <= 0)
      continue;
    q = kern[i] / copy[i];
    if (q >= 1) {
      if (prev < 0) {
        g_snprintf (res, size, "kernel >= copy already at %u taps (ratio "
            "%.3f)", taps[i], q);
      } else {
        gdouble x0 = log2 (taps[prev]), x1 = log2 (taps[i]);
        gdouble y0 = log (kern[prev] / copy[prev]), y1 = log (q);
        gdouble x = y1 != y0 ? x0 - y0 * (x1 - x0) / (y1 - y0) : x0;

        g_snprintf (res, size, "about %.0f taps (between %u and %u, "
            "interpolated linearly in log(taps) and log(kernel/copy))",
            exp2 (x), taps[prev], taps[i]);
      }
    }
    prev = i;
  }
  if (!*res && prev < 0)
    g_snprintf (res, size, "no usable point");
  else if (!*res)
    g_snprintf (res, size, "kernel < copy up to %u taps (ratio %.3f there)",
        taps[prev], kern[prev] / copy[prev]);
}

static void
run_sweep (void)
{
  gdouble kern[G_N_ELEMENTS (sweep_taps)], copy[G_N_ELEMENTS (sweep_taps)];
  gboolean ok[G_N_ELEMENTS (sweep_taps)], cuda = FALSE;
  guint i;

  audio_setup ();
  printf ("\n## taps sweep: cudaaudiofilter operation=fir mode=overlap "
      "streams=%d chunks=%d backend=%s, %d buffers of %d x %d F32 per taps "
      "count\n\n", opt_streams, opt_chunks, opt_backend, opt_buffers,
      opt_samples, opt_channels);
  {
    gdouble *taps = make_taps (sweep_taps[0]);
    RunSpec w = { "sweep warm-up", TRUE, FALSE, opt_backend, opt_streams,
      opt_chunks, MIN (AUDIO_WARMUP, opt_buffers), 0, FALSE, sweep_taps[0],
      taps
    };
    RunResult r;

    if (!run_pipeline (&w, &r))
      failed_check = TRUE;
    run_result_clear (&r);
    g_free (taps);
  }
  printf ("One warm-up pipeline of %d buffers first; per taps count one "
      "pipeline (its first buffer pushed and waited for). Per buffer: the "
      "element's whole-run busy times / frames.\n\n",
      MIN (AUDIO_WARMUP, opt_buffers));
  printf ("| taps | kernel ms/buffer | copy ms/buffer ((h2d + d2h) / 2) | "
      "kernel / copy | h2d ms/buffer | d2h ms/buffer | samples/s | overlap "
      "eff |\n|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (i = 0; i < G_N_ELEMENTS (sweep_taps); i++) {
    gdouble *taps = make_taps (sweep_taps[i]);
    gchar name[48], q[32];
    RunSpec t = { name, TRUE, FALSE, opt_backend, opt_streams, opt_chunks,
      opt_buffers, 0, FALSE, sweep_taps[i], taps
    };
    RunResult r;

    g_snprintf (name, sizeof (name), "sweep %u taps", sweep_taps[i]);
    ok[i] = run_pipeline (&t, &r);
    if (ok[i]) {
      gdouble f = MAX (bench_stat_u64 (r.whole, "frames"), 1);
      gdouble h = bench_stat_u64 (r.whole, "h2d-ns") / f;
      gdouble d = bench_stat_u64 (r.whole, "d2h-ns") / f;

      kern[i] = bench_stat_u64 (r.whole, "kernel-ns") / f;
      copy[i] = (h + d) / 2;
      cuda |= on_cuda (&r);
      if (copy[i] > 0)
        g_snprintf (q, sizeof (q), "%.3f", kern[i] / copy[i]);
      else
        g_strlcpy (q, "n/a", sizeof (q));
      printf ("| %u | %.4f | %.4f | %s | %.4f | %.4f | %.4g | %.4f |\n",
          sweep_taps[i], kern[i] / 1e6, copy[i] / 1e6, q, h / 1e6,
          d / 1e6, r.rate * opt_samples, stat_dbl (r.whole,
              "overlap-efficiency"));
    } else {
      printf ("| %u | FAILED: %s | | | | | | |\n", sweep_taps[i], r.error);
      failed_check = TRUE;
    }
    run_result_clear (&r);
    g_free (taps);
  }

  if (!cuda) {
    printf ("\nkernel = copy: n/a (CPU backend: no copies)\n");
    sum_add (V_NA, "taps where kernel time = copy time", "-",
        "CPU backend: no copies");
    return;
  }
  {
    gchar res[160];

    kernel_copy_crossing (sweep_taps, kern, copy, ok, G_N_ELEMENTS (sweep_taps),
        res, sizeof (res));
    printf ("\nkernel time = copy time ((h2d + d2h) / 2, per buffer, element "
        "events): %s\n", res);
    sum_add (V_INFO, "taps where kernel time = copy time", "-", "%s", res);
  }
}

/* ---- main ------------------------------------------------------------------- */

static gboolean
cuda_probe (gchar ** why)
{
  int n = 0;
  cudaError_t e = cudaGetDeviceCount (&n);

  if (e != cudaSuccess) {
    *why = g_strdup_printf ("cudaGetDeviceCount: %s", cudaGetErrorString (e));
    return FALSE;
  }
  if (n < 1) {
    *why = g_strdup ("no CUDA device");
    return FALSE;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"video", 0, 0, G_OPTION_ARG_NONE, &opt_video,
        "Video: box-blur serial and overlap against CUPTI, outputs against "
          "the CPU backend (issue 3)", NULL},
    {"audio", 0, 0, G_OPTION_ARG_NONE, &opt_audio,
        "Audio: FIR serial, overlap and CPU backend, samples/s, outputs "
          "against the CPU backend (issue 4)", NULL},
    {"taps-sweep", 0, 0, G_OPTION_ARG_NONE, &opt_sweep,
        "Audio FIR overlap over taps 15 ... 4095: kernel against copy "
          "time per buffer", NULL},
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

  cmd = g_strjoinv (" ", argv);
  opt_backend = g_strdup ("auto");
  if (!bench_parse_options ("- cudaoverlap: overlap against serial and "
          "CUPTI, outputs against the CPU backend (issues 3 and 4)", entries,
          &argc, &argv))
    return 2;
  if (!opt_video && !opt_audio && !opt_sweep) {
    fprintf (stderr, "nothing to do: give --video, --audio and/or "
        "--taps-sweep (see --help)\n");
    return 2;
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
        "GST_PLUGIN_PATH at the built plugin (build/elements)\n");
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

  if (opt_video)
    run_video ();
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
