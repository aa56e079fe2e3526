/* cudaoverlap-bench: frames, reference, checksum, clocks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The sampled checksum of a frame (bench_checksum) covers picture bytes
 * only (never the padding past the last pixel of a row, which the kernels
 * leave untouched).  Per plane, with R = its row bytes (width x components
 * x bytes per component), runs of 256 bytes (run j: bytes [256 j,
 * min (256 j + 256, R)) of a row), nr = ceil (R / 256) runs per row and
 * k = max (1, 64 / nr):
 *  - its first and its last row, whole;
 *  - in every other row y with y % k == 0, run (y / k) % nr: one run per
 *    sampled row, the run moving right by one per sampled row, so every
 *    column is sampled every nr sampled rows.
 * That reads about 1/64 of the picture (every row when a row has 64 runs
 * or more, e.g. 4K RGBA: 256 of each row's 15360 bytes), one page or two
 * per sampled row, which keeps it cheap (TLB and cache misses dominate).
 * Each sampled piece is hashed by a multiply-add mix of its little-endian
 * 8-byte words, seeded with its position (plane, row, block); see
 * hash_piece.  The pieces are chained in order by 64-bit FNV-1a steps
 * (total = (total ^ piece) * FNV prime).  About 1/64 of the picture is
 * read, in every band of 64 rows or more.
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
#include <sys/resource.h>
#include <pthread.h>

#include "bench.h"

#define FNV_BASIS G_GUINT64_CONSTANT (0xcbf29ce484222325)
#define FNV_PRIME G_GUINT64_CONSTANT (0x100000001b3)
#define PREFETCH_ROWS 16
#define RUN 256

static gsize
row_bytes (const BenchPlane * p)
{
  return (gsize) p->width * p->comps * p->comp_bytes;
}

void
bench_frames_init (BenchFrames * f, guint64 seed)
{
  guint i;
  guint8 *tmp = g_malloc (f->lay.size);

  for (i = 0; i < BENCH_RING; i++) {
    guint64 s = seed ^ (G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) * (i + 1));
    gsize k;

    f->ring[i] = malloc (f->lay.size);
    if (!f->ring[i])
      g_error ("out of memory (%" G_GSIZE_FORMAT " bytes)", f->lay.size);
    /* xorshift64*: random bytes, different in every frame */
    for (k = 0; k + 8 <= f->lay.size; k += 8) {
      guint64 w;

      s ^= s >> 12;
      s ^= s << 25;
      s ^= s >> 27;
      w = s * G_GUINT64_CONSTANT (0x2545f4914f6cdd1d);
      memcpy (f->ring[i] + k, &w, 8);
    }
    for (; k < f->lay.size; k++)
      f->ring[i][k] = (guint8) (k * 31 + i);
    bench_invert_ref (&f->lay, f->ring[i], tmp);
    f->sum_inv[i] = bench_checksum_packed (&f->lay, tmp);
    f->sum_op[i] = f->sum_inv[i];
    f->sum_id[i] = bench_checksum_packed (&f->lay, f->ring[i]);
  }
  g_free (tmp);
}

void
bench_frames_clear (BenchFrames * f)
{
  guint i;

  for (i = 0; i < BENCH_RING; i++) {
    free (f->ring[i]);
    f->ring[i] = NULL;
  }
}

/* Equal bands of luma rows; edges on even rows when a plane is 4:2:0. */
guint
bench_bands (const BenchLayout * l, guint chunks,
    gint rows[BENCH_MAX_CHUNKS + 1])
{
  gint unit = 1, units, i;
  guint n, b;

  for (i = 0; i < l->n_planes; i++)
    if (l->planes[i].ysub)
      unit = 2;
  units = (l->height + unit - 1) / unit;
  n = CLAMP (chunks, 1, BENCH_MAX_CHUNKS);
  n = MIN (n, (guint) units);
  for (b = 0; b <= n; b++)
    rows[b] = MIN (l->height, (gint) ((guint64) b * units / n) * unit);
  return n;
}

void
bench_op_ref (const BenchFrames * f, const guint8 * src, guint8 * dst)
{
  gchar *why = NULL;

  if (f->gamma > 0) {
    bench_gamma_ref (&f->lay, src, dst, f->gamma);
  } else if (!f->custom) {
    bench_invert_ref (&f->lay, src, dst);
  } else if (!bench_custom_ref (f->custom, &f->lay, src, dst, &why)) {
    /* it succeeded on every ring frame in bench_frames_set_custom */
    g_error ("the custom kernel's CPU implementation failed: %s", why);
  }
}

