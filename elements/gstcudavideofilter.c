/* cudaoverlap: cudavideofilter.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-cudavideofilter
 * @title: cudavideofilter
 *
 * Processes raw video on a CUDA GPU with its copies overlapped against
 * compute: every frame is cut into #GstCudaOverlapFilter:chunks horizontal
 * bands; each band is copied host→device, computed and copied device→host
 * on its own CUDA stream, so one band's (or frame's) copies run while
 * another's kernel does.  Buffers come from, and are proposed upstream as,
 * page-locked (pinned) memory; foreign memory is page-locked with
 * cudaHostRegister for as long as it lives.  Output is bit-identical to the
 * CPU backend and to a naive reference for every operation, format, size,
 * number of streams and chunks.
 *
 * Operations: `invert` (each colour component c becomes max − c),
 * `gamma` (out = floor (max · (in / max)^(1/gamma) + 0.5), through a table
 * built in double precision; YUV: luma only) and `box-blur` (each
 * colour component becomes (sum + n/2) / n over the (2r+1)² window around
 * it, n = (2r+1)², borders replicated; chroma planes in their own geometry).
 * Alpha and padding bytes pass through unchanged.  Samples with padding
 * bits (P010_10LE: 10 bits at bit 6 of 16; I420_10LE: 10 bits at bit 0)
 * are worked on as their values c = (sample >> shift) & M, M = 2^bits − 1
 * (1023), written back as c' << shift with every padding bit 0, whatever
 * the input's: invert gives (M − c) << shift, gamma lut[c] << shift with a
 * table of M + 1 entries (chroma: c << shift), box-blur the mean of the
 * values; so gamma 1 and radius 0 clear the padding bits of these formats
 * instead of passing buffers through (`none` copies bytes as they are).
 * P016_LE uses all 16 bits, as GRAY16_LE does.  Packed 4:2:2 (YUY2,
 * UYVY): invert 255 − c on Y, U and V, gamma on Y only, box-blur with Y on
 * its W-sample grid and U and V each on its ceil (W/2)-sample grid (the
 * same result as Y42B); an odd width's last pair ends with a padding luma
 * sample, copied unchanged and in no window.  RGB10A2_LE and BGR10A2_LE
 * (a 32-bit little-endian word per pixel): invert 1023 − c and gamma
 * (max 1023, a 1024-entry table) on the three 10-bit components, box-blur
 * per component; the 2-bit alpha is copied.  `custom` runs a kernel
 * of the user's on every band (#GstCudaOverlapVideoFilter:kernel-module,
 * #GstCudaOverlapVideoFilter:kernel-name, with
 * #GstCudaOverlapVideoFilter:kernel-halo rows above and below each band and
 * #GstCudaOverlapVideoFilter:kernel-params; on the CPU backend a C function
 * of the same ABI, #GstCudaOverlapVideoFilter:kernel-cpu-library): the ABI
 * is gst/cudaoverlap/cudaoverlap-kernel.h and docs/custom-kernels.md.  From
 * C, #GstCudaOverlapVideoFilter:kernel-launcher takes functions of the
 * application's own instead (a GstCudaOverlapKernelLauncher: called per
 * launch with the same struct and, on CUDA, the engine's stream).
 * `none` changes nothing:
 * with the same memory on both pads buffers pass through; between system
 * and CUDA memory it is an overlapped, chunked upload or download (copies
 * only, from or into page-locked memory), the answer to
 * cudaupload/cudadownload.
 *
 * CUDA memory: each pad carries system memory or
 * `video/x-raw(memory:CUDAMemory)` (every format but GRAY8, GRAY16_LE, xRGB
 * and xBGR), whichever its neighbour takes; the output keeps the input's
 * memory unless downstream takes only the other one.  CUDA memory in: the
 * kernels read it in place (no host-to-device copy); CUDA memory out: they
 * write buffers of a GstCudaBufferPool (no device-to-host copy).  The
 * element shares one GstCudaContext with NVIDIA's elements (GstContext
 * "gst.cuda.context"), or, when first, shares the device's primary
 * context.  gst-plugins-bad's CUDA library is loaded at run time: without
 * it, a GPU, or with backend=cpu, only system memory is offered.
 *
 * Metadata: each output buffer gets its input's timestamps, offsets and
 * flags, and every meta of its input that still holds for it.  The
 * operations change pixel values, never the geometry, so a meta without
 * tags (#GstVideoTimeCodeMeta, #GstVideoCaptionMeta,
 * #GstReferenceTimestampMeta, an application's custom metas) and a meta
 * tagged only "video", "orientation" and/or "size"
 * (#GstVideoRegionOfInterestMeta, #GstVideoCropMeta,
 * #GstVideoAffineTransformationMeta, AFD and bar metas) is copied with its
 * own transform function.  Not copied: the input's #GstVideoMeta (the
 * output buffer has its own, for its own strides), metas bound to the
 * input's memory (tagged "memory" or "memory-reference",
 * #GstParentBufferMeta), #GstProtectionMeta, metas with any other tag
 * ("colorspace" among them), and metas without a transform function.  This
 * is broader than #GstVideoFilter's rule on purpose: that copies only metas
 * without tags or with the single tag "video", so it drops regions of
 * interest, crops and affine transformations (and it copies
 * #GstProtectionMeta).
 *
 * Passthrough: with identity settings (`gamma` at 1 with operation=gamma,
 * `radius` 0 with operation=box-blur) every input buffer goes on as it is,
 * with no copy and no kernel; the statistics say `passthrough=true` and
 * count those frames in `frames-passthrough`.  A switch into or out of it
 * while playing first lets the frames in flight out, so the order holds.
 *
 * QoS: with #GstCudaOverlapVideoFilter:qos (on by default, as in
 * #GstVideoFilter), input frames that downstream's QOS events say are
 * already late are dropped before any work, with a QOS message each.
 *
 * The element posts `cudaoverlap-passport` once when streaming starts and
 * `cudaoverlap-stats` every #GstCudaOverlapFilter:stats-interval and at EOS;
 * docs/stats.md describes every field.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudavideofilter operation=box-blur radius=4 ! nvh264enc ! h264parse ! mp4mux ! filesink location=out.mp4
 * ]| Decodes, blurs and encodes on the GPU: the frames stay in CUDA memory,
 * nothing crosses PCIe (for GPUs with NVDEC and NVENC).
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=3840,height=2160 ! cudavideofilter operation=none ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! fakesink
 * ]| An upload: chunked, overlapped copies from page-locked memory into
 * CUDA memory, no kernel.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=3840,height=2160 ! cudavideofilter operation=invert streams=4 chunks=4 ! fakesink
 * ]| Inverts 4K RGBA frames on the GPU, four bands per frame on four streams.
 * |[
 * gst-launch-1.0 -m videotestsrc ! video/x-raw,format=NV12 ! cudavideofilter operation=box-blur radius=8 ! videoconvert ! autovideosink
 * ]| Blurs, and prints the statistics messages.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudavideofilter operation=custom kernel-module=sobel.ptx kernel-name=co_sobel kernel-halo=1 kernel-formats="RGBA, GRAY8" ! videoconvert ! autovideosink
 * ]| A Sobel edge detector of the user's (examples/kernels/sobel.cu, built
 * with nvcc -ptx) on the engine: bands, halos, streams and statistics as
 * for the built-in operations.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudavideofilter operation=gamma gamma=2.2 mode=serial ! fakesink
 * ]| The sequential control: one stream, one chunk, a wait per frame.
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=RGBA,width=3840,height=2160,framerate=60/1 ! cudavideofilter operation=invert streams=8 chunks=4 wait-mode=spin ! fakesink
 * ]| A live source at the lowest latency: four bands per frame on their own
 * streams, and the push thread polls for the frame instead of sleeping.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=3000 ! video/x-raw,format=RGBA,width=3840,height=2160 ! cudavideofilter operation=invert streams=4 chunks=1 ! fakesink
 * ]| Highest throughput and least host CPU per frame: whole frames, four
 * in flight on four streams (docs/PERFORMANCE.md, tuning guide).
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100000 ! video/x-raw,format=GRAY8,width=640,height=480 ! cudavideofilter operation=invert streams=8 chunks=1 batch=8 ! fakesink
 * ]| Small frames at a high rate: eight frames per device submission, so one
 * kernel launch and one set of timing events serve all eight (each frame
 * still has its own copies).  A batch never waits long for frames that do
 * not come: a partial batch goes once no frame has come for min (one frame
 * duration, 20 ms); it shrinks when upstream feeds from a small pool of its
 * own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/video/video.h>

#include "gstcudavideofilter.h"
#include "co-fault.h"
#include "gstcudaoverlap-cudamem.h"
#include "gstcudaoverlap-custom.h"
#include "co-video.h"
#include "gstcudavideofilter-gamma.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_video_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_video_filter_debug

#define FORMATS "{ GRAY8, GRAY16_LE, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, " \
  "xRGB, xBGR, RGB, BGR, NV12, NV21, I420, YV12, Y42B, Y444, Y444_16LE, " \
  "P010_10LE, P016_LE, I420_10LE, YUY2, UYVY, RGB10A2_LE, BGR10A2_LE }"
/* Ours that 1.22's CUDA memory (nvcodec) carries too: not GRAY8, GRAY16_LE,
 * xRGB, xBGR, which stay in system memory.  Its layouts differ from
 * GstVideoInfo's defaults (I420's, YV12's, I420_10LE's and Y42B's chroma
 * planes have the luma pitch): each buffer is read as its video meta, or
 * else its GstCudaMemory's info, says. */
