/* SPDX-License-Identifier: MIT */
/* The `ecp record` driver: the order of operations, and cleanup on every
 * path.  Order matters:
 * 1. the session daemon, then the three sessions (main, sched, and a
 *    throw-away calibration session) exist before any process registers,
 *    so no enabler arrives late and no early event is lost;
 * 2. libecp-sched.so is loaded only then (its LTTng-UST registers with the
 *    daemon found through LTTNG_HOME, set by step 1);
 * 3. the cost of one event is measured in the calibration session, whose
 *    events are then disabled (it is never stopped: lttng-session.c);
 * 4. the child pins itself, opens perf and execs the program with the agent;
 *    the driver turns perf records into ecp_sched events while it runs;
 * 5. the sessions are stopped (the traces are then complete), the metadata
 *    written, the daemon stopped, and the trace counted for the summary. */
#include "recorder/record.h"

#include "common/clock-ns.h"
#include "common/manifest.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/agent-path.h"
#include "recorder/calibrate-clone.h"
#include "recorder/calibrate-switch.h"
#include "recorder/calibrate.h"
#include "recorder/clock-anchor.h"
#include "recorder/disk-watch.h"
#include "recorder/launch.h"
#include "recorder/meta.h"
#include "recorder/perf-sample.h"
#include "recorder/perf-switch.h"
#include "recorder/perf-throttle.h"
#include "recorder/objects.h"
#include "recorder/program-elf.h"
#include "recorder/steal.h"
#include "recorder/cpu-idle.h"
#include "recorder/lttng-session.h"
#include "recorder/trace-size.h"

#include "ecp-config.h"

/* Per-UID buffers of 8 x 512 KiB per CPU: every traced process maps them at
 * start, at ~1 ms of system time per 2 MiB; 4 MiB per CPU keeps start-up
 * near 10 ms and, with blocking channels, loses nothing. */
#define SUBBUF_SIZE      (512u << 10)
#define NUM_SUBBUF       8u
#define SCHED_NUM_SUBBUF 8u
/* How often the consumer pulls each session's new metadata
 * (recorder/lttng-session.c): 2 ms took the fixed cost of a recording of
 * /bin/true from 0.46-0.90 s (13 of 20 runs over 0.6 s) to 0.45-0.49 s
 * (48 runs); 5 and 10 ms still left 1 to 8 runs in 14 over 0.6 s. */
#define METADATA_PULL_US 2000u

extern char **environ;

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t pending_signal; /* received before the program ran */

/* SIGINT, SIGTERM and SIGHUP sent to `ecp record` go to the program, which
 * then ends as it would have, and the recording with it.  A terminal's
 * Ctrl-C (si_code SI_KERNEL) reaches the program's process too (the same
 * process group): forwarding it would deliver it twice.  Before the program
 * runs, the signal is kept: the setup stops at its next step and cleans up. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child_pid > 0) {
		if (si->si_code != SI_KERNEL)
			kill((pid_t)child_pid, sig);
	} else {
		pending_signal = sig;
	}
}

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
#define N_FORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

/* Installs on_signal for each forwarded signal the caller does not ignore:
 * an ignored one (`nohup`, a background job's SIGINT) stays ignored, here
 * and in the program. */
static void catch_signals(struct sigaction old[N_FORWARDED])
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_FORWARDED; i++) {
		sigaction(forwarded[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
}

static void restore_signals(const struct sigaction old[N_FORWARDED])
{
	for (size_t i = 0; i < N_FORWARDED; i++)
		sigaction(forwarded[i], &old[i], NULL);
}

/* ECP_OK, or an error when a signal asked the setup to stop. */
static int check_interrupted(struct ecp_error *err)
{
	int sig = pending_signal;
	if (!sig)
		return ECP_OK;
	return ecp_error_set(err, ECP_ERR_IO,
			     "interrupted by signal %d (%s) before the program started",
			     sig, strsignal(sig));
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
			struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 ? -1 : 0;
}

/* The entries of a complete trace: nothing else is ever removed. */
static const char *const trace_entries[] = {
    ECP_META_FILE, ECP_MANIFEST_FILE, "ecp-model.cache", "ecp-model-callsite.cache",
    "main",        "sched",           "objects"};

static bool trace_entry(const char *name)
{
	for (size_t i = 0; i < sizeof(trace_entries) / sizeof(trace_entries[0]); i++)
		if (!strcmp(name, trace_entries[i]))
			return true;
	return false;
}

/* Whether `dir` may be replaced by --force: an empty directory, or a
 * complete ecp trace (its metadata a regular file that starts as ecp
 * writes it, and nothing in it but a trace's entries), never the current
 * directory or one above it.  A mistyped -o must not delete a project: a
 * directory was once replaced because it held an entry named `main`.
 * Returns NULL, or why not. */
static const char *not_replaceable(const char *dir, char *why, size_t len)
{
	char path[PATH_MAX + 32], real[PATH_MAX], cwd[PATH_MAX];
	struct stat st;
	bool empty = true;
	DIR *d;
	struct dirent *e;

	if (realpath(dir, real) && getcwd(cwd, sizeof(cwd))) {
		size_t n = strlen(real);
		if (!strncmp(cwd, real, n) && (cwd[n] == '/' || cwd[n] == '\0' || n == 1))
			return "it is the current directory or one above it";
	}
	d = opendir(dir);
	if (!d)
		return strerror(errno);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		empty = false;
		if (!trace_entry(e->d_name)) {
			snprintf(why, len, "it holds '%s', which no ecp trace has",
				 e->d_name);
			closedir(d);
			return why;
		}
	}
	closedir(d);
	if (empty)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, ECP_META_FILE);
	FILE *f = lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
	char first[16] = "";
	if (f) {
		if (!fgets(first, sizeof(first), f))
			first[0] = '\0';
		fclose(f);
	}
	if (!strncmp(first, "format=", 7))
		return NULL;
	/* no metadata: a recording killed before its end (one still running
	 * holds the directory's lock, prepare_output) -- replaceable when it
	 * has a trace's two parts as directories */
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "sched" : "main");
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			return "it is not an ecp trace (no " ECP_META_FILE
			       ", and no main/ and sched/ of a recording that was "
			       "killed)";
	}
	return NULL;
}

/* The output directory's lock, held by the recording that writes into it
 * (flock on the directory itself): a second recording into it cannot both
 * succeed.  Returns the fd that holds it, or -1 with *err set. */
static int lock_output(const char *abs, struct ecp_error *err)
{
	struct stat held, now;
	int fd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ecp_error_set(err, ECP_ERR_IO, "cannot open %s: %s", abs,
			      strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			ecp_error_set(err, ECP_ERR_USAGE,
				      "another ecp record is writing into %s", abs);
		else
			ecp_error_set(err, ECP_ERR_IO, "cannot lock %s: %s", abs,
				      strerror(errno));
		close(fd);
		return -1;
	}
	/* the directory locked is still the one at that path (another
	 * recording did not replace it in between) */
	if (fstat(fd, &held) < 0 || lstat(abs, &now) < 0 || held.st_ino != now.st_ino ||
	    held.st_dev != now.st_dev) {
		ecp_error_set(err, ECP_ERR_USAGE,
			      "another ecp record replaced %s while this one started",
			      abs);
		close(fd);
		return -1;
	}
	return fd;
}

/* The output directory as this process reaches it: through the descriptor
 * that holds its lock (/proc/self/fd/N), so that a directory moved or
 * replaced by path while the program runs (a parent writable by another
 * user) neither receives nor redirects what ecp record writes itself.  The
 * path when /proc is not there. */