gboolean
bench_frames_set_custom (BenchFrames * f, const BenchCustom * c, gchar ** why)
{
  guint8 *tmp = g_malloc (f->lay.size);
  guint i;

  for (i = 0; i < BENCH_RING; i++) {
    if (!bench_custom_ref (c, &f->lay, f->ring[i], tmp, why)) {
      g_free (tmp);
      return FALSE;
    }
    f->sum_op[i] = bench_checksum_packed (&f->lay, tmp);
  }
  g_free (tmp);
  f->custom = c;
  return TRUE;
}

gint
bench_plane_row (const BenchPlane * p, gint luma_row)
{
  return p->ysub ? (luma_row + 1) >> 1 : luma_row;
}

/* The naive CPU invert: every component in the plane's mask becomes
 * max - c, everything else is copied; with bits, c is the value
 * (s >> shift) & max, max = 2^bits - 1, and the sample (max - c) << shift
 * (its other bits 0). */
void
bench_invert_ref (const BenchLayout * l, const guint8 * src, guint8 * dst)
{
  gint i, y, x, c;

  memcpy (dst, src, l->size);
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *p = &l->planes[i];

    for (y = 0; y < p->height; y++) {
      const guint8 *s = src + p->offset + y * p->stride;
      guint8 *d = dst + p->offset + y * p->stride;

      for (x = 0; x < p->width; x++) {
        for (c = 0; c < p->comps; c++) {
          gsize k = ((gsize) x * p->comps + c) * p->comp_bytes;

          if (!(p->mask & (1u << c)))
            continue;
          if (p->comp_bytes == 1) {
            d[k] = 255 - s[k];
          } else if (p->bits) {
            guint max = (1u << p->bits) - 1;
            guint v = (max - (((s[k] | (s[k + 1] << 8)) >> p->shift) & max))
                << p->shift;

            d[k] = v & 0xff;
            d[k + 1] = v >> 8;
          } else {
            guint v = 65535 - (s[k] | (s[k + 1] << 8));

            d[k] = v & 0xff;
            d[k + 1] = v >> 8;
          }
        }
      }
    }
  }
}

static const guint64 mult[8] = {
  G_GUINT64_CONSTANT (0x9e3779b97f4a7c15),
  G_GUINT64_CONSTANT (0xc2b2ae3d27d4eb4f),
  G_GUINT64_CONSTANT (0x165667b19e3779f9),
  G_GUINT64_CONSTANT (0xd6e8feb86659fd93),
  G_GUINT64_CONSTANT (0xff51afd7ed558ccd),
  G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53),
  G_GUINT64_CONSTANT (0x27d4eb2f165667c5),
  G_GUINT64_CONSTANT (0x94d049bb133111eb),
};

/* v = key * FNV_PRIME + sum over the 8-byte little-endian words w_k of the
 * piece (the tail zero-padded) of (w_k ^ k) * mult[k % 8]: the products are
 * independent, so the CPU overlaps them; every single changed bit changes
 * v (the multipliers are odd). */
static inline guint64
hash_piece (guint64 key, const guint8 * p, gsize n)
{
  guint64 v = key * FNV_PRIME + n, k = 0;

  while (n >= 8) {
    guint64 w;

    memcpy (&w, p, 8);
    v += (GUINT64_FROM_LE (w) ^ k) * mult[k & 7];
    p += 8;
    n -= 8;
    k++;
  }
  if (n) {
    guint64 w = 0;

    memcpy (&w, p, n);
    v += (GUINT64_FROM_LE (w) ^ k) * mult[k & 7];
  }
  return v;
}

guint64
bench_checksum (const BenchLayout * l,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES])
{
  guint64 total = FNV_BASIS;
  gint i, y;

  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *p = &l->planes[i];
    gsize rb = row_bytes (p);
    gint nr = (rb + RUN - 1) / RUN, k = MAX (1, 64 / nr);

    for (y = 0; y < p->height; y++) {
      const guint8 *row = data[i] + (gsize) y * stride[i];
      guint64 key = ((guint64) i << 60) ^ ((guint64) y << 32);
      gint ya = y + PREFETCH_ROWS * k;
      gsize o;

      /* ask for the run of a later row now, so that the misses overlap */
      if (ya < p->height - 1 && ya % k == 0) {
        o = (gsize) ((ya / k) % nr) * RUN;
        __builtin_prefetch (data[i] + (gsize) ya * stride[i] + o);
        __builtin_prefetch (data[i] + (gsize) ya * stride[i] + o + 128);
      }
      if (y == 0 || y == p->height - 1) {
        total = (total ^ hash_piece (key ^ 0xffffffffu, row, rb)) * FNV_PRIME;
      } else if (y % k == 0) {
        o = (gsize) ((y / k) % nr) * RUN;
        total = (total ^ hash_piece (key ^ o, row + o, MIN (RUN, rb - o))) *
            FNV_PRIME;
      }
    }
  }
  return total;
}

