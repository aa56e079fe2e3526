/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The video planner (engine/co-video.c) for every memory path, on the CPU:
 * host memory on both sides (copies through the slot's work memory), a
 * direct input (CUDAMemory on the GPU: no upload, the kernel reads the
 * band and its halo rows where they are), a direct output (no download,
 * the kernel writes where the rows go), both direct; and operation none
 * (copies only: an upload, a download).  Host buffers stand in for device
 * memory: the CPU backend runs the same plans with memcpy() for the copies
 * and the CPU kernels.
 *
 * For odd sizes (1921x1081, 7x5), padded pitches, GRAY8, GRAY16_LE, RGBA,
 * NV12, I420 and P010_10LE (samples with padding bits), invert, gamma, box-blur up to radius 32 over bands
 * thinner than the radius, 1 to 64 chunks:
 *  - the plans: no upload from a direct input, no download to a direct
 *    output, the kernel's pointers and pitches are the buffer's own plus
 *    the band's offset, the halo rows lie inside the plane and cover the
 *    window, the bands cover every row once;
 *  - the result: byte-identical to one kernel call over the whole picture
 *    (none: to the input), padding bytes of the output untouched.
 */
#include <string.h>
#include <glib.h>

#include "co-engine.h"
#include "co-video.h"

#define PAD 64                  /* bytes past each row's pixels */
#define POISON 0xcd

typedef struct
{
  const gchar *name;
  gint n_planes;
  gint comps[3], bytes, mask[3], sub[3];        /* sub: 4:2:0 chroma */
  gint bits, shift;             /* a sample's value (0: every bit) */
} Fmt;

static const Fmt fmts[] = {
  {"GRAY8", 1, {1}, 1, {0x1}, {0}},
  {"GRAY16_LE", 1, {1}, 2, {0x1}, {0}},
  {"RGBA", 1, {4}, 1, {0x7}, {0}},
  {"NV12", 2, {1, 2}, 1, {0x1, 0x3}, {0, 1}},
  {"I420", 3, {1, 1, 1}, 1, {0x1, 0x1, 0x1}, {0, 1, 1}},
  {"P010_10LE", 2, {1, 2}, 2, {0x1, 0x3}, {0, 1}, 10, 6},
};

typedef struct
{
  CoVideoOp op;
  gint radius;
  gdouble gamma;
} Op;

static const Op ops[] = {
  {CO_VIDEO_OP_INVERT, 0, 1.0},
  {CO_VIDEO_OP_GAMMA, 0, 0.45},
  {CO_VIDEO_OP_BOX_BLUR, 1, 1.0},
  {CO_VIDEO_OP_BOX_BLUR, 32, 1.0},
  {CO_VIDEO_OP_NONE, 0, 1.0},
};

static const guint chunk_counts[] = { 1, 4, 64 };

typedef struct
{
  gint w, h;
} Size;

static const Size sizes[] = { {1921, 1081}, {7, 5} };

/* A picture in host memory: planes at padded pitches. */
typedef struct
{
  guint8 *mem;
  CoVideoPlanes planes;
  gsize row_bytes[3];
  gint rows[3];
} Pic;

static void
desc_init (CoVideoDesc * d, const Fmt * f, const Op * op, gint w, gint h)
{
  gint i;

  memset (d, 0, sizeof (*d));
  d->op = op->op;
  d->radius = op->radius;
  d->height = h;
  d->n_planes = f->n_planes;
  for (i = 0; i < f->n_planes; i++) {
    CoVideoPlaneDesc *p = &d->planes[i];

    p->comps = f->comps[i];
    p->comp_bytes = f->bytes;
    p->comp_mask = f->mask[i];
    p->use_lut = i == 0;
    p->ysub = f->sub[i];
    p->bits = f->bits;
    p->shift = f->shift;
    p->width = f->sub[i] ? (w + 1) / 2 : w;
    p->height = f->sub[i] ? (h + 1) / 2 : h;
    /* the slot's pitch: 4-byte aligned rows, as GstVideoInfo's */
    p->dev_pitch = ((gsize) p->width * p->comps * p->comp_bytes + 3) & ~3;
  }
}

static void
pic_init (Pic * pic, const CoVideoDesc * d, gboolean direct, GRand * rand)
{
  gsize off[3], total = 0;
  gint i;

  for (i = 0; i < d->n_planes; i++) {
    const CoVideoPlaneDesc *p = &d->planes[i];

    pic->row_bytes[i] = (gsize) p->width * p->comps * p->comp_bytes;
    pic->rows[i] = p->height;
    pic->planes.stride[i] = pic->row_bytes[i] + PAD + i * 8;
    off[i] = total;
    total += (gsize) pic->planes.stride[i] * p->height;
  }
  pic->mem = g_malloc (total);
  for (i = 0; i < (gint) total; i++)
    pic->mem[i] = rand ? g_rand_int (rand) : POISON;
  for (i = 0; i < d->n_planes; i++)
    pic->planes.data[i] = pic->mem + off[i];
  pic->planes.direct = direct;
}

/* The expected output: one kernel call over the whole of every plane (none:
 * the input). */
static void
expected (const CoVideoDesc * d, const Pic * in, Pic * want,
    const guint16 * lut)
{
  CoVideoParams vp;
  gint i, y;

  if (d->op == CO_VIDEO_OP_NONE) {
    for (i = 0; i < d->n_planes; i++)
      for (y = 0; y < want->rows[i]; y++)
        memcpy (want->planes.data[i] + (gsize) y * want->planes.stride[i],
            in->planes.data[i] + (gsize) y * in->planes.stride[i],
            in->row_bytes[i]);
    return;
  }
  memset (&vp, 0, sizeof (vp));
  vp.op = d->op;
  vp.radius = d->radius;
  vp.lut = lut;
  vp.n_planes = d->n_planes;
  for (i = 0; i < d->n_planes; i++) {
    const CoVideoPlaneDesc *p = &d->planes[i];
    CoPlaneBand *b = &vp.planes[i];

    b->src = in->planes.data[i];
    b->src_stride = in->planes.stride[i];
    b->dst = want->planes.data[i];
    b->dst_stride = want->planes.stride[i];
    b->width = p->width;
    b->height = b->y1 = b->src_y1 = p->height;
    b->comps = p->comps;
    b->comp_bytes = p->comp_bytes;
    b->comp_mask = p->comp_mask;
    b->use_lut = p->use_lut;
    b->bits = p->bits;
    b->shift = p->shift;
    b->n_images = 1;
  }
  g_assert_cmpint (co_video_run_cpu (&vp), ==, 0);
}

/* Plane @i's band of chunk @ch against the rules of the planner. */
static void
check_band (const CoVideoDesc * d, const CoChunk * ch, gint i,
    const Pic * in, const Pic * out, gint covered[])
{
  const CoPlaneBand *b = &ch->params.video.planes[i];
  gint r = d->op == CO_VIDEO_OP_BOX_BLUR ? d->radius : 0, y;

  g_assert_cmpint (b->src_y0, >=, 0);
  g_assert_cmpint (b->src_y1, <=, b->height);
  g_assert_cmpint (b->src_y0, <=, MAX (0, b->y0 - r));
  g_assert_cmpint (b->src_y1, >=, MIN (b->height, b->y1 + r));
  if (in->planes.direct) {
    g_assert_true (b->src == in->planes.data[i] +
        (gsize) b->src_y0 * in->planes.stride[i]);
    g_assert_cmpint (b->src_stride, ==, in->planes.stride[i]);
  }
  if (out->planes.direct) {
    g_assert_true (b->dst == out->planes.data[i] +
        (gsize) b->y0 * out->planes.stride[i]);
    g_assert_cmpint (b->dst_stride, ==, out->planes.stride[i]);
  }
  for (y = b->y0; y < b->y1; y++)
    covered[y]++;
}

/* The plan of one frame: copies per side and the kernels' bands. */
static void
check_plan (const CoVideoDesc * d, const CoFrame * f, const Pic * in,
    const Pic * out)
{
  gboolean none = d->op == CO_VIDEO_OP_NONE;
  guint k;
  gint i, y;

  for (k = 0; k < f->n_chunks; k++) {
    const CoChunk *ch = &f->chunks[k];
    guint up = in->planes.direct ? 0 : d->n_planes;
    guint down = out->planes.direct ? 0 : d->n_planes;

    g_assert_cmpint (ch->kind, ==, none ? CO_KERNEL_NONE : CO_KERNEL_VIDEO);
    g_assert_cmpuint (ch->n_h2d, ==, up);
    g_assert_cmpuint (ch->n_d2h, ==, down);
  }
  for (i = 0; i < d->n_planes && !none; i++) {
    gint *covered = g_new0 (gint, d->planes[i].height);

    for (k = 0; k < f->n_chunks; k++)
      check_band (d, &f->chunks[k], i, in, out, covered);
    for (y = 0; y < d->planes[i].height; y++)
      g_assert_cmpint (covered[y], ==, 1);
    g_free (covered);
  }
}

/* Visible bytes equal, padding untouched. */
static void
compare (const CoVideoDesc * d, const Pic * want, const Pic * got,
    const gchar * what)
{
  gint i, y;

  for (i = 0; i < d->n_planes; i++) {
    for (y = 0; y < got->rows[i]; y++) {
      const guint8 *g = got->planes.data[i] + (gsize) y * got->planes.stride[i];
      const guint8 *w = want->planes.data[i] + (gsize) y *
          want->planes.stride[i];
      gsize x;

      if (memcmp (g, w, got->row_bytes[i]) != 0)
        g_error ("%s: plane %d row %d differs", what, i, y);
      for (x = got->row_bytes[i]; x < (gsize) got->planes.stride[i]; x++)
        if (g[x] != POISON)
          g_error ("%s: plane %d row %d: padding byte %" G_GSIZE_FORMAT
              " written", what, i, y, x);
    }
  }
}

static CoEngine *
new_engine (const CoVideoDesc * d, guint chunks, gboolean in_direct,
    gboolean out_direct)
{
  CoEngineConfig cfg = { 0, };
  GError *err = NULL;
  CoEngine *e;

  cfg.backend = CO_BACKEND_CPU;
  cfg.device_id = -1;
  cfg.streams = 3;
  cfg.chunks = chunks;
  cfg.max_in_flight = 2;
  cfg.const_size = 65536 * sizeof (guint16);
  cfg.name = "videoplan";
  co_video_plan_sizes (d, chunks, in_direct, out_direct, &cfg.dev_in_size,
      &cfg.dev_out_size);
  e = co_engine_new (&cfg, &err);
  g_assert_no_error (err);
  return e;
}

static void
run_case (const Fmt * f, const Op * op, const Size * sz, guint chunks,
    gboolean in_direct, gboolean out_direct)
{
  CoVideoDesc d;
  Pic in, out, want;
  CoEngine *e;
  CoFrame *fr, *done;
  GError *err = NULL;
  guint16 *lut = g_new (guint16, 65536);
  guint32 max = co_gamma_lut_max (f->bytes, f->bits);
  GRand *rand = g_rand_new_with_seed (chunks * 7 + sz->w);
  gchar *what = g_strdup_printf ("%s %dx%d op %d radius %d, %u chunks, "
      "input %s, output %s", f->name, sz->w, sz->h, op->op, op->radius,
      chunks, in_direct ? "direct" : "host", out_direct ? "direct" : "host");

  desc_init (&d, f, op, sz->w, sz->h);
  co_gamma_lut_fill (lut, max, op->gamma);
  pic_init (&in, &d, in_direct, rand);
  pic_init (&out, &d, out_direct, NULL);
  pic_init (&want, &d, FALSE, NULL);
  expected (&d, &in, &want, lut);

  e = new_engine (&d, chunks, in_direct, out_direct);
  g_assert_true (co_engine_set_const (e, lut, (max + 1) * sizeof (guint16),
          &err));
  d.lut = co_engine_const_ptr (e);
  fr = co_engine_acquire (e);
  g_assert_cmpuint (co_video_plan (&d, co_engine_chunks (e), 0, fr,
          &in.planes, &out.planes), >, 0);
  check_plan (&d, fr, &in, &out);
  g_assert_true (co_engine_submit (e, fr, &err));
  done = co_engine_wait_oldest (e);
  g_assert_true (done == fr);
  g_assert_null (done->error);
  compare (&d, &want, &out, what);
  co_engine_release (e, done);
  co_engine_free (e);

  g_free (in.mem);
  g_free (out.mem);
  g_free (want.mem);
  g_free (lut);
  g_free (what);
  g_rand_free (rand);
}

static void
test_paths (gconstpointer data)
{
  const Fmt *f = data;
  guint o, s, c, path;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (o = 0; o < G_N_ELEMENTS (ops); o++)
      for (c = 0; c < G_N_ELEMENTS (chunk_counts); c++)
        for (path = 0; path < 4; path++) {
          gboolean in_direct = path & 1, out_direct = path >> 1;

          /* none with both sides direct is the element's passthrough */
          if (ops[o].op == CO_VIDEO_OP_NONE && in_direct && out_direct)
            continue;
          run_case (f, &ops[o], &sizes[s], chunk_counts[c], in_direct,
              out_direct);
        }
}

/* Work memory: none for a direct side; none at all for an upload or a
 * download. */
static void
test_sizes (void)
{
  CoVideoDesc d;
  gsize in, out, in0, out0;

  desc_init (&d, &fmts[3], &ops[3], 1921, 1081);
  co_video_plan_sizes (&d, 4, FALSE, FALSE, &in0, &out0);
  g_assert_cmpuint (in0, >, 0);
  g_assert_cmpuint (out0, >, 0);
  co_video_plan_sizes (&d, 4, TRUE, FALSE, &in, &out);
  g_assert_cmpuint (in, ==, 0);
  g_assert_cmpuint (out, ==, out0);
  co_video_plan_sizes (&d, 4, FALSE, TRUE, &in, &out);
  g_assert_cmpuint (in, ==, in0);
  g_assert_cmpuint (out, ==, 0);
  desc_init (&d, &fmts[3], &ops[4], 1921, 1081);
  co_video_plan_sizes (&d, 4, FALSE, TRUE, &in, &out);
  g_assert_cmpuint (in + out, ==, 0);
  co_video_plan_sizes (&d, 4, TRUE, FALSE, &in, &out);
  g_assert_cmpuint (in + out, ==, 0);
  co_video_plan_sizes (&d, 4, FALSE, FALSE, &in, &out);
  g_assert_cmpuint (in, ==, 0);
  g_assert_cmpuint (out, ==, out0);
}

int
main (int argc, char **argv)
{
  guint i;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/videoplan/sizes", test_sizes);
  for (i = 0; i < G_N_ELEMENTS (fmts); i++) {
    gchar *path = g_strdup_printf ("/videoplan/paths/%s", fmts[i].name);

    g_test_add_data_func (path, &fmts[i], test_paths);
    g_free (path);
  }
  return g_test_run ();
}
