/* SPDX-License-Identifier: MIT */
/* Unit tests of the model cache's packed tables (simulator/model/
 * cache-pack.h, issue 35): every field of every record comes back exactly,
 * whatever its value (ECP_NO_ID, 2^64 - 1, a prediction far off either
 * way), over many buffer refills; a short, long or truncated table, or
 * segments whose edges do not end with the edges, is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/checksum.h"
#include "simulator/model/cache-pack.h"
#include "tests/support/xorshift.h"

#define N 100000u /* records: many 64 KiB buffers of them */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	return ecp_test_xorshift(&rng);
}

/* Mostly what a recording gives (small, growing), sometimes any value. */
static uint64_t value(uint64_t typical)
{
	switch (next() % 8) {
	case 0:
		return next();
	case 1:
		return UINT64_MAX - next() % 3;
	case 2:
		return 0;
	default:
		return typical + next() % 1000;
	}
}

/* The segments' incoming edges follow one another (model.h): their
 * total, which the packed segments end with. */
static uint32_t n_edges;

static void fill(struct ecp_segment *s, struct ecp_edge *e, struct ecp_activity *a)
{
	uint64_t t = 0;
	uint32_t in_pos = 0;
	for (uint32_t i = 0; i < N; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].thread = (uint32_t)(i / 1000 + (next() % 50 == 0 ? next() : 0));
		s[i].lock_acquire = next() % 3 ? ECP_NO_ID : (uint32_t)value(5);
		s[i].lock_release = next() % 3 ? ECP_NO_ID : (uint32_t)value(5);
		s[i].acquire_mode = (uint8_t)(next() % 2);
		s[i].delay_kind = (uint8_t)(next() % 67);
		s[i].length = value(500);
		s[i].delay = next() % 4 ? 0 : value(10000);
		s[i].cpu_start = value(t);
		s[i].rec_start = value(t + 100);
		s[i].rec_end = value(s[i].rec_start + s[i].length);
		s[i].first_in = in_pos;
		in_pos += next() % 1000 == 0 ? (uint32_t)(next() % (1u << 20))
					     : (uint32_t)(next() % 4);
		s[i].first_activity = value(i);
		s[i].n_activity = (uint32_t)(value(1) % (ECP_SEGMENT_MAX_ACTIVITIES + 1));
		t += 700;
		e[i].to = (uint32_t)value(i);
		e[i].from = (uint32_t)value(i);
		e[i].kind = (uint32_t)value(0);
		a[i].function = (uint32_t)value(3);
		a[i].calls = (uint32_t)value(0);
		a[i].self_ns = value(500);
		a[i].incl_ns = value(a[i].self_ns);
	}
	n_edges = in_pos;
}

struct packed {
	FILE *f;
	uint64_t bytes[3];
	uint64_t sum;
};

static void pack(struct packed *p, const struct ecp_segment *s, const struct ecp_edge *e,
		 const struct ecp_activity *a)
{
	p->f = tmpfile();
	assert_non_null(p->f);
	struct ecp_csum c = {0};
	assert_int_equal(ecp_pack_segments(p->f, &c, s, N, n_edges, &p->bytes[0]), 0);
	assert_int_equal(ecp_pack_edges(p->f, &c, e, N, &p->bytes[1]), 0);
	assert_int_equal(ecp_pack_activities(p->f, &c, a, N, &p->bytes[2]), 0);
	p->sum = ecp_csum_end(&c);
	assert_int_equal(fflush(p->f), 0);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct ecp_segment *s = calloc(N, sizeof(*s)), *s2 = calloc(N, sizeof(*s2));
	struct ecp_edge *e = calloc(N, sizeof(*e)), *e2 = calloc(N, sizeof(*e2));
	struct ecp_activity *a = calloc(N, sizeof(*a)), *a2 = calloc(N, sizeof(*a2));
	assert_true(s && s2 && e && e2 && a && a2);
	fill(s, e, a);
	struct packed p;
	pack(&p, s, e, a);
	int fd = fileno(p.f);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	uint64_t total = p.bytes[0] + p.bytes[1] + p.bytes[2], left = total;
	struct ecp_csum c = {0};
	assert_int_equal(ecp_unpack_segments(fd, &c, &left, p.bytes[0], s2, N, n_edges),
			 0);
	assert_int_equal(ecp_unpack_edges(fd, &c, &left, p.bytes[1], e2, N), 0);
	assert_int_equal(ecp_unpack_activities(fd, &c, &left, p.bytes[2], a2, N), 0);
	assert_int_equal(left, 0);
	assert_int_equal(ecp_csum_end(&c), p.sum);
	assert_memory_equal(s, s2, N * sizeof(*s));
	assert_memory_equal(e, e2, N * sizeof(*e));
	assert_memory_equal(a, a2, N * sizeof(*a));
	/* what a recording gives packs small: most segments take 13-20 bytes */
	assert_true(p.bytes[0] < N * sizeof(*s));

	/* one byte short, one byte too many, or more records than the bytes
	 * hold: refused */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	left = total;
	assert_int_equal(
	    ecp_unpack_segments(fd, &c, &left, p.bytes[0] - 1, s2, N, n_edges), -1);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	left = total;
	assert_int_equal(
	    ecp_unpack_segments(fd, &c, &left, p.bytes[0] + 1, s2, N, n_edges), -1);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	left = total;
	assert_int_equal(
	    ecp_unpack_segments(fd, &c, &left, p.bytes[0], s2, N - 1, n_edges), -1);
	/* edges that do not end where the model's do */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	left = total;
	assert_int_equal(
	    ecp_unpack_segments(fd, &c, &left, p.bytes[0], s2, N, n_edges - 1), -1);
	/* past what the file holds */
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	left = p.bytes[0] - 1;
	assert_int_equal(ecp_unpack_segments(fd, &c, &left, p.bytes[0], s2, N, n_edges),
			 -1);
	fclose(p.f);
	free(s), free(s2), free(e), free(e2), free(a), free(a2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
