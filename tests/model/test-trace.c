/* SPDX-License-Identifier: MIT */
/* Unit tests of the trace path: CTF written by tests/support/ctf-writer.c,
 * read back by the babeltrace2 reader into a model; the model cache; every
 * trace-level error; symbol resolution with libelf. */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "simulator/model/arena.h"
#include "simulator/model/cache.h"
#include "simulator/symbols/symbols.h"
#include "simulator/trace/trace.h"
#include "common/manifest.h"
#include "tests/support/ctf-writer.h"
#include "tests/support/event-seq.h"

#define MAIN 100
#define T2   101

static char tmpdir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ecp-test-trace-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void path_in(char *buf, const char *sub)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", tmpdir, sub);
	assert_true(n > 0 && n < PATH_MAX);
}

/* A small two-thread program: create, functions, a semaphore hand-off,
 * join; context switches for the CPU time. */
static void program(struct ecp_test_seq *s)
{
	ecp_test_seq_init(s);
	ecp_test_switch(s, MAIN, 1000, 0, 0);
	ecp_test_switch(s, MAIN, 1300, 1, 0);
	ecp_test_switch(s, T2, 1300, 0, 0);
	ecp_test_switch(s, T2, 1500, 1, 0);
	ecp_test_switch(s, MAIN, 1500, 0, 0);
	ecp_test_ev(s, MAIN, 1000, ECP_EV_THREAD_START, 0, 0, 0xa1);
	ecp_test_ev(s, MAIN, 1010, ECP_EV_FUNC_ENTRY, 0x4000, 0, 0);
	ecp_test_ev(s, MAIN, 1100, ECP_EV_THREAD_CREATE, 1, 0x5000, 1);
	ecp_test_ev(s, MAIN, 1200, ECP_EV_FUNC_EXIT, 0x4000, 0, 0);
	ecp_test_ev(s, MAIN, 1290, ECP_EV_SEM_WAIT_BEGIN, 0x77, 0, 0);
	ecp_test_ev(s, T2, 1310, ECP_EV_THREAD_START, 1, 0x5000, 0xa2);
	ecp_test_ev(s, T2, 1311, ECP_EV_THREAD_NAME, 0, 0, 0)->name = "worker";
	ecp_test_ev(s, T2, 1400, ECP_EV_SEM_POST, 0x77, 0, 0);
	ecp_test_ev(s, T2, 1490, ECP_EV_THREAD_EXIT, 0xa2, 0, 0);
	ecp_test_ev(s, MAIN, 1510, ECP_EV_SEM_WAIT_END, 0x77, 0, 0);
	ecp_test_ev(s, MAIN, 1520, ECP_EV_THREAD_JOIN_BEGIN, 0xa2, 0, 0);
	ecp_test_ev(s, MAIN, 1530, ECP_EV_THREAD_JOIN_END, 0xa2, 1, 0);
	ecp_test_ev(s, MAIN, 1600, ECP_EV_THREAD_EXIT, 0xa1, 0, 0);
}

static struct ecp_model *load(const char *dir, bool cache, bool allow_loss,
			      struct ecp_error *err)
{
	struct ecp_load_options o = ECP_LOAD_OPTIONS_DEFAULT;
	o.use_cache = cache;
	o.allow_loss = allow_loss;
	struct ecp_model *m = NULL;
	if (ecp_trace_load(dir, &o, &m, err) < 0)
		return NULL;
	return m;
}

static void test_ctf_round_trip(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	char dir[PATH_MAX];
	path_in(dir, "rt");
	program(&s);
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	struct ecp_model *direct = ecp_test_seq_build(&s, NULL, &err);
	assert_non_null(direct);
	struct ecp_model *m = load(dir, false, false, &err);
	if (!m)
		fail_msg("%s", err.msg);
	assert_int_equal(ecp_model_validate(m, &err), 0);
	assert_int_equal(m->n_threads, 2);
	assert_int_equal(m->n_segments, direct->n_segments);
	assert_int_equal(m->n_edges, direct->n_edges);
	assert_int_equal(ecp_model_work(m), ecp_model_work(direct));
	/* main: 1000..1300 and 1500..1600 on CPU */
	assert_int_equal(ecp_model_work(m), 300 + 100 + 190 - 10);
	assert_string_equal(m->threads[1].name, "worker");
	assert_int_equal(m->info.events, s.n);
	assert_string_equal(m->info.program, "synthetic program");
	assert_string_equal(m->info.clock, "perf-switch");
	/* no statedump: addresses are named, never dropped */
	assert_int_not_equal(ecp_model_find_function(m, "0x4000"), ECP_NO_ID);
	ecp_model_destroy(m);
	ecp_model_destroy(direct);
	ecp_test_seq_finish(&s);
}

