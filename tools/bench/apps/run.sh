#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-apps (make bench BENCH=apps): every policy on real applications
# from Debian packages, in the Debian 12 guest, in one VM boot.
#
#   tools/bench/apps/run.sh [--plan] [COMPARISON...]   default: build redis mariadb
#
# COMPARISON is WORKLOAD:KIND (WORKLOAD build, redis or mariadb; KIND disk
# or zram) or WORKLOAD, for both kinds. With two host cores
# (ZSWB_BENCH_JOBS, common.conf), the comparisons are split over two VMs
# that run at once, one per core, longest first, each to the VM with less
# work so far (tools/lib/lanes.sh): a comparison weighs its seconds as
# last measured on this machine, kept in $ZSWB_CACHE/apps-seconds, or if
# never measured its runs times the median guest seconds of a run of its
# workload in bench-results/ (work() below). Each VM has its own boot, its
# own copy of the image and payload, and runs whole comparisons, so that
# the other VM's load falls on stock and policies alike. --plan prints
# which VM would run what ("vmN: COMPARISON... (SECONDS s)") and stops.
#
# Builds the guest image with the benchmark's packages (tools/vm/mkrootfs.sh,
# image rootfs-apps, cached: rebuilt only when its package list changes),
# with the test kernel's modules and zswap_wb; a payload with the build
# workload (part of the test kernel's build, tools/bench/apps/kbuild.sh),
# the Redis data generator (redisgen.c, built static), zswbctl (built
# static) and the guest scripts (apps.sh, which compares the policies
# through zswbctl ab, and workload.sh, one run, which says what is run and
# measured); boots it once, prints each run's figures and each comparison's
# report as they come, then the table (tools/bench/report.py apps): per
# workload and policy, zswbctl ab's medians, ratios, noise and verdict
# against the stock runs of its swap kind. Log in bench-results/apps.log,
# each comparison's runs in bench-results/apps-WORKLOAD-KIND.csv (zswbctl
# ab --csv), medians in bench-results/apps.json, {workload: {variant:
# {metric: median}}}. With two VMs, each one's console is in
# bench-results/apps-vmN.log and apps.log is the two, one after the other.
#
# The guest runs with QEMU's icount (tools/vm/run.sh --icount): its clock
# counts the instructions it executes, so that the times it measures follow
# the work done and not what the host's other jobs leave of a core.
#
# Knobs: ZSWB_BENCH_ICOUNT in tools/bench/config/common.conf, this
# benchmark's (ZSWB_APPS_ROUNDS: ab's --pairs...) in apps.conf, with their defaults; the
# guest's (ZSWB_APPS_BUILD_*, _REDIS_*, _DB_*, _VARIANTS) are passed
# on when the environment sets them, and apps.sh reads the same files.
set -eu
. "$(dirname "$0")/../../kernel/common.sh"
. "$ZSWB_TOP/tools/lib/lanes.sh"
zswb_need python3 gcc libc6-dev
cd "$ZSWB_TOP"
begin=$(date +%s)
. tools/bench/config/common.conf
. tools/bench/config/apps.conf
iter=$ZSWB_APPS_ROUNDS
plan=0
[ "${1:-}" != --plan ] || { plan=1; shift; }
comps=$(apps_comparisons "$@") || exit 1
jobs=$(zswb_bench_jobs) || exit 1
TIMES=$ZSWB_CACHE/apps-seconds
# work COMPARISON: its runs (ab's warm-up, the A/A pair and the runs of
# each pair) times the guest seconds of one run of its workload: the
# median wall_s of bench-results/apps-WORKLOAD-KIND.csv, or a minute
# without one.
work() {
	local wl=${1%:*} kind=${1#*:} sides=0 v all s m
	all=APPS_SIDES_$kind
	for v in ${!all}; do
		case " $ZSWB_APPS_VARIANTS " in *" $v "*) sides=$((sides + 1)) ;; esac
	done
	s=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") c = i; next }
		c && $c ~ /^[0-9.]+$/ { print $c }' "bench-results/apps-$wl-$kind.csv" 2>/dev/null |
		sort -n | awk '{ v[NR] = $1 } END { print NR ? int(v[int((NR + 1) / 2)] + 0.5) : 60 }')
	# a pair: each side after A once, and an A run beside every two of
	# them (zswbctl ab's order: A B C A D E A F)
	m=$((sides - 1))
	echo $(( (3 + iter * (m + (m + 1) / 2 + (m % 2 == 0))) * s ))
}
# One VM: the comparisons in the order given. Two: longest first, each to
# the VM with less work so far.
lanes=$(for c in $comps; do
	echo "$c $(work "$c")"
done | if [ "$jobs" -ge 2 ] && [ "$(echo $comps | wc -w)" -ge 2 ]; then
	lanes_order "$TIMES" | lanes_plan 2
else
	lanes_weigh "$TIMES" | lanes_plan 1
fi)
w1=$(echo "$lanes" | sed -n '1s/ .*//p') lane1=$(echo "$lanes" | sed -n '1s/^[0-9]*//p')
w2=$(echo "$lanes" | sed -n '2s/ .*//p') lane2=$(echo "$lanes" | sed -n '2s/^[0-9]*//p')
if [ "$plan" = 1 ]; then
	echo "vm1:$lane1 ($w1 s)"
	[ -z "$lane2" ] || echo "vm2:$lane2 ($w2 s)"
	exit 0
