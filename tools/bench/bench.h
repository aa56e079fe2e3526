/* cudaoverlap-bench: what the benchmark's parts share.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * bench-frames.c: the frame layout, the ring of random frames, the naive CPU
 *   invert, the sampled checksum and the full comparison (no CUDA);
 *   bench-gamma.c: the naive gamma and its expected checksums.
 * bench-raw.c: the raw ceiling, a plain CUDA loop (no GStreamer);
 *   bench-devmem.c: the raw loops of the memory paths, the device gather;
 *   bench-custom.c: the --op custom kernel.
 * bench-gst.h: the GStreamer side: bench-pipeline.c (one pipeline run),
 *   bench-input.c (its inputs), bench-extra.c (N pipelines, first frame,
 *   memcpy), bench-procs.c (N processes).
 * bench-cli.h: cudaoverlap-bench.c (options, main), bench-rows.c,
 *   bench-memrows.c (the rows), bench-report.c (the table and the CSV).
 */
#ifndef __BENCH_H__
#define __BENCH_H__

#include <glib.h>
#include <gmodule.h>

#include "bench-gather.h"
#include "co-custom.h"

G_BEGIN_DECLS
#define BENCH_RING 16
#define BENCH_MAX_PLANES 3
#define BENCH_MAX_CHUNKS 64
/* One plane of a frame in its packed (GstVideoInfo default) layout. */
    typedef struct
{
  gsize offset;                 /* from the start of the frame */
  gsize stride;
  gint width, height;           /* pixels per row, rows */
  gint comps, comp_bytes;
  guint mask;                   /* components that invert changes */
  gint xsub, ysub;              /* 1: horizontally, vertically subsampled
                                 * (log2: 4:2:2 chroma has xsub, 4:2:0 both) */
  gboolean gamma;               /* gamma changes it (not a YUV chroma plane) */
  /* a sample's value: (sample >> shift) & (2^bits - 1), the other bits 0
   * in the output (bits 0: every bit, P010_10LE: 10 at 6) */
  gint bits, shift;
} BenchPlane;

typedef struct
{
  gint width, height;
  gint n_planes;
  BenchPlane planes[BENCH_MAX_PLANES];
  gsize size;                   /* bytes per frame */
} BenchLayout;

/* --op custom (bench-custom.c): the user's kernel, from --props. */
typedef struct
{
  gchar *module, *name, *cpu_library, *cpu_symbol;
  CoCustomParams run;           /* format, halo, width, shifts, params */
  GModule *cpu_mod;
  GstCudaOverlapVideoKernelCpu cpu;     /* NULL: not opened */
} BenchCustom;
/* One band of a frame for bench_custom_band: luma rows [y0, y1); per plane
 * the address of input row max (0, y0 - halo) (in plane rows) and of output
 * row y0, and their strides. */
typedef struct
{
  gint y0, y1;
  const guint8 *src[BENCH_MAX_PLANES];
  guint8 *dst[BENCH_MAX_PLANES];
  gsize src_stride[BENCH_MAX_PLANES];
  gsize dst_stride[BENCH_MAX_PLANES];
} BenchCustomBand;
typedef struct
{
  BenchLayout lay;
  guint8 *ring[BENCH_RING];     /* malloc()ed, random content */
  guint64 sum_inv[BENCH_RING];  /* checksum of the naive invert of ring[i] */
  /* checksum of the operation's expected output: sum_inv, or with
   * bench_frames_set_custom the CPU implementation's */
  guint64 sum_op[BENCH_RING];
  const BenchCustom *custom;    /* NULL: the operation is invert */
  gdouble gamma;                /* > 0: the operation is gamma, this one
                                 * (bench_frames_set_gamma) */
  guint64 sum_id[BENCH_RING];   /* checksum of ring[i] itself (the peer) */
} BenchFrames;

/* One row of the report.  NAN: not applicable. */
typedef struct
{
  gchar name[24];
  gchar mode[24];
  gchar input[24];
  gchar hostmem[48];
  gchar check[64];
  guint streams, chunks;
  guint frames;                 /* timed */
  gdouble fps, gbps, p50_ms, p99_ms, eff, cpu_ms;
  guint64 checked, bad;
  gboolean invalid, skipped, raw;
  guint64 t0_ns, t1_ns;         /* timed frames: first push, last output */
} BenchRow;

