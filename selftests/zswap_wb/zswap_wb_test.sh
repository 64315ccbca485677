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
#   harden          races of init, unload and the async_free setter
#   nomemcg         the global shrinker, booted with cgroup_disable=memory
#   smp             8 vCPUs and CPU hotplug under async_free (--smp 8)
#   dkms            the DKMS-installed module loads
#   one FUNC [ARG]  one test function, for debugging
cd "$(dirname "$0")"
. ./ktap_helpers.sh
. ./lib.sh
. ./hostload.sh

# The workload: SIZE MiB in a memcg of CG_MAX, PASSES walks. Sized so that
# it writes back well over 10k pages in about 30 s under TCG.
SIZE=${ZSWB_TEST_SIZE:-300}
CG_MAX=${ZSWB_TEST_CG_MAX:-100M}
PASSES=${ZSWB_TEST_PASSES:-2}
# Fixed-time loads (the shrinker tests' random writers) last SCALE times
# longer: a debug kernel does a fraction of the work in the same time.
SCALE=${ZSWB_TEST_SCALE:-1}

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
		v=$(param_value "$name")
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
	for v in Stock carry2 " carry" per-node 1 "[carry]" "stock [carry]"; do
		invalid_write shrink_policy "$v" || rc=1
	done
	for v in $(choices shrink_policy); do
		set_param shrink_policy $v && [ "$(param_value shrink_policy)" = $v ] || { msg "shrink_policy=$v not taken"; rc=1; }
	done
	for v in Stock skip skip_faults " stock" 0; do
		invalid_write readahead_policy "$v" || rc=1
	done
	for v in $(choices readahead_policy); do
		set_param readahead_policy $v && [ "$(param_value readahead_policy)" = $v ] || { msg "readahead_policy=$v not taken"; rc=1; }
	done
	[ "$(choices shrink_policy | wc -w)" -ge 5 ] && [ "$(choices readahead_policy | wc -w)" -ge 3 ] ||
		{ msg "the schema lists too few choices"; rc=1; }
	# A policy reads as every choice, the current one in brackets; it is
	# written with the bare name, with or without a newline.
	if printf 'carry\n\n' > $ZSWB_PARAMS/shrink_policy 2>/dev/null; then
		msg "a name and two newlines taken"; rc=1
	fi
	printf split > $ZSWB_PARAMS/shrink_policy || { msg "a name without a newline refused"; rc=1; }
	v=$(cat $ZSWB_PARAMS/shrink_policy)
	[ "$v" = "stock carry [split] per_node local_first" ] || { msg "shrink_policy reads '$v'"; rc=1; }
	set_param shrink_policy stock
	set_param readahead_policy stock
	v=$(cat $ZSWB_PARAMS/readahead_policy)
	[ "$v" = "[stock] skip_fault skip_zswap_slots" ] || { msg "readahead_policy reads '$v'"; rc=1; }
	dmesg | grep -q "shrink_policy: .* is not one of" || { msg "no log line explains a refused policy"; rc=1; }
	return $rc
}

# debugfs "schema" describes what the module has: a stat row for each line
# of "stats" and a file for each counter and gauge, a param row for each
# parameter, with the choices its file lists and the default it reads
# after a load, and the free policies' drain contract.
test_schema() {
	need_module || return 1
	rmmod zswap_wb && modprobe zswap_wb || { msg "cannot reload zswap_wb"; return 1; }
	s=$ZSWB_DEBUGFS/schema
	[ -r $s ] || { msg "no $s"; return 1; }
	rc=0
	awk -F'\t' '$1 == "stat" { sub(/<N>$/, "0", $2); print $2 }' $s | sort > /tmp/schema.stats
	cut -d' ' -f1 $ZSWB_DEBUGFS/stats | sed 's/_node[0-9]*$/_node0/' | sort -u > /tmp/stats.keys
	if ! cmp -s /tmp/schema.stats /tmp/stats.keys; then
		msg "schema: $(tr '\n' ' ' < /tmp/schema.stats)"
		msg "stats: $(tr '\n' ' ' < /tmp/stats.keys)"
		rc=1
	fi
	awk -F'\t' '$1 == "stat" { sub(/<N>$/, "0", $2); print $2, $4 }' $s > /tmp/schema.units
	while read -r name unit; do
		if [ "$unit" = us ] && [ -e $ZSWB_DEBUGFS/$name ]; then
			msg "a file for the percentile $name"; rc=1
		elif [ "$unit" != us ] && [ ! -r $ZSWB_DEBUGFS/$name ]; then
			msg "no file for $name"; rc=1
		fi
	done < /tmp/schema.units
	awk -F'\t' '$1 == "param" { print $2 }' $s | sort > /tmp/schema.params
	ls $ZSWB_PARAMS | sort > /tmp/params
	cmp -s /tmp/schema.params /tmp/params || {
		msg "schema: $(tr '\n' ' ' < /tmp/schema.params), parameters: $(tr '\n' ' ' < /tmp/params)"
		rc=1
	}
	awk -F'\t' '$1 == "param" { print $2 "|" $3 "|" $4 "|" $5 "|" $6 }' $s > /tmp/schema.rows
	while IFS='|' read -r name kind values def flags; do
		v=$(param_value "$name")
		[ "$v" = "$def" ] || { msg "$name reads '$v', its schema default is '$def'"; rc=1; }
		case $kind in
		choice) v=$(tr -d '[]' < $ZSWB_PARAMS/$name)
			[ "$v" = "$values" ] || { msg "$name lists '$v', its schema '$values'"; rc=1; } ;;
		bool|uint) ;;
		*) msg "$name: kind '$kind'"; rc=1 ;;
		esac
		case $name:$flags in
		async_free:drains,waits|sync_free:drains|*_policy:-|shrink_batch:-) ;;
		*) msg "$name: flags '$flags'"; rc=1 ;;
		esac
	done < /tmp/schema.rows
	[ "$rc" = 0 ] || sed 's/^/# /' $s
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
		cg_run shrink taskset -c $((w % 2)) thrash --size 64 --passes 0 --random $(($1 * SCALE)) > /tmp/out.$w 2>&1 &
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
	for pol in $(choices shrink_policy); do
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

