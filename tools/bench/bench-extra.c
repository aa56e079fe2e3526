/* cudaoverlap-bench: several pipelines at once (--pipelines) and the first
 * frame's time (--first-frame).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * --pipelines N: N copies of a row's pipeline, each on its own thread, in
 * one process.  Each primes (one frame, waited for), then all wait for
 * each other and push their timed frames at once.  A row per pipeline
 * (its own frames/s, first push to last output) and an aggregate row: all
 * timed frames over the first push to the last output of any of them.
 * Every output of every pipeline is checked as in any row.
 *
 * --first-frame: a fresh pipeline set to PLAYING and fed its first frame
 * at once: the time from that push to its output (and from PLAYING to it),
 * the output checked byte by byte.  "cold" is the first pipeline of the
 * process: the element's engine build then includes the CUDA context's
 * creation, which a child process measures alone (cudaFree (0) as its
 * first CUDA call) so that it can be told apart; "warm" is a second
 * pipeline with the same caps after the first one ran, in the same
 * process.
 *
 * The memcpy ceiling (--input wrapped or fresh): a frame that the element
 * stages is copied from pageable into page-locked memory by the host's
 * CPUs first, so the lower of the raw ceiling and the host's memcpy is
 * what such an input can reach.  Each of T threads copies its slice of
 * every frame: "a frame" rows one frame at a time (every slice of a frame
 * done before the next starts, as a frame's staging copy is), "free" rows
 * with no step between frames (the host's memcpy bandwidth, an upper bound
 * of any split).
 */
#include <stdio.h>
#include <string.h>
#include <math.h>

#include <gst/app/app.h>

#include "tool-common.h"
#include "bench-gst.h"

#define FIRST_WAIT (60 * GST_SECOND)

typedef struct
{
  BenchRunSpec sp;
  BenchRow row;
  gboolean ok;
} Concurrent;

static gpointer
concurrent_main (gpointer data)
{
  Concurrent *c = data;

  c->ok = bench_run_pipeline (&c->sp, &c->row, NULL);
  return NULL;
}

/* Runs @n copies of @sp at once; appends a row per pipeline, then the
 * aggregate, to @rows.  FALSE if any failed. */
gboolean
bench_run_concurrent (const BenchRunSpec * sp, guint n, const gchar * mode,
    GArray * rows)
{
  Concurrent *c = g_new0 (Concurrent, n);
  GThread **threads = g_new0 (GThread *, n);
  BenchSlots *shared = bench_slots_of (sp->input);
  /* slot inputs: a set per pipeline, like the process's one */
  BenchSlots *own = shared ? g_new0 (BenchSlots, n) : NULL;
  BenchBarrier start;
  gboolean ok = TRUE;
  guint i;

  bench_barrier_init (&start, n);
  for (i = 0; i < n; i++) {
    gchar name[24];

    c[i].sp = *sp;
    c[i].sp.start = &start;
    if (own) {
      bench_slots_init (&own[i], shared->n, shared->locked, shared->recurring);
      c[i].sp.slots = &own[i];
    }
    g_snprintf (name, sizeof (name), "pipeline %u/%u", i + 1, n);
    bench_row_init (&c[i].row, name, mode, bench_input_names[sp->input],
        sp->streams, sp->chunks);
    c[i].row.frames = sp->frames;
    threads[i] = g_thread_new ("bench-pipeline", concurrent_main, &c[i]);
  }
  for (i = 0; i < n; i++) {
    g_thread_join (threads[i]);
    c[i].row.invalid |= !c[i].ok;
    /* the process's CPU time is shared: no figure per pipeline */
    c[i].row.cpu_ms = NAN;
    g_array_append_val (rows, c[i].row);
  }
  ok = bench_aggregate (rows, n, "pipelines", "pipeline");
  for (i = 0; own && i < n; i++)
    bench_slots_clear (&own[i]);
  g_free (own);
  bench_barrier_clear (&start);
  g_free (threads);
  g_free (c);
  return ok;
}

typedef struct
{
  BenchRaw *raw;
  BenchRow row;
  guint streams, warmup;
} RawClient;

