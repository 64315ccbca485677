#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# zswap_wb selftests, run inside the test VM: zswap_wb_test.sh GROUP
# Prints KTAP. Each test returns 0 (pass), 4 (skip) or anything else (fail)
# and explains itself on "#" lines.
#
# Groups:
#   basic           module load/unload, parameters, registration, stock run
#   prompt KIND     sync_free/async_free on KIND = zram, disk, nvme or file
#   write-errors    failed swap writes with async_free on (fail_make_request)
#   shrink          shrink policies on 2 NUMA nodes
#   readahead       readahead_policy on zswap-resident and mixed regions
#   nomemcg         the global shrinker, booted with cgroup_disable=memory
#   dkms            the DKMS-installed module loads
#   one FUNC [ARG]  one test function, for debugging
cd "$(dirname "$0")"
. ./ktap_helpers.sh
. ./lib.sh

# The workload: SIZE MiB in a memcg of CG_MAX, PASSES walks. Sized so that
# it writes back well over 10k pages in about 30 s under TCG.
SIZE=${ZSWB_TEST_SIZE:-300}
CG_MAX=${ZSWB_TEST_CG_MAX:-100M}
PASSES=${ZSWB_TEST_PASSES:-2}

msg() { echo "# $*"; }

# check DESC COND...: evaluate a test condition, print it on failure.
check() {
	d=$1
	shift
	if ! eval "$@"; then
		msg "FAILED: $d ($*)"
		return 1
	fi
}

need_module() {
	[ -d /sys/module/zswap_wb ] || modprobe zswap_wb || { msg "modprobe zswap_wb failed"; return 1; }
}

# Documented parameters and defaults: "name default" lines from the docs.
doc_defaults() {
	awk '/^``[a-z_]+``$/ { p = $0; gsub(/`/, "", p) }
	     /^Default: ``/ && p { d = $0; sub(/^Default: ``/, "", d); sub(/``.*/, "", d); print p, d; p = "" }' \
		/selftests/zswap_wb.rst
}

test_load_unload_20() {
	i=0
	while [ $i -lt 20 ]; do
		modprobe zswap_wb || { msg "load $i failed"; return 1; }
		[ -d /sys/kernel/debug/zswap_wb ] || { msg "no debugfs dir after load $i"; return 1; }
		rmmod zswap_wb || { msg "unload $i failed"; return 1; }
		[ ! -d /sys/module/zswap_wb ] || { msg "still loaded after unload $i"; return 1; }
		i=$((i + 1))
	done
}

test_param_defaults() {
	need_module || return 1
	doc_defaults > /tmp/defaults
	[ -s /tmp/defaults ] || { msg "no parameter found in the documentation"; return 1; }
	ls $ZSWB_PARAMS | sort > /tmp/present
	cut -d' ' -f1 /tmp/defaults | sort > /tmp/documented
	if ! cmp -s /tmp/present /tmp/documented; then
		msg "parameters present: $(tr '\n' ' ' < /tmp/present)"
		msg "parameters documented: $(tr '\n' ' ' < /tmp/documented)"
		return 1
	fi
	rc=0
	while read -r name def; do
		v=$(cat "$ZSWB_PARAMS/$name")
		[ "$v" = "$def" ] || { msg "$name is '$v', documented default '$def'"; rc=1; }
	done < /tmp/defaults
	return $rc
}

# invalid_write NAME VALUE: the write must fail and change nothing.
invalid_write() {
	before=$(cat "$ZSWB_PARAMS/$1")
	if printf '%s' "$2" > "$ZSWB_PARAMS/$1" 2>/dev/null; then
		msg "writing '$2' to $1 succeeded"
		return 1
	fi
	after=$(cat "$ZSWB_PARAMS/$1")
	[ "$before" = "$after" ] || { msg "$1 changed from '$before' to '$after' on a refused write"; return 1; }
}

