/* SPDX-License-Identifier: MIT */
/*
 * The scheduler-model probe (issue 5): a three-stage pipeline handing items
 * over with semaphores, its middle stage the bottleneck.
 *
 *   stage 1 (1 unit/item) -> ring A -> stage 2 (2 units) -> ring B -> stage 3 (1 unit)
 *
 * Rings of 4 slots, each guarded by a pair of semaphores (free slots, full
 * slots); one writer and one reader per ring, so no mutex is needed.  On two
 * CPUs Linux tends to wake stage 3 onto stage 2's CPU while stage 1 runs on
 * the other, which ideal processor sharing cannot express: the case the
 * Linux-like model (simulator/replay/linux-sched.h) exists for.  Used by
 * bench/sim/accept.sh; built like the examples of traces/ (instrumented).
 *
 * Usage: sem-pipeline [--scale S] [--check] [--quiet]; S scales the items.
 */
#include "traces/example.h"

#include <stdio.h>

#define SP_ITEMS 400
#define SP_SLOTS 4
#define SP_UNIT  0.05 /* of the figures' time unit: ~2.4 ms */

struct ring {
	uint64_t slot[SP_SLOTS];
	unsigned head, tail;
	sem_t free_slots, full_slots;
};

static size_t n_items;
static struct ring ring_a, ring_b;
static uint64_t checksum;

static void ring_init(struct ring *r)
{
	r->head = r->tail = 0;
	ex_check_errno(sem_init(&r->free_slots, 0, SP_SLOTS), "sem_init");
	ex_check_errno(sem_init(&r->full_slots, 0, 0), "sem_init");
}

static void ring_put(struct ring *r, uint64_t v)
{
	ex_sem_wait(&r->free_slots);
	r->slot[r->tail++ % SP_SLOTS] = v;
	ex_sem_post(&r->full_slots);
}

static uint64_t ring_get(struct ring *r)
{
	ex_sem_wait(&r->full_slots);
	uint64_t v = r->slot[r->head++ % SP_SLOTS];
	ex_sem_post(&r->free_slots);
	return v;
}

static EX_FUNC uint64_t stage1(uint64_t i)
{
	ex_work_units(1.0 * SP_UNIT, 1.0);
	return ex_mix(i);
}

static EX_FUNC uint64_t stage2(uint64_t v)
{
	ex_work_units(2.0 * SP_UNIT, 1.0);
	return ex_mix(v ^ 0x5bd1e995ull);
}

static EX_FUNC void stage3(uint64_t v)
{
	ex_work_units(1.0 * SP_UNIT, 1.0);
	checksum += v;
}

static void *run_stage1(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < n_items; i++)
		ring_put(&ring_a, stage1(i));
	return NULL;
}

static void *run_stage2(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n_items; i++)
		ring_put(&ring_b, stage2(ring_get(&ring_a)));
	return NULL;
}

static void *run_stage3(void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n_items; i++)
		stage3(ring_get(&ring_b));
	return NULL;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	n_items = ex_scaled(SP_ITEMS, opts.scale, 1);
	ring_init(&ring_a);
	ring_init(&ring_b);
	pthread_t t[3];
	void *(*stages[3])(void *) = {run_stage1, run_stage2, run_stage3};
	for (int k = 0; k < 3; k++)
		ex_check(pthread_create(&t[k], NULL, stages[k], NULL), "pthread_create");
	for (int k = 0; k < 3; k++)
		ex_check(pthread_join(t[k], NULL), "pthread_join");
	if (opts.check) {
		uint64_t want = 0;
		for (uint64_t i = 0; i < n_items; i++)
			want += ex_mix(ex_mix(i) ^ 0x5bd1e995ull);
		if (want != checksum) {
			fprintf(stderr, "sem-pipeline: wrong checksum\n");
			return 1;
		}
	}
	if (!opts.quiet)
		printf("sem-pipeline: %zu items through 3 stages\n", n_items);
	return 0;
}
