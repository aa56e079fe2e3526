/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an element says about where it runs: backend=auto on the CPU posts
 * one WARNING per element with the reason (no NVIDIA driver, a driver too
 * old for this build, no device with this cuda-device-id, a GPU this build
 * has no code for), the passport's backend-reason says the same, and
 * backend=cpu posts none; GPU-only settings on the CPU backend get one
 * warning per set of them and the passport shows what is in effect; a
 * refused CUDA-memory negotiation is logged once at WARNING level with its
 * reason, which the not-negotiated error carries too.
 *
 * The machines are simulated through the plugin's test hook
 * co_test_set_cuda_sim() (a -Dfault-injection build; elsewhere those tests
 * skip, saying so); the machine's own path (no driver where libcuda.so.1
 * cannot be loaded) is checked without it.  A build without the CUDA
 * backend (-Dcuda=disabled) gives that as its reason on any machine: the
 * simulated machines then skip, and this machine's case expects it.
 */
#include <string.h>

#include <gmodule.h>
#include <gst/check/gstcheck.h>

#include "co-test-fault.h"
#include "co-test-util.h"

#define ELEMENT "cudavideofilter"
#define DEFAULT_SEED 0xbac4u
#define SIM_HOOK "co_test_set_cuda_sim"
#define CUDA_FEATURE "memory:CUDAMemory"

typedef void (*CoTestSetCudaSim) (gint driver_version, gint device_count,
    gint cc);

static CoTestSetCudaSim set_cuda_sim;
/* The reason of a build without the CUDA backend: backend=auto gives it on
 * any machine, and no machine can be simulated. */
#define NO_CUDA_BUILD "this build of cudaoverlap has no CUDA backend " \
  "(built with -Dcuda=disabled)"
static gboolean no_cuda_build;

/* A machine and what backend=auto must say about it. */
typedef struct
{
  const gchar *name;
  gint driver_version;          /* -1: the machine's own */
  gint device_count;            /* -1: the machine's own */
  gint cc;                      /* major * 10 + minor; -1: the machine's */
  gint device_id;               /* cuda-device-id */
  const gchar *says[4];         /* in the warning and the backend-reason */
} SimCase;

static const SimCase sim_cases[] = {
  {.name = "no-driver",.driver_version = 0,.device_count = -1,.cc = -1,
        .device_id = -1,
        .says = {"no NVIDIA driver found", "libcuda.so.1", "install one",
          "NVIDIA driver >= "}},
  {.name = "old-driver",.driver_version = 12040,.device_count = -1,.cc = -1,
        .device_id = -1,
        .says = {"the NVIDIA driver is too old", "it supports CUDA 12.4",
          "this build needs NVIDIA driver >= ", "update the driver"}},
  {.name = "no-device",.driver_version = 99000,.device_count = 0,.cc = -1,
        .device_id = -1,
        .says = {"the NVIDIA driver (CUDA 99.0) finds no CUDA device",
          "CUDA_VISIBLE_DEVICES"}},
  {.name = "device-id-beyond",.driver_version = -1,.device_count = 2,
        .cc = -1,.device_id = 5,
        .says = {"there is no CUDA device 5 (cuda-device-id)",
          "this machine has 2 (ids 0 to 1"}},
  {.name = "gpu-too-old",.driver_version = -1,.device_count = 1,.cc = 50,
        .device_id = -1,
        .says = {"CUDA device 0 (simulated, compute capability 5.0)",
              "needs compute capability 7.5 or newer",
          "this build has code for " "sm_"}},
  {.name = "gpu-without-code",.driver_version = -1,.device_count = 3,
        .cc = 121,.device_id = 2,
        .says = {"CUDA device 2 (simulated, compute capability 12.1)",
              "cannot run this build's kernels", "built for sm_",
          "-Dcuda-architectures=all-major (or 121)"}},
};

/* ---- running a pipeline and reading its bus -------------------------------- */

