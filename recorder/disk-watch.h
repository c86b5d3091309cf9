/* SPDX-License-Identifier: MIT */
/* The output's free space, watched while the program runs.
 *
 * LTTng's channels block (nothing is discarded), so a consumer that cannot
 * write leaves the program's threads waiting in their tracepoints forever:
 * a full output filesystem once hung the recorded program.  The recording
 * therefore stops while the filesystem still holds everything LTTng's
 * buffers can contain, and the program runs on, unrecorded, to its own
 * end. */
#ifndef ECP_RECORDER_DISK_WATCH_H
#define ECP_RECORDER_DISK_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

struct ecp_disk_watch {
	int dir_fd;          /* the output directory (held open, locked) */
	uint64_t buffers;    /* what LTTng's buffers hold at most */
	uint64_t reserve;    /* bytes that must stay free: buffers and a margin */
	uint64_t stopped_ns; /* CLOCK_MONOTONIC when it stopped; 0: recording */
	uint64_t free_at_stop;
	uint64_t last_written, last_ns; /* the previous look: the trace's bytes */
	double fill_rate; /* bytes per ns the trace grew at, the fastest seen */
	const char *sessions[2];
};

/* Free bytes for an unprivileged writer on fd's filesystem (UINT64_MAX
 * when unknown: nothing is stopped on a guess). */
uint64_t ecp_disk_free(int fd);

/* Sets the watch up: `buffer_bytes` is what LTTng's buffers hold at most
 * (every session, every CPU).  Refuses (ECP_ERR_IO naming `path` and
 * both figures) when the filesystem has too little room to start. */
int ecp_disk_watch_init(struct ecp_disk_watch *w, int dir_fd, const char *path,
			uint64_t buffer_bytes, const char *session_main,
			const char *session_sched, struct ecp_error *err);

/* One look: below the reserve, stops both sessions (without waiting),
 * empties the partial trace's stream files (it is removed at the end) and
 * returns true, once; after that, empties them again whenever the space
 * runs low, until the program ends. */
bool ecp_disk_watch_check(struct ecp_disk_watch *w, uint64_t now_ns);

#endif
