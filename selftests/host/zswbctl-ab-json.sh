#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab --json: the report's schema, every key and every type, of
# the report and of every run (on ab_lib.sh's ab_runs); --json refused
# beside --csv -, whose outputs would mix. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 2

fake_ab
ab_runs JSON
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
result "ab --json: the schema of the report and of every run" $?
fake_ab
zsw ab --json --csv - --b async_free=Y -- "$tmp/cmd"
[[ $rc == 64 && $err == *"--csv - and --json both write to standard output"* && -z $out ]] && untouched
result "ab refuses --csv - with --json, whose outputs would mix (exit 64)" $?

ktap_finished
