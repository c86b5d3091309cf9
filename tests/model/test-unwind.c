/* SPDX-License-Identifier: MIT */
/* Unit tests of the offline unwinder (simulator/symbols/unwind.c) on the test's own
 * stack: samples taken in code without frame pointers (unwind-capture.c)
 * are walked with the CFI of the executable and of the libraries, registered from
 * /proc/self/maps as the trace's statedump would list them; with a
 * stripped copy of the executable the functions keep their FDE identity;
 * objects can come after unwinding started; garbage neither crashes nor
 * loops; perf's register order is converted. */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "simulator/model/arena.h"
#include "simulator/symbols/sampler.h"
#include "simulator/symbols/symbols.h"
#include "simulator/symbols/unwind.h"
#include "unwind-capture.h"

#define MAX_FRAMES  128
#define MAX_OBJECTS 64

/* A file mapped into this process, as a statedump lists it: from its lowest
 * mapping (its first PT_LOAD) to the end of its highest. */
struct mapped {
	char path[PATH_MAX];
	uint64_t lo, hi;
};

static struct mapped objects[MAX_OBJECTS];
static size_t n_objects;
static char exe[PATH_MAX];
/* qsort's library: libc, or a sanitizer runtime that intercepts qsort */
static const struct mapped *exe_obj, *qsort_obj;
static uint64_t qsort_addr;

/* Once, before libdw maps files of its own into the process. */
static void read_maps(void)
{
	if (n_objects)
		return;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	FILE *maps = fopen("/proc/self/maps", "r");
	assert_non_null(maps);
	char line[PATH_MAX + 128];
	n_objects = 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long a, b;
		char path[PATH_MAX] = "";
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %4095s", &a, &b, path) != 3 ||
		    path[0] != '/')
			continue;
		size_t k = 0;
		while (k < n_objects && strcmp(objects[k].path, path))
			k++;
		if (k == n_objects) {
			assert_true(n_objects < MAX_OBJECTS);
			snprintf(objects[k].path, sizeof(objects[k].path), "%s", path);
			objects[k].lo = a;
			objects[k].hi = b;
			n_objects++;
		}
		if (a < objects[k].lo)
			objects[k].lo = a;
		if (b > objects[k].hi)
			objects[k].hi = b;
	}
	fclose(maps);
	qsort_addr = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "qsort");
	exe_obj = qsort_obj = NULL;
	for (size_t k = 0; k < n_objects; k++) {
		if (!strcmp(objects[k].path, exe))
			exe_obj = &objects[k];
		if (qsort_addr >= objects[k].lo && qsort_addr < objects[k].hi)
			qsort_obj = &objects[k];
	}
	assert_non_null(exe_obj);
	assert_non_null(qsort_obj);
	assert_true(qsort_obj != exe_obj);
}

/* The end of the mapping that holds addr: how far up the stack goes. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	assert_non_null(maps);
	char line[PATH_MAX + 128];
	uint64_t end = 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long a, b;
		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b)
			end = b;
	}
	fclose(maps);
	assert_true(end != 0);
	return end;
}

static struct ecp_unwinder *unwinder_of_all_objects(void)
{
	struct ecp_unwinder *u = ecp_unwinder_create();
	assert_non_null(u);
	for (size_t k = 0; k < n_objects; k++)
		assert_int_equal(ecp_unwinder_add_object(u, objects[k].lo,
							 objects[k].hi - objects[k].lo,
							 objects[k].path, NULL),
				 0);
	return u;
}

static bool inside(const struct mapped *o, uint64_t addr)
{
	return addr >= o->lo && addr < o->hi;
}

static uint64_t fn_addr(int (*fn)(struct ecp_test_sample *))
{
	return (uint64_t)(uintptr_t)fn;
}

/* The function each frame is in: the sampled instruction for the first,
 * the call before the return address for the others. */
