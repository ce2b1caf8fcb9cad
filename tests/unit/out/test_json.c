/* Unit tests: the batch JSON line (out/json.c), from a synthetic sample:
 * it parses, carries its version, the disks and the busiest processes in
 * order (a process that ended in an earlier interval is not counted
 * again), each process's TO-DISK with the disks its writes were on, and
 * the header's top writer's part never above "to disks"; json_busiest
 * ranks by bytes, then system calls, ties in row order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/json.h"
#include "out/outputs.h"
#include "base/jsonv.h"

/* Four rows: an idle one, a writer of 5 MB/s whose requests are on a
 * loop device and the disk under it, a reader of 1 MB/s with calls, and
 * a writer that ended two intervals ago (not this line's). */
static void fill(struct sample *s, struct proc_row *rows, struct disk_sample *d, struct blk_stat *st)
{
	memset(s, 0, sizeof *s);
	s->interval_s = 1;
	s->ts = 1000;
	strcpy(s->host, "h");
	strcpy(s->kernel, "k");
	s->psi_err = -1;
	strcpy(d[0].info.name, "vda");
	strcpy(d[1].info.name, "loop0");
	d[0].have_rates = d[1].have_rates = 1;
	s->disks = d;
	s->ndisks = 2;
	s->write_MBps = 3.0; /* the whole is less than the writer's part: capped */
	const char *names[] = {"idle", "writer", "reader", "gone"};
	for (int i = 0; i < 4; i++) {
		rows[i] = (struct proc_row){.pid = 100 + i, .tid = 100 + i, .io_readable = 1, .to_disk_Bps = 0};
		strcpy(rows[i].comm, names[i]);
		rows[i].user = "root";
	}
	rows[1].write_Bps = 5e6;
	rows[1].to_disk_Bps = 5e6;
	rows[2].read_Bps = 1e6;
	rows[2].read_calls = 100;
	rows[3].write_Bps = 9e6;
	rows[3].exited = 1;
	rows[3].ended_ago = 2;
	s->procs = rows;
	s->nprocs = 4;
	s->have_procs = 1;
	s->top_writer = 1;
	st[0] = (struct blk_stat){.tgid = 101, .op = BLK_WRITE, .bytes = 5000000};
	strcpy(st[0].disk, "loop0");
	st[1] = (struct blk_stat){.tgid = 101, .op = BLK_WRITE, .bytes = 5000000, .stacked_bytes = 5000000};
	strcpy(st[1].disk, "vda");
	s->blk.stats = st;
	s->blk.nstats = 2;
}

/* The sample and what it points at, kept together. */
struct scene {
	struct sample s;
	struct proc_row rows[4];
	struct disk_sample d[2];
	struct blk_stat st[2];
};

static struct sample *scene_fill(struct scene *sc)
{
	fill(&sc->s, sc->rows, sc->d, sc->st);
	return &sc->s;
}

static char *line_of(const struct sample *s, size_t max)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	json_write_sample(m, s, max);
	fclose(m);
	return text;
}

static void test_busiest(void **state)
{
	(void)state;
	static struct scene sc;
	struct sample *s = scene_fill(&sc);
	size_t idx[4];
	assert_int_equal(json_busiest(s, 4, idx), 3); /* the ended one is not this line's */
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 0);
	assert_int_equal(json_busiest(s, 1, idx), 1);
	assert_int_equal(idx[0], 1);
}

static void test_line(void **state)
{
	(void)state;
	static struct scene sc;
	struct sample *s = scene_fill(&sc);
	char *text = line_of(s, 2);
	assert_true(strchr(text, '\n') == text + strlen(text) - 1); /* one line, ended */
	struct jsonv v;
	char err[128];
	assert_int_equal(jsonv_parse(text, strlen(text), &v, err, sizeof err), 0);
	assert_int_equal(jsonv_int(&v, "version", 0), OUTPUTS_JSON_VERSION);
	const struct jsonv *disks = jsonv_arr(&v, "disks");
	assert_non_null(disks);
	assert_int_equal(disks->n, 2);
	char name[16];
	jsonv_str(&disks->kids[1], "name", name, sizeof name);
	assert_string_equal(name, "loop0");
	const struct jsonv *procs = jsonv_arr(&v, "procs");
	assert_non_null(procs);
	assert_int_equal(procs->n, 2);
	jsonv_str(&procs->kids[0], "comm", name, sizeof name);
	assert_string_equal(name, "writer");
	assert_true(jsonv_num(&procs->kids[0], "to_disk_Bps", -1) == 5e6);
	const struct jsonv *by = jsonv_get(&procs->kids[0], "to_disk_by_disk");
	assert_non_null(by);
	assert_true(jsonv_num(by, "loop0", 0) == 5e6 && jsonv_num(by, "vda", 0) == 5e6);
	const struct jsonv *same = jsonv_get(&procs->kids[0], "to_disk_stacked_by_disk");
	assert_non_null(same);
	assert_true(jsonv_num(same, "vda", 0) == 5e6);
	assert_null(jsonv_get(&procs->kids[1], "to_disk_by_disk")); /* the reader wrote nothing */
	const struct jsonv *w = jsonv_get(&v, "writers");
	assert_non_null(w);
	const struct jsonv *top = jsonv_get(w, "to_disks_top_process");
	assert_non_null(top);
	assert_true(jsonv_num(top, "part_Bps", -1) <= jsonv_num(w, "to_disks_MBps", 0) * 1048576 + 1);
	jsonv_free(&v);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busiest),
		cmocka_unit_test(test_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
