/* SPDX-License-Identifier: MIT */
#include "recorder/calibrate.h"

#include "common/clock-ns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/perf-ring.h"
#include "recorder/perf-sample.h"

/* Events: 41 bursts of 500.  A burst lasts 25-100 us, so most fall between
 * two time slices of whatever else shares the CPU; the median ignores the
 * few that do not. */
#define EVENT_BURSTS     41
#define EVENTS_PER_BURST 500
/* Samples: 9 pairs of spinning bursts of ~4 ms (about 12 samples each at
 * 3 kHz), the sampler off in one and on in the other, in alternating order
 * so that a drift of the machine's speed falls on both alike. */
#define SAMPLE_PAIRS      9
#define SPIN_BURST_NS     4000000u
#define SAMPLE_RING_PAGES 512

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t ecp_median_u64(uint64_t *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int ecp_calibrate_events(const struct ecp_sched_emitter *em, uint64_t *cost_ps,
			 unsigned *bursts)
{
	uint64_t per_burst[EVENT_BURSTS];
	/* warm the buffers and the code up before timing */
	for (int i = 0; i < 1000; i++)
		em->emit_switch(0, 0, 0, 0);
	for (unsigned b = 0; b < EVENT_BURSTS; b++) {
		uint64_t t0 = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (int i = 0; i < EVENTS_PER_BURST; i++)
			em->emit_switch((uint64_t)i, i, i & 1, 0);
		per_burst[b] = (ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) * 1000u /
			       EVENTS_PER_BURST;
	}
	*bursts = EVENT_BURSTS;
	*cost_ps = ecp_median_u64(per_burst, EVENT_BURSTS);
	if (*cost_ps > ECP_EVENT_COST_MAX_PS) {
		*cost_ps = 0;
		return -1;
	}
	return 0;
}

/* The compiler must not fold the loop away, nor the machine skip it. */
static volatile uint64_t spin_sink;

static void spin(uint64_t iterations)
{
	uint64_t x = spin_sink;
	for (uint64_t i = 0; i < iterations; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	spin_sink = x;
}

static void count_sample(void *ctx, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_SAMPLE)
		++*(uint64_t *)ctx;
}

/* The sampler of `ecp record`, on this thread only, off until enabled. */
static int open_own_sampler(unsigned hz)
{
	struct perf_event_attr attr;
	long fd;
	ecp_perf_sample_attr(&attr, hz);
	attr.inherit = 0;
	attr.enable_on_exec = 0;
	attr.mmap = attr.mmap2 = attr.mmap_data = 0;
	attr.watermark = 0;
	attr.wakeup_events = 0;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		attr.exclude_kernel = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd < 0 ? -1 : (int)fd;
}

/* Loop iterations that take about SPIN_BURST_NS of CPU time here. */
static uint64_t spin_iterations(void)
{
	uint64_t n = 1u << 16, t;
	for (;;) {
		uint64_t t0 = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		spin(n);
		t = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (t >= SPIN_BURST_NS / 8 || n >= (1ull << 40))
			break;
		n *= 2;
	}
	return t ? n * SPIN_BURST_NS / t : n;
}

/* CPU time of one spinning burst, the sampler on or off; *samples counts
 * what it took. */
static uint64_t spin_burst(struct ecp_perf_ring *ring, uint64_t iterations, bool on,
			   uint64_t *samples)
{
	uint64_t t0, t;
	if (on)
		ioctl(ring->fd, PERF_EVENT_IOC_ENABLE, 0);
	t0 = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	spin(iterations);
	t = ecp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (on) {
		ioctl(ring->fd, PERF_EVENT_IOC_DISABLE, 0);
		ecp_perf_ring_drain(ring, count_sample, samples);
	}
	return t;
}

int ecp_calibrate_samples(unsigned hz, uint64_t *cost_ns, unsigned *bursts)
{
	struct ecp_perf_ring ring;
	struct ecp_error err = {0};
	uint64_t per_sample[SAMPLE_PAIRS];
	unsigned n = 0;
	int fd = open_own_sampler(hz);
	*cost_ns = 0;
	*bursts = 0;
	if (fd < 0 ||
	    ecp_perf_ring_map(&ring, fd, SAMPLE_RING_PAGES, 16, "calibration", &err) < 0)
		return -1;
	uint64_t iterations = spin_iterations();
	for (unsigned p = 0; p < SAMPLE_PAIRS; p++) {
		uint64_t samples = 0, off, on;
		if (p % 2) {
			on = spin_burst(&ring, iterations, true, &samples);
			off = spin_burst(&ring, iterations, false, &samples);
		} else {
			off = spin_burst(&ring, iterations, false, &samples);
			on = spin_burst(&ring, iterations, true, &samples);
		}
		/* a burst without samples says nothing; a slower "off" burst
		 * is the machine's noise, a cost of 0 */
		if (samples)
			per_sample[n++] = on > off ? (on - off) / samples : 0;
	}
	ecp_perf_ring_close(&ring);
	*bursts = n;
	if (n < SAMPLE_PAIRS / 2 + 1)
		return -1;
	*cost_ns = ecp_median_u64(per_sample, n);
	if (*cost_ns > ECP_SAMPLE_COST_MAX_NS) {
		*cost_ns = 0;
		return -1;
	}
	return 0;
}
