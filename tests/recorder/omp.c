/* SPDX-License-Identifier: MIT */
/* An OpenMP program with its default team, for the --as-cpus test: every
 * way it can count CPUs, then the team, then a thread that pins itself
 * elsewhere (it must stay on the recording CPU and see its mask back).
 * Prints "key=value" lines the test reads. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/sysinfo.h>
#include <unistd.h>

__attribute__((noinline)) static double work(int i)
{
	double s = 0;
	for (int k = 0; k < 200000; k++)
		s += (double)(k ^ i) * 1e-9;
	return s;
}

int main(void)
{
	cpu_set_t set, back;
	int team = 0, before = sched_getcpu();
	double sum = 0;

	CPU_ZERO(&set);
	sched_getaffinity(0, sizeof(set), &set);
	printf("affinity=%d\n", CPU_COUNT(&set));
	CPU_ZERO(&set);
	pthread_getaffinity_np(pthread_self(), sizeof(set), &set);
	printf("pthread_affinity=%d\n", CPU_COUNT(&set));
	printf("onln=%ld conf=%ld\n", sysconf(_SC_NPROCESSORS_ONLN),
	       sysconf(_SC_NPROCESSORS_CONF));
	printf("nprocs=%d nprocs_conf=%d\n", get_nprocs(), get_nprocs_conf());
	printf("omp_procs=%d\n", omp_get_num_procs());
#pragma omp parallel reduction(+ : sum)
	{
#pragma omp single
		team = omp_get_num_threads();
		sum += work(omp_get_thread_num());
	}
	printf("team=%d\n", team);
	/* pin this thread to the last CPU it is shown */
	CPU_ZERO(&set);
	CPU_SET(omp_get_num_procs() - 1, &set);
	printf("setaffinity=%d\n", sched_setaffinity(0, sizeof(set), &set));
	CPU_ZERO(&back);
	sched_getaffinity(0, sizeof(back), &back);
	printf("mask_back=%d\n", CPU_EQUAL(&set, &back));
	for (int i = 0; i < 20; i++)
		sum += work(i);
	printf("cpu_before=%d cpu_after=%d\n", before, sched_getcpu());
	return sum < 0;
}
