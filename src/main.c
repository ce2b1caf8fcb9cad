/* iosched-top: entry point. Parses options, checks them against the
 * system, and hands over to the TUI or batch view. The only mutable global
 * of the program lives here: the flag a signal sets. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

#include "out/batch.h"
#include "cli.h"
#include "act/demodisk.h"
#include "act/control.h"
#include "config/options.h"
#include "out/outputs.h"
#include "model/replay.h"
#include "model/sample.h"
#include "session.h"
#include "view/tui.h"
#include "base/util.h"

#ifndef IOSCHED_VERSION
#define IOSCHED_VERSION "0.1.0"
#endif

/* How long --restore waits at exit for the kernel to take the old values. */
#define RESTORE_WAIT_S 30.0

static volatile sig_atomic_t stop_requested;
/* A signal whose default action is to end the process and that is not a
 * crash of its own (SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, which root's tools
 * and scripts may send; SIGXCPU past a soft CPU-time limit, SIGVTALRM,
 * SIGPROF, SIGPWR, SIGIO): the run ends through its clean-up, then dies by
 * it (die_by_signal). */
static volatile sig_atomic_t stop_signal;
static const int die_signals[] = {SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGPWR, SIGIO,
				  SIGSTKFLT};
#define NDIE (sizeof die_signals / sizeof die_signals[0])

/* What a crash signal's handler needs to give the terminal back: the tty
 * modes from before the full screen, and the actions the signals had
 * (the sanitizers' own handlers, in their build). Set once at start. */
static struct termios crash_tty;
static int crash_have_tty;
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
#define NCRASH (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction crash_old[NCRASH];

static void on_signal(int sig);

/* A crash: the terminal as it was (modes, main screen, cursor, colours),
 * then the signal again with its earlier action, so the core dump, the
 * exit status or the sanitizer's report are what they would have been.
 * The same signal sent by another process (kill -TRAP, kill -SEGV) is no
 * crash: it stops the run through its clean-up, as SIGTERM does, and the
 * tool dies by it after. Only async-signal-safe calls here. */
