/* cudaoverlap-bench: --op custom, the user's kernel outside the element.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the raw rows and the checks need of a custom kernel (no GStreamer,
 * no CUDA): the launch description of a band, built the way the element's
 * planner builds it (engine/co-video.c: the band's output rows of each
 * plane, its input rows plus kernel-halo rows above and below, clamped at
 * the plane's edges; the launch structs then come from the same
 * co_custom_video_each as in the element), and the expected output of a
 * whole frame, computed by the kernel's CPU implementation
 * (kernel-cpu-library/-symbol, opened with GModule) over the frame as one
 * band.  The CUDA loop of the raw rows is bench-raw.c.
 */
#include <string.h>

#include <gmodule.h>

#include "bench.h"

void
bench_custom_free (BenchCustom * c)
{
  if (!c)
    return;
  if (c->cpu_mod)
    g_module_close (c->cpu_mod);
  g_free (c->module);
  g_free (c->name);
  g_free (c->cpu_library);
  g_free (c->cpu_symbol);
  g_free (c);
}

gboolean
bench_custom_open_cpu (BenchCustom * c, gchar ** why)
{
  gpointer fn = NULL;

  if (!c->cpu_library || !*c->cpu_library || !c->cpu_symbol || !*c->cpu_symbol) {
    *why = g_strdup ("--props names no kernel-cpu-library and "
        "kernel-cpu-symbol");
    return FALSE;
  }
  c->cpu_mod = g_module_open (c->cpu_library, G_MODULE_BIND_LOCAL);
  if (!c->cpu_mod) {
    *why = g_strdup_printf ("cannot open kernel-cpu-library \"%s\": %s",
        c->cpu_library, g_module_error ());
    return FALSE;
  }
  if (!g_module_symbol (c->cpu_mod, c->cpu_symbol, &fn) || !fn) {
    *why = g_strdup_printf ("no function \"%s\" in \"%s\": %s", c->cpu_symbol,
        c->cpu_library, g_module_error ());
    return FALSE;
  }
  c->cpu = (GstCudaOverlapVideoKernelCpu) fn;
  return TRUE;
}

void
bench_custom_band (const BenchCustom * c, const BenchLayout * l,
    const BenchCustomBand * band, CoVideoParams * p)
{
  gint i;

  memset (p, 0, sizeof (*p));
  p->op = CO_VIDEO_OP_CUSTOM;
  p->n_planes = l->n_planes;
  p->radius = c->run.halo;
  p->custom = &c->run;
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *bp = &l->planes[i];
    CoPlaneBand *b = &p->planes[i];

    b->y0 = bench_plane_row (bp, band->y0);
    b->y1 = bench_plane_row (bp, band->y1);
    b->src_y0 = MAX (0, b->y0 - c->run.halo);
    b->src_y1 = MIN (bp->height, b->y1 + c->run.halo);
    /* src: the row src_y0; dst: the row y0 (co-custom.c, fill_plane) */
    b->src = (guint8 *) band->src[i];
    b->dst = band->dst[i];
    b->src_stride = band->src_stride[i];
    b->dst_stride = band->dst_stride[i];
    b->width = bp->width;
    b->height = bp->height;
    b->comps = bp->comps;
    b->comp_bytes = bp->comp_bytes;
    b->comp_mask = bp->mask;
    b->bits = bp->bits;
    b->shift = bp->shift;
  }
}

typedef struct
{
  GstCudaOverlapVideoKernelCpu fn;
  gint ret, plane;
} CpuCall;

static int
cpu_one (const GstCudaOverlapVideoLaunch * a, void *user)
{
  CpuCall *call = user;

  call->plane = a->plane;
  return call->ret = call->fn (a);
}

gboolean
bench_custom_ref (const BenchCustom * c, const BenchLayout * l,
    const guint8 * src, guint8 * dst, gchar ** why)
{
  BenchCustomBand band = { 0, l->height, };
  CoVideoParams p;
  CpuCall call = { c->cpu, 0, -1 };
  gint i;

  /* the output as the element's pool would hand it: padding untouched */
  memcpy (dst, src, l->size);
  for (i = 0; i < l->n_planes; i++) {
    band.src[i] = src + l->planes[i].offset;
    band.dst[i] = dst + l->planes[i].offset;
    band.src_stride[i] = band.dst_stride[i] = l->planes[i].stride;
  }
  bench_custom_band (c, l, &band, &p);
  if (co_custom_video_each (&p, 0, 1, cpu_one, &call) == 0)
    return TRUE;
  *why = g_strdup_printf ("%s in %s returned %d (plane %d of the whole "
      "frame)", c->cpu_symbol, c->cpu_library, call.ret, call.plane);
  return FALSE;
}
