/* bpfready: see src/bpf/bpfready.h */
#include "bpfready.h"

#include <errno.h>
#include <unistd.h>

#include "base/util.h"

#ifdef HAVE_BPF
#include <bpf/libbpf.h>

/* libbpf prints to stderr, which would scribble over the screen; the
 * error codes say enough. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}
#endif

int bpfready_check(char *why, size_t len)
{
#ifndef HAVE_BPF
	util_strlcpy(why, "built without BPF (make found no clang, bpftool or libbpf)", len);
	return -ENOTSUP;
#else
	if (!util_can_bpf()) {
		util_strlcpy(why, "needs root or cap_bpf,cap_perfmon", len);
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		util_strlcpy(why, "the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)", len);
		return -ENOENT;
	}
	libbpf_set_print(quiet);
	return 0;
#endif
}
