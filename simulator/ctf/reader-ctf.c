/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/reader-ctf.h"

#include "simulator/ctf/merge-sink.h"

#include <babeltrace2/babeltrace.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cobs.h"
#include "recorder/agent/func-batch.h"
#include "common/vec.h"
#include "common/hmap.h"

/* What an event class is, decided once per class from its name. */
enum class_kind {
	K_ECP,
	K_FUNC_BATCH,
	K_SCHED_SWITCH,
	K_SCHED_LOST,
	K_SCHED_COMM,
	K_SCHED_TASK,
	K_SCHED_CLOCK,
	K_SCHED_SAMPLE,
	K_SCHED_MMAP,
	K_SCHED_SAMPLE_LOST,
	K_SCHED_OTHER,
	K_BIN_INFO,
	K_DLOPEN,
	K_IGNORED_LTTNG,
	K_UST_REGISTERED,
	K_FOREIGN
};

#define NO_FIELD UINT32_MAX

/* Per event class: the payload members read, by index (looking members up
 * by name for every event would dominate the decoding time). */
struct class_info {
	enum class_kind kind;
	enum ecp_event_type type;
	uint32_t f[3]; /* members giving a, b, c */
	uint32_t ts;   /* payload `ts` (function and switch events) */
	uint32_t tsc;  /* payload `tsc` (function events, clock anchors) */
	bool c_ticks;  /* `c` is a TSC duration (func_folded's total_tsc) */
	uint32_t mono; /* clock anchors */
	uint32_t cpu_ns;
	uint32_t tid;        /* payload tid (sched events) */
	uint32_t name;       /* string member */
	uint32_t try_;       /* lock_acquired `try` */
	uint32_t flags;      /* omp_task_create `flags` */
	uint32_t records, n; /* func_batch */
	uint32_t vtid;       /* common context members */
	uint32_t vpid;
	uint32_t baddr, memsz, path;
	uint32_t regs, chain, stack;      /* samples */
	bool stack_zr;                    /* stack is `stack_zr`: zero runs */
	uint32_t start, len, pgoff, prot; /* mappings */
	uint64_t freq;                    /* default clock frequency (Hz) */
	char event_name[128];
};

struct ecp_reader {
	const char *label;
	const struct ecp_ctf_callbacks *cb;
	void *user;
	struct ecp_ctf_stats *stats;
	struct ecp_error *err;
	uint64_t vpid; /* the recorded process, from its first event */
	bool have_vpid;
	struct ecp_hmap classes; /* class pointer -> index in infos */
	struct ecp_vec infos;    /* struct class_info */
	/* classes met last, by bits of their address: without them, a hash
	 * lookup for every event (the reader's CPU on a sync-heavy trace 3%
	 * more: 1.677 against 1.632 s, medians of 11 runs in turn) */
	struct {
		const bt_event_class *ec;
		uint32_t info;
	} recent[16];
	int failed;
	/* a sample's arrays, decoded here (allocated at the first sample) */
	uint64_t *regs, *chain, *stack;
	struct ecp_cobs_cursor stack_cobs;
	unsigned char *batch; /* a func_batch's bytes (allocated at the first) */
};

/* The most bytes a func_batch may decode to (the agent writes at most
 * ECP_BATCH_BYTES): a bound on what a damaged trace can make us read. */
#define BATCH_DECODED_MAX (64u << 10)

/* Payload member names of each event, in event.h's a, b, c order: the
 * catalogue (event-catalog.h).  The provider `ecp`'s are looked up here;
 * `ecp_sched`'s are read by name below (their payload has its own ts). */
