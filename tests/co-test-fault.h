/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-fault: the plugin's test-only exports (engine/co-fault.h), looked
 * up in the loaded plugin.  They exist only in a -Dfault-injection build
 * (make check's); elsewhere the lookups return NULL, the tests that need
 * them are not added to their suite, each named on a SKIP line, and the
 * program exits 77 (skipped): it never passes with less.  Also the named
 * variants of the suites' loop tests.
 */
#ifndef __CO_TEST_FAULT_H__
#define __CO_TEST_FAULT_H__

#include <gst/gst.h>
#include <gst/check/gstcheck.h>

G_BEGIN_DECLS
/* co_fault_arm (point, nth): from the nth call of point on, every call
 * fails; (NULL, -1) disarms. */
typedef void (*CoTestFaultArm) (const gchar * point, gint64 nth);
/* co_test_set_submit_delay_us (us), co_test_set_worker_jitter_us (us) */
typedef void (*CoTestSetDelay) (gulong us);
/* co_test_set_force_staging (force) */
typedef void (*CoTestSetFlag) (gboolean on);

/* The symbol @name of the loaded cudaoverlap plugin, or NULL when the
 * build does not export it. */
gpointer co_test_plugin_symbol (const gchar * name);
/* NULL when the loaded plugin exports the test hook @name, else why a test
 * that needs it cannot run (for co_test_add_variant) */
const gchar *co_test_hook_missing (const gchar * name);

/* Variants and skips.  A test's variants live in a named table; the suite
 * adds each entry with co_test_add_variant() and the test prints the name
 * of the one it runs (co_test_print_variant).  A variant that cannot run
 * in this build (@missing: the reason, e.g. a test hook that a
 * -Dfault-injection build exports) is not added: its SKIP line is printed
 * and co_test_exit_status() makes the program exit 77 (skipped) instead of
 * passing with less. */
#define co_test_add_variant(tc, fn, i, name, missing) \
  co_test_add_variant_full ((tc), (fn), "" # fn "", (i), (name), (missing))
void co_test_add_variant_full (TCase * tc, TFun fn, const gchar * fname,
    gint i, const gchar * name, const gchar * missing);
/* A test without variants, or all of a loop test's iterations, that need
 * what @missing says is absent */
#define co_test_add_if(tc, fn, missing) \
  co_test_add_variant_full ((tc), (fn), "" # fn "", 0, NULL, (missing))
#define co_test_add_loop_if(tc, fn, start, end, missing) \
  co_test_add_loop_full ((tc), (fn), "" # fn "", (start), (end), (missing))
void co_test_add_loop_full (TCase * tc, TFun fn, const gchar * fname,
    gint start, gint end, const gchar * missing);
void co_test_print_variant (const gchar * test, gint i, const gchar * name);
/* The program's exit status after gst_check_run_suite() returned
 * @n_failed: 1 on a failure, else 77 when a test was skipped, else 0. */
int co_test_exit_status (int n_failed);

G_END_DECLS
#endif