test_invalid_writes() {
	need_module || return 1
	rc=0
	for p in sync_free async_free; do
		for v in 2 maybe " " -1 yesno 1x; do
			invalid_write $p "$v" || rc=1
		done
		set_param $p 1 && invalid_write $p bogus || rc=1
		[ "$(cat $ZSWB_PARAMS/$p)" = Y ] || { msg "$p lost its value"; rc=1; }
		set_param $p 0
	done
	dmesg | grep -q "is not a boolean" || { msg "no log line explains the refusal"; rc=1; }
	for v in 0 1025 -1 abc 32x " 32 " 4294967328; do
		invalid_write shrink_batch "$v" || rc=1
	done
	for v in 1 1024 64; do
		set_param shrink_batch $v && [ "$(cat $ZSWB_PARAMS/shrink_batch)" = $v ] || { msg "shrink_batch=$v not taken"; rc=1; }
	done
	set_param shrink_batch 32
	for v in Stock carry2 " carry" per-node 1; do
		invalid_write shrink_policy "$v" || rc=1
	done
	for v in carry split per_node local_first stock; do
		set_param shrink_policy $v && [ "$(cat $ZSWB_PARAMS/shrink_policy)" = $v ] || { msg "shrink_policy=$v not taken"; rc=1; }
	done
	for v in Stock skip skip_faults " stock" 0; do
		invalid_write readahead_policy "$v" || rc=1
	done
	for v in skip_fault skip_zswap_slots stock; do
		set_param readahead_policy $v && [ "$(cat $ZSWB_PARAMS/readahead_policy)" = $v ] || { msg "readahead_policy=$v not taken"; rc=1; }
	done
	dmesg | grep -q "shrink_policy: .* is not one of" || { msg "no log line explains a refused policy"; rc=1; }
	return $rc
}

test_second_backend_refused() {
	need_module || return 1
	dup=$(modinfo -n zswb_dup) || { msg "no zswb_dup test module"; return 1; }
	# busybox modprobe hides init errors: insmod reports them.
	out=$(insmod "$dup" 2>&1) && { msg "a second backend registered"; rmmod zswb_dup; return 1; }
	echo "$out" | grep -qi "exists" || { msg "expected EEXIST, got: $out"; return 1; }
	dmesg | grep -q "zswb_dup: one is registered" || { msg "no log line explains the refusal"; return 1; }
	out=$(insmod "$dup" incomplete=1 2>&1) && { msg "an incomplete backend registered"; rmmod zswb_dup; return 1; }
	echo "$out" | grep -qi "invalid" || { msg "expected EINVAL, got: $out"; return 1; }
	# Alone, the incomplete one is still refused, and the test module works.
	rmmod zswap_wb || return 1
	out=$(insmod "$dup" incomplete=1 2>&1) && { msg "an incomplete backend registered alone"; rmmod zswb_dup; return 1; }
	echo "$out" | grep -qi "invalid" || { msg "expected EINVAL alone, got: $out"; return 1; }
	insmod "$dup" || { msg "zswb_dup does not load on its own"; return 1; }
	rmmod zswb_dup && modprobe zswap_wb
}

# run_thrash CG ARGS...: run the workload in memcg CG, keep its output.
run_thrash() {
	cg=$1
	shift
	cg_run "$cg" thrash "$@" > /tmp/thrash.out 2>&1
	trc=$?
	msg "$(cat /tmp/thrash.out | tr '\n' ' ')"
	return $trc
}

# snap PREFIX: remember vmstat counters as PREFIX_name variables.
snap() {
	for k in zswpwb pgrotated pswpout pswpin zswpout workingset_refault_anon; do
		eval "${1}_$k=$(vmstat $k)"
	done
}

# delta NAME: counter change between snapshots a and b.
delta() {
	eval "echo \$((b_$1 - a_$1))"
}

