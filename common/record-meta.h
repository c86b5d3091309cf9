/* SPDX-License-Identifier: MIT */
/* ecp-record.meta, the key=value description of a recording: one catalogue
 * of every key, its value's kind, for the recorder that writes the file
 * (recorder/meta.c) and the reader that checks and reads it
 * (simulator/trace/trace.c).  What each key means is in recorder/EVENTS.md. */
#ifndef ECP_COMMON_RECORD_META_H
#define ECP_COMMON_RECORD_META_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ECP_META_FILE "ecp-record.meta"

enum ecp_meta_kind {
	ECP_META_UINT, /* a whole number */
	ECP_META_BOOL, /* 0 or 1 */
	ECP_META_TEXT, /* the rest of the line */
	ECP_META_EXIT, /* a whole number, or signal:N */
};

/* X(ID, "name", kind), in the order the recorder writes them. */
#define ECP_META_KEYS(X)                                                                 \
	X(FORMAT, "format", ECP_META_UINT)                                               \
	X(VERSION, "version", ECP_META_TEXT)                                             \
	X(COMMAND, "command", ECP_META_TEXT)                                             \
	X(CPU, "cpu", ECP_META_UINT)                                                     \
	X(CPUS, "cpus", ECP_META_UINT)                                                   \
	X(CPU_LIST, "cpu_list", ECP_META_TEXT)                                           \
	X(AS_CPUS, "as_cpus", ECP_META_UINT)                                             \
	X(CLOCK, "clock", ECP_META_TEXT)                                                 \
	X(EVENT_COST_NS, "event_cost_ns", ECP_META_UINT)                                 \
	X(EVENT_COST_PS, "event_cost_ps", ECP_META_UINT)                                 \
	X(EVENT_COST_SOURCE, "event_cost_source", ECP_META_TEXT)                         \
	X(OTHER_EVENT_COST_PS, "other_event_cost_ps", ECP_META_UINT)                     \
	X(OTHER_EVENT_COST_SOURCE, "other_event_cost_source", ECP_META_TEXT)             \
	X(OTHER_EVENT_CALIBRATED_PS, "other_event_calibrated_ps", ECP_META_UINT)         \
	X(OTHER_EVENTS_TIMED, "other_events_timed", ECP_META_UINT)                       \
	X(OTHER_EVENT_UNTIMED_PS, "other_event_untimed_ps", ECP_META_UINT)               \
	X(SAMPLE_COST_NS, "sample_cost_ns", ECP_META_UINT)                               \
	X(SWITCH_COST_PS, "switch_cost_ps", ECP_META_UINT)                               \
	X(THREAD_CREATE_COST_PS, "thread_create_cost_ps", ECP_META_UINT)                 \
	X(CALL_COST_NS, "call_cost_ns", ECP_META_UINT)                                   \
	X(CALL_UNTIMED_PS, "call_untimed_ps", ECP_META_UINT)                             \
	X(EXIT_STATUS, "exit_status", ECP_META_EXIT)                                     \
	X(WALL_NS, "wall_ns", ECP_META_UINT)                                             \
	X(PROGRAM_CPU_NS, "program_cpu_ns", ECP_META_UINT)                               \
	X(STEAL_NS, "steal_ns", ECP_META_UINT)                                           \
	X(STEAL_TICK_NS, "steal_tick_ns", ECP_META_UINT)                                 \
	X(OTHER_CPU_NS, "other_cpu_ns", ECP_META_UINT)                                   \
	X(OTHER_CPU_RESOLUTION_NS, "other_cpu_resolution_ns", ECP_META_UINT)             \
	X(FUNCTIONS, "functions", ECP_META_BOOL)                                         \
	X(FUNCTIONS_MODE, "functions_mode", ECP_META_TEXT)                               \
	X(SAMPLE_HZ, "sample_hz", ECP_META_UINT)                                         \
	X(SAMPLES, "samples", ECP_META_UINT)                                             \
	X(SAMPLES_LOST, "samples_lost", ECP_META_UINT)                                   \
	X(SAMPLE_HZ_ASKED, "sample_hz_asked", ECP_META_UINT)                             \
	X(SAMPLE_RATE_MAX, "sample_rate_max", ECP_META_UINT)                             \
	X(SAMPLES_THROTTLED, "samples_throttled", ECP_META_UINT)                         \
	X(DEPTH, "depth", ECP_META_UINT)                                                 \
	X(INCLUDE, "include", ECP_META_TEXT)                                             \
	X(EXCLUDE, "exclude", ECP_META_TEXT)                                             \
	X(MIN_DURATION_NS, "min_duration_ns", ECP_META_UINT)                             \
	X(SCHED_LOST, "sched_lost", ECP_META_UINT)                                       \
	X(DISCARDED_EVENTS, "discarded_events", ECP_META_UINT)                           \
	X(LOST_PACKETS, "lost_packets", ECP_META_UINT)                                   \
	X(CALLS_TOO_DEEP, "calls_too_deep", ECP_META_UINT)                               \
	X(CPU_COUNT_READ, "cpu_count_read", ECP_META_BOOL)                               \
	X(TIME_SLICE_NS, "time_slice_ns", ECP_META_UINT)                                 \
	X(MANIFEST, "manifest", ECP_META_BOOL)

enum ecp_meta_key {
#define ECP_META_ENUM(id, name, kind) ECP_META_##id,
	ECP_META_KEYS(ECP_META_ENUM)
#undef ECP_META_ENUM
	    ECP_META_N_KEYS
};

const char *ecp_meta_key_name(enum ecp_meta_key key);
enum ecp_meta_kind ecp_meta_key_kind(enum ecp_meta_key key);
/* The key of that name, or -1 for one this ecp does not know (a newer
 * recorder's: skipped by the reader). */
int ecp_meta_key_find(const char *name);
/* Whether value is well-formed for the key's kind. */
bool ecp_meta_value_ok(enum ecp_meta_key key, const char *value);

/* The writer's lines: "name=value\n".  Text loses its newlines (a newline
 * in an argument would start a bogus key); a list is joined with sep. */
void ecp_meta_put_uint(FILE *f, enum ecp_meta_key key, uint64_t v);
void ecp_meta_put_text(FILE *f, enum ecp_meta_key key, const char *s);
void ecp_meta_put_list(FILE *f, enum ecp_meta_key key, char *const *list,
		       const char *sep);

#endif
