/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, memory paths: inputs with padded
 * strides, odd offsets and several memories, upstream pools, buffers shorter
 * than their caps, one buffer pushed again, and one application ring read by
 * two elements. Outputs are compared with the independent reference in
 * co-reference.c; the set-up and the environment are co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "co-test-video.h"

/* Input with GstVideoMeta: strides +64 (and odd: +3), nonzero plane
 * offsets, gaps between planes; odd sizes.  Loop index: format; the
 * formats after the first N_FORMATS take one operation per layout and
 * size, rotating. */
GST_START_TEST (test_padded_input)
{
  GstVideoFormat format = format_at (__i__);
  guint32 seed = co_test_seed ("test_padded_input", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  static const Layout layouts[] = {
    {64, 128, 64, 0, TRUE, FALSE, FALSE, FALSE},
    {64, 64, 0, 32, TRUE, FALSE, FALSE, FALSE},
    {0, 0, 0, 0, TRUE, FALSE, FALSE, FALSE},    /* meta, default layout */
    {64, 64, 16, 0, TRUE, FALSE, TRUE, FALSE},  /* meta, one memory per plane */
    {0, 0, 0, 0, FALSE, FALSE, TRUE, FALSE},    /* no meta, three memories */
  };
  static const Size sizes[] = { {33, 17}, {7, 3}, {161, 91} };
  guint l, s, o;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (o = 0; o < 3; o++) {
        static const guint op_idx[] = { 0, 2, 6 };

        if (__i__ >= N_FORMATS && (__i__ + l + s + o) % 3 != 0)
          continue;
        run_config (&op_cfgs[op_idx[o]],
            &co_test_run_cfgs[(l + s + o) % CO_TEST_N_RUNS], format, sizes[s].w,
            sizes[s].h, &layouts[l], 3, FALSE, rand, seed);
      }
  g_rand_free (rand);
}

GST_END_TEST;

/* Strides and offsets that are not multiples of 4 (legal in GstVideoMeta;
 * odd offsets only for 8-bit formats, 16-bit samples stay 2-aligned), and
 * tight strides (exactly the visible row bytes) with no gaps at all. */
GST_START_TEST (test_unaligned_input)
{
  GstVideoFormat format = format_at (__i__);
  guint32 seed = co_test_seed ("test_unaligned_input", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  gboolean wide = co_ref_format (format)->bytes_per_sample == 2;
  Layout lay = { wide ? 6 : 3, wide ? 10 : 5, wide ? 2 : 7, 1, TRUE, FALSE,
    FALSE, FALSE
  };
  Layout tight = { 0, 0, 0, 0, TRUE, TRUE, FALSE, FALSE };
  /* legal: the last row of the last plane has no padding after it */
  Layout trimmed = { 64, 32, 0, 0, TRUE, FALSE, FALSE, TRUE };
  guint o;

  for (o = 0; o < 3; o++) {
    static const guint op_idx[] = { 0, 1, 5 };
    run_config (&op_cfgs[op_idx[o]], &co_test_run_cfgs[3], format, 37, 19, &lay,
        3, FALSE, rand, seed);
    run_config (&op_cfgs[op_idx[o]], &co_test_run_cfgs[5], format, 37, 19,
        &tight, 3, FALSE, rand, seed);
    run_config (&op_cfgs[op_idx[o]], &co_test_run_cfgs[1], format, 37, 19,
        &trimmed, 3, FALSE, rand, seed);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Buffers from the pool the element proposes in the ALLOCATION query (on
 * CUDA: its page-locked memory), filled through their own video meta. */
GST_START_TEST (test_upstream_pool)
{
  guint32 seed = co_test_seed ("test_upstream_pool", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[6];
  GstVideoInfo info;
  GstCaps *caps;
  GstHarness *h;
  GstQuery *q;
  GstBufferPool *pool = NULL;
  GQueue pending = G_QUEUE_INIT;
  gchar *ctx = g_strdup_printf ("[upstream pool box-blur r=2 NV12 101x67 "
      "backend=%s seed=0x%08x]", co_test_backend, seed);
  guint i, size = 0, min = 0, max = 0;

  h = make_harness (op, &co_test_run_cfgs[3]);
  caps = caps_of (GST_VIDEO_FORMAT_NV12, 101, 67, &info);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));

  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q), "%s: ALLOCATION query "
      "not answered", ctx);
  if (gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  gst_query_unref (q);

  /* CUDA: the element must propose its page-locked pool.  CPU: any memory
   * will do, and it may propose none. */
  if (g_str_equal (co_test_backend, "cuda"))
    fail_unless (pool != NULL, "%s: the element proposes no buffer pool in "
        "its ALLOCATION answer", ctx);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    fail_unless (gst_buffer_pool_set_active (pool, TRUE));

    for (i = 0; i < 6; i++) {
      GstBuffer *in = NULL, *exp;
      GstMapInfo map;
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &in,
              NULL), GST_FLOW_OK);
      fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
      co_test_fill_random (rand, map.data, map.size);
      gst_buffer_unmap (in, &map);
      GST_BUFFER_PTS (in) = i * GST_SECOND;
      exp = make_expected (op, in, &info);
      g_queue_push_tail (&pending, exp);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      pull_and_check (h, &info, &pending, ctx);
    }
    fail_unless (gst_buffer_pool_set_active (pool, FALSE));
    gst_object_unref (pool);
  }

  gst_caps_unref (caps);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The variants of test_short_buffer: operation, format, how many bytes
 * are missing, a batch of 4 (the good frames wait in a batch being
 * filled, which the error then leaves behind: dropped at teardown) */
