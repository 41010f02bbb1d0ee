/*
 * schedlab-helper: the native part of `schedlab real`, built with the system's C compiler at
 * first use (src/real/helper.ts) and cached. Two jobs need syscalls Node does not offer:
 *
 *   supervise     the parent of every workload process. It puts them in one process group
 *                 (led by an idle anchor child), applies each one's scheduling attributes
 *                 before exec: policy, nice or RT priority, a custom slice (sched_setattr
 *                 with sched_runtime; there is no glibc wrapper), uclamp, affinity, timer
 *                 slack. It is the child subreaper, so every descendant is reaped here and its
 *                 CPU time counted. When its parent goes away (stdin closes, or the parent
 *                 dies: PR_SET_PDEATHSIG), it kills the group and removes the tracefs
 *                 instance (and the tracefs mount) it was told about.
 *
 *   load          periodic tasks and CPU hogs: THREADS threads named NAME-i, each running
 *                 RUN_US (of its own CPU time, or of wall time) at its start and then every
 *                 PERIOD_US on an absolute clock_nanosleep grid (thread i's grid offset by
 *                 i * STAGGER_US), missed periods skipped; PERIOD_US 0 = spin forever.
 *
 *   plan FILE REPORT   `schedlab vm`'s runner inside the guest (built static there): the run's
 *                 workloads from FILE, timed by the guest's own clock so that a run under
 *                 QEMU's icount is deterministic. FILE's lines (tab-separated):
 *                   duration_ms MS
 *                   proc ID DELAY_MS STOPSIG REPEAT OUTFILE ATTRS ARGV0 ARGV1 ...
 *                 Each process starts DELAY_MS after the start (attributes applied before exec,
 *                 in its own process group), REPEAT 1 restarts it when it ends early; at
 *                 DURATION_MS (or when every process ended) each gets STOPSIG, then SIGKILL 5 s
 *                 later. REPORT gets "start NS", "pid ID PID", "exit ID STATUS", "error ID
 *                 MESSAGE", "end NS" (CLOCK_MONOTONIC, the trace's mono clock).
 *
 *   rawdump FILE  copy a tracefs trace_pipe_raw file to stdout without waiting for more.
 *
 *   pdeath ARGV   exec ARGV so that it is killed when our parent dies (QEMU under the host's
 *                 `schedlab vm`: no guest outlives the command, even one killed by SIGKILL).
 *
 * Protocol of `supervise` (lines on stdin, tab-separated; replies on stdout):
 *   spawn ID OUTFILE ATTRS ARGV0 ARGV1 ...   ->  pid ID PID   |  error ID MESSAGE
 *   signal SIGNO                             ->  (the signal to the whole workload group)
 *   quit                                     ->  rusage USER_US SYS_US, then exit
 *   each child's end                         ->  exit ID STATUS
 * ATTRS: comma-separated key=value (policy, nice, prio, slice_ns, uclamp_min, uclamp_max,
 * cpus as a list like 0-1,3 with ':' for ',', slack_ns) or "-".
 *
 * This program is part of schedlab (MIT); it contains no kernel code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_FLAG_UTIL_CLAMP_MIN
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#endif
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

struct sched_attr_v1 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define MAX_CHILDREN 256
#define LINE_MAX_LEN 65536

static pid_t anchor = -1;
static char *cleanup_instance;
static char *cleanup_mount;
static struct { pid_t pid; char id[64]; } children[MAX_CHILDREN];
static int nchildren;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* ---------------------------------------------------------------- attributes */

static int parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (long c = a; c <= b; c++)
			CPU_SET(c, set);
		s = end;
		if (*s == ':')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

