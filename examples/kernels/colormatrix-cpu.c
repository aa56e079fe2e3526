/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The colour matrix example's CPU implementation
 * (kernel-cpu-symbol=co_colormatrix_cpu): colormatrix.h, for the CPU
 * backend.
 *   cc -O2 -shared -fPIC -I$INCLUDEDIR/gstreamer-1.0 -o libco-colormatrix-cpu.so colormatrix-cpu.c -lm
 */
#include "colormatrix.h"

int co_colormatrix_cpu (const GstCudaOverlapVideoLaunch * a);

int
co_colormatrix_cpu (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  int64_t m[9], o[3];
  int x, y;

  if (!co_colormatrix_supported (a))
    return -1;
  co_colormatrix_coeffs (a, m, o);
  for (y = 0; y < p->rows; y++)
    for (x = 0; x < p->width; x++)
      co_colormatrix_pixel (a, p, m, o, x, y);
  return 0;
}