test_stock_behaviour() {
	need_module || return 1
	for p in $(ls $ZSWB_PARAMS); do
		case "$(cat $ZSWB_PARAMS/$p)" in Y) msg "$p is on"; return 1 ;; esac
	done
	zswap_on
	swap_on disk || return 1
	cg_new stock "$CG_MAX"
	snap a
	run_thrash stock --size "$SIZE" --passes "$PASSES" || { swap_off; return 1; }
	snap b
	cg_del stock
	swap_off
	msg "zswpwb $(delta zswpwb) pgrotated $(delta pgrotated) pswpout $(delta pswpout)"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	check "zswap wrote back" "[ $(delta zswpwb) -gt 0 ]" &&
	check "written-back folios rotated, as stock" "[ $(delta pgrotated) -gt 0 ]" &&
	check "the backend saw nothing" "[ $(wbstat written_back) -eq 0 ]"
}

# prompt_run KIND [TOGGLE]: the workload with the policy of KIND on.
prompt_policy() {
	[ "$1" = zram ] && echo sync_free || echo async_free
}

test_prompt_free() {
	kind=$1 pol=$(prompt_policy "$1")
	need_module || return 1
	zswap_on
	swap_on "$kind" || return 1
	set_param "$pol" 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new prompt "$CG_MAX"
	snap a
	run_thrash prompt --size "$SIZE" --passes "$PASSES"
	trc=$?
	snap b
	cg_del prompt
	set_param "$pol" 0
	swap_off
	wb=$(delta zswpwb) rot=$(delta pgrotated)
	msg "zswpwb $wb pgrotated $rot pswpout $(delta pswpout)"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) ))
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "more than 10k pages written back" "[ $wb -gt 10000 ]" &&
	check "pgrotated below 1% of zswpwb" "[ $((rot * 100)) -lt $wb ]" &&
	check "every writeback went through the backend" "[ $(wbstat written_back) -eq $wb ]" &&
	check "freed plus raced equals written back" "[ $((freed + $(wbstat raced))) -eq $(wbstat written_back) ]" &&
	check "no write error" "[ $(wbstat write_errors) -eq 0 ]" &&
	check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
}

test_prompt_toggle() {
	kind=$1 pol=$(prompt_policy "$1")
	need_module || return 1
	zswap_on
	swap_on "$kind" || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new toggle "$CG_MAX"
	cg_run toggle thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
	pid=$!
	n=0 bad=0
	while [ $n -lt 100 ]; do
		set_param "$pol" 1 || bad=1
		sleep 0.1
		set_param "$pol" 0 || bad=1
		sleep 0.05
		n=$((n + 1))
	done
	wait $pid
	trc=$?
	msg "$(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del toggle
	swap_off
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	resolved=$(( $(wbstat freed_sync) + $(wbstat freed_async) + $(wbstat raced) + $(wbstat write_errors) + $(wbstat mark_failed) + $(wbstat fallbacks) ))
	check "100 toggles succeeded" "[ $bad -eq 0 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "the policy did free folios" "[ $(( $(wbstat freed_sync) + $(wbstat freed_async) )) -gt 0 ]" &&
	check "every folio written back was freed or put back" "[ $resolved -eq $(wbstat written_back) ]" &&
	check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
}

