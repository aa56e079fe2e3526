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
  gint xsub;                    /* log2 of the horizontal subsampling (0 or
                                 * 1): width has it already; the custom
                                 * kernels' ABI reports it */
  gint ysub;                    /* log2 of the vertical subsampling (0 or 1) */
  gint bits;                    /* CoPlaneBand.bits: 0 = every bit used */
  gint shift;                   /* CoPlaneBand.shift */
  gint packing;                 /* CoPacking */
  gsize dev_pitch;              /* row pitch in device memory (>= row bytes) */
} CoVideoPlaneDesc;

typedef struct
{
  CoVideoOp op;
  gint radius;                  /* box-blur; custom: kernel-halo */
  gint guard_rows;              /* rows of zeros above and below each band's
                                 * copied input (custom: a kernel reading
                                 * beyond its halo reads them, not the
                                 * neighbouring rows, on either backend) */
  const guint16 *lut;           /* gamma: the frame's first image's LUT */
  gsize lut_image_stride;       /* gamma: entries from one image's LUT to
                                 * the next (0: one LUT for all) */
  const CoCustomParams *custom; /* custom: the element's, unchanged while
                                 * frames are in flight */
  gint height;                  /* rows of the full-resolution picture */
  gint n_planes;
  CoVideoPlaneDesc planes[CO_VIDEO_MAX_PLANES];
  /* batches: image i's device areas start i strides after image 0's (at
   * least co_video_plan_sizes()'s sizes; 0 without batches) */
  gsize in_image_stride;
  gsize out_image_stride;
} CoVideoDesc;

/* Where one side's planes are (the input's, or the output's).
 * @direct: the kernels read (input) or write (output) them where they are:
 *   device memory (CUDAMemory) on the CUDA backend, the buffers themselves
 *   on the CPU backend (cpu_direct): no copy on that side, and a band's
 *   halo rows are read in place;
 * else they are host memory: each band is copied (with its halo) into the
 *   slot's input area, or from the slot's output area. */
typedef struct
{
  guint8 *data[CO_VIDEO_MAX_PLANES];
  gint stride[CO_VIDEO_MAX_PLANES];
  gboolean direct;
} CoVideoPlanes;

/* The bands of a picture: n bands, band b covering rows
 * [rows[b], rows[b + 1]) of the full-resolution picture.  Band edges fall
 * on even rows when a plane is vertically subsampled. */
guint co_video_bands (const CoVideoDesc * desc, guint chunks,
    gint rows[CO_MAX_CHUNKS + 1]);

/* Work memory one frame needs in a slot: each band's input, halo rows
 * included, unless the input is @in_direct; the output picture unless the
 * output is @out_direct.  CO_VIDEO_OP_NONE needs none, unless both sides
 * are host memory (then the output picture: the bands pass through it). */
void co_video_plan_sizes (const CoVideoDesc * desc, guint chunks,
    gboolean in_direct, gboolean out_direct, gsize * in_size, gsize * out_size);

/* Fill frame->chunks for one picture; returns the number of chunks (0 when
 * the plan is impossible: CO_VIDEO_OP_NONE with both sides direct, which
 * is a passthrough, or a batch image with a direct side).  Each chunk is a
 * band: the same rows of every plane.  Per side (CoVideoPlanes):
 *  - input host memory: the band and its halo are uploaded into the band's
 *    own part of frame->dev_in and the kernel reads them there;
 *  - input direct: no upload; the kernel reads the band and its halo rows
 *    from @in itself (its pitch);
 *  - output host memory: the kernel writes the band's rows of
 *    frame->dev_out, downloaded into @out;
 *  - output direct: no download; the kernel writes @out itself (its pitch).
 * CO_VIDEO_OP_NONE has no kernel (CO_KERNEL_NONE): each band's rows are
 * copied from @in to @out (uploaded to a direct output, downloaded from a
 * direct input; between two host sides through frame->dev_out).
 * A batch: @image 0 fills the chunks, images 1, 2, ... (in order, host
 * memory on both sides) add their copies to the same chunks, into their
 * own device areas (desc's image strides), and the chunks' kernels then
 * run over all of them (CoPlaneBand.n_images). */
guint co_video_plan (const CoVideoDesc * desc, guint chunks, guint image,
    CoFrame * frame, const CoVideoPlanes * in, const CoVideoPlanes * out);

G_END_DECLS
#endif
