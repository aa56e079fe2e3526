/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Sobel edge detector of examples/kernels (docs/custom-kernels.md):
 * kernel-halo=1, every format of the ABI: the colour components of the
 * RGB formats (R, G, B), the luma of GRAY and YUV formats (Y; chroma
 * copied).
 *
 * For each such component c of pixel (x, y), with
 * p(dx, dy) = c at (clamp (x + dx, 0, w - 1), clamp (y + dy, 0,
 * height - 1)) (the picture's edge replicated; w: the plane's width, or
 * the picture's for the luma of a 4:2:2 packing):
 *   gx = p(1,-1) + 2 p(1,0) + p(1,1) - p(-1,-1) - 2 p(-1,0) - p(-1,1)
 *   gy = p(-1,1) + 2 p(0,1) + p(1,1) - p(-1,-1) - 2 p(0,-1) - p(1,-1)
 *   c' = min (max, |gx| + |gy|), max = 2^bits - 1 (255, 1023, 65535)
 * Chroma keeps its values, alpha and padding bytes are copied (the padding
 * luma sample of an odd-width 4:2:2 row too); the padding bits of a sample
 * (P010_10LE's 6 low bits) are 0.  Rows are clamped to the band's halo, which
 * is the picture's edge where the halo is clamped (the first and last
 * bands) and one row otherwise with kernel-halo=1.  With kernel-halo=0
 * every band edge would be treated as a picture edge: visible seams.
 */
#ifndef __CO_SOBEL_H__
#define __CO_SOBEL_H__

#include "co-example.h"

/* Whether this launch is one the example computes. */
CO_EX_FN int
co_sobel_supported (const GstCudaOverlapVideoLaunch * a)
{
  return co_ex_video_ok (a);
}

/* Whether component @c is one the example filters. */
CO_EX_FN int
co_sobel_filters (const GstCudaOverlapVideoLaunch * a, int c)
{
  return (a->format_flags & GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_RGB) ?
      c < 3 : c == 0;
}

/* Pixel @x of the band's row @y. */
CO_EX_FN void
co_sobel_pixel (const GstCudaOverlapVideoLaunch * a,
    const GstCudaOverlapKernelPlane * p, int x, int y)
{
  const GstCudaOverlapKernelPlaneFormat *f = &a->plane_formats[a->plane];
  const int w = p->width > a->width ? a->width : p->width;
  uint8_t *out = co_ex_out (p, x, y);
  int xs[3], ys[3], i, c;

  co_ex_copy (p, x, y);
  if (x >= w)
    return;
  for (i = 0; i < 3; i++) {
    ys[i] = co_ex_clamp (y + i - 1, -p->halo_above, p->rows - 1 +
        p->halo_below);
    xs[i] = co_ex_clamp (x + i - 1, 0, w - 1);
  }
  for (c = 0; c < 3; c++) {
    int gx, gy, m, v[3][3], j;

    if (!co_ex_holds (f, c, x))
      continue;
    if (!co_sobel_filters (a, c)) {     /* the value, its padding bits 0 */
      co_ex_set (f, out, c, x, co_ex_get (f, co_ex_in (p, x, y), c));
      continue;
    }
    for (j = 0; j < 3; j++)
      for (i = 0; i < 3; i++)
        v[j][i] = (int) co_ex_get (f, co_ex_in (p, xs[i], ys[j]), c);
    gx = v[0][2] + 2 * v[1][2] + v[2][2] - v[0][0] - 2 * v[1][0] - v[2][0];
    gy = v[2][0] + 2 * v[2][1] + v[2][2] - v[0][0] - 2 * v[0][1] - v[0][2];
    m = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
    co_ex_set (f, out, c, x, (uint32_t) co_ex_clamp (m, 0,
            (int) co_ex_max (f, c)));
  }
}

#endif /* __CO_SOBEL_H__ */
