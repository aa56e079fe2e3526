/* cudaoverlap-callcost: what one CUDA runtime call costs the calling thread.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's upstream thread spends its time in the calls that queue a
 * frame (events, copies, launches); this measures each kind of call alone,
 * in the engine's pattern (round-robin over streams, tiny copies and an
 * empty kernel, so the device never holds the host back), and the whole
 * per-chunk sequence, while a second thread does nothing, polls an event
 * (wait-mode=spin) or reads elapsed times (the push thread).  Thread CPU
 * time (CLOCK_THREAD_CPUTIME_ID) and wall time per call, median of 9
 * batches.  Plain C API, no GStreamer: it is a probe of the driver, run
 * beside the bench.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool-cuda.h"

#define N_STREAMS 8
#define BATCH 2048
#define REPS 9
#define COPY_BYTES 4096

static cudaStream_t streams[N_STREAMS];
static cudaEvent_t ev_timing[BATCH], ev_plain[BATCH];
static unsigned char *host, *dev;

/* Holds its stream until the host sets *flag (pinned, mapped memory). */
__global__ void
co_hold_kernel (volatile int *flag)
{
  while (*flag == 0);
}

__global__ void
co_empty_kernel (unsigned char *p)
{
  if (p == NULL)
    p[threadIdx.x] = 0;
}