static const struct {
	const char *provider, *name;
	enum ecp_event_type type;
	const char *f[3];
} ecp_events[] = {
#define ECP_EVENT_ROW(id, provider, name, a, b, c)                                       \
	{#provider, name, ECP_EV_##id, {a, b, c}},
    ECP_EVENT_CATALOG(ECP_EVENT_ROW)
#undef ECP_EVENT_ROW
};

/* A member's index carries its integer kind in its top bits, read once
 * per event class: an event's fields are then read without asking each
 * one its class (3 library calls a field, not 4: issue 35's model build).
 * MEMBER_AT() is the index itself. */
#define MEMBER_UNSIGNED (1u << 30)
#define MEMBER_SIGNED   (2u << 30)
#define MEMBER_AT(idx)  ((idx) & ~(3u << 30))

static uint32_t member_index(const bt_field_class *fc, const char *name)
{
	if (!fc || !name || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NO_FIELD;
	uint64_t n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n && i < MEMBER_UNSIGNED; i++) {
		const bt_field_class_structure_member *m =
		    bt_field_class_structure_borrow_member_by_index_const(fc, i);
		if (strcmp(bt_field_class_structure_member_get_name(m), name))
			continue;
		bt_field_class_type t = bt_field_class_get_type(
		    bt_field_class_structure_member_borrow_field_class_const(m));
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
			return (uint32_t)i | MEMBER_SIGNED;
		if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
			return (uint32_t)i | MEMBER_UNSIGNED;
		return (uint32_t)i;
	}
	return NO_FIELD;
}

/* Integer of any signedness (signed values sign-extend, so that errno and
 * fd values compare as int64_t); enumerations are integers too. */
static uint64_t field_u64(const bt_field *f)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (uint64_t)bt_field_integer_signed_get_value(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return bt_field_integer_unsigned_get_value(f);
	return 0;
}

/* The integer member at idx (member_index()), 0 when it is none. */
static uint64_t member_u64(const bt_field *payload, uint32_t idx)
{
	if (idx == NO_FIELD || !payload)
		return 0;
	const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(
	    payload, MEMBER_AT(idx));
	if (idx & MEMBER_SIGNED)
		return (uint64_t)bt_field_integer_signed_get_value(f);
	if (idx & MEMBER_UNSIGNED)
		return bt_field_integer_unsigned_get_value(f);
	return 0;
}

static const char *member_str(const bt_field *payload, uint32_t idx)
{
	if (idx == NO_FIELD || !payload)
		return NULL;
	const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(
	    payload, MEMBER_AT(idx));
	if (bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return NULL;
	return bt_field_string_get_value(f);
}

/* Decodes an array of integers into out[0..max); returns its length, or
 * -1 when the member is not an array of integers or is longer than max. */
static int64_t member_array(const bt_field *payload, uint32_t idx, uint64_t *out,
			    uint32_t max)
{
	if (idx == NO_FIELD || !payload)
		return 0;
	const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(
	    payload, MEMBER_AT(idx));
	if (!bt_field_class_type_is(bt_field_get_class_type(f),
				    BT_FIELD_CLASS_TYPE_ARRAY))
		return -1;
	uint64_t n = bt_field_array_get_length(f);
	if (n > max)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *e =
		    bt_field_array_borrow_element_field_by_index_const(f, i);
		bt_field_class_type t = bt_field_get_class_type(e);
		if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
			return -1;
		out[i] = field_u64(e);
	}
	return (int64_t)n;
}

/* A sample's stack, into out[0..max) words: an array of integers before
 * issue 35, decoded here; since then a string in COBS, or in COBS with
 * zero runs when zero_runs (common/cobs.h), which `lazy` is set to decode
 * into out as far as the unwinder reads (a few hundred bytes of up to 64
 * KiB).  Returns its length in words (for a string, the most it can hold:
 * 0 when it holds nothing), or -1 when it is neither or too long. */
static int64_t member_stack(const bt_field *payload, uint32_t idx, bool zero_runs,
			    uint64_t *out, uint32_t max, struct ecp_cobs_cursor *lazy,
			    bool *is_lazy)
{
	*is_lazy = false;
	if (idx == NO_FIELD || !payload)
		return 0;
	const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(
	    payload, MEMBER_AT(idx));
	if (bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING)
		return member_array(payload, idx, out, max);
	uint64_t len = bt_field_string_get_length(f);
	size_t cap = (size_t)max * sizeof(*out);
	uint64_t words;
	if (zero_runs) {
		/* a run of zeros is a byte: the length bounds nothing */
		words = len ? max : 0;
		ecp_cobs_zr_cursor_init(lazy, bt_field_string_get_value(f), len, out,
					cap);
	} else {
		if (len >= ecp_cobs_max(cap))
			return -1;
		/* an encoding is at least one byte longer than what it encodes */
		words = len ? (len - 1) / sizeof(*out) : 0;
		if (words > max)
			words = max;
		ecp_cobs_cursor_init(lazy, bt_field_string_get_value(f), len, out, cap);
	}
	*is_lazy = true;
	return (int64_t)words;
}

/* Every member absent until found; times in ns unless the clock says. */
static void class_info_init(struct class_info *ci, const char *name)
{
	memset(ci, 0, sizeof(*ci));
	snprintf(ci->event_name, sizeof(ci->event_name), "%s", name ? name : "(unnamed)");
	ci->f[0] = ci->f[1] = ci->f[2] = NO_FIELD;
	ci->ts = ci->cpu_ns = ci->tid = ci->name = ci->try_ = ci->flags = ci->vtid =
	    ci->vpid = ci->tsc = ci->mono = NO_FIELD;
	ci->baddr = ci->memsz = ci->path = NO_FIELD;
	ci->records = ci->n = NO_FIELD;
	ci->regs = ci->chain = ci->stack = NO_FIELD;
	ci->start = ci->len = ci->pgoff = ci->prot = NO_FIELD;
	ci->freq = 1000000000;
}

/* "ecp:NAME": the agent's events, by the catalogue. */
static int classify_ecp(struct ecp_reader *r, const char *name,
			const bt_field_class *payload, struct class_info *ci)
{
	ci->kind = K_FOREIGN;
	if (!strcmp(name + 4, "func_batch")) {
		/* function records in batches (issue 35): decoded into the
		 * function events of the catalogue (on_func_batch) */
		ci->kind = K_FUNC_BATCH;
		ci->records = member_index(payload, "records");
		ci->n = member_index(payload, "n");
	}
	for (size_t i = 0;
	     ci->kind == K_FOREIGN && i < sizeof(ecp_events) / sizeof(ecp_events[0]);
	     i++) {
		if (strcmp(ecp_events[i].provider, "ecp") ||
		    strcmp(name + 4, ecp_events[i].name))
			continue;
		ci->kind = K_ECP;
		ci->type = ecp_events[i].type;
		for (int k = 0; k < 3; k++)
			ci->f[k] = member_index(payload, ecp_events[i].f[k]);
		/* recorders since issue 14 write TSC totals */
		if (ci->type == ECP_EV_FUNC_FOLDED && ci->f[2] == NO_FIELD) {
			ci->f[2] = member_index(payload, "total_tsc");
			ci->c_ticks = ci->f[2] != NO_FIELD;
		}
		break;
	}
	ci->ts = member_index(payload, "ts");
	ci->tsc = member_index(payload, "tsc");
	ci->cpu_ns = member_index(payload, "cpu_ns");
	ci->name = member_index(payload, "name");
	ci->try_ = member_index(payload, "try");
	ci->flags = member_index(payload, "flags");
	if ((ci->kind == K_ECP || ci->kind == K_FUNC_BATCH) && ci->vtid == NO_FIELD)
		return ecp_error_set(r->err, ECP_ERR,
				     "trace=%s: event '%s' has no vtid context (the "
				     "recorder must add it)",
				     r->label, name);
	return ECP_OK;
}

/* "ecp_sched:NAME": the driver's records from perf, read by name (their
 * payload has its own ts and tid). */
static void classify_sched(const char *name, const bt_field_class *payload,
			   struct class_info *ci)
{
	const char *what = name + 10;
	if (!strcmp(what, "switch")) {
		ci->kind = K_SCHED_SWITCH;
		ci->type = ECP_EV_SCHED_SWITCH;
		ci->ts = member_index(payload, "ts");
		ci->tid = member_index(payload, "tid");
		ci->f[0] = member_index(payload, "out");
		ci->f[1] = member_index(payload, "preempt");
	} else if (!strcmp(what, "lost")) {
		ci->kind = K_SCHED_LOST;
		ci->type = ECP_EV_SCHED_LOST;
		ci->f[0] = member_index(payload, "count");
	} else if (!strcmp(what, "comm")) {
		ci->kind = K_SCHED_COMM;
		ci->tid = member_index(payload, "tid");
		ci->name = member_index(payload, "name");
	} else if (!strcmp(what, "task")) {
		ci->kind = K_SCHED_TASK;
		ci->tid = member_index(payload, "tid");
		ci->ts = member_index(payload, "ts");
		ci->f[0] = member_index(payload, "pid");
		ci->f[1] = member_index(payload, "ppid");
		ci->f[2] = member_index(payload, "ptid");
		ci->name = member_index(payload, "exit");
	} else if (!strcmp(what, "clock")) {
		ci->kind = K_SCHED_CLOCK;
		ci->mono = member_index(payload, "mono");
		ci->tsc = member_index(payload, "tsc");
	} else if (!strcmp(what, "sample")) {
		ci->kind = K_SCHED_SAMPLE;
		ci->ts = member_index(payload, "ts");
		ci->tid = member_index(payload, "tid");
		ci->regs = member_index(payload, "regs");
		ci->chain = member_index(payload, "chain");
		/* COBS with zero runs since it was found; COBS, or words,
		 * before */
		ci->stack = member_index(payload, "stack_zr");
		ci->stack_zr = ci->stack != NO_FIELD;
		if (!ci->stack_zr)
			ci->stack = member_index(payload, "stack");
	} else if (!strcmp(what, "mmap")) {
		ci->kind = K_SCHED_MMAP;
		ci->start = member_index(payload, "start");
		ci->len = member_index(payload, "len");
		ci->pgoff = member_index(payload, "pgoff");
		ci->prot = member_index(payload, "prot");
		ci->path = member_index(payload, "path");
	} else if (!strcmp(what, "sample_lost")) {
		ci->kind = K_SCHED_SAMPLE_LOST;
		ci->f[0] = member_index(payload, "count");
	} else {
		ci->kind = K_SCHED_OTHER;
	}
}

/* LTTng-UST's own events: the objects loaded (statedump, dlopen) are read,
 * the rest ignored; anything else is another provider's. */
static void classify_lttng(const char *name, const bt_field_class *payload,
			   struct class_info *ci)
{
	if (!strcmp(name, "lttng_ust_statedump:bin_info") ||
	    !strcmp(name, "lttng_ust_dl:dlopen")) {
		ci->kind = !strcmp(name, "lttng_ust_dl:dlopen") ? K_DLOPEN : K_BIN_INFO;
		ci->baddr = member_index(payload, "baddr");
		ci->memsz = member_index(payload, "memsz");
		ci->path = member_index(payload, "path");
	} else if (!strcmp(name, "lttng_ust_statedump:end")) {
		ci->kind = K_UST_REGISTERED;
	} else if (!strncmp(name, "lttng_ust_statedump:", 20) ||
		   !strncmp(name, "lttng_ust_dl:", 13) ||
		   !strncmp(name, "lttng_ust_lib:", 14)) {
		ci->kind = K_IGNORED_LTTNG;
	} else {
		ci->kind = K_FOREIGN;
	}
}

static int classify(struct ecp_reader *r, const bt_event *event, struct class_info *ci)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	const char *name = bt_event_class_get_name(ec);
	class_info_init(ci, name);
	const bt_field_class *payload =
	    bt_event_class_borrow_payload_field_class_const(ec);
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *ctx =
	    bt_stream_class_borrow_event_common_context_field_class_const(sc);
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(sc);
	if (cc)
		ci->freq = bt_clock_class_get_frequency(cc);
	ci->vtid = member_index(ctx, "vtid");
	ci->vpid = member_index(ctx, "vpid");
	if (!name)
		ci->kind = K_FOREIGN;
	else if (!strncmp(name, "ecp:", 4))
		return classify_ecp(r, name, payload, ci);
	else if (!strncmp(name, "ecp_sched:", 10))
		classify_sched(name, payload, ci);
	else
		classify_lttng(name, payload, ci);
	return ECP_OK;
}

