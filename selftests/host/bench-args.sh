#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite bench-args (selftests/run.sh bench-args); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# bench_knobs_conf, bench_knobs_doc: "FILE NAME DEFAULT" for every knob of
# tools/bench/config/*.conf, as the files set them and as running.rst's
# tables (one per file, "Benchmark knobs") list them.
bench_knobs_conf() {
	awk 'FNR == 1 { f = FILENAME; sub(/.*\//, "", f) }
		/^ZSWB_/ {
			n = substr($0, 1, index($0, "=") - 1); p = n "=${" n ":-"
			if (index($0, p) != 1 || $0 !~ /}$/) { print f, n, "(not NAME=${NAME:-default})"; next }
			print f, n, substr($0, length(p) + 1, length($0) - length(p) - 1) }' tools/bench/config/*.conf
}
bench_knobs_doc() {
	awk '/^\.\. list-table::/ { f = ""; if (match($0, /config\/[a-z-]+\.conf/)) f = substr($0, RSTART + 7, RLENGTH - 7) }
		f != "" && /^   \* - ``ZSWB_/ {
			n = $0; gsub(/^   \* - ``|``$/, "", n)
			getline d; sub(/^     - /, "", d)
			if (d == "(empty)") d = ""; else gsub(/^``|``$/, "", d)
			print f, n, d }' Documentation/running.rst
}

# make bench refuses bad input before it builds or boots anything,
# running.rst lists its knobs as tools/bench/config sets them, report.py
# reads each BENCH_TABLE and BENCH_FIGURE as sh does, and report.py draws the
# figures of results.rst from the committed JSON.
suite_bench_args() {
	local msg v w f bad=""
	ktap_print_header
	ktap_set_plan 15
	msg=$(bash tools/bench/run.sh prompt-free nosuch 2>&1)
	# Names are checked before the first benchmark boots its VM.
	if [ $? = 1 ] && [[ $msg == *"unknown benchmark 'nosuch'"* ]] &&
	   [[ $msg != *"accel tcg"* ]]; then
		ktap_test_pass "an unknown benchmark name is refused"
	else
		echo "$msg" | sed 's/^/# /'; ktap_test_fail "an unknown benchmark name is refused"
	fi
	for v in x 0; do
		msg=$(ZSWB_BENCH_JOBS=$v bash tools/bench/run.sh store 2>&1)
		if [ $? = 1 ] && [[ $msg == *"ZSWB_BENCH_JOBS must be a positive number, not '$v'"* ]]; then
			ktap_test_pass "ZSWB_BENCH_JOBS=$v is refused"
		else
			echo "$msg" | sed 's/^/# /'; ktap_test_fail "ZSWB_BENCH_JOBS=$v is refused"
		fi
	done
	# A knob of apps that does not evaluate fails apps alone, clearly.
	f=$(ZSWB_CACHE=$out/cache ZSWB_APPS_ROUNDS=x bash tools/bench/run.sh --plan store 2>&1)
	v=$?
	msg=$(ZSWB_CACHE=$out/cache ZSWB_APPS_ROUNDS=x bash tools/bench/run.sh --plan apps 2>&1)
	w=$?
	if [ $v = 0 ] && [[ $f =~ ^[0-9]+\ store$ ]] && [ $w = 1 ] &&
	   [[ $msg == *"error: tools/bench/config/apps.conf: a knob is not valid"* ]]; then
		ktap_test_pass "ZSWB_APPS_ROUNDS=x fails make bench of apps, named, and not of store"
	else
		printf '%s\n' "$f" "$msg" | sed 's/^/# /'; ktap_test_fail "ZSWB_APPS_ROUNDS=x fails make bench of apps, named, and not of store"
	fi
	# The shrinker's precision stop: off runs ZSWB_BENCH_PAIRS pairs
	# (the guest is given "off"); anything but off or 1 to 99 is refused.
	f=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_SHRINK_PRECISION=off bash tools/bench/run.sh --plan shrinker 2>&1)
	v=$?
	msg=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_SHRINK_PRECISION=5% bash tools/bench/run.sh --plan shrinker 2>&1)
	w=$?
	if [ $v = 0 ] && [[ $f =~ ^[0-9]+\ shrinker$ ]] && [ $w = 1 ] &&
	   [[ $msg == *"ZSWB_BENCH_SHRINK_PRECISION: a half-width in % (1 to 99) or off, not '5%'"* ]] &&
	   [ "$(. tools/bench/config/common.conf; ZSWB_BENCH_SHRINK_PRECISION=off; . tools/bench/config/shrinker.conf; echo "$ZSWB_BENCH_SHRINK_PRECISION")" = off ]; then
		ktap_test_pass "ZSWB_BENCH_SHRINK_PRECISION=off is kept, =5% is refused"
	else
		printf '%s\n' "$f" "$msg" | sed 's/^/# /'; ktap_test_fail "ZSWB_BENCH_SHRINK_PRECISION=off is kept, =5% is refused"
	fi
	bench_apps_plan
	# The files in any order, the knobs of each in the file's order.
	bench_knobs_conf | sort -s -k1,1 > "$out/knobs.conf"
	bench_knobs_doc | sort -s -k1,1 > "$out/knobs.doc"
	if [ -s "$out/knobs.conf" ] && diff "$out/knobs.conf" "$out/knobs.doc" > "$out/knobs.diff"; then
		ktap_test_pass "running.rst lists the $(wc -l < "$out/knobs.conf") benchmark knobs with their defaults"
	else
		sed 's/^/# /' "$out/knobs.diff"
		ktap_test_fail "running.rst lists the benchmark knobs with their defaults"
	fi
	bench_list_conf BENCH_TABLE
	bench_list_conf BENCH_FIGURE
	# Every figure results.rst includes, drawn again from bench-results/
	# into a directory of its own, as a well-formed SVG.
	zswb_need python3-matplotlib
	msg=$(/usr/bin/python3 tools/bench/report.py figures bench-results "$out/figures" 2>&1) || bad=" report.py failed"
	for f in $(sed -n 's/^\.\. \(image\|figure\):: figures\///p' Documentation/results.rst); do
		/usr/bin/python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out/figures/$f" 2>/dev/null ||
			bad="$bad $f"
	done
	if [ -z "$bad" ] && grep -q "^\.\. \(image\|figure\):: figures/" Documentation/results.rst; then
		ktap_test_pass "report.py draws every figure of results.rst from bench-results/"
	else
		echo "$msg" | sed 's/^/# /'
		ktap_test_fail "report.py draws every figure of results.rst from bench-results/ (missing or broken:$bad)"
	fi
	bench_apps_report
	bench_ab_report
	bench_table_default
}

