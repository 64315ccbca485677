#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl fleet against a real Prometheus (Debian's prometheus package),
# on synthetic series backfilled into its TSDB with promtool:
#  - a fleet of hosts, each exporting the counters of its policy scopes and
#    their settings (zswap_wb_scope_info) every minute for two hours, made
#    with a fixed seed: a paired split (scopes a and b on every host) and
#    an unpaired one (each host in one arm), each as an A/A split and with
#    a real difference (B frees 25% more of what it writes back), and an
#    A/A test on every host (scopes batch-1 and batch-2, A's settings both);
#  - fleet over a PromQL expression of the raw counters, and over the
#    shipped recording rule, whose output promtool computes from the raw
#    series (tsdb create-blocks-from rules): "no difference detected" on
#    the A/A splits, B higher on the real ones, paired and unpaired, by
#    settings, by host lists and by scope names (a series without a scope
#    label is the scope global);
#  - the JSON report, the CSV and zswbctl ab --from-csv's report on it;
#  - every bad input with its exit status and nothing on stdout: no
#    server, an expression with no series, a host or a scope in both arms,
#    settings that match both arms, the arms named two ways or one side
#    of a way (nothing queried), a range shorter than the scrape interval,
#    an expression the server refuses; with --json the error as JSON.
# The server is stopped at exit (at_exit). KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
zswb_need pkg-config libcurl4-openssl-dev libjansson-dev
# shellcheck source=../prometheus.lib
. "$top/selftests/prometheus.lib"
at_exit prom_stop
plan 27

# The tool with libcurl and jansson (as the package builds it), in a copy
# of its sources: the static build in tools/zswbctl is the test VM's.
mkdir -p "$tmp/src/tools"
cp -r "$tool" "$tmp/src/tools/"
cp "$top/dkms.conf" "$tmp/src/"
if ! { make -s -C "$tmp/src/tools/zswbctl" clean &&
       make -s -C "$tmp/src/tools/zswbctl" STATIC= zswbctl; } >"$tmp/build" 2>&1; then
	sed 's/^/# /' "$tmp/build"
	ktap_test_fail "zswbctl builds with libcurl and jansson"
	ktap_finished
fi
# The copy is the zswbctl that zsw runs.
bin=$tmp/src/tools/zswbctl/zswbctl

# The series: every minute for two hours, ending an hour ago (whole
# minutes); the comparisons read from ten minutes in (rate()'s 5m window).
end=$(( ($(date +%s) - 3600) / 60 * 60 ))
start=$((end - 7200))
from=$((start + 600))
"$py" - "$start" "$end" >"$tmp/series.om" <<'EOF'
import math, random, sys

start, end = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(20250131)
hosts = []  # (job, instance, scopes: [(scope, settings, freed per written back)])

def ratio(base, factor):
    return min(0.98, base * factor)

# Paired: scopes a and b on each host, a host effect shared by both.
for job, gain in (("pr", 1.25), ("pa", 1.0)):
    for h in range(8):
        base = 0.5 * math.exp(rnd.gauss(0, 0.15))
        sa, sb = ("async_free=N", "async_free=Y") if job == "pr" else \
                 ("async_free=Y split=a", "async_free=Y split=b")
        hosts.append((job, "%s%02d:9100" % (job, h + 1), [
            ("a", sa, ratio(base, math.exp(rnd.gauss(0, 0.03)))),
            ("b", sb, ratio(base, gain * math.exp(rnd.gauss(0, 0.03))))]))
# Unpaired: one arm per host (its global scope), ten hosts each.
for job, gain in (("ur", 1.25), ("ua", 1.0)):
    for h in range(20):
        arm = h % 2
        base = 0.5 * math.exp(rnd.gauss(0, 0.1))
        s = ("async_free=N", "async_free=Y")[arm] if job == "ur" else "async_free=Y"
        hosts.append((job, "%s%02d:9100" % (job, h + 1),
                      [("global", s, ratio(base, gain if arm else 1.0))]))
# An A/A test on every host: scopes batch-1 and batch-2, A's settings both.
for h in range(8):
    base = 0.5 * math.exp(rnd.gauss(0, 0.15))
    hosts.append(("ps", "ps%02d:9100" % (h + 1),
                  [(scope, "async_free=N", ratio(base, math.exp(rnd.gauss(0, 0.03))))
                   for scope in ("batch-1", "batch-2")]))

