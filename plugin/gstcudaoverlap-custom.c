/* cudaoverlap: operation=custom's properties (see gstcudaoverlap-custom.h).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstcudaoverlap-custom.h"

/* kernel-halo: rows of a band's halo (video), frames of history (audio) */
#define MAX_HALO_ROWS 4096
#define MAX_HALO_FRAMES (1 << 20)

#define LAUNCHER_TYPE (gst_cuda_overlap_kernel_launcher_get_type ())

enum
{
  K_MODULE,
  K_NAME,
  K_HALO,
  K_PARAMS,
  K_FORMATS,
  K_CPU_LIBRARY,
  K_CPU_SYMBOL,
  K_LAUNCHER,
  K_SOURCE,
  K_SOURCE_FILE,
};

static const gchar *const names[GST_CUDA_OVERLAP_CUSTOM_N_PROPS] = {
  "kernel-module", "kernel-name", "kernel-halo", "kernel-params",
  "kernel-formats", "kernel-cpu-library", "kernel-cpu-symbol",
  "kernel-launcher", "kernel-source", "kernel-source-file"
};

void
gst_cuda_overlap_custom_init (GstCudaOverlapCustom * c)
{
  memset (c, 0, sizeof (*c));
  c->params = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

void
gst_cuda_overlap_custom_clear (GstCudaOverlapCustom * c)
{
  guint i;

  g_free (c->module);
  g_free (c->source);
  g_free (c->source_file);
  g_free (c->name);
  g_free (c->cpu_library);
  g_free (c->cpu_symbol);
  g_free (c->formats);
  g_clear_pointer (&c->params, g_array_unref);
  g_clear_pointer (&c->launcher, co_custom_launcher_unref);
  if (c->launcher_copy)
    g_boxed_free (LAUNCHER_TYPE, c->launcher_copy);
  c->launcher_copy = NULL;
  g_clear_pointer (&c->spec_launcher, co_custom_launcher_unref);
  for (i = 0; i < G_N_ELEMENTS (c->spec_strings); i++)
    g_clear_pointer (&c->spec_strings[i], g_free);
}

/* ---- kernel-launcher: the boxed GstCudaOverlapKernelLauncher ------------ */

/* Every copy the type makes is registered with the CoCustomLauncher (the
 * engine's holder of the launcher, whose last reference calls destroy) it
 * shares: a copy of a copy takes another reference of the same holder, so
 * however many copies GObject, the element and the application make,
 * destroy runs once, after the last one is freed.  A copy of a struct that
 * is none of the type's copies (the application's own, e.g. on its stack)
 * gets a new holder: it adopts the user_data.  A struct of an ABI version
 * the plugin does not know is copied without a holder (its destroy is
 * never called) and refused where it is set. */
static GMutex launchers_lock;
/* a copy -> its holder (a reference) [launchers_lock] */
static GHashTable *launchers;

static GstCudaOverlapKernelLauncher *
launcher_copy (const GstCudaOverlapKernelLauncher * l)
{
  GstCudaOverlapKernelLauncher *copy = g_new0 (GstCudaOverlapKernelLauncher,
      1);
  CoCustomLauncher *cl;

  /* no more than the application's struct has, the version fields at least */
  memcpy (copy, l, CLAMP (l->struct_size, 2 * sizeof (guint32),
          sizeof (*copy)));
  g_mutex_lock (&launchers_lock);
  if (launchers == NULL)
    launchers = g_hash_table_new (NULL, NULL);
  cl = co_custom_launcher_ref (g_hash_table_lookup (launchers, l));
  if (cl == NULL)
    cl = co_custom_launcher_new (copy, NULL);
  if (cl)
    g_hash_table_insert (launchers, copy, cl);
  g_mutex_unlock (&launchers_lock);
  return copy;
}

static void
launcher_free (GstCudaOverlapKernelLauncher * l)
{
  CoCustomLauncher *cl;

  g_mutex_lock (&launchers_lock);
  cl = g_hash_table_lookup (launchers, l);
  g_hash_table_remove (launchers, l);
  g_mutex_unlock (&launchers_lock);
  /* the last reference calls destroy */
  co_custom_launcher_unref (cl);
  g_free (l);
}

G_DEFINE_BOXED_TYPE (GstCudaOverlapKernelLauncher,
    gst_cuda_overlap_kernel_launcher, launcher_copy, launcher_free);

/* A reference of the holder of @l, a copy of the type; NULL when it has
 * none (an unknown ABI version). */
static CoCustomLauncher *
launcher_holder (const GstCudaOverlapKernelLauncher * l)
{
  CoCustomLauncher *cl;

  g_mutex_lock (&launchers_lock);
  cl = co_custom_launcher_ref (g_hash_table_lookup (launchers, l));
  g_mutex_unlock (&launchers_lock);
  return cl;
}

/* ---- the properties ------------------------------------------------------ */

static GParamSpec *
string_pspec (guint k, const gchar * nick, const gchar * blurb,
    GParamFlags flags)
{
  return g_param_spec_string (names[k], nick, blurb, NULL, flags);
}

/* The kernel and what it is given.  The properties are the same on both
 * elements: a doc block that names GstCudaOverlapFilter documents each
 * element's property (tools/dev/cudaoverlap-reference looks a property up
 * by its element's type, then by the parent types); kernel-halo and
 * kernel-formats, which differ, have a block per element. */
static void
install_kernel_properties (GObjectClass * klass, guint first, gboolean audio,
    GParamFlags rw)
{
  /**
   * GstCudaOverlapFilter:kernel-module:
   *
   * operation=custom: the CUDA module (PTX, cubin or fatbin file) that
   * holds the kernel, loaded when the engine is built.
   * docs/custom-kernels.md is the contract between the element and the
   * kernel.  Only one of kernel-module, kernel-source and
   * kernel-source-file may be set: with two, the engine's build fails with
   * an element error that names them.
   */
  g_object_class_install_property (klass, first + K_MODULE,
      string_pspec (K_MODULE, "Kernel module", "CUDA module (PTX, cubin or "
          "fatbin) with the custom kernel", rw));
  /**
   * GstCudaOverlapFilter:kernel-name:
   *
   * operation=custom: the kernel's name in kernel-module (declared
   * `extern "C" __global__`); with kernel-source or kernel-source-file,
   * its C++ name (e.g. `invert`, `ns::blur<3>`): no `extern "C"` needed.
   */
  g_object_class_install_property (klass, first + K_NAME,
      string_pspec (K_NAME, "Kernel name", "Name of the custom kernel in "
          "kernel-module or kernel-source", rw));
  /**
   * GstCudaOverlapVideoFilter:kernel-halo:
   *
   * operation=custom: input rows the kernel reads above and below each
   * band (each plane in its own rows; clamped at the picture's edges).
   */
  /**
   * GstCudaOverlapAudioFilter:kernel-halo:
   *
   * operation=custom: frames of history the kernel reads before each chunk
   * (the stream's previous input frames).
   */
  g_object_class_install_property (klass, first + K_HALO,
      g_param_spec_uint (names[K_HALO], "Kernel halo", audio ?
          "Frames of history the custom kernel reads before each chunk" :
          "Input rows the custom kernel reads above and below each band", 0,
          audio ? MAX_HALO_FRAMES : MAX_HALO_ROWS, 0, rw));
  /**
   * GstCudaOverlapFilter:kernel-params:
   *
   * operation=custom: up to 64 numbers passed to the kernel by value as
   * doubles (the launch struct's `params`), e.g. `"<1.0, 0.5, 2>"`.
   * Integers are taken as doubles, anything else is refused with a
   * warning; reads back as doubles.  A change takes effect after the
   * frames in flight, without a rebuild.
   */
  g_object_class_install_property (klass, first + K_PARAMS,
      gst_param_spec_array (names[K_PARAMS], "Kernel parameters",
          "Up to 64 numbers passed to the custom kernel as doubles",
          /* no element spec: it would refuse integers (Python's
           * Gst.ValueArray([2, 100])); set_params converts each value */
          NULL, rw));
  /**
   * GstCudaOverlapVideoFilter:kernel-formats:
   *
   * operation=custom: the pixel formats the kernel takes, e.g.
   * `"RGBA, GRAY8"`: the caps are restricted to them (empty: the 12
   * formats of ABI version 1, GRAY8 to I420; a newer format reaches only a
   * kernel that names it).
   */
  /**
   * GstCudaOverlapAudioFilter:kernel-formats:
   *
   * operation=custom: the sample formats the kernel takes, e.g. `"F32LE"`:
   * the caps are restricted to them (empty: all).
   */
  g_object_class_install_property (klass, first + K_FORMATS,
      string_pspec (K_FORMATS, "Kernel formats", audio ?
          "Sample formats the custom kernel takes (empty: all)" :
          "Pixel formats the custom kernel takes (empty: those of ABI 1)", rw));
}

/* What runs the kernel instead of a module: a C library on the CPU
 * backend, or the application's own launcher. */
static void
install_runner_properties (GObjectClass * klass, guint first, GParamFlags rw)
{
  /**
   * GstCudaOverlapFilter:kernel-cpu-library:
   *
   * operation=custom on the CPU backend: the shared library with the
   * kernel's C implementation (the same launch struct, by pointer).
   */
  g_object_class_install_property (klass, first + K_CPU_LIBRARY,
      string_pspec (K_CPU_LIBRARY, "Kernel CPU library",
          "Shared library with the " "custom kernel in C (CPU backend)", rw));
  /**
   * GstCudaOverlapFilter:kernel-cpu-symbol:
   *
   * operation=custom on the CPU backend: the function in
   * kernel-cpu-library, `int fn (const GstCudaOverlapVideoLaunch *)`
   * (cudaaudiofilter: `GstCudaOverlapAudioLaunch`).
   */
  g_object_class_install_property (klass, first + K_CPU_SYMBOL,
      string_pspec (K_CPU_SYMBOL, "Kernel CPU symbol", "The custom kernel's C "
          "function in kernel-cpu-library", rw));
  /**
   * GstCudaOverlapFilter:kernel-launcher:
   *
   * operation=custom from C: a `GstCudaOverlapKernelLauncher`
   * (gst/cudaoverlap/cudaoverlap-kernel.h), a boxed type: functions of the
   * application's own, run for each launch instead of kernel-module (CUDA:
   * on the engine's stream) or kernel-cpu-library (CPU).  Setting it
   * copies the struct; the copies share its `user_data`, whose `destroy`
   * runs once, after the last copy is freed.  Reading it gives a copy
   * (free it with `g_boxed_free`).  NULL: none.
   *
   * C only: a language binding cannot make the struct's functions.
   */
  g_object_class_install_property (klass, first + K_LAUNCHER,
      g_param_spec_boxed (names[K_LAUNCHER], "Kernel launcher",
          "The application's own launch functions for the custom kernel (C "
          "only)", LAUNCHER_TYPE, rw));
}

/* CUDA C compiled by the element (NVRTC) instead of a module file. */
static void
install_source_properties (GObjectClass * klass, guint first, GParamFlags rw)
{
  /**
   * GstCudaOverlapFilter:kernel-source:
   *
   * operation=custom: the kernel as CUDA C source, compiled when the
   * engine is built with NVRTC, the CUDA runtime compiler, loaded at run
   * time (libnvrtc.so.13: NVIDIA's package cuda-nvrtc-13-0): into a cubin
   * for the GPU's sm_XY, or PTX where NVRTC does not know the GPU.
   * `#include <gst/cudaoverlap/cudaoverlap-kernel.h>` and `<stdint.h>`
   * work without any include path; kernel-name is the kernel's C++ name.
   * The code is cached in the user's cache folder
   * (`$XDG_CACHE_HOME/cudaoverlap`), so a later start loads no NVRTC.  A
   * source that does not compile is an element error whose debug text is
   * the compiler's log.  The CPU backend does not run it: it needs
   * kernel-cpu-library.  Exclusive with kernel-module and
   * kernel-source-file.  docs/custom-kernels.md, *kernel-source*.
   */
  g_object_class_install_property (klass, first + K_SOURCE,
      string_pspec (K_SOURCE, "Kernel source", "CUDA C source of the custom "
          "kernel, compiled at run time (NVRTC)", rw));
  /**
   * GstCudaOverlapFilter:kernel-source-file:
   *
   * operation=custom: a file of CUDA C source, read and compiled as
   * kernel-source is when the engine is built; `#include "..."` also
   * searches the file's folder.  Exclusive with kernel-module and
   * kernel-source.
   */
  g_object_class_install_property (klass, first + K_SOURCE_FILE,
      string_pspec (K_SOURCE_FILE, "Kernel source file", "File of CUDA C "
          "source of the custom kernel, compiled at run time (NVRTC)", rw));
}

void
gst_cuda_overlap_custom_install (GObjectClass * klass, guint first,
    gboolean audio)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  install_kernel_properties (klass, first, audio, rw);
  install_runner_properties (klass, first, rw);
  install_source_properties (klass, first, rw);
  gst_type_mark_as_plugin_api (LAUNCHER_TYPE, 0);
}

