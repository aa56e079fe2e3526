/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The gamma tables the kernels read (co_gamma_lut_fill), 8-, 10- and 16-bit,
 * against the independent reference's (co-reference.c): every entry, for
 * the gammas a ramp passes through (random ones over the whole range) and
 * the edges (0.01, 1, 10, values whose entries land on half integers).
 * The 16-bit table is made with a faster evaluation than the formula's
 * own; this is what keeps it equal to the formula.
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <glib.h>

#include "co-kernels.h"
#include "co-reference.h"

static gboolean
check_gamma (gdouble gamma, guint max)
{
  guint16 *got = g_new (guint16, max + 1), *want = g_new (guint16, max + 1);
  guint i;
  gboolean ok = TRUE;

  co_gamma_lut_fill (got, max, gamma);
  co_ref_gamma_table (gamma, max, want);
  for (i = 0; i <= max && ok; i++) {
    if (got[i] != want[i]) {
      g_printerr ("gamma %.17g, max %u: entry %u is %u, the reference %u\n",
          gamma, max, i, got[i], want[i]);
      ok = FALSE;
    }
  }
  g_free (got);
  g_free (want);
  return ok;
}

int
main (int argc, char **argv)
{
  static const gdouble edges[] = { 0.01, 0.1, 0.45, 0.5, 1.0, 2.0, 2.2, 2.5,
    3.0, 10.0, 1.0 / 3.0, 0.999999, 1.000001
  };
  const gchar *env = g_getenv ("CO_TEST_SEED");
  guint32 seed = env ? (guint32) strtoul (env, NULL, 0) : g_random_int ();
  GRand *rand = g_rand_new_with_seed (seed);
  guint i, n = 400, bad = 0;

  g_print ("test-gamma-table: seed 0x%08x (CO_TEST_SEED repeats it)\n", seed);
  for (i = 0; i < G_N_ELEMENTS (edges); i++)
    bad += !check_gamma (edges[i], 255) + !check_gamma (edges[i], 65535)
        + !check_gamma (edges[i], co_gamma_lut_max (2, 10));
  for (i = 0; i < n; i++) {
    /* log-uniform over [0.01, 10], the property's range */
    gdouble g = exp (g_rand_double_range (rand, log (0.01), log (10.0)));

    bad += !check_gamma (g, 255) + !check_gamma (g, 65535)
        + !check_gamma (g, co_gamma_lut_max (2, 10));
  }
  g_rand_free (rand);
  /* the tables' sizes: 10 bits 1024 entries; every bit of 1 or 2 bytes */
  if (co_gamma_lut_max (2, 10) != 1023 || co_gamma_lut_max (2, 0) != 65535
      || co_gamma_lut_max (1, 0) != 255 || co_gamma_lut_max (2, 16) != 65535)
    bad++;
  g_print ("%u gammas, %u tables differ from the reference\n",
      (guint) G_N_ELEMENTS (edges) + n, bad);
  return bad ? 1 : 0;
}
