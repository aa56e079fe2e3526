/* cudaoverlap-bench: the naive gamma (--op gamma) and its expected
 * checksums.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The expected output of operation=gamma, computed here from the formula
 * alone (none of the plugin's code): every colour component (the plane's
 * mask: R, G and B, not alpha or padding; grey; the luma plane of the YUV
 * formats, never their chroma planes) becomes
 *   floor (max * pow (c / max, 1 / gamma) + 0.5)
 * in double precision, max = 255 (8-bit), 65535 (16-bit) or 2^bits - 1
 * (P010_10LE, I420_10LE: c the value (s >> shift) & max, the result put
 * back << shift, in every plane, its other bits 0), clamped to [0, max];
 * everything else is copied.  The formula is evaluated once per
 * possible component value (a table of max + 1 entries) and looked up per
 * component.
 * With a gamma that changes per frame (--gamma-ramp) each checked output
 * has its own expected checksum: bench_gamma_sum computes it from the
 * sampled pieces of the ring frame alone (bench_pieces), about 1/64 of
 * the frame, on the checker thread that checks the output.
 */
#include <math.h>
#include <string.h>

#include "bench.h"

static gsize
plane_row_bytes (const BenchPlane * p)
{
  return (gsize) p->width * p->comps * p->comp_bytes;
}

/* The max + 1 values of the formula (a g_free()d array). */
static guint16 *
gamma_table (guint max, gdouble gamma)
{
  guint16 *t = g_new (guint16, max + 1);
  guint i;

  for (i = 0; i <= max; i++) {
    gdouble v = floor ((gdouble) max * pow ((gdouble) i / (gdouble) max,
            1.0 / gamma) + 0.5);

    t[i] = (guint16) CLAMP (v, 0.0, (gdouble) max);
  }
  return t;
}

/* Whether the operation changes plane @p at all: a plane gamma goes
 * through, or one whose samples have other bits than their value's. */
static gboolean
gamma_plane (const BenchPlane * p)
{
  return p->gamma || p->bits;
}

/* Bytes [@from, @from + @len) of a row of plane @p (@from on a component's
 * first byte), from @s to @d, through @t where the component is in the
 * mask (a plane without gamma: the value itself, put back << shift). */
static void
gamma_bytes (const BenchPlane * p, const guint16 * t, const guint8 * s,
    guint8 * d, gsize from, gsize len)
{
  guint max = p->bits ? (1u << p->bits) - 1 : 65535;
  gsize k;

  for (k = 0; k < len; k += p->comp_bytes) {
    guint c = ((from + k) / p->comp_bytes) % p->comps;

    if (!(p->mask & (1u << c))) {
      memcpy (d + k, s + k, MIN ((gsize) p->comp_bytes, len - k));
    } else if (p->comp_bytes == 1) {
      d[k] = (guint8) t[s[k]];
    } else {
      guint v = ((s[k] | (s[k + 1] << 8)) >> p->shift) & max;

      v = (p->gamma ? t[v] : v) << p->shift;
      d[k] = v & 0xff;
      d[k + 1] = v >> 8;
    }
  }
}

static guint16 *
layout_table (const BenchLayout * l, gdouble gamma)
{
  const BenchPlane *p = &l->planes[0];

  return gamma_table (p->bits ? (1u << p->bits) - 1 : p->comp_bytes == 2 ?
      65535 : 255, gamma);
}

void
bench_gamma_ref (const BenchLayout * l, const guint8 * src, guint8 * dst,
    gdouble gamma)
{
  guint16 *t = layout_table (l, gamma);
  gint i, y;

  memcpy (dst, src, l->size);
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *p = &l->planes[i];

    for (y = 0; y < p->height && gamma_plane (p); y++) {
      gsize o = p->offset + (gsize) y * p->stride;

      gamma_bytes (p, t, src + o, dst + o, 0, plane_row_bytes (p));
    }
  }
  g_free (t);
}

guint64
bench_gamma_sum (const BenchLayout * l, const guint8 * src, gdouble gamma)
{
  guint16 *t = layout_table (l, gamma);
  guint n, j;
  gsize bytes;
  BenchPiece *pc = bench_pieces (l, &n, &bytes);
  guint8 *compact = g_malloc (MAX (bytes, 1));
  guint64 sum;

  for (j = 0; j < n; j++) {
    const BenchPlane *p = &l->planes[pc[j].plane];
    const guint8 *s = src + p->offset + (gsize) pc[j].row * p->stride +
        pc[j].col;

    if (gamma_plane (p))
      gamma_bytes (p, t, s, compact + pc[j].dst, pc[j].col, pc[j].len);
    else
      memcpy (compact + pc[j].dst, s, pc[j].len);
  }
  sum = bench_checksum_pieces (pc, n, compact);
  g_free (compact);
  g_free (pc);
  g_free (t);
  return sum;
}

gboolean
bench_frames_set_gamma (BenchFrames * f, gdouble gamma)
{
  guint8 *tmp = g_malloc (f->lay.size);
  guint64 whole;
  guint i;

  for (i = 0; i < BENCH_RING; i++)
    f->sum_op[i] = bench_gamma_sum (&f->lay, f->ring[i], gamma);
  /* the pieces' sum is that of the whole expected frame */
  bench_gamma_ref (&f->lay, f->ring[0], tmp, gamma);
  whole = bench_checksum_packed (&f->lay, tmp);
  g_free (tmp);
  f->gamma = gamma;
  return whole == f->sum_op[0];
}
