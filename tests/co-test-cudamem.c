/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-cudamem: what the memory:CUDAMemory suites share (co-test-cudamem.h).
 */
#include <string.h>
#include <cuda_runtime.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include "co-test-cudamem.h"
#include "co-test-util.h"
#include "co-test-fault.h"

GstCaps *
co_test_caps_printf (const gchar * format, ...)
{
  va_list args;
  gchar *str;
  GstCaps *caps;

  va_start (args, format);
  str = g_strdup_vprintf (format, args);
  va_end (args);
  caps = gst_caps_from_string (str);
  fail_unless (caps != NULL, "%s", str);
  g_free (str);
  return caps;
}

gboolean
co_test_caps_have_cuda (GstCaps * caps)
{
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++)
    if (gst_caps_features_contains (gst_caps_get_features (caps, i),
            CUDA_FEATURE))
      return TRUE;
  return FALSE;
}

/* Whether this machine has a CUDA device at all (backend=auto then may
 * negotiate CUDA memory). */
gboolean
co_test_machine_has_gpu (void)
{
  int n = 0;

  return cudaGetDeviceCount (&n) == cudaSuccess && n > 0;
}

gboolean
co_test_no_gpu_backend (gint i, const gchar ** backend)
{
  *backend = i == 0 ? "cpu" : "auto";
  return i == 0 || !co_test_machine_has_gpu ();
}

void
co_test_check_caps_no_cuda (const gchar * src, const gchar * element,
    const gchar * backend, const gchar * media)
{
  gchar *desc = g_strdup_printf ("%s ! %s name=f backend=%s ! fakesink", src,
      element, backend);
  GstElement *pipe = gst_parse_launch (desc, NULL), *e;
  GstCaps *caps, *filter;
  GstPad *pad;
  gint p;

  fail_unless (pipe != NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "f");
  fail_unless (gst_element_set_state (pipe, GST_STATE_READY) !=
      GST_STATE_CHANGE_FAILURE);
  for (p = 0; p < 2; p++) {
    pad = gst_element_get_static_pad (e, p ? "src" : "sink");
    caps = gst_pad_query_caps (pad, NULL);
    fail_if (co_test_caps_have_cuda (caps),
        "%s: %s pad offers %" GST_PTR_FORMAT, desc, p ? "src" : "sink", caps);
    fail_if (gst_caps_is_empty (caps));
    gst_caps_unref (caps);
    filter = co_test_caps_printf ("%s(" CUDA_FEATURE ")", media);
    caps = gst_pad_query_caps (pad, filter);
    fail_unless (gst_caps_is_empty (caps), "%" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
    gst_caps_unref (filter);
    gst_object_unref (pad);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (pipe);
  g_free (desc);
}

void
co_test_run_result_clear (RunResult * r)
{
  gst_clear_message (&r->error);
  g_list_free_full (r->out, (GDestroyNotify) gst_buffer_unref);
  r->out = NULL;
  g_clear_pointer (&r->passport, gst_structure_free);
  g_clear_pointer (&r->stats, gst_structure_free);
}

/* Runs @desc (an appsrc named "src", an appsink named "sink" unless
 * @no_sink) with @bufs pushed into the appsrc (taken), to EOS or an error
 * (then stopped).  @late_caps: set on the capsfilter named "cf" once the
 * pipeline is linked (a link checks caps, so CUDA memory forced in the
 * description itself fails to link without a GPU: test_forced_at_link). */
void
co_test_run_pipeline (const gchar * desc, const gchar * late_caps, GList * bufs,
    gboolean no_sink, RunResult * res)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *src, *sink = NULL, *f;
  GstBus *bus;
  GstMessage *msg;
  gboolean got = FALSE;         /* EOS or an error popped */
  GList *l;

  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  memset (res, 0, sizeof (*res));
  if (late_caps) {
    GstElement *cf = gst_bin_get_by_name (GST_BIN (pipe), "cf");

    gst_util_set_object_arg (G_OBJECT (cf), "caps", late_caps);
    gst_object_unref (cf);
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  if (!no_sink)
    sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (l = bufs; l; l = l->next)
    gst_app_src_push_buffer (GST_APP_SRC (src), l->data);
  g_list_free (bufs);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  bus = gst_element_get_bus (pipe);
  while (sink && !gst_app_sink_is_eos (GST_APP_SINK (sink))) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);

    if (s) {
      res->out = g_list_append (res->out,
          gst_buffer_ref (gst_sample_get_buffer (s)));
      gst_sample_unref (s);
    } else if ((msg = gst_bus_timed_pop_filtered (bus, 0,
                GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        res->error = msg;
      else
        gst_message_unref (msg);
      got = TRUE;
      break;
    }
  }
  if (!got) {
    msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "%s: neither EOS nor an error in 30 s", desc);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      res->error = msg;
    else
      gst_message_unref (msg);
  }
  gst_object_unref (bus);
  f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  if (f) {
    g_object_get (f, "passport", &res->passport, "stats", &res->stats, NULL);
    gst_object_unref (f);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_clear_object (&sink);
  gst_object_unref (src);
  gst_object_unref (pipe);
}

/* The error came from the element named "f", a negotiation error whose
 * message holds @needle. */
void
co_test_assert_our_error (RunResult * r, const gchar * desc,
    const gchar * needle)
{
  GError *err = NULL;
  gchar *text;

  fail_unless (r->error != NULL, "%s: no error", desc);
  text = co_test_error_text (r->error);
  fail_unless (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (r->error)),
          "f"), "%s: the error came from %s, not the element: %s", desc,
      GST_OBJECT_NAME (GST_MESSAGE_SRC (r->error)), text);
  gst_message_parse_error (r->error, &err, NULL);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s: not a negotiation error: %s",
      desc, text);
  fail_unless (strstr (text, needle) != NULL, "%s: \"%s\" not in: %s", desc,
      needle, text);
  g_clear_error (&err);
  g_free (text);
}

