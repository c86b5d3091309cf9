/* SPDX-License-Identifier: MIT */
#include "simulator/trace/trace.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/manifest.h"
#include "common/open-regular.h"
#include "common/parse.h"
#include "common/record-meta.h"
#include "simulator/trace/builder.h"
#include "simulator/model/cache.h"
#include "simulator/ctf/child.h"
#include "simulator/ctf/ctf-probe.h"
#include "simulator/model/model-internal.h"
#include "simulator/trace/build-advice.h"
#include "simulator/ctf/reader-ctf.h"
#include "simulator/symbols/sampler.h"
#include "simulator/symbols/symbols.h"

struct meta {
	int format;
	enum ecp_clock_source clock;
	char clock_name[32];
	uint64_t event_cost_ns;
	uint64_t event_cost_ps;       /* 0: not written (older traces): event_cost_ns */
	uint64_t other_event_cost_ps; /* 0: not written (older traces): event_cost_ps */
	uint64_t sample_cost_ns;
	uint64_t switch_cost_ps;        /* 0: not written (older traces) */
	uint64_t thread_create_cost_ps; /* 0: not written (older traces) */
	uint64_t program_cpu_ns;
	uint64_t wall_ns;
	uint64_t steal_ns, steal_tick_ns; /* 0: none seen, or not recorded */
	uint64_t other_cpu_ns, other_cpu_resolution_ns; /* 0: none, or not recorded */
	uint64_t calls_too_deep; /* not recorded: deeper than the agent's stack */
	uint64_t as_cpus;        /* the CPUs the program was shown */
	uint64_t cpus;           /* the CPUs it ran on (absent: 1) */
	uint64_t cpu_count_read; /* 1: it asked how many it has */
	/* the kernel's stops of the sampler (recorder/perf-throttle.h), the
	 * rate used and its ceiling at the end; 0: none, or older traces */
	uint64_t samples_throttled, sample_hz, sample_rate_max;
	bool functions;
	bool manifest;             /* the recorder wrote ecp-record.streams */
	char stream_warning[1024]; /* what the manifest check found in objects/ */
	char *command;
};

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* The numeric keys the reader uses, and where each goes. */
static uint64_t *meta_number(struct meta *m, int key)
{
	switch (key) {
	case ECP_META_EVENT_COST_NS:
		return &m->event_cost_ns;
	case ECP_META_EVENT_COST_PS:
		return &m->event_cost_ps;
	case ECP_META_OTHER_EVENT_COST_PS:
		return &m->other_event_cost_ps;
	case ECP_META_SAMPLE_COST_NS:
		return &m->sample_cost_ns;
	case ECP_META_SWITCH_COST_PS:
		return &m->switch_cost_ps;
	case ECP_META_THREAD_CREATE_COST_PS:
		return &m->thread_create_cost_ps;
	case ECP_META_PROGRAM_CPU_NS:
		return &m->program_cpu_ns;
	case ECP_META_WALL_NS:
		return &m->wall_ns;
	case ECP_META_STEAL_NS:
		return &m->steal_ns;
	case ECP_META_STEAL_TICK_NS:
		return &m->steal_tick_ns;
	case ECP_META_OTHER_CPU_NS:
		return &m->other_cpu_ns;
	case ECP_META_OTHER_CPU_RESOLUTION_NS:
		return &m->other_cpu_resolution_ns;
	case ECP_META_CALLS_TOO_DEEP:
		return &m->calls_too_deep;
	case ECP_META_AS_CPUS:
		return &m->as_cpus;
	case ECP_META_CPUS:
		return &m->cpus;
	case ECP_META_CPU_COUNT_READ:
		return &m->cpu_count_read;
	case ECP_META_SAMPLES_THROTTLED:
		return &m->samples_throttled;
	case ECP_META_SAMPLE_HZ:
		return &m->sample_hz;
	case ECP_META_SAMPLE_RATE_MAX:
		return &m->sample_rate_max;
	default:
		return NULL;
	}
}

/* What a well-formed value of a kind looks like, for the error. */
static const char *kind_wanted(enum ecp_meta_kind kind)
{
	switch (kind) {
	case ECP_META_UINT:
		return "a whole number";
	case ECP_META_BOOL:
		return "0 or 1";
	case ECP_META_EXIT:
		return "an exit status (N or signal:N)";
	default:
		return "text";
	}
}

/* Keys seen so far, to refuse a second one: an edited or concatenated
 * file whose last value silently won once changed the answer. */
#define META_KEYS_MAX 64
struct meta_seen {
	char *keys[META_KEYS_MAX];
	unsigned n;
};

static bool meta_seen_add(struct meta_seen *seen, const char *key)
{
	for (unsigned i = 0; i < seen->n; i++)
		if (!strcmp(seen->keys[i], key))
			return false;
	if (seen->n < META_KEYS_MAX && (seen->keys[seen->n] = strdup(key)))
		seen->n++;
	return true;
}

/* ecp-record.meta, strictly: every line key=value, no key twice, every
 * value the reader uses well-formed; a problem is an error naming the line
 * and the key (a value read as 0 once made a trace answer wrongly).  Keys
 * it does not use are skipped (a newer recorder may add some). */
