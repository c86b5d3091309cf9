/* SPDX-License-Identifier: MIT */
/* The LTTng side of `ecp record`: a session daemon to talk to and the
 * sessions that write the traces (liblttng-ctl). */
#ifndef ECP_RECORDER_LTTNG_SESSION_H
#define ECP_RECORDER_LTTNG_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct ecp_lttng_daemon {
	pid_t pid;        /* the daemon we started */
	char home[256];   /* the state directory $TMPDIR/ecp-lttng-XXXXXX (the
			     private LTTNG_HOME of an ordinary user), else "" */
	bool private_run; /* its run directory is ours alone (LTTNG_HOME, or
			     root's in a private mount namespace) */
};

/* Files of the state directory: the pid of the `ecp record` that owns it,
 * and (as root, where the daemon's own pid file is in the private mount
 * namespace) the daemon's pid. */
#define ECP_STATE_OWNER_FILE  "ecp-record.pid"
#define ECP_STATE_DAEMON_FILE "sessiond.pid"

/* Makes a private session daemon available, after cleaning up what a
 * killed recording left (ecp_lttng_clean_stale): as an ordinary user with
 * LTTNG_HOME set (in this process's environment, so the recorded program
 * inherits it) to the state directory, the `tracing` group ignored; as root
 * (whose daemons always use /var/run/lttng) in a private mount namespace,
 * or where that is refused, a new daemon only if no other runs (never a
 * daemon shared with others: refused with a message).  Call it while the
 * process is single-threaded. */
int ecp_lttng_daemon_start(struct ecp_lttng_daemon *d, struct ecp_error *err);
/* Stops the daemon and removes the state directory.  Call it once every
 * session is stopped with its data written, or its trace thrown away: a
 * daemon whose run directory is private is killed, with its consumer
 * daemons, without destroying the sessions (the traces are whole). */
void ecp_lttng_daemon_stop(struct ecp_lttng_daemon *d);
/* Stops the daemons and removes the state directories of recordings whose
 * `ecp record` no longer runs (SIGKILL leaves them). */
void ecp_lttng_clean_stale(void);

/* How long a traced thread waits on a full buffer before its event is
 * discarded (and the recording refused as lossy): long enough for a consumer
 * starved on a busy machine, short enough that a consumer which stopped for
 * good (a full filesystem) costs the program one wait, not its life. */
#define ECP_BLOCKING_TIMEOUT_US 10000000

struct ecp_lttng_session_config {
	const char *name;
	const char *output;        /* directory the trace is written to */
	const char *const *events; /* user-space event patterns, NULL-terminated */
	uint64_t subbuf_size;
	uint64_t num_subbuf;
	bool vtid_vpid; /* add the vtid and vpid contexts */
	/* Every this many microseconds the consumer asks for the session's
	 * new metadata (its metadata channel's switch timer); 0: LTTng's
	 * default, metadata pushed only when the program unregisters and
	 * at the stop (lttng-session.c says why it matters). */
	uint32_t metadata_pull_us;
	/* Only this process records into the session (a process ID tracker):
	 * no other program joins it, maps its buffers or has its metadata
	 * pushed when it exits. */
	bool this_process_only;
	/* A snapshot session: the consumer never reads its buffers (nothing
	 * is written unless a snapshot is taken, and none is), nor waits for
	 * its metadata.  For a session whose trace is thrown away. */
	bool unread;
};

/* Creates the session with one blocking channel ("ecp", infinite blocking
 * timeout: the application waits rather than drop an event) and enables the
 * events.  The tracing starts with ecp_lttng_session_start. */
int ecp_lttng_session_create(const struct ecp_lttng_session_config *cfg,
			     struct ecp_error *err);
int ecp_lttng_session_start(const char *name, struct ecp_error *err);
/* Stops and waits until all data is written: the trace is then complete. */
int ecp_lttng_session_stop(const char *name, struct ecp_error *err);
/* Disables the session's events (the patterns it was created with),
 * which stops them being recorded without stopping the session: for a
 * throw-away session whose metadata must never be pushed to the consumer
 * (a stop does, and lttng-consumerd 2.13 may sleep 200 ms on it;
 * lttng-session.c).  The session ends with its daemon. */
int ecp_lttng_session_disable(const char *name, const char *const *events,
			      struct ecp_error *err);
/* Stops recording now, without waiting for the data to be written out
 * (what is in the buffers is lost with the session). */
void ecp_lttng_session_stop_no_wait(const char *name);
/* Events discarded and packets lost, as the daemon counts them (the trace's
 * own counts, read by the reader, are the authority). */
int ecp_lttng_session_losses(const char *name, uint64_t *discarded,
			     uint64_t *lost_packets, struct ecp_error *err);
int ecp_lttng_session_destroy(const char *name, struct ecp_error *err);

#endif
