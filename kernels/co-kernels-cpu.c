/* cudaoverlap kernels: the CPU backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C11: no GLib, no GStreamer, no CUDA.  Implements the exact
 * arithmetic documented in co-kernels.h, computed on the calling thread.
 *
 * Box-blur is separable: for each input row a horizontal running sum
 * H(x) = sum_{dx} c(clamp (x + dx)) is computed once (O(1) per component),
 * kept in a ring of 2r + 2 rows, and a vertical running sum
 * V(y) = sum_{dy} H(clamp (y + dy)) is updated with one add and one
 * subtract per component and row.  Both are exact unsigned integer sums, so
 * V equals the S of the header; the division (S + n/2) / n is done with an
 * exact multiply-shift (see co_div_magic).
 */

#include "co-kernels.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------ */

static inline int
clampi (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* Component @i of a row (8-bit, or 16-bit little-endian). */
static inline uint32_t
get_comp (const uint8_t * row, size_t i, int cb)
{
  if (cb == 1)
    return row[i];
  return (uint32_t) row[2 * i] | ((uint32_t) row[2 * i + 1] << 8);
}

static inline void
put_comp (uint8_t * row, size_t i, int cb, uint32_t v)
{
  if (cb == 1) {
    row[i] = (uint8_t) v;
  } else {
    row[2 * i] = (uint8_t) v;
    row[2 * i + 1] = (uint8_t) (v >> 8);
  }
}

static inline const uint8_t *
src_row (const CoPlaneBand * b, int y)
{
  return b->src + (int64_t) (y - b->src_y0) * b->src_stride;
}

static inline uint8_t *
dst_row (const CoPlaneBand * b, int y)
{
  return b->dst + (int64_t) (y - b->y0) * b->dst_stride;
}

static size_t
row_bytes (const CoPlaneBand * b)
{
  return (size_t) b->width * (size_t) b->comps * (size_t) b->comp_bytes;
}

static int packed_band_is_valid (const CoPlaneBand * b);

static int
band_is_valid (const CoPlaneBand * b)
{
  if (b->packing != CO_PACK_NONE)
    return packed_band_is_valid (b);
  return b->width > 0 && b->height > 0 && b->comps >= 1 && b->comps <= 4
      && (b->comp_bytes == 1 || b->comp_bytes == 2)
      && co_band_bits_valid (b) && b->packing == CO_PACK_NONE;
}

/* Copy rows [y0, y1) from src to dst: the result of box-blur with r = 0
 * and of gamma on a plane without the LUT. */
static void
copy_band (const CoPlaneBand * b)
{
  size_t rb = row_bytes (b);
  int y;

  for (y = b->y0; y < b->y1; y++)
    memmove (dst_row (b, y), src_row (b, y), rb);
}

/* ---- invert and gamma --------------------------------------------------- */

/* invert: c' = max - c, done as byte ^ 0xff on the bytes of the changed
 * components (exact for 8-bit and for 16-bit little-endian).  gamma:
 * c' = lut[c].  Unmasked components are copied.  pat[j] is 0xff when byte
 * j % pixel_bytes of a pixel belongs to a changed component; 48 is a
 * multiple of every pixel size (1, 2, 3, 4, 6, 8), so byte i of a row has
 * the mask pat[i % 48]. */
static void
pointwise_band (const CoPlaneBand * b, CoVideoOp op, const uint16_t * lut)
{
  const int cb = b->comp_bytes, comps = b->comps, pb = comps * cb;
  const size_t rb = row_bytes (b);
  uint8_t pat[48];
  int y, j;

  for (j = 0; j < 48; j++)
    pat[j] = ((b->comp_mask >> ((j % pb) / cb)) & 1) ? 0xff : 0;

  for (y = b->y0; y < b->y1; y++) {
    const uint8_t *s = src_row (b, y);
    uint8_t *d = dst_row (b, y);
    size_t i = 0;

    if (op == CO_VIDEO_OP_INVERT) {
      for (; i + 48 <= rb; i += 48)
        for (j = 0; j < 48; j++)
          d[i + j] = s[i + j] ^ pat[j];
      for (j = 0; i + j < rb; j++)
        d[i + j] = s[i + j] ^ pat[j];
    } else if (cb == 1) {
      for (; i < rb; i += 48)
        for (j = 0; j < 48 && i + j < rb; j++)
          d[i + j] = pat[j] ? (uint8_t) lut[s[i + j]] : s[i + j];
    } else {
      for (; i < rb; i += 2) {
        uint32_t v = get_comp (s + i, 0, 2);

        if (pat[i % 48])
          v = lut[v];
        put_comp (d + i, 0, 2, v);
      }
    }
  }
}

/* Samples with padding bits (co_band_has_padding), 16-bit: each sample
 * s of a changed component gives c = (s >> shift) & M and becomes
 * (M - c) << shift (invert), lut[c] << shift (gamma, @lut set) or
 * c << shift (@lut NULL: a copy with the padding cleared); the other
 * components are copied. */
static void
pointwise_bits_band (const CoPlaneBand * b, CoVideoOp op, const uint16_t * lut)
{
  const int comps = b->comps, sh = b->shift;
  const uint32_t m = (1u << b->bits) - 1;
  const size_t n = (size_t) b->width * (size_t) comps;
  int y;

  for (y = b->y0; y < b->y1; y++) {
    const uint8_t *s = src_row (b, y);
    uint8_t *d = dst_row (b, y);
    size_t i;

    for (i = 0; i < n; i++) {
      uint32_t v = get_comp (s, i, 2);

      if ((b->comp_mask >> (i % comps)) & 1) {
        v = (v >> sh) & m;
        if (op == CO_VIDEO_OP_INVERT)
          v = m - v;
        else if (lut)
          v = lut[v];
        v <<= sh;
      }
      put_comp (d, i, 2, v);
    }
  }
}

/* invert, gamma with the LUT, and the copies of gamma without it and of
 * box-blur with r = 0 (@op none): pointwise_band, or pointwise_bits_band
 * for samples with padding bits. */
static void
pointwise_or_copy (const CoPlaneBand * b, CoVideoOp op, const uint16_t * lut)
{
  if (co_band_has_padding (b))
    pointwise_bits_band (b, op, lut);
  else if (op == CO_VIDEO_OP_NONE)
    copy_band (b);
  else
    pointwise_band (b, op, lut);
}

/* ---- box-blur ----------------------------------------------------------- */

/* Exact division q = N / n for 0 <= N <= 65535 * n + n / 2, 1 <= n <= 65^2:
 * q = (N * m) >> 42 with m = ceil (2^42 / n).  With m * n = 2^42 + e,
 * 0 <= e < n: N * m / 2^42 = N / n + N * e / (n * 2^42) and
 * N * e < 2^16 * n * n <= 2^16 * 4225^2 < 2^42, so the error term is below
 * 1 / n and cannot carry the quotient past the next integer; N * m < 2^59
 * does not overflow.  (Checked exhaustively for every r in 0..32.) */
static inline uint64_t
co_div_magic (uint32_t n)
{
  return (((uint64_t) 1 << 42) + n - 1) / n;
}

/* Horizontal running sums of one source row, masked components only:
 * h[x * comps + c] = sum_{dx=-r}^{r} row(clamp (x + dx, 0, w - 1), c).
 * @tmp has room for w + 2r values. */
static void
blur_hrow (const CoPlaneBand * b, int r, const uint8_t * row, uint32_t * h,
    uint32_t * tmp)
{
  const int w = b->width, comps = b->comps, cb = b->comp_bytes;
  int c, x;

  for (c = 0; c < comps; c++) {
    uint32_t acc = 0;

    if (!((b->comp_mask >> c) & 1))
      continue;
    /* tmp[i] = component at clamp (i - r, 0, w - 1), i in [0, w + 2r) */
    for (x = 0; x < w; x++)
      tmp[r + x] = get_comp (row, (size_t) x * comps + c, cb);
    if (co_band_has_padding (b))
      for (x = 0; x < w; x++)
        tmp[r + x] = (tmp[r + x] >> b->shift) & ((1u << b->bits) - 1);
    for (x = 0; x < r; x++) {
      tmp[x] = tmp[r];
      tmp[r + w + x] = tmp[r + w - 1];
    }
    for (x = 0; x <= 2 * r; x++)
      acc += tmp[x];
    h[c] = acc;
    for (x = 1; x < w; x++) {
      acc += tmp[x + 2 * r];
      acc -= tmp[x - 1];
      h[(size_t) x * comps + c] = acc;
    }
  }
}

/* Box-blur of one band (samples with padding bits: of their values, the
 * means shifted back to the values' place, osh). */
static int
blur_band (const CoPlaneBand * b, int r)
{
  const int w = b->width, hgt = b->height, comps = b->comps;
  const int cb = b->comp_bytes, osh = co_band_has_padding (b) ? b->shift : 0;
  const size_t rowlen = (size_t) w * comps;
  const int nring = 2 * r + 2;
  const uint32_t n = (uint32_t) (2 * r + 1) * (uint32_t) (2 * r + 1);
  const uint32_t half = n / 2;
  const uint64_t magic = co_div_magic (n);
  uint32_t *ring, *v, *tmp;
  int y, yy, dy;

  if (b->y1 <= b->y0)
    return 0;

  ring = malloc (sizeof (uint32_t) * rowlen * nring);
  v = malloc (sizeof (uint32_t) * rowlen);
  tmp = malloc (sizeof (uint32_t) * ((size_t) w + 2 * (size_t) r));
  if (!ring || !v || !tmp) {
    free (ring);
    free (v);
    free (tmp);
    return -1;
  }
#define HROW(row) (ring + (size_t) ((row) % nring) * rowlen)

  /* H of the source rows of the first output row's window, then
   * V = sum_{dy} H(clamp (y0 + dy)) */
  for (yy = clampi (b->y0 - r, 0, hgt - 1); yy <= clampi (b->y0 + r, 0,
          hgt - 1); yy++)
    blur_hrow (b, r, src_row (b, yy), HROW (yy), tmp);
  memset (v, 0, sizeof (uint32_t) * rowlen);
  for (dy = -r; dy <= r; dy++) {
    const uint32_t *h = HROW (clampi (b->y0 + dy, 0, hgt - 1));
    size_t i;

    for (i = 0; i < rowlen; i++)
      v[i] += h[i];
  }

  for (y = b->y0; y < b->y1; y++) {
    const uint8_t *s = src_row (b, y);
    uint8_t *d = dst_row (b, y);
    size_t i;
    int c = 0;

    for (i = 0; i < rowlen; i++) {
      uint32_t o;

      if ((b->comp_mask >> c) & 1)
        o = (uint32_t) (((uint64_t) (v[i] + half) * magic) >> 42) << osh;
      else
        o = get_comp (s, i, cb);
      put_comp (d, i, cb, o);
      if (++c == comps)
        c = 0;
    }

    if (y + 1 < b->y1) {
      /* V(y + 1) = V(y) + H(clamp (y + 1 + r)) - H(clamp (y - r)).  Row
       * y + 1 + r, if inside the plane, is new and its ring slot differs
       * from that of the leaving row (they are 2r + 1 apart, or the leaving
       * row is row 0 and y + 1 + r < 2r + 1); past the bottom, row
       * height - 1 is still in the ring. */
      const int ent = y + 1 + r;
      const uint32_t *hin, *hout;

      if (ent <= hgt - 1)
        blur_hrow (b, r, src_row (b, ent), HROW (ent), tmp);
      hin = HROW (clampi (ent, 0, hgt - 1));
      hout = HROW (clampi (y - r, 0, hgt - 1));
      for (i = 0; i < rowlen; i++)
        v[i] = v[i] + hin[i] - hout[i];
    }
  }
#undef HROW

  free (ring);
  free (v);
  free (tmp);
  return 0;
}

/* ---- packed planes (CoPacking) ----------------------------------------- */

/* A packed row is whole 32-bit little-endian words: a 4:2:2 pair, or a
 * 10:10:10:2 pixel.  A word's components are lanes of 8 bits (Y0 U Y1 V or
 * U Y0 V Y1) or of 10 bits (at bits 0, 10 and 20; alpha at bit 30). */

static int
packed_band_is_valid (const CoPlaneBand * b)
{
  if (b->width <= 0 || b->height <= 0 || b->comp_bytes != 1 || b->shift != 0)
    return 0;
  if (b->packing == CO_PACK_422_YUYV || b->packing == CO_PACK_422_UYVY)
    return b->comps == 2 && b->bits == 0;
  return b->packing == CO_PACK_10_10_10_2 && b->comps == 4 && b->bits == 10;
}

static inline uint32_t
load_le32 (const uint8_t * p)
{
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16)
      | ((uint32_t) p[3] << 24);
}

