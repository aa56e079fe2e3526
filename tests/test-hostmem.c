/* cudaoverlap: how foreign host memory goes to the device
 * (gst_cuda_overlap_hostmem_prepare), on a registry over a fake driver.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Needs a -Dfault-injection build (co_test_hostreg_set_default); skipped
 * otherwise.  The fake driver (co-test-fakereg.h) registers ranges without
 * touching their bytes and says which ranges the application page-locked;
 * the memory is real (malloc), so that GstMemory can map it.  The rules checked: a
 * GstMemory seen once is staged unless its bytes are page-locked already,
 * whatever its size; one that comes back is registered the second time,
 * once, and unregistered when it is finalized; a driver's refusal is not
 * asked again for that memory; nothing is ever a pageable copy.
 */
#include <string.h>
#include <gst/gst.h>

#include "gstcudaoverlap-hostmem.h"

#ifdef CO_FAULT_INJECTION

#include "co-test-fakereg.h"

#define SMALL (640 * 480)       /* GRAY8 640x480 */
#define LARGE (1200 * 1000)

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
  co_test_hostreg_set_default (fx->reg);
}

static void
fixture_teardown (Fixture * fx, gconstpointer unused)
{
  co_test_hostreg_set_default (NULL);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  co_hostreg_free (fx->reg);
  fake_clear (&fx->fake);
}

/* One frame of @buf through prepare, its reference released as the
 * element does once the device has read it; the path. */
static CoMemPath
frame (GstBuffer * buf, gint device_id)
{
  CoHostRef *ref = (CoHostRef *) 0x1;
  CoMemPath path = gst_cuda_overlap_hostmem_prepare (buf, device_id, &ref);

  g_assert_true (path != CO_PATH_PAGEABLE || device_id < -1);
  /* a reference exactly when registered */
  g_assert_true ((path == CO_PATH_REGISTERED) == (ref != NULL));
  co_hostref_release (ref);
  return path;
}

/* A new GstBuffer (and GstMemory) over @data. */
static GstBuffer *
wrap (gpointer data, gsize size)
{
  return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, data, size, 0,
      size, NULL, NULL);
}

/* 8 recurring application buffers, small or large: each staged the first
 * time, registered from the second on, also those that share pages with a
 * neighbour (around its registration: a gap each, or none when the
 * neighbours' registrations contain it); unregistered when the buffers
 * go. */
static void
test_recurring (Fixture * fx, gconstpointer data)
{
  gsize size = GPOINTER_TO_SIZE (data);
  GstBuffer *bufs[8];
  guint i, round;

  for (i = 0; i < 8; i++)
    bufs[i] = gst_buffer_new_allocate (NULL, size, NULL);
  for (round = 0; round < 4; round++) {
    for (i = 0; i < 8; i++)
      g_assert_cmpint (frame (bufs[i], 0), ==, round == 0 ?
          CO_PATH_STAGED : CO_PATH_REGISTERED);
  }
  g_assert_cmpuint (fx->fake.n_register, >=, 1);
  g_assert_cmpuint (fx->fake.n_register, <=, 16);
  if (size >= PAGE)
    g_assert_cmpuint (fx->fake.n_register, >=, 8);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, fx->fake.n_register);
  for (i = 0; i < 8; i++)
    gst_buffer_unref (bufs[i]);
  g_assert_cmpuint (fx->fake.n_unregister, ==, fx->fake.n_register);
}

/* 8 recurring buffers end to end in one block, each starting inside its
 * neighbour's last page (as a heap's adjacent blocks lie): every one is
 * registered from its second frame on, none staged again, and the bytes of
 * each lie inside registrations (split where one ends and the next
 * begins). */
static void
test_recurring_shared_pages (Fixture * fx, gconstpointer data)
{
  gsize size = GPOINTER_TO_SIZE (data), stride = size + 1000;
  guint8 *block = g_malloc (16 + 8 * stride);
  GstBuffer *bufs[8];
  guint i, round;

  for (i = 0; i < 8; i++)
    bufs[i] = wrap (block + 16 + i * stride, size);
  for (round = 0; round < 4; round++)
    for (i = 0; i < 8; i++)
      g_assert_cmpint (frame (bufs[i], 0), ==, round == 0 ?
          CO_PATH_STAGED : CO_PATH_REGISTERED);
  for (i = 0; i < 8; i++)
    g_assert_true (fake_is_registered (&fx->fake, (guintptr) (block + 16 +
                i * stride), size));
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  for (i = 0; i < 8; i++)
    gst_buffer_unref (bufs[i]);
  g_assert_cmpuint (fx->fake.n_unregister, ==, fx->fake.n_register);
  g_free (block);
}

/* A new GstMemory per frame over 8 malloc()ed slots (an application's ring
 * handed back by destroy notifies): always staged, never registered, no
 * entry left behind (the address may be freed and reused). */
static void
test_slots_malloc (Fixture * fx, gconstpointer data)
{
  gsize size = GPOINTER_TO_SIZE (data);
  gpointer slots[8];
  guint i;

  for (i = 0; i < 8; i++)
    slots[i] = g_malloc (size);
  for (i = 0; i < 40; i++) {
    GstBuffer *b = wrap (slots[i % 8], size);

    g_assert_cmpint (frame (b, 0), ==, CO_PATH_STAGED);
    gst_buffer_unref (b);
  }
  g_assert_cmpuint (fx->fake.n_register, ==, 0);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  for (i = 0; i < 8; i++)
    g_free (slots[i]);
}

