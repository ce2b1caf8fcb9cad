/* controlstate: the control made and freed, and what a session reads of
 * it between ticks (include/act/control.h), so that nothing outside
 * src/act/control*.c reaches its fields. */
#include "controlparts.h"

#include <errno.h>
#include <stdlib.h>

int control_new(struct control **out, const struct tune_sysfs *sysfs)
{
	struct control *c = malloc(sizeof *c);
	*out = NULL;
	if (!c)
		return -ENOMEM;
	int rc = control_init(c, sysfs);
	if (rc < 0) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void control_free(struct control *c)
{
	free(c);
}

double control_delayacct_since(const struct control *c)
{
	return c->delayacct_since;
}

size_t control_changes(const struct control *c)
{
	return c->undo.n;
}

const char *control_result_since(const struct control *c, double *seen)
{
	if (c->last_mono <= *seen)
		return NULL;
	*seen = c->last_mono;
	return c->last;
}

int control_busy(const struct control *c)
{
	return !worker_idle(c->w);
}

int control_result_after(const struct control *c, double since, const char **text)
{
	*text = c->last;
	if (c->last_mono < since)
		return -1;
	return c->last_ok ? 1 : 0;
}
