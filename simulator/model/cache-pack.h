/* SPDX-License-Identifier: MIT */
/* The model cache's packed tables (format 23, issue 35): segments, edges
 * and activities as varints of each field's difference from what the
 * previous record predicts (a thread's next segment starts where its last
 * one ended, activities and incoming edges follow each other), so that the
 * cache of a sync-heavy trace, two segments per three events, is smaller
 * than its CTF instead of 1.5x it: 80 + 24 bytes per segment in memory,
 * about 20 on disk.  Any value round-trips exactly (a difference is taken
 * modulo 2^64 and zigzagged): the prediction only decides how many bytes a
 * field takes. */
#ifndef ECP_SIMULATOR_CACHE_PACK_H
#define ECP_SIMULATOR_CACHE_PACK_H

#include <stdint.h>
#include <stdio.h>

#include "common/checksum.h"
#include "simulator/model/model.h"

/* Writes n records packed to f, summing the bytes written into c; *bytes
 * gets their count.  0, or -1 when a write failed.  A segment's record
 * holds its count of incoming edges, which the model finds from the next
 * one's (ecp_segment_n_in): n_edges ends the last. */
int ecp_pack_segments(FILE *f, struct ecp_csum *c, const struct ecp_segment *s,
		      uint32_t n, uint32_t n_edges, uint64_t *bytes);
int ecp_pack_edges(FILE *f, struct ecp_csum *c, const struct ecp_edge *e, uint32_t n,
		   uint64_t *bytes);
int ecp_pack_activities(FILE *f, struct ecp_csum *c, const struct ecp_activity *a,
			uint64_t n, uint64_t *bytes);

/* Reads exactly `bytes` bytes from fd (no more than *left, which it
 * lowers), summing them into c, and unpacks n records into dst (zeroed by
 * the caller).  0, -1 when the table is truncated, malformed or does not
 * end with its last record, -2 when memory ran out.  A record takes at
 * least ECP_PACKED_MIN_* bytes: a count above bytes / that is malformed
 * (checked before the records are allocated). */
#define ECP_PACKED_MIN_SEGMENT  13
#define ECP_PACKED_MIN_EDGE     3
#define ECP_PACKED_MIN_ACTIVITY 4
int ecp_unpack_segments(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
			struct ecp_segment *dst, uint32_t n, uint32_t n_edges);
int ecp_unpack_edges(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
		     struct ecp_edge *dst, uint32_t n);
int ecp_unpack_activities(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
			  struct ecp_activity *dst, uint64_t n);

#endif
