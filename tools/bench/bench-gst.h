/* cudaoverlap-bench: the GStreamer side (bench-pipeline.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_GST_H__
#define __BENCH_GST_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "bench.h"

G_BEGIN_DECLS typedef enum
{
  BENCH_IN_PINNED,              /* buffers of the element's own pool */
  BENCH_IN_REGISTERED,          /* fresh GstBuffer over the malloc()ed ring,
                                 * each frame wrapped once in a GstMemory */
  BENCH_IN_WRAPPED,             /* a new GstMemory per frame over the ring */
  BENCH_IN_FRESH,               /* new memory per frame, the frame copied in */
  BENCH_IN_APP_PINNED,          /* a new GstMemory per frame over a ring the
                                 * application page-locked (cudaHostAlloc) */
  BENCH_IN_SLOTS,               /* a new GstMemory per frame over one of N
                                 * slots, handed back by its destroy notify
                                 * (as capture sources feed appsrc) */
  BENCH_IN_SLOTS_PINNED,        /* the same over slots the application
                                 * page-locked (cudaHostAlloc) */
  BENCH_IN_RECURRING,           /* N malloc()ed buffers, each a GstMemory
                                 * made once, a new GstBuffer per frame over
                                 * it once the last one's was freed (an
                                 * application's recurring buffers) */
  BENCH_N_INPUTS
} BenchInput;

extern const gchar *bench_input_names[BENCH_N_INPUTS];

/* --memory: where the frames are on each side. */
typedef enum
{
  BENCH_MEM_NONE,               /* the classic rows: system memory both sides */
  BENCH_MEM_CUDA_CUDA,          /* invert, memory:CUDAMemory in and out */
  BENCH_MEM_UPLOAD,             /* operation=none (peer: cudaupload): system
                                 * memory in, CUDA memory out */
  BENCH_MEM_DOWNLOAD,           /* operation=none (peer: cudadownload): CUDA
                                 * memory in, system memory out */
  BENCH_MEM_BLUR_CUDA_IN,       /* cudaupload ! box blur r 16 ! system */
  BENCH_MEM_BLUR_REF,           /* the CPU backend's box blur of the ring: the
                                 * expected checksums of BLUR_CUDA_IN */
  BENCH_N_MEM
} BenchMemPath;

extern const gchar *bench_mem_names[BENCH_N_MEM];

/* Threads that wait for each other (bench_barrier_wait) before their timed
 * frames: --pipelines. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint n, waiting, generation;
} BenchBarrier;

void bench_barrier_init (BenchBarrier * b, guint n);
void bench_barrier_wait (BenchBarrier * b);
void bench_barrier_clear (BenchBarrier * b);

typedef struct _BenchSlots BenchSlots;

typedef struct
{
  gboolean peer;                /* cudaupload ! cudadownload, not the element */
  gboolean serial;
  BenchInput input;
  guint streams, chunks;
  guint frames;                 /* timed, after the priming frame */
  gboolean full_check;          /* compare every picture byte (untimed) */
  gdouble live_fps;             /* > 0: pace the pushes */
  gboolean defaults;            /* no streams, chunks, mode: the element's
                                 * automatic settings (--defaults) */
  BenchBarrier *start;          /* if set: wait there before the timed frames */
  /* if set: called where @start is waited for, once the priming frames came
   * out (@primed TRUE), or on an error before (FALSE): --processes' child
   * says it is ready there and waits for the parent's start */
  void (*start_hook) (gboolean primed, gpointer data);
  gpointer start_data;
  BenchMemPath mem;             /* --memory; NONE: the classic rows */
  gboolean control;             /* the harness control: identity in the
                                 * element's place (--control) */
  gboolean ramp;                /* --gamma-ramp: the element's gamma driven
                                 * by a linear control source, BENCH_RAMP_FROM
                                 * at the first frame to BENCH_RAMP_TO at the
                                 * last */
  BenchSlots *slots;            /* slot inputs: a set of this run's own (the
                                 * pipelines of --pipelines); NULL: the
                                 * input's, shared by the process */
} BenchRunSpec;

/* BENCH_IN_SLOTS, _SLOTS_PINNED, _RECURRING: @n slots of memory (pageable,
 * or page-locked by the application: @locked), slot k holding ring frame
 * k; frame i waits for slot i mod n to be handed back, as a capture source
 * waits for a free buffer: by the destroy notify of the GstMemory over it,
 * or (@recurring: one GstMemory per slot for the whole run, @wrapped) when
 * the GstBuffer over it is finalized. */
