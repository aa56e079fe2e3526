/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of operation=custom (docs/custom-kernels.md): the
 * examples of examples/kernels (Sobel, colour matrix, windowed biquad)
 * against naive references written here from the documented arithmetic
 * (sharing no code with the examples), over odd sizes, chunk counts 1..7
 * and streams 1..4; the launch struct checked field by field
 * (tests/kernels/abi-check-cpu.c); switches between custom and built-in
 * operations while playing; kernel-params changes; kernel-formats;
 * kernel-launcher, the boxed struct of the application's own functions
 * (copies, shared user_data, one destroy, a switch while playing); and
 * the errors: a missing or bad module, a missing symbol, an architecture
 * mismatch, a kernel that faults, a CPU backend without a CPU function, a
 * missing CPU library or symbol, a CPU function that fails.
 *
 * On the CPU backend the elements run the examples' CPU implementations
 * (kernel-cpu-library); with CO_TEST_BACKEND=cuda their PTX (the CPU
 * libraries are set too, and must be ignored).
 *
 * Environment (besides co-test-util.h's):
 *   CO_TEST_KERNELS        the build's examples/kernels folder (meson sets
 *                          it; default: ../examples/kernels from the
 *                          program's folder, as in a build or build-gpu)
 *   CO_TEST_TEST_KERNELS   the build's tests/kernels folder (default:
 *                          kernels/ beside the program)
 *   CO_TEST_CUSTOM_FAULT   "1": run only the faulting-kernel test (it
 *                          poisons the process's CUDA context: a process
 *                          of its own, test-custom-fault-cuda)
 */

#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include <cuda_runtime.h>
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#include "co-test-util.h"

#define DEFAULT_SEED 0xc0570416u

static const gchar *kernels_dir, *test_kernels_dir, *examples_src_dir;
/* the "source" cases: the examples as kernel-source-file (their .cu),
 * compiled by the element with NVRTC, instead of their PTX */
static gboolean example_source;

static gboolean
on_cuda (void)
{
  return g_str_equal (co_test_backend, "cuda");
}

/* @name in the examples' (or, @test, the tests' kernels') build folder. */
static gchar *
kpath (gboolean test, const gchar * name)
{
  return g_build_filename (test ? test_kernels_dir : kernels_dir, name, NULL);
}

/* Sets the kernel-* properties of example @k ("sobel", ...) on @e. */
static void
set_example (GstElement * e, const gchar * k, guint halo)
{
  gchar *module = g_strdup_printf ("%s/%s.ptx", kernels_dir, k);
  gchar *source = g_strdup_printf ("%s/%s.cu", examples_src_dir, k);
  gchar *lib = g_strdup_printf ("%s/libco-%s-cpu.so", kernels_dir, k);
  gchar *name = g_strdup_printf ("co_%s", k);
  gchar *sym = g_strdup_printf ("co_%s_cpu", k);

  g_object_set (e, "kernel-module", example_source ? NULL : module,
      "kernel-source-file", example_source ? source : NULL, "kernel-name",
      name, "kernel-halo", halo, "kernel-cpu-library", lib,
      "kernel-cpu-symbol", sym, NULL);
  g_free (source);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "custom");
  g_free (module);
  g_free (lib);
  g_free (name);
  g_free (sym);
}

/* kernel-params = @p, as values of @type (a number type or a string,
 * each value converted with g_value_transform) */
static void
set_params_as (GstElement * e, GType type, const gdouble * p, guint n)
{
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT, d = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&arr, n);
  g_value_init (&d, G_TYPE_DOUBLE);
  for (i = 0; i < n; i++) {
    g_value_init (&v, type);
    g_value_set_double (&d, p[i]);
    fail_unless (g_value_transform (&d, &v));
    gst_value_array_append_and_take_value (&arr, &v);
    memset (&v, 0, sizeof (v));
  }
  g_object_set_property (G_OBJECT (e), "kernel-params", &arr);
  g_value_unset (&d);
  g_value_unset (&arr);
}

static void
set_params (GstElement * e, const gdouble * p, guint n)
{
  set_params_as (e, G_TYPE_DOUBLE, p, n);
}

static void
leaks_teardown (void)
{
  co_test_leaks_check (TRUE);
}

/* ------------------------------------------------------------------------ */
/* Naive references (from docs/custom-kernels.md, Examples)                  */
/* ------------------------------------------------------------------------ */

/* One picture plane of 8-bit pixels. */
typedef struct
{
  const guint8 *data;
  gint stride, w, h, pb;
} Pic;

static gint
at (const Pic * p, gint x, gint y, gint c)
{
  x = CLAMP (x, 0, p->w - 1);
  y = CLAMP (y, 0, p->h - 1);
  return p->data[(gsize) y * p->stride + (gsize) x * p->pb + c];
}

/* Sobel: |gx| + |gy| over the clamped 3x3 window, saturated; @mask: the
 * colour bytes (the others copied). */
static guint8
ref_sobel (const Pic * p, gint x, gint y, gint c, guint mask)
{
  gint gx, gy;

  if (!(mask & (1u << c)))
    return at (p, x, y, c);
  gx = (at (p, x + 1, y - 1, c) + 2 * at (p, x + 1, y, c) +
      at (p, x + 1, y + 1, c)) - (at (p, x - 1, y - 1, c) +
      2 * at (p, x - 1, y, c) + at (p, x - 1, y + 1, c));
  gy = (at (p, x - 1, y + 1, c) + 2 * at (p, x, y + 1, c) +
      at (p, x + 1, y + 1, c)) - (at (p, x - 1, y - 1, c) +
      2 * at (p, x, y - 1, c) + at (p, x + 1, y - 1, c));
  return MIN (255, ABS (gx) + ABS (gy));
}

/* Colour matrix, 16.16 fixed point as documented. */
static guint8
ref_colormatrix (const Pic * p, gint x, gint y, gint c, const gdouble * m,
    guint n)
{
  gint64 v = 32768;
  gint j;

  if (c == 3)
    return at (p, x, y, 3);
  for (j = 0; j < 3; j++)
    v += (gint64) llrint ((n >= 9 ? m[3 * c + j] : (c == j)) * 65536.0) *
        at (p, x, y, j);
  if (n >= 10 + (guint) c)
    v += (gint64) llrint (m[9 + c] * 65536.0);
  if (v < 0)
    return 0;
  return (guint8) MIN (v / 65536, 255);
}

static guint8
ref_invert (const Pic * p, gint x, gint y, gint c, guint mask)
{
  return (mask & (1u << c)) ? 255 - at (p, x, y, c) : at (p, x, y, c);
}

/* ------------------------------------------------------------------------ */
/* Video runs                                                                */
/* ------------------------------------------------------------------------ */

typedef enum
{
  V_SOBEL,
  V_COLORMATRIX,
  V_INVERT,
} VOp;

/* What the element should compute for a frame. */
typedef struct
{
  VOp op;
  const gdouble *m;             /* colour matrix params */
  guint n;
  gboolean any_format;          /* check_frame_any: every plane, any depth */
} VExpect;

static guint
colour_mask (GstVideoFormat f)
{
  return f == GST_VIDEO_FORMAT_GRAY8 ? 0x1 : 0x7;
}

/* @out (mapped) against the reference of @in for @x; fails with @ctx. */
static void
check_frame (GstVideoFrame * in, GstVideoFrame * out, const VExpect * x,
    const gchar * ctx)
{
  Pic p = { GST_VIDEO_FRAME_PLANE_DATA (in, 0),
    GST_VIDEO_FRAME_PLANE_STRIDE (in, 0), GST_VIDEO_FRAME_WIDTH (in),
    GST_VIDEO_FRAME_HEIGHT (in), GST_VIDEO_FRAME_COMP_PSTRIDE (in, 0)
  };
  const guint8 *o = GST_VIDEO_FRAME_PLANE_DATA (out, 0);
  gint os = GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), xx, y, c;
  guint mask = colour_mask (GST_VIDEO_FRAME_FORMAT (in));

  for (y = 0; y < p.h; y++) {
    for (xx = 0; xx < p.w; xx++) {
      for (c = 0; c < p.pb; c++) {
        guint8 want = x->op == V_SOBEL ? ref_sobel (&p, xx, y, c, mask) :
            x->op == V_INVERT ? ref_invert (&p, xx, y, c, mask) :
            ref_colormatrix (&p, xx, y, c, x->m, x->n);
        guint8 got = o[(gsize) y * os + (gsize) xx * p.pb + c];

        if (got != want)
          fail ("%s: pixel (%d, %d) component %d is %u, the reference says "
              "%u (%dx%d)", ctx, xx, y, c, got, want, p.w, p.h);
      }
    }
  }
}

/* Component @c of pixel (@x, @y), clamped to the component's grid, of
 * @f, where GStreamer's own format description puts it: @depth bits at bit
 * @shift of a little-endian sample of 1 byte (depth 8) or 2. */
static guint
comp_at (GstVideoFrame * f, gint c, gint x, gint y)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  const guint8 *d;

  x = CLAMP (x, 0, GST_VIDEO_FRAME_COMP_WIDTH (f, c) - 1);
  y = CLAMP (y, 0, GST_VIDEO_FRAME_COMP_HEIGHT (f, c) - 1);
  d = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      (gsize) y *GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      (gsize) x *GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);
  if (fi->depth[c] <= 8)
    return d[0];
  return (GST_READ_UINT16_LE (d) >> fi->shift[c]) & ((1u << fi->depth[c]) - 1);
}

