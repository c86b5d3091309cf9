/* SPDX-License-Identifier: MIT */
/* Running a step in a forked child process, so that a crash there (inside
 * babeltrace2, on a damaged trace) ends the child and not ecp.
 *
 * The child runs fn(user, msg, len) and exits with its return value (0..125)
 * through _exit(), so no atexit handler, stdio buffer or sanitizer leak
 * check of the parent's state runs twice.  What fn writes into msg comes
 * back to the parent through a pipe.  In the child the signals a crash
 * raises are reset to their default action first, so that a crash ends the
 * child by that signal even where a handler was installed (libFuzzer's,
 * a sanitizer's), and the parent can tell a crash from an error.  The child
 * dies with its parent (PR_SET_PDEATHSIG): an ecp killed while decoding
 * leaves no decoder spinning behind it. */
#ifndef ECP_SIMULATOR_CHILD_H
#define ECP_SIMULATOR_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define ECP_CHILD_MSG_MAX 2048

struct ecp_child_result {
	bool crashed;    /* killed by a signal, or exited with no message after
			  * a sanitizer caught a crash */
	int signal;      /* the signal, when known (0 otherwise) */
	int status;      /* fn's return value when it exited normally */
	bool timed_out;  /* killed after the time limit (crashed is false) */
	int interrupted; /* the signal that asked ecp to stop meanwhile: the
			  * child was killed; clean up, then ecp_child_reraise */
	char msg[ECP_CHILD_MSG_MAX]; /* what fn wrote, NUL-terminated */
};

/* Returns 0 with *res filled whatever happened in the child, or a negative
 * status when the child could not be started (fork or pipe failed). */
int ecp_child_run(int (*fn)(void *user, char *msg, size_t len), void *user,
		  struct ecp_child_result *res, struct ecp_error *err);
/* The same with a time limit (seconds; 0: none): a child still running
 * then is killed, and res->timed_out says so.  Damaged CTF metadata can
 * make babeltrace2 spin forever (2.0.4 does on 33 of 36 truncations). */
int ecp_child_run_limited(int (*fn)(void *user, char *msg, size_t len), void *user,
			  unsigned timeout_s, struct ecp_child_result *res,
			  struct ecp_error *err);

/* Lets `sig` take its default course (ends the process) once the caller
 * has cleaned up after an interrupted child. */
void ecp_child_reraise(int sig);

/* "SIGSEGV, a segmentation fault" and the like, for messages. */
const char *ecp_child_signal_name(int sig);

#endif
