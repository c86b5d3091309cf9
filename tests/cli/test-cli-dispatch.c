/* SPDX-License-Identifier: MIT */
/* The subcommand table: lookup, typo suggestions, help and usage errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/commands.h"

static void test_every_documented_command_is_found(void **state)
{
	(void)state;
	const char *names[] = {"record",  "info", "report", "scan", "whatif",
			       "compare", "viz",  "export", "help"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct ecp_command *c = ecp_cli_command_find(names[i]);
		assert_non_null(c);
		assert_string_equal(c->name, names[i]);
		assert_non_null(c->run);
		assert_non_null(strstr(c->usage, "usage: ecp"));
	}
	assert_null(ecp_cli_command_find("reprot"));
	assert_null(ecp_cli_command_find(""));
}

static void test_typos_suggest_the_nearest_command(void **state)
{
	(void)state;
	struct {
		const char *typo, *want;
	} cases[] = {
	    {"reprot", "report"}, {"recrod", "record"},  {"scna", "scan"},
	    {"whatfi", "whatif"}, {"inf", "info"},       {"exprot", "export"},
	    {"vz", "viz"},        {"reports", "report"}, {"compre", "compare"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ecp_command *c = ecp_cli_command_suggest(cases[i].typo);
		assert_non_null(c);
		assert_string_equal(c->name, cases[i].want);
	}
}

static void test_unrelated_words_get_no_suggestion(void **state)
{
	(void)state;
	assert_null(ecp_cli_command_suggest("frobnicate"));
	assert_null(ecp_cli_command_suggest("x"));
	/* "compile" was here; two letters from "compare", it is a typo now */
	assert_null(ecp_cli_command_suggest("deploy"));
}

static void test_help_command_exit_codes(void **state)
{
	(void)state;
	char *ok[] = {"help", "report", NULL};
	assert_int_equal(cmd_help(2, ok), ECP_EXIT_OK);
	char *bad[] = {"help", "reprot", NULL};
	assert_int_equal(cmd_help(2, bad), ECP_EXIT_USAGE);
	char *many[] = {"help", "a", "b", NULL};
	assert_int_equal(cmd_help(3, many), ECP_EXIT_USAGE);
}

static void test_wants_help_stops_at_double_dash(void **state)
{
	(void)state;
	const struct ecp_command *rec = ecp_cli_command_find("record");
	char *after[] = {"record", "--", "prog", "--help", NULL};
	assert_int_equal(ecp_cli_wants_help(rec, 4, after), 0);
	char *before[] = {"record", "--help", "--", "prog", NULL};
	assert_int_equal(ecp_cli_wants_help(rec, 4, before), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_documented_command_is_found),
	    cmocka_unit_test(test_typos_suggest_the_nearest_command),
	    cmocka_unit_test(test_unrelated_words_get_no_suggestion),
	    cmocka_unit_test(test_help_command_exit_codes),
	    cmocka_unit_test(test_wants_help_stops_at_double_dash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
