/* SPDX-License-Identifier: MIT */
#include "recorder/perf-ring.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/vec.h"

int ecp_perf_ring_map(struct ecp_perf_ring *r, int fd, size_t pages, size_t min_pages,
		      const char *what, struct ecp_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	r->fd = fd;
	for (;; pages /= 2) {
		r->data_size = pages * page;
		r->map_len = r->data_size + page;
		r->base =
		    mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (r->base != MAP_FAILED || pages / 2 < min_pages ||
		    (errno != EPERM && errno != ENOMEM))
			break;
	}
	if (r->base == MAP_FAILED) {
		int e = errno;
		r->base = NULL;
		close(fd);
		r->fd = -1;
		return ecp_error_set(err, ECP_ERR_IO,
				     "cannot map the perf ring buffer of %s: %s", what,
				     strerror(e));
	}
	return ECP_OK;
}

bool ecp_perf_ring_drain_some(struct ecp_perf_ring *r,
			      void (*handle)(void *ctx,
					     const struct perf_event_header *h),
			      void *ctx, size_t max_bytes)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	unsigned char *data;
	uint64_t head, tail;
	/* the largest record the kernel writes is below 64 KiB (u16 size) */
	static union {
		struct perf_event_header h;
		unsigned char bytes[65536];
	} copy;

	if (!r->base)
		return false;
	data = r->base + meta->data_offset;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	uint64_t stop = max_bytes < head - tail ? tail + max_bytes : head;
	bool corrupt = false;
	while (tail < stop) {
		size_t off = (size_t)(tail & (r->data_size - 1));
		const struct perf_event_header *h = (const void *)(data + off);
		size_t size;
		if (off + sizeof(*h) > r->data_size) {
			size_t first = r->data_size - off;
			memcpy(copy.bytes, data + off, first);
			memcpy(copy.bytes + first, data, sizeof(*h) - first);
			h = &copy.h;
		}
		size = h->size;
		if (size < sizeof(*h)) {
			corrupt = true; /* stop rather than loop */
			break;
		}
		if (off + size > r->data_size) {
			size_t first = r->data_size - off;
			memcpy(copy.bytes, data + off, first);
			memcpy(copy.bytes + first, data, size - first);
			h = &copy.h;
		}
		handle(ctx, h);
		tail += size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	return !corrupt && tail < head;
}

void ecp_perf_ring_drain(struct ecp_perf_ring *r,
			 void (*handle)(void *ctx, const struct perf_event_header *h),
			 void *ctx)
{
	ecp_perf_ring_drain_some(r, handle, ctx, SIZE_MAX);
}

/* The records of one merged drain, copied out of their rings. */
struct merge {
	struct ecp_vec bytes; /* the records, back to back */
	struct ecp_vec keys;  /* struct merge_key */
	uint64_t (*time_of)(const struct perf_event_header *h);
	uint32_t ring;
	bool failed;
};

struct merge_key {
	uint64_t time;
	uint32_t ring;
	uint32_t seq; /* order within the ring: qsort is not stable */
	size_t offset;
};

static void collect(void *ctx, const struct perf_event_header *h)
{
	struct merge *m = ctx;
	size_t at = m->bytes.len;
	if (m->failed || ecp_vec_reserve(&m->bytes, at + h->size) < 0) {
		m->failed = true;
		return;
	}
	struct merge_key *k = ecp_vec_push(&m->keys);
	if (!k) {
		m->failed = true;
		return;
	}
	memcpy((unsigned char *)m->bytes.data + at, h, h->size);
	m->bytes.len = at + h->size;
	*k = (struct merge_key){m->time_of(h), m->ring, (uint32_t)m->keys.len, at};
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct merge_key *a = pa, *b = pb;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->ring != b->ring)
		return a->ring < b->ring ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void ecp_perf_rings_drain_merged(struct ecp_perf_ring *rings, size_t n,
				 uint64_t (*time_of)(const struct perf_event_header *h),
				 void (*handle)(void *ctx,
						const struct perf_event_header *h),
				 void *ctx)
{
	ecp_perf_rings_drain_merged_some(rings, n, time_of, handle, ctx, SIZE_MAX);
}

