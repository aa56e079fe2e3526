/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: interval arithmetic, percentiles and a log-bucketed histogram.
 *
 * The statistics (co-stats.c) reduce a frame's device operations to
 * measures of unions and intersections of time intervals: how long any
 * copy ran, how long a copy and a kernel ran at once.  This module does
 * that arithmetic on sorted arrays of half-open intervals, and keeps the
 * latency percentiles of a whole run in a fixed-size histogram.  Pure C11
 * and libc (co-intervals.h has the conventions).
 */

#include "co-intervals.h"

#include <stdlib.h>
#include <string.h>

/* --- arrays of intervals ------------------------------------------------ */

static int
interval_cmp (const void *pa, const void *pb)
{
  const CoInterval *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return 0;
}

void
co_intervals_sort (CoInterval * iv, size_t n)
{
  size_t i;

  if (iv == NULL || n < 2)
    return;
  /* Records mostly arrive in time order: skip the sort when we can. */
  for (i = 1; i < n; i++) {
    if (interval_cmp (&iv[i - 1], &iv[i]) > 0)
      break;
  }
  if (i < n)
    qsort (iv, n, sizeof (CoInterval), interval_cmp);
}

/* Walks an array sorted by start and yields its union as disjoint,
 * non-touching, non-empty runs, in order. */
typedef struct
{
  const CoInterval *iv;
  size_t n;
  size_t i;
} RunCursor;

static bool
run_cursor_next (RunCursor * c, uint64_t * start, uint64_t * end)
{
  uint64_t s, e;

  while (c->i < c->n && c->iv[c->i].end <= c->iv[c->i].start)
    c->i++;
  if (c->i >= c->n)
    return false;

  s = c->iv[c->i].start;
  e = c->iv[c->i].end;
  c->i++;
  /* start <= e also merges touching intervals; empty ones inside the run
   * are harmless. */
  while (c->i < c->n && c->iv[c->i].start <= e) {
    if (c->iv[c->i].end > e)
      e = c->iv[c->i].end;
    c->i++;
  }
  *start = s;
  *end = e;
  return true;
}

size_t
co_intervals_normalize (CoInterval * iv, size_t n)
{
  RunCursor c = { iv, n, 0 };
  uint64_t s, e;
  size_t out = 0;

  if (iv == NULL)
    return 0;
  co_intervals_sort (iv, n);
  /* The cursor reads at index >= out + 1 (or done) whenever we write at
   * out, so writing in place is safe. */
  while (run_cursor_next (&c, &s, &e)) {
    iv[out].start = s;
    iv[out].end = e;
    out++;
  }
  return out;
}

uint64_t
co_intervals_union_measure_sorted (const CoInterval * iv, size_t n)
{
  RunCursor c = { iv, n, 0 };
  uint64_t s, e, total = 0;

  if (iv == NULL)
    return 0;
  while (run_cursor_next (&c, &s, &e))
    total += e - s;
  return total;
}

uint64_t
co_intervals_union_measure (CoInterval * iv, size_t n)
{
  co_intervals_sort (iv, n);
  return co_intervals_union_measure_sorted (iv, n);
}

uint64_t
co_intervals_intersection_measure_sorted (const CoInterval * a, size_t na,
    const CoInterval * b, size_t nb)
{
  RunCursor ca = { a, a ? na : 0, 0 };
  RunCursor cb = { b, b ? nb : 0, 0 };
  uint64_t as, ae, bs, be, total = 0;
  bool have_a, have_b;

  have_a = run_cursor_next (&ca, &as, &ae);
  have_b = run_cursor_next (&cb, &bs, &be);
  while (have_a && have_b) {
    uint64_t lo = as > bs ? as : bs;
    uint64_t hi = ae < be ? ae : be;

    if (hi > lo)
      total += hi - lo;
    if (ae < be)
      have_a = run_cursor_next (&ca, &as, &ae);
    else
      have_b = run_cursor_next (&cb, &bs, &be);
  }
  return total;
}

uint64_t
co_intervals_intersection_measure (CoInterval * a, size_t na,
    CoInterval * b, size_t nb)
{
  co_intervals_sort (a, na);
  if (b != a)
    co_intervals_sort (b, nb);
  return co_intervals_intersection_measure_sorted (a, na, b, nb);
}

