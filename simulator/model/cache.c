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
#include "simulator/model/cache-pack.h"
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
	    guessed_cpu_ns, unknown_deps_ns, steal_ns, other_cpu_ns,
	    other_cpu_resolution_ns;
	uint64_t tasks_dealt, tasks_kept, tie_draws;
	uint64_t sample_hz, samples_throttled;
	uint64_t n_spawn_sites;
	uint64_t trace_path, program, clock; /* string table offsets */
	/* bytes of the packed segments, edges and activities (cache-pack.h) */
	uint64_t packed_bytes[3];
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

/* The header of the model's cache: counts, recording info and layout (its
 * string offsets and checksum are filled in later). */
static void header_of_model(struct header *h, uint64_t fp, const struct ecp_model *m,
			    bool calls_kept)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, magic, sizeof(magic));
	h->format = ECP_CACHE_FORMAT;
	h->bom = BOM;
	snprintf(h->version, sizeof(h->version), "%s", ECP_VERSION);
	h->fingerprint = fp;
	h->n_threads = m->n_threads;
	h->n_segments = m->n_segments;
	h->n_edges = m->n_edges;
	h->n_locks = m->n_locks;
	h->n_functions = m->n_functions;
	h->n_activities = m->n_activities;
	h->n_calls = m->calls ? m->n_calls : 0;
	h->n_warnings = m->n_warnings;
	h->n_spawn_sites = m->spawn_sites ? m->n_spawn_sites : 0;
	h->events = m->info.events;
	h->discarded = m->info.discarded_events;
	h->switches_lost = m->info.switches_lost;
	h->as_cpus = m->info.as_cpus;
	h->recorded_cpus = m->info.recorded_cpus;
	h->cpu_count_read = m->info.cpu_count_read;
	h->event_cost_ns = m->info.event_cost_ns;
	h->event_cost_ps = m->info.event_cost_ps;
	h->sample_cost_ns = m->info.sample_cost_ns;
	h->program_cpu_ns = m->info.program_cpu_ns;
	h->overhead_ns = m->info.overhead_ns;
	h->outside_cpu_ns = m->info.outside_cpu_ns;
	h->outside_threads = m->info.outside_threads;
	h->untracked_cpu_ns = m->info.untracked_cpu_ns;
	h->guessed_cpu_ns = m->info.guessed_cpu_ns;
	h->steal_ns = m->info.steal_ns;
	h->other_cpu_ns = m->info.other_cpu_ns;
	h->other_cpu_resolution_ns = m->info.other_cpu_resolution_ns;
	h->unknown_deps_ns = m->info.unknown_deps_ns;
	h->wall_ns = m->info.recorded_wall_ns;
	h->functions_recorded = m->info.functions_recorded;
	h->calls_kept = calls_kept;
	h->samples = m->info.samples;
	h->samples_lost = m->info.samples_lost;
	h->sample_hz = m->info.sample_hz;
	h->samples_throttled = m->info.samples_throttled;
	h->tasks_dealt = m->info.tasks_dealt;
	h->tasks_kept = m->info.tasks_kept;
	h->tie_draws = m->info.tie_draws;
	layout_of(h->layout);
}

/* What a cache is written from besides the model: its header, the string
 * table, the functions and warnings with strings as offsets into it, and
 * the temporary file renamed over the cache when complete. */
struct cache_writer {
	struct header h;
	struct strtab t;
	struct disk_function *df;
	uint64_t *wo;
	char *tmp;
};

