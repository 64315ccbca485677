#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab with three sides, on runs given through --from-csv
# (ab_lib.sh's ab_three): each side paired with its nearest A run, C a
# secondary comparison; C's table and verdict; the CSV round trip; runs of
# C without any of B refused. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 3

fake_ab
ab_three
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
result "ab report of three sides: each side paired with its nearest A run, C secondary" $?
zsw ab --metric m --all --from-csv "$tmp/three.csv"
grep -qx "C: x=3" "$tmp/out" && grep -q "^C against A  *A  *C  *change" "$tmp/out" &&
	grep -q "^C against A on m: too few pairs to judge: 2" "$tmp/out" &&
	zsw ab --metric m --from-csv "$tmp/three.csv" --csv "$tmp/three2.csv" && cmp -s "$tmp/three.csv" "$tmp/three2.csv"
result "ab report of three sides: C's table and verdict; the CSV round trip" $?
sed 's/,B,/,Q,/' "$tmp/three.csv" | grep -v ',Q,' >"$tmp/gap.csv"
zsw ab --from-csv "$tmp/gap.csv"
[[ $rc == 64 && $err == *"gap.csv: no pair run of side B, but of side C" && -z $out ]]
result "ab --from-csv refuses runs of side C without any of side B (exit 64)" $?

ktap_finished
