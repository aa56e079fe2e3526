/* cudaoverlap kernels: the CUDA backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every launch goes on the caller's stream; nothing here allocates,
 * synchronises or touches the (device) pointers from the host.  The
 * arithmetic is the one documented in co-kernels.h and is bit-identical to
 * kernels/co-kernels-cpu.c for video and audio gain; the FIR sums the same
 * float products in another order (and with fmaf).
 *
 * Launch geometry: invert/gamma/copy: one launch per plane, 256 threads,
 * 16 bytes x 2 rows per thread.  Box-blur: one launch per plane, 256
 * threads per 256 / comps pixels x up to 64 rows.  Gain: 256 threads, a
 * sample per thread, grid-stride.  FIR: 256 threads, 7 frames x 1 channel
 * per thread.  Packed planes (CoPacking): point-wise 16 bytes (4 words)
 * x 2 rows per thread; box-blur 256 threads per 256 words (pairs or
 * pixels) x up to 64 rows, every grid of the words in one kernel.
 */

#include "co-kernels.h"

#include <cuda_runtime.h>

/* ---- invert, gamma, copy ------------------------------------------------ */

#define CO_PW_THREADS 256

/* Byte masks of the first 48 bytes of a row, little-endian in 32-bit words:
 * byte o is 0xff when the component (o % pixel_bytes) / comp_bytes is
 * changed.  48 is a multiple of every pixel size (1, 2, 3, 4, 6, 8 bytes),
 * so byte o of a row has mask byte o % 48, and the 16 bytes at row offset
 * 16 k have the mask words 4 (k % 3) .. 4 (k % 3) + 3. */
struct CoPattern
{
  uint32_t w[12];
  /* CO_PW_XOR_AND's AND mask, in the same layout: the bytes of M << shift
   * for changed components, 0xff for the others */
  uint32_t a[12];
};

enum
{
  CO_PW_XOR = 0,                /* invert (all-zero pattern: copy) */
  CO_PW_LUT8 = 1,               /* gamma, 8-bit components */
  CO_PW_LUT16 = 2,              /* gamma, 16-bit components */
  /* samples with padding bits (co_band_has_padding), 16-bit: */
  CO_PW_XOR_AND = 3,            /* invert (all-zero XOR pattern: a copy
                                 * with the padding cleared) */
  CO_PW_LUT_BITS = 4,           /* gamma */
};

/* Load / store the 16 bytes at @p as 4 little-endian words, with accesses of
 * A = 16, 4 or 1 bytes: @p is A-aligned (the host checked pointers and
 * strides). */
template < int A > __device__ __forceinline__ void
load16 (const uint8_t * p, uint32_t w[4])
{
  if (A == 16) {
    const uint4 q = *(const uint4 *) p;
    w[0] = q.x;
    w[1] = q.y;
    w[2] = q.z;
    w[3] = q.w;
  } else {
#pragma unroll
    for (int i = 0; i < 4; i++)
      w[i] = A == 4 ? ((const uint32_t *) p)[i] : (uint32_t) p[4 * i]
          | ((uint32_t) p[4 * i + 1] << 8) | ((uint32_t) p[4 * i + 2] << 16)
          | ((uint32_t) p[4 * i + 3] << 24);
  }
}

template < int A > __device__ __forceinline__ void
store16 (uint8_t * p, const uint32_t w[4])
{
  if (A == 16) {
    *(uint4 *) p = make_uint4 (w[0], w[1], w[2], w[3]);
  } else if (A == 4) {
#pragma unroll
    for (int i = 0; i < 4; i++)
      ((uint32_t *) p)[i] = w[i];
  } else {
#pragma unroll
    for (int i = 0; i < 16; i++)
      p[i] = (uint8_t) (w[i >> 2] >> (8 * (i & 3)));
  }
}

/* One 32-bit word (4 bytes at a 4-aligned row offset) with mask word @m
 * (and, CO_PW_XOR_AND, AND mask word @a; CO_PW_LUT_BITS: the samples'
 * shift @sh and value mask @vm). */
template < int MODE > __device__ __forceinline__ uint32_t
pw_word (uint32_t v, uint32_t m, uint32_t a, int sh, uint32_t vm,
    const uint8_t * lut8, const uint16_t * lut16)
{
  if (MODE == CO_PW_XOR)
    return v ^ m;
  if (MODE == CO_PW_XOR_AND)
    return (v ^ m) & a;
  if (MODE == CO_PW_LUT_BITS) {
    /* the two halfwords: lut[(h >> sh) & vm] << sh where changed */
    uint32_t r = v;
    if (m & 0xffffu)
      r = (r & 0xffff0000u) | ((uint32_t) __ldg (lut16 + (((v & 0xffffu)
                      >> sh) & vm)) << sh);
    if (m >> 16)
      r = (r & 0xffffu) | ((uint32_t) __ldg (lut16 + ((v >> (16 + sh))
                  & vm)) << (16 + sh));
    return r;
  }
  if (MODE == CO_PW_LUT8) {
    /* all four bytes looked up, then the unmasked ones taken from v */
    const uint32_t t = (uint32_t) lut8[v & 0xffu]
        | ((uint32_t) lut8[(v >> 8) & 0xffu] << 8)
        | ((uint32_t) lut8[(v >> 16) & 0xffu] << 16)
        | ((uint32_t) lut8[v >> 24] << 24);
    return (t & m) | (v & ~m);
  }
  /* CO_PW_LUT16: components are the two halfwords */
  uint32_t r = v;
  if (m & 0xffffu)
    r = (r & 0xffff0000u) | (uint32_t) __ldg (lut16 + (v & 0xffffu));
  if (m >> 16)
    r = (r & 0xffffu) | ((uint32_t) __ldg (lut16 + (v >> 16)) << 16);
  return r;
}

/* The last, partial 16-byte chunk of a row: @nb < 16 bytes, byte by byte. */
template < int MODE > __device__ __forceinline__ void
pw_tail (const uint8_t * s, uint8_t * d, int nb, const uint32_t m[4],
    const uint32_t a[4], int sh, uint32_t vm, const uint8_t * lut8,
    const uint16_t * lut16)
{
  uint32_t w[4] = { 0, 0, 0, 0 };

#pragma unroll
  for (int j = 0; j < 16; j++)
    if (j < nb)
      w[j >> 2] |= (uint32_t) s[j] << (8 * (j & 3));
#pragma unroll
  for (int i = 0; i < 4; i++)
    w[i] = pw_word < MODE > (w[i], m[i], a[i], sh, vm, lut8, lut16);
#pragma unroll
  for (int j = 0; j < 16; j++)
    if (j < nb)
      d[j] = (uint8_t) (w[j >> 2] >> (8 * (j & 3)));
}

/* The block's shared set-up, before its barrier: the pattern's words (and
 * CO_PW_XOR_AND's AND words) by thread 0, the 8-bit LUT (CO_PW_LUT8) by
 * all. */
template < int MODE > __device__ __forceinline__ void
pw_block_setup (int tid, const CoPattern & pat, const uint16_t * lut,
    uint32_t * s_pat, uint32_t * s_and, uint8_t * s_lut)
{
  if (tid == 0) {
#pragma unroll
    for (int i = 0; i < 12; i++)
      s_pat[i] = pat.w[i];
    if (MODE == CO_PW_XOR_AND) {
#pragma unroll
      for (int i = 0; i < 12; i++)
        s_and[i] = pat.a[i];
    }
  }
  if (MODE == CO_PW_LUT8) {
    for (int i = tid; i < 256; i += blockDim.x * blockDim.y)
      s_lut[i] = (uint8_t) lut[i];
  }
}

/* The mask words of the 16 bytes at row offset 16 @k (and their AND
 * words, CO_PW_XOR_AND), after the barrier. */
template < int MODE > __device__ __forceinline__ void
pw_masks (unsigned k, const uint32_t * s_pat, const uint32_t * s_and,
    uint32_t m[4], uint32_t a[4])
{
  const int ph = (int) (k % 3u) * 4;

#pragma unroll
  for (int i = 0; i < 4; i++) {
    m[i] = s_pat[ph + i];
    if (MODE == CO_PW_XOR_AND)
      a[i] = s_and[ph + i];
  }
}

/* Point-wise op on one plane band.  Row bytes rb = width * comps *
 * comp_bytes; thread (kx, ky) handles the 16 bytes [16 k, 16 k + 16) of a
 * row, k = blockIdx.x * blockDim.x + threadIdx.x, clipped to rb (the tail is
 * done byte by byte so the bytes past the row are never touched), for the
 * rows y0 + yt + i * ystep, yt = blockIdx.y * blockDim.y + threadIdx.y,
 * ystep = gridDim.y * blockDim.y, two rows at a time (both loads issued
 * before either is used, the first two before the block's set-up).
 * invert: c' = max - c, done as byte ^ 0xff on the bytes of the changed
 * components (exact for 8-bit and for 16-bit little-endian).  gamma 8-bit:
 * c' = (uint8) lut[c] from a shared copy of the LUT (all 4 bytes of a word
 * looked up, unmasked bytes then taken from the input); gamma 16-bit:
 * c' = lut[c] read through the read-only cache.  Unmasked bytes are copied.
 * Samples with padding bits: invert (and the copy that clears the padding)
 * (v ^ x) & a with the pattern's XOR and AND masks, exact per byte of a
 * little-endian sample; gamma lut[(s >> shift) & M] << shift per sample. */
