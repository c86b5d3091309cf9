/* SPDX-License-Identifier: MIT */
/* The reader's merge of a trace's streams (simulator/ctf/merge-sink.c)
 * against babeltrace2's own muxer, which it replaces (issue 35): on
 * traces of several streams whose events often share a time, one stream
 * at a time ahead and packets ending at different times, ecp_ctf_read
 * hands the builder the events in the order the muxer gives them, ties
 * between streams included.  The muxer runs here in a graph of its own
 * (source.ctf.fs -> filter.utils.muxer -> a sink that lists the events). */
#include <babeltrace2/babeltrace.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "simulator/ctf/reader-ctf.h"
#include "tests/support/ctf-writer.h"

#define N_STREAMS 3

/* The order of the events: each carries its number as timeout_ns. */
struct order {
	uint64_t *seq;
	uint64_t n, cap;
};

static void order_add(struct order *o, uint64_t v)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 1024;
		o->seq = realloc(o->seq, o->cap * sizeof(*o->seq));
		assert_non_null(o->seq);
	}
	o->seq[o->n++] = v;
}

static int take_event(void *user, const struct ecp_event *ev, struct ecp_error *err)
{
	(void)err;
	order_add(user, ev->c);
	return 0;
}

static bt_graph_simple_sink_component_initialize_func_status
muxed_init(bt_message_iterator *it, void *user)
{
	(void)it;
	(void)user;
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_INITIALIZE_FUNC_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status
muxed_consume(bt_message_iterator *it, void *user)
{
	bt_message_array_const msgs;
	uint64_t count = 0;
	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT) {
			const bt_field *payload = bt_event_borrow_payload_field_const(
			    bt_message_event_borrow_event_const(msgs[i]));
			const bt_field *f =
			    bt_field_structure_borrow_member_field_by_name_const(
				payload, "timeout_ns");
			order_add(user, f ? bt_field_integer_unsigned_get_value(f)
					  : UINT64_MAX);
		}
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The events in babeltrace2's muxer's order. */
static void read_muxed(const char *dir, struct order *o)
{
	const bt_plugin *ctf = NULL, *utils = NULL;
	assert_int_equal(
	    bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &ctf),
	    BT_PLUGIN_FIND_STATUS_OK);
	assert_int_equal(
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &utils),
	    BT_PLUGIN_FIND_STATUS_OK);
	bt_graph *g = bt_graph_create(0);
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	assert_int_equal(bt_value_map_insert_empty_array_entry(params, "inputs", &inputs),
			 BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK);
	assert_int_equal(bt_value_array_append_string_element(inputs, dir),
			 BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK);
	const bt_component_source *src = NULL;
	const bt_component_filter *mux = NULL;
	const bt_component_sink *sink = NULL;
	assert_int_equal(
	    bt_graph_add_source_component(
		g, bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs"),
		"src", params, BT_LOGGING_LEVEL_NONE, &src),
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK);
	assert_int_equal(
	    bt_graph_add_filter_component(
		g, bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer"),
		"mux", NULL, BT_LOGGING_LEVEL_NONE, &mux),
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK);
	assert_int_equal(bt_graph_add_simple_sink_component(
			     g, "list", muxed_init, muxed_consume, NULL, o, &sink),
			 BT_GRAPH_ADD_COMPONENT_STATUS_OK);
	uint64_t nports = bt_component_source_get_output_port_count(src);
	assert_int_equal(nports, N_STREAMS);
	for (uint64_t i = 0; i < nports; i++)
		assert_int_equal(
		    bt_graph_connect_ports(
			g, bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_filter_borrow_input_port_by_index_const(mux, i),
			NULL),
		    BT_GRAPH_CONNECT_PORTS_STATUS_OK);
	assert_int_equal(
	    bt_graph_connect_ports(
		g, bt_component_filter_borrow_output_port_by_index_const(mux, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL),
	    BT_GRAPH_CONNECT_PORTS_STATUS_OK);
	bt_graph_run_status st;
	do
		st = bt_graph_run(g);
	while (st == BT_GRAPH_RUN_STATUS_AGAIN);
	assert_int_equal(st, BT_GRAPH_RUN_STATUS_OK);
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
}

struct written {
	uint64_t n;
	uint64_t *ts;     /* by event number */
	unsigned *stream; /* by event number */
};

/* n events over the streams, from one clock that often stands still, so
 * that events of different streams share times; a stream is sometimes
 * ahead for a long run (its packets then end far from the others'). */