/* Function records in batches (issue 35): the same program written with a
 * func_batch per thread (several of them: 3000 calls) and with one event
 * per entry and exit gives the same model and counts the same events; a
 * batch of another format, or with fewer records than its `n`, is refused
 * with a message naming the stream and the event. */
static void calls_program(struct ecp_test_seq *s)
{
	ecp_test_seq_init(s);
	ecp_test_switch(s, MAIN, 1000, 0, 0);
	ecp_test_switch(s, MAIN, 2000000, 1, 0);
	ecp_test_switch(s, T2, 2000000, 0, 0);
	ecp_test_switch(s, T2, 2100000, 1, 0);
	ecp_test_switch(s, MAIN, 2100000, 0, 0);
	ecp_test_ev(s, MAIN, 1000, ECP_EV_THREAD_START, 0, 0, 0xa1);
	ecp_test_ev(s, MAIN, 1005, ECP_EV_FUNC_ENTRY, 0x4000, 0, 0);
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t t = 2000 + i * 600;
		ecp_test_ev(s, MAIN, t, ECP_EV_FUNC_ENTRY, 0x4100 + (i % 3) * 0x40,
			    0x4020, 0);
		ecp_test_ev(s, MAIN, t + 250 + i % 7, ECP_EV_FUNC_EXIT,
			    0x4100 + (i % 3) * 0x40, 0, 0);
	}
	ecp_test_ev(s, MAIN, 1900000, ECP_EV_THREAD_CREATE, 1, 0x5000, 1);
	ecp_test_ev(s, MAIN, 1990000, ECP_EV_SEM_WAIT_BEGIN, 0x77, 0, 0);
	ecp_test_ev(s, T2, 2000010, ECP_EV_THREAD_START, 1, 0x5000, 0xa2);
	ecp_test_ev(s, T2, 2000020, ECP_EV_FUNC_ENTRY, 0x5000, 0x3000, 0);
	ecp_test_ev(s, T2, 2050000, ECP_EV_SEM_POST, 0x77, 0, 0);
	ecp_test_ev(s, T2, 2060000, ECP_EV_FUNC_UNWOUND, 0x5000, 0, 0);
	ecp_test_ev(s, T2, 2090000, ECP_EV_THREAD_EXIT, 0xa2, 0, 0);
	ecp_test_ev(s, MAIN, 2100010, ECP_EV_SEM_WAIT_END, 0x77, 0, 0);
	ecp_test_ev(s, MAIN, 2100020, ECP_EV_THREAD_JOIN_BEGIN, 0xa2, 0, 0);
	ecp_test_ev(s, MAIN, 2100030, ECP_EV_THREAD_JOIN_END, 0xa2, 1, 0);
	ecp_test_ev(s, MAIN, 2150000, ECP_EV_FUNC_EXIT, 0x4000, 0, 0);
	ecp_test_ev(s, MAIN, 2160000, ECP_EV_THREAD_EXIT, 0xa1, 0, 0);
}

/* Overwrites `len` bytes at `off` of a file. */
static void poke(const char *path, long off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, len, off), (ssize_t)len);
	close(fd);
}

