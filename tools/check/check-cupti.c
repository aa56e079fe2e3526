/* cudaoverlap-check: CUPTI activity records (summed like the element's
 * statistics, and the records themselves for the copy profile).
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

#include "check-cupti.h"

static GMutex lock;
static GArray *ops;             /* CoOpRecord */
static GArray *copies;          /* BenchCuptiCopy: every memcpy record */
static GArray *kernels;         /* BenchCuptiKernel */

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
      BenchCuptiCopy c = { m->copyKind, m->srcKind, m->dstKind, m->streamId,
        m->start, m->end, m->bytes
      };

      if (copies)
        g_array_append_val (copies, c);
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
      BenchCuptiKernel kr = { k->streamId, k->start, k->end,
        g_intern_string (k->name ? k->name : "?")
      };

      if (kernels)
        g_array_append_val (kernels, kr);
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
  if (copies)
    g_array_unref (copies);
  copies = g_array_sized_new (FALSE, FALSE, sizeof (BenchCuptiCopy), 1 << 14);
  if (kernels)
    g_array_unref (kernels);
  kernels = g_array_sized_new (FALSE, FALSE, sizeof (BenchCuptiKernel),
      1 << 14);
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
  return bench_cupti_stop_detail (out, records, NULL, why);
}

gboolean
bench_cupti_stop_detail (CoStatsSummary * out, guint64 * records,
    BenchCuptiDetail * detail, gchar ** why)
{
  CoStats *stats;
  GArray *a, *cp, *kn;

  CUPTI_CK (cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  CUPTI_CK (cuptiActivityDisable (CUPTI_ACTIVITY_KIND_MEMCPY));
  CUPTI_CK (cuptiActivityDisable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  CUPTI_CK (cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

  g_mutex_lock (&lock);
  a = ops;
  ops = NULL;
  cp = copies;
  copies = NULL;
  kn = kernels;
  kernels = NULL;
  g_mutex_unlock (&lock);
  if (detail) {
    bench_cupti_detail_clear (detail);
    detail->copies = cp;
    detail->kernels = kn;
  } else {
    g_array_unref (cp);
    g_array_unref (kn);
  }

  stats = co_stats_new ();
  co_stats_add_frame (stats, (const CoOpRecord *) a->data, a->len, 0,
      CO_PATH_PINNED);
  co_stats_total (stats, out);
  co_stats_free (stats);
  *records = a->len;
  g_array_unref (a);
  return TRUE;
}

void
bench_cupti_detail_clear (BenchCuptiDetail * detail)
{
  if (detail->copies)
    g_array_unref (detail->copies);
  if (detail->kernels)
    g_array_unref (detail->kernels);
  detail->copies = detail->kernels = NULL;
}

const gchar *
bench_cupti_copy_kind_name (guint kind)
{
  static gchar other[32];

  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    default:
      g_snprintf (other, sizeof (other), "kind %u", kind);
      return other;
  }
}

const gchar *
bench_cupti_memory_kind_name (guint kind)
{
  static gchar other[32];

  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN:
      return "unknown";
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
      return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
      return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
      return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return "device-static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return "managed-static";
    default:
      g_snprintf (other, sizeof (other), "kind %u", kind);
      return other;
  }
}

guint
bench_cupti_copy_kind_htod (void)
{
  return CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
}

guint
bench_cupti_copy_kind_dtoh (void)
{
  return CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
}

guint
bench_cupti_copy_kind_dtod (void)
{
  return CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
}
