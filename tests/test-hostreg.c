/* cudaoverlap: the registry of page-locked host ranges, on a fake driver
 * (co-test-fakereg.h), and the length of a mapped page-locked block.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Addresses are never dereferenced, so the ranges are made up.
 */
#include <string.h>
#include <unistd.h>
#include <glib.h>

#include "co-test-fakereg.h"

typedef struct
{
  Fake fake;
  CoHostReg *reg;
} Fixture;

static void
fixture_setup (Fixture * fx, gconstpointer unused)
{
  fake_init (&fx->fake);
  fx->reg = co_hostreg_new (&fake_ops, &fx->fake);
}

static void
fixture_teardown (Fixture * fx, gconstpointer unused)
{
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  co_hostreg_free (fx->reg);
  fake_clear (&fx->fake);
}

#define ADDR(x) ((gconstpointer) (guintptr) (x))

static CoHostRegResult
acq (Fixture * fx, guintptr p, gsize n, CoHostRegMode mode, CoHostRef ** ref)
{
  GError *err = NULL;
  CoHostRegResult r = co_hostreg_acquire (fx->reg, ADDR (p), n, 0, mode, ref,
      &err);

  /* a reason exactly when refused */
  g_assert_true ((r == CO_HOSTREG_REFUSED) == (err != NULL));
  g_clear_error (&err);
  return r;
}

/* Two GstMemory over the same bytes (two pipelines, one frame ring): one
 * registration, undone at the last release only. */
static void
test_two_users (Fixture * fx, gconstpointer unused)
{
  CoHostRef *a = NULL, *b = NULL;

  g_assert_cmpint (acq (fx, 0x100000, 3 * PAGE, CO_HOSTREG_REGISTER, &a), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, 0x100000, 3 * PAGE, CO_HOSTREG_REGISTER, &b), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 1);
  g_assert_true (co_hostref_covers (a, ADDR (0x100000), 3 * PAGE));
  g_assert_true (co_hostref_covers (b, ADDR (0x100010), 100));
  g_assert_false (co_hostref_covers (b, ADDR (0x100000), 3 * PAGE + 1));

  co_hostref_release (a);       /* A's memory is freed ... */
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  g_assert_true (fake_is_registered (&fx->fake, 0x100000, 3 * PAGE));
  co_hostref_release (b);       /* ... then B's */
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  g_assert_false (fake_is_registered (&fx->fake, 0x100000, 1));
}

/* A request inside another user's range references that range, whatever
 * the mode; the inner user outliving the outer keeps it registered. */
static void
test_inside (Fixture * fx, gconstpointer unused)
{
  CoHostRef *outer = NULL, *inner = NULL, *small = NULL;

  g_assert_cmpint (acq (fx, 0x200000, 16 * PAGE, CO_HOSTREG_REGISTER,
          &outer), ==, CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, 0x200000 + 2 * PAGE + 100, 5 * PAGE,
          CO_HOSTREG_REGISTER, &inner), ==, CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, 0x200000 + 15 * PAGE + 5, 50, CO_HOSTREG_HOLD,
          &small), ==, CO_HOSTREG_REGISTERED);
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 1);
  co_hostref_release (outer);
  co_hostref_release (inner);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  co_hostref_release (small);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
}

/* Partial overlap with registered ranges: registering takes the pages
 * nobody has (an entry per gap) and references the neighbours too; the
 * bytes are covered, and the boundaries inside them are where copies
 * split.  A look-up is registered only without a gap; a hold is refused.
 * Entries never overlap; each gap is unregistered with its last user. */
