/* SPDX-License-Identifier: MIT */
#include "recorder/perf-switch.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* 8 MiB of records: ~350 000 switches between two drains.  The driver
 * drains at least every 20 ms, but on a busy machine it waits for a CPU:
 * with three busy loops on its CPU a ping-pong of 400 000 switches a second
 * lost 32 000 to 714 000 of them with 2 MiB (bench/recorder/loaded-loss.sh).
 * The ring is only the program's CPUs', and it is halved down to
 * MIN_PAGES where the locked-memory limit refuses it (an unprivileged
 * user's perf_event_mlock_kb is 516 KiB). */
#define DATA_PAGES 2048
#define MIN_PAGES  64

/* With sample_id_all, every record ends with these (sample_type TID|TIME). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

void ecp_perf_switch_attr(struct perf_event_attr *a)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	attr.context_switch = 1;
	attr.comm = 1;
	attr.task = 1;
	attr.inherit = 1;
	attr.exclude_kernel = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	attr.watermark = 1;
	attr.wakeup_watermark = DATA_PAGES * 4096 / 4;
	*a = attr;
}

int ecp_perf_switch_open(int cpu)
{
	struct perf_event_attr attr;
	ecp_perf_switch_attr(&attr);
	long fd = syscall(SYS_perf_event_open, &attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int ecp_perf_switch_init(struct ecp_perf_switch *ps, const int *fds, size_t n, pid_t pid,
			 const struct ecp_sched_emitter *emit, struct ecp_error *err)
{
	memset(ps, 0, sizeof(*ps));
	ps->pid = pid;
	ps->emit = emit;
	if (n > ECP_PERF_MAX_CPUS)
		n = ECP_PERF_MAX_CPUS;
	return ecp_perf_rings_map(ps->rings, fds, n, DATA_PAGES, MIN_PAGES,
				  "context switches", &ps->n_rings, err);
}

bool ecp_perf_switch_open_rings(const struct ecp_perf_switch *ps)
{
	return ecp_perf_rings_open(ps->rings, ps->n_rings);
}

/* Where a record goes in the merge of the CPUs' rings: its sample_id's
 * time (every record kind carries one: sample_id_all); a lost-records
 * note without one first. */
static uint64_t record_time(const struct perf_event_header *h);

/* The trailing sample_id, copied out (no alignment assumed). */
static bool trailing_id(const struct perf_event_header *h, struct sample_id *id)
{
	if (h->size < sizeof(*h) + sizeof(*id))
		return false;
	memcpy(id, (const unsigned char *)h + h->size - sizeof(*id), sizeof(*id));
	return true;
}

bool ecp_perf_switch_follows(const struct ecp_perf_switch *ps, uint32_t pid)
{
	return pid == (uint32_t)ps->pid || ecp_hmap_get(&ps->pids, pid) != NULL;
}

/* A process the program or one of its descendants made.  The set only
 * grows (a pid reused after an exit is followed again: it is a descendant
 * too); 65536 processes at most, then the others are left out -- the
 * model's consistency check then names their CPU time as missing. */
static void follow(struct ecp_perf_switch *ps, uint32_t pid)
{
	if (ps->pids.len < 65536 && !ecp_perf_switch_follows(ps, pid))
		ecp_hmap_put(&ps->pids, pid,
			     1); /* out of memory: left out, as past the bound */
}

static void handle_record(void *ctx, const struct perf_event_header *h)
{
	struct ecp_perf_switch *ps = ctx;
	struct sample_id id;
	uint32_t u32[4] = {0};
	const struct ecp_sched_emitter *e = ps->emit;

	memcpy(u32, h + 1, h->size >= sizeof(*h) + sizeof(u32) ? sizeof(u32) : 0);
	switch (h->type) {
	case PERF_RECORD_SWITCH:
		if (!trailing_id(h, &id) || !ecp_perf_switch_follows(ps, id.pid))
			return;
		ps->switches++;
		e->emit_switch(id.time, id.tid,
			       (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0,
			       (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0);
		break;
	case PERF_RECORD_LOST: {
		uint64_t n = ecp_perf_lost_count(h);
		if (!n)
			return;
		ps->lost += n;
		e->emit_lost(n);
		break;
	}
	case PERF_RECORD_COMM: {
		char name[17];
		size_t max = h->size - sizeof(*h) - 8;
		if (h->size < sizeof(*h) + 8 || !ecp_perf_switch_follows(ps, u32[0]))
			return;
		if (max > 16)
			max = 16;
		memcpy(name, (const unsigned char *)(h + 1) + 8, max);
		name[max] = 0;
		e->emit_comm(u32[1], u32[0], name);
		break;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* pid, ppid, tid, ptid */
		if (h->size < sizeof(*h) + 16)
			return;
		/* a new process: its pid is its first thread's tid */
		if (h->type == PERF_RECORD_FORK && u32[0] == u32[2] && u32[0] != u32[1] &&
		    ecp_perf_switch_follows(ps, u32[1]))
			follow(ps, u32[0]);
		if (!ecp_perf_switch_follows(ps, u32[0]))
			return;
		if (h->type == PERF_RECORD_FORK && u32[0] == (uint32_t)ps->pid)
			ps->threads++;
		e->emit_task(u32[2], u32[1], u32[3], h->type == PERF_RECORD_EXIT,
			     trailing_id(h, &id) ? id.time : 0, u32[0]);
		break;
	default:
		break;
	}
}

static uint64_t record_time(const struct perf_event_header *h)
{
	struct sample_id id;
	return trailing_id(h, &id) ? id.time : 0;
}

void ecp_perf_switch_drain(struct ecp_perf_switch *ps)
{
	ecp_perf_rings_drain_merged(ps->rings, ps->n_rings, record_time, handle_record,
				    ps);
}

/* ecp_perf_rings_finish's drain */
static void drain_all(void *ctx)
{
	ecp_perf_switch_drain(ctx);
}

void ecp_perf_switch_finish(struct ecp_perf_switch *ps)
{
	ecp_perf_rings_finish(ps->rings, ps->n_rings, drain_all, ps);
}

void ecp_perf_switch_free(struct ecp_perf_switch *ps)
{
	ecp_hmap_finish(&ps->pids);
}
