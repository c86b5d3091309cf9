/* SPDX-License-Identifier: MIT */
#include "recorder/perf-sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* 8 MiB: at 3 kHz with 8 KiB stacks, ~300 ms of samples between drains
 * (the driver drains every 20 ms). */
#define DATA_PAGES 2048
#define MAX_CHAIN  127

#if defined(__x86_64__)
#include <asm/perf_regs.h>
/* The registers DWARF unwinding starts from, in the kernel's bit order
 * (which is the order they arrive in) ... */
#define REGS_MASK                                                                        \
	((1ull << PERF_REG_X86_AX) | (1ull << PERF_REG_X86_BX) |                         \
	 (1ull << PERF_REG_X86_CX) | (1ull << PERF_REG_X86_DX) |                         \
	 (1ull << PERF_REG_X86_SI) | (1ull << PERF_REG_X86_DI) |                         \
	 (1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) |                         \
	 (1ull << PERF_REG_X86_IP) | (0xffull << PERF_REG_X86_R8))
#define N_REGS 17
/* ... and where each goes in DWARF numbering (rax rdx rcx rbx rsi rdi rbp
 * rsp r8..r15 rip), which the trace uses (recorder/EVENTS.md). */
static const uint8_t dwarf_slot[N_REGS] = {
    0 /*ax*/, 3 /*bx*/, 2 /*cx*/,  1 /*dx*/, 4 /*si*/, 5 /*di*/,
    6 /*bp*/, 7 /*sp*/, 16 /*ip*/, 8,        9,        10,
    11,       12,       13,        14,       15 /*r8..r15*/};
#define DWARF_IP 16
#else
#define REGS_MASK 0ull
#define N_REGS    0
#endif

void ecp_perf_sample_attr(struct perf_event_attr *attr_out, unsigned hz)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	/* a fixed period of the thread's own CPU time (cpu-clock counts ns),
	 * not a frequency the kernel keeps adjusting */
	attr.sample_period = 1000000000ull / (hz ? hz : ECP_SAMPLE_DEFAULT_HZ);
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	if (REGS_MASK) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = REGS_MASK;
		attr.sample_stack_user = ECP_SAMPLE_STACK_BYTES;
	}
	attr.sample_max_stack = MAX_CHAIN;
	attr.exclude_callchain_kernel = 1;
	attr.sample_id_all = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.mmap_data = 1; /* the read-only first mapping of each object: its base */
	attr.inherit = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.watermark = 1;
	attr.wakeup_watermark = DATA_PAGES * 4096 / 4;
	*attr_out = attr;
}

int ecp_perf_sample_open(int cpu, unsigned hz)
{
	struct perf_event_attr attr;
	long fd;

	ecp_perf_sample_attr(&attr, hz);
	/* The program's threads only, not the processes it starts: their
	 * samples are not read (a child is its CPU time from the switch
	 * records), and sampled they ran 26% slower than unsampled (a Python
	 * multiprocessing.Pool's workers, 360 ms against 285), all of it in
	 * their work.  Linux 5.13; an older kernel samples the children. */
	attr.inherit_thread = 1;
	/* Time the program spends in the kernel (system calls) is sampled too
	 * and charged, through the user registers, to the code that made the
	 * call; an unprivileged user (perf_event_paranoid 2) gets user time
	 * only. */
	for (int tries = 0; tries < 3; tries++) {
		fd =
		    syscall(SYS_perf_event_open, &attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			break;
		if ((errno == EACCES || errno == EPERM) && !attr.exclude_kernel)
			attr.exclude_kernel = 1;
		else if (errno == EINVAL && attr.inherit_thread)
			attr.inherit_thread = 0;
		else
			break;
	}
	return fd < 0 ? -errno : (int)fd;
}

int ecp_perf_sample_init(struct ecp_perf_sample *s, const int *fds, size_t n, pid_t pid,
			 const struct ecp_sched_emitter *emit, struct ecp_error *err)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->emit = emit;
	if (n > ECP_PERF_MAX_CPUS)
		n = ECP_PERF_MAX_CPUS;
	return ecp_perf_rings_map(s->rings, fds, n, DATA_PAGES, 16, "samples",
				  &s->n_rings, err);
}

