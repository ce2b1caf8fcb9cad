/* cgroup: the cgroup v2 hierarchy as the tool reads it — where it is
 * mounted (/sys/fs/cgroup on pure v2 machines, /sys/fs/cgroup/unified on
 * hybrid ones), which cgroup a process is in (/proc/PID/cgroup's "0::"
 * line, readable for one's own processes without root), the name a user
 * knows a cgroup by (the systemd unit, a container's short id), and its
 * io.stat where the io controller is on v2. Parsers take text, so the
 * tests and the fuzzer give them any. */
#ifndef IOSCHED_CGROUP_H
#define IOSCHED_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* The longest cgroup path kept, with its NUL. A longer one is not kept
 * at all (its cgroup is "not known"): cut, it could name another. */
#define CGROUP_PATH_MAX 256

/* Where the cgroup v2 hierarchy is mounted, into dir. Returns 0, or
 * -ENOENT when no cgroup2 filesystem is mounted. */
int cgroup_v2_mount(char *dir, size_t len);

/* That mount opened (O_PATH, O_CLOEXEC) and checked to be a cgroup2
 * filesystem: a directory mounted or bound over it is not the kernel's
 * tree (the test build's stand-in directory is taken as it is). Returns
 * the descriptor, or a negative errno (-ENOENT: no v2 mount there). */
int cgroup_v2_open_root(void);

/* The v2 tree's directories walked, for what a cgroup id names: an id
 * (bpf_get_current_cgroup_id()) is its cgroup directory's inode number on
 * the cgroup2 filesystem. fn gets each directory's id and its path
 * relative to root ("system.slice/cron.service"; "/" for root itself),
 * parents before children; a non-zero return stops the walk. The walk
 * stays on root's filesystem, follows no symlink, goes at most max_depth
 * levels below root, visits at most max_dirs directories (root counted)
 * and leaves out a directory whose path does not fit CGROUP_PATH_MAX.
 * Returns how many directories fn was given, or a negative errno (root
 * cannot be opened). */
typedef int (*cgroup_id_fn)(uint64_t id, const char *path, void *ctx);
int cgroup_walk_ids(const char *root, unsigned max_depth, unsigned max_dirs, cgroup_id_fn fn, void *ctx);

/* The id of the v2 cgroup at path (relative to the v2 root mounted at
 * mount: "a.slice/b.service", "/" the root): its directory's inode
 * number, what bpf_get_current_cgroup_id() gives. A symlink, a file or a
 * directory of another filesystem is no cgroup. Returns 0, or a negative
 * errno (-ENOENT: no such cgroup now). */
int cgroup_id_of(const char *mount, const char *path, uint64_t *id);

/* The v2 path ("/system.slice/cron.service"; "/" for the root) of the
 * text of /proc/PID/cgroup: its "0::" line. Returns 0, -ENOENT when the
 * text has none (a v1-only machine), or -ENAMETOOLONG when the path does
 * not fit len (never cut). */
int cgroup_parse_proc(const char *text, char *path, size_t len);

/* The name a user knows the cgroup at path by: its last component
 * ("apt-daily-upgrade.service", "session-2.scope", "user@1000.service"),
 * a container's runtime and short id ("docker:0123456789ab", and
 * "podman:", "crio:", "containerd:"), "lxc:NAME", "machine:NAME" for a
 * systemd-nspawn machine; "/" for the root. A container only where its
 * manager makes it (system.slice/docker-ID.scope or docker/ID;
 * machine.slice/libpod-ID.scope or a user's user@UID.service/user.slice/
 * libpod-ID.scope; crio- and cri-containerd- scopes under kubepods;
 * machine.slice/machine-NAME.scope; lxc.payload.NAME or lxc/NAME at the
 * top), and the cgroups below it are the container's: a scope of the
 * same name elsewhere (a user's own, made with systemd-run) is named as
 * any other cgroup. */
void cgroup_unit_name(const char *path, char *name, size_t len);

/* The path of the cgroup above path ("/" above a top-level one and the
 * root). */
void cgroup_parent(const char *path, char *parent, size_t len);

/* Whether the space-separated list of controllers (the text of
 * cgroup.controllers) names controller. */
int cgroup_has_controller(const char *controllers, const char *controller);

/* io.stat's counters, summed over the devices the filter takes. */
struct cgroup_io {
	uint64_t rbytes, wbytes, rios, wios, dbytes, dios;
};

/* Which device's line to count (atop counts whole physical disks only, so
 * a write through dm is not counted twice). NULL: every line. */
typedef int (*cgroup_dev_filter)(unsigned major, unsigned minor, void *ctx);

/* Parse the text of an io.stat ("8:0 rbytes=... wbytes=... rios=...
 * wios=... dbytes=... dios=...", keys the kernel adds ignored). Returns
 * the number of device lines counted, or -EINVAL for text that is not
 * io.stat. */
int cgroup_parse_io_stat(const char *text, cgroup_dev_filter filter, void *ctx, struct cgroup_io *sum);

/* The name of device major:minor for a line of io.max or io.latency
 * ("vda"), or NULL to show the numbers. */
typedef const char *(*cgroup_dev_name)(unsigned major, unsigned minor, void *ctx);

/* The limits in the text of an io.max ("8:0 rbps=max wbps=1048576
 * riops=max wiops=max") or io.latency ("8:0 target=10000"), settings
 * that say no limit ("max", a target of 0) left out, into out: "vda
 * wbps=1048576; 8:16 target=10000" ("" when none limits anything).
 * Returns how many devices are limited, or -EINVAL for text that is
 * neither file. */
int cgroup_parse_limits(const char *text, cgroup_dev_name name, void *ctx, char *out, size_t len);

/* Whether the text of /proc/cgroups binds controller (its v1 name:
 * "blkio" for io) to a v1 hierarchy: its hierarchy column is not 0 and it
 * is enabled. Then v2 has no such controller. */
int cgroup_parse_v1_bound(const char *text, const char *controller);

/* The default weight in the text of an io.weight or io.bfq.weight
 * ("default 100", a bare "100" on old kernels; per-device lines
 * "8:0 200" after it). Returns it (1..10000), or -EINVAL. */
int cgroup_parse_weight(const char *text);

#endif
