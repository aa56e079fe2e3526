/* cudaoverlap-bench: one GStreamer pipeline run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A fresh pipeline per run: `appsrc ! cudavideofilter ... stats-interval=0
 * ! appsink` (or the peer, `appsrc ! cudaupload !
 * video/x-raw(memory:CUDAMemory) ! cudadownload ! appsink`).  appsrc:
 * format time, live only for the paced rows (--live: the element's
 * automatic settings see a live source), no timestamping, block=true with
 * max-bytes of two frames (backpressure); appsink: sync=false,
 * max-buffers=2, drop=false.
 * Input (a) pinned: once the element has its caps (its passport message),
 * an ALLOCATION query from appsrc's src pad to its peer; the first pool of
 * the answer is activated and each of its buffers (without a maximum: 12
 * to 32, about 1 GiB at most, see input_pool) filled once with a ring
 * frame; a buffer's content is known afterwards from its memory's data
 * pointer (pool buffers come back intact).  Input (b) registered: per frame
 * a fresh GstBuffer holding a reference to one of 16 GstMemory that wrap
 * the malloc()ed ring frames once for the whole program.
 * One priming frame (with the element's batch > 1: a batch of them) is
 * pushed and waited for; then the timed frames, PTS =
 * frame number x duration, each with its duration, in appsrc's TIME
 * segment (from 0: stream time = PTS).  appsink's callback notes the time
 * and hands the sample to checker threads (sampled checksum); the checksums
 * are compared with the expected ones after the run.
 * --gamma-ramp: the element's gamma bound (absolute direct binding) to a
 * linear interpolation control source, BENCH_RAMP_FROM at PTS 0 and
 * BENCH_RAMP_TO at the last frame's PTS; the checker thread of an output
 * asks the control source for the gamma at the output's stream time (its
 * PTS in the sample's segment) and computes that gamma's expected checksum
 * (bench_gamma_sum).
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <math.h>

#include <gst/app/app.h>
#include <gst/controller/controller.h>

#include "tool-common.h"
#include "bench-gst.h"
#include "bench-cli.h"

/* run shape: the steady part from this output on (a run without warm-up) */
#define SHAPE_FROM 60

#define MAX_BATCH 16            /* the largest batch cudavideofilter takes */

BenchGst bench_gst;
const gchar *bench_input_names[BENCH_N_INPUTS] = { "pinned", "registered",
  "wrapped", "fresh", "app-pinned", "slots", "slots-pinned", "recurring"
};

const gchar *bench_mem_names[BENCH_N_MEM] = { "none", "cuda-cuda", "upload",
  "download", "blur-cuda-in", "blur-reference"
};

typedef struct
{
  const BenchRunSpec *sp;
  guint n;                      /* frames pushed, the priming ones included */
  guint prime;                  /* priming frames: 1, or the element's batch */
  gint *ring_idx;
  guint64 *t_push, *t_out, *sum;
  guint8 *got, *checked;
  BenchChecker *checker;
  guint64 full_bad;
  gchar full_msg[256];
  guint stray;
  guint n_got;                  /* outputs received, each frame once */
  guint64 t_last, cpu_last;
  GMutex lock;
  GCond cond;
  gboolean waiting;             /* the main thread is waiting on cond */
  gchar *error;
  GstElement *pipeline;
  GstBufferPool *pool;
  GThread *stopper;
  GstStructure *whole_run;
  GstElement *filter;
  gboolean started;             /* past sp->start */
  gboolean cuda_in, cuda_out;   /* --memory: memory:CUDAMemory at appsrc,
                                 * at appsink */
  gchar *mem_in, *mem_out;      /* the element's passport: memory-in, -out */
  gboolean timing;              /* the timed frames are being pushed */
  GstControlSource *ramp;       /* --gamma-ramp: the element's gamma */
  guint64 *want;                /* ramp: each output's expected checksum */
  gdouble *gamma_of;            /* ramp: each output's gamma */
} RunState;

const gchar *const bench_formats[] = { "GRAY8", "GRAY16_LE", "RGBA", "BGRA",
  "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGB", "BGR", "NV12", "NV21",
  "I420", "YV12", "Y42B", "Y444", "Y444_16LE", "P010_10LE", "P016_LE",
  "I420_10LE", NULL
};

/* The planes of one of bench_formats from its GstVideoFormatInfo: each a
 * plane of interleaved components of 1 or 2 bytes (its pixel stride in
 * samples); the mask has every component but alpha (padding 'x' bytes
 * are no component); a component's place is its byte offset in samples,
 * rounded up (1.22 gives P010_10LE's and P016_LE's V the offset 1). */
gboolean
bench_layout_from_info (const GstVideoInfo * info, BenchLayout * l)
{
  const GstVideoFormatInfo *fi = info->finfo;
  gint i, k, bytes;

  if (!g_strv_contains (bench_formats, GST_VIDEO_INFO_NAME (info)))
    return FALSE;
  bytes = (GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0) + 7) / 8;
  l->width = GST_VIDEO_INFO_WIDTH (info);
  l->height = GST_VIDEO_INFO_HEIGHT (info);
  l->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  l->size = GST_VIDEO_INFO_SIZE (info);
  for (i = 0; i < l->n_planes; i++) {
    BenchPlane *p = &l->planes[i];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    gst_video_format_info_component (fi, i, comp);
    p->offset = GST_VIDEO_INFO_PLANE_OFFSET (info, i);
    p->stride = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
    p->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    p->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    p->comps = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, comp[0]) / bytes;
    p->comp_bytes = bytes;
    p->mask = 0;
    for (k = 0; k < GST_VIDEO_MAX_COMPONENTS && comp[k] >= 0; k++)
      if (comp[k] != GST_VIDEO_COMP_A)
        p->mask |= 1u << ((GST_VIDEO_FORMAT_INFO_POFFSET (fi, comp[k]) +
                bytes - 1) / bytes);
    p->xsub = GST_VIDEO_FORMAT_INFO_W_SUB (fi, comp[0]);
    p->ysub = GST_VIDEO_FORMAT_INFO_H_SUB (fi, comp[0]);
    p->gamma = !GST_VIDEO_FORMAT_INFO_IS_YUV (fi) || i == 0;
    p->bits = GST_VIDEO_FORMAT_INFO_DEPTH (fi, comp[0]);
    if (p->bits == 8 * bytes)
      p->bits = 0;
    p->shift = GST_VIDEO_FORMAT_INFO_SHIFT (fi, comp[0]);
  }
  return TRUE;
}