#define CUDA_FORMATS "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, RGB, BGR, " \
  "NV12, NV21, I420, YV12, Y42B, Y444, Y444_16LE, P010_10LE, P016_LE, " \
  "I420_10LE, YUY2, UYVY, RGB10A2_LE, BGR10A2_LE }"

/* Metas tagged only with these (or with nothing) hold for the output: our
 * operations change pixel values, never the geometry. */
static const gchar *const meta_tags[] = { GST_META_TAG_VIDEO_STR,
  GST_META_TAG_VIDEO_ORIENTATION_STR, GST_META_TAG_VIDEO_SIZE_STR, NULL
};

#define DEFAULT_OPERATION CO_VIDEO_OP_INVERT
#define DEFAULT_GAMMA 1.0
#define DEFAULT_RADIUS 2
#define DEFAULT_BATCH 0         /* automatic */
#define DEFAULT_QOS TRUE

enum
{
  PROP_0,
  PROP_OPERATION,
  PROP_GAMMA,
  PROP_RADIUS,
  PROP_BATCH,
  PROP_QOS,
  PROP_KERNEL_FIRST,            /* operation=custom's (gstcudaoverlap-custom.h) */
};

struct _GstCudaOverlapVideoFilter
{
  GstCudaOverlapFilter parent;

  GstVideoInfo info;
  CoVideoDesc desc;

  /* properties (object lock) */
  CoVideoOp operation;
  gdouble gamma;
  guint radius;
  guint batch;

  GstCudaOverlapCustom custom;  /* operation=custom's properties */

  guint batch_eff;              /* in effect since configure */
  gboolean in_cuda, out_cuda;   /* memory:CUDAMemory, since configure */
  /* object lock: the last gamma set while the operation was gamma, kept
   * when the operation changes (see frame_gamma) */
  gdouble gamma_at_op_change;
  GstCudaVideoGamma tables;     /* operation=gamma's, one per frame */
};

typedef struct
{
  GstVideoFrame in, out;
  gboolean in_mapped, out_mapped;
  guint table;                  /* its gamma table, or GST_CUDA_VIDEO_GAMMA_NONE */
  gdouble gamma;
} FramePriv;

/* CUDA memory first, system memory second (gstcudaoverlapfilter.c
 * leaves CUDA memory out where it cannot be used) */
#define TEMPLATE_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA, \
      CUDA_FORMATS) "; " GST_VIDEO_CAPS_MAKE (FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (TEMPLATE_CAPS));

