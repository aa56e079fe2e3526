/* cudaoverlap-bench: what its main file shares with its report
 * (bench-report.c) and its --memory rows (bench-memrows.c): the options,
 * the rows, what the run found.
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
/* cudaoverlap-bench.c: the options, the rows (BenchRow), the state */
extern BenchCustom *custom;
extern gchar *gpu_passport;
extern gboolean have_cuda;
extern gboolean k_overlap;
extern gboolean k_serial;
extern gint opt_check_every;
extern gint opt_chunks;
extern gchar *opt_csv;
extern gchar *opt_format;
extern gint opt_frames;
extern gint opt_height;
extern gchar *opt_label;
extern gint opt_live_frames;
extern gchar *opt_memory;
extern gint opt_streams;
extern gint opt_warmup;
extern gint opt_width;
gboolean peer_choose_caps (void);
void peer_ring_make (void);
extern GArray *rows;
void skipped_row (const gchar * name, const gchar * mode, const gchar * why);
extern gboolean want_mem[BENCH_N_MEM];

/* bench-report.c */
void bench_print_report (FILE * out, const gchar * cmd, gboolean want_cuda);

/* bench-memrows.c: --memory */
void memory_rows (gboolean want_cuda, const gchar * cuda_why);
gboolean parse_memory (void);

G_END_DECLS
#endif
