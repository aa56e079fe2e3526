/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: statistics over windows of frames and over the whole run.
 *
 * The point of the element is to overlap copies with kernels, so its
 * statistics measure overlap: how long the copy engines and the SMs were
 * busy, how much of that ran at once, and how long frames took.  Each
 * frame hands over its operations as intervals on one timeline; a window
 * keeps every record and summarises them exactly, and the whole run folds
 * old intervals away so that its memory stays bounded over hours (the
 * semantics and the folding rule are in co-stats.h).  Pure C11 and libc,
 * so that the arithmetic is unit-tested on any host.
 */

#include "co-stats.h"
#include "co-intervals.h"

#include <stdlib.h>
#include <string.h>

/* The unions we measure.  Intersections follow by inclusion-exclusion. */
enum
{
  U_H2D,
  U_KERNEL,
  U_D2H,
  U_COPY,                       /* H2D ∪ D2H */
  U_ALL,
  N_UNIONS
};

typedef struct
{
  uint64_t *v;
  size_t len;
  size_t cap;
} U64Array;

/* Plain counters, kept for the window and for the whole run. */
typedef struct
{
  uint64_t frames;
  uint64_t bytes_h2d;
  uint64_t bytes_d2h;
  uint64_t min_start;
  uint64_t max_end;
  bool have_ops;
  uint64_t paths[CO_PATH_DEVICE + 1];
} Counters;

/* Whole-run union: folded measure + sorted, disjoint, non-touching,
 * non-empty open runs. */
typedef struct
{
  uint64_t closed;
  uint64_t open_sum;
  CoIntervalSet *open;
} UnionAccum;

struct _CoStats
{
  /* current window: every record, measured exactly on take */
  Counters win;
  CoIntervalSet *win_sets[N_UNIONS];
  U64Array win_lat;
  U64Array win_gpu_lat;

  /* whole run: bounded */
  Counters run;
  UnionAccum acc[N_UNIONS];
  CoHistogram *run_lat;
  CoHistogram *run_gpu_lat;
  uint64_t fold_wm;             /* every folded run ends at or before this */
  uint64_t late_ops;

  /* earliest op start of the last `horizon` frames that had ops */
  uint64_t *ring;
  size_t horizon;
  size_t ring_len;
  size_t ring_pos;
  size_t frames_since_fold;
};

/* --- helpers ------------------------------------------------------------ */

static bool
u64_array_reserve (U64Array * a, size_t extra)
{
  size_t cap;
  uint64_t *v;

  if (a->len + extra <= a->cap)
    return true;
  cap = a->cap ? a->cap * 2 : 64;
  while (cap < a->len + extra)
    cap *= 2;
  v = realloc (a->v, cap * sizeof (uint64_t));
  if (v == NULL)
    return false;
  a->v = v;
  a->cap = cap;
  return true;
}

#define counters_clear(c) memset ((c), 0, sizeof (Counters))

/* The unions an op of each kind belongs to, -1 terminated. */
static const int op_unions[3][4] = {
  [CO_OP_H2D] = {U_H2D, U_COPY, U_ALL, -1},
  [CO_OP_KERNEL] = {U_KERNEL, U_ALL, -1, -1},
  [CO_OP_D2H] = {U_D2H, U_COPY, U_ALL, -1},
};

/* Adds [s, e) to the open runs, merging with what it overlaps or touches.
 * The caller has reserved room for one more run. */
