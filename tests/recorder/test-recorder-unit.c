/* SPDX-License-Identifier: MIT */
/* Unit tests of the driver's parts that need no session daemon: the
 * metadata file, the perf ring-buffer parser (on a hand-made buffer,
 * including records wrapping around its end), the agent lookup, and
 * opening the perf event for real. */
#include <errno.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorder/agent-path.h"
#include "recorder/clock-anchor.h"
#include "recorder/cpu-idle.h"
#include "recorder/meta.h"
#include "recorder/perf-sample.h"
#include "recorder/perf-switch.h"
#include "recorder/proc-stat.h"
#include "recorder/agent/tsc.h"
#include "simulator/ctf/event.h"

/* ---- metadata ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_meta_write(void **state)
{
	char dir[] = "/tmp/ecp-meta-XXXXXX", path[64];
	char *argv[] = {"./app", "two\nlines", NULL};
	char *inc[] = {"parse*", "scan", NULL};
	struct ecp_record_meta m = {.argv = argv,
				    .cpu = 1,
				    .clock = "perf-switch",
				    .event_cost_ns = 140,
				    .signal = 11,
				    .wall_ns = 12345,
				    .functions = true,
				    .depth = 3,
				    .include = inc,
				    .min_duration_ns = 1000};
	struct ecp_error err = {0};
	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ecp_record_meta_write(dir, &m, &err), ECP_OK);
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_META_FILE);
	const char *s = slurp(path);
	assert_non_null(strstr(s, "format=1\n"));
	/* a newline inside an argument must not start a new key */
	assert_non_null(strstr(s, "command=./app two lines\n"));
	assert_non_null(strstr(s, "cpu=1\n"));
	assert_non_null(strstr(s, "clock=perf-switch\n"));
	assert_non_null(strstr(s, "event_cost_ns=140\n"));
	assert_non_null(strstr(s, "exit_status=signal:11\n"));
	assert_non_null(strstr(s, "include=parse*,scan\n"));
	assert_non_null(strstr(s, "exclude=\n"));
	assert_non_null(strstr(s, "depth=3\n"));
	assert_non_null(strstr(s, "min_duration_ns=1000\n"));
	unlink(path);
	rmdir(dir);
}

static void test_meta_unwritable(void **state)
{
	struct ecp_record_meta m = {.clock = "perf-switch"};
	struct ecp_error err = {0};
	(void)state;
	assert_int_equal(ecp_record_meta_write("/nonexistent/dir", &m, &err), ECP_ERR_IO);
	assert_non_null(strstr(err.msg, "/nonexistent/dir"));
}

/* Every key of the meta file's catalogue (common/record-meta.h) has its
 * row in recorder/EVENTS.md, and the writer writes each (cpus and cpu_list
 * only for --cpus, written here). */
static void test_meta_keys_documented(void **state)
{
	(void)state;
	FILE *f = fopen(ECP_RECORDER_SRC "/EVENTS.md", "r");
	assert_non_null(f);
	static char doc[1 << 17];
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = 0;
	char dir[] = "/tmp/ecp-meta-keys-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *argv[] = {"prog", NULL};
	/* steal and other processes' time are written only where they were
	 * read */
	struct ecp_record_meta m = {.argv = argv,
				    .clock = "perf-switch",
				    .n_cpus = 2,
				    .cpu_list = "0-1",
				    .steal_known = true,
				    .other_cpu_known = true};
	struct ecp_error err = {0};
	assert_int_equal(ecp_record_meta_write(dir, &m, &err), ECP_OK);
	char path[300], written[8192];
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_META_FILE);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(written, 1, sizeof(written) - 1, f);
	fclose(f);
	written[n] = 0;
	unlink(path);
	rmdir(dir);
	for (int k = 0; k < ECP_META_N_KEYS; k++) {
		char row[80], line[80];
		snprintf(row, sizeof(row), "| `%s` |", ecp_meta_key_name(k));
		snprintf(line, sizeof(line), "\n%s=", ecp_meta_key_name(k));
		if (!strstr(doc, row))
			fail_msg("key %s has no row in recorder/EVENTS.md",
				 ecp_meta_key_name(k));
		if (k != ECP_META_FORMAT && !strstr(written, line))
			fail_msg("key %s is not written", ecp_meta_key_name(k));
	}
}

