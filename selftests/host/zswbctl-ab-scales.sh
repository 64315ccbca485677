#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab's scales, on runs given through --from-csv (ab_lib.sh): a
# count that falls to 0 under B is on the rel scale, each pair's change
# relative to its own A, never below -100% (ab_rel, its figures computed
# here from their definitions); a metric with an A run of 0 in a pair
# stays on the diff scale, in its units (ab_runs, ab_ties). KTAP on
# stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 3

fake_ab
ab_runs JSON
ab_ties
ab_rel
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
result "ab report: a count 0 in some B runs is on the rel scale, each pair against its own A" $?
zsw ab --metric rot --from-csv "$tmp/rel.csv"
grep -q '^gone  *56\.2k  *0  *-100\.0% \[-100\.0%, -100\.0%\]  *0\.0078  *8 \*$' "$tmp/out" &&
	grep -q '^rot  *50\.8k  *5100  *-75\.0% \[-100\.0%, -20\.0%\]  *0\.023  *8 \*$' "$tmp/out" &&
	grep -q '^adiff  *10  *13\.5  *+35\.0% \[+20\.0%, +55\.0%\]  *0\.0078  *8 \*$' "$tmp/out" &&
	grep -q "^A/A pair: rot +2.00% (a pair's noise, robust sd: [0-9.]*%)$" "$tmp/out" &&
	! grep -Eq -- '-(100\.[1-9]|10[1-9]\.[0-9]|1[1-9][0-9]\.[0-9]|[2-9][0-9]{2}\.[0-9]|[0-9]{4,})%' \
		"$tmp/out"
result "ab report: a count gone in B reads -100.0%, never below; the A/A pair as a % on rel" $?
# The diff scale where it belongs: A is 0 in every pair run of azero, and
# in one of t's; neither became rel.
$py -c 'import json,sys; r=json.load(open(sys.argv[1]))["report"]; sys.exit(not (r["azero"]["b"]["scale"] == "diff" and r["zero"]["b"]["scale"] == "diff" and r["m"]["b"]["scale"] == "log"))' "$tmp/runs.json" &&
	zsw ab --json --metric m --from-csv "$tmp/ties.csv" &&
	$py -c 'import json,sys; t=json.load(open(sys.argv[1]))["report"]["t"]["b"]; sys.exit(not (t["scale"] == "diff" and t["estimate"] is None and len(t["difference"]) == 3 and t["ratios"] == []))' "$tmp/out"
result "ab report: a metric with a paired A run of 0 stays on the diff scale, in its units" $?

ktap_finished