/* bench-frames.c */
void bench_frames_init (BenchFrames * f, guint64 seed);
void bench_frames_clear (BenchFrames * f);
guint bench_bands (const BenchLayout * l, guint chunks,
    gint rows[BENCH_MAX_CHUNKS + 1]);
gint bench_plane_row (const BenchPlane * p, gint luma_row);
void bench_invert_ref (const BenchLayout * l, const guint8 * src, guint8 * dst);
/* The operation's expected output of @src: invert, the naive gamma
 * (bench_frames_set_gamma), or the custom kernel's CPU implementation over
 * the whole frame (bench_frames_set_custom). */
void bench_op_ref (const BenchFrames * f, const guint8 * src, guint8 * dst);
/* --op custom: sum_op from @c's CPU implementation (opened); FALSE with
 * *@why when it failed on a frame. */
gboolean bench_frames_set_custom (BenchFrames * f, const BenchCustom * c,
    gchar ** why);
/* bench-gamma.c: the naive gamma of a frame (its colour components; not
 * the YUV chroma planes), the expected sampled checksum of the gamma of
 * @src (from the sampled pieces alone), and --op gamma's sum_op (FALSE
 * when the pieces' sum is not that of the whole expected frame). */
#define BENCH_GAMMA 2.2
#define BENCH_RAMP_FROM 0.5
#define BENCH_RAMP_TO 2.5
void bench_gamma_ref (const BenchLayout * l, const guint8 * src, guint8 * dst,
    gdouble gamma);
guint64 bench_gamma_sum (const BenchLayout * l, const guint8 * src,
    gdouble gamma);
gboolean bench_frames_set_gamma (BenchFrames * f, gdouble gamma);
/* bench-custom.c */
void bench_custom_free (BenchCustom * c);
gboolean bench_custom_open_cpu (BenchCustom * c, gchar ** why);
void bench_custom_band (const BenchCustom * c, const BenchLayout * l,
    const BenchCustomBand * band, CoVideoParams * p);
gboolean bench_custom_ref (const BenchCustom * c, const BenchLayout * l,
    const guint8 * src, guint8 * dst, gchar ** why);
guint64 bench_checksum (const BenchLayout * l,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES]);
guint64 bench_checksum_packed (const BenchLayout * l, const guint8 * frame);
/* The pieces bench_checksum reads, in its order, packed one after the
 * other (bench-gather.h): a g_free()d array of *@n, *@bytes in all. */
BenchPiece *bench_pieces (const BenchLayout * l, guint * n, gsize * bytes);
/* bench_checksum from the compact buffer of those pieces: the same value. */
guint64 bench_checksum_pieces (const BenchPiece * p, guint n,
    const guint8 * compact);
/* The pieces of a frame in host memory, packed into @compact (what the
 * gather kernel does on the device; the self-test compares the two sums). */
void bench_gather_host (const BenchPiece * p, guint n,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], guint8 * compact);
gboolean bench_compare (const BenchLayout * l,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], const guint8 * ref, gchar * msg,
    gsize msg_size);
void
bench_note (const gchar * fmt, ...)
G_GNUC_PRINTF (1, 2);
     void bench_note_quiet (const gchar * line);
     const gchar *bench_note_log (void);
     guint64 bench_now_ns (void);
     guint64 bench_cpu_ns (void);
/* CPU time of each thread of the process, summed by thread name
 * (/proc/self/task/N/comm and schedstat): name -> guint64 ns in a GHashTable
 * of g_free()d keys and values. */
     GHashTable *bench_thread_cpu (void);
/* "name ms, ..." per frame, the most used first (at most 8), of b - a. */
     gchar *bench_thread_cpu_diff (GHashTable * a, GHashTable * b,
    guint64 frames);
     void bench_sleep_until (guint64 t_ns);
     gdouble bench_percentile (const gdouble * v, guint n, gdouble p);
     void bench_row_init (BenchRow * r, const gchar * name, const gchar * mode,
    const gchar * input, guint streams, guint chunks);