/* A whole source file (up to 128 KiB), three at a time. */
static char *read_whole(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[3][1 << 17];
	static int next;
	char *b = buf[next++ % 3];
	size_t n = fread(b, 1, sizeof(buf[0]) - 1, f);
	fclose(f);
	b[n] = 0;
	return b;
}

/* Every event of the reader's catalogue (simulator/ctf/event-catalog.h) is
 * defined by its provider's tracepoint header and documented in
 * recorder/EVENTS.md: the three cannot drift apart. */
static void test_events_catalogued(void **state)
{
	(void)state;
	const char *ecp_tp = read_whole(ECP_RECORDER_SRC "/agent/ecp-tp.h");
	const char *sched_tp = read_whole(ECP_RECORDER_SRC "/ecp-sched-tp.h");
	const char *doc = read_whole(ECP_RECORDER_SRC "/EVENTS.md");
	static const struct {
		const char *provider, *name;
	} rows[] = {
#define ECP_EVENT_ROW(id, provider, name, a, b, c) {#provider, name},
	    ECP_EVENT_CATALOG(ECP_EVENT_ROW)
#undef ECP_EVENT_ROW
	};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	for (size_t i = 0; i < n; i++) {
		char def[96], row[64];
		snprintf(def, sizeof(def), "LTTNG_UST_TRACEPOINT_EVENT(%s, %s,",
			 rows[i].provider, rows[i].name);
		snprintf(row, sizeof(row), "| `%s` |", rows[i].name);
		bool sched = !strcmp(rows[i].provider, "ecp_sched");
		if (!strstr(sched ? sched_tp : ecp_tp, def))
			fail_msg("%s:%s is not defined in its tracepoint header",
				 rows[i].provider, rows[i].name);
		if (!strstr(doc, row))
			fail_msg("%s:%s has no row in recorder/EVENTS.md",
				 rows[i].provider, rows[i].name);
	}
	assert_int_equal(n, ECP_EV_COUNT);
}

/* ---- perf ring buffer ---- */

struct seen {
	int switches, outs, preempts, lost, comms, forks, exits, child_forks;
	uint64_t last_ts;
	char comm[32];
};
static struct seen seen;

static void on_switch(uint64_t ts, int64_t tid, int out, int preempt)
{
	(void)tid;
	seen.switches++;
	seen.outs += out;
	seen.preempts += preempt;
	assert_true(ts >= seen.last_ts);
	seen.last_ts = ts;
}
static void on_lost(uint64_t n)
{
	seen.lost += (int)n;
}
static void on_comm(int64_t tid, int64_t pid, const char *name)
{
	(void)tid;
	(void)pid;
	seen.comms++;
	snprintf(seen.comm, sizeof(seen.comm), "%s", name);
}
static void on_task(int64_t tid, int64_t ppid, int64_t ptid, int exit, uint64_t ts,
		    int64_t pid)
{
	(void)ppid;
	(void)ptid;
	assert_true(ts > 0);
	if (exit)
		seen.exits++;
	else
		seen.forks++;
	if (pid != 100 && !exit && tid == pid)
		seen.child_forks++;
}

#define PAGE 4096
#define DATA (8 * PAGE)

/* A fake mapping: the control page, then DATA bytes of records written from
 * byte offset `start` (so that they can wrap). */
struct fake {
	unsigned char *map;
	uint64_t head;
};

static void put(struct fake *f, const void *rec, size_t size)
{
	for (size_t i = 0; i < size; i++)
		f->map[PAGE + ((f->head + i) % DATA)] = ((const unsigned char *)rec)[i];
	f->head += size;
}

struct sid {
	uint32_t pid, tid;
	uint64_t time;
};

static void put_switch(struct fake *f, uint32_t pid, uint32_t tid, uint64_t t,
		       uint16_t misc)
{
	struct {
		struct perf_event_header h;
		struct sid id;
	} r = {{PERF_RECORD_SWITCH, misc, sizeof(r)}, {pid, tid, t}};
	put(f, &r, sizeof(r));
}

/* An anchor's TSC lies between TSC reads before and after it, its clock
 * between CLOCK_MONOTONIC reads before and after it; a later anchor is
 * later in both. */
