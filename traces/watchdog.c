/* SPDX-License-Identifier: MIT */
/*
 * Fig. 20 of Broberg, Lundberg & Grahn (JPDC 2001): thread 1 computes for 12
 * time units; thread 2 is a watchdog that runs 5 times for 1 unit, every second
 * unit (it sleeps one unit between runs, with nanosleep: time that uses no
 * processor, a *delay* in ecp's model).
 *
 *   Thread 1 (main):        Thread 2 (watchdog):
 *   Compute() (12 units)    5 x { Watchdog() (1 unit); sleep 1 unit }
 *
 * On one processor the run takes 12 + 5 = 17 units: Compute() is interrupted by
 * every watchdog run, and a critical path measured with per-thread CPU clocks
 * (Yang and Miller) would call thread 1 "the" path with length 17 without
 * seeing that making Watchdog() faster also shortens the run.  On two
 * processors the run takes 12 units and only Compute() matters.
 *
 * Usage: watchdog [--scale S] [--check] [--quiet]; S scales the time unit.
 * ECP_EXAMPLE_FASTER=Compute or =Watchdog makes that function 20% cheaper.
 */
#include "example.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

#define COMPUTE_UNITS 12
#define WATCHDOG_RUNS 5

static double unit;
static double f_compute, f_watchdog;
static unsigned watchdog_runs;

static EX_FUNC void Compute(void)
{
	ex_work_units(COMPUTE_UNITS * unit, f_compute);
}

static EX_FUNC void Watchdog(void)
{
	ex_work_units(unit, f_watchdog);
	watchdog_runs++;
}

static void sleep_one_unit(void)
{
	uint64_t ns = (uint64_t)((double)EX_NOMINAL_NS_PER_UNIT * unit);
	struct timespec req = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
	struct timespec rem;
	while (nanosleep(&req, &rem) != 0) {
		ex_check(errno == EINTR ? 0 : errno, "nanosleep");
		req = rem;
	}
}

static void *watchdog_thread(void *arg)
{
	(void)arg;
	for (int k = 0; k < WATCHDOG_RUNS; k++) {
		Watchdog();
		if (k + 1 < WATCHDOG_RUNS)
			sleep_one_unit();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	unit = opts.scale;
	f_compute = ex_work_factor("Compute");
	f_watchdog = ex_work_factor("Watchdog");

	pthread_t wd;
	ex_check(pthread_create(&wd, NULL, watchdog_thread, NULL), "pthread_create");
	Compute();
	ex_check(pthread_join(wd, NULL), "pthread_join");

	if (opts.check && watchdog_runs != WATCHDOG_RUNS) {
		fprintf(stderr, "watchdog: %u watchdog runs, expected %d\n",
			watchdog_runs, WATCHDOG_RUNS);
		return 1;
	}
	if (!opts.quiet)
		printf("watchdog: done\n");
	return 0;
}