# memory.zswap.max with shrink_batch=1024: the store path, which writes
# back in the storing task, scans at most 32 entries per node per call.
test_shrink_store_bounded() {
	need_module || return 1
	shrink_setup zswap_max || return 1
	set_param shrink_policy per_node && set_param shrink_batch 1024 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	shrink_load 10 || { shrink_teardown; return 1; }
	scanned=$(( $(wbstat shrink_scanned_node0) + $(wbstat shrink_scanned_node1) ))
	st=$(wbstat shrink_calls_store) wk=$(wbstat shrink_calls_worker)
	msg "per_node, batch 1024: $st store calls scanned $scanned entries, wrote back $(written_nodes); worker calls $wk"
	shrink_teardown
	check "stores shrank" "[ $st -gt 100 ]" &&
	check "only the store path shrank" "[ $wk -eq 0 ]" &&
	check "at most 32 entries per node per store call" "[ $scanned -le $((st * 64)) ]"
}

test_shrink_switch_under_load() {
	need_module || return 1
	shrink_setup zswap_max || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	shrink_load 15 &
	load=$!
	n=0 bad=0
	while kill -0 $load 2>/dev/null; do
		for pol in $(choices shrink_policy); do
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
		for pol in $(choices readahead_policy); do
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

# ra_mix POLICY [interleave]: ramix with 16 MiB on disk and 32 MiB in zswap
# in one VMA: the disk part read in order, with or without a scattered
# zswap fault after each page. Sets hit (swap_ra_hit), ra (swap_ra),
# alone (ra_faults_alone) and mix_out (ramix's line) for the walk.
ra_mix() {
	zswap_on
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	echo 50 > /sys/module/zswap/parameters/max_pool_percent
	swap_on disk || return 1
	set_param readahead_policy "$1" || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new ramix max
	cg_run ramix ramix 16 32 $2 > /tmp/ramix.out 2>&1 &
	job=$!
	# $! is the subshell of cg_run; ramix is the memcg's one process.
	while [ -z "$(cat $CG_ROOT/ramix/cgroup.procs)" ]; do
		sleep 0.1
	done
	pid=$(cat $CG_ROOT/ramix/cgroup.procs)
	wait_stopped $pid || { msg "ramix: $(cat /tmp/ramix.out)"; return 1; }
	# The first part goes to the swap device: zswap is off while it goes.
	po0=$(vmstat pswpout)
	echo 0 > /sys/module/zswap/parameters/enabled
	cg_reclaim ramix 64M
	echo 1 > /sys/module/zswap/parameters/enabled
	disk=$(( $(vmstat pswpout) - po0 ))
	kill -CONT $pid
	wait_stopped $pid || { msg "ramix: $(cat /tmp/ramix.out)"; return 1; }
	zo0=$(vmstat zswpout)
	cg_reclaim ramix 64M
	zs=$(( $(vmstat zswpout) - zo0 ))
	ra0=$(vmstat swap_ra) hit0=$(vmstat swap_ra_hit)
	kill -CONT $pid
	wait $job
	mrc=$?
	ra=$(( $(vmstat swap_ra) - ra0 )) hit=$(( $(vmstat swap_ra_hit) - hit0 ))
	alone=$(wbstat ra_faults_alone)
	mix_out=$(cat /tmp/ramix.out | tail -1)
	msg "$1 ${2:-alone}: pages to disk $disk, to zswap $zs; walk: swap_ra $ra swap_ra_hit $hit ra_faults_alone $alone; $mix_out"
	cg_del ramix
	swap_off
	set_param readahead_policy stock
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	echo 20 > /sys/module/zswap/parameters/max_pool_percent
	check "ramix checksums hold" "[ $mrc -eq 0 ]" &&
	check "the first part went to disk, the second to zswap" \
		"[ $disk -ge 3800 ] && [ $zs -ge 7600 ]"
}

# Readahead statistics belong to disk faults: a zswap fault read alone is
# decided before the window is computed, so it neither takes the hits that
# disk readahead earned nor moves the VMA's last fault address. The disk
# part's readahead, interleaved with zswap faults, must then be what stock
# gives it alone (within 10%); on both readahead paths (VMA and cluster).
test_ra_disk_window() {
	need_module || return 1
	# Compares readahead hits with stock's within 10%. Beside DAMON's
	# paddr sampling the policies' hits came out 81% to 89% of stock's
	# alone, in runs where they matched it to the page without DAMON and
	# beside every other part of the host load: not understood yet, so
	# DAMON stays off for this test only (test_cleanup turns it back on).
	hostload_damon_pause
	for path in vma cluster; do
		[ $path = vma ] && v=true || v=false
		echo $v > /sys/kernel/mm/swap/vma_ra_enabled || return 1
		ra_mix stock || return 1
		base=$hit
		check "$path: stock reads the disk part ahead" "[ $base -gt 1000 ]" || return 1
		ra_mix stock interleave || return 1
		msg "$path: stock, interleaved with zswap faults: swap_ra_hit $hit of $base alone"
		for pol in skip_fault skip_zswap_slots; do
			ra_mix $pol interleave || return 1
			check "$path $pol: zswap faults read alone" "[ $alone -ge 3800 ]" &&
			check "$path $pol: disk readahead hits as stock alone ($hit vs $base)" \
				"[ $((hit * 10)) -ge $((base * 9)) ]" || return 1
		done
	done
	echo true > /sys/kernel/mm/swap/vma_ra_enabled
}

# Two swap devices at one priority interleave their entries in a VMA, so a
# readahead window holds neighbours of another device than the fault's.
# swapoff of that device frees its zswap tree: the hook must pin the
# neighbour's device before asking zswap about it. The window is a few
# instructions wide and cannot be forced open from here; KASAN (make
# check-debug) reports a use after free if it is hit.
test_ra_two_devices() {
	need_module || return 1
	zswap_on
	echo 0 > /sys/block/vda/queue/rotational
	mkswap /dev/vda >/dev/null && mkswap /dev/nvme0n1 >/dev/null || { msg "mkswap failed"; return 1; }
	swapprio /dev/vda 5 && swapprio /dev/nvme0n1 5 || { msg "swapon at priority 5 failed"; return 1; }
	check "both devices at one priority" \
		"[ $(awk 'NR > 1 { print $5 }' /proc/swaps | sort -u | wc -l) -eq 1 ]" || return 1
	rc=0
	for pol in $(choices readahead_policy); do
		set_param readahead_policy $pol || return 1
		cg_new ra2 64M
		# 4 passes; 2 on the debug kernel (PASSES 1), which takes
		# 20 minutes a policy for 4.
		cg_run ra2 thrash --size 128 --passes $((PASSES * 2)) > /tmp/ra2.out 2>&1 &
		pid=$!
		n=0 offfail=0
		while kill -0 $pid 2>/dev/null; do
			swapoff /dev/nvme0n1 2>/dev/null || offfail=$((offfail + 1))
			grep -q nvme0n1 /proc/swaps || swapprio /dev/nvme0n1 5 || rc=1
			n=$((n + 1))
		done
		wait $pid || rc=1
		msg "$pol: $n swapoff/swapon cycles ($offfail swapoffs refused); $(tr '\n' ' ' < /tmp/ra2.out)"
		cg_del ra2
		[ $n -gt 0 ] || rc=1
	done
	swap_off
	set_param readahead_policy stock
	check "checksums hold and every swapon worked" "[ $rc -eq 0 ]"
}

# A parameter written while insmod runs init: zswb_slowarm stretches the
# arming of the points by 300 ms, and a writer turns async_free on as soon
# as its file appears, under writeback load. Init must have built the
# workqueue before any point can be armed, and the write must take effect.
test_param_write_during_insmod() {
	need_module || return 1
	modprobe zswb_slowarm delay_ms=300 || { msg "no zswb_slowarm"; return 1; }
	zswap_on
	swap_on disk || return 1
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
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	cg_del insmodw
	swap_off
	rmmod zswb_slowarm
	check "every load took the write made during insmod" "[ $bad -eq 0 ]" &&
	check "the arming was delayed" "[ $hits -ge 10 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "the policy freed folios" "[ $(wbstat freed_async) -gt 0 ]"
}

# Every allocation of insmod, init included, failed once in turn
# (fail-nth: failslab and fail_page_alloc), while a memcg over its
# memory.zswap.max keeps shrink_memcg() calling the backend. A failed init
# must leave nothing registered or armed and nothing calling into the freed
# module; a later load must work. The window of a shrink call pinning the
# module across a failed init is not forced; KASAN reports it if it is hit.
test_insmod_fault_injection() {
	[ -e /proc/self/fail-nth ] || { msg "no fail-nth"; return 4; }
	need_module || return 1
	ko=$(modinfo -n zswap_wb)
	unload || return 1
	for f in failslab fail_page_alloc; do
		echo N > /sys/kernel/debug/$f/ignore-gfp-wait
		echo 0 > /sys/kernel/debug/$f/verbose
	done
	echo N > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
	zswap_on
	swap_on disk || return 1
	cg_new finj "$CG_MAX"
	echo 4M > $CG_ROOT/finj/memory.zswap.max
	cg_run finj thrash --size 200 --passes 20 > /tmp/thrash.out 2>&1 &
	pid=$!
	sleep 3
	n=1 loaded=0 failed=0 bad=0
	while [ $n -le 2000 ]; do
		out=$(modload "$ko" $n "shrink_policy=per_node async_free=1")
		case "$out" in
		loaded*) loaded=$((loaded + 1))
			 set_param async_free 0
			 unload || { msg "unload $i failed"; bad=1; break; } ;;
		failed*) failed=$((failed + 1))
			 [ -d /sys/module/zswap_wb ] && { msg "n=$n: failed load left the module"; bad=1; } ;;
		*) msg "n=$n: $out"; bad=1; break ;;
		esac
		case "$out" in *"not reached"*) break ;; esac
		n=$((n + 1))
	done
	for f in failslab fail_page_alloc; do
		echo Y > /sys/kernel/debug/$f/ignore-gfp-wait
	done
	echo Y > /sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
	modprobe zswap_wb || { msg "the final load failed"; bad=1; }
	# Registered again: a second backend is refused, and the stores call it.
	insmod /lib/modules/$(uname -r)/updates/zswb_dup.ko 2>/dev/null &&
		{ msg "a second backend was accepted"; rmmod zswb_dup; bad=1; }
	# The stores over memory.zswap.max call the point again: wait for
	# the first call (a debug kernel may take many seconds to get one).
	w=0
	while [ "$(wbstat shrink_calls_store)" -eq 0 ] && [ $w -lt $((30 * SCALE)) ]; do
		sleep 1
		w=$((w + 1))
	done
	sc=$(wbstat shrink_calls_store)
	cg_stop finj
	wait $pid
	msg "$n loads: $loaded loaded, $failed failed; first store-path call after ${w} s; stores went on: $(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del finj
	swap_off
	check "every failed load left nothing behind, a final load works" "[ $bad -eq 0 ]" &&
	check "each allocation of the load was failed once" "[ $failed -gt 20 ] && [ $n -lt 2000 ]" &&
	check "the stores still call the shrink point after it all" "[ $sc -gt 0 ]"
}

