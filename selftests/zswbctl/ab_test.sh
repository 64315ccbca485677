#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of zswbctl ab, of the policy scopes in zswbctl prometheus, of
# the Prometheus recording rules and of zswbctl-plot, against a fake
# sysfs/debugfs/configfs/cgroup tree in a temporary directory (the host's
# module, cgroups and page cache are never touched: ab's real runs are the
# VM test selftests/zswap_wb/ab/ab_sequential.sh):
#  - every refusal of bad input comes before anything runs: the exit code,
#    the message, no run of the command, the parameters as they were and
#    nothing left in the cgroup and configfs trees;
#  - the report arithmetic, on runs given through --from-csv: medians of
#    odd and even counts, ranges, per-pair ratios and their median, the
#    A/A ratio, the noise, the verdict, ratios of 0, missing values;
#  - the JSON report's schema, the CSV round trip;
#  - prometheus: the scope families and zswap_wb_scope_info, checked by
#    promtool check metrics; promtool test rules on the shipped rules, and
#    on a broken copy of them, which must fail;
#  - zswbctl-plot draws PNG and SVG, refuses what it cannot draw.
# Prints KTAP.
set -u
. "$(dirname "$0")/../../tools/kernel/common.sh"
zswb_need gcc libc6-dev make python3 prometheus python3-matplotlib
. "$ZSWB_TOP/selftests/ktap.sh"
here=$ZSWB_TOP/tools/zswbctl
bin=$here/zswbctl
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug ZSWB_CONFIGFS=$tmp/config \
	ZSWB_CGROUP=$tmp/cgroup ZSWB_PROC=$tmp/proc ZSWB_KALLSYMS=$tmp/kallsyms \
	ZSWB_KCONFIG=$tmp/none ZSWB_LOCKDOWN=$tmp/lockdown
echo "ffffffff81234560 T zswap_wb_register" >"$tmp/kallsyms"
p=$tmp/sys/parameters
d=$tmp/debug
marker=$tmp/ran

ktap_print_header
ktap_set_plan 52

# res STATUS DESC: one test, passed if STATUS is 0; on failure, what ran.
res() {
	if [ "$1" = 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
		echo "# exit status: ${rc-}"
		sed 's/^/# stdout: /' "$tmp/out" 2>/dev/null | head -40
		sed 's/^/# stderr: /' "$tmp/err" 2>/dev/null | head -20
	fi
}

# zsw ARGS...: run zswbctl, setting $rc, $out and $err.
zsw() {
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(<"$tmp/out")
	err=$(<"$tmp/err")
}

# fake: the module's tree as the sources describe it, two scopes in
# debugfs (global and b) and configfs (b), an empty cgroup root.
fake() {
	rm -rf "$tmp/sys" "$d" "$tmp/config" "$tmp/cgroup" "$tmp/proc" "$marker"
	mkdir -p "$p" "$d/scopes/global" "$d/scopes/b" "$tmp/config/b" "$tmp/cgroup" \
		"$tmp/proc/sys/vm"
	echo N >"$p/sync_free"
	echo N >"$p/async_free"
	echo "[stock] carry split per_node local_first" >"$p/shrink_policy"
	echo 32 >"$p/shrink_batch"
	echo "[stock] skip_fault skip_zswap_slots" >"$p/readahead_policy"
	$py "$ZSWB_TOP/selftests/module_names.py" "$ZSWB_TOP/module" >"$d/schema"
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
# fake made them, nothing is left in the cgroup tree.
untouched() {
	[ ! -e "$marker" ] &&
		[ "$(cat "$p/async_free" "$p/shrink_policy" "$p/shrink_batch")" = \
		  "$(printf 'N\n[stock] carry split per_node local_first\n32')" ] &&
		[ "$(ls "$tmp/config")" = b ] &&
		[ "$(ls "$tmp/cgroup")" = cgroup.subtree_control ]
}

# refused DESC CODE MESSAGE ARGS...: zswbctl ab ARGS exits CODE, says
# MESSAGE (a glob) on stderr, and changed nothing.
refused() {
	local desc=$1 code=$2 message=$3
	shift 3
	fake
	zsw ab "$@"
	[[ $rc == "$code" && $err == $message && -z $out ]] && untouched
	res $? "ab refuses $desc (exit $code) before anything runs"
}

make -s -C "$here" >"$tmp/out" 2>"$tmp/err"
rc=$?
res $rc "zswbctl builds"

fake
ZSWB_SYSFS=$tmp/none "$bin" ab --b async_free=Y -- "$tmp/cmd" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 2 && $(<"$tmp/err") == "zswbctl: zswap_wb is not loaded"* ]] && untouched
res $? "ab refuses to run without the module (exit 2)"
refused "an unknown parameter" 1 "zswbctl: unknown parameter 'nosuch'" \
	--b 'async_free=Y nosuch=1' -- "$tmp/cmd"
