/* The CUDA set-up the tools' raw loops share: one check of every CUDA call,
 * device and page-locked buffers, streams and events, made and released
 * the same way in the bench's raw loops, its device-memory loops and
 * gather, cudaoverlap-check's page-locked input and cudaoverlap-callcost.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C without GLib, so that cudaoverlap-callcost (C++ through nvcc)
 * uses it too.  Every function that makes something exits the program with
 * status 1 on a CUDA error (TOOL_CK), except tool_cuda_host_try_new, which
 * reports it.
 */
#ifndef __TOOL_CUDA_H__
#define __TOOL_CUDA_H__

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C"
{
#endif

/* Prints "CUDA error: CALL failed: NAME (text) [FILE:LINE]" and exits with
 * status 1 when @err is not cudaSuccess. */
  void tool_cuda_check (cudaError_t err, const char *call, const char *file,
      int line);
#define TOOL_CK(call) \
  tool_cuda_check ((cudaError_t) (call), #call, __FILE__, __LINE__)

/* Whether device @device exists (with @create_context it is then made
 * current and its primary context created now, so that no later call pays
 * for it); else 0 with the reason in @why. */
  int tool_cuda_probe (int device, int create_context, char *why,
      size_t why_size);

/* @size bytes of page-locked host memory (cudaHostAlloc with @flags): a
 * copy of @src, or zeroed when @src is NULL.  _try_: NULL with the reason
 * in @why instead of exiting. */
  unsigned char *tool_cuda_host_new (size_t size, unsigned flags,
      const void *src);
  unsigned char *tool_cuda_host_try_new (size_t size, unsigned flags,
      const void *src, char *why, size_t why_size);
  void tool_cuda_host_free (void *p);

/* @size bytes of device memory: a copy of @src (host memory), or zeroed
 * when @src is NULL. */
  unsigned char *tool_cuda_dev_new (size_t size, const void *src);
  void tool_cuda_dev_free (void *p);

/* @n non-blocking streams. */
  void tool_cuda_streams_new (cudaStream_t * s, unsigned n);
  void tool_cuda_streams_free (cudaStream_t * s, unsigned n);

/* @n events made with @flags (cudaEventDisableTiming for the loops'
 * completion events). */
  void tool_cuda_events_new (cudaEvent_t * e, unsigned n, unsigned flags);
  void tool_cuda_events_free (cudaEvent_t * e, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