test_prompt_unload() {
	kind=$1 pol=$(prompt_policy "$1")
	need_module || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	base=$(free_kb)
	zswap_on
	swap_on "$kind" || return 1
	set_param "$pol" 1 || return 1
	cg_new unload "$CG_MAX"
	cg_run unload thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
	pid=$!
	sleep 8
	# What a sysadmin does: policies off (drains), then unload.
	zswbctl set "$pol" 0
	left=$(( $(wbstat inflight) + $(wbstat queue_depth) ))
	msg "after $pol=0: inflight $(wbstat inflight) queue_depth $(wbstat queue_depth), freed $(( $(wbstat freed_sync) + $(wbstat freed_async) ))"
	zswbctl unload > /tmp/unload.out 2>&1
	urc=$?
	msg "zswbctl unload: $(tr '\n' ' ' < /tmp/unload.out)"
	loaded=0
	[ -d /sys/module/zswap_wb ] && loaded=1
	wait $pid
	trc=$?
	msg "$(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del unload
	swap_off
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	free_now=$(free_kb)
	# Margin: 16 MiB, for page cache and slab that come and go (seen: under 1 MiB).
	msg "free (MemFree + per-CPU lists) before $base kB, after $free_now kB"
	modprobe zswap_wb
	check "nothing in flight or queued once the policy is off" "[ $left -eq 0 ]" &&
	check "unload succeeded during the workload" "[ $urc -eq 0 ] && [ $loaded -eq 0 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "free memory back within 16 MiB of its baseline" "[ $((base - free_now)) -lt 16384 ]"
}

# CPU 1 goes offline and back, 10 times, while folios are queued: its list
# is drained by the hotplug callback and the work item; nothing is lost.
test_prompt_cpu_hotplug() {
	kind=$1 pol=$(prompt_policy "$1")
	cpu=/sys/devices/system/cpu/cpu1/online
	[ -w $cpu ] || { msg "CPU 1 cannot go offline"; return 4; }
	need_module || return 1
	zswap_on
	swap_on "$kind" || return 1
	set_param "$pol" 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new hotplug "$CG_MAX"
	cg_run hotplug taskset -c 0 thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
	pid=$!
	n=0 bad=0
	while [ $n -lt 10 ] && kill -0 $pid 2>/dev/null; do
		sleep 1
		echo 0 > $cpu || bad=1
		sleep 0.5
		echo 1 > $cpu || bad=1
		n=$((n + 1))
	done
	wait $pid
	trc=$?
	msg "$n offline/online cycles; $(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del hotplug
	set_param "$pol" 0
	swap_off
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	resolved=$(( $(wbstat freed_sync) + $(wbstat freed_async) + $(wbstat raced) + $(wbstat write_errors) + $(wbstat mark_failed) + $(wbstat fallbacks) ))
	check "every hotplug step succeeded" "[ $bad -eq 0 ] && [ $n -gt 0 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "every folio written back was freed or put back" "[ $resolved -eq $(wbstat written_back) ]" &&
	check "nothing left in flight" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
}

# Both kinds of swap-cache writeback at once: reclaim writes the pages that
# zswap rejects (every 4th page does not compress; memory.zswap.max) with
# PG_reclaim, while zswap writes back through async_free. Only zswap's are
# freed by the backend.
test_prompt_with_reclaim_writes() {
	need_module || return 1
	zswap_on
	swap_on disk || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new mixed "$CG_MAX"
	echo 24M > $CG_ROOT/mixed/memory.zswap.max
	snap a
	# Every 4th page does not compress: zswap rejects it, reclaim writes it.
	run_thrash mixed --size "$SIZE" --passes "$PASSES" --incompressible 4
	trc=$?
	snap b
	cg_del mixed
	set_param async_free 0
	swap_off
	direct=$(( $(delta pswpout) - $(delta zswpwb) ))
	msg "zswpwb $(delta zswpwb) pswpout $(delta pswpout) reclaim-written $direct pgrotated $(delta pgrotated)"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) ))
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "reclaim wrote pages itself" "[ $direct -gt 1000 ]" &&
	check "zswap wrote back too" "[ $(delta zswpwb) -gt 1000 ]" &&
	check "the backend freed only zswap's folios" "[ $((freed + $(wbstat raced))) -eq $(delta zswpwb) ]"
}

