/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The windowed biquad of examples/kernels (docs/custom-kernels.md):
 * F32LE, kernel-params = b0, b1, b2, a1, a2, kernel-halo = H >= 2.
 *
 * Output frame n, per channel: the direct-form-I recursion
 *   y = b0 x[k] + b1 x[k-1] + b2 x[k-2] - a1 y[k-1] - a2 y[k-2]
 * run from zero state over k = n - H .. n (x before n - H and y before
 * the first step taken as 0), out[n] = its last y.  In float, each
 * operation rounded on its own (no fused multiply-add), left to right as
 * written: the same bits on the GPU and the CPU.
 *
 * Why windowed: chunks (and buffers) run concurrently, so output n can
 * depend on inputs x[n - H .. n] only, never on y[n - 1].  With a1 = a2 = 0
 * it is the exact 3-tap FIR b0, b1, b2; with feedback it is the biquad
 * truncated to the window (choose H so its impulse response has decayed).
 */
#ifndef __CO_BIQUAD_H__
#define __CO_BIQUAD_H__

#include "co-example.h"

CO_EX_FN int
co_biquad_supported (const GstCudaOverlapAudioLaunch * a)
{
  return a->abi_version >= 1 &&
      a->abi_version <= GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      a->struct_size >= sizeof (GstCudaOverlapAudioLaunch) &&
      a->format == GST_CUDA_OVERLAP_KERNEL_AUDIO_F32LE && a->history >= 2;
}

/* Frame @n (all channels). */
CO_EX_FN void
co_biquad_frame (const GstCudaOverlapAudioLaunch * a, int64_t n)
{
  const float *src = (const float *) a->src;
  float *dst = (float *) a->dst;
  const float b0 = (float) a->params[0], b1 = (float) a->params[1];
  const float b2 = (float) a->params[2], a1 = (float) a->params[3];
  const float a2 = (float) a->params[4];
  const int ch = a->channels;
  int c;

  for (c = 0; c < ch; c++) {
    float x1 = 0, x2 = 0, y1 = 0, y2 = 0, y = 0;
    int64_t k;

    for (k = n - a->history; k <= n; k++) {
      const float x = src[k * ch + c];

      y = CO_EX_FMUL (b0, x);
      y = CO_EX_FADD (y, CO_EX_FMUL (b1, x1));
      y = CO_EX_FADD (y, CO_EX_FMUL (b2, x2));
      y = CO_EX_FSUB (y, CO_EX_FMUL (a1, y1));
      y = CO_EX_FSUB (y, CO_EX_FMUL (a2, y2));
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
    }
    dst[n * ch + c] = y;
  }
}

#endif /* __CO_BIQUAD_H__ */