# Turning async_free off while the swap device is stalled (a suspended
# device-mapper device: its writes are held): the write must return at
# once, other parameters must stay readable and writable (the kernel holds
# one lock over all of a module's parameters), and once the device resumes
# every folio in flight is freed and the point disarmed.
test_async_off_stalled() {
	need_module || return 1
	dm=$(dmctl create zswbstall /dev/vda) || return 1
	zswap_on
	mkswap /dev/$dm >/dev/null && swapon /dev/$dm || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new stall "$CG_MAX"
	cg_run stall thrash --size "$SIZE" --passes 2 > /tmp/thrash.out 2>&1 &
	pid=$!
	while [ $(wbstat written_back) -lt 2000 ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	dmctl suspend zswbstall &
	spid=$!
	sleep 2
	held=$(wbstat inflight)
	t0=$(date +%s)
	echo 0 > $ZSWB_PARAMS/async_free &
	epid=$!
	sleep 1
	# Other parameters, read and written meanwhile, must not wait for it
	# (the kernel holds one lock over all of a module's parameters).
	t1=$(date +%s)
	( echo per_node > $ZSWB_PARAMS/shrink_policy && echo stock > $ZSWB_PARAMS/shrink_policy &&
	  cat $ZSWB_PARAMS/sync_free > /dev/null ) &
	opid=$!
	while kill -0 $opid 2>/dev/null && [ $(( $(date +%s) - t1 )) -lt 10 ]; do
		sleep 0.2
	done
	others=$(( $(date +%s) - t1 ))
	waited=0
	while kill -0 $epid 2>/dev/null && [ $waited -lt 40 ]; do
		sleep 1
		waited=$((waited + 1))
	done
	returned=$(( $(date +%s) - t0 ))
	kill -0 $epid 2>/dev/null && setter_stuck=1 || setter_stuck=0
	# A setter still stuck holds every parameter: read them after resume.
	dmctl resume zswbstall
	wait $spid
	wait $epid
	wait $opid
	state=$(cat $ZSWB_PARAMS/async_free)
	wait $pid
	trc=$?
	i=0
	while [ $(wbstat inflight) -gt 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# Disarmed once drained: a second workload is not offered to the module.
	sleep 2
	w0=$(wbstat written_back)
	cg_run stall thrash --size 200 --passes 1 > /dev/null 2>&1
	w1=$(wbstat written_back)
	msg "held $held folios; setter returned after ${returned}s, others took ${others}s; async_free=$state; after resume: $(tr '\n' ' ' < /tmp/thrash.out)"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	cg_del stall
	swapoff /dev/$dm
	dmctl remove zswbstall
	check "folios were held by the stalled device" "[ $held -gt 0 ]" &&
	check "the setter returned at once" "[ $setter_stuck -eq 0 ] && [ $returned -le 3 ]" &&
	check "other parameters did not wait" "[ $others -le 2 ]" &&
	check "async_free reads N" "[ $state = N ]" &&
	# With its swap device stalled the memcg can run out of memory and kill
	# the workload (137), as on stock; whatever it read back must be right.
	check "checksums hold" "[ $trc -eq 0 ] || { [ $trc -eq 137 ] && ! grep -q 'mismatches [1-9]' /tmp/thrash.out; }" &&
	check "every folio resolved after resume" "[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
	check "the writeback point was disarmed" "[ $w1 -eq $w0 ]"
}

# 100 loads and unloads while a swap workload runs with writeback and
# another task writes random valid and invalid values to every parameter,
# including while the module loads. Before each unload the writer pauses
# and async_free is turned off (the folios in flight pin the module).
test_load_unload_stress() {
	need_module || return 1
	zswap_on
	swap_on disk || return 1
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
}

# wait_inflight N SECONDS: wait until at least N folios are in flight
# (marked, not yet freed or put back) or SECONDS have passed.
wait_inflight() {
	w=0
	while [ "$(wbstat inflight)" -lt "$1" ] && [ $w -lt $(($2 * 20)) ]; do
		sleep 0.05
		w=$((w + 1))
	done
}

# swapoff of the device whose folios are in flight (async_free), five
# times under load, a second device of lower priority taking the writes
# meanwhile. The device's writes are held (a suspended device-mapper
# device) when swapoff starts and let go 2 s later, so that their ends,
# the work item and try_to_unuse() run at once. A folio that
# try_to_unuse() maps or drops from the swap cache first must be put back
# (raced), one the work item frees first is read again from the device by
# swapoff; which comes first is timing (try_to_unuse() usually blocks on
# a held read before it reaches a queued folio), so the test requires
# only that folios were in flight, that every one is accounted for and
# that the data reads back intact.
test_swapoff_inflight() {
	need_module || return 1
	dm=$(dmctl create zswboff /dev/vda) || return 1
	zswap_on
	mkswap /dev/$dm >/dev/null && mkswap /dev/nvme0n1 >/dev/null || { msg "mkswap failed"; return 1; }
	swapprio /dev/$dm 10 && swapprio /dev/nvme0n1 5 || { msg "swapon failed"; return 1; }
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new swoff "$CG_MAX"
	cg_run swoff thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
	pid=$!
	n=0 held=0 bad=0
	while [ $n -lt 5 ] && kill -0 $pid 2>/dev/null; do
		wait_inflight 32 30
		dmctl suspend zswboff &
		spid=$!
		# The suspend first finishes the I/O in flight, which the work
		# item then frees: wait for writes it holds.
		sleep 1
		wait_inflight 1 10
		q=$(wbstat inflight)
		r0=$(wbstat raced)
		swapoff /dev/$dm > /tmp/swapoff.out 2>&1 &
		opid=$!
		sleep 2
		dmctl resume zswboff
		wait $spid
		wait $opid || { msg "swapoff $n failed: $(cat /tmp/swapoff.out)"; bad=1; }
		msg "swapoff $n: started with $q folios in flight, raced +$(( $(wbstat raced) - r0 ))"
		[ "$q" -gt 0 ] && held=$((held + 1))
		swapprio /dev/$dm 10 || { msg "swapon $n failed"; bad=1; break; }
		n=$((n + 1))
	done
	cg_stop swoff
	wait $pid
	trc=$?
	msg "$(tr '\n' ' ' < /tmp/thrash.out)"
	cg_del swoff
	set_param async_free 0
	swap_off
	dmctl remove zswboff
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	check "five swapoff/swapon cycles during the workload" "[ $bad -eq 0 ] && [ $n -eq 5 ]" &&
	check "folios were in flight when a swapoff began" "[ $held -gt 0 ]" &&
	check "the workload verified its data, no mismatch" "[ $trc -eq 0 ] && grep -q '^pages ' /tmp/thrash.out" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
	check "no write error counted (no write failed)" "[ $(wbstat write_errors) -eq 0 ]"
}

# rmdir of a memcg whose folios are in flight: its writes are held by a
# suspended device while its processes are killed and the memcg removed;
# the folios end their writeback after it is gone and are uncharged from
# the offline memcg by the work item. Five times; then nothing is in
# flight, the accounting holds and the memory is back.
test_rmdir_inflight() {
	need_module || return 1
	dm=$(dmctl create zswbrmdir /dev/vda) || return 1
	sync
	echo 3 > /proc/sys/vm/drop_caches
	base=$(free_kb)
	zswap_on
	mkswap /dev/$dm >/dev/null && swapon /dev/$dm || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	n=0 held=0 bad=0
	while [ $n -lt 5 ]; do
		cg_new gone "$CG_MAX"
		cg_run gone thrash --size "$SIZE" --passes 50 > /tmp/thrash.out 2>&1 &
		wait_inflight 32 60
		dmctl suspend zswbrmdir &
		spid=$!
		sleep 1
		wait_inflight 1 10
		# Killed tasks may wait for a swap read held by the device:
		# give them 20 s, then let the device go.
		echo 1 > $CG_ROOT/gone/cgroup.kill
		w=0
		while grep -q "populated 1" $CG_ROOT/gone/cgroup.events && [ $w -lt 200 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		q=$(wbstat inflight)
		if rmdir $CG_ROOT/gone 2>/dev/null; then
			[ "$q" -gt 0 ] && held=$((held + 1))
			msg "cycle $n: memcg removed with $q folios in flight"
		else
			msg "cycle $n: the memcg's tasks did not exit while the device was held"
		fi
		dmctl resume zswbrmdir
		wait $spid
		wait
		cg_del gone || bad=1
		n=$((n + 1))
	done
	w=0
	while [ "$(wbstat inflight)" -gt 0 ] && [ $w -lt 300 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	msg "dying memcgs: $(awk '$1 == "nr_dying_descendants" { print $2 }' $CG_ROOT/cgroup.stat)"
	set_param async_free 0
	swapoff /dev/$dm
	dmctl remove zswbrmdir
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	free_now=$(free_kb)
	msg "free (MemFree + per-CPU lists) before $base kB, after $free_now kB"
	check "every memcg was removed" "[ $bad -eq 0 ]" &&
	check "a memcg was removed with its folios in flight" "[ $held -gt 0 ]" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]" &&
	# No write failed: a folio its task dirtied and unmapped while the
	# device held the write is the task's (raced), not a write error.
	check "no write error counted" "[ $(wbstat write_errors) -eq 0 ]" &&
	check "free memory back within 16 MiB of its baseline" "[ $((base - free_now)) -lt 16384 ]"
}

# kmemleak (debug kernel): every policy on under a workload, unload, then
# two scans must report no leak whose backtrace is the module's or the
# hook's.
test_kmemleak() {
	km=/sys/kernel/debug/kmemleak
	[ -e $km ] || { msg "no kmemleak (not a debug kernel)"; return 4; }
	need_module || return 1
	echo clear > $km
	zswap_on
	swap_on disk || return 1
	set_param async_free 1 && set_param shrink_policy per_node &&
		set_param readahead_policy skip_zswap_slots || return 1
	cg_new leak "$CG_MAX"
	cg_run leak thrash --size "$SIZE" --passes "$PASSES" > /tmp/thrash.out 2>&1
	trc=$?
	cg_del leak
	set_param async_free 0
	swap_off
	unload || return 1
	echo scan > $km
	sleep 5
	echo scan > $km
	grep -B2 -A20 "unreferenced object" $km > /tmp/leaks
	ours=$(grep -c "zswap_wb\|zswb_\|zswap_entry_present\|zswap_shrink_node" /tmp/leaks)
	msg "kmemleak: $(grep -c 'unreferenced object' /tmp/leaks) unreferenced objects, $ours frames of zswap_wb or the hook"
	[ "$ours" -eq 0 ] || sed 's/^/# /' /tmp/leaks | head -60
	modprobe zswap_wb
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "no leak from zswap_wb or the hook" "[ $ours -eq 0 ]"
}

# any_alive PID...: one of them still runs.
any_alive() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}

# Eight vCPUs: four workloads pinned to CPUs 0, 2, 4 and 6, async_free
# turned off and on under them (the percpu_ref of the folios in flight is
# killed, resurrected and reinited), CPUs 1 to 7 taken offline and back in
# turn. The counters are per CPU and summed when read: with the folios of
# one CPU's list freed by another (hotplug, migration), the sums must still
# give the identity exactly, and zswap's own count of writebacks.
test_smp_hotplug() {
	local ncpu i n bad pids trc wb cpu
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	[ "$ncpu" -ge 8 ] || { msg "$ncpu CPUs: this test wants 8"; return 4; }
	need_module || return 1
	zswap_on
	swap_on disk || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	snap a
	pids=""
	for i in 0 2 4 6; do
		cg_new smp$i "$(( ${CG_MAX%M} / 2 ))M"
		cg_run smp$i taskset -c $i thrash --size "$((SIZE / 3))" --passes "$PASSES" > /tmp/thrash.$i 2>&1 &
		pids="$pids $!"
	done
	n=0 bad=0
	while [ $n -lt 14 ] && any_alive $pids; do
		cpu=$((n % 7 + 1))
		echo 0 > /sys/devices/system/cpu/cpu$cpu/online || bad=1
		[ $((n % 3)) = 1 ] && { echo 0 > $ZSWB_PARAMS/async_free || bad=1; }
		sleep 1
		echo 1 > /sys/devices/system/cpu/cpu$cpu/online || bad=1
		echo 1 > $ZSWB_PARAMS/async_free || bad=1
		sleep 0.5
		n=$((n + 1))
	done
	trc=0
	for i in $pids; do
		wait "$i" || trc=1
	done
	for i in 0 2 4 6; do
		msg "cpu $i: $(tr '\n' ' ' < /tmp/thrash.$i)"
		cg_del smp$i
	done
	set_param async_free 0 || bad=1
	snap b
	swap_off
	wb=$(delta zswpwb)
	msg "$n hotplug steps; zswpwb $wb; zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	check "every hotplug step and parameter write succeeded" "[ $bad -eq 0 ] && [ $n -gt 0 ]" &&
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "the policy freed folios" "[ $(wbstat freed_async) -gt 1000 ]" &&
	check "the backend saw no more writebacks than zswap made" "[ $(wbstat written_back) -le $wb ]" &&
	check "every folio written back was freed or put back" "[ $(wb_resolved) -eq $(wbstat written_back) ]" &&
	check "nothing left in flight or queued" "[ $(wbstat inflight) -eq 0 ] && [ $(wbstat queue_depth) -eq 0 ]"
}

# The window in which a write has ended before zswap_writeback_entry()
# handed its folio to the backend (counted by "requeued"): the folio sits
# unlocked in the swap cache, and the backend keeps its end time in
# folio->lru.next, page->compound_head's word, whose bit 0 means "tail
# page". zswb_slowissue spins 200 us before writeback_issued() so that
# thousands of writes end in it, and reads that bit after the spin; the
# host load reads /proc/kpageflags and compacts meanwhile, and an odd
# word there oopses them (page_folio() follows it).
test_compound_head_window() {
	local sp=/sys/module/zswb_slowissue/parameters calls tails rq
	need_module || return 1
	zswap_on
	swap_on disk || return 1
	set_param async_free 1 || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	modprobe zswb_slowissue delay_us=200 || { msg "cannot load zswb_slowissue"; return 1; }
	cg_new window "$CG_MAX"
	# Two thirds of the workload: the spin makes each writeback 200 us longer.
	run_thrash window --size "$((SIZE / 3 * 2))" --passes "$PASSES"
	trc=$?
	calls=$(cat $sp/calls) tails=$(cat $sp/tail_words)
	rmmod zswb_slowissue
	cg_del window
	set_param async_free 0
	swap_off
	rq=$(wbstat requeued)
	msg "writeback_issued() delayed $calls times; $rq folios ended first (requeued); $tails with bit 0 of compound_head set"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	check "checksums hold" "[ $trc -eq 0 ]" &&
	check "thousands of writes ended before writeback_issued()" "[ $rq -gt 1000 ]" &&
	check "no folio looked like a tail page" "[ $tails -eq 0 ]" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
}

# swapin_window POLICY MODE: swapinrace's 16 MiB pushed to zswap, written
# back to a suspended device-mapper device (writes held), the device let
# go; then, with zswb_holdfree holding the free work item back when
# POLICY is async, the region is swapped in by MODE (swapinrace.c) while
# its folios wait to be freed. Sets sw_queued (folios queued when the
# swapin began), sw_left (swap slots still charged to the memcg after the
# swapin, in pages), sw_cached (its memory.stat swapcached, pages),
# sw_copied (pages copied after a fork), sw_raced, sw_werr (the module's
# counters) and sw_rc (swapinrace's status).
swapin_window() {
	local pol=$1 mode=$2 dm job pid w wb0
	dm=$(dmctl create zswbsw /dev/vda) || return 1
	zswap_on
	mkswap /dev/$dm >/dev/null && swapon /dev/$dm || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	echo 1 > $ZSWB_DEBUGFS/reset
	cg_new swrace max
	cg_run swrace swapinrace 16 "$mode" > /tmp/swapinrace.out 2>&1 &
	job=$!
	# $! is the subshell of cg_run; swapinrace is the memcg's one process.
	while [ -z "$(cat $CG_ROOT/swrace/cgroup.procs)" ]; do
		kill -0 $job 2>/dev/null || { msg "swapinrace: $(cat /tmp/swapinrace.out)"; return 1; }
		sleep 0.1
	done
	pid=$(cat $CG_ROOT/swrace/cgroup.procs)
	wait_stopped $pid || { msg "swapinrace: $(cat /tmp/swapinrace.out)"; return 1; }
	# Into zswap first, then written back while the device holds the writes.
	echo N > /sys/module/zswap/parameters/shrinker_enabled
	cg_reclaim swrace 20M
	echo Y > /sys/module/zswap/parameters/shrinker_enabled
	dmctl suspend zswbsw || return 1
	if [ "$pol" = async ]; then
		modprobe zswb_holdfree || { msg "cannot load zswb_holdfree"; return 1; }
	fi
	wb0=$(vmstat zswpwb)
	cg_reclaim swrace 20M
	cg_reclaim swrace 20M
	msg "$pol/$mode: $(( $(vmstat zswpwb) - wb0 )) written back while held, inflight $(wbstat inflight)"
	dmctl resume zswbsw
	w=0
	while [ "$(meminfo Writeback)" -gt 0 ] && [ $w -lt 200 ]; do
		sleep 0.05
		w=$((w + 1))
	done
	sw_queued=$(wbstat queue_depth)
	kill -CONT $pid
	# Long enough for the swapin of every page when nothing waits.
	sleep 3
	[ "$pol" = async ] && echo 0 > /sys/module/zswb_holdfree/parameters/hold
	wait_stopped $pid || true
	w=0
	while [ "$(wbstat inflight)" -gt 0 ] && [ $w -lt 200 ]; do
		sleep 0.05
		w=$((w + 1))
	done
	sw_left=$(( $(cat $CG_ROOT/swrace/memory.swap.current) / 4096 ))
	sw_cached=$(( $(cgstat swrace swapcached) / 4096 ))
	sw_raced=$(wbstat raced) sw_werr=$(wbstat write_errors)
	kill -CONT $pid
	wait $job
	sw_rc=$?
	sw_copied=$(awk '$1 == "copied" { print $2 }' /tmp/swapinrace.out)
	[ "$pol" = async ] && rmmod zswb_holdfree
	msg "$pol/$mode: $(tr '\n' ' ' < /tmp/swapinrace.out); queued $sw_queued; left $sw_left cached $sw_cached pages"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	cg_del swrace
	set_param async_free 0
	swapoff /dev/$dm
	dmctl remove zswbsw
}

# A write fault on a folio whose write ended and that waits to be freed:
# on stock it frees the folio's swap slot (should_try_to_free_swap()), and
# a later fork and write reuse the page; they must with async_free too,
# although the queued folio holds one more reference: the swapin waits
# for the folio lock, which zswap_wb holds until it frees the folio or
# puts it back. Measured against stock on the same region: swap slots and
# swap cache left behind (write), pages copied by a fork and a second
# write (writefork). The work item is held back (zswb_holdfree) so that
# the swapin runs while thousands of folios are queued.
test_swapin_window_write() {
	local s_left s_cached s_copied
	need_module || return 1
	swapin_window stock write || return 1
	s_left=$sw_left s_cached=$sw_cached
	check "stock: data intact" "[ $sw_rc -eq 0 ]" || return 1
	swapin_window async write || return 1
	msg "swap left: stock $s_left, async_free $sw_left pages; swap cache: stock $s_cached, async_free $sw_cached"
	check "async_free: data intact" "[ $sw_rc -eq 0 ]" &&
	check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
	check "swap slots left as stock (within 256 pages, 1/16 of the region)" "[ $sw_left -le $((s_left + 256)) ]" &&
	check "swap cache left as stock (within 256 pages)" "[ $sw_cached -le $((s_cached + 256)) ]" || return 1
	swapin_window stock writefork || return 1
	s_copied=$sw_copied
	check "stock: data intact after the fork" "[ $sw_rc -eq 0 ]" || return 1
	swapin_window async writefork || return 1
	msg "copied after a fork: stock $s_copied, async_free $sw_copied pages"
	check "async_free: data intact after the fork" "[ $sw_rc -eq 0 ]" &&
	check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
	check "no more pages copied after a fork than stock" "[ $sw_copied -le $s_copied ]" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
}

# A write through /proc/self/mem (get_user_pages(), which dirties the
# folio as it unpins it) on folios that wait to be freed: such a folio
# comes back to the free dirty and in the swap cache, as a failed write
# does, but mapped (or, once its task unmapped it, anon). It is the
# swapin's, not a failed write: write_errors must stay 0.
test_swapin_window_gup() {
	need_module || return 1
	swapin_window async procmem || return 1
	check "data intact" "[ $sw_rc -eq 0 ]" &&
	check "thousands of folios queued when the swapin began" "[ $sw_queued -gt 1000 ]" &&
	check "no write error counted (no write failed)" "[ $sw_werr -eq 0 ]" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
}

# oom_runs POLICY RUNS MAX SIZE: RUNS runs of thrash (SIZE MiB, data
# checked) in a memcg of memory.max MAX on disk swap, async_free as
# POLICY says; sets oom_events and oom_kills (memory.events, summed),
# oom_failed (runs whose thrash did not end with status 0).
oom_runs() {
	local pol=$1 runs=$2 max=$3 mib=$4 r
	oom_events=0 oom_kills=0 oom_failed=0
	zswap_on
	swap_on disk || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	r=0
	while [ $r -lt "$runs" ]; do
		cg_new oomcg "$max"
		cg_run oomcg thrash --size "$mib" --passes 2 > /tmp/thrash.out 2>&1 || oom_failed=$((oom_failed + 1))
		oom_events=$((oom_events + $(awk '$1 == "oom" { print $2 }' $CG_ROOT/oomcg/memory.events)))
		oom_kills=$((oom_kills + $(awk '$1 == "oom_kill" { print $2 }' $CG_ROOT/oomcg/memory.events)))
		cg_del oomcg
		r=$((r + 1))
	done
	msg "$pol: $runs runs of $mib MiB in $max: oom $oom_events, oom_kill $oom_kills, failed runs $oom_failed; $(tr '\n' ' ' < /tmp/thrash.out)"
	set_param async_free 0
	swap_off
}

# A memcg that sits at its memory.max: queued folios are charged to it
# but out of reclaim's reach until they are freed. Runs alternate stock
# and async_free; async_free must not OOM more often than stock. In 8M
# (the default), beside the host load, stock was OOM-killed in each of
# three runs and async_free in none (design.rst, "A memcg at its limit").
test_oom_at_limit() {
	local runs=${ZSWB_TEST_OOM_RUNS:-3} i s_ev=0 s_kill=0 s_fail=0 a_ev=0 a_kill=0 a_fail=0
	need_module || return 1
	echo 1 > $ZSWB_DEBUGFS/reset
	i=0
	while [ $i -lt "$runs" ]; do
		oom_runs stock 1 "${ZSWB_TEST_OOM_MAX:-8M}" "${ZSWB_TEST_OOM_SIZE:-48}" || return 1
		s_ev=$((s_ev + oom_events)) s_kill=$((s_kill + oom_kills)) s_fail=$((s_fail + oom_failed))
		oom_runs async 1 "${ZSWB_TEST_OOM_MAX:-8M}" "${ZSWB_TEST_OOM_SIZE:-48}" || return 1
		a_ev=$((a_ev + oom_events)) a_kill=$((a_kill + oom_kills)) a_fail=$((a_fail + oom_failed))
		i=$((i + 1))
	done
	msg "over $runs runs each: stock oom $s_ev oom_kill $s_kill failed $s_fail; async_free oom $a_ev oom_kill $a_kill failed $a_fail"
	msg "zswap_wb: $(tr '\n' ' ' < $ZSWB_DEBUGFS/stats)"
	check "async_free OOM-killed no more often than stock" "[ $a_kill -le $s_kill ]" &&
	check "every folio written back was freed or put back" \
		"[ $(wbstat inflight) -eq 0 ] && [ $(wb_resolved) -eq $(wbstat written_back) ]"
}

# ws_run POLICY WHERE MIB MAX: one thrash run of MIB in memcg anc/leaf on
# disk swap, the limit MAX on the leaf or on its parent (WHERE: leaf or
# parent), async_free as POLICY says. Sets ws_refault, ws_activate (the
# leaf's memory.stat workingset_*_anon) and ws_wb (zswpwb).
ws_run() {
	local pol=$1 where=$2 mib=$3 max=$4 wb0
	zswap_on
	swap_on disk || return 1
	[ "$pol" = async ] && { set_param async_free 1 || return 1; }
	mkdir $CG_ROOT/anc && echo +memory > $CG_ROOT/anc/cgroup.subtree_control &&
		mkdir $CG_ROOT/anc/leaf || return 1
	if [ "$where" = parent ]; then
		echo "$max" > $CG_ROOT/anc/memory.max
	else
		echo "$max" > $CG_ROOT/anc/leaf/memory.max
	fi
	wb0=$(vmstat zswpwb)
	run_thrash anc/leaf --size "$mib" --passes "$PASSES" > /dev/null || return 1
	ws_wb=$(( $(vmstat zswpwb) - wb0 ))
	ws_refault=$(cgstat anc/leaf workingset_refault_anon)
	ws_activate=$(cgstat anc/leaf workingset_activate_anon)
	cg_del anc/leaf && cg_del anc || return 1
	set_param async_free 0
	swap_off
	msg "$pol, limit on the $where: zswpwb $ws_wb workingset_refault_anon $ws_refault activate $ws_activate"
}

# Refault detection of the folios async_free frees, against stock's, with
# the limit on the workload memcg's parent: stock's reclaim names its
# target (the parent) in the shadow entry, and so must the module, or the
# leaf's refaults look recent and are activated. Alternated runs
# (ZSWB_TEST_WS_RUNS pairs; ZSWB_TEST_WS_WHERE="leaf parent" measures the
# limit on the leaf too); async_free may activate at most 0.1% of its
# refaults more than stock.
test_shadow_target() {
	local runs=${ZSWB_TEST_WS_RUNS:-1} mib=$((SIZE / 2)) max=$((${CG_MAX%M} / 2))M
	local where i s_act s_ref a_act a_ref
	need_module || return 1
	for where in ${ZSWB_TEST_WS_WHERE:-parent}; do
		i=0 s_act=0 s_ref=0 a_act=0 a_ref=0
		while [ $i -lt "$runs" ]; do
			ws_run stock $where $mib $max || return 1
			s_act=$((s_act + ws_activate)) s_ref=$((s_ref + ws_refault))
			ws_run async $where $mib $max || return 1
			a_act=$((a_act + ws_activate)) a_ref=$((a_ref + ws_refault))
			i=$((i + 1))
		done
		msg "limit on the $where, $runs runs each: activated stock $s_act of $s_ref refaults, async_free $a_act of $a_ref"
		check "limit on the $where: async_free activates refaults as stock (within 0.1%)" \
			"[ $a_act -le $((s_act + a_ref / 1000)) ]" || return 1
	done
}

run() {
	desc=$1
	shift
	"$@"
	rc=$?
	# Undo what the test set up even if it failed, so one failure stays one.
	test_cleanup
	case $rc in
	0) ktap_test_pass "$desc" ;;
	4) ktap_test_skip "$desc" ;;
	*) ktap_test_fail "$desc" ;;
	esac
}