# shrink_setup CASE: zswap limits for the shrinker tests, shrinker off so
# that every writeback comes from shrink_memcg(). pool: max_pool_percent=1
# (shrink_worker), with 32 idle memcgs for the worker to walk as on a host;
# zswap_max: memory.zswap.max=32M (zswap_store()).
shrink_setup() {
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 50 > /sys/module/zswap/parameters/accept_threshold_percent
	swap_on disk 1500 || return 1
	cg_new shrink 128M
	if [ "$1" = pool ]; then
		idle_memcgs 32 || return 1
		echo 1 > /sys/module/zswap/parameters/max_pool_percent
	else
		echo 50 > /sys/module/zswap/parameters/max_pool_percent
		echo 32M > $CG_ROOT/shrink/memory.zswap.max
	fi
}

shrink_teardown() {
	cg_del shrink
	idle_memcgs 0
	swap_off
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	echo 90 > /sys/module/zswap/parameters/accept_threshold_percent
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	set_param shrink_policy stock
	set_param shrink_batch 32
}

# shrink_load SECONDS: random writers, two on each node's CPU; fails on a
# checksum mismatch.
shrink_load() {
	for w in 1 2 3 4; do
		cg_run shrink taskset -c $((w % 2)) thrash --size 64 --passes 0 --random "$1" > /tmp/out.$w 2>&1 &
	done
	wait
	if grep -h mismatches /tmp/out.* | grep -qv "mismatches 0"; then
		msg "$(cat /tmp/out.* | tr '\n' ' ')"
		return 1
	fi
}

written_nodes() {
	echo $(( $(wbstat shrink_written_node0) + $(wbstat shrink_written_node1) ))
}

calls() {
	echo $(( $(wbstat shrink_calls_worker) + $(wbstat shrink_calls_store) ))
}

test_shrink_both_nodes() {
	need_module || return 1
	rc=0
	for pol in stock carry split per_node local_first; do
		shrink_setup pool || return 1
		set_param shrink_policy $pol
		echo 1 > $ZSWB_DEBUGFS/reset
		shrink_load 8 || rc=1
		msg "$pol: node0 written $(wbstat shrink_written_node0) node1 written $(wbstat shrink_written_node1), calls $(calls)"
		[ "$(wbstat shrink_written_node0)" -gt 0 ] && [ "$(wbstat shrink_written_node1)" -gt 0 ] ||
			{ msg "FAILED: $pol did not write back from both nodes"; rc=1; }
		shrink_teardown
	done
	return $rc
}

# against_stock CASE POLICY: the policy writes back more in fewer calls.
shrink_against_stock() {
	for pol in stock $2; do
		shrink_setup "$1" || return 1
		set_param shrink_policy $pol
		echo 1 > $ZSWB_DEBUGFS/reset
		shrink_load 10 || { shrink_teardown; return 1; }
		eval "w_$pol=$(written_nodes) c_$pol=$(calls)"
		msg "$1 $pol: written back $(written_nodes) in $(calls) shrink_memcg() calls"
		shrink_teardown
	done
	eval "wp=\$w_$2 cp=\$c_$2"
	check "$2 writes back more than stock" "[ $wp -gt $w_stock ]" &&
	check "$2 calls shrink_memcg() less than stock" "[ $cp -lt $c_stock ]"
}

test_shrink_pool_limit() {
	need_module || return 1
	shrink_against_stock pool per_node
}

test_shrink_zswap_max() {
	need_module || return 1
	shrink_against_stock zswap_max per_node
}

test_shrink_switch_under_load() {
	need_module || return 1
	shrink_setup zswap_max || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	shrink_load 15 &
	load=$!
	n=0 bad=0
	while kill -0 $load 2>/dev/null; do
		for pol in carry split per_node local_first stock; do
			set_param shrink_policy $pol || bad=1
			set_param shrink_batch $(( (n * 37) % 1024 + 1 )) || bad=1
			n=$((n + 1))
			sleep 0.05
		done
	done
	wait $load
	lrc=$?
	msg "$n switches; $(calls) calls, $(written_nodes) written back"
	shrink_teardown
	check "every switch accepted" "[ $bad -eq 0 ]" &&
	check "checksums hold" "[ $lrc -eq 0 ]" &&
	check "shrinking went on" "[ $(written_nodes) -gt 0 ]"
}