static inline void
store_le32 (uint8_t * p, uint32_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
  p[2] = (uint8_t) (v >> 16);
  p[3] = (uint8_t) (v >> 24);
}

/* The 4:2:2 luma component: 0 for YUYV, 1 for UYVY. */
static inline int
packed_luma_comp (const CoPlaneBand * b)
{
  return b->packing == CO_PACK_422_UYVY;
}

/* The bits of a word that hold the components of @mask (comp_mask's
 * bits; 10:10:10:2's alpha never). */
static uint32_t
packed_bits (const CoPlaneBand * b, uint32_t mask)
{
  uint32_t luma;
  int lc;

  if (b->packing == CO_PACK_10_10_10_2)
    return ((mask & 1) ? 0x3ffu : 0) | ((mask & 2) ? 0x3ffu << 10 : 0)
        | ((mask & 4) ? 0x3ffu << 20 : 0);
  lc = packed_luma_comp (b);
  luma = lc ? 0xff00ff00u : 0x00ff00ffu;
  return (((mask >> lc) & 1) ? luma : 0) | (((mask >> (1 - lc)) & 1) ?
      ~luma : 0);
}

/* The padding luma byte of an odd width's last pair, else 0. */
static uint32_t
packed_pad_bits (const CoPlaneBand * b)
{
  if (b->packing == CO_PACK_10_10_10_2 || !(b->width & 1))
    return 0;
  return b->packing == CO_PACK_422_YUYV ? 0x00ff0000u : 0xff000000u;
}

