/* SPDX-License-Identifier: MIT */
/* Samples of the test's own stack, as perf records them: the registers at
 * one instruction and a copy of the stack from rsp upward.  Compiled with
 * -fomit-frame-pointer, so that only the call frame information can walk
 * these frames. */
#ifndef ECP_TESTS_UNWIND_CAPTURE_H
#define ECP_TESTS_UNWIND_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "simulator/symbols/unwind.h"

/* A frame the tests expect to see: never inlined, cloned or merged by a
 * sibling call, its address its code's start (clang has no noipa: noinline
 * and no tail calls say the same there). */
#if defined(__clang__)
#define ECP_TEST_FRAME __attribute__((noinline, disable_tail_calls))
#else
#define ECP_TEST_FRAME __attribute__((noipa))
#endif

#define ECP_TEST_STACK_MAX (64 * 1024)

struct ecp_test_sample {
	uint64_t stack_end; /* in: the end of the stack mapping */
	uint64_t regs[ECP_UNWIND_NREGS];
	uint8_t stack[ECP_TEST_STACK_MAX];
	size_t stack_len;
};

/* level3 -> level2 -> level1 -> capture; each returns depth + 1. */
int ecp_test_level3(struct ecp_test_sample *s);
int ecp_test_level2(struct ecp_test_sample *s);
int ecp_test_level1(struct ecp_test_sample *s);
void ecp_test_capture(struct ecp_test_sample *s);

/* sort -> qsort (libc) -> comparator -> capture: a walk through a shared
 * library's frames.  Returns 0. */
int ecp_test_sort(struct ecp_test_sample *s);
int ecp_test_sort_compare(const void *a, const void *b);

/* In a shared library whose first PT_LOAD segment is at 0x200000: returns
 * fn(s) + 1 (unwind-offset-lib.c). */
int ecp_test_offset_call(int (*fn)(struct ecp_test_sample *), struct ecp_test_sample *s);

#endif
