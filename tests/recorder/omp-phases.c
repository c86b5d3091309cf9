/* SPDX-License-Identifier: MIT */
/* The OpenMP acceptance program (issue 17): a serial setup; a parallel
 * region of four threads with unequal work, an explicit barrier between two
 * phases and a critical section; a serial tail.  Each piece measures its
 * own CLOCK_THREAD_CPUTIME_ID and the program prints them ("key=ns" lines)
 * so that a test can compute the ideal T_P from this run's durations.
 * Usage: omp-phases [SCALE] (work multiplier, default 1). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TEAM 4

static double scale = 1.0;
static volatile double sink;

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* About `ms` milliseconds of arithmetic on this machine at its usual speed
 * (the test does not rely on it: it uses the measured times). */
__attribute__((noinline)) static void work(double ms)
{
	double s = 0;
	long n = (long)(ms * scale * 700000.0);
	for (long k = 0; k < n; k++)
		s += (double)(k ^ 0x5a5a) * 1e-9;
	sink += s;
}

__attribute__((noinline)) static void setup(void)
{
	work(30);
}
__attribute__((noinline)) static void tail(void)
{
	work(20);
}
__attribute__((noinline)) static void phase1(int i)
{
	static const double ms[TEAM] = {40, 25, 15, 10};
	work(ms[i]);
}
__attribute__((noinline)) static void phase2(int i)
{
	static const double ms[TEAM] = {10, 20, 30, 15};
	work(ms[i]);
}
__attribute__((noinline)) static void update(void)
{
	work(3);
}

int main(int argc, char **argv)
{
	long long t_setup, t_tail, t1[TEAM], t2[TEAM], tc[TEAM], t0;
	int team = 0;

	if (argc > 1)
		scale = atof(argv[1]);
	t0 = cpu_ns();
	setup();
	t_setup = cpu_ns() - t0;
#pragma omp parallel num_threads(TEAM)
	{
		int i = omp_get_thread_num();
		long long a = cpu_ns(), b, c;
		phase1(i);
		b = cpu_ns();
		t1[i] = b - a;
#pragma omp barrier
		a = cpu_ns();
		phase2(i);
		b = cpu_ns();
		t2[i] = b - a;
#pragma omp critical
		{
			c = cpu_ns();
			update();
			tc[i] = cpu_ns() - c;
		}
		if (i == 0)
			team = omp_get_num_threads();
	}
	t0 = cpu_ns();
	tail();
	t_tail = cpu_ns() - t0;
	printf("team=%d\nsetup=%lld\ntail=%lld\n", team, t_setup, t_tail);
	for (int i = 0; i < team && i < TEAM; i++)
		printf("phase1_%d=%lld\nphase2_%d=%lld\ncritical_%d=%lld\n", i, t1[i], i,
		       t2[i], i, tc[i]);
	return 0;
}
