/* SPDX-License-Identifier: MIT */
/* Builder: locks still held when the trace ends.
 *
 * A program that exits while one of its threads holds a lock (the JVM's
 * threads do, at every exit) leaves a taking with no release.  At replay
 * the simulator re-decides who takes a lock when (dag.c, arrival mode), so
 * that last taking could come before a critical section of another thread
 * that the recording ran before it, and that thread would then wait for a
 * release that never comes: "deadlock in the simulated run" on a program
 * that ran fine (a Java parallel stream, 22 of 53,418 segments stuck).
 *
 * Nothing in the recording waited for such a taking to end, so it holds the
 * lock from no one at replay: its segment takes no lock, and it follows
 * instead every release of the lock by another thread that the recording
 * ran before it (the last of each thread: program order gives the rest),
 * through ECP_EDGE_LOCK_HELD edges, which the simulator keeps in both of
 * its lock modes.  The recorded order is kept, so no cycle can follow. */
#include "simulator/trace/builder-internal.h"

#include <stdlib.h>

/* A thread's last release of a lock, and its last taking not released. */
struct held_slot {
	ecp_id last_release;
	ecp_id open_take;
};

/* Lists `lock` in `touched` the first time this thread meets it. */
static int touch(const struct held_slot *slots, struct ecp_vec *touched, ecp_id lock)
{
	if (slots[lock].open_take != ECP_NO_ID || slots[lock].last_release != ECP_NO_ID)
		return 0;
	uint32_t *t = ecp_vec_push(touched);
	if (!t)
		return -1;
	*t = lock;
	return 0;
}

/* One thread's segments in order: for each lock in `cand`, its last
 * release and the taking still open at the end, in slots[lock]; the locks
 * touched are listed in `touched` (so only they are reset). */
static int scan_thread(struct ecp_builder *b, struct bthread *th, const bool *cand,
		       struct held_slot *slots, struct ecp_vec *touched)
{
	for (size_t k = 0; k < th->segs.len; k++) {
		ecp_id id = ECP_VEC_AT(&th->segs, uint32_t, k);
		const struct ecp_segment_record *s =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, id);
		ecp_id take = s->lock_acquire, rel = s->lock_release;
		if (take != ECP_NO_ID && cand[take]) {
			if (touch(slots, touched, take) < 0)
				return -1;
			slots[take].open_take = id;
		}
		if (rel != ECP_NO_ID && cand[rel]) {
			if (touch(slots, touched, rel) < 0)
				return -1;
			slots[rel].last_release = id;
			slots[rel].open_take = ECP_NO_ID;
		}
	}
	return 0;
}

struct held_rec {
	ecp_id lock, seg, thread;
	bool open; /* an open taking (else a last release) */
};

/* Lock i is still held, exclusively or by readers, when the trace ends. */
static bool held_at_end(const struct ecp_builder *b, size_t i)
{
	const struct block *l = &ECP_VEC_AT(&b->locks, struct block, i);
	return l->holder != ECP_NO_ID || l->readers > 0;
}

int bld_locks_held_at_end(struct ecp_builder *b)
{
	size_t n_locks = b->locks.len, n_held = 0;
	for (size_t i = 0; i < n_locks; i++)
		n_held += held_at_end(b, i);
	if (!n_held)
		return 0;
	bool *cand = calloc(n_locks, sizeof(*cand));
	struct held_slot *slots = malloc(n_locks * sizeof(*slots));
	struct ecp_vec touched, recs;
	ecp_vec_init(&touched, sizeof(uint32_t));
	ecp_vec_init(&recs, sizeof(struct held_rec));
	int rc = -1;
	if (!cand || !slots)
		goto out;
	for (size_t i = 0; i < n_locks; i++) {
		cand[i] = held_at_end(b, i);
		slots[i].last_release = slots[i].open_take = ECP_NO_ID;
	}
	/* every thread's last releases and open takings of those locks */
	for (size_t t = 0; t < b->threads.len; t++) {
		struct bthread *th = thread_at(b, (ecp_id)t);
		touched.len = 0;
		if (scan_thread(b, th, cand, slots, &touched) < 0)
			goto out;
		for (size_t k = 0; k < touched.len; k++) {
			uint32_t lock = ECP_VEC_AT(&touched, uint32_t, k);
			struct held_slot *sl = &slots[lock];
			for (int open = 0; open < 2; open++) {
				ecp_id seg = open ? sl->open_take : sl->last_release;
				if (seg == ECP_NO_ID)
					continue;
				struct held_rec *r = ecp_vec_push(&recs);
				if (!r)
					goto out;
				*r = (struct held_rec){lock, seg, (ecp_id)t, open};
			}
			sl->last_release = sl->open_take = ECP_NO_ID;
		}
	}
	/* each open taking: no lock at replay, after the other threads'
	 * releases that the recording ran before it */
	for (size_t i = 0; i < recs.len; i++) {
		const struct held_rec *h = &ECP_VEC_AT(&recs, struct held_rec, i);
		if (!h->open)
			continue;
		struct ecp_segment_record *s =
		    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, h->seg);
		s->lock_acquire = ECP_NO_ID;
		s->acquire_mode = ECP_LOCK_EXCLUSIVE;
		b->warn[WARN_LOCK_HELD_AT_END]++;
		for (size_t j = 0; j < recs.len; j++) {
			const struct held_rec *r = &ECP_VEC_AT(&recs, struct held_rec, j);
			if (r->open || r->lock != h->lock || r->thread == h->thread)
				continue;
			const struct ecp_segment_record *from =
			    &ECP_VEC_AT(&b->segments, struct ecp_segment_record, r->seg);
			if (from->rec_end <= s->rec_start &&
			    bld_add_edge(b, r->seg, h->seg, ECP_EDGE_LOCK_HELD) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(cand);
	free(slots);
	ecp_vec_finish(&touched);
	ecp_vec_finish(&recs);
	return rc;
}
