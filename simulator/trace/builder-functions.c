/* SPDX-License-Identifier: MIT */
/* Builder: function time.  Per thread a shadow stack of frames; the time
 * between two consecutive events of the thread is charged as self time to
 * the frame on top (or to the thread's start routine when the stack is
 * empty).  Inclusive time is charged when the outermost frame of a function
 * leaves and, for the frames still open, at every segment boundary (see
 * builder-segments.c), so recursion counts once and the call stack carries
 * over segment boundaries. */
#include "simulator/trace/builder-internal.h"

ecp_id bld_function_of(struct ecp_builder *b, uint64_t addr)
{
	uint64_t *v = ecp_hmap_get(&b->fn_by_addr, addr);
	if (v)
		return (ecp_id)*v;
	struct fn *f = ecp_vec_push(&b->fns);
	if (!f)
		return ECP_NO_ID;
	f->addr = addr;
	ecp_id id = (ecp_id)(b->fns.len - 1);
	if (ecp_hmap_put(&b->fn_by_addr, addr, id) < 0)
		return ECP_NO_ID;
	return id;
}

ecp_id bld_function_at(struct ecp_builder *b, uint64_t addr, uint64_t site)
{
	if (!b->opts.by_callsite || !site)
		return bld_function_of(b, addr);
	/* one 64-bit key for the pair; a collision probes the next key */
	uint64_t key = addr ^ (site * 0x9e3779b97f4a7c15ull);
	for (;; key++) {
		uint64_t *v = ecp_hmap_get(&b->fn_by_site, key);
		if (!v)
			break;
		const struct fn *f = &ECP_VEC_AT(&b->fns, struct fn, *v);
		if (f->addr == addr && f->site == site)
			return (ecp_id)*v;
	}
	struct fn *f = ecp_vec_push(&b->fns);
	if (!f)
		return ECP_NO_ID;
	f->addr = addr;
	f->site = site;
	ecp_id id = (ecp_id)(b->fns.len - 1);
	if (ecp_hmap_put(&b->fn_by_site, key, id) < 0)
		return ECP_NO_ID;
	return id;
}

/* The start function of a thread_start: the function at `addr`, or for the
 * main thread with `main` unknown (addr 0), a named pseudo-function. */
ecp_id bld_start_function(struct ecp_builder *b, uint64_t addr)
{
	if (addr)
		return bld_function_of(b, addr);
	if (b->main_pseudo_fn == ECP_NO_ID) {
		struct fn *f = ecp_vec_push(&b->fns);
		if (!f)
			return ECP_NO_ID;
		f->addr = 0;
		b->main_pseudo_fn = (ecp_id)(b->fns.len - 1);
	}
	return b->main_pseudo_fn;
}

/* ----------------------------------------------------- function activity */

/* A segment's functions are found by a scan while they are this few, and
 * by act_idx once they are more: most segments hold one to a few, and a
 * hash insertion and clearing per segment was about 1% of the instructions
 * of a sync-heavy trace's model build (issue 35). */
#define ACT_SCAN 8

struct act_slot *bld_act(struct bthread *th, ecp_id func)
{
	struct act_slot *slots = th->acts.data;
	if (th->acts.len <= ACT_SCAN) {
		for (size_t i = 0; i < th->acts.len; i++)
			if (slots[i].func == func)
				return &slots[i];
	} else {
		uint64_t *v = ecp_hmap_get(&th->act_idx, func);
		if (v)
			return &slots[*v];
	}
	struct act_slot *s = ecp_vec_push(&th->acts);
	if (!s)
		return NULL;
	s->func = func;
	size_t n = th->acts.len;
	if (n > ACT_SCAN) {
		/* past the scan's reach every slot is indexed: the earlier
		 * ones once, as the list crosses it */
		size_t from = n == ACT_SCAN + 1 ? 0 : n - 1;
		for (size_t i = from; i < n; i++)
			if (ecp_hmap_put(&th->act_idx,
					 ECP_VEC_AT(&th->acts, struct act_slot, i).func,
					 i) < 0)
				return NULL;
	}
	return s;
}

void bld_acts_reset(struct bthread *th)
{
	th->acts.len = 0;
	if (th->act_idx.len)
		ecp_hmap_clear(&th->act_idx);
}

static ecp_id top_function(struct bthread *th)
{
	if (th->frames.len)
		return ECP_VEC_AT(&th->frames, struct frame, th->frames.len - 1).func;
	return th->start_fn;
}

