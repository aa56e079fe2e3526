/* cudaoverlap kernels: the per-chunk compute, for the CUDA and the CPU backend.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * This header is plain C: it knows neither GStreamer nor the overlap engine.
 * Every operation exists twice, with the same exact integer arithmetic:
 * co_*_launch_cuda() queues a CUDA kernel on a stream (kernels/co-kernels.cu)
 * and co_*_run_cpu() computes the same thing on the calling thread
 * (kernels/co-kernels-cpu.c).  Tests compare both against an independent
 * naive reference in tests/.
 *
 * Errors: a function that can fail returns a cudaError_t as an int, 0 on
 * success (this layer knows no GLib); the engine makes each call through
 * its CUDA check (engine/co-cuda-check.h), which logs a failure and turns
 * it into a GError.  Invalid parameters give cudaErrorInvalidValue.
 */
#ifndef __CO_KERNELS_H__
#define __CO_KERNELS_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define CO_VIDEO_MAX_PLANES 3
#define CO_BLUR_MAX_RADIUS 32

  typedef enum
  {
    CO_VIDEO_OP_INVERT = 0,
    CO_VIDEO_OP_GAMMA = 1,
    CO_VIDEO_OP_BOX_BLUR = 2,
    /* No kernel: the planner makes copy-only chunks for it (an upload or a
     * download); the launchers and co_video_run_cpu() refuse it. */
    CO_VIDEO_OP_NONE = 3,
    /* A user's kernel (kernels/co-custom.h): the launchers and
     * co_video_run_cpu() refuse it; the engine's backends run it. */
    CO_VIDEO_OP_CUSTOM = 4,
  } CoVideoOp;

/* How a plane's components lie in its pixels (CoPlaneBand.packing). */
  typedef enum
  {
    /* @comps interleaved samples of @comp_bytes bytes each */
    CO_PACK_NONE = 0,
    /* 4:2:2 packed into pairs of pixels (YUY2, UYVY): comps 2 of 1 byte; one
     * component is luma (component 0 for YUYV, 1 for UYVY), the other holds
     * U in even pixels and V in odd ones (chroma sample x / 2).  @width
     * counts luma samples; a row holds ceil (width / 2) pairs of 4 bytes
     * (Y0 U Y1 V, or U Y0 V Y1), so an odd width's last pair ends with a
     * padding luma sample (co_plane_row_bytes () covers it).  bits 0. */
    CO_PACK_422_YUYV = 1,
    CO_PACK_422_UYVY = 2,
    /* one 32-bit little-endian word per pixel (RGB10A2_LE, BGR10A2_LE),
     * described as comps 4 of comp_bytes 1 (the pixel's bytes), bits 10,
     * but holding components 0, 1 and 2 of 10 bits at bits 0, 10 and 20
     * and component 3 of 2 bits at bit 30 (comp_mask's bits name those;
     * component 3, alpha, is never changed) */
    CO_PACK_10_10_10_2 = 3,
  } CoPacking;

/* Bytes of one row of a plane's pixels: width * comps * comp_bytes, and
 * for the 4:2:2 packings the whole last pair (4 * ceil (width / 2)). */
  static inline int64_t co_plane_row_bytes (int32_t width, int32_t comps,
      int32_t comp_bytes, int32_t packing)
  {
    if (packing == CO_PACK_422_YUYV || packing == CO_PACK_422_UYVY)
      return 4 * (((int64_t) width + 1) / 2);
    return (int64_t) width *comps * comp_bytes;
  }

/* operation=custom's description (kernels/co-custom.h). */
  typedef struct _CoCustomParams CoCustomParams;

