/* SPDX-License-Identifier: MIT */
/*
 * The parallel quicksort of Sec. 4.1 / Fig. 9 (quicksort.c) written with
 * OpenMP: ParallelQuickSort() partitions its range and, while a range holds
 * more than the threshold, sorts its two parts in a nested parallel region
 * of two threads (thread 0 the left part, thread 1 the right: a fixed
 * assignment, so the recording's one-CPU scheduling cannot change it);
 * below the threshold RecursiveQuickSort() finishes both parts.  Nested
 * regions are enabled (omp_set_max_active_levels) so every level forks a
 * real team, as the pthread version creates two threads.
 *
 * Everything it uses is modelled by ecp (fork and join of nested teams).
 *
 * Usage: omp_quicksort [--scale S] [--check] [--quiet].
 */
#include "example.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define QS_ITEMS            2000000
#define QS_THREAD_THRESHOLD 100000
#define QS_KEY_STEPS        10.0
#define QS_SMALL            16
#define QS_SEED             20010101u

static int *data;
static long threshold;
static uint64_t steps_parallel, steps_recursive;

EX_HELPER long partition(long left, long right, uint64_t steps, uint64_t *acc)
{
	int pivot = data[left + (right - left) / 2];
	long i = left - 1, j = right + 1;
	for (;;) {
		do {
			i++;
			*acc += ex_burn((uint64_t)data[i], steps);
		} while (data[i] < pivot);
		do {
			j--;
			*acc += ex_burn((uint64_t)data[j], steps);
		} while (data[j] > pivot);
		if (i >= j)
			return j;
		int t = data[i];
		data[i] = data[j];
		data[j] = t;
	}
}

EX_HELPER void insertion_sort(long left, long right, uint64_t steps, uint64_t *acc)
{
	for (long i = left + 1; i <= right; i++) {
		int v = data[i];
		*acc += ex_burn((uint64_t)v, steps);
		long j = i - 1;
		while (j >= left && data[j] > v) {
			data[j + 1] = data[j];
			j--;
		}
		data[j + 1] = v;
	}
}

static EX_FUNC void RecursiveQuickSort(long left, long right)
{
	uint64_t acc = 0;
	if (right - left < QS_SMALL) {
		insertion_sort(left, right, steps_recursive, &acc);
		ex_sink(acc);
		return;
	}
	long mid = partition(left, right, steps_recursive, &acc);
	ex_sink(acc);
	RecursiveQuickSort(left, mid);
	RecursiveQuickSort(mid + 1, right);
}

static EX_FUNC void ParallelQuickSort(long left, long right)
{
	uint64_t acc = 0;
	if (right - left < QS_SMALL) {
		insertion_sort(left, right, steps_parallel, &acc);
		ex_sink(acc);
		return;
	}
	long mid = partition(left, right, steps_parallel, &acc);
	ex_sink(acc);
	if (right - left > threshold) {
#pragma omp parallel num_threads(2)
		{
			if (omp_get_thread_num() == 0)
				ParallelQuickSort(left, mid);
			else
				ParallelQuickSort(mid + 1, right);
		}
	} else {
		RecursiveQuickSort(left, mid);
		RecursiveQuickSort(mid + 1, right);
	}
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	long n = (long)ex_scaled(QS_ITEMS, opts.scale, 100);
	threshold = (long)ex_scaled(QS_THREAD_THRESHOLD, opts.scale, 10);
	steps_parallel =
	    (uint64_t)(QS_KEY_STEPS * ex_work_factor("ParallelQuickSort") + 0.5);
	steps_recursive =
	    (uint64_t)(QS_KEY_STEPS * ex_work_factor("RecursiveQuickSort") + 0.5);
	data = malloc((size_t)n * sizeof(*data));
	if (!data) {
		fprintf(stderr, "omp_quicksort: out of memory\n");
		return 1;
	}
	uint64_t sum = 0;
	for (long i = 0; i < n; i++) {
		data[i] = (int)(ex_mix(QS_SEED + (uint64_t)i) % 1000000000u);
		sum += (uint64_t)data[i];
	}
	omp_set_max_active_levels(64);
	ParallelQuickSort(0, n - 1);
	if (opts.check) {
		uint64_t after = 0;
		for (long i = 0; i < n; i++) {
			after += (uint64_t)data[i];
			if (i && data[i - 1] > data[i]) {
				fprintf(stderr, "omp_quicksort: not sorted at %ld\n", i);
				return 1;
			}
		}
		if (after != sum) {
			fprintf(stderr, "omp_quicksort: the items changed\n");
			return 1;
		}
	}
	if (!opts.quiet)
		printf("omp_quicksort: %ld items sorted\n", n);
	free(data);
	return 0;
}
