#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fleet install test (make check-fleet): zswap_wb installed the way a fleet
# installs it, from Debian packages, on the Debian image of
# tools/vm/mkrootfs.sh booted in the test VM, then a reboot, then a purge.
# ZSWB_SUITE picks the release: bookworm (Debian 12, default) or trixie
# (Debian 13), for the image and the packages alike.
#
#   selftests/fleet_test.sh                        on the host: prints KTAP
#   fleet_test.sh --guest boot1|boot2 KREL MAJOR   its guest side (run by
#                                                  the VM on Debian MAJOR)
#
# Boot 1 (the hooked kernel of the linux-image package): dpkg -i the kernel's
# linux-image and linux-headers packages, then zswap-wb-dkms and zswbctl;
# DKMS builds the module in the guest; modprobe loads it; the settings go
# to /etc/modprobe.d/zswap_wb.conf (options) and
# /etc/modules-load.d/zswap_wb.conf (load at boot). Boot 2, the same disk:
# the module is loaded with those options, zswbctl status shows them;
# zswbctl unload, dpkg --purge, and nothing of the packages is left.
#
# The packages, the newest of each name in $ZSWB_FLEET_DEBS (directories;
# default: where make deb and make kernel-deb leave them, $ZSWB_CACHE/deb and
# $ZSWB_CACHE/kernel-deb, and the kernel-deb/ of ~/.cache/zswap_wb-deb, the
# cache that 'ZSWB_CACHE=~/.cache/zswap_wb-deb make kernel-deb' fills; for
# trixie $ZSWB_CACHE/trixie/deb and $ZSWB_CACHE/trixie/kernel-deb, where
# 'ZSWB_SUITE=trixie make deb kernel-deb' leaves them):
# linux-image-*-zswap-wb and linux-headers-*-zswap-wb (make kernel-deb),
# zswap-wb-dkms and zswbctl (make deb). Without them only the image's boot
# is tested (on the built test kernel) and the rest is skipped, saying why.
#
# Environment: ZSWB_SUITE, ZSWB_FLEET_TIMEOUT (boot 1, default 2400 s: DKMS
# compiles under emulation), ZSWB_VM_MEM (default 2048).
set -u

# Settings written to /etc in boot 1, and what sysfs shows for them.
OPTIONS="async_free=1 shrink_policy=per_node shrink_batch=64 readahead_policy=skip_zswap_slots"
EXPECT="async_free=Y shrink_policy=per_node shrink_batch=64 readahead_policy=skip_zswap_slots"
PKGS="zswap-wb-dkms zswbctl"

# ---------------------------------------------------------------- guest --

# res ID ok|fail|skip [WHY]: one result, read back by the host.
res() {
	echo "fleet-result $1 $2${3:+ $3}"
	[ "$2" != fail ] || failed=1
}

# verdict ID 1|0: ok or fail.
verdict() {
	if [ "$2" = 1 ]; then res "$1" ok; else res "$1" fail; fi
}

# show FILE: a log as KTAP diagnostics.
show() { sed 's/^/# /' "$1"; }

