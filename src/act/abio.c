/* abio: see src/act/abio.h */
#include "abio.h"

#include <limits.h>
#include <string.h>

#include "act/load.h"
#include "base/util.h"
#include "probe/probefile.h"
#include "read/iostat.h"

/* The rows of the disk and of the one below (when there is one) from one
 * reading of /proc/diskstats; whether each was found. */
static void both_rows(const struct abio *io, struct diskstats_row *d, int *have_d, struct diskstats_row *b,
		      int *have_b)
{
	struct diskstats_table t = {0};
	int rc = diskstats_read("/proc/diskstats", &t);
	const struct diskstats_row *rd = rc == 0 ? diskstats_find(&t, io->disk) : NULL;
	const struct diskstats_row *rb = rc == 0 && io->below[0] ? diskstats_find(&t, io->below) : NULL;
	if (rd)
		*d = *rd;
	if (rb)
		*b = *rb;
	*have_d = rd != NULL;
	*have_b = rb != NULL;
	diskstats_free(&t);
}

void abio_init(struct abio *io, const char *disk)
{
	memset(io, 0, sizeof *io);
	util_strlcpy(io->disk, disk, sizeof io->disk);
	char path[PATH_MAX], file[PATH_MAX];
	if (util_pathf(path, sizeof path, "/sys/block/%s/loop/backing_file", disk) < 0 ||
	    util_read_text(path, file, sizeof file) < 0)
		return;
	util_trim(file);
	if (probefile_disk_of_path(file, io->below, sizeof io->below) < 0 || !strcmp(io->below, disk))
		io->below[0] = '\0';
}

void abio_begin(struct abio *io, struct load *load, double now)
{
	both_rows(io, &io->d0, &io->have_d0, &io->b0, &io->have_b0);
	io->load_b0 = load ? load_bytes(load) : 0;
	io->t0 = now;
}

/* Read and write MB/s between rows r0 and r1; 0 with the rates, or -1. */
static int rates(const struct diskstats_row *r0, const struct diskstats_row *r1, double secs, double *rd, double *wr)
{
	struct iostat_rates x;
	if (iostat_compute(r0, r1, secs, &x) < 0)
		return -1;
	*rd = x.rkB_s / 1024.0;
	*wr = x.wkB_s / 1024.0;
	return 0;
}

void abio_end(struct abio *io, struct load *load, const struct ab_config *cfg, double now, struct ab_phase *p)
{
	double secs = now - io->t0;
	p->own_read_MBps = p->own_write_MBps = p->below_read_MBps = p->below_write_MBps = -1;
	if (!(secs > 0))
		return;
	struct diskstats_row d1, b1;
	int have_d1, have_b1;
	both_rows(io, &d1, &have_d1, &b1, &have_b1);
	if (io->have_d0 && have_d1)
		rates(&io->d0, &d1, secs, &p->read_MBps, &p->write_MBps);
	if (io->have_b0 && have_b1 && rates(&io->b0, &b1, secs, &p->below_read_MBps, &p->below_write_MBps) < 0)
		p->below_read_MBps = p->below_write_MBps = -1;
	/* the tool's own: every read of its readers (a fresh job counted
	 * whole) and what its load wrote; a live run has no load but the
	 * user's */
	double reads = (double)p->h.n + (double)p->paced.n + (double)p->nfresh * cfg->fresh_reads;
	p->own_read_MBps = reads * cfg->probe_size / secs / 1048576.0;
	uint64_t b = load ? load_bytes(load) : 0;
	p->own_write_MBps = b >= io->load_b0 ? (double)(b - io->load_b0) / secs / 1048576.0 : -1;
}