# Booted with cgroup_disable=memory: the global shrinker still writes back
# (mm/zswap: Fix global shrinker when memory cgroup is disabled), with the
# module unloaded and with a batched policy.
test_nomemcg_global_shrinker() {
	grep -q "cgroup_disable=memory" /proc/cmdline || { msg "not booted with cgroup_disable=memory"; return 4; }
	rc=0
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 5 > /sys/module/zswap/parameters/max_pool_percent
	swap_on disk 1500 || return 1
	for mode in unloaded carry; do
		if [ $mode = unloaded ]; then
			rmmod zswap_wb 2>/dev/null
		else
			need_module || return 1
			set_param shrink_policy $mode
		fi
		wb0=$(vmstat zswpwb)
		thrash --size 640 --passes 1 > /tmp/thrash.out 2>&1 || { msg "$(cat /tmp/thrash.out)"; rc=1; }
		wb=$(( $(vmstat zswpwb) - wb0 ))
		msg "$mode: zswpwb $wb, pool_limit_hit $(cat /sys/kernel/debug/zswap/pool_limit_hit)"
		[ $mode = carry ] && msg "zswap_wb: calls $(calls) written $(written_nodes)"
		[ $wb -gt 0 ] || { msg "FAILED: no writeback with memcg disabled ($mode)"; rc=1; }
		if [ $mode = carry ]; then
			[ "$(written_nodes)" -gt 0 ] || { msg "FAILED: the module's shrink_memcg() wrote nothing"; rc=1; }
		fi
	done
	set_param shrink_policy stock
	swap_off
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	return $rc
}

# ra_fill CG SIZE HOLD: start thrash holding SIZE MiB in CG, wait until it
# has filled its memory, push it out with memory.reclaim. Sets $fill_pid.
ra_fill() {
	out=/tmp/fill.$1.$$
	rm -f $out
	cg_run "$1" thrash --size "$2" --passes 0 --hold "$3" > $out 2>&1 &
	fill_pid=$!
	while ! grep -q filled $out; do
		kill -0 $fill_pid 2>/dev/null || return 1
		sleep 0.2
	done
	for try in 1 2 3 4; do
		echo "$2M" > $CG_ROOT/$1/memory.reclaim 2>/dev/null
	done
	return 0
}

# ra_fault_back POLICY: the zswap-resident region of a process faults back.
ra_zswap_region() {
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 50 > /sys/module/zswap/parameters/max_pool_percent
	swap_on disk || return 1
	set_param readahead_policy "$1" || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new ra max
	wb0=$(vmstat zswpwb) po0=$(vmstat pswpout)
	ra_fill ra 48 12 || return 1
	ra0=$(vmstat swap_ra) zi0=$(vmstat zswpin)
	wait $fill_pid
	trc=$?
	ra=$(( $(vmstat swap_ra) - ra0 )) zi=$(( $(vmstat zswpin) - zi0 ))
	disk=$(( $(vmstat pswpout) - po0 ))
	msg "$1: swap_ra $ra zswpin $zi, pages on disk $disk; $(grep ^ra_ $ZSWB_DEBUGFS/stats | tr '\n' ' ')"
	cg_del ra
	swap_off
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	set_param readahead_policy stock
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "the region was in zswap" "[ $zi -gt 5000 ] && [ $disk -eq 0 ]"
}

