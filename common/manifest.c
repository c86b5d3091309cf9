/* SPDX-License-Identifier: MIT */
#include "common/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/checksum.h"

/* The parts of a trace the manifest covers: the metadata (its figures are in
 * every answer), the streams LTTng wrote and the copies of the program and
 * its libraries (their names and attribution). */
static const char *const parts[] = {"ecp-record.meta", "main", "sched", "objects"};
#define MAX_DEPTH 8
/* The sum of a file this user cannot read (never a real one in practice). */
#define UNREADABLE 0

struct entry {
	char *rel; /* path below the trace directory */
	uint64_t size, sum;
	bool seen;
};

struct list {
	struct entry *v;
	size_t n, cap;
	bool lanes4; /* summed with ecp_csum4 (since issue 35), else ecp_csum */
};

/* The first line says which checksum the manifest's sums are. */
#define HEADER_CSUM4 "# size checksum/4 path:"

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].rel);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int list_add(struct list *l, const char *rel, uint64_t size, uint64_t sum)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct entry *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	char *copy = strdup(rel);
	if (!copy)
		return -1;
	l->v[l->n++] = (struct entry){.rel = copy, .size = size, .sum = sum};
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->rel, ((const struct entry *)b)->rel);
}

/* Size and checksum of a regular file, read without following a link. */
static int sum_file(const char *dir, const char *rel, bool lanes4, uint64_t *size,
		    uint64_t *sum, struct ecp_error *err)
{
	char path[PATH_MAX];
	unsigned char buf[1 << 16];
	struct ecp_csum c = {0};
	struct ecp_csum4 c4 = {0};
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return ecp_error_set(
		    err, ECP_ERR, "trace=%s: %s/%s is not a regular file%s%s", dir, dir,
		    rel, fd < 0 ? ": " : "", fd < 0 ? strerror(e) : "");
	}
	*size = 0;
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return ecp_error_set(err, ECP_ERR, "trace=%s: cannot read %s: %s",
					     dir, rel, strerror(e));
		}
		if (r == 0)
			break;
		if (lanes4)
			ecp_csum4_add(&c4, buf, (size_t)r);
		else
			ecp_csum_add(&c, buf, (size_t)r);
		*size += (uint64_t)r;
	}
	close(fd);
	*sum = lanes4 ? ecp_csum4_end(&c4) : ecp_csum_end(&c);
	return ECP_OK;
}

/* Every file below DIR/rel, summed, into l. */
static int walk(const char *dir, const char *rel, int depth, struct list *l,
		struct ecp_error *err)
{
	char path[PATH_MAX], sub[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (lstat(path, &st) < 0)
		return errno == ENOENT && depth == 0
			   ? ECP_OK /* no such part (a trace without samples has one) */
			   : ecp_error_set(err, ECP_ERR, "trace=%s: cannot read %s: %s",
					   dir, rel, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		uint64_t size = 0, sum = 0;
		/* a private copy (a 0700 program recorded by root) that this
		 * user may not read is listed as it is: the check warns */
		if (S_ISREG(st.st_mode) && !strncmp(rel, "objects/", 8) &&
		    access(path, R_OK) != 0)
			return list_add(l, rel, (uint64_t)st.st_size, UNREADABLE) < 0
				   ? ecp_error_set(err, ECP_ERR_NOMEM, "out of memory")
				   : ECP_OK;
		int rc = sum_file(dir, rel, l->lanes4, &size, &sum, err);
		if (rc < 0)
			return rc;
		return list_add(l, rel, size, sum) < 0
			   ? ecp_error_set(err, ECP_ERR_NOMEM, "out of memory")
			   : ECP_OK;
	}
	if (depth > MAX_DEPTH)
		return ecp_error_set(err, ECP_ERR, "trace=%s: %s is nested too deep", dir,
				     rel);
	DIR *d = opendir(path);
	if (!d)
		return ecp_error_set(err, ECP_ERR, "trace=%s: cannot read %s: %s", dir,
				     rel, strerror(errno));
	int rc = ECP_OK;
	for (struct dirent *e; rc == ECP_OK && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >=
		    sizeof(sub))
			rc = ecp_error_set(
			    err, ECP_ERR, "trace=%s: a path is too long in %s", dir, rel);
		else
			rc = walk(dir, sub, depth + 1, l, err);
	}
	closedir(d);
	return rc;
}

static int walk_parts(const char *dir, struct list *l, struct ecp_error *err)
{
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		int rc = walk(dir, parts[i], 0, l, err);
		if (rc < 0)
			return rc;
	}
	qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	return ECP_OK;
}

int ecp_manifest_write(const char *dir, struct ecp_error *err)
{
	struct list l = {.lanes4 = true};
	char path[PATH_MAX];
	int rc = walk_parts(dir, &l, err);
	if (rc < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_MANIFEST_FILE);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", path,
				   strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f, HEADER_CSUM4 " the recorded streams (ecp record)\n");
	for (size_t i = 0; i < l.n; i++)
		fprintf(f, "%" PRIu64 " %016" PRIx64 " %s\n", l.v[i].size, l.v[i].sum,
			l.v[i].rel);
	if (fclose(f) != 0)
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", path,
				   strerror(errno));
