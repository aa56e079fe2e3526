/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The smallest example of examples/kernels (docs/custom-kernels.md): the
 * built-in invert as a kernel of the user's, for every format of the ABI,
 * kernel-halo=0.  c' = max - c for each colour component (R, G, B; Y, U,
 * V), max = 2^bits - 1 of the component (plane_formats[]): 255, 1023 or
 * 65535; alpha and padding bytes copied (the padding luma sample of an
 * odd-width 4:2:2 row too), the padding bits of a sample (P010_10LE's 6
 * low bits) 0.  Byte for byte what cudavideofilter
 * operation=invert computes on those formats, so cudaoverlap-bench can
 * time operation=custom against the built-in kernel on the same frames and
 * check every output (docs/PERFORMANCE.md).
 */
#ifndef __CO_INVERT_H__
#define __CO_INVERT_H__

#include "co-example.h"

CO_EX_FN int
co_invert_supported (const GstCudaOverlapVideoLaunch * a)
{
  return co_ex_video_ok (a);
}

CO_EX_FN void
co_invert_pixel (const GstCudaOverlapVideoLaunch * a,
    const GstCudaOverlapKernelPlane * p, int x, int y)
{
  const GstCudaOverlapKernelPlaneFormat *f = &a->plane_formats[a->plane];
  const uint8_t *in = co_ex_in (p, x, y);
  uint8_t *out = co_ex_out (p, x, y);
  int c;

  co_ex_copy (p, x, y);
  /* x >= a->width: an odd-width 4:2:2 row's padding luma sample, copied */
  for (c = x < a->width ? 0 : 1; c < 3; c++)
    if (co_ex_holds (f, c, x))
      co_ex_set (f, out, c, x, co_ex_max (f, c) - co_ex_get (f, in, c));
}

#endif /* __CO_INVERT_H__ */