struct _BenchSlots
{
  guint n;
  gboolean locked;
  gboolean recurring;
  guint8 *mem[BENCH_RING];
  GstMemory *wrapped[BENCH_RING];
  gboolean busy[BENCH_RING];
  GMutex lock;
  GCond cond;
};

/* What every run shares; main() sets it up. */
typedef struct
{
  BenchFrames fr;
  GstVideoInfo info;
  GstCaps *caps;
  GstMemory *mem[BENCH_RING];   /* the ring, each wrapped once */
  /* BENCH_IN_APP_PINNED: a copy of the ring in memory the bench page-locked
   * (cudaHostAlloc; without CUDA plain memory: app_locked FALSE) */
  guint8 *app_ring[BENCH_RING];
  gboolean app_locked;
  /* The peer's own copy of the ring: the element registers (page-locks) the
   * ring's memory on its registered-input runs and keeps it registered while
   * mem[] lives; the peer must read pageable malloc()ed memory, as a user's
   * would be, so it never sees those addresses. */
  guint8 *peer_ring[BENCH_RING];
  GstMemory *peer_mem[BENCH_RING];
  /* BENCH_IN_WRAPPED: its own malloc()ed copy of the ring, for the same
   * reason: a new GstMemory over pages that the registered runs left
   * registered is copied from directly, which an application's ring that
   * no one registered never is */
  guint8 *wrap_ring[BENCH_RING];
  BenchSlots slots;             /* BENCH_IN_SLOTS */
  BenchSlots slots_pinned;      /* BENCH_IN_SLOTS_PINNED */
  BenchSlots recurring;         /* BENCH_IN_RECURRING */
  /* every check_every-th timed output is checked (its sampled checksum);
   * the priming frames and the untimed full checks always */
  guint check_every;
  /* What the peer is told the frames are: the same as info/caps, or, for a
   * format cudaupload does not take, a stand-in of the same bytes (peer_as
   * names it, e.g. GRAY8 640x480 as RGBA 160x480: same rows, same stride). */
  GstVideoInfo peer_info;
  GstCaps *peer_caps;
  gchar *peer_as;
  GstClockTime dur;             /* frame duration; PTS = n x dur */
  const gchar *op, *backend, *props;
  gchar *elem_passport;         /* the first cudaoverlap-passport seen */
  gboolean failed;              /* a check or a run failed */
  /* --memory: caps and peer_caps with memory:CUDAMemory; the GstContext
   * "gst.cuda.context" that cudavideofilter made (a GstCudaContext wrapping
   * the primary context of device 0, the bench's CUDA runtime's), set on
   * every memory pipeline; the GstCudaContext in it; the gather of CUDA
   * outputs; the box blur's expected checksums (BENCH_MEM_BLUR_REF). */
  GstCaps *cuda_caps, *peer_cuda_caps;
  GstContext *cuda_context;
  GObject *cuda_ctx_obj;
  BenchGather *gather;
  guint64 sum_blur[BENCH_RING];
  gboolean have_blur[BENCH_RING];
  guint late_fills;             /* CUDA input buffers filled while timed */
} BenchGst;

extern BenchGst bench_gst;

/* The formats the bench takes (the element's), NULL-terminated. */
extern const gchar *const bench_formats[];
gboolean bench_layout_from_info (const GstVideoInfo * info, BenchLayout * l);
/* How long a run waits for a frame, a slot or a message. */
#define WAIT_NS (60 * G_GUINT64_CONSTANT (1000000000))
/* GST_CUDA_MEMORY_TYPE_NAME, GST_MAP_CUDA (gstcudamemory.h; see
 * plugin/gstcudaoverlap-cudamem.h: the bench does not link libgstcuda) */
#define CUDA_MEMORY_TYPE "gst.cuda.memory"
#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)
#define CUDA_CONTEXT_TYPE "gst.cuda.context"
/* The public head of a GstCudaMemory (1.22 and later). */
typedef struct
{
  GstMemory mem;
  GstObject *context;
} CudaMemoryHead;

/* bench-input.c: the inputs of a run.  Which ring frame a pool buffer
 * holds (filled with the next one when new; @cuda_info: CUDA memory of
 * that layout); the element's pool (or the bench's own when it proposes
 * none) activated and filled, and what was used in *@pool_note; the pool
 * proposed to appsrc for CUDA memory, FALSE with *@error; ring frame @r as
 * new memory per frame for @sp's input kind; frame @i over its slot once
 * handed back (NULL past WAIT_NS), the ring frame in *@r. */
gint bench_pool_buffer_content (GstBuffer * buf, GHashTable * contents,
    const GstVideoInfo * cuda_info);
GstBufferPool *bench_input_pool (GstElement * src, GHashTable * contents,
    gchar ** pool_note);