static void
comp_put (GstVideoFrame * f, gint c, gint x, gint y, guint v)
{
  const GstVideoFormatInfo *fi = f->info.finfo;
  guint8 *d = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (f, c) +
      (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (f, c) +
      (gsize) x * GST_VIDEO_FRAME_COMP_PSTRIDE (f, c);

  if (fi->depth[c] <= 8)
    d[0] = (guint8) v;
  else                          /* the padding bits 0 */
    GST_WRITE_UINT16_LE (d, v << fi->shift[c]);
}

/* What the examples compute on component @c (of @n, alpha excluded) at
 * (@x, @y) of @in: invert and Sobel on the colour components of RGB
 * formats and the luma of the others, the colour matrix on R, G, B; -1:
 * the component is copied. */
static gint
ref_any (GstVideoFrame * in, const VExpect * e, gint c, gint x, gint y)
{
  const GstVideoFormatInfo *fi = in->info.finfo;
  const gint max = (1 << fi->depth[c]) - 1;
  gint gx, gy, j;
  gint64 v = 32768;

  if (c == 3 || (e->op == V_SOBEL && !GST_VIDEO_FORMAT_INFO_IS_RGB (fi) &&
          c > 0))
    return -1;
  switch (e->op) {
    case V_INVERT:
      return max - comp_at (in, c, x, y);
    case V_SOBEL:
      gx = (comp_at (in, c, x + 1, y - 1) + 2 * comp_at (in, c, x + 1, y) +
          comp_at (in, c, x + 1, y + 1)) - (comp_at (in, c, x - 1, y - 1) +
          2 * comp_at (in, c, x - 1, y) + comp_at (in, c, x - 1, y + 1));
      gy = (comp_at (in, c, x - 1, y + 1) + 2 * comp_at (in, c, x, y + 1) +
          comp_at (in, c, x + 1, y + 1)) - (comp_at (in, c, x - 1, y - 1) +
          2 * comp_at (in, c, x, y - 1) + comp_at (in, c, x + 1, y - 1));
      return MIN (max, ABS (gx) + ABS (gy));
    default:
      for (j = 0; j < 3; j++)
        v += (gint64) llrint ((e->n >= 9 ? e->m[3 * c + j] : (c == j)) *
            65536.0) * comp_at (in, j, x, y);
      if (e->n >= 10 + (guint) c)
        v += (gint64) llrint (e->m[9 + c] * 65536.0);
      return v < 0 ? 0 : (gint) MIN (v / 65536, max);
  }
}

/* @out against @in through ref_any, every plane: a copy of the input with
 * each computed component replaced. */
static void
check_frame_any (GstVideoFrame * in, GstVideoFrame * out, const VExpect * e,
    const gchar * ctx)
{
  const GstVideoFormatInfo *fi = in->info.finfo;
  GstBuffer *want_buf = gst_buffer_copy_deep (in->buffer);
  GstVideoFrame want;
  gint c, x, y, pl;

  fail_unless (gst_video_frame_map (&want, &in->info, want_buf,
          GST_MAP_READWRITE));
  for (c = 0; c < (gint) GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (in, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (in, c); x++) {
        gint v = ref_any (in, e, c, x, y);

        if (v >= 0)
          comp_put (&want, c, x, y, (guint) v);
      }
  for (pl = 0; pl < (gint) GST_VIDEO_FRAME_N_PLANES (in); pl++) {
    for (c = 0; fi->plane[c] != (guint) pl; c++);
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (in, c); y++) {
      const guint8 *w = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&want,
          pl) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&want, pl);
      const guint8 *o = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out,
          pl) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (out, pl);
      gint n = GST_VIDEO_FRAME_COMP_WIDTH (in, c) *
          GST_VIDEO_FRAME_COMP_PSTRIDE (in, c);

      for (x = 0; x < n; x++)
        if (o[x] != w[x])
          fail ("%s: plane %d row %d byte %d is %u, the reference says %u "
              "(%dx%d)", ctx, pl, y, x, o[x], w[x],
              GST_VIDEO_FRAME_WIDTH (in), GST_VIDEO_FRAME_HEIGHT (in));
    }
  }
  gst_video_frame_unmap (&want);
  gst_buffer_unref (want_buf);
}

/* batch for the next video_harness() (test_sobel_batch; 0: automatic) */
static guint next_batch;