template < int A, int MODE > __global__ void __launch_bounds__ (CO_PW_THREADS)
co_pointwise_kernel (CoPlaneBand b, CoPattern pat, const uint16_t * lut)
{
  b.src += (int64_t) blockIdx.z * b.src_image_stride;
  b.dst += (int64_t) blockIdx.z * b.dst_image_stride;
  if (MODE != CO_PW_XOR && MODE != CO_PW_XOR_AND)
    lut += (int64_t) blockIdx.z * b.lut_image_stride;
  __shared__ uint32_t s_pat[12];
  __shared__ uint32_t s_and[MODE == CO_PW_XOR_AND ? 12 : 1];
  __shared__ uint8_t s_lut[256];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int64_t rb = (int64_t) b.width * b.comps * b.comp_bytes;
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t off = (int64_t) k * 16;
  const int rows = b.y1 - b.y0;
  const bool full = off + 16 <= rb;
  const int nb = full ? 16 : (int) (rb - off);
  const int src_dy = b.y0 - b.src_y0;
  const int ystep = gridDim.y * blockDim.y;
  const int sh = b.shift;
  const uint32_t vm = (1u << b.bits) - 1;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  uint32_t w[4], w2[4];
  bool have = false;

  /* issue the first rows' loads before the block's set-up and barrier */
  if (full && y < rows) {
    load16 < A > (b.src + (int64_t) (src_dy + y) * b.src_stride + off, w);
    if (y + ystep < rows)
      load16 < A > (b.src + (int64_t) (src_dy + y + ystep) * b.src_stride
          + off, w2);
    have = true;
  }

  pw_block_setup < MODE > (tid, pat, lut, s_pat, s_and, s_lut);
  __syncthreads ();

  if (off >= rb)
    return;

  uint32_t m[4], a[4] = { 0, 0, 0, 0 };
  pw_masks < MODE > (k, s_pat, s_and, m, a);

  for (; y < rows; y += 2 * ystep) {
    const int y2 = y + ystep;
    const bool two = y2 < rows;
    const uint8_t *s = b.src + (int64_t) (src_dy + y) * b.src_stride + off;
    const uint8_t *s2 = b.src + (int64_t) (src_dy + y2) * b.src_stride + off;
    uint8_t *d = b.dst + (int64_t) y * b.dst_stride + off;
    uint8_t *d2 = b.dst + (int64_t) y2 * b.dst_stride + off;

    if (full) {
      if (!have) {
        load16 < A > (s, w);
        if (two)
          load16 < A > (s2, w2);
      }
      have = false;
#pragma unroll
      for (int i = 0; i < 4; i++)
        w[i] = pw_word < MODE > (w[i], m[i], a[i], sh, vm, s_lut, lut);
      store16 < A > (d, w);
      if (two) {
#pragma unroll
        for (int i = 0; i < 4; i++)
          w2[i] = pw_word < MODE > (w2[i], m[i], a[i], sh, vm, s_lut, lut);
        store16 < A > (d2, w2);
      }
    } else {
      pw_tail < MODE > (s, d, nb, m, a, sh, vm, s_lut, lut);
      if (two)
        pw_tail < MODE > (s2, d2, nb, m, a, sh, vm, s_lut, lut);
    }
  }
}

template < int MODE > static void
launch_pw_mode (int a, dim3 grid, dim3 block, cudaStream_t st,
    const CoPlaneBand & b, const CoPattern & pat, const uint16_t * lut)
{
  if (a == 16)
    co_pointwise_kernel < 16, MODE > <<<grid, block, 0, st>>> (b, pat, lut);
  else if (a == 4)
    co_pointwise_kernel < 4, MODE > <<<grid, block, 0, st>>> (b, pat, lut);
  else
    co_pointwise_kernel < 1, MODE > <<<grid, block, 0, st>>> (b, pat, lut);
}

/* The point-wise launch geometry of band @b, @cpr 16-byte chunks a row:
 * @a the widest access (16, 4 or 1 bytes) that every row start of src and
 * dst allows; 256 threads a block, a thread per chunk and two rows at a
 * time, an image a grid layer.  false when the row is too wide. */
static bool
pw_geometry (const CoPlaneBand * b, int64_t cpr, int *a, dim3 * grid,
    dim3 * block)
{
  const int rows = b->y1 - b->y0;
  const uintptr_t src_row0 = (uintptr_t) b->src
      + (uintptr_t) ((int64_t) (b->y0 - b->src_y0) * b->src_stride);
  const uintptr_t al = (uintptr_t) b->dst | src_row0
      | (uintptr_t) b->dst_stride | (uintptr_t) b->src_stride
      | (uintptr_t) b->src_image_stride | (uintptr_t) b->dst_image_stride;
  const int bx = cpr >= CO_PW_THREADS ? CO_PW_THREADS : (int) ((cpr + 31) & ~31);
  const int by = CO_PW_THREADS / bx;
  const int64_t gx = (cpr + bx - 1) / bx;
  int64_t gy = (rows + 2 * by - 1) / (2 * by);    /* two rows a thread */

  if (gx > 0x7fffffff)
    return false;
  if (gy > 65535)
    gy = 65535;
  *a = (al & 15) == 0 ? 16 : (al & 3) == 0 ? 4 : 1;
  *grid = dim3 ((unsigned) gx, (unsigned) gy, (unsigned) (b->n_images > 1 ?
          b->n_images : 1));
  *block = dim3 (bx, by);
  return true;
}

/* @mode: CO_PW_XOR, LUT8 or LUT16 (samples with padding bits take
 * CO_PW_XOR_AND or CO_PW_LUT_BITS instead); @active: false gives an
 * all-zero pattern (a copy; with padding bits, one that clears them). */
static int
launch_pointwise (const CoPlaneBand * b, int mode, bool active,
    const uint16_t * lut, cudaStream_t st)
{
  const int rows = b->y1 - b->y0;
  const int64_t rb = (int64_t) b->width * b->comps * b->comp_bytes;
  const int pb = b->comps * b->comp_bytes;
  /* the bits of a changed component's value, where they lie: 0xff bytes
   * without padding bits */
  const uint32_t vbits = co_band_has_padding (b) ?
      ((1u << b->bits) - 1) << b->shift : 0xffffu;
  CoPattern pat;

  if (rows <= 0 || rb <= 0)
    return 0;
  if (co_band_has_padding (b))
    mode = mode == CO_PW_XOR ? CO_PW_XOR_AND : CO_PW_LUT_BITS;

  for (int i = 0; i < 12; i++) {
    uint32_t v = 0, and_mask = 0;

    for (int j = 0; j < 4; j++) {
      const int o = (4 * i + j) % pb, c = o / b->comp_bytes;
      const uint32_t vb = (vbits >> (8 * (o % b->comp_bytes))) & 0xffu;
      const bool changed = (b->comp_mask >> c) & 1;

      if (active && changed)
        v |= vb << (8 * j);
      and_mask |= (changed ? vb : 0xffu) << (8 * j);
    }
    pat.w[i] = v;
    pat.a[i] = and_mask;
  }

  int a;
  dim3 grid, block;

  if (!pw_geometry (b, (rb + 15) / 16, &a, &grid, &block))
    return (int) cudaErrorInvalidValue;
  if (mode == CO_PW_LUT8)
    launch_pw_mode < CO_PW_LUT8 > (a, grid, block, st, *b, pat, lut);
  else if (mode == CO_PW_LUT16)
    launch_pw_mode < CO_PW_LUT16 > (a, grid, block, st, *b, pat, lut);
  else if (mode == CO_PW_XOR_AND)
    launch_pw_mode < CO_PW_XOR_AND > (a, grid, block, st, *b, pat, lut);
  else if (mode == CO_PW_LUT_BITS)
    launch_pw_mode < CO_PW_LUT_BITS > (a, grid, block, st, *b, pat, lut);
  else
    launch_pw_mode < CO_PW_XOR > (a, grid, block, st, *b, pat, lut);
  return (int) cudaGetLastError ();
}

/* ---- box-blur ----------------------------------------------------------- */

#define CO_BLUR_THREADS 256
#define CO_BLUR_ROWS 64

/* A component at @p: 8-bit, 16-bit LE with a 2-byte load (AL: 2-aligned),
 * or 16-bit LE byte by byte. */
template < int CB, bool AL > __device__ __forceinline__ uint32_t
ld_comp (const uint8_t * p)
{
  if (CB == 1)
    return *p;
  if (AL)
    return *(const uint16_t *) p;
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8);
}

/* A component's value: the sample itself, or (BITS: samples with padding
 * bits) (sample >> shift) & M. */