guint64
bench_checksum_packed (const BenchLayout * l, const guint8 * frame)
{
  const guint8 *data[BENCH_MAX_PLANES] = { NULL, };
  gsize stride[BENCH_MAX_PLANES] = { 0, };
  gint i;

  for (i = 0; i < l->n_planes; i++) {
    data[i] = frame + l->planes[i].offset;
    stride[i] = l->planes[i].stride;
  }
  return bench_checksum (l, data, stride);
}

/* The pieces of bench_checksum, in its order (keep the two loops alike: the
 * self-test in cudaoverlap-bench compares their sums on every run). */
BenchPiece *
bench_pieces (const BenchLayout * l, guint * n, gsize * bytes)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (BenchPiece));
  gsize dst = 0;
  gint i, y;

  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *p = &l->planes[i];
    gsize rb = row_bytes (p);
    gint nr = (rb + RUN - 1) / RUN, k = MAX (1, 64 / nr);

    for (y = 0; y < p->height; y++) {
      guint64 key = ((guint64) i << 60) ^ ((guint64) y << 32);
      BenchPiece pc = { 0, };

      pc.plane = i;
      pc.row = y;
      if (y == 0 || y == p->height - 1) {
        pc.col = 0;
        pc.len = rb;
        pc.key = key ^ 0xffffffffu;
      } else if (y % k == 0) {
        gsize o = (gsize) ((y / k) % nr) * RUN;

        pc.col = o;
        pc.len = MIN (RUN, rb - o);
        pc.key = key ^ o;
      } else {
        continue;
      }
      pc.dst = dst;
      dst += pc.len;
      g_array_append_val (a, pc);
    }
  }
  *n = a->len;
  *bytes = dst;
  return (BenchPiece *) g_array_free (a, FALSE);
}

guint64
bench_checksum_pieces (const BenchPiece * p, guint n, const guint8 * compact)
{
  guint64 total = FNV_BASIS;
  guint j;

  for (j = 0; j < n; j++)
    total = (total ^ hash_piece (p[j].key, compact + p[j].dst, p[j].len)) *
        FNV_PRIME;
  return total;
}

void
bench_gather_host (const BenchPiece * p, guint n,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], guint8 * compact)
{
  guint j;

  for (j = 0; j < n; j++)
    memcpy (compact + p[j].dst, data[p[j].plane] + (gsize) p[j].row *
        stride[p[j].plane] + p[j].col, p[j].len);
}

/* Every picture byte of an output against the packed reference @ref. */
gboolean
bench_compare (const BenchLayout * l,
    const guint8 * const data[BENCH_MAX_PLANES],
    const gsize stride[BENCH_MAX_PLANES], const guint8 * ref, gchar * msg,
    gsize msg_size)
{
  gint i, y;
  guint64 bad_rows = 0;

  msg[0] = '\0';
  for (i = 0; i < l->n_planes; i++) {
    const BenchPlane *p = &l->planes[i];
    gsize rb = row_bytes (p), k;

    for (y = 0; y < p->height; y++) {
      const guint8 *o = data[i] + (gsize) y * stride[i];
      const guint8 *r = ref + p->offset + (gsize) y * p->stride;

      if (memcmp (o, r, rb) == 0)
        continue;
      if (bad_rows++ == 0) {
        for (k = 0; k < rb && o[k] == r[k]; k++);
        g_snprintf (msg, msg_size, "plane %d row %d byte %" G_GSIZE_FORMAT
            ": got 0x%02x, expected 0x%02x", i, y, k, o[k], r[k]);
      }
    }
  }
  if (bad_rows) {
    gsize len = strlen (msg);

    g_snprintf (msg + len, msg_size - len, " (%" G_GUINT64_FORMAT
        " rows differ)", bad_rows);
  }
  return bad_rows == 0;
}

static GString *note_log;
static GMutex note_lock;

static void
note_add (const gchar * s, gboolean to_stderr)
{
  g_mutex_lock (&note_lock);
  if (to_stderr)
    fprintf (stderr, "%s\n", s);
  if (!note_log)
    note_log = g_string_new (NULL);
  g_string_append_printf (note_log, "%s\n", s);
  g_mutex_unlock (&note_lock);
}

/* A line for stderr now and for the report's log (any thread). */
void
bench_note (const gchar * fmt, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  note_add (s, TRUE);
  g_free (s);
}

