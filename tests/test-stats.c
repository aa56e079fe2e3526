/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for co-stats: known cases, invariants on random workloads,
 * windows and whole run against a brute-force bitmap computation.
 */

#include <glib.h>
#include <string.h>

#include "co-intervals.h"
#include "co-stats.h"

#define OP(k, s, e, b) ((CoOpRecord) { (k), (s), (e), (b) })

static void
check_invariants (const CoStatsSummary * s)
{
  guint64 mx = MAX (s->h2d_ns, MAX (s->kernel_ns, s->d2h_ns));

  g_assert_cmpuint (mx, <=, s->gpu_busy_ns);
  g_assert_cmpuint (s->gpu_busy_ns, <=, s->serial_ns);
  g_assert_cmpuint (s->serial_ns, ==, s->h2d_ns + s->kernel_ns + s->d2h_ns);
  g_assert_cmpuint (s->gpu_busy_ns, <=, s->window_ns);
  g_assert_cmpuint (s->gpu_idle_ns, ==, s->window_ns - s->gpu_busy_ns);
  g_assert_cmpfloat (s->overlap_efficiency, >=, 0.0);
  g_assert_cmpfloat (s->overlap_efficiency, <=, 1.0);
  g_assert_cmpuint (s->copy_compute_overlap_ns, <=, s->kernel_ns);
  g_assert_cmpuint (s->h2d_d2h_overlap_ns, <=, MIN (s->h2d_ns, s->d2h_ns));
  g_assert_cmpuint (s->latency_min, <=, s->latency_p50);
  g_assert_cmpuint (s->latency_p50, <=, s->latency_p95);
  g_assert_cmpuint (s->latency_p95, <=, s->latency_p99);
  g_assert_cmpuint (s->latency_p99, <=, s->latency_max);
  g_assert_cmpuint (s->latency_min, <=, s->latency_mean);
  g_assert_cmpuint (s->latency_mean, <=, s->latency_max);
  g_assert_cmpuint (s->gpu_latency_p50, <=, s->gpu_latency_p99);
  g_assert_cmpuint (s->frames_pinned + s->frames_registered +
      s->frames_pageable + s->frames_staged + s->frames_passthrough +
      s->frames_device, ==, s->frames);
  if (s->window_ns == 0)
    g_assert_cmpfloat (s->fps, ==, 0.0);
}

static void
assert_all_zero (const CoStatsSummary * s)
{
  CoStatsSummary zero;

  memset (&zero, 0, sizeof (zero));
  g_assert_true (memcmp (s, &zero, sizeof (zero)) == 0);
}

/* --- known cases ---------------------------------------------------------- */

static void
test_zero_frames (void)
{
  CoStats *st = co_stats_new ();
  CoStatsSummary s;

  co_stats_take_window (st, &s);
  assert_all_zero (&s);
  co_stats_total (st, &s);
  assert_all_zero (&s);
  g_assert_cmpuint (co_stats_window_frames (st), ==, 0);
  co_stats_free (st);
  co_stats_free (NULL);
}