refused "a boolean value the module does not take" 64 \
	"zswbctl: invalid value 'maybe' for async_free: one of*" --a async_free=maybe -- "$tmp/cmd"
refused "a choice the module does not list" 64 \
	"zswbctl: invalid value 'nope' for shrink_policy: one of stock, carry, split, per_node, local_first" \
	--b shrink_policy=nope -- "$tmp/cmd"
refused "a number out of the module's range" 64 \
	"zswbctl: invalid value '5000' for shrink_batch: an integer from 1 to 1024" \
	--b shrink_batch=5000 -- "$tmp/cmd"
refused "a word that is not NAME=VALUE" 64 "zswbctl: --b: 'async_free' is not NAME=VALUE" \
	--b async_free -- "$tmp/cmd"
refused "a parameter set twice on one side" 64 "zswbctl: --a sets async_free twice" \
	--a 'async_free=Y async_free=N' -- "$tmp/cmd"
refused "a command that is not found" 127 "zswbctl: ab: cannot run no-such-cmd-zswb: No such file or directory" \
	--b async_free=Y -- no-such-cmd-zswb
refused "no command" 64 "zswbctl: ab: no command to run*" --b async_free=Y --
refused "a bad --pairs" 64 "zswbctl: ab: --pairs '0': a number from 1 to 1000" \
	--pairs 0 --b async_free=Y -- "$tmp/cmd"
refused "an unknown option" 64 "zswbctl: ab: unknown option '--nope'" --nope x -- "$tmp/cmd"
refused "a side after B with a gap before it" 64 \
	"zswbctl: ab: --d without --c: the sides after B are C, D, ... in turn" \
	--b async_free=Y --d shrink_policy=per_node -- "$tmp/cmd"
refused "a third side without a second" 64 \
	"zswbctl: ab: --c without --b: the sides after B are C, D, ... in turn" \
	--c shrink_policy=per_node -- "$tmp/cmd"
refused "a third side with --concurrent" 64 \
	"zswbctl: ab: --concurrent runs two sides, A and B: --c is for sequential runs" \
	--concurrent --b async_free=Y --c shrink_policy=per_node -- "$tmp/cmd"
refused "a bad value on a side after B" 64 \
	"zswbctl: invalid value 'nope' for shrink_policy: one of*" \
	--b async_free=Y --c shrink_policy=nope -- "$tmp/cmd"
# A cgroup root where mkdir works but the controllers cannot be enabled
# (a plain directory): ab must say so and remove what it made.
refused "a cgroup it cannot set up" 1 "zswbctl: cannot enable the memory controller in $tmp/cgroup/zswbctl-ab.*" \
	--b async_free=Y -- "$tmp/cmd"
fake
ZSWB_CGROUP=$tmp/nocgroup "$bin" ab --b async_free=Y -- "$tmp/cmd" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 1 && $(<"$tmp/err") == "zswbctl: cannot make cgroup $tmp/nocgroup/zswbctl-ab."* ]] && untouched
res $? "ab refuses a cgroup root that does not exist (exit 1)"