/* ---- one pipeline run ---------------------------------------------------- */

typedef struct
{
  GstSample *sample;
  guint64 i;
} OutItem;

/* Whether the outputs of @sp are the naive invert of the inputs (else the
 * inputs themselves, or, for the box blur, its expected checksums). */
static gboolean
expect_invert (const BenchRunSpec * sp)
{
  return !sp->peer && !sp->control && (sp->mem == BENCH_MEM_NONE ||
      sp->mem == BENCH_MEM_CUDA_CUDA);
}

static guint64
expected_sum (const BenchRunSpec * sp, gint r)
{
  if (sp->mem == BENCH_MEM_BLUR_CUDA_IN)
    return bench_gst.sum_blur[r];
  return expect_invert (sp) ? bench_gst.fr.sum_op[r] : bench_gst.fr.sum_id[r];
}

/* The expected output of ring frame @r when it is not the input itself
 * (g_free() it; NULL: the input): the operation's, or with a ramp the
 * naive gamma at @gamma. */
static guint8 *
expected_frame (const RunState * st, gint r, gdouble gamma)
{
  guint8 *ref;

  if (!expect_invert (st->sp))
    return NULL;
  ref = g_malloc (bench_gst.fr.lay.size);
  if (st->ramp)
    bench_gamma_ref (&bench_gst.fr.lay, bench_gst.fr.ring[r], ref, gamma);
  else
    bench_op_ref (&bench_gst.fr, bench_gst.fr.ring[r], ref);
  return ref;
}

/* --gamma-ramp, on a checker thread: the gamma the control source gives
 * at output @it's stream time (its PTS in its sample's segment) and its
 * expected checksum (st->want); FALSE when there is none. */
static gboolean
ramp_expect (RunState * st, const OutItem * it)
{
  GstBuffer *buf = gst_sample_get_buffer (it->sample);
  const GstSegment *seg = gst_sample_get_segment (it->sample);
  GstClockTime t = GST_CLOCK_TIME_NONE;
  gdouble g = 0;

  if (seg && seg->format == GST_FORMAT_TIME && GST_BUFFER_PTS_IS_VALID (buf))
    t = gst_segment_to_stream_time (seg, GST_FORMAT_TIME, GST_BUFFER_PTS (buf));
  if (!GST_CLOCK_TIME_IS_VALID (t) ||
      !gst_control_source_get_value (st->ramp, t, &g) || !(g > 0)) {
    g_mutex_lock (&st->lock);
    if (st->stray++ == 0)
      bench_note ("check: frame %" G_GUINT64_FORMAT ": no gamma from the "
          "control source at its stream time", it->i);
    g_mutex_unlock (&st->lock);
    return FALSE;
  }
  st->gamma_of[it->i] = g;
  st->want[it->i] = bench_gamma_sum (&bench_gst.fr.lay,
      bench_gst.fr.ring[st->ring_idx[it->i]], g);
  return TRUE;
}

