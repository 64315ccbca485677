#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab's report, on runs given through --from-csv (ab_lib.sh's
# ab_runs: six pairs, B about half of A): medians and ranges, each pair's
# ratio, the Hodges-Lehmann change, its exact interval and p computed
# here from their definitions, the verdict in words, no difference, too
# few pairs, --alpha, the Benjamini-Hochberg adjustment of the secondary
# metrics, the A/A pair as a host check, a metric 0 under A (a
# difference, not a ratio), missing values, tied differences. The
# arithmetic itself: zswbctl-stat.sh; its calibration:
# zswbctl-calibrate.sh. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 9

fake_ab
ab_runs JSON
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
result "ab report: Hodges-Lehmann change, exact interval and p of known runs, A is 0, a gap" $?
fake_ab
zsw ab --metric m --from-csv "$tmp/runs.csv"
grep -q '^m  *100  *50  *-49\.8% \[-51\.5%, -48\.0%\]  *0\.031  *6 \*$' "$tmp/out" &&
	grep -q "^B against A on m: B is 49.8% lower \[48.0%, 51.5%\], p = 0.031, 6 pairs$" "$tmp/out" &&
	grep -qx "A: async_free=N" "$tmp/out" && grep -qx "B: async_free=Y" "$tmp/out" &&
	grep -q "^azero  *0  *5  *+5 \[+4, +7\]  *0\.031  *6 \*$" "$tmp/out" &&
	grep -q "^the command failed in 1 of 17 runs, left out of the comparison" "$tmp/out" &&
	! grep -q "^zero " "$tmp/out" && [ "$rc" = 0 ] &&
	awk 'length($0) > 100 { exit 1 }' "$tmp/out"
result "ab report: the rows, the verdict in words, the failed run, all-zero metrics left out, 100 columns" $?

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
result "ab report: B on either side of A is no difference detected, with its interval" $?
# Too few pairs: three, every one 2x apart, cannot reach 0.05; nor six at 0.01.
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,10" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,20" "4,pair,2,B,,0,21" "5,pair,2,A,,0,10" \
	"6,pair,3,A,,0,10" "7,pair,3,B,,0,19" >"$tmp/few.csv"
zsw ab --json --metric m --from-csv "$tmp/few.csv"
$py -c 'import json,sys; m=json.load(open(sys.argv[1]))["report"]["m"]["b"]; sys.exit(not (m["too_few"] and not m["differs"] and m["verdict"] == "too few pairs to judge: 3 cannot reach p <= 0.05; run at least 6"))' "$tmp/out"
result "ab report: 3 pairs are too few for a verdict at 0.05, and it says how many are not" $?
zsw ab --metric m --alpha 0.01 --from-csv "$tmp/runs.csv"
grep -q "^B against A on m: too few pairs to judge: 6 cannot reach p <= 0.01; run at least 8$" "$tmp/out" &&
	grep -qx "primary: m, at alpha 0.01" "$tmp/out" &&
	grep -q "^change: Hodges-Lehmann, with its 99% interval;" "$tmp/out" &&
	grep -q '^m  *100  *50  *-49\.8% \[-, -\]  *0\.031  *6$' "$tmp/out"
result "ab report: --alpha 0.01 asks for 8 pairs, and a 99% interval" $?

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
result "ab report: the secondary metrics' p-values are Benjamini-Hochberg adjusted, the primary's not" $?
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,10" "1,aa,0,A,,0,12" \
	"2,pair,1,A,,0,10" "3,pair,1,B,,0,10.01" "4,pair,2,B,,0,10" "5,pair,2,A,,0,10.01" \
	"6,pair,3,A,,0,10" "7,pair,3,B,,0,10.02" "8,pair,4,B,,0,10" "9,pair,4,A,,0,10.02" \
	"10,pair,5,A,,0,10" "11,pair,5,B,,0,10.01" "12,pair,6,B,,0,10.02" "13,pair,6,A,,0,10" \
	>"$tmp/aa.csv"
zsw ab --metric m --from-csv "$tmp/aa.csv"
grep -q "^A/A pair: m +20.00% " "$tmp/out" && grep -q "^warning: the A/A pair differs by more than 3 times the pairs' noise" "$tmp/out" &&
	! grep -q "^warning" <(zsw ab --metric m --from-csv "$tmp/runs.csv"; cat "$tmp/out")
result "ab report: an A/A pair far wider than the pairs' noise is a warning, not a threshold" $?
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,pair,1,A,,0,10" "1,pair,1,B,,0,20" >"$tmp/noaa.csv"
zsw ab --json --metric m --from-csv "$tmp/noaa.csv"
$py -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j["host_check"]["aa_pct"] is None and j["report"]["m"]["b"]["pairs"] == 1))' "$tmp/out"
result "ab report: without an A/A pair the host check is null, the pairs still compared" $?
# With tied differences (ab_ties), ab calls a difference only where p
# and the interval agree.
ab_ties
zsw ab --json --metric m --from-csv "$tmp/ties.csv"
$py -c 'import json,sys; t=json.load(open(sys.argv[1]))["report"]["t"]["b"]; sys.exit(not (t["p_value"] < 0.05 and t["difference"][1] < 0 and t["differs"] is False))' "$tmp/out"
result "ab report: with tied differences, no verdict where p and the interval disagree" $?

ktap_finished