static const struct class_info *class_of(struct ecp_reader *r, const bt_event *event)
{
	const bt_event_class *ec = bt_event_borrow_class_const(event);
	size_t near = ((uintptr_t)ec >> 4) % (sizeof(r->recent) / sizeof(r->recent[0]));
	if (r->recent[near].ec == ec)
		return &ECP_VEC_AT(&r->infos, struct class_info, r->recent[near].info);
	uint64_t *v = ecp_hmap_get(&r->classes, (uint64_t)(uintptr_t)ec);
	if (v) {
		r->recent[near].ec = ec;
		r->recent[near].info = (uint32_t)*v;
		return &ECP_VEC_AT(&r->infos, struct class_info, *v);
	}
	struct class_info ci;
	if (classify(r, event, &ci) < 0)
		return NULL;
	struct class_info *slot = ecp_vec_push(&r->infos);
	if (!slot ||
	    ecp_hmap_put(&r->classes, (uint64_t)(uintptr_t)ec, r->infos.len - 1) < 0) {
		ecp_error_set(r->err, ECP_ERR_NOMEM, "out of memory reading %s",
			      r->label);
		return NULL;
	}
	*slot = ci;
	return slot;
}

static uint64_t snapshot_ns(const bt_message *msg, uint64_t freq)
{
	const bt_clock_snapshot *cs =
	    bt_message_event_borrow_default_clock_snapshot_const(msg);
	uint64_t v = bt_clock_snapshot_get_value(cs);
	/* The raw value, not ns from origin: LTTng's origin is the Unix epoch,
	 * while payload times (func ts, switch ts) are CLOCK_MONOTONIC. */
	if (freq == 1000000000 || !freq)
		return v;
	return (uint64_t)((long double)v * 1e9L / (long double)freq);
}

