/* cudaoverlap example: launcher-invert.cu's functions, for launcher-app.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __LAUNCHER_INVERT_H__
#define __LAUNCHER_INVERT_H__

#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* GstCudaOverlapKernelLauncher.video: queues the invert of the plane on
 * @stream (a cudaStream_t); 0, or the launch's cudaError_t. */
  int launcher_invert_cuda (void *stream, const GstCudaOverlapVideoLaunch * a,
      void *user_data);
/* CUDA devices (0 when the runtime finds none). */
  int launcher_cuda_devices (void);

#ifdef __cplusplus
}
#endif
#endif