static const struct
{
  const gchar *name;
  guint op;                     /* op_cfgs[] */
  GstVideoFormat format;
  gboolean third_missing;       /* a third of the frame short, else a byte */
  guint batch;
} short_variants[] = {
  {.name = "rgba-one-byte-short",.op = 0,.format = GST_VIDEO_FORMAT_RGBA,
      .batch = 1},
  {.name = "i420-a-third-short",.op = 6,.format = GST_VIDEO_FORMAT_I420,
      .third_missing = TRUE,.batch = 1},
  {.name = "rgba-one-byte-short-batch-4",.op = 0,
      .format = GST_VIDEO_FORMAT_RGBA,.batch = 4},
};

GST_START_TEST (test_short_buffer)
{
  guint32 seed = co_test_seed ("test_short_buffer", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[short_variants[__i__].op];
  GstVideoFormat fmt = short_variants[__i__].format;
  guint batch = short_variants[__i__].batch;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstBuffer *in, *out;
  GstMessage *msg;
  GstFlowReturn ret;
  gsize want, have;
  gchar *text, *ws, *hs;
  gchar *ctx = g_strdup_printf ("[short buffer %s 64x48 batch=%u backend=%s "
      "seed=0x%08x]", gst_video_format_to_string (fmt), batch, co_test_backend,
      seed);
  guint i;

  co_test_print_variant ("test_short_buffer", __i__,
      short_variants[__i__].name);
  g_object_set (h->element, "batch", batch, NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps_of (fmt, 64, 48, &info));
  want = GST_VIDEO_INFO_SIZE (&info);
  have = want - 1 - (short_variants[__i__].third_missing ? want / 3 : 0);

  /* two good frames first: they come out right or not at all */
  for (i = 0; i < 2; i++)
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
        &pending, ctx);

  in = gst_buffer_new_allocate (NULL, have, NULL);
  {
    GstMapInfo map;
    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    co_test_fill_random (rand, map.data, map.size);
    gst_buffer_unmap (in, &map);
  }
  GST_BUFFER_PTS (in) = 2 * GST_SECOND;
  ret = gst_harness_push (h, in);
  fail_unless (ret == GST_FLOW_ERROR, "%s: push of a %" G_GSIZE_FORMAT
      "-byte buffer (caps need %" G_GSIZE_FORMAT ") returned %s", ctx, have,
      want, gst_flow_get_name (ret));

  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no ERROR message on the bus", ctx);
  text = co_test_error_text (msg);
  ws = g_strdup_printf ("%" G_GSIZE_FORMAT, want);
  hs = g_strdup_printf ("%" G_GSIZE_FORMAT, have);
  fail_unless (strstr (text, ws) && strstr (text, hs), "%s: the error does "
      "not name both sizes (%s and %s): \"%s\"", ctx, hs, ws, text);
  g_free (text);
  g_free (ws);
  g_free (hs);
  gst_message_unref (msg);

  /* whatever came out must be right */
  g_usleep (200 * 1000);
  while ((out = gst_harness_try_pull (h))) {
    GstBuffer *exp = g_queue_pop_head (&pending);
    fail_unless (exp != NULL, "%s: more output than good input", ctx);
    while (exp && GST_BUFFER_PTS (exp) != GST_BUFFER_PTS (out)) {
      gst_buffer_unref (exp);
      exp = g_queue_pop_head (&pending);
    }
    fail_unless (exp != NULL, "%s: output with pts %" GST_TIME_FORMAT
        " not pushed as a good frame", ctx,
        GST_TIME_ARGS (GST_BUFFER_PTS (out)));
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (exp);
    gst_buffer_unref (out);
  }
  while ((out = g_queue_pop_head (&pending)))
    gst_buffer_unref (out);

  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  GstVideoFormat format;
  gsize cut;                    /* bytes missing */
} short_meta_variants[] = {
  {.name = "nv12-1-byte",.format = GST_VIDEO_FORMAT_NV12,.cut = 1},
  {.name = "i420-1-byte",.format = GST_VIDEO_FORMAT_I420,.cut = 1},
  {.name = "gray16-1-byte",.format = GST_VIDEO_FORMAT_GRAY16_LE,.cut = 1},
  {.name = "nv12-100-bytes",.format = GST_VIDEO_FORMAT_NV12,.cut = 100},
  {.name = "i420-100-bytes",.format = GST_VIDEO_FORMAT_I420,.cut = 100},
  {.name = "gray16-100-bytes",.format = GST_VIDEO_FORMAT_GRAY16_LE,
      .cut = 100},
};

