#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end fleet A/B (make check-prometheus): Debian's Prometheus on this
# machine scrapes Debian test hosts, QEMU guests on the hooked kernel with
# Debian's prometheus-node-exporter, zswap_wb and the zswbctl package (its
# timer), each through a port forward of QEMU's user network on
# 127.0.0.1; it loads the shipped recording rules and alerts, and
# zswbctl fleet gives the verdicts from what it scraped.
#
#   selftests/prometheus_test.sh                  on the host: prints KTAP
#   prometheus_test.sh --guest HOST ROLE BOOT     the guest side
#
# The comparison. Every host runs both arms, as policy scopes over four
# cgroups, each with the same swap workload (thrash, random writes in a
# memcg below its size with a small memory.zswap.max, so that zswap writes
# back all the time, to a virtio-blk swap disk):
#   a       a scope with async_free=N (arm A)
#   b1, b2  scopes with async_free=Y (arm B, twice: the A/A split)
#   g       no scope: the host's global settings, async_free=N on odd
#           hosts, Y on even ones (a host split, for what vmstat shows)
# The verdicts (zswbctl fleet, over the whole test):
#   - A/B paired by host: freed per written back, --a async_free=N --b
#     async_free=Y: a difference;
#   - A/A paired by host: scopes b1 against b2 (--a-scopes/--b-scopes),
#     freed per written back and written back per second: none;
#   - hosts split (odd against even, unpaired): pgrotated per zswpwb,
#     the host's vmstat: a difference (8 hosts or more).
# And the plumbing: the rules' series exist per host, scope and settings;
# each boot's scope counters and vmstat, as the guest read them after its
# workload stopped, are what Prometheus holds; host 2 reboots (a second
# boot of the same disk) and loses nothing beyond the gap; Prometheus is
# restarted while the third pair of hosts runs and loses nothing beyond
# its gap; the last host unloads the module, and its series end (no
# sample after the next scrape) while the host is still scraped.
#
# Environment: ZSWB_PROM_HOSTS (default 8, even), ZSWB_PROM_WORK (seconds
# of workload per boot, default 180), ZSWB_PROM_INTERVAL (scrape, rule
# evaluation and export interval, default 10 s), ZSWB_VM_MEM (default 1536),
# ZSWB_PROM_KEEP=1 keeps the consoles and the TSDB.
set -u

SCOPES="a b1 b2"
CGROUPS="a b1 b2 g"
COUNTERS="written_back freed_sync freed_async"
VMSTAT="zswpwb pgrotated"

# ---------------------------------------------------------------- guest --

# res ID ok|fail [WHY]: one result, read back by the host.
res() {
	echo "prom-result $1 $2${3:+ $3}"
	[ "$2" = ok ] || failed=1
}

# scrape_self: node_exporter's metrics, as the host's Prometheus reads them.
scrape_self() {
	exec 3<>/dev/tcp/127.0.0.1/9100 || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
	timeout 15 cat <&3
	exec 3<&-
}

