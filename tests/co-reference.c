/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-reference: the tests' independent, naive reference.  See co-reference.h.
 * Nothing here comes from kernels/ or plugin/.
 */

#include <math.h>
#include <string.h>

#include "co-reference.h"

/* ------------------------------------------------------------------------ */
/* The hand-written format table.                                            */
/*                                                                           */
/* Packed 32-bit RGB: four bytes per pixel, the colour bytes are the three   */
/* that are not A or x.  Where A/x is first (ARGB, ABGR, xRGB, xBGR) the     */
/* colours are bytes 1..3, else bytes 0..2.  RGB, BGR: three bytes, all      */
/* colour.  NV12 (NV21): Y plane, then one plane of interleaved U,V (V,U),   */
/* 2 bytes per chroma pixel, half width and height.  I420 (YV12): Y, U, V    */
/* (Y, V, U) planes, chroma half width and height; Y42B: the same, chroma    */
/* half width only; Y444: three full planes; Y444_16LE: with 16-bit samples. */
/* P010_10LE, P016_LE: NV12's planes with 16-bit samples, P010's values the  */
/* 10 high bits; I420_10LE: I420's planes, 16-bit samples, values the 10     */
/* low bits.                                                                 */
/* ------------------------------------------------------------------------ */

#define PACKED_FIRST3(fmt) \
  { fmt, 1, 1, 255, { 4 }, { 0 }, { 0 }, { 3 }, { { 0, 1, 2 } }, { TRUE } }
#define PACKED_LAST3(fmt) \
  { fmt, 1, 1, 255, { 4 }, { 0 }, { 0 }, { 3 }, { { 1, 2, 3 } }, { TRUE } }
#define PACKED_24(fmt) \
  { fmt, 1, 1, 255, { 3 }, { 0 }, { 0 }, { 3 }, { { 0, 1, 2 } }, { TRUE } }
/* three planes of one sample per pixel, chroma subsampled by xs, ys */
#define PLANAR_YUV(fmt, bps, xs, ys) \
  { fmt, 3, bps, bps == 2 ? 65535 : 255, { bps, bps, bps }, { 0, xs, xs }, \
      { 0, ys, ys }, { 1, 1, 1 }, { { 0 }, { 0 }, { 0 } }, \
      { TRUE, FALSE, FALSE } }
#define SEMI_PLANAR_420(fmt) \
  { fmt, 2, 1, 255, { 1, 2 }, { 0, 1 }, { 0, 1 }, { 1, 2 }, \
      { { 0 }, { 0, 1 } }, { TRUE, FALSE } }
/* 16-bit samples, values of max at shift */
#define SEMI_PLANAR_420_16(fmt, max, shift) \
  { fmt, 2, 2, max, { 2, 4 }, { 0, 1 }, { 0, 1 }, { 1, 2 }, \
      { { 0 }, { 0, 2 } }, { TRUE, FALSE }, shift }
#define PLANAR_420_16(fmt, max, shift) \
  { fmt, 3, 2, max, { 2, 2, 2 }, { 0, 1, 1 }, { 0, 1, 1 }, { 1, 1, 1 }, \
      { { 0 }, { 0 }, { 0 } }, { TRUE, FALSE, FALSE }, shift }
/* pairs of pixels, Y0 at byte y, U at u, V at v (Y1 at y + 2) */
#define PACKED_422(fmt, y, u, v) \
  { fmt, 1, 1, 255, { 4 }, { 0 }, { 0 }, { 3 }, { { y, u, v } }, { TRUE }, \
      0, CO_REF_PACKED_422 }
/* a 32-bit LE word per pixel: colours at bits 0, 10, 20 */
#define PACKED_10(fmt) \
  { fmt, 1, 1, 1023, { 4 }, { 0 }, { 0 }, { 3 }, { { 0, 10, 20 } }, \
      { TRUE }, 0, CO_REF_PACKED_10 }

