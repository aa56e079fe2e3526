/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, against the independent reference in
 * co-reference.c.
 *
 * Environment:
 *   CO_TEST_BACKEND  "cpu" (default) or "cuda".  With "cuda" the program
 *                    runs every test in one process (CK_FORK=no: CUDA does
 *                    not survive fork) and exits 77 (skipped) with the reason
 *                    on stderr when no CUDA device is usable.
 *   CO_TEST_SEED     base seed of the random pictures (default 0x5eed2024);
 *                    every failure message prints the seed of its test.
 *   CO_TEST_FULL     "1": the whole streams x chunks matrix at 640x480 too.
 *   CO_TEST_LEAKS    "0": no leak check.  Otherwise, unless GST_TRACERS is
 *                    already set, the leaks tracer is enabled and every test
 *                    fails when GstObjects or GstMiniObjects it created are
 *                    still alive after it.
 *   GST_CHECKS       the usual gst-check glob of test names to run.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define RUNNING_ON_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RUNNING_ON_SANITIZER 1
#endif
#endif
#ifndef RUNNING_ON_SANITIZER
#define RUNNING_ON_SANITIZER 0
#endif
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <cuda_runtime.h>

#include "co-reference.h"
#include "co-test-util.h"
#include "co-test-meta.h"
#include "co-test-fault.h"

#define ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0x5eed2024u

/* ------------------------------------------------------------------------ */
/* Configurations                                                            */
/* ------------------------------------------------------------------------ */

typedef struct
{
  CoRefOp op;
  gdouble gamma;
  guint radius;
} OpCfg;

static const OpCfg op_cfgs[] = {
  {CO_REF_INVERT, 1.0, 0},
  {CO_REF_GAMMA, 0.45, 0},
  {CO_REF_GAMMA, 2.2, 0},
  {CO_REF_GAMMA, 1.0, 0},
  {CO_REF_BOX_BLUR, 1.0, 0},
  {CO_REF_BOX_BLUR, 1.0, 1},
  {CO_REF_BOX_BLUR, 1.0, 2},
  {CO_REF_BOX_BLUR, 1.0, 7},
  {CO_REF_BOX_BLUR, 1.0, 32},
};

#define N_OPS G_N_ELEMENTS (op_cfgs)
#define N_FORMATS 12

typedef struct
{
  guint w, h;
} Size;

static const Size small_sizes[] = {
  {1, 1}, {2, 2}, {7, 3}, {33, 17}, {1, 9}, {5, 1},
};

/* Input layout: 0/0/FALSE = no GstVideoMeta, default strides. */
typedef struct
{
  gint stride_pad;              /* added to every default stride */
  gsize offset0;                /* offset of plane 0 */
  gsize plane_gap;              /* bytes between the end of a plane and the next */
  gsize tail;                   /* bytes after the last plane */
  gboolean meta;
  gboolean tight;               /* strides = visible row bytes (stride_pad unused) */
  gboolean split;               /* several GstMemory: one per plane with meta,
                                 * three arbitrary pieces without */
  gboolean trim;                /* with meta: the buffer ends right after the
                                 * visible bytes of the last plane's last row */
} Layout;

static const Layout layout_default = { 0, 0, 0, 0, FALSE, FALSE, FALSE, FALSE };

/* GstVideoMeta, strides + 64, plane 0 at 128, 64 bytes between planes */
static const Layout layout_padded = { 64, 128, 64, 0, TRUE, FALSE, FALSE,
  FALSE
};

static GstVideoFormat
format_at (guint i)
{
  return co_ref_formats ()[i];
}

static gchar *
op_desc (const OpCfg * op)
{
  switch (op->op) {
    case CO_REF_GAMMA:
      return g_strdup_printf ("gamma gamma=%g", op->gamma);
    case CO_REF_BOX_BLUR:
      return g_strdup_printf ("box-blur radius=%u", op->radius);
    default:
      return g_strdup (co_ref_op_nick (op->op));
  }
}

/* ------------------------------------------------------------------------ */
/* Leak check (leaks tracer activity checkpoints)                            */
/* ------------------------------------------------------------------------ */

/* Harnesses made by the running test.  A failed check leaves the test
 * function at once; the fixture's teardown then tears down what is left, so
 * that a no-fork run (CUDA) goes on with the next test instead of waiting
 * forever for the element's threads in gst_task_cleanup_all(). */
static GList *live_harnesses;

static void teardown_harness (GstHarness * h);

/* For a harness whose element posts on a bus of the test's: tear both
 * down. */
static void
teardown_harness_with_bus (GstHarness * h, GstBus * bus)
{
  gst_element_set_bus (h->element, NULL);
  teardown_harness (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

static void
teardown_harness (GstHarness * h)
{
  live_harnesses = g_list_remove (live_harnesses, h);
  gst_harness_teardown (h);
}

static guint
teardown_leftovers (void)
{
  guint n = 0;

  while (live_harnesses) {
    GstHarness *h = live_harnesses->data;
    live_harnesses = g_list_remove (live_harnesses, h);
    gst_element_set_state (h->element, GST_STATE_NULL);
    gst_harness_teardown (h);
    n++;
  }
  return n;
}

static void
leaks_teardown (void)
{
  if (teardown_leftovers () > 0) {
    /* the test failed half-way: what it held is not a leak to report */
    co_test_leaks_stop ();
    return;
  }
  co_test_leaks_check (TRUE);
}

/* ------------------------------------------------------------------------ */
/* Pictures                                                                  */
/* ------------------------------------------------------------------------ */


/* A fresh input picture with random content everywhere (padding too). */
static GstBuffer *
make_input (GRand * rand, const GstVideoInfo * info, const Layout * lay)
{
  const CoRefFormat *f = co_ref_format (GST_VIDEO_INFO_FORMAT (info));
  GstBuffer *buf;
  GstMapInfo map;
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0, };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0, };
  gsize size;
  guint p;

  if (!lay->meta) {
    size = GST_VIDEO_INFO_SIZE (info);
  } else {
    gsize pos = lay->offset0;
    for (p = 0; p < f->n_planes; p++) {
      guint pw, ph;
      co_ref_plane_size (f, p, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), &pw, &ph);
      if (lay->tight)
        stride[p] = co_ref_plane_row_bytes (f, p, GST_VIDEO_INFO_WIDTH (info));
      else
        stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p) + lay->stride_pad;
      offset[p] = pos;
      pos += (gsize) stride[p] * ph + lay->plane_gap;
    }
    size = pos + lay->tail;
    if (lay->trim) {
      guint last = f->n_planes - 1, pw, ph;
      co_ref_plane_size (f, last, GST_VIDEO_INFO_WIDTH (info),
          GST_VIDEO_INFO_HEIGHT (info), &pw, &ph);
      size = offset[last] + (gsize) stride[last] * (ph - 1) +
          co_ref_plane_row_bytes (f, last, GST_VIDEO_INFO_WIDTH (info));
    }
  }

  if (!lay->split) {
    GstAllocationParams params;

    /* Frames of a megabyte or more start and end on their own pages, as a
     * page-aligned application ring would: on CUDA they are page-locked in
     * place, and one frame's registration never takes a page of its
     * neighbour's (frames that do share pages are staged, safely: that
     * case is test_shared_ring's). */
    gst_allocation_params_init (&params);
    if (size >= (1 << 20)) {
      params.align = 4095;
      params.padding = (4096 - size % 4096) % 4096;
    }
    buf = gst_buffer_new_allocate (NULL, size, &params);
    fail_unless (buf != NULL);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    co_test_fill_random (rand, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  } else {
    /* memory boundaries: with a meta at the planes (a plane must lie in one
     * memory for gst_video_meta_map), else anywhere */
    gsize cut[GST_VIDEO_MAX_PLANES + 2];
    guint n_cut = 0, i;

    cut[n_cut++] = 0;
    if (lay->meta) {
      for (p = 1; p < f->n_planes; p++)
        cut[n_cut++] = offset[p];
    } else {
      cut[n_cut++] = size / 3 + 1;
      cut[n_cut++] = 2 * size / 3 + 3;
    }
    cut[n_cut] = size;
    buf = gst_buffer_new ();
    for (i = 0; i < n_cut; i++) {
      gsize len = cut[i + 1] > cut[i] ? cut[i + 1] - cut[i] : 0;
      GstMemory *mem;
      if (len == 0)
        continue;
      mem = gst_allocator_alloc (NULL, len, NULL);
      fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
      co_test_fill_random (rand, map.data, map.size);
      gst_memory_unmap (mem, &map);
      gst_buffer_append_memory (buf, mem);
    }
    fail_unless_equals_uint64 (gst_buffer_get_size (buf), size);
  }

  if (lay->meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), f->n_planes, offset, stride);
  return buf;
}

/* The reference's output for @in, in a default-layout buffer. */
static GstBuffer *
make_expected (const OpCfg * op, GstBuffer * in, const GstVideoInfo * info)
{
  GstVideoFrame fin, fout;
  GstBuffer *exp = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);

  fail_unless (gst_video_frame_map (&fin, info, in, GST_MAP_READ),
      "cannot map the input picture");
  fail_unless (gst_video_frame_map (&fout, info, exp, GST_MAP_WRITE));
  co_ref_apply (op->op, op->gamma, op->radius, &fin, &fout);
  gst_video_frame_unmap (&fout);
  gst_video_frame_unmap (&fin);
  GST_BUFFER_PTS (exp) = GST_BUFFER_PTS (in);
  return exp;
}

static gchar *
describe_buffer (GstBuffer * buf)
{
  GstVideoMeta *m = gst_buffer_get_video_meta (buf);

  if (!m)
    return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, no GstVideoMeta",
        gst_buffer_get_size (buf));
  return g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, GstVideoMeta %s %ux%u "
      "planes %u offsets %" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT ",%"
      G_GSIZE_FORMAT " strides %d,%d,%d", gst_buffer_get_size (buf),
      gst_video_format_to_string (m->format), m->width, m->height,
      m->n_planes, m->offset[0], m->offset[1], m->offset[2], m->stride[0],
      m->stride[1], m->stride[2]);
}

/* Compares @out with @exp; fails with @ctx and where they differ. */
static void
check_output (GstBuffer * out, GstBuffer * exp, const GstVideoInfo * info,
    const gchar * ctx)
{
  GstVideoFrame fexp, fout;
  gchar *msg = NULL;
  gboolean same;

  if (!gst_video_frame_map (&fout, info, out, GST_MAP_READ)) {
    gchar *d = describe_buffer (out);
    fail ("%s: cannot map the output buffer as %s %dx%d (needs %"
        G_GSIZE_FORMAT " bytes): %s", ctx,
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_SIZE (info), d);
    g_free (d);
    return;
  }
  fail_unless (gst_video_frame_map (&fexp, info, exp, GST_MAP_READ));
  same = co_ref_compare (&fexp, &fout, &msg);
  gst_video_frame_unmap (&fexp);
  gst_video_frame_unmap (&fout);
  fail_unless (same, "%s: output differs from the reference: %s", ctx, msg);
  g_free (msg);
}

/* ------------------------------------------------------------------------ */
/* Harness                                                                   */
/* ------------------------------------------------------------------------ */

static GstElement *
make_element (const OpCfg * op, const RunCfg * run)
{
  GstElement *e = co_test_make_element (ELEMENT);

  if (op) {
    gst_util_set_object_arg (G_OBJECT (e), "operation",
        co_ref_op_nick (op->op));
    if (op->op == CO_REF_GAMMA)
      g_object_set (e, "gamma", op->gamma, NULL);
    if (op->op == CO_REF_BOX_BLUR)
      g_object_set (e, "radius", op->radius, NULL);
  }
  if (run)
    co_test_set_run (e, run);
  return e;
}

static GstHarness *
make_harness (const OpCfg * op, const RunCfg * run)
{
  GstElement *e = make_element (op, run);
  GstHarness *h = gst_harness_new_with_element (e, "sink", "src");

  gst_object_unref (e);
  live_harnesses = g_list_prepend (live_harnesses, h);
  return h;
}

static GstCaps *
caps_of (GstVideoFormat format, guint w, guint h, GstVideoInfo * info)
{
  gst_video_info_init (info);
  fail_unless (gst_video_info_set_format (info, format, w, h));
  GST_VIDEO_INFO_FPS_N (info) = 30;
  GST_VIDEO_INFO_FPS_D (info) = 1;
  return gst_video_info_to_caps (info);
}

/* A run of 2 x batch + 1 frames: op index, format, size, batch, run config,
 * input layout (layout_padded or layout_default), submit thread. */
typedef struct
{
  guint op;
  GstVideoFormat format;
  guint w, h, batch, run;
  gboolean padded, submit_thread;
} BatchCase;

static void
check_output_caps (GstHarness * h, const GstVideoInfo * info, const gchar * ctx)
{
  GstCaps *want = gst_video_info_to_caps (info);
  GstCaps *got = gst_pad_get_current_caps (h->sinkpad);
  gchar *ws = gst_caps_to_string (want), *gs = got ? gst_caps_to_string (got)
      : g_strdup ("(none)");

  fail_unless (got && gst_caps_is_equal (want, got),
      "%s: output caps are %s, input caps were %s", ctx, gs, ws);
  g_free (ws);
  g_free (gs);
  gst_caps_unref (want);
  if (got)
    gst_caps_unref (got);
}

/* Pushes a new random picture; queues its expected output (with its PTS). */
static void
push_frame (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, const Layout * lay, GstClockTime pts, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *in = make_input (rand, info, lay);
  GstBuffer *exp = make_expected (op, in, info);
  GstFlowReturn ret;

  GST_BUFFER_PTS (in) = pts;
  GST_BUFFER_DURATION (in) = GST_SECOND / 30;
  GST_BUFFER_PTS (exp) = pts;
  g_queue_push_tail (pending, exp);
  ret = gst_harness_push (h, in);
  fail_unless (ret == GST_FLOW_OK, "%s: push (pts %" GST_TIME_FORMAT
      ") returned %s", ctx, GST_TIME_ARGS (pts), gst_flow_get_name (ret));
}

static void
pull_and_check (GstHarness * h, const GstVideoInfo * info, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *exp = g_queue_pop_head (pending);
  GstBuffer *out;
  gchar *c;

  fail_unless (exp != NULL);
  c = g_strdup_printf ("%s, frame pts %" GST_TIME_FORMAT, ctx,
      GST_TIME_ARGS (GST_BUFFER_PTS (exp)));
  out = co_test_pull_buffer (h, c);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
  check_output (out, exp, info, c);
  gst_buffer_unref (out);
  gst_buffer_unref (exp);
  g_free (c);
}

/* One configuration: a harness, @n_frames pictures pushed all at once then
 * pulled (or one by one when @interleave), every output compared. */
static void
run_config (const OpCfg * op, const RunCfg * run, GstVideoFormat format,
    guint w, guint hgt, const Layout * lay, guint n_frames,
    gboolean interleave, GRand * rand, guint32 seed)
{
  GstVideoInfo info;
  GstHarness *h;
  GQueue pending = G_QUEUE_INIT;
  gchar *od = op_desc (op), *rd = co_test_run_desc (run), *ld, *ctx;
  guint i;

  if (lay->meta && lay->tight)
    ld = g_strdup_printf (" input: GstVideoMeta, tight strides%s",
        lay->split ? ", one memory per plane" : "");
  else if (lay->meta)
    ld = g_strdup_printf (" input: GstVideoMeta, strides +%d, plane 0 at %"
        G_GSIZE_FORMAT ", gaps %" G_GSIZE_FORMAT ", tail %" G_GSIZE_FORMAT
        "%s%s", lay->stride_pad, lay->offset0, lay->plane_gap, lay->tail,
        lay->split ? ", one memory per plane" : "",
        lay->trim ? ", buffer ends after the last visible byte" : "");
  else
    ld = g_strdup (lay->split ? " input: three memories" : "");
  ctx = g_strdup_printf ("[%s %s %ux%u %s backend=%s%s%s seed=0x%08x]", od,
      gst_video_format_to_string (format), w, hgt, rd, co_test_backend, ld,
      interleave ? " interleaved" : "", seed);
  g_free (ld);
  h = make_harness (op, run);
  gst_harness_set_src_caps (h, caps_of (format, w, hgt, &info));

  for (i = 0; i < n_frames; i++) {
    push_frame (h, rand, &info, op, lay, i * GST_SECOND / 30, &pending, ctx);
    if (interleave)
      pull_and_check (h, &info, &pending, ctx);
  }
  while (!g_queue_is_empty (&pending))
    pull_and_check (h, &info, &pending, ctx);
  check_output_caps (h, &info, ctx);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  teardown_harness (h);
  g_free (ctx);
  g_free (od);
  g_free (rd);
}

