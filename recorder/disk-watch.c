/* SPDX-License-Identifier: MIT */
#include "recorder/disk-watch.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "recorder/lttng-session.h"

/* Room above LTTng's buffers: what the program can write between two looks
 * and the trace's own files written at the end (metadata, copies of
 * objects); at least this, more at a fast fill rate (below). */
#define MARGIN_BYTES (16ull << 20)

/* How long the driver may take to look again and the program to see the
 * stop, at the fastest rate the filesystem filled: on a busy machine the
 * driver and the program's LTTng listener wait for a CPU (every call
 * recorded writes ~400 MB/s, 200 MB in this time).  A consumer that meets a
 * full filesystem stops for good, and the program with it. */
#define LATENCY_NS 500000000.0

uint64_t ecp_disk_free(int fd)
{
	struct statvfs v;
	if (fstatvfs(fd, &v) < 0)
		return UINT64_MAX;
	return (uint64_t)v.f_bavail * (uint64_t)(v.f_frsize ? v.f_frsize : v.f_bsize);
}

int ecp_disk_watch_init(struct ecp_disk_watch *w, int dir_fd, const char *path,
			uint64_t buffer_bytes, const char *session_main,
			const char *session_sched, struct ecp_error *err)
{
	memset(w, 0, sizeof(*w));
	w->dir_fd = dir_fd;
	w->buffers = buffer_bytes;
	w->reserve = buffer_bytes + MARGIN_BYTES;
	w->sessions[0] = session_main;
	w->sessions[1] = session_sched;
	uint64_t free = ecp_disk_free(dir_fd);
	/* a recording that would stop at once is refused before the program runs */
	if (free != UINT64_MAX && free < w->reserve + MARGIN_BYTES)
		return ecp_error_set(
		    err, ECP_ERR_IO,
		    "only %llu MiB are free on the filesystem of %s; a recording needs "
		    "at "
		    "least %llu MiB (%llu MiB of LTTng buffers that must always be "
		    "written "
		    "out, and room for the trace): free space, or record elsewhere (-o)",
		    (unsigned long long)(free >> 20), path,
		    (unsigned long long)((w->reserve + MARGIN_BYTES + (1u << 20) - 1) >>
					 20),
		    (unsigned long long)((buffer_bytes + (1u << 20) - 1) >> 20));
	return ECP_OK;
}

/* Walks every regular file under dir (at fd, taken), recursively: with
 * `empty`, truncates each to nothing (the stream files of a recording that
 * was stopped, which is removed anyway: the space freed lets the consumer go
 * on writing what the program still emits until it sees the stop -- its
 * listener thread shares the program's one CPU, so that can take a while on
 * a busy machine -- and a consumer that meets a full filesystem stops
 * consuming, the program blocked for good).  Returns the bytes the files
 * hold (before emptying). */
static uint64_t walk_files(int fd, int depth, bool empty)
{
	uint64_t bytes = 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < 8) {
			int child =
			    openat(dirfd(d), e->d_name,
				   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (child >= 0)
				bytes += walk_files(child, depth + 1, empty);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		bytes += (uint64_t)st.st_blocks * 512u;
		if (!empty || !st.st_size)
			continue;
		int wfd = openat(dirfd(d), e->d_name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		if (wfd >= 0) {
			if (ftruncate(wfd, 0) < 0) {
				/* nothing more to free there */
			}
			close(wfd);
		}
	}
	closedir(d);
	return bytes;
}

/* The trace's streams: their size, emptied when `empty`. */
static uint64_t streams(const struct ecp_disk_watch *w, bool empty)
{
	static const char *const dirs[] = {"main", "sched"};
	uint64_t bytes = 0;
	for (size_t i = 0; i < 2; i++) {
		int fd = openat(w->dir_fd, dirs[i],
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			bytes += walk_files(fd, 0, empty);
	}
	return bytes;
}

bool ecp_disk_watch_check(struct ecp_disk_watch *w, uint64_t now_ns)
{
	if (w->dir_fd < 0)
		return false;
	if (w->stopped_ns) {
		/* until the program ends: what it still writes must fit */
		if (ecp_disk_free(w->dir_fd) < w->reserve)
			streams(w, true);
		return false;
	}
	uint64_t free = ecp_disk_free(w->dir_fd);
	if (free == UINT64_MAX)
		return false;
	/* the rate is the trace's own growth: other processes' files come and
	 * go on a shared filesystem (a test freeing gigabytes once read as
	 * 178 GB/s), and only what LTTng writes can block the program */
	uint64_t written = streams(w, false);
	if (w->last_ns && now_ns > w->last_ns && written > w->last_written) {
		double rate =
		    (double)(written - w->last_written) / (double)(now_ns - w->last_ns);
		if (rate > w->fill_rate)
			w->fill_rate = rate;
	}
	w->last_written = written;
	w->last_ns = now_ns;
	double margin = w->fill_rate * LATENCY_NS;
	uint64_t need =
	    w->reserve + (margin > MARGIN_BYTES ? (uint64_t)margin - MARGIN_BYTES : 0);
	if (free >= need)
		return false;
	w->stopped_ns = now_ns ? now_ns : 1;
	w->free_at_stop = free;
	for (int i = 0; i < 2; i++)
		if (w->sessions[i])
			ecp_lttng_session_stop_no_wait(w->sessions[i]);
	streams(w, true);
	return true;
}
