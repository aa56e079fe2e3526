/* cudaoverlap-bench: the inputs of a pipeline run: the pool buffers (the
 * element's pool, or for CUDA memory the pool proposed to appsrc) filled
 * once with ring frames, the ring frames as new memory per frame, the
 * slots handed back by their destroy notify; the CUDA context and caps of
 * the --memory pipelines.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "bench-gst.h"

/* --memory: CUDA input buffers filled before the timed frames */
#define CUDA_FILL_MIN 32
#define CUDA_FILL_MAX 64

/* Writes ring frame @r into @buf, mapped as @info. */
static void
fill_pool_buffer_as (GstBuffer * buf, const GstVideoInfo * info, gint r)
{
  GstVideoFrame vf;
  gint p, y;

  if (!gst_video_frame_map (&vf, info, buf, GST_MAP_WRITE))
    g_error ("cannot map a pool buffer for writing");
  for (p = 0; p < bench_gst.fr.lay.n_planes; p++) {
    const BenchPlane *bp = &bench_gst.fr.lay.planes[p];
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    gsize ds = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);

    for (y = 0; y < bp->height; y++)
      memcpy (d + y * ds, bench_gst.fr.ring[r] + bp->offset + y * bp->stride,
          MIN (ds, bp->stride));
  }
  gst_video_frame_unmap (&vf);
}

static void
fill_pool_buffer (GstBuffer * buf, gint r)
{
  fill_pool_buffer_as (buf, &bench_gst.info, r);
}

/* A CUDA-memory buffer filled with ring frame @r: written through its
 * system-memory staging (GST_MAP_WRITE), then mapped GST_MAP_CUDA, which
 * makes libgstcuda upload it now (in its own context), not in a run. */
static void
fill_cuda_buffer (GstBuffer * buf, const GstVideoInfo * info, gint r)
{
  GstVideoFrame vf;

  fill_pool_buffer_as (buf, info, r);
  if (!gst_video_frame_map (&vf, info, buf, GST_MAP_READ | MAP_CUDA))
    g_error ("cannot map a CUDA input buffer (GST_MAP_CUDA)");
  gst_video_frame_unmap (&vf);
}

/* Which ring frame a pool buffer holds, by its memory's data pointer (CUDA
 * memory: by the GstMemory, whose mapping would copy); a buffer not seen
 * before is filled with the next ring frame. */
gint
bench_pool_buffer_content (GstBuffer * buf, GHashTable * contents,
    const GstVideoInfo * cuda_info)
{
  GstMapInfo map;
  gpointer key, value;
  gint r;

  if (cuda_info) {
    key = gst_buffer_peek_memory (buf, 0);
    if (g_hash_table_lookup_extended (contents, key, NULL, &value))
      return GPOINTER_TO_INT (value);
    r = g_hash_table_size (contents) % BENCH_RING;
    fill_cuda_buffer (buf, cuda_info, r);
    g_hash_table_insert (contents, key, GINT_TO_POINTER (r));
    return r;
  }

  if (!gst_memory_map (gst_buffer_peek_memory (buf, 0), &map, GST_MAP_READ))
    g_error ("cannot map a pool buffer");
  key = map.data;
  gst_memory_unmap (gst_buffer_peek_memory (buf, 0), &map);
  if (g_hash_table_lookup_extended (contents, key, NULL, &value))
    return GPOINTER_TO_INT (value);
  r = g_hash_table_size (contents) % BENCH_RING;
  fill_pool_buffer (buf, r);
  g_hash_table_insert (contents, key, GINT_TO_POINTER (r));
  return r;
}

/* Input (a): the first pool of the element's answer to an ALLOCATION
 * query, activated and filled once: every buffer it can hold, or, when
 * it has no maximum, 32 at most and INPUT_POOL_BYTES of them at most (at
 * least 12: the frames in flight and the queue).  The cap keeps the
 * page-locked pool within what the element's process keeps for reuse, so
 * that the next pipeline does not page-lock its pools again while timed
 * (32 8K frames would be 4.2 GB). */
#define INPUT_POOL_BYTES ((gsize) 1 << 30)
GstBufferPool *
bench_input_pool (GstElement * src, GHashTable * contents, gchar ** pool_note)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstQuery *q = gst_query_new_allocation (bench_gst.caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GPtrArray *held = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  guint size = 0, min = 0, max = 0, i;

  if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  gst_query_unref (q);
  gst_object_unref (pad);
  if (pool) {
    *pool_note = g_strdup ("the element's pool");
  } else {
    /* the CPU backend proposes no pool: any memory will do there */
    *pool_note = g_strdup ("no pool proposed (CPU backend): the bench's "
        "own video pool, system memory");
    pool = gst_video_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, bench_gst.caps,
        bench_gst.fr.lay.size, 4, 16);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config))
      g_error ("cannot configure a video buffer pool");
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    g_ptr_array_unref (held);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, NULL, &min, &max);
  gst_structure_free (config);
  if (!max)
    max = (guint) CLAMP (INPUT_POOL_BYTES / MAX (bench_gst.fr.lay.size, 1), 12,
        32);
  for (i = 0; i < max; i++) {
    GstBufferPoolAcquireParams params = {.flags =
          GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
    };
    GstBuffer *b = NULL;

    if (gst_buffer_pool_acquire_buffer (pool, &b, &params) != GST_FLOW_OK)
      break;
    bench_pool_buffer_content (b, contents, NULL);
    g_ptr_array_add (held, b);
  }
  g_ptr_array_unref (held);
  return pool;
}