bool ecp_perf_rings_drain_merged_some(
    struct ecp_perf_ring *rings, size_t n,
    uint64_t (*time_of)(const struct perf_event_header *h),
    void (*handle)(void *ctx, const struct perf_event_header *h), void *ctx,
    size_t max_bytes)
{
	if (n == 1)
		return ecp_perf_ring_drain_some(&rings[0], handle, ctx, max_bytes);
	size_t share = max_bytes == SIZE_MAX ? SIZE_MAX : max_bytes / n + 1;
	bool left = false;
	struct merge m = {.time_of = time_of};
	ecp_vec_init(&m.bytes, 1);
	ecp_vec_init(&m.keys, sizeof(struct merge_key));
	/* each ring up to its head now, so what one CPU wrote after another
	 * was read waits for the next drain -- as perf's own rounds do */
	for (size_t i = 0; i < n && !m.failed; i++) {
		m.ring = (uint32_t)i;
		left |= ecp_perf_ring_drain_some(&rings[i], collect, &m, share);
	}
	if (!m.failed) {
		/* nothing drained: no array to sort (qsort wants one) */
		if (m.keys.len)
			qsort(m.keys.data, m.keys.len, sizeof(struct merge_key), cmp_key);
		for (size_t i = 0; i < m.keys.len; i++) {
			const struct merge_key *k =
			    &ECP_VEC_AT(&m.keys, struct merge_key, i);
			handle(ctx,
			       (const void *)((unsigned char *)m.bytes.data + k->offset));
		}
	} else {
		/* what was collected is lost with the memory that failed: at
		 * least the rest goes on, ring by ring, and the losses show in
		 * the model's consistency check */
		for (size_t i = 0; i < n; i++)
			left |= ecp_perf_ring_drain_some(&rings[i], handle, ctx, share);
	}
	ecp_vec_finish(&m.bytes);
	ecp_vec_finish(&m.keys);
	return left;
}

int ecp_perf_rings_map(struct ecp_perf_ring *rings, const int *fds, size_t n,
		       size_t pages, size_t min_pages, const char *what, size_t *held,
		       struct ecp_error *err)
{
	int rc = ECP_OK;
	for (size_t i = 0; i < n; i++) {
		rings[i] = (struct ecp_perf_ring){.fd = -1};
		if (rc == ECP_OK)
			rc = ecp_perf_ring_map(&rings[i], fds[i], pages, min_pages, what,
					       err);
		else
			close(fds[i]);
	}
	*held = n;
	if (rc != ECP_OK)
		for (size_t i = 0; i < n; i++)
			ecp_perf_ring_close(&rings[i]);
	return rc;
}

bool ecp_perf_rings_open(const struct ecp_perf_ring *rings, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rings[i].base || rings[i].fd >= 0)
			return true;
	return false;
}

void ecp_perf_rings_finish(struct ecp_perf_ring *rings, size_t n,
			   void (*drain)(void *ctx), void *ctx)
{
	bool mapped = false;
	for (size_t i = 0; i < n; i++)
		mapped |= rings[i].base != NULL;
	if (mapped)
		drain(ctx);
	for (size_t i = 0; i < n; i++)
		ecp_perf_ring_close(&rings[i]);
}

void ecp_perf_ring_close(struct ecp_perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void ecp_perf_ring_finish(struct ecp_perf_ring *r,
			  void (*handle)(void *ctx, const struct perf_event_header *h),
			  void *ctx)
{
	if (r->base)
		ecp_perf_ring_drain(r, handle, ctx);
	ecp_perf_ring_close(r);
}

uint64_t ecp_perf_lost_count(const struct perf_event_header *h)
{
	uint64_t id_lost[2]; /* the event id, then the count */
	if (h->size < sizeof(*h) + sizeof(id_lost))
		return 0;
	memcpy(id_lost, h + 1, sizeof(id_lost));
	return id_lost[1];
}
