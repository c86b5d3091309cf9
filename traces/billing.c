/* SPDX-License-Identifier: MIT */
/*
 * Skeleton of Ericsson's billing gateway (BGw), Sec. 4.3 / Fig. 17 of Broberg,
 * Lundberg & Grahn (JPDC 2001): two Readers, two Sorters, four Writers; each
 * Reader gets three packets of information.  Reader r hands each packet to
 * Sorter r, which sorts and converts it and feeds two Writers (2r and 2r+1)
 * one half each.  Like the paper's skeleton it does no I/O: the work is CPU
 * work on the packets' records.
 *
 *   Reader 0 -> Sorter 0 -> Writer 0, Writer 1
 *   Reader 1 -> Sorter 1 -> Writer 2, Writer 3
 *
 * The paper found Writer the function to optimize on one or two processors
 * and Sorter on more than two, with the Reader/Writer crossing between three
 * and four processors (Fig. 18, 19).  The costs per packet below (Reader 1.5,
 * Sorter 2, Writer 1.2 per half packet, in units of 0.6 of the figures' time
 * unit) were chosen to give that structure under the paper's model; the
 * paper does not publish its costs.
 *
 * Hand-over: one queue per producer/consumer pair, a mutex and two
 * semaphores (items, free slots).  ECP_EXAMPLE_FASTER=Reader, =Sorter or
 * =Writer makes that function 20% cheaper.
 *
 * Usage: billing [--scale S] [--check] [--quiet]; S scales the work per packet.
 */
#include "example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BG_READERS            2
#define BG_WRITERS_PER_SORTER 2
#define BG_WRITERS            (BG_READERS * BG_WRITERS_PER_SORTER)
#define BG_PACKETS            3    /* per Reader */
#define BG_RECORDS            2048 /* per packet */
#define BG_UNIT               0.6
#define BG_READER_COST        1.5 /* per packet */
#define BG_SORTER_COST        2.0 /* per packet */
#define BG_WRITER_COST        1.2 /* per half packet */
#define BG_QUEUE_SLOTS        4

struct packet {
	size_t n;
	uint64_t rec[BG_RECORDS];
};

/* Single-producer single-consumer queue of packet pointers. */
struct queue {
	struct packet *slot[BG_QUEUE_SLOTS];
	unsigned head, tail;
	pthread_mutex_t lock;
	sem_t items, space;
};

static double unit;
static double f_reader, f_sorter, f_writer;
static struct queue to_sorter[BG_READERS], to_writer[BG_WRITERS];
static uint64_t read_sum[BG_READERS], written_sum[BG_WRITERS];
static unsigned written_halves[BG_WRITERS], unsorted_halves[BG_WRITERS];

static void queue_init(struct queue *q)
{
	q->head = q->tail = 0;
	ex_check(pthread_mutex_init(&q->lock, NULL), "pthread_mutex_init");
	ex_check_errno(sem_init(&q->items, 0, 0), "sem_init");
	ex_check_errno(sem_init(&q->space, 0, BG_QUEUE_SLOTS), "sem_init");
}

static void queue_put(struct queue *q, struct packet *p)
{
	ex_sem_wait(&q->space);
	ex_check(pthread_mutex_lock(&q->lock), "pthread_mutex_lock");
	q->slot[q->tail++ % BG_QUEUE_SLOTS] = p;
	ex_check(pthread_mutex_unlock(&q->lock), "pthread_mutex_unlock");
	ex_sem_post(&q->items);
}

static struct packet *queue_get(struct queue *q)
{
	ex_sem_wait(&q->items);
	ex_check(pthread_mutex_lock(&q->lock), "pthread_mutex_lock");
	struct packet *p = q->slot[q->head++ % BG_QUEUE_SLOTS];
	ex_check(pthread_mutex_unlock(&q->lock), "pthread_mutex_unlock");
	ex_sem_post(&q->space);
	return p;
}

static struct packet *packet_new(void)
{
	struct packet *p = malloc(sizeof *p);
	if (p == NULL) {
		fprintf(stderr, "billing: out of memory for a packet\n");
		exit(1);
	}
	p->n = 0;
	return p;
}

/* The per-record share of COST units of work, times FACTOR. */
EX_HELPER uint64_t steps_per_record(double cost, double factor, size_t records)
{
	return ex_iters(cost * unit, factor) / (records > 0 ? records : 1);
}

/* Receive packet NUMBER of reader R: generate its call records. */
static EX_FUNC void Reader(int r, int number, struct packet *p)
{
	uint64_t steps = steps_per_record(BG_READER_COST, f_reader, BG_RECORDS);
	uint64_t acc = 0;
	p->n = BG_RECORDS;
	for (size_t k = 0; k < BG_RECORDS; k++) {
		uint64_t id = ((uint64_t)r << 40) | ((uint64_t)number << 20) | k;
		p->rec[k] = ex_mix(id) >> 8;
		acc += ex_burn(p->rec[k], steps);
		read_sum[r] += p->rec[k];
	}
	ex_sink(acc);
}

/* Sort the packet's records (Shell sort) and "convert" them, then split it
 * into one half packet per writer. */