guest_boot1() {
	local krel=$1 major=$2 d=/run/zswb-run/debs ok f ver

	ok=1
	grep -q "^$major\\." /etc/debian_version || { echo "# not Debian $major: $(cat /etc/debian_version)"; ok=0; }
	[ "$(uname -r)" = "$krel" ] || { echo "# running $(uname -r), not $krel"; ok=0; }
	for f in dkms gcc make modprobe dpkg; do
		command -v $f >/dev/null || { echo "# no $f in the image"; ok=0; }
	done
	echo "# Debian $(cat /etc/debian_version), $(uname -r), init $(cat /proc/1/comm)"
	verdict boot $ok
	[ -d "$d" ] || return 0

	if dpkg -i "$d"/linux-image-*.deb "$d"/linux-headers-*.deb > /tmp/kdeb.log 2>&1 &&
	   [ -e "/lib/modules/$krel/build/Makefile" ]; then
		res kernel-debs ok
	else
		show /tmp/kdeb.log | tail -30; res kernel-debs fail
	fi

	start=$(date +%s)
	dpkg -i "$d"/zswap-wb-dkms_*.deb "$d"/zswbctl_*.deb > /tmp/pkg.log 2>&1
	f=$?
	echo "# dpkg -i $PKGS: $(( $(date +%s) - start )) s, status $f"
	if [ $f = 0 ] && dpkg-query -W -f='${Status}\n' $PKGS | grep -vq 'install ok installed'; then
		f=1
	fi
	[ $f = 0 ] || show /tmp/pkg.log | tail -40
	verdict pkg-install $((f == 0))

	ver=$(dpkg-query -W -f='${Version}' zswap-wb-dkms 2>/dev/null)
	ver=${ver%%-*}
	dkms status zswap_wb 2>&1 | sed 's/^/# dkms status: /'
	if dkms status -m zswap_wb -k "$krel" 2>/dev/null | grep -q ': installed' &&
	   [ -f "/lib/modules/$krel/updates/dkms/zswap_wb.ko" ]; then
		res dkms-built ok
	else
		tail -30 /var/lib/dkms/zswap_wb/"$ver"/build/make.log 2>/dev/null | sed 's/^/# /'
		res dkms-built fail
	fi

	f=$(modinfo -n zswap_wb 2>&1)
	echo "# modinfo -n zswap_wb: $f"
	if [ "$f" = "/lib/modules/$krel/updates/dkms/zswap_wb.ko" ] && modprobe zswap_wb &&
	   [ -d /sys/module/zswap_wb ] && modprobe -r zswap_wb && [ ! -d /sys/module/zswap_wb ]; then
		res modprobe ok
	else
		res modprobe fail
	fi

	# The administrator's settings. A file that a package ships as a
	# conffile is edited in place.
	echo "options zswap_wb $OPTIONS" > /etc/modprobe.d/zswap_wb.conf
	echo zswap_wb > /etc/modules-load.d/zswap_wb.conf
	# What the packages own, for boot 2's check after the purge.
	mkdir -p /var/lib/zswb-fleet
	dpkg -L $PKGS > /var/lib/zswb-fleet/files
	echo "# $(wc -l < /var/lib/zswb-fleet/files) paths in dpkg -L $PKGS"
}

