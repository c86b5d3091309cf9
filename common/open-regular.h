/* SPDX-License-Identifier: MIT */
/* Opening a file the analysis reads from a trace or names in it (an object's
 * copy, a library): read-only, and only a regular file.  A FIFO planted in
 * objects/ once hung the analysis on open(); O_NONBLOCK opens it at once
 * and fstat refuses it.  `nofollow`: also refuse a symbolic link (a copy in
 * the trace is never one; a library path may be). */
#ifndef ECP_COMMON_OPEN_REGULAR_H
#define ECP_COMMON_OPEN_REGULAR_H

#include <stdbool.h>

/* The file descriptor, or -1 with errno set (EINVAL: not a regular file). */
int ecp_open_regular(const char *path, bool nofollow);

#endif
