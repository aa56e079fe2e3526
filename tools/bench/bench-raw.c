/* cudaoverlap-bench: the raw ceiling, a plain CUDA loop without GStreamer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The same kernel as the element (co_video_launch_cuda, invert) on the same
 * frames: a page-locked copy of the ring of 16 input frames, a page-locked
 * output ring of 16 to 64 frames, device input and output buffers per
 * in-flight frame (RAW_SLOTS of them), non-blocking streams.  A frame is
 * cut into equal bands of rows (edges on even rows for 4:2:0); band c of a
 * frame goes, H2D copy, kernel, D2H copy, on the next stream round-robin.
 * After its last D2H on each stream it used, the frame records an event;
 * before a slot is reused its events are waited for and its output is
 * handed to checker threads (sampled checksum, see bench-frames.c), eight
 * frames at a time, so the loop's own thread does little but queue and
 * wait; an output slot is reused once it has been checked.  The checkers'
 * CPU time is left out of cpu ms/frame.  Every CUDA call is checked
 * (TOOL_CK, tools/common/tool-cuda.h): on failure the call and its error
 * are printed and the program exits with status 1.
 *
 * --op custom (bench_raw_new's @custom): the kernel of the user's module,
 * loaded here as the element loads it (cudaLibraryLoadData,
 * cudaLibraryGetKernel), launched per band and plane with the ABI's launch struct by value and its
 * geometry (co_custom_video_each, co_custom_video_geometry: the calls the
 * element's CUDA backend makes, engine/co-custom-load.c).  As in the
 * element (engine/co-video.c), each band's input rows plus kernel-halo rows
 * above and below (clamped) are copied to the band's own area of the
 * device input buffer, so bands share no input memory; the output rows go
 * to their place in the device output frame and come back from there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cuda_runtime.h>

#include "bench.h"
#include "co-kernels.h"
#include "tool-cuda.h"

#define RAW_SLOTS 8             /* frames in flight: device buffers */
#define RAW_MAX_OUT 64          /* page-locked outputs: in flight + checking */
#define RAW_OUT_BYTES ((gsize) 1 << 30) /* their budget */
#define RAW_BATCH 8             /* frames per hand-off to the checkers */
#define RAW_MAX_STREAMS 32

struct _BenchRaw
{
  const BenchFrames *f;
  gint device;
  guint8 *pin_in[BENCH_RING];
  guint8 *pin_out[RAW_MAX_OUT];
  guint n_out;                  /* 16..64, within RAW_OUT_BYTES */
  guint batch;                  /* frames per hand-off */
  guint8 *dev_in[RAW_SLOTS];
  guint8 *dev_out[RAW_SLOTS];
  cudaStream_t streams[RAW_MAX_STREAMS];
  cudaEvent_t ev[RAW_SLOTS][RAW_MAX_STREAMS];
  guint32 ev_used[RAW_SLOTS];   /* streams whose event a slot recorded */
  guint64 next_stream;          /* round-robin counter over chunks */
  const BenchCustom *custom;    /* --op custom: the user's kernel */
  cudaLibrary_t lib;            /* its module */
  cudaKernel_t kernel;

  /* checking, on the checker threads */
  BenchChecker *checker;
  GMutex lock;
  GCond cond;
  gboolean busy[RAW_MAX_OUT];   /* handed to the checker, not checked yet */
  guint64 batch_first;          /* frames not handed over yet */
  guint batch_n;
  BenchRow *row;
  /* bench_raw_set_start: called once the warm-up frames are done */
  void (*start) (gpointer);
  gpointer start_data;
};

gboolean
bench_cuda_probe (gint device, gchar ** why)
{
  char msg[160];

  /* the context is created now, not in the first timed row */
  if (tool_cuda_probe (device, 1, msg, sizeof (msg)))
    return TRUE;
  *why = g_strdup (msg);
  return FALSE;
}

gchar *
bench_cuda_passport (gint device)
{
  struct cudaDeviceProp p;
  int drv = 0, rt = 0;
  char bus[32] = "";

  TOOL_CK (cudaGetDeviceProperties (&p, device));
  TOOL_CK (cudaDriverGetVersion (&drv));
  TOOL_CK (cudaRuntimeGetVersion (&rt));
  TOOL_CK (cudaDeviceGetPCIBusId (bus, sizeof (bus), device));
  return g_strdup_printf ("%s, cc %d.%d, %d SMs, %.1f GiB, PCI %s, "
      "asyncEngineCount %d, concurrentKernels %d, driver %d.%d, runtime %d.%d",
      p.name, p.major, p.minor, p.multiProcessorCount,
      p.totalGlobalMem / 1073741824.0, bus, p.asyncEngineCount,
      p.concurrentKernels, drv / 1000, (drv % 1000) / 10, rt / 1000,
      (rt % 1000) / 10);
}

