/* SPDX-License-Identifier: MIT */
#include "tests/support/ctf-writer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cobs.h"
#include "recorder/agent/func-batch.h"

#define PACKET_SIZE (1u << 20)
#define CTF_MAGIC   0xC1FC1FC1u
/* magic(4) + timestamp_begin, timestamp_end, content_size, packet_size,
 * events_discarded (8 each) */
#define PACKET_HEADER_SIZE (4 + 5 * 8)
/* Event class ids of the batched schemas' extra events. */
#define ID_FUNC_BATCH  (ECP_EV_DELAY_END + 1)
#define ID_SCHED_CLOCK 3
#define MAX_BATCH_TIDS 64
#define COBS_MAX       (ECP_BATCH_BYTES + ECP_BATCH_BYTES / 254 + 2)

/* Payload member names per ecp event, as recorder/EVENTS.md names them. */
static const struct {
	const char *name;
	const char *f[4];
	int string; /* thread_name: a string member `name` */
	int func;   /* function events: payload ts, no cpu_ns */
} main_events[ECP_EV_DELAY_END + 1] = {
    [ECP_EV_FUNC_ENTRY] = {"func_entry", {"addr", "call_site"}, 0, 1},
    [ECP_EV_FUNC_EXIT] = {"func_exit", {"addr"}, 0, 1},
    [ECP_EV_FUNC_FOLDED] = {"func_folded", {"addr", "calls", "total_ns"}, 0, 2},
    [ECP_EV_FUNC_UNWOUND] = {"func_unwound", {"addr"}, 0, 1},
    [ECP_EV_THREAD_CREATE] = {"thread_create", {"create_id", "start_routine", "ok"}},
    [ECP_EV_THREAD_START] = {"thread_start", {"create_id", "start_routine", "handle"}},
    [ECP_EV_THREAD_EXIT] = {"thread_exit", {"handle"}},
    [ECP_EV_THREAD_JOIN_BEGIN] = {"thread_join_begin", {"handle"}},
    [ECP_EV_THREAD_JOIN_END] = {"thread_join_end", {"handle", "ok"}},
    [ECP_EV_THREAD_DETACH] = {"thread_detach", {"handle"}},
    [ECP_EV_THREAD_NAME] = {"thread_name", {NULL}, 1},
    [ECP_EV_PROCESS_EXIT] = {"process_exit", {"status"}},
    [ECP_EV_LOCK_INIT] = {"lock_init", {"obj", "kind", "type"}},
    [ECP_EV_LOCK_REQUEST] = {"lock_request", {"obj", "kind", "mode"}},
    [ECP_EV_LOCK_ACQUIRED] = {"lock_acquired", {"obj", "kind", "mode", "try"}},
    [ECP_EV_LOCK_FAILED] = {"lock_failed", {"obj", "kind", "err"}},
    [ECP_EV_LOCK_RELEASE] = {"lock_release", {"obj", "kind"}},
    [ECP_EV_COND_WAIT_BEGIN] = {"cond_wait_begin", {"cond", "mutex", "timeout_ns"}},
    [ECP_EV_COND_WAIT_END] = {"cond_wait_end", {"cond", "mutex", "err"}},
    [ECP_EV_COND_SIGNAL] = {"cond_signal", {"cond"}},
    [ECP_EV_COND_BROADCAST] = {"cond_broadcast", {"cond"}},
    [ECP_EV_SEM_INIT] = {"sem_init", {"obj", "value"}},
    [ECP_EV_SEM_WAIT_BEGIN] = {"sem_wait_begin", {"obj", "timeout_ns"}},
    [ECP_EV_SEM_WAIT_END] = {"sem_wait_end", {"obj", "err"}},
    [ECP_EV_SEM_POST] = {"sem_post", {"obj"}},
    [ECP_EV_BARRIER_INIT] = {"barrier_init", {"obj", "count"}},
    [ECP_EV_BARRIER_WAIT_BEGIN] = {"barrier_wait_begin", {"obj"}},
    [ECP_EV_BARRIER_WAIT_END] = {"barrier_wait_end", {"obj", "serial"}},
    [ECP_EV_ONCE_BEGIN] = {"once_begin", {"obj"}},
    [ECP_EV_ONCE_END] = {"once_end", {"obj", "ran"}},
    [ECP_EV_DELAY_BEGIN] = {"delay_begin", {"kind", "fd", "timeout_ns"}},
    [ECP_EV_DELAY_END] = {"delay_end", {"kind", "ret"}},
};