/* A line for the report's log only: one a --processes child has already
 * written on the stderr it shares with the parent. */
void
bench_note_quiet (const gchar * line)
{
  note_add (line, FALSE);
}

const gchar *
bench_note_log (void)
{
  return note_log ? note_log->str : "";
}

guint64
bench_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Host CPU time of the whole process (every thread), user + system. */
guint64
bench_cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((guint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
      ((guint64) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

GHashTable *
bench_thread_cpu (void)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  GDir *d = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *tid;

  while (d && (tid = g_dir_read_name (d))) {
    gchar *p = g_strdup_printf ("/proc/self/task/%s/comm", tid);
    gchar *q = g_strdup_printf ("/proc/self/task/%s/schedstat", tid);
    gchar *name = NULL, *ss = NULL;

    if (g_file_get_contents (p, &name, NULL, NULL) &&
        g_file_get_contents (q, &ss, NULL, NULL)) {
      guint64 *v;
      gchar **f = g_strsplit (ss, " ", 3);

      g_strstrip (name);
      v = g_hash_table_lookup (t, name);
      if (!v) {
        v = g_new0 (guint64, 2);
        g_hash_table_insert (t, g_strdup (name), v);
      }
      /* schedstat: time on a CPU (ns), time waiting for one, times run */
      v[0] += g_ascii_strtoull (f[0], NULL, 10);
      if (f[0] && f[1] && f[2])
        v[1] += g_ascii_strtoull (f[2], NULL, 10);
      g_strfreev (f);
    }
    g_free (name);
    g_free (ss);
    g_free (p);
    g_free (q);
  }
  if (d)
    g_dir_close (d);
  return t;
}

typedef struct
{
  const gchar *name;
  gint64 ns;
  gint64 runs;                  /* times the thread was put on a CPU */
} ThreadCpu;

static gint
thread_cpu_cmp (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const ThreadCpu *) a)->ns, y = ((const ThreadCpu *) b)->ns;

  return x < y ? 1 : x > y ? -1 : 0;
}

gchar *
bench_thread_cpu_diff (GHashTable * a, GHashTable * b, guint64 frames)
{
  GArray *arr = g_array_new (FALSE, FALSE, sizeof (ThreadCpu));
  GString *s = g_string_new (NULL);
  GHashTableIter it;
  gpointer k, v;
  guint i;

  g_hash_table_iter_init (&it, b);
  while (g_hash_table_iter_next (&it, &k, &v)) {
    guint64 *old = g_hash_table_lookup (a, k), *now = v;
    ThreadCpu tc = { k, (gint64) now[0] - (old ? (gint64) old[0] : 0),
      (gint64) now[1] - (old ? (gint64) old[1] : 0)
    };

    if (tc.ns > 0)
      g_array_append_val (arr, tc);
  }
  g_array_sort (arr, thread_cpu_cmp);
  for (i = 0; i < MIN (arr->len, 8); i++) {
    ThreadCpu *tc = &g_array_index (arr, ThreadCpu, i);

    g_string_append_printf (s, "%s%s %.4f (%.2f runs)", i ? ", " : "",
        tc->name, tc->ns / 1e6 / MAX (frames, 1),
        (gdouble) tc->runs / MAX (frames, 1));
  }
  g_array_free (arr, TRUE);
  return g_string_free (s, FALSE);
}

void
bench_sleep_until (guint64 t_ns)
{
  struct timespec ts;

  ts.tv_sec = t_ns / 1000000000u;
  ts.tv_nsec = t_ns % 1000000000u;
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0);
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

/* Nearest rank. */
gdouble
bench_percentile (const gdouble * v, guint n, gdouble p)
{
  gdouble *s, r;
  guint k;

  if (n == 0)
    return NAN;
  s = g_memdup2 (v, n * sizeof (gdouble));
  qsort (s, n, sizeof (gdouble), cmp_double);
  k = (guint) ceil (p / 100.0 * n);
  r = s[CLAMP (k, 1, n) - 1];
  g_free (s);
  return r;
}

void
bench_row_init (BenchRow * r, const gchar * name, const gchar * mode,
    const gchar * input, guint streams, guint chunks)
{
  memset (r, 0, sizeof (*r));
  g_strlcpy (r->name, name, sizeof (r->name));
  g_strlcpy (r->mode, mode, sizeof (r->mode));
  g_strlcpy (r->input, input, sizeof (r->input));
  r->streams = streams;
  r->chunks = chunks;
  r->fps = r->gbps = r->p50_ms = r->p99_ms = r->eff = r->cpu_ms = NAN;
}

