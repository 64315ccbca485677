# SPDX-License-Identifier: GPL-2.0
# Shared paths for the kernel, VM and test scripts. Source it; do not run it.

ZSWB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ZSWB_CACHE=${ZSWB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswap_wb}
ZSWB_JOBS=${ZSWB_JOBS:-$(nproc)}

# The Debian package that provides the source, and its version.
ZSWB_SRCPKG=linux-source-6.12
zswb_srcver() {
	dpkg-query -W -f='${Version}' "$ZSWB_SRCPKG" 2>/dev/null
}

# Directory names cannot hold '~' safely in make; map it.
zswb_dirs() {
	local ver
	ver=$(zswb_srcver)
	[ -n "$ver" ] || { echo "error: $ZSWB_SRCPKG is not installed" >&2; return 1; }
	ZSWB_SRCVER=$ver
	ZSWB_SRC=$ZSWB_CACHE/linux-${ver//\~/-}
	# ZSWB_FLAVOUR=debug: the same source, built with tools/kernel/debug.config
	# in a directory of its own.
	case "${ZSWB_FLAVOUR:-}" in
	'') ZSWB_OBJ=$ZSWB_CACHE/build-${ver//\~/-} ;;
	debug) ZSWB_OBJ=$ZSWB_CACHE/build-debug-${ver//\~/-} ;;
	*) echo "error: ZSWB_FLAVOUR is empty or debug, not '$ZSWB_FLAVOUR'" >&2; return 1 ;;
	esac
	ZSWB_MODINST=$ZSWB_OBJ/modinst
}

zswb_kernelrelease() {
	cat "$ZSWB_OBJ/include/config/kernel.release" 2>/dev/null
}

zswb_die() {
	echo "error: $*" >&2
	exit 1
}

# zswb_bench_jobs: ZSWB_BENCH_JOBS (tools/bench/config/common.conf) as
# the benchmarks' lanes take it, at most 2; a value that is not a
# positive number is refused.
zswb_bench_jobs() {
	case "$ZSWB_BENCH_JOBS" in
	''|*[!0-9]*|0) zswb_die "ZSWB_BENCH_JOBS must be a positive number, not '$ZSWB_BENCH_JOBS'" ;;
	esac
	[ "$ZSWB_BENCH_JOBS" -le 2 ] && echo "$ZSWB_BENCH_JOBS" || echo 2
}

# zswb_missing PKG...: the names of those not installed, each after a space.
zswb_missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
			printf ' %s' "$p"
	done
}

# zswb_series_applied: the cache's source holds patches/6.12 as it is now.
zswb_series_applied() {
	cat "$ZSWB_TOP"/patches/6.12/*.patch | cmp -s - "$ZSWB_SRC/.zswap_wb-applied"
}

# zswb_need PKG...: install the Debian packages that are missing, by name,
# from the registry apt is configured with. Every make target calls it for
# what it uses, so a fresh Debian 12 machine needs nothing beforehand.
# Not root: name what is missing and fail.
zswb_need() {
	local missing
	missing=$(zswb_missing "$@")
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] ||
		zswb_die "missing Debian packages:$missing (run as root, or apt-get install them)"
	# Two of our jobs at once (make bench's lanes, make check's) take turns:
	# apt refuses a second apt, and what one installs the other then finds.
	# The lock's descriptor is not passed on to apt (a daemon started by a
	# package's script would hold it for ever).
	local rc=0
	(
		flock -w 1800 9 || zswb_die "waited 30 minutes for /var/lock/zswap_wb-apt.lock"
		missing=$(zswb_missing "$@")
		[ -z "$missing" ] && exit 0
		echo "installing:$missing" >&2
		# A fresh machine may have no package lists yet; refresh them once.
		# apt-get update does not wait for the lists' lock (apt-daily may
		# hold it at boot): try again for a minute and a half.
		updated=0
		if [ -z "${ZSWB_APT_UPDATED:-}" ]; then
			for try in 1 2 3 4 5; do
				apt-get update -qq >&2 9>&- && break
				[ "$try" -lt 5 ] || zswb_die "apt-get update failed"
				sleep 20
			done
			updated=1
		fi
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
			--no-install-recommends $missing >/dev/null 9>&- ||
			zswb_die "apt-get install$missing failed"
		[ "$updated" = 0 ] || exit 3
	) 9> /var/lock/zswap_wb-apt.lock || rc=$?
	case "$rc" in
	0) ;;
	3) export ZSWB_APT_UPDATED=1 ;;
	*) exit 1 ;;
	esac
}
