/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The custom-kernel ABI's launch structs at the layer that makes them
 * (kernels/co-custom.c), for every format of the ABI, those the elements
 * do not take too, against GStreamer's own description of each format
 * (GstVideoFormatInfo, and its pack function where the description says
 * too little: the bits of RGB10A2_LE and BGR10A2_LE):
 *   /custom-abi/fields/FORMAT   abi_version, struct_size and the version 2
 *                               fields of every launch of a picture
 *   /custom-abi/EXAMPLE/FORMAT  the examples' CPU implementations
 *                               (examples/kernels) over bands with their
 *                               halo, against a reference made with
 *                               GStreamer's unpack and pack functions
 */
#include <math.h>
#include <string.h>
#include <glib.h>
#include <gst/video/video.h>

#include "co-custom.h"

int co_invert_cpu (const GstCudaOverlapVideoLaunch * a);
int co_sobel_cpu (const GstCudaOverlapVideoLaunch * a);
int co_colormatrix_cpu (const GstCudaOverlapVideoLaunch * a);

static const gchar *const names[] = { GST_CUDA_OVERLAP_KERNEL_FORMAT_NAMES };

#define W 33
#define H 17

/* A picture of @format and the custom chunk of its band [@y0, @y1) with
 * @halo rows around it (read in place, as the CPU backend reads a frame). */
typedef struct
{
  GstVideoInfo info;
  guint8 *in, *out;
  CoCustomParams custom;
  CoVideoParams p;
} Pic;

/* RGB10A2_LE, BGR10A2_LE: a 32-bit word a pixel */
static gboolean
is_word (const GstVideoFormatInfo * fi)
{
  return GST_VIDEO_FORMAT_INFO_IS_RGB (fi) && fi->depth[0] == 10;
}

/* YUY2, UYVY: chroma in the luma's plane, in pairs of pixels */
static gboolean
is_pair (const GstVideoFormatInfo * fi)
{
  return GST_VIDEO_FORMAT_INFO_IS_YUV (fi) && fi->plane[1] == fi->plane[0]
      && fi->w_sub[1] == 1;
}

static void
pic_init (Pic * pic, guint32 format, GRand * rand)
{
  const GstVideoFormatInfo *fi;
  gsize i;

  gst_video_info_set_format (&pic->info,
      gst_video_format_from_string (names[format - 1]), W, H);
  fi = pic->info.finfo;
  pic->in = g_malloc (pic->info.size);
  pic->out = g_malloc0 (pic->info.size);
  for (i = 0; i < pic->info.size; i++)
    pic->in[i] = (guint8) g_rand_int (rand);
  memset (&pic->custom, 0, sizeof (pic->custom));
  pic->custom.format = format;
  pic->custom.width = W;
  memset (&pic->p, 0, sizeof (pic->p));
  pic->p.op = CO_VIDEO_OP_CUSTOM;
  pic->p.custom = &pic->custom;
  pic->p.n_planes = GST_VIDEO_INFO_N_PLANES (&pic->info);
  for (i = 0; i < (gsize) pic->p.n_planes; i++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    CoPlaneBand *b = &pic->p.planes[i];
    gint bytes;

    gst_video_format_info_component (fi, i, comp);
    bytes = fi->depth[comp[0]] > 8 && !is_word (fi) ? 2 : 1;
    b->comps = fi->pixel_stride[comp[0]] / bytes;
    b->comp_bytes = bytes;
    b->width = GST_VIDEO_INFO_COMP_WIDTH (&pic->info, comp[0]);
    b->height = GST_VIDEO_INFO_COMP_HEIGHT (&pic->info, comp[0]);
    b->src_stride = b->dst_stride = GST_VIDEO_INFO_PLANE_STRIDE (&pic->info, i);
    pic->custom.x_shift[i] = fi->w_sub[comp[0]];
    pic->custom.y_shift[i] = fi->h_sub[comp[0]];
  }
}

