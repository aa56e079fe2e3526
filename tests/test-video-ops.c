/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst-check tests of cudavideofilter, operations: the reference's
 * self-checks, then every operation on every format and size against the
 * reference, engine configurations from serial to many streams and chunks,
 * long runs from one or several threads. Outputs are compared with the
 * independent reference in co-reference.c; the set-up and the environment
 * are co-test-video.h's.
 */

#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "co-test-video.h"

/* Self-checks of the reference                                              */
/* ------------------------------------------------------------------------ */

/* A packed format's entry: YUY2's and UYVY's offsets, strides and
 * subsampling against GstVideoFormatInfo; the 10-bit formats' bit
 * positions against what GStreamer's own unpacking makes of a word. */
static void
check_packed_entry (GstVideoFormat format, const CoRefFormat * f)
{
  const GstVideoFormatInfo *fi = gst_video_format_get_info (format);
  guint8 word[4];
  gpointer data[GST_VIDEO_MAX_PLANES] = { word };
  gint stride[GST_VIDEO_MAX_PLANES] = { 4 };
  guint16 argb[4];
  guint32 v;
  guint c, sum = 0, prod = 1;

  fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_N_PLANES (fi), 1);
  fail_unless_equals_int (f->n_planes, 1);
  fail_unless_equals_int (f->pstride[0], 4);
  fail_unless_equals_int (f->n_colour[0], 3);
  fail_unless (f->gamma_plane[0]);
  if (f->packing == CO_REF_PACKED_422) {
    fail_unless (GST_VIDEO_FORMAT_INFO_IS_YUV (fi));
    fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), 3);
    fail_unless_equals_int (f->max, 255);
    for (c = 0; c < 3; c++) {
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_POFFSET (fi, c),
          f->colour_offset[0][c]);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c),
          c == 0 ? 2 : 4);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_W_SUB (fi, c), c ? 1 : 0);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_H_SUB (fi, c), 0);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_DEPTH (fi, c), 8);
    }
    return;
  }
  fail_unless_equals_int (f->packing, CO_REF_PACKED_10);
  fail_if (GST_VIDEO_FORMAT_INFO_IS_YUV (fi));
  fail_unless (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (fi));
  fail_unless (GST_VIDEO_FORMAT_INFO_IS_LE (fi));
  fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi), 4);
  fail_unless_equals_int (f->max, 1023);
  for (c = 0; c < 4; c++)
    fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_DEPTH (fi, c), c < 3 ? 10 :
        2);
  /* colours 1, 2, 3 where the table says, alpha 2: unpacked to ARGB64,
   * each value's top bits */
  v = 2u << 30;
  for (c = 0; c < 3; c++)
    v |= (c + 1) << f->colour_offset[0][c];
  for (c = 0; c < 4; c++)
    word[c] = (v >> (8 * c)) & 0xff;
  fi->unpack_func (fi, GST_VIDEO_PACK_FLAG_NONE, argb,
      (const gpointer *) data, stride, 0, 0, 1);
  fail_unless_equals_int (argb[0] >> 14, 2);
  fail_unless_equals_int (argb[2] >> 6, 2);
  for (c = 1; c < 4; c++) {
    sum += argb[c] >> 6;
    prod *= argb[c] >> 6;
  }
  fail_unless (sum == 6 && prod == 6, "%s: colours not at bits 0, 10, 20",
      gst_video_format_to_string (format));
}

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
    if (f->packing != CO_REF_PACKED_NONE) {
      check_packed_entry (fmts[i], f);
      continue;
    }
    fail_unless_equals_int (f->n_planes, GST_VIDEO_FORMAT_INFO_N_PLANES (fi));
    for (p = 0; p < f->n_planes; p++)
      n_colour_total += f->n_colour[p];
    /* colour components = all components but alpha */
    fail_unless_equals_int (n_colour_total,
        GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi) - (alpha ? 1 : 0));
    for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi); c++) {
      guint plane = GST_VIDEO_FORMAT_INFO_PLANE (fi, c);
      guint bps = f->bytes_per_sample;
      /* in samples, rounded up: 1.22 gives the V of P010_10LE and P016_LE
       * the byte offset 1 (NV12's), where its sample starts at byte 2 */
      guint off = (GST_VIDEO_FORMAT_INFO_POFFSET (fi, c) + bps - 1) / bps * bps;
      guint k;
      gboolean listed = FALSE;

      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, c),
          f->pstride[plane]);
      /* a value of depth bits at shift in a sample of bytes_per_sample */
      fail_unless_equals_int (f->max,
          (1u << GST_VIDEO_FORMAT_INFO_DEPTH (fi, c)) - 1);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_SHIFT (fi, c), f->shift);
      fail_unless_equals_int ((GST_VIDEO_FORMAT_INFO_DEPTH (fi, c) +
              GST_VIDEO_FORMAT_INFO_SHIFT (fi, c) + 7) / 8,
          f->bytes_per_sample);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_W_SUB (fi, c),
          f->x_shift[plane]);
      fail_unless_equals_int (GST_VIDEO_FORMAT_INFO_H_SUB (fi, c),
          f->y_shift[plane]);
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
    if (f->bytes_per_sample == 2)
      fail_unless (GST_VIDEO_FORMAT_INFO_IS_LE (fi));
  }
  fail_unless_equals_int (n, N_ALL_FORMATS);
}

