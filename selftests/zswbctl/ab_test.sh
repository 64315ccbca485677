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
#  - the report, on runs given through --from-csv: medians and ranges,
#    each pair's ratio, the Hodges-Lehmann change, its exact interval and
#    p computed here from their definitions, the verdict in words, too few
#    pairs, --alpha, the Benjamini-Hochberg adjustment of the secondary
#    metrics, the A/A pair as a host check, a metric 0 under A (a
#    difference, not a ratio), a count that falls to 0 under B (each
#    pair's change relative to its own A, never below -100%), missing
#    values, each side paired with its nearest A run (the arithmetic
#    itself: ab_stat_test.c; its calibration: ab_calibrate.c);
#  - the JSON report's schema, the CSV round trip;
#  - prometheus: the scope families and zswap_wb_scope_info, checked by
#    promtool check metrics; promtool test rules on the shipped recording
#    and alerting rules, and on broken copies of them, which must fail;
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
ktap_set_plan 82

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
	bash "$ZSWB_TOP/selftests/module_schema.sh" >"$d/schema"
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
refused "an unknown option" 64 "zswbctl: ab: unknown option '--nope' (zswbctl ab --help lists them)" \
	--nope x -- "$tmp/cmd"
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
refused "a --memory-max that is not a size" 64 \
	"zswbctl: ab: --memory-max 'lots': a size in bytes, with K, M, G or T if you like, or max" \
	--memory-max lots --a async_free=Y -- "$tmp/cmd"
refused "a --zswap-max that is not a size" 64 "zswbctl: ab: --zswap-max '1X':*" \
	--zswap-max 1X --b async_free=Y -- "$tmp/cmd"
refused "--precision without --max-pairs" 64 \
	"zswbctl: ab: --precision needs --max-pairs N: the most pairs it may run" \
	--precision 2% --b async_free=Y -- "$tmp/cmd"
refused "a --precision that is not a percentage" 64 "zswbctl: ab: --precision 'x':*" \
	--precision x --max-pairs 20 --b async_free=Y -- "$tmp/cmd"
refused "--max-pairs below --pairs" 64 "zswbctl: ab: --max-pairs 8 is below --pairs 10" \
	--precision 2 --max-pairs 8 --b async_free=Y -- "$tmp/cmd"
refused "an --alpha that is not a probability" 64 \
	"zswbctl: ab: --alpha '1.5': a probability above 0, at most 0.5" \
	--alpha 1.5 --b async_free=Y -- "$tmp/cmd"
refused "an unknown --metric" 64 "zswbctl: ab: --metric 'vmstat.nosuch': not a metric ab measures*" \
	--metric vmstat.nosuch --b async_free=Y -- "$tmp/cmd"
fake
zsw ab --help
[[ $rc == 0 && $out == "usage: zswbctl ab "* && $out == *"--precision X%"* && -z $err ]] && untouched
res $? "ab --help prints ab's usage and options, runs nothing"
# A counter of the module's and a figure of the command's pass the check
# of --metric: the fake cgroup tree is the first thing that stops them.
ok=0
for metric in zswap_wb.written_back cmd.pages_s psi.memory_some_us; do
	fake
	zsw ab --metric $metric --b async_free=Y -- "$tmp/cmd"
	[[ $rc == 1 && $err == "zswbctl: cannot enable the memory controller"* ]] && untouched || ok=1
done
res $ok "ab takes a module counter, a command's figure and a PSI total as --metric"
# A cgroup root where mkdir works but the controllers cannot be enabled
# (a plain directory): ab must say so and remove what it made.
refused "a cgroup it cannot set up" 1 "zswbctl: cannot enable the memory controller in $tmp/cgroup/zswbctl-ab.*" \
	--b async_free=Y -- "$tmp/cmd"
fake
ZSWB_CGROUP=$tmp/nocgroup "$bin" ab --b async_free=Y -- "$tmp/cmd" >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc == 1 && $(<"$tmp/err") == "zswbctl: cannot make cgroup $tmp/nocgroup/zswbctl-ab."* ]] && untouched
res $? "ab refuses a cgroup root that does not exist (exit 1)"

