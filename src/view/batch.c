/* batch: see include/batch.h */
#include "batch.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "control.h"
#include "json.h"
#include "util.h"

static void write_header(FILE *f, const struct sample *s)
{
	char clock[16];
	time_t t = (time_t)s->ts;
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	fprintf(f, "%s  %s  %s  interval %.2fs", clock, s->host, s->kernel, s->interval_s);
	if (s->psi_err == 0)
		fprintf(f, "  io pressure some %.2f%% full %.2f%% (avg10)", s->psi.some.avg10,
			s->psi.have_full ? s->psi.full.avg10 : 0.0);
	fputc('\n', f);
}

void batch_write_text(FILE *f, const struct sample *s)
{
	size_t ncols;
	const struct column *cols = columns_table(&ncols);
	char cell[160];
	write_header(f, s);
	for (size_t c = 0; c < ncols; c++) {
		columns_header(&cols[c], cell, sizeof cell);
		fprintf(f, "%s%s", c ? " " : "", cell);
	}
	fputc('\n', f);
	for (size_t i = 0; i < s->ndisks; i++) {
		for (size_t c = 0; c < ncols; c++) {
			columns_cell(&cols[c], &s->disks[i], cell, sizeof cell);
			fprintf(f, "%s%s", c ? " " : "", cell);
		}
		fputc('\n', f);
	}
	for (size_t i = 0; i < s->nevents; i++) {
		const struct event *e = &s->events[i];
		if (!e->ok)
			fprintf(f, "event: %s %s: %s\n", e->disk, e->type, e->error);
		else
			fprintf(f, "event: %s %s %s -> %s in %.1f ms\n", e->disk, e->key[0] ? e->key : e->type, e->from, e->to,
				e->ms);
	}
	fputc('\n', f);
}

int batch_run(const struct options *o, struct sampler *smp, struct control *ctl, volatile sig_atomic_t *stop)
{
	struct sample s = {0};
	int rc = sampler_prime(smp);
	double next = util_mono_now();
	for (long i = 0; rc == 0 && (o->iterations == 0 || i < o->iterations);) {
		/* Absolute deadlines: the interval does not drift by the time
		 * spent sampling and printing. */
		next += o->delay_s;
		double now = util_mono_now();
		if (next < now - o->delay_s)
			next = now; /* fell far behind (stopped, suspended): do not burst */
		while (!*stop && util_sleep_until(next) == -EINTR)
			;
		if (*stop)
			break;
		control_poll(ctl);
		rc = sampler_collect(smp, &s);
		if (rc < 0)
			break;
		if (o->format == OUT_JSON)
			json_write_sample(stdout, &s);
		else
			batch_write_text(stdout, &s);
		fflush(stdout);
		i++;
	}
	sample_free(&s);
	return rc;
}
