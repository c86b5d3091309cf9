/* SPDX-License-Identifier: MIT */
#include "simulator/model/cache-pack.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A varint takes at most 10 bytes; a segment 13 of them. */
#define PACK_BUF     65536
#define PACK_MAX_REC 160

/* ----------------------------------------------------------------- write */

struct pack_out {
	FILE *f;
	struct ecp_csum *c;
	uint64_t bytes;
	size_t len;
	int failed;
	unsigned char buf[PACK_BUF];
};

static void out_flush(struct pack_out *o)
{
	if (!o->len)
		return;
	ecp_csum_add(o->c, o->buf, o->len);
	if (fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = 1;
	o->bytes += o->len;
	o->len = 0;
}

/* Room for one more record. */
static void out_room(struct pack_out *o)
{
	if (o->len > PACK_BUF - PACK_MAX_REC)
		out_flush(o);
}

static void put(struct pack_out *o, uint64_t v)
{
	while (v >= 0x80) {
		o->buf[o->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	o->buf[o->len++] = (unsigned char)v;
}

/* A difference modulo 2^64, small when either way round. */
static void put_diff(struct pack_out *o, uint64_t x, uint64_t pred)
{
	uint64_t d = x - pred;
	put(o, (d << 1) ^ (0 - (d >> 63)));
}

/* A writer on the heap: caches may be written on threads with small
 * stacks.  NULL (errno ENOMEM) when memory ran out. */
static struct pack_out *out_start(FILE *f, struct ecp_csum *c)
{
	struct pack_out *o = malloc(sizeof(*o));
	if (!o)
		return NULL;
	o->f = f;
	o->c = c;
	o->bytes = 0;
	o->len = 0;
	o->failed = 0;
	return o;
}

/* Flushes and frees o. */
static int out_end(struct pack_out *o, uint64_t *bytes)
{
	out_flush(o);
	*bytes = o->bytes;
	int rc = o->failed ? -1 : 0;
	free(o);
	return rc;
}

/* What the previous record of a table predicts for the next one (all zero
 * before the first). */
static const struct ecp_segment no_segment;

int ecp_pack_segments(FILE *f, struct ecp_csum *c, const struct ecp_segment *s,
		      uint32_t n, uint32_t n_edges, uint64_t *bytes)
{
	struct pack_out *o = out_start(f, c);
	if (!o)
		return -1;
	const struct ecp_segment *p = &no_segment;
	uint64_t p_in_end = 0;
	for (uint32_t i = 0; i < n; p = &s[i++]) {
		const struct ecp_segment *x = &s[i];
		out_room(o);
		put_diff(o, x->thread, p->thread);
		put(o, (uint32_t)(x->lock_acquire + 1)); /* ECP_NO_ID is 0 */
		put(o, (uint32_t)(x->lock_release + 1));
		/* two bytes once kept as padding, always 0 */
		put(o, x->acquire_mode | (uint64_t)x->delay_kind << 8);
		put(o, x->length);
		put(o, x->delay);
		/* a thread's CPU clock runs on through its segments; its next
		 * recorded start is soon after its last end */
		put_diff(o, x->cpu_start, p->cpu_start + p->length);
		put_diff(o, x->rec_start, p->rec_end);
		put_diff(o, x->rec_end - x->rec_start, x->length);
		/* the edges' count, which the segments no longer keep (model.h) */
		uint32_t in_end = i + 1 < n ? s[i + 1].first_in : n_edges;
		put_diff(o, x->first_in, p_in_end);
		put(o, in_end - x->first_in);
		p_in_end = in_end;
		put_diff(o, x->first_activity,
			 (uint64_t)p->first_activity + p->n_activity);
		put(o, x->n_activity);
	}
	return out_end(o, bytes);
}

int ecp_pack_edges(FILE *f, struct ecp_csum *c, const struct ecp_edge *e, uint32_t n,
		   uint64_t *bytes)
{
	struct pack_out *o = out_start(f, c);
	if (!o)
		return -1;
	uint64_t to = 0;
	for (uint32_t i = 0; i < n; i++) {
		out_room(o);
		/* sorted by target; a source is mostly just before it */
		put_diff(o, e[i].to, to);
		put_diff(o, e[i].from, e[i].to);
		put(o, e[i].kind);
		to = e[i].to;
	}
	return out_end(o, bytes);
}

int ecp_pack_activities(FILE *f, struct ecp_csum *c, const struct ecp_activity *a,
			uint64_t n, uint64_t *bytes)
{
	struct pack_out *o = out_start(f, c);
	if (!o)
		return -1;
	uint64_t function = 0;
	for (uint64_t i = 0; i < n; i++) {
		out_room(o);
		put_diff(o, a[i].function, function);
		put(o, a[i].calls);
		put(o, a[i].self_ns);
		put_diff(o, a[i].incl_ns, a[i].self_ns);
		function = a[i].function;
	}
	return out_end(o, bytes);
}

/* ------------------------------------------------------------------ read */

struct pack_in {
	int fd;
	struct ecp_csum *c;
	uint64_t rest; /* bytes of the table not yet read from fd */
	size_t pos, len;
	int bad;
	unsigned char buf[PACK_BUF];
};

static int in_refill(struct pack_in *in)
{
	size_t keep = in->len - in->pos;
	memmove(in->buf, in->buf + in->pos, keep);
	in->pos = 0;
	in->len = keep;
	size_t want = PACK_BUF - keep;
	if (want > in->rest)
		want = (size_t)in->rest;
	for (size_t got = 0; got < want;) {
		ssize_t r = read(in->fd, in->buf + keep + got, want - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	ecp_csum_add(in->c, in->buf + keep, want);
	in->len += want;
	in->rest -= want;
	return 0;
}

/* Room for one more record's bytes in the buffer (fewer at the table's
 * end: get() then finds it short). */
static void in_room(struct pack_in *in)
{
	if (in->len - in->pos < PACK_MAX_REC && in->rest && in_refill(in) < 0)
		in->bad = 1;
}

static uint64_t get(struct pack_in *in)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (in->pos == in->len) {
			in->bad = 1;
			return 0;
		}
		unsigned b = in->buf[in->pos++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	in->bad = 1;
	return 0;
}

static uint64_t get_diff(struct pack_in *in, uint64_t pred)
{
	uint64_t z = get(in);
	return pred + ((z >> 1) ^ (0 - (z & 1)));
}

/* A reader of the next `bytes` bytes of fd (NULL: past *left, or no
 * memory), on the heap: loads may run on threads with small stacks. */
static struct pack_in *in_start(int fd, struct ecp_csum *c, uint64_t *left,
				uint64_t bytes)
{
	if (bytes > *left)
		return NULL;
	struct pack_in *in = malloc(sizeof(*in));
	if (!in)
		return NULL;
	*left -= bytes;
	in->fd = fd;
	in->c = c;
	in->rest = bytes;
	in->pos = in->len = 0;
	in->bad = 0;
	return in;
}

/* Every byte of the table read, and used by its records; frees in. */
static int in_end(struct pack_in *in)
{
	int rc = in->bad || in->rest || in->pos != in->len ? -1 : 0;
	free(in);
	return rc;
}

int ecp_unpack_segments(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
			struct ecp_segment *dst, uint32_t n, uint32_t n_edges)
{
	struct pack_in *in = in_start(fd, c, left, bytes);
	if (!in)
		return bytes > *left ? -1 : -2;
	const struct ecp_segment *p = &no_segment;
	uint64_t p_in_end = 0;
	for (uint32_t i = 0; i < n && !in->bad; p = &dst[i++]) {
		struct ecp_segment *x = &dst[i];
		in_room(in);
		x->thread = (uint32_t)get_diff(in, p->thread);
		x->lock_acquire = (uint32_t)get(in) - 1;
		x->lock_release = (uint32_t)get(in) - 1;
		uint64_t bytes4 = get(in);
		/* what the fields hold, or the table is malformed */
		if (bytes4 & ~(uint64_t)0x7f01)
			in->bad = 1;
		x->acquire_mode = bytes4 & 1u;
		x->delay_kind = (bytes4 >> 8) & 0x7fu;
		x->length = get(in);
		x->delay = get(in);
		x->cpu_start = get_diff(in, p->cpu_start + p->length);
		x->rec_start = get_diff(in, p->rec_end);
		x->rec_end = x->rec_start + get_diff(in, x->length);
		/* each segment's edges begin where the previous one's end,
		 * which is how the model finds where they end (model.h), and
		 * the last's end with the edges */
		uint64_t first_in = get_diff(in, p_in_end);
		if (first_in != p_in_end)
			in->bad = 1;
		p_in_end = first_in + get(in);
		if (p_in_end > n_edges || (i + 1 == n && p_in_end != n_edges))
			in->bad = 1;
		x->first_in = (uint32_t)first_in;
		x->first_activity =
		    (uint32_t)get_diff(in, (uint64_t)p->first_activity + p->n_activity);
		uint64_t n_activity = get(in);
		if (n_activity > ECP_SEGMENT_MAX_ACTIVITIES)
			in->bad = 1;
		x->n_activity = (uint32_t)n_activity & ECP_SEGMENT_MAX_ACTIVITIES;
	}
	return in_end(in);
}

int ecp_unpack_edges(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
		     struct ecp_edge *dst, uint32_t n)
{
	struct pack_in *in = in_start(fd, c, left, bytes);
	if (!in)
		return bytes > *left ? -1 : -2;
	uint64_t to = 0;
	for (uint32_t i = 0; i < n && !in->bad; i++) {
		in_room(in);
		to = get_diff(in, to);
		dst[i].to = (uint32_t)to;
		dst[i].from = (uint32_t)get_diff(in, to);
		dst[i].kind = (uint32_t)get(in);
		to = dst[i].to;
	}
	return in_end(in);
}

int ecp_unpack_activities(int fd, struct ecp_csum *c, uint64_t *left, uint64_t bytes,
			  struct ecp_activity *dst, uint64_t n)
{
	struct pack_in *in = in_start(fd, c, left, bytes);
	if (!in)
		return bytes > *left ? -1 : -2;
	uint64_t function = 0;
	for (uint64_t i = 0; i < n && !in->bad; i++) {
		in_room(in);
		function = get_diff(in, function);
		dst[i].function = (uint32_t)function;
		dst[i].calls = (uint32_t)get(in);
		dst[i].self_ns = get(in);
		dst[i].incl_ns = get_diff(in, dst[i].self_ns);
		function = dst[i].function;
	}
	return in_end(in);
}