static EX_FUNC void Sorter(struct packet *p, struct packet *half[BG_WRITERS_PER_SORTER])
{
	uint64_t steps = steps_per_record(BG_SORTER_COST, f_sorter, p->n);
	uint64_t acc = 0;
	for (size_t gap = p->n / 2; gap > 0; gap /= 2) {
		for (size_t i = gap; i < p->n; i++) {
			uint64_t v = p->rec[i];
			size_t j = i;
			for (; j >= gap && p->rec[j - gap] > v; j -= gap)
				p->rec[j] = p->rec[j - gap];
			p->rec[j] = v;
		}
	}
	for (size_t k = 0; k < p->n; k++)
		acc += ex_burn(p->rec[k], steps);
	ex_sink(acc);
	size_t per = p->n / BG_WRITERS_PER_SORTER;
	for (int w = 0; w < BG_WRITERS_PER_SORTER; w++) {
		size_t first = per * (size_t)w;
		size_t count = w + 1 < BG_WRITERS_PER_SORTER ? per : p->n - first;
		memcpy(half[w]->rec, p->rec + first, count * sizeof p->rec[0]);
		half[w]->n = count;
	}
}

/* Send half a packet further: here, check it and add it up. */
static EX_FUNC void Writer(int w, const struct packet *p)
{
	uint64_t steps = steps_per_record(BG_WRITER_COST, f_writer, BG_RECORDS / 2);
	uint64_t acc = 0;
	for (size_t k = 0; k < p->n; k++) {
		acc += ex_burn(p->rec[k], steps);
		written_sum[w] += p->rec[k];
		if (k > 0 && p->rec[k - 1] > p->rec[k])
			unsorted_halves[w]++;
	}
	written_halves[w]++;
	ex_sink(acc);
}

static void *reader_thread(void *arg)
{
	int r = (int)(intptr_t)arg;
	for (int k = 0; k < BG_PACKETS; k++) {
		struct packet *p = packet_new();
		Reader(r, k, p);
		queue_put(&to_sorter[r], p);
	}
	return NULL;
}

static void *sorter_thread(void *arg)
{
	int s = (int)(intptr_t)arg;
	for (int k = 0; k < BG_PACKETS; k++) {
		struct packet *p = queue_get(&to_sorter[s]);
		struct packet *half[BG_WRITERS_PER_SORTER];
		for (int w = 0; w < BG_WRITERS_PER_SORTER; w++)
			half[w] = packet_new();
		Sorter(p, half);
		free(p);
		for (int w = 0; w < BG_WRITERS_PER_SORTER; w++)
			queue_put(&to_writer[s * BG_WRITERS_PER_SORTER + w], half[w]);
	}
	return NULL;
}

static void *writer_thread(void *arg)
{
	int w = (int)(intptr_t)arg;
	for (int k = 0; k < BG_PACKETS; k++) {
		struct packet *p = queue_get(&to_writer[w]);
		Writer(w, p);
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	unit = BG_UNIT * opts.scale;
	f_reader = ex_work_factor("Reader");
	f_sorter = ex_work_factor("Sorter");
	f_writer = ex_work_factor("Writer");
	for (int k = 0; k < BG_READERS; k++)
		queue_init(&to_sorter[k]);
	for (int k = 0; k < BG_WRITERS; k++)
		queue_init(&to_writer[k]);

	pthread_t readers[BG_READERS], sorters[BG_READERS], writers[BG_WRITERS];
	for (int k = 0; k < BG_WRITERS; k++)
		ex_check(
		    pthread_create(&writers[k], NULL, writer_thread, (void *)(intptr_t)k),
		    "pthread_create");
	for (int k = 0; k < BG_READERS; k++)
		ex_check(
		    pthread_create(&sorters[k], NULL, sorter_thread, (void *)(intptr_t)k),
		    "pthread_create");
	for (int k = 0; k < BG_READERS; k++)
		ex_check(
		    pthread_create(&readers[k], NULL, reader_thread, (void *)(intptr_t)k),
		    "pthread_create");
	for (int k = 0; k < BG_READERS; k++) {
		ex_check(pthread_join(readers[k], NULL), "pthread_join");
		ex_check(pthread_join(sorters[k], NULL), "pthread_join");
	}
	for (int k = 0; k < BG_WRITERS; k++)
		ex_check(pthread_join(writers[k], NULL), "pthread_join");

	if (opts.check) {
		for (int r = 0; r < BG_READERS; r++) {
			uint64_t out = 0;
			for (int w = 0; w < BG_WRITERS_PER_SORTER; w++) {
				int k = r * BG_WRITERS_PER_SORTER + w;
				out += written_sum[k];
				if (written_halves[k] != BG_PACKETS ||
				    unsorted_halves[k] != 0) {
					fprintf(stderr,
						"billing: writer %d got %u halves (%u "
						"unsorted), expected %d sorted\n",
						k, written_halves[k], unsorted_halves[k],
						BG_PACKETS);
					return 1;
				}
			}
			if (out != read_sum[r]) {
				fprintf(stderr,
					"billing: records of reader %d lost or changed\n",
					r);
				return 1;
			}
		}
	}
	if (!opts.quiet)
		printf("billing: %d packets through %d readers, %d sorters, %d writers\n",
		       BG_READERS * BG_PACKETS, BG_READERS, BG_READERS, BG_WRITERS);
	return 0;
}
