/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-util: what the gst-check programs of the elements share
 * (the test-video-* and test-audio-* suites): the environment
 * (CO_TEST_BACKEND, CO_TEST_SEED, CO_TEST_FULL, CO_TEST_LEAKS), the CUDA
 * probe that skips the program, the leak check, the engine configurations
 * and a few harness helpers.
 */
#ifndef __CO_TEST_UTIL_H__
#define __CO_TEST_UTIL_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS
/* "cpu" (default) or "cuda", from CO_TEST_BACKEND */
extern const gchar *co_test_backend;
/* CO_TEST_SEED, or the program's default */
extern guint32 co_test_base_seed;
/* CO_TEST_FULL=1 */
extern gboolean co_test_full_matrix;

/* Engine configurations */
typedef struct
{
  guint streams;
  guint chunks;
  gboolean serial;
} RunCfg;

extern const RunCfg co_test_run_cfgs[7];
#define CO_TEST_N_RUNS G_N_ELEMENTS (co_test_run_cfgs)

gchar *co_test_run_desc (const RunCfg * run);
guint32 co_test_seed (const gchar * name, gint i);

/* Reads the environment (CO_TEST_BACKEND, CO_TEST_SEED with @default_seed,
 * CO_TEST_FULL, CO_TEST_LEAKS: GST_TRACERS; CK_FORK=no for CUDA), calls
 * gst_check_init() and, for backend=cuda, checks that @element can run
 * (in this process: the suite then runs unforked).  Returns 0 to run the
 * suite, else the exit status: 1 on a bad CO_TEST_BACKEND, 77 (skip, the
 * reason on stderr) when the element refuses backend=cuda, 1 (an error)
 * when the element cannot even be made, unless @missing_element_skips. */
int co_test_init (int *argc, char ***argv, const gchar * element,
    guint32 default_seed, gboolean missing_element_skips);

/* Leak check (leaks tracer activity checkpoints) */
GstTracer *co_test_leaks_tracer (void);
void co_test_leaks_setup (void);
void co_test_leaks_stop (void);
/* Fails when objects created since co_test_leaks_setup() are still alive;
 * @ignore_registry: registry objects (plugins, features) are not leaks. */
void co_test_leaks_check (gboolean ignore_registry);
void co_test_leaks_free (void);

/* A test case with a 300 s timeout and the leak check as its fixture
 * (co_test_leaks_setup, then @teardown). */
TCase *co_test_new_tcase (Suite * s, const gchar * name, SFun teardown);

/* "message | debug" of an ERROR message */
gchar *co_test_error_text (GstMessage * msg);

/* A new @element with backend=co_test_backend (fails the test if it cannot
 * be made); co_test_set_run() sets @run's mode, streams and chunks. */
GstElement *co_test_make_element (const gchar * element);
void co_test_set_run (GstElement * e, const RunCfg * run);
void co_test_fill_random (GRand * rand, guint8 * data, gsize size);
/* Property @prop of @obj (a GstValueArray) reads back as the @n doubles
 * @want, exactly; failures name @ctx. */
void co_test_check_doubles (GObject * obj, const gchar * prop,
    const gdouble * want, guint n, const gchar * ctx);

GstBuffer *co_test_pull_buffer (GstHarness * h, const gchar * ctx);

G_END_DECLS
#endif
