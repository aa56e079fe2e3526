/* cudaoverlap: gst-plugins-bad's CUDA library, loaded at run time.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See gstcudaoverlap-cudamem.h for why the library is opened with GModule
 * instead of linked.  It is opened once per process, the first time an
 * element asks (a caps query, READY), never closed (its GTypes stay
 * registered), and only used when every 1.22 call resolves and
 * gst_cuda_load_library() finds the NVIDIA driver.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gmodule.h>

#include "gstcudaoverlap-cudamem.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_overlap_cudamem_debug);
#define GST_CAT_DEFAULT gst_cuda_overlap_cudamem_debug

#define CUDA_LIBRARY "libgstcuda-1.0.so.0"

static GstCudaOverlapCudaLib lib;
static const gchar *lib_why;

typedef struct
{
  const gchar *name;
  gsize offset;
  gboolean optional;            /* 1.24 and later */
} Symbol;

#define SYM(name, member, optional) \
  { name, G_STRUCT_OFFSET (GstCudaOverlapCudaLib, member), optional }

static const Symbol symbols[] = {
  SYM ("gst_cuda_load_library", load_library, FALSE),
  SYM ("gst_cuda_memory_init_once", memory_init_once, FALSE),
  SYM ("gst_is_cuda_memory", is_cuda_memory, FALSE),
  SYM ("gst_cuda_context_get_type", context_get_type, FALSE),
  SYM ("gst_cuda_context_new_wrapped", context_new_wrapped, FALSE),
  SYM ("gst_cuda_context_get_handle", context_get_handle, FALSE),
  SYM ("gst_cuda_buffer_pool_new", buffer_pool_new, FALSE),
  SYM ("gst_cuda_buffer_pool_get_type", buffer_pool_get_type, FALSE),
  SYM ("gst_cuda_handle_set_context", handle_set_context, FALSE),
  SYM ("gst_cuda_handle_context_query", handle_context_query, FALSE),
  SYM ("gst_context_new_cuda_context", context_new_cuda_context, FALSE),
  SYM ("gst_cuda_allocator_alloc", allocator_alloc, FALSE),
  SYM ("gst_cuda_memory_get_stream", memory_get_stream, TRUE),
  SYM ("gst_cuda_memory_sync", memory_sync, TRUE),
};

/* Fills the table; NULL, or why not (a static string). */
static const gchar *
load (void)
{
  GModule *module;
  guint i;

  module = g_module_open (CUDA_LIBRARY, G_MODULE_BIND_LAZY |
      G_MODULE_BIND_LOCAL);
  if (!module) {
    GST_INFO ("%s: %s", CUDA_LIBRARY, g_module_error ());
    return CUDA_LIBRARY " (gst-plugins-bad's CUDA library) is not installed";
  }
  for (i = 0; i < G_N_ELEMENTS (symbols); i++) {
    gpointer *slot = G_STRUCT_MEMBER_P (&lib, symbols[i].offset);

    if (!g_module_symbol (module, symbols[i].name, slot) &&
        !symbols[i].optional) {
      GST_WARNING ("%s has no %s", CUDA_LIBRARY, symbols[i].name);
      g_module_close (module);
      memset (&lib, 0, sizeof (lib));
      return CUDA_LIBRARY " lacks calls of the GStreamer 1.22 CUDA API";
    }
  }
  /* its GTypes and its own loader must outlive every element */
  g_module_make_resident (module);
  if (!lib.load_library ())
    return "libgstcuda-1.0 could not load the NVIDIA driver (libcuda.so.1)";
  lib.memory_init_once ();
  GST_INFO ("%s loaded%s", CUDA_LIBRARY, lib.memory_sync ?
      " (1.24 stream API present)" : "");
  return NULL;
}

const GstCudaOverlapCudaLib *
gst_cuda_overlap_cuda_lib (const gchar ** why)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_overlap_cudamem_debug,
        "cudaoverlap-cudamem", 0, "cudaoverlap: libgstcuda-1.0 at run time");
    lib_why = load ();
    g_once_init_leave (&once, 1);
  }
  if (lib_why) {
    if (why)
      *why = lib_why;
    return NULL;
  }
  return &lib;
}

gboolean
gst_cuda_overlap_caps_is_cuda (const GstCaps * caps)
{
  GstCapsFeatures *f;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f,
      GST_CUDA_OVERLAP_CAPS_FEATURE_CUDA);
}

GstObject *
gst_cuda_overlap_cuda_memory_context (GstMemory * mem)
{
  const GstCudaOverlapCudaLib *l = gst_cuda_overlap_cuda_lib (NULL);

  if (!l || !mem || !l->is_cuda_memory (mem))
    return NULL;
  return ((GstCudaOverlapCudaMemoryHead *) mem)->context;
}

gint
gst_cuda_overlap_cuda_context_device (GstObject * cuda_context)
{
  guint id = 0;

  g_object_get (cuda_context, "cuda-device-id", &id, NULL);
  return (gint) id;
}

/* ---- test builds ------------------------------------------------------- */

#ifdef CO_FAULT_INJECTION
static gint fake_usable, fake_host;

/* Exported for the tests (g_module_symbol on the loaded plugin). */
void co_test_set_fake_cuda_memory (gboolean fake);
void co_test_set_host_cuda_memory (gboolean host);

void
co_test_set_fake_cuda_memory (gboolean fake)
{
  g_atomic_int_set (&fake_usable, fake);
}

void
co_test_set_host_cuda_memory (gboolean host)
{
  g_atomic_int_set (&fake_host, host);
  g_atomic_int_set (&fake_usable, host);
}

gboolean
gst_cuda_overlap_cuda_fake_usable (void)
{
  return g_atomic_int_get (&fake_usable);
}

gboolean
gst_cuda_overlap_cuda_fake_host (void)
{
  return g_atomic_int_get (&fake_host);
}
#else
gboolean
gst_cuda_overlap_cuda_fake_usable (void)
{
  return FALSE;
}

gboolean
gst_cuda_overlap_cuda_fake_host (void)
{
  return FALSE;
}
#endif
