/* SPDX-License-Identifier: MIT */
/*
 * A three-stage producer/consumer pipeline with condition variables (not a
 * figure of the paper; the most common structure of real threaded programs):
 *
 *   producer: produce(i)  -> queue A -> transformer: transform() -> queue B
 *   -> consumer: consume()
 *
 * The middle stage costs three times as much per item as the others, so it is
 * the bottleneck on any number of processors: with P >= 2 the run takes about
 * items x transform, and making produce() or consume() faster gains almost
 * nothing, while on one processor every function counts by its own time.
 *
 * Queues: bounded ring buffers (4 slots) with a mutex and two condition
 * variables (not_empty, not_full), so producers block when a queue is full.
 * ECP_EXAMPLE_FASTER=produce, =transform or =consume makes that stage 20%
 * cheaper.
 *
 * Usage: pipeline [--scale S] [--check] [--quiet]; S scales the number of items.
 */
#include "example.h"

#include <stdio.h>

#define PL_ITEMS          200
#define PL_SLOTS          4
#define PL_UNIT           0.02 /* of the figures' time unit: ~1 ms */
#define PL_PRODUCE_COST   1.0
#define PL_TRANSFORM_COST 3.0
#define PL_CONSUME_COST   1.0
#define PL_END            UINT64_MAX /* end-of-stream marker */

struct item {
	uint64_t seq, value;
};

struct queue {
	struct item slot[PL_SLOTS];
	unsigned head, count;
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
};

static size_t n_items;
static double f_produce, f_transform, f_consume;
static struct queue queue_a, queue_b;
static size_t consumed, wrong;

static void queue_init(struct queue *q)
{
	q->head = q->count = 0;
	ex_check(pthread_mutex_init(&q->lock, NULL), "pthread_mutex_init");
	ex_check(pthread_cond_init(&q->not_empty, NULL), "pthread_cond_init");
	ex_check(pthread_cond_init(&q->not_full, NULL), "pthread_cond_init");
}

static void queue_put(struct queue *q, struct item it)
{
	ex_check(pthread_mutex_lock(&q->lock), "pthread_mutex_lock");
	while (q->count == PL_SLOTS)
		ex_check(pthread_cond_wait(&q->not_full, &q->lock), "pthread_cond_wait");
	q->slot[(q->head + q->count++) % PL_SLOTS] = it;
	ex_check(pthread_cond_signal(&q->not_empty), "pthread_cond_signal");
	ex_check(pthread_mutex_unlock(&q->lock), "pthread_mutex_unlock");
}

static struct item queue_get(struct queue *q)
{
	ex_check(pthread_mutex_lock(&q->lock), "pthread_mutex_lock");
	while (q->count == 0)
		ex_check(pthread_cond_wait(&q->not_empty, &q->lock), "pthread_cond_wait");
	struct item it = q->slot[q->head];
	q->head = (q->head + 1) % PL_SLOTS;
	q->count--;
	ex_check(pthread_cond_signal(&q->not_full), "pthread_cond_signal");
	ex_check(pthread_mutex_unlock(&q->lock), "pthread_mutex_unlock");
	return it;
}

/* The value of item SEQ after both stages, as the consumer expects it. */
EX_HELPER uint64_t produced_value(uint64_t seq)
{
	return ex_mix(seq);
}
EX_HELPER uint64_t transformed_value(uint64_t v)
{
	return ex_mix(v ^ 0xabcdefull);
}

static EX_FUNC struct item produce(uint64_t seq)
{
	ex_work_units(PL_PRODUCE_COST * PL_UNIT, f_produce);
	return (struct item){seq, produced_value(seq)};
}

static EX_FUNC struct item transform(struct item it)
{
	ex_work_units(PL_TRANSFORM_COST * PL_UNIT, f_transform);
	it.value = transformed_value(it.value);
	return it;
}

static EX_FUNC void consume(struct item it)
{
	ex_work_units(PL_CONSUME_COST * PL_UNIT, f_consume);
	if (it.seq != consumed || it.value != transformed_value(produced_value(it.seq)))
		wrong++;
	consumed++;
}

static void *producer(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < n_items; i++)
		queue_put(&queue_a, produce(i));
	queue_put(&queue_a, (struct item){PL_END, 0});
	return NULL;
}

static void *transformer(void *arg)
{
	(void)arg;
	for (;;) {
		struct item it = queue_get(&queue_a);
		if (it.seq == PL_END) {
			queue_put(&queue_b, it);
			return NULL;
		}
		queue_put(&queue_b, transform(it));
	}
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		struct item it = queue_get(&queue_b);
		if (it.seq == PL_END)
			return NULL;
		consume(it);
	}
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	n_items = ex_scaled(PL_ITEMS, opts.scale, 1);
	f_produce = ex_work_factor("produce");
	f_transform = ex_work_factor("transform");
	f_consume = ex_work_factor("consume");
	queue_init(&queue_a);
	queue_init(&queue_b);

	pthread_t threads[3];
	void *(*stages[3])(void *) = {producer, transformer, consumer};
	for (int k = 0; k < 3; k++)
		ex_check(pthread_create(&threads[k], NULL, stages[k], NULL),
			 "pthread_create");
	for (int k = 0; k < 3; k++)
		ex_check(pthread_join(threads[k], NULL), "pthread_join");

	if (opts.check && (consumed != n_items || wrong != 0)) {
		fprintf(
		    stderr,
		    "pipeline: %zu of %zu items delivered, %zu wrong or out of order\n",
		    consumed, n_items, wrong);
		return 1;
	}
	if (!opts.quiet)
		printf("pipeline: %zu items through 3 stages\n", consumed);
	return 0;
}
