#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's Debian root filesystem, Debian 12 (bookworm) or, with
# ZSWB_SUITE=trixie, Debian 13: an ext4 image made with mmdebstrap from the
# Debian archive that apt on this machine is configured with, with systemd
# as init, and cached outside the repository as $ZSWB_CACHE/rootfs-<hash>.img
# (rootfs-trixie-<hash>.img for trixie; hash of the suite, the package list
# and this script): it is only rebuilt when one of them changes, and
# replaces the older images of its name. Prints its path.
#
#   tools/vm/mkrootfs.sh [--modules] [--sources] [--force]
#
#   --modules   also write $ZSWB_CACHE/rootfs-<hash>-modules.img: the image
#               with the built test kernel's modules and module/zswap_wb.ko
#               (in updates/), remade on every call; prints its path instead
#   --sources   print the apt sources the image would be built from, and exit
#   --force     rebuild the cached image
#
# Environment: ZSWB_SUITE, bookworm (default) or trixie, the Debian release;
# a suite that apt has no source for is read from the sources of this
# machine's own release, the suite renamed (bookworm-updates becomes
# trixie-updates). ZSWB_ROOTFS_EXTRA adds packages (benchmarks);
# ZSWB_ROOTFS_NAME names the image instead of "rootfs", so that an image
# with other packages (make bench-apps: rootfs-apps) does not replace the
# default one; a suite other than bookworm is added to the name.
# ZSWB_ROOTFS_FREE_MIB is the free space left in the image (default 3072).
#
# The guest: root on the disk given as root= (tools/vm/run.sh --rootfs), no
# password, autologin on the serial console. At boot the zswb-run unit looks
# for a disk labelled zswb-run (tools/vm/run.sh makes it), mounts it on
# /run/zswb-run, runs its run.sh with the console as output and powers off;
# a shutdown hook hands the script's status to QEMU through vmexit
# (isa-debug-exit). Kernels without AF_UNIX (CONFIG_NET, CONFIG_UNIX), which
# systemd cannot run on, boot it with init=/sbin/zswb-init instead: a shell
# PID 1 that mounts the API filesystems, runs systemd-modules-load as
# systemd would (/etc/modules-load.d, /etc/modprobe.d), then the same
# zswb-run, and powers off.
set -eu
. "$(dirname "$0")/../kernel/common.sh"

# What the image holds. The fleet test needs dkms, a compiler and kmod;
# benchmarks add theirs through ZSWB_ROOTFS_EXTRA (or here, once they are
# part of a test).
ROOTFS_PACKAGES="systemd systemd-sysv udev dbus kmod procps util-linux e2fsprogs
	dkms build-essential libelf1 bc less"
SUITE=${ZSWB_SUITE:-bookworm}
case "$SUITE" in
bookworm|trixie) ;;
*) zswb_die "ZSWB_SUITE=$SUITE: use bookworm (default) or trixie" ;;
esac

modules=0 sources_only=0 force=0
while [ $# -gt 0 ]; do
	case "$1" in
	--modules) modules=1 ;;
	--sources) sources_only=1 ;;
	--force) force=1 ;;
	-h|--help) sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "mkrootfs.sh: unknown argument '$1'" >&2; exit 64 ;;
	esac
	shift
done
free_mib=${ZSWB_ROOTFS_FREE_MIB:-3072}
case "$free_mib" in ''|*[!0-9]*) zswb_die "ZSWB_ROOTFS_FREE_MIB takes MiB, got '$free_mib'" ;; esac
name=${ZSWB_ROOTFS_NAME:-rootfs}
case "$name" in ''|*[!a-z0-9-]*) zswb_die "ZSWB_ROOTFS_NAME takes a-z, 0-9 and -, got '$name'" ;; esac
[ "$SUITE" = bookworm ] || name=$name-$SUITE
packages=$(echo $ROOTFS_PACKAGES ${ZSWB_ROOTFS_EXTRA:-} | tr ' ' '\n' | sort -u | tr '\n' ' ')
packages=${packages% }
case "$packages" in *[!a-z0-9.+\ -]*) zswb_die "bad package name in '$packages'" ;; esac