/* Whether raw TSC times can be converted: the sched trace, read first,
 * must have given two clock anchors at least. */
static bool have_clock(struct ecp_reader *r, uint64_t index)
{
	if (r->cb->clock && ecp_tsc_map_ready(r->cb->clock))
		return true;
	ecp_error_set(r->err, ECP_ERR,
		      "trace=%s event=#%llu: function times are raw TSC values but the "
		      "recording has no clock anchors to convert them (the sched trace "
		      "is missing or incomplete)",
		      r->label, (unsigned long long)index);
	return false;
}

/* Whether an agent's event is the recorded process's own: a child the
 * program forked inherits the agent; its events share the per-user
 * buffers but are another process. */
static bool own_process(struct ecp_reader *r, const struct class_info *ci,
			const bt_field *ctx)
{
	if (ci->vpid == NO_FIELD)
		return true;
	uint64_t vpid = member_u64(ctx, ci->vpid);
	if (!r->have_vpid) {
		r->vpid = vpid;
		r->have_vpid = true;
	} else if (vpid != r->vpid) {
		r->stats->other_process++;
		return false;
	}
	return true;
}

/* The agent's events (provider ecp): the process's own, with their times
 * on the trace clock. */
static int on_ecp_event(struct ecp_reader *r, const bt_message *msg,
			const struct class_info *ci, const bt_field *payload,
			struct ecp_event *ev)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_field *ctx = bt_event_borrow_common_context_field_const(event);
	if (!own_process(r, ci, ctx))
		return ECP_OK;
	ev->tid = (uint32_t)member_u64(ctx, ci->vtid);
	ev->type = (uint16_t)ci->type;
	ev->a = member_u64(payload, ci->f[0]);
	ev->b = member_u64(payload, ci->f[1]);
	ev->c = member_u64(payload, ci->f[2]);
	ev->cpu_ns = member_u64(payload, ci->cpu_ns);
	if (ci->try_ != NO_FIELD && member_u64(payload, ci->try_))
		ev->flags |= ECP_EVF_TRY;
	if (ci->flags != NO_FIELD)
		ev->flags |= (uint16_t)((member_u64(payload, ci->flags) & 0xff) << 8);
	if ((ci->c_ticks || ci->tsc != NO_FIELD) && !have_clock(r, ev->index))
		return ECP_ERR;
	if (ci->c_ticks)
		ev->c = ecp_tsc_map_duration(r->cb->clock, ev->c);
	/* function events: the real entry/exit time is the payload's
	 * (raw TSC since issue 14, CLOCK_MONOTONIC ns before) */
	if (ev->type <= ECP_EV_FUNC_UNWOUND && ci->tsc != NO_FIELD)
		ev->ts = ecp_tsc_map_time(r->cb->clock, member_u64(payload, ci->tsc));
	else if (ev->type <= ECP_EV_FUNC_UNWOUND && ci->ts != NO_FIELD)
		ev->ts = member_u64(payload, ci->ts);
	else
		ev->ts = snapshot_ns(msg, ci->freq);
	if (ci->name != NO_FIELD)
		ev->name = member_str(payload, ci->name);
	return r->cb->event(r->user, ev, r->err);
}

