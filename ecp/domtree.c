/* SPDX-License-Identifier: MIT */
#include "ecp/domtree.h"

#include <stdlib.h>

#include "ecp/hugemem.h"

int ecp_domtree_init(struct ecp_domtree *t, uint32_t n, uint32_t root)
{
	t->n = n;
	t->root = root;
	t->node = ecp_huge_malloc((size_t)n * sizeof(*t->node));
	if (!t->node)
		return -1;
	t->node[root] =
	    (struct ecp_domtree_node){.parent = root, .depth = 0, .jump = root};
	return 0;
}

void ecp_domtree_finish(struct ecp_domtree *t)
{
	if (!t)
		return;
	free(t->node);
	t->node = NULL;
}

void ecp_domtree_add(struct ecp_domtree *t, uint32_t v, uint32_t p)
{
	const struct ecp_domtree_node *np = &t->node[p];
	uint32_t j = np->jump;
	const struct ecp_domtree_node *nj = &t->node[j];
	uint32_t jj = nj->jump;
	/* Two equal-length jumps from p merge into one twice as long. */
	uint32_t jump = np->depth - nj->depth == nj->depth - t->node[jj].depth ? jj : p;
	t->node[v] =
	    (struct ecp_domtree_node){.parent = p, .depth = np->depth + 1, .jump = jump};
}

static uint32_t level_ancestor(const struct ecp_domtree *t, uint32_t v, uint32_t d)
{
	const struct ecp_domtree_node *n = t->node;
	while (n[v].depth > d) {
		if (n[n[v].jump].depth >= d)
			v = n[v].jump;
		else
			v = n[v].parent;
	}
	return v;
}

uint32_t ecp_domtree_lca(const struct ecp_domtree *t, uint32_t a, uint32_t b)
{
	const struct ecp_domtree_node *n = t->node;
	if (n[a].depth > n[b].depth)
		a = level_ancestor(t, a, n[b].depth);
	else if (n[b].depth > n[a].depth)
		b = level_ancestor(t, b, n[a].depth);
	while (a != b) {
		/* Equal depths have equal jump lengths, so both may take the jump
		 * when it does not overshoot the meeting point. */
		if (n[a].jump != n[b].jump) {
			a = n[a].jump;
			b = n[b].jump;
		} else {
			a = n[a].parent;
			b = n[b].parent;
		}
	}
	return a;
}