# The report arithmetic. Six pairs, alternated (A B, B A, ...): B about
# half of A in every pair, so every pair's sign agrees and the exact
# two-sided p is 2/2^6; a metric 0 everywhere; one where A is 0 and B is
# not (no ratio: differences); one with a value missing in pair 1. A 7th
# pair's B run failed (exit 3), with values that would move every figure:
# it is left out, and the figures are the six pairs'.
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
fake
zsw ab --json --metric m --from-csv "$tmp/runs.csv"
cp "$tmp/out" "$tmp/runs.json"
# The expected figures, computed here from their definitions.
$py - "$tmp/runs.json" <<'EOF' >"$tmp/check" 2>&1
import json, math, sys
j = json.load(open(sys.argv[1]))
r = j["report"]
def near(a, b, e=1e-9): return a is not None and abs(a - b) < e
a = [100, 102, 98, 100, 101, 99]
b = [50, 53, 48, 51, 49, 50]
d = [math.log(y / x) for x, y in zip(a, b)]
w = sorted((d[i] + d[k]) / 2 for i in range(6) for k in range(i, 6))
hl = (w[10] + w[10]) / 2 if len(w) % 2 else (w[len(w) // 2 - 1] + w[len(w) // 2]) / 2
# 6 pairs at 0.05: the critical value is 0, the interval the extreme Walsh averages
pct = lambda x: 100 * math.expm1(x)
m = r["m"]["b"]
ok = (r["m"]["a"] == {"median": 100, "min": 98, "max": 102} and
      (m["median"], m["min"], m["max"]) == (50, 48, 53) and m["pairs"] == 6 and
      m["scale"] == "log" and near(m["estimate"], pct(hl)) and near(m["ci_low"], pct(w[0])) and
      near(m["ci_high"], pct(w[-1])) and near(m["p_value"], 2 / 64) and
      m["p_adjusted"] is None and m["differs"] is True and m["primary"] is True and
      m["too_few"] is False and all(near(x, y / z) for x, y, z in zip(m["ratios"], b, a)) and
      m["verdict"] == "B is %.1f%% lower [%.1f%%, %.1f%%], p = 0.031, 6 pairs" %
      (-pct(hl), -pct(w[-1]), -pct(w[0])) and j["primary"] == "m" and j["alpha"] == 0.05 and
      near(j["host_check"]["aa_pct"], 1))
z, az, g = r["zero"]["b"], r["azero"]["b"], r["gap"]["b"]
# 0 everywhere: nothing to test
ok = ok and z["differs"] is False and z["verdict"].startswith("no difference: the same")
# A is 0 where B is not: differences, no % change; their Walsh averages'
# median is 5 (of 21: 4 4.5 4.5 4.5 5 5 5 5 5 5 5 5.5 5.5 5.5 5.5 6 6 6 6 6.5 7)
ok = (ok and az["scale"] == "diff" and az["estimate"] is None and
      az["difference"] == [5, 4, 7] and az["differs"] is True and
      near(az["p_value"], 2 / 64) and
      az["verdict"] == "B is 5 higher [4, 7] where A's median is 0, p = 0.031 (adjusted), 6 pairs")
# a missing value leaves its pair out; the same everywhere else: no difference
ok = ok and g["pairs"] == 5 and g["differs"] is False
print("ok" if ok else json.dumps(r, indent=1))
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]]
res $? "ab report: Hodges-Lehmann change, exact interval and p of known runs, A is 0, a gap"
fake
zsw ab --metric m --from-csv "$tmp/runs.csv"
grep -q '^m  *100  *50  *-49\.8% \[-51\.5%, -48\.0%\]  *0\.031  *6 \*$' "$tmp/out" &&
	grep -q "^B against A on m: B is 49.8% lower \[48.0%, 51.5%\], p = 0.031, 6 pairs$" "$tmp/out" &&
	grep -qx "A: async_free=N" "$tmp/out" && grep -qx "B: async_free=Y" "$tmp/out" &&
	grep -q "^azero  *0  *5  *+5 \[+4, +7\]  *0\.031  *6 \*$" "$tmp/out" &&
	grep -q "^the command failed in 1 of 17 runs, left out of the comparison" "$tmp/out" &&
	! grep -q "^zero " "$tmp/out" && [ "$rc" = 0 ] &&
	awk 'length($0) > 100 { exit 1 }' "$tmp/out"
res $? "ab report: the rows, the verdict in words, the failed run, all-zero metrics left out, 100 columns"

# No difference: B on either side of A, pair by pair.
sed -e 's/^4,pair,1,B,"async_free=Y",0,50,/4,pair,1,B,"async_free=Y",0,101,/' \
	-e 's/^5,pair,2,B,"async_free=Y",0,53,/5,pair,2,B,"async_free=Y",0,100,/' \
	-e 's/^8,pair,3,B,"async_free=Y",0,48,/8,pair,3,B,"async_free=Y",0,99,/' \
	-e 's/^9,pair,4,B,"async_free=Y",0,51,/9,pair,4,B,"async_free=Y",0,101,/' \
	-e 's/^12,pair,5,B,"async_free=Y",0,49,/12,pair,5,B,"async_free=Y",0,100,/' \
	-e 's/^13,pair,6,B,"async_free=Y",0,50,/13,pair,6,B,"async_free=Y",0,98.5,/' \
	"$tmp/runs.csv" >"$tmp/same.csv"
