/* cudaoverlap: the keep of page-locked blocks, on a fake driver.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fake driver hands out g_malloc'ed blocks, counts its calls, can
 * fail, and checks that no block is freed twice or handed out while in
 * use.
 */
#include <string.h>
#include <glib.h>

#include "co-hostkeep.h"

typedef struct
{
  GMutex lock;
  GHashTable *live;             /* block -> its size */
  GCond cond;
  guint n_alloc, n_free, bad;
  gboolean fail;
  /* blocks made ahead (fake_alloc_ahead): how many, how slowly, the last */
  guint n_ahead, ahead_started;
  gulong ahead_delay_us;
  GHashTable *made_ahead;       /* every block fake_alloc_ahead made */
} Fake;

static gpointer
fake_alloc (gsize size, gint device_id, gpointer user_data, GError ** error)
{
  Fake *f = user_data;
  gpointer p;

  g_mutex_lock (&f->lock);
  f->n_alloc++;
  if (f->fail) {
    g_mutex_unlock (&f->lock);
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "fake: no memory");
    return NULL;
  }
  p = g_malloc (size);
  g_hash_table_insert (f->live, p, GSIZE_TO_POINTER (size));
  g_mutex_unlock (&f->lock);
  return p;
}

static void
fake_free (gpointer data, gpointer user_data)
{
  Fake *f = user_data;

  g_mutex_lock (&f->lock);
  f->n_free++;
  if (!g_hash_table_remove (f->live, data))
    f->bad++;
  g_mutex_unlock (&f->lock);
  g_free (data);
}

static gpointer
fake_alloc_ahead (gsize size, gint device_id, gpointer user_data,
    GError ** error)
{
  Fake *f = user_data;
  gpointer p;

  g_mutex_lock (&f->lock);
  f->ahead_started++;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
  if (f->ahead_delay_us)
    g_usleep (f->ahead_delay_us);
  g_mutex_lock (&f->lock);
  f->n_ahead++;
  p = g_malloc (size);
  g_hash_table_insert (f->live, p, GSIZE_TO_POINTER (size));
  g_hash_table_add (f->made_ahead, p);
  g_mutex_unlock (&f->lock);
  return p;
}

static const CoHostKeepOps fake_ops = { fake_alloc, fake_free, NULL };

static const CoHostKeepOps fake_ahead_ops = { fake_alloc, fake_free,
  fake_alloc_ahead
};

/* Whether @p was made ahead. */
static gboolean
made_ahead (Fake * f, gpointer p)
{
  gboolean yes;

  g_mutex_lock (&f->lock);
  yes = g_hash_table_contains (f->made_ahead, p);
  g_mutex_unlock (&f->lock);
  return yes;
}

/* Waits until the keep's thread has started to make @n blocks. */
static void
wait_ahead_started (Fake * f, guint n)
{
  g_mutex_lock (&f->lock);
  while (f->ahead_started < n)
    g_cond_wait (&f->cond, &f->lock);
  g_mutex_unlock (&f->lock);
}

/* Waits (5 s at most) until the keep holds @bytes. */
static void
wait_kept (CoHostKeep * k, gsize bytes)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (co_host_keep_kept_bytes (k) != bytes && g_get_monotonic_time () < end)
    g_usleep (1000);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, bytes);
}

static guint
fake_frees (Fake * f)
{
  guint n;

  g_mutex_lock (&f->lock);
  n = f->n_free;
  g_mutex_unlock (&f->lock);
  return n;
}

static void
fake_init (Fake * f)
{
  memset (f, 0, sizeof (*f));
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  f->live = g_hash_table_new (NULL, NULL);
  f->made_ahead = g_hash_table_new (NULL, NULL);
}

/* Everything the driver gave was given back to it, once. */
static void
fake_check_clear (Fake * f)
{
  g_assert_cmpuint (f->bad, ==, 0);
  g_assert_cmpuint (g_hash_table_size (f->live), ==, 0);
  g_hash_table_unref (f->live);
  g_hash_table_unref (f->made_ahead);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
}

#define MIB ((gsize) 1 << 20)

static void
test_round (void)
{
  g_assert_cmpuint (co_host_keep_round (1), ==, 4096);
  g_assert_cmpuint (co_host_keep_round (4097), ==, 8192);
  g_assert_cmpuint (co_host_keep_round (MIB), ==, MIB);
  g_assert_cmpuint (co_host_keep_round (MIB + 1), ==, MIB + 65536);
  /* the process's keep: between 256 MiB and 4 GiB */
  g_assert_cmpuint (co_host_keep_default_max (), >=, 256 * MIB);
  g_assert_cmpuint (co_host_keep_default_max (), <=, 4096 * MIB);
  /* a 4K RGBA frame with two different alignments: one block size */
  g_assert_cmpuint (co_host_keep_round (33177600 + 63), ==,
      co_host_keep_round (33177600 + 127));
}