template < int CB, bool AL, bool BITS > __device__ __forceinline__ uint32_t
ld_val (const uint8_t * p, const CoPlaneBand & b)
{
  const uint32_t v = ld_comp < CB, AL > (p);

  if (BITS)
    return (v >> b.shift) & ((1u << b.bits) - 1);
  return v;
}

template < int CB, bool AL > __device__ __forceinline__ void
st_comp (uint8_t * p, uint32_t v)
{
  if (CB == 1) {
    *p = (uint8_t) v;
  } else if (AL) {
    *(uint16_t *) p = (uint16_t) v;
  } else {
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8);
  }
}

/* Box-blur of one plane band, C components per pixel.
 *
 * Block (bx, by) computes output pixels x in [bx * TW, bx * TW + TW),
 * TW = 256 / C, of output rows [y0 + by * th, min (+ th, y1)).  Thread t
 * owns output element t = xl * C + c (xl < TW, t < TW * C <= 256).
 *
 * The block keeps in shared memory, for the NE = (TW + 2r) * C input
 * elements e = j * C + c of the input columns px = clamp (bx0 - r + j, 0,
 * w - 1), the vertical sum
 *   V[e](y) = sum_{dy=-r}^{r} c(px, clamp (y + dy, 0, height - 1)),
 * all uint32.  V(first row) is summed directly; then
 *   V(y + 1) = V(y) + c(px, min (y + 1 + r, h - 1)) - c(px, max (y - r, 0)),
 * double-buffered, so one __syncthreads () per row; thread t updates the
 * elements t and t + 256 (NE <= 512), issuing the two loads of each before
 * it computes its output of row y.  The output is
 *   S = sum_{j=0}^{2r} V[(xl + j) * C + c],  c' = (S + n / 2) / n,
 * n = (2r + 1)^2, uint32 (the columns xl + j are px = x - r .. x + r, their
 * clamping is in V).  Input row y is read at src + (y - src_y0) * stride;
 * all rows read are clamp (y +- r) of output rows, inside [src_y0, src_y1)
 * by the band contract.  Unmasked components are copied from row y. */
/* The V elements e = tid + u * 256 (u = 0, 1; ne <= 512) of thread @tid:
 * used if e < ne and its component is masked; input column offset
 * ucol = (clamp (bx0 - r + e / C, 0, w - 1) * C + e % C) * CB. */
template < int C, int CB > __device__ __forceinline__ void
blur_v_elements (int tid, int bx0, int r, int w, int ne, uint32_t mask,
    bool (&uok)[2], int64_t (&ucol)[2])
{
#pragma unroll
  for (int u = 0; u < 2; u++) {
    const int e = tid + u * CO_BLUR_THREADS;
    const int c = e % C;
    const int px = min (max (bx0 - r + e / C, 0), w - 1);

    uok[u] = e < ne && ((mask >> c) & 1);
    ucol[u] = ((int64_t) px * C + c) * CB;
  }
}

/* V of output row @by0, summed directly into @v:
 *   V[e](by0) = sum_{dy=-r}^{r} c(px, clamp (by0 + dy, 0, h - 1)). */
template < int CB, bool AL, bool BITS > __device__ __forceinline__ void
blur_v_first (const CoPlaneBand & b, int r, int tid, int by0,
    const bool (&uok)[2], const int64_t (&ucol)[2], uint32_t * v)
{
  const int h = b.height;

#pragma unroll
  for (int u = 0; u < 2; u++) {
    if (uok[u]) {
      uint32_t acc = 0;

      for (int dy = -r; dy <= r; dy++) {
        const int ry = min (max (by0 + dy, 0), h - 1);
        acc += ld_val < CB, AL, BITS > (b.src + (int64_t) (ry - b.src_y0)
            * b.src_stride + ucol[u], b);
      }
      v[tid + u * CO_BLUR_THREADS] = acc;
    }
  }
}

/* The loads for V(y + 1): entering row min (y + 1 + r, h - 1) into @va,
 * leaving row max (y - r, 0) into @vl. */
template < int CB, bool AL, bool BITS > __device__ __forceinline__ void
blur_v_loads (const CoPlaneBand & b, int r, int y, const bool (&uok)[2],
    const int64_t (&ucol)[2], uint32_t (&va)[2], uint32_t (&vl)[2])
{
  const int h = b.height;
  const int ya = min (y + 1 + r, h - 1), yl = max (y - r, 0);
  const uint8_t *sa = b.src + (int64_t) (ya - b.src_y0) * b.src_stride;
  const uint8_t *sl = b.src + (int64_t) (yl - b.src_y0) * b.src_stride;

#pragma unroll
  for (int u = 0; u < 2; u++) {
    if (uok[u]) {
      va[u] = ld_val < CB, AL, BITS > (sa + ucol[u], b);
      vl[u] = ld_val < CB, AL, BITS > (sl + ucol[u], b);
    }
  }
}

/* This thread's output element of row @y: c' = (S + half) / n with
 *   S = sum_{j=0}^{2r} vc[(xl + j) * C + oc]
 * (BITS: c' << shift) if its component is masked (@om), else c copied from
 * input row y. */
template < int C, int CB, bool AL, bool BITS > __device__ __forceinline__ void
blur_out (const CoPlaneBand & b, int r, int y, int tid, bool om,
    int64_t ocol, uint32_t n, uint32_t half, const uint32_t * vc)
{
  uint32_t o;

  if (om) {
    uint32_t s = 0;

    /* vc[(xl + j) * C + oc], j = 0 .. 2r */
#pragma unroll 4
    for (int j = 0; j <= 2 * r; j++)
      s += vc[tid + j * C];
    o = (s + half) / n;
    if (BITS)
      o <<= b.shift;
  } else {
    o = ld_comp < CB, AL > (b.src + (int64_t) (y - b.src_y0)
        * b.src_stride + ocol);
  }
  st_comp < CB, AL > (b.dst + (int64_t) (y - b.y0) * b.dst_stride
      + ocol, o);
}

/* V(y + 1) = V(y) + entering - leaving, from @vc into @vn. */
__device__ __forceinline__ void
blur_v_step (int tid, const bool (&uok)[2], const uint32_t (&va)[2],
    const uint32_t (&vl)[2], const uint32_t * vc, uint32_t * vn)
{
#pragma unroll
  for (int u = 0; u < 2; u++) {
    const int e = tid + u * CO_BLUR_THREADS;

    if (uok[u])
      vn[e] = vc[e] + va[u] - vl[u];
  }
}

/* Box-blur of one plane band, C components per pixel.
 *
 * Block (bx, by) computes output pixels x in [bx * TW, bx * TW + TW),
 * TW = 256 / C, of output rows [y0 + by * th, min (+ th, y1)).  Thread t
 * owns output element t = xl * C + c (xl < TW, t < TW * C <= 256).
 *
 * The block keeps in shared memory, for the NE = (TW + 2r) * C input
 * elements e = j * C + c of the input columns px = clamp (bx0 - r + j, 0,
 * w - 1), the vertical sum
 *   V[e](y) = sum_{dy=-r}^{r} c(px, clamp (y + dy, 0, height - 1)),
 * all uint32.  V(first row) is summed directly; then
 *   V(y + 1) = V(y) + c(px, min (y + 1 + r, h - 1)) - c(px, max (y - r, 0)),
 * double-buffered, so one __syncthreads () per row; thread t updates the
 * elements t and t + 256 (NE <= 512), issuing the two loads of each before
 * it computes its output of row y.  The output is
 *   S = sum_{j=0}^{2r} V[(xl + j) * C + c],  c' = (S + n / 2) / n,
 * n = (2r + 1)^2, uint32 (the columns xl + j are px = x - r .. x + r, their
 * clamping is in V).  Input row y is read at src + (y - src_y0) * stride;
 * all rows read are clamp (y +- r) of output rows, inside [src_y0, src_y1)
 * by the band contract.  Unmasked components are copied from row y.
 * BITS (samples with padding bits): the sums are of the values
 * (s >> shift) & M, the output c' << shift.
 *
 * The helpers above hold no __syncthreads (); both of the kernel's are
 * here, reached by every thread of the block. */
