/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gst/cudaoverlap/cudaoverlap-kernel.h: the ABI of a user's own kernel run
 * by cudavideofilter and cudaaudiofilter with operation=custom.
 * docs/custom-kernels.md is the full contract; this header is its C side.
 * Plain C (stdint only): include it from a .cu file compiled with nvcc, from
 * the .c file of a CPU implementation, or from an application.
 * pkg-config: gstreamer-cudaoverlap-1.0.
 *
 *   #include <gst/cudaoverlap/cudaoverlap-kernel.h>
 *
 *   extern "C" __global__ void
 *   my_kernel (GstCudaOverlapVideoLaunch a)      // CUDA: by value
 *   {
 *     const GstCudaOverlapKernelPlane *p = &a.planes[a.plane];
 *     int x = blockIdx.x * blockDim.x + threadIdx.x;
 *     int y = blockIdx.y * blockDim.y + threadIdx.y; // 0 .. p->rows - 1
 *     if (x >= p->width || y >= p->rows)
 *       return;
 *     // read p->src rows -p->halo_above .. p->rows - 1 + p->halo_below,
 *     // write p->dst row y only
 *   }
 *
 *   int my_kernel_cpu (const GstCudaOverlapVideoLaunch * a);  // CPU: 0 = ok
 *
 * A C application or plugin may instead hand the elements a host-side
 * launcher (GstCudaOverlapKernelLauncher, the kernel-launcher property):
 * its own function, called per launch with the same struct and the
 * engine's CUDA stream, that launches a kernel compiled into it (nvcc,
 * kernel<<<...>>>), or computes on the CPU backend.
 *
 * Stability: the structs only grow at their end, and every change bumps
 * GST_CUDA_OVERLAP_KERNEL_ABI_VERSION.  A video launch's abi_version is the
 * version of its format (1 for GRAY8 .. I420, 2 for the others), so that a
 * kernel written for version 1 keeps taking what it knows; struct_size
 * says which fields are there (every field that ends within it).  A kernel
 * may refuse a launch it does not know (return without writing on CUDA;
 * return non-zero on the CPU).  Every field is naturally aligned, so nvcc
 * and a C compiler lay the structs out identically.
 */
#ifndef __GST_CUDA_OVERLAP_KERNEL_H__
#define __GST_CUDA_OVERLAP_KERNEL_H__

#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define GST_CUDA_OVERLAP_KERNEL_ABI_VERSION 2
/* kernel-params: at most this many doubles, passed by value */
#define GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS 64
#define GST_CUDA_OVERLAP_KERNEL_MAX_PLANES 4
/* Launch geometry on the CUDA backend.  Video: one launch per plane of a
 * band, blocks of 16 x 16 threads, grid (ceil (width / 16),
 * ceil (rows / 16), 1) over that plane's band: thread (x, y) is pixel x of
 * the band's row y.  Audio: one launch per chunk, blocks of 256 threads,
 * grid ceil (frames / 256): thread i is sample frame i (all channels). */
#define GST_CUDA_OVERLAP_KERNEL_BLOCK_X 16
#define GST_CUDA_OVERLAP_KERNEL_BLOCK_Y 16
#define GST_CUDA_OVERLAP_KERNEL_AUDIO_BLOCK 256

