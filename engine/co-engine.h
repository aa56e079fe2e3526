/* cudaoverlap: the overlap engine.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine moves frames through host→device copies, a kernel and
 * device→host copies, chunk by chunk, spread over several "streams", and
 * hands frames back in submission order once their work is finished.  It
 * knows nothing of pads, caps or GstBuffers: a frame is a list of chunks, a
 * chunk is a list of 2-D copies and one kernel call.  Callers (the elements)
 * plan the chunks (engine/co-video.c, engine/co-audio.c) and own the host
 * memory.
 *
 * Backends: the work runs on one of two implementations behind one table of
 * functions (co-engine-private.h): CUDA (co-engine-cuda.c: CUDA streams,
 * device memory) or CPU (co-engine-cpu.c: one worker thread per stream,
 * the same results).  co_engine_new() picks one; everything here behaves the
 * same on both.
 *
 * Threads: one producer calls co_engine_acquire() and co_engine_submit();
 * one consumer calls co_engine_next_read(), co_engine_wait_oldest() and
 * co_engine_release().
 * co_engine_set_flushing() and co_engine_drain() may be called from any
 * thread.
 *
 * Tests: a build with -Dfault-injection makes any device call point fail on
 * request (engine/co-fault.h); a failing point fails the frame as the real
 * call would (the frame completes with its error set).
 *
 * Frames in flight: at most co_engine_max_in_flight() frames are acquired
 * and not yet released; co_engine_acquire() blocks when that bound is
 * reached.  Each in-flight frame owns one slot of device memory (its input
 * and output areas; host memory on the CPU backend, none with cpu_direct),
 * so the bound is also the device-memory budget.
 *
 * Errors, one convention per channel:
 *  - Calls: every function of the engine's modules that can fail (this
 *    header, co-hostreg.h, co-hostkeep.h, co-custom-load.h, the backend
 *    table of co-engine-private.h) returns FALSE or NULL and sets a GError
 *    of the CO_ENGINE_ERROR domain (the codes below), whose message names
 *    what failed and why.  The caller owns the error; NULL is allowed.
 *  - Frames: a frame's device work fails after co_engine_submit() has
 *    returned, on another thread, so the failure travels with the frame:
 *    CoFrame.error, the message of its first failure (NULL when it
 *    succeeded), read by the consumer when co_engine_wait_oldest() hands
 *    the frame back.  It is a string, not a GError, because the frame is
 *    its only carrier and its message is all the consumer reports.
 *  - CUDA calls: each CUDA runtime call is made through CO_CUDA_CHECK_GOTO
 *    (co-cuda-check.h), which logs a failure with the call and its place in
 *    the source and turns it into the CO_ENGINE_ERROR_CUDA GError above.
 * The kernels (kernels/) know no GLib: their launchers return the
 * cudaError_t as an int.  The pure-C modules (statistics, trace writer,
 * interval math, automatic settings) know no GLib either: co_trace_open()
 * writes its message into the caller's buffer.
 */
#ifndef __CO_ENGINE_H__
#define __CO_ENGINE_H__

#include <glib.h>
#include "co-kernels.h"
#include "co-parcopy.h"

G_BEGIN_DECLS
#define CO_MAX_STREAMS 32
#define CO_MAX_CHUNKS 64
/* Copies of a chunk each way: a plane per image of a batch. */
#define CO_MAX_BATCH 16
#define CO_CHUNK_MAX_COPIES (CO_VIDEO_MAX_PLANES * CO_MAX_BATCH)
/* Device-side copies of a chunk (CoChunk.d2d). */
#define CO_CHUNK_MAX_D2D 4
/* A frame's copies that every chunk's kernel reads (CoFrame.pre): one per
 * image of a batch. */
#define CO_FRAME_MAX_PRE CO_MAX_BATCH
    typedef enum
{
  CO_BACKEND_AUTO = 0,
  CO_BACKEND_CUDA = 1,
  CO_BACKEND_CPU = 2,
} CoBackendKind;

typedef enum
{
  CO_MODE_OVERLAP = 0,
  CO_MODE_SERIAL = 1,
} CoMode;

/* How the consumer waits for a frame's device work (CUDA backend; the CPU
 * backend's workers always signal a condition). */
