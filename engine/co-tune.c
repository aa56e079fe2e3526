/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: the automatic settings.
 *
 * An element left at its defaults picks streams, chunks, batch and the wait
 * mode here, from what it knows of the frames, the device and the pipeline
 * (live or not), and once more from what the first frames measured.  The
 * rules are written out in co-tune.h, each with the reason it holds; this
 * file applies them and says in one line why it chose what it chose, for
 * the statistics.  Pure C11 and libc, so that the rules are unit-tested on
 * any host.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "co-tune.h"

/* Engine bounds (co-engine.h; not included: it needs GLib). */
#define MAX_STREAMS 32
#define MAX_CHUNKS 64
#define MAX_BATCH 16

#define MIB ((uint64_t) 1 << 20)
/* Live (and heavy) frames: a band per this many bytes (rounded), at most
 * MAX_BANDS: a band's copies then last long against what a band costs
 * (host CPU to queue it, device scheduling between its operations). */
#define BAND_BYTES (4 * MIB)
#define MAX_BANDS 4
/* Live: more bands shorten a frame's latency further (its first copy and
 * its last one are a smaller part of it), and a live source leaves the
 * host the time their calls cost. */
#define LIVE_MAX_BANDS 8
/* CPU backend: frames this large get a band per worker. */
#define CPU_BAND_BYTES (256 * 1024)
#define CPU_MAX_WORKERS 8

static unsigned
clampu (uint64_t v, unsigned lo, unsigned hi)
{
  return v < lo ? lo : v > hi ? hi : (unsigned) v;
}

static void
say (CoTuneChoice * out, const char *fmt, ...)
{
  size_t n = strlen (out->reason);
  va_list ap;

  if (n + 1 >= sizeof (out->reason))
    return;
  va_start (ap, fmt);
  vsnprintf (out->reason + n, sizeof (out->reason) - n, fmt, ap);
  va_end (ap);
}

/* The cores, shared by the process's engines on the CPU backend. */
static unsigned
cpu_workers (const CoTuneInput * in)
{
  return clampu (in->host_cores / (in->sharers + 1), 1, CPU_MAX_WORKERS);
}

static bool
measured (const CoTuneInput * in)
{
  return in->measured.frames > 0;
}

/* The bytes of one buffer: measured when it can be (audio buffers are
 * known only once they come), else from the caps. */
static uint64_t
frame_bytes (const CoTuneInput * in)
{
  if (measured (in) && in->measured.bytes > 0)
    return in->measured.bytes;
  return in->frame_bytes;
}

/* The kernel takes at least as long as the longer copy of a frame. */
static bool
heavy (const CoTuneInput * in)
{
  const CoTuneMeasure *m = &in->measured;
  uint64_t copy = m->h2d_ns > m->d2h_ns ? m->h2d_ns : m->d2h_ns;

  if (measured (in) && !in->cpu_backend)
    return m->kernel_ns > 0 && m->kernel_ns >= copy;
  return in->cost == CO_TUNE_COST_HEAVY;
}

static unsigned
size_bands (uint64_t bytes, unsigned max_bands)
{
  return clampu ((bytes + BAND_BYTES / 2) / BAND_BYTES, 1, max_bands);
}

static unsigned
auto_chunks (const CoTuneInput * in, CoTuneChoice * out)
{
  uint64_t bytes = frame_bytes (in);
  unsigned c;

  const char *why;

  if (in->cpu_backend) {
    c = bytes >= CPU_BAND_BYTES ? cpu_workers (in) : 1;
    why = c > 1 ? "a band per worker" : "small frames";
  } else if (in->no_copies) {
    c = 1;
    why = "device memory in and out: no copies to overlap";
  } else if (in->live) {
    c = size_bands (bytes, LIVE_MAX_BANDS);
    why = "live: a band per 4 MiB, at most 8";
  } else if (heavy (in)) {
    c = size_bands (bytes, MAX_BANDS);
    why = measured (in) ? "kernel at least the copies" :
        "kernel expected about the copies";
  } else {
    c = 1;
    why = "kernel cheap against the copies; chunks cost host CPU";
  }
  if (in->rows > 0 && c > in->rows)
    c = in->rows;
  say (out, "chunks %u (%s)", c, why);
  return c;
}

