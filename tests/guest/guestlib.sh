# The Debian 12 guest that make check-guest and bench/guest-cgroups boot:
# its own 6.1 kernel with every scheduler (bfq and kyber as modules),
# null_blk, nbd and dm; systemd; pure cgroup v2 with the io controller.
# Sourced after bench/lib.sh or tests/lib/common.sh has set SCRATCH and
# BIN. Under qemu without KVM (TCG; GUEST_ACCEL=kvm where there is one).
#
# The root filesystem (mmdebstrap, a few minutes, needs Debian's package
# mirror) is cached in GUEST_CACHE (default /var/tmp/iosched-guest-cache),
# one tarball per package list (another list's is removed); each boot
# unpacks it, adds the tool and the check to run, makes an ext4 image
# (mkfs.ext4 -d) in SCRATCH and boots the kernel and initrd from its
# /boot. The check runs at boot from a one-shot unit that powers the
# guest off either way; what it prints comes back on the guest's second
# serial port (SCRATCH/results.log). GUEST_TIMEOUT (seconds, default 600)
# kills qemu; GUEST_MEM is its memory in MiB (default 1536).
GUEST_CACHE=${GUEST_CACHE:-/var/tmp/iosched-guest-cache}
# What the guest needs: a kernel with an initrd, systemd, the tool's
# runtime libraries, and what the checks and the suite's tests run (fio,
# jq, tmux, mkfs.ext4, fuser). Change GUEST_RECIPE when the image is made
# differently, so that the cache key changes.
GUEST_PKGS="linux-image-amd64 initramfs-tools systemd systemd-sysv udev kmod procps util-linux \
libncursesw6 libtinfo6 libaio1 libudev1 libproc2-0 libbpf1 libelf1 zlib1g jq fio tmux e2fsprogs psmisc"
GUEST_RECIPE="bookworm variant=apt 1"
GUEST_TAR="$GUEST_CACHE/rootfs-$(echo "$GUEST_RECIPE $GUEST_PKGS" | sha256sum | cut -c1-16).tar"

# guest_rootfs: the cached root filesystem, made once per package list (a
# lock keeps two runs from making it at once). Exits 1 when it cannot.
guest_rootfs() {
	mkdir -p "$GUEST_CACHE"
	exec 9> "$GUEST_CACHE/lock"
	flock 9
	if [ ! -s "$GUEST_TAR" ]; then
		echo "guest: making the root filesystem (mmdebstrap, a few minutes) into $GUEST_TAR"
		rm -f "$GUEST_CACHE"/rootfs-*.tar # another package list's: not used again
		if ! mmdebstrap --quiet --format=tar --variant=apt --include="${GUEST_PKGS// /,}" bookworm "$SCRATCH/rootfs.tar" \
			> "$SCRATCH/mmdebstrap.log" 2>&1; then
			tail -20 "$SCRATCH/mmdebstrap.log" >&2
			echo "guest: mmdebstrap failed (is Debian's package mirror reachable?)" >&2
			exit 1
		fi
		mv "$SCRATCH/rootfs.tar" "$GUEST_TAR.part" && mv "$GUEST_TAR.part" "$GUEST_TAR" # whole, or not there
	else
		echo "guest: root filesystem cached ($GUEST_TAR)"
	fi
	flock -u 9
	exec 9>&-
}

# guest_image CHECK ROOM_MB [DIR...]: the image: the cached tree, the tool
# (/opt/iosched/iosched-top), CHECK (/opt/iosched/check, run at boot),
# each DIR under /opt/iosched/, and ROOM_MB of free space for the checks'
# files.
guest_image() {
	local check=$1 room=$2 root="$SCRATCH/root" d
	shift 2
	mkdir "$root"
	tar -xf "$GUEST_TAR" -C "$root"
	install -D -m 755 "$BIN" "$root/opt/iosched/iosched-top"
	install -D -m 755 "$check" "$root/opt/iosched/check"
	for d in "$@"; do cp -r "$d" "$root/opt/iosched/"; done
	cat > "$root/etc/systemd/system/iosched-check.service" <<-'EOF'
	[Unit]
	Description=iosched-top checks in the guest
	SuccessAction=poweroff-force
	FailureAction=poweroff-force
	[Service]
	Type=oneshot
	ExecStart=/bin/sh -c 'exec /opt/iosched/check > /dev/ttyS1 2>&1'
	[Install]
	WantedBy=multi-user.target
	EOF
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -s ../iosched-check.service "$root/etc/systemd/system/multi-user.target.wants/"
	echo iosched-guest > "$root/etc/hostname"
	cp "$root"/boot/vmlinuz-* "$SCRATCH/vmlinuz"
	cp "$root"/boot/initrd.img-* "$SCRATCH/initrd"
	local mb=$(($(du -sm "$root" | cut -f1) + room))
	mkfs.ext4 -q -F -L iosched-guest -d "$root" "$SCRATCH/root.img" "${mb}M" > /dev/null
	rm -rf "$root"
}

# guest_boot: boot the image; returns 0 when the check ran to its end
# (its last line GUEST-DONE), else says why (the console's end) and
# returns 1. Its lines are in SCRATCH/results.log.
guest_boot() {
	local tmo=${GUEST_TIMEOUT:-600} rc
	echo "guest: booting (qemu, ${GUEST_ACCEL:-tcg}), up to $tmo s; $BIN"
	: > "$SCRATCH/results.log"
	timeout -k 5 "$tmo" qemu-system-x86_64 -accel "${GUEST_ACCEL:-tcg}" -cpu max -m "${GUEST_MEM:-1536}" -smp 2 \
		-nographic -monitor none -no-reboot \
		-serial "file:$SCRATCH/console.log" -serial "file:$SCRATCH/results.log" \
		-kernel "$SCRATCH/vmlinuz" -initrd "$SCRATCH/initrd" \
		-append "root=/dev/vda rw console=ttyS0 quiet panic=-1" \
		-drive "file=$SCRATCH/root.img,format=raw,if=virtio" < /dev/null &
	GUEST_PID=$!
	wait "$GUEST_PID"
	rc=$?
	GUEST_PID=""
	if ! grep -q '^GUEST-DONE' "$SCRATCH/results.log"; then
		[ "$rc" -eq 124 ] && echo "guest: killed after $tmo s"
		echo "guest: the check did not finish (qemu exit $rc); the console's end:"
		tr -d '\r' < "$SCRATCH/console.log" | tail -30
		return 1
	fi
	return 0
}
