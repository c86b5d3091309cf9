/* SPDX-License-Identifier: MIT */
#include "ecp/plan.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ecp/domtree.h"
#include "ecp/hugemem.h"
#include "ecp/parallel.h"
#include "ecp/radix.h"

#define NONE UINT32_MAX

/* Segments ahead whose scattered reads are prefetched in the per-P passes. */
#define PREFETCH_AHEAD 16

/* An entry while the plan is built: preorder position and key * 2 + (1 if
 * subtracted).  The plan keeps only the keys, in order of position. */
struct entry {
	uint32_t pos;
	uint32_t key;
};

/* One node of a group's virtual tree. */
struct vnode {
	uint32_t pre;
	uint32_t node;
	int32_t step;
	uint32_t cnt;    /* group nodes merged into this virtual node */
	uint32_t parent; /* index in the virtual tree, NONE for its root */
	int64_t g;       /* steps of the group's nodes in the subtree */
	uint64_t c;      /* number of the group's nodes in the subtree */
};

struct builder {
	const struct ecp_plan_input *in;
	struct ecp_plan *plan;
	double *release; /* in->node_time_release until it is freed */
	struct ecp_domtree tree;
	uint32_t *pre, *size, *order;
	/* growable */
	struct entry *entries;
	size_t n_entries, cap_entries;
	/* The later half's entries, when scan_groups_2 made them: sorted as
	 * if they followed `entries`, where appending them would have held
	 * them twice at the plan's peak (issue 35). */
	struct entry *later;
	size_t n_later;
	struct vnode *vt;
	size_t cap_vt;
	uint32_t *stack;
	uint32_t *group; /* the nodes of one instant */
	size_t n_group, cap_group;
	/* key interning: open addressing on the packed (n, delta, last) */
	uint64_t *hash_keys;
	uint32_t *hash_vals;
	size_t hash_cap;
	/* the keys (the plan's once built) */
	struct ecp_plan_key *keys;
	uint32_t n_keys;
	size_t cap_keys;
};

