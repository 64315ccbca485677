#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-apps (make bench BENCH=apps): every policy on real applications
# from Debian packages, in the Debian 12 guest, in one VM boot.
#
#   tools/bench/apps/run.sh [WORKLOAD...]        default: build redis mariadb
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
# {metric: median}}}.
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
zswb_need python3 gcc libc6-dev
cd "$ZSWB_TOP"
begin=$(date +%s)
. tools/bench/config/common.conf
. tools/bench/config/apps.conf
iter=$ZSWB_APPS_ROUNDS
workloads=${*:-build redis mariadb}
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
echo "# image $(basename "$img") ready in $((t_img - begin)) s; booting it for $workloads, an A/A pair and $iter pairs"
# redis-server's own service stays off: the benchmark starts its server.
set +e
bash tools/vm/run.sh $icount --rootfs "$img" --payload "$payload" --timeout "$timeout" \
	--append "systemd.mask=redis-server.service systemd.mask=mariadb.service" \
	--cmd "$knobs bash ./apps.sh $iter $workloads" |
	tee "$log" | grep --line-buffered -E "^#|^ABSIDES|^run.sh|^zswb-vm"
status=${PIPESTATUS[0]}
set -e
# CPU time of our children (QEMU above all), for a loaded host: the time
# the VM would take on a core of its own.
times > "$payload/times"
vm_cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$payload/times")
python3 tools/bench/report.py apps "$log" bench-results/apps.json
end=$(date +%s)
echo "# bench-apps: $((end - begin)) s in all (image $((t_img - begin)) s), VM status $status;" \
	"CPU time of the image build and the VM: $vm_cpu s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