typedef struct
{
  GList *warnings;              /* GstMessage *, in order */
  GstMessage *error;
} Outcome;

static void
outcome_clear (Outcome * o)
{
  g_list_free_full (o->warnings, (GDestroyNotify) gst_message_unref);
  o->warnings = NULL;
  gst_clear_message (&o->error);
}

/* Plays @pipeline to EOS (or an error), keeping the WARNING messages (and
 * the first ERROR) in @o. */
static void
play_to_eos (GstElement * pipeline, Outcome * o)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;
  gboolean done = FALSE;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE && !gst_bus_peek (bus));
  while (!done) {
    m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS |
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "no EOS within 30 s");
    switch (GST_MESSAGE_TYPE (m)) {
      case GST_MESSAGE_WARNING:
        o->warnings = g_list_append (o->warnings, m);
        continue;
      case GST_MESSAGE_ERROR:
        if (!o->error)
          o->error = gst_message_ref (m);
        done = TRUE;
        break;
      default:
        done = TRUE;
        break;
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
}

/* The WARNING messages of @o from the element named @name. */
static GList *
warnings_of (const Outcome * o, const gchar * name)
{
  GList *l, *res = NULL;

  for (l = o->warnings; l; l = l->next)
    if (g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (l->data)), name))
      res = g_list_append (res, l->data);
  return res;
}

/* The one warning of @name in @o, checked: @domain/@code; its message and
 * debug text, "message | debug", in *@text (free it). */
static void
check_one_warning (const Outcome * o, const gchar * name, GQuark domain,
    gint code, const gchar * ctx, gchar ** text)
{
  GList *mine = warnings_of (o, name);
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (g_list_length (mine) == 1, "%s: %s posted %u WARNING "
      "messages, not one", ctx, name, g_list_length (mine));
  gst_message_parse_warning (mine->data, &err, &dbg);
  fail_unless (err->domain == domain && err->code == code,
      "%s: %s warned with %s %d: %s", ctx, name, g_quark_to_string
      (err->domain), err->code, err->message);
  fail_unless (dbg != NULL, "%s: the warning has no debug text", ctx);
  *text = g_strdup_printf ("%s | %s", err->message, dbg);
  g_error_free (err);
  g_free (dbg);
  g_list_free (mine);
}

/* A field of @name's passport. */
static gchar *
passport_string (GstElement * pipeline, const gchar * name, const gchar * field)
{
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstStructure *pp = NULL;
  gchar *s;

  g_object_get (f, "passport", &pp, NULL);
  fail_unless (pp != NULL, "%s has no passport", name);
  s = g_strdup (gst_structure_get_string (pp, field));
  fail_unless (s != NULL, "%s's passport has no %s: %" GST_PTR_FORMAT, name,
      field, pp);
  gst_structure_free (pp);
  gst_object_unref (f);
  return s;
}

/* videotestsrc ! two elements with @props ! fakesink, played to EOS
 * twice (READY between: a new engine, the same element). */
static GstElement *
two_elements (const gchar * props, Outcome * o)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! %s name=f0 %s ! "
      "%s name=f1 %s ! fakesink", ELEMENT, props, ELEMENT, props);
  GstElement *pipeline = gst_parse_launch (desc, NULL);

  fail_unless (pipeline != NULL, "cannot make %s", desc);
  play_to_eos (pipeline, o);
  fail_unless (o->error == NULL, "%s: an error", desc);
  gst_element_set_state (pipeline, GST_STATE_READY);
  play_to_eos (pipeline, o);
  fail_unless (o->error == NULL, "%s: an error on the second run", desc);
  g_free (desc);
  return pipeline;
}

static void
sim_teardown (void)
{
  if (set_cuda_sim)
    set_cuda_sim (-1, -1, -1);
}

/* ---- backend=auto on the CPU ----------------------------------------------- */