times = range(start, end + 1, 60)
print("# TYPE zswap_wb_scope_info gauge")
for job, inst, scopes in hosts:
    for scope, settings, _ in scopes:
        for t in times:
            print('zswap_wb_scope_info{instance="%s",job="%s",scope="%s",settings="%s"} 1 %d'
                  % (inst, job, scope, settings, t))
for fam in ("written_back", "freed_async", "freed_sync"):
    print("# TYPE zswap_wb_scope_%s counter" % fam)
    for job, inst, scopes in hosts:
        for scope, settings, r in scopes:
            tot = 0.0
            for t in times:
                wb = 6000 * math.exp(rnd.gauss(0, 0.05))
                tot += {"written_back": wb, "freed_async": wb * r, "freed_sync": 0}[fam]
                print('zswap_wb_scope_%s_total{instance="%s",job="%s",scope="%s"} %.3f %d'
                      % (fam, inst, job, scope, tot, t))
print("# EOF")
EOF
mkdir -p "$tmp/tsdb"
promtool tsdb create-blocks-from openmetrics "$tmp/series.om" "$tmp/tsdb" >"$tmp/backfill" 2>&1
rc=$? out='' err=$(<"$tmp/backfill")
result "promtool backfills the synthetic fleet's series ($(grep -c '^zswap' "$tmp/series.om") samples)" $rc

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1m
  evaluation_interval: 1m
EOF
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
if ! prom_start "$tmp" "$port" --storage.tsdb.retention.time=30d; then
	sed 's/^/# /' "$tmp/prometheus.log" | tail -20
	ktap_test_fail "prometheus serves the backfilled TSDB"
	ktap_finished
fi
ktap_test_pass "prometheus serves the backfilled TSDB at $url"

# ratio JOB: freed per written back of JOB's scopes (a regex), from the raw counters.
ratio() {
	local job=$1

	echo "(rate(zswap_wb_scope_freed_sync_total{job=~\"$job\"}[5m])" \
	     "+ rate(zswap_wb_scope_freed_async_total{job=~\"$job\"}[5m]))" \
	     "/ rate(zswap_wb_scope_written_back_total{job=~\"$job\"}[5m])"
}
# verdict: what the text report's last line says (a long metric's is on a line of its own).
verdict() {
	awk '/^B against A on /{ sub(/^B against A on [^ ]*:/, ""); v = $0; next }
	     v == "" && /^  /{ v = $0 } END { sub(/^ +/, "", v); print v }' "$tmp/out"
}
range=(--from "$from" --to "$end")

zsw fleet --url "$url" --metric "$(ratio pr)" --name freed_per_wb "${range[@]}" \
	--a async_free=N --b async_free=Y --csv "$tmp/pr.csv"
echo "# paired, real: $(verdict)"
[[ $rc == 0 && $out == *"8 hosts, each running both arms (paired by host)"* &&
   $(verdict) == "B is "*"% higher ["*"], p = 0.0078, 8 hosts" ]]
result "paired by host, B frees 25% more: B higher, p = 0.0078 (every host one way), 8 hosts" $?

zsw ab --from-csv "$tmp/pr.csv" --metric freed_per_wb
[[ $rc == 0 && $(verdict) == "B is "*"% higher ["*"], p = 0.0078, 8 hosts" ]]
result "zswbctl ab --from-csv reports the same on the fleet's CSV" $?

zsw fleet --url "$url" --metric "$(ratio pa)" "${range[@]}" \
	--a 'split=a' --b 'split=b'
echo "# paired, A/A: $(verdict)"
[[ $rc == 0 && $(verdict) == "no difference detected: "*", 8 hosts" ]]
result "paired by host, an A/A split: no difference detected" $?

zsw fleet --url "$url" --metric "$(ratio ur)" --name freed_per_wb "${range[@]}" \
	--a async_free=N --b async_free=Y --json
"$py" - "$tmp/out" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["report"]["freed_per_wb"]["b"]
print("# unpaired, real: %s" % c["verdict"])
hosts = {r["host"] for r in j["runs"]}
ok = (j["mode"] == "fleet-unpaired" and c["differs"] and c["estimate"] > 15 and
      c["ci_low"] > 0 and c["hosts_a"] == 10 and c["hosts_b"] == 10 and len(hosts) == 20 and
      len(c["ratios"]) == 10 and c["verdict"].endswith("10 + 10 hosts"))
