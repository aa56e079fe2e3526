/* cudaoverlap: page-locked host memory for the elements.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaOverlapPinnedAllocator hands out GstMemory over page-locked
 * blocks of the process's block cache (engine/co-hostkeep.h: blocks of
 * co_host_alloc(), kept for reuse and made one ahead).  The buffer pools
 * built on it (input pool proposed upstream, output pool, input staging
 * pool) are made at caps time with two buffers and grow as frames need
 * more (docs/architecture.md, "When page-locked memory is made").
 *
 * Foreign memory (a GstMemory that is not ours, e.g. an upstream pool's
 * malloc'ed memory, or an application's frame ring wrapped anew for every
 * frame) goes through the process-wide registry of page-locked ranges
 * (engine/co-hostreg.h), never straight to cudaHostRegister: several
 * GstMemory (of several elements, pipelines, wrappings) may lie over the
 * same pages, and only the registry knows when the last user is gone.
 * A GstMemory, small or large, that comes back (a frame in it uploaded a
 * second time) takes a reference on its range (registering the pages if
 * nobody has), attached to it as qdata and dropped when it is finalized,
 * before its bytes are freed; upstream pools and applications' recurring
 * buffers bring their GstMemory back, so each is registered once.  A
 * GstMemory seen once is used as it is when its bytes are page-locked
 * already (by the application, or inside a registered range), and staged
 * otherwise: no pageable copy ever goes to the device (a pageable
 * cudaMemcpyAsync is a synchronous copy through the driver's own staging).
 * Every frame in flight takes its own reference too, dropped by the element
 * when the device has read it.
 */
#include <string.h>

#include "gstcudaoverlap-hostmem.h"
#include "co-hostkeep.h"
#include "co-parcopy.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_hostmem_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_hostmem_debug

typedef struct
{
  GstMemory mem;
  gpointer base;                /* from the keep (co-hostkeep.h) */
  gsize asked;                  /* the size asked of the keep */
  guint8 *data;                 /* aligned start */
} PinnedMemory;

struct _GstCudaOverlapPinnedAllocator
{
  GstAllocator parent;
  gint device_id;
};