template < int C, int CB, bool AL, bool BITS > __global__ void
__launch_bounds__ (CO_BLUR_THREADS)
co_blur_kernel (CoPlaneBand b, int r, int th)
{
  b.src += (int64_t) blockIdx.z * b.src_image_stride;
  b.dst += (int64_t) blockIdx.z * b.dst_image_stride;
  constexpr int TW = CO_BLUR_THREADS / C;
  constexpr int OE = TW * C;
  constexpr int VMAX = (TW + 2 * CO_BLUR_MAX_RADIUS) * C;
  static_assert (VMAX <= 2 * CO_BLUR_THREADS, "two V elements per thread");
  __shared__ uint32_t vs[2][VMAX];

  const int tid = threadIdx.x;
  const int w = b.width;
  const int ne = (TW + 2 * r) * C;
  const int bx0 = blockIdx.x * TW;
  const int by0 = b.y0 + blockIdx.y * th;
  const int by1 = min (by0 + th, b.y1);
  const uint32_t n = (uint32_t) (2 * r + 1) * (uint32_t) (2 * r + 1);
  const uint32_t half = n / 2;
  const uint32_t mask = b.comp_mask;

  bool uok[2];
  int64_t ucol[2];
  blur_v_elements < C, CB > (tid, bx0, r, w, ne, mask, uok, ucol);

  /* V for the block's first output row */
  blur_v_first < CB, AL, BITS > (b, r, tid, by0, uok, ucol, vs[0]);
  __syncthreads ();

  const int xl = tid / C, oc = tid % C;
  const int x = bx0 + xl;
  const bool out_ok = tid < OE && x < w;
  const bool om = (mask >> oc) & 1;
  const int64_t ocol = ((int64_t) x * C + oc) * CB;

  for (int y = by0, i = 0; y < by1; y++, i++) {
    const uint32_t *vc = vs[i & 1];
    const bool more = y + 1 < by1;
    uint32_t va[2] = { 0, 0 }, vl[2] = { 0, 0 };

    /* loads for V(y + 1) first, their latency hidden by the sum below */
    if (more)
      blur_v_loads < CB, AL, BITS > (b, r, y, uok, ucol, va, vl);

    if (out_ok)
      blur_out < C, CB, AL, BITS > (b, r, y, tid, om, ocol, n, half, vc);

    if (more)
      blur_v_step (tid, uok, va, vl, vc, vs[(i & 1) ^ 1]);
    __syncthreads ();
  }
}

template < int C > static void
launch_blur_c (const CoPlaneBand & b, int r, int th, dim3 grid,
    cudaStream_t st, bool al2)
{
  const bool bits = co_band_has_padding (&b);

  if (b.comp_bytes == 1)
    co_blur_kernel < C, 1, false, false > <<<grid, CO_BLUR_THREADS, 0,
        st>>> (b, r, th);
  else if (al2 && bits)
    co_blur_kernel < C, 2, true, true > <<<grid, CO_BLUR_THREADS, 0,
        st>>> (b, r, th);
  else if (al2)
    co_blur_kernel < C, 2, true, false > <<<grid, CO_BLUR_THREADS, 0,
        st>>> (b, r, th);
  else if (bits)
    co_blur_kernel < C, 2, false, true > <<<grid, CO_BLUR_THREADS, 0,
        st>>> (b, r, th);
  else
    co_blur_kernel < C, 2, false, false > <<<grid, CO_BLUR_THREADS, 0,
        st>>> (b, r, th);
}

/* The blur's grid for band @b, @gx blocks across a row: @th rows a block,
 * fewer for small bands (to fill the GPU), an image a grid layer. */
static dim3
blur_grid (const CoPlaneBand * b, int64_t gx, int *th)
{
  const int rows = b->y1 - b->y0;
  int t = CO_BLUR_ROWS;

  while (t > 8 && gx * ((rows + t - 1) / t) < 1024)
    t /= 2;
  if ((rows + t - 1) / t > 65535)
    t = (rows + 65534) / 65535;
  *th = t;
  return dim3 ((unsigned) gx, (unsigned) ((rows + t - 1) / t),
      (unsigned) (b->n_images > 1 ? b->n_images : 1));
}

/* The low bits of every address and stride a blur reads or writes by. */
static uintptr_t
blur_align (const CoPlaneBand * b)
{
  return (uintptr_t) b->src | (uintptr_t) b->dst | (uintptr_t) b->src_stride
      | (uintptr_t) b->dst_stride | (uintptr_t) b->src_image_stride
      | (uintptr_t) b->dst_image_stride;
}

static int
launch_blur (const CoPlaneBand * b, int r, cudaStream_t st)
{
  const int rows = b->y1 - b->y0;

  if (rows <= 0 || b->width <= 0)
    return 0;
  if (r == 0 || b->comp_mask == 0)
    return launch_pointwise (b, CO_PW_XOR, false, NULL, st);

  const int tw = CO_BLUR_THREADS / b->comps;
  int th;
  const dim3 grid = blur_grid (b, (b->width + tw - 1) / tw, &th);
  const bool al2 = (blur_align (b) & 1) == 0;

  switch (b->comps) {
    case 1:
      launch_blur_c < 1 > (*b, r, th, grid, st, al2);
      break;
    case 2:
      launch_blur_c < 2 > (*b, r, th, grid, st, al2);
      break;
    case 3:
      launch_blur_c < 3 > (*b, r, th, grid, st, al2);
      break;
    default:
      launch_blur_c < 4 > (*b, r, th, grid, st, al2);
      break;
  }
  return (int) cudaGetLastError ();
}

/* ---- packed planes (CoPacking) ------------------------------------------ */

/* A packed row is whole 32-bit little-endian words: a 4:2:2 pair (Y0 U Y1 V
 * or U Y0 V Y1) or a 10:10:10:2 pixel (components at bits 0, 10, 20, alpha
 * at 30).  Point-wise: a word's components are lanes of 8 or 10 bits. */

enum
{
  CO_PK_XOR = 0,                /* invert (mask 0: copy) */
  CO_PK_LUT8 = 1,               /* gamma on 8-bit lanes (4:2:2 luma) */
  CO_PK_LUT10 = 2,              /* gamma on 10-bit lanes */
};

/* The 32-bit little-endian word at @p: one access where 4-aligned (AL). */
template < bool AL > __device__ __forceinline__ uint32_t
ld_word (const uint8_t * p)
{
  if (AL)
    return *(const uint32_t *) p;
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16)
      | ((uint32_t) p[3] << 24);
}

template < bool AL > __device__ __forceinline__ void
st_word (uint8_t * p, uint32_t v)
{
  if (AL) {
    *(uint32_t *) p = v;
  } else {
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8);
    p[2] = (uint8_t) (v >> 16);
    p[3] = (uint8_t) (v >> 24);
  }
}

/* XOR: v ^ m; LUT8, LUT10: lut[c] on each 8- or 10-bit lane whose bits
 * are in @m, the other bits of v kept. */
template < int MODE > __device__ __forceinline__ uint32_t
pk_word (uint32_t v, uint32_t m, const uint16_t * lut)
{
  if (MODE == CO_PK_XOR)
    return v ^ m;
  constexpr int L = MODE == CO_PK_LUT8 ? 8 : 10;
  constexpr uint32_t lm = (1u << L) - 1;
#pragma unroll
  for (int sh = 0; sh + L <= 32; sh += L)
    if ((m >> sh) & lm)
      v = (v & ~(lm << sh)) | ((uint32_t) lut[(v >> sh) & lm] << sh);
  return v;
}

/* The @nk < 4 words at the end of a row, one by one. */
template < int A, int MODE > __device__ __forceinline__ void
pk_tail (const uint8_t * s, uint8_t * d, int nk, const uint32_t m[4],
    const uint16_t * lut)
{
  for (int j = 0; j < nk; j++)
    st_word < A >= 4 > (d + 4 * j, pk_word < MODE > (ld_word < A >= 4 >
            (s + 4 * j), m[j], lut));
}

/* Point-wise op on a packed plane band of @nw words a row: thread
 * (kx, ky) handles words [4 k, 4 k + 4) of a row (16 bytes, one access
 * where A = 16), k = blockIdx.x * blockDim.x + threadIdx.x, the last < 4
 * words of a row one by one, for the rows y0 + yt + i * ystep, two rows at
 * a time.  Word j of a row goes through pk_word with mask @m, the row's
 * last word with @mlast (without an odd width's padding luma sample).  The
 * LUT (256 or 1024 entries) is copied into shared memory. */
template < int A, int MODE > __global__ void __launch_bounds__ (CO_PW_THREADS)
co_packed_pw_kernel (CoPlaneBand b, int64_t nw, uint32_t m, uint32_t mlast,
    const uint16_t * lut)
{
  constexpr int NL = MODE == CO_PK_LUT10 ? 1024 : 256;
  __shared__ uint16_t s_lut[NL];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;

  b.src += (int64_t) blockIdx.z * b.src_image_stride;
  b.dst += (int64_t) blockIdx.z * b.dst_image_stride;
  if (MODE != CO_PK_XOR) {
    lut += (int64_t) blockIdx.z * b.lut_image_stride;
    for (int i = tid; i < NL; i += blockDim.x * blockDim.y)
      s_lut[i] = lut[i];
    __syncthreads ();
  }

  const int64_t k0 = ((int64_t) blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (k0 >= nw)
    return;
  const int nk = (int) min ((int64_t) 4, nw - k0);
  const int rows = b.y1 - b.y0, src_dy = b.y0 - b.src_y0;
  const int ystep = gridDim.y * blockDim.y;
  uint32_t mk[4];

#pragma unroll
  for (int j = 0; j < 4; j++)
    mk[j] = k0 + j == nw - 1 ? mlast : m;

  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < rows;
      y += 2 * ystep) {
    const bool two = y + ystep < rows;
    const uint8_t *s = b.src + (int64_t) (src_dy + y) * b.src_stride + 4 * k0;
    uint8_t *d = b.dst + (int64_t) y * b.dst_stride + 4 * k0;
    const uint8_t *s2 = s + (int64_t) ystep * b.src_stride;
    uint8_t *d2 = d + (int64_t) ystep * b.dst_stride;

    if (nk == 4) {
      uint32_t w[4], w2[4];

      load16 < A > (s, w);
      if (two)
        load16 < A > (s2, w2);
#pragma unroll
      for (int j = 0; j < 4; j++)
        w[j] = pk_word < MODE > (w[j], mk[j], s_lut);
      store16 < A > (d, w);
      if (two) {
#pragma unroll
        for (int j = 0; j < 4; j++)
          w2[j] = pk_word < MODE > (w2[j], mk[j], s_lut);
        store16 < A > (d2, w2);
      }
    } else {
      pk_tail < A, MODE > (s, d, nk, mk, s_lut);
      if (two)
        pk_tail < A, MODE > (s2, d2, nk, mk, s_lut);
    }
  }
}