/* Given back, taken again: the same block, no driver call. */
static void
test_reuse (void)
{
  Fake f;
  CoHostKeep *k;
  GError *err = NULL;
  gpointer a, b, c;

  fake_init (&f);
  k = co_host_keep_new (&fake_ops, &f, 8 * MIB, 60 * G_USEC_PER_SEC);
  a = co_host_keep_take (k, 3 * MIB, 0, &err);
  g_assert_nonnull (a);
  memset (a, 0x5a, 3 * MIB);
  co_host_keep_give (k, a, 3 * MIB);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 3 * MIB);
  b = co_host_keep_take (k, 3 * MIB - 10, 0, &err);     /* same rounded size */
  g_assert_true (b == a);
  g_assert_cmpuint (f.n_alloc, ==, 1);
  c = co_host_keep_take (k, 2 * MIB, 0, &err);  /* another size: made */
  g_assert_true (c != a);
  g_assert_cmpuint (f.n_alloc, ==, 2);
  co_host_keep_give (k, b, 3 * MIB - 10);
  co_host_keep_give (k, c, 2 * MIB);
  /* over the maximum: freed at once */
  a = co_host_keep_take (k, 4 * MIB, 0, &err);
  co_host_keep_give (k, a, 4 * MIB);
  g_assert_cmpuint (f.n_free, ==, 1);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 5 * MIB);
  co_host_keep_free (k);
  g_assert_cmpuint (f.n_free, ==, 3);
  fake_check_clear (&f);
}

/* A failure says the driver's reason; nothing is kept of it. */
static void
test_failure (void)
{
  Fake f;
  CoHostKeep *k;
  GError *err = NULL;

  fake_init (&f);
  f.fail = TRUE;
  k = co_host_keep_new (&fake_ops, &f, 10 * MIB, 60 * G_USEC_PER_SEC);
  g_assert_null (co_host_keep_take (k, MIB, 0, &err));
  g_assert_nonnull (err);
  g_assert_nonnull (strstr (err->message, "fake: no memory"));
  g_clear_error (&err);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 0);
  co_host_keep_free (k);
  fake_check_clear (&f);
}

/* Idle blocks are freed after the idle time, by the thread. */
static void
test_expiry (void)
{
  Fake f;
  CoHostKeep *k;
  GError *err = NULL;
  gpointer a, b;
  gint64 end;

  fake_init (&f);
  k = co_host_keep_new (&fake_ops, &f, 10 * MIB, 50000);
  a = co_host_keep_take (k, MIB, 0, &err);
  b = co_host_keep_take (k, MIB, 0, &err);
  co_host_keep_give (k, a, MIB);
  co_host_keep_give (k, b, MIB);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 2 * MIB);
  /* the thread takes a block off the list under the keep's lock and frees
   * it after: the count of frees follows the kept bytes a moment later */
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while ((co_host_keep_kept_bytes (k) > 0 || fake_frees (&f) < 2)
      && g_get_monotonic_time () < end)
    g_usleep (5000);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 0);
  g_assert_cmpuint (fake_frees (&f), ==, 2);
  co_host_keep_free (k);
  fake_check_clear (&f);
}

/* Several threads taking and giving blocks of a few sizes while the
 * keep's thread expires some: a block is never in two hands, never freed
 * twice, and all are freed at the end. */
typedef struct
{
  CoHostKeep *k;
  guint seed;
  guint bad;
} Worker;

static gpointer
worker (gpointer data)
{
  Worker *w = data;
  GRand *r = g_rand_new_with_seed (w->seed);
  guint i;

  for (i = 0; i < 400; i++) {
    gsize size = (1 + g_rand_int_range (r, 0, 3)) * MIB;
    GError *err = NULL;
    guint32 *p = co_host_keep_take (w->k, size, 0, &err);
    guint32 tag = g_rand_int (r);
    gsize j;

    if (!p) {
      w->bad++;
      g_clear_error (&err);
      continue;
    }
    for (j = 0; j < size / 4; j += 4096)
      p[j] = tag;
    g_thread_yield ();
    for (j = 0; j < size / 4; j += 4096)
      if (p[j] != tag)
        w->bad++;               /* someone else wrote into our block */
    co_host_keep_give (w->k, p, size);
  }
  g_rand_free (r);
  return NULL;
}

static void
threads (gboolean ahead)
{
  Fake f;
  Worker w[4];
  GThread *t[4];
  guint i;

  fake_init (&f);
  w[0].k = co_host_keep_new (ahead ? &fake_ahead_ops : &fake_ops, &f,
      12 * MIB, 2000);
  co_host_keep_set_ahead (w[0].k, ahead);
  for (i = 0; i < 4; i++) {
    w[i].k = w[0].k;
    w[i].seed = 0x6b33 + i;
    w[i].bad = 0;
    t[i] = g_thread_new ("keep-worker", worker, &w[i]);
  }
  for (i = 0; i < 4; i++) {
    g_thread_join (t[i]);
    g_assert_cmpuint (w[i].bad, ==, 0);
  }
  co_host_keep_free (w[0].k);
  g_assert_cmpuint (f.n_alloc + f.n_ahead, ==, f.n_free);
  fake_check_clear (&f);
}

