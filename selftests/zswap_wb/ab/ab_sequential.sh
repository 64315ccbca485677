#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: zswbctl ab on disk swap: async_free=Y lower through pgrotated, the primary metric, no difference detected in an A/A side, three sides, --precision, settings put back after SIGTERM and SIGHUP
#
# thrash walks SIZE MiB in a memcg of CG_MAX (zswbctl ab --memory-max) on
# virtio-blk swap with zswap on. With async_free=N a written-back folio
# is rotated to the LRU's tail when its write ends (pgrotated); with Y it
# is freed instead, and is not. One
# comparison of three sides, each pair A B C A, then A C B A, and so on,
# judged by vmstat.pgrotated (--metric): B (async_free=Y) must be found to
# differ, lower, its estimate below half of A's and its whole interval
# below A, with a verdict in words, in 6 pairs, the fewest that can reach
# p <= 0.05; C with A's settings (an A/A, a secondary side) must show no
# difference in pgrotated. The command also writes figures of its own to
# $ZSWBCTL_AB_METRICS (thrash's pages and seconds, and a line that is not
# NAME VALUE), which ab must report as cmd.pages (exact) and cmd.seconds,
# and the bad line must be said and left out; and the side's letter from
# $ZSWBCTL_AB_SIDE (cmd.side, its character code), which must be each
# run's side. Then ab is stopped by
# SIGTERM in its first run, and by SIGHUP: the parameter it set must read
# as before, its cgroup must be gone, and it must exit 128 + the signal.
# Last, --precision stops at --pairs on a figure that never varies, and
# at --max-pairs on one that is noise. Exits 0 (pass), 4 (skip) or 1
# (fail).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ab.lib"

SIZE=${ZSWB_TEST_SIZE:-150}
CG_MAX=${ZSWB_TEST_CG_MAX:-50M}
PASSES=${ZSWB_TEST_PASSES:-2}
PAIRS=${ZSWB_AB_PAIRS:-6}
# B's settings: async_free=N here must fail the test (no difference to
# find), which shows that it can.
B=${ZSWB_AB_B:-async_free=Y}
out=/tmp/ab-sequential

# async_free_on: zswbctl ab has set its side's async_free=Y.
async_free_on() { [ "$(param_value async_free)" = Y ]; }

# Before test_cleanup (lib.sh), which turns async_free off with the rest.
test_cleanup_own() { ab_cgroups_del; }


[ -d /sys/module/zswap_wb ] || modprobe zswap_wb || { msg "modprobe zswap_wb failed"; exit 1; }
[ -f /sys/fs/cgroup/cgroup.controllers ] || { msg "no cgroup v2"; exit 4; }
zswap_on
swap_on disk || { msg "swapon of /dev/vda failed"; exit 1; }
echo 0 > "$ZSWB_PARAMS/async_free"
mkdir -p "$out"
fail=0

# The command of the A/A comparison: thrash, with its own figures for ab;
# it leaves thrash's output beside them, for ab to remove.
cat > "$out/figures.sh" <<EOF
#!/bin/sh
thrash --size $SIZE --passes $PASSES > "\$ZSWBCTL_AB_METRICS.out" || exit \$?
awk '/^pages/ { print "pages", \$2; print "seconds", \$6 }' "\$ZSWBCTL_AB_METRICS.out" > "\$ZSWBCTL_AB_METRICS"
echo "Not-A-Name 1" >> "\$ZSWBCTL_AB_METRICS"
printf 'side %d\n' "'\$ZSWBCTL_AB_SIDE" >> "\$ZSWBCTL_AB_METRICS"
EOF
chmod +x "$out/figures.sh"

