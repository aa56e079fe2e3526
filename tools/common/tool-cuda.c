/* The CUDA set-up the tools' raw loops share (tool-cuda.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool-cuda.h"

void
tool_cuda_check (cudaError_t err, const char *call, const char *file, int line)
{
  const char *base = strrchr (file, '/');

  if (err == cudaSuccess)
    return;
  fprintf (stderr, "CUDA error: %s failed: %s (%s) [%s:%d]\n", call,
      cudaGetErrorName (err), cudaGetErrorString (err), base ? base + 1 : file,
      line);
  exit (1);
}

int
tool_cuda_probe (int device, int create_context, char *why, size_t why_size)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);

  if (err != cudaSuccess) {
    snprintf (why, why_size, "cudaGetDeviceCount: %s",
        cudaGetErrorString (err));
    return 0;
  }
  if (n <= device) {
    snprintf (why, why_size, "%d CUDA device(s)", n);
    return 0;
  }
  if (create_context) {
    TOOL_CK (cudaSetDevice (device));
    TOOL_CK (cudaFree (NULL));
  }
  return 1;
}

unsigned char *
tool_cuda_host_try_new (size_t size, unsigned flags, const void *src,
    char *why, size_t why_size)
{
  void *p = NULL;
  cudaError_t err = cudaHostAlloc (&p, size ? size : 1, flags);

  if (err != cudaSuccess) {
    snprintf (why, why_size, "cudaHostAlloc of %zu bytes: %s", size,
        cudaGetErrorString (err));
    return NULL;
  }
  if (src)
    memcpy (p, src, size);
  else
    memset (p, 0, size);
  return (unsigned char *) p;
}

unsigned char *
tool_cuda_host_new (size_t size, unsigned flags, const void *src)
{
  char why[160];
  unsigned char *p = tool_cuda_host_try_new (size, flags, src, why,
      sizeof (why));

  if (!p) {
    fprintf (stderr, "CUDA error: %s\n", why);
    exit (1);
  }
  return p;
}

void
tool_cuda_host_free (void *p)
{
  if (p)
    TOOL_CK (cudaFreeHost (p));
}

unsigned char *
tool_cuda_dev_new (size_t size, const void *src)
{
  void *p = NULL;

  TOOL_CK (cudaMalloc (&p, size ? size : 1));
  if (src)
    TOOL_CK (cudaMemcpy (p, src, size, cudaMemcpyHostToDevice));
  else
    TOOL_CK (cudaMemset (p, 0, size));
  return (unsigned char *) p;
}

void
tool_cuda_dev_free (void *p)
{
  if (p)
    TOOL_CK (cudaFree (p));
}

void
tool_cuda_streams_new (cudaStream_t * s, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++)
    TOOL_CK (cudaStreamCreateWithFlags (&s[i], cudaStreamNonBlocking));
}

void
tool_cuda_streams_free (cudaStream_t * s, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++)
    if (s[i])
      TOOL_CK (cudaStreamDestroy (s[i]));
}

void
tool_cuda_events_new (cudaEvent_t * e, unsigned n, unsigned flags)
{
  unsigned i;

  for (i = 0; i < n; i++)
    TOOL_CK (cudaEventCreateWithFlags (&e[i], flags));
}

void
tool_cuda_events_free (cudaEvent_t * e, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++)
    if (e[i])
      TOOL_CK (cudaEventDestroy (e[i]));
}