/* Each simulated machine: one WARNING per element (RESOURCE, NOT_FOUND),
 * on both runs together, saying why; the passport's backend-reason is the
 * same reason. */
GST_START_TEST (test_auto_reason)
{
  const SimCase *c = &sim_cases[__i__];
  gchar *props = g_strdup_printf ("backend=auto cuda-device-id=%d",
      c->device_id);
  Outcome o = { 0, };
  GstElement *pipeline;
  guint k, i;

  co_test_print_variant ("test_auto_reason", __i__, c->name);
  set_cuda_sim (c->driver_version, c->device_count, c->cc);
  pipeline = two_elements (props, &o);
  for (k = 0; k < 2; k++) {
    const gchar *name = k ? "f1" : "f0";
    gchar *text, *backend, *reason;

    check_one_warning (&o, name, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NOT_FOUND, c->name, &text);
    backend = passport_string (pipeline, name, "backend");
    reason = passport_string (pipeline, name, "backend-reason");
    fail_unless_equals_string (backend, "cpu");
    fail_unless (strstr (text, "running on the CPU backend") != NULL,
        "%s: %s", c->name, text);
    for (i = 0; i < G_N_ELEMENTS (c->says) && c->says[i]; i++) {
      fail_unless (strstr (text, c->says[i]) != NULL, "%s: the warning "
          "does not say \"%s\": %s", c->name, c->says[i], text);
      fail_unless (strstr (reason, c->says[i]) != NULL, "%s: backend-reason "
          "does not say \"%s\": %s", c->name, c->says[i], reason);
    }
    /* the debug text has the passport's reason, word for word */
    fail_unless (strstr (strchr (text, '|'), reason) != NULL,
        "%s: debug text without the backend-reason \"%s\": %s", c->name,
        reason, text);
    g_free (text);
    g_free (backend);
    g_free (reason);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  outcome_clear (&o);
  g_free (props);
}

GST_END_TEST;

/* backend=cpu on any of those machines: no warning; backend-reason says
 * it was asked for. */
GST_START_TEST (test_cpu_asked)
{
  const SimCase *c = &sim_cases[__i__];
  Outcome o = { 0, };
  GstElement *pipeline;
  gchar *reason;

  co_test_print_variant ("test_cpu_asked", __i__, c->name);
  set_cuda_sim (c->driver_version, c->device_count, c->cc);
  pipeline = two_elements ("backend=cpu", &o);
  fail_unless (o.warnings == NULL, "%s: backend=cpu warned: %"
      GST_PTR_FORMAT, c->name, o.warnings->data);
  reason = passport_string (pipeline, "f1", "backend-reason");
  fail_unless_equals_string (reason, "backend=cpu is set");
  g_free (reason);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  outcome_clear (&o);
}

GST_END_TEST;

/* This machine as it is: where libcuda.so.1 cannot be loaded, backend=auto
 * warns once per element that there is no driver; where auto runs on a
 * GPU, nothing is said. */
GST_START_TEST (test_auto_this_machine)
{
  GModule *libcuda = g_module_open ("libcuda.so.1", G_MODULE_BIND_LAZY);
  Outcome o = { 0, };
  GstElement *pipeline = two_elements ("backend=auto", &o);
  gchar *backend = passport_string (pipeline, "f0", "backend");
  gchar *reason = passport_string (pipeline, "f0", "backend-reason");
  gchar *text;
  guint k;

  if (g_str_equal (backend, "cuda")) {
    fail_unless (o.warnings == NULL, "backend=auto on a GPU warned");
    fail_unless_equals_string (reason, "backend=auto: a CUDA device is usable");
  } else {
    for (k = 0; k < 2; k++) {
      check_one_warning (&o, k ? "f1" : "f0", GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND, "this machine", &text);
      fail_unless (strstr (strchr (text, '|'), reason) != NULL,
          "debug text without the backend-reason \"%s\": %s", reason, text);
      g_free (text);
    }
    if (no_cuda_build) {
      fail_unless_equals_string (reason, NO_CUDA_BUILD);
    } else if (!libcuda) {
      fail_unless (g_str_has_prefix (reason, "no NVIDIA driver found "
              "(cudaDriverGetVersion gives 0: libcuda.so.1 is missing or "
              "cannot be loaded); install one: this build needs "),
          "no libcuda.so.1 here, and the reason is: %s", reason);
    }
  }
  if (libcuda)
    g_module_close (libcuda);
  g_free (backend);
  g_free (reason);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  outcome_clear (&o);
}

GST_END_TEST;

/* ---- GPU-only settings on the CPU backend ---------------------------------- */

/* How the settings are changed between runs, and what is said. */
typedef struct
{
  const gchar *set;             /* properties set before the run */
  const gchar *says;            /* the warning's list; NULL: no warning */
} GpuOnlyStep;

static const GpuOnlyStep gpu_only_steps[] = {
  {"cuda-device-id=3 wait-mode=spin pool-budget=1000",
      "cuda-device-id=3, wait-mode=spin, pool-budget=1000"},
  /* the same again: nothing new to say */
  {"", NULL},
  /* blocking is how the CPU backend waits: not listed */
  {"wait-mode=blocking", "cuda-device-id=3, pool-budget=1000"},
  {"cuda-device-id=-1 pool-budget=536870912", NULL},
};

/* backend=cpu with GPU-only settings: one LIBRARY/SETTINGS warning per set
 * of them, naming each; the passport's wait-mode is how the CPU backend
 * waits. */
GST_START_TEST (test_gpu_only_settings)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,width=32,height=16 ! " ELEMENT " name=f0 backend=cpu ! "
      "fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f0");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (gpu_only_steps); i++) {
    const GpuOnlyStep *st = &gpu_only_steps[i];
    gchar **props = g_strsplit (st->set, " ", -1), **p, *text, *wait;
    Outcome o = { 0, };

    for (p = props; *p && **p; p++) {
      gchar **kv = g_strsplit (*p, "=", 2);

      gst_util_set_object_arg (G_OBJECT (f), kv[0], kv[1]);
      g_strfreev (kv);
    }
    g_strfreev (props);
    play_to_eos (pipeline, &o);
    fail_unless (o.error == NULL, "step %u: an error", i);
    if (st->says) {
      check_one_warning (&o, "f0", GST_LIBRARY_ERROR,
          GST_LIBRARY_ERROR_SETTINGS, st->set, &text);
      fail_unless (strstr (text, "no effect on the CPU backend: ") != NULL &&
          strstr (text, st->says) != NULL, "step %u: the warning does not "
          "list %s: %s", i, st->says, text);
      g_free (text);
    } else {
      fail_unless (o.warnings == NULL, "step %u (%s): warned again: %"
          GST_PTR_FORMAT, i, st->set, o.warnings->data);
    }
    wait = passport_string (pipeline, "f0", "wait-mode");
    fail_unless_equals_string (wait, "blocking");
    g_free (wait);
    outcome_clear (&o);
    gst_element_set_state (pipeline, GST_STATE_READY);
  }
  gst_object_unref (f);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* backend=auto on the CPU with a GPU-only setting: still one warning per
 * element, the fallback's, which lists the setting too. */
