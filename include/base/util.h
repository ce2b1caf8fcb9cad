/* util: small helpers shared by every module — reading sysfs/proc files,
 * clocks, string trimming, a store of texts (util_texts). Nothing else here keeps state. */
#ifndef IOSCHED_UTIL_H
#define IOSCHED_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdint.h>

/* Read a whole (small) text file into buf, NUL-terminated. A regular file
 * only (opened without blocking: a FIFO gives -EINVAL, never a hang).
 * Returns the number of bytes read, or a negative errno. */
long util_read_text(const char *path, char *buf, size_t len);

/* The same from an open descriptor, to its end or len - 1 bytes. */
long util_read_fd(int fd, char *buf, size_t len);

/* Read a small /proc file (under one page) with a single read(2): the
 * kernel hands such a file over whole, and the refresh path reads
 * thousands of them. Returns bytes read or a negative errno. */
long util_read_small(const char *path, char *buf, size_t len);

/* Read a file holding one unsigned decimal number (sysfs style).
 * Returns 0 or a negative errno (-EINVAL when the text is not a number). */
int util_read_u64(const char *path, uint64_t *out);

/* Parse a whole string as an unsigned decimal number, allowing surrounding
 * white space. Returns 0 or -EINVAL / -ERANGE. */
int util_parse_u64(const char *s, uint64_t *out);

/* Parse a byte count: digits with an optional K, M, G or T suffix (powers
 * of 1024, case-insensitive, optional trailing "iB"/"B"). Returns 0 or -EINVAL / -ERANGE. */
int util_parse_size(const char *s, uint64_t *out);

/* Format a latency for a narrow column: "8.4us", "812us", "3.81ms",
 * "41.2ms", "1.25s". */
void util_format_latency(uint64_t ns, char *buf, size_t len);

/* The length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes
 * there are not one (a stray or overlong byte, a surrogate, a sequence cut
 * short). */
int util_utf8_len(const unsigned char *s);

/* src made safe for a terminal or a text file: printable UTF-8 kept;
 * control characters shown as ^X (^? for DEL), C1 controls and bytes that
 * are not UTF-8 as \xNN. A process name, a disk model, a host name or a
 * recording's string can hold anything: an ESC sequence printed raw would
 * drive the user's terminal. dst is always terminated (cut at len). */
void util_safe_text(char *dst, size_t len, const char *src);

/* Write the len bytes of text (a whole output: the batch text, CSV, the
 * Prometheus file) to f with every line passed through util_safe_text,
 * its newline kept. The text outputs' last step: a string a writer forgot
 * to escape still never reaches a terminal or a file raw (escaping is
 * idempotent: what a cell escaped already stays as it is). text[len]
 * must be a NUL (open_memstream's buffer has one); its newlines are
 * overwritten. Returns 0, -ENOMEM, or -errno of the first write that
 * failed (one of stdio's own flushes midway: its reason, which a later
 * fflush no longer knows). */
int util_safe_write(FILE *f, char *text, size_t len);

/* Make a figure with a unit fit in width w in place, never losing its unit:
 * ">930.6ms" in 7 becomes ">931ms"; what cannot fit even so becomes w '#'
 * (as a spreadsheet does), never a cut number. Text that is not a figure
 * ("mq-deadline") is cut at w. */
void util_fit_figure(char *s, int w);

/* Cut text s to at most room bytes for display, the last one a mark that
 * it was cut ("…" in a UTF-8 locale, utf8 set; else "~"), never inside a
 * UTF-8 sequence. s needs room for the mark (3 bytes). Returns whether it
 * was cut. */
int util_cut_mark(char *s, int room, int utf8);

/* Seconds on CLOCK_MONOTONIC (intervals) and CLOCK_REALTIME (timestamps),
 * and since boot as /proc/uptime and tasks' start times count
 * (CLOCK_BOOTTIME: suspended time included). */
double util_mono_now(void);
double util_real_now(void);
double util_boot_now(void);

/* The three load averages of /proc/loadavg. Returns 0, or -1. */
int util_loadavg(double load[3]);