/* A video meta that points past the end of the buffer: an error, no crash,
 * no output for it. */
GST_START_TEST (test_short_buffer_meta)
{
  guint32 seed = co_test_seed ("test_short_buffer_meta", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFormat fmt = short_meta_variants[__i__].format;
  gsize cut = short_meta_variants[__i__].cut;
  GstVideoInfo info;
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GstBuffer *in, *out;
  GstMessage *msg;
  GstFlowReturn ret;
  Layout lay = { 64, 128, 0, 0, TRUE, FALSE, FALSE, TRUE };
  gsize need, have;
  gchar *text, *ns, *hs;
  gchar *ctx = g_strdup_printf ("[buffer %" G_GSIZE_FORMAT " byte(s) short "
      "of what its GstVideoMeta describes, %s 64x48 stride+64 backend=%s]",
      cut, gst_video_format_to_string (fmt), co_test_backend);

  co_test_print_variant ("test_short_buffer_meta", __i__,
      short_meta_variants[__i__].name);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps_of (fmt, 64, 48, &info));
  in = make_input (rand, &info, &lay);
  /* the buffer ends right after the last visible byte: cut into it */
  need = gst_buffer_get_size (in);
  have = need - cut;
  gst_buffer_resize (in, 0, have);
  ret = gst_harness_push (h, in);
  fail_unless (ret == GST_FLOW_ERROR, "%s: push returned %s", ctx,
      gst_flow_get_name (ret));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no ERROR message on the bus", ctx);
  text = co_test_error_text (msg);
  ns = g_strdup_printf ("%" G_GSIZE_FORMAT, need);
  hs = g_strdup_printf ("%" G_GSIZE_FORMAT, have);
  fail_unless (strstr (text, ns) && strstr (text, hs), "%s: the error does "
      "not name both sizes (%s and %s): \"%s\"", ctx, hs, ns, text);
  g_free (text);
  g_free (ns);
  g_free (hs);
  gst_message_unref (msg);
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "%s: a buffer came out", ctx);

  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The same buffer pushed again and again (upstream recycling its memory:
 * on CUDA, pageable memory registered once and reused). */
GST_START_TEST (test_same_buffer_repushed)
{
  guint32 seed = co_test_seed ("test_same_buffer_repushed", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[2];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  gchar *ctx = g_strdup_printf ("[same buffer pushed 4 times, gamma 2.2 RGBA "
      "640x480 backend=%s seed=0x%08x]", co_test_backend, seed);
  GstBuffer *in, *exp;
  guint i;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 640, 480,
          &info));
  in = make_input (rand, &info, &layout_default);
  exp = make_expected (op, in, &info);
  for (i = 0; i < 4; i++) {
    GstBuffer *out;
    in = gst_buffer_make_writable (in);
    GST_BUFFER_PTS (in) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = co_test_pull_buffer (h, ctx);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
  }
  /* and once more after new content was written into the same memory */
  {
    GstMapInfo map;
    GstBuffer *out;
    in = gst_buffer_make_writable (in);
    fail_unless (gst_buffer_map (in, &map, GST_MAP_WRITE));
    co_test_fill_random (rand, map.data, map.size);
    gst_buffer_unmap (in, &map);
    gst_buffer_unref (exp);
    exp = make_expected (op, in, &info);
    GST_BUFFER_PTS (in) = 4 * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    out = co_test_pull_buffer (h, ctx);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
  }
  gst_buffer_unref (exp);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* One host frame ring, two elements                                         */
/* ------------------------------------------------------------------------ */

/* An application's ring of frames, wrapped in a new GstMemory for every
 * frame and every element (gst_buffer_new_wrapped_full), or one wrapper
 * pushed into both, fed to two elements at once from two threads.  The
 * frame size is not a multiple of the page size, so neighbouring frames
 * share pages.  On CUDA a wrapper seen once is staged, one that the other
 * element saw already (the shared wrapper) is registered, or staged where
 * a neighbour's registration overlaps it partly, and a frame inside a
 * neighbour's registration is copied from there; never a plain copy.
 * Case 0: large frames; case 1: small frames; case 2 (CUDA only): a ring
 * the application page-locked itself (cudaHostAlloc), which the elements
 * must use as it is and never register or unregister. */
#define RING_SLOTS 9
#define RING_ROUNDS 4
#define RING_LAG 3

typedef struct
{
  GstHarness *h;
  const GstVideoInfo *info;
  guint8 *ring;
  gsize frame_size;
  GstBuffer **shared;           /* per slot: one wrapper for both, or NULL */
  GstBuffer **expected;         /* per slot */
  gint *wrappers;               /* alive wrappers (atomic) */
  gchar *error;                 /* first mismatch, or NULL */
} RingFeeder;