static void
pic_band (Pic * pic, gint y0, gint y1, gint halo)
{
  gint i;

  pic->custom.halo = halo;
  pic->p.radius = halo;
  for (i = 0; i < pic->p.n_planes; i++) {
    CoPlaneBand *b = &pic->p.planes[i];
    const gint ys = pic->custom.y_shift[i];
    const gsize off = GST_VIDEO_INFO_PLANE_OFFSET (&pic->info, i);

    b->y0 = y0 >> ys;
    b->y1 = MIN ((y1 + (1 << ys) - 1) >> ys, b->height);
    b->src_y0 = MAX (b->y0 - halo, 0);
    b->src_y1 = MIN (b->y1 + halo, b->height);
    b->src = pic->in + off + (gsize) b->src_y0 * b->src_stride;
    b->dst = pic->out + off + (gsize) b->y0 * b->dst_stride;
  }
}

static void
pic_clear (Pic * pic)
{
  g_free (pic->in);
  g_free (pic->out);
}

/* ---- the fields ---------------------------------------------------------- */

/* Component @c's byte offset in a pixel of its plane, its bit and its bits,
 * from GStreamer: poffset counts samples of the depth's bytes (P010_10LE's
 * V: 1), in a 4:2:2 pair's 4 bytes (odd: the pixel after); the 10:10:10:2
 * words' bits from the pack function. */
static void
gst_comp (const GstVideoFormatInfo * fi, gint c, gint * off, gint * bit,
    gint * bits, gint * odd)
{
  const gboolean word = is_word (fi);
  const gint bytes = fi->depth[c] > 8 && !word ? 2 : 1;
  const gboolean pair = is_pair (fi) && c > 0;

  *off = fi->poffset[c] * bytes;
  *odd = 0;
  *bit = fi->shift[c];
  *bits = fi->depth[c];
  if (pair) {
    *odd = *off / 2;
    *off %= 2;
  }
  if (word) {
    guint16 argb[4] = { 0, 0, 0, 0 };
    guint32 w = 0;
    gpointer data[GST_VIDEO_MAX_PLANES] = { &w };
    gint stride[GST_VIDEO_MAX_PLANES] = { 4 };

    argb[c == 3 ? 0 : c + 1] = 0xffff;
    fi->pack_func (fi, GST_VIDEO_PACK_FLAG_NONE, argb, 0, data, stride,
        GST_VIDEO_CHROMA_SITE_UNKNOWN, 0, 1);
    *bit = g_bit_nth_lsf (w, -1);
    *bits = g_bit_nth_msf (w, -1) + 1 - *bit;
  }
}