zsw ab --metric m --from-csv "$tmp/same.csv"
grep -q "^B against A on m: no difference detected: \[-[0-9.]*%, +[0-9.]*%\], p = [0-9.]*, 6 pairs$" "$tmp/out"
res $? "ab report: B on either side of A is no difference detected, with its interval"
# Too few pairs: three, every one 2x apart, cannot reach 0.05; nor six at 0.01.
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,10" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,20" "4,pair,2,B,,0,21" "5,pair,2,A,,0,10" \
	"6,pair,3,A,,0,10" "7,pair,3,B,,0,19" >"$tmp/few.csv"
zsw ab --json --metric m --from-csv "$tmp/few.csv"
$py -c 'import json,sys; m=json.load(open(sys.argv[1]))["report"]["m"]["b"]; sys.exit(not (m["too_few"] and not m["differs"] and m["verdict"] == "too few pairs to judge: 3 cannot reach p <= 0.05; run at least 6"))' "$tmp/out"
res $? "ab report: 3 pairs are too few for a verdict at 0.05, and it says how many are not"
zsw ab --metric m --alpha 0.01 --from-csv "$tmp/runs.csv"
grep -q "^B against A on m: too few pairs to judge: 6 cannot reach p <= 0.01; run at least 8$" "$tmp/out" &&
	grep -qx "primary: m, at alpha 0.01" "$tmp/out" &&
	grep -q "^change: Hodges-Lehmann, with its 99% interval;" "$tmp/out" &&
	grep -q '^m  *100  *50  *-49\.8% \[-, -\]  *0\.031  *6$' "$tmp/out"
res $? "ab report: --alpha 0.01 asks for 8 pairs, and a 99% interval"

# Secondary metrics: their p-values adjusted together (Benjamini-Hochberg).
$py - "$tmp/runs.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))["report"]
sec = {k: v["b"]["p_value"] for k, v in r.items()
       if not v["b"]["primary"] and v["b"]["p_adjusted"] is not None}
order = sorted(sec, key=sec.get)
n, adj, run = len(order), {}, 1.0
for i in range(n - 1, -1, -1):
    run = min(run, sec[order[i]] * n / (i + 1))
    adj[order[i]] = run
ok = set(sec) == {"azero"} and all(abs(r[k]["b"]["p_adjusted"] - adj[k]) < 1e-12 for k in adj)
print("ok" if ok else json.dumps({k: (sec[k], r[k]["b"]["p_adjusted"]) for k in sec}))
EOF
[[ $(<"$tmp/check") == ok ]]
res $? "ab report: the secondary metrics' p-values are Benjamini-Hochberg adjusted, the primary's not"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,12" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,10.01" "4,pair,2,B,,0,10" "5,pair,2,A,,0,10.01" \
	"6,pair,3,A,,0,10" "7,pair,3,B,,0,10.02" "8,pair,4,B,,0,10" "9,pair,4,A,,0,10.02" \
	"10,pair,5,A,,0,10" "11,pair,5,B,,0,10.01" "12,pair,6,B,,0,10.02" "13,pair,6,A,,0,10" \
	>"$tmp/aa.csv"
zsw ab --metric m --from-csv "$tmp/aa.csv"
grep -q "^A/A pair: m +20.00% " "$tmp/out" && grep -q "^warning: the A/A pair differs by more than 3 times the pairs' noise" "$tmp/out" &&
	! grep -q "^warning" <(zsw ab --metric m --from-csv "$tmp/runs.csv"; cat "$tmp/out")
res $? "ab report: an A/A pair far wider than the pairs' noise is a warning, not a threshold"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,pair,1,A,,0,10" "1,pair,1,B,,0,20" >"$tmp/noaa.csv"
zsw ab --json --metric m --from-csv "$tmp/noaa.csv"
$py -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j["host_check"]["aa_pct"] is None and j["report"]["m"]["b"]["pairs"] == 1))' "$tmp/out"
res $? "ab report: without an A/A pair the host check is null, the pairs still compared"

# The JSON report's schema: every key, every type.
$py - "$tmp/runs.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
num = (int, float)
def opt(v): return v is None or isinstance(v, num)
assert set(j) == {"mode", "pairs", "primary", "alpha", "method", "command", "a", "b",
                  "host_check", "runs", "report"}, set(j)
