#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl ab --csv and --from-csv: the runs read from a CSV written back
# byte for byte; the same runs from a file saved with CRLF line ends;
# every file --from-csv refuses (not ab's, a value not a number, a row of
# the wrong width, no run of B, a pair without its A run or with two of
# B, a pair number beyond 1000, an unknown --metric, a command beside it)
# with exit 64 and nothing on stdout. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 11

fake_ab
ab_runs JSON
zsw ab --metric m --from-csv "$tmp/runs.csv" --csv "$tmp/again.csv"
cmp -s "$tmp/runs.csv" "$tmp/again.csv" && [ "$rc" = 0 ]
result "ab --csv writes back the runs --from-csv read, byte for byte" $?
printf 'a,b\n1,2\n' >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"not a zswbctl ab --csv file"* && -z $out ]]
result "ab --from-csv refuses a file ab did not write (exit 64)" $?
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0,x" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"m is 'x', not a number" && -z $out ]]
result "ab --from-csv refuses a value that is not a number (exit 64)" $?
printf '%s\n' "run,kind,pair,side,settings,exit,m" "0,aa,0,A,,0" >"$tmp/bad.csv"
zsw ab --from-csv "$tmp/bad.csv"
[[ $rc == 64 && $err == *"6 fields, the header has 7" && -z $out ]]
result "ab --from-csv refuses a row of the wrong width (exit 64)" $?
grep -v ',B,' "$tmp/runs.csv" >"$tmp/onlya.csv"
zsw ab --from-csv "$tmp/onlya.csv"
[[ $rc == 64 && $err == *"onlya.csv: no run of side B: nothing to compare with A" && -z $out ]]
result "ab --from-csv refuses runs of A alone (exit 64)" $?
grep -v '^3,pair,1,A' "$tmp/runs.csv" >"$tmp/noa.csv"
zsw ab --from-csv "$tmp/noa.csv"
[[ $rc == 64 && $err == *"pair 1 has a run of side B but none of side A" && -z $out ]]
result "ab --from-csv refuses a pair without its A run (exit 64)" $?
sed 's/$/\r/' "$tmp/runs.csv" >"$tmp/crlf.csv"
echo >>"$tmp/crlf.csv"
zsw ab --json --metric m --from-csv "$tmp/crlf.csv"
[[ $rc == 0 ]] && cmp -s "$tmp/out" "$tmp/runs.json"
result "ab --from-csv reads a file saved with CRLF line ends and a blank line as the same runs" $?
sed '6p' "$tmp/runs.csv" >"$tmp/dup.csv"
zsw ab --metric m --from-csv "$tmp/dup.csv"
[[ $rc == 64 && $err == *"dup.csv:7: pair 1 has more than 1 pair run of side B" && -z $out ]]
result "ab --from-csv refuses two runs of side B in one pair (exit 64)" $?
sed 's/^3,pair,1,A/3,pair,4294967297,A/' "$tmp/runs.csv" >"$tmp/bigpair.csv"
zsw ab --metric m --from-csv "$tmp/bigpair.csv"
[[ $rc == 64 && $err == *"pair '4294967297' is not a number from 0 to 1000" && -z $out ]]
result "ab --from-csv refuses a pair number beyond 1000 (exit 64)" $?
zsw ab --metric nosuch --from-csv "$tmp/runs.csv"
[[ $rc == 64 && $err == *"--metric 'nosuch': no such metric in $tmp/runs.csv; it has:"* && -z $out ]]
result "ab --from-csv refuses an unknown --metric, listing the metrics (exit 64)" $?
zsw ab --from-csv "$tmp/runs.csv" -- "$tmp/cmd"
[[ $rc == 64 && ! -e $marker ]]
result "ab --from-csv refuses a command too (exit 64)" $?

ktap_finished
