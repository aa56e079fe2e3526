/* cudaoverlap-bench: what its main file shares with its other rows
 * (bench-rows.c), its --memory rows (bench-memrows.c) and its report
 * (bench-report.c): the options, the rows, what the run found.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __BENCH_CLI_H__
#define __BENCH_CLI_H__

#include <stdio.h>

#include "bench-gst.h"
#include "tool-common.h"

G_BEGIN_DECLS
/* outputs per input compared byte by byte before the timed rows */
#define VERIFY_FRAMES 32
/* cudaoverlap-bench.c: the options (see --help) */
extern gint opt_width, opt_height, opt_frames;
extern gint opt_warmup, opt_streams, opt_chunks;
extern gint opt_live_frames;
extern gchar *opt_format, *opt_backend, *opt_only, *opt_csv, *opt_op;
extern gchar *opt_props, *opt_input, *opt_memory;
extern gboolean opt_sweep, opt_defaults, opt_first_frame, opt_context_ms;
extern gdouble opt_live;
extern gint opt_pipelines, opt_processes, opt_child;
extern gboolean opt_warm_one, opt_control, opt_gamma_ramp;
extern gint opt_slots, opt_check_every;
extern gint opt_raw_frames, opt_raw_warmup;
extern gchar *opt_label;

/* cudaoverlap-bench.c: the state: whether CUDA is there, the rows
 * (BenchRow), the --op custom kernel, the kinds of rows and the inputs
 * asked for (--only, --input, --memory) */
extern gboolean have_cuda;
extern gchar *gpu_passport;
extern GArray *rows;
extern BenchCustom *custom;
extern gboolean k_raw, k_serial, k_overlap, k_peer, in_use[BENCH_N_INPUTS];
extern gboolean want_mem[BENCH_N_MEM];

/* cudaoverlap-bench.c: a row of @sp (its warm-up run, then the timed one);
 * a skipped row; the peer's caps and its own copy of the ring */
void pipeline_row (const gchar * name, BenchRunSpec sp);
void skipped_row (const gchar * name, const gchar * mode, const gchar * why);
gboolean peer_choose_caps (void);
void peer_ring_make (void);

/* bench-rows.c: the raw, memcpy, concurrent, process and first-frame
 * rows */
void app_ring_make (void);
int child_main (void);
void extra_rows (void);
void first_frame_rows (const gchar * argv0, gboolean want_cuda);
void memcpy_rows (void);
void raw_rows (void);

/* bench-report.c */
void bench_print_report (FILE * out, const gchar * cmd, gboolean want_cuda);

/* bench-memrows.c: --memory */
void memory_rows (gboolean want_cuda, const gchar * cuda_why);
gboolean parse_memory (void);

G_END_DECLS
#endif
