/* cudaoverlap kernels: operation=custom, the launch structs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C11: no GLib, no GStreamer, no CUDA.  See co-custom.h.
 */

#include "co-custom.h"

#include <stddef.h>
#include <string.h>

/* The ABI's sizes: what a kernel compiled against the header expects
 * (every field's offset: tests/kernels/abi-layout.h). */
_Static_assert (sizeof (GstCudaOverlapKernelPlane) == 80,
    "GstCudaOverlapKernelPlane is 80 bytes since ABI version 1");
_Static_assert (offsetof (GstCudaOverlapVideoLaunch, format_flags) == 888,
    "GstCudaOverlapVideoLaunch's version 1 part is 888 bytes");
_Static_assert (sizeof (GstCudaOverlapKernelPlaneFormat) == 64,
    "GstCudaOverlapKernelPlaneFormat is 64 bytes in ABI version 2");
_Static_assert (sizeof (GstCudaOverlapVideoLaunch) == 1152,
    "GstCudaOverlapVideoLaunch is 1152 bytes in ABI version 2");
_Static_assert (sizeof (GstCudaOverlapAudioLaunch) == 584,
    "GstCudaOverlapAudioLaunch is 584 bytes since ABI version 1");

#define YUV GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_YUV
#define RGB GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_RGB
#define GRAY GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_GRAY
#define ALPHA GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_ALPHA
#define PAD GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_PADDING
#define YUYV GST_CUDA_OVERLAP_KERNEL_PACKING_422_YUYV
#define UYVY GST_CUDA_OVERLAP_KERNEL_PACKING_422_UYVY
#define W10 GST_CUDA_OVERLAP_KERNEL_PACKING_10_10_10_2

/* What each format's components are and where they lie (the header's
 * GstVideoFormat order): every plane of a format has the same samples
 * (bytes, bits, shift, packing); component c is in plane[c] (-1: none)
 * at byte offset[c] of a pixel; word[c]: its bit in a 10:10:10:2 word. */