static const CoRefFormat ref_formats[] = {
  {GST_VIDEO_FORMAT_GRAY8, 1, 1, 255, {1}, {0}, {0}, {1}, {{0}}, {TRUE}},
  {GST_VIDEO_FORMAT_GRAY16_LE, 1, 2, 65535, {2}, {0}, {0}, {1}, {{0}},
      {TRUE}},
  PACKED_FIRST3 (GST_VIDEO_FORMAT_RGBA),
  PACKED_FIRST3 (GST_VIDEO_FORMAT_BGRA),
  PACKED_LAST3 (GST_VIDEO_FORMAT_ARGB),
  PACKED_LAST3 (GST_VIDEO_FORMAT_ABGR),
  PACKED_FIRST3 (GST_VIDEO_FORMAT_RGBx),
  PACKED_FIRST3 (GST_VIDEO_FORMAT_BGRx),
  PACKED_LAST3 (GST_VIDEO_FORMAT_xRGB),
  PACKED_LAST3 (GST_VIDEO_FORMAT_xBGR),
  SEMI_PLANAR_420 (GST_VIDEO_FORMAT_NV12),
  PLANAR_YUV (GST_VIDEO_FORMAT_I420, 1, 1, 1),
  PACKED_24 (GST_VIDEO_FORMAT_RGB),
  PACKED_24 (GST_VIDEO_FORMAT_BGR),
  SEMI_PLANAR_420 (GST_VIDEO_FORMAT_NV21),
  PLANAR_YUV (GST_VIDEO_FORMAT_YV12, 1, 1, 1),
  PLANAR_YUV (GST_VIDEO_FORMAT_Y42B, 1, 1, 0),
  PLANAR_YUV (GST_VIDEO_FORMAT_Y444, 1, 0, 0),
  PLANAR_YUV (GST_VIDEO_FORMAT_Y444_16LE, 2, 0, 0),
  SEMI_PLANAR_420_16 (GST_VIDEO_FORMAT_P010_10LE, 1023, 6),
  SEMI_PLANAR_420_16 (GST_VIDEO_FORMAT_P016_LE, 65535, 0),
  PLANAR_420_16 (GST_VIDEO_FORMAT_I420_10LE, 1023, 0),
  PACKED_422 (GST_VIDEO_FORMAT_YUY2, 0, 1, 3),
  PACKED_422 (GST_VIDEO_FORMAT_UYVY, 1, 0, 2),
  PACKED_10 (GST_VIDEO_FORMAT_RGB10A2_LE),
  PACKED_10 (GST_VIDEO_FORMAT_BGR10A2_LE),
};

/* The 12 formats of the custom kernels' ABI version 1 first (the tests'
 * full tables), then the others. */
static const GstVideoFormat ref_format_list[] = {
  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_GRAY16_LE,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB,
  GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_Y444_16LE,
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P016_LE,
  GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_RGB10A2_LE,
  GST_VIDEO_FORMAT_BGR10A2_LE, GST_VIDEO_FORMAT_UNKNOWN
};

const gchar *
co_ref_op_nick (CoRefOp op)
{
  switch (op) {
    case CO_REF_INVERT:
      return "invert";
    case CO_REF_GAMMA:
      return "gamma";
    case CO_REF_BOX_BLUR:
      return "box-blur";
    case CO_REF_NONE:
      return "none";
  }
  return "?";
}

const CoRefFormat *
co_ref_format (GstVideoFormat format)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ref_formats); i++)
    if (ref_formats[i].format == format)
      return &ref_formats[i];
  return NULL;
}

gboolean
co_ref_format_supported (GstVideoFormat format)
{
  return co_ref_format (format) != NULL;
}

const GstVideoFormat *
co_ref_formats (void)
{
  return ref_format_list;
}

void
co_ref_plane_size (const CoRefFormat * f, guint plane, guint width,
    guint height, guint * pw, guint * ph)
{
  *pw = f->x_shift[plane] ? (width + 1) / 2 : width;
  *ph = f->y_shift[plane] ? (height + 1) / 2 : height;
}

