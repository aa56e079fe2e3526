/* cudaoverlap: planning a video frame into chunks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A chunk is a horizontal band: the same rows of every plane.  Device
 * layout of one slot (see docs/architecture.md):
 *   dev_in:  for each band, for each plane, the band's input rows plus
 *            `radius` halo rows above and below (clamped to the plane),
 *            at the plane's device pitch.  Bands never share input memory,
 *            so no chunk waits for another.
 *   dev_out: the whole output picture, plane after plane, at device pitch;
 *            bands write disjoint rows.
 */
#include "co-video.h"

static gsize
co_row_bytes (const CoVideoPlaneDesc * p)
{
  return (gsize) p->width * p->comps * p->comp_bytes;
}

guint
co_video_bands (const CoVideoDesc * d, guint chunks,
    gint rows[CO_MAX_CHUNKS + 1])
{
  gint align = 1, units, n, b, i;

  for (i = 0; i < d->n_planes; i++)
    if (d->planes[i].ysub > 0)
      align = 2;
  units = (d->height + align - 1) / align;
  n = MIN ((gint) MAX (chunks, 1), units);
  n = MIN (n, CO_MAX_CHUNKS);
  for (b = 0; b <= n; b++)
    rows[b] = MIN ((gint) (((gint64) units * b / n) * align), d->height);
  return n;
}

/* Rows of plane @p covered by full-resolution rows [y0, y1). */
static void
co_plane_rows (const CoVideoPlaneDesc * p, gint y0, gint y1, gint * py0,
    gint * py1)
{
  *py0 = y0 >> p->ysub;
  *py1 = MIN ((y1 + (1 << p->ysub) - 1) >> p->ysub, p->height);
}

static void
co_halo_rows (const CoVideoDesc * d, const CoVideoPlaneDesc * p, gint py0,
    gint py1, gint * sy0, gint * sy1)
{
  gint r = d->op == CO_VIDEO_OP_BOX_BLUR ? d->radius : 0;

  *sy0 = MAX (0, py0 - r);
  *sy1 = MIN (p->height, py1 + r);
}

void
co_video_plan_sizes (const CoVideoDesc * d, guint chunks, gsize * in_size,
    gsize * out_size)
{
  gint rows[CO_MAX_CHUNKS + 1];
  guint n = co_video_bands (d, chunks, rows), b;
  gint i;

  *in_size = *out_size = 0;
  for (i = 0; i < d->n_planes; i++)
    *out_size += d->planes[i].dev_pitch * d->planes[i].height;
  for (b = 0; b < n; b++) {
    for (i = 0; i < d->n_planes; i++) {
      const CoVideoPlaneDesc *p = &d->planes[i];
      gint py0, py1, sy0, sy1;

      co_plane_rows (p, rows[b], rows[b + 1], &py0, &py1);
      co_halo_rows (d, p, py0, py1, &sy0, &sy1);
      *in_size += p->dev_pitch * (sy1 - sy0);
    }
  }
}

guint
co_video_plan (const CoVideoDesc * d, guint chunks, gboolean direct,
    guint image, CoFrame * f, guint8 * const in[CO_VIDEO_MAX_PLANES],
    const gint in_stride[CO_VIDEO_MAX_PLANES],
    guint8 * const out[CO_VIDEO_MAX_PLANES],
    const gint out_stride[CO_VIDEO_MAX_PLANES])
{
  gint rows[CO_MAX_CHUNKS + 1];
  guint n = co_video_bands (d, chunks, rows), b;
  gsize in_off = image * d->in_image_stride, out_off[CO_VIDEO_MAX_PLANES];
  gint i;

  g_return_val_if_fail (image == 0 || !direct, 0);
  out_off[0] = image * d->out_image_stride;
  for (i = 1; i < d->n_planes; i++)
    out_off[i] = out_off[i - 1] +
        d->planes[i - 1].dev_pitch * d->planes[i - 1].height;

  for (b = 0; b < n; b++) {
    CoChunk *ch = &f->chunks[b];
    CoVideoParams *vp = &ch->params.video;

    if (image == 0) {
      ch->kind = CO_KERNEL_VIDEO;
      ch->n_h2d = ch->n_d2h = 0;
      vp->op = d->op;
      vp->n_planes = d->n_planes;
      vp->radius = d->radius;
      vp->lut = d->lut;
    }
    g_return_val_if_fail (ch->n_h2d + d->n_planes <= CO_CHUNK_MAX_COPIES, 0);

    for (i = 0; i < d->n_planes; i++) {
      const CoVideoPlaneDesc *p = &d->planes[i];
      CoPlaneBand *pb = &vp->planes[i];
      gsize rb = co_row_bytes (p);
      gint py0, py1, sy0, sy1;
      CoCopy *up, *down;

      co_plane_rows (p, rows[b], rows[b + 1], &py0, &py1);
      co_halo_rows (d, p, py0, py1, &sy0, &sy1);
      if (image == 0) {
        pb->width = p->width;
        pb->height = p->height;
        pb->y0 = py0;
        pb->y1 = py1;
        pb->comps = p->comps;
        pb->comp_bytes = p->comp_bytes;
        pb->comp_mask = p->comp_mask;
        pb->use_lut = p->use_lut;
        pb->src_image_stride = d->in_image_stride;
        pb->dst_image_stride = d->out_image_stride;
      }
      pb->n_images = image + 1;

      if (direct) {
        pb->src = in[i];
        pb->src_stride = in_stride[i];
        pb->src_y0 = 0;
        pb->src_y1 = p->height;
        pb->dst = out[i] + (gsize) py0 *out_stride[i];
        pb->dst_stride = out_stride[i];
        continue;
      }

      /* upload the band and its halo into the band's own input area (image
       * i's areas: image 0's, i image strides further) */
      if (image == 0) {
        pb->src = f->dev_in + in_off;
        pb->src_stride = p->dev_pitch;
        pb->src_y0 = sy0;
        pb->src_y1 = sy1;
        pb->dst = f->dev_out + out_off[i] + (gsize) py0 *p->dev_pitch;
        pb->dst_stride = p->dev_pitch;
      }
      up = &ch->h2d[ch->n_h2d++];
      up->src = in[i] + (gsize) sy0 *in_stride[i];
      up->dst = f->dev_in + in_off;
      up->spitch = in_stride[i];
      up->dpitch = p->dev_pitch;
      up->width = rb;
      up->rows = sy1 - sy0;
      in_off += p->dev_pitch * (sy1 - sy0);

      down = &ch->d2h[ch->n_d2h++];
      down->src = f->dev_out + out_off[i] + (gsize) py0 *p->dev_pitch;
      down->dst = out[i] + (gsize) py0 *out_stride[i];
      down->spitch = p->dev_pitch;
      down->dpitch = out_stride[i];
      down->width = rb;
      down->rows = py1 - py0;
    }
  }
  g_assert (direct || in_off <= f->dev_in_size);
  f->n_chunks = n;
  return n;
}