static void test_ctf_batched(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	char plain[PATH_MAX], batched[PATH_MAX], stream[PATH_MAX];
	path_in(plain, "calls-plain");
	path_in(batched, "calls-batched");
	calls_program(&s);
	assert_int_equal(ecp_test_write_recording(plain, &s, 0), 0);
	assert_int_equal(ecp_test_write_recording_batched(batched, &s, 0), 0);
	struct ecp_model *a = load(plain, false, false, &err);
	if (!a)
		fail_msg("%s", err.msg);
	struct ecp_model *b = load(batched, false, false, &err);
	if (!b)
		fail_msg("%s", err.msg);
	assert_int_equal(ecp_model_validate(b, &err), 0);
	assert_int_equal(b->n_threads, a->n_threads);
	assert_int_equal(b->n_segments, a->n_segments);
	assert_int_equal(b->n_edges, a->n_edges);
	assert_int_equal(ecp_model_work(b), ecp_model_work(a));
	assert_int_equal(b->n_functions, a->n_functions);
	assert_int_equal(
	    memcmp(b->segments, a->segments, a->n_segments * sizeof(*a->segments)), 0);
	/* every record counts as the event it was (the sched trace's two
	 * clock anchors besides) */
	assert_int_equal(a->info.events, s.n);
	assert_int_equal(b->info.events, s.n + 2);
	ecp_model_destroy(a);
	ecp_model_destroy(b);

	/* The main thread's first batch is the stream's second event, after
	 * thread_start (12 + 16 + 32 bytes): its `n` at 44 + 60 + 28, its
	 * string (a COBS code byte, then the format byte) after it. */
	path_in(stream, "calls-batched/main/ust/uid/0/64-bit/stream_0");
	const unsigned char format2 = 2;
	poke(stream, 44 + 60 + 12 + 16 + 4 + 1, &format2, 1);
	assert_null(load(batched, false, false, &err));
	assert_non_null(strstr(err.msg, "ecp:func_batch"));
	assert_non_null(strstr(err.msg, "stream="));
	assert_non_null(strstr(err.msg, "unknown batch format"));

	assert_int_equal(ecp_test_write_recording_batched(batched, &s, 0), 0);
	const unsigned char more[4] = {0xff, 0xff, 0, 0};
	poke(stream, 44 + 60 + 12 + 16, more, sizeof(more));
	assert_null(load(batched, false, false, &err));
	assert_non_null(strstr(err.msg, "fewer records than its `n`"));
	ecp_test_seq_finish(&s);
}

static void test_cache_used_and_invalidated(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	char dir[PATH_MAX], stream[PATH_MAX], cache[PATH_MAX];
	path_in(dir, "cache");
	path_in(stream, "cache/main/ust/uid/0/64-bit/stream_0");
	path_in(cache, "cache/" ECP_CACHE_FILE);
	program(&s);
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	struct ecp_model *m1 = load(dir, true, false, &err);
	assert_non_null(m1);
	assert_int_equal(access(cache, R_OK), 0);

	/* Garble the CTF but keep size and mtime: only the cache can answer. */
	struct stat st;
	assert_int_equal(stat(stream, &st), 0);
	int fd = open(stream, O_WRONLY);
	assert_true(fd >= 0);
	char zeros[64] = {0};
	assert_int_equal(write(fd, zeros, sizeof(zeros)), sizeof(zeros));
	close(fd);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	assert_int_equal(utimensat(AT_FDCWD, stream, times, 0), 0);
	struct ecp_model *m2 = load(dir, true, false, &err);
	if (!m2)
		fail_msg("cache not used: %s", err.msg);
	assert_int_equal(m2->n_segments, m1->n_segments);
	assert_int_equal(m2->n_edges, m1->n_edges);
	assert_int_equal(ecp_model_work(m2), ecp_model_work(m1));
	assert_string_equal(m2->threads[1].name, "worker");
	assert_int_equal(
	    memcmp(m2->segments, m1->segments, m1->n_segments * sizeof(*m1->segments)),
	    0);
	assert_string_equal(m2->functions[0].name, m1->functions[0].name);
	ecp_model_destroy(m2);

	/* A changed trace invalidates the cache: the garbled CTF is read. */
	struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
	assert_int_equal(utimensat(AT_FDCWD, stream, now, 0), 0);
	assert_null(load(dir, true, false, &err));
	assert_non_null(strstr(err.msg, "trace="));
	ecp_model_destroy(m1);
	ecp_test_seq_finish(&s);
}

/* Every byte of the cache is summed (issue 33): a cache with one byte
 * flipped, anywhere (the header's figures, a segment's length, a name), is
 * stale and rebuilt from the trace, never believed.  Flips every 7th byte in
 * turn and checks the model each time, counting the flips. */