assert j["mode"] in ("sequential", "concurrent") and j["pairs"] == 7
assert isinstance(j["command"], list) and all(isinstance(c, str) for c in j["command"])
assert j["a"] == {"async_free": "N"} and j["b"] == {"async_free": "Y"}
assert set(j["host_check"]) == {"aa_pct", "aa_difference"}
assert len(j["runs"]) == 17
for i, r in enumerate(j["runs"]):
    assert set(r) == {"run", "kind", "pair", "side", "exit", "metrics"}, r
    assert r["run"] == i and r["kind"] in ("warmup", "aa", "pair") and r["side"] in ("A", "B")
    assert isinstance(r["pair"], int) and isinstance(r["exit"], int)
    assert list(r["metrics"]) == list(j["report"]) and all(opt(v) for v in r["metrics"].values())
for name, s in j["report"].items():
    assert set(s) == {"a", "b"}, s
    assert set(s["a"]) == {"median", "min", "max"} and all(opt(v) for v in s["a"].values())
    b = s["b"]
    keys = {"median", "min", "max", "pairs", "scale", "estimate", "ci_low", "ci_high",
            "p_value", "p_adjusted", "differs", "primary", "too_few", "ratios", "verdict"}
    assert set(b) == keys | ({"difference"} if b["scale"] == "diff" else set()), b
    assert all(opt(b[k]) for k in ("median", "min", "max", "estimate", "ci_low", "ci_high",
                                   "p_value", "p_adjusted"))
    assert isinstance(b["pairs"], int) and b["scale"] in ("log", "rel", "diff")
    assert all(isinstance(b[k], bool) for k in ("differs", "primary", "too_few"))
    assert all(opt(v) for v in b["ratios"]) and isinstance(b["verdict"], str) and b["verdict"]
print("ok")
EOF
[[ $(<"$tmp/check") == ok ]]
res $? "ab --json: the schema of the report and of every run"
zsw ab --metric m --from-csv "$tmp/runs.csv" --csv "$tmp/again.csv"
cmp -s "$tmp/runs.csv" "$tmp/again.csv" && [ "$rc" = 0 ]
res $? "ab --csv writes back the runs --from-csv read, byte for byte"
printf 'a,b\n1,2\n' >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"not a zswbctl ab --csv file"* && -z $out ]]
res $? "ab --from-csv refuses a file ab did not write (exit 64)"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,x" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"m is 'x', not a number" && -z $out ]]
res $? "ab --from-csv refuses a value that is not a number (exit 64)"
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"6 fields, the header has 7" && -z $out ]]
res $? "ab --from-csv refuses a row of the wrong width (exit 64)"
grep -v ',B,' "$tmp/runs.csv" >"$tmp/onlya.csv"
zsw ab --from-csv "$tmp/onlya.csv"
[[ $rc == 64 && $err == *"onlya.csv: no run of side B: nothing to compare with A" && -z $out ]]
res $? "ab --from-csv refuses runs of A alone (exit 64)"
grep -v '^3,pair,1,A' "$tmp/runs.csv" >"$tmp/noa.csv"
zsw ab --from-csv "$tmp/noa.csv"
[[ $rc == 64 && $err == *"pair 1 has a run of side B but none of side A" && -z $out ]]
res $? "ab --from-csv refuses a pair without its A run (exit 64)"
sed 's/$/\r/' "$tmp/runs.csv" >"$tmp/crlf.csv"
echo >>"$tmp/crlf.csv"
zsw ab --json --metric m --from-csv "$tmp/crlf.csv"
[[ $rc == 0 ]] && cmp -s "$tmp/out" "$tmp/runs.json"
res $? "ab --from-csv reads a file saved with CRLF line ends and a blank line as the same runs"
sed '6p' "$tmp/runs.csv" >"$tmp/dup.csv"
zsw ab --metric m --from-csv "$tmp/dup.csv"
[[ $rc == 64 && $err == *"dup.csv:7: pair 1 has more than 1 pair run of side B" && -z $out ]]
res $? "ab --from-csv refuses two runs of side B in one pair (exit 64)"
sed 's/^3,pair,1,A/3,pair,4294967297,A/' "$tmp/runs.csv" >"$tmp/bigpair.csv"
zsw ab --metric m --from-csv "$tmp/bigpair.csv"
[[ $rc == 64 && $err == *"pair '4294967297' is not a number from 0 to 1000" && -z $out ]]
res $? "ab --from-csv refuses a pair number beyond 1000 (exit 64)"
fake
zsw ab --json --csv - --b async_free=Y -- "$tmp/cmd"
[[ $rc == 64 && $err == *"--csv - and --json both write to standard output"* && -z $out ]] && untouched
res $? "ab refuses --csv - with --json, whose outputs would mix (exit 64)"
# Ties: a counter that moves in whole units, B - A = -3 1 2 2 2 2 5 5 5
# where A is 0: the tie-aware p is 0.043, but the interval reaches below
# 0; ab calls a difference only where both agree.
printf '%s\n' "run,kind,pair,side,settings,exit,m,t" >"$tmp/ties.csv"
i=0 n=1
for b in 0 1 2 2 2 2 5 5 5; do
	a=3
	[ "$b" = 0 ] || a=0
	printf '%s\n' "$i,pair,$n,A,,0,10,$a" "$((i + 1)),pair,$n,B,,0,10,$b" >>"$tmp/ties.csv"
	i=$((i + 2)) n=$((n + 1))