/* The pixel formats (GstVideoFormat names), with stable values. */
  typedef enum
  {
    GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN = 0,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 = 1,   /* 1 plane, 1 byte */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY16_LE = 2,       /* 1 plane, 2 bytes LE */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA = 3,    /* 1 plane, 4 bytes R G B A */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRA = 4,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_ARGB = 5,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_ABGR = 6,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBx = 7,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_BGRx = 8,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_xRGB = 9,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_xBGR = 10,
    GST_CUDA_OVERLAP_KERNEL_FORMAT_NV12 = 11,   /* Y; UV interleaved, 2x2 */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_I420 = 12,   /* Y; U; V, 2x2 subsampled */
    /* ABI version 2: given only to a kernel that names them in
     * kernel-formats (an empty kernel-formats means GRAY8 .. I420), with
     * abi_version 2.  plane_formats[] says where each component is. */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB = 13,    /* 1 plane, 3 bytes R G B */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR = 14,    /* 1 plane, 3 bytes B G R */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_NV21 = 15,   /* Y; VU interleaved, 2x2 */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_YV12 = 16,   /* Y; V; U, 2x2 subsampled */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_Y42B = 17,   /* Y; U; V, 2x1 subsampled */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444 = 18,   /* Y; U; V, full size */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_Y444_16LE = 19,      /* Y444, 2 bytes LE */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_P010_10LE = 20,      /* NV12, 2 bytes LE, 10 high bits */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_P016_LE = 21,        /* NV12, 2 bytes LE */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_I420_10LE = 22,      /* I420, 2 bytes LE, 10 low bits */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_YUY2 = 23,   /* 1 plane, pairs Y0 U Y1 V */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_UYVY = 24,   /* 1 plane, pairs U Y0 V Y1 */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_RGB10A2_LE = 25,     /* 1 plane, 32-bit LE word A2 B10 G10 R10 */
    GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR10A2_LE = 26,     /* 1 plane, 32-bit LE word A2 R10 G10 B10 */
  } GstCudaOverlapKernelFormat;

/* The last format of ABI version 1: a kernel with an empty kernel-formats
 * receives the formats from GRAY8 to this one. */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST_V1 GST_CUDA_OVERLAP_KERNEL_FORMAT_I420
/* The last format of this header's ABI version. */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST GST_CUDA_OVERLAP_KERNEL_FORMAT_BGR10A2_LE
/* The abi_version of a video launch of @format: 1 for the formats of ABI
 * version 1, 2 for those after them. */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_ABI_VERSION(format) \
  ((format) <= GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST_V1 ? 1 : 2)

/* The GstVideoFormat names of the values from GRAY8 (1) on, in order. */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_NAMES \
  "GRAY8", "GRAY16_LE", "RGBA", "BGRA", "ARGB", "ABGR", "RGBx", "BGRx", \
  "xRGB", "xBGR", "NV12", "I420", "RGB", "BGR", "NV21", "YV12", "Y42B", \
  "Y444", "Y444_16LE", "P010_10LE", "P016_LE", "I420_10LE", "YUY2", "UYVY", \
  "RGB10A2_LE", "BGR10A2_LE"

/* The value of the format named @name (as gst_video_format_to_string ()
 * names it), or GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN. */
  static inline GstCudaOverlapKernelFormat
      gst_cuda_overlap_kernel_format_from_name (const char *name)
  {
    static const char *const names[] = { GST_CUDA_OVERLAP_KERNEL_FORMAT_NAMES };
    unsigned i, k;

    for (i = 0; name && i < sizeof (names) / sizeof (names[0]); i++) {
      for (k = 0; names[i][k] && names[i][k] == name[k]; k++);
      if (!names[i][k] && !name[k])
        return (GstCudaOverlapKernelFormat)
            (GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + i);
    }
    return GST_CUDA_OVERLAP_KERNEL_FORMAT_UNKNOWN;
  }

/* The sample formats (GstAudioFormat names), interleaved, native endian. */
  typedef enum
  {
    GST_CUDA_OVERLAP_KERNEL_AUDIO_UNKNOWN = 0,
    GST_CUDA_OVERLAP_KERNEL_AUDIO_F32LE = 1,
    GST_CUDA_OVERLAP_KERNEL_AUDIO_S16LE = 2,
  } GstCudaOverlapKernelAudioFormat;