static void
note_bad (RunState * st, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

/* A failed check of a CUDA output: noted once per run, counted as stray. */
     static void note_bad (RunState * st, const gchar * fmt, ...)
{
  va_list ap;
  gchar *msg;
  gboolean first;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_mutex_lock (&st->lock);
  first = st->stray++ == 0;
  g_mutex_unlock (&st->lock);
  if (first)
    bench_note ("check: %s: %s", bench_mem_names[st->sp->mem], msg);
  g_free (msg);
}

/* A CUDA-memory output (on a checker thread): its memory must be a
 * GstCudaMemory of the shared context; its sampled bytes are gathered on
 * the device (bench-devmem.c).  In the untimed verify pass the frame is
 * also mapped to system memory (libgstcuda downloads it): every picture
 * byte compared, and its sampled checksum must equal the gathered one. */
static void
check_cuda_output (OutItem * it, RunState * st)
{
  GstBuffer *buf = gst_sample_get_buffer (it->sample);
  const GstVideoInfo *info = st->sp->peer ? &bench_gst.peer_info :
      &bench_gst.info;
  GstMemory *mem = gst_buffer_n_memory (buf) ?
      gst_buffer_peek_memory (buf, 0) : NULL;
  const guint8 *data[BENCH_MAX_PLANES] = { NULL, };
  gsize stride[BENCH_MAX_PLANES] = { 0, };
  GstVideoFrame vf;
  gchar err[256];
  guint64 sum = 0;
  gint p;

  if (!mem || !gst_memory_is_type (mem, CUDA_MEMORY_TYPE)) {
    note_bad (st, "frame %" G_GUINT64_FORMAT ": the output is not CUDA "
        "memory (%s)", it->i, mem && mem->allocator ?
        mem->allocator->mem_type : "no memory");
    return;
  }
  if ((GObject *) ((CudaMemoryHead *) mem)->context != bench_gst.cuda_ctx_obj) {
    note_bad (st, "frame %" G_GUINT64_FORMAT ": the output is CUDA memory "
        "of another GstCudaContext than the shared one: not read", it->i);
    return;
  }
  if (!gst_video_frame_map (&vf, info, buf, GST_MAP_READ | MAP_CUDA)) {
    note_bad (st, "frame %" G_GUINT64_FORMAT ": cannot map the output "
        "(GST_MAP_CUDA)", it->i);
    return;
  }
  for (p = 0; p < bench_gst.fr.lay.n_planes; p++) {
    data[p] = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
  }
  if (!bench_gather_sum (bench_gst.gather, data, stride, &sum, err,
          sizeof (err))) {
    gst_video_frame_unmap (&vf);
    note_bad (st, "frame %" G_GUINT64_FORMAT ": %s", it->i, err);
    return;
  }
  gst_video_frame_unmap (&vf);
  st->sum[it->i] = sum;
  if (st->sp->full_check) {
    gint r = st->ring_idx[it->i];
    guint8 *ref = NULL;
    gchar msg[160];
    gboolean same;
    guint64 host_sum;

    if (!gst_video_frame_map (&vf, info, buf, GST_MAP_READ)) {
      note_bad (st, "frame %" G_GUINT64_FORMAT ": cannot map the output to "
          "system memory", it->i);
      return;
    }
    for (p = 0; p < bench_gst.fr.lay.n_planes; p++) {
      data[p] = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
      stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
    }
    host_sum = bench_checksum (&bench_gst.fr.lay, data, stride);
    ref = expected_frame (st, r, 0);
    same = bench_compare (&bench_gst.fr.lay, data, stride,
        ref ? ref : bench_gst.fr.ring[r], msg, sizeof (msg));
    g_free (ref);
    gst_video_frame_unmap (&vf);
    g_mutex_lock (&st->lock);
    if (!same && st->full_bad++ == 0)
      g_snprintf (st->full_msg, sizeof (st->full_msg),
          "frame %" G_GUINT64_FORMAT " (ring %d): %s", it->i, r, msg);
    else if (same && host_sum != sum && st->full_bad++ == 0)
      g_snprintf (st->full_msg, sizeof (st->full_msg), "frame %"
          G_GUINT64_FORMAT " (ring %d): the bytes gathered on the device hash "
          "to %016" G_GINT64_MODIFIER "x, the frame mapped to system memory "
          "to %016" G_GINT64_MODIFIER "x", it->i, r, sum, host_sum);
    g_mutex_unlock (&st->lock);
  }
  st->checked[it->i] = 1;
}

/* On a checker thread: the sampled checksum of an output (and, in the
 * untimed verify pass, the comparison of every picture byte). */
static void
check_output (gpointer item, gpointer user_data)
{
  OutItem *it = item;
  RunState *st = user_data;
  GstVideoFrame vf;
  const guint8 *data[BENCH_MAX_PLANES] = { NULL, };
  gsize stride[BENCH_MAX_PLANES] = { 0, };
  gint p;

  if (st->cuda_out) {
    check_cuda_output (it, st);
    goto out;
  }
  if (!gst_video_frame_map (&vf, st->sp->peer ? &bench_gst.peer_info :
          &bench_gst.info, gst_sample_get_buffer (it->sample), GST_MAP_READ)) {
    g_mutex_lock (&st->lock);
    st->stray++;
    g_mutex_unlock (&st->lock);
    goto out;
  }
  for (p = 0; p < bench_gst.fr.lay.n_planes; p++) {
    data[p] = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
  }
  st->sum[it->i] = bench_checksum (&bench_gst.fr.lay, data, stride);
  if (st->ramp && !ramp_expect (st, it)) {
    gst_video_frame_unmap (&vf);
    goto out;
  }
  if (st->sp->full_check) {
    gint r = st->ring_idx[it->i];
    guint8 *ref = expected_frame (st, r, st->ramp ? st->gamma_of[it->i] : 0);
    gchar msg[160];
    gboolean same;

    same =
        bench_compare (&bench_gst.fr.lay, data, stride,
        ref ? ref : bench_gst.fr.ring[r], msg, sizeof (msg));
    g_free (ref);
    g_mutex_lock (&st->lock);
    if (!same && st->full_bad++ == 0)
      g_snprintf (st->full_msg, sizeof (st->full_msg),
          "frame %" G_GUINT64_FORMAT " (ring %d): %s", it->i, r, msg);
    g_mutex_unlock (&st->lock);
  }
  gst_video_frame_unmap (&vf);
  st->checked[it->i] = 1;
out:
  gst_sample_unref (it->sample);
  g_free (it);
}

/* On the element's push thread: note the time and hand the output over. */
static GstFlowReturn
on_new_sample (GstAppSink * sink, gpointer user_data)
{
  RunState *st = user_data;
  guint64 t = bench_now_ns ();
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  guint64 i = G_MAXUINT64;

  if (!sample)
    return GST_FLOW_FLUSHING;
  buf = gst_sample_get_buffer (sample);
  if (GST_BUFFER_PTS_IS_VALID (buf)
      && GST_BUFFER_PTS (buf) % bench_gst.dur == 0)
    i = GST_BUFFER_PTS (buf) / bench_gst.dur;

  g_mutex_lock (&st->lock);
  if (i >= st->n || st->got[i]) {
    st->stray++;
    gst_sample_unref (sample);
  } else {
    st->got[i] = 1;
    st->t_out[i] = t;
    st->n_got++;
    if (i < st->prime || st->sp->full_check || bench_gst.check_every <= 1 ||
        (i - st->prime) % bench_gst.check_every == 0) {
      OutItem *it = g_new (OutItem, 1);

      it->sample = sample;
      it->i = i;
      bench_checker_push (st->checker, it);
    } else {
      st->checked[i] = 2;       /* arrived, not in the sample */
      gst_sample_unref (sample);
    }
  }
  st->t_last = t;
  /* The process's CPU time once, at the last output: read at every
   * output it cost this thread (the element's push thread) three system
   * calls a frame, which the row charged to the element. */
  if (st->n_got == st->n)
    st->cpu_last = bench_cpu_ns () - bench_checker_cpu_ns (st->checker);
  if (st->waiting)
    g_cond_broadcast (&st->cond);
  g_mutex_unlock (&st->lock);
  return GST_FLOW_OK;
}

static gpointer
stop_pipeline (gpointer data)
{
  RunState *st = data;

  gst_element_set_state (st->pipeline, GST_STATE_NULL);
  if (st->pool)
    gst_buffer_pool_set_flushing (st->pool, TRUE);
  return NULL;
}

/* On an error, stop the pipeline from another thread so that a push or a
 * pool acquire blocked on it returns. */
static GstBusSyncReply
on_bus_sync (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  RunState *st = user_data;
  GError *err = NULL;
  gchar *dbg = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR)
    return GST_BUS_PASS;
  gst_message_parse_error (msg, &err, &dbg);
  g_mutex_lock (&st->lock);
  if (!st->error) {
    st->error = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
    st->stopper = g_thread_new ("bench-stop", stop_pipeline, st);
  }
  g_cond_broadcast (&st->cond);
  g_mutex_unlock (&st->lock);
  g_clear_error (&err);
  g_free (dbg);
  return GST_BUS_PASS;
}

