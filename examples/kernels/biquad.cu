/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A (windowed) biquad for cudaaudiofilter operation=custom
 * (docs/custom-kernels.md; the arithmetic and why it is windowed are in
 * biquad.h).
 *
 * Build:
 *   nvcc -ptx -arch=compute_75 -I$INCLUDEDIR/gstreamer-1.0 -o biquad.ptx biquad.cu
 * Launch (a low-pass at about 1 kHz, 48 kHz, window of 256 frames):
 *   gst-launch-1.0 audiotestsrc wave=white-noise ! audio/x-raw,format=F32LE,rate=48000 \
 *     ! cudaaudiofilter operation=custom kernel-module=biquad.ptx kernel-name=co_biquad \
 *       kernel-halo=256 kernel-formats=F32LE \
 *       kernel-params="<0.003916, 0.007832, 0.003916, -1.815341, 0.831006>" \
 *       kernel-cpu-library=libco-biquad-cpu.so kernel-cpu-symbol=co_biquad_cpu \
 *     ! audioconvert ! autoaudiosink
 */
#include "biquad.h"

extern "C" __global__ void __launch_bounds__ (256)
co_biquad (GstCudaOverlapAudioLaunch a)
{
  const int64_t n = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;

  if (n >= a.frames || !co_biquad_supported (&a))
    return;
  co_biquad_frame (&a, n);
}
