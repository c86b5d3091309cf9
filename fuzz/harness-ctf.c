/* SPDX-License-Identifier: MIT */
/* fuzz-ctf: corrupts a small valid recording and loads it.
 *
 * On first use, four base recordings are written with the test CTF writer
 * (tests/support/ctf-writer.h) into a private temporary directory and read
 * back into memory: their five files are the meta file, the two CTF
 * metadata texts and the two stream files.  Each input then picks a base
 * and a list of mutations, the mutated files are written to a work
 * directory and ecp_trace_load() reads it (no cache), as ecp does: in a
 * child process, so that a crash of babeltrace2 on the input is an error
 * naming the damaged file, which the harness checks.  When the child did
 * not crash, the same input is loaded again in this process (in_process),
 * so that libFuzzer sees the reader's and the builder's coverage and the
 * sanitizers check them here; both loads must agree.  Input:
 *
 *     [0]   bits 0-1: base recording; bit 2: allow_loss;
 *           bit 3: keep_calls
 *     then operations, each [op] [off lo] [off hi] [arg] ...:
 *           file = op % 5 (meta, main metadata, main stream, sched metadata,
 *           sched stream), kind = op / 5 % 5:
 *           0 overwrite arg % 16 + 1 bytes at off with the next input bytes
 *           1 truncate to off (stream files: off * 32, up to 2 MiB)
 *           2 xor the byte at off with arg
 *           3 insert arg % 16 + 1 input bytes at off
 *           4 store a 64-bit little-endian extreme (arg % 8) at off
 *     Offsets into a stream file are taken modulo its first 4 KiB, where
 *     the packet header and the events are; text offsets modulo the size.
 *
 * Nothing is excluded: a packet whose content_size and packet_size differ
 * in sign makes babeltrace2's CTF plugin (2.0, msg-iter.c
 * set_current_packet_content_sizes) abort, which the child contains
 * (tests/fuzz/crashes/ctf/bt2-packet-size-sign; fuzz/README.md). */
#include "fuzz/harness.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "simulator/trace/trace.h"
#include "tests/support/ctf-writer.h"
#include "tests/support/event-seq.h"

#define N_BASES       4
#define N_FILES       5
#define STREAM_WINDOW 4096u

static const char *const rel[N_FILES] = {
    "ecp-record.meta",
    "main/ust/uid/0/64-bit/metadata",
    "main/ust/uid/0/64-bit/stream_0",
    "sched/ust/uid/0/64-bit/metadata",
    "sched/ust/uid/0/64-bit/stream_0",
};

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static struct buf base[N_BASES][N_FILES];
static char top[PATH_MAX]; /* private temporary directory */
static bool ready;

static void remove_tree(const char *dir)
{
	/* Only paths this harness created: the fixed layout above. */
	char path[PATH_MAX + 64];
	static const char *const dirs[] = {"main/ust/uid/0/64-bit",
					   "main/ust/uid/0",
					   "main/ust/uid",
					   "main/ust",
					   "main",
					   "sched/ust/uid/0/64-bit",
					   "sched/ust/uid/0",
					   "sched/ust/uid",
					   "sched/ust",
					   "sched"};
	for (int f = 0; f < N_FILES; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel[f]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/ecp-model.cache", dir);
	unlink(path);
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[d]);
		rmdir(path);
	}
	rmdir(dir);
}

static void cleanup(void)
{
	char path[PATH_MAX + 16];
	for (int k = 0; k < N_BASES; k++) {
		snprintf(path, sizeof(path), "%s/base%d", top, k);
		remove_tree(path);
	}
	snprintf(path, sizeof(path), "%s/work", top);
	remove_tree(path);
	rmdir(top);
}

static void die(const char *what)
{
	perror(what);
	abort(); /* the harness itself cannot run: not a finding */
}

