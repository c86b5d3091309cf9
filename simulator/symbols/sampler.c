/* SPDX-License-Identifier: MIT */
#include "simulator/symbols/sampler.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/error.h"
#include "common/hmap.h"
#include "common/vec.h"
#include "simulator/symbols/plt.h"
#include "simulator/symbols/symbols.h"
#include "simulator/symbols/unwind.h"

#define MAX_FRAMES  128
#define MAX_INLINED 16 /* inlined functions nested at one address */

/* A file as the mappings place it: the first mapping (file offset 0) is
 * where the loader put the object's first PT_LOAD segment. */
struct placed {
	char *path;
	uint64_t base;     /* where its registered load starts */
	uint64_t pending;  /* its last pgoff-0 mapping */
	int64_t exec_bias; /* address - file offset of its registered code */
	bool have_base;
	bool registered;
	bool recorder; /* the agent or LTTng-UST: the recorder's own code */
	bool runtime;  /* the vDSO, the dynamic loader or libc: what the recorder calls */
	bool system;   /* under a system library directory, or the vDSO */
};

/* Frames in the recorder's own code are left out of the samples: its cost
 * is calibrated and subtracted, and its wrappers are transparent (a sample
 * in libc's lock under the agent's pthread_mutex_lock is libc's). */
#define NOT_PROGRAM UINT64_MAX

/* An executable mapping: where code of a file is.  Kept apart from the
 * file's base, which a later read-only mapping of the same file (a library
 * reading the program's ELF) moves. */
struct exec_range {
	uint64_t start, end;
	size_t file;
	/* added to a pc here: a file mapped a second time elsewhere (node
	 * maps part of its binary twice) is looked up where it was first
	 * registered, so each function is one row, not one per mapping */
	int64_t to_first;
};

struct ecp_sampler {
	char *trace_dir;
	struct ecp_vec ranges; /* struct exec_range */
	/* executable memory no file backs (a JIT's code): [start, end) pairs,
	 * the first anon_merged of them sorted and disjoint (a JIT maps
	 * thousands, and a JIT's samples are the ones that ask) */
	struct ecp_vec anon_code;
	size_t anon_merged;
	bool own_code;
	struct ecp_symbols *syms;
	struct ecp_unwinder *unwinder;
	struct placed *files;
	size_t n_files, cap_files;
	struct ecp_hmap start_of; /* pc (or return address - 1) -> function start */
	/* pc (or return address - 1) -> its inlined functions, innermost
	 * first: offset << 8 | count in `inlined` */
	struct ecp_hmap inline_of;
	uint64_t *inlined;
	size_t n_inlined, cap_inlined;
	uint64_t shallow;
	uint64_t unknown; /* frames outside every file */
};

struct ecp_sampler *ecp_sampler_create(const char *trace_dir, struct ecp_symbols *syms,
				       bool own_code)
{
	struct ecp_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->own_code = own_code;
	s->syms = syms;
	s->unwinder = ecp_unwinder_create();
	if (!s->unwinder || (trace_dir && !(s->trace_dir = strdup(trace_dir)))) {
		ecp_sampler_destroy(s);
		return NULL;
	}
	ecp_hmap_init(&s->start_of);
	ecp_vec_init(&s->ranges, sizeof(struct exec_range));
	ecp_vec_init(&s->anon_code, 2 * sizeof(uint64_t));
	ecp_hmap_init(&s->inline_of);
	return s;
}

void ecp_sampler_destroy(struct ecp_sampler *s)
{
	if (!s)
		return;
	ecp_unwinder_destroy(s->unwinder);
	for (size_t i = 0; i < s->n_files; i++)
		free(s->files[i].path);
	free(s->files);
	ecp_vec_finish(&s->ranges);
	ecp_vec_finish(&s->anon_code);
	free(s->trace_dir);
	ecp_hmap_finish(&s->start_of);
	ecp_hmap_finish(&s->inline_of);
	free(s->inlined);
	free(s);
}

