/* SPDX-License-Identifier: MIT */
/* OpenMP tasks for the recorder-omp-tasks test (issue 37): a serial setup;
 * a region of four threads where one thread (single) makes tasks of
 * unequal cost, which the team runs in the barrier that ends the single;
 * then a taskloop of eight tasks, made by one thread that waits for them
 * in the taskloop's taskgroup while the others wait in the barrier; a
 * serial tail.  Every task measures its own CLOCK_THREAD_CPUTIME_ID; the
 * program prints them ("key=value" lines), and the iterations each
 * taskloop task ran, so that a test can deal the tasks out as P cores
 * would and check that the taskloop's bounds reached the program.  Last,
 * a `single nowait` makes tasks that the team runs in the region's
 * closing barrier (libomp's own, written as its join: the model keeps the
 * workers in the epoch until the master joins). */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define N  12
#define NL 8
#define NW 6

static volatile double sink;
static volatile int nw = NW;

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
	static const double lcost[NL] = {2, 7, 1, 1, 4, 1, 3, 1};
	static const double wcost[NW] = {5, 1, 1, 3, 1, 2};
	long long t[N], tl[NL] = {0}, tw[NW], t0, setup, tail;
	long iters[NL] = {0};
	int team = 0;

	t0 = cpu_ns();
	work(10);
	setup = cpu_ns() - t0;
#pragma omp parallel num_threads(4)
	{
#pragma omp single
		{
			team = omp_get_num_threads();
			for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i)
				{
					long long a = cpu_ns();
					work(4 * cost[i]);
					t[i] = cpu_ns() - a;
				}
			}
		}
#pragma omp single
		{
#pragma omp taskloop num_tasks(NL)
			for (int i = 0; i < NL * 3; i++) {
				long long a = cpu_ns();
				work(4 * lcost[i / 3] / 3);
#pragma omp atomic
				tl[i / 3] += cpu_ns() - a;
#pragma omp atomic
				iters[i / 3]++;
			}
		}
#pragma omp single nowait
		{
			/* a bound the compiler cannot see: one task site, not
			 * NW unrolled ones */
			for (int i = 0; i < nw; i++) {
#pragma omp task firstprivate(i)
				{
					long long a = cpu_ns();
					work(4 * wcost[i]);
					tw[i] = cpu_ns() - a;
				}
			}
		}
	}
	t0 = cpu_ns();
	work(10);
	tail = cpu_ns() - t0;
	printf("team=%d\nsetup=%lld\ntail=%lld\n", team, setup, tail);
	for (int i = 0; i < N; i++)
		printf("task_%d=%lld\n", i, t[i]);
	for (int i = 0; i < NL; i++)
		printf("loop_%d=%lld\nloop_iters_%d=%ld\n", i, tl[i], i, iters[i]);
	for (int i = 0; i < NW; i++)
		printf("late_%d=%lld\n", i, tw[i]);
	return 0;
}
