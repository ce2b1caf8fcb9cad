/* iosched-top: entry point. Parses options, checks the disks named on the
 * command line against the system, and hands over to the TUI or batch view.
 * The only mutable global of the program lives here: the flag a signal sets. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "disk.h"
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

static void list_names(const struct disk_info *d, size_t n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", d[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Every --disk name must be a whole disk present now. Returns 0 or prints
 * why not (with what to use instead) and returns -1. */
static int check_disks(const struct options *o, struct sampler *smp)
{
	struct disk_info *all;
	size_t n;
	int rc = sampler_list_disks(smp, &all, &n);
	if (rc < 0) {
		fprintf(stderr, "iosched-top: cannot list block devices: %s\n", strerror(-rc));
		return -1;
	}
	for (size_t k = 0; k < o->ndisks && rc == 0; k++) {
		const char *name = o->disks[k];
		size_t i;
		for (i = 0; i < n && strcmp(all[i].name, name) != 0; i++)
			;
		if (i < n)
			continue;
		char parent[64], names[1024];
		list_names(all, n, names, sizeof names);
		int part = disk_partition_parent(name, parent, sizeof parent);
		if (part == 1)
			fprintf(stderr, "iosched-top: --disk: %s is a partition of %s; give the whole disk: --disk %s\n",
				name, parent, parent);
		else if (part == 0)
			fprintf(stderr, "iosched-top: --disk: %s is hidden: its size is 0 (a loop device with no backing file); disks here: %s\n",
				name, names);
		else
			fprintf(stderr, "iosched-top: --disk: no disk named '%s'; disks here: %s\n", name, names);
		rc = -1;
	}
	free(all);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	setlocale(LC_ALL, "");
	if (options_parse(argc, argv, &o, err, sizeof err) < 0) {
		fprintf(stderr, "iosched-top: %s\n", err);
		options_free(&o);
		return 2;
	}
	if (o.help || o.version) {
		if (o.help)
			options_print_help(stdout, "iosched-top");
		else
			printf("iosched-top %s\n", IOSCHED_VERSION);
		options_free(&o);
		return 0;
	}
	struct sampler smp;
	if (sampler_init(&smp, (const char *const *)o.disks, o.ndisks) < 0) {
		fprintf(stderr, "iosched-top: cannot start libudev (out of memory?)\n");
		options_free(&o);
		return 1;
	}
	if (o.ndisks == 0)
		smp.only = NULL;
	if (check_disks(&o, &smp) < 0) {
		sampler_free(&smp);
		options_free(&o);
		return 2;
	}
	install_signals();
	int rc = o.batch ? batch_run(&o, &smp, &stop_requested) : tui_run(&o, &smp, &stop_requested);
	if (rc < 0)
		fprintf(stderr, "iosched-top: cannot read /proc/diskstats: %s\n", strerror(-rc));
	sampler_free(&smp);
	options_free(&o);
	return rc < 0 ? 1 : 0;
}
