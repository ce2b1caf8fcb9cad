/* iosched-top: entry point. Parses options, checks them against the
 * system, and hands over to the TUI or batch view. The only mutable global
 * of the program lives here: the flag a signal sets. */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "batch.h"
#include "cli.h"
#include "options.h"
#include "sample.h"
#include "tui.h"

#ifndef IOSCHED_VERSION
#define IOSCHED_VERSION "0.1.0"
#endif

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	/* No SA_RESTART: a signal must cut the sleep or getch short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int run(const struct options *o)
{
	struct sampler_config cfg;
	char file_disk[64];
	int rc = cli_config(o, &cfg, file_disk, sizeof file_disk);
	if (rc)
		return rc;
	struct sampler smp;
	if (sampler_init(&smp, &cfg) < 0) {
		fprintf(stderr, "iosched-top: cannot start libudev (out of memory?)\n");
		return 1;
	}
	rc = cli_check(o, &smp);
	if (!rc)
		rc = cli_apply_sets(o, &smp);
	if (!rc) {
		install_signals();
		rc = o->batch ? batch_run(o, &smp, &stop_requested) : tui_run(o, &smp, &stop_requested);
		if (rc < 0) {
			fprintf(stderr, "iosched-top: cannot read /proc/diskstats: %s\n", strerror(-rc));
			rc = 1;
		}
	}
	sampler_free(&smp);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	setlocale(LC_ALL, "");
	int rc;
	if (options_parse(argc, argv, &o, err, sizeof err) < 0) {
		fprintf(stderr, "iosched-top: %s\n", err);
		rc = 2;
	} else if (o.help) {
		options_print_help(stdout, "iosched-top");
		rc = 0;
	} else if (o.version) {
		printf("iosched-top %s\n", IOSCHED_VERSION);
		rc = 0;
	} else {
		rc = run(&o);
	}
	options_free(&o);
	return rc;
}
