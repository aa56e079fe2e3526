/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: statistics over windows of frames and over the whole run.
 *
 * Pure C11 and libc, built on co-intervals: this module knows nothing of
 * CUDA or GStreamer.  Every frame brings its device operations (H2D copy,
 * kernel, D2H copy of each chunk), each an interval [start, end) in ns on
 * one common device timeline, plus its host latency and memory path.
 *
 * Each frame is added to the current window AND to the whole-run
 * accumulation.
 *
 * Window summaries are exact: every measure and percentile is computed from
 * all the window's records.
 *
 * Whole-run summaries use bounded memory:
 *  - Interval measures are exact under one assumption.  Per union (H2D,
 *    kernel, D2H, H2D ∪ D2H, all) the accumulator keeps a scalar "closed"
 *    measure plus a sorted list of disjoint "open" runs.  Every horizon/8
 *    frames, the watermark W is set to the earliest op start among the
 *    last `horizon` frames (default CO_STATS_DEFAULT_HORIZON), and open
 *    runs that end at or before W are folded into the closed measure.
 *    ASSUMPTION: no op added later starts before W, i.e. no op starts
 *    before the ops of a frame added `horizon` frames earlier (true when
 *    fewer than `horizon` frames are in flight at a time).  An op that
 *    breaks it is still counted, but the part of it before W may be
 *    counted twice; co_stats_late_ops () says how many ops did so (0: the
 *    whole-run measures are exact).  Each open list is also capped at
 *    CO_STATS_MAX_OPEN_RUNS runs (its older half is folded when it
 *    overflows), so memory stays bounded whatever the input.
 *    The intersections are derived exactly by inclusion-exclusion:
 *    |(H2D ∪ D2H) ∩ K| = |H2D ∪ D2H| + |K| − |all|,
 *    |H2D ∩ D2H| = |H2D| + |D2H| − |H2D ∪ D2H|.
 *  - Whole-run latency_min, latency_max and latency_mean are exact;
 *    latency_p50/p95/p99 and gpu_latency_p50/p99 come from a CoHistogram:
 *    nearest rank with at most 1 % relative error (in fact <= 0.79 %).
 *
 * Conventions: an op with end < start is taken as the empty [start, start);
 * an op with an unknown kind is ignored.  Empty ops still count for
 * window_ns and for the frame's GPU latency.  A frame without ops counts
 * in frames, its latency and its memory path, but not in the GPU latency
 * percentiles.
 */

#ifndef __CO_STATS_H__
#define __CO_STATS_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    CO_OP_H2D,
    CO_OP_KERNEL,
    CO_OP_D2H
  } CoOpKind;

  typedef struct
  {
    CoOpKind kind;
    uint64_t start;             /* ns, device timeline */
    uint64_t end;               /* ns, device timeline, exclusive */
    uint64_t bytes;             /* bytes moved (0 for kernels, usually) */
  } CoOpRecord;

  typedef enum
  {
    CO_PATH_PINNED,
    CO_PATH_REGISTERED,
    CO_PATH_PAGEABLE,
    CO_PATH_STAGED,
    CO_PATH_PASSTHROUGH,        /* no copy, no kernel: identity settings */
    CO_PATH_DEVICE              /* device memory (CUDAMemory) in: no
                                 * host-to-device copy, no host memory */
  } CoMemPath;

/* Every member is a field of the cudaoverlap-stats message: a new member
 * needs its line in co-stats-fields.c (test-stats-fields checks that). */
  typedef struct
  {
    uint64_t frames;
    uint64_t bytes_h2d;         /* sum of the H2D ops' bytes */
    uint64_t bytes_d2h;         /* sum of the D2H ops' bytes */
    uint64_t window_ns;         /* latest op end − earliest op start; 0 if no op */
    double fps;                 /* frames / (window_ns / 1e9); 0 if window_ns 0 */

    uint64_t h2d_ns;            /* |∪ H2D| */
    uint64_t kernel_ns;         /* |∪ kernels| */
    uint64_t d2h_ns;            /* |∪ D2H| */
    uint64_t gpu_busy_ns;       /* |∪ all ops| */
    uint64_t gpu_idle_ns;       /* window_ns − gpu_busy_ns */
    uint64_t serial_ns;         /* h2d_ns + kernel_ns + d2h_ns */
    /* (serial − busy) / (serial − max (h2d, kernel, d2h)); 0 when the
     * denominator is 0; clamped to [0, 1].  0: nothing overlaps, 1: every
     * phase hides entirely under the longest one. */
    double overlap_efficiency;
    uint64_t copy_compute_overlap_ns;   /* |(H2D ∪ D2H) ∩ kernels| */
    uint64_t h2d_d2h_overlap_ns;        /* |H2D ∩ D2H| */

    /* host latency (chain entry to just before push), nearest rank */
    uint64_t latency_min;
    uint64_t latency_mean;      /* rounded to the nearest ns */
    uint64_t latency_p50;
    uint64_t latency_p95;
    uint64_t latency_p99;
    uint64_t latency_max;
    /* per frame: earliest op start to latest op end, nearest rank */
    uint64_t gpu_latency_p50;
    uint64_t gpu_latency_p99;

    uint64_t frames_pinned;
    uint64_t frames_registered;
    uint64_t frames_pageable;
    uint64_t frames_staged;
    uint64_t frames_passthrough;
    uint64_t frames_device;
  } CoStatsSummary;

#define CO_STATS_DEFAULT_HORIZON 1024
#define CO_STATS_MAX_OPEN_RUNS   65536

  typedef struct _CoStats CoStats;

/* Returns NULL when out of memory. */
  CoStats *co_stats_new (void);
/* As co_stats_new (), with the whole-run folding horizon in frames (see
 * above); 0 means CO_STATS_DEFAULT_HORIZON. */
  CoStats *co_stats_new_with_horizon (size_t horizon_frames);
/* NULL is allowed. */
  void co_stats_free (CoStats * stats);

/* Adds one frame to the current window and to the whole run.  @ops may be
 * NULL when @n_ops is 0.  Returns false, and adds nothing, on bad
 * arguments (NULL stats, NULL ops with n_ops > 0, unknown path) or when
 * out of memory. */
  bool co_stats_add_frame (CoStats * stats, const CoOpRecord * ops,
      size_t n_ops, uint64_t host_latency_ns, CoMemPath path);

/* Number of frames in the current window. */
  uint64_t co_stats_window_frames (const CoStats * stats);

/* Fills @out with the summary of the current window, then empties the
 * window (the whole-run accumulation is kept).  All zeros if empty. */
  void co_stats_take_window (CoStats * stats, CoStatsSummary * out);

/* Fills @out with the whole-run summary; resets nothing. */
  void co_stats_total (const CoStats * stats, CoStatsSummary * out);

/* Ops that started before the whole-run folding watermark (see above);
 * 0 means the whole-run interval measures are exact. */
  uint64_t co_stats_late_ops (const CoStats * stats);

/* Clears the window and the whole run. */
  void co_stats_reset (CoStats * stats);

#ifdef __cplusplus
}
#endif

#endif                          /* __CO_STATS_H__ */