/* A harness of cudavideofilter for @caps: backend, streams, chunks. */
static GstHarness *
video_harness (const gchar * caps, guint streams, guint chunks)
{
  GstElement *e = co_test_make_element ("cudavideofilter");
  GstHarness *h;

  g_object_set (e, "streams", streams, "chunks", chunks, "post-messages",
      FALSE, "qos", FALSE, "batch", next_batch, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Frames pushed, outputs pulled and checked in order. */
typedef struct
{
  GstHarness *h;
  GstVideoInfo info;
  GRand *rand;
  GQueue in;                    /* input buffers, pushed, not yet checked */
  GQueue expect;                /* VExpect*, for each */
  const gchar *ctx;
} VRun;

static void
vrun_init (VRun * r, GstHarness * h, const gchar * caps, GRand * rand,
    const gchar * ctx)
{
  GstCaps *c = gst_caps_from_string (caps);

  memset (r, 0, sizeof (*r));
  fail_unless (gst_video_info_from_caps (&r->info, c));
  gst_caps_unref (c);
  r->h = h;
  r->rand = rand;
  r->ctx = ctx;
  g_queue_init (&r->in);
  g_queue_init (&r->expect);
}

static void
vrun_push (VRun * r, const VExpect * x)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, r->info.size, NULL);
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  co_test_fill_random (r->rand, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_queue_push_tail (&r->in, gst_buffer_ref (buf));
  g_queue_push_tail (&r->expect, (gpointer) x);
  fail_unless_equals_int (gst_harness_push (r->h, buf), GST_FLOW_OK);
}

static void
vrun_check_all (VRun * r)
{
  GstBuffer *in;

  while ((in = g_queue_pop_head (&r->in))) {
    const VExpect *x = g_queue_pop_head (&r->expect);
    GstBuffer *out = co_test_pull_buffer (r->h, r->ctx);
    GstVideoFrame fi, fo;

    fail_unless (gst_video_frame_map (&fi, &r->info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fo, &r->info, out, GST_MAP_READ));
    if (x->any_format)
      check_frame_any (&fi, &fo, x, r->ctx);
    else
      check_frame (&fi, &fo, x, r->ctx);
    gst_video_frame_unmap (&fi);
    gst_video_frame_unmap (&fo);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
}

/* @n frames of @fmt at @w x @h through example @k with @x's arithmetic. */
static void
run_example (const gchar * k, guint halo, const VExpect * x,
    const gchar * fmt, gint w, gint hgt, guint streams, guint chunks,
    guint n, guint32 seed)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", fmt, w, hgt);
  gchar *ctx = g_strdup_printf ("[%s %s %dx%d streams=%u chunks=%u "
      "backend=%s seed=0x%08x]", k, fmt, w, hgt, streams, chunks,
      co_test_backend, seed);
  GstHarness *h = video_harness (caps, streams, chunks);
  GRand *rand = g_rand_new_with_seed (seed);
  VRun r;
  guint i;

  set_example (h->element, k, halo);
  if (x->any_format)            /* the formats after version 1's: named */
    g_object_set (h->element, "kernel-formats", fmt, NULL);
  if (x->op == V_COLORMATRIX)
    set_params (h->element, x->m, x->n);
  vrun_init (&r, h, caps, rand, ctx);
  for (i = 0; i < n; i++)
    vrun_push (&r, x);
  /* a partial batch goes at EOS */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  vrun_check_all (&r);
  gst_harness_teardown (h);
  g_rand_free (rand);
  g_free (caps);
  g_free (ctx);
}

static const struct
{
  gint w, h;
} small_sizes[] = { {33, 17}, {1, 1}, {7, 3}, {2, 9}, {65, 2} };

/* Sobel, GRAY8 and RGBA, small odd sizes: every chunks x streams. */
GST_START_TEST (test_sobel_small)
{
  static const VExpect x = { V_SOBEL, NULL, 0 };
  const gchar *fmt = __i__ % 2 ? "RGBA" : "GRAY8";
  guint s = __i__ / 2, streams, chunks;

  for (chunks = 1; chunks <= 7; chunks++)
    for (streams = 1; streams <= 4; streams++)
      run_example ("sobel", 1, &x, fmt, small_sizes[s].w, small_sizes[s].h,
          streams, chunks, 2, co_test_seed ("test_sobel_small", __i__) ^
          (chunks * 16 + streams));
}

GST_END_TEST;

/* Sobel at 1921x1081 (halos across the bands' edges at chunks=7). */
GST_START_TEST (test_sobel_big)
{
  static const VExpect x = { V_SOBEL, NULL, 0 };
  static const guint cfg[][2] = { {1, 1}, {4, 7}, {2, 3}, {3, 6} };
  const gchar *fmt = __i__ % 2 ? "RGBA" : "GRAY8";
  guint c = __i__ / 2;

  run_example ("sobel", 1, &x, fmt, 1921, 1081, cfg[c][0], cfg[c][1], 2,
      co_test_seed ("test_sobel_big", __i__));
}

GST_END_TEST;

/* Batches: each image of a band is a launch of its own (CPU: through the
 * work memory, not in place). */
GST_START_TEST (test_sobel_batch)
{
  static const VExpect x = { V_SOBEL, NULL, 0 };

  next_batch = 2 + __i__;
  run_example ("sobel", 1, &x, __i__ % 2 ? "RGBA" : "GRAY8", 33, 17,
      1 + __i__, 3 + __i__, 7, co_test_seed ("test_sobel_batch", __i__));
  next_batch = 0;
}

GST_END_TEST;

/* The invert example against the built-in invert's arithmetic. */
GST_START_TEST (test_invert_example)
{
  static const VExpect x = { V_INVERT, NULL, 0 };
  const gchar *fmt = __i__ % 2 ? "RGBA" : "GRAY8";

  run_example ("invert", 0, &x, fmt, 33, 17, 1 + __i__ % 4, 1 + __i__ % 7, 2,
      co_test_seed ("test_invert_example", __i__));
}

GST_END_TEST;

static const gdouble sepia[12] = { 0.393, 0.769, 0.189, 0.349, 0.686, 0.168,
  0.272, 0.534, 0.131, -10.5, 3.25, 0.5
};

static const gdouble swirl[12] = { -0.5, 1.25, 0.125, 2.0, -1.0, 0.0, 0.3333,
  0.3333, 0.3334, 20.0, -300.0, 127.5
};

/* The variants of test_colormatrix: the matrix, how many parameters are
 * given (9: no offsets), small pictures through every chunks x streams or
 * one big picture with the given streams and chunks */
static const struct
{
  const gchar *name;
  const gdouble *matrix;
  guint n_params;
  gboolean big;
  guint streams, chunks;        /* big only */
} colormatrix_variants[] = {
  {.name = "sepia-small",.matrix = sepia,.n_params = 12},
  {.name = "swirl-small",.matrix = swirl,.n_params = 12},
  {.name = "sepia-9-params-small",.matrix = sepia,.n_params = 9},
  {.name = "swirl-big",.matrix = swirl,.n_params = 12,.big = TRUE,
      .streams = 4,.chunks = 7},
  {.name = "sepia-big",.matrix = sepia,.n_params = 12,.big = TRUE,
      .streams = 1,.chunks = 2},
};

GST_START_TEST (test_colormatrix)
{
  const VExpect x = { V_COLORMATRIX, colormatrix_variants[__i__].matrix,
    colormatrix_variants[__i__].n_params
  };
  guint streams, chunks;

  g_print ("test_colormatrix[%d]: %s\n", __i__,
      colormatrix_variants[__i__].name);
  if (!colormatrix_variants[__i__].big) {
    for (chunks = 1; chunks <= 7; chunks++)
      for (streams = 1; streams <= 4; streams++)
        run_example ("colormatrix", 0, &x, "RGBA", 33 + __i__, 17, streams,
            chunks, 1, co_test_seed ("test_colormatrix", __i__) ^ chunks);
  } else {
    run_example ("colormatrix", 0, &x, "RGBA", 1921, 1081,
        colormatrix_variants[__i__].streams,
        colormatrix_variants[__i__].chunks, 2,
        co_test_seed ("test_colormatrix", __i__));
  }
}

GST_END_TEST;

/* The examples on the formats beyond 8-bit RGB and GRAY8 (those after
 * version 1's, named in kernel-formats, and GRAY16_LE, NV12, I420, BGRx),
 * against check_frame_any's reference, which reads GStreamer's own
 * description of the format. */
static const struct
{
  const gchar *name;
  const gchar *example;
  VOp op;
  const gchar *format;
} format_variants[] = {
  {.name = "invert-RGB",.example = "invert",.op = V_INVERT,.format = "RGB"},
  {.name = "invert-BGR",.example = "invert",.op = V_INVERT,.format = "BGR"},
  {.name = "invert-NV21",.example = "invert",.op = V_INVERT,.format = "NV21"},
  {.name = "invert-YV12",.example = "invert",.op = V_INVERT,.format = "YV12"},
  {.name = "invert-Y42B",.example = "invert",.op = V_INVERT,.format = "Y42B"},
  {.name = "invert-Y444",.example = "invert",.op = V_INVERT,.format = "Y444"},
  {.name = "invert-Y444_16LE",.example = "invert",.op = V_INVERT,
      .format = "Y444_16LE"},
  {.name = "invert-GRAY16_LE",.example = "invert",.op = V_INVERT,
      .format = "GRAY16_LE"},
  {.name = "invert-NV12",.example = "invert",.op = V_INVERT,.format = "NV12"},
  {.name = "invert-I420",.example = "invert",.op = V_INVERT,.format = "I420"},
  {.name = "invert-BGRx",.example = "invert",.op = V_INVERT,.format = "BGRx"},
  {.name = "sobel-RGB",.example = "sobel",.op = V_SOBEL,.format = "RGB"},
  {.name = "sobel-BGR",.example = "sobel",.op = V_SOBEL,.format = "BGR"},
  {.name = "sobel-NV21",.example = "sobel",.op = V_SOBEL,.format = "NV21"},
  {.name = "sobel-YV12",.example = "sobel",.op = V_SOBEL,.format = "YV12"},
  {.name = "sobel-Y42B",.example = "sobel",.op = V_SOBEL,.format = "Y42B"},
  {.name = "sobel-Y444",.example = "sobel",.op = V_SOBEL,.format = "Y444"},
  {.name = "sobel-Y444_16LE",.example = "sobel",.op = V_SOBEL,
      .format = "Y444_16LE"},
  {.name = "sobel-GRAY16_LE",.example = "sobel",.op = V_SOBEL,
      .format = "GRAY16_LE"},
  {.name = "sobel-I420",.example = "sobel",.op = V_SOBEL,.format = "I420"},
  {.name = "colormatrix-RGB",.example = "colormatrix",.op = V_COLORMATRIX,
      .format = "RGB"},
  {.name = "colormatrix-BGR",.example = "colormatrix",.op = V_COLORMATRIX,
      .format = "BGR"},
  {.name = "colormatrix-BGRx",.example = "colormatrix",.op = V_COLORMATRIX,
      .format = "BGRx"},
};

GST_START_TEST (test_example_formats)
{
  static const gint sizes[][2] = { {33, 17}, {7, 3}, {2, 9} };
  static const guint cfg[][2] = { {1, 1}, {3, 7}, {2, 2} };
  const VExpect x = { format_variants[__i__].op, swirl, 12, TRUE };
  guint s, k;

  g_print ("test_example_formats[%d]: %s\n", __i__,
      format_variants[__i__].name);
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (k = 0; k < G_N_ELEMENTS (cfg); k++)
      run_example (format_variants[__i__].example,
          x.op == V_SOBEL ? 1 : 0, &x, format_variants[__i__].format,
          sizes[s][0], sizes[s][1], cfg[k][0], cfg[k][1], 2,
          co_test_seed ("test_example_formats", __i__) ^ (s * 16 + k));
}

GST_END_TEST;

/* custom <-> built-in while frames are in flight, a new kernel while
 * custom, new kernel-params: every frame as the settings at its push say,
 * in order. */
GST_START_TEST (test_switch_midstream)
{
  static const VExpect sobel = { V_SOBEL, NULL, 0 };
  static const VExpect inv = { V_INVERT, NULL, 0 };
  static const VExpect cm1 = { V_COLORMATRIX, sepia, 12 };
  static const VExpect cm2 = { V_COLORMATRIX, swirl, 12 };
  const gchar *caps = "video/x-raw,format=RGBA,width=97,height=61,"
      "framerate=30/1";
  guint32 seed = co_test_seed ("test_switch_midstream", __i__);
  gchar *ctx = g_strdup_printf ("[switch streams=%d chunks=%d backend=%s "
      "seed=0x%08x]", 1 + __i__, 3 + __i__, co_test_backend, seed);
  GstHarness *h = video_harness (caps, 1 + __i__, 3 + __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const VExpect *seq[] = { &inv, &sobel, &inv, &cm1, &cm2, &sobel, &cm1 };
  VRun r;
  guint i, k;

  g_object_set (h->element, "max-in-flight", 3, NULL);
  vrun_init (&r, h, caps, rand, ctx);
  for (i = 0; i < G_N_ELEMENTS (seq); i++) {
    if (seq[i]->op == V_INVERT) {
      gst_util_set_object_arg (G_OBJECT (h->element), "operation", "invert");
    } else {
      set_example (h->element, seq[i]->op == V_SOBEL ? "sobel" :
          "colormatrix", seq[i]->op == V_SOBEL);
      if (seq[i]->m)
        set_params (h->element, seq[i]->m, seq[i]->n);
    }
    for (k = 0; k < 3; k++)
      vrun_push (&r, seq[i]);
  }
  vrun_check_all (&r);
  gst_harness_teardown (h);
  g_rand_free (rand);
  g_free (ctx);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* The launch struct, field by field (CPU backend)                           */
/* ------------------------------------------------------------------------ */

/* In the ABI's order; those of ABI version 1 first */
static const gchar *const abi_formats[] = { "GRAY8", "GRAY16_LE", "RGBA",
  "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", "xRGB", "xBGR", "NV12", "I420",
  "RGB", "BGR", "NV21", "YV12", "Y42B", "Y444", "Y444_16LE", "P010_10LE",
  "P016_LE", "I420_10LE", "YUY2", "UYVY", "RGB10A2_LE", "BGR10A2_LE"
};

#define N_ABI_V1_FORMATS 12

/* The header's name lookup against this test's own list; prefixes,
 * extensions and other formats are no match. */
GST_START_TEST (test_format_names)
{
  static const gchar *const not_abi[] = { "YVYU", "RGBA64_LE", "GRAY",
    "I420_12LE", "", "rgba", "RGB8", "Y444_16", "P010", "RGB10A2", "v210"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (abi_formats); i++)
    fail_unless_equals_int (gst_cuda_overlap_kernel_format_from_name
        (abi_formats[i]), GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + i);
  for (i = 0; i < G_N_ELEMENTS (not_abi); i++)
    fail_unless_equals_int (gst_cuda_overlap_kernel_format_from_name
        (not_abi[i]), GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN);
  fail_unless_equals_int (gst_cuda_overlap_kernel_format_from_name (NULL),
      GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN);
  fail_unless_equals_int (GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST_V1,
      GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + N_ABI_V1_FORMATS - 1);
  fail_unless_equals_int (GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST,
      GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + G_N_ELEMENTS (abi_formats) - 1);
  for (i = 0; i < G_N_ELEMENTS (abi_formats); i++)
    fail_unless_equals_int (GST_CUDA_OVERLAP_KERNEL_FORMAT_ABI_VERSION
        (GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + i), i < N_ABI_V1_FORMATS ?
        1 : 2);
  /* every name is one of GStreamer's */
  for (i = 0; i < G_N_ELEMENTS (abi_formats); i++)
    fail_if (gst_video_format_from_string (abi_formats[i]) ==
        GST_VIDEO_FORMAT_UNKNOWN, "%s", abi_formats[i]);
}

GST_END_TEST;

/* Rows of @out (every plane) that are not @in's row @shift above (row 0
 * for the first ones); the first such plane and row in @pl0 and @y0. */
static guint
rows_differ (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    gint shift, guint * pl0, gint * y0)
{
  GstVideoFrame fi, fo;
  guint pl, n = 0;
  gint y;

  fail_unless (gst_video_frame_map (&fi, info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (info); pl++)
    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fi, pl); y++)
      if (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, pl) +
              MAX (y - shift, 0) * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, pl),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, pl) +
              y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, pl),
              GST_VIDEO_FRAME_COMP_WIDTH (&fi, pl) *
              GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, pl)) != 0 && n++ == 0) {
        *pl0 = pl;
        *y0 = y;
      }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return n;
}

