/* SPDX-License-Identifier: MIT */
#include "simulator/model/cache.h"

#include <dirent.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ecp-config.h"
#include "simulator/model/model-internal.h"
#include "common/checksum.h"
#include "common/manifest.h"
#include "common/open-regular.h"

static const char magic[8] = {'E', 'C', 'P', 'M', 'O', 'D', 'E', 'L'};
#define BOM 0x01020304u

struct header {
	char magic[8];
	uint32_t format;
	uint32_t bom;
	char version[16];
	uint64_t fingerprint;
	uint64_t n_threads, n_segments, n_edges, n_locks, n_functions, n_activities,
	    n_calls, n_warnings, strings_size;
	uint64_t events, discarded, event_cost_ns, wall_ns, functions_recorded,
	    calls_kept, samples, samples_lost;
	uint64_t event_cost_ps, sample_cost_ns, program_cpu_ns, switches_lost, as_cpus,
	    cpu_count_read, recorded_cpus;
	uint64_t overhead_ns, outside_cpu_ns, outside_threads, untracked_cpu_ns,
	    guessed_cpu_ns, unknown_deps_ns;
	uint64_t trace_path, program, clock; /* string table offsets */
	uint32_t layout[6]; /* sizes of the dumped structs: a layout change is stale */
	uint64_t checksum;  /* of everything after the header (struct ecp_csum) */
};

static void layout_of(uint32_t l[6])
{
	l[0] = sizeof(struct ecp_thread);
	l[1] = sizeof(struct ecp_segment);
	l[2] = sizeof(struct ecp_edge);
	l[3] = sizeof(struct ecp_lock);
	l[4] = sizeof(struct ecp_activity);
	l[5] = sizeof(struct ecp_call);
}

/* One function on disk: strings as offsets into the string table. */
struct disk_function {
	uint64_t addr, call_site, folded_calls, samples, name, object;
};

/* ------------------------------------------------------------ fingerprint */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t hash_file(uint64_t h, const char *rel, const struct stat *st)
{
	uint64_t v[4] = {(uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
			 (uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ino};
	h = fnv(h, rel, strlen(rel) + 1);
	return fnv(h, v, sizeof(v));
}

/* Hashes every file below dir/rel in name order (depth-limited). */
static int hash_tree(const char *dir, const char *rel, int depth, uint64_t *h)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return 0;
	struct stat st;
	if (lstat(path, &st) < 0)
		return 0; /* absent (no sched trace): part of the fingerprint by omission
			   */
	if (!S_ISDIR(st.st_mode)) {
		*h = hash_file(*h, rel, &st);
		return 0;
	}
	if (depth > 12)
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **p = realloc(names, cap * sizeof(*p));
			if (!p) {
				rc = -1;
				break;
			}
			names = p;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc == 0 && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char sub[PATH_MAX];
		if (rc == 0 &&
		    snprintf(sub, sizeof(sub), "%s/%s", rel, names[i]) < (int)sizeof(sub))
			rc = hash_tree(dir, sub, depth + 1, h);
		free(names[i]);
	}
	free(names);
	return rc;
}

int ecp_cache_fingerprint(const char *trace_dir, uint64_t *fp, struct ecp_error *err)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	if (hash_tree(trace_dir, "main", 0, &h) < 0 ||
	    hash_tree(trace_dir, "sched", 0, &h) < 0 ||
	    hash_tree(trace_dir, "ecp-record.meta", 0, &h) < 0 ||
	    hash_tree(trace_dir, ECP_MANIFEST_FILE, 0, &h) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory fingerprinting %s", trace_dir);
	*fp = h;
	return ECP_OK;
}

/* ------------------------------------------------------------------ write */

struct strtab {
	char *data;
	size_t len, cap;
};

static uint64_t strtab_add(struct strtab *t, const char *s, bool *oom)
{
	size_t n = strlen(s ? s : "") + 1;
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap < t->len + n)
			cap *= 2;
		char *p = realloc(t->data, cap);
		if (!p) {
			*oom = true;
			return 0;
		}
		t->data = p;
		t->cap = cap;
	}
	memcpy(t->data + t->len, s ? s : "", n);
	uint64_t off = t->len;
	t->len += n;
	return off;
}

