/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests for co-intervals: union and intersection measures, the
 * interval set, nearest-rank percentiles and the log-bucketed histogram.
 */

#include <glib.h>
#include <string.h>

#include "co-intervals.h"

#define IV(s, e) ((CoInterval) { (s), (e) })

static guint64
rand_u64 (GRand * r)
{
  return ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
}

/* --- union / intersection: known cases ---------------------------------- */

static void
test_empty (void)
{
  CoInterval a[1] = { IV (3, 7) };

  g_assert_cmpuint (co_intervals_union_measure (NULL, 0), ==, 0);
  g_assert_cmpuint (co_intervals_union_measure (a, 0), ==, 0);
  g_assert_cmpuint (co_intervals_union_measure_sorted (NULL, 0), ==, 0);
  g_assert_cmpuint (co_intervals_normalize (NULL, 0), ==, 0);
  g_assert_cmpuint (co_intervals_intersection_measure (NULL, 0, a, 1), ==, 0);
  g_assert_cmpuint (co_intervals_intersection_measure (a, 1, NULL, 0), ==, 0);
  g_assert_cmpuint (co_intervals_intersection_measure (NULL, 0, NULL, 0), ==,
      0);
}

static void
test_touching (void)
{
  CoInterval a[] = { IV (5, 9), IV (0, 5) };
  CoInterval b[] = { IV (0, 5) }, c[] = { IV (5, 9) };
  CoInterval d[] = { IV (0, 5), IV (5, 5), IV (5, 9) };

  g_assert_cmpuint (co_intervals_union_measure (a, 2), ==, 9);
  g_assert_cmpuint (co_intervals_normalize (a, 2), ==, 1);
  g_assert_cmpuint (a[0].start, ==, 0);
  g_assert_cmpuint (a[0].end, ==, 9);
  /* touching intervals do not intersect */
  g_assert_cmpuint (co_intervals_intersection_measure (b, 1, c, 1), ==, 0);
  g_assert_cmpuint (co_intervals_normalize (d, 3), ==, 1);
  g_assert_cmpuint (d[0].end, ==, 9);
}

static void
test_nested_identical_unsorted (void)
{
  CoInterval nested[] = { IV (2, 3), IV (0, 10), IV (4, 8) };
  CoInterval same[] = { IV (3, 7), IV (3, 7), IV (3, 7) };
  CoInterval uns[] = { IV (50, 60), IV (0, 10), IV (30, 35), IV (5, 12),
    IV (33, 40), IV (100, 101)
  };
  CoInterval a[] = { IV (0, 10) }, b[] = { IV (5, 15) };
  CoInterval a2[] = { IV (10, 15), IV (0, 5) }, b2[] = { IV (3, 12) };

  g_assert_cmpuint (co_intervals_union_measure (nested, 3), ==, 10);
  g_assert_cmpuint (co_intervals_union_measure (same, 3), ==, 4);
  /* [0,12) + [30,40) + [50,60) + [100,101) */
  g_assert_cmpuint (co_intervals_union_measure (uns, 6), ==, 12 + 10 + 10 + 1);
  /* sorted in place, same multiset */
  g_assert_cmpuint (uns[0].start, ==, 0);
  g_assert_cmpuint (uns[1].start, ==, 5);
  g_assert_cmpuint (uns[5].start, ==, 100);
  g_assert_cmpuint (co_intervals_normalize (uns, 6), ==, 4);

  g_assert_cmpuint (co_intervals_intersection_measure (a, 1, b, 1), ==, 5);
  g_assert_cmpuint (co_intervals_intersection_measure (a2, 2, b2, 1), ==, 4);
  /* a set with itself: its union */
  g_assert_cmpuint (co_intervals_intersection_measure (nested, 3, nested, 3),
      ==, 10);
}

static void
test_zero_length (void)
{
  CoInterval z[] = { IV (5, 5), IV (7, 7) };
  CoInterval rev[] = { IV (9, 3) };     /* end < start: empty */
  CoInterval mix[] = { IV (7, 7), IV (0, 4), IV (4, 4), IV (20, 20) };
  CoInterval a[] = { IV (0, 10) };

  g_assert_cmpuint (co_intervals_union_measure (z, 2), ==, 0);
  g_assert_cmpuint (co_intervals_normalize (z, 2), ==, 0);
  g_assert_cmpuint (co_intervals_union_measure (rev, 1), ==, 0);
  g_assert_cmpuint (co_intervals_union_measure (mix, 4), ==, 4);
  g_assert_cmpuint (co_intervals_normalize (mix, 4), ==, 1);
  z[0] = IV (5, 5);
  g_assert_cmpuint (co_intervals_intersection_measure (a, 1, z, 1), ==, 0);
}

