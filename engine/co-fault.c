/* cudaoverlap: fault injection for tests.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A device call fails rarely and at any moment, and the error paths behind
 * it are the code a user meets least and a test reaches hardest.  This
 * module lets a test make any named call point fail from its nth call on,
 * counts the points a run passes so that a test can fail each in turn,
 * holds the test-only delays that widen race windows, and a simulated
 * CUDA installation for the device check.  It exists only in a
 * -Dfault-injection build; co-fault.h has the interface.
 */
#include <string.h>

#include "co-fault.h"

#ifdef CO_FAULT_INJECTION

static GMutex co_fault_lock;
static gchar *co_fault_point;   /* armed point, "*" for any; NULL: off */
static gint64 co_fault_nth = -1;
static guint64 co_fault_seen;   /* calls of the armed point since arming */
static guint64 co_fault_failed;
static GHashTable *co_fault_counts;     /* name -> guint64 calls */
/* Nothing is counted until a test first calls co_fault_arm(): a test build
 * that no test arms (the GPU benchmarks' processes) pays an atomic read
 * per device call, not a lock and a hash lookup. */
static gint co_fault_active;

gboolean
co_fault_hit (const gchar * point)
{
  gboolean hit = FALSE;
  guint64 *n;

  if (!g_atomic_int_get (&co_fault_active))
    return FALSE;
  g_mutex_lock (&co_fault_lock);
  if (!co_fault_counts)
    co_fault_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        g_free);
  n = g_hash_table_lookup (co_fault_counts, point);
  if (!n) {
    n = g_new0 (guint64, 1);
    g_hash_table_insert (co_fault_counts, g_strdup (point), n);
  }
  (*n)++;
  if (co_fault_point && co_fault_nth >= 0 &&
      (strcmp (co_fault_point, "*") == 0 ||
          strcmp (co_fault_point, point) == 0)) {
    hit = co_fault_seen >= (guint64) co_fault_nth;
    co_fault_seen++;
    if (hit)
      co_fault_failed++;
  }
  g_mutex_unlock (&co_fault_lock);
  return hit;
}

gboolean
co_fault_hit_call (const gchar * call)
{
  gchar name[128];

  /* the name is cut out only while a test counts: one atomic read else */
  if (!g_atomic_int_get (&co_fault_active))
    return FALSE;
  g_strlcpy (name, call, MIN (strcspn (call, " (") + 1, sizeof (name)));
  return co_fault_hit (name);
}

void
co_fault_arm (const gchar * point, gint64 nth)
{
  g_mutex_lock (&co_fault_lock);
  g_free (co_fault_point);
  co_fault_point = point && nth >= 0 ? g_strdup (point) : NULL;
  co_fault_nth = co_fault_point ? nth : -1;
  co_fault_seen = 0;
  co_fault_failed = 0;
  if (co_fault_counts)
    g_hash_table_remove_all (co_fault_counts);
  g_atomic_int_set (&co_fault_active, 1);
  g_mutex_unlock (&co_fault_lock);
}

static void
co_fault_sum (gpointer key, gpointer value, gpointer data)
{
  *(guint64 *) data += *(guint64 *) value;
}

guint64
co_fault_count (const gchar * point)
{
  guint64 n = 0, *v;

  g_mutex_lock (&co_fault_lock);
  if (co_fault_counts) {
    if (strcmp (point, "*") == 0) {
      g_hash_table_foreach (co_fault_counts, co_fault_sum, &n);
    } else if ((v = g_hash_table_lookup (co_fault_counts, point))) {
      n = *v;
    }
  }
  g_mutex_unlock (&co_fault_lock);
  return n;
}

static gint
co_fault_cmp (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar * const *) a, *(const gchar * const *) b);
}

gchar **
co_fault_points (void)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer key;

  g_mutex_lock (&co_fault_lock);
  if (co_fault_counts) {
    g_hash_table_iter_init (&it, co_fault_counts);
    while (g_hash_table_iter_next (&it, &key, NULL))
      g_ptr_array_add (names, g_strdup (key));
  }
  g_mutex_unlock (&co_fault_lock);
  g_ptr_array_sort (names, co_fault_cmp);
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

guint64
co_fault_injected (void)
{
  guint64 n;

  g_mutex_lock (&co_fault_lock);
  n = co_fault_failed;
  g_mutex_unlock (&co_fault_lock);
  return n;
}

static gint co_fault_delay_us;

void
co_test_set_submit_delay_us (gulong us)
{
  g_atomic_int_set (&co_fault_delay_us, (gint) MIN (us, G_MAXINT));
}

gulong
co_fault_submit_delay_us (void)
{
  return (gulong) g_atomic_int_get (&co_fault_delay_us);
}

static gint co_fault_update_us;

void
co_test_set_update_delay_us (gulong us)
{
  g_atomic_int_set (&co_fault_update_us, (gint) MIN (us, G_MAXINT));
}

gulong
co_fault_update_delay_us (void)
{
  return (gulong) g_atomic_int_get (&co_fault_update_us);
}

static gint co_fault_flush_us;

void
co_test_set_flush_delay_us (gulong us)
{
  g_atomic_int_set (&co_fault_flush_us, (gint) MIN (us, G_MAXINT));
}

gulong
co_fault_flush_delay_us (void)
{
  return (gulong) g_atomic_int_get (&co_fault_flush_us);
}

static gint co_fault_jitter_us;

void
co_test_set_worker_jitter_us (gulong us)
{
  g_atomic_int_set (&co_fault_jitter_us, (gint) MIN (us, G_MAXINT));
}

gulong
co_fault_worker_jitter_us (void)
{
  gint max = g_atomic_int_get (&co_fault_jitter_us);

  return max > 0 ? (gulong) g_random_int_range (0, max + 1) : 0;
}

static gint co_fault_staging;

void
co_test_set_force_staging (gboolean force)
{
  g_atomic_int_set (&co_fault_staging, force ? 1 : 0);
}

gboolean
co_fault_force_staging (void)
{
  return g_atomic_int_get (&co_fault_staging) != 0;
}

static gint co_fault_sim[3] = { -1, -1, -1 };

void
co_test_set_cuda_sim (gint driver_version, gint device_count, gint cc)
{
  g_atomic_int_set (&co_fault_sim[0], driver_version);
  g_atomic_int_set (&co_fault_sim[1], device_count);
  g_atomic_int_set (&co_fault_sim[2], cc);
}

void
co_fault_cuda_sim (CoFaultCudaSim * sim)
{
  sim->driver_version = g_atomic_int_get (&co_fault_sim[0]);
  sim->device_count = g_atomic_int_get (&co_fault_sim[1]);
  sim->cc = g_atomic_int_get (&co_fault_sim[2]);
}

#endif /* CO_FAULT_INJECTION */