/* A malformed func_batch: named by its stream and position. */
static int batch_error(struct ecp_reader *r, const bt_event *event, uint64_t index,
		       const char *why, uint64_t record)
{
	const bt_stream *st = bt_event_borrow_stream_const(event);
	const char *sname = st ? bt_stream_get_name(st) : NULL;
	return ecp_error_set(r->err, ECP_ERR,
			     "trace=%s stream=%s%s%llu event=#%llu (ecp:func_batch): "
			     "malformed batch of function records: %s (at record %llu)",
			     r->label, sname ? sname : "", sname ? " id=" : "",
			     st ? (unsigned long long)bt_stream_get_id(st) : 0ull,
			     (unsigned long long)index, why, (unsigned long long)record);
}

/* Function records in a batch (issue 35, recorder/agent/func-batch.h): each one
 * handed on as the func_entry, func_exit or func_unwound event the agent
 * wrote before batches, one event index each.  `index` is the batch's. */
static int on_func_batch(struct ecp_reader *r, const bt_message *msg,
			 const struct class_info *ci, const bt_field *payload,
			 uint64_t index)
{
	static const uint16_t types[] = {ECP_EV_FUNC_ENTRY, ECP_EV_FUNC_EXIT,
					 ECP_EV_FUNC_UNWOUND};
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const bt_field *ctx = bt_event_borrow_common_context_field_const(event);
	if (!own_process(r, ci, ctx))
		return ECP_OK;
	const bt_field *f = ci->records == NO_FIELD || !payload
				? NULL
				: bt_field_structure_borrow_member_field_by_index_const(
				      payload, MEMBER_AT(ci->records));
	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRING ||
	    ci->n == NO_FIELD)
		return batch_error(r, event, index, "no `records` string or no `n`", 0);
	uint64_t len = bt_field_string_get_length(f);
	uint64_t want = member_u64(payload, ci->n);
	if (len >= ecp_cobs_max(BATCH_DECODED_MAX))
		return batch_error(r, event, index, "longer than any batch", 0);
	if (!r->batch && !(r->batch = malloc(BATCH_DECODED_MAX)))
		return ecp_error_set(r->err, ECP_ERR_NOMEM, "out of memory reading %s",
				     r->label);
	int64_t raw = ecp_cobs_decode(bt_field_string_get_value(f), (size_t)len, r->batch,
				      BATCH_DECODED_MAX);
	if (raw < 0)
		return batch_error(r, event, index, "not a COBS encoding", 0);
	if (!have_clock(r, index))
		return ECP_ERR;
	struct ecp_batch_reader br;
	struct ecp_batch_record rec;
	const char *why = NULL;
	if (ecp_batch_reader_init(&br, r->batch, (size_t)raw, &why) < 0)
		return batch_error(r, event, index, why, 0);
	uint32_t tid = (uint32_t)member_u64(ctx, ci->vtid);
	/* the batch's own index is its first record's */
	r->stats->events = index;
	int got;
	while ((got = ecp_batch_next(&br, &rec, &why)) > 0) {
		if (br.n > want)
			return batch_error(r, event, index, "more records than its `n`",
					   br.n - 1);
		struct ecp_event ev = {.index = r->stats->events++,
				       .tid = tid,
				       .type = types[rec.kind],
				       .a = rec.addr,
				       .b = rec.site,
				       .ts = ecp_tsc_map_time(r->cb->clock, rec.tsc)};
		if (r->cb->event(r->user, &ev, r->err) < 0)
			return ECP_ERR;
		if (r->cb->progress && !(ev.index & ((1u << 20) - 1)) && ev.index)
			r->cb->progress(r->user, ev.index);
	}
	if (got < 0)
		return batch_error(r, event, index, why, br.n);
	if (br.n != want)
		return batch_error(r, event, index, "fewer records than its `n`", br.n);
	return ECP_OK;
}

static int on_task(struct ecp_reader *r, const struct class_info *ci,
		   const bt_field *payload)
{
	/* traces before issue 32 have neither ts nor pid: no use */
	if (!r->cb->task || ci->ts == NO_FIELD || ci->f[0] == NO_FIELD ||
	    ci->tid == NO_FIELD || ci->f[1] == NO_FIELD || ci->f[2] == NO_FIELD ||
	    ci->name == NO_FIELD)
		return ECP_OK;
	struct ecp_task t = {.ts = member_u64(payload, ci->ts),
			     .tid = (uint32_t)member_u64(payload, ci->tid),
			     .pid = (uint32_t)member_u64(payload, ci->f[0]),
			     .ppid = (uint32_t)member_u64(payload, ci->f[1]),
			     .ptid = (uint32_t)member_u64(payload, ci->f[2]),
			     .exit = member_u64(payload, ci->name) != 0};
	return r->cb->task(r->user, &t);
}

