/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel that faults (tests/test-custom.c, test-custom-fault-cuda): it
 * writes to an address that is no device memory, so its frame ends in a
 * sticky cudaErrorIllegalAddress, which must become an element error, not
 * a hang.
 */
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

extern "C" __global__ void
co_fault (GstCudaOverlapVideoLaunch a)
{
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0
      && threadIdx.y == 0)
    *(volatile int *) (uintptr_t) 0x10 = a.chunk;
}