/* Whether cudavideofilter's sink pad takes @fmt (the formats of the ABI
 * that the elements do not take yet are checked at the launch struct's
 * level: test-custom-abi). */
static gboolean
element_takes (const gchar * fmt)
{
  GstElement *e = co_test_make_element ("cudavideofilter");
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (sink);
  GstCaps *one = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      fmt, NULL);
  gboolean takes = gst_caps_can_intersect (tmpl, one);

  if (!takes)
    g_print ("%s: not a format of cudavideofilter: its launches are "
        "checked by test-custom-abi only\n", fmt);
  gst_caps_unref (one);
  gst_caps_unref (tmpl);
  gst_object_unref (sink);
  gst_object_unref (e);
  return takes;
}

/* Output == input through co_abi_check_video, which checks every field
 * against docs/custom-kernels.md (the element error names the violation's
 * number otherwise).  The formats after those of ABI version 1 named in
 * kernel-formats, as they must be. */
GST_START_TEST (test_abi_video)
{
  const gchar *fmt = abi_formats[__i__ % G_N_ELEMENTS (abi_formats)];
  guint halo = (__i__ / G_N_ELEMENTS (abi_formats)) * 2;        /* 0, 2 */
  static const gint sizes[][2] = { {33, 17}, {1, 1}, {6, 5}, {17, 2} };
  guint32 seed = co_test_seed ("test_abi_video", __i__);
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  guint s, chunks;

  if (on_cuda () || !element_takes (fmt)) {
    g_free (lib);
    return;                     /* a CPU function */
  }
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    for (chunks = 1; chunks <= 7; chunks++) {
      gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,"
          "height=%d,framerate=30/1", fmt, sizes[s][0], sizes[s][1]);
      gchar *ctx = g_strdup_printf ("[abi %s %dx%d halo=%u chunks=%u]", fmt,
          sizes[s][0], sizes[s][1], halo, chunks);
      GstHarness *h = video_harness (caps, 1 + chunks % 4, chunks);
      GstVideoInfo info;
      GstCaps *c = gst_caps_from_string (caps);
      gdouble p[5];
      GstBuffer *in, *out;
      GstMapInfo mi;
      GRand *rand = g_rand_new_with_seed (seed ^ chunks ^ (s << 8));
      guint i;

      fail_unless (gst_video_info_from_caps (&info, c));
      gst_caps_unref (c);
      /* the ABI's values follow abi_formats' order */
      p[0] = GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 +
          __i__ % G_N_ELEMENTS (abi_formats);
      p[1] = halo;
      p[2] = GST_VIDEO_INFO_N_PLANES (&info);
      p[3] = sizes[s][0];
      p[4] = sizes[s][1];
      g_object_set (h->element, "kernel-cpu-library", lib,
          "kernel-cpu-symbol", "co_abi_check_video", "kernel-halo", halo,
          "kernel-formats", __i__ % G_N_ELEMENTS (abi_formats) <
          N_ABI_V1_FORMATS ? NULL : fmt, NULL);
      set_params (h->element, p, 5);
      gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
      for (i = 0; i < 2; i++) {
        guint pl = 0;
        gint y = 0;

        in = gst_buffer_new_allocate (NULL, info.size, NULL);
        gst_buffer_map (in, &mi, GST_MAP_WRITE);
        co_test_fill_random (rand, mi.data, mi.size);
        gst_buffer_unmap (in, &mi);
        fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
            GST_FLOW_OK);
        out = co_test_pull_buffer (h, ctx);
        fail_unless (rows_differ (in, out, &info, 0, &pl, &y) == 0,
            "%s: plane %u row %d differs from the input", ctx, pl, y);
        gst_buffer_unref (in);
        gst_buffer_unref (out);
      }
      gst_harness_teardown (h);
      g_rand_free (rand);
      g_free (caps);
      g_free (ctx);
    }
  }
  g_free (lib);
}

GST_END_TEST;

/* A kernel that reads beyond its kernel-halo goes wrong on the CPU
 * backend as on a GPU: its bands are copied with only their halo rows,
 * between rows of zeros (not read in place, where the rows beyond would be
 * the right ones).  co_shift_down_cpu reads one row above each band: with
 * kernel-halo=1 every output row is the input's row above, with
 * kernel-halo=0 the first row of every band but the first is not. */
GST_START_TEST (test_halo_overreach)
{
  const gchar *caps = "video/x-raw,format=I420,width=33,height=17,"
      "framerate=30/1";
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_halo_overreach",
          0));
  guint halo;

  if (on_cuda ()) {
    g_free (lib);
    g_rand_free (rand);
    return;                     /* a CPU function */
  }
  for (halo = 0; halo <= 1; halo++) {
    GstHarness *h = video_harness (caps, 2, 3);
    GstCaps *c = gst_caps_from_string (caps);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstMapInfo mi;
    guint pl = 0, wrong;
    gint y = 0;

    fail_unless (gst_video_info_from_caps (&info, c));
    gst_caps_unref (c);
    g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
        "co_shift_down_cpu", "kernel-halo", halo, NULL);
    gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
    in = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (in, &mi, GST_MAP_WRITE);
    co_test_fill_random (rand, mi.data, mi.size);
    /* no zero bytes: a row of zeros read beyond the halo shows */
    for (y = 0; y < (gint) mi.size; y++)
      mi.data[y] |= 1;
    gst_buffer_unmap (in, &mi);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = co_test_pull_buffer (h, "[halo overreach]");
    wrong = rows_differ (in, out, &info, 1, &pl, &y);
    /* halo 0: the first row of bands 1 and 2, in each of the 3 planes */
    fail_unless (wrong == (halo ? 0 : 6), "kernel-halo=%u: %u rows are not "
        "the input's row above (the first: plane %u row %d)", halo, wrong, pl,
        y);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
  g_rand_free (rand);
  g_free (lib);
}

GST_END_TEST;

/* kernel-formats narrows the caps; without it the formats of ABI
 * version 1 (only with operation=custom). */
GST_START_TEST (test_kernel_formats)
{
  GstElement *e = co_test_make_element ("cudavideofilter");
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstCaps *caps, *rgba = gst_caps_from_string ("video/x-raw,format=RGBA");
  GstCaps *nv12 = gst_caps_from_string ("video/x-raw,format=NV12");
  GstCaps *y42b = gst_caps_from_string ("video/x-raw,format=Y42B");

  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, nv12));
  gst_caps_unref (caps);
  g_object_set (e, "kernel-formats", "RGBA, GRAY8", NULL);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "custom");
  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, rgba), "%" GST_PTR_FORMAT, caps);
  fail_if (gst_caps_can_intersect (caps, nv12), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  /* only with operation=custom */
  gst_util_set_object_arg (G_OBJECT (e), "operation", "invert");
  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, nv12));
  gst_caps_unref (caps);
  /* names that are no format of the element: a warning each, when set */
  ASSERT_WARNING (g_object_set (e, "kernel-formats", "RGBA, RGBZ", NULL));
  ASSERT_WARNING (g_object_set (e, "kernel-formats", "rgba", NULL));
  ASSERT_WARNING (g_object_set (e, "kernel-formats", "v210", NULL));
  g_object_set (e, "kernel-formats", "GRAY8,RGBA;NV12", NULL);
  /* empty: the formats of ABI version 1 only; the others when named */
  g_object_set (e, "kernel-formats", NULL, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "custom");
  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, nv12), "%" GST_PTR_FORMAT, caps);
  fail_if (gst_caps_can_intersect (caps, y42b), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  g_object_set (e, "kernel-formats", "Y42B, NV12", NULL);
  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, nv12), "%" GST_PTR_FORMAT, caps);
  fail_unless (gst_caps_can_intersect (caps, y42b), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_util_set_object_arg (G_OBJECT (e), "operation", "invert");
  g_object_set (e, "kernel-formats", NULL, NULL);
  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, y42b), "%" GST_PTR_FORMAT, caps);
  gst_caps_unref (caps);
  gst_caps_unref (rgba);
  gst_caps_unref (nv12);
  gst_caps_unref (y42b);
  gst_object_unref (sink);
  gst_object_unref (e);
}

GST_END_TEST;

/* A format after those of ABI version 1, forced on a kernel whose
 * kernel-formats is empty: not negotiated; named there, it runs (CPU
 * backend). */
GST_START_TEST (test_new_format_unlisted)
{
  const gchar *caps = "video/x-raw,format=Y42B,width=33,height=17,"
      "framerate=30/1";
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  GstHarness *h = video_harness ("video/x-raw,format=GRAY8,width=8,height=8,"
      "framerate=30/1", 1, 1);
  GstCaps *c = gst_caps_from_string (caps);
  GstVideoInfo info;
  gsize size;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  size = GST_VIDEO_INFO_SIZE (&info);

  g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
      "co_shift_down_cpu", "kernel-halo", 1, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
  gst_harness_set_src_caps_str (h, caps);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, size, NULL)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
  if (on_cuda ()) {
    g_free (lib);
    return;                     /* the rest runs a CPU function */
  }
  h = video_harness (caps, 1, 1);
  g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
      "co_shift_down_cpu", "kernel-halo", 1, "kernel-formats", "Y42B", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, size, NULL)), GST_FLOW_OK);
  gst_buffer_unref (co_test_pull_buffer (h, "[Y42B named]"));
  gst_harness_teardown (h);
  g_free (lib);
}

GST_END_TEST;

/* A launch's abi_version: 1 for a format of version 1 (a kernel written
 * for it sees what it knows), 2 for the others (named in kernel-formats):
 * co_abi_stamp_cpu writes it into every output byte. */
static const struct
{
  const gchar *name;
  const gchar *format;
  gboolean named;
  guint version;
} stamp_variants[] = {
  {.name = "GRAY8",.format = "GRAY8",.version = 1},
  {.name = "RGBA-named",.format = "RGBA",.named = TRUE,.version = 1},
  {.name = "I420",.format = "I420",.version = 1},
  {.name = "GRAY16_LE",.format = "GRAY16_LE",.version = 1},
  {.name = "Y444",.format = "Y444",.named = TRUE,.version = 2},
  {.name = "RGB",.format = "RGB",.named = TRUE,.version = 2},
  {.name = "NV21",.format = "NV21",.named = TRUE,.version = 2},
  {.name = "Y444_16LE",.format = "Y444_16LE",.named = TRUE,.version = 2},
};