guint
co_ref_plane_row_bytes (const CoRefFormat * f, guint plane, guint width)
{
  guint pw, ph;

  if (f->packing == CO_REF_PACKED_422)
    return (width + 1) / 2 * 4;
  co_ref_plane_size (f, plane, width, 1, &pw, &ph);
  return pw * f->pstride[plane];
}

/* ------------------------------------------------------------------------ */
/* Samples                                                                   */
/* ------------------------------------------------------------------------ */

static inline guint
get_sample (const guint8 * p, guint bps)
{
  if (bps == 2)
    return (guint) p[0] | ((guint) p[1] << 8);
  return p[0];
}

static inline void
put_sample (guint8 * p, guint bps, guint v)
{
  if (bps == 2) {
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
  } else {
    p[0] = (guint8) v;
  }
}

static inline gint
clampi (gint v, gint lo, gint hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* ------------------------------------------------------------------------ */
/* Gamma table                                                               */
/* ------------------------------------------------------------------------ */

void
co_ref_gamma_table (gdouble gamma, guint max, guint16 * table)
{
  guint i;
  gdouble dmax = (gdouble) max;

  for (i = 0; i <= max; i++) {
    gdouble v = floor (dmax * pow ((gdouble) i / dmax, 1.0 / gamma) + 0.5);
    if (v < 0)
      v = 0;
    if (v > dmax)
      v = dmax;
    table[i] = (guint16) v;
  }
}

/* ------------------------------------------------------------------------ */
/* Box blur of one component of one plane                                    */
/* ------------------------------------------------------------------------ */

void
co_ref_blur_plane_naive (const guint8 * src, gint sstride, guint8 * dst,
    gint dstride, guint w, guint h, guint pstride, guint offset, guint bps,
    guint radius)
{
  gint x, y, dx, dy, r = (gint) radius;
  guint64 n = (guint64) (2 * r + 1) * (guint64) (2 * r + 1);

  for (y = 0; y < (gint) h; y++) {
    for (x = 0; x < (gint) w; x++) {
      guint64 sum = 0;

      for (dy = -r; dy <= r; dy++) {
        gint sy = clampi (y + dy, 0, (gint) h - 1);
        for (dx = -r; dx <= r; dx++) {
          gint sx = clampi (x + dx, 0, (gint) w - 1);
          sum += get_sample (src + (gssize) sy * sstride +
              (gssize) sx * pstride + offset, bps);
        }
      }
      put_sample (dst + (gssize) y * dstride + (gssize) x * pstride + offset,
          bps, (guint) ((sum + n / 2) / n));
    }
  }
}

void
co_ref_blur_plane_separable (const guint8 * src, gint sstride,
    guint8 * dst, gint dstride, guint w, guint h, guint pstride,
    guint offset, guint bps, guint radius)
{
  gint x, y, d, r = (gint) radius;
  guint64 n = (guint64) (2 * r + 1) * (guint64) (2 * r + 1);
  /* rowsum[y][x] = sum over dx of sample (clamp (x+dx), y) */
  guint64 *rowsum = g_new (guint64, (gsize) w * h);

  for (y = 0; y < (gint) h; y++) {
    const guint8 *row = src + (gssize) y * sstride + offset;
    for (x = 0; x < (gint) w; x++) {
      guint64 s = 0;
      for (d = -r; d <= r; d++)
        s += get_sample (row + (gssize) clampi (x + d, 0,
                (gint) w - 1) * pstride, bps);
      rowsum[(gsize) y * w + x] = s;
    }
  }
  for (y = 0; y < (gint) h; y++) {
    for (x = 0; x < (gint) w; x++) {
      guint64 s = 0;
      for (d = -r; d <= r; d++)
        s += rowsum[(gsize) clampi (y + d, 0, (gint) h - 1) * w + x];
      put_sample (dst + (gssize) y * dstride + (gssize) x * pstride + offset,
          bps, (guint) ((s + n / 2) / n));
    }
  }
  g_free (rowsum);
}

/* ------------------------------------------------------------------------ */
/* The packed formats                                                        */
/* ------------------------------------------------------------------------ */

/* YUY2, UYVY: luma sample x at byte 2x + Y0's offset (a pixel stride of
 * 2), U and V of pair k at byte 4k + their offsets (a stride of 4): each
 * a plane of its own to the loops below.  An odd width's padding luma
 * sample (byte 2w + Y0's offset) is none of them: left as copied. */
static void
apply_packed_422 (CoRefOp op, const guint16 * table, guint radius,
    const CoRefFormat * f, const GstVideoFrame * in, GstVideoFrame * out)
{
  const guint8 *sp = GST_VIDEO_FRAME_PLANE_DATA (in, 0);
  guint8 *dp = GST_VIDEO_FRAME_PLANE_DATA (out, 0);
  gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (in, 0);
  gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (out, 0);
  guint w = GST_VIDEO_FRAME_WIDTH (in), h = GST_VIDEO_FRAME_HEIGHT (in);
  guint g, x, y;

  for (g = 0; g < 3; g++) {
    guint n = g == 0 ? w : (w + 1) / 2, ps = g == 0 ? 2 : 4;
    guint off = f->colour_offset[0][g];
    guint64 cost = (guint64) n * h * (2 * radius + 1) * (2 * radius + 1);

    if (op == CO_REF_BOX_BLUR && cost <= CO_REF_NAIVE_BLUR_BUDGET)
      co_ref_blur_plane_naive (sp, ss, dp, ds, n, h, ps, off, 1, radius);
    else if (op == CO_REF_BOX_BLUR)
      co_ref_blur_plane_separable (sp, ss, dp, ds, n, h, ps, off, 1, radius);
    if (op != CO_REF_INVERT && !(op == CO_REF_GAMMA && g == 0))
      continue;
    for (y = 0; y < h; y++)
      for (x = 0; x < n; x++) {
        gsize o = (gsize) x * ps + off;
        guint v = sp[(gssize) y * ss + o];

        dp[(gssize) y * ds + o] = op == CO_REF_INVERT ? 255 - v : table[v];
      }
  }
}

static guint32
get_word (const guint8 * p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) |
      ((guint32) p[3] << 24);
}

