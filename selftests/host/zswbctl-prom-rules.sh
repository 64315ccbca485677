#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl prometheus's policy scopes and the Prometheus rules it ships,
# on a fake module tree with scopes (ab_lib.sh's fake_ab): the scope
# families with a scope label and zswap_wb_scope_info, checked by
# promtool check metrics; a debugfs without scopes/ refused; promtool
# check rules and promtool test rules on the shipped recording and
# alerting rules, and on broken copies of them, which must fail; make
# install and the package ship them. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
# shellcheck source=../zswbctl/ab_lib.sh
. "$top/selftests/zswbctl/ab_lib.sh"
plan 13

# prometheus: the scope families with a scope label, the info metric.
fake_ab
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
	grep -qxF "$l" "$tmp/out" || { diag "missing: $l"; ok=1; }
done
[ "$(grep -c '^# TYPE zswap_wb_scope_written_back_total counter$' "$tmp/out")" = 1 ] || ok=1
[[ $rc == 0 && $lint == 0 && $ok == 0 ]] || sed 's/^/# promtool: /' "$tmp/lint"
[[ $rc == 0 && $lint == 0 && $ok == 0 ]]
result "prometheus: each scope's counters and histogram with a scope label, settings as an info metric" $?
# The module always has scopes/global/: a debugfs without scopes/ is not
# its, and prometheus says so, exports no series of it and changes nothing.
# tree_sum: one checksum of every path, size and content of the fake tree.
tree_sum() {
	find "$tmp/sys" "$d" "$tmp/config" "$tmp/cgroup" -printf '%p %s\n' -type f -exec cat {} + |
		md5sum
}
rm -rf "$d/scopes"
before=$(tree_sum)
zsw prometheus
[[ $rc == 1 && $err == "zswbctl: cannot list $d/scopes: No such file or directory" ]] &&
	only_down "$tmp/out" && [ "$(tree_sum)" == "$before" ] && [ ! -e "$marker" ]
result "prometheus: a debugfs without scopes/ is refused (exit 1), zswap_wb_up 0 alone, nothing changed" $?

# The recording rules, and a broken copy that the same tests must catch.
rules=$tool/prometheus
# rules_test DIR TESTS: promtool test rules TESTS in DIR, where TESTS
# names its rule files (run: $rc, $out, $err).
rules_test() {
	local dir=$1 tests=$2

	run env -C "$dir" promtool test rules "$tests"
}
run promtool check rules "$rules/zswap_wb.rules.yml"
result "promtool check rules: the shipped recording rules" $rc
rules_test "$rules" zswap_wb.rules.test.yml
result "promtool test rules: freed per written back, rejects, latency quantiles, rotated, per scope and setting" $rc
mkdir -p "$tmp/broken"
cp "$rules/zswap_wb.rules.test.yml" "$tmp/broken/"
# freed_sync only; p50 of the bucket sum without le; rotated upside down.
sed -e 's/(rate(zswap_wb_scope_freed_sync_total\[5m\]) + rate(zswap_wb_scope_freed_async_total\[5m\]))/rate(zswap_wb_scope_freed_sync_total[5m])/' \
	"$rules/zswap_wb.rules.yml" >"$tmp/broken/zswap_wb.rules.yml"
rules_test "$tmp/broken" zswap_wb.rules.test.yml
[ "$rc" != 0 ] && grep -q "freed_per_written_back" <<<"$out"$'\n'"$err"
result "promtool test rules fails on rules that count only the synchronous frees" $?
sed -e 's/rate(node_vmstat_pgrotated\[5m\]) \/ rate(node_vmstat_zswpwb\[5m\])/rate(node_vmstat_zswpwb[5m]) \/ rate(node_vmstat_pgrotated[5m])/' \
	"$rules/zswap_wb.rules.yml" >"$tmp/broken/zswap_wb.rules.yml"
rules_test "$tmp/broken" zswap_wb.rules.test.yml
[ "$rc" != 0 ] && grep -q "pgrotated_per_zswpwb" <<<"$out"$'\n'"$err"
result "promtool test rules fails on a rotated ratio upside down" $?

# The alerting rules: each fires, and not on an idle host, a policy off,
# a spell shorter than its for: or a module back; broken copies must fail.
run promtool check rules "$rules/zswap_wb.alerts.yml"
result "promtool check rules: the shipped alerting rules" $rc
rules_test "$rules" zswap_wb.alerts.test.yml
result "promtool test rules: each alert fires, and not when idle, off, brief or back" $rc
cp "$rules/zswap_wb.alerts.test.yml" "$tmp/broken/"
# alerts_broken SED ALERT: the alerts edited by SED must fail their tests,
# naming ALERT, the alert that went wrong.
alerts_broken() {
	local edit=$1 alert=$2

	sed -e "$edit" "$rules/zswap_wb.alerts.yml" >"$tmp/broken/zswap_wb.alerts.yml"
	rules_test "$tmp/broken" zswap_wb.alerts.test.yml
	[ "$rc" != 0 ] && grep -q "alertname: $alert" <<<"$out"$'\n'"$err"
}
alerts_broken 's/ - rate(zswap_wb_scope_fallbacks_total\[5m\])//' ZswapWbFreesBehind
result "promtool test rules fails on frees behind that counts folios no policy took" $?
alerts_broken 's/zswap_wb_scope_info{sync_free="Y"} or //' ZswapWbFreesBehind
result "promtool test rules fails on frees behind that ignores sync_free" $?
alerts_broken '/increase(zswap_wb_scope_raced_total/d' ZswapWbFoliosStuck
result "promtool test rules fails on stuck folios that a swapin claimed" $?
alerts_broken '/^ *for: /d' ZswapWbDown
result "promtool test rules fails on alerts without their for:" $?
grep -q 'zswap_wb.alerts.yml' "$tool/Makefile" && grep -q 'zswap_wb.alerts.test.yml' "$tool/Makefile" &&
	grep -qx 'usr/share/zswbctl/prometheus' "$top/debian/zswap-wb-prometheus-rules.install"
result "make install ships the alerts and their tests; the zswap-wb-prometheus-rules package takes them" $?

ktap_finished
