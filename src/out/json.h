/* json: the batch JSON view — one object per line per interval. Field
 * names are fixed once published (later versions add, never rename). */
#ifndef IOSCHED_JSON_H
#define IOSCHED_JSON_H

#include <stdio.h>

#include "base/jsonv.h"
#include "model/sample.h"

/* Write one sample as a single line, with its max_procs busiest processes. */
/* Indexes of the max busiest processes of s (read + write bytes, then
 * syscalls, then waits; ties in row order) into idx; returns how many. */
size_t json_busiest(const struct sample *s, size_t max, size_t *idx);

void json_write_sample(FILE *f, const struct sample *s, size_t max_procs);

/* jsoncgroups.c: ,"cgroups":[...],"cgroups_rest":{...},"cgroups_why":"" */
void json_write_cgroups(FILE *f, const struct sample *s);

#endif
