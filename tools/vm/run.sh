#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the hooked kernel in QEMU and run a script in it.
#
#   tools/vm/run.sh [options] [--script FILE | --cmd 'COMMANDS' | --shell]
#
# The VM has 2 vCPUs (--smp) in 2 NUMA nodes and three disks for swap: a virtio-blk
# disk (/dev/vda), an NVMe disk (/dev/nvme0n1) and an ext4 disk (/dev/vdb)
# for a swap file; zram and brd are in the guest kernel. The guest's exit
# status becomes ours; a guest that runs past --timeout is killed and the
# run fails (124), after the guest was asked (magic SysRq through QEMU's
# monitor) to print its blocked tasks and every CPU's backtrace on the
# console; a console that shows a kernel BUG, WARNING, KASAN report, hung
# task, lockdep splat or panic fails the run (99) whatever the script
# returned (tools/vm/console_check.sh, with the WARNs a fault-injection
# test may provoke).
#
# Options:
#   --mem MiB        guest RAM, split between the nodes (default 2048)
#   --smp N          N vCPUs, an even number from 2 to 16, half on each node
#                    (default 2)
#   --timeout S      kill the guest after S seconds (default 900)
#   --append ARGS    extra kernel command line
#   --accel A        auto (default: probe KVM, fall back to TCG), kvm or tcg
#   --icount S       TCG with guest time counted in instructions executed,
#                    2^S ns each (QEMU -icount shift=S,sleep=on): the time
#                    and CPU time a guest measures then follow the work it
#                    did, whatever else the host runs; idle time still
#                    passes as the host's (I/O)
#   --log FILE       also write the console to FILE
#   --disk-mib N     size of each swap disk (default 1024)
#   --kernel FILE    boot FILE instead of the built test kernel
#   --rootfs IMG     boot the Debian image IMG (tools/vm/mkrootfs.sh) instead
#                    of the busybox initramfs; IMG is not written to
#   --overlay FILE   with --rootfs: keep the guest's writes in FILE (qcow2 over
#                    IMG, made if missing), so that a later run boots again
#                    what this one left (a reboot); default: a throw-away one
#   --payload DIR    with --rootfs: DIR's files go beside the script
#   --fwd PORT[:GPORT] a virtio-net NIC on QEMU's user network, the host's
#                    127.0.0.1:PORT forwarded to the guest's GPORT (default
#                    PORT; make check-prometheus scrapes through it); none
#                    by default
#   --init I         with --rootfs: systemd, simple (/sbin/zswb-init, for a
#                    kernel without AF_UNIX) or auto (default: from the
#                    kernel's config, CONFIG_UNIX)
# With --rootfs the disks are the same, the image is /dev/vdc (root) and the
# script with its payload is on /dev/vdd (label zswb-run), run from
# /run/zswb-run after boot; --shell logs root in on the console.
# Environment: ZSWB_ACCEL overrides --accel; ZSWB_QEMU_EXTRA adds QEMU args;
# ZSWB_INITRD boots another initramfs than the one make initramfs builds;
# ZSWB_TCG_THREAD=multi asks for multi-threaded TCG. It is not the default:
# under it, a vCPU can run a stale translation of kernel text that another
# vCPU patched with text_poke_bp() (static keys flipped under load), and the
# guest dies on an "Oops: int3" that single-threaded TCG and KVM never show.
set -eu
. "$(dirname "$0")/../kernel/common.sh"

mem=2048 smp=2 timeout=900 append="" accel=${ZSWB_ACCEL:-auto} log="" disk_mib=1024 icount=""
script="" cmd="" shell=0 stdin=/dev/null fg=""
kernel="" rootfs="" overlay="" payload="" init=auto fwd=""
usage() { sed -n '4,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-64}"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--accel) [ -n "${ZSWB_ACCEL:-}" ] || accel=$2; shift 2 ;;
	--log) log=$2; shift 2 ;;
	--disk-mib) disk_mib=$2; shift 2 ;;
	--script) script=$2; shift 2 ;;
	--cmd) cmd=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--rootfs) rootfs=$2; shift 2 ;;
	--overlay) overlay=$2; shift 2 ;;
	--payload) payload=$2; shift 2 ;;
	--init) init=$2; shift 2 ;;
	--fwd) fwd=$2; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; usage ;;
	esac