template < int MODE > static void
launch_pk_mode (int a, dim3 grid, dim3 block, cudaStream_t st,
    const CoPlaneBand & b, int64_t nw, uint32_t m, uint32_t mlast,
    const uint16_t * lut)
{
  if (a == 16)
    co_packed_pw_kernel < 16, MODE > <<<grid, block, 0, st>>> (b, nw, m,
        mlast, lut);
  else if (a == 4)
    co_packed_pw_kernel < 4, MODE > <<<grid, block, 0, st>>> (b, nw, m,
        mlast, lut);
  else
    co_packed_pw_kernel < 1, MODE > <<<grid, block, 0, st>>> (b, nw, m,
        mlast, lut);
}

/* The 4:2:2 luma component: 0 for YUYV, 1 for UYVY. */
static int
packed_luma_comp (const CoPlaneBand * b)
{
  return b->packing == CO_PACK_422_UYVY;
}

/* The bits of a word that hold the components of @mask (comp_mask's
 * bits; 10:10:10:2's alpha never). */
static uint32_t
packed_bits (const CoPlaneBand * b, uint32_t mask)
{
  if (b->packing == CO_PACK_10_10_10_2)
    return ((mask & 1) ? 0x3ffu : 0) | ((mask & 2) ? 0x3ffu << 10 : 0)
        | ((mask & 4) ? 0x3ffu << 20 : 0);
  const int lc = packed_luma_comp (b);
  const uint32_t luma = lc ? 0xff00ff00u : 0x00ff00ffu;
  return (((mask >> lc) & 1) ? luma : 0) | (((mask >> (1 - lc)) & 1) ?
      ~luma : 0);
}

/* invert: XOR with the changed components' bits; gamma: the LUT on the
 * luma lanes (4:2:2) or the changed components (10:10:10:2); else a copy
 * (mask 0).  The last word of an odd-width 4:2:2 row keeps its padding
 * luma byte. */
static int
launch_packed_pointwise (const CoPlaneBand * b, CoVideoOp op,
    const uint16_t * lut, cudaStream_t st)
{
  const int rows = b->y1 - b->y0;
  const int64_t nw = co_plane_row_bytes (b->width, b->comps, b->comp_bytes,
      b->packing) / 4;
  const bool ten = b->packing == CO_PACK_10_10_10_2;
  uint32_t m = 0, pad = 0;
  int mode = CO_PK_XOR;

  if (rows <= 0 || nw <= 0)
    return 0;
  if (op == CO_VIDEO_OP_INVERT) {
    m = packed_bits (b, b->comp_mask);
  } else if (op == CO_VIDEO_OP_GAMMA && b->use_lut) {
    m = packed_bits (b, ten ? b->comp_mask : b->comp_mask & (1u <<
            packed_luma_comp (b)));
    mode = ten ? CO_PK_LUT10 : CO_PK_LUT8;
  }
  if (!ten && (b->width & 1))
    pad = b->packing == CO_PACK_422_YUYV ? 0x00ff0000u : 0xff000000u;

  int a;
  dim3 grid, block;

  if (!pw_geometry (b, (nw + 3) / 4, &a, &grid, &block))
    return (int) cudaErrorInvalidValue;
  if (mode == CO_PK_LUT8)
    launch_pk_mode < CO_PK_LUT8 > (a, grid, block, st, *b, nw, m, m & ~pad,
        lut);
  else if (mode == CO_PK_LUT10)
    launch_pk_mode < CO_PK_LUT10 > (a, grid, block, st, *b, nw, m, m & ~pad,
        lut);
  else
    launch_pk_mode < CO_PK_XOR > (a, grid, block, st, *b, nw, m, m & ~pad,
        lut);
  return (int) cudaGetLastError ();
}

/* Box-blur of packed planes: a block computes the output words
 * [bx0, bx0 + 256) (thread t: word bx0 + t) of the output rows
 * [y0 + by * th, min (+ th, y1)), and keeps, double-buffered in shared
 * memory, the vertical sums V(y) = sum_{dy=-r}^{r} c(clamp (y + dy, 0,
 * height - 1)) of every sample of each grid that its outputs' windows
 * reach, sample positions clamped to the grid as in co_blur_kernel; then
 * V(y + 1) = V(y) + c(min (y + 1 + r, h - 1)) - c(max (y - r, 0)), the
 * loads issued before the output of row y is summed.  The output of a
 * sample is S = the sum of the 2r + 1 V's of its window,
 * c' = (S + n / 2) / n, n = (2r + 1)^2, uint32; what no grid holds
 * (alpha, the padding luma sample) and unchanged components are copied
 * from input row y.  Input row y is read at src + (y - src_y0) * stride.
 * Both __syncthreads () are reached by every thread of the block. */
#define CO_PK_TW CO_BLUR_THREADS
#define CO_PK_NE (CO_PK_TW + 2 * CO_BLUR_MAX_RADIUS)
#define CO_PK_NL (2 * CO_PK_TW + 2 * CO_BLUR_MAX_RADIUS)

__device__ __forceinline__ const uint8_t *
pk_src_row (const CoPlaneBand & b, int y)
{
  return b.src + (int64_t) (y - b.src_y0) * b.src_stride;
}

/* 10:10:10:2: one grid of pixels, three components a word; V[f][j] for
 * the pixels clamp (bx0 - r + j, 0, w - 1), j < 256 + 2r (thread t: j = t
 * and t + 256), the three components of one word load each. */
template < bool AL > __global__ void __launch_bounds__ (CO_BLUR_THREADS)
co_blur1010102_kernel (CoPlaneBand b, int r, int th)
{
  __shared__ uint32_t vs[2][3][CO_PK_NE];
  b.src += (int64_t) blockIdx.z * b.src_image_stride;
  b.dst += (int64_t) blockIdx.z * b.dst_image_stride;
  const int tid = threadIdx.x, w = b.width, h = b.height;
  const int ne = CO_PK_TW + 2 * r, bx0 = blockIdx.x * CO_PK_TW;
  const int by0 = b.y0 + blockIdx.y * th, by1 = min (by0 + th, b.y1);
  const uint32_t n = (uint32_t) (2 * r + 1) * (uint32_t) (2 * r + 1);
  const uint32_t half = n / 2, fm = b.comp_mask & 7;
  bool uok[2];
  int64_t ucol[2];

#pragma unroll
  for (int u = 0; u < 2; u++) {
    const int e = tid + u * CO_BLUR_THREADS;

    uok[u] = e < ne;
    ucol[u] = (int64_t) min (max (bx0 - r + e, 0), w - 1) * 4;
    if (uok[u]) {
      uint32_t acc[3] = { 0, 0, 0 };

      for (int dy = -r; dy <= r; dy++) {
        const uint32_t v = ld_word < AL > (pk_src_row (b, min (max (by0 + dy,
                        0), h - 1)) + ucol[u]);
#pragma unroll
        for (int f = 0; f < 3; f++)
          acc[f] += (v >> (10 * f)) & 0x3ffu;
      }
#pragma unroll
      for (int f = 0; f < 3; f++)
        vs[0][f][e] = acc[f];
    }
  }
  __syncthreads ();

  const int x = bx0 + tid;
  const int64_t ocol = (int64_t) x * 4;

  for (int y = by0, i = 0; y < by1; y++, i++) {
    uint32_t (*vc)[CO_PK_NE] = vs[i & 1], (*vn)[CO_PK_NE] = vs[(i & 1) ^ 1];
    const bool more = y + 1 < by1;
    uint32_t va[2] = { 0, 0 }, vl[2] = { 0, 0 };

    if (more) {
      const uint8_t *sa = pk_src_row (b, min (y + 1 + r, h - 1));
      const uint8_t *sl = pk_src_row (b, max (y - r, 0));
#pragma unroll
      for (int u = 0; u < 2; u++)
        if (uok[u]) {
          va[u] = ld_word < AL > (sa + ucol[u]);
          vl[u] = ld_word < AL > (sl + ucol[u]);
        }
    }
    if (x < w) {
      uint32_t o = ld_word < AL > (pk_src_row (b, y) + ocol);
#pragma unroll
      for (int f = 0; f < 3; f++) {
        if ((fm >> f) & 1) {
          uint32_t s = 0;
#pragma unroll 4
          for (int j = 0; j <= 2 * r; j++)
            s += vc[f][tid + j];
          o = (o & ~(0x3ffu << (10 * f))) | (((s + half) / n) << (10 * f));
        }
      }
      st_word < AL > (b.dst + (int64_t) (y - b.y0) * b.dst_stride + ocol, o);
    }
    if (more) {
#pragma unroll
      for (int u = 0; u < 2; u++) {
        const int e = tid + u * CO_BLUR_THREADS;
        if (uok[u])
#pragma unroll
          for (int f = 0; f < 3; f++)
            vn[f][e] = vc[f][e] + ((va[u] >> (10 * f)) & 0x3ffu)
                - ((vl[u] >> (10 * f)) & 0x3ffu);
      }
    }
    __syncthreads ();
  }
}

