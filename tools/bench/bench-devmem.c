/* cudaoverlap-bench: device memory (--memory): the gather of a
 * device frame's sampled bytes, and the raw one-way and device-only loops.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Checking a frame in device memory: the pieces bench_checksum reads
 * (bench_pieces: for 4K RGBA 256 bytes of every row and two whole rows,
 * about 1/60 of the frame) are gathered on the device by one small kernel
 * (bench-gather.cu) into a compact buffer, copied to page-locked host
 * memory in one cudaMemcpyAsync and hashed there (bench_checksum_pieces,
 * the same value as bench_checksum of the whole frame).  Each of a few
 * slots has its own non-blocking stream, device and host buffers; a checker
 * thread takes a free slot.  All of it runs in the CUDA runtime's primary
 * context of device 0, which is the context cudavideofilter wraps and
 * shares (see the shared GstContext in bench-pipeline.c).
 *
 * The raw loops (bench_rawmem_run), like bench-raw.c's but without a round
 * trip: device: the invert kernel from a ring of 16 device frames into 16
 * device output frames, bands on streams round-robin, no copies; h2d: whole
 * frames from a page-locked ring of 16 (cudaHostAlloc) into 16 device
 * frames, frame f on stream f % streams; d2h: whole frames from the device
 * ring into 16 page-locked frames.  At most 8 frames in flight.  Once a
 * frame is done (its events waited for), a device output is gathered on a
 * separate check stream and its checksum computed on a checker thread;
 * a page-locked output is hashed there directly.  An output frame is reused
 * once it has been checked.  Every CUDA call is checked: on failure the
 * call and its error are printed and the program exits with status 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench.h"
#include "co-kernels.h"
#include "tool-cuda.h"

#define RM_OUT 16               /* output frames */
#define RM_DEPTH 8              /* frames in flight */
#define RM_MAX_STREAMS 8

/* ---- the gather ---------------------------------------------------------- */

typedef struct
{
  BenchPiece *pieces;           /* host copy (the keys) */
  BenchPiece *d_pieces;
  guint n;
  gsize bytes;
} GatherTable;

static void
table_init (GatherTable * t, const BenchLayout * l)
{
  t->pieces = bench_pieces (l, &t->n, &t->bytes);
  t->d_pieces = (BenchPiece *) tool_cuda_dev_new (t->n * sizeof (BenchPiece),
      t->pieces);
}

static void
table_clear (GatherTable * t)
{
  tool_cuda_dev_free (t->d_pieces);
  g_free (t->pieces);
}

typedef struct
{
  cudaStream_t stream;
  guint8 *d_out, *h_out;
} GatherSlot;

#define GATHER_MAX_SLOTS 8

struct _BenchGather
{
  GatherTable t;
  guint n_slots;
  GatherSlot slots[GATHER_MAX_SLOTS];
  GAsyncQueue *free_slots;
};

BenchGather *
bench_gather_new (const BenchLayout * l, guint slots)
{
  BenchGather *g = g_new0 (BenchGather, 1);
  guint i;

  TOOL_CK (cudaSetDevice (0));
  table_init (&g->t, l);
  g->n_slots = CLAMP (slots, 1, GATHER_MAX_SLOTS);
  g->free_slots = g_async_queue_new ();
  for (i = 0; i < g->n_slots; i++) {
    GatherSlot *s = &g->slots[i];

    tool_cuda_streams_new (&s->stream, 1);
    s->d_out = tool_cuda_dev_new (g->t.bytes, NULL);
    s->h_out = tool_cuda_host_new (g->t.bytes, cudaHostAllocDefault, NULL);
    g_async_queue_push (g->free_slots, s);
  }
  return g;
}

void
bench_gather_free (BenchGather * g)
{
  guint i;

  if (!g)
    return;
  for (i = 0; i < g->n_slots; i++) {
    TOOL_CK (cudaStreamSynchronize (g->slots[i].stream));
    tool_cuda_streams_free (&g->slots[i].stream, 1);
    tool_cuda_dev_free (g->slots[i].d_out);
    tool_cuda_host_free (g->slots[i].h_out);
  }
  g_async_queue_unref (g->free_slots);
  table_clear (&g->t);
  g_free (g);
}

gsize
bench_gather_bytes (BenchGather * g)
{
  return g->t.bytes;
}