static uint64_t frame_function(struct ecp_unwinder *u, const uint64_t *pcs, size_t k,
			       bool *named)
{
	return ecp_unwinder_function_start(u, k ? pcs[k] - 1 : pcs[k], named);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static struct ecp_test_sample sample; /* 64 KiB: not on the stack it copies */

/* Captures level3 -> level2 -> level1 -> capture, called from here. */
ECP_TEST_FRAME static void capture_levels(void)
{
	int here = 0;
	sample.stack_end = mapping_end((uint64_t)(uintptr_t)&here);
	assert_int_equal(ecp_test_level3(&sample), 3);
}

/* The frames capture, level1, level2, level3, capture_levels, then the test
 * harness down to the executable's _start. */
static void check_levels(struct ecp_unwinder *u, const uint64_t *pcs, size_t n,
			 bool expect_named)
{
	const uint64_t expect[] = {
	    (uint64_t)(uintptr_t)&ecp_test_capture,
	    fn_addr(ecp_test_level1),
	    fn_addr(ecp_test_level2),
	    fn_addr(ecp_test_level3),
	    (uint64_t)(uintptr_t)&capture_levels,
	};
	const size_t n_expect = sizeof(expect) / sizeof(expect[0]);
	assert_true(n > n_expect);
	assert_int_equal(pcs[0], sample.regs[ECP_UNWIND_REG_IP]);
	for (size_t k = 0; k < n_expect; k++) {
		bool named = !expect_named;
		assert_true(inside(exe_obj, pcs[k]));
		assert_int_equal(frame_function(u, pcs, k, &named), expect[k]);
		assert_true(named == expect_named);
	}
}

static void test_unwind_levels(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t pcs[MAX_FRAMES];
	size_t n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
				     MAX_FRAMES);
	/* the first lookups, which scan symbol tables and CFI */
	double c0 = now_us();
	for (size_t k = 0; k < n; k++)
		frame_function(u, pcs, k, NULL);
	double c1 = now_us();
	/* other addresses in the same functions: tables loaded, not cached */
	for (size_t k = 0; k < n; k++)
		ecp_unwinder_function_start(u, k ? pcs[k] - 2 : pcs[k] + 1, NULL);
	double c2 = now_us();
	printf("levels: function_start: %.1f us per frame first (tables loaded), "
	       "then %.1f us per new address\n",
	       (c1 - c0) / (double)n, (c2 - c1) / (double)n);
	printf("levels: %zu frames from a %zu-byte stack:", n, sample.stack_len);
	for (size_t k = 0; k < n; k++) {
		const char *name =
		    ecp_unwinder_function_name(u, k ? pcs[k] - 1 : pcs[k], NULL);
		printf(" %s", name ? name : "?");
	}
	printf("\n");
	check_levels(u, pcs, n, true);
	assert_string_equal(ecp_unwinder_function_name(u, pcs[2] - 1, NULL),
			    "ecp_test_level2");
	/* every frame is in a registered object, and the walk ends where the
	 * program starts: the executable's _start, whose CFI marks rip
	 * undefined */
	for (size_t k = 0; k < n; k++) {
		bool in_some = false;
		for (size_t j = 0; j < n_objects; j++)
			in_some |= inside(&objects[j], pcs[k]);
		assert_true(in_some);
	}
	assert_true(inside(exe_obj, pcs[n - 1]));
	assert_string_equal(ecp_unwinder_function_name(u, pcs[n - 1] - 1, NULL),
			    "_start");
	assert_true(n < MAX_FRAMES);

	/* max bounds the frames */
	uint64_t few[3];
	assert_int_equal(
	    ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, few, 3), 3);
	assert_memory_equal(few, pcs, sizeof(few));

	/* the cost of a sample, whose frames' CFI is parsed and cached */
	const int rounds = 20000;
	double t0 = now_us();
	for (int i = 0; i < rounds; i++)
		assert_int_equal(ecp_unwind_sample(u, sample.regs, sample.stack,
						   sample.stack_len, pcs, MAX_FRAMES),
				 n);
	double t1 = now_us();
	for (int i = 0; i < rounds; i++)
		for (size_t k = 0; k < n; k++)
			frame_function(u, pcs, k, NULL);
	double t2 = now_us();
	printf("levels: %d unwinds of %zu frames: %.2f us per unwind; "
	       "function_start, again: %.3f us per frame\n",
	       rounds, n, (t1 - t0) / rounds, (t2 - t1) / ((double)rounds * (double)n));
	ecp_unwinder_destroy(u);
}

/* A copy shorter than the stack ends the walk where it ends, with the same
 * frames up to there; none at all leaves the sampled pc alone. */
static void test_unwind_truncated_stack(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t full[MAX_FRAMES], part[MAX_FRAMES];
	size_t n_full = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len,
					  full, MAX_FRAMES);
	/* perf's default copy for --call-graph dwarf */
	size_t n =
	    ecp_unwind_sample(u, sample.regs, sample.stack, 8192, part, MAX_FRAMES);
	printf("truncated: %zu of %zu frames from 8192 bytes\n", n, n_full);
	assert_true(n >= 6 && n <= n_full);
	assert_memory_equal(part, full, n * sizeof(part[0]));
	check_levels(u, part, n, true);
	for (size_t len = 0; len < 512; len += 8) {
		n = ecp_unwind_sample(u, sample.regs, sample.stack, len, part,
				      MAX_FRAMES);
		assert_true(n >= 1 && n <= n_full);
		assert_memory_equal(part, full, n * sizeof(part[0]));
	}
	assert_int_equal(ecp_unwind_sample(u, sample.regs, NULL, 0, part, MAX_FRAMES), 1);
	assert_int_equal(part[0], sample.regs[ECP_UNWIND_REG_IP]);
	ecp_unwinder_destroy(u);
}

/* The stack as the trace carries it since issue 35 (COBS, decoded as far
 * as the walk reads): the same frames, at most the bytes the walk needs
 * decoded, and a damaged encoding ends the walk and says so. */