static int read_meta(const char *dir, struct meta *m, struct ecp_error *err)
{
	char path[PATH_MAX];
	memset(m, 0, sizeof(*m));
	m->functions = true;
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_META_FILE);
	/* a regular file only: a FIFO there would block the open */
	int fd = ecp_open_regular(path, false);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f && fd >= 0)
		close(fd);
	if (!f && errno == EINVAL)
		return ecp_error_set(
		    err, ECP_ERR, "trace=%s: ecp-record.meta is not a regular file", dir);
	if (!f)
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: missing metadata file ecp-record.meta (%s): not "
		    "a trace written by 'ecp record'",
		    dir, strerror(errno));
	char *line = NULL;
	size_t cap = 0;
	int rc = ECP_OK;
	bool have_format = false, have_clock = false;
	unsigned lineno = 0;
	struct meta_seen seen = {0};
	while (rc == ECP_OK && getline(&line, &cap, f) > 0) {
		lineno++;
		chomp(line);
		if (!*line)
			continue;
		char *eq = strchr(line, '=');
		if (!eq || eq == line) {
			rc = ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: ecp-record.meta line %u is not key=value: "
			    "'%.60s'",
			    dir, lineno, line);
			break;
		}
		*eq = '\0';
		const char *key = line, *val = eq + 1;
		/* every key this ecp knows is checked, used or not (the
		 * catalogue, common/record-meta.h); a newer recorder's are
		 * skipped */
		int id = ecp_meta_key_find(key);
		uint64_t *num = id >= 0 ? meta_number(m, id) : NULL;
		if (!meta_seen_add(&seen, key)) {
			rc = ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: ecp-record.meta line %u: key '%s' given "
			    "twice",
			    dir, lineno, key);
		} else if (id >= 0 && !ecp_meta_value_ok(id, val)) {
			rc = ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: ecp-record.meta line %u: %s='%.40s' "
			    "is not %s",
			    dir, lineno, key, val, kind_wanted(ecp_meta_key_kind(id)));
		} else if (num) {
			ecp_parse_u64(val, num);
		} else if (id == ECP_META_FORMAT) {
			uint64_t v = 0;
			ecp_parse_u64(val, &v);
			m->format = v > 1000 ? 1000 : (int)v;
			have_format = true;
		} else if (id == ECP_META_CLOCK) {
			snprintf(m->clock_name, sizeof(m->clock_name), "%s", val);
			have_clock = true;
		} else if (id == ECP_META_FUNCTIONS) {
			m->functions = strcmp(val, "0") != 0;
		} else if (id == ECP_META_MANIFEST) {
			m->manifest = !strcmp(val, "1");
		} else if (id == ECP_META_COMMAND) {
			free(m->command);
			m->command = strdup(val);
		}
	}
	for (unsigned i = 0; i < seen.n; i++)
		free(seen.keys[i]);
	free(line);
	fclose(f);
	if (rc < 0)
		return rc;
	if (!have_format || m->format != 1)
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: ecp-record.meta has %s format %d; this ecp reads "
		    "format 1",
		    dir, have_format ? "trace" : "no", m->format);
	if (!have_clock || (strcmp(m->clock_name, "perf-switch") &&
			    strcmp(m->clock_name, "thread-cputime")))
		return ecp_error_set(
		    err, ECP_ERR, "trace=%s: ecp-record.meta: unknown clock source '%s'",
		    dir, m->clock_name);
	m->clock = strcmp(m->clock_name, "perf-switch") ? ECP_CLOCK_THREAD_CPUTIME
							: ECP_CLOCK_PERF_SWITCH;
	if (!m->event_cost_ps)
		m->event_cost_ps = m->event_cost_ns * 1000u;
	if (!m->other_event_cost_ps)
		m->other_event_cost_ps = m->event_cost_ps;
	return ECP_OK;
}

/* ------------------------------------------------------------ CTF reading */

struct comm {
	uint64_t tid;
	char name[16];
};

struct load_ctx {
	const char *dir;
	struct ecp_builder *b;
	struct ecp_symbols *syms;
	struct comm *comms;
	size_t n_comms, cap_comms;
	bool progress;
	uint64_t base_events;
	struct ecp_sampler *sampler; /* created at the first mapping */
	bool ignore_samples;
	bool own_code;
	uint64_t samples_lost;
};

static int on_event(void *user, const struct ecp_event *ev, struct ecp_error *err)
{
	struct load_ctx *c = user;
	return ecp_builder_push(c->b, ev, err);
}

static int on_object(void *user, uint64_t baddr, uint64_t memsz, const char *path)
{
	struct load_ctx *c = user;
	/* A trace carries copies of the recorded program's objects (objects/),
	 * so it resolves on another machine or after a rebuild; the copy is the
	 * exact binary that ran, so it is preferred over the file at `path`. */
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path;
	if (base && *base) {
		char copy[4096];
		int n = snprintf(copy, sizeof(copy), "%s/objects/%s", c->dir, base);
		if (n > 0 && (size_t)n < sizeof(copy) && access(copy, R_OK) == 0)
			return ecp_symbols_add_object_copy(c->syms, baddr, memsz, path,
							   copy);
	}
	return ecp_symbols_add_object(c->syms, baddr, memsz, path);
}

static int on_mapping(void *user, uint64_t start, uint64_t len, uint64_t pgoff,
		      uint32_t prot, const char *path)
{
	struct load_ctx *c = user;
	if (!c->sampler &&
	    !(c->sampler = ecp_sampler_create(c->dir, c->syms, c->own_code)))
		return ECP_ERR_NOMEM;
	return ecp_sampler_mapping(c->sampler, start, len, pgoff, prot, path);
}