static void test_clock_anchor(void **state)
{
	struct timespec a, b, pause = {0, 1000000};
	uint64_t m1, t1, m2, t2, before, after, ma, mb;
	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	before = ecp_tsc();
	ecp_clock_anchor_read(&m1, &t1);
	after = ecp_tsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	ma = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
	mb = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
	assert_true(before <= t1 && t1 <= after);
	assert_true(ma <= m1 && m1 <= mb);
	nanosleep(&pause, NULL);
	ecp_clock_anchor_read(&m2, &t2);
	assert_true(m2 >= m1 + 1000000 && t2 > t1);
}

static void test_perf_drain(void **state)
{
	struct ecp_sched_emitter em = {NULL, on_switch, on_lost, on_comm, on_task,
				       NULL, NULL,      NULL,    NULL};
	struct ecp_perf_switch ps;
	struct fake f;
	struct perf_event_mmap_page *meta;
	(void)state;

	memset(&seen, 0, sizeof(seen));
	f.map = calloc(1, PAGE + DATA);
	assert_non_null(f.map);
	meta = (void *)f.map;
	meta->data_offset = PAGE;
	/* start near the end so that records wrap around */
	f.head = DATA - 16; /* perf keeps records 8-byte aligned */
	meta->data_tail = f.head;
	memset(&ps, 0, sizeof(ps));
	ps.n_rings = 1;
	ps.rings[0].fd = -1;
	ps.pid = 100;
	ps.rings[0].base = f.map;
	ps.rings[0].data_size = DATA;
	ps.emit = &em;

	put_switch(&f, 100, 101, 10, 0);
	put_switch(&f, 100, 101, 20,
		   PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_switch(&f, 200, 201, 25, PERF_RECORD_MISC_SWITCH_OUT); /* another process */
	put_switch(&f, 100, 102, 30, 0);
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		struct sid id;
	} comm = {
	    {PERF_RECORD_COMM, 0, sizeof(comm)}, 100, 102, "worker-1", {100, 102, 30}};
	put(&f, &comm, sizeof(comm));
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct sid id;
	} fork =
	    {{PERF_RECORD_FORK, 0, sizeof(fork)}, 100, 100, 103, 101, 40, {100, 103, 40}},
	  ex = {
	      {PERF_RECORD_EXIT, 0, sizeof(ex)}, 100, 100, 103, 101, 50, {100, 103, 50}};
	put(&f, &fork, sizeof(fork));
	put(&f, &ex, sizeof(ex));
	/* thread 101 forks process 300 (followed: a child), whose switch is
	 * kept; process 200 above was no descendant and is not */
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct sid id;
	} child = {
	    {PERF_RECORD_FORK, 0, sizeof(child)}, 300, 100, 300, 101, 45, {300, 300, 45}};
	put(&f, &child, sizeof(child));
	put_switch(&f, 300, 300, 46, 0);
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		struct sid sid;
	} lost = {{PERF_RECORD_LOST, 0, sizeof(lost)}, 1, 7, {0, 0, 60}};
	put(&f, &lost, sizeof(lost));
	meta->data_head = f.head;

	ecp_perf_switch_drain(&ps);
	assert_int_equal(seen.switches, 4);
	assert_int_equal(seen.child_forks, 1);
	assert_int_equal(seen.outs, 1);
	assert_int_equal(seen.preempts, 1);
	assert_int_equal(seen.comms, 1);
	assert_string_equal(seen.comm, "worker-1");
	assert_int_equal(seen.forks, 2);
	assert_int_equal(seen.exits, 1);
	assert_int_equal(seen.lost, 7);
	assert_int_equal(ps.switches, 4);
	assert_int_equal(ps.lost, 7);
	assert_int_equal(meta->data_tail, f.head);
	/* a second drain with nothing new writes nothing */
	ecp_perf_switch_drain(&ps);
	assert_int_equal(seen.switches, 4);
	ps.rings[0].base = NULL;
	assert_true(ecp_perf_switch_follows(&ps, 300));
	assert_false(ecp_perf_switch_follows(&ps, 200));
	ecp_perf_switch_free(&ps);
	free(f.map);
}

