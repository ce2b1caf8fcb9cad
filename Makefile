# iosched-top — see README.md. `make`, `make check-quick`, `make check`, `make check-guest`, `make install`.
PREFIX  ?= /usr/local
# `make` alone builds the program (the BPF rules come first in this file).
.DEFAULT_GOAL := all
DESTDIR ?=
VERSION := 0.1.0

PKGS    := ncursesw libudev libproc2
CC      ?= cc
CFLAGS  ?= -O2 -g
# CI sets WERROR=1: warnings are errors there.
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes $(if $(WERROR),-Werror)
# -iquote, not -I: no header of ours may shadow a system one. Headers are
# named by their folder ("probe/hist.h"); include/ holds the ones used
# across folders, src/ the ones private to a folder (tests reach those too).
CPPFLAGS += -iquote include -iquote src -D_GNU_SOURCE -DIOSCHED_VERSION='"$(VERSION)"' -DTHEMEDIR='"$(PREFIX)/share/iosched-top/themes"'
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libproc2 is loaded when needed (src/read/proc2.c), not linked.
PKG_LIBS   = $(shell pkg-config --libs $(filter-out libproc2,$(PKGS)) 2>/dev/null)
LDLIBS  += $(PKG_LIBS) -laio -pthread -lm

# The block-latency BPF part is optional: built when clang, bpftool and
# libbpf are here (NO_BPF=1 leaves it out). Without it the program says
# at run time that block-layer latency is off and why.
BPFTOOL ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool /sbin/bpftool))
ifeq ($(NO_BPF),)
HAVE_BPF := $(shell command -v clang >/dev/null 2>&1 && test -n "$(BPFTOOL)" && pkg-config --exists libbpf 2>/dev/null && echo 1)
endif
ifeq ($(HAVE_BPF),1)
CPPFLAGS += -DHAVE_BPF -iquote build/bpfgen
LDLIBS   += $(shell pkg-config --libs libbpf)
BPF_SKEL := build/bpfgen/blklat.skel.h build/bpfgen/taskiter.skel.h
endif

# One folder of src/ per layer (doc/hacking.md); main, cli and session tie
# them together at the top.
SRCS := $(filter-out %.bpf.c,$(wildcard src/*.c src/*/*.c))
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
OBJS := $(SRCS:src/%.c=build/%.o)
LIB_OBJS := $(LIB_SRCS:src/%.c=build/%.o)

# Header dependencies come from the compiler (-MMD), per object.
DEPFLAGS := -MMD -MP
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_OBJS := $(SRCS:src/%.c=build/san/%.o)
SAN_LIB_OBJS := $(LIB_SRCS:src/%.c=build/san/%.o)

