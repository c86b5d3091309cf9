/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/merge-sink.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* One stream: its iterator and the batch it last gave, of which
 * msgs[pos .. count) are not passed on yet (and their references ours). */
struct upstream {
	bt_message_iterator *it;
	bt_message_array_const msgs;
	uint64_t pos, count;
	bool ended;
	/* whether its events have a default clock: known from its first
	 * event (a stream's events are of its one class), not asked again */
	signed char event_clock;
};

struct merge {
	ecp_merge_sink_fn fn;
	void *user;
	uint64_t n;
	/* the time of the last message passed on (INT64_MIN before the
	 * first, as the muxer starts: an untimed first message goes first) */
	int64_t last_ns;
	struct upstream up[];
};

struct merge_init {
	ecp_merge_sink_fn fn;
	void *user;
	uint64_t nports;
};

static const bt_stream *message_stream(const bt_message *m)
{
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(
		    bt_message_event_borrow_event_const(m));
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(
		    bt_message_packet_beginning_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(
		    bt_message_packet_end_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(m);
	default:
		return NULL;
	}
}

/* A message other than an event: its default clock snapshot, or NULL
 * where its stream class (or, for a stream's ends, the message) has none. */
static const bt_clock_snapshot *other_snapshot(const bt_message *m)
{
	const bt_clock_snapshot *cs = NULL;
	const bt_stream *s = message_stream(m);
	const bt_stream_class *sc = s ? bt_stream_borrow_class_const(s) : NULL;
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(sc)
			   ? bt_message_packet_beginning_borrow_default_clock_snapshot_const(
				 m)
			   : NULL;
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_class_packets_have_end_default_clock_snapshot(sc)
			   ? bt_message_packet_end_borrow_default_clock_snapshot_const(m)
			   : NULL;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_default_clock_snapshot_const(
			   m, &cs) == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN
			   ? cs
			   : NULL;
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_default_clock_snapshot_const(
			   m, &cs) == BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN
			   ? cs
			   : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_class_discarded_events_have_default_clock_snapshots(sc)
			   ? bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(
				 m)
			   : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)
			   ? bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(
				 m)
			   : NULL;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(
		    m);
	default:
		return NULL;
	}
}

/* The message's time as the muxer takes it: its default clock snapshot
 * (0), or, where it has none, the time of the last message passed on (1).
 * -1 where the snapshot has no time in ns from the origin. */
static int message_ns(struct upstream *u, const bt_message *m, int64_t last, int64_t *ns)
{
	const bt_clock_snapshot *cs;
	if (bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT) {
		if (u->event_clock < 0)
			u->event_clock =
			    bt_message_event_borrow_stream_class_default_clock_class_const(
				m) != NULL;
		cs = u->event_clock
			 ? bt_message_event_borrow_default_clock_snapshot_const(m)
			 : NULL;
	} else {
		cs = other_snapshot(m);
	}
	if (!cs) {
		*ns = last;
		return 1;
	}
	return bt_clock_snapshot_get_ns_from_origin(cs, ns) ==
		       BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK
		   ? 0
		   : -1;
}

/* Whether a goes before b at the same time: the muxer's order, which
 * within one trace is a message with a stream first, then by stream
 * class id, then by stream id (each of our upstreams is one stream). */
static bool tie_before(const bt_message *a, const bt_message *b)
{
	const bt_stream *sa = message_stream(a), *sb = message_stream(b);
	if (!sa || !sb)
		return sa && !sb;
	uint64_t ca = bt_stream_class_get_id(bt_stream_borrow_class_const(sa));
	uint64_t cb = bt_stream_class_get_id(bt_stream_borrow_class_const(sb));
	if (ca != cb)
		return ca < cb;
	return bt_stream_get_id(sa) < bt_stream_get_id(sb);
}

static bt_component_class_sink_consume_method_status fail(bt_self_component_sink *self,
							  const char *why)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
	    bt_self_component_sink_as_self_component(self), "%s", why);
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