void
co_test_check_pad_combination (RunResult * r, const gchar * desc,
    gboolean in_cuda, gboolean out_cuda, guint n)
{
  if (!in_cuda && !out_cuda) {
    fail_unless (r->error == NULL, "%s: %" GST_PTR_FORMAT, desc, r->error);
    fail_unless_equals_int (g_list_length (r->out), n);
    fail_unless_equals_string (gst_structure_get_string (r->passport,
            "memory-in"), "system");
    fail_unless_equals_string (gst_structure_get_string (r->passport,
            "memory-out"), "system");
  } else if (in_cuda) {
    co_test_assert_our_error (r, desc, "The input is CUDA memory");
  } else {
    co_test_assert_our_error (r, desc, "Downstream takes only CUDA memory");
  }
}

void
co_test_check_forced_at_link (const gchar * src, const gchar * media,
    const gchar * element, const gchar * backend, gboolean after)
{
  gchar *desc = after ?
      g_strdup_printf ("%s ! %s name=f backend=%s ! %s(" CUDA_FEATURE
      ") ! fakesink", src, element, backend, media) :
      g_strdup_printf ("%s ! %s(" CUDA_FEATURE ") ! %s name=f backend=%s ! "
      "fakesink", src, media, element, backend);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);

  fail_unless (g_error_matches (err, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK),
      "%s: %s", desc, err ? err->message : "linked");
  fail_unless (strstr (err->message, CUDA_FEATURE) != NULL, "%s", err->message);
  g_clear_error (&err);
  gst_clear_object (&pipe);
  g_free (desc);
}

/* What the fake downstream pad takes, and the caps it was given. */
typedef struct
{
  GstCaps *takes;
  GstCaps *got;
} FakeSink;

static gboolean
fake_sink_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  FakeSink *fs = g_object_get_data (G_OBJECT (pad), "fs");

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter, *res;

    gst_query_parse_caps (query, &filter);
    res = filter ? gst_caps_intersect_full (filter, fs->takes,
        GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (fs->takes);
    gst_query_set_caps_result (query, res);
    gst_caps_unref (res);
    return TRUE;
  }
  return gst_pad_query_default (pad, parent, query);
}

static gboolean
fake_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  FakeSink *fs = g_object_get_data (G_OBJECT (pad), "fs");

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;

    gst_event_parse_caps (event, &caps);
    gst_caps_replace (&fs->got, caps);
  }
  gst_event_unref (event);
  return TRUE;
}