GST_START_TEST (test_abi_version_stamp)
{
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=33,height=17,"
      "framerate=30/1", stamp_variants[__i__].format);
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  GstHarness *h;
  GstVideoInfo info;
  GstCaps *c;
  GstBuffer *out;
  const guint8 *row;
  gsize i;

  g_print ("test_abi_version_stamp[%d]: %s\n", __i__,
      stamp_variants[__i__].name);
  if (on_cuda ())
    goto done;                  /* a CPU function */
  c = gst_caps_from_string (caps);
  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  h = video_harness (caps, 2, 3);
  g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
      "co_abi_stamp_cpu", "kernel-formats", stamp_variants[__i__].named ?
      stamp_variants[__i__].format : NULL, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, info.size, NULL)), GST_FLOW_OK);
  out = co_test_pull_buffer (h, "[abi version stamp]");
  /* every plane's rows (the padding past a row is the buffer's) */
  {
    GstVideoFrame f;
    guint pl;
    gint y;

    fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    for (pl = 0; pl < GST_VIDEO_FRAME_N_PLANES (&f); pl++)
      for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, pl); y++) {
        row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, pl) +
            (gsize) y *GST_VIDEO_FRAME_PLANE_STRIDE (&f, pl);
        for (i = 0; i < (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&f, pl) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&f, pl); i++)
          fail_unless_equals_int (row[i], stamp_variants[__i__].version);
      }
    gst_video_frame_unmap (&f);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
done:
  g_free (lib);
  g_free (caps);
}

GST_END_TEST;

/* A format after version 1's that reaches a kernel whose kernel-formats
 * becomes empty (caps fixed upstream, then a rebuild): an element error
 * that says the kernel must name it. */
GST_START_TEST (test_new_format_refused)
{
  const gchar *caps = "video/x-raw,format=Y444,width=33,height=17,"
      "framerate=30/1";
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  GstHarness *h;
  GstBus *bus;
  GstMessage *msg;
  gchar *text;
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  gsize size;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  size = GST_VIDEO_INFO_SIZE (&info);
  if (on_cuda ()) {
    g_free (lib);
    return;                     /* a CPU function first */
  }
  h = video_harness (caps, 1, 2);
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
      "co_abi_stamp_cpu", "kernel-formats", "Y444", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, size, NULL)), GST_FLOW_OK);
  gst_buffer_unref (co_test_pull_buffer (h, "[Y444 named]"));
  /* empty, and a rebuild (the halo) with the same caps */
  g_object_set (h->element, "kernel-formats", NULL, "kernel-halo", 1, NULL);
  fail_if (gst_harness_push (h, gst_buffer_new_allocate (NULL, size,
              NULL)) == GST_FLOW_OK);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no element error");
  text = co_test_error_text (msg);
  fail_unless (strstr (text, "takes Y444 only where kernel-formats names it")
      && strstr (text, "ABI version 1, GRAY8 to I420"), "%s", text);
  g_free (text);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  g_free (lib);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Audio: the windowed biquad, and the history through the ABI check         */
/* ------------------------------------------------------------------------ */

#define RATE 48000

/* The windowed biquad of frame @n of the stream @x (@ch channels, frames
 * before 0 are 0), channel @c, window @hist, in double. */
static gdouble
ref_biquad (const gfloat * x, gint64 n, gint ch, gint c, gint64 hist,
    const gdouble * q)
{
  gdouble x1 = 0, x2 = 0, y1 = 0, y2 = 0, y = 0;
  gint64 k;

  for (k = n - hist; k <= n; k++) {
    gdouble xk = k >= 0 ? x[k * ch + c] : 0.0;

    y = q[0] * xk + q[1] * x1 + q[2] * x2 - q[3] * y1 - q[4] * y2;
    x2 = x1;
    x1 = xk;
    y2 = y1;
    y1 = y;
  }
  return y;
}

static GstHarness *
audio_harness (guint ch, guint streams, guint chunks)
{
  GstElement *e = co_test_make_element ("cudaaudiofilter");
  GstHarness *h;
  gchar *caps = g_strdup_printf ("audio/x-raw,format=F32LE,rate=%d,"
      "channels=%u,layout=interleaved", RATE, ch);

  g_object_set (e, "streams", streams, "chunks", chunks, "post-messages",
      FALSE, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* Pushes buffers of the given frame counts of @x (the whole stream) and
 * returns the concatenated output. */
static gfloat *
audio_run (GstHarness * h, const gfloat * x, gint ch, const guint * lens,
    guint n_bufs, gsize total, const gchar * ctx)
{
  gfloat *y = g_new0 (gfloat, total * ch);
  gsize off = 0, got = 0;
  guint i;

  for (i = 0; i < n_bufs; i++) {
    GstBuffer *b = gst_buffer_new_memdup (x + off * ch,
        lens[i] * ch * sizeof (gfloat));

    off += lens[i];
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  while (got < total) {
    GstBuffer *o = co_test_pull_buffer (h, ctx);
    gsize sz = gst_buffer_get_size (o);

    fail_unless (got * ch * 4 + sz <= total * ch * 4, "%s: too much output",
        ctx);
    gst_buffer_extract (o, 0, y + got * ch, sz);
    got += sz / (ch * 4);
    gst_buffer_unref (o);
  }
  return y;
}

static void
random_lens (GRand * rand, guint * lens, guint n, gsize * total)
{
  guint i;

  *total = 0;
  for (i = 0; i < n; i++) {
    lens[i] = g_rand_int_range (rand, 1, 3000);
    *total += lens[i];
  }
}

/* Every chunks x streams: the same bits (each output depends on its window
 * only), within float rounding of the double reference. */
GST_START_TEST (test_biquad)
{
  static const gdouble lp[5] = { 0.0675, 0.135, 0.0675, -1.143, 0.4128 };
  static const gdouble fir[5] = { 0.5, -0.25, 0.125, 0.0, 0.0 };
  static const guint hists[] = { 2, 5, 64 };
  const gdouble *q = __i__ % 2 ? fir : lp;
  guint hist = hists[__i__ % 3], ch = 1 + __i__ % 3, streams, chunks;
  guint32 seed = co_test_seed ("test_biquad", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint lens[12];
  gsize total, i;
  gfloat *x, *first = NULL;
  gdouble *want;

  random_lens (rand, lens, G_N_ELEMENTS (lens), &total);
  x = g_new (gfloat, total * ch);
  want = g_new (gdouble, total * ch);
  for (i = 0; i < total * ch; i++)
    x[i] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  for (i = 0; i < total * ch; i++)
    want[i] = ref_biquad (x, i / ch, ch, i % ch, hist, q);
  for (chunks = 1; chunks <= 7; chunks++) {
    for (streams = 1; streams <= 4; streams++) {
      gchar *ctx = g_strdup_printf ("[biquad %uch history=%u streams=%u "
          "chunks=%u backend=%s seed=0x%08x]", ch, hist, streams, chunks,
          co_test_backend, seed);
      GstHarness *h = audio_harness (ch, streams, chunks);
      gfloat *y;

      set_example (h->element, "biquad", hist);
      set_params (h->element, q, 5);
      y = audio_run (h, x, ch, lens, G_N_ELEMENTS (lens), total, ctx);
      for (i = 0; i < total * ch; i++)
        fail_unless (fabs (y[i] - want[i]) <= 1e-5, "%s: sample %"
            G_GSIZE_FORMAT " is %.9g, the reference says %.9g", ctx, i, y[i],
            want[i]);
      if (!first)
        first = g_memdup2 (y, total * ch * sizeof (gfloat));
      fail_unless (memcmp (first, y, total * ch * sizeof (gfloat)) == 0,
          "%s: not the same bits as with chunks=1 streams=1", ctx);
      gst_harness_teardown (h);
      g_free (y);
      g_free (ctx);
    }
  }
  g_free (first);
  g_free (x);
  g_free (want);
  g_rand_free (rand);
}

GST_END_TEST;

/* New kernel-params with buffers in flight: the history goes on (the
 * windows after the change reach into the buffers before it). */
GST_START_TEST (test_biquad_params_change)
{
  static const gdouble a[5] = { 0.0675, 0.135, 0.0675, -1.143, 0.4128 };
  static const gdouble b[5] = { 1.0, -1.0, 0.5, 0.25, 0.0 };
  const guint hist = 16, ch = 2, lens[3] = { 700, 50, 900 };
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_biquad_pc", 0));
  GstHarness *h = audio_harness (ch, 3, 5);
  gsize total = 1650, i, off = 0, got = 0;
  gfloat *x = g_new (gfloat, total * ch), *y = g_new0 (gfloat, total * ch);
  guint k;

  for (i = 0; i < total * ch; i++)
    x[i] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  set_example (h->element, "biquad", hist);
  set_params (h->element, a, 5);
  for (k = 0; k < 3; k++) {
    if (k == 2)
      set_params (h->element, b, 5);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_memdup (x +
                off * ch, lens[k] * ch * sizeof (gfloat))), GST_FLOW_OK);
    off += lens[k];
  }
  for (k = 0; k < 3; k++) {
    GstBuffer *o = co_test_pull_buffer (h, "[params change]");

    gst_buffer_extract (o, 0, y + got * ch, gst_buffer_get_size (o));
    got += gst_buffer_get_size (o) / (ch * sizeof (gfloat));
    gst_buffer_unref (o);
  }
  for (i = 0; i < total * ch; i++) {
    gdouble want = ref_biquad (x, i / ch, ch, i % ch, hist,
        i / ch >= 750 ? b : a);

    fail_unless (fabs (y[i] - want) <= 1e-5, "[params change, backend=%s] "
        "sample %" G_GSIZE_FORMAT " is %.9g, the reference says %.9g",
        co_test_backend, i, y[i], want);
  }
  gst_harness_teardown (h);
  g_free (x);
  g_free (y);
  g_rand_free (rand);
}

GST_END_TEST;

/* the history (frames) test_abi_audio asks for */
static const struct
{
  const gchar *name;
  guint hist;
} abi_audio_variants[] = {
  {.name = "no-history",.hist = 0},
  {.name = "history-3",.hist = 3},
  {.name = "history-700",.hist = 700},
};

/* The history through the ABI check: frames carry their index + 1. */
GST_START_TEST (test_abi_audio)
{
  const guint hist = abi_audio_variants[__i__].hist, ch = 2;
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  GRand *rand = g_rand_new_with_seed (co_test_seed ("test_abi_audio",
          __i__));
  guint chunks, lens[10];
  gsize total, i;

  g_print ("test_abi_audio[%d]: %s\n", __i__, abi_audio_variants[__i__].name);
  if (on_cuda ()) {
    g_free (lib);
    g_rand_free (rand);
    return;
  }
  random_lens (rand, lens, G_N_ELEMENTS (lens), &total);
  for (chunks = 1; chunks <= 7; chunks += 3) {
    GstHarness *h = audio_harness (ch, 1 + chunks % 4, chunks);
    gdouble p[4] = { GST_CUDA_OVERLAP_KERNEL_AUDIO_F32LE, hist, ch, RATE };
    gfloat *x = g_new (gfloat, total * ch), *y;
    gchar *ctx = g_strdup_printf ("[abi audio history=%u chunks=%u]", hist,
        chunks);

    for (i = 0; i < total * ch; i++)
      x[i] = (gfloat) (i / ch + 1);
    g_object_set (h->element, "kernel-cpu-library", lib, "kernel-cpu-symbol",
        "co_abi_check_audio", "kernel-halo", hist, NULL);
    set_params (h->element, p, 4);
    gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
    y = audio_run (h, x, ch, lens, G_N_ELEMENTS (lens), total, ctx);
    fail_unless (memcmp (x, y, total * ch * sizeof (gfloat)) == 0,
        "%s: output differs from input", ctx);
    gst_harness_teardown (h);
    g_free (x);
    g_free (y);
    g_free (ctx);
  }
  g_free (lib);
  g_rand_free (rand);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Runs "SRC ! ELEMENT PROPS ! fakesink" and returns the text of its first
 * error (NULL at EOS), failing when neither comes within 60 s. */
static gchar *
pipeline_error (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "?");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: no error and no EOS in 60 s (a hang?)", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    text = co_test_error_text (msg);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return text;
}

/* The pipeline of a video error test: custom with @props. */
static gchar *
video_error (const gchar * props)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudavideofilter "
      "backend=%s operation=custom chunks=3 streams=2 post-messages=false "
      "%s ! fakesink", co_test_backend, props);
  gchar *text = pipeline_error (desc);

  g_free (desc);
  return text;
}