static void
put_word (guint8 * p, guint32 v)
{
  p[0] = v & 0xff;
  p[1] = (v >> 8) & 0xff;
  p[2] = (v >> 16) & 0xff;
  p[3] = v >> 24;
}

/* The 10-bit colour at bit @shift of every pixel of the packed plane at
 * @base: out of it into the w x h samples @tmp, or (@out) from @tmp into
 * it, the word's other bits kept. */
static void
field_plane (guint8 * base, gint stride, guint w, guint h, guint shift,
    guint16 * tmp, gboolean out)
{
  guint x, y;

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++) {
      guint8 *p = base + (gssize) y * stride + (gsize) x * 4;
      guint32 v = get_word (p);

      if (!out) {
        tmp[(gsize) y * w + x] = (v >> shift) & 0x3ff;
        continue;
      }
      v = (v & ~(0x3ffu << shift)) | ((guint32) tmp[(gsize) y * w + x]
          << shift);
      put_word (p, v);
    }
}

/* RGB10A2_LE, BGR10A2_LE: each 10-bit colour taken out into a plane of its
 * own, computed there (invert 1023 - c, gamma table[c], box-blur on
 * 16-bit samples: the same sums), put back; alpha stays as copied. */
static void
apply_packed_10 (CoRefOp op, const guint16 * table, guint radius,
    const CoRefFormat * f, const GstVideoFrame * in, GstVideoFrame * out)
{
  guint w = GST_VIDEO_FRAME_WIDTH (in), h = GST_VIDEO_FRAME_HEIGHT (in);
  guint16 *a = g_new (guint16, (gsize) w * h);
  guint16 *b = g_new (guint16, (gsize) w * h);
  guint c, i;

  for (c = 0; c < 3; c++) {
    guint shift = f->colour_offset[0][c];
    guint64 cost = (guint64) w * h * (2 * radius + 1) * (2 * radius + 1);

    field_plane (GST_VIDEO_FRAME_PLANE_DATA (in, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (in, 0), w, h, shift, a, FALSE);
    for (i = 0; i < w * h; i++)
      b[i] = op == CO_REF_INVERT ? 1023 - a[i] : op == CO_REF_GAMMA ?
          table[a[i]] : a[i];
    /* 16-bit samples in host order: the blur reads them little-endian */
    for (i = 0; i < w * h && op == CO_REF_BOX_BLUR; i++)
      a[i] = GUINT16_TO_LE (a[i]);
    if (op == CO_REF_BOX_BLUR && cost <= CO_REF_NAIVE_BLUR_BUDGET)
      co_ref_blur_plane_naive ((guint8 *) a, 2 * w, (guint8 *) b, 2 * w, w,
          h, 2, 0, 2, radius);
    else if (op == CO_REF_BOX_BLUR)
      co_ref_blur_plane_separable ((guint8 *) a, 2 * w, (guint8 *) b, 2 * w,
          w, h, 2, 0, 2, radius);
    for (i = 0; i < w * h && op == CO_REF_BOX_BLUR; i++)
      b[i] = GUINT16_FROM_LE (b[i]);
    field_plane (GST_VIDEO_FRAME_PLANE_DATA (out, 0),
        GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), w, h, shift, b, TRUE);
  }
  g_free (a);
  g_free (b);
}

