/* SPDX-License-Identifier: MIT */
#include "recorder/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/record-meta.h"
#include "ecp-config.h"

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
	ecp_meta_put_uint(f, ECP_META_FORMAT, ECP_TRACE_FORMAT);
	ecp_meta_put_text(f, ECP_META_VERSION, ECP_VERSION);
	ecp_meta_put_list(f, ECP_META_COMMAND, m->argv, " ");
	ecp_meta_put_uint(f, ECP_META_CPU, (uint64_t)m->cpu);
	if (m->n_cpus > 1) {
		ecp_meta_put_uint(f, ECP_META_CPUS, m->n_cpus);
		ecp_meta_put_text(f, ECP_META_CPU_LIST, m->cpu_list ? m->cpu_list : "");
	}
	ecp_meta_put_uint(f, ECP_META_AS_CPUS, m->as_cpus);
	ecp_meta_put_text(f, ECP_META_CLOCK, m->clock);
	ecp_meta_put_uint(f, ECP_META_EVENT_COST_NS, m->event_cost_ns);
	ecp_meta_put_uint(f, ECP_META_EVENT_COST_PS, m->event_cost_ps);
	ecp_meta_put_text(f, ECP_META_EVENT_COST_SOURCE,
			  m->event_cost_source ? m->event_cost_source : "calibration");
	ecp_meta_put_uint(f, ECP_META_OTHER_EVENT_COST_PS,
			  m->other_event_cost_ps ? m->other_event_cost_ps
						 : m->event_cost_ps);
	ecp_meta_put_text(f, ECP_META_OTHER_EVENT_COST_SOURCE,
			  m->other_event_cost_source ? m->other_event_cost_source
						     : "calibration");
	ecp_meta_put_uint(f, ECP_META_OTHER_EVENT_CALIBRATED_PS,
			  m->other_event_calibrated_ps);
	ecp_meta_put_uint(f, ECP_META_OTHER_EVENTS_TIMED, m->other_events_timed);
	ecp_meta_put_uint(f, ECP_META_OTHER_EVENT_UNTIMED_PS, m->other_event_untimed_ps);
	ecp_meta_put_uint(f, ECP_META_SAMPLE_COST_NS, m->sample_cost_ns);
	ecp_meta_put_uint(f, ECP_META_SWITCH_COST_PS, m->switch_cost_ps);
	ecp_meta_put_uint(f, ECP_META_THREAD_CREATE_COST_PS, m->thread_create_cost_ps);
	ecp_meta_put_uint(f, ECP_META_CALL_COST_NS, m->call_cost_ns);
	ecp_meta_put_uint(f, ECP_META_CALL_UNTIMED_PS, m->call_untimed_ps);
	char status[32];
	if (m->signal > 0)
		snprintf(status, sizeof(status), "signal:%d", m->signal);
	else
		snprintf(status, sizeof(status), "%d", m->exit_code);
	ecp_meta_put_text(f, ECP_META_EXIT_STATUS, status);
	ecp_meta_put_uint(f, ECP_META_WALL_NS, m->wall_ns);
	ecp_meta_put_uint(f, ECP_META_PROGRAM_CPU_NS, m->cpu_ns);
	if (m->steal_known) {
		ecp_meta_put_uint(f, ECP_META_STEAL_NS, m->steal_ns);
		ecp_meta_put_uint(f, ECP_META_STEAL_TICK_NS, m->steal_tick_ns);
	}
	if (m->other_cpu_known) {
		ecp_meta_put_uint(f, ECP_META_OTHER_CPU_NS, m->other_cpu_ns);
		ecp_meta_put_uint(f, ECP_META_OTHER_CPU_RESOLUTION_NS,
				  m->other_cpu_resolution_ns);
	}
	ecp_meta_put_uint(f, ECP_META_FUNCTIONS, m->functions ? 1 : 0);
	ecp_meta_put_text(f, ECP_META_FUNCTIONS_MODE,
			  m->functions_mode ? m->functions_mode : "instrument");
	ecp_meta_put_uint(f, ECP_META_SAMPLE_HZ, m->sample_hz);
	ecp_meta_put_uint(f, ECP_META_SAMPLES, m->samples);
	ecp_meta_put_uint(f, ECP_META_SAMPLES_LOST, m->samples_lost);
	ecp_meta_put_uint(f, ECP_META_SAMPLE_HZ_ASKED, m->sample_hz_asked);
	ecp_meta_put_uint(f, ECP_META_SAMPLE_RATE_MAX, m->sample_rate_max);
	ecp_meta_put_uint(f, ECP_META_SAMPLES_THROTTLED, m->samples_throttled);
	ecp_meta_put_uint(f, ECP_META_DEPTH, m->depth);
	ecp_meta_put_list(f, ECP_META_INCLUDE, m->include, ",");
	ecp_meta_put_list(f, ECP_META_EXCLUDE, m->exclude, ",");
	ecp_meta_put_uint(f, ECP_META_MIN_DURATION_NS, m->min_duration_ns);
	ecp_meta_put_uint(f, ECP_META_SCHED_LOST, m->sched_lost);
	ecp_meta_put_uint(f, ECP_META_DISCARDED_EVENTS, m->discarded);
	ecp_meta_put_uint(f, ECP_META_LOST_PACKETS, m->lost_packets);
	ecp_meta_put_uint(f, ECP_META_CALLS_TOO_DEEP, m->calls_too_deep);
	ecp_meta_put_uint(f, ECP_META_CPU_COUNT_READ, m->cpu_count_read ? 1 : 0);
	ecp_meta_put_uint(f, ECP_META_TIME_SLICE_NS, m->time_slice_ns);
	/* the streams are listed in ECP_MANIFEST_FILE, written last */
	ecp_meta_put_uint(f, ECP_META_MANIFEST, 1);
	if (fclose(f) != 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot write %s: %s", path,
				     strerror(errno));
	return ECP_OK;
}