static void on_crash(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (info && (info->si_code == SI_USER || info->si_code == SI_QUEUE) && info->si_pid != getpid()) {
		on_signal(sig);
		return;
	}
	static const char reset[] = "\033[0m\033[?1000l\033[?1006l\033[?25h\033[?1049l\r\n";
	if (crash_have_tty) {
		tcsetattr(STDIN_FILENO, TCSANOW, &crash_tty);
		if (write(STDOUT_FILENO, reset, sizeof reset - 1) < 0) {
			/* nothing more can be done */
		}
	}
	for (size_t i = 0; i < NCRASH; i++)
		if (crash_signals[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	raise(sig);
}

static void install_crash_handlers(void)
{
	crash_have_tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && tcgetattr(STDIN_FILENO, &crash_tty) == 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &sa, &crash_old[i]);
}

static void on_signal(int sig)
{
	stop_requested = 1;
	/* the first one, of any kind: it stopped the run (the threads the
	 * tool starts block these: util_block_stop_signals) */
	int none = 0;
	__atomic_compare_exchange_n(&stop_signal, &none, sig, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Whether sig is raised again after the clean-up (the others exit): the
 * list, and the real-time signals (their default ends a process too). */
static int is_die_signal(int sig)
{
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return 1;
	for (size_t i = 0; i < NCRASH; i++) /* sent by another process: on_crash */
		if (crash_signals[i] == sig)
			return 1;
	for (size_t i = 0; i < NDIE; i++)
		if (die_signals[i] == sig)
			return 1;
	return 0;
}

/* After the clean-up (settings restored, the terminal given back, the
 * report written): the signal again with its default action, so the
 * caller's status says what ended the run (128+N in a shell). Not
 * dumpable first: the run did not crash, and a core of root's process
 * would hold other users' command lines. Returns only if the signal did
 * not end the process. */
static void die_by_signal(int sig)
{
	fflush(stdout);
	fflush(stderr);
	prctl(PR_SET_DUMPABLE, 0);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	/* No SA_RESTART: a signal must cut the sleep or getch short. Each
	 * blocks the others while it is handled: two sent at once would
	 * otherwise have the second's handler run first, on top of the first. */
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* SIGHUP ignored when the tool came (nohup) stays ignored: the caller
	 * asked the run to outlive the terminal. (Not SIGINT and SIGQUIT: a
	 * script's background job gets them ignored whether its user wants
	 * that or not.) */
	struct sigaction hup;
	if (sigaction(SIGHUP, NULL, &hup) != 0 || hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	/* Their default would kill the run with nothing put back (and
	 * SIGQUIT, Ctrl-\, with the terminal left in the full screen). */
	for (size_t i = 0; i < NDIE; i++)
		sigaction(die_signals[i], &sa, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	/* A reader that goes (--json | head -1): the write fails with EPIPE
	 * and the run ends through its clean-up, as on SIGTERM; the default
	 * action would kill it with its probe file half written and nothing
	 * restored. Also when SIGPIPE came ignored (systemd's default). */
	sigaction(SIGPIPE, &sa, NULL);
	/* Past a file size limit (ulimit -f) the default kills the run with
	 * nothing put back; ignored, the write fails with EFBIG and the run
	 * ends through the output-error clean-up, restore included. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGXFSZ, &sa, NULL);
}

/* Standard descriptors closed by the caller would be handed to the next
 * open (the uevent socket, a probe file) and written to as stdout: hold
 * them with /dev/null first. Returns the mask of those closed (1 << fd). */
static int hold_std_fds(void)
{
	int closed = 0;
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			closed |= 1 << fd;
			int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
			if (n >= 0 && n != fd) {
				dup2(n, fd);
				close(n);
			}
		}
	return closed;
}

/* What the views returned, as an exit status with a message. */
static int view_status(int rc)
{
	if (rc == -ENOTTY) {
		util_complain("not on a terminal: use -b (text) or --json for output to a pipe or file\n");
		return 2;
	}
	if (rc == -ENOTSUP) {
		const char *term = getenv("TERM");
		util_complain("terminal type '%s' (TERM) cannot move the cursor: use -b for text output, "
				"or a TERM such as vt100 or xterm-256color\n", term ? term : "");
		return 2;
	}
	if (rc == -EMEDIUMTYPE) {
		const char *term = getenv("TERM");
		util_complain("unknown terminal type '%s' (TERM); try TERM=xterm-256color, or -b for text output\n",
			term ? term : "");
		return 2;
	}
	if (rc == -ENOMEM) {
		util_complain("out of memory\n");
		return 1;
	}
	if (rc < 0) {
		/* The sampler is the rest: /proc/diskstats and the disks' list
		 * (libudev, /sys/block) are what a tick reads first. */
		util_complain("cannot take a sample of the disks (/proc/diskstats, /sys/block): %s\n",
			strerror(-rc));
		return 1;
	}
	return rc;
}

/* --disk with --replay names disks of the recording, not of this machine:
 * each must be in its first tick. Returns 0, or 2 with the message said. */
static int check_replay_disks(const struct options *o)
{
	if (!o->ndisks)
		return 0;
	char err[512];
	struct replay *r;
	if (replay_open(&r, o->replay, err, sizeof err) < 0)
		return 0; /* said by the real open */
	struct sample s = {0};
	int rc = 0;
	if (replay_next(r, &s, err, sizeof err) == 1) {
		for (size_t k = 0; k < o->ndisks && !rc; k++) {
			size_t i = 0;
			while (i < s.ndisks && strcmp(s.disks[i].info.name, o->disks[k]) != 0)
				i++;
			if (i < s.ndisks)
				continue;
			char have[300] = "";
			for (i = 0; i < s.ndisks; i++)
				util_fmt(have + strlen(have), sizeof have - strlen(have), "%s%s", i ? ", " : "",
					 s.disks[i].info.name);
			util_complain("--disk %s: not in the recording %s (it has %s)\n", o->disks[k],
				o->replay, have[0] ? have : "no disks");
			rc = 2;
		}
	}
	sample_free(&s);
	replay_close(r);
	return rc;
}

/* --replay: the sampler reads a recording. Nothing on this machine is
 * read or changed, so no root is needed. Returns 0, or 2 with the reason
 * said. */
static int use_replay(const struct options *o, struct sampler *smp)
{
	char err[512];
	struct replay *r;
	if (replay_open(&r, o->replay, err, sizeof err) < 0) {
		util_complain("%s\n", err);
		return 2;
	}
	if (check_replay_disks(o)) {
		replay_close(r);
		return 2;
	}
	sampler_use_replay(smp, r);
	return 0;
}

/* A live run's checks against the system and its clean-up of killed
 * runs' files. Returns 0, or the exit status when the run ends here
 * (--print-udev-rule, or a check that failed). */
static int prepare_live(const struct options *o, struct sampler *smp, int *done)
{
	*done = 0;
	int rc = cli_check(o, smp);
	/* With --set the rule is for the scheduler asked for: it is printed
	 * after the switch (run() below), as the disk then has it. */
	if (!rc && o->print_udev_rule && !o->nsets) {
		*done = 1;
		return cli_print_udev_rules(o, smp, stdout);
	}
	/* Before this run makes scratch files of its own: a killed run's go. */
	if (!rc)
		cli_sweep(o, smp, &stop_requested);
	return rc;
}

/* A tick to the outputs (the session's callback). */
static int write_outputs(void *ctx, const struct sample *s, char *err, size_t len)
{
	return outputs_tick(ctx, s, err, len);
}

/* The outputs, then the changes asked for at start (a replay has none):
 * a --record or --prometheus-textfile that cannot be written ends the run
 * before anything is changed. Then the view, through one session: a live
 * run and a replay take the same path. */
static int run_session(const struct options *o, struct sampler *smp, struct control *ctl)
{
	char msg[256];
	struct outputs outs = {0};
	int rc = 0;
	if (outputs_open(&outs, o, msg, sizeof msg) < 0) {
		util_complain("%s\n", msg);
		rc = 2;
	}
	if (!rc && !o->replay)
		rc = cli_apply_sets(o, ctl);
	if (!rc && !o->replay && o->enable_delayacct && control_delayacct(ctl, 1, msg, sizeof msg) < 0) {
		util_complain("--enable-delayacct: %s\n", msg);
		rc = 1;
	}
	struct session *sess = rc ? NULL : session_new(o, smp, ctl, write_outputs, &outs);
	if (!rc && !sess) {
		util_complain("out of memory\n");
		rc = 1;
	}
	if (!rc)
		rc = view_status(o->batch ? batch_run(o, sess, &stop_requested) : tui_run(o, sess, &stop_requested));
	session_free(sess);
	outputs_close(&outs);
	/* A recording that ended on a bad line was said; the status says it too. */
	if (!rc && o->replay && sampler_replay_msg(smp)[0])
		rc = 1;
	return rc;
}

/* --set DISK=SCHED --print-udev-rule: switch, then print the rule that
 * keeps SCHED (the disk's scheduler now) across reboots; the A/B report's
 * next step prints this command. The switch stays unless --restore. */
static int set_and_print_rules(const struct options *o, struct sampler *smp, struct control *ctl)
{
	int rc = cli_apply_sets(o, ctl);
	if (!rc)
		rc = cli_print_udev_rules(o, smp, stdout);
	if (control_finish(ctl, o->restore, RESTORE_WAIT_S, stderr) && !rc)
		rc = 1;
	return rc;
}

static int run(const struct options *o)
{
	struct sampler_config cfg;
	char file_disk[64];
	int rc = cli_config(o, &cfg, file_disk, sizeof file_disk);
	if (rc)
		return rc;
	struct sampler *smp;
	if (sampler_new(&smp, &cfg) < 0) {
		util_complain("cannot start libudev (out of memory?)\n");
		return 1;
	}
	int done = 0;
	rc = o->replay ? use_replay(o, smp) : prepare_live(o, smp, &done);
	struct control *ctl = NULL;
	if (!rc && !done && control_new(&ctl, NULL) < 0) {
		util_complain("cannot start the worker thread\n");
		rc = 1;
	} else if (!rc && !done) {
		/* From here every change is logged: a signal ends the run, and
		 * the exit below restores or reports what was changed (the A/B
		 * and the udev rule's run finish the control themselves). */
		if (o->ab) {
			rc = cli_run_ab(o, ctl, &stop_requested);
		} else if (o->print_udev_rule) {
			rc = set_and_print_rules(o, smp, ctl);
		} else {
			rc = run_session(o, smp, ctl);
			/* Restoring waits for the kernel (a switch drains the
			 * queue) but not forever: what did not finish is
			 * reported. */
			if (control_finish(ctl, o->restore, RESTORE_WAIT_S, stderr) && !rc)
				rc = 1;
		}
	}
	control_free(ctl);
	sampler_free(smp);
	return rc;
}

/* --demo-disk: the disk made (before any thread: its writer is forked),
 * the run pointed at it (shown and probed), then removed, at every end
 * the run itself lives through. */
static int run_demo(struct options *o)
{
	struct demodisk d;
	char msg[512];
	if (demodisk_make(&d, msg, sizeof msg) < 0) {
		util_complain("--demo-disk: %s\n", msg);
		return 1;
	}
	if (d.swept[0])
		util_complain("removed demo disk(s) left by a run that was killed: %s\n", d.swept);
	o->disks[o->ndisks++] = strdup(d.name);
	o->probe_disks[o->nprobe_disks++] = strdup(d.name);
	int rc = o->disks[0] && o->probe_disks[0] ? run(o) : 1;
	demodisk_remove(&d, msg, sizeof msg);
	if (msg[0]) {
		util_complain("%s\n", msg);
		rc = rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	int closed = hold_std_fds(); /* before anything opens a descriptor */
	setlocale(LC_ALL, "");
	/* One malloc arena for all threads: the BPF loader thread parses the
	 * kernel's BTF (megabytes) and frees it, and a thread arena of its own
	 * kept about 10 MiB of that resident for good (RSS 19 MiB, 8.5 with
	 * one arena). The threads allocate little; they do not contend. */
	mallopt(M_ARENA_MAX, 1);
	/* A fixed threshold: blocks of 256 KiB and more are mapped, and given
	 * back when freed. glibc's own raises it to the size of each such block
	 * freed, so the per-task tables of a reading (megabytes with 10,000
	 * tasks), freed each refresh, stayed resident in the heap. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	install_crash_handlers();
	/* At once: a SIGINT/SIGTERM/SIGHUP (or SIGQUIT, SIGUSR1, SIGUSR2,
	 * SIGALRM, raised again at the end) at any point ends the run through
	 * its clean-up, never by the default action (which would skip it).
	 * Until the views run it only stops them early. */
	install_signals();
	int rc;
	if (options_parse(argc, argv, &o, err, sizeof err) < 0) {
		util_complain("%s\n", err);
		rc = 2;
	} else if ((closed & 1 << STDOUT_FILENO) && !o.prom_file && !o.record) {
		/* all it would print is lost, with nothing else written */
		util_complain("stdout is closed: what the run prints would be lost; send it to a file (> FILE), or to "
			      "/dev/null to discard it\n");
		rc = 2;
	} else if (o.help || o.version) {
		if (o.help)
			options_print_help(stdout, "iosched-top");
		else
			printf("iosched-top %s\n", IOSCHED_VERSION);
		rc = util_flush_check(stdout);
		if (rc < 0)
			util_complain_write(o.help ? "the help" : "the version", rc);
		rc = rc < 0 ? 1 : 0;
	} else {
		rc = o.demo_disk ? run_demo(&o) : run(&o);
	}
	options_free(&o);
	/* A reader gone ends the run with exit 1 (the man page's SIGNALS),
	 * also when the signal came by hand (kill -PIPE) with no write failed
	 * to say so. */
	if (stop_signal == SIGPIPE && rc == 0) {
		util_complain("stopped by SIGPIPE (a reader of the output gone)\n");
		rc = 1;
	}
	if (is_die_signal(stop_signal))
		die_by_signal(stop_signal);
	return rc;
}