/* ------------------------------------------------------------------------ */
/* The operations                                                            */
/* ------------------------------------------------------------------------ */

/* Whether the format's samples hold bits besides their value. */
static gboolean
has_padding_bits (const CoRefFormat * f)
{
  return f->max != (1u << (8 * f->bytes_per_sample)) - 1;
}

/* The value of the sample at @p, and a value put back at its place with
 * the padding bits 0. */
static guint
get_value (const CoRefFormat * f, const guint8 * p)
{
  return (get_sample (p, f->bytes_per_sample) >> f->shift) & f->max;
}

static void
put_value (const CoRefFormat * f, guint8 * p, guint v)
{
  put_sample (p, f->bytes_per_sample, v << f->shift);
}

/* Box blur of the colour components of a plane of values: each sample
 * replaced by its value (in a copy), blurred, put back at its place. */
static void
blur_plane_values (const CoRefFormat * f, guint p, const guint8 * sp,
    gint ss, guint8 * dp, gint ds, guint pw, guint ph, guint radius)
{
  guint ps = f->pstride[p], rb = pw * ps, x, y, c;
  guint8 *vals = g_malloc ((gsize) rb * ph);
  guint64 cost = (guint64) pw * ph * (2 * radius + 1) * (2 * radius + 1);

  for (y = 0; y < ph; y++)
    for (x = 0; x < pw; x++)
      for (c = 0; c < f->n_colour[p]; c++) {
        gsize o = f->colour_offset[p][c] + (gsize) x * ps;
        put_sample (vals + (gsize) y * rb + o, f->bytes_per_sample,
            get_value (f, sp + (gssize) y * ss + o));
      }
  for (c = 0; c < f->n_colour[p]; c++) {
    if (cost <= CO_REF_NAIVE_BLUR_BUDGET)
      co_ref_blur_plane_naive (vals, rb, dp, ds, pw, ph, ps,
          f->colour_offset[p][c], f->bytes_per_sample, radius);
    else
      co_ref_blur_plane_separable (vals, rb, dp, ds, pw, ph, ps,
          f->colour_offset[p][c], f->bytes_per_sample, radius);
  }
  /* the means are values: to their place */
  for (y = 0; y < ph; y++)
    for (x = 0; x < pw; x++)
      for (c = 0; c < f->n_colour[p]; c++) {
        guint8 *d = dp + (gssize) y * ds + f->colour_offset[p][c] +
            (gsize) x * ps;
        put_value (f, d, get_sample (d, f->bytes_per_sample));
      }
  g_free (vals);
}

