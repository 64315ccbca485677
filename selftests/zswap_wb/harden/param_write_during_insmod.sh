#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: async_free written during insmod: init builds, then arms
#
# A parameter written while insmod runs init: zswb_slowarm stretches the
# arming of the points by 300 ms, and a writer turns async_free on as soon
# as its file appears, under writeback load. Init must have built the
# workqueue before any point can be armed, and the write must take effect.
. "$(dirname "$0")/../lib.sh"

# The writer that waits for the parameter file: stop it on any exit.
test_cleanup_own() {
	[ -n "${wpid:-}" ] && kill $wpid 2>/dev/null
	return 0
}

need_module || exit 1
modprobe zswb_slowarm delay_ms=300 || { msg "no zswb_slowarm"; exit 1; }
zswap_on
swap_on disk || exit 1
cg_new insmodw "$CG_MAX"
cg_run insmodw thrash --size "$SIZE" --passes 3 > /tmp/thrash.out 2>&1 &
pid=$!
sleep 3
i=0 bad=0
while [ $i -lt 10 ]; do
	set_param async_free 0
	unload || { msg "unload $i failed"; bad=1; break; }
	( while [ ! -e $ZSWB_PARAMS/async_free ]; do :; done
	  echo 1 > $ZSWB_PARAMS/async_free ) &
	wpid=$!
	modprobe zswap_wb || bad=1
	wait $wpid || bad=1
	[ "$(cat $ZSWB_PARAMS/async_free)" = Y ] || { msg "load $i: async_free lost"; bad=1; }
	w0=$(wbstat written_back)
	sleep 1
	[ $(wbstat written_back) -gt "$w0" ] || msg "load $i: no writeback within 1 s"
	i=$((i + 1))
done
hits=$(cat /sys/module/zswb_slowarm/parameters/hits)
set_param async_free 0
wait $pid
trc=$?
msg "$i loads, $hits arms delayed; $(tr '\n' ' ' < /tmp/thrash.out)"
msg_stats
cg_del insmodw
swap_off
rmmod zswb_slowarm
check "every load took the write made during insmod" "[ $bad -eq 0 ]" &&
check "the arming was delayed" "[ $hits -ge 10 ]" &&
check "checksums hold" "[ $trc -eq 0 ]" &&
check "the policy freed folios" "[ $(wbstat freed_async) -gt 0 ]"
