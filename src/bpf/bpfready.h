/* bpfready: what every BPF part of the tool checks before it loads: the
 * privileges, the kernel's BTF, and libbpf kept off the screen. */
#ifndef IOSCHED_BPFREADY_H
#define IOSCHED_BPFREADY_H

#include <stddef.h>

/* 0 when a BPF program may be loaded now; else a negative errno, and why
 * says in a few words what is missing ("needs root or
 * cap_bpf,cap_perfmon", "the kernel has no BTF ..."). */
int bpfready_check(char *why, size_t len);

#endif