done
case "$mem" in ''|*[!0-9]*) zswb_die "--mem takes MiB, got '$mem'" ;; esac
[ "$mem" -ge 256 ] || zswb_die "--mem must be at least 256 MiB"
case "$smp" in 2|4|6|8|10|12|14|16) ;; *) zswb_die "--smp takes an even number of vCPUs from 2 to 16, got '$smp'" ;; esac
# Half of the vCPUs on each node: "0" and "1" for 2, "0-3" and "4-7" for 8.
node0_cpus=0 node1_cpus=$((smp / 2))
[ "$smp" = 2 ] || node0_cpus=0-$((smp / 2 - 1)) node1_cpus=$((smp / 2))-$((smp - 1))
case "$timeout" in ''|*[!0-9]*) zswb_die "--timeout takes seconds, got '$timeout'" ;; esac
case "$accel" in auto|kvm|tcg) ;; *) zswb_die "--accel is auto, kvm or tcg, got '$accel'" ;; esac
case "$icount" in
'') ;;
[0-9]|10) accel=tcg ;;
*) zswb_die "--icount takes a shift of 0 to 10 (ns per instruction = 2^shift), got '$icount'" ;;
esac
[ -z "$script" ] || [ -f "$script" ] || zswb_die "no script $script"
case "$fwd" in
'') nic="-nic none" ;;
*[!0-9:]*|:*|*:|*:*:*) zswb_die "--fwd takes PORT or PORT:GUESTPORT, got '$fwd'" ;;
*) nic="-nic user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:${fwd%%:*}-:${fwd#*:}" ;;
esac
for p in ${fwd%%:*} ${fwd#*:}; do
	[ "$((10#$p))" -ge 1 ] && [ "$((10#$p))" -le 65535 ] || zswb_die "--fwd: port $p is not 1 to 65535"
done
case "$init" in auto|systemd|simple) ;; *) zswb_die "--init is auto, systemd or simple, got '$init'" ;; esac
if [ -n "$rootfs" ]; then
	[ -f "$rootfs" ] || zswb_die "no image $rootfs: run tools/vm/mkrootfs.sh"
	[ -z "$payload" ] || [ -d "$payload" ] || zswb_die "no payload directory $payload"
else
	[ -z "$overlay$payload" ] && [ "$init" = auto ] ||
		zswb_die "--overlay, --payload and --init go with --rootfs"
fi
zswb_need qemu-system-x86 e2fsprogs cpio
[ -z "$rootfs" ] || zswb_need qemu-utils

zswb_dirs
[ -n "$kernel" ] || kernel=$ZSWB_OBJ/arch/x86/boot/bzImage
initrd=${ZSWB_INITRD:-$ZSWB_OBJ/zswb-initramfs.cpio.gz}
[ -f "$kernel" ] || zswb_die "no $kernel: run 'make kernel'"
[ -n "$rootfs" ] || [ -f "$initrd" ] || zswb_die "no $initrd: run tools/vm/mkinitramfs.sh"
# systemd needs AF_UNIX; a kernel without it boots the image's simple init.
# The config is the built tree's, or the one a Debian kernel package put
# beside its image (/boot/config-*).
if [ -n "$rootfs" ] && [ "$init" = auto ]; then
	kcfg=$ZSWB_OBJ/.config
	[ "$kernel" = "$ZSWB_OBJ/arch/x86/boot/bzImage" ] ||
		kcfg=$(dirname "$kernel")/config-$(basename "$kernel" | sed 's/^vmlinuz-//')
	if [ -f "$kcfg" ] && ! grep -q '^CONFIG_UNIX=y' "$kcfg"; then
		init=simple
	else
		init=systemd
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zswb-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Pack the script as /run.sh into a second cpio archive; the kernel
# unpacks both.
mkrun() {
	mkdir -p "$work/run"
	if [ -n "$script" ]; then
		cp "$script" "$work/run/run.sh"
	elif [ -n "$cmd" ]; then
		printf '#!/bin/sh\n%s\n' "$cmd" > "$work/run/run.sh"
	fi
	[ -f "$work/run/run.sh" ] && chmod 0755 "$work/run/run.sh"
	if [ -n "$rootfs" ]; then
		# The payload disk; none for an interactive shell.
		rm -f "$work/run.img"
		[ -f "$work/run/run.sh" ] || return 0
		[ -z "$payload" ] || cp -r "$payload"/. "$work/run/"
		truncate -s "$(( $(du -sm "$work/run" | cut -f1) + 64 ))M" "$work/run.img"
		mkfs.ext4 -q -F -L zswb-run -d "$work/run" "$work/run.img"
		return 0
	fi
	(cd "$work/run" && find . | cpio -o -H newc --quiet) > "$work/run.cpio"
	cat "$initrd" > "$work/initrd"
	gzip -1 < "$work/run.cpio" >> "$work/initrd"
}

