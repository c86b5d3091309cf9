/* SPDX-License-Identifier: MIT */
/* Work and span per spawn site (Cilkprof's on-work profile, issue 37) on
 * the recorded task graph (task-graph.h).
 *
 * A task's subtree is its body and its descendants'.  Its span is the
 * longest chain through them on unlimited processors: the body's segments
 * one after the other; a child starts when made and its depend
 * predecessors (earlier siblings) have ended; a taskwait waits for the
 * children made since the last one, a taskgroup's end for the children made
 * in the group with all their descendants (which are in the group too, or
 * ended inside them).  A child's descendants made after its body ended are
 * still part of its subtree: the span is when the whole subtree is done.
 *
 * A task is made inside its parent's body, after the parent was made, so
 * its index is larger: walking the tasks from the last one computes every
 * child before its parent.  A site's work and span add up its outermost
 * tasks only (no ancestor made at the same site), so that a recursion is
 * counted once, as Cilkprof does. */
#include <stdlib.h>
#include <string.h>

#include "simulator/model/task-graph.h"

struct rel {
	uint64_t end;   /* the body's end, from the task's start */
	uint64_t sub;   /* the whole subtree's end, from the task's start */
	uint64_t work;  /* the subtree's work */
	uint64_t start; /* scratch: its start in its parent's body */
};

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* The body of task ti, its children's figures known. */
static void eval_task(struct ecp_task_graph *tk, const struct ecp_segment_record *segs,
		      struct rel *r, uint32_t ti)
{
	const struct tctx *c = tctx_at(tk, ttask_at(tk, ti)->ctx);
	uint64_t t = 0, sub = 0, work = 0;
	size_t made = 0, waited = 0;
	for (size_t i = 0; i < c->items.len; i++) {
		const struct titem *it = &ECP_VEC_AT(&c->items, struct titem, i);
		if (it->kind == IT_SEG) {
			t += segs[it->arg].length;
			work += segs[it->arg].length;
		} else if (it->kind == IT_CREATE) {
			const struct ttask *ch = ttask_at(tk, it->arg);
			uint64_t start = t;
			for (size_t k = 0; k < ch->preds.len; k++) {
				const struct rel *p =
				    &r[ECP_VEC_AT(&ch->preds, uint32_t, k)];
				start = max64(start, p->start + p->end);
			}
			r[it->arg].start = start;
			sub = max64(sub, start + r[it->arg].sub);
			work += r[it->arg].work;
			made++;
		} else if (it->kind == IT_TW) {
			for (; waited < made; waited++) {
				const struct rel *ch =
				    &r[ECP_VEC_AT(&c->children, uint32_t, waited)];
				t = max64(t, ch->start + ch->end);
			}
		} else { /* IT_TG_END */
			for (size_t k = 0; k < made; k++) {
				uint32_t ch = ECP_VEC_AT(&c->children, uint32_t, k);
				if (ttask_at(tk, ch)->group == it->arg)
					t = max64(t, r[ch].start + r[ch].sub);
			}
		}
	}
	r[ti].end = t;
	r[ti].sub = max64(t, sub);
	r[ti].work = work;
}

/* Whether an ancestor of task ti was made at its site. */
static bool nested_in_site(struct ecp_task_graph *tk, uint32_t ti)
{
	uint64_t site = ttask_at(tk, ti)->site;
	for (uint32_t a = tctx_at(tk, ttask_at(tk, ti)->parent)->task; a != ECP_NO_ID;
	     a = tctx_at(tk, ttask_at(tk, a)->parent)->task)
		if (ttask_at(tk, a)->site == site)
			return true;
	return false;
}

static int cmp_site(const void *a, const void *b)
{
	const struct ecp_spawn_site *x = a, *y = b;
	return (x->site > y->site) - (x->site < y->site);
}

int ecp_task_spawn_sites(struct ecp_task_graph *tk, const struct ecp_segment_record *segs,
			 struct ecp_spawn_site **out, uint32_t *n)
{
	size_t nt = tk->tasks.len;
	struct rel *r = calloc(nt ? nt : 1, sizeof(*r));
	struct ecp_spawn_site *s = calloc(nt ? nt : 1, sizeof(*s));
	struct ecp_hmap by_site;
	uint32_t ns = 0;
	int rc = 0;
	*out = NULL;
	*n = 0;
	ecp_hmap_init(&by_site);
	if (!r || !s)
		rc = -1;
	for (size_t i = nt; !rc && i-- > 0;)
		eval_task(tk, segs, r, (uint32_t)i);
	for (size_t i = 0; !rc && i < nt; i++) {
		const struct ttask *t = ttask_at(tk, (uint32_t)i);
		uint64_t *at = ecp_hmap_get(&by_site, t->site);
		if (!at) {
			if (ecp_hmap_put(&by_site, t->site, ns) < 0) {
				rc = -1;
				break;
			}
			s[ns].site = t->site;
			s[ns].function = t->site_fn;
			at = ecp_hmap_get(&by_site, t->site);
			ns++;
		}
		struct ecp_spawn_site *site = &s[*at];
		site->tasks++;
		if (!nested_in_site(tk, (uint32_t)i)) {
			site->work_ns += r[i].work;
			site->span_ns += r[i].sub;
		}
	}
	ecp_hmap_finish(&by_site);
	free(r);
	if (rc || !ns) {
		free(s);
		return rc;
	}
	qsort(s, ns, sizeof(*s), cmp_site);
	*out = s;
	*n = ns;
	return 0;
}