static void test_unwind_cobs_stack(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t full[MAX_FRAMES], lazy[MAX_FRAMES];
	size_t len = sample.stack_len < 8192 ? sample.stack_len : 8192;
	size_t n_full =
	    ecp_unwind_sample(u, sample.regs, sample.stack, len, full, MAX_FRAMES);
	char *enc = malloc(ecp_cobs_max(len));
	uint8_t *out = malloc(len + 16); /* room for the damaged case below */
	assert_non_null(enc);
	assert_non_null(out);
	size_t enc_len = ecp_cobs_encode(sample.stack, len, enc);
	struct ecp_cobs_cursor c;
	ecp_cobs_cursor_init(&c, enc, enc_len, out, len);
	size_t n = ecp_unwind_sample_cobs(u, sample.regs, &c, lazy, MAX_FRAMES);
	printf("cobs: %zu of %zu frames, %zu of %zu bytes decoded\n", n, n_full, c.o,
	       len);
	assert_int_equal(n, n_full);
	assert_memory_equal(lazy, full, n * sizeof(lazy[0]));
	assert_false(c.bad);
	assert_memory_equal(out, sample.stack, c.o);
	/* room for 16 bytes only: the walk ends where it needs more */
	ecp_cobs_cursor_init(&c, enc, enc_len, out, 16);
	n = ecp_unwind_sample_cobs(u, sample.regs, &c, lazy, MAX_FRAMES);
	assert_true(c.bad);
	assert_true(n >= 1 && n < n_full);
	assert_memory_equal(lazy, full, n * sizeof(lazy[0]));
	/* a last block that claims 15 bytes the encoding does not have */
	enc[enc_len] = 0x10;
	ecp_cobs_cursor_init(&c, enc, enc_len + 1, out, len + 16);
	assert_int_equal(ecp_cobs_cursor_reach(&c, SIZE_MAX), -1);
	assert_true(c.bad);
	free(enc);
	free(out);
	ecp_unwinder_destroy(u);
}

/* The stack in COBS with zero runs (how the trace carries it since it was
 * found mostly zeros): the same frames as from the bytes, and a damaged
 * encoding ends the walk and says so. */
static void test_unwind_zero_runs_stack(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t full[MAX_FRAMES], lazy[MAX_FRAMES];
	size_t len = sample.stack_len < 8192 ? sample.stack_len : 8192;
	size_t n_full =
	    ecp_unwind_sample(u, sample.regs, sample.stack, len, full, MAX_FRAMES);
	char *enc = malloc(ecp_cobs_zr_max(len));
	uint8_t *out = malloc(len + 16);
	assert_non_null(enc);
	assert_non_null(out);
	size_t enc_len = ecp_cobs_zr_encode(sample.stack, len, enc);
	struct ecp_cobs_cursor c;
	ecp_cobs_zr_cursor_init(&c, enc, enc_len, out, len);
	size_t n = ecp_unwind_sample_cobs(u, sample.regs, &c, lazy, MAX_FRAMES);
	printf("zero runs: %zu of %zu frames, %zu of %zu bytes decoded from %zu\n", n,
	       n_full, c.o, len, enc_len);
	assert_int_equal(n, n_full);
	assert_memory_equal(lazy, full, n * sizeof(lazy[0]));
	assert_false(c.bad);
	assert_memory_equal(out, sample.stack, c.o);
	/* room for 16 bytes only: the walk ends where it needs more */
	ecp_cobs_zr_cursor_init(&c, enc, enc_len, out, 16);
	n = ecp_unwind_sample_cobs(u, sample.regs, &c, lazy, MAX_FRAMES);
	assert_true(c.bad);
	assert_true(n >= 1 && n < n_full);
	assert_memory_equal(lazy, full, n * sizeof(lazy[0]));
	/* a last block that claims 15 bytes the encoding does not have */
	enc[enc_len] = 0x10;
	ecp_cobs_zr_cursor_init(&c, enc, enc_len + 1, out, len + 16);
	assert_int_equal(ecp_cobs_cursor_reach(&c, SIZE_MAX), -1);
	assert_true(c.bad);
	free(enc);
	free(out);
	ecp_unwinder_destroy(u);
}

/* sort -> qsort (a library) -> compare -> capture, called from here. */
ECP_TEST_FRAME static void capture_sort(void)
{
	int here = 0;
	sample.stack_end = mapping_end((uint64_t)(uintptr_t)&here);
	assert_int_equal(ecp_test_sort(&sample), 0);
}

/* The frame index of the first frame in fn, or n. */
static size_t find_function(struct ecp_unwinder *u, const uint64_t *pcs, size_t n,
			    uint64_t fn)
{
	for (size_t k = 0; k < n; k++)
		if (frame_function(u, pcs, k, NULL) == fn)
			return k;
	return n;
}

/* capture, compare, qsort's library's frames (at least one), sort,
 * capture_sort. */
static bool walks_through_library(struct ecp_unwinder *u, const uint64_t *pcs, size_t n)
{
	size_t compare =
	    find_function(u, pcs, n, (uint64_t)(uintptr_t)&ecp_test_sort_compare);
	size_t sort = find_function(u, pcs, n, fn_addr(ecp_test_sort));
	if (compare != 1 || sort >= n - 1 || sort < compare + 2)
		return false;
	for (size_t k = compare + 1; k < sort; k++)
		if (!inside(qsort_obj, pcs[k]))
			return false;
	return frame_function(u, pcs, sort + 1, NULL) ==
	       (uint64_t)(uintptr_t)&capture_sort;
}

static void test_unwind_shared_library(void **state)
{
	(void)state;
	read_maps();
	capture_sort();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t pcs[MAX_FRAMES];
	size_t n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
				     MAX_FRAMES);
	printf("sort: %zu frames:", n);
	for (size_t k = 0; k < n; k++) {
		const char *name =
		    ecp_unwinder_function_name(u, k ? pcs[k] - 1 : pcs[k], NULL);
		printf(" %s%s", name ? name : "?",
		       inside(qsort_obj, pcs[k]) ? "@lib" : "");
	}
	printf("\n");
	assert_true(walks_through_library(u, pcs, n));
	/* the library's functions are named, at its bias */
	bool named = false;
	assert_int_equal(ecp_unwinder_function_start(u, qsort_addr + 1, &named),
			 qsort_addr);
	assert_true(named);
	const char *name = ecp_unwinder_function_name(u, qsort_addr + 1, NULL);
	assert_non_null(name);
	assert_non_null(strstr(name, "qsort"));
	ecp_unwinder_destroy(u);
}