/* The GstCudaContext an element uses: what it answers to a CONTEXT query
 * on its sink pad (nvcodec's elements keep a context found through a query
 * without setting it on themselves, so gst_element_get_context() does not
 * show it). */
typedef void (*CoTestSetFake) (gboolean fake);

gboolean
co_test_set_host_cuda_memory (gboolean host)
{
  CoTestSetFake set_host = co_test_plugin_symbol
      ("co_test_set_host_cuda_memory");

  if (set_host)
    set_host (host);
  return set_host != NULL;
}

gboolean
co_test_fake_negotiate (const gchar * element, const gchar * in,
    const gchar * takes, GstCaps ** offered, GstCaps ** got)
{
  CoTestSetFake set_fake = co_test_plugin_symbol
      ("co_test_set_fake_cuda_memory");
  GstElement *e;
  GstPad *src, *sink, *esink, *esrc;
  FakeSink fs = { NULL, NULL };
  GstCaps *caps;

  if (!set_fake)
    return FALSE;
  set_fake (TRUE);
  e = co_test_make_element (element);
  src = gst_pad_new ("src", GST_PAD_SRC);
  sink = gst_pad_new ("sink", GST_PAD_SINK);
  fs.takes = gst_caps_from_string (takes);
  g_object_set_data (G_OBJECT (sink), "fs", &fs);
  gst_pad_set_query_function (sink, fake_sink_query);
  gst_pad_set_event_function (sink, fake_sink_event);
  esink = gst_element_get_static_pad (e, "sink");
  esrc = gst_element_get_static_pad (e, "src");
  fail_unless (gst_pad_link (src, esink) == GST_PAD_LINK_OK);
  fail_unless (gst_pad_link (esrc, sink) == GST_PAD_LINK_OK);
  gst_pad_set_active (src, TRUE);
  gst_pad_set_active (sink, TRUE);
  gst_element_set_state (e, GST_STATE_PLAYING);

  *offered = gst_pad_peer_query_caps (src, NULL);
  gst_pad_push_event (src, gst_event_new_stream_start ("fake"));
  caps = gst_caps_from_string (in);
  gst_pad_push_event (src, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  *got = g_steal_pointer (&fs.got);

  gst_element_set_state (e, GST_STATE_NULL);
  set_fake (FALSE);
  gst_pad_set_active (src, FALSE);
  gst_pad_set_active (sink, FALSE);
  gst_object_unref (esink);
  gst_object_unref (esrc);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (e);
  gst_caps_unref (fs.takes);
  return TRUE;
}

GObject *
co_test_element_cuda_context (GstElement * e)
{
  GstQuery *q = gst_query_new_context ("gst.cuda.context");
  GstContext *c = NULL;
  const GValue *v;
  GObject *obj = NULL;

  if (gst_pad_query (e->sinkpads->data, q))
    gst_query_parse_context (q, &c);
  if (c) {
    v = gst_structure_get_value (gst_context_get_structure (c),
        "gst.cuda.context");
    if (v && G_VALUE_HOLDS_OBJECT (v))
      obj = g_value_dup_object (v);
  }
  gst_query_unref (q);
  return obj;
}

void
co_test_check_memory_facts (RunResult * r, gboolean in_cuda,
    gboolean out_cuda, const gchar * what)
{
  guint64 h2d = 1, d2h = 1, frames = 0, dev = 0;

  fail_unless (r->passport && r->stats, "%s: no passport or statistics", what);
  fail_unless_equals_string (gst_structure_get_string (r->passport,
          "memory-in"), in_cuda ? "cuda" : "system");
  fail_unless_equals_string (gst_structure_get_string (r->passport,
          "memory-out"), out_cuda ? "cuda" : "system");
  gst_structure_get (r->stats, "bytes-h2d", G_TYPE_UINT64, &h2d, "bytes-d2h",
      G_TYPE_UINT64, &d2h, "frames", G_TYPE_UINT64, &frames, "frames-device",
      G_TYPE_UINT64, &dev, NULL);
  if (in_cuda)
    fail_unless_equals_uint64 (h2d, 0);
  if (out_cuda)
    fail_unless_equals_uint64 (d2h, 0);
  fail_unless_equals_uint64 (dev, in_cuda ? frames : 0);
}
