/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The layout of the custom-kernel ABI (gst/cudaoverlap/cudaoverlap-kernel.h,
 * docs/custom-kernels.md), every field's offset and every struct's size as
 * numbers: included by a C file (abi-check-cpu.c, built with the C
 * compiler) and by a .cu file (abi-layout.cu, built with nvcc), so that a
 * build where either lays a struct out otherwise than the other, or than a
 * kernel compiled against an earlier version expects, fails.  The offsets
 * of version 1 never change; version 2 only adds fields after params[].
 */
#ifndef __CO_ABI_LAYOUT_H__
#define __CO_ABI_LAYOUT_H__

#include <stddef.h>
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#ifdef __cplusplus
#define CO_LAYOUT(type, field, off) \
  static_assert (offsetof (type, field) == (off), #type "." #field)
#define CO_SIZE(type, size) static_assert (sizeof (type) == (size), #type)
#else
#define CO_LAYOUT(type, field, off) \
  _Static_assert (offsetof (type, field) == (off), #type "." #field)
#define CO_SIZE(type, size) _Static_assert (sizeof (type) == (size), #type)
#endif

CO_LAYOUT (GstCudaOverlapKernelPlane, src, 0);
CO_LAYOUT (GstCudaOverlapKernelPlane, dst, 8);
CO_LAYOUT (GstCudaOverlapKernelPlane, src_pitch, 16);
CO_LAYOUT (GstCudaOverlapKernelPlane, dst_pitch, 24);
CO_LAYOUT (GstCudaOverlapKernelPlane, width, 32);
CO_LAYOUT (GstCudaOverlapKernelPlane, height, 36);
CO_LAYOUT (GstCudaOverlapKernelPlane, y0, 40);
CO_LAYOUT (GstCudaOverlapKernelPlane, rows, 44);
CO_LAYOUT (GstCudaOverlapKernelPlane, halo_above, 48);
CO_LAYOUT (GstCudaOverlapKernelPlane, halo_below, 52);
CO_LAYOUT (GstCudaOverlapKernelPlane, pixel_bytes, 56);
CO_LAYOUT (GstCudaOverlapKernelPlane, comps, 60);
CO_LAYOUT (GstCudaOverlapKernelPlane, comp_bytes, 64);
CO_LAYOUT (GstCudaOverlapKernelPlane, x_shift, 68);
CO_LAYOUT (GstCudaOverlapKernelPlane, y_shift, 72);
CO_LAYOUT (GstCudaOverlapKernelPlane, reserved, 76);
CO_SIZE (GstCudaOverlapKernelPlane, 80);

CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, packing, 0);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, sample_bytes, 4);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, bits, 8);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, shift, 12);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, comp_offset, 16);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, comp_shift, 32);
CO_LAYOUT (GstCudaOverlapKernelPlaneFormat, comp_bits, 48);
CO_SIZE (GstCudaOverlapKernelPlaneFormat, 64);

CO_LAYOUT (GstCudaOverlapVideoLaunch, abi_version, 0);
CO_LAYOUT (GstCudaOverlapVideoLaunch, struct_size, 4);
CO_LAYOUT (GstCudaOverlapVideoLaunch, format, 8);
CO_LAYOUT (GstCudaOverlapVideoLaunch, plane, 12);
CO_LAYOUT (GstCudaOverlapVideoLaunch, n_planes, 16);
CO_LAYOUT (GstCudaOverlapVideoLaunch, width, 20);
CO_LAYOUT (GstCudaOverlapVideoLaunch, height, 24);
CO_LAYOUT (GstCudaOverlapVideoLaunch, y0, 28);
CO_LAYOUT (GstCudaOverlapVideoLaunch, rows, 32);
CO_LAYOUT (GstCudaOverlapVideoLaunch, halo, 36);
CO_LAYOUT (GstCudaOverlapVideoLaunch, chunk, 40);
CO_LAYOUT (GstCudaOverlapVideoLaunch, n_chunks, 44);
CO_LAYOUT (GstCudaOverlapVideoLaunch, n_params, 48);
CO_LAYOUT (GstCudaOverlapVideoLaunch, reserved, 52);
CO_LAYOUT (GstCudaOverlapVideoLaunch, planes, 56);
CO_LAYOUT (GstCudaOverlapVideoLaunch, params, 376);
/* version 2 */
CO_LAYOUT (GstCudaOverlapVideoLaunch, format_flags, 888);
CO_LAYOUT (GstCudaOverlapVideoLaunch, n_comps, 892);
CO_LAYOUT (GstCudaOverlapVideoLaunch, plane_formats, 896);
CO_SIZE (GstCudaOverlapVideoLaunch, 1152);

CO_LAYOUT (GstCudaOverlapAudioLaunch, abi_version, 0);
CO_LAYOUT (GstCudaOverlapAudioLaunch, struct_size, 4);
CO_LAYOUT (GstCudaOverlapAudioLaunch, format, 8);
CO_LAYOUT (GstCudaOverlapAudioLaunch, channels, 12);
CO_LAYOUT (GstCudaOverlapAudioLaunch, src, 16);
CO_LAYOUT (GstCudaOverlapAudioLaunch, dst, 24);
CO_LAYOUT (GstCudaOverlapAudioLaunch, frames, 32);
CO_LAYOUT (GstCudaOverlapAudioLaunch, history, 40);
CO_LAYOUT (GstCudaOverlapAudioLaunch, offset, 48);
CO_LAYOUT (GstCudaOverlapAudioLaunch, rate, 56);
CO_LAYOUT (GstCudaOverlapAudioLaunch, chunk, 60);
CO_LAYOUT (GstCudaOverlapAudioLaunch, n_chunks, 64);
CO_LAYOUT (GstCudaOverlapAudioLaunch, n_params, 68);
CO_LAYOUT (GstCudaOverlapAudioLaunch, params, 72);
CO_SIZE (GstCudaOverlapAudioLaunch, 584);

CO_LAYOUT (GstCudaOverlapKernelLauncher, abi_version, 0);
CO_LAYOUT (GstCudaOverlapKernelLauncher, struct_size, 4);
CO_LAYOUT (GstCudaOverlapKernelLauncher, video, 8);
CO_LAYOUT (GstCudaOverlapKernelLauncher, audio, 16);
CO_LAYOUT (GstCudaOverlapKernelLauncher, video_cpu, 24);
CO_LAYOUT (GstCudaOverlapKernelLauncher, audio_cpu, 32);
CO_LAYOUT (GstCudaOverlapKernelLauncher, user_data, 40);
CO_LAYOUT (GstCudaOverlapKernelLauncher, destroy, 48);
CO_SIZE (GstCudaOverlapKernelLauncher, 56);

#endif /* __CO_ABI_LAYOUT_H__ */
