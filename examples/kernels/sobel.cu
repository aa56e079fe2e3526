/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A Sobel edge detector for cudavideofilter operation=custom
 * (docs/custom-kernels.md; the arithmetic is in sobel.h).
 *
 * Build (PTX, runs on compute capability 7.5 and later):
 *   nvcc -ptx -arch=compute_75 -I$INCLUDEDIR/gstreamer-1.0 -o sobel.ptx sobel.cu
 * (in this source tree: -Iplugin; meson builds build/examples/kernels/sobel.ptx)
 * A fatbin with machine code for compute capability 9.0 and PTX:
 *   nvcc -fatbin -gencode arch=compute_90,code=sm_90 \
 *     -gencode arch=compute_90,code=compute_90 -Iplugin -o sobel.fatbin sobel.cu
 *
 * Launch:
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1920,height=1080 \
 *     ! cudavideofilter operation=custom kernel-module=sobel.ptx kernel-name=co_sobel \
 *       kernel-halo=1 kernel-formats="RGBA, GRAY8" \
 *       kernel-cpu-library=libco-sobel-cpu.so kernel-cpu-symbol=co_sobel_cpu \
 *     ! videoconvert ! autovideosink
 */
#include "sobel.h"

extern "C" __global__ void __launch_bounds__ (256)
co_sobel (GstCudaOverlapVideoLaunch a)
{
  const GstCudaOverlapKernelPlane *p = &a.planes[a.plane];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;

  if (x >= p->width || y >= p->rows || !co_sobel_supported (&a))
    return;
  co_sobel_pixel (&a, p, x, y);
}
