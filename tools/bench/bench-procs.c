/* cudaoverlap-bench: several pipelines at once, each in its own process
 * (--processes).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * --processes N: the row of --pipelines N, but each pipeline in a child
 * process of its own.  The parent re-executes the bench (/proc/self/exe)
 * once per process, with the row's options and the hidden
 * --child-of-processes K; never a fork without exec: a CUDA context does
 * not survive fork.  The children's stderr is the parent's; the protocol is
 * one line at a time on each child's stdin and stdout:
 *
 *   child   builds and warms its pipeline (a warm-up run, as --pipelines'
 *           process does before its pipelines), then the timed run's
 *           pipeline primes (one frame, waited for)
 *   child   "ready" (or "not-ready": the priming failed)
 *   parent  "start" to every child at once, once all are ready; if one is
 *           not ready in READY_WAIT, crashed or said not-ready, it kills
 *           those not ready yet and closes the ready ones' stdin instead:
 *           they exit with status 3
 *   child   pushes its timed frames, every output checked as in any row
 *   child   "note<TAB>TEXT" per line of its log, then "row<TAB>KEY=VALUE
 *           <TAB>..." (row_fields: frames, first push and last output on
 *           CLOCK_MONOTONIC, which the processes of one host share, frames/s,
 *           latency percentiles, CPU time per frame of that process, the
 *           check, the input), then exits (0, or 1 when anything failed)
 *
 * The parent waits RUN_WAIT at most (frames-dependent) for every child's
 * row and exit; past a wait it kills the children left (SIGKILL) and says
 * which.  A row per process and the aggregate (bench_aggregate); a process
 * without a row, killed by a signal or ending non-zero makes its row and
 * the aggregate invalid.  A child dies with the parent (PR_SET_PDEATHSIG).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tool-common.h"
#include "bench-gst.h"

#define READY_WAIT_US (60 * G_USEC_PER_SEC)
/* the run: a minute, and 50 ms per frame of every process */
#define RUN_WAIT_US(frames, n) \
  ((60 + (gint64) (frames) * (n) / 20) * G_USEC_PER_SEC)
#define REAP_WAIT_US (5 * G_USEC_PER_SEC)

/* ---- the row line -------------------------------------------------------- */

typedef enum
{
  F_UINT,
  F_U64,
  F_DOUBLE,
  F_BOOL,
  F_STRING
} FieldType;

static const struct
{
  const gchar *key;
  FieldType type;
  gsize offset, size;
} row_fields[] = {
  {"frames", F_UINT, G_STRUCT_OFFSET (BenchRow, frames), 0},
  {"t0-ns", F_U64, G_STRUCT_OFFSET (BenchRow, t0_ns), 0},
  {"t1-ns", F_U64, G_STRUCT_OFFSET (BenchRow, t1_ns), 0},
  {"fps", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, fps), 0},
  {"gbps", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, gbps), 0},
  {"lat-p50-ms", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, p50_ms), 0},
  {"lat-p99-ms", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, p99_ms), 0},
  {"overlap-eff", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, eff), 0},
  {"cpu-ms", F_DOUBLE, G_STRUCT_OFFSET (BenchRow, cpu_ms), 0},
  {"streams", F_UINT, G_STRUCT_OFFSET (BenchRow, streams), 0},
  {"chunks", F_UINT, G_STRUCT_OFFSET (BenchRow, chunks), 0},
  {"checked", F_U64, G_STRUCT_OFFSET (BenchRow, checked), 0},
  {"bad", F_U64, G_STRUCT_OFFSET (BenchRow, bad), 0},
  {"invalid", F_BOOL, G_STRUCT_OFFSET (BenchRow, invalid), 0},
  {"check", F_STRING, G_STRUCT_OFFSET (BenchRow, check),
      G_SIZEOF_MEMBER (BenchRow, check)},
  {"input", F_STRING, G_STRUCT_OFFSET (BenchRow, input),
      G_SIZEOF_MEMBER (BenchRow, input)},
  {"host-memory", F_STRING, G_STRUCT_OFFSET (BenchRow, hostmem),
      G_SIZEOF_MEMBER (BenchRow, hostmem)},
};

/* "row<TAB>KEY=VALUE..." of @r, without the newline; doubles in the C
 * locale ("nan" for none). */
