/* cudaoverlap example: a C application that runs its own code on the
 * overlap engine through the kernel-launcher property, a boxed type of
 * the struct GstCudaOverlapKernelLauncher (C only;
 * gst/cudaoverlap/cudaoverlap-kernel.h; docs/custom-kernels.md, "Your own
 * launcher").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   appsrc (161x93 RGBA, random frames) ! cudavideofilter operation=custom
 *     backend=B chunks=5 streams=3 kernel-launcher=&launcher ! appsink
 *
 * The launcher inverts R, G and B and copies alpha: on the CUDA backend
 * with a kernel of launcher-invert.cu launched with <<<>>> on the engine's
 * stream, on the CPU backend with invert_cpu below.  Every output byte is
 * compared with a naive invert of the input; the launcher must have seen
 * every chunk of a frame, and its destroy must run once, when the element
 * is finalized (the copy read back from the property shares the user_data
 * and is freed first).  Then a launcher without a CPU function on the CPU
 * backend must be refused with a message that says so.
 *
 * The backend: CO_TEST_BACKEND (cpu or cuda; default cpu).  Exit status 0;
 * 1 on a failure; 77 (skipped) for cuda without a CUDA device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/cudaoverlap/cudaoverlap-kernel.h>

#include "launcher-invert.h"

#define WIDTH 161
#define HEIGHT 93
#define FRAMES 8
#define CHUNKS 5

typedef struct
{
  gint calls;                   /* launches (atomic) */
  gint chunks_seen;             /* bit c: chunk c was launched (atomic) */
  gint n_chunks;
  gint destroyed;
} AppState;

static int
invert_cpu (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  const GstCudaOverlapKernelPlane *p = &a->planes[a->plane];
  AppState *st = user_data;
  int x, y;

  if (a->abi_version != 1 || a->format != GST_CUDA_OVERLAP_KERNEL_FORMAT_RGBA)
    return -1;
  for (y = 0; y < p->rows; y++) {
    const uint8_t *s = p->src + y * p->src_pitch;
    uint8_t *d = p->dst + y * p->dst_pitch;

    for (x = 0; x < 4 * p->width; x++)
      d[x] = (x & 3) == 3 ? s[x] : 255 - s[x];
  }
  (void) st;
  return 0;
}

/* Counts the launch, then the backend's own function. */
static void
count (AppState * st, const GstCudaOverlapVideoLaunch * a)
{
  g_atomic_int_inc (&st->calls);
  g_atomic_int_or ((guint *) & st->chunks_seen, 1u << a->chunk);
  st->n_chunks = a->n_chunks;
}

static int
video_cpu (const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  count (user_data, a);
  return invert_cpu (a, user_data);
}

static int
video_cuda (void *stream, const GstCudaOverlapVideoLaunch * a, void *user_data)
{
  count (user_data, a);
  return launcher_invert_cuda (stream, a, user_data);
}

static void
destroy (void *user_data)
{
  AppState *st = user_data;

  st->destroyed++;
}

/* The pipeline, with @l set on the filter. */
static GstElement *
make_pipeline (const gchar * backend, const GstCudaOverlapKernelLauncher * l)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=video/"
      "x-raw,format=RGBA,width=%d,height=%d,framerate=30/1 ! cudavideofilter "
      "name=f operation=custom backend=%s chunks=%d streams=3 "
      "kernel-formats=RGBA ! appsink name=sink sync=false", WIDTH, HEIGHT,
      backend, CHUNKS);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstCudaOverlapKernelLauncher *copy = NULL;
  GstElement *f;

  g_free (desc);
  if (!p) {
    fprintf (stderr, "launcher-app: %s\n", err->message);
    exit (1);
  }
  f = gst_bin_get_by_name (GST_BIN (p), "f");
  /* the element copies the struct: it may live on the stack */
  g_object_set (f, "kernel-launcher", l, NULL);
  /* reading it back gives a copy that shares the user_data: freeing it
   * leaves the element's launcher alone (the type is registered: the
   * plugin is loaded) */
  g_object_get (f, "kernel-launcher", &copy, NULL);
  if (!copy || copy == l || copy->user_data != l->user_data) {
    fprintf (stderr, "launcher-app: kernel-launcher reads back %p\n",
        (void *) copy);
    exit (1);
  }
  g_boxed_free (GST_CUDA_OVERLAP_TYPE_KERNEL_LAUNCHER, copy);
  gst_object_unref (f);
  return p;
}

