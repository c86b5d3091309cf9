/* SPDX-License-Identifier: MIT */
/* A shared library whose first PT_LOAD segment is not at address 0
 * (linked with -Ttext-segment, see meson.build): its load bias is not the
 * address of its first mapping, which the unwinder must tell apart. */
#include "unwind-capture.h"

__attribute__((visibility("default"))) ECP_TEST_FRAME int
ecp_test_offset_call(int (*fn)(struct ecp_test_sample *), struct ecp_test_sample *s)
{
	return fn(s) + 1;
}