/* The library with its first PT_LOAD at 0x200000, as the dynamic loader
 * sees it. */
struct loaded {
	uint64_t bias, first_vaddr;
	bool found;
};

static int find_offset_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded *l = arg;
	(void)size;
	if (!strstr(info->dlpi_name, "libecp-test-unwind-offset"))
		return 0;
	for (int k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_LOAD) {
			l->bias = info->dlpi_addr;
			l->first_vaddr = info->dlpi_phdr[k].p_vaddr;
			l->found = true;
			break;
		}
	return 1;
}

/* level1 called from the offset library, called from here. */
ECP_TEST_FRAME static void capture_offset(void)
{
	int here = 0;
	sample.stack_end = mapping_end((uint64_t)(uintptr_t)&here);
	assert_int_equal(ecp_test_offset_call(ecp_test_level1, &sample), 2);
}

/* The bias rule, baddr - (first PT_LOAD p_vaddr), on a library where the
 * two differ: its CFI walks its frame and its symbols name it. */
static void test_unwind_offset_library(void **state)
{
	(void)state;
	read_maps();
	struct loaded l = {0};
	dl_iterate_phdr(find_offset_lib, &l);
	assert_true(l.found);
	assert_int_equal(l.first_vaddr, 0x200000);
	uint64_t call = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "ecp_test_offset_call");
	const struct mapped *lib = NULL;
	for (size_t k = 0; k < n_objects; k++)
		if (inside(&objects[k], call))
			lib = &objects[k];
	assert_non_null(lib);
	/* its lowest mapping is its first PT_LOAD, where the statedump puts
	 * baddr (dlpi_addr + p_vaddr) */
	assert_int_equal(lib->lo, l.bias + l.first_vaddr);

	capture_offset();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t pcs[MAX_FRAMES];
	size_t n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
				     MAX_FRAMES);
	printf("offset library: %zu frames\n", n);
	/* capture, level1, ecp_test_offset_call, capture_offset, ... */
	assert_true(n > 4);
	assert_int_equal(frame_function(u, pcs, 1, NULL), fn_addr(ecp_test_level1));
	bool named = false;
	assert_true(inside(lib, pcs[2]));
	assert_int_equal(frame_function(u, pcs, 2, &named), call);
	assert_true(named);
	assert_string_equal(ecp_unwinder_function_name(u, pcs[2] - 1, NULL),
			    "ecp_test_offset_call");
	assert_int_equal(frame_function(u, pcs, 3, NULL),
			 (uint64_t)(uintptr_t)&capture_offset);

	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_strings *arena = ecp_strings_create();
	assert_int_equal(
	    ecp_symbols_add_object(syms, lib->lo, lib->hi - lib->lo, lib->path), 0);
	const char *name, *object;
	assert_int_equal(ecp_symbols_resolve(syms, call + 1, arena, &name, &object), 0);
	assert_string_equal(name, "ecp_test_offset_call");
	ecp_symbols_destroy(syms);
	ecp_strings_destroy(arena);
	ecp_unwinder_destroy(u);
}

/* Whether u knows qsort's library: names qsort there. */
static bool knows_library(struct ecp_unwinder *u)
{
	bool named = false;
	return ecp_unwinder_function_start(u, qsort_addr + 1, &named) == qsort_addr &&
	       named;
}

/* qsort's library registered after a first unwind (as after a dlopen),
 * replaced by another object at the same place, then registered again.
 * (Without the library, its frames may still be walked: libdw falls back
 * on frame pointers where it has no CFI.) */
static void test_unwind_objects_added_later(void **state)
{
	(void)state;
	read_maps();
	capture_sort();
	struct ecp_unwinder *u = ecp_unwinder_create();
	assert_non_null(u);
	assert_int_equal(ecp_unwinder_add_object(u, exe_obj->lo,
						 exe_obj->hi - exe_obj->lo, exe_obj->path,
						 NULL),
			 0);
	uint64_t pcs[MAX_FRAMES];
	size_t n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
				     MAX_FRAMES);
	assert_true(n >= 2);
	assert_false(knows_library(u));
	uint64_t lib_size = qsort_obj->hi - qsort_obj->lo;
	assert_int_equal(
	    ecp_unwinder_add_object(u, qsort_obj->lo, lib_size, qsort_obj->path, NULL),
	    0);
	n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
			      MAX_FRAMES);
	assert_true(walks_through_library(u, pcs, n));
	assert_true(knows_library(u));
	size_t n_with_lib = n;

	/* dlclose, then another object (unreadable here) at the same place */
	assert_int_equal(ecp_unwinder_add_object(u, qsort_obj->lo, lib_size,
						 "/nonexistent", "/nonexistent"),
			 0);
	n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
			      MAX_FRAMES);
	assert_true(n >= 2);
	assert_false(knows_library(u));
	assert_int_equal(
	    ecp_unwinder_add_object(u, qsort_obj->lo, lib_size, qsort_obj->path, NULL),
	    0);
	n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
			      MAX_FRAMES);
	assert_true(walks_through_library(u, pcs, n));
	assert_true(knows_library(u));
	assert_int_equal(n, n_with_lib);
	ecp_unwinder_destroy(u);
}