/* Pushes FRAMES random frames and compares every output byte with the
 * naive invert.  FALSE on a mismatch or an error (printed). */
static gboolean
run_and_check (GstElement * p)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gsize size = (gsize) WIDTH * HEIGHT * 4, i;
  guint8 *frames[FRAMES];
  gboolean ok = TRUE;
  gint f;

  gst_element_set_state (p, GST_STATE_PLAYING);
  for (f = 0; f < FRAMES; f++) {
    GstBuffer *b;

    frames[f] = g_malloc (size);
    for (i = 0; i < size; i++)
      frames[f][i] = (guint8) g_random_int ();
    b = gst_buffer_new_memdup (frames[f], size);
    GST_BUFFER_PTS (b) = f * GST_SECOND / 30;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  for (f = 0; f < FRAMES && ok; f++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_SECOND);
    GstMapInfo m;

    if (!s) {
      fprintf (stderr, "launcher-app: no output for frame %d\n", f);
      ok = FALSE;
      break;
    }
    gst_buffer_map (gst_sample_get_buffer (s), &m, GST_MAP_READ);
    for (i = 0; i < size && ok; i++) {
      guint8 want = (i & 3) == 3 ? frames[f][i] : 255 - frames[f][i];

      if (m.size != size || m.data[i] != want) {
        fprintf (stderr, "launcher-app: frame %d byte %" G_GSIZE_FORMAT
            " (row %" G_GSIZE_FORMAT "): got 0x%02x, expected 0x%02x\n", f, i,
            i / (4 * WIDTH), m.size > i ? m.data[i] : 0, want);
        ok = FALSE;
      }
    }
    gst_buffer_unmap (gst_sample_get_buffer (s), &m);
    gst_sample_unref (s);
  }
  for (f = 0; f < FRAMES; f++)
    g_free (frames[f]);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  return ok;
}

/* The first error message on @p's bus, or NULL (free it). */
static gchar *
run_for_error (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (gst_bin_get_by_name (GST_BIN (p),
              "src")), gst_buffer_new_allocate (NULL, WIDTH * HEIGHT * 4,
          NULL));
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND, GST_MESSAGE_ERROR);
  if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
    gst_message_unref (msg);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  return text;
}

int
main (int argc, char **argv)
{
  const gchar *backend = g_getenv ("CO_TEST_BACKEND");
  AppState st = { 0, };
  GstCudaOverlapKernelLauncher l = { GST_CUDA_OVERLAP_KERNEL_ABI_VERSION,
    sizeof (GstCudaOverlapKernelLauncher), video_cuda, NULL, video_cpu, NULL,
    &st, destroy
  };
  GstElement *p;
  gboolean ok;
  gchar *msg;

  gst_init (&argc, &argv);
  if (!backend || !*backend)
    backend = "cpu";
  if (strcmp (backend, "cpu") && strcmp (backend, "cuda")) {
    fprintf (stderr, "CO_TEST_BACKEND must be cpu or cuda\n");
    return 1;
  }
  if (!strcmp (backend, "cuda") && launcher_cuda_devices () < 1) {
    printf ("SKIP: CO_TEST_BACKEND=cuda but no CUDA device\n");
    return 77;
  }
  p = make_pipeline (backend, &l);
  ok = run_and_check (p);
  gst_object_unref (p);
  printf ("launcher-app: backend %s, %dx%d RGBA, %d frames, %d chunks x 3 "
      "streams: %s; %d launches, chunks seen 0x%x of %d, destroy called %d "
      "time(s)\n", backend, WIDTH, HEIGHT, FRAMES, CHUNKS, ok ?
      "every byte matches" : "MISMATCH", st.calls, st.chunks_seen,
      st.n_chunks, st.destroyed);
  ok = ok && st.n_chunks == CHUNKS && st.chunks_seen == (1 << CHUNKS) - 1 &&
      st.calls >= FRAMES * CHUNKS && st.destroyed == 1;

  /* the CPU backend without a CPU function: refused, saying why */
  l.video_cpu = NULL;
  l.destroy = NULL;
  p = make_pipeline ("cpu", &l);
  msg = run_for_error (p);
  gst_object_unref (p);
  printf ("launcher-app: no CPU function on the CPU backend: %s\n",
      msg ? msg : "(no error)");
  ok = ok && msg && strstr (msg, "no CPU function");
  g_free (msg);
  printf ("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
