/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: interval arithmetic, percentiles and a log-bucketed histogram.
 *
 * Pure C11 and libc: this module knows nothing of CUDA or GStreamer.
 *
 * Intervals are half-open, [start, end), in nanoseconds (uint64_t) on one
 * common timeline.  An interval with end <= start is empty (measure 0) and
 * is ignored by every measure below.  Touching intervals ([0,5) and [5,9))
 * make one run: their union measures 9.
 *
 * Sorting convention: the functions that take a non-const array sort it IN
 * PLACE (by start, then end).  They only permute it: the multiset of
 * intervals is left unchanged, so the array still means the same union.
 * The "_sorted" variants take a const array that the caller guarantees to
 * be sorted by start (ties in any order); overlaps are allowed there.
 */

#ifndef __CO_INTERVALS_H__
#define __CO_INTERVALS_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    uint64_t start;
    uint64_t end;
  } CoInterval;

/* --- arrays of intervals ------------------------------------------------ */

/* Sorts @iv in place by start, then end.  O(n) when already sorted,
 * O(n log n) otherwise. */
  void co_intervals_sort (CoInterval * iv, size_t n);

/* Sorts @iv in place, merges overlapping and touching intervals and drops
 * empty ones.  Returns the new count: iv[0..ret) is then sorted, disjoint,
 * non-touching and non-empty. */
  size_t co_intervals_normalize (CoInterval * iv, size_t n);

/* |iv[0] ∪ ... ∪ iv[n-1]|.  Sorts @iv in place (permutation only). */
  uint64_t co_intervals_union_measure (CoInterval * iv, size_t n);

/* Same, for an array already sorted by start.  O(n), no allocation. */
  uint64_t co_intervals_union_measure_sorted (const CoInterval * iv, size_t n);

/* |A ∩ B| where A = ∪ a[i] and B = ∪ b[j].  Sorts @a and @b in place
 * (permutation only); @a and @b may be the same array. */
  uint64_t co_intervals_intersection_measure (CoInterval * a, size_t na,
      CoInterval * b, size_t nb);

/* Same, for arrays already sorted by start.  O(na + nb), no allocation. */
  uint64_t co_intervals_intersection_measure_sorted (const CoInterval * a,
      size_t na, const CoInterval * b, size_t nb);

/* --- a growable set of intervals --------------------------------------- */

/* The fields may be read; change them only through the functions below.
 * The set is a plain list: adding does not merge, so a set can hold
 * overlapping intervals and the union functions above apply to
 * (set->iv, set->len). */
  typedef struct
  {
    CoInterval *iv;
    size_t len;
    size_t cap;
  } CoIntervalSet;

/* Returns NULL when out of memory. */
  CoIntervalSet *co_interval_set_new (void);
/* Frees the set and its storage; NULL is allowed. */
  void co_interval_set_free (CoIntervalSet * set);
/* Appends [start, end); an interval with end < start is stored as the
 * empty [start, start).  Returns false (set unchanged) when out of memory. */
  bool co_interval_set_add (CoIntervalSet * set, uint64_t start, uint64_t end);
/* Makes room for @extra more intervals.  Returns false when out of memory. */
  bool co_interval_set_reserve (CoIntervalSet * set, size_t extra);
/* Empties the set and keeps its storage for reuse. */
  void co_interval_set_clear (CoIntervalSet * set);
/* |union of the set|.  Sorts the set in place. */
  uint64_t co_interval_set_union_measure (CoIntervalSet * set);

/* --- statistics over uint64 values ------------------------------------- */

/* Sorts @v ascending, in place. */
  void co_values_sort (uint64_t * v, size_t n);

/* Nearest-rank percentile: rank = ceil (p / 100 * n) (1-based), clamped to
 * [1, n]; returns the value at that rank.  p is meant to be in (0, 100];
 * p <= 0 gives the minimum, p > 100 the maximum.  Returns 0 when n == 0.
 * co_values_percentile () sorts @v in place; the _sorted variant requires
 * @v sorted ascending. */
  uint64_t co_values_percentile (uint64_t * v, size_t n, double p);
  uint64_t co_values_percentile_sorted (const uint64_t * v, size_t n, double p);

/* The 1-based nearest rank used above, for n >= 1; 0 when n == 0. */
  size_t co_nearest_rank (size_t n, double p);

/* Exact min, max and mean of @v (no sorting); all zero when n == 0.  Any
 * out pointer may be NULL. */
  void co_values_min_max_mean (const uint64_t * v, size_t n,
      uint64_t * min, uint64_t * max, double *mean);

/* --- log-bucketed histogram -------------------------------------------- */

/* CoHistogram counts uint64 values in buckets whose width is at most 1/64
 * of their lower bound (HDR-histogram layout): values below 128 each have
 * their own bucket (exact); a value v >= 2^e (e >= 7) lies in one of 64
 * linear sub-buckets of the octave [2^e, 2^(e+1)), of width 2^(e-6).
 *
 * A percentile is reported as the midpoint of the bucket holding the
 * nearest-rank value, clamped to the exact [min, max] seen.  Its relative
 * error against the exact nearest-rank value is at most 2^-7 = 0.79 %
 * (so <= 1 %); min, max, count and mean are exact.  Fixed size: 3776
 * buckets (about 30 KiB), whatever the number of values. */
  typedef struct _CoHistogram CoHistogram;

#define CO_HISTOGRAM_MAX_RELATIVE_ERROR (1.0 / 128.0)

/* Returns NULL when out of memory. */
  CoHistogram *co_histogram_new (void);
  void co_histogram_free (CoHistogram * h);
  void co_histogram_add (CoHistogram * h, uint64_t value);
  void co_histogram_clear (CoHistogram * h);
/* Adds every value of @src to @dst. */
  void co_histogram_merge (CoHistogram * dst, const CoHistogram * src);
  uint64_t co_histogram_count (const CoHistogram * h);
/* min and max are 0 and mean 0.0 on an empty histogram. */
  uint64_t co_histogram_min (const CoHistogram * h);
  uint64_t co_histogram_max (const CoHistogram * h);
  double co_histogram_mean (const CoHistogram * h);
/* Nearest-rank percentile as described above; 0 on an empty histogram. */
  uint64_t co_histogram_percentile (const CoHistogram * h, double p);

#ifdef __cplusplus
}
#endif

#endif                          /* __CO_INTERVALS_H__ */