static void test_cache_flipped_byte_rebuilt(void **state)
{
	(void)state;
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	char dir[PATH_MAX], cache[PATH_MAX];
	path_in(dir, "flip");
	path_in(cache, "flip/" ECP_CACHE_FILE);
	program(&s);
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	struct ecp_model *m1 = load(dir, true, false, &err);
	assert_non_null(m1);
	struct stat st;
	assert_int_equal(stat(cache, &st), 0);
	unsigned flips = 0;
	for (off_t at = 0; at < st.st_size; at += 7, flips++) {
		int fd = open(cache, O_RDWR);
		assert_true(fd >= 0);
		unsigned char c;
		assert_int_equal(pread(fd, &c, 1, at), 1);
		c ^= 0x10;
		assert_int_equal(pwrite(fd, &c, 1, at), 1);
		close(fd);
		struct ecp_model *m2 = load(dir, true, false, &err);
		if (!m2)
			fail_msg("flip at %lld: %s", (long long)at, err.msg);
		assert_int_equal(m2->n_segments, m1->n_segments);
		assert_int_equal(ecp_model_work(m2), ecp_model_work(m1));
		assert_int_equal(memcmp(m2->segments, m1->segments,
					m1->n_segments * sizeof(*m1->segments)),
				 0);
		assert_string_equal(m2->threads[1].name, m1->threads[1].name);
		assert_int_equal(m2->info.program_cpu_ns, m1->info.program_cpu_ns);
		assert_int_equal(m2->info.events, m1->info.events);
		ecp_model_destroy(m2);
	}
	/* the cache of a few hundred bytes: every 7th of them flipped */
	assert_true(flips >= (unsigned)(st.st_size / 7));
	assert_true(flips > 50);
	ecp_model_destroy(m1);
	ecp_test_seq_finish(&s);
}

static void test_cache_never_follows_symlink(void **state)
{
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	char dir[PATH_MAX], cache[PATH_MAX], victim[PATH_MAX];
	path_in(dir, "link");
	path_in(cache, "link/" ECP_CACHE_FILE);
	path_in(victim, "victim");
	program(&s);
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious", f);
	fclose(f);
	assert_int_equal(symlink(victim, cache), 0);
	struct ecp_model *m = load(dir, true, false, &err);
	assert_non_null(m);
	ecp_model_destroy(m);
	struct stat st;
	assert_int_equal(lstat(cache, &st), 0);
	assert_false(S_ISLNK(st.st_mode)); /* replaced, not followed */
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 8);
	ecp_test_seq_finish(&s);
}

static void expect_error(const char *dir, const char *text)
{
	struct ecp_error err = {0};
	struct ecp_model *m = load(dir, false, false, &err);
	if (m)
		fail_msg("expected an error containing '%s'", text);
	if (!strstr(err.msg, text))
		fail_msg("error '%s' does not contain '%s'", err.msg, text);
	assert_non_null(strstr(err.msg, dir));
}

static void test_error_missing_trace_and_meta(void **state)
{
	char dir[PATH_MAX], meta[PATH_MAX];
	path_in(dir, "nothing-here");
	expect_error(dir, "no such trace directory");
	struct ecp_test_seq s;
	program(&s);
	path_in(dir, "nometa");
	path_in(meta, "nometa/ecp-record.meta");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	assert_int_equal(unlink(meta), 0);
	expect_error(dir, "missing metadata file ecp-record.meta");
	ecp_test_seq_finish(&s);
}