static int on_sample(void *user, const struct ecp_sample *smp, struct ecp_error *err)
{
	struct load_ctx *c = user;
	uint64_t funcs[128], sites[128];
	/* its cost is the recorder's whether or not it splits time */
	int rc = ecp_builder_count_sample(c->b, smp->tid, smp->ts, err);
	if (rc < 0 || c->ignore_samples)
		return rc;
	/* a child process's sample carries nothing but its cost (its stack is
	 * another address space's): neither unwound nor counted as failing */
	if (!smp->n_regs && !smp->n_chain && !smp->n_stack)
		return ECP_OK;
	if (!c->sampler &&
	    !(c->sampler = ecp_sampler_create(c->dir, c->syms, c->own_code)))
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	uint32_t n = ecp_sampler_frames(c->sampler, smp, funcs, sites, 128);
	/* the stack is decoded as far as the unwinder read it: damage there is
	 * a damaged trace, as a malformed array is to the reader */
	if (smp->stack_cobs && smp->stack_cobs->bad)
		return ecp_error_set(err, ECP_ERR,
				     "trace=%s: sample event #%llu is malformed (its "
				     "stack is not in COBS, or longer than %u words)",
				     c->dir, (unsigned long long)smp->index,
				     ECP_SAMPLE_MAX_STACK);
	if (!n)
		return ECP_OK; /* the recorder's own time: calibrated, subtracted */
	return ecp_builder_push_sample(c->b, smp->tid, smp->ts, funcs, sites, n, err);
}

static void on_sample_lost(void *user, uint64_t count)
{
	struct load_ctx *c = user;
	c->samples_lost += count;
}

static int on_comm(void *user, uint64_t tid, const char *name)
{
	struct load_ctx *c = user;
	if (c->n_comms == c->cap_comms) {
		size_t cap = c->cap_comms ? c->cap_comms * 2 : 16;
		struct comm *p = realloc(c->comms, cap * sizeof(*p));
		if (!p)
			return ECP_ERR_NOMEM;
		c->comms = p;
		c->cap_comms = cap;
	}
	c->comms[c->n_comms].tid = tid;
	snprintf(c->comms[c->n_comms].name, sizeof(c->comms[0].name), "%s", name);
	c->n_comms++;
	if (ecp_builder_note_comm(c->b, tid, name) < 0)
		return ECP_ERR_NOMEM;
	return ECP_OK;
}

static int on_registered(void *user, uint64_t tid, uint64_t ts)
{
	struct load_ctx *c = user;
	return ecp_builder_note_registered(c->b, tid, ts) < 0 ? ECP_ERR_NOMEM : ECP_OK;
}

static int on_task(void *user, const struct ecp_task *t)
{
	struct load_ctx *c = user;
	return ecp_builder_push_task(c->b, t) < 0 ? ECP_ERR_NOMEM : ECP_OK;
}

static void on_progress(void *user, uint64_t events)
{
	struct load_ctx *c = user;
	if (c->progress)
		fprintf(stderr, "\recp: reading trace: %.1f M events",
			(double)(c->base_events + events) / 1e6);
}

/* babeltrace2 refused the trace in ctf_dir: say which file is damaged
 * (decoded alone, in child processes) instead of its generic cause. */
static int explain_damage(const char *label, const char *ctf_dir,
			  const struct ecp_ctf_stats *st, struct ecp_error *err)
{
	struct ecp_ctf_damage d;
	struct ecp_error perr = {0};
	int found = ecp_ctf_probe(ctf_dir, &d, &perr);
	if (found < 0)
		return ecp_error_prefix(err, "(the damaged file could not be found: %s)",
					perr.msg);
	if (found == 0)
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: babeltrace2 cannot %s the trace (%s), although "
		    "each of its files decodes alone",
		    ctf_dir, st->bt_failed == 1 ? "open" : "decode",
		    st->bt_cause[0] ? st->bt_cause : "no cause given");
	if (d.is_metadata)
		return ecp_error_set(
		    err, ECP_ERR, "trace=%s: damaged or foreign CTF metadata in %s: %s",
		    label, d.file, d.why);
	return ecp_error_set(
	    err, ECP_ERR,
	    "trace=%s: the stream file %s is damaged (at its event #%llu): %s; "
	    "re-record the program",
	    label, d.file, (unsigned long long)d.events, d.why);
}

/* babeltrace2 ended a stream at damaged data and called it a success:
 * the analysis goes on, with a warning that names the file. */
