/* SPDX-License-Identifier: MIT */
/* Writes the seed corpus: gen-corpus DIR writes DIR/builder/NN-name and
 * DIR/ctf/NN-name.  The committed fuzz/corpus was made with
 *     gen-corpus fuzz/corpus
 * Builder seeds are valid programs in the record format of builder-format.h
 * (one per synchronization primitive, the clocks, a few repairs); CTF seeds
 * load each base recording intact and with one typical corruption each
 * (harness-ctf.c describes the operations). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/builder-format.h"
#include "simulator/ctf/event.h"

struct seed {
	uint8_t b[1024];
	size_t n;
};

static void put(struct seed *s, uint8_t v)
{
	if (s->n == sizeof(s->b)) {
		fprintf(stderr, "gen-corpus: seed too long\n");
		exit(1);
	}
	s->b[s->n++] = v;
}

/* One builder record; tid 1..6 or TRY(tid) or BACK(tid); dt in ns
 * (< 0xffff); the CPU time advances with the wall time. */
static void rec(struct seed *s, unsigned type, unsigned tid, uint8_t a, uint8_t b,
		uint8_t c, unsigned dt)
{
	put(s, (uint8_t)type);
	put(s, (uint8_t)(tid - 1));
	put(s, a);
	put(s, b);
	put(s, c);
	put(s, (uint8_t)(dt & 0xff));
	put(s, (uint8_t)(dt >> 8));
	put(s, (uint8_t)(dt / 16 > 255 ? 255 : dt / 16));
}