static void
test_partial_overlap (Fixture * fx, gconstpointer unused)
{
  const guintptr a0 = 0x300000;
  CoHostRef *a = NULL, *b = NULL, *c = NULL, *l = NULL, *h = NULL;

  g_assert_cmpint (acq (fx, a0, 4 * PAGE, CO_HOSTREG_REGISTER, &a), ==,
      CO_HOSTREG_REGISTERED);
  /* a hold over the page before A and its first byte: refused */
  g_assert_cmpint (acq (fx, a0 - 10, 11, CO_HOSTREG_HOLD, &h), ==,
      CO_HOSTREG_REFUSED);
  g_assert_null (h);
  /* a look-up over the last page of A and one more: a gap, refused */
  g_assert_cmpint (acq (fx, a0 + 3 * PAGE + 100, 2 * PAGE,
          CO_HOSTREG_LOOKUP, &l), ==, CO_HOSTREG_REFUSED);
  g_assert_null (l);
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  /* B: from A's last page (at byte 100 of it) one page further: the page
   * after A registered, A referenced */
  g_assert_cmpint (acq (fx, a0 + 3 * PAGE + 100, 2 * PAGE,
          CO_HOSTREG_REGISTER, &b), ==, CO_HOSTREG_REGISTERED);
  g_assert_cmpuint (fx->fake.n_register, ==, 2);
  g_assert_true (fake_is_registered (&fx->fake, a0 + 4 * PAGE, 2 * PAGE));
  g_assert_true (co_hostref_covers (b, ADDR (a0 + 3 * PAGE + 100), 2 * PAGE));
  g_assert_cmpuint (co_hostreg_boundary (fx->reg, ADDR (a0 + 3 * PAGE + 100),
          2 * PAGE), ==, PAGE - 100);
  g_assert_cmpuint (co_hostreg_boundary (fx->reg, ADDR (a0 + 100), 3 * PAGE),
      ==, 0);
  /* now without a gap: a look-up over both is registered */
  g_assert_cmpint (acq (fx, a0 + 2 * PAGE, 3 * PAGE, CO_HOSTREG_LOOKUP, &l),
      ==, CO_HOSTREG_REGISTERED);
  g_assert_true (co_hostref_covers (l, ADDR (a0 + 2 * PAGE), 3 * PAGE));
  /* C: A and more on both sides: the page before A and the page after B */
  g_assert_cmpint (acq (fx, a0 - PAGE, 8 * PAGE, CO_HOSTREG_REGISTER, &c), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpuint (fx->fake.n_register, ==, 4);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 4);
  g_assert_true (co_hostref_covers (c, ADDR (a0 - PAGE), 8 * PAGE));
  g_assert_cmpuint (co_hostreg_boundary (fx->reg, ADDR (a0 - PAGE), 8 * PAGE),
      ==, PAGE);
  g_assert_false (co_hostref_covers (a, ADDR (a0 - PAGE), 8 * PAGE));
  /* A's pages stay while B, C and the look-up hold them */
  co_hostref_release (a);
  co_hostref_release (l);
  co_hostref_release (b);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  co_hostref_release (c);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 4);
}

/* The driver refuses the gap: nothing stays registered for the request,
 * the neighbour keeps its own registration. */
static void
test_partial_overlap_refused (Fixture * fx, gconstpointer unused)
{
  CoHostRef *a = NULL, *b = NULL;
  GError *err = NULL;

  g_assert_cmpint (acq (fx, 0x340000, 2 * PAGE, CO_HOSTREG_REGISTER, &a), ==,
      CO_HOSTREG_REGISTERED);
  /* both sides of A: the page before registers, the page after is the
   * application's (the driver refuses it): the first is undone */
  {
    guintptr s0 = 0x340000 + 2 * PAGE, e0 = s0 + PAGE;

    g_array_append_val (fx->fake.app, s0);
    g_array_append_val (fx->fake.app, e0);
  }
  g_assert_cmpint (co_hostreg_acquire (fx->reg, ADDR (0x340000 - PAGE),
          4 * PAGE, 0, CO_HOSTREG_REGISTER, &b, &err), ==, CO_HOSTREG_REFUSED);
  g_assert_cmpuint (fx->fake.n_register, ==, 3);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  g_assert_error (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CUDA);
  g_clear_error (&err);
  g_assert_null (b);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 1);
  g_assert_true (fake_is_registered (&fx->fake, 0x340000, 2 * PAGE));
  g_assert_false (fake_is_registered (&fx->fake, 0x340000 - PAGE, 1));
  co_hostref_release (a);
}

/* References added to another set (a frame taking its own on its memory's
 * range) count one each: unregistered at the last. */