# A module's unit test mirrors it: src/LAYER/NAME.c has tests/unit/LAYER/
# test_NAME.c (tests/static/test_map.sh); the binaries are built flat.
UNIT_SRCS := $(wildcard tests/unit/test_*.c tests/unit/*/test_*.c)
UNIT_BINS := $(patsubst %.c,build/tests/%,$(notdir $(UNIT_SRCS)))
UNIT_SAN_BINS := $(patsubst %.c,build/san/tests/%,$(notdir $(UNIT_SRCS)))
vpath test_%.c $(sort $(dir $(UNIT_SRCS)))

# The BPF objects (blklat: block latency; taskiter: the process pane's
# task walk): compiled for the bpf target against the few kernel fields
# each declares itself (CO-RE: no vmlinux.h), linked and stripped by
# bpftool gen object, and embedded in the program as skeletons.
build/bpfgen/%.bpf.o: src/bpf/%.bpf.c src/bpf/%_maps.h | build
	@mkdir -p $(@D)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell $(CC) -dumpmachine) -iquote include \
		-Wall $(if $(WERROR),-Werror) -c -o $@ $<
build/bpfgen/%.o: build/bpfgen/%.bpf.o
	$(BPFTOOL) gen object $@ $<
build/bpfgen/%.skel.h: build/bpfgen/%.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@
build/bpf/blklat.o build/san/bpf/blklat.o build/bpf/blklatread.o build/san/bpf/blklatread.o \
	build/bpf/blklatthrottle.o build/san/bpf/blklatthrottle.o \
	build/bpf/taskiter.o build/san/bpf/taskiter.o: $(BPF_SKEL)
.PRECIOUS: build/bpfgen/%.o build/bpfgen/%.bpf.o

# A test build that acts as a kernel without block_io_start (before 6.5):
# the owner of a request then comes from block_rq_insert or _issue.
NOIOSTART_OBJS := $(filter-out build/bpf/blklat.o,$(OBJS)) build/noiostart/blklat.o
build/noiostart/blklat.o: src/bpf/blklat.c $(BPF_SKEL) | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DBLKLAT_TEST_NO_IO_START $(PKG_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<
build/noiostart/iosched-top: $(NOIOSTART_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# A test build whose map of dirtied files keeps 64 of them, not 16384: its
# overflow (counted as unattributed bytes) is reached by a few hundred files.
SMALLMAPS_OBJS := $(filter-out build/bpf/blklat.o,$(OBJS)) build/smallmaps/blklat.o
build/smallmaps/blklat.o: src/bpf/blklat.c $(BPF_SKEL) | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DBLKLAT_TEST_DIRTIERS=64 $(PKG_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<
build/smallmaps/iosched-top: $(SMALLMAPS_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# A test build whose table of (process, disk, op) entries holds 64, not
# 4096: a hundred idle processes fill it.
SMALLSTATS_OBJS := $(filter-out build/bpf/blklat.o,$(OBJS)) build/smallstats/blklat.o
build/smallstats/blklat.o: src/bpf/blklat.c $(BPF_SKEL) | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DBLKLAT_TEST_STATS=64 $(PKG_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<
build/smallstats/iosched-top: $(SMALLSTATS_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# A test build whose cgroup v2 mount is $IOSCHED_TEST_CGROOT when set: a
# tree of plain files with io.bfq.weight, which this machine kind lacks.
FAKECG_OBJS := $(filter-out build/read/cgroup.o,$(OBJS)) build/fakecg/cgroup.o
build/fakecg/cgroup.o: src/read/cgroup.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DIOSCHED_TEST_CGROOT $(PKG_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<
build/fakecg/iosched-top: $(FAKECG_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
test-builds: $(if $(HAVE_BPF),build/noiostart/iosched-top build/smallmaps/iosched-top build/smallstats/iosched-top) \
	build/fakecg/iosched-top

.PHONY: all clean test-builds fuzz fuzz-build check check-quick check-unit check-guest lab guest-deps install uninstall run deps test-deps bench bench-deps sanitize deb

all: iosched-top

iosched-top: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/%.o: src/%.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

build/san/%.o: src/%.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

build:
	@mkdir -p build/tests build/san/tests

# ASan+UBSan build of the program, for the suite and for hunting bugs.
sanitize: build/san/iosched-top
build/san/iosched-top: $(SAN_OBJS)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/tests/%: %.c $(LIB_OBJS) | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -iquote tests/unit $(PKG_CFLAGS) $(CFLAGS) $(WARN) -DSRCDIR='"$(CURDIR)"' $(DEPFLAGS) -MF $@.d -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

build/san/tests/%: %.c $(SAN_LIB_OBJS) | build
	@mkdir -p $(@D) # also when build/ is there and build/san was removed
	$(CC) $(CPPFLAGS) -iquote tests/unit $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS) $(WARN) -DSRCDIR='"$(CURDIR)"' $(DEPFLAGS) -MF $@.d -o $@ $< $(SAN_LIB_OBJS) $(LDLIBS) -lcmocka

# The whole suite (tests/run-all.sh: two tests at a time, in a random
# order): unit tests (plain and under ASan+UBSan), the static checks, a few
# seconds of each fuzz harness, then the integration and terminal tests
# against real devices (they need root and say SKIP elsewhere). The last
# line says how long it took from here.
NPROC := $(shell nproc 2>/dev/null || echo 1)
check: test-deps
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory -j$(NPROC) WERROR=1 all sanitize $(UNIT_BINS) $(UNIT_SAN_BINS) test-builds fuzz-build && \
	tests/run-all.sh; rc=$$?; echo "make check: $$(( $$(date +%s) - t0 )) s in all, the build included"; exit $$rc

# What needs no root and no device, for the edit-test loop: the unit tests
# plain and under ASan+UBSan, and the static checks (tests/static: layers,
# completions against the option table).
QUICK_DEBS := cmocka:libcmocka-dev zsh:zsh
check-quick: deps
	@tests/deps.sh quick $(QUICK_DEBS)
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory -j$(NPROC) WERROR=1 all $(UNIT_BINS) $(UNIT_SAN_BINS) && \
	tests/run-all.sh quick; rc=$$?; echo "make check-quick: $$(( $$(date +%s) - t0 )) s in all, the build included"; exit $$rc

check-unit: $(UNIT_BINS) $(UNIT_SAN_BINS)
	tests/run-all.sh unit

# What this machine's kernel may lack (bfq, null_blk, pure cgroup v2 with
# the io controller), tested in a Debian 12 guest under qemu that has it
# (tests/guest/check-guest; its root filesystem is made once and cached
# in /var/tmp/iosched-guest-cache). Root.
GUEST_DEBS := qemu-system-x86_64:qemu-system-x86 mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs flock:util-linux
guest-deps: deps
	@tests/deps.sh guest $(GUEST_DEBS)
check-guest: guest-deps
	$(MAKE) --no-print-directory -j$(NPROC) WERROR=1 all
	IOSCHED_BIN=$(CURDIR)/iosched-top tests/guest/check-guest

# The seeds' scenes on disks where the schedulers differ (null_blk in the
# same guest), fio and the tool side by side: bench/lab/run, doc/lab.md.
lab: guest-deps
	$(MAKE) --no-print-directory -j$(NPROC) WERROR=1 all
	IOSCHED_BIN=$(CURDIR)/iosched-top bench/lab/run

# Where the exporter's systemd unit goes (Debian's package: /lib/systemd/system).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions

install: iosched-top
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/iosched-top/themes \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 iosched-top $(DESTDIR)$(PREFIX)/bin/iosched-top
	install -m 0644 iosched-top.1 $(DESTDIR)$(PREFIX)/share/man/man1/iosched-top.1
	for t in $(wildcard themes/*.theme); do install -m 0644 $$t $(DESTDIR)$(PREFIX)/share/iosched-top/themes/; done
	install -m 0644 completions/iosched-top.bash $(DESTDIR)$(BASHCOMPDIR)/iosched-top
	install -m 0644 completions/_iosched-top $(DESTDIR)$(ZSHCOMPDIR)/_iosched-top
	install -m 0644 dist/iosched-top-exporter.service $(DESTDIR)$(SYSTEMDUNITDIR)/iosched-top-exporter.service
	install -m 0644 dist/grafana-dashboard.json $(DESTDIR)$(PREFIX)/share/iosched-top/grafana-dashboard.json

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/iosched-top $(DESTDIR)$(PREFIX)/share/man/man1/iosched-top.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/iosched-top $(DESTDIR)$(ZSHCOMPDIR)/_iosched-top
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/iosched-top-exporter.service
	rm -rf $(DESTDIR)$(PREFIX)/share/iosched-top

# The Debian package (debian/), built from this tree: ../iosched-top_*.deb.
deb:
	dpkg-buildpackage -us -uc -b

# Build (installing missing packages when root) and start the monitor.
run: deps
	$(MAKE) --no-print-directory all
	./iosched-top

# Build dependencies: pkg-config name -> Debian package. As root, apt-get
# installs what is missing; otherwise say what to install.
# The last three are for the optional BPF part (NO_BPF=1 leaves them out).
BUILD_DEBS := pkg-config:pkg-config ncursesw:libncurses-dev libudev:libudev-dev libproc2:libproc2-dev libaio:libaio-dev \
              $(if $(NO_BPF),,clang:clang bpftool:bpftool libbpf:libbpf-dev)
TEST_DEBS  := valgrind:valgrind cmocka:libcmocka-dev fio:fio iostat:sysstat tmux:tmux jq:jq losetup:mount \
              mkfs.ext4:e2fsprogs mkfs.xfs:xfsprogs setpriv:util-linux sha256sum:coreutils groff:groff-base \
              fusermount:fuse3 pyfusepy:python3-fusepy promtool:prometheus fuser:psmisc ps:procps \
              python3:python3 useradd:passwd clang:clang dpkg-buildpackage:dpkg-dev dh:debhelper \
              lintian:lintian zsh:zsh
BENCH_DEBS := fio:fio ioping:ioping jq:jq iotop-c:iotop-c python3:python3 htop:htop tmux:tmux curl:curl \
	prometheus:prometheus prometheus-node-exporter:prometheus-node-exporter \
	qemu-system-x86_64:qemu-system-x86 mmdebstrap:mmdebstrap mkfs.ext4:e2fsprogs
deps:
	@tests/deps.sh build $(BUILD_DEBS)

test-deps: deps
	@tests/deps.sh test $(TEST_DEBS)

# Measurements against real peers (root; several minutes): print ratios.
bench-deps: deps
	@tests/deps.sh bench $(BENCH_DEBS)

bench: bench-deps
	$(MAKE) --no-print-directory all
	bench/probe-vs-fio
	bench/pacing-under-writer

# libFuzzer harnesses (tests/fuzz) for the parsers of kernel text and of
# the tool's own files: every source built again with clang and coverage,
# one binary per target; each runs FUZZ_SECS seconds on a copy of its
# committed seed corpus (tests/fuzz/corpus/TARGET). A crash fails.
FUZZ_TARGETS := diskstats sched psi cgroup meminfo procstat procio u64 taskstats jsonv theme replay config udevrules
FUZZ_SECS ?= 600
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_OBJS := $(LIB_SRCS:src/%.c=build/fuzz/%.o)
build/fuzz/%.o: src/%.c $(BPF_SKEL) | build
	@mkdir -p $(@D)
	clang $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_CFLAGS) -w $(DEPFLAGS) -c -o $@ $<
build/fuzz/fuzz_%: tests/fuzz/fuzz_text.c $(FUZZ_OBJS)
	clang $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DFUZZ_$* -o $@ $< $(FUZZ_OBJS) $(LDLIBS)
# Kept between runs: make check builds the harnesses every time.
.SECONDARY: $(FUZZ_OBJS)
fuzz-build: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz $$t for $(FUZZ_SECS) s"; tests/fuzz/run-one.sh $$t $(FUZZ_SECS) || exit 1; \
	done

clean:
	rm -rf build iosched-top

# Each object's header dependencies, as the compiler found them (-MMD;
# -MP: a header removed since does not stop the build).
-include $(wildcard $(OBJS:.o=.d) $(SAN_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d) build/noiostart/blklat.d build/smallmaps/blklat.d build/smallstats/blklat.d build/fakecg/cgroup.d \
	$(UNIT_BINS:%=%.d) $(UNIT_SAN_BINS:%=%.d))
