/* SPDX-License-Identifier: MIT */
/* Builder: threads only the scheduler saw (issue 32).  A runtime that
 * creates its threads with clone() itself and synchronises them with raw
 * futex system calls (Go, static binaries, raw clone) leaves no agent event
 * for them; the switch records still time every tid of the process.  Each
 * such tid becomes a thread of the model with the CPU time the records give
 * it, so the work is whole; its dependencies are unknown, and the answer
 * says so by name.  LTTng-UST's own listener threads ("<comm>-ust") are the
 * recorder's, not the program's, and stay outside. */
#include "simulator/trace/builder-internal.h"

#include <stdio.h>
#include <string.h>

int bld_note_comm(struct ecp_builder *b, uint64_t tid, const char *name)
{
	/* the last name of a tid wins: the one after an exec */
	uint64_t *i = ecp_hmap_get(&b->comm_by_tid, tid);
	struct tid_comm *c =
	    i ? &ECP_VEC_AT(&b->comms, struct tid_comm, *i) : ecp_vec_push(&b->comms);
	if (!c || (!i && ecp_hmap_put(&b->comm_by_tid, tid, b->comms.len - 1) < 0))
		return -1;
	c->tid = tid;
	snprintf(c->name, sizeof(c->name), "%s", name);
	return 0;
}

const char *bld_comm_of(const struct ecp_builder *b, uint64_t tid)
{
	const uint64_t *i = ecp_hmap_get(&b->comm_by_tid, tid);
	return i ? ECP_VEC_AT(&b->comms, struct tid_comm, *i).name : NULL;
}

bool bld_is_recorder_thread(const char *comm)
{
	size_t n = comm ? strlen(comm) : 0;
	return n >= 4 && !strcmp(comm + n - 4, "-ust");
}

int bld_add_unseen_threads(struct ecp_builder *b, struct ecp_error *err)
{
	if (b->opts.clock != ECP_CLOCK_PERF_SWITCH || !b->threads.len)
		return ECP_OK;
	for (size_t i = 0; i < b->sched_by_tid.cap; i++) {
		if (!b->sched_by_tid.used[i])
			continue;
		uint64_t tid = b->sched_by_tid.keys[i];
		if (ecp_hmap_get(&b->thread_by_tid, tid))
			continue;
		const char *comm = bld_comm_of(b, tid);
		struct sched_list *l = ECP_VEC_AT(&b->sched_lists, struct sched_list *,
						  b->sched_by_tid.vals[i]);
		if (bld_is_recorder_thread(comm) || !l->n)
			continue;
		/* it starts where the records first show it on the CPU; a tid
		 * already running when they began starts with the program */
		uint64_t start = sched_in(l, 0) ? sched_in(l, 0) : b->t0;
		struct ecp_event ev = {.ts = start,
				       .tid = (uint32_t)tid,
				       .type = ECP_EV_THREAD_START,
				       .a = UINT64_MAX -
					    tid, /* a create_id nothing matches */
				       .c = UINT64_C(1) << 63 | tid};
		int rc = bld_ev_thread_start(b, &ev, err);
		if (rc < 0)
			return rc;
		uint64_t *ti = ecp_hmap_get(&b->thread_by_tid, tid);
		if (!ti)
			continue;
		struct bthread *th = thread_at(b, (ecp_id)*ti);
		ecp_id fn = bld_unseen_function(b);
		if (fn == ECP_NO_ID)
			return bld_nomem(err);
		th->start_fn = fn;
		if (comm && !th->named)
			snprintf(th->name, sizeof(th->name), "%s", comm);
		th->unseen = true;
		if (bld_place_child_thread(b, th) < 0)
			return bld_nomem(err);
		/* its CPU time in the records: the prefix sums' total (an
		 * interval still open at their end counts to its switch-in,
		 * as ran-on ends it: it adds nothing to the sums) */
		uint64_t cpu = sched_cum(l, l->n);
		if (th->proc) { /* a child process's: named as such */
			b->child_cpu_ns += cpu;
			continue;
		}
		if (b->unseen < CUT_NAMED)
			b->unseen_tids[b->unseen] = tid;
		b->unseen++;
		b->unseen_ns += cpu;
	}
	return ECP_OK;
}

ecp_id bld_unseen_function(struct ecp_builder *b)
{
	if (b->unseen_pseudo_fn == ECP_NO_ID) {
		struct fn *f = ecp_vec_push(&b->fns);
		if (!f)
			return ECP_NO_ID;
		memset(f, 0, sizeof(*f));
		f->addr = 0;
		b->unseen_pseudo_fn = (ecp_id)(b->fns.len - 1);
	}
	return b->unseen_pseudo_fn;
}

int bld_unseen_warning(const struct ecp_builder *b, struct ecp_model *m)
{
	if (!b->unseen)
		return 0;
	char tids[CUT_NAMED * 24];
	bld_name_tids(tids, b->unseen_tids, b->unseen);
	return ecp_model_add_warning(
	    m,
	    "%llu threads ran that the agent never saw start (tid %s%s; %.3f ms of CPU): "
	    "created with clone() by a runtime that bypasses libc (Go, a static "
	    "binary) or the program itself; their dependencies are UNKNOWN -- each is "
	    "modelled as independent work from its first time on the CPU, so where they "
	    "wait for each other the prediction is too optimistic",
	    (unsigned long long)b->unseen, tids, b->unseen > CUT_NAMED ? ", ..." : "",
	    (double)b->unseen_ns / 1e6);
}
