/* cudaoverlap: GstCudaOverlapFilter's batch being filled, and its timer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With `batch` > 1 an engine frame carries several buffers.  chain adds
 * them one by one (gstcudaoverlapfilter.c) and submits the batch when
 * it is full.  A batch never waits for buffers that may not come:
 *
 *  - the timer (a thread of the element, while an engine with batch > 1
 *    runs) submits a partial batch once no buffer has come for the
 *    timeout: min (one frame duration, 20 ms), or 2 ms when the rate is
 *    unknown (0/1 included);
 *  - when a batch times out before it filled and one of its buffers came
 *    from a pool that is not the one proposed upstream (a decoder's or a
 *    capture source's own, or no pool), the batch halves, down to 1: that
 *    upstream cannot give more buffers than it has;
 *  - a buffer from a foreign pool with a maximum of M buffers limits the
 *    batch to M / 2 (at least 1) at once, so that one batch is filled while
 *    the previous one runs;
 *  - likewise a buffer from no pool in system memory whose bytes are where
 *    those of the input M >= 2 buffers earlier were, that input no longer in the
 *    batch being filled: upstream cycles through M buffers of its own (an
 *    application's recurring buffers, or its slots wrapped in a new
 *    GstMemory for every frame and handed back by the memory's destroy
 *    notify), which it reuses once the element let them go; a batch of M
 *    would take them all, and no batch would fill while another runs.
 * Serialized events, DRAIN queries, flushes and rebuilds end the batch as
 * before (submitted or dropped).  The automatic batch and `batch=N` obey
 * the same rules.  What the batch learned (its smaller size) holds until
 * new caps or READY; each change posts a LATENCY message.
 *
 * Locking: the batch's lock guards the batch being filled.  The streaming
 * thread marks itself `adding` while it maps and plans a buffer into the
 * batch, without the lock, and the timer leaves the batch alone meanwhile;
 * submissions happen under the lock, so the engine sees its frames in
 * order.  The timer posts nothing (a failed submission is queued failed:
 * the push task posts its error), so no application callback runs on it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaoverlapfilter-private.h"

#define GST_CAT_DEFAULT gst_cuda_overlap_filter_debug

#define TIMEOUT_MAX_NS (20 * GST_MSECOND)
#define TIMEOUT_NO_RATE_NS (2 * GST_MSECOND)

GstClockTime
gst_cuda_overlap_time_add (GstClockTime a, GstClockTime b)
{
  if (!GST_CLOCK_TIME_IS_VALID (a) || !GST_CLOCK_TIME_IS_VALID (b))
    return GST_CLOCK_TIME_NONE;
  if (a > G_MAXUINT64 - 1 - b)
    return G_MAXUINT64 - 1;
  return a + b;
}

GstClockTime
gst_cuda_overlap_time_mul (GstClockTime a, guint64 n)
{
  if (!GST_CLOCK_TIME_IS_VALID (a))
    return GST_CLOCK_TIME_NONE;
  if (n != 0 && a > (G_MAXUINT64 - 1) / n)
    return G_MAXUINT64 - 1;
  return a * n;
}

void
gst_cuda_overlap_batch_init (GstCudaOverlapBatch * b)
{
  memset (b, 0, sizeof (*b));
  g_mutex_init (&b->lock);
  g_cond_init (&b->cond);
  b->learned = G_MAXUINT;
  b->fill = 1;
}

void
gst_cuda_overlap_batch_clear (GstCudaOverlapBatch * b)
{
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->cond);
}

void
gst_cuda_overlap_batch_forget (GstCudaOverlapBatch * b)
{
  b->learned = G_MAXUINT;
  b->fill_pool = NULL;
  memset (b->seen, 0, sizeof (b->seen));
  b->seen_pos = 0;
  g_atomic_int_set (&b->ring, 0);
}

gboolean
gst_cuda_overlap_batch_ring_bound (GstCudaOverlapBatch * b, guint in_flight,
    guint batch)
{
  return co_tune_ring_bound (g_atomic_int_get (&b->ring), in_flight, batch);
}

/* With the batch's lock. */
static gboolean
submit_locked (GstCudaOverlapFilter * self, GError ** error)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  CoFrame *cf = priv->filling.frame;

  if (!cf)
    return TRUE;
  priv->filling.frame = NULL;
  priv->slot_images[cf->slot] = priv->filling.n;
  priv->filling.n = 0;
  priv->filling.foreign = FALSE;
  return co_engine_submit (priv->engine, cf, error);
}

/* With the batch's lock. */
static void
cancel_locked (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  if (!priv->filling.frame)
    return;
  /* its staged copies write into its buffers: done before they go */
  co_engine_finish_host (priv->filling.frame);
  _gst_cuda_overlap_filter_drop_slot (self, priv->filling.frame->slot,
      priv->filling.n);
  co_engine_cancel (priv->engine, priv->filling.frame);
  priv->filling.frame = NULL;
  priv->filling.n = 0;
  priv->filling.foreign = FALSE;
}