GstBufferPool *bench_cuda_input_pool (GstElement * src, GstCaps * caps,
    const GstVideoInfo * info, GHashTable * contents, gchar ** error);
GstBuffer *bench_ring_input (const BenchRunSpec * sp, gint r);
GstBuffer *bench_slot_input (BenchSlots * sl, guint i, gint * r);
/* The slots of @kind (BENCH_IN_SLOTS, _SLOTS_PINNED, _RECURRING), or NULL. */
BenchSlots *bench_slots_of (BenchInput kind);
/* @sl's @n slots made (@locked: page-locked with cudaHostAlloc, plain
 * memory without CUDA; @recurring: one GstMemory each, for the run), and
 * freed. */
void bench_slots_init (BenchSlots * sl, guint n, gboolean locked,
    gboolean recurring);
void bench_slots_clear (BenchSlots * sl);
/* The element's properties for @sp (gst-launch syntax): the operation
 * (with --op gamma its gamma), streams, chunks, mode unless @sp->defaults,
 * then backend, stats-interval=0 and --props. */
gchar *bench_element_props (const BenchRunSpec * sp);
/* What the element's outputs are compared with (for the log). */
const gchar *bench_reference_name (gboolean ramp);

/* One pipeline run of 1 + @sp->frames frames.  Fills @row (if given) with
 * the figures and the checks; @pool_note (if given and NULL) gets what the
 * pinned input used.  FALSE on an error of the pipeline. */
gboolean bench_run_pipeline (const BenchRunSpec * sp, BenchRow * row,
    gchar ** pool_note);

/* --memory: the CUDA context to share (bench_gst.cuda_context and
 * cuda_ctx_obj), from a cudavideofilter set to READY alone; FALSE with
 * *@why (free it) when it made none. */
gboolean bench_cuda_gst_context (gchar ** why);
/* @caps with memory:CUDAMemory. */
GstCaps *bench_caps_cuda (GstCaps * caps);

/* @n raw loops (bench-raw.c) at once, each on its own thread with its own
 * @streams streams (1 chunk) and 1/@n of the output memory, started
 * together after their warm-up: a row per loop and the aggregate
 * ("raw-clients"), the ceiling of @n independent clients of the device. */
gboolean bench_run_raw_clients (const BenchCustom * custom, guint n,
    guint streams, guint warmup, guint frames, GArray * rows);
/* bench-extra.c: @n copies of @sp at once (--pipelines): a row per
 * pipeline and the aggregate appended to @rows (of BenchRow); FALSE if any
 * failed. */
gboolean bench_run_concurrent (const BenchRunSpec * sp, guint n,
    const gchar * mode, GArray * rows);
/* The aggregate of the last @n rows of @rows (a row per pipeline or
 * process, named @unit in the log) appended to @rows as row @name: all their
 * timed frames over the first push to the last output of any; the spread
 * around the mean in the log.  FALSE if any of them is invalid. */
gboolean bench_aggregate (GArray * rows, guint n, const gchar * name,
    const gchar * unit);
/* bench-procs.c: @n copies of @sp at once, each in a child process
 * (--processes): @argv, the bench and the row's options, is run once per
 * child with --child-of-processes=K added; a row per process and the
 * aggregate appended to @rows; FALSE if any failed.
 * bench_process_child: the child's side (--child-of-processes K, process
 * K of @n, the row's @mode): its pipeline warmed up, primed, started by
 * the parent, its row reported; the exit status. */
gboolean bench_run_processes (const BenchRunSpec * sp, guint n,
    const gchar * mode, const gchar * const *argv, GArray * rows);
int bench_process_child (const BenchRunSpec * sp, guint warmup, guint k,
    guint n, const gchar * mode);
/* A fresh pipeline fed its first frame at once (--first-frame): fills
 * @row (p50: first push to its output, ms); FALSE on an error. */
gboolean bench_first_frame (const BenchRunSpec * sp, const gchar * mode,
    BenchRow * row);
/* The host's memcpy ceiling (--input wrapped or fresh: what staging is
 * bound by): @frames frames of @src (ring frames, pageable) copied into
 * @dst (page-locked frames, @n_dst of them) by @threads threads at once,
 * each its slice of every frame, @per_frame: one frame at a time (a
 * frame's slices all done before the next frame's start), else
 * free-running; a row "memcpy" (streams = threads) appended to @rows. */
void bench_memcpy_row (guint8 * const *src, guint n_src, guint8 * const *dst,
    guint n_dst, guint threads, gboolean per_frame, guint frames,
    const gchar * hostmem, GArray * rows);

G_END_DECLS
#endif