/* lut[c] on each lane of @lane_bits whose bits are in @m. */
static inline uint32_t
packed_lut_word (uint32_t v, uint32_t m, int lane_bits, const uint16_t * lut)
{
  const uint32_t lm = (1u << lane_bits) - 1;
  int sh;

  for (sh = 0; sh + lane_bits <= 32; sh += lane_bits)
    if ((m >> sh) & lm)
      v = (v & ~(lm << sh)) | ((uint32_t) lut[(v >> sh) & lm] << sh);
  return v;
}

/* invert: v ^ m with m the changed components' bits (1023 - c, 255 - c);
 * gamma: lut[c] on the luma lanes (4:2:2) or the changed components
 * (10:10:10:2); any other op copies.  The last word of a row leaves an odd
 * width's padding luma sample as it is. */
static void
packed_pointwise_band (const CoPlaneBand * b, CoVideoOp op,
    const uint16_t * lut)
{
  const int64_t nw = co_plane_row_bytes (b->width, b->comps, b->comp_bytes,
      b->packing) / 4;
  const int lane = b->packing == CO_PACK_10_10_10_2 ? 10 : 8;
  uint32_t m = 0, mlast;
  int y;

  if (op == CO_VIDEO_OP_INVERT)
    m = packed_bits (b, b->comp_mask);
  else if (op == CO_VIDEO_OP_GAMMA && b->use_lut)
    m = packed_bits (b, lane == 8 ? b->comp_mask & (1u <<
            packed_luma_comp (b)) : b->comp_mask);
  mlast = m & ~packed_pad_bits (b);

  for (y = b->y0; y < b->y1; y++) {
    const uint8_t *s = src_row (b, y);
    uint8_t *d = dst_row (b, y);
    int64_t k;

    for (k = 0; k < nw; k++) {
      const uint32_t v = load_le32 (s + 4 * k), mk = k + 1 < nw ? m : mlast;

      store_le32 (d + 4 * k, op == CO_VIDEO_OP_GAMMA ?
          packed_lut_word (v, mk, lane, lut) : v ^ mk);
    }
  }
}