# VAR (BENCH_TABLE, BENCH_FIGURE) of each tools/bench/config file, as sh
# sources it (set -u, after common.conf, as the guest does) and as
# report.py reads it, is the same list.
bench_list_conf() {
	local var=$1 f n sh py bad="" desc="report.py reads each $1 of tools/bench/config as sh does"
	for f in tools/bench/config/*.conf; do
		n=$(basename "$f" .conf)
		[ "$n" != common ] || continue
		sh=$(sh -uc '. tools/bench/config/common.conf; . "$1"; eval echo \${$2:-}' sh "$f" "$var" 2>&1) ||
			bad="$bad $n(sh)"
		py=$(python3 -B -c 'import sys; sys.path.insert(0, "tools/bench"); import report
print(" ".join(report.bench_list(sys.argv[1], sys.argv[2]) or []))' "$n" "$var" 2>&1) || bad="$bad $n(python)"
		[ "$sh" = "$py" ] || { bad="$bad $n"; printf '# %s: sh: %s\n# %s: report.py: %s\n' "$n" "$sh" "$n" "$py"; }
	done
	if [ -z "$bad" ] && grep -q "^$var=\"" tools/bench/config/*.conf; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc (not:$bad)"
	fi
}

# A benchmark without BENCH_TABLE (report.py's name for it has no file in
# tools/bench/config), on bench_ab_report's store log: its table has the
# primary metric ab judged by and the command's own metrics (cmd.*), not
# the others (wall_s).
bench_table_default() {
	local d=$out/ab-report desc="report.py: a benchmark without BENCH_TABLE tables its primary and cmd.* metrics"
	if python3 tools/bench/report.py nosuch "$d/store.log" > "$d/nosuch.out" 2>&1 &&
	   [ "$(sed -n 's/^  \([a-z_.0-9]*\)  .*/\1/p' "$d/nosuch.out" | tr '\n' ' ')" = \
	     "metric cmd.store_p99_us cmd.rejected_pct " ] &&
	   grep -q 'adjusted but for cmd.store_p99_us, the primary metric$' "$d/nosuch.out"; then
		ktap_test_pass "$desc"
	else
		sed 's/^/# /' "$d/nosuch.out"
		ktap_test_fail "$desc"
	fi
}