/* Gives every stream that has passed on all it had its next batch. */
static bt_component_class_sink_consume_method_status refill(struct merge *mg)
{
	for (uint64_t i = 0; i < mg->n; i++) {
		struct upstream *u = &mg->up[i];
		if (u->ended || u->pos < u->count)
			continue;
		u->pos = u->count = 0;
		switch (bt_message_iterator_next(u->it, &u->msgs, &u->count)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			u->ended = true;
			u->count = 0;
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			u->count = 0;
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			u->count = 0;
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
		default:
			u->count = 0;
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		}
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

/* The stream whose next message goes first, and the one whose next
 * message goes after it (NULL: none other has one). */
struct pick {
	struct upstream *first, *second;
	int64_t first_ns, second_ns;
	/* its time is the last message's, and moves with it */
	bool first_untimed, second_untimed;
};

static int pick_streams(struct merge *mg, struct pick *p)
{
	*p = (struct pick){0};
	for (uint64_t i = 0; i < mg->n; i++) {
		struct upstream *u = &mg->up[i];
		if (u->ended)
			continue;
		const bt_message *head = u->msgs[u->pos];
		int64_t ns;
		int untimed = message_ns(u, head, mg->last_ns, &ns);
		if (untimed < 0)
			return -1;
		if (!p->first || ns < p->first_ns ||
		    (ns == p->first_ns &&
		     tie_before(head, p->first->msgs[p->first->pos]))) {
			p->second = p->first;
			p->second_ns = p->first_ns;
			p->second_untimed = p->first_untimed;
			p->first = u;
			p->first_ns = ns;
			p->first_untimed = untimed;
		} else if (!p->second || ns < p->second_ns ||
			   (ns == p->second_ns &&
			    tie_before(head, p->second->msgs[p->second->pos]))) {
			p->second = u;
			p->second_ns = ns;
			p->second_untimed = untimed;
		}
	}
	return 0;
}

static bt_component_class_sink_consume_method_status
merge_consume(bt_self_component_sink *self)
{
	struct merge *mg =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_component_class_sink_consume_method_status st = refill(mg);
	if (st != BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK)
		return st;
	struct pick p;
	if (pick_streams(mg, &p) < 0)
		return fail(self, "a message's time is out of its clock's range");
	if (!p.first)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	struct upstream *u = p.first;
	const bt_message *second_head = p.second ? p.second->msgs[p.second->pos] : NULL;
	uint64_t end = u->pos;
	const char *bad = NULL;
	char why[160];
	while (end < u->count) {
		const bt_message *m = u->msgs[end];
		int64_t ns;
		if (message_ns(u, m, mg->last_ns, &ns) < 0) {
			bad = "a message's time is out of its clock's range";
			break;
		}
		if (ns < mg->last_ns) {
			snprintf(why, sizeof(why),
				 "a stream's message at %lld ns comes after one at %lld "
				 "ns (its time goes back)",
				 (long long)ns, (long long)mg->last_ns);
			bad = why;
			break;
		}
		if (second_head) {
			/* an untimed message's time is the last one's, as it moves */
			int64_t other = p.second_untimed ? mg->last_ns : p.second_ns;
			if (ns > other || (ns == other && !tie_before(m, second_head)))
				break;
		}
		mg->last_ns = ns;
		end++;
	}
	/* what came before a bad message is passed on first, as the muxer
	 * does: the events read are the same, and so is the failure's place */
	uint64_t from = u->pos;
	u->pos = end;
	if (end > from && mg->fn(&u->msgs[from], end - from, mg->user) < 0)
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	return bad ? fail(self, bad) : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
merge_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	   const bt_value *params, void *data)
{
	(void)config;
	(void)params;
	const struct merge_init *in = data;
	struct merge *mg = calloc(1, sizeof(*mg) + in->nports * sizeof(mg->up[0]));
	if (!mg)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	mg->fn = in->fn;
	mg->user = in->user;
	mg->n = in->nports;
	mg->last_ns = INT64_MIN;
	for (uint64_t i = 0; i < in->nports; i++)
		mg->up[i].event_clock = -1;
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), mg);
	for (uint64_t i = 0; i < in->nports; i++) {
		char name[32];
		snprintf(name, sizeof(name), "in%llu", (unsigned long long)i);
		if (bt_self_component_sink_add_input_port(self, name, NULL, NULL) !=
		    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
merge_configured(bt_self_component_sink *self)
{
	struct merge *mg =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	for (uint64_t i = 0; i < mg->n; i++)
		if (bt_message_iterator_create_from_sink_component(
			self, bt_self_component_sink_borrow_input_port_by_index(self, i),
			&mg->up[i].it) !=
		    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void merge_finalize(bt_self_component_sink *self)
{
	struct merge *mg =
	    bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	if (!mg)
		return;
	for (uint64_t i = 0; i < mg->n; i++) {
		struct upstream *u = &mg->up[i];
		for (uint64_t k = u->pos; k < u->count; k++)
			bt_message_put_ref(u->msgs[k]);
		bt_message_iterator_put_ref(u->it);
	}
	free(mg);
}

int ecp_merge_sink_add(bt_graph *graph, const bt_component_source *src,
		       ecp_merge_sink_fn fn, void *user, const char **why)
{
	struct merge_init in = {.fn = fn,
				.user = user,
				.nports = bt_component_source_get_output_port_count(src)};
	bt_component_class_sink *cls =
	    bt_component_class_sink_create("ecp", merge_consume);
	const bt_component_sink *sink = NULL;
	*why = "cannot make its sink";
	if (!cls ||
	    bt_component_class_sink_set_initialize_method(cls, merge_init) !=
		BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_graph_is_configured_method(
		cls, merge_configured) != BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_component_class_sink_set_finalize_method(cls, merge_finalize) !=
		BT_COMPONENT_CLASS_SET_METHOD_STATUS_OK ||
	    bt_graph_add_sink_component_with_initialize_method_data(
		graph, cls, "ecp", NULL, &in, BT_LOGGING_LEVEL_NONE, &sink) !=
		BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		bt_component_class_sink_put_ref(cls);
		return -1;
	}
	bt_component_class_sink_put_ref(cls);
	*why = "cannot connect its streams";
	for (uint64_t i = 0; i < in.nports; i++)
		if (bt_graph_connect_ports(
			graph,
			bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_sink_borrow_input_port_by_index_const(sink, i),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK)
			return -1;
	return 0;
}
