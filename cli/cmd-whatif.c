/* SPDX-License-Identifier: MIT */
/* ecp whatif: the paper's "pseudo-optimized" simulation (its Sec. 7): the
 * named functions' time (inclusive by default, exclusive with --self)
 * shrinks by PCT percent in every segment,
 * the program is simulated again (lock hand-offs re-decided), and the run
 * times are compared with the baseline for every P. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers/sweep.h"
#include "answers/whatif.h"
#include "cli/commands.h"
#include "cli/linux-t1.h"
#include "cli/progress.h"
#include "cli/session.h"
#include "common/parse.h"
#include "simulator/model/function-match.h"
#include "simulator/replay/replay.h"

#define MAX_CHANGES 64

struct whatif_options {
	struct ecp_cli_common common;
	unsigned *processors;
	size_t n_processors;
	char *names[MAX_CHANGES];
	char found[MAX_CHANGES][160]; /* what each name found (describe_match) */
	double pcts[MAX_CHANGES];
	size_t n_changes;
	enum ecp_sched_model sched;
	enum ecp_whatif_scope scope;
};

static void options_finish(struct whatif_options *o)
{
	for (size_t i = 0; i < o->n_changes; i++)
		free(o->names[i]);
	free(o->processors);
}

static int parse_options(int argc, char **argv, struct whatif_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"faster", required_argument, NULL, 'F'},
	    {"sched", required_argument, NULL, ECP_OPT_SCHED},
	    {"self", no_argument, NULL, 'S'},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	const char *list = "1-16";
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("whatif", argc, argv, "P:h", longopts)) != -1) {
		struct ecp_error err = {0};
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			list = optarg;
			break;
		case 'S':
			o->scope = ECP_WHATIF_EXCLUSIVE;
			break;
		case ECP_OPT_SCHED:
			if ((rc = ecp_cli_parse_sched("whatif", optarg, &o->sched)))
				return rc;
			break;
		case 'F':
			if (o->n_changes == MAX_CHANGES)
				return ecp_cli_usage_error(
				    "whatif", "at most %d --faster options", MAX_CHANGES);
			if (ecp_parse_name_pct(optarg, &o->names[o->n_changes],
					       &o->pcts[o->n_changes], &err) < 0)
				return ecp_cli_usage_error("whatif", "%s", err.msg);
			for (size_t i = 0; i < o->n_changes; i++)
				if (!strcmp(o->names[i], o->names[o->n_changes])) {
					free(o->names[o->n_changes]);
					return ecp_cli_usage_error(
					    "whatif", "--faster names '%s' twice",
					    o->names[i]);
				}
			o->n_changes++;
			break;
		default:
			if ((rc = ecp_cli_common_option("whatif", &o->common, opt, optarg,
							ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = ecp_cli_trace_operand("whatif", &o->common, argc, argv)))
		return rc;
	if (o->n_changes == 0)
		return ecp_cli_usage_error("whatif",
					   "say what is faster: --faster NAME=PCT");
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(list, ECP_CLI_MAX_PROCESSORS, &o->processors,
				&o->n_processors, &err) < 0)
		return ecp_cli_usage_error("whatif", "%s", err.msg);
	return 0;
}

/* What a name found (simulator/model/function-match.h), said where the answer
 * is printed: "parse" is "ns::Lexer::parse(char const*) const". */
static void describe_match(const struct ecp_model *m, const struct ecp_function_match *fm,
			   char *buf, size_t size)
{
	if (fm->kind == ECP_MATCH_GLOB)
		snprintf(buf, size, "%zu function%s", fm->n, fm->n == 1 ? "" : "s");
	else
		snprintf(buf, size, "%s", m->functions[fm->ids[0]].name);
}

/* Every name must find a function of the trace: a typo must not silently
 * predict "no gain", and a name that fits several must not pick one.
 * Returns the changes (one per function found) in *out, *n_out. */
