/* abnext: the A/B report's next step. Which variant suits which use (a
 * reader's verdict), the choice for a desktop or laptop and for a server,
 * and the commands that keep a choice across reboots and undo it. Every
 * format of the report (abreport.h) prints the same decision from here.
 *
 * The rule: a desktop or laptop starts programs and answers a user while
 * something writes, so its choice comes from the cold starts of a real
 * program (--startup) where they were timed, else from the fresh readers
 * (new processes' uncached random reads: no page cache, no readahead, so
 * only a stand-in for a program's start), and from the paced reader: the
 * variant one of them prefers (decided, not a trade-off) and the other
 * does not contradict (it prefers the same one or decides nothing). A
 * server runs long-lived readers: its choice is the steady reader's. An
 * A/A, or no verdict decided, is "no difference worth a change", with no
 * command to keep. Pure functions over the verdicts and the configuration. */
#ifndef IOSCHED_ABNEXT_H
#define IOSCHED_ABNEXT_H

#include <stddef.h>

#include "model/abdata.h"
#include "model/abstats.h"

enum abn_why {
	ABN_CHOSEN,                 /* v is the choice */
	ABN_UNDECIDED,              /* no verdict decided: no difference worth a change */
	ABN_SPLIT,                  /* decided, but readers disagree or a trade-off: no single choice */
	ABN_AA,                     /* every variant the same setting */
};

struct abn_choice {
	int v;                      /* the variant; -1 unless ABN_CHOSEN */
	enum abn_why why;
};

enum abn_use { ABN_DESKTOP, ABN_SERVER, ABN_NUSES };

struct abn_next {
	struct abn_choice reader[ABV_NREADERS]; /* the variant that suits each reader */
	struct abn_choice use[ABN_NUSES];
	int keep;                   /* the variant the keep command is for: the desktop's, else the server's; -1 */
	int keep_other;             /* the server's, when it differs from the desktop's; -1 */
	int cold;                   /* the desktop's choice came from timed cold starts */
	int live;                   /* a live run: the uses are this load's reads and its writes */
};

void abnext_decide(const struct abv_report *r, struct abn_next *out);

/* What a reader or use is called in the report: "new processes' direct
 * reads (fresh)", "a desktop or laptop (cold starts and paced reader)". */
const char *abnext_reader_use(enum abv_reader rd);
const char *abnext_use_name(enum abn_use u, const struct abn_next *n);

/* A use's key in JSON and CSV: "desktop", "server"; a live run's
 * "reads", "writes". */
const char *abnext_use_key(enum abn_use u, const struct ab_config *cfg);

/* A choice in words: the variant's label, "no difference worth a change",
 * "no single choice (...)", "A/A: ...". */
void abnext_choice_text(const struct abn_choice *c, const struct ab_config *cfg, char *buf, size_t len);

/* The command that switches the disk to variant v's scheduler and prints
 * the udev rule that keeps it across reboots:
 * "iosched-top --disk sda --set sda=bfq --print-udev-rule". Returns 0, or
 * -1 (buf "") when v is no variant. */
int abnext_keep(const struct ab_config *cfg, int v, char *buf, size_t len);

/* What the rule must carry beside the scheduler for v's tunables (the
 * rule and --set keep the scheduler only), as udev assignments to add at
 * the end of the rule's line: `ATTR{queue/iosched/low_latency}="0"`.
 * "" when v has none. */
void abnext_rule_adds(const struct ab_config *cfg, int v, char *buf, size_t len);

/* How to undo a kept choice: remove the rule, then put the scheduler the
 * disk had before (original) back now. The sentence, and its command
 * alone ("echo none > /sys/block/sda/queue/scheduler"). */
void abnext_undo(const struct ab_config *cfg, const char *original, char *buf, size_t len);
void abnext_undo_command(const struct ab_config *cfg, const char *original, char *buf, size_t len);

/* The next step's parts as words, for every format of the report: each
 * reader's use, the desktop's and the server's choice, the keep commands
 * (""), what the rule must add for a variant's tunables, the undo, and the
 * kept variants' labels. */
struct abn_words {
	struct abn_next n;
	char reader[ABV_NREADERS][96], use[ABN_NUSES][96];
	char keep[256], keep_other[256], adds[400], adds_other[400], undo[320], undo_cmd[160];
	char keep_name[48], other_name[48];
	int keep_is_now; /* the kept variant is what the disk is on now (its scheduler, no tunables): nothing to change */
};

void abnext_words(const struct abv_report *vr, const struct ab_config *cfg, const char *original,
		  struct abn_words *w);

#endif
