/* SPDX-License-Identifier: MIT */
#include "recorder/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ecp-config.h"

/* Values are single lines: a newline inside an argument would start a
 * bogus key, so it is written as a space. */
static void put_clean(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void put_list(FILE *f, const char *key, char *const *list, const char *sep)
{
	fprintf(f, "%s=", key);
	for (size_t i = 0; list && list[i]; i++) {
		if (i)
			fputs(sep, f);
		put_clean(f, list[i]);
	}
	fputc('\n', f);
}

int ecp_record_meta_write(const char *dir, const struct ecp_record_meta *m,
			  struct ecp_error *err)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, ECP_META_FILE);
	/* a new file, never through a link planted in the directory meanwhile
	 * (as root, fopen "w" once overwrote the file a symlink named) */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", path,
				     strerror(e));
	}
	fprintf(f, "format=%d\n", ECP_TRACE_FORMAT);
	fprintf(f, "version=%s\n", ECP_VERSION);
	put_list(f, "command", m->argv, " ");
	fprintf(f, "cpu=%d\n", m->cpu);
	if (m->n_cpus > 1)
		fprintf(f, "cpus=%zu\ncpu_list=%s\n", m->n_cpus,
			m->cpu_list ? m->cpu_list : "");
	fprintf(f, "as_cpus=%u\n", m->as_cpus);
	fprintf(f, "clock=%s\n", m->clock);
	fprintf(f, "event_cost_ns=%llu\n", (unsigned long long)m->event_cost_ns);
	fprintf(f, "event_cost_ps=%llu\n", (unsigned long long)m->event_cost_ps);
	fprintf(f, "event_cost_source=%s\n",
		m->event_cost_source ? m->event_cost_source : "calibration");
	fprintf(f, "sample_cost_ns=%llu\n", (unsigned long long)m->sample_cost_ns);
	fprintf(f, "switch_cost_ps=%llu\n", (unsigned long long)m->switch_cost_ps);
	fprintf(f, "call_cost_ns=%llu\n", (unsigned long long)m->call_cost_ns);
	if (m->signal > 0)
		fprintf(f, "exit_status=signal:%d\n", m->signal);
	else
		fprintf(f, "exit_status=%d\n", m->exit_code);
	fprintf(f, "wall_ns=%llu\n", (unsigned long long)m->wall_ns);
	fprintf(f, "program_cpu_ns=%llu\n", (unsigned long long)m->cpu_ns);
	fprintf(f, "functions=%d\n", m->functions ? 1 : 0);
	fprintf(f, "functions_mode=%s\n",
		m->functions_mode ? m->functions_mode : "instrument");
	fprintf(f, "sample_hz=%u\n", m->sample_hz);
	fprintf(f, "samples=%llu\n", (unsigned long long)m->samples);
	fprintf(f, "samples_lost=%llu\n", (unsigned long long)m->samples_lost);
	fprintf(f, "depth=%u\n", m->depth);
	put_list(f, "include", m->include, ",");
	put_list(f, "exclude", m->exclude, ",");
	fprintf(f, "min_duration_ns=%llu\n", (unsigned long long)m->min_duration_ns);
	fprintf(f, "sched_lost=%llu\n", (unsigned long long)m->sched_lost);
	fprintf(f, "discarded_events=%llu\n", (unsigned long long)m->discarded);
	fprintf(f, "lost_packets=%llu\n", (unsigned long long)m->lost_packets);
	fprintf(f, "calls_too_deep=%llu\n", (unsigned long long)m->calls_too_deep);
	fprintf(f, "cpu_count_read=%d\n", m->cpu_count_read ? 1 : 0);
	/* the streams are listed in ECP_MANIFEST_FILE, written last */
	fprintf(f, "manifest=1\n");
	if (fclose(f) != 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", path,
				     strerror(errno));
	return ECP_OK;
}