/* Pops bus messages until @until (a message type) or an error or the
 * deadline; keeps the element's passport and whole-run statistics. */
static gboolean
pump_bus (RunState * st, GstBus * bus, GstMessageType until,
    const gchar * until_name, guint64 timeout_ns)
{
  guint64 deadline = bench_now_ns () + timeout_ns;

  while (bench_now_ns () < deadline) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT);
    const GstStructure *s;
    gboolean done = FALSE, whole = FALSE;

    if (!m) {
      if (st->error)
        return FALSE;
      continue;
    }
    s = gst_message_get_structure (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_unref (m);
      return FALSE;
    }
    if (s && gst_structure_has_name (s, "cudaoverlap-passport")) {
      gchar *pp = gst_structure_to_string (s);

      /* the first one (pipelines may run at once) */
      if (!g_atomic_pointer_compare_and_exchange (&bench_gst.elem_passport,
              NULL, pp))
        g_free (pp);
      if (!st->mem_in) {
        st->mem_in = g_strdup (gst_structure_get_string (s, "memory-in"));
        st->mem_out = g_strdup (gst_structure_get_string (s, "memory-out"));
      }
    }
    if (s && gst_structure_has_name (s, "cudaoverlap-stats") &&
        gst_structure_get_boolean (s, "whole-run", &whole) && whole) {
      g_clear_pointer (&st->whole_run, gst_structure_free);
      st->whole_run = gst_structure_copy (s);
    }
    if (GST_MESSAGE_TYPE (m) == until && (!until_name ||
            (s && gst_structure_has_name (s, until_name))))
      done = TRUE;
    gst_message_unref (m);
    if (done)
      return TRUE;
  }
  g_mutex_lock (&st->lock);
  if (!st->error)
    st->error = g_strdup_printf ("timed out waiting for %s",
        until_name ? until_name : gst_message_type_get_name (until));
  g_mutex_unlock (&st->lock);
  return FALSE;
}

static GstBuffer *
make_input (RunState * st, guint i, GHashTable * contents)
{
  GstBuffer *buf = NULL;
  gint r;

  if (st->pool) {
    guint seen = g_hash_table_size (contents);

    if (gst_buffer_pool_acquire_buffer (st->pool, &buf, NULL) != GST_FLOW_OK)
      return NULL;
    r = bench_pool_buffer_content (buf, contents, st->cuda_in ? (st->sp->peer ?
            &bench_gst.peer_info : &bench_gst.info) : NULL);
    if (st->cuda_in && st->timing && g_hash_table_size (contents) > seen)
      g_atomic_int_inc (&bench_gst.late_fills);
  } else if (st->sp->mem == BENCH_MEM_BLUR_CUDA_IN &&
      st->sp->input == BENCH_IN_APP_PINNED) {
    /* cudaupload's input: frames the application page-locked */
    r = i % BENCH_RING;
    buf = bench_ring_input (st->sp, r);
  } else if (st->sp->mem == BENCH_MEM_BLUR_CUDA_IN) {
    /* cudaupload's input: malloc()ed frames, as the peer's */
    r = i % BENCH_RING;
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, gst_memory_ref (bench_gst.peer_mem[r] ?
            bench_gst.peer_mem[r] : bench_gst.mem[r]));
  } else if (!st->sp->peer && bench_slots_of (st->sp->input)) {
    buf = bench_slot_input (st->sp->slots ? st->sp->slots :
        bench_slots_of (st->sp->input), i, &r);
    if (!buf) {
      g_mutex_lock (&st->lock);
      if (!st->error)
        st->error = g_strdup ("no slot handed back within 60 s");
      g_mutex_unlock (&st->lock);
      return NULL;
    }
  } else if (!st->sp->peer && st->sp->input != BENCH_IN_REGISTERED) {
    r = i % BENCH_RING;
    buf = bench_ring_input (st->sp, r);
  } else {
    r = i % BENCH_RING;
    buf = gst_buffer_new ();
    gst_buffer_append_memory (buf, gst_memory_ref (st->sp->peer ?
            bench_gst.peer_mem[r] : bench_gst.mem[r]));
  }
  GST_BUFFER_PTS (buf) = i * bench_gst.dur;
  GST_BUFFER_DURATION (buf) = bench_gst.dur;
  st->ring_idx[i] = r;
  return buf;
}

/* --memory: the pipeline of @sp, and the caps at appsrc and appsink. */
static gchar *
memory_desc (const BenchRunSpec * sp, GstCaps ** src_caps, GstCaps ** sink_caps)
{
  gboolean in_cuda = sp->mem == BENCH_MEM_CUDA_CUDA ||
      sp->mem == BENCH_MEM_DOWNLOAD;
  gboolean out_cuda = sp->mem == BENCH_MEM_CUDA_CUDA ||
      sp->mem == BENCH_MEM_UPLOAD;
  GstCaps *sys = sp->peer ? bench_gst.peer_caps : bench_gst.caps;
  GstCaps *cuda = sp->peer ? bench_gst.peer_cuda_caps : bench_gst.cuda_caps;
  gchar *set = sp->defaults ? g_strdup ("") :
      g_strdup_printf ("streams=%u chunks=%u mode=%s ", sp->streams,
      sp->chunks, sp->serial ? "serial" : "overlap");
  gchar *desc;

  *src_caps = in_cuda ? cuda : sys;
  *sink_caps = out_cuda ? cuda : sys;
  if (sp->peer)
    desc = g_strdup_printf ("appsrc name=src ! %s ! appsink name=sink",
        sp->mem == BENCH_MEM_UPLOAD ? "cudaupload" : "cudadownload");
  else if (sp->mem == BENCH_MEM_BLUR_REF)
    desc = g_strdup ("appsrc name=src ! cudavideofilter name=filter "
        "operation=box-blur radius=16 backend=cpu stats-interval=0 ! "
        "appsink name=sink");
  else if (sp->mem == BENCH_MEM_BLUR_CUDA_IN)
    desc = g_strdup_printf ("appsrc name=src ! cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudavideofilter name=filter "
        "operation=box-blur radius=16 %sbackend=%s stats-interval=0 %s ! "
        "video/x-raw ! appsink name=sink", set, bench_gst.backend,
        bench_gst.props ? bench_gst.props : "");
  else
    desc = g_strdup_printf ("appsrc name=src ! cudavideofilter name=filter "
        "operation=%s %sbackend=%s stats-interval=0 %s ! appsink name=sink",
        sp->mem == BENCH_MEM_CUDA_CUDA ? bench_gst.op : "none", set,
        bench_gst.backend, bench_gst.props ? bench_gst.props : "");
  g_free (set);
  return desc;
}