static void
accum_add (UnionAccum * a, uint64_t s, uint64_t e)
{
  CoInterval *iv = a->open->iv;
  size_t n = a->open->len, lo = 0, hi = n, i, j;
  uint64_t ns = s, ne = e;

  if (e <= s)
    return;
  /* runs are disjoint and sorted, so their ends are sorted too: find the
   * first run that ends at or after s */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (iv[mid].end < s)
      lo = mid + 1;
    else
      hi = mid;
  }
  i = j = lo;
  while (j < n && iv[j].start <= e) {
    if (iv[j].start < ns)
      ns = iv[j].start;
    if (iv[j].end > ne)
      ne = iv[j].end;
    a->open_sum -= iv[j].end - iv[j].start;
    j++;
  }
  if (j == i) {
    memmove (&iv[i + 1], &iv[i], (n - i) * sizeof (CoInterval));
    a->open->len++;
  } else if (j > i + 1) {
    memmove (&iv[i + 1], &iv[j], (n - j) * sizeof (CoInterval));
    a->open->len -= j - i - 1;
  }
  iv[i].start = ns;
  iv[i].end = ne;
  a->open_sum += ne - ns;
}

/* Moves the first @k open runs into the closed measure. */
static void
accum_fold_first (UnionAccum * a, size_t k)
{
  CoInterval *iv = a->open->iv;
  size_t i;

  if (k == 0)
    return;
  for (i = 0; i < k; i++) {
    a->closed += iv[i].end - iv[i].start;
    a->open_sum -= iv[i].end - iv[i].start;
  }
  memmove (iv, &iv[k], (a->open->len - k) * sizeof (CoInterval));
  a->open->len -= k;
}

/* Folds the open runs that end at or before @wm. */
static void
accum_fold (UnionAccum * a, uint64_t wm)
{
  size_t k = 0;

  while (k < a->open->len && a->open->iv[k].end <= wm)
    k++;
  accum_fold_first (a, k);
}

static uint64_t
accum_measure (const UnionAccum * a)
{
  return a->closed + a->open_sum;
}

static void
run_fold (CoStats * stats)
{
  uint64_t wm;
  size_t i;

  wm = stats->ring[0];
  for (i = 1; i < stats->ring_len; i++) {
    if (stats->ring[i] < wm)
      wm = stats->ring[i];
  }
  if (wm > stats->fold_wm)
    stats->fold_wm = wm;
  for (i = 0; i < N_UNIONS; i++)
    accum_fold (&stats->acc[i], stats->fold_wm);
  stats->frames_since_fold = 0;
}

/* Safety cap: fold the older half of an overflowing open list.  The
 * watermark moves up accordingly, so later ops before it count as late. */
static void
run_cap (CoStats * stats, UnionAccum * a)
{
  size_t k;

  if (a->open->len <= CO_STATS_MAX_OPEN_RUNS)
    return;
  k = a->open->len / 2;
  if (a->open->iv[k - 1].end > stats->fold_wm)
    stats->fold_wm = a->open->iv[k - 1].end;
  accum_fold_first (a, k);
}

static uint64_t
round_mean (double mean)
{
  if (!(mean > 0.0))
    return 0;
  if (mean >= 18446744073709551615.0)
    return UINT64_MAX;
  return (uint64_t) (mean + 0.5);
}

/* Fills the fields common to both summaries from the counters. */
static void
summary_from_counters (CoStatsSummary * out, const Counters * c)
{
  out->frames = c->frames;
  out->bytes_h2d = c->bytes_h2d;
  out->bytes_d2h = c->bytes_d2h;
  out->window_ns = c->have_ops ? c->max_end - c->min_start : 0;
  out->frames_pinned = c->paths[CO_PATH_PINNED];
  out->frames_registered = c->paths[CO_PATH_REGISTERED];
  out->frames_pageable = c->paths[CO_PATH_PAGEABLE];
  out->frames_staged = c->paths[CO_PATH_STAGED];
  out->frames_passthrough = c->paths[CO_PATH_PASSTHROUGH];
  out->frames_device = c->paths[CO_PATH_DEVICE];
}

