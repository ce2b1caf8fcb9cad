/* procname: what names a row: its owner (a uid's name, looked up once)
 * and its command line (read the first time its task is named). */
#include "procparts.h"

#include <pwd.h>
#include <string.h>

const char *procs_row_user(const struct proc_row *r)
{
	return r->user ? r->user : "?";
}

const char *procs_row_cmdline(const struct proc_row *r)
{
	return r->cmdline ? r->cmdline : r->comm;
}

/* The name of uid, as /etc/passwd (or NSS) has it, else the number;
 * looked up once per uid, and kept in p's texts for p's lifetime: rows
 * point at it. */
const char *procname_user(struct procs *p, unsigned uid)
{
	for (size_t i = 0; i < p->nusers; i++)
		if (p->users[i].uid == uid)
			return p->users[i].name;
	char name[PROCS_USER_MAX], buf[1024];
	struct passwd pw, *found = NULL;
	if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
		util_strlcpy(name, found->pw_name, sizeof name);
	else
		util_fmt(name, sizeof name, "%u", uid);
	const char *kept = util_texts_keep(&p->user_texts, name, strlen(name));
	if (!kept || util_grow((void **)&p->users, &p->users_cap, p->nusers + 1, sizeof *p->users) < 0)
		return "?";
	p->users[p->nusers++] = (struct user_name){.uid = uid, .name = kept};
	return kept;
}

/* Row r's command line from its task's entry e, read the first time
 * it answers (a read given up on, as a refresh's time for slow reads ran
 * out, is tried again at the next). */
void procname_from(struct procs *p, struct proc_seen *e, struct proc_row *r)
{
	if (!e->cmdline_read)
		e->cmdline_read = procfiles_read_cmdline(p, r->pid, &e->cmdline) == 0;
	r->cmdline = e->cmdline;
}

void procs_name(struct procs *p, struct proc_row *r)
{
	if (r->cmdline || r->exited)
		return;
	struct proc_seen *e = procseen_lookup(p->prev, p->nprev, r->tid);
	if (e && e->start == r->start)
		procname_from(p, e, r);
}