/* --memory, CUDA memory at appsrc: the first pool of the peer's answer to
 * an ALLOCATION query for @caps (cudavideofilter: a GstCudaBufferPool of the
 * shared context; cudadownload: one of its own), asked until it comes (the
 * peer answers once it has the caps) or 20 s; activated, its buffers must
 * be CUDA memory; CUDA_FILL_MIN to CUDA_FILL_MAX of them filled once. */
GstBufferPool *
bench_cuda_input_pool (GstElement * src, GstCaps * caps,
    const GstVideoInfo * info, GHashTable * contents, gchar ** error)
{
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GstBufferPool *pool = NULL;
  GPtrArray *held = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstStructure *config;
  guint64 deadline = bench_now_ns () + 20 * G_GUINT64_CONSTANT (1000000000);
  guint min = 0, max = 0, n, i;

  while (!pool && bench_now_ns () < deadline) {
    GstQuery *q = gst_query_new_allocation (caps, TRUE);

    if (gst_pad_peer_query (pad, q) && gst_query_get_n_allocation_pools (q))
      gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    gst_query_unref (q);
    if (!pool)
      g_usleep (10000);
  }
  gst_object_unref (pad);
  if (!pool) {
    *error = g_strdup ("no pool for CUDA memory was proposed to appsrc");
    goto out;
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    *error = g_strdup ("could not activate the proposed CUDA pool");
    gst_clear_object (&pool);
    goto out;
  }
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, NULL, &min, &max);
  gst_structure_free (config);
  n = CLAMP (min, CUDA_FILL_MIN, CUDA_FILL_MAX);
  if (max)
    n = MIN (n, max);
  for (i = 0; i < n; i++) {
    GstBufferPoolAcquireParams params = {.flags =
          GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
    };
    GstBuffer *b = NULL;

    if (gst_buffer_pool_acquire_buffer (pool, &b, &params) != GST_FLOW_OK)
      break;
    if (!gst_memory_is_type (gst_buffer_peek_memory (b, 0), CUDA_MEMORY_TYPE)) {
      *error = g_strdup ("the proposed pool's buffers are not CUDA memory");
      gst_buffer_unref (b);
      break;
    }
    bench_pool_buffer_content (b, contents, info);
    g_ptr_array_add (held, b);
  }
  if (*error) {
    g_ptr_array_set_size (held, 0);
    gst_buffer_pool_set_active (pool, FALSE);
    gst_clear_object (&pool);
  }
out:
  g_ptr_array_unref (held);
  return pool;
}

/* Ring frame @r as input @kind (not the pool's): the same GstMemory every
 * time it comes round, a new GstMemory over the bench's own malloc()ed
 * copy of the ring (wrap_ring), a fresh copy, a new GstMemory over the
 * application's page-locked copy. */
GstBuffer *
bench_ring_input (const BenchRunSpec * sp, gint r)
{
  gsize size = bench_gst.fr.lay.size;
  GstBuffer *buf;

  switch (sp->input) {
    case BENCH_IN_WRAPPED:
      return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
          bench_gst.wrap_ring[r], size, 0, size, NULL, NULL);
    case BENCH_IN_APP_PINNED:
      return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY,
          bench_gst.app_ring[r], size, 0, size, NULL, NULL);
    case BENCH_IN_FRESH:
      buf = gst_buffer_new_allocate (NULL, size, NULL);
      gst_buffer_fill (buf, 0, bench_gst.fr.ring[r], size);
      return buf;
    default:
      return NULL;
  }
}

BenchSlots *
bench_slots_of (BenchInput kind)
{
  switch (kind) {
    case BENCH_IN_SLOTS:
      return &bench_gst.slots;
    case BENCH_IN_SLOTS_PINNED:
      return &bench_gst.slots_pinned;
    case BENCH_IN_RECURRING:
      return &bench_gst.recurring;
    default:
      return NULL;
  }
}

