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

int ecp_domtree_preorder(const struct ecp_domtree *t, uint32_t *pre, uint32_t *size,
			 uint32_t *order)
{
	uint32_t n = t->n;
	/* Children in CSR form, then an explicit-stack DFS (trees can be a
	 * million levels deep: one long thread). */
	uint32_t *first = ecp_huge_calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *child = ecp_huge_malloc((size_t)n * sizeof(uint32_t));
	uint32_t *stack = ecp_huge_malloc((size_t)n * sizeof(uint32_t));
	if (!first || !child || !stack) {
		free(first);
		free(child);
		free(stack);
		return -1;
	}
	for (uint32_t v = 0; v < n; v++)
		if (v != t->root)
			first[t->parent[v] + 1]++;
	for (uint32_t v = 0; v < n; v++)
		first[v + 1] += first[v];
	/* fill using `size` as a cursor, reset below */
	for (uint32_t v = 0; v < n; v++)
		size[v] = first[v];
	for (uint32_t v = 0; v < n; v++)
		if (v != t->root)
			child[size[t->parent[v]]++] = v;
	uint32_t next = 0, top = 0;
	stack[top++] = t->root;
	while (top) {
		uint32_t v = stack[--top];
		pre[v] = next;
		order[next++] = v;
		for (uint32_t i = first[v + 1]; i > first[v]; i--)
			stack[top++] = child[i - 1];
	}
	/* Sizes: children have larger preorder numbers than their parent. */
	for (uint32_t v = 0; v < n; v++)
		size[v] = 1;
	for (uint32_t i = n; i-- > 1;) {
		uint32_t v = order[i];
		size[t->parent[v]] += size[v];
	}
	free(first);
	free(child);
	free(stack);
	return next == n ? 0 : -2;
}
