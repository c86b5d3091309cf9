/* A second scheduler model, labelled "linux" and never the default: replays
 * the fixed ASAP DAG on P CPUs the way the Linux scheduler users run on
 * would, rather than under the paper's ideal processor sharing.
 *
 * Why: ideal sharing lets every runnable thread progress at P/n, as if any
 * thread could run on any CPU at any instant.  Linux keeps per-CPU run queues
 * and places a woken thread on a particular CPU; a thread that lands on a busy
 * CPU waits there even when another CPU runs something less urgent.  A
 * three-stage pipeline whose bottleneck middle stage wakes the last stage
 * onto its own CPU is the measured case (2 vCPUs: ideal predicted 1.60x,
 * Linux delivered 1.34x).
 *
 * What is modelled (all times integer ns; parameters below):
 *  - one run queue per CPU, round robin with a time slice (EEVDF/CFS give
 *    equal-weight threads equal shares; a slice-based round robin gives the
 *    same shares at the granularity of a slice);
 *  - placement of a thread that becomes runnable (a simplified
 *    select_task_rq_fair): a new thread goes to the least loaded CPU (fork
 *    balancing); a thread woken by another thread targets the waker's CPU
 *    (wake-affine), one woken by a timer (end of a sleep) its previous CPU;
 *    then, as select_idle_sibling does, an idle target is kept, else an idle
 *    previous CPU, else any idle CPU, else the target even though busy;
 *  - new-idle balancing: a CPU that runs out of work pulls a waiting thread
 *    from the busiest CPU;
 *  - periodic load balancing every `balance_ns`: while one CPU has at least
 *    two runnable threads more than another, one waiting thread migrates
 *    (an imbalance of one thread is left alone, as Linux does);
 *  - a context-switch cost charged on the CPU each time it switches to a
 *    different thread.
 * Not modelled: wakeup preemption (a woken thread waits for the current
 * slice to end), cache effects of migrations, SMT, priorities and cgroups.
 * Lock hand-offs are those of the DAG (decided once by ecp_dag_build), so
 * both models run the same dependency order. */
#ifndef ECP_SIMULATOR_LINUX_SCHED_H
#define ECP_SIMULATOR_LINUX_SCHED_H

#include <stdint.h>

#include "common/error.h"
#include "simulator/dag.h"
#include "simulator/replay.h"

struct ecp_linux_params {
	uint64_t slice_ns;          /* time slice: 3 ms */
	uint64_t balance_ns;        /* periodic load-balancing interval: 4 ms */
	uint64_t context_switch_ns; /* cost of a switch to another thread: 3 us */
};

void ecp_linux_params_default(struct ecp_linux_params *params);

/* Replays `dag` on `processors` CPUs (must be >= 1).  Fills the same result
 * as ecp_replay_run(), with sched_model = ECP_SCHED_LINUX, simulated = true
 * and the context-switch and migration counts. */
int ecp_linux_replay(const struct ecp_dag *dag, unsigned processors,
		     const struct ecp_linux_params *params, unsigned flags,
		     struct ecp_replay *out, struct ecp_error *err);

#endif