#define GST_TYPE_CUDA_VIDEO_OPERATION (gst_cuda_video_operation_get_type ())
static GType
gst_cuda_video_operation_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CO_VIDEO_OP_INVERT, "Invert: c becomes max - c", "invert"},
    {CO_VIDEO_OP_GAMMA, "Gamma: max * (c / max)^(1 / gamma), rounded "
          "(YUV: luma only)", "gamma"},
    {CO_VIDEO_OP_BOX_BLUR, "Box blur: integer mean over (2 radius + 1)^2, "
          "borders replicated", "box-blur"},
    {CO_VIDEO_OP_NONE, "None: frames unchanged; buffers pass through when "
          "both pads have the same memory, else an overlapped chunked "
          "upload (system to CUDA memory) or download (CUDA to system "
          "memory)", "none"},
    {CO_VIDEO_OP_CUSTOM, "Custom: the user's kernel (kernel-module, "
          "kernel-name, kernel-halo rows; docs/custom-kernels.md)", "custom"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstCudaOverlapVideoOperation", values));
  return type;
}

G_DEFINE_TYPE (GstCudaOverlapVideoFilter, gst_cuda_overlap_video_filter,
    GST_TYPE_CUDA_OVERLAP_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudavideofilter, "cudavideofilter",
    GST_RANK_NONE, GST_TYPE_CUDA_OVERLAP_VIDEO_FILTER);