# apt_sources SUITE: one "deb [signed-by=KEY] URI SUITE main" line for each
# enabled entry of apt's configuration whose suite is SUITE, -updates or
# -security, from one-line .list files and deb822 .sources files alike.
apt_sources() {
	local f
	{
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			awk '$1 == "deb" {
				opts = sb = ""
				if (match($0, /\[[^]]*\]/)) {
					opts = substr($0, RSTART + 1, RLENGTH - 2)
					$0 = substr($0, 1, RSTART - 1) substr($0, RSTART + RLENGTH)
				}
				if (match(opts, /signed-by=[^ ]+/))
					sb = substr(opts, RSTART, RLENGTH)
				print $2, $3, sb
			}' "$f"
		done
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'function flush(   n, s, i, u, us, ss) {
					if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
						n = split(uris, us, " "); s = split(suites, ss, " ")
						for (i = 1; i <= n; i++)
							for (u = 1; u <= s; u++)
								print us[i], ss[u], (sb ~ /^\// ? "signed-by=" sb : "")
					}
					types = uris = suites = sb = ""; enabled = "yes"; key = ""
				}
				BEGIN { enabled = "yes" }
				/^#/ { next }
				/^[ \t]*$/ { flush(); next }
				/^[ \t]/ { next }
				{
					key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
					if (key == "types") types = $0
					else if (key == "uris") uris = $0
					else if (key == "suites") suites = $0
					else if (key == "signed-by") sb = $0
					else if (key == "enabled") enabled = $0
				}
				END { flush() }' "$f"
		done
	} | awk -v s="$1" '$2 == s || $2 == s "-updates" || $2 == s "-security" {
		opt = ($3 != "" ? "[" $3 "] " : "")
		line = "deb " opt $1 " " $2 " main"
		if (!seen[line]++) print line
	}'
}

srcs=$(apt_sources "$SUITE")
host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ -z "$srcs" ] && [ -n "$host" ] && [ "$host" != "$SUITE" ]; then
	srcs=$(apt_sources "$host" | sed -E "s/ $host(-[a-z]+)? main\$/ $SUITE\1 main/")
fi
[ -n "$srcs" ] || zswb_die "apt has no enabled '$SUITE' or '$host' source in /etc/apt/sources.list{,.d/}: cannot build a $SUITE image"
if [ $sources_only = 1 ]; then
	echo "$srcs"
	exit 0
fi

zswb_need mmdebstrap e2fsprogs gcc libc6-dev
mkdir -p "$ZSWB_CACHE"
top=$ZSWB_TOP/tools/vm
hash=$( { echo "$SUITE $packages $free_mib"; cat "$0" "$top/vmexit.c"; } | sha256sum | cut -c1-16)
img=$ZSWB_CACHE/$name-$hash.img
tarball=$ZSWB_CACHE/$name-$hash.tar.gz