/* Non-live engines of one process on one device: their streams within the
 * device's hardware queues, each at least 2 and a stream per band. */
static unsigned
share_queues (const CoTuneInput * in, unsigned chunks, unsigned s,
    CoTuneChoice * out)
{
  unsigned engines = in->sharers + 1;
  unsigned cap = CO_TUNE_DEVICE_QUEUES / engines;

  if (cap < 2)
    cap = 2;
  if (cap < chunks)
    cap = chunks;
  if (s <= cap)
    return s;
  say (out, ", then %u (%u engines share the device's %u hardware queues)",
      cap, engines, CO_TUNE_DEVICE_QUEUES);
  return cap;
}

static unsigned
auto_streams (const CoTuneInput * in, unsigned chunks, CoTuneChoice * out)
{
  unsigned engines = in->copy_engines ? in->copy_engines : 2;
  unsigned s = engines + 1;

  if (in->cpu_backend) {
    s = cpu_workers (in);
    if (in->sharers)
      say (out, ", streams %u (%u cores shared by %u engines, at most %u)",
          s, in->host_cores, in->sharers + 1, CPU_MAX_WORKERS);
    else
      say (out, ", streams %u (a worker per core, at most %u)", s,
          CPU_MAX_WORKERS);
    return s;
  }
  if (in->live && 2 * chunks > s) {
    s = 2 * chunks;
    say (out, ", streams %u (two per band)", s);
  } else if (chunks > s) {
    s = chunks;
    say (out, ", streams %u (a stream per band)", s);
  } else {
    say (out, ", streams %u (%u copy engines%s + 1)", s, engines,
        in->copy_engines ? "" : " assumed");
  }
  if (!in->live && in->sharers)
    s = share_queues (in, chunks, s, out);
  return clampu (s, 2, MAX_STREAMS);
}

/* Between two buffers the upstream thread waited (a paced source, an
 * application pushing one frame at a time) rather than worked: longer
 * than chain took, and asleep most of it.  Batching would then only make
 * frames wait. */
static bool
upstream_waits (const CoTuneMeasure * m)
{
  return m->gap_ns > m->chain_wall_ns && 2 * m->gap_cpu_ns < m->gap_ns;
}

/* The device, not the host, sets the pace: chain spent less CPU time on a
 * frame than the device was busy with it, mostly waited (for a free slot),
 * and the device was busy for at least 4/5 of the time between two frames.
 * None alone is enough: the device's busy time holds the scheduling gaps
 * between short operations (docs/PERFORMANCE.md, CUPTI section), chain's
 * wall time holds preemption, and chain also waits for a slot when each
 * small frame's fixed costs (launches, events, the push thread's wake-up),
 * not the device's work, hold the slots (640x480 GRAY8 from page-locked
 * slots: the device busy 2/3 of the time, chain waiting; batches then
 * double the rate). */
static bool
device_bound (const CoTuneMeasure * m)
{
  uint64_t interval = m->chain_wall_ns + m->gap_ns;

  return m->host_cpu_ns < m->busy_ns && 2 * m->host_cpu_ns < m->chain_wall_ns
      && 5 * m->busy_ns >= 4 * interval;
}

/* Frames under 4 MiB are batched where the host is the bound. */
static unsigned
size_batch (uint64_t bytes)
{
  return bytes < MIB ? 8 : bytes < 2 * MIB ? 4 : bytes < 4 * MIB ? 2 : 1;
}

static unsigned
auto_batch (const CoTuneInput * in, CoTuneChoice * out)
{
  const CoTuneMeasure *m = &in->measured;
  unsigned b = size_batch (frame_bytes (in));

  if (!in->can_batch)
    return 1;
  if (in->live) {
    say (out, ", batch 1 (live)");
    return 1;
  }
  if (b == 1) {
    say (out, ", batch 1 (frames of 4 MiB or more)");
    return 1;
  }
  if (!measured (in)) {
    say (out, ", batch 1 (not measured yet)");
    return 1;
  }
  if (upstream_waits (m)) {
    say (out, ", batch 1 (upstream is the bound)");
    return 1;
  }
  if (device_bound (m)) {
    say (out, ", batch 1 (the device is the bound)");
    return 1;
  }
  say (out, ", batch %u (small frames, host-bound)", b);
  return b;
}