static void read_file(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path);
	b->n = 0;
	b->cap = 1 << 16;
	b->p = malloc(b->cap);
	size_t got;
	while (b->p && (got = fread(b->p + b->n, 1, b->cap - b->n, f)) > 0) {
		b->n += got;
		if (b->n == b->cap) {
			b->cap *= 2;
			b->p = realloc(b->p, b->cap);
		}
	}
	if (!b->p || ferror(f))
		die(path);
	fclose(f);
}

/* The bases: one thread with functions; two threads with a mutex, create
 * and join; a condition variable, a semaphore, a name and context switches;
 * the last again with its function records in batches (ecp:func_batch,
 * issue 35) and clock anchors. */
static void base_seq(int k, struct ecp_test_seq *s)
{
	ecp_test_seq_init(s);
	bool batched = k == 3;
	if (batched)
		k = 2;
	if (k == 2) {
		ecp_test_switch(s, 1, 100, 0, 0);
		ecp_test_switch(s, 1, 5000, 1, 1);
		ecp_test_switch(s, 2, 5000, 0, 0);
		ecp_test_switch(s, 2, 9000, 1, 0);
		ecp_test_switch(s, 1, 9000, 0, 0);
		ecp_test_switch(s, 1, 12000, 1, 0);
	}
	ecp_test_ev(s, 1, 1000, ECP_EV_THREAD_START, 0, 0, 0x1000);
	ecp_test_ev(s, 1, 1100, ECP_EV_FUNC_ENTRY, 0x400010, 0x400000, 0);
	if (k >= 1) {
		ecp_test_ev(s, 1, 1200, ECP_EV_THREAD_CREATE, 1, 0x400020, 1);
		ecp_test_ev(s, 1, 1300, ECP_EV_LOCK_REQUEST, 0xa0, ECP_LOCK_MUTEX, 0);
		ecp_test_ev(s, 1, 1310, ECP_EV_LOCK_ACQUIRED, 0xa0, ECP_LOCK_MUTEX, 0);
		ecp_test_ev(s, 1, 1400, ECP_EV_LOCK_RELEASE, 0xa0, ECP_LOCK_MUTEX, 0);
	}
	if (k == 2) {
		ecp_test_ev(s, 1, 1450, ECP_EV_SEM_INIT, 0xc0, 0, 0);
		ecp_test_ev(s, 1, 1460, ECP_EV_THREAD_NAME, 0, 0, 0)->name = "main";
	}
	ecp_test_ev(s, 1, 1500, ECP_EV_FUNC_ENTRY, 0x400030, 0x400010, 0);
	ecp_test_ev(s, 1, 1800, ECP_EV_FUNC_EXIT, 0x400030, 0, 0);
	if (k >= 1) {
		ecp_test_ev(s, 2, 5000, ECP_EV_THREAD_START, 1, 0x400020, 0x2000);
		ecp_test_ev(s, 2, 5100, ECP_EV_LOCK_REQUEST, 0xa0, ECP_LOCK_MUTEX, 0);
		ecp_test_ev(s, 2, 5110, ECP_EV_LOCK_ACQUIRED, 0xa0, ECP_LOCK_MUTEX, 0);
		if (k == 2) {
			ecp_test_ev(s, 2, 5200, ECP_EV_COND_SIGNAL, 0xb0, 0, 0);
			ecp_test_ev(s, 2, 5300, ECP_EV_SEM_POST, 0xc0, 0, 0);
		}
		ecp_test_ev(s, 2, 5400, ECP_EV_LOCK_RELEASE, 0xa0, ECP_LOCK_MUTEX, 0);
		ecp_test_ev(s, 2, 8000, ECP_EV_THREAD_EXIT, 0x2000, 0, 0);
		if (k == 2) {
			ecp_test_ev(s, 1, 9100, ECP_EV_SEM_WAIT_BEGIN, 0xc0, 0, 0);
			ecp_test_ev(s, 1, 9200, ECP_EV_SEM_WAIT_END, 0xc0, 0, 0);
		}
		ecp_test_ev(s, 1, 9300, ECP_EV_THREAD_JOIN_BEGIN, 0x2000, 0, 0);
		ecp_test_ev(s, 1, 9400, ECP_EV_THREAD_JOIN_END, 0x2000, 1, 0);
	}
	if (batched) {
		/* a few more calls, so that the batch has records of every
		 * kind and encoding (same and new addresses and sites) */
		for (uint64_t i = 0; i < 6; i++) {
			ecp_test_ev(s, 1, 9600 + i * 40, ECP_EV_FUNC_ENTRY,
				    0x400040 + (i & 1) * 0x10, 0x400018, 0);
			ecp_test_ev(s, 1, 9620 + i * 40, ECP_EV_FUNC_EXIT,
				    0x400040 + (i & 1) * 0x10, 0, 0);
		}
		ecp_test_ev(s, 1, 9900, ECP_EV_FUNC_ENTRY, 0x400070, 0x400030, 0);
		ecp_test_ev(s, 1, 9950, ECP_EV_FUNC_UNWOUND, 0x400070, 0, 0);
	}
	ecp_test_ev(s, 1, 11000, ECP_EV_FUNC_EXIT, 0x400010, 0, 0);
	ecp_test_ev(s, 1, 11500, ECP_EV_PROCESS_EXIT, 0, 0, 0);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(top, sizeof(top), "%s/ecp-fuzz-ctf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(top))
		die("mkdtemp");
	atexit(cleanup);
	char dir[PATH_MAX + 16], path[2 * PATH_MAX];
	for (int k = 0; k < N_BASES; k++) {
		struct ecp_test_seq s;
		base_seq(k, &s);
		snprintf(dir, sizeof(dir), "%s/base%d", top, k);
		if ((k == 3 ? ecp_test_write_recording_batched(dir, &s, 3)
			    : ecp_test_write_recording(dir, &s, 3)) < 0)
			die("ecp_test_write_recording");
		ecp_test_seq_finish(&s);
		for (int f = 0; f < N_FILES; f++) {
			snprintf(path, sizeof(path), "%s/%s", dir, rel[f]);
			read_file(path, &base[k][f]);
		}
	}
	/* The work directory gets the same layout (writing a recording creates
	 * the directories); its files are replaced on every input. */
	struct ecp_test_seq empty;
	ecp_test_seq_init(&empty);
	snprintf(dir, sizeof(dir), "%s/work", top);
	if (ecp_test_write_recording(dir, &empty, 0) < 0)
		die("ecp_test_write_recording");
	ready = true;
}

static void ensure(struct buf *b, size_t n)
{
	if (n <= b->cap)
		return;
	while (b->cap < n)
		b->cap = b->cap ? 2 * b->cap : 64;
	b->p = realloc(b->p, b->cap);
	if (!b->p)
		die("realloc");
}

static const uint64_t extremes[8] = {
    0, 1, UINT64_MAX, (uint64_t)1 << 63, UINT32_MAX, (uint64_t)1 << 32, 0x7f, 1 << 20,
};

/* Applies the operations; returns nothing: every byte sequence is some list
 * of operations (a short tail is ignored). */
static void mutate(struct buf *files, const uint8_t *d, size_t size)
{
	size_t i = 0;
	while (i + 4 <= size) {
		uint8_t op = d[i], arg = d[i + 3];
		size_t off = (size_t)d[i + 1] | (size_t)d[i + 2] << 8;
		i += 4;
		int f = op % N_FILES, kind = op / N_FILES % 5;
		bool stream = f == 2 || f == 4;
		struct buf *b = &files[f];
		size_t win = stream && b->n > STREAM_WINDOW ? STREAM_WINDOW : b->n;
		size_t at = win ? off % win : 0;
		size_t len = (size_t)(arg % 16u) + 1;
		switch (kind) {
		case 0: /* overwrite */
			if (len > size - i)
				len = size - i;
			ensure(b, at + len);
			memcpy(b->p + at, d + i, len);
			if (at + len > b->n)
				b->n = at + len;
			i += len;
			break;
		case 1: { /* truncate */
			size_t n = stream ? off * 32u : off % (b->n + 1);
			if (n < b->n)
				b->n = n;
			break;
		}
		case 2: /* flip bits */
			if (at < b->n)
				b->p[at] ^= arg ? arg : 0xff;
			break;
		case 3: /* insert */
			if (len > size - i)
				len = size - i;
			ensure(b, b->n + len);
			memmove(b->p + at + len, b->p + at, b->n - at);
			memcpy(b->p + at, d + i, len);
			b->n += len;
			i += len;
			break;
		default: { /* a 64-bit extreme */
			uint64_t v = extremes[arg % 8u];
			ensure(b, at + 8);
			for (int k = 0; k < 8; k++)
				b->p[at + (size_t)k] = (uint8_t)(v >> (8 * k));
			if (at + 8 > b->n)
				b->n = at + 8;
			break;
		}
		}
	}
}

static void write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f || (b->n && fwrite(b->p, 1, b->n, f) != b->n) || fclose(f) != 0)
		die(path);
}

