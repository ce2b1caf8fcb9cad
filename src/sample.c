/* sample: see include/sample.h */
#include "sample.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libproc2/misc.h>
#include <libudev.h>

#include "util.h"

int sampler_init(struct sampler *s, const char *const *only, size_t nonly)
{
	memset(s, 0, sizeof *s);
	s->prev_mono = -1;
	s->only = only;
	s->nonly = nonly;
	s->udev = udev_new();
	return s->udev ? 0 : -ENOMEM;
}

int sampler_prime(struct sampler *s)
{
	int rc = diskstats_read("/proc/diskstats", &s->prev);
	if (rc == 0)
		s->prev_mono = util_mono_now();
	return rc;
}

static int wanted(const struct sampler *s, const char *name)
{
	if (!s->only)
		return 1;
	for (size_t i = 0; i < s->nonly; i++)
		if (strcmp(s->only[i], name) == 0)
			return 1;
	return 0;
}

static void fill_header(struct sample *out)
{
	struct utsname u;
	if (gethostname(out->host, sizeof out->host) != 0)
		util_strlcpy(out->host, "?", sizeof out->host);
	out->host[sizeof out->host - 1] = '\0';
	if (uname(&u) == 0)
		util_strlcpy(out->kernel, u.release, sizeof out->kernel);
	out->psi_err = psi_read("/proc/pressure/io", &out->psi);
	out->have_load = procps_loadavg(&out->load[0], &out->load[1], &out->load[2]) == 0;
}

static int reserve(struct sample *out, size_t n)
{
	if (n <= out->cap)
		return 0;
	struct disk_sample *d = realloc(out->disks, n * sizeof *d);
	if (!d)
		return -ENOMEM;
	out->disks = d;
	out->cap = n;
	return 0;
}

int sampler_collect(struct sampler *s, struct sample *out)
{
	struct diskstats_table cur = {0};
	int rc = diskstats_read("/proc/diskstats", &cur);
	if (rc < 0)
		return rc;
	double now = util_mono_now();
	out->ts = util_real_now();
	out->interval_s = s->prev_mono >= 0 ? now - s->prev_mono : 0;
	fill_header(out);

	struct disk_info *disks;
	size_t n;
	rc = disk_scan(s->udev, &disks, &n);
	if (rc < 0) {
		diskstats_free(&cur);
		return rc;
	}
	out->ndisks = 0;
	if (reserve(out, n) < 0) {
		free(disks);
		diskstats_free(&cur);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!wanted(s, disks[i].name))
			continue;
		const struct diskstats_row *c = diskstats_find(&cur, disks[i].name);
		if (!c)
			continue; /* listed by udev, gone from diskstats: vanished meanwhile */
		struct disk_sample *d = &out->disks[out->ndisks++];
		memset(d, 0, sizeof *d);
		d->info = disks[i];
		d->in_flight = c->f[DS_IN_FLIGHT];
		const struct diskstats_row *p = diskstats_find(&s->prev, disks[i].name);
		/* Same name but another device number: a new device, no rates yet. */
		if (p && p->major == c->major && p->minor == c->minor && out->interval_s > 0)
			d->have_rates = iostat_compute(p, c, out->interval_s, &d->io) == 0;
	}
	free(disks);
	diskstats_free(&s->prev);
	s->prev = cur;
	s->prev_mono = now;
	return 0;
}

int sampler_list_disks(struct sampler *s, struct disk_info **out, size_t *n)
{
	return disk_scan(s->udev, out, n);
}

void sampler_free(struct sampler *s)
{
	diskstats_free(&s->prev);
	if (s->udev)
		udev_unref(s->udev);
	memset(s, 0, sizeof *s);
}

void sample_free(struct sample *smp)
{
	free(smp->disks);
	memset(smp, 0, sizeof *smp);
}
