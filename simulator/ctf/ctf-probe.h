/* SPDX-License-Identifier: MIT */
/* Which file of a CTF trace is damaged.
 *
 * babeltrace2 reads all the stream files of a trace together (through the
 * muxer), and its errors and crashes name no file.  To say which one is
 * damaged, each file is decoded alone, in a child process (a damaged file
 * can crash babeltrace2): first the metadata by itself, then each stream
 * file with the metadata, through symbolic links in a private temporary
 * directory.  The first that fails is the damaged one. */
#ifndef ECP_SIMULATOR_CTF_PROBE_H
#define ECP_SIMULATOR_CTF_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

struct ecp_ctf_damage {
	char file[4096]; /* ctf_dir/NAME of the damaged file */
	int is_metadata; /* the metadata itself cannot be read */
	int crashed;     /* babeltrace2 crashed on it (signal, when known) */
	int signal;
	uint64_t events; /* events decoded from it before it failed */
	char why[512];   /* babeltrace2's cause, or the crash */
};

/* Returns 1 and fills *out when a file of the trace whose `metadata` is in
 * ctf_dir fails alone; 0 when every file decodes alone; negative on a
 * system error (no temporary directory, no fork). */
int ecp_ctf_probe(const char *ctf_dir, struct ecp_ctf_damage *out, struct ecp_error *err);

#endif
