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

/* The rows of one plane that one band writes and reads. */
typedef struct
{
  gint py0, py1;                /* output rows of the plane */
  gint sy0, sy1;                /* input rows: plus the halo, clamped */
} CoBandRows;

/* Image 0: the chunk's kind, no copies yet, and the operation. */
static void
co_chunk_describe (CoChunk * ch, const CoVideoDesc * d)
{
  CoVideoParams *vp = &ch->params.video;

  ch->kind = CO_KERNEL_VIDEO;
  ch->n_h2d = ch->n_d2h = 0;
  vp->op = d->op;
  vp->n_planes = d->n_planes;
  vp->radius = d->radius;
  vp->lut = d->lut;
}

/* Image 0: what the kernel needs to know of plane @p's band, the same for
 * every image of a batch. */
static void
co_band_describe (CoPlaneBand * pb, const CoVideoDesc * d,
    const CoVideoPlaneDesc * p, const CoBandRows * br)
{
  pb->width = p->width;
  pb->height = p->height;
  pb->y0 = br->py0;
  pb->y1 = br->py1;
  pb->comps = p->comps;
  pb->comp_bytes = p->comp_bytes;
  pb->comp_mask = p->comp_mask;
  pb->use_lut = p->use_lut;
  pb->src_image_stride = d->in_image_stride;
  pb->dst_image_stride = d->out_image_stride;
}

/* Direct: the kernel reads the whole input plane @in and writes the band's
 * rows of @out in place, no copies. */
static void
co_band_direct (CoPlaneBand * pb, const CoVideoPlaneDesc * p, guint8 * in,
    gint in_stride, guint8 * out, gint out_stride, const CoBandRows * br)
{
  pb->src = in;
  pb->src_stride = in_stride;
  pb->src_y0 = 0;
  pb->src_y1 = p->height;
  pb->dst = out + (gsize) br->py0 * out_stride;
  pb->dst_stride = out_stride;
}

/* Staged: upload the band and its halo into the band's own input area at
 * @in_off (image i's areas: image 0's, i image strides further) and
 * download the band's rows from the output plane at @out_off.  Returns the
 * offset of the next input area. */
static gsize
co_band_copies (CoChunk * ch, CoPlaneBand * pb, const CoFrame * f,
    const CoVideoPlaneDesc * p, guint image, const CoBandRows * br,
    gsize in_off, gsize out_off, guint8 * in, gint in_stride, guint8 * out,
    gint out_stride)
{
  gsize rb = co_row_bytes (p);
  CoCopy *up, *down;

  if (image == 0) {
    pb->src = f->dev_in + in_off;
    pb->src_stride = p->dev_pitch;
    pb->src_y0 = br->sy0;
    pb->src_y1 = br->sy1;
    pb->dst = f->dev_out + out_off + (gsize) br->py0 * p->dev_pitch;
    pb->dst_stride = p->dev_pitch;
  }
  up = &ch->h2d[ch->n_h2d++];
  up->src = in + (gsize) br->sy0 * in_stride;
  up->dst = f->dev_in + in_off;
  up->spitch = in_stride;
  up->dpitch = p->dev_pitch;
  up->width = rb;
  up->rows = br->sy1 - br->sy0;
  in_off += p->dev_pitch * (br->sy1 - br->sy0);

  down = &ch->d2h[ch->n_d2h++];
  down->src = f->dev_out + out_off + (gsize) br->py0 * p->dev_pitch;
  down->dst = out + (gsize) br->py0 * out_stride;
  down->spitch = p->dev_pitch;
  down->dpitch = out_stride;
  down->width = rb;
  down->rows = br->py1 - br->py0;
  return in_off;
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

    if (image == 0)
      co_chunk_describe (ch, d);
    g_return_val_if_fail (ch->n_h2d + d->n_planes <= CO_CHUNK_MAX_COPIES, 0);

    for (i = 0; i < d->n_planes; i++) {
      const CoVideoPlaneDesc *p = &d->planes[i];
      CoPlaneBand *pb = &vp->planes[i];
      CoBandRows br;

      co_plane_rows (p, rows[b], rows[b + 1], &br.py0, &br.py1);
      co_halo_rows (d, p, br.py0, br.py1, &br.sy0, &br.sy1);
      if (image == 0)
        co_band_describe (pb, d, p, &br);
      pb->n_images = image + 1;

      if (direct)
        co_band_direct (pb, p, in[i], in_stride[i], out[i], out_stride[i], &br);
      else
        in_off = co_band_copies (ch, pb, f, p, image, &br, in_off,
            out_off[i], in[i], in_stride[i], out[i], out_stride[i]);
    }
  }
  g_assert (direct || in_off <= f->dev_in_size);
  f->n_chunks = n;
  return n;
}
