/* SPDX-License-Identifier: MIT */
/* fuzz-builder: decodes the input (builder-format.h) into a sequence of
 * ecp_event and builds it four times -- both clocks, strict and lenient --
 * checking every model the builder accepts (harness-check.c). */
#include "fuzz/harness.h"

#include <stdbool.h>
#include <stdlib.h>

#include "common/error.h"
#include "fuzz/builder-format.h"
#include "simulator/trace/builder.h"
#include "simulator/ctf/event.h"

/* Thread names: ordinary, empty, long, not UTF-8, with control and format
 * characters -- they end up in the model's strings and in messages. */
static const char *const names[] = {
    "main",
    "worker",
    "",
    ("a-thread-name-much-longer-than-the-sixteen-bytes-the-kernel-keeps-"
     "for-a-comm-and-still-going-on-to-be-sure-nothing-truncates-wrongly"),
    "\xff\xfe\x80 not utf-8",
    "tab\there\nnewline",
    "%s%n%p",
};

static int build_one(const uint8_t *data, size_t size, enum ecp_clock_source clock,
		     bool lenient)
{
	static const uint64_t costs[] = {0, 3, 50, 1000};
	uint8_t opt = data[0];
	struct ecp_builder_options o = {.clock = clock,
					.event_cost_ps = 1000u * costs[(opt >> 1) & 3u],
					.keep_calls = opt & ECP_FUZZ_OPT_KEEP_CALLS,
					.lenient = lenient,
					.trace_path = "fuzz",
					.by_callsite = opt & ECP_FUZZ_OPT_BY_CALLSITE,
					.ignore_function_events =
					    opt & ECP_FUZZ_OPT_SAMPLES_ONLY};
	struct ecp_error err = {0};
	struct ecp_builder *b = NULL;
	if (ecp_builder_create(&o, &b, &err) < 0)
		return 0;
	uint64_t ts = 1000;
	uint64_t cpu[8] = {0};
	size_t n = (size - 1) / ECP_FUZZ_REC_SIZE;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = data + 1 + i * ECP_FUZZ_REC_SIZE;
		unsigned type = r[0] % (ECP_EV_COUNT + 1u);
		uint32_t tid = ecp_fuzz_tid(r[1]);
		uint64_t delta = (uint64_t)r[5] | (uint64_t)r[6] << 8;
		if (delta == 0xffffu)
			delta = (uint64_t)1 << 40;
		if (r[1] & 0x10u)
			ts -= delta < ts ? delta : ts;
		else
			ts += delta;
		cpu[r[1] & 7u] += 16u * r[7];
		if (type == ECP_EV_COUNT && (r[1] & ECP_FUZZ_SAMPLE)) {
			/* a sample: its stack a (leaf), b, c, each called from the next
			 */
			uint64_t funcs[3] = {ecp_fuzz_value(r[2]), ecp_fuzz_value(r[3]),
					     ecp_fuzz_value(r[4])};
			uint64_t sites[3] = {funcs[1] + 5, funcs[2] + 5, 0};
			if (ecp_builder_push_sample(b, tid, ts, funcs, sites,
						    1u + r[7] % 3u, &err) < 0)
				goto out;
			continue;
		}
		if (type == ECP_EV_COUNT) {
			if (ecp_builder_set_comm(
				b, tid,
				names[r[2] % (sizeof(names) / sizeof(names[0]))]) < 0)
				goto out;
			continue;
		}
		struct ecp_event ev = {
		    .ts = ts,
		    .cpu_ns = clock == ECP_CLOCK_THREAD_CPUTIME ? cpu[r[1] & 7u] : 0,
		    .a = ecp_fuzz_value(r[2]),
		    .b = ecp_fuzz_value(r[3]),
		    .c = ecp_fuzz_value(r[4]),
		    .index = i,
		    .tid = tid,
		    .type = (uint16_t)type,
		    .flags = (r[1] & 0x8u) ? ECP_EVF_TRY : 0,
		    .name = type == ECP_EV_THREAD_NAME || type == ECP_EV_UNMODELLED
				? names[r[2] % (sizeof(names) / sizeof(names[0]))]
				: NULL,
		};
		if (ecp_builder_push(b, &ev, &err) < 0)
			goto out;
	}
	struct ecp_model *m = NULL;
	if (ecp_builder_finish(b, NULL, &m, &err) == 0 && m) {
		ecp_fuzz_note("builder", NULL);
		ecp_fuzz_check_model(m, "builder");
		ecp_model_destroy(m);
		ecp_builder_destroy(b);
		return 0;
	}
out:
	ecp_fuzz_note("builder", &err);
	ecp_builder_destroy(b);
	return 0;
}

int ecp_fuzz_builder_one(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	for (int clock = 0; clock < 2; clock++)
		for (int lenient = 0; lenient < 2; lenient++)
			build_one(data, size,
				  clock ? ECP_CLOCK_THREAD_CPUTIME
					: ECP_CLOCK_PERF_SWITCH,
				  lenient);
	return 0;
}