gboolean
gst_cuda_overlap_custom_owns (GParamSpec * pspec)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (pspec->name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

static gint
index_of (GParamSpec * pspec)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (pspec->name, names[i]) == 0)
      return i;
  return -1;
}

/* Replaces *@field with a copy of @value: whether it changed. */
static gboolean
replace_string (gchar ** field, const gchar * value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static GstCudaOverlapCustomChange
set_params (GstCudaOverlapCustom * c, GObject * obj, const GValue * value)
{
  gchar *why = NULL;
  GArray *p = gst_cuda_overlap_doubles_from_value (value, 0,
      GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS, G_MAXDOUBLE, &why);
  gboolean same;

  if (!p) {
    GST_WARNING_OBJECT (obj, "kernel-params not changed: %s", why);
    g_warning ("%s: kernel-params not changed: %s",
        G_OBJECT_TYPE_NAME (obj), why);
    g_free (why);
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  }
  same = p->len == c->params->len && (p->len == 0 ||
      memcmp (p->data, c->params->data, p->len * sizeof (gdouble)) == 0);
  g_array_unref (c->params);
  c->params = p;
  return same ? GST_CUDA_OVERLAP_CUSTOM_UNCHANGED :
      GST_CUDA_OVERLAP_CUSTOM_PARAMS;
}

/* kernel-launcher: a copy of the boxed struct, sharing its user_data, or
 * NULL.  The same launcher again (a copy of the one set) changes nothing. */
static GstCudaOverlapCustomChange
set_launcher (GstCudaOverlapCustom * c, GObject * obj, const GValue * value)
{
  GstCudaOverlapKernelLauncher *l = g_value_dup_boxed (value);
  CoCustomLauncher *cl = l ? launcher_holder (l) : NULL;
  GError *err = NULL;

  if (l && !cl) {
    /* an ABI the plugin does not know (no holder): the check says which */
    cl = co_custom_launcher_new (l, &err);
    g_assert (cl == NULL);
    GST_WARNING_OBJECT (obj, "kernel-launcher not changed: %s", err->message);
    g_warning ("%s: kernel-launcher not changed: %s",
        G_OBJECT_TYPE_NAME (obj), err->message);
    g_error_free (err);
    g_boxed_free (LAUNCHER_TYPE, l);
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  }
  if (cl == c->launcher) {
    co_custom_launcher_unref (cl);
    if (l)
      g_boxed_free (LAUNCHER_TYPE, l);
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  }
  /* an engine that runs the old one holds its own reference */
  co_custom_launcher_unref (c->launcher);
  c->launcher = cl;
  if (c->launcher_copy)
    g_boxed_free (LAUNCHER_TYPE, c->launcher_copy);
  c->launcher_copy = l;
  c->gen++;
  return GST_CUDA_OVERLAP_CUSTOM_REBUILD;
}

GstCudaOverlapCustomChange
gst_cuda_overlap_custom_set (GstCudaOverlapCustom * c, GObject * obj,
    GParamSpec * pspec, const GValue * value)
{
  gchar **fields[] = { &c->module, &c->name, NULL, NULL, &c->formats,
    &c->cpu_library, &c->cpu_symbol, NULL, &c->source, &c->source_file
  };
  gint k = index_of (pspec);
  gboolean changed;

  if (k == K_PARAMS)
    return set_params (c, obj, value);
  if (k == K_LAUNCHER)
    return set_launcher (c, obj, value);
  if (k == K_HALO) {
    changed = c->halo != g_value_get_uint (value);
    c->halo = g_value_get_uint (value);
  } else if (k >= 0) {
    changed = replace_string (fields[k], g_value_get_string (value));
  } else {
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  }
  if (!changed)
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  if (k == K_FORMATS)
    return GST_CUDA_OVERLAP_CUSTOM_CAPS;
  c->gen++;
  return GST_CUDA_OVERLAP_CUSTOM_REBUILD;
}

void
gst_cuda_overlap_custom_get (GstCudaOverlapCustom * c, GParamSpec * pspec,
    GValue * value)
{
  const gchar *strings[] = { c->module, c->name, NULL, NULL, c->formats,
    c->cpu_library, c->cpu_symbol, NULL, c->source, c->source_file
  };
  gint k = index_of (pspec);

  if (k == K_LAUNCHER)
    g_value_set_boxed (value, c->launcher_copy);
  else if (k == K_PARAMS)
    gst_cuda_overlap_doubles_to_value (c->params, value);
  else if (k == K_HALO)
    g_value_set_uint (value, c->halo);
  else if (k >= 0)
    g_value_set_string (value, strings[k]);
}

static gchar **format_names (const gchar * formats);

/* kernel-formats: each name must be a format the element's sink pad takes
 * (GStreamer's names, as in the caps); the others are left out of the
 * caps anyway, so say so now, not with a "not-negotiated" later. */
static void
check_format_names (GstCudaOverlapFilter * filter, const gchar * formats)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (filter);
  GstPadTemplate *t = gst_element_class_get_pad_template (klass, "sink");
  GstCaps *tmpl = t ? gst_pad_template_get_caps (t) : NULL;
  gchar **names = format_names (formats);
  const gchar *media;
  guint i;

  if (!tmpl || gst_caps_is_empty (tmpl) || !names)
    goto done;
  media = gst_structure_get_name (gst_caps_get_structure (tmpl, 0));
  for (i = 0; names[i]; i++) {
    GstCaps *one = gst_caps_new_simple (media, "format", G_TYPE_STRING,
        names[i], NULL);

    if (!gst_caps_can_intersect (one, tmpl)) {
      GST_WARNING_OBJECT (filter, "kernel-formats: \"%s\" is not a format "
          "of this element: left out", names[i]);
      g_warning ("%s: kernel-formats: \"%s\" is not a format this element "
          "takes (GStreamer's names, as in the caps, e.g. %s): left out",
          G_OBJECT_TYPE_NAME (filter), names[i], g_str_has_prefix (media,
              "audio") ? "F32LE, S16LE" : "RGBA, GRAY8, GRAY16_LE, NV12");
    }
    gst_caps_unref (one);
  }
done:
  g_strfreev (names);
  if (tmpl)
    gst_caps_unref (tmpl);
}

