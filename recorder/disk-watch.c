#include "recorder/disk-watch.h"

#include <string.h>
#include <sys/statvfs.h>

#include "recorder/session.h"

/* Room above LTTng's buffers: what the program can write between two looks
 * (20 ms at up to ~400 MB/s with every call recorded is 8 MB) and the
 * trace's own files written at the end (metadata, copies of objects). */
#define MARGIN_BYTES (16ull << 20)

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

bool ecp_disk_watch_check(struct ecp_disk_watch *w, uint64_t now_ns)
{
	if (w->stopped_ns || w->dir_fd < 0)
		return false;
	uint64_t free = ecp_disk_free(w->dir_fd);
	if (free == UINT64_MAX || free >= w->reserve)
		return false;
	w->stopped_ns = now_ns ? now_ns : 1;
	w->free_at_stop = free;
	for (int i = 0; i < 2; i++)
		if (w->sessions[i])
			ecp_lttng_session_stop_no_wait(w->sessions[i]);
	return true;
}