# ab NAME A B [C] [-- CMD...]: one comparison (of thrash, or CMD), its
# JSON in $out/NAME.json, its CSV beside.
ab() {
	local name=$1 a=$2 b=$3 c="" rc
	shift 3
	if [ $# -gt 0 ] && [ "$1" != -- ]; then
		c=$1
		shift
	fi
	[ "${1:-}" != -- ] || shift
	[ $# -gt 0 ] || set -- thrash --size "$SIZE" --passes "$PASSES"
	zswbctl ab --pairs "$PAIRS" --metric vmstat.pgrotated --memory-max "$CG_MAX" \
		--drop-caches --json \
		--csv "$out/$name.csv" --a "$a" --b "$b" ${c:+--c "$c"} -- "$@" \
		> "$out/$name.json" 2> "$out/$name.err"
	rc=$?
	msg "$name: zswbctl ab exited $rc"
	zswbctl ab --metric vmstat.pgrotated --from-csv "$out/$name.csv" | sed 's/^/# /'
	[ $rc -eq 0 ] || { sed 's/^/# stderr: /' "$out/$name.err"; return 1; }
}

if ab aa async_free=N "$B" async_free=N -- "$out/figures.sh"; then
	f=$out/aa.json
	cdiffers=$(side_field "$f" vmstat.pgrotated c differs)
	bdiffers=$(side_field "$f" vmstat.pgrotated b differs)
	bfew=$(side_field "$f" vmstat.pgrotated b too_few)
	best=$(side_field "$f" vmstat.pgrotated b estimate)
	bhigh=$(side_field "$f" vmstat.pgrotated b ci_high)
	bverdict=$(side_field "$f" vmstat.pgrotated b verdict)
	wb=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "vmstat.zswpwb") c = i; next }
		$4 == "A" && $2 == "pair" { n += $c } END { print n + 0 }' "$out/aa.csv")
	runs=$((4 * PAIRS + 2))
	order=$(awk -F, 'NR > 1 { printf "%s", $4 }' "$out/aa.csv")
	# Each side next to an A run, every other pair mirrored.
	want=AA$(i=1; while [ $i -le "$PAIRS" ]; do
		if [ $((i % 2)) = 1 ]; then printf ABCA; else printf ACBA; fi
		i=$((i + 1))
	done)
	msg "B ($B): pgrotated differs '$bdiffers', too few '$bfew': $bverdict; A's zswpwb $wb"
	msg "A/A (C): pgrotated differs $cdiffers: $(side_field "$f" vmstat.pgrotated c verdict); runs $order"
	[ "$wb" -gt 10000 ] || { msg "FAILED: under 10k pages written back in A's runs: no test"; fail=1; }
	grep -q '"vmstat.pgrotated": {' "$f" || { msg "FAILED: no pgrotated in the report"; fail=1; }
	[ "$cdiffers" = false ] || { msg "FAILED: an A/A reported to differ"; fail=1; }
	[ "$bdiffers" = true ] || { msg "FAILED: B's pgrotated not found to differ"; fail=1; }
	[ "$bfew" = false ] || { msg "FAILED: $PAIRS pairs too few to judge B's pgrotated"; fail=1; }
	# The estimate and the interval are % changes of A: B under half of
	# A's, and the whole interval below 0.
	awk -v e="$best" -v h="$bhigh" 'BEGIN { exit !(e ~ /^-?[0-9]/ && h ~ /^-?[0-9]/ &&
		e + 0 < -50 && h + 0 < 0) }' ||
		{ msg "FAILED: B's pgrotated change $best%, interval up to $bhigh%: not below -50% and 0"; fail=1; }
	case $bverdict in
	'"B is '*' lower ['*) ;;
	*) msg "FAILED: no verdict in words that B's pgrotated is lower"; fail=1 ;;
	esac
	[ "$order" = "$want" ] || { msg "FAILED: runs in the order $order, not $want"; fail=1; }
	# The command's own figures: every run's pages exact, seconds there,
	# the bad line said once a run and left out.
	pages=$(awk -F, -v want=$((SIZE * 256)) 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cmd.pages") c = i; next }
		c && $c == want { n++ } END { print n + 0 }' "$out/aa.csv")
	secs=$(side_field "$f" cmd.seconds b differs)
	bad=$(grep -c "metrics line 3: not NAME VALUE: 'Not-A-Name 1', left out" "$out/aa.err")
	msg "A/A: cmd.pages $((SIZE * 256)) in $pages of $runs runs, cmd.seconds differs '$secs', $bad bad lines said"
	[ "$pages" = $runs ] || { msg "FAILED: cmd.pages not in every run"; fail=1; }
	[ -n "$secs" ] || { msg "FAILED: no cmd.seconds in the report"; fail=1; }
	[ "$bad" = $runs ] || { msg "FAILED: the bad line not said in every run"; fail=1; }
	grep -qi "not-a-name" "$out/aa.csv" && { msg "FAILED: the bad line became a metric"; fail=1; }
	# $ZSWBCTL_AB_SIDE: each run's side letter (as its character code).
	sides=$(awk -F, 'BEGIN { for (i = 65; i < 72; i++) code[sprintf("%c", i)] = i }
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cmd.side") c = i; next }
		c && $c == code[$4] { n++ } END { print n + 0 }' "$out/aa.csv")
	msg "A/A: ZSWBCTL_AB_SIDE the run's side in $sides of $runs runs"
	[ "$sides" = $runs ] || { msg "FAILED: ZSWBCTL_AB_SIDE not the run's side in every run"; fail=1; }
else
	fail=1
fi
[ "$(param_value async_free)" = N ] || { msg "FAILED: async_free not put back to N"; fail=1; }

# Stopped in its first run: the settings and the cgroups are put back.
zswbctl ab --pairs 1 --memory-max "$CG_MAX" --a async_free=Y --b async_free=Y -- \
	thrash --size "$SIZE" --passes 20 > "$out/term.out" 2> "$out/term.err" &
pid=$!
poll 10 async_free_on
sleep 2
kill -TERM $pid
wait $pid
rc=$?
msg "SIGTERM: zswbctl ab exited $rc, async_free $(param_value async_free)"
sed 's/^/# stderr: /' "$out/term.err"
[ $rc -eq 143 ] || { msg "FAILED: exit status $rc, not 143"; fail=1; }
[ "$(param_value async_free)" = N ] || { msg "FAILED: async_free not put back to N after SIGTERM"; fail=1; }
ls -d "$CG_ROOT"/zswbctl-ab.* 2>/dev/null && { msg "FAILED: a cgroup of ab is left"; fail=1; }
# SIGHUP (a terminal or an ssh session that goes away) stops it the same
# way, here while the command sleeps.
zswbctl ab --pairs 1 --a async_free=Y --b async_free=Y -- sleep 60 \
	> "$out/hup.out" 2> "$out/hup.err" &
pid=$!
poll 10 async_free_on
sleep 1
kill -HUP $pid
wait $pid
rc=$?
msg "SIGHUP: zswbctl ab exited $rc, async_free $(param_value async_free)"
[ $rc -eq 129 ] || { msg "FAILED: exit status $rc after SIGHUP, not 129"; fail=1; }
[ "$(param_value async_free)" = N ] || { msg "FAILED: async_free not put back to N after SIGHUP"; fail=1; }
ls -d "$CG_ROOT"/zswbctl-ab.* 2>/dev/null && { msg "FAILED: a cgroup of ab is left after SIGHUP"; fail=1; }

# --precision: pairs are added until the primary metric's interval is
# at most +-1%, or --max-pairs. A figure that never varies is known at
# once (6 pairs, --pairs); one that is noise never is (8, --max-pairs).
printf '#!/bin/sh\necho "x 100" > "$ZSWBCTL_AB_METRICS"\n' > "$out/steady.sh"
printf '#!/bin/sh\necho "x $(( $$ %% 97 + 1 ))" > "$ZSWBCTL_AB_METRICS"\n' > "$out/noisy.sh"
chmod +x "$out/steady.sh" "$out/noisy.sh"
for cmd in steady:6 noisy:8; do
	zswbctl ab --pairs 6 --precision 1% --max-pairs 8 --metric cmd.x --json \
		--a async_free=N --b async_free=N -- "$out/${cmd%:*}.sh" > "$out/prec.json" 2> "$out/prec.err"
	rc=$?
	got=$(sed -n 's/^    "pairs": \([0-9]*\),$/\1/p' "$out/prec.json")
	msg "--precision, ${cmd%:*} figure: exit $rc, $got pairs"
	[ $rc -eq 0 ] && [ "$got" = "${cmd#*:}" ] ||
		{ msg "FAILED: ${cmd%:*} figure: $got pairs, not ${cmd#*:}"; sed 's/^/# /' "$out/prec.err"; fail=1; }
done

# Nor a metrics directory, after the comparisons (figures.sh leaves a
# file of its own in it) and after SIGTERM.
ls -d "${TMPDIR:-/tmp}"/zswbctl-ab.* 2>/dev/null && { msg "FAILED: a metrics directory of ab is left"; fail=1; }
exit $fail
