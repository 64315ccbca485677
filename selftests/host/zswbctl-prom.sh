#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prom.c: prometheus prints the module's parameters and statistics in
# the Prometheus text format, each family as the schema types it: the
# booleans and integers as gauges, policies as info labels, counters as
# _total, per-node counters as one family with node labels, latencies in
# seconds, the latency histogram cumulative, the global scope's families
# with a scope label; zswap_wb_up and the build info first; HELP in the
# documentation's words; a statistic the schema does not describe, or
# whose value is not a number, left out. Checked with a text
# format parser (promcheck.py, itself checked first) and promtool.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 27
module_schema

# The validator itself must refuse malformed text.
good=$'# HELP zswap_wb_a_total A.\n# TYPE zswap_wb_a_total counter\nzswap_wb_a_total 1\n'
promcheck <<<"${good%$'\n'}"
result "promcheck accepts a well-formed counter" $?
broken=(
	"a value that is not a number" "${good/zswap_wb_a_total 1/zswap_wb_a_total one}"
	"an unquoted label" "${good/zswap_wb_a_total 1/zswap_wb_a_total\{node=0\} 1}"
	"a TYPE without HELP" "${good#*$'\n'}"
	"a type other than counter, gauge, histogram" "${good/counter/summary}"
	"a sample outside its family" "${good/zswap_wb_a_total 1/zswap_wb_b_total 1}"
	"buckets that are not cumulative"
	$'# HELP zswap_wb_h H.\n# TYPE zswap_wb_h histogram\nzswap_wb_h_bucket{le="1"} 5\nzswap_wb_h_bucket{le="2"} 3\nzswap_wb_h_bucket{le="+Inf"} 5\nzswap_wb_h_count 5\n'
	"a histogram without +Inf"
	$'# HELP zswap_wb_h H.\n# TYPE zswap_wb_h histogram\nzswap_wb_h_bucket{le="1"} 5\nzswap_wb_h_count 5\n'
)
for ((i = 0; i < ${#broken[@]}; i += 2)); do
	! promcheck <<<"${broken[i + 1]%$'\n'}"
	result "promcheck refuses ${broken[i]}" $?
	grep -q . "$tmp/prom.err" || diag "promcheck gave no reason for ${broken[i]}"
done

# The module's own tree.
fake_mod
zsw prometheus
printf '%s\n' "$out" >"$tmp/prom.stdout"
promcheck <"$tmp/prom.stdout"
pc=$?
[ "$rc" = 0 ] && [ -z "$err" ] && [ "$pc" = 0 ]
result "prometheus: the text format parser accepts it" $?
ok=0
has "zswap_wb_param_sync_free 0.0" && has "zswap_wb_param_async_free 1.0" &&
	has "zswap_wb_param_shrink_batch 32.0" &&
	has 'zswap_wb_param_info{name="shrink_policy",value="per_node"} 1.0' &&
	has 'zswap_wb_param_info{name="readahead_policy",value="stock"} 1.0' || ok=1
result "prometheus: parameters as 0/1 and numeric gauges, policies as info labels" $ok
ok=0
v=101
for k in $stat_names; do
	has "zswap_wb_${k}_total $v.0" || ok=1
	grep -q "^# TYPE zswap_wb_${k}_total counter$" "$tmp/prom.stdout" || ok=1
	# scopes/global/, the same as the host's without a scope
	has "zswap_wb_scope_${k}_total{scope=\"global\"} $v.0" || ok=1
	grep -q "^# TYPE zswap_wb_scope_${k}_total counter$" "$tmp/prom.stdout" || ok=1
	v=$((v + 1))
done
result "prometheus: every module counter as a _total counter with its value, the global scope's too" $ok
ok=0
has 'zswap_wb_shrink_scanned_total{node="0"} 300.0' &&
	has 'zswap_wb_shrink_scanned_total{node="1"} 200.0' &&
	has 'zswap_wb_shrink_written_total{node="1"} 70.0' &&
	has 'zswap_wb_scope_shrink_written_total{node="1",scope="global"} 70.0' || ok=1
[ "$(grep -c '^# TYPE zswap_wb_shrink_scanned_total counter$' "$tmp/prom.stdout")" = 1 ] || ok=1
result "prometheus: per-node counters as one family with node labels" $ok
ok=0
for g in queue_depth queue_depth_max inflight; do
	grep -q "^# TYPE zswap_wb_$g gauge$" "$tmp/prom.stdout" || ok=1
done
has "zswap_wb_queue_depth 3.0" && has "zswap_wb_inflight 4.0" &&
	has "zswap_wb_free_latency_p50_seconds 1.6e-05" &&
	has "zswap_wb_free_latency_max_seconds 16.777216" || ok=1
! grep -q "queue_depth_total\|inflight_total\|latency_p50_seconds_total" "$tmp/prom.stdout" || ok=1
result "prometheus: gauges and percentiles (in seconds) as gauges" $ok
ok=0
has 'zswap_wb_free_latency_seconds_bucket{le="0.000002"} 10.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="0.000032"} 40.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="8.388608"} 40.0' &&
	has 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 42.0' &&
	has 'zswap_wb_free_latency_seconds_count 42.0' &&
	has 'zswap_wb_scope_free_latency_seconds_bucket{le="+Inf",scope="global"} 42.0' || ok=1
[ "$(grep -c '^zswap_wb_free_latency_seconds_bucket' "$tmp/prom.dump")" = 24 ] || ok=1
[ "$(grep -c '^zswap_wb_scope_free_latency_seconds_bucket' "$tmp/prom.dump")" = 24 ] || ok=1
! grep -q 'le="16.777216"\|free_latency_seconds_sum' "$tmp/prom.stdout" || ok=1
result "prometheus: histogram cumulative in seconds, open last bucket only in +Inf, no _sum" $ok
# HELP lines are the documentation's words (markup and line breaks aside).
docs=$(cat "$top"/Documentation/*.rst | tr -d '`' | tr -s ' \n' '  ')
ok=0
for k in $stat_names queue_depth queue_depth_max inflight; do
	h=$(sed -n "s/^# HELP zswap_wb_${k}\(_total\)\? //p" "$tmp/prom.stdout")
	if [ -z "$h" ] || [[ $docs != *"${h%.}"* ]]; then
		diag "HELP of $k: '$h'"
		ok=1
	fi
done
for k in sync_free async_free shrink_batch; do
	h=$(sed -n "s/^# HELP zswap_wb_param_$k //p" "$tmp/prom.stdout")
	if [ -z "$h" ] || [[ $docs != *"${h%.}"* ]]; then
		diag "HELP of $k: '$h'"
		ok=1
	fi
done
result "prometheus: HELP of each counter, gauge and parameter in the docs' words" $ok

# zswap_wb_up and the build info; a module gone leaves no series of it.
kernel=$(uname -r)
fake_mod
fake_hist "2 1" "4 2"
echo 9.8.7 >"$tmp/sys/version"
zsw prometheus
printf '%s\n' "$out" | promcheck && [ "$rc" = 0 ] && has "zswap_wb_up 1.0" &&
	has "zswap_wb_build_info{kernel=\"$kernel\",version=\"9.8.7\",zswbctl=\"$version\"} 1.0" &&
	[ "$(grep -v '^#' <<<"$out" | head -2 | cut -d'{' -f1 | cut -d' ' -f1 | tr '\n' ' ')" = \
		"zswap_wb_up zswap_wb_build_info " ] &&
	grep -qx '# TYPE zswap_wb_up gauge' <<<"$out" && grep -qx '# TYPE zswap_wb_build_info gauge' <<<"$out"
result "prometheus: zswap_wb_up 1 and zswap_wb_build_info (module, zswbctl, kernel) first" $?
rm "$tmp/sys/version"
zsw prometheus
printf '%s\n' "$out" | promcheck && has "zswap_wb_build_info{kernel=\"$kernel\",zswbctl=\"$version\"} 1.0"
result "prometheus: a module without a version file, build_info without the label" $?

# The module always has parameters/: without it, nothing of the module.
fake
fake_hist "2 1" "4 2"
rm -r "$p"
zsw prometheus
printf '%s\n' "$out" >"$tmp/noparams.prom"
[[ $rc == 1 && $err == "zswbctl: cannot list $tmp/sys/parameters: No such file or directory" ]] &&
	only_down "$tmp/noparams.prom"
result "prometheus: without parameters/, zswap_wb_up 0 alone, exit 1, said" $?

# A statistic the schema does not describe, one whose value is not a
# number: left out, the host's and the global scope's; HELP and types
# are the schema's alone.
fake
printf 'stat\tstate\tgauge\t-\tThe state.\n' >>"$d/schema"
printf '%s\n' "extra 3" "extra_node0 4" "state idle" >>"$d/stats"
fake_global
fake_hist "2 1" "4 2"
zsw prometheus
[ "$rc" = 0 ] && [ -z "$err" ] &&
	promcheck <<<"$out" && has 'zswap_wb_param_info{name="compressor",value="lz4"} 1.0' &&
	has "zswap_wb_param_enabled 1.0" && has "zswap_wb_stored_pages_total 100.0" &&
	has 'zswap_wb_scope_stored_pages_total{scope="global"} 100.0' &&
	grep -q '^# HELP zswap_wb_stored_pages_total Pages stored.$' <<<"$out" &&
	grep -q '^# HELP zswap_wb_scope_stored_pages_total Pages stored.$' <<<"$out" &&
	! grep -q 'extra\|state\|zswap_wb statistic' <<<"$out" &&
	[ "$(grep -c '^# TYPE .* counter$' <<<"$out")" = 4 ]
result "prometheus: a statistic the schema does not describe left out, and a value not a number" $?

# Every line is # HELP, # TYPE or a sample, whatever the module holds.

# prom_lines: whether every line of $out is one of the three; diag the others.
prom_lines() {
	local name='zswap_wb_[a-zA-Z0-9_]+' label='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"' l

	grep -vxE "# HELP $name .+|# TYPE $name (counter|gauge|histogram)|$name(\\{$label(,$label)*\\})? -?[0-9]+(\\.[0-9]+)?" \
		<<<"$out" >"$tmp/prom.bad"
	while IFS= read -r l; do diag "not a line of the text format: $l"; done <"$tmp/prom.bad"
	[ ! -s "$tmp/prom.bad" ]
}
ok=0
for tree in fake fake_mod; do
	$tree
	[ -e "$d/free_latency_us" ] || fake_hist "2 1" "4 2"
	zsw prometheus
	if ! { [ "$rc" = 0 ] && [ -n "$out" ] && prom_lines; }; then
		diag "$tree: exit $rc"
		ok=1
	fi
done
result "prometheus: every line of the output is # HELP, # TYPE or a sample" $ok
fake
printf 'a"b\\c\n' >"$p/weird"
printf 'l1\nl2\n' >"$p/multi"
echo -3 >"$p/negp"
echo x >"$p/bad-name"
{
	fake_param weird choice 'a"b\c' 'a"b\c' -
	fake_param multi choice l1 l1 -
	fake_param negp choice -3 -3 -
	fake_param bad-name choice x x -
	printf 'stat\t%s\tcounter\t-\t%s.\n' k K bad-key Bad. 'v_node<N>' V w_node W x_nodeA X
} >>"$d/schema"
printf '%s\n' "k 1" "bad-key 2" "v_node1 3" "v_node2 4" "w_node 5" "x_nodeA 6" >"$d/stats"
fake_global
fake_hist "2 1" "4 2"
zsw prometheus
ok=0
[[ $rc == 0 && $err == "zswbctl: parameter 'bad-name' left out: not a metric name" ]] || ok=1
prom_lines || ok=1
printf '%s\n' "$out" | promcheck || { diag "$(<"$tmp/prom.err")"; ok=1; }
for l in 'zswap_wb_param_info{name="weird",value="a\"b\\c"} 1' \
	'zswap_wb_param_info{name="multi",value="l1\nl2"} 1' \
	'zswap_wb_param_info{name="negp",value="-3"} 1' \
	'zswap_wb_k_total 1' 'zswap_wb_v_total{node="1"} 3' 'zswap_wb_v_total{node="2"} 4' \
	'zswap_wb_w_node_total 5' 'zswap_wb_x_nodeA_total 6' \
	'zswap_wb_scope_info{scope="global",cgroup="",batch_free="7",compressor="lz4",enabled="Y",max_pool_percent="20",multi="l1\nl2",negp="-3",pool_free="N",wb_free="Y",weird="a\"b\\c",settings="batch_free=7 compressor=lz4 enabled=Y max_pool_percent=20 multi=l1\nl2 negp=-3 pool_free=N wb_free=Y weird=a\"b\\c"} 1' \
	'zswap_wb_scope_v_total{scope="global",node="2"} 4'; do
	grep -qxF "$l" <<<"$out" || { diag "missing: $l"; ok=1; }
done
! grep -q 'bad' <<<"$out" || ok=1
result "prometheus: label values escaped (the global scope's settings too), odd names left out, node suffixes only with a number" $ok
fake
mapfile -t lines < <(for i in $(seq 64); do echo "$i 1"; done)
fake_hist "${lines[@]}"
zsw prometheus
[[ $rc == 0 && $(grep -c '^zswap_wb_free_latency_seconds_bucket' <<<"$out") == 64 &&
   $(grep -c '^zswap_wb_scope_free_latency_seconds_bucket' <<<"$out") == 64 ]] &&
	grep -qxF 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 64' <<<"$out"
result "prometheus: a histogram of 64 buckets" $?
echo "65 1" >>"$d/free_latency_us"
t "prometheus: a histogram of 65 buckets is refused" 1 "$down" \
	"zswbctl: $d/free_latency_us: unexpected line '65 1'" prometheus
printf '%s\n' "4 1" "2 1" >"$d/free_latency_us"
t "prometheus: histogram bounds that do not rise are refused" 1 "$down" \
	"zswbctl: $d/free_latency_us: unexpected line '2 1'" prometheus
: >"$d/free_latency_us"
t "prometheus: an empty histogram is refused" 1 "$down" \
	"zswbctl: $d/free_latency_us is empty" prometheus
fake_hist "8 3"
zsw prometheus
grep -qxF 'zswap_wb_free_latency_seconds_bucket{le="+Inf"} 3' <<<"$out" &&
	[ "$(grep -c '^zswap_wb_free_latency_seconds_bucket' <<<"$out")" = 1 ] &&
	grep -qxF 'zswap_wb_scope_free_latency_seconds_bucket{scope="global",le="+Inf"} 3' <<<"$out" &&
	[ "$(grep -c '^zswap_wb_scope_free_latency_seconds_bucket' <<<"$out")" = 1 ]
result "prometheus: a one-line histogram is +Inf alone" $?
if command -v promtool >/dev/null; then
	fake_mod
	zsw prometheus
	printf '%s\n' "$out" | promtool check metrics >"$tmp/promtool.log" 2>&1
	rc=$? err=$(<"$tmp/promtool.log")
	result "prometheus: promtool check metrics" $rc
else
	skip "prometheus: promtool check metrics" "no promtool (Debian's package prometheus has it)"
fi

ktap_finished
