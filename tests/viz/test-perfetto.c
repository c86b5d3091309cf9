/* SPDX-License-Identifier: MIT */
/* The Perfetto writer's input checks and event order (the document's
 * structure is checked by check-perfetto.py with a real JSON parser). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "viz/perfetto.h"

static const char *threads[] = {"main", "worker"};
static const char *functions[] = {"main", "run", "</script>"};

static char *write_doc(const struct ecp_perfetto_input *in, int *rc,
		       struct ecp_error *err)
{
	/* Static: gcc's dangling-pointer analysis mistakes the stream's buffer
	 * for this function's local variable otherwise. */
	static char *data;
	static size_t len;
	FILE *f = open_memstream(&data, &len);
	*rc = ecp_perfetto_write(f, in, err);
	fclose(f);
	return data;
}

static void test_order_and_units(void **state)
{
	(void)state;
	/* Given out of order: worker's callee (seen by samples), worker's
	 * caller, main. */
	struct ecp_perfetto_slice s[] = {
	    {1, 2, 1500, 1750, 1, true, 1.0, true},
	    {1, 1, 1500, 3000, 0, true, 0.5, false},
	    {0, 0, 0, 4000, 0, false, 0, false},
	};
	struct ecp_perfetto_flow fl[] = {{0, 1000, 1, 1500, "create"}};
	struct ecp_perfetto_input in = {NULL,      NULL, 2, 2, threads, 3,
					functions, 3,    s, 1, fl};
	int rc;
	char *out = write_doc(&in, &rc, NULL);
	assert_int_equal(rc, ECP_OK);
	char *m = strstr(out, "\"name\":\"main\",\"cat\"");
	char *caller = strstr(out, "\"name\":\"run\"");
	char *callee = strstr(out, "\"name\":\"<\\/script>\"");
	assert_non_null(m);
	assert_non_null(caller);
	assert_non_null(callee);
	assert_true(m < caller && caller < callee);
	/* Microseconds with the nanoseconds kept. */
	assert_non_null(strstr(out, "\"ts\":1.5,\"dur\":1.5,"));
	assert_non_null(strstr(out, "\"ts\":1.5,\"dur\":0.25,"));
	assert_non_null(
	    strstr(out, "\"args\":{\"ecp\":true,\"weight\":0.5,\"depth\":0}"));
	/* only the sampled call says so */
	assert_non_null(strstr(
	    out, "\"args\":{\"ecp\":true,\"weight\":1,\"depth\":1,\"sampled\":true}"));
	assert_null(strstr(strstr(out, "\"sampled\"") + 1, "\"sampled\""));
	assert_non_null(strstr(out, "\"ph\":\"s\",\"name\":\"create\""));
	assert_non_null(strstr(out, "\"bp\":\"e\""));
	free(out);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct ecp_perfetto_slice s[] = {{0, 5, 0, 10, 0, false, 0, false}};
	struct ecp_perfetto_input in = {NULL,      NULL, 1, 2, threads, 3,
					functions, 1,    s, 0, NULL};
	struct ecp_error err = {0};
	int rc;
	free(write_doc(&in, &rc, &err));
	assert_int_equal(rc, ECP_ERR_USAGE);
	assert_non_null(strstr(err.msg, "function 5"));

	s[0].function = 0;
	s[0].end_ns = -1;
	free(write_doc(&in, &rc, &err));
	assert_int_equal(rc, ECP_ERR_USAGE);
	assert_non_null(strstr(err.msg, "ends before"));

	s[0].end_ns = 10;
	struct ecp_perfetto_flow fl = {0, 0, 9, 0, NULL};
	in.flow_count = 1;
	in.flows = &fl;
	free(write_doc(&in, &rc, &err));
	assert_int_equal(rc, ECP_ERR_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_units),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
