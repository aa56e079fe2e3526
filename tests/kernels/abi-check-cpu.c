/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test kernels for the CPU backend (tests/test-custom.c): each checks the
 * launch struct against docs/custom-kernels.md, from the test's
 * kernel-params, reads every input row (or frame) it may read, and copies
 * its input band to its output: the output must equal the input.  A
 * violation returns its number (the element error gives it).
 *
 * co_abi_check_video: params = format, halo, n_planes, width, height.
 * co_abi_stamp_cpu: writes abi_version into every output byte (1 or 2).
 * co_abi_check_audio: params = format, history, channels, rate; the test's
 *   F32 samples carry the stream's frame index + 1 in every channel (0
 *   before the stream), so the history frames can be checked too.
 * co_fail_cpu: returns 3.
 * co_shift_down_cpu: output row y = input row y - 1 (row 0 stays), every
 *   plane: it reads one row above each band whatever kernel-halo says, as
 *   a kernel written with a wrong halo would (kernel-halo must be 1).
 */
#include <stdio.h>
#include <string.h>
#include "abi-layout.h"

int co_abi_check_video (const GstCudaOverlapVideoLaunch * a);
int co_abi_stamp_cpu (const GstCudaOverlapVideoLaunch * a);
int co_abi_check_audio (const GstCudaOverlapAudioLaunch * a);
int co_fail_cpu (const void *a);
int co_shift_down_cpu (const GstCudaOverlapVideoLaunch * a);

static int
min_i (int a, int b)
{
  return a < b ? a : b;
}

/* The fields that say what the launch is. */
static int
check_header (const GstCudaOverlapVideoLaunch * a)
{
  int i;

  /* version 1's 12 formats keep version 1; the others are version 2 */
  if (a->abi_version != (a->format <= 12 ? 1u : 2u))
    return 1;
  if (a->struct_size != 1152)
    return 2;
  if (a->n_params != 5)
    return 3;
  if (a->format != (uint32_t) a->params[0])
    return 4;
  if (a->halo != (int) a->params[1])
    return 5;
  if (a->n_planes != (int) a->params[2] || a->plane < 0
      || a->plane >= a->n_planes)
    return 6;
  if (a->width != (int) a->params[3] || a->height != (int) a->params[4])
    return 7;
  if (a->chunk < 0 || a->chunk >= a->n_chunks)
    return 8;
  if (a->y0 < 0 || a->rows < 1 || a->y0 + a->rows > a->height)
    return 9;
  for (i = a->n_params; i < GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS; i++)
    if (a->params[i] != 0)
      return 10;
  for (i = a->n_planes; i < GST_CUDA_OVERLAP_KERNEL_MAX_PLANES; i++)
    if (a->planes[i].src || a->planes[i].dst || a->planes[i].width)
      return 11;
  return 0;
}

/* What each format's planes are, written from docs/custom-kernels.md:
 * planes, then per plane comps, comp_bytes, x_shift, y_shift. */