static int
check_fields (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  const Pic *pic = user_data;
  const GstVideoFormatInfo *fi = pic->info.finfo;
  const GstCudaOverlapKernelPlaneFormat *pf = &a->plane_formats[a->plane];
  const guint n = GST_VIDEO_FORMAT_INFO_N_COMPONENTS (fi);
  const gboolean padding = GST_VIDEO_FORMAT_INFO_IS_RGB (fi) && n == 3 &&
      fi->pixel_stride[0] == 4;
  const gint packing = is_pair (fi) ? (fi->poffset[0] == 0 ?
      GST_CUDA_OVERLAP_KERNEL_PACKING_422_YUYV :
      GST_CUDA_OVERLAP_KERNEL_PACKING_422_UYVY) : is_word (fi) ?
      GST_CUDA_OVERLAP_KERNEL_PACKING_10_10_10_2 : 0;
  gint64 row_bytes = (gint64) GST_VIDEO_INFO_COMP_WIDTH (&pic->info,
      a->plane) * GST_VIDEO_INFO_COMP_PSTRIDE (&pic->info, a->plane);
  guint c;

  g_assert_cmpuint (a->abi_version, ==, a->format <= 12 ? 1 : 2);
  g_assert_cmpuint (a->struct_size, ==, sizeof (*a));
  g_assert_cmpuint (a->format_flags, ==, (fi->flags & 0xf) |
      (padding ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_PADDING : 0));
  g_assert_cmpint (a->n_comps, ==, n + padding);
  g_assert_cmpint (pf->sample_bytes * 8, >=, fi->depth[0] + fi->shift[0]);
  g_assert_cmpint (pf->bits, ==, fi->depth[0]);
  g_assert_cmpint (pf->packing, ==, packing);
  for (c = 0; c < 4; c++) {
    gint off, bit, bits, odd;

    if (c >= n + padding || fi->plane[c] != (guint) a->plane) {
      g_assert_cmpint (pf->comp_offset[c], ==, -1);
      g_assert_cmpint (pf->comp_bits[c], ==, 0);
      continue;
    }
    if (c == n) {               /* the padding byte: the one left */
      off = 6 - pf->comp_offset[0] - pf->comp_offset[1] - pf->comp_offset[2];
      bit = 0, bits = 8, odd = 0;
    } else {
      gst_comp (fi, c, &off, &bit, &bits, &odd);
    }
    g_assert_cmpint (pf->comp_offset[c], ==, off);
    g_assert_cmpint (pf->comp_shift[c], ==, bit);
    g_assert_cmpint (pf->comp_bits[c], ==, bits);
    /* 4:2:2 pairs: U in even pixels, V in odd ones (the same byte) */
    g_assert_cmpint (odd, ==, is_pair (fi) && c == 2);
  }
  /* the row of a plane of 4:2:2 pairs is whole pairs */
  if (is_pair (fi))
    row_bytes = 4 * ((W + 1) / 2);
  g_assert_cmpint ((gint64) a->planes[a->plane].width *
      a->planes[a->plane].pixel_bytes, ==, row_bytes);
  return 0;
}

static void
test_fields (gconstpointer data)
{
  const guint32 format = GPOINTER_TO_UINT (data);
  GRand *rand = g_rand_new_with_seed (format);
  Pic pic;

  pic_init (&pic, format, rand);
  pic_band (&pic, 0, H, 0);
  g_assert_cmpint (co_custom_video_each (&pic.p, 0, 1, check_fields, &pic),
      ==, 0);
  pic_band (&pic, 2, 8, 1);
  g_assert_cmpint (co_custom_video_each (&pic.p, 1, 3, check_fields, &pic),
      ==, 0);
  pic_clear (&pic);
  g_rand_free (rand);
}

/* ---- the examples -------------------------------------------------------- */

typedef struct
{
  const gchar *name;
  int (*func) (const GstCudaOverlapVideoLaunch * a);
  gint halo;
} Example;

static const gdouble swirl[12] = { -0.5, 1.25, 0.125, 2.0, -1.0, 0.0, 0.3333,
  0.3333, 0.3334, 20.0, -300.0, 127.5
};

static int
run_example (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  const Example *ex = user_data;

  return ex->func (a);
}

/* Whether the format unpacks to 8 bits a component (AYUV, ARGB), not 16 */
static gboolean
unpacks_8 (const GstVideoFormatInfo * fi)
{
  return fi->unpack_format == GST_VIDEO_FORMAT_AYUV ||
      fi->unpack_format == GST_VIDEO_FORMAT_ARGB;
}

/* Row @y of @buf unpacked, as 16-bit values (A, then R, G, B or Y, U, V;
 * value << (16 - depth)). */
static void
unpack_row (const GstVideoInfo * info, guint8 * buf, gint y, guint16 * row)
{
  gpointer data[GST_VIDEO_MAX_PLANES];
  guint8 row8[W * 4];
  gint i;

  for (i = 0; i < (gint) GST_VIDEO_INFO_N_PLANES (info); i++)
    data[i] = buf + GST_VIDEO_INFO_PLANE_OFFSET (info, i);
  info->finfo->unpack_func (info->finfo, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE,
      unpacks_8 (info->finfo) ? (gpointer) row8 : (gpointer) row, data,
      info->stride, 0, y, W);
  if (unpacks_8 (info->finfo))
    for (i = 0; i < W * 4; i++)
      row[i] = (guint16) (row8[i] << 8);
}

