/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A 3x3 colour matrix (plus offset) on RGBA for cudavideofilter
 * operation=custom (docs/custom-kernels.md; the arithmetic is in
 * colormatrix.h).
 *
 * Build:
 *   nvcc -ptx -arch=compute_75 -I$INCLUDEDIR/gstreamer-1.0 -o colormatrix.ptx colormatrix.cu
 * Launch (sepia):
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA \
 *     ! cudavideofilter operation=custom kernel-module=colormatrix.ptx \
 *       kernel-name=co_colormatrix kernel-formats=RGBA \
 *       kernel-params="<0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131>" \
 *       kernel-cpu-library=libco-colormatrix-cpu.so kernel-cpu-symbol=co_colormatrix_cpu \
 *     ! videoconvert ! autovideosink
 */
#include "colormatrix.h"

extern "C" __global__ void __launch_bounds__ (256)
co_colormatrix (GstCudaOverlapVideoLaunch a)
{
  const GstCudaOverlapKernelPlane *p = &a.planes[a.plane];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  int64_t m[9], o[3];

  if (x >= p->width || y >= p->rows || !co_colormatrix_supported (&a))
    return;
  co_colormatrix_coeffs (&a, m, o);
  co_colormatrix_pixel (&a, p, m, o, x, y);
}
