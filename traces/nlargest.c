/* SPDX-License-Identifier: MIT */
/*
 * The n largest h(x) of N numbers, Sec. 4.2 / Fig. 13 and 14 of Broberg,
 * Lundberg & Grahn (JPDC 2001).  h(x) = g(f(x)) with f cheap and g expensive
 * and monotone, so: k threads apply f to N/k numbers each and keep their n
 * largest f(x); the main thread merges them into the n largest of all; then g
 * is applied to those n numbers only.
 *
 * The paper's functions (Fig. 14): f(x) = |x + 2x^2|,
 * g(y) = sum_{m=0}^{671} e^sqrt(|y + m|), N = 10,000,000, n = 5000, k = 8.
 * It found f() the function to optimize on up to four processors and g() from
 * five on (Fig. 15, 16).
 *
 * Scaled here to run in under a second on one core: N = 8,000,000, n = 25,000,
 * k = 8, g as in the paper.  The x_i come from a counter-based generator (x_i
 * in [-10, 10)), produced inside f() block by block, so that each thread reads
 * its own part without a serial input phase or 64 MB of input.  f() also pays
 * F_STEPS steps of ex_burn() per element: |x + 2x^2| alone costs a nanosecond,
 * far cheaper relative to g than on the paper's machine, and the cost gives
 * the two functions the paper's proportions.
 *
 * ECP_EXAMPLE_FASTER=f scales f's per-element cost by 0.8;
 * ECP_EXAMPLE_FASTER=g makes g sum 80% of its terms (a cheaper, still monotone
 * g: the n largest do not change).
 *
 * Usage: nlargest [--scale S] [--check] [--quiet]; S scales N and n.
 */
#include "example.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NL_ITEMS   8000000
#define NL_LARGEST 25000
#define NL_THREADS 8
#define NL_G_TERMS 672
#define NL_F_STEPS 43.0
#define NL_BLOCK   4096
#define NL_SEED    0x5eed0000ull

static size_t n_items, n_largest;
static uint64_t f_steps;
static int g_terms;

struct part {
	size_t first, count; /* the x_i of this thread */
	double *best;        /* its n largest f(x), sorted descending at the end */
	size_t n_best;
};

/* x_i, uniform in [-10, 10) */
EX_HELPER double x_of(size_t i)
{
	return (double)(ex_mix(NL_SEED + i) >> 11) * 0x1.0p-53 * 20.0 - 10.0;
}

/* f applied to x_first .. x_{first+count-1}, into out[]. */
static EX_FUNC void f(size_t first, size_t count, double *out)
{
	uint64_t acc = 0;
	for (size_t j = 0; j < count; j++) {
		double x = x_of(first + j);
		out[j] = fabs(x + 2.0 * x * x);
		acc += ex_burn(first + j, f_steps);
	}
	ex_sink(acc);
}

/* g(y) = sum_{m=0}^{terms-1} e^sqrt(|y + m|): monotone in y >= 0. */
static EX_FUNC double g(double y)
{
	double sum = 0.0;
	for (int m = 0; m < g_terms; m++)
		sum += exp(sqrt(fabs(y + m)));
	return sum;
}

/* Min-heap of the n largest values seen: heap[0] is the smallest kept. */
EX_HELPER void heap_sift_down(double *heap, size_t size, size_t pos)
{
	for (;;) {
		size_t l = 2 * pos + 1, r = l + 1, m = pos;
		if (l < size && heap[l] < heap[m])
			m = l;
		if (r < size && heap[r] < heap[m])
			m = r;
		if (m == pos)
			return;
		double t = heap[m];
		heap[m] = heap[pos];
		heap[pos] = t;
		pos = m;
	}
}

EX_HELPER void heap_offer(double *heap, size_t *size, size_t cap, double v)
{
	if (*size < cap) {
		size_t pos = (*size)++;
		heap[pos] = v;
		while (pos > 0 && heap[(pos - 1) / 2] > heap[pos]) {
			double t = heap[pos];
			heap[pos] = heap[(pos - 1) / 2];
			heap[(pos - 1) / 2] = t;
			pos = (pos - 1) / 2;
		}
	} else if (v > heap[0]) {
		heap[0] = v;
		heap_sift_down(heap, *size, 0);
	}
}

/* Heap sort of a min-heap into descending order, in place. */
EX_HELPER void heap_sort_descending(double *heap, size_t size)
{
	for (size_t end = size; end > 1; end--) {
		double t = heap[0];
		heap[0] = heap[end - 1];
		heap[end - 1] = t;
		heap_sift_down(heap, end - 1, 0);
	}
}

