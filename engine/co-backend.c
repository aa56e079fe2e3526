/* cudaoverlap: which backend an engine runs on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one place that names the backends: co_engine_new() opens the table
 * co_backend_select() returns, and the elements ask
 * co_engine_backend_usable() before they promise a backend (backend=cuda
 * with no usable device is an error there, not a fallback) and
 * co_engine_backend_fallback_reason() when backend=auto runs on the CPU.
 * The GPU backend is one pointer below: a build without it has only the
 * CPU table, and every answer here then says so.
 */
#include <string.h>

#include "co-engine-cpu.h"
#include "co-engine-cuda.h"

/* The backend CO_BACKEND_CUDA names and CO_BACKEND_AUTO prefers (NULL in
 * a build without one). */
static const CoBackendOps *const co_gpu_backend = &co_cuda_backend;

#define CO_NO_GPU_BACKEND "this build of cudaoverlap has no CUDA backend " \
  "(built with -Dcuda=disabled)"

const CoBackendOps *
co_backend_select (CoBackendKind kind, gint device_id)
{
  if (kind == CO_BACKEND_CPU || !co_gpu_backend)
    return &co_cpu_backend;
  if (kind == CO_BACKEND_AUTO && !co_gpu_backend->usable (device_id, NULL))
    return &co_cpu_backend;
  return co_gpu_backend;
}

gboolean
co_engine_backend_usable (CoBackendKind kind, gint device_id, GError ** error)
{
  if (kind == CO_BACKEND_CUDA && !co_gpu_backend) {
    g_set_error_literal (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_NO_DEVICE,
        CO_NO_GPU_BACKEND);
    return FALSE;
  }
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

  if (!co_gpu_backend)
    return g_strdup (CO_NO_GPU_BACKEND);
  if (co_gpu_backend->usable (device_id, &err))
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