/* Every byte of the cache is summed (common/checksum.h): one flipped byte
 * once gave "work (T1) 9223372037.793 s", another a good trace refused.  A
 * cache whose sum differs is stale, and rebuilt. */
static int write_all(FILE *f, struct ecp_csum *c, const void *p, size_t elem, uint64_t n)
{
	if (!n)
		return 0;
	if (c)
		ecp_csum_add(c, p, elem * (size_t)n);
	return fwrite(p, elem, n, f) == n ? 0 : -1;
}

/* The model's structs have padding (ecp_segment and ecp_lock end in four
 * bytes of it) that struct assignment leaves uninitialised: written as is,
 * the cache would carry stray heap bytes and differ between identical
 * models.  These copy the records field by field into zeroed chunks. */
#define CLEAN_CHUNK 1024

static void copy_thread(void *dst, const void *src)
{
	const struct ecp_thread *x = src;
	struct ecp_thread *y = dst;
	y->tid = x->tid;
	memcpy(y->name, x->name, strnlen(x->name, sizeof(x->name)));
	y->first_segment = x->first_segment;
	y->n_segments = x->n_segments;
	y->start_function = x->start_function;
	y->parent = x->parent;
	y->own_clock_ns = x->own_clock_ns;
	y->overhead_ns = x->overhead_ns;
}

static void copy_segment(void *dst, const void *src)
{
	const struct ecp_segment *x = src;
	struct ecp_segment *y = dst;
	y->thread = x->thread;
	y->lock_acquire = x->lock_acquire;
	y->lock_release = x->lock_release;
	y->acquire_mode = x->acquire_mode;
	y->delay_kind = x->delay_kind;
	y->length = x->length;
	y->delay = x->delay;
	y->cpu_start = x->cpu_start;
	y->rec_start = x->rec_start;
	y->rec_end = x->rec_end;
	y->first_in = x->first_in;
	y->n_in = x->n_in;
	y->first_activity = x->first_activity;
	y->n_activity = x->n_activity;
}

static void copy_lock(void *dst, const void *src)
{
	const struct ecp_lock *x = src;
	struct ecp_lock *y = dst;
	y->addr = x->addr;
	y->kind = x->kind;
}

/* Writes n records of `elem` bytes, each copied by `copy` into a zeroed
 * slot, CLEAN_CHUNK at a time. */
static int write_clean(FILE *f, struct ecp_csum *c, const void *records, uint64_t n,
		       size_t elem, void (*copy)(void *dst, const void *src))
{
	static_assert(sizeof(struct ecp_segment) >= sizeof(struct ecp_thread) &&
			  sizeof(struct ecp_segment) >= sizeof(struct ecp_lock),
		      "the bounce buffer is sized for the largest record");
	unsigned char buf[CLEAN_CHUNK * sizeof(struct ecp_segment)];
	const unsigned char *in = records;
	for (uint64_t i = 0; i < n; i += CLEAN_CHUNK) {
		uint64_t k = n - i < CLEAN_CHUNK ? n - i : CLEAN_CHUNK;
		memset(buf, 0, (size_t)k * elem);
		for (uint64_t j = 0; j < k; j++)
			copy(buf + j * elem, in + (i + j) * elem);
		if (write_all(f, c, buf, elem, k) < 0)
			return -1;
	}
	return 0;
}