static void output_by_fd(int fd, const char *abs, char *io, size_t len)
{
	struct stat by_path, held;
	snprintf(io, len, "/proc/self/fd/%d", fd);
	if (stat(io, &by_path) < 0 || fstat(fd, &held) < 0 ||
	    by_path.st_ino != held.st_ino || by_path.st_dev != held.st_dev)
		snprintf(io, len, "%s", abs);
}

/* abs no longer names the directory this recording holds: it was moved or
 * replaced meanwhile.  The error says by whom it could be. */
static int output_moved(int fd, const char *abs, struct ecp_error *err)
{
	struct stat now, held, parent;
	if (fstat(fd, &held) < 0 || (lstat(abs, &now) == 0 && now.st_ino == held.st_ino &&
				     now.st_dev == held.st_dev))
		return ECP_OK;
	char up[PATH_MAX];
	snprintf(up, sizeof(up), "%s", abs);
	char *slash = strrchr(up, '/');
	if (slash && slash != up)
		*slash = 0;
	char who[96] = "";
	if (stat(up, &parent) == 0)
		snprintf(who, sizeof(who), " (its parent is owned by uid %u, mode %04o)",
			 (unsigned)parent.st_uid, (unsigned)(parent.st_mode & 07777));
	return ecp_error_set(
	    err, ECP_ERR_IO,
	    "%s was moved or replaced while the program ran%s: nothing was "
	    "written through what is there now, and the recording is left "
	    "unfinished in the directory that was moved; record into a "
	    "directory only you can change",
	    abs, who);
}

static int prepare_output(const char *output, bool force, char *abs, size_t len,
			  int *lock_fd, struct ecp_error *err)
{
	struct stat st;
	char cwd[PATH_MAX];

	if (output[0] == '/') {
		if ((size_t)snprintf(abs, len, "%s", output) >= len)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "output path too long: %s", output);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return ecp_error_set(err, ECP_ERR_IO, "getcwd: %s",
					     strerror(errno));
		if ((size_t)snprintf(abs, len, "%s/%s", cwd, output) >= len)
			return ecp_error_set(err, ECP_ERR_USAGE,
					     "output path too long: %s", output);
	}
	if (lstat(abs, &st) == 0) {
		/* --force replaces only a directory: do not suggest it for a
		 * file, a link or a FIFO */
		if (!force && !S_ISDIR(st.st_mode))
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "%s exists and is not a directory: a trace is "
			    "a directory; record into another (-o DIR)",
			    abs);
		if (!force)
			return ecp_error_set(
			    err, ECP_ERR_USAGE,
			    "trace directory exists: %s (use --force to replace it)",
			    abs);
		char why[PATH_MAX + 64];
		const char *no = S_ISDIR(st.st_mode)
				     ? not_replaceable(abs, why, sizeof(why))
				     : "it is not a directory";
		if (no)
			return ecp_error_set(err, ECP_ERR_USAGE, "not replacing %s: %s",
					     abs, no);
		/* a recording still writing there keeps it */
		int busy = lock_output(abs, err);
		if (busy < 0)
			return err->status ? err->status : ECP_ERR_USAGE;
		close(busy);
		if (nftw(abs, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
			return ecp_error_set(err, ECP_ERR_IO, "cannot remove %s: %s", abs,
					     strerror(errno));
	}
	if (mkdir(abs, 0777) < 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot create %s: %s", abs,
				     strerror(errno));
	*lock_fd = lock_output(abs, err);
	return *lock_fd < 0 ? (err->status ? err->status : ECP_ERR_USAGE) : ECP_OK;
}

/* CPUs in the caller's affinity mask: what the program would see unrecorded. */
/* The CPUs as a list, ranges folded ("0-3,6"), for the meta file and the
 * summary; the list is sorted and without repeats (cli/cmd-record.c). */
static void cpu_list_text(const int *cpus, size_t n, char *out, size_t len)
{
	size_t at = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && at < len; i++) {
		size_t j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		int w =
		    j > i ? snprintf(out + at, len - at, "%s%d-%d", at ? "," : "",
				     cpus[i], cpus[j])
			  : snprintf(out + at, len - at, "%s%d", at ? "," : "", cpus[i]);
		if (w < 0)
			break;
		at += (size_t)w;
		i = j;
	}
}

static uint32_t allowed_cpus(void)
{
	cpu_set_t set;
	int n;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (uint32_t)n : 1;
}

static int first_allowed_cpu(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return 0;
}