/* Two CPUs' rings (`record --cpus`): their records are handed merged in
 * time order -- a thread that moved between CPUs keeps its switches in
 * order, and a process made on one CPU is followed when it runs first on
 * the other (ring by ring, its switch would come before its fork and be
 * dropped as no descendant's). */
static void test_perf_drain_merged(void **state)
{
	struct ecp_sched_emitter em = {NULL, on_switch, on_lost, on_comm, on_task,
				       NULL, NULL,      NULL,    NULL};
	struct ecp_perf_switch ps;
	struct fake f[2];
	(void)state;

	memset(&seen, 0, sizeof(seen));
	memset(&ps, 0, sizeof(ps));
	ps.n_rings = 2;
	ps.pid = 100;
	ps.emit = &em;
	for (int i = 0; i < 2; i++) {
		f[i].map = calloc(1, PAGE + DATA);
		assert_non_null(f[i].map);
		((struct perf_event_mmap_page *)(void *)f[i].map)->data_offset = PAGE;
		f[i].head = 0;
		ps.rings[i] =
		    (struct ecp_perf_ring){.fd = -1, .base = f[i].map, .data_size = DATA};
	}
	/* CPU 0: thread 101 runs, is preempted, later the child process */
	put_switch(&f[0], 100, 101, 10, 0);
	put_switch(&f[0], 100, 101, 20,
		   PERF_RECORD_MISC_SWITCH_OUT | PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	put_switch(&f[0], 300, 300, 46, 0);
	/* CPU 1: thread 101 goes on there, forks process 300, goes off */
	put_switch(&f[1], 100, 101, 25, 0);
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct sid id;
	} child = {
	    {PERF_RECORD_FORK, 0, sizeof(child)}, 300, 100, 300, 101, 45, {100, 101, 45}};
	put(&f[1], &child, sizeof(child));
	put_switch(&f[1], 100, 101, 50, PERF_RECORD_MISC_SWITCH_OUT);
	for (int i = 0; i < 2; i++)
		((struct perf_event_mmap_page *)(void *)f[i].map)->data_head = f[i].head;

	ecp_perf_switch_drain(&ps); /* on_switch asserts the times never go back */
	assert_int_equal(seen.switches, 5);
	assert_int_equal(seen.child_forks, 1);
	assert_int_equal(seen.last_ts, 50);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		    ((struct perf_event_mmap_page *)(void *)f[i].map)->data_tail,
		    f[i].head);
		ps.rings[i].base = NULL;
		free(f[i].map);
	}
	ecp_perf_switch_free(&ps);
}

static void put_throttle(struct fake *f, uint32_t type, uint64_t stream, uint64_t t)
{
	struct {
		struct perf_event_header h;
		uint64_t time, id, stream_id;
		struct sid sid;
	} r = {{type, 0, sizeof(r)}, t, 1, stream, {100, 101, t}};
	put(f, &r, sizeof(r));
}

/* The kernel's stops of the sampler (recorder/perf-throttle.h), through
 * the sample ring's own dispatch: each THROTTLE counts; an UNTHROTTLE and a
 * record too short to be the kernel's count nothing. */
static void test_perf_sample_throttle(void **state)
{
	struct ecp_sched_emitter em = {NULL, on_switch, on_lost, on_comm, on_task,
				       NULL, NULL,      NULL,    NULL};
	struct ecp_perf_sample s;
	struct fake f;
	(void)state;

	f.map = calloc(1, PAGE + DATA);
	assert_non_null(f.map);
	((struct perf_event_mmap_page *)(void *)f.map)->data_offset = PAGE;
	f.head = 0;
	memset(&s, 0, sizeof(s));
	s.n_rings = 1;
	s.rings[0] = (struct ecp_perf_ring){.fd = -1, .base = f.map, .data_size = DATA};
	s.pid = 100;
	s.emit = &em;
	put_throttle(&f, PERF_RECORD_THROTTLE, 7, 100);
	put_throttle(&f, PERF_RECORD_THROTTLE, 8, 150);
	put_throttle(&f, PERF_RECORD_UNTHROTTLE, 7, 400);
	put_throttle(&f, PERF_RECORD_THROTTLE, 7, 500);
	put_throttle(&f, PERF_RECORD_UNTHROTTLE, 7, 900);
	struct perf_event_header bare = {PERF_RECORD_THROTTLE, 0, sizeof(bare)};
	put(&f, &bare, sizeof(bare));
	((struct perf_event_mmap_page *)(void *)f.map)->data_head = f.head;

	ecp_perf_sample_drain(&s);
	assert_int_equal(s.throttled, 3);
	assert_int_equal(s.samples, 0);
	s.rings[0].base = NULL;
	ecp_perf_sample_free(&s);
	free(f.map);
}