static int warn_stopped_early(struct ecp_model *m, const char *dir, const char *part,
			      const struct ecp_ctf_stats *st, bool probe,
			      struct ecp_error *err)
{
	if (st->bt_failed != 3)
		return ECP_OK;
	char path[PATH_MAX], *ctf = NULL;
	struct ecp_ctf_damage d = {0};
	struct ecp_error perr = {0};
	snprintf(path, sizeof(path), "%s/%s", dir, part);
	int found = probe && ecp_ctf_find_metadata(path, &ctf, &perr) == 0
			? ecp_ctf_probe(ctf, &d, &perr)
			: 0;
	free(ctf);
	if (ecp_model_add_warning(
		m,
		"babeltrace2 stopped reading %s at damaged data (%s): the "
		"events after it are missing and the answers may be wrong",
		found > 0 ? d.file : path, st->bt_cause) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	return ECP_OK;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The model's sample counts, and a warning where sampling was weak. */
static int note_samples(struct ecp_model *m, const struct meta *meta,
			const struct load_ctx *c)
{
	uint64_t pushed = 0, applied = 0;
	ecp_builder_sample_counts(c->b, &pushed, &applied);
	m->info.samples = applied;
	m->info.samples_lost = c->samples_lost;
	m->info.sample_hz = meta->sample_hz;
	m->info.samples_throttled = meta->samples_throttled;
	if (c->samples_lost &&
	    ecp_model_add_warning(m,
				  "perf dropped %llu samples: the split of the segments "
				  "among functions is less precise (not their lengths)",
				  (unsigned long long)c->samples_lost) < 0)
		return ECP_ERR_NOMEM;
	if (meta->samples_throttled && applied &&
	    ecp_model_add_warning(
		m,
		"the kernel stopped the sampler %llu times for taking more "
		"samples in a tick than kernel.perf_event_max_sample_rate "
		"(%llu at the end) allows: %llu samples where %llu a second "
		"would take about %.0f; the split of the segments among "
		"functions is coarser (not their lengths)",
		(unsigned long long)meta->samples_throttled,
		(unsigned long long)meta->sample_rate_max, (unsigned long long)applied,
		(unsigned long long)meta->sample_hz,
		(double)meta->sample_hz * (double)meta->program_cpu_ns / 1e9) < 0)
		return ECP_ERR_NOMEM;
	uint64_t shallow = c->sampler ? ecp_sampler_shallow(c->sampler) : 0;
	if (pushed && shallow * 10 > pushed &&
	    ecp_model_add_warning(
		m,
		"%llu of %llu samples could not be unwound with the "
		"objects' unwind tables (the frame-pointer chain or the "
		"leaf alone was used): inclusive times of their callers "
		"are too low",
		(unsigned long long)shallow, (unsigned long long)pushed) < 0)
		return ECP_ERR_NOMEM;
	uint64_t unknown = c->sampler ? ecp_sampler_unknown_frames(c->sampler) : 0;
	if (pushed && unknown * 100 > pushed &&
	    ecp_model_add_warning(
		m,
		"%llu frames of %llu samples lie outside every mapped file "
		"(an unwind gone astray, or code made at run time): they "
		"are one row, [unknown]",
		(unsigned long long)unknown, (unsigned long long)pushed) < 0)
		return ECP_ERR_NOMEM;
	return ECP_OK;
}

/* A structural error in a trace that lost events (a thread's events
 * without its thread_start, an exit without its entry) is the loss, not a
 * bug in the program or in ecp: LTTng-UST drops events even from blocking
 * channels when a writer preempted inside an event holds the sub-buffer the
 * others wrap around to.  Say so, with the count and where, rather than the
 * symptom. */
static int blame_loss(const char *dir, const struct ecp_ctf_stats *main_st,
		      const struct ecp_ctf_stats *sched, int rc, struct ecp_error *err)
{
	uint64_t lost = main_st->discarded + main_st->discarded_packets +
			sched->discarded + sched->discarded_packets;
	if (!lost || rc == ECP_ERR_NOMEM || rc == ECP_ERR_DECODER_CRASH)
		return rc;
	ecp_error_prefix(
	    err,
	    "trace=%s: %llu events were discarded while recording (first loss "
	    "before event #%llu of %s), and the trace is not whole "
	    "(re-record on a quieter machine, or with fewer events: without "
	    "--min-duration 0)",
	    dir, (unsigned long long)lost,
	    (unsigned long long)(main_st->discarded || main_st->discarded_packets
				     ? main_st->first_discard_index
				     : sched->first_discard_index),
	    main_st->discarded || main_st->discarded_packets ? "main" : "sched");
	return ECP_ERR;
}

/* One of the recording's two CTF traces (`sched` or `main`, under dir)
 * decoded into the builder; on failure the damage (what babeltrace2 met)
 * or the loss is named before the symptom. */
static int read_stream(const char *dir, const char *name,
		       const struct ecp_load_options *opts,
		       const struct ecp_ctf_callbacks *cb, struct load_ctx *c,
		       struct ecp_ctf_stats *st, const struct ecp_ctf_stats *main_st,
		       const struct ecp_ctf_stats *sched, struct ecp_error *err)
{
	char path[PATH_MAX], *ctf = NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int rc = ecp_ctf_find_metadata(path, &ctf, err);
	if (rc < 0)
		return rc;
	if ((rc = ecp_ctf_read(ctf, path, cb, c, st, err)) < 0) {
		if (st->bt_failed && !opts->skip_damage_probe)
			rc = explain_damage(path, ctf, st, err);
		else
			rc = blame_loss(dir, main_st, sched, rc, err);
	}
	free(ctf);
	return rc;
}

/* What the model says of the recording, from the meta file and the
 * streams' counts. */
static int note_recording(struct ecp_model *m, const struct meta *meta,
			  const struct ecp_ctf_stats *main_st,
			  const struct ecp_ctf_stats *sched, struct load_ctx *c)
{
	m->info.events = main_st->events + sched->events;
	m->info.discarded_events += main_st->discarded + sched->discarded +
				    main_st->discarded_packets + sched->discarded_packets;
	m->info.recorded_wall_ns = meta->wall_ns;
	m->info.program_cpu_ns = meta->program_cpu_ns;
	/* /proc/stat counts whole ticks at either end: the steal between them
	 * is less than one tick more than their difference */
	m->info.steal_ns = meta->steal_ns ? meta->steal_ns + meta->steal_tick_ns : 0;
	m->info.other_cpu_ns = meta->other_cpu_ns;
	m->info.other_cpu_resolution_ns = meta->other_cpu_resolution_ns;
	m->info.functions_recorded = meta->functions;
	m->info.as_cpus = meta->as_cpus;
	m->info.recorded_cpus = meta->cpus ? meta->cpus : 1;
	m->info.cpu_count_read = meta->cpu_count_read != 0;
	if (note_samples(m, meta, c) < 0 || ecp_advise_library_calls(m) < 0)
		return -1;
	m->info.program =
	    ecp_strings_dup(ecp_model_strings(m), meta->command ? meta->command : "");
	return m->info.program ? 0 : -1;
}

/* The warnings every answer carries about how the trace was read: the
 * fallback clock's limits, calls too deep, stream oddities, discarded
 * packets, other processes' events.  -1 when out of memory. */
static int warn_about_reading(struct ecp_model *m, const struct meta *meta,
			      const struct ecp_ctf_stats *main_st,
			      const struct ecp_ctf_stats *sched)
{
	/* issue 33: the fallback clock's limits, in every answer */
	if (meta->clock == ECP_CLOCK_THREAD_CPUTIME &&
	    ecp_model_add_warning(
		m, "recorded with the fallback clock (perf's context-switch "
		   "records were refused): segments are exact, but a function's "
		   "time inside a segment is its wall time scaled to the "
		   "segment's CPU time, so time slices of other threads and "
		   "waits inside it blur it; record where perf_event_open is "
		   "allowed for exact function times") < 0)
		return -1;
	if (meta->calls_too_deep &&
	    ecp_model_add_warning(m,
				  "%llu calls deeper than the recorder's shadow stack "
				  "(1024 frames) were not recorded: their time is "
				  "their deepest recorded caller's",
				  (unsigned long long)meta->calls_too_deep) < 0)
		return -1;
	if (meta->stream_warning[0] &&
	    ecp_model_add_warning(m, "%s", meta->stream_warning) < 0)
		return -1;
	uint64_t packets = main_st->discarded_packets + sched->discarded_packets;
	if (packets &&
	    ecp_model_add_warning(m,
				  "%llu packets of events were discarded (count "
				  "of events unknown; counted as one each)",
				  (unsigned long long)packets) < 0)
		return -1;
	if (main_st->other_process &&
	    ecp_model_add_warning(m,
				  "%llu events of other processes (children the "
				  "program forked) were ignored: only the first "
				  "process is modelled",
				  (unsigned long long)main_st->other_process) < 0)
		return -1;
	return 0;
}

/* Then, after a stream that stopped early is named: objects whose symbols
 * could not be read, and where the first loss was. */
static int warn_about_names(struct ecp_model *m, const char *dir,
			    const struct ecp_ctf_stats *main_st, const struct load_ctx *c)
{
	const char *file, *objpath, *why;
	for (size_t k = 0; ecp_symbols_unreadable(c->syms, k, &file, &objpath, &why); k++)
		if (ecp_model_add_warning(
			m,
			"symbols could not be read from %s%s%s: %s; its "
			"functions are shown as addresses (%s+0x...)",
			file, strcmp(file, objpath) ? ", the copy of " : "",
			strcmp(file, objpath) ? objpath : "", why,
			strrchr(objpath, '/') ? strrchr(objpath, '/') + 1 : objpath) < 0)
			return -1;
	if ((main_st->discarded || main_st->discarded_packets) &&
	    ecp_model_add_warning(m, "first loss before event #%llu of %s/main",
				  (unsigned long long)main_st->first_discard_index,
				  dir) < 0)
		return -1;
	return 0;
}

/* The scheduling trace first (the builder takes the switch records and
 * samples before the program's events), then the program's. */
static int read_streams(const char *dir, const struct ecp_load_options *opts,
			const struct meta *meta, const struct ecp_ctf_callbacks *cb,
			struct load_ctx *c, struct ecp_ctf_stats *sched,
			struct ecp_ctf_stats *main_st, struct ecp_error *err)
{
	char path[PATH_MAX];
	int rc;
	snprintf(path, sizeof(path), "%s/sched", dir);
	if (is_dir(path)) {
		rc = read_stream(dir, "sched", opts, cb, c, sched, main_st, sched, err);
		if (rc < 0)
			return rc;
		c->base_events = sched->events;
	} else if (meta->clock == ECP_CLOCK_PERF_SWITCH) {
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: clock is perf-switch but the sched trace (%s) "
		    "is missing",
		    dir, path);
	}
	snprintf(path, sizeof(path), "%s/main", dir);
	if (!is_dir(path))
		return ecp_error_set(
		    err, ECP_ERR, "trace=%s: missing the program's trace %s", dir, path);
	if ((rc = read_stream(dir, "main", opts, cb, c, main_st, main_st, sched, err)) <
	    0)
		return rc;
	if (opts->progress && main_st->events + sched->events >= (1u << 20))
		fputs("\r\033[K", stderr);
	return 0;
}

/* The model from the builder, with what the reading found noted on it. */
static int finish_model(const char *dir, const struct ecp_load_options *opts,
			const struct meta *meta, struct load_ctx *c,
			const struct ecp_ctf_stats *sched,
			const struct ecp_ctf_stats *main_st, struct ecp_model **out,
			struct ecp_error *err)
{
	int rc;
	for (size_t i = 0; i < c->n_comms; i++)
		ecp_builder_set_comm(c->b, c->comms[i].tid, c->comms[i].name);
	if ((rc = ecp_builder_finish(c->b, c->syms, out, err)) < 0)
		return blame_loss(dir, main_st, sched, rc, err);
	if (note_recording(*out, meta, main_st, sched, c) < 0 ||
	    warn_about_reading(*out, meta, main_st, sched) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	if ((rc = warn_stopped_early(*out, dir, "sched", sched, !opts->skip_damage_probe,
				     err)) < 0 ||
	    (rc = warn_stopped_early(*out, dir, "main", main_st, !opts->skip_damage_probe,
				     err)) < 0)
		return rc;
	if (warn_about_names(*out, dir, main_st, c) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	return 0;
}

static int read_ctf(const char *dir, const struct ecp_load_options *opts,
		    const struct meta *meta, struct ecp_model **out,
		    struct ecp_error *err)
{
	struct load_ctx c = {.dir = dir,
			     .progress = opts->progress,
			     .ignore_samples =
				 opts->functions_from == ECP_FUNCTIONS_FROM_INSTRUMENT,
			     .own_code = opts->own_code};
	struct ecp_builder_options bo = {
	    .clock = meta->clock,
	    .event_cost_ps = meta->event_cost_ps,
	    .other_event_cost_ps = meta->other_event_cost_ps,
	    .sample_cost_ns = meta->sample_cost_ns,
	    .switch_cost_ps = meta->switch_cost_ps,
	    .thread_create_cost_ps = meta->thread_create_cost_ps,
	    .keep_calls = opts->keep_calls,
	    .by_callsite = opts->by_callsite,
	    .ignore_function_events = opts->functions_from == ECP_FUNCTIONS_FROM_SAMPLES,
	    .recorded_cpus = (uint32_t)meta->cpus,
	    /* a lossy trace is inconsistent where events
	       are missing: repair and count */
	    .lenient = opts->allow_loss,
	    .trace_path = dir};
	struct ecp_ctf_callbacks cb = {.event = on_event,
				       .object = on_object,
				       .comm = on_comm,
				       .registered = on_registered,
				       .task = on_task,
				       .mapping = on_mapping,
				       .sample = on_sample,
				       .sample_lost = on_sample_lost,
				       .progress = opts->progress ? on_progress : NULL};
	struct ecp_ctf_stats sched = {0}, main_st = {0};
	struct ecp_tsc_map clock;
	int rc;
	ecp_tsc_map_init(&clock);
	cb.clock = &clock;
	rc = ecp_builder_create(&bo, &c.b, err);
	if (rc < 0)
		return rc;
	c.syms = ecp_symbols_create();
	if (!c.syms) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((rc = read_streams(dir, opts, meta, &cb, &c, &sched, &main_st, err)) < 0 ||
	    (rc = finish_model(dir, opts, meta, &c, &sched, &main_st, out, err)) < 0)
		goto out;
out:
	if (rc < 0 && *out) {
		ecp_model_destroy(*out);
		*out = NULL;
	}
	free(c.comms);
	ecp_tsc_map_finish(&clock);
	ecp_symbols_destroy(c.syms);
	ecp_sampler_destroy(c.sampler);
	ecp_builder_destroy(c.b);
	return rc;
}

/* Writes the trace's own cache; a failure is a warning in the model (the
 * answer does not depend on it).  Written before the loss check, so that an
 * --allow-loss run later does not decode again; the loss is re-checked on
 * load. */
static int write_trace_cache(const char *cache, uint64_t fp,
			     const struct ecp_load_options *opts, struct ecp_model *m,
			     struct ecp_error *err)
{
	struct ecp_error cerr = {0};
	if (ecp_cache_write(cache, fp, m, opts->keep_calls, &cerr) < 0 &&
	    ecp_model_add_warning(m, "model cache not written: %s", cerr.msg) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	return ECP_OK;
}

/* Decoding in this process (ecp_load_options.in_process). */
static int decode_here(const char *dir, const struct ecp_load_options *opts,
		       const struct meta *meta, const char *cache, uint64_t fp,
		       struct ecp_model **out, struct ecp_error *err)
{
	int rc = read_ctf(dir, opts, meta, out, err);
	if (rc == 0 && opts->use_cache)
		rc = write_trace_cache(cache, fp, opts, *out, err);
	return rc;
}

/* ------------------------------------------------- decoding in a child
 *
 * babeltrace2 can crash on a damaged stream file, so the CTF is decoded in
 * a forked child.  The child hands the model over through the model cache
 * (the only thing that crosses the process boundary): the trace's own
 * DIR/ecp-model.cache when it may write there, else a file in a private
 * temporary directory the parent made and removes.  Its message says
 * which: "cache" or "handover".  When the child dies of a signal, each
 * file of the trace is decoded alone to name the damaged one. */
struct decode_job {
	const char *dir;
	const struct ecp_load_options *opts;
	const struct meta *meta;
	const char *cache;    /* DIR/ecp-model.cache, NULL: not to be written */
	const char *handover; /* in the private temporary directory */
	uint64_t fp;
};

static int decode_child(void *user, char *msg, size_t len)
{
	struct decode_job *j = user;
	struct ecp_model *m = NULL;
	struct ecp_error err = {0};
	int rc = read_ctf(j->dir, j->opts, j->meta, &m, &err);
	bool in_cache = false;
	if (rc == 0 && j->cache) {
		struct ecp_error cerr = {0};
		if (ecp_cache_write(j->cache, j->fp, m, j->opts->keep_calls, &cerr) == 0)
			in_cache = true;
		else if (ecp_model_add_warning(m, "model cache not written: %s",
					       cerr.msg) < 0)
			rc = ecp_error_set(&err, ECP_ERR_NOMEM, "out of memory");
	}
	if (rc == 0 && !in_cache)
		rc = ecp_cache_write(j->handover, j->fp, m, j->opts->keep_calls, &err);
	ecp_model_destroy(m);
	if (rc < 0) {
		snprintf(msg, len, "%s", err.msg);
		return 1;
	}
	snprintf(msg, len, "%s", in_cache ? "cache" : "handover");
	return 0;
}

/* After a crash: the damaged file among DIR/sched and DIR/main. */
static int explain_crash(const char *dir, const struct ecp_child_result *res,
			 struct ecp_error *err)
{
	static const char *const parts[] = {"sched", "main"};
	const char *what =
	    res->signal ? ecp_child_signal_name(res->signal) : "a fatal error";
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX];
		char *ctf = NULL;
		struct ecp_error perr = {0};
		snprintf(path, sizeof(path), "%s/%s", dir, parts[i]);
		if (!is_dir(path) || ecp_ctf_find_metadata(path, &ctf, &perr) < 0)
			continue;
		struct ecp_ctf_damage d;
		int found = ecp_ctf_probe(ctf, &d, &perr);
		free(ctf);
		if (found > 0)
			return ecp_error_set(
			    err, ECP_ERR_DECODER_CRASH,
			    "trace=%s: babeltrace2 crashed (%s) decoding the %s "
			    "%s: the file is damaged%s%s%s; re-record the program",
			    dir, what, d.is_metadata ? "CTF metadata" : "stream file",
			    d.file, d.crashed ? "" : " (", d.crashed ? "" : d.why,
			    d.crashed ? "" : ")");
	}
	return ecp_error_set(
	    err, ECP_ERR_DECODER_CRASH,
	    "trace=%s: babeltrace2 crashed (%s) decoding the trace, and no "
	    "single file of it is to blame; re-record the program",
	    dir, what);
}

/* Removes the private temporary directory and what a child left in it. */
static void remove_private_dir(const char *tmp)
{
	DIR *d = opendir(tmp);
	if (d) {
		for (struct dirent *e; (e = readdir(d));) {
			char p[2 * PATH_MAX];
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    snprintf(p, sizeof(p), "%s/%s", tmp, e->d_name) <
				(int)sizeof(p))
				unlink(p);
		}
		closedir(d);
	}
	rmdir(tmp);
}

/* Bytes of the files below `path` (the trace's streams), for the decoding
 * time limit. */
static uint64_t tree_bytes(const char *path, int depth)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	DIR *d = depth < 8 ? opendir(path) : NULL;
	uint64_t sum = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		char sub[PATH_MAX];
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) <
			sizeof(sub))
			sum += tree_bytes(sub, depth + 1);
	}
	closedir(d);
	return sum;
}

