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

/* One memcpy record as CUPTI gave it (every copy kind, not only the H2D
 * and D2H that the summary counts).  The kinds are CUPTI's enums
 * (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind in cupti_activity.h):
 * bench_cupti_copy_kind_name () and bench_cupti_memory_kind_name () name
 * them. */
typedef struct
{
  guint8 copy_kind, src_kind, dst_kind;
  guint32 stream;
  guint64 start, end, bytes;
} BenchCuptiCopy;

/* One kernel record; @name is CUPTI's (mangled for C++ kernels), interned
 * with g_intern_string (). */
typedef struct
{
  guint32 stream;
  guint64 start, end;
  const gchar *name;
} BenchCuptiKernel;

typedef struct
{
  GArray *copies;               /* BenchCuptiCopy */
  GArray *kernels;              /* BenchCuptiKernel */
} BenchCuptiDetail;

/* bench_cupti_stop (), and the records themselves in @detail (NULL: not
 * wanted); free them with bench_cupti_detail_clear (). */
gboolean bench_cupti_stop_detail (CoStatsSummary * out, guint64 * records,
    BenchCuptiDetail * detail, gchar ** why);
void bench_cupti_detail_clear (BenchCuptiDetail * detail);

/* "HtoD", "DtoH", "DtoD", ...; "kind N" for others */
const gchar *bench_cupti_copy_kind_name (guint kind);
/* "pageable", "pinned", "device", ...; "kind N" for others */
const gchar *bench_cupti_memory_kind_name (guint kind);
/* the CUpti_ActivityMemcpyKind values of HtoD, DtoH and DtoD */
guint bench_cupti_copy_kind_htod (void);
guint bench_cupti_copy_kind_dtoh (void);
guint bench_cupti_copy_kind_dtod (void);

G_END_DECLS
#endif
