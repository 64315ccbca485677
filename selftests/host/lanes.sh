#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite lanes (selftests/run.sh lanes); KTAP on stdout. The lane
# scheduler of make check, make bench and make bench-apps
# (tools/lib/lanes.sh) on made-up items, and make bench's benchmarks as
# tools/bench/run.sh finds them, in a copy of the tree whose VM is a stub.
. "$(dirname "$0")/lib.sh"
. tools/lib/lanes.sh

# result DESC: DESC passes if the command before succeeded; if not, it
# fails with $out/log as comments.
result() {
	if [ $? = 0 ]; then
		ktap_test_pass "$1"
	else
		sed 's/^/# /' "$out/log" 2>/dev/null
		ktap_test_fail "$1"
	fi
}

# same EXPECTED ACTUAL: they are equal; if not, both go to $out/log.
same() {
	[ "$1" = "$2" ] && return 0
	printf 'expected:\n%s\ngot:\n%s\n' "$1" "$2" >> "$out/log"
	return 1
}

# lanes_sleep LANE ITEM: an item of lanes_run that sleeps the seconds its
# name ends in ("s4": 4), fails if its name begins with f, and says which
# lane ran it.
lanes_sleep() {
	echo "$1 $2" >> "$out/ran"
	sleep "${2#?}"
	case "$2" in f*) return 1 ;; esac
	echo "$2 done" >> "$out/ran"
}

# fake_tree: a copy of the tree's make bench in $out/tree, whose VM
# (tools/vm/run.sh) sleeps the seconds its command's ZSWB_FAKE_SLEEP
# asks and prints its arguments, and whose report.py prints the report's
# heading; run.sh runs there as in the tree.
fake_tree() {
	local t=$out/tree
	rm -rf "$t"
	mkdir -p "$t/tools/vm" "$t/tools/kernel" "$t/tools/bench"
	cp -r tools/lib "$t/tools/"
	cp tools/kernel/common.sh "$t/tools/kernel/"
	cp -r tools/bench/config tools/bench/apps tools/bench/run.sh "$t/tools/bench/"
	cat > "$t/tools/vm/run.sh" <<-'EOF'
		echo "# vm $*"
		case "$*" in *ZSWB_FAKE_SLEEP=*) s=${*##*ZSWB_FAKE_SLEEP=}; sleep "${s%% *}" ;; esac
	EOF
	cat > "$t/tools/bench/report.py" <<-'EOF'
		import sys
		print("== report", sys.argv[1])
	EOF
}