static void
test_large_values (void)
{
  CoInterval a[] = { IV (G_MAXUINT64 - 10, G_MAXUINT64), IV (0, 10),
    IV (G_MAXUINT64 - 20, G_MAXUINT64 - 5)
  };
  CoInterval b[] = { IV (G_MAXUINT64 - 7, G_MAXUINT64) };

  g_assert_cmpuint (co_intervals_union_measure (a, 3), ==, 30);
  g_assert_cmpuint (co_intervals_intersection_measure (a, 3, b, 1), ==, 7);
}

/* --- random against a bitmap ------------------------------------------- */

static void
fill_random (GRand * r, CoInterval * iv, gsize n, guint range, guint max_len)
{
  gsize i;

  for (i = 0; i < n; i++) {
    guint s = g_rand_int_range (r, 0, range - max_len);
    guint len = g_rand_int_range (r, 0, max_len + 1);

    if (g_rand_int_range (r, 0, 20) == 0)
      len = 0;
    iv[i] = IV (s, s + len);
  }
}

static void
mark (guint8 * bits, const CoInterval * iv, gsize n, guint8 flag)
{
  gsize i, t;

  for (i = 0; i < n; i++)
    for (t = iv[i].start; t < iv[i].end; t++)
      bits[t] |= flag;
}

static void
check_random_vs_bitmap (guint32 seed, gsize n, guint range, guint max_len)
{
  GRand *r = g_rand_new_with_seed (seed);
  CoInterval *a = g_new (CoInterval, n), *b = g_new (CoInterval, n);
  CoInterval *a2 = g_new (CoInterval, n);
  guint8 *bits = g_malloc0 (range);
  guint64 ua = 0, ub = 0, both = 0, sum = 0;
  gsize i, m;

  fill_random (r, a, n, range, max_len);
  fill_random (r, b, n / 2 + 1, range, max_len);
  mark (bits, a, n, 1);
  mark (bits, b, n / 2 + 1, 2);
  for (i = 0; i < range; i++) {
    ua += (bits[i] & 1) != 0;
    ub += (bits[i] & 2) != 0;
    both += bits[i] == 3;
  }

  memcpy (a2, a, n * sizeof (CoInterval));
  g_assert_cmpuint (co_intervals_union_measure (a2, n), ==, ua);
  g_assert_cmpuint (co_intervals_union_measure_sorted (a2, n), ==, ua);
  g_assert_cmpuint (co_intervals_union_measure (b, n / 2 + 1), ==, ub);
  memcpy (a2, a, n * sizeof (CoInterval));
  g_assert_cmpuint (co_intervals_intersection_measure (a2, n, b, n / 2 + 1),
      ==, both);

  /* normalize: sorted, disjoint, non-touching, non-empty, same measure */
  memcpy (a2, a, n * sizeof (CoInterval));
  m = co_intervals_normalize (a2, n);
  for (i = 0; i < m; i++) {
    g_assert_cmpuint (a2[i].start, <, a2[i].end);
    if (i > 0)
      g_assert_cmpuint (a2[i - 1].end, <, a2[i].start);
    sum += a2[i].end - a2[i].start;
    g_assert_true (bits[a2[i].start] & 1);
    g_assert_true (a2[i].start == 0 || !(bits[a2[i].start - 1] & 1));
  }
  g_assert_cmpuint (sum, ==, ua);

  g_free (bits);
  g_free (a);
  g_free (a2);
  g_free (b);
  g_rand_free (r);
}

static void
test_random_small (void)
{
  guint32 seed;

  for (seed = 1; seed <= 200; seed++)
    check_random_vs_bitmap (seed, 1 + seed % 50, 200, 1 + seed % 30);
}

static void
test_random_medium (void)
{
  check_random_vs_bitmap (7, 10000, 100000, 50);
  check_random_vs_bitmap (8, 10000, 20000, 2000);
}

static void
test_random_1e6 (void)
{
  /* 1e6 intervals on a range of 2^22 ns: dense and sparse parts */
  check_random_vs_bitmap (42, 1000000, 1u << 22, 16);
  check_random_vs_bitmap (43, 1000000, 1u << 24, 8);
}

static gdouble
time_union (gsize n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  CoInterval *iv = g_new (CoInterval, n);
  gint64 t0, best = G_MAXINT64;
  gsize i;
  int rep;

  for (rep = 0; rep < 3; rep++) {
    for (i = 0; i < n; i++) {
      guint64 s = rand_u64 (r) >> 8;

      iv[i] = IV (s, s + (g_rand_int (r) % 100000));
    }
    t0 = g_get_monotonic_time ();
    (void) co_intervals_union_measure (iv, n);
    best = MIN (best, g_get_monotonic_time () - t0);
  }
  g_free (iv);
  g_rand_free (r);
  return (gdouble) MAX (best, 1);
}