done
zsw ab --json --metric m --from-csv "$tmp/ties.csv"
$py -c 'import json,sys; t=json.load(open(sys.argv[1]))["report"]["t"]["b"]; sys.exit(not (t["p_value"] < 0.05 and t["difference"][1] < 0 and t["differs"] is False))' "$tmp/out"
res $? "ab report: with tied differences, no verdict where p and the interval disagree"

# The rel scale: a count above 0 in every A run and 0 in some B runs has
# no log, but each pair's change relative to its own A, (B - A) / A, is
# defined: -100% where B is 0, never below. Eight pairs, alternated: gone
# is 0 in every B run; rot in four, the others' changes -50%, -80%, -20%,
# +20% (a tie of magnitudes with -20%); adiff has an A run of 0 in pair 1,
# so it keeps the diff scale, as a % of A's median (10).
printf '%s\n' "run,kind,pair,side,settings,exit,m,gone,rot,adiff" \
	"0,aa,0,A,,0,10,55000,55000,10" "1,aa,0,A,,0,10,54000,56100,10" >"$tmp/rel.csv"
i=2
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
# The expected figures from their definitions: the Walsh averages' median,
# the interval's ends at the untied law's critical value, p by counting
# every sign pattern of the Pratt mid-ranks.
cat >"$tmp/hl.py" <<'EOF'
import itertools, json, sys
def col(name, side):
    """{pair: value} of metric name in the pair runs of side, from the CSV."""
    lines = open(sys.argv[2]).read().split("\n")
    k = lines[0].split(",").index(name)
    rows = [l.split(",") for l in lines[1:] if l]
    return {int(r[2]): float(r[k]) for r in rows if r[1] == "pair" and r[3] == side}
def walsh(d):
    return sorted((d[i] + d[k]) / 2 for i in range(len(d)) for k in range(i, len(d)))
def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
def crit(n, alpha):
    law = [sum(r for r, s in zip(range(1, n + 1), sg) if s)
           for sg in itertools.product((0, 1), repeat=n)]
    c = -1
    while sum(w <= c + 1 for w in law) / 2 ** n <= alpha / 2:
        c += 1
    return c
def p_value(d):
    a = [abs(x) for x in d]
    r2 = [sum(y < x for y in a) * 2 + 1 + sum(y == x for y in a) for x in a]
    w = [(r, x > 0) for r, x in zip(r2, d) if x != 0]
    t = sum(r for r, pos in w if pos)
    mean = sum(r for r, _ in w) / 2
    pats = [sum(r for (r, _), s in zip(w, sg) if s)
            for sg in itertools.product((0, 1), repeat=len(w))]
    return sum(abs(s - mean) >= abs(t - mean) for s in pats) / len(pats)
def paired(d, alpha=0.05):
    w, c = walsh(d), crit(len(d), alpha)
    return median(w), w[c], w[len(w) - 1 - c], p_value(d)
EOF
$py - "$tmp/hl.py" "$tmp/rel.csv" "$tmp/rel.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
exec(open(sys.argv[1]).read())
j = json.load(open(sys.argv[3]))
r = j["report"]
def near(a, b, e=1e-9): return a is not None and abs(a - b) < e
keys = {"median", "min", "max", "pairs", "scale", "estimate", "ci_low", "ci_high",
        "p_value", "p_adjusted", "differs", "primary", "too_few", "ratios", "verdict"}
g, rot, ad = r["gone"]["b"], r["rot"]["b"], r["adiff"]["b"]
# gone: every pair -1, exactly -100% with no width, p = 2/2^8
ok = (g["scale"] == "rel" and set(g) == keys and g["estimate"] == -100 and
      g["ci_low"] == -100 and g["ci_high"] == -100 and g["ratios"] == [0] * 8 and
      near(g["p_value"], 2 / 256) and g["differs"] is True and
      g["verdict"] == "B is 100.0% lower [100.0%, 100.0%], p = 0.0078 (adjusted), 8 pairs")
