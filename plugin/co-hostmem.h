/* cudaoverlap: host memory for the overlap engine — a page-locked GstAllocator
 * and the registration of foreign (pageable) memory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __CO_HOSTMEM_H__
#define __CO_HOSTMEM_H__

#include <gst/gst.h>
#include "co-stats.h"

G_BEGIN_DECLS
#define CO_PINNED_MEMORY_TYPE "CoPinnedMemory"
#define CO_TYPE_PINNED_ALLOCATOR (co_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (CoPinnedAllocator, co_pinned_allocator, CO,
    PINNED_ALLOCATOR, GstAllocator);

/* An allocator whose memory is page-locked with cudaHostAlloc on
 * @device_id (portable: usable by every CUDA context). */
GstAllocator *co_pinned_allocator_new (gint device_id);

gboolean co_is_pinned_memory (GstMemory * mem);

/* Prepare a mapped input buffer for asynchronous upload.  Returns the path
 * the frame takes: PINNED when every memory is ours, REGISTERED when foreign
 * memory is (or already was) page-locked with cudaHostRegister (the
 * registration lives as long as that GstMemory and is dropped when it is
 * freed), PAGEABLE otherwise (small buffers, or registration failed: plain
 * copies).  @min_register is the smallest memory worth registering.
 * Returns PAGEABLE without trying when @device_id < -1 (CPU backend). */
CoMemPath co_hostmem_prepare (GstBuffer * buf, gint device_id,
    gsize min_register);

/* The path a copy of the @size bytes at @data really takes, where @data was
 * mapped from @buf (after co_hostmem_prepare()): PINNED or REGISTERED when
 * they lie inside one of @buf's page-locked memories, PAGEABLE otherwise —
 * e.g. when mapping merged several memories into a temporary copy. */
CoMemPath co_hostmem_path_of (GstBuffer * buf, gconstpointer data, gsize size);

G_END_DECLS
#endif