/* Derives fps, idle, serial and efficiency from the measures. */
static void
summary_finish (CoStatsSummary * out)
{
  uint64_t mx, den;

  out->serial_ns = out->h2d_ns + out->kernel_ns + out->d2h_ns;
  out->gpu_idle_ns = out->window_ns > out->gpu_busy_ns ?
      out->window_ns - out->gpu_busy_ns : 0;
  out->fps = out->window_ns ?
      (double) out->frames / ((double) out->window_ns / 1e9) : 0.0;

  mx = out->h2d_ns;
  if (out->kernel_ns > mx)
    mx = out->kernel_ns;
  if (out->d2h_ns > mx)
    mx = out->d2h_ns;
  den = out->serial_ns - mx;
  out->overlap_efficiency = 0.0;
  if (den > 0 && out->serial_ns > out->gpu_busy_ns) {
    double eff = (double) (out->serial_ns - out->gpu_busy_ns) / (double) den;

    out->overlap_efficiency = eff > 1.0 ? 1.0 : eff;
  }
}

/* --- public API --------------------------------------------------------- */

CoStats *
co_stats_new_with_horizon (size_t horizon_frames)
{
  CoStats *stats;
  size_t i;

  if (horizon_frames == 0)
    horizon_frames = CO_STATS_DEFAULT_HORIZON;
  stats = calloc (1, sizeof (CoStats));
  if (stats == NULL)
    return NULL;
  stats->horizon = horizon_frames;
  stats->ring = calloc (horizon_frames, sizeof (uint64_t));
  stats->run_lat = co_histogram_new ();
  stats->run_gpu_lat = co_histogram_new ();
  if (stats->ring == NULL || stats->run_lat == NULL ||
      stats->run_gpu_lat == NULL)
    goto oom;
  for (i = 0; i < N_UNIONS; i++) {
    stats->win_sets[i] = co_interval_set_new ();
    stats->acc[i].open = co_interval_set_new ();
    if (stats->win_sets[i] == NULL || stats->acc[i].open == NULL)
      goto oom;
  }
  return stats;

oom:
  co_stats_free (stats);
  return NULL;
}

CoStats *
co_stats_new (void)
{
  return co_stats_new_with_horizon (CO_STATS_DEFAULT_HORIZON);
}

void
co_stats_free (CoStats * stats)
{
  size_t i;

  if (stats == NULL)
    return;
  for (i = 0; i < N_UNIONS; i++) {
    co_interval_set_free (stats->win_sets[i]);
    co_interval_set_free (stats->acc[i].open);
  }
  free (stats->win_lat.v);
  free (stats->win_gpu_lat.v);
  co_histogram_free (stats->run_lat);
  co_histogram_free (stats->run_gpu_lat);
  free (stats->ring);
  free (stats);
}

/* The span [start, end) of one frame's operations, if it has any. */
typedef struct
{
  uint64_t start;
  uint64_t end;
  bool have;
} FrameSpan;

/* Reserves everything a frame of @n_ops operations needs, so that nothing
 * in co_stats_add_frame() after it can fail and a frame is added entirely
 * or not at all. */
static bool
frame_reserve (CoStats * stats, size_t n_ops)
{
  size_t k;

  if (!u64_array_reserve (&stats->win_lat, 1) ||
      !u64_array_reserve (&stats->win_gpu_lat, 1))
    return false;
  for (k = 0; k < N_UNIONS; k++) {
    if (!co_interval_set_reserve (stats->win_sets[k], n_ops) ||
        !co_interval_set_reserve (stats->acc[k].open, n_ops))
      return false;
  }
  return true;
}

/* One operation: the frame's span, the byte counters of the window and the
 * run, late operations, and the unions it belongs to. */
static void
frame_add_op (CoStats * stats, Counters * const counters[2],
    const CoOpRecord * op, FrameSpan * span)
{
  uint64_t s = op->start, e = op->end < s ? s : op->end;
  const int *u;
  size_t k;

  if (op->kind != CO_OP_H2D && op->kind != CO_OP_KERNEL &&
      op->kind != CO_OP_D2H)
    return;                     /* unknown kind: ignored */

  if (!span->have || s < span->start)
    span->start = s;
  if (!span->have || e > span->end)
    span->end = e;
  span->have = true;

  for (k = 0; k < 2; k++) {
    if (op->kind == CO_OP_H2D)
      counters[k]->bytes_h2d += op->bytes;
    else if (op->kind == CO_OP_D2H)
      counters[k]->bytes_d2h += op->bytes;
  }

  if (e > s && s < stats->fold_wm)
    stats->late_ops++;
  for (u = op_unions[op->kind]; *u >= 0; u++) {
    co_interval_set_add (stats->win_sets[*u], s, e);
    accum_add (&stats->acc[*u], s, e);
  }
}

