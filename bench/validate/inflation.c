/* SPDX-License-Identifier: MIT */
/* Work inflation on purpose (issue 36): two threads that each do the same
 * work, in one of four ways that cost more when they run at once on two
 * CPUs than one after the other on one -- or, for the control, do not.
 *
 *   false-sharing  each thread increments its own counter atomically,
 *                  both counters in one cache line (bump_shared_line); the
 *                  line moves between the CPUs on every write
 *   bandwidth      each thread sums its own 64 MiB array, again and again
 *                  (stream_sum): the two share the memory bus
 *   compute        a multiply chain in registers (compute_chain): the
 *                  control, nothing shared
 *   pingpong       the threads hand a turn to each other through a mutex
 *                  and condition variable (pass_turn), a little work a
 *                  turn: on two CPUs each hand-off wakes the other CPU
 *
 * Every mode also runs private_work, a register-only loop, in both
 * threads: it must not inflate (a ratio near 1.0 beside the one that
 * does).  Each thread prints its own CPU time; built with
 * -finstrument-functions so that ecp names the functions.
 *
 * usage: inflation false-sharing|bandwidth|compute|pingpong [SCALE] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static double scale = 1.0;
static const char *mode;

/* two counters in one 64-byte line */
static struct {
	uint64_t counter[2];
} __attribute__((aligned(64))) line;

/* bandwidth: each thread's array, made and touched by main before the
 * threads start (first touches on two CPUs contend on the page tables:
 * that inflation would be the setup's, not the loop's) */
#define ARRAY_WORDS ((64u << 20) / sizeof(uint64_t))
static uint64_t *arrays[2];

static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t scaled(double n)
{
	return (uint64_t)(n * scale);
}

NOINLINE static uint64_t private_work(uint64_t seed)
{
	uint64_t x = seed;
	for (uint64_t i = 0, n = scaled(6e7); i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* Atomic increments, as counters shared between threads are written: each
 * needs the line exclusive, so two CPUs take it from each other (plain
 * increments were barely slower on two vCPUs that share a core's cache). */
NOINLINE static uint64_t bump_shared_line(int me)
{
	for (uint64_t i = 0, n = scaled(5e7); i < n; i++)
		__atomic_fetch_add(&line.counter[me], 1, __ATOMIC_RELAXED);
	return line.counter[me];
}

NOINLINE static uint64_t stream_sum(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (int rep = 0; rep < (int)(12 * scale) + 1; rep++)
		for (size_t i = 0; i < n; i++)
			s += a[i];
	return s;
}

NOINLINE static uint64_t compute_chain(uint64_t seed)
{
	uint64_t x = seed;
	for (uint64_t i = 0, n = scaled(2e8); i < n; i++)
		x = x * 2862933555777941757ull + 3037000493ull;
	return x;
}

NOINLINE static uint64_t little_work(uint64_t x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ull + 1;
	return x;
}

/* Waits for this thread's turn, does a little work, hands the turn on. */
NOINLINE static uint64_t pass_turn(int me, uint64_t x)
{
	pthread_mutex_lock(&turn_lock);
	while (turn != me)
		pthread_cond_wait(&turn_cond, &turn_lock);
	x = little_work(x);
	turn = 1 - me;
	pthread_cond_signal(&turn_cond);
	pthread_mutex_unlock(&turn_lock);
	return x;
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t t0 = thread_cpu_ns(), r = private_work((uint64_t)me + 1);
	if (!strcmp(mode, "false-sharing")) {
		r += bump_shared_line(me);
	} else if (!strcmp(mode, "bandwidth")) {
		r += stream_sum(arrays[me], ARRAY_WORDS);
	} else if (!strcmp(mode, "compute")) {
		r += compute_chain((uint64_t)me + 7);
	} else {
		for (uint64_t i = 0, n = scaled(20000); i < n; i++)
			r = pass_turn(me, r);
	}
	printf("thread %d cpu_ns=%llu result=%llu\n", me,
	       (unsigned long long)(thread_cpu_ns() - t0), (unsigned long long)(r & 1));
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {"false-sharing", "bandwidth", "compute",
					    "pingpong"};
	mode = argc > 1 ? argv[1] : "";
	int known = 0;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		known |= !strcmp(mode, modes[i]);
	if (!known || (argc > 2 && (scale = atof(argv[2])) <= 0)) {
		fprintf(stderr,
			"usage: %s false-sharing|bandwidth|compute|pingpong [SCALE]\n",
			argv[0]);
		return 2;
	}
	for (int i = 0; i < 2 && !strcmp(mode, "bandwidth"); i++) {
		if (!(arrays[i] = malloc(ARRAY_WORDS * sizeof(uint64_t))))
			return 1;
		for (size_t k = 0; k < ARRAY_WORDS; k++)
			arrays[i][k] = k ^ (uint64_t)i;
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