/* Checker threads: bench_checksum and the comparisons run there, off the
 * threads that are measured; their CPU time is known, so that it can be
 * left out of the figures. */
     typedef struct _BenchChecker BenchChecker;
     typedef void (*BenchCheckFunc) (gpointer item, gpointer user_data);
#define BENCH_CHECK_THREADS 2
     BenchChecker *bench_checker_new (guint n_threads, BenchCheckFunc func,
    gpointer user_data);
     void bench_checker_push (BenchChecker * c, gpointer item);
     void bench_checker_wait_idle (BenchChecker * c);
     guint64 bench_checker_cpu_ns (BenchChecker * c);
     gdouble bench_cpu_ms_per_frame (guint64 c0, guint64 c1, guint64 frames);
     void bench_checker_free (BenchChecker * c);

/* bench-raw.c: all calls exit(1) on a CUDA error, naming the call. */
     typedef struct _BenchRaw BenchRaw;
     gboolean bench_cuda_probe (gint device, gchar ** why);
     gchar *bench_cuda_passport (gint device);
     guint bench_cuda_count_locked (guint8 * const *ptrs, guint n);
/* cudaFree (0) timed, in ms: the context's creation when it is the
 * process's first CUDA call (a child process: --context-ms). */
     gdouble bench_cuda_context_ms (gint device);
/* Page-locked host memory (cudaHostAlloc) and its release. */
     guint8 *bench_cuda_host_alloc (gsize size);
     void bench_cuda_host_free (guint8 * p);
/* @custom (--op custom, else NULL): the raw rows load its module
 * (cudaLibraryLoadData) and launch its kernel per band as the element
 * does, checked against @f->sum_op; exit(1) naming the module when it
 * does not load. */
     BenchRaw *bench_raw_new (const BenchFrames * f,
    const BenchCustom * custom, gint device);
/* The same for one of @clients loops run at once (--pipelines): each
 * keeps 1/@clients of the output ring's memory budget. */
     BenchRaw *bench_raw_new_shared (const BenchFrames * f,
    const BenchCustom * custom, gint device, guint clients);
/* @start (@data) runs on the loop's thread after its warm-up frames and
 * before its timed ones (a barrier of concurrent loops). */
     void bench_raw_set_start (BenchRaw * r, void (*start) (gpointer),
    gpointer data);
     void bench_raw_free (BenchRaw * r);
     void bench_raw_throughput (BenchRaw * r, guint streams, guint chunks,
    gboolean serial, guint warmup, guint frames, BenchRow * row);
     void bench_raw_latency (BenchRaw * r, guint streams, guint chunks,
    guint warmup, guint frames, gdouble live_fps, BenchRow * row);

/* bench-devmem.c (--memory): all calls exit(1) on a CUDA error in set-up.
 * BenchGather: the sampled checksum of a frame in device memory (device
 * addresses and strides per plane), through @slots concurrent slots; FALSE
 * with @err on a CUDA error. */
     typedef struct _BenchGather BenchGather;
     BenchGather *bench_gather_new (const BenchLayout * l, guint slots);
     void bench_gather_free (BenchGather * g);
     gsize bench_gather_bytes (BenchGather * g);
     gboolean bench_gather_sum (BenchGather * g,
    const guint8 * const dev[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], guint64 * sum, gchar * err,
    gsize err_size);
/* The raw rows of the memory paths: device-only invert, one-way copies. */
     typedef enum
     {
       BENCH_RAWMEM_DEVICE,
       BENCH_RAWMEM_H2D,
       BENCH_RAWMEM_D2H
     } BenchRawMemKind;
     typedef struct _BenchRawMem BenchRawMem;
     BenchRawMem *bench_rawmem_new (const BenchFrames * f,
    BenchRawMemKind kind, gint device);
     void bench_rawmem_free (BenchRawMem * r);
     void bench_rawmem_run (BenchRawMem * r, guint streams, guint chunks,
    guint warmup, guint frames, BenchRow * row);

G_END_DECLS
#endif