/* One plane of one band (a horizontal strip of rows) of a picture.
 *
 * A plane is a 2-D array of pixels; each pixel has @comps components of
 * @comp_bytes bytes each (1: 8-bit, 2: 16-bit little-endian), stored
 * interleaved.  Bit i of @comp_mask says component i is a colour component
 * that the operation changes; the other components (alpha, padding 'x')
 * are copied unchanged.
 *
 * Output rows [@y0, @y1) (plane coordinates) are computed.  @dst points at
 * the first byte of output row @y0; row y of the output starts at
 * dst + (y - y0) * dst_stride.
 *
 * @src points at the first byte of input row @src_y0 and holds rows
 * [@src_y0, @src_y1) of the plane; row y of the input starts at
 * src + (y - src_y0) * src_stride.  For invert and gamma,
 * src_y0 <= y0 and src_y1 >= y1.  For box-blur the caller supplies the halo:
 * src_y0 <= max (0, y0 - radius) and src_y1 >= min (height, y1 + radius).
 *
 * Strides are in bytes and may be larger than a row's bytes
 * (co_plane_row_bytes ()); the bytes past a row's last pixel (pair) are
 * not touched.
 */
  typedef struct
  {
    uint8_t *dst;
    const uint8_t *src;
    int64_t dst_stride;
    int64_t src_stride;
    int32_t width;              /* pixels in a row of this plane */
    int32_t height;             /* rows of the whole plane (border replication) */
    int32_t y0, y1;             /* output rows of this band */
    int32_t src_y0, src_y1;     /* input rows held at src */
    int32_t comps;              /* 1, 2, 3 or 4 */
    int32_t comp_bytes;         /* 1 or 2 */
    uint32_t comp_mask;         /* components the operation changes */
    int32_t use_lut;            /* gamma: 1 if this plane goes through the LUT */
    /* Bits of a sample that hold its value (0: all of them) and their
     * position: value = (sample >> shift) & M, M = (1 << bits) - 1; the
     * other bits (padding) of the output samples of invert, gamma and
     * box-blur are 0 (P010_10LE: bits 10, shift 6; I420_10LE: bits 10,
     * shift 0; P016_LE: 0).  With bits, comp_bytes is 2 and
     * bits + shift <= 16; bits 0 (or 16) needs shift 0. */
    int32_t bits;
    int32_t shift;
    int32_t packing;            /* CoPacking; 0: CO_PACK_NONE */
    /* A batch: the same band of n_images pictures (0 or 1: one), image i's
     * src and dst at src + i * src_image_stride, dst + i * dst_image_stride. */
    int32_t n_images;
    int64_t src_image_stride;
    int64_t dst_image_stride;
    /* gamma: image i's LUT at lut + i * lut_image_stride (entries; 0: one
     * LUT for every image) */
    int64_t lut_image_stride;
  } CoPlaneBand;

/* The exact arithmetic, implemented identically by both backends:
 * - invert:   c' = max - c, max = 255 (8-bit) or 65535 (16-bit).
 * - gamma:    c' = lut[c] on planes with use_lut, unchanged elsewhere.  The
 *             LUT has max + 1 entries (uint16_t, values <= max) and is built
 *             by the caller (co_gamma_lut_fill below).  @lut points at
 *             device memory for CUDA and host memory for the CPU.
 * - box-blur: c' = (S + n / 2) / n with integer (truncating) division,
 *             n = (2r + 1)^2, S = sum over dx, dy in [-r, r] of
 *             c(clamp (x + dx, 0, width - 1), clamp (y + dy, 0, height - 1))
 *             for the same component: borders replicated.  r = 0 copies.
 *             S fits in 32 bits (65535 * 65^2 < 2^32).
 * A plane whose samples have padding bits (co_band_has_padding: P010_10LE,
 * I420_10LE) works on c = (sample >> shift) & M, M = (1 << bits) - 1, and
 * writes c' << shift, every padding bit 0:
 * - invert:   (M - c) << shift, i.e. (sample ^ (M << shift)) & (M << shift)
 *             (P010_10LE: v' = (1023 - (v >> 6)) << 6; I420_10LE:
 *             v' = 1023 - (v & 1023)).
 * - gamma:    lut[c] << shift with a LUT of M + 1 entries (co_gamma_lut_max)
 *             on planes with use_lut; c << shift (the padding cleared)
 *             elsewhere.
 * - box-blur: the mean above of the values c, << shift; r = 0 gives
 *             c << shift.
 * Components outside comp_mask are copied unchanged in every case.
 * Packed planes (CoPacking), the same on their components:
 * - 4:2:2 (YUY2, UYVY): invert c' = 255 - c on Y, U and V; gamma
 *   c' = lut[c] on the luma samples only (use_lut; 256 entries); box-blur
 *   as above with each component on its own sample grid and the same r:
 *   luma on the width-sample grid (x clamped to [0, width - 1]), U on the
 *   ceil (width / 2)-sample grid of the pairs' U bytes, V likewise, so the
 *   result equals that of the planar 4:2:2 picture (Y42B) with the same
 *   samples.  An odd width's padding luma sample (the last pair's second)
 *   is copied from the input by every operation and read by no window.
 * - 10:10:10:2 (RGB10A2_LE, BGR10A2_LE): the three 10-bit components of
 *   comp_mask: invert c' = 1023 - c; gamma c' = lut[c] (1024 entries,
 *   max 1023); box-blur as above per component (S < 1023 * 65^2).  The
 *   2-bit component at bit 30 (alpha) is copied.
 */
  typedef struct
  {
    CoVideoOp op;
    int32_t n_planes;
    int32_t radius;             /* box-blur, 0..CO_BLUR_MAX_RADIUS; custom:
                                 * the halo */
    const uint16_t *lut;        /* gamma */
    const CoCustomParams *custom;       /* custom */
    CoPlaneBand planes[CO_VIDEO_MAX_PLANES];
  } CoVideoParams;

