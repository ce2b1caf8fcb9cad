/* proclabel: what a row is called: its kind (writeback and journal
 * threads, loop workers), the words the JSON and recordings use for kinds
 * and waits, and whether a row says more than that its task exists. */
#include "procparts.h"

#include <string.h>

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

const char *procs_kind_name(enum proc_kind k)
{
	return k == PROC_WRITEBACK ? "writeback" : k == PROC_LOOP ? "loop" : k == PROC_SELF ? "self" :
	       k == PROC_JOURNAL ? "journal" : "process";
}

const char *procs_wait_name(enum proc_wait w)
{
	return w == WAIT_OK ? "ok" : w == WAIT_NA ? "n/a" : w == WAIT_NONE ? "none" : w == WAIT_BEFORE ? "before_delayacct" : "off";
}

const char *procs_cgsrc_name(enum proc_cgsrc c)
{
	return c == CGSRC_LIVE ? "live" : c == CGSRC_LAST ? "last_known" : c == CGSRC_PARENT ? "parent" :
	       c == CGSRC_DIRTIER ? "dirtier" : c == CGSRC_ISSUER ? "issuer" : "unknown";
}

enum proc_kind procs_classify(const char *comm, int ppid, int pid)
{
	if (ppid != 2 && pid != 2)
		return PROC_NORMAL; /* only kernel threads write on others' behalf */
	if (has_prefix(comm, "jbd2/") || has_prefix(comm, "xfsaild/"))
		return PROC_JOURNAL; /* the journal's commits, the log's metadata */
	if (has_prefix(comm, "btrfs-") || has_prefix(comm, "flush-") ||
	    /* "kworker/u8:3-flush-254:0" runs a disk's writeback; not
	     * "kworker/R-slub_flushwq", which only names its queue. */
	    (has_prefix(comm, "kworker/") && (strstr(comm, "-flush-") || strstr(comm, "-writeback"))))
		return PROC_WRITEBACK;
	if (has_prefix(comm, "loop") || (has_prefix(comm, "kworker/") && strstr(comm, "loop")))
		return PROC_LOOP;
	return PROC_NORMAL;
}

int procs_row_notable(const struct proc_row *r)
{
	return r->moved || r->kind == PROC_SELF || r->blk_n[0] || r->blk_n[1] ||
	       (r->wait == WAIT_OK && r->io_wait_pct > 0);
}
