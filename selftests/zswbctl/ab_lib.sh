# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154 # lib.sh sets, the suites use
#
# Sourced, after lib.sh, by the host suites of zswbctl ab and of what
# goes with it (selftests/host/zswbctl-ab-*.sh, zswbctl-plot.sh,
# zswbctl-prom-rules.sh): the module's tree with policy scopes, configfs
# and an empty cgroup root (fake_ab), the checks that a refused ab
# changed nothing, and the runs the reports are computed from, each
# written into $tmp by a function that says what it holds. ab's real runs
# are the VM test selftests/zswap_wb/ab/ab_sequential.sh: here the host's
# module, cgroups and page cache are never touched.

# The command ab is given: it leaves $marker if something runs it.
marker=$tmp/ran

# fake_ab: the module's tree as the sources describe it, two scopes in
# debugfs (global and b) and configfs (b), an empty cgroup root, and
# $tmp/cmd, the command.
fake_ab() {
	rm -rf "$tmp/sys" "$d" "$tmp/config" "$tmp/cgroup" "$tmp/proc" "$marker"
	mkdir -p "$p" "$d/scopes/global" "$d/scopes/b" "$tmp/config/b" "$tmp/cgroup" \
		"$tmp/proc/sys/vm"
	echo N >"$p/sync_free"
	echo N >"$p/async_free"
	echo "[stock] carry split per_node local_first" >"$p/shrink_policy"
	echo 32 >"$p/shrink_batch"
	echo "[stock] skip_fault skip_zswap_slots" >"$p/readahead_policy"
	bash "$top/selftests/module_schema.sh" >"$d/schema"
	printf '%s\n' "written_back 30" "freed_sync 0" "freed_async 20" "store_rejects 3" \
		"inflight 0" "shrink_scanned_node0 5" >"$d/stats"
	printf '%s\n' "written_back 10" "freed_sync 0" "freed_async 0" "store_rejects 1" \
		"inflight 0" "shrink_scanned_node0 2" >"$d/scopes/global/stats"
	printf '%s\n' "written_back 20" "freed_sync 0" "freed_async 20" "store_rejects 2" \
		"inflight 0" "shrink_scanned_node0 3" >"$d/scopes/b/stats"
	printf '%s\n' "1 5" "2 10" "4 0" >"$d/free_latency_us"
	printf '%s\n' "1 0" "2 0" "4 0" >"$d/scopes/global/free_latency_us"
	printf '%s\n' "1 5" "2 10" "4 0" >"$d/scopes/b/free_latency_us"
	echo /ab/b >"$tmp/config/b/cgroup"
	echo Y >"$tmp/config/b/async_free"
	echo N >"$tmp/config/b/sync_free"
	echo "stock [per_node] carry split local_first" >"$tmp/config/b/shrink_policy"
	echo 64 >"$tmp/config/b/shrink_batch"
	echo "[stock] skip_fault skip_zswap_slots" >"$tmp/config/b/readahead_policy"
	: >"$tmp/cgroup/cgroup.subtree_control"
	printf '%s\n' "pgrotated 0" "zswpwb 0" >"$tmp/proc/vmstat"
	printf '#!/bin/sh\n: >"%s"\n' "$marker" >"$tmp/cmd"
	chmod +x "$tmp/cmd"
}

# untouched: the command never ran, the parameters and configfs are as
# fake_ab made them, nothing is left in the cgroup tree.
untouched() {
	[ ! -e "$marker" ] &&
		[ "$(cat "$p/async_free" "$p/shrink_policy" "$p/shrink_batch")" = \
		  "$(printf 'N\n[stock] carry split per_node local_first\n32')" ] &&
		[ "$(ls "$tmp/config")" = b ] &&
		[ "$(ls "$tmp/cgroup")" = cgroup.subtree_control ]
}

# refused DESC CODE MESSAGE ARGS...: on a fresh fake_ab tree, zswbctl ab
# ARGS exits CODE, says MESSAGE (a glob) on stderr, and changed nothing.
refused() {
	local desc=$1 code=$2 message=$3

	shift 3
	fake_ab
	zsw ab "$@"
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $rc == "$code" && $err == $message && -z $out ]] && untouched
	result "ab refuses $desc (exit $code) before anything runs" $?
}

