/* cudaoverlap kernels: operation=custom, a user's kernel.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C, like co-kernels.h: knows neither GStreamer nor the engine.  The
 * planners describe a custom chunk as they describe a built-in one
 * (CoVideoParams with op CO_VIDEO_OP_CUSTOM and the halo in radius,
 * CoAudioParams with op CO_AUDIO_OP_CUSTOM), plus a CoCustomParams that
 * the element owns; this file turns that into the launch structs of the
 * public ABI (gst/cudaoverlap/cudaoverlap-kernel.h, docs/custom-kernels.md)
 * and says how they are launched.  Loading the user's module or library
 * and the launch calls themselves belong to the engine's backends
 * (engine/co-custom-load.c).
 */
#ifndef __CO_CUSTOM_H__
#define __CO_CUSTOM_H__

#include "co-kernels.h"
#include "cudaoverlap-kernel.h"

#ifdef __cplusplus
extern "C"
{
#endif

/* What the element says of the custom kernel beyond the chunk's plan.
 * Changed only while no frame is in flight; the chunks point at it. */
  struct _CoCustomParams
  {
    uint32_t format;            /* GstCudaOverlapKernel(Audio)Format */
    int32_t halo;               /* kernel-halo */
    int32_t width;              /* video: of the picture */
    int32_t rate;               /* audio: sample rate */
    int32_t x_shift[GST_CUDA_OVERLAP_KERNEL_MAX_PLANES];
    int32_t y_shift[GST_CUDA_OVERLAP_KERNEL_MAX_PLANES];
    int32_t n_params;
    double params[GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS];
  };

/* Called for each launch of a video chunk; returns 0 to go on. */
  typedef int (*CoCustomVideoFunc) (const GstCudaOverlapVideoLaunch * launch,
      void *user_data);

/* Calls @func with the launch struct of each plane of each image of the
 * band @p (a chunk with op CO_VIDEO_OP_CUSTOM), images in order, planes in
 * order, planes with an empty band skipped: @chunk of @n_chunks bands.
 * Returns the first non-zero value of @func, else 0. */
  int co_custom_video_each (const CoVideoParams * p, int chunk, int n_chunks,
      CoCustomVideoFunc func, void *user_data);

/* The launch struct of a custom audio chunk, @chunk of @n_chunks. */
  void co_custom_audio_fill (GstCudaOverlapAudioLaunch * launch,
      const CoAudioParams * p, int chunk, int n_chunks);

/* The CUDA launch geometry of the ABI: grid and block of a video launch
 * (x, y, z), of an audio launch (x; grid 0 when there is nothing to do). */
  void co_custom_video_geometry (const GstCudaOverlapVideoLaunch * launch,
      unsigned grid[3], unsigned block[3]);
  void co_custom_audio_geometry (const GstCudaOverlapAudioLaunch * launch,
      unsigned grid[3], unsigned block[3]);

#ifdef __cplusplus
}
#endif
#endif                          /* __CO_CUSTOM_H__ */