static uint64_t pack_key(uint32_t n, int32_t delta, uint32_t ends_run)
{
	return ((uint64_t)n << 33) | ((uint64_t)(uint32_t)delta << 1) |
	       (ends_run ? 1u : 0u);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int hash_grow(struct builder *b)
{
	size_t cap = b->hash_cap ? b->hash_cap * 2 : 1024;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		vals[i] = NONE;
	for (size_t i = 0; i < b->hash_cap; i++) {
		if (b->hash_vals[i] == NONE)
			continue;
		size_t h = mix(b->hash_keys[i]) & (cap - 1);
		while (vals[h] != NONE)
			h = (h + 1) & (cap - 1);
		keys[h] = b->hash_keys[i];
		vals[h] = b->hash_vals[i];
	}
	free(b->hash_keys);
	free(b->hash_vals);
	b->hash_keys = keys;
	b->hash_vals = vals;
	b->hash_cap = cap;
	return 0;
}

/* Returns the key index, or NONE on allocation failure. */
static uint32_t intern(struct builder *b, uint32_t n, int32_t delta, uint32_t ends_run)
{
	if ((b->n_keys + 1) * 2 > b->hash_cap && hash_grow(b) < 0)
		return NONE;
	uint64_t k = pack_key(n, delta, ends_run);
	size_t h = mix(k) & (b->hash_cap - 1);
	while (b->hash_vals[h] != NONE) {
		if (b->hash_keys[h] == k)
			return b->hash_vals[h];
		h = (h + 1) & (b->hash_cap - 1);
	}
	if (b->n_keys == b->cap_keys) {
		size_t cap = b->cap_keys ? b->cap_keys * 2 : 256;
		struct ecp_plan_key *keys = realloc(b->keys, cap * sizeof(*keys));
		if (!keys)
			return NONE;
		b->keys = keys;
		b->cap_keys = cap;
	}
	uint32_t id = b->n_keys++;
	b->keys[id] = (struct ecp_plan_key){.n = n, .delta = delta, .ends_run = ends_run};
	b->hash_keys[h] = k;
	b->hash_vals[h] = id;
	return id;
}

static int push_entry(struct builder *b, uint32_t pos, uint32_t key)
{
	if (b->n_entries == b->cap_entries) {
		size_t cap = b->cap_entries ? b->cap_entries * 2 : 4096;
		struct entry *e = realloc(b->entries, cap * sizeof(*e));
		if (!e)
			return -1;
		ecp_huge_advise(e, cap * sizeof(*e));
		b->entries = e;
		b->cap_entries = cap;
	}
	b->entries[b->n_entries++] = (struct entry){.pos = pos, .key = key};
	return 0;
}

static int group_push(struct builder *b, uint32_t v)
{
	if (b->n_group == b->cap_group) {
		size_t cap = b->cap_group ? b->cap_group * 2 : 64;
		uint32_t *g = realloc(b->group, cap * sizeof(*g));
		if (!g)
			return -1;
		b->group = g;
		b->cap_group = cap;
	}
	b->group[b->n_group++] = v;
	return 0;
}

/* Nodes ahead in time order whose data build_groups prefetches. */
#define GROUP_AHEAD 8

static void prefetch_node(const struct builder *b, uint32_t v)
{
	__builtin_prefetch(b->pre + v);
	__builtin_prefetch(b->size + v);
	__builtin_prefetch(b->tree.node + v);
	__builtin_prefetch(b->in->dag->length + v / 2);
	__builtin_prefetch(b->plan->seg_instant + v);
}

static int vt_reserve(struct builder *b, size_t n)
{
	if (n <= b->cap_vt)
		return 0;
	size_t cap = b->cap_vt ? b->cap_vt : 64;
	while (cap < n)
		cap *= 2;
	struct vnode *vt = realloc(b->vt, cap * sizeof(*vt));
	uint32_t *st = realloc(b->stack, cap * sizeof(*st));
	if (vt)
		b->vt = vt;
	if (st)
		b->stack = st;
	if (!vt || !st)
		return -1;
	b->cap_vt = cap;
	return 0;
}

static int cmp_vnode(const void *a, const void *b)
{
	uint32_t x = ((const struct vnode *)a)->pre, y = ((const struct vnode *)b)->pre;
	return (x > y) - (x < y);
}

static void sort_vnodes(struct vnode *v, size_t n)
{
	if (n > 24) {
		qsort(v, n, sizeof(*v), cmp_vnode);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct vnode x = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1].pre > x.pre) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static int is_ancestor(const struct builder *b, uint32_t anc_pre, uint32_t anc_node,
		       uint32_t pre)
{
	return anc_pre <= pre && pre < anc_pre + b->size[anc_node];
}

/* One instant: nodes[0..k) (node ids, in preorder).  Emits its entries. */
static int add_group(struct builder *b, const uint32_t *nodes, size_t k,
		     uint32_t n_before, uint32_t last, struct ecp_error *err)
{
	if (vt_reserve(b, 2 * k) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (virtual tree of %zu nodes)", k);
	struct vnode *vt = b->vt;
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		uint32_t v = nodes[i];
		vt[m++] = (struct vnode){
		    .pre = b->pre[v], .node = v, .step = (v & 1u) ? -1 : 1, .cnt = 1};
		if (i + 1 < k) {
			uint32_t l = ecp_domtree_lca(&b->tree, v, nodes[i + 1]);
			vt[m++] = (struct vnode){.pre = b->pre[l], .node = l, .step = 0};
		}
	}
	sort_vnodes(vt, m);
	size_t u = 0;
	for (size_t i = 0; i < m; i++) {
		if (u && vt[u - 1].pre == vt[i].pre) {
			vt[u - 1].step += vt[i].step;
			vt[u - 1].cnt += vt[i].cnt;
		} else
			vt[u++] = vt[i];
	}
	m = u;
	size_t top = 0;
	for (size_t i = 0; i < m; i++) {
		while (top && !is_ancestor(b, vt[b->stack[top - 1]].pre,
					   vt[b->stack[top - 1]].node, vt[i].pre))
			top--;
		vt[i].parent = top ? b->stack[top - 1] : NONE;
		vt[i].g = vt[i].step;
		vt[i].c = vt[i].cnt;
		b->stack[top++] = (uint32_t)i;
	}
	for (size_t i = m; i-- > 0;)
		if (vt[i].parent != NONE) {
			vt[vt[i].parent].g += vt[i].g;
			vt[vt[i].parent].c += vt[i].c;
		}
	for (size_t i = 0; i < m; i++) {
		/* At the run's last instant, moving all of its nodes moves the end
		 * of the run itself: the window then lies after the run. */
		uint32_t ends_run = last && vt[i].c == k;
		if (vt[i].g == 0 && !ends_run)
			continue;
		/* The end node of a zero-length segment at this instant: its
		 * path reaches only itself (its start, its idom, is here too),
		 * and a segment that takes no time weighs 0 by definition. */
		uint32_t v = vt[i].node;
		if (vt[i].cnt && (v & 1u) && v != 2 * b->in->dag->n_segments &&
		    b->in->dag->length[v / 2] == 0)
			continue;
		if ((int64_t)n_before + vt[i].g < 0)
			return ecp_error_set(err, ECP_ERR,
					     "inconsistent DAG: more segments end than "
					     "run at one instant");
		uint32_t key = intern(b, n_before, (int32_t)vt[i].g, ends_run);
		if (key == NONE)
			return ecp_error_set(err, ECP_ERR_NOMEM,
					     "out of memory (weight keys)");
		if (push_entry(b, vt[i].pre, key * 2) < 0 ||
		    (vt[i].parent != NONE &&
		     push_entry(b, vt[vt[i].parent].pre, key * 2 + 1) < 0))
			return ecp_error_set(err, ECP_ERR_NOMEM,
					     "out of memory (weight entries)");
	}
	return 0;
}

/* The dominator tree of the tight-edge DAG, built in topological order. */
static int build_tree(struct builder *b, struct ecp_error *err)
{
	const struct ecp_dag *dag = b->in->dag;
	uint32_t S = dag->n_segments;
	uint32_t root = 2 * S;
	if (ecp_domtree_init(&b->tree, 2 * S + 1, root) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (dominator tree)");
	uint8_t *added = ecp_huge_calloc(S ? S : 1, 1);
	if (!added)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (dominator tree)");
	int rc = 0;
	for (uint32_t i = 0; i < S; i++) {
		uint32_t s = dag->topo[i];
		if (s >= S || added[s]) {
			rc = ecp_error_set(err, ECP_ERR,
					   "DAG topological order invalid at position %u",
					   i);
			break;
		}
		uint32_t idom = NONE;
		bool has_input = false;
		ecp_id p = dag->pred[s];
		if (p != ECP_NO_ID) {
			has_input = true;
			if (p >= S || !added[p]) {
				rc = ecp_error_set(err, ECP_ERR,
						   "segment %u comes before its thread "
						   "predecessor %u in topological order",
						   s, p);
				break;
			}
			if (b->in->pred_tight[s])
				idom = 2 * p + 1;
		}
		for (uint32_t e = dag->in_offset[s]; e < dag->in_offset[s + 1]; e++) {
			ecp_id f = dag->in_from[e];
			has_input = true;
			if (f >= S || !added[f]) {
				rc = ecp_error_set(err, ECP_ERR,
						   "segment %u comes before its input %u "
						   "in topological order",
						   s, f);
				goto out;
			}
			if (!b->in->in_tight[e])
				continue;
			uint32_t u = 2 * f + 1;
			idom = idom == NONE ? u : ecp_domtree_lca(&b->tree, idom, u);
		}
		if (idom == NONE) {
			if (has_input) {
				rc = ecp_error_set(err, ECP_ERR,
						   "inconsistent DAG: no input of "
						   "segment %u realises its start %.0f",
						   s, b->in->node_time[2 * s]);
				break;
			}
			idom = root;
		}
		ecp_domtree_add(&b->tree, 2 * s, idom);
		ecp_domtree_add(&b->tree, 2 * s + 1, 2 * s);
		added[s] = 1;
	}
out:
	free(added);
	return rc;
}

/* A preorder of the dominator tree: pre[v], subtree size[v], order[pre] = v.
 * build_tree added every node after its parent, in the order of dag->topo (a
 * segment's start node, then its end node); two passes in that order (sizes
 * backwards, positions forwards, each child taking the next free slot of its
 * parent) number the tree without child lists or a DFS stack.  Any preorder
 * serves: the weights are sums over subtrees. */
static void preorder(struct builder *b)
{
	const struct ecp_dag *dag = b->in->dag;
	const struct ecp_domtree_node *node = b->tree.node;
	uint32_t S = dag->n_segments, N = 2 * S + 1, root = 2 * S;
	uint32_t *pre = b->pre, *size = b->size, *next = b->order;
	for (uint32_t v = 0; v < N; v++)
		size[v] = 1;
	for (uint32_t i = S; i-- > 0;) {
		uint32_t s = dag->topo[i];
		size[2 * s] += size[2 * s + 1];
		size[node[2 * s].parent] += size[2 * s];
	}
	pre[root] = 0;
	next[root] = 1;
	for (uint32_t i = 0; i < S; i++) {
		uint32_t s = dag->topo[i], v = 2 * s, p = node[v].parent;
		pre[v] = next[p];
		next[p] += size[v];
		/* the end node is the start node's child */
		pre[v + 1] = pre[v] + 1;
		next[v] = pre[v] + 1 + size[v + 1];
		next[v + 1] = pre[v + 1] + 1;
	}
	/* next[] lives in order[], dead now */
	uint32_t *order = b->order;
	for (uint32_t v = 0; v < N; v++)
		order[pre[v]] = v;
}

/* Counting sort of the entries by preorder position (stable, O(E + N)); the
 * segments' preorder intervals become intervals of entry indices: the entries
 * before position pos are exactly the first count[pos] of the sorted ones. */
static int sort_entries(struct builder *b, uint32_t n_nodes)
{
	struct ecp_plan *plan = b->plan;
	size_t n = b->n_entries + b->n_later;
	uint32_t *count = ecp_huge_calloc((size_t)n_nodes + 2, sizeof(uint32_t));
	uint32_t *out = ecp_huge_malloc((n ? n : 1) * sizeof(*out));
	if (!count || !out) {
		free(count);
		free(out);
		return -1;
	}
	/* the two runs in turn: the entries in the order of one scan */
	const struct entry *run[2] = {b->entries, b->later};
	size_t run_n[2] = {b->n_entries, b->n_later};
	for (unsigned r = 0; r < 2; r++)
		for (size_t i = 0; i < run_n[r]; i++)
			count[run[r][i].pos + 1]++;
	for (uint32_t i = 0; i <= n_nodes; i++)
		count[i + 1] += count[i];
	for (uint32_t s = 0; s < plan->n_segments; s++) {
		plan->q_lo[s] = count[plan->q_lo[s]];
		plan->q_hi[s] = count[plan->q_hi[s]];
	}
	for (unsigned r = 0; r < 2; r++)
		for (size_t i = 0; i < run_n[r]; i++)
			out[count[run[r][i].pos]++] = run[r][i].key;
	free(count);
	free(b->entries);
	free(b->later);
	b->entries = b->later = NULL;
	plan->entry_key = out;
	plan->n_entries = n;
	return 0;
}

static uint64_t time_bits(double t)
{
	t += 0.0; /* -0.0 -> +0.0 */
	uint64_t bits;
	memcpy(&bits, &t, sizeof(bits));
	return bits; /* non-negative doubles order like their bit patterns */
}

/* The nodes sorted by time (then preorder), one word or one pair each. */
struct sorted_nodes {
	bool packed;
	const uint64_t *keys;
	const struct ecp_radix_pair *pairs;
	unsigned pos_bits;
	uint64_t pos_mask;
	const uint32_t *order;
};

static uint64_t sn_when(const struct sorted_nodes *sn, size_t i)
{
	return sn->packed ? sn->keys[i] >> sn->pos_bits : sn->pairs[i].key;
}

static uint32_t sn_node(const struct sorted_nodes *sn, size_t i)
{
	return sn->packed ? sn->order[sn->keys[i] & sn->pos_mask] : sn->pairs[i].value;
}

/* The instants whose nodes are [from, to) of the k sorted ones, starting
 * with instant index it, n_run running and n_started segments started
 * (updated; max_reach is theirs alone). */
struct scan {
	struct builder *b;
	const struct sorted_nodes *sn;
	size_t from, to, k;
	uint32_t it, n_run, n_started, max_reach;
	int rc;
	struct ecp_error *err;
};

static void *scan_groups(void *arg)
{
	struct scan *sc = arg;
	struct builder *b = sc->b;
	struct ecp_plan *plan = b->plan;
	const struct sorted_nodes *sn = sc->sn;
	size_t k = sc->k, to = sc->to;
	uint32_t n_run = sc->n_run, it = sc->it, n_started = sc->n_started;
	sc->rc = 0;
	/* The nodes come in time order, which is scattered over every per-node
	 * array (preorder, tree, times): the reads of the nodes a little ahead
	 * are started early, the node ids themselves twice as far ahead. */
	size_t ahead = sc->from;
	for (size_t i = sc->from; i < to;) {
		for (; ahead < to && ahead < i + 2 * GROUP_AHEAD; ahead++) {
			if (sn->packed)
				__builtin_prefetch(sn->order +
						   (sn->keys[ahead] & sn->pos_mask));
			if (ahead >= sc->from + GROUP_AHEAD)
				prefetch_node(b, sn_node(sn, ahead - GROUP_AHEAD));
		}
		uint64_t when = sn_when(sn, i);
		size_t j = i;
		int64_t total = 0;
		uint32_t starts = 0;
		b->n_group = 0;
		for (; j < to && sn_when(sn, j) == when; j++) {
			uint32_t v = sn_node(sn, j);
			if (group_push(b, v) < 0) {
				sc->rc = ecp_error_set(
				    sc->err, ECP_ERR_NOMEM,
				    "out of memory (instant of %zu nodes)", j - i + 1);
				return NULL;
			}
			total += (v & 1u) ? -1 : 1;
			starts += !(v & 1u);
			plan->seg_instant[v] = it;
			if (!(v & 1u))
				plan->by_start[n_started++] = v / 2;
		}
		sc->rc = add_group(b, b->group, b->n_group, n_run, j == k, sc->err);
		if (sc->rc < 0)
			return NULL;
		/* The instant's time from its sort key, not from the scattered
		 * node_time[] (the key holds it exactly: the integral time, or
		 * the bits of time + 0.0). */
		double when_t;
		if (sn->packed)
			when_t = (double)when;
		else
			memcpy(&when_t, &when, sizeof(when_t));
		plan->instant_time[it] = when_t;
		plan->reach[it] = n_run + starts;
		if (plan->reach[it] > sc->max_reach)
			sc->max_reach = plan->reach[it];
		n_run = (uint32_t)((int64_t)n_run + total);
		plan->count_after[it] = n_run;
		it++;
		i = j;
	}
	sc->it = it;
	sc->n_run = n_run;
	sc->n_started = n_started;
	return NULL;
}

/* scan_groups() over two threads: the instants of the later half of the
 * nodes on a second builder of their own (scratch, entries, keys), started
 * from the state a quick count of the first half gives; its keys are then
 * interned into the first builder and its entries renumbered and appended.
 * Key numbers differ from a single scan's, which changes nothing: a weight
 * is a sum of the entries' key values. */
static int scan_groups_2(struct builder *b, const struct sorted_nodes *sn, size_t k,
			 struct ecp_error *err, uint32_t *n_instants, uint32_t *n_started)
{
	struct ecp_plan *plan = b->plan;
	size_t split = k / 2;
	while (split > 0 && split < k && sn_when(sn, split) == sn_when(sn, split - 1))
		split++;
	struct scan first = {
	    .b = b, .sn = sn, .from = 0, .to = split, .k = k, .err = err};
	struct builder b2 = {.in = b->in,
			     .plan = plan,
			     .tree = b->tree,
			     .pre = b->pre,
			     .size = b->size,
			     .order = b->order};
	struct ecp_error err2 = {0};
	struct scan second = {
	    .b = &b2, .sn = sn, .from = split, .to = k, .k = k, .err = &err2};
	for (size_t i = 0; i < split; i++) {
		second.it += i == 0 || sn_when(sn, i) != sn_when(sn, i - 1);
		uint32_t v = sn_node(sn, i);
		second.n_run = (uint32_t)((int64_t)second.n_run + ((v & 1u) ? -1 : 1));
		second.n_started += !(v & 1u);
	}
	pthread_t thread;
	bool threaded = pthread_create(&thread, NULL, scan_groups, &second) == 0;
	scan_groups(&first);
	if (threaded)
		pthread_join(thread, NULL);
	else if (first.rc >= 0)
		scan_groups(&second);
	int rc = first.rc;
	if (rc >= 0 && second.rc < 0) {
		*err = err2;
		rc = second.rc;
	}
	uint32_t *map = NULL;
	if (rc >= 0) {
		map = malloc((b2.n_keys ? b2.n_keys : 1) * sizeof(*map));
		if (!map)
			rc = ecp_error_set(err, ECP_ERR_NOMEM,
					   "out of memory (weight keys)");
	}
	for (uint32_t i = 0; rc >= 0 && i < b2.n_keys; i++) {
		const struct ecp_plan_key *key = &b2.keys[i];
		map[i] = intern(b, key->n, key->delta, key->ends_run);
		if (map[i] == NONE)
			rc = ecp_error_set(err, ECP_ERR_NOMEM,
					   "out of memory (weight keys)");
	}
	if (rc >= 0) {
		/* renumbered where they are, and kept as the later run */
		for (size_t i = 0; i < b2.n_entries; i++) {
			uint32_t key = b2.entries[i].key;
			b2.entries[i].key = map[key >> 1] * 2 + (key & 1u);
		}
		b->later = b2.entries;
		b->n_later = b2.n_entries;
		b2.entries = NULL;
	}
	free(map);
	free(b2.entries);
	free(b2.vt);
	free(b2.stack);
	free(b2.group);
	free(b2.hash_keys);
	free(b2.hash_vals);
	free(b2.keys);
	plan->max_reach =
	    first.max_reach > second.max_reach ? first.max_reach : second.max_reach;
	*n_instants = second.it;
	*n_started = second.n_started;
	return rc;
}

/* How the nodes are sorted by time, and the sorted array: one word per node
 * (time above preorder position) where every time is an integer that fits,
 * else (time, node) pairs. */
struct node_sort {
	bool packed;
	unsigned pos_bits, time_bits_n;
	uint64_t *keys;
	struct ecp_radix_pair *pairs;
	size_t k; /* nodes sorted */
};

/* Checks every node's time and chooses the sort's layout. */
static int node_sort_layout(const struct builder *b, struct node_sort *ns,
			    struct ecp_error *err)
{
	uint32_t S = b->in->dag->n_segments, N = b->plan->n_nodes;
	/* Zero-length segments are included: their steps cancel at their
	 * instant, but they can be the run's last event (a thread that sleeps,
	 * then ends). */
	size_t m = (size_t)S * 2;
	/* Integral times (the ASAP schedule's nanoseconds) below 2^53 order and
	 * compare as doubles exactly as as integers: then a node sorts as one
	 * word, time above its preorder position, by the time bits only. */
	uint64_t max_t = 0;
	bool integral = true;
	for (size_t v = 0; v < m; v++) {
		double t = b->in->node_time[v];
		if (!(t >= 0.0) || !isfinite(t))
			return ecp_error_set(
			    err, ECP_ERR, "segment %zu has an invalid time %g", v / 2, t);
		if (integral && t < 9007199254740992.0 && t == (double)(uint64_t)t) {
			if ((uint64_t)t > max_t)
				max_t = (uint64_t)t;
		} else
			integral = false;
	}
	ns->pos_bits = 1, ns->time_bits_n = 0;
	while (ns->pos_bits < 32 && ((uint64_t)1 << ns->pos_bits) < N)
		ns->pos_bits++;
	while (ns->time_bits_n < 64 && (max_t >> ns->time_bits_n))
		ns->time_bits_n++;
	ns->packed = integral && ns->pos_bits + ns->time_bits_n <= 64;
	return 0;
}

/* The nodes, but the end of the virtual root, sorted by time. */
static int node_sort_run(const struct builder *b, struct node_sort *ns,
			 struct ecp_error *err)
{
	uint32_t S = b->in->dag->n_segments, N = b->plan->n_nodes;
	size_t m = (size_t)S * 2;
	bool packed = ns->packed;
	unsigned pos_bits = ns->pos_bits;
	uint64_t *keys = NULL;
	struct ecp_radix_pair *pairs = NULL;
	if (packed)
		keys = ns->keys = ecp_huge_malloc((m ? m : 1) * sizeof(*keys));
	else
		pairs = ns->pairs = ecp_huge_malloc((m ? m : 1) * sizeof(*pairs));
	if (!keys && !pairs)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (%zu nodes)", m);
	size_t k = 0;
	/* In preorder, so that the stable sort by time leaves each instant's
	 * nodes in preorder, as the virtual tree needs. */
	for (uint32_t pos = 0; pos < N; pos++) {
		uint32_t v = b->order[pos];
		if (v == 2 * S)
			continue;
		double t = b->in->node_time[v];
		if (packed)
			keys[k++] = ((uint64_t)t << pos_bits) | pos;
		else
			pairs[k++] =
			    (struct ecp_radix_pair){.key = time_bits(t), .value = v};
	}
	ns->k = k;
	bool two_threads = k >= 2 * (size_t)b->in->parallel_min_segments;
	if (packed ? ecp_radix_sort_bits(keys, k, pos_bits, pos_bits + ns->time_bits_n,
					 two_threads) < 0
		   : ecp_radix_sort(pairs, k) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory (sorting %zu nodes)", k);
	return 0;
}

/* The instants among the k sorted nodes: their distinct times.  On a
 * hand-off trace (one thread's end starts another's segment) about half
 * the nodes, so the per-instant arrays sized by it instead of by nodes
 * save a third of the plan's peak there (issue 35). */
static size_t count_instants(const struct sorted_nodes *sn, size_t k)
{
	size_t it = 0;
	for (size_t i = 0; i < k; i++)
		it += i == 0 || sn_when(sn, i) != sn_when(sn, i - 1);
	return it;
}

/* The timeline's arrays for k instants of S segments (but the charges,
 * which only the per-P passes use: timeline_charges()). */
static int timeline_alloc(struct ecp_plan *plan, uint32_t S, size_t k,
			  struct ecp_error *err)
{
	plan->instant_time = ecp_huge_malloc((k ? k : 1) * sizeof(double));
	plan->count_after = ecp_huge_malloc((k ? k : 1) * sizeof(uint32_t));
	plan->seg_instant = ecp_huge_malloc((size_t)(S ? S : 1) * 2 * sizeof(uint32_t));
	plan->by_start = ecp_huge_malloc((size_t)(S ? S : 1) * sizeof(uint32_t));
	plan->reach = ecp_huge_malloc((k ? k : 1) * sizeof(uint32_t));
	if (!plan->reach || !plan->instant_time || !plan->count_after ||
	    !plan->seg_instant || !plan->by_start)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (timeline)");
	for (size_t i = 0; i < (size_t)S * 2; i++)
		plan->seg_instant[i] = NONE;
	return 0;
}

/* The per-P passes' scratch of one charge per instant, allocated once the
 * plan's transient arrays are gone, so that it adds nothing to its peak. */
static int timeline_charges(struct ecp_plan *plan, size_t k, struct ecp_error *err)
{
	plan->charge = ecp_huge_malloc((k ? k : 1) * sizeof(double));
	if (!plan->charge)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (timeline)");
	return 0;
}

/* scan_groups() over the sorted nodes, on one thread for a small DAG. */
static int groups_scan(struct builder *b, const struct sorted_nodes *sn, size_t k,
		       struct ecp_error *err, uint32_t *it, uint32_t *n_started)
{
	if (b->in->dag->n_segments < b->in->parallel_min_segments) {
		struct scan whole = {
		    .b = b, .sn = sn, .from = 0, .to = k, .k = k, .err = err};
		scan_groups(&whole);
		*it = whole.it;
		*n_started = whole.n_started;
		b->plan->max_reach = whole.max_reach;
		return whole.rc;
	}
	return scan_groups_2(b, sn, k, err, it, n_started);
}

/* Instants of each segment's start and end, in order of start. */
static int seg_instants_by_start(struct ecp_plan *plan, uint32_t S, uint32_t n_started,
				 struct ecp_error *err)
{
	uint32_t *by_seg = plan->seg_instant;
	plan->seg_instant = ecp_huge_malloc((size_t)(S ? S : 1) * 2 * sizeof(uint32_t));
	if (!plan->seg_instant) {
		free(by_seg);
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (timeline)");
	}
	for (uint32_t q = 0; q < n_started; q++) {
		uint32_t s = plan->by_start[q];
		plan->seg_instant[2 * q] = by_seg[2 * s];
		plan->seg_instant[2 * q + 1] = by_seg[2 * s + 1];
	}
	free(by_seg);
	return 0;
}

/* Time spent at each count of running segments, over the it instants. */
static int time_at_count_fill(struct ecp_plan *plan, uint32_t it, struct ecp_error *err)
{
	uint32_t max_count = 0;
	for (uint32_t i = 0; i < it; i++)
		if (plan->count_after[i] > max_count)
			max_count = plan->count_after[i];
	plan->max_count = max_count;
	plan->time_at_count = calloc((size_t)max_count + 1, sizeof(long double));
	if (!plan->time_at_count)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (timeline)");
	for (uint32_t i = 0; i + 1 < it; i++)
		plan->time_at_count[plan->count_after[i]] +=
		    (long double)plan->instant_time[i + 1] - plan->instant_time[i];
	return 0;
}

static int build_groups(struct builder *b, struct ecp_error *err)
{
	struct ecp_plan *plan = b->plan;
	uint32_t S = b->in->dag->n_segments;
	struct node_sort ns = {0};
	int rc = node_sort_layout(b, &ns, err);
	if (rc < 0)
		return rc;
	rc = node_sort_run(b, &ns, err);
	/* node times are read no more: the sort keys hold them */
	free(b->release);
	b->release = NULL;
	if (rc < 0)
		goto out;
	struct sorted_nodes sn = {.packed = ns.packed,
				  .keys = ns.keys,
				  .pairs = ns.pairs,
				  .pos_bits = ns.pos_bits,
				  .pos_mask = ((uint64_t)1 << ns.pos_bits) - 1,
				  .order = b->order};
	if ((rc = timeline_alloc(plan, S, count_instants(&sn, ns.k), err)) < 0)
		goto out;
	uint32_t it, n_started;
	rc = groups_scan(b, &sn, ns.k, err, &it, &n_started);
	/* The sorted nodes are read no more: freed before the instants are
	 * copied into start order, which would raise the peak (issue 35). */
	free(ns.keys);
	free(ns.pairs);
	ns.keys = NULL;
	ns.pairs = NULL;
	if (rc < 0)
		goto out;
	plan->n_instants = it;
	if ((rc = seg_instants_by_start(plan, S, n_started, err)) < 0)
		goto out;
	rc = time_at_count_fill(plan, it, err);
out:
	free(ns.keys);
	free(ns.pairs);
	return rc;
}

int ecp_plan_build(const struct ecp_plan_input *in, struct ecp_plan *plan,
		   struct ecp_error *err)
{
	memset(plan, 0, sizeof(*plan));
	const struct ecp_dag *dag = in->dag;
	uint32_t S = dag->n_segments;
	if (S >= (UINT32_MAX - 2) / 2)
		return ecp_error_set(err, ECP_ERR_USAGE,
				     "too many segments (%u) for the engine", S);
	plan->n_segments = S;
	plan->n_nodes = 2 * S + 1;
	struct builder b = {.in = in, .plan = plan, .release = in->node_time_release};
	int rc = build_tree(&b, err);
	if (rc < 0)
		goto out;
	uint32_t N = plan->n_nodes;
	b.pre = ecp_huge_malloc((size_t)N * sizeof(uint32_t));
	b.size = ecp_huge_malloc((size_t)N * sizeof(uint32_t));
	b.order = ecp_huge_malloc((size_t)N * sizeof(uint32_t));
	if (!b.pre || !b.size || !b.order) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (preorder of %u nodes)", N);
		goto out;
	}
	preorder(&b);
	rc = build_groups(&b, err);
	plan->keys = b.keys;
	plan->n_keys = b.n_keys;
	b.keys = NULL;
	if (rc < 0)
		goto out;
	/* The tree is no longer needed once the groups are laid out: free it
	 * before the entries are sorted to keep the peak low. */
	ecp_domtree_finish(&b.tree);
	plan->q_lo = ecp_huge_malloc((size_t)(S ? S : 1) * sizeof(uint32_t));
	plan->q_hi = ecp_huge_malloc((size_t)(S ? S : 1) * sizeof(uint32_t));
	if (!plan->q_lo || !plan->q_hi) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (segment intervals)");
		goto out;
	}
	/* Preorder intervals of the end nodes, per segment id; sort_entries
	 * turns them into entry indices. */
	for (uint32_t s = 0; s < S; s++) {
		uint32_t v = 2 * s + 1;
		plan->q_lo[s] = b.pre[v];
		plan->q_hi[s] = dag->length[s] ? b.pre[v] + b.size[v] : b.pre[v];
	}
	free(b.pre);
	free(b.size);
	free(b.order);
	b.pre = b.size = b.order = NULL;
	if (sort_entries(&b, N) < 0) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory (sorting %zu entries)",
				   b.n_entries + b.n_later);
		goto out;
	}
	plan->prefix = ecp_huge_malloc((plan->n_entries + 1) * sizeof(int64_t));
	plan->key_value =
	    malloc((size_t)(plan->n_keys ? plan->n_keys : 1) * 2 * sizeof(int64_t));
	if (!plan->prefix || !plan->key_value)
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory (weight scratch)");
	else
		rc = timeline_charges(plan, plan->n_instants, err);
