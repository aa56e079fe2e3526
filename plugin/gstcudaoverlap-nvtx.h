/* cudaoverlap: the NVTX ranges of the streaming path (what Nsight Systems
 * shows of the element), where the build has CUDA.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVTX 3 is header-only and ships with the CUDA toolkit; a build without
 * CUDA (-Dcuda=disabled) has no such header, and the ranges are nothing.
 */
#ifndef __GST_CUDA_OVERLAP_NVTX_H__
#define __GST_CUDA_OVERLAP_NVTX_H__

#ifdef CO_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>
#else
#define nvtxRangePushA(message) ((void) 0)
#define nvtxRangePop() ((void) 0)
#endif

#endif /* __GST_CUDA_OVERLAP_NVTX_H__ */
