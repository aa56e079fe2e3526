/* cudaoverlap: host memory for the elements — a page-locked GstAllocator,
 * and the adapter between GstMemory and the page-locked range registry.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_CUDA_OVERLAP_HOSTMEM_H__
#define __GST_CUDA_OVERLAP_HOSTMEM_H__

#include <gst/gst.h>
#include "co-hostreg.h"
#include "co-stats.h"
#include "co-parcopy.h"

G_BEGIN_DECLS
#define GST_CUDA_OVERLAP_PINNED_MEMORY_TYPE "CoPinnedMemory"
#define GST_TYPE_CUDA_OVERLAP_PINNED_ALLOCATOR \
  (gst_cuda_overlap_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaOverlapPinnedAllocator,
    gst_cuda_overlap_pinned_allocator, GST, CUDA_OVERLAP_PINNED_ALLOCATOR,
    GstAllocator);

/* An allocator whose memory is page-locked with cudaHostAlloc on
 * @device_id (portable: usable by every CUDA context). */
GstAllocator *gst_cuda_overlap_pinned_allocator_new (gint device_id);

gboolean gst_cuda_overlap_is_pinned_memory (GstMemory * mem);

/* The path @buf's bytes take to the device, and what keeps it safe:
 *  PINNED      every memory is ours (or page-locked by the application);
 *  REGISTERED  foreign memory inside a range of the registry (registered
 *              for it now, or earlier by anyone in this process); a
 *              GstMemory, small or large, is registered the second time it
 *              is seen and keeps a reference on its range until it is
 *              finalized;
 *  STAGED      none of these (a GstMemory seen once in pageable memory, a
 *              registration refused, memory overlapping a registered range
 *              partly, or a buffer of several memories, which mapping would
 *              merge into a temporary copy): the caller copies the bytes
 *              into page-locked memory of its own and uploads that.
 * No foreign memory is copied to the device from pageable memory.
 * *@frame_ref is the reference the frame keeps on its ranges while it is
 * in flight (NULL when none is needed); release it with
 * co_hostref_release() once the device has finished reading the input,
 * before the input buffer is unreffed.  When @device_id < -1 (CPU
 * backend), without touching the registry: PINNED if every memory is ours,
 * PAGEABLE otherwise. */
CoMemPath gst_cuda_overlap_hostmem_prepare (GstBuffer * buf, gint device_id,
    CoHostRef ** frame_ref);

/* Whether the @size bytes at @data, mapped from @buf, lie inside one of
 * @buf's memories: PINNED when they do (the frame keeps the path
 * gst_cuda_overlap_hostmem_prepare() gave it), PAGEABLE when mapping made
 * a temporary copy. */
CoMemPath gst_cuda_overlap_hostmem_path_of (GstBuffer * buf,
    gconstpointer data, gsize size);

/* CoMemPath STAGED: a copy of @in in one of our page-locked buffers (from
 * @staging when one is free and big enough, else a new one from
 * @allocator): its metadata, video meta included, and every byte at the
 * same offset, so offsets and strides stay valid.  NULL when no memory
 * could be had.  The bytes are copied by @job's threads (co-parcopy.h),
 * which hold @in and both mappings until the job is finished: finish @job
 * before the copy is read or released (a buffer of several memories is
 * copied at once, on the calling thread). */
GstBuffer *gst_cuda_overlap_hostmem_stage (GstBuffer * in,
    GstBufferPool * staging, gsize staging_size, GstAllocator * allocator,
    CoParcopyJob * job);

G_END_DECLS
#endif