# guest_setup HOST BOOT: the package, the administrator's drop-ins, the
# network, the module and the workload's cgroups and scopes.
guest_setup() {
	local host=$1 boot=$2 d=/run/zswb-run ok iface cg af
	export DEBIAN_FRONTEND=noninteractive

	if [ "$boot" = 1 ]; then
		ok=1
		dpkg -i "$d"/zswbctl_*.deb > /tmp/dpkg.log 2>&1 || { sed 's/^/# /' /tmp/dpkg.log | tail -20; ok=0; }
		# The package enables and starts the timer; the test does not.
		[ "$(systemctl is-enabled zswbctl-prometheus.timer 2>&1)" = enabled ] ||
			{ echo "# zswbctl-prometheus.timer: $(systemctl is-enabled zswbctl-prometheus.timer 2>&1)"; ok=0; }
		[ "$(systemctl is-active zswbctl-prometheus.timer 2>&1)" = active ] ||
			{ echo "# zswbctl-prometheus.timer is $(systemctl is-active zswbctl-prometheus.timer 2>&1)"; ok=0; }
		if [ $ok = 1 ]; then res "install-$host" ok; else res "install-$host" fail; fi
		# What the admin guide tells the administrator to add: the
		# vmstat fields (the example drop-in) and an export interval.
		mkdir -p /etc/systemd/system/prometheus-node-exporter.service.d \
			 /etc/systemd/system/zswbctl-prometheus.timer.d
		cp /usr/share/doc/zswbctl/examples/prometheus-node-exporter-zswap_wb.conf \
			/etc/systemd/system/prometheus-node-exporter.service.d/zswap_wb.conf
		printf '[Timer]\nOnActiveSec=\nOnActiveSec=0\nOnUnitActiveSec=%ss\n' "$INTERVAL" \
			> /etc/systemd/system/zswbctl-prometheus.timer.d/interval.conf
		systemctl daemon-reload
		systemctl restart prometheus-node-exporter zswbctl-prometheus.timer
	fi

	# QEMU's user network: the guest is 10.0.2.15.
	iface=$(ls /sys/class/net | grep -vx lo | head -1)
	ip addr add 10.0.2.15/24 dev "$iface" 2>/dev/null
	ip link set "$iface" up

	# No export while the settings are made: a scope starts with the
	# global settings, and a series of it with those would put it in
	# both arms (zswbctl fleet refuses a scope that switched arms).
	systemctl stop zswbctl-prometheus.timer
	# The host's settings: async_free by host, odd hosts N, even Y.
	af=Y
	[ $(( ${host#host} % 2 )) = 0 ] || af=N
	modprobe zswap_wb async_free=$af || { res "module-$host-$boot" fail "modprobe zswap_wb"; return 1; }
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	echo Y > /sys/module/zswap/parameters/enabled
	echo 50 > /sys/module/zswap/parameters/max_pool_percent
	mkswap -q /dev/vda && swapon /dev/vda || { res "module-$host-$boot" fail "swapon /dev/vda"; return 1; }

	echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/e2e
	echo +memory > /sys/fs/cgroup/e2e/cgroup.subtree_control
	for cg in $CGROUPS; do
		mkdir -p /sys/fs/cgroup/e2e/$cg
		echo 48M > /sys/fs/cgroup/e2e/$cg/memory.max
		echo 8M > /sys/fs/cgroup/e2e/$cg/memory.zswap.max
	done
	for cg in $SCOPES; do
		mkdir /sys/kernel/config/zswap_wb/$cg &&
		echo /e2e/$cg > /sys/kernel/config/zswap_wb/$cg/cgroup || {
			res "module-$host-$boot" fail "scope $cg"; return 1; }
	done
	echo N > /sys/kernel/config/zswap_wb/a/async_free
	echo Y > /sys/kernel/config/zswap_wb/b1/async_free
	echo Y > /sys/kernel/config/zswap_wb/b2/async_free
	systemctl start zswbctl-prometheus.timer
	res "module-$host-$boot" ok
}

# guest_counters HOST BOOT: every counter the host compares, as this host
# reads them itself (debugfs, /proc/vmstat), once nothing moves them; a
# value it cannot read is left empty, which the host counts a mismatch.
guest_counters() {
	local host=$1 boot=$2 s c
	for s in $SCOPES global; do
		for c in $COUNTERS; do
			echo "prom-counter $host $boot $s $c $(kv $ZSWB_DEBUGFS/scopes/$s/stats $c "")"
		done
	done
	for c in $VMSTAT; do
		echo "prom-counter $host $boot vmstat $c $(kv /proc/vmstat $c "")"
	done
}

# guest_live HOST BOOT: the scopes' written_back now, with the time, for
# the host to find between Prometheus' samples.
guest_live() {
	local s
	for s in $SCOPES global; do
		echo "prom-live $1 $2 $s $(date +%s) $(kv $ZSWB_DEBUGFS/scopes/$s/stats written_back "")"
	done
}

guest() {
	local host=$1 role=$2 boot=$3 cg pids="" p rc=0 wb a b booted

	failed=0
	# After a reboot the package's timer runs by itself (the module is
	# not loaded yet: it writes zswap_wb_up 0).
	if [ "$boot" != 1 ]; then
		booted=$(( $(date +%s) - $(cut -d. -f1 /proc/uptime) ))
		if poll 60 eval '[ "$(stat -c %Y /var/lib/prometheus/node-exporter/zswap_wb.prom)" -ge '"$booted"' ]'; then
			res "reboot-export-$host" ok
		else
			echo "# zswap_wb.prom not written since the boot: $(ls -l --time-style=+%s /var/lib/prometheus/node-exporter/zswap_wb.prom)"
			systemctl list-timers --all zswbctl-prometheus.timer | sed 's/^/# /'
			res "reboot-export-$host" fail
		fi
	fi
	guest_setup "$host" "$boot" || return 1
	# node_exporter serves the module's series before the workload.
	if poll 60 eval 'scrape_self | grep -q "^zswap_wb_up 1"'; then
		res "export-$host-$boot" ok
	else
		scrape_self | grep zswap_wb | head -5 | sed 's/^/# /'
		res "export-$host-$boot" fail
	fi

	echo "prom-mark $host $boot work $(date +%s)"
	# A batch job's priority: under emulation, node_exporter at nice 0
	# then answers a scrape within the interval.
	for cg in $CGROUPS; do
		sh -c "echo \$\$ > /sys/fs/cgroup/e2e/$cg/cgroup.procs &&
		       exec nice -n 19 /run/zswb-run/thrash --size 96 --passes 1 --random $WORK" \
			> /tmp/thrash-$cg.log 2>&1 &
		pids="$pids $!"
	done
	# The counters while they move: a third and two thirds into the work.
	sleep $((WORK / 3))
	guest_live "$host" "$boot"
	sleep $((WORK / 3))
	guest_live "$host" "$boot"
	for p in $pids; do
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || cat /tmp/thrash-*.log | sed 's/^/# thrash: /'
	echo "prom-mark $host $boot idle $(date +%s)"
	# The async frees that were queued finish; then nothing moves.
	sleep 5
	wb=$(kv $ZSWB_DEBUGFS/scopes/b1/stats written_back)
	a=$(kv $ZSWB_DEBUGFS/scopes/a/stats written_back)
	b=$(kv $ZSWB_DEBUGFS/scopes/b1/stats freed_async)
	echo "# $host boot $boot: a wrote back $a, b1 wrote back $wb and freed $b at once"
	if [ $rc = 0 ] && [ "${a:-0}" -gt 100 ] && [ "${wb:-0}" -gt 100 ] && [ "${b:-0}" -gt 0 ]; then
		res "work-$host-$boot" ok
	else
		res "work-$host-$boot" fail
	fi
	guest_counters "$host" "$boot"
	# Two exports and two scrapes of the still values.
	sleep $((4 * INTERVAL + 5))
	if [ "$role" = unload ]; then
		# The scopes go first (the module is not unloaded under them):
		# no export in between, so that every series ends at the unload.
		systemctl stop zswbctl-prometheus.timer
		for cg in $SCOPES; do
			rmdir /sys/kernel/config/zswap_wb/$cg
		done
		if zswbctl unload > /tmp/unload.log 2>&1; then
			res "unload-$host" ok
		else
			sed 's/^/# /' /tmp/unload.log
			res "unload-$host" fail
		fi
		systemctl start zswbctl-prometheus.timer
		sleep $((4 * INTERVAL + 5))
		if scrape_self | grep -q '^zswap_wb_up 0'; then
			res "exported-down-$host" ok
		else
			res "exported-down-$host" fail
		fi
	fi
	echo "prom-mark $host $boot end $(date +%s)"
	return $failed
}

if [ "${1:-}" = --guest ]; then
	. /run/zswb-run/env
	# kv, vmstat and poll: the helpers of every script in a test VM.
	. /run/zswb-run/guest.sh
	guest "${2:?host}" "${3:?role}" "${4:?boot}"
	exit $?
fi

# ----------------------------------------------------------------- host --

. "$(dirname "$0")/../tools/kernel/common.sh"
zswb_need prometheus python3 e2fsprogs qemu-utils gcc libc6-dev make pkg-config \
	libcurl4-openssl-dev libjansson-dev
zswb_dirs || exit 1
HOSTS=${ZSWB_PROM_HOSTS:-8}
WORK=${ZSWB_PROM_WORK:-180}
INTERVAL=${ZSWB_PROM_INTERVAL:-10}
MEM=${ZSWB_VM_MEM:-1536}
case "$HOSTS" in [2468]|[1-9][02468]) ;; *) zswb_die "ZSWB_PROM_HOSTS takes an even number of hosts from 2, got '$HOSTS'" ;; esac
case "$WORK" in ''|*[!0-9]*) zswb_die "ZSWB_PROM_WORK takes seconds, got '$WORK'" ;; esac
case "$INTERVAL" in [1-9]|[1-5][0-9]) ;; *) zswb_die "ZSWB_PROM_INTERVAL takes 1 to 59 seconds, got '$INTERVAL'" ;; esac
py=/usr/bin/python3
REBOOT=host2
RESTART_ROUND=3
[ "$HOSTS" -ge 6 ] || RESTART_ROUND=1
UNLOAD=host$HOSTS