/* A copy of the executable stripped of its symbol tables (meson.build):
 * the CFI still walks it and tells its functions apart, unnamed; the
 * symbol names become object+0xOFFSET. */
static void test_unwind_stripped_copy(void **state)
{
	(void)state;
	const char *copy = getenv("ECP_TEST_STRIPPED_COPY");
	if (!copy || access(copy, R_OK) != 0) {
		printf("no stripped copy: ECP_TEST_STRIPPED_COPY=%s\n", copy ? copy : "");
		skip();
	}
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = ecp_unwinder_create();
	assert_non_null(u);
	for (size_t k = 0; k < n_objects; k++)
		assert_int_equal(ecp_unwinder_add_object(
				     u, objects[k].lo, objects[k].hi - objects[k].lo,
				     objects[k].path,
				     &objects[k] == exe_obj ? copy : NULL),
				 0);
	uint64_t pcs[MAX_FRAMES];
	size_t n = ecp_unwind_sample(u, sample.regs, sample.stack, sample.stack_len, pcs,
				     MAX_FRAMES);
	printf("stripped: %zu frames\n", n);
	check_levels(u, pcs, n, false);
	assert_null(ecp_unwinder_function_name(u, pcs[2] - 1, NULL));

	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_strings *arena = ecp_strings_create();
	assert_non_null(syms);
	assert_non_null(arena);
	assert_int_equal(ecp_symbols_add_object_copy(
			     syms, exe_obj->lo, exe_obj->hi - exe_obj->lo, exe, copy),
			 0);
	const char *name, *object;
	uint64_t level2 = fn_addr(ecp_test_level2);
	assert_int_equal(ecp_symbols_resolve(syms, level2, arena, &name, &object), 0);
	char expect[PATH_MAX + 32];
	snprintf(expect, sizeof(expect), "%s+0x%llx", strrchr(exe, '/') + 1,
		 (unsigned long long)(level2 - exe_obj->lo));
	assert_string_equal(name, expect);
	assert_string_equal(object, exe);
	ecp_symbols_destroy(syms);
	ecp_strings_destroy(arena);
	ecp_unwinder_destroy(u);
}

/* A stripped copy whose .gnu_debuglink names a debug file beside it:
 * libdwfl finds the symbols there, for the unwinder and for ecp_symbols. */
static void test_unwind_debuglink_copy(void **state)
{
	(void)state;
	const char *copy = getenv("ECP_TEST_DEBUGLINK_COPY");
	if (!copy || access(copy, R_OK) != 0) {
		printf("no debuglink copy: ECP_TEST_DEBUGLINK_COPY=%s\n",
		       copy ? copy : "");
		skip();
	}
	read_maps();
	struct ecp_unwinder *u = ecp_unwinder_create();
	assert_non_null(u);
	assert_int_equal(
	    ecp_unwinder_add_object(u, exe_obj->lo, exe_obj->hi - exe_obj->lo, exe, copy),
	    0);
	uint64_t level2 = fn_addr(ecp_test_level2);
	bool named = false;
	assert_int_equal(ecp_unwinder_function_start(u, level2 + 3, &named), level2);
	assert_true(named);
	assert_string_equal(ecp_unwinder_function_name(u, level2 + 3, NULL),
			    "ecp_test_level2");

	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_strings *arena = ecp_strings_create();
	assert_int_equal(ecp_symbols_add_object_copy(
			     syms, exe_obj->lo, exe_obj->hi - exe_obj->lo, exe, copy),
			 0);
	const char *name, *object;
	assert_int_equal(ecp_symbols_resolve(syms, level2 + 3, arena, &name, &object), 0);
	assert_string_equal(name, "ecp_test_level2");
	/* the names come from the debug file: the copy is not unreadable */
	assert_int_equal(ecp_symbols_n_unreadable(syms), 0);
	ecp_symbols_destroy(syms);
	ecp_strings_destroy(arena);
	ecp_unwinder_destroy(u);
}

/* ecp_symbols asks libdwfl only when the object's own tables miss: the
 * names it gave before stay. */
static void test_symbols_through_libdw(void **state)
{
	(void)state;
	read_maps();
	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_strings *arena = ecp_strings_create();
	for (size_t k = 0; k < n_objects; k++)
		assert_int_equal(ecp_symbols_add_object(syms, objects[k].lo,
							objects[k].hi - objects[k].lo,
							objects[k].path),
				 0);
	const char *name, *object;
	assert_int_equal(ecp_symbols_resolve(syms, fn_addr(ecp_test_level1) + 1, arena,
					     &name, &object),
			 0);
	assert_string_equal(name, "ecp_test_level1");
	assert_int_equal(ecp_symbols_resolve(syms, qsort_addr, arena, &name, &object), 0);
	assert_non_null(strstr(name, "qsort"));
	assert_string_equal(object, qsort_obj->path);
	ecp_symbols_destroy(syms);
	ecp_strings_destroy(arena);
}

/* perf's register order to DWARF's, with perf's extra registers (flags,
 * segments) in between. */
/* Frames no file maps (a failed unwind's garbage, as x264's 1,591 samples
 * named by impossible addresses) are one "[unknown]" frame, a run of them
 * collapsed; frames in mapped code keep their functions (issue 34). */