static void
test_serial_one_frame (void)
{
  CoStats *st = co_stats_new ();
  CoOpRecord ops[] = { OP (CO_OP_H2D, 1000, 1010, 4096),
    OP (CO_OP_KERNEL, 1010, 1030, 0), OP (CO_OP_D2H, 1030, 1035, 2048)
  };
  CoStatsSummary s, t;

  g_assert_true (co_stats_add_frame (st, ops, 3, 5000, CO_PATH_PINNED));
  g_assert_cmpuint (co_stats_window_frames (st), ==, 1);
  co_stats_total (st, &t);
  co_stats_take_window (st, &s);
  g_assert_cmpuint (co_stats_window_frames (st), ==, 0);
  g_assert_true (memcmp (&s, &t, sizeof (s)) == 0);

  g_assert_cmpuint (s.frames, ==, 1);
  g_assert_cmpuint (s.bytes_h2d, ==, 4096);
  g_assert_cmpuint (s.bytes_d2h, ==, 2048);
  g_assert_cmpuint (s.window_ns, ==, 35);
  g_assert_cmpfloat_with_epsilon (s.fps, 1e9 / 35.0, 1e-3);
  g_assert_cmpuint (s.h2d_ns, ==, 10);
  g_assert_cmpuint (s.kernel_ns, ==, 20);
  g_assert_cmpuint (s.d2h_ns, ==, 5);
  g_assert_cmpuint (s.gpu_busy_ns, ==, 35);
  g_assert_cmpuint (s.gpu_idle_ns, ==, 0);
  g_assert_cmpuint (s.serial_ns, ==, 35);
  g_assert_cmpfloat (s.overlap_efficiency, ==, 0.0);
  g_assert_cmpuint (s.copy_compute_overlap_ns, ==, 0);
  g_assert_cmpuint (s.h2d_d2h_overlap_ns, ==, 0);
  g_assert_cmpuint (s.latency_min, ==, 5000);
  g_assert_cmpuint (s.latency_mean, ==, 5000);
  g_assert_cmpuint (s.latency_p50, ==, 5000);
  g_assert_cmpuint (s.latency_p99, ==, 5000);
  g_assert_cmpuint (s.latency_max, ==, 5000);
  g_assert_cmpuint (s.gpu_latency_p50, ==, 35);
  g_assert_cmpuint (s.gpu_latency_p99, ==, 35);
  g_assert_cmpuint (s.frames_pinned, ==, 1);
  check_invariants (&s);

  /* the window is empty again, the total is kept */
  co_stats_take_window (st, &s);
  assert_all_zero (&s);
  co_stats_total (st, &s);
  g_assert_cmpuint (s.frames, ==, 1);
  co_stats_reset (st);
  co_stats_total (st, &s);
  assert_all_zero (&s);
  co_stats_free (st);
}

static void
test_perfect_overlap (void)
{
  CoStats *st = co_stats_new ();
  CoOpRecord ops[] = { OP (CO_OP_H2D, 0, 10, 1), OP (CO_OP_KERNEL, 0, 10, 0),
    OP (CO_OP_D2H, 0, 10, 1)
  };
  CoStatsSummary s, t;

  co_stats_add_frame (st, ops, 3, 1, CO_PATH_REGISTERED);
  co_stats_total (st, &t);
  co_stats_take_window (st, &s);
  g_assert_true (memcmp (&s, &t, sizeof (s)) == 0);
  g_assert_cmpuint (s.gpu_busy_ns, ==, 10);
  g_assert_cmpuint (s.serial_ns, ==, 30);
  g_assert_cmpfloat (s.overlap_efficiency, ==, 1.0);
  g_assert_cmpuint (s.copy_compute_overlap_ns, ==, 10);
  g_assert_cmpuint (s.h2d_d2h_overlap_ns, ==, 10);
  g_assert_cmpuint (s.frames_registered, ==, 1);
  check_invariants (&s);
  co_stats_free (st);
}

/* Three-stage pipeline, 10 ns per stage: busy = 10 (n + 2), serial = 30 n,
 * efficiency = (20 n - 20) / 20 n = 1 - 1/n. */
static void
test_pipeline (void)
{
  CoStats *st = co_stats_new ();
  CoStatsSummary s, t;
  guint64 n = 50, i;

  for (i = 0; i < n; i++) {
    CoOpRecord ops[] = { OP (CO_OP_H2D, 10 * i, 10 * i + 10, 100),
      OP (CO_OP_KERNEL, 10 * i + 10, 10 * i + 20, 0),
      OP (CO_OP_D2H, 10 * i + 20, 10 * i + 30, 100)
    };
    /* ops in any order */
    CoOpRecord rev[] = { ops[2], ops[0], ops[1] };

    g_assert_true (co_stats_add_frame (st, i % 2 ? ops : rev, 3, 100 + i,
            CO_PATH_PAGEABLE));
  }
  co_stats_total (st, &t);
  co_stats_take_window (st, &s);
  g_assert_cmpuint (s.window_ns, ==, 10 * (n + 2));
  g_assert_cmpuint (s.gpu_busy_ns, ==, 10 * (n + 2));
  g_assert_cmpuint (s.serial_ns, ==, 30 * n);
  g_assert_cmpfloat_with_epsilon (s.overlap_efficiency, 1.0 - 1.0 / n, 1e-12);
  g_assert_cmpuint (s.copy_compute_overlap_ns, ==, 10 * n);
  g_assert_cmpuint (s.h2d_d2h_overlap_ns, ==, 10 * (n - 2));
  g_assert_cmpuint (s.bytes_h2d, ==, 100 * n);
  g_assert_cmpuint (s.latency_min, ==, 100);
  g_assert_cmpuint (s.latency_max, ==, 100 + n - 1);
  g_assert_cmpuint (s.latency_p50, ==, 124);
  g_assert_cmpuint (s.latency_p95, ==, 147);
  g_assert_cmpuint (s.latency_mean, ==, 125);   /* 124.5 rounds up */
  g_assert_cmpuint (s.gpu_latency_p50, ==, 30);
  g_assert_cmpuint (s.frames_pageable, ==, n);
  check_invariants (&s);
  check_invariants (&t);
  g_assert_cmpuint (t.gpu_busy_ns, ==, s.gpu_busy_ns);
  g_assert_cmpuint (t.h2d_d2h_overlap_ns, ==, s.h2d_d2h_overlap_ns);
  g_assert_cmpfloat (t.overlap_efficiency, ==, s.overlap_efficiency);
  co_stats_free (st);
}

