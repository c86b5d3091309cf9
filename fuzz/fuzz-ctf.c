/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point of the fuzz-ctf target (harness-ctf.c). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ecp_fuzz_ctf_one(data, size);
}