static void
test_last_unref (Fixture * fx, gconstpointer unused)
{
  CoHostRef *mem = NULL, *frames[5] = { NULL, };
  guint i;

  g_assert_cmpint (acq (fx, 0x400000, 10, CO_HOSTREG_REGISTER, &mem), ==,
      CO_HOSTREG_REGISTERED);
  for (i = 0; i < G_N_ELEMENTS (frames); i++)
    co_hostref_add (&frames[i], mem);
  co_hostref_add (&frames[0], mem);     /* twice in one set */
  co_hostref_add (&frames[0], NULL);    /* nothing */
  co_hostref_release (mem);
  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
    g_assert_true (fake_is_registered (&fx->fake, 0x400000, 10));
    co_hostref_release (frames[i]);
  }
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  co_hostref_release (NULL);
}

/* B's frame is in flight from a range A's memory registered; A's
 * memory is freed; the range stays registered until B's frame is done. */
static void
test_in_flight (Fixture * fx, gconstpointer unused)
{
  CoHostRef *mem_a = NULL, *mem_b = NULL, *frame_b = NULL;

  g_assert_cmpint (acq (fx, 0x500000, 8 * PAGE, CO_HOSTREG_REGISTER,
          &mem_a), ==, CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, 0x500000, 8 * PAGE, CO_HOSTREG_REGISTER,
          &mem_b), ==, CO_HOSTREG_REGISTERED);
  co_hostref_add (&frame_b, mem_b);
  co_hostref_release (mem_b);   /* B's memory finalized (frame still flies) */
  co_hostref_release (mem_a);   /* A's memory freed */
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  g_assert_true (co_hostref_covers (frame_b, ADDR (0x500000), 8 * PAGE));
  g_assert_true (fake_is_registered (&fx->fake, 0x500000, 8 * PAGE));
  co_hostref_release (frame_b); /* the device has finished */
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
}

/* Memory the application page-locked: PINNED, no reference, never
 * registered or unregistered by us, asked again every time (nothing
 * cached). */
static void
test_app_pinned (Fixture * fx, gconstpointer unused)
{
  guintptr s = 0x600000, e = 0x600000 + 32 * PAGE;
  CoHostRef *ref = NULL;
  guint i;

  g_array_append_val (fx->fake.app, s);
  g_array_append_val (fx->fake.app, e);
  for (i = 0; i < 40; i++) {
    g_assert_cmpint (acq (fx, s + i * 3000, 3000, i % 2 ?
            CO_HOSTREG_REGISTER : CO_HOSTREG_HOLD, &ref), ==,
        CO_HOSTREG_PINNED);
    g_assert_null (ref);
  }
  g_assert_cmpuint (fx->fake.n_app_asked, ==, 40);
  g_assert_cmpuint (fx->fake.n_register, ==, 0);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  /* straddling the end of the application's memory: not pinned, and the
   * driver refuses to register it: refused */
  g_assert_cmpint (acq (fx, e - 100, 2 * PAGE, CO_HOSTREG_REGISTER, &ref),
      ==, CO_HOSTREG_REFUSED);
  g_assert_null (ref);
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  /* the application unpins it: asked again, registered by us now */
  g_array_set_size (fx->fake.app, 0);
  g_assert_cmpint (acq (fx, s, 3000, CO_HOSTREG_REGISTER, &ref), ==,
      CO_HOSTREG_REGISTERED);
  co_hostref_release (ref);
}

/* CO_HOSTREG_LOOKUP (memory seen once, staged unless page-locked): never
 * registers, never holds; it references a registered entry that contains
 * the bytes, answers PINNED for the application's memory and PAGEABLE
 * without a reference or an entry otherwise, so a registration of the same
 * pages may follow at once (nothing copies from them while pageable). */
