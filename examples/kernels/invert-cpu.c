/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The invert example's CPU implementation (kernel-cpu-symbol=co_invert_cpu).
 *   cc -O2 -shared -fPIC -I$INCLUDEDIR/gstreamer-1.0 -o libco-invert-cpu.so invert-cpu.c
 */
#include "invert.h"

int co_invert_cpu (const GstCudaOverlapVideoLaunch * a);

int
co_invert_cpu (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  int x, y;

  if (!co_invert_supported (a))
    return -1;
  for (y = 0; y < p->rows; y++)
    for (x = 0; x < p->width; x++)
      co_invert_pixel (a, p, x, y);
  return 0;
}