# The report arithmetic: A/A 100 -> 110 (noise 10%), A's runs 100, 104, 96
# (spread 8.3%, narrower), B 50, 60, 40; a metric 0 everywhere, one where
# A is 0 and B 5 in pair 1, one with a value missing in pair 1.
cat >"$tmp/runs.csv" <<'EOF'
run,kind,pair,side,settings,exit,m,zero,azero,gap
0,warmup,0,A,"async_free=N",0,1000,0,0,1
1,aa,0,A,"async_free=N",0,100,0,0,1
2,aa,0,A,"async_free=N",0,110,0,0,1
3,pair,1,A,"async_free=N",0,100,0,0,1
4,pair,1,B,"async_free=Y",0,50,0,5,
5,pair,2,B,"async_free=Y",0,60,0,0,2
6,pair,2,A,"async_free=N",0,104,0,0,2
7,pair,3,A,"async_free=N",0,96,0,0,2
8,pair,3,B,"async_free=Y",2,40,0,0,2
EOF
fake
zsw ab --json --from-csv "$tmp/runs.csv"
cp "$tmp/out" "$tmp/runs.json"
$py - "$tmp/runs.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))["report"]
m = r["m"]
def near(a, b): return a is not None and abs(a - b) < 1e-9
ok = (m["a"] == {"median": 100, "min": 96, "max": 104} and
      m["b"] == {"median": 50, "min": 40, "max": 60} and
      all(near(x, y) for x, y in zip(m["ratios"], [0.5, 60 / 104, 40 / 96])) and
      len(m["ratios"]) == 3 and near(m["ratio_median"], 0.5) and near(m["aa_ratio"], 1.1) and
      near(m["noise"], 0.1) and m["outside"] == 3 and m["differs"] is True and
      m["verdict"] == "B is 50.0% lower than A, outside the noise (10.0%) in 3 of 3 pairs")
z, a, g = r["zero"], r["azero"], r["gap"]
ok = ok and z["ratio_median"] == 1 and z["differs"] is False
# A is 0 where B is not: no finite ratio (null), pair 1 only.
ok = ok and a["ratios"] == [None, 1, 1] and a["ratio_median"] == 1 and a["differs"] is False
# A missing value leaves its pair out.
ok = ok and len(g["ratios"]) == 2 and g["ratios"] == [1, 1]
print("ok" if ok else json.dumps(r, indent=1))
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]]
res $? "ab report: medians, ranges, pair ratios, A/A, noise and verdict of known runs"
out=$(<"$tmp/out")
fake
zsw ab --from-csv "$tmp/runs.csv"
grep -qxF "  m: B is 50.0% lower than A, outside the noise (10.0%) in 3 of 3 pairs" "$tmp/out" &&
	grep -q '^m  *100 \[96\.\.104\]  *50 \[40\.\.60\]  *0\.500  *1\.100  *0\.500 0\.577 0\.417$' "$tmp/out" &&
	grep -qx "A: async_free=N" "$tmp/out" && grep -qx "B: async_free=Y" "$tmp/out" &&
	grep -q "^the command failed in 1 of 9 runs" "$tmp/out" &&
	! grep -q "^zero " "$tmp/out" && [ "$rc" = 0 ]
res $? "ab report: the table row, the verdict in words, the failed run, all-zero metrics left out"

# Within the noise: B 5% away in each pair, the A/A pair 10% apart.
sed -e 's/^4,pair,1,B,"async_free=Y",0,50,/4,pair,1,B,"async_free=Y",0,95,/' \
	-e 's/^5,pair,2,B,"async_free=Y",0,60,/5,pair,2,B,"async_free=Y",0,99,/' \
	-e 's/^8,pair,3,B,"async_free=Y",2,40,/8,pair,3,B,"async_free=Y",2,91,/' \
	"$tmp/runs.csv" >"$tmp/noise.csv"
