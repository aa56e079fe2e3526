/* cudaoverlap-bench: the sampled bytes of a frame in device memory, gathered
 * on the device into one compact buffer (bench-gather.cu), so that a
 * CUDA-memory output is checked by copying about 1/64 of it to the host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C (no GLib): nvcc compiles the kernel's file.  The pieces are those
 * that bench_checksum reads, in its order (bench_pieces, bench-frames.c);
 * piece p is bytes [col, col + len) of row `row` of plane `plane`, stored
 * at dst in the compact buffer.
 */
#ifndef __BENCH_GATHER_H__
#define __BENCH_GATHER_H__

#include <stdint.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    uint32_t plane, row, col, len;
    uint64_t dst;               /* offset in the compact buffer */
    uint64_t key;               /* the checksum's seed (host only) */
  } BenchPiece;

  typedef struct
  {
    const unsigned char *base[3];       /* device address of each plane */
    uint64_t stride[3];
  } BenchGatherSrc;

/* One block per piece on @stream: @d_pieces (device memory) gathered from
 * @src into @d_out (device memory). */
  cudaError_t bench_gather_launch (const BenchPiece * d_pieces, unsigned n,
      BenchGatherSrc src, unsigned char *d_out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
