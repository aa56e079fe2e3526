/* cudaoverlap-check: what its parts share (the options, the input rings,
 * one pipeline run and its result, the summary of verdicts).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudaoverlap-check.c  the options, main and the summary
 * check-run.c          the input rings, one pipeline run (RunSpec, RunResult)
 * check-report.c       the lines and tables every part prints
 * check-video.c        --video: serial vs overlap vs CUPTI, outputs vs CPU
 * check-memory.c       --memory: the copies of the CUDA-memory paths, CUPTI
 * check-audio.c        --audio and --taps-sweep
 * check-cupti.c        CUPTI's activity records
 */
#ifndef __CHECK_H__
#define __CHECK_H__

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#include "tool-common.h"
#include "tool-cuda.h"
#include "check-cupti.h"
#include "co-intervals.h"

#define RING 8
#define VIDEO_WARMUP 20
#define AUDIO_WARMUP 10
#define VIDEO_KEEP 3
#define AUDIO_KEEP 2
#define AUDIO_RATE 48000
#define AUDIO_MAX_REL_L2 1e-5
#define CUPTI_TOL 0.10
#define EFF_ABS_FLOOR 0.01
#define SERIAL_EFF_MAX 0.05
#define OVERLAP_EFF_MIN 0.8
#define AUDIO_SPEEDUP_MIN 1.4
#define WAIT_START_US (60 * G_USEC_PER_SEC)
#define WAIT_END_US (600 * G_USEC_PER_SEC)
#define SEED G_GUINT64_CONSTANT (0x5eed)

G_BEGIN_DECLS typedef struct
{
  gsize size;
  guint8 *data[RING];           /* malloc()ed, random */
  GstMemory *mem[RING];         /* each wrapped once, for the whole program */
} HostRing;

enum
{
  V_NA, V_INFO, V_PASS, V_FAIL
};

typedef struct
{
  gchar check[80];
  gchar value[200];
  gchar threshold[40];
  gint verdict;
} SumRow;

typedef struct
{
  const gchar *name;            /* for messages: "video overlap timed" */
  gboolean audio;
  gboolean serial;
  const gchar *backend;
  guint streams, chunks;
  guint n;                      /* buffers pushed, the first one included */
  guint keep;                   /* refs kept to the first outputs */
  gboolean cupti;               /* record with CUPTI when on CUDA */
  guint n_taps;                 /* audio */
  const gdouble *taps;
  const gchar *memory;          /* video: NULL (system memory), "cuda-in",
                                 * "cuda-out" */
  gboolean app_pinned;          /* cuda-in: input from pring, not vring */
} RunSpec;

typedef struct
{
  gboolean ok;
  gchar *error;
  GstStructure *whole;          /* the whole-run cudaoverlap-stats */
  GstStructure *passport;       /* the latest cudaoverlap-passport */
  gchar *input_note;
  guint got;
  gdouble wall_s;               /* push of buffer 2 to the last output */
  gdouble rate;                 /* buffers 2..n per second of wall_s */
  gdouble rate_all;             /* all n, first push to the last output */
  gdouble elapsed_s;            /* the whole run, set-up included */
  GstBuffer **kept;
  guint n_kept;
  gboolean cupti_ok;
  gchar *cupti_why;
  CoStatsSummary cupti;
  guint64 cupti_records;
  BenchCuptiDetail detail;      /* CUPTI's records themselves */
} RunResult;

/* cudaoverlap-check.c: the options */
extern gchar *opt_backend;
extern gint opt_buffers;
extern gint opt_channels;
extern gint opt_chunks;
extern gint opt_cpu_buffers;
extern gboolean opt_cupti;
extern gint opt_frames;
extern gint opt_height;
extern gchar *opt_memory;
extern gchar *opt_props;
extern gint opt_radius;
extern gint opt_samples;
extern gint opt_streams;
extern gint opt_taps;
extern gint opt_width;
extern gchar **props_argv;

/* check-run.c */
extern GstCaps *acaps;
extern GstClockTime adur;
extern HostRing aring;
extern gchar *cuda_why;
extern gboolean failed_check;
extern gboolean failed_perf;
extern gboolean have_cuda;
void host_ring_clear (HostRing * r);
void host_ring_init (HostRing * r, gsize size, gboolean floats, guint64 seed);
gdouble *make_taps (guint n);
void pinned_ring_clear (void);
gboolean pinned_ring_init (gchar ** why);
gboolean props_custom (void);
const gchar *props_get (const gchar * key);
gboolean run_pipeline (const RunSpec * sp, RunResult * res);
void run_result_clear (RunResult * r);
void
sum_add (gint verdict, const gchar * check, const gchar * threshold,
    const gchar * fmt, ...)
G_GNUC_PRINTF (4, 5);
     extern GArray *summary;
     extern GstCaps *vcaps;
     extern GstClockTime vdur;
     extern const gchar *verdict_names[];
     extern GstVideoInfo vinfo;
     extern HostRing vring;

/* check-report.c */
     void note_verdict (gint v);
     gboolean on_cuda (const RunResult * r);
     gint print_cupti_table (const RunResult * r, gchar * worst,
    gsize worst_size);
     void print_run_line (const RunResult * r);
     gdouble stat_dbl (const GstStructure * s, const gchar * f);
     const gchar *stat_str (const GstStructure * s, const gchar * f);

/* check-video.c */
     gchar *kernel_names (const BenchCuptiDetail * d, const gchar * want,
    guint * matched);
     void run_video (void);
     void video_check_outputs (const RunResult * t, const gchar * label);
     gchar *video_op_desc (void);
     void video_setup (void);
     extern RunResult vref;

/* check-memory.c */
     void run_memory (void);

/* check-audio.c */
     void run_audio (void);
     void run_sweep (void);

G_END_DECLS
#endif