void
gst_cuda_overlap_custom_set_property (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, gboolean active, GParamSpec * pspec,
    const GValue * value)
{
  GstCudaOverlapCustomChange change;

  GST_OBJECT_LOCK (filter);
  change = gst_cuda_overlap_custom_set (c, G_OBJECT (filter), pspec, value);
  GST_OBJECT_UNLOCK (filter);
  if (change == GST_CUDA_OVERLAP_CUSTOM_CAPS)
    check_format_names (filter, g_value_get_string (value));
  if (!active)
    return;
  /* takes effect with the next frame, after the ones in flight */
  if (change == GST_CUDA_OVERLAP_CUSTOM_PARAMS)
    gst_cuda_overlap_filter_mark_params_dirty (filter);
  else if (change == GST_CUDA_OVERLAP_CUSTOM_REBUILD)
    gst_cuda_overlap_filter_mark_dirty (filter);
  else if (change == GST_CUDA_OVERLAP_CUSTOM_CAPS)
    gst_pad_push_event (GST_ELEMENT (filter)->sinkpads->data,
        gst_event_new_reconfigure ());
}

void
gst_cuda_overlap_custom_get_property (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, GParamSpec * pspec, GValue * value)
{
  GST_OBJECT_LOCK (filter);
  gst_cuda_overlap_custom_get (c, pspec, value);
  GST_OBJECT_UNLOCK (filter);
}