sys.exit(0 if ok else 1)
EOF
result "unpaired (each host one arm), B frees 25% more: B higher in the JSON, 10 + 10 hosts" $?

hosts_a=$(printf 'ua%02d,' 1 3 5 7 9 11 13 15 17 19)
hosts_b=$(printf 'ua%02d:9100 ' 2 4 6 8 10 12 14 16 18 20)
zsw fleet --url "$url" --metric "$(ratio ua)" "${range[@]}" \
	--a-hosts "$hosts_a" --b-hosts "$hosts_b" --csv "$tmp/ua.csv"
echo "# unpaired, A/A by host lists: $(verdict)"
[[ $rc == 0 && $out == *"10 hosts in A, 10 in B, each host in one arm (unpaired)"* &&
   $(verdict) == "no difference detected: "*", 10 + 10 hosts" ]]
result "unpaired, an A/A split by host lists: no difference detected" $?

zsw ab --from-csv "$tmp/ua.csv" --metric value
[[ $rc == 0 && $(verdict) == "no difference detected: "*", 10 + 10 hosts" &&
   $(head -1 "$tmp/ua.csv") == "run,kind,pair,side,settings,exit,host,value" ]]
result "the unpaired CSV (a host column) read again by zswbctl ab --from-csv" $?

# fleet_json MODE DIFFERS HOSTS: the JSON report on stdout is of MODE, B
# differs from A or not (True, False), with runs of HOSTS hosts.
fleet_json() {
	"$py" - "$tmp/out" "$@" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
mode, differs, hosts = sys.argv[2], sys.argv[3] == "True", int(sys.argv[4])
c = next(iter(j["report"].values()))["b"]
print("# %s: %s" % (j["mode"], c["verdict"]))
sys.exit(0 if (j["mode"] == mode and c["differs"] == differs and
               len({r["host"] for r in j["runs"]}) == hosts and
               c["verdict"].endswith(" %d hosts" % hosts)) else 1)
EOF
}

# Arms by scope name: both on every host, A's settings both (--a and --b
# cannot tell them apart), and scopes a and b of the real difference.
zsw fleet --url "$url" --metric "$(ratio ps)" "${range[@]}" \
	--a-scopes batch-1 --b-scopes batch-2
echo "# paired, A/A by scopes: $(verdict)"
[[ $rc == 0 && $out == *"8 hosts, each running both arms (paired by host)"* &&
   $out == *"A: scopes=batch-1"* && $out == *"B: scopes=batch-2"* &&
   $(verdict) == "no difference detected: "*", 8 hosts" ]] &&
	zsw fleet --url "$url" --metric "$(ratio ps)" "${range[@]}" \
		--a-scopes batch-1 --b-scopes batch-2 --json &&
	fleet_json fleet-paired False 8
result "an A/A test by scope names, same settings: no difference detected, paired" $?

zsw fleet --url "$url" --metric "$(ratio pr)" "${range[@]}" --a-scopes a --b-scopes b --json
fleet_json fleet-paired True 8
result "by scope names, B frees 25% more: B differs in the JSON, paired, 8 hosts" $?

# a series without a scope label is the scope global: ur's hosts in A, pr's scope b in B
zsw fleet --url "$url" --metric "max without (scope) ($(ratio ur)) or $(ratio pr)" \
	"${range[@]}" --a-scopes global --b-scopes b
[[ $rc == 0 && $out == *"20 hosts in A, 8 in B, each host in one arm (unpaired)"* ]]
result "by scope names, a series without a scope label is global: unpaired, 20 + 8 hosts" $?

# The shipped recording rule, its output made by promtool from the raw series.
rules=$tool/prometheus/zswap_wb.rules.yml
promtool tsdb create-blocks-from rules --start "$start" --end "$end" --url "$url" \
	--output-dir "$tmp/rules-out" "$rules" >"$tmp/rules.log" 2>&1
