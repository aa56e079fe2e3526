/* cudaoverlap-bench: CUPTI activity records.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CUPTI reports the device start and end of every memcpy and kernel as the
 * hardware ran it, without the queueing that CUDA events around an
 * operation include.  Comparing its busy times and overlap efficiency with
 * the element's cudaoverlap-stats of the same run says how much the event
 * intervals overstate.
 */
#include <stdlib.h>
#include <string.h>
#include <cupti.h>

#include "bench-cupti.h"

static GMutex lock;
static GArray *ops;             /* CoOpRecord */

static void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t *size, size_t *max_records)
{
  *size = 16 << 20;
  *buffer = aligned_alloc (8, *size);
  *max_records = 0;
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream_id, uint8_t * buffer,
    size_t size, size_t valid)
{
  CUpti_Activity *rec = NULL;

  g_mutex_lock (&lock);
  while (cuptiActivityGetNextRecord (buffer, valid, &rec) == CUPTI_SUCCESS) {
    CoOpRecord op = { 0, };

    if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *) rec;

      if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
        op.kind = CO_OP_H2D;
      else if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
        op.kind = CO_OP_D2H;
      else
        continue;
      op.start = m->start;
      op.end = m->end;
      op.bytes = m->bytes;
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *) rec;

      op.kind = CO_OP_KERNEL;
      op.start = k->start;
      op.end = k->end;
    } else {
      continue;
    }
    if (ops)
      g_array_append_val (ops, op);
  }
  g_mutex_unlock (&lock);
  free (buffer);
}

#define CUPTI_CK(call) G_STMT_START { \
  CUptiResult _r = (call); \
  if (_r != CUPTI_SUCCESS) { \
    const char *_s = NULL; \
    cuptiGetResultString (_r, &_s); \
    *why = g_strdup_printf ("%s failed: %s", #call, _s ? _s : "?"); \
    return FALSE; \
  } } G_STMT_END

gboolean
bench_cupti_start (gchar ** why)
{
  static gboolean registered = FALSE;

  g_mutex_lock (&lock);
  if (ops)
    g_array_unref (ops);
  ops = g_array_sized_new (FALSE, FALSE, sizeof (CoOpRecord), 1 << 16);
  g_mutex_unlock (&lock);
  if (!registered) {
    CUPTI_CK (cuptiActivityRegisterCallbacks (buffer_requested,
            buffer_completed));
    registered = TRUE;
  }
  CUPTI_CK (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY));
  CUPTI_CK (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  return TRUE;
}

gboolean
bench_cupti_stop (CoStatsSummary * out, guint64 * records, gchar ** why)
{
  CoStats *stats;
  GArray *a;

  CUPTI_CK (cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  CUPTI_CK (cuptiActivityDisable (CUPTI_ACTIVITY_KIND_MEMCPY));
  CUPTI_CK (cuptiActivityDisable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  CUPTI_CK (cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

  g_mutex_lock (&lock);
  a = ops;
  ops = NULL;
  g_mutex_unlock (&lock);

  stats = co_stats_new ();
  co_stats_add_frame (stats, (const CoOpRecord *) a->data, a->len, 0,
      CO_PATH_PINNED);
  co_stats_total (stats, out);
  co_stats_free (stats);
  *records = a->len;
  g_array_unref (a);
  return TRUE;
}