/* The planar grids of a packed band for the blur: 4:2:2: luma (1 comp of
 * width samples) and chroma (U, V: 2 comps of ceil (width / 2)), 8 bits;
 * 10:10:10:2: the three components as 16-bit samples.  Each grid is a
 * band of its own over rows [src_y0, src_y1) in, [y0, y1) out, in memory
 * of its own. */
static int
packed_grids (const CoPlaneBand * b, CoPlaneBand g[2])
{
  const int is422 = b->packing != CO_PACK_10_10_10_2;
  const int n = is422 ? 2 : 1, lc = is422 ? packed_luma_comp (b) : 0;
  int i;

  for (i = 0; i < n; i++) {
    CoPlaneBand *t = &g[i];
    size_t rb;

    *t = *b;
    t->packing = CO_PACK_NONE;
    t->bits = 0;
    t->n_images = 0;
    t->comp_bytes = is422 ? 1 : 2;
    t->comps = is422 ? 1 + i : 3;
    t->width = is422 && i == 1 ? (b->width + 1) / 2 : b->width;
    if (!is422)
      t->comp_mask = b->comp_mask & 7;
    else if (i == 0)
      t->comp_mask = (b->comp_mask >> lc) & 1;
    else
      t->comp_mask = ((b->comp_mask >> (1 - lc)) & 1) ? 3 : 0;
    rb = row_bytes (t);
    t->src_stride = t->dst_stride = (int64_t) rb;
    t->src = malloc (rb * (size_t) (b->src_y1 - b->src_y0));
    t->dst = malloc (rb * (size_t) (b->y1 - b->y0));
    if (!t->src || !t->dst)
      return -1;
  }
  return n;
}