static void
test_performance (void)
{
  gdouble t5 = time_union (100000, 5), t6 = time_union (1000000, 6);

  g_test_message ("union of 1e5 random intervals: %.1f ms, 1e6: %.1f ms",
      t5 / 1000.0, t6 / 1000.0);
  /* O(n log n): 10x the data costs ~12x; quadratic would cost 100x */
  g_assert_cmpfloat (t6 / t5, <, 40.0);
  g_assert_cmpfloat (t6, <, 5e6);
}

/* --- the set -------------------------------------------------------------- */

static void
test_set (void)
{
  CoIntervalSet *set = co_interval_set_new ();
  guint i;

  g_assert_nonnull (set);
  g_assert_cmpuint (set->len, ==, 0);
  g_assert_cmpuint (co_interval_set_union_measure (set), ==, 0);
  g_assert_true (co_interval_set_add (set, 5, 9));
  g_assert_true (co_interval_set_add (set, 0, 5));
  g_assert_true (co_interval_set_add (set, 20, 10));    /* stored empty */
  g_assert_cmpuint (set->len, ==, 3);
  g_assert_cmpuint (co_interval_set_union_measure (set), ==, 9);
  co_interval_set_clear (set);
  g_assert_cmpuint (set->len, ==, 0);
  g_assert_cmpuint (co_interval_set_union_measure (set), ==, 0);
  g_assert_true (co_interval_set_reserve (set, 1000));
  g_assert_cmpuint (set->cap, >=, 1000);
  for (i = 0; i < 100000; i++)
    g_assert_true (co_interval_set_add (set, 2 * i, 2 * i + 1));
  g_assert_cmpuint (set->len, ==, 100000);
  g_assert_cmpuint (co_interval_set_union_measure (set), ==, 100000);
  co_interval_set_free (set);
  co_interval_set_free (NULL);
}

/* --- percentiles ---------------------------------------------------------- */

static void
test_percentiles (void)
{
  guint64 v[100], one = 42, ten[10];
  guint64 mn, mx;
  gdouble mean;
  guint i;

  for (i = 0; i < 100; i++)
    v[i] = 100 - i;             /* unsorted: sorted in place */
  g_assert_cmpuint (co_values_percentile (v, 100, 50), ==, 50);
  g_assert_cmpuint (v[0], ==, 1);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 95), ==, 95);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 99), ==, 99);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 100), ==, 100);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 1), ==, 1);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 0.5), ==, 1);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 0), ==, 1);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 150), ==, 100);
  g_assert_cmpuint (co_values_percentile_sorted (v, 100, 50.5), ==, 51);
  g_assert_cmpuint (co_values_percentile (NULL, 0, 50), ==, 0);
  g_assert_cmpuint (co_values_percentile (&one, 1, 1), ==, 42);
  g_assert_cmpuint (co_values_percentile (&one, 1, 99), ==, 42);

  /* ceil (p / 100 * n) */
  for (i = 0; i < 10; i++)
    ten[i] = (i + 1) * 10;
  g_assert_cmpuint (co_values_percentile (ten, 10, 25), ==, 30);
  g_assert_cmpuint (co_values_percentile (ten, 10, 20), ==, 20);
  g_assert_cmpuint (co_values_percentile (ten, 10, 99), ==, 100);
  g_assert_cmpuint (co_nearest_rank (1000, 99.9), ==, 999);
  g_assert_cmpuint (co_nearest_rank (1000, 99.95), ==, 1000);
  g_assert_cmpuint (co_nearest_rank (3, 100.0 / 3.0), ==, 1);
  g_assert_cmpuint (co_nearest_rank (0, 50), ==, 0);
  for (i = 1; i < 5000; i += 7) {
    g_assert_cmpuint (co_nearest_rank (i, 50), ==, (50 * i + 99) / 100);
    g_assert_cmpuint (co_nearest_rank (i, 95), ==, (95 * i + 99) / 100);
    g_assert_cmpuint (co_nearest_rank (i, 99), ==, (99 * i + 99) / 100);
  }

  co_values_min_max_mean (ten, 10, &mn, &mx, &mean);
  g_assert_cmpuint (mn, ==, 10);
  g_assert_cmpuint (mx, ==, 100);
  g_assert_cmpfloat (mean, ==, 55.0);
  co_values_min_max_mean (NULL, 0, &mn, &mx, &mean);
  g_assert_cmpuint (mn, ==, 0);
  g_assert_cmpuint (mx, ==, 0);
  g_assert_cmpfloat (mean, ==, 0.0);
  /* the sum overflows 64 bits, the mean does not */
  v[0] = v[1] = G_MAXUINT64;
  co_values_min_max_mean (v, 2, NULL, NULL, &mean);
  g_assert_cmpfloat (mean, ==, (gdouble) G_MAXUINT64);
}