static void
ring_wrapper_freed (gpointer data)
{
  g_atomic_int_dec_and_test ((gint *) data);
}

static GstBuffer *
ring_wrap (guint8 * ring, gsize frame_size, guint slot, gint * wrappers)
{
  g_atomic_int_inc (wrappers);
  return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
      ring + slot * frame_size, frame_size, 0, frame_size, wrappers,
      ring_wrapper_freed);
}

static void
ring_check_one (RingFeeder * f, guint k)
{
  GstBuffer *out = gst_harness_pull (f->h);
  GstBuffer *exp = f->expected[k % RING_SLOTS];
  GstVideoFrame fexp, fout;
  gchar *msg = NULL;

  if (f->error)
    goto done;
  if (!out) {
    f->error = g_strdup_printf ("frame %u: no output within 60 s", k);
    return;
  }
  if (GST_BUFFER_PTS (out) != k * GST_SECOND / 30) {
    f->error = g_strdup_printf ("frame %u: output pts %" GST_TIME_FORMAT, k,
        GST_TIME_ARGS (GST_BUFFER_PTS (out)));
    goto done;
  }
  if (!gst_video_frame_map (&fout, f->info, out, GST_MAP_READ)) {
    f->error = g_strdup_printf ("frame %u: output cannot be mapped", k);
    goto done;
  }
  gst_video_frame_map (&fexp, f->info, exp, GST_MAP_READ);
  if (!co_ref_compare (&fexp, &fout, &msg))
    f->error = g_strdup_printf ("frame %u (ring slot %u): output differs "
        "from the reference: %s", k, k % RING_SLOTS, msg);
  g_free (msg);
  gst_video_frame_unmap (&fexp);
  gst_video_frame_unmap (&fout);
done:
  gst_clear_buffer (&out);
}

/* Pushes the ring's frames in order, pulling and checking each output
 * RING_LAG frames later.  No fail_unless here: another thread. */
static gpointer
ring_feeder (gpointer data)
{
  RingFeeder *f = data;
  guint k;

  for (k = 0; k < RING_SLOTS && !f->error; k++) {
    GstBuffer *in = f->shared[k] ? gst_buffer_ref (f->shared[k]) :
        ring_wrap (f->ring, f->frame_size, k, f->wrappers);
    GstFlowReturn ret;

    if (!f->shared[k]) {
      /* a wrapper of our own is writable: set its timestamps */
      GST_BUFFER_PTS (in) = k * GST_SECOND / 30;
      GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    }
    ret = gst_harness_push (f->h, in);
    if (ret != GST_FLOW_OK) {
      f->error = g_strdup_printf ("frame %u: push returned %s", k,
          gst_flow_get_name (ret));
      break;
    }
    if (k >= RING_LAG)
      ring_check_one (f, k - RING_LAG);
  }
  for (k = k >= RING_LAG ? k - RING_LAG : 0; k < RING_SLOTS && !f->error; k++)
    ring_check_one (f, k);
  return NULL;
}

/* The rings of test_shared_ring: frames of 1 200 000 bytes (>= 1 MiB,
 * 292.97 pages) or 13 860 bytes (3.38 pages), in malloc()ed memory or in
 * the application's own page-locked memory (CUDA only) */
static const struct
{
  const gchar *name;
  GstVideoFormat format;
  guint w, h;
  gboolean app_pinned;
} ring_variants[] = {
  {.name = "rgba-1000x300",.format = GST_VIDEO_FORMAT_RGBA,.w = 1000,
      .h = 300},
  {.name = "nv12-130x70",.format = GST_VIDEO_FORMAT_NV12,.w = 130,.h = 70},
  {.name = "rgba-1000x300-app-page-locked",.format = GST_VIDEO_FORMAT_RGBA,
      .w = 1000,.h = 300,.app_pinned = TRUE},
};