# The kernel's hang detectors, with room for emulation: under TCG a guest
# runs tens of times slower than on hardware, and a task that waits a
# second for swap I/O there may wait a minute here. A real hang lasts
# until the timeout, so these still catch it.
watchdogs="sysctl.kernel.hung_task_timeout_secs=120 watchdog_thresh=30 workqueue.watchdog_thresh=120"
# The debug kernel boots with 4-level paging: with 5-level paging (QEMU's
# -cpu max has LA57) its KASAN reports a false wild-memory-access when an
# interrupt lands in identify_cpu() while the boot CPU's capabilities are
# cleared (pgtable_l5_enabled() then reads false, so KASAN_SHADOW_START
# moves; "kasan: Fix false-positive wild-memory-access on x86 under
# 5-level paging", linux-mm, June 2026). Seen once, before any module.
paging=""
[ "${ZSWB_FLAVOUR:-}" != debug ] || paging=no5lvl
# The debug kernel tracks page owners, which the selftests' host load
# (selftests/zswap_wb/hostload.sh) reads with ZSWB_TEST_HOSTLOAD_PAGE_OWNER=1
# (off by default: 6.12.117's read_page_owner() oopses by itself).
[ "${ZSWB_FLAVOUR:-}" != debug ] || paging="$paging page_owner=on"

# sysrq KEY: press Alt+SysRq+KEY on the guest's keyboard.
sysrq() {
	echo "sendkey alt-sysrq-$1" > "$work/mon.in"
}