out:
	free(b.release);
	ecp_domtree_finish(&b.tree);
	free(b.pre);
	free(b.size);
	free(b.order);
	free(b.entries);
	free(b.later);
	free(b.vt);
	free(b.stack);
	free(b.group);
	free(b.hash_keys);
	free(b.hash_vals);
	free(b.keys);
	if (rc < 0)
		ecp_plan_finish(plan);
	return rc;
}

void ecp_plan_finish(struct ecp_plan *plan)
{
	if (!plan)
		return;
	free(plan->q_lo);
	free(plan->q_hi);
	free(plan->entry_key);
	free(plan->keys);
	free(plan->instant_time);
	free(plan->count_after);
	free(plan->seg_instant);
	free(plan->by_start);
	free(plan->charge);
	free(plan->reach);
	free(plan->time_at_count);
	free(plan->prefix);
	free(plan->key_value);
	memset(plan, 0, sizeof(*plan));
}

/* P * F(n) inside the run (F(0) = 1: a gap where every thread sleeps passes
 * in real time): integers, so that weights are exact multiples of 1/P. */
static int64_t scaled_f(uint32_t n, unsigned processors)
{
	if (n == 0)
		return processors ? processors : 1;
	if (!processors)
		return 1;
	return n > processors ? (int64_t)n : (int64_t)processors;
}