/* --- histogram ------------------------------------------------------------ */

static void
check_hist_rel_error (CoHistogram * h, guint64 * sorted, gsize n)
{
  static const gdouble ps[] = { 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ps); i++) {
    guint64 exact = co_values_percentile_sorted (sorted, n, ps[i]);
    guint64 got = co_histogram_percentile (h, ps[i]);
    gdouble err = exact ? ((gdouble) got - (gdouble) exact) / exact : got;

    if (err < 0)
      err = -err;
    g_assert_cmpfloat (err, <=, CO_HISTOGRAM_MAX_RELATIVE_ERROR);
    g_assert_cmpfloat (err, <=, 0.01);
  }
}

static void
test_histogram (void)
{
  CoHistogram *h = co_histogram_new (), *h2 = co_histogram_new ();
  GRand *r = g_rand_new_with_seed (99);
  gsize n = 200000, i;
  guint64 *v = g_new (guint64, n), mn, mx;
  gdouble mean;

  /* empty */
  g_assert_cmpuint (co_histogram_count (h), ==, 0);
  g_assert_cmpuint (co_histogram_percentile (h, 50), ==, 0);
  g_assert_cmpuint (co_histogram_min (h), ==, 0);
  g_assert_cmpuint (co_histogram_max (h), ==, 0);
  g_assert_cmpfloat (co_histogram_mean (h), ==, 0.0);

  /* small values are exact */
  for (i = 1; i <= 100; i++)
    co_histogram_add (h, i);
  g_assert_cmpuint (co_histogram_percentile (h, 50), ==, 50);
  g_assert_cmpuint (co_histogram_percentile (h, 95), ==, 95);
  g_assert_cmpuint (co_histogram_percentile (h, 100), ==, 100);
  co_histogram_clear (h);
  g_assert_cmpuint (co_histogram_count (h), ==, 0);

  /* log-uniform values over 0 .. 2^64 */
  for (i = 0; i < n; i++) {
    v[i] = rand_u64 (r) >> g_rand_int_range (r, 0, 64);
    co_histogram_add (i % 2 ? h : h2, v[i]);
  }
  co_histogram_merge (h, h2);
  co_values_min_max_mean (v, n, &mn, &mx, &mean);
  co_values_sort (v, n);
  g_assert_cmpuint (co_histogram_count (h), ==, n);
  g_assert_cmpuint (co_histogram_min (h), ==, mn);
  g_assert_cmpuint (co_histogram_max (h), ==, mx);
  g_assert_cmpfloat (co_histogram_mean (h), ==, mean);
  check_hist_rel_error (h, v, n);

  /* latency-like values: 1 us .. 100 ms, narrow spread around 5 ms */
  co_histogram_clear (h);
  for (i = 0; i < n; i++) {
    v[i] = (i % 100 == 0) ? 1000 + g_rand_int_range (r, 0, 100000000) :
        5000000 + g_rand_int_range (r, -200000, 200000);
    co_histogram_add (h, v[i]);
  }
  co_values_sort (v, n);
  check_hist_rel_error (h, v, n);

  /* every single value is within the bound */
  for (i = 0; i < 100000; i++) {
    guint64 x = rand_u64 (r) >> g_rand_int_range (r, 0, 64);
    gdouble err;

    co_histogram_clear (h);
    co_histogram_add (h, 0);
    co_histogram_add (h, x);
    co_histogram_add (h, G_MAXUINT64);
    err = x ? ((gdouble) co_histogram_percentile (h, 50) - (gdouble) x) / x : 0;
    g_assert_cmpfloat (err < 0 ? -err : err, <=, 1.0 / 128.0);
  }

  g_free (v);
  g_rand_free (r);
  co_histogram_free (h);
  co_histogram_free (h2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/intervals/empty", test_empty);
  g_test_add_func ("/intervals/touching", test_touching);
  g_test_add_func ("/intervals/nested-identical-unsorted",
      test_nested_identical_unsorted);
  g_test_add_func ("/intervals/zero-length", test_zero_length);
  g_test_add_func ("/intervals/large-values", test_large_values);
  g_test_add_func ("/intervals/random-small", test_random_small);
  g_test_add_func ("/intervals/random-medium", test_random_medium);
  g_test_add_func ("/intervals/random-1e6", test_random_1e6);
  g_test_add_func ("/intervals/performance", test_performance);
  g_test_add_func ("/intervals/set", test_set);
  g_test_add_func ("/values/percentiles", test_percentiles);
  g_test_add_func ("/values/histogram", test_histogram);

  return g_test_run ();
}