G_DEFINE_TYPE (GstCudaOverlapPinnedAllocator,
    gst_cuda_overlap_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_mem_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstCudaOverlapPinnedAllocator *self =
      GST_CUDA_OVERLAP_PINNED_ALLOCATOR (allocator);
  PinnedMemory *m;
  gsize align = params->align | gst_memory_alignment | 63;
  gsize maxsize = size + params->prefix + params->padding;
  GError *err = NULL;
  gpointer base;
  gint64 t0 = g_get_monotonic_time ();

  base = co_host_keep_take (co_host_keep_get_default (), maxsize + align,
      self->device_id, &err);
  if (!base) {
    GST_ERROR_OBJECT (self, "could not allocate %" G_GSIZE_FORMAT
        " page-locked bytes: %s", maxsize, err->message);
    g_error_free (err);
    return NULL;
  }
  /* a block from the keep takes microseconds, page-locking milliseconds:
   * the log tells a pool that page-locks in its steady state */
  GST_DEBUG_OBJECT (self, "%" G_GSIZE_FORMAT " page-locked bytes in %.3f ms",
      maxsize, (g_get_monotonic_time () - t0) / 1000.0);
  m = g_new0 (PinnedMemory, 1);
  m->base = base;
  m->asked = maxsize + align;
  m->data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  gst_memory_init (GST_MEMORY_CAST (m), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (m->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (m->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (m);
}

static void
pinned_mem_free (GstAllocator * allocator, GstMemory * mem)
{
  PinnedMemory *m = (PinnedMemory *) mem;

  co_host_keep_give (co_host_keep_get_default (), m->base, m->asked);
  g_free (m);
}

static gpointer
pinned_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((PinnedMemory *) mem)->data;
}

static void
pinned_mem_unmap (GstMemory * mem)
{
}

static GstMemory *
pinned_mem_share (GstMemory * mem, gssize offset, gssize size)
{
  PinnedMemory *m = (PinnedMemory *) mem, *sub;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  sub = g_new0 (PinnedMemory, 1);
  sub->base = NULL;
  sub->data = m->data;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      mem->allocator, parent, mem->maxsize, mem->align,
      mem->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
pinned_mem_free_shared (GstAllocator * allocator, GstMemory * mem)
{
  PinnedMemory *m = (PinnedMemory *) mem;

  if (mem->parent)
    g_free (m);
  else
    pinned_mem_free (allocator, mem);
}

static void
    gst_cuda_overlap_pinned_allocator_class_init
    (GstCudaOverlapPinnedAllocatorClass * klass)
{
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  alloc_class->alloc = pinned_mem_alloc;
  alloc_class->free = pinned_mem_free_shared;
  GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_hostmem_debug,
      "cudaoverlap-hostmem", 0, "cudaoverlap page-locked host memory");
}

static void
gst_cuda_overlap_pinned_allocator_init (GstCudaOverlapPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR (self);

  alloc->mem_type = GST_CUDA_OVERLAP_PINNED_MEMORY_TYPE;
  alloc->mem_map = pinned_mem_map;
  alloc->mem_unmap = pinned_mem_unmap;
  alloc->mem_share = pinned_mem_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_cuda_overlap_pinned_allocator_new (gint device_id)
{
  GstCudaOverlapPinnedAllocator *self =
      g_object_new (GST_TYPE_CUDA_OVERLAP_PINNED_ALLOCATOR, NULL);

  self->device_id = device_id;
  gst_object_ref_sink (self);
  return GST_ALLOCATOR (self);
}

gboolean
gst_cuda_overlap_is_pinned_memory (GstMemory * mem)
{
  return mem->allocator &&
      gst_memory_is_type (mem, GST_CUDA_OVERLAP_PINNED_MEMORY_TYPE);
}

/* ---- foreign memory: the registry adapter -------------------------------- */

/* Guards the qdata of foreign memories: one GstMemory may be prepared by
 * several elements (one buffer pushed into two pipelines) at once. */
static GMutex hostmem_lock;

static GQuark
hostref_quark (void)
{
  static GQuark q;

  if (!q)
    q = g_quark_from_static_string ("cudaoverlap-host-ref");
  return q;
}

static GQuark
seen_quark (void)
{
  static GQuark q;

  if (!q)
    q = g_quark_from_static_string ("cudaoverlap-host-seen");
  return q;
}

/* The seen qdata's values. */
enum
{
  SEEN_ONCE = 1,                /* seen, not registered */
  SEEN_DRIVER_REFUSED = 2,      /* the driver would not register its pages */
};

/* How often a foreign memory was seen: 0 the first time (it is then marked
 * SEEN_ONCE), SEEN_ONCE when it comes back unregistered, and
 * SEEN_DRIVER_REFUSED once the driver refused to register it.  A memory
 * seen once (an application's new GstMemory per frame, fresh memory per
 * frame) is staged: registering it would cost a cudaHostRegister and a
 * cudaHostUnregister of its pages for one use, and its address may be
 * freed and reused for anything once its GstMemory is gone.  A memory that
 * comes back (a pool's, an application's recurring buffers), small or
 * large, is registered the second time, and stays so while it lives: the
 * registration's cost is paid once for all its frames. */
static gint
sightings (GstMemory * owner)
{
  GstMiniObject *o = GST_MINI_OBJECT_CAST (owner);
  gint seen;

  g_mutex_lock (&hostmem_lock);
  seen = GPOINTER_TO_INT (gst_mini_object_get_qdata (o, seen_quark ()));
  if (!seen)
    gst_mini_object_set_qdata (o, seen_quark (), GINT_TO_POINTER (SEEN_ONCE),
        NULL);
  g_mutex_unlock (&hostmem_lock);
  return seen;
}

/* The qdata destroy notify: runs when the GstMemory is finalized, before
 * its bytes are freed (or when the qdata is replaced). */
static void
hostref_release_notify (gpointer data)
{
  co_hostref_release (data);
}

/* @owner's registry reference (qdata) added to *@frame; FALSE when it has
 * none. */
static gboolean
registered_before (GstMemory * owner, CoHostRef ** frame)
{
  CoHostRef *ref;

  g_mutex_lock (&hostmem_lock);
  ref = gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (owner),
      hostref_quark ());
  if (ref)
    co_hostref_add (frame, ref);
  g_mutex_unlock (&hostmem_lock);
  return ref != NULL;
}

/* A foreign memory that comes back: its owner's whole allocation,
 * registered (referenced once per GstMemory, as qdata, and once more for
 * this frame), or page-locked by the application.  PAGEABLE when it is
 * neither: the caller looks it up as a memory seen once. */
static CoMemPath
memory_prepare_recurring (GstMemory * owner, gint device_id, CoHostRef ** frame)
{
  CoHostRef *ref = NULL;
  CoHostRegResult res;
  GstMapInfo map;
  GError *err = NULL;
  gint64 t0;

  if (!gst_memory_map (owner, &map, GST_MAP_READ))
    return CO_PATH_STAGED;
  t0 = g_get_monotonic_time ();
  res = co_hostreg_acquire (co_hostreg_get_default (),
      map.data - owner->offset, owner->maxsize, device_id,
      CO_HOSTREG_REGISTER, &ref, &err);
  t0 = g_get_monotonic_time () - t0;
  gst_memory_unmap (owner, &map);

  switch (res) {
    case CO_HOSTREG_REGISTERED:
      co_hostref_add (frame, ref);
      g_mutex_lock (&hostmem_lock);
      /* another element may have registered it meanwhile: the qdata then
       * drops that element's reference, and the entry keeps ours */
      gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (owner),
          hostref_quark (), ref, hostref_release_notify);
      g_mutex_unlock (&hostmem_lock);
      GST_INFO ("memory %p: %" G_GSIZE_FORMAT " bytes page-locked in %.3f "
          "ms", owner, owner->maxsize, t0 / 1000.0);
      return CO_PATH_REGISTERED;
    case CO_HOSTREG_PINNED:
      return CO_PATH_PINNED;
    default:
      /* the registry's own refusals (pages shared with a neighbour's
       * registration) may pass: asked again next time; the driver's stay */
      if (!g_error_matches (err, CO_ENGINE_ERROR, CO_ENGINE_ERROR_REFUSED)) {
        g_mutex_lock (&hostmem_lock);
        gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (owner), seen_quark (),
            GINT_TO_POINTER (SEEN_DRIVER_REFUSED), NULL);
        g_mutex_unlock (&hostmem_lock);
      }
      GST_INFO ("memory %p is not page-locked, its frames are staged: %s",
          owner, err ? err->message : "refused");
      g_clear_error (&err);
      return CO_PATH_PAGEABLE;
  }
}