static void
raw_client_start (gpointer data)
{
  bench_barrier_wait (data);
}

static gpointer
raw_client_main (gpointer data)
{
  RawClient *c = data;

  bench_raw_throughput (c->raw, c->streams, 1, FALSE, c->warmup,
      c->row.frames, &c->row);
  return NULL;
}

/* See bench-gst.h. */
gboolean
bench_run_raw_clients (const BenchCustom * custom, guint n, guint streams,
    guint warmup, guint frames, GArray * rows)
{
  RawClient *c = g_new0 (RawClient, n);
  GThread **threads = g_new0 (GThread *, n);
  BenchBarrier start;
  gchar mode[32];
  gboolean ok;
  guint i;

  g_snprintf (mode, sizeof (mode), "%u clients", n);
  bench_barrier_init (&start, n);
  for (i = 0; i < n; i++) {
    gchar name[24];

    c[i].raw = bench_raw_new_shared (&bench_gst.fr, custom, 0, n);
    bench_raw_set_start (c[i].raw, raw_client_start, &start);
    c[i].streams = streams;
    c[i].warmup = warmup;
    g_snprintf (name, sizeof (name), "raw client %u/%u", i + 1, n);
    bench_row_init (&c[i].row, name, mode, "pinned", streams, 1);
    c[i].row.frames = frames;
  }
  for (i = 0; i < n; i++)
    threads[i] = g_thread_new ("bench-raw-client", raw_client_main, &c[i]);
  for (i = 0; i < n; i++) {
    g_thread_join (threads[i]);
    /* the process's CPU time is shared (and the loops' waits spin) */
    c[i].row.cpu_ms = NAN;
    g_array_append_val (rows, c[i].row);
  }
  ok = bench_aggregate (rows, n, "raw-clients", "client");
  for (i = 0; i < n; i++)
    bench_raw_free (c[i].raw);
  bench_barrier_clear (&start);
  g_free (threads);
  g_free (c);
  return ok;
}

/* See bench-gst.h.  cpu ms/frame: the rows' CPU time over all their
 * frames (NAN when a row has none: the pipelines of one process). */
gboolean
bench_aggregate (GArray * rows, guint n, const gchar * name, const gchar * unit)
{
  const BenchRow *first = &g_array_index (rows, BenchRow, rows->len - n);
  BenchRow all;
  guint64 t0 = G_MAXUINT64, t1 = 0, frames = 0;
  gdouble sum = 0, lo = INFINITY, hi = 0, cpu = 0;
  guint i, failed = 0;

  bench_row_init (&all, name, first->mode, first->input, first->streams,
      first->chunks);
  for (i = 0; i < n; i++) {
    const BenchRow *r = first + i;

    failed += r->invalid;
    all.checked += r->checked;
    all.bad += r->bad;
    all.streams = r->streams;
    all.chunks = r->chunks;
    if (r->invalid)
      continue;
    t0 = MIN (t0, r->t0_ns);
    t1 = MAX (t1, r->t1_ns);
    frames += r->frames;
    sum += r->fps;
    cpu += r->cpu_ms * r->frames;
    lo = MIN (lo, r->fps);
    hi = MAX (hi, r->fps);
  }
  all.frames = frames;
  all.invalid = failed > 0;
  all.fps = !failed && t1 > t0 ? frames * 1e9 / (gdouble) (t1 - t0) : NAN;
  all.gbps = all.fps * 2.0 * bench_gst.fr.lay.size / 1e9;
  all.cpu_ms = !failed && frames ? cpu / frames : NAN;
  if (!failed)
    g_snprintf (all.check, sizeof (all.check), "ok %" G_GUINT64_FORMAT "/%"
        G_GUINT64_FORMAT, all.checked, all.checked);
  else
    g_snprintf (all.check, sizeof (all.check), "INVALID: %u of %u %s, %"
        G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " bad", failed, n, name,
        all.bad, all.checked);
  g_array_append_val (rows, all);
  if (!failed)
    bench_note ("%s %s %s: aggregate %.1f frames/s (all timed frames, first "
        "push to last output of any); per %s %.1f .. %.1f, mean %.1f (%.3f "
        ".. %.3f x the mean)", name, all.mode, all.input, all.fps, unit, lo,
        hi, sum / n, lo * n / sum, hi * n / sum);
  return !failed;
}