/* The names of kernel-formats (free with g_strfreev); NULL when none. */
static gchar **
format_names (const gchar * formats)
{
  gchar **parts, **out;
  guint i, n = 0;

  if (!formats)
    return NULL;
  parts = g_strsplit_set (formats, ", ;", -1);
  out = g_new0 (gchar *, g_strv_length (parts) + 1);
  for (i = 0; parts[i]; i++)
    if (*parts[i])
      out[n++] = g_strdup (parts[i]);
  g_strfreev (parts);
  if (n == 0)
    g_clear_pointer (&out, g_free);
  return out;
}

static void
copy_params (GstCudaOverlapCustom * c)
{
  guint n = MIN (c->params->len, GST_CUDA_OVERLAP_KERNEL_MAX_PARAMS);

  memset (c->run.params, 0, sizeof (c->run.params));
  if (n > 0)                    /* an empty GArray may have no data */
    memcpy (c->run.params, c->params->data, n * sizeof (gdouble));
  c->run.n_params = n;
}

gboolean
gst_cuda_overlap_custom_configure (GstCudaOverlapCustom * c,
    const gchar * format_name, guint32 abi_format, gboolean audio,
    CoEngineConfig * cfg, GError ** error)
{
  gchar **allowed = format_names (c->formats);
  const gchar *strings[6] = { c->module, c->name, c->cpu_library,
    c->cpu_symbol, c->source, c->source_file
  };
  guint i;

  if (allowed && !g_strv_contains ((const gchar * const *) allowed,
          format_name)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "operation=custom: the kernel takes %s (kernel-formats), not %s",
        c->formats, format_name);
    g_strfreev (allowed);
    return FALSE;
  }
  /* an empty kernel-formats: the formats of ABI version 1 */
  if (!allowed && !audio && (abi_format < GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8
          || abi_format > GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST_V1)) {
    g_set_error (error, CO_ENGINE_ERROR, CO_ENGINE_ERROR_CONFIG,
        "operation=custom: a kernel takes %s only where kernel-formats names "
        "it (empty: the formats of ABI version 1, GRAY8 to I420)", format_name);
    return FALSE;
  }
  g_strfreev (allowed);
  for (i = 0; i < G_N_ELEMENTS (strings); i++) {
    g_free (c->spec_strings[i]);
    c->spec_strings[i] = g_strdup (strings[i]);
  }
  c->spec.module = c->spec_strings[0];
  c->spec.name = c->spec_strings[1];
  c->spec.cpu_library = c->spec_strings[2];
  c->spec.cpu_symbol = c->spec_strings[3];
  c->spec.source = c->spec_strings[4];
  c->spec.source_file = c->spec_strings[5];
  c->spec.audio = audio;
  g_clear_pointer (&c->spec_launcher, co_custom_launcher_unref);
  c->spec_launcher = co_custom_launcher_ref (c->launcher);
  c->spec.launcher = c->spec_launcher;
  c->spec_gen = c->gen;
  memset (&c->run, 0, sizeof (c->run));
  c->run.format = abi_format;
  c->run.halo = c->halo;
  copy_params (c);
  cfg->custom = &c->spec;
  return TRUE;
}