gboolean
gst_cuda_overlap_batch_submit (GstCudaOverlapFilter * self, GError ** error)
{
  GstCudaOverlapBatch *b = &PRIV (self)->filling;
  gboolean ok;

  g_mutex_lock (&b->lock);
  ok = submit_locked (self, error);
  g_mutex_unlock (&b->lock);
  return ok;
}

void
gst_cuda_overlap_batch_cancel (GstCudaOverlapFilter * self)
{
  GstCudaOverlapBatch *b = &PRIV (self)->filling;

  g_mutex_lock (&b->lock);
  cancel_locked (self);
  g_mutex_unlock (&b->lock);
}

/* With the batch's lock: a smaller batch from now on. */
static void
set_fill_locked (GstCudaOverlapFilter * self, guint fill, const gchar * why)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  fill = MAX (fill, 1);
  if (fill >= priv->filling.fill)
    return;
  GST_INFO_OBJECT (self, "batch %u -> %u: %s", priv->filling.fill, fill, why);
  priv->filling.fill = fill;
  g_atomic_int_set (&priv->filling.latency_changed, TRUE);
}

/* A buffer from no pool: when its bytes are where those of the input d >= 2
 * buffers earlier were, and that input is not in the batch being filled
 * (upstream may have waited until the element let it go), upstream cycles
 * through d buffers: half of them at most in a batch. */
static void
see_ring (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapBatch *b = &PRIV (self)->filling;
  GstMemory *mem;
  GstMapInfo map;
  guint d;

  if (gst_buffer_n_memory (buf) != 1)
    return;
  mem = gst_buffer_peek_memory (buf, 0);
  /* system memory only: mapping other memory may copy it */
  if (!mem->allocator || !gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM) ||
      !gst_memory_map (mem, &map, GST_MAP_READ))
    return;
  gst_memory_unmap (mem, &map);
  for (d = 1; d <= GST_CUDA_OVERLAP_BATCH_SEEN; d++)
    if (b->seen[(b->seen_pos + GST_CUDA_OVERLAP_BATCH_SEEN - d) %
            GST_CUDA_OVERLAP_BATCH_SEEN] == map.data)
      break;
  b->seen[b->seen_pos] = map.data;
  b->seen_pos = (b->seen_pos + 1) % GST_CUDA_OVERLAP_BATCH_SEEN;
  /* the same bytes twice in a row (a still picture pushed again) say
   * nothing of a ring; a ring of one buffer times the batch out instead */
  if (d < 2 || d > GST_CUDA_OVERLAP_BATCH_SEEN)
    return;
  g_mutex_lock (&b->lock);
  if (d > b->n) {
    g_atomic_int_set (&b->ring, d);
    set_fill_locked (self, d / 2, "upstream cycles through a few buffers "
        "of its own");
  }
  g_mutex_unlock (&b->lock);
}

/* Streaming thread, before @buf is added: a pool of upstream's own with a
 * maximum limits the batch to half of it; without a pool, the ring of
 * buffers upstream cycles through (see_ring). */
void
gst_cuda_overlap_batch_see_pool (GstCudaOverlapFilter * self, GstBuffer * buf)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GstBufferPool *pool = buf->pool;
  GstStructure *config;
  guint max = 0;

  if (!pool && !priv->in_cuda) {
    see_ring (self, buf);
    return;
  }
  if (G_LIKELY (pool == priv->filling.fill_pool || pool == priv->proposed)
      || !pool)
    return;
  priv->filling.fill_pool = pool;       /* compared, never dereferenced again */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, NULL, NULL, &max);
  gst_structure_free (config);
  if (max == 0)
    return;
  g_atomic_int_set (&priv->filling.ring, max);
  g_mutex_lock (&priv->filling.lock);
  set_fill_locked (self, max / 2, "upstream's own pool holds only a few "
      "buffers");
  g_mutex_unlock (&priv->filling.lock);
}

static void
added_locked (GstCudaOverlapBatch * b, gboolean foreign)
{
  b->foreign |= foreign;
  b->last_add_ns = co_engine_now ();
}

CoFrame *
gst_cuda_overlap_batch_begin_add (GstCudaOverlapBatch * b)
{
  CoFrame *cf;

  g_mutex_lock (&b->lock);
  b->adding = TRUE;
  cf = b->frame;
  g_mutex_unlock (&b->lock);
  return cf;
}

void
gst_cuda_overlap_batch_set_frame (GstCudaOverlapBatch * b, CoFrame * cf)
{
  g_mutex_lock (&b->lock);
  b->frame = cf;
  b->n = 0;
  b->foreign = FALSE;
  g_mutex_unlock (&b->lock);
}

guint
gst_cuda_overlap_batch_next_image (GstCudaOverlapBatch * b)
{
  return b->n;
}

