/* SPDX-License-Identifier: MIT */
/* PLT stubs (simulator/symbols/plt.c) named against an independent reader:
 * binutils' objdump, which synthesizes "name@plt" labels from the same
 * sections by its own code.  Checked on every object loaded into this test
 * (the executable, libc, libm, libelf, libdw, libbabeltrace2, ...: lazy
 * .plt, .plt.got, IRELATIVE slots) and on a program linked for
 * indirect-branch tracking (.plt.sec, ECP_TEST_IBT_PLT).  In the objects
 * loaded here the names are also checked where users see them: the
 * symbols' name of an address inside a stub (what `ecp report` prints for
 * a sample there) and the unwinder's start of its function (what the
 * sampler charges), which before named the stub after `_init`. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "simulator/model/arena.h"
#include "simulator/symbols/plt.h"
#include "simulator/symbols/symbols.h"
#include "simulator/symbols/unwind.h"

#define MAX_LABELS 4096
#define MAX_LOADED 64

struct label {
	uint64_t addr;
	char name[256];
};

/* objdump's "ADDR <name@plt>:" labels of path's PLT sections; PLT0's
 * "<x@plt-0x10>" and the section's own "<.plt>" are not stubs' names. */
static size_t objdump_labels(const char *path, struct label *out, size_t max)
{
	char cmd[PATH_MAX + 128];
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char line[1024];
	size_t n = 0;
	while (fgets(line, sizeof(line), p)) {
		uint64_t addr;
		char name[256];
		if (sscanf(line, "%" SCNx64 " <%255[^>]>:", &addr, name) != 2)
			continue;
		size_t len = strlen(name);
		if (len < 5 || strcmp(name + len - 4, "@plt"))
			continue;
		assert_true(n < max);
		out[n].addr = addr;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		n++;
	}
	assert_int_equal(pclose(p), 0);
	return n;
}

static struct ecp_plt_stub *stub_at(struct ecp_plt_stub *stubs, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (stubs[i].addr == addr)
			return &stubs[i];
	return NULL;
}

/* ecp names a stub "x@plt" exactly where objdump does, with objdump's name
 * -- or, for an ifunc's slot that objdump calls "*ABS*+0xADDR@plt", the
 * ifunc's own name or that one; every other stub is ECP_PLT_UNNAMED.
 * Returns the number of stubs compared; *out keeps ecp's stubs. */
static size_t check_against_objdump(const char *path, struct ecp_plt_stub **out,
				    size_t *n_out)
{
	static struct label labels[MAX_LABELS];
	size_t n_labels = objdump_labels(path, labels, MAX_LABELS);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	struct ecp_plt_stub *stubs;
	size_t n = ecp_plt_stubs(elf, &stubs);
	elf_end(elf);
	close(fd);
	for (size_t i = 0; i < n_labels; i++) {
		struct ecp_plt_stub *s = stub_at(stubs, n, labels[i].addr);
		if (!s)
			fail_msg("%s: objdump's %s at 0x%" PRIx64 " is no stub of ecp's",
				 path, labels[i].name, labels[i].addr);
		bool abs = !strncmp(labels[i].name, "*ABS*+0x", 8);
		if (strcmp(s->name, labels[i].name) &&
		    !(abs && ecp_plt_is_stub_name(s->name) &&
		      strcmp(s->name, ECP_PLT_UNNAMED)))
			fail_msg("%s: the stub at 0x%" PRIx64 " is %s, objdump says %s",
				 path, s->addr, s->name, labels[i].name);
	}
	size_t named = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(stubs[i].name, ECP_PLT_UNNAMED))
			continue;
		named++;
		bool labelled = false;
		for (size_t k = 0; k < n_labels && !labelled; k++)
			labelled = labels[k].addr == stubs[i].addr;
		if (!labelled)
			fail_msg("%s: ecp names the stub at 0x%" PRIx64
				 " %s, objdump names none",
				 path, stubs[i].addr, stubs[i].name);
	}
	assert_int_equal(named, n_labels);
	*out = stubs;
	*n_out = n;
	return n_labels;
}

struct loaded {
	char path[PATH_MAX];
	uint64_t bias, lo, hi; /* load bias; the span of its PT_LOADs */
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct loaded *list = arg;
	size_t n = 0;
	while (n < MAX_LOADED && list[n].path[0])
		n++;
	if (n == MAX_LOADED)
		return 1;
	const char *name = info->dlpi_name;
	char self[PATH_MAX];
	if (!name || !*name) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len <= 0 || n) /* the executable comes first */
			return 0;
		self[len] = '\0';
		name = self;
	}
	if (name[0] != '/' || access(name, R_OK) != 0)
		return 0; /* the vDSO */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uint64_t)4095;
		if (start < lo)
			lo = start;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	snprintf(list[n].path, sizeof(list[n].path), "%s", name);
	list[n].bias = info->dlpi_addr;
	list[n].lo = lo;
	list[n].hi = hi;
	return 0;
}