/* @row (as unpack_row () gives it) packed into row @y of @buf. */
static void
pack_row (const GstVideoInfo * info, const guint16 * row, guint8 * buf, gint y)
{
  gpointer data[GST_VIDEO_MAX_PLANES];
  guint8 row8[W * 4];
  gint i;

  for (i = 0; i < (gint) GST_VIDEO_INFO_N_PLANES (info); i++)
    data[i] = buf + GST_VIDEO_INFO_PLANE_OFFSET (info, i);
  for (i = 0; i < W * 4; i++)
    row8[i] = (guint8) (row[i] >> 8);
  info->finfo->pack_func (info->finfo, GST_VIDEO_PACK_FLAG_TRUNCATE_RANGE,
      unpacks_8 (info->finfo) ? (gpointer) row8 : (gpointer) row, 0, data,
      info->stride, GST_VIDEO_CHROMA_SITE_UNKNOWN, y, W);
}

/* Component @c (R, G, B / Y, U, V) of pixel @x, @y (clamped). */
static gint
val (guint16 * rows, const GstVideoInfo * info, gint c, gint x, gint y)
{
  x = CLAMP (x, 0, W - 1);
  y = CLAMP (y, 0, H - 1);
  return rows[((gsize) y * W + x) * 4 + 1 + c] >> (16 - info->finfo->depth[c]);
}

/* What @ex computes on component @c of pixel @x, @y (docs/custom-kernels.md,
 * Examples), or -1: unchanged. */
static gint
ref_pixel (const gchar * ex, guint16 * rows, const GstVideoInfo * info,
    gint c, gint x, gint y)
{
  const gint max = (1 << info->finfo->depth[c]) - 1;
  const gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);

  if (g_str_equal (ex, "invert"))
    return max - val (rows, info, c, x, y);
  if (g_str_equal (ex, "sobel")) {
    gint gx, gy;

    if (!rgb && c > 0)
      return -1;
    gx = val (rows, info, c, x + 1, y - 1) + 2 * val (rows, info, c, x + 1,
        y) + val (rows, info, c, x + 1, y + 1) - val (rows, info, c, x - 1,
        y - 1) - 2 * val (rows, info, c, x - 1, y) - val (rows, info, c,
        x - 1, y + 1);
    gy = val (rows, info, c, x - 1, y + 1) + 2 * val (rows, info, c, x,
        y + 1) + val (rows, info, c, x + 1, y + 1) - val (rows, info, c,
        x - 1, y - 1) - 2 * val (rows, info, c, x, y - 1) - val (rows, info,
        c, x + 1, y - 1);
    return MIN (max, ABS (gx) + ABS (gy));
  } else {
    gint64 v = 32768;
    gint j;

    for (j = 0; j < 3; j++)
      v += (gint64) llrint (swirl[3 * c + j] * 65536.0) *
          val (rows, info, j, x, y);
    v += max == 255 ? llrint (swirl[9 + c] * 65536.0) :
        llrint (swirl[9 + c] * 65536.0 * max / 255.0);
    return v < 0 ? 0 : (gint) MIN (v / 65536, max);
  }
}

/* The input's pixels with each computed component replaced, packed again
 * (an odd-width 4:2:2 row's padding luma sample: the input's). */