static void
gst_cuda_overlap_video_filter_set_property (GObject * object, guint id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (object);
  gboolean changed = TRUE;

  if (gst_cuda_overlap_custom_owns (pspec)) {
    GST_OBJECT_LOCK (self);
    changed = self->operation == CO_VIDEO_OP_CUSTOM;
    GST_OBJECT_UNLOCK (self);
    gst_cuda_overlap_custom_set_property (&self->custom,
        GST_CUDA_OVERLAP_FILTER (self), changed, pspec, value);
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_OPERATION:
      changed = self->operation != (CoVideoOp) g_value_get_enum (value);
      if (changed && self->operation == CO_VIDEO_OP_GAMMA)
        self->gamma_at_op_change = self->gamma;
      self->operation = g_value_get_enum (value);
      break;
    case PROP_GAMMA:
      /* read for each buffer: it travels with the frame */
      self->gamma = g_value_get_double (value);
      changed = FALSE;
      break;
    case PROP_RADIUS:
      changed = self->radius != g_value_get_uint (value);
      self->radius = g_value_get_uint (value);
      break;
    case PROP_BATCH:
      changed = self->batch != g_value_get_uint (value);
      self->batch = g_value_get_uint (value);
      break;
    case PROP_QOS:
      changed = FALSE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      changed = FALSE;
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (id == PROP_QOS)
    gst_cuda_overlap_filter_set_qos_enabled (GST_CUDA_OVERLAP_FILTER (self),
        g_value_get_boolean (value));
  /* takes effect with the next frame, after the ones in flight */
  if (changed)
    gst_cuda_overlap_filter_mark_dirty (GST_CUDA_OVERLAP_FILTER (self));
}

static void
gst_cuda_overlap_video_filter_get_property (GObject * object, guint id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (object);

  if (gst_cuda_overlap_custom_owns (pspec)) {
    gst_cuda_overlap_custom_get_property (&self->custom,
        GST_CUDA_OVERLAP_FILTER (self), pspec, value);
    return;
  }
  if (id == PROP_QOS) {
    /* the base class keeps it, under the object lock */
    g_value_set_boolean (value,
        gst_cuda_overlap_filter_is_qos_enabled (GST_CUDA_OVERLAP_FILTER
            (self)));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (id) {
    case PROP_OPERATION:
      g_value_set_enum (value, self->operation);
      break;
    case PROP_GAMMA:
      g_value_set_double (value, self->gamma);
      break;
    case PROP_RADIUS:
      g_value_set_uint (value, self->radius);
      break;
    case PROP_BATCH:
      g_value_set_uint (value, self->batch);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* operation=custom (object lock): the kernel's description, its geometry
 * and the engine's spec; FALSE when the kernel does not take the format. */
static gboolean
configure_custom (GstCudaOverlapVideoFilter * self, CoEngineConfig * cfg,
    GError ** error)
{
  const GstVideoInfo *info = &self->info;
  CoCustomParams *run = &self->custom.run;
  CoVideoDesc *d = &self->desc;
  guint i;

  guint32 abi = gst_cuda_overlap_kernel_format_from_name (GST_VIDEO_INFO_NAME
      (info));

  /* a format the kernels' ABI does not describe never reaches a kernel */
  if (abi == GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "operation=custom: the kernels' ABI has no format %s",
        GST_VIDEO_INFO_NAME (info));
    return FALSE;
  }
  if (!gst_cuda_overlap_custom_configure (&self->custom,
          GST_VIDEO_INFO_NAME (info), abi, FALSE, cfg, error))
    return FALSE;
  run->width = GST_VIDEO_INFO_WIDTH (info);
  for (i = 0; i < (guint) d->n_planes; i++) {
    run->x_shift[i] = d->planes[i].xsub;
    run->y_shift[i] = d->planes[i].ysub;
  }
  d->radius = run->halo;
  d->custom = run;
  return TRUE;
}

/* The packed formats, one plane of 32-bit words (CoPacking): YUY2 and
 * UYVY a 4:2:2 pair a word, comps 2 (luma, and the chroma of its pair),
 * width in luma samples (the kernels cover an odd width's last pair);
 * RGB10A2_LE and BGR10A2_LE a pixel a word, three 10-bit components and
 * a 2-bit alpha that is never changed.  Gamma goes through the luma of
 * YUY2 and UYVY only (the kernels know which component that is). */
static gboolean
describe_packed (const GstVideoInfo * info, CoVideoDesc * d)
{
  CoVideoPlaneDesc *p = &d->planes[0];

  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_YUY2:
      p->packing = CO_PACK_422_YUYV;
      break;
    case GST_VIDEO_FORMAT_UYVY:
      p->packing = CO_PACK_422_UYVY;
      break;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
      p->packing = CO_PACK_10_10_10_2;
      break;
    default:
      return FALSE;
  }
  d->height = GST_VIDEO_INFO_HEIGHT (info);
  d->n_planes = 1;
  p->comp_bytes = 1;
  p->comps = p->packing == CO_PACK_10_10_10_2 ? 4 : 2;
  p->bits = p->packing == CO_PACK_10_10_10_2 ? 10 : 0;
  p->comp_mask = p->packing == CO_PACK_10_10_10_2 ? 0x7 : 0x3;
  p->use_lut = TRUE;
  p->width = GST_VIDEO_INFO_WIDTH (info);
  p->height = GST_VIDEO_INFO_HEIGHT (info);
  p->dev_pitch = GST_VIDEO_INFO_PLANE_STRIDE (info, 0);
  return TRUE;
}

/* The planes of a format as the kernels see them, from its
 * GstVideoFormatInfo: our formats are planes of 1 to 4 interleaved
 * components of 8 or 16 bits (little-endian) each.  A plane's comps are
 * its pixel stride in samples; comp_mask has the bit of each component but
 * alpha (the bits of padding bytes, 'x', are clear); gamma goes through
 * luma only in YUV formats.  A sample's value has the format's depth, at
 * its shift: bits (0 where the depth fills the sample) and shift
 * (P010_10LE: 10 at 6; I420_10LE: 10 at 0). */
static gboolean
describe_format (const GstVideoInfo * info, CoVideoDesc * d)
{
  const GstVideoFormatInfo *fi = info->finfo;
  gint i, k, bytes;

  switch (GST_VIDEO_INFO_FORMAT (info)) {
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_GRAY16_LE:
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
    case GST_VIDEO_FORMAT_ARGB:
    case GST_VIDEO_FORMAT_ABGR:
    case GST_VIDEO_FORMAT_xRGB:
    case GST_VIDEO_FORMAT_xBGR:
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y444:
    case GST_VIDEO_FORMAT_Y444_16LE:
    case GST_VIDEO_FORMAT_P010_10LE:
    case GST_VIDEO_FORMAT_P016_LE:
    case GST_VIDEO_FORMAT_I420_10LE:
      break;
    default:
      return describe_packed (info, d);
  }

  bytes = (GST_VIDEO_FORMAT_INFO_DEPTH (fi, 0) + 7) / 8;
  d->height = GST_VIDEO_INFO_HEIGHT (info);
  d->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  for (i = 0; i < d->n_planes; i++) {
    CoVideoPlaneDesc *p = &d->planes[i];
    gint comp[GST_VIDEO_MAX_COMPONENTS];

    /* the components in plane i (YV12's plane 1 holds V), -1 after them */
    gst_video_format_info_component (fi, i, comp);
    p->comps = GST_VIDEO_FORMAT_INFO_PSTRIDE (fi, comp[0]) / bytes;
    p->comp_bytes = bytes;
    p->comp_mask = 0;
    /* a component's place: its byte offset in samples, rounded up (1.22's
     * table gives the V of P010_10LE and P016_LE the offset 1, not 2) */
    for (k = 0; k < GST_VIDEO_MAX_COMPONENTS && comp[k] >= 0; k++)
      if (comp[k] != GST_VIDEO_COMP_A)
        p->comp_mask |= 1u << ((GST_VIDEO_FORMAT_INFO_POFFSET (fi,
                    comp[k]) + bytes - 1) / bytes);
    p->use_lut = !GST_VIDEO_FORMAT_INFO_IS_YUV (fi) || i == 0;
    p->xsub = GST_VIDEO_FORMAT_INFO_W_SUB (fi, comp[0]);
    p->ysub = GST_VIDEO_FORMAT_INFO_H_SUB (fi, comp[0]);
    p->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
    p->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
    p->dev_pitch = GST_VIDEO_INFO_PLANE_STRIDE (info, i);
    p->bits = GST_VIDEO_FORMAT_INFO_DEPTH (fi, comp[0]);
    if (p->bits == 8 * bytes)
      p->bits = 0;
    p->shift = GST_VIDEO_FORMAT_INFO_SHIFT (fi, comp[0]);
  }
  return TRUE;
}

/* Whether a plane's samples have padding bits (P010_10LE, I420_10LE):
 * invert, gamma and box-blur clear them, so no setting leaves a frame as
 * it is. */
static gboolean
has_padding_bits (const CoVideoDesc * d)
{
  gint i;

  for (i = 0; i < d->n_planes; i++)
    if (d->planes[i].bits != 0)
      return TRUE;
  return FALSE;
}

/* With the object lock.  Device memory on a pad takes one frame per
 * submission: the images of a batch lie at one stride from each other in
 * the slot's areas, and CUDA-memory buffers are each where they are. */
static guint
effective_batch (GstCudaOverlapVideoFilter * self)
{
  if (self->in_cuda || self->out_cuda)
    return 1;
  /* 0: the automatic settings' choice */
  return self->batch ? self->batch :
      gst_cuda_overlap_filter_auto_batch (GST_CUDA_OVERLAP_FILTER (self));
}

/* Rows of zeros around each band of a user's kernel (co-video.h). */
#define CUSTOM_GUARD_ROWS 2

/* Whether the CPU backend's kernels read and write the buffers in place:
 * not in batches, which are laid out in its work memory like on the
 * device, nor for a user's kernel, which gets its bands copied with only
 * kernel-halo rows around them as on the device, so that a kernel reading
 * beyond its halo goes wrong on the CPU backend too, not only on a GPU. */
static gboolean
cpu_direct (GstCudaOverlapVideoFilter * self)
{
  return self->batch_eff == 1 && self->desc.op != CO_VIDEO_OP_CUSTOM;
}

static gsize
gst_cuda_overlap_video_filter_configure (GstCudaOverlapFilter * base,
    GstCaps * caps, CoEngineConfig * cfg, GError ** error)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  CoVideoDesc *d = &self->desc;

  if (!gst_video_info_from_caps (&self->info, caps)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "invalid video caps");
    return 0;
  }
  memset (d, 0, sizeof (*d));
  if (!describe_format (&self->info, d)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "unsupported format %s",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&self->info)));
    return 0;
  }
  self->in_cuda = gst_cuda_overlap_filter_pad_is_cuda (base, GST_PAD_SINK);
  self->out_cuda = gst_cuda_overlap_filter_pad_is_cuda (base, GST_PAD_SRC);
  GST_OBJECT_LOCK (self);
  d->op = self->operation;
  d->radius = self->radius;
  /* a user's kernel that reads beyond kernel-halo reads zeros, on the
   * CPU backend as on a GPU (see cpu_direct) */
  d->guard_rows = d->op == CO_VIDEO_OP_CUSTOM ? CUSTOM_GUARD_ROWS : 0;
  self->batch_eff = effective_batch (self);
  if (d->op == CO_VIDEO_OP_CUSTOM && !configure_custom (self, cfg, error)) {
    GST_OBJECT_UNLOCK (self);
    return 0;
  }
  GST_OBJECT_UNLOCK (self);
  if (!self->batch_eff)
    self->batch_eff = gst_cuda_overlap_filter_auto_batch (base);
  if (d->op == CO_VIDEO_OP_BOX_BLUR && d->radius > 0 &&
      GST_VIDEO_INFO_IS_INTERLACED (&self->info)) {
    /* a window over rows of both fields would mix two moments in time */
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "box-blur does not take interlaced video (interlace-mode=%s): its "
        "window would mix the two fields. Deinterlace first (e.g. "
        "deinterlace ! cudavideofilter), or use invert or gamma, which work "
        "per pixel", gst_video_interlace_mode_to_string
        (GST_VIDEO_INFO_INTERLACE_MODE (&self->info)));
    return 0;
  }

  /* device memory on a pad: read or written in place, no slot area */
  co_video_plan_sizes (d, cfg->chunks, self->in_cuda, self->out_cuda,
      &cfg->dev_in_size, &cfg->dev_out_size);
  if (self->batch_eff > 1) {
    /* image i's device areas follow image 0's at 256-byte aligned strides
     * (the kernels' widest access stays aligned in every image) */
    d->in_image_stride = (cfg->dev_in_size + 255) & ~(gsize) 255;
    d->out_image_stride = (cfg->dev_out_size + 255) & ~(gsize) 255;
    cfg->dev_in_size = d->in_image_stride * self->batch_eff;
    cfg->dev_out_size = d->out_image_stride * self->batch_eff;
  }
  if (d->op == CO_VIDEO_OP_GAMMA)
    gst_cuda_video_gamma_reserve (&self->tables,
        co_gamma_lut_max (d->planes[0].comp_bytes, d->planes[0].bits),
        self->batch_eff, cfg);
  /* no work memory where the CPU backend works in place (see prepare) */
  cfg->cpu_direct = cpu_direct (self);
  return GST_VIDEO_INFO_SIZE (&self->info);
}