TESTS="prometheus install export work boots rules-series counters reboot restart unload fleet-ab fleet-aa fleet-hosts"
declare -A DESC=(
	[prometheus]="Debian's prometheus loads the shipped rules and alerts and scrapes $HOSTS hosts"
	[install]="dpkg -i zswbctl enables and starts the exporter's timer on every host"
	[export]="node_exporter serves zswap_wb_up 1 from the timer's file on every boot"
	[work]="every scope wrote back, and scope b1 (async_free=Y) freed at once"
	[boots]="every guest boot ended with status 0 and no kernel splat"
	[rules-series]="the recording rules' series exist per host, scope and settings"
	[counters]="each boot's scope counters and vmstat, as the guest read them, are what Prometheus holds"
	[reboot]="$REBOOT reboots: the timer exports again, rate() sees the reset, nothing is lost beyond the gap"
	[restart]="Prometheus restarted under load: nothing before its gap is lost, scraping resumes"
	[unload]="$UNLOAD unloads the module: its series end while it is scraped, zswap_wb_up 0"
	[fleet-ab]="zswbctl fleet, paired by host: async_free=Y frees more per written back"
	[fleet-aa]="zswbctl fleet, paired by host, scopes b1 against b2 (A/A): no difference detected"
	[fleet-hosts]="zswbctl fleet, hosts split: async_free=Y hosts rotate fewer pages per zswpwb"
)
declare -A RES WHY

. "$ZSWB_TOP/selftests/prometheus.lib"
t=$(mktemp -d "${TMPDIR:-/tmp}/zswb-prom.XXXXXX")
cleanup() {
	prom_stop
	if [ -n "${ZSWB_PROM_KEEP:-}" ]; then
		echo "# kept: $t (consoles, timeline, Prometheus' TSDB)"
	else
		rm -rf "$t"
	fi
}
trap cleanup EXIT
begin=$(date +%s)

. "$ZSWB_TOP/selftests/ktap.sh"
ktap_print_header
ktap_set_plan "$(echo $TESTS | wc -w)"

# fail ID WHY: a test failed before its turn, with the reason.
fail() { RES[$1]=fail; echo "# $1: $2"; }

