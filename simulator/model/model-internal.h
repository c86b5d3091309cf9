/* SPDX-License-Identifier: MIT */
/* Helpers shared by the files that build a model (builder, cache loader);
 * consumers only need model.h. */
#ifndef ECP_SIMULATOR_MODEL_INTERNAL_H
#define ECP_SIMULATOR_MODEL_INTERNAL_H

#include "simulator/model/model.h"
#include "simulator/model/arena.h"

/* An empty model owning a fresh string arena; NULL when memory ran out. */
struct ecp_model *ecp_model_create(void);

static inline struct ecp_strings *ecp_model_strings(struct ecp_model *m)
{
	return (struct ecp_strings *)m->strings;
}

/* ecp_model_validate's last check (model-acyclic.c): program order and
 * the edges form a DAG, on a model whose other invariants hold. */
struct ecp_error;
int ecp_model_check_acyclic(const struct ecp_model *m, struct ecp_error *err);

#endif
