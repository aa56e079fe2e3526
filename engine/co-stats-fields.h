/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cudaoverlap: the one list of the fields of the `cudaoverlap-stats` and
 * `cudaoverlap-passport` messages.
 *
 * Pure C11 and libc, like co-stats: no GLib, no GStreamer, no CUDA.
 *
 * Each field has its name on the bus (lower-case-with-dashes), its type, its
 * unit, a one-line definition (Markdown), and where its value lives: a
 * member of CoStatsSummary (computed by co-stats), of CoStatsTimes (where
 * the frames are in the stream), of CoStatsSettings (what the element ran
 * with, in the statistics) or of CoPassport.  The element
 * fills those plain structs and builds each message by walking the list;
 * the field tables of docs/stats.md are generated from it and checked
 * against it (tests/test-stats-fields.c, the `stats-docs` test; `make
 * docs-fields` rewrites them), and so is the header installed for
 * applications, gst/cudaoverlap/cudaoverlap.h, at every build.  A new
 * field is one line here plus the member that holds its value.
 */

#ifndef __CO_STATS_FIELDS_H__
#define __CO_STATS_FIELDS_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "co-stats.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    CO_FIELD_UINT64,            /* uint64_t, G_TYPE_UINT64 */
    CO_FIELD_DOUBLE,            /* double, G_TYPE_DOUBLE */
    CO_FIELD_UINT,              /* unsigned int, G_TYPE_UINT */
    CO_FIELD_INT,               /* int, G_TYPE_INT */
    CO_FIELD_STRING,            /* const char *, G_TYPE_STRING */
    CO_FIELD_BOOLEAN,           /* bool, G_TYPE_BOOLEAN */
    CO_FIELD_CLOCK_TIME         /* uint64_t, GST_TYPE_CLOCK_TIME (a
                                 * G_TYPE_UINT64); UINT64_MAX is
                                 * GST_CLOCK_TIME_NONE */
  } CoFieldType;

/* Which struct holds a field's value. */
  typedef enum
  {
    CO_FIELD_IN_SUMMARY,        /* CoStatsSummary */
    CO_FIELD_IN_TIMES,          /* CoStatsTimes */
    CO_FIELD_IN_SETTINGS,       /* CoStatsSettings */
    CO_FIELD_IN_PASSPORT,       /* CoPassport */
    CO_FIELD_N_SOURCES
  } CoFieldSource;

/* Field flags. */
#define CO_FIELD_ONLY_IF_TRUE 1u        /* a boolean present only when true */

  typedef struct
  {
    const char *name;
    CoFieldType type;
    CoFieldSource source;
    size_t offset;              /* of the value in the source struct */
    unsigned flags;
    const char *unit;           /* "" when none */
    const char *definition;     /* one line, Markdown */
  } CoField;

/* Where the frames of a statistics message are in the stream, as the
 * `level` element gives its messages' (CO_FIELD_CLOCK_TIME values). */
  typedef struct
  {
    uint64_t timestamp;
    uint64_t duration;
    uint64_t stream_time;
    uint64_t running_time;
  } CoStatsTimes;

/* What the element ran with, in each statistics message. */
  typedef struct
  {
    unsigned int streams;
    unsigned int chunks;
    const char *mode;
    const char *backend;
    const char *operation;
    bool passthrough;
    uint64_t first_frame_ns;
    uint64_t settled_ns;
    bool whole_run;
  } CoStatsSettings;

/* The run's passport: the device and the settings in effect. */
  typedef struct
  {
    const char *device_name;
    const char *compute_capability;
    const char *pci_bus_id;
    int driver_version;
    int runtime_version;
    int async_engine_count;
    int concurrent_kernels;
    unsigned int streams;
    unsigned int chunks;
    unsigned int max_in_flight;
    unsigned int batch;
    const char *mode;
    const char *wait_mode;
    bool submit_thread;
    bool auto_settings;
    const char *auto_reason;
    unsigned int device_engines;
    const char *backend;
    const char *backend_reason;
    const char *operation;
    const char *memory_in;
    const char *memory_out;
    const char *caps;
    uint64_t frame_bytes;
    const char *plugin_version;
    double kernel_compile_ms;
    const char *kernel_cache;
  } CoPassport;

/* A message: its structure name and its fields, in order. */
  typedef struct
  {
    const char *name;
    const CoField *fields;
    size_t n_fields;
  } CoFieldList;

  extern const CoFieldList co_stats_fields;     /* cudaoverlap-stats */
  extern const CoFieldList co_passport_fields;  /* cudaoverlap-passport */

/* Every message, NULL-terminated: what the docs, the checks and the
 * installed header (gst/cudaoverlap/cudaoverlap.h) are generated from. */
  extern const CoFieldList *const co_field_lists[];

/* The GLib name of @type as the docs write it: "guint64", "gdouble",
 * "guint", "gint", "string", "gboolean", "GstClockTime". */
  const char *co_field_type_name (CoFieldType type);

/* The address of @field's value, given the structs of each source (NULL
 * where the list has no field of that source). */
  const void *co_field_value (const CoField * field,
      const void *const sources[CO_FIELD_N_SOURCES]);

/* Writes @list as a Markdown table (field, type, unit, definition), one row
 * per field, each line ending in '\n'.  Returns false on a write error. */
  bool co_field_list_write_markdown (const CoFieldList * list, FILE * out);

#ifdef __cplusplus
}
#endif

#endif                          /* __CO_STATS_FIELDS_H__ */