static gboolean
is_colour_byte (const CoRefFormat * f, guint plane, guint byte_in_pixel,
    guint * comp_index)
{
  guint c;

  for (c = 0; c < f->n_colour[plane]; c++) {
    guint off = f->colour_offset[plane][c];
    if (byte_in_pixel >= off && byte_in_pixel < off + f->bytes_per_sample) {
      if (comp_index)
        *comp_index = c;
      return TRUE;
    }
  }
  return FALSE;
}

void
co_ref_apply (CoRefOp op, gdouble gamma, guint radius,
    const GstVideoFrame * in, GstVideoFrame * out)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (in);
  const CoRefFormat *f = co_ref_format (format);
  guint width = GST_VIDEO_FRAME_WIDTH (in);
  guint height = GST_VIDEO_FRAME_HEIGHT (in);
  guint16 *table = NULL;
  guint p;

  g_return_if_fail (f != NULL);
  g_return_if_fail (GST_VIDEO_FRAME_FORMAT (out) == format);
  g_return_if_fail ((guint) GST_VIDEO_FRAME_WIDTH (out) == width);
  g_return_if_fail ((guint) GST_VIDEO_FRAME_HEIGHT (out) == height);

  if (op == CO_REF_GAMMA) {
    table = g_new (guint16, f->max + 1);
    co_ref_gamma_table (gamma, f->max, table);
  }

  for (p = 0; p < f->n_planes; p++) {
    const guint8 *sp = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    guint8 *dp = GST_VIDEO_FRAME_PLANE_DATA (out, p);
    gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (in, p);
    gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (out, p);
    guint pw, ph, x, y, c, bps = f->bytes_per_sample, ps = f->pstride[p];
    guint row_bytes = co_ref_plane_row_bytes (f, p, width);

    co_ref_plane_size (f, p, width, height, &pw, &ph);

    /* First everything as it is: alpha, padding and whatever the
     * operation does not touch. */
    for (y = 0; y < ph; y++)
      memcpy (dp + (gssize) y * ds, sp + (gssize) y * ss, row_bytes);

    if (f->packing == CO_REF_PACKED_422) {
      apply_packed_422 (op, table, radius, f, in, out);
      continue;
    }
    if (f->packing == CO_REF_PACKED_10) {
      apply_packed_10 (op, table, radius, f, in, out);
      continue;
    }
    switch (op) {
      case CO_REF_INVERT:
        for (y = 0; y < ph; y++)
          for (x = 0; x < pw; x++)
            for (c = 0; c < f->n_colour[p]; c++) {
              gsize o = f->colour_offset[p][c] + (gsize) x * ps;
              guint v = get_value (f, sp + (gssize) y * ss + o);
              put_value (f, dp + (gssize) y * ds + o, f->max - v);
            }
        break;
      case CO_REF_GAMMA:
        /* a plane without gamma: its values, the padding bits 0 */
        if (!f->gamma_plane[p] && !has_padding_bits (f))
          break;
        for (y = 0; y < ph; y++)
          for (x = 0; x < pw; x++)
            for (c = 0; c < f->n_colour[p]; c++) {
              gsize o = f->colour_offset[p][c] + (gsize) x * ps;
              guint v = get_value (f, sp + (gssize) y * ss + o);
              put_value (f, dp + (gssize) y * ds + o,
                  f->gamma_plane[p] ? table[v] : v);
            }
        break;
      case CO_REF_BOX_BLUR:{
        guint64 cost = (guint64) pw * ph * (2 * radius + 1) * (2 * radius + 1);
        if (has_padding_bits (f)) {
          blur_plane_values (f, p, sp, ss, dp, ds, pw, ph, radius);
          break;
        }
        for (c = 0; c < f->n_colour[p]; c++) {
          if (cost <= CO_REF_NAIVE_BLUR_BUDGET)
            co_ref_blur_plane_naive (sp, ss, dp, ds, pw, ph, ps,
                f->colour_offset[p][c], bps, radius);
          else
            co_ref_blur_plane_separable (sp, ss, dp, ds, pw, ph, ps,
                f->colour_offset[p][c], bps, radius);
        }
        break;
      }
      case CO_REF_NONE:
        break;
    }
  }
  g_free (table);
}

