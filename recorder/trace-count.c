#include "recorder/trace-count.h"

#include <babeltrace2/babeltrace.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nftw has no user pointer: the walk's state lives here (the driver is
 * single-threaded while it counts). */
static struct {
	uint64_t bytes;
	char dirs[4][PATH_MAX];
	int n_dirs;
} walk;

static int visit(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_F) {
		walk.bytes += (uint64_t)sb->st_size;
		if (strcmp(path + ftw->base, "metadata") == 0 && walk.n_dirs < 4) {
			snprintf(walk.dirs[walk.n_dirs], PATH_MAX, "%.*s", ftw->base - 1,
				 path);
			walk.n_dirs++;
		}
	}
	return 0;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *data)
{
	struct ecp_trace_count *c = data;
	bt_message_array_const msgs;
	uint64_t n;

	switch (bt_message_iterator_next(it, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		const bt_message *m = msgs[i];
		if (bt_message_get_type(m) == BT_MESSAGE_TYPE_EVENT) {
			const bt_event *ev = bt_message_event_borrow_event_const(m);
			const char *name =
			    bt_event_class_get_name(bt_event_borrow_class_const(ev));
			c->events++;
			if (name && strcmp(name, "ecp:thread_start") == 0)
				c->threads++;
		} else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
			uint64_t d;
			if (bt_message_discarded_events_get_count(m, &d) ==
			    BT_PROPERTY_AVAILABILITY_AVAILABLE)
				c->discarded += d;
			else
				c->discarded++; /* unknown number: at least one */
		}
		bt_message_put_ref(m);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

static int count_one(const char *dir, struct ecp_trace_count *c, struct ecp_error *err)
{
	const bt_plugin *ctf = NULL;
	const bt_component_class_source *fs;
	const bt_component_source *src;
	bt_graph *g = NULL;
	bt_value *params = NULL, *inputs = NULL;
	int rc = ECP_OK;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return ecp_error_set(err, ECP_ERR_IO, "babeltrace2 ctf plugin not found");
	fs = bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	g = bt_graph_create(0);
	params = bt_value_map_create();
	if (!fs || !g || !params ||
	    bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK ||
	    bt_value_array_append_string_element(inputs, dir) !=
		BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK ||
	    bt_graph_add_source_component(g, fs, "src", params, BT_LOGGING_LEVEL_ERROR,
					  &src) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		rc =
		    ecp_error_set(err, ECP_ERR_IO, "cannot open the trace: path=%s", dir);
		goto out;
	}
	/* No muxer: counting needs no order, so one simple sink per stream. */
	for (uint64_t i = 0; i < bt_component_source_get_output_port_count(src); i++) {
		const bt_component_sink *sink;
		char name[32];
		snprintf(name, sizeof(name), "count%llu", (unsigned long long)i);
		if (bt_graph_add_simple_sink_component(g, name, NULL, consume, NULL, c,
						       &sink) !=
			BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
		    bt_graph_connect_ports(
			g, bt_component_source_borrow_output_port_by_index_const(src, i),
			bt_component_sink_borrow_input_port_by_index_const(sink, 0),
			NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			rc = ecp_error_set(err, ECP_ERR_IO,
					   "cannot read the trace: path=%s", dir);
			goto out;
		}
	}
	for (;;) {
		bt_graph_run_status s = bt_graph_run(g);
		if (s == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (s != BT_GRAPH_RUN_STATUS_AGAIN) {
			rc = ecp_error_set(err, ECP_ERR_IO,
					   "cannot read the trace: path=%s", dir);
			break;
		}
	}
out:
	bt_value_put_ref(params);
	bt_graph_put_ref(g);
	bt_plugin_put_ref(ctf);
	return rc;
}

int ecp_trace_count(const char *dir, struct ecp_trace_count *c, struct ecp_error *err)
{
	int rc = ECP_OK;
	memset(c, 0, sizeof(*c));
	memset(&walk, 0, sizeof(walk));
	nftw(dir, visit, 16, FTW_PHYS);
	c->bytes = walk.bytes;
	for (int i = 0; i < walk.n_dirs && !rc; i++) {
		char sched[PATH_MAX];
		uint64_t before = c->events;
		rc = count_one(walk.dirs[i], c, err);
		snprintf(sched, sizeof(sched), "%s/sched/", dir);
		if (strncmp(walk.dirs[i], sched, strlen(sched)) == 0)
			c->sched_events += c->events - before;
	}
	return rc;
}
