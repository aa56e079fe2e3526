/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: the automatic settings (`streams`, `chunks`, `batch` at 0,
 * `wait-mode=auto`): what the element knows in, the settings and a short
 * reason out.
 *
 * Pure C11 and libc, like co-stats: no GLib, no GStreamer, no CUDA, so the
 * rules are unit-tested on any host (tests/test-tune.c).  The element
 * (plugin/gstcudaoverlapfilter-tune.c) fills CoTuneInput from its caps,
 * the device and upstream's latency answer, builds with the choice, then,
 * after CO_TUNE_MEASURE_SKIP + CO_TUNE_MEASURE_FRAMES frames, fills
 * CoTuneInput.measured from its statistics and decides once more; a
 * different choice goes through the life cycle (drain, rebuild).
 *
 * The rules (the measured rows behind each are in docs/PERFORMANCE.md,
 * "Automatic settings"):
 *  - non-live (throughput): 1 chunk unless the kernel takes at least as
 *    long as the longer copy of a frame (every chunk costs host CPU, and
 *    more chunks than that only cost throughput); streams: copy engines
 *    + 1, at least 2 (one stream overlaps nothing); batch for frames under
 *    4 MiB once the first frames show the host is the bound: chain's CPU
 *    time at least the device's busy time per frame or chain not waiting
 *    (for a slot) most of its time, and upstream not waiting between
 *    buffers (a batch pays the host's per-frame costs once for all its
 *    frames);
 *  - device memory on both pads (no copies): one chunk, live or not
 *    (chunks overlap a band's copies with another band's kernel; with no
 *    copies a chunk only adds its launch, its events and its waits);
 *  - live (latency): a band per 4 MiB of frame, at most 8 (a frame's
 *    latency falls with its bands; 4K RGBA: 8), two streams per band
 *    (16 x 8), batch 1 (a frame would wait for the batch), and the spinning
 *    wait for video (a wake-up costs far more than a poll) within a CPU
 *    budget: at most CO_TUNE_MAX_SPINNERS spinning elements per process,
 *    and none whose frames keep the device busy over half the frame
 *    interval;
 *  - non-live video on the GPU whose upstream cycles through a ring of at
 *    most CO_TUNE_RING_MAX buffers of its own that the frames in flight
 *    can hold whole (an application's recurring buffers or slots, a small
 *    pool of its own): the spinning wait too, within the same budget.
 *    Upstream's next buffer is one the element holds, so each wake-up
 *    between a frame's copies in and that buffer going back is upstream's
 *    pace (640x480 GRAY8 from 8 recurring buffers: blocking ~50k, spinning
 *    ~80k frames/s).  A larger set of recurring buffers is more often an
 *    upstream that does not wait for them (frames it keeps and pushes
 *    again), whose host-bound `chain` a spinning wait slows: 640x360 RGBA
 *    from 16 such buffers, 0.83 x raw spinning, 1.07 x blocking in an
 *    earlier run;
 *  - many engines in one process (non-live, GPU): the streams of the
 *    engines on one device stay within its CO_TUNE_DEVICE_QUEUES hardware
 *    work queues (CUDA_DEVICE_MAX_CONNECTIONS, 8 unless the application
 *    sets it): beyond them streams share a queue, and one engine's copy
 *    then waits behind another's kernel in it.  Each takes
 *    max (2, chunks, queues / engines) at most (more streams than queues
 *    lose throughput to that sharing);
 *    the in-flight bound follows the streams (max (4, streams + 2)), so
 *    the frames queued on the device stay bounded too;
 *  - CPU backend: a worker thread per core (at most 8), the cores shared
 *    by the process's engines on the CPU backend, and, for frames of
 *    256 KiB or more, a band per worker, so one frame's bands run at once;
 *    batch as on the GPU; never spin (the CPU backend ignores it);
 *  - staged input (pageable memory seen once, copied into page-locked
 *    memory by a few threads before its H2D copies), non-live, measured
 *    on at least half of the measured frames: the submit thread, so that
 *    the upstream thread queues frame N + 1's staging copies while the
 *    submit thread waits for frame N's (consecutive frames' copies
 *    overlap instead of one frame's at a time, which is what brings staged
 *    input near the host's memcpy ceiling);
 *  - audio (no batch): the same rules on the buffer size (measured from
 *    the buffers once they came: the first build knows only the slots'
 *    capacity); FIR filters of CO_TUNE_HEAVY_TAPS taps or more count as
 *    heavy (from there on the kernel takes about as long as a copy).
 * An explicit value (user_*) is kept as it is; the others are chosen
 * around it (e.g. streams >= chunks).
 */

#ifndef __CO_TUNE_H__
#define __CO_TUNE_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Frames after a build that are not measured (pools, first launches),
 * then frames measured before the second decision. */
#define CO_TUNE_MEASURE_SKIP 5
#define CO_TUNE_MEASURE_FRAMES 30
/* Spinning elements per process at most (each keeps a core busy while
 * its frames are in flight). */
#define CO_TUNE_MAX_SPINNERS 2
/* The largest ring of upstream's own buffers that counts as upstream
 * waiting for them (capture pools and application rings: 4 to 8). */