gchar *
bench_element_props (const BenchRunSpec * sp)
{
  gchar *set = sp->defaults ? g_strdup ("") :
      g_strdup_printf ("streams=%u chunks=%u mode=%s ", sp->streams,
      sp->chunks, sp->serial ? "serial" : "overlap");
  /* --op gamma: its constant gamma (a ramp's control source sets it per
   * buffer) */
  gchar *props = g_strdup_printf ("operation=%s %s%sbackend=%s "
      "stats-interval=0 %s", bench_gst.op, bench_gst.fr.gamma > 0 ?
      "gamma=" G_STRINGIFY (BENCH_GAMMA) " " : "", set, bench_gst.backend,
      bench_gst.props ? bench_gst.props : "");

  g_free (set);
  return props;
}

const gchar *
bench_reference_name (gboolean ramp)
{
  if (bench_gst.fr.custom)
    return "the custom kernel's CPU implementation over the whole frame";
  if (bench_gst.fr.gamma > 0 && ramp)
    return "a naive CPU gamma at the gamma the control source gives for the "
        "frame's PTS (linear, " G_STRINGIFY (BENCH_RAMP_FROM) " at the first "
        "frame to " G_STRINGIFY (BENCH_RAMP_TO) " at the last)";
  if (bench_gst.fr.gamma > 0)
    return "a naive CPU gamma " G_STRINGIFY (BENCH_GAMMA);
  return "a naive CPU invert";
}

/* --gamma-ramp: the element's gamma bound to a linear interpolation
 * control source over the run's stream time, BENCH_RAMP_FROM at the first
 * frame (PTS 0) and BENCH_RAMP_TO at the last (PTS (n - 1) x duration). */
static void
ramp_attach (RunState * st)
{
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE (cs);

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_LINEAR, NULL);
  gst_timed_value_control_source_set (tv, 0, BENCH_RAMP_FROM);
  gst_timed_value_control_source_set (tv, (st->n - 1) * bench_gst.dur,
      BENCH_RAMP_TO);
  gst_object_add_control_binding (GST_OBJECT (st->filter),
      gst_direct_control_binding_new_absolute (GST_OBJECT (st->filter),
          "gamma", cs));
  st->ramp = cs;
}

/* After a run: what the element chose, from its passport property (the
 * latest reason, measured), for the log. */
static void
note_passport (RunState * st, const BenchRunSpec * sp, BenchRow * row)
{
  GstStructure *pp = NULL;
  gboolean is_auto = FALSE;
  guint s = 0, c = 0, b = 0;

  g_object_get (st->filter, "passport", &pp, NULL);
  if (!pp)
    return;
  gst_structure_get_boolean (pp, "auto", &is_auto);
  gst_structure_get_uint (pp, "streams", &s);
  gst_structure_get_uint (pp, "chunks", &c);
  gst_structure_get_uint (pp, "batch", &b);
  if (is_auto)
    bench_note ("auto %s %s: %u x %u, batch %u, wait-mode %s: %s", row ?
        row->name : "(untimed)", bench_input_names[sp->input], s, c, b,
        gst_structure_get_string (pp, "wait-mode"),
        gst_structure_get_string (pp, "auto-reason"));
  gst_structure_free (pp);
}

void
bench_barrier_init (BenchBarrier * b, guint n)
{
  memset (b, 0, sizeof (*b));
  g_mutex_init (&b->lock);
  g_cond_init (&b->cond);
  b->n = n;
}

void
bench_barrier_wait (BenchBarrier * b)
{
  guint gen;

  g_mutex_lock (&b->lock);
  gen = b->generation;
  if (++b->waiting == b->n) {
    b->waiting = 0;
    b->generation++;
    g_cond_broadcast (&b->cond);
  } else {
    while (gen == b->generation)
      g_cond_wait (&b->cond, &b->lock);
  }
  g_mutex_unlock (&b->lock);
}

void
bench_barrier_clear (BenchBarrier * b)
{
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->cond);
}

/* The first output @i of a run whose sampled checksum is not @want. */
static void
note_wrong_sum (const RunState * st, const BenchRow * row, guint64 i,
    guint64 want)
{
  gchar g[48] = "";

  if (bench_gst.fr.gamma > 0)
    g_snprintf (g, sizeof (g), ", gamma %.6g%s", st->ramp ? st->gamma_of[i] :
        bench_gst.fr.gamma, st->ramp ? " (ramp)" : "");
  bench_note ("check: %s: frame %" G_GUINT64_FORMAT " (ring %d%s): sampled "
      "checksum %016" G_GINT64_MODIFIER "x, expected %016" G_GINT64_MODIFIER
      "x", row ? row->name : "verify", i, st->ring_idx[i], g, st->sum[i], want);
}

/* Runs one pipeline: @sp->frames + 1 frames (+ batch, with batches).
 * Fills @row (when given) with the timed figures and the checks.  FALSE on
 * a pipeline error. */
