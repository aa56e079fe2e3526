/* cudaoverlap-bench: CUPTI activity records, to check the element's
 * event-based busy times against exact device times of the same run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_CUPTI_H__
#define __BENCH_CUPTI_H__

#include <glib.h>
#include "co-stats.h"

G_BEGIN_DECLS
/* Start recording memcpy and kernel activity of this process. */
    gboolean bench_cupti_start (gchar ** why);
/* Stop, flush, and summarise what was recorded since start with the same
 * arithmetic as the element's statistics (co-stats, one "frame" holding
 * every record).  @records gets the number of records used. */
gboolean bench_cupti_stop (CoStatsSummary * out, guint64 * records,
    gchar ** why);

G_END_DECLS
#endif