static void test_loaded_objects(void **state)
{
	(void)state;
	static struct loaded list[MAX_LOADED];
	memset(list, 0, sizeof(list));
	dl_iterate_phdr(collect, list);
	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_unwinder *u = ecp_unwinder_create();
	struct ecp_strings *arena = ecp_strings_create();
	assert_non_null(syms);
	assert_non_null(u);
	assert_non_null(arena);
	for (size_t i = 0; i < MAX_LOADED && list[i].path[0]; i++) {
		assert_int_equal(ecp_symbols_add_object(syms, list[i].lo,
							list[i].hi - list[i].lo,
							list[i].path),
				 0);
		assert_int_equal(ecp_unwinder_add_object(u, list[i].lo,
							 list[i].hi - list[i].lo,
							 list[i].path, NULL),
				 0);
	}
	size_t objects = 0, with_plt = 0, compared = 0, named_where_seen = 0;
	for (size_t i = 0; i < MAX_LOADED && list[i].path[0]; i++) {
		struct ecp_plt_stub *stubs;
		size_t n;
		compared += check_against_objdump(list[i].path, &stubs, &n);
		objects++;
		with_plt += n > 0;
		for (size_t k = 0; k < n; k++) {
			if (!strcmp(stubs[k].name, ECP_PLT_UNNAMED))
				continue;
			/* a pc in the middle of the stub, as a sample has it */
			uint64_t stub = list[i].bias + stubs[k].addr;
			uint64_t pc = stub + stubs[k].size / 2;
			const char *name = NULL, *object = NULL;
			assert_int_equal(
			    ecp_symbols_resolve(syms, pc, arena, &name, &object), 0);
			if (strcmp(name, stubs[k].name))
				fail_msg("%s: 0x%" PRIx64
					 " is named %s by the symbols, not %s",
					 list[i].path, stubs[k].addr, name,
					 stubs[k].name);
			bool is_named = false;
			assert_int_equal(ecp_unwinder_function_start(u, pc, &is_named),
					 stub);
			assert_true(is_named);
			const char *uname = ecp_unwinder_function_name(u, pc, NULL);
			assert_non_null(uname);
			assert_string_equal(uname, stubs[k].name);
			named_where_seen++;
		}
		ecp_plt_free(stubs, n);
	}
	printf(
	    "%zu loaded objects, %zu with a PLT: %zu stubs named as objdump names them, "
	    "%zu of them by the symbols and the unwinder too\n",
	    objects, with_plt, compared, named_where_seen);
	/* libc, libm, libelf, libdw and the executable have PLTs */
	assert_true(with_plt >= 4);
	assert_true(compared >= 100);
	assert_int_equal(named_where_seen, compared);
	ecp_strings_destroy(arena);
	ecp_unwinder_destroy(u);
	ecp_symbols_destroy(syms);
}

static void test_ibt_plt(void **state)
{
	(void)state;
	const char *path = getenv("ECP_TEST_IBT_PLT");
	assert_non_null(path);
	struct ecp_plt_stub *stubs;
	size_t n;
	size_t compared = check_against_objdump(path, &stubs, &n);
	/* strtod, printf and exp through .plt.sec, __cxa_finalize in .plt.got;
	 * .plt's own entries (push and jump to the resolver) stay unnamed */
	assert_true(compared >= 4);
	bool exp_named = false;
	for (size_t i = 0; i < n; i++)
		exp_named |= !strcmp(stubs[i].name, "exp@plt");
	assert_true(exp_named);
	printf("%s: %zu stubs, %zu named as objdump names them\n", path, n, compared);
	ecp_plt_free(stubs, n);
}

/* Not x86_64, no sections, garbage: no stubs, no crash. */
static void test_no_plt(void **state)
{
	(void)state;
	static char garbage[4096];
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 131 + 7);
	memcpy(garbage, ELFMAG, SELFMAG);
	Elf *elf = elf_memory(garbage, sizeof(garbage));
	struct ecp_plt_stub *stubs = (void *)1;
	size_t n = elf ? ecp_plt_stubs(elf, &stubs) : 0;
	if (elf)
		assert_null(stubs);
	assert_int_equal(n, 0);
	elf_end(elf);
	assert_false(ecp_plt_is_stub_name(NULL));
	assert_false(ecp_plt_is_stub_name("@plt"));
	assert_false(ecp_plt_is_stub_name("exp"));
	assert_true(ecp_plt_is_stub_name("exp@plt"));
	assert_true(ecp_plt_is_stub_name(ECP_PLT_UNNAMED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loaded_objects),
	    cmocka_unit_test(test_ibt_plt),
	    cmocka_unit_test(test_no_plt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