static const struct
{
  uint8_t flags, n_comps, sample_bytes, bits, shift, packing;
  int8_t plane[4], offset[4], word[4];
} formats[GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST + 1] = {
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8] =
      {GRAY, 1, 1, 8, 0, 0, {0, -1, -1, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY16_LE] =
      {GRAY, 1, 2, 16, 0, 0, {0, -1, -1, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA] =
      {RGB | ALPHA, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {0, 1, 2, 3}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRA] =
      {RGB | ALPHA, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {2, 1, 0, 3}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ARGB] =
      {RGB | ALPHA, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {1, 2, 3, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_ABGR] =
      {RGB | ALPHA, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {3, 2, 1, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBx] =
      {RGB | PAD, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {0, 1, 2, 3}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRx] =
      {RGB | PAD, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {2, 1, 0, 3}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xRGB] =
      {RGB | PAD, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {1, 2, 3, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_xBGR] =
      {RGB | PAD, 4, 1, 8, 0, 0, {0, 0, 0, 0}, {3, 2, 1, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV12] =
      {YUV, 3, 1, 8, 0, 0, {0, 1, 1, -1}, {0, 0, 1}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420] =
      {YUV, 3, 1, 8, 0, 0, {0, 1, 2, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB] =
      {RGB, 3, 1, 8, 0, 0, {0, 0, 0, -1}, {0, 1, 2}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR] =
      {RGB, 3, 1, 8, 0, 0, {0, 0, 0, -1}, {2, 1, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_NV21] =
      {YUV, 3, 1, 8, 0, 0, {0, 1, 1, -1}, {0, 1, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YV12] =
      {YUV, 3, 1, 8, 0, 0, {0, 2, 1, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y42B] =
      {YUV, 3, 1, 8, 0, 0, {0, 1, 2, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444] =
      {YUV, 3, 1, 8, 0, 0, {0, 1, 2, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444_16LE] =
      {YUV, 3, 2, 16, 0, 0, {0, 1, 2, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P010_10LE] =
      {YUV, 3, 2, 10, 6, 0, {0, 1, 1, -1}, {0, 0, 2}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_P016_LE] =
      {YUV, 3, 2, 16, 0, 0, {0, 1, 1, -1}, {0, 0, 2}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_I420_10LE] =
      {YUV, 3, 2, 10, 0, 0, {0, 1, 2, -1}, {0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_YUY2] =
      {YUV, 3, 1, 8, 0, YUYV, {0, 0, 0, -1}, {0, 1, 1}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_UYVY] =
      {YUV, 3, 1, 8, 0, UYVY, {0, 0, 0, -1}, {1, 0, 0}, {0}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB10A2_LE] =
      {RGB | ALPHA, 4, 4, 10, 0, W10, {0, 0, 0, 0}, {0}, {0, 10, 20, 30}},
  [GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR10A2_LE] =
      {RGB | ALPHA, 4, 4, 10, 0, W10, {0, 0, 0, 0}, {0}, {20, 10, 0, 30}},
};

#undef YUV
#undef RGB
#undef GRAY
#undef ALPHA
#undef PAD
#undef YUYV
#undef UYVY
#undef W10

/* The version 2 fields of @format (zero for a format of no table row). */
static void
fill_formats (GstCudaOverlapVideoLaunch * a, uint32_t format)
{
  int i, c;

  memset (&a->format_flags, 0, sizeof (*a) -
      offsetof (GstCudaOverlapVideoLaunch, format_flags));
  if (format < 1 || format > GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST)
    return;
  a->format_flags = formats[format].flags;
  a->n_comps = formats[format].n_comps;
  for (i = 0; i < a->n_planes && i < GST_CUDA_OVERLAP_KERNEL_MAX_PLANES; i++) {
    GstCudaOverlapKernelPlaneFormat *pf = &a->plane_formats[i];

    pf->packing = formats[format].packing;
    pf->sample_bytes = formats[format].sample_bytes;
    pf->bits = formats[format].bits;
    pf->shift = formats[format].shift;
    for (c = 0; c < 4; c++) {
      const int alpha_word = pf->packing ==
          GST_CUDA_OVERLAP_KERNEL_PACKING_10_10_10_2 && c == 3;

      pf->comp_offset[c] = -1;
      if (formats[format].plane[c] != i)
        continue;
      pf->comp_offset[c] = formats[format].offset[c];
      pf->comp_shift[c] = pf->shift + formats[format].word[c];
      pf->comp_bits[c] = alpha_word ? 2 : pf->bits;
    }
  }
}

static void
fill_params (int32_t * n_params, double *params, const CoCustomParams * c)
{
  int n = c->n_params;

  if (n < 0)
    n = 0;
  if (n > GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS)
    n = GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS;
  *n_params = n;
  memset (params, 0, sizeof (double) * GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS);
  memcpy (params, c->params, sizeof (double) * n);
}

/* Plane @i of image @image of the band. */
static void
fill_plane (GstCudaOverlapKernelPlane * kp, const CoPlaneBand * b,
    const CoCustomParams * c, int i, int image)
{
  memset (kp, 0, sizeof (*kp));
  kp->src = b->src + (int64_t) image *b->src_image_stride +
      (int64_t) (b->y0 - b->src_y0) * b->src_stride;
  kp->dst = b->dst + (int64_t) image *b->dst_image_stride;
  kp->src_pitch = b->src_stride;
  kp->dst_pitch = b->dst_stride;
  kp->width = b->width;
  /* 4:2:2 packings: whole pairs, an odd width's padding luma sample too */
  if (c->format <= GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST &&
      (formats[c->format].packing == GST_CUDA_OVERLAP_KERNEL_PACKING_422_YUYV
          || formats[c->format].packing ==
          GST_CUDA_OVERLAP_KERNEL_PACKING_422_UYVY))
    kp->width = (b->width + 1) & ~1;
  kp->height = b->height;
  kp->y0 = b->y0;
  kp->rows = b->y1 - b->y0;
  kp->halo_above = b->y0 - b->src_y0;
  kp->halo_below = b->src_y1 - b->y1;
  kp->comps = b->comps;
  kp->comp_bytes = b->comp_bytes;
  kp->pixel_bytes = b->comps * b->comp_bytes;
  kp->x_shift = c->x_shift[i];
  kp->y_shift = c->y_shift[i];
}

static void
fill_video (GstCudaOverlapVideoLaunch * a, const CoVideoParams * p,
    int image, int chunk, int n_chunks)
{
  const CoCustomParams *c = p->custom;
  int i;

  memset (a, 0, offsetof (GstCudaOverlapVideoLaunch, params));
  /* a kernel written for version 1 gets its formats as it knows them */
  a->abi_version = GST_CUDA_OVERLAP_KERNEL_FORMAT_ABI_VERSION (c->format);
  a->struct_size = sizeof (*a);
  a->format = c->format;
  a->n_planes = p->n_planes;
  a->width = c->width;
  a->height = p->planes[0].height;
  a->y0 = p->planes[0].y0;
  a->rows = p->planes[0].y1 - p->planes[0].y0;
  a->halo = c->halo;
  a->chunk = chunk;
  a->n_chunks = n_chunks;
  for (i = 0; i < p->n_planes && i < GST_CUDA_OVERLAP_KERNEL_MAX_PLANES; i++)
    fill_plane (&a->planes[i], &p->planes[i], c, i, image);
  fill_params (&a->n_params, a->params, c);
  fill_formats (a, c->format);
}

int
co_custom_video_each (const CoVideoParams * p, int chunk, int n_chunks,
    CoCustomVideoFunc func, void *user_data)
{
  GstCudaOverlapVideoLaunch a;
  int image, i, ret, n_images;

  if (p->op != CO_VIDEO_OP_CUSTOM || !p->custom || p->n_planes < 1 ||
      p->n_planes > CO_VIDEO_MAX_PLANES)
    return -1;
  n_images = p->planes[0].n_images > 1 ? p->planes[0].n_images : 1;
  for (image = 0; image < n_images; image++) {
    fill_video (&a, p, image, chunk, n_chunks);
    for (i = 0; i < p->n_planes; i++) {
      if (a.planes[i].rows <= 0 || a.planes[i].width <= 0)
        continue;
      a.plane = i;
      if ((ret = func (&a, user_data)) != 0)
        return ret;
    }
  }
  return 0;
}

void
co_custom_audio_fill (GstCudaOverlapAudioLaunch * a, const CoAudioParams * p,
    int chunk, int n_chunks)
{
  const CoCustomParams *c = p->custom;
  const size_t bps = p->format == CO_AUDIO_S16 ? 2 : 4;

  memset (a, 0, offsetof (GstCudaOverlapAudioLaunch, params));
  a->abi_version = 1;           /* the audio struct of every version */
  a->struct_size = sizeof (*a);
  a->format = c->format;
  a->channels = p->channels;
  a->src = (const uint8_t *) p->src + (size_t) p->history * p->channels * bps;
  a->dst = p->dst;
  a->frames = p->frames;
  a->history = p->history;
  a->offset = p->offset;
  a->rate = c->rate;
  a->chunk = chunk;
  a->n_chunks = n_chunks;
  fill_params (&a->n_params, a->params, c);
}

void
co_custom_video_geometry (const GstCudaOverlapVideoLaunch * a,
    unsigned grid[3], unsigned block[3])
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];

  block[0] = GST_CUDA_OVERLAP_KERNEL_BLOCK_X;
  block[1] = GST_CUDA_OVERLAP_KERNEL_BLOCK_Y;
  block[2] = 1;
  grid[0] = (unsigned) ((p->width + block[0] - 1) / block[0]);
  grid[1] = (unsigned) ((p->rows + block[1] - 1) / block[1]);
  grid[2] = 1;
}

void
co_custom_audio_geometry (const GstCudaOverlapAudioLaunch * a,
    unsigned grid[3], unsigned block[3])
{
  const int64_t b = GST_CUDA_OVERLAP_KERNEL_AUDIO_BLOCK;

  block[0] = (unsigned) b;
  block[1] = block[2] = 1;
  grid[0] = a->frames > 0 ? (unsigned) ((a->frames + b - 1) / b) : 0;
  grid[1] = grid[2] = 1;
}