/* ------------------------------------------------------------------------ */
/* Self-checks of the reference                                              */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_reference_table)
{
  const GstVideoFormat *fmts = co_ref_formats ();
  guint i, n = 0;

  /* The hand-written table against GstVideoFormatInfo: a mistake in the
   * table (which byte is a colour) would hide element bugs. */
  for (i = 0; fmts[i] != GST_VIDEO_FORMAT_UNKNOWN; i++, n++) {
    const GstVideoFormatInfo *fi = gst_video_format_get_info (fmts[i]);
    const CoRefFormat *f = co_ref_format (fmts[i]);
    guint c, p, n_colour_total = 0;
    gboolean alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (fi);

    fail_unless (f != NULL);
    fail_unless_equals_int (f->n_planes, GST_VIDEO_FORMAT_INFO_N_PLANES (fi));
    for (p = 0; p < f->n_planes; p++)
      n_colour_total += f->n_colour[p];
    /* colour components = all components but alpha */
    fail_unless_equals_int (n_colour_total,
        GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi) - (alpha ? 1 : 0));
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
      guint plane = GST_VIDEO_FORMAT_INFO_PLANE (fi, c);
      guint off = GST_VIDEO_FORMAT_INFO_POFFSET (fi, c);
      guint k;
      gboolean listed = FALSE;

      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c),
          f->pstride[plane]);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_DEPTH (fi, c),
          8 * f->bytes_per_sample);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_W_SUB (fi, c),
          f->sub_shift[plane]);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_H_SUB (fi, c),
          f->sub_shift[plane]);
      for (k = 0; k < f->n_colour[plane]; k++)
        if (f->colour_offset[plane][k] == off)
          listed = TRUE;
      if (alpha && c == GST_VIDEO_COMP_A)
        fail_if (listed, "%s: alpha listed as colour",
            gst_video_format_to_string (fmts[i]));
      else
        fail_unless (listed, "%s: component %u (byte %u) not a colour",
            gst_video_format_to_string (fmts[i]), c, off);
    }
    /* gamma on luma only for YUV; every colour for RGB and GRAY */
    if (GST_VIDEO_FORMAT_INFO_IS_YUV (fi)) {
      fail_unless (f->gamma_plane[0]);
      for (p = 1; p < f->n_planes; p++)
        fail_if (f->gamma_plane[p]);
    } else {
      fail_unless (f->gamma_plane[0]);
    }
    fail_unless_equals_int (f->max, (1u << (8 * f->bytes_per_sample)) - 1);
    if (fmts[i] == GST_VIDEO_FORMAT_GRAY16_LE)
      fail_unless (GST_VIDEO_FORMAT_INFO_IS_LE (fi));
  }
  fail_unless_equals_int (n, N_FORMATS);
}

GST_END_TEST;

GST_START_TEST (test_reference_known_values)
{
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  guint16 table8[256];
  guint16 *table16 = g_new (guint16, 65536);
  guint8 *p;

  /* gamma tables, by hand */
  co_ref_gamma_table (1.0, 255, table8);
  for (guint i = 0; i < 256; i++)
    fail_unless_equals_int (table8[i], i);
  co_ref_gamma_table (2.0, 255, table8);
  /* 255 * sqrt (64 / 255) = 127.75 -> 128; sqrt (1/255)*255 = 15.97 -> 16 */
  fail_unless_equals_int (table8[0], 0);
  fail_unless_equals_int (table8[1], 16);
  fail_unless_equals_int (table8[64], 128);
  fail_unless_equals_int (table8[255], 255);
  co_ref_gamma_table (0.5, 255, table8);
  /* 255 * (128/255)^2 = 64.25 -> 64 */
  fail_unless_equals_int (table8[128], 64);
  co_ref_gamma_table (2.2, 65535, table16);
  fail_unless_equals_int (table16[65535], 65535);
  fail_unless_equals_int (table16[0], 0);
  g_free (table16);

  /* box blur r=1 on a 3x1 GRAY8 picture 0, 90, 255:
   * x=0: window (0,0,90) x3 rows = 270, n=9 -> (270+4)/9 = 30
   * x=1: (0+90+255)*3 = 1035 -> (1035+4)/9 = 115
   * x=2: (90+255+255)*3 = 1800 -> 200 */
  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 3, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  p = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  p[0] = 0;
  p[1] = 90;
  p[2] = 255;
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  co_ref_apply (CO_REF_BOX_BLUR, 1.0, 1, &fi, &fo);
  p = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  fail_unless_equals_int (p[0], 30);
  fail_unless_equals_int (p[1], 115);
  fail_unless_equals_int (p[2], 200);
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  fail_unless_equals_int (p[0], 255);
  fail_unless_equals_int (p[1], 165);
  fail_unless_equals_int (p[2], 0);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);

  /* ARGB: alpha (byte 0) kept, colours inverted; GRAY16_LE invert */
  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_ARGB, 1, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  p = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  p[0] = 7;
  p[1] = 10;
  p[2] = 20;
  p[3] = 30;
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  p = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  fail_unless_equals_int (p[0], 7);
  fail_unless_equals_int (p[1], 245);
  fail_unless_equals_int (p[2], 235);
  fail_unless_equals_int (p[3], 225);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE,
          1, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  p = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  p[0] = 0x34;                  /* 0x1234 little endian */
  p[1] = 0x12;
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  p = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  fail_unless_equals_int (p[0] | (p[1] << 8), 0xffff - 0x1234);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

GST_END_TEST;

GST_START_TEST (test_reference_blur_ways_agree)
{
  guint32 seed = co_test_seed ("test_reference_blur_ways_agree", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  static const guint radii[] = { 0, 1, 2, 5, 32 };
  guint i, k;

  for (i = 0; i < 40; i++) {
    guint w = g_rand_int_range (rand, 1, 40);
    guint h = g_rand_int_range (rand, 1, 30);
    guint bps = (i & 1) ? 2 : 1, ps = bps * ((i & 2) ? 2 : 1);
    gint stride = w * ps + (i % 5);
    gsize size = (gsize) stride * h;
    guint8 *src = g_malloc (size), *a = g_malloc0 (size), *b = g_malloc0 (size);

    co_test_fill_random (rand, src, size);
    for (k = 0; k < G_N_ELEMENTS (radii); k++) {
      guint off = (ps > bps) ? bps : 0;
      guint y;
      co_ref_blur_plane_naive (src, stride, a, stride, w, h, ps, off, bps,
          radii[k]);
      co_ref_blur_plane_separable (src, stride, b, stride, w, h, ps, off,
          bps, radii[k]);
      for (y = 0; y < h; y++)
        fail_unless (memcmp (a + (gsize) y * stride, b + (gsize) y * stride,
                w * ps) == 0, "naive and separable blur differ: %ux%u r=%u "
            "bps=%u pstride=%u seed=0x%08x", w, h, radii[k], bps, ps, seed);
    }
    g_free (src);
    g_free (a);
    g_free (b);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Properties                                                                */
/* ------------------------------------------------------------------------ */

/* Enum property @name has these values, and @def (if not NULL) by default. */
static void
check_enum_nicks (GObjectClass * k, const gchar * name,
    const gchar * const *nicks, const gchar * def)
{
  GParamSpec *ps = g_object_class_find_property (k, name);
  GEnumClass *ec;
  guint i;

  fail_unless (ps != NULL, "no property %s", name);
  fail_unless (G_IS_PARAM_SPEC_ENUM (ps), "%s is not an enum", name);
  ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  for (i = 0; nicks[i]; i++)
    fail_unless (g_enum_get_value_by_nick (ec, nicks[i]) != NULL,
        "property %s has no value '%s'", name, nicks[i]);
  if (def)
    fail_unless_equals_string (g_enum_get_value (ec,
            G_PARAM_SPEC_ENUM (ps)->default_value)->value_nick, def);
}

GST_START_TEST (test_properties)
{
  GstElement *e = make_element (NULL, NULL);
  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  GParamSpec *ps;
  static const gchar *ops[] = { "invert", "gamma", "box-blur", NULL };
  static const gchar *modes[] = { "overlap", "serial", NULL };
  static const gchar *backends[] = { "auto", "cuda", "cpu", NULL };
  static const gchar *waits[] = { "blocking", "spin", "auto", NULL };
  gdouble g;
  guint u, s, c;
  gint d;

  check_enum_nicks (k, "operation", ops, NULL);

  ps = g_object_class_find_property (k, "gamma");
  fail_unless (ps && G_IS_PARAM_SPEC_DOUBLE (ps));
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->minimum == 0.01);
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->maximum == 10.0);
  fail_unless (G_PARAM_SPEC_DOUBLE (ps)->default_value == 1.0);

  ps = g_object_class_find_property (k, "radius");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 32);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 2);

  /* 0: automatic, the default */
  ps = g_object_class_find_property (k, "streams");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 32);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  ps = g_object_class_find_property (k, "chunks");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 64);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  check_enum_nicks (k, "mode", modes, "overlap");

  check_enum_nicks (k, "backend", backends, "auto");

  ps = g_object_class_find_property (k, "max-in-flight");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 64);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  check_enum_nicks (k, "wait-mode", waits, "auto");

  ps = g_object_class_find_property (k, "batch");
  fail_unless (ps && G_IS_PARAM_SPEC_UINT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->minimum, 0);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->maximum, 16);
  fail_unless_equals_int (G_PARAM_SPEC_UINT (ps)->default_value, 0);

  ps = g_object_class_find_property (k, "submit-thread");
  fail_unless (ps && G_IS_PARAM_SPEC_BOOLEAN (ps));
  fail_unless (!G_PARAM_SPEC_BOOLEAN (ps)->default_value);

  ps = g_object_class_find_property (k, "cuda-device-id");
  fail_unless (ps && G_IS_PARAM_SPEC_INT (ps));
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->minimum, -1);
  fail_unless_equals_int (G_PARAM_SPEC_INT (ps)->default_value, -1);

  /* values round-trip */
  g_object_set (e, "gamma", 2.2, "radius", 32, "streams", 32, "chunks", 64,
      "cuda-device-id", 0, NULL);
  g_object_get (e, "gamma", &g, "radius", &u, "streams", &s, "chunks", &c,
      "cuda-device-id", &d, NULL);
  fail_unless (g == 2.2);
  fail_unless_equals_int (u, 32);
  fail_unless_equals_int (s, 32);
  fail_unless_equals_int (c, 64);
  fail_unless_equals_int (d, 0);
  g_object_set (e, "streams", 1, "chunks", 1, "radius", 0, "gamma", 0.01, NULL);
  g_object_get (e, "gamma", &g, "radius", &u, "streams", &s, "chunks", &c,
      NULL);
  fail_unless (g == 0.01);
  fail_unless_equals_int (u, 0);
  fail_unless_equals_int (s, 1);
  fail_unless_equals_int (c, 1);
  {
    gst_util_set_object_arg (G_OBJECT (e), "operation", "box-blur");
    gst_util_set_object_arg (G_OBJECT (e), "mode", "serial");
    g_object_get (e, "operation", &d, NULL);
    fail_unless_equals_int (d, g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
            (g_object_class_find_property (k, "operation"))->enum_class,
            "box-blur")->value);
    g_object_get (e, "mode", &d, NULL);
    fail_unless_equals_int (d, g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM
            (g_object_class_find_property (k, "mode"))->enum_class,
            "serial")->value);
  }

  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Correctness                                                               */
/* ------------------------------------------------------------------------ */

/* loop index: op * N_FORMATS + format; every small size x every setting */
GST_START_TEST (test_correctness_small)
{
  const OpCfg *op = &op_cfgs[__i__ / N_FORMATS];
  GstVideoFormat format = format_at (__i__ % N_FORMATS);
  guint32 seed = co_test_seed ("test_correctness_small", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint s, r;

  /* half of them pulled after every push, half pushed all then pulled */
  for (s = 0; s < G_N_ELEMENTS (small_sizes); s++)
    for (r = 0; r < CO_TEST_N_RUNS; r++)
      run_config (op, &co_test_run_cfgs[r], format, small_sizes[s].w,
          small_sizes[s].h, &layout_default, 3, (s + r) % 2 == 1, rand, seed);
  g_rand_free (rand);
}

GST_END_TEST;

/* 640x480: two settings per (op, format), rotating so that every format
 * sees every setting and every setting every format; all of them with
 * CO_TEST_FULL=1. */
GST_START_TEST (test_correctness_vga)
{
  const OpCfg *op = &op_cfgs[__i__ / N_FORMATS];
  GstVideoFormat format = format_at (__i__ % N_FORMATS);
  guint32 seed = co_test_seed ("test_correctness_vga", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint r;

  if (co_test_full_matrix) {
    for (r = 0; r < CO_TEST_N_RUNS; r++)
      run_config (op, &co_test_run_cfgs[r], format, 640, 480, &layout_default,
          3, FALSE, rand, seed);
  } else {
    run_config (op, &co_test_run_cfgs[__i__ % CO_TEST_N_RUNS], format, 640, 480,
        &layout_default, 3, FALSE, rand, seed);
    run_config (op, &co_test_run_cfgs[(__i__ + 3) % CO_TEST_N_RUNS], format,
        640, 480, &layout_default, 2, TRUE, rand, seed);
  }
  g_rand_free (rand);
}

GST_END_TEST;

typedef struct
{
  GstVideoFormat format;
  guint op;                     /* index in op_cfgs */
  guint run;                    /* index in co_test_run_cfgs */
} BigCase;

static const BigCase big_cases[] = {
  {GST_VIDEO_FORMAT_RGBA, 0, 3},        /* invert, 3 streams 5 chunks */
  {GST_VIDEO_FORMAT_NV12, 2, 5},        /* gamma 2.2, 8 x 5 */
  {GST_VIDEO_FORMAT_I420, 6, 3},        /* box-blur r=2, 3 x 5 */
  {GST_VIDEO_FORMAT_GRAY16_LE, 1, 1},   /* gamma 0.45, 1 x 5 */
  {GST_VIDEO_FORMAT_xBGR, 8, 5},        /* box-blur r=32, 8 x 5 */
  {GST_VIDEO_FORMAT_GRAY8, 7, 6},       /* box-blur r=7, serial */
  {GST_VIDEO_FORMAT_NV12, 5, 4},        /* box-blur r=1, 8 x 1 */
  {GST_VIDEO_FORMAT_ARGB, 0, 6},        /* invert, serial */
  {GST_VIDEO_FORMAT_GRAY16_LE, 8, 3},   /* box-blur r=32, 3 x 5 */
  {GST_VIDEO_FORMAT_NV12, 8, 1},        /* box-blur r=32, 1 x 5 */
  {GST_VIDEO_FORMAT_I420, 0, 6},        /* invert, serial */
  {GST_VIDEO_FORMAT_BGRA, 3, 0},        /* gamma 1.0, 1 x 1 */
  {GST_VIDEO_FORMAT_RGBx, 7, 2},        /* box-blur r=7, 3 x 1 */
  {GST_VIDEO_FORMAT_GRAY16_LE, 2, 4},   /* gamma 2.2, 8 x 1 */
};

GST_START_TEST (test_correctness_big)
{
  const BigCase *bc = &big_cases[__i__];
  guint32 seed = co_test_seed ("test_correctness_big", __i__);
  GRand *rand = g_rand_new_with_seed (seed);

  run_config (&op_cfgs[bc->op], &co_test_run_cfgs[bc->run], bc->format, 1921,
      1081, &layout_default, 2, FALSE, rand, seed);
  g_rand_free (rand);
}

GST_END_TEST;

/* The extremes of streams and chunks, on tiny and on tall pictures. */
GST_START_TEST (test_extreme_settings)
{
  static const RunCfg runs[] = {
    {32, 64, FALSE}, {1, 64, FALSE}, {32, 1, FALSE}, {2, 64, FALSE},
  };
  static const Size sizes[] = { {1, 1}, {2, 2}, {7, 3}, {33, 17}, {130, 129},
  {3, 300}
  };
  static const guint ops[] = { 0, 1, 8 };
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_GRAY16_LE,
  };
  const RunCfg *run = &runs[__i__];
  guint32 seed = co_test_seed ("test_extreme_settings", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint s, o, f;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (o = 0; o < G_N_ELEMENTS (ops); o++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++)
        run_config (&op_cfgs[ops[o]], run, fmts[f], sizes[s].w, sizes[s].h,
            &layout_default, 2, FALSE, rand, seed);
  g_rand_free (rand);
}

GST_END_TEST;

/* Input with GstVideoMeta: strides +64 (and odd: +3), nonzero plane
 * offsets, gaps between planes; odd sizes.  Loop index: format. */
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
  gboolean wide = format == GST_VIDEO_FORMAT_GRAY16_LE;
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

/* ------------------------------------------------------------------------ */
/* Metadata                                                                  */
/* ------------------------------------------------------------------------ */

GST_START_TEST (test_timestamps_flags)
{
  guint32 seed = co_test_seed ("test_timestamps_flags", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[5]);
  GQueue pending = G_QUEUE_INIT;
  gchar *ctx = g_strdup_printf ("[timestamps RGBx 17x9 backend=%s "
      "seed=0x%08x]", co_test_backend, seed);
  guint i;
  const guint n = 6;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBx, 17, 9, &info));
  for (i = 0; i < n; i++) {
    GstBuffer *in = make_input (rand, &info, &layout_default);
    GstBuffer *exp = make_expected (op, in, &info);

    GST_BUFFER_PTS (in) = GST_BUFFER_PTS (exp) = 1000 * GST_MSECOND +
        i * 33 * GST_MSECOND;
    GST_BUFFER_DTS (in) = GST_BUFFER_DTS (exp) = i == 3 ?
        GST_CLOCK_TIME_NONE : (GstClockTime) (990 * GST_MSECOND +
        i * 33 * GST_MSECOND);
    GST_BUFFER_DURATION (in) = GST_BUFFER_DURATION (exp) =
        (i == 4) ? GST_CLOCK_TIME_NONE : (GstClockTime) (33 * GST_MSECOND + i);
    if (i == 0)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
    if (i == 2)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_MARKER);
    if (i == 5)
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT |
          GST_BUFFER_FLAG_DELTA_UNIT);
    GST_MINI_OBJECT_FLAGS (exp) = GST_MINI_OBJECT_FLAGS (in);
    g_queue_push_tail (&pending, exp);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  for (i = 0; i < n; i++) {
    GstBuffer *exp = g_queue_pop_head (&pending);
    GstBuffer *out = co_test_pull_buffer (h, ctx);
    const GstBufferFlags want = GST_BUFFER_FLAG_DISCONT |
        GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_DELTA_UNIT;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
    fail_unless_equals_uint64 (GST_BUFFER_DTS (out), GST_BUFFER_DTS (exp));
    fail_unless_equals_uint64 (GST_BUFFER_DURATION (out),
        GST_BUFFER_DURATION (exp));
    fail_unless_equals_int (GST_BUFFER_FLAGS (out) & want,
        GST_BUFFER_FLAGS (exp) & want);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (exp);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Metas: every meta without tags, or tagged only video/orientation/size,
 * reaches the output of its own input; the input's GstVideoMeta, metas
 * bound to its memory and metas tagged otherwise do not (co-test-meta.h
 * has the ones both elements share). */
#define GEOMETRY_META "CoTestGeometryMeta"
#define COLOUR_META "CoTestColourMeta"

static void
register_video_metas (void)
{
  static const gchar *geometry[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, NULL
  };
  static const gchar *colour[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_COLORSPACE_STR, NULL
  };

  co_test_custom_meta (GEOMETRY_META, geometry);
  co_test_custom_meta (COLOUR_META, colour);
}

/* Input @index's caption bytes (CEA-708 triplets) */
static gsize
caption_of (guint64 index, guint8 * cc)
{
  gsize i, n = 3 * (1 + index % 5);

  for (i = 0; i < n; i++)
    cc[i] = (guint8) (0xfc ^ (index * 7 + i));
  return n;
}

/* Input @index's rectangle (ROI, crop), inside the picture */
static void
rect_of (const GstVideoInfo * info, guint64 index, guint r[4])
{
  r[0] = index % GST_VIDEO_INFO_WIDTH (info);
  r[1] = (index * 3) % GST_VIDEO_INFO_HEIGHT (info);
  r[2] = GST_VIDEO_INFO_WIDTH (info) - r[0];
  r[3] = GST_VIDEO_INFO_HEIGHT (info) - r[1];
}

static void
add_video_metas (GstBuffer * buf, const GstVideoInfo * info, guint64 index)
{
  GstVideoRegionOfInterestMeta *roi;
  GstVideoCropMeta *crop;
  guint8 cc[16];
  guint r[4];

  register_video_metas ();
  co_test_add_common_metas (buf, index);
  gst_buffer_add_video_caption_meta (buf, GST_VIDEO_CAPTION_TYPE_CEA708_RAW,
      cc, caption_of (index, cc));
  gst_buffer_add_video_time_code_meta_full (buf, 30, 1, NULL,
      GST_VIDEO_TIME_CODE_FLAGS_NONE, 10, index / 1800 % 60, index / 30 % 60,
      index % 30, 0);
  rect_of (info, index, r);
  roi = gst_buffer_add_video_region_of_interest_meta (buf, "face", r[0], r[1],
      r[2], r[3]);
  roi->id = (gint) index;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new ("detection", "index", G_TYPE_UINT64, index, NULL));
  crop = gst_buffer_add_video_crop_meta (buf);
  crop->x = r[0];
  crop->y = r[1];
  crop->width = r[2];
  crop->height = r[3];
  gst_buffer_add_video_affine_transformation_meta (buf)->matrix[12] =
      (gfloat) index;
  co_test_add_custom_meta (buf, GEOMETRY_META, index);
  co_test_add_custom_meta (buf, COLOUR_META, index);
}