# report.py reports a make bench comparison as it reports apps: a store
# log as the guest prints it, stock (A) against per_node (B), 6 pairs
# (A B, B A, ...) after a warm-up and an A/A pair: per_node's store p99
# twice stock's in every pair (the primary metric, as ab's report names
# it after ab's exit line; a guest's line before that is not ab's), its
# rejected share a tenth. The CSV is kept beside the JSON as
# store-disk.csv, the JSON keyed by the swap kind (the group is the
# benchmark's own) and by ab's metric names.
bench_ab_report() {
	local d=$out/ab-report p s i=3 desc="report.py store: a make bench comparison from zswbctl ab's CSV"
	mkdir -p "$d"
	{
		echo "ABSIDES store disk A=stock B=per_node"
		echo "# store: a line of the guest's"
		echo "# primary: wall_s, a line of the guest's too"
		echo "# zswbctl ab store disk: exit 0"
		echo "# primary: cmd.store_p99_us, at alpha 0.05"
		{
			printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.store_p99_us,cmd.rejected_pct" \
				'0,warmup,0,A,"shrink_policy=stock",0,30,20000,20' \
				'1,aa,0,A,"shrink_policy=stock",0,29,21000,21' \
				'2,aa,0,A,"shrink_policy=stock",0,29,20500,20'
			for p in 1 2 3 4 5 6; do
				for s in $([ $((p % 2)) = 1 ] && echo A B || echo B A); do
					case $s in
					A) echo "$i,pair,$p,A,\"shrink_policy=stock\",0,29,$((20000 + 100 * p)),20" ;;
					B) echo "$i,pair,$p,B,\"shrink_policy=per_node\",0,22,$((40000 + 200 * p)),2" ;;
					esac
					i=$((i + 1))
				done
			done
		} | sed 's/^/ABCSV store disk /'
	} | sed 's/$/\r/' > "$d/store.log"
	if python3 tools/bench/report.py store "$d/store.log" "$d/store.json" > "$d/out" 2>&1 &&
	   grep -q '^\[disk\] per_node against stock (disk swap), zswbctl ab: medians of 6 and 6 runs' "$d/out" &&
	   grep -q 'adjusted but for cmd.store_p99_us, the primary metric$' "$d/out" &&
	   grep -q '^  cmd.store_p99_us  .* +100\.0% \[+[0-9.]*%, +[0-9.]*%\]  *0\.031  differs$' "$d/out" &&
	   grep -q '^  cmd.rejected_pct  .* -90\.0% \[-90\.0%, -90\.0%\]  .*differs$' "$d/out" &&
	   [ "$(head -1 "$d/store-disk.csv")" = "run,kind,pair,side,settings,exit,wall_s,cmd.store_p99_us,cmd.rejected_pct" ] &&
	   [ "$(wc -l < "$d/store-disk.csv")" = 16 ] &&
	   python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
b = j["disk"]["per_node"]
sys.exit(not (list(j) == ["disk"] and b["against"] == "stock" and b["primary"] == "cmd.store_p99_us"
              and b["cmd.store_p99_us_differs"] is True and b["iterations"] == 6
              and abs(b["cmd.store_p99_us_p"] - 2 / 2 ** 6) < 1e-9
              and len(b["runs"]["cmd.store_p99_us"]) == 6))' "$d/store.json"; then
		ktap_test_pass "$desc"
	else
		sed 's/^/# /' "$d/out"
		ktap_test_fail "$desc"
	fi
}