# plan N: the group's N tests, and one more for the host load
# (hostload.sh) that runs beside them, started here.
plan() {
	if hostload_enabled; then
		ktap_set_plan $(($1 + 1))
		hostload_start
	else
		ktap_set_plan "$1"
	fi
}

# The last test of a group: the host load ran beside every test of it.
hostload_done() {
	hostload_enabled || return 0
	run "host load beside the group: page walkers, compaction, THP, DAMON, a tenant" hostload_stop
}

ktap_print_header
group=${1:-basic}
case "$group" in
basic)
	plan 7
	run "load and unload 20 times" test_load_unload_20
	run "parameters present with their documented defaults" test_param_defaults
	run "invalid parameter writes refused, nothing changed" test_invalid_writes
	run "debugfs schema describes every statistic and parameter" test_schema
	run "a second backend registration is refused" test_second_backend_refused
	run "policies off: stock writeback and rotation (disk)" test_stock_behaviour
	run "async_free beside reclaim's own swap writes (disk)" test_prompt_with_reclaim_writes
	run "refault detection as stock with the limit on the parent (disk)" test_shadow_target
	hostload_done
	;;
prompt)
	kind=${2:?kind}
	plan 4
	run "prompt free on $kind: pgrotated < 1%, freed + raced = written back, data intact" test_prompt_free "$kind"
	run "prompt free on $kind: 100 toggles under load lose nothing" test_prompt_toggle "$kind"
	run "prompt free on $kind: unload under load, nothing queued, free memory back" test_prompt_unload "$kind"
	run "prompt free on $kind: CPU 1 offline and back 10 times under load" test_prompt_cpu_hotplug "$kind"
	hostload_done
	;;
