/* cudaoverlap: planning a video frame into chunks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine overlaps the copies of one chunk with the kernel of another,
 * so a frame is cut into bands that can each be uploaded, computed and
 * downloaded on their own.  This module turns a frame's planes, the
 * operation and the memory on both sides into that plan: each band's
 * copies and kernel parameters, halo rows included for the blur.
 *
 * A chunk is a horizontal band: the same rows of every plane.  Device
 * layout of one slot (see docs/architecture.md):
 *   dev_in:  for each band, for each plane, the band's input rows plus
 *            `radius` halo rows above and below (clamped to the plane),
 *            at the plane's device pitch, between `guard_rows` rows of
 *            zeros (custom kernels).  Bands never share input memory,
 *            so no chunk waits for another.  Absent for a direct input
 *            (CUDAMemory): the kernel reads the same rows where they are.
 *   dev_out: the whole output picture, plane after plane, at device pitch;
 *            bands write disjoint rows.  Absent for a direct output: the
 *            kernel writes the rows where they go.
 */
#include "co-video.h"

/* A row's bytes: a 4:2:2 packed row's whole last pair included. */
static gsize
co_row_bytes (const CoVideoPlaneDesc * p)
{
  return (gsize) co_plane_row_bytes (p->width, p->comps, p->comp_bytes,
      p->packing);
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
  gint r = d->op == CO_VIDEO_OP_BOX_BLUR || d->op == CO_VIDEO_OP_CUSTOM ?
      d->radius : 0;

  *sy0 = MAX (0, py0 - r);
  *sy1 = MIN (p->height, py1 + r);
}