gboolean
gst_cuda_overlap_custom_update (GstCudaOverlapCustom * c)
{
  if (c->gen != c->spec_gen)
    return FALSE;
  copy_params (c);
  return TRUE;
}

void
gst_cuda_overlap_custom_check_built (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, CoBackendKind backend)
{
  const gchar *module = c->spec.module, *what = "kernel-module";

  if (!module || !*module) {
    module = c->spec.source_file;
    what = "kernel-source-file";
  }
  if (backend != CO_BACKEND_CPU || !module || !*module ||
      g_file_test (module, G_FILE_TEST_IS_REGULAR))
    return;
  GST_ELEMENT_WARNING (filter, RESOURCE, NOT_FOUND,
      ("%s \"%s\" is no file: the CPU backend does not use it, but on a "
          "GPU the engine will fail to load it", what, module),
      ("operation=custom on the CPU backend runs kernel-cpu-symbol"));
}

/* The names of the video formats of ABI version 1 (free with
 * g_strfreev). */
static gchar **
v1_video_formats (void)
{
  static const gchar *const names[] = { GST_CUDA_OVERLAP_KERNEL_FORMAT_NAMES };
  guint i, n = GST_CUDA_OVERLAP_KERNEL_FORMAT_LAST_V1 -
      GST_CUDA_OVERLAP_KERNEL_FORMAT_GRAY8 + 1;
  gchar **out = g_new0 (gchar *, n + 1);

  for (i = 0; i < n && i < G_N_ELEMENTS (names); i++)
    out[i] = g_strdup (names[i]);
  return out;
}