/* One plane of one band (its output rows y0 .. y0 + rows - 1, in the
 * plane's own rows).
 *
 * Input: row y0 + r of the plane (r from -halo_above to
 * rows - 1 + halo_below) starts at src + r * src_pitch.  Only those rows
 * may be read, and only the first width * pixel_bytes bytes of each.
 * halo_above = min (kernel-halo, y0) and halo_below =
 * min (kernel-halo, height - y0 - rows): the halo is clamped at the
 * picture's edges, where a kernel replicates (or otherwise treats) the
 * border itself.
 *
 * Output: row y0 + r (r from 0 to rows - 1) starts at dst + r * dst_pitch.
 * A kernel writes exactly those rows, the first width * pixel_bytes bytes
 * of each, every byte of them (the output buffer is not a copy of the
 * input: a byte left unwritten is undefined), and nothing else.
 *
 * Pitches are in bytes, at least width * pixel_bytes, and may differ
 * between src and dst, between planes and between launches. */
  typedef struct
  {
    const uint8_t *src;
    uint8_t *dst;
    int64_t src_pitch;
    int64_t dst_pitch;
    int32_t width;              /* pixels in a row of this plane */
    int32_t height;             /* rows of this plane in the picture */
    int32_t y0;                 /* first output row of the band */
    int32_t rows;               /* output rows of the band */
    int32_t halo_above;         /* readable input rows above y0 */
    int32_t halo_below;         /* readable input rows below y0 + rows - 1 */
    int32_t pixel_bytes;        /* bytes of one pixel: comps * comp_bytes */
    int32_t comps;              /* components per pixel (NV12 UV: 2, RGB: 3) */
    int32_t comp_bytes;         /* 1, or 2 (16-bit little-endian); the
                                 * components: plane_formats[] */
    int32_t x_shift;            /* log2 horizontal subsampling (0 or 1) */
    int32_t y_shift;            /* log2 vertical subsampling (0 or 1) */
    int32_t reserved;
  } GstCudaOverlapKernelPlane;

/* How a plane's components lie in its pixels (ABI version 2). */
  typedef enum
  {
    /* every pixel holds each of its plane's components */
    GST_CUDA_OVERLAP_KERNEL_PACKING_NONE = 0,
    /* 4:2:2 in pairs of pixels of 2 bytes (YUY2: Y0 U Y1 V): a pixel's
     * byte 0 is its luma, byte 1 chroma: U in even pixels, V in odd ones,
     * shared by the pair (chroma sample x / 2) */
    GST_CUDA_OVERLAP_KERNEL_PACKING_422_YUYV = 1,
    /* the same with the bytes swapped (UYVY: U Y0 V Y1): byte 1 luma, byte 0
     * U (even pixels) or V (odd pixels) */
    GST_CUDA_OVERLAP_KERNEL_PACKING_422_UYVY = 2,
    /* one 32-bit little-endian word per pixel holding three components of
     * 10 bits and one of 2 (RGB10A2_LE, BGR10A2_LE): comp_shift says where */
    GST_CUDA_OVERLAP_KERNEL_PACKING_10_10_10_2 = 3,
  } GstCudaOverlapKernelPacking;

/* GstCudaOverlapVideoLaunch.format_flags (ABI version 2) */
/* the components are Y, U, V (and A) */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_YUV (1u << 0)
/* R, G, B (and A) */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_RGB (1u << 1)
/* Y only */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_GRAY (1u << 2)
/* component 3 is alpha */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_ALPHA (1u << 3)
/* component 3 is padding ('x'): no value, its bits to be copied */
#define GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_PADDING (1u << 4)

/* Where the components of the picture lie in one plane's pixels (ABI
 * version 2).  Components are numbered as GStreamer numbers them: R, G, B,
 * A (or padding, 'x') for the RGB formats, Y, U, V for the YUV formats, Y
 * for GRAY.  Component c of a pixel of this plane, whose pixel_bytes bytes
 * start at px:
 *   sample = the little-endian integer of sample_bytes bytes at
 *            px + comp_offset[c]
 *   value  = (sample >> comp_shift[c]) & ((1 << comp_bits[c]) - 1)
 * comp_bits[c] is 0 (and comp_offset[c] -1) where the plane does not hold
 * component c.  With a 4:2:2 packing, U is in even pixels only and V in
 * odd ones only (both at the same comp_offset).  The bits of a sample that
 * hold no component are padding (P010_10LE's 6 low bits, I420_10LE's 6
 * high bits). */
  typedef struct
  {
    int32_t packing;            /* GstCudaOverlapKernelPacking */
    int32_t sample_bytes;       /* 1, 2 or 4 (a 10:10:10:2 word) */
    int32_t bits;               /* bits of a colour component: 8, 10 or 16 */
    int32_t shift;              /* their position in a sample: value =
                                 * (sample >> shift) & ((1 << bits) - 1);
                                 * 10:10:10:2: 0, see comp_shift */
    int32_t comp_offset[4];     /* byte of component c's sample in a pixel */
    int32_t comp_shift[4];      /* the lowest bit of its value in the sample */
    int32_t comp_bits[4];       /* the bits of its value; 0: not here */
  } GstCudaOverlapKernelPlaneFormat;