work=$(mktemp -d "$ZSWB_CACHE/rootfs-work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The guest side: the run unit, its script, the simple init and the hook
# that ends the VM with the script's status.
customize() {
	local root=$1
	gcc -O2 -Wall -Wextra -Werror -static -o "$root/usr/local/sbin/vmexit" "$top/vmexit.c"
	echo zswb-vm > "$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tzswb-vm\n' > "$root/etc/hosts"
	printf '# root is given on the kernel command line (root=, rw)\n' > "$root/etc/fstab"
	sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"

	cat > "$root/usr/local/sbin/zswb-run" <<'EOF'
#!/bin/bash
# Run the payload of the test VM: the disk labelled zswb-run holds run.sh
# and its files. The script's exit status is left in /run/zswb-status for
# the power-off path (vmexit). With --poweroff, power off when it is done.
# No such disk: nothing to do (an interactive boot).
dev=$(findfs LABEL=zswb-run 2>/dev/null) || exit 0
mkdir -p /run/zswb-run
mount "$dev" /run/zswb-run || { echo 96 > /run/zswb-status; exit 1; }
# A script that never ends its run fails it.
echo 97 > /run/zswb-status
echo "zswb-vm: running run.sh on $(uname -r), $(nproc) CPUs, $(sed -n 's/MemTotal: *//p' /proc/meminfo), init $(cat /proc/1/comm)"
cd /run/zswb-run && ./run.sh < /dev/null
rc=$?
echo "zswb-vm: run.sh exited $rc"
cd / && umount /run/zswb-run
echo "$rc" > /run/zswb-status
sync
[ "${1:-}" = --poweroff ] && systemctl --no-block poweroff
exit 0
EOF
	cat > "$root/etc/systemd/system/zswb-run.service" <<'EOF'
[Unit]
Description=zswap_wb test VM payload (disk labelled zswb-run)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/zswb-run --poweroff
StandardInput=null
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOF
	# Last step of systemd's power-off, everything unmounted or read-only:
	# leave QEMU with the script's status, or 0 for an interactive boot.
	mkdir -p "$root/usr/lib/systemd/system-shutdown"
	cat > "$root/usr/lib/systemd/system-shutdown/zswb-vmexit" <<'EOF'
#!/bin/sh
[ "$1" = poweroff ] || exit 0
st=$(cat /run/zswb-status 2>/dev/null)
exec /usr/local/sbin/vmexit "${st:-0}"
EOF
	cat > "$root/sbin/zswb-init" <<'EOF'
#!/bin/bash
# PID 1 for a kernel that systemd cannot run on (no AF_UNIX): mount the API
# filesystems, load the modules of /etc/modules-load.d with systemd's own
# systemd-modules-load (options from /etc/modprobe.d), run the payload
# (zswb-run) or a root shell, and power off with the status.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
# What systemd adds to devtmpfs: bash's <(...) and dkms need /dev/fd.
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/lock
mount -o remount,rw /
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
hostname -F /etc/hostname
/lib/systemd/systemd-modules-load || echo "zswb-init: systemd-modules-load failed"
if findfs LABEL=zswb-run >/dev/null 2>&1; then
	/usr/local/sbin/zswb-run
else
	echo "zswb-init: no payload: root shell; 'poweroff' or 'vmexit N' leaves"
	setsid -c bash -l < /dev/console > /dev/console 2>&1
fi
st=$(cat /run/zswb-status 2>/dev/null)
sync
mount -o remount,ro / 2>/dev/null
exec vmexit "${st:-0}"
EOF
	chmod 0755 "$root/usr/local/sbin/zswb-run" "$root/sbin/zswb-init" \
		"$root/usr/lib/systemd/system-shutdown/zswb-vmexit"
	# An interactive boot logs root in on the serial console.
	mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
	cat > "$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=-/sbin/agetty -o '-p -f -- \\u' --keep-baud --autologin root 115200,57600,38400,9600 - $TERM
EOF
	printf 'poweroff() { systemctl poweroff 2>/dev/null || vmexit 0; }\n' >> "$root/root/.bashrc"
	chroot "$root" systemctl enable zswb-run.service >/dev/null 2>&1
	# No network, and nothing periodic in the middle of a measurement.
	chroot "$root" systemctl mask apt-daily.timer apt-daily-upgrade.timer \
		e2scrub_all.timer e2scrub_reap.service fstrim.timer \
		systemd-timesyncd.service getty@tty1.service >/dev/null 2>&1
}

# mkimage DIR IMG: an ext4 image of DIR with $free_mib MiB to spare.
mkimage() {
	local used
	used=$(du -sm "$1" | cut -f1)
	rm -f "$2.tmp"
	truncate -s "$((used + used / 10 + free_mib))M" "$2.tmp"
	mkfs.ext4 -q -F -L zswb-root -d "$1" "$2.tmp"
	mv "$2.tmp" "$2"
}

if [ $force = 1 ] || [ ! -f "$img" ] || [ ! -f "$tarball" ]; then
	start=$(date +%s)
	conf=$work/apt.conf
	# apt's own settings for reaching the archive (proxies, snapshot dates).
	apt-config dump | grep -E '^Acquire::((https?|ftp)::Proxy|Check-Valid-Until|Check-Date|Retries)' > "$conf" || true
	echo "building the $SUITE image ($packages) from:" >&2
	echo "$srcs" | sed 's/^/  /' >&2
	mapfile -t mirrors <<< "$srcs"
	mmdebstrap --mode=root --variant=apt --format=directory --aptopt="$conf" \
		--include="${packages// /,}" -q "$SUITE" "$work/root" "${mirrors[@]}" >&2 ||
		zswb_die "mmdebstrap failed"
	customize "$work/root"
	tar -C "$work/root" --numeric-owner --xattrs -czf "$tarball.tmp" .
	mkimage "$work/root" "$img"
	mv "$tarball.tmp" "$tarball"
	rm -rf "$work/root"
	# The older images of this name only: NAME-<16 hex digits>[-modules].
	h16=$(printf '[0-9a-f]%.0s' $(seq 16))
	for old in "$ZSWB_CACHE/$name"-$h16.img "$ZSWB_CACHE/$name"-$h16-modules.img \
		   "$ZSWB_CACHE/$name"-$h16.tar.gz; do
		case "$old" in "$img"|"$tarball"|"$ZSWB_CACHE/$name-$hash-"*) ;; *) rm -f "$old" ;; esac
	done
	echo "built $img in $(( $(date +%s) - start )) s: $(du -m --apparent-size "$img" | cut -f1) MiB," \
		"$(du -m "$img" | cut -f1) MiB used, tarball $(du -m "$tarball" | cut -f1) MiB" >&2
fi

if [ $modules = 1 ]; then
	zswb_need kmod
	zswb_dirs
	krel=$(zswb_kernelrelease)
	[ -n "$krel" ] && [ -d "$ZSWB_MODINST/lib/modules/$krel" ] ||
		zswb_die "no built kernel modules in $ZSWB_MODINST: run 'make kernel'"
	ko=${ZSWB_KO:-$ZSWB_TOP/module/zswap_wb.ko}
	[ -f "$ko" ] || zswb_die "no $ko: run 'make module'"
	mkdir "$work/root"
	tar -C "$work/root" --numeric-owner --xattrs -xzf "$tarball"
	mkdir -p "$work/root/lib/modules"
	# Not while tools/kernel/build.sh reinstalls them.
	flock -s "$ZSWB_OBJ/.build.lock" cp -a "$ZSWB_MODINST/lib/modules/$krel" "$work/root/lib/modules/"
	rm -f "$work/root/lib/modules/$krel/build" "$work/root/lib/modules/$krel/source"
	mkdir -p "$work/root/lib/modules/$krel/updates"
	cp "$ko" "$work/root/lib/modules/$krel/updates/"
	depmod -b "$work/root" "$krel"
	img=$ZSWB_CACHE/$name-$hash-modules.img
	mkimage "$work/root" "$img"
fi
echo "$img"