static void
test_edge_frames (void)
{
  CoStats *st = co_stats_new ();
  CoOpRecord odd[] = { OP ((CoOpKind) 7, 0, 1000000, 99),
    OP (CO_OP_KERNEL, 500, 400, 0),     /* end < start: empty at 500 */
    OP (CO_OP_KERNEL, 600, 600, 0)
  };
  CoOpRecord one = OP (CO_OP_H2D, 0, 10, 1);
  CoStatsSummary s;

  g_assert_false (co_stats_add_frame (NULL, NULL, 0, 0, CO_PATH_PINNED));
  g_assert_false (co_stats_add_frame (st, NULL, 1, 0, CO_PATH_PINNED));
  g_assert_false (co_stats_add_frame (st, &one, 1, 0,
          (CoMemPath) (CO_PATH_DEVICE + 1)));
  g_assert_cmpuint (co_stats_window_frames (st), ==, 0);

  /* a frame without ops */
  g_assert_true (co_stats_add_frame (st, NULL, 0, 777, CO_PATH_PINNED));
  co_stats_take_window (st, &s);
  g_assert_cmpuint (s.frames, ==, 1);
  g_assert_cmpuint (s.window_ns, ==, 0);
  g_assert_cmpfloat (s.fps, ==, 0.0);
  g_assert_cmpuint (s.latency_p50, ==, 777);
  g_assert_cmpuint (s.gpu_latency_p50, ==, 0);
  check_invariants (&s);

  /* unknown kinds are ignored; empty ops count for the span only */
  g_assert_true (co_stats_add_frame (st, odd, 3, 1, CO_PATH_PINNED));
  co_stats_take_window (st, &s);
  g_assert_cmpuint (s.window_ns, ==, 100);
  g_assert_cmpuint (s.gpu_busy_ns, ==, 0);
  g_assert_cmpuint (s.bytes_h2d + s.bytes_d2h, ==, 0);
  g_assert_cmpuint (s.gpu_latency_p50, ==, 100);
  check_invariants (&s);
  co_stats_free (st);
}

/* --- random workloads against brute force -------------------------------- */

#define T0 G_GUINT64_CONSTANT (1000000000000)   /* large base time */
#define PERIOD 200

typedef struct
{
  CoOpRecord ops[12];
  gsize n_ops;
  guint64 latency;
  CoMemPath path;
} Frame;

/* Pipeline-like frame @i: sub is in [T0 + i PERIOD, T0 + (i + 1/2) PERIOD),
 * every op starts in [sub, sub + 4 PERIOD) and the earliest one before
 * sub + PERIOD.  So the earliest op of any frame is no later than the
 * start of any op of frame i + 2 or later: the horizon assumption holds
 * for horizons >= 2 (with 1, later ops can start before the watermark). */
