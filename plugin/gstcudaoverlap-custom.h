/* cudaoverlap: operation=custom's properties, shared by cudavideofilter and
 * cudaaudiofilter (docs/custom-kernels.md).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each element keeps a GstCudaOverlapCustom, installs the kernel-*
 * properties with gst_cuda_overlap_custom_install() at its own property ids
 * from @first on, and hands their values to the functions below, under its
 * object lock.  At configure the properties become a CoCustomSpec for the
 * engine (which loads the kernel) and the CoCustomParams the chunks point
 * at; a change of kernel-params alone is applied without a rebuild.
 */
#ifndef __GST_CUDA_OVERLAP_CUSTOM_H__
#define __GST_CUDA_OVERLAP_CUSTOM_H__

#include <gst/gst.h>
#include "gstcudaoverlapfilter.h"
#include "co-engine.h"
#include "co-custom.h"
#include "co-custom-load.h"

G_BEGIN_DECLS
/* What a property change asks for. */
    typedef enum
{
  GST_CUDA_OVERLAP_CUSTOM_UNCHANGED,
  GST_CUDA_OVERLAP_CUSTOM_PARAMS,       /* new kernel-params: an update */
  GST_CUDA_OVERLAP_CUSTOM_REBUILD,      /* a new kernel: load it again */
  GST_CUDA_OVERLAP_CUSTOM_CAPS, /* new kernel-formats: renegotiate */
} GstCudaOverlapCustomChange;

#define GST_CUDA_OVERLAP_CUSTOM_N_PROPS 10

/* kernel-launcher's boxed type, GstCudaOverlapKernelLauncher
 * (gst/cudaoverlap/cudaoverlap-kernel.h): copies share the user_data,
 * whose destroy runs once, when the last copy is freed. */
GType gst_cuda_overlap_kernel_launcher_get_type (void);

typedef struct
{
  /* properties [O] */
  gchar *module, *name, *cpu_library, *cpu_symbol, *formats;
  gchar *source, *source_file;  /* kernel-source, kernel-source-file */
  guint halo;
  GArray *params;               /* gdouble */
  /* kernel-launcher: a copy of the boxed type, or NULL, and its holder */
  GstCudaOverlapKernelLauncher *launcher_copy;
  CoCustomLauncher *launcher;
  guint gen;                    /* bumped by every REBUILD change */

  /* the engine's, from configure on (streaming thread; updated with no
   * frame in flight) */
  gchar *spec_strings[6];
  CoCustomLauncher *spec_launcher;      /* spec.launcher's reference */
  CoCustomSpec spec;
  guint spec_gen;
  CoCustomParams run;           /* the chunks point at it */
} GstCudaOverlapCustom;

void gst_cuda_overlap_custom_init (GstCudaOverlapCustom * c);
void gst_cuda_overlap_custom_clear (GstCudaOverlapCustom * c);

/* Installs the kernel-* properties at ids @first .. @first + N_PROPS - 1;
 * @audio: cudaaudiofilter's wording and halo range. */
void gst_cuda_overlap_custom_install (GObjectClass * klass, guint first,
    gboolean audio);
/* Whether @pspec is one of them. */
gboolean gst_cuda_overlap_custom_owns (GParamSpec * pspec);
/* set_property for @pspec (one of ours) of @filter: takes the object lock,
 * sets it and, when @active (operation=custom), asks for what it changed:
 * an update, a rebuild, or (kernel-formats) a RECONFIGURE upstream. */
void gst_cuda_overlap_custom_set_property (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, gboolean active, GParamSpec * pspec,
    const GValue * value);
/* get_property for @pspec (one of ours): takes the object lock. */
void gst_cuda_overlap_custom_get_property (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, GParamSpec * pspec, GValue * value);
/* With the object lock.  Sets the property of @pspec; what it changed. */
GstCudaOverlapCustomChange gst_cuda_overlap_custom_set (GstCudaOverlapCustom *
    c, GObject * obj, GParamSpec * pspec, const GValue * value);
void gst_cuda_overlap_custom_get (GstCudaOverlapCustom * c,
    GParamSpec * pspec, GValue * value);

/* With the object lock, at configure for operation=custom: checks
 * @format_name against kernel-formats (empty: a video format of ABI
 * version 1, @abi_format GRAY8 .. I420), fills the running parameters (but
 * for the geometry, which the element adds) and points cfg->custom at the
 * spec.  FALSE with @error (CO_ENGINE_ERROR_CONFIG) when the format is not
 * one the kernel takes. */
gboolean gst_cuda_overlap_custom_configure (GstCudaOverlapCustom * c,
    const gchar * format_name, guint32 abi_format, gboolean audio,
    CoEngineConfig * cfg, GError ** error);
/* With the object lock, in update: TRUE (the new kernel-params copied into
 * the running parameters) when nothing but kernel-params changed since
 * configure. */
gboolean gst_cuda_overlap_custom_update (GstCudaOverlapCustom * c);
/* After a build on @backend: on the CPU backend, which never reads
 * kernel-module (or kernel-source-file), a warning when it names no
 * readable file (a GPU would fail to load it). */
void gst_cuda_overlap_custom_check_built (GstCudaOverlapCustom * c,
    GstCudaOverlapFilter * filter, CoBackendKind backend);
/* With the object lock: @media ("video/x-raw") in the formats of
 * kernel-formats; when it names none, video in the formats of ABI
 * version 1 (GRAY8 .. I420), and NULL (every format) for audio. */
GstCaps *gst_cuda_overlap_custom_allowed_caps (GstCudaOverlapCustom * c,
    const gchar * media);

/* The numbers of a GstValueArray as doubles: @min .. @max of them, each
 * finite and at most @limit in magnitude; NULL with *@why (free it). */
GArray *gst_cuda_overlap_doubles_from_value (const GValue * value, guint min,
    guint max, gdouble limit, gchar ** why);
/* @doubles appended to the GstValueArray @value. */
void gst_cuda_overlap_doubles_to_value (GArray * doubles, GValue * value);

G_END_DECLS
#endif