/* Apply ATTRS to the calling process; on failure write the reason to `why`. */
static int apply_attrs(char *attrs, char *why, size_t whylen)
{
	struct sched_attr_v1 a;
	int have_policy = 0, have_nice = 0, have_cpus = 0, have_slack = 0;
	long slack = 0;
	cpu_set_t cpus;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	if (strcmp(attrs, "-") == 0)
		return 0;
	for (char *tok = strtok(attrs, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			snprintf(why, whylen, "bad attribute '%s'", tok);
			return -1;
		}
		*eq++ = 0;
		if (strcmp(tok, "policy") == 0) {
			have_policy = 1;
			if (strcmp(eq, "other") == 0) a.sched_policy = SCHED_OTHER;
			else if (strcmp(eq, "batch") == 0) a.sched_policy = SCHED_BATCH;
			else if (strcmp(eq, "idle") == 0) a.sched_policy = SCHED_IDLE;
			else if (strcmp(eq, "fifo") == 0) a.sched_policy = SCHED_FIFO;
			else if (strcmp(eq, "rr") == 0) a.sched_policy = SCHED_RR;
			else {
				snprintf(why, whylen, "unknown policy '%s'", eq);
				return -1;
			}
		} else if (strcmp(tok, "nice") == 0) {
			have_nice = 1;
			a.sched_nice = atoi(eq);
		} else if (strcmp(tok, "prio") == 0) {
			a.sched_priority = (uint32_t)atoi(eq);
		} else if (strcmp(tok, "slice_ns") == 0) {
			a.sched_runtime = strtoull(eq, NULL, 10);
		} else if (strcmp(tok, "uclamp_min") == 0) {
			a.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MIN;
			a.sched_util_min = (uint32_t)atoi(eq);
		} else if (strcmp(tok, "uclamp_max") == 0) {
			a.sched_flags |= SCHED_FLAG_UTIL_CLAMP_MAX;
			a.sched_util_max = (uint32_t)atoi(eq);
		} else if (strcmp(tok, "cpus") == 0) {
			have_cpus = 1;
			if (parse_cpus(eq, &cpus)) {
				snprintf(why, whylen, "bad cpu list '%s'", eq);
				return -1;
			}
		} else if (strcmp(tok, "slack_ns") == 0) {
			have_slack = 1;
			slack = atol(eq);
		} else {
			snprintf(why, whylen, "unknown attribute '%s'", tok);
			return -1;
		}
	}
	if (have_policy || have_nice || a.sched_runtime || a.sched_flags) {
		if (syscall(SYS_sched_setattr, 0, &a, 0) != 0) {
			snprintf(why, whylen, "sched_setattr(policy %u, nice %d, prio %u, runtime %llu ns, flags 0x%llx): %s",
				 a.sched_policy, a.sched_nice, a.sched_priority, (unsigned long long)a.sched_runtime,
				 (unsigned long long)a.sched_flags, strerror(errno));
			return -1;
		}
	}
	if (have_cpus && sched_setaffinity(0, sizeof(cpus), &cpus) != 0) {
		snprintf(why, whylen, "sched_setaffinity: %s", strerror(errno));
		return -1;
	}
	if (have_slack && prctl(PR_SET_TIMERSLACK, slack > 0 ? slack : 1, 0, 0, 0) != 0) {
		snprintf(why, whylen, "PR_SET_TIMERSLACK: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * In a forked child: stdout and stderr to OUTFILE (opened with `mode`: O_TRUNC or O_APPEND),
 * stdin from /dev/null, ATTRS applied, then exec ARGV. Unless `why` already says what went
 * wrong; whatever does is written to `errfd` (the parent's error pipe) and the child exits 127.
 */
static void child_exec(char *why, size_t whylen, const char *outfile, int mode, char *attrs, char **argv, int errfd) __attribute__((noreturn));
static void child_exec(char *why, size_t whylen, const char *outfile, int mode, char *attrs, char **argv, int errfd)
{
	int out = why[0] ? -1 : open(outfile, O_WRONLY | O_CREAT | mode | O_CLOEXEC, 0644);
	if (!why[0] && out < 0)
		snprintf(why, whylen, "%s: %s", outfile, strerror(errno));
	if (!why[0]) {
		dup2(out, 1);
		dup2(out, 2);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		apply_attrs(attrs, why, whylen);
	}
	if (!why[0]) {
		execvp(argv[0], argv);
		snprintf(why, whylen, "%s: %s", argv[0], strerror(errno));
	}
	if (write(errfd, why, strlen(why)) < 0) { /* the parent sees EOF */ }
	_exit(127);
}

/* In the parent: did the child fail before its exec (its reason in `why`, the child reaped)? */
static int exec_failed(int errpipe[2], pid_t pid, char *why, size_t whylen)
{
	close(errpipe[1]);
	ssize_t got = read(errpipe[0], why, whylen - 1);
	close(errpipe[0]);
	if (got <= 0)
		return 0;
	why[got] = 0;
	waitpid(pid, NULL, 0);
	return 1;
}

/* ---------------------------------------------------------------- supervise */

static void kill_group(int sig)
{
	if (anchor > 0)
		kill(-anchor, sig);
}

static void reap(int report)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (!report)
			continue;
		for (int i = 0; i < nchildren; i++) {
			if (children[i].pid == pid) {
				int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
				say("exit\t%s\t%d\n", children[i].id, code);
				children[i].pid = 0;
			}
		}
	}
}

static void cleanup_and_exit(int code)
{
	kill_group(SIGKILL);
	/* every descendant is ours to reap (subreaper); give them a moment to die */
	for (int i = 0; i < 50; i++) {
		reap(0);
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			break;
		usleep(20000);
	}
	if (cleanup_instance) {
		char on[4096];
		snprintf(on, sizeof(on), "%s/tracing_on", cleanup_instance);
		int fd = open(on, O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "0", 1) < 0) { /* nothing more to do */ }
			close(fd);
		}
		for (int i = 0; i < 50 && rmdir(cleanup_instance) != 0 && errno == EBUSY; i++)
			usleep(20000);
	}
	if (cleanup_mount) {
		umount2(cleanup_mount, MNT_DETACH);
		rmdir(cleanup_mount);
	}
	_exit(code);
}