GST_START_TEST (test_auto_with_gpu_only_settings)
{
  Outcome o = { 0, };
  GstElement *pipeline;
  gchar *text;

  set_cuda_sim (0, -1, -1);
  pipeline = two_elements ("backend=auto wait-mode=spin", &o);
  check_one_warning (&o, "f0", GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, "auto, spin", &text);
  fail_unless (strstr (text, "no NVIDIA driver found") != NULL &&
      strstr (text, "no effect on the CPU backend: wait-mode=spin") != NULL,
      "%s", text);
  g_free (text);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  outcome_clear (&o);
}

GST_END_TEST;

/* ---- refused CUDA memory ------------------------------------------------ */

static GMutex log_lock;
static GHashTable *refusals;    /* element name -> number of WARNING lines */

static void
count_refusals (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * func, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  const gchar *text;
  gpointer n;

  if (level != GST_LEVEL_WARNING || !GST_IS_ELEMENT (object) ||
      !g_str_equal (gst_debug_category_get_name (cat), "cudaoverlap"))
    return;
  text = gst_debug_message_get (message);
  if (!text || !strstr (text, "memory:CUDAMemory cannot be negotiated"))
    return;
  g_mutex_lock (&log_lock);
  n = g_hash_table_lookup (refusals, GST_OBJECT_NAME (object));
  g_hash_table_insert (refusals, g_strdup (GST_OBJECT_NAME (object)),
      GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + 1));
  g_mutex_unlock (&log_lock);
}