/* @out holds the streams and batch chosen: with them, the frames in
 * flight may hold upstream's whole ring (co_tune_ring_bound). */
static bool
auto_spin (const CoTuneInput * in, CoTuneChoice * out)
{
  const CoTuneMeasure *m = &in->measured;
  bool ring = !in->live && measured (in) && co_tune_ring_bound (m->ring,
      in->user_in_flight ? in->user_in_flight :
      co_tune_default_in_flight (out->streams), out->batch);
  const char *why = NULL;

  if (in->user_wait)
    return false;
  if (in->cpu_backend)
    why = "CPU backend";
  else if (!in->live && !ring)
    why = "not live";
  else if (in->media == CO_TUNE_AUDIO)
    why = "audio";
  else if (in->spinners >= CO_TUNE_MAX_SPINNERS)
    why = "spinning budget taken";
  else if (in->live && measured (in) && in->frame_interval_ns > 0 &&
      2 * m->gpu_latency_ns > in->frame_interval_ns)
    why = "device busy over half the frame interval";
  if (why) {
    say (out, ", blocking (%s)", why);
    return false;
  }
  if (ring)
    say (out, ", spin (upstream waits for its ring of %u buffers; spinner "
        "%u of %u)", m->ring, in->spinners + 1, CO_TUNE_MAX_SPINNERS);
  else
    say (out, ", spin (live; spinner %u of %u)", in->spinners + 1,
        CO_TUNE_MAX_SPINNERS);
  return true;
}

static bool
auto_submit_thread (const CoTuneInput * in, CoTuneChoice * out)
{
  const CoTuneMeasure *m = &in->measured;

  if (in->user_submit_thread || !measured (in) || 2 * m->staged < m->frames)
    return false;
  if (in->live) {
    say (out, ", no submit thread (live: its wake-up is latency)");
    return false;
  }
  say (out, ", submit thread (staged input: the copies of consecutive "
      "frames overlap)");
  return true;
}

static void
say_measured (const CoTuneInput * in, CoTuneChoice * out)
{
  const CoTuneMeasure *m = &in->measured;

  if (!measured (in))
    return;
  say (out, "; measured %llu frames of %llu bytes (%llu staged): H2D "
      "%.3f, kernel %.3f, D2H %.3f, busy %.3f, host %.3f ms/frame",
      (unsigned long long) m->frames, (unsigned long long) frame_bytes (in),
      (unsigned long long) m->staged,
      m->h2d_ns / 1e6, m->kernel_ns / 1e6, m->d2h_ns / 1e6, m->busy_ns / 1e6,
      m->host_cpu_ns / 1e6);
}

void
co_tune_decide (const CoTuneInput * in, CoTuneChoice * out)
{
  memset (out, 0, sizeof (*out));
  say (out, "%s%s: ", in->live ? "live" : "non-live", in->cpu_backend ?
      " (CPU backend)" : "");
  out->chunks = in->user_chunks;
  if (!out->chunks)
    out->chunks = auto_chunks (in, out);
  else
    say (out, "chunks %u (set)", out->chunks);
  out->chunks = clampu (out->chunks, 1, MAX_CHUNKS);
  out->streams = in->user_streams;
  if (!out->streams)
    out->streams = auto_streams (in, out->chunks, out);
  else
    say (out, ", streams %u (set)", out->streams);
  out->streams = clampu (out->streams, 1, MAX_STREAMS);
  out->batch = in->user_batch;
  if (!out->batch)
    out->batch = auto_batch (in, out);
  else if (in->can_batch)
    say (out, ", batch %u (set)", out->batch);
  out->batch = clampu (out->batch, 1, MAX_BATCH);
  out->spin = auto_spin (in, out);
  out->submit_thread = auto_submit_thread (in, out);
  say_measured (in, out);
}

bool
co_tune_same (const CoTuneChoice * a, const CoTuneChoice * b)
{
  return a->streams == b->streams && a->chunks == b->chunks &&
      a->batch == b->batch && a->spin == b->spin &&
      a->submit_thread == b->submit_thread;
}