gdouble
bench_cuda_context_ms (gint device)
{
  guint64 t0 = bench_now_ns ();

  TOOL_CK (cudaSetDevice (device));
  TOOL_CK (cudaFree (NULL));
  return (bench_now_ns () - t0) / 1e6;
}

guint8 *
bench_cuda_host_alloc (gsize size)
{
  return tool_cuda_host_new (size, cudaHostAllocDefault, NULL);
}

void
bench_cuda_host_free (guint8 * p)
{
  tool_cuda_host_free (p);
}

/* How many of @ptrs are page-locked (cudaHostAlloc'ed or registered). */
guint
bench_cuda_count_locked (guint8 * const *ptrs, guint n)
{
  guint i, locked = 0;

  for (i = 0; i < n; i++) {
    unsigned int flags = 0;

    if (ptrs[i] && cudaHostGetFlags (&flags, ptrs[i]) == cudaSuccess)
      locked++;
    else
      cudaGetLastError ();      /* not page-locked: not an error here */
  }
  return locked;
}

static void check_frames (gpointer item, gpointer user_data);

/* --op custom: the module, loaded as engine/co-custom-load.c loads it. */
static void
load_custom (BenchRaw * r, const BenchCustom * c)
{
  gchar *data = NULL;
  gsize len = 0;
  GError *err = NULL;

  if (!g_file_get_contents (c->module, &data, &len, &err)) {
    fprintf (stderr, "cudaoverlap-bench: raw: cannot read kernel-module "
        "\"%s\": %s\n", c->module, err->message);
    exit (1);
  }
  TOOL_CK (cudaLibraryLoadData (&r->lib, data, NULL, NULL, 0, NULL, NULL, 0));
  g_free (data);
  if (cudaLibraryGetKernel (&r->kernel, r->lib, c->name) != cudaSuccess) {
    fprintf (stderr, "cudaoverlap-bench: raw: no kernel \"%s\" in \"%s\" "
        "(%s)\n", c->name, c->module, cudaGetErrorString (cudaGetLastError ()));
    exit (1);
  }
}

/* A device input frame: with a halo, each band's rows plus its halo rows,
 * at most BENCH_MAX_CHUNKS bands. */
static gsize
dev_in_size (const BenchFrames * f, const BenchCustom * c)
{
  gsize size = f->lay.size;
  gint i, halo = c ? c->run.halo : 0;

  for (i = 0; i < f->lay.n_planes && halo > 0; i++)
    size += (gsize) MIN (2 * halo, f->lay.planes[i].height) *
        BENCH_MAX_CHUNKS * f->lay.planes[i].stride;
  return size;
}

BenchRaw *
bench_raw_new (const BenchFrames * f, const BenchCustom * custom, gint device)
{
  return bench_raw_new_shared (f, custom, device, 1);
}

BenchRaw *
bench_raw_new_shared (const BenchFrames * f, const BenchCustom * custom,
    gint device, guint clients)
{
  BenchRaw *r = g_new0 (BenchRaw, 1);
  gsize size = f->lay.size;
  guint i;

  r->f = f;
  r->device = device;
  TOOL_CK (cudaSetDevice (device));
  for (i = 0; i < BENCH_RING; i++)
    r->pin_in[i] = tool_cuda_host_new (size, cudaHostAllocDefault, f->ring[i]);
  r->n_out = CLAMP (RAW_OUT_BYTES / MAX (clients, 1) / size, 16, RAW_MAX_OUT);
  r->batch = CLAMP ((r->n_out - RAW_SLOTS) / 2, 1, RAW_BATCH);
  for (i = 0; i < r->n_out; i++)
    r->pin_out[i] = tool_cuda_host_new (size, cudaHostAllocDefault, NULL);
  r->custom = custom;
  if (custom)
    load_custom (r, custom);
  for (i = 0; i < RAW_SLOTS; i++) {
    r->dev_in[i] = tool_cuda_dev_new (dev_in_size (f, custom), NULL);
    r->dev_out[i] = tool_cuda_dev_new (size, NULL);
  }
  tool_cuda_events_new (&r->ev[0][0], RAW_SLOTS * RAW_MAX_STREAMS,
      cudaEventDisableTiming);
  tool_cuda_streams_new (r->streams, RAW_MAX_STREAMS);
  TOOL_CK (cudaDeviceSynchronize ());
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  r->checker = bench_checker_new (BENCH_CHECK_THREADS, check_frames, r);
  return r;
}

