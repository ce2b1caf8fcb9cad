#!/bin/sh
# deps.sh KIND CHECK:PACKAGE... — make sure what the build (KIND=build) or
# the test suite (KIND=test) needs is present. A CHECK is a pkg-config
# module, a command, "libaio" (no .pc file on Debian: its header is
# looked for) or "pyfusepy" (the FUSE binding the slow-disk test uses). As root, missing Debian packages are installed with apt-get;
# otherwise the command to install them is printed and the exit is 1.
set -eu
kind=$1; shift
missing=""
have() {
	case $1 in
	libaio) [ -e /usr/include/libaio.h ] ;;
	pyfusepy) /usr/bin/python3 -c 'import fusepy' 2>/dev/null ;;
	ncursesw|libudev|libproc2|cmocka|libbpf) pkg-config --exists "$1" 2>/dev/null ;;
	*) command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ] ;;
	esac
}
for pair in "$@"; do
	check=${pair%%:*}; pkg=${pair#*:}
	have "$check" || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "iosched-top: $kind needs these Debian/Ubuntu packages:$missing" >&2
	echo "install them with: sudo apt-get install$missing   (or run this make target as root)" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "iosched-top: $kind needs:$missing — no apt-get here; install the equivalents by hand" >&2
	exit 1
fi
echo "iosched-top: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is wanted
apt-get install -y -qq --no-install-recommends $missing >&2