rc=$?
prom_stop
cp -r "$tmp"/rules-out/* "$tmp/tsdb/" 2>/dev/null
if [ "$rc" = 0 ] && prom_start "$tmp" "$port" --storage.tsdb.retention.time=30d; then
	ktap_test_pass "promtool computes the shipped rules' output, prometheus serves it"
else
	sed 's/^/# /' "$tmp/rules.log" | tail -20
	ktap_test_fail "promtool computes the shipped rules' output, prometheus serves it"
fi
rule=zswap_wb_scope:freed_per_written_back:ratio_rate5m
zsw fleet --url "$url" --metric "$rule{job=\"pr\"}" --name "$rule" "${range[@]}" \
	--a async_free=N --b async_free=Y
echo "# paired, real, recording rule: $(verdict)"
[[ $rc == 0 && $(verdict) == "B is "*"% higher ["*"], p = 0.0078, 8 hosts" ]]
result "the recording rule $rule, paired: B higher" $?
zsw fleet --url "$url" --metric "$rule{job=\"ua\"}" --name "$rule" "${range[@]}" \
	--a-hosts "$hosts_a" --b-hosts "$hosts_b"
[[ $rc == 0 && $(verdict) == "no difference detected: "*", 10 + 10 hosts" ]]
result "the recording rule, unpaired A/A: no difference detected" $?

# Bad input: its exit status, the reason on stderr, nothing on stdout.
# bad RC WORDS DESC ARGS...: fleet ARGS exits RC, says WORDS, prints nothing.
bad() {
	local want=$1 words=$2 desc=$3
	shift 3
	zsw fleet "$@"
	[[ $rc == "$want" && -z $out && $err == *"$words"* ]]
	result "$desc: exit $want, nothing on stdout" $?
}
dead=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
bad 7 "cannot reach the Prometheus server" "no server at the URL" \
	--url "http://127.0.0.1:$dead" --metric "$rule" "${range[@]}" --a async_free=N --b async_free=Y
bad 7 "not as a Prometheus server's HTTP API does" "a URL that is not a Prometheus server's API" \
	--url "$url/graph" --metric "$rule" "${range[@]}" --a async_free=N --b async_free=Y
bad 8 "the query returned no series" "an expression with no series" \
	--url "$url" --metric no_such_metric "${range[@]}" --a async_free=N --b async_free=Y
bad 8 "no host has a series of arm B" "no series of arm B's settings" \
	--url "$url" --metric "$(ratio pr)" "${range[@]}" --a async_free=N --b async_free=X
bad 9 "is in --a-hosts and --b-hosts" "a host in both host lists" \
	--url "$url" --metric "$(ratio ua)" "${range[@]}" --a-hosts ua01,ua02 --b-hosts ua02:9100
bad 64 "match --a and --b" "two scopes of the same settings, named by settings" \
	--url "$url" --metric "$(ratio ps)" "${range[@]}" --a async_free=N --b async_free=N
# the arms' options checked before any query: a query of $dead would exit 7
bad 9 "scope batch-2 is in --a-scopes and --b-scopes" "a scope in both scope lists" \
	--url "http://127.0.0.1:$dead" --metric "$rule" "${range[@]}" \
	--a-scopes batch-1,batch-2 --b-scopes batch-2
bad 64 "--a-scopes goes with --b-scopes" "--a-scopes without --b-scopes" \
	--url "http://127.0.0.1:$dead" --metric "$rule" "${range[@]}" --a-scopes batch-1
bad 64 "name the arms one way" "--a-scopes with --b (settings)" \
	--url "http://127.0.0.1:$dead" --metric "$rule" "${range[@]}" \
	--a-scopes batch-1 --b async_free=Y
# pr's hosts run both arms, ur's one each: a host in both arms, or the split is mixed
bad 9 "hosts run both arms" "hosts running both arms beside hosts running one" \
	--url "$url" --metric "$(ratio 'pr|ur')" "${range[@]}" --a async_free=N --b async_free=Y
bad 10 "shorter than the server's scrape interval, 1m" "a range shorter than the scrape interval" \
	--url "$url" --metric "$(ratio pr)" --to "$end" --range 30s --a async_free=N --b async_free=Y
bad 64 "refused the query" "an expression the server refuses" \
	--url "$url" --metric 'rate(' "${range[@]}" --a async_free=N --b async_free=Y

zsw fleet --json --url "http://127.0.0.1:$dead" --metric "$rule" "${range[@]}" \
	--a async_free=N --b async_free=Y
[[ $rc == 7 ]] && "$py" -c 'import json, sys
j = json.load(sys.stdin)
sys.exit(not (list(j) == ["error"] and "cannot reach" in j["error"]))' <"$tmp/out"
result "--json: the error as {\"error\": ...} on stdout, exit 7" $?

ktap_finished