static void
gen_frame (GRand * r, guint64 i, Frame * f)
{
  guint64 sub = T0 + i * PERIOD + g_rand_int_range (r, 0, PERIOD / 2);
  gint c, n_chunks = g_rand_int_range (r, 0, 5);

  f->n_ops = 0;
  for (c = 0; c < n_chunks; c++) {
    guint64 t = sub + g_rand_int_range (r, 0, PERIOD);
    CoOpKind k;

    for (k = CO_OP_H2D; k <= CO_OP_D2H; k++) {
      guint64 len = g_rand_int_range (r, 0, PERIOD / 2);

      if (g_rand_int_range (r, 0, 10) == 0)
        continue;               /* missing op */
      if (g_rand_int_range (r, 0, 10) == 0)
        len = 0;
      f->ops[f->n_ops++] = OP (k, t, t + len, g_rand_int_range (r, 0, 1000));
      t += len + g_rand_int_range (r, 0, PERIOD / 4);
    }
  }
  f->latency = g_rand_int_range (r, 0, 4) == 0 ?
      (guint64) g_rand_int_range (r, 1000, 100000000) :
      (guint64) g_rand_int_range (r, 1000000, 2000000);
  f->path = (CoMemPath) g_rand_int_range (r, 0, CO_PATH_DEVICE + 1);
}

static guint64
exact_rank (guint64 * v, gsize n, guint p)
{
  co_values_sort (v, n);
  return n ? v[(p * n + 99) / 100 - 1] : 0;
}

/* Brute force over frames[first..first+n): bitmaps relative to the
 * earliest possible start of frame @first. */
static void
brute_force (const Frame * all, gsize first, gsize n, CoStatsSummary * e)
{
  const Frame *frames = &all[first];
  guint64 base = T0 + first * PERIOD;
  guint64 range = (n + 10) * PERIOD, lo = G_MAXUINT64, hi = 0, t;
  guint8 *bits = g_malloc0 (range);
  guint64 *lat = g_new (guint64, n + 1), *glat = g_new (guint64, n + 1);
  gsize i, j, ng = 0;
  gdouble mean;

  memset (e, 0, sizeof (*e));
  for (i = 0; i < n; i++) {
    const Frame *f = &frames[i];
    guint64 flo = G_MAXUINT64, fhi = 0;

    for (j = 0; j < f->n_ops; j++) {
      const CoOpRecord *op = &f->ops[j];

      for (t = op->start; t < op->end; t++)
        bits[t - base] |= 1 << op->kind;
      flo = MIN (flo, op->start);
      fhi = MAX (fhi, op->end);
      if (op->kind == CO_OP_H2D)
        e->bytes_h2d += op->bytes;
      if (op->kind == CO_OP_D2H)
        e->bytes_d2h += op->bytes;
    }
    if (f->n_ops) {
      glat[ng++] = fhi - flo;
      lo = MIN (lo, flo);
      hi = MAX (hi, fhi);
    }
    lat[i] = f->latency;
    e->frames_pinned += f->path == CO_PATH_PINNED;
    e->frames_registered += f->path == CO_PATH_REGISTERED;
    e->frames_pageable += f->path == CO_PATH_PAGEABLE;
    e->frames_staged += f->path == CO_PATH_STAGED;
    e->frames_passthrough += f->path == CO_PATH_PASSTHROUGH;
    e->frames_device += f->path == CO_PATH_DEVICE;
  }
  for (t = 0; t < range; t++) {
    guint8 b = bits[t];

    e->h2d_ns += (b & 1) != 0;
    e->kernel_ns += (b & 2) != 0;
    e->d2h_ns += (b & 4) != 0;
    e->gpu_busy_ns += b != 0;
    e->copy_compute_overlap_ns += (b & 2) && (b & 5);
    e->h2d_d2h_overlap_ns += (b & 5) == 5;
  }
  e->frames = n;
  e->window_ns = ng ? hi - lo : 0;
  co_values_min_max_mean (lat, n, &e->latency_min, &e->latency_max, &mean);
  e->latency_mean = (guint64) (mean + 0.5);
  e->latency_p50 = exact_rank (lat, n, 50);
  e->latency_p95 = exact_rank (lat, n, 95);
  e->latency_p99 = exact_rank (lat, n, 99);
  e->gpu_latency_p50 = exact_rank (glat, ng, 50);
  e->gpu_latency_p99 = exact_rank (glat, ng, 99);
  g_free (bits);
  g_free (lat);
  g_free (glat);
}

