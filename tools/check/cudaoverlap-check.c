/* cudaoverlap-check: the measurements that issues 3 and 4 are judged by,
 * and the CUPTI rows of issues 15 and 16.
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
 *   with those of the same 3 input frames through backend=cpu.  CUPTI's
 *   kernel records are not filtered by name: every kernel of the process
 *   counts; the log lists them by name.
 * --props (video and --memory, issue 16): element properties appended to
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
 * --memory (issue 15): the element with CUDA memory on one side, mode
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

#include "tool-common.h"
#include "check-cupti.h"
#include "co-intervals.h"

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
static gchar *opt_backend, *opt_props, *opt_memory;
static gchar **props_argv;      /* --props, split like a shell */

/* ---- shared state --------------------------------------------------------- */

typedef struct
{
  gsize size;
  guint8 *data[RING];           /* malloc()ed, random */
  GstMemory *mem[RING];         /* each wrapped once, for the whole program */
} HostRing;

static HostRing vring, aring;
static HostRing pring;          /* --memory cuda-in: vring's frames again,
                                 * in cudaHostAlloc()ed memory */
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
  gchar value[200];
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

static void pinned_ring_clear (void);

/* vring's frames again in page-locked memory (cudaHostAlloc, portable:
 * page-locked for every context, nvcodec's too), each wrapped once: the
 * page-locked input of --memory cuda-in.  FALSE with *why when
 * CUDA cannot allocate it. */
