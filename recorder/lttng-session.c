/* SPDX-License-Identifier: MIT */
#include "recorder/lttng-session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lttng/lttng.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <limits.h>
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

/* As root: a private mount namespace with a fresh tmpfs on /var/run/lttng
 * (the root daemon's fixed socket directory), so that our daemon, the
 * program and nothing else meet there, whatever system daemon or other
 * recording runs meanwhile.  /dev/shm stays the system's: the program
 * shares it with other processes (a private one hid their files and lost
 * what it put there), and the only LTTng file in it, the daemons' wake-up
 * word (lttng-ust-wait-8), merely wakes programs to look for a daemon in
 * their own /var/run/lttng.  The namespace ends with this process.  Must
 * run while the process has one thread (unshare refuses otherwise). */
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
	return true;
}

static const char *tmp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && *tmp ? tmp : "/tmp";
}

static int remove_any(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static bool is_sessiond(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return strncmp(comm, "lttng-sessiond", 14) == 0;
}

/* When process `pid` started, in seconds since the epoch, or -1. */
static long long started_at(pid_t pid)
{
	char path[64], line[1024];
	long long btime = -1, ticks = -1;
	FILE *f = fopen("/proc/stat", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f)) {
		/* field 22, counted after the command's closing parenthesis */
		char *p = strrchr(line, ')');
		int field = 2;
		for (; p && *p && field < 22; p++)
			if (*p == ' ')
				field++;
		if (p && sscanf(p, "%lld", &ticks) != 1)
			ticks = -1;
	}
	if (f)
		fclose(f);
	long hz = sysconf(_SC_CLK_TCK);
	return btime < 0 || ticks < 0 || hz <= 0 ? -1 : btime + ticks / hz;
}

/* Whether `pid` is the daemon whose pid file is `pidfile`: a session
 * daemon that started before the file was written, and not long before
 * (a PID read from a stale file may have been given to another process
 * since, even to another lttng-sessiond). */
static bool is_that_daemon(pid_t pid, const char *pidfile)
{
	struct stat st;
	long long start = started_at(pid);
	if (!is_sessiond(pid) || start < 0 || stat(pidfile, &st) < 0)
		return false;
	return start <= (long long)st.st_mtime + 1 &&
	       start >= (long long)st.st_mtime - 60;
}

/* Whether a process has exited: gone, or a zombie.  The daemon was
 * started with --daemonize: its parent is init (or a subreaper), which may
 * take a second or more to reap it -- polling kill(pid, 0) waited for that,
 * 1.2-1.6 s of every recording (issue 35). */
static bool has_exited(pid_t pid)
{
	char path[64], line[512];
	if (kill(pid, 0) < 0)
		return errno == ESRCH;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	bool zombie = false;
	if (f && fgets(line, sizeof(line), f)) {
		/* the state follows the command's closing parenthesis */
		const char *p = strrchr(line, ')');
		zombie = p && (p[1] == ' ') && (p[2] == 'Z' || p[2] == 'X');
	}
	if (f)
		fclose(f);
	return zombie;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* Waits up to ms for pid to exit: woken by its pidfd `fd` the moment it
 * does (Linux 5.3), else (fd < 0) polled every 5 ms. */
static bool wait_exit_fd(pid_t pid, int fd, int ms)
{
	if (fd >= 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int rc;
		while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
			;
		return rc > 0 || has_exited(pid);
	}
	for (int waited = 0; waited < ms; waited += 5) {
		if (has_exited(pid))
			return true;
		sleep_ms(5);
	}
	return has_exited(pid);
}

static bool wait_exit(pid_t pid, int ms)
{
	int fd = open_pidfd(pid);
	bool gone = wait_exit_fd(pid, fd, ms);
	if (fd >= 0)
		close(fd);
	return gone;
}

/* Stops a session daemon (it stops its consumer daemons) and waits for it:
 * SIGTERM, then SIGKILL after 5 s. */
static void stop_sessiond(pid_t pid)
{
	if (pid <= 0 || kill(pid, SIGTERM) < 0)
		return;
	if (!wait_exit(pid, 5000)) {
		kill(pid, SIGKILL);
		wait_exit(pid, 1000);
	}
}

/* At most this many processes in a daemon's family: the session daemon,
 * its run-as helper, the consumer daemons (32- and 64-bit) and theirs. */
#define FAMILY_MAX 16

static pid_t parent_of(pid_t pid)
{
	char path[64], line[512];
	long ppid = 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f)) {
		/* the state and the parent follow the command's parenthesis */
		const char *p = strrchr(line, ')');
		if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
			ppid = 0;
	}
	if (f)
		fclose(f);
	return (pid_t)ppid;
}