zsw ab --from-csv "$tmp/noise.csv"
grep -q "^  every metric is within the noise$" "$tmp/out"
res $? "ab report: differences smaller than the A/A pair's are within the noise"
# The A/A pair exactly equal and A's runs too: any difference is outside.
# Two pairs: the medians of an even count, B 11 and 13, B/A 1.1 and 1.3.
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,10" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,11" "4,pair,2,B,,0,13" "5,pair,2,A,,0,10" >"$tmp/exact.csv"
zsw ab --from-csv "$tmp/exact.csv"
grep -qxF "  m: B is 20.0% higher than A, outside the noise (0.0%) in 2 of 2 pairs" "$tmp/out" &&
	grep -q '^m  *10 \[10\.\.10\]  *12 \[11\.\.13\]  *1\.200 ' "$tmp/out"
res $? "ab report: medians of an even count; with no noise, a difference in every pair is outside it"
# One pair of three outside the noise (10%) does not make a verdict.
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,11" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,20" "4,pair,2,B,,0,10.5" "5,pair,2,A,,0,10" \
	"6,pair,3,A,,0,10" "7,pair,3,B,,0,9.5" >"$tmp/one.csv"
zsw ab --json --from-csv "$tmp/one.csv"
$py -c 'import json,sys; m=json.load(open(sys.argv[1]))["report"]["m"]; sys.exit(not (m["outside"] == 1 and not m["differs"] and m["verdict"].startswith("within the noise")))' "$tmp/out"
res $? "ab report: outside the noise in 1 of 3 pairs is within the noise"
# Two of three pairs outside, one inside: still within the noise.
sed 's/^7,pair,3,B,,0,9.5$/7,pair,3,B,,0,25/' "$tmp/one.csv" >"$tmp/two.csv"
zsw ab --from-csv "$tmp/two.csv"
grep -qxF "  every metric is within the noise" "$tmp/out" && ! grep -q "^  m: B is" "$tmp/out"
res $? "ab report: outside the noise in 2 of 3 pairs is within the noise"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,pair,1,A,,0,10" "1,pair,1,B,,0,20" >"$tmp/noaa.csv"
zsw ab --json --from-csv "$tmp/noaa.csv"
$py -c 'import json,sys; m=json.load(open(sys.argv[1]))["report"]["m"]; sys.exit(not (m["aa_ratio"] is None and m["verdict"] == "no A/A pair measured it: the noise is unknown"))' "$tmp/out"
res $? "ab report: without an A/A pair the noise is unknown, and said so"

# The JSON report's schema: every key, every type.
$py - "$tmp/runs.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
num = (int, float)
def opt(v): return v is None or isinstance(v, num)
assert set(j) == {"mode", "pairs", "command", "a", "b", "runs", "report"}, set(j)
assert j["mode"] in ("sequential", "concurrent") and isinstance(j["pairs"], int)
assert isinstance(j["command"], list) and all(isinstance(c, str) for c in j["command"])
assert j["a"] == {"async_free": "N"} and j["b"] == {"async_free": "Y"}
assert len(j["runs"]) == 9
for i, r in enumerate(j["runs"]):
    assert set(r) == {"run", "kind", "pair", "side", "exit", "metrics"}, r
    assert r["run"] == i and r["kind"] in ("warmup", "aa", "pair") and r["side"] in ("A", "B")
    assert isinstance(r["pair"], int) and isinstance(r["exit"], int)
    assert list(r["metrics"]) == list(j["report"]) and all(opt(v) for v in r["metrics"].values())
for name, s in j["report"].items():
    assert set(s) == {"a", "b", "ratios", "ratio_median", "aa_ratio", "noise", "outside",
                      "differs", "verdict"}, s
    for k in "ab":
        assert set(s[k]) == {"median", "min", "max"} and all(opt(v) for v in s[k].values())
    assert all(opt(v) for v in s["ratios"]) and opt(s["ratio_median"]) and opt(s["aa_ratio"])
    assert opt(s["noise"]) and isinstance(s["outside"], int) and isinstance(s["differs"], bool)
    assert isinstance(s["verdict"], str) and s["verdict"]
