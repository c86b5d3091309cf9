/* SPDX-License-Identifier: MIT */
/* Streaming reader of one CTF trace of an ecp recording (recorder/EVENTS.md)
 * over the babeltrace2 C API: source.ctf.fs -> an in-process sink that
 * merges its streams in time order (merge-sink.h) and decodes every event
 * into a struct ecp_event
 * and hands it to a callback, so nothing but the current message batch is
 * held in memory.
 *
 * Events of provider `ecp` and `ecp_sched` are decoded (function times in
 * raw TSC converted to CLOCK_MONOTONIC through the clock anchors); the statedump's
 * objects (lttng_ust_statedump:bin_info, lttng_ust_dl:dlopen) and perf's
 * thread names (ecp_sched:comm) go to their own callbacks.  An event of any
 * other provider is an error: this is not an ecp trace. */
#ifndef ECP_SIMULATOR_READER_CTF_H
#define ECP_SIMULATOR_READER_CTF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/ctf/event.h"
#include "simulator/ctf/tsc-map.h"

struct ecp_ctf_callbacks {
	int (*event)(void *user, const struct ecp_event *ev, struct ecp_error *err);
	/* may be NULL */
	int (*object)(void *user, uint64_t baddr, uint64_t memsz, const char *path);
	int (*comm)(void *user, uint64_t tid, const char *name);
	/* may be NULL: an LTTng-UST listener thread's statedump ended (it
	 * has registered; lttng_ust_statedump:end), at the trace clock */
	int (*registered)(void *user, uint64_t tid, uint64_t ts);
	int (*task)(void *user, const struct ecp_task *t);
	/* perf samples and the file mappings that place their addresses
	 * (ecp_sched:sample, ecp_sched:mmap); sample_lost counts dropped ones */
	int (*mapping)(void *user, uint64_t start, uint64_t len, uint64_t pgoff,
		       uint32_t prot, const char *path);
	int (*sample)(void *user, const struct ecp_sample *s, struct ecp_error *err);
	void (*sample_lost)(void *user, uint64_t count);
	/* called every 2^20 events when not NULL */
	void (*progress)(void *user, uint64_t events);
	/* The recording's clock anchors: ecp_sched:clock events are added to it,
	 * and function times in raw TSC (`tsc`, `total_tsc`) are converted
	 * through it (read the sched trace, which holds the anchors, first).
	 * NULL: a trace with raw TSC times is an error. */
	struct ecp_tsc_map *clock;
};

struct ecp_ctf_stats {
	uint64_t events;    /* event messages read (all providers we accept) */
	uint64_t discarded; /* from discarded-events messages */
	uint64_t discarded_packets;
	uint64_t first_discard_index; /* event index at the first loss */
	uint64_t other_process; /* events of other processes (forked children), skipped */
	/* babeltrace2 itself refused the trace (not our decoding of its
	 * events): 1 when opening it failed, 2 when decoding failed.  Then
	 * bt_cause holds babeltrace2's innermost cause, without its component
	 * and iterator addresses; the caller can find the damaged file
	 * (simulator/ctf/ctf-probe.h). */
	int bt_failed;
	char bt_cause[256];
};

/* Reads the trace whose `metadata` file is directly in `ctf_dir`.
 * `label` names the trace in error messages (e.g. "DIR/main"). */
int ecp_ctf_read(const char *ctf_dir, const char *label,
		 const struct ecp_ctf_callbacks *cb, void *user,
		 struct ecp_ctf_stats *stats, struct ecp_error *err);

/* Finds the directory below `root` that directly contains a `metadata`
 * file (depth-first, at most 8 levels).  *out is malloc'ed.  Returns
 * ECP_ERR with a message naming root when there is none. */
int ecp_ctf_find_metadata(const char *root, char **out, struct ecp_error *err);

#endif