typedef enum
{
  CO_WAIT_BLOCKING = 0,         /* sleep on a blocking-sync event: little CPU */
  CO_WAIT_SPIN = 1,             /* poll the event: lowest latency, a core busy */
  CO_WAIT_AUTO = 2,             /* the element's choice (engine/co-tune.h);
                                 * an engine given it blocks */
} CoWaitMode;

typedef enum
{
  CO_KERNEL_VIDEO = 0,
  CO_KERNEL_AUDIO = 1,
  CO_KERNEL_NONE = 2,           /* the chunk's copies only (an upload or a
                                 * download), no kernel */
  CO_KERNEL_CUSTOM_VIDEO = 3,   /* the engine's custom kernel (CoEngineConfig
                                 * .custom) on params.video */
  CO_KERNEL_CUSTOM_AUDIO = 4,   /* ... on params.audio */
} CoKernelKind;

/* kernel-launcher: a GstCudaOverlapKernelLauncher with a reference count
 * (co-custom-load.h), shared by the element and the engines that use it. */
typedef struct _CoCustomLauncher CoCustomLauncher;

/* operation=custom: where the user's kernel is (docs/custom-kernels.md).
 * The CUDA backend loads @module (PTX, cubin or fatbin), or compiles
 * @source (CUDA C; @source_file: read from that file) with NVRTC
 * (co-nvrtc.h; cached in @cache_dir, NULL: g_get_user_cache_dir
 * ()/cudaoverlap), and finds @name in it; only one of the three may be
 * set.  The CPU backend opens @cpu_library and finds the function
 * @cpu_symbol.  Loaded when the engine opens, unloaded when it is freed.
 * With @launcher (not NULL), both call its functions instead, and the
 * strings are not used; the backend takes its own reference. */
typedef struct
{
  CoCustomLauncher *launcher;
  const gchar *module;
  const gchar *source;
  const gchar *source_file;
  const gchar *cache_dir;
  const gchar *name;
  const gchar *cpu_library;
  const gchar *cpu_symbol;
  gboolean audio;               /* the kernel takes GstCudaOverlapAudioLaunch */
} CoCustomSpec;

/* Indices into CoChunk.ts: the four events of a chunk.  H2D runs over
 * [BEGIN, H2D_DONE), the kernel over [H2D_DONE, KERNEL_DONE), D2H over
 * [KERNEL_DONE, END).  Each interval also holds any wait of the operation
 * for its engine (copy engine or SMs) behind earlier work of other streams. */
enum
{
  CO_TS_BEGIN = 0,
  CO_TS_H2D_DONE = 1,
  CO_TS_KERNEL_DONE = 2,
  CO_TS_END = 3,
  CO_TS_COUNT = 4,
};

/* A 2-D copy of @rows rows of @width bytes.  On the CUDA backend, h2d copies
 * go from host memory to device memory and d2h copies the other way.  On the
 * CPU backend they are memcpy()s done by the worker as part of its work. */
typedef struct
{
  const void *src;
  void *dst;
  gsize spitch;
  gsize dpitch;
  gsize width;
  gsize rows;
} CoCopy;

/* Whether @c is one contiguous block (no row padding on either side). */
static inline gboolean
co_copy_is_plain (const CoCopy * c)
{
  return c->width == c->spitch && c->width == c->dpitch;
}

/* The bytes a copy reads: from @c->src to the end of its last row. */
static inline gsize
co_copy_extent (const CoCopy * c)
{
  return c->rows ? (c->rows - 1) * c->spitch + c->width : 0;
}

/* @c split where its source crosses the byte at offset @off (0 < @off <
 * co_copy_extent (@c)): up to 4 copies into @out, in order, the first ones
 * reading only bytes before @off and the others only bytes from @off on,
 * moving together exactly the bytes @c moves (the rows before, the row
 * @off falls in as two pieces, the rows after).  Returns how many. */
guint co_copy_split (const CoCopy * c, gsize off, CoCopy out[4]);

