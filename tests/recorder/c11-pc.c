/* SPDX-License-Identifier: MIT */
/* A C11-threads producer/consumer (<threads.h> only) for the end-to-end test
 * of the C11 wrappers: main produces 16 items, a consumer thread takes them
 * through a queue guarded by an mtx_t and a cnd_t.  The first half of the
 * items is slow to produce and quick to consume, the second half the
 * reverse, so the consumer's dependency on the producer shapes the run time
 * on 2 processors (about 90% of T1, where two independent threads would
 * take 50%).  Before it starts the consumer, main uses call_once,
 * mtx_trylock, mtx_timedlock, a cnd_timedwait that times out (2 ms) and
 * thrd_sleep (1 ms); the consumer calls call_once too and ends with
 * thrd_exit, and main broadcasts a condition nobody waits on at the end.
 *
 * It is its own ground truth: each thread reads its CLOCK_THREAD_CPUTIME_ID
 * at every hand-off and main prints the CPU time of every piece of work
 * between two hand-offs ("seg KEY ns"), so that the test can solve the
 * program's dependency graph on the durations of this very run (timings
 * are never compared across runs: this machine's speed varies 2-3x). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <threads.h>
#include <time.h>

#define ITEMS   16
#define SLOW_NS 5000000
#define FAST_NS 500000

static mtx_t lock;
static cnd_t ready, never;
static once_flag once = ONCE_FLAG_INIT;
static int queue[ITEMS], head, tail, once_runs;
static uint64_t prod_ns[ITEMS], cons_ns[ITEMS], setup_ns, cons_tail_ns, main_tail_ns;
static volatile double sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Computes for `ns` of this thread's CPU time. */
static void work(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;
	double s = 0;
	do {
		for (int i = 0; i < 20000; i++)
			s += (double)(i & 7) * 1e-9;
	} while (cpu_ns() < end);
	sink += s;
}

static void init_once(void)
{
	once_runs++;
}

static int consumer(void *arg)
{
	(void)arg;
	uint64_t t = cpu_ns();
	call_once(&once, init_once);
	for (int i = 0; i < ITEMS; i++) {
		mtx_lock(&lock);
		while (head == tail)
			cnd_wait(&ready, &lock);
		int item = queue[head++];
		mtx_unlock(&lock);
		work(item < ITEMS / 2 ? FAST_NS : SLOW_NS);
		uint64_t now = cpu_ns();
		cons_ns[i] = now - t;
		t = now;
	}
	cons_tail_ns = cpu_ns() - t;
	thrd_exit(42); /* ends the thread's recording as a return would */
}

int main(void)
{
	uint64_t t = cpu_ns();
	thrd_t th;
	int res = 0;
	struct timespec deadline;

	mtx_init(&lock, mtx_timed);
	cnd_init(&ready);
	cnd_init(&never);
	call_once(&once, init_once);
	if (mtx_trylock(&lock) == thrd_success)
		mtx_unlock(&lock);
	timespec_get(&deadline, TIME_UTC);
	deadline.tv_sec += 5;
	if (mtx_timedlock(&lock, &deadline) == thrd_success) {
		/* a timed wait nobody signals: it times out after 2 ms */
		timespec_get(&deadline, TIME_UTC);
		deadline.tv_nsec += 2000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		int rc = cnd_timedwait(&never, &lock, &deadline);
		printf("timedwait=%s\n", rc == thrd_timedout ? "timedout" : "other");
		mtx_unlock(&lock);
	}
	thrd_sleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	if (thrd_create(&th, consumer, NULL) != thrd_success)
		return 1;
	uint64_t now = cpu_ns();
	setup_ns = now - t;
	t = now;
	for (int i = 0; i < ITEMS; i++) {
		work(i < ITEMS / 2 ? SLOW_NS : FAST_NS);
		mtx_lock(&lock);
		queue[tail++] = i;
		cnd_signal(&ready);
		mtx_unlock(&lock);
		now = cpu_ns();
		prod_ns[i] = now - t;
		t = now;
	}
	thrd_join(th, &res);
	cnd_broadcast(&never); /* nobody waits: a boundary, no dependency */
	main_tail_ns = cpu_ns() - t;
	printf("joined=%d once_runs=%d\n", res, once_runs);
	printf("seg setup %llu\n", (unsigned long long)setup_ns);
	for (int i = 0; i < ITEMS; i++)
		printf("seg p%d %llu\nseg c%d %llu\n", i, (unsigned long long)prod_ns[i],
		       i, (unsigned long long)cons_ns[i]);
	printf("seg ctail %llu\nseg mtail %llu\n", (unsigned long long)cons_tail_ns,
	       (unsigned long long)main_tail_ns);
	mtx_destroy(&lock);
	cnd_destroy(&ready);
	cnd_destroy(&never);
	return 0;
}
