#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl-plot, on zswbctl ab's JSON reports of runs given through
# --from-csv (ab_lib.sh): a PNG, an SVG from stdin with every metric and
# the verdicts, a third side, the points of the rel and diff scales
# (computed here from the CSV), the sides' settings wrapped at the
# figure's width; a metric the report lacks, a file that is not a report
# and an output that is neither .png nor .svg refused. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
zswb_need python3-matplotlib
plan 8

fake_ab
ab_runs JSON
ab_three
ab_rel
# zswbctl-plot: PNG and SVG from a report; refusals.
plot=$tool/zswbctl-plot
run "$plot" -o "$tmp/runs.png" "$tmp/runs.json"
[ "$rc" = 0 ] && [ "$(head -c 8 "$tmp/runs.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
result "zswbctl-plot draws a PNG" $?
run "$plot" --all -o "$tmp/runs.svg" <"$tmp/runs.json"
# every measured metric a panel: m, azero and gap (zero is 0 everywhere)
[ "$rc" = 0 ] && grep -q "<svg" "$tmp/runs.svg" &&
	grep -qF "B: B is 49.8% lower [48.0%, 51.5%], p = 0.031, 6 pairs" "$tmp/runs.svg" &&
	grep -qF "B: B is 5 higher [4, 7] where A's median is 0" "$tmp/runs.svg"
result "zswbctl-plot --all draws an SVG from stdin, with the verdicts" $?
run "$plot" -o "$tmp/three.svg" "$tmp/three.json"
[ "$rc" = 0 ] && grep -qF "C: too few pairs to judge: 2 cannot reach p &lt;= 0.05; run at least 6" "$tmp/three.svg" &&
	grep -q "C: x=3" "$tmp/three.svg"
result "zswbctl-plot draws a third side, with its verdict and settings" $?
# On the rel scale a pair's point is its B/A, 1 + its relative change;
# on diff, with A's median 10, 1 + (B - A) / 10.
run "$plot" --all -o "$tmp/rel.svg" "$tmp/rel.json"
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
result "zswbctl-plot: a side on the rel scale is each pair's B/A, diff 1 + (B - A) / A's median" $?
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
result "zswbctl-plot: the sides' settings wrap at the figure's width, none split" $?
run "$plot" -m nosuch -o "$tmp/x.png" "$tmp/runs.json"
[[ $rc == 64 && $err == "zswbctl-plot: no metric 'nosuch' in the report"* && ! -e $tmp/x.png ]]
result "zswbctl-plot refuses a metric the report lacks (exit 64)" $?
echo '{"a": 1}' >"$tmp/notab.json"
run "$plot" -o "$tmp/x.png" "$tmp/notab.json"
[[ $rc == 1 && $err == *"not a zswbctl ab --json report"* && ! -e $tmp/x.png ]]
result "zswbctl-plot refuses a file that is not a report (exit 1)" $?
run "$plot" -o "$tmp/x.jpg" "$tmp/runs.json"
[[ $rc == 64 && ! -e $tmp/x.jpg ]]
result "zswbctl-plot refuses an output that is not .png or .svg (exit 64)" $?

ktap_finished
