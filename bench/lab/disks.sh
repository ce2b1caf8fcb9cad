# The lab's disks: null_blk devices made through configfs, each named
# after its directory (/sys/kernel/config/nullb/NAME gives /dev/NAME on
# 6.1), memory-backed so a filesystem on one keeps its data. What makes a
# scheduler matter is a queue that builds inside it: a device that takes
# few requests at once (hw_queue_depth) and holds each for a while
# (irqmode=2, a timer of completion_nsec) leaves the rest waiting in the
# scheduler, where it chooses the order. Sourced by bench/lab/inside.sh.
#
#   name     model      per request  device queue  queues  rotational
#   labhdd   HDD        4 ms         2             1       1
#   labssd   SATA SSD   100 us       32            1       0
#   labnvme  NVMe       20 us        256           2       0
#
# null_blk has no seek model: an HDD's time also depends on the distance
# between requests (doc/lab.md says what that leaves out).
LAB_DISKS="labhdd labssd labnvme"
LAB_CFG=/sys/kernel/config/nullb

# lab_disk_make NAME SIZE_MB NSEC DEPTH QUEUES ROTATIONAL
lab_disk_make() {
	local d=$LAB_CFG/$1
	mkdir "$d" || return 1
	echo "$2" > "$d/size" && echo 1 > "$d/memory_backed" && echo 4096 > "$d/blocksize" &&
		echo 2 > "$d/irqmode" && echo "$3" > "$d/completion_nsec" && echo "$4" > "$d/hw_queue_depth" &&
		echo "$5" > "$d/submit_queues" && echo 1 > "$d/power" || return 1
	local i
	for i in $(seq 50); do [ -e "/sys/block/$1" ] && [ -b "/dev/$1" ] && break; sleep 0.1; done
	[ -e "/sys/block/$1" ] || return 1
	echo "$6" > "/sys/block/$1/queue/rotational"
}

# lab_disks_make: the three disks (null_blk loaded without its default one)
lab_disks_make() {
	modprobe null_blk nr_devices=0 || return 1
	modprobe configfs 2>/dev/null
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	lab_disk_make labhdd 640 4000000 2 1 1 &&
		lab_disk_make labssd 640 100000 32 1 0 &&
		lab_disk_make labnvme 640 20000 256 2 0
}

# lab_disks_remove: every lab disk powered off and removed
lab_disks_remove() {
	local n
	for n in $LAB_DISKS; do
		[ -d "$LAB_CFG/$n" ] || continue
		echo 0 > "$LAB_CFG/$n/power" 2>/dev/null
		rmdir "$LAB_CFG/$n"
	done
}
