/* abreport: the A/B runner's report — one row per variant (its phases
 * pooled), one per phase, the spread between rounds of each variant (is the
 * difference bigger than the noise?), and what was measured how: disk,
 * kernel, probe pace, load, tunables. As text, Markdown, CSV or JSON. */
#ifndef IOSCHED_ABREPORT_H
#define IOSCHED_ABREPORT_H

#include <stdio.h>

#include "model/abdata.h"
#include "config/options.h"

/* fmt: --format's choice (options.h). */
void abreport_write(FILE *f, const struct ab_config *cfg, const struct ab_result *res, enum ab_format fmt);

#endif