struct ecp_ctf_writer {
	enum ecp_ctf_schema schema;
	FILE *stream;
	unsigned char *buf; /* the packet being filled */
	size_t used;
	uint64_t ts_begin, ts_last;
	uint64_t discarded; /* running counter, as LTTng's */
	uint64_t vpid;
	int failed;
	int batched;
	int time_goes_back; /* a damaged stream's: times written as given */
	struct {
		uint32_t tid;
		uint64_t ts;
		struct ecp_batch *b;
	} batch[MAX_BATCH_TIDS];
	char *cobs;
};

static int mkdirs(const char *dir)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", dir);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static void write_metadata(FILE *f, enum ecp_ctf_schema schema, int batched)
{
	fputs("/* CTF 1.8 */\n\n"
	      "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	      "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	      "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	      "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n"
	      "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
	      "\tpacket.header := struct { uint32_t magic; };\n};\n\n"
	      "env {\n\tdomain = \"ust\";\n\ttracer_name = \"ecp-test-writer\";\n};\n\n"
	      "clock {\n\tname = \"monotonic\";\n\tfreq = 1000000000;\n\toffset = "
	      "0;\n};\n\n"
	      "typealias integer { size = 64; align = 8; signed = false; "
	      "map = clock.monotonic.value; } := uint64_clock_t;\n\n"
	      "stream {\n"
	      "\tpacket.context := struct {\n"
	      "\t\tuint64_clock_t timestamp_begin;\n"
	      "\t\tuint64_clock_t timestamp_end;\n"
	      "\t\tuint64_t content_size;\n"
	      "\t\tuint64_t packet_size;\n"
	      "\t\tuint64_t events_discarded;\n"
	      "\t};\n"
	      "\tevent.header := struct { uint32_t id; uint64_clock_t timestamp; };\n",
	      f);
	if (schema != ECP_CTF_SCHED)
		fputs("\tevent.context := struct { int64_t vtid; int64_t vpid; };\n", f);
	fputs("};\n\n", f);
	if (schema == ECP_CTF_MAIN) {
		for (int t = 0; t <= ECP_EV_DELAY_END; t++) {
			fprintf(f,
				"event {\n\tname = \"ecp:%s\";\n\tid = %d;\n\tfields := "
				"struct {\n",
				main_events[t].name, t);
			for (int k = 0; k < 4 && main_events[t].f[k]; k++)
				fprintf(f, "\t\tuint64_t %s;\n", main_events[t].f[k]);
			if (main_events[t].string)
				fputs("\t\tstring name;\n", f);
			if (main_events[t].func == 1)
				fputs("\t\tuint64_t ts;\n", f);
			else if (!main_events[t].func)
				fputs("\t\tuint64_t cpu_ns;\n", f);
			fputs("\t};\n};\n\n", f);
		}
		if (batched)
			fprintf(f,
				"event {\n\tname = \"ecp:func_batch\";\n\tid = "
				"%d;\n\tfields := "
				"struct {\n\t\tuint32_t n;\n\t\tstring "
				"records;\n\t};\n};\n\n",
				ID_FUNC_BATCH);
	} else if (schema == ECP_CTF_SCHED) {
		if (batched)
			fprintf(f,
				"event {\n\tname = \"ecp_sched:clock\";\n\tid = "
				"%d;\n\tfields := "
				"struct {\n\t\tuint64_t mono;\n\t\tuint64_t "
				"tsc;\n\t};\n};\n\n",
				ID_SCHED_CLOCK);
		fputs("event {\n\tname = \"ecp_sched:switch\";\n\tid = 0;\n\tfields := "
		      "struct {\n"
		      "\t\tuint64_t ts;\n\t\tint64_t tid;\n\t\tuint8_t out;\n\t\tuint8_t "
		      "preempt;\n"
		      "\t};\n};\n\n"
		      "event {\n\tname = \"ecp_sched:lost\";\n\tid = 1;\n\tfields := "
		      "struct {\n"
		      "\t\tuint64_t count;\n\t};\n};\n\n"
		      "event {\n\tname = \"ecp_sched:comm\";\n\tid = 2;\n\tfields := "
		      "struct {\n"
		      "\t\tint64_t tid;\n\t\tint64_t pid;\n\t\tstring name;\n\t};\n};\n",
		      f);
	} else {
		fputs("event {\n\tname = \"foo:bar\";\n\tid = 0;\n\tfields := struct {\n"
		      "\t\tuint64_t x;\n\t};\n};\n",
		      f);
	}
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void flush_packet(struct ecp_ctf_writer *w)
{
	if (w->used <= PACKET_HEADER_SIZE && !w->discarded)
		return;
	put32(w->buf, CTF_MAGIC);
	put64(w->buf + 4, w->ts_begin);
	put64(w->buf + 12, w->ts_last);
	put64(w->buf + 20, (uint64_t)w->used * 8);
	put64(w->buf + 28, (uint64_t)PACKET_SIZE * 8);
	put64(w->buf + 36, w->discarded);
	memset(w->buf + w->used, 0, PACKET_SIZE - w->used);
	if (fwrite(w->buf, 1, PACKET_SIZE, w->stream) != PACKET_SIZE)
		w->failed = 1;
	w->used = PACKET_HEADER_SIZE;
	w->ts_begin = w->ts_last;
}

int ecp_ctf_writer_create(const char *dir, enum ecp_ctf_schema schema,
			  struct ecp_ctf_writer **out)
{
	return ecp_ctf_writer_create_ex(dir, schema, 0, out);
}

static int create(const char *dir, enum ecp_ctf_schema schema, int batched,
		  unsigned stream, struct ecp_ctf_writer **out)
{
	char path[PATH_MAX];
	*out = NULL;
	if (mkdirs(dir) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	FILE *m = fopen(path, "w");
	if (!m)
		return -1;
	write_metadata(m, schema, batched);
	if (fclose(m) != 0)
		return -1;
	struct ecp_ctf_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->schema = schema;
	w->batched = batched;
	w->buf = malloc(PACKET_SIZE);
	snprintf(path, sizeof(path), "%s/stream_%u", dir, stream);
	w->stream = fopen(path, "w");
	if (!w->buf || !w->stream) {
		if (w->stream)
			fclose(w->stream);
		free(w->buf);
		free(w);
		return -1;
	}
	w->used = PACKET_HEADER_SIZE;
	w->vpid = 1;
	*out = w;
	return 0;
}

int ecp_ctf_writer_create_ex(const char *dir, enum ecp_ctf_schema schema, int batched,
			     struct ecp_ctf_writer **out)
{
	return create(dir, schema, batched, 0, out);
}

int ecp_ctf_writer_create_stream(const char *dir, enum ecp_ctf_schema schema,
				 unsigned stream, struct ecp_ctf_writer **out)
{
	return create(dir, schema, 0, stream, out);
}

void ecp_ctf_writer_let_time_go_back(struct ecp_ctf_writer *w)
{
	w->time_goes_back = 1;
}

/* Reserves n bytes in the packet, starting a new one when full. */
static unsigned char *reserve(struct ecp_ctf_writer *w, size_t n, uint64_t ts)
{
	if (w->used + n > PACKET_SIZE)
		flush_packet(w);
	if (w->used == PACKET_HEADER_SIZE && w->ts_begin == 0)
		w->ts_begin = ts;
	unsigned char *p = w->buf + w->used;
	w->used += n;
	return p;
}

static unsigned char *header(struct ecp_ctf_writer *w, uint32_t id, uint64_t ts,
			     size_t payload)
{
	if (ts < w->ts_last && !w->time_goes_back)
		ts = w->ts_last; /* the stream's clock never goes back */
	size_t ctx = w->schema == ECP_CTF_SCHED ? 0 : 16;
	unsigned char *p = reserve(w, 12 + ctx + payload, ts);
	w->ts_last = ts;
	put32(p, id);
	put64(p + 4, ts);
	return p + 12;
}

/* Writes out thread slot i's batch (if any). */
static int flush_batch(struct ecp_ctf_writer *w, int i)
{
	struct ecp_batch *b = w->batch[i].b;
	if (!b || !b->used)
		return 0;
	if (!w->cobs && !(w->cobs = malloc(COBS_MAX)))
		return -1;
	size_t len = ecp_cobs_encode(b->buf, b->used, w->cobs);
	unsigned char *p = header(w, ID_FUNC_BATCH, w->batch[i].ts, 4 + len + 1);
	put64(p, w->batch[i].tid);
	put64(p + 8, w->vpid);
	put32(p + 16, b->n);
	memcpy(p + 20, w->cobs, len + 1);
	ecp_batch_reset(b);
	return 0;
}

/* The batch slot of a thread (-1: too many threads, or out of memory). */
static int batch_slot(struct ecp_ctf_writer *w, uint32_t tid, int create)
{
	for (int i = 0; i < MAX_BATCH_TIDS; i++) {
		if (w->batch[i].b && w->batch[i].tid == tid)
			return i;
		if (!w->batch[i].b) {
			if (!create)
				return -1;
			w->batch[i].b = calloc(1, sizeof(*w->batch[i].b));
			w->batch[i].tid = tid;
			return w->batch[i].b ? i : -1;
		}
	}
	return -1;
}

/* Main schema, batched: a function event into its thread's batch, any
 * other event after its thread's batch.  Returns 1 when the event was
 * taken into a batch. */
static int batch_event(struct ecp_ctf_writer *w, const struct ecp_event *ev)
{
	static const unsigned kind[] = {[ECP_EV_FUNC_ENTRY] = ECP_BATCH_ENTRY,
					[ECP_EV_FUNC_EXIT] = ECP_BATCH_EXIT,
					[ECP_EV_FUNC_UNWOUND] = ECP_BATCH_UNWOUND};
	bool func = ev->type == ECP_EV_FUNC_ENTRY || ev->type == ECP_EV_FUNC_EXIT ||
		    ev->type == ECP_EV_FUNC_UNWOUND;
	int i = batch_slot(w, ev->tid, func);
	if (!func)
		return i >= 0 && flush_batch(w, i) < 0 ? -1 : 0;
	if (i < 0)
		return -1;
	w->batch[i].ts = ev->ts;
	if (ecp_batch_put(w->batch[i].b, kind[ev->type], ev->ts, ev->a,
			  ev->type == ECP_EV_FUNC_ENTRY ? ev->b : 0) &&
	    flush_batch(w, i) < 0)
		return -1;
	return 1;
}

int ecp_ctf_writer_clock(struct ecp_ctf_writer *w, uint64_t mono, uint64_t tsc)
{
	if (w->schema != ECP_CTF_SCHED || !w->batched)
		return -1;
	unsigned char *p = header(w, ID_SCHED_CLOCK, 0, 16); /* read by payload */
	put64(p, mono);
	put64(p + 8, tsc);
	return 0;
}

int ecp_ctf_writer_event(struct ecp_ctf_writer *w, const struct ecp_event *ev)
{
	unsigned char *p;
	if (w->schema == ECP_CTF_MAIN && w->batched) {
		int rc = batch_event(w, ev);
		if (rc)
			return rc < 0 ? -1 : 0;
	}
	if (w->schema == ECP_CTF_FOREIGN) {
		p = header(w, 0, ev->ts, 8);
		put64(p, ev->tid);
		put64(p + 8, 1);
		put64(p + 16, ev->a);
		return 0;
	}
	if (w->schema == ECP_CTF_SCHED) {
		if (ev->type == ECP_EV_SCHED_SWITCH) {
			p = header(w, 0, ev->ts, 18);
			put64(p, ev->ts);
			put64(p + 8, ev->tid);
			p[16] = (unsigned char)ev->a;
			p[17] = (unsigned char)ev->b;
		} else if (ev->type == ECP_EV_SCHED_LOST) {
			p = header(w, 1, ev->ts, 8);
			put64(p, ev->a);
		} else {
			return -1;
		}
		return 0;
	}
	if (ev->type > ECP_EV_DELAY_END)
		return -1;
	const uint64_t vals[4] = {ev->a, ev->b, ev->c, (ev->flags & ECP_EVF_TRY) ? 1 : 0};
	int nf = 0;
	while (nf < 4 && main_events[ev->type].f[nf])
		nf++;
	const char *name = ev->name ? ev->name : "";
	size_t slen = main_events[ev->type].string ? strlen(name) + 1 : 0;
	size_t payload =
	    (size_t)nf * 8 + slen + (main_events[ev->type].func == 2 ? 0 : 8);
	p = header(w, ev->type, ev->ts, payload);
	put64(p, ev->tid);
	put64(p + 8, w->vpid);
	p += 16;
	for (int k = 0; k < nf; k++, p += 8)
		put64(p, vals[k]);
	if (slen) {
		memcpy(p, name, slen);
		p += slen;
	}
	if (main_events[ev->type].func == 1)
		put64(p, ev->ts);
	else if (!main_events[ev->type].func)
		put64(p, ev->cpu_ns);
	return 0;
}

void ecp_ctf_writer_set_vpid(struct ecp_ctf_writer *w, uint64_t vpid)
{
	w->vpid = vpid;
}

int ecp_ctf_writer_comm(struct ecp_ctf_writer *w, uint64_t ts, uint32_t tid,
			const char *name)
{
	size_t slen = strlen(name) + 1;
	unsigned char *p = header(w, 2, ts, 16 + slen);
	put64(p, tid);
	put64(p + 8, 1);
	memcpy(p + 16, name, slen);
	return 0;
}

int ecp_ctf_writer_discard(struct ecp_ctf_writer *w, uint64_t n)
{
	flush_packet(w);
	w->discarded += n;
	return 0;
}

int ecp_ctf_writer_close(struct ecp_ctf_writer *w)
{
	if (!w)
		return 0;
	for (int i = 0; i < MAX_BATCH_TIDS; i++) {
		if (flush_batch(w, i) < 0)
			w->failed = 1;
		free(w->batch[i].b);
	}
	free(w->cobs);
	flush_packet(w);
	int rc = w->failed ? -1 : 0;
	if (fclose(w->stream) != 0)
		rc = -1;
	free(w->buf);
	free(w);
	return rc;
}

static int write_recording(const char *dir, const struct ecp_test_seq *seq,
			   uint64_t event_cost_ns, int batched)
{
	char path[PATH_MAX];
	if (mkdirs(dir) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/ecp-record.meta", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f,
		"format=1\nversion=test\ncommand=synthetic program\ncpu=0\n"
		"clock=perf-switch\nevent_cost_ns=%llu\nexit_status=0\nwall_ns=0\n"
		"functions=1\n",
		(unsigned long long)event_cost_ns);
	if (fclose(f) != 0)
		return -1;
	struct ecp_ctf_writer *sched = NULL, *main_w = NULL;
	snprintf(path, sizeof(path), "%s/sched/ust/uid/0/64-bit", dir);
	if (ecp_ctf_writer_create_ex(path, ECP_CTF_SCHED, batched, &sched) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/main/ust/uid/0/64-bit", dir);
	if (ecp_ctf_writer_create_ex(path, ECP_CTF_MAIN, batched, &main_w) < 0) {
		ecp_ctf_writer_close(sched);
		return -1;
	}
	int rc = 0;
	/* anchors that make the TSC the trace clock */
	if (batched && (ecp_ctf_writer_clock(sched, 0, 0) < 0 ||
			ecp_ctf_writer_clock(sched, 1ull << 50, 1ull << 50) < 0))
		rc = -1;
	for (size_t i = 0; i < seq->n && !rc; i++) {
		const struct ecp_event *ev = &seq->ev[i];
		bool s = ev->type == ECP_EV_SCHED_SWITCH || ev->type == ECP_EV_SCHED_LOST;
		rc = ecp_ctf_writer_event(s ? sched : main_w, ev);
	}
	if (ecp_ctf_writer_close(sched) < 0)
		rc = -1;
	if (ecp_ctf_writer_close(main_w) < 0)
		rc = -1;
	return rc;
}

int ecp_test_write_recording(const char *dir, const struct ecp_test_seq *seq,
			     uint64_t event_cost_ns)
{
	return write_recording(dir, seq, event_cost_ns, 0);
}

int ecp_test_write_recording_batched(const char *dir, const struct ecp_test_seq *seq,
				     uint64_t event_cost_ns)
{
	return write_recording(dir, seq, event_cost_ns, 1);
}