static volatile sig_atomic_t parent_gone;
static void on_parent_death(int sig)
{
	(void)sig;
	parent_gone = 1;
}

static void spawn(char *line)
{
	char *fields[4096];
	int n = 0;
	for (char *p = line; p && n < 4095;) {
		fields[n++] = p;
		p = strchr(p, '\t');
		if (p)
			*p++ = 0;
	}
	fields[n] = NULL;
	if (n < 5) {
		say("error\t%s\tspawn needs ID OUTFILE ATTRS ARGV...\n", n > 1 ? fields[1] : "?");
		return;
	}
	if (nchildren >= MAX_CHILDREN) {
		say("error\t%s\ttoo many processes\n", fields[1]);
		return;
	}
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) != 0) {
		say("error\t%s\tpipe: %s\n", fields[1], strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		say("error\t%s\tfork: %s\n", fields[1], strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		return;
	}
	if (pid == 0) {
		char why[512] = "";
		close(errpipe[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
		if (setpgid(0, anchor) != 0)
			snprintf(why, sizeof(why), "setpgid: %s", strerror(errno));
		child_exec(why, sizeof(why), fields[2], O_TRUNC, fields[3], &fields[4], errpipe[1]);
	}
	char why[512];
	if (exec_failed(errpipe, pid, why, sizeof(why))) {
		say("error\t%s\t%s\n", fields[1], why);
		return;
	}
	children[nchildren].pid = pid;
	snprintf(children[nchildren].id, sizeof(children[nchildren].id), "%s", fields[1]);
	nchildren++;
	say("pid\t%s\t%d\n", fields[1], (int)pid);
}

static int supervise(int argc, char **argv)
{
	pid_t parent = getppid();
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--cleanup-instance") == 0 && i + 1 < argc)
			cleanup_instance = argv[++i];
		else if (strcmp(argv[i], "--cleanup-mount") == 0 && i + 1 < argc)
			cleanup_mount = argv[++i];
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN); /* Ctrl+C goes to the parent, which tells us what to do */
	signal(SIGUSR1, on_parent_death);
	prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (getppid() != parent)
		cleanup_and_exit(1);

	anchor = fork();
	if (anchor < 0) {
		say("fatal\tfork: %s\n", strerror(errno));
		return 1;
	}
	if (anchor == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		for (;;)
			pause();
	}
	setpgid(anchor, anchor); /* both sides, so that no spawn races the anchor's own call */
	say("group\t%d\n", (int)anchor);

	static char buf[LINE_MAX_LEN];
	size_t len = 0;
	for (;;) {
		if (parent_gone || getppid() != parent)
			cleanup_and_exit(1);
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		int r = poll(&pfd, 1, 100);
		reap(1);
		if (r < 0 && errno != EINTR)
			cleanup_and_exit(1);
		if (r <= 0)
			continue;
		ssize_t got = read(0, buf + len, sizeof(buf) - 1 - len);
		if (got <= 0)
			cleanup_and_exit(got < 0 ? 1 : 0); /* stdin closed: our parent is done or gone */
		len += (size_t)got;
		buf[len] = 0;
		char *start = buf, *nl;
		while ((nl = strchr(start, '\n'))) {
			*nl = 0;
			if (strncmp(start, "spawn\t", 6) == 0) {
				spawn(start);
			} else if (strncmp(start, "signal\t", 7) == 0) {
				kill_group(atoi(start + 7));
			} else if (strcmp(start, "quit") == 0) {
				kill_group(SIGKILL);
				for (int i = 0; i < 100; i++) {
					reap(1);
					if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
						break;
					usleep(20000);
				}
				struct rusage ru;
				getrusage(RUSAGE_CHILDREN, &ru);
				say("rusage\t%lld\t%lld\n",
				    (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
				    (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
				cleanup_instance = NULL; /* the parent removes what it created */
				cleanup_mount = NULL;
				cleanup_and_exit(0);
			}
			start = nl + 1;
		}
		len = strlen(start);
		memmove(buf, start, len);
		if (len >= sizeof(buf) - 1)
			len = 0; /* a line longer than the buffer: drop it */
	}
}

/* ---------------------------------------------------------------- load */

struct load_thread {
	pthread_t th;
	char name[32];
	long run_ns, period_ns;
	struct timespec start;
	int wall;
};

static volatile sig_atomic_t stop_load;
static void on_stop(int sig)
{
	(void)sig;
	stop_load = 1;
}

static long long ts_ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static void ns_ts(long long ns, struct timespec *t)
{
	t->tv_sec = ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

static long long now_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return ts_ns(&t);
}

static void *load_main(void *arg)
{
	struct load_thread *lt = arg;
	prctl(PR_SET_NAME, lt->name, 0, 0, 0);
	if (lt->period_ns == 0) {
		while (!stop_load)
			;
		return NULL;
	}
	/* as the simulator's periodic task: run at the start, then every period on the grid */
	long long next = ts_ns(&lt->start);
	clockid_t runclock = lt->wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
	while (!stop_load) {
		struct timespec t;
		ns_ts(next, &t);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR && !stop_load)
			;
		long long until = now_ns(runclock) + lt->run_ns;
		while (!stop_load && now_ns(runclock) < until)
			;
		next += lt->period_ns;
		long long now = now_ns(CLOCK_MONOTONIC);
		if (next <= now)
			next += ((now - next) / lt->period_ns + 1) * lt->period_ns;
	}
	return NULL;
}

static int load(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: schedlab-helper load NAME THREADS RUN_US PERIOD_US [STAGGER_US] [wall]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	if (n < 1 || n > 4096) {
		fprintf(stderr, "load: THREADS must be 1..4096\n");
		return 2;
	}
	long run_ns = (long)(atof(argv[2]) * 1000), period_ns = (long)(atof(argv[3]) * 1000);
	long stagger_ns = argc > 4 ? (long)(atof(argv[4]) * 1000) : 0;
	int wall = argc > 5 && strcmp(argv[5], "wall") == 0;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	struct load_thread *lts = calloc((size_t)n, sizeof(*lts));
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	long long t0 = ts_ns(&start);
	for (int i = 0; i < n; i++) {
		snprintf(lts[i].name, sizeof(lts[i].name), "%.*s-%d", 10, argv[0], i);
		lts[i].run_ns = run_ns;
		lts[i].period_ns = period_ns;
		lts[i].wall = wall;
		ns_ts(t0 + (long long)i * stagger_ns, &lts[i].start);
		if (pthread_create(&lts[i].th, NULL, load_main, &lts[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(lts[i].th, NULL);
	return 0;
}


/* ---------------------------------------------------------------- plan (the guest's runner) */

#define MAX_PLAN 128
#define STOP_GRACE_NS 5000000000LL

struct planned {
	char id[64];
	long long delay_ns;
	int stopsig;
	int repeat;
	char *outfile;
	char *attrs;
	char *argv[256];
	pid_t pid, pgid;
	int started, restarts;
};

static FILE *report;

static void rsay(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rsay(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(report, fmt, ap);
	va_end(ap);
	fflush(report);
}

static void plan_start(struct planned *p)
{
	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) != 0) {
		rsay("error\t%s\tpipe: %s\n", p->id, strerror(errno));
		return;
	}
	char attrs[1024];
	snprintf(attrs, sizeof(attrs), "%s", p->attrs);
	pid_t pid = fork();
	if (pid < 0) {
		rsay("error\t%s\tfork: %s\n", p->id, strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		return;
	}
	if (pid == 0) {
		char why[512] = "";
		close(errpipe[0]);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		child_exec(why, sizeof(why), p->outfile, O_APPEND, attrs, p->argv, errpipe[1]);
	}
	setpgid(pid, pid);
	char why[512];
	if (exec_failed(errpipe, pid, why, sizeof(why))) {
		rsay("error\t%s\t%s\n", p->id, why);
		return;
	}
	p->pid = pid;
	p->pgid = pid;
	p->started = 1;
	rsay("pid\t%s\t%d\n", p->id, (int)pid);
}

/* Reap ended processes, report them, and restart the repeating ones until `restart_until` (0: never). */
static void plan_reap(struct planned *ps, int n, long long restart_until)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < n; i++) {
			if (ps[i].pid != pid)
				continue;
			int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			rsay("exit\t%s\t%d\n", ps[i].id, code);
			ps[i].pid = 0;
			if (ps[i].repeat && restart_until > 0 && now_ns(CLOCK_MONOTONIC) < restart_until) {
				ps[i].restarts++;
				plan_start(&ps[i]);
			}
		}
	}
}

static int plan_signal(const char *name)
{
	if (strcmp(name, "SIGINT") == 0) return SIGINT;
	if (strcmp(name, "SIGKILL") == 0) return SIGKILL;
	return SIGTERM;
}

static int plan(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: schedlab-helper plan FILE REPORT\n");
		return 2;
	}
	FILE *f = fopen(argv[0], "r");
	if (!f) {
		perror(argv[0]);
		return 2;
	}
	report = fopen(argv[1], "w");
	if (!report) {
		perror(argv[1]);
		return 2;
	}
	static struct planned ps[MAX_PLAN];
	int n = 0;
	long long duration_ns = 0;
	static char line[LINE_MAX_LEN];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *fields[300];
		int k = 0;
		for (char *q = strdup(line); q && k < 299;) {
			fields[k++] = q;
			q = strchr(q, '\t');
			if (q)
				*q++ = 0;
		}
		if (k >= 2 && strcmp(fields[0], "duration_ms") == 0) {
			duration_ns = atoll(fields[1]) * 1000000LL;
		} else if (k >= 8 && strcmp(fields[0], "proc") == 0 && n < MAX_PLAN) {
			struct planned *p = &ps[n++];
			snprintf(p->id, sizeof(p->id), "%s", fields[1]);
			p->delay_ns = (long long)(atof(fields[2]) * 1e6);
			p->stopsig = plan_signal(fields[3]);
			p->repeat = atoi(fields[4]);
			p->outfile = fields[5];
			p->attrs = fields[6];
			int a = 0;
			for (int j = 7; j < k && a < 255; j++)
				p->argv[a++] = fields[j];
			p->argv[a] = NULL;
		}
	}
	fclose(f);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	long long t0 = now_ns(CLOCK_MONOTONIC);
	rsay("start\t%lld\n", t0);
	long long end = t0 + duration_ns;
	int next = 0, ended_early = 0;
	/* start in delay order (the plan is sorted by the host) and wait for the end */
	for (;;) {
		long long now = now_ns(CLOCK_MONOTONIC);
		while (next < n && t0 + ps[next].delay_ns <= now)
			plan_start(&ps[next++]);
		int live = 0, any = 0;
		for (int i = 0; i < n; i++) {
			if (ps[i].started)
				any = 1;
			if (ps[i].pid > 0)
				live = 1;
		}
		if (next >= n && any && !live) {
			ended_early = 1;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		if (now >= end)
			break;
		long long until = end;
		if (next < n && t0 + ps[next].delay_ns < until)
			until = t0 + ps[next].delay_ns;
		struct timespec wait;
		ns_ts(until - now, &wait);
		if (sigtimedwait(&chld, NULL, &wait) == SIGCHLD)
			plan_reap(ps, n, end - 50000000LL);
	}
	/* the end: the stop signal to each process group, SIGKILL after the grace time */
	for (int i = 0; i < n; i++)
		if (ps[i].pid > 0)
			kill(-ps[i].pid, ps[i].stopsig);
	long long stop_by = now_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;
	for (;;) {
		plan_reap(ps, n, 0);
		int live = 0;
		for (int i = 0; i < n; i++)
			if (ps[i].pid > 0)
				live = 1;
		long long now = now_ns(CLOCK_MONOTONIC);
		if (!live || now >= stop_by)
			break;
		struct timespec wait;
		ns_ts(stop_by - now, &wait);
		sigtimedwait(&chld, NULL, &wait);
	}
	for (int i = 0; i < n; i++) {
		if (ps[i].pid > 0) {
			rsay("killed\t%s\n", ps[i].id);
			kill(-ps[i].pid, SIGKILL);
			waitpid(ps[i].pid, NULL, 0);
		}
		if (ps[i].pgid > 0)
			kill(-ps[i].pgid, SIGKILL);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	rsay("end\t%lld\n%s", now_ns(CLOCK_MONOTONIC), ended_early ? "ended_early\t1\n" : "");
	fclose(report);
	return 0;
}

/* ---------------------------------------------------------------- rawdump, pdeath */

static int rawdump(int argc, char **argv)
{
	if (argc < 1) {
		fprintf(stderr, "usage: schedlab-helper rawdump FILE\n");
		return 2;
	}
	int fd = open(argv[0], O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror(argv[0]);
		return 1;
	}
	static char buf[1 << 16];
	for (;;) {
		ssize_t got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t off = 0; off < got;) {
			ssize_t w = write(1, buf + off, (size_t)(got - off));
			if (w <= 0)
				return 1;
			off += w;
		}
	}
	close(fd);
	return 0;
}

static int pdeath(int argc, char **argv)
{
	pid_t parent = getppid();
	if (argc < 1) {
		fprintf(stderr, "usage: schedlab-helper pdeath ARGV...\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		return 1;
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	return 127;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "supervise") == 0)
		return supervise(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "load") == 0)
		return load(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "plan") == 0)
		return plan(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "rawdump") == 0)
		return rawdump(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "pdeath") == 0)
		return pdeath(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "version") == 0) {
		printf("schedlab-helper 1\n");
		return 0;
	}
	fprintf(stderr, "usage: schedlab-helper supervise|load|plan|rawdump|pdeath|version ...\n");
	return 2;
}