void ecp_plan_prefix(struct ecp_plan *plan, unsigned processors)
{
	for (uint32_t i = 0; i < plan->n_keys; i++) {
		const struct ecp_plan_key *k = &plan->keys[i];
		int64_t after =
		    k->ends_run
			? 0
			: scaled_f((uint32_t)((int64_t)k->n + k->delta), processors);
		int64_t v = scaled_f(k->n, processors) - after;
		plan->key_value[2 * i] = v;
		plan->key_value[2 * i + 1] = -v;
	}
	/* prefix[i] = sum of the first i entries (in preorder): one sequential
	 * pass without branches. */
	int64_t *prefix = plan->prefix;
	const int64_t *kv = plan->key_value;
	const uint32_t *key = plan->entry_key;
	int64_t run = 0;
	prefix[0] = 0;
	for (size_t i = 0; i < plan->n_entries; i++) {
		run += kv[key[i]];
		prefix[i + 1] = run;
	}
}

void ecp_plan_weights_range(const struct ecp_plan *plan, unsigned processors,
			    double *weights, uint32_t from, uint32_t to)
{
	/* Zero-length segments have an empty interval: 0.  The two reads of
	 * prefix[] are scattered (segment order is not preorder) but known
	 * ahead: prefetched. */
	const int64_t *prefix = plan->prefix;
	double scale = processors ? (double)processors : 1.0;
	const uint32_t *lo = plan->q_lo, *hi = plan->q_hi;
	uint32_t S = to;
	for (uint32_t s = from; s < S; s++) {
		if (s + PREFETCH_AHEAD < S) {
			__builtin_prefetch(prefix + lo[s + PREFETCH_AHEAD]);
			__builtin_prefetch(prefix + hi[s + PREFETCH_AHEAD]);
		}
		weights[s] = (double)(prefix[hi[s]] - prefix[lo[s]]) / scale;
	}
}