gboolean
bench_run_pipeline (const BenchRunSpec * sp, BenchRow * row, gchar ** pool_note)
{
  RunState st = { 0, };
  GstAppSinkCallbacks cb = { 0, };
  GstElement *src = NULL, *sink = NULL;
  GstBus *bus = NULL;
  GHashTable *contents = g_hash_table_new (NULL, NULL);
  GError *err = NULL;
  gchar *desc;
  guint64 t0 = 0, c0 = 0, deadline, bad = 0, sampled = 0, i;
  GHashTable *tc0 = NULL, *tc1 = NULL;
  gboolean ok = FALSE;
  GstCaps *src_caps = sp->peer ? bench_gst.peer_caps : bench_gst.caps;
  GstCaps *sink_caps = src_caps;

  st.sp = sp;
  st.prime = 1;
  st.n = sp->frames + 1;
  /* room for a batch of priming frames (set once the element exists) */
  st.ring_idx = g_new0 (gint, sp->frames + MAX_BATCH);
  st.t_push = g_new0 (guint64, sp->frames + MAX_BATCH);
  st.t_out = g_new0 (guint64, sp->frames + MAX_BATCH);
  st.sum = g_new0 (guint64, sp->frames + MAX_BATCH);
  st.got = g_new0 (guint8, sp->frames + MAX_BATCH);
  st.checked = g_new0 (guint8, sp->frames + MAX_BATCH);
  st.want = g_new0 (guint64, sp->frames + MAX_BATCH);
  st.gamma_of = g_new0 (gdouble, sp->frames + MAX_BATCH);
  g_mutex_init (&st.lock);
  g_cond_init (&st.cond);
  st.checker = bench_checker_new (BENCH_CHECK_THREADS, check_output, &st);

  if (sp->mem != BENCH_MEM_NONE) {
    desc = memory_desc (sp, &src_caps, &sink_caps);
    st.cuda_in = gst_caps_is_equal (src_caps, sp->peer ?
        bench_gst.peer_cuda_caps : bench_gst.cuda_caps);
    st.cuda_out = gst_caps_is_equal (sink_caps, sp->peer ?
        bench_gst.peer_cuda_caps : bench_gst.cuda_caps);
  } else if (sp->peer) {
    desc = g_strdup ("appsrc name=src ! cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudadownload ! appsink name=sink");
  } else if (sp->control) {
    desc = g_strdup ("appsrc name=src ! identity ! appsink name=sink");
  } else {
    gchar *props = bench_element_props (sp);

    desc = g_strdup_printf ("appsrc name=src ! cudavideofilter name=filter "
        "%s ! appsink name=sink", props);
    g_free (props);
  }
  st.pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!st.pipeline) {
    st.error = g_strdup (err->message);
    g_clear_error (&err);
    goto done;
  }
  /* every memory pipeline in the one CUDA context the bench reads in */
  if (sp->mem != BENCH_MEM_NONE && sp->mem != BENCH_MEM_BLUR_REF &&
      bench_gst.cuda_context)
    gst_element_set_context (st.pipeline, bench_gst.cuda_context);
  src = gst_bin_get_by_name (GST_BIN (st.pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (st.pipeline), "sink");
  if (!sp->peer && !sp->control) {
    /* a batch comes out when it is full: prime with a whole one */
    st.filter = gst_bin_get_by_name (GST_BIN (st.pipeline), "filter");
    g_object_get (st.filter, "batch", &st.prime, NULL);
    st.prime = CLAMP (st.prime, 1, MAX_BATCH);
    st.n = sp->frames + st.prime;
    if (sp->ramp)
      ramp_attach (&st);
  }
  g_object_set (src, "caps", src_caps, "format", GST_FORMAT_TIME, "is-live",
      sp->live_fps > 0, "do-timestamp", FALSE, "block", TRUE, "max-bytes",
      (guint64) (2 * bench_gst.fr.lay.size), NULL);
  g_object_set (sink, "caps", sink_caps, "sync", FALSE, "max-buffers", 2,
      "drop", FALSE, "enable-last-sample", FALSE, "emit-signals", FALSE, NULL);
  cb.new_sample = on_new_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, &st, NULL);
  bus = gst_element_get_bus (st.pipeline);
  gst_bus_set_sync_handler (bus, on_bus_sync, &st, NULL);

  if (gst_element_set_state (st.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    pump_bus (&st, bus, GST_MESSAGE_ERROR, NULL, GST_SECOND);
    if (!st.error)
      st.error = g_strdup ("the pipeline did not start");
    goto done;
  }
  /* the caps reach the element before any buffer: its engine exists once
   * it has posted its passport */
  if (st.filter && !pump_bus (&st, bus, GST_MESSAGE_ELEMENT,
          "cudaoverlap-passport", WAIT_NS))
    goto done;
  if (st.cuda_in) {
    st.pool = bench_cuda_input_pool (src, src_caps, sp->peer ?
        &bench_gst.peer_info : &bench_gst.info, contents, &st.error);
    if (!st.pool)
      goto done;
  } else if (!sp->peer && sp->input == BENCH_IN_PINNED &&
      sp->mem != BENCH_MEM_BLUR_CUDA_IN && sp->mem != BENCH_MEM_BLUR_REF) {
    gchar *pn = NULL;

    st.pool = bench_input_pool (src, contents, &pn);
    if (pool_note && !*pool_note)
      *pool_note = pn;
    else
      g_free (pn);
    if (!st.pool) {
      st.error = g_strdup ("could not activate the proposed pool");
      goto done;
    }
  }

  /* the priming frames: the pipeline is set up once they have come out */
  for (i = 0; i < st.prime; i++) {
    GstBuffer *buf = make_input (&st, i, contents);

    st.t_push[i] = bench_now_ns ();
    if (!buf || gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      goto done;
  }
  deadline = g_get_monotonic_time () + WAIT_NS / 1000;
  g_mutex_lock (&st.lock);
  st.waiting = TRUE;
  while (!st.got[st.prime - 1] && !st.error)
    if (!g_cond_wait_until (&st.cond, &st.lock, deadline))
      break;
  st.waiting = FALSE;
  g_mutex_unlock (&st.lock);
  if (!st.got[st.prime - 1]) {
    if (!st.error)
      st.error = g_strdup ("the first frame did not come out");
    goto done;
  }

  if (sp->start)
    bench_barrier_wait (sp->start);
  if (sp->start_hook)
    sp->start_hook (TRUE, sp->start_data);
  st.started = TRUE;
  /* read /proc before the clocks start: it is not the element's work */
  tc0 = bench_thread_cpu ();
  t0 = bench_now_ns ();
  c0 = bench_cpu_ns () - bench_checker_cpu_ns (st.checker);
  st.timing = TRUE;
  for (i = st.prime; i < st.n && !st.error; i++) {
    GstBuffer *buf;

    if (sp->live_fps > 0)
      bench_sleep_until (t0 + (guint64) ((i - st.prime) * 1e9 / sp->live_fps));
    buf = make_input (&st, i, contents);
    if (!buf)
      break;
    st.t_push[i] = bench_now_ns ();
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  ok = pump_bus (&st, bus, GST_MESSAGE_EOS, NULL, WAIT_NS * 4);
  g_mutex_lock (&st.lock);
  if (!st.cpu_last)             /* an output missing: up to EOS, then */
    st.cpu_last = bench_cpu_ns () - bench_checker_cpu_ns (st.checker);
  g_mutex_unlock (&st.lock);
  tc1 = bench_thread_cpu ();
  if (st.filter && sp->defaults)
    note_passport (&st, sp, row);

done:
  if (sp->start && !st.started)
    bench_barrier_wait (sp->start);     /* the others must not wait for us */
  if (sp->start_hook && !st.started)
    sp->start_hook (FALSE, sp->start_data);
  bench_checker_wait_idle (st.checker);
  g_mutex_lock (&st.lock);
  if (st.stopper)
    g_thread_join (g_steal_pointer (&st.stopper));
  g_mutex_unlock (&st.lock);
  if (st.pipeline)
    gst_element_set_state (st.pipeline, GST_STATE_NULL);
  if (st.pool) {
    gst_buffer_pool_set_active (st.pool, FALSE);
    gst_object_unref (st.pool);
  }
  if (bus) {
    gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
    gst_object_unref (bus);
  }
  gst_clear_object (&src);
  gst_clear_object (&sink);
  gst_clear_object (&st.filter);
  gst_clear_object (&st.pipeline);
  bench_checker_free (st.checker);
  ok = ok && !st.error;

  /* the box blur's reference: the CPU backend's outputs, collected */
  if (sp->mem == BENCH_MEM_BLUR_REF) {
    for (i = 0; i < st.n && ok; i++)
      if (st.checked[i]) {
        bench_gst.sum_blur[st.ring_idx[i]] = st.sum[i];
        bench_gst.have_blur[st.ring_idx[i]] = TRUE;
      }
    if (st.error)
      bench_note ("error: %s", st.error);
    g_clear_pointer (&tc0, g_hash_table_unref);
    g_clear_pointer (&tc1, g_hash_table_unref);
    goto free;
  }
  /* the element's own account of its memories */
  if (ok && st.filter && sp->mem != BENCH_MEM_NONE) {
    const gchar *want_in = st.cuda_in || sp->mem == BENCH_MEM_BLUR_CUDA_IN ?
        "cuda" : "system";
    const gchar *want_out = st.cuda_out ? "cuda" : "system";

    if (g_strcmp0 (st.mem_in, want_in) || g_strcmp0 (st.mem_out, want_out)) {
      bench_note ("check: %s: the element's passport says memory-in %s, "
          "memory-out %s; expected %s, %s", bench_mem_names[sp->mem],
          GST_STR_NULL (st.mem_in), GST_STR_NULL (st.mem_out), want_in,
          want_out);
      bad++;
    }
  }
  /* the checks, outside the timed loop */
  for (i = 0; i < st.n; i++) {
    guint64 want;

    if (!st.checked[i]) {
      bad++;
      continue;
    }
    if (st.checked[i] == 2)     /* arrived, not in the sample */
      continue;
    sampled++;
    want = st.ramp ? st.want[i] : expected_sum (sp, st.ring_idx[i]);
    if (st.sum[i] != want && bad++ == 0)
      note_wrong_sum (&st, row, i, want);
  }
  bad += st.stray;
  if (st.error)
    bench_note ("error: %s", st.error);
  if (sp->full_check) {
    if (sp->mem != BENCH_MEM_NONE) {
      gboolean fail = st.full_bad || bad || !ok;

      bench_note ("verify %s%s: %s: %u/%u outputs %s%s%s", sp->peer ? "peer " :
          "", bench_mem_names[sp->mem], fail ? "FAILED" : "ok",
          fail ? (guint) (st.n - MIN (st.n, bad + st.full_bad)) : st.n, st.n,
          expect_invert (sp) ? "identical, every picture byte, to a naive CPU "
          "invert" : "identical, every picture byte, to the input",
          st.cuda_out ? " (copied to system memory by libgstcuda; and the "
          "bytes gathered on the device hash as the copy)" : "",
          fail && st.full_bad ? st.full_msg : "");
      bench_gst.failed |= fail;
    } else if (st.full_bad || bad || !ok) {
      bench_note ("verify %s %s%s: FAILED: %" G_GUINT64_FORMAT " of %u "
          "outputs differ from the reference byte by byte, %" G_GUINT64_FORMAT
          " missing or with a wrong sampled checksum%s%s", sp->peer ? "peer" :
          "element", sp->peer ? "malloc" : bench_input_names[sp->input],
          sp->ramp ? " (gamma ramp)" : "", st.full_bad, st.n, bad,
          st.full_bad ? "; first: " : "", st.full_msg);
      bench_gst.failed = TRUE;
    } else {
      if (sp->peer || sp->control)
        bench_note ("verify %s %s: %u/%u outputs identical, every "
            "picture byte, to the input (no kernel)", sp->peer ? "peer" :
            "control", sp->peer ? "malloc" : bench_input_names[sp->input],
            st.n, st.n);
      else
        bench_note ("verify element %s (%s%s): %u/%u outputs identical, "
            "every picture byte, to %s", bench_input_names[sp->input],
            sp->defaults ? "defaults" : sp->serial ? "serial" : "overlap",
            sp->ramp ? ", gamma ramp" : "", st.n, st.n,
            bench_reference_name (sp->ramp));
    }
  }
  if (row && tc0 && tc1) {
    gchar *d = bench_thread_cpu_diff (tc0, tc1, sp->frames);
    gchar *set = g_strdup_printf ("%ux%u", row->streams, row->chunks);

    bench_note ("threads %s %s %s %s, cpu ms/frame by thread (and times "
        "put on a CPU per frame): %s", row->name, row->mode, row->input,
        sp->defaults ? "auto" : set, d);
    g_free (set);
    g_free (d);
  }
  g_clear_pointer (&tc0, g_hash_table_unref);
  g_clear_pointer (&tc1, g_hash_table_unref);
  if (row) {
    guint64 frames = sp->frames;
    const GstStructure *s = st.whole_run;

    row->checked = sampled;
    row->bad = bad;
    row->t0_ns = t0;
    row->t1_ns = st.t_last;
    if (sp->defaults && s) {
      /* what the element chose (its last choice, on the statistics) */
      gst_structure_get_uint (s, "streams", &row->streams);
      gst_structure_get_uint (s, "chunks", &row->chunks);
    }
    if (ok && sp->live_fps > 0 && frames > 1 && st.got[1]) {
      /* paced: the output rate, first to last timed output */
      row->fps = (frames - 1) * 1e9 / (gdouble) (st.t_last - st.t_out[1]);
      row->gbps = row->fps * 2.0 * bench_gst.fr.lay.size / 1e9;
      row->cpu_ms = bench_cpu_ms_per_frame (c0, st.cpu_last, frames);
    } else if (ok && st.t_last > t0) {
      row->fps = frames * 1e9 / (gdouble) (st.t_last - t0);
      row->gbps = row->fps * 2.0 * bench_gst.fr.lay.size / 1e9;
      row->cpu_ms = bench_cpu_ms_per_frame (c0, st.cpu_last, frames);
    }
    if (sp->live_fps > 0) {
      gdouble *lat = g_new (gdouble, st.n);
      guint n = 0;

      for (i = st.prime; i < st.n; i++)
        if (st.got[i])
          lat[n++] = (st.t_out[i] - st.t_push[i]) / 1e6;
      row->p50_ms = bench_percentile (lat, n, 50);
      row->p99_ms = bench_percentile (lat, n, 99);
      g_free (lat);
      /* where the time goes: the element's own view, chain entry to push */
      if (s)
        bench_note ("latency %s %s %s %ux%u: bench push to appsink p50 %.3f "
            "ms; element chain entry to push p50 %.3f ms; device first H2D "
            "start to last D2H end p50 %.3f ms", row->name, row->mode,
            row->input, row->streams, row->chunks, row->p50_ms,
            bench_stat_u64 (s, "latency-p50") / 1e6,
            bench_stat_u64 (s, "gpu-latency-p50") / 1e6);
    } else if (s) {
      /* a run without warm-up: its start against its steady part */
      if (ok && opt_warmup == 0 && st.n > SHAPE_FROM + 2 && st.got[0] &&
          st.got[SHAPE_FROM])
        bench_note ("run shape %s %s %s %ux%u: first frame out %.3f ms after "
            "its push; frames %u-%u %.1f frames/s; all %u from the first "
            "push %.1f frames/s", row->name, row->mode, row->input,
            row->streams, row->chunks, (st.t_out[0] - st.t_push[0]) / 1e6,
            SHAPE_FROM, st.n - 1, (st.n - 1 - SHAPE_FROM) * 1e9 /
            (gdouble) (st.t_last - st.t_out[SHAPE_FROM]), st.n,
            st.n * 1e9 / (gdouble) (st.t_last - st.t_push[0]));
      row->p50_ms = bench_stat_u64 (s, "latency-p50") / 1e6;
      row->p99_ms = bench_stat_u64 (s, "latency-p99") / 1e6;
    }
    if (s) {
      guint64 pin = bench_stat_u64 (s, "frames-pinned");
      guint64 reg = bench_stat_u64 (s, "frames-registered");
      guint64 pag = bench_stat_u64 (s, "frames-pageable");
      guint64 stg = bench_stat_u64 (s, "frames-staged");
      guint64 all = pin + reg + pag + stg;

      gst_structure_get_double (s, "overlap-efficiency", &row->eff);
      /* the timed pipeline's own element: its first frame and when its
       * automatic settings settled, from its first (priming) buffer */
      bench_note ("settle %s %s %s %ux%u: first frame %.3f ms, settled %.3f "
          "ms after the first buffer (0: not settled)", row->name, row->mode,
          row->input, row->streams, row->chunks,
          bench_stat_u64 (s, "first-frame-ns") / 1e6,
          bench_stat_u64 (s, "settled-ns") / 1e6);
      if (all == pin || all == reg || all == pag || all == stg)
        g_snprintf (row->hostmem, sizeof (row->hostmem), "%s %"
            G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, pin ? "pinned" : reg ?
            "registered" : stg ? "staged" : "pageable", all, all);
      else
        g_snprintf (row->hostmem, sizeof (row->hostmem), "pinned %"
            G_GUINT64_FORMAT " registered %" G_GUINT64_FORMAT " staged %"
            G_GUINT64_FORMAT " pageable %" G_GUINT64_FORMAT, pin, reg, stg,
            pag);
    } else if (sp->peer) {
      /* checked after the run: none of its input may be page-locked */
      guint locked = bench_cuda_count_locked (bench_gst.peer_ring, BENCH_RING);

      g_snprintf (row->hostmem, sizeof (row->hostmem),
          "malloc, %u/%u page-locked", locked, BENCH_RING);
      if (locked > 0) {
        bench_note ("check: peer: %u of its %u input frames are page-locked; "
            "its figures are not those of pageable input", locked, BENCH_RING);
        bench_gst.failed = TRUE;
      }
    }
    row->invalid = !ok || bad > 0;
    if (!ok)
      g_snprintf (row->check, sizeof (row->check), "INVALID: error");
    else if (bad)
      g_snprintf (row->check, sizeof (row->check), "INVALID %"
          G_GUINT64_FORMAT "/%u bad", bad, st.n);
    else if (sampled < st.n)
      g_snprintf (row->check, sizeof (row->check), "ok %" G_GUINT64_FORMAT
          "/%" G_GUINT64_FORMAT " of %u", sampled, sampled, st.n);
    else
      g_snprintf (row->check, sizeof (row->check), "ok %u/%u", st.n, st.n);
  }

free:
  g_clear_pointer (&st.whole_run, gst_structure_free);
  g_free (st.mem_in);
  g_free (st.mem_out);
  g_hash_table_unref (contents);
  g_free (st.error);
  g_free (st.ring_idx);
  g_free (st.t_push);
  g_free (st.t_out);
  g_free (st.sum);
  g_free (st.got);
  g_free (st.checked);
  g_free (st.want);
  g_free (st.gamma_of);
  if (st.ramp)
    gst_object_unref (st.ramp);
  g_mutex_clear (&st.lock);
  g_cond_clear (&st.cond);
  return ok;
}