test_ra_zswap_region() {
	need_module || return 1
	ra_zswap_region stock || return 1
	check "stock reads ahead (the measure can see readahead)" "[ $ra -gt 0 ]" || return 1
	# A fault on one of the process's zero-filled pages (stack, heap) is
	# not in zswap and keeps stock readahead: allow 0.1% of the faults.
	ra_zswap_region skip_fault || return 1
	check "skip_fault: no readahead" "[ $((ra * 1000)) -le $zi ]" &&
	check "skip_fault: faults read alone" "[ $(wbstat ra_faults_alone) -gt 0 ]" || return 1
	ra_zswap_region skip_zswap_slots || return 1
	check "skip_zswap_slots: no readahead" "[ $((ra * 1000)) -le $zi ]" &&
	check "skip_zswap_slots: zswap slots skipped" "[ $(wbstat ra_zswap_slots_skipped) -gt 0 ]"
}

# Half of a memcg's memory on disk (stored with zswap off), half in zswap:
# skip_zswap_slots still reads the disk half ahead.
test_ra_half_on_disk() {
	need_module || return 1
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	swap_on disk || return 1
	set_param readahead_policy skip_zswap_slots || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new rahalf max
	echo 0 > /sys/module/zswap/parameters/enabled
	ra_fill rahalf 24 20 || return 1
	disk_pid=$fill_pid
	echo 1 > /sys/module/zswap/parameters/enabled
	ra_fill rahalf 24 12 || return 1
	zswap_pid=$fill_pid
	ra0=$(vmstat swap_ra) hit0=$(vmstat swap_ra_hit) pi0=$(vmstat pswpin) zi0=$(vmstat zswpin)
	wait $zswap_pid
	rc1=$?
	wait $disk_pid
	rc2=$?
	ra=$(( $(vmstat swap_ra) - ra0 ))
	msg "swap_ra $ra swap_ra_hit $(( $(vmstat swap_ra_hit) - hit0 )) pswpin $(( $(vmstat pswpin) - pi0 )) zswpin $(( $(vmstat zswpin) - zi0 ))"
	msg "$(grep ^ra_ $ZSWB_DEBUGFS/stats | tr '\n' ' ')"
	cg_del rahalf
	swap_off
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	set_param readahead_policy stock
	check "checksums hold" "[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]" &&
	check "disk neighbours read ahead" "[ $ra -gt 0 ] && [ $(wbstat ra_disk_slots) -gt 0 ]" &&
	check "zswap neighbours skipped" "[ $(wbstat ra_zswap_slots_skipped) -gt 0 ]"
}

test_ra_switch_under_load() {
	need_module || return 1
	zswap_on
	swap_on disk || return 1
	cg_new raswitch "$CG_MAX"
	cg_run raswitch thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1 &
	pid=$!
	n=0 bad=0
	while kill -0 $pid 2>/dev/null; do
		for pol in skip_fault skip_zswap_slots stock; do
			set_param readahead_policy $pol || bad=1
			n=$((n + 1))
			sleep 0.05
		done
	done
	wait $pid
	trc=$?
	msg "$n switches; $(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del raswitch
	swap_off
	set_param readahead_policy stock
	check "every switch accepted" "[ $bad -eq 0 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]"
}

# fail_make_request on the swap disk while the data is first swapped out;
# then no failures and every page must read back intact. A failed write
# re-dirties its folio, which must be put back, never freed.
# fail_make_request fails reads too, and a failed swap read is a SIGBUS
# (as on stock): thrash --lock-rest keeps its own stack, heap and libc
# pages in memory, so that nothing is read from swap until the failures
# are off and only writes can fail.
test_write_errors() {
	fi=/sys/kernel/debug/fail_make_request
	[ -d $fi ] || { msg "no fail_make_request"; return 4; }
	need_module || return 1
	zswap_on
	swap_on disk || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	echo 5 > $fi/probability
	echo 1 > $fi/interval
	echo -1 > $fi/times
	echo 0 > $fi/verbose
	echo 1 > /sys/block/vda/make-it-fail
	cg_new werr "$CG_MAX"
	cg_run werr thrash --size "$SIZE" --passes 0 --hold 5 --lock-rest > /tmp/thrash.out 2>&1 &
	pid=$!
	while ! grep -q filled /tmp/thrash.out; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	echo 0 > /sys/block/vda/make-it-fail
	wait $pid
	trc=$?
	msg "$(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del werr
	set_param async_free 0
	swap_off
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	freed=$(( $(wbstat freed_sync) + $(wbstat freed_async) ))
	check "failed writes were seen and put back" "[ $(wbstat write_errors) -gt 0 ]" &&
	check "checksums hold: no data lost" "[ $trc -eq 0 ]" &&
	check "every folio freed, raced or put back after an error" \
		"[ $((freed + $(wbstat raced) + $(wbstat write_errors))) -eq $(wbstat written_back) ]"
}

