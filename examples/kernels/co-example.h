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

/* Whether @a is a video launch these examples know: a format of the ABI,
 * with the fields of version 2 (plane_formats[], which they read for every
 * format, those of version 1 included). */
CO_EX_FN int
co_ex_video_ok (const GstCudaOverlapVideoLaunch * a)
{
  return a->abi_version >= 1 &&
      a->abi_version <= GST_CUDA_OVERLAP_KERNEL_ABI_VERSION &&
      a->struct_size >= sizeof (GstCudaOverlapVideoLaunch) &&
      a->format >= GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 &&
      a->format <= GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST &&
      a->plane >= 0 && a->plane < a->n_planes;
}

/* Whether pixel @x of a plane of format @f holds component @c (4:2:2
 * packings: U in even pixels, V in odd ones). */
CO_EX_FN int
co_ex_holds (const GstCudaOverlapKernelPlaneFormat * f, int c, int x)
{
  if (f->comp_bits[c] == 0)
    return 0;
  if ((f->packing == GST_CUDA_OVERLAP_KERNEL_PACKING_422_YUYV ||
          f->packing == GST_CUDA_OVERLAP_KERNEL_PACKING_422_UYVY) && c > 0)
    return (c == 1) == ((x & 1) == 0);
  return 1;
}

/* The little-endian integer of @n bytes at @s, and its store. */
CO_EX_FN uint32_t
co_ex_load (const uint8_t * s, int n)
{
  uint32_t v = 0;
  int i;

  for (i = n - 1; i >= 0; i--)
    v = (v << 8) | s[i];
  return v;
}

CO_EX_FN void
co_ex_store (uint8_t * d, int n, uint32_t v)
{
  int i;

  for (i = 0; i < n; i++)
    d[i] = (uint8_t) (v >> (8 * i));
}

CO_EX_FN uint32_t
co_ex_max (const GstCudaOverlapKernelPlaneFormat * f, int c)
{
  return (1u << f->comp_bits[c]) - 1;
}

/* Component @c of the pixel at @px. */
CO_EX_FN uint32_t
co_ex_get (const GstCudaOverlapKernelPlaneFormat * f, const uint8_t * px, int c)
{
  return (co_ex_load (px + f->comp_offset[c], f->sample_bytes) >>
      f->comp_shift[c]) & co_ex_max (f, c);
}

/* Sets component @c of pixel @x at @px (which holds the input pixel) to
 * @v: the bits of the pixel's other components in that sample kept, the
 * sample's padding bits 0. */
CO_EX_FN void
co_ex_set (const GstCudaOverlapKernelPlaneFormat * f, uint8_t * px, int c,
    int x, uint32_t v)
{
  uint32_t keep = 0;
  int k;

  for (k = 0; k < 4; k++)
    if (k != c && co_ex_holds (f, k, x) &&
        f->comp_offset[k] == f->comp_offset[c])
      keep |= co_ex_max (f, k) << f->comp_shift[k];
  co_ex_store (px + f->comp_offset[c], f->sample_bytes,
      (co_ex_load (px + f->comp_offset[c], f->sample_bytes) & keep) |
      ((v & co_ex_max (f, c)) << f->comp_shift[c]));
}

/* Pixel @x of the band's row @y of @p: input and output. */
CO_EX_FN const uint8_t *
co_ex_in (const GstCudaOverlapKernelPlane * p, int x, int y)
{
  return p->src + (int64_t) y *p->src_pitch + (int64_t) x *p->pixel_bytes;
}

CO_EX_FN uint8_t *
co_ex_out (const GstCudaOverlapKernelPlane * p, int x, int y)
{
  return p->dst + (int64_t) y *p->dst_pitch + (int64_t) x *p->pixel_bytes;
}

/* Copies input pixel (@x, @y) to the output (alpha, padding, and what an
 * example leaves as it is). */
CO_EX_FN void
co_ex_copy (const GstCudaOverlapKernelPlane * p, int x, int y)
{
  const uint8_t *in = co_ex_in (p, x, y);
  uint8_t *out = co_ex_out (p, x, y);
  int i;

  for (i = 0; i < p->pixel_bytes; i++)
    out[i] = in[i];
}

#endif /* __CO_EXAMPLE_H__ */