# bench-apps splits its comparisons over two VMs, longest first by their
# times in $ZSWB_CACHE/apps-seconds, each to the VM with less work; over
# one with ZSWB_BENCH_JOBS=1, in the order given. A comparison never
# measured counts as its runs (3, then a pair's: each side after A and an
# A run beside every two of them: 8 for the six sides on disk, 2 for the
# two on zram) times the median wall_s of its CSV in bench-results/, or a
# minute without one (a copy of the tree, in $out/apps). A comparison it
# does not know is refused before anything is built.
bench_apps_plan() {
	local p1 p2 p3 p4 t=$out/apps desc="bench-apps: the comparisons split over two VMs by their times, one with ZSWB_BENCH_JOBS=1"
	mkdir -p "$out/cache" "$t/tools/kernel" "$t/tools/bench" "$t/bench-results"
	printf 'build:disk 500\nbuild:zram 400\nredis:disk 300\nredis:zram 300\nmariadb:disk 100\nmariadb:zram 100\n' \
		> "$out/cache/apps-seconds"
	p1=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=2 bash tools/bench/apps/run.sh --plan 2>&1)
	p2=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=1 bash tools/bench/apps/run.sh --plan redis:zram build 2>&1)
	if [ "$p1" = "vm1: build:disk redis:zram mariadb:zram (900 s)
vm2: build:zram redis:disk mariadb:disk (800 s)" ] &&
	   [ "$p2" = "vm1: redis:zram build:disk build:zram (1200 s)" ]; then
		ktap_test_pass "$desc"
	else
		printf '%s\n' "$p1" "$p2" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
	desc="bench-apps: a comparison never measured counts as its runs times a run's median seconds"
	cp -r tools/lib "$t/tools/"
	cp tools/kernel/common.sh "$t/tools/kernel/"
	cp -r tools/bench/config tools/bench/apps "$t/tools/bench/"
	p3=$(ZSWB_CACHE=$out/cache-none ZSWB_BENCH_JOBS=1 ZSWB_APPS_ROUNDS=2 \
		bash "$t/tools/bench/apps/run.sh" --plan mariadb:zram build:disk 2>&1)
	printf '%s\n' run,kind,wall_s,cmd.build_s 0,warmup,10,1 1,aa,30,1 2,aa,20,1 > "$t/bench-results/apps-build-disk.csv"
	p4=$(ZSWB_CACHE=$out/cache-none ZSWB_BENCH_JOBS=1 ZSWB_APPS_ROUNDS=2 \
		bash "$t/tools/bench/apps/run.sh" --plan mariadb:zram build:disk 2>&1)
	if [ "$p3" = "vm1: mariadb:zram build:disk (1560 s)" ] &&
	   [ "$p4" = "vm1: mariadb:zram build:disk (800 s)" ]; then
		ktap_test_pass "$desc"
	else
		printf '%s\n' "$p3" "$p4" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
	desc="bench-apps: an unknown comparison is refused before the image is built"
	p3=$(bash tools/bench/apps/run.sh build:nvme 2>&1)
	if [ $? = 1 ] && [[ $p3 == *"unknown comparison 'build:nvme'"* ]] && [[ $p3 != *image* ]]; then
		ktap_test_pass "$desc"
	else
		printf '%s\n' "$p3" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
}