/* Whether this process may load BPF tracing programs: root, or CAP_BPF
 * and CAP_PERFMON in its effective set. */
int util_can_bpf(void);

/* The local time of day of unix seconds ts: "12:03:04". */
void util_clock(double ts, char *buf, size_t len);

/* Strip leading and trailing white space in place; returns s. */
char *util_trim(char *s);

/* Make the array *arr (cap elements of size bytes) hold at least want,
 * growing it by half again so repeated appends stay cheap. Returns 0 or
 * -ENOMEM (the array is then unchanged). */
int util_grow(void **arr, size_t *cap, size_t want, size_t size);

/* A hash of the text s (FNV-1a, 64 bits): for tables keyed on names and
 * paths, and a seed drawn from a name. */
uint64_t util_hash_text(const char *s);

/* Texts kept together and let go together (a replayed tick's command
 * lines), in blocks that never move: what util_texts_keep hands out stays
 * good until util_texts_free. Start from {0}. */
struct util_texts {
	struct util_text_block *head;
};

/* A copy of the len bytes at s, with a NUL, in t; NULL: out of memory. */
const char *util_texts_keep(struct util_texts *t, const char *s, size_t len);

void util_texts_free(struct util_texts *t);

/* Copy src into dst of size len, always NUL-terminated, truncating. */
void util_strlcpy(char *dst, const char *src, size_t len);

/* Format a byte count the way lsblk does ("512M", "1.8T"). */
void util_format_size(uint64_t bytes, char *buf, size_t len);
/* d as a uint64_t, range-checked before the cast: NaN, a negative value or
 * one no uint64_t holds (1e30 in a crafted recording) is 0. */
uint64_t util_to_u64(double d);



/* snprintf into a path buffer; returns 0, or -ENAMETOOLONG when it did
 * not fit (a cut path names another file, never use one). */
int util_pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The code point of the UTF-8 sequence at p (n bytes, valid as
 * util_utf8_len says) when no text may show it raw: a C1 control
 * (U+0080-U+009F), a bidirectional control or a character that hides in
 * a name (util_safe_text escapes them); else 0. */
unsigned util_hidden_char(const unsigned char *p, int n);

/* A message on stderr, "iosched-top: " first: formatted, a trailing
 * newline dropped, then escaped as the screen escapes (a value quoted from
 * a configuration file or the command line may hold a terminal's escape
 * sequences), and ended with a newline. */
void util_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What was written to f reached it: fflush, and no error on the stream
 * since (a full disk, a file size limit: EFBIG, SIGXFSZ being ignored; a
 * reader gone: EPIPE, SIGPIPE being handled). 0, or -errno (-EIO when the
 * stream kept no reason). */
int util_flush_check(FILE *f);

/* Say that what ("the output") could not be written: rc a negative errno;
 * a reader gone is named as such. */
void util_complain_write(const char *what, int rc);

/* The median of v[0..n) (sorted in place: v[0] and v[n-1] are then the
 * least and the most); NAN when n <= 0. */
double util_median(double *v, int n);

/* snprintf for messages, where cutting a long text short is acceptable. */
void util_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* For a thread the tool starts: the signals that stop the run (main.c's
 * SIGINT, SIGTERM, SIGHUP and its die_signals) blocked in
 * it, so they all reach the main thread, one after another in the order
 * they came: the first is the one that ended the run. */
void util_block_stop_signals(void);

/* Sleep until the CLOCK_MONOTONIC time deadline (seconds). Returns 0 when
 * reached, -EINTR when a signal cut the sleep short. */
int util_sleep_until(double deadline);

/* In a child just forked from the tool (which has threads, so only system
 * calls here): stdin, stdout and stderr to /dev/null, the descriptor keep
 * moved to 3, every other descriptor closed, and the process named name
 * (as ps and top show it). A child that may wait long in the kernel must
 * not hold the terminal, a caller's pipe or another disk's device node.
 * Returns 3, or -1 when keep could not be moved. */
int util_child_fds(int keep, const char *name);

#endif
