/* SPDX-License-Identifier: MIT */
/* Predictions of both scheduler models for a recorded trace, for the
 * acceptance study (accept.sh):
 *
 *     sim-predict [--recorded] TRACE_DIR [P ...]      default P: 1 2
 *
 * --recorded keeps the recorded lock order (ECP_LOCK_ORDER_RECORDED).
 *
 * Prints one line per P: "P ideal_ns linux_ns", after a header line with the
 * trace's work, span and total delay. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "simulator/model/dag.h"
#include "simulator/replay/linux-sched.h"
#include "simulator/replay/replay.h"
#include "simulator/trace/trace.h"

int main(int argc, char **argv)
{
	enum ecp_lock_policy policy = ECP_LOCK_ORDER_ARRIVAL;
	if (argc > 1 && strcmp(argv[1], "--recorded") == 0) {
		policy = ECP_LOCK_ORDER_RECORDED;
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: sim-predict [--recorded] TRACE_DIR [P ...]\n");
		return 2;
	}
	struct ecp_error err = {0};
	struct ecp_load_options opts = ECP_LOAD_OPTIONS_DEFAULT;
	struct ecp_model *m = NULL;
	struct ecp_dag dag;
	if (ecp_trace_load(argv[1], &opts, &m, &err) < 0 ||
	    ecp_dag_build(m, NULL, policy, &dag, &err) < 0) {
		fprintf(stderr, "sim-predict: %s\n", err.msg);
		ecp_model_destroy(m);
		return 1;
	}
	printf("# work_ns %" PRIu64 " span_ns %" PRIu64 " delay_ns %" PRIu64
	       " segments %" PRIu32 " threads %" PRIu32 "\n",
	       dag.work, dag.span, dag.total_delay, dag.n_segments, m->n_threads);
	unsigned defaults[] = {1, 2};
	int n = argc > 2 ? argc - 2 : 2;
	for (int i = 0; i < n; i++) {
		unsigned p =
		    argc > 2 ? (unsigned)strtoul(argv[i + 2], NULL, 10) : defaults[i];
		struct ecp_replay ideal, lin;
		if (ecp_replay_model_run(&dag, ECP_SCHED_IDEAL, p, 0, &ideal, &err) < 0 ||
		    ecp_replay_model_run(&dag, ECP_SCHED_LINUX, p, 0, &lin, &err) < 0) {
			fprintf(stderr, "sim-predict: %s\n", err.msg);
			return 1;
		}
		printf("%u %" PRIu64 " %" PRIu64 "\n", p, ideal.makespan, lin.makespan);
		ecp_replay_finish(&ideal);
		ecp_replay_finish(&lin);
	}
	ecp_dag_finish(&dag);
	ecp_model_destroy(m);
	return 0;
}