static void test_sampler_unknown_frames(void **state)
{
	(void)state;
	read_maps();
	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_sampler *s = ecp_sampler_create(NULL, syms, false);
	assert_non_null(s);
	/* the test program, as the recorder's mmap records give it */
	assert_int_equal(ecp_sampler_mapping(s, exe_obj->lo, exe_obj->hi - exe_obj->lo, 0,
					     PROT_READ | PROT_EXEC, exe),
			 0);
	uint64_t in_exe = (uint64_t)(uintptr_t)&test_sampler_unknown_frames;
	uint64_t chain[] = {in_exe + 4, 0x10000fffdffffull, 0xdead0000ull, in_exe + 8};
	struct ecp_sample smp = {.n_chain = 4, .chain = chain};
	uint64_t funcs[8], sites[8];
	uint32_t n = ecp_sampler_frames(s, &smp, funcs, sites, 8);
	assert_int_equal(n, 3);
	assert_int_equal(funcs[0], in_exe);
	assert_int_equal(funcs[1], ECP_UNKNOWN_FUNCTION);
	assert_int_equal(funcs[2], in_exe);
	assert_int_equal(ecp_sampler_unknown_frames(s), 1);
	/* garbage past the outermost function is dropped, not a caller */
	uint64_t tail[] = {in_exe + 4, in_exe + 8, 0xdead0000ull, 0x10000fffdffffull};
	struct ecp_sample ended = {.n_chain = 4, .chain = tail};
	n = ecp_sampler_frames(s, &ended, funcs, sites, 8);
	assert_int_equal(n, 2);
	assert_int_equal(funcs[1], in_exe);
	assert_int_equal(sites[1], 0);
	assert_int_equal(ecp_sampler_unknown_frames(s), 1);
	struct ecp_strings *arena = ecp_strings_create();
	assert_non_null(arena);
	const char *name, *object;
	assert_int_equal(
	    ecp_symbols_resolve(syms, ECP_UNKNOWN_FUNCTION, arena, &name, &object), 0);
	assert_string_equal(name, "[unknown]");
	assert_int_equal(ecp_symbols_resolve(syms, in_exe, arena, &name, &object), 0);
	assert_string_equal(name, "test_sampler_unknown_frames");
	ecp_strings_destroy(arena);
	ecp_sampler_destroy(s);
	ecp_symbols_destroy(syms);
}

/* A walk that stops at its first frame falls back on the frame-pointer
 * chain only where the chain's first caller is code (a file's, or a JIT's
 * anonymous executable memory): a new thread's first instruction, where
 * the frame pointer points into whatever the new stack holds, keeps its
 * leaf alone instead of an [unknown] caller (quicksort's ParallelQuickSort
 * sampled 4.7% low for it). */
static void test_sampler_chain_not_code(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_sampler *s = ecp_sampler_create(NULL, NULL, false);
	assert_non_null(s);
	assert_int_equal(ecp_sampler_mapping(s, exe_obj->lo, exe_obj->hi - exe_obj->lo, 0,
					     PROT_READ | PROT_EXEC, exe),
			 0);
	/* a JIT's code: executable memory no file backs */
	const uint64_t jit = 0x7e0000000000ull;
	assert_int_equal(
	    ecp_sampler_mapping(s, jit, 1 << 20, 0, PROT_READ | PROT_EXEC, "//anon"), 0);
	/* a copy too short for the leaf's return address: the walk stops at
	 * the leaf */
	struct ecp_unwinder *u = unwinder_of_all_objects();
	uint64_t pcs[MAX_FRAMES];
	size_t len = 8;
	assert_int_equal(
	    ecp_unwind_sample(u, sample.regs, sample.stack, len, pcs, MAX_FRAMES), 1);
	ecp_unwinder_destroy(u);

	uint64_t pc = sample.regs[ECP_UNWIND_REG_IP];
	uint64_t in_exe = (uint64_t)(uintptr_t)&test_sampler_chain_not_code;
	uint64_t heap_chain[] = {pc, 0x7f1350000e30ull, 0x7f1350000e30ull, in_exe + 8};
	uint64_t code_chain[] = {pc, in_exe + 8};
	uint64_t jit_chain[] = {pc, jit + 16, in_exe + 8};
	struct ecp_sample smp = {.n_regs = ECP_UNWIND_NREGS,
				 .regs = sample.regs,
				 .n_stack = (uint32_t)(len / 8),
				 .stack = (const uint64_t *)(const void *)sample.stack};
	uint64_t funcs[8], sites[8];
	smp.chain = heap_chain;
	smp.n_chain = 4;
	assert_int_equal(ecp_sampler_frames(s, &smp, funcs, sites, 8), 1);
	assert_int_equal(funcs[0], (uint64_t)(uintptr_t)&ecp_test_capture);
	assert_int_equal(ecp_sampler_unknown_frames(s), 0);
	smp.chain = code_chain;
	smp.n_chain = 2;
	assert_int_equal(ecp_sampler_frames(s, &smp, funcs, sites, 8), 2);
	assert_int_equal(funcs[1], in_exe);
	smp.chain = jit_chain;
	smp.n_chain = 3;
	assert_int_equal(ecp_sampler_frames(s, &smp, funcs, sites, 8), 3);
	assert_int_equal(funcs[1], ECP_UNKNOWN_FUNCTION);
	assert_int_equal(funcs[2], in_exe);
	/* more JIT mappings after the first lookup, out of order, one
	 * overlapping the first's end: code is their union, a gap is not */
	assert_int_equal(ecp_sampler_mapping(s, jit + 0x200000, 0x1000, 0,
					     PROT_READ | PROT_EXEC, "//anon"),
			 0);
	assert_int_equal(ecp_sampler_mapping(s, jit + 0xff000, 0x2000, 0,
					     PROT_READ | PROT_EXEC, "//anon"),
			 0);
	assert_int_equal(ecp_sampler_mapping(s, jit - 0x10000000000ull, 0x1000, 0,
					     PROT_READ | PROT_EXEC, "//anon"),
			 0);
	assert_int_equal(
	    ecp_sampler_mapping(s, jit + 0x400000, 0x1000, 0, PROT_READ, "//anon"),
	    0); /* data, not code */
	const struct {
		uint64_t caller;
		uint32_t frames;
	} cases[] = {
	    {jit + 0x100800, 3},             /* in the overlapping one's tail */
	    {jit + 0x150000, 1},             /* between mappings */
	    {jit + 0x200ff8, 3},             /* the out-of-order one */
	    {jit - 0x10000000000ull + 8, 3}, /* below every other */
	    {jit + 0x400010, 1},             /* not executable */
	    {jit + 0x201000, 1},             /* just past one's end */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		jit_chain[1] = cases[i].caller;
		assert_int_equal(ecp_sampler_frames(s, &smp, funcs, sites, 8),
				 cases[i].frames);
	}
	ecp_sampler_destroy(s);
}