GST_START_TEST (test_shared_ring)
{
  const gboolean cuda = g_str_equal (co_test_backend, "cuda");
  guint32 seed = co_test_seed ("test_shared_ring", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[5];        /* box-blur r=1: reads neighbours */
  GstVideoInfo info;
  GstHarness *h[2];
  RingFeeder f[2];
  GstBuffer *shared[RING_SLOTS], *expected[RING_SLOTS];
  GThread *t[2];
  gint wrappers = 0;
  gsize fs, ring_size;
  guint8 *ring;
  gchar *ctx;
  guint i, k, round;

  co_test_print_variant ("test_shared_ring", __i__, ring_variants[__i__].name);
  if (ring_variants[__i__].app_pinned && !cuda) {
    /* nothing to page-lock without a device: the CUDA suite's variant */
    g_print ("test_shared_ring[%d]: the CUDA backend only\n", __i__);
    g_rand_free (rand);
    return;
  }
  ctx = g_strdup_printf ("[one ring of %u frames %s %ux%u, two elements, %s "
      "memory, backend=%s seed=0x%08x]", RING_SLOTS,
      gst_video_format_to_string (ring_variants[__i__].format),
      ring_variants[__i__].w, ring_variants[__i__].h,
      ring_variants[__i__].app_pinned ? "application page-locked" :
      "malloc()ed", co_test_backend, seed);
  h[0] = make_harness (op, &co_test_run_cfgs[3]);
  h[1] = make_harness (op, &co_test_run_cfgs[6]);
  for (i = 0; i < 2; i++)
    gst_harness_set_src_caps (h[i], caps_of (ring_variants[__i__].format,
            ring_variants[__i__].w, ring_variants[__i__].h, &info));
  fs = GST_VIDEO_INFO_SIZE (&info);
  fail_unless (fs % 4096 != 0, "%s: frames must share pages", ctx);
  ring_size = fs * RING_SLOTS;
  if (ring_variants[__i__].app_pinned) {
    void *p = NULL;
    cudaError_t err = cudaHostAlloc (&p, ring_size, cudaHostAllocPortable);

    fail_unless (err == cudaSuccess, "%s: cudaHostAlloc failed: %s", ctx,
        cudaGetErrorString (err));
    ring = p;
  } else {
    ring = g_malloc (ring_size);
  }

  for (round = 0; round < RING_ROUNDS; round++) {
    /* new content in every round: a stale read shows */
    co_test_fill_random (rand, ring, ring_size);
    for (k = 0; k < RING_SLOTS; k++) {
      GstBuffer *in = ring_wrap (ring, fs, k, &wrappers);

      expected[k] = make_expected (op, in, &info);
      /* odd rounds: one wrapper pushed into both elements */
      if (round % 2) {
        GST_BUFFER_PTS (in) = k * GST_SECOND / 30;
        GST_BUFFER_DURATION (in) = GST_SECOND / 30;
        shared[k] = in;
      } else {
        gst_buffer_unref (in);
        shared[k] = NULL;
      }
    }
    for (i = 0; i < 2; i++) {
      memset (&f[i], 0, sizeof (f[i]));
      f[i].h = h[i];
      f[i].info = &info;
      f[i].ring = ring;
      f[i].frame_size = fs;
      f[i].shared = shared;
      f[i].expected = expected;
      f[i].wrappers = &wrappers;
      t[i] = g_thread_new ("ring-feeder", ring_feeder, &f[i]);
    }
    for (i = 0; i < 2; i++)
      g_thread_join (t[i]);
    for (k = 0; k < RING_SLOTS; k++) {
      gst_clear_buffer (&shared[k]);
      gst_buffer_unref (expected[k]);
    }
    for (i = 0; i < 2; i++) {
      fail_unless (f[i].error == NULL, "%s round %u element %u: %s", ctx,
          round, i, f[i].error);
      g_free (f[i].error);
    }
    /* every output pulled: the elements hold no frame of the ring once
     * their push threads are past the push (an input is released just
     * after its output is pushed, off the latency path) */
    {
      gint64 until = g_get_monotonic_time () + 2 * G_TIME_SPAN_SECOND;

      while (g_atomic_int_get (&wrappers) != 0 &&
          g_get_monotonic_time () < until)
        g_usleep (1000);
    }
    fail_unless_equals_int (g_atomic_int_get (&wrappers), 0);
  }

  for (i = 0; i < 2; i++) {
    GstStructure *st = NULL;
    guint64 n, pinned, registered, pageable, staged;

    fail_unless (gst_harness_push_event (h[i], gst_event_new_eos ()));
    g_object_get (h[i]->element, "stats", &st, NULL);
    fail_unless (st != NULL);
    fail_unless (gst_structure_get (st, "frames", G_TYPE_UINT64, &n,
            "frames-pinned", G_TYPE_UINT64, &pinned, "frames-registered",
            G_TYPE_UINT64, &registered, "frames-pageable", G_TYPE_UINT64,
            &pageable, "frames-staged", G_TYPE_UINT64, &staged, NULL));
    GST_INFO ("%s element %u: %" G_GUINT64_FORMAT " pinned, %"
        G_GUINT64_FORMAT " registered, %" G_GUINT64_FORMAT " pageable, %"
        G_GUINT64_FORMAT " staged", ctx, i, pinned, registered, pageable,
        staged);
    fail_unless_equals_uint64 (n, RING_SLOTS * RING_ROUNDS);
    fail_unless_equals_uint64 (pinned + registered + pageable + staged, n);
    if (!cuda) {
      fail_unless_equals_uint64 (pageable, n);
    } else if (ring_variants[__i__].app_pinned) {
      fail_unless_equals_uint64 (pinned, n);    /* used as it is */
    } else {
      fail_unless_equals_uint64 (pageable, 0);  /* never a plain copy */
    }
    gst_structure_free (st);
    teardown_harness (h[i]);
  }
  if (ring_variants[__i__].app_pinned) {
    fail_unless_equals_int (cudaFreeHost (ring), cudaSuccess);
  } else {
    g_free (ring);
  }
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* An application that owns its buffers                                      */
/* ------------------------------------------------------------------------ */

/* GRAY8 640x480 frames, the element with its defaults, from an application
 * that owns APP_SLOTS buffers and reuses each only once the element has let
 * it go: (a) slots, a new GstMemory per frame over one of them, handed back
 * by the memory's destroy notify (how capture sources feed appsrc); (b)
 * recurring buffers, the same GstBuffer pushed again once the element
 * dropped its reference.  Each use writes new content.  The element must
 * never hold more than the ring (a slot not handed back within APP_WAIT_S
 * fails the test: it would hang an application), every output must match
 * the reference, and on CUDA the statistics say how each frame went:
 * malloc()ed slots staged, page-locked ones used as they are, recurring
 * buffers staged once and registered afterwards, none a pageable copy.
 * recurring-shared-pages: the buffers lie end to end in one allocation,
 * each starting inside its neighbour's last page (as a heap's adjacent
 * blocks do): every one is registered too, around its neighbours, and its
 * copies split where one registration ends and the next begins. */
#define APP_SLOTS 8
#define APP_FRAMES (APP_SLOTS * 8)
#define APP_WAIT_S 20

static const struct
{
  const gchar *name;
  gboolean recurring;
  gboolean page_locked;         /* cudaHostAlloc: CUDA only */
  gboolean shared_pages;        /* end to end in one block, pages shared */
} app_variants[] = {
  {"slots-malloc", FALSE, FALSE, FALSE},
  {"slots-page-locked", FALSE, TRUE, FALSE},
  {"recurring-malloc", TRUE, FALSE, FALSE},
  {"recurring-page-locked", TRUE, TRUE, FALSE},
  {"recurring-shared-pages", TRUE, FALSE, TRUE},
};

/* recurring-shared-pages: buffer k at byte APP_SHARED_START + k * (frame +
 * APP_SHARED_GAP) of one page-aligned block */
#define APP_SHARED_START 16
#define APP_SHARED_GAP 1000

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean busy[APP_SLOTS];
} AppSlots;

static AppSlots app_slots;

static void
app_slot_returned (gpointer data)
{
  g_mutex_lock (&app_slots.lock);
  app_slots.busy[GPOINTER_TO_UINT (data)] = FALSE;
  g_cond_broadcast (&app_slots.cond);
  g_mutex_unlock (&app_slots.lock);
}

/* Waits until slot @k is free (TRUE), or APP_WAIT_S (FALSE). */
static gboolean
app_slot_wait (guint k, GstBuffer * recurring)
{
  gint64 until = g_get_monotonic_time () + APP_WAIT_S * G_TIME_SPAN_SECOND;
  gboolean free_;

  if (recurring) {
    while (!gst_buffer_is_writable (recurring) &&
        g_get_monotonic_time () < until)
      g_usleep (200);
    return gst_buffer_is_writable (recurring);
  }
  g_mutex_lock (&app_slots.lock);
  while (app_slots.busy[k] && g_cond_wait_until (&app_slots.cond,
          &app_slots.lock, until));
  free_ = !app_slots.busy[k];
  app_slots.busy[k] = TRUE;
  g_mutex_unlock (&app_slots.lock);
  return free_;
}

static guint8 *
app_alloc (gsize size, gboolean page_locked, const gchar * ctx)
{
  void *p = NULL;

  if (page_locked) {
    cudaError_t err = cudaHostAlloc (&p, size, cudaHostAllocPortable);

    fail_unless (err == cudaSuccess, "%s: cudaHostAlloc failed: %s", ctx,
        cudaGetErrorString (err));
  } else {
    /* page-aligned: the buffers share no page, so each can be registered */
    fail_unless (posix_memalign (&p, 4096, size) == 0);
  }
  return p;
}

static void
app_free (guint8 * p, gboolean page_locked)
{
  if (page_locked) {
    fail_unless_equals_int (cudaFreeHost (p), cudaSuccess);
  } else {
    free (p);
  }
}

static void
app_check_stats (GstHarness * h, guint v, const gchar * ctx)
{
  GstStructure *st = NULL;
  guint64 n, pinned, registered, pageable, staged;

  /* the statistics of the whole run: at EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st != NULL);
  fail_unless (gst_structure_get (st, "frames", G_TYPE_UINT64, &n,
          "frames-pinned", G_TYPE_UINT64, &pinned, "frames-registered",
          G_TYPE_UINT64, &registered, "frames-pageable", G_TYPE_UINT64,
          &pageable, "frames-staged", G_TYPE_UINT64, &staged, NULL));
  gst_structure_free (st);
  GST_INFO ("%s: %" G_GUINT64_FORMAT " pinned, %" G_GUINT64_FORMAT
      " registered, %" G_GUINT64_FORMAT " pageable, %" G_GUINT64_FORMAT
      " staged", ctx, pinned, registered, pageable, staged);
  fail_unless_equals_uint64 (n, APP_FRAMES);
  fail_unless_equals_uint64 (pinned + registered + pageable + staged, n);
  if (!g_str_equal (co_test_backend, "cuda")) {
    fail_unless_equals_uint64 (pageable, n);
    return;
  }
  fail_unless_equals_uint64 (pageable, 0);
  if (app_variants[v].page_locked) {
    fail_unless_equals_uint64 (pinned, n);
  } else if (app_variants[v].recurring) {
    fail_unless_equals_uint64 (staged, APP_SLOTS);
    fail_unless_equals_uint64 (registered, n - APP_SLOTS);
  } else {
    fail_unless_equals_uint64 (staged, n);
  }
}

GST_START_TEST (test_app_ring)
{
  guint32 seed = co_test_seed ("test_app_ring", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];        /* invert */
  gboolean locked = app_variants[__i__].page_locked;
  GstBuffer *recurring[APP_SLOTS] = { NULL, }, *expected[APP_FRAMES];
  guint8 *mem[APP_SLOTS], *block = NULL;
  GstVideoInfo info;
  GstHarness *h;
  gchar *ctx;
  gsize fs;
  guint i, k;

  co_test_print_variant ("test_app_ring", __i__, app_variants[__i__].name);
  if (locked && !g_str_equal (co_test_backend, "cuda")) {
    g_print ("test_app_ring[%d]: the CUDA backend only\n", __i__);
    g_rand_free (rand);
    return;
  }
  ctx = g_strdup_printf ("[GRAY8 640x480, defaults, %u application buffers "
      "(%s), backend=%s seed=0x%08x]", APP_SLOTS, app_variants[__i__].name,
      co_test_backend, seed);
  h = make_harness (op, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 640, 480,
          &info));
  fs = GST_VIDEO_INFO_SIZE (&info);
  memset (app_slots.busy, 0, sizeof (app_slots.busy));
  if (app_variants[__i__].shared_pages)
    block = app_alloc (APP_SHARED_START + APP_SLOTS * (fs + APP_SHARED_GAP),
        FALSE, ctx);
  for (k = 0; k < APP_SLOTS; k++) {
    mem[k] = block ? block + APP_SHARED_START + k * (fs + APP_SHARED_GAP) :
        app_alloc (fs, locked, ctx);
    if (app_variants[__i__].recurring)
      recurring[k] = gst_buffer_new_wrapped_full (0, mem[k], fs, 0, fs, NULL,
          NULL);
  }

  for (i = 0; i < APP_FRAMES; i++) {
    GstBuffer *in;

    k = i % APP_SLOTS;
    fail_unless (app_slot_wait (k, recurring[k]), "%s frame %u: buffer %u "
        "not handed back within %d s: the element holds more than the "
        "application's %u buffers", ctx, i, k, APP_WAIT_S, APP_SLOTS);
    co_test_fill_random (rand, mem[k], fs);
    /* a recurring buffer is writable here: only we hold it */
    in = recurring[k] ? recurring[k] :
        gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, mem[k], fs, 0,
        fs, GUINT_TO_POINTER (k), app_slot_returned);
    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    expected[i] = make_expected (op, in, &info);
    if (recurring[k])
      gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (i = 0; i < APP_FRAMES; i++) {
    GstBuffer *out = co_test_pull_buffer (h, ctx);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    check_output (out, expected[i], &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (expected[i]);
  }
  app_check_stats (h, __i__, ctx);
  teardown_harness (h);
  for (k = 0; k < APP_SLOTS; k++) {
    if (recurring[k]) {
      gst_buffer_unref (recurring[k]);
    } else {
      fail_unless (app_slot_wait (k, NULL));
    }
    if (!block)
      app_free (mem[k], locked);
  }
  if (block)
    app_free (block, FALSE);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* An application ring of a few buffers (page-locked on CUDA,
 * malloc()ed on the CPU backend), a new GstMemory per frame whose destroy
 * notify hands the slot back, downstream holding every output: each
 * frame's input comes back exactly once and every output matches the
 * reference.  On CUDA, with wait-mode=spin, the element drops an input as
 * soon as the device has finished copying it in: frame n's slot is back
 * before frame n's output is pushed, every n, alone or in a batch (both
 * images of a submission come back before either is pushed). */
#define EARLY_MAX_SLOTS 4
#define EARLY_FRAMES 32

static const struct
{
  guint slots;
  guint batch;
} early_variants[] = {
  {2, 1},
  {4, 2},
};

typedef struct
{
  GMutex lock;
  guint slots;
  guint returned[EARLY_FRAMES]; /* destroy notifies of frame i's memory */
  gboolean back_at_push[EARLY_FRAMES];  /* returned when i was pushed */
  guint pushed;
} EarlyLog;

static EarlyLog early_log;

static void
early_slot_returned (gpointer data)
{
  guint i = GPOINTER_TO_UINT (data);

  g_mutex_lock (&early_log.lock);
  early_log.returned[i]++;
  g_mutex_unlock (&early_log.lock);
  app_slot_returned (GUINT_TO_POINTER (i % early_log.slots));
}

/* On the element's source pad: frame i (from its PTS) is being pushed. */
static GstPadProbeReturn
early_pushed (GstPad * pad, GstPadProbeInfo * pinfo, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (pinfo);
  guint i = GST_BUFFER_PTS (buf) / (GST_SECOND / 30);

  g_mutex_lock (&early_log.lock);
  if (i < EARLY_FRAMES)
    early_log.back_at_push[i] = early_log.returned[i] > 0;
  early_log.pushed++;
  g_mutex_unlock (&early_log.lock);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_input_released_early)
{
  guint32 seed = co_test_seed ("test_input_released_early", __i__);
  guint slots = early_variants[__i__].slots;
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];        /* invert */
  gboolean cuda = g_str_equal (co_test_backend, "cuda");
  GstBuffer *expected[EARLY_FRAMES];
  guint8 *mem[EARLY_MAX_SLOTS];
  GstVideoInfo info;
  GstHarness *h;
  GstPad *src;
  gchar *ctx;
  gsize fs;
  guint i, k;

  if (!cuda)
    g_print ("test_input_released_early[%d]: the order (slot back before the "
        "push) is checked on the CUDA backend only; here every input comes "
        "back once and the outputs are checked\n", __i__);
  ctx = g_strdup_printf ("[GRAY8 640x480, wait-mode=spin, %u application "
      "slots (%s), batch=%u, downstream holding, backend=%s seed=0x%08x]",
      slots, cuda ? "page-locked" : "malloc", early_variants[__i__].batch,
      co_test_backend, seed);
  memset (&early_log, 0, sizeof (early_log));
  early_log.slots = slots;
  memset (app_slots.busy, 0, sizeof (app_slots.busy));
  h = make_harness (op, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode", "spin");
  g_object_set (h->element, "batch", early_variants[__i__].batch, NULL);
  src = gst_element_get_static_pad (h->element, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, early_pushed, NULL, NULL);
  gst_object_unref (src);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 640, 480,
          &info));
  fs = GST_VIDEO_INFO_SIZE (&info);
  for (k = 0; k < slots; k++)
    mem[k] = app_alloc (fs, cuda, ctx);

  for (i = 0; i < EARLY_FRAMES; i++) {
    GstBuffer *in;

    k = i % slots;
    fail_unless (app_slot_wait (k, NULL), "%s frame %u: slot %u not handed "
        "back within %d s", ctx, i, k, APP_WAIT_S);
    co_test_fill_random (rand, mem[k], fs);
    in = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, mem[k], fs, 0,
        fs, GUINT_TO_POINTER (i), early_slot_returned);
    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    expected[i] = make_expected (op, in, &info);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (i = 0; i < EARLY_FRAMES; i++) {
    GstBuffer *out = co_test_pull_buffer (h, ctx);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
    check_output (out, expected[i], &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (expected[i]);
  }
  teardown_harness (h);
  for (k = 0; k < slots; k++)
    fail_unless (app_slot_wait (k, NULL));
  fail_unless_equals_int (early_log.pushed, EARLY_FRAMES);
  for (i = 0, k = 0; i < EARLY_FRAMES; i++)
    k += early_log.back_at_push[i];
  g_print ("test_input_released_early[%d]: %u of %u slots back before "
      "their frame was pushed\n", __i__, k, EARLY_FRAMES);
  for (i = 0; i < EARLY_FRAMES; i++) {
    fail_unless_equals_int (early_log.returned[i], 1);
    fail_unless (!cuda || early_log.back_at_push[i], "%s: frame %u's slot "
        "came back only after its output was pushed", ctx, i);
  }
  for (k = 0; k < slots; k++)
    app_free (mem[k], cuda);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_memory_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-memory");
  TCase *tc;

  tc = co_test_new_tcase (s, "layouts", leaks_teardown);
  tcase_add_loop_test (tc, test_padded_input, 0, N_ALL_FORMATS);
  tcase_add_loop_test (tc, test_unaligned_input, 0, N_ALL_FORMATS);
  tcase_add_test (tc, test_upstream_pool);
  tcase_add_test (tc, test_same_buffer_repushed);
  tcase_add_loop_test (tc, test_shared_ring, 0, G_N_ELEMENTS (ring_variants));
  tcase_add_loop_test (tc, test_app_ring, 0, G_N_ELEMENTS (app_variants));
  tcase_add_loop_test (tc, test_input_released_early, 0,
      G_N_ELEMENTS (early_variants));

  tc = co_test_new_tcase (s, "short-buffers", leaks_teardown);
  tcase_add_loop_test (tc, test_short_buffer, 0, G_N_ELEMENTS (short_variants));
  tcase_add_loop_test (tc, test_short_buffer_meta, 0,
      G_N_ELEMENTS (short_meta_variants));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-memory", video_memory_suite);
}