int ecp_cache_write(const char *path, uint64_t fp, const struct ecp_model *m,
		    bool calls_kept, struct ecp_error *err)
{
	struct header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, magic, sizeof(magic));
	h.format = ECP_CACHE_FORMAT;
	h.bom = BOM;
	snprintf(h.version, sizeof(h.version), "%s", ECP_VERSION);
	h.fingerprint = fp;
	h.n_threads = m->n_threads;
	h.n_segments = m->n_segments;
	h.n_edges = m->n_edges;
	h.n_locks = m->n_locks;
	h.n_functions = m->n_functions;
	h.n_activities = m->n_activities;
	h.n_calls = m->calls ? m->n_calls : 0;
	h.n_warnings = m->n_warnings;
	h.events = m->info.events;
	h.discarded = m->info.discarded_events;
	h.switches_lost = m->info.switches_lost;
	h.as_cpus = m->info.as_cpus;
	h.recorded_cpus = m->info.recorded_cpus;
	h.cpu_count_read = m->info.cpu_count_read;
	h.event_cost_ns = m->info.event_cost_ns;
	h.event_cost_ps = m->info.event_cost_ps;
	h.sample_cost_ns = m->info.sample_cost_ns;
	h.program_cpu_ns = m->info.program_cpu_ns;
	h.overhead_ns = m->info.overhead_ns;
	h.outside_cpu_ns = m->info.outside_cpu_ns;
	h.outside_threads = m->info.outside_threads;
	h.untracked_cpu_ns = m->info.untracked_cpu_ns;
	h.guessed_cpu_ns = m->info.guessed_cpu_ns;
	h.unknown_deps_ns = m->info.unknown_deps_ns;
	h.wall_ns = m->info.recorded_wall_ns;
	h.functions_recorded = m->info.functions_recorded;
	h.calls_kept = calls_kept;
	h.samples = m->info.samples;
	h.samples_lost = m->info.samples_lost;
	layout_of(h.layout);

	struct strtab t = {0};
	bool oom = false;
	h.trace_path = strtab_add(&t, m->info.trace_path, &oom);
	h.program = strtab_add(&t, m->info.program, &oom);
	h.clock = strtab_add(&t, m->info.clock, &oom);
	struct disk_function *df =
	    malloc((m->n_functions ? m->n_functions : 1) * sizeof(*df));
	uint64_t *wo = malloc((m->n_warnings ? m->n_warnings : 1) * sizeof(*wo));
	if (!df || !wo)
		oom = true;
	for (uint32_t i = 0; !oom && i < m->n_functions; i++) {
		df[i].addr = m->functions[i].addr;
		df[i].folded_calls = m->functions[i].folded_calls;
		df[i].samples = m->functions[i].samples;
		df[i].call_site = m->functions[i].call_site;
		df[i].name = strtab_add(&t, m->functions[i].name, &oom);
		df[i].object = strtab_add(&t, m->functions[i].object, &oom);
	}
	for (size_t i = 0; !oom && i < m->n_warnings; i++)
		wo[i] = strtab_add(&t, m->warnings[i], &oom);
	h.strings_size = t.len;
	int rc = ECP_OK;
	char *tmp = NULL;
	FILE *f = NULL;
	if (oom) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory writing the model cache");
		goto out;
	}
	size_t plen = strlen(path);
	tmp = malloc(plen + 16);
	if (!tmp) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory writing the model cache");
		goto out;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp.XXXXXX", 12);
	/* mkstemp creates a new file (O_EXCL): it never follows a planted
	 * symlink; rename() then replaces whatever `path` is, link or not. */
	int fd = mkstemp(tmp);
	if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
		/* A read-only trace directory (a shared or packaged trace): no
		 * cache, and nothing to report -- the answer is the same. */
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fd < 0) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", tmp,
				   strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", tmp,
				   strerror(errno));
		goto out_unlink;
	}
	struct ecp_csum sum = {0};
	/* the header (its checksum 0) is summed first and written again at
	 * the end, with the sum */
	h.checksum = 0;
	ecp_csum_add(&sum, &h, sizeof(h));
	if (write_all(f, NULL, &h, sizeof(h), 1) < 0 ||
	    write_clean(f, &sum, m->threads, h.n_threads, sizeof(*m->threads),
			copy_thread) < 0 ||
	    write_clean(f, &sum, m->segments, h.n_segments, sizeof(*m->segments),
			copy_segment) < 0 ||
	    write_all(f, &sum, m->edges, sizeof(*m->edges), h.n_edges) < 0 ||
	    write_clean(f, &sum, m->locks, h.n_locks, sizeof(*m->locks), copy_lock) < 0 ||
	    write_all(f, &sum, df, sizeof(*df), h.n_functions) < 0 ||
	    write_all(f, &sum, m->activities, sizeof(*m->activities), h.n_activities) <
		0 ||
	    write_all(f, &sum, m->calls, sizeof(*m->calls), h.n_calls) < 0 ||
	    write_all(f, &sum, wo, sizeof(*wo), h.n_warnings) < 0 ||
	    write_all(f, &sum, t.data, 1, t.len) < 0 ||
	    (h.checksum = ecp_csum_end(&sum), fseek(f, 0, SEEK_SET) != 0) ||
	    write_all(f, NULL, &h, sizeof(h), 1) < 0 || fclose(f) != 0) {
		if (f)
			f = NULL;
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", tmp,
				   strerror(errno));
		goto out_unlink;
	}
	f = NULL;
	if (rename(tmp, path) < 0) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot rename %s to %s: %s", tmp,
				   path, strerror(errno));
		goto out_unlink;
	}
	goto out;