# rot: (B - A) / A per pair, in run order; times 100
A, B = col("rot", "A"), col("rot", "B")
d = [(B[n] - A[n]) / A[n] for n in sorted(A)]
est, lo, hi, p = paired(d)
ok = (ok and rot["scale"] == "rel" and set(rot) == keys and rot["pairs"] == 8 and
      near(rot["estimate"], 100 * est) and near(rot["ci_low"], 100 * lo) and
      near(rot["ci_high"], 100 * hi) and rot["ci_low"] >= -100 and near(rot["p_value"], p) and
      all(near(x, 1 + y) for x, y in zip(rot["ratios"], d)) and rot["primary"] is True and
      rot["differs"] is True and
      rot["verdict"] == "B is %.1f%% lower [%.1f%%, %.1f%%], p = %.2g, 8 pairs" %
      (-100 * est, -100 * hi, -100 * lo, p))
# the A/A pair on the same scale: (56100 - 55000) / 55000
ok = (ok and near(j["host_check"]["aa_pct"], 2) and
      near(j["host_check"]["aa_difference"], 0.02))
# adiff: an A run of 0 in a pair: B - A, and a % of A's median
A, B = col("adiff", "A"), col("adiff", "B")
d = [B[n] - A[n] for n in sorted(A)]
est, lo, hi, p = paired(d)
ok = (ok and ad["scale"] == "diff" and set(ad) == keys | {"difference"} and
      r["adiff"]["a"]["median"] == 10 and ad["ratios"] == [] and
      all(near(x, y) for x, y in zip(ad["difference"], (est, lo, hi))) and
      near(ad["estimate"], 10 * est) and near(ad["ci_low"], 10 * lo) and
      near(ad["ci_high"], 10 * hi) and near(ad["p_value"], p))
print("ok" if ok else json.dumps({k: r[k]["b"] for k in ("gone", "rot", "adiff")} |
                                 {"host_check": j["host_check"], "d": d}, indent=1))
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]]
res $? "ab report: a count 0 in some B runs is on the rel scale, each pair against its own A"
zsw ab --metric rot --from-csv "$tmp/rel.csv"
grep -q '^gone  *56\.2k  *0  *-100\.0% \[-100\.0%, -100\.0%\]  *0\.0078  *8 \*$' "$tmp/out" &&
	grep -q '^rot  *50\.8k  *5100  *-75\.0% \[-100\.0%, -20\.0%\]  *0\.023  *8 \*$' "$tmp/out" &&
	grep -q '^adiff  *10  *13\.5  *+35\.0% \[+20\.0%, +55\.0%\]  *0\.0078  *8 \*$' "$tmp/out" &&
	grep -q "^A/A pair: rot +2.00% (a pair's noise, robust sd: [0-9.]*%)$" "$tmp/out" &&
	! grep -Eq -- '-(100\.[1-9]|10[1-9]\.[0-9]|1[1-9][0-9]\.[0-9]|[2-9][0-9]{2}\.[0-9]|[0-9]{4,})%' \
		"$tmp/out"
res $? "ab report: a count gone in B reads -100.0%, never below; the A/A pair as a % on rel"
# The diff scale where it belongs: A is 0 in every pair run of azero, and
# in one of t's; neither became rel.
$py -c 'import json,sys; r=json.load(open(sys.argv[1]))["report"]; sys.exit(not (r["azero"]["b"]["scale"] == "diff" and r["zero"]["b"]["scale"] == "diff" and r["m"]["b"]["scale"] == "log"))' "$tmp/runs.json" &&
	zsw ab --json --metric m --from-csv "$tmp/ties.csv" &&
	$py -c 'import json,sys; t=json.load(open(sys.argv[1]))["report"]["t"]["b"]; sys.exit(not (t["scale"] == "diff" and t["estimate"] is None and len(t["difference"]) == 3 and t["ratios"] == []))' "$tmp/out"
res $? "ab report: a metric with a paired A run of 0 stays on the diff scale, in its units"
zsw ab --metric nosuch --from-csv "$tmp/runs.csv"
[[ $rc == 64 && $err == *"--metric 'nosuch': no such metric in $tmp/runs.csv; it has:"* && -z $out ]]
res $? "ab --from-csv refuses an unknown --metric, listing the metrics (exit 64)"
zsw ab --from-csv "$tmp/runs.csv" -- "$tmp/cmd"
[[ $rc == 64 && ! -e $marker ]]
res $? "ab --from-csv refuses a command too (exit 64)"