/* Moves every string into the string table; false when out of memory. */
static bool cache_strings_collect(struct cache_writer *w, const struct ecp_model *m)
{
	bool oom = false;
	w->h.trace_path = strtab_add(&w->t, m->info.trace_path, &oom);
	w->h.program = strtab_add(&w->t, m->info.program, &oom);
	w->h.clock = strtab_add(&w->t, m->info.clock, &oom);
	w->df = malloc((m->n_functions ? m->n_functions : 1) * sizeof(*w->df));
	w->wo = malloc((m->n_warnings ? m->n_warnings : 1) * sizeof(*w->wo));
	if (!w->df || !w->wo)
		oom = true;
	for (uint32_t i = 0; !oom && i < m->n_functions; i++) {
		w->df[i].addr = m->functions[i].addr;
		w->df[i].folded_calls = m->functions[i].folded_calls;
		w->df[i].samples = m->functions[i].samples;
		w->df[i].call_site = m->functions[i].call_site;
		w->df[i].name = strtab_add(&w->t, m->functions[i].name, &oom);
		w->df[i].object = strtab_add(&w->t, m->functions[i].object, &oom);
	}
	for (size_t i = 0; !oom && i < m->n_warnings; i++)
		w->wo[i] = strtab_add(&w->t, m->warnings[i], &oom);
	w->h.strings_size = w->t.len;
	return !oom;
}

/* Creates the temporary file w->tmp next to `path`; *fd is -1 with ECP_OK
 * where the directory is read-only (then no cache is written). */
static int cache_temp_create(struct cache_writer *w, const char *path, int *fd,
			     struct ecp_error *err)
{
	*fd = -1;
	size_t plen = strlen(path);
	w->tmp = malloc(plen + 16);
	if (!w->tmp)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory writing the model cache");
	memcpy(w->tmp, path, plen);
	memcpy(w->tmp + plen, ".tmp.XXXXXX", 12);
	/* mkstemp creates a new file (O_EXCL): it never follows a planted
	 * symlink; rename() then replaces whatever `path` is, link or not. */
	*fd = mkstemp(w->tmp);
	if (*fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
		/* A read-only trace directory (a shared or packaged trace): no
		 * cache, and nothing to report -- the answer is the same. */
		free(w->tmp);
		w->tmp = NULL;
		return ECP_OK;
	}
	if (*fd < 0) {
		int rc = ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", w->tmp,
				       strerror(errno));
		free(w->tmp);
		w->tmp = NULL;
		return rc;
	}
	return ECP_OK;
}

/* Writes the header, every table and the header again with the sum, and
 * closes f whatever happened; false (errno set) on a failed write. */
static bool cache_body_write(FILE *f, struct cache_writer *w, const struct ecp_model *m)
{
	struct header *h = &w->h;
	struct ecp_csum sum = {0};
	/* the header is written first as a placeholder, and again at the
	 * end with the packed tables' sizes and the sum */
	h->checksum = 0;
	bool ok =
	    !(write_all(f, NULL, h, sizeof(*h), 1) < 0 ||
	      write_clean(f, &sum, m->threads, h->n_threads, sizeof(*m->threads),
			  copy_thread) < 0 ||
	      ecp_pack_segments(f, &sum, m->segments, m->n_segments, m->n_edges,
				&h->packed_bytes[0]) < 0 ||
	      ecp_pack_edges(f, &sum, m->edges, m->n_edges, &h->packed_bytes[1]) < 0 ||
	      write_clean(f, &sum, m->locks, h->n_locks, sizeof(*m->locks), copy_lock) <
		  0 ||
	      write_all(f, &sum, w->df, sizeof(*w->df), h->n_functions) < 0 ||
	      ecp_pack_activities(f, &sum, m->activities, m->n_activities,
				  &h->packed_bytes[2]) < 0 ||
	      write_all(f, &sum, m->calls, sizeof(*m->calls), h->n_calls) < 0 ||
	      write_all(f, &sum, m->spawn_sites, sizeof(*m->spawn_sites),
			h->n_spawn_sites) < 0 ||
	      write_all(f, &sum, w->wo, sizeof(*w->wo), h->n_warnings) < 0 ||
	      write_all(f, &sum, w->t.data, 1, w->t.len) < 0);
	/* The packed sizes are known only now: the header (its checksum 0)
	 * is summed after the tables, as the reader sums it. */
	if (ok) {
		ecp_csum_add(&sum, h, sizeof(*h));
		h->checksum = ecp_csum_end(&sum);
		ok = fseek(f, 0, SEEK_SET) == 0 &&
		     write_all(f, NULL, h, sizeof(*h), 1) == 0;
	}
	/* the close flushes the last writes: its failure is one too; a
	 * failure before it keeps its own errno */
	int failed_errno = errno;
	if (fclose(f) != 0)
		return false;
	errno = failed_errno;
	return ok;
}

