/* samplefigs: the figures derived from a whole sample: what reaches the
 * disks, what processes dirty, the top writer and the top disk
 * (sampleparts.h). */
#include "model/sample.h"

#include <string.h>

#include "sampleparts.h"

static const struct disk_sample *disk_named(const struct sample *s, const char *name)
{
	for (size_t i = 0; i < s->ndisks; i++)
		if (strcmp(s->disks[i].info.name, name) == 0)
			return &s->disks[i];
	return NULL;
}

/* Whether d passes its writes to a disk shown below it, which counts them
 * again: a loop device whose backing file is on a shown disk (one over a
 * file on tmpfs or FUSE, or on a disk not shown, is the bottom), a dm or
 * md device. */
static int stacked(const struct sample *out, const struct disk_sample *d)
{
	if (d->info.kind == DISK_LOOP)
		return d->info.below[0] && disk_named(out, d->info.below);
	return d->info.kind == DISK_DM || d->info.kind == DISK_MD;
}

/* Whether the writes of d count in "to disks": physical writes, so not a
 * disk stacked on others, unless only stacked ones are shown (a dm device
 * named alone): then theirs. */
static int counts_to_disks(const struct sample *out, const struct disk_sample *d)
{
	if (!d->have_rates)
		return 0;
	if (!stacked(out, d))
		return 1;
	for (size_t i = 0; i < out->ndisks; i++)
		if (!stacked(out, &out->disks[i]))
			return 0;
	return 1;
}

double samplefigs_to_disks_MBps(const struct sample *out)
{
	double sum = 0;
	for (size_t i = 0; i < out->ndisks; i++)
		if (counts_to_disks(out, &out->disks[i]))
			sum += out->disks[i].io.wkB_s / 1024.0;
	return sum;
}

/* The disk counted in "to disks" written most, or -1 when none was. */
int samplefigs_top_disk(const struct sample *out)
{
	int best = -1;
	for (size_t i = 0; i < out->ndisks; i++) {
		const struct disk_sample *d = &out->disks[i];
		if (counts_to_disks(out, d) && d->io.wkB_s > 0 && (best < 0 || d->io.wkB_s > out->disks[best].io.wkB_s))
			best = (int)i;
	}
	return best;
}

void sample_settle_waiting(struct sample *out)
{
	for (size_t i = 0; i < out->ndisks; i++) {
		struct disk_sample *d = &out->disks[i];
		d->nwaiting = out->blk_on ? blklat_waiting(&out->blk, d->info.name, d->in_flight, d->waiting,
							  DISK_WAITING_MAX) : 0;
	}
}

/* What processes dirty per second: their write_bytes (a process that
 * ended counts in the interval it ended in only). Not the kernel threads
 * that write for others: a loop device's worker writing the backing file
 * would count its user's bytes a second time. */
double samplefigs_dirtying_MBps(const struct sample *out)
{
	double sum = 0;
	for (size_t i = 0; i < out->nprocs; i++) {
		const struct proc_row *r = &out->procs[i];
		if (r->io_readable && (r->kind == PROC_NORMAL || r->kind == PROC_SELF) && !(r->exited && r->ended_ago))
			sum += r->write_Bps;
	}
	return sum / (1024.0 * 1024.0);
}

int samplefigs_top_writer(const struct sample *out)
{
	int best = -1;
	for (size_t i = 0; i < out->nprocs; i++) {
		const struct proc_row *r = &out->procs[i];
		if (r->kind == PROC_NORMAL && r->write_Bps > 0 && !(r->exited && r->ended_ago) &&
		    (best < 0 || r->write_Bps > out->procs[best].write_Bps))
			best = (int)i;
	}
	return best;
}

const struct proc_row *sample_top_writer(const struct sample *s)
{
	return s->have_procs && s->procs && s->top_writer >= 0 && (size_t)s->top_writer < s->nprocs
		       ? &s->procs[s->top_writer] : NULL;
}

double sample_to_disks_part_Bps(const struct sample *s, const struct proc_row *r)
{
	double whole = s->write_MBps * 1048576.0, part = r->to_disk_Bps > 0 ? r->to_disk_Bps : 0;
	return part < whole ? part : whole;
}

/* The reading's process entry of a stat's process, to write to (the
 * reading is this sample's own). */
static struct blk_proc *proc_of(struct sample *out, const struct blk_stat *st)
{
	return (struct blk_proc *)blklat_find_proc(&out->blk, st->tgid, st->start);
}

void sample_settle_to_disk(struct sample *out)
{
	int any = 0;
	for (size_t i = 0; i < out->ndisks && !any; i++)
		any = counts_to_disks(out, &out->disks[i]);
	if (!any)
		return; /* no disk has rates yet: each byte at the top, as read */
	for (struct blk_proc *b = out->blk.procs; b < out->blk.procs + out->blk.nprocs; b++)
		b->to_disk_bytes = 0; /* the reading's entries, not the rows */
	for (size_t i = 0; i < out->blk.nstats; i++) {
		const struct blk_stat *st = &out->blk.stats[i];
		const struct disk_sample *d = st->op == BLK_WRITE ? disk_named(out, st->disk) : NULL;
		struct blk_proc *b = d && counts_to_disks(out, d) ? proc_of(out, st) : NULL;
		if (b)
			b->to_disk_bytes += st->bytes; /* the stacked ones too: this is the bottom */
	}
}

const struct proc_row *sample_top_to_disk(const struct sample *s)
{
	const struct proc_row *top = NULL;
	double best = 0;
	for (size_t i = 0; s->have_procs && i < s->nprocs; i++) {
		const struct proc_row *r = &s->procs[i];
		if (!(r->to_disk_Bps > 0) || r->tid != r->pid || (r->exited && r->ended_ago))
			continue;
		double part = sample_to_disks_part_Bps(s, r);
		if (part > best) {
			best = part;
			top = r;
		}
	}
	return top;
}

const struct disk_sample *sample_top_disk(const struct sample *s)
{
	return s->disks && s->top_disk >= 0 && (size_t)s->top_disk < s->ndisks ? &s->disks[s->top_disk] : NULL;
}