#define CO_TUNE_RING_MAX 8
/* Hardware work queues of a device (CUDA_DEVICE_MAX_CONNECTIONS' default):
 * the engines of a process on one device share them. */
#define CO_TUNE_DEVICE_QUEUES 8
/* FIR filters from this many taps up are heavy (audio). */
#define CO_TUNE_HEAVY_TAPS 480
#define CO_TUNE_REASON_MAX 400

  typedef enum
  {
    CO_TUNE_VIDEO,
    CO_TUNE_AUDIO
  } CoTuneMedia;

/* The kernel's cost before anything is measured. */
  typedef enum
  {
    CO_TUNE_COST_LIGHT,         /* far below the copies (invert, gamma, box
                                 * blur up to r = 32, gain, short FIR) */
    CO_TUNE_COST_HEAVY          /* about the copies or more (long FIR) */
  } CoTuneCost;

/* Per frame, over CO_TUNE_MEASURE_FRAMES frames; frames == 0: none yet. */
  typedef struct
  {
    uint64_t frames;
    uint64_t h2d_ns;            /* device busy time by kind per frame (the */
    uint64_t kernel_ns;         /* union over the frames / frames); CPU  */
    uint64_t d2h_ns;            /* backend: the workers' time is kernel */
    uint64_t busy_ns;           /* the union of all kinds per frame */
    uint64_t gpu_latency_ns;    /* one frame's device latency (p50) */
    uint64_t host_cpu_ns;       /* CPU time of the upstream thread in chain */
    uint64_t chain_wall_ns;     /* wall time in chain */
    uint64_t gap_ns;            /* wall time between two chain calls:
                                 * upstream's own time for a buffer */
    uint64_t gap_cpu_ns;        /* the upstream thread's CPU time in it */
    uint64_t bytes;             /* input bytes per buffer */
    uint64_t staged;            /* of the frames, those whose input was
                                 * staged (copied into page-locked memory) */
    unsigned ring;              /* buffers upstream cycles through (its
                                 * pool's maximum, or the ring its buffers'
                                 * addresses show); 0: not known */
  } CoTuneMeasure;

  typedef struct
  {
    CoTuneMedia media;
    bool cpu_backend;
    unsigned copy_engines;      /* asyncEngineCount; 0: unknown (2 assumed) */
    unsigned host_cores;        /* for the CPU backend's workers; 0: 1 */
    uint64_t frame_bytes;       /* one buffer (audio: the slots' capacity) */
    unsigned rows;              /* rows a frame can be cut at; 0: no bound */
    bool live;                  /* upstream's latency answer */
    uint64_t frame_interval_ns; /* from the caps; 0: unknown */
    CoTuneCost cost;
    bool can_batch;             /* the element has a batch (video) */
    bool no_copies;             /* device memory on both pads: a frame is
                                 * read and written in place, no copies */
    unsigned spinners;          /* other elements of the process spinning */
    unsigned sharers;           /* other engines of the process on the same
                                 * device (CPU backend: on the CPU backend) */
    unsigned user_streams;      /* explicit values; 0: automatic */
    unsigned user_chunks;
    unsigned user_batch;
    unsigned user_in_flight;    /* max-in-flight; 0: automatic */
    bool user_wait;             /* wait-mode set: no suggestion */
    bool user_submit_thread;    /* submit-thread set: kept */
    CoTuneMeasure measured;
  } CoTuneInput;

  typedef struct
  {
    unsigned streams, chunks, batch;
    bool spin;                  /* suggest wait-mode=spin */
    bool submit_thread;         /* queue the device work from a thread of
                                 * the engine (staged input, non-live) */
    char reason[CO_TUNE_REASON_MAX];    /* one line, for the passport */
  } CoTuneChoice;

/* The engine's frames in flight when max-in-flight is automatic: an
 * upload, a kernel and a download of different frames at once on every
 * stream, plus the frame being pushed. */
  static inline unsigned co_tune_default_in_flight (unsigned streams)
  {
    return streams + 2 > 4 ? streams + 2 : 4;
  }

/* Whether upstream waits for the element to let its buffers go: it cycles
 * through a ring of @ring buffers of its own (0: not known), at most
 * CO_TUNE_RING_MAX, that @in_flight engine frames of @batch images each
 * and the one being filled hold whole. */
  static inline bool co_tune_ring_bound (unsigned ring, unsigned in_flight,
      unsigned batch)
  {
    return ring > 0 && ring <= CO_TUNE_RING_MAX &&
        (uint64_t) ring <= (uint64_t) (in_flight + 1) * batch;
  }

/* Fills @out from @in.  Never fails: every value is in range (streams 1..32,
 * chunks 1..64, batch 1..16). */
  void co_tune_decide (const CoTuneInput * in, CoTuneChoice * out);

/* Whether @a and @b have the same settings (the reasons may differ). */
  bool co_tune_same (const CoTuneChoice * a, const CoTuneChoice * b);

#ifdef __cplusplus
}
#endif

#endif /* __CO_TUNE_H__ */