/* The first output of @sink, checked against ring frame 0's invert. */
static gboolean
first_output (GstElement * sink, guint64 * t_out, gchar * msg, gsize size)
{
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
      FIRST_WAIT);
  const guint8 *data[BENCH_MAX_PLANES] = { NULL, };
  gsize stride[BENCH_MAX_PLANES] = { 0, };
  guint8 *ref = g_malloc (bench_gst.fr.lay.size);
  GstVideoFrame vf;
  gboolean same = FALSE;
  gint p;

  *t_out = bench_now_ns ();
  g_strlcpy (msg, "no output within 60 s", size);
  if (s && gst_video_frame_map (&vf, &bench_gst.info,
          gst_sample_get_buffer (s), GST_MAP_READ)) {
    for (p = 0; p < bench_gst.fr.lay.n_planes; p++) {
      data[p] = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
      stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
    }
    bench_op_ref (&bench_gst.fr, bench_gst.fr.ring[0], ref);
    same = bench_compare (&bench_gst.fr.lay, data, stride, ref, msg, size);
    gst_video_frame_unmap (&vf);
  }
  if (s)
    gst_sample_unref (s);
  g_free (ref);
  return same;
}

/* One first frame: a fresh pipeline, PLAYING, ring frame 0 pushed at once
 * (the ring's GstMemory: registered input); fills @row's p50 with the
 * time from the push to the output.  FALSE on an error. */