typedef struct
{
  guint n_h2d;
  guint n_d2h;
  CoCopy h2d[CO_CHUNK_MAX_COPIES];
  CoCopy d2h[CO_CHUNK_MAX_COPIES];
  /* Copies within device memory, after the h2d copies and before the
   * kernel, in order: from device memory to device memory (memory of the
   * engine's context, or CUDA memory another element made in it; host
   * memory on the CPU backend), or, with src NULL, width * rows zero bytes
   * written at dst.  Plain copies only (one block each).  Not transfers:
   * the statistics count them in neither direction. */
  guint n_d2d;
  CoCopy d2d[CO_CHUNK_MAX_D2D];
  CoKernelKind kind;
  union
  {
    CoVideoParams video;
    CoAudioParams audio;
  } params;

  /* Filled by the engine: the stream (or worker) the chunk ran on and, once
   * the frame is returned by co_engine_wait_oldest() (or after
   * co_engine_read_times()), its four timestamps in
   * ns on the engine timeline (CLOCK_MONOTONIC based; see co_engine_now()). */
  guint stream;
  guint64 ts[CO_TS_COUNT];
} CoChunk;

typedef struct _CoFrame CoFrame;
struct _CoFrame
{
  /* Set by the engine at acquire time. */
  guint64 seqnum;
  guint8 *dev_in;               /* this slot's input area (device memory; host memory on CPU) */
  guint8 *dev_out;              /* this slot's output area */
  gsize dev_in_size;
  gsize dev_out_size;

  /* Set by the caller before co_engine_submit(). */
  guint n_chunks;
  CoChunk chunks[CO_MAX_CHUNKS];
  /* Chunk 0's copies (h2d, then d2d) start only once the chunk-0 copies of
   * the previous frame submitted with @ordered have completed, whatever
   * streams the two run on: a running state kept in device memory, which
   * each such frame reads and rewrites there (the audio history of an
   * input in device memory: engine/co-audio.h), passes from frame to frame
   * in submission order.  A frame's own later chunks are not ordered
   * after its chunk 0. */
  gboolean ordered;
  /* Host-to-device copies of what every chunk's kernel reads (a table that
   * travels with the frame, such as its gamma LUT; plain copies): queued
   * on chunk 0's stream before its own copies, and the other chunks'
   * kernels wait for them; on the CPU backend done before any chunk runs.
   * Parameters, not frame data: the statistics do not count them as
   * transfers (as the constant area's uploads).  0 after acquire. */
  guint n_pre;
  CoCopy pre[CO_FRAME_MAX_PRE];
  /* Host copies the frame's device work reads (staged inputs: pageable
   * memory copied into page-locked memory by co-parcopy's threads), or
   * NULL.  The thread that queues the frame's device work (the caller's in
   * co_engine_submit(), or the submit thread) finishes it first (waits for
   * the copies and calls their done notifies, see co-parcopy.h), so the
   * copies of one frame run while earlier frames are queued; a cancelled
   * frame's is finished by co_engine_cancel(), or earlier by the caller
   * (co_engine_finish_host()) when it must release the copies' buffers
   * first. */
  CoParcopyJob *host_job;

  /* Set by co_engine_next_read(): the device reads none of the frame's
   * host memory any more (FALSE after acquire). */
  gboolean host_read;

  /* Set by the engine when the frame has completed (or failed). */
  /* NULL, or what failed (the call and its message): the frame's error
   * channel (the top of this file) */
  gchar *error;

  /* private */
  guint slot;
  gboolean times_pending;       /* waited, timestamps not read yet */
};

typedef struct
{
  CoBackendKind backend;
  gint device_id;               /* -1: the first device */
  guint streams;                /* 1..CO_MAX_STREAMS */
  guint chunks;                 /* 1..CO_MAX_CHUNKS */
  CoMode mode;
  guint max_in_flight;          /* 0: automatic (see co_engine_new) */
  CoWaitMode wait;
  gboolean submit_thread;       /* queue frames to the device from an engine
                                 * thread instead of the caller's */
  gsize dev_in_size;            /* per slot */
  gsize dev_out_size;           /* per slot */
  gsize const_size;             /* device constant area (LUT, taps) */
  const gchar *name;            /* for threads and NVTX */
  /* CUDA backend: the CUcontext to run in (one shared with other CUDA
   * elements: the primary context of device_id, or a context another
   * element made on it); NULL: the primary context of device_id.  The
   * backend pushes it current around each of its calls, on whichever
   * thread makes them, and pops it after (docs/architecture.md, CUDA
   * context). */
  gpointer device_context;
  /* CUDA backend: one call per copy, never cudaMemcpyBatchAsync (the A/B
   * switch for measurements). */
  gboolean no_copy_batch;
  /* CPU backend: the plans read the input buffers and write the output
   * buffers directly, so no per-slot work memory is allocated (frames'
   * dev_in and dev_out are NULL). */
  gboolean cpu_direct;
  /* operation=custom: the user's kernel, loaded by the backend when the
   * engine opens (NULL: none).  Only read during co_engine_new(). */
  const CoCustomSpec *custom;
} CoEngineConfig;

