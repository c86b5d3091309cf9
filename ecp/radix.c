#include "ecp/radix.h"

#include <stdlib.h>
#include <string.h>

#include "ecp/hugemem.h"

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

int ecp_radix_sort_bits(uint64_t *keys, size_t n, unsigned lo_bit, unsigned hi_bit)
{
	if (n < 2 || hi_bit <= lo_bit)
		return 0;
	enum { DIGIT = 11, BUCKETS = 1 << DIGIT };
	uint64_t *tmp = ecp_huge_malloc(n * sizeof(*tmp));
	size_t *count = malloc((BUCKETS + 1) * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -1;
	}
	uint64_t *src = keys, *dst = tmp;
	for (unsigned shift = lo_bit; shift < hi_bit; shift += DIGIT) {
		unsigned width = hi_bit - shift < DIGIT ? hi_bit - shift : DIGIT;
		uint64_t mask = ((uint64_t)1 << width) - 1;
		memset(count, 0, (BUCKETS + 1) * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[((src[i] >> shift) & mask) + 1]++;
		for (unsigned b = 0; b < BUCKETS; b++)
			count[b + 1] += count[b];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & mask]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
	free(tmp);
	free(count);
	return 0;
}