bool ecp_perf_sample_open_rings(const struct ecp_perf_sample *s)
{
	return ecp_perf_rings_open(s->rings, s->n_rings);
}

/* Marks the executable mapping that `addr` falls in, if any: the leaf pc
 * and the frame-pointer chain (callers found only by unwinding resolve
 * through the object's path). */
static void touch(struct ecp_perf_sample *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n_objs; i++)
		if (addr >= s->objs[i].start && addr < s->objs[i].end) {
			s->objs[i].hit = true;
			return;
		}
}

/* A bounded reader over one record: a truncated record yields zeros and
 * `ok` false, never a read past its end. */
struct cursor {
	const unsigned char *p, *end;
	bool ok;
};

static uint64_t next_u64(struct cursor *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->ok = false;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void handle_sample(struct ecp_perf_sample *s, const struct perf_event_header *h)
{
	struct cursor c = {(const unsigned char *)(h + 1),
			   (const unsigned char *)h + h->size, true};
	uint64_t chain[MAX_CHAIN + 1], regs[N_REGS ? N_REGS : 1];
	uint32_t n_chain = 0, n_regs = 0, n_stack = 0;
	const unsigned char *stack = NULL;
	uint64_t pidtid = next_u64(&c), time = next_u64(&c);
	uint32_t pid = (uint32_t)pidtid, tid = (uint32_t)(pidtid >> 32);
	uint64_t nr = next_u64(&c);
	if (!c.ok)
		return;
	/* a child's sample, on a kernel before inherit_thread (5.13): its cost
	 * is kept, for the reader to take out of the child's CPU time */
	if (pid != (uint32_t)s->pid) {
		static const uint64_t none[1];
		if (s->family && ecp_perf_switch_follows(s->family, pid))
			s->emit->emit_sample(time, tid, none, 0, none, 0, none, 0);
		return;
	}
	for (uint64_t i = 0; i < nr && c.ok; i++) {
		uint64_t ip = next_u64(&c);
		/* context markers (PERF_CONTEXT_USER...) are not addresses */
		if (ip >= (uint64_t)PERF_CONTEXT_MAX || !ip)
			continue;
		if (n_chain < MAX_CHAIN)
			chain[n_chain++] = ip;
	}
#if N_REGS
	uint64_t abi = next_u64(&c);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		for (int i = 0; i < N_REGS; i++)
			regs[dwarf_slot[i]] = next_u64(&c);
		n_regs = N_REGS;
	}
	uint64_t size = next_u64(&c);
	if (size && c.ok && (uint64_t)(c.end - c.p) >= size + 8) {
		uint64_t dyn;
		memcpy(&dyn, c.p + size, 8);
		stack = c.p;
		n_stack = (uint32_t)((dyn < size ? dyn : size) / 8);
	}
	if (!c.ok)
		n_regs = 0;
	if (n_regs)
		touch(s, regs[DWARF_IP]);
#else
	(void)regs;
#endif
	for (uint32_t i = 0; i < n_chain; i++)
		touch(s, chain[i]);
	if (!n_chain && !n_regs)
		return;
	s->samples++;
	/* the stack words are handed over as they lie in the record (unaligned
	 * copies are the emitter's job: LTTng copies them byte-wise) */
	static const uint64_t no_stack[1];
	s->emit->emit_sample(time, tid, regs, n_regs, chain, n_chain,
			     stack ? (const void *)stack : no_stack, n_stack);
}

