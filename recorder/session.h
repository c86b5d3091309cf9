/* The LTTng side of `ecp record`: a session daemon to talk to and the
 * sessions that write the traces (liblttng-ctl). */
#ifndef ECP_RECORDER_SESSION_H
#define ECP_RECORDER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct ecp_lttng_daemon {
	pid_t pid;      /* the daemon we started, 0 when reusing one */
	char home[256]; /* private LTTNG_HOME (ordinary user), else "" */
};

/* Makes a session daemon available: as an ordinary user, a private one with
 * LTTNG_HOME set (in this process's environment, so the recorded program
 * inherits it) to a fresh directory; as root (whose daemons always use
 * /var/run/lttng), a new one in a private mount namespace, or where that is
 * refused, the running daemon if any, else a new one.  Call it while the
 * process is single-threaded. */
int ecp_lttng_daemon_start(struct ecp_lttng_daemon *d, struct ecp_error *err);
/* Stops the daemon if we started it and removes the private home. */
void ecp_lttng_daemon_stop(struct ecp_lttng_daemon *d);

struct ecp_lttng_session_config {
	const char *name;
	const char *output;        /* directory the trace is written to */
	const char *const *events; /* user-space event patterns, NULL-terminated */
	uint64_t subbuf_size;
	uint64_t num_subbuf;
	bool vtid_vpid; /* add the vtid and vpid contexts */
};

/* Creates the session with one blocking channel ("ecp", infinite blocking
 * timeout: the application waits rather than drop an event) and enables the
 * events.  The tracing starts with ecp_lttng_session_start. */
int ecp_lttng_session_create(const struct ecp_lttng_session_config *cfg,
			     struct ecp_error *err);
int ecp_lttng_session_start(const char *name, struct ecp_error *err);
/* Stops and waits until all data is written: the trace is then complete. */
int ecp_lttng_session_stop(const char *name, struct ecp_error *err);
/* Events discarded and packets lost, as the daemon counts them (the trace's
 * own counts, read by the reader, are the authority). */
int ecp_lttng_session_losses(const char *name, uint64_t *discarded,
			     uint64_t *lost_packets, struct ecp_error *err);
int ecp_lttng_session_destroy(const char *name, struct ecp_error *err);

#endif