static struct placed *file_of(struct ecp_sampler *s, const char *path)
{
	for (size_t i = s->n_files; i-- > 0;)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	if (s->n_files == s->cap_files) {
		size_t cap = s->cap_files ? 2 * s->cap_files : 32;
		struct placed *p = realloc(s->files, cap * sizeof(*p));
		if (!p)
			return NULL;
		s->files = p;
		s->cap_files = cap;
	}
	struct placed *f = &s->files[s->n_files];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	s->n_files++;
	return f;
}

/* What --own-code charges to the program's caller: the C and C++ runtimes
 * and the system's threading and math libraries -- not every library under
 * /usr/lib: a program's own code often lives in a library of its package
 * there (xz's liblzma, x264's libx264, GraphicsMagick's libGraphicsMagick,
 * 7-Zip's 7z.so), and charging it to a thin wrapper named nothing useful
 * (issue 34). */
static bool is_runtime_library(const char *path, const char *base)
{
	static const char *const runtime[] = {
	    "libc.so",   "libm.so",       "libmvec.so",   "libstdc++.so",   "libgcc_s.so",
	    "ld-linux",  "libpthread.so", "libdl.so",     "librt.so",       "libgomp.so",
	    "libomp.so", "libatomic.so",  "libresolv.so", "libcrypt.so",    "libnss_",
	    "libc++.so", "libc++abi.so",  "libunwind.so", "libgfortran.so",
	};
	if (!strcmp(path, "[vdso]"))
		return true;
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
		if (!strncmp(base, runtime[i], strlen(runtime[i])))
			return true;
	return false;
}

int ecp_sampler_mapping(struct ecp_sampler *s, uint64_t start, uint64_t len,
			uint64_t pgoff, uint32_t prot, const char *path)
{
	struct placed *f = file_of(s, path);
	if (!f)
		return ECP_ERR_NOMEM;
	/* where a load of the file would start; it becomes the file's base
	 * only with code laid out from it (below) */
	if (pgoff == 0) {
		f->pending = start;
		f->have_base = true;
		if (!f->registered)
			f->base = start;
	}
	/* anonymous code (a JIT's) is no file's: its frames are [unknown], and
	 * nothing is registered that would hide a file mapped at that place */
	bool anonymous =
	    !strncmp(path, "//anon", 6) || (path[0] == '[' && strcmp(path, "[vdso]"));
	if (anonymous) {
		uint64_t *r = prot & PROT_EXEC ? ecp_vec_push(&s->anon_code) : NULL;
		if (r) {
			r[0] = start;
			r[1] = start + len;
		}
		return prot & PROT_EXEC && !r ? ECP_ERR_NOMEM : 0;
	}
	if (prot & PROT_EXEC) {
		/* address minus file offset: the same for every mapping of
		 * one load.  Code laid out from the file's last pgoff-0
		 * mapping is a new load (an exec'd process, a library loaded
		 * again), registered there for unwinding and naming; code
		 * mapped elsewhere by file offset (node reads its binary again,
		 * then maps part of its text a second time) is named where the
		 * file was registered, and registers nothing over it */
		int64_t bias = (int64_t)(start - pgoff);
		if (f->registered && f->pending != f->base &&
		    (uint64_t)bias == f->pending) {
			f->registered = false;
			f->base = f->pending;
		}
		int64_t to_first = f->registered ? f->exec_bias - bias : 0;
		if (!f->registered)
			f->exec_bias = bias;
		struct exec_range *r = ecp_vec_push(&s->ranges);
		if (!r)
			return ECP_ERR_NOMEM;
		*r = (struct exec_range){start, start + len, (size_t)(f - s->files),
					 to_first};
	}
	if (!(prot & PROT_EXEC) || !f->have_base || f->registered)
		return 0;
	/* the copy the recorder kept, found like trace.c finds the program's */
	char copy[4096];
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	f->recorder =
	    !strncmp(base, "libecp-record.", 14) || !strncmp(base, "liblttng-ust", 12);
	f->system = is_runtime_library(path, base);
	f->runtime = !strcmp(base, "[vdso]") || !strncmp(base, "ld-linux", 8) ||
		     !strncmp(base, "libc.so", 7);
	bool have_copy = false;
	if (s->trace_dir) {
		int n = snprintf(copy, sizeof(copy), "%s/objects/%s", s->trace_dir, base);
		have_copy = n > 0 && (size_t)n < sizeof(copy) && access(copy, R_OK) == 0;
	}
	if (ecp_unwinder_add_object(s->unwinder, f->base, start + len - f->base, path,
				    have_copy ? copy : NULL) < 0 ||
	    (s->syms &&
	     ecp_symbols_add_object_copy(s->syms, f->base, start + len - f->base, path,
					 have_copy ? copy : NULL) < 0))
		return ECP_ERR_NOMEM;
	f->registered = true;
	return 0;
}

