/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Sobel edge detector of examples/kernels (docs/custom-kernels.md):
 * kernel-halo=1, GRAY8 or a packed 8-bit RGB format (RGBA, BGRx, ...).
 *
 * For each colour component c of pixel (x, y), with
 * p(dx, dy) = c at (clamp (x + dx, 0, width - 1), clamp (y + dy, 0,
 * height - 1)) (the picture's edge replicated):
 *   gx = p(1,-1) + 2 p(1,0) + p(1,1) - p(-1,-1) - 2 p(-1,0) - p(-1,1)
 *   gy = p(-1,1) + 2 p(0,1) + p(1,1) - p(-1,-1) - 2 p(0,-1) - p(1,-1)
 *   c' = min (255, |gx| + |gy|)
 * Alpha and padding are copied.  Rows are clamped to the band's halo, which
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
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];

  return a->abi_version == GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      co_ex_colour_mask (a->format) != 0 && p->comp_bytes == 1;
}

/* Pixel @x of the band's row @y. */
CO_EX_FN void
co_sobel_pixel (const GstCudaOverlapVideoLaunch * a,
    const GstCudaOverlapKernelPlane * p, int x, int y)
{
  const int pb = p->pixel_bytes, w = p->width;
  const unsigned mask = co_ex_colour_mask (a->format);
  const uint8_t *r[3];
  int xs[3], i, c;
  uint8_t *out = p->dst + (int64_t) y * p->dst_pitch + (int64_t) x * pb;

  for (i = 0; i < 3; i++) {
    r[i] = p->src + (int64_t) co_ex_clamp (y + i - 1, -p->halo_above,
        p->rows - 1 + p->halo_below) * p->src_pitch;
    xs[i] = co_ex_clamp (x + i - 1, 0, w - 1) * pb;
  }
  for (c = 0; c < pb; c++) {
    int gx, gy, m;

    if (!((mask >> c) & 1)) {
      out[c] = r[1][xs[1] + c];
      continue;
    }
    gx = r[0][xs[2] + c] + 2 * r[1][xs[2] + c] + r[2][xs[2] + c]
        - r[0][xs[0] + c] - 2 * r[1][xs[0] + c] - r[2][xs[0] + c];
    gy = r[2][xs[0] + c] + 2 * r[2][xs[1] + c] + r[2][xs[2] + c]
        - r[0][xs[0] + c] - 2 * r[0][xs[1] + c] - r[0][xs[2] + c];
    m = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
    out[c] = (uint8_t) (m > 255 ? 255 : m);
  }
}

#endif /* __CO_SOBEL_H__ */
