/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-reference: an independent, naive reference of cudavideofilter's
 * operations, used by the tests only.
 *
 * It shares no code with the plugin (nothing from kernels/ or plugin/ is
 * included): it is written from the specification with
 * direct loops over a hand-written per-format table.  The table is checked
 * against GstVideoFormatInfo by the tests, so a mistake in either shows up.
 *
 *   invert    each colour component c -> max - c (luma and chroma alike)
 *   gamma     colour components through table[in] =
 *             floor (max * pow (in / max, 1 / gamma) + 0.5), built in double;
 *             YUV: luma only
 *   box-blur  each colour component = (S + n / 2) / n, n = (2r+1)^2, S the
 *             sum over the (2r+1)x(2r+1) window around it, coordinates
 *             clamped to its plane (borders replicated); every plane in its
 *             own geometry, NV12's (NV21's) U and V separately
 *
 * Alpha and padding ('x') bytes are copied unchanged.
 *
 * Samples with padding bits (P010_10LE: 10 bits at bit 6 of 16; I420_10LE:
 * 10 bits at bit 0): every operation above works on the value
 * c = (sample >> shift) & max, max = 1023, and writes c' << shift, the
 * padding bits 0 (invert: (max - c) << shift; gamma: table[c] << shift,
 * the other planes c << shift; box-blur on the values); none copies.
 * Packed formats:
 *   YUY2, UYVY      pairs of pixels Y0 U Y1 V (U Y0 V Y1): invert 255 - c
 *                   on Y, U and V; gamma on Y only; box-blur with luma on
 *                   its W-sample grid and U, V each on its ceil (W / 2)-
 *                   sample grid (what Y42B gives); an odd width's last pair
 *                   ends with a padding luma sample, copied unchanged
 *   RGB10A2_LE,     a 32-bit little-endian word per pixel, three 10-bit
 *   BGR10A2_LE      colours at bits 0, 10, 20 (max 1023), a 2-bit alpha at
 *                   bit 30, copied unchanged
 */
#ifndef __CO_REFERENCE_H__
#define __CO_REFERENCE_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS typedef enum
{
  CO_REF_INVERT = 0,
  CO_REF_GAMMA = 1,
  CO_REF_BOX_BLUR = 2,
  CO_REF_NONE = 3,              /* the input itself */
} CoRefOp;

/* The element's enum nick of @op ("invert", "gamma", "box-blur",
 * "none"). */
const gchar *co_ref_op_nick (CoRefOp op);

/* The formats the reference knows (the element's formats). */
gboolean co_ref_format_supported (GstVideoFormat format);
/* GST_VIDEO_FORMAT_UNKNOWN-terminated list of them. */
const GstVideoFormat *co_ref_formats (void);

/* CoRefFormat.packing */
typedef enum
{
  CO_REF_PACKED_NONE = 0,
  CO_REF_PACKED_422 = 1,        /* YUY2, UYVY */
  CO_REF_PACKED_10 = 2,         /* RGB10A2_LE, BGR10A2_LE */
} CoRefPacking;

/* What the reference believes about a format, for the self-checks. */
typedef struct
{
  GstVideoFormat format;
  guint n_planes;
  guint bytes_per_sample;       /* 1, or 2 (GRAY16_LE, Y444_16LE, P010_10LE,
                                 * P016_LE, I420_10LE: little endian) */
  guint max;                    /* 255, 65535, or 1023 (10-bit values) */
  /* per plane */
  guint pstride[3];             /* bytes from one pixel to the next */
  guint x_shift[3];             /* 0: full width, 1: (w+1)/2 */
  guint y_shift[3];             /* 0: full height, 1: (h+1)/2 */
  guint n_colour[3];            /* colour components in the plane */
  guint colour_offset[3][3];    /* their byte offsets inside a pixel */
  gboolean gamma_plane[3];      /* gamma applies to this plane's colours */
  guint shift;                  /* a value's place in its sample: value =
                                 * (sample >> shift) & max */
  /* Packed formats: one plane of 4-byte units (pstride 4).  422: a unit is
   * a pair of pixels, colour_offset[0] the bytes of Y0, U and V in it (Y1
   * two bytes after Y0); 10: a unit is a pixel, a 32-bit little-endian
   * word, colour_offset[0] the bit positions of its three 10-bit colours
   * (alpha: bits 30 and 31).  x_shift 0: the packing holds the chroma's
   * subsampling. */
  CoRefPacking packing;
} CoRefFormat;

const CoRefFormat *co_ref_format (GstVideoFormat format);

/* Width and height in pixels of plane @plane of a @width x @height picture. */
void co_ref_plane_size (const CoRefFormat * f, guint plane, guint width,
    guint height, guint * pw, guint * ph);
/* Visible bytes of one row of plane @plane. */
guint co_ref_plane_row_bytes (const CoRefFormat * f, guint plane, guint width);

/* Computes the expected output of @op for the mapped frame @in into the
 * mapped frame @out (same format, width and height; strides may differ).
 * @gamma is used by CO_REF_GAMMA, @radius by CO_REF_BOX_BLUR.  Only visible
 * bytes of @out are written. */
void co_ref_apply (CoRefOp op, gdouble gamma, guint radius,
    const GstVideoFrame * in, GstVideoFrame * out);

/* Box blur of one plane, both ways: direct window sum (naive) and with a
 * horizontal pass then a vertical pass over clamped rows (exactly the same
 * sums, rearranged; used where the direct sum would take too long).  A
 * self-check compares the two.  @data points to the plane, @stride its row
 * pitch, @pstride bytes per pixel, @offset the component's byte offset
 * within a pixel, @bps bytes per sample (1 or 2 LE). */
void co_ref_blur_plane_naive (const guint8 * src, gint sstride, guint8 * dst,
    gint dstride, guint w, guint h, guint pstride, guint offset, guint bps,
    guint radius);
void co_ref_blur_plane_separable (const guint8 * src, gint sstride,
    guint8 * dst, gint dstride, guint w, guint h, guint pstride,
    guint offset, guint bps, guint radius);

/* The reference picks the naive way while w * h * (2r+1)^2 stays at or
 * below this, else the separable way. */
#define CO_REF_NAIVE_BLUR_BUDGET (40u * 1000u * 1000u)

/* Gamma table for @max (255, 1023 or 65535): @max + 1 entries. */
void co_ref_gamma_table (gdouble gamma, guint max, guint16 * table);

/* Byte-exact comparison of the visible bytes of every row of every plane.
 * Returns TRUE when equal; else FALSE and, in @msg, where the first
 * difference is (plane, row, byte, component, expected, got) and how many
 * bytes differ.  Padding bytes past the visible width are not compared. */
gboolean co_ref_compare (const GstVideoFrame * expected,
    const GstVideoFrame * got, gchar ** msg);

G_END_DECLS
#endif /* __CO_REFERENCE_H__ */