# Three sides: each run next to an A run (A B C A, then mirrored A C B A),
# A drifting within the pair (100 then 110). Each side is paired with its
# nearest A: B 20% lower against the first, C equal to the second.
printf '%s\n' "run,kind,pair,side,settings,exit,m" '0,aa,0,A,"x=1",0,100' '1,aa,0,A,"x=1",0,101' \
	'2,pair,1,A,"x=1",0,100' '3,pair,1,B,"x=2",0,80' '4,pair,1,C,"x=3",0,110' '5,pair,1,A,"x=1",0,110' \
	'6,pair,2,A,"x=1",0,100' '7,pair,2,C,"x=3",0,100.5' '8,pair,2,B,"x=2",0,88' '9,pair,2,A,"x=1",0,110' \
	>"$tmp/three.csv"
zsw ab --json --metric m --from-csv "$tmp/three.csv"
cp "$tmp/out" "$tmp/three.json"
$py - "$tmp/three.json" <<'EOF' >"$tmp/check" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
def near(a, b): return a is not None and abs(a - b) < 1e-9
m = j["report"]["m"]
b, c = m["b"], m["c"]
ok = (set(j) >= {"a", "b", "c"} and j["c"] == {"x": "3"} and
      [r["side"] for r in j["runs"]] == list("AAABCAACBA") and
      all(near(x, y) for x, y in zip(b["ratios"], [0.8, 0.8])) and
      all(near(x, y) for x, y in zip(c["ratios"], [1.0, 1.005])) and
      c["primary"] is False and c["p_adjusted"] is not None and
      (c["median"], c["min"], c["max"]) == (105.25, 100.5, 110))
print("ok" if ok else json.dumps(j["report"], indent=1))
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]]
res $? "ab report of three sides: each side paired with its nearest A run, C secondary"
zsw ab --metric m --all --from-csv "$tmp/three.csv"
grep -qx "C: x=3" "$tmp/out" && grep -q "^C against A  *A  *C  *change" "$tmp/out" &&
	grep -q "^C against A on m: too few pairs to judge: 2" "$tmp/out" &&
	zsw ab --metric m --from-csv "$tmp/three.csv" --csv "$tmp/three2.csv" && cmp -s "$tmp/three.csv" "$tmp/three2.csv"
res $? "ab report of three sides: C's table and verdict; the CSV round trip"
sed 's/,B,/,Q,/' "$tmp/three.csv" | grep -v ',Q,' >"$tmp/gap.csv"
zsw ab --from-csv "$tmp/gap.csv"
[[ $rc == 64 && $err == *"gap.csv: no pair run of side B, but of side C" && -z $out ]]
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

# The alerting rules: each fires, and not on an idle host, a policy off,
# a spell shorter than its for: or a module back; broken copies must fail.
promtool check rules "$rules/zswap_wb.alerts.yml" >"$tmp/out" 2>"$tmp/err"
res $? "promtool check rules: the shipped alerting rules"
(cd "$rules" && promtool test rules zswap_wb.alerts.test.yml) >"$tmp/out" 2>"$tmp/err"
res $? "promtool test rules: each alert fires, and not when idle, off, brief or back"
cp "$rules/zswap_wb.alerts.test.yml" "$tmp/broken/"
# alerts_broken SED DESC: the alerts edited by SED must fail their tests,
# naming the alert that went wrong.
alerts_broken() {
	sed -e "$1" "$rules/zswap_wb.alerts.yml" >"$tmp/broken/zswap_wb.alerts.yml"
	(cd "$tmp/broken" && promtool test rules zswap_wb.alerts.test.yml) >"$tmp/out" 2>&1
	[ $? != 0 ] && grep -q "alertname: $2" "$tmp/out"
}
alerts_broken 's/ - rate(zswap_wb_scope_fallbacks_total\[5m\])//' ZswapWbFreesBehind
res $? "promtool test rules fails on frees behind that counts folios no policy took"
alerts_broken 's/zswap_wb_scope_info{sync_free="Y"} or //' ZswapWbFreesBehind
res $? "promtool test rules fails on frees behind that ignores sync_free"
alerts_broken '/increase(zswap_wb_scope_raced_total/d' ZswapWbFoliosStuck
res $? "promtool test rules fails on stuck folios that a swapin claimed"
alerts_broken '/^ *for: /d' ZswapWbDown
res $? "promtool test rules fails on alerts without their for:"
grep -q 'zswap_wb.alerts.yml' "$here/Makefile" && grep -q 'zswap_wb.alerts.test.yml' "$here/Makefile" &&
	grep -qx 'usr/share/zswbctl/prometheus' "$ZSWB_TOP/debian/zswap-wb-prometheus-rules.install"
res $? "make install ships the alerts and their tests; the zswap-wb-prometheus-rules package takes them"