static void
assert_measures_equal (const CoStatsSummary * s, const CoStatsSummary * e)
{
  g_assert_cmpuint (s->frames, ==, e->frames);
  g_assert_cmpuint (s->bytes_h2d, ==, e->bytes_h2d);
  g_assert_cmpuint (s->bytes_d2h, ==, e->bytes_d2h);
  g_assert_cmpuint (s->window_ns, ==, e->window_ns);
  g_assert_cmpuint (s->h2d_ns, ==, e->h2d_ns);
  g_assert_cmpuint (s->kernel_ns, ==, e->kernel_ns);
  g_assert_cmpuint (s->d2h_ns, ==, e->d2h_ns);
  g_assert_cmpuint (s->gpu_busy_ns, ==, e->gpu_busy_ns);
  g_assert_cmpuint (s->copy_compute_overlap_ns, ==, e->copy_compute_overlap_ns);
  g_assert_cmpuint (s->h2d_d2h_overlap_ns, ==, e->h2d_d2h_overlap_ns);
  g_assert_cmpuint (s->latency_min, ==, e->latency_min);
  g_assert_cmpuint (s->latency_max, ==, e->latency_max);
  g_assert_cmpuint (s->latency_mean, ==, e->latency_mean);
  g_assert_cmpuint (s->frames_pinned, ==, e->frames_pinned);
  g_assert_cmpuint (s->frames_registered, ==, e->frames_registered);
  g_assert_cmpuint (s->frames_pageable, ==, e->frames_pageable);
  g_assert_cmpuint (s->frames_staged, ==, e->frames_staged);
  g_assert_cmpuint (s->frames_passthrough, ==, e->frames_passthrough);
  g_assert_cmpuint (s->frames_device, ==, e->frames_device);
}

static void
assert_close (guint64 got, guint64 exact)
{
  gdouble err = exact ? ((gdouble) got - (gdouble) exact) / exact : got;

  g_assert_cmpfloat (err < 0 ? -err : err, <=, 0.01);
}

static void
run_random (guint32 seed, gsize n, gsize horizon, gboolean exact)
{
  GRand *r = g_rand_new_with_seed (seed);
  CoStats *st = co_stats_new_with_horizon (horizon);
  Frame *frames = g_new (Frame, n);
  CoStatsSummary s, e;
  gsize i, win_start = 0, win_len = 1;
  guint64 sum_frames = 0, sum_bytes = 0;

  for (i = 0; i < n; i++) {
    gen_frame (r, i, &frames[i]);
    g_assert_true (co_stats_add_frame (st, frames[i].ops, frames[i].n_ops,
            frames[i].latency, frames[i].path));
    if (i + 1 - win_start == win_len || i + 1 == n) {
      /* windows are exact, percentiles included */
      co_stats_take_window (st, &s);
      check_invariants (&s);
      brute_force (frames, win_start, i + 1 - win_start, &e);
      assert_measures_equal (&s, &e);
      g_assert_cmpuint (s.latency_p50, ==, e.latency_p50);
      g_assert_cmpuint (s.latency_p95, ==, e.latency_p95);
      g_assert_cmpuint (s.latency_p99, ==, e.latency_p99);
      g_assert_cmpuint (s.gpu_latency_p50, ==, e.gpu_latency_p50);
      g_assert_cmpuint (s.gpu_latency_p99, ==, e.gpu_latency_p99);
      sum_frames += s.frames;
      sum_bytes += s.bytes_h2d + s.bytes_d2h;
      win_start = i + 1;
      win_len = g_rand_int_range (r, 1, 300);
    }
    if (i % 997 == 0 || i + 1 == n) {
      /* the whole run: exact measures, percentiles within 1 % */
      co_stats_total (st, &s);
      brute_force (frames, 0, i + 1, &e);
      if (!exact) {
        /* late ops may be counted twice, never lost */
        g_assert_cmpuint (s.gpu_busy_ns, >=, e.gpu_busy_ns);
        g_assert_cmpuint (s.kernel_ns, >=, e.kernel_ns);
        continue;
      }
      check_invariants (&s);
      assert_measures_equal (&s, &e);
      assert_close (s.latency_p50, e.latency_p50);
      assert_close (s.latency_p95, e.latency_p95);
      assert_close (s.latency_p99, e.latency_p99);
      assert_close (s.gpu_latency_p50, e.gpu_latency_p50);
      assert_close (s.gpu_latency_p99, e.gpu_latency_p99);
    }
  }
  g_assert_cmpuint (sum_frames, ==, n);
  g_assert_cmpuint (sum_bytes, ==, s.bytes_h2d + s.bytes_d2h);
  if (exact)
    g_assert_cmpuint (co_stats_late_ops (st), ==, 0);
  else
    g_assert_cmpuint (co_stats_late_ops (st), >, 0);

  g_free (frames);
  co_stats_free (st);
  g_rand_free (r);
}