GST_END_TEST;

/* The 16-bit sample at @p (little endian) */
static guint
sample16 (const guint8 * p)
{
  return p[0] | (p[1] << 8);
}

static void
set_sample16 (guint8 * p, guint v)
{
  p[0] = v & 0xff;
  p[1] = v >> 8;
}

/* P010_10LE (values in the 10 high bits) and I420_10LE (the 10 low bits)
 * 1x1, with garbage in the padding bits: the values inverted, the padding
 * bits of the output 0; gamma leaves the chroma's values, padding cleared. */
static void
reference_known_10bit (void)
{
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  guint8 *y, *uv;

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_P010_10LE,
          1, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  /* Y: value 0x4a7f >> 6 = 297, padding 0x3f; U 1023 | 0x3f; V 0 | 0x01 */
  set_sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fi, 0), 0x4a7f);
  uv = GST_VIDEO_FRAME_PLANE_DATA (&fi, 1);
  set_sample16 (uv, 0xffff);
  set_sample16 (uv + 2, 0x0001);
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  y = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  uv = GST_VIDEO_FRAME_PLANE_DATA (&fo, 1);
  fail_unless_equals_int (sample16 (y), (1023 - 297) << 6);
  fail_unless_equals_int (sample16 (uv), 0);
  fail_unless_equals_int (sample16 (uv + 2), 1023 << 6);
  co_ref_apply (CO_REF_GAMMA, 1.0, 0, &fi, &fo);
  fail_unless_equals_int (sample16 (y), 297 << 6);
  fail_unless_equals_int (sample16 (uv), 0xffc0);
  fail_unless_equals_int (sample16 (uv + 2), 0);
  co_ref_apply (CO_REF_BOX_BLUR, 1.0, 3, &fi, &fo);
  fail_unless_equals_int (sample16 (y), 297 << 6);
  co_ref_apply (CO_REF_NONE, 1.0, 0, &fi, &fo);
  fail_unless_equals_int (sample16 (y), 0x4a7f);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420_10LE,
          1, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  /* values 0xfc05 & 1023 = 5, 0x03ff, 0x8400 & 1023 = 0 */
  set_sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fi, 0), 0xfc05);
  set_sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fi, 1), 0x03ff);
  set_sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fi, 2), 0x8400);
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  fail_unless_equals_int (sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fo, 0)), 1018);
  fail_unless_equals_int (sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fo, 1)), 0);
  fail_unless_equals_int (sample16 (GST_VIDEO_FRAME_PLANE_DATA (&fo, 2)), 1023);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

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

  reference_known_10bit ();
}

GST_END_TEST;

/* The packed formats by hand: YUY2 3x1 (two pairs, the last luma sample
 * padding), RGB10A2_LE's alpha kept. */
