/* cudaoverlap-bench and cudaoverlap-check: small GStreamer helpers both
 * tools share (tool-common.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_COMMON_H__
#define __BENCH_COMMON_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* Parses the command line with @entries and GStreamer's own options, then
 * initialises GStreamer.  FALSE (the error printed on stderr) on a bad
 * command line. */
    gboolean bench_parse_options (const gchar * summary,
    const GOptionEntry * entries, int *argc, char ***argv);

/* Whether the registry has the element or other feature @name. */
gboolean bench_have_feature (const gchar * name);

/* A guint64 field of a statistics structure, 0 when @s is NULL or lacks it. */
guint64 bench_stat_u64 (const GstStructure * s, const gchar * field);

G_END_DECLS
#endif