struct family {
	pid_t pid[FAMILY_MAX];
	int fd[FAMILY_MAX]; /* each one's pidfd, or -1 */
	size_t n;
};

/* Adds the children of `parent` (by /proc/PID/task/TID/children), each
 * held by a pidfd opened while it was still that parent's child. */
static void add_children(struct family *f, pid_t parent)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)parent);
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/children",
			 (long)parent, e->d_name);
		FILE *c = fopen(path, "r");
		long pid;
		while (c && f->n < FAMILY_MAX && fscanf(c, "%ld", &pid) == 1) {
			int fd = open_pidfd((pid_t)pid);
			if (parent_of((pid_t)pid) != parent) {
				if (fd >= 0)
					close(fd);
				continue;
			}
			f->pid[f->n] = (pid_t)pid;
			f->fd[f->n++] = fd;
		}
		if (c)
			fclose(c);
	}
	if (d)
		closedir(d);
}

static void kill_member(const struct family *f, size_t i)
{
#ifdef SYS_pidfd_send_signal
	if (f->fd[i] >= 0 &&
	    syscall(SYS_pidfd_send_signal, f->fd[i], SIGKILL, NULL, 0) == 0)
		return;
#endif
	kill(f->pid[i], SIGKILL);
}

/* Ends a session daemon whose sessions are all stopped with their data
 * written (or whose trace is thrown away) at once: SIGKILL to it and to
 * every process under it (its consumer daemons and their helpers), then a
 * wait until each has exited.  Its own teardown (SIGTERM) destroys each
 * session first, which rotates it to a null trace chunk whose end is
 * checked every 500 ms (lttng-tools' DEFAULT_ROTATE_PENDING_TIMER): half a
 * second of every recording, for files that are already whole (issue 35).
 * Only for a daemon that is ours alone (its run directory private). */
static void kill_sessiond(pid_t pid)
{
	struct family f = {.n = 0};
	if (pid <= 0)
		return;
	f.pid[0] = pid;
	f.fd[0] = open_pidfd(pid);
	f.n = 1;
	if (!is_sessiond(pid)) {
		if (f.fd[0] >= 0)
			close(f.fd[0]);
		return;
	}
	for (size_t i = 0; i < f.n; i++)
		add_children(&f, f.pid[i]);
	for (size_t i = 0; i < f.n; i++)
		kill_member(&f, i);
	for (size_t i = 0; i < f.n; i++) {
		wait_exit_fd(f.pid[i], f.fd[i], 5000);
		if (f.fd[i] >= 0)
			close(f.fd[i]);
	}
}

/* A state directory of a recording whose driver is gone (killed with
 * SIGKILL, or the machine's power): stop its daemon, remove it. */
static void clean_if_stale(const char *dir)
{
	char path[PATH_MAX + 64];
	pid_t owner, daemon;
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_STATE_OWNER_FILE);
	owner = read_pid_file(path);
	if (owner <= 0 || kill(owner, 0) == 0 || errno != ESRCH)
		return; /* not ours to judge, or its recording still runs */
	snprintf(path, sizeof(path), "%s/.lttng/lttng-sessiond.pid", dir);
	daemon = read_pid_file(path);
	if (daemon <= 0) {
		snprintf(path, sizeof(path), "%s/%s", dir, ECP_STATE_DAEMON_FILE);
		daemon = read_pid_file(path);
	}
	if (daemon > 0 && is_that_daemon(daemon, path))
		stop_sessiond(daemon);
	nftw(dir, remove_any, 16, FTW_DEPTH | FTW_PHYS);
}

void ecp_lttng_clean_stale(void)
{
	const char *tmp = tmp_dir();
	DIR *d = opendir(tmp);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;
		if (strncmp(e->d_name, "ecp-lttng-", 10))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		    st.st_uid == geteuid())
			clean_if_stale(path);
	}
	closedir(d);
}

static int write_pid_file(const char *dir, const char *name, pid_t pid)
{
	char path[PATH_MAX];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", (long)pid);
	return fclose(f) == 0 ? 0 : -1;
}