# What the guests run: the zswbctl package (make deb), the image with
# node_exporter and the test kernel's modules, thrash.
ctldeb=$(ls -1t "$ZSWB_CACHE"/deb/zswbctl_*_amd64.deb 2>/dev/null | head -1)
[ -n "$ctldeb" ] || zswb_die "no zswbctl package in $ZSWB_CACHE/deb: run 'make deb'"
ctl_libs=$(dpkg-deb -f "$ctldeb" Depends | tr ',' '\n' |
	sed 's/|.*//; s/(.*//' | awk '$1 != "libc6" && $1 != "" { print $1 }' | tr '\n' ' ')
img=$(ZSWB_ROOTFS_NAME=rootfs-prom ZSWB_ROOTFS_EXTRA="prometheus-node-exporter iproute2 $ctl_libs" \
	bash "$ZSWB_TOP/tools/vm/mkrootfs.sh" --modules 2> "$t/mkrootfs.log") ||
	{ sed 's/^/# /' "$t/mkrootfs.log"; zswb_die "the guest image failed"; }
# The verdicts come from the package's zswbctl, built with libcurl.
dpkg-deb -x "$ctldeb" "$t/ctl" || zswb_die "cannot unpack $ctldeb"
zswbctl=$t/ctl/usr/sbin/zswbctl
mkdir -p "$t/payload"
cp "$0" "$t/payload/prometheus_test.sh"
cp "$ZSWB_TOP/tools/vm/guest.sh" "$t/payload/"
cp "$ctldeb" "$t/payload/"
gcc -O2 -Wall -static -o "$t/payload/thrash" "$ZSWB_TOP/selftests/zswap_wb/thrash.c" ||
	zswb_die "building thrash failed"
printf 'WORK=%s\nINTERVAL=%s\n' "$WORK" "$INTERVAL" > "$t/payload/env"
echo "# image $(basename "$img"), $(basename "$ctldeb"), $HOSTS hosts, ${WORK}s of work per boot, interval ${INTERVAL}s"