GST_START_TEST (test_reference_known_packed)
{
  static const guint8 yuy2[8] = { 10, 20, 30, 40, 50, 60, 77, 80 };
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstVideoFrame fi, fo;
  guint8 *p;
  guint32 v;

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_YUY2, 3, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  memcpy (GST_VIDEO_FRAME_PLANE_DATA (&fi, 0), yuy2, 8);
  p = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  fail_unless_equals_int (p[0], 245);
  fail_unless_equals_int (p[1], 235);
  fail_unless_equals_int (p[2], 225);
  fail_unless_equals_int (p[3], 215);
  fail_unless_equals_int (p[4], 205);
  fail_unless_equals_int (p[5], 195);
  fail_unless_equals_int (p[6], 77);    /* padding */
  fail_unless_equals_int (p[7], 175);
  /* r = 1 on one row: luma 10, 30, 50 -> (10+10+30)*3 = 150 -> 17,
   * (10+30+50)*3 = 270 -> 30, (30+50+50)*3 = 390 -> 43; U 20, 60 ->
   * (20+20+60)*3 = 300 -> 33, (20+60+60)*3 = 420 -> 47; V 40, 80 ->
   * (40+40+80)*3 = 480 -> 53, (40+80+80)*3 = 600 -> 67 */
  co_ref_apply (CO_REF_BOX_BLUR, 1.0, 1, &fi, &fo);
  fail_unless_equals_int (p[0], 17);
  fail_unless_equals_int (p[1], 33);
  fail_unless_equals_int (p[2], 30);
  fail_unless_equals_int (p[3], 53);
  fail_unless_equals_int (p[4], 43);
  fail_unless_equals_int (p[5], 47);
  fail_unless_equals_int (p[6], 77);
  fail_unless_equals_int (p[7], 67);
  /* gamma 2.0 on luma: 255 * sqrt (10 / 255) = 50.5 -> 50 */
  co_ref_apply (CO_REF_GAMMA, 2.0, 0, &fi, &fo);
  fail_unless_equals_int (p[0], 50);
  fail_unless_equals_int (p[1], 20);
  fail_unless_equals_int (p[6], 77);
  gst_video_frame_unmap (&fo);
  gst_video_frame_unmap (&fi);
  gst_buffer_unref (in);
  gst_buffer_unref (out);

  fail_unless (gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB10A2_LE,
          1, 1));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  out = gst_buffer_new_allocate (NULL, info.size, NULL);
  fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
  fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_WRITE));
  v = (1u << 30) | (1000u << 20) | (512u << 10) | 3u;
  p = GST_VIDEO_FRAME_PLANE_DATA (&fi, 0);
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
  co_ref_apply (CO_REF_INVERT, 1.0, 0, &fi, &fo);
  p = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
  v = p[0] | (p[1] << 8) | (p[2] << 16) | ((guint32) p[3] << 24);
  fail_unless_equals_int (v >> 30, 1);
  fail_unless_equals_int ((v >> 20) & 0x3ff, 23);
  fail_unless_equals_int ((v >> 10) & 0x3ff, 511);
  fail_unless_equals_int (v & 0x3ff, 1020);
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

/* The other formats: loop index op * N_MORE_FORMATS + format; every small
 * size with two settings, rotating so that each (op, format) sees 6 of
 * them and every format every setting. */