static int resolve_changes(struct whatif_options *o, const struct ecp_model *m,
			   struct ecp_whatif_change **out, size_t *n_out)
{
	size_t n = 0, cap = 0;
	struct ecp_whatif_change *changes = NULL;
	for (size_t i = 0; i < o->n_changes; i++) {
		struct ecp_function_match fm;
		if (ecp_match_functions(m, o->names[i], &fm) < 0) {
			free(changes);
			return ecp_cli_fail("whatif", "out of memory");
		}
		if (fm.kind == ECP_MATCH_NONE) {
			const char *near[5];
			size_t k = ecp_cli_near_functions(m, o->names[i], near, 5);
			fprintf(stderr, "ecp whatif: error: no function '%s' in %s",
				o->names[i], o->common.trace_dir);
			for (size_t j = 0; j < k; j++)
				fprintf(stderr, "%s'%s'",
					j ? ", " : "; near matches: ", near[j]);
			fputc('\n', stderr);
			ecp_function_match_free(&fm);
			free(changes);
			return ECP_EXIT_FAILED;
		}
		if (fm.kind == ECP_MATCH_AMBIGUOUS) {
			fprintf(stderr,
				"ecp whatif: error: '%s' fits %zu functions of %s:",
				o->names[i], fm.n, o->common.trace_dir);
			for (size_t j = 0; j < fm.n && j < 8; j++)
				fprintf(stderr, "\n  %s", m->functions[fm.ids[j]].name);
			fprintf(
			    stderr,
			    "%s\ngive more of the name, or a glob ('*%s*') for all of "
			    "them\n",
			    fm.n > 8 ? "\n  ..." : "", o->names[i]);
			ecp_function_match_free(&fm);
			free(changes);
			return ECP_EXIT_FAILED;
		}
		describe_match(m, &fm, o->found[i], sizeof(o->found[i]));
		for (size_t j = 0; j < fm.n; j++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				struct ecp_whatif_change *p =
				    realloc(changes, cap * sizeof(*p));
				if (!p) {
					ecp_function_match_free(&fm);
					free(changes);
					return ecp_cli_fail("whatif", "out of memory");
				}
				changes = p;
			}
			/* a function two names found is made faster once, by the
			 * first */
			bool dup = false;
			for (size_t k = 0; k < n && !dup; k++)
				dup = changes[k].function == fm.ids[j];
			if (dup)
				continue;
			changes[n].function = fm.ids[j];
			changes[n].faster_pct = o->pcts[i];
			changes[n].scope = o->scope;
			n++;
		}
		ecp_function_match_free(&fm);
	}
	*out = changes;
	*n_out = n;
	return 0;
}

/* The Linux-like model's T_1 against the ideal one (cli/linux-t1.h), at
 * P = 1 whether or not it was asked for: its overstatement holds at every
 * P.  Returns 0, or -1 with *err set. */
static int check_linux_t1(const struct whatif_options *o, const struct ecp_cli_session *s,
			  const struct ecp_whatif_runs *runs, struct ecp_error *err)
{
	uint64_t linux_t1 = 0, ideal_t1 = 0;
	size_t i = 0;
	while (i < o->n_processors && o->processors[i] != 1)
		i++;
	if (i < o->n_processors && i < runs->n) {
		linux_t1 = runs->base[i].makespan;
	} else {
		unsigned one = 1;
		if (ecp_answer_sched_makespans(&s->dag, ECP_SCHED_LINUX, &one, 1,
					       &linux_t1, err) < 0)
			return -1;
	}
	if (ecp_replay_t1(&s->dag, &ideal_t1, err) < 0)
		return -1;
	ecp_cli_check_linux_t1("whatif", linux_t1, ideal_t1);
	return 0;
}

int cmd_whatif(int argc, char **argv)
{
	struct whatif_options o = {0};
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		options_finish(&o);
		return rc;
	}
	struct ecp_cli_session s;
	o.common.max_processors = ecp_cli_max_of(o.processors, o.n_processors);
	if ((rc = ecp_cli_session_open("whatif", &o.common, &s))) {
		options_finish(&o);
		return rc;
	}
	struct ecp_whatif_change *changes = NULL;
	size_t n_changes = 0;
	struct ecp_whatif_runs runs = {0};
	struct ecp_error err = {0};
	if ((rc = resolve_changes(&o, s.model, &changes, &n_changes)))
		goto out;
	struct ecp_progress line;
	ecp_cli_progress_init(&line, "whatif");
	struct ecp_answer_progress hooks = ecp_cli_progress_hooks(&line);
	if (ecp_whatif_runs_make(s.model, &s.dag, changes, n_changes, o.common.lock_order,
				 o.sched, o.processors, o.n_processors, &hooks, &runs,
				 &err) < 0) {
		rc = ecp_cli_fail("whatif", "%s", err.msg);
		goto out;
	}
	if (o.sched == ECP_SCHED_LINUX && check_linux_t1(&o, &s, &runs, &err) < 0) {
		rc = ecp_cli_fail("whatif", "%s", err.msg);
		goto out;
	}
	struct ecp_whatif_asked asked[MAX_CHANGES];
	for (size_t i = 0; i < o.n_changes; i++)
		asked[i] = (struct ecp_whatif_asked){o.names[i], o.found[i], o.pcts[i]};
	struct ecp_whatif_answer answer = {
	    .trace_dir = o.common.trace_dir,
	    .sched = o.sched,
	    .scope = o.scope,
	    .processors = o.processors,
	    .runs = &runs,
	    .asked = asked,
	    .n_asked = o.n_changes,
	    .model = s.model,
	    .consistency = &s.consistency,
	};
	if (ecp_whatif_write(stdout, o.common.format, &answer, &err) < 0)
		rc = ecp_cli_fail("whatif", "%s", err.msg);
out:
	ecp_whatif_runs_finish(&runs);
	free(changes);
	ecp_cli_session_close(&s);
	options_finish(&o);
	return rc;
}