/* Packed row @s into the grids' rows @gr[]. */
static void
packed_unpack_row (const CoPlaneBand * b, const uint8_t * s, uint8_t * gr[2])
{
  const int w = b->width;
  int x;

  if (b->packing == CO_PACK_10_10_10_2) {
    for (x = 0; x < w; x++) {
      const uint32_t v = load_le32 (s + 4 * x);
      int c;

      for (c = 0; c < 3; c++)
        put_comp (gr[0], (size_t) x * 3 + c, 2, (v >> (10 * c)) & 0x3ff);
    }
    return;
  }
  for (x = 0; x < w; x++)
    gr[0][x] = s[2 * x + packed_luma_comp (b)];
  for (x = 0; x < (w + 1) / 2; x++) {
    gr[1][2 * x] = s[4 * x + 1 - packed_luma_comp (b)];
    gr[1][2 * x + 1] = s[4 * x + 3 - packed_luma_comp (b)];
  }
}

/* The grids' rows @gr[] into packed row @d; alpha and the padding luma
 * sample from the input row @s. */
static void
packed_pack_row (const CoPlaneBand * b, const uint8_t * s, uint8_t * gr[2],
    uint8_t * d)
{
  const int w = b->width, lo = packed_luma_comp (b);
  int x;

  if (b->packing == CO_PACK_10_10_10_2) {
    for (x = 0; x < w; x++) {
      uint32_t v = load_le32 (s + 4 * x) & 0xc0000000u;
      int c;

      for (c = 0; c < 3; c++)
        v |= get_comp (gr[0], (size_t) x * 3 + c, 2) << (10 * c);
      store_le32 (d + 4 * x, v);
    }
    return;
  }
  for (x = 0; x < w; x++)
    d[2 * x + lo] = gr[0][x];
  if (w & 1)
    d[2 * w + lo] = s[2 * w + lo];
  for (x = 0; x < (w + 1) / 2; x++) {
    d[4 * x + 1 - lo] = gr[1][2 * x];
    d[4 * x + 3 - lo] = gr[1][2 * x + 1];
  }
}

/* Box-blur of a packed band: its grids unpacked, blurred as planar bands
 * (blur_band: the same arithmetic), packed again. */
static int
packed_blur_band (const CoPlaneBand * b, int r)
{
  CoPlaneBand g[2];
  uint8_t *gr[2];
  int n, i, y, ret = 0;

  memset (g, 0, sizeof (g));
  n = packed_grids (b, g);
  for (y = b->src_y0; y < b->src_y1 && n > 0; y++) {
    for (i = 0; i < n; i++)
      gr[i] = (uint8_t *) src_row (&g[i], y);
    packed_unpack_row (b, src_row (b, y), gr);
  }
  for (i = 0; i < n; i++) {
    if (!g[i].comp_mask)
      copy_band (&g[i]);
    else if (blur_band (&g[i], r) != 0)
      ret = -1;
  }
  for (y = b->y0; y < b->y1 && n > 0; y++) {
    for (i = 0; i < n; i++)
      gr[i] = dst_row (&g[i], y);
    packed_pack_row (b, src_row (b, y), gr, dst_row (b, y));
  }
  for (i = 0; i < 2; i++) {
    free ((void *) g[i].src);
    free (g[i].dst);
  }
  return n > 0 ? ret : -1;
}