int ecp_lttng_daemon_start(struct ecp_lttng_daemon *d, struct ecp_error *err)
{
	char pidfile[320];
	int rc;

	memset(d, 0, sizeof(*d));
	ecp_lttng_clean_stale();
	/* The state directory: the private LTTng home of an ordinary user, the
	 * calibration trace, and who owns them (for ecp_lttng_clean_stale). */
	snprintf(d->home, sizeof(d->home), "%s/ecp-lttng-XXXXXX", tmp_dir());
	if (!mkdtemp(d->home)) {
		rc = ecp_error_set(err, ECP_ERR_IO,
				   "cannot create a private LTTng home: path=%s: %s",
				   d->home, strerror(errno));
		d->home[0] = 0;
		return rc;
	}
	if (write_pid_file(d->home, ECP_STATE_OWNER_FILE, getpid()) < 0) {
		rc = ecp_error_set(err, ECP_ERR_IO, "cannot write in %s: %s", d->home,
				   strerror(errno));
		goto fail;
	}
	if (geteuid() != 0) {
		/* A user of the `tracing` group would otherwise be connected to
		 * the root session daemon, if one runs, whatever LTTNG_HOME says:
		 * name a group that does not exist. */
		lttng_set_tracing_group("ecp-record-no-tracing-group");
		setenv("LTTNG_HOME", d->home, 1);
		d->private_run = true;
		snprintf(pidfile, sizeof(pidfile), "%s/.lttng/lttng-sessiond.pid",
			 d->home);
	} else {
		/* Without the namespace (no CAP_SYS_ADMIN) our daemon would be the
		 * system's: never trace into a daemon that runs for others. */
		d->private_run = private_namespace();
		if (!d->private_run && lttng_session_daemon_alive() == 1) {
			rc = ecp_error_set(
			    err, ECP_ERR_IO,
			    "cannot start a private LTTng session daemon: a system "
			    "daemon runs and a private mount namespace was refused (no "
			    "CAP_SYS_ADMIN?); ecp record does not trace into a daemon "
			    "shared with others (stop it, or record as an ordinary "
			    "user)");
			goto fail;
		}
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
	if (geteuid() == 0)
		write_pid_file(d->home, ECP_STATE_DAEMON_FILE, d->pid);
	return ECP_OK;
fail:
	ecp_lttng_daemon_stop(d);
	return rc;
}

void ecp_lttng_daemon_stop(struct ecp_lttng_daemon *d)
{
	/* The private home can only be removed after the daemon and its
	 * consumer have exited. */
	if (d->private_run)
		kill_sessiond(d->pid);
	else
		stop_sessiond(d->pid);
	d->pid = 0;
	if (d->home[0]) {
		nftw(d->home, remove_any, 16, FTW_DEPTH | FTW_PHYS);
		d->home[0] = 0;
	}
}

static int ctl_error(struct ecp_error *err, int ret, const char *what,
		     const char *session)
{
	return ecp_error_set(err, ECP_ERR_IO, "LTTng: %s failed: session=%s: %s", what,
			     session, lttng_strerror(ret));
}

/* The session's metadata pulled by the consumer every `us` microseconds.
 * When metadata new to lttng-consumerd (2.13) reaches it, pushed by the
 * session daemon (at a program's unregistration, at the stop) or pulled by
 * this timer, it wakes its metadata thread, checks at once whether it was
 * written, which it almost never is yet, and sleeps 200 ms
 * (DEFAULT_METADATA_AVAILABILITY_WAIT_TIME) before it answers (2.14 waits
 * for the metadata thread instead: lttng-tools f40b76aed).  A push's sleep
 * holds up the stop; a pull's sleeps in the consumer's one timer thread,
 * which the stop does not wait for but which pulls nothing else meanwhile:
 * one session's new metadata per 200 ms.  The sessions' metadata is made
 * when they start and when a program registers, so a recording's two
 * sessions are pulled at the start and 200 ms later, and a program that
 * ends sooner still has the second pushed at its end, once (0 to 2 of
 * those sleeps a recording of /bin/true without the timer, 0.46 to 0.90 s
 * in all).  The timer costs the daemons about 1.4% of a CPU a session at
 * 2 ms; enabled only where they have a CPU the program does not use
 * (record.c). */
static int enable_metadata_pull(struct lttng_handle *h, struct lttng_domain *dom,
				uint32_t us)
{
	struct lttng_channel *md = lttng_channel_create(dom);
	if (!md)
		return -LTTNG_ERR_NOMEM;
	/* the name LTTng gives the metadata channel: its attributes */
	snprintf(md->name, sizeof(md->name), "metadata");
	md->enabled = 1;
	md->attr.overwrite = 0;
	md->attr.subbuf_size = 4096; /* LTTng's defaults for metadata */
	md->attr.num_subbuf = 2;
	md->attr.output = LTTNG_EVENT_MMAP;
	md->attr.switch_timer_interval = us;
	int ret = lttng_enable_channel(h, md);
	lttng_channel_destroy(md);
	return ret;
}

/* Only the calling process is traced in the session: the process ID
 * tracker's include set holds its PID alone. */
static int track_this_process(const char *session)
{
	struct lttng_process_attr_tracker_handle *th = NULL;
	enum lttng_error_code code = lttng_session_get_tracker_handle(
	    session, LTTNG_DOMAIN_UST, LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID, &th);
	if (code != LTTNG_OK)
		return -(int)code;
	enum lttng_process_attr_tracker_handle_status st =
	    lttng_process_attr_tracker_handle_set_tracking_policy(
		th, LTTNG_TRACKING_POLICY_INCLUDE_SET);
	if (st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
		st = lttng_process_attr_virtual_process_id_tracker_handle_add_pid(
		    th, getpid());
	lttng_process_attr_tracker_handle_destroy(th);
	return st == LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK ? 0 : -LTTNG_ERR_UNK;
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
	ret = cfg->unread ? lttng_create_session_snapshot(cfg->name, url)
			  : lttng_create_session(cfg->name, url);
	if (ret < 0)
		return ctl_error(err, ret, "create session", cfg->name);
	if (cfg->this_process_only && (ret = track_this_process(cfg->name)) < 0) {
		lttng_destroy_session(cfg->name);
		return ctl_error(err, ret, "track this process", cfg->name);
	}
	h = lttng_create_handle(cfg->name, &dom);
	ch = lttng_channel_create(&dom);
	ev = lttng_event_create();
	if (!h || !ch || !ev) {
		rc = ecp_error_set(err, ECP_ERR_NOMEM, "LTTng: out of memory: session=%s",
				   cfg->name);
		goto out;
	}
	if (cfg->metadata_pull_us) {
		ret = enable_metadata_pull(h, &dom, cfg->metadata_pull_us);
		if (ret < 0) {
			rc = ctl_error(err, ret, "enable metadata channel", cfg->name);
			goto out;
		}
	}
	snprintf(ch->name, sizeof(ch->name), "ecp");
	ch->enabled = 1;
	ch->attr.overwrite = 0;
	ch->attr.subbuf_size = cfg->subbuf_size;
	ch->attr.num_subbuf = cfg->num_subbuf;
	ch->attr.output = LTTNG_EVENT_MMAP;
	/* Blocking: a full buffer makes the traced thread wait for the
	 * consumer instead of dropping events (needs LTTNG_UST_ALLOW_BLOCKING=1
	 * in the traced process) -- but not forever.  LTTng-UST's wait loop
	 * never looks at the session again, so a consumer that stopped writing
	 * (a full filesystem met before the stop reached the program) left the
	 * thread waiting for good.  After the timeout the event is discarded,
	 * counted, and the recording refused as lossy; a healthy consumer that
	 * falls this far behind is as much a loss. */
	ret = lttng_channel_set_blocking_timeout(ch, ECP_BLOCKING_TIMEOUT_US);
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

/* lttng_stop_tracing waits for the consumer to have written everything by
 * polling lttng_data_pending with 200 ms sleeps (lttng-tools'
 * DEFAULT_DATA_AVAILABILITY_WAIT_TIME_US): a small trace is written within
 * a few ms and then waited 200 ms for, twice per recording (issue 35).
 * Asked every 2 ms instead; after 60 s of pending data the stop is an
 * error naming the session. */
int ecp_lttng_session_stop(const char *name, struct ecp_error *err)
{
	int ret = lttng_stop_tracing_no_wait(name);
	if (ret < 0)
		return ctl_error(err, ret, "stop", name);
	for (int waited = 0; (ret = lttng_data_pending(name)) == 1; waited += 2) {
		if (waited >= 60000)
			return ecp_error_set(
			    err, ECP_ERR_IO,
			    "LTTng: session %s still had data to write 60 s "
			    "after it was stopped",
			    name);
		sleep_ms(2);
	}
	return ret < 0 ? ctl_error(err, ret, "stop (data pending)", name) : ECP_OK;
}

int ecp_lttng_session_disable(const char *name, const char *const *events,
			      struct ecp_error *err)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST,
				   .buf_type = LTTNG_BUFFER_PER_UID};
	struct lttng_handle *h = lttng_create_handle(name, &dom);
	int ret = 0;
	if (!h)
		return ecp_error_set(err, ECP_ERR_NOMEM, "LTTng: out of memory");
	for (const char *const *e = events; *e && ret >= 0; e++)
		ret = lttng_disable_event(h, *e, "ecp");
	lttng_destroy_handle(h);
	return ret < 0 ? ctl_error(err, ret, "disable events", name) : ECP_OK;
}

void ecp_lttng_session_stop_no_wait(const char *name)
{
	(void)lttng_stop_tracing_no_wait(name);
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