static int on_sample(struct ecp_reader *r, const struct class_info *ci,
		     const bt_field *payload, uint64_t index)
{
	if (!r->cb->sample)
		return ECP_OK;
	if (!r->regs) {
		r->regs = malloc(ECP_SAMPLE_MAX_REGS * sizeof(uint64_t));
		r->chain = malloc(ECP_SAMPLE_MAX_CHAIN * sizeof(uint64_t));
		r->stack = malloc(ECP_SAMPLE_MAX_STACK * sizeof(uint64_t));
		if (!r->regs || !r->chain || !r->stack)
			return ecp_error_set(r->err, ECP_ERR_NOMEM,
					     "out of memory reading %s", r->label);
	}
	struct ecp_sample smp = {.ts = member_u64(payload, ci->ts),
				 .index = index,
				 .tid = (uint32_t)member_u64(payload, ci->tid),
				 .regs = r->regs,
				 .chain = r->chain,
				 .stack = r->stack};
	int64_t nr = member_array(payload, ci->regs, r->regs, ECP_SAMPLE_MAX_REGS);
	int64_t nc = member_array(payload, ci->chain, r->chain, ECP_SAMPLE_MAX_CHAIN);
	bool lazy;
	int64_t ns = member_stack(payload, ci->stack, ci->stack_zr, r->stack,
				  ECP_SAMPLE_MAX_STACK, &r->stack_cobs, &lazy);
	smp.stack_cobs = lazy ? &r->stack_cobs : NULL;
	if (nr < 0 || nc < 0 || ns < 0)
		return ecp_error_set(r->err, ECP_ERR,
				     "trace=%s event=#%llu: malformed sample (%s is not "
				     "at most %u 64-bit words)",
				     r->label, (unsigned long long)index,
				     nr < 0   ? "regs"
				     : nc < 0 ? "chain"
					      : "stack",
				     nr < 0   ? ECP_SAMPLE_MAX_REGS
				     : nc < 0 ? ECP_SAMPLE_MAX_CHAIN
					      : ECP_SAMPLE_MAX_STACK);
	smp.n_regs = (uint32_t)nr;
	smp.n_chain = (uint32_t)nc;
	smp.n_stack = (uint32_t)ns;
	return r->cb->sample(r->user, &smp, r->err);
}

/* What the program mapped: objects (the agent's bin_info and dlopen) and
 * the kernel's mmap records. */
static int on_object(struct ecp_reader *r, const struct class_info *ci,
		     const bt_field *payload)
{
	const char *path = member_str(payload, ci->path);
	int rc = 0;
	if (ci->kind == K_SCHED_MMAP) {
		if (r->cb->mapping && path)
			rc = r->cb->mapping(
			    r->user, member_u64(payload, ci->start),
			    member_u64(payload, ci->len), member_u64(payload, ci->pgoff),
			    (uint32_t)member_u64(payload, ci->prot), path);
	} else if (r->cb->object && path) {
		rc = r->cb->object(r->user, member_u64(payload, ci->baddr),
				   member_u64(payload, ci->memsz), path);
	}
	if (rc < 0)
		return ecp_error_set(r->err, ECP_ERR_NOMEM, "out of memory reading %s",
				     r->label);
	return ECP_OK;
}

