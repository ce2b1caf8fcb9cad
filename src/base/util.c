/* util: see include/base/util.h */
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long util_read_text(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	/* Not blocking on a FIFO swapped in where a file was: only a regular
	 * file is read (sysfs and /proc files are). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct stat st;
	long n = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ? -EINVAL : util_read_fd(fd, buf, len);
	close(fd);
	return n;
}

long util_read_fd(int fd, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	size_t got = 0;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (long)got;
}

/* The decimal number at the start of s (no sign: strtoull would accept a
 * '-' and wrap). Returns 0 with *end after it, or -EINVAL / -ERANGE. */
static int leading_u64(const char *s, unsigned long long *v, char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno == ERANGE ? -ERANGE : 0;
}

long util_read_small(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return (long)n;
}

int util_parse_u64(const char *s, uint64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	char *end;
	unsigned long long v;
	int rc = leading_u64(s, &v, &end);
	if (rc < 0)
		return rc;
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

int util_read_u64(const char *path, uint64_t *out)
{
	char buf[64];
	long n = util_read_text(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	return util_parse_u64(buf, out);
}

static double clock_seconds(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double util_mono_now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double util_real_now(void)
{
	return clock_seconds(CLOCK_REALTIME);
}

double util_boot_now(void)
{
	return clock_seconds(CLOCK_BOOTTIME);
}

int util_loadavg(double load[3])
{
	char text[128];
	if (util_read_text("/proc/loadavg", text, sizeof text) <= 0)
		return -1;
	return sscanf(text, "%lf %lf %lf", &load[0], &load[1], &load[2]) == 3 ? 0 : -1;
}

int util_can_bpf(void)
{
	if (geteuid() == 0)
		return 1;
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	/* CAP_BPF is 39, CAP_PERFMON 38: both in the second word */
	return (data[1].effective & (1u << (39 - 32))) && (data[1].effective & (1u << (38 - 32)));
}

void util_clock(double ts, char *buf, size_t len)
{
	time_t t = (time_t)ts;
	struct tm tm;
	buf[0] = '\0';
	if (localtime_r(&t, &tm))
		strftime(buf, len, "%H:%M:%S", &tm);
}

char *util_trim(char *s)
{
	char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	size_t n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	memmove(s, p, n);
	s[n] = '\0';
	return s;
}

void util_strlcpy(char *dst, const char *src, size_t len)
{
	if (len == 0)
		return;
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A double cast to an integer that cannot hold it is undefined behaviour:
 * every figure a recording or the kernel gave goes through here. */
uint64_t util_to_u64(double d)
{
	return d > 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
}

void util_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024.0 && u < (int)sizeof units - 2) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	else if (v < 10.0 && v != (double)(long)v)
		snprintf(buf, len, "%.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%.0f%c", v, units[u]);
}

void util_block_stop_signals(void)
{
	static const int stop[] = {SIGINT,  SIGTERM, SIGHUP,    SIGQUIT, SIGUSR1, SIGUSR2,
				   SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF, SIGPWR,  SIGIO, SIGSTKFLT};
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
		sigaddset(&set, stop[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int util_sleep_until(double deadline)
{
	struct timespec ts;
	ts.tv_sec = (time_t)deadline;
	ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc == 0 ? 0 : -rc;
}

int util_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return (w < 0 || (size_t)w >= len) ? -ENAMETOOLONG : 0;
}

void util_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

int util_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int rc = leading_u64(s, &v, &end);
	if (rc < 0)
		return rc;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (end[0] == 'i' || end[0] == 'I') && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	else if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0')
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

void util_format_latency(uint64_t ns, char *buf, size_t len)
{
	double us = (double)ns / 1e3;
	if (us < 10)
		snprintf(buf, len, "%.1fus", us);
	else if (us < 1000)
		snprintf(buf, len, "%.0fus", us);
	else if (us < 10000)
		snprintf(buf, len, "%.2fms", us / 1e3);
	else if (us < 1e6)
		snprintf(buf, len, "%.1fms", us / 1e3);
	else
		snprintf(buf, len, "%.2fs", us / 1e6);
}

int util_utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0; /* overlong, or a UTF-16 surrogate */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0; /* overlong, or past U+10FFFF */
	return n;
}

/* The code point of a valid 2-, 3- or 4-byte UTF-8 sequence. */
static unsigned code_point(const unsigned char *p, int n)
{
	if (n == 2)
		return ((p[0] & 0x1fu) << 6) | (p[1] & 0x3fu);
	if (n == 3)
		return ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
	return ((p[0] & 0x07u) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) | (p[3] & 0x3fu);
}

/* Characters that change how a line reads without showing themselves:
 * the bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E,
 * U+2066-U+2069) reorder what follows; zero-width and blank-looking ones
 * (U+200B-U+200D, U+2060-U+2064, U+FEFF, the soft hyphen, U+034F, the
 * Hangul fillers, U+180E, variation selectors, the tag characters that can
 * carry hidden text, interlinear annotation marks) hide in a name; line
 * and paragraph separators (U+2028, U+2029) break it. With them the rest
 * of Unicode's Default_Ignorable_Code_Point set (Mongolian and Khmer
 * fillers, U+2065-U+206F, U+FFF0-U+FFF8, shorthand and musical format
 * controls) and the other format controls (Cf: Arabic number marks,
 * Egyptian hieroglyph controls). */
static int is_hidden(unsigned c)
{
	static const unsigned ranges[][2] = {
		{0x00ad, 0x00ad},   {0x034f, 0x034f},   {0x0600, 0x0605},   {0x061c, 0x061c},   {0x06dd, 0x06dd},
		{0x070f, 0x070f},   {0x0890, 0x0891},   {0x08e2, 0x08e2},   {0x115f, 0x1160},   {0x17b4, 0x17b5},
		{0x180b, 0x180f},   {0x200b, 0x200f},   {0x2028, 0x202e},   {0x2060, 0x206f},   {0x3164, 0x3164},
		{0xfe00, 0xfe0f},   {0xfeff, 0xfeff},   {0xffa0, 0xffa0},   {0xfff0, 0xfffb},   {0x110bd, 0x110bd},
		{0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
	};
	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (c >= ranges[i][0] && c <= ranges[i][1])
			return 1;
	return 0;
}

unsigned util_hidden_char(const unsigned char *p, int n)
{
	if (n < 2 || n > 4)
		return 0;
	unsigned c = code_point(p, n);
	return (c >= 0x80 && c <= 0x9f) || is_hidden(c) ? c : 0;
}

void util_safe_text(char *dst, size_t len, const char *src)
{
	size_t o = 0;
	if (len == 0)
		return;
	for (const unsigned char *p = (const unsigned char *)src; *p;) {
		char esc[12];
		int n = util_utf8_len(p);
		if (n == 1 && *p >= 0x20 && *p != 0x7f) {
			esc[0] = (char)*p;
			esc[1] = '\0';
		} else if (n == 1) {
			snprintf(esc, sizeof esc, "^%c", *p == 0x7f ? '?' : *p + 0x40);
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			snprintf(esc, sizeof esc, "\\x%02x", p[1]); /* C1: U+0080..U+009F */
		} else if (n >= 2 && util_hidden_char(p, n)) {
			snprintf(esc, sizeof esc, util_hidden_char(p, n) > 0xffff ? "\\U%06x" : "\\u%04x",
				 util_hidden_char(p, n));
		} else if (n == 0) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			n = 1;
		} else {
			memcpy(esc, p, (size_t)n);
			esc[n] = '\0';
		}
		size_t l = strlen(esc);
		if (o + l >= len)
			break;
		memcpy(dst + o, esc, l);
		o += l;
		p += n;
	}
	dst[o] = '\0';
}

int util_safe_write(FILE *f, char *text, size_t len)
{
	/* a line escapes to at most 4 bytes a byte ("\\xNN"): room for the
	 * longest line, not the whole text */
	size_t longest = 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		longest = end - at > longest ? end - at : longest;
		at = end + 1;
	}
	char *safe = malloc(4 * longest + 1);
	if (!safe)
		return -ENOMEM;
	for (size_t at = 0; at < len;) {
		char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		text[end] = '\0'; /* the newline, or the NUL after the text */
		util_safe_text(safe, 4 * (end - at) + 1, text + at);
		errno = 0;
		fputs(safe, f);
		if (nl)
			fputc('\n', f);
		if (ferror(f)) { /* one of stdio's own flushes failed just now: its reason is errno's */
			int e = errno ? errno : EIO;
			free(safe);
			return -e;
		}
		at = end + 1;
	}
	free(safe);
	return 0;
}

int util_cut_mark(char *s, int room, int utf8)
{
	if (room <= 0) {
		s[0] = '\0';
		return 1;
	}
	if ((int)strlen(s) <= room)
		return 0;
	int keep = room - 1;
	while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--; /* not inside a UTF-8 sequence */
	strcpy(s + keep, utf8 ? "\u2026" : "~");
	return 1;
}

void util_fit_figure(char *s, int w)
{
	int n = (int)strlen(s);
	if (n <= w || w <= 0) {
		if (w <= 0)
			s[0] = '\0';
		return;
	}
	/* prefix (">", "~"), number, unit: each part of a figure */
	int a = 0;
	while (s[a] && !(s[a] >= '0' && s[a] <= '9'))
		a++;
	int b = a;
	while ((s[b] >= '0' && s[b] <= '9') || s[b] == '.')
		b++;
	int figure = a < b && a <= 2 && strlen(s + b) <= 8;
	for (const char *p = s + b; figure && *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '/' || *p == '%'))
			figure = 0;
	if (!figure) {
		s[w] = '\0';
		return;
	}
	char out[64], num[32];
	snprintf(num, sizeof num, "%.*s", b - a, s + a);
	snprintf(out, sizeof out, "%.*s%.0f%s", a, s, strtod(num, NULL), s + b);
	if ((int)strlen(out) <= w) {
		strcpy(s, out);
		return;
	}
	memset(s, '#', (size_t)w);
	s[w] = '\0';
}

int util_grow(void **arr, size_t *cap, size_t want, size_t size)
{
	if (want <= *cap)
		return 0;
	size_t c = want + want / 2 + 16;
	void *n = realloc(*arr, c * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = c;
	return 0;
}

struct util_text_block {
	struct util_text_block *next;
	size_t used, cap;
	char data[];
};

uint64_t util_hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

const char *util_texts_keep(struct util_texts *t, const char *s, size_t len)
{
	struct util_text_block *b = t->head;
	if (!b || b->cap - b->used < len + 1) {
		/* 4 KiB holds a tick's worth of command lines in a few blocks */
		size_t cap = len + 1 > 4096 - sizeof *b ? len + 1 : 4096 - sizeof *b;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		*b = (struct util_text_block){.next = t->head, .cap = cap};
		t->head = b;
	}
	char *c = b->data + b->used;
	memcpy(c, s, len);
	c[len] = '\0';
	b->used += len + 1;
	return c;
}

void util_texts_free(struct util_texts *t)
{
	while (t->head) {
		struct util_text_block *n = t->head->next;
		free(t->head);
		t->head = n;
	}
}

int util_child_fds(int keep, const char *name)
{
	prctl(PR_SET_NAME, name);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0)
		for (int i = 0; i < 3; i++)
			if (i != keep)
				dup3(null, i, 0);
	if (keep != 3 && dup3(keep, 3, O_CLOEXEC) < 0)
		return -1;
	if (close_range(4, ~0U, 0) != 0)
		for (int i = 4; i < 65536; i++)
			close(i);
	return 3;
}

int util_flush_check(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}

void util_complain_write(const char *what, int rc)
{
	util_complain("cannot write %s: %s%s\n", what, strerror(-rc), rc == -EPIPE ? " (the reader is gone)" : "");
}

void util_complain(const char *fmt, ...)
{
	char raw[2048], safe[4 * sizeof raw];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	size_t n = strlen(raw);
	if (n && raw[n - 1] == '\n')
		raw[n - 1] = '\0';
	util_safe_text(safe, sizeof safe, raw);
	fprintf(stderr, "iosched-top: %s\n", safe);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double util_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
