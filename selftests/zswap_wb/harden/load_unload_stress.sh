#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: 100 load/unload cycles beside random parameter writes and writeback
#
# 100 loads and unloads while a swap workload runs with writeback and
# another task writes random valid and invalid values to every parameter,
# including while the module loads. Before each unload the writer pauses
# and async_free is turned off (the folios in flight pin the module).
. "$(dirname "$0")/../lib.sh"

# The parameter writer runs outside the memcg: stop it on any exit.
test_cleanup_own() {
	rm -f /tmp/stress.run /tmp/stress.go
	[ -n "${wpid:-}" ] && kill $wpid 2>/dev/null
	return 0
}

need_module || exit 1
zswap_on
swap_on disk || exit 1
cg_new stress "$CG_MAX"
cg_run stress thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
pid=$!
touch /tmp/stress.go /tmp/stress.run
(
	set -- sync_free:0 sync_free:1 sync_free:maybe async_free:0 async_free:1 async_free:2 \
		shrink_policy:per_node shrink_policy:carry shrink_policy:split shrink_policy:bogus \
		shrink_batch:1 shrink_batch:1024 shrink_batch:0 shrink_batch:99999 \
		readahead_policy:skip_fault readahead_policy:skip_zswap_slots \
		readahead_policy:stock readahead_policy:x
	r=1
	while [ -e /tmp/stress.run ]; do
		for pv in "$@"; do
			[ -e /tmp/stress.go ] || break
			r=$(( (r * 1103515245 + 12345) % 2147483648 ))
			[ $((r % 3)) = 0 ] || continue
			echo "${pv#*:}" > $ZSWB_PARAMS/${pv%%:*} 2>/dev/null
		done
		sleep 0.01
	done
) &
wpid=$!
i=0 bad=0
while [ $i -lt 100 ]; do
	touch /tmp/stress.go
	modprobe zswap_wb || { msg "load $i failed"; bad=1; break; }
	sleep 0.2
	rm -f /tmp/stress.go
	sleep 0.05
	set_param async_free 0 || { bad=1; break; }
	unload || { msg "unload $i failed"; bad=1; break; }
	i=$((i + 1))
done
rm -f /tmp/stress.run /tmp/stress.go
wait $wpid
cg_stop stress
wait $pid
trc=$?
msg "$i cycles; $(tr '\n' ' ' < /tmp/thrash.out)"
cg_del stress
swap_off
modprobe zswap_wb
check "100 load/unload cycles" "[ $bad -eq 0 ] && [ $i -eq 100 ]" &&
check "the workload verified its data, no mismatch" "[ $trc -eq 0 ] && grep -q '^pages ' /tmp/thrash.out"