out_unlink:
	unlink(tmp);
out:
	free(tmp);
	free(df);
	free(wo);
	free(t.data);
	return rc;
}

/* ------------------------------------------------------------------- load */

/* Reads n elements straight into a new array (no intermediate buffer: the
 * cache of a big trace is hundreds of MB).  -1: truncated, -2: no memory. */
static int take(int fd, struct ecp_csum *c, uint64_t *left, void **dst, size_t elem,
		uint64_t n)
{
	*dst = NULL;
	if (n > *left / (elem ? elem : 1))
		return -1;
	size_t bytes = (size_t)n * elem;
	char *p = malloc(bytes ? bytes : 1);
	if (!p)
		return -2;
	*dst = p;
	for (size_t got = 0; got < bytes;) {
		ssize_t r = read(fd, p + got, bytes - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	*left -= bytes;
	ecp_csum_add(c, p, bytes);
	return 0;
}

int ecp_cache_load(const char *path, uint64_t fp, bool need_calls, struct ecp_model **out,
		   struct ecp_error *err)
{
	*out = NULL;
	/* never through a link, never a FIFO (which would block the open) */
	int fd = ecp_open_regular(path, true);
	if (fd < 0)
		return 0;
	struct stat st;
	struct ecp_model *m = NULL;
	struct disk_function *df = NULL;
	uint64_t *wo = NULL;
	char *strbuf = NULL;
	int rc = 0;
	struct header h;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(struct header) ||
	    read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		goto out;
	uint32_t layout[6];
	layout_of(layout);
	if (memcmp(h.magic, magic, sizeof(magic)) ||
	    memcmp(h.layout, layout, sizeof(layout)) || h.format != ECP_CACHE_FORMAT ||
	    h.bom != BOM || strncmp(h.version, ECP_VERSION, sizeof(h.version)) ||
	    h.fingerprint != fp || (need_calls && !h.calls_kept) ||
	    h.n_threads > UINT32_MAX || h.n_segments > UINT32_MAX ||
	    h.n_edges > UINT32_MAX || h.n_locks > UINT32_MAX ||
	    h.n_functions > UINT32_MAX || h.outside_threads > UINT32_MAX)
		goto out;
	m = ecp_model_create();
	if (!m) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory reading %s", path);
		goto out;
	}
	uint64_t left = (uint64_t)st.st_size - sizeof(h);
	struct ecp_csum sum = {0};
	struct header unsummed = h;
	unsummed.checksum = 0;
	ecp_csum_add(&sum, &unsummed, sizeof(unsummed));
	int t = 0;
	if ((t = take(fd, &sum, &left, (void **)&m->threads, sizeof(*m->threads),
		      h.n_threads)) ||
	    (t = take(fd, &sum, &left, (void **)&m->segments, sizeof(*m->segments),
		      h.n_segments)) ||
	    (t = take(fd, &sum, &left, (void **)&m->edges, sizeof(*m->edges),
		      h.n_edges)) ||
	    (t = take(fd, &sum, &left, (void **)&m->locks, sizeof(*m->locks),
		      h.n_locks)) ||
	    (t = take(fd, &sum, &left, (void **)&df, sizeof(*df), h.n_functions)) ||
	    (t = take(fd, &sum, &left, (void **)&m->activities, sizeof(*m->activities),
		      h.n_activities)) ||
	    (t = take(fd, &sum, &left, (void **)&m->calls, sizeof(*m->calls),
		      h.n_calls)) ||
	    (t = take(fd, &sum, &left, (void **)&wo, sizeof(*wo), h.n_warnings)) ||
	    (t = take(fd, &sum, &left, (void **)&strbuf, 1, h.strings_size))) {
		if (t == -2)
			rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory reading %s",
					   path);
		goto out;
	}
	if (left != 0 || !h.strings_size || strbuf[h.strings_size - 1] != '\0' ||
	    ecp_csum_end(&sum) != h.checksum)
		goto out;
	char *strings =
	    ecp_strings_ndup(ecp_model_strings(m), strbuf, h.strings_size - 1);
	if (!strings) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory reading %s", path);
		goto out;
	}
	m->n_threads = (uint32_t)h.n_threads;
	m->n_segments = (uint32_t)h.n_segments;
	m->n_edges = (uint32_t)h.n_edges;
	m->n_locks = (uint32_t)h.n_locks;
	m->n_activities = h.n_activities;
	m->n_calls = h.n_calls;
	if (!h.n_calls) {
		free(m->calls);
		m->calls = NULL;
	}