/* A file loaded again elsewhere is registered there; its code mapped a
 * second time by file offset (node maps part of its binary twice) is named
 * where the file was registered: one function, one row. */
static void test_sampler_mapped_twice(void **state)
{
	(void)state;
	read_maps();
	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_sampler *s = ecp_sampler_create(NULL, syms, false);
	assert_non_null(s);
	uint64_t len = exe_obj->hi - exe_obj->lo, again = exe_obj->lo + (1ull << 36);
	assert_int_equal(
	    ecp_sampler_mapping(s, exe_obj->lo, len, 0, PROT_READ | PROT_EXEC, exe), 0);
	assert_int_equal(
	    ecp_sampler_mapping(s, again, len, 0, PROT_READ | PROT_EXEC, exe), 0);
	uint64_t in_exe = (uint64_t)(uintptr_t)&test_sampler_mapped_twice;
	/* a whole second load (an exec'd process, a library loaded again):
	 * registered where it is, for unwinding there */
	uint64_t chain[] = {in_exe + 4 - exe_obj->lo + again, in_exe + 8};
	struct ecp_sample smp = {.n_chain = 2, .chain = chain};
	uint64_t funcs[4], sites[4];
	assert_int_equal(ecp_sampler_frames(s, &smp, funcs, sites, 4), 2);
	assert_int_equal(funcs[0], in_exe - exe_obj->lo + again);
	assert_int_equal(funcs[1], in_exe);
	/* node's way: the whole file mapped again read-only (pgoff 0), then a
	 * part of its text mapped executable elsewhere by its file offset --
	 * once this moved the file's base, and every pc of the first mapping
	 * became a row of its own */
	uint64_t third = exe_obj->lo + (1ull << 37),
		 page = (in_exe - exe_obj->lo) & ~4095ull;
	assert_int_equal(
	    ecp_sampler_mapping(s, exe_obj->lo + (1ull << 38), len, 0, PROT_READ, exe),
	    0);
	assert_int_equal(
	    ecp_sampler_mapping(s, third, 8192, page, PROT_READ | PROT_EXEC, exe), 0);
	uint64_t moved[] = {in_exe + 4 - exe_obj->lo + again,
			    third + (in_exe - exe_obj->lo - page) + 8};
	struct ecp_sample after = {.n_chain = 2, .chain = moved};
	assert_int_equal(ecp_sampler_frames(s, &after, funcs, sites, 4), 2);
	assert_int_equal(funcs[0], in_exe - exe_obj->lo + again);
	assert_int_equal(funcs[1], in_exe - exe_obj->lo + again);
	ecp_sampler_destroy(s);
	ecp_symbols_destroy(syms);
}

static void test_perf_regs(void **state)
{
	(void)state;
	/* perf numbering: ax bx cx dx si di bp sp ip flags cs ss ds es fs gs
	 * r8..r15; give each the value 100 + its perf number */
	uint64_t mask = (1ull << 24) - 1, vals[24], regs[ECP_UNWIND_NREGS];
	for (int k = 0; k < 24; k++)
		vals[k] = 100 + (uint64_t)k;
	assert_true(ecp_unwind_regs_from_perf(mask, vals, 24, regs));
	const uint64_t expect[ECP_UNWIND_NREGS] = {
	    100, 103, 102, 101, 104, 105, 106, 107, /* rax rdx rcx rbx rsi rdi rbp rsp */
	    116, 117, 118, 119, 120, 121, 122, 123, /* r8..r15 */
	    108,                                    /* rip */
	};
	assert_memory_equal(regs, expect, sizeof(expect));
	/* the minimal mask: the values are packed in bit order */
	uint64_t min = ecp_unwind_perf_regs_mask();
	assert_int_equal(__builtin_popcountll(min), ECP_UNWIND_NREGS);
	uint64_t packed[ECP_UNWIND_NREGS];
	size_t n = 0;
	for (int k = 0; k < 24; k++)
		if (min & (1ull << k))
			packed[n++] = 100 + (uint64_t)k;
	assert_true(ecp_unwind_regs_from_perf(min, packed, n, regs));
	assert_memory_equal(regs, expect, sizeof(expect));
	/* a register missing, or values short */
	assert_false(ecp_unwind_regs_from_perf(min & ~(1ull << 8), packed, n, regs));
	assert_false(ecp_unwind_regs_from_perf(min, packed, n - 1, regs));
}