test_dkms_module_loads() {
	ko=$(modinfo -n zswap_wb 2>/dev/null)
	case "$ko" in
	*/updates/dkms/*) ;;
	*) msg "zswap_wb resolves to '$ko', not a DKMS install"; return 1 ;;
	esac
	modprobe zswap_wb || return 1
	[ -d /sys/kernel/debug/zswap_wb ] && rmmod zswap_wb
}

run() {
	desc=$1
	shift
	"$@"
	case $? in
	0) ktap_test_pass "$desc" ;;
	4) ktap_test_skip "$desc" ;;
	*) ktap_test_fail "$desc" ;;
	esac
}

ktap_print_header
group=${1:-basic}
case "$group" in
basic)
	ktap_set_plan 6
	run "load and unload 20 times" test_load_unload_20
	run "parameters present with their documented defaults" test_param_defaults
	run "invalid parameter writes refused, nothing changed" test_invalid_writes
	run "a second backend registration is refused" test_second_backend_refused
	run "policies off: stock writeback and rotation (disk)" test_stock_behaviour
	run "async_free beside reclaim's own swap writes (disk)" test_prompt_with_reclaim_writes
	;;
prompt)
	kind=${2:?kind}
	ktap_set_plan 4
	run "prompt free on $kind: pgrotated < 1%, freed + raced = written back, data intact" test_prompt_free "$kind"
	run "prompt free on $kind: 100 toggles under load lose nothing" test_prompt_toggle "$kind"
	run "prompt free on $kind: unload under load, nothing queued, free memory back" test_prompt_unload "$kind"
	run "prompt free on $kind: CPU 1 offline and back 10 times under load" test_prompt_cpu_hotplug "$kind"
	;;
shrink)
	ktap_set_plan 4
	run "every shrink policy writes back from both nodes" test_shrink_both_nodes
	run "max_pool_percent=1: per_node writes back more in fewer calls than stock" test_shrink_pool_limit
	run "memory.zswap.max: per_node writes back more in fewer calls than stock" test_shrink_zswap_max
	run "switching shrink policy and batch under load is safe" test_shrink_switch_under_load
	;;
readahead)
	ktap_set_plan 3
	run "a zswap-resident region faults back without readahead under both policies" test_ra_zswap_region
	run "skip_zswap_slots keeps readahead for disk slots, skips zswap ones" test_ra_half_on_disk
	run "switching readahead_policy under load is safe" test_ra_switch_under_load
	;;
nomemcg)
	ktap_set_plan 1
	run "cgroup_disable=memory: the global shrinker writes back" test_nomemcg_global_shrinker
	;;
write-errors)
	ktap_set_plan 1
	run "async_free with failing swap writes: no data lost, no dirty folio freed" test_write_errors
	;;
one)
	# one TEST_FUNCTION [ARGS]: a single test, for debugging
	shift
	ktap_set_plan 1
	run "$*" "$@"
	;;
dkms)
	ktap_set_plan 1
	run "modprobe loads the DKMS-installed zswap_wb" test_dkms_module_loads
	;;
*)
	ktap_exit_fail_msg "unknown group $group"
	;;
esac
ktap_finished
