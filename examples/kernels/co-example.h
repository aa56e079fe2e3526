/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the example kernels of this folder share: a function compiled for
 * both the GPU (nvcc: __host__ __device__) and the CPU (a C compiler), so
 * that each example's .cu and -cpu.c run the same arithmetic, and float
 * operations that are rounded the same way on both (no fused
 * multiply-add: nvcc would contract a * b + c into one).
 */
#ifndef __CO_EXAMPLE_H__
#define __CO_EXAMPLE_H__

#include <stdint.h>
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#ifdef __CUDACC__
#define CO_EX_FN static __host__ __device__ __forceinline__
#define CO_EX_FMUL(a, b) __fmul_rn ((a), (b))
#define CO_EX_FADD(a, b) __fadd_rn ((a), (b))
#define CO_EX_FSUB(a, b) __fsub_rn ((a), (b))
#else
#include <math.h>
#define CO_EX_FN static inline
#define CO_EX_FMUL(a, b) ((float) (a) * (float) (b))
#define CO_EX_FADD(a, b) ((float) (a) + (float) (b))
#define CO_EX_FSUB(a, b) ((float) (a) - (float) (b))
#endif

CO_EX_FN int
co_ex_clamp (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* Byte masks of the colour components (the others, alpha or padding, are
 * copied) of the packed 8-bit formats; 0 for the others. */
CO_EX_FN unsigned
co_ex_colour_mask (uint32_t format)
{
  switch (format) {
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8:
      return 0x1;
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRA:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBx:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRx:
      return 0x7;
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_ARGB:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_ABGR:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_xRGB:
    case GST_CUDA_OVERLAP_KERNEL_FORMAT_xBGR:
      return 0xe;
    default:
      return 0;
  }
}

#endif /* __CO_EXAMPLE_H__ */