GstCaps *
gst_cuda_overlap_custom_allowed_caps (GstCudaOverlapCustom * c,
    const gchar * media)
{
  gchar **allowed = format_names (c->formats);
  GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
  GstCaps *caps;
  guint i;

  if (!allowed && g_str_has_prefix (media, "video/"))
    allowed = v1_video_formats ();
  if (!allowed)
    return NULL;
  gst_value_list_init (&list, g_strv_length (allowed));
  for (i = 0; allowed[i]; i++) {
    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, allowed[i]);
    gst_value_list_append_and_take_value (&list, &v);
  }
  g_strfreev (allowed);
  caps = gst_caps_new_empty_simple (media);
  gst_caps_set_value (caps, "format", &list);
  g_value_unset (&list);
  return caps;
}

/* ---- arrays of numbers --------------------------------------------------- */

GArray *
gst_cuda_overlap_doubles_from_value (const GValue * value, guint min,
    guint max, gdouble limit, gchar ** why)
{
  guint i, n = gst_value_array_get_size (value);
  GArray *out;

  if (n < min || n > max) {
    *why = g_strdup_printf ("%u values: between %u and %u are needed", n, min,
        max);
    return NULL;
  }
  out = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), n);
  for (i = 0; i < n; i++) {
    const GValue *v = gst_value_array_get_value (value, i);
    GValue d = G_VALUE_INIT;
    gdouble t;

    g_value_init (&d, G_TYPE_DOUBLE);
    if (!g_value_type_transformable (G_VALUE_TYPE (v), G_TYPE_DOUBLE) ||
        !g_value_transform (v, &d)) {
      *why = g_strdup_printf ("value %u is a %s, not a number", i,
          G_VALUE_TYPE_NAME (v));
      g_array_free (out, TRUE);
      return NULL;
    }
    t = g_value_get_double (&d);
    if (!isfinite (t) || fabs (t) > limit) {
      *why = g_strdup_printf ("value %u (%g) is not a finite number of at "
          "most %g", i, t, limit);
      g_array_free (out, TRUE);
      return NULL;
    }
    g_array_append_val (out, t);
  }
  return out;
}

void
gst_cuda_overlap_doubles_to_value (GArray * doubles, GValue * value)
{
  guint i;

  for (i = 0; i < doubles->len; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_DOUBLE);
    g_value_set_double (&v, g_array_index (doubles, gdouble, i));
    gst_value_array_append_and_take_value (value, &v);
  }
}
