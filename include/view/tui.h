/* tui: the full-screen ncursesw view. It owns curses; it reads samples and
 * dispatches keys from the key table. */
#ifndef IOSCHED_TUI_H
#define IOSCHED_TUI_H

#include <signal.h>

#include "config/options.h"
#include "model/sample.h"

/* Run the screen until q, the iteration count, or *stop (set by a signal).
 * The terminal is restored before it returns. Returns 0, -ENOTTY when
 * stdin or stdout is not a terminal, -EMEDIUMTYPE when the terminal type
 * (TERM) is unknown, -ENOTSUP when it cannot place the cursor (dumb), or
 * another negative errno. */
struct session;
int tui_run(const struct options *o, struct session *sess, volatile sig_atomic_t *stop);

#endif
