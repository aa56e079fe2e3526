/* cudaoverlap kernels: operation=custom, the launch structs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plain C11: no GLib, no GStreamer, no CUDA.  See co-custom.h.
 */

#include "co-custom.h"

#include <stddef.h>
#include <string.h>

/* The ABI's sizes: what a kernel compiled against the header expects. */
_Static_assert (sizeof (GstCudaOverlapKernelPlane) == 80,
    "GstCudaOverlapKernelPlane is 80 bytes in ABI version 1");
_Static_assert (sizeof (GstCudaOverlapVideoLaunch) == 888,
    "GstCudaOverlapVideoLaunch is 888 bytes in ABI version 1");
_Static_assert (sizeof (GstCudaOverlapAudioLaunch) == 584,
    "GstCudaOverlapAudioLaunch is 584 bytes in ABI version 1");

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
  a->abi_version = GST_CUDA_OVERLAP_KERNEL_ABI_VERSION;
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
  a->abi_version = GST_CUDA_OVERLAP_KERNEL_ABI_VERSION;
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