typedef struct _CoEngine CoEngine;

#define CO_ENGINE_ERROR (co_engine_error_quark ())
GQuark co_engine_error_quark (void);
enum
{
  CO_ENGINE_ERROR_NO_DEVICE,    /* backend=cuda and no usable device */
  CO_ENGINE_ERROR_CUDA,         /* a device call failed (a CUDA call; on the
                                 * CPU backend, an injected failure); the
                                 * message names it */
  CO_ENGINE_ERROR_CONFIG,
  CO_ENGINE_ERROR_NO_MEMORY,    /* an allocation failed; the message names
                                 * what and its size */
  CO_ENGINE_ERROR_KERNEL,       /* operation=custom: the user's kernel could
                                 * not be loaded; the message names the file,
                                 * the kernel and why */
  CO_ENGINE_ERROR_REFUSED,      /* the host-memory registry will not
                                 * page-lock a range (co-hostreg.h) */
};

/* Device properties for the run's passport.  All zero on the CPU backend. */
typedef struct
{
  gchar name[256];
  gchar pci_bus_id[32];
  gint cc_major, cc_minor;
  gint driver_version;
  gint runtime_version;
  gint async_engine_count;
  gint concurrent_kernels;
  gint device_id;
  /* operation=custom with kernel-source: NVRTC's compile time when the
   * engine was built (0: from the cache) and where the code came from
   * (co_nvrtc_cache_nick ()); 0 and "" otherwise */
  gdouble kernel_compile_ms;
  const gchar *kernel_cache;
} CoDeviceInfo;

/* Whether co_engine_new() can open an engine with @kind on @device_id (-1:
 * the first device); when not, @error says why in words a user can act on
 * (CO_ENGINE_ERROR_NO_DEVICE: as co_engine_backend_fallback_reason() says
 * it; CO_ENGINE_ERROR_CUDA when the runtime cannot count the devices for
 * another reason).  CO_BACKEND_AUTO and CO_BACKEND_CPU always can. */
gboolean co_engine_backend_usable (CoBackendKind kind, gint device_id,
    GError ** error);
/* Why CO_BACKEND_AUTO runs on the CPU backend on @device_id, in words a
 * user can act on: no NVIDIA driver, a driver too old for this build, no
 * device @device_id, a GPU this build has no code for, or a build without
 * a GPU backend.  NULL when auto runs on a GPU.  Free it. */
gchar *co_engine_backend_fallback_reason (gint device_id);

/* The backend co_engine_new() would open for @kind on @device_id, and in
 * @info (zeroed first) that device's properties as co_engine_device_info()
 * gives them, without making an engine: what the automatic settings need
 * before the first build. */
CoBackendKind co_engine_probe (CoBackendKind kind, gint device_id,
    CoDeviceInfo * info);

/* The device context an engine of @kind on @device_id (-1: the first
 * device) runs in when its config gives none: for CUDA, the device's
 * primary context, which the CUDA runtime keeps for the whole process.  Its
 * CUcontext in *@context and its CUdevice in *@device, for sharing with
 * other CUDA elements; FALSE with @error when the backend has no device
 * context (CPU) or no device is usable. */
gboolean co_engine_device_context (CoBackendKind kind, gint device_id,
    gpointer * context, gint * device, GError ** error);

CoEngine *co_engine_new (const CoEngineConfig * config, GError ** error);
void co_engine_free (CoEngine * engine);

CoBackendKind co_engine_backend (CoEngine * engine);
guint co_engine_streams (CoEngine * engine);
guint co_engine_chunks (CoEngine * engine);
guint co_engine_max_in_flight (CoEngine * engine);
/* Whether an engine thread queues the frames (submit_thread). */
gboolean co_engine_submit_thread (CoEngine * engine);
void co_engine_device_info (CoEngine * engine, CoDeviceInfo * info);

/* The constant area: device memory (host memory on the CPU backend) that
 * kernels read (FIR taps).  co_engine_set_const() uploads and
 * waits; call it only when no frame is in flight. */
gpointer co_engine_const_ptr (CoEngine * engine);
gboolean co_engine_set_const (CoEngine * engine, gconstpointer data,
    gsize size, GError ** error);