gboolean
gst_cuda_overlap_batch_end_add (GstCudaOverlapFilter * self, gboolean added,
    gboolean foreign, GError ** error)
{
  GstCudaOverlapBatch *b = &PRIV (self)->filling;
  gboolean ok = TRUE;

  g_mutex_lock (&b->lock);
  if (added) {
    b->n++;
    if (b->n >= b->fill)
      ok = submit_locked (self, error);
    else
      added_locked (b, foreign);
  } else if (b->frame && b->n == 0) {
    cancel_locked (self);
  }
  b->adding = FALSE;
  /* a batch left partial (also after a failed add) is the timer's again */
  if (b->frame && b->timer_idle)
    g_cond_signal (&b->cond);
  g_mutex_unlock (&b->lock);
  return ok;
}

static gpointer
timer_loop (gpointer data)
{
  GstCudaOverlapFilter *self = data;
  GstCudaOverlapFilterPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->filling.lock);
  while (!priv->filling.timer_stop) {
    guint64 deadline, now;
    GError *err = NULL;
    guint n, fill;
    gboolean shrink;

    if (!priv->filling.frame || priv->filling.n == 0 || priv->filling.adding) {
      priv->filling.timer_idle = TRUE;
      g_cond_wait (&priv->filling.cond, &priv->filling.lock);
      priv->filling.timer_idle = FALSE;
      continue;
    }
    deadline = priv->filling.last_add_ns + priv->filling.timeout_ns;
    now = co_engine_now ();
    if (now < deadline) {
      /* co_engine_now() and g_get_monotonic_time() are CLOCK_MONOTONIC */
      g_cond_wait_until (&priv->filling.cond, &priv->filling.lock,
          g_get_monotonic_time () + (gint64) ((deadline - now) / 1000) + 1);
      continue;
    }
    n = priv->filling.n;
    fill = priv->filling.fill;
    shrink = priv->filling.foreign && n < fill;
    GST_LOG_OBJECT (self, "no buffer for %" G_GUINT64_FORMAT " us: a batch "
        "of %u of %u goes", (now - priv->filling.last_add_ns) / 1000, n, fill);
    if (!submit_locked (self, &err)) {
      GST_WARNING_OBJECT (self, "submitting a partial batch failed: %s",
          err->message);
      g_clear_error (&err);
    }
    if (shrink)
      set_fill_locked (self, fill / 2, "upstream did not fill a batch in "
          "time from buffers of its own");
  }
  g_mutex_unlock (&priv->filling.lock);
  return NULL;
}

/* The timeout for the caps in effect. */
static guint64
batch_timeout (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterClass *klass = GST_CUDA_OVERLAP_FILTER_GET_CLASS (self);
  GstClockTime dur = klass->frame_duration ? klass->frame_duration (self) :
      GST_CLOCK_TIME_NONE;

  if (!GST_CLOCK_TIME_IS_VALID (dur) || dur == 0)
    return TIMEOUT_NO_RATE_NS;
  return MIN (dur, TIMEOUT_MAX_NS);
}

/* At a build, the engine installed: @batch images per engine frame. */
void
gst_cuda_overlap_batch_start (GstCudaOverlapFilter * self, guint batch)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  guint fill = MIN (batch, priv->filling.learned);

  g_mutex_lock (&priv->filling.lock);
  priv->filling.fill = MAX (fill, 1);
  priv->filling.timeout_ns = batch_timeout (self);
  priv->filling.timer_stop = FALSE;
  priv->filling.timer_idle = FALSE;
  g_mutex_unlock (&priv->filling.lock);
  if (batch > 1 && !priv->filling.timer)
    priv->filling.timer = g_thread_new ("cudaoverlap-batch", timer_loop, self);
}

/* At a teardown, before what is in flight is dropped: the timer stops; the
 * batch learned is kept for the next build of the same caps. */
void
gst_cuda_overlap_batch_stop (GstCudaOverlapFilter * self)
{
  GstCudaOverlapFilterPrivate *priv = PRIV (self);
  GThread *timer = g_steal_pointer (&priv->filling.timer);

  g_mutex_lock (&priv->filling.lock);
  priv->filling.timer_stop = TRUE;
  g_cond_signal (&priv->filling.cond);
  if (priv->filling.fill > 0 && priv->filling.fill < priv->batch)
    priv->filling.learned = MIN (priv->filling.learned, priv->filling.fill);
  g_mutex_unlock (&priv->filling.lock);
  if (timer)
    g_thread_join (timer);
}

void
gst_cuda_overlap_batch_bounds (GstCudaOverlapBatch * b, guint * fill,
    GstClockTime * timeout)
{
  g_mutex_lock (&b->lock);
  *fill = MAX (b->fill, 1);
  *timeout = b->timeout_ns;
  g_mutex_unlock (&b->lock);
}

void
gst_cuda_overlap_batch_post_latency (GstCudaOverlapBatch * b,
    GstElement * element)
{
  if (G_LIKELY (!g_atomic_int_get (&b->latency_changed)))
    return;
  if (g_atomic_int_compare_and_exchange (&b->latency_changed, TRUE, FALSE))
    gst_element_post_message (element,
        gst_message_new_latency (GST_OBJECT (element)));
}