/* 4:2:2, luma component LC (luma sample x at byte 2x + LC, U and V of pair
 * k at bytes 4k + 1 - LC and 4k + 3 - LC).  Luma grid: VL[j] for the
 * samples clamp (2 bx0 - r + j, 0, w - 1), j < 512 + 2r (thread t: t,
 * t + 256, t + 512); chroma: VU[j], VV[j] for the pairs
 * clamp (bx0 - r + j, 0, ceil (w / 2) - 1), j < 256 + 2r (t, t + 256).
 * Thread t's pair k: luma 2k from VL[2t .. 2t + 2r], 2k + 1 from the same
 * sum moved by one sample (unless 2k + 1 = w: the padding sample,
 * copied), U and V from VU, VV[t .. t + 2r]. */
struct Pk422Cols
{
  bool lok[3], cok[2];          /* the entry is used: in range, changed */
  int64_t lcol[3], ccol[2];     /* its byte (luma), its pair's (chroma) */
};

/* The loads of V(y + 1): entering row (a), leaving row (l). */
struct Pk422Loads
{
  uint32_t la[3], ll[3], ua[2], ul[2], va[2], vl[2];
};

template < int LC > __device__ __forceinline__ void
blur422_cols (int tid, int bx0, int r, int w, bool ly, bool ch, Pk422Cols & c)
{
  const int np = (w + 1) / 2;

#pragma unroll
  for (int u = 0; u < 3; u++) {
    const int e = tid + u * CO_BLUR_THREADS;

    c.lok[u] = ly && e < 2 * CO_PK_TW + 2 * r;
    c.lcol[u] = (int64_t) min (max (2 * bx0 - r + e, 0), w - 1) * 2 + LC;
  }
#pragma unroll
  for (int u = 0; u < 2; u++) {
    const int e = tid + u * CO_BLUR_THREADS;

    c.cok[u] = ch && e < CO_PK_TW + 2 * r;
    c.ccol[u] = (int64_t) min (max (bx0 - r + e, 0), np - 1) * 4;
  }
}

/* The U and V bytes of the 4:2:2 pair at @p (luma component LC). */
template < int LC, bool AL > __device__ __forceinline__ void
ld_uv (const uint8_t * p, uint32_t & u, uint32_t & v)
{
  if (AL) {
    const uint32_t q = *(const uint32_t *) p;
    u = (q >> (8 * (1 - LC))) & 0xffu;
    v = (q >> (8 * (3 - LC))) & 0xffu;
  } else {
    u = p[1 - LC];
    v = p[3 - LC];
  }
}

/* V of output row @by0, summed directly into @vl, @vc. */
template < int LC, bool AL > __device__ __forceinline__ void
blur422_first (const CoPlaneBand & b, int r, int tid, int by0,
    const Pk422Cols & c, uint32_t * vl, uint32_t (*vc)[CO_PK_NE])
{
  const int h = b.height;

#pragma unroll
  for (int u = 0; u < 3; u++) {
    if (c.lok[u]) {
      uint32_t acc = 0;
      for (int dy = -r; dy <= r; dy++)
        acc += pk_src_row (b, min (max (by0 + dy, 0), h - 1))[c.lcol[u]];
      vl[tid + u * CO_BLUR_THREADS] = acc;
    }
  }
#pragma unroll
  for (int u = 0; u < 2; u++) {
    if (c.cok[u]) {
      uint32_t au = 0, av = 0, cu, cv;
      for (int dy = -r; dy <= r; dy++) {
        ld_uv < LC, AL > (pk_src_row (b, min (max (by0 + dy, 0), h - 1))
            + c.ccol[u], cu, cv);
        au += cu;
        av += cv;
      }
      vc[0][tid + u * CO_BLUR_THREADS] = au;
      vc[1][tid + u * CO_BLUR_THREADS] = av;
    }
  }
}

/* The loads for V(y + 1): entering row min (y + 1 + r, h - 1), leaving
 * row max (y - r, 0). */
template < int LC, bool AL > __device__ __forceinline__ void
blur422_loads (const CoPlaneBand & b, int r, int y, const Pk422Cols & c,
    Pk422Loads & l)
{
  const uint8_t *sa = pk_src_row (b, min (y + 1 + r, b.height - 1));
  const uint8_t *sl = pk_src_row (b, max (y - r, 0));

#pragma unroll
  for (int u = 0; u < 3; u++)
    if (c.lok[u]) {
      l.la[u] = sa[c.lcol[u]];
      l.ll[u] = sl[c.lcol[u]];
    }
#pragma unroll
  for (int u = 0; u < 2; u++)
    if (c.cok[u]) {
      ld_uv < LC, AL > (sa + c.ccol[u], l.ua[u], l.va[u]);
      ld_uv < LC, AL > (sl + c.ccol[u], l.ul[u], l.vl[u]);
    }
}

/* Pair @k (thread @tid) of output row @y: the input word with its changed
 * samples replaced, c' = (S + half) / n. */
template < int LC, bool AL > __device__ __forceinline__ void
blur422_out (const CoPlaneBand & b, int r, int y, int tid, int k, bool ly,
    bool ch, uint32_t n, uint32_t half, const uint32_t * vl,
    const uint32_t (*vc)[CO_PK_NE])
{
  uint32_t o = ld_word < AL > (pk_src_row (b, y) + (int64_t) k * 4);

  if (ly) {
    uint32_t s = 0;
#pragma unroll 4
    for (int j = 0; j <= 2 * r; j++)
      s += vl[2 * tid + j];
    o = (o & ~(0xffu << (8 * LC))) | (((s + half) / n) << (8 * LC));
    if (2 * k + 1 < b.width) {
      s = s - vl[2 * tid] + vl[2 * tid + 2 * r + 1];
      o = (o & ~(0xffu << (8 * (2 + LC)))) | (((s + half) / n)
          << (8 * (2 + LC)));
    }
  }
  if (ch) {
    uint32_t su = 0, sv = 0;
#pragma unroll 4
    for (int j = 0; j <= 2 * r; j++) {
      su += vc[0][tid + j];
      sv += vc[1][tid + j];
    }
    o = (o & ~((0xffu << (8 * (1 - LC))) | (0xffu << (8 * (3 - LC)))))
        | (((su + half) / n) << (8 * (1 - LC)))
        | (((sv + half) / n) << (8 * (3 - LC)));
  }
  st_word < AL > (b.dst + (int64_t) (y - b.y0) * b.dst_stride
      + (int64_t) k * 4, o);
}

/* V(y + 1) = V(y) + entering - leaving, from @vl, @vc into @vln, @vcn. */
__device__ __forceinline__ void
blur422_step (int tid, const Pk422Cols & c, const Pk422Loads & l,
    const uint32_t * vl, const uint32_t (*vc)[CO_PK_NE], uint32_t * vln,
    uint32_t (*vcn)[CO_PK_NE])
{
#pragma unroll
  for (int u = 0; u < 3; u++)
    if (c.lok[u]) {
      const int e = tid + u * CO_BLUR_THREADS;
      vln[e] = vl[e] + l.la[u] - l.ll[u];
    }
#pragma unroll
  for (int u = 0; u < 2; u++)
    if (c.cok[u]) {
      const int e = tid + u * CO_BLUR_THREADS;
      vcn[0][e] = vc[0][e] + l.ua[u] - l.ul[u];
      vcn[1][e] = vc[1][e] + l.va[u] - l.vl[u];
    }
}

/* The helpers above hold no __syncthreads (); both of the kernel's are
 * here, reached by every thread of the block. */
