/* SPDX-License-Identifier: MIT */
/* A dynamic loop for the recorder-omp test (issue 17): a serial setup, a
 * `parallel for schedule(dynamic)` of four threads over iterations of
 * unequal cost, a serial tail.  Each iteration measures its own
 * CLOCK_THREAD_CPUTIME_ID and notes the thread that ran it; the program
 * prints them ("key=value" lines) so that a test can deal the iterations
 * out as P cores would (the next free thread takes the next one) and
 * compare with ecp's prediction, on this run's durations. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define N 12

static volatile double sink;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) static void work(double ms)
{
	double s = 0;
	long n = (long)(ms * 700000.0);
	for (long k = 0; k < n; k++)
		s += (double)(k ^ 0x5a5a) * 1e-9;
	sink += s;
}

int main(void)
{
	static const double cost[N] = {9, 1, 1, 1, 6, 1, 1, 3, 1, 1, 5, 2};
	long long t[N], clk[N], t0, setup, tail, start = cpu_ns();
	int who[N], team = 0;

	t0 = cpu_ns();
	work(10);
	setup = cpu_ns() - t0;
#pragma omp parallel for schedule(dynamic) num_threads(4)
	for (int i = 0; i < N; i++) {
		long long a = cpu_ns();
		work(4 * cost[i]);
		clk[i] = cpu_ns();
		t[i] = clk[i] - a;
		who[i] = omp_get_thread_num();
		if (i == 0)
			team = omp_get_num_threads();
	}
	t0 = cpu_ns();
	work(10);
	tail = cpu_ns() - t0;
	/* the master's whole clock: the runtime's start, fork and join are on
	 * it, outside every piece above */
	printf("team=%d\nsetup=%lld\ntail=%lld\nmaster=%lld\n", team, setup, tail,
	       cpu_ns() - start);
	for (int i = 0; i < N; i++)
		/* clock_: the thread's whole clock after the chunk (the runtime's
		 * start of the thread and its dispatches are on it too) */
		printf("iter_%d=%lld\nthread_%d=%d\nclock_%d=%lld\n", i, t[i], i, who[i],
		       i, clk[i]);
	return 0;
}