# zswbctl-plot: PNG and SVG from a report; refusals.
plot=$here/zswbctl-plot
"$plot" -o "$tmp/runs.png" "$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(head -c 8 "$tmp/runs.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
res $? "zswbctl-plot draws a PNG"
"$plot" --all -o "$tmp/runs.svg" <"$tmp/runs.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
# every measured metric a panel: m, azero and gap (zero is 0 everywhere)
[ $rc = 0 ] && grep -q "<svg" "$tmp/runs.svg" &&
	grep -qF "B: B is 49.8% lower [48.0%, 51.5%], p = 0.031, 6 pairs" "$tmp/runs.svg" &&
	grep -qF "B: B is 5 higher [4, 7] where A's median is 0" "$tmp/runs.svg"
res $? "zswbctl-plot --all draws an SVG from stdin, with the verdicts"
"$plot" -o "$tmp/three.svg" "$tmp/three.json" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] && grep -qF "C: too few pairs to judge: 2 cannot reach p &lt;= 0.05; run at least 6" "$tmp/three.svg" &&
	grep -q "C: x=3" "$tmp/three.svg"
res $? "zswbctl-plot draws a third side, with its verdict and settings"
# On the rel scale a pair's point is its B/A, 1 + its relative change;
# on diff, with A's median 10, 1 + (B - A) / 10.
"$plot" --all -o "$tmp/rel.svg" "$tmp/rel.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
$py -B - "$plot" "$tmp/rel.csv" "$tmp/rel.json" <<'EOF' >"$tmp/check" 2>&1
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("plot", sys.argv[1])
plot = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot", loader))
loader.exec_module(plot)
j = json.load(open(sys.argv[3]))
def col(name, side):
    lines = open(sys.argv[2]).read().split("\n")
    k = lines[0].split(",").index(name)
    return {int(r[2]): float(r[k]) for r in (l.split(",") for l in lines[1:] if l)
            if r[1] == "pair" and r[3] == side}
def near(x, y): return len(x) == len(y) and all(abs(a - b) < 1e-9 for a, b in zip(x, y))
ok = True
for name, point in (("gone", lambda a, b: b / a), ("rot", lambda a, b: b / a),
                    ("adiff", lambda a, b: 1 + (b - a) / 10)):
    A, B = col(name, "A"), col(name, "B")
    pts, est = plot.side_points(j, name, "b")
    c = j["report"][name]["b"]
    ok = (ok and plot.is_ratio_panel(j, name) and near(pts, [point(A[n], B[n]) for n in sorted(A)])
          and near(est, [1 + c[k] / 100 for k in ("estimate", "ci_low", "ci_high")]))
print("ok" if ok else "not ok")
EOF
[[ $rc == 0 && $(<"$tmp/check") == ok ]] &&
	grep -qF "B: B is 100.0% lower [100.0%, 100.0%], p = 0.0078 (adjusted), 8 pairs" "$tmp/rel.svg"
res $? "zswbctl-plot: a side on the rel scale is each pair's B/A, diff 1 + (B - A) / A's median"
# Six sides' settings go over as many title lines as fit the width, none
# split, every side once, in order.
$py -B - "$plot" <<'EOF' >"$tmp/check" 2>&1
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("plot", sys.argv[1])
plot = importlib.util.module_from_spec(importlib.util.spec_from_loader("plot", loader))
loader.exec_module(plot)
labels = [f"{c}: async_free=Y readahead_policy=skip_zswap_slots shrink_policy=per_node"
          for c in "ABCDEF"]
rows = plot.setting_rows(labels)
print("ok" if len(rows) == 3 and all(len(r) <= 150 for r in rows)
      and "; ".join(rows) == "; ".join(labels) else f"not ok {rows}")
EOF
[[ $(<"$tmp/check") == ok ]]
res $? "zswbctl-plot: the sides' settings wrap at the figure's width, none split"
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
	grep -q 'zswap_wb_scope:freed_per_written_back:ratio_rate5m' "$ZSWB_TOP/Documentation/zswap_wb.rst" &&
	grep -q 'zswap-wb-prometheus-rules' "$ZSWB_TOP/Documentation/zswap_wb.rst"
res $? "zswap_wb.rst has the fleet A/B section, naming the rules and their package"
man -l "$man" >/dev/null 2>"$tmp/err" && ! grep -q . "$tmp/err"
res $? "zswbctl(8) renders without warnings"
grep -q 'zswbctl-plot' "$here/Makefile" && grep -q 'zswap_wb.rules.yml' "$here/Makefile" &&
	grep -q 'python3-matplotlib' "$ZSWB_TOP/debian/control"
res $? "make install ships zswbctl-plot and the rules; the package recommends matplotlib"
ktap_finished
