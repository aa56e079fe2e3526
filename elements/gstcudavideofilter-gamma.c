/* cudaoverlap: cudavideofilter's gamma tables, which travel with the frames.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See gstcudavideofilter-gamma.h.  A slot's host table is written only
 * when the slot is being filled: its previous frame has completed, so no
 * upload still reads it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudavideofilter-gamma.h"
#include "co-hostreg.h"

void
gst_cuda_video_gamma_init (GstCudaVideoGamma * g)
{
  memset (g, 0, sizeof (*g));
  g->cache_gamma = NAN;
}

static void
free_tables (GstCudaVideoGamma * g)
{
  if (g->pinned)
    co_host_free (g->host);
  else
    g_free (g->host);
  g->host = NULL;
  g->pinned = FALSE;
  g_clear_pointer (&g->host_gamma, g_free);
  g_clear_pointer (&g->dev_gamma, g_free);
  g->n = 0;
}

void
gst_cuda_video_gamma_clear (GstCudaVideoGamma * g)
{
  free_tables (g);
  g_clear_pointer (&g->cache, g_free);
  g->cache_gamma = NAN;
}

void
gst_cuda_video_gamma_reserve (GstCudaVideoGamma * g, guint32 max,
    guint batch, CoEngineConfig * cfg)
{
  if (g->max != max) {
    g_clear_pointer (&g->cache, g_free);
    g->cache_gamma = NAN;
  }
  g->max = max;
  g->batch = MAX (batch, 1);
  g->bytes = ((max + 1) * sizeof (guint16) + 255) & ~(gsize) 255;
  g->dev_off = (cfg->dev_in_size + 255) & ~(gsize) 255;
  cfg->dev_in_size = g->dev_off + g->batch * g->bytes;
}

gboolean
gst_cuda_video_gamma_ready (GstCudaVideoGamma * g, CoEngine * engine,
    gint device_id, GError ** error)
{
  guint i, n = co_engine_max_in_flight (engine) * g->batch;
  GError *err = NULL;

  free_tables (g);
  g->pinned = co_engine_backend (engine) == CO_BACKEND_CUDA;
  g->host = g->pinned ? co_host_alloc (n * g->bytes, device_id, &err) :
      g_try_malloc (n * g->bytes);
  if (!g->host) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_MEMORY,
        "could not allocate the gamma tables (%u x %" G_GSIZE_FORMAT
        " bytes): %s", n, g->bytes, err ? err->message : "out of memory");
    g_clear_error (&err);
    g->pinned = FALSE;
    return FALSE;
  }
  g->n = n;
  g->host_gamma = g_new (gdouble, n);
  g->dev_gamma = g_new (gdouble, n);
  for (i = 0; i < n; i++)
    g->host_gamma[i] = g->dev_gamma[i] = NAN;
  return TRUE;
}

/* Host table @idx holds @gamma's values. */
static void
fill_host (GstCudaVideoGamma * g, guint idx, gdouble gamma)
{
  guint16 *t = (guint16 *) ((guint8 *) g->host + idx * g->bytes);

  if (g->host_gamma[idx] == gamma)
    return;
  if (!g->cache)
    g->cache = g_new (guint16, g->max + 1);
  if (g->cache_gamma != gamma) {
    co_gamma_lut_fill (g->cache, g->max, gamma);
    g->cache_gamma = gamma;
  }
  memcpy (t, g->cache, (g->max + 1) * sizeof (guint16));
  g->host_gamma[idx] = gamma;
}

guint
gst_cuda_video_gamma_plan (GstCudaVideoGamma * g, CoEngine * engine,
    CoFrame * cf, guint image, gdouble gamma, CoVideoDesc * d)
{
  guint first = cf->slot * g->batch, idx = first + image;
  guint8 *dev;
  CoCopy *c;

  g_assert (idx < g->n && image < g->batch);
  fill_host (g, idx, gamma);
  d->lut_image_stride = g->bytes / sizeof (guint16);
  if (co_engine_backend (engine) == CO_BACKEND_CPU) {
    d->lut = (const guint16 *) ((guint8 *) g->host + first * g->bytes);
    return idx;
  }
  dev = cf->dev_in + g->dev_off;
  d->lut = (const guint16 *) dev;
  if (g->dev_gamma[idx] == gamma)
    return idx;
  g_assert (cf->n_pre < CO_FRAME_MAX_PRE);
  c = &cf->pre[cf->n_pre++];
  c->src = (guint8 *) g->host + idx * g->bytes;
  c->dst = dev + image * g->bytes;
  c->width = c->spitch = c->dpitch = (g->max + 1) * sizeof (guint16);
  c->rows = 1;
  return idx;
}

void
gst_cuda_video_gamma_done (GstCudaVideoGamma * g, guint idx, gdouble gamma,
    gboolean completed)
{
  if (idx >= g->n)
    return;
  g->dev_gamma[idx] = completed ? gamma : NAN;
}
