/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The 3x3 colour matrix of examples/kernels (docs/custom-kernels.md): the
 * RGB formats (8-bit RGBA, BGRx, ..., RGB, BGR; 10-bit RGB10A2_LE,
 * BGR10A2_LE), kernel-halo=0, kernel-params = M (9 numbers, row-major)
 * and an optional offset (3 numbers, in 0-255 units).  Fewer than 9
 * params: the identity.
 *
 * Fixed point, exact on both backends, max = 2^bits - 1 of the components
 * (255 or 1023): m = rint (M * 65536), o = rint (offset * 65536) for 8-bit
 * components, rint (offset * 65536 * max / 255) (in double) for the
 * others (round half to even, 64-bit);
 *   v_c = sum_j m[c][j] * in_j + o[c] + 32768      (j over R, G, B)
 *   out_c = v_c < 0 ? 0 : min (max, v_c / 65536)  (integer division)
 * Alpha and padding are copied.
 */
#ifndef __CO_COLORMATRIX_H__
#define __CO_COLORMATRIX_H__

#include "co-example.h"

CO_EX_FN int
co_colormatrix_supported (const GstCudaOverlapVideoLaunch * a)
{
  return co_ex_video_ok (a) &&
      (a->format_flags & GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_RGB);
}

/* The matrix and offset in 16.16 fixed point. */
CO_EX_FN void
co_colormatrix_coeffs (const GstCudaOverlapVideoLaunch * a, int64_t m[9],
    int64_t o[3])
{
  const double max = (double) co_ex_max (&a->plane_formats[0], 0);
  int i;

  for (i = 0; i < 9; i++)
    m[i] = a->n_params >= 9 ? (int64_t) llrint (a->params[i] * 65536.0) :
        (i % 4 == 0 ? 65536 : 0);
  for (i = 0; i < 3; i++)
    o[i] = a->n_params < 9 + i + 1 ? 0 : max == 255.0 ?
        (int64_t) llrint (a->params[9 + i] * 65536.0) :
        (int64_t) llrint (a->params[9 + i] * 65536.0 * max / 255.0);
}

CO_EX_FN void
co_colormatrix_pixel (const GstCudaOverlapVideoLaunch * a,
    const GstCudaOverlapKernelPlane * p, const int64_t m[9],
    const int64_t o[3], int x, int y)
{
  const GstCudaOverlapKernelPlaneFormat *f = &a->plane_formats[a->plane];
  const uint8_t *in = co_ex_in (p, x, y);
  uint8_t *out = co_ex_out (p, x, y);
  const int64_t max = co_ex_max (f, 0);
  int64_t rgb[3];
  int c;

  for (c = 0; c < 3; c++)
    rgb[c] = co_ex_get (f, in, c);
  co_ex_copy (p, x, y);
  for (c = 0; c < 3; c++) {
    int64_t v = m[3 * c] * rgb[0] + m[3 * c + 1] * rgb[1] +
        m[3 * c + 2] * rgb[2] + o[c] + 32768;

    co_ex_set (f, out, c, x, v < 0 ? 0 : (uint32_t) (v / 65536 > max ? max :
            v / 65536));
  }
}

#endif /* __CO_COLORMATRIX_H__ */
