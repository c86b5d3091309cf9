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
