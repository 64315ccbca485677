#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command in the build environment of another Debian release, so
# that what it builds (the kernel packages, the project's packages) comes
# from that release's compiler, dpkg-dev, debhelper and linux-source-6.12,
# as on a host of that release.
#
#   tools/kernel/in-suite.sh SUITE CMD [ARG...]
#
# SUITE is trixie (Debian 13). The environment is a root made with
# mmdebstrap from the Debian archive apt on this machine is configured with
# (the sources tools/vm/mkrootfs.sh --sources prints for SUITE), cached as
# $ZSWB_CACHE/env-SUITE-<hash>/ (hash of the suite, the package list and
# this script) and made again only when one of them changes.
#
# CMD runs as root in that root, in a mount namespace of its own (nothing
# stays mounted when it ends), with the repository mounted read-only at its
# own path and $ZSWB_CACHE/SUITE mounted at its own path, which is its
# ZSWB_CACHE: the kernel source, build directories, ccache and packages of
# the release stay apart from this machine's. ZSWB_SUITE is SUITE there;
# ZSWB_JOBS, ZSWB_DEB_CONFIG, ZSWB_DEB_FLAVOUR and DEB_BUILD_OPTIONS are
# passed through.
set -eu
. "$(dirname "$0")/common.sh"

# What the kernel packages (tools/kernel/build.sh, build-deb.sh, both
# modes) and the project's packages (debian/control) are built with.
ENV_PACKAGES="linux-source-6.12 linux-config-6.12 build-essential bc bison flex
	libelf-dev libssl-dev ccache cpio kmod rsync xz-utils patch python3 dwarves
	dpkg-dev debhelper dh-dkms make pkg-config libcurl4-openssl-dev libjansson-dev"

[ $# -ge 2 ] || { echo "usage: in-suite.sh SUITE CMD [ARG...]" >&2; exit 64; }
suite=$1
shift
case "$suite" in
trixie) ;;
*) zswb_die "in-suite.sh: SUITE is trixie, not '$suite' (bookworm builds on this machine)" ;;
esac
[ "$(id -u)" = 0 ] || zswb_die "in-suite.sh runs as root (mmdebstrap, chroot, mount)"

packages=$(echo $ENV_PACKAGES | tr ' ' '\n' | sort -u | tr '\n' ',')
packages=${packages%,}
hash=$( { echo "$suite $packages"; cat "$0"; } | sha256sum | cut -c1-16)
root=$ZSWB_CACHE/env-$suite-$hash
sub=$ZSWB_CACHE/$suite
mkdir -p "$sub"

# Made once, under a lock: two callers wait for one mmdebstrap.
exec 9> "$ZSWB_CACHE/.env-$suite.lock"
flock 9
if [ ! -f "$root/.zswb-env-ready" ]; then
	zswb_need mmdebstrap util-linux
	srcs=$(ZSWB_SUITE=$suite bash "$ZSWB_TOP/tools/vm/mkrootfs.sh" --sources)
	mapfile -t mirrors <<< "$srcs"
	conf=$(mktemp)
	# apt's own settings for reaching the archive (proxies, snapshot dates).
	apt-config dump | grep -E '^Acquire::((https?|ftp)::Proxy|Check-Valid-Until|Check-Date|Retries)' > "$conf" || true
	echo "making the $suite build environment in $root from:" >&2
	echo "$srcs" | sed 's/^/  /' >&2
	rm -rf "$root.tmp"
	mmdebstrap --mode=root --variant=apt --format=directory --aptopt="$conf" \
		--include="$packages" -q "$suite" "$root.tmp" "${mirrors[@]}" >&2 ||
		{ rm -f "$conf"; rm -rf "$root.tmp"; zswb_die "mmdebstrap of $suite failed"; }
	rm -f "$conf"
	touch "$root.tmp/.zswb-env-ready"
	mv "$root.tmp" "$root"
	# The older environments of this suite: env-SUITE-<16 hex digits>.
	for old in "$ZSWB_CACHE/env-$suite"-*; do
		[ "$old" = "$root" ] || [ ! -f "$old/.zswb-env-ready" ] || rm -rf "$old"
	done
fi
flock -s 9

mkdir -p "$root$ZSWB_TOP" "$root$sub"
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount --propagation private bash -c '
	set -e
	root=$1 top=$2 sub=$3
	shift 3
	mount --rbind /dev "$root/dev"
	mount -t proc proc "$root/proc"
	mount --bind "$top" "$root$top"
	mount -o remount,bind,ro "$root$top"
	mount --bind "$sub" "$root$sub"
	exec chroot "$root" "$@"' in-suite "$root" "$ZSWB_TOP" "$sub" \
	/usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	ZSWB_SUITE="$suite" ZSWB_CACHE="$sub" ZSWB_JOBS="$ZSWB_JOBS" \
	ZSWB_DEB_CONFIG="${ZSWB_DEB_CONFIG:-test}" ZSWB_DEB_FLAVOUR="${ZSWB_DEB_FLAVOUR:-amd64_none_amd64}" \
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-}" "$@"