print("ok")
EOF
[[ $(<"$tmp/check") == ok ]]
res $? "ab --json: the schema of the report and of every run"
zsw ab --from-csv "$tmp/runs.csv" --csv "$tmp/again.csv"
cmp -s "$tmp/runs.csv" "$tmp/again.csv" && [ "$rc" = 0 ]
res $? "ab --csv writes back the runs --from-csv read, byte for byte"
printf 'a,b\n1,2\n' >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"not a zswbctl ab --csv file"* ]]
res $? "ab --from-csv refuses a file ab did not write (exit 64)"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,x" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"m is 'x', not a number" ]]
res $? "ab --from-csv refuses a value that is not a number (exit 64)"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"6 fields, the header has 7" ]]
res $? "ab --from-csv refuses a row of the wrong width (exit 64)"
zsw ab --from-csv "$tmp/runs.csv" -- "$tmp/cmd"
[[ $rc == 64 && ! -e $marker ]]
res $? "ab --from-csv refuses a command too (exit 64)"

# Three sides: B 20% lower in both pairs, C within A's noise (the A/A
# pair 1% apart); pairs rotate A B C, B C A.
printf '%s\n' "run,kind,pair,side,settings,exit,m" '0,aa,0,A,"x=1",0,100' '1,aa,0,A,"x=1",0,101' \
	'2,pair,1,A,"x=1",0,100' '3,pair,1,B,"x=2",0,80' '4,pair,1,C,"x=3",0,100.5' \
	'5,pair,2,B,"x=2",0,82' '6,pair,2,C,"x=3",0,99' '7,pair,2,A,"x=1",0,100' >"$tmp/three.csv"
zsw ab --json --from-csv "$tmp/three.csv"
cp "$tmp/out" "$tmp/three.json"
$py - "$tmp/three.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
def near(a, b): return a is not None and abs(a - b) < 1e-9
m = j["report"]["m"]
c = m["c"]
ok = (set(j) == {"mode", "pairs", "command", "a", "b", "c", "runs", "report"} and
      j["c"] == {"x": "3"} and [r["side"] for r in j["runs"]] == list("AAABCBCA") and
      near(m["ratio_median"], 0.81) and m["differs"] is True and near(m["noise"], 0.01) and
      set(c) == {"median", "min", "max", "ratios", "ratio_median", "outside", "differs",
                 "verdict"} and
      (c["median"], c["min"], c["max"]) == (99.75, 99, 100.5) and
      all(near(x, y) for x, y in zip(c["ratios"], [1.005, 0.99])) and c["outside"] == 0 and
      c["differs"] is False and
      c["verdict"] == "within the noise (C/A 0.997, noise 1.0%; 0 of 2 pairs outside it)")
print("ok" if ok else json.dumps(j["report"], indent=1))
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]]
res $? "ab report of three sides: C against A beside B, the noise A's, in the JSON"
zsw ab --from-csv "$tmp/three.csv"
grep -qx "C: x=3" "$tmp/out" && grep -qx "C against A:" "$tmp/out" &&
	grep -q '^m  *100 \[100\.\.100\]  *99\.75 \[99\.\.100\.5\]  *0\.997  *1\.010  *1\.005 0\.990$' "$tmp/out" &&
	grep -qxF "  m: B is 19.0% lower than A, outside the noise (1.0%) in 2 of 2 pairs" "$tmp/out" &&
	! grep -q "^  m: C is" "$tmp/out" && zsw ab --from-csv "$tmp/three.csv" --csv "$tmp/three2.csv" &&
	cmp -s "$tmp/three.csv" "$tmp/three2.csv"
res $? "ab report of three sides: C's table and no verdict for it; the CSV round trip"
grep -v ',B,' "$tmp/three.csv" >"$tmp/gap.csv"
zsw ab --from-csv "$tmp/gap.csv"
[[ $rc == 64 && $err == *"gap.csv: no run of side B, but of side C" && -z $out ]]
res $? "ab --from-csv refuses runs of side C without any of side B (exit 64)"