suite_lanes() {
	local t got msg ok h b
	ktap_print_header
	ktap_set_plan 15

	# Measured items by their times, the rest by their defaults: c, never
	# measured, weighs its 7 between a's 9 and b's 2.
	: > "$out/log"
	printf 'a 9\nb 2\nd 1\n' > "$out/times"
	got=$(printf 'b 50\nd 60\na 1\nc 7\n' | lanes_order "$out/times")
	same "$(printf '9 a\n7 c\n2 b\n1 d')" "$got"
	result "lanes_order: longest first by the times file, an item never measured by its default"

	# Ties keep the order given; lanes_weigh keeps every item's place.
	: > "$out/log"
	got=$(printf 'x 3\ny 5\nz 3\n' | lanes_order /dev/null | tr '\n' ' ')
	same "5 y 3 x 3 z " "$got" &&
		same "9 a 7 c " "$(printf 'a 0\nc 7\n' | lanes_weigh "$out/times" | tr '\n' ' ')"
	result "lanes_order keeps equal items in order; lanes_weigh keeps the order given"

	# Five items over two lanes: 5 4 3 3 1 make 8 and 8.
	: > "$out/log"
	got=$(printf 'i5 5\ni4 4\ni3 3\nj3 3\ni1 1\n' | lanes_order /dev/null | lanes_plan 2)
	same "$(printf '8 i5 j3\n8 i4 i3 i1')" "$got" &&
		same "16 i5 i4 i3 j3 i1" "$(printf 'i5 5\ni4 4\ni3 3\nj3 3\ni1 1\n' | lanes_order /dev/null | lanes_plan 1)" &&
		same "$(printf '3 x\n0')" "$(echo "3 x" | lanes_plan 2)"
	result "lanes_plan: 5 4 3 3 1 in two lanes are 8 and 8; one lane takes all; an empty lane is 0"

	# A missing file, a directory and a file of garbage weigh nothing: the
	# defaults count, and the garbage is dropped when the times are saved.
	: > "$out/log"
	printf 'junk\na x\nb 1.5\nc 4 4\n\na\n' > "$out/junk"
	mkdir -p "$out/dir"
	got=$(printf 'a 3\nb 2\nc 1\n' | lanes_order "$out/junk" | tr '\n' ' ')
	same "3 a 2 b 1 c " "$got" &&
		same "$got" "$(printf 'a 3\nb 2\nc 1\n' | lanes_order "$out/nofile" | tr '\n' ' ')" &&
		same "$got" "$(printf 'a 3\nb 2\nc 1\n' | lanes_order "$out/dir" 2>&1 | tr '\n' ' ')" &&
		echo "b 6" | lanes_save "$out/junk" && same "b 6" "$(cat "$out/junk")" &&
		! echo "b 6" | lanes_save "$out/dir" 2>> "$out/log" && [ -z "$(ls "$out/dir")" ]
	result "a missing, unreadable or corrupt times file: the defaults count, and saving replaces it"

	# A run in two lanes: s4 in one, s1 then t1 in the other, which is
	# free first; f1 fails and is not timed, and the rest still run.
	: > "$out/log"
	: > "$out/ran"
	mkdir -p "$out/run"
	printf 's4\ns1\nt1\nf1\n' > "$out/run/queue"
	lanes_run 2 "$out/run" lanes_sleep
	got=$(sort "$out/run/seconds" | awk '{ n = substr($1, 2); print $1, ($2 >= n && $2 <= n + 30) ? "ok" : $2 }' | tr '\n' ' ')
	cat "$out/ran" >> "$out/log"
	same "s1 ok s4 ok t1 ok " "$got" && same "f1" "$(cat "$out/run/failed")" &&
		[ ! -s "$out/run/queue" ] && [ "$(grep -c " done$" "$out/ran")" = 3 ] &&
		[ "$(sed -n 's/ s1$//p' "$out/ran")" = "$(sed -n 's/ t1$//p' "$out/ran")" ] &&
		[ "$(sed -n 's/ s1$//p' "$out/ran")" != "$(sed -n 's/ s4$//p' "$out/ran")" ]
	result "lanes_run: two lanes from one queue, each item timed, a failure recorded and the rest run"

	# An item runs with its shell's errexit: a failing command ends it
	# there, and its lane goes on to the next.
	: > "$out/log"
	printf 'e1\ne2\n' > "$out/run/queue"
	# shellcheck disable=SC2317
	lanes_errexit() { false; echo "$2 went on" >> "$out/log"; }
	(set -e; lanes_run 1 "$out/run" lanes_errexit)
	same "$(printf 'e1\ne2')" "$(cat "$out/run/failed")" && ! grep -q "went on" "$out/log"
	result "lanes_run: an item that fails under errexit stops there, and its lane goes on"

	# The times of one run order the next: saved over the old ones, the
	# items not run keep theirs.
	: > "$out/log"
	printf 'old 100\ns3 1\ns1 50\n' > "$out/times"
	printf 's3 3\ns2 2\n' | lanes_save "$out/times"
	got=$(printf 's1 0\ns2 0\ns3 0\nold 0\nnew 7\n' | lanes_order "$out/times" | cut -d' ' -f2 | tr '\n' ' ')
	same "old s1 new s3 s2 " "$got" && same "$(printf 'old 100\ns3 3\ns1 50\ns2 2')" "$(cat "$out/times")"
	result "lanes_save: a run's times replace the old ones and order the next run"

	# A run that measured nothing (make check of host suites only) leaves
	# the file as it is, or absent; a save leaves it 0644 whatever the
	# umask, beside its lock file.
	: > "$out/log"
	printf 'junk\nold 5\n' > "$out/keep"
	chmod 0600 "$out/keep"
	: | lanes_save "$out/keep" && printf 'x y\n' | lanes_save "$out/none" &&
		same "$(printf 'junk\nold 5')" "$(cat "$out/keep")" && [ ! -e "$out/none" ] &&
		same 600 "$(stat -c %a "$out/keep")" &&
		(umask 077; echo "new 6" | lanes_save "$out/keep") &&
		same "$(printf 'old 5\nnew 6')" "$(cat "$out/keep")" &&
		same 644 "$(stat -c %a "$out/keep")" && [ -f "$out/keep.lock" ] &&
		same "" "$(ls "$out" | grep '^keep\.' | grep -vx keep.lock)"
	result "lanes_save: nothing to save leaves the file alone; a saved file is 0644"

	# make bench finds its benchmarks from tools/bench/config/*.conf.
	: > "$out/log"
	t=$(ls tools/bench/config/*.conf | sed 's|.*/||; s|\.conf$||' | grep -vx common | tr '\n' ' ')
	got=$(bash tools/bench/run.sh --list 2>> "$out/log")
	same "$t" "$(echo "$got" | cut -d' ' -f1 | tr '\n' ' ')" &&
		same "prompt-free readahead store " "$(echo "$got" | sed -n 's/ default$//p' | tr '\n' ' ')" &&
		[ "$(echo "$got" | grep -cv ' default$\| extra$')" = 0 ]
	result "make bench: the benchmarks are the files of tools/bench/config but common.conf"

	# A name that is no benchmark is refused, with the list, before any VM.
	msg=$(bash tools/bench/run.sh store nosuch 2>&1)
	[ $? = 1 ] && [[ $msg == *"unknown benchmark 'nosuch' (benchmarks: ${t% };"* ]] &&
		[[ $msg != *"# vm"* ]]
	echo "$msg" > "$out/log"
	result "make bench: an unknown name is refused, the benchmarks listed"

	# A benchmark's file that lacks a declaration is refused, named, when
	# it is asked (BENCH_DEFAULT, read as written, by every run).
	fake_tree
	sed -i '/^BENCH_ESTIMATE=/d' "$out/tree/tools/bench/config/store.conf"
	msg=$(ZSWB_CACHE=$out/cache bash "$out/tree/tools/bench/run.sh" prompt-free store 2>&1)
	[ $? = 1 ] && [[ $msg == *"tools/bench/config/store.conf: no valid BENCH_ESTIMATE (seconds)"* ]] &&
		[[ $msg != *"# vm"* ]]
	echo "$msg" > "$out/log"
	fake_tree
	printf 'ZSWB_NEW=${ZSWB_NEW:-1}\nBENCH_ICOUNT=maybe\nBENCH_DEFAULT=yes\nBENCH_ESTIMATE=5\n' > "$out/tree/tools/bench/config/new.conf"
	msg=$(ZSWB_CACHE=$out/cache bash "$out/tree/tools/bench/run.sh" --plan new 2>&1)
	[ $? = 1 ] && [[ $msg == *"config/new.conf: no valid BENCH_CMD (or BENCH_RUN)"* ]]
	echo "$msg" >> "$out/log"
	sed -i 's/^BENCH_DEFAULT=yes$/BENCH_DEFAULT=$X/' "$out/tree/tools/bench/config/new.conf"
	msg=$(ZSWB_CACHE=$out/cache bash "$out/tree/tools/bench/run.sh" --list 2>&1)
	[ $? = 1 ] && [[ $msg == *"config/new.conf: no valid BENCH_DEFAULT (yes or no, as written)"* ]]
	echo "$msg" >> "$out/log"
	result "make bench: a benchmark's file without a needed declaration is refused, with its name"

	# apps' estimate is its own plan, made only when apps is asked; a
	# knob of apps that does not evaluate fails a run that asks for apps,
	# the file named, and no other.
	: > "$out/log"
	fake_tree
	printf 'echo planned >> "%s"; echo "vm1: x (42 s)"\n' "$out/planned" > "$out/tree/tools/bench/apps/run.sh"
	rm -f "$out/planned"
	sed -i 's|^BENCH_CMD="|&ZSWB_FAKE_SLEEP=0 |' "$out/tree/tools/bench/config/store.conf"
	ok=1
	ZSWB_CACHE=$out/cache-apps bash "$out/tree/tools/bench/run.sh" --list > /dev/null 2>> "$out/log" &&
		ZSWB_CACHE=$out/cache-apps bash "$out/tree/tools/bench/run.sh" --plan store > /dev/null 2>> "$out/log" &&
		[ ! -e "$out/planned" ] || ok=0
	got=$(ZSWB_CACHE=$out/cache-apps ZSWB_BENCH_JOBS=1 bash "$out/tree/tools/bench/run.sh" --plan apps store 2>> "$out/log")
	same "42 apps" "$(echo "$got" | head -n 1)" && same planned "$(cat "$out/planned" 2>&1)" || ok=0
	msg=$(ZSWB_APPS_ROUNDS=x ZSWB_CACHE=$out/cache-apps bash "$out/tree/tools/bench/run.sh" store 2>&1) &&
		[[ $msg == *"== report store"* ]] || ok=0
	echo "$msg" >> "$out/log"
	msg=$(ZSWB_APPS_ROUNDS=x ZSWB_CACHE=$out/cache-apps bash "$out/tree/tools/bench/run.sh" --plan store apps 2>&1)
	[ $? = 1 ] && [[ $msg == *"apps.conf: line "*"x: unbound variable"* ]] &&
		[[ $msg == *"error: tools/bench/config/apps.conf: a knob is not valid"* ]] || ok=0
	echo "$msg" >> "$out/log"
	[ "$ok" = 1 ]
	result "make bench: apps' plan only when apps is asked; a bad knob of apps fails only a run that asks for it"

	# A run of two stub benchmarks in two lanes, longest first by the
	# times file; each one's time saved, and the next run ordered by it.
	: > "$out/log"
	fake_tree
	t=$out/tree/tools/bench/config
	sed -i 's|^BENCH_CMD="|&ZSWB_FAKE_SLEEP=4 |' "$t/prompt-free.conf"
	sed -i 's|^BENCH_CMD="|&ZSWB_FAKE_SLEEP=0 |' "$t/store.conf"
	mkdir -p "$out/cache"
	printf 'store 90\nprompt-free 10\n' > "$out/cache/bench-seconds"
	got=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=2 bash "$out/tree/tools/bench/run.sh" --plan prompt-free store 2>&1)
	msg=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=2 bash "$out/tree/tools/bench/run.sh" prompt-free store 2>&1)
	echo "$msg" >> "$out/log"
	same "$(printf '90 store\n10 prompt-free')" "$got" &&
		[[ $msg == *"# two at a time, longest first: store prompt-free"* ]] &&
		[[ $msg == *"store: # vm --icount 3 --timeout "*" --cmd export ZSWB_BENCH_WRITERS='16' "*"; ZSWB_FAKE_SLEEP=0 /bench/store.sh 10"* ]] &&
		[ "$(echo "$msg" | grep '^== report' | tr '\n' ' ')" = "== report prompt-free == report store " ] &&
		same "prompt-free store " "$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=2 \
			bash "$out/tree/tools/bench/run.sh" --plan store prompt-free | cut -d' ' -f2 | tr '\n' ' ')" &&
		same "store prompt-free " "$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=1 \
			bash "$out/tree/tools/bench/run.sh" --plan store prompt-free | cut -d' ' -f2 | tr '\n' ' ')"
	cat "$out/cache/bench-seconds" >> "$out/log"
	result "make bench: two lanes, longest first; the times saved order the next run (one lane: the order asked)"

	# A failed benchmark fails make bench, names it, and keeps its old
	# time; a times file with garbage in it orders the run all the same
	# and loses the garbage.
	: > "$out/log"
	printf 'import sys\nsys.exit(sys.argv[1] == "store")\n' > "$out/tree/tools/bench/report.py"
	printf 'store 77\n%%garbage\nprompt-free x\n\n' > "$out/cache/bench-seconds"
	msg=$(ZSWB_CACHE=$out/cache ZSWB_BENCH_JOBS=2 bash "$out/tree/tools/bench/run.sh" store prompt-free 2>&1)
	[ $? = 1 ] && [[ $msg == *"error: failed: store "* ]] &&
		[[ $msg == *"# two at a time, longest first: prompt-free store"* ]] &&
		[ "$(sed 's/ [0-9]*$//' "$out/cache/bench-seconds" | tr '\n' ' ')" = "store prompt-free " ] &&
		grep -qx "store 77" "$out/cache/bench-seconds" && grep -q "^prompt-free [0-9]*$" "$out/cache/bench-seconds"
	{ echo "$msg"; cat "$out/cache/bench-seconds"; } >> "$out/log"
	result "make bench: a benchmark that fails is named and keeps its time; a corrupt times file is no matter"

	# make check's VM timeouts: each group's settings timeout, or
	# ZSWB_VM_TIMEOUT, times ZSWB_VM_TIMEOUT_SCALE (make check-debug's 6);
	# a scale that is not a positive number is refused before any VM.
	: > "$out/log"
	fake_tree
	t=$out/tree
	mkdir -p "$t/selftests/zswap_wb"
	cp selftests/run.sh selftests/ktap.sh "$t/selftests/"
	# Its own cache (the times it saves are a stub's), with the kernel
	# source that selftests/ktap.sh reads.
	mkdir -p "$out/cache" && ln -sfn "$ZSWB_SRC" "$out/cache/"
	for g in basic harden; do
		mkdir "$t/selftests/zswap_wb/$g"
		cp "selftests/zswap_wb/$g/settings" "$t/selftests/zswap_wb/$g/"
	done
	ok=1
	h=$(sed -n 's/^timeout=//p' selftests/zswap_wb/harden/settings)
	b=$(sed -n 's/^timeout=//p' selftests/zswap_wb/basic/settings)
	same "basic $b harden $h " "$(vm_timeouts env)" || ok=0
	same "basic $((b * 6)) harden $((h * 6)) " "$(vm_timeouts env ZSWB_VM_TIMEOUT_SCALE=6)" || ok=0
	same "basic 200 harden 200 " "$(vm_timeouts env ZSWB_VM_TIMEOUT=100 ZSWB_VM_TIMEOUT_SCALE=2)" || ok=0
	msg=$(ZSWB_CACHE=$out/cache ZSWB_VM_TIMEOUT_SCALE=0 bash "$t/selftests/run.sh" vm-basic 2>&1)
	[ $? = 1 ] && [[ $msg == *"ZSWB_VM_TIMEOUT_SCALE must be a positive number, not '0'"* ]] &&
		[[ $msg != *"# vm"* ]] || ok=0
	echo "$msg" >> "$out/log"
	[ "$ok" = 1 ]
	result "make check: a group's VM timeout is its settings', times ZSWB_VM_TIMEOUT_SCALE; a bad scale is refused"
}

# vm_timeouts ENV-COMMAND...: "GROUP SECONDS " of vm-basic and vm-harden
# as the fake tree's make check boots them, run under ENV-COMMAND.
vm_timeouts() {
	ZSWB_CACHE=$out/cache ZSWB_CHECK_JOBS=1 "$@" bash "$out/tree/selftests/run.sh" vm-harden vm-basic 2>> "$out/log" |
		tee -a "$out/log" | sed -n 's/.*# vm --timeout \([0-9]*\) .*run_group.sh \([a-z]*\).*/\2 \1/p' |
		sort | tr '\n' ' '
}

suite_lanes
ktap_finished
