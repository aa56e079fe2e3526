/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * co-test-video: what the cudavideofilter suites (test-video-*.c) share:
 * the operations and input layouts they run, random input pictures and
 * their expected output from the independent reference (co-reference.c),
 * harnesses that the fixture tears down when a test fails half-way, and
 * the programs' main().
 *
 * Environment (every test-video-* program):
 *   CO_TEST_BACKEND  "cpu" (default) or "cuda".  With "cuda" the program
 *                    runs every test in one process (CK_FORK=no: CUDA does
 *                    not survive fork) and exits 77 (skipped) with the reason
 *                    on stderr when no CUDA device is usable.
 *   CO_TEST_SEED     base seed of the random pictures (default 0x5eed2024);
 *                    every failure message prints the seed of its test.
 *   CO_TEST_FULL     "1": the whole streams x chunks matrix at 640x480 too.
 *   CO_TEST_LEAKS    "0": no leak check.  Otherwise, unless GST_TRACERS is
 *                    already set, the leaks tracer is enabled and every test
 *                    fails when GstObjects or GstMiniObjects it created are
 *                    still alive after it.
 *   GST_CHECKS       the usual gst-check glob of test names to run.
 */
#ifndef __CO_TEST_VIDEO_H__
#define __CO_TEST_VIDEO_H__

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "co-reference.h"
#include "co-test-util.h"
#include "co-test-meta.h"
#include "co-test-fault.h"

G_BEGIN_DECLS
#define CO_TEST_VIDEO_ELEMENT "cudavideofilter"
/* An operation and its parameters */
    typedef struct
{
  CoRefOp op;
  gdouble gamma;
  guint radius;
} OpCfg;

/* A picture size */
typedef struct
{
  guint w, h;
} Size;

/* Input layout: 0/0/FALSE = no GstVideoMeta, default strides. */
typedef struct
{
  gint stride_pad;              /* added to every default stride */
  gsize offset0;                /* offset of plane 0 */
  gsize plane_gap;              /* bytes between the end of a plane and the next */
  gsize tail;                   /* bytes after the last plane */
  gboolean meta;
  gboolean tight;               /* strides = visible row bytes (stride_pad unused) */
  gboolean split;               /* several GstMemory: one per plane with meta,
                                 * three arbitrary pieces without */
  gboolean trim;                /* with meta: the buffer ends right after the
                                 * visible bytes of the last plane's last row */
} Layout;

/* A run of 2 x batch + 1 frames: op index, format, size, batch, run config,
 * input layout (layout_padded or layout_default), submit thread. */
typedef struct
{
  guint op;
  GstVideoFormat format;
  guint w, h, batch, run;
  gboolean padded, submit_thread;
} BatchCase;

#define N_OPS 9
/* co_ref_formats(): the first N_FORMATS (those of the custom kernels' ABI
 * version 1) run the full tables; the N_MORE_FORMATS after them a subset
 * of each (every operation, size, layout and engine setting still
 * reached) */
#define N_FORMATS 12
#define N_MORE_FORMATS 14
#define N_ALL_FORMATS (N_FORMATS + N_MORE_FORMATS)
#define N_SMALL_SIZES 6

/* invert; gamma 0.45, 2.2, 1.0; box-blur radius 0, 1, 2, 7, 32 */
extern const OpCfg op_cfgs[N_OPS];
/* 1x1 up to 33x17, single rows and columns */
extern const Size small_sizes[N_SMALL_SIZES];
extern const Layout layout_default;
/* GstVideoMeta, strides + 64, plane 0 at 128, 64 bytes between planes */
extern const Layout layout_padded;

/* co_ref_formats()[@i] */
GstVideoFormat format_at (guint i);
/* "gamma gamma=2.2" and so on (free it) */
gchar *op_desc (const OpCfg * op);

/* Harnesses.  make_harness() registers the harness with the fixture:
 * teardown_harness() ends it; the fixture's leaks_teardown() ends what a
 * failed test left, then checks for leaks. */
GstElement *make_element (const OpCfg * op, const RunCfg * run);
GstHarness *make_harness (const OpCfg * op, const RunCfg * run);
void teardown_harness (GstHarness * h);
/* For a harness whose element posts on a bus of the test's: both */
void teardown_harness_with_bus (GstHarness * h, GstBus * bus);
void leaks_teardown (void);

/* Caps of @format @w x @h at 30/1 (and @info filled in) */
GstCaps *caps_of (GstVideoFormat format, guint w, guint h, GstVideoInfo * info);

/* Pictures: a fresh random input laid out as @lay; the reference's output
 * for @in (default layout); @out compared with @exp (fails naming @ctx). */
GstBuffer *make_input (GRand * rand, const GstVideoInfo * info,
    const Layout * lay);
GstBuffer *make_expected (const OpCfg * op, GstBuffer * in,
    const GstVideoInfo * info);
gchar *describe_buffer (GstBuffer * buf);
void check_output (GstBuffer * out, GstBuffer * exp, const GstVideoInfo * info,
    const gchar * ctx);
void check_output_caps (GstHarness * h, const GstVideoInfo * info,
    const gchar * ctx);

/* Pushes a new random picture; queues its expected output (with its PTS) */
void push_frame (GstHarness * h, GRand * rand, const GstVideoInfo * info,
    const OpCfg * op, const Layout * lay, GstClockTime pts, GQueue * pending,
    const gchar * ctx);
/* Pulls the next output and compares it with the head of @pending */
void pull_and_check (GstHarness * h, const GstVideoInfo * info,
    GQueue * pending, const gchar * ctx);
/* One configuration: a harness, @n_frames pictures pushed all at once then
 * pulled (or one by one when @interleave), every output compared. */
void run_config (const OpCfg * op, const RunCfg * run, GstVideoFormat format,
    guint w, guint hgt, const Layout * lay, guint n_frames,
    gboolean interleave, GRand * rand, guint32 seed);

/* Records what leaves the element's src pad, in order (buffers, events) */
typedef struct
{
  GMutex lock;
  GPtrArray *items;             /* gchar*: "B <pts>", "E <event name>" */
} Recorder;

Recorder *recorder_attach (GstHarness * h);
/* one line per item (free it) */
gchar *recorder_dump (Recorder * r);
void recorder_free (Recorder * r);

/* The programs' main(): the environment, the CUDA probe, then @suite
 * named @name; returns the exit status. */
int co_test_video_main (int argc, char **argv, const gchar * name,
    Suite * (*suite) (void));

G_END_DECLS
#endif