# --concurrent: scopes it cannot make or set are refused and removed.
fake
rm -rf "$tmp/config"
zsw ab --concurrent --b async_free=Y -- "$tmp/cmd"
[[ $rc == 1 && $err == "zswbctl: no $tmp/config: --concurrent needs policy scopes"* && ! -e $marker ]] &&
	[ "$(ls "$tmp/cgroup")" = cgroup.subtree_control ]
res $? "ab --concurrent refuses a module without policy scopes (exit 1)"
fake
# configfs that makes a scope without attributes: no such setting.
zsw ab --concurrent --b async_free=Y -- "$tmp/cmd"
[[ $rc == 1 && $err == *"unknown parameter 'async_free': a policy scope has no such setting" ]] &&
	untouched
res $? "ab --concurrent refuses a setting the scopes lack, and removes its scopes"

# prometheus: the scope families with a scope label, the info metric.
fake
zsw prometheus
promtool check metrics <"$tmp/out" >"$tmp/lint" 2>&1
lint=$?
ok=0
for l in 'zswap_wb_scope_written_back_total{scope="b"} 20' \
	'zswap_wb_scope_written_back_total{scope="global"} 10' \
	'zswap_wb_scope_shrink_scanned_total{scope="b",node="0"} 3' \
	'zswap_wb_scope_free_latency_seconds_bucket{scope="b",le="0.000002"} 15' \
	'zswap_wb_scope_free_latency_seconds_count{scope="b"} 15' \
	'zswap_wb_scope_info{scope="b",cgroup="/ab/b",async_free="Y",readahead_policy="stock",shrink_batch="64",shrink_policy="per_node",sync_free="N",settings="async_free=Y readahead_policy=stock shrink_batch=64 shrink_policy=per_node sync_free=N"} 1' \
	'zswap_wb_scope_info{scope="global",cgroup="",async_free="N",readahead_policy="stock",shrink_batch="32",shrink_policy="stock",sync_free="N",settings="async_free=N readahead_policy=stock shrink_batch=32 shrink_policy=stock sync_free=N"} 1' \
	'zswap_wb_written_back_total 30'; do
	grep -qxF "$l" "$tmp/out" || { echo "# missing: $l"; ok=1; }
done
[ "$(grep -c '^# TYPE zswap_wb_scope_written_back_total counter$' "$tmp/out")" = 1 ] || ok=1
[[ $rc == 0 && $lint == 0 && $ok == 0 ]] || sed 's/^/# promtool: /' "$tmp/lint"
[[ $rc == 0 && $lint == 0 && $ok == 0 ]]
res $? "prometheus: each scope's counters and histogram with a scope label, settings as an info metric"
rm -rf "$d/scopes"
zsw prometheus
[[ $rc == 0 ]] && ! grep -q zswap_wb_scope "$tmp/out" && grep -qxF 'zswap_wb_written_back_total 30' "$tmp/out"
res $? "prometheus: a module without scopes has no scope families"

# The recording rules, and a broken copy that the same tests must catch.
rules=$here/prometheus
promtool check rules "$rules/zswap_wb.rules.yml" >"$tmp/out" 2>"$tmp/err"
res $? "promtool check rules: the shipped recording rules"
(cd "$rules" && promtool test rules zswap_wb.rules.test.yml) >"$tmp/out" 2>"$tmp/err"
res $? "promtool test rules: freed per written back, rejects, latency quantiles, rotated, per scope and setting"
mkdir -p "$tmp/broken"
cp "$rules/zswap_wb.rules.test.yml" "$tmp/broken/"
# freed_sync only; p50 of the bucket sum without le; rotated upside down.
sed -e 's/(rate(zswap_wb_scope_freed_sync_total\[5m\]) + rate(zswap_wb_scope_freed_async_total\[5m\]))/rate(zswap_wb_scope_freed_sync_total[5m])/' \
	"$rules/zswap_wb.rules.yml" >"$tmp/broken/zswap_wb.rules.yml"