template < int LC, bool AL > __global__ void
__launch_bounds__ (CO_BLUR_THREADS)
co_blur422_kernel (CoPlaneBand b, int r, int th)
{
  __shared__ uint32_t vls[2][CO_PK_NL];
  __shared__ uint32_t vcs[2][2][CO_PK_NE];
  b.src += (int64_t) blockIdx.z * b.src_image_stride;
  b.dst += (int64_t) blockIdx.z * b.dst_image_stride;
  const int tid = threadIdx.x, np = (b.width + 1) / 2;
  const int bx0 = blockIdx.x * CO_PK_TW, k = bx0 + tid;
  const int by0 = b.y0 + blockIdx.y * th, by1 = min (by0 + th, b.y1);
  const uint32_t n = (uint32_t) (2 * r + 1) * (uint32_t) (2 * r + 1);
  const bool ly = (b.comp_mask >> LC) & 1, ch = (b.comp_mask >> (1 - LC)) & 1;
  Pk422Cols c;

  blur422_cols < LC > (tid, bx0, r, b.width, ly, ch, c);
  blur422_first < LC, AL > (b, r, tid, by0, c, vls[0], vcs[0]);
  __syncthreads ();

  for (int y = by0, i = 0; y < by1; y++, i++) {
    const int cur = i & 1;
    Pk422Loads l = { };

    /* loads for V(y + 1) first, their latency hidden by the sums */
    if (y + 1 < by1)
      blur422_loads < LC, AL > (b, r, y, c, l);
    if (k < np)
      blur422_out < LC, AL > (b, r, y, tid, k, ly, ch, n, n / 2, vls[cur],
          vcs[cur]);
    if (y + 1 < by1)
      blur422_step (tid, c, l, vls[cur], vcs[cur], vls[cur ^ 1],
          vcs[cur ^ 1]);
    __syncthreads ();
  }
}

static int
launch_packed_blur (const CoPlaneBand * b, int r, cudaStream_t st)
{
  const int rows = b->y1 - b->y0;
  const int64_t nw = co_plane_row_bytes (b->width, b->comps, b->comp_bytes,
      b->packing) / 4;

  if (rows <= 0 || nw <= 0)
    return 0;
  if (r == 0 || packed_bits (b, b->comp_mask) == 0)
    return launch_packed_pointwise (b, CO_VIDEO_OP_BOX_BLUR, NULL, st);

  int th;
  const dim3 grid = blur_grid (b, (nw + CO_PK_TW - 1) / CO_PK_TW, &th);
  const bool al4 = (blur_align (b) & 3) == 0;

  if (b->packing == CO_PACK_10_10_10_2) {
    if (al4)
      co_blur1010102_kernel < true > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b,
          r, th);
    else
      co_blur1010102_kernel < false > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b,
          r, th);
  } else if (b->packing == CO_PACK_422_YUYV) {
    if (al4)
      co_blur422_kernel < 0, true > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b, r,
          th);
    else
      co_blur422_kernel < 0, false > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b, r,
          th);
  } else {
    if (al4)
      co_blur422_kernel < 1, true > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b, r,
          th);
    else
      co_blur422_kernel < 1, false > <<<grid, CO_BLUR_THREADS, 0, st>>> (*b, r,
          th);
  }
  return (int) cudaGetLastError ();
}

/* One band of a packed plane: checked, then its operation. */
static int
launch_packed (const CoVideoParams * p, const CoPlaneBand * b,
    cudaStream_t st)
{
  const bool is422 = b->packing == CO_PACK_422_YUYV
      || b->packing == CO_PACK_422_UYVY;

  if (b->width <= 0 || b->height <= 0 || b->comp_bytes != 1 || b->shift != 0
      || !(is422 ? b->comps == 2 && b->bits == 0 : b->packing ==
          CO_PACK_10_10_10_2 && b->comps == 4 && b->bits == 10))
    return (int) cudaErrorInvalidValue;
  switch (p->op) {
    case CO_VIDEO_OP_INVERT:
    case CO_VIDEO_OP_GAMMA:
      return launch_packed_pointwise (b, p->op, p->lut, st);
    case CO_VIDEO_OP_BOX_BLUR:
      return launch_packed_blur (b, p->radius, st);
    default:
      return (int) cudaErrorInvalidValue;
  }
}

extern "C" int
co_video_launch_cuda (const CoVideoParams * p, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;

  if (p->n_planes < 0 || p->n_planes > CO_VIDEO_MAX_PLANES)
    return (int) cudaErrorInvalidValue;
  if (p->op == CO_VIDEO_OP_BOX_BLUR && (p->radius < 0
          || p->radius > CO_BLUR_MAX_RADIUS))
    return (int) cudaErrorInvalidValue;

  for (int i = 0; i < p->n_planes; i++) {
    const CoPlaneBand *b = &p->planes[i];
    int ret;

    if (b->y1 <= b->y0)
      continue;
    if (b->n_images < 0 || b->n_images > 65535)
      return (int) cudaErrorInvalidValue;
    if (b->packing != CO_PACK_NONE) {
      ret = launch_packed (p, b, st);
      if (ret != 0)
        return ret;
      continue;
    }
    if (b->width <= 0 || b->height <= 0 || b->comps < 1 || b->comps > 4
        || (b->comp_bytes != 1 && b->comp_bytes != 2)
        || !co_band_bits_valid (b) || b->packing != CO_PACK_NONE)
      return (int) cudaErrorInvalidValue;

    switch (p->op) {
      case CO_VIDEO_OP_INVERT:
        ret = launch_pointwise (b, CO_PW_XOR, true, NULL, st);
        break;
      case CO_VIDEO_OP_GAMMA:
        if (b->use_lut && b->comp_mask)
          ret = launch_pointwise (b, b->comp_bytes == 1 ? CO_PW_LUT8 :
              CO_PW_LUT16, true, p->lut, st);
        else
          ret = launch_pointwise (b, CO_PW_XOR, false, NULL, st);
        break;
      case CO_VIDEO_OP_BOX_BLUR:
        ret = launch_blur (b, p->radius, st);
        break;
      default:
        return (int) cudaErrorInvalidValue;
    }
    if (ret != 0)
      return ret;
  }
  return 0;
}

/* ---- audio -------------------------------------------------------------- */

#define CO_AUDIO_THREADS 256

/* int16 of a float rounded half to even, saturated; NaN gives 0 (as the
 * CPU backend). */
__device__ __forceinline__ int16_t
sat_s16 (float f)
{
  if (f != f)
    return 0;
  const int v = __float2int_rn (f);     /* saturates to the int32 range */
  return (int16_t) min (max (v, -32768), 32767);
}

/* Gain, one thread per sample (grid-stride), sample i of the chunk at
 * src[history * channels + i]:  F32: y = x * gain (__fmul_rn, one IEEE
 * single multiply);  S16: y = sat_s16 (__int2float_rn (x) * gain). */
template < bool S16 > __global__ void __launch_bounds__ (CO_AUDIO_THREADS)
co_gain_kernel (CoAudioParams p)
{
  const int64_t ns = p.frames * p.channels;
  const int64_t base = p.history * p.channels;

  for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < ns;
      i += (int64_t) gridDim.x * blockDim.x) {
    if (S16) {
      const float f = __fmul_rn (__int2float_rn (((const int16_t *) p.src)
              [base + i]), p.gain);
      ((int16_t *) p.dst)[i] = sat_s16 (f);
    } else {
      ((float *) p.dst)[i] = __fmul_rn (((const float *) p.src)[base + i],
          p.gain);
    }
  }
}

#define CO_FIR_THREADS 256
#define CO_FIR_R 7              /* consecutive frames per thread (odd: fewer
                                 * shared-memory bank conflicts) */
#define CO_FIR_KT 64            /* taps per shared-memory tile */
#define CO_FIR_MAX_CHANNELS 64
#define CO_FIR_XS (CO_FIR_THREADS * CO_FIR_R + (CO_FIR_KT - 1) * CO_FIR_MAX_CHANNELS)

/* FIR: y[n][ch] = sum_{k<T} taps[k] * X[history + n - k][ch], X = src frames.
 *
 * C channels, G = 256 / C frame groups per block, FB = G * R frames per
 * block: block b computes frames [n0, n0 + FB), n0 = b * FB; thread
 * t = g * C + ch (g < G) computes frames n0 + g * R + j, j < R, of channel
 * ch, accumulated in float with fmaf.  Taps go in tiles of KT: the tile
 * [k0, k0 + KT) uses X frames fbase + lf, fbase = history + n0 - k0 -
 * (KT - 1), lf in [0, FB + KT - 1), staged in shared memory as float
 * (S16 converted exactly; frames outside the src are stored as 0 and never
 * used with a valid tap).  With q = KT - 1 - (k - k0), output j needs
 * lf = g * R + j + q: a window of R registers slides by one frame per tap.
 * Only the kv = min (KT, T - k0) valid taps are used (q >= KT - kv).
 * S16 output: sat_s16 (sum). */
