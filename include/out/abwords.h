/* abwords: the A/B verdict in words. Every report of the A/B (text,
 * Markdown, CSV, JSON, the full screen's log) prints its verdicts,
 * intervals and closing sentences from here, over the data of
 * model/abstats.h, so no two of them can disagree. One estimate per
 * sentence: a verdict's two figures are the geometric means its ratio
 * was made of; a stall share under the floor it counts as is "under 1 %";
 * the rounds a comparison left out are named, with why. */
#ifndef IOSCHED_ABWORDS_H
#define IOSCHED_ABWORDS_H

#include <stddef.h>

#include "model/abdata.h"
#include "model/abstats.h"

#define ABW_VERDICT_LEN 640         /* room for a figure's verdict */
#define ABW_READER_LEN 400          /* room for a reader's */

struct abw_fig {
	const char *name;           /* "reads/s" */
	const char *better, *worse; /* "more reads/s", "fewer reads/s" */
};

/* A figure's words, indexed by enum abv_fig. */
const struct abw_fig *abwords_fig(enum abv_fig f);

/* A variant's name in the report: its text, with "#N" when two variants
 * are the same setting (an A/A). */
void abwords_label(const struct ab_config *cfg, size_t v, char *buf, size_t len);

/* A ratio as text: "1.07x", "20x". */
void abwords_ratio_text(double x, char *buf, size_t len);

/* Figure f's verdict: who is best and by how much, with its interval and
 * rounds; or why it is not decided and what would decide it. */
void abwords_verdict(const struct abv_report *r, const struct ab_config *cfg, enum abv_fig f, char *buf,
		     size_t len);

/* A reader's verdict: "fresh: bfq better (...)", a trade-off, or not
 * decided, with each of its figures. */
void abwords_reader(const struct abv_report *r, const struct ab_config *cfg, enum abv_reader rd, char *buf,
		    size_t len);

/* The closing sentence: variant v against the first, reader by reader,
 * from the same tests as the verdicts. */
void abwords_change(const struct abv_report *r, const struct ab_config *cfg, size_t v, double write_change,
		    char *buf, size_t len);

/* The A/A's noise, one line per figure: how far the same setting moved and
 * the smallest difference these rounds could decide. */
void abwords_noise(const struct abv_report *r, enum abv_fig f, char *buf, size_t len);

#endif
