/* SPDX-License-Identifier: MIT */
/* Writes a synthetic ecp recording of N events (default 10 M) for the model
 * benchmark: a main thread that creates 8 workers and joins them; workers
 * call nested functions in a loop and take a shared mutex every 64
 * iterations; all on one simulated CPU, time-sliced every 4 ms with the
 * context switches in the sched trace -- the shape of a real recording,
 * written directly as CTF (tests/support/ctf-writer.c) so that producing
 * 10 M events takes seconds rather than an LTTng session.
 *
 * usage: gen-trace DIR [EVENTS] [sync]
 * "sync": workers only take the mutex (3 events per iteration, no function
 * events): the worst case for model memory per event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "tests/support/ctf-writer.h"

#define WORKERS  8
#define MAIN_TID 4000
#define QUANTUM  4000000 /* ns */
#define MUTEX    0x7000
#define F_WORKER 0x1000
#define F_OUTER  0x1100
#define F_INNER  0x1200

struct gen {
	struct ecp_ctf_writer *main_w, *sched_w;
	uint64_t t;
	uint64_t events;
	int failed;
};

static void emit(struct gen *g, uint32_t tid, enum ecp_event_type type, uint64_t a,
		 uint64_t b, uint64_t c)
{
	struct ecp_event ev = {
	    .ts = g->t, .tid = tid, .type = (uint16_t)type, .a = a, .b = b, .c = c};
	if (ecp_ctf_writer_event(g->main_w, &ev) < 0)
		g->failed = 1;
	g->events++;
	g->t += 90; /* about one event's cost */
}

static void sw(struct gen *g, uint32_t tid, int out, int preempt)
{
	struct ecp_event ev = {.ts = g->t,
			       .tid = tid,
			       .type = ECP_EV_SCHED_SWITCH,
			       .a = (uint64_t)out,
			       .b = (uint64_t)preempt};
	if (ecp_ctf_writer_event(g->sched_w, &ev) < 0)
		g->failed = 1;
	g->t += 1500; /* the switch itself */
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen-trace DIR [EVENTS]\n");
		return 2;
	}
	uint64_t target = 10000000;
	if (argc > 2 && ecp_parse_u64(argv[2], &target) < 0) {
		fprintf(stderr, "gen-trace: bad event count '%s'\n", argv[2]);
		return 2;
	}
	int sync_only = argc > 3 && !strcmp(argv[3], "sync");
	char path[4096];
	struct gen g = {.t = 1000000000};
	snprintf(path, sizeof(path), "%s/ecp-record.meta", argv[1]);
	struct ecp_test_seq empty;
	ecp_test_seq_init(&empty);
	/* meta file and empty traces first, then the real streams over them */
	if (ecp_test_write_recording(argv[1], &empty, 90) < 0) {
		perror("gen-trace");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/main/ust/uid/0/64-bit", argv[1]);
	if (ecp_ctf_writer_create(path, ECP_CTF_MAIN, &g.main_w) < 0) {
		perror(path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sched/ust/uid/0/64-bit", argv[1]);
	if (ecp_ctf_writer_create(path, ECP_CTF_SCHED, &g.sched_w) < 0) {
		perror(path);
		return 1;
	}
	/* per iteration: 4 function events, plus 3 lock events every 64th */
	uint64_t iters =
	    sync_only ? target / WORKERS / 3 : target / WORKERS * 64 / (4 * 64 + 3);
	if (!iters)
		iters = 1;
	uint64_t left[WORKERS];
	int started[WORKERS] = {0};
	sw(&g, MAIN_TID, 0, 0);
	emit(&g, MAIN_TID, ECP_EV_THREAD_START, 0, 0, 0xa000);
	emit(&g, MAIN_TID, ECP_EV_LOCK_INIT, MUTEX, 0, 0);
	for (int w = 0; w < WORKERS; w++) {
		emit(&g, MAIN_TID, ECP_EV_THREAD_CREATE, (uint64_t)w + 1, F_WORKER, 1);
		left[w] = iters;
	}
	emit(&g, MAIN_TID, ECP_EV_THREAD_JOIN_BEGIN, 0xa001, 0, 0);
	sw(&g, MAIN_TID, 1, 0); /* main blocks in the join */
	int running = WORKERS;
	while (running) {
		for (int w = 0; w < WORKERS; w++) {
			if (!left[w])
				continue;
			uint32_t tid = MAIN_TID + 1 + (uint32_t)w;
			sw(&g, tid, 0, 0);
			uint64_t end = g.t + QUANTUM;
			if (!started[w]) {
				emit(&g, tid, ECP_EV_THREAD_START, (uint64_t)w + 1,
				     F_WORKER, 0xa001 + (uint64_t)w);
				started[w] = 1;
			}
			while (left[w] && g.t < end && sync_only) {
				emit(&g, tid, ECP_EV_LOCK_REQUEST, MUTEX, 0, 0);
				emit(&g, tid, ECP_EV_LOCK_ACQUIRED, MUTEX, 0, 0);
				g.t += 100;
				emit(&g, tid, ECP_EV_LOCK_RELEASE, MUTEX, 0, 0);
				g.t += 200;
				left[w]--;
			}
			while (left[w] && g.t < end) {
				emit(&g, tid, ECP_EV_FUNC_ENTRY, F_OUTER, F_WORKER, 0);
				emit(&g, tid, ECP_EV_FUNC_ENTRY, F_INNER, F_OUTER, 0);
				g.t += 200;
				emit(&g, tid, ECP_EV_FUNC_EXIT, F_INNER, 0, 0);
				g.t += 50;
				emit(&g, tid, ECP_EV_FUNC_EXIT, F_OUTER, 0, 0);
				if (left[w] % 64 == 0) {
					emit(&g, tid, ECP_EV_LOCK_REQUEST, MUTEX, 0, 0);
					emit(&g, tid, ECP_EV_LOCK_ACQUIRED, MUTEX, 0, 0);
					g.t += 100;
					emit(&g, tid, ECP_EV_LOCK_RELEASE, MUTEX, 0, 0);
				}
				left[w]--;
			}
			if (!left[w]) {
				emit(&g, tid, ECP_EV_THREAD_EXIT, 0xa001 + (uint64_t)w, 0,
				     0);
				running--;
				sw(&g, tid, 1, 0);
			} else {
				sw(&g, tid, 1, 1); /* preempted at the end of its slice */
			}
		}
	}
	sw(&g, MAIN_TID, 0, 0);
	emit(&g, MAIN_TID, ECP_EV_THREAD_JOIN_END, 0xa001, 1, 0);
	for (int w = 1; w < WORKERS; w++) {
		emit(&g, MAIN_TID, ECP_EV_THREAD_JOIN_BEGIN, 0xa001 + (uint64_t)w, 0, 0);
		emit(&g, MAIN_TID, ECP_EV_THREAD_JOIN_END, 0xa001 + (uint64_t)w, 1, 0);
	}
	emit(&g, MAIN_TID, ECP_EV_THREAD_EXIT, 0xa000, 0, 0);
	int rc = ecp_ctf_writer_close(g.main_w) | ecp_ctf_writer_close(g.sched_w);
	if (rc || g.failed) {
		fprintf(stderr, "gen-trace: write error in %s\n", argv[1]);
		return 1;
	}
	printf("%llu events written to %s\n", (unsigned long long)g.events, argv[1]);
	return 0;
}