/* Appends `text` to the recording's ecp-record.meta. */
static void append_meta(const char *dir, const char *text)
{
	char meta[PATH_MAX + 32];
	snprintf(meta, sizeof(meta), "%s/ecp-record.meta", dir);
	FILE *f = fopen(meta, "a");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ecp-record.meta is read strictly (issue 33): a key given twice, a value
 * that is no number, a line that is no key=value are errors naming the
 * line and the key, never a value read as 0 or the last one winning. */
static void test_error_meta_strict(void **state)
{
	static const struct {
		const char *name, *text, *error;
	} bad[] = {
	    {"dupkey", "wall_ns=5\n", "line 10: key 'wall_ns' given twice"},
	    {"badnum", "program_cpu_ns=12x\n",
	     "program_cpu_ns='12x' is not a whole number"},
	    {"noeq", "garbage\n", "is not key=value: 'garbage'"},
	    /* every key of the catalogue (common/record-meta.h) is checked,
	     * whether or not this reader uses its value */
	    {"unused", "depth=ten\n", "depth='ten' is not a whole number"},
	    {"flag", "cpu_count_read=2\n", "cpu_count_read='2' is not 0 or 1"},
	    {"negative", "samples_lost=-1\n", "samples_lost='-1' is not a whole number"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char dir[PATH_MAX];
		struct ecp_test_seq s;
		program(&s);
		path_in(dir, bad[i].name);
		assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
		append_meta(dir, bad[i].text);
		expect_error(dir, bad[i].error);
		ecp_test_seq_finish(&s);
	}
}

/* A key this ecp does not know (a newer recorder's) is skipped: the trace
 * loads as it would without it. */
static void test_meta_unknown_key_skipped(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	struct ecp_test_seq s;
	program(&s);
	path_in(dir, "unknown-key");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	append_meta(dir, "a_key_from_the_future=anything at all\n");
	struct ecp_error err = {0};
	struct ecp_model *m = load(dir, false, false, &err);
	if (!m)
		fail_msg("%s", err.msg);
	assert_int_equal(m->n_threads, 2);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* The streams are checked against ecp-record.streams before decoding
 * (issue 33): each kind of damage is an error naming the file, where a
 * truncated scheduling stream once changed T4 by half without a word. */
static void test_error_streams_damaged(void **state)
{
	static const struct {
		const char *name, *error;
	} cases[] = {
	    {"truncated", "was truncated"},
	    {"flipped", "the file is damaged"},
	    {"foreign", "is not part of the recording"},
	    {"missing", "is missing"},
	    {"nolist", "ecp-record.streams is missing"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[PATH_MAX], stream[PATH_MAX + 64], other[PATH_MAX + 64];
		struct ecp_error err = {0};
		struct ecp_test_seq s;
		program(&s);
		char name[64];
		snprintf(name, sizeof(name), "streams-%s", cases[i].name);
		path_in(dir, name);
		assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
		append_meta(dir, "manifest=1\n");
		assert_int_equal(ecp_manifest_write(dir, &err), 0);
		struct ecp_model *m = load(dir, false, false, &err);
		if (!m)
			fail_msg("the undamaged trace: %s", err.msg);
		ecp_model_destroy(m);
		snprintf(stream, sizeof(stream), "%s/sched/ust/uid/0/64-bit/stream_0",
			 dir);
		snprintf(other, sizeof(other), "%s/main/ust/uid/0/64-bit/stream_9", dir);
		struct stat st;
		assert_int_equal(stat(stream, &st), 0);
		if (!strcmp(cases[i].name, "truncated")) {
			assert_int_equal(truncate(stream, st.st_size / 2), 0);
		} else if (!strcmp(cases[i].name, "flipped")) {
			int fd = open(stream, O_RDWR);
			unsigned char c;
			assert_int_equal(pread(fd, &c, 1, st.st_size / 2), 1);
			c ^= 1;
			assert_int_equal(pwrite(fd, &c, 1, st.st_size / 2), 1);
			close(fd);
		} else if (!strcmp(cases[i].name, "foreign")) {
			FILE *f = fopen(other, "w");
			assert_non_null(f);
			fputs("not ours", f);
			fclose(f);
		} else if (!strcmp(cases[i].name, "missing")) {
			assert_int_equal(unlink(stream), 0);
		} else {
			char list[PATH_MAX + 32];
			snprintf(list, sizeof(list), "%s/%s", dir, ECP_MANIFEST_FILE);
			assert_int_equal(unlink(list), 0);
		}
		expect_error(dir, cases[i].error);
		ecp_test_seq_finish(&s);
	}
}

static void test_error_missing_and_foreign_metadata(void **state)
{
	char dir[PATH_MAX], md[PATH_MAX];
	struct ecp_test_seq s;
	program(&s);
	path_in(dir, "nomd");
	path_in(md, "nomd/main/ust/uid/0/64-bit/metadata");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	assert_int_equal(unlink(md), 0);
	expect_error(dir, "missing CTF metadata");

	path_in(dir, "badmd");
	path_in(md, "badmd/main/ust/uid/0/64-bit/metadata");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	FILE *f = fopen(md, "w");
	assert_non_null(f);
	fputs("this is not CTF metadata {\n", f);
	fclose(f);
	expect_error(dir, "foreign CTF metadata");
	ecp_test_seq_finish(&s);
}

static void test_error_other_provider(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct ecp_test_seq s;
	program(&s);
	path_in(dir, "foreign");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	path_in(sub, "foreign/main/ust/uid/0/64-bit");
	struct ecp_ctf_writer *w;
	assert_int_equal(ecp_ctf_writer_create(sub, ECP_CTF_FOREIGN, &w), 0);
	assert_int_equal(ecp_ctf_writer_event(w, &s.ev[5]), 0);
	assert_int_equal(ecp_ctf_writer_close(w), 0);
	expect_error(dir, "event 'foo:bar' is not part of an ecp trace");
	ecp_test_seq_finish(&s);
}

static void test_discarded_refused_or_allowed(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	program(&s);
	path_in(dir, "lossy");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	/* rewrite main with a loss of 42 events in the middle */
	path_in(sub, "lossy/main/ust/uid/0/64-bit");
	struct ecp_ctf_writer *w;
	assert_int_equal(ecp_ctf_writer_create(sub, ECP_CTF_MAIN, &w), 0);
	for (size_t i = 0; i < s.n; i++) {
		if (s.ev[i].type == ECP_EV_SCHED_SWITCH)
			continue;
		if (i == 10)
			ecp_ctf_writer_discard(w, 42);
		assert_int_equal(ecp_ctf_writer_event(w, &s.ev[i]), 0);
	}
	assert_int_equal(ecp_ctf_writer_close(w), 0);
	expect_error(dir, "42 events were discarded");
	struct ecp_model *m = load(dir, false, true, &err);
	if (!m)
		fail_msg("--allow-loss: %s", err.msg);
	assert_int_equal(m->info.discarded_events, 42);
	int warned = 0;
	for (size_t i = 0; i < m->n_warnings; i++)
		warned |= strstr(m->warnings[i], "42 events were discarded") != NULL;
	assert_true(warned);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A discard that took a thread's thread_start: the builder's complaint
 * ("event of a thread before its start") is the loss's consequence, and
 * the error says the loss first, with or without --allow-loss. */
static void test_discard_named_before_its_consequence(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	program(&s);
	path_in(dir, "lossy-start");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	path_in(sub, "lossy-start/main/ust/uid/0/64-bit");
	struct ecp_ctf_writer *w;
	assert_int_equal(ecp_ctf_writer_create(sub, ECP_CTF_MAIN, &w), 0);
	int dropped = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.ev[i].type == ECP_EV_SCHED_SWITCH)
			continue;
		if (s.ev[i].type == ECP_EV_THREAD_START && s.ev[i].tid == T2) {
			assert_int_equal(ecp_ctf_writer_discard(w, 1), 0);
			dropped++;
			continue;
		}
		assert_int_equal(ecp_ctf_writer_event(w, &s.ev[i]), 0);
	}
	assert_int_equal(dropped, 1);
	assert_int_equal(ecp_ctf_writer_close(w), 0);
	struct ecp_model *m = load(dir, false, false, &err);
	if (m)
		fail_msg("a trace without a thread's start was analysed");
	if (!strstr(err.msg, "1 events were discarded while recording (first loss"))
		fail_msg("the loss is not named first: %s", err.msg);
	assert_non_null(strstr(err.msg, "before its start"));
	/* --allow-loss: the builder repairs what it can, and says why */
	m = load(dir, false, true, &err);
	if (!m)
		fail_msg("--allow-loss: %s", err.msg);
	int warned = 0;
	for (size_t i = 0; i < m->n_warnings; i++)
		warned |= strstr(m->warnings[i], "1 events were discarded") != NULL;
	assert_true(warned);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

/* A forked child inherits the agent: its events (another vpid) are left
 * out with a counted warning instead of failing as unknown threads. */
static void test_forked_child_ignored(void **state)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct ecp_test_seq s;
	struct ecp_error err = {0};
	program(&s);
	path_in(dir, "fork");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	path_in(sub, "fork/main/ust/uid/0/64-bit");
	struct ecp_ctf_writer *w;
	assert_int_equal(ecp_ctf_writer_create(sub, ECP_CTF_MAIN, &w), 0);
	for (size_t i = 0; i < s.n; i++) {
		if (s.ev[i].type == ECP_EV_SCHED_SWITCH)
			continue;
		assert_int_equal(ecp_ctf_writer_event(w, &s.ev[i]), 0);
		if (i == 8) {
			struct ecp_event child = s.ev[i];
			child.tid = 999;
			child.type = ECP_EV_LOCK_RELEASE;
			ecp_ctf_writer_set_vpid(w, 999);
			assert_int_equal(ecp_ctf_writer_event(w, &child), 0);
			ecp_ctf_writer_set_vpid(w, 1);
		}
	}
	assert_int_equal(ecp_ctf_writer_close(w), 0);
	struct ecp_model *m = load(dir, false, false, &err);
	if (!m)
		fail_msg("%s", err.msg);
	assert_int_equal(m->n_threads, 2);
	int warned = 0;
	for (size_t i = 0; i < m->n_warnings; i++)
		warned |= strstr(m->warnings[i], "1 events of other processes") != NULL;
	assert_true(warned);
	ecp_model_destroy(m);
	ecp_test_seq_finish(&s);
}

static void test_builder_error_names_trace(void **state)
{
	char dir[PATH_MAX];
	struct ecp_test_seq s;
	ecp_test_seq_init(&s);
	ecp_test_ev(&s, MAIN, 1000, ECP_EV_THREAD_START, 0, 0, 0xa1);
	ecp_test_ev(&s, MAIN, 1100, ECP_EV_COND_WAIT_END, 0x1, 0x2, 0);
	path_in(dir, "badseq");
	assert_int_equal(ecp_test_write_recording(dir, &s, 0), 0);
	expect_error(dir, "event=#1 (cond_wait_end) thread=100: wait end without begin");
	ecp_test_seq_finish(&s);
}

/* ------------------------------------------------------------- symbols */

__attribute__((noinline)) int ecp_test_marker_function(int x);
__attribute__((noinline)) int ecp_test_marker_function(int x)
{
	return x * 3 + 1;
}

static void test_symbols_resolve_self(void **state)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* the executable's lowest and highest mapping, as the statedump's
	 * bin_info would give them */
	FILE *maps = fopen("/proc/self/maps", "r");
	assert_non_null(maps);
	char line[PATH_MAX + 128];
	uint64_t lo = UINT64_MAX, hi = 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long a, b;
		char path[PATH_MAX] = "";
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %4095s", &a, &b, path) == 3 &&
		    !strcmp(path, exe)) {
			if (a < lo)
				lo = a;
			if (b > hi)
				hi = b;
		}
	}
	fclose(maps);
	assert_true(lo < hi);
	struct ecp_symbols *syms = ecp_symbols_create();
	struct ecp_strings *arena = ecp_strings_create();
	assert_int_equal(ecp_symbols_add_object(syms, lo, hi - lo, exe), 0);
	const char *name, *object;
	uint64_t fn = (uint64_t)(uintptr_t)&ecp_test_marker_function;
	assert_int_equal(ecp_symbols_resolve(syms, fn, arena, &name, &object), 0);
	assert_string_equal(name, "ecp_test_marker_function");
	assert_string_equal(object, exe);
	/* inside the object but in no function: object+0xOFFSET */
	assert_int_equal(ecp_symbols_resolve(syms, lo + 1, arena, &name, &object), 0);
	const char *base = strrchr(exe, '/') + 1;
	char expect[PATH_MAX];
	snprintf(expect, sizeof(expect), "%s+0x1", base);
	assert_string_equal(name, expect);
	/* outside every object */
	assert_int_equal(ecp_symbols_resolve(syms, 0x10, arena, &name, &object), 0);
	assert_string_equal(name, "0x10");
	assert_string_equal(object, "");
	ecp_symbols_destroy(syms);
	ecp_strings_destroy(arena);
	assert_int_equal(ecp_test_marker_function(1), 4);
}