static void save(const char *dir, const char *sub, int *k, const char *name,
		 const struct seed *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s/%02d-%s", dir, sub, (*k)++, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f) != 0) {
		fprintf(stderr, "gen-corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* tid arguments of rec() with the try flag / a backwards time delta. */
#define TRY(t)  ((t) | 0x8u)
#define BACK(t) ((t) | 0x10u)

#define H1 ECP_FUZZ_HANDLE(0)
#define H2 ECP_FUZZ_HANDLE(1)
#define H3 ECP_FUZZ_HANDLE(2)
#define MX ECP_FUZZ_OBJ(0)
#define CV ECP_FUZZ_OBJ(2)
#define SM ECP_FUZZ_OBJ(4)
#define BR ECP_FUZZ_OBJ(6)
#define F1 ECP_FUZZ_FN(1)
#define F2 ECP_FUZZ_FN(2)
#define R2 ECP_FUZZ_FN(3)
#define R3 ECP_FUZZ_FN(4)

static void start_main(struct seed *s, uint8_t opt)
{
	s->n = 0;
	put(s, opt);
	rec(s, ECP_EV_THREAD_START, 1, 0, 0, H1, 100);
}

/* main creates thread 2 (create id 1, routine R2, handle H2). */
static void spawn(struct seed *s, unsigned tid, uint8_t id, uint8_t routine, uint8_t h)
{
	rec(s, ECP_EV_THREAD_CREATE, 1, id, routine, 1, 50);
	rec(s, ECP_EV_THREAD_START, tid, id, routine, h, 50);
}

static void join(struct seed *s, unsigned tid, uint8_t h)
{
	rec(s, ECP_EV_THREAD_EXIT, tid, h, 0, 0, 300);
	rec(s, ECP_EV_THREAD_JOIN_BEGIN, 1, h, 0, 0, 20);
	rec(s, ECP_EV_THREAD_JOIN_END, 1, h, 1, 0, 20);
}

static void end_main(struct seed *s)
{
	rec(s, ECP_EV_PROCESS_EXIT, 1, 0, 0, 0, 100);
}

static void builder_seeds(const char *dir)
{
	struct seed s;
	int k = 0;

	start_main(&s, ECP_FUZZ_OPT_KEEP_CALLS);
	rec(&s, ECP_EV_FUNC_ENTRY, 1, F1, 0, 0, 10);
	rec(&s, ECP_EV_FUNC_ENTRY, 1, F2, F1, 0, 10);
	rec(&s, ECP_EV_FUNC_EXIT, 1, F2, 0, 0, 30);
	rec(&s, ECP_EV_FUNC_FOLDED, 1, F2, 5, 0xc1, 5);
	rec(&s, ECP_EV_FUNC_EXIT, 1, F1, 0, 0, 20);
	end_main(&s);
	save(dir, "builder", &k, "functions", &s);

	start_main(&s, 0);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_FUNC_ENTRY, 2, F1, 0, 0, 10);
	rec(&s, ECP_EV_FUNC_EXIT, 2, F1, 0, 0, 500);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "create-join", &s);

	start_main(&s, 2);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_LOCK_INIT, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_LOCK_REQUEST, 1, MX, 0, 0, 10);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 1, MX, 0, 0, 2);
	rec(&s, ECP_EV_LOCK_REQUEST, 2, MX, 0, 0, 10);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX, 0, 0, 100);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 2, MX, 0, 0, 3);
	rec(&s, ECP_EV_LOCK_RELEASE, 2, MX, 0, 0, 100);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "mutex", &s);

	start_main(&s, 0);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_LOCK_REQUEST, 2, MX, ECP_LOCK_RWLOCK, ECP_LOCK_SHARED, 10);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 2, MX, ECP_LOCK_RWLOCK, ECP_LOCK_SHARED, 2);
	rec(&s, ECP_EV_LOCK_REQUEST, 1, MX, ECP_LOCK_RWLOCK, ECP_LOCK_EXCLUSIVE, 10);
	rec(&s, ECP_EV_LOCK_RELEASE, 2, MX, ECP_LOCK_RWLOCK, 0, 100);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 1, MX, ECP_LOCK_RWLOCK, ECP_LOCK_EXCLUSIVE, 2);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX, ECP_LOCK_RWLOCK, 0, 50);
	rec(&s, ECP_EV_LOCK_ACQUIRED, TRY(1), MX + 1, ECP_LOCK_SPIN, 0, 5);
	rec(&s, ECP_EV_LOCK_FAILED, 1, MX + 2, ECP_LOCK_MUTEX, 16 /* EBUSY */, 5);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX + 1, ECP_LOCK_SPIN, 0, 5);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "rwlock-spin-try", &s);

	start_main(&s, 0);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_LOCK_REQUEST, 2, MX, 0, 0, 5);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 2, MX, 0, 0, 5);
	rec(&s, ECP_EV_COND_WAIT_BEGIN, 2, CV, MX, 0, 10);
	rec(&s, ECP_EV_LOCK_REQUEST, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_COND_SIGNAL, 1, CV, 0, 0, 10);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX, 0, 0, 10);
	rec(&s, ECP_EV_COND_WAIT_END, 2, CV, MX, 0, 10);
	rec(&s, ECP_EV_COND_BROADCAST, 2, CV, 0, 0, 10);
	rec(&s, ECP_EV_LOCK_RELEASE, 2, MX, 0, 0, 10);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "condvar", &s);

	start_main(&s, 0);
	rec(&s, ECP_EV_SEM_INIT, 1, SM, 0, 0, 5);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_SEM_WAIT_BEGIN, 1, SM, 0, 0, 5);
	rec(&s, ECP_EV_SEM_POST, 2, SM, 0, 0, 200);
	rec(&s, ECP_EV_SEM_WAIT_END, 1, SM, 0, 0, 5);
	rec(&s, ECP_EV_SEM_WAIT_BEGIN, 1, SM, 0xff /* trywait */, 0, 5);
	rec(&s, ECP_EV_SEM_WAIT_END, 1, SM, 11 /* EAGAIN */, 0, 5);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "semaphore", &s);

	start_main(&s, 0);
	rec(&s, ECP_EV_BARRIER_INIT, 1, BR, 3, 0, 5);
	spawn(&s, 2, 1, R2, H2);
	spawn(&s, 3, 2, R3, H3);
	rec(&s, ECP_EV_BARRIER_WAIT_BEGIN, 2, BR, 0, 0, 100);
	rec(&s, ECP_EV_BARRIER_WAIT_BEGIN, 3, BR, 0, 0, 100);
	rec(&s, ECP_EV_BARRIER_WAIT_BEGIN, 1, BR, 0, 0, 100);
	rec(&s, ECP_EV_BARRIER_WAIT_END, 1, BR, 1, 0, 5);
	rec(&s, ECP_EV_BARRIER_WAIT_END, 2, BR, 0, 0, 5);
	rec(&s, ECP_EV_BARRIER_WAIT_END, 3, BR, 0, 0, 5);
	join(&s, 2, H2);
	join(&s, 3, H3);
	end_main(&s);
	save(dir, "builder", &k, "barrier", &s);

	start_main(&s, 0);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_ONCE_BEGIN, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_ONCE_BEGIN, 2, MX, 0, 0, 5);
	rec(&s, ECP_EV_ONCE_END, 1, MX, 1, 0, 100);
	rec(&s, ECP_EV_ONCE_END, 2, MX, 0, 0, 5);
	rec(&s, ECP_EV_DELAY_BEGIN, 2, 1, 3, 0xc5, 5);
	rec(&s, ECP_EV_DELAY_END, 2, 1, 0, 0, 3000);
	rec(&s, ECP_EV_THREAD_DETACH, 2, H2, 0, 0, 5);
	rec(&s, ECP_EV_THREAD_EXIT, 2, H2, 0, 0, 5);
	end_main(&s);
	save(dir, "builder", &k, "once-delay-detach", &s);

	/* Context switches first (the sched trace), then the program. */
	s.n = 0;
	put(&s, 0);
	rec(&s, ECP_EV_SCHED_SWITCH, 1, 0, 0, 0, 50);
	rec(&s, ECP_EV_SCHED_SWITCH, 1, 1, 1, 0, 400);
	rec(&s, ECP_EV_SCHED_SWITCH, 2, 0, 0, 0, 0);
	rec(&s, ECP_EV_SCHED_SWITCH, 2, 1, 0, 0, 300);
	rec(&s, ECP_EV_SCHED_SWITCH, 1, 0, 0, 0, 0);
	rec(&s, ECP_EV_SCHED_LOST, 1, 2, 0, 0, 10);
	rec(&s, ECP_EV_COUNT /* ecp_builder_set_comm */, 2, 1, 0, 0, 0);
	rec(&s, ECP_EV_THREAD_START, 1, 0, 0, H1, 100);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_THREAD_NAME, 2, 1, 0, 0, 5);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "sched-switch", &s);

	/* Timed waits that time out: the delay is the time slept, bounded by
	 * the timeout (0xc1: about 1 ms). */
	start_main(&s, 0);
	rec(&s, ECP_EV_LOCK_REQUEST, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_LOCK_ACQUIRED, 1, MX, 0, 0, 5);
	rec(&s, ECP_EV_COND_WAIT_BEGIN, 1, CV, MX, 0xc1, 10);
	rec(&s, ECP_EV_COND_WAIT_END, 1, CV, MX, ECP_FUZZ_ETIMEDOUT, 0xf000);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX, 0, 0, 10);
	rec(&s, ECP_EV_SEM_INIT, 1, SM, 0, 0, 5);
	rec(&s, ECP_EV_SEM_WAIT_BEGIN, 1, SM, 0xc1, 0, 5);
	rec(&s, ECP_EV_SEM_WAIT_END, 1, SM, ECP_FUZZ_ETIMEDOUT, 0, 0x2000);
	end_main(&s);
	save(dir, "builder", &k, "timeouts", &s);

	/* Repairs for the lenient builder: an exit without entry, an unwound
	 * frame, a join of an unknown handle, time going backwards. */
	start_main(&s, 0);
	rec(&s, ECP_EV_FUNC_EXIT, 1, F1, 0, 0, 10);
	rec(&s, ECP_EV_FUNC_ENTRY, 1, F2, 0, 0, 10);
	rec(&s, ECP_EV_FUNC_UNWOUND, 1, F2, 0, 0, 10);
	rec(&s, ECP_EV_LOCK_RELEASE, 1, MX, 0, 0, 10);
	rec(&s, ECP_EV_THREAD_JOIN_BEGIN, BACK(1), H3, 0, 0, 5);
	rec(&s, ECP_EV_THREAD_JOIN_END, 1, H3, 1, 0, 5);
	end_main(&s);
	save(dir, "builder", &k, "repairs", &s);

	/* Futexes (C++20 waits): a wake releases the waiter; a second wait
	 * finds the word changed (EAGAIN, 11) and a third times out. */
	start_main(&s, 0);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_FUTEX_WAIT_BEGIN, 2, MX, 0, 0, 10);
	rec(&s, ECP_EV_FUTEX_WAKE, 1, MX, 1, 0, 100);
	rec(&s, ECP_EV_FUTEX_WAIT_END, 2, MX, 0, 0, 10);
	rec(&s, ECP_EV_FUTEX_WAKE, 1, MX, 0x3f, 0, 20);
	rec(&s, ECP_EV_FUTEX_WAIT_BEGIN, 2, MX, 0, 0, 10);
	rec(&s, ECP_EV_FUTEX_WAIT_END, 2, MX, EAGAIN, 0, 2);
	rec(&s, ECP_EV_FUTEX_WAIT_BEGIN, 2, MX, 0xc1, 0, 10);
	rec(&s, ECP_EV_FUTEX_WAIT_END, 2, MX, ECP_FUZZ_ETIMEDOUT, 0, 0x2000);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "futex", &s);

	/* Channels: a pipe read that blocked for a write, a socketpair's
	 * peers, a short write's correction (0xff: -1), an eventfd's initial
	 * counter, and an unmodelled call named. */
	start_main(&s, 0);
	rec(&s, ECP_EV_CHAN_OPEN, 1, CV, 0, 0, 5);
	rec(&s, ECP_EV_CHAN_OPEN, 1, SM, BR, 0, 5);
	rec(&s, ECP_EV_CHAN_OPEN, 1, BR, SM, 3, 5);
	spawn(&s, 2, 1, R2, H2);
	rec(&s, ECP_EV_DELAY_BEGIN, 2, 7, 3, 0, 10);
	rec(&s, ECP_EV_CHAN_WRITE, 1, CV, 8, 0, 100);
	rec(&s, ECP_EV_CHAN_WRITE, 1, CV, 0xff, 0, 1);
	rec(&s, ECP_EV_DELAY_END, 2, 7, 4, 0, 10);
	rec(&s, ECP_EV_CHAN_READ, 2, CV, 4, 0, 0);
	rec(&s, ECP_EV_CHAN_WRITE, 1, SM, 2, 0, 10);
	rec(&s, ECP_EV_CHAN_READ, 2, BR, 5, 0, 10);
	rec(&s, ECP_EV_UNMODELLED, 2, 1, 0, 0, 5);
	join(&s, 2, H2);
	end_main(&s);
	save(dir, "builder", &k, "channels", &s);

	/* Samples (issue 18), pushed with the sched records: a thread sampled
	 * in FN(1) called from FN(2), with and without instrumented frames;
	 * by call site (option bit 3), then from the samples alone (bit 4). */
	for (uint8_t opt = 0; opt <= ECP_FUZZ_OPT_BY_CALLSITE + ECP_FUZZ_OPT_SAMPLES_ONLY;
	     opt += ECP_FUZZ_OPT_BY_CALLSITE) {
		s.n = 0;
		put(&s, opt);
		rec(&s, ECP_EV_SCHED_SWITCH, 1, 0, 0, 0, 50);
		rec(&s, ECP_EV_COUNT, 1 + ECP_FUZZ_SAMPLE, ECP_FUZZ_FN(1), ECP_FUZZ_FN(2),
		    0, 300);
		rec(&s, ECP_EV_COUNT, 1 + ECP_FUZZ_SAMPLE, ECP_FUZZ_FN(2), ECP_FUZZ_FN(3),
		    0, 400);
		rec(&s, ECP_EV_COUNT, 2 + ECP_FUZZ_SAMPLE, ECP_FUZZ_FN(4), ECP_FUZZ_FN(1),
		    ECP_FUZZ_FN(2), 600);
		rec(&s, ECP_EV_THREAD_START, 1, 0, 0, H1, 0);
		rec(&s, ECP_EV_FUNC_ENTRY, 1, ECP_FUZZ_FN(2), ECP_FUZZ_FN(3), 0, 100);
		spawn(&s, 2, 1, R2, H2);
		rec(&s, ECP_EV_FUNC_EXIT, 1, ECP_FUZZ_FN(2), 0, 0, 500);
		join(&s, 2, H2);
		end_main(&s);
		static const char *const names[] = {"samples", "samples-callsite",
						    "samples-only",
						    "samples-only-callsite"};
		save(dir, "builder", &k, names[opt / ECP_FUZZ_OPT_BY_CALLSITE], &s);
	}
}

