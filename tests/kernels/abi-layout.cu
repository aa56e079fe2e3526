/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ABI's layout as nvcc sees it (abi-layout.h): this file only has to
 * compile.  The kernel makes the PTX non-empty.
 */
#include "abi-layout.h"

extern "C" __global__ void
co_abi_layout (GstCudaOverlapVideoLaunch a)
{
  if (a.plane_formats[0].bits == 0)
    a.planes[0].dst[0] = 0;
}