/* A backend and the reason CUDA memory is refused with it. */
typedef struct
{
  const gchar *name;
  const gchar *backend;
  gboolean sim;                 /* on a simulated machine */
  const gchar *says;
} MemCase;

static const MemCase mem_cases[] = {
  {"auto-no-driver", "auto", TRUE, "no NVIDIA driver found"},
  {"cpu", "cpu", FALSE,
      "backend=cpu is set (CUDA memory needs the CUDA backend)"},
};

/* The next ERROR message on @pipeline's bus (within 10 s): its error and
 * debug text; fails the test unless @f posted it. */
static GError *
next_error (GstElement * pipeline, GstElement * f, gchar ** dbg)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR);
  GError *err = NULL;

  fail_unless (m != NULL, "no ERROR message");
  fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (f), "an error of %s",
      GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
  gst_message_parse_error (m, &err, dbg);
  gst_message_unref (m);
  gst_object_unref (bus);
  return err;
}

/* CUDA memory offered to an element that cannot take it: a caps query with
 * CUDA memory finds none, the CAPS event fails with CORE/NEGOTIATION whose
 * debug text says why, and the reason is logged at WARNING level once. */
GST_START_TEST (test_cuda_memory_refused)
{
  const MemCase *c = &mem_cases[__i__];
  GstCaps *cuda = gst_caps_from_string ("video/x-raw(" CUDA_FEATURE ")");
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *f = co_test_make_element (ELEMENT);
  GstElement *fakesink = gst_element_factory_make ("fakesink", NULL);
  GstPad *src = gst_pad_new ("src", GST_PAD_SRC), *sink;
  GstCaps *got;
  GError *err;
  gchar *dbg = NULL;

  co_test_print_variant ("test_cuda_memory_refused", __i__, c->name);
  if (c->sim)
    set_cuda_sim (0, -1, -1);
  refusals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gst_debug_set_threshold_for_name ("cudaoverlap", GST_LEVEL_WARNING);
  gst_debug_add_log_function (count_refusals, NULL, NULL);
  gst_object_set_name (GST_OBJECT (f), "f0");
  gst_util_set_object_arg (G_OBJECT (f), "backend", c->backend);
  gst_bin_add_many (GST_BIN (pipeline), gst_object_ref (f), fakesink, NULL);
  /* no link check: the first refusal is the query's below */
  fail_unless (gst_element_link_pads_full (f, "src", fakesink, "sink",
          GST_PAD_LINK_CHECK_NOTHING));
  sink = gst_element_get_static_pad (f, "sink");
  fail_unless (gst_pad_link_full (src, sink, GST_PAD_LINK_CHECK_NOTHING) ==
      GST_PAD_LINK_OK);

  /* a caps query with CUDA memory, twice: none, logged once */
  got = gst_pad_query_caps (sink, cuda);
  fail_unless (gst_caps_is_empty (got), "%s: CUDA memory in %" GST_PTR_FORMAT,
      c->name, got);
  gst_caps_unref (got);
  gst_caps_unref (gst_pad_query_caps (sink, cuda));
  fail_unless_equals_int (GPOINTER_TO_UINT (g_hash_table_lookup (refusals,
              "f0")), 1);

  /* CUDA-memory caps pushed anyway: the element's not-negotiated error */
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  gst_pad_set_active (src, TRUE);
  fail_unless (gst_pad_push_event (src, gst_event_new_stream_start ("s")));
  /* (a sticky event: stored, whatever the element answers) */
  gst_pad_push_event (src, gst_event_new_caps (gst_caps_from_string
          ("video/x-raw(" CUDA_FEATURE "),format=RGBA,width=32,height=16,"
              "framerate=30/1")));
  err = next_error (pipeline, f, &dbg);
  fail_unless (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION), "%s: %s", c->name, err->message);
  fail_unless (dbg && strstr (dbg, c->says) != NULL, "%s: the error's "
      "debug text does not say \"%s\": %s", c->name, c->says, dbg);
  fail_unless_equals_int (GPOINTER_TO_UINT (g_hash_table_lookup (refusals,
              "f0")), 1);

  gst_debug_remove_log_function (count_refusals);
  gst_pad_set_active (src, FALSE);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_clear_error (&err);
  g_free (dbg);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (f);
  gst_object_unref (pipeline);
  gst_caps_unref (cuda);
  g_hash_table_unref (refusals);
}

