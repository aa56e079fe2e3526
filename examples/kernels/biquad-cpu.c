/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The biquad example's CPU implementation (kernel-cpu-symbol=co_biquad_cpu):
 * biquad.h, for the CPU backend.
 *   cc -O2 -shared -fPIC -I$INCLUDEDIR/gstreamer-1.0 -o libco-biquad-cpu.so biquad-cpu.c
 */
#include "biquad.h"

int co_biquad_cpu (const GstCudaOverlapAudioLaunch * a);

int
co_biquad_cpu (const GstCudaOverlapAudioLaunch * a)
{
  int64_t n;

  if (!co_biquad_supported (a))
    return -1;
  for (n = 0; n < a->frames; n++)
    co_biquad_frame (a, n);
  return 0;
}