/* One image's band of a packed plane. */
static int
packed_run (const CoVideoParams * p, const CoPlaneBand * b,
    const uint16_t * lut)
{
  switch (p->op) {
    case CO_VIDEO_OP_INVERT:
    case CO_VIDEO_OP_GAMMA:
      packed_pointwise_band (b, p->op, lut);
      return 0;
    case CO_VIDEO_OP_BOX_BLUR:
      if (p->radius > 0)
        return packed_blur_band (b, p->radius);
      packed_pointwise_band (b, p->op, NULL);
      return 0;
    default:
      return -1;
  }
}

/* ---- video entry points ------------------------------------------------- */

/* One entry exactly as the formula says. */
static uint16_t
gamma_entry (uint32_t i, uint32_t max, double gamma)
{
  double v = floor ((double) max * pow ((double) i / (double) max,
          1.0 / gamma) + 0.5);

  /* only reached for gamma <= 0 or NaN */
  if (!(v >= 0.0))
    v = 0.0;
  if (v > (double) max)
    v = (double) max;
  return (uint16_t) v;
}

/* log (i / 65535) for the 16-bit tables, made once (a ramp of gamma makes
 * a table per frame: one exp () an entry instead of one pow ()). */
static double log16[65536];
static pthread_once_t log16_once = PTHREAD_ONCE_INIT;

static void
log16_init (void)
{
  uint32_t i;

  for (i = 1; i < 65536; i++)
    log16[i] = log ((double) i / 65535.0);
}

/* The 16-bit table: max * exp (log (x) / gamma) differs from
 * max * pow (x, 1 / gamma) by far less than 1e-6 (a few ulp of exp, log and
 * pow, times |log (x) / gamma| < 1.2e3), so where the rounded value's
 * fraction is farther than that from the next integer both give the same
 * entry; the rare others (and i = 0) take the formula itself. */
static void
gamma_lut_fill16 (uint16_t * lut, double gamma)
{
  const double e = 1.0 / gamma, max = 65535.0;
  uint32_t i;

  pthread_once (&log16_once, log16_init);
  lut[0] = gamma_entry (0, 65535, gamma);
  for (i = 1; i < 65536; i++) {
    double t = max * exp (log16[i] * e) + 0.5, f = floor (t);

    if (t - f > 1e-6 && f + 1.0 - t > 1e-6 && f >= 0.0 && f <= max)
      lut[i] = (uint16_t) f;
    else
      lut[i] = gamma_entry (i, 65535, gamma);
  }
}

void
co_gamma_lut_fill (uint16_t * lut, uint32_t max, double gamma)
{
  uint32_t i;

  if (max == 65535 && gamma > 0.0) {
    gamma_lut_fill16 (lut, gamma);
    return;
  }
  for (i = 0; i <= max; i++)
    lut[i] = gamma_entry (i, max, gamma);
}