/* A foreign memory seen once (or that cannot be registered): copied from
 * where it is when it is page-locked already (the application's, or inside
 * someone's registered range, then held for the frame), staged otherwise:
 * never registered, never copied from while pageable. */
static CoMemPath
memory_prepare_once (GstMemory * mem, gint device_id, CoHostRef ** frame)
{
  CoHostRegResult res;
  GstMapInfo map;
  GError *err = NULL;

  if (!gst_memory_map (mem, &map, GST_MAP_READ))
    return CO_PATH_STAGED;
  res = map.size == 0 ? CO_HOSTREG_PINNED :
      co_hostreg_acquire (co_hostreg_get_default (), map.data, map.size,
      device_id, CO_HOSTREG_LOOKUP, frame, &err);
  gst_memory_unmap (mem, &map);
  switch (res) {
    case CO_HOSTREG_PINNED:
      return CO_PATH_PINNED;
    case CO_HOSTREG_REGISTERED:
      return CO_PATH_REGISTERED;
    case CO_HOSTREG_PAGEABLE:
      return CO_PATH_STAGED;
    default:
      GST_INFO ("memory %p cannot be copied from directly, staged: %s", mem,
          err ? err->message : "refused");
      g_clear_error (&err);
      return CO_PATH_STAGED;
  }
}

CoMemPath
gst_cuda_overlap_hostmem_prepare (GstBuffer * buf, gint device_id,
    CoHostRef ** frame_ref)
{
  GstMemory *mem, *owner;
  CoMemPath path = CO_PATH_PAGEABLE;
  guint i, n = gst_buffer_n_memory (buf);

  *frame_ref = NULL;
  if (device_id < -1) {
    for (i = 0; i < n; i++)
      if (!gst_cuda_overlap_is_pinned_memory (gst_buffer_peek_memory (buf, i)))
        return CO_PATH_PAGEABLE;
    return CO_PATH_PINNED;
  }
  /* several memories: mapping merges them into a temporary (pageable,
   * unheld) copy, so copy them into our memory instead */
  if (n != 1)
    return CO_PATH_STAGED;

  mem = gst_buffer_peek_memory (buf, 0);
  owner = mem->parent ? mem->parent : mem;
  if (gst_cuda_overlap_is_pinned_memory (mem))
    return CO_PATH_PINNED;
  if (registered_before (owner, frame_ref))
    return CO_PATH_REGISTERED;
  if (owner->maxsize > 0 && sightings (owner) == SEEN_ONCE)
    path = memory_prepare_recurring (owner, device_id, frame_ref);
  if (path == CO_PATH_PAGEABLE)
    path = memory_prepare_once (mem, device_id, frame_ref);
  if (path == CO_PATH_STAGED)
    g_clear_pointer (frame_ref, co_hostref_release);
  return path;
}

