/* SPDX-License-Identifier: MIT */
/* Function records in batches (issue 35): the agent appends each thread's
 * function entries, exits and unwound frames to a byte buffer of its own
 * and writes the buffer as one `ecp:func_batch` event when it fills or
 * before any other event of the thread; the reader decodes each batch into
 * the func_entry / func_exit / func_unwound events it hands the builder.
 * recorder/EVENTS.md gives the layout:
 *
 *     batch   := format(1 byte, ECP_BATCH_FORMAT) record*
 *     record  := tag  zz(tsc - prev.tsc)
 *                [zz(addr - prev.addr)]       unless tag & ECP_BATCH_SAME_ADDR
 *                [zz(site - prev_entry.site)] entries, unless tag & ECP_BATCH_SAME_SITE
 *     tag     := kind (bits 0-1: 0 entry, 1 exit, 2 unwound) | flags (bits 2-3)
 *
 * zz(d): the difference modulo 2^64 as a signed number, zig-zag mapped
 * (0, -1, 1, -2... to 0, 1, 2, 3...) and written as unsigned LEB128 (7
 * bits a byte, least significant first, high bit set on all but the
 * last).  Every batch starts from tsc = addr = site = 0, so that each one
 * decodes alone.  In the trace the bytes travel COBS-encoded (the format of
 * common/cobs.h, which the reader decodes with) as a CTF string, which
 * babeltrace2 reads in bulk.
 *
 * The format is defined here once, for both sides, and the header depends
 * on nothing of ours (the agent includes nothing of ecp's: docs/DESIGN.md).
 * The encoder is inline and allocation-free (it runs in the agent's
 * function hooks, in the recorded program); the decoder (the reader's) is
 * bounded and refuses anything that is not exactly a sequence of whole
 * records.  recorder-func-batch tests both. */
#ifndef ECP_RECORDER_AGENT_FUNC_BATCH_H
#define ECP_RECORDER_AGENT_FUNC_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define ECP_BATCH_FORMAT 1u
/* Raw bytes of one batch: a few hundred records (3 to 10 bytes each). */
#define ECP_BATCH_BYTES 4096u
/* The longest record: a tag and three LEB128 numbers of 10 bytes. */
#define ECP_BATCH_RECORD_MAX 31u

enum ecp_batch_kind { ECP_BATCH_ENTRY = 0, ECP_BATCH_EXIT = 1, ECP_BATCH_UNWOUND = 2 };
#define ECP_BATCH_KIND_MASK 3u
#define ECP_BATCH_SAME_ADDR 4u /* addr = the previous record's */
#define ECP_BATCH_SAME_SITE 8u /* call site = the previous entry's */

struct ecp_batch {
	uint32_t used;            /* bytes in buf; 0: empty (no format byte yet) */
	uint32_t n;               /* records */
	uint64_t tsc, addr, site; /* the previous record's (site: entry's) */
	unsigned char buf[ECP_BATCH_BYTES];
};

#define ECP_BATCH_FN     __attribute__((no_instrument_function, always_inline)) static inline
#define ECP_BATCH_STATIC __attribute__((no_instrument_function, unused)) static