static void test_demangle(void **state)
{
	char *s = ecp_demangle("_ZN2ns5Queue4pushERKi");
	assert_non_null(s);
	assert_string_equal(s, "ns::Queue::push(int const&)");
	free(s);
	assert_null(ecp_demangle("plain_c_name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ctf_round_trip),
	    cmocka_unit_test(test_ctf_batched),
	    cmocka_unit_test(test_cache_used_and_invalidated),
	    cmocka_unit_test(test_cache_never_follows_symlink),
	    cmocka_unit_test(test_error_missing_trace_and_meta),
	    cmocka_unit_test(test_error_meta_strict),
	    cmocka_unit_test(test_meta_unknown_key_skipped),
	    cmocka_unit_test(test_cache_flipped_byte_rebuilt),
	    cmocka_unit_test(test_error_streams_damaged),
	    cmocka_unit_test(test_error_missing_and_foreign_metadata),
	    cmocka_unit_test(test_error_other_provider),
	    cmocka_unit_test(test_discarded_refused_or_allowed),
	    cmocka_unit_test(test_discard_named_before_its_consequence),
	    cmocka_unit_test(test_forked_child_ignored),
	    cmocka_unit_test(test_builder_error_names_trace),
	    cmocka_unit_test(test_symbols_resolve_self),
	    cmocka_unit_test(test_demangle),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
