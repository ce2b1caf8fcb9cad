/* cli: from parsed options to a running configuration — every name on the
 * command line checked against the disks the system has (before anything
 * is changed), the sampler's configuration, and the --set switches applied
 * all or nothing. Messages go to stderr and say what to do instead. */
#ifndef IOSCHED_CLI_H
#define IOSCHED_CLI_H

#include <signal.h>
#include <stdio.h>

#include "act/ab.h"
#include "act/load.h"
#include "config/options.h"
#include "model/sample.h"

/* Fill cfg from o. probe_file_disk is written to disk_buf (len bytes).
 * Returns 0, or 2 (usage error, message printed). */
int cli_config(const struct options *o, struct sampler_config *cfg, char *disk_buf, size_t len);

/* Check --disk, --probe, --set and --probe-size against the system.
 * Returns 0, or 2 (usage error, message printed). */
int cli_check(const struct options *o, struct sampler *smp);

/* Remove what killed or crashed runs left in the places this run could
 * write to (load.h, probefile.h): an A/B's load directory; the full
 * screen's load places for the disks shown (--load-dir, /var/tmp, their
 * filesystems); the probe file directories of disks whose node is refused
 * (the probe falls back to a file there), and --probe-file's. Each removal
 * is one line on stderr, or in the full screen an event of type "cleanup"
 * (the event log shows it). Only the tool's own items whose owner is gone
 * are touched. A signal (stop) cuts the sweep short. */
void cli_sweep(const struct options *o, struct sampler *smp, volatile sig_atomic_t *stop);

struct control;

/* Apply the --set switches in order (each an event and an undo entry).
 * When one fails the ones already made are switched back, so the system is
 * as it was. Returns 0, or 1 (runtime failure, message printed). */
int cli_apply_sets(const struct options *o, struct control *c);

/* --print-udev-rule: for every shown disk with a scheduler, the rule that
 * keeps its current one, the rules files that set one for it now, where
 * the rule would go and how to apply it. Returns 0. */
int cli_print_udev_rules(const struct options *o, struct sampler *smp, FILE *f);

/* --ab: check the variants against the disk (exit 2 before anything
 * changes), run the comparison, print the report. Returns the exit status:
 * 0, 1 (failed, stopped by a signal: partial report, or a setting that
 * could not be put back), 2 (bad variants). */
int cli_run_ab(const struct options *o, struct control *ctl, volatile sig_atomic_t *stop);

#endif
