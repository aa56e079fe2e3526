/* cudaoverlap: planning a video frame into chunks (horizontal bands).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Knows planes, rows and strides, not caps: the element describes the
 * negotiated format with a CoVideoDesc.
 */
#ifndef __CO_VIDEO_H__
#define __CO_VIDEO_H__

#include "co-engine.h"

G_BEGIN_DECLS typedef struct
{
  gint comps;                   /* components per pixel in this plane */
  gint comp_bytes;              /* 1 or 2 */
  guint comp_mask;              /* components the operation changes */
  gboolean use_lut;             /* gamma applies to this plane */
  gint width;                   /* pixels per row */
  gint height;                  /* rows */
  gint ysub;                    /* log2 of the vertical subsampling (0 or 1) */
  gsize dev_pitch;              /* row pitch in device memory (>= row bytes) */
} CoVideoPlaneDesc;

typedef struct
{
  CoVideoOp op;
  gint radius;
  const guint16 *lut;           /* in the engine's constant area */
  gint height;                  /* rows of the full-resolution picture */
  gint n_planes;
  CoVideoPlaneDesc planes[CO_VIDEO_MAX_PLANES];
  /* batches: image i's device areas start i strides after image 0's (at
   * least co_video_plan_sizes()'s sizes; 0 without batches) */
  gsize in_image_stride;
  gsize out_image_stride;
} CoVideoDesc;

/* The bands of a picture: n bands, band b covering rows
 * [rows[b], rows[b + 1]) of the full-resolution picture.  Band edges fall
 * on even rows when a plane is vertically subsampled. */
guint co_video_bands (const CoVideoDesc * desc, guint chunks,
    gint rows[CO_MAX_CHUNKS + 1]);

/* Device memory one frame needs (each band's input, halo rows included,
 * and the output picture). */
void co_video_plan_sizes (const CoVideoDesc * desc, guint chunks,
    gsize * in_size, gsize * out_size);

/* Fill frame->chunks for one picture.  @direct (CPU backend): kernels read
 * @in and write @out directly, no copies.  Otherwise each band is uploaded
 * (with its halo) into its own part of frame->dev_in, computed into
 * frame->dev_out and downloaded into @out.  Returns the number of chunks.
 * A batch: @image 0 fills the chunks, images 1, 2, ... (in order, not
 * @direct) add their copies to the same chunks, into their own device areas
 * (desc's image strides), and the chunks' kernels then run over all of them
 * (CoPlaneBand.n_images). */
guint co_video_plan (const CoVideoDesc * desc, guint chunks, gboolean direct,
    guint image, CoFrame * frame, guint8 * const in[CO_VIDEO_MAX_PLANES],
    const gint in_stride[CO_VIDEO_MAX_PLANES],
    guint8 * const out[CO_VIDEO_MAX_PLANES],
    const gint out_stride[CO_VIDEO_MAX_PLANES]);

G_END_DECLS
#endif
