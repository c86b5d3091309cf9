/* SPDX-License-Identifier: MIT */
#include "ecp/radix.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/hugemem.h"
#include "ecp/parallel.h"

int ecp_radix_sort(struct ecp_radix_pair *pairs, size_t n)
{
	if (n < 2)
		return 0;
	/* Bytes where every key agrees need no pass: times often fit in 5 bytes. */
	uint64_t all_or = 0, all_and = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		all_or |= pairs[i].key;
		all_and &= pairs[i].key;
	}
	uint64_t varying = all_or ^ all_and;
	if (!varying)
		return 0;
	struct ecp_radix_pair *tmp = ecp_huge_malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	struct ecp_radix_pair *src = pairs, *dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if (!((varying >> shift) & 0xffu))
			continue;
		size_t count[257];
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[((src[i].key >> shift) & 0xffu) + 1]++;
		for (unsigned b = 0; b < 256; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xffu]++] = src[i];
		struct ecp_radix_pair *t = src;
		src = dst;
		dst = t;
	}
	if (src != pairs)
		memcpy(pairs, src, n * sizeof(*pairs));
	free(tmp);
	return 0;
}

/* One pass of ecp_radix_sort_bits over [from, to) of src: the counts of
 * its digits, then (with the offsets where its elements of each digit go)
 * the scatter into dst.  Two halves count and scatter at once; the first
 * half's elements of a digit go before the second's, so the sort stays
 * stable and its result does not depend on the threads. */
enum { DIGIT = 11, BUCKETS = 1 << DIGIT };

struct radix_part {
	const uint64_t *src;
	uint64_t *dst;
	size_t from, to;
	unsigned shift;
	uint64_t mask;
	size_t count[BUCKETS]; /* counts, then offsets */
};

static void *radix_count(void *arg)
{
	struct radix_part *p = arg;
	memset(p->count, 0, sizeof(p->count));
	for (size_t i = p->from; i < p->to; i++)
		p->count[(p->src[i] >> p->shift) & p->mask]++;
	return NULL;
}

static void *radix_scatter(void *arg)
{
	struct radix_part *p = arg;
	for (size_t i = p->from; i < p->to; i++)
		p->dst[p->count[(p->src[i] >> p->shift) & p->mask]++] = p->src[i];
	return NULL;
}

/* Runs fn on both parts, the second on a thread when there is one. */
static void radix_both(void *(*fn)(void *), struct radix_part *part, unsigned n_parts)
{
	pthread_t thread;
	bool threaded = n_parts == 2 && pthread_create(&thread, NULL, fn, &part[1]) == 0;
	fn(&part[0]);
	if (threaded)
		pthread_join(thread, NULL);
	else if (n_parts == 2)
		fn(&part[1]);
}

int ecp_radix_sort_bits(uint64_t *keys, size_t n, unsigned lo_bit, unsigned hi_bit,
			bool two_threads)
{
	if (n < 2 || hi_bit <= lo_bit)
		return 0;
	uint64_t *tmp = ecp_huge_malloc(n * sizeof(*tmp));
	struct radix_part *part = malloc(2 * sizeof(*part));
	if (!tmp || !part) {
		free(tmp);
		free(part);
		return -1;
	}
	/* On large inputs two threads share every pass (ecp/parallel.h): the
	 * second core is otherwise idle while the plan sorts its nodes. */
	unsigned n_parts = two_threads ? 2 : 1;
	uint64_t *src = keys, *dst = tmp;
	for (unsigned shift = lo_bit; shift < hi_bit; shift += DIGIT) {
		unsigned width = hi_bit - shift < DIGIT ? hi_bit - shift : DIGIT;
		uint64_t mask = ((uint64_t)1 << width) - 1;
		for (unsigned j = 0; j < n_parts; j++) {
			part[j].src = src;
			part[j].dst = dst;
			part[j].from = j ? n / 2 : 0;
			part[j].to = n_parts == 2 && !j ? n / 2 : n;
			part[j].shift = shift;
			part[j].mask = mask;
		}
		radix_both(radix_count, part, n_parts);
		size_t at = 0;
		for (unsigned b = 0; b < BUCKETS; b++)
			for (unsigned j = 0; j < n_parts; j++) {
				size_t c = part[j].count[b];
				part[j].count[b] = at;
				at += c;
			}
		radix_both(radix_scatter, part, n_parts);
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
	free(tmp);
	free(part);
	return 0;
}