static void
expect_error (const gchar * props, const gchar * const *words)
{
  gchar *text = video_error (props);

  fail_unless (text != NULL, "%s: no error", props);
  for (; *words; words++)
    fail_unless (strstr (text, *words) != NULL, "%s: the error does not say "
        "\"%s\": %s", props, *words, text);
  GST_INFO ("%s: %s", props, text);
  g_free (text);
}

/* The CPU backend: no CPU function, a missing library or symbol, a
 * function that fails. */
GST_START_TEST (test_errors_cpu)
{
  gchar *lib = kpath (TRUE, "libco-abi-check-cpu.so");
  gchar *props;

  if (on_cuda ()) {
    g_free (lib);
    return;
  }
  {
    const gchar *w[] = { "operation=custom on the CPU backend needs "
          "kernel-cpu-library and kernel-cpu-symbol", NULL
    };
    expect_error ("kernel-module=/nonexistent/k.ptx kernel-name=k", w);
  }
  {
    const gchar *w[] = { "/nonexistent/libk.so", "kernel-cpu-library",
      NULL
    };
    expect_error ("kernel-cpu-library=/nonexistent/libk.so "
        "kernel-cpu-symbol=k", w);
  }
  {
    const gchar *w[] = { "no function \"co_nope\"", "libco-abi-check-cpu",
      NULL
    };
    props = g_strdup_printf ("kernel-cpu-library=%s kernel-cpu-symbol="
        "co_nope", lib);
    expect_error (props, w);
    g_free (props);
  }
  {
    const gchar *w[] = { "\"co_fail_cpu\"", "returned 3", NULL };
    props = g_strdup_printf ("kernel-cpu-library=%s kernel-cpu-symbol="
        "co_fail_cpu", lib);
    expect_error (props, w);
    g_free (props);
  }
  g_free (lib);
}

GST_END_TEST;

/* kernel-params: doubles back whatever numbers were set (integers as
 * Python's Gst.ValueArray([2, 100]) makes them, unsigned 64-bit ones,
 * gst-launch's "<2, 100, 0.5>"); a value that is no number, or too many,
 * is refused with a warning and the old values stay. */
static void
expect_params (GstElement * e, const gdouble * want, guint n)
{
  co_test_check_doubles (G_OBJECT (e), "kernel-params", want, n,
      "test_params_types");
}

GST_START_TEST (test_params_types)
{
  GstElement *e = gst_element_factory_make ("cudavideofilter", NULL);
  const gdouble ints[] = { 2, -100, 7 };
  const gdouble big[] = { 4000000000.0, 7 };
  const gdouble mixed[] = { 2, 100, 0.5 };
  gdouble many[65];
  guint i;

  fail_unless (e != NULL);
  /* a value array holds values of one type */
  set_params_as (e, G_TYPE_INT, ints, 3);
  expect_params (e, ints, 3);
  set_params_as (e, G_TYPE_UINT64, big, 2);
  expect_params (e, big, 2);

  gst_util_set_object_arg (G_OBJECT (e), "kernel-params", "<2, 100, 0.5>");
  expect_params (e, mixed, 3);

  /* no number ("2" as a string): refused, the values stay */
  ASSERT_WARNING (set_params_as (e, G_TYPE_STRING, ints, 1));
  expect_params (e, mixed, 3);

  /* 65 values: refused */
  for (i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = i;
  ASSERT_WARNING (set_params (e, many, G_N_ELEMENTS (many)));
  expect_params (e, mixed, 3);
  gst_object_unref (e);
}

GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* kernel-launcher: the boxed GstCudaOverlapKernelLauncher                   */
/* ------------------------------------------------------------------------ */

#define LAUNCHER_TYPE GST_CUDA_OVERLAP_TYPE_KERNEL_LAUNCHER
/* what the filling launcher writes */
#define FILL_BYTE 0x5a

/* A launcher's user_data: how often its destroy ran. */
typedef struct
{
  gint destroyed;
} LState;

static void
lstate_destroy (void *user_data)
{
  g_atomic_int_inc (&((LState *) user_data)->destroyed);
}

static gint
destroyed (LState * st)
{
  return g_atomic_int_get (&st->destroyed);
}

/* The band of the plane a launch writes: @fill, every byte FILL_BYTE, else
 * a copy of its input. */
static int
band_cpu (const GstCudaOverlapVideoLaunch * a, gboolean fill)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  gsize row = (gsize) p->width * p->pixel_bytes;
  gint y;

  for (y = 0; y < p->rows; y++) {
    if (fill)
      memset (p->dst + y * p->dst_pitch, FILL_BYTE, row);
    else
      memcpy (p->dst + y * p->dst_pitch, p->src + y * p->src_pitch, row);
  }
  return 0;
}

/* The same on the engine's stream (stream-ordered copies, no kernel). */
static int
band_cuda (void *stream, const GstCudaOverlapVideoLaunch * a, gboolean fill)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  gsize row = (gsize) p->width * p->pixel_bytes;

  if (fill)
    return (int) cudaMemset2DAsync (p->dst, p->dst_pitch, FILL_BYTE, row,
        p->rows, (cudaStream_t) stream);
  return (int) cudaMemcpy2DAsync (p->dst, p->dst_pitch, p->src, p->src_pitch,
      row, p->rows, cudaMemcpyDeviceToDevice, (cudaStream_t) stream);
}

static int
copy_cpu (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  return band_cpu (a, FALSE);
}

static int
fill_cpu (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  return band_cpu (a, TRUE);
}

static int
copy_cuda (void *stream, const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  return band_cuda (stream, a, FALSE);
}

static int
fill_cuda (void *stream, const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  return band_cuda (stream, a, TRUE);
}

/* A launcher that copies (or, @fill, fills) with @st as its user_data. */
static GstCudaOverlapKernelLauncher
make_launcher (gboolean fill, LState * st)
{
  GstCudaOverlapKernelLauncher l = { GST_CUDA_OVERLAP_KERNEL_ABI_VERSION,
    sizeof (GstCudaOverlapKernelLauncher), fill ? fill_cuda : copy_cuda,
    NULL, fill ? fill_cpu : copy_cpu, NULL, st, lstate_destroy
  };

  return l;
}

/* The property's type is the boxed type the header names; setting it
 * copies the struct (the application's may go at once), reading it gives
 * a copy that shares the user_data, and destroy runs once, after the last
 * copy: here the one read back, after the element is gone. */
GST_START_TEST (test_launcher_boxed)
{
  GstElement *e = gst_element_factory_make ("cudavideofilter", NULL);
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "kernel-launcher");
  LState st = { 0 };
  GstCudaOverlapKernelLauncher l = make_launcher (FALSE, &st);
  GstCudaOverlapKernelLauncher *got = NULL, *again = NULL;

  fail_unless (G_IS_PARAM_SPEC_BOXED (p));
  fail_unless_equals_string (g_type_name (p->value_type),
      GST_CUDA_OVERLAP_KERNEL_LAUNCHER_TYPE_NAME);
  fail_unless (p->value_type == LAUNCHER_TYPE);
  fail_unless ((p->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE);
  g_object_get (e, "kernel-launcher", &got, NULL);
  fail_unless (got == NULL);

  g_object_set (e, "kernel-launcher", &l, NULL);
  memset (&l, 0, sizeof (l));
  g_object_get (e, "kernel-launcher", &got, NULL);
  fail_unless (got != NULL && got != &l);
  fail_unless (got->abi_version == GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      got->video_cpu == copy_cpu && got->video == copy_cuda &&
      got->user_data == &st && got->destroy == lstate_destroy);
  /* the same launcher again: nothing changes, nothing is destroyed */
  g_object_set (e, "kernel-launcher", got, NULL);
  g_boxed_free (LAUNCHER_TYPE, got);
  g_object_get (e, "kernel-launcher", &again, NULL);
  fail_unless (again != NULL && again->user_data == &st);
  fail_unless_equals_int (destroyed (&st), 0);
  gst_object_unref (e);
  fail_unless_equals_int (destroyed (&st), 0);
  g_boxed_free (LAUNCHER_TYPE, again);
  fail_unless_equals_int (destroyed (&st), 1);
}

