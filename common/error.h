/* SPDX-License-Identifier: MIT */
/* Error values that carry context up the call chain.
 *
 * Library code never exits: it fills an ecp_error and returns a negative
 * status.  Callers add context on the way up ("failed to read trace: path=..."),
 * and only the CLI prints the chain and chooses the exit code. */
#ifndef ECP_COMMON_ERROR_H
#define ECP_COMMON_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#define ECP_ERROR_MAX 1024

enum ecp_status {
	ECP_OK = 0,
	ECP_ERR = -1,       /* analysis failed: bad trace, bad model */
	ECP_ERR_USAGE = -2, /* the caller asked for something malformed */
	ECP_ERR_NOMEM = -3,
	ECP_ERR_IO = -4,
	ECP_ERR_DECODER_CRASH = -5, /* a library decoding the trace crashed (in a
				     * child process); the message names the file */
};

struct ecp_error {
	int status;
	char msg[ECP_ERROR_MAX];
};

/* Set the innermost message (replaces any previous one). */
int ecp_error_set(struct ecp_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix context to an existing message: "context: previous". */
int ecp_error_prefix(struct ecp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

bool ecp_error_is_set(const struct ecp_error *err);

#endif
