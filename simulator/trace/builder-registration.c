/* SPDX-License-Identifier: MIT */
/* Builder: LTTng-UST registering in the program's child processes.  The
 * preload puts LTTng-UST in every process the program starts, and its
 * constructor holds each process image (a fork's copy registers again,
 * and so does each exec) until its listener threads have registered with
 * the session daemon: blocked time that the program run without the
 * recorder does not have, tens of ms on a quiet machine and more under
 * load.  A listener thread ends registering with the statedump it writes
 * (lttng_ust_statedump:end); from its first time on the CPU to then is
 * the recorder's window.  What of a wait of the program, or of a child's
 * own blocked time, lies in such a window and is not a child's CPU time
 * is no delay: rustc's link (fork, then cc, collect2, ld.lld, rust-lld,
 * each registering) left a 116 ms recv as a delay on the critical path,
 * 82 ms of it the fork's copy registering; a shell's `sleep 0.2` child
 * was predicted 70 ms long under load (recorder-waits-shell). */
#include "simulator/trace/builder-internal.h"

#include <stdlib.h>

struct reg_mark {
	uint64_t tid, ts;
};

int ecp_builder_note_registered(struct ecp_builder *b, uint64_t tid, uint64_t ts)
{
	struct reg_mark *m = ecp_vec_push(&b->reg_marks);
	if (!m)
		return -1;
	m->tid = tid;
	m->ts = ts;
	return 0;
}

static const struct sched_list *list_of(const struct ecp_builder *b, uint64_t tid)
{
	uint64_t *i = ecp_hmap_get(&b->sched_by_tid, tid);
	return i ? ECP_VEC_AT(&b->sched_lists, struct sched_list *, *i) : NULL;
}

/* Only a child's listener: the program's own registered before main, when
 * nothing of it waited yet. */
static bool child_window(const struct ecp_builder *b, const struct reg_mark *mk,
			 uint64_t *from, uint64_t *to)
{
	uint64_t *pid = ecp_hmap_get(&b->pid_of_tid, mk->tid);
	if (!pid || !ecp_hmap_get(&b->proc_by_pid, *pid) ||
	    !bld_is_recorder_thread(bld_comm_of(b, mk->tid)))
		return false;
	const struct sched_list *l = list_of(b, mk->tid);
	if (!l || !l->n || !b->sealed || sched_in(l, 0) >= mk->ts)
		return false;
	*from = sched_in(l, 0);
	*to = mk->ts;
	return true;
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

int bld_registration_update(struct ecp_builder *b)
{
	if (b->reg_seen == b->reg_marks.len)
		return 0;
	uint64_t *iv = malloc(2 * (b->reg_marks.len + 1) * sizeof(*iv));
	if (!iv)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < b->reg_marks.len; i++)
		if (child_window(b, &ECP_VEC_AT(&b->reg_marks, struct reg_mark, i),
				 &iv[2 * n], &iv[2 * n + 1]))
			n++;
	qsort(iv, n, 2 * sizeof(*iv), cmp_u64_pair);
	/* the union: two listeners of one image share most of theirs, and
	 * children made side by side (make -j) overlap */
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u && iv[2 * i] <= iv[2 * (u - 1) + 1]) {
			if (iv[2 * i + 1] > iv[2 * (u - 1) + 1])
				iv[2 * (u - 1) + 1] = iv[2 * i + 1];
			continue;
		}
		iv[2 * u] = iv[2 * i];
		iv[2 * u + 1] = iv[2 * i + 1];
		u++;
	}
	free(b->reg_iv);
	b->reg_iv = iv;
	b->n_reg = u;
	b->reg_seen = b->reg_marks.len;
	return 0;
}

uint64_t bld_registration_in(const struct ecp_builder *b, uint64_t from, uint64_t to)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < b->n_reg && b->reg_iv[2 * i] < to; i++) {
		uint64_t s = b->reg_iv[2 * i] > from ? b->reg_iv[2 * i] : from;
		uint64_t e = b->reg_iv[2 * i + 1] < to ? b->reg_iv[2 * i + 1] : to;
		if (e <= s)
			continue;
		/* the children's own work meanwhile is theirs, not the
		 * recorder's (a child that registered already runs on) */
		uint64_t kid = bld_child_cpu_in(b, s, e);
		sum += e - s > kid ? e - s - kid : 0;
	}
	return sum;
}

uint64_t bld_registration_of(const struct ecp_builder *b, uint64_t pid, uint64_t from,
			     uint64_t to)
{
	uint64_t sum = 0;
	/* one listener of an image writes the statedump: the windows of one
	 * process (its fork's copy, then each exec) do not overlap */
	for (size_t i = 0; i < b->reg_marks.len; i++) {
		const struct reg_mark *mk =
		    &ECP_VEC_AT(&b->reg_marks, struct reg_mark, i);
		uint64_t *p = ecp_hmap_get(&b->pid_of_tid, mk->tid), s, e;
		if (!p || *p != pid || !child_window(b, mk, &s, &e))
			continue;
		s = s > from ? s : from;
		e = e < to ? e : to;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

int bld_registration_warning(const struct ecp_builder *b, struct ecp_model *m)
{
	if (!b->reg_taken)
		return 0;
	return ecp_model_add_warning(
	    m,
	    "%llu waits of the program or its child processes fell while "
	    "LTTng-UST registered in a child process (the recorder's, which "
	    "holds each new process until then): %.3f ms of them is taken as no "
	    "delay",
	    (unsigned long long)b->reg_taken, (double)b->reg_taken_ns / 1e6);
}