/* What a video kernel gets per launch: by value on CUDA (its only
 * argument), by pointer on the CPU.  planes[plane] is the plane to write;
 * the other planes' input bands (same picture rows) may be read too. */
  typedef struct
  {
    uint32_t abi_version;       /* of the format: see ..._FORMAT_ABI_VERSION */
    uint32_t struct_size;       /* sizeof (GstCudaOverlapVideoLaunch) */
    uint32_t format;            /* GstCudaOverlapKernelFormat */
    int32_t plane;              /* the plane this launch writes */
    int32_t n_planes;
    int32_t width;              /* of the picture (plane 0) */
    int32_t height;             /* rows of the picture */
    int32_t y0;                 /* the band's first row, in picture rows */
    int32_t rows;               /* the band's rows, in picture rows */
    int32_t halo;               /* kernel-halo as set */
    int32_t chunk;              /* the band's index in the frame */
    int32_t n_chunks;           /* bands of the frame */
    int32_t n_params;           /* kernel-params given */
    int32_t reserved;
    GstCudaOverlapKernelPlane planes[GST_CUDA_OVERLAP_KERNEL_MAX_PLANES];
    double params[GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS];  /* 0 past n_params */
    /* ABI version 2 (struct_size >= 1152), for every format, those of
     * version 1 included: */
    uint32_t format_flags;      /* GST_CUDA_OVERLAP_KERNEL_FORMAT_FLAG_* */
    int32_t n_comps;            /* components: 1 (GRAY), 3, 4 (A or x) */
    /* of planes[i]; entries past n_planes are zero */
      GstCudaOverlapKernelPlaneFormat
        plane_formats[GST_CUDA_OVERLAP_KERNEL_MAX_PLANES];
  } GstCudaOverlapVideoLaunch;

/* What an audio kernel gets per chunk (a run of sample frames).
 *
 * Input: frame n (n from -history to frames - 1) starts at
 * src + n * channels samples: frames 0 .. frames - 1 are the chunk, the
 * history frames before it are the stream's preceding frames (of this
 * buffer, or of the previous buffers; zeros at the start of the stream,
 * after a flush, a DISCONT buffer, a caps change or a new kernel).
 * Output: dst + n * channels samples, n from 0 to frames - 1: exactly
 * those, every sample. */
  typedef struct
  {
    uint32_t abi_version;       /* 1: the audio struct of version 1 */
    uint32_t struct_size;       /* sizeof (GstCudaOverlapAudioLaunch) */
    uint32_t format;            /* GstCudaOverlapKernelAudioFormat */
    int32_t channels;
    const void *src;            /* frame 0 of the chunk */
    void *dst;
    int64_t frames;             /* frames to compute */
    int64_t history;            /* readable frames before frame 0 (kernel-halo) */
    int64_t offset;             /* frame 0's index in the buffer */
    int32_t rate;               /* sample rate in Hz */
    int32_t chunk;              /* the chunk's index in the buffer */
    int32_t n_chunks;
    int32_t n_params;
    double params[GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS];  /* 0 past n_params */
  } GstCudaOverlapAudioLaunch;

/* The CPU backend's signature (kernel-cpu-symbol): the same struct, with
 * host pointers.  Return 0; anything else fails the frame with an element
 * error that gives the value. */
  typedef int (*GstCudaOverlapVideoKernelCpu) (const GstCudaOverlapVideoLaunch
      * launch);
  typedef int (*GstCudaOverlapAudioKernelCpu) (const GstCudaOverlapAudioLaunch
      * launch);