static long double warp_factor(uint32_t n, unsigned processors)
{
	if (n == 0 || !processors || n <= processors)
		return 1.0L;
	return (long double)n / (long double)processors;
}

long double ecp_plan_makespan(const struct ecp_plan *plan, unsigned processors)
{
	if (!plan->n_instants)
		return 0.0L;
	/* Before the first instant nothing runs (the run starts with a sleep):
	 * real time. */
	long double t = plan->instant_time[0];
	for (uint32_t n = 0; n <= plan->max_count; n++)
		t += plan->time_at_count[n] * warp_factor(n, processors);
	return t;
}

long double ecp_plan_idle(const struct ecp_plan *plan, unsigned processors,
			  double *seg_idle)
{
	if (!processors || !plan->n_instants) {
		if (seg_idle)
			memset(seg_idle, 0, (size_t)plan->n_segments * sizeof(*seg_idle));
		return 0.0L;
	}
	long double idle = (long double)plan->instant_time[0] * processors;
	for (uint32_t n = 0; n < processors && n <= plan->max_count; n++)
		idle += plan->time_at_count[n] * (processors - n);
	if (!seg_idle)
		return idle;
	/* charge[i]: what one segment running from the first instant to instant
	 * i has been charged; a segment's share is a difference of two. */
	double *charge = plan->charge;
	double c = 0.0, p = processors;
	charge[0] = 0.0;
	for (uint32_t i = 0; i + 1 < plan->n_instants; i++) {
		uint32_t n = plan->count_after[i];
		if (n < processors && n > 0)
			c += (plan->instant_time[i + 1] - plan->instant_time[i]) *
			     (p / n - 1.0);
		charge[i + 1] = c;
	}
	/* In order of start: charge[] is then read almost sequentially (in
	 * segment order each read would fetch a cache line of its own).  Every
	 * segment is written, so seg_idle needs no clearing. */
	const uint32_t *inst = plan->seg_instant, *by_start = plan->by_start;
	for (uint32_t k = 0; k < plan->n_segments; k++) {
		uint32_t a = inst[2 * k], z = inst[2 * k + 1];
		seg_idle[by_start[k]] = a != z ? charge[z] - charge[a] : 0.0;
	}
	return idle;
}