/* Whether @b's samples have padding bits: bits set and fewer than the
 * sample's (the kernels then work on the values, see above). */
  static inline int co_band_has_padding (const CoPlaneBand * b)
  {
    return b->bits > 0 && b->bits < 8 * b->comp_bytes;
  }

/* Whether @b's bits and shift are ones the kernels take (see CoPlaneBand). */
  static inline int co_band_bits_valid (const CoPlaneBand * b)
  {
    if (b->bits == 0 || b->bits == 8 * b->comp_bytes)
      return b->shift == 0;
    return b->comp_bytes == 2 && b->bits > 0 && b->bits < 16
        && b->shift >= 0 && b->bits + b->shift <= 16;
  }

/* The largest value of a sample of @bits bits (0: all of its @comp_bytes
 * bytes): the gamma LUT's max, which has max + 1 entries. */
  static inline uint32_t co_gamma_lut_max (int32_t comp_bytes, int32_t bits)
  {
    return bits ? (1u << bits) - 1 : (comp_bytes == 2 ? 65535u : 255u);
  }

/* Fill @lut (max + 1 entries) with floor (max * (i / max)^(1 / gamma) + 0.5),
 * computed in double precision.  max is co_gamma_lut_max ()'s: 255, 65535
 * or (1 << bits) - 1. */
  void co_gamma_lut_fill (uint16_t * lut, uint32_t max, double gamma);

/* Compute one band on the calling thread.  Returns 0. */
  int co_video_run_cpu (const CoVideoParams * p);

/* Queue the band's kernel(s) on @stream (a cudaStream_t).  Returns the
 * cudaError_t of the launch (0 on success) as an int. */
  int co_video_launch_cuda (const CoVideoParams * p, void *stream);


/* ---- signal (audio) ------------------------------------------------------ */

  typedef enum
  {
    CO_AUDIO_OP_GAIN = 0,
    CO_AUDIO_OP_FIR = 1,
    CO_AUDIO_OP_CUSTOM = 2,     /* a user's kernel (kernels/co-custom.h) */
  } CoAudioOp;

  typedef enum
  {
    CO_AUDIO_F32 = 0,           /* native-endian float, interleaved */
    CO_AUDIO_S16 = 1,           /* native-endian int16, interleaved */
  } CoAudioFormat;

/* One chunk of interleaved samples: @frames sample frames of @channels
 * channels each are computed into @dst.
 *
 * @src holds (history + frames) sample frames: the @history frames before
 * the chunk's first one (the FIR halo; 0 for gain), then the chunk itself.
 *
 * - gain: y = x * gain in float; S16: y = saturate (rint (float) x * gain)
 *   (round half to even), clamped to [-32768, 32767].
 * - fir:  y[n] = sum_{k=0}^{n_taps-1} taps[k] * x[n - k] per channel, where
 *   x[n - k] for k > n reads the history; history must equal n_taps - 1.
 *   Accumulated in float (order unspecified: tests use a tolerance); S16
 *   input is converted to float, the sum rounded half to even and saturated.
 * @taps points at device memory for CUDA and host memory for the CPU.
 */
  typedef struct
  {
    CoAudioOp op;
    CoAudioFormat format;
    int32_t channels;
    int32_t n_taps;
    int64_t frames;
    int64_t history;
    const void *src;
    void *dst;
    float gain;
    const float *taps;
    int64_t offset;             /* the chunk's first frame in the buffer */
    const CoCustomParams *custom;       /* custom */
  } CoAudioParams;

  int co_audio_run_cpu (const CoAudioParams * p);
  int co_audio_launch_cuda (const CoAudioParams * p, void *stream);

/* Loads every kernel of this file on the current device now (with lazy
 * module loading, the CUDA default, a kernel is otherwise loaded at its
 * first launch, which may wait for all work on the device).  Returns the
 * first cudaError_t as an int (0 on success). */
  int co_kernels_cuda_preload (void);

/* Whether @device (made current for the call, then the previous device
 * again) can run this build's kernels: 0, or the cudaError_t (as an int)
 * of loading one, e.g. cudaErrorNoKernelImageForDevice when the build has
 * neither machine code of the device's architecture family nor PTX it can
 * compile.  Creates the device's primary context. */
  int co_kernels_cuda_check_device (int device);

/* The architectures this build carries, e.g. "sm_75 sm_80 sm_90 sm_100
 * sm_110 sm_120, PTX compute_120" (meson option cuda-architectures). */
  const char *co_kernels_cuda_archs (void);

#ifdef __cplusplus
}
#endif
#endif /* __CO_KERNELS_H__ */
