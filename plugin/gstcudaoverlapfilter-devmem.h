/* cudaoverlap: memory:CUDAMemory buffers of GstCudaOverlapFilter: the
 * output pool, the pool proposed upstream, the check of an input buffer
 * (gstcudaoverlapfilter-devmem.c explains them).  Streaming thread; no
 * state of its own beyond the element's CUDA context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_FILTER_DEVMEM_H__
#define __GST_CUDA_OVERLAP_FILTER_DEVMEM_H__

#include "gstcudaoverlapfilter.h"

G_BEGIN_DECLS
/* The output pool (configured, not active): downstream's when it is a CUDA
 * pool of our context, else ours.  *@downstream_min: the buffers
 * downstream asks to hold.  NULL when none could be made. */
    GstBufferPool * gst_cuda_overlap_devmem_output_pool (GstCudaOverlapFilter *
    self, GstCaps * caps, gsize size, guint * downstream_min);
/* A configured pool of our context for upstream (video only), or NULL. */
GstBufferPool *gst_cuda_overlap_devmem_proposal (GstCudaOverlapFilter * self,
    GstCaps * caps, guint n);
/* An input buffer on a CUDA-memory sink pad: FALSE, after an element
 * error, when it is not CUDA memory of our context. */
gboolean gst_cuda_overlap_devmem_check_input (GstCudaOverlapFilter * self,
    GstBuffer * buf);

G_END_DECLS
#endif