/* The mapping that holds pc (the last one where a place was reused). */
static const struct exec_range *range_at(const struct ecp_sampler *s, uint64_t pc)
{
	for (size_t i = s->ranges.len; i-- > 0;) {
		const struct exec_range *r =
		    &ECP_VEC_AT(&s->ranges, struct exec_range, i);
		if (pc >= r->start && pc < r->end)
			return r;
	}
	return NULL;
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The anonymous code ranges sorted and merged into disjoint ones: only
 * whether an address is code is asked of them. */
static void merge_anon_code(struct ecp_sampler *s)
{
	uint64_t *r = s->anon_code.data;
	size_t n = s->anon_code.len, w = 0;
	qsort(r, n, 2 * sizeof(uint64_t), cmp_range);
	for (size_t i = 0; i < n; i++) {
		if (w && r[2 * i] <= r[2 * w - 1]) {
			if (r[2 * i + 1] > r[2 * w - 1])
				r[2 * w - 1] = r[2 * i + 1];
			continue;
		}
		r[2 * w] = r[2 * i];
		r[2 * w + 1] = r[2 * i + 1];
		w++;
	}
	s->anon_code.len = s->anon_merged = w;
}

/* Whether pc is in executable memory: a file's code or a JIT's. */
static bool is_code(struct ecp_sampler *s, uint64_t pc)
{
	if (range_at(s, pc))
		return true;
	if (s->anon_merged != s->anon_code.len)
		merge_anon_code(s);
	const uint64_t *r = s->anon_code.data;
	size_t lo = 0, hi = s->anon_merged;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[2 * mid] <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < r[2 * (lo - 1) + 1];
}

/* The file whose executable mappings hold pc, or NULL (anonymous code);
 * the one mapped last where an unloaded library's place was reused. */
static const struct placed *file_at(const struct ecp_sampler *s, uint64_t pc)
{
	const struct exec_range *r = range_at(s, pc);
	return r ? &s->files[r->file] : NULL;
}

static bool in_runtime(const struct ecp_sampler *s, uint64_t pc)
{
	const struct placed *f = file_at(s, pc);
	return f && f->runtime;
}

/* Runtime code inside the program's own objects, known by name: the C++
 * standard library's templates (std::, __gnu_cxx:: by their mangled
 * names), which an instrumented build made the README's way
 * (-finstrument-functions-exclude-file-list=/usr/include) charges to the
 * caller, and the PLT's stubs (plt.h): the jump into a library is the
 * call's, as the instrumentation of the caller times it. */
static bool is_runtime_by_name(struct ecp_sampler *s, uint64_t pc)
{
	static const char *const prefixes[] = {"_ZNSt",          "_ZNKSt",
					       "_ZSt",           "_ZN9__gnu_cxx",
					       "_ZNK9__gnu_cxx", "_ZN10__cxxabiv1"};
	const char *name = ecp_unwinder_function_name(s->unwinder, pc, NULL);
	for (size_t i = 0; name && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return ecp_plt_is_stub_name(name);
}

static bool in_system(struct ecp_sampler *s, uint64_t pc)
{
	const struct placed *f = file_at(s, pc);
	return f && (f->system || is_runtime_by_name(s, pc));
}

static uint64_t function_start(struct ecp_sampler *s, uint64_t pc)
{
	uint64_t *v = ecp_hmap_get(&s->start_of, pc);
	if (v)
		return *v;
	const struct placed *f = file_at(s, pc);
	if (!f)
		return ECP_SAMPLER_UNKNOWN; /* not cached: the map may still come */
	uint64_t start = f && f->recorder
			     ? NOT_PROGRAM
			     : ecp_unwinder_function_start(s->unwinder, pc, NULL);
	if (ecp_hmap_put(&s->start_of, pc, start) < 0)
		return start; /* uncached, still right */
	return start;
}

/* The functions inlined at pc (ECP_INLINED_FUNCTION addresses, named in
 * the symbols), innermost first; their count.  Looked up once per pc. */
static size_t inlined_at(struct ecp_sampler *s, uint64_t pc, const uint64_t **ids)
{
	uint64_t *v = ecp_hmap_get(&s->inline_of, pc);
	uint64_t packed;
	if (v) {
		packed = *v;
	} else {
		struct ecp_inlined in[MAX_INLINED];
		size_t n = ecp_unwinder_inlined_at(s->unwinder, pc, in, MAX_INLINED);
		if (s->n_inlined + n > s->cap_inlined) {
			size_t cap = s->cap_inlined ? 2 * s->cap_inlined : 64;
			while (cap < s->n_inlined + n)
				cap *= 2;
			uint64_t *p = realloc(s->inlined, cap * sizeof(*p));
			if (!p)
				n = 0; /* out of memory: the frame keeps its function only
					*/
			else {
				s->inlined = p;
				s->cap_inlined = cap;
			}
		}
		packed = (uint64_t)s->n_inlined << 8 | n;
		for (size_t k = 0; k < n; k++) {
			uint64_t id = ECP_INLINED_FUNCTION(in[k].key);
			s->inlined[s->n_inlined++] = id;
			if (s->syms)
				ecp_symbols_add_inlined(s->syms, id, in[k].name);
		}
		for (size_t k = 0; k < MAX_INLINED && k < n; k++)
			free(in[k].name);
		ecp_hmap_put(&s->inline_of, pc, packed); /* uncached: looked up again */
	}
	*ids = s->inlined + (packed >> 8);
	return (size_t)(packed & 0xff);
}

uint32_t ecp_sampler_frames(struct ecp_sampler *s, const struct ecp_sample *smp,
			    uint64_t *funcs, uint64_t *sites, uint32_t max)
{
	uint64_t pcs[MAX_FRAMES];
	size_t n = 0;
	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	if (smp->n_regs >= ECP_UNWIND_NREGS && smp->n_stack && smp->stack_cobs)
		n = ecp_unwind_sample_cobs(s->unwinder, smp->regs, smp->stack_cobs, pcs,
					   max);
	else if (smp->n_regs >= ECP_UNWIND_NREGS && smp->n_stack)
		n = ecp_unwind_sample(s->unwinder, smp->regs, (const uint8_t *)smp->stack,
				      (size_t)smp->n_stack * 8, pcs, max);
	/* The frame-pointer chain stands in only for a walk that stopped
	 * short, and only where its first caller is code: a new thread's
	 * first instruction (the child's return from clone3's syscall, where
	 * a sample finds it still in the kernel) has no caller, and its frame
	 * pointer points into whatever the new stack holds -- a [unknown] row
	 * charged with the thread's first samples, 4.7% of quicksort's
	 * ParallelQuickSort.  (A JIT's code is code too.)  Asked only of
	 * such a walk: most samples unwind, and is_code scans the mappings. */
	if (n <= 1 && smp->n_chain > 1 && (n == 0 || is_code(s, smp->chain[1]))) {
		/* frame pointers: right where the code keeps them */
		s->shallow++;
		n = smp->n_chain < max ? smp->n_chain : max;
		memcpy(pcs, smp->chain, n * sizeof(uint64_t));
	} else if (n == 0 && smp->n_chain) {
		s->shallow++;
		pcs[0] = smp->chain[0];
		n = 1;
	} else if (n <= 1) {
		s->shallow++;
	}
	/* a file mapped a second time: its code named where it was first */
	for (size_t i = 0; i < n; i++) {
		const struct exec_range *r = pcs[i] ? range_at(s, pcs[i]) : NULL;
		if (r && r->to_first)
			pcs[i] = (uint64_t)((int64_t)pcs[i] + r->to_first);
	}
	/* a return address is just past its call: look up the call */
	uint64_t starts[MAX_FRAMES];
	size_t first = 0;
	bool runtime_only = true;
	for (size_t i = 0; i < n; i++) {
		starts[i] = pcs[i] ? function_start(s, i ? pcs[i] - 1 : pcs[i]) : 0;
		/* what the recorder called for itself (the vDSO's clock, memcpy,
		 * __tls_get_addr) is the recorder's time too; a start routine the
		 * agent's thread trampoline called is not */
		if (starts[i] == NOT_PROGRAM && runtime_only && !first)
			first = i + 1;
		if (starts[i] != NOT_PROGRAM && !in_runtime(s, pcs[i]))
			runtime_only = false;
	}
	uint32_t kept = 0;
	bool leading = true;
	for (size_t i = first; i < n && kept < max; i++) {
		uint64_t start = starts[i];
		if (start == NOT_PROGRAM)
			continue;
		/* what the compiler inlined here (the program's own functions
		 * only, unwind-inline.c) comes first, as perf report --inline
		 * shows it; with no call, it has no call site to name */
		uint64_t at = i ? pcs[i] - 1 : pcs[i];
		const uint64_t *inl = NULL;
		size_t k = start == ECP_SAMPLER_UNKNOWN ? 0 : inlined_at(s, at, &inl);
		/* runtime code the program called (--own-code) is its caller's
		 * time, unless the program's own code was inlined into it (a
		 * lambda in std::async's machinery) */
		if (s->own_code && leading && !k && in_system(s, pcs[i]))
			continue;
		leading = false;
		if (start == ECP_SAMPLER_UNKNOWN) {
			/* a run of them (an unwind gone astray) is one frame */
			if (kept && funcs[kept - 1] == ECP_SAMPLER_UNKNOWN)
				continue;
		} else {
			for (size_t j = 0; j < k && kept + 1 < max; j++) {
				funcs[kept] = inl[j];
				sites[kept] = 0; /* no call to name: inlined */
				kept++;
			}
		}
		funcs[kept] = start;
		sites[kept] = i + 1 < n ? pcs[i + 1] : 0;
		kept++;
	}
	/* past the outermost function the walk often reads what is not a
	 * frame (beyond clone3 or _start): no caller there, nothing to say */
	while (kept > 1 && funcs[kept - 1] == ECP_SAMPLER_UNKNOWN)
		kept--;
	for (uint32_t k = 0; k < kept; k++)
		s->unknown += funcs[k] == ECP_SAMPLER_UNKNOWN;
	if (kept)
		sites[kept - 1] = 0;
	return kept;
}

uint64_t ecp_sampler_unknown_frames(const struct ecp_sampler *s)
{
	return s->unknown;
}

uint64_t ecp_sampler_shallow(const struct ecp_sampler *s)
{
	return s->shallow;
}
