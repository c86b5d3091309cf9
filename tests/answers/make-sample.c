/* SPDX-License-Identifier: MIT */
/* Writes a deterministic recording for the answer-command tests: a serial
 * phase followed by a parallel one, the structure whose top function changes
 * with P (issue 7).
 *
 *   main:    serial_setup (28 ms), creates w1 w2 w3, joins them
 *   w1/2/3:  parallel_work (10, 20, 25 ms)
 *
 * Recorded on one CPU: main runs 0-28, blocks in join; w1 28-38, w2 38-58,
 * w3 58-83; main returns from its joins at 83.  Expected by hand in the
 * paper's model (times in ms):
 *   T1 = 83; T2 = 28 + 15 + 10 + 5 = 58; T_P = 53 for P >= 3 (the span).
 *   TET(parallel_work): P=1 55; P=2 10*0.5 + 20*0 + 25*1 = 30; P>=3 25.
 *   TET(serial_setup) = 28 at every P -> crossover at P = 3.
 * Function names are the addresses "0x1000" (serial_setup) and "0x2000"
 * (parallel_work): the synthetic trace has no statedump to resolve them. */
#include <stdio.h>

#include "tests/support/ctf-writer.h"
#include "tests/support/event-seq.h"

#define MS        1000000ull
#define SERIAL    0x1000u
#define PARALLEL  0x2000u
#define MAIN_FN   0x3000u
#define WORKER_FN 0x4000u

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	const uint32_t main_tid = 100;
	const uint64_t lens[3] = {10 * MS, 20 * MS, 25 * MS};
	uint64_t t0 = 1000 * MS; /* a realistic monotonic-clock origin */

	ecp_test_switch(&s, main_tid, t0, 0, 0);
	ecp_test_ev(&s, main_tid, t0, ECP_EV_THREAD_START, 0, MAIN_FN, 0x100);
	ecp_test_ev(&s, main_tid, t0, ECP_EV_FUNC_ENTRY, SERIAL, MAIN_FN + 8, 0);
	uint64_t t = t0 + 28 * MS;
	ecp_test_ev(&s, main_tid, t, ECP_EV_FUNC_EXIT, SERIAL, 0, 0);
	for (uint32_t w = 0; w < 3; w++)
		ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_CREATE, w + 1, WORKER_FN, 1);
	ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_JOIN_BEGIN, 0x201, 0, 0);
	ecp_test_switch(&s, main_tid, t, 1, 0);
	for (uint32_t w = 0; w < 3; w++) {
		uint32_t tid = 101 + w;
		ecp_test_switch(&s, tid, t, 0, 0);
		ecp_test_ev(&s, tid, t, ECP_EV_THREAD_START, w + 1, WORKER_FN, 0x201 + w);
		ecp_test_ev(&s, tid, t, ECP_EV_FUNC_ENTRY, PARALLEL, WORKER_FN + 8, 0);
		t += lens[w];
		ecp_test_ev(&s, tid, t, ECP_EV_FUNC_EXIT, PARALLEL, 0, 0);
		ecp_test_ev(&s, tid, t, ECP_EV_THREAD_EXIT, 0x201 + w, 0, 0);
		ecp_test_switch(&s, tid, t, 1, 0);
	}
	ecp_test_switch(&s, main_tid, t, 0, 0);
	ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_JOIN_END, 0x201, 1, 0);
	for (uint32_t w = 1; w < 3; w++) {
		ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_JOIN_BEGIN, 0x201 + w, 0, 0);
		ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_JOIN_END, 0x201 + w, 1, 0);
	}
	ecp_test_ev(&s, main_tid, t, ECP_EV_THREAD_EXIT, 0x100, 0, 0);
	ecp_test_switch(&s, main_tid, t, 1, 0);

	int rc = ecp_test_write_recording(argv[1], &s, 0);
	ecp_test_seq_finish(&s);
	if (rc < 0) {
		fprintf(stderr, "cannot write the recording to %s\n", argv[1]);
		return 1;
	}
	return 0;
}
