/* SPDX-License-Identifier: MIT */
/* The recorded streams' manifest (issue 33): `ecp record` writes, once the
 * trace is complete, ecp-record.meta and every file under main/, sched/ and objects/ with
 * its size and checksum; an analysis that decodes the trace first checks the files
 * against it.  A stream that is missing, truncated, grown, changed or
 * foreign, or a file that is not a regular file, is an error naming the
 * file and what is wrong: one truncated scheduling stream once moved T4
 * from 566 ms to 885 ms without a word. */
#ifndef ECP_COMMON_MANIFEST_H
#define ECP_COMMON_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define ECP_MANIFEST_FILE "ecp-record.streams"

/* Writes DIR/ecp-record.streams from DIR/ecp-record.meta and the files under DIR/main,
 * DIR/sched and DIR/objects. */
int ecp_manifest_write(const char *dir, struct ecp_error *err);

/* Checks DIR/ecp-record.meta and the files under DIR/main, DIR/sched and DIR/objects
 * against the manifest.
 * *present is false (and ECP_OK returned) when there is none: a trace
 * recorded before manifests, which cannot be checked.  A copy in objects/
 * that differs only costs names, so it is a warning in `warn` (empty when
 * none), not an error; a file that is not a regular file is an error
 * anywhere (a FIFO there once hung the analysis). */
int ecp_manifest_check(const char *dir, bool *present, char *warn, size_t warn_len,
		       struct ecp_error *err);

#endif