# The ports: HOSTS + 1 that nothing listens on, below the ephemeral
# range, where Prometheus' own connections to the first guests cannot take
# a later guest's.
read -r -a ports < <("$py" - "$((HOSTS + 1))" <<'EOP'
import random, socket, sys
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
out = []
for p in random.sample(range(10000, min(lo, 30000)), 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        out.append(p)
    except OSError:
        pass
    s.close()
    if len(out) == int(sys.argv[1]):
        break
print(*out)
EOP
)
[ "${#ports[@]}" = $((HOSTS + 1)) ] || zswb_die "no $((HOSTS + 1)) free ports below the ephemeral range"
declare -A PORT
targets=""
for i in $(seq 1 "$HOSTS"); do
	PORT[host$i]=${ports[$i]}
	targets="$targets
      - targets: ['127.0.0.1:${PORT[host$i]}']
        labels: {instance: host$i}"
done
pport=${ports[0]}
url=http://127.0.0.1:$pport
rules=$ZSWB_TOP/tools/zswbctl/prometheus
# The server as the admin guide says: the shipped rules and alerts in
# rule_files; each guest one target, named by its instance label.
cat > "$t/prometheus.yml" <<EOC
global:
  scrape_interval: ${INTERVAL}s
  scrape_timeout: ${INTERVAL}s
  evaluation_interval: ${INTERVAL}s
rule_files:
  - $rules/zswap_wb.rules.yml
  - $rules/zswap_wb.alerts.yml
scrape_configs:
  - job_name: node
    static_configs:$targets
EOC


if ! promtool check config "$t/prometheus.yml" > "$t/promtool.log" 2>&1; then
	sed 's/^/# /' "$t/promtool.log"
	fail prometheus "promtool check config refused the configuration"
elif ! prom_start "$t" "$pport"; then
	tail -20 "$t/prometheus.log" | sed 's/^/# /'
	fail prometheus "prometheus did not start"
fi
if [ -n "${RES[prometheus]:-}" ]; then
	for id in $TESTS; do
		[ "$id" = prometheus ] && ktap_test_fail "${DESC[$id]}" || ktap_test_skip "${DESC[$id]} (no Prometheus)"
	done
	ktap_counts
	exit 1
fi

# vmboot HOST BOOT ROLE: one boot of HOST's disk, its console in
# $t/HOST-BOOT.log, its start and end (this machine's clock) in
# $t/timeline.
vmboot() {
	local host=$1 boot=$2 role=$3 s rc
	s=$(date +%s)
	bash "$ZSWB_TOP/tools/vm/run.sh" --rootfs "$img" --overlay "$t/$host.qcow2" \
		--payload "$t/payload" --timeout $((WORK + 900)) --mem "$MEM" \
		--fwd "${PORT[$host]}:9100" \
		--cmd "bash ./prometheus_test.sh --guest $host $role $boot" > "$t/$host-$boot.raw" 2>&1
	rc=$?
	tr -d '\r' < "$t/$host-$boot.raw" > "$t/$host-$boot.log"
	echo "boot $host $boot $s $(date +%s) $rc" >> "$t/timeline"
}

# lane HOST: every boot of HOST, in order.
lane() {
	local host=$1 role=plain
	[ "$host" = "$UNLOAD" ] && role=unload
	vmboot "$host" 1 "$role"
	[ "$host" != "$REBOOT" ] || vmboot "$host" 2 plain
}

# The hosts two at a time, one per core. In round RESTART_ROUND,
# Prometheus stops (SIGTERM) a minute into the work and starts again 20 s
# later.
: > "$t/timeline"
round=0
for i in $(seq 1 2 "$HOSTS"); do
	round=$((round + 1))
	lane host$i &
	l1=$!
	lane host$((i + 1)) &
	l2=$!
	if [ $round = "$RESTART_ROUND" ]; then
		for _ in $(seq 1 $((WORK + 900))); do
			grep -q "^prom-mark host$i 1 work" "$t/host$i-1.raw" 2>/dev/null && break
			kill -0 $l1 2>/dev/null || break
			sleep 1
		done
		sleep 60
		# What the TSDB holds up to two intervals ago, to be found
		# again after the restart.
		stop=$(date +%s)
		"$py" - "$url" "$((stop - 2 * INTERVAL))" > "$t/before-restart" <<'EOP'
import json, sys, urllib.parse, urllib.request
data = urllib.parse.urlencode({"query": "count_over_time(zswap_wb_up[1h])", "time": sys.argv[2]}).encode()
for s in json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/query", data, timeout=30))["data"]["result"]:
    print(s["metric"]["instance"], s["value"][1])
EOP
		prom_stop
		# Down for three intervals at least.
		sleep $((3 * INTERVAL > 20 ? 3 * INTERVAL : 20))
		start=$(date +%s)
		prom_start "$t" "$pport" || fail restart "prometheus did not start again"
		echo "restart $stop $start $((stop - 2 * INTERVAL))" >> "$t/timeline"
		sed 's/^/counted /' "$t/before-restart" >> "$t/timeline"
		echo "# prometheus stopped at $stop, started at $start"
	fi
	wait $l1 $l2
	echo "# round $round (host$i, host$((i + 1))): $(( $(date +%s) - begin )) s from the start"
done
# Rules evaluated on the last scrapes.
sleep $((2 * INTERVAL))
end=$(date +%s)

# What the guests said: their results, counters and marks.
cat "$t"/host*-*.log | grep -E '^prom-(result|counter|live) ' > "$t/guest" || true
grep -hE '^# ' "$t"/host*-*.log
declare -A G
while read -r _ id r why; do
	G[$id]=$r
	[ "$r" = ok ] || echo "# $id: $r${why:+ ($why)}"
done < <(grep '^prom-result ' "$t/guest")

# all_ok PREFIX COUNT: COUNT guest results named PREFIX*, each ok.
all_ok() {
	local n=0 k
	for k in "${!G[@]}"; do
		[[ $k == "$1"* ]] || continue
		[ "${G[$k]}" = ok ] || return 1
		n=$((n + 1))
	done
	[ $n = "$2" ] || { echo "# $1*: $n results, want $2"; return 1; }
}
nboots=$((HOSTS + 1))
all_ok install- "$HOSTS" && RES[install]=ok || RES[install]=fail
all_ok export- "$nboots" && RES[export]=ok || RES[export]=fail
all_ok module- "$nboots" && all_ok work- "$nboots" && RES[work]=ok || RES[work]=fail
# A boot is clean when its script ran to its end (run.sh's own status 1
# is also a QEMU that did not start) and the kernel said nothing.
RES[boots]=ok
while read -r _ host boot s e rc; do
	echo "# $host boot $boot: $((e - s)) s, status $rc"
	if { [ "$rc" != 0 ] && [ "$rc" != 1 ]; } || ! grep -q '^zswb-vm: run.sh exited ' "$t/$host-$boot.log"; then
		RES[boots]=fail
		grep -Ev '^(prom-|# )' "$t/$host-$boot.log" | tail -25 | sed 's/^/# /'
	fi
done < <(grep '^boot ' "$t/timeline")
[ "$(grep -c '^boot ' "$t/timeline")" = "$nboots" ] || RES[boots]=fail

# The checks on what Prometheus holds, one result line each.
"$py" - "$url" "$t/timeline" "$t/guest" "$INTERVAL" "$REBOOT" "$UNLOAD" "$HOSTS" > "$t/checks" <<'EOP'
import json, sys, urllib.parse, urllib.request

url, timeline, guest, interval, reboot, unload, nhosts = sys.argv[1:]
interval = float(interval)
nhosts = int(nhosts)
boots, restart, counted, counters, live = {}, None, {}, [], []
for line in open(timeline):
    w = line.split()
    if w[0] == "boot":
        boots[(w[1], int(w[2]))] = (int(w[3]), int(w[4]))
    elif w[0] == "restart":
        restart = (int(w[1]), int(w[2]), int(w[3]))
    elif w[0] == "counted":
        counted[w[1]] = int(w[2])
for line in open(guest):
    w = line.split()
    if w[0] == "prom-counter":
        counters.append((w[1], int(w[2]), w[3], w[4], int(w[5]) if len(w) > 5 else None))
    elif w[0] == "prom-live":
        live.append((w[1], int(w[2]), w[3], int(w[4]), int(w[5]) if len(w) > 5 else None))
first = min(s for s, e in boots.values())
last = max(e for s, e in boots.values())
hosts = ["host%d" % i for i in range(1, nhosts + 1)]

def query(expr, at):
    data = urllib.parse.urlencode({"query": expr, "time": "%.3f" % at}).encode()
    j = json.load(urllib.request.urlopen(url + "/api/v1/query", data, timeout=30))
    assert j["status"] == "success", j
    return j["data"]["result"]

def raw(sel, t0, t1):
    """The samples of selector sel from t0 to t1: {labels: [(t, v)]}."""
    r = query("%s[%ds]" % (sel, int(t1 - t0) + 1), t1)
    return {json.dumps(s["metric"], sort_keys=True): [(float(t), float(v)) for t, v in s["values"]]
            for s in r}

def result(test, ok, why=""):
    print("result %s %s" % (test, "ok" if ok else "fail"))
    if why:
        print("# %s: %s" % (test, why))

# The rules and alerts loaded, their health ok.
j = json.load(urllib.request.urlopen(url + "/api/v1/rules", timeout=30))
groups = {g["name"]: g for g in j["data"]["groups"]}
bad = [r["name"] for g in groups.values() for r in g["rules"] if r.get("health") not in ("ok", "unknown")]
up = query("max_over_time(up[%ds])" % (last - first + 60), last)
seen = sorted(s["metric"]["instance"] for s in up if float(s["value"][1]) == 1)
result("prometheus", "zswap_wb" in groups and len(groups) >= 2 and not bad and seen == sorted(hosts),
       "rule groups %s, unhealthy rules %s, scraped %s" % (sorted(groups), bad, seen))

# Each host's series of the rules, per scope and per settings.
whole = "[%ds]" % (last - first + 60)
missing = []
for rule, want in (("zswap_wb_scope:freed_per_written_back:ratio_rate5m", ["a", "b1", "b2", "global"]),
                   ("zswap_wb_scope:free_latency_seconds:p99_rate5m", ["b1", "b2"])):
    have = {(s["metric"]["instance"], s["metric"].get("scope")) for s in query("last_over_time(%s%s)" % (rule, whole), last)}
    missing += ["%s{%s,%s}" % (rule, h, sc) for h in hosts for sc in want if (h, sc) not in have]
have = {s["metric"]["instance"] for s in query("last_over_time(zswap_wb_host:pgrotated_per_zswpwb:ratio_rate5m%s)" % whole, last)}
missing += ["zswap_wb_host:pgrotated_per_zswpwb:ratio_rate5m{%s}" % h for h in hosts if h not in have]
info = {}
for s in query("last_over_time(zswap_wb_scope_info%s)" % whole, last):
    info.setdefault((s["metric"]["instance"], s["metric"]["scope"]), []).append(s["metric"].get("settings", ""))
# One settings label per scope over the whole test, with its async_free.
wrong = ["%s %s: %s" % (h, sc, info.get((h, sc)))
         for h in hosts for sc, v in (("a", "N"), ("b1", "Y"), ("b2", "Y"))
         if len(info.get((h, sc), [])) != 1 or "async_free=%s" % v not in info[(h, sc)][0].split()]
def query_range(expr, t0, t1):
    """The mean of each series' finite points from t0 to t1: {labels: mean}."""
    data = urllib.parse.urlencode({"query": expr, "start": t0, "end": t1, "step": interval}).encode()
    j = json.load(urllib.request.urlopen(url + "/api/v1/query_range", data, timeout=30))
    out = {}
    for s in j["data"]["result"]:
        v = [float(x) for t, x in s["values"] if x not in ("NaN", "+Inf", "-Inf")]
        if v:
            out[json.dumps(s["metric"], sort_keys=True)] = sum(v) / len(v)
    return out

sets = {json.loads(k).get("settings"): v
        for k, v in query_range("zswap_wb_settings:freed_per_written_back:ratio_rate5m", first, last).items()}
n = [v for k, v in sets.items() if "async_free=N" in k.split()]
y = [v for k, v in sets.items() if "async_free=Y" in k.split()]
result("rules-series", not missing and not wrong and n and y and max(n) < min(y),
       "missing %s; settings labels wrong %s; per settings %s" % (missing[:6], wrong[:6], sets))

# Each boot's counters, as the guest read them when its work had stopped,
# against the largest value Prometheus holds in that boot; and while they
# moved, between Prometheus' samples an export and a scrape (and a
# second of the guest's clock) before and after.
bad = []
want = len(boots) * (4 * 3 + 2)
if len(counters) != want:
    bad.append("%d counters from the guests, want %d" % (len(counters), want))
    s, e = boots[(host, boot)]
    if scope == "vmstat":
        sel = 'node_vmstat_%s{instance="%s"}' % (name, host)
    else:
        sel = 'zswap_wb_scope_%s_total{instance="%s",scope="%s"}' % (name, host, scope)
    r = query("max_over_time(%s[%ds])" % (sel, e - s + 1), e + 1)
    got = int(float(r[0]["value"][1])) if r else None
    if val is None or got is None or got != val:
        bad.append("%s boot %d %s %s: guest %s, prometheus %s" % (host, boot, scope, name, val, got))
if len(live) != len(boots) * 4 * 2:
    bad.append("%d live values from the guests, want %d" % (len(live), len(boots) * 8))
slack = 2 * interval + 1
for host, boot, scope, t, val in live:
    smp = list(raw('zswap_wb_scope_written_back_total{instance="%s",scope="%s"}' % (host, scope),
                   t - 600, t + 600).values())
    before = [v for ts, v in smp[0] if ts <= t - slack] if smp else []
    after = [v for ts, v in smp[0] if ts >= t + slack] if smp else []
    if val is None or not before or not after or not before[-1] <= val <= after[0]:
        bad.append("%s boot %d %s at %d: guest %s, prometheus %s before, %s after"
                   % (host, boot, scope, t, val, before[-1:], after[:1]))
result("counters", not bad,
       "%d values at the end, %d while moving; %s" % (len(counters), len(live), "; ".join(bad[:8]) or "all agree"))

def spanning(samples, t0, t1):
    """The gap between the two samples on either side of t0 to t1, or None."""
    for a, b in zip(samples, samples[1:]):
        if a[0] <= t0 and b[0] >= t1:
            return (a[0], b[0])
    return None

# The reboot: the host's export stops with its first boot and starts
# again with its second (within a boot, 3 minutes here), and rate() sees
# the reset.
(s1, e1), (s2, e2) = boots[(reboot, 1)], boots[(reboot, 2)]
smp = list(raw('zswap_wb_up{instance="%s"}' % reboot, s1, e2 + 1).values())
g = spanning(smp[0], e1, s2) if smp else None
inc = query('increase(zswap_wb_scope_written_back_total{instance="%s",scope="b1"}[%ds])' % (reboot, e2 - s1 + 1), e2 + 1)
resets = query('resets(zswap_wb_scope_written_back_total{instance="%s",scope="b1"}[%ds])' % (reboot, e2 - s1 + 1), e2 + 1)
fin = {b: v for h, b, sc, nm, v in counters if h == reboot and sc == "b1" and nm == "written_back"}
want = fin.get(1, 0) + fin.get(2, 0)
inc = float(inc[0]["value"][1]) if inc else 0
resets = float(resets[0]["value"][1]) if resets else -1
ok = (g is not None and e1 - g[0] <= 60 and g[1] - s2 <= 180 and
      resets == 1 and 0.9 * want <= inc <= 1.1 * want)
result("reboot", ok, "gap %s (boot 1 %d-%d, boot 2 %d-%d); resets %s; increase %.0f, the boots wrote back %d"
       % (g and (int(g[0]), int(g[1])), s1, e1, s2, e2, resets, inc, want))

# The restart: every host that ran through it has the samples it had
# before (counted then, counted again now at the same time), and one gap,
# from the stop to the start and at most two scrapes more.
if restart:
    stop, start, at = restart
    why, ok = [], True
    now = {s["metric"]["instance"]: int(float(s["value"][1]))
           for s in query("count_over_time(zswap_wb_up[1h])", at)}
    lost = ["%s %d, now %s" % (h, n, now.get(h)) for h, n in sorted(counted.items()) if now.get(h) != n]
    ok = bool(counted) and not lost
    why.append("%d hosts' samples counted before, lost since: %s" % (len(counted), lost or "none"))
    for (host, boot), (s, e) in sorted(boots.items()):
        if not (s < stop and e > start):
            continue
        smp = list(raw('zswap_wb_up{instance="%s"}' % host, s, e).values())
        g = spanning(smp[0], stop, start) if len(smp) == 1 else None
        ok &= host in counted and g is not None and g[1] - g[0] <= start - stop + 2 * interval + 1
        why.append("%s ran through it: gap %s" % (host, g and (int(g[0]), int(g[1]))))
    ok &= len(why) > 1
    result("restart", ok, "stopped %d, started %d; %s" % (stop, start, "; ".join(why) or "no host ran through it"))
else:
    result("restart", False, "Prometheus was not restarted")

# The unload: once the host exports zswap_wb_up 0, its scope series have
# no sample while the host is still scraped (up 1).
s, e = boots[(unload, 1)]
smp = list(raw('zswap_wb_up{instance="%s"}' % unload, s, e).values())
# The first 0 after a 1 (before the module is loaded, the file says 0 too).
one = [x[0] for x in smp[0] if x[1] == 1] if smp else []
zero = [x[0] for x in smp[0] if x[1] == 0 and one and x[0] > one[0]] if smp else []
if zero:
    t0 = zero[0]
    after = [x for k, v in raw('{__name__=~"zswap_wb_scope_.*",instance="%s"}' % unload, s, e).items() for x in v if x[0] >= t0]
    now = query('{__name__=~"zswap_wb_scope_.*",instance="%s"}' % unload, t0 + interval)
    upn = query('up{instance="%s"}' % unload, t0 + interval)
    ok = not after and not now and upn and float(upn[0]["value"][1]) == 1 and len(zero) >= 2
    result("unload", ok, "zswap_wb_up 0 from %d (%d samples); scope samples after it %d, series at the next scrape %d"
           % (t0, len(zero), len(after), len(now)))
else:
    result("unload", False, "%s never exported zswap_wb_up 0" % unload)
EOP
while read -r w id r; do
	[ "$w" = result ] || continue
	# The guest's own part of a check: the unload, the export after a reboot.
	case $id in
	unload) [ "${G[unload-$UNLOAD]:-}" = ok ] && [ "${G[exported-down-$UNLOAD]:-}" = ok ] || r=fail ;;
	reboot) [ "${G[reboot-export-$REBOOT]:-}" = ok ] || r=fail ;;
	esac
	if [ "$r" = ok ] && [ "${RES[$id]:-ok}" = ok ]; then
		RES[$id]=ok
	else
		RES[$id]=fail
	fi
