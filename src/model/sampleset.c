/* sampleset: what a session asks of the sampler between ticks (which
 * disks and rows it shows, where a replay stands, the udev handle a udev
 * rule is named with), through functions, so that no file outside the
 * model writes the sampler's fields. */
#include "model/sample.h"

#include <errno.h>
#include <string.h>

#include "sampleparts.h"

void sampler_set_delayacct_since(struct sampler *s, double since)
{
	s->cfg.delayacct_since = since;
}

int sampler_toggle_hidden(struct sampler *s)
{
	s->show_hidden = !s->show_hidden;
	return s->show_hidden;
}

int sampler_showing_hidden(const struct sampler *s)
{
	return s->show_hidden;
}

int sampler_toggle_threads(struct sampler *s)
{
	s->cfg.threads = !s->cfg.threads;
	return s->cfg.threads;
}

int sampler_replaying(const struct sampler *s)
{
	return s->replay != NULL;
}

const char *sampler_replay_msg(const struct sampler *s)
{
	return s->replay_msg;
}

struct udev *sampler_udev(const struct sampler *s)
{
	return s->udev;
}

const char *sampler_probe_file_disk(const struct sampler *s)
{
	return s->cfg.probe_file_disk;
}

int sampler_probe_disk(struct sampler *s, const char *disk, char *err, size_t len)
{
	for (size_t i = 0; i < s->ndisks; i++)
		if (strcmp(s->disks[i].name, disk) == 0)
			return sampler_probe_add(s, &s->disks[i], err, len);
	return -ENOENT;
}
