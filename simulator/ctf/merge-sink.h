/* SPDX-License-Identifier: MIT */
#ifndef ECP_CTF_MERGE_SINK_H
#define ECP_CTF_MERGE_SINK_H

/* A babeltrace2 sink that takes a CTF source's streams (one output port
 * each) and hands their messages on in time order, in runs.
 *
 * It replaces utils' muxer in front of a simple sink: on a sync-heavy
 * recording the muxer was a quarter of the decoding's CPU (issue 35), most
 * of it per message (a queue, a scan of every stream, a copy into its own
 * batch) for traces whose events are nearly all in one stream.  Here a run
 * of one stream's messages that come before every other stream's next one
 * is passed on in place, as the source's iterator gave it.
 *
 * The order is the muxer's (babeltrace2 2.0): each message's time is its
 * default clock snapshot in ns from the clock's origin, a message with none
 * takes the time of the last one passed on, and equal times go by stream
 * class id, then stream id.  A message earlier than the one before it is
 * refused as the muxer refuses it: the graph fails with that cause. */

#include <babeltrace2/babeltrace.h>
#include <stdint.h>

/* Takes messages[0 .. count), each with its reference (the callee puts
 * them); returns 0 to go on, < 0 to stop the graph (the callee's failure,
 * reported by the callee). */
typedef int (*ecp_merge_sink_fn)(const bt_message *const *messages, uint64_t count,
				 void *user);

/* Adds the sink to graph, with an input port for each of src's output
 * ports, and connects them.  0, or < 0 when babeltrace2 refuses a step
 * (*why then says which). */
int ecp_merge_sink_add(bt_graph *graph, const bt_component_source *src,
		       ecp_merge_sink_fn fn, void *user, const char **why);

#endif