/* xorshift64*: a fixed, portable sequence */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* An address a garbage walk could believe: in a registered object (code or
 * not), on the sample's stack, or anything. */
static uint64_t plausible(uint64_t sp, size_t stack_len)
{
	const struct mapped *o = &objects[rnd() % n_objects];
	switch (rnd() % 4) {
	case 0:
		return o->lo + rnd() % (o->hi - o->lo);
	case 1:
		return sp + rnd() % (stack_len + 64);
	case 2:
		return sample.regs[ECP_UNWIND_REG_IP] + rnd() % 64 - 32;
	default:
		return rnd();
	}
}

static void test_unwind_garbage(void **state)
{
	(void)state;
	read_maps();
	capture_levels();
	struct ecp_unwinder *u = unwinder_of_all_objects();
	static uint8_t stack[8192];
	uint64_t regs[ECP_UNWIND_NREGS], pcs[MAX_FRAMES];
	/* each copy is handed over between two inaccessible pages, against
	 * one end or the other: a read outside it would crash the test */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *area = mmap(NULL, sizeof(stack) + 2 * page, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(area != MAP_FAILED);
	uint8_t *guarded = area + page;
	assert_int_equal(mprotect(area, page, PROT_NONE), 0);
	assert_int_equal(mprotect(guarded + sizeof(stack), page, PROT_NONE), 0);
	const int cases = 10000;
	int run = 0;
	size_t longest = 0, total = 0;
	double t0 = now_us();
	for (int i = 0; i < cases; i++) {
		size_t len = rnd() % (sizeof(stack) + 1);
		uint64_t sp =
		    rnd() % 3 ? sample.regs[ECP_UNWIND_REG_SP] + rnd() % 4096 : rnd();
		for (int r = 0; r < ECP_UNWIND_NREGS; r++)
			regs[r] = rnd() % 2 ? plausible(sp, len) : rnd();
		regs[ECP_UNWIND_REG_SP] = sp;
		if (i % 100 == 0)
			regs[ECP_UNWIND_REG_IP] = 0;
		/* random bytes, with plausible words mixed in */
		for (size_t b = 0; b + 8 <= len; b += 8) {
			uint64_t w = rnd() % 2 ? plausible(sp, len) : rnd();
			memcpy(stack + b, &w, 8);
		}
		if (rnd() % 3 == 0) {
			/* the real sample, with a few of its words damaged */
			memcpy(regs, sample.regs, sizeof(regs));
			len = sample.stack_len < sizeof(stack) ? sample.stack_len
							       : sizeof(stack);
			memcpy(stack, sample.stack, len);
			for (int d = 0, n_damaged = 1 + (int)(rnd() % 4); d < n_damaged;
			     d++) {
				uint64_t w = plausible(regs[ECP_UNWIND_REG_SP], len);
				memcpy(stack + (rnd() % (len / 8)) * 8, &w, 8);
			}
		}
		uint8_t *at = rnd() % 2 ? guarded : guarded + sizeof(stack) - len;
		memcpy(at, stack, len);
		size_t max = 1 + rnd() % MAX_FRAMES;
		size_t n = ecp_unwind_sample(u, regs, at, len, pcs, max);
		if (!regs[ECP_UNWIND_REG_IP]) {
			assert_int_equal(n, 0);
		} else {
			assert_true(n >= 1 && n <= max);
			assert_int_equal(pcs[0], regs[ECP_UNWIND_REG_IP]);
		}
		for (size_t k = 0; k < n; k++)
			ecp_unwinder_function_start(u, k ? pcs[k] - 1 : pcs[k], NULL);
		longest = n > longest ? n : longest;
		total += n;
		run++;
	}
	double t1 = now_us();
	assert_int_equal(run, cases);
	printf(
	    "garbage: %d cases, %zu frames in all, longest walk %zu: %.2f us per case\n",
	    run, total, longest, (t1 - t0) / run);
	munmap(area, sizeof(stack) + 2 * page);
	ecp_unwinder_destroy(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unwind_levels),
	    cmocka_unit_test(test_unwind_truncated_stack),
	    cmocka_unit_test(test_unwind_cobs_stack),
	    cmocka_unit_test(test_unwind_zero_runs_stack),
	    cmocka_unit_test(test_unwind_shared_library),
	    cmocka_unit_test(test_unwind_offset_library),
	    cmocka_unit_test(test_unwind_objects_added_later),
	    cmocka_unit_test(test_unwind_stripped_copy),
	    cmocka_unit_test(test_unwind_debuglink_copy),
	    cmocka_unit_test(test_symbols_through_libdw),
	    cmocka_unit_test(test_unwind_garbage),
	    cmocka_unit_test(test_perf_regs),
	    cmocka_unit_test(test_sampler_unknown_frames),
	    cmocka_unit_test(test_sampler_chain_not_code),
	    cmocka_unit_test(test_sampler_mapped_twice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