# ab_runs: $tmp/runs.csv, the runs of the report arithmetic. Six pairs,
# alternated (A B, B A, ...): B about half of A in every pair, so every
# pair's sign agrees and the exact two-sided p is 2/2^6; a metric 0
# everywhere; one where A is 0 and B is not (no ratio: differences); one
# with a value missing in pair 1. A 7th pair's B run failed (exit 3),
# with values that would move every figure: it is left out, and the
# figures are the six pairs'. With JSON, also $tmp/runs.json, its report
# (ab --json --metric m), and its exit status.
ab_runs() {
	cat >"$tmp/runs.csv" <<'EOF'
run,kind,pair,side,settings,exit,m,zero,azero,gap
0,warmup,0,A,"async_free=N",0,1000,0,0,1
1,aa,0,A,"async_free=N",0,100,0,0,1
2,aa,0,A,"async_free=N",0,101,0,0,1
3,pair,1,A,"async_free=N",0,100,0,0,1
4,pair,1,B,"async_free=Y",0,50,0,5,
5,pair,2,B,"async_free=Y",0,53,0,6,2
6,pair,2,A,"async_free=N",0,102,0,0,2
7,pair,3,A,"async_free=N",0,98,0,0,2
8,pair,3,B,"async_free=Y",0,48,0,4,2
9,pair,4,B,"async_free=Y",0,51,0,5,2
10,pair,4,A,"async_free=N",0,100,0,0,2
11,pair,5,A,"async_free=N",0,101,0,0,2
12,pair,5,B,"async_free=Y",0,49,0,7,2
13,pair,6,B,"async_free=Y",0,50,0,5,2
14,pair,6,A,"async_free=N",0,99,0,0,2
15,pair,7,A,"async_free=N",0,100,0,0,2
16,pair,7,B,"async_free=Y",3,10,0,99,40
EOF
	[ "${1-}" = JSON ] || return 0
	zsw ab --json --metric m --from-csv "$tmp/runs.csv"
	cp "$tmp/out" "$tmp/runs.json"
	return "$rc"
}

# ab_ties: $tmp/ties.csv. Ties: a counter t that moves in whole units,
# B - A = -3 1 2 2 2 2 5 5 5 where A is 0 but in the first pair: the
# tie-aware p is 0.043, but the interval reaches below 0; m is 10 always.
ab_ties() {
	local i=0 n=1 a b

	printf '%s\n' "run,kind,pair,side,settings,exit,m,t" >"$tmp/ties.csv"
	for b in 0 1 2 2 2 2 5 5 5; do
		a=3
		[ "$b" = 0 ] || a=0
		printf '%s\n' "$i,pair,$n,A,,0,10,$a" "$((i + 1)),pair,$n,B,,0,10,$b" >>"$tmp/ties.csv"
		i=$((i + 2)) n=$((n + 1))
	done
}

# ab_rel: $tmp/rel.csv, and $tmp/rel.json its report (ab --json --metric
# rot; its exit status). The rel scale: a count above 0 in every A run
# and 0 in some B runs has no log, but each pair's change relative to its
# own A, (B - A) / A, is defined: -100% where B is 0, never below. Eight
# pairs, alternated: gone is 0 in every B run; rot in four, the others'
# changes -50%, -80%, -20%, +20% (a tie of magnitudes with -20%); adiff
# has an A run of 0 in pair 1, so it keeps the diff scale, as a % of A's
# median (10).
ab_rel() {
	local i=2 n ga ra da gb rb db a b

	printf '%s\n' "run,kind,pair,side,settings,exit,m,gone,rot,adiff" \
		"0,aa,0,A,,0,10,55000,55000,10" "1,aa,0,A,,0,10,54000,56100,10" >"$tmp/rel.csv"
	while read -r n ga ra da gb rb db; do
		a="$i,pair,$n,A,,0,10,$ga,$ra,$da"
		b="$((i + 1)),pair,$n,B,,0,11,$gb,$rb,$db"
		if [ $((n % 2)) = 1 ]; then
			printf '%s\n' "$a" "$b"
		else
			printf '%s\n' "$b" "$a"
		fi >>"$tmp/rel.csv"
		i=$((i + 2))
	done <<'EOF'
1 54000 50000 0 0 0 3
2 56000 52000 10 0 26000 14
3 59000 49000 12 0 0 16
4 57000 51000 9 0 10200 12
5 55000 53000 11 0 0 17
6 58000 50500 10 0 40400 13
7 54500 48000 13 0 57600 20
8 56500 52500 8 0 0 9
EOF
	zsw ab --json --metric rot --from-csv "$tmp/rel.csv"
	cp "$tmp/out" "$tmp/rel.json"
	return "$rc"
}

# ab_three: $tmp/three.csv, and $tmp/three.json its report (ab --json
# --metric m; its exit status). Three sides: each run next to an A run
# (A B C A, then mirrored A C B A), A drifting within the pair (100 then
# 110). Each side is paired with its nearest A: B 20% lower against the
# first, C equal to the second.
ab_three() {
	printf '%s\n' "run,kind,pair,side,settings,exit,m" '0,aa,0,A,"x=1",0,100' '1,aa,0,A,"x=1",0,101' \
		'2,pair,1,A,"x=1",0,100' '3,pair,1,B,"x=2",0,80' '4,pair,1,C,"x=3",0,110' '5,pair,1,A,"x=1",0,110' \
		'6,pair,2,A,"x=1",0,100' '7,pair,2,C,"x=3",0,100.5' '8,pair,2,B,"x=2",0,88' '9,pair,2,A,"x=1",0,110' \
		>"$tmp/three.csv"
	zsw ab --json --metric m --from-csv "$tmp/three.csv"
	cp "$tmp/out" "$tmp/three.json"
	return "$rc"
}