/* The frame count, memory path and first start / last end of @c. */
static void
counters_add_frame (Counters * c, CoMemPath path, const FrameSpan * span)
{
  c->frames++;
  c->paths[path]++;
  if (span->have) {
    if (!c->have_ops || span->start < c->min_start)
      c->min_start = span->start;
    if (!c->have_ops || span->end > c->max_end)
      c->max_end = span->end;
    c->have_ops = true;
  }
}

/* The frame's latencies; a frame with operations also enters the ring of
 * recent starts, which folds the whole-run unions every horizon / 8 frames
 * once full. */
static void
frame_add_latencies (CoStats * stats, uint64_t host_latency_ns,
    const FrameSpan * span)
{
  stats->win_lat.v[stats->win_lat.len++] = host_latency_ns;
  co_histogram_add (stats->run_lat, host_latency_ns);
  if (span->have) {
    stats->win_gpu_lat.v[stats->win_gpu_lat.len++] = span->end - span->start;
    co_histogram_add (stats->run_gpu_lat, span->end - span->start);

    stats->ring[stats->ring_pos] = span->start;
    stats->ring_pos = (stats->ring_pos + 1) % stats->horizon;
    if (stats->ring_len < stats->horizon)
      stats->ring_len++;
    stats->frames_since_fold++;
    if (stats->ring_len == stats->horizon &&
        stats->frames_since_fold >= (stats->horizon + 7) / 8)
      run_fold (stats);
  }
}

bool
co_stats_add_frame (CoStats * stats, const CoOpRecord * ops, size_t n_ops,
    uint64_t host_latency_ns, CoMemPath path)
{
  Counters *counters[2];
  FrameSpan span = { 0, 0, false };
  size_t i, k;

  if (stats == NULL || (ops == NULL && n_ops > 0) ||
      (unsigned) path > (unsigned) CO_PATH_DEVICE)
    return false;

  if (!frame_reserve (stats, n_ops))
    return false;

  counters[0] = &stats->win;
  counters[1] = &stats->run;

  for (i = 0; i < n_ops; i++)
    frame_add_op (stats, counters, &ops[i], &span);
  for (k = 0; k < 2; k++)
    counters_add_frame (counters[k], path, &span);

  frame_add_latencies (stats, host_latency_ns, &span);
  for (k = 0; k < N_UNIONS; k++)
    run_cap (stats, &stats->acc[k]);

  return true;
}

uint64_t
co_stats_window_frames (const CoStats * stats)
{
  return stats->win.frames;
}

