/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Sobel example's CPU implementation (kernel-cpu-symbol=co_sobel_cpu):
 * the same arithmetic as sobel.cu (sobel.h), for the CPU backend.
 *   cc -O2 -shared -fPIC -I$INCLUDEDIR/gstreamer-1.0 -o libco-sobel-cpu.so sobel-cpu.c
 */
#include "sobel.h"

int co_sobel_cpu (const GstCudaOverlapVideoLaunch * a);

int
co_sobel_cpu (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  int x, y;

  if (!co_sobel_supported (a))
    return -1;
  for (y = 0; y < p->rows; y++)
    for (x = 0; x < p->width; x++)
      co_sobel_pixel (a, p, x, y);
  return 0;
}