ECP_BATCH_FN unsigned char *ecp_batch_leb(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

ECP_BATCH_FN uint64_t ecp_batch_zz(uint64_t now, uint64_t prev)
{
	uint64_t d = now - prev;
	return (d << 1) ^ (uint64_t) - (int64_t)(d >> 63);
}

/* Appends a record; returns nonzero when the batch is full (the caller
 * writes it out and calls ecp_batch_reset before the next record). */
ECP_BATCH_FN int ecp_batch_put(struct ecp_batch *b, unsigned kind, uint64_t tsc,
			       uint64_t addr, uint64_t site)
{
	if (!b->used) {
		b->buf[0] = (unsigned char)ECP_BATCH_FORMAT;
		b->used = 1;
		b->tsc = b->addr = b->site = 0;
	}
	unsigned char *p = b->buf + b->used, *tag = p++;
	unsigned t = kind;
	p = ecp_batch_leb(p, ecp_batch_zz(tsc, b->tsc));
	b->tsc = tsc;
	if (addr == b->addr)
		t |= ECP_BATCH_SAME_ADDR;
	else
		p = ecp_batch_leb(p, ecp_batch_zz(addr, b->addr));
	b->addr = addr;
	if (kind == ECP_BATCH_ENTRY) {
		if (site == b->site)
			t |= ECP_BATCH_SAME_SITE;
		else
			p = ecp_batch_leb(p, ecp_batch_zz(site, b->site));
		b->site = site;
	}
	*tag = (unsigned char)t;
	b->used = (uint32_t)(p - b->buf);
	b->n++;
	return b->used > ECP_BATCH_BYTES - ECP_BATCH_RECORD_MAX;
}

ECP_BATCH_FN void ecp_batch_reset(struct ecp_batch *b)
{
	b->used = 0;
	b->n = 0;
}

/* The most bytes ecp_batch_cobs writes for a batch, its NUL included. */
#define ECP_BATCH_COBS_MAX (ECP_BATCH_BYTES + ECP_BATCH_BYTES / 254 + 2)

/* The batch's bytes COBS-encoded into dst (ECP_BATCH_COBS_MAX bytes),
 * NUL-terminated, as common/cobs.c's ecp_cobs_encode writes them (the
 * agent links none of ecp's code); returns the length without the NUL. */
ECP_BATCH_STATIC size_t ecp_batch_cobs(const struct ecp_batch *b, char *dst)
{
	unsigned char *out = (unsigned char *)dst;
	size_t code_at = 0, o = 1;
	unsigned code = 1;
	for (size_t i = 0; i < b->used; i++) {
		unsigned char c = b->buf[i];
		if (c) {
			out[o++] = c;
			code++;
		}
		if (!c || code == 0xFF) {
			out[code_at] = (unsigned char)code;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = (unsigned char)code;
	out[o] = 0;
	return o;
}

/* One decoded record. */
struct ecp_batch_record {
	unsigned kind;            /* enum ecp_batch_kind */
	uint64_t tsc, addr, site; /* site: entries only (0 otherwise) */
};

/* Reading a batch record by record. */
struct ecp_batch_reader {
	const unsigned char *p, *end;
	uint64_t tsc, addr, site;
	uint64_t n; /* records read */
};

/* An unsigned LEB128 number of at most 64 bits (10 bytes). */
ECP_BATCH_STATIC int ecp_batch_read_leb(struct ecp_batch_reader *r, uint64_t *out,
					const char **why)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		if (r->p == r->end) {
			*why = "a record is cut short (truncated batch)";
			return -1;
		}
		unsigned char c = *r->p++;
		if (shift == 63 && (c & 0x7e)) {
			*why = "a number is over 64 bits";
			return -1;
		}
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		if (shift == 63) {
			*why = "a number is longer than 10 bytes";
			return -1;
		}
	}
	*out = v;
	return 0;
}

ECP_BATCH_STATIC uint64_t ecp_batch_unzz(uint64_t prev, uint64_t z)
{
	return prev + ((z >> 1) ^ (uint64_t) - (int64_t)(z & 1));
}

/* Starts reading the raw (COBS-decoded) bytes of a batch; returns 0, or
 * -1 with *why set when it does not start with a known format byte. */
ECP_BATCH_STATIC int ecp_batch_reader_init(struct ecp_batch_reader *r, const void *buf,
					   size_t len, const char **why)
{
	const unsigned char *p = buf;
	*r = (struct ecp_batch_reader){.p = p, .end = p + len};
	if (!len || p[0] != ECP_BATCH_FORMAT) {
		*why = len ? "unknown batch format (a newer recorder?)" : "empty batch";
		return -1;
	}
	r->p++;
	return 0;
}

/* The next record: 1 one read, 0 the batch ended cleanly, -1 with *why set
 * when the bytes are not a whole record (truncated, an unknown kind or
 * flag, a number longer than 10 bytes or over 64 bits). */
ECP_BATCH_STATIC int ecp_batch_next(struct ecp_batch_reader *r,
				    struct ecp_batch_record *rec, const char **why)
{
	uint64_t z;
	if (r->p == r->end)
		return 0;
	unsigned tag = *r->p++;
	unsigned kind = tag & ECP_BATCH_KIND_MASK;
	if (kind > ECP_BATCH_UNWOUND || (tag & ~0xfu) ||
	    (kind != ECP_BATCH_ENTRY && (tag & ECP_BATCH_SAME_SITE))) {
		*why = "a record has an unknown tag";
		return -1;
	}
	if (ecp_batch_read_leb(r, &z, why) < 0)
		return -1;
	r->tsc = ecp_batch_unzz(r->tsc, z);
	if (!(tag & ECP_BATCH_SAME_ADDR)) {
		if (ecp_batch_read_leb(r, &z, why) < 0)
			return -1;
		r->addr = ecp_batch_unzz(r->addr, z);
	}
	rec->kind = kind;
	rec->tsc = r->tsc;
	rec->addr = r->addr;
	rec->site = 0;
	if (kind == ECP_BATCH_ENTRY) {
		if (!(tag & ECP_BATCH_SAME_SITE)) {
			if (ecp_batch_read_leb(r, &z, why) < 0)
				return -1;
			r->site = ecp_batch_unzz(r->site, z);
		}
		rec->site = r->site;
	}
	r->n++;
	return 1;
}

#endif