static int on_event(struct ecp_reader *r, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const struct class_info *ci = class_of(r, event);
	if (!ci)
		return ECP_ERR;
	uint64_t index = r->stats->events++;
	if (r->cb->progress && !(index & ((1u << 20) - 1)) && index)
		r->cb->progress(r->user, index);
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	struct ecp_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.index = index;
	switch (ci->kind) {
	case K_ECP:
		return on_ecp_event(r, msg, ci, payload, &ev);
	case K_FUNC_BATCH:
		return on_func_batch(r, msg, ci, payload, index);
	case K_SCHED_SWITCH:
		ev.type = ECP_EV_SCHED_SWITCH;
		ev.tid = (uint32_t)member_u64(payload, ci->tid);
		ev.ts = member_u64(payload, ci->ts);
		ev.a = member_u64(payload, ci->f[0]);
		ev.b = member_u64(payload, ci->f[1]);
		return r->cb->event(r->user, &ev, r->err);
	case K_SCHED_LOST:
		ev.type = ECP_EV_SCHED_LOST;
		ev.a = member_u64(payload, ci->f[0]);
		return r->cb->event(r->user, &ev, r->err);
	case K_SCHED_COMM: {
		const char *name = member_str(payload, ci->name);
		if (r->cb->comm && name)
			return r->cb->comm(r->user, member_u64(payload, ci->tid), name);
		return ECP_OK;
	}
	case K_SCHED_TASK:
		return on_task(r, ci, payload);
	case K_BIN_INFO:
	case K_DLOPEN:
	case K_SCHED_MMAP:
		return on_object(r, ci, payload);
	case K_SCHED_CLOCK:
		if (r->cb->clock && ci->mono != NO_FIELD && ci->tsc != NO_FIELD &&
		    ecp_tsc_map_add(r->cb->clock, member_u64(payload, ci->mono),
				    member_u64(payload, ci->tsc)) < 0)
			return ecp_error_set(r->err, ECP_ERR_NOMEM,
					     "out of memory reading %s", r->label);
		return ECP_OK;
	case K_SCHED_SAMPLE:
		return on_sample(r, ci, payload, index);
	case K_SCHED_SAMPLE_LOST:
		if (r->cb->sample_lost)
			r->cb->sample_lost(r->user, member_u64(payload, ci->f[0]));
		return ECP_OK;
	case K_UST_REGISTERED:
		if (r->cb->registered && ci->vtid != NO_FIELD)
			return r->cb->registered(
				   r->user,
				   member_u64(
				       bt_event_borrow_common_context_field_const(event),
				       ci->vtid),
				   snapshot_ns(msg, ci->freq)) < 0
				   ? ecp_error_set(r->err, ECP_ERR_NOMEM,
						   "out of memory reading %s", r->label)
				   : ECP_OK;
		return ECP_OK;
	case K_SCHED_OTHER:
	case K_IGNORED_LTTNG:
		return ECP_OK;
	case K_FOREIGN:
	default:
		return ecp_error_set(
		    r->err, ECP_ERR,
		    "trace=%s event=#%llu: event '%s' is not part of an ecp "
		    "trace (another provider's trace, or a newer recorder)",
		    r->label, (unsigned long long)index, ci->event_name);
	}
}

/* A run of messages in time order, from the merge sink: their references
 * are ours. */
static int sink_take(const bt_message *const *msgs, uint64_t count, void *user)
{
	struct ecp_reader *r = user;
	uint64_t i = 0;
	for (; i < count && !r->failed; i++) {
		const bt_message *msg = msgs[i];
		switch (bt_message_get_type(msg)) {
		case BT_MESSAGE_TYPE_EVENT:
			if (on_event(r, msg) < 0)
				r->failed = 1;
			break;
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
			uint64_t n = 0;
			if (bt_message_discarded_events_get_count(msg, &n) !=
			    BT_PROPERTY_AVAILABILITY_AVAILABLE)
				n = 1; /* at least one, count unknown */
			if (!r->stats->discarded && !r->stats->discarded_packets)
				r->stats->first_discard_index = r->stats->events;
			r->stats->discarded += n;
			break;
		}
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
			if (!r->stats->discarded && !r->stats->discarded_packets)
				r->stats->first_discard_index = r->stats->events;
			r->stats->discarded_packets++;
			break;
		default:
			break;
		}
		bt_message_put_ref(msg);
	}
	for (; i < count; i++)
		bt_message_put_ref(msgs[i]);
	return r->failed ? -1 : 0;
}

/* babeltrace2's innermost error cause (the root, index 0), for messages:
 * the outer causes only say that each component above it failed, and every
 * cause ends in a list of addresses ("...: msg-it-addr=0x..., ...") that
 * means nothing to a user, so that list is cut off. */
static void take_bt_error(char *buf, size_t len)
{
	buf[0] = '\0';
	const bt_error *e = bt_current_thread_take_error();
	if (!e)
		return;
	if (bt_error_get_cause_count(e) > 0) {
		const char *m =
		    bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, 0));
		const char *addr = m ? strstr(m, "addr=") : NULL;
		size_t n = m ? strlen(m) : 0;
		if (addr) {
			/* back to the ": " that starts the key=value list */
			const char *colon = addr;
			while (colon > m && !(colon[0] == ':' && colon[1] == ' '))
				colon--;
			if (colon > m)
				n = (size_t)(colon - m);
		}
		snprintf(buf, len, "%.*s", (int)n, m ? m : "");
	}
	bt_error_release(e);
}

/* The decoding graph: ctf's fs source (one output port per stream) into
 * our merge sink (time order, merge-sink.h), and what it holds. */
struct bt_setup {
	const bt_plugin *ctf;
	bt_graph *graph;
	bt_value *params;
};

static void bt_setup_finish(struct bt_setup *b)
{
	bt_value_put_ref(b->params);
	bt_graph_put_ref(b->graph);
	bt_plugin_put_ref(b->ctf);
}

/* The source for ctf_dir, its failure to open the trace kept in stats. */
static int add_source(struct bt_setup *b, struct ecp_reader *r, const char *ctf_dir,
		      const bt_component_source **src)
{
	const char *label = r->label;
	const bt_component_class_source *fs =
	    bt_plugin_borrow_source_component_class_by_name_const(b->ctf, "fs");
	b->graph = bt_graph_create(0);
	b->params = bt_value_map_create();
	bt_value *inputs = NULL;
	if (!fs || !b->graph || !b->params ||
	    bt_value_map_insert_empty_array_entry(b->params, "inputs", &inputs) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, ctf_dir) !=
		BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK)
		return ecp_error_set(r->err, ECP_ERR,
				     "cannot set up babeltrace2 to read %s", label);
	if (bt_graph_add_source_component(b->graph, fs, "src", b->params,
					  BT_LOGGING_LEVEL_NONE,
					  src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		char bterr[sizeof(r->stats->bt_cause)];
		take_bt_error(bterr, sizeof(bterr));
		r->stats->bt_failed = 1;
		snprintf(r->stats->bt_cause, sizeof(r->stats->bt_cause), "%s", bterr);
		return ecp_error_set(r->err, ECP_ERR,
				     "trace=%s: babeltrace2 cannot open the trace: %s",
				     label, bterr[0] ? bterr : "it refused it");
	}
	return ECP_OK;
}