out:
	list_free(&l);
	return rc;
}

/* The manifest's lines, into l (seen = false). */
static int read_manifest(const char *dir, FILE *f, struct list *l, struct ecp_error *err)
{
	char line[PATH_MAX + 64], rel[PATH_MAX];
	unsigned lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t size = 0, sum = 0;
		lineno++;
		if (lineno == 1)
			l->lanes4 = !strncmp(line, HEADER_CSUM4, strlen(HEADER_CSUM4));
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%" SCNu64 " %" SCNx64 " %4095s", &size, &sum, rel) != 3)
			return ecp_error_set(err, ECP_ERR,
					     "trace=%s: %s line %u is damaged", dir,
					     ECP_MANIFEST_FILE, lineno);
		if (list_add(l, rel, size, sum) < 0)
			return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	}
	qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
	return ECP_OK;
}

/* A copy of the program or a library (names only): a warning, the first. */
static bool soft(const char *rel, char *warn, size_t warn_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool soft(const char *rel, char *warn, size_t warn_len, const char *fmt, ...)
{
	if (strncmp(rel, "objects/", 8))
		return false;
	if (!warn[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(warn, warn_len, fmt, ap);
		va_end(ap);
	}
	return true;
}

static int compare(const char *dir, struct list *want, struct list *have, char *warn,
		   size_t warn_len, struct ecp_error *err)
{
	for (size_t i = 0; i < have->n; i++) {
		struct entry key = {.rel = have->v[i].rel};
		struct entry *w =
		    bsearch(&key, want->v, want->n, sizeof(*want->v), cmp_entry);
		const char *rel = have->v[i].rel;
		if (!w) {
			if (soft(rel, warn, warn_len,
				 "%s/%s is not part of the recording: names from it may "
				 "be another program's",
				 dir, rel))
				continue;
			return ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: %s/%s is not part of the recording (not "
			    "in %s): a file of another trace?",
			    dir, dir, rel, ECP_MANIFEST_FILE);
		}
		w->seen = true;
		if (w->size != have->v[i].size) {
			const char *how =
			    have->v[i].size < w->size ? "truncated" : "extended";
			if (soft(rel, warn, warn_len,
				 "%s/%s is %" PRIu64
				 " bytes, the recording copied %" PRIu64
				 " (%s): names from it may be missing or wrong",
				 dir, rel, have->v[i].size, w->size, how))
				continue;
			return ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: %s/%s is %" PRIu64 " bytes, the recording "
			    "wrote %" PRIu64 ": it was %s",
			    dir, dir, rel, have->v[i].size, w->size, how);
		}
		if (have->v[i].sum == UNREADABLE &&
		    soft(rel, warn, warn_len,
			 "%s/%s cannot be read by this user: names from it are addresses",
			 dir, rel))
			continue;
		if (w->sum != have->v[i].sum) {
			if (soft(rel, warn, warn_len,
				 "%s/%s is not the copy the recording made (its checksum "
				 "differs): names from it may be wrong",
				 dir, rel))
				continue;
			return ecp_error_set(
			    err, ECP_ERR,
			    "trace=%s: %s/%s is not what the recording wrote (its "
			    "checksum differs): the file is damaged",
			    dir, dir, rel);
		}
	}
	for (size_t i = 0; i < want->n; i++) {
		if (want->v[i].seen ||
		    soft(want->v[i].rel, warn, warn_len,
			 "%s/%s is missing: names from it are addresses", dir,
			 want->v[i].rel))
			continue;
		return ecp_error_set(
		    err, ECP_ERR,
		    "trace=%s: %s/%s is missing (the recording wrote %" PRIu64
		    " bytes there)",
		    dir, dir, want->v[i].rel, want->v[i].size);
	}
	return ECP_OK;
}

int ecp_manifest_check(const char *dir, bool *present, char *warn, size_t warn_len,
		       struct ecp_error *err)
{
	char path[PATH_MAX];
	struct list want = {0}, have = {0};
	*present = false;
	if (warn_len)
		warn[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_MANIFEST_FILE);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return ECP_OK;
		return ecp_error_set(err, ECP_ERR, "trace=%s: cannot read %s: %s", dir,
				     ECP_MANIFEST_FILE, strerror(errno));
	}
	struct stat st;
	FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
	if (!f) {
		close(fd);
		return ecp_error_set(err, ECP_ERR, "trace=%s: %s is not a regular file",
				     dir, ECP_MANIFEST_FILE);
	}
	*present = true;
	int rc = read_manifest(dir, f, &want, err);
	fclose(f);
	have.lanes4 = want.lanes4;
	if (rc == ECP_OK)
		rc = walk_parts(dir, &have, err);
	if (rc == ECP_OK)
		rc = compare(dir, &want, &have, warn, warn_len, err);
	list_free(&want);
	list_free(&have);
	return rc;
}
