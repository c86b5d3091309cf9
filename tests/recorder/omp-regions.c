/* SPDX-License-Identifier: MIT */
/* Three parallel regions of four threads with unequal work, each after a
 * serial part, for the recorder-omp test: libgomp reuses its pool's
 * threads from region to region, and each region's work must still wait
 * for the serial part before it (the fork), and the serial part after it
 * for the whole region (the join).  Prints each piece's
 * CLOCK_THREAD_CPUTIME_ID ("key=ns"). */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define TEAM    4
#define REGIONS 3

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
	static const double serial_ms[REGIONS + 1] = {8, 12, 6, 4};
	static const double region_ms[REGIONS][TEAM] = {
	    {12, 4, 4, 4}, {3, 3, 3, 15}, {6, 10, 2, 8}};
	long long serial[REGIONS + 1], part[REGIONS][TEAM], clk[REGIONS][TEAM], t0,
	    start = cpu_ns();
	int team = 0;

	for (int r = 0; r <= REGIONS; r++) {
		t0 = cpu_ns();
		work(serial_ms[r]);
		serial[r] = cpu_ns() - t0;
		if (r == REGIONS)
			break;
#pragma omp parallel num_threads(TEAM)
		{
			int i = omp_get_thread_num();
			long long a = cpu_ns();
			work(region_ms[r][i]);
			clk[r][i] = cpu_ns();
			part[r][i] = clk[r][i] - a;
			if (i == 0)
				team = omp_get_num_threads();
		}
	}
	/* the master's whole clock: the runtime's start, forks and joins are on
	 * it, outside every piece above */
	printf("team=%d\nmaster=%lld\n", team, cpu_ns() - start);
	for (int r = 0; r <= REGIONS; r++)
		printf("serial_%d=%lld\n", r, serial[r]);
	for (int r = 0; r < REGIONS; r++)
		for (int i = 0; i < team && i < TEAM; i++)
			/* clock_: the thread's whole clock after its part (the
			 * runtime's start of the thread, its wake-ups and barriers
			 * are on it too) */
			printf("region_%d_%d=%lld\nclock_%d_%d=%lld\n", r, i, part[r][i],
			       r, i, clk[r][i]);
	return 0;
}
