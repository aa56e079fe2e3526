/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Invert as a kernel of the user's (the arithmetic is in invert.h): the
 * smallest complete kernel of the ABI, and the bench's custom row.
 *
 * Build:
 *   nvcc -ptx -arch=compute_75 -I$INCLUDEDIR/gstreamer-1.0 -o invert.ptx invert.cu
 * Launch:
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA \
 *     ! cudavideofilter operation=custom kernel-module=invert.ptx kernel-name=co_invert \
 *     ! videoconvert ! autovideosink
 * Bench (on the GPU, against the built-in invert's raw loop in the same run):
 *   cudaoverlap-bench --only raw,overlap --op custom \
 *     --props "kernel-module=invert.ptx kernel-name=co_invert"
 */
#include "invert.h"

extern "C" __global__ void __launch_bounds__ (256)
co_invert (GstCudaOverlapVideoLaunch a)
{
  const GstCudaOverlapKernelPlane *p = &a.planes[a.plane];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= p->width || y >= p->rows || !co_invert_supported (&a))
    return;
  co_invert_pixel (&a, p, x, y);
}