GST_END_TEST;

/* One copy set on two elements shares its user_data between them: destroy
 * runs once, when the last of them lets it go (replaced with NULL). */
GST_START_TEST (test_launcher_shared)
{
  GstElement *v = gst_element_factory_make ("cudavideofilter", NULL);
  GstElement *a = gst_element_factory_make ("cudaaudiofilter", NULL);
  LState st = { 0 };
  GstCudaOverlapKernelLauncher l = make_launcher (FALSE, &st);
  GstCudaOverlapKernelLauncher *shared = g_boxed_copy (LAUNCHER_TYPE, &l);

  g_object_set (v, "kernel-launcher", shared, NULL);
  g_object_set (a, "kernel-launcher", shared, NULL);
  g_boxed_free (LAUNCHER_TYPE, shared);
  fail_unless_equals_int (destroyed (&st), 0);
  gst_object_unref (v);
  fail_unless_equals_int (destroyed (&st), 0);
  g_object_set (a, "kernel-launcher", NULL, NULL);
  fail_unless_equals_int (destroyed (&st), 1);
  gst_object_unref (a);
  fail_unless_equals_int (destroyed (&st), 1);
}

GST_END_TEST;

/* A struct of an unknown ABI version, or shorter than this ABI's: refused
 * with a warning, the launcher set before stays, and the refused one's
 * destroy never runs (its user_data stays the application's).  Version 1's
 * struct (the same as version 2's) is taken. */
GST_START_TEST (test_launcher_refused)
{
  GstElement *e = gst_element_factory_make ("cudavideofilter", NULL);
  LState st = { 0 }, bad = { 0 }, v1 = { 0 };
  GstCudaOverlapKernelLauncher l = make_launcher (FALSE, &st);
  GstCudaOverlapKernelLauncher wrong = make_launcher (TRUE, &bad);
  GstCudaOverlapKernelLauncher old = make_launcher (FALSE, &v1);
  GstCudaOverlapKernelLauncher *got = NULL;

  g_object_set (e, "kernel-launcher", &l, NULL);
  wrong.abi_version = GST_CUDA_OVERLAP_KERNEL_ABI_VERSION + 1;
  ASSERT_WARNING (g_object_set (e, "kernel-launcher", &wrong, NULL));
  wrong.abi_version = 0;
  ASSERT_WARNING (g_object_set (e, "kernel-launcher", &wrong, NULL));
  wrong.abi_version = GST_CUDA_OVERLAP_KERNEL_ABI_VERSION;
  wrong.struct_size = G_STRUCT_OFFSET (GstCudaOverlapKernelLauncher, destroy);
  ASSERT_WARNING (g_object_set (e, "kernel-launcher", &wrong, NULL));
  g_object_get (e, "kernel-launcher", &got, NULL);
  fail_unless (got != NULL && got->user_data == &st);
  g_boxed_free (LAUNCHER_TYPE, got);
  old.abi_version = 1;
  g_object_set (e, "kernel-launcher", &old, NULL);
  fail_unless_equals_int (destroyed (&st), 1);
  g_object_get (e, "kernel-launcher", &got, NULL);
  fail_unless (got != NULL && got->user_data == &v1 && got->abi_version == 1);
  g_boxed_free (LAUNCHER_TYPE, got);
  gst_object_unref (e);
  fail_unless_equals_int (destroyed (&st), 1);
  fail_unless_equals_int (destroyed (&v1), 1);
  fail_unless_equals_int (destroyed (&bad), 0);
}

GST_END_TEST;

/* The next output of @h against @in: a copy of it, or (@fill) every byte
 * FILL_BYTE. */
static void
check_launcher_output (GstHarness * h, GstBuffer * in, gboolean fill,
    const gchar * ctx)
{
  GstBuffer *out = co_test_pull_buffer (h, ctx);
  GstMapInfo mi, mo;
  gsize i;

  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ));
  fail_unless (gst_buffer_map (out, &mo, GST_MAP_READ));
  fail_unless_equals_int (mo.size, mi.size);
  for (i = 0; i < mo.size; i++)
    if (mo.data[i] != (fill ? FILL_BYTE : mi.data[i]))
      fail ("%s: byte %" G_GSIZE_FORMAT " is 0x%02x, the %s launcher writes "
          "0x%02x", ctx, i, mo.data[i], fill ? "filling" : "copying",
          fill ? FILL_BYTE : mi.data[i]);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
  gst_buffer_unref (out);
}

/* A launcher replaced while playing: the frames pushed before run the old
 * one, those after the new one; the old one's destroy runs once the engine
 * that ran it is gone, the new one's when the element is. */
GST_START_TEST (test_launcher_switch)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=67,height=41,"
      "framerate=30/1";
  guint32 seed = co_test_seed ("test_launcher_switch", 0);
  gchar *ctx = g_strdup_printf ("[launcher switch backend=%s seed=0x%08x]",
      co_test_backend, seed);
  GstHarness *h = video_harness (caps, 2, 3);
  GRand *rand = g_rand_new_with_seed (seed);
  LState st_copy = { 0 }, st_fill = { 0 };
  GstCudaOverlapKernelLauncher copy = make_launcher (FALSE, &st_copy);
  GstCudaOverlapKernelLauncher fill = make_launcher (TRUE, &st_fill);
  GstBuffer *in[8];
  guint i;

  g_object_set (h->element, "kernel-launcher", &copy, "kernel-formats",
      "RGBA", NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    GstMapInfo map;

    if (i == G_N_ELEMENTS (in) / 2)
      g_object_set (h->element, "kernel-launcher", &fill, NULL);
    in[i] = gst_buffer_new_allocate (NULL, 67 * 41 * 4, NULL);
    gst_buffer_map (in[i], &map, GST_MAP_WRITE);
    co_test_fill_random (rand, map.data, map.size);
    gst_buffer_unmap (in[i], &map);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in[i])),
        GST_FLOW_OK);
  }
  for (i = 0; i < G_N_ELEMENTS (in); i++) {
    check_launcher_output (h, in[i], i >= G_N_ELEMENTS (in) / 2, ctx);
    gst_buffer_unref (in[i]);
  }
  fail_unless_equals_int (destroyed (&st_copy), 1);
  fail_unless_equals_int (destroyed (&st_fill), 0);
  gst_harness_teardown (h);
  fail_unless_equals_int (destroyed (&st_copy), 1);
  fail_unless_equals_int (destroyed (&st_fill), 1);
  g_rand_free (rand);
  g_free (ctx);
}

GST_END_TEST;

/* The CUDA backend: a missing file, a file that is no module, a missing
 * kernel, a cubin for another GPU. */
GST_START_TEST (test_errors_cuda)
{
  gchar *ptx = kpath (FALSE, "sobel.ptx");
  gchar *cubin = kpath (FALSE, "sobel-sm75.cubin");
  gchar *junk = NULL, *props;
  struct cudaDeviceProp prop;
  gint fd;

  if (!on_cuda ())
    goto done;
  {
    const gchar *w[] = { "cannot read kernel-module", "/nonexistent/k.ptx",
      NULL
    };
    expect_error ("kernel-module=/nonexistent/k.ptx kernel-name=k", w);
  }
  fd = g_file_open_tmp ("co-junk-XXXXXX.ptx", &junk, NULL);
  fail_unless (fd >= 0);
  fail_unless (write (fd, "this is not a module\n", 21) == 21);
  close (fd);
  {
    /* found by cudaLibraryLoadData, or (lazy loading) at the first use */
    const gchar *w[] = { "kernel-module", junk, "cudaError", NULL };
    gchar *text;

    props = g_strdup_printf ("kernel-module=%s kernel-name=co_sobel", junk);
    expect_error (props, w);
    text = video_error (props);
    fail_unless (strstr (text, "cudaLibraryLoadData") != NULL ||
        strstr (text, "cannot be loaded (cudaLibraryGetKernel") != NULL,
        "%s: the error names neither loading call: %s", props, text);
    fail_if (strstr (text, "extern \"C\"") != NULL, "%s: a module that is "
        "no module is reported as a missing symbol: %s", props, text);
    g_free (text);
    g_free (props);
  }
  {
    const gchar *w[] = { "no kernel \"co_nope\"", "sobel.ptx",
      "cudaErrorSymbolNotFound", NULL
    };
    props = g_strdup_printf ("kernel-module=%s kernel-name=co_nope", ptx);
    expect_error (props, w);
    g_free (props);
  }
  fail_unless (cudaGetDeviceProperties (&prop, 0) == cudaSuccess);
  if (prop.major * 10 + prop.minor != 75) {
    const gchar *w[] = { "sobel-sm75.cubin", "compute capability",
      "cudaError", NULL
    };
    props = g_strdup_printf ("kernel-module=%s kernel-name=co_sobel", cubin);
    expect_error (props, w);
    g_free (props);
  }
done:
  if (junk)
    g_unlink (junk);
  g_free (junk);
  g_free (ptx);
  g_free (cubin);
}

GST_END_TEST;

/* A kernel that faults: an element error that names it, within the
 * timeout, no hang.  Last in its process: the context is lost after. */
GST_START_TEST (test_cuda_fault)
{
  gchar *ptx = kpath (TRUE, "fault.ptx"), *props;
  const gchar *w[] = { "co_fault", "fault.ptx", "cudaError", NULL };

  props = g_strdup_printf ("kernel-module=%s kernel-name=co_fault", ptx);
  expect_error (props, w);
  g_free (props);
  g_free (ptx);
}

