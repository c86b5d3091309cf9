/* SPDX-License-Identifier: MIT */
#include "recorder/calibrate-clone.h"

#include "common/clock-ns.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/perf-ring.h"
#include "recorder/perf-sample.h"
#include "recorder/perf-switch.h"

#define BURSTS     15
#define BURST      100 /* threads a burst */
#define RING_PAGES 64  /* a burst's fork and switch records, ~40 bytes each */

struct events {
	struct ecp_perf_ring rings[ECP_PERF_MAX_CPUS];
	int samplers[ECP_PERF_MAX_CPUS];
	size_t n_rings, n_samplers;
};

static void *nothing(void *arg)
{
	return arg;
}

/* The calling thread's CPU time per pthread_create, in ps; false when a
 * thread could not be made.  The threads are SCHED_IDLE: a new thread then
 * never takes the CPU from its creator inside pthread_create, which would
 * count a context switch (whose records' cost the reader takes out
 * apart) in one burst and not in another. */
static bool burst(uint64_t *ps)
{
	pthread_attr_t attr;
	struct sched_param none = {0};
	uint64_t sum = 0;
	bool ok = pthread_attr_init(&attr) == 0;
	if (ok) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, SCHED_IDLE);
		pthread_attr_setschedparam(&attr, &none);
	}
	for (int i = 0; ok && i < BURST; i++) {
		pthread_t t;
		uint64_t c0 = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		ok = pthread_create(&t, &attr, nothing, NULL) == 0;
		sum += ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (ok)
			pthread_join(t, NULL);
	}
	pthread_attr_destroy(&attr);
	*ps = sum * 1000u / BURST;
	return ok;
}

static void close_events(struct events *e)
{
	for (size_t i = 0; i < e->n_rings; i++)
		ecp_perf_ring_close(&e->rings[i]);
	for (size_t i = 0; i < e->n_samplers; i++)
		close(e->samplers[i]);
	e->n_rings = e->n_samplers = 0;
}

/* The recording's events on the calling thread, inherited by the threads
 * it makes; false when perf refuses one. */
static bool open_events(const int *cpus, size_t n_cpus, unsigned sample_hz,
			struct events *e)
{
	struct perf_event_attr attr;
	e->n_rings = e->n_samplers = 0;
	ecp_perf_switch_attr(&attr);
	attr.disabled = 0; /* on, as in the run: the fork records are written */
	attr.enable_on_exec = 0;
	for (size_t i = 0; i < n_cpus; i++) {
		struct ecp_error err = {0};
		int fd = (int)syscall(SYS_perf_event_open, &attr, 0, cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 || ecp_perf_ring_map(&e->rings[e->n_rings], fd, RING_PAGES, 16,
						"calibration", &err) < 0) {
			close_events(e);
			return false;
		}
		e->n_rings++;
	}
	if (!sample_hz)
		return true;
	ecp_perf_sample_attr(&attr, sample_hz);
	attr.enable_on_exec = 0; /* off: its samples are not what is measured */
	attr.exclude_kernel = 1;
	for (size_t i = 0; i < n_cpus; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &attr, 0, cpus[i], -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			close_events(e);
			return false;
		}
		e->samplers[e->n_samplers++] = fd;
	}
	return true;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int ecp_calibrate_clones(const int *cpus, size_t n_cpus, unsigned sample_hz,
			 uint64_t *cost_ps, unsigned *bursts)
{
	struct events *e = malloc(sizeof(*e));
	int64_t diff[BURSTS];
	unsigned n = 0;
	uint64_t warm;
	*cost_ps = 0;
	*bursts = 0;
	if (!e || n_cpus < 1 || n_cpus > ECP_PERF_MAX_CPUS || !burst(&warm)) {
		free(e);
		return -1;
	}
	/* in turn, so that the machine's drift falls on both alike */
	for (unsigned b = 0; b < BURSTS; b++) {
		uint64_t plain, with;
		if (!burst(&plain) || !open_events(cpus, n_cpus, sample_hz, e))
			break;
		bool ok = burst(&with);
		close_events(e);
		if (!ok)
			break;
		diff[n++] = (int64_t)with - (int64_t)plain;
	}
	free(e);
	*bursts = n;
	if (n < BURSTS / 2 + 1)
		return -1;
	qsort(diff, n, sizeof(diff[0]), cmp_i64);
	int64_t med = diff[n / 2];
	if (med <= 0 || (uint64_t)med > ECP_CLONE_COST_MAX_PS)
		return -1;
	*cost_ps = (uint64_t)med;
	return 0;
}