done < "$t/checks"
grep '^# ' "$t/checks"

# fleet ID ARGS...: zswbctl fleet over the whole test, its JSON in $t/ID.json.
fleet() {
	local id=$1
	shift
	"$zswbctl" fleet --url "$url" --from "$first" --to "$end" --json "$@" \
		> "$t/$id.json" 2> "$t/$id.err"
	echo "# zswbctl fleet $*: status $?"
	sed 's/^/# /' "$t/$id.err"
}
# judged ID WAY HOSTS MODE: the report of $t/ID.json, each metric's B
# side judged over HOSTS hosts in MODE: higher or lower than A (WAY up,
# down) or no difference detected (none); prints the verdicts.
judged() {
	"$py" - "$t/$1.json" "$2" "$3" "$4" <<'EOP'
import json, sys
path, way, hosts, mode = sys.argv[1:]
try:
    j = json.load(open(path))
except ValueError:
    sys.exit(1)
ok = bool(j.get("report")) and j.get("mode") == mode
for name, m in j.get("report", {}).items():
    b = m["b"]
    print("# %s: %s" % (name, b["verdict"]))
    # The change as a difference where A is 0, else in %.
    est = b["difference"][0] if b.get("difference") else b["estimate"]
    ok &= not b["too_few"] and b["verdict"].endswith(hosts + " hosts")
    if way == "none":
        ok &= not b["differs"] and b["verdict"].startswith("no difference detected")
    else:
        ok &= b["differs"] and (est > 0 if way == "up" else est < 0)
sys.exit(0 if ok else 1)
EOP
}
first=$(awk '$1 == "boot" { print $4 }' "$t/timeline" | sort -n | head -1)
fpw=zswap_wb_scope:freed_per_written_back:ratio_rate5m
fleet fleet-ab --metric "$fpw" --a async_free=N --b async_free=Y
if [ "$HOSTS" -ge 6 ]; then
	judged fleet-ab up "$HOSTS" fleet-paired && RES[fleet-ab]=ok || RES[fleet-ab]=fail
