/* Unit tests: no output prints a recording's string raw. Every string
 * field of the recording's tables (recfmt.c: the tick, a disk, an event, a
 * process row, the process status, the block-layer part and its tuples,
 * found by walking the tables, so a field added there is covered here at
 * once), and the scheduler list a disk's table cannot say, gets hostile
 * bytes: ESC sequences (a title set, the screen cleared), BEL, a C1 CSI
 * (U+009B), bidirectional overrides (U+202E, U+2066) and a byte that is
 * not UTF-8. The sample is written as a recording, replayed, and printed
 * as batch mode prints it in every format (text, JSON, CSV, CSV of
 * processes) and as the Prometheus file, with the block-layer part on and
 * off (each shows other strings). No output may hold a control character
 * (but its newlines), a C1 control, a bidirectional control or bytes that
 * are not UTF-8. The screen draws every text through screen_put*, which
 * escape as util_safe_text does (tests/integration/test_hostile_replay.sh
 * replays such a recording in tmux). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/batch.h"
#include "out/detail.h"
#include "out/prom.h"
#include "model/recfmt.h"
#include "out/record.h"
#include "model/replay.h"
#include "model/sample.h"
#include "base/util.h"

/* A marker (to find the field again), then what a terminal must never get. */
#define EVIL "\x1b]0;PWNED\x07\x1b[2J\xc2\x9b\xe2\x80\xae\xe2\x81\xa6\xff"

static const char *const cmdline_evil = "/bin/x " EVIL;

/* Set every string field of table t at base to hostile text, and the
 * first field of an object left out when 0 to 1 (so it is written).
 * Returns how many strings it set. */
static int plant(const struct rf_field *t, char *base)
{
	int n = 0;
	for (const struct rf_field *x = t; x->type != RF_END; x++) {
		char *p = base + x->off;
		if (x->type == RF_STR) {
			util_strlcpy(p, EVIL, x->size); /* cut short where the field is small: still hostile */
			n++;
		} else if (x->type == RF_STRP) {
			*(const char **)(void *)p = cmdline_evil;
			n++;
		} else if (x->type == RF_TUPLE || x->type == RF_OBJ) {
			if ((x->flags & RF_OMIT0) && x->type == RF_OBJ) {
				const struct rf_field *f0 = &x->sub[0];
				char *q = p + f0->off;
				if (f0->type == RF_INT)
					*(int *)(void *)q = 1;
				else if (f0->type == RF_DBL)
					*(double *)(void *)q = 1;
				else if (f0->type == RF_U64)
					*(uint64_t *)(void *)q = 1;
			}
			n += plant(x->sub, p);
		}
	}
	return n;
}

/* Every string field of table t at base came back from the recording
 * with its marker (the hostile bytes went through, not a default);
 * returns how many. */
static int planted_back(const struct rf_field *t, const char *base)
{
	int n = 0;
	for (const struct rf_field *x = t; x->type != RF_END; x++) {
		const char *p = base + x->off;
		if (x->type == RF_STR || x->type == RF_STRP) {
			const char *v = x->type == RF_STR ? p : *(const char *const *)(const void *)p;
			if (!v || !strstr(v, "\x1b]0;P"))
				fail_msg("field %s lost its hostile text in the recording", x->key ? x->key : "(in a tuple)");
			n++;
		} else if (x->type == RF_TUPLE || x->type == RF_OBJ) {
			n += planted_back(x->sub, p);
		}
	}
	return n;
}

/* The sample: one disk, one event of each type, one process that did
 * I/O, the block-layer part with one figure of each kind. */