/* --- a growable set of intervals --------------------------------------- */

CoIntervalSet *
co_interval_set_new (void)
{
  return calloc (1, sizeof (CoIntervalSet));
}

void
co_interval_set_free (CoIntervalSet * set)
{
  if (set == NULL)
    return;
  free (set->iv);
  free (set);
}

bool
co_interval_set_reserve (CoIntervalSet * set, size_t extra)
{
  size_t need, cap;
  CoInterval *iv;

  if (extra > SIZE_MAX / sizeof (CoInterval) - set->len)
    return false;
  need = set->len + extra;
  if (need <= set->cap)
    return true;
  cap = set->cap ? set->cap : 16;
  while (cap < need)
    cap = cap > SIZE_MAX / sizeof (CoInterval) / 2 ? need : cap * 2;
  iv = realloc (set->iv, cap * sizeof (CoInterval));
  if (iv == NULL)
    return false;
  set->iv = iv;
  set->cap = cap;
  return true;
}

bool
co_interval_set_add (CoIntervalSet * set, uint64_t start, uint64_t end)
{
  if (!co_interval_set_reserve (set, 1))
    return false;
  set->iv[set->len].start = start;
  set->iv[set->len].end = end < start ? start : end;
  set->len++;
  return true;
}

void
co_interval_set_clear (CoIntervalSet * set)
{
  set->len = 0;
}

uint64_t
co_interval_set_union_measure (CoIntervalSet * set)
{
  return co_intervals_union_measure (set->iv, set->len);
}

/* --- statistics over uint64 values ------------------------------------- */

static int
u64_cmp (const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *) pa, b = *(const uint64_t *) pb;

  return a < b ? -1 : (a > b ? 1 : 0);
}

void
co_values_sort (uint64_t * v, size_t n)
{
  if (v != NULL && n > 1)
    qsort (v, n, sizeof (uint64_t), u64_cmp);
}

size_t
co_nearest_rank (size_t n, double p)
{
  double x;
  size_t r;

  if (n == 0)
    return 0;
  if (!(p > 0.0))               /* also catches NaN */
    return 1;
  if (p >= 100.0)
    return n;
  /* p * n first: exact for the usual integer p, so that e.g. p = 95,
   * n = 100 gives exactly 95.  The tolerance absorbs rounding of
   * fractional p (99.9 * 1000 must give 999, not 1000). */
  x = p * (double) n / 100.0;
  r = (size_t) x;
  if ((double) r < x * (1.0 - 1e-12))
    r++;
  if (r < 1)
    r = 1;
  if (r > n)
    r = n;
  return r;
}

uint64_t
co_values_percentile_sorted (const uint64_t * v, size_t n, double p)
{
  if (v == NULL || n == 0)
    return 0;
  return v[co_nearest_rank (n, p) - 1];
}

uint64_t
co_values_percentile (uint64_t * v, size_t n, double p)
{
  co_values_sort (v, n);
  return co_values_percentile_sorted (v, n, p);
}

void
co_values_min_max_mean (const uint64_t * v, size_t n, uint64_t * min,
    uint64_t * max, double *mean)
{
  uint64_t lo = 0, hi = 0, sum_lo = 0, sum_hi = 0;
  size_t i;

  if (v != NULL && n > 0) {
    lo = hi = v[0];
    for (i = 0; i < n; i++) {
      if (v[i] < lo)
        lo = v[i];
      if (v[i] > hi)
        hi = v[i];
      sum_lo += v[i];
      if (sum_lo < v[i])
        sum_hi++;
    }
  }
  if (min)
    *min = lo;
  if (max)
    *max = hi;
  if (mean)
    *mean = n ? ((double) sum_hi * 18446744073709551616.0 +
        (double) sum_lo) / (double) n : 0.0;
}

/* --- log-bucketed histogram -------------------------------------------- */

#define HIST_SUB_BITS  6
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)    /* 64 sub-buckets per octave */
#define HIST_LINEAR    (2u * HIST_SUB_COUNT)    /* values < 128 are exact */
#define HIST_N_BUCKETS (HIST_LINEAR + (64 - (HIST_SUB_BITS + 1)) * HIST_SUB_COUNT)

