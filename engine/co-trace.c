/* cudaoverlap trace: a Chrome trace-event JSON writer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A timeline of every copy and kernel shows overlap (or its absence) at a
 * glance, so the element can write one that Perfetto opens.  The writer
 * keeps memory bounded and the file valid JSON after every sync, however
 * long the run (co-trace.h).  Layout of the file at any moment after a sync:
 *
 *   HEADER  event ("\n" event "," ...)  TERMINATOR
 *   |<-------- data_end -------------->|
 *
 * New events are written at data_end, over the terminator, and the
 * terminator is written again after them.  The data only grows and the
 * terminator has a constant length, so the file never needs truncating.
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L

#include "co-trace.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define CO_TRACE_BUF_SIZE (256 * 1024)
/* Once less than this is free after an event, the buffer is written out
 * together with the terminator, so the file is valid after each write. */
#define CO_TRACE_SLACK (8 * 1024)

static const char header[] = "{\"traceEvents\":[";
static const char terminator[] = "\n],\n\"displayTimeUnit\":\"ns\"}\n";

struct _CoTrace
{
  pthread_mutex_t lock;
  FILE *f;
  char *buf;
  size_t len;                   /* bytes used in buf */
  off_t data_end;               /* file offset where the terminator starts */
  int term_on_disk;             /* the terminator is at data_end */
  int failed;                   /* a write failed: stop writing */
  uint64_t n_events;
  int n_process_sort;
  int n_thread_sort;
};

/* Writes the buffer at data_end, then the terminator if @terminate. */
static void
write_out (CoTrace * t, int terminate)
{
  if (t->failed) {
    t->len = 0;
    return;
  }
  if (t->len > 0) {
    if (t->term_on_disk && fseeko (t->f, t->data_end, SEEK_SET) != 0)
      goto fail;
    t->term_on_disk = 0;
    if (fwrite (t->buf, 1, t->len, t->f) != t->len)
      goto fail;
    t->data_end += (off_t) t->len;
    t->len = 0;
  }
  if (terminate && !t->term_on_disk) {
    if (fwrite (terminator, 1, sizeof (terminator) - 1, t->f) !=
        sizeof (terminator) - 1)
      goto fail;
    t->term_on_disk = 1;
  }
  return;

fail:
  t->failed = 1;
  t->len = 0;
}

static void
put (CoTrace * t, const char *s, size_t n)
{
  while (n > 0) {
    size_t chunk;

    if (t->len == CO_TRACE_BUF_SIZE)
      write_out (t, 0);
    chunk = CO_TRACE_BUF_SIZE - t->len;
    if (chunk > n)
      chunk = n;
    memcpy (t->buf + t->len, s, chunk);
    t->len += chunk;
    s += chunk;
    n -= chunk;
  }
}

static void
put_str (CoTrace * t, const char *s)
{
  put (t, s, strlen (s));
}

static void put_fmt (CoTrace * t, const char *fmt, ...)
    __attribute__((format (printf, 2, 3)));

static void
put_fmt (CoTrace * t, const char *fmt, ...)
{
  char tmp[128];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (tmp, sizeof (tmp), fmt, ap);
  va_end (ap);
  if (n > 0)
    put (t, tmp, (size_t) n < sizeof (tmp) ? (size_t) n : sizeof (tmp) - 1);
}