/* @out came from an input with add_video_metas (@index), or, @index
 * negative, with none: what must be on it, and its GstVideoMeta describes
 * it (check_output maps it through that meta). */
static void
check_video_metas (GstBuffer * out, const GstVideoInfo * info, gint64 index,
    const gchar * ctx)
{
  const guint has = index >= 0;
  GstVideoCaptionMeta *cc = gst_buffer_get_video_caption_meta (out);
  GstVideoTimeCodeMeta *tc = gst_buffer_get_video_time_code_meta (out);
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_get_video_region_of_interest_meta (out);
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (out);
  GstVideoAffineTransformationMeta *affine =
      gst_buffer_get_video_affine_transformation_meta (out);
  GstVideoMeta *vm = gst_buffer_get_video_meta (out);
  guint8 want_cc[16];
  guint64 got = 0;
  guint r[4], p;

  register_video_metas ();
  co_test_check_common_metas (out, index, ctx);
  co_test_check_meta_count (out, GST_VIDEO_CAPTION_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_TIME_CODE_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE,
      has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_CROP_META_API_TYPE, has, ctx);
  co_test_check_meta_count (out, GST_VIDEO_AFFINE_TRANSFORMATION_META_API_TYPE,
      has, ctx);
  co_test_check_custom_meta (out, GEOMETRY_META, index, ctx);
  co_test_check_custom_meta (out, COLOUR_META, -1, ctx);
  co_test_check_own_meta (out, GST_VIDEO_META_API_TYPE, ctx);
  for (p = 0; vm && p < vm->n_planes; p++)
    fail_unless (vm->stride[p] == GST_VIDEO_INFO_PLANE_STRIDE (info, p)
        && vm->offset[p] == GST_VIDEO_INFO_PLANE_OFFSET (info, p),
        "%s: the output's GstVideoMeta has plane %u at %" G_GSIZE_FORMAT
        " stride %d, not its own layout", ctx, p, vm->offset[p], vm->stride[p]);
  if (!has)
    return;

  fail_unless (cc->caption_type == GST_VIDEO_CAPTION_TYPE_CEA708_RAW
      && cc->size == caption_of (index, want_cc)
      && memcmp (cc->data, want_cc, cc->size) == 0,
      "%s: the captions of input %" G_GINT64_FORMAT " changed", ctx, index);
  fail_unless (gst_video_time_code_frames_since_daily_jam (&tc->tc) ==
      10 * 108000 + (guint64) index && tc->tc.config.fps_n == 30,
      "%s: timecode %02u:%02u:%02u:%02u on the output of input %"
      G_GINT64_FORMAT, ctx, tc->tc.hours, tc->tc.minutes, tc->tc.seconds,
      tc->tc.frames, index);
  rect_of (info, index, r);
  fail_unless (g_str_equal (g_quark_to_string (roi->roi_type), "face")
      && roi->x == r[0] && roi->y == r[1] && roi->w == r[2] && roi->h == r[3]
      && roi->id == (gint) index, "%s: ROI %s %u,%u %ux%u id %d on the "
      "output of input %" G_GINT64_FORMAT, ctx,
      g_quark_to_string (roi->roi_type), roi->x, roi->y, roi->w, roi->h,
      roi->id, index);
  fail_unless (gst_structure_get_uint64
      (gst_video_region_of_interest_meta_get_param (roi, "detection"),
          "index", &got) && got == (guint64) index,
      "%s: the ROI lost its parameters", ctx);
  fail_unless (crop->x == r[0] && crop->y == r[1] && crop->width == r[2]
      && crop->height == r[3], "%s: crop %u,%u %ux%u on the output of "
      "input %" G_GINT64_FORMAT, ctx, crop->x, crop->y, crop->width,
      crop->height, index);
  fail_unless (affine->matrix[12] == (gfloat) index, "%s: the affine "
      "transformation of another input", ctx);
}

/* Pushes a random picture (input @index: PTS @index frames), with the
 * metas of add_video_metas() when @metas; queues its expected output, the
 * index in its OFFSET (NONE without metas). */
static void
push_meta_frame (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, const Layout * lay, guint64 index, gboolean metas,
    GQueue * pending, const gchar * ctx)
{
  GstBuffer *in = make_input (rand, info, lay);
  GstBuffer *exp = make_expected (op, in, info);

  if (metas)
    add_video_metas (in, info, index);
  GST_BUFFER_PTS (in) = GST_BUFFER_PTS (exp) = index * GST_SECOND / 30;
  GST_BUFFER_OFFSET (exp) = metas ? index : GST_BUFFER_OFFSET_NONE;
  g_queue_push_tail (pending, exp);
  fail_unless (gst_harness_push (h, in) == GST_FLOW_OK, "%s: push of input "
      "%" G_GUINT64_FORMAT " failed", ctx, index);
}

/* The next output: its pixels and metas checked.  Returned (unref it). */
static GstBuffer *
pull_meta_frame (GstHarness * h, const GstVideoInfo * info, GQueue * pending,
    const gchar * ctx)
{
  GstBuffer *exp = g_queue_pop_head (pending);
  GstBuffer *out = co_test_pull_buffer (h, ctx);
  gchar *c = g_strdup_printf ("%s, frame pts %" GST_TIME_FORMAT, ctx,
      GST_TIME_ARGS (GST_BUFFER_PTS (exp)));

  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
  check_output (out, exp, info, c);
  check_video_metas (out, info, GST_BUFFER_OFFSET_IS_VALID (exp) ?
      (gint64) GST_BUFFER_OFFSET (exp) : -1, c);
  gst_buffer_unref (exp);
  g_free (c);
  return out;
}

/* @c through a new harness: 2 x batch + 1 frames (the last batch partial,
 * sent by EOS), two in three with metas when @metas; every output checked
 * (pixels, metas) in order.  Returns the harness, *@ctx names @what, @c and
 * @seed. */
static GstHarness *
run_batch_case (const BatchCase * c, const gchar * what, gboolean metas,
    guint32 seed, GstVideoInfo * info, gchar ** ctx)
{
  const OpCfg *op = &op_cfgs[c->op];
  const RunCfg *run = &co_test_run_cfgs[c->run];
  const Layout *lay = c->padded ? &layout_padded : &layout_default;
  const guint n = 2 * c->batch + 1;
  GstHarness *h = make_harness (op, run);
  GRand *rand = g_rand_new_with_seed (seed);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  guint i;

  *ctx = g_strdup_printf ("[%s, batch=%u, %u frames, %s %s %ux%u%s %s "
      "submit-thread=%d backend=%s seed=0x%08x]", what, c->batch, n, od,
      gst_video_format_to_string (c->format), c->w, c->h,
      c->padded ? " padded" : "", rd, c->submit_thread, co_test_backend, seed);
  g_object_set (h->element, "batch", c->batch, "submit-thread",
      c->submit_thread, NULL);
  gst_harness_set_src_caps (h, caps_of (c->format, c->w, c->h, info));
  for (i = 0; i < n; i++)
    push_meta_frame (h, rand, info, op, lay, i, metas && i % 3 != 1,
        &pending, *ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS not handled", *ctx);
  /* EOS sent the partial batch and drained: every output is there */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    gst_buffer_unref (pull_meta_frame (h, info, &pending, *ctx));
  g_free (rd);
  g_free (od);
  g_rand_free (rand);
  return h;
}

/* batch=1; test_batch has the same checks with batches */
static const BatchCase meta_cases[] = {
  {0, GST_VIDEO_FORMAT_NV12, 33, 17, 1, 3, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_I420, 161, 91, 1, 6, TRUE, FALSE},
  {5, GST_VIDEO_FORMAT_RGBA, 65, 35, 1, 5, FALSE, TRUE},
};

/* Three inputs, two with every kind of meta (and the input's GstVideoMeta
 * with padded strides where asked), pushed at once, then EOS; every output
 * has its own input's metas, the copied ones only. */
GST_START_TEST (test_metas_survive)
{
  GstVideoInfo info;
  gchar *ctx;
  GstHarness *h = run_batch_case (&meta_cases[__i__], "metas", TRUE,
      co_test_seed ("test_metas_survive", __i__), &info, &ctx);

  teardown_harness (h);
  g_free (ctx);
}

GST_END_TEST;

/* Output buffers go back to the element's pool and come out again: one
 * that carried copied metas carries none of them the next time (copies are
 * never POOLED, so the pool drops them when the buffer returns). */
GST_START_TEST (test_metas_not_stale)
{
  guint32 seed = co_test_seed ("test_metas_not_stale", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const guint batch = __i__ == 0 ? 1 : 3;
  GstVideoInfo info;
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[2]);
  GQueue pending = G_QUEUE_INIT;
  GPtrArray *with_metas = g_ptr_array_new ();
  gchar *ctx = g_strdup_printf ("[stale metas, batch=%u, invert NV12 33x17 "
      "backend=%s seed=0x%08x]", batch, co_test_backend, seed);
  guint i, round, reused = 0;

  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_NV12, 33, 17, &info));
  for (round = 0; round < 200 && reused < batch; round++) {
    for (i = 0; i < batch; i++)
      push_meta_frame (h, rand, &info, &op_cfgs[0], &layout_default,
          round * batch + i, round == 0, &pending, ctx);
    for (i = 0; i < batch; i++) {
      GstBuffer *out = pull_meta_frame (h, &info, &pending, ctx);

      /* only compared, never dereferenced: the pool keeps them alive */
      if (round == 0)
        g_ptr_array_add (with_metas, out);
      else if (g_ptr_array_find (with_metas, out, NULL))
        reused++;
      gst_buffer_unref (out);
    }
  }
  fail_unless (reused == batch, "%s: in %u rounds the pool gave back only "
      "%u of the %u output buffers that carried metas", ctx, round, reused,
      batch);

  g_ptr_array_unref (with_metas);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The timecodes of a pipeline with the element (at batch=1 and with
 * partial batches) are those of the same pipeline without it. */
static GPtrArray *
timecodes_through (const gchar * filter, guint n, const gchar * ctx)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=ball ! video/x-raw,format=NV12,width=33,height=17,"
      "framerate=30/1 ! timecodestamper ! %s ! appsink name=sink "
      "sync=false", n, filter);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GPtrArray *tcs = g_ptr_array_new_with_free_func (g_free);
  GstElement *sink;
  GstSample *sample;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "%s: %s: %s", ctx, desc, err ? err->message : "");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "%s: %s does not start", ctx, desc);
  for (;;) {
    GstVideoTimeCodeMeta *tc;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    tc = gst_buffer_get_video_time_code_meta (gst_sample_get_buffer (sample));
    g_ptr_array_add (tcs, tc ? gst_video_time_code_to_string (&tc->tc) :
        g_strdup ("none"));
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    gchar *t = co_test_error_text (msg);
    fail ("%s: %s: %s", ctx, desc, t);
    g_free (t);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return tcs;
}

GST_START_TEST (test_timecodestamper)
{
  const guint batch = __i__ == 0 ? 1 : 4, n = 11;
  const gchar *mode = __i__ == 2 ? "serial" : "overlap";
  gchar *filter = g_strdup_printf (ELEMENT " backend=%s batch=%u mode=%s",
      co_test_backend, batch, mode);
  gchar *ctx = g_strdup_printf ("[timecodestamper ! %s]", filter);
  GPtrArray *want, *got;
  guint i;

  if (!gst_registry_check_feature_version (gst_registry_get (),
          "timecodestamper", 1, 0, 0)) {
    /* gst-plugins-bad is optional: test_metas_survive adds the meta itself */
    g_printerr ("note: no timecodestamper element: %s skipped\n", ctx);
    g_free (filter);
    g_free (ctx);
    return;
  }
  want = timecodes_through ("identity", n, ctx);
  got = timecodes_through (filter, n, ctx);
  fail_unless_equals_int (want->len, n);
  fail_unless_equals_int (got->len, n);
  for (i = 0; i < n; i++) {
    const gchar *w = g_ptr_array_index (want, i);
    const gchar *g = g_ptr_array_index (got, i);
    fail_unless (!g_str_equal (w, "none") && g_str_equal (w, g),
        "%s: frame %u has timecode %s, without the element %s", ctx, i, g, w);
  }
  g_ptr_array_unref (want);
  g_ptr_array_unref (got);
  g_free (filter);
  g_free (ctx);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Life cycle                                                                */
/* ------------------------------------------------------------------------ */

/* Records what leaves the element's src pad, in order. */
typedef struct
{
  GMutex lock;
  GPtrArray *items;             /* gchar*: "B <pts>", "E <event name>" */
} Recorder;

static GstPadProbeReturn
record_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * pi, gpointer data)
{
  Recorder *r = data;
  gchar *item = NULL;

  gpointer d = GST_PAD_PROBE_INFO_DATA (pi);

  if (d && GST_IS_BUFFER (d)) {
    item = g_strdup_printf ("B %" G_GUINT64_FORMAT, GST_BUFFER_PTS (d));
  } else if (d && GST_IS_EVENT (d)) {
    GstEvent *ev = GST_EVENT_CAST (d);
    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      GstCaps *caps;
      gchar *s;
      gst_event_parse_caps (ev, &caps);
      s = gst_caps_to_string (caps);
      item = g_strdup_printf ("E caps %s", s);
      g_free (s);
    } else {
      item = g_strdup_printf ("E %s", GST_EVENT_TYPE_NAME (ev));
    }
  }
  if (item) {
    g_mutex_lock (&r->lock);
    g_ptr_array_add (r->items, item);
    g_mutex_unlock (&r->lock);
  }
  return GST_PAD_PROBE_OK;
}

static Recorder *
recorder_attach (GstHarness * h)
{
  Recorder *r = g_new0 (Recorder, 1);
  GstPad *src = gst_element_get_static_pad (h->element, "src");

  g_mutex_init (&r->lock);
  r->items = g_ptr_array_new_with_free_func (g_free);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      record_probe, r, NULL);
  gst_object_unref (src);
  return r;
}