void
bench_raw_set_start (BenchRaw * r, void (*start) (gpointer), gpointer data)
{
  r->start = start;
  r->start_data = data;
}

void
bench_raw_free (BenchRaw * r)
{
  guint i;

  if (!r)
    return;
  bench_checker_free (r->checker);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
  TOOL_CK (cudaDeviceSynchronize ());
  tool_cuda_streams_free (r->streams, RAW_MAX_STREAMS);
  tool_cuda_events_free (&r->ev[0][0], RAW_SLOTS * RAW_MAX_STREAMS);
  for (i = 0; i < RAW_SLOTS; i++) {
    tool_cuda_dev_free (r->dev_in[i]);
    tool_cuda_dev_free (r->dev_out[i]);
  }
  for (i = 0; i < r->n_out; i++)
    tool_cuda_host_free (r->pin_out[i]);
  if (r->lib)
    TOOL_CK (cudaLibraryUnload (r->lib));
  for (i = 0; i < BENCH_RING; i++)
    tool_cuda_host_free (r->pin_in[i]);
  g_free (r);
}

typedef struct
{
  cudaKernel_t kernel;
  cudaStream_t stream;
} RawLaunch;

/* One launch of the ABI (engine/co-custom-load.c, co_custom_cuda_launch). */
static int
launch_one (const GstCudaOverlapVideoLaunch * a, void *user)
{
  RawLaunch *l = user;
  unsigned g[3], b[3];
  void *args[1] = { (void *) a };
  dim3 grid, block;

  co_custom_video_geometry (a, g, b);
  if (g[0] == 0 || g[1] == 0)
    return 0;
  grid.x = g[0], grid.y = g[1], grid.z = g[2];
  block.x = b[0], block.y = b[1], block.z = b[2];
  TOOL_CK (cudaLaunchKernel ((const void *) l->kernel, grid, block, args, 0,
          l->stream));
  return 0;
}

/* Band @c (luma rows [y0, y1)) of a custom frame on @st: its input rows
 * and halo to the band's area at din + *doff, the kernel, its output rows
 * back. */
static void
enqueue_custom_band (BenchRaw * r, guint c, guint n, gint y0, gint y1,
    const guint8 * hin, guint8 * hout, guint8 * din, guint8 * dout,
    gsize * doff, cudaStream_t st)
{
  const BenchLayout *l = &r->f->lay;
  BenchCustomBand band = { y0, y1, };
  RawLaunch rl = { r->kernel, st };
  CoVideoParams p;
  gint i;

  for (i = 0; i < l->n_planes; i++) {
    band.src_stride[i] = band.dst_stride[i] = l->planes[i].stride;
    band.dst[i] = dout + l->planes[i].offset +
        (gsize) bench_plane_row (&l->planes[i], y0) * l->planes[i].stride;
  }
  bench_custom_band (r->custom, l, &band, &p);
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *bp = &l->planes[i];
    CoPlaneBand *b = &p.planes[i];
    gsize len = (gsize) (b->src_y1 - b->src_y0) * bp->stride;

    b->src = din + *doff;
    TOOL_CK (cudaMemcpyAsync (din + *doff, hin + bp->offset +
            (gsize) b->src_y0 * bp->stride, len, cudaMemcpyHostToDevice, st));
    *doff += len;
  }
  co_custom_video_each (&p, c, n, launch_one, &rl);
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *bp = &l->planes[i];
    gsize off = bp->offset + (gsize) p.planes[i].y0 * bp->stride;

    TOOL_CK (cudaMemcpyAsync (hout + off, dout + off, (gsize) (p.planes[i].y1 -
                p.planes[i].y0) * bp->stride, cudaMemcpyDeviceToHost, st));
  }
}

/* Queue frame @f (input ring[f % 16], output pin_out[f % n_out])
 * into device @slot: its bands on @streams streams, round-robin, then an
 * event on every stream it used. */