static void write_trace(const char *dir, uint64_t n, unsigned seed, struct written *wr)
{
	struct ecp_ctf_writer *w[N_STREAMS];
	for (unsigned s = 0; s < N_STREAMS; s++)
		assert_int_equal(
		    ecp_ctf_writer_create_stream(dir, ECP_CTF_MAIN, s, &w[s]), 0);
	wr->n = n;
	wr->ts = calloc(n, sizeof(*wr->ts));
	wr->stream = calloc(n, sizeof(*wr->stream));
	assert_true(wr->ts && wr->stream);
	uint64_t t = 1000;
	unsigned run_left = 0, run_stream = 0;
	for (uint64_t i = 0; i < n; i++) {
		t += (unsigned)rand_r(&seed) % 3 == 0 ? 1 + (unsigned)rand_r(&seed) % 50
						      : 0;
		if (!run_left && rand_r(&seed) % 200 == 0) {
			run_left = 1 + (unsigned)rand_r(&seed) % 3000;
			run_stream = (unsigned)rand_r(&seed) % N_STREAMS;
		}
		unsigned s = run_left ? run_stream : (unsigned)rand_r(&seed) % N_STREAMS;
		if (run_left)
			run_left--;
		struct ecp_event ev = {.ts = t,
				       .tid = 1 + s,
				       .type = ECP_EV_DELAY_BEGIN,
				       .a = 1,
				       .b = 3,
				       .c = i};
		assert_int_equal(ecp_ctf_writer_event(w[s], &ev), 0);
		wr->ts[i] = t;
		wr->stream[i] = s;
	}
	for (unsigned s = 0; s < N_STREAMS; s++)
		assert_int_equal(ecp_ctf_writer_close(w[s]), 0);
}

static void test_merge_is_muxer_order(void **state)
{
	(void)state;
	unsigned compared = 0;
	uint64_t cross_ties = 0, events = 0;
	for (unsigned seed = 1; seed <= 4; seed++) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/ecp-test-merge-%d-%u",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(),
			 seed);
		struct written wr = {0};
		/* 75,000 events of 52 bytes: each stream more than one 1 MiB packet */
		write_trace(dir, 75000, seed, &wr);
		struct order ours = {0}, muxed = {0};
		struct ecp_ctf_callbacks cb = {.event = take_event};
		struct ecp_ctf_stats st;
		struct ecp_error err = {0};
		if (ecp_ctf_read(dir, "merge", &cb, &ours, &st, &err) < 0)
			fail_msg("%s", err.msg);
		read_muxed(dir, &muxed);
		assert_int_equal(muxed.n, wr.n);
		assert_int_equal(ours.n, muxed.n);
		for (uint64_t i = 0; i < ours.n; i++) {
			if (ours.seq[i] != muxed.seq[i])
				fail_msg(
				    "seed %u: event %llu of the merge is #%llu (stream "
				    "%u, "
				    "%llu ns), the muxer's #%llu (stream %u, %llu ns)",
				    seed, (unsigned long long)i,
				    (unsigned long long)ours.seq[i],
				    wr.stream[ours.seq[i]],
				    (unsigned long long)wr.ts[ours.seq[i]],
				    (unsigned long long)muxed.seq[i],
				    wr.stream[muxed.seq[i]],
				    (unsigned long long)wr.ts[muxed.seq[i]]);
			if (i && wr.ts[muxed.seq[i]] == wr.ts[muxed.seq[i - 1]] &&
			    wr.stream[muxed.seq[i]] != wr.stream[muxed.seq[i - 1]])
				cross_ties++;
		}
		events += ours.n;
		compared++;
		free(ours.seq);
		free(muxed.seq);
		free(wr.ts);
		free(wr.stream);
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
	assert_int_equal(compared, 4);
	assert_int_equal(events, 4 * 75000);
	/* the order of equal times across streams was checked, many times */
	print_message("%llu events in 4 traces, %llu at the time of the one before "
		      "in another stream\n",
		      (unsigned long long)events, (unsigned long long)cross_ties);
	assert_true(cross_ties > 1000);
}

/* A stream whose time goes back is refused, as the muxer refused it,
 * with the two times; the events before it were read. */
static void test_time_going_back_refused(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/ecp-test-merge-back-%d",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	struct ecp_ctf_writer *w[2];
	for (unsigned s = 0; s < 2; s++)
		assert_int_equal(
		    ecp_ctf_writer_create_stream(dir, ECP_CTF_MAIN, s, &w[s]), 0);
	ecp_ctf_writer_let_time_go_back(w[0]);
	const uint64_t times[] = {1000, 2000, 1500, 3000};
	for (unsigned i = 0; i < 4; i++) {
		struct ecp_event ev = {
		    .ts = times[i], .tid = 1, .type = ECP_EV_DELAY_BEGIN, .a = 1, .c = i};
		assert_int_equal(ecp_ctf_writer_event(w[0], &ev), 0);
	}
	struct ecp_event other = {
	    .ts = 500, .tid = 2, .type = ECP_EV_DELAY_BEGIN, .a = 1, .c = 9};
	assert_int_equal(ecp_ctf_writer_event(w[1], &other), 0);
	for (unsigned s = 0; s < 2; s++)
		assert_int_equal(ecp_ctf_writer_close(w[s]), 0);
	struct order ours = {0};
	struct ecp_ctf_callbacks cb = {.event = take_event};
	struct ecp_ctf_stats st;
	struct ecp_error err = {0};
	assert_true(ecp_ctf_read(dir, "back", &cb, &ours, &st, &err) < 0);
	assert_int_equal(st.bt_failed, 2);
	assert_non_null(strstr(err.msg, "at 1500 ns comes after one at 2000 ns"));
	assert_non_null(strstr(err.msg, "event=#3:")); /* the failure's place */
	assert_int_equal(ours.n, 3);                   /* 9 (at 500), then 0 and 1 */
	assert_int_equal(ours.seq[0], 9);
	assert_int_equal(ours.seq[2], 1);
	free(ours.seq);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge_is_muxer_order),
	    cmocka_unit_test(test_time_going_back_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