# boot ACCEL TIMEOUT CONSOLE_FILE [nodump]: run QEMU, return its mapped
# status. At TIMEOUT the guest dumps its state; it is killed 15 s later.
boot() {
	local acc=$1 t=$2 out=$3 dump=${4:-dump} half=$((mem / 2)) rc accargs watcher
	local bootargs="-initrd $work/initrd" cmdline="" disks=""
	if [ "$acc" = kvm ]; then
		accargs="-accel kvm -cpu host"
	else
		accargs="-accel tcg,thread=${ZSWB_TCG_THREAD:-single} -cpu max"
		# icount needs single-threaded TCG.
		[ -z "$icount" ] || accargs="-accel tcg,thread=single -cpu max -icount shift=$icount,sleep=on"
	fi
	truncate -s "${disk_mib}M" "$work/vda.img" "$work/nvme.img"
	if [ ! -f "$work/fs.img" ]; then
		truncate -s "$((disk_mib + 256))M" "$work/fs.img"
		mkfs.ext4 -q -F "$work/fs.img"
	fi
	if [ -n "$rootfs" ]; then
		rm -f "$work/root.qcow2"
		if [ -n "$overlay" ] && [ -f "$overlay" ]; then
			ln -s "$(realpath "$overlay")" "$work/root.qcow2"
		else
			qemu-img create -q -f qcow2 -b "$(realpath "$rootfs")" -F raw "${overlay:-$work/root.qcow2}"
			[ -z "$overlay" ] || ln -s "$(realpath "$overlay")" "$work/root.qcow2"
		fi
		bootargs="" cmdline="root=/dev/vdc rw"
		disks="-drive file=$work/root.qcow2,if=none,id=r0,format=qcow2,cache=unsafe -device virtio-blk-pci,drive=r0"
		if [ -f "$work/run.img" ]; then
			disks="$disks -drive file=$work/run.img,if=none,id=r1,format=raw,cache=unsafe -device virtio-blk-pci,drive=r1"
			# The console is the script's: no login prompt, only failed units.
			cmdline="$cmdline systemd.mask=serial-getty@ttyS0.service systemd.show_status=error"
		fi
		[ "$init" = simple ] && cmdline="$cmdline init=/sbin/zswb-init"
	fi
	rm -f "$work/mon.in" "$work/mon.out"
	mkfifo "$work/mon.in" "$work/mon.out"
	if [ "$dump" = dump ]; then
		(
			# The sleep goes when we do, and is not on our stdout: a
			# pipe reader would wait for it.
			sleep "$t" </dev/null >/dev/null 2>&1 &
			trap 'kill $! 2>/dev/null; exit 0' TERM
			wait $!
			echo "run.sh: no end after ${t}s: the guest's blocked tasks (SysRq w) and CPUs (SysRq l) follow" >&2
			sysrq w
			sleep 3
			sysrq l
		) &
		watcher=$!
	fi
	set +e
	# shellcheck disable=SC2086
	timeout $fg -k 5 "$((t + 15))" qemu-system-x86_64 $accargs -m "$mem" -smp $smp,sockets=2,cores=$((smp / 2)),threads=1 \
		-object memory-backend-ram,id=m0,size=${half}M \
		-object memory-backend-ram,id=m1,size=$((mem - half))M \
		-numa node,nodeid=0,cpus=$node0_cpus,memdev=m0 \
		-numa node,nodeid=1,cpus=$node1_cpus,memdev=m1 \
		-kernel "$kernel" $bootargs \
		-append "console=ttyS0 panic=-1 loglevel=5 $watchdogs $paging $cmdline $append" \
		-drive file="$work/vda.img",if=none,id=d0,format=raw,cache=unsafe \
		-device virtio-blk-pci,drive=d0 \
		-drive file="$work/fs.img",if=none,id=d1,format=raw,cache=unsafe \
		-device virtio-blk-pci,drive=d1 \
		-drive file="$work/nvme.img",if=none,id=n0,format=raw,cache=unsafe \
		-device nvme,serial=swap0,drive=n0 $disks \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 $nic \
		-display none -serial stdio -monitor pipe:"$work/mon" -no-reboot \
		${ZSWB_QEMU_EXTRA:-} < "$stdin" > >(tee "$out") 2>&1
	rc=$?
	[ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null
	set -e
	wait
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "run.sh: guest killed after ${t}s timeout" >&2
		return 124
	fi
	# QEMU's own failure to start (a port forward refused, say) is also
	# status 1, as a guest that exits 0: then the console has nothing but
	# QEMU's messages.
	if [ $rc = 1 ] && ! grep -v '^qemu-system-x86_64: ' "$out" | grep -q '[^[:space:]]'; then
		echo "run.sh: QEMU did not start the guest" >&2
		return 98
	fi
	if [ $((rc & 1)) = 1 ]; then
		return $((rc >> 1))
	fi
	echo "run.sh: guest ended without reporting a status (qemu exit $rc)" >&2
	return 98
}

# KVM is only used when a short boot under it really completes: nested KVM
# on some hosts hangs in kernel decompression.
pick_accel() {
	local cache=$ZSWB_CACHE/accel-probe key
	if [ "$accel" != auto ]; then
		echo "$accel"
		return
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	key="$(uname -r) $(grep -m1 'model name' /proc/cpuinfo)"
	if [ -f "$cache" ] && [ "$(sed -n 2p "$cache")" = "$key" ]; then
		sed -n 1p "$cache"
		return
	fi
	local save_script=$script save_cmd=$cmd save_overlay=$overlay found=tcg
	script="" cmd="echo zswb-kvm-probe-ok" overlay=""
	mkrun
	if boot kvm 30 "$work/probe.log" nodump >/dev/null 2>&1 &&
	   grep -q zswb-kvm-probe-ok "$work/probe.log"; then
		found=kvm
	fi
	script=$save_script cmd=$save_cmd overlay=$save_overlay
	printf '%s\n%s\n' "$found" "$key" > "$cache"
	echo "$found"
}

acc=$(pick_accel)
mkrun
# The guest's console reads our terminal only for an interactive shell.
# timeout(1) must leave it in the foreground, or reading the terminal stops it.
fg=""
[ $shell = 1 ] && stdin=/dev/stdin fg=--foreground
kver=$(zswb_kernelrelease)
[ "$kernel" = "$ZSWB_OBJ/arch/x86/boot/bzImage" ] || kver=$kernel
echo "run.sh: $kver, accel $acc${icount:+ icount $icount}, ${mem} MiB, timeout ${timeout}s${rootfs:+, $(basename "$rootfs"), init $init}" >&2
status=0
boot "$acc" "$timeout" "$work/console.log" || status=$?
[ -n "$log" ] && cp "$work/console.log" "$log"
# The console's kernel problems (console_check.sh, which also says which
# WARNs a fault-injection test may provoke) fail the run.
if ! problems=$(bash "$(dirname "$0")/console_check.sh" "$work/console.log" \
		"$ZSWB_SRC/kernel/jump_label.c"); then
	echo "run.sh: the kernel reported a problem:" >&2
	printf '%s\n' "$problems" | head -20 >&2
	[ "$status" = 0 ] && status=99
fi
exit "$status"
