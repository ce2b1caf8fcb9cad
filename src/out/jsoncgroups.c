/* jsoncgroups: the JSON line's "cgroups" (json.h): each cgroup of the
 * sample's list, the busiest first, with where each figure came from;
 * and what the rest did and what this machine lacks. A figure that is
 * not known is null, never 0. */
#include "json.h"

#include <string.h>

static void write_weight(FILE *f, const char *key, int w)
{
	fprintf(f, ",\"%s\":", key);
	if (w > 0)
		fprintf(f, "%d", w);
	else
		fputs("null", f);
}

/* io.max, io.latency: their limits ("" none), null where absent. */
static void write_limits(FILE *f, const char *key, const char *text, int have)
{
	if (have) {
		jsonv_write_key_string(f, key, text);
	} else {
		fprintf(f, ",\"%s\":null", key);
	}
}

static void write_cgroup(FILE *f, const struct cgroup_sample *c)
{
	fputs("{\"path\":", f);
	jsonv_write_string(f, c->path);
	jsonv_write_key_string(f, "unit", c->unit);
	jsonv_write_key_string(f, "parent", c->parent);
	fprintf(f, ",\"procs\":%d", c->procs);
	jsonv_write_key_number(f, "read_Bps", c->read_Bps, 0);
	jsonv_write_key_number(f, "write_Bps", c->write_Bps, 0);
	jsonv_write_num_or_null(f, "to_disk_Bps", c->to_disk_Bps, c->to_disk_Bps >= 0);
	jsonv_write_num_or_null(f, "io_some_pct", c->some_pct, c->have_psi && c->some_pct >= 0);
	jsonv_write_num_or_null(f, "io_full_pct", c->full_pct, c->have_psi && c->full_pct >= 0);
	jsonv_write_num_or_null(f, "io_some_avg10", c->some_avg10, c->have_psi);
	jsonv_write_num_or_null(f, "io_full_avg10", c->full_avg10, c->have_psi);
	jsonv_write_num_or_null(f, "stat_read_Bps", c->stat_read_Bps, c->have_stat && c->stat_read_Bps >= 0);
	jsonv_write_num_or_null(f, "stat_write_Bps", c->stat_write_Bps, c->have_stat && c->stat_write_Bps >= 0);
	write_weight(f, "bfq_weight", c->bfq_weight);
	write_weight(f, "io_weight", c->io_weight);
	write_limits(f, "io_max", c->io_max, c->have_io_max);
	write_limits(f, "io_latency", c->io_latency, c->have_io_latency);
	jsonv_write_num_or_null(f, "io_wait_pct", c->io_wait_pct, c->io_wait_pct >= 0);
	jsonv_write_num_or_null(f, "throttled_pct", c->throttled_pct, c->throttled_pct >= 0);
	jsonv_write_key_string(f, "source", c->source);
	fputc('}', f);
}

void json_write_cgroups(FILE *f, const struct sample *s)
{
	fputs(",\"cgroups\":[", f);
	for (size_t i = 0; i < s->ncgroups; i++) {
		if (i)
			fputc(',', f);
		write_cgroup(f, &s->cgroups[i]);
	}
	fputc(']', f);
	const struct cgroup_rest *r = &s->cgroups_rest;
	fprintf(f, ",\"cgroups_rest\":{\"n\":%d", r->n);
	jsonv_write_key_number(f, "read_Bps", r->read_Bps, 0);
	jsonv_write_key_number(f, "write_Bps", r->write_Bps, 0);
	jsonv_write_key_number(f, "to_disk_Bps", r->to_disk_Bps, 0);
	fputc('}', f);
	jsonv_write_key_string(f, "cgroups_why", s->cgroups_why);
}