static gboolean
gst_cuda_overlap_video_filter_engine_ready (GstCudaOverlapFilter * base,
    CoEngine * e, GError ** error)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);

  if (self->desc.op == CO_VIDEO_OP_CUSTOM)
    gst_cuda_overlap_custom_check_built (&self->custom, base,
        co_engine_backend (e));
  if (self->desc.op != CO_VIDEO_OP_GAMMA)
    return TRUE;
  return gst_cuda_video_gamma_ready (&self->tables, e,
      gst_cuda_overlap_filter_device_id (base), error);
}

/* The same operation, radius, kernel and batch: the same engine (gamma
 * needs none of this: it travels with each frame).  Anything else
 * rebuilds. */
static gboolean
gst_cuda_overlap_video_filter_update (GstCudaOverlapFilter * base,
    CoEngine * e, GError ** error)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  gboolean same;

  GST_OBJECT_LOCK (self);
  same = self->operation == self->desc.op
      && (self->desc.op == CO_VIDEO_OP_CUSTOM ?
      gst_cuda_overlap_custom_update (&self->custom) :
      (gint) self->radius == self->desc.radius)
      && effective_batch (self) == self->batch_eff;
  GST_OBJECT_UNLOCK (self);
  return same;
}

/* The gamma a frame goes through with the running operation (gamma), in a
 * pair of settings that was in effect after the frame came in: the gamma
 * set now while the operation is still gamma, else the last one set while
 * it was (the operation changed since this frame passed the rebuild check,
 * so after it came in).  A gamma read without the operation could pair
 * the running gamma operation with a gamma set after the operation had
 * changed.  Called for the passthrough decision and for the table. */
static gdouble
frame_gamma (GstCudaOverlapVideoFilter * self)
{
  gdouble g;

  GST_OBJECT_LOCK (self);
  g = self->operation == self->desc.op ? self->gamma : self->gamma_at_op_change;
  GST_OBJECT_UNLOCK (self);
  return g;
}

/* none, gamma 1 (the table is the identity) and box-blur radius 0 (a
 * window of one pixel) leave every frame as it is, but for samples with
 * padding bits, which they clear (the base class passes
 * buffers through only when both pads have the same memory: between
 * system and CUDA memory the frames are copied, chunk by chunk).  Asked
 * after the engine was made to fit the settings (a rebuild), so it answers
 * for the operation in effect, never for one set since, and for gamma with
 * frame_gamma's pair: every frame is then the output of settings that
 * were in effect together, however fast the properties change. */
static gboolean
gst_cuda_overlap_video_filter_is_identity (GstCudaOverlapFilter * base)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  const CoVideoDesc *d = &self->desc;

  if (d->op == CO_VIDEO_OP_NONE)
    return TRUE;
  if (has_padding_bits (d))
    return FALSE;
  return (d->op == CO_VIDEO_OP_GAMMA && frame_gamma (self) == 1.0)
      || (d->op == CO_VIDEO_OP_BOX_BLUR && d->radius == 0);
}

/* Bytes from a plane's first pixel to the end of its last row's pixels. */
static gsize
plane_extent (const CoVideoPlaneDesc * pl, gsize stride)
{
  return stride * (pl->height - 1) + (gsize) co_plane_row_bytes (pl->width,
      pl->comps, pl->comp_bytes, pl->packing);
}

/* Before anything maps @buf: its video meta, if any, must describe a frame
 * of the caps (the format, the planes, at least the caps' width and
 * height: gst_video_frame_map() refuses anything else with a CRITICAL),
 * and the planes it (or the caps) describes must lie inside the buffer.
 * Larger pictures and other strides and offsets are read as the meta
 * says.  A CUDA-memory input without a meta has its memory's layout
 * (gstcudaoverlapfilter-devmem.c checks it).  FALSE after a STREAM/FORMAT
 * element error. */