/* Blocks until a slot is free.  Returns NULL when flushing. */
CoFrame *co_engine_acquire (CoEngine * engine);
/* Gives back an acquired frame that was never submitted (its host_job
 * finished first). */
void co_engine_cancel (CoEngine * engine, CoFrame * frame);
/* Finishes @frame's host_job, if any, now (the caller's thread: the one
 * that fills and submits the frame). */
void co_engine_finish_host (CoFrame * frame);
/* Queues the frame's chunks.  Does not wait for the device.  On failure
 * the frame is still queued (it completes with frame->error set).  With
 * submit_thread, the engine's thread queues them and a failure of the
 * device calls shows only in frame->error. */
gboolean co_engine_submit (CoEngine * engine, CoFrame * frame, GError ** error);

/* Blocks until the oldest submitted frame has finished on the device and
 * returns it (its error field says whether it failed).  While no frame is
 * submitted it waits; it returns NULL when flushing and no submitted frame
 * is left.  In-flight frames are returned even while flushing, once their
 * work has finished, so that the caller can drop them safely. */
CoFrame *co_engine_wait_oldest (CoEngine * engine);
/* The same, but the frame's timestamps (CoChunk.ts) are not read yet: the
 * consumer hands the frame on first and then calls co_engine_read_times(),
 * so that reading them (on the CUDA backend, a query per event) is not on
 * the frame's latency path.  co_engine_release() reads them if the
 * consumer did not. */
CoFrame *co_engine_wait_oldest_done (CoEngine * engine);
/* Fills the timestamps of @frame, returned by co_engine_wait_oldest_done()
 * and not yet released (nothing when they are read already, or when the
 * frame failed).  FALSE when reading them failed: frame->error then says
 * why, and the timestamps are zero. */
gboolean co_engine_read_times (CoEngine * engine, CoFrame * frame);
void co_engine_release (CoEngine * engine, CoFrame * frame);

/* The oldest submitted frame whose host memory the device has finished
 * reading and that this call has not handed on yet (CoFrame.host_read
 * set), or NULL.  The host memory a frame's device work reads is the
 * source of every chunk's h2d copies and of its pre copies, halo rows read
 * for neighbouring chunks included; once they have completed, the caller
 * may release that memory before the frame's work is done (its kernels
 * and its copies out still run).  Frames are handed on in submission
 * order: none is while an older one is not read yet.  NULL also for a
 * frame whose submission failed (its memory is idle only once
 * co_engine_wait_oldest*() has returned it), and on a backend that cannot
 * tell (the CPU backend hands a frame on once its work is done).  With
 * @wait, it first waits while no frame is submitted, as
 * co_engine_wait_oldest() does (NULL when flushing and none is left),
 * and with CO_WAIT_SPIN, or with @poll whatever the wait mode, it then
 * polls until the oldest frame not handed on yet is read; otherwise it
 * only asks (a query per chunk on the CUDA backend).
 * The consumer's thread, as co_engine_wait_oldest(); the frame is still
 * to be waited for and released. */
CoFrame *co_engine_next_read (CoEngine * engine, gboolean wait, gboolean poll);

/* Which of chunk @i's CO_TS_COUNT events the CUDA backend records: an
 * event with nothing queued between it and the one before it (no copies
 * into the device, no kernel, no copies out, no stream wait) would mark the
 * same point of the stream, so it is not recorded and stands for that
 * one; a chunk of a frame in CUDA memory on both sides (a kernel alone)
 * records two events instead of four.  @src[k]: the event whose time is
 * timestamp k (src[k] <= k; src[CO_TS_BEGIN] is always CO_TS_BEGIN).
 * Needs the chunks' streams (set by co_engine_submit()). */
void co_chunk_ts_sources (const CoFrame * frame, guint i,
    guint src[CO_TS_COUNT]);

void co_engine_set_flushing (CoEngine * engine, gboolean flushing);
/* Blocks until every acquired frame has been released (or flushing). */
gboolean co_engine_drain (CoEngine * engine);
guint co_engine_in_flight (CoEngine * engine);

/* The engine timeline: CLOCK_MONOTONIC in ns.  Device timestamps are mapped
 * onto it through an anchor event (exact to the event resolution, ~0.5 us,
 * plus a constant offset below a few us). */
guint64 co_engine_now (void);

G_END_DECLS
#endif /* __CO_ENGINE_H__ */