#define STR(off) ((off) < h.strings_size ? strings + (off) : NULL)
	m->functions = calloc(h.n_functions ? h.n_functions : 1, sizeof(*m->functions));
	m->warnings = calloc(h.n_warnings ? h.n_warnings : 1, sizeof(*m->warnings));
	if (!m->functions || !m->warnings) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory reading %s", path);
		goto out;
	}
	m->n_functions = (uint32_t)h.n_functions;
	for (uint64_t i = 0; i < h.n_functions; i++) {
		m->functions[i].addr = df[i].addr;
		m->functions[i].folded_calls = df[i].folded_calls;
		m->functions[i].samples = df[i].samples;
		m->functions[i].call_site = df[i].call_site;
		m->functions[i].name = STR(df[i].name);
		m->functions[i].object = STR(df[i].object);
	}
	m->n_warnings = h.n_warnings;
	for (uint64_t i = 0; i < h.n_warnings; i++)
		if (!(m->warnings[i] = STR(wo[i])))
			goto out;
	m->info.trace_path = STR(h.trace_path);
	m->info.program = STR(h.program);
	m->info.clock = STR(h.clock);
#undef STR
	m->info.events = h.events;
	m->info.discarded_events = h.discarded;
	m->info.switches_lost = h.switches_lost;
	m->info.as_cpus = h.as_cpus;
	m->info.recorded_cpus = h.recorded_cpus;
	m->info.cpu_count_read = h.cpu_count_read != 0;
	m->info.event_cost_ns = h.event_cost_ns;
	m->info.event_cost_ps = h.event_cost_ps;
	m->info.sample_cost_ns = h.sample_cost_ns;
	m->info.program_cpu_ns = h.program_cpu_ns;
	m->info.overhead_ns = h.overhead_ns;
	m->info.outside_cpu_ns = h.outside_cpu_ns;
	m->info.outside_threads = (uint32_t)h.outside_threads;
	m->info.untracked_cpu_ns = h.untracked_cpu_ns;
	m->info.guessed_cpu_ns = h.guessed_cpu_ns;
	m->info.unknown_deps_ns = h.unknown_deps_ns;
	m->info.recorded_wall_ns = h.wall_ns;
	m->info.functions_recorded = h.functions_recorded != 0;
	m->info.samples = h.samples;
	m->info.samples_lost = h.samples_lost;
	if (!m->info.trace_path || !m->info.program || !m->info.clock)
		goto out;
	/* A cache that does not hold together is stale, not fatal. */
	struct ecp_error verr = {0};
	if (ecp_model_validate(m, &verr) < 0)
		goto out;
	*out = m;
	m = NULL;
	rc = 1;
out:
	close(fd);
	free(strbuf);
	free(df);
	free(wo);
	ecp_model_destroy(m);
	return rc;
}