gboolean
bench_gather_sum (BenchGather * g, const guint8 * const dev[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], guint64 * sum, gchar * err,
    gsize err_size)
{
  GatherSlot *s = g_async_queue_pop (g->free_slots);
  BenchGatherSrc src;
  cudaError_t e;
  guint i;

  memset (&src, 0, sizeof (src));
  for (i = 0; i < BENCH_MAX_PLANES; i++) {
    src.base[i] = dev[i];
    src.stride[i] = stride[i];
  }
  e = bench_gather_launch (g->t.d_pieces, g->t.n, src, s->d_out, s->stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync (s->h_out, s->d_out, g->t.bytes,
        cudaMemcpyDeviceToHost, s->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize (s->stream);
  if (e == cudaSuccess)
    *sum = bench_checksum_pieces (g->t.pieces, g->t.n, s->h_out);
  else
    g_snprintf (err, err_size, "gathering the sampled bytes on the device: "
        "%s (%s)", cudaGetErrorString (e), cudaGetErrorName (e));
  g_async_queue_push (g->free_slots, s);
  return e == cudaSuccess;
}

/* ---- the raw loops ------------------------------------------------------- */

struct _BenchRawMem
{
  const BenchFrames *f;
  BenchRawMemKind kind;
  GatherTable t;
  guint8 *dev_ring[BENCH_RING]; /* device, d2h */
  guint8 *pin_in[BENCH_RING];   /* h2d */
  guint8 *dev_out[RM_OUT];      /* device, h2d */
  guint8 *pin_out[RM_OUT];      /* d2h */
  guint8 *d_compact[RM_OUT], *h_compact[RM_OUT];        /* device, h2d */
  cudaStream_t streams[RM_MAX_STREAMS], check_stream;
  cudaEvent_t ev[RM_OUT][RM_MAX_STREAMS], check_ev[RM_OUT];
  guint32 ev_used[RM_OUT];
  guint64 next_stream;

  BenchChecker *checker;
  GMutex lock;
  GCond cond;
  gboolean busy[RM_OUT];
  BenchRow *row;
};

static gboolean
gathers (const BenchRawMem * r)
{
  return r->kind != BENCH_RAWMEM_D2H;
}

static void
rawmem_check (gpointer item, gpointer user_data)
{
  BenchRawMem *r = user_data;
  guint64 f = GPOINTER_TO_SIZE (item) - 1, sum, want;
  guint s = f % RM_OUT;
  BenchRow *row = r->row;

  if (gathers (r)) {
    TOOL_CK (cudaEventSynchronize (r->check_ev[s]));
    sum = bench_checksum_pieces (r->t.pieces, r->t.n, r->h_compact[s]);
  } else {
    sum = bench_checksum_packed (&r->f->lay, r->pin_out[s]);
  }
  want = r->kind == BENCH_RAWMEM_DEVICE ? r->f->sum_inv[f % BENCH_RING] :
      r->f->sum_id[f % BENCH_RING];
  g_mutex_lock (&r->lock);
  row->checked++;
  if (sum != want && row->bad++ == 0)
    fprintf (stderr, "check: %s %ux%u: frame %" G_GUINT64_FORMAT " (ring %u): "
        "sampled checksum %016" G_GINT64_MODIFIER "x, expected %016"
        G_GINT64_MODIFIER "x\n", row->name, row->streams, row->chunks, f,
        (guint) (f % BENCH_RING), sum, want);
  r->busy[s] = FALSE;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
}

BenchRawMem *
bench_rawmem_new (const BenchFrames * f, BenchRawMemKind kind, gint device)
{
  BenchRawMem *r = g_new0 (BenchRawMem, 1);
  gsize size = f->lay.size;
  guint i;

  r->f = f;
  r->kind = kind;
  TOOL_CK (cudaSetDevice (device));
  for (i = 0; i < BENCH_RING; i++) {
    if (kind == BENCH_RAWMEM_H2D)
      r->pin_in[i] = tool_cuda_host_new (size, cudaHostAllocDefault,
          f->ring[i]);
    else
      r->dev_ring[i] = tool_cuda_dev_new (size, f->ring[i]);
  }
  if (gathers (r))
    table_init (&r->t, &f->lay);
  for (i = 0; i < RM_OUT; i++) {
    if (gathers (r)) {
      r->dev_out[i] = tool_cuda_dev_new (size, NULL);
      r->d_compact[i] = tool_cuda_dev_new (r->t.bytes, NULL);
      r->h_compact[i] = tool_cuda_host_new (r->t.bytes, cudaHostAllocDefault,
          NULL);
    } else {
      r->pin_out[i] = tool_cuda_host_new (size, cudaHostAllocDefault, NULL);
    }
  }
  tool_cuda_events_new (&r->ev[0][0], RM_OUT * RM_MAX_STREAMS,
      cudaEventDisableTiming);
  tool_cuda_events_new (r->check_ev, RM_OUT, cudaEventDisableTiming);
  tool_cuda_streams_new (r->streams, RM_MAX_STREAMS);
  tool_cuda_streams_new (&r->check_stream, 1);
  TOOL_CK (cudaDeviceSynchronize ());
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  r->checker = bench_checker_new (BENCH_CHECK_THREADS, rawmem_check, r);
  return r;
}

void
bench_rawmem_free (BenchRawMem * r)
{
  guint i;

  if (!r)
    return;
  bench_checker_free (r->checker);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
  TOOL_CK (cudaDeviceSynchronize ());
  tool_cuda_streams_free (r->streams, RM_MAX_STREAMS);
  tool_cuda_streams_free (&r->check_stream, 1);
  tool_cuda_events_free (&r->ev[0][0], RM_OUT * RM_MAX_STREAMS);
  tool_cuda_events_free (r->check_ev, RM_OUT);
  for (i = 0; i < RM_OUT; i++) {
    tool_cuda_dev_free (r->dev_out[i]);
    tool_cuda_dev_free (r->d_compact[i]);
    tool_cuda_host_free (r->h_compact[i]);
    tool_cuda_host_free (r->pin_out[i]);
  }
  for (i = 0; i < BENCH_RING; i++) {
    tool_cuda_dev_free (r->dev_ring[i]);
    tool_cuda_host_free (r->pin_in[i]);
  }
  if (gathers (r))
    table_clear (&r->t);
  g_free (r);
}

/* Frame @f into output @slot. */
static void
rawmem_enqueue (BenchRawMem * r, guint64 f, guint slot, guint streams,
    guint chunks)
{
  const BenchLayout *l = &r->f->lay;
  gsize size = l->size;
  guint s, c, n;
  gint i;

  r->ev_used[slot] = 0;
  if (r->kind != BENCH_RAWMEM_DEVICE) {
    s = f % streams;
    r->ev_used[slot] = 1u << s;
    if (r->kind == BENCH_RAWMEM_H2D)
      TOOL_CK (cudaMemcpyAsync (r->dev_out[slot], r->pin_in[f % BENCH_RING],
              size, cudaMemcpyHostToDevice, r->streams[s]));
    else
      TOOL_CK (cudaMemcpyAsync (r->pin_out[slot], r->dev_ring[f % BENCH_RING],
              size, cudaMemcpyDeviceToHost, r->streams[s]));
  } else {
    gint rows[BENCH_MAX_CHUNKS + 1];
    const guint8 *din = r->dev_ring[f % BENCH_RING];
    guint8 *dout = r->dev_out[slot];

    n = bench_bands (l, chunks, rows);
    for (c = 0; c < n; c++) {
      CoVideoParams p;

      s = r->next_stream++ % streams;
      r->ev_used[slot] |= 1u << s;
      memset (&p, 0, sizeof (p));
      p.op = CO_VIDEO_OP_INVERT;
      p.n_planes = l->n_planes;
      for (i = 0; i < l->n_planes; i++) {
        const BenchPlane *bp = &l->planes[i];
        gint y0 = bench_plane_row (bp, rows[c]);
        gint y1 = bench_plane_row (bp, rows[c + 1]);
        gsize off = bp->offset + (gsize) y0 * bp->stride;
        CoPlaneBand *b = &p.planes[i];

        b->src = din + off;
        b->dst = dout + off;
        b->src_stride = b->dst_stride = bp->stride;
        b->width = bp->width;
        b->height = bp->height;
        b->y0 = b->src_y0 = y0;
        b->y1 = b->src_y1 = y1;
        b->comps = bp->comps;
        b->comp_bytes = bp->comp_bytes;
        b->comp_mask = bp->mask;
        b->bits = bp->bits;
        b->shift = bp->shift;
      }
      TOOL_CK (co_video_launch_cuda (&p, r->streams[s]));
    }
  }
  for (s = 0; s < streams; s++)
    if (r->ev_used[slot] & (1u << s))
      TOOL_CK (cudaEventRecord (r->ev[slot][s], r->streams[s]));
}

/* Frame @f is done: its output gathered (device outputs) and checked. */
static void
rawmem_finish (BenchRawMem * r, guint64 f)
{
  guint slot = f % RM_OUT, s;

  for (s = 0; s < RM_MAX_STREAMS; s++)
    if (r->ev_used[slot] & (1u << s))
      TOOL_CK (cudaEventSynchronize (r->ev[slot][s]));
  if (gathers (r)) {
    const BenchLayout *l = &r->f->lay;
    BenchGatherSrc src;
    gint i;

    memset (&src, 0, sizeof (src));
    for (i = 0; i < l->n_planes; i++) {
      src.base[i] = r->dev_out[slot] + l->planes[i].offset;
      src.stride[i] = l->planes[i].stride;
    }
    TOOL_CK (bench_gather_launch (r->t.d_pieces, r->t.n, src,
            r->d_compact[slot], r->check_stream));
    TOOL_CK (cudaMemcpyAsync (r->h_compact[slot], r->d_compact[slot],
            r->t.bytes, cudaMemcpyDeviceToHost, r->check_stream));
    TOOL_CK (cudaEventRecord (r->check_ev[slot], r->check_stream));
  }
  g_mutex_lock (&r->lock);
  r->busy[slot] = TRUE;
  g_mutex_unlock (&r->lock);
  bench_checker_push (r->checker, GSIZE_TO_POINTER (f + 1));
}

void
bench_rawmem_run (BenchRawMem * r, guint streams, guint chunks, guint warmup,
    guint frames, BenchRow * row)
{
  guint64 total = (guint64) warmup + frames, f, t0 = 0, t1, c0 = 0, c1;
  guint s;

  streams = CLAMP (streams, 1, RM_MAX_STREAMS);
  row->frames = frames;
  r->row = row;
  r->next_stream = 0;
  memset (r->ev_used, 0, sizeof (r->ev_used));
  for (f = 0; f < total; f++) {
    guint slot = f % RM_OUT;

    if (f == warmup) {
      for (s = 0; s < streams; s++)
        TOOL_CK (cudaStreamSynchronize (r->streams[s]));
      t0 = bench_now_ns ();
      c0 = bench_cpu_ns () - bench_checker_cpu_ns (r->checker);
    }
    if (f >= RM_DEPTH)
      rawmem_finish (r, f - RM_DEPTH);
    g_mutex_lock (&r->lock);
    while (r->busy[slot])
      g_cond_wait (&r->cond, &r->lock);
    g_mutex_unlock (&r->lock);
    rawmem_enqueue (r, f, slot, streams, chunks);
  }
  for (s = 0; s < streams; s++)
    TOOL_CK (cudaStreamSynchronize (r->streams[s]));
  t1 = bench_now_ns ();
  c1 = bench_cpu_ns () - bench_checker_cpu_ns (r->checker);
  for (f = total > RM_DEPTH ? total - RM_DEPTH : 0; f < total; f++)
    rawmem_finish (r, f);
  bench_checker_wait_idle (r->checker);

  row->fps = frames * 1e9 / (gdouble) (t1 - t0);
  /* device: read + write of device memory; one-way copies: the frame */
  row->gbps = row->fps * (r->kind == BENCH_RAWMEM_DEVICE ? 2.0 : 1.0) *
      r->f->lay.size / 1e9;
  row->cpu_ms = bench_cpu_ms_per_frame (c0, c1, frames);
  row->invalid = row->bad > 0 || row->checked != total;
  if (row->invalid)
    g_snprintf (row->check, sizeof (row->check), "INVALID %" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT " bad", row->bad + (total - row->checked), total);
  else
    g_snprintf (row->check, sizeof (row->check), "ok %" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT, row->checked, row->checked);
  row->raw = TRUE;
  g_strlcpy (row->hostmem, r->kind == BENCH_RAWMEM_DEVICE ? "device only" :
      r->kind == BENCH_RAWMEM_H2D ? "pinned (cudaHostAlloc) to device" :
      "device to pinned (cudaHostAlloc)", sizeof (row->hostmem));
}
