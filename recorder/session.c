#include "recorder/session.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DAEMON_WAIT_MS 10000

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Runs `lttng-sessiond --daemonize --no-kernel`: it returns once the
 * daemon runs.  Its output goes to /dev/null; failures are seen as a daemon
 * that never answers. */
static int spawn_sessiond(struct ecp_error *err)
{
	pid_t pid = fork();
	int status;
	if (pid < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot fork lttng-sessiond: %s",
				     strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("lttng-sessiond", "lttng-sessiond", "--daemonize", "--no-kernel",
		       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return ecp_error_set(
		    err, ECP_ERR_IO,
		    "lttng-sessiond failed to start (is lttng-tools installed?): "
		    "status=%d",
		    status);
	return ECP_OK;
}

static pid_t read_pid_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

/* As root: a private mount namespace with fresh tmpfs on /var/run/lttng
 * (the root daemon's fixed socket directory) and /dev/shm, so that our
 * daemon, the program and nothing else meet there, whatever system daemon
 * or other recording runs meanwhile.  The namespace ends with this process.
 * Must run while the process has one thread (unshare refuses otherwise). */
static bool private_namespace(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return false;
	/* source and type are ignored for a propagation change; "none" rather
	 * than NULL keeps memory checkers quiet */
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	mkdir("/var/run/lttng", 0755);
	if (mount("ecp-lttng", "/var/run/lttng", "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755") < 0)
		return false;
	if (mount("ecp-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0)
		return false;
	return true;
}

int ecp_lttng_daemon_start(struct ecp_lttng_daemon *d, struct ecp_error *err)
{
	char pidfile[320];
	int rc;

	memset(d, 0, sizeof(*d));
	if (geteuid() != 0) {
		const char *tmp = getenv("TMPDIR");
		snprintf(d->home, sizeof(d->home), "%s/ecp-lttng-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(d->home))
			return ecp_error_set(
			    err, ECP_ERR_IO,
			    "cannot create a private LTTng home: path=%s: %s", d->home,
			    strerror(errno));
		setenv("LTTNG_HOME", d->home, 1);
		snprintf(pidfile, sizeof(pidfile), "%s/.lttng/lttng-sessiond.pid",
			 d->home);
	} else {
		/* Without the namespace (no CAP_SYS_ADMIN), share the system's
		 * daemon if one runs, with uniquely named sessions. */
		if (!private_namespace() && lttng_session_daemon_alive() == 1)
			return ECP_OK;
		snprintf(pidfile, sizeof(pidfile), "/var/run/lttng/lttng-sessiond.pid");
	}
	rc = spawn_sessiond(err);
	if (rc)
		goto fail;
	for (int waited = 0; lttng_session_daemon_alive() != 1; waited += 10) {
		if (waited >= DAEMON_WAIT_MS) {
			rc = ecp_error_set(err, ECP_ERR_IO,
					   "lttng-sessiond did not answer within %d ms",
					   DAEMON_WAIT_MS);
			goto fail;
		}
		sleep_ms(10);
	}
	d->pid = read_pid_file(pidfile);
	return ECP_OK;
fail:
	ecp_lttng_daemon_stop(d);
	return rc;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void ecp_lttng_daemon_stop(struct ecp_lttng_daemon *d)
{
	if (d->pid > 0 && kill(d->pid, SIGTERM) == 0) {
		/* The daemon and its consumer take ~2 s to exit; the private home
		 * can only be removed after them. */
		for (int waited = 0; waited < 5000 && kill(d->pid, 0) == 0; waited += 20)
			sleep_ms(20);
	}
	d->pid = 0;
	if (d->home[0]) {
		nftw(d->home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		d->home[0] = 0;
	}
}

static int ctl_error(struct ecp_error *err, int ret, const char *what,
		     const char *session)
{
	return ecp_error_set(err, ECP_ERR_IO, "LTTng: %s failed: session=%s: %s", what,
			     session, lttng_strerror(ret));
}

int ecp_lttng_session_create(const struct ecp_lttng_session_config *cfg,
			     struct ecp_error *err)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST,
				   .buf_type = LTTNG_BUFFER_PER_UID};
	struct lttng_handle *h = NULL;
	struct lttng_channel *ch = NULL;
	struct lttng_event *ev = NULL;
	char url[4200];
	int ret, rc = ECP_OK;

	snprintf(url, sizeof(url), "file://%s", cfg->output);
	ret = lttng_create_session(cfg->name, url);
	if (ret < 0)
		return ctl_error(err, ret, "create session", cfg->name);
	h = lttng_create_handle(cfg->name, &dom);
	ch = lttng_channel_create(&dom);
	ev = lttng_event_create();
	if (!h || !ch || !ev) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "LTTng: out of memory: session=%s",
				   cfg->name);
		goto out;
	}
	snprintf(ch->name, sizeof(ch->name), "ecp");
	ch->enabled = 1;
	ch->attr.overwrite = 0;
	ch->attr.subbuf_size = cfg->subbuf_size;
	ch->attr.num_subbuf = cfg->num_subbuf;
	ch->attr.output = LTTNG_EVENT_MMAP;
	/* Blocking: a full buffer makes the traced thread wait for the
	 * consumer instead of dropping events (needs LTTNG_UST_ALLOW_BLOCKING=1
	 * in the traced process). */
	ret = lttng_channel_set_blocking_timeout(ch, -1);
	if (ret == 0)
		ret = lttng_enable_channel(h, ch);
	if (ret < 0) {
		rc = ctl_error(err, ret, "enable channel", cfg->name);
		goto out;
	}
	for (const char *const *e = cfg->events; *e; e++) {
		/* A fresh event each time: lttng_event_create hangs private data
		 * on it that must not be wiped. */
		lttng_event_destroy(ev);
		ev = lttng_event_create();
		if (!ev) {
			rc = ecp_error_set(err, ECP_ERR_NOMEM,
					   "LTTng: out of memory: session=%s", cfg->name);
			goto out;
		}
		ev->type = LTTNG_EVENT_TRACEPOINT;
		ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
		snprintf(ev->name, sizeof(ev->name), "%s", *e);
		ret = lttng_enable_event_with_exclusions(h, ev, "ecp", NULL, 0, NULL);
		if (ret < 0) {
			rc = ctl_error(err, ret, "enable event", cfg->name);
			goto out;
		}
	}
	if (cfg->vtid_vpid) {
		static const enum lttng_event_context_type types[] = {
		    LTTNG_EVENT_CONTEXT_VTID, LTTNG_EVENT_CONTEXT_VPID};
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			struct lttng_event_context ctx;
			memset(&ctx, 0, sizeof(ctx));
			ctx.ctx = types[i];
			ret = lttng_add_context(h, &ctx, NULL, "ecp");
			if (ret < 0) {
				rc = ctl_error(err, ret, "add context", cfg->name);
				goto out;
			}
		}
	}
out:
	lttng_event_destroy(ev);
	lttng_channel_destroy(ch);
	lttng_destroy_handle(h);
	if (rc)
		lttng_destroy_session(cfg->name);
	return rc;
}

int ecp_lttng_session_start(const char *name, struct ecp_error *err)
{
	int ret = lttng_start_tracing(name);
	return ret < 0 ? ctl_error(err, ret, "start", name) : ECP_OK;
}

int ecp_lttng_session_stop(const char *name, struct ecp_error *err)
{
	int ret = lttng_stop_tracing(name);
	return ret < 0 ? ctl_error(err, ret, "stop", name) : ECP_OK;
}

int ecp_lttng_session_losses(const char *name, uint64_t *discarded,
			     uint64_t *lost_packets, struct ecp_error *err)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST,
				   .buf_type = LTTNG_BUFFER_PER_UID};
	struct lttng_handle *h = lttng_create_handle(name, &dom);
	struct lttng_channel *chs = NULL;
	int n;

	*discarded = 0;
	*lost_packets = 0;
	if (!h)
		return ecp_error_set(err, ECP_ERR_NOMEM, "LTTng: out of memory");
	n = lttng_list_channels(h, &chs);
	for (int i = 0; i < n; i++) {
		uint64_t d = 0, l = 0;
		lttng_channel_get_discarded_event_count(&chs[i], &d);
		lttng_channel_get_lost_packet_count(&chs[i], &l);
		*discarded += d;
		*lost_packets += l;
	}
	free(chs);
	lttng_destroy_handle(h);
	return n < 0 ? ctl_error(err, n, "list channels", name) : ECP_OK;
}

int ecp_lttng_session_destroy(const char *name, struct ecp_error *err)
{
	int ret = lttng_destroy_session(name);
	return ret < 0 ? ctl_error(err, ret, "destroy", name) : ECP_OK;
}
