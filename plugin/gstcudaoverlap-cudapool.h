/* cudaoverlap: a pool of linear CUDA memory, for buffers that 1.22's
 * GstCudaBufferPool cannot describe (audio).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_CUDAPOOL_H__
#define __GST_CUDA_OVERLAP_CUDAPOOL_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_CUDA_OVERLAP_CUDA_POOL (gst_cuda_overlap_cuda_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOverlapCudaPool, gst_cuda_overlap_cuda_pool,
    GST, CUDA_OVERLAP_CUDA_POOL, GstBufferPool);

/* A pool of memory:CUDAMemory buffers in @cuda_context (a GstCudaContext),
 * each one GstCudaMemory of the configured size (gst_buffer_pool_config_
 * set_params: caps of any media, size > 0), linear; NULL without
 * libgstcuda-1.0 (gstcudaoverlap-cudamem.h). */
GstBufferPool *gst_cuda_overlap_cuda_pool_new (GstObject * cuda_context);

/* The GstCudaContext of @pool when it is one of these pools, else NULL
 * (no reference). */
GstObject *gst_cuda_overlap_cuda_pool_context (GstBufferPool * pool);

/* One GstCudaMemory of @size bytes of linear device memory in
 * @cuda_context, or NULL (the library is missing, or cuMemAllocPitch
 * failed). */
GstMemory *gst_cuda_overlap_cuda_memory_new_linear (GstObject * cuda_context,
    gsize size);

G_END_DECLS
#endif