static void
test_threads (void)
{
  threads (FALSE);
}

/* The same with blocks made ahead: also never in two hands. */
static void
test_threads_ahead (void)
{
  threads (TRUE);
}

/* A fake driver and a keep of it that makes blocks ahead, each after
 * @delay_us. */
static CoHostKeep *
ahead_keep (Fake * f, gsize max_bytes, gulong delay_us)
{
  CoHostKeep *k;

  fake_init (f);
  f->ahead_delay_us = delay_us;
  k = co_host_keep_new (&fake_ahead_ops, f, max_bytes, 60 * G_USEC_PER_SEC);
  co_host_keep_set_ahead (k, TRUE);
  return k;
}

/* Frees @k: every block, made on demand or ahead, was freed once. */
static void
ahead_done (Fake * f, CoHostKeep * k)
{
  co_host_keep_free (k);
  g_assert_cmpuint (f->n_alloc + f->n_ahead, ==, f->n_free);
  fake_check_clear (f);
}

/* Made ahead: each take that leaves no block of its size kept has the
 * keep's thread make the next one, which the next take of that size
 * gets without a call of its own; nothing is made past the maximum. */
static void
test_ahead (void)
{
  Fake f;
  CoHostKeep *k;
  GError *err = NULL;
  gpointer a, b, c;

  k = ahead_keep (&f, 7 * MIB, 0);
  a = co_host_keep_take (k, 3 * MIB, 0, &err);
  g_assert_nonnull (a);
  g_assert_cmpuint (f.n_alloc, ==, 1);
  wait_kept (k, 3 * MIB);       /* the next one, made */
  b = co_host_keep_take (k, 3 * MIB, 0, &err);
  g_assert_true (b != a && made_ahead (&f, b));
  g_assert_cmpuint (f.n_alloc, ==, 1);
  /* and the one after: 3 MiB kept beside 6 in use, within the 7 */
  wait_kept (k, 3 * MIB);
  g_assert_cmpuint (f.n_ahead, ==, 2);
  /* with a block of its size kept, a take wants no other */
  co_host_keep_give (k, a, 3 * MIB);
  c = co_host_keep_take (k, 3 * MIB, 0, &err);
  g_assert_true (c == a);
  g_usleep (20000);
  g_assert_cmpuint (f.n_ahead, ==, 2);
  g_assert_cmpuint (co_host_keep_kept_bytes (k), ==, 3 * MIB);
  /* another size past the maximum (6 MiB kept + 2 > 7): none made */
  co_host_keep_give (k, b, 3 * MIB);
  co_host_keep_give (k, c, 3 * MIB);    /* over the 7: freed */
  a = co_host_keep_take (k, 2 * MIB, 0, &err);
  g_usleep (20000);
  g_assert_cmpuint (f.n_ahead, ==, 2);
  co_host_keep_give (k, a, 2 * MIB);
  ahead_done (&f, k);
}

/* A take while the block of its size is being made waits for that block
 * rather than making another; the keep freed while its thread makes a
 * block frees that block too, once made. */
static void
test_ahead_wait (void)
{
  Fake f;
  CoHostKeep *k;
  GError *err = NULL;
  gpointer a, b;

  k = ahead_keep (&f, 64 * MIB, 100000);
  a = co_host_keep_take (k, 4 * MIB, 0, &err);
  wait_ahead_started (&f, 1);
  b = co_host_keep_take (k, 4 * MIB, 0, &err);
  g_assert_true (made_ahead (&f, b));
  g_assert_cmpuint (f.n_alloc, ==, 1);
  co_host_keep_give (k, a, 4 * MIB);
  co_host_keep_give (k, b, 4 * MIB);
  wait_ahead_started (&f, 2);   /* the one after b */
  ahead_done (&f, k);
  g_assert_cmpuint (f.n_ahead, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hostkeep/round", test_round);
  g_test_add_func ("/hostkeep/reuse", test_reuse);
  g_test_add_func ("/hostkeep/failure", test_failure);
  g_test_add_func ("/hostkeep/expiry", test_expiry);
  g_test_add_func ("/hostkeep/threads", test_threads);
  g_test_add_func ("/hostkeep/ahead", test_ahead);
  g_test_add_func ("/hostkeep/ahead-wait", test_ahead_wait);
  g_test_add_func ("/hostkeep/threads-ahead", test_threads_ahead);
  return g_test_run ();
}