static int fill(struct sample *s)
{
	memset(s, 0, sizeof *s);
	s->ts = 1.7e9;
	s->mono = 5000;
	s->interval_s = 1;
	s->have_load = 1;
	s->cap = 1;
	s->disks = calloc(1, sizeof *s->disks);
	s->ndisks = 1;
	struct disk_sample *d = &s->disks[0];
	d->have_rates = 1;
	d->probed = 1;
	d->io.wkB_s = 1024;
	d->info.sched.n = 2;
	d->info.sched.active = 0;
	util_strlcpy(d->info.sched.names[0], EVIL, sizeof d->info.sched.names[0]);
	util_strlcpy(d->info.sched.names[1], "none" EVIL, sizeof d->info.sched.names[1]);
	int n = plant(recfmt_disk, (char *)d);
	d->slow.n = PROBE_AHEAD_MAX;
	d->slow.nslowest = PROBE_SLOWEST_MAX;
	for (int i = 0; i < PROBE_AHEAD_MAX; i++)
		d->slow.ahead[i].bytes = 1;
	for (int i = 0; i < PROBE_SLOWEST_MAX; i++)
		d->slow.slowest[i].top.bytes = 1;
	d->cmp.state = 2;
	for (int t = 0; t < EV_NTYPES; t++) {
		struct event *e = &s->events[s->nevents++];
		e->type = (enum event_type)t;
		e->ts = s->ts;
		n += plant(recfmt_event, (char *)e);
	}
	s->have_procs = 1;
	s->procs_cap = s->nprocs = 1;
	s->procs = calloc(1, sizeof *s->procs);
	struct proc_row *r = &s->procs[0];
	n += plant(recfmt_proc, (char *)r);
	r->pid = r->tid = 4242;
	r->io_readable = 1;
	r->read_Bps = r->write_Bps = r->to_disk_Bps = 1e6;
	s->top_writer = 0;
	n += plant(recfmt_pstat, (char *)&s->pstat);
	n += plant(recfmt_tick, (char *)s);
	n += plant(recfmt_blk, (char *)s);
	s->blk.stats = calloc(1, sizeof *s->blk.stats);
	s->blk.reqs = calloc(1, sizeof *s->blk.reqs);
	s->blk.stats_cap = s->blk.nstats = s->blk.reqs_cap = s->blk.nreqs = 1;
	s->blk.stats[0] = (struct blk_stat){.tgid = 4242, .op = BLK_WRITE, .n = 5, .bytes = 4096};
	s->blk.reqs[0] = (struct blk_req){.tgid = 4242, .issued = 1, .age_ns = 7};
	n += plant(recfmt_blk_stat, (char *)&s->blk.stats[0]);
	n += plant(recfmt_blk_req, (char *)&s->blk.reqs[0]);
	s->blk_stage = "block_io_start";
	s->top_disk = 0;
	return n;
}

/* What may not be in an output: controls but the newline, DEL, C1
 * controls (as UTF-8 and as bare bytes), the bidirectional controls
 * planted, and bytes that are not UTF-8 (the line and offset said). */
static void check_clean(const char *what, const char *out, size_t len)
{
	static const char *const banned[] = {"\xc2\x9b", "\xe2\x80\xae", "\xe2\x81\xa6", "\xc2\x80", "\xc2\x9f"};
	for (size_t i = 0; i < len;) {
		const unsigned char *p = (const unsigned char *)out + i;
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
			fail_msg("%s: control byte 0x%02x raw at byte %zu: %.60s", what, *p, i, out + (i > 30 ? i - 30 : 0));
		int n = util_utf8_len(p);
		if (n == 0)
			fail_msg("%s: a byte that is not UTF-8 (0x%02x) at byte %zu", what, *p, i);
		for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++)
			if (!strncmp((const char *)p, banned[k], strlen(banned[k])))
				fail_msg("%s: U+%04x raw at byte %zu", what, util_hidden_char(p, n), i);
		i += (size_t)n;
	}
}

/* The sample round the recording: written, replayed into out. */
static void replayed(const struct sample *in, struct sample *out)
{
	char path[] = "/tmp/iosched-hostile-test.XXXXXX", err[300];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	struct recorder *rec;
	assert_int_equal(record_open(&rec, path, err, sizeof err), 0);
	assert_int_equal(record_write(rec, in, 100), 0);
	record_close(rec);
	struct replay *rp;
	assert_int_equal(replay_open(&rp, path, err, sizeof err), 0);
	memset(out, 0, sizeof *out);
	assert_int_equal(replay_next(rp, out, err, sizeof err), 1);
	replay_close(rp);
	unlink(path);
}

static void check_format(const struct sample *s, enum output_format fmt, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	assert_int_equal(batch_print(m, fmt, 100, s, 1), 0);
	fclose(m);
	assert_true(len > 0);
	check_clean(what, buf, len);
	free(buf);
}

static void check_prom(const struct sample *s)
{
	char dir[] = "/tmp/iosched-hostile-prom.XXXXXX", path[64], err[300];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/x.prom", dir);
	struct prom_state st = {0};
	prom_count(&st, s);
	assert_int_equal(prom_write(path, s, &st, err, sizeof err), 0);
	prom_free(&st);
	static char text[1 << 20];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	unlink(path);
	rmdir(dir);
	assert_non_null(strstr(text, "comm=\"")); /* the process names are in it */
	check_clean("Prometheus", text, len);
}