/* ------------------------------------------------------------------------ */
/* Comparison                                                                */
/* ------------------------------------------------------------------------ */

gboolean
co_ref_compare (const GstVideoFrame * expected, const GstVideoFrame * got,
    gchar ** msg)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (expected);
  const CoRefFormat *f = co_ref_format (format);
  guint width = GST_VIDEO_FRAME_WIDTH (expected);
  guint height = GST_VIDEO_FRAME_HEIGHT (expected);
  guint64 n_diff = 0;
  gboolean first = TRUE;
  GString *s = g_string_new (NULL);
  guint p;

  if (msg)
    *msg = NULL;
  g_return_val_if_fail (f != NULL, FALSE);

  if (GST_VIDEO_FRAME_FORMAT (got) != format
      || (guint) GST_VIDEO_FRAME_WIDTH (got) != width
      || (guint) GST_VIDEO_FRAME_HEIGHT (got) != height) {
    if (msg)
      *msg = g_strdup_printf ("geometry differs: expected %s %ux%u, got %s "
          "%ux%u", gst_video_format_to_string (format), width, height,
          gst_video_format_to_string (GST_VIDEO_FRAME_FORMAT (got)),
          GST_VIDEO_FRAME_WIDTH (got), GST_VIDEO_FRAME_HEIGHT (got));
    g_string_free (s, TRUE);
    return FALSE;
  }

  for (p = 0; p < f->n_planes; p++) {
    const guint8 *ep = GST_VIDEO_FRAME_PLANE_DATA (expected, p);
    const guint8 *gp = GST_VIDEO_FRAME_PLANE_DATA (got, p);
    gint es = GST_VIDEO_FRAME_PLANE_STRIDE (expected, p);
    gint gs = GST_VIDEO_FRAME_PLANE_STRIDE (got, p);
    guint pw, ph, y, b;
    guint row_bytes = co_ref_plane_row_bytes (f, p, width);

    co_ref_plane_size (f, p, width, height, &pw, &ph);
    for (y = 0; y < ph; y++) {
      const guint8 *er = ep + (gssize) y * es;
      const guint8 *gr = gp + (gssize) y * gs;
      if (memcmp (er, gr, row_bytes) == 0)
        continue;
      for (b = 0; b < row_bytes; b++) {
        if (er[b] == gr[b])
          continue;
        n_diff++;
        if (first) {
          guint ci = 0;
          guint bip = b % f->pstride[p];
          gboolean colour = is_colour_byte (f, p, bip, &ci);
          first = FALSE;
          if (f->packing != CO_REF_PACKED_NONE) {
            g_string_append_printf (s, "first difference: row %u, byte %u "
                "(byte %u of %s %u): expected 0x%02x, got 0x%02x", y, b, bip,
                f->packing == CO_REF_PACKED_422 ? "pair" : "pixel", b / 4,
                er[b], gr[b]);
            continue;
          }
          g_string_append_printf (s, "first difference: plane %u (%ux%u), "
              "row %u, byte %u (pixel x=%u, byte %u of the pixel: %s%u): "
              "expected %u (0x%02x), got %u (0x%02x)", p, pw, ph, y, b,
              b / f->pstride[p], bip, colour ? "colour component " :
              "alpha/padding byte ", colour ? ci : bip, er[b], er[b], gr[b],
              gr[b]);
          if (f->bytes_per_sample == 2) {
            guint sb = b & ~1u;
            g_string_append_printf (s, " [16-bit sample: expected %u, got %u]",
                get_sample (er + sb, 2), get_sample (gr + sb, 2));
          }
        }
      }
    }
  }

  if (n_diff == 0) {
    g_string_free (s, TRUE);
    return TRUE;
  }
  g_string_append_printf (s, "; %" G_GUINT64_FORMAT " byte(s) differ", n_diff);
  if (msg)
    *msg = g_string_free (s, FALSE);
  else
    g_string_free (s, TRUE);
  return FALSE;
}