GST_END_TEST;

static void
source_on (void)
{
  co_test_leaks_setup ();
  example_source = TRUE;
}

static void
source_off (void)
{
  example_source = FALSE;
  leaks_teardown ();
}

/* kernel-source's errors: two kernels named, the CPU backend without a
 * CPU function, a source that does not compile (its log in the error), a
 * missing file, a kernel-name the source does not define. */
GST_START_TEST (test_source_errors)
{
  gchar *props, *text;

  {
    const gchar *w[] = { "kernel-module and kernel-source-file are set",
      "set only one", NULL
    };
    expect_error ("kernel-module=/x/k.ptx kernel-source-file=/x/k.cu "
        "kernel-name=k kernel-cpu-library=/x/libk.so kernel-cpu-symbol=k", w);
  }
  if (!on_cuda ()) {
    const gchar *w[] = { "operation=custom on the CPU backend needs "
          "kernel-cpu-library", "kernel-source is CUDA C", NULL
    };
    expect_error ("kernel-source=\"__global__ void k (int) {}\" "
        "kernel-name=k", w);
    return;
  }
  props = g_strdup ("kernel-source=\"__global__ void k "
      "(GstCudaOverlapVideoLaunch a) { undeclared_thing; }\" kernel-name=k");
  {
    const gchar *w[] = { "kernel-source does not compile",
      "NVRTC_ERROR_COMPILATION", "the compiler's log",
      "error: identifier \"undeclared_thing\" is undefined", NULL
    };
    expect_error (props, w);
  }
  {
    const gchar *w[] = { "cannot read kernel-source-file",
      "/nonexistent/k.cu", NULL
    };
    expect_error ("kernel-source-file=/nonexistent/k.cu kernel-name=k", w);
  }
  {
    const gchar *w[] = { "kernel-source does not compile", "\"nope\"", NULL };
    expect_error ("kernel-source=\"__global__ void k (int) {}\" "
        "kernel-name=nope", w);
  }
  text = video_error (props);
  /* the message is the first line; the log is in the debug text */
  fail_unless (strstr (text, "undeclared_thing") > strstr (text,
          "the compiler's log"), "%s", text);
  g_free (text);
  g_free (props);
}

GST_END_TEST;

/* A kernel in one line, by its C++ name: compiled, then (a second
 * element) from the cache; the passport says which, and the output is
 * the built-in invert's. */
GST_START_TEST (test_source_one_line)
{
  static const gchar src[] = "__global__ void inv (GstCudaOverlapVideoLaunch "
      "a) { const GstCudaOverlapKernelPlane *p = &a.planes[a.plane]; int x = "
      "blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y; if "
      "(x < p->width && y < p->rows) p->dst[(int64_t) y * p->dst_pitch + x] "
      "= 255 - p->src[(int64_t) y * p->src_pitch + x]; }";
  const gchar *caches[2] = { NULL, "hit" };
  guint round;

  if (!on_cuda ())
    return;
  for (round = 0; round < 2; round++) {
    GstHarness *h = video_harness ("video/x-raw,format=GRAY8,width=32,"
        "height=17,framerate=30/1", 2, 3);
    GstBuffer *in = gst_harness_create_buffer (h, 32 * 17), *out;
    GstStructure *pp = NULL;
    GstMapInfo mi, mo;
    const gchar *cache;
    gdouble ms = -1;
    guint i;

    g_object_set (h->element, "kernel-source", src, "kernel-name", "inv", NULL);
    gst_util_set_object_arg (G_OBJECT (h->element), "operation", "custom");
    gst_buffer_map (in, &mi, GST_MAP_WRITE);
    for (i = 0; i < mi.size; i++)
      mi.data[i] = (guint8) (i * 7 + 3);
    gst_buffer_unmap (in, &mi);
    out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out != NULL);
    gst_buffer_map (in, &mi, GST_MAP_READ);
    gst_buffer_map (out, &mo, GST_MAP_READ);
    for (i = 0; i < 32 * 17; i++)
      fail_unless_equals_int (mo.data[i], 255 - mi.data[i]);
    gst_buffer_unmap (out, &mo);
    gst_buffer_unmap (in, &mi);
    g_object_get (h->element, "passport", &pp, NULL);
    fail_unless (pp != NULL);
    cache = gst_structure_get_string (pp, "kernel-cache");
    fail_unless (gst_structure_get_double (pp, "kernel-compile-ms", &ms));
    GST_INFO ("round %u: kernel-cache %s, kernel-compile-ms %.3f", round,
        cache, ms);
    if (caches[round]) {
      fail_unless_equals_string (cache, caches[round]);
    } else {
      fail_unless (g_strcmp0 (cache, "stored") == 0 ||
          g_strcmp0 (cache, "hit") == 0, "kernel-cache \"%s\"", cache);
    }
    fail_unless (g_strcmp0 (cache, "hit") == 0 ? ms == 0 : ms > 0);
    gst_structure_free (pp);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static Suite *
custom_suite (void)
{
  Suite *s = suite_create ("custom");
  TCase *tc;

  if (g_strcmp0 (g_getenv ("CO_TEST_CUSTOM_FAULT"), "1") == 0) {
    tc = co_test_new_tcase (s, "fault", leaks_teardown);
    tcase_add_test (tc, test_cuda_fault);
    return s;
  }
  tc = co_test_new_tcase (s, "video", leaks_teardown);
  tcase_add_loop_test (tc, test_sobel_small, 0, 2 * G_N_ELEMENTS (small_sizes));
  tcase_add_loop_test (tc, test_sobel_big, 0, 8);
  tcase_add_loop_test (tc, test_colormatrix, 0,
      G_N_ELEMENTS (colormatrix_variants));
  tcase_add_loop_test (tc, test_invert_example, 0, 8);
  tcase_add_loop_test (tc, test_example_formats, 0,
      G_N_ELEMENTS (format_variants));
  tcase_add_loop_test (tc, test_sobel_batch, 0, 3);
  tcase_add_loop_test (tc, test_switch_midstream, 0, 2);
  tcase_add_test (tc, test_format_names);
  tcase_add_loop_test (tc, test_abi_video, 0, 2 * G_N_ELEMENTS (abi_formats));
  tcase_add_test (tc, test_kernel_formats);
  tcase_add_test (tc, test_new_format_unlisted);
  tcase_add_loop_test (tc, test_abi_version_stamp, 0,
      G_N_ELEMENTS (stamp_variants));
  tcase_add_test (tc, test_new_format_refused);
  tcase_add_test (tc, test_halo_overreach);
  tcase_add_test (tc, test_params_types);

  tc = co_test_new_tcase (s, "launcher", leaks_teardown);
  tcase_add_test (tc, test_launcher_boxed);
  tcase_add_test (tc, test_launcher_shared);
  tcase_add_test (tc, test_launcher_refused);
  tcase_add_test (tc, test_launcher_switch);

  tc = co_test_new_tcase (s, "audio", leaks_teardown);
  tcase_add_loop_test (tc, test_biquad, 0, 6);
  tcase_add_test (tc, test_biquad_params_change);
  tcase_add_loop_test (tc, test_abi_audio, 0,
      G_N_ELEMENTS (abi_audio_variants));

  tc = co_test_new_tcase (s, "errors", leaks_teardown);
  tcase_add_test (tc, test_errors_cpu);
  tcase_add_test (tc, test_errors_cuda);

  /* the examples from their source (kernel-source-file): on the GPU
   * compiled with NVRTC and checked as their PTX is; on the CPU backend
   * the source is ignored for the CPU library */
  tc = tcase_create ("source");
  tcase_set_timeout (tc, 300);
  tcase_add_checked_fixture (tc, source_on, source_off);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_sobel_small, 0, on_cuda ()?
      2 * G_N_ELEMENTS (small_sizes) : 2);
  tcase_add_loop_test (tc, test_sobel_big, 0, on_cuda ()? 8 : 0);
  tcase_add_loop_test (tc, test_colormatrix, 0,
      G_N_ELEMENTS (colormatrix_variants));
  tcase_add_loop_test (tc, test_invert_example, 0, 4);
  tcase_add_loop_test (tc, test_sobel_batch, 0, 2);
  tcase_add_loop_test (tc, test_biquad, 0, on_cuda ()? 6 : 2);
  tcase_add_test (tc, test_source_errors);
  tcase_add_test (tc, test_source_one_line);
  return s;
}

/* The run's cache folder and the entries in its cudaoverlap/. */
static void
remove_cache (const gchar * home)
{
  gchar *dir = g_build_filename (home, "cudaoverlap", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *p = g_build_filename (dir, n, NULL);

    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_rmdir (home);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  gchar *cache_home;
  Suite *s;
  int nf;

  kernels_dir = g_getenv ("CO_TEST_KERNELS");
  examples_src_dir = g_getenv ("CO_TEST_EXAMPLES_SRC");
  if (!examples_src_dir)
    examples_src_dir = "examples/kernels";
  test_kernels_dir = g_getenv ("CO_TEST_TEST_KERNELS");
  if (!kernels_dir || !test_kernels_dir) {
    /* tests/test-custom of a build: its neighbours */
    gchar *here = g_path_get_dirname (argv[0]);

    if (!kernels_dir)
      kernels_dir = g_build_filename (here, "..", "examples", "kernels", NULL);
    if (!test_kernels_dir)
      test_kernels_dir = g_build_filename (here, "kernels", NULL);
    g_free (here);
  }
  nf = co_test_init (&argc, &argv, "cudavideofilter", DEFAULT_SEED, TRUE);
  if (nf != 0)
    return nf;
  /* kernel-source's cache (g_get_user_cache_dir ()/cudaoverlap): this
   * run's own, empty at its start */
  cache_home = g_dir_make_tmp ("co-custom-cache-XXXXXX", NULL);
  g_assert_nonnull (cache_home);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_print ("custom-kernel tests: backend=%s seed=0x%08x\n", co_test_backend,
      co_test_base_seed);
  s = custom_suite ();
  nf = gst_check_run_suite (s, "custom", __FILE__);
  co_test_leaks_free ();
  remove_cache (cache_home);
  g_free (cache_home);
  return nf == 0 ? 0 : 1;
}