/* One of the k threads: f on its part, keeping the n largest. */
static void *search_part(void *arg)
{
	struct part *p = arg;
	double block[NL_BLOCK];
	for (size_t done = 0; done < p->count; done += NL_BLOCK) {
		size_t len = p->count - done < NL_BLOCK ? p->count - done : NL_BLOCK;
		f(p->first + done, len, block);
		for (size_t j = 0; j < len; j++)
			heap_offer(p->best, &p->n_best, n_largest, block[j]);
	}
	heap_sort_descending(p->best, p->n_best);
	return NULL;
}

/* Merge the k descending lists into the n largest overall, descending. */
static EX_FUNC size_t merge(struct part *parts, double *out)
{
	size_t pos[NL_THREADS] = {0};
	size_t n = 0;
	while (n < n_largest) {
		int best = -1;
		for (int t = 0; t < NL_THREADS; t++) {
			if (pos[t] < parts[t].n_best &&
			    (best < 0 ||
			     parts[t].best[pos[t]] > parts[best].best[pos[best]]))
				best = t;
		}
		if (best < 0)
			break;
		out[n++] = parts[best].best[pos[best]++];
	}
	return n;
}

static EX_NOINSTR int compare_descending(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a < b) - (a > b);
}

/* Brute force: f of every x_i, fully sorted; the top n must equal TOP and
 * h = g(f) must be non-increasing along it. */
static EX_NOINSTR int check(const double *top, const double *h, size_t n)
{
	double *all = malloc(n_items * sizeof *all);
	if (all == NULL) {
		fprintf(stderr, "nlargest: out of memory for the check\n");
		return 1;
	}
	for (size_t i = 0; i < n_items; i++) {
		double x = x_of(i);
		all[i] = fabs(x + 2.0 * x * x);
	}
	qsort(all, n_items, sizeof *all, compare_descending);
	int status = 0;
	size_t expect = n_largest < n_items ? n_largest : n_items;
	if (n != expect) {
		fprintf(stderr, "nlargest: %zu results, expected %zu\n", n, expect);
		status = 1;
	}
	for (size_t i = 0; status == 0 && i < n; i++) {
		if (top[i] != all[i]) {
			fprintf(stderr,
				"nlargest: result %zu is %.17g, brute force says %.17g\n",
				i, top[i], all[i]);
			status = 1;
		} else if (i > 0 && h[i] > h[i - 1]) {
			fprintf(stderr, "nlargest: h not monotone at %zu\n", i);
			status = 1;
		}
	}
	free(all);
	return status;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	n_items = ex_scaled(NL_ITEMS, opts.scale, NL_THREADS);
	n_largest = ex_scaled(NL_LARGEST, opts.scale, 1);
	f_steps = (uint64_t)(NL_F_STEPS * ex_work_factor("f") + 0.5);
	g_terms = (int)(NL_G_TERMS * ex_work_factor("g") + 0.5);

	struct part parts[NL_THREADS];
	pthread_t threads[NL_THREADS];
	double *storage = malloc((NL_THREADS + 2) * n_largest * sizeof *storage);
	if (storage == NULL) {
		fprintf(stderr, "nlargest: out of memory\n");
		return 1;
	}
	for (int t = 0; t < NL_THREADS; t++) {
		parts[t].first = n_items * (size_t)t / NL_THREADS;
		parts[t].count = n_items * (size_t)(t + 1) / NL_THREADS - parts[t].first;
		parts[t].best = storage + (size_t)t * n_largest;
		parts[t].n_best = 0;
		ex_check(pthread_create(&threads[t], NULL, search_part, &parts[t]),
			 "pthread_create");
	}
	for (int t = 0; t < NL_THREADS; t++)
		ex_check(pthread_join(threads[t], NULL), "pthread_join");

	double *top = storage + NL_THREADS * n_largest;
	double *h = top + n_largest;
	size_t n = merge(parts, top);
	for (size_t i = 0; i < n; i++)
		h[i] = g(top[i]);

	int status = opts.check ? check(top, h, n) : 0;
	if (status == 0 && !opts.quiet)
		printf("nlargest: the %zu largest h(x) of %zu numbers: max h = %.6g\n", n,
		       n_items, n > 0 ? h[0] : 0.0);
	free(storage);
	return status;
}
