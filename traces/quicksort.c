/* SPDX-License-Identifier: MIT */
/*
 * Parallel quicksort of Sec. 4.1 / Fig. 9 of Broberg, Lundberg & Grahn (JPDC
 * 2001): 2,000,000 integers; ParallelQuickSort() partitions its range and, as
 * long as a range holds more than 100,000 items, sorts the two parts in two new
 * threads; below that it hands both parts to RecursiveQuickSort(), the plain
 * recursive sort.  The tree of threads is unbalanced (random data, middle
 * element as pivot), so one leaf always finishes last (Fig. 10).
 *
 * The paper found RecursiveQuickSort() the function to optimize on up to five
 * processors and ParallelQuickSort() from six on (Fig. 11, 12).
 *
 * Cost model: every element a partition step visits costs QS_KEY_STEPS steps
 * of ex_burn() besides the comparison, as if the sort key were computed from a
 * record (and to make "20% faster" a knob: ECP_EXAMPLE_FASTER=
 * RecursiveQuickSort or =ParallelQuickSort scales that function's key cost by
 * 0.8; measured, the function's own time falls by 19-21%).  The data
 * come from a fixed seed; the sorted result does not depend on the knob.
 *
 * Usage: quicksort [--scale S] [--check] [--quiet]; S scales the number of
 * items and the thread threshold together (the tree keeps its shape).
 */
#include "example.h"

#include <stdio.h>
#include <stdlib.h>

#define QS_ITEMS            2000000
#define QS_THREAD_THRESHOLD 100000
#define QS_KEY_STEPS        10.0
#define QS_SMALL            16 /* ranges this small are finished by insertion sort */
#define QS_SEED             20010101u

static int *data;
static long threshold;
static uint64_t steps_parallel, steps_recursive;

/*
 * Hoare partition of data[left..right] around the middle element's value;
 * returns j such that data[left..j] <= pivot <= data[j+1..right].  Each
 * element visited pays STEPS steps of key cost.
 */
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

struct range {
	long left, right;
};

static void *parallel_thread(void *arg);

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
		struct range parts[2] = {{left, mid}, {mid + 1, right}};
		pthread_t threads[2];
		ex_check(pthread_create(&threads[0], NULL, parallel_thread, &parts[0]),
			 "pthread_create");
		ex_check(pthread_create(&threads[1], NULL, parallel_thread, &parts[1]),
			 "pthread_create");
		ex_check(pthread_join(threads[0], NULL), "pthread_join");
		ex_check(pthread_join(threads[1], NULL), "pthread_join");
	} else {
		RecursiveQuickSort(left, mid);
		RecursiveQuickSort(mid + 1, right);
	}
}

static void *parallel_thread(void *arg)
{
	const struct range *r = arg;
	ParallelQuickSort(r->left, r->right);
	return NULL;
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

	data = malloc((size_t)n * sizeof *data);
	if (data == NULL) {
		fprintf(stderr, "quicksort: out of memory for %ld items\n", n);
		return 1;
	}
	uint64_t sum_before = 0;
	for (long i = 0; i < n; i++) {
		data[i] = (int)(ex_mix(QS_SEED + (uint64_t)i) >> 33);
		sum_before += (uint64_t)data[i];
	}

	ParallelQuickSort(0, n - 1);

	int status = 0;
	if (opts.check) {
		uint64_t sum_after = 0;
		for (long i = 0; i < n; i++) {
			sum_after += (uint64_t)data[i];
			if (i > 0 && data[i - 1] > data[i]) {
				fprintf(stderr, "quicksort: not sorted at index %ld\n",
					i);
				status = 1;
				break;
			}
		}
		if (status == 0 && sum_after != sum_before) {
			fprintf(stderr, "quicksort: the items changed (checksum)\n");
			status = 1;
		}
	}
	if (status == 0 && !opts.quiet)
		printf("quicksort: sorted %ld items\n", n);
	free(data);
	return status;
}