(cd "$tmp/broken" && promtool test rules zswap_wb.rules.test.yml) >"$tmp/out" 2>&1
[ $? != 0 ] && grep -q "freed_per_written_back" "$tmp/out"
res $? "promtool test rules fails on rules that count only the synchronous frees"
sed -e 's/rate(node_vmstat_pgrotated\[5m\]) \/ rate(node_vmstat_zswpwb\[5m\])/rate(node_vmstat_zswpwb[5m]) \/ rate(node_vmstat_pgrotated[5m])/' \
	"$rules/zswap_wb.rules.yml" >"$tmp/broken/zswap_wb.rules.yml"
(cd "$tmp/broken" && promtool test rules zswap_wb.rules.test.yml) >"$tmp/out" 2>&1
[ $? != 0 ] && grep -q "pgrotated_per_zswpwb" "$tmp/out"
res $? "promtool test rules fails on a rotated ratio upside down"

# zswbctl-plot: PNG and SVG from a report; refusals.
plot=$here/zswbctl-plot
"$plot" -o "$tmp/runs.png" "$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(head -c 8 "$tmp/runs.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
res $? "zswbctl-plot draws a PNG"
"$plot" --all -o "$tmp/runs.svg" <"$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
# every measured metric a panel: m, azero and gap (zero is 0 everywhere)
[ $rc = 0 ] && grep -q "<svg" "$tmp/runs.svg" && grep -c "B is 50.0% lower than A" "$tmp/runs.svg" >/dev/null
res $? "zswbctl-plot --all draws an SVG from stdin, with the verdicts"
"$plot" -o "$tmp/three.svg" "$tmp/three.json" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && grep -q "C: within the noise" "$tmp/three.svg" && grep -q "C: x=3" "$tmp/three.svg"
res $? "zswbctl-plot draws a third side, with its verdict and settings"
"$plot" -m nosuch -o "$tmp/x.png" "$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 64 && $(<"$tmp/err") == "zswbctl-plot: no metric 'nosuch' in the report"* && ! -e $tmp/x.png ]]
res $? "zswbctl-plot refuses a metric the report lacks (exit 64)"
echo '{"a": 1}' >"$tmp/notab.json"
"$plot" -o "$tmp/x.png" "$tmp/notab.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 1 && $(<"$tmp/err") == *"not a zswbctl ab --json report"* && ! -e $tmp/x.png ]]
res $? "zswbctl-plot refuses a file that is not a report (exit 1)"
"$plot" -o "$tmp/x.jpg" "$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
[[ $? == 64 && ! -e $tmp/x.jpg ]]
res $? "zswbctl-plot refuses an output that is not .png or .svg (exit 64)"

# The documents say what ab, the plot and the scope label are.
man=$here/zswbctl.8
grep -q "^\.SS A/B comparisons" "$man" && grep -q 'zswbctl\\-plot' "$man" && grep -q 'scope' "$man" &&
	grep -q 'from\\-csv' "$man" && grep -q 'concurrent' "$man"
res $? "zswbctl(8) documents ab, zswbctl-plot and the scope label"
grep -q '^A fleet A/B' "$ZSWB_TOP/Documentation/zswap_wb.rst" &&
	grep -q 'zswap_wb_settings:pgrotated_per_zswpwb:ratio_rate5m' "$ZSWB_TOP/Documentation/zswap_wb.rst"
res $? "zswap_wb.rst has the fleet A/B section, naming the rules"
man -l "$man" >/dev/null 2>"$tmp/err" && ! grep -q . "$tmp/err"
res $? "zswbctl(8) renders without warnings"
grep -q 'zswbctl-plot' "$here/Makefile" && grep -q 'zswap_wb.rules.yml' "$here/Makefile" &&
	grep -q 'python3-matplotlib' "$ZSWB_TOP/debian/control"
res $? "make install ships zswbctl-plot and the rules; the package recommends matplotlib"
ktap_finished