int ecp_fuzz_ctf_one(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (!ready)
		setup();
	int k = (data[0] & 3) % N_BASES;
	struct buf files[N_FILES];
	for (int f = 0; f < N_FILES; f++) {
		files[f].n = base[k][f].n;
		files[f].cap = base[k][f].n + 64;
		files[f].p = malloc(files[f].cap);
		if (!files[f].p)
			die("malloc");
		memcpy(files[f].p, base[k][f].p, base[k][f].n);
	}
	mutate(files, data + 1, size - 1);
	char path[2 * PATH_MAX];
	for (int f = 0; f < N_FILES; f++) {
		snprintf(path, sizeof(path), "%s/work/%s", top, rel[f]);
		write_file(path, &files[f]);
		free(files[f].p);
	}
	struct ecp_load_options o = ECP_LOAD_OPTIONS_DEFAULT;
	o.use_cache = false;
	o.allow_loss = data[0] & 4;
	o.keep_calls = data[0] & 8;
	snprintf(path, sizeof(path), "%s/work", top);
	struct ecp_error err = {0};
	struct ecp_model *m = NULL;
	int rc = ecp_trace_load(path, &o, &m, &err);
	if (rc == ECP_ERR_DECODER_CRASH) {
		/* The decoder crashed in the child: the message must name a
		 * file of the trace, and decoding in this process would crash. */
		ecp_fuzz_note("load (decoder crashed)", &err);
		if (!strstr(err.msg, "/work/")) {
			fprintf(stderr,
				"fuzz-ctf: a decoder crash not naming the file: %s\n",
				err.msg);
			abort();
		}
		return 0;
	}
	if (rc == 0 && m) {
		ecp_fuzz_note("load", NULL);
		ecp_fuzz_check_model(m, "trace loader (child)");
	} else {
		ecp_fuzz_note("load", &err);
	}
	struct ecp_error err2 = {0};
	struct ecp_model *m2 = NULL;
	o.in_process = true;
	o.skip_damage_probe = true; /* the first load named the file already */
	int rc2 = ecp_trace_load(path, &o, &m2, &err2);
	if ((rc == 0) != (rc2 == 0) ||
	    (m && m2 &&
	     (m->n_threads != m2->n_threads || m->n_segments != m2->n_segments ||
	      m->n_edges != m2->n_edges || m->n_functions != m2->n_functions ||
	      m->n_activities != m2->n_activities || m->n_warnings != m2->n_warnings ||
	      m->info.events != m2->info.events))) {
		fprintf(
		    stderr,
		    "fuzz-ctf: the child's hand-over and the in-process load disagree: "
		    "child %d (%s), in process %d (%s)\n",
		    rc, rc ? err.msg : "ok", rc2, rc2 ? err2.msg : "ok");
		abort();
	}
	if (rc2 == 0 && m2)
		ecp_fuzz_check_model(m2, "trace loader (in process)");
	ecp_model_destroy(m);
	ecp_model_destroy(m2);
	return 0;
}