static int make_graph(struct bt_setup *b, struct ecp_reader *r, const char *ctf_dir)
{
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &b->ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return ecp_error_set(r->err, ECP_ERR,
				     "babeltrace2 plugin 'ctf' not found (is "
				     "babeltrace2 installed?)");
	const bt_component_source *src = NULL;
	int rc = add_source(b, r, ctf_dir, &src);
	if (rc < 0)
		return rc;
	const char *why = NULL;
	if (ecp_merge_sink_add(b->graph, src, sink_take, r, &why) < 0)
		return ecp_error_set(r->err, ECP_ERR, "babeltrace2 reading %s: %s",
				     r->label, why);
	return ECP_OK;
}

/* Runs the graph to its end; a failure is ours (the sink's message) or
 * babeltrace2's, whose cause stats keep. */
static int run_graph(bt_graph *graph, struct ecp_reader *r)
{
	struct ecp_ctf_stats *stats = r->stats;
	char bterr[sizeof(stats->bt_cause)];
	bt_graph_run_status st;
	do {
		st = bt_graph_run(graph);
	} while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	if (r->failed) {
		/* our own message is the useful one; drop babeltrace2's */
		const bt_error *e = bt_current_thread_take_error();
		if (e)
			bt_error_release(e);
		return ecp_error_is_set(r->err) ? r->err->status : ECP_ERR;
	}
	take_bt_error(bterr, sizeof(bterr));
	if (st == BT_GRAPH_RUN_STATUS_OK) {
		/* The CTF source ends a stream quietly at some damaged data,
		 * leaving its error behind: the events after it are lost. */
		if (bterr[0]) {
			stats->bt_failed = 3;
			snprintf(stats->bt_cause, sizeof(stats->bt_cause), "%s", bterr);
		}
		return ECP_OK;
	}
	stats->bt_failed = 2;
	snprintf(stats->bt_cause, sizeof(stats->bt_cause), "%s", bterr);
	return ecp_error_set(
	    r->err, ECP_ERR,
	    "trace=%s event=#%llu: babeltrace2 cannot decode the trace: %s", r->label,
	    (unsigned long long)stats->events, bterr[0] ? bterr : "it failed");
}

int ecp_ctf_read(const char *ctf_dir, const char *label,
		 const struct ecp_ctf_callbacks *cb, void *user,
		 struct ecp_ctf_stats *stats, struct ecp_error *err)
{
	struct ecp_reader r = {
	    .label = label, .cb = cb, .user = user, .stats = stats, .err = err};
	ecp_hmap_init(&r.classes);
	ecp_vec_init(&r.infos, sizeof(struct class_info));
	memset(stats, 0, sizeof(*stats));
	struct bt_setup b = {0};
	int rc = make_graph(&b, &r, ctf_dir);
	if (rc == ECP_OK)
		rc = run_graph(b.graph, &r);
	bt_setup_finish(&b);
	ecp_hmap_finish(&r.classes);
	ecp_vec_finish(&r.infos);
	free(r.regs);
	free(r.chain);
	free(r.stack);
	free(r.batch);
	return rc;
}

static int find_rec(const char *dir, int depth, char **out)
{
	char path[PATH_MAX];
	struct stat st;
	if (snprintf(path, sizeof(path), "%s/metadata", dir) < (int)sizeof(path) &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		*out = strdup(dir);
		return *out ? 1 : -1;
	}
	if (depth >= 8)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	/* sorted so that the choice does not depend on directory order */
	struct dirent **names = NULL;
	int n = 0, cap = 0, found = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct dirent **p = realloc(names, (size_t)cap * sizeof(*p));
			if (!p) {
				found = -1;
				break;
			}
			names = p;
		}
		names[n] = malloc(sizeof(struct dirent));
		if (!names[n]) {
			found = -1;
			break;
		}
		memcpy(names[n++], e, sizeof(struct dirent));
	}
	closedir(d);
	for (int i = 0; i < n && !found; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[j]->d_name, names[i]->d_name) < 0) {
				struct dirent *t = names[i];
				names[i] = names[j];
				names[j] = t;
			}
	for (int i = 0; i < n && !found; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) >=
		    (int)sizeof(path))
			continue;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			found = find_rec(path, depth + 1, out);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return found;
}

int ecp_ctf_find_metadata(const char *root, char **out, struct ecp_error *err)
{
	*out = NULL;
	int found = find_rec(root, 0, out);
	if (found < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	if (!found)
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: missing CTF metadata (no directory below it "
		    "contains a 'metadata' file)",
		    root);
	return ECP_OK;
}