int
co_video_run_cpu (const CoVideoParams * p)
{
  int i, ret = 0;

  if (p->n_planes < 0 || p->n_planes > CO_VIDEO_MAX_PLANES)
    return -1;
  if (p->op == CO_VIDEO_OP_BOX_BLUR && (p->radius < 0
          || p->radius > CO_BLUR_MAX_RADIUS))
    return -1;

  for (i = 0; i < p->n_planes; i++) {
    const CoPlaneBand *b0 = &p->planes[i];
    int z, n = b0->n_images > 1 ? b0->n_images : 1;

    if (b0->y1 <= b0->y0)
      continue;
    if (!band_is_valid (b0) || b0->n_images < 0)
      return -1;

    /* a batch: the same band of each image, one after the other */
    for (z = 0; z < n; z++) {
      CoPlaneBand bz = *b0;
      const CoPlaneBand *b = &bz;

      bz.src += (int64_t) z *b0->src_image_stride;
      bz.dst += (int64_t) z *b0->dst_image_stride;
      if (b->packing != CO_PACK_NONE) {
        if (packed_run (p, b, p->op == CO_VIDEO_OP_GAMMA ? p->lut
                + z * b0->lut_image_stride : NULL) != 0)
          ret = -1;
        continue;
      }
      switch (p->op) {
        case CO_VIDEO_OP_INVERT:
          pointwise_or_copy (b, p->op, NULL);
          break;
        case CO_VIDEO_OP_GAMMA:
          if (b->use_lut && b->comp_mask)
            pointwise_or_copy (b, p->op, p->lut + z * b0->lut_image_stride);
          else
            pointwise_or_copy (b, CO_VIDEO_OP_NONE, NULL);
          break;
        case CO_VIDEO_OP_BOX_BLUR:
          if (p->radius == 0 || !b->comp_mask)
            pointwise_or_copy (b, CO_VIDEO_OP_NONE, NULL);
          else if (blur_band (b, p->radius) != 0)
            ret = -1;
          break;
        default:
          return -1;
      }
    }
  }
  return ret;
}

/* ---- audio -------------------------------------------------------------- */

/* rint'ed float to int16 with saturation; NaN gives 0 (as the CUDA
 * __float2int_rn does). */
static inline int16_t
sat_s16 (float r)
{
  if (r != r)
    return 0;
  if (r >= 32767.0f)
    return 32767;
  if (r <= -32768.0f)
    return -32768;
  return (int16_t) r;
}

#define CO_FIR_BLOCK 256

int
co_audio_run_cpu (const CoAudioParams * p)
{
  const int64_t ns = p->frames * p->channels;
  int64_t i;

  if (p->channels < 1 || p->frames < 0)
    return -1;

  if (p->op == CO_AUDIO_OP_GAIN) {
    const float g = p->gain;

    if (p->format == CO_AUDIO_F32) {
      const float *s = (const float *) p->src + p->history * p->channels;
      float *d = p->dst;

      for (i = 0; i < ns; i++)
        d[i] = s[i] * g;
    } else if (p->format == CO_AUDIO_S16) {
      const int16_t *s = (const int16_t *) p->src + p->history * p->channels;
      int16_t *d = p->dst;

      for (i = 0; i < ns; i++) {
        float prod = (float) s[i] * g;
        d[i] = sat_s16 (rintf (prod));
      }
    } else {
      return -1;
    }
    return 0;
  }

  if (p->op == CO_AUDIO_OP_FIR) {
    /* Output samples are contiguous in the interleaved layout: sample
     * s = n * channels + ch reads x at src sample
     * (history + n - k) * channels + ch = hc + s - k * channels.  A block of
     * consecutive output samples is accumulated tap by tap, k ascending. */
    const int64_t c = p->channels, hc = p->history * c;
    const int nt = p->n_taps;
    float acc[CO_FIR_BLOCK];
    int64_t s0;

    if (nt < 1 || p->history < nt - 1)
      return -1;
    if (p->format != CO_AUDIO_F32 && p->format != CO_AUDIO_S16)
      return -1;

    for (s0 = 0; s0 < ns; s0 += CO_FIR_BLOCK) {
      const int len = ns - s0 < CO_FIR_BLOCK ? (int) (ns - s0) : CO_FIR_BLOCK;
      int k, j;

      for (j = 0; j < len; j++)
        acc[j] = 0.0f;
      for (k = 0; k < nt; k++) {
        const float t = p->taps[k];
        const int64_t off = hc + s0 - (int64_t) k * c;

        if (p->format == CO_AUDIO_F32) {
          const float *x = (const float *) p->src + off;

          for (j = 0; j < len; j++)
            acc[j] += t * x[j];
        } else {
          const int16_t *x = (const int16_t *) p->src + off;

          for (j = 0; j < len; j++)
            acc[j] += t * (float) x[j];
        }
      }
      if (p->format == CO_AUDIO_F32) {
        memcpy ((float *) p->dst + s0, acc, sizeof (float) * len);
      } else {
        int16_t *d = (int16_t *) p->dst + s0;

        for (j = 0; j < len; j++)
          d[j] = sat_s16 (rintf (acc[j]));
      }
    }
    return 0;
  }

  return -1;
}