int ecp_cache_write(const char *path, uint64_t fp, const struct ecp_model *m,
		    bool calls_kept, struct ecp_error *err)
{
	struct cache_writer w = {.t = {0}};
	header_of_model(&w.h, fp, m, calls_kept);
	bool collected = cache_strings_collect(&w, m);
	int rc = ECP_OK;
	if (!collected) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM,
				   "out of memory writing the model cache");
		goto out;
	}
	int fd;
	rc = cache_temp_create(&w, path, &fd, err);
	if (fd < 0)
		goto out;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", w.tmp,
				   strerror(errno));
		goto out_unlink;
	}
	if (!cache_body_write(f, &w, m)) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", w.tmp,
				   strerror(errno));
		goto out_unlink;
	}
	if (rename(w.tmp, path) < 0) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot rename %s to %s: %s", w.tmp,
				   path, strerror(errno));
		goto out_unlink;
	}
	goto out;
out_unlink:
	unlink(w.tmp);
out:
	free(w.tmp);
	free(w.df);
	free(w.wo);
	free(w.t.data);
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

/* What a cache is loaded through: the file, its header, and the tables
 * that are converted before the model takes them. */
struct cache_reader {
	int fd;
	struct header h;
	struct disk_function *df;
	uint64_t *wo;
	char *strbuf;
	char *strings; /* the model's own copy of strbuf */
};

/* Reads the header; false if the file is not a cache of this fingerprint,
 * version and layout (with calls when they are needed). */
static bool cache_header_read(struct cache_reader *c, const struct stat *st, uint64_t fp,
			      bool need_calls)
{
	const struct header *h = &c->h;
	if ((uint64_t)st->st_size < sizeof(struct header) ||
	    read(c->fd, &c->h, sizeof(c->h)) != (ssize_t)sizeof(c->h))
		return false;
	uint32_t layout[6];
	layout_of(layout);
	return !(memcmp(h->magic, magic, sizeof(magic)) ||
		 memcmp(h->layout, layout, sizeof(layout)) ||
		 h->format != ECP_CACHE_FORMAT || h->bom != BOM ||
		 strncmp(h->version, ECP_VERSION, sizeof(h->version)) ||
		 h->fingerprint != fp || (need_calls && !h->calls_kept) ||
		 h->n_threads > UINT32_MAX || h->n_segments > UINT32_MAX ||
		 h->n_edges > UINT32_MAX || h->n_locks > UINT32_MAX ||
		 h->n_functions > UINT32_MAX || h->outside_threads > UINT32_MAX ||
		 h->n_spawn_sites > UINT32_MAX);
}

/* The packed tables (cache-pack.h), into zeroed arrays: -1 (a count the
 * table cannot hold, or a malformed table) or -2 (no memory). */
static int unpack_segments(struct cache_reader *c, struct ecp_model *m,
			   struct ecp_csum *sum, uint64_t *left)
{
	uint64_t n = c->h.n_segments, bytes = c->h.packed_bytes[0];
	if (n > bytes / ECP_PACKED_MIN_SEGMENT)
		return -1;
	if (!(m->segments = calloc(n ? n : 1, sizeof(*m->segments))))
		return -2;
	return ecp_unpack_segments(c->fd, sum, left, bytes, m->segments, (uint32_t)n,
				   (uint32_t)c->h.n_edges);
}

static int unpack_edges(struct cache_reader *c, struct ecp_model *m, struct ecp_csum *sum,
			uint64_t *left)
{
	uint64_t n = c->h.n_edges, bytes = c->h.packed_bytes[1];
	if (n > bytes / ECP_PACKED_MIN_EDGE)
		return -1;
	if (!(m->edges = calloc(n ? n : 1, sizeof(*m->edges))))
		return -2;
	return ecp_unpack_edges(c->fd, sum, left, bytes, m->edges, (uint32_t)n);
}

