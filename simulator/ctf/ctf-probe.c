/* SPDX-License-Identifier: MIT */
#include "simulator/ctf/ctf-probe.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "simulator/ctf/child.h"
#include "simulator/ctf/reader-ctf.h"

static int on_event(void *user, const struct ecp_event *ev, struct ecp_error *err)
{
	(void)user;
	(void)ev;
	(void)err;
	return ECP_OK;
}

struct attempt {
	const char *dir;
	struct ecp_ctf_stats stats;
};

/* In the child: decode `dir`; the message is "EVENTS CAUSE". */
static int decode_alone(void *user, char *msg, size_t len)
{
	struct attempt *a = user;
	struct ecp_ctf_callbacks cb = {.event = on_event};
	struct ecp_error err = {0};
	int rc = ecp_ctf_read(a->dir, a->dir, &cb, NULL, &a->stats, &err);
	snprintf(msg, len, "%llu %s", (unsigned long long)a->stats.events,
		 a->stats.bt_cause[0] ? a->stats.bt_cause : err.msg);
	/* A stream that babeltrace2 ended early at damaged data counts. */
	return rc < 0 || a->stats.bt_failed ? 1 : 0;
}

/* `why` with the private directory's name replaced by the trace's, which
 * is what the user knows. */
static void set_why(struct ecp_ctf_damage *out, const char *why, const char *tmp,
		    const char *ctf_dir)
{
	const char *at = strstr(why, tmp);
	if (at)
		snprintf(out->why, sizeof(out->why), "%.*s%.200s%.200s", (int)(at - why),
			 why, ctf_dir, at + strlen(tmp));
	else
		snprintf(out->why, sizeof(out->why), "%.400s", why);
}

#define PROBE_TIMEOUT_S 120u

/* Decodes `dir` in a child; 1 and *out's reason when it fails. */
static int try_dir(const char *dir, const char *ctf_dir, struct ecp_ctf_damage *out,
		   struct ecp_error *err)
{
	struct attempt a = {.dir = dir};
	struct ecp_child_result res;
	/* a stream whose metadata makes babeltrace2 spin must not hang the
	 * explanation of a failure either */
	if (ecp_child_run_limited(decode_alone, &a, PROBE_TIMEOUT_S, &res, err) < 0)
		return -1;
	if (res.timed_out) {
		out->events = 0;
		snprintf(out->why, sizeof(out->why),
			 "decoding it did not finish in %u s (damaged CTF metadata)",
			 PROBE_TIMEOUT_S);
		return 1;
	}
	if (!res.crashed && res.status == 0)
		return 0;
	char *end = NULL;
	unsigned long long events = strtoull(res.msg, &end, 10);
	out->events = end != res.msg ? events : 0;
	out->crashed = res.crashed;
	out->signal = res.signal;
	if (res.crashed)
		snprintf(out->why, sizeof(out->why), "babeltrace2 crashed on it (%s)",
			 res.signal ? ecp_child_signal_name(res.signal)
				    : "a fatal error");
	else
		set_why(out, end && *end == ' ' ? end + 1 : res.msg, dir, ctf_dir);
	return 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of ctf_dir but its metadata, sorted (the index/
 * directory and hidden files are not streams). */
static int list_streams(const char *ctf_dir, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	DIR *d = opendir(ctf_dir);
	if (!d)
		return 0;
	size_t cap = 0;
	int rc = 0;
	for (struct dirent *e; (e = readdir(d));) {
		char path[PATH_MAX];
		struct stat st;
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata") ||
		    snprintf(path, sizeof(path), "%s/%s", ctf_dir, e->d_name) >=
			(int)sizeof(path) ||
		    stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			char **p = realloc(*names, cap * sizeof(*p));
			if (!p) {
				rc = -1;
				break;
			}
			*names = p;
		}
		if (!((*names)[*n] = strdup(e->d_name))) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return rc;
}

/* tmp/metadata -> ctf_dir/metadata and, when `stream`, tmp/stream too. */
static int link_into(const char *tmp, const char *ctf_dir, const char *stream)
{
	char from[2 * PATH_MAX], to[2 * PATH_MAX];
	char abs[PATH_MAX];
	if (!realpath(ctf_dir, abs))
		return -1;
	if (snprintf(from, sizeof(from), "%s/%s", abs, stream ? stream : "metadata") >=
		(int)sizeof(from) ||
	    snprintf(to, sizeof(to), "%s/%s", tmp, stream ? stream : "metadata") >=
		(int)sizeof(to)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (stream && link_into(tmp, ctf_dir, NULL) < 0)
		return -1;
	return symlink(from, to);
}

static void unlink_from(const char *tmp, const char *stream)
{
	char p[2 * PATH_MAX];
	if (snprintf(p, sizeof(p), "%s/metadata", tmp) < (int)sizeof(p))
		unlink(p);
	if (stream && snprintf(p, sizeof(p), "%s/%s", tmp, stream) < (int)sizeof(p))
		unlink(p);
}

int ecp_ctf_probe(const char *ctf_dir, struct ecp_ctf_damage *out, struct ecp_error *err)
{
	memset(out, 0, sizeof(*out));
	const char *tmpdir = getenv("TMPDIR");
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s/ecp-probe-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmp))
		return ecp_error_set(
		    err, ECP_ERR_IO,
		    "cannot create a temporary directory to check %s: %s", ctf_dir,
		    strerror(errno));
	char **names = NULL;
	size_t n = 0;
	int found = 0;
	if (link_into(tmp, ctf_dir, NULL) < 0) {
		found =
		    ecp_error_set(err, ECP_ERR_IO, "cannot link %s/metadata into %s: %s",
				  ctf_dir, tmp, strerror(errno));
		goto out;
	}
	found = try_dir(tmp, ctf_dir, out, err);
	unlink_from(tmp, NULL);
	if (found) {
		if (found > 0) {
			out->is_metadata = 1;
			snprintf(out->file, sizeof(out->file), "%.4000s/metadata",
				 ctf_dir);
		}
		goto out;
	}
	if (list_streams(ctf_dir, &names, &n) < 0) {
		found = ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !found; i++) {
		if (link_into(tmp, ctf_dir, names[i]) < 0) {
			found = ecp_error_set(err, ECP_ERR_IO,
					      "cannot link %s/%s into %s: %s", ctf_dir,
					      names[i], tmp, strerror(errno));
			break;
		}
		found = try_dir(tmp, ctf_dir, out, err);
		unlink_from(tmp, names[i]);
		if (found > 0)
			snprintf(out->file, sizeof(out->file), "%.3000s/%.1000s", ctf_dir,
				 names[i]);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	rmdir(tmp);
	return found;
}