guest_boot2() {
	local krel=$1 p want got ok left

	want=/lib/modules/$krel/updates/dkms/zswap_wb.ko
	got=$(modinfo -n zswap_wb 2>&1)
	if [ -d /sys/module/zswap_wb ] && [ "$got" = "$want" ]; then
		res boot-load ok
	else
		echo "# /sys/module/zswap_wb: $(ls -d /sys/module/zswap_wb 2>&1); modinfo -n: $got"
		res boot-load fail
	fi

	ok=1
	for p in $EXPECT; do
		# A policy reads as every choice, the current one in brackets.
		got=$(sed 's/^.*\[\([^]]*\)\].*$/\1/' "/sys/module/zswap_wb/parameters/${p%%=*}" 2>&1)
		[ "$got" = "${p#*=}" ] || { echo "# ${p%%=*} is '$got', want '${p#*=}'"; ok=0; }
	done
	verdict boot-params $ok

	ok=1
	zswbctl status > /tmp/status.log 2>&1 || ok=0
	for p in $EXPECT; do
		grep -qx "${p%%=*} = ${p#*=}" /tmp/status.log || { echo "# zswbctl status lacks '${p%%=*} = ${p#*=}'"; ok=0; }
	done
	[ $ok = 1 ] || show /tmp/status.log
	verdict zswbctl-status $ok

	# The settings are the administrator's: gone with them, unless a
	# package owns them (then the purge removes them).
	for p in /etc/modprobe.d/zswap_wb.conf /etc/modules-load.d/zswap_wb.conf; do
		dpkg -S "$p" >/dev/null 2>&1 || rm -f "$p"
	done
	ok=0
	: > /tmp/purge.log
	if [ -d /sys/module/zswap_wb ]; then
		zswbctl unload >> /tmp/purge.log 2>&1 || ok=1
	fi
	dpkg --purge $PKGS >> /tmp/purge.log 2>&1 || ok=1
	# Purged packages are unknown to dpkg, not left in "config-files".
	if dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null | grep -v 'not-installed$' | grep -q .; then
		dpkg-query -W -f='# ${Package} ${Status}\n' $PKGS 2>/dev/null
		ok=1
	fi
	[ -d /sys/module/zswap_wb ] && { echo "# zswap_wb is still loaded"; ok=1; }
	[ $ok = 0 ] || show /tmp/purge.log | tail -30
	verdict purge $((ok == 0))

	# Files left; directories only when no other package owns them. A
	# directory may be a symlink to one (/lib on a merged-/usr system, where
	# bookworm's debhelper puts systemd units): the same rule holds.
	left=0
	while read -r p; do
		[ "$p" != /. ] || continue
		[ -e "$p" ] || [ -L "$p" ] || continue
		[ -d "$p" ] && dpkg -S "$p" >/dev/null 2>&1 && continue
		echo "# left behind: $p"
		left=$((left + 1))
	done < /var/lib/zswb-fleet/files
	verdict purge-files $((left == 0))

	left=0
	for p in /usr/src/zswap_wb-* /var/lib/dkms/zswap_wb /lib/modules/*/updates/dkms/zswap_wb.ko \
		 /etc/modprobe.d/zswap_wb.conf /etc/modules-load.d/zswap_wb.conf; do
		[ -e "$p" ] || continue
		echo "# left behind: $p"
		left=$((left + 1))
	done
	modprobe -n zswap_wb 2>/dev/null && { echo "# modprobe still finds zswap_wb"; left=$((left + 1)); }
	verdict purge-dkms $((left == 0))
	rm -rf /var/lib/zswb-fleet
}

if [ "${1:-}" = --guest ]; then
	failed=0
	export DEBIAN_FRONTEND=noninteractive
	case "${2:-}" in
	boot1) guest_boot1 "${3:?kernel release}" "${4:?Debian major version}" ;;
	boot2) guest_boot2 "${3:?kernel release}" ;;
	*) echo "fleet_test.sh: --guest takes boot1 or boot2" >&2; exit 64 ;;
	esac
	exit $failed
fi

# ----------------------------------------------------------------- host --

. "$(dirname "$0")/../tools/kernel/common.sh"
suite=${ZSWB_SUITE:-bookworm}
case $suite in
bookworm) major=12 ;;
trixie) major=13 ;;
*) zswb_die "ZSWB_SUITE=$suite: use bookworm (default) or trixie" ;;
esac
zswb_need dpkg e2fsprogs
zswb_dirs || exit 1

TESTS="boot kernel-debs pkg-install dkms-built modprobe boot-load boot-params zswbctl-status purge purge-files purge-dkms vm-clean"
declare -A DESC=(
	[boot]="the Debian $major ($suite) image boots the kernel and runs the test"
	[kernel-debs]="dpkg -i the kernel's linux-image and linux-headers"
	[pkg-install]="dpkg -i zswap-wb-dkms and zswbctl"
	[dkms-built]="DKMS built and installed zswap_wb for the running kernel"
	[modprobe]="modprobe loads the DKMS module from updates/dkms, modprobe -r removes it"
	[boot-load]="after a reboot, /etc/modules-load.d loaded zswap_wb"
	[boot-params]="after a reboot, the /etc/modprobe.d options are in effect"
	[zswbctl-status]="zswbctl status shows the settings"
	[purge]="zswbctl unload and dpkg --purge $PKGS"
	[purge-files]="nothing that dpkg -L listed is left"
	[purge-dkms]="no /usr/src/zswap_wb-*, /var/lib/dkms/zswap_wb, updates/dkms/zswap_wb.ko left"
	[vm-clean]="every boot ended with a status and no kernel splat"
)
declare -A RES WHY

t=$(mktemp -d "${TMPDIR:-/tmp}/zswb-fleet.XXXXXX")
trap 'rm -rf "$t"' EXIT
begin=$(date +%s)

# newest GLOB: the newest file matching GLOB in the package directories.
if [ "$suite" = bookworm ]; then
	dirs=${ZSWB_FLEET_DEBS:-$ZSWB_CACHE/deb $ZSWB_CACHE/kernel-deb $HOME/.cache/zswap_wb-deb/kernel-deb}
else
	dirs=${ZSWB_FLEET_DEBS:-$ZSWB_CACHE/$suite/deb $ZSWB_CACHE/$suite/kernel-deb}
fi
newest() {
	local d
	for d in $dirs; do
		ls -1t "$d"/$1 2>/dev/null
	done | xargs -r ls -1t 2>/dev/null | head -1
}
image=$(newest 'linux-image-*zswap-wb*_amd64.deb' | grep -v -- '-dbg_' || true)
krel="" missing=""
if [ -n "$image" ]; then
	krel=$(dpkg-deb -f "$image" Package | sed 's/^linux-image-//')
	headers=$(newest "linux-headers-${krel}_*_amd64.deb")
	[ -n "$headers" ] || missing="linux-headers-$krel (make kernel-deb)"
else
	missing="linux-image-*-zswap-wb (make kernel-deb)"
fi
dkmsdeb=$(newest 'zswap-wb-dkms_*_all.deb')
ctldeb=$(newest 'zswbctl_*_amd64.deb')
[ -n "$dkmsdeb" ] || missing="${missing:+$missing, }zswap-wb-dkms (make deb)"
[ -n "$ctldeb" ] || missing="${missing:+$missing, }zswbctl (make deb)"

. "$ZSWB_TOP/selftests/ktap.sh"
ktap_print_header
ktap_set_plan "$(echo $TESTS | wc -w)"
# The guest image with the shared libraries zswbctl depends on (dpkg -i
# does not fetch them), as its package names them.
ctl_libs=
[ -z "$ctldeb" ] || ctl_libs=$(dpkg-deb -f "$ctldeb" Depends | tr ',' '\n' |
	sed 's/|.*//; s/(.*//' | awk '$1 != "libc6" && $1 != "" { print $1 }' | tr '\n' ' ')
img=$(ZSWB_ROOTFS_NAME=rootfs-fleet ZSWB_ROOTFS_EXTRA="$ctl_libs" \
	bash "$ZSWB_TOP/tools/vm/mkrootfs.sh" 2> "$t/mkrootfs.log")
if [ -z "$img" ]; then
	sed 's/^/# /' "$t/mkrootfs.log"
	RES[boot]=fail
fi

mkdir -p "$t/payload"
cp "$0" "$t/payload/fleet_test.sh"
if [ -z "$missing" ]; then
	mkdir -p "$t/payload/debs" "$t/k"
	cp "$image" "$headers" "$dkmsdeb" "$ctldeb" "$t/payload/debs/"
	for f in "$image" "$headers" "$dkmsdeb" "$ctldeb"; do echo "# using $f"; done
	# Boot what the package installs, as a fleet machine would.
	dpkg-deb -x "$image" "$t/k"
	kernel=$t/k/boot/vmlinuz-$krel
	[ -f "$kernel" ] || { echo "# no /boot/vmlinuz-$krel in $image"; RES[boot]=fail; }
else
	echo "# missing packages: $missing; testing the image's boot only"
	kernel=$ZSWB_OBJ/arch/x86/boot/bzImage
	krel=$(zswb_kernelrelease)
	[ -f "$kernel" ] || { echo "# no $kernel: run 'make kernel'"; RES[boot]=fail; }
fi

# vmboot N TIMEOUT: boot N of the image, the overlay kept across boots.
vmstatus=""
vmboot() {
	local rc s
	s=$(date +%s)
	bash "$ZSWB_TOP/tools/vm/run.sh" --kernel "$kernel" --rootfs "$img" \
		--overlay "$t/root.qcow2" --payload "$t/payload" --timeout "$2" \
		--mem "${ZSWB_VM_MEM:-2048}" \
		--cmd "bash ./fleet_test.sh --guest boot$1 $krel $major" > "$t/boot$1.raw" 2>&1
	rc=$?
	# The serial console ends its lines with CR LF.
	tr -d '\r' < "$t/boot$1.raw" > "$t/boot$1.log"
	echo "# boot $1: $(( $(date +%s) - s )) s, status $rc"
	grep -E '^# ' "$t/boot$1.log"
	while read -r _ id r why; do
		RES[$id]=$r WHY[$id]=$why
	done < <(grep -E '^fleet-result ' "$t/boot$1.log")
	vmstatus="$vmstatus $rc"
	# 0: all passed, 1: a test failed. Anything else is the kernel or the VM.
	if [ $rc != 0 ] && [ $rc != 1 ]; then
		echo "# boot $1 ended with status $rc; console tail:"
		grep -Ev '^(fleet-result|# )' "$t/boot$1.log" | tail -25 | sed 's/^/# /'
		RES[vm-clean]=fail
	fi
}

if [ -z "${RES[boot]:-}" ]; then
	vmboot 1 "${ZSWB_FLEET_TIMEOUT:-2400}"
	if [ -z "$missing" ] && [ "${RES[boot]:-}" = ok ]; then
		vmboot 2 900
	fi
	[ -n "${RES[vm-clean]:-}" ] || RES[vm-clean]=ok
else
	RES[vm-clean]=skip WHY[vm-clean]="no boot"
fi

for id in $TESTS; do
	r=${RES[$id]:-}
	if [ -z "$r" ] && [ -n "$missing" ] && [ "$id" != boot ] && [ "$id" != vm-clean ]; then
		r=skip WHY[$id]="no package $missing"
	fi
	case "$r" in
	ok) ktap_test_pass "${DESC[$id]}" ;;
	skip) ktap_print_msg "${WHY[$id]}"; ktap_test_skip "${DESC[$id]}" ;;
	fail) ktap_test_fail "${DESC[$id]}" ;;
	*) ktap_test_fail "${DESC[$id]} (no result: the guest did not get there)" ;;
	esac
done
echo "# fleet test ($suite): $(( $(date +%s) - begin )) s, boot statuses:${vmstatus:- none}"
ktap_counts
[ "$KTAP_CNT_FAIL" = 0 ]