void ecp_plan_idle_linear(const struct ecp_plan *plan, double *per_p, double *fixed)
{
	memset(per_p, 0, (size_t)plan->n_segments * sizeof(*per_p));
	memset(fixed, 0, (size_t)plan->n_segments * sizeof(*fixed));
	if (!plan->n_instants)
		return;
	/* charge[i] = sum of dt / n before instant i; the segment's running
	 * time is its end instant's time minus its start's. */
	double *charge = plan->charge;
	double c = 0.0;
	charge[0] = 0.0;
	for (uint32_t i = 0; i + 1 < plan->n_instants; i++) {
		uint32_t n = plan->count_after[i];
		if (n > 0)
			c += (plan->instant_time[i + 1] - plan->instant_time[i]) / n;
		charge[i + 1] = c;
	}
	for (uint32_t k = 0; k < plan->n_segments; k++) {
		uint32_t a = plan->seg_instant[2 * k], z = plan->seg_instant[2 * k + 1];
		if (a == z)
			continue;
		uint32_t s = plan->by_start[k];
		per_p[s] = charge[z] - charge[a];
		fixed[s] = plan->instant_time[z] - plan->instant_time[a];
	}
}

void ecp_plan_segment_instants(const struct ecp_plan *plan, uint32_t *start_instant,
			       uint32_t *end_instant)
{
	for (uint32_t k = 0; k < plan->n_segments; k++) {
		uint32_t s = plan->by_start[k];
		start_instant[s] = plan->seg_instant[2 * k];
		end_instant[s] = plan->seg_instant[2 * k + 1];
	}
}