static gboolean
gst_cuda_overlap_video_filter_check_input (GstCudaOverlapFilter * base,
    GstBuffer * buf)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  const GstVideoInfo *info = &self->info;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  gsize size = gst_buffer_get_size (buf);
  gsize need = GST_VIDEO_INFO_SIZE (info), extent;
  gint i;

  if (meta) {
    if (meta->format != GST_VIDEO_INFO_FORMAT (info) ||
        meta->n_planes != GST_VIDEO_INFO_N_PLANES (info) ||
        meta->width < (guint) GST_VIDEO_INFO_WIDTH (info) ||
        meta->height < (guint) GST_VIDEO_INFO_HEIGHT (info)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("Input buffer's video meta does not match the caps: %ux%u %s "
              "with %u planes, but the caps are %dx%d %s with %u planes",
              meta->width, meta->height,
              gst_video_format_to_string (meta->format), meta->n_planes,
              GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
              GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info)),
          ("upstream sent a buffer its caps do not describe"));
      return FALSE;
    }
    /* the planes the meta describes must lie inside the buffer */
    need = 0;
    for (i = 0; i < (gint) meta->n_planes && i < self->desc.n_planes; i++) {
      if (meta->stride[i] <= 0 || meta->offset[i] > size) {
        need = G_MAXSIZE;
        break;
      }
      extent = plane_extent (&self->desc.planes[i], meta->stride[i]);
      need = MAX (need, meta->offset[i] + extent);
    }
  } else if (self->in_cuda) {
    return TRUE;
  }
  if (size < need) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer is too small: %" G_GSIZE_FORMAT " bytes, but the "
            "caps (and its video meta) need %" G_GSIZE_FORMAT " bytes per "
            "frame", size, need == G_MAXSIZE ? GST_VIDEO_INFO_SIZE (info) :
            need), ("%dx%d %s%s", GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
            need == G_MAXSIZE ? ": a plane's stride or offset is out of "
            "range" : ""));
    return FALSE;
  }
  return TRUE;
}

/* Maps @fr's input for reading (checked by check_input).  On a
 * CUDA-memory pad with GST_MAP_CUDA: the planes' addresses are then device
 * pointers (a buffer without a video meta has the layout of its
 * GstCudaMemory's info).  FALSE after an element error. */
static gboolean
map_input (GstCudaOverlapVideoFilter * self, GstCudaOverlapFilterFrame * fr,
    FramePriv * fp)
{
  const GstVideoInfo *info = &self->info;
  gsize size = gst_buffer_get_size (fr->inbuf);

  if (!gst_buffer_get_video_meta (fr->inbuf) && self->in_cuda)
    info = &((GstCudaOverlapCudaMemoryHead *)
        gst_buffer_peek_memory (fr->inbuf, 0))->info;
  fp->in_mapped = gst_video_frame_map (&fp->in, info, fr->inbuf,
      GST_MAP_READ | (self->in_cuda ? GST_CUDA_OVERLAP_MAP_CUDA : 0));
  if (!fp->in_mapped)
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Could not map an input buffer of %" G_GSIZE_FORMAT " bytes as "
            "%dx%d %s (%" G_GSIZE_FORMAT " bytes per frame)", size,
            GST_VIDEO_INFO_WIDTH (&self->info),
            GST_VIDEO_INFO_HEIGHT (&self->info),
            GST_VIDEO_INFO_NAME (&self->info),
            GST_VIDEO_INFO_SIZE (&self->info)),
        ("its video meta or size does not fit the caps"));
  return fp->in_mapped;
}

/* The planes of a mapped frame, for the planner. */
static void
planes_of (const GstVideoFrame * frame, gint n_planes, gboolean direct,
    CoVideoPlanes * p)
{
  gint i;

  for (i = 0; i < n_planes; i++) {
    p->data[i] = GST_VIDEO_FRAME_PLANE_DATA (frame, i);
    p->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, i);
  }
  p->direct = direct;
}

static GstFlowReturn
gst_cuda_overlap_video_filter_prepare (GstCudaOverlapFilter * base,
    CoEngine * e, GstCudaOverlapFilterFrame * fr, CoFrame * cf)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  FramePriv *fp = fr->priv;
  CoVideoPlanes in, out;
  gboolean direct = co_engine_backend (e) == CO_BACKEND_CPU &&
      cpu_direct (self);
  gint i;

  if (!map_input (self, fr, fp))
    return GST_FLOW_ERROR;
  /* a CUDA-memory output is written on the device (GST_MAP_CUDA) */
  fp->out_mapped = gst_video_frame_map (&fp->out, &self->info, fr->outbuf,
      GST_MAP_WRITE | (self->out_cuda ? GST_CUDA_OVERLAP_MAP_CUDA : 0));
  if (!fp->out_mapped) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL),
        ("could not map an output buffer"));
    return GST_FLOW_ERROR;
  }
  planes_of (&fp->in, self->desc.n_planes, direct || self->in_cuda, &in);
  planes_of (&fp->out, self->desc.n_planes, direct || self->out_cuda, &out);
  for (i = 0; i < self->desc.n_planes && !self->in_cuda; i++)
    gst_cuda_overlap_filter_frame_check_input (fr, in.data[i],
        plane_extent (&self->desc.planes[i], in.stride[i]));
  fp->table = GST_CUDA_VIDEO_GAMMA_NONE;
  if (self->desc.op == CO_VIDEO_OP_GAMMA) {
    /* tests: settings changed just before the read (co-fault.h) */
    if (co_fault_update_delay_us ())
      g_usleep (co_fault_update_delay_us ());
    fp->gamma = frame_gamma (self);
    fp->table = gst_cuda_video_gamma_plan (&self->tables, e, cf, fr->image,
        fp->gamma, &self->desc);
  }
  if (!co_video_plan (&self->desc, co_engine_chunks (e), fr->image, cf, &in,
          &out)) {
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
        ("no plan for a frame (operation %d, input %s, output %s)",
            self->desc.op, self->in_cuda ? "cuda" : "system",
            self->out_cuda ? "cuda" : "system"));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* operation=custom: the caps narrowed to kernel-formats. */
static GstCaps *
gst_cuda_overlap_video_filter_allowed_caps (GstCudaOverlapFilter * base)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  GstCaps *caps = NULL;

  GST_OBJECT_LOCK (self);
  if (self->operation == CO_VIDEO_OP_CUSTOM)
    caps = gst_cuda_overlap_custom_allowed_caps (&self->custom, "video/x-raw");
  GST_OBJECT_UNLOCK (self);
  return caps;
}

