/* SPDX-License-Identifier: MIT */
/* A perf_event_open ring buffer, mapped by the driver and drained record by
 * record.  perf-switch.c (context switches) and perf-sample.c (samples) each
 * own one. */
#ifndef ECP_RECORDER_PERF_RING_H
#define ECP_RECORDER_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "common/error.h"

struct ecp_perf_ring {
	int fd;
	unsigned char *base;
	size_t map_len;
	size_t data_size; /* power of two */
};

/* Maps `pages` data pages (a power of two) of `fd`, taking ownership of fd
 * (closed on failure too).  When the kernel refuses that much locked memory
 * (an unprivileged user's perf_event_mlock_kb and RLIMIT_MEMLOCK), halves
 * it down to min_pages before giving up; r->data_size tells what it got. */
int ecp_perf_ring_map(struct ecp_perf_ring *r, int fd, size_t pages, size_t min_pages,
		      const char *what, struct ecp_error *err);
/* Hands every complete record to `handle`, in order, then frees the space.
 * A record that wraps around the end of the buffer is handed as a copy. */
void ecp_perf_ring_drain(struct ecp_perf_ring *r,
			 void (*handle)(void *ctx, const struct perf_event_header *h),
			 void *ctx);
/* The same, stopping after about max_bytes (at a record's end); true when
 * records are left.  Frees what it handed, so the kernel can write on. */
bool ecp_perf_ring_drain_some(struct ecp_perf_ring *r,
			      void (*handle)(void *ctx,
					     const struct perf_event_header *h),
			      void *ctx, size_t max_bytes);
/* Drains several rings at once (one per CPU, each in its own time order),
 * handing their records merged by `time_of` (ties in ring order): a
 * thread that moved between CPUs, or made a process there, is seen in the
 * order it happened, not ring by ring.  Records the merge cannot hold
 * (out of memory) are handed ring by ring instead. */
void ecp_perf_rings_drain_merged(struct ecp_perf_ring *rings, size_t n,
				 uint64_t (*time_of)(const struct perf_event_header *h),
				 void (*handle)(void *ctx,
						const struct perf_event_header *h),
				 void *ctx);
/* The same, about max_bytes in all (split between the rings); true when
 * records are left. */
bool ecp_perf_rings_drain_merged_some(
    struct ecp_perf_ring *rings, size_t n,
    uint64_t (*time_of)(const struct perf_event_header *h),
    void (*handle)(void *ctx, const struct perf_event_header *h), void *ctx,
    size_t max_bytes);
void ecp_perf_ring_close(struct ecp_perf_ring *r);
/* One ring per CPU (`record --cpus`): maps the n fds as ecp_perf_ring_map
 * does, taking ownership of all of them (on a failure every one is closed,
 * the rest unmapped); *held is how many rings the caller must look at. */
int ecp_perf_rings_map(struct ecp_perf_ring *rings, const int *fds, size_t n,
		       size_t pages, size_t min_pages, const char *what, size_t *held,
		       struct ecp_error *err);
/* Whether a ring is mapped (or a descriptor still open). */
bool ecp_perf_rings_open(const struct ecp_perf_ring *rings, size_t n);
/* At the end: drain(ctx) once when a ring is mapped, then every ring closed. */
void ecp_perf_rings_finish(struct ecp_perf_ring *rings, size_t n,
			   void (*drain)(void *ctx), void *ctx);
/* At the end of a recording: drains what is left (when mapped), then closes. */
void ecp_perf_ring_finish(struct ecp_perf_ring *r,
			  void (*handle)(void *ctx, const struct perf_event_header *h),
			  void *ctx);
/* The count of a PERF_RECORD_LOST record (0 for a truncated one). */
uint64_t ecp_perf_lost_count(const struct perf_event_header *h);

#endif