static void
test_random_workloads (void)
{
  run_random (1, 5000, 8, TRUE);        /* folds often */
  run_random (2, 5000, 64, TRUE);
  run_random (3, 3000, 0, TRUE);        /* default horizon */
  run_random (4, 20, 8, TRUE);
  run_random (5, 3000, 2, TRUE);        /* the tightest exact horizon */
  run_random (6, 3000, 1, FALSE);       /* assumption broken: late ops */
}

/* An op far behind the watermark: counted (here it falls in idle time, so
 * the total is still exact) and reported as late. */
static void
test_late_op (void)
{
  CoStats *st = co_stats_new_with_horizon (8);
  CoOpRecord late = OP (CO_OP_KERNEL, 5, 15, 0);
  CoStatsSummary s;
  guint64 i;

  for (i = 0; i < 100; i++) {
    CoOpRecord op = OP (CO_OP_KERNEL, 1000 + 100 * i, 1050 + 100 * i, 0);

    co_stats_add_frame (st, &op, 1, 1, CO_PATH_PINNED);
  }
  g_assert_cmpuint (co_stats_late_ops (st), ==, 0);
  co_stats_add_frame (st, &late, 1, 1, CO_PATH_PINNED);
  g_assert_cmpuint (co_stats_late_ops (st), ==, 1);
  co_stats_total (st, &s);
  g_assert_cmpuint (s.kernel_ns, ==, 100 * 50 + 10);
  g_assert_cmpuint (s.window_ns, ==, 1000 + 9900 + 50 - 5);
  check_invariants (&s);
  co_stats_reset (st);
  g_assert_cmpuint (co_stats_late_ops (st), ==, 0);
  co_stats_free (st);
}

/* More disjoint runs than CO_STATS_MAX_OPEN_RUNS in one frame: the open
 * list is capped, the measure stays exact. */
static void
test_open_run_cap (void)
{
  CoStats *st = co_stats_new ();
  gsize n = 3 * CO_STATS_MAX_OPEN_RUNS, i;
  CoOpRecord *ops = g_new (CoOpRecord, n);
  CoOpRecord next = OP (CO_OP_D2H, 10 * n, 10 * n + 7, 0);
  CoStatsSummary s, w;

  for (i = 0; i < n; i++)
    ops[i] = OP (CO_OP_KERNEL, 10 * i, 10 * i + 3, 0);
  g_assert_true (co_stats_add_frame (st, ops, n, 1, CO_PATH_PINNED));
  g_assert_true (co_stats_add_frame (st, &next, 1, 1, CO_PATH_PINNED));
  co_stats_total (st, &s);
  co_stats_take_window (st, &w);
  g_assert_cmpuint (s.kernel_ns, ==, 3 * n);
  g_assert_cmpuint (s.gpu_busy_ns, ==, 3 * n + 7);
  g_assert_cmpuint (co_stats_late_ops (st), ==, 0);
  g_assert_true (memcmp (&s, &w, sizeof (s)) == 0);
  g_free (ops);
  co_stats_free (st);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/stats/zero-frames", test_zero_frames);
  g_test_add_func ("/stats/serial-one-frame", test_serial_one_frame);
  g_test_add_func ("/stats/perfect-overlap", test_perfect_overlap);
  g_test_add_func ("/stats/pipeline", test_pipeline);
  g_test_add_func ("/stats/edge-frames", test_edge_frames);
  g_test_add_func ("/stats/random-workloads", test_random_workloads);
  g_test_add_func ("/stats/late-op", test_late_op);
  g_test_add_func ("/stats/open-run-cap", test_open_run_cap);

  return g_test_run ();
}