static void test_perf_open(void **state)
{
	(void)state;
	int fd = ecp_perf_switch_open(0);
	if (fd == -EACCES || fd == -EPERM || fd == -ENOSYS || fd == -ENOENT)
		skip(); /* perf refused here: the recorder falls back */
	assert_true(fd >= 0);
	close(fd);
}

/* ---- agent lookup ---- */

static void test_agent_path_missing(void **state)
{
	char buf[4096];
	struct ecp_error err = {0};
	(void)state;
	assert_int_not_equal(
	    ecp_agent_path_find("libno-such-agent.so", buf, sizeof(buf), &err), ECP_OK);
	assert_non_null(strstr(err.msg, "libno-such-agent.so"));
	assert_non_null(strstr(err.msg, "tried"));
}

/* /proc/stat's columns: a CPU that is not there is no sum; the idle of the
 * CPU this runs on grows by no more than the time between the readings. */
static void test_proc_stat_sum(void **state)
{
	(void)state;
	int cpu = sched_getcpu(), none = 1 << 20;
	uint64_t a, b;
	assert_true(cpu >= 0);
	/* idle and iowait together: a CPU's idle alone may step back when
	 * time moves between the two (NO_HZ) */
	unsigned idle = (1u << ECP_PROC_STAT_IDLE) | (1u << ECP_PROC_STAT_IOWAIT);
	assert_false(ecp_proc_stat_sum(&none, 1, idle, &a));
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(ecp_proc_stat_sum(&cpu, 1, idle, &a));
	usleep(50000);
	assert_true(ecp_proc_stat_sum(&cpu, 1, idle, &b));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long hz = sysconf(_SC_CLK_TCK);
	assert_true(hz > 0);
	double elapsed =
	    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* whole ticks at either end: one more than the time between */
	assert_true(b >= a && (double)(b - a) <= elapsed * (double)hz + 1.0);
}

/* The idle readings bracket a sleep of this thread on its own CPU: the
 * window holds the sleep, the idle time is no more than the window, and
 * what is left for others is no more than the window less this thread's
 * time (none of it is the program's here: 0 is passed). */
static void test_cpu_idle_window(void **state)
{
	(void)state;
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	int cpu = sched_getcpu();
	struct ecp_cpu_idle s;
	ecp_cpu_idle_start(&s, &cpu, 1);
	usleep(50000);
	ecp_cpu_idle_end(&s, &cpu, 1);
	assert_true(s.known);
	assert_true(s.window_ns >= 50000000u);
	assert_true(s.ns <= s.window_ns + s.resolution_ns * 2 + 20000000u);
	assert_true(ecp_cpu_idle_others(&s, 1, 0, 0) <= s.window_ns);
	assert_int_equal(ecp_cpu_idle_others(&s, 1, s.window_ns, 0), 0);
	/* the thread is back where it was allowed */
	cpu_set_t after;
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&set, &after));
	struct ecp_cpu_idle unknown = {.known = false, .window_ns = 1000};
	assert_int_equal(ecp_cpu_idle_others(&unknown, 1, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_meta_write),
	    cmocka_unit_test(test_proc_stat_sum),
	    cmocka_unit_test(test_cpu_idle_window),
	    cmocka_unit_test(test_meta_unwritable),
	    cmocka_unit_test(test_meta_keys_documented),
	    cmocka_unit_test(test_events_catalogued),
	    cmocka_unit_test(test_perf_drain),
	    cmocka_unit_test(test_perf_drain_merged),
	    cmocka_unit_test(test_perf_sample_throttle),
	    cmocka_unit_test(test_clock_anchor),
	    cmocka_unit_test(test_perf_open),
	    cmocka_unit_test(test_agent_path_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