static gboolean
pinned_ring_init (gchar ** why)
{
  guint i;

  if (pring.size)
    return TRUE;
  for (i = 0; i < RING; i++) {
    void *p = NULL;
    cudaError_t e = cudaHostAlloc (&p, vring.size, cudaHostAllocPortable);

    if (e != cudaSuccess) {
      *why = g_strdup_printf ("cudaHostAlloc of %" G_GSIZE_FORMAT " bytes: %s",
          vring.size, cudaGetErrorString (e));
      break;
    }
    memcpy (p, vring.data[i], vring.size);
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

static void
pinned_ring_clear (void)
{
  guint i;

  for (i = 0; i < RING; i++) {
    if (pring.mem[i])
      gst_memory_unref (pring.mem[i]);
    if (pring.data[i])
      cudaFreeHost (pring.data[i]);
  }
  memset (&pring, 0, sizeof (pring));
}

/* The value of the last KEY=VALUE of --props, NULL when it has none. */
static const gchar *
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
static gboolean
props_custom (void)
{
  return !g_strcmp0 (props_get ("operation"), "custom");
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
  const gchar *memory;          /* video: NULL (system memory), "cuda-in",
                                 * "cuda-out" */
  gboolean app_pinned;          /* cuda-in: input from pring, not vring */
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
  BenchCuptiDetail detail;      /* CUPTI's records themselves */
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

static gboolean
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

/* The events' excess over CUPTI per operation of each kind: (element -
 * CUPTI) / CUPTI's records of that kind.  An event interval holds the
 * device's scheduling of the operation after the event before it, a
 * roughly constant time per operation, so the relative difference grows as
 * operations shrink; this says how large it is (not judged). */
static void
print_excess_per_op (const RunResult * r)
{
  const CoStatsSummary *c = &r->cupti;
  const GstStructure *s = r->whole;
  guint64 n_h2d = 0, n_d2h = 0, n_k;
  guint i;

  if (!r->detail.copies || !r->detail.kernels)
    return;
  for (i = 0; i < r->detail.copies->len; i++) {
    const BenchCuptiCopy *k = &g_array_index (r->detail.copies,
        BenchCuptiCopy, i);

    n_h2d += k->copy_kind == bench_cupti_copy_kind_htod ();
    n_d2h += k->copy_kind == bench_cupti_copy_kind_dtoh ();
  }
  n_k = r->detail.kernels->len;
  printf ("Events' excess over CUPTI per operation (element - CUPTI, over "
      "CUPTI's records of the kind; not judged):");
  if (n_h2d)
    printf (" H2D %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "h2d-ns") - c->h2d_ns) / n_h2d / 1e3,
        n_h2d);
  if (n_k)
    printf (", kernel %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "kernel-ns") - c->kernel_ns) / n_k /
        1e3, n_k);
  if (n_d2h)
    printf (", D2H %+.1f us (%" G_GUINT64_FORMAT " records)",
        ((gdouble) bench_stat_u64 (s, "d2h-ns") - c->d2h_ns) / n_d2h / 1e3,
        n_d2h);
  printf ("\n");
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
  print_excess_per_op (r);
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
video_setup (void)
{
  if (vcaps)
    return;
  gst_video_info_set_format (&vinfo, GST_VIDEO_FORMAT_RGBA, opt_width,
      opt_height);
  vinfo.fps_n = 60;
  vinfo.fps_d = 1;
  vdur = gst_util_uint64_scale_int (GST_SECOND, 1, 60);
  vcaps = gst_video_info_to_caps (&vinfo);
  fprintf (stderr, "[check] video: filling %u random %dx%d RGBA frames\n",
      RING, opt_width, opt_height);
  host_ring_init (&vring, vinfo.size, FALSE, SEED);
}

/* What the element runs: "operation=box-blur radius=R" and --props. */
static gchar *
video_op_desc (void)
{
  return g_strdup_printf ("operation=box-blur radius=%d%s%s", opt_radius,
      opt_props ? ", then --props " : "", opt_props ? opt_props : "");
}

/* The first VIDEO_KEEP frames through backend=cpu with the same properties
 * (--props included), run once and kept for every comparison. */
static RunResult vref;
static gint vref_state;         /* 0 not run, 1 ok, -1 failed */

static gboolean
video_cpu_reference (void)
{
  RunSpec c = { "video cpu reference", FALSE, FALSE, "cpu", opt_streams,
    opt_chunks, MIN (VIDEO_KEEP, (guint) opt_frames), VIDEO_KEEP, FALSE, 0,
    NULL, NULL, FALSE
  };

  if (vref_state == 0)
    vref_state = run_pipeline (&c, &vref) ? 1 : -1;
  return vref_state > 0;
}

/* The first outputs of @t against the CPU backend's, byte for byte; the
 * summary rows say "@label outputs ...".  With operation=custom the CPU
 * backend runs the kernel's CPU implementation (kernel-cpu-library and
 * -symbol of --props); without them the outputs are not compared, and the
 * log says so. */
static void
video_check_outputs (const RunResult * t, const gchar * label)
{
  gchar check[96], msg[256] = "";
  const gchar *lib = props_get ("kernel-cpu-library");
  const gchar *sym = props_get ("kernel-cpu-symbol");
  guint same = 0, i;

  g_snprintf (check, sizeof (check), "%s outputs identical to the CPU "
      "backend", label);
  printf ("\n### %s outputs against the CPU backend\n\n", label);
  if (!t->ok) {
    printf ("not compared: the timed run failed\n");
    sum_add (V_FAIL, check, "all, byte for byte", "the run failed");
    failed_check = TRUE;
    return;
  }
  if (props_custom () && (!lib || !sym)) {
    printf ("outputs NOT compared: --props sets operation=custom without "
        "kernel-cpu-library and kernel-cpu-symbol, so the CPU backend cannot "
        "run the same kernel (give both to compare byte for byte)\n");
    sum_add (V_NA, check, "all, byte for byte", "not compared: --props names "
        "no kernel-cpu-library/-symbol");
    return;
  }
  if (props_custom ())
    printf ("reference: the CPU backend running the same kernel's CPU "
        "implementation (%s in %s), the same --props\n", sym, lib);
  if (!video_cpu_reference ()) {
    printf ("the CPU backend run FAILED: %s\n", vref.error);
    sum_add (V_FAIL, check, "all, byte for byte", "CPU run failed: %s",
        vref.error);
    failed_check = TRUE;
    return;
  }
  for (i = 0; i < vref.n_kept; i++) {
    if (i >= t->n_kept || !t->kept[i] || !vref.kept[i]) {
      g_snprintf (msg, sizeof (msg), "frame %u: output missing", i);
      break;
    }
    if (!video_compare (t->kept[i], vref.kept[i], i, msg, sizeof (msg)))
      break;
    same++;
  }
  if (same == vref.n_kept) {
    printf ("outputs identical to the CPU backend: %u/%u (the first %u "
        "frames of the timed run, backend %s, every picture byte)\n", same,
        vref.n_kept, vref.n_kept, stat_str (t->whole, "backend"));
    sum_add (V_PASS, check, "all, byte for byte", "%u/%u", same, vref.n_kept);
  } else {
    printf ("outputs DIFFER from the CPU backend: %u/%u identical; first "
        "difference: %s\n", same, vref.n_kept, msg);
    sum_add (V_FAIL, check, "all, byte for byte", "%u/%u; %s", same,
        vref.n_kept, msg);
    failed_check = TRUE;
  }
}

static gint
count_desc (gconstpointer a, gconstpointer b, gpointer data)
{
  guint ca = GPOINTER_TO_UINT (g_hash_table_lookup (data, a));
  guint cb = GPOINTER_TO_UINT (g_hash_table_lookup (data, b));

  return ca < cb ? 1 : ca > cb ? -1 : g_strcmp0 (a, b);
}

/* CUPTI's kernel records by name, most launched first: "NAME xN, ..."; and
 * in *matched the records whose name is or contains @want (NULL: none). */
static gchar *
kernel_names (const BenchCuptiDetail * d, const gchar * want, guint * matched)
{
  GHashTable *h = g_hash_table_new (g_direct_hash, g_direct_equal);
  GString *s = g_string_new (NULL);
  GList *keys, *l;
  guint i, shown = 0;

  *matched = 0;
  for (i = 0; d->kernels && i < d->kernels->len; i++) {
    const gchar *n = g_array_index (d->kernels, BenchCuptiKernel, i).name;

    g_hash_table_insert (h, (gpointer) n,
        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (h, n)) + 1));
    if (want && *want && strstr (n, want))
      (*matched)++;
  }
  keys = g_list_sort_with_data (g_hash_table_get_keys (h), count_desc, h);
  for (l = keys; l; l = l->next, shown++) {
    if (shown == 8) {
      g_string_append_printf (s, ", ... (%u names)", g_hash_table_size (h));
      break;
    }
    g_string_append_printf (s, "%s%.80s x%u", shown ? ", " : "",
        (const gchar *) l->data, GPOINTER_TO_UINT (g_hash_table_lookup (h,
                l->data)));
  }
  if (!keys)
    g_string_append (s, "none");
  g_list_free (keys);
  g_hash_table_unref (h);
  return g_string_free (s, FALSE);
}

/* After the CUPTI table of a video run: the kernels CUPTI saw by name, and
 * with operation=custom whether the user's kernel is among them (every
 * kernel record counts in CUPTI's kernel-ns whatever its name: nothing is
 * filtered by name; this row says the custom kernel's launches are what
 * was measured). */
static void
video_cupti_kernels (const RunResult * r, const gchar * mode)
{
  const gchar *want = props_custom ()? props_get ("kernel-name") : NULL;
  guint matched = 0, all;
  gchar *names, check[80];
  gint v;

  if (!r->cupti_ok)
    return;
  names = kernel_names (&r->detail, want, &matched);
  all = r->detail.kernels ? r->detail.kernels->len : 0;
  printf ("CUPTI kernel records by name (all of them count in kernel-ns, "
      "none is filtered out): %s\n", names);
  g_free (names);
  if (!props_custom ())
    return;
  v = matched > 0 ? V_PASS : V_FAIL;
  printf ("custom kernel %s: %u of %u CUPTI kernel records carry its name "
      "(%s)\n", want ? want : "(no kernel-name)", matched, all,
      v == V_PASS ? "its launches are measured" :
      "FAIL: CUPTI saw no launch of it");
  g_snprintf (check, sizeof (check), "video %s: custom kernel in CUPTI", mode);
  sum_add (v, check, ">= 1 record", "%u of %u kernel records named %s",
      matched, all, want ? want : "?");
  note_verdict (v);
}

static void
run_video (void)
{
  RunResult warm, timed[2];
  const GstStructure *passport = NULL;
  gchar *pp = NULL, *op;
  guint m;

  video_setup ();
  op = video_op_desc ();
  printf ("\n## video: cudavideofilter %s, %dx%d RGBA (%" G_GSIZE_FORMAT
      " bytes), %d frames per timed run\n\n", op, opt_width, opt_height,
      vinfo.size, opt_frames);
  g_free (op);
  printf ("Per mode: a warm-up pipeline of %d frames, then the timed one "
      "(frame 1 pushed and waited for, then the others); stats-interval=0, "
      "appsink sync=false.\n", VIDEO_WARMUP);

  for (m = 0; m < 2; m++) {
    gboolean serial = m == 0;
    const gchar *mode = serial ? "serial" : "overlap";
    RunSpec w = { NULL, FALSE, serial, opt_backend,
      serial ? 1 : opt_streams, serial ? 1 : opt_chunks, VIDEO_WARMUP, 0,
      FALSE, 0, NULL, NULL, FALSE
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
    video_cupti_kernels (&timed[m], mode);
    {
      gdouble eff = stat_dbl (timed[m].whole, "overlap-efficiency");
      gboolean cuda = on_cuda (&timed[m]);
      /* the overlap threshold is box blur's (issue 3): for a user's
       * kernel the efficiency is reported, not judged */
      gboolean judged = serial || !props_custom ();
      gint ve = !cuda ? V_NA : !judged ? V_INFO : serial ?
          (eff <= SERIAL_EFF_MAX ? V_PASS : V_FAIL) :
          (eff >= OVERLAP_EFF_MIN ? V_PASS : V_FAIL);
      gchar check[80];

      printf ("\nverdict: %s overlap-efficiency %.4f %s %.2f: %s%s\n", mode,
          eff, serial ? "<=" : ">=", serial ? SERIAL_EFF_MAX : OVERLAP_EFF_MIN,
          verdict_names[ve], !cuda ? " (CPU backend: no copies to "
          "overlap)" : judged ? "" : " (operation=custom: box blur's "
          "threshold, not judged)");
      printf ("verdict: busy times and efficiency within %.0f%% of CUPTI: "
          "%s%s%s%s\n", 100 * CUPTI_TOL, verdict_names[v], *worst ? " (" :
          "", worst, *worst ? ")" : "");
      g_snprintf (check, sizeof (check), "video %s overlap-efficiency", mode);
      sum_add (ve, check, !judged ? "-" : serial ? "<= 0.05" : ">= 0.8",
          "%.4f%s", eff, cuda ? "" : " (CPU backend)");
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
  video_check_outputs (&timed[1], "video");
  for (m = 0; m < 2; m++)
    run_result_clear (&timed[m]);
}

/* ---- CUDA memory in or out: an independent profile of the copies ------- */

typedef struct
{
  guint kind, src, dst;
  guint count;
  guint64 bytes;
  GArray *iv;                   /* CoInterval */
  GHashTable *streams;
} CopyGroup;

static void
copy_group_free (gpointer p)
{
  CopyGroup *g = p;

  g_array_unref (g->iv);
  g_hash_table_unref (g->streams);
  g_free (g);
}

/* Of @g's streams, how many also ran kernels. */
static guint
streams_with_kernels (GHashTable * streams, GHashTable * kstreams)
{
  GHashTableIter it;
  gpointer k;
  guint n = 0;

  g_hash_table_iter_init (&it, streams);
  while (g_hash_table_iter_next (&it, &k, NULL))
    n += g_hash_table_contains (kstreams, k);
  return n;
}

/* Union of the copies of one kind (all memory kinds) and its intersection
 * with the union of the kernels (@kiv: normalized). */
static void
kind_overlap (const BenchCuptiDetail * d, guint kind, const CoInterval * kiv,
    guint nk, guint64 * busy, guint64 * ovl, guint * count)
{
  GArray *iv = g_array_new (FALSE, FALSE, sizeof (CoInterval));
  guint i;

  *count = 0;
  for (i = 0; i < d->copies->len; i++) {
    const BenchCuptiCopy *c = &g_array_index (d->copies, BenchCuptiCopy, i);
    CoInterval x = { c->start, c->end };

    if (c->copy_kind != kind)
      continue;
    g_array_append_val (iv, x);
    (*count)++;
  }
  *busy = co_intervals_union_measure ((CoInterval *) iv->data, iv->len);
  *ovl = co_intervals_intersection_measure_sorted ((CoInterval *) iv->data,
      iv->len, kiv, nk);
  g_array_unref (iv);
}

/* The table of CUPTI's copies by kind and source / destination memory,
 * each with its busy time and the part of it that overlaps kernels; then
 * who made which copy (by the pipeline) and the element's copies against
 * kernel time.  @mode: "cuda-in" or "cuda-out".  Returns a one-line
 * summary (free it) or NULL when CUPTI did not record. */
static gchar *
print_copy_profile (const RunResult * r, const gchar * mode)
{
  const BenchCuptiDetail *d = &r->detail;
  const guint main_kinds[3] = { bench_cupti_copy_kind_htod (),
    bench_cupti_copy_kind_dtoh (), bench_cupti_copy_kind_dtod ()
  };
  gboolean in = !strcmp (mode, "cuda-in");
  GPtrArray *groups = g_ptr_array_new_with_free_func (copy_group_free);
  GHashTable *kstreams = g_hash_table_new (g_direct_hash, g_direct_equal);
  GString *sum = g_string_new (NULL);
  CoInterval *kiv;
  guint nk, i, pass;
  guint64 kbusy, busy, ovl;
  guint count;

  if (!r->cupti_ok || !d->copies || !d->kernels) {
    printf ("\nCUPTI: %s\n", r->cupti_why ? r->cupti_why : "no records");
    g_ptr_array_unref (groups);
    g_hash_table_unref (kstreams);
    g_string_free (sum, TRUE);
    return NULL;
  }
  kiv = g_new (CoInterval, MAX (d->kernels->len, 1));
  for (i = 0; i < d->kernels->len; i++) {
    const BenchCuptiKernel *k = &g_array_index (d->kernels,
        BenchCuptiKernel, i);

    kiv[i].start = k->start;
    kiv[i].end = k->end;
    g_hash_table_add (kstreams, GUINT_TO_POINTER (k->stream + 1));
  }
  nk = co_intervals_normalize (kiv, d->kernels->len);
  kbusy = co_intervals_union_measure_sorted (kiv, nk);

  for (i = 0; i < d->copies->len; i++) {
    const BenchCuptiCopy *c = &g_array_index (d->copies, BenchCuptiCopy, i);
    CoInterval x = { c->start, c->end };
    CopyGroup *g = NULL;
    guint j;

    for (j = 0; j < groups->len && !g; j++) {
      CopyGroup *h = g_ptr_array_index (groups, j);

      if (h->kind == c->copy_kind && h->src == c->src_kind &&
          h->dst == c->dst_kind)
        g = h;
    }
    if (!g) {
      g = g_new0 (CopyGroup, 1);
      g->kind = c->copy_kind;
      g->src = c->src_kind;
      g->dst = c->dst_kind;
      g->iv = g_array_new (FALSE, FALSE, sizeof (CoInterval));
      g->streams = g_hash_table_new (g_direct_hash, g_direct_equal);
      g_ptr_array_add (groups, g);
    }
    g->count++;
    g->bytes += c->bytes;
    g_array_append_val (g->iv, x);
    g_hash_table_add (g->streams, GUINT_TO_POINTER (c->stream + 1));
  }

  printf ("\n| copy | source -> destination (CUPTI) | count | MB | MB per "
      "copy | busy ms (union) | of it during kernels, ms | share | streams "
      "(of them running kernels) |\n"
      "|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
  /* HtoD, DtoH, DtoD always (a 0 row says there was none), then others */
  for (pass = 0; pass < 4; pass++) {
    gboolean any = FALSE;

    for (i = 0; i < groups->len; i++) {
      CopyGroup *g = g_ptr_array_index (groups, i);
      gboolean main_kind = g->kind == main_kinds[0] ||
          g->kind == main_kinds[1] || g->kind == main_kinds[2];

      if (pass < 3 ? g->kind != main_kinds[pass] : main_kind)
        continue;
      any = TRUE;
      busy = co_intervals_union_measure ((CoInterval *) g->iv->data,
          g->iv->len);
      ovl = co_intervals_intersection_measure_sorted ((CoInterval *)
          g->iv->data, g->iv->len, kiv, nk);
      printf ("| %s | %s -> %s | %u | %.1f | %.3f | %.3f | %.3f | %.3f | %u "
          "(%u) |\n", bench_cupti_copy_kind_name (g->kind),
          bench_cupti_memory_kind_name (g->src),
          bench_cupti_memory_kind_name (g->dst), g->count, g->bytes / 1e6,
          g->bytes / 1e6 / g->count, busy / 1e6, ovl / 1e6,
          busy ? (gdouble) ovl / busy : 0, g_hash_table_size (g->streams),
          streams_with_kernels (g->streams, kstreams));
      g_string_append_printf (sum, "%s%s %s>%s x%u", sum->len ? ", " : "",
          bench_cupti_copy_kind_name (g->kind),
          bench_cupti_memory_kind_name (g->src),
          bench_cupti_memory_kind_name (g->dst), g->count);
    }
    if (!any && pass < 3)
      printf ("| %s | none | 0 | 0 | - | 0 | 0 | - | 0 |\n",
          bench_cupti_copy_kind_name (main_kinds[pass]));
  }
  printf ("| kernels | - | %u | - | - | %.3f | - | - | %u |\n",
      d->kernels->len, kbusy / 1e6, g_hash_table_size (kstreams));

  {
    guint m;
    gchar *names = kernel_names (d, NULL, &m);

    printf ("\nCUPTI: every memcpy and kernel record of the process from "
        "just before the first push to EOS (%s's copies as well as the "
        "element's); busy = union of the intervals, \"during kernels\" = its "
        "intersection with the union of all kernel intervals; streams: "
        "distinct CUDA streams of the row's copies, in brackets those that "
        "also ran kernels (the element's streams). Kernels by name: %s\n",
        in ? "cudaupload" : "cudadownload", names);
    g_free (names);
  }
  /* by the pipeline: cudaupload makes only HtoD copies, cudadownload only
   * DtoH; the element the others */
  for (pass = 0; pass < 2; pass++) {
    guint kind = main_kinds[pass];
    gboolean element = in ? pass == 1 : pass == 0;

    kind_overlap (d, kind, kiv, nk, &busy, &ovl, &count);
    printf ("- %s (%s %s, by the pipeline): %u copies, %.3f ms busy, %.3f ms "
        "of it during kernels = %.1f%%\n", bench_cupti_copy_kind_name (kind),
        element ? "the element's" : in ? "cudaupload's" : "cudadownload's",
        pass == 0 ? "uploads" : "downloads", count, busy / 1e6, ovl / 1e6,
        busy ? 100.0 * ovl / busy : 0);
    if (element)
      g_string_append_printf (sum, "; element %s during kernels %.1f%% of "
          "%.1f ms", pass == 0 ? "H2D" : "D2H", busy ? 100.0 * ovl / busy : 0,
          busy / 1e6);
  }
  printf ("- the element's own statistics (events): h2d %.3f ms, kernel "
      "%.3f ms, d2h %.3f ms, overlap-efficiency %.4f\n",
      bench_stat_u64 (r->whole, "h2d-ns") / 1e6,
      bench_stat_u64 (r->whole, "kernel-ns") / 1e6,
      bench_stat_u64 (r->whole, "d2h-ns") / 1e6,
      stat_dbl (r->whole, "overlap-efficiency"));
  g_free (kiv);
  g_ptr_array_unref (groups);
  g_hash_table_unref (kstreams);
  return g_string_free (sum, FALSE);
}

/* --memory cuda-in[,cuda-out]: the element with CUDA memory on one side,
 * nvcodec's cudaupload / cudadownload on the other, each timed run under
 * CUPTI; what CUPTI saw of the copies, and the first outputs against the
 * CPU backend. */
static void
run_memory (void)
{
  gchar **modes = g_strsplit (opt_memory, ",", -1), *why = NULL, *op;
  guint m;

  op = video_op_desc ();
  printf ("\n## CUDA memory (--memory %s): cudavideofilter %s, %dx%d RGBA, "
      "%d frames per timed run, mode overlap %d x %d, backend %s\n\n",
      opt_memory, op, opt_width, opt_height, opt_frames, opt_streams,
      opt_chunks, opt_backend);
  g_free (op);
  if (!strcmp (opt_backend, "cpu"))
    why = g_strdup ("--backend cpu: CUDA memory needs the CUDA backend");
  else if (!have_cuda)
    why = g_strdup_printf ("no CUDA device (%s)", cuda_why);
  else if (!bench_have_feature ("cudaupload") || !bench_have_feature
      ("cudadownload"))
    why = g_strdup ("nvcodec's cudaupload / cudadownload are not in the "
        "registry (gst-plugins-bad's nvcodec plugin)");
  if (why) {
    printf ("skipped: %s\n", why);
    sum_add (V_NA, "CUDA memory: CUPTI profile of the copies", "-",
        "skipped: %s", why);
    g_free (why);
    g_strfreev (modes);
    return;
  }
  video_setup ();
  printf ("Per run: a warm-up pipeline of %d frames, then the timed one "
      "under CUPTI. cuda-in: `appsrc ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudavideofilter ! video/x-raw ! "
      "appsink`, fed from malloc()ed (pageable) frames, then from "
      "cudaHostAlloc()ed (page-locked) ones; cuda-out: `appsrc ! "
      "cudavideofilter ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink`, fed from the element's pool as the video "
      "runs. Both: the element's properties as for --video (mode overlap), "
      "the first %d outputs against the CPU backend.\n",
      VIDEO_WARMUP, VIDEO_KEEP);

  for (m = 0; modes[m]; m++) {
    gboolean in = !strcmp (modes[m], "cuda-in");
    guint k;

    for (k = 0; k < (in ? 2u : 1u); k++) {
      RunSpec w = { NULL, FALSE, FALSE, opt_backend, opt_streams, opt_chunks,
        VIDEO_WARMUP, 0, FALSE, 0, NULL, in ? "cuda-in" : "cuda-out", k == 1
      };
      RunSpec t = w;
      RunResult warm, res;
      gchar label[80], wn[96], tn[96], *sum;

      if (in)
        g_snprintf (label, sizeof (label), "memory cuda-in (%s input)",
            k ? "pinned" : "pageable");
      else
        g_snprintf (label, sizeof (label), "memory cuda-out");
      printf ("\n### %s\n\n", label);
      if (k == 1 && !pinned_ring_init (&why)) {
        printf ("skipped: %s\n", why);
        sum_add (V_NA, label, "-", "skipped: %s", why);
        g_clear_pointer (&why, g_free);
        continue;
      }
      g_snprintf (wn, sizeof (wn), "%s warm-up", label);
      g_snprintf (tn, sizeof (tn), "%s timed", label);
      w.name = wn;
      t.name = tn;
      t.n = opt_frames;
      t.keep = VIDEO_KEEP;
      t.cupti = TRUE;
      if (!run_pipeline (&w, &warm))
        failed_check = TRUE;
      run_result_clear (&warm);
      run_pipeline (&t, &res);
      if (!res.ok) {
        printf ("RUN FAILED: %s\n", res.error);
        failed_check = TRUE;
        sum_add (V_FAIL, label, "-", "run failed: %s", res.error);
        run_result_clear (&res);
        continue;
      }
      print_run_line (&res);
      printf ("- wall: %u frames (2..%u) in %.3f s = %.1f frames/s; all %u "
          "from the first push: %.1f frames/s\n", opt_frames - 1, opt_frames,
          res.wall_s, res.rate, opt_frames, res.rate_all);
      sum = print_copy_profile (&res, t.memory);
      if (sum)
        sum_add (V_INFO, label, "-", "%.1f fps; %s", res.rate, sum);
      else
        sum_add (V_NA, label, "-", "%s", res.cupti_why ? res.cupti_why :
            "CUPTI: no records");
      g_free (sum);
      video_check_outputs (&res, label);
      run_result_clear (&res);
    }
  }
  g_strfreev (modes);
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
    {"memory", 0, 0, G_OPTION_ARG_STRING, &opt_memory,
          "Video with CUDA memory on one side: cuda-in (cudaupload before "
          "the element), cuda-out (cudadownload after it) or cuda-in,cuda-out; "
          "an independent CUPTI profile of the copies (issue 15)",
        "MODES"},
    {"props", 0, 0, G_OPTION_ARG_STRING, &opt_props,
        "Video: more element properties, after the others (so they "
          "override them), e.g. \"operation=custom kernel-module=K.ptx "
          "kernel-name=k kernel-halo=1 kernel-cpu-library=libk.so "
          "kernel-cpu-symbol=k_cpu\" (issue 16)", "\"PROP=VALUE ...\""},
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
          "CUPTI, outputs against the CPU backend (issues 3 and 4)", entries,
          &argc, &argv))
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