static gchar *
recorder_dump (Recorder * r)
{
  GString *s = g_string_new (NULL);
  guint i;

  g_mutex_lock (&r->lock);
  for (i = 0; i < r->items->len; i++)
    g_string_append_printf (s, "%s%s", i ? " | " : "",
        (gchar *) g_ptr_array_index (r->items, i));
  g_mutex_unlock (&r->lock);
  return g_string_free (s, FALSE);
}

static void
recorder_free (Recorder * r)
{
  g_ptr_array_unref (r->items);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* push N frames, then EOS: all N leave, in order, before EOS */
GST_START_TEST (test_eos_in_flight)
{
  guint32 seed = co_test_seed ("test_eos_in_flight", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 7 : 0];
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 3 : (__i__ == 1 ? 5 : 6)];
  /* 3: frames handed to the element's submit thread */
  gboolean submit_thread = __i__ == 3;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  Recorder *rec = recorder_attach (h);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[EOS in flight, BGRA 160x120, %s "
      "submit-thread=%d backend=%s seed=0x%08x]", rd, submit_thread,
      co_test_backend, seed);
  const guint n = 5;
  guint i, n_buf = 0;
  gchar *dump;
  GstEvent *ev;
  gboolean eos_seen = FALSE;

  g_object_set (h->element, "submit-thread", submit_thread, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_BGRA, 160, 120,
          &info));
  for (i = 0; i < n; i++)
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
        &pending, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()),
      "%s: EOS not handled", ctx);

  /* EOS leaves the element (within 10 s of the push; normally before the
   * push returns, as the element drains in its event handler) */
  for (i = 0; i < 1000; i++) {
    gboolean seen = FALSE;
    guint j;
    g_mutex_lock (&rec->lock);
    for (j = 0; j < rec->items->len; j++)
      if (g_str_equal (g_ptr_array_index (rec->items, j), "E eos"))
        seen = TRUE;
    g_mutex_unlock (&rec->lock);
    if (seen)
      break;
    g_usleep (10 * 1000);
  }

  /* Everything before EOS, in order */
  dump = recorder_dump (rec);
  g_mutex_lock (&rec->lock);
  for (i = 0; i < rec->items->len; i++) {
    const gchar *it = g_ptr_array_index (rec->items, i);
    if (it[0] == 'B') {
      fail_if (eos_seen, "%s: a buffer left after EOS: %s", ctx, dump);
      fail_unless_equals_uint64 (g_ascii_strtoull (it + 2, NULL, 10),
          n_buf * GST_SECOND);
      n_buf++;
    } else if (g_str_equal (it, "E eos")) {
      eos_seen = TRUE;
    }
  }
  g_mutex_unlock (&rec->lock);
  fail_unless (eos_seen, "%s: EOS did not leave the element within 10 s: "
      "%s", ctx, dump);
  fail_unless_equals_int (n_buf, n);
  g_free (dump);

  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    pull_and_check (h, &info, &pending, ctx);
  /* the EOS event reached the harness */
  while ((ev = gst_harness_try_pull_event (h))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
      eos_seen = FALSE;
    gst_event_unref (ev);
  }
  fail_if (eos_seen, "%s: no EOS event at the harness", ctx);

  teardown_harness (h);
  recorder_free (rec);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* frames, flush, more frames: every frame that comes out is right, every
 * frame pushed after the flush comes out, in order.  Frames pushed after
 * the flush are pulled one by one (the output pool is bounded: in serial
 * mode it may hold no more than a few frames the harness keeps). */
static void
move_pending (GQueue * pending, GHashTable * exp_by_pts)
{
  GstBuffer *b;

  while ((b = g_queue_pop_head (pending))) {
    gint64 *k = g_new (gint64, 1);
    *k = GST_BUFFER_PTS (b);
    g_hash_table_insert (exp_by_pts, k, b);
  }
}

static void
flush_round (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, guint n_before, guint n_after, gboolean reset_time,
    const gchar * ctx)
{
  GHashTable *exp_by_pts = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, (GDestroyNotify) gst_buffer_unref);
  GQueue pending = G_QUEUE_INIT;
  GstSegment seg;
  guint i, got_after = 0;
  GstClockTime last = 0;
  gboolean first = TRUE;
  GstBuffer *out;

  for (i = 0; i < n_before; i++)
    push_frame (h, rand, info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
  move_pending (&pending, exp_by_pts);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h,
          gst_event_new_flush_stop (reset_time)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  for (i = 0; i < n_after; i++) {
    push_frame (h, rand, info, op, &layout_default, (1000 + i) * GST_SECOND,
        &pending, ctx);
    move_pending (&pending, exp_by_pts);

    /* pre-flush frames may or may not be in the queue; post-flush must */
    while (got_after < i + 1) {
      gint64 k;
      GstBuffer *exp;
      gchar *c;

      out = co_test_pull_buffer (h, ctx);
      k = GST_BUFFER_PTS (out);
      exp = g_hash_table_lookup (exp_by_pts, &k);
      c = g_strdup_printf ("%s, output pts %" GST_TIME_FORMAT, ctx,
          GST_TIME_ARGS (k));
      fail_unless (exp != NULL, "%s: unexpected output timestamp", c);
      fail_unless (first || (GstClockTime) k > last, "%s: out of order "
          "(after %" GST_TIME_FORMAT ")", c, GST_TIME_ARGS (last));
      check_output (out, exp, info, c);
      if ((GstClockTime) k >= 1000 * GST_SECOND) {
        fail_unless_equals_uint64 (k, (1000 + got_after) * GST_SECOND);
        got_after++;
      }
      last = k;
      first = FALSE;
      g_free (c);
      gst_buffer_unref (out);
    }
  }
  /* nothing else may come */
  out = gst_harness_try_pull (h);
  fail_unless (out == NULL, "%s: an extra buffer, pts %" GST_TIME_FORMAT,
      ctx, GST_TIME_ARGS (out ? GST_BUFFER_PTS (out) : 0));
  g_hash_table_unref (exp_by_pts);
}

GST_START_TEST (test_flush_midstream)
{
  guint32 seed = co_test_seed ("test_flush_midstream", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  /* 4, 5: frames handed to the element's submit thread; 6, 7: staged
   * frames (their copies run on co-parcopy's threads until the frame is
   * queued), with and without it */
  static const guint runs[] = { 3, 5, 0, 6, 3, 6, 3, 6 };
  const RunCfg *run = &co_test_run_cfgs[runs[__i__]];
  const OpCfg *op = &op_cfgs[7];        /* box-blur r=7: slow enough to be in flight */
  gboolean submit_thread = __i__ == 4 || __i__ == 5 || __i__ == 7;
  gboolean staged = __i__ >= 6;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_submit_delay_us");
  CoTestSetFlag force = co_test_plugin_symbol ("co_test_set_force_staging");
  guint w = staged ? 1280 : 320, ht = staged ? 721 : 241;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[flush, I420 %ux%u box-blur r=7, %s "
      "submit-thread=%d staged=%d backend=%s seed=0x%08x]", w, ht, rd,
      submit_thread, staged, co_test_backend, seed);
  guint round;

  if (staged && force)
    force (TRUE);
  else if (staged && !g_str_equal (co_test_backend, "cuda"))
    g_print ("%s: no co_test_set_force_staging (built without "
        "-Dfault-injection): nothing is staged on the CPU backend\n", ctx);
  g_object_set (h->element, "submit-thread", submit_thread, NULL);
  /* the submit thread holds each frame a while, between the hand-over
   * queue and the device's: a flush must still drop it (a test hook of
   * -Dfault-injection builds; without it the races are only likelier) */
  if (submit_thread && set_delay)
    set_delay (3000);
  else if (submit_thread)
    g_print ("%s: no co_test_set_submit_delay_us (built without "
        "-Dfault-injection): the submit thread is not held up\n", ctx);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, w, ht, &info));
  for (round = 0; round < 3; round++)
    flush_round (h, rand, &info, op, 4, 3, round != 1, ctx);
  if (set_delay)
    set_delay (0);
  if (staged && force)
    force (FALSE);
  if (staged && (force || g_str_equal (co_test_backend, "cuda"))) {
    GstStructure *st = NULL;
    guint64 n_staged = 0;

    /* the staged path ran; EOS posts the statistics of the whole run (the
     * property holds the latest posted, none yet before it) */
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    g_object_get (h->element, "stats", &st, NULL);
    fail_unless (st && gst_structure_get_uint64 (st, "frames-staged",
            &n_staged), "%s: no statistics", ctx);
    fail_unless (n_staged > 0, "%s: no frame staged", ctx);
    gst_structure_free (st);
  }

  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
  g_rand_free (rand);
}

GST_END_TEST;

/* A push blocked because downstream blocks (the push task waits in a
 * blocked pad, so every engine slot fills) must return when flushing
 * starts.  Downstream that only holds buffers does not block anything: see
 * test_held_outputs_never_block. */
typedef struct
{
  GstHarness *h;
  GRand *rand;
  const GstVideoInfo *info;
  const OpCfg *op;
  GQueue *pending;              /* NULL: do not record references */
  guint n;
  volatile gint pushed;
  volatile gint done;
  GstFlowReturn last;
} Pusher;

static gpointer
pusher_thread (gpointer data)
{
  Pusher *p = data;
  guint i;

  for (i = 0; i < p->n; i++) {
    if (p->pending) {
      push_frame (p->h, p->rand, p->info, p->op, &layout_default,
          i * GST_SECOND, p->pending, "[pusher]");
      p->last = GST_FLOW_OK;
    } else {
      GstBuffer *in = make_input (p->rand, p->info, &layout_default);

      GST_BUFFER_PTS (in) = i * GST_SECOND;
      p->last = gst_harness_push (p->h, in);
    }
    if (p->last != GST_FLOW_OK)
      break;
    g_atomic_int_inc (&p->pushed);
  }
  g_atomic_int_set (&p->done, 1);
  return NULL;
}

/* Waits until the pusher made no progress for 300 ms, or ended. */
static gint
wait_stuck (Pusher * p)
{
  gint before;

  do {
    before = g_atomic_int_get (&p->pushed);
    g_usleep (300 * 1000);
  } while (g_atomic_int_get (&p->pushed) != before &&
      !g_atomic_int_get (&p->done));
  return before;
}