void
co_video_plan_sizes (const CoVideoDesc * d, guint chunks, gboolean in_direct,
    gboolean out_direct, gsize * in_size, gsize * out_size)
{
  gint rows[CO_MAX_CHUNKS + 1];
  guint n = co_video_bands (d, chunks, rows), b;
  gboolean none = d->op == CO_VIDEO_OP_NONE;
  gint i;

  *in_size = *out_size = 0;
  if (!out_direct && !(none && in_direct))
    for (i = 0; i < d->n_planes; i++)
      *out_size += d->planes[i].dev_pitch * d->planes[i].height;
  for (b = 0; b < n && !in_direct && !none; b++) {
    for (i = 0; i < d->n_planes; i++) {
      const CoVideoPlaneDesc *p = &d->planes[i];
      gint py0, py1, sy0, sy1;

      co_plane_rows (p, rows[b], rows[b + 1], &py0, &py1);
      co_halo_rows (d, p, py0, py1, &sy0, &sy1);
      *in_size += p->dev_pitch * (sy1 - sy0 + 2 * d->guard_rows);
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

  ch->kind = d->op == CO_VIDEO_OP_NONE ? CO_KERNEL_NONE :
      d->op == CO_VIDEO_OP_CUSTOM ? CO_KERNEL_CUSTOM_VIDEO : CO_KERNEL_VIDEO;
  ch->n_h2d = ch->n_d2h = ch->n_d2d = 0;
  vp->op = d->op;
  vp->n_planes = d->n_planes;
  vp->radius = d->radius;
  vp->lut = d->lut;
  vp->custom = d->custom;
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
  pb->bits = p->bits;
  pb->shift = p->shift;
  pb->packing = p->packing;
  pb->lut_image_stride = (int64_t) d->lut_image_stride;
  pb->src_image_stride = d->in_image_stride;
  pb->dst_image_stride = d->out_image_stride;
}

static CoCopy *
co_add_copy (CoCopy * list, guint * n, const guint8 * src, gsize spitch,
    guint8 * dst, gsize dpitch, gsize width, gint rows)
{
  CoCopy *c = &list[(*n)++];

  c->src = src;
  c->dst = dst;
  c->spitch = spitch;
  c->dpitch = dpitch;
  c->width = width;
  c->rows = rows;
  return c;
}

/* The kernel's input for plane @i of the band: the band and its halo where
 * they are (direct), or uploaded into the band's own input area at @in_off
 * (image i's areas: image 0's, i image strides further).  Returns the
 * offset of the next input area. */
static gsize
co_band_input (CoChunk * ch, CoPlaneBand * pb, const CoFrame * f,
    const CoVideoDesc * d, const CoVideoPlaneDesc * p, guint image,
    const CoBandRows * br, gsize in_off, const CoVideoPlanes * in, gint i)
{
  gsize stride = in->stride[i];
  gsize guard = p->dev_pitch * d->guard_rows;
  const guint8 *src = in->data[i] + (gsize) br->sy0 * stride;

  pb->src_y0 = br->sy0;
  pb->src_y1 = br->sy1;
  if (in->direct) {
    pb->src = src;
    pb->src_stride = stride;
    return in_off;
  }
  /* the guard rows above, never written: zeros since the engine's open */
  in_off += guard;
  if (image == 0) {
    pb->src = f->dev_in + in_off;
    pb->src_stride = p->dev_pitch;
  }
  co_add_copy (ch->h2d, &ch->n_h2d, src, stride, f->dev_in + in_off,
      p->dev_pitch, co_row_bytes (p), br->sy1 - br->sy0);
  return in_off + p->dev_pitch * (br->sy1 - br->sy0) + guard;
}

/* The kernel's output for plane @i of the band: the band's rows where they
 * go (direct), or in the output picture at @out_off, downloaded. */
static void
co_band_output (CoChunk * ch, CoPlaneBand * pb, const CoFrame * f,
    const CoVideoPlaneDesc * p, guint image, const CoBandRows * br,
    gsize out_off, const CoVideoPlanes * out, gint i)
{
  gsize stride = out->stride[i];
  guint8 *dst = out->data[i] + (gsize) br->py0 * stride;
  guint8 *area = f->dev_out + out_off + (gsize) br->py0 * p->dev_pitch;

  if (out->direct) {
    pb->dst = dst;
    pb->dst_stride = stride;
    return;
  }
  if (image == 0) {
    pb->dst = area;
    pb->dst_stride = p->dev_pitch;
  }
  co_add_copy (ch->d2h, &ch->n_d2h, area, p->dev_pitch, dst, stride,
      co_row_bytes (p), br->py1 - br->py0);
}

/* CO_VIDEO_OP_NONE: the band's rows of plane @i copied, no kernel: up into
 * a direct output, down from a direct input, or up and down again through
 * the output picture at @out_off. */
static void
co_band_copy_only (CoChunk * ch, const CoFrame * f,
    const CoVideoPlaneDesc * p, const CoBandRows * br, gsize out_off,
    const CoVideoPlanes * in, const CoVideoPlanes * out, gint i)
{
  gsize rb = co_row_bytes (p);
  gint rows = br->py1 - br->py0;
  const guint8 *src = in->data[i] + (gsize) br->py0 * in->stride[i];
  guint8 *dst = out->data[i] + (gsize) br->py0 * out->stride[i];
  guint8 *area = f->dev_out + out_off + (gsize) br->py0 * p->dev_pitch;

  if (out->direct) {
    co_add_copy (ch->h2d, &ch->n_h2d, src, in->stride[i], dst,
        out->stride[i], rb, rows);
  } else if (in->direct) {
    co_add_copy (ch->d2h, &ch->n_d2h, src, in->stride[i], dst,
        out->stride[i], rb, rows);
  } else {
    co_add_copy (ch->h2d, &ch->n_h2d, src, in->stride[i], area,
        p->dev_pitch, rb, rows);
    co_add_copy (ch->d2h, &ch->n_d2h, area, p->dev_pitch, dst,
        out->stride[i], rb, rows);
  }
}

/* One plane of one band: the kernel's input and output, or the copies of
 * CO_VIDEO_OP_NONE.  Returns the offset of the next input area. */
static gsize
co_plan_plane (const CoVideoDesc * d, CoChunk * ch, const CoFrame * f,
    guint image, gint i, const gint rows[2], gsize in_off, gsize out_off,
    const CoVideoPlanes * in, const CoVideoPlanes * out)
{
  const CoVideoPlaneDesc *p = &d->planes[i];
  CoPlaneBand *pb = &ch->params.video.planes[i];
  CoBandRows br;

  co_plane_rows (p, rows[0], rows[1], &br.py0, &br.py1);
  co_halo_rows (d, p, br.py0, br.py1, &br.sy0, &br.sy1);
  if (image == 0)
    co_band_describe (pb, d, p, &br);
  pb->n_images = image + 1;
  if (d->op == CO_VIDEO_OP_NONE) {
    co_band_copy_only (ch, f, p, &br, out_off, in, out, i);
    return in_off;
  }
  co_band_output (ch, pb, f, p, image, &br, out_off, out, i);
  return co_band_input (ch, pb, f, d, p, image, &br, in_off, in, i);
}

guint
co_video_plan (const CoVideoDesc * d, guint chunks, guint image, CoFrame * f,
    const CoVideoPlanes * in, const CoVideoPlanes * out)
{
  gint rows[CO_MAX_CHUNKS + 1];
  guint n = co_video_bands (d, chunks, rows), b;
  gsize in_off = image * d->in_image_stride, out_off[CO_VIDEO_MAX_PLANES];
  gint i;

  g_return_val_if_fail (image == 0 || (!in->direct && !out->direct), 0);
  g_return_val_if_fail (d->op != CO_VIDEO_OP_NONE || !in->direct ||
      !out->direct, 0);
  out_off[0] = image * d->out_image_stride;
  for (i = 1; i < d->n_planes; i++)
    out_off[i] = out_off[i - 1] +
        d->planes[i - 1].dev_pitch * d->planes[i - 1].height;

  for (b = 0; b < n; b++) {
    CoChunk *ch = &f->chunks[b];

    if (image == 0)
      co_chunk_describe (ch, d);
    g_return_val_if_fail (ch->n_h2d + d->n_planes <= CO_CHUNK_MAX_COPIES, 0);
    for (i = 0; i < d->n_planes; i++)
      in_off = co_plan_plane (d, ch, f, image, i, &rows[b], in_off,
          out_off[i], in, out);
  }
  g_assert (in->direct || d->op == CO_VIDEO_OP_NONE ||
      in_off <= f->dev_in_size);
  f->n_chunks = n;
  return n;
}
