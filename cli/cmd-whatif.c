/* SPDX-License-Identifier: MIT */
/* ecp whatif: the paper's "pseudo-optimized" simulation (its Sec. 7): the
 * named functions' time (inclusive by default, exclusive with --self)
 * shrinks by PCT percent in every segment,
 * the program is simulated again (lock hand-offs re-decided), and the run
 * times are compared with the baseline for every P. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "answers/consistency-json.h"
#include "cli/consistency.h"
#include "cli/progress.h"
#include "cli/session.h"
#include "common/parse.h"
#include "common/units.h"
#include "ecp/whatif.h"
#include "simulator/model/function-match.h"
#include "simulator/replay/replay.h"
#include "viz/csv.h"
#include "viz/json.h"
#include "viz/table.h"

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

static int sweep(const char *what, const struct ecp_dag *dag,
		 const struct whatif_options *o, struct ecp_replay *out)
{
	struct ecp_error err = {0};
	struct ecp_progress progress;
	ecp_cli_progress_init(&progress, "whatif");
	int rc = 0;
	if (o->sched == ECP_SCHED_IDEAL) {
		if (ecp_replay_sweep(dag, o->processors, o->n_processors, 0, out, &err) <
		    0)
			rc = ecp_cli_fail("whatif", "simulating the %s run: %s", what,
					  err.msg);
		return rc;
	}
	for (size_t i = 0; i < o->n_processors && !rc; i++) {
		ecp_cli_progress_update(&progress,
					"simulating the %s run at P=%u (%zu of %zu)",
					what, o->processors[i], i + 1, o->n_processors);
		if (ecp_replay_model_run(dag, o->sched, o->processors[i], 0, &out[i],
					 &err) < 0) {
			ecp_cli_progress_done(&progress);
			rc = ecp_cli_fail("whatif", "simulating the %s run at P=%u: %s",
					  what, o->processors[i], err.msg);
		}
	}
	ecp_cli_progress_done(&progress);
	return rc;
}

static void write_json(const struct whatif_options *o, const struct ecp_replay *base,
		       const struct ecp_replay *what, const struct ecp_consistency *cons)
{
	struct ecp_json_writer w;
	ecp_json_init(&w, stdout, ECP_JSON_PRETTY);
	ecp_json_begin_object(&w);
	ecp_json_kv_string(&w, "trace", o->common.trace_dir);
	ecp_json_kv_string(&w, "sched_model", ecp_sched_model_name(o->sched));
	ecp_json_key(&w, "processors");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < o->n_processors; i++)
		ecp_json_uint(&w, o->processors[i]);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "baseline_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < o->n_processors; i++)
		ecp_json_uint(&w, base[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "whatif_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < o->n_processors; i++)
		ecp_json_uint(&w, what[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "gain_ns");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < o->n_processors; i++)
		ecp_json_int(&w, (int64_t)base[i].makespan - (int64_t)what[i].makespan);
	ecp_json_end_array(&w);
	ecp_json_key(&w, "changes");
	ecp_json_begin_array(&w);
	for (size_t i = 0; i < o->n_changes; i++) {
		ecp_json_begin_object(&w);
		ecp_json_kv_string(&w, "name", o->names[i]);
		ecp_json_kv_string(&w, "found", o->found[i]);
		ecp_json_kv_double(&w, "faster_pct", o->pcts[i]);
		ecp_json_kv_string(&w, "scope", ecp_whatif_scope_name(o->scope));
		ecp_json_end_object(&w);
	}
	ecp_json_end_array(&w);
	ecp_answer_consistency_json(&w, cons);
	ecp_json_end_object(&w);
	struct ecp_error err = {0};
	if (ecp_json_finish(&w, &err) < 0)
		fprintf(stderr, "ecp whatif: %s\n", err.msg);
}

static void write_csv(const struct whatif_options *o, const struct ecp_replay *base,
		      const struct ecp_replay *what)
{
	struct ecp_csv_writer w;
	ecp_csv_init(&w, stdout);
	ecp_csv_string(&w, "processors");
	ecp_csv_string(&w, "baseline_ns");
	ecp_csv_string(&w, "whatif_ns");
	ecp_csv_string(&w, "gain_ns");
	ecp_csv_end_row(&w);
	for (size_t i = 0; i < o->n_processors; i++) {
		ecp_csv_uint(&w, o->processors[i]);
		ecp_csv_uint(&w, base[i].makespan);
		ecp_csv_uint(&w, what[i].makespan);
		ecp_csv_int(&w, (int64_t)base[i].makespan - (int64_t)what[i].makespan);
		ecp_csv_end_row(&w);
	}
	struct ecp_error err = {0};
	if (ecp_csv_finish(&w, &err) < 0)
		fprintf(stderr, "ecp whatif: %s\n", err.msg);
}

static int write_table(const struct whatif_options *o, const struct ecp_replay *base,
		       const struct ecp_replay *what)
{
	printf("trace %s: what if", o->common.trace_dir);
	for (size_t i = 0; i < o->n_changes; i++)
		printf("%s %s%s%s%s were %g%% faster", i ? "," : "", o->names[i],
		       strcmp(o->names[i], o->found[i]) ? " (" : "",
		       strcmp(o->names[i], o->found[i]) ? o->found[i] : "",
		       strcmp(o->names[i], o->found[i]) ? ")" : "", o->pcts[i]);
	printf("\n%s\n",
	       o->scope == ECP_WHATIF_EXCLUSIVE
		   ? "scope: exclusive (--self): only the time the functions execute "
		     "themselves is shortened, not their callees'"
		   : "scope: inclusive: the functions with their callees are shortened "
		     "(--self: their own time only)");
	if (o->sched != ECP_SCHED_IDEAL)
		printf("run times from the %s scheduler model, not the paper's ideal "
		       "sharing\n",
		       ecp_sched_model_name(o->sched));
	printf("\n");
	struct ecp_table *t = ecp_table_create(5);
	if (!t)
		return ecp_cli_fail("whatif", "out of memory");
	ecp_table_set_column(t, 0, "P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 1, "baseline T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 2, "what-if T_P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 3, "gain", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	ecp_table_set_column(t, 4, "gain %", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t i = 0; i < o->n_processors; i++) {
		double gain = (double)base[i].makespan - (double)what[i].makespan;
		ecp_table_add_row(t);
		ecp_table_cell_uint(t, 0, o->processors[i]);
		ecp_table_cell_ns(t, 1, (double)base[i].makespan);
		ecp_table_cell_ns(t, 2, (double)what[i].makespan);
		ecp_table_cell_ns(t, 3, gain);
		ecp_table_cell_printf(
		    t, 4, "%.2f",
		    base[i].makespan ? 100.0 * gain / (double)base[i].makespan : 0.0);
	}
	struct ecp_error err = {0};
	int rc = ecp_table_write(stdout, t, 0, &err);
	ecp_table_destroy(t);
	if (rc < 0)
		return ecp_cli_fail("whatif", "%s", err.msg);
	return ECP_EXIT_OK;
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
	struct ecp_replay *base = calloc(o.n_processors, sizeof(*base));
	struct ecp_replay *what = calloc(o.n_processors, sizeof(*what));
	uint64_t *lengths = NULL;
	struct ecp_dag faster_dag;
	bool faster_ready = false;
	struct ecp_error err = {0};
	if (!base || !what) {
		rc = ecp_cli_fail("whatif", "out of memory");
		goto out;
	}
	if ((rc = resolve_changes(&o, s.model, &changes, &n_changes)))
		goto out;
	if (ecp_whatif_lengths(s.model, changes, n_changes, &lengths, &err) < 0) {
		rc = ecp_cli_fail("whatif", "%s", err.msg);
		goto out;
	}
	if (ecp_dag_build(s.model, lengths, o.common.lock_order, &faster_dag, &err) < 0) {
		rc = ecp_cli_fail("whatif", "cannot simulate the faster program: %s",
				  err.msg);
		goto out;
	}
	faster_ready = true;
	if ((rc = sweep("baseline", &s.dag, &o, base)) ||
	    (rc = sweep("what-if", &faster_dag, &o, what)))
		goto out;
	if (o.common.format == ECP_FORMAT_JSON)
		write_json(&o, base, what, &s.consistency);
	else if (o.common.format == ECP_FORMAT_CSV)
		write_csv(&o, base, what);
	else
		rc = write_table(&o, base, what);
out:
	for (size_t i = 0; base && what && i < o.n_processors; i++) {
		ecp_replay_finish(&base[i]);
		ecp_replay_finish(&what[i]);
	}
	free(base);
	free(what);
	free(lengths);
	free(changes);
	if (faster_ready)
		ecp_dag_finish(&faster_dag);
	ecp_cli_session_close(&s);
	options_finish(&o);
	return rc;
}