static gchar *
row_line (const BenchRow * r)
{
  GString *s = g_string_new ("row");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (row_fields); i++) {
    gconstpointer p = G_STRUCT_MEMBER_P (r, row_fields[i].offset);
    gchar d[G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append_printf (s, "\t%s=", row_fields[i].key);
    switch (row_fields[i].type) {
      case F_UINT:
        g_string_append_printf (s, "%u", *(const guint *) p);
        break;
      case F_U64:
        g_string_append_printf (s, "%" G_GUINT64_FORMAT, *(const guint64 *) p);
        break;
      case F_DOUBLE:
        g_string_append (s, g_ascii_dtostr (d, sizeof (d), *(const gdouble *)
                p));
        break;
      case F_BOOL:
        g_string_append (s, *(const gboolean *) p ? "1" : "0");
        break;
      case F_STRING:
        g_string_append (s, (const gchar *) p);
        break;
    }
  }
  return g_string_free (s, FALSE);
}

/* Fills @r from the fields of a row line (after "row<TAB>").  FALSE if a
 * field is missing. */
static gboolean
row_parse (const gchar * fields, BenchRow * r)
{
  gchar **kv = g_strsplit (fields, "\t", -1);
  guint i, k, found = 0;

  for (i = 0; kv[i]; i++) {
    gchar *eq = strchr (kv[i], '='), *v;
    gpointer p;

    if (!eq)
      continue;
    *eq = '\0';
    v = eq + 1;
    for (k = 0; k < G_N_ELEMENTS (row_fields) &&
        strcmp (kv[i], row_fields[k].key); k++);
    if (k == G_N_ELEMENTS (row_fields))
      continue;
    found++;
    p = G_STRUCT_MEMBER_P (r, row_fields[k].offset);
    if (row_fields[k].type == F_UINT)
      *(guint *) p = g_ascii_strtoull (v, NULL, 10);
    else if (row_fields[k].type == F_U64)
      *(guint64 *) p = g_ascii_strtoull (v, NULL, 10);
    else if (row_fields[k].type == F_DOUBLE)
      *(gdouble *) p = g_ascii_strtod (v, NULL);
    else if (row_fields[k].type == F_BOOL)
      *(gboolean *) p = !strcmp (v, "1");
    else
      g_strlcpy (p, v, row_fields[k].size);
  }
  g_strfreev (kv);
  return found == G_N_ELEMENTS (row_fields);
}

/* ---- the child ----------------------------------------------------------- */

/* The start hook of the child's timed run: ready, then the parent's start;
 * without it (the parent closed our stdin: it aborts), exit 3. */
static void
child_start (gboolean primed, gpointer data)
{
  gchar line[32];

  printf ("%s\n", primed ? "ready" : "not-ready");
  fflush (stdout);
  if (!primed)
    return;
  if (!fgets (line, sizeof (line), stdin) || strcmp (line, "start\n")) {
    fprintf (stderr, "[bench] %s: no start from the parent (it aborted "
        "the run): exiting\n", (const gchar *) data);
    fflush (stderr);
    _exit (3);
  }
}

int
bench_process_child (const BenchRunSpec * spec, guint warmup, guint k,
    guint n, const gchar * mode)
{
  BenchRunSpec sp = *spec, warm = *spec;
  BenchRow row;
  gchar **notes, *line, name[24];
  guint i;

  warm.frames = MAX (warmup, 1);
  if (!bench_run_pipeline (&warm, NULL, NULL))
    bench_note ("the warm-up run failed");
  g_snprintf (name, sizeof (name), "process %u/%u", k, n);
  sp.start_hook = child_start;
  sp.start_data = name;
  bench_row_init (&row, name, mode, bench_input_names[sp.input], sp.streams,
      sp.chunks);
  row.frames = sp.frames;
  bench_run_pipeline (&sp, &row, NULL);
  notes = g_strsplit (bench_note_log (), "\n", -1);
  for (i = 0; notes[i]; i++)
    if (*notes[i])
      printf ("note\t%s\n", notes[i]);
  g_strfreev (notes);
  line = row_line (&row);
  printf ("%s\n", line);
  fflush (stdout);
  g_free (line);
  return row.invalid || bench_gst.failed ? 1 : 0;
}

/* ---- the parent ---------------------------------------------------------- */

typedef struct
{
  guint k, n;                   /* process k of n */
  GPid pid;                     /* 0: not spawned or reaped */
  gint in_fd, out_fd;           /* -1: closed */
  GString *buf;                 /* what came on stdout, up to a newline */
  gboolean ready, not_ready, have_row;
  gint status;                  /* waitpid's, once reaped */
  BenchRow row;
  gchar why[96];                /* the first thing that went wrong */
} Child;

/* Records the first thing that went wrong with @c. */
static void
child_fail (Child * c, const gchar * fmt, ...)
{
  va_list ap;

  if (c->why[0])
    return;
  va_start (ap, fmt);
  g_vsnprintf (c->why, sizeof (c->why), fmt, ap);
  va_end (ap);
}