/* A host-side launcher: an application's or a plugin's own code run by the
 * engine per launch, instead of a module (the elements' kernel-launcher
 * property; docs/custom-kernels.md, "Your own launcher").  From C only: a
 * language binding cannot make the functions.
 *
 * The property's type is a GLib boxed type of this struct, named
 * GST_CUDA_OVERLAP_KERNEL_LAUNCHER_TYPE_NAME and registered when the plugin
 * loads (GST_CUDA_OVERLAP_TYPE_KERNEL_LAUNCHER, with <glib-object.h>, once
 * an element has been made).  g_object_set (filter, "kernel-launcher", &l,
 * NULL) copies the struct (it may live on the stack), and the copy takes
 * over @user_data.  Copies of that copy (the element's, one read back from
 * the property) share it: @destroy (if not NULL) runs once, after the last
 * of them is freed and the last call of the functions, i.e. when the
 * launcher is replaced (set again, or NULL) and no engine uses it any
 * more, or when the element is finalized.  Reading the property gives a
 * copy (g_boxed_free it).  To share one launcher between elements, make
 * one copy with g_boxed_copy (), set it on each and free it: setting the
 * application's own struct on two elements would hand its @user_data
 * over twice.  The copies are read-only: the engine runs the struct as it
 * was first copied.  A struct of an unknown @abi_version, or a smaller
 * @struct_size, is refused where it is set, and its @destroy never runs.
 *
 * The launch structs, the bands, the halo and the order of the calls are
 * exactly those of a module's kernel: one call per plane of a video band,
 * one per audio chunk, from the thread that queues that chunk (several
 * chunks' calls may run at once on different threads).
 *
 * CUDA backend: @video (or @audio) queues the work on @cuda_stream (a
 * cudaStream_t of the engine; the engine's CUDA context is current) and
 * returns without waiting for it: with kernel<<<grid, block, 0,
 * (cudaStream_t) cuda_stream>>> (launch), or any other stream-ordered
 * work.  It returns 0, or anything else (a cudaError_t, say) to fail the
 * frame with an element error that gives the value; the engine also
 * checks cudaGetLastError () after each call.  NULL: the CUDA backend
 * refuses the launcher.
 * CPU backend: @video_cpu (or @audio_cpu) computes the launch on the
 * calling thread with host pointers and returns 0.  NULL: the CPU backend
 * refuses the launcher with a message that says so. */
  typedef struct
  {
    uint32_t abi_version;       /* GST_CUDA_OVERLAP_KERNEL_ABI_VERSION, or 1 */
    uint32_t struct_size;       /* sizeof (GstCudaOverlapKernelLauncher) */
    int (*video) (void *cuda_stream, const GstCudaOverlapVideoLaunch * launch,
        void *user_data);
    int (*audio) (void *cuda_stream, const GstCudaOverlapAudioLaunch * launch,
        void *user_data);
    int (*video_cpu) (const GstCudaOverlapVideoLaunch * launch,
        void *user_data);
    int (*audio_cpu) (const GstCudaOverlapAudioLaunch * launch,
        void *user_data);
    void *user_data;
    void (*destroy) (void *user_data);
  } GstCudaOverlapKernelLauncher;

/* The name of the boxed type of GstCudaOverlapKernelLauncher, the
 * kernel-launcher property's type, and the type itself (expand it where
 * <glib-object.h> is included, after the plugin has loaded: 0 before). */
#define GST_CUDA_OVERLAP_KERNEL_LAUNCHER_TYPE_NAME "GstCudaOverlapKernelLauncher"
#define GST_CUDA_OVERLAP_TYPE_KERNEL_LAUNCHER \
  (g_type_from_name (GST_CUDA_OVERLAP_KERNEL_LAUNCHER_TYPE_NAME))

#ifdef __cplusplus
}
#endif
#endif /* __GST_CUDA_OVERLAP_KERNEL_H__ */
