/* SPDX-License-Identifier: MIT */
/* Synthetic event sequences for tests: build a list of ecp_event the way
 * the CTF reader would decode them, then run the model builder on it.
 *
 *     struct ecp_test_seq s;
 *     ecp_test_seq_init(&s);
 *     ecp_test_ev(&s, 1, 0, ECP_EV_THREAD_START, 0, 0, 0x100);
 *     ...
 *     struct ecp_model *m = ecp_test_seq_build(&s, NULL, &err);
 *
 * Events get consecutive indices (#0, #1, ...) in the order they are added. */
#ifndef ECP_TESTS_SUPPORT_EVENT_SEQ_H
#define ECP_TESTS_SUPPORT_EVENT_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/trace/builder.h"
#include "simulator/ctf/event.h"
#include "simulator/model/model.h"

struct ecp_test_seq {
	struct ecp_event *ev;
	size_t n, cap;
	struct {
		uint32_t tid;
		char name[16];
	} comms[2048]; /* as the sched trace names tids (ecp_builder_set_comm) */
	size_t n_comms;
	struct ecp_task tasks[8]; /* fork and exit records (ecp_builder_push_task) */
	size_t n_tasks;
	uint64_t registered[8][2]; /* (tid, ts): ecp_builder_note_registered */
	size_t n_registered;
};

void ecp_test_seq_init(struct ecp_test_seq *s);
void ecp_test_seq_finish(struct ecp_test_seq *s);

/* Appends an event; returns it so a test can set cpu_ns, flags or name. */
struct ecp_event *ecp_test_ev(struct ecp_test_seq *s, uint32_t tid, uint64_t ts,
			      enum ecp_event_type type, uint64_t a, uint64_t b,
			      uint64_t c);

/* A context switch of tid at ts: out=1 leaves the CPU (preempt=1 if still
 * runnable), out=0 enters it. */
void ecp_test_switch(struct ecp_test_seq *s, uint32_t tid, uint64_t ts, int out,
		     int preempt);

/* Names tid as a comm record of the sched trace would (at most 2048). */
void ecp_test_comm(struct ecp_test_seq *s, uint32_t tid, const char *name);

/* A fork (exit 0) or exit (1) record of the sched trace, pushed before the
 * events (at most 8). */
void ecp_test_task(struct ecp_test_seq *s, uint64_t ts, uint32_t tid, uint32_t pid,
		   uint32_t ppid, uint32_t ptid, int exit);

/* An LTTng-UST listener thread's statedump end (lttng_ust_statedump:end)
 * at ts: it has registered (at most 8). */
void ecp_test_registered(struct ecp_test_seq *s, uint32_t tid, uint64_t ts);

/* Pushes the sequence into a new builder (opts NULL: perf-switch clock, no
 * event cost, calls kept) and finishes it.  NULL with err filled on error. */
struct ecp_model *ecp_test_seq_build(const struct ecp_test_seq *s,
				     const struct ecp_builder_options *opts,
				     struct ecp_error *err);

/* Sum over the segment's activities of function f's self / incl time and
 * calls (0 when the function has no activity there). */
uint64_t ecp_test_self(const struct ecp_model *m, ecp_id seg, ecp_id f);
uint64_t ecp_test_incl(const struct ecp_model *m, ecp_id seg, ecp_id f);
uint64_t ecp_test_calls(const struct ecp_model *m, ecp_id seg, ecp_id f);
/* The function recorded at addr (names are "0xADDR" without symbols). */
ecp_id ecp_test_fn(const struct ecp_model *m, uint64_t addr);
/* Whether the model has an edge from -> to of kind. */
int ecp_test_has_edge(const struct ecp_model *m, ecp_id from, ecp_id to, uint32_t kind);
/* Index of a thread's k-th segment. */
ecp_id ecp_test_seg(const struct ecp_model *m, ecp_id thread, uint32_t k);
/* Whether a model warning contains text. */
int ecp_test_has_warning(const struct ecp_model *m, const char *text);

#endif