/* How long decoding may take: a minute, and a second per MB of streams
 * (decoding runs at 10-70 MB/s here, sampled traces slowest, and a loaded
 * machine is 2-3x slower); ECP_DECODE_TIMEOUT_S overrides it. */
static unsigned decode_timeout_s(const char *dir, uint64_t *bytes)
{
	char path[PATH_MAX];
	*bytes = 0;
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "sched" : "main");
		*bytes += tree_bytes(path, 0);
	}
	const char *env = getenv("ECP_DECODE_TIMEOUT_S");
	uint64_t v;
	if (env && *env && ecp_parse_u64(env, &v) == 0 && v > 0 && v < UINT32_MAX)
		return (unsigned)v;
	uint64_t s = 60u + *bytes / 1000000u;
	return s < UINT32_MAX ? (unsigned)s : UINT32_MAX;
}

static int decode_in_child(const char *dir, const struct ecp_load_options *opts,
			   const struct meta *meta, const char *cache, uint64_t fp,
			   struct ecp_model **out, struct ecp_error *err)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmp[PATH_MAX], handover[PATH_MAX + 32];
	snprintf(tmp, sizeof(tmp), "%s/ecp-decode-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp))
		return ecp_error_set(
		    err, ECP_ERR_IO, "cannot create a temporary directory in %s: %s",
		    tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
	snprintf(handover, sizeof(handover), "%s/model", tmp);
	/* A read-only trace directory (a shared or packaged trace) gets no
	 * cache, and nothing to report: the answer is the same. */
	bool writable = opts->use_cache && access(dir, W_OK) == 0;
	struct decode_job job = {.dir = dir,
				 .opts = opts,
				 .meta = meta,
				 .cache = writable ? cache : NULL,
				 .handover = handover,
				 .fp = fp};
	struct ecp_child_result res;
	uint64_t bytes;
	unsigned limit = decode_timeout_s(dir, &bytes);
	int rc = ecp_child_run_limited(decode_child, &job, limit, &res, err);
	if (rc < 0)
		goto out;
	if (res.interrupted) {
		remove_private_dir(tmp);
		ecp_child_reraise(res.interrupted);
		rc = ecp_error_set(err, ECP_ERR,
				   "trace=%s: decoding interrupted by signal %d", dir,
				   res.interrupted);
		goto out;
	}
	if (res.timed_out) {
		rc = ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: decoding did not finish in %u s (%llu bytes of "
		    "streams) and was stopped: damaged CTF metadata makes "
		    "babeltrace2 spin; re-record the program, or set "
		    "ECP_DECODE_TIMEOUT_S if the trace is whole and the machine slow",
		    dir, limit, (unsigned long long)bytes);
		goto out;
	}
	if (res.crashed) {
		rc = explain_crash(dir, &res, err);
		goto out;
	}
	if (res.status != 0) {
		rc = ecp_error_set(err, res.status == 1 ? ECP_ERR : ECP_ERR_IO, "%s",
				   res.msg[0] ? res.msg : "the decoding process failed");
		goto out;
	}
	const char *from = !strcmp(res.msg, "cache") ? cache : handover;
	rc = ecp_cache_load(from, fp, opts->keep_calls, out, err);
	if (rc == 0)
		rc = ecp_error_set(
		    err, ECP_ERR_IO,
		    "trace=%s: the decoding process handed over no usable model "
		    "(%s)",
		    dir, from);
	else if (rc > 0)
		rc = ECP_OK;
out:
	remove_private_dir(tmp);
	return rc;
}

static int check_loss(const char *dir, const struct ecp_load_options *opts,
		      struct ecp_model *m, struct ecp_error *err)
{
	if (!m->info.discarded_events && !m->info.switches_lost)
		return ECP_OK;
	/* two different losses, named apart: LTTng's buffers (the program
	 * outran the consumer) and perf's ring of context switches (the
	 * recorder did not drain it in time) */
	char what[160];
	if (m->info.discarded_events && m->info.switches_lost)
		snprintf(what, sizeof(what),
			 "%llu events were discarded by LTTng and %llu context switches "
			 "lost by perf while recording",
			 (unsigned long long)m->info.discarded_events,
			 (unsigned long long)m->info.switches_lost);
	else if (m->info.discarded_events)
		snprintf(what, sizeof(what), "%llu events were discarded while recording",
			 (unsigned long long)m->info.discarded_events);
	else
		snprintf(what, sizeof(what),
			 "%llu context switches were lost by perf while recording (the "
			 "recorder did not drain its ring in time)",
			 (unsigned long long)m->info.switches_lost);
	if (!opts->allow_loss)
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: %s; the model would be wrong (re-record, or pass "
		    "--allow-loss to analyse it anyway)",
		    dir, what);
	if (ecp_model_add_warning(m, "%s: the analysis is approximate (--allow-loss)",
				  what) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	return ECP_OK;
}

int ecp_trace_load(const char *dir, const struct ecp_load_options *opts,
		   struct ecp_model **out, struct ecp_error *err)
{
	struct ecp_load_options def = ECP_LOAD_OPTIONS_DEFAULT;
	if (!opts)
		opts = &def;
	*out = NULL;
	struct stat st;
	if (stat(dir, &st) < 0)
		return errno == ENOENT
			   ? ecp_error_set(err, ECP_ERR,
					   "trace=%s: no such trace directory", dir)
			   : ecp_error_set(err, ECP_ERR, "trace=%s: cannot open it: %s",
					   dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: %s is a file, not a trace directory (ecp record "
		    "writes a directory, ./ecp.data by default)",
		    dir, dir);
	struct ecp_load_options view;
	if (opts->functions_from != ECP_FUNCTIONS_FROM_ALL || opts->own_code) {
		view = *opts;
		view.use_cache = false;
		opts = &view;
	}
	struct meta meta;
	int rc = read_meta(dir, &meta, err);
	if (rc < 0) {
		free(meta.command);
		return rc;
	}
	char cache[PATH_MAX];
	uint64_t fp = 0;
	snprintf(cache, sizeof(cache), "%s/%s", dir,
		 opts->by_callsite ? ECP_CACHE_FILE_CALLSITE : ECP_CACHE_FILE);
	/* The hand-over from a decoding child is checked against it too. */
	if ((rc = ecp_cache_fingerprint(dir, &fp, err)) < 0)
		goto out;
	if (opts->use_cache) {
		rc = ecp_cache_load(cache, fp, opts->keep_calls, out, err);
		if (rc < 0)
			goto out;
		if (rc == 1) {
			rc = check_loss(dir, opts, *out, err);
			goto out;
		}
	}
	/* decoded, the trace must be what was recorded; a cache is bound to
	 * the files' sizes and times by its fingerprint */
	bool listed;
	if ((rc = ecp_manifest_check(dir, &listed, meta.stream_warning,
				     sizeof(meta.stream_warning), err)) < 0)
		goto out;
	if (!listed && meta.manifest) {
		rc = ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: %s is missing: the recording listed its streams "
		    "there, and without it they cannot be checked",
		    dir, ECP_MANIFEST_FILE);
		goto out;
	}
	if (opts->in_process)
		rc = decode_here(dir, opts, &meta, cache, fp, out, err);
	else
		rc = decode_in_child(dir, opts, &meta, cache, fp, out, err);
	if (rc < 0)
		goto out;
	rc = check_loss(dir, opts, *out, err);
out:
	if (rc < 0) {
		ecp_model_destroy(*out);
		*out = NULL;
	}
	free(meta.command);
	return rc < 0 ? rc : ECP_OK;
}
