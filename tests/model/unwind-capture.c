/* SPDX-License-Identifier: MIT */
#include "unwind-capture.h"

#include <stdlib.h>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(addr, len) ((void)(addr), (void)(len))
#endif

#define FRAME ECP_TEST_FRAME

/* The stack copy is a raw read of other frames' memory, redzones included,
 * as the kernel's copy for perf is; volatile keeps it from becoming a
 * memcpy call that the sanitizer would check. */
__attribute__((no_sanitize_address)) FRAME static size_t
copy_stack(struct ecp_test_sample *s)
{
	const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)s->regs[7];
	size_t len = ECP_TEST_STACK_MAX;
	if (s->stack_end > s->regs[7] && s->stack_end - s->regs[7] < len)
		len = s->stack_end - s->regs[7];
	for (size_t i = 0; i < len; i++)
		s->stack[i] = from[i];
	/* perf's copy is plain bytes; memcheck would carry over which stack
	 * slots were never written, and flag the walks through garbage that
	 * the tests make on purpose */
	VALGRIND_MAKE_MEM_DEFINED(s->stack, len);
	return len;
}

FRAME void ecp_test_capture(struct ecp_test_sample *s)
{
	uint64_t *r = s->regs;
	/* All registers as they are at the lea, whose own address is rip: the
	 * stores change none of them (rax is overwritten after it is saved). */
	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rdx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rbx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "movq %%r8, 64(%0)\n\t"
			 "movq %%r9, 72(%0)\n\t"
			 "movq %%r10, 80(%0)\n\t"
			 "movq %%r11, 88(%0)\n\t"
			 "movq %%r12, 96(%0)\n\t"
			 "movq %%r13, 104(%0)\n\t"
			 "movq %%r14, 112(%0)\n\t"
			 "movq %%r15, 120(%0)\n\t"
			 "1: leaq 1b(%%rip), %%rax\n\t"
			 "movq %%rax, 128(%0)\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	/* not a tail call: copy_stack's frame must lie below the copied
	 * one, not over capture's saved registers */
	s->stack_len = copy_stack(s);
}

FRAME int ecp_test_level1(struct ecp_test_sample *s)
{
	ecp_test_capture(s);
	return 1;
}

FRAME int ecp_test_level2(struct ecp_test_sample *s)
{
	return ecp_test_level1(s) + 1;
}

FRAME int ecp_test_level3(struct ecp_test_sample *s)
{
	return ecp_test_level2(s) + 1;
}

static struct ecp_test_sample *sort_sample;

FRAME int ecp_test_sort_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (sort_sample) {
		ecp_test_capture(sort_sample);
		sort_sample = NULL;
	}
	return (x > y) - (x < y);
}

FRAME int ecp_test_sort(struct ecp_test_sample *s)
{
	int v[] = {3, 1, 2};
	sort_sample = s;
	qsort(v, 3, sizeof(v[0]), ecp_test_sort_compare);
	return v[0] - 1;
}