/* Joins a NULL-terminated list with newlines (the agent's ECP_INCLUDE). */
static char *join_lines(char *const *list)
{
	size_t len = 1;
	char *s;
	for (size_t i = 0; list && list[i]; i++)
		len += strlen(list[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (size_t i = 0; list && list[i]; i++) {
		if (i)
			strcat(s, "\n");
		strcat(s, list[i]);
	}
	return s;
}

/* The program's environment: ours minus the variables we set, plus them. */
struct child_env {
	char **vars;
	size_t n;
};

static bool is_ours(const char *var)
{
	static const char *const names[] = {"LD_PRELOAD=", "LTTNG_UST_ALLOW_BLOCKING=",
					    "LTTNG_UST_REGISTER_TIMEOUT=", "ECP_"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(var, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

static int env_add(struct child_env *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int env_add(struct child_env *e, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	e->vars[e->n++] = s;
	e->vars[e->n] = NULL;
	return 0;
}

static void env_free(struct child_env *e)
{
	for (size_t i = 0; e->vars && i < e->n; i++)
		free(e->vars[i]);
	free(e->vars);
	e->vars = NULL;
	e->n = 0;
}

static int env_build(struct child_env *e, const struct ecp_record_options *o,
		     const char *agent, const char *child_agent, const char *clock,
		     const char *calib_file, uint32_t as_cpus, bool hooks)
{
	size_t count = 0;
	const char *old_preload = getenv("LD_PRELOAD");
	char *inc = join_lines(o->include), *exc = join_lines(o->exclude), *ours = NULL;
	int rc = -1;

	while (environ[count])
		count++;
	e->n = 0;
	/* room for the variables added below and the terminating null */
	e->vars = calloc(count + 25, sizeof(char *));
	if (!e->vars || !inc || !exc)
		goto out;
	for (size_t i = 0; i < count; i++)
		if (!is_ours(environ[i]) && env_add(e, "%s", environ[i]) < 0)
			goto out;
	/* liblttng-ust-dl writes dlopen/dlclose events, for symbols of
	 * libraries loaded at run time; it costs ~5 ms at start, so only for
	 * programs that can call dlopen. */
	/* liblttng-ust-fork makes fork without exec safe in a traced process
	 * (LTTng-UST's threads and locks are reset in the child);
	 * liblttng-ust-fd keeps a program's close() off LTTng-UST's own
	 * descriptors (lttng-ust(3)): one that closes every descriptor it did
	 * not open aborted in lttng_counter_shmp_object_destroy. */
	/* ECP_PRELOAD names what is ours in LD_PRELOAD: the agent takes it
	 * out of the environment of the programs the recorded process starts,
	 * which it does not record, so that they do not pay for LTTng-UST's
	 * set-up, and preloads ECP_CHILD_PRELOAD there instead, which shows
	 * them --as-cpus (recorder/agent/agent-exec.c). */
	if (asprintf(&ours, "%s:liblttng-ust-fork.so.1:liblttng-ust-fd.so.1%s", agent,
		     ecp_program_uses_dlopen(o->argv[0]) ? ":liblttng-ust-dl.so.1" : "") <
	    0) {
		ours = NULL;
		goto out;
	}
	if (env_add(e, "LD_PRELOAD=%s%s%s", ours, old_preload && *old_preload ? ":" : "",
		    old_preload ? old_preload : "") < 0 ||
	    env_add(e, "ECP_PRELOAD=%s", ours) < 0 ||
	    env_add(e, "ECP_CHILD_PRELOAD=%s", child_agent) < 0 ||
	    env_add(e, "LTTNG_UST_ALLOW_BLOCKING=1") < 0 ||
	    env_add(e, "LTTNG_UST_REGISTER_TIMEOUT=30000") < 0 ||
	    env_add(e, "ECP_CLOCK=%s", clock) < 0 ||
	    env_add(e, "ECP_CALIBRATION_FILE=%s", calib_file) < 0 ||
	    env_add(e, "ECP_UNMODELLED_FILE=%s.unmodelled", calib_file) < 0 ||
	    env_add(e, "%s", ECP_LAUNCH_PID_PLACEHOLDER) < 0 ||
	    env_add(e, "ECP_FUNCTIONS=%d", hooks ? 1 : 0) < 0 ||
	    env_add(e, "ECP_AS_CPUS=%u", as_cpus) < 0 ||
	    env_add(e, "ECP_DEPTH=%u", o->depth) < 0 ||
	    env_add(e, "ECP_MIN_DURATION_NS=%llu",
		    (unsigned long long)o->min_duration_ns) < 0 ||
	    env_add(e, "ECP_INCLUDE=%s", inc) < 0 ||
	    env_add(e, "ECP_EXCLUDE=%s", exc) < 0)
		goto out;
	/* Waiting is not work: OpenMP runtimes spin before they sleep in
	 * barriers and locks, and on the one recording CPU a spinning thread
	 * burns its time slice as if it computed.  Passive waiting unless the
	 * user chose otherwise (libgomp: OMP_WAIT_POLICY, GOMP_SPINCOUNT;
	 * LLVM's libomp: OMP_WAIT_POLICY, KMP_BLOCKTIME). */
	if ((!getenv("OMP_WAIT_POLICY") && env_add(e, "OMP_WAIT_POLICY=passive") < 0) ||
	    (!getenv("GOMP_SPINCOUNT") && env_add(e, "GOMP_SPINCOUNT=0") < 0) ||
	    (!getenv("KMP_BLOCKTIME") && env_add(e, "KMP_BLOCKTIME=0") < 0))
		goto out;
	/* Go sizes its scheduler (GOMAXPROCS) from sched_getaffinity made as
	 * a raw system call, which the agent's --as-cpus answer cannot reach:
	 * pinned to one CPU, a Go program would run one goroutine at a time
	 * and be recorded as a serial program.  Told through its own knob. */
	if (!getenv("GOMAXPROCS") && env_add(e, "GOMAXPROCS=%u", as_cpus) < 0)
		goto out;
	/* LLVM's libomp sizes its default team (and omp_get_num_procs) by its
	 * affinity mask, read by a raw system call the agent cannot answer
	 * either, and then checks that mask against the machine's topology
	 * (a faked one fails its assertion).  With its affinity code off it
	 * asks sysconf, which says --as-cpus.  Binding does not matter here:
	 * the program runs on one CPU.  A caller who asked for binding
	 * (OMP_PROC_BIND, OMP_PLACES: libomp warns that KMP_AFFINITY overrides
	 * them) keeps it, and the team's size is told instead. */
	if (!getenv("KMP_AFFINITY") && !getenv("OMP_PROC_BIND") &&
	    !getenv("OMP_PLACES")) {
		if (env_add(e, "KMP_AFFINITY=disabled") < 0)
			goto out;
	} else if (!getenv("KMP_AFFINITY") && !getenv("OMP_NUM_THREADS") &&
		   env_add(e, "OMP_NUM_THREADS=%u", as_cpus) < 0) {
		goto out;
	}
	/* OpenMP task events (agent-ompt-task.c): written only when asked for
	 * until the reader reads them (issue 37). */
	if (getenv("ECP_OMP_TASK_EVENTS") &&
	    env_add(e, "ECP_OMP_TASK_EVENTS=%s", getenv("ECP_OMP_TASK_EVENTS")) < 0)
		goto out;
	rc = 0;
out:
	free(inc);
	free(exc);
	free(ours);
	return rc;
}

static int load_sched_emitter(struct ecp_sched_emitter *em, struct ecp_error *err)
{
	char path[PATH_MAX];
	int rc = ecp_agent_path_find(ECP_SCHED_LIBRARY, path, sizeof(path), err);
	if (rc)
		return rc;
	em->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	/* POSIX's way to store a dlsym result in a function pointer. */
	if (!em->handle)
		return ecp_error_set(err, ECP_ERR_IO, "cannot load %s: %s", path,
				     dlerror());
	*(void **)&em->emit_switch = dlsym(em->handle, "ecp_sched_emit_switch");
	*(void **)&em->emit_lost = dlsym(em->handle, "ecp_sched_emit_lost");
	*(void **)&em->emit_comm = dlsym(em->handle, "ecp_sched_emit_comm");
	*(void **)&em->emit_task = dlsym(em->handle, "ecp_sched_emit_task");
	*(void **)&em->emit_clock = dlsym(em->handle, "ecp_sched_emit_clock");
	*(void **)&em->emit_sample = dlsym(em->handle, "ecp_sched_emit_sample");
	*(void **)&em->emit_mmap = dlsym(em->handle, "ecp_sched_emit_mmap");
	*(void **)&em->emit_sample_lost = dlsym(em->handle, "ecp_sched_emit_sample_lost");
	if (!em->emit_switch || !em->emit_lost || !em->emit_comm || !em->emit_task ||
	    !em->emit_clock || !em->emit_sample || !em->emit_mmap ||
	    !em->emit_sample_lost)
		return ecp_error_set(err, ECP_ERR_IO,
				     "%s lacks the ecp_sched_emit functions", path);
	/* The library stays loaded: unloading LTTng-UST is not supported. */
	return ECP_OK;
}

/* The perf side of the recorder's costs, measured in a process of its own
 * while the driver opens the sessions (lttng-consumerd's start-up is a
 * 100 ms sleep): one sample at the program's rate, on the CPU that records,
 * and one context switch on the CPUs the program runs on, each in the
 * calibrating thread's own CPU time.  A process, not a thread: a thread
 * made before the driver dlopens libecp-sched.so left 176 bytes of the
 * loader's lost for good (memcheck, CI), and the process shares nothing. */
struct perf_figures {
	uint64_t sample_cost_ns, switch_cost_ps, thread_create_cost_ps;
	unsigned sample_bursts, switch_bursts, thread_create_bursts;
	int problem; /* 0, or which figure failed (1 sample, 2 switch) */
};

struct perf_calibration {
	pid_t pid; /* the calibrating child, 0 when none runs */
	int fd;    /* its figures come back through this pipe */
	const int *cpus;
	size_t n_cpus;
	unsigned sample_hz;
	bool perf;
	struct perf_figures got;
};

static void calibrate_perf(const struct perf_calibration *c, struct perf_figures *f)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(c->cpus[0], &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (c->sample_hz && ecp_calibrate_samples(c->sample_hz, &f->sample_cost_ns,
						  &f->sample_bursts) < 0)
		f->problem = 1;
	/* the switches on the CPUs the program will run on: without perf the
	 * fallback clock is the threads' own, which holds their cost already */
	if (c->perf) {
		CPU_ZERO(&set);
		for (size_t i = 0; i < c->n_cpus; i++)
			CPU_SET(c->cpus[i], &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0 ||
		    ecp_calibrate_switches(c->cpus, c->n_cpus, &f->switch_cost_ps,
					   &f->switch_bursts) < 0)
			f->problem = 2;
		/* not measured (0): the reader takes nothing out */
		ecp_calibrate_clones(c->cpus, c->n_cpus, c->sample_hz,
				     &f->thread_create_cost_ps, &f->thread_create_bursts);
	}
}

/* Starts calibrate_perf in a child, which dies with the driver and by the
 * signals the driver forwards (its figures are then missing, and named);
 * run inline where no child can be made. */
static void calibrate_perf_start(struct perf_calibration *c)
{
	int p[2];
	c->pid = 0;
	c->fd = -1;
	memset(&c->got, 0, sizeof(c->got));
	if (!c->sample_hz && !c->perf)
		return; /* nothing to measure: no child for it */
	if (pipe2(p, O_CLOEXEC) < 0) {
		calibrate_perf(c, &c->got);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (size_t i = 0; i < N_FORWARDED; i++)
			signal(forwarded[i], SIG_DFL);
		struct perf_figures f = {0};
		calibrate_perf(c, &f);
		ssize_t n = write(p[1], &f, sizeof(f));
		_exit(n == (ssize_t)sizeof(f) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		calibrate_perf(c, &c->got);
		return;
	}
	c->pid = pid;
	c->fd = p[0];
}

/* The child's figures, once it is done (a child that died gives none, and
 * says so). */
static void calibrate_perf_join(struct perf_calibration *c)
{
	if (c->pid <= 0)
		return;
	struct perf_figures f = {0};
	ssize_t n;
	while ((n = read(c->fd, &f, sizeof(f))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(f))
		f = (struct perf_figures){.problem = c->sample_hz ? 1 : 2};
	c->got = f;
	close(c->fd);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	c->fd = -1;
}

/* Waits for calibrate_perf and hands its figures on. */
static void calibrate_perf_finish(struct perf_calibration *c,
				  struct ecp_record_summary *sum)
{
	calibrate_perf_join(c);
	sum->sample_cost_ns = c->got.sample_cost_ns;
	sum->sample_bursts = c->got.sample_bursts;
	sum->switch_cost_ps = c->got.switch_cost_ps;
	sum->switch_bursts = c->got.switch_bursts;
	sum->thread_create_cost_ps = c->got.thread_create_cost_ps;
	sum->thread_create_bursts = c->got.thread_create_bursts;
	if (c->got.problem == 1)
		sum->calibration_problem =
		    "the cost of a perf sample could not be measured";
	else if (c->got.problem == 2)
		sum->calibration_problem =
		    "the CPU time of a context switch could not be measured";
}

/* The cost of one event (recorder/calibrate.h; blocking channel, vtid/vpid
 * contexts) written into a throw-away session, on the CPU that records (the
 * two CPUs of a VM need not run alike), in this thread's CPU time; the
 * sample's and the switch's costs come from calibrate_perf, done by then.
 * A figure that cannot be trusted is left at 0 and named in
 * sum->calibration_problem: the reader then subtracts nothing for it, and
 * the answers' consistency check shows what that leaves in. */
static int calibrate(const char *session, const char *const *events,
		     const struct ecp_sched_emitter *em, const int *cpus,
		     struct ecp_record_summary *sum, struct ecp_error *err)
{
	cpu_set_t old, one;
	bool pinned = false;
	int rc = ecp_lttng_session_start(session, err);
	if (rc)
		return rc;
	if (sched_getaffinity(0, sizeof(old), &old) == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpus[0], &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	/* a perf figure's problem, if any, is the one named */
	if (ecp_calibrate_events(em, &sum->event_cost_ps, &sum->event_bursts) < 0 &&
	    !sum->calibration_problem)
		sum->calibration_problem =
		    "the cost of an event measured implausibly high "
		    "(the CPU was too busy to calibrate)";
	sum->event_cost_ns = (sum->event_cost_ps + 500u) / 1000u;
	sum->event_cost_source = "calibration";
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	/* Disabled, not stopped: nothing of the session need reach the
	 * consumer.  Stopped with a metadata pull, the pull slept 200 ms in
	 * the consumer's one timer thread just before the program started
	 * (lttng-session.c); without one, the stop's push slept itself.  The
	 * session only ever traces this process, ends with the daemon and
	 * its trace is thrown away. */
	return ecp_lttng_session_disable(session, events, err);
}

/* The agent's own cost per folded call, and what an emitted call's hooks
 * cost outside their timed windows (already in the run's cost per event),
 * as it measured them at start (0 when it did not: --no-functions, or the
 * program never loaded the agent). */
static void read_call_cost(const char *path, struct ecp_record_meta *meta)
{
	FILE *f = fopen(path, "r");
	unsigned long long ns = 0, ps = 0;
	meta->call_cost_ns = meta->call_untimed_ps = 0;
	if (!f)
		return;
	if (fscanf(f, "call_cost_ns=%llu call_untimed_ps=%llu", &ns, &ps) >= 1) {
		meta->call_cost_ns = ns;
		meta->call_untimed_ps = ps;
	}
	fclose(f);
}

/* Enough events timed in the run to trust their average over the driver's
 * calibration (every hook that wrote them timed itself). */
#define HOOK_EVENTS_MIN 2000

/* The function hooks' cost per event, as the agent measured it in the run
 * (agent-func.c): it replaces the calibration's figure when enough events
 * were timed; otherwise (few calls, no instrumentation, a program that did
 * not exit through exit()) the calibration stands. */
static void read_hook_cost(const char *calib_file, struct ecp_record_summary *sum)
{
	char path[PATH_MAX + 16];
	unsigned long long ps = 0, events = 0, deep = 0, sync_ps = 0, sync_events = 0,
			   sync_untimed = 0;
	FILE *f;
	snprintf(path, sizeof(path), "%s.hooks", calib_file);
	sum->other_event_calibrated_ps = sum->event_cost_ps;
	f = fopen(path, "r");
	if (!f)
		return;
	int got = fscanf(f, "hook_cost_ps=%llu hook_events=%llu calls_too_deep=%llu", &ps,
			 &events, &deep);
	int got_sync =
	    got == 3
		? fscanf(f, " sync_cost_ps=%llu sync_events=%llu sync_untimed_ps=%llu",
			 &sync_ps, &sync_events, &sync_untimed)
		: 0;
	if (got == 3)
		sum->calls_too_deep = deep;
	if (got >= 2 && events >= HOOK_EVENTS_MIN && ps > 0 &&
	    ps <= ECP_EVENT_COST_MAX_PS) {
		/* the function records' cost; other events keep the
		 * calibration's (a record in a batch costs a few times less
		 * than an event of its own, issue 35) unless timed below */
		sum->other_event_cost_ps = sum->event_cost_ps;
		sum->event_cost_ps = ps;
		sum->event_cost_ns = (ps + 500u) / 1000u;
		sum->event_cost_source = "run";
	}
	/* The other events' cost, timed by the wrappers that wrote them
	 * (agent-sync-cost.c): in a program whose own work evicts the
	 * recorder's buffers and code they cost up to twice the
	 * calibration's figure (sqlite3's shell). */
	sum->other_events_timed = got_sync >= 2 ? sync_events : 0;
	sum->other_event_untimed_ps = got_sync == 3 ? sync_untimed : 0;
	if (got_sync >= 2 && sync_events >= HOOK_EVENTS_MIN && sync_ps > 0 &&
	    sync_ps <= ECP_EVENT_COST_MAX_PS) {
		sum->other_event_cost_ps = sync_ps;
		sum->other_event_cost_source = "run";
	}
	fclose(f);
}

/* The names of the calls the program made that ecp does not model, one
 * per line, as the agent appended them (agent-unmodelled.c), and the facts
 * it told ('#' lines). */
static void read_unmodelled(const char *path, struct ecp_record_summary *sum)
{
	char line[64];
	FILE *f = fopen(path, "r");
	sum->n_unmodelled = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		bool seen = false;
		line[strcspn(line, "\n")] = 0;
		if (!strcmp(line, "#cpu-count")) { /* a fact, not a call */
			sum->cpu_count_read = true;
			continue;
		}
		if (line[0] == '#')
			continue;
		for (int i = 0; i < sum->n_unmodelled && !seen; i++)
			seen = !strcmp(sum->unmodelled[i], line);
		if (!seen && *line && sum->n_unmodelled < 16)
			snprintf(sum->unmodelled[sum->n_unmodelled++],
				 sizeof(sum->unmodelled[0]), "%s", line);
	}
	fclose(f);
}

/* Clock anchors at least this often (ms): between two, the reader
 * interpolates linearly, and CLOCK_MONOTONIC's rate against the TSC changes
 * only by NTP's slewing (at most 500 ppm), so the conversion stays within
 * about a microsecond. */
#define ANCHOR_MS 20

/* The drain's niceness while the program runs (supervise). */
#define DRIVER_NICE (-10)

/* Samples handled between two drains of the context switches (~32 of 8 KiB). */
#define SAMPLE_SLICE_BYTES (256u << 10)

/* The recording was stopped for want of space (recorder/disk-watch.h): the
 * program ran on to its end, unrecorded; what was recorded covers only its
 * start and is removed (an analysis of it would be wrong). */
static int stopped_for_space(const struct ecp_disk_watch *disk, const char *out,
			     uint64_t start_ns, uint64_t end_ns, int status,
			     int *exit_code, struct ecp_error *err)
{
	char how[64];
	if (WIFSIGNALED(status)) {
		*exit_code = 128 + WTERMSIG(status);
		snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
	} else {
		*exit_code = WEXITSTATUS(status);
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
	}
	uint64_t at = disk->stopped_ns > start_ns ? disk->stopped_ns - start_ns : 0;
	return ecp_error_set(
	    err, ECP_ERR_IO,
	    "the recording stopped %.2f s into the program's %.2f s: only %llu MiB were "
	    "left on the filesystem of %s (the trace growing at up to %.0f MB/s), and "
	    "LTTng must "
	    "always be able to write its %llu MiB of buffers out (else the program would "
	    "block); the program ran on "
	    "unrecorded and %s; the partial trace was removed (free space, or record "
	    "elsewhere with -o)",
	    (double)at / 1e9, (double)(end_ns - start_ns) / 1e9,
	    (unsigned long long)(disk->free_at_stop >> 20), out, disk->fill_rate * 1e3,
	    (unsigned long long)((disk->buffers + (1u << 20) - 1) >> 20), how);
}

/* Runs the program to its end, draining perf and writing clock anchors
 * meanwhile. */
static void supervise(struct ecp_launch *l, struct ecp_perf_switch *ps, bool perf,
		      struct ecp_perf_sample *samples, bool sampling,
		      const struct ecp_sched_emitter *em, struct ecp_disk_watch *disk,
		      int *status, uint64_t *end_ns, uint64_t *cpu_ns)
{
	struct rusage ru;
	int pidfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	/* The driver thread alone (Linux's nice is per thread, and the
	 * program was forked before this) gets ahead of other work on its CPU
	 * where it may: drains that wait behind busy processes lose context
	 * switches, and a trace that lost one is refused (with three busy
	 * loops on the driver's CPU, 2 of 3 ping-pong recordings lost
	 * 440 000-714 000 switches at nice 0, none of 3 at -10).  Unprivileged,
	 * this fails and changes nothing. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DRIVER_NICE);
	for (;;) {
		struct pollfd p[1 + 2 * ECP_PERF_MAX_CPUS];
		nfds_t n = 0;
		if (pidfd >= 0)
			p[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
		for (size_t i = 0; perf && i < ps->n_rings; i++)
			p[n++] = (struct pollfd){.fd = ps->rings[i].fd, .events = POLLIN};
		for (size_t i = 0; sampling && i < samples->n_rings; i++)
			p[n++] =
			    (struct pollfd){.fd = samples->rings[i].fd, .events = POLLIN};
		poll(p, n, ANCHOR_MS);
		/* once stopped for want of space, nothing more is written (the
		 * perf rings only lose what they hold) */
		if (ecp_disk_watch_check(disk, ecp_clock_ns(CLOCK_MONOTONIC)) ||
		    disk->stopped_ns)
			perf = sampling = false;
		if (perf)
			ecp_perf_switch_drain(ps);
		/* A backlog of samples (up to 8 KiB each, written on into
		 * LTTng, which may block) is taken in slices with the context
		 * switches drained between: their ring is the smaller, and a
		 * switch perf drops makes the whole trace unusable. */
		while (sampling &&
		       ecp_perf_sample_drain_some(samples, SAMPLE_SLICE_BYTES))
			if (perf)
				ecp_perf_switch_drain(ps);
		if (!disk->stopped_ns)
			ecp_clock_anchor_emit(em);
		pid_t r = wait4(l->pid, status, WNOHANG, &ru);
		if (r == l->pid) {
			*cpu_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
				  (uint64_t)ru.ru_utime.tv_usec * 1000u +
				  (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
				  (uint64_t)ru.ru_stime.tv_usec * 1000u;
			break;
		}
		if (r < 0 && errno == ECHILD)
			break;
	}
	*end_ns = ecp_clock_ns(CLOCK_MONOTONIC);
	if (pidfd >= 0)
		close(pidfd);
}

/* Copies the objects the samples touched into the trace, so that their
 * names and unwind tables are read from the binaries that ran.  The
 * program itself is already there; what cannot be copied is named by its
 * path, and resolves as long as that file is unchanged. */
static void copy_sampled_objects(const char *out, const struct ecp_perf_sample *s)
{
	for (size_t i = 0; i < s->n_objs; i++) {
		bool again = false;
		/* anonymous code (a JIT's, valgrind's) has no file to copy:
		 * its frames are [unknown] in the analysis */
		if (!s->objs[i].hit || s->objs[i].path[0] != '/' ||
		    !strncmp(s->objs[i].path, "//anon", 6))
			continue;
		for (size_t k = 0; k < i && !again; k++)
			again =
			    s->objs[k].hit && !strcmp(s->objs[k].path, s->objs[i].path);
		if (again)
			continue;
		struct ecp_error e = {0};
		if (ecp_record_copy_object(out, s->objs[i].path, &e) < 0)
			fprintf(stderr, "ecp record: warning: %s\n", e.msg);
	}
}

static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* One recording, as its phases hand it on (ecp_record_run below). */
struct recording {
	const struct ecp_record_options *o;
	struct ecp_record_summary *sum;
	int *exit_code;
	char out[PATH_MAX - 64], out_io[PATH_MAX - 64], agent[PATH_MAX],
	    child_agent[PATH_MAX], calib_dir[PATH_MAX - 64], calib_file[PATH_MAX];
	char s_main[64], s_sched[64], s_calib[64];
	const int *run_cpus;
	unsigned sample_hz; /* the sampler's rate (0: no samples wanted) */
	bool hooks, want_samples, no_perf;
	struct ecp_lttng_daemon daemon;
	struct perf_calibration perf_calib;
	struct ecp_sched_emitter em;
	struct child_env env_perf, env_cpu;
	struct ecp_launch l;
	struct ecp_perf_switch ps;
	struct ecp_perf_sample samples;
	bool perf, sampling;
	struct ecp_disk_watch disk;
	struct ecp_steal steal;   /* the hypervisor's, on the program's CPUs */
	struct ecp_cpu_idle idle; /* the program's CPUs' idle time meanwhile */
	struct sigaction old_sig[N_FORWARDED];
	bool have_daemon, have_main, have_sched, have_calib, have_output;
	int out_lock; /* held while this recording writes the trace */
	uint64_t start_ns, end_ns;
	int status;
	cpu_set_t driver_cpus; /* the driver's own before it moved off */
	bool driver_moved;
};

/* What to record, from the options and the program; the output directory
 * made and locked.  Nothing to undo on failure. */
static int decide(struct recording *r, struct ecp_error *err)
{
	const struct ecp_record_options *o = r->o;
	struct ecp_record_summary *sum = r->sum;
	sum->cpu = o->n_cpus ? o->cpus[0] : o->cpu >= 0 ? o->cpu : first_allowed_cpu();
	sum->n_cpus = o->n_cpus ? o->n_cpus : 1;
	r->run_cpus = o->n_cpus ? o->cpus : &sum->cpu;
	cpu_list_text(r->run_cpus, sum->n_cpus, sum->cpu_list, sizeof(sum->cpu_list));
	sum->as_cpus = o->as_cpus ? o->as_cpus : allowed_cpus();
	sum->functions_mode = o->functions_mode;
	if (sum->functions_mode == ECP_FUNCTIONS_AUTO)
		sum->functions_mode = ecp_program_is_instrumented(o->argv[0])
					  ? ECP_FUNCTIONS_INSTRUMENT
					  : ECP_FUNCTIONS_SAMPLE;
	r->hooks = o->functions && sum->functions_mode != ECP_FUNCTIONS_SAMPLE;
	r->want_samples = o->functions && (sum->functions_mode == ECP_FUNCTIONS_SAMPLE ||
					   sum->functions_mode == ECP_FUNCTIONS_BOTH);
	r->sample_hz =
	    r->want_samples ? (o->sample_hz ? o->sample_hz : ECP_SAMPLE_DEFAULT_HZ) : 0;
	/* no faster than the kernel lets an event sample (perf-throttle.h), as
	 * perf record lowers its frequency: asked for more, it would stop the
	 * sampler for the rest of each tick, in bursts */
	sum->sample_hz_asked = r->sample_hz;
	unsigned ceiling = r->sample_hz ? ecp_perf_max_sample_rate() : 0;
	if (ceiling && r->sample_hz > ceiling)
		r->sample_hz = ceiling;
	/* ECP_RECORD_NO_PERF=1 forces the fallback clock (for tests). */
	r->no_perf = getenv("ECP_RECORD_NO_PERF") &&
		     strcmp(getenv("ECP_RECORD_NO_PERF"), "1") == 0;
	int rc = ecp_agent_path_find(ECP_AGENT_NAME, r->agent, sizeof(r->agent), err);
	if (!rc)
		rc = ecp_agent_path_find(ECP_CHILD_AGENT_NAME, r->child_agent,
					 sizeof(r->child_agent), err);
	if (rc)
		return rc;
	rc = prepare_output(o->output ? o->output : "ecp.data", o->force, r->out,
			    sizeof(r->out), &r->out_lock, err);
	if (rc)
		return rc;
	output_by_fd(r->out_lock, r->out, r->out_io, sizeof(r->out_io));
	r->have_output = true;
	return ECP_OK;
}

/* The driver, and the daemons it starts (they inherit its mask), off the
 * CPUs the program runs on wherever others are allowed: the driver
 * draining perf's rings and LTTng's consumer waking on the program's CPU
 * made the program itself slower (xz recorded with neither hooks nor
 * samples: +0.7% to +5.1% of CPU against unrecorded runs; none with the
 * driver on the other CPU), which no subtraction of the recorder's own
 * time can see.  The calibrations still pin themselves to the program's
 * CPU; the program sets its own mask before exec. */
static void move_off_program_cpus(struct recording *r)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	r->driver_cpus = set;
	for (size_t i = 0; i < r->sum->n_cpus; i++)
		if (r->run_cpus[i] >= 0 && r->run_cpus[i] < CPU_SETSIZE)
			CPU_CLR(r->run_cpus[i], &set);
	if (CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof(set), &set) == 0)
		r->driver_moved = true;
}

static const char *const sched_events[] = {"ecp_sched:*", NULL};
/* The calibration writes the scheduling trace's events, as the driver does
 * (calibrate). */
static const char *const calib_events[] = {"ecp_sched:*", NULL};

/* A session daemon and the three sessions: the program's events, the
 * scheduling trace, the calibration's; the watch on the output's space.
 * The calibration's session traces this process only, with no metadata
 * pull: its metadata is never pushed (calibrate), so the consumer's timer
 * thread is free for the others' when the program starts.  It is a
 * snapshot session that no snapshot is taken of: the consumer writing
 * its 0.9 MB (its buffers hold 4 MiB a CPU) on the daemons' CPU made the
 * sched session's buffers, set up just after, take 11-17 ms instead of 2. */
static int open_sessions(struct recording *r, struct ecp_error *err)
{
	static const char *const main_events[] = {"ecp:*", "lttng_ust_statedump:*",
						  "lttng_ust_dl:*", NULL};
	char path[PATH_MAX];
	move_off_program_cpus(r);
	/* the consumer pulls each session's metadata as it is made, so that
	 * the stop waits for it only after a program shorter than ~0.2 s
	 * (lttng-session.c), where the daemons run beside the program rather
	 * than on its CPUs */
	uint32_t pull_us = r->driver_moved ? METADATA_PULL_US : 0;
	int rc = ecp_lttng_daemon_start(&r->daemon, err);
	if (rc)
		return rc;
	r->have_daemon = true;
	if ((rc = check_interrupted(err)))
		return rc;
	/* the calibrating child overlaps the sessions' set-up below */
	r->perf_calib = (struct perf_calibration){.cpus = r->run_cpus,
						  .n_cpus = r->sum->n_cpus,
						  .sample_hz = r->sample_hz,
						  .perf = !r->no_perf};
	calibrate_perf_start(&r->perf_calib);
	snprintf(r->s_main, sizeof(r->s_main), "ecp-main-%ld", (long)getpid());
	snprintf(r->s_sched, sizeof(r->s_sched), "ecp-sched-%ld", (long)getpid());
	snprintf(r->s_calib, sizeof(r->s_calib), "ecp-calib-%ld", (long)getpid());
	snprintf(path, sizeof(path), "%s/main", r->out);
	rc = ecp_lttng_session_create(
	    &(struct ecp_lttng_session_config){.name = r->s_main,
					       .output = path,
					       .events = main_events,
					       .subbuf_size = SUBBUF_SIZE,
					       .num_subbuf = NUM_SUBBUF,
					       .vtid_vpid = true,
					       .metadata_pull_us = pull_us},
	    err);
	if (rc)
		return rc;
	r->have_main = true;
	snprintf(path, sizeof(path), "%s/sched", r->out);
	/* small: the program maps these buffers too, though it never writes
	 * them (about 1 ms of its system time per 2 MiB); above the default
	 * rate the samples (up to 8 KiB each) need more, or the driver blocks
	 * on LTTng and perf drops samples (at 10 kHz) */
	uint32_t sched_subbuf =
	    r->sample_hz > ECP_SAMPLE_DEFAULT_HZ ? 1u << 20 : 256u << 10;
	rc = ecp_lttng_session_create(
	    &(struct ecp_lttng_session_config){.name = r->s_sched,
					       .output = path,
					       .events = sched_events,
					       .subbuf_size = sched_subbuf,
					       .num_subbuf = SCHED_NUM_SUBBUF,
					       .metadata_pull_us = pull_us},
	    err);
	if (rc)
		return rc;
	r->have_sched = true;
	/* LTTng's buffers, on every CPU (per-UID buffers exist for each), must
	 * always fit on the output's filesystem */
	rc = ecp_disk_watch_init(&r->disk, r->out_lock, r->out,
				 ((uint64_t)SUBBUF_SIZE * NUM_SUBBUF +
				  (uint64_t)sched_subbuf * SCHED_NUM_SUBBUF) *
				     (uint64_t)get_nprocs_conf(),
				 r->s_main, r->s_sched, err);
	if (rc)
		return rc;
	/* in the state directory: removed with it, even after a SIGKILL */
	snprintf(r->calib_dir, sizeof(r->calib_dir), "%s/calib", r->daemon.home);
	if (mkdir(r->calib_dir, 0700) < 0) {
		r->calib_dir[0] = 0;
		return ecp_error_set(err, ECP_ERR_IO,
				     "cannot create a calibration directory: %s",
				     strerror(errno));
	}
	rc = ecp_lttng_session_create(
	    &(struct ecp_lttng_session_config){.name = r->s_calib,
					       .output = r->calib_dir,
					       .events = calib_events,
					       .subbuf_size = SUBBUF_SIZE,
					       .num_subbuf = NUM_SUBBUF,
					       .vtid_vpid = true,
					       .this_process_only = true,
					       .unread = true},
	    err);
	if (rc)
		return rc;
	r->have_calib = true;
	return ECP_OK;
}

/* The recorder's own costs, measured before the program runs. */
static int calibrate_costs(struct recording *r, struct ecp_error *err)
{
	/* Our own LTTng-UST (in libecp-sched.so) must block, not discard. */
	setenv("LTTNG_UST_ALLOW_BLOCKING", "1", 1);
	setenv("LTTNG_UST_REGISTER_TIMEOUT", "30000", 1);
	/* The perf figures first: the events below are timed with the CPU to
	 * themselves. */
	calibrate_perf_finish(&r->perf_calib, r->sum);
	int rc = load_sched_emitter(&r->em, err);
	if (rc)
		return rc;
	rc = calibrate(r->s_calib, calib_events, &r->em, r->run_cpus, r->sum, err);
	return rc ? rc : check_interrupted(err);
}

/* The program's process made, its perf events mapped, stopped before its
 * exec. */
static int launch(struct recording *r, struct ecp_error *err)
{
	static char sampling_problem[sizeof(((struct ecp_error *)0)->msg) + 64];
	const struct ecp_record_options *o = r->o;
	struct ecp_record_summary *sum = r->sum;
	snprintf(r->calib_file, sizeof(r->calib_file), "%s/agent", r->calib_dir);
	if (env_build(&r->env_perf, o, r->agent, r->child_agent, "perf-switch",
		      r->calib_file, sum->as_cpus, r->hooks) < 0 ||
	    env_build(&r->env_cpu, o, r->agent, r->child_agent, "thread-cputime",
		      r->calib_file, sum->as_cpus, r->hooks) < 0)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory building the environment");
	int rc = ecp_lttng_session_start(r->s_sched, err);
	if (!rc)
		rc = ecp_lttng_session_start(r->s_main, err);
	if (!rc)
		rc = check_interrupted(err);
	if (!rc)
		rc = ecp_launch_fork(o->argv, r->env_perf.vars, r->env_cpu.vars,
				     r->run_cpus, sum->n_cpus, !r->no_perf, r->sample_hz,
				     sum->n_cpus == 1 ? o->time_slice_ns : 0, &r->l, err);
	if (rc)
		return rc;
	child_pid = r->l.pid;
	sum->time_slice_ns = r->l.slice_ns;
	if (pending_signal) /* arrived while the child was made: it must not run */
		return check_interrupted(err);
	struct ecp_launch *l = &r->l;
	if (l->n_perf) {
		r->perf = ecp_perf_switch_init(&r->ps, l->perf_fd, l->n_perf, l->pid,
					       &r->em, err) == ECP_OK;
		l->n_perf = 0; /* owned (and closed on failure) by the rings */
		if (!r->perf) {
			/* The child already chose its clock; perf it is, so a map
			 * failure is fatal to the recording, not to the program. */
			kill(l->pid, SIGKILL);
			waitpid(l->pid, NULL, 0);
			return ECP_ERR_IO;
		}
	}
	if (r->want_samples && l->n_sample) {
		/* the event exists in the program already; unread, it only
		 * costs its interrupts: the program runs, unsampled */
		struct ecp_error map_err = {0};
		r->sampling = ecp_perf_sample_init(&r->samples, l->sample_fd, l->n_sample,
						   l->pid, &r->em, &map_err) == ECP_OK;
		l->n_sample = 0; /* owned (and closed on failure) by the rings */
		r->samples.family = r->perf ? &r->ps : NULL;
		if (!r->sampling) {
			snprintf(sampling_problem, sizeof(sampling_problem), "%s",
				 map_err.msg);
			sum->sampling_problem = sampling_problem;
		}
	} else if (r->want_samples) {
		snprintf(sampling_problem, sizeof(sampling_problem),
			 "perf refused the sampling event (%s)",
			 !r->perf ? "no context switches either"
				  : strerror(-l->sample_fd[0]));
		sum->sampling_problem = sampling_problem;
	}
	return ECP_OK;
}

/* The program, from its exec to its end; a recording stopped for want of
 * space is an error that gives the program's status. */
static int run_program(struct recording *r, struct ecp_error *err)
{
	/* the first anchor precedes every function time, the last follows them */
	ecp_clock_anchor_emit(&r->em);
	r->start_ns = ecp_clock_ns(CLOCK_MONOTONIC);
	ecp_steal_start(&r->steal, r->run_cpus, r->sum->n_cpus);
	ecp_cpu_idle_start(&r->idle, r->run_cpus, r->sum->n_cpus);
	int rc = ecp_launch_exec(&r->l, err);
	if (rc)
		return rc;
	supervise(&r->l, &r->ps, r->perf, &r->samples, r->sampling, &r->em, &r->disk,
		  &r->status, &r->end_ns, &r->sum->cpu_ns);
	ecp_cpu_idle_end(&r->idle, r->run_cpus, r->sum->n_cpus);
	ecp_steal_end(&r->steal, r->run_cpus, r->sum->n_cpus);
	child_pid = 0;
	if (r->disk.stopped_ns)
		return stopped_for_space(&r->disk, r->out, r->start_ns, r->end_ns,
					 r->status, r->exit_code, err);
	return ECP_OK;
}

/* ecp-record.meta: what the recording knows beside the traces. */
static void fill_meta(struct recording *r, struct ecp_record_meta *meta)
{
	const struct ecp_record_options *o = r->o;
	struct ecp_record_summary *sum = r->sum;
	meta->argv = o->argv;
	meta->cpu = sum->cpu;
	meta->n_cpus = sum->n_cpus;
	meta->cpu_list = sum->cpu_list;
	meta->as_cpus = sum->as_cpus;
	meta->clock = sum->clock;
	read_hook_cost(r->calib_file, sum);
	meta->event_cost_ns = sum->event_cost_ns;
	/* the switches' cost only where their records measure the threads */
	meta->switch_cost_ps = r->perf ? sum->switch_cost_ps : 0;
	meta->thread_create_cost_ps = r->perf ? sum->thread_create_cost_ps : 0;
	meta->event_cost_source = sum->event_cost_source;
	meta->calls_too_deep = sum->calls_too_deep;
	meta->event_cost_ps = sum->event_cost_ps;
	meta->other_event_cost_ps =
	    sum->other_event_cost_ps ? sum->other_event_cost_ps : sum->event_cost_ps;
	meta->other_event_cost_source = sum->other_event_cost_source;
	meta->other_event_calibrated_ps = sum->other_event_calibrated_ps;
	meta->other_events_timed = sum->other_events_timed;
	meta->other_event_untimed_ps = sum->other_event_untimed_ps;
	read_call_cost(r->calib_file, meta);
	char unm_path[PATH_MAX + 16];
	snprintf(unm_path, sizeof(unm_path), "%s.unmodelled", r->calib_file);
	read_unmodelled(unm_path, sum);
	meta->cpu_count_read = sum->cpu_count_read;
	meta->time_slice_ns = sum->time_slice_ns;
	meta->wall_ns = sum->wall_ns;
	meta->cpu_ns = sum->cpu_ns;
	meta->steal_known = r->steal.known;
	meta->steal_ns = r->steal.ns;
	meta->steal_tick_ns = r->steal.tick_ns;
	meta->other_cpu_known = r->idle.known && r->steal.known;
	meta->other_cpu_ns =
	    ecp_cpu_idle_others(&r->idle, sum->n_cpus, sum->cpu_ns, r->steal.ns);
	/* either end of either reading; the steal is read in whole ticks */
	meta->other_cpu_resolution_ns =
	    2 * r->idle.resolution_ns + (r->steal.ns ? r->steal.tick_ns : 0);
	sum->other_cpu_ns = meta->other_cpu_known ? meta->other_cpu_ns : 0;
	meta->functions = o->functions;
	meta->functions_mode = !o->functions                                 ? "none"
			       : sum->functions_mode == ECP_FUNCTIONS_SAMPLE ? "sample"
			       : sum->functions_mode == ECP_FUNCTIONS_BOTH   ? "both"
									   : "instrument";
	meta->sample_hz = r->sampling ? r->sample_hz : 0;
	meta->samples = sum->samples = r->samples.samples;
	meta->samples_lost = sum->samples_lost = r->samples.lost;
	sum->sample_hz = meta->sample_hz;
	meta->sample_hz_asked = r->sampling ? sum->sample_hz_asked : 0;
	/* read again at the end: the kernel lowers it while programs run */
	meta->sample_rate_max = sum->sample_rate_max =
	    r->sampling ? ecp_perf_max_sample_rate() : 0;
	meta->samples_throttled = sum->samples_throttled = r->samples.throttled;
	meta->sample_cost_ns = sum->samples ? sum->sample_cost_ns : 0;
	meta->depth = o->depth;
	meta->include = o->include;
	meta->exclude = o->exclude;
	meta->min_duration_ns = o->min_duration_ns;
	meta->sched_lost = r->ps.lost;
	if (WIFSIGNALED(r->status)) {
		meta->signal = WTERMSIG(r->status);
		*r->exit_code = 128 + meta->signal;
	} else {
		meta->exit_code = WEXITSTATUS(r->status);
		*r->exit_code = meta->exit_code;
	}
}

/* The traces whole: perf drained, the sessions stopped, the meta file and
 * the copies of the objects written. */
static int finish_trace(struct recording *r, struct ecp_error *err)
{
	struct ecp_record_meta meta = {0};
	if (r->perf)
		ecp_perf_switch_finish(&r->ps);
	if (r->sampling)
		ecp_perf_sample_finish(&r->samples);
	ecp_perf_switch_free(&r->ps);
	ecp_clock_anchor_emit(&r->em);
	int rc = ecp_lttng_session_stop(r->s_main, err);
	if (!rc)
		rc = ecp_lttng_session_stop(r->s_sched, err);
	if (rc)
		return rc;
	ecp_lttng_session_losses(r->s_main, &meta.discarded, &meta.lost_packets, err);
	r->sum->clock = r->perf ? "perf-switch" : "thread-cputime";
	r->sum->wall_ns = r->end_ns - r->start_ns;
	r->sum->switches = r->ps.switches;
	fill_meta(r, &meta);
	rc = output_moved(r->out_lock, r->out, err);
	if (rc) {
		r->have_output =
		    false; /* what is at that path now is not ours to remove */
		return rc;
	}
	rc = ecp_record_meta_write(r->out_io, &meta, err);
	if (rc)
		return rc;
	struct ecp_error copy_err = {0};
	if (ecp_record_copy_program(r->out_io, r->o->argv[0], &copy_err) < 0)
		fprintf(stderr,
			"ecp record: warning: the trace keeps no copy of the "
			"program, so function names resolve only where it is: %s\n",
			copy_err.msg);
	copy_sampled_objects(r->out_io, &r->samples);
	if (r->sampling && ecp_record_copy_vdso(r->out_io, &copy_err) < 0)
		fprintf(stderr, "ecp record: warning: %s\n", copy_err.msg);
	return ECP_OK;
}

/* Everything undone that rc says must be, in order; returns the final rc. */
static int teardown(struct recording *r, int rc, struct ecp_error *err)
{
	/* The handlers stay through the teardown: a Ctrl-C there (it takes a
	 * second or two) once killed ecp record, the program's status lost and
	 * the state directory left; now it waits for the trace to be whole. */
	child_pid = 0;
	calibrate_perf_join(&r->perf_calib);
	if (ecp_perf_switch_open_rings(&r->ps))
		ecp_perf_switch_finish(&r->ps);
	if (ecp_perf_sample_open_rings(&r->samples))
		ecp_perf_sample_finish(&r->samples);
	ecp_perf_sample_free(&r->samples);
	ecp_perf_switch_free(&r->ps);
	ecp_launch_close_fds(&r->l);
	if (rc && r->l.pid > 0 && r->l.sock >= 0) {
		kill(r->l.pid, SIGKILL);
		waitpid(r->l.pid, NULL, 0);
		close(r->l.sock);
	}
	/* Sessions on a daemon we keep running must go; a daemon we started
	 * takes them with it. */
	if (!r->daemon.pid) {
		struct ecp_error ignored = {0};
		if (r->have_main)
			ecp_lttng_session_destroy(r->s_main, &ignored);
		if (r->have_sched)
			ecp_lttng_session_destroy(r->s_sched, &ignored);
		if (r->have_calib)
			ecp_lttng_session_destroy(r->s_calib, &ignored);
	}
	if (r->have_daemon)
		ecp_lttng_daemon_stop(&r->daemon);
	/* last, when LTTng has written everything: what the analyses check */
	if (!rc && r->have_output)
		rc = ecp_manifest_write(r->out_io, err);
	/* no half-made trace left behind, but only where the path still
	 * names the directory this recording made */
	if (rc && r->have_output &&
	    output_moved(r->out_lock, r->out, &(struct ecp_error){0}) == ECP_OK)
		remove_tree(r->out);
	if (r->out_lock >= 0)
		close(r->out_lock);
	restore_signals(r->old_sig);
	if (pending_signal && !rc)
		fprintf(stderr,
			"ecp record: signal %d (%s) came while the recording was being "
			"finished: "
			"the trace was finished first\n",
			(int)pending_signal, strsignal(pending_signal));
	env_free(&r->env_perf);
	env_free(&r->env_cpu);
	/* the summary's decoding may use every CPU again */
	if (r->driver_moved)
		sched_setaffinity(0, sizeof(r->driver_cpus), &r->driver_cpus);
	if (!rc && !r->o->quiet)
		r->sum->bytes = ecp_trace_bytes(r->out);
	return rc;
}

/* The phases in order: decide, open the sessions, calibrate, launch, run
 * the program, finish the trace; the teardown whatever happened. */
int ecp_record_run(const struct ecp_record_options *o, int *exit_code,
		   struct ecp_record_summary *sum, struct ecp_error *err)
{
	struct recording *r = calloc(1, sizeof(*r));
	if (!r)
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory");
	memset(sum, 0, sizeof(*sum));
	*exit_code = 1;
	*r = (struct recording){
	    .o = o, .sum = sum, .exit_code = exit_code, .out_lock = -1};
	r->l.pid = -1;
	r->l.sock = -1;
	r->disk.dir_fd = -1;
	int rc = decide(r, err);
	if (rc) {
		free(r);
		return rc;
	}
	pending_signal = 0;
	catch_signals(r->old_sig);
	if (!(rc = open_sessions(r, err)) && !(rc = calibrate_costs(r, err)) &&
	    !(rc = launch(r, err)) && !(rc = run_program(r, err)))
		rc = finish_trace(r, err);
	rc = teardown(r, rc, err);
	free(r);
	return rc;
}
