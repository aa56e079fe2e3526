/* cudaoverlap example: the CUDA half of launcher-app.c, a host-side
 * launcher (GstCudaOverlapKernelLauncher.video) that launches its own
 * kernel with the runtime's <<<>>> syntax on the engine's stream.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   nvcc -c -Xcompiler -fPIC -I$INCLUDEDIR/gstreamer-1.0 launcher-invert.cu
 */
#include <cuda_runtime.h>
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#include "launcher-invert.h"

/* RGBA: R, G and B become 255 - c, alpha is copied.  Thread (x, y): pixel
 * x of the band's row y. */
__global__ void
launcher_invert_kernel (GstCudaOverlapKernelPlane p)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  const uint8_t *s;
  uint8_t *d;

  if (x >= p.width || y >= p.rows)
    return;
  s = p.src + y * p.src_pitch + 4 * x;
  d = p.dst + y * p.dst_pitch + 4 * x;
  d[0] = 255 - s[0];
  d[1] = 255 - s[1];
  d[2] = 255 - s[2];
  d[3] = s[3];
}

extern "C" int
launcher_invert_cuda (void *stream, const GstCudaOverlapVideoLaunch * a,
    void *user_data)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  dim3 block (16, 16);
  dim3 grid ((p->width + 15) / 16, (p->rows + 15) / 16);

  (void) user_data;
  if (a->abi_version != 1 || a->format != GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA)
    return -1;
  launcher_invert_kernel <<< grid, block, 0, (cudaStream_t) stream >>> (*p);
  return (int) cudaGetLastError ();
}

extern "C" int
launcher_cuda_devices (void)
{
  int n = 0;

  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();
    return 0;
  }
  return n;
}