static GstPadProbeReturn
block_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_flush_unblocks_chain)
{
  guint32 seed = co_test_seed ("test_flush_unblocks_chain", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[6]);      /* serial: smallest bound */
  Pusher p = { 0, };
  GThread *t;
  GstBuffer *out;
  GstSegment seg;
  GQueue pending = G_QUEUE_INIT;
  gulong probe;
  gint stuck;
  guint i;
  gchar *ctx = g_strdup_printf ("[flush unblocks chain, GRAY8 64x64 serial "
      "backend=%s seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 64, 64, &info));
  /* downstream blocks: the push task waits in it, the slots fill up */
  probe = gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BLOCK |
      GST_PAD_PROBE_TYPE_BUFFER, block_probe, NULL, NULL);
  p.h = h;
  p.rand = rand;
  p.info = &info;
  p.op = op;
  p.n = 200;
  t = g_thread_new ("pusher", pusher_thread, &p);
  stuck = wait_stuck (&p);
  fail_unless (stuck < 200 && !g_atomic_int_get (&p.done), "%s: 200 frames "
      "pushed while downstream blocked: the in-flight bound does not hold",
      ctx);

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_thread_join (t);
  fail_unless (p.last == GST_FLOW_FLUSHING, "%s: the blocked push returned "
      "%s, expected flushing", ctx, gst_flow_get_name (p.last));
  gst_pad_remove_probe (h->sinkpad, probe);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));

  /* drop what came out before (it was correct or not: invert of random
   * data, we did not keep it), then new frames must come out right */
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  for (i = 0; i < 4; i++) {
    push_frame (h, rand, &info, op, &layout_default, (500 + i) * GST_SECOND,
        &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* A state change downwards deactivates the element's source pad before
 * its sink pad; meanwhile upstream's streaming thread still pushes.  Its
 * sticky events (caps, segment: re-sent after a flush), other serialized
 * events and buffers must then come back FLUSHING, never NOT_NEGOTIATED
 * or ERROR (upstream would post "Internal data stream error").  Seen in
 * CI as a torture-suite failure one run in ten. */
GST_START_TEST (test_events_while_src_flushing)
{
  guint32 seed = co_test_seed ("test_events_while_src_flushing", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo info;
  GstHarness *h = make_harness (op, &co_test_run_cfgs[0]);
  GstPad *fsrc = gst_element_get_static_pad (h->element, "src");
  GQueue pending = G_QUEUE_INIT;
  GstBuffer *out;
  GstSegment seg;
  GstFlowReturn ret;
  gchar *ctx = g_strdup_printf ("[events while the source pad flushes, "
      "GRAY8 33x17 backend=%s seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 33, 17, &info));
  push_frame (h, rand, &info, op, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &info, &pending, ctx);

  fail_unless (gst_pad_set_active (fsrc, FALSE));
  /* a new segment: stored on the harness's pad, the push fails, it stays
   * pending; the next buffer re-sends it and gets its flow return */
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.base = GST_SECOND;
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  ret = gst_harness_push (h, make_input (rand, &info, &layout_default));
  fail_unless_equals_string (gst_flow_get_name (ret),
      gst_flow_get_name (GST_FLOW_FLUSHING));
  /* new caps: the same */
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 35, 19, &info));
  ret = gst_harness_push (h, make_input (rand, &info, &layout_default));
  fail_unless_equals_string (gst_flow_get_name (ret),
      gst_flow_get_name (GST_FLOW_FLUSHING));
  fail_if (gst_harness_try_pull (h) != NULL, "%s: output while flushing", ctx);

  /* the state change completes, then goes back up: frames flow and are
   * right */
  fail_unless (gst_element_set_state (h->element, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 35, 19, &info));
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  push_frame (h, rand, &info, op, &layout_default, 2 * GST_SECOND, &pending,
      ctx);
  pull_and_check (h, &info, &pending, ctx);
  gst_object_unref (fsrc);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Downstream that keeps every output buffer (an encoder's look-ahead, a
 * tee branch, gst-check's push-many-then-pull) never blocks chain: the
 * output pool grows.  Both backends, serial (the smallest pool) and 4x4,
 * and a pool budget that runs out (plain buffers after one warning). */
GST_START_TEST (test_held_outputs_never_block)
{
  guint32 seed = co_test_seed ("test_held_outputs_never_block", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 0 : 2];
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 6 : 3];
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  Pusher p = { 0, };
  GThread *t;
  gint64 deadline;
  guint i;
  gchar *ctx = g_strdup_printf ("[held outputs, case %d, backend=%s "
      "seed=0x%08x]", __i__, co_test_backend, seed);

  if (__i__ == 2)               /* a budget of two frames: plain buffers after */
    g_object_set (h->element, "pool-budget", (guint64) 2 * 161 * 93 * 4, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 161, 93, &info));
  p.h = h;
  p.rand = rand;
  p.info = &info;
  p.op = op;
  p.pending = &pending;
  p.n = 60;
  t = g_thread_new ("pusher", pusher_thread, &p);
  deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (!g_atomic_int_get (&p.done) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  fail_unless (g_atomic_int_get (&p.done), "%s: chain blocked after %d of "
      "60 frames while the harness held every output", ctx,
      g_atomic_int_get (&p.pushed));
  g_thread_join (t);
  fail_unless_equals_int (g_atomic_int_get (&p.pushed), 60);
  for (i = 0; i < 60; i++)
    pull_and_check (h, &info, &pending, ctx);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Caps the element cannot take end in a caps refusal and an element error
 * that says why and what to do: box-blur on interlaced video (its window
 * would mix the fields), and frames too large for the memory (under an
 * address-space limit on the CPU backend: the pools fail to allocate, no
 * abort).  invert and gamma take interlaced video (per pixel). */
static gchar *
caps_error (GstHarness * h, GstBus * bus, GstCaps * caps)
{
  GstMessage *msg;
  gchar *text = NULL;

  fail_if (gst_pad_push_event (h->srcpad, gst_event_new_stream_start ("s")) ==
      FALSE);
  /* a sticky event: stored (TRUE) whatever the element said; the element's
   * answer is its error message */
  gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no ERROR message for %" GST_PTR_FORMAT, caps);
  text = co_test_error_text (msg);
  gst_message_unref (msg);
  gst_caps_unref (caps);
  return text;
}

GST_START_TEST (test_interlaced)
{
  guint32 seed = co_test_seed ("test_interlaced", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 6 : __i__ == 1 ? 0 : 2];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstBus *bus = gst_bus_new ();
  GstCaps *caps;
  gchar *ctx = g_strdup_printf ("[interlaced, %s, backend=%s seed=0x%08x]",
      co_ref_op_nick (op->op), co_test_backend, seed);
  guint i;

  gst_element_set_bus (h->element, bus);
  gst_video_info_set_interlaced_format (&info, GST_VIDEO_FORMAT_I420,
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED, 161, 94);
  caps = gst_video_info_to_caps (&info);
  if (op->op == CO_REF_BOX_BLUR) {
    gchar *text = caps_error (h, bus, caps);

    fail_unless (strstr (text, "interlace") && strstr (text, "deinterlace"),
        "%s: the error does not say why and what to do: \"%s\"", ctx, text);
    g_free (text);
  } else {
    gst_harness_set_src_caps (h, caps);
    for (i = 0; i < 3; i++) {
      push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
          &pending, ctx);
      pull_and_check (h, &info, &pending, ctx);
    }
  }
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_huge_caps)
{
  const OpCfg *op = &op_cfgs[0];
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
  struct rlimit old, lim;
  gchar *text;

  if (g_str_equal (co_test_backend, "cuda") || RUNNING_ON_SANITIZER) {
    /* an address-space limit breaks CUDA (and ASan); on the H200 host the
     * page-locked pools of such frames may well fit */
    g_print ("test_huge_caps: CPU backend without sanitizer only\n");
    return;
  }
  h = make_harness (op, &co_test_run_cfgs[3]);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 20000, 20000);
  fail_unless (getrlimit (RLIMIT_AS, &old) == 0);
  lim = old;
  lim.rlim_cur = (rlim_t) 4 << 30;      /* 4 GiB: 2.5 frames of 1.6 GB */
  fail_unless (setrlimit (RLIMIT_AS, &lim) == 0);
  text = caps_error (h, bus, gst_video_info_to_caps (&info));
  fail_unless (setrlimit (RLIMIT_AS, &old) == 0);
  fail_unless (strstr (text, "1600000000") && strstr (text, "allocate"),
      "the error does not name the frame size and what failed: \"%s\"", text);
  g_free (text);
  teardown_harness_with_bus (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_caps_change)
{
  guint32 seed = co_test_seed ("test_caps_change", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 6 : 2];
  static const struct
  {
    GstVideoFormat f;
    guint w, h;
  } stages[] = {
    {GST_VIDEO_FORMAT_RGBA, 64, 48},
    {GST_VIDEO_FORMAT_I420, 33, 17},
    {GST_VIDEO_FORMAT_GRAY8, 100, 3},
    {GST_VIDEO_FORMAT_GRAY16_LE, 65, 31},
    {GST_VIDEO_FORMAT_NV12, 66, 30},
    {GST_VIDEO_FORMAT_NV12, 3, 5},
    {GST_VIDEO_FORMAT_RGBA, 64, 48},
  };
  const guint n_stages = G_N_ELEMENTS (stages), per = 3;
  GstVideoInfo info[G_N_ELEMENTS (stages)];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  Recorder *rec = recorder_attach (h);
  GQueue pending[G_N_ELEMENTS (stages)];
  gboolean interleave = (__i__ == 1);
  /* 2: batches of 2, so every caps change finds a partial one to send */
  guint batch = __i__ == 2 ? 2 : 1;
  gchar *ctx;
  guint s, i, j, n_caps = 0, n_buf = 0;
  gchar *dump;

  g_object_set (h->element, "batch", batch, NULL);
  for (s = 0; s < n_stages; s++) {
    g_queue_init (&pending[s]);
    ctx = g_strdup_printf ("[caps change, stage %u %s %ux%u backend=%s%s "
        "batch=%u seed=0x%08x]", s, gst_video_format_to_string (stages[s].f),
        stages[s].w, stages[s].h, co_test_backend, interleave ? " interleaved" :
        "", batch, seed);
    gst_harness_set_src_caps (h, caps_of (stages[s].f, stages[s].w,
            stages[s].h, &info[s]));
    for (i = 0; i < per; i++) {
      push_frame (h, rand, &info[s], op, &layout_default,
          (s * per + i) * GST_SECOND, &pending[s], ctx);
      if (interleave)
        pull_and_check (h, &info[s], &pending[s], ctx);
    }
    if (interleave)
      check_output_caps (h, &info[s], ctx);
    g_free (ctx);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  if (!interleave) {
    for (s = 0; s < n_stages; s++) {
      ctx = g_strdup_printf ("[caps change, stage %u %s %ux%u backend=%s "
          "seed=0x%08x]", s, gst_video_format_to_string (stages[s].f),
          stages[s].w, stages[s].h, co_test_backend, seed);
      for (i = 0; i < per; i++)
        pull_and_check (h, &info[s], &pending[s], ctx);
      g_free (ctx);
    }
  }

  /* Sequence downstream: caps(s), its buffers, caps(s+1), ... */
  dump = recorder_dump (rec);
  g_mutex_lock (&rec->lock);
  s = 0;
  for (j = 0; j < rec->items->len; j++) {
    const gchar *it = g_ptr_array_index (rec->items, j);
    if (g_str_has_prefix (it, "E caps ")) {
      GstCaps *got = gst_caps_from_string (it + 7);
      GstCaps *want = gst_video_info_to_caps (&info[n_caps]);
      fail_unless (n_buf == n_caps * per, "caps %u sent after %u buffers: "
          "%s", n_caps, n_buf, dump);
      fail_unless (gst_caps_is_equal (got, want), "caps %u: got %s: %s",
          n_caps, it + 7, dump);
      gst_caps_unref (got);
      gst_caps_unref (want);
      n_caps++;
    } else if (it[0] == 'B') {
      fail_unless (n_caps == n_buf / per + 1, "buffer %u under caps %u: %s",
          n_buf, n_caps - 1, dump);
      n_buf++;
    }
  }
  g_mutex_unlock (&rec->lock);
  /* the last stage has the caps of the first: a repeated caps event may
   * be dropped by the pad as unchanged, but not here (changed before) */
  fail_unless_equals_int (n_caps, n_stages);
  fail_unless_equals_int (n_buf, n_stages * per);
  g_free (dump);

  teardown_harness (h);
  recorder_free (rec);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_state_cycling)
{
  guint32 seed = co_test_seed ("test_state_cycling", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[5];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_I420,
  };
  guint cycle;

  for (cycle = 0; cycle < G_N_ELEMENTS (fmts); cycle++) {
    GstVideoInfo info;
    GQueue pending = G_QUEUE_INIT;
    gchar *ctx = g_strdup_printf ("[state cycle %u, %s 45x23 backend=%s "
        "seed=0x%08x]", cycle, gst_video_format_to_string (fmts[cycle]),
        co_test_backend, seed);
    gchar *sid = g_strdup_printf ("cycle-%u", cycle);
    GstStateChangeReturn ret;

    if (cycle > 0) {
      if (cycle % 2) {
        ret = gst_element_set_state (h->element, GST_STATE_NULL);
        fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
      } else {
        /* the long way down and up */
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
        fail_unless_equals_int (gst_element_set_state (h->element,
                GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
      }
      ret = gst_element_set_state (h->element, GST_STATE_PLAYING);
      fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_stream_start (sid)));
    }
    gst_harness_set_src_caps (h, caps_of (fmts[cycle], 45, 23, &info));
    push_frame (h, rand, &info, op, &layout_default, 0, &pending, ctx);
    push_frame (h, rand, &info, op, &layout_default, GST_SECOND, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    g_free (ctx);
    g_free (sid);
  }
  /* down with a frame in flight */
  {
    GstVideoInfo info;
    GQueue pending = G_QUEUE_INIT;
    GstBuffer *b;
    gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 640, 480,
            &info));
    push_frame (h, rand, &info, &op_cfgs[8], &layout_default, 0, &pending,
        "[state cycle with a frame in flight]");
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    while ((b = g_queue_pop_head (&pending)))
      gst_buffer_unref (b);
  }
  teardown_harness (h);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_short_buffer)
{
  guint32 seed = co_test_seed ("test_short_buffer", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ != 1 ? 0 : 6];
  GstVideoFormat fmt = __i__ != 1 ? GST_VIDEO_FORMAT_RGBA :
      GST_VIDEO_FORMAT_I420;
  /* 2: with batch=4, the good frames wait in a batch being filled, which
   * the error then leaves behind (dropped at teardown) */
  guint batch = __i__ == 2 ? 4 : 1;
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

  g_object_set (h->element, "batch", batch, NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps_of (fmt, 64, 48, &info));
  want = GST_VIDEO_INFO_SIZE (&info);
  have = want - 1 - (__i__ != 1 ? 0 : want / 3);

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

/* A video meta that points past the end of the buffer: an error, no crash,
 * no output for it. */
GST_START_TEST (test_short_buffer_meta)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_GRAY16_LE
  };
  guint32 seed = co_test_seed ("test_short_buffer_meta", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFormat fmt = fmts[__i__ % 3];
  gsize cut = __i__ < 3 ? 1 : 100;
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

GST_START_TEST (test_serial_equals_overlap)
{
  guint32 seed = co_test_seed ("test_serial_equals_overlap", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 7 : 1];
  GstVideoFormat fmt = __i__ == 0 ? GST_VIDEO_FORMAT_NV12 :
      GST_VIDEO_FORMAT_ABGR;
  GstVideoInfo info;
  GstHarness *ho = make_harness (op, &co_test_run_cfgs[5]);
  GstHarness *hs = make_harness (op, &co_test_run_cfgs[6]);
  gchar *ctx = g_strdup_printf ("[serial vs overlap, %s 127x65 backend=%s "
      "seed=0x%08x]", gst_video_format_to_string (fmt), co_test_backend, seed);
  guint i;

  gst_harness_set_src_caps (ho, caps_of (fmt, 127, 65, &info));
  gst_harness_set_src_caps (hs, caps_of (fmt, 127, 65, &info));
  for (i = 0; i < 4; i++) {
    GstBuffer *in = make_input (rand, &info, &layout_default);
    GstBuffer *exp = make_expected (op, in, &info);
    GstBuffer *oo, *os;

    GST_BUFFER_PTS (in) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (ho, gst_buffer_ref (in)),
        GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (hs, in), GST_FLOW_OK);
    oo = co_test_pull_buffer (ho, ctx);
    os = co_test_pull_buffer (hs, ctx);
    /* the same bytes: both equal to the reference */
    check_output (oo, exp, &info, ctx);
    check_output (os, exp, &info, ctx);
    gst_buffer_unref (oo);
    gst_buffer_unref (os);
    gst_buffer_unref (exp);
  }
  teardown_harness (ho);
  teardown_harness (hs);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* More frames than the in-flight bound. */
GST_START_TEST (test_many_frames)
{
  guint32 seed = co_test_seed ("test_many_frames", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ % 2 ? 6 : 0];
  const RunCfg *run = &co_test_run_cfgs[__i__ < 2 || __i__ >= 4 ? 3 : 6];
  /* 4, 5: an explicit in-flight bound below the automatic one; 6, 7: the
   * spinning wait (on CUDA: the consumer polls the frame's end event) */
  guint max_in_flight = __i__ == 4 || __i__ == 5 ? __i__ - 3 : 0;
  const gchar *wait = __i__ == 6 || __i__ == 7 ? "spin" : "blocking";
  /* 8, 9: frames handed to the element's submit thread (9: also spinning) */
  gboolean submit_thread = __i__ >= 8;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  gchar *ctx = g_strdup_printf ("[40 frames pull after push, %s xRGB 96x54 "
      "%s max-in-flight=%u wait-mode=%s submit-thread=%d backend=%s "
      "seed=0x%08x]", od, rd, max_in_flight, __i__ == 9 ? "spin" : wait,
      submit_thread, co_test_backend, seed);
  guint i;

  g_object_set (h->element, "max-in-flight", max_in_flight, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode",
      __i__ == 9 ? "spin" : wait);
  g_object_set (h->element, "submit-thread", submit_thread, NULL);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_xRGB, 96, 54, &info));
  for (i = 0; i < 40; i++) {
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND / 30,
        &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
  }
  /* and pushes running ahead of pulls by a few */
  for (i = 40; i < 80; i++) {
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND / 30,
        &pending, ctx);
    if (g_queue_get_length (&pending) > 3)
      pull_and_check (h, &info, &pending, ctx);
  }
  while (!g_queue_is_empty (&pending))
    pull_and_check (h, &info, &pending, ctx);
  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
  g_free (od);
  g_rand_free (rand);
}

GST_END_TEST;

/* 40 frames pushed from a thread while the test pulls slowly: the pushes
 * block on the bounds and resume; all 40 come out right, in order. */
typedef struct
{
  GstHarness *h;
  GRand *rand;
  const GstVideoInfo *info;
  const OpCfg *op;
  GMutex lock;
  GQueue pending;
  guint n;
  GstFlowReturn last;
  const gchar *ctx;
} Feeder;

static gpointer
feeder_thread (gpointer data)
{
  Feeder *f = data;
  guint i;

  for (i = 0; i < f->n; i++) {
    GstBuffer *in = make_input (f->rand, f->info, &layout_default);
    GstBuffer *exp = make_expected (f->op, in, f->info);

    GST_BUFFER_PTS (in) = GST_BUFFER_PTS (exp) = i * GST_SECOND;
    g_mutex_lock (&f->lock);
    g_queue_push_tail (&f->pending, exp);
    g_mutex_unlock (&f->lock);
    f->last = gst_harness_push (f->h, in);
    if (f->last != GST_FLOW_OK)
      break;
  }
  return NULL;
}

GST_START_TEST (test_many_frames_threaded)
{
  guint32 seed = co_test_seed ("test_many_frames_threaded", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[5];
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 3 : 6];
  gboolean submit_thread = __i__ == 2;  /* with the element's submit thread */
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  Feeder f = { 0, };
  GThread *t;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[40 frames from a thread, box-blur r=1 "
      "NV12 130x70 %s submit-thread=%d backend=%s seed=0x%08x]", rd,
      submit_thread, co_test_backend, seed);
  guint i;

  g_object_set (h->element, "submit-thread", submit_thread, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_NV12, 130, 70, &info));
  f.h = h;
  f.rand = rand;
  f.info = &info;
  f.op = op;
  f.n = 40;
  f.ctx = ctx;
  g_mutex_init (&f.lock);
  g_queue_init (&f.pending);
  t = g_thread_new ("feeder", feeder_thread, &f);
  g_usleep (200 * 1000);        /* let the pushes run ahead and block */
  for (i = 0; i < 40; i++) {
    GstBuffer *out = co_test_pull_buffer (h, ctx), *exp;
    gchar *c = g_strdup_printf ("%s frame %u", ctx, i);

    g_mutex_lock (&f.lock);
    exp = g_queue_pop_head (&f.pending);
    g_mutex_unlock (&f.lock);
    fail_unless (exp != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp));
    check_output (out, exp, &info, c);
    gst_buffer_unref (out);
    gst_buffer_unref (exp);
    g_free (c);
  }
  g_thread_join (t);
  fail_unless_equals_int (f.last, GST_FLOW_OK);
  g_mutex_clear (&f.lock);
  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
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
 * share pages.  Case 0: large frames (registered by the elements, or
 * staged where a neighbour's registration overlaps); case 1: small frames
 * (plain copies, held against registrations); case 2 (CUDA only): a ring
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

GST_START_TEST (test_shared_ring)
{
  static const struct
  {
    GstVideoFormat format;
    guint w, h;
    gboolean app_pinned;
  } cases[] = {
    /* 1 200 000 bytes: >= 1 MiB, 292.97 pages */
    {GST_VIDEO_FORMAT_RGBA, 1000, 300, FALSE},
    /* 13 860 bytes: 3.38 pages */
    {GST_VIDEO_FORMAT_NV12, 130, 70, FALSE},
    {GST_VIDEO_FORMAT_RGBA, 1000, 300, TRUE},
  };
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

  if (cases[__i__].app_pinned && !cuda) {
    /* nothing to page-lock without a device */
    g_rand_free (rand);
    return;
  }
  ctx = g_strdup_printf ("[one ring of %u frames %s %ux%u, two elements, %s "
      "memory, backend=%s seed=0x%08x]", RING_SLOTS,
      gst_video_format_to_string (cases[__i__].format), cases[__i__].w,
      cases[__i__].h, cases[__i__].app_pinned ? "application page-locked" :
      "malloc()ed", co_test_backend, seed);
  h[0] = make_harness (op, &co_test_run_cfgs[3]);
  h[1] = make_harness (op, &co_test_run_cfgs[6]);
  for (i = 0; i < 2; i++)
    gst_harness_set_src_caps (h[i], caps_of (cases[__i__].format,
            cases[__i__].w, cases[__i__].h, &info));
  fs = GST_VIDEO_INFO_SIZE (&info);
  fail_unless (fs % 4096 != 0, "%s: frames must share pages", ctx);
  ring_size = fs * RING_SLOTS;
  if (cases[__i__].app_pinned) {
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
    } else if (cases[__i__].app_pinned) {
      fail_unless_equals_uint64 (pinned, n);    /* used as it is */
    } else if (fs >= (1 << 20)) {
      fail_unless_equals_uint64 (pageable, 0);  /* never a plain copy */
    }
    gst_structure_free (st);
    teardown_harness (h[i]);
  }
  if (cases[__i__].app_pinned) {
    fail_unless_equals_int (cudaFreeHost (ring), cudaSuccess);
  } else {
    g_free (ring);
  }
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* operation, gamma and radius may change in PLAYING: with no frame in
 * flight, the next frame uses the new values. */
GST_START_TEST (test_property_change_playing)
{
  guint32 seed = co_test_seed ("test_property_change_playing", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoInfo info;
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  static const guint seq[] = { 0, 8, 1, 5, 2, 0, 7 };
  guint i;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];
    GQueue pending = G_QUEUE_INIT;
    gchar *od = op_desc (op);
    gchar *ctx = g_strdup_printf ("[property change in PLAYING, step %u: %s, "
        "I420 75x41 backend=%s seed=0x%08x]", i, od, co_test_backend, seed);

    gst_util_set_object_arg (G_OBJECT (h->element), "operation",
        co_ref_op_nick (op->op));
    g_object_set (h->element, "gamma", op->gamma, "radius",
        op->op == CO_REF_BOX_BLUR ? op->radius : 3, NULL);
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND,
        &pending, ctx);
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND + 1,
        &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    pull_and_check (h, &info, &pending, ctx);
    g_free (ctx);
    g_free (od);
  }
  teardown_harness (h);
  g_rand_free (rand);
}

