#include "ecp/domtree.h"

#include <stdlib.h>

#include "ecp/hugemem.h"

int ecp_domtree_init(struct ecp_domtree *t, uint32_t n, uint32_t root)
{
	t->n = n;
	t->root = root;
	t->parent = ecp_huge_malloc((size_t)n * sizeof(uint32_t));
	t->depth = ecp_huge_malloc((size_t)n * sizeof(uint32_t));
	t->jump = ecp_huge_malloc((size_t)n * sizeof(uint32_t));
	if (!t->parent || !t->depth || !t->jump) {
		ecp_domtree_finish(t);
		return -1;
	}
	t->parent[root] = root;
	t->depth[root] = 0;
	t->jump[root] = root;
	return 0;
}

void ecp_domtree_finish(struct ecp_domtree *t)
{
	if (!t)
		return;
	free(t->parent);
	free(t->depth);
	free(t->jump);
	t->parent = t->depth = t->jump = NULL;
}

void ecp_domtree_add(struct ecp_domtree *t, uint32_t v, uint32_t p)
{
	t->parent[v] = p;
	t->depth[v] = t->depth[p] + 1;
	uint32_t j = t->jump[p];
	uint32_t jj = t->jump[j];
	/* Two equal-length jumps from p merge into one twice as long. */
	if (t->depth[p] - t->depth[j] == t->depth[j] - t->depth[jj])
		t->jump[v] = jj;
	else
		t->jump[v] = p;
}

static uint32_t level_ancestor(const struct ecp_domtree *t, uint32_t v, uint32_t d)
{
	while (t->depth[v] > d) {
		if (t->depth[t->jump[v]] >= d)
			v = t->jump[v];
		else
			v = t->parent[v];
	}
	return v;
}

uint32_t ecp_domtree_lca(const struct ecp_domtree *t, uint32_t a, uint32_t b)
{
	if (t->depth[a] > t->depth[b])
		a = level_ancestor(t, a, t->depth[b]);
	else if (t->depth[b] > t->depth[a])
		b = level_ancestor(t, b, t->depth[a]);
	while (a != b) {
		/* Equal depths have equal jump lengths, so both may take the jump
		 * when it does not overshoot the meeting point. */
		if (t->jump[a] != t->jump[b]) {
			a = t->jump[a];
			b = t->jump[b];
		} else {
			a = t->parent[a];
			b = t->parent[b];
		}
	}
	return a;
}
