#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: zswbctl ab --concurrent: A and B at once in two policy scopes, async_free N vs Y told apart by each scope's counters, the global parameters untouched
#
# Two thrash workloads at once, each in its own memcg under zswbctl ab's
# cgroup, each bound to a policy scope of its own (configfs), on
# virtio-blk swap: the scope with async_free=Y frees what it writes back,
# the one with N frees nothing. zswap_wb.freed_async is the primary
# metric (--metric), judged at alpha 0.05 without an adjustment: 6 pairs
# are the fewest that can reach it. ab must find it different, B above
# A; A's median is 0, so the change is a difference in pages, not a %,
# whose interval lies above 0, and the verdict says so in words. ab must
# also leave /proc/vmstat out (it is the host's); leave no scope and no
# cgroup behind; and never touch the global parameters. Skips without
# policy scopes. Exits 0 (pass), 4 (skip) or 1 (fail).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ab.lib"

SIZE=${ZSWB_TEST_SIZE:-100}
CG_MAX=${ZSWB_TEST_CG_MAX:-40M}
PASSES=${ZSWB_TEST_PASSES:-2}
PAIRS=${ZSWB_AB_PAIRS:-6}
CFS=/sys/kernel/config/zswap_wb
out=/tmp/ab-concurrent


# Before test_cleanup (lib.sh): the scopes ab made, then its cgroups.
test_cleanup_own() {
	local s
	for s in "$CFS"/zswbctl-ab-*; do
		[ -d "$s" ] && rmdir "$s"
	done
	ab_cgroups_del
}


[ -d /sys/module/zswap_wb ] || modprobe zswap_wb || { msg "modprobe zswap_wb failed"; exit 1; }
is_mounted /sys/kernel/config || mount -t configfs none /sys/kernel/config 2>/dev/null
[ -d "$CFS" ] || { msg "no $CFS: this zswap_wb has no policy scopes"; exit 4; }
zswap_on
swap_on disk || { msg "swapon of /dev/vda failed"; exit 1; }
mkdir -p "$out"
before=$(for f in "$ZSWB_PARAMS"/*; do echo "$(basename "$f")=$(cat "$f")"; done)
fail=0

zswbctl ab --concurrent --pairs "$PAIRS" --metric zswap_wb.freed_async --memory-max "$CG_MAX" \
	--json --csv "$out/ny.csv" --a async_free=N --b async_free=Y -- \
	thrash --size "$SIZE" --passes "$PASSES" > "$out/ny.json" 2> "$out/ny.err"
rc=$?
msg "zswbctl ab --concurrent exited $rc"
zswbctl ab --metric zswap_wb.freed_async --from-csv "$out/ny.csv" | sed 's/^/# /'
[ $rc -eq 0 ] || { sed 's/^/# stderr: /' "$out/ny.err"; fail=1; }
grep -q '"mode": "concurrent"' "$out/ny.json" || { msg "FAILED: not reported as concurrent"; fail=1; }
j=$out/ny.json
differs=$(side_field "$j" zswap_wb.freed_async b differs)
few=$(side_field "$j" zswap_wb.freed_async b too_few)
scale=$(side_field "$j" zswap_wb.freed_async b scale)
est=$(side_field "$j" zswap_wb.freed_async b estimate)
difference=$(side_list "$j" zswap_wb.freed_async b difference)
verdict=$(side_field "$j" zswap_wb.freed_async b verdict)
msg "freed_async differs $differs, too few '$few', scale $scale, difference [$difference]: $verdict"
[ "$differs" = true ] && [ "$few" = false ] ||
	{ msg "FAILED: freed_async not found to differ in $PAIRS pairs"; fail=1; }
# A frees nothing: no % change, the difference (estimate, low, high) in
# pages, all above 0.
[ "$scale" = '"diff"' ] && [ "$est" = null ] ||
	{ msg "FAILED: freed_async not on the difference scale with no % change"; fail=1; }
echo "$difference" | awk 'NF == 3 && $1 > 0 && $2 > 0 && $3 >= $2 { ok = 1 } END { exit !ok }' ||
	{ msg "FAILED: freed_async's difference [$difference] not above 0"; fail=1; }
case $verdict in
'"B is '*' higher ['*"] where A's median is 0, "*) ;;
*) msg "FAILED: no verdict that B frees where A does not"; fail=1 ;;
esac
# Both sides wrote back: each scope counted its own.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "zswap_wb.written_back") c = i; next }
	$2 == "pair" && !($c > 0) { bad = 1 } END { exit !c || bad }' "$out/ny.csv" ||
	{ msg "FAILED: a run whose scope wrote nothing back"; fail=1; }
! grep -q '"vmstat\.' "$out/ny.json" || { msg "FAILED: the host's vmstat in a concurrent report"; fail=1; }
ls -d "$CFS"/zswbctl-ab-* 2>/dev/null && { msg "FAILED: a scope of ab is left"; fail=1; }
ls -d "$CG_ROOT"/zswbctl-ab.* 2>/dev/null && { msg "FAILED: a cgroup of ab is left"; fail=1; }
after=$(for f in "$ZSWB_PARAMS"/*; do echo "$(basename "$f")=$(cat "$f")"; done)
[ "$before" = "$after" ] || { msg "FAILED: the global parameters changed: $before / $after"; fail=1; }
exit $fail