static guint8 *
reference (const gchar * ex, const Pic * pic)
{
  const GstVideoInfo *info = &pic->info;
  guint16 *rows = g_new (guint16, (gsize) W * H * 4);
  guint16 *row = g_new (guint16, (gsize) W * 4);
  guint8 *want = g_memdup2 (pic->in, info->size);
  gint x, y, c;

  for (y = 0; y < H; y++)
    unpack_row (info, pic->in, y, rows + (gsize) y * W * 4);
  for (y = 0; y < H; y++) {
    memcpy (row, rows + (gsize) y * W * 4, (gsize) W * 8);
    for (x = 0; x < W; x++)
      for (c = 0; c < 3; c++) {
        gint v = ref_pixel (ex, rows, info, c, x, y);

        if (v >= 0)
          row[x * 4 + 1 + c] = (guint16) (v << (16 - info->finfo->depth[c]));
      }
    pack_row (info, row, want, y);
  }
  g_free (rows);
  g_free (row);
  return want;
}

static const Example examples[] = {
  {"invert", co_invert_cpu, 0},
  {"sobel", co_sobel_cpu, 1},
  {"colormatrix", co_colormatrix_cpu, 0},
};

typedef struct
{
  const Example *ex;
  guint32 format;
} ExampleCase;

/* Every output byte of each plane's rows against the reference. */
static void
test_example (gconstpointer data)
{
  const ExampleCase *k = data;
  GRand *rand = g_rand_new_with_seed (k->format * 7 + 1);
  const gint bands[][2] = { {0, 6}, {6, 12}, {12, H} };
  guint8 *want;
  Pic pic;
  gint i, b, y;

  pic_init (&pic, k->format, rand);
  pic.custom.n_params = 12;
  memcpy (pic.custom.params, swirl, sizeof (swirl));
  for (b = 0; b < 3; b++) {
    pic_band (&pic, bands[b][0], bands[b][1], k->ex->halo);
    g_assert_cmpint (co_custom_video_each (&pic.p, b, 3, run_example,
            (gpointer) k->ex), ==, 0);
  }
  want = reference (k->ex->name, &pic);
  for (i = 0; i < pic.p.n_planes; i++) {
    const CoPlaneBand *pb = &pic.p.planes[i];
    const gsize n = is_pair (pic.info.finfo) ? 4 * ((W + 1) / 2) :
        (gsize) pb->width * pb->comps * pb->comp_bytes;

    for (y = 0; y < pb->height; y++) {
      const gsize o = GST_VIDEO_INFO_PLANE_OFFSET (&pic.info, i) +
          (gsize) y * pb->dst_stride;

      if (memcmp (pic.out + o, want + o, n) != 0) {
        gsize x;

        for (x = 0; pic.out[o + x] == want[o + x]; x++);
        g_error ("%s %s: plane %d row %d byte %" G_GSIZE_FORMAT " is %u, "
            "the reference says %u", k->ex->name, names[k->format - 1], i, y,
            x, pic.out[o + x], want[o + x]);
      }
    }
  }
  g_free (want);
  pic_clear (&pic);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  guint32 f;
  guint e;

  g_test_init (&argc, &argv, NULL);
  for (f = 1; f <= GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST; f++) {
    gchar *path = g_strdup_printf ("/custom-abi/fields/%s", names[f - 1]);

    g_test_add_data_func (path, GUINT_TO_POINTER (f), test_fields);
    g_free (path);
  }
  /* the examples on the formats the elements do not take yet */
  for (e = 0; e < G_N_ELEMENTS (examples); e++)
    for (f = GST_CUDA_OVERLAP_KERNEL_FORMAT_P010_10LE;
        f <= GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST; f++) {
      ExampleCase *k = g_new (ExampleCase, 1);
      gchar *path;

      if (g_str_equal (examples[e].name, "colormatrix") &&
          f < GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB10A2_LE)
        continue;
      k->ex = &examples[e];
      k->format = f;
      path = g_strdup_printf ("/custom-abi/%s/%s", examples[e].name,
          names[f - 1]);
      g_test_add_data_func_full (path, k, test_example, g_free);
      g_free (path);
    }
  return g_test_run ();
}
