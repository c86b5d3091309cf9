/* SPDX-License-Identifier: MIT */
/* A minimal CTF 1.8 writer for tests and benchmarks: writes traces laid out
 * like those of `ecp record` (recorder/EVENTS.md) -- an `ecp` provider trace
 * with the vtid/vpid contexts, an `ecp_sched` trace, and the meta file --
 * from synthetic event sequences, so the CTF reader can be tested (and
 * benchmarked on millions of events) without running LTTng.
 *
 * Every integer is written as a little-endian 64-bit field (the reader
 * looks fields up by name and accepts any width); packets are 1 MiB with
 * timestamp_begin/end and an events_discarded counter, as LTTng writes
 * them.  A "foreign" schema writes events of another provider. */
#ifndef ECP_TESTS_SUPPORT_CTF_WRITER_H
#define ECP_TESTS_SUPPORT_CTF_WRITER_H

#include <stdint.h>

#include "simulator/ctf/event.h"
#include "tests/support/event-seq.h"

enum ecp_ctf_schema { ECP_CTF_MAIN, ECP_CTF_SCHED, ECP_CTF_FOREIGN };

struct ecp_ctf_writer;

/* Creates dir (and parents) with `metadata` and one stream file. */
int ecp_ctf_writer_create(const char *dir, enum ecp_ctf_schema schema,
			  struct ecp_ctf_writer **out);
/* The same; `batched`: as the agent since issue 35, the main schema
 * writes function entries, exits and unwound frames as ecp:func_batch
 * events (recorder/agent/func-batch.h; their `ts` as the TSC), one per thread
 * before any other event of the thread and when full, and the sched
 * schema has the ecp_sched:clock class (ecp_ctf_writer_clock). */
int ecp_ctf_writer_create_ex(const char *dir, enum ecp_ctf_schema schema, int batched,
			     struct ecp_ctf_writer **out);
/* Another stream of the trace in dir (as an LTTng trace has one for each
 * CPU): the metadata written again, the events to file stream_<stream>. */
int ecp_ctf_writer_create_stream(const char *dir, enum ecp_ctf_schema schema,
				 unsigned stream, struct ecp_ctf_writer **out);
/* Event times written as given, also where one is earlier than the one
 * before (a damaged stream); by default they are raised to it. */
void ecp_ctf_writer_let_time_go_back(struct ecp_ctf_writer *w);
/* A clock anchor (sched schema, batched). */
int ecp_ctf_writer_clock(struct ecp_ctf_writer *w, uint64_t mono, uint64_t tsc);
/* Main schema: any program event (ts: header time; function events also
 * carry it as payload ts).  Sched schema: SCHED_SWITCH and SCHED_LOST.
 * Foreign schema: any event, written as "foo:bar". */
int ecp_ctf_writer_event(struct ecp_ctf_writer *w, const struct ecp_event *ev);
/* The vpid written with the following events (main schema; default 1). */
void ecp_ctf_writer_set_vpid(struct ecp_ctf_writer *w, uint64_t vpid);
/* A perf COMM record (sched schema only). */
int ecp_ctf_writer_comm(struct ecp_ctf_writer *w, uint64_t ts, uint32_t tid,
			const char *name);
/* Declares n events lost before the next one (closes the packet). */
int ecp_ctf_writer_discard(struct ecp_ctf_writer *w, uint64_t n);
/* Flushes and frees; returns 0 or -1 on a write error. */
int ecp_ctf_writer_close(struct ecp_ctf_writer *w);

/* Writes a whole recording directory from a sequence: DIR/ecp-record.meta
 * (clock perf-switch, the given event cost), DIR/sched/ust/uid/0/64-bit
 * with the sequence's SCHED events and DIR/main/ust/uid/0/64-bit with the
 * rest.  Returns 0 or -1. */
int ecp_test_write_recording(const char *dir, const struct ecp_test_seq *seq,
			     uint64_t event_cost_ns);
/* The same with function events in batches, and clock anchors that make
 * the TSC the trace clock (tsc = ns). */
int ecp_test_write_recording_batched(const char *dir, const struct ecp_test_seq *seq,
				     uint64_t event_cost_ns);

#endif