static void details_escape(const struct sample *s);

static void every_output_escapes(void **state)
{
	(void)state;
	struct sample in, out;
	int planted = fill(&in);
	replayed(&in, &out);
	/* the walk found fields in every table, and each came back hostile */
	int back = planted_back(recfmt_disk, (const char *)&out.disks[0]) + planted_back(recfmt_proc, (const char *)&out.procs[0]) +
		   planted_back(recfmt_pstat, (const char *)&out.pstat) + planted_back(recfmt_tick, (const char *)&out) +
		   planted_back(recfmt_blk, (const char *)&out) + planted_back(recfmt_blk_stat, (const char *)&out.blk.stats[0]) +
		   planted_back(recfmt_blk_req, (const char *)&out.blk.reqs[0]);
	for (size_t i = 0; i < out.nevents; i++)
		back += planted_back(recfmt_event, (const char *)&out.events[i]);
	assert_int_equal(back, planted);
	assert_true(out.nevents == EV_NTYPES && out.nprocs == 1 && out.disks[0].info.sched.n == 2);
	for (int on = 0; on <= 1; on++) {
		out.blk_on = on; /* off: its why is shown; on: the block-layer figures are */
		check_format(&out, OUT_TEXT, on ? "text (block layer on)" : "text (block layer off)");
		check_format(&out, OUT_JSON, on ? "JSON (block layer on)" : "JSON (block layer off)");
		check_format(&out, OUT_CSV, "CSV");
		check_format(&out, OUT_CSV_PROCS, "CSV of processes");
		if (on)
			check_prom(&out);
	}
	details_escape(&out);
	sample_free(&in);
	sample_free(&out);
}

/* The details boxes (Enter) too: a process or disk text with a newline in
 * it ("x\nFAKE LINE 42" as a process's name) must not make a line of its
 * own there, nor carry a control raw. */
static void details_escape(const struct sample *s)
{
	static char buf[16384];
	for (int on = 0; on <= 1; on++) {
		struct sample t = *s;
		struct proc_row row = s->procs[0];
		util_strlcpy(row.comm, "x\nFAKE LINE 42", sizeof row.comm);
		t.procs = &row;
		t.nprocs = 1;
		t.blk_on = on;
		detail_process(&t, row.pid, row.comm, buf, sizeof buf);
		check_clean("the process's details", buf, strlen(buf));
		assert_null(strstr(buf, "\nFAKE"));
		detail_disk(&t, &t.disks[0], buf, sizeof buf);
		check_clean("the disk's details", buf, strlen(buf));
	}
}

/* The cgroups' series keep the tool's buckets apart: a top-level cgroup
 * named "other" or "unknown" (anyone with a delegated tree can make one)
 * gets its absolute path as its label; "other" stays the rest's sum and
 * "unknown" the rows whose cgroup is not known. */
static void prom_buckets_apart(void **state)
{
	(void)state;
	static struct sample s;
	memset(&s, 0, sizeof s);
	struct cgroup_sample cg[4] = {{.path = "other", .read_Bps = 100}, {.path = "unknown", .read_Bps = 30},
				      {.path = "", .read_Bps = 50}, {.path = "a.slice", .read_Bps = 10}};
	s.cgroups = cg;
	s.ncgroups = 4;
	s.cgroups_rest.read_Bps = 7;
	s.interval_s = 1;
	struct prom_state st = {0};
	prom_count_cgroups(&st, &s);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	prom_format_cgroups(m, &st);
	fclose(m);
	prom_free_cgroups(&st);
	assert_non_null(strstr(text, "iosched_cgroup_read_bytes_total{cgroup=\"/other\"} 100\n"));
	assert_non_null(strstr(text, "iosched_cgroup_read_bytes_total{cgroup=\"/unknown\"} 30\n"));
	assert_non_null(strstr(text, "iosched_cgroup_read_bytes_total{cgroup=\"other\"} 7\n"));
	assert_non_null(strstr(text, "iosched_cgroup_read_bytes_total{cgroup=\"unknown\"} 50\n"));
	assert_non_null(strstr(text, "iosched_cgroup_read_bytes_total{cgroup=\"a.slice\"} 10\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_output_escapes),
		cmocka_unit_test(prom_buckets_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