struct _CoHistogram
{
  uint64_t count;
  uint64_t min;
  uint64_t max;
  uint64_t sum_lo;              /* exact 128-bit sum of the values */
  uint64_t sum_hi;
  uint64_t buckets[HIST_N_BUCKETS];
};

static unsigned
floor_log2 (uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
  return 63u - (unsigned) __builtin_clzll (v);
#else
  unsigned e = 0;

  while (v >>= 1)
    e++;
  return e;
#endif
}

static size_t
hist_index (uint64_t v)
{
  unsigned e;

  if (v < HIST_LINEAR)
    return (size_t) v;
  e = floor_log2 (v);           /* >= HIST_SUB_BITS + 1 */
  return HIST_LINEAR + (size_t) (e - (HIST_SUB_BITS + 1)) * HIST_SUB_COUNT +
      (size_t) ((v >> (e - HIST_SUB_BITS)) - HIST_SUB_COUNT);
}

/* Midpoint of the bucket: within 1/128 of any value of the bucket. */
static uint64_t
hist_representative (size_t idx)
{
  size_t k;
  unsigned shift;
  uint64_t lower;

  if (idx < HIST_LINEAR)
    return (uint64_t) idx;
  k = idx - HIST_LINEAR;
  shift = (unsigned) (k / HIST_SUB_COUNT) + 1;  /* = e - HIST_SUB_BITS */
  lower = (uint64_t) (HIST_SUB_COUNT + k % HIST_SUB_COUNT) << shift;
  return lower + ((uint64_t) 1 << (shift - 1));
}

CoHistogram *
co_histogram_new (void)
{
  return calloc (1, sizeof (CoHistogram));
}

void
co_histogram_free (CoHistogram * h)
{
  free (h);
}

void
co_histogram_clear (CoHistogram * h)
{
  memset (h, 0, sizeof (*h));
}

void
co_histogram_add (CoHistogram * h, uint64_t value)
{
  if (h->count == 0 || value < h->min)
    h->min = value;
  if (h->count == 0 || value > h->max)
    h->max = value;
  h->count++;
  h->sum_lo += value;
  if (h->sum_lo < value)
    h->sum_hi++;
  h->buckets[hist_index (value)]++;
}

void
co_histogram_merge (CoHistogram * dst, const CoHistogram * src)
{
  size_t i;

  if (src->count == 0)
    return;
  if (dst->count == 0 || src->min < dst->min)
    dst->min = src->min;
  if (dst->count == 0 || src->max > dst->max)
    dst->max = src->max;
  dst->count += src->count;
  dst->sum_hi += src->sum_hi;
  dst->sum_lo += src->sum_lo;
  if (dst->sum_lo < src->sum_lo)
    dst->sum_hi++;
  for (i = 0; i < HIST_N_BUCKETS; i++)
    dst->buckets[i] += src->buckets[i];
}

uint64_t
co_histogram_count (const CoHistogram * h)
{
  return h->count;
}

uint64_t
co_histogram_min (const CoHistogram * h)
{
  return h->count ? h->min : 0;
}

uint64_t
co_histogram_max (const CoHistogram * h)
{
  return h->count ? h->max : 0;
}

double
co_histogram_mean (const CoHistogram * h)
{
  if (h->count == 0)
    return 0.0;
  return ((double) h->sum_hi * 18446744073709551616.0 + (double) h->sum_lo) /
      (double) h->count;
}

uint64_t
co_histogram_percentile (const CoHistogram * h, double p)
{
  uint64_t rank, seen = 0, rep;
  size_t i;

  if (h->count == 0)
    return 0;
  /* co_nearest_rank works on size_t; counts beyond SIZE_MAX cannot occur
   * on 64-bit hosts in practice, clamp anyway. */
  if (h->count > SIZE_MAX)
    rank = co_nearest_rank (SIZE_MAX, p);
  else
    rank = co_nearest_rank ((size_t) h->count, p);
  if (rank <= 1)
    return h->min;
  if (rank >= h->count)
    return h->max;
  for (i = 0; i < HIST_N_BUCKETS; i++) {
    seen += h->buckets[i];
    if (seen >= rank)
      break;
  }
  rep = hist_representative (i < HIST_N_BUCKETS ? i : HIST_N_BUCKETS - 1);
  if (rep < h->min)
    rep = h->min;
  if (rep > h->max)
    rep = h->max;
  return rep;
}