static void handle_mmap(struct ecp_perf_sample *s, const struct perf_event_header *h)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} m;
	if (h->size < sizeof(*h) + sizeof(m) + 1)
		return;
	memcpy(&m, h + 1, sizeof(m));
	if (m.pid != (uint32_t)s->pid)
		return;
	const char *name = (const char *)(h + 1) + sizeof(m);
	size_t max = h->size - sizeof(*h) - sizeof(m);
	size_t len = strnlen(name, max);
	/* anonymous, [heap], [stack]...: no object to read; the vDSO is one
	 * (clock_gettime runs there), kept by ecp_record_copy_vdso */
	if (len == max || (name[0] != '/' && strcmp(name, ECP_VDSO_NAME) != 0))
		return;
	char path[4096];
	if (len >= sizeof(path))
		return;
	memcpy(path, name, len);
	path[len] = 0;
	s->emit->emit_mmap(m.addr, m.len, m.pgoff, m.prot, path);
	if (!(m.prot & PROT_EXEC) || name[0] != '/')
		return;
	if (s->n_objs == s->cap_objs) {
		size_t cap = s->cap_objs ? 2 * s->cap_objs : 32;
		struct ecp_sample_object *o = realloc(s->objs, cap * sizeof(*o));
		if (!o)
			return;
		s->objs = o;
		s->cap_objs = cap;
	}
	char *copy = strdup(path);
	if (!copy)
		return;
	s->objs[s->n_objs++] = (struct ecp_sample_object){
	    .start = m.addr, .end = m.addr + m.len, .path = copy};
}

static void handle_record(void *ctx, const struct perf_event_header *h)
{
	struct ecp_perf_sample *s = ctx;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(s, h);
		break;
	case PERF_RECORD_MMAP2:
		handle_mmap(s, h);
		break;
	case PERF_RECORD_LOST: {
		uint64_t n = ecp_perf_lost_count(h);
		if (!n)
			return;
		s->lost += n;
		s->emit->emit_sample_lost(n);
		break;
	}
	case PERF_RECORD_THROTTLE:
		/* time, id, stream_id, then the sample_id: a shorter record is
		 * not the kernel's */
		if (h->size >= sizeof(*h) + 3 * sizeof(uint64_t))
			s->throttled++;
		break;
	default:
		break;
	}
}

/* Where a record goes among the CPUs' (`--cpus`): a sample's time follows
 * its pid and tid (sample_type TID|TIME first); every other record ends
 * with its sample_id, the time last.  A mapping made on one CPU then comes
 * before the samples of another CPU that fall in it. */
static uint64_t record_time(const struct perf_event_header *h)
{
	uint64_t t = 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (h->size >= sizeof(*h) + 16)
			memcpy(&t, (const unsigned char *)(h + 1) + 8, sizeof(t));
	} else if (h->size >= sizeof(*h) + 16) {
		memcpy(&t, (const unsigned char *)h + h->size - sizeof(t), sizeof(t));
	}
	return t;
}

void ecp_perf_sample_drain(struct ecp_perf_sample *s)
{
	ecp_perf_rings_drain_merged(s->rings, s->n_rings, record_time, handle_record, s);
}

bool ecp_perf_sample_drain_some(struct ecp_perf_sample *s, size_t max_bytes)
{
	return ecp_perf_rings_drain_merged_some(s->rings, s->n_rings, record_time,
						handle_record, s, max_bytes);
}

/* ecp_perf_rings_finish's drain */
static void drain_all(void *ctx)
{
	ecp_perf_sample_drain(ctx);
}

void ecp_perf_sample_finish(struct ecp_perf_sample *s)
{
	ecp_perf_rings_finish(s->rings, s->n_rings, drain_all, s);
}

void ecp_perf_sample_free(struct ecp_perf_sample *s)
{
	for (size_t i = 0; i < s->n_objs; i++)
		free(s->objs[i].path);
	free(s->objs);
	s->objs = NULL;
	s->n_objs = s->cap_objs = 0;
}