static void
test_lookup (Fixture * fx, gconstpointer unused)
{
  guintptr app = 0x680000, app_end = app + 8 * PAGE;
  CoHostRef *ref = NULL, *mem = NULL;

  g_assert_cmpint (acq (fx, 0x640000, 5000, CO_HOSTREG_LOOKUP, &ref), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_null (ref);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  g_assert_cmpuint (fx->fake.n_register, ==, 0);
  /* seen again: registered (what a recurring memory does) */
  g_assert_cmpint (acq (fx, 0x640000, 5000, CO_HOSTREG_REGISTER, &mem), ==,
      CO_HOSTREG_REGISTERED);
  /* a frame inside it, seen once: referenced, nothing registered */
  g_assert_cmpint (acq (fx, 0x640100, 3000, CO_HOSTREG_LOOKUP, &ref), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_nonnull (ref);
  g_assert_true (co_hostref_covers (ref, ADDR (0x640100), 3000));
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  /* partly over it: refused (staged) */
  g_assert_cmpint (acq (fx, 0x641000, 2 * PAGE, CO_HOSTREG_LOOKUP, &ref), ==,
      CO_HOSTREG_REFUSED);
  co_hostref_release (mem);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);      /* the frame's ref */
  co_hostref_release (ref);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  ref = mem = NULL;
  /* the application's page-locked memory: pinned, no reference */
  g_array_append_val (fx->fake.app, app);
  g_array_append_val (fx->fake.app, app_end);
  g_assert_cmpint (acq (fx, app + 100, 3 * PAGE, CO_HOSTREG_LOOKUP, &ref), ==,
      CO_HOSTREG_PINNED);
  g_assert_null (ref);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  /* a pageable copy in flight holds its pages: a lookup leaves them held,
   * and adds nothing to the hold */
  g_assert_cmpint (acq (fx, 0x6a0000, 100, CO_HOSTREG_HOLD, &mem), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_cmpint (acq (fx, 0x6a0000, 100, CO_HOSTREG_LOOKUP, &ref), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_null (ref);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 1);
  co_hostref_release (mem);
}

/* A failing registration: refused with the driver's reason, nothing
 * recorded; the next attempt registers. */
static void
test_register_fails (Fixture * fx, gconstpointer unused)
{
  CoHostRef *ref = NULL;
  GError *err = NULL;

  fx->fake.fail_next = 1;
  g_assert_cmpint (co_hostreg_acquire (fx->reg, ADDR (0x700000), 5 * PAGE, 0,
          CO_HOSTREG_REGISTER, &ref, &err), ==, CO_HOSTREG_REFUSED);
  g_assert_nonnull (strstr (err->message, "cudaHostRegister"));
  g_clear_error (&err);
  g_assert_null (ref);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  g_assert_cmpint (acq (fx, 0x700000, 5 * PAGE, CO_HOSTREG_REGISTER, &ref),
      ==, CO_HOSTREG_REGISTERED);
  co_hostref_release (ref);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
}

/* Frames of one ring whose size is not a multiple of the page share pages:
 * a frame whose pages lie inside a neighbour's registration references it;
 * one that overlaps it partly registers the pages the neighbour has not and
 * references the neighbour's too (its copies split at the boundary);
 * pageable copies in flight keep registrations off their pages. */
static void
test_shared_pages (Fixture * fx, gconstpointer unused)
{
  const guintptr ring = 0x800000;
  const gsize fs = 6000;        /* frame size */
  CoHostRef *f0 = NULL, *f1 = NULL, *h0 = NULL, *h1 = NULL, *big = NULL;

  /* frame 0: pages 0-1; frame 1 (6000..12000): pages 1-2, partly frame 0's:
   * page 2 registered, the boundary at 8192 */
  g_assert_cmpint (acq (fx, ring, fs, CO_HOSTREG_REGISTER, &f0), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, ring + fs, fs, CO_HOSTREG_REGISTER, &f1), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpuint (co_hostreg_boundary (fx->reg, ADDR (ring + fs), fs), ==,
      2 * PAGE - fs);
  g_assert_cmpuint (co_hostreg_boundary (fx->reg, ADDR (ring), fs), ==, 0);
  co_hostref_release (f1);
  f1 = NULL;
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  /* two small frames in frame 0's pages: inside */
  g_assert_cmpint (acq (fx, ring + 100, 2000, CO_HOSTREG_HOLD, &h0), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, ring + 4096, 4000, CO_HOSTREG_HOLD, &h1), ==,
      CO_HOSTREG_REGISTERED);
  co_hostref_release (f0);
  co_hostref_release (h0);
  co_hostref_release (h1);
  h0 = h1 = NULL;
  g_assert_cmpuint (fx->fake.n_unregister, ==, 2);
  g_assert_cmpint (acq (fx, ring + fs, fs, CO_HOSTREG_REGISTER, &f1), ==,
      CO_HOSTREG_REGISTERED);
  co_hostref_release (f1);

  /* small pageable frames in one page: both held (held entries may
   * overlap); a registration over that page waits until both are done */
  g_assert_cmpint (acq (fx, ring + 10, 1000, CO_HOSTREG_HOLD, &h0), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_cmpint (acq (fx, ring + 1010, 1000, CO_HOSTREG_HOLD, &h1), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_cmpint (acq (fx, ring + 3000, 1000, CO_HOSTREG_HOLD, &h1), ==,
      CO_HOSTREG_PAGEABLE);
  g_assert_cmpint (acq (fx, ring, 3 * fs, CO_HOSTREG_REGISTER, &big), ==,
      CO_HOSTREG_REFUSED);
  co_hostref_release (h0);
  g_assert_cmpint (acq (fx, ring, 3 * fs, CO_HOSTREG_REGISTER, &big), ==,
      CO_HOSTREG_REFUSED);
  co_hostref_release (h1);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);

  /* the whole ring registered (someone's memory over all of it): every
   * frame is inside */
  g_assert_cmpint (acq (fx, ring, 10 * fs, CO_HOSTREG_REGISTER, &big), ==,
      CO_HOSTREG_REGISTERED);
  f0 = f1 = NULL;
  g_assert_cmpint (acq (fx, ring + 3 * fs, fs, CO_HOSTREG_REGISTER, &f0), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, ring + 4 * fs, fs, CO_HOSTREG_REGISTER, &f0), ==,
      CO_HOSTREG_REGISTERED);
  g_assert_cmpint (acq (fx, ring + 4 * fs, fs, CO_HOSTREG_HOLD, &f1), ==,
      CO_HOSTREG_REGISTERED);
  co_hostref_release (big);
  co_hostref_release (f0);
  g_assert_true (fake_is_registered (&fx->fake, ring + 4 * fs, fs));
  co_hostref_release (f1);
  g_assert_cmpuint (fx->fake.n_register, ==, fx->fake.n_unregister);
}

/* Many threads take and drop references on ranges of a few pages at once:
 * the driver never sees a double registration or a stray unregistration,
 * a reference always covers registered pages, and everything is undone at
 * the end. */
#define N_THREADS 8
#define N_ITER 20000
#define N_PAGES 64

typedef struct
{
  Fixture *fx;
  guint seed;
  guint registered, pageable, refused;
} Worker;

/* Cut at each co_hostreg_boundary(), the n bytes at p (registered, held by
 * the caller) fall into pieces that each lie inside one registration of
 * the driver's. */
static void
check_pieces (Fixture * fx, guintptr p, gsize n)
{
  guintptr at = p, end = p + n;

  while (at < end) {
    gsize off = co_hostreg_boundary (fx->reg, ADDR (at), end - at);
    guintptr piece_end = off ? at + off : end;
    gboolean one;

    g_assert_cmpuint (piece_end, >, at);
    g_mutex_lock (&fx->fake.lock);
    one = fake_overlaps (fx->fake.regs, at, piece_end, TRUE);
    g_mutex_unlock (&fx->fake.lock);
    g_assert_true (one);
    at = piece_end;
  }
}

static gpointer
worker (gpointer data)
{
  Worker *w = data;
  GRand *r = g_rand_new_with_seed (w->seed);
  CoHostRef *held[4] = { NULL, };
  guint i;

  for (i = 0; i < N_ITER; i++) {
    guint k = g_rand_int_range (r, 0, G_N_ELEMENTS (held));
    guintptr p = 0x1000000 + g_rand_int_range (r, 0, N_PAGES * PAGE);
    gsize n = g_rand_int_range (r, 1, 6 * PAGE);
    CoHostRegMode mode = g_rand_boolean (r) ? CO_HOSTREG_REGISTER :
        CO_HOSTREG_HOLD;
    CoHostRef *ref = NULL;

    switch (co_hostreg_acquire (w->fx->reg, ADDR (p), n, 0, mode, &ref, NULL)) {
      case CO_HOSTREG_REGISTERED:
        w->registered++;
        g_assert_true (co_hostref_covers (ref, ADDR (p), n));
        g_assert_true (fake_is_registered (&w->fx->fake, p, n));
        check_pieces (w->fx, p, n);
        break;
      case CO_HOSTREG_PAGEABLE:
        w->pageable++;
        g_assert_false (co_hostref_covers (ref, ADDR (p), n));
        break;
      default:
        w->refused++;
        g_assert_null (ref);
        break;
    }
    /* sometimes a frame reference on top (then the memory's goes) */
    if (ref && g_rand_boolean (r)) {
      CoHostRef *frame = NULL;

      co_hostref_add (&frame, ref);
      co_hostref_release (ref);
      ref = frame;
    }
    co_hostref_release (held[k]);
    held[k] = ref;
  }
  for (i = 0; i < G_N_ELEMENTS (held); i++)
    co_hostref_release (held[i]);
  g_rand_free (r);
  return NULL;
}

static void
test_threads (Fixture * fx, gconstpointer unused)
{
  GThread *t[N_THREADS];
  Worker w[N_THREADS];
  guint i, registered = 0, pageable = 0, refused = 0;

  for (i = 0; i < N_THREADS; i++) {
    memset (&w[i], 0, sizeof (w[i]));
    w[i].fx = fx;
    w[i].seed = 1234 + i;
    t[i] = g_thread_new ("hostreg", worker, &w[i]);
  }
  for (i = 0; i < N_THREADS; i++) {
    g_thread_join (t[i]);
    registered += w[i].registered;
    pageable += w[i].pageable;
    refused += w[i].refused;
  }
  g_test_message ("%u registered, %u pageable, %u refused; %u driver "
      "registrations", registered, pageable, refused, fx->fake.n_register);
  /* every outcome happened */
  g_assert_cmpuint (registered, >, 0);
  g_assert_cmpuint (pageable, >, 0);
  g_assert_cmpuint (refused, >, 0);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  g_assert_cmpuint (fx->fake.n_register, ==, fx->fake.n_unregister);
}

/* The length a block is mapped with: whole huge pages when the last one
 * adds at most an eighth, else whole small pages (4 KiB pages; the
 * expected lengths are worked out by hand). */
static const struct
{
  const gchar *name;
  gsize size, length;
} block_lengths[] = {
  {"2 MiB exactly", 2u << 20, 2u << 20},
  {"2 MiB and a byte: the next small page", (2u << 20) + 1, (2u << 20) + 4096},
  {"1080p NV12 (3 110 400): 35 % more to 4 MiB, small pages", 3110400,
      3112960},
  {"1080p RGBA (8 294 400): 1.1 % more, 8 MiB", 8294400, 8u << 20},
  {"4K RGBA (33 177 600): 1.1 % more, 32 MiB", 33177600, 32u << 20},
  {"16 MiB and a byte: 2 MiB less a page more, within an eighth",
      (16u << 20) + 1, 18u << 20},
  {"14 MiB and a byte: 2 MiB less a page more, over an eighth",
      (14u << 20) + 1, (14u << 20) + 4096},
};

static void
test_block_length (void)
{
  guint i;

  if (sysconf (_SC_PAGESIZE) != 4096) {
    g_test_skip ("the table is worked out for 4 KiB pages");
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (block_lengths); i++) {
    g_test_message ("%s", block_lengths[i].name);
    g_assert_cmpuint (co_host_block_length (block_lengths[i].size), ==,
        block_lengths[i].length);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(name, fn) \
  g_test_add ("/hostreg/" name, Fixture, NULL, fixture_setup, fn, \
      fixture_teardown)
  ADD ("two-users", test_two_users);
  ADD ("inside", test_inside);
  ADD ("partial-overlap", test_partial_overlap);
  ADD ("partial-overlap-refused", test_partial_overlap_refused);
  ADD ("last-unref", test_last_unref);
  ADD ("in-flight", test_in_flight);
  ADD ("app-pinned", test_app_pinned);
  ADD ("lookup", test_lookup);
  ADD ("register-fails", test_register_fails);
  ADD ("shared-pages", test_shared_pages);
  ADD ("threads", test_threads);
  g_test_add_func ("/hostreg/block-length", test_block_length);
  return g_test_run ();
}