static void ctf_seed(const char *dir, int *k, const char *name, uint8_t head,
		     const uint8_t *ops, size_t n)
{
	struct seed s = {.n = 0};
	put(&s, head);
	for (size_t i = 0; i < n; i++)
		put(&s, ops[i]);
	save(dir, "ctf", k, name, &s);
}

/* op = kind * 5 + file; files 0 meta, 1 main metadata, 2 main stream,
 * 3 sched metadata, 4 sched stream. */
#define OP(kind, file) ((uint8_t)((kind)*5 + (file)))

static void ctf_seeds(const char *dir)
{
	int k = 0;
	for (uint8_t b = 0; b < 3; b++) {
		char name[32];
		snprintf(name, sizeof(name), "intact-%u", b);
		ctf_seed(dir, &k, name, b, NULL, 0);
	}
	ctf_seed(dir, &k, "intact-calls-loss", 2 | 4 | 8, NULL, 0);
	static const uint8_t trunc_meta[] = {OP(1, 1), 0x00, 0x02, 0};
	ctf_seed(dir, &k, "truncate-metadata", 1, trunc_meta, sizeof(trunc_meta));
	static const uint8_t trunc_stream[] = {OP(1, 2), 0x04, 0x00, 0};
	ctf_seed(dir, &k, "truncate-stream", 1, trunc_stream, sizeof(trunc_stream));
	static const uint8_t flip_stream[] = {OP(2, 2), 0x40, 0x00, 0x01,
					      OP(2, 4), 0x60, 0x00, 0x80};
	ctf_seed(dir, &k, "flip-streams", 2, flip_stream, sizeof(flip_stream));
	static const uint8_t meta_clock[] = {OP(3, 0), 0x00, 0x00, 11,  'c', 'l',
					     'o',      'c',  'k',  '=', 'b', 'o',
					     'g',      'u',  's',  '\n'};
	ctf_seed(dir, &k, "meta-bad-clock", 0, meta_clock, sizeof(meta_clock));
	static const uint8_t meta_trunc[] = {OP(1, 0), 0x10, 0x00, 0};
	ctf_seed(dir, &k, "meta-truncated", 1, meta_trunc, sizeof(meta_trunc));
	static const uint8_t extreme[] = {OP(4, 2), 0x30, 0x00, 2,
					  OP(4, 4), 0x28, 0x00, 3};
	ctf_seed(dir, &k, "stream-extremes", 2, extreme, sizeof(extreme));
	static const uint8_t sched_meta[] = {OP(0, 3), 0x80, 0x00, 3, '}', '{', ';', '"'};
	ctf_seed(dir, &k, "sched-metadata-garbage", 2, sched_meta, sizeof(sched_meta));
	static const uint8_t empty_stream[] = {OP(1, 4), 0x00, 0x00, 0};
	ctf_seed(dir, &k, "sched-stream-empty", 2, empty_stream, sizeof(empty_stream));
	/* function records in batches (issue 35): intact, and with bytes of
	 * the main thread's batches flipped: the first one's format byte (at
	 * 137: after the packet header, thread_start and the batch's header,
	 * context, `n` and COBS code byte), bytes of its second one's records */
	ctf_seed(dir, &k, "intact-3-batched", 3, NULL, 0);
	static const uint8_t batch_flip[] = {OP(2, 2), 0x89, 0x00, 0x02,
					     OP(2, 2), 0x7a, 0x03, 0x40,
					     OP(2, 2), 0x7f, 0x03, 0x81};
	ctf_seed(dir, &k, "batch-flip", 3, batch_flip, sizeof(batch_flip));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen-corpus DIR\n");
		return 2;
	}
	char path[4096];
	const char *subs[] = {"builder", "ctf"};
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], subs[i]);
		if (mkdir(argv[1], 0777) < 0 && errno != EEXIST)
			return perror(argv[1]), 1;
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			return perror(path), 1;
	}
	builder_seeds(argv[1]);
	ctf_seeds(argv[1]);
	return 0;
}