static const struct
{
  int n_planes;
  int plane[3][4];
} layouts[] = {
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8] = {1, {{1, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY16_LE] = {1, {{1, 2, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRA] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ARGB] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ABGR] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBx] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRx] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xRGB] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xBGR] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV12] = {2, {{1, 1, 0, 0}, {2, 1, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420] = {3, {{1, 1, 0, 0}, {1, 1, 1, 1},
          {1, 1, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB] = {1, {{3, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR] = {1, {{3, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV21] = {2, {{1, 1, 0, 0}, {2, 1, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YV12] = {3, {{1, 1, 0, 0}, {1, 1, 1, 1},
          {1, 1, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y42B] = {3, {{1, 1, 0, 0}, {1, 1, 1, 0},
          {1, 1, 1, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444] = {3, {{1, 1, 0, 0}, {1, 1, 0, 0},
          {1, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444_16LE] = {3, {{1, 2, 0, 0},
          {1, 2, 0, 0}, {1, 2, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P010_10LE] = {2, {{1, 2, 0, 0},
          {2, 2, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P016_LE] = {2, {{1, 2, 0, 0}, {2, 2, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420_10LE] = {3, {{1, 2, 0, 0},
          {1, 2, 1, 1}, {1, 2, 1, 1}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YUY2] = {1, {{2, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_UYVY] = {1, {{2, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB10A2_LE] = {1, {{4, 1, 0, 0}}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR10A2_LE] = {1, {{4, 1, 0, 0}}},
};

/* The version 2 description of each format, from docs/custom-kernels.md:
 * format_flags (Y: YUV, R: RGB, G: GRAY, then A: alpha, X: padding),
 * packing (N, YUYV, UYVY, W: 10:10:10:2), sample bytes, bits, shift, then
 * per component "plane:byte:bit:bits" ("-" where the format has none). */
static const char *const descriptions[] = {
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8] = "G N 1 8 0 0:0:0:8 - - -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY16_LE] = "G N 2 16 0 0:0:0:16 - - -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA] =
      "RA N 1 8 0 0:0:0:8 0:1:0:8 0:2:0:8 0:3:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRA] =
      "RA N 1 8 0 0:2:0:8 0:1:0:8 0:0:0:8 0:3:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ARGB] =
      "RA N 1 8 0 0:1:0:8 0:2:0:8 0:3:0:8 0:0:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ABGR] =
      "RA N 1 8 0 0:3:0:8 0:2:0:8 0:1:0:8 0:0:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBx] =
      "RX N 1 8 0 0:0:0:8 0:1:0:8 0:2:0:8 0:3:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRx] =
      "RX N 1 8 0 0:2:0:8 0:1:0:8 0:0:0:8 0:3:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xRGB] =
      "RX N 1 8 0 0:1:0:8 0:2:0:8 0:3:0:8 0:0:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xBGR] =
      "RX N 1 8 0 0:3:0:8 0:2:0:8 0:1:0:8 0:0:0:8",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV12] = "Y N 1 8 0 0:0:0:8 1:0:0:8 1:1:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420] = "Y N 1 8 0 0:0:0:8 1:0:0:8 2:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB] = "R N 1 8 0 0:0:0:8 0:1:0:8 0:2:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR] = "R N 1 8 0 0:2:0:8 0:1:0:8 0:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV21] = "Y N 1 8 0 0:0:0:8 1:1:0:8 1:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YV12] = "Y N 1 8 0 0:0:0:8 2:0:0:8 1:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y42B] = "Y N 1 8 0 0:0:0:8 1:0:0:8 2:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444] = "Y N 1 8 0 0:0:0:8 1:0:0:8 2:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444_16LE] =
      "Y N 2 16 0 0:0:0:16 1:0:0:16 2:0:0:16 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P010_10LE] =
      "Y N 2 10 6 0:0:6:10 1:0:6:10 1:2:6:10 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P016_LE] =
      "Y N 2 16 0 0:0:0:16 1:0:0:16 1:2:0:16 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420_10LE] =
      "Y N 2 10 0 0:0:0:10 1:0:0:10 2:0:0:10 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YUY2] =
      "Y YUYV 1 8 0 0:0:0:8 0:1:0:8 0:1:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_UYVY] =
      "Y UYVY 1 8 0 0:1:0:8 0:0:0:8 0:0:0:8 -",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB10A2_LE] =
      "RA W 4 10 0 0:0:0:10 0:0:10:10 0:0:20:10 0:0:30:2",
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR10A2_LE] =
      "RA W 4 10 0 0:0:20:10 0:0:10:10 0:0:0:10 0:0:30:2",
};

/* The version 2 fields against descriptions[]. */
static int
check_formats (const GstCudaOverlapVideoLaunch * a)
{
  static const char *const packings[] = { "N", "YUYV", "UYVY", "W" };
  char kind[4], pack[8], comp[4][16];
  unsigned flags;
  int bytes, bits, shift, i, c, n_comps = 0;

  if (sscanf (descriptions[a->format], "%3s %7s %d %d %d %15s %15s %15s %15s",
          kind, pack, &bytes, &bits, &shift, comp[0], comp[1], comp[2],
          comp[3]) != 9)
    return 30;
  flags = (kind[0] == 'Y' ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_YUV : 0) |
      (kind[0] == 'R' ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_RGB : 0) |
      (kind[0] == 'G' ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_GRAY : 0) |
      (kind[1] == 'A' ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_ALPHA : 0) |
      (kind[1] == 'X' ? GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_PADDING : 0);
  for (c = 0; c < 4; c++)
    n_comps += comp[c][0] != '-';
  if (a->format_flags != flags || a->n_comps != n_comps)
    return 31;
  for (i = 0; i < GST_CUDA_OVERLAP_KERNEL_MAX_PLANES; i++) {
    const GstCudaOverlapKernelPlaneFormat *pf = &a->plane_formats[i];

    if (i >= a->n_planes) {
      static const GstCudaOverlapKernelPlaneFormat zero;

      if (memcmp (pf, &zero, sizeof (zero)) != 0)
        return 32;
      continue;
    }
    if (strcmp (packings[pf->packing & 3], pack) != 0 || pf->packing > 3 ||
        pf->sample_bytes != bytes || pf->bits != bits || pf->shift != shift)
      return 33;
    for (c = 0; c < 4; c++) {
      int pl = -1, off = -1, sh = 0, nb = 0;

      if (comp[c][0] != '-' &&
          sscanf (comp[c], "%d:%d:%d:%d", &pl, &off, &sh, &nb) != 4)
        return 30;
      if (pl != i)
        off = -1, sh = 0, nb = 0;
      if (pf->comp_offset[c] != off || pf->comp_shift[c] != sh ||
          pf->comp_bits[c] != nb)
        return 34;
      if (nb && (off + pf->sample_bytes > a->planes[i].pixel_bytes ||
              sh + nb > 8 * pf->sample_bytes))
        return 35;
    }
  }
  return 0;
}

/* Plane @i's sample layout against the format's. */
static int
check_layout (const GstCudaOverlapVideoLaunch * a, int i)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[i];
  const int *l;
  int ret;

  if (a->format < 1 || a->format >= sizeof (layouts) / sizeof (layouts[0])
      || layouts[a->format].n_planes != a->n_planes)
    return 18;
  if (i == 0 && (ret = check_formats (a)) != 0)
    return ret;
  l = layouts[a->format].plane[i];
  if (p->comps != l[0] || p->comp_bytes != l[1] || p->x_shift != l[2]
      || p->y_shift != l[3])
    return 19;
  return 0;
}

/* Plane @p's band against the picture's. */
static int
check_plane (const GstCudaOverlapVideoLaunch * a,
    const GstCudaOverlapKernelPlane * p)
{
  const int pairs = a->format == GST_CUDA_OVERLAP_KERNEL_FORMAT_YUY2 ||
      a->format == GST_CUDA_OVERLAP_KERNEL_FORMAT_UYVY;
  int ys = p->y_shift, end;

  /* 4:2:2 packings: whole pairs (an odd width's padding luma sample) */
  if (p->width != (pairs ? (a->width + 1) / 2 * 2 :
          (a->width + (1 << p->x_shift) - 1) >> p->x_shift))
    return 12;
  if (p->y0 != a->y0 >> ys)
    return 13;
  end = min_i ((a->y0 + a->rows + (1 << ys) - 1) >> ys, p->height);
  if (p->rows != end - p->y0)
    return 14;
  if (p->halo_above != min_i (a->halo, p->y0))
    return 15;
  if (p->halo_below != min_i (a->halo, p->height - p->y0 - p->rows))
    return 16;
  if (p->pixel_bytes != p->comps * p->comp_bytes || p->pixel_bytes < 1
      || p->src_pitch < (int64_t) p->width * p->pixel_bytes
      || p->dst_pitch < (int64_t) p->width * p->pixel_bytes)
    return 17;
  return 0;
}

int
co_abi_check_video (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  const size_t rb = (size_t) p->width * p->pixel_bytes;
  volatile unsigned sum = 0;
  int r, i, ret;

  if ((ret = check_header (a)) != 0)
    return ret;
  for (i = 0; i < a->n_planes; i++)
    if ((ret = check_plane (a, &a->planes[i])) != 0 ||
        (ret = check_layout (a, i)) != 0)
      return ret;
  /* every readable byte (ASan and the CPU backend's direct reads) */
  for (r = -p->halo_above; r < p->rows + p->halo_below; r++)
    for (i = 0; i < (int) rb; i++)
      sum += p->src[(int64_t) r * p->src_pitch + i];
  for (r = 0; r < p->rows; r++)
    memcpy (p->dst + (int64_t) r * p->dst_pitch,
        p->src + (int64_t) r * p->src_pitch, rb);
  return 0;
}

int
co_abi_stamp_cpu (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  int r;

  for (r = 0; r < p->rows; r++)
    memset (p->dst + (int64_t) r * p->dst_pitch, (int) a->abi_version,
        (size_t) p->width * p->pixel_bytes);
  return 0;
}

int
co_abi_check_audio (const GstCudaOverlapAudioLaunch * a)
{
  const float *src = a->src;
  float *dst = a->dst;
  const int ch = a->channels;
  int64_t n;

  if (a->abi_version != 1)      /* the audio struct of version 1 */
    return 1;
  if (a->struct_size != sizeof (*a))
    return 2;
  if (a->n_params != 4 || a->format != (uint32_t) a->params[0]
      || a->history != (int64_t) a->params[1] || ch != (int) a->params[2]
      || a->rate != (int) a->params[3])
    return 3;
  if (a->chunk < 0 || a->chunk >= a->n_chunks || a->frames < 1 || a->offset < 0)
    return 4;
  for (n = -a->history; n < a->frames; n++) {
    const float want = src[0] + (float) n >= 1.0f ? src[0] + (float) n : 0.0f;
    int c;

    for (c = 0; c < ch; c++)
      if (src[n * ch + c] != want)
        return 20;
  }
  memcpy (dst, src, (size_t) a->frames * ch * sizeof (float));
  return 0;
}

int
co_fail_cpu (const void *a)
{
  return 3;
}

int
co_shift_down_cpu (const GstCudaOverlapVideoLaunch * a)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  int64_t rb = (int64_t) p->width * p->pixel_bytes;
  int r;

  for (r = 0; r < p->rows; r++) {
    int from = p->y0 + r > 0 ? r - 1 : r;       /* band-relative */

    memcpy (p->dst + r * p->dst_pitch, p->src + from * p->src_pitch, rb);
  }
  return 0;
}