/* For the automatic settings: the caps' frame size, rows and rate; every
 * operation counts as cheap against the copies (even a box blur at
 * r = 32 computes faster than a frame's copy: docs/PERFORMANCE.md). */
static void
gst_cuda_overlap_video_filter_tune_input (GstCudaOverlapFilter * base,
    GstCaps * caps, CoTuneInput * in)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  GstVideoInfo info;

  in->media = CO_TUNE_VIDEO;
  in->can_batch = TRUE;
  in->cost = CO_TUNE_COST_LIGHT;
  GST_OBJECT_LOCK (self);
  in->user_batch = self->batch;
  GST_OBJECT_UNLOCK (self);
  if (!gst_video_info_from_caps (&info, caps))
    return;
  in->frame_bytes = GST_VIDEO_INFO_SIZE (&info);
  /* bands start on even rows with 4:2:0 chroma */
  in->rows = GST_VIDEO_INFO_HEIGHT (&info) /
      (GST_VIDEO_INFO_N_PLANES (&info) > 1 ? 2 : 1);
  if (GST_VIDEO_INFO_FPS_N (&info) > 0)
    in->frame_interval_ns = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&info), GST_VIDEO_INFO_FPS_N (&info));
}

static guint
gst_cuda_overlap_video_filter_batch_size (GstCudaOverlapFilter * base)
{
  return GST_CUDA_OVERLAP_VIDEO_FILTER (base)->batch_eff;
}

/* The device has read the input: unmap it (finish unmaps the rest). */
static void
gst_cuda_overlap_video_filter_finish_input (GstCudaOverlapFilter * base,
    GstCudaOverlapFilterFrame * fr)
{
  FramePriv *fp = fr->priv;

  if (fp->in_mapped)
    gst_video_frame_unmap (&fp->in);
  fp->in_mapped = FALSE;
}

static void
gst_cuda_overlap_video_filter_finish (GstCudaOverlapFilter * base,
    GstCudaOverlapFilterFrame * fr)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);
  FramePriv *fp = fr->priv;

  if (fp->table != GST_CUDA_VIDEO_GAMMA_NONE)
    gst_cuda_video_gamma_done (&self->tables, fp->table, fp->gamma,
        fr->completed);
  fp->table = GST_CUDA_VIDEO_GAMMA_NONE;
  if (fp->in_mapped)
    gst_video_frame_unmap (&fp->in);
  if (fp->out_mapped)
    gst_video_frame_unmap (&fp->out);
  fp->in_mapped = fp->out_mapped = FALSE;
}

/* The pools the element makes: video buffer pools that make at most the
 * first buffers they were made with when they start, whatever minimum a
 * new config asks for (upstream configures the proposed pool with the
 * ALLOCATION answer's minimum, every buffer the element may hold, and
 * page-locking them all at the start delays the first frame); the rest
 * are made as frames need them (no maximum). */
typedef struct
{
  GstVideoBufferPool parent;
  guint first;
} GstCudaOverlapVideoPool;

typedef struct
{
  GstVideoBufferPoolClass parent_class;
} GstCudaOverlapVideoPoolClass;

static GType gst_cuda_overlap_video_pool_get_type (void);
G_DEFINE_TYPE (GstCudaOverlapVideoPool, gst_cuda_overlap_video_pool,
    GST_TYPE_VIDEO_BUFFER_POOL);

static gboolean
gst_cuda_overlap_video_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstCudaOverlapVideoPool *self = (GstCudaOverlapVideoPool *) pool;
  guint size, min, max;
  GstCaps *caps;

  if (gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      && min > self->first)
    gst_buffer_pool_config_set_params (config, caps, size, self->first, max);
  return GST_BUFFER_POOL_CLASS (gst_cuda_overlap_video_pool_parent_class)
      ->set_config (pool, config);
}

static void
gst_cuda_overlap_video_pool_class_init (GstCudaOverlapVideoPoolClass * klass)
{
  GST_BUFFER_POOL_CLASS (klass)->set_config =
      gst_cuda_overlap_video_pool_set_config;
}

static void
gst_cuda_overlap_video_pool_init (GstCudaOverlapVideoPool * self)
{
  self->first = G_MAXUINT;
}

static GstBufferPool *
gst_cuda_overlap_video_filter_make_pool (GstCudaOverlapFilter * base,
    GstCaps * caps, gsize size, GstAllocator * allocator, guint min, guint max)
{
  GstCudaOverlapVideoPool *vpool =
      gst_object_ref_sink (g_object_new (gst_cuda_overlap_video_pool_get_type
          (), NULL));
  GstBufferPool *pool = GST_BUFFER_POOL (vpool);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    gst_structure_free (config);
    gst_object_unref (pool);
    return NULL;
  }
  if (size == 0)
    size = GST_VIDEO_INFO_SIZE (&info);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (allocator)
    gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  vpool->first = min;
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

static void
gst_cuda_overlap_video_filter_propose_allocation (GstCudaOverlapFilter * base,
    GstQuery * query)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
}

static GstClockTime
gst_cuda_overlap_video_filter_frame_duration (GstCudaOverlapFilter * base)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);

  if (GST_VIDEO_INFO_FPS_N (&self->info) <= 0)
    return GST_CLOCK_TIME_NONE;
  return gst_util_uint64_scale_int (GST_SECOND,
      GST_VIDEO_INFO_FPS_D (&self->info), GST_VIDEO_INFO_FPS_N (&self->info));
}

static const gchar *
gst_cuda_overlap_video_filter_operation_nick (GstCudaOverlapFilter * base)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (base);

  return gst_cuda_overlap_enum_nick (GST_TYPE_CUDA_VIDEO_OPERATION,
      self->desc.op);
}

static void
gst_cuda_overlap_video_filter_finalize (GObject * object)
{
  GstCudaOverlapVideoFilter *self = GST_CUDA_OVERLAP_VIDEO_FILTER (object);

  gst_cuda_overlap_custom_clear (&self->custom);
  gst_cuda_video_gamma_clear (&self->tables);
  G_OBJECT_CLASS (gst_cuda_overlap_video_filter_parent_class)->finalize
      (object);
}