void
bench_slots_init (BenchSlots * sl, guint n, gboolean locked, gboolean recurring)
{
  gsize size = bench_gst.fr.lay.size;
  guint k;

  sl->n = CLAMP (n, 1, BENCH_RING);
  sl->locked = locked;
  sl->recurring = recurring;
  g_mutex_init (&sl->lock);
  g_cond_init (&sl->cond);
  for (k = 0; k < sl->n; k++) {
    sl->mem[k] = locked ? bench_cuda_host_alloc (size) : g_malloc (size);
    memcpy (sl->mem[k], bench_gst.fr.ring[k], size);
    if (recurring)
      sl->wrapped[k] = gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY,
          sl->mem[k], size, 0, size, NULL, NULL);
  }
}

void
bench_slots_clear (BenchSlots * sl)
{
  guint k;

  if (!sl->n)
    return;
  for (k = 0; k < sl->n; k++) {
    if (sl->wrapped[k])
      gst_memory_unref (sl->wrapped[k]);
    if (sl->locked)
      bench_cuda_host_free (sl->mem[k]);
    else
      g_free (sl->mem[k]);
  }
  g_mutex_clear (&sl->lock);
  g_cond_clear (&sl->cond);
  memset (sl, 0, sizeof (*sl));
}

/* What hands a slot back: its GstMemory's destroy notify, or (recurring
 * slots) the weak reference on the GstBuffer over it. */
typedef struct
{
  BenchSlots *sl;
  guint k;
} SlotUse;

static void
slot_returned (gpointer data)
{
  SlotUse *u = data;
  BenchSlots *sl = u->sl;

  g_mutex_lock (&sl->lock);
  sl->busy[u->k] = FALSE;
  g_cond_broadcast (&sl->cond);
  g_mutex_unlock (&sl->lock);
  g_free (u);
}

static void
slot_buffer_finalized (gpointer data, GstMiniObject * where)
{
  slot_returned (data);
}

/* Frame @i over slot i mod n of @sl, once it is handed back; NULL when it
 * is not within WAIT_NS. */
GstBuffer *
bench_slot_input (BenchSlots * sl, guint i, gint * r)
{
  guint k = i % sl->n;
  gint64 deadline = g_get_monotonic_time () + WAIT_NS / 1000;
  gsize size = bench_gst.fr.lay.size;
  SlotUse *u;
  GstBuffer *buf;

  g_mutex_lock (&sl->lock);
  while (sl->busy[k])
    if (!g_cond_wait_until (&sl->cond, &sl->lock, deadline))
      break;
  if (sl->busy[k]) {
    g_mutex_unlock (&sl->lock);
    return NULL;
  }
  sl->busy[k] = TRUE;
  g_mutex_unlock (&sl->lock);
  *r = k;
  u = g_new (SlotUse, 1);
  u->sl = sl;
  u->k = k;
  if (!sl->recurring)
    return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, sl->mem[k],
        size, 0, size, u, slot_returned);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, gst_memory_ref (sl->wrapped[k]));
  gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (buf), slot_buffer_finalized,
      u);
  return buf;
}

GstCaps *
bench_caps_cuda (GstCaps * caps)
{
  GstCaps *c = gst_caps_copy (caps);

  gst_caps_set_features_simple (c, gst_caps_features_new ("memory:CUDAMemory",
          NULL));
  return c;
}

gboolean
bench_cuda_gst_context (gchar ** why)
{
  GstElement *f = gst_element_factory_make ("cudavideofilter", NULL);
  GstContext *ctx = NULL;
  const GstStructure *s;
  guint i;

  if (!f) {
    *why = g_strdup ("no cudavideofilter");
    return FALSE;
  }
  g_object_set (f, "backend", bench_gst.backend, NULL);
  /* at NULL -> READY it wraps the primary context (no neighbour has one) */
  if (gst_element_set_state (f, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE)
    ctx = gst_element_get_context (f, CUDA_CONTEXT_TYPE);
  gst_element_set_state (f, GST_STATE_NULL);
  gst_object_unref (f);
  if (!ctx) {
    *why = g_strdup ("cudavideofilter made no CUDA context: CUDA memory "
        "cannot be negotiated (libgstcuda-1.0 missing or without a driver; "
        "GST_DEBUG=cudaoverlap*:4 says why)");
    return FALSE;
  }
  s = gst_context_get_structure (ctx);
  for (i = 0; i < (guint) gst_structure_n_fields (s); i++) {
    const GValue *v = gst_structure_get_value (s,
        gst_structure_nth_field_name (s, i));

    if (G_VALUE_HOLDS_OBJECT (v) && g_value_get_object (v)) {
      bench_gst.cuda_ctx_obj = g_value_get_object (v);
      break;
    }
  }
  if (!bench_gst.cuda_ctx_obj) {
    gst_context_unref (ctx);
    *why = g_strdup ("the GstContext " CUDA_CONTEXT_TYPE " holds no "
        "GstCudaContext");
    return FALSE;
  }
  bench_gst.cuda_context = ctx;
  return TRUE;
}
