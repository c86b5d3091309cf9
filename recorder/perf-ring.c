#include "recorder/perf-ring.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
