/* cudaoverlap: gst-plugins-bad's CUDA library (libgstcuda-1.0), loaded at
 * run time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * `memory:CUDAMemory` buffers and the "gst.cuda.context" GstContext belong
 * to libgstcuda-1.0 (GstCudaMemory, GstCudaBufferPool, GstCudaContext).
 * Its headers come only with Debian's libgstreamer-plugins-bad1.0-dev,
 * which pulls in libopencv-dev; the library itself is in every install of
 * gst-plugins-bad.  So the plugin does not link it: it opens
 * libgstcuda-1.0.so.0 with GModule the first time CUDA memory is asked for
 * and resolves the few calls it makes into a table, declared here from the
 * 1.22 API (gstcudacontext.h, gstcudamemory.h, gstcudabufferpool.h,
 * gstcudautils.h).  Where the library, the NVIDIA driver (libcuda) or a
 * usable device is missing, the elements advertise and accept system
 * memory only; the plugin loads and runs everywhere.
 *
 * The GstCuda* types stay opaque (GstObject, GstMemory): only the public
 * head of GstCudaMemory is read, which 1.22 and 1.24 share.
 */
#ifndef __GST_CUDA_OVERLAP_CUDAMEM_H__
#define __GST_CUDA_OVERLAP_CUDAMEM_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS
/* GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY */
#define GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA "memory:CUDAMemory"
/* GST_CUDA_CONTEXT_TYPE */
#define GST_CUDA_OVERLAP_CUDA_CONTEXT_TYPE "gst.cuda.context"
/* GST_MAP_CUDA: map a GstCudaMemory's device memory (the map's data is the
 * CUdeviceptr) instead of its system-memory staging copy */
#define GST_CUDA_OVERLAP_MAP_CUDA (GST_MAP_FLAG_LAST << 1)
/* The public head of a GstCudaMemory (1.22 and later). */
    typedef struct
{
  GstMemory mem;
  GstObject *context;           /* GstCudaContext */
  GstVideoInfo info;            /* pitched layout of the device memory */
} GstCudaOverlapCudaMemoryHead;

/* The public head of a GstCudaBufferPool (1.22 and later). */
typedef struct
{
  GstBufferPool parent;
  GstObject *context;           /* GstCudaContext */
} GstCudaOverlapCudaBufferPoolHead;

/* The calls of libgstcuda-1.0 that the elements make.  GstCudaContext
 * appears as GstObject, CUcontext as gpointer, CUdevice as gint. */
typedef struct
{
  /* 1.22 */
  gboolean (*load_library) (void);
  void (*memory_init_once) (void);
    gboolean (*is_cuda_memory) (GstMemory * mem);
    GType (*context_get_type) (void);
  GstObject *(*context_new_wrapped) (gpointer cu_context, gint cu_device);
    gpointer (*context_get_handle) (GstObject * cuda_context);
  GstBufferPool *(*buffer_pool_new) (GstObject * cuda_context);
    GType (*buffer_pool_get_type) (void);
    gboolean (*handle_set_context) (GstElement * element,
      GstContext * context, gint device_id, GstObject ** cuda_context);
    gboolean (*handle_context_query) (GstElement * element, GstQuery * query,
      GstObject * cuda_context);
  GstContext *(*context_new_cuda_context) (GstObject * cuda_context);
  /* allocator: the registered "gst.cuda.memory" allocator (never NULL);
   * pitched device memory of @info's format and size (1.22 aborts on a
   * format it does not know: RGBA and the formats nvcodec carries) */
  GstMemory *(*allocator_alloc) (GstAllocator * allocator,
      GstObject * cuda_context, const GstVideoInfo * info);
  /* 1.24 and later (NULL on 1.22): a GstCudaMemory may carry a stream
   * whose work must be waited for before another stream reads it */
    gpointer (*memory_get_stream) (GstMemory * mem);
  void (*memory_sync) (GstMemory * mem);
} GstCudaOverlapCudaLib;

/* The library's table, loaded once per process; NULL when the library or
 * one of its 1.22 calls is missing, or when it cannot load the NVIDIA
 * driver (libcuda): then *@why (if not NULL; do not free it) says which. */
const GstCudaOverlapCudaLib *gst_cuda_overlap_cuda_lib (const gchar ** why);

/* GST_CUDA_MEMORY_TYPE_NAME: the name the library registers its
 * allocator under (gst_allocator_find) */
#define GST_CUDA_OVERLAP_CUDA_MEMORY_TYPE "gst.cuda.memory"

/* Whether @caps' first structure has the memory:CUDAMemory feature. */
gboolean gst_cuda_overlap_caps_is_cuda (const GstCaps * caps);

/* @mem's GstCudaContext (a GstCudaMemory's), or NULL when @mem is not a
 * GstCudaMemory. */
GstObject *gst_cuda_overlap_cuda_memory_context (GstMemory * mem);

/* The "cuda-device-id" of a GstCudaContext. */
gint gst_cuda_overlap_cuda_context_device (GstObject * cuda_context);

/* Test builds only (-Dfault-injection): pretend that CUDA memory can be
 * negotiated (TRUE) although no GPU is there, so that the CPU tests see
 * the caps a GPU machine advertises; the engine still refuses to run on
 * it.  Exported for the tests, looked up with g_module_symbol. */
gboolean gst_cuda_overlap_cuda_fake_usable (void);

/* Test builds only (co_test_set_host_cuda_memory, which implies the
 * above): on the CPU backend, whose "device" memory is host memory, the
 * CUDA-memory pads carry system memory (any input memory is taken, the
 * output pool and the elements' device buffers are system memory), so
 * that the CPU suites run the elements' device-memory paths: plans, device
 * copies, history, negotiation and the memory facts (cudaaudiofilter's;
 * cudavideofilter reads the layout of a CUDA input without a video meta
 * from its GstCudaMemory, which system memory is not).  FALSE otherwise. */
gboolean gst_cuda_overlap_cuda_fake_host (void);

G_END_DECLS
#endif