GST_END_TEST;


/* ------------------------------------------------------------------------ */
/* Batches (batch > 1: several frames per device submission)                 */
/* ------------------------------------------------------------------------ */

static const BatchCase batch_cases[] = {
  {0, GST_VIDEO_FORMAT_GRAY8, 97, 33, 4, 3, FALSE, FALSE},
  {7, GST_VIDEO_FORMAT_NV12, 130, 70, 3, 5, TRUE, FALSE},
  {2, GST_VIDEO_FORMAT_I420, 75, 41, 5, 6, FALSE, FALSE},
  {0, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 2, 2, TRUE, FALSE},
  {5, GST_VIDEO_FORMAT_GRAY16_LE, 333, 77, 16, 0, FALSE, FALSE},
  {6, GST_VIDEO_FORMAT_BGRx, 33, 17, 7, 4, FALSE, FALSE},
  {0, GST_VIDEO_FORMAT_GRAY8, 640, 480, 8, 4, FALSE, TRUE},
  /* rows without padding: a chunk's 2 x 4 plane copies are plain ones, which
   * the CUDA backend queues in one cudaMemcpyBatchAsync per direction */
  {0, GST_VIDEO_FORMAT_NV12, 256, 34, 4, 3, FALSE, FALSE},
  /* the same from frames of more than 1 MiB, which the CUDA backend
   * page-locks in place (cudaHostRegister) instead of staging */
  {0, GST_VIDEO_FORMAT_RGBA, 640, 480, 4, 3, FALSE, FALSE},
};

/* 2 x batch + 1 frames (the last batch partial, sent by EOS), every output
 * compared with the reference, in order, and with its own input's metas
 * (test_metas_survive); the statistics count every frame and the passport
 * names the batch. */
GST_START_TEST (test_batch)
{
  const BatchCase *c = &batch_cases[__i__];
  const guint n = 2 * c->batch + 1;
  GstVideoInfo info;
  gchar *ctx;
  GstHarness *h = run_batch_case (c, "batch", TRUE,
      co_test_seed ("test_batch", __i__), &info, &ctx);
  GstStructure *st = NULL;
  guint v = 0;
  guint64 frames = 0;

  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st != NULL, "%s: no statistics", ctx);
  fail_unless (gst_structure_get_uint64 (st, "frames", &frames));
  fail_unless_equals_uint64 (frames, n);
  if (g_str_equal (co_test_backend, "cuda")
      && GST_VIDEO_INFO_SIZE (&info) >= (1 << 20)) {
    /* the harness's frames are malloc()ed, a new GstMemory each: seen
     * once, each is staged (copied into page-locked memory by a few
     * threads), never registered for one use */
    fail_unless (gst_structure_get_uint64 (st, "frames-staged", &frames));
    fail_unless_equals_uint64 (frames, n);
  }
  gst_structure_free (st);
  g_object_get (h->element, "passport", &st, NULL);
  fail_unless (st != NULL && gst_structure_get_uint (st, "batch", &v));
  fail_unless_equals_int (v, c->batch);
  gst_structure_free (st);

  teardown_harness (h);
  g_free (ctx);
}

GST_END_TEST;

/* A flush while a batch is being filled drops it (it was never submitted);
 * the frames after the flush come out right.  Then a partial batch is left
 * pending at teardown (dropped, nothing leaked or hung). */
GST_START_TEST (test_batch_flush)
{
  guint32 seed = co_test_seed ("test_batch_flush", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[__i__ == 0 ? 0 : 7];
  const RunCfg *run = &co_test_run_cfgs[__i__ == 0 ? 3 : 6];
  const guint batch = 4;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT, dropped = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  gchar *ctx = g_strdup_printf ("[batch=%u flush, %s I420 77x43 %s backend=%s "
      "seed=0x%08x]", batch, od, rd, co_test_backend, seed);
  GstSegment seg;
  guint i;

  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 77, 43, &info));
  /* one full batch out, then a partial one pending */
  for (i = 0; i < batch; i++)
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
  for (i = 0; i < batch; i++)
    pull_and_check (h, &info, &pending, ctx);
  for (i = 0; i < batch - 1; i++)
    push_frame (h, rand, &info, op, &layout_default, (10 + i) * GST_SECOND,
        &dropped, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  for (i = 0; i < batch + 1; i++)
    push_frame (h, rand, &info, op, &layout_default, (100 + i) * GST_SECOND,
        &pending, ctx);
  /* the batch after the flush is full: out without an event */
  for (i = 0; i < batch; i++)
    pull_and_check (h, &info, &pending, ctx);
  /* one frame left pending in a partial batch at teardown */
  fail_unless_equals_int (g_queue_get_length (&pending), 1);
  g_queue_clear_full (&pending, (GDestroyNotify) gst_buffer_unref);
  g_queue_clear_full (&dropped, (GDestroyNotify) gst_buffer_unref);
  teardown_harness (h);
  g_free (ctx);
  g_free (rd);
  g_free (od);
  g_rand_free (rand);
}

GST_END_TEST;

/* A property change while a batch is being filled: the partial batch goes
 * out with the old operation before the engine is rebuilt for the new one. */
/* Gamma is applied without a rebuild (a drain, then a new table): every
 * frame pushed before a change comes out with the old table, every frame
 * pushed after it with the new one, in batches partly filled when the
 * change comes, with and without the submit thread; and no rebuild (one
 * passport for the whole run).  Operation changes in between do rebuild. */
static guint
count_passports (GstBus * bus)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (m, "cudaoverlap-passport"))
      n++;
    gst_message_unref (m);
  }
  return n;
}

GST_START_TEST (test_gamma_updates)
{
  static const gdouble gammas[] = { 0.8, 1.0, 2.2, 0.45, 1.0, 3.0 };
  guint32 seed = co_test_seed ("test_gamma_updates", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const guint batch = 1 + __i__ % 3;
  const gboolean submit_thread = __i__ >= 3;
  OpCfg cfg = { CO_REF_GAMMA, gammas[0], 0 };
  GstHarness *h = make_harness (&cfg, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  guint g, k, n = 0, passports;
  gchar *ctx = g_strdup_printf ("[gamma updates, batch=%u submit-thread=%d, "
      "I420 161x93 backend=%s seed=0x%08x]", batch, submit_thread,
      co_test_backend, seed);

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "batch", batch, "submit-thread", submit_thread,
      "gamma", gammas[0], NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 161, 93, &info));
  for (g = 0; g < G_N_ELEMENTS (gammas); g++) {
    if (g > 0) {
      cfg.gamma = gammas[g];
      g_object_set (h->element, "gamma", cfg.gamma, NULL);
    }
    /* 1 to 4 frames: batches are left partly filled at the change */
    for (k = g_rand_int_range (rand, 1, 5); k > 0; k--, n++)
      push_frame (h, rand, &info, &cfg, &layout_default, n * GST_SECOND / 30,
          &pending, ctx);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (k = 0; k < n; k++)
    pull_and_check (h, &info, &pending, ctx);
  passports = count_passports (bus);
  fail_unless (passports == 1, "%s: %u engine builds for gamma changes only "
      "(expected one: they apply without a rebuild)", ctx, passports);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Whether @out is @op's reference for @in. */
static gboolean
output_is (GstBuffer * out, const OpCfg * op, GstBuffer * in,
    const GstVideoInfo * info)
{
  GstBuffer *exp = make_expected (op, in, info);
  GstVideoFrame fe, fo;
  gchar *msg = NULL;
  gboolean same;

  fail_unless (gst_video_frame_map (&fe, info, exp, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  same = co_ref_compare (&fe, &fo, &msg);
  gst_video_frame_unmap (&fe);
  gst_video_frame_unmap (&fo);
  gst_buffer_unref (exp);
  g_free (msg);
  return same;
}

static gpointer
push_one (gpointer data)
{
  GstHarness *h = data;

  return GINT_TO_POINTER (gst_harness_push (h, g_object_steal_data (G_OBJECT
              (h->element), "co-test-buffer")));
}

/* A gamma applied without a rebuild is read with the operation it goes
 * with.  gamma 1.7 is set; while the element applies it (held between
 * reading the settings and making the table by a -Dfault-injection hook),
 * the operation becomes box-blur and gamma 3: the frame must come out with
 * gamma 1.7, or box-blur, never the operation gamma with gamma 3, a pair
 * never set.  (Reading gamma after the operation did that: the H200's
 * finding of docs/RELIABILITY.md, and seed 0x22a64d50 on the CPU backend
 * with the workers' jitter.) */
GST_START_TEST (test_gamma_read_with_operation)
{
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_update_delay_us");
  guint32 seed = co_test_seed ("test_gamma_read_with_operation", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg g22 = { CO_REF_GAMMA, 2.2, 0 }, g17 = { CO_REF_GAMMA, 1.7, 0 };
  const OpCfg g3 = { CO_REF_GAMMA, 3.0, 0 }, blur = { CO_REF_BOX_BLUR, 3.0, 3 };
  GstHarness *h;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GQueue pending = G_QUEUE_INIT;
  GThread *t;
  gchar *ctx = g_strdup_printf ("[gamma read with the operation, I420 161x93 "
      "backend=%s seed=0x%08x]", co_test_backend, seed);

  if (!set_delay) {
    g_print ("%s: no co_test_set_update_delay_us (built without "
        "-Dfault-injection): skipped\n", ctx);
    g_free (ctx);
    g_rand_free (rand);
    return;
  }
  h = make_harness (&g22, &co_test_run_cfgs[3]);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 161, 93, &info));
  push_frame (h, rand, &info, &g22, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &info, &pending, ctx);

  g_object_set (h->element, "gamma", g17.gamma, NULL);
  set_delay (300 * 1000);
  in = make_input (rand, &info, &layout_default);
  g_object_set_data (G_OBJECT (h->element), "co-test-buffer",
      gst_buffer_ref (in));
  t = g_thread_new ("push", push_one, h);
  g_usleep (100 * 1000);        /* the element is inside the update now */
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "box-blur");
  g_object_set (h->element, "radius", blur.radius, "gamma", g3.gamma, NULL);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (t)), GST_FLOW_OK);
  set_delay (0);
  out = co_test_pull_buffer (h, ctx);
  fail_if (output_is (out, &g3, in, &info), "%s: the operation gamma with "
      "the gamma set after the operation had changed", ctx);
  fail_unless (output_is (out, &g17, in, &info) ||
      output_is (out, &blur, in, &info), "%s: neither gamma 1.7 nor "
      "box-blur radius 3", ctx);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* A CAPS event whose drain a FLUSH_START cuts short must not overtake a
 * frame the push task is still pushing: downstream would get that frame
 * after the new caps (a frame of 64x48 with caps of 32x16).  The push task
 * is held inside its push (a probe on our source pad) while the CAPS event
 * drains on another thread; FLUSH_START then ends the drain and is held
 * between the element's flushing and its going downstream (a
 * -Dfault-injection hook), the window in which the old code pushed the
 * new caps; the held push goes on once downstream has the new caps or the
 * flush.  Every buffer downstream must be the size its caps say. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean go;                  /* the held push may go on */
  gboolean held;                /* the first push is being held */
  gsize bad_size;               /* a buffer of the wrong size for its caps */
  gsize want_size;
} CapsOrder;

static GstPadProbeReturn
hold_first_push (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info
    G_GNUC_UNUSED, gpointer data)
{
  CapsOrder *o = data;
  gint64 until = g_get_monotonic_time () + 3 * G_TIME_SPAN_SECOND;

  g_mutex_lock (&o->lock);
  if (!o->held) {
    o->held = TRUE;
    g_cond_broadcast (&o->cond);
    while (!o->go && g_cond_wait_until (&o->cond, &o->lock, until));
  }
  g_mutex_unlock (&o->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
watch_downstream (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  CapsOrder *o = data;

  g_mutex_lock (&o->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstVideoInfo vi;

    if (caps && gst_video_info_from_caps (&vi, caps) &&
        gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info)) !=
        GST_VIDEO_INFO_SIZE (&vi) && !o->bad_size) {
      o->bad_size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
      o->want_size = GST_VIDEO_INFO_SIZE (&vi);
    }
    if (caps)
      gst_caps_unref (caps);
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS ||
        GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_START) {
      o->go = TRUE;
      g_cond_broadcast (&o->cond);
    }
  }
  g_mutex_unlock (&o->lock);
  return GST_PAD_PROBE_OK;
}

static gpointer
push_caps_event (gpointer data)
{
  GstHarness *h = data;
  GstCaps *caps = g_object_get_data (G_OBJECT (h->element), "co-test-caps");

  gst_harness_push_event (h, gst_event_new_caps (caps));
  return NULL;
}

GST_START_TEST (test_caps_drain_cut_by_flush)
{
  CoTestSetDelay set_delay =
      co_test_plugin_symbol ("co_test_set_flush_delay_us");
  guint32 seed = co_test_seed ("test_caps_drain_cut_by_flush", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[0];
  GstVideoInfo a, b;
  GstCaps *caps_a = caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &a);
  GstCaps *caps_b = caps_of (GST_VIDEO_FORMAT_RGBA, 32, 16, &b);
  GstHarness *h;
  GstPad *src;
  GQueue pending = G_QUEUE_INIT;
  CapsOrder o;
  GThread *t;
  gulong hold;
  gchar *ctx = g_strdup_printf ("[caps drain cut by a flush, RGBA 64x48 then "
      "32x16, backend=%s seed=0x%08x]", co_test_backend, seed);

  if (!set_delay) {
    g_print ("%s: no co_test_set_flush_delay_us (built without "
        "-Dfault-injection): skipped\n", ctx);
    gst_caps_unref (caps_a);
    gst_caps_unref (caps_b);
    g_free (ctx);
    g_rand_free (rand);
    return;
  }
  memset (&o, 0, sizeof (o));
  g_mutex_init (&o.lock);
  g_cond_init (&o.cond);
  h = make_harness (op, &co_test_run_cfgs[3]);
  gst_harness_set_src_caps (h, gst_caps_ref (caps_a));
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      watch_downstream, &o, NULL);
  src = gst_element_get_static_pad (h->element, "src");
  hold = gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, hold_first_push,
      &o, NULL);

  /* a frame of A, held inside its push */
  fail_unless_equals_int (gst_harness_push (h, make_input (rand, &a,
              &layout_default)), GST_FLOW_OK);
  g_mutex_lock (&o.lock);
  while (!o.held)
    g_cond_wait (&o.cond, &o.lock);
  g_mutex_unlock (&o.lock);
  /* caps B: its drain waits for that frame */
  g_object_set_data_full (G_OBJECT (h->element), "co-test-caps",
      gst_caps_ref (caps_b), (GDestroyNotify) gst_caps_unref);
  t = g_thread_new ("caps", push_caps_event, h);
  g_usleep (200 * 1000);
  /* the flush ends the drain and waits 300 ms before going downstream */
  set_delay (300 * 1000);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  set_delay (0);
  g_thread_join (t);
  gst_pad_remove_probe (src, hold);
  gst_object_unref (src);
  fail_unless (o.bad_size == 0, "%s: a buffer of %" G_GSIZE_FORMAT " bytes "
      "went downstream under caps of %" G_GSIZE_FORMAT "-byte frames: the new "
      "caps overtook a frame being pushed", ctx, o.bad_size, o.want_size);

  /* after the flush: caps B again, and its frames come out right */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_harness_set_src_caps (h, gst_caps_ref (caps_b));
  while (gst_harness_buffers_in_queue (h))
    gst_buffer_unref (gst_harness_pull (h));
  push_frame (h, rand, &b, op, &layout_default, 0, &pending, ctx);
  pull_and_check (h, &b, &pending, ctx);
  fail_unless (o.bad_size == 0, "%s: a buffer of the wrong size after the "
      "flush", ctx);
  teardown_harness (h);
  gst_caps_unref (caps_a);
  gst_caps_unref (caps_b);
  g_mutex_clear (&o.lock);
  g_cond_clear (&o.cond);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_batch_property_change)
{
  guint32 seed = co_test_seed ("test_batch_property_change", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *before = &op_cfgs[0], *after = &op_cfgs[2];
  GstVideoInfo info;
  GstHarness *h = make_harness (before, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  gchar *ctx = g_strdup_printf ("[batch=3, invert then gamma 2.2 mid-batch, "
      "I420 75x41 backend=%s seed=0x%08x]", co_test_backend, seed);
  guint i;

  g_object_set (h->element, "batch", 3, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < 2; i++)
    push_frame (h, rand, &info, before, &layout_default, i * GST_SECOND,
        &pending, ctx);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "gamma");
  g_object_set (h->element, "gamma", after->gamma, NULL);
  push_frame (h, rand, &info, after, &layout_default, 2 * GST_SECOND,
      &pending, ctx);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 3);
  for (i = 0; i < 3; i++)
    pull_and_check (h, &info, &pending, ctx);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_latency_query)
{
  GstHarness *h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  GstVideoInfo info;
  GstClockTime lat;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 32, 32, &info));
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  lat = gst_harness_query_latency (h);
  fail_unless (GST_CLOCK_TIME_IS_VALID (lat), "latency query failed");
  fail_unless (lat >= 10 * GST_MSECOND, "latency %" GST_TIME_FORMAT
      " lost upstream's 10 ms", GST_TIME_ARGS (lat));
  fail_unless_equals_uint64 (lat, 10 * GST_MSECOND);
  teardown_harness (h);

  /* batch=4 at 30 frames/s: a frame may wait for 3 more, each within the
   * batch timeout of the one before (the batch goes without them then) */
  h = make_harness (&op_cfgs[0], &co_test_run_cfgs[3]);
  g_object_set (h->element, "batch", 4, NULL);
  gst_harness_set_src_caps (h, gst_caps_new_simple ("video/x-raw", "format",
          G_TYPE_STRING, "RGBA", "width", G_TYPE_INT, 32, "height",
          G_TYPE_INT, 32, "framerate", GST_TYPE_FRACTION, 30, 1, NULL));
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  /* the engine (and the batch in effect) exists once a buffer went in */
  {
    GstBuffer *in = gst_buffer_new_allocate (NULL, 32 * 32 * 4, NULL);

    gst_buffer_memset (in, 0, 0x5a, 32 * 32 * 4);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  /* each of the 3 may come up to the batch timeout after the one before:
   * min (one frame duration, 20 ms) = 20 ms at 30 frames/s */
  lat = gst_harness_query_latency (h);
  fail_unless_equals_uint64 (lat, 10 * GST_MSECOND + 3 * 20 * GST_MSECOND);
  teardown_harness (h);
}

