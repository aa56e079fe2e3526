/* cudaoverlap tests: a fake driver for the registry of page-locked host
 * ranges (co-hostreg.h), shared by test-hostreg and test-hostmem.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fake behaves like cudaHostRegister where it matters: it refuses to
 * register a page twice (cudaErrorHostMemoryAlreadyRegistered) and to
 * unregister what it did not register, and it counts its calls; the
 * ranges it is told the application page-locked (Fake.app) answer the
 * is-app-pinned question.  Addresses are never dereferenced.
 */
#ifndef CO_TEST_FAKEREG_H
#define CO_TEST_FAKEREG_H

#include <string.h>
#include <glib.h>

#include "co-hostreg.h"

#define PAGE 4096

typedef struct
{
  GMutex lock;
  GArray *regs;                 /* guintptr pairs: start, end */
  GArray *app;                  /* application-pinned: start, end */
  guint n_register, n_unregister, n_app_asked;
  guint bad_register, bad_unregister;   /* must stay 0 */
  gint fail_next;               /* fail the next n registrations */
} Fake;

static gboolean
fake_overlaps (GArray * a, guintptr s, guintptr e, gboolean inside)
{
  guint i;

  for (i = 0; i + 1 < a->len; i += 2) {
    guintptr rs = g_array_index (a, guintptr, i);
    guintptr re = g_array_index (a, guintptr, i + 1);

    if (inside ? (rs <= s && e <= re) : (rs < e && s < re))
      return TRUE;
  }
  return FALSE;
}

static gboolean
fake_register (gpointer data, gsize size, gint device_id, gpointer user_data,
    GError ** error)
{
  Fake *f = user_data;
  guintptr s = (guintptr) data, e = s + size;
  gboolean ok = TRUE;

  g_mutex_lock (&f->lock);
  f->n_register++;
  if (s % PAGE || size % PAGE) {
    f->bad_register++;
    ok = FALSE;
  } else if (fake_overlaps (f->regs, s, e, FALSE) ||
      fake_overlaps (f->app, s, e, FALSE)) {
    /* the registry never asks this for its own pages */
    if (fake_overlaps (f->regs, s, e, FALSE))
      f->bad_register++;
    ok = FALSE;
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        "cudaHostRegister failed: part or all of the "
        "requested memory range is already mapped "
        "(cudaErrorHostMemoryAlreadyRegistered)");
  } else if (f->fail_next > 0) {
    f->fail_next--;
    ok = FALSE;
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        "cudaHostRegister failed: injected " "(cudaErrorMemoryAllocation)");
  } else {
    g_array_append_val (f->regs, s);
    g_array_append_val (f->regs, e);
  }
  if (!ok && !*error)
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA,
        "cudaHostRegister failed: invalid value");
  g_mutex_unlock (&f->lock);
  return ok;
}

static void
fake_unregister (gpointer data, gpointer user_data)
{
  Fake *f = user_data;
  guintptr s = (guintptr) data;
  guint i;

  g_mutex_lock (&f->lock);
  f->n_unregister++;
  for (i = 0; i + 1 < f->regs->len; i += 2) {
    if (g_array_index (f->regs, guintptr, i) == s) {
      g_array_remove_range (f->regs, i, 2);
      g_mutex_unlock (&f->lock);
      return;
    }
  }
  f->bad_unregister++;
  g_mutex_unlock (&f->lock);
}

static gboolean
fake_is_app_pinned (gconstpointer data, gsize size, gint device_id,
    gpointer user_data)
{
  Fake *f = user_data;
  guintptr s = (guintptr) data;
  gboolean r;

  g_mutex_lock (&f->lock);
  f->n_app_asked++;
  /* both ends, like the CUDA implementation */
  r = fake_overlaps (f->app, s, s + 1, TRUE) &&
      fake_overlaps (f->app, s + size - 1, s + size, TRUE);
  g_mutex_unlock (&f->lock);
  return r;
}

static gsize
fake_page_size (gpointer user_data)
{
  return PAGE;
}

static const CoHostRegOps fake_ops = {
  fake_register, fake_unregister, fake_is_app_pinned, fake_page_size,
};

/* Whether the fake has the pages of [s, s + size) registered, entirely
 * (by one registration or several end to end). */
static G_GNUC_UNUSED gboolean
fake_is_registered (Fake * f, guintptr s, gsize size)
{
  guintptr at = s & ~(guintptr) (PAGE - 1), end = s + size;
  gboolean moved = TRUE;
  guint i;

  g_mutex_lock (&f->lock);
  while (at < end && moved) {
    moved = FALSE;
    for (i = 0; i + 1 < f->regs->len; i += 2) {
      guintptr rs = g_array_index (f->regs, guintptr, i);
      guintptr re = g_array_index (f->regs, guintptr, i + 1);

      if (rs <= at && at < re) {
        at = re;
        moved = TRUE;
      }
    }
  }
  g_mutex_unlock (&f->lock);
  return at >= end;
}

static void
fake_init (Fake * f)
{
  memset (f, 0, sizeof (*f));
  g_mutex_init (&f->lock);
  f->regs = g_array_new (FALSE, FALSE, sizeof (guintptr));
  f->app = g_array_new (FALSE, FALSE, sizeof (guintptr));
}

/* Checks that every registration was undone and none was wrong. */
static void
fake_clear (Fake * f)
{
  g_assert_cmpuint (f->regs->len, ==, 0);
  g_assert_cmpuint (f->bad_register, ==, 0);
  g_assert_cmpuint (f->bad_unregister, ==, 0);
  g_assert_cmpuint (f->n_register, >=, f->n_unregister);
  g_array_unref (f->regs);
  g_array_unref (f->app);
  g_mutex_clear (&f->lock);
}

#endif /* CO_TEST_FAKEREG_H */