void
co_stats_take_window (CoStats * stats, CoStatsSummary * out)
{
  CoIntervalSet **sets = stats->win_sets;
  double mean;
  size_t k;

  memset (out, 0, sizeof (*out));
  summary_from_counters (out, &stats->win);

  out->h2d_ns = co_interval_set_union_measure (sets[U_H2D]);
  out->kernel_ns = co_interval_set_union_measure (sets[U_KERNEL]);
  out->d2h_ns = co_interval_set_union_measure (sets[U_D2H]);
  out->gpu_busy_ns = co_interval_set_union_measure (sets[U_ALL]);
  out->copy_compute_overlap_ns =
      co_intervals_intersection_measure (sets[U_COPY]->iv, sets[U_COPY]->len,
      sets[U_KERNEL]->iv, sets[U_KERNEL]->len);
  out->h2d_d2h_overlap_ns =
      co_intervals_intersection_measure (sets[U_H2D]->iv, sets[U_H2D]->len,
      sets[U_D2H]->iv, sets[U_D2H]->len);

  co_values_min_max_mean (stats->win_lat.v, stats->win_lat.len,
      &out->latency_min, &out->latency_max, &mean);
  out->latency_mean = round_mean (mean);
  co_values_sort (stats->win_lat.v, stats->win_lat.len);
  out->latency_p50 =
      co_values_percentile_sorted (stats->win_lat.v, stats->win_lat.len, 50);
  out->latency_p95 =
      co_values_percentile_sorted (stats->win_lat.v, stats->win_lat.len, 95);
  out->latency_p99 =
      co_values_percentile_sorted (stats->win_lat.v, stats->win_lat.len, 99);

  co_values_sort (stats->win_gpu_lat.v, stats->win_gpu_lat.len);
  out->gpu_latency_p50 = co_values_percentile_sorted (stats->win_gpu_lat.v,
      stats->win_gpu_lat.len, 50);
  out->gpu_latency_p99 = co_values_percentile_sorted (stats->win_gpu_lat.v,
      stats->win_gpu_lat.len, 99);

  summary_finish (out);

  /* reset the window */
  counters_clear (&stats->win);
  for (k = 0; k < N_UNIONS; k++)
    co_interval_set_clear (sets[k]);
  stats->win_lat.len = 0;
  stats->win_gpu_lat.len = 0;
}

void
co_stats_total (const CoStats * stats, CoStatsSummary * out)
{
  uint64_t copy, all;

  memset (out, 0, sizeof (*out));
  summary_from_counters (out, &stats->run);

  out->h2d_ns = accum_measure (&stats->acc[U_H2D]);
  out->kernel_ns = accum_measure (&stats->acc[U_KERNEL]);
  out->d2h_ns = accum_measure (&stats->acc[U_D2H]);
  out->gpu_busy_ns = all = accum_measure (&stats->acc[U_ALL]);
  copy = accum_measure (&stats->acc[U_COPY]);
  /* inclusion-exclusion; the guards only matter after late ops */
  out->copy_compute_overlap_ns = copy + out->kernel_ns > all ?
      copy + out->kernel_ns - all : 0;
  out->h2d_d2h_overlap_ns = out->h2d_ns + out->d2h_ns > copy ?
      out->h2d_ns + out->d2h_ns - copy : 0;

  out->latency_min = co_histogram_min (stats->run_lat);
  out->latency_max = co_histogram_max (stats->run_lat);
  out->latency_mean = round_mean (co_histogram_mean (stats->run_lat));
  out->latency_p50 = co_histogram_percentile (stats->run_lat, 50);
  out->latency_p95 = co_histogram_percentile (stats->run_lat, 95);
  out->latency_p99 = co_histogram_percentile (stats->run_lat, 99);
  out->gpu_latency_p50 = co_histogram_percentile (stats->run_gpu_lat, 50);
  out->gpu_latency_p99 = co_histogram_percentile (stats->run_gpu_lat, 99);

  summary_finish (out);
}

uint64_t
co_stats_late_ops (const CoStats * stats)
{
  return stats->late_ops;
}

void
co_stats_reset (CoStats * stats)
{
  size_t k;

  counters_clear (&stats->win);
  counters_clear (&stats->run);
  for (k = 0; k < N_UNIONS; k++) {
    co_interval_set_clear (stats->win_sets[k]);
    co_interval_set_clear (stats->acc[k].open);
    stats->acc[k].closed = 0;
    stats->acc[k].open_sum = 0;
  }
  stats->win_lat.len = 0;
  stats->win_gpu_lat.len = 0;
  co_histogram_clear (stats->run_lat);
  co_histogram_clear (stats->run_gpu_lat);
  stats->fold_wm = 0;
  stats->late_ops = 0;
  stats->ring_len = 0;
  stats->ring_pos = 0;
  stats->frames_since_fold = 0;
}
