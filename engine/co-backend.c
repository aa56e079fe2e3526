/* cudaoverlap: which backend an engine runs on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one place that names the backends: co_engine_new() opens the table
 * co_backend_select() returns, and the elements ask
 * co_engine_backend_usable() before they promise a backend (backend=cuda
 * with no usable device is an error there, not a fallback) and
 * co_engine_backend_fallback_reason() when backend=auto runs on the CPU:
 * the reason is the CUDA table's own (its usable()), so a build without
 * CUDA, whose table is never usable, says that in the same place.
 */
#include <string.h>

#include "co-engine-cpu.h"
#include "co-engine-cuda.h"

const CoBackendOps *
co_backend_select (CoBackendKind kind, gint device_id)
{
  if (kind == CO_BACKEND_CPU)
    return &co_cpu_backend;
  if (kind == CO_BACKEND_AUTO && !co_cuda_backend.usable (device_id, NULL))
    return &co_cpu_backend;
  return &co_cuda_backend;
}

gboolean
co_engine_backend_usable (CoBackendKind kind, gint device_id, GError ** error)
{
  return co_backend_select (kind, device_id)->usable (device_id, error);
}

CoBackendKind
co_engine_probe (CoBackendKind kind, gint device_id, CoDeviceInfo * info)
{
  const CoBackendOps *ops = co_backend_select (kind, device_id);

  memset (info, 0, sizeof (*info));
  ops->probe (device_id, info);
  return ops->kind;
}

gchar *
co_engine_backend_fallback_reason (gint device_id)
{
  GError *err = NULL;
  gchar *reason;

  if (co_cuda_backend.usable (device_id, &err))
    return NULL;
  reason = g_strdup (err->message);
  g_error_free (err);
  return reason;
}

gboolean
co_engine_device_context (CoBackendKind kind, gint device_id,
    gpointer * context, gint * device, GError ** error)
{
  const CoBackendOps *ops = co_backend_select (kind, device_id);

  if (!ops->device_context) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        "the %s backend has no device context", ops->name);
    return FALSE;
  }
  return ops->device_context (device_id, context, device, error);
}