GST_END_TEST;

/* backend=cuda: an error at the state change where no GPU is usable (the
 * error message says so); where one is, PLAYING works. */
GST_START_TEST (test_backend_cuda_state_change)
{
  GstElement *e = gst_element_factory_make (ELEMENT, NULL);
  GstBus *bus = gst_bus_new ();
  GstStateChangeReturn ret;

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cuda");
  ret = gst_element_set_state (e, GST_STATE_PLAYING);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    gchar *text, *lower;
    fail_unless (msg != NULL, "state change failed with no ERROR message");
    text = co_test_error_text (msg);
    lower = g_ascii_strdown (text, -1);
    fail_unless (strstr (lower, "cuda") != NULL, "the error does not "
        "mention CUDA: \"%s\"", text);
    GST_INFO ("backend=cuda refused: %s", text);
    g_free (lower);
    g_free (text);
    gst_message_unref (msg);
  } else {
    fail_unless_equals_int (gst_element_get_state (e, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
  }
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* A good citizen: passthrough, QoS, one whole-run message                   */
/* ------------------------------------------------------------------------ */

/* The whole-run statistics messages on @bus (and no window message when
 * @windows is FALSE); returns the last one, or NULL. */
static GstStructure *
pop_whole_run (GstBus * bus, gboolean windows, guint * n_whole)
{
  GstStructure *last = NULL;
  GstMessage *m;

  *n_whole = 0;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *st = gst_message_get_structure (m);

    if (gst_structure_has_name (st, "cudaoverlap-stats")) {
      gboolean whole = FALSE;

      gst_structure_get_boolean (st, "whole-run", &whole);
      fail_unless (whole || windows, "a window message with "
          "stats-interval=0: %" GST_PTR_FORMAT, st);
      if (whole) {
        (*n_whole)++;
        if (last)
          gst_structure_free (last);
        last = gst_structure_copy (st);
      }
    }
    gst_message_unref (m);
  }
  return last;
}

/* Identity settings (gamma 1, box-blur radius 0; batch 1 and 3): every
 * input buffer itself comes out (no copy, no kernel), the statistics say
 * passthrough and count the frames, and with stats-interval=0 one
 * whole-run message arrives at EOS, no window message. */
GST_START_TEST (test_passthrough)
{
  static const struct
  {
    guint op, batch;
  } cases[] = { {3, 1}, {4, 1}, {3, 3} };
  guint32 seed = co_test_seed ("test_passthrough", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[cases[__i__].op];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info;
  GstStructure *st;
  gboolean pt = FALSE;
  guint64 frames = 0, frames_pt = 0;
  guint i, n_whole;
  const guint n = 7;
  gchar *ctx = g_strdup_printf ("[passthrough, %s batch=%u, RGBA 33x17 "
      "backend=%s seed=0x%08x]", co_ref_op_nick (op->op), cases[__i__].batch,
      co_test_backend, seed);

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "batch", cases[__i__].batch, "stats-interval",
      (guint64) 0, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 33, 17, &info));
  for (i = 0; i < n; i++) {
    GstBuffer *in = make_input (rand, &info, &layout_default), *out;
    GstMapInfo mi, mo;

    GST_BUFFER_PTS (in) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = co_test_pull_buffer (h, ctx);
    fail_unless (out == in, "%s: frame %u: a new buffer came out, not the "
        "input", ctx, i);
    fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
    fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
    fail_unless (mi.data == mo.data && mi.size == mo.size);
    gst_buffer_unmap (in, &mi);
    gst_buffer_unmap (out, &mo);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = pop_whole_run (bus, FALSE, &n_whole);
  fail_unless_equals_int (n_whole, 1);
  fail_unless (gst_structure_get (st, "passthrough", G_TYPE_BOOLEAN, &pt,
          "frames", G_TYPE_UINT64, &frames, "frames-passthrough",
          G_TYPE_UINT64, &frames_pt, NULL), "%s: %" GST_PTR_FORMAT, ctx, st);
  fail_unless (pt, "%s: passthrough not said", ctx);
  fail_unless_equals_uint64 (frames, n);
  fail_unless_equals_uint64 (frames_pt, n);
  gst_structure_free (st);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Into and out of passthrough while frames are in flight (nothing pulled
 * until the end; batch 1 and 3, the switch falling mid-batch): every
 * output in order and computed with the settings in effect when its input
 * entered; the identity ones are the input buffers themselves. */
GST_START_TEST (test_passthrough_switch)
{
  static const guint seq[] = { 2, 2, 3, 3, 3, 1, 1, 4, 4, 6, 3, 0, 0, 0 };
  const guint batch = __i__ == 0 ? 1 : 3;
  guint32 seed = co_test_seed ("test_passthrough_switch", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  GstHarness *h = make_harness (&op_cfgs[2], &co_test_run_cfgs[3]);
  GstVideoInfo info;
  GstBuffer *ins[G_N_ELEMENTS (seq)], *exp[G_N_ELEMENTS (seq)];
  guint i;
  gchar *ctx = g_strdup_printf ("[passthrough switches, batch=%u, I420 "
      "75x41 backend=%s seed=0x%08x]", batch, co_test_backend, seed);

  g_object_set (h->element, "batch", batch, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];

    gst_util_set_object_arg (G_OBJECT (h->element), "operation",
        co_ref_op_nick (op->op));
    g_object_set (h->element, "gamma", op->gamma, "radius", op->radius, NULL);
    ins[i] = make_input (rand, &info, &layout_default);
    exp[i] = make_expected (op, ins[i], &info);
    GST_BUFFER_PTS (ins[i]) = GST_BUFFER_PTS (exp[i]) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (ins[i])),
        GST_FLOW_OK);
  }
  /* the last partial batch goes at EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    const OpCfg *op = &op_cfgs[seq[i]];
    gboolean identity = (op->op == CO_REF_GAMMA && op->gamma == 1.0) ||
        (op->op == CO_REF_BOX_BLUR && op->radius == 0);
    gchar *c = g_strdup_printf ("%s, frame %u (%s)", ctx, i,
        co_ref_op_nick (op->op));
    GstBuffer *out = co_test_pull_buffer (h, c);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (exp[i]));
    fail_unless (!identity || out == ins[i], "%s: not passed through", c);
    fail_unless (identity || out != ins[i], "%s: passed through", c);
    check_output (out, exp[i], &info, c);
    gst_buffer_unref (out);
    gst_buffer_unref (ins[i]);
    gst_buffer_unref (exp[i]);
    g_free (c);
  }
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* QoS (qos=true by default): frames whose running time is at or before
 * the earliest time of downstream's last QOS event are dropped, each with
 * a QOS message (processed/dropped counts), and the next frame that goes
 * on carries DISCONT; passthrough frames are dropped the same way.  With
 * qos=false nothing is dropped. */
GST_START_TEST (test_qos)
{
  const gboolean qos = __i__ != 1, identity = __i__ == 2;
  guint32 seed = co_test_seed ("test_qos", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[identity ? 3 : 0];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GstBus *bus = gst_bus_new ();
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstSegment seg;
  GstMessage *m;
  gboolean enabled = FALSE;
  guint i, n_msgs = 0;
  /* 30 fps; downstream says: 1 s late at 1 s (earliest: 2 s) */
  static const GstClockTime pts[] = { 0, 1000, 1500, 2000, 2500, 3000 };
  gchar *ctx = g_strdup_printf ("[QoS, qos=%d, %s, NV12 161x93 backend=%s "
      "seed=0x%08x]", qos, co_ref_op_nick (op->op), co_test_backend, seed);

  g_object_get (h->element, "qos", &enabled, NULL);
  fail_unless (enabled, "%s: qos is not on by default", ctx);
  g_object_set (h->element, "qos", qos, NULL);
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_NV12, 161, 93, &info));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = 0;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 0; i < G_N_ELEMENTS (pts); i++) {
    GstClockTime t = pts[i] * GST_MSECOND;
    gboolean late = qos && t > 0 && t <= 2 * GST_SECOND;

    if (i == 1)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_qos (GST_QOS_TYPE_UNDERFLOW, 0.8, GST_SECOND,
                  GST_SECOND)));
    if (late) {
      GstBuffer *in = make_input (rand, &info, &layout_default);

      GST_BUFFER_PTS (in) = t;
      GST_BUFFER_DURATION (in) = GST_SECOND / 30;
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
    } else {
      push_frame (h, rand, &info, op, &layout_default, t, &pending, ctx);
    }
  }
  while (g_queue_get_length (&pending) > 0) {
    GstBuffer *exp = g_queue_peek_head (&pending), *out;
    GstClockTime t = GST_BUFFER_PTS (exp);

    out = gst_harness_pull (h);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), t);
    /* the first frame after the dropped ones */
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (out,
            GST_BUFFER_FLAG_DISCONT), qos && t == 2500 * GST_MSECOND);
    check_output (out, exp, &info, ctx);
    gst_buffer_unref (out);
    gst_buffer_unref (g_queue_pop_head (&pending));
  }
  fail_unless (gst_harness_try_pull (h) == NULL, "%s: more outputs", ctx);

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS))) {
    guint64 processed, dropped;
    GstFormat fmt;

    gst_message_parse_qos_stats (m, &fmt, &processed, &dropped);
    n_msgs++;
    fail_unless_equals_int (fmt, GST_FORMAT_BUFFERS);
    fail_unless_equals_uint64 (dropped, n_msgs);
    fail_unless_equals_uint64 (processed, 1);
    gst_message_unref (m);
  }
  fail_unless_equals_int (n_msgs, qos ? 3 : 0);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* A RECONFIGURE from downstream (it may take other caps now) makes the
 * element decide its output caps again before the next frame: with the
 * same answer (system memory here) nothing is sent again, nothing is
 * rebuilt, and frames go on right. */
GST_START_TEST (test_reconfigure)
{
  guint32 seed = co_test_seed ("test_reconfigure", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[2];
  GstHarness *h = make_harness (op, &co_test_run_cfgs[3]);
  GQueue pending = G_QUEUE_INIT;
  GstVideoInfo info;
  GstEvent *ev;
  guint i, caps_events = 0;
  gchar *ctx = g_strdup_printf ("[reconfigure, gamma, I420 75x41 backend=%s "
      "seed=0x%08x]", co_test_backend, seed);

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_I420, 75, 41, &info));
  for (i = 0; i < 6; i++) {
    if (i == 2 || i == 4)
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_reconfigure ()));
    push_frame (h, rand, &info, op, &layout_default, i * GST_SECOND, &pending,
        ctx);
    pull_and_check (h, &info, &pending, ctx);
  }
  while ((ev = gst_harness_try_pull_event (h))) {
    caps_events += GST_EVENT_TYPE (ev) == GST_EVENT_CAPS;
    gst_event_unref (ev);
  }
  fail_unless_equals_int (caps_events, 1);
  teardown_harness (h);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* QoS as a pipeline meets it: a sink that syncs to the clock behind a
 * stage that takes longer than a frame (identity sleep-time) sends QOS
 * events; with qos on, the element drops frames and says so (QOS messages
 * from it, fewer frames at the sink); with qos off it drops none. */
GST_START_TEST (test_qos_slow_sink)
{
  const gboolean qos = __i__ == 0;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=40 ! "
      "video/x-raw,format=GRAY8,width=65,height=33,framerate=50/1 ! "
      "cudavideofilter name=f backend=%s qos=%d ! identity sleep-time=40000 ! "
      "fakesink name=sink sync=true qos=true", co_test_backend, qos);
  GstElement *pipe = gst_parse_launch (desc, NULL), *f, *sink;
  GstBus *bus;
  GstMessage *m;
  guint64 rendered = 0, from_f = 0;

  fail_unless (pipe != NULL, "cannot make %s", desc);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_QOS))) {
    GstMessageType t = GST_MESSAGE_TYPE (m);

    if (t == GST_MESSAGE_QOS && GST_MESSAGE_SRC (m) == GST_OBJECT (f))
      from_f++;
    gst_message_unref (m);
    if (t == GST_MESSAGE_EOS)
      break;
    fail_if (t == GST_MESSAGE_ERROR, "%s: error", desc);
  }
  g_object_get (sink, "stats", &m, NULL);
  gst_structure_get_uint64 ((GstStructure *) m, "rendered", &rendered);
  gst_structure_free ((GstStructure *) m);
  GST_INFO ("qos=%d: %" G_GUINT64_FORMAT " QOS messages from the element, %"
      G_GUINT64_FORMAT " frames rendered", qos, from_f, rendered);
  if (qos) {
    fail_unless (from_f > 0, "%s: the element dropped nothing", desc);
    fail_unless (rendered + from_f <= 40);
  } else {
    fail_unless_equals_uint64 (from_f, 0);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Automatic settings (streams, chunks, batch at 0, wait-mode=auto)          */
/* ------------------------------------------------------------------------ */

/* The harness's source answers LATENCY live (GstHarness does); this one
 * answers it non-live, as a file or a generator would.  Other queries go
 * to the harness's own function. */
static GstPadQueryFunction harness_src_query;

static gboolean
nonlive_src_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return harness_src_query (pad, parent, query);
  gst_query_set_latency (query, FALSE, 0, GST_CLOCK_TIME_NONE);
  return TRUE;
}

/* A harness whose element posts on @bus; @live: upstream is live. */
static GstHarness *
make_auto_harness (gboolean live, GstBus ** bus)
{
  GstHarness *h = make_harness (&op_cfgs[0], NULL);

  if (!live) {
    harness_src_query = GST_PAD_QUERYFUNC (h->srcpad);
    gst_pad_set_query_function (h->srcpad, nonlive_src_query);
  }
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

typedef struct
{
  guint passports, latency_msgs;
  GstStructure *passport;       /* the property at the end */
} AutoRun;

/* Pushes @n random pictures as fast as the element takes them (all made,
 * with their references, first), then EOS; every output is compared with
 * its reference, in order.  Counts the passports and LATENCY messages. */
static void
run_auto (GstHarness * h, GstBus * bus, const GstVideoInfo * info, guint n,
    GRand * rand, const gchar * ctx, AutoRun * r)
{
  GQueue pending = G_QUEUE_INIT;
  GstBuffer **in = g_new (GstBuffer *, n);
  GstMessage *m;
  guint i;

  for (i = 0; i < n; i++) {
    GstBuffer *exp;

    in[i] = make_input (rand, info, &layout_default);
    exp = make_expected (&op_cfgs[0], in[i], info);
    GST_BUFFER_PTS (in[i]) = GST_BUFFER_PTS (exp) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION (in[i]) = GST_SECOND / 30;
    g_queue_push_tail (&pending, exp);
  }
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, in[i]), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), n);
  for (i = 0; i < n; i++)
    pull_and_check (h, info, &pending, ctx);
  memset (r, 0, sizeof (*r));
  while ((m = gst_bus_pop (bus))) {
    if (gst_message_has_name (m, "cudaoverlap-passport"))
      r->passports++;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_LATENCY)
      r->latency_msgs++;
    gst_message_unref (m);
  }
  g_object_get (h->element, "passport", &r->passport, NULL);
  fail_unless (r->passport != NULL, "%s: no passport", ctx);
  GST_INFO ("%s: %" GST_PTR_FORMAT, ctx, r->passport);
  g_free (in);
}

static guint
pp_uint (const GstStructure * s, const gchar * field)
{
  guint v = 0;

  fail_unless (gst_structure_get_uint (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static gboolean
pp_auto (const GstStructure * s)
{
  gboolean v = FALSE;

  fail_unless (gst_structure_get_boolean (s, "auto", &v));
  return v;
}

/* The value of @prop's enum nick @nick. */
static gint
enum_value (GstElement * e, const gchar * prop, const gchar * nick)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), prop);
  GEnumValue *v = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (ps)->enum_class,
      nick);

  fail_unless (v != NULL, "%s has no value %s", prop, nick);
  return v->value;
}

/* The properties of @e read back automatic: 0, 0, 0, auto. */
static void
check_props_auto (GstElement * e)
{
  guint s, c, b;
  gint wait;

  g_object_get (e, "streams", &s, "chunks", &c, "batch", &b, "wait-mode",
      &wait, NULL);
  fail_unless (s == 0 && c == 0 && b == 0, "streams %u chunks %u batch %u: "
      "not automatic (0)", s, c, b);
  fail_unless_equals_int (wait, enum_value (e, "wait-mode", "auto"));
}