shrink)
	plan 5
	run "every shrink policy writes back from both nodes" test_shrink_both_nodes
	run "max_pool_percent=1: per_node writes back more in fewer calls than stock" test_shrink_pool_limit
	run "memory.zswap.max: per_node writes back more in fewer calls than stock" test_shrink_zswap_max
	run "switching shrink policy and batch under load is safe" test_shrink_switch_under_load
	run "memory.zswap.max, shrink_batch=1024: a store scans at most 32 per node" test_shrink_store_bounded
	hostload_done
	;;
readahead)
	plan 5
	run "a zswap-resident region faults back without readahead under both policies" test_ra_zswap_region
	run "skip_zswap_slots keeps readahead for disk slots, skips zswap ones" test_ra_half_on_disk
	run "switching readahead_policy under load is safe" test_ra_switch_under_load
	run "zswap faults leave disk readahead windows as stock" test_ra_disk_window
	run "two swap devices, swapoff/swapon under readahead: no use after free" test_ra_two_devices
	hostload_done
	;;
harden)
	plan 10
	run "async_free written during insmod: init builds, then arms" test_param_write_during_insmod
	run "writes ending before writeback_issued(): no tail-page bit, walkers beside" test_compound_head_window
	run "each allocation of insmod failed in turn under shrink load" test_insmod_fault_injection
	run "async_free off on a stalled device: bounded, others not blocked" test_async_off_stalled
	run "100 load/unload cycles beside random parameter writes and writeback" test_load_unload_stress
	run "swapoff of the device while its folios are in flight, 5 times" test_swapoff_inflight
	run "memcg removed while its folios are in flight, 5 times" test_rmdir_inflight
	run "write faults on queued folios free their swap slots as stock" test_swapin_window_write
	run "writes through get_user_pages() on queued folios are not write errors" test_swapin_window_gup
	run "kmemleak: no leak from zswap_wb or the hook after unload" test_kmemleak
	hostload_done
	;;
smp)
	plan 1
	run "8 vCPUs, CPUs offline and back, async_free toggled: the per-CPU sums add up" test_smp_hotplug
	hostload_done
	;;
nomemcg)
	plan 1
	run "cgroup_disable=memory: the global shrinker writes back" test_nomemcg_global_shrinker
	hostload_done
	;;
write-errors)
	plan 2
	run "async_free with failing swap writes: no data lost, no dirty folio freed" test_write_errors
	run "a memcg at its memory.max: async_free OOMs no more often than stock" test_oom_at_limit
	hostload_done
	;;
one)
	# one TEST_FUNCTION [ARGS]: a single test, for debugging
	shift
	plan 1
	run "$*" "$@"
	hostload_done
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
