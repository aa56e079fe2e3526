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
};

static const gchar *const names[GST_CUDA_OVERLAP_CUSTOM_N_PROPS] = {
  "kernel-module", "kernel-name", "kernel-halo", "kernel-params",
  "kernel-formats", "kernel-cpu-library", "kernel-cpu-symbol",
  "kernel-launcher"
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
  g_free (c->name);
  g_free (c->cpu_library);
  g_free (c->cpu_symbol);
  g_free (c->formats);
  g_clear_pointer (&c->params, g_array_unref);
  g_clear_pointer (&c->launcher, co_custom_launcher_unref);
  g_clear_pointer (&c->spec_launcher, co_custom_launcher_unref);
  for (i = 0; i < G_N_ELEMENTS (c->spec_strings); i++)
    g_clear_pointer (&c->spec_strings[i], g_free);
}

static GParamSpec *
string_pspec (guint k, const gchar * nick, const gchar * blurb,
    GParamFlags flags)
{
  return g_param_spec_string (names[k], nick, blurb, NULL, flags);
}

void
gst_cuda_overlap_custom_install (GObjectClass * klass, guint first,
    gboolean audio)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;

  g_object_class_install_property (klass, first + K_MODULE,
      string_pspec (K_MODULE, "Kernel module", "operation=custom: the CUDA "
          "module (PTX, cubin or fatbin file) that holds the kernel, loaded "
          "when the engine is built (docs/custom-kernels.md)", rw));
  g_object_class_install_property (klass, first + K_NAME,
      string_pspec (K_NAME, "Kernel name", "operation=custom: the kernel's "
          "name in kernel-module (declared extern \"C\" __global__)", rw));
  g_object_class_install_property (klass, first + K_HALO,
      g_param_spec_uint (names[K_HALO], "Kernel halo", audio ?
          "operation=custom: frames of history the kernel reads before each "
          "chunk (the stream's previous input frames)" :
          "operation=custom: input rows the kernel reads above and below "
          "each band (each plane in its own rows; clamped at the picture's "
          "edges)", 0, audio ? MAX_HALO_FRAMES : MAX_HALO_ROWS, 0, rw));
  g_object_class_install_property (klass, first + K_PARAMS,
      gst_param_spec_array (names[K_PARAMS], "Kernel parameters",
          "operation=custom: up to 64 numbers passed to the kernel by value "
          "as doubles (the launch struct's params), e.g. \"<1.0, 0.5, 2>\"; "
          "integers are taken as doubles, anything else is refused with a "
          "warning; reads back as doubles; a change takes effect after the "
          "frames in flight, without a rebuild",
          /* no element spec: it would refuse integers (Python's
           * Gst.ValueArray([2, 100])); set_params converts each value */
          NULL, rw));
  g_object_class_install_property (klass, first + K_FORMATS,
      string_pspec (K_FORMATS, "Kernel formats", audio ?
          "operation=custom: the sample formats the kernel takes, e.g. "
          "\"F32LE\" (the caps are restricted to them; empty: all)" :
          "operation=custom: the pixel formats the kernel takes, e.g. "
          "\"RGBA, GRAY8\" (the caps are restricted to them; empty: the 12 "
          "of ABI version 1, GRAY8 to I420)", rw));
  g_object_class_install_property (klass, first + K_CPU_LIBRARY,
      string_pspec (K_CPU_LIBRARY, "Kernel CPU library", "operation=custom "
          "on the CPU backend: the shared library with the kernel's C "
          "implementation (the same launch struct, by pointer)", rw));
  g_object_class_install_property (klass, first + K_CPU_SYMBOL,
      string_pspec (K_CPU_SYMBOL, "Kernel CPU symbol", "operation=custom "
          "on the CPU backend: the function in kernel-cpu-library, "
          "int fn (const GstCudaOverlap(Video|Audio)Launch *)", rw));
  g_object_class_install_property (klass, first + K_LAUNCHER,
      g_param_spec_pointer (names[K_LAUNCHER], "Kernel launcher",
          "operation=custom from C: a const GstCudaOverlapKernelLauncher * "
          "(gst/cudaoverlap/cudaoverlap-kernel.h), copied; the element owns "
          "its user_data from then on.  Its functions run each launch "
          "instead of kernel-module (CUDA: on the engine's stream) or "
          "kernel-cpu-library (CPU); NULL: none.  Write-only",
          G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
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

/* kernel-launcher: a copy of the struct, or NULL. */
static GstCudaOverlapCustomChange
set_launcher (GstCudaOverlapCustom * c, GObject * obj, const GValue * value)
{
  const GstCudaOverlapKernelLauncher *l = g_value_get_pointer (value);
  CoCustomLauncher *cl = NULL;
  GError *err = NULL;

  if (l && !(cl = co_custom_launcher_new (l, &err))) {
    GST_WARNING_OBJECT (obj, "kernel-launcher not changed: %s", err->message);
    g_warning ("%s: kernel-launcher not changed: %s",
        G_OBJECT_TYPE_NAME (obj), err->message);
    g_error_free (err);
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  }
  if (!cl && !c->launcher)
    return GST_CUDA_OVERLAP_CUSTOM_UNCHANGED;
  /* an engine that runs the old one holds its own reference */
  co_custom_launcher_unref (c->launcher);
  c->launcher = cl;
  c->gen++;
  return GST_CUDA_OVERLAP_CUSTOM_REBUILD;
}

GstCudaOverlapCustomChange
gst_cuda_overlap_custom_set (GstCudaOverlapCustom * c, GObject * obj,
    GParamSpec * pspec, const GValue * value)
{
  gchar **fields[] = { &c->module, &c->name, NULL, NULL, &c->formats,
    &c->cpu_library, &c->cpu_symbol
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
    c->cpu_library, c->cpu_symbol
  };
  gint k = index_of (pspec);

  if (k == K_LAUNCHER)
    return;                     /* write-only */
  if (k == K_PARAMS)
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
  const gchar *strings[4] = { c->module, c->name, c->cpu_library,
    c->cpu_symbol
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
  const gchar *module = c->spec.module;

  if (backend != CO_BACKEND_CPU || !module || !*module ||
      g_file_test (module, G_FILE_TEST_IS_REGULAR))
    return;
  GST_ELEMENT_WARNING (filter, RESOURCE, NOT_FOUND,
      ("kernel-module \"%s\" is no file: the CPU backend does not use it, "
          "but on a GPU the engine will fail to load it", module),
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