/* Charges [f_last, t) as self time of whatever is on top. */
int bld_advance(struct bthread *th, uint64_t t)
{
	if (t <= th->f_last)
		return 0;
	if (th->samp.len) {
		if (bld_charge_sampled(th, t - th->f_last) < 0)
			return -1;
		th->f_last = t;
		return 0;
	}
	struct act_slot *s = bld_act(th, top_function(th));
	if (!s)
		return -1;
	s->self += t - th->f_last;
	th->f_last = t;
	return 0;
}

int bld_push_call(struct ecp_builder *b, const struct bthread *th, ecp_id func,
		  uint32_t depth, uint64_t enter, uint64_t exit, uint32_t flags)
{
	if (!b->opts.keep_calls)
		return 0;
	struct ecp_call *c = ecp_vec_push(&b->calls);
	if (!c)
		return -1;
	c->thread = th->index;
	c->function = func;
	c->depth = depth;
	c->flags = flags;
	c->enter = sat_sub(enter, th->v_start);
	c->exit = sat_sub(exit, th->v_start);
	if (c->exit < c->enter)
		c->exit = c->enter;
	return 0;
}

/* Pops the top frame at function clock t. */
int bld_pop_frame(struct ecp_builder *b, struct bthread *th, uint64_t t, uint32_t flags)
{
	struct frame fr = ECP_VEC_AT(&th->frames, struct frame, th->frames.len - 1);
	th->frames.len--;
	if (fr.outermost) {
		struct act_slot *s = bld_act(th, fr.func);
		if (!s)
			return -1;
		s->incl += t - fr.incl_from;
	}
	uint64_t *d = ecp_hmap_get(&th->depth, fr.func);
	if (d && *d)
		(*d)--;
	return bld_push_call(b, th, fr.func, (uint32_t)th->frames.len, fr.enter, t,
			     flags);
}

int bld_func_entry(struct ecp_builder *b, struct bthread *th, uint64_t t, uint64_t addr,
		   uint64_t site)
{
	ecp_id f = bld_function_at(b, addr, site);
	if (f == ECP_NO_ID || bld_advance(th, t) < 0)
		return -1;
	/* the sampled stack ran below the frame that changed */
	if (bld_samples_close(b, th, t) < 0)
		return -1;
	struct act_slot *s = bld_act(th, f);
	if (!s)
		return -1;
	s->calls++;
	uint64_t *d = ecp_hmap_get(&th->depth, f);
	uint64_t depth = d ? *d : 0;
	if (ecp_hmap_put(&th->depth, f, depth + 1) < 0)
		return -1;
	struct frame *fr = ecp_vec_push(&th->frames);
	if (!fr)
		return -1;
	fr->func = f;
	fr->outermost = depth == 0;
	fr->enter = t;
	fr->incl_from = t;
	return 0;
}

/* An exit (or an unwind) of addr: pops down to the matching frame; frames
 * above it were left without their exit and are closed here. */
int bld_func_exit(struct ecp_builder *b, struct bthread *th, uint64_t t, uint64_t addr)
{
	if (bld_advance(th, t) < 0 || bld_samples_close(b, th, t) < 0)
		return -1;
	/* frames match by address: with by_callsite a function has one id per
	 * call site, and the exit does not say which */
	size_t k = th->frames.len;
	while (k > 0 && ECP_VEC_AT(&b->fns, struct fn,
				   ECP_VEC_AT(&th->frames, struct frame, k - 1).func)
				.addr != addr)
		k--;
	if (k == 0) {
		b->warn[WARN_EXIT_WITHOUT_ENTRY]++;
		return 0;
	}
	while (th->frames.len > k) {
		b->warn[WARN_ENTRY_WITHOUT_EXIT]++;
		if (bld_pop_frame(b, th, t, ECP_CALL_REPAIRED) < 0)
			return -1;
	}
	return bld_pop_frame(b, th, t, 0);
}

/* Closes every frame still open (entries without exits) at clock t. */
int bld_unwind_all(struct ecp_builder *b, struct bthread *th, uint64_t t)
{
	if (bld_advance(th, t) < 0 || bld_samples_close(b, th, t) < 0)
		return -1;
	while (th->frames.len) {
		b->warn[WARN_ENTRY_WITHOUT_EXIT]++;
		if (bld_pop_frame(b, th, t, ECP_CALL_REPAIRED) < 0)
			return -1;
	}
	return 0;
}
