/* SPDX-License-Identifier: MIT */
/* From a perf sample to the functions on its stack (issue 18): places the
 * program's objects from the recorded mappings (ecp_sched:mmap), unwinds
 * the sample with libdw from its registers and stack copy (simulator/
 * unwind.h; the frame-pointer chain when that finds no caller) and turns
 * each pc into the start address of its function, which is how the builder
 * names functions (the same key the instrumentation's entry addresses give). */
#ifndef ECP_SIMULATOR_SAMPLER_H
#define ECP_SIMULATOR_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "simulator/symbols/sample.h"
#include "simulator/symbols/symbols.h"

struct ecp_sampler;

struct ecp_symbols;

/* `trace_dir`: where objects/ holds the copies the recorder kept (may be
 * NULL).  Objects placed by the mappings are also registered in `syms`
 * (may be NULL), so that frames in objects the statedump does not list
 * (the vDSO) are named too.  With own_code, the innermost frames in system
 * libraries (under /lib, /usr/lib, the vDSO) are left out: their time goes
 * to the program's function that called them. */
struct ecp_sampler *ecp_sampler_create(const char *trace_dir, struct ecp_symbols *syms,
				       bool own_code);
void ecp_sampler_destroy(struct ecp_sampler *s);

/* One file mapping of the program; returns 0 or a negative status (memory). */
int ecp_sampler_mapping(struct ecp_sampler *s, uint64_t start, uint64_t len,
			uint64_t pgoff, uint32_t prot, const char *path);

/* The function of frames outside every executable file mapping: a failed
 * unwind's garbage, or code generated at run time.  One row, "[unknown]"
 * (as perf), never rows named by addresses nothing maps (issue 34). */
#define ECP_SAMPLER_UNKNOWN ECP_UNKNOWN_FUNCTION

/* Writes the function start of each frame of `smp`, innermost first, into
 * funcs[0..max) and its call site (the return address in the next frame; 0
 * for the outermost) into sites; returns the count.  Frames of the
 * recorder (the agent, LTTng-UST) and whatever they called are left out:
 * a sample taken entirely in them gives 0 (no information on the program). */
uint32_t ecp_sampler_frames(struct ecp_sampler *s, const struct ecp_sample *smp,
			    uint64_t *funcs, uint64_t *sites, uint32_t max);
/* Frames given as ECP_SAMPLER_UNKNOWN so far. */
uint64_t ecp_sampler_unknown_frames(const struct ecp_sampler *s);

/* Samples whose stack libdw could not unwind past the leaf (the frame-
 * pointer chain was used, or the leaf alone). */
uint64_t ecp_sampler_shallow(const struct ecp_sampler *s);

#endif
