/* cudaoverlap-bench: the gather kernel (see bench-gather.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench-gather.h"

__global__ void
bench_gather_kernel (const BenchPiece * pieces, BenchGatherSrc src,
    unsigned char *out)
{
  const BenchPiece p = pieces[blockIdx.x];
  const unsigned char *s = src.base[p.plane] + (size_t) p.row *
      src.stride[p.plane] + p.col;
  unsigned char *d = out + p.dst;

  for (unsigned i = threadIdx.x; i < p.len; i += blockDim.x)
    d[i] = s[i];
}

extern "C" cudaError_t
bench_gather_launch (const BenchPiece * d_pieces, unsigned n,
    BenchGatherSrc src, unsigned char *d_out, cudaStream_t stream)
{
  if (n == 0)
    return cudaSuccess;
  bench_gather_kernel <<< n, 256, 0, stream >>> (d_pieces, src, d_out);
  return cudaGetLastError ();
}