template < bool S16 > __global__ void __launch_bounds__ (CO_FIR_THREADS)
co_fir_kernel (CoAudioParams p)
{
  __shared__ float xs[CO_FIR_XS];
  __shared__ float ts[CO_FIR_KT];

  const int C = p.channels;
  const int G = CO_FIR_THREADS / C;
  const int FB = G * CO_FIR_R;
  const int64_t n0 = (int64_t) blockIdx.x * FB;
  const int tid = threadIdx.x;
  const int ch = tid % C, g = tid / C;
  const bool active = g < G;
  const int T = p.n_taps;
  const int64_t src_samples = (p.history + p.frames) * C;
  const int nl = (FB + CO_FIR_KT - 1) * C;
  float acc[CO_FIR_R];

#pragma unroll
  for (int j = 0; j < CO_FIR_R; j++)
    acc[j] = 0.0f;

  for (int k0 = 0; k0 < T; k0 += CO_FIR_KT) {
    const int kv = min (CO_FIR_KT, T - k0);
    const int qs = CO_FIR_KT - kv;
    const int64_t sbase = (p.history + n0 - k0 - (CO_FIR_KT - 1)) * C;

    __syncthreads ();           /* the previous tile is no longer read */
    for (int i = tid; i < nl; i += CO_FIR_THREADS) {
      const int64_t gs = sbase + i;
      float v = 0.0f;

      if (gs >= 0 && gs < src_samples)
        v = S16 ? __int2float_rn (((const int16_t *) p.src)[gs])
            : ((const float *) p.src)[gs];
      xs[i] = v;
    }
    if (tid < CO_FIR_KT)
      ts[tid] = tid < kv ? p.taps[k0 + tid] : 0.0f;
    __syncthreads ();

    if (active) {
      const int lb = g * CO_FIR_R;
      float win[CO_FIR_R];

#pragma unroll
      for (int j = 0; j < CO_FIR_R; j++)
        win[j] = xs[(lb + qs + j) * C + ch];
      for (int q = qs; q < CO_FIR_KT; q++) {
        const float t = ts[CO_FIR_KT - 1 - q];

#pragma unroll
        for (int j = 0; j < CO_FIR_R; j++)
          acc[j] = fmaf (t, win[j], acc[j]);
        if (q + 1 < CO_FIR_KT) {
#pragma unroll
          for (int j = 0; j < CO_FIR_R - 1; j++)
            win[j] = win[j + 1];
          win[CO_FIR_R - 1] = xs[(lb + q + CO_FIR_R) * C + ch];
        }
      }
    }
  }

  if (active) {
#pragma unroll
    for (int j = 0; j < CO_FIR_R; j++) {
      const int64_t nn = n0 + g * CO_FIR_R + j;

      if (nn < p.frames) {
        if (S16)
          ((int16_t *) p.dst)[nn * C + ch] = sat_s16 (acc[j]);
        else
          ((float *) p.dst)[nn * C + ch] = acc[j];
      }
    }
  }
}

extern "C" int
co_audio_launch_cuda (const CoAudioParams * p, void *stream)
{
  cudaStream_t st = (cudaStream_t) stream;
  const bool s16 = p->format == CO_AUDIO_S16;

  if (p->channels < 1 || p->frames < 0 || p->history < 0
      || (p->format != CO_AUDIO_F32 && p->format != CO_AUDIO_S16))
    return (int) cudaErrorInvalidValue;
  if (p->frames == 0)
    return 0;

  if (p->op == CO_AUDIO_OP_GAIN) {
    const int64_t ns = p->frames * p->channels;
    int64_t blocks = (ns + CO_AUDIO_THREADS - 1) / CO_AUDIO_THREADS;

    if (blocks > (1 << 20))
      blocks = 1 << 20;
    if (s16)
      co_gain_kernel < true > <<<(unsigned) blocks, CO_AUDIO_THREADS, 0,
          st>>> (*p);
    else
      co_gain_kernel < false > <<<(unsigned) blocks, CO_AUDIO_THREADS, 0,
          st>>> (*p);
    return (int) cudaGetLastError ();
  }

  if (p->op == CO_AUDIO_OP_FIR) {
    if (p->channels > CO_FIR_MAX_CHANNELS || p->n_taps < 1
        || p->history < p->n_taps - 1)
      return (int) cudaErrorInvalidValue;

    const int fb = (CO_FIR_THREADS / p->channels) * CO_FIR_R;
    const int64_t blocks = (p->frames + fb - 1) / fb;

    if (blocks > 0x7fffffff)
      return (int) cudaErrorInvalidValue;
    if (s16)
      co_fir_kernel < true > <<<(unsigned) blocks, CO_FIR_THREADS, 0,
          st>>> (*p);
    else
      co_fir_kernel < false > <<<(unsigned) blocks, CO_FIR_THREADS, 0,
          st>>> (*p);
    return (int) cudaGetLastError ();
  }

  return (int) cudaErrorInvalidValue;
}

/* ---- preloading ---------------------------------------------------------- */

/* Every template instantiation the launch functions above can pick: keep
 * this list in step with them. */

template < typename K > static int
preload_one (K kernel, int err)
{
  struct cudaFuncAttributes attr;
  cudaError_t e = cudaFuncGetAttributes (&attr, (const void *) kernel);

  return err ? err : (int) e;
}

/* launch_blur_c's kernels for C components */
template < int C > static int
preload_blur (int err)
{
  err = preload_one (co_blur_kernel < C, 1, false, false >, err);
  err = preload_one (co_blur_kernel < C, 2, true, false >, err);
  err = preload_one (co_blur_kernel < C, 2, false, false >, err);
  err = preload_one (co_blur_kernel < C, 2, true, true >, err);
  return preload_one (co_blur_kernel < C, 2, false, true >, err);
}

int
co_kernels_cuda_preload (void)
{
  int err = 0;

  err = preload_one (co_pointwise_kernel < 16, CO_PW_XOR >, err);
  err = preload_one (co_pointwise_kernel < 4, CO_PW_XOR >, err);
  err = preload_one (co_pointwise_kernel < 1, CO_PW_XOR >, err);
  err = preload_one (co_pointwise_kernel < 16, CO_PW_LUT8 >, err);
  err = preload_one (co_pointwise_kernel < 4, CO_PW_LUT8 >, err);
  err = preload_one (co_pointwise_kernel < 1, CO_PW_LUT8 >, err);
  err = preload_one (co_pointwise_kernel < 16, CO_PW_LUT16 >, err);
  err = preload_one (co_pointwise_kernel < 4, CO_PW_LUT16 >, err);
  err = preload_one (co_pointwise_kernel < 1, CO_PW_LUT16 >, err);
  err = preload_one (co_pointwise_kernel < 16, CO_PW_XOR_AND >, err);
  err = preload_one (co_pointwise_kernel < 4, CO_PW_XOR_AND >, err);
  err = preload_one (co_pointwise_kernel < 1, CO_PW_XOR_AND >, err);
  err = preload_one (co_pointwise_kernel < 16, CO_PW_LUT_BITS >, err);
  err = preload_one (co_pointwise_kernel < 4, CO_PW_LUT_BITS >, err);
  err = preload_one (co_pointwise_kernel < 1, CO_PW_LUT_BITS >, err);
  err = preload_blur < 1 > (err);
  err = preload_blur < 2 > (err);
  err = preload_blur < 3 > (err);
  err = preload_blur < 4 > (err);
  err = preload_one (co_packed_pw_kernel < 16, CO_PK_XOR >, err);
  err = preload_one (co_packed_pw_kernel < 4, CO_PK_XOR >, err);
  err = preload_one (co_packed_pw_kernel < 1, CO_PK_XOR >, err);
  err = preload_one (co_packed_pw_kernel < 16, CO_PK_LUT8 >, err);
  err = preload_one (co_packed_pw_kernel < 4, CO_PK_LUT8 >, err);
  err = preload_one (co_packed_pw_kernel < 1, CO_PK_LUT8 >, err);
  err = preload_one (co_packed_pw_kernel < 16, CO_PK_LUT10 >, err);
  err = preload_one (co_packed_pw_kernel < 4, CO_PK_LUT10 >, err);
  err = preload_one (co_packed_pw_kernel < 1, CO_PK_LUT10 >, err);
  err = preload_one (co_blur1010102_kernel < true >, err);
  err = preload_one (co_blur1010102_kernel < false >, err);
  err = preload_one (co_blur422_kernel < 0, true >, err);
  err = preload_one (co_blur422_kernel < 0, false >, err);
  err = preload_one (co_blur422_kernel < 1, true >, err);
  err = preload_one (co_blur422_kernel < 1, false >, err);
  err = preload_one (co_gain_kernel < true >, err);
  err = preload_one (co_gain_kernel < false >, err);
  err = preload_one (co_fir_kernel < true >, err);
  err = preload_one (co_fir_kernel < false >, err);
  return err;
}

int
co_kernels_cuda_check_device (int device)
{
  struct cudaFuncAttributes attr;
  int old = 0;
  cudaError_t err = cudaGetDevice (&old);

  if (err == cudaSuccess)
    err = cudaSetDevice (device);
  if (err != cudaSuccess)
    return (int) err;
  /* the smallest kernel: enough to know whether an image loads */
  err = cudaFuncGetAttributes (&attr,
      (const void *) co_gain_kernel < false >);
  cudaSetDevice (old);
  return (int) err;
}

const char *
co_kernels_cuda_archs (void)
{
  return CO_CUDA_ARCHS;
}