static void
enqueue_frame (BenchRaw * r, guint64 f, guint slot, guint streams, guint chunks)
{
  const BenchLayout *l = &r->f->lay;
  gint rows[BENCH_MAX_CHUNKS + 1];
  guint n = bench_bands (l, chunks, rows), c, s;
  const guint8 *hin = r->pin_in[f % BENCH_RING];
  guint8 *hout = r->pin_out[f % r->n_out];
  guint8 *din = r->dev_in[slot], *dout = r->dev_out[slot];
  gint i;

  gsize doff = 0;

  r->ev_used[slot] = 0;
  for (c = 0; c < n; c++) {
    cudaStream_t st;
    CoVideoParams p;
    gsize off[BENCH_MAX_PLANES], len[BENCH_MAX_PLANES];

    s = r->next_stream++ % streams;
    st = r->streams[s];
    r->ev_used[slot] |= 1u << s;
    if (r->custom) {
      enqueue_custom_band (r, c, n, rows[c], rows[c + 1], hin, hout, din,
          dout, &doff, st);
      continue;
    }
    memset (&p, 0, sizeof (p));
    p.op = CO_VIDEO_OP_INVERT;
    p.n_planes = l->n_planes;
    for (i = 0; i < l->n_planes; i++) {
      const BenchPlane *bp = &l->planes[i];
      gint y0 = bench_plane_row (bp, rows[c]);
      gint y1 = bench_plane_row (bp, rows[c + 1]);
      CoPlaneBand *b = &p.planes[i];

      off[i] = bp->offset + (gsize) y0 *bp->stride;
      len[i] = (gsize) (y1 - y0) * bp->stride;
      TOOL_CK (cudaMemcpyAsync (din + off[i], hin + off[i], len[i],
              cudaMemcpyHostToDevice, st));
      b->src = din + off[i];
      b->dst = dout + off[i];
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
    TOOL_CK (co_video_launch_cuda (&p, st));
    for (i = 0; i < l->n_planes; i++)
      TOOL_CK (cudaMemcpyAsync (hout + off[i], dout + off[i], len[i],
              cudaMemcpyDeviceToHost, st));
  }
  for (s = 0; s < streams; s++)
    if (r->ev_used[slot] & (1u << s))
      TOOL_CK (cudaEventRecord (r->ev[slot][s], r->streams[s]));
}

static void
wait_slot (BenchRaw * r, guint slot)
{
  guint s;

  for (s = 0; s < RAW_MAX_STREAMS; s++)
    if (r->ev_used[slot] & (1u << s))
      TOOL_CK (cudaEventSynchronize (r->ev[slot][s]));
}

/* On a checker thread: the outputs of a batch of frames. */
static void
check_frames (gpointer item, gpointer user_data)
{
  BenchRaw *r = user_data;
  guint64 code = GPOINTER_TO_SIZE (item) - 1, f;
  guint64 first = code >> 8, n = code & 0xff;
  BenchRow *row = r->row;

  for (f = first; f < first + n; f++) {
    guint slot = f % r->n_out;
    guint64 sum = bench_checksum_packed (&r->f->lay, r->pin_out[slot]);
    guint64 want = r->f->sum_op[f % BENCH_RING];

    g_mutex_lock (&r->lock);
    row->checked++;
    if (sum != want && row->bad++ == 0)
      fprintf (stderr, "check: %s %s %ux%u: frame %" G_GUINT64_FORMAT
          " (ring %u): sampled checksum %016" G_GINT64_MODIFIER "x, "
          "expected %016" G_GINT64_MODIFIER "x\n", row->name, row->mode,
          row->streams, row->chunks, f, (guint) (f % BENCH_RING), sum, want);
    r->busy[slot] = FALSE;
    g_mutex_unlock (&r->lock);
  }
  g_mutex_lock (&r->lock);
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
}

static void
flush_batch (BenchRaw * r)
{
  if (!r->batch_n)
    return;
  bench_checker_push (r->checker, GSIZE_TO_POINTER (((r->batch_first << 8) |
              r->batch_n) + 1));
  r->batch_n = 0;
}

/* Frame @f is finished on the device: check it (with the next frames). */
static void
hand_off (BenchRaw * r, guint64 f)
{
  g_mutex_lock (&r->lock);
  r->busy[f % r->n_out] = TRUE;
  g_mutex_unlock (&r->lock);
  if (!r->batch_n)
    r->batch_first = f;
  if (++r->batch_n == r->batch)
    flush_batch (r);
}

/* Before frame @f writes its output slot: the frame before it in that slot
 * has been checked. */
static void
wait_output_slot (BenchRaw * r, guint64 f)
{
  if (r->batch_n && f >= r->n_out && f - r->n_out >= r->batch_first)
    flush_batch (r);
  g_mutex_lock (&r->lock);
  while (r->busy[f % r->n_out])
    g_cond_wait (&r->cond, &r->lock);
  g_mutex_unlock (&r->lock);
}

/* Host CPU time of the process, without the checker threads. */
static guint64
cpu_ns (BenchRaw * r)
{
  return bench_cpu_ns () - bench_checker_cpu_ns (r->checker);
}

static void
finish_row (BenchRow * row)
{
  row->invalid = row->bad > 0;
  if (row->invalid)
    g_snprintf (row->check, sizeof (row->check), "INVALID %" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT " bad", row->bad, row->checked);
  else
    g_snprintf (row->check, sizeof (row->check), "ok %" G_GUINT64_FORMAT
        "/%" G_GUINT64_FORMAT, row->checked, row->checked);
  row->raw = TRUE;
  g_strlcpy (row->hostmem, "pinned (cudaHostAlloc)", sizeof (row->hostmem));
}

void
bench_raw_throughput (BenchRaw * r, guint streams, guint chunks,
    gboolean serial, guint warmup, guint frames, BenchRow * row)
{
  guint depth = serial ? 1 : RAW_SLOTS;
  guint64 total = (guint64) warmup + frames, f, t0 = 0, t1, c0 = 0, c1;
  guint s;

  streams = CLAMP (streams, 1, RAW_MAX_STREAMS);
  row->frames = frames;
  if (serial)
    streams = chunks = 1;
  r->row = row;
  r->next_stream = 0;
  memset (r->ev_used, 0, sizeof (r->ev_used));
  for (f = 0; f < total; f++) {
    guint slot = f % depth;

    if (f == warmup) {
      for (s = 0; s < streams; s++)
        TOOL_CK (cudaStreamSynchronize (r->streams[s]));
      if (r->start)
        r->start (r->start_data);
      t0 = bench_now_ns ();
      c0 = cpu_ns (r);
    }
    if (!serial && f >= depth) {
      wait_slot (r, slot);
      hand_off (r, f - depth);
    }
    wait_output_slot (r, f);
    enqueue_frame (r, f, slot, streams, chunks);
    if (serial) {
      /* one frame on the device at a time */
      wait_slot (r, slot);
      hand_off (r, f);
    }
  }
  for (s = 0; s < streams; s++)
    TOOL_CK (cudaStreamSynchronize (r->streams[s]));
  t1 = bench_now_ns ();
  c1 = cpu_ns (r);
  /* the frames whose device slots were not reused */
  for (f = serial ? total : (total > depth ? total - depth : 0); f < total; f++)
    hand_off (r, f);
  flush_batch (r);
  bench_checker_wait_idle (r->checker);

  row->fps = frames * 1e9 / (gdouble) (t1 - t0);
  row->gbps = row->fps * 2.0 * r->f->lay.size / 1e9;
  row->cpu_ms = bench_cpu_ms_per_frame (c0, c1, frames);
  row->t0_ns = t0;
  row->t1_ns = t1;
  finish_row (row);
}

/* One frame at a time: queue it, wait for it, next.  Latency is host time
 * from before the first call of the frame to the return of the last wait. */
void
bench_raw_latency (BenchRaw * r, guint streams, guint chunks, guint warmup,
    guint frames, gdouble live_fps, BenchRow * row)
{
  guint64 total = (guint64) warmup + frames, f, t0, t1, start = 0, c0 = 0;
  guint64 c1 = 0, end = 0;
  gdouble *lat = g_new (gdouble, frames);
  guint n = 0;

  streams = CLAMP (streams, 1, RAW_MAX_STREAMS);
  row->frames = frames;
  r->row = row;
  memset (r->ev_used, 0, sizeof (r->ev_used));
  for (f = 0; f < total; f++) {
    if (f == warmup) {
      start = bench_now_ns ();
      c0 = cpu_ns (r);
    }
    if (live_fps > 0 && f >= warmup)
      bench_sleep_until (start + (guint64) ((f - warmup) * 1e9 / live_fps));
    wait_output_slot (r, f);
    r->next_stream = 0;
    t0 = bench_now_ns ();
    enqueue_frame (r, f, 0, streams, chunks);
    wait_slot (r, 0);
    t1 = bench_now_ns ();
    hand_off (r, f);
    if (f >= warmup)
      lat[n++] = (t1 - t0) / 1e6;
  }
  end = bench_now_ns ();
  c1 = cpu_ns (r);
  flush_batch (r);
  bench_checker_wait_idle (r->checker);
  row->p50_ms = bench_percentile (lat, n, 50);
  row->p99_ms = bench_percentile (lat, n, 99);
  row->cpu_ms = bench_cpu_ms_per_frame (c0, c1, frames);
  if (live_fps > 0) {
    row->fps = frames * 1e9 / (gdouble) (end - start);
    row->gbps = row->fps * 2.0 * r->f->lay.size / 1e9;
  }
  g_free (lat);
  finish_row (row);
}