/* ---- checker threads ----------------------------------------------------- */

#define CHECKER_MAX_THREADS 8

struct _BenchChecker
{
  GAsyncQueue *queue;
  BenchCheckFunc func;
  gpointer user_data;
  guint n_threads;
  GThread *threads[CHECKER_MAX_THREADS];
  clockid_t clocks[CHECKER_MAX_THREADS];
  GMutex lock;
  GCond cond;
  guint started;
  guint64 pending;
};

typedef struct
{
  BenchChecker *c;
  guint index;
} CheckerArg;

static gint checker_stop;

/* An idle checker polls again after CHECKER_POLL_US, doubling up to
 * CHECKER_POLL_MAX_US while its queue stays empty: small frames come out
 * far more often than large ones, and with several pipelines at once a
 * checker that polls at the shortest period costs the host CPU the
 * pipelines' own threads need. */
#define CHECKER_POLL_US 50
#define CHECKER_POLL_MAX_US 800

static gpointer
checker_thread (gpointer data)
{
  CheckerArg *arg = data;
  BenchChecker *c = arg->c;
  gulong poll_us = CHECKER_POLL_US;

  g_mutex_lock (&c->lock);
  pthread_getcpuclockid (pthread_self (), &c->clocks[arg->index]);
  c->started++;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  g_free (arg);
  for (;;) {
    /* Polled, not waited for: a checker asleep in g_async_queue_pop ()
     * makes every push wake it, a futex call on the element's push thread
     * (where outputs arrive) that the row would charge to the element. */
    gpointer item = g_async_queue_try_pop (c->queue);

    if (!item) {
      g_usleep (poll_us);
      poll_us = MIN (poll_us * 2, CHECKER_POLL_MAX_US);
      continue;
    }
    poll_us = CHECKER_POLL_US;
    if (item == &checker_stop)
      break;
    c->func (item, c->user_data);
    g_mutex_lock (&c->lock);
    c->pending--;
    g_cond_broadcast (&c->cond);
    g_mutex_unlock (&c->lock);
  }
  return NULL;
}

BenchChecker *
bench_checker_new (guint n_threads, BenchCheckFunc func, gpointer user_data)
{
  BenchChecker *c = g_new0 (BenchChecker, 1);
  guint i;

  c->queue = g_async_queue_new ();
  c->func = func;
  c->user_data = user_data;
  c->n_threads = CLAMP (n_threads, 1, CHECKER_MAX_THREADS);
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
  for (i = 0; i < c->n_threads; i++) {
    CheckerArg *arg = g_new (CheckerArg, 1);

    arg->c = c;
    arg->index = i;
    c->threads[i] = g_thread_new ("bench-check", checker_thread, arg);
  }
  g_mutex_lock (&c->lock);
  while (c->started < c->n_threads)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
  return c;
}

void
bench_checker_push (BenchChecker * c, gpointer item)
{
  g_mutex_lock (&c->lock);
  c->pending++;
  g_mutex_unlock (&c->lock);
  g_async_queue_push (c->queue, item);
}

void
bench_checker_wait_idle (BenchChecker * c)
{
  g_mutex_lock (&c->lock);
  while (c->pending)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
}

/* CPU ms per frame between two readings of bench_cpu_ns () less
 * bench_checker_cpu_ns ().  The process's clock (getrusage) and the checker
 * threads' clocks are read one after the other and count a running thread
 * at different moments, so a run that costs the process less CPU time than
 * that skew (the control: identity, a few microseconds a frame) can read
 * less at its end than at its start: not measured (NAN, an empty cell). */
gdouble
bench_cpu_ms_per_frame (guint64 c0, guint64 c1, guint64 frames)
{
  if (c1 < c0 || frames == 0)
    return NAN;
  return (c1 - c0) / 1e6 / frames;
}

/* CPU time the checker threads have used so far. */
guint64
bench_checker_cpu_ns (BenchChecker * c)
{
  guint64 sum = 0;
  guint i;

  for (i = 0; i < c->n_threads; i++) {
    struct timespec ts;

    if (clock_gettime (c->clocks[i], &ts) == 0)
      sum += (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
  }
  return sum;
}

void
bench_checker_free (BenchChecker * c)
{
  guint i;

  if (!c)
    return;
  bench_checker_wait_idle (c);
  for (i = 0; i < c->n_threads; i++)
    g_async_queue_push (c->queue, &checker_stop);
  for (i = 0; i < c->n_threads; i++)
    g_thread_join (c->threads[i]);
  g_async_queue_unref (c->queue);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
  g_free (c);
}