GST_END_TEST;

/* Whether backend=cuda is refused for want of a CUDA backend in the build
 * (the reason of its error). */
static gboolean
build_has_no_cuda (void)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *f = gst_element_factory_make (ELEMENT, NULL);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *m;
  gchar *text;
  gboolean none = FALSE;

  /* (outside a test: no check macro here; co_test_init made the element) */
  gst_util_set_object_arg (G_OBJECT (f), "backend", "cuda");
  gst_bin_add (GST_BIN (pipeline), f);
  if (gst_element_set_state (pipeline, GST_STATE_READY) ==
      GST_STATE_CHANGE_FAILURE &&
      (m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    text = co_test_error_text (m);
    none = strstr (text, NO_CUDA_BUILD) != NULL;
    g_free (text);
    gst_message_unref (m);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return none;
}

static Suite *
backend_messages_suite (void)
{
  Suite *s = suite_create ("backend-messages");
  TCase *tc = co_test_new_tcase (s, "messages", sim_teardown);
  const gchar *no_hook = co_test_hook_missing (SIM_HOOK), *missing = no_hook;
  guint i;

  if (no_cuda_build && !no_hook)
    missing = "this build has no CUDA backend (-Dcuda=disabled): the "
        "machines' reasons are not its reason";
  for (i = 0; i < G_N_ELEMENTS (sim_cases); i++) {
    co_test_add_variant (tc, test_auto_reason, i, sim_cases[i].name, missing);
    co_test_add_variant (tc, test_cpu_asked, i, sim_cases[i].name, no_hook);
  }
  tcase_add_test (tc, test_auto_this_machine);
  tcase_add_test (tc, test_gpu_only_settings);
  co_test_add_if (tc, test_auto_with_gpu_only_settings, missing);
  for (i = 0; i < G_N_ELEMENTS (mem_cases); i++)
    co_test_add_variant (tc, test_cuda_memory_refused, i, mem_cases[i].name,
        mem_cases[i].sim ? missing : NULL);
  return s;
}

int
main (int argc, char **argv)
{
  int nf = co_test_init (&argc, &argv, ELEMENT, DEFAULT_SEED, FALSE);

  if (nf != 0)
    return nf;
  set_cuda_sim = co_test_plugin_symbol (SIM_HOOK);
  no_cuda_build = build_has_no_cuda ();
  nf = gst_check_run_suite (backend_messages_suite (), "backend-messages",
      __FILE__);
  co_test_leaks_free ();
  return co_test_exit_status (nf);
}
