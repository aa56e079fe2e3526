/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-fault: the plugin's test-only exports (engine/co-fault.h), looked
 * up in the loaded plugin.  They exist only in a -Dfault-injection build
 * (make check's); elsewhere the lookups return NULL and the tests that
 * need them say so and skip.
 */
#ifndef __CO_TEST_FAULT_H__
#define __CO_TEST_FAULT_H__

#include <gst/gst.h>

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

G_END_DECLS
#endif