/* The same slots page-locked by the application: used as they are, every
 * frame, with nothing registered or referenced. */
static void
test_slots_app_pinned (Fixture * fx, gconstpointer data)
{
  gsize size = GPOINTER_TO_SIZE (data);
  guint8 *ring = g_malloc (8 * size);
  guintptr s = (guintptr) ring, e = s + 8 * size;
  guint i;

  g_array_append_val (fx->fake.app, s);
  g_array_append_val (fx->fake.app, e);
  for (i = 0; i < 40; i++) {
    GstBuffer *b = wrap (ring + (i % 8) * size, size);

    g_assert_cmpint (frame (b, 0), ==, CO_PATH_PINNED);
    gst_buffer_unref (b);
  }
  /* recurring application buffers there too: pinned, never registered */
  {
    GstBuffer *b = wrap (ring, size);

    for (i = 0; i < 4; i++)
      g_assert_cmpint (frame (b, 0), ==, CO_PATH_PINNED);
    gst_buffer_unref (b);
  }
  g_assert_cmpuint (fx->fake.n_register, ==, 0);
  g_assert_cmpuint (co_hostreg_n_entries (fx->reg), ==, 0);
  g_free (ring);
}

/* The driver refuses a recurring memory's registration: staged, and the
 * driver is not asked again for that memory. */
static void
test_driver_refuses (Fixture * fx, gconstpointer unused)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, SMALL, NULL);
  guint i;

  fx->fake.fail_next = 1;
  for (i = 0; i < 6; i++)
    g_assert_cmpint (frame (b, 0), ==, CO_PATH_STAGED);
  g_assert_cmpuint (fx->fake.n_register, ==, 1);
  gst_buffer_unref (b);
}

/* A new GstMemory per frame over part of a recurring buffer that is
 * registered: copied from where it is, referenced for the frame; the
 * registration outlives the recurring buffer while a frame holds it. */
static void
test_inside_registered (Fixture * fx, gconstpointer unused)
{
  GstBuffer *rec = gst_buffer_new_allocate (NULL, 4 * SMALL, NULL);
  GstMapInfo map;
  CoHostRef *ref = NULL;
  GstBuffer *part;

  g_assert_cmpint (frame (rec, 0), ==, CO_PATH_STAGED);
  g_assert_cmpint (frame (rec, 0), ==, CO_PATH_REGISTERED);
  g_assert_true (gst_buffer_map (rec, &map, GST_MAP_READ));
  part = wrap (map.data + SMALL, SMALL);
  g_assert_cmpint (gst_cuda_overlap_hostmem_prepare (part, 0, &ref), ==,
      CO_PATH_REGISTERED);
  g_assert_nonnull (ref);
  gst_buffer_unmap (rec, &map);
  gst_buffer_unref (rec);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 0);
  co_hostref_release (ref);
  g_assert_cmpuint (fx->fake.n_unregister, ==, 1);
  gst_buffer_unref (part);
}

/* The CPU backend (device -2): pageable, the registry never asked. */
static void
test_cpu_backend (Fixture * fx, gconstpointer unused)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, SMALL, NULL);
  guint i;

  for (i = 0; i < 3; i++)
    g_assert_cmpint (frame (b, -2), ==, CO_PATH_PAGEABLE);
  g_assert_cmpuint (fx->fake.n_app_asked, ==, 0);
  g_assert_cmpuint (fx->fake.n_register, ==, 0);
  gst_buffer_unref (b);
}

int
main (int argc, char **argv)
{
  GstAllocator *alloc;

  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  /* its class makes hostmem's debug category; it allocates nothing */
  alloc = gst_cuda_overlap_pinned_allocator_new (0);
  gst_object_unref (alloc);
#define ADD(name, fn, data) \
  g_test_add ("/hostmem/" name, Fixture, GSIZE_TO_POINTER (data), \
      fixture_setup, fn, fixture_teardown)
  ADD ("recurring-small", test_recurring, SMALL);
  ADD ("recurring-large", test_recurring, LARGE);
  ADD ("recurring-tiny", test_recurring, 100);
  ADD ("recurring-shared-pages-small", test_recurring_shared_pages, SMALL);
  ADD ("recurring-shared-pages-large", test_recurring_shared_pages, LARGE);
  ADD ("slots-malloc-small", test_slots_malloc, SMALL);
  ADD ("slots-malloc-large", test_slots_malloc, LARGE);
  ADD ("slots-app-pinned-small", test_slots_app_pinned, SMALL);
  ADD ("slots-app-pinned-large", test_slots_app_pinned, LARGE);
  ADD ("driver-refuses", test_driver_refuses, 0);
  ADD ("inside-registered", test_inside_registered, 0);
  ADD ("cpu-backend", test_cpu_backend, 0);
  return g_test_run ();
}
#else
int
main (int argc, char **argv)
{
  g_print ("1..0 # SKIP needs a -Dfault-injection build "
      "(co_test_hostreg_set_default)\n");
  return 77;
}
#endif