gboolean
bench_first_frame (const BenchRunSpec * sp, const gchar * mode, BenchRow * row)
{
  gchar *props = bench_element_props (sp), msg[160];
  gchar *desc = g_strdup_printf ("appsrc name=src ! cudavideofilter "
      "name=filter %s ! appsink name=sink sync=false", props);
  GstElement *pipe = gst_parse_launch (desc, NULL), *src, *sink, *filter;
  GstStructure *pp = NULL;
  GstBuffer *buf = gst_buffer_new ();
  guint64 t_play, t_push, t_out;
  gboolean ok;

  bench_row_init (row, "first-frame", mode, "registered", sp->streams,
      sp->chunks);
  row->frames = 1;
  g_assert (pipe != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  filter = gst_bin_get_by_name (GST_BIN (pipe), "filter");
  g_object_set (src, "caps", bench_gst.caps, "format", GST_FORMAT_TIME,
      "is-live", FALSE, NULL);
  gst_buffer_append_memory (buf, gst_memory_ref (bench_gst.mem[0]));
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = bench_gst.dur;
  t_play = bench_now_ns ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  t_push = bench_now_ns ();
  gst_app_src_push_buffer (GST_APP_SRC (src), buf);
  ok = first_output (sink, &t_out, msg, sizeof (msg));
  /* the settings in effect (automatic ones too) */
  g_object_get (filter, "passport", &pp, NULL);
  if (pp) {
    gst_structure_get_uint (pp, "streams", &row->streams);
    gst_structure_get_uint (pp, "chunks", &row->chunks);
    gst_structure_free (pp);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  row->checked = 1;
  row->bad = ok ? 0 : 1;
  row->invalid = !ok;
  row->p50_ms = row->p99_ms = (t_out - t_push) / 1e6;
  g_strlcpy (row->check, ok ? "ok 1/1" : "INVALID 1/1 bad",
      sizeof (row->check));
  bench_note ("first-frame %s: first push to its output %.3f ms, PLAYING to "
      "it %.3f ms (%s)%s%s", mode, (t_out - t_push) / 1e6,
      (t_out - t_play) / 1e6, props, ok ? "" : ": ", ok ? "" : msg);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (filter);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (props);
  return ok;
}

/* ---- the memcpy ceiling -------------------------------------------------- */

/* One thread's slice [off, off + len) of every frame.  Free-running: all
 * frames in a row; per frame: one frame, then the barrier. */
typedef struct
{
  guint8 *const *src, *const *dst;
  guint n_src, n_dst, frames;
  gsize off, len;
  gboolean per_frame;
  GMutex *lock;
  GCond *cond;
  guint *frame_go, *done;       /* per frame: the frame to copy, slices done */
} MemcpySlice;

static gpointer
memcpy_slice_main (gpointer data)
{
  MemcpySlice *m = data;
  guint i;

  for (i = 0; i < m->frames; i++) {
    if (m->per_frame) {
      g_mutex_lock (m->lock);
      while (*m->frame_go < i)
        g_cond_wait (m->cond, m->lock);
      g_mutex_unlock (m->lock);
    }
    memcpy (m->dst[i % m->n_dst] + m->off, m->src[i % m->n_src] + m->off,
        m->len);
    if (m->per_frame) {
      g_mutex_lock (m->lock);
      (*m->done)++;
      g_cond_broadcast (m->cond);
      g_mutex_unlock (m->lock);
    }
  }
  return NULL;
}

void
bench_memcpy_row (guint8 * const *src, guint n_src, guint8 * const *dst,
    guint n_dst, guint threads, gboolean per_frame, guint frames,
    const gchar * hostmem, GArray * rows)
{
  gsize size = bench_gst.fr.lay.size;
  gsize step = (size / threads + 63) & ~(gsize) 63;
  MemcpySlice *sl = g_new0 (MemcpySlice, threads);
  GThread **th = g_new0 (GThread *, threads);
  GMutex lock;
  GCond cond;
  guint frame_go = 0, done = 0;
  gchar mode[24];
  BenchRow row;
  guint64 t0;
  guint i;

  g_mutex_init (&lock);
  g_cond_init (&cond);
  g_snprintf (mode, sizeof (mode), "%u threads%s", threads, per_frame ?
      " a frame" : " free");
  bench_row_init (&row, "memcpy", mode, "pageable", threads, 0);
  g_strlcpy (row.hostmem, hostmem, sizeof (row.hostmem));
  t0 = bench_now_ns ();
  for (i = 0; i < threads; i++) {
    sl[i] = (MemcpySlice) {
    src, dst, n_src, n_dst, frames, MIN (size, i * step), 0, per_frame,
          &lock, &cond, &frame_go, &done};
    sl[i].len = i + 1 < threads ? MIN (step, size - sl[i].off) :
        size - sl[i].off;
    th[i] = g_thread_new ("bench-memcpy", memcpy_slice_main, &sl[i]);
  }
  /* per frame: frame i + 1 starts once every slice of frame i is done */
  for (i = 1; per_frame && i <= frames; i++) {
    g_mutex_lock (&lock);
    while (done < i * threads)
      g_cond_wait (&cond, &lock);
    frame_go = i;
    g_cond_broadcast (&cond);
    g_mutex_unlock (&lock);
  }
  for (i = 0; i < threads; i++)
    g_thread_join (th[i]);
  row.frames = frames;
  row.fps = frames * 1e9 / (gdouble) MAX (bench_now_ns () - t0, 1);
  row.gbps = row.fps * 2.0 * size / 1e9;
  /* after the run, the last frame written into each destination is
   * compared with its source (frame i went to dst[i % n_dst]) */
  for (i = frames > n_dst ? frames - n_dst : 0; i < frames; i++)
    row.bad += memcmp (dst[i % n_dst], src[i % n_src], size) != 0;
  row.checked = MIN (frames, n_dst);
  row.invalid = row.bad > 0;
  g_snprintf (row.check, sizeof (row.check), row.invalid ?
      "INVALID: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " bad" : "ok %"
      G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, row.invalid ? row.bad :
      row.checked, row.checked);
  bench_gst.failed |= row.invalid;
  fprintf (stderr, "[bench] memcpy %s: %.1f frames/s (%.1f GB/s copied), "
      "%s\n", mode, row.fps, row.fps * size / 1e9, row.check);
  g_array_append_val (rows, row);
  g_mutex_clear (&lock);
  g_cond_clear (&cond);
  g_free (th);
  g_free (sl);
}