CoMemPath
gst_cuda_overlap_hostmem_path_of (GstBuffer * buf, gconstpointer data,
    gsize size)
{
  const guint8 *p = data;
  guint i, n = gst_buffer_n_memory (buf);

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    const guint8 *start;
    GstMapInfo map;

    if (!gst_memory_map (mem, &map, GST_MAP_READ))
      continue;
    start = map.data - mem->offset;
    gst_memory_unmap (mem, &map);
    if (p >= start && size <= mem->maxsize &&
        (gsize) (p - start) <= mem->maxsize - size)
      return CO_PATH_PINNED;
  }
  return CO_PATH_PAGEABLE;
}

/* ---- staged copies ------------------------------------------------------- */

/* gst_buffer_copy_into() leaves out the metas tagged "memory" (the video
 * meta among them) unless it copies the memories too; a staged copy has
 * every byte at the same offset, so they hold for it as well. */
static void
copy_memory_metas (GstBuffer * staged, GstBuffer * in)
{
  GQuark tag = g_quark_from_static_string (GST_META_TAG_MEMORY_STR);
  GstMetaTransformCopy copy = { FALSE, 0, gst_buffer_get_size (in) };
  gpointer state = NULL;
  GstMeta *meta;

  while ((meta = gst_buffer_iterate_meta (in, &state))) {
    const GstMetaInfo *info = meta->info;

    if (info->transform_func && gst_meta_api_type_has_tag (info->api, tag))
      info->transform_func (staged, meta, in, _gst_meta_transform_copy, &copy);
  }
}


/* One staged copy in flight: the input and the staged memory stay mapped
 * (and referenced) until the job that copies has finished. */
typedef struct
{
  GstBuffer *src;
  GstMapInfo src_map;
  GstMemory *dst;
  GstMapInfo dst_map;
} StageCopy;

static void
stage_copy_done (gpointer data)
{
  StageCopy *c = data;

  gst_memory_unmap (c->dst, &c->dst_map);
  gst_memory_unref (c->dst);
  gst_buffer_unmap (c->src, &c->src_map);
  gst_buffer_unref (c->src);
  g_free (c);
}

/* The input's bytes into @staged: one memory into one (the usual case) by
 * @job's threads (co-parcopy.c: staging is bound by the host's memcpy);
 * otherwise now, memory by memory.  The staged memory is mapped READWRITE,
 * so the frame's own READ mapping of it (the element's prepare) may come
 * while the copy runs. */
static gboolean
stage_bytes (GstBuffer * in, GstBuffer * staged, gsize size, CoParcopyJob * job)
{
  StageCopy *c;
  GstMapInfo map;

  if (size == 0)
    return TRUE;                /* an empty buffer has no memory to map */
  if (gst_buffer_n_memory (in) == 1 && gst_buffer_n_memory (staged) == 1) {
    c = g_new0 (StageCopy, 1);
    c->dst = gst_memory_ref (gst_buffer_peek_memory (staged, 0));
    if (gst_memory_map (c->dst, &c->dst_map, GST_MAP_READWRITE)) {
      if (c->dst_map.size >= size &&
          gst_buffer_map (in, &c->src_map, GST_MAP_READ)) {
        c->src = gst_buffer_ref (in);
        co_parcopy_job_add (job, c->dst_map.data, c->src_map.data,
            MIN (size, c->src_map.size), stage_copy_done, c);
        return TRUE;
      }
      gst_memory_unmap (c->dst, &c->dst_map);
    }
    gst_memory_unref (c->dst);
    g_free (c);
  }
  if (!gst_buffer_map (staged, &map, GST_MAP_WRITE))
    return FALSE;
  gst_buffer_extract (in, 0, map.data, size);
  gst_buffer_unmap (staged, &map);
  return TRUE;
}

GstBuffer *
gst_cuda_overlap_hostmem_stage (GstBuffer * in, GstBufferPool * staging,
    gsize staging_size, GstAllocator * allocator, CoParcopyJob * job)
{
  GstBufferPoolAcquireParams params = { 0, };
  GstBuffer *staged = NULL;
  gsize size = gst_buffer_get_size (in);

  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  /* a free one is always there (one per image in flight), unless the
   * input is larger than the caps say */
  if (staging && size <= staging_size &&
      gst_buffer_pool_acquire_buffer (staging, &staged, &params) != GST_FLOW_OK)
    staged = NULL;
  if (!staged)
    staged = gst_buffer_new_allocate (allocator, size, NULL);
  if (!staged)
    return NULL;
  gst_buffer_set_size (staged, size);
  if (!gst_buffer_copy_into (staged, in, GST_BUFFER_COPY_METADATA, 0, -1) ||
      !stage_bytes (in, staged, size, job)) {
    gst_buffer_unref (staged);
    return NULL;
  }
  copy_memory_metas (staged, in);
  return staged;
}