static int unpack_activities(struct cache_reader *c, struct ecp_model *m,
			     struct ecp_csum *sum, uint64_t *left)
{
	uint64_t n = c->h.n_activities, bytes = c->h.packed_bytes[2];
	if (n > bytes / ECP_PACKED_MIN_ACTIVITY)
		return -1;
	if (!(m->activities = calloc(n ? n : 1, sizeof(*m->activities))))
		return -2;
	return ecp_unpack_activities(c->fd, sum, left, bytes, m->activities, n);
}

/* Reads every table after the header into m and c, checking their sum:
 * 0, -1 (truncated, too long or stale) or -2 (no memory). */
static int cache_tables_read(struct cache_reader *c, struct ecp_model *m, uint64_t left)
{
	const struct header *h = &c->h;
	int fd = c->fd;
	struct ecp_csum sum = {0};
	int t = 0;
	if ((t = take(fd, &sum, &left, (void **)&m->threads, sizeof(*m->threads),
		      h->n_threads)) ||
	    (t = unpack_segments(c, m, &sum, &left)) ||
	    (t = unpack_edges(c, m, &sum, &left)) ||
	    (t = take(fd, &sum, &left, (void **)&m->locks, sizeof(*m->locks),
		      h->n_locks)) ||
	    (t = take(fd, &sum, &left, (void **)&c->df, sizeof(*c->df),
		      h->n_functions)) ||
	    (t = unpack_activities(c, m, &sum, &left)) ||
	    (t = take(fd, &sum, &left, (void **)&m->calls, sizeof(*m->calls),
		      h->n_calls)) ||
	    (t = take(fd, &sum, &left, (void **)&m->spawn_sites, sizeof(*m->spawn_sites),
		      h->n_spawn_sites)) ||
	    (t = take(fd, &sum, &left, (void **)&c->wo, sizeof(*c->wo), h->n_warnings)) ||
	    (t = take(fd, &sum, &left, (void **)&c->strbuf, 1, h->strings_size)))
		return t;
	/* the header last, its checksum 0, as it was summed */
	struct header unsummed = *h;
	unsummed.checksum = 0;
	ecp_csum_add(&sum, &unsummed, sizeof(unsummed));
	if (left != 0 || !h->strings_size || c->strbuf[h->strings_size - 1] != '\0' ||
	    ecp_csum_end(&sum) != h->checksum)
		return -1;
	return 0;
}

/* The string at offset off of the table, NULL if past its end. */
static char *cache_string(const struct cache_reader *c, uint64_t off)
{
	return off < c->h.strings_size ? c->strings + off : NULL;
}

/* The functions and warnings with their strings: 0, -1 (a warning past the
 * string table) or -2 (no memory). */
static int cache_functions_take(const struct cache_reader *c, struct ecp_model *m)
{
	const struct header *h = &c->h;
	m->functions = calloc(h->n_functions ? h->n_functions : 1, sizeof(*m->functions));
	m->warnings = calloc(h->n_warnings ? h->n_warnings : 1, sizeof(*m->warnings));
	if (!m->functions || !m->warnings)
		return -2;
	m->n_functions = (uint32_t)h->n_functions;
	for (uint64_t i = 0; i < h->n_functions; i++) {
		m->functions[i].addr = c->df[i].addr;
		m->functions[i].folded_calls = c->df[i].folded_calls;
		m->functions[i].samples = c->df[i].samples;
		m->functions[i].call_site = c->df[i].call_site;
		m->functions[i].name = cache_string(c, c->df[i].name);
		m->functions[i].object = cache_string(c, c->df[i].object);
	}
	m->n_warnings = h->n_warnings;
	for (uint64_t i = 0; i < h->n_warnings; i++)
		if (!(m->warnings[i] = cache_string(c, c->wo[i])))
			return -1;
	return 0;
}

/* The recording's info from the header; false if one of its strings is
 * past the string table. */