else
	RES[fleet-ab]=skip WHY[fleet-ab]="$HOSTS hosts: paired by host, 6 at least can show a difference at alpha 0.05"
fi
# An A/A is judged at alpha 0.01: a calibrated test finds a difference in
# an A/A split at the rate alpha, so at 0.05 this would fail one run in 20.
fleet fleet-aa-wb --metric 'rate(zswap_wb_scope_written_back_total[5m])' --name written_back_per_s \
	--a-scopes b1 --b-scopes b2 --alpha 0.01
fleet fleet-aa-fpw --metric "$fpw" --a-scopes b1 --b-scopes b2 --alpha 0.01
if [ "$HOSTS" -ge 8 ]; then
	judged fleet-aa-wb none "$HOSTS" fleet-paired && judged fleet-aa-fpw none "$HOSTS" fleet-paired &&
		RES[fleet-aa]=ok || RES[fleet-aa]=fail
else
	RES[fleet-aa]=skip WHY[fleet-aa]="$HOSTS hosts: paired by host, 8 at least can judge at alpha 0.01"
fi
odd=$(seq -f 'host%g' 1 2 "$HOSTS" | paste -sd,)
even=$(seq -f 'host%g' 2 2 "$HOSTS" | paste -sd,)
if [ "$HOSTS" -ge 8 ]; then
	fleet fleet-hosts --metric zswap_wb_host:pgrotated_per_zswpwb:ratio_rate5m \
		--a-hosts "$odd" --b-hosts "$even"
	judged fleet-hosts down "$((HOSTS / 2)) + $((HOSTS / 2))" fleet-unpaired &&
		RES[fleet-hosts]=ok || RES[fleet-hosts]=fail
else
	RES[fleet-hosts]=skip WHY[fleet-hosts]="$HOSTS hosts: a host split needs 4 in each arm"
fi

for id in $TESTS; do
	case "${RES[$id]:-}" in
	ok) ktap_test_pass "${DESC[$id]}" ;;
	skip) ktap_print_msg "${WHY[$id]}"; ktap_test_skip "${DESC[$id]}" ;;
	*) ktap_test_fail "${DESC[$id]}" ;;
	esac
done
echo "# check-prometheus: $(( $(date +%s) - begin )) s, $HOSTS hosts"
ktap_counts
[ "$KTAP_CNT_FAIL" = 0 ]
