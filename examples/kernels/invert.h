/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The smallest example of examples/kernels (docs/custom-kernels.md): the
 * built-in invert as a kernel of the user's, for GRAY8 and the packed
 * 8-bit RGB formats, kernel-halo=0.  c' = 255 - c for each colour
 * component; alpha and padding copied.  Byte for byte what
 * cudavideofilter operation=invert computes on those formats, so
 * cudaoverlap-bench can time operation=custom against the built-in kernel
 * on the same frames and check every output (docs/PERFORMANCE.md).
 */
#ifndef __CO_INVERT_H__
#define __CO_INVERT_H__

#include "co-example.h"

CO_EX_FN int
co_invert_supported (const GstCudaOverlapVideoLaunch * a)
{
  return a->abi_version == GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      co_ex_colour_mask (a->format) != 0;
}

CO_EX_FN void
co_invert_pixel (const GstCudaOverlapKernelPlane * p, unsigned mask, int x,
    int y)
{
  const uint8_t *in = p->src + (int64_t) y * p->src_pitch +
      (int64_t) x * p->pixel_bytes;
  uint8_t *out = p->dst + (int64_t) y * p->dst_pitch +
      (int64_t) x * p->pixel_bytes;
  int c;

  for (c = 0; c < p->pixel_bytes; c++)
    out[c] = ((mask >> c) & 1) ? (uint8_t) (255 - in[c]) : in[c];
}

#endif /* __CO_INVERT_H__ */