GST_START_TEST (test_correctness_small_more)
{
  const OpCfg *op = &op_cfgs[__i__ / N_MORE_FORMATS];
  GstVideoFormat format = format_at (N_FORMATS + __i__ % N_MORE_FORMATS);
  guint32 seed = co_test_seed ("test_correctness_small_more", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint s, k;

  for (s = 0; s < G_N_ELEMENTS (small_sizes); s++)
    for (k = 0; k < 2; k++)
      run_config (op, &co_test_run_cfgs[(__i__ + s + 3 * k) % CO_TEST_N_RUNS],
          format, small_sizes[s].w, small_sizes[s].h, &layout_default, 3,
          (s + k) % 2 == 1, rand, seed);
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

/* The other formats at 641x481 (odd: a subsampled plane's last column and
 * row of one pixel): one setting per (op, format), rotating; all of them
 * with CO_TEST_FULL=1. */
GST_START_TEST (test_correctness_vga_more)
{
  const OpCfg *op = &op_cfgs[__i__ / N_MORE_FORMATS];
  GstVideoFormat format = format_at (N_FORMATS + __i__ % N_MORE_FORMATS);
  guint32 seed = co_test_seed ("test_correctness_vga_more", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint r;

  for (r = 0; r < CO_TEST_N_RUNS; r++)
    if (co_test_full_matrix || r == __i__ % CO_TEST_N_RUNS)
      run_config (op, &co_test_run_cfgs[r], format, 641, 481, &layout_default,
          2, r % 2 == 1, rand, seed);
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
  {GST_VIDEO_FORMAT_Y42B, 6, 5},        /* box-blur r=2, 8 x 5 */
  {GST_VIDEO_FORMAT_Y444_16LE, 2, 3},   /* gamma 2.2, 3 x 5 */
  {GST_VIDEO_FORMAT_NV21, 8, 1},        /* box-blur r=32, 1 x 5 */
  {GST_VIDEO_FORMAT_RGB, 0, 6}, /* invert, serial */
  {GST_VIDEO_FORMAT_YV12, 7, 3},        /* box-blur r=7, 3 x 5 */
  {GST_VIDEO_FORMAT_P010_10LE, 0, 3},   /* invert, 3 x 5 */
  {GST_VIDEO_FORMAT_I420_10LE, 7, 5},   /* box-blur r=7, 8 x 5 */
  {GST_VIDEO_FORMAT_P016_LE, 1, 1},     /* gamma 0.45, 1 x 5 */
  {GST_VIDEO_FORMAT_P010_10LE, 2, 4},   /* gamma 2.2, 8 x 1 */
  {GST_VIDEO_FORMAT_P010_10LE, 8, 6},   /* box-blur r=32, serial */
  {GST_VIDEO_FORMAT_YUY2, 7, 5},        /* box-blur r=7, 8 x 5 */
  {GST_VIDEO_FORMAT_UYVY, 0, 3},        /* invert, 3 x 5 */
  {GST_VIDEO_FORMAT_RGB10A2_LE, 2, 4},  /* gamma 2.2, 8 x 1 */
  {GST_VIDEO_FORMAT_BGR10A2_LE, 8, 1},  /* box-blur r=32, 1 x 5 */
  {GST_VIDEO_FORMAT_UYVY, 8, 6},        /* box-blur r=32, serial */
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

static const struct
{
  const gchar *name;
  RunCfg run;
} extreme_variants[] = {
  {.name = "32-streams-64-chunks",.run = {32, 64, FALSE}},
  {.name = "1-stream-64-chunks",.run = {1, 64, FALSE}},
  {.name = "32-streams-1-chunk",.run = {32, 1, FALSE}},
  {.name = "2-streams-64-chunks",.run = {2, 64, FALSE}},
};

/* The extremes of streams and chunks, on tiny and on tall pictures. */
GST_START_TEST (test_extreme_settings)
{
  static const Size sizes[] = { {1, 1}, {2, 2}, {7, 3}, {33, 17}, {130, 129},
  {3, 300}
  };
  static const guint ops[] = { 0, 1, 8 };
  static const GstVideoFormat fmts[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_BGR10A2_LE,
  };
  const RunCfg *run = &extreme_variants[__i__].run;
  guint32 seed = co_test_seed ("test_extreme_settings", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  guint s, o, f;

  co_test_print_variant ("test_extreme_settings", __i__,
      extreme_variants[__i__].name);
  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (o = 0; o < G_N_ELEMENTS (ops); o++)
      for (f = 0; f < G_N_ELEMENTS (fmts); f++)
        run_config (&op_cfgs[ops[o]], run, fmts[f], sizes[s].w, sizes[s].h,
            &layout_default, 2, FALSE, rand, seed);
  g_rand_free (rand);
}

GST_END_TEST;

static const struct
{
  const gchar *name;
  guint op;                     /* op_cfgs[] */
  GstVideoFormat format;
} serial_variants[] = {
  {.name = "box-blur-nv12",.op = 7,.format = GST_VIDEO_FORMAT_NV12},
  {.name = "gamma-abgr",.op = 1,.format = GST_VIDEO_FORMAT_ABGR},
};

GST_START_TEST (test_serial_equals_overlap)
{
  guint32 seed = co_test_seed ("test_serial_equals_overlap", 0);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[serial_variants[__i__].op];
  GstVideoFormat fmt = serial_variants[__i__].format;
  GstVideoInfo info;
  GstHarness *ho = make_harness (op, &co_test_run_cfgs[5]);
  GstHarness *hs = make_harness (op, &co_test_run_cfgs[6]);
  gchar *ctx = g_strdup_printf ("[serial vs overlap, %s 127x65 backend=%s "
      "seed=0x%08x]", gst_video_format_to_string (fmt), co_test_backend, seed);
  guint i;

  co_test_print_variant ("test_serial_equals_overlap", __i__,
      serial_variants[__i__].name);
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


/* The same picture as Y42B and as YUY2 or UYVY: every operation gives the
 * same samples (4:2:2 packed: each component on its own grid). */
static const struct
{
  const gchar *name;
  guint op;                     /* op_cfgs[] */
  GstVideoFormat format;
  guint w, h;
} packed_planar_variants[] = {
  {.name = "yuy2-box-blur-r7-odd",.op = 7,.format = GST_VIDEO_FORMAT_YUY2,
      .w = 37,.h = 23},
  {.name = "uyvy-box-blur-r32-odd",.op = 8,.format = GST_VIDEO_FORMAT_UYVY,
      .w = 75,.h = 41},
  {.name = "yuy2-box-blur-r2-even",.op = 6,.format = GST_VIDEO_FORMAT_YUY2,
      .w = 64,.h = 9},
  {.name = "uyvy-box-blur-r1-one-column",.op = 5,.format =
        GST_VIDEO_FORMAT_UYVY,.w = 1,.h = 7},
  {.name = "uyvy-gamma-odd",.op = 2,.format = GST_VIDEO_FORMAT_UYVY,.w = 33,
      .h = 17},
  {.name = "yuy2-invert-odd",.op = 0,.format = GST_VIDEO_FORMAT_YUY2,.w = 5,
      .h = 3},
};

/* Y42B @planar's samples into the pairs of @packed (YUY2 or UYVY), or
 * (@back) the other way; an odd width's padding luma sample untouched. */
static void
repack_422 (GstVideoFrame * planar, GstVideoFrame * packed, gboolean back)
{
  const CoRefFormat *f = co_ref_format (GST_VIDEO_FRAME_FORMAT (packed));
  guint w = GST_VIDEO_FRAME_WIDTH (packed), h = GST_VIDEO_FRAME_HEIGHT (packed);
  guint x, y, c;

  for (y = 0; y < h; y++) {
    guint8 *pk = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (packed, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (packed, 0);

    for (c = 0; c < 3; c++) {
      guint8 *pl = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (planar, c) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (planar, c);
      guint n = c == 0 ? w : (w + 1) / 2, ps = c == 0 ? 2 : 4;

      for (x = 0; x < n; x++) {
        guint8 *b = pk + (gsize) x * ps + f->colour_offset[0][c];

        if (back)
          pl[x] = *b;
        else
          *b = pl[x];
      }
    }
  }
}

GST_START_TEST (test_packed_equals_planar)
{
  guint32 seed = co_test_seed ("test_packed_equals_planar", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[packed_planar_variants[__i__].op];
  GstVideoFormat fmt = packed_planar_variants[__i__].format;
  guint w = packed_planar_variants[__i__].w;
  guint h = packed_planar_variants[__i__].h;
  GstVideoInfo pinfo, kinfo;
  GstHarness *hp = make_harness (op, &co_test_run_cfgs[3]);
  GstHarness *hk = make_harness (op, &co_test_run_cfgs[5]);
  gchar *ctx = g_strdup_printf ("[%s as Y42B and %s %ux%u backend=%s "
      "seed=0x%08x]", packed_planar_variants[__i__].name,
      gst_video_format_to_string (fmt), w, h, co_test_backend, seed);
  guint i;

  co_test_print_variant ("test_packed_equals_planar", __i__,
      packed_planar_variants[__i__].name);
  gst_harness_set_src_caps (hp, caps_of (GST_VIDEO_FORMAT_Y42B, w, h, &pinfo));
  gst_harness_set_src_caps (hk, caps_of (fmt, w, h, &kinfo));
  for (i = 0; i < 3; i++) {
    GstBuffer *pin = make_input (rand, &pinfo, &layout_default);
    GstBuffer *kin = make_input (rand, &kinfo, &layout_default);
    GstBuffer *kexp, *pout, *kout, *back;
    GstVideoFrame fp, fk, fb;
    gchar *msg = NULL;
    gboolean same;

    /* the same samples; the packed padding stays random */
    fail_unless (gst_video_frame_map (&fp, &pinfo, pin, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fk, &kinfo, kin, GST_MAP_WRITE));
    repack_422 (&fp, &fk, FALSE);
    gst_video_frame_unmap (&fk);
    gst_video_frame_unmap (&fp);
    kexp = make_expected (op, kin, &kinfo);
    GST_BUFFER_PTS (pin) = GST_BUFFER_PTS (kin) = i * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (hp, pin), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (hk, kin), GST_FLOW_OK);
    pout = co_test_pull_buffer (hp, ctx);
    kout = co_test_pull_buffer (hk, ctx);
    /* the packed output as the reference says (its padding included) */
    check_output (kout, kexp, &kinfo, ctx);

    /* and its samples those of the planar output */
    back = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&pinfo), NULL);
    fail_unless (gst_video_frame_map (&fb, &pinfo, back, GST_MAP_WRITE));
    fail_unless (gst_video_frame_map (&fk, &kinfo, kout, GST_MAP_READ));
    repack_422 (&fb, &fk, TRUE);
    gst_video_frame_unmap (&fk);
    fail_unless (gst_video_frame_map (&fp, &pinfo, pout, GST_MAP_READ));
    same = co_ref_compare (&fp, &fb, &msg);
    gst_video_frame_unmap (&fp);
    gst_video_frame_unmap (&fb);
    fail_unless (same, "%s frame %u: the packed output's samples differ from "
        "the planar output's: %s", ctx, i, msg);
    gst_buffer_unref (back);
    gst_buffer_unref (pout);
    gst_buffer_unref (kout);
    gst_buffer_unref (kexp);
  }
  teardown_harness (hp);
  teardown_harness (hk);
  g_free (ctx);
  g_rand_free (rand);
}

GST_END_TEST;

/* The variants of test_many_frames: operation, engine configuration, an
 * explicit in-flight bound below the automatic one, the spinning wait (on
 * CUDA: the consumer polls the frame's end event), frames handed to the
 * element's submit thread */
static const struct
{
  const gchar *name;
  guint op, run;                /* op_cfgs[], co_test_run_cfgs[] */
  guint max_in_flight;
  const gchar *wait;
  gboolean submit_thread;
} many_variants[] = {
  {.name = "invert-3x5",.op = 0,.run = 3,.wait = "blocking"},
  {.name = "blur-3x5",.op = 6,.run = 3,.wait = "blocking"},
  {.name = "invert-serial",.op = 0,.run = 6,.wait = "blocking"},
  {.name = "blur-serial",.op = 6,.run = 6,.wait = "blocking"},
  {.name = "invert-max-in-flight-1",.op = 0,.run = 3,.max_in_flight = 1,
      .wait = "blocking"},
  {.name = "blur-max-in-flight-2",.op = 6,.run = 3,.max_in_flight = 2,
      .wait = "blocking"},
  {.name = "invert-spin",.op = 0,.run = 3,.wait = "spin"},
  {.name = "blur-spin",.op = 6,.run = 3,.wait = "spin"},
  {.name = "invert-submit-thread",.op = 0,.run = 3,.wait = "blocking",
      .submit_thread = TRUE},
  {.name = "blur-submit-thread-spin",.op = 6,.run = 3,.wait = "spin",
      .submit_thread = TRUE},
};

/* More frames than the in-flight bound. */
GST_START_TEST (test_many_frames)
{
  guint32 seed = co_test_seed ("test_many_frames", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[many_variants[__i__].op];
  const RunCfg *run = &co_test_run_cfgs[many_variants[__i__].run];
  guint max_in_flight = many_variants[__i__].max_in_flight;
  const gchar *wait = many_variants[__i__].wait;
  gboolean submit_thread = many_variants[__i__].submit_thread;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  GQueue pending = G_QUEUE_INIT;
  gchar *rd = co_test_run_desc (run), *od = op_desc (op);
  gchar *ctx = g_strdup_printf ("[40 frames pull after push, %s xRGB 96x54 "
      "%s max-in-flight=%u wait-mode=%s submit-thread=%d backend=%s "
      "seed=0x%08x]", od, rd, max_in_flight, wait, submit_thread,
      co_test_backend, seed);
  guint i;

  co_test_print_variant ("test_many_frames", __i__, many_variants[__i__].name);
  g_object_set (h->element, "max-in-flight", max_in_flight, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "wait-mode", wait);
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

static const struct
{
  const gchar *name;
  guint run;                    /* co_test_run_cfgs[] */
  gboolean submit_thread;       /* with the element's submit thread */
} threaded_variants[] = {
  {.name = "overlap-3x5",.run = 3},
  {.name = "serial",.run = 6},
  {.name = "serial-submit-thread",.run = 6,.submit_thread = TRUE},
};

GST_START_TEST (test_many_frames_threaded)
{
  guint32 seed = co_test_seed ("test_many_frames_threaded", __i__);
  GRand *rand = g_rand_new_with_seed (seed);
  const OpCfg *op = &op_cfgs[5];
  const RunCfg *run = &co_test_run_cfgs[threaded_variants[__i__].run];
  gboolean submit_thread = threaded_variants[__i__].submit_thread;
  GstVideoInfo info;
  GstHarness *h = make_harness (op, run);
  Feeder f = { 0, };
  GThread *t;
  gchar *rd = co_test_run_desc (run);
  gchar *ctx = g_strdup_printf ("[40 frames from a thread, box-blur r=1 "
      "NV12 130x70 %s submit-thread=%d backend=%s seed=0x%08x]", rd,
      submit_thread, co_test_backend, seed);
  guint i;

  co_test_print_variant ("test_many_frames_threaded", __i__,
      threaded_variants[__i__].name);
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

/* ------------------------------------------------------------------------ */
/* Suite                                                                     */
/* ------------------------------------------------------------------------ */

static Suite *
video_ops_suite (void)
{
  Suite *s = suite_create (CO_TEST_VIDEO_ELEMENT "-ops");
  TCase *tc;

  tc = co_test_new_tcase (s, "reference", leaks_teardown);
  tcase_add_test (tc, test_reference_table);
  tcase_add_test (tc, test_reference_known_values);
  tcase_add_test (tc, test_reference_known_packed);
  tcase_add_test (tc, test_reference_blur_ways_agree);

  tc = co_test_new_tcase (s, "correctness", leaks_teardown);
  tcase_add_loop_test (tc, test_correctness_small, 0, N_OPS * N_FORMATS);
  tcase_add_loop_test (tc, test_correctness_small_more, 0,
      N_OPS * N_MORE_FORMATS);
  tcase_add_loop_test (tc, test_correctness_vga, 0, N_OPS * N_FORMATS);
  tcase_add_loop_test (tc, test_correctness_vga_more, 0,
      N_OPS * N_MORE_FORMATS);
  tcase_add_loop_test (tc, test_correctness_big, 0, G_N_ELEMENTS (big_cases));
  tcase_add_loop_test (tc, test_extreme_settings, 0,
      G_N_ELEMENTS (extreme_variants));
  tcase_add_loop_test (tc, test_serial_equals_overlap, 0,
      G_N_ELEMENTS (serial_variants));
  tcase_add_loop_test (tc, test_packed_equals_planar, 0,
      G_N_ELEMENTS (packed_planar_variants));

  tc = co_test_new_tcase (s, "long-runs", leaks_teardown);
  tcase_add_loop_test (tc, test_many_frames, 0, G_N_ELEMENTS (many_variants));
  tcase_add_loop_test (tc, test_many_frames_threaded, 0,
      G_N_ELEMENTS (threaded_variants));

  return s;
}

int
main (int argc, char **argv)
{
  return co_test_video_main (argc, argv, "video-ops", video_ops_suite);
}
