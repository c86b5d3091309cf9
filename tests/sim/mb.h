/* SPDX-License-Identifier: MIT */
/* Hand-built execution models for the simulator's tests: threads are added
 * one after another and each gets its segments in program order, so segment
 * indices are known as they are created (the model's threads own contiguous
 * ranges).  Edges and locks refer to those indices. */
#ifndef ECP_TESTS_SIM_MB_H
#define ECP_TESTS_SIM_MB_H

#include <stdint.h>

#include "simulator/model/model.h"

struct mb {
	struct ecp_model *m;
	uint32_t cap_seg, cap_edge, cap_lock;
};

void mb_init(struct mb *b);
uint32_t mb_thread(struct mb *b);
/* Appends a segment to the last thread; returns its index. */
uint32_t mb_seg(struct mb *b, uint64_t length, uint64_t delay);
uint32_t mb_lock(struct mb *b, uint32_t kind);
void mb_acquire(struct mb *b, uint32_t seg, uint32_t lock, uint8_t mode);
void mb_release(struct mb *b, uint32_t seg, uint32_t lock);
void mb_edge(struct mb *b, uint32_t from, uint32_t to, uint32_t kind);
/* Sorts the edges by target and fills first_in; the model is then
 * b->m, freed with mb_free(). */
struct ecp_model *mb_done(struct mb *b);
void mb_free(struct ecp_model *m);

#endif