static bool cache_info_take(const struct cache_reader *c, struct ecp_model *m)
{
	const struct header *h = &c->h;
	m->info.trace_path = cache_string(c, h->trace_path);
	m->info.program = cache_string(c, h->program);
	m->info.clock = cache_string(c, h->clock);
	m->info.events = h->events;
	m->info.discarded_events = h->discarded;
	m->info.switches_lost = h->switches_lost;
	m->info.as_cpus = h->as_cpus;
	m->info.recorded_cpus = h->recorded_cpus;
	m->info.cpu_count_read = h->cpu_count_read != 0;
	m->info.event_cost_ns = h->event_cost_ns;
	m->info.event_cost_ps = h->event_cost_ps;
	m->info.sample_cost_ns = h->sample_cost_ns;
	m->info.program_cpu_ns = h->program_cpu_ns;
	m->info.overhead_ns = h->overhead_ns;
	m->info.outside_cpu_ns = h->outside_cpu_ns;
	m->info.outside_threads = (uint32_t)h->outside_threads;
	m->info.untracked_cpu_ns = h->untracked_cpu_ns;
	m->info.guessed_cpu_ns = h->guessed_cpu_ns;
	m->info.steal_ns = h->steal_ns;
	m->info.other_cpu_ns = h->other_cpu_ns;
	m->info.other_cpu_resolution_ns = h->other_cpu_resolution_ns;
	m->info.unknown_deps_ns = h->unknown_deps_ns;
	m->info.recorded_wall_ns = h->wall_ns;
	m->info.functions_recorded = h->functions_recorded != 0;
	m->info.samples = h->samples;
	m->info.samples_lost = h->samples_lost;
	m->info.sample_hz = h->sample_hz;
	m->info.samples_throttled = h->samples_throttled;
	m->info.tasks_dealt = h->tasks_dealt;
	m->info.tasks_kept = h->tasks_kept;
	m->info.tie_draws = (uint32_t)h->tie_draws;
	return m->info.trace_path && m->info.program && m->info.clock;
}

int ecp_cache_load(const char *path, uint64_t fp, bool need_calls, struct ecp_model **out,
		   struct ecp_error *err)
{
	*out = NULL;
	struct cache_reader c = {.fd = -1};
	/* never through a link, never a FIFO (which would block the open) */
	c.fd = ecp_open_regular(path, true);
	if (c.fd < 0)
		return 0;
	struct stat st;
	struct ecp_model *m = NULL;
	int rc = 0;
	if (fstat(c.fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !cache_header_read(&c, &st, fp, need_calls))
		goto out;
	m = ecp_model_create();
	if (!m)
		goto out_nomem;
	int t = cache_tables_read(&c, m, (uint64_t)st.st_size - sizeof(c.h));
	if (t == -2)
		goto out_nomem;
	if (t)
		goto out;
	c.strings =
	    ecp_strings_ndup(ecp_model_strings(m), c.strbuf, c.h.strings_size - 1);
	if (!c.strings)
		goto out_nomem;
	m->n_threads = (uint32_t)c.h.n_threads;
	m->n_segments = (uint32_t)c.h.n_segments;
	m->n_edges = (uint32_t)c.h.n_edges;
	m->n_locks = (uint32_t)c.h.n_locks;
	m->n_activities = c.h.n_activities;
	m->n_calls = c.h.n_calls;
	if (!c.h.n_calls) {
		free(m->calls);
		m->calls = NULL;
	}
	m->n_spawn_sites = (uint32_t)c.h.n_spawn_sites;
	if (!c.h.n_spawn_sites) {
		free(m->spawn_sites);
		m->spawn_sites = NULL;
	}
	t = cache_functions_take(&c, m);
	if (t == -2)
		goto out_nomem;
	if (t || !cache_info_take(&c, m))
		goto out;
	/* A cache that does not hold together is stale, not fatal. */
	struct ecp_error verr = {0};
	if (ecp_model_validate(m, &verr) < 0)
		goto out;
	*out = m;
	m = NULL;
	rc = 1;
	goto out;
out_nomem:
	rc = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory reading %s", path);
out:
	close(c.fd);
	free(c.strbuf);
	free(c.df);
	free(c.wo);
	ecp_model_destroy(m);
	return rc;
}