/* Length of the valid UTF-8 sequence at @p (p[0] >= 0x80), or 0. */
static size_t
utf8_seq_len (const unsigned char *p)
{
  size_t n, i;

  if (p[0] < 0xc2)
    return 0;
  else if (p[0] < 0xe0)
    n = 2;
  else if (p[0] < 0xf0) {
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))
      return 0;                 /* overlong, or a surrogate */
    n = 3;
  } else if (p[0] < 0xf5) {
    if ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
      return 0;                 /* overlong, or above U+10FFFF */
    n = 4;
  } else
    return 0;
  for (i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

/* Writes @s as a JSON string, quotes included; invalid UTF-8 becomes
 * U+FFFD.  NULL is written as "". */
static void
put_json_string (CoTrace * t, const char *s)
{
  const unsigned char *p = (const unsigned char *) (s ? s : "");
  const unsigned char *run = p;

  put (t, "\"", 1);
  while (*p) {
    const char *esc = NULL;
    char tmp[8];
    size_t n = 1;

    if (*p >= 0x80) {
      n = utf8_seq_len (p);
      if (n > 0) {
        p += n;
        continue;
      }
      esc = "\\ufffd";
      n = 1;
    } else if (*p == '"')
      esc = "\\\"";
    else if (*p == '\\')
      esc = "\\\\";
    else if (*p == '\n')
      esc = "\\n";
    else if (*p == '\r')
      esc = "\\r";
    else if (*p == '\t')
      esc = "\\t";
    else if (*p < 0x20) {
      snprintf (tmp, sizeof (tmp), "\\u%04x", *p);
      esc = tmp;
    } else {
      p++;
      continue;
    }
    put (t, (const char *) run, (size_t) (p - run));
    put_str (t, esc);
    p += n;
    run = p;
  }
  put (t, (const char *) run, (size_t) (p - run));
  put (t, "\"", 1);
}

/* ns -> microseconds with three decimals, exact. */
static void
put_us (CoTrace * t, const char *key, uint64_t ns)
{
  put_fmt (t, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
      (unsigned) (ns % 1000));
}

static void
begin_event (CoTrace * t, const char *ph, int pid, int tid)
{
  put_str (t, t->n_events == 0 ? "\n" : ",\n");
  put_fmt (t, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d", ph, pid, tid);
}

static void
end_event (CoTrace * t)
{
  put (t, "}", 1);
  t->n_events++;
  if (t->len > CO_TRACE_BUF_SIZE - CO_TRACE_SLACK)
    write_out (t, 1);
}

static void
metadata_event (CoTrace * t, int pid, int tid, const char *what,
    const char *name, const char *sort_what, int sort_index)
{
  begin_event (t, "M", pid, tid);
  put_fmt (t, ",\"name\":\"%s\",\"args\":{\"name\":", what);
  put_json_string (t, name);
  put_str (t, "}");
  end_event (t);

  begin_event (t, "M", pid, tid);
  put_fmt (t, ",\"name\":\"%s\",\"args\":{\"sort_index\":%d}", sort_what,
      sort_index);
  end_event (t);
}

CoTrace *
co_trace_open (const char *path, char *error_msg, size_t error_msg_len)
{
  CoTrace *t;
  FILE *f;

  if (error_msg && error_msg_len > 0)
    error_msg[0] = '\0';

  f = fopen (path, "wb");
  if (!f) {
    if (error_msg && error_msg_len > 0)
      snprintf (error_msg, error_msg_len,
          "Could not open trace file \"%s\" for writing: %s", path,
          strerror (errno));
    return NULL;
  }
  /* We buffer ourselves. */
  setvbuf (f, NULL, _IONBF, 0);

  if (fwrite (header, 1, sizeof (header) - 1, f) != sizeof (header) - 1
      || fwrite (terminator, 1, sizeof (terminator) - 1, f) !=
      sizeof (terminator) - 1) {
    if (error_msg && error_msg_len > 0)
      snprintf (error_msg, error_msg_len,
          "Could not write trace file \"%s\": %s", path, strerror (errno));
    fclose (f);
    return NULL;
  }

  t = calloc (1, sizeof (CoTrace));
  if (t)
    t->buf = malloc (CO_TRACE_BUF_SIZE);
  if (!t || !t->buf) {
    if (error_msg && error_msg_len > 0)
      snprintf (error_msg, error_msg_len, "Out of memory");
    free (t);
    fclose (f);
    return NULL;
  }
  pthread_mutex_init (&t->lock, NULL);
  t->f = f;
  t->data_end = (off_t) (sizeof (header) - 1);
  t->term_on_disk = 1;
  return t;
}

int
co_trace_sync (CoTrace * t)
{
  int ret;

  if (!t)
    return 0;
  pthread_mutex_lock (&t->lock);
  write_out (t, 1);
  if (!t->failed && fflush (t->f) != 0)
    t->failed = 1;
  ret = t->failed ? -1 : 0;
  pthread_mutex_unlock (&t->lock);
  return ret;
}

int
co_trace_close (CoTrace * t)
{
  int ret;

  if (!t)
    return 0;
  ret = co_trace_sync (t);
  if (fclose (t->f) != 0)
    ret = -1;
  pthread_mutex_destroy (&t->lock);
  free (t->buf);
  free (t);
  return ret;
}

void
co_trace_name_process (CoTrace * t, int pid, const char *name)
{
  if (!t)
    return;
  pthread_mutex_lock (&t->lock);
  metadata_event (t, pid, 0, "process_name", name, "process_sort_index",
      t->n_process_sort++);
  pthread_mutex_unlock (&t->lock);
}

void
co_trace_name_thread (CoTrace * t, int pid, int tid, const char *name)
{
  if (!t)
    return;
  pthread_mutex_lock (&t->lock);
  metadata_event (t, pid, tid, "thread_name", name, "thread_sort_index",
      t->n_thread_sort++);
  pthread_mutex_unlock (&t->lock);
}

static void
common_fields (CoTrace * t, const char *name, const char *cat,
    const char *args_json)
{
  put_str (t, ",\"name\":");
  put_json_string (t, name);
  if (cat) {
    put_str (t, ",\"cat\":");
    put_json_string (t, cat);
  }
  if (args_json && args_json[0]) {
    put_str (t, ",\"args\":");
    put_str (t, args_json);
  }
}

void
co_trace_complete (CoTrace * t, int pid, int tid, const char *name,
    const char *cat, uint64_t ts_ns, uint64_t dur_ns, const char *args_json)
{
  if (!t)
    return;
  pthread_mutex_lock (&t->lock);
  begin_event (t, "X", pid, tid);
  put_us (t, "ts", ts_ns);
  put_us (t, "dur", dur_ns);
  common_fields (t, name, cat, args_json);
  end_event (t);
  pthread_mutex_unlock (&t->lock);
}

void
co_trace_instant (CoTrace * t, int pid, int tid, const char *name,
    const char *cat, uint64_t ts_ns, const char *args_json)
{
  if (!t)
    return;
  pthread_mutex_lock (&t->lock);
  begin_event (t, "i", pid, tid);
  put_str (t, ",\"s\":\"t\"");
  put_us (t, "ts", ts_ns);
  common_fields (t, name, cat, args_json);
  end_event (t);
  pthread_mutex_unlock (&t->lock);
}

uint64_t
co_trace_n_events (CoTrace * t)
{
  uint64_t n;

  if (!t)
    return 0;
  pthread_mutex_lock (&t->lock);
  n = t->n_events;
  pthread_mutex_unlock (&t->lock);
  return n;
}
