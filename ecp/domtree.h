/* SPDX-License-Identifier: MIT */
/* A rooted tree grown leaf by leaf, with O(log n) lowest common ancestors.
 *
 * The engine builds the dominator tree of the tight-edge DAG in topological
 * order: a node's immediate dominator is the LCA of its tight inputs, which
 * are all already in the tree.  Binary lifting would need log n words per
 * node (too much for 10 M nodes), so each node keeps one "jump" pointer laid
 * out as a skew-binary ladder (Myers 1983): the jump of a node depends only on
 * its depth, so two nodes at equal depth can climb in lockstep. */
#ifndef ECP_ECP_DOMTREE_H
#define ECP_ECP_DOMTREE_H

#include <stdint.h>

/* One node's words side by side: a climb step reads one cache line, not
 * three (the tree is far larger than the caches and climbs are scattered). */
struct ecp_domtree_node {
	uint32_t parent;
	uint32_t depth;
	uint32_t jump;
};

struct ecp_domtree {
	uint32_t n;
	uint32_t root;
	struct ecp_domtree_node *node;
};

/* n nodes, ids 0..n-1, of which `root` is the root; others are added later. */
int ecp_domtree_init(struct ecp_domtree *t, uint32_t n, uint32_t root);
void ecp_domtree_finish(struct ecp_domtree *t);
/* Adds v as a child of p (p already in the tree). */
void ecp_domtree_add(struct ecp_domtree *t, uint32_t v, uint32_t p);
uint32_t ecp_domtree_lca(const struct ecp_domtree *t, uint32_t a, uint32_t b);

#endif