fi
# A directory (ending in /) stands for every object gcc built in it.
zswb_dirs
objects=""
for o in $ZSWB_APPS_OBJECTS; do
	case "$o" in
	*/) objects="$objects $(cd "$ZSWB_OBJ" && grep -l "^source_" "$o".*.o.cmd 2>/dev/null |
		sed 's|/\.\([^/]*\)\.cmd$|/\1|' | grep -v '\.mod\.o$' | sort | tr '\n' ' ')" ;;
	*) objects="$objects $o" ;;
	esac
done
timeout=$ZSWB_APPS_TIMEOUT
icount="--icount $ZSWB_BENCH_ICOUNT"
[ "$ZSWB_BENCH_ICOUNT" != off ] || icount=""
log=bench-results/apps.log
mkdir -p bench-results

img=$(ZSWB_ROOTFS_NAME=rootfs-apps ZSWB_ROOTFS_EXTRA="redis-server redis-tools mariadb-server sysbench" \
	bash tools/vm/mkrootfs.sh --modules)
t_img=$(date +%s)

payload=$(mktemp -d "${TMPDIR:-/tmp}/zswb-apps.XXXXXX")
trap 'rm -rf "$payload"' EXIT
bash tools/bench/apps/kbuild.sh "$payload/kbuild" $objects
gcc -O2 -Wall -Wextra -Werror -static -o "$payload/redisgen" tools/bench/apps/redisgen.c
make -s -C tools/zswbctl zswbctl > /dev/null
cp tools/zswbctl/zswbctl tools/bench/guest/lib.sh tools/vm/guest.sh tools/bench/apps/apps.sh \
	tools/bench/apps/workload.sh "$payload/"
cp -r tools/bench/config "$payload/"

# The guest's knobs, passed on as they are.
knobs=$(env | grep -E '^ZSWB_APPS_(BUILD|REDIS|DB|VARIANTS)[A-Z_]*=' | sed "s/=\(.*\)/='\1'/" | tr '\n' ' ' || true)

st=$(mktemp -d "${TMPDIR:-/tmp}/zswb-apps-st.XXXXXX")
: > "$st/seconds"
trap 'rm -rf "$payload" "$st"' EXIT

# progress PREFIX: the lines of standard input prefixed with PREFIX; the
# seconds of each comparison that succeeds, from its ABSIDES line to
# apps.sh's "# zswbctl ab WORKLOAD KIND: exit 0", added to $st/seconds as
# "WORKLOAD:KIND SECONDS" (lanes_save).
progress() {
	local l c="" t0=0 wl kind
	while IFS= read -r l; do
		l=${l%$'\r'}
		echo "$1$l"
		case "$l" in
		"ABSIDES "*)
			read -r _ wl kind _ <<< "$l"
			c=$wl:$kind t0=$(date +%s) ;;
		"# zswbctl ab ${c/:/ }: exit 0")
			[ -z "$c" ] || echo "$c $(($(date +%s) - t0))" >> "$st/seconds"
			c="" ;;
		esac
	done
}

# vm LANE "N COMPARISON...": an item of lanes_run, whichever lane takes
# it: boot N of the plan, which runs the COMPARISONs; its console in
# bench-results/apps-vmN.log, the lines that tell how it goes (prefixed
# "vmN: " when there are two); its status, the VM's.
vm() {
	local n=${2%% *} pre=""
	set -- "${2#* }"
	[ -z "$lane2" ] || pre="vm$n: "
	# redis-server's own service stays off: the benchmark starts its server.
	bash tools/vm/run.sh $icount --rootfs "$img" --payload "$payload" --timeout "$timeout" \
		--append "systemd.mask=redis-server.service systemd.mask=mariadb.service" \
		--cmd "$knobs bash ./apps.sh $iter $1" 2>&1 |
		tee "bench-results/apps-vm$n.log" |
		grep --line-buffered -E "^#|^ABSIDES|^run.sh|^zswb-vm" | progress "$pre"
	return "${PIPESTATUS[0]}"
}
echo "# image $(basename "$img") ready in $((t_img - begin)) s; ${lane2:+two VMs, }an A/A pair and $iter pairs per comparison:" \
	"${lane1# } (about $((w1 / 60)) minutes)${lane2:+ |$lane2 (about $((w2 / 60)))}"
rm -f bench-results/apps-vm[12].log
# Each VM is one item of the queue: a lane boots it and runs it whole.
mkdir "$st/lanes"
printf '%s\n' "1$lane1" ${lane2:+"2$lane2"} > "$st/lanes/queue"
lanes_run "$(wc -l < "$st/lanes/queue")" "$st/lanes" vm
cat bench-results/apps-vm1.log ${lane2:+bench-results/apps-vm2.log} > "$log" 2>/dev/null || true
status=0
[ ! -s "$st/lanes/failed" ] || status=1
# CPU time of our children (QEMU above all), for a loaded host: the time
# the VMs would take on cores of their own.
times > "$payload/times"
vm_cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$payload/times")
lanes_save "$TIMES" < "$st/seconds" || echo "# cannot save the times in $TIMES" >&2
python3 tools/bench/report.py apps "$log" bench-results/apps.json
end=$(date +%s)
echo "# bench-apps: $((end - begin)) s in all (image $((t_img - begin)) s), VM status $status;" \
	"CPU time of the image build and the VMs: $vm_cpu s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