/* The defaults are automatic: the properties read back 0 and auto, before
 * and after a run, and the passport says what was chosen and why.  The
 * harness is a live source: batch 1. */
GST_START_TEST (test_auto_defaults)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_defaults", 0));
  GstBus *bus;
  GstHarness *h = make_auto_harness (TRUE, &bus);
  GstVideoInfo info;
  AutoRun r;

  check_props_auto (h->element);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 640, 480,
          &info));
  run_auto (h, bus, &info, 12, rand, "[auto defaults, live]", &r);
  check_props_auto (h->element);
  fail_unless (pp_auto (r.passport));
  fail_unless (pp_uint (r.passport, "streams") >= 2);
  fail_unless (pp_uint (r.passport, "chunks") >= 1);
  fail_unless_equals_int (pp_uint (r.passport, "batch"), 1);
  fail_unless (g_str_has_prefix (gst_structure_get_string (r.passport,
              "auto-reason"), "live"), "%" GST_PTR_FORMAT, r.passport);
  fail_unless_equals_int (r.passports, 1);
  fail_unless_equals_int (r.latency_msgs, 0);
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);
  g_rand_free (rand);
}

GST_END_TEST;

/* A run of @n RGBA 64x48 frames with @streams set (G_MAXUINT: left
 * alone); the passport. */
static GstStructure *
run_streams (guint streams, gboolean live, guint n, GRand * rand,
    const gchar * ctx)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  AutoRun r;

  if (streams != G_MAXUINT)
    g_object_set (h->element, "streams", streams, NULL);
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &info));
  run_auto (h, bus, &info, n, rand, ctx, &r);
  fail_unless_equals_int (r.passports, 1);
  teardown_harness_with_bus (h, bus);
  return r.passport;
}

/* Staged input (pageable frames seen once, copied into page-locked memory
 * by a few threads; forced on the CPU backend by a test hook): from a
 * non-live source the element turns its submit thread on once the first
 * frames are measured, so the next frame's copies run while this one's
 * are finished; not from a live one, nor when submit-thread is set.  Every
 * output is compared, and every frame counted staged. */
static GstStructure *
run_staged (gboolean live, gint submit_thread, GRand * rand, const gchar * ctx)
{
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  GstStructure *st = NULL;
  guint64 staged = 0;
  GstVideoInfo info;
  AutoRun r;

  if (submit_thread >= 0)
    g_object_set (h->element, "submit-thread", submit_thread, NULL);
  /* 1.2 MB frames: cut in parts */
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 641, 481,
          &info));
  run_auto (h, bus, &info, 48, rand, ctx, &r);
  g_object_get (h->element, "stats", &st, NULL);
  fail_unless (st && gst_structure_get_uint64 (st, "frames-staged", &staged),
      "%s: no statistics", ctx);
  fail_unless_equals_uint64 (staged, 48);
  gst_structure_free (st);
  teardown_harness_with_bus (h, bus);
  return r.passport;
}

GST_START_TEST (test_auto_staged)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_staged", 0));
  CoTestSetFlag force = co_test_plugin_symbol ("co_test_set_force_staging");
  gboolean st = FALSE;
  GstStructure *pp;

  if (!force && !g_str_equal (co_test_backend, "cuda")) {
    g_print ("test_auto_staged: no co_test_set_force_staging (built without "
        "-Dfault-injection) and the CPU backend stages nothing: skipped\n");
    g_rand_free (rand);
    return;
  }
  if (force)
    force (TRUE);
  pp = run_staged (FALSE, -1, rand, "[staged, non-live]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && st,
      "%" GST_PTR_FORMAT, pp);
  fail_unless (pp_auto (pp));
  fail_unless (strstr (gst_structure_get_string (pp, "auto-reason"),
          "submit thread (staged input"), "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  pp = run_staged (TRUE, -1, rand, "[staged, live]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && !st,
      "%" GST_PTR_FORMAT, pp);
  fail_unless (strstr (gst_structure_get_string (pp, "auto-reason"),
          "no submit thread (live"), "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  pp = run_staged (FALSE, FALSE, rand, "[staged, submit-thread=false]");
  fail_unless (gst_structure_get_boolean (pp, "submit-thread", &st) && !st,
      "%" GST_PTR_FORMAT, pp);
  gst_structure_free (pp);
  if (force)
    force (FALSE);
  g_rand_free (rand);
}

GST_END_TEST;

/* Explicit values are kept exactly (and read back); with all of them set
 * (submit-thread too, which is chosen unless set) nothing is automatic,
 * even after the first frames were measured.  One
 * explicit value leaves the others automatic, and setting it back to 0
 * makes it automatic again. */
GST_START_TEST (test_auto_explicit_kept)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_explicit", 0));
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (FALSE, &bus);
  GstStructure *a, *b;
  guint s, c, bt;
  AutoRun r;

  g_object_set (h->element, "streams", 3, "chunks", 5, "batch", 2,
      "submit-thread", FALSE, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode", "blocking");
  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48, &info));
  run_auto (h, bus, &info, 60, rand, "[explicit 3 x 5 batch 2]", &r);
  fail_unless (!pp_auto (r.passport));
  fail_unless_equals_int (pp_uint (r.passport, "streams"), 3);
  fail_unless_equals_int (pp_uint (r.passport, "chunks"), 5);
  fail_unless_equals_int (pp_uint (r.passport, "batch"), 2);
  fail_unless_equals_string (gst_structure_get_string (r.passport,
          "auto-reason"), "");
  fail_unless_equals_int (r.passports, 1);
  fail_unless_equals_int (r.latency_msgs, 0);
  g_object_get (h->element, "streams", &s, "chunks", &c, "batch", &bt, NULL);
  fail_unless (s == 3 && c == 5 && bt == 2);
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);

  /* streams set, the rest automatic; set back to 0: automatic again */
  a = run_streams (3, TRUE, 4, rand, "[explicit streams 3]");
  fail_unless (pp_auto (a));
  fail_unless_equals_int (pp_uint (a, "streams"), 3);
  fail_unless (strstr (gst_structure_get_string (a, "auto-reason"),
          "streams 3 (set)"), "%" GST_PTR_FORMAT, a);
  gst_structure_free (a);
  a = run_streams (G_MAXUINT, TRUE, 4, rand, "[default streams]");
  h = make_auto_harness (TRUE, &bus);
  g_object_set (h->element, "streams", 3, NULL);
  g_object_set (h->element, "streams", 0, NULL);
  check_props_auto (h->element);
  teardown_harness_with_bus (h, bus);
  b = run_streams (0, TRUE, 4, rand, "[streams 0]");
  fail_unless_equals_int (pp_uint (b, "streams"), pp_uint (a, "streams"));
  fail_unless (!strstr (gst_structure_get_string (b, "auto-reason"),
          "(set)"), "%" GST_PTR_FORMAT, b);
  gst_structure_free (a);
  gst_structure_free (b);
  g_rand_free (rand);
}

GST_END_TEST;

/* The first frames of a non-live source are measured and the choice made
 * again: tiny frames pushed as fast as the element takes them make the
 * host the bound, so the batch grows: a rebuild after a drain (every
 * output still there, in order, equal to the reference), a second
 * passport, and a LATENCY message for the new batch.  A live source with
 * the same frames keeps batch 1, without a rebuild. */
GST_START_TEST (test_auto_redecide)
{
  const gboolean live = __i__ == 1;
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_redecide",
          __i__));
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = make_auto_harness (live, &bus);
  const gchar *reason;
  gchar *ctx = g_strdup_printf ("[auto re-decision, %s, GRAY8 16x16, "
      "backend=%s]", live ? "live" : "non-live", co_test_backend);
  AutoRun r;

  gst_harness_set_src_caps (h, caps_of (GST_VIDEO_FORMAT_GRAY8, 16, 16, &info));
  run_auto (h, bus, &info, 100, rand, ctx, &r);
  reason = gst_structure_get_string (r.passport, "auto-reason");
  fail_unless (strstr (reason, "measured") != NULL, "%s: not measured: %s",
      ctx, reason);
  if (live) {
    fail_unless_equals_int (pp_uint (r.passport, "batch"), 1);
    fail_unless_equals_int (r.passports, 1);
    fail_unless_equals_int (r.latency_msgs, 0);
  } else {
    fail_unless (pp_uint (r.passport, "batch") == 8, "%s: batch %u: %s", ctx,
        pp_uint (r.passport, "batch"), reason);
    fail_unless_equals_int (r.passports, 2);
    fail_unless_equals_int (r.latency_msgs, 1);
  }
  gst_structure_free (r.passport);
  teardown_harness_with_bus (h, bus);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* Elements of one process on one device share it: each built engine is
 * counted (the passport's device-engines, itself included), the automatic
 * streams of each new one take the others into account (the CPU backend:
 * the cores; a GPU: its 8 hardware queues), and an element that stops is
 * no longer counted. */
GST_START_TEST (test_auto_device_share)
{
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_auto_device_share",
          0));
  GstVideoInfo info;
  GstHarness *h[3];
  GstBus *bus[3];
  AutoRun r[3], last;
  guint base = 0, i, n, s;

  for (i = 0; i < 3; i++) {
    gchar *ctx = g_strdup_printf ("[device share, element %u]", i);

    h[i] = make_auto_harness (FALSE, &bus[i]);
    gst_harness_set_src_caps (h[i], caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48,
            &info));
    run_auto (h[i], bus[i], &info, 4, rand, ctx, &r[i]);
    g_free (ctx);
    n = pp_uint (r[i].passport, "device-engines");
    s = pp_uint (r[i].passport, "streams");
    if (i == 0)
      base = n;
    fail_unless (base >= 1);
    fail_unless_equals_int (n, base + i);
    if (i > 0)
      fail_unless (s <= pp_uint (r[i - 1].passport, "streams"), "%"
          GST_PTR_FORMAT, r[i].passport);
    if (!g_strcmp0 (gst_structure_get_string (r[i].passport, "backend"), "cpu")) {
      fail_unless_equals_int (s, CLAMP (g_get_num_processors () / n, 1, 8));
      if (n > 1)
        fail_unless (strstr (gst_structure_get_string (r[i].passport,
                    "auto-reason"), "shared by") != NULL, "%" GST_PTR_FORMAT,
            r[i].passport);
    }
  }
  for (i = 0; i < 3; i++) {
    gst_structure_free (r[i].passport);
    teardown_harness_with_bus (h[i], bus[i]);
  }
  /* the three stopped: a new one counts as the first did */
  h[0] = make_auto_harness (FALSE, &bus[0]);
  gst_harness_set_src_caps (h[0], caps_of (GST_VIDEO_FORMAT_RGBA, 64, 48,
          &info));
  run_auto (h[0], bus[0], &info, 4, rand, "[device share, after]", &last);
  fail_unless_equals_int (pp_uint (last.passport, "device-engines"), base);
  gst_structure_free (last.passport);
  teardown_harness_with_bus (h[0], bus[0]);
  g_rand_free (rand);
}

GST_END_TEST;

/* In a pipeline: videotestsrc is-live=true gets the live settings (batch
 * 1); without is-live, the non-live ones. */
GST_START_TEST (test_auto_pipeline_live)
{
  const gboolean live = __i__ == 0;
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=20 is-live=%d ! "
      "video/x-raw,format=GRAY8,width=32,height=16,framerate=200/1 ! "
      "cudavideofilter name=f backend=%s ! fakesink", live, co_test_backend);
  GstElement *pipe = gst_parse_launch (desc, NULL), *f;
  GstStructure *pp = NULL;
  GstMessage *m;
  GstBus *bus;

  fail_unless (pipe != NULL, "cannot make %s", desc);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s: no EOS",
      desc);
  gst_message_unref (m);
  g_object_get (f, "passport", &pp, NULL);
  fail_unless (pp != NULL);
  fail_unless (pp_auto (pp));
  fail_unless_equals_int (pp_uint (pp, "batch"), 1);
  fail_unless (g_str_has_prefix (gst_structure_get_string (pp, "auto-reason"),
          live ? "live" : "non-live"), "%s: %" GST_PTR_FORMAT, desc, pp);
  gst_structure_free (pp);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (f);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
cudavideofilter_suite (void)
{
  Suite *s = suite_create (ELEMENT);
  TCase *tc;

  tc = co_test_new_tcase (s, "reference", leaks_teardown);
  tcase_add_test (tc, test_reference_table);
  tcase_add_test (tc, test_reference_known_values);
  tcase_add_test (tc, test_reference_blur_ways_agree);

  tc = co_test_new_tcase (s, "properties", leaks_teardown);
  tcase_add_test (tc, test_properties);

  tc = co_test_new_tcase (s, "correctness", leaks_teardown);
  tcase_add_loop_test (tc, test_correctness_small, 0, N_OPS * N_FORMATS);
  tcase_add_loop_test (tc, test_correctness_vga, 0, N_OPS * N_FORMATS);
  tcase_add_loop_test (tc, test_correctness_big, 0, G_N_ELEMENTS (big_cases));
  tcase_add_loop_test (tc, test_extreme_settings, 0, 4);
  tcase_add_loop_test (tc, test_padded_input, 0, N_FORMATS);
  tcase_add_loop_test (tc, test_unaligned_input, 0, N_FORMATS);
  tcase_add_test (tc, test_upstream_pool);
  tcase_add_loop_test (tc, test_serial_equals_overlap, 0, 2);

  tc = co_test_new_tcase (s, "stream", leaks_teardown);
  tcase_add_test (tc, test_timestamps_flags);
  tcase_add_loop_test (tc, test_metas_survive, 0, G_N_ELEMENTS (meta_cases));
  tcase_add_loop_test (tc, test_metas_not_stale, 0, 2);
  tcase_add_loop_test (tc, test_timecodestamper, 0, 3);
  tcase_add_loop_test (tc, test_eos_in_flight, 0, 4);
  tcase_add_loop_test (tc, test_flush_midstream, 0, 8);
  tcase_add_test (tc, test_flush_unblocks_chain);
  tcase_add_test (tc, test_events_while_src_flushing);
  tcase_add_loop_test (tc, test_interlaced, 0, 3);
  tcase_add_test (tc, test_huge_caps);
  tcase_add_loop_test (tc, test_held_outputs_never_block, 0, 3);
  tcase_add_loop_test (tc, test_caps_change, 0, 3);
  tcase_add_test (tc, test_state_cycling);
  tcase_add_loop_test (tc, test_many_frames, 0, 10);
  tcase_add_loop_test (tc, test_many_frames_threaded, 0, 3);
  tcase_add_test (tc, test_latency_query);
  tcase_add_loop_test (tc, test_batch, 0, G_N_ELEMENTS (batch_cases));
  tcase_add_loop_test (tc, test_batch_flush, 0, 2);
  tcase_add_test (tc, test_batch_property_change);
  tcase_add_test (tc, test_gamma_read_with_operation);
  tcase_add_test (tc, test_caps_drain_cut_by_flush);
  tcase_add_loop_test (tc, test_gamma_updates, 0, 6);
  tcase_add_test (tc, test_same_buffer_repushed);
  tcase_add_loop_test (tc, test_shared_ring, 0, 3);
  tcase_add_test (tc, test_property_change_playing);

  tc = co_test_new_tcase (s, "citizen", leaks_teardown);
  tcase_add_loop_test (tc, test_passthrough, 0, 3);
  tcase_add_loop_test (tc, test_passthrough_switch, 0, 2);
  tcase_add_loop_test (tc, test_qos, 0, 3);
  tcase_add_loop_test (tc, test_qos_slow_sink, 0, 2);
  tcase_add_test (tc, test_reconfigure);

  tc = co_test_new_tcase (s, "errors", leaks_teardown);
  tcase_add_loop_test (tc, test_short_buffer, 0, 3);
  tcase_add_loop_test (tc, test_short_buffer_meta, 0, 6);
  tcase_add_test (tc, test_backend_cuda_state_change);

  tc = co_test_new_tcase (s, "auto", leaks_teardown);
  tcase_add_test (tc, test_auto_defaults);
  tcase_add_test (tc, test_auto_explicit_kept);
  tcase_add_test (tc, test_auto_staged);
  tcase_add_loop_test (tc, test_auto_redecide, 0, 2);
  tcase_add_loop_test (tc, test_auto_pipeline_live, 0, 2);
  tcase_add_test (tc, test_auto_device_share);

  return s;
}

int
main (int argc, char **argv)
{
  Suite *s;
  int nf;

  nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, FALSE);
  if (nf != 0)
    return nf;
  g_print ("cudavideofilter tests: backend=%s seed=0x%08x%s, leak check %s\n",
      co_test_backend, co_test_base_seed,
      co_test_full_matrix ? " (full matrix)" : "",
      co_test_leaks_tracer ()? "on" : "OFF");
  if (!co_test_leaks_tracer ()
      && g_strcmp0 (g_getenv ("CO_TEST_LEAKS"), "0") != 0)
    g_printerr ("note: no leak check: the leaks tracer is not active (is "
        "GStreamer's libgstcoretracers on the plugin path? GST_TRACERS=%s)\n",
        g_getenv ("GST_TRACERS"));

  s = cudavideofilter_suite ();
  nf = gst_check_run_suite (s, "cudavideofilter", __FILE__);
  co_test_leaks_free ();
  return nf == 0 ? 0 : 1;
}