static double
now (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

typedef int (*OpFunc) (int i);

static int
op_record_timing (int i)
{
  return cudaEventRecord (ev_timing[i], streams[i % N_STREAMS]);
}

static int
op_record_plain (int i)
{
  return cudaEventRecord (ev_plain[i], streams[i % N_STREAMS]);
}

static int
h2d_kind (int i, enum cudaMemcpyKind kind)
{
  int s = i % N_STREAMS;

  return cudaMemcpyAsync (dev + s * COPY_BYTES, host + s * COPY_BYTES,
      COPY_BYTES, kind, streams[s]);
}

static int
op_h2d (int i)
{
  return h2d_kind (i, cudaMemcpyHostToDevice);
}

static int
op_d2h (int i)
{
  int s = i % N_STREAMS;

  return cudaMemcpyAsync (host + s * COPY_BYTES, dev + s * COPY_BYTES,
      COPY_BYTES, cudaMemcpyDeviceToHost, streams[s]);
}

static int
op_h2d_2d (int i)
{
  int s = i % N_STREAMS;

  return cudaMemcpy2DAsync (dev + s * COPY_BYTES, 256, host + s * COPY_BYTES,
      256, 128, COPY_BYTES / 256, cudaMemcpyHostToDevice, streams[s]);
}

/* n copies of COPY_BYTES in one cudaMemcpyBatchAsync (CUDA 12.8+): what a
 * batch of images costs the host if the copies of one chunk went in one call
 * instead of one call each. */
static int
batch_copies (int i, size_t n, enum cudaMemcpyKind kind)
{
  int s = i % N_STREAMS;
  void *dsts[16];
  const void *srcs[16];
  size_t sizes[16], idx = 0;
  struct cudaMemcpyAttributes attr;

  memset (&attr, 0, sizeof (attr));
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  for (size_t k = 0; k < n; k++) {
    unsigned char *h = host + s * COPY_BYTES, *d = dev + s * COPY_BYTES;

    dsts[k] = kind == cudaMemcpyHostToDevice ? (void *) d : (void *) h;
    srcs[k] = kind == cudaMemcpyHostToDevice ? (const void *) h :
        (const void *) d;
    sizes[k] = COPY_BYTES / n;
    dsts[k] = (unsigned char *) dsts[k] + k * sizes[k];
    srcs[k] = (const unsigned char *) srcs[k] + k * sizes[k];
  }
  return cudaMemcpyBatchAsync (dsts, srcs, sizes, n, &attr, &idx, 1,
      streams[s]);
}

static int
op_batch1_h2d (int i)
{
  return batch_copies (i, 1, cudaMemcpyHostToDevice);
}

static int
op_batch4_h2d (int i)
{
  return batch_copies (i, 4, cudaMemcpyHostToDevice);
}

static int
op_batch16_h2d (int i)
{
  return batch_copies (i, 16, cudaMemcpyHostToDevice);
}

static int
op_batch4_d2h (int i)
{
  return batch_copies (i, 4, cudaMemcpyDeviceToHost);
}

static int
op_launch (int i)
{
  co_empty_kernel <<< 1, 32, 0, streams[i % N_STREAMS] >>> (dev);
  return cudaGetLastError ();
}

static int
op_get_last_error (int i)
{
  (void) i;
  return cudaGetLastError ();
}

static int
op_set_device (int i)
{
  (void) i;
  return cudaSetDevice (0);
}

static int
op_wait_event (int i)
{
  /* events of the previous batch, all complete */
  return cudaStreamWaitEvent (streams[(i + 1) % N_STREAMS], ev_plain[i], 0);
}

static int
op_query (int i)
{
  return cudaEventQuery (ev_plain[i]);
}

static cudaEvent_t ev_blocking[BATCH];

static int
op_sync_done (int i)
{
  return cudaEventSynchronize (ev_plain[i]);
}

static int
op_sync_done_blocking (int i)
{
  return cudaEventSynchronize (ev_blocking[i]);
}

static int
op_record_blocking (int i)
{
  return cudaEventRecord (ev_blocking[i], streams[i % N_STREAMS]);
}

static int
op_elapsed (int i)
{
  float ms;

  return cudaEventElapsedTime (&ms, ev_timing[0], ev_timing[i]);
}

/* The engine's chunk: 4 timing events, upload, kernel (+ error check),
 * download: 8 calls.  And the same without the timing events: 4 calls. */
static int
op_chunk_timed (int i)
{
  int s = i % N_STREAMS, err = 0;
  cudaStream_t st = streams[s];
  int e = (i * 4) % BATCH;

  err |= cudaEventRecord (ev_timing[e], st);
  err |= cudaMemcpyAsync (dev + s * COPY_BYTES, host + s * COPY_BYTES,
      COPY_BYTES, cudaMemcpyHostToDevice, st);
  err |= cudaEventRecord (ev_timing[e + 1], st);
  co_empty_kernel <<< 1, 32, 0, st >>> (dev);
  err |= cudaGetLastError ();
  err |= cudaEventRecord (ev_timing[e + 2], st);
  err |= cudaMemcpyAsync (host + s * COPY_BYTES, dev + s * COPY_BYTES,
      COPY_BYTES, cudaMemcpyDeviceToHost, st);
  err |= cudaEventRecord (ev_timing[e + 3], st);
  return err;
}

static int
op_chunk_untimed (int i)
{
  int s = i % N_STREAMS, err = 0;
  cudaStream_t st = streams[s];

  err |= cudaMemcpyAsync (dev + s * COPY_BYTES, host + s * COPY_BYTES,
      COPY_BYTES, cudaMemcpyHostToDevice, st);
  co_empty_kernel <<< 1, 32, 0, st >>> (dev);
  err |= cudaGetLastError ();
  err |= cudaMemcpyAsync (host + s * COPY_BYTES, dev + s * COPY_BYTES,
      COPY_BYTES, cudaMemcpyDeviceToHost, st);
  return err;
}

/* A kernel that takes a parameter block the size of the video kernels'. */
typedef struct
{
  unsigned char bytes[256];
} BigParams;

__global__ void
co_big_param_kernel (BigParams p, unsigned char *d)
{
  if (d == NULL)
    d[threadIdx.x] = p.bytes[threadIdx.x];
}

static BigParams big;

static int
op_launch_big (int i)
{
  co_big_param_kernel <<< 1, 32, 0, streams[i % N_STREAMS] >>> (big, dev);
  return cudaGetLastError ();
}

static int
op_launch_one_stream (int i)
{
  (void) i;
  co_empty_kernel <<< 1, 32, 0, streams[0] >>> (dev);
  return cudaGetLastError ();
}

static int
op_launch_rt (int i)
{
  void *args[] = { &dev };

  return cudaLaunchKernel ((const void *) co_empty_kernel, dim3 (1), dim3 (32),
      args, 0, streams[i % N_STREAMS]);
}

/* The driver API, through the runtime's entry points (no libcuda link). */
static CUresult (*p_cuLaunchKernel) (CUfunction, unsigned, unsigned, unsigned,
    unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **);
static CUresult (*p_cuEventRecord) (CUevent, CUstream);
static CUresult (*p_cuMemcpyHtoDAsync) (CUdeviceptr, const void *, size_t,
    CUstream);
static CUresult (*p_cuMemcpyDtoHAsync) (void *, CUdeviceptr, size_t, CUstream);
static CUfunction empty_fn;

static void
load_driver (void)
{
  cudaFunction_t f;

  TOOL_CK (cudaGetDriverEntryPointByVersion ("cuLaunchKernel",
          (void **) &p_cuLaunchKernel, 12000, cudaEnableDefault, NULL));
  TOOL_CK (cudaGetDriverEntryPointByVersion ("cuEventRecord",
          (void **) &p_cuEventRecord, 12000, cudaEnableDefault, NULL));
  TOOL_CK (cudaGetDriverEntryPointByVersion ("cuMemcpyHtoDAsync",
          (void **) &p_cuMemcpyHtoDAsync, 12000, cudaEnableDefault, NULL));
  TOOL_CK (cudaGetDriverEntryPointByVersion ("cuMemcpyDtoHAsync",
          (void **) &p_cuMemcpyDtoHAsync, 12000, cudaEnableDefault, NULL));
  TOOL_CK (cudaGetFuncBySymbol (&f, (const void *) co_empty_kernel));
  empty_fn = (CUfunction) f;
}

static int
op_cu_launch (int i)
{
  void *args[] = { &dev };

  return p_cuLaunchKernel (empty_fn, 1, 1, 1, 32, 1, 1, 0,
      (CUstream) streams[i % N_STREAMS], args, NULL);
}

static int
op_cu_record (int i)
{
  return p_cuEventRecord ((CUevent) ev_timing[i], (CUstream) streams[i %
          N_STREAMS]);
}

static int
op_cu_h2d (int i)
{
  int s = i % N_STREAMS;

  return p_cuMemcpyHtoDAsync ((CUdeviceptr) (dev + s * COPY_BYTES),
      host + s * COPY_BYTES, COPY_BYTES, (CUstream) streams[s]);
}

static int
op_h2d_default (int i)
{
  return h2d_kind (i, cudaMemcpyDefault);
}

static int
op_cu_chunk_timed (int i)
{
  int s = i % N_STREAMS, err = 0;
  CUstream st = (CUstream) streams[s];
  int e = (i * 4) % BATCH;
  void *args[] = { &dev };

  err |= p_cuEventRecord ((CUevent) ev_timing[e], st);
  err |= p_cuMemcpyHtoDAsync ((CUdeviceptr) (dev + s * COPY_BYTES),
      host + s * COPY_BYTES, COPY_BYTES, st);
  err |= p_cuEventRecord ((CUevent) ev_timing[e + 1], st);
  err |= p_cuLaunchKernel (empty_fn, 1, 1, 1, 32, 1, 1, 0, st, args, NULL);
  err |= p_cuEventRecord ((CUevent) ev_timing[e + 2], st);
  err |= p_cuMemcpyDtoHAsync (host + s * COPY_BYTES,
      (CUdeviceptr) (dev + s * COPY_BYTES), COPY_BYTES, st);
  err |= p_cuEventRecord ((CUevent) ev_timing[e + 3], st);
  return err;
}

static void measure (const char *name, OpFunc op, int calls_per_op, int n_ops,
    const char *side);

/* Copies of frame-sized blocks: does a copy's CPU cost grow with its size?
 * From cudaHostAlloc'ed memory and from malloc()ed memory registered with
 * cudaHostRegister (the element's two fast inputs). */
#define BIG_MAX ((size_t) 32 << 20)
static size_t big_size;
static unsigned char *big_host, *big_reg, *big_dev;

static int
big_copy (int i, unsigned char *dst, unsigned char *src,
    enum cudaMemcpyKind kind)
{
  size_t o = (size_t) (i % N_STREAMS) * BIG_MAX;

  return cudaMemcpyAsync (dst + o, src + o, big_size, kind,
      streams[i % N_STREAMS]);
}

static int
op_big_h2d (int i)
{
  return big_copy (i, big_dev, big_host, cudaMemcpyHostToDevice);
}

static int
op_big_d2h (int i)
{
  return big_copy (i, big_host, big_dev, cudaMemcpyDeviceToHost);
}

static int
op_big_h2d_registered (int i)
{
  return big_copy (i, big_dev, big_reg, cudaMemcpyHostToDevice);
}

static void
measure_sizes (void)
{
  static const size_t sizes[] = { 4096, 65536, 307200, 2 << 20, 8 << 20,
    BIG_MAX
  };

  big_host = tool_cuda_host_new (N_STREAMS * BIG_MAX, cudaHostAllocPortable,
      NULL);
  big_reg = (unsigned char *) malloc (N_STREAMS * BIG_MAX);
  if (!big_reg)
    exit (1);
  memset (big_reg, 1, N_STREAMS * BIG_MAX);
  TOOL_CK (cudaHostRegister (big_reg, N_STREAMS * BIG_MAX,
          cudaHostRegisterPortable));
  big_dev = tool_cuda_dev_new (N_STREAMS * BIG_MAX, NULL);
  for (unsigned k = 0; k < sizeof (sizes) / sizeof (sizes[0]); k++) {
    char name[3][40];

    big_size = sizes[k];
    snprintf (name[0], sizeof (name[0]), "H2D %zu KiB pinned", big_size >> 10);
    snprintf (name[1], sizeof (name[1]), "D2H %zu KiB pinned", big_size >> 10);
    snprintf (name[2], sizeof (name[2]), "H2D %zu KiB registered",
        big_size >> 10);
    measure (name[0], op_big_h2d, 1, 32, "idle");
    measure (name[1], op_big_d2h, 1, 32, "idle");
    measure (name[2], op_big_h2d_registered, 1, 32, "idle");
  }
}

/* ---- the second thread --------------------------------------------------- */

typedef enum
{ SIDE_IDLE, SIDE_SPIN_QUERY, SIDE_ELAPSED } SideMode;

static volatile int side_stop;
static SideMode side_mode;
static cudaEvent_t side_pending;        /* stays pending while we measure */
static cudaStream_t hold_stream;
static volatile int *hold_flag;

static void *
side_main (void *data)
{
  float ms;

  (void) data;
  TOOL_CK (cudaSetDevice (0));
  while (!side_stop) {
    switch (side_mode) {
      case SIDE_SPIN_QUERY:
        (void) cudaEventQuery (side_pending);
        sched_yield ();
        break;
      case SIDE_ELAPSED:
        (void) cudaEventElapsedTime (&ms, ev_plain[0], ev_plain[1]);
        (void) cudaEventElapsedTime (&ms, ev_timing[0], ev_timing[1]);
        {
          struct timespec ts = { 0, 2000 };
          nanosleep (&ts, NULL);
        }
        break;
      default:
        {
          struct timespec ts = { 0, 1000000 };
          nanosleep (&ts, NULL);
        }
    }
  }
  return NULL;
}

static void
sync_all (void)
{
  for (int s = 0; s < N_STREAMS; s++)
    TOOL_CK (cudaStreamSynchronize (streams[s]));
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
measure (const char *name, OpFunc op, int calls_per_op, int n_ops,
    const char *side)
{
  double cpu[REPS], wall[REPS];

  for (int r = 0; r < REPS + 1; r++) {
    double c0, w0;
    int err = 0;

    sync_all ();
    c0 = now (CLOCK_THREAD_CPUTIME_ID);
    w0 = now (CLOCK_MONOTONIC);
    for (int i = 0; i < n_ops; i++)
      err |= op (i);
    if (r > 0) {                /* the first batch warms up */
      cpu[r - 1] = (now (CLOCK_THREAD_CPUTIME_ID) - c0) / (n_ops * calls_per_op);
      wall[r - 1] = (now (CLOCK_MONOTONIC) - w0) / (n_ops * calls_per_op);
    }
    if (err) {
      fprintf (stderr, "%s: a call failed\n", name);
      exit (1);
    }
  }
  qsort (cpu, REPS, sizeof (double), cmp_double);
  qsort (wall, REPS, sizeof (double), cmp_double);
  printf ("%-26s %-8s %6d %9.3f %9.3f %9.3f\n", name, side,
      n_ops * calls_per_op, cpu[REPS / 2] / 1e3, wall[REPS / 2] / 1e3,
      cpu[REPS - 1] / 1e3);
}

/* name, op, CUDA calls per op, ops per batch = BATCH / div */
static const struct
{
  const char *name;
  OpFunc op;
  int calls, per_batch_div;
} probes[] = {
  {"cudaEventRecord (timing)", op_record_timing, 1, 1},
  {"cudaEventRecord (no time)", op_record_plain, 1, 1},
  {"cudaMemcpyAsync H2D", op_h2d, 1, 1},
  {"cudaMemcpyAsync D2H", op_d2h, 1, 1},
  {"cudaMemcpy2DAsync H2D", op_h2d_2d, 1, 1},
  /* calls: copies per call, so the column reads per copy */
  {"MemcpyBatchAsync 1 H2D", op_batch1_h2d, 1, 1},
  {"MemcpyBatchAsync 4 H2D/copy", op_batch4_h2d, 4, 4},
  {"MemcpyBatchAsync 16 H2D/cpy", op_batch16_h2d, 16, 16},
  {"MemcpyBatchAsync 4 D2H/copy", op_batch4_d2h, 4, 4},
  {"launch + GetLastError", op_launch, 1, 1},
  {"cudaGetLastError", op_get_last_error, 1, 1},
  {"cudaSetDevice", op_set_device, 1, 1},
  {"cudaStreamWaitEvent", op_wait_event, 1, 1},
  {"cudaEventQuery (done)", op_query, 1, 1},
  {"cudaEventElapsedTime", op_elapsed, 1, 1},
  {"cudaEventSynchronize(done)", op_sync_done, 1, 1},
  {"  same, blocking-sync ev", op_sync_done_blocking, 1, 1},
  {"cudaEventRecord (blocking)", op_record_blocking, 1, 1},
  {"chunk, timed (8 calls)", op_chunk_timed, 8, 4},
  {"chunk, untimed (4 calls)", op_chunk_untimed, 4, 4},
  {"launch, 256-byte params", op_launch_big, 1, 1},
  {"launch, one stream", op_launch_one_stream, 1, 1},
  {"cudaLaunchKernel", op_launch_rt, 1, 1},
  {"cuLaunchKernel", op_cu_launch, 1, 1},
  {"cuEventRecord (timing)", op_cu_record, 1, 1},
  {"cuMemcpyHtoDAsync", op_cu_h2d, 1, 1},
  {"cudaMemcpyAsync Default", op_h2d_default, 1, 1},
  {"chunk, driver, timed (7)", op_cu_chunk_timed, 7, 4},
};

int
main (void)
{
  struct cudaDeviceProp prop;
  int drv = 0, rt = 0;
  pthread_t side;
  static const struct
  {
    const char *name;
    SideMode mode;
  } sides[] = { {"idle", SIDE_IDLE}, {"spin", SIDE_SPIN_QUERY},
  {"elapsed", SIDE_ELAPSED}
  };

  TOOL_CK (cudaSetDevice (0));
  TOOL_CK (cudaGetDeviceProperties (&prop, 0));
  TOOL_CK (cudaDriverGetVersion (&drv));
  TOOL_CK (cudaRuntimeGetVersion (&rt));
  printf ("# cudaoverlap-callcost: %s, driver API %d, runtime %d, %d streams, "
      "%d-byte pinned copies, batches of %d ops, median of %d\n", prop.name,
      drv, rt, N_STREAMS, COPY_BYTES, BATCH, REPS);
  tool_cuda_streams_new (streams, N_STREAMS);
  tool_cuda_events_new (ev_timing, BATCH, cudaEventDefault);
  tool_cuda_events_new (ev_plain, BATCH, cudaEventDisableTiming);
  tool_cuda_events_new (ev_blocking, BATCH, cudaEventDisableTiming |
      cudaEventBlockingSync);
  for (int i = 0; i < BATCH; i++) {
    TOOL_CK (cudaEventRecord (ev_timing[i], streams[0]));
    TOOL_CK (cudaEventRecord (ev_plain[i], streams[0]));
    TOOL_CK (cudaEventRecord (ev_blocking[i], streams[0]));
  }
  host = tool_cuda_host_new (N_STREAMS * COPY_BYTES, cudaHostAllocPortable,
      NULL);
  dev = tool_cuda_dev_new (N_STREAMS * COPY_BYTES, NULL);
  tool_cuda_events_new (&side_pending, 1, cudaEventDisableTiming);
  tool_cuda_streams_new (&hold_stream, 1);
  hold_flag = (volatile int *) tool_cuda_host_new (sizeof (int),
      cudaHostAllocMapped, NULL);
  load_driver ();
  sync_all ();

  printf ("%-26s %-8s %6s %9s %9s %9s\n", "call", "2nd-thr", "calls",
      "cpu-us", "wall-us", "cpu-max");
  for (unsigned m = 0; m < sizeof (sides) / sizeof (sides[0]); m++) {
    side_stop = 0;
    side_mode = sides[m].mode;
    if (side_mode == SIDE_SPIN_QUERY) {
      /* the polled event stays pending, like a frame in flight */
      *hold_flag = 0;
      co_hold_kernel <<< 1, 1, 0, hold_stream >>> (hold_flag);
      TOOL_CK (cudaGetLastError ());
      TOOL_CK (cudaEventRecord (side_pending, hold_stream));
    }
    pthread_create (&side, NULL, side_main, NULL);
    for (unsigned k = 0; k < sizeof (probes) / sizeof (probes[0]); k++)
      measure (probes[k].name, probes[k].op, probes[k].calls,
          BATCH / probes[k].per_batch_div, sides[m].name);
    side_stop = 1;
    pthread_join (side, NULL);
    if (side_mode == SIDE_SPIN_QUERY) {
      *hold_flag = 1;
      TOOL_CK (cudaStreamSynchronize (hold_stream));
    }
  }
  measure_sizes ();
  return 0;
}