/* In the child, between fork and exec: it dies with the parent (with the
 * thread that spawned it, the main one). */
static void
child_setup (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static gboolean
child_spawn (Child * c, const gchar * const *argv)
{
  guint len = g_strv_length ((gchar **) argv), i;
  gchar **a = g_new0 (gchar *, len + 2);
  GError *err = NULL;
  gboolean ok;

  for (i = 0; i < len; i++)
    a[i] = (gchar *) argv[i];
  a[len] = g_strdup_printf ("--child-of-processes=%u", c->k);
  ok = g_spawn_async_with_pipes (NULL, a, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
      child_setup, NULL, &c->pid, &c->in_fd, &c->out_fd, NULL, &err);
  if (!ok) {
    child_fail (c, "not started: %s", err->message);
    c->pid = 0;
    c->in_fd = c->out_fd = -1;
    g_clear_error (&err);
  }
  g_free (a[len]);
  g_free (a);
  return ok;
}

/* One line from the child's stdout. */
static void
child_line (Child * c, const gchar * line)
{
  if (!strcmp (line, "ready"))
    c->ready = TRUE;
  else if (!strcmp (line, "not-ready")) {
    c->not_ready = TRUE;
    child_fail (c, "its pipeline did not prime");
  } else if (g_str_has_prefix (line, "note\t")) {
    gchar *s = g_strdup_printf ("process %u/%u: %s", c->k, c->n, line + 5);

    bench_note_quiet (s);       /* on stderr already, from the child */
    g_free (s);
  } else if (g_str_has_prefix (line, "row\t"))
    c->have_row = row_parse (line + 4, &c->row);
  else
    fprintf (stderr, "[bench] process %u/%u: %s\n", c->k, c->n, line);
}

/* Reads what the child wrote; at its end, closes the pipe. */
static void
child_read (Child * c)
{
  gchar data[4096], *nl;
  gssize got = read (c->out_fd, data, sizeof (data));

  if (got < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (got <= 0) {
    close (c->out_fd);
    c->out_fd = -1;
    return;
  }
  g_string_append_len (c->buf, data, got);
  while ((nl = memchr (c->buf->str, '\n', c->buf->len))) {
    *nl = '\0';
    child_line (c, c->buf->str);
    g_string_erase (c->buf, 0, nl - c->buf->str + 1);
  }
}

/* Reads the children's lines until @done holds for each, @stop (if set)
 * for one, or the deadline (g_get_monotonic_time); TRUE when @done holds for
 * each. */
static gboolean
children_poll (Child * c, guint n, gint64 deadline,
    gboolean (*done) (const Child * c), gboolean (*stop) (const Child * c))
{
  struct pollfd *fds = g_new0 (struct pollfd, n);
  guint *who = g_new0 (guint, n);
  gboolean all = FALSE, stopped = FALSE;
  guint i, m;

  while (!all && !stopped) {
    gint64 left = deadline - g_get_monotonic_time ();

    for (i = m = 0; i < n; i++)
      if (!done (&c[i]) && c[i].out_fd >= 0) {
        fds[m].fd = c[i].out_fd;
        fds[m].events = POLLIN;
        fds[m].revents = 0;
        who[m++] = i;
      }
    all = m == 0;
    if (all || left <= 0)
      break;
    if (poll (fds, m, MIN (left / 1000 + 1, 1000)) < 0 && errno != EINTR)
      break;
    /* only those with something to read (or at their end): no read blocks */
    for (i = 0; i < m; i++)
      if (fds[i].revents)
        child_read (&c[who[i]]);
    for (i = 0; i < n; i++)
      stopped |= stop && stop (&c[i]);
  }
  g_free (who);
  g_free (fds);
  return all;
}

static gboolean
done_ready (const Child * c)
{
  return c->ready || c->not_ready || c->out_fd < 0;
}

/* it will not be ready: said so, or its output ended */
static gboolean
failed_ready (const Child * c)
{
  return c->not_ready || (!c->ready && c->out_fd < 0);
}

static gboolean
done_eof (const Child * c)
{
  return c->out_fd < 0;
}

/* Sends "start" to every child, or (@go FALSE) closes their stdin. */
static void
children_start (Child * c, guint n, gboolean go)
{
  void (*old) (int) = signal (SIGPIPE, SIG_IGN);
  guint i;

  for (i = 0; i < n; i++) {
    if (c[i].in_fd < 0)
      continue;
    if (go && write (c[i].in_fd, "start\n", 6) != 6)
      child_fail (&c[i], "could not be started (%s)", g_strerror (errno));
    close (c[i].in_fd);
    c[i].in_fd = -1;
  }
  signal (SIGPIPE, old);
}

/* Kills the children for which @done does not hold (at a deadline). */
static void
children_kill (Child * c, guint n, gboolean (*done) (const Child * c),
    const gchar * what)
{
  guint i;

  for (i = 0; i < n; i++)
    if (c[i].pid && !done (&c[i])) {
      child_fail (&c[i], "%s: killed", what);
      kill (c[i].pid, SIGKILL);
      if (c[i].out_fd >= 0)
        close (c[i].out_fd);
      c[i].out_fd = -1;
    }
}

/* Waits for each child's exit (after its stdout closed), REAP_WAIT at
 * most, then kills it. */
static void
children_reap (Child * c, guint n)
{
  gint64 deadline = g_get_monotonic_time () + REAP_WAIT_US;
  guint i;

  for (i = 0; i < n; i++) {
    pid_t r = -1;

    while (c[i].pid && (r = waitpid (c[i].pid, &c[i].status, WNOHANG)) == 0 &&
        g_get_monotonic_time () < deadline)
      g_usleep (10000);
    if (c[i].pid && r == 0) {
      child_fail (&c[i], "did not exit after its output: killed");
      kill (c[i].pid, SIGKILL);
      waitpid (c[i].pid, &c[i].status, 0);
    }
    if (!c[i].pid)
      continue;
    if (WIFSIGNALED (c[i].status))
      child_fail (&c[i], "killed by signal %d (%s)", WTERMSIG (c[i].status),
          g_strsignal (WTERMSIG (c[i].status)));
    else if (WIFEXITED (c[i].status) && WEXITSTATUS (c[i].status) == 3)
      child_fail (&c[i], "not started (the run was aborted)");
    else if (!c[i].have_row)
      child_fail (&c[i], "exit status %d without its row",
          WEXITSTATUS (c[i].status));
    else if (WEXITSTATUS (c[i].status))
      child_fail (&c[i], "exit status %d", WEXITSTATUS (c[i].status));
    g_spawn_close_pid (c[i].pid);
    c[i].pid = 0;
  }
}

/* The child's row as the parent reports it. */
static void
child_row (Child * c, const BenchRunSpec * sp, const gchar * mode,
    GArray * rows)
{
  BenchRow r = c->row;
  gchar name[24];

  g_snprintf (name, sizeof (name), "process %u/%u", c->k, c->n);
  if (!c->have_row) {
    bench_row_init (&r, name, mode, bench_input_names[sp->input], 0, 0);
    r.frames = sp->frames;
    r.invalid = TRUE;
  }
  g_strlcpy (r.name, name, sizeof (r.name));
  g_strlcpy (r.mode, mode, sizeof (r.mode));
  if (c->why[0]) {
    r.invalid = TRUE;
    if (!c->have_row || !g_str_has_prefix (r.check, "INVALID"))
      g_snprintf (r.check, sizeof (r.check), "INVALID: %s", c->why);
    bench_note ("processes: process %u/%u: %s", c->k, c->n, c->why);
  }
  g_array_append_val (rows, r);
}

gboolean
bench_run_processes (const BenchRunSpec * sp, guint n, const gchar * mode,
    const gchar * const *argv, GArray * rows)
{
  Child *c = g_new0 (Child, n);
  gboolean ready = TRUE, ok;
  gint64 deadline;
  guint i;

  for (i = 0; i < n; i++) {
    c[i].k = i + 1;
    c[i].n = n;
    c[i].buf = g_string_new (NULL);
    bench_row_init (&c[i].row, "process", mode, "-", 0, 0);
    ready &= child_spawn (&c[i], argv);
  }
  deadline = g_get_monotonic_time () + READY_WAIT_US;
  if (ready)
    children_poll (c, n, deadline, done_ready, failed_ready);
  for (i = 0; i < n; i++)
    ready &= c[i].ready;
  /* the ready ones will see their stdin close and exit */
  if (!ready)
    children_kill (c, n, done_ready, g_get_monotonic_time () >= deadline ?
        "not ready within 60 s" : "not ready when the run was aborted");
  fprintf (stderr, "[bench] %s: %s\n", mode, ready ? "all ready, started" :
      "not all ready: aborted");
  children_start (c, n, ready);
  if (!children_poll (c, n, g_get_monotonic_time () + RUN_WAIT_US (sp->frames,
              n), done_eof, NULL))
    children_kill (c, n, done_eof, "no row in time");
  children_reap (c, n);
  for (i = 0; i < n; i++) {
    child_row (&c[i], sp, mode, rows);
    g_string_free (c[i].buf, TRUE);
  }
  ok = bench_aggregate (rows, n, "processes", "process");
  g_free (c);
  return ok;
}