# report.py apps takes its table from zswbctl ab: a log as the guest
# prints it (serial console line ends), two comparisons. build on disk,
# three sides, 8 pairs (A B C A, then A C B A): async_free's build_s 20%
# lower in every pair, and pgrotated 0 against 500 (no ratio: ab's
# relative change, -100% exactly); per_node's build_s 1% above and below
# in turn. build_s is the primary metric (B's), p 2/2^8; pgrotated is
# secondary, p adjusted to 2/2^8 x 2 (two secondary metrics vary). redis
# on zram: 2 pairs, too few to judge.
bench_apps_report() {
	local d=$out/apps-report desc="report.py apps: the table, JSON and CSV from zswbctl ab's report"
	local p s i=2
	mkdir -p "$d"
	{
		# A comparison of the other VM first: the table orders them.
		echo "ABSIDES redis zram A=zram-stock B=zram-sync_free"
		echo "# zswbctl ab redis zram: exit 0"
		echo "# primary: cmd.rps, at alpha 0.05"
		printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.rps" \
			'0,aa,0,A,"sync_free=N",0,9,1000' '1,aa,0,A,"sync_free=N",0,9,1010' \
			'2,pair,1,A,"sync_free=N",0,9,1000' '3,pair,1,B,"sync_free=Y",0,9,1100' \
			'4,pair,2,B,"sync_free=Y",0,9,1110' '5,pair,2,A,"sync_free=N",0,9,1000' |
			sed 's/^/ABCSV redis zram /'
		echo "ABSIDES build disk A=stock B=async_free C=per_node"
		echo "# zswbctl ab build disk: exit 0"
		echo "# primary: cmd.build_s, at alpha 0.05"
		{
			printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.build_s,cmd.pgrotated" \
				'0,aa,0,A,"async_free=N",0,9,100,500' '1,aa,0,A,"async_free=N",0,9,102,500'
			for p in 1 2 3 4 5 6 7 8; do
				for s in $([ $((p % 2)) = 1 ] && echo A B C A || echo A C B A); do
					case $s in
					A) echo "$i,pair,$p,A,\"async_free=N\",0,9,100,500" ;;
					B) echo "$i,pair,$p,B,\"async_free=Y\",0,9,$((81 - p % 2)),0" ;;
					C) echo "$i,pair,$p,C,\"shrink_policy=per_node\",0,9,$((99 + 2 * (p % 2))),500" ;;
					esac
					i=$((i + 1))
				done
			done
		} | sed 's/^/ABCSV build disk /'
		echo "# not a comparison"
	} | sed 's/$/\r/' > "$d/apps.log"
	if python3 tools/bench/report.py apps "$d/apps.log" "$d/apps.json" > "$d/out" 2>&1 &&
	   grep -q '^  build_s  *100  *80\.50  *-19\.[0-9]% \[-20\.0%, -19\.0%\]  *0\.0078  differs$' "$d/out" &&
	   grep -q '^  pgrotated  *500  *0\.00  *-100\.0% \[-100\.0%, -100\.0%\]  *0\.016  differs$' "$d/out" &&
	   grep -q '^\[build\] async_free against stock .*adjusted but for build_s, the primary metric$' "$d/out" &&
	   grep -q '^  build_s  *100  *100  *[-+]0\.0% \[-1\.0%, +1\.0%\]  *0\.[0-9]*  none detected$' "$d/out" &&
	   grep -q '^  pgrotated  *500  *500  *+0\.0% \[+0\.0%, +0\.0%\]  *-  the same$' "$d/out" &&
	   grep -q '^  rps  *1,000  *1,105  *+[0-9.]*% \[-\]  *[0-9.]*  too few pairs$' "$d/out" &&
	   grep -q '^\[build\] per_node against stock (disk swap), zswbctl ab: medians of 8 and 16 runs' "$d/out" &&
	   [ "$(grep -o '^\[[a-z]*\]' "$d/out" | uniq | tr -d '[]' | tr '\n' ' ')" = "build redis " ] &&
	   ! grep -qi 'noise\|outside' "$d/out" &&
	   python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s, b, c = j["build"]["stock"], j["build"]["async_free"], j["build"]["per_node"]
r = j["redis"]["zram-sync_free"]
near = lambda x, y: x is not None and abs(x - y) < 1e-9
ok = (s["build_s"] == 100 and s["runs"]["build_s"][:3] == [100, 102, 100]
      and len(s["runs"]["build_s"]) == 18 and "wall_s" not in s
      and not any(k.endswith(("_noise_pct", "_aa_spread_pct", "_paired_ratio")) for k in s)
      and b["build_s_differs"] is True and b["pgrotated_differs"] is True and b["iterations"] == 8
      and -20 < b["build_s_change_pct"] < -19 and near(b["build_s_ci_pct"][0], -20) and near(b["build_s_ci_pct"][1], -19)
      and near(b["build_s_p"], 2 / 2 ** 8) and near(b["pgrotated_p"], 2 / 2 ** 8 * 2)
      and b["primary"] == "build_s" and "primary" not in c
      and b["pgrotated_change_pct"] == -100 and "pgrotated_difference" not in b
      and b["verdicts"]["build_s"].startswith("B is 19.")
      and c["build_s_differs"] is False and c["build_s_p"] > 0.05
      and r["rps_differs"] is None and r["verdicts"]["rps"].startswith("too few pairs"))
sys.exit(not ok)' "$d/apps.json" &&
	   grep -q '^3,pair,1,B,"async_free=Y",0,9,80,0$' "$d/apps-build-disk.csv"; then
		ktap_test_pass "$desc"
	else
		sed 's/^/# /' "$d/out"
		ktap_test_fail "$desc"
	fi
}

suite_bench_args
