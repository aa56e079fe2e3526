/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The 3x3 colour matrix of examples/kernels (docs/custom-kernels.md):
 * RGBA, kernel-halo=0, kernel-params = M (9 numbers, row-major) and an
 * optional offset (3 numbers, in 0-255 units).  Fewer than 9 params: the
 * identity.
 *
 * Fixed point, exact on both backends: m = rint (M * 65536),
 * o = rint (offset * 65536) (round half to even, 64-bit);
 *   v_c = sum_j m[c][j] * in_j + o[c] + 32768      (j over R, G, B)
 *   out_c = v_c < 0 ? 0 : min (255, v_c / 65536)  (integer division)
 * Alpha is copied.
 */
#ifndef __CO_COLORMATRIX_H__
#define __CO_COLORMATRIX_H__

#include "co-example.h"

CO_EX_FN int
co_colormatrix_supported (const GstCudaOverlapVideoLaunch * a)
{
  return a->abi_version == GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      a->format == GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA;
}

/* The matrix and offset in 16.16 fixed point. */
CO_EX_FN void
co_colormatrix_coeffs (const GstCudaOverlapVideoLaunch * a, int64_t m[9],
    int64_t o[3])
{
  int i;

  for (i = 0; i < 9; i++)
    m[i] = a->n_params >= 9 ? (int64_t) llrint (a->params[i] * 65536.0) :
        (i % 4 == 0 ? 65536 : 0);
  for (i = 0; i < 3; i++)
    o[i] = a->n_params >= 9 + i + 1 ?
        (int64_t) llrint (a->params[9 + i] * 65536.0) : 0;
}

CO_EX_FN void
co_colormatrix_pixel (const GstCudaOverlapKernelPlane * p,
    const int64_t m[9], const int64_t o[3], int x, int y)
{
  const uint8_t *in = p->src + (int64_t) y * p->src_pitch + 4 * x;
  uint8_t *out = p->dst + (int64_t) y * p->dst_pitch + 4 * x;
  int c;

  for (c = 0; c < 3; c++) {
    int64_t v = m[3 * c] * in[0] + m[3 * c + 1] * in[1] +
        m[3 * c + 2] * in[2] + o[c] + 32768;

    out[c] = v < 0 ? 0 : (uint8_t) (v / 65536 > 255 ? 255 : v / 65536);
  }
  out[3] = in[3];
}

#endif /* __CO_COLORMATRIX_H__ */