static void
install_properties (GObjectClass * gobject_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  /**
   * GstCudaOverlapVideoFilter:operation:
   *
   * What to compute on every frame: `invert`, `gamma`, `box-blur`,
   * `custom` (a kernel of the user's) or `none` (copies only).  A change
   * takes effect after the frames in flight.
   */
  g_object_class_install_property (gobject_class, PROP_OPERATION,
      g_param_spec_enum ("operation", "Operation",
          "What to compute on every frame", GST_TYPE_CUDA_VIDEO_OPERATION,
          DEFAULT_OPERATION, rw));
  /**
   * GstCudaOverlapVideoFilter:gamma:
   *
   * Exponent of operation=gamma: `out = floor (max · (in / max)^(1 / gamma)
   * + 0.5)`, through a table built in double precision (NV12, I420: luma
   * only).  1 is the identity: the buffers pass through.  Controllable
   * (GstController): each buffer takes the value for its stream time and
   * its frame carries its own table, so a ramp needs no pause.
   */
  g_object_class_install_property (gobject_class, PROP_GAMMA,
      g_param_spec_double ("gamma", "Gamma", "Gamma of operation=gamma",
          0.01, 10.0, DEFAULT_GAMMA, rw | GST_PARAM_CONTROLLABLE));
  /**
   * GstCudaOverlapVideoFilter:radius:
   *
   * Radius of operation=box-blur in pixels: each colour component becomes
   * `(sum + n / 2) / n` over the (2 radius + 1)² window around it, n =
   * (2 radius + 1)², borders replicated.  0 is the identity: the buffers
   * pass through.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_uint ("radius", "Radius",
          "Radius of operation=box-blur in pixels", 0, CO_BLUR_MAX_RADIUS,
          DEFAULT_RADIUS, rw));
  /**
   * GstCudaOverlapVideoFilter:batch:
   *
   * Frames per device submission: their copies are queued together and
   * one kernel launch and one set of timing events serve all of them.  For
   * small frames at high rates, where the per-frame host calls are the
   * bottleneck.
   *
   * A partial batch goes once no frame has come for min (one frame
   * duration, 20 ms) (2 ms without a frame rate), and before any
   * serialized event or DRAIN; the latency query reports (batch − 1) such
   * waits.  With buffers from upstream's own pool the batch shrinks to
   * what upstream can fill (half a pool with a maximum; halved at each
   * batch that times out before it filled).
   *
   * 0: automatic: 8, 4, 2 under 1, 2, 4 MiB when a non-live source's first
   * frames show the host is the bound, else 1.
   */
  g_object_class_install_property (gobject_class, PROP_BATCH,
      g_param_spec_uint ("batch", "Batch",
          "Frames per device submission (0: automatic)", 0, CO_MAX_BATCH,
          DEFAULT_BATCH, rw));
  /**
   * GstCudaOverlapVideoFilter:qos:
   *
   * Handle Quality-of-Service events from downstream, as #GstVideoFilter
   * does: an input frame whose running time is already past the earliest
   * time downstream can still show is dropped before any copy or kernel,
   * a QOS message is posted for it, and the next frame that goes on has
   * the DISCONT flag.
   */
  g_object_class_install_property (gobject_class, PROP_QOS,
      g_param_spec_boolean ("qos", "QoS",
          "Handle Quality-of-Service events from downstream", DEFAULT_QOS, rw));
  /* operation=custom: kernel-module, kernel-name, kernel-halo, ... */
  gst_cuda_overlap_custom_install (gobject_class, PROP_KERNEL_FIRST, FALSE);
}

static void
gst_cuda_overlap_video_filter_class_init (GstCudaOverlapVideoFilterClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaOverlapFilterClass *base_class = GST_CUDA_OVERLAP_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_overlap_video_filter_set_property;
  gobject_class->get_property = gst_cuda_overlap_video_filter_get_property;
  gobject_class->finalize = gst_cuda_overlap_video_filter_finalize;
  install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA overlapped video filter", "Filter/Effect/Video/Hardware",
      "Inverts, gamma-corrects or blurs raw video, or runs a custom kernel, "
      "on a CUDA GPU", "cudaoverlap developers");

  base_class->frame_priv_size = sizeof (FramePriv);
  base_class->configure = gst_cuda_overlap_video_filter_configure;
  base_class->engine_ready = gst_cuda_overlap_video_filter_engine_ready;
  base_class->prepare = gst_cuda_overlap_video_filter_prepare;
  base_class->finish = gst_cuda_overlap_video_filter_finish;
  base_class->finish_input = gst_cuda_overlap_video_filter_finish_input;
  base_class->make_pool = gst_cuda_overlap_video_filter_make_pool;
  base_class->propose_allocation =
      gst_cuda_overlap_video_filter_propose_allocation;
  base_class->frame_duration = gst_cuda_overlap_video_filter_frame_duration;
  base_class->operation_nick = gst_cuda_overlap_video_filter_operation_nick;
  base_class->batch_size = gst_cuda_overlap_video_filter_batch_size;
  base_class->update = gst_cuda_overlap_video_filter_update;
  base_class->is_identity = gst_cuda_overlap_video_filter_is_identity;
  base_class->tune_input = gst_cuda_overlap_video_filter_tune_input;
  base_class->allowed_caps = gst_cuda_overlap_video_filter_allowed_caps;
  base_class->check_input = gst_cuda_overlap_video_filter_check_input;
  base_class->offer_pool_params = TRUE;
  gst_cuda_overlap_meta_rule_init (&base_class->meta_rule,
      GST_VIDEO_META_API_TYPE, meta_tags);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_VIDEO_OPERATION, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_video_filter_debug,
      "cudaoverlap-video", 0, "cudaoverlap video filter");
}

static void
gst_cuda_overlap_video_filter_init (GstCudaOverlapVideoFilter * self)
{
  self->operation = DEFAULT_OPERATION;
  self->gamma = DEFAULT_GAMMA;
  self->gamma_at_op_change = DEFAULT_GAMMA;
  gst_cuda_video_gamma_init (&self->tables);
  gst_cuda_overlap_filter_set_qos_enabled (GST_CUDA_OVERLAP_FILTER (self),
      DEFAULT_QOS);
  self->radius = DEFAULT_RADIUS;
  self->batch = DEFAULT_BATCH;
  self->batch_eff = DEFAULT_BATCH;
  gst_cuda_overlap_custom_init (&self->custom);
  gst_video_info_init (&self->info);
}
