#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite console-check (selftests/run.sh console-check); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# tools/vm/console_check.sh, on consoles made up here: what fails a VM run,
# and that the WARNs jump_label answers a failed allocation with pass only
# between the fault-injection test's marks, and only from its task. Their
# lines are the running kernel source's.
suite_console_check() {
	local d=$out/console jl=$ZSWB_SRC/kernel/jump_label.c add dels del1 del2 w
	ktap_print_header
	ktap_set_plan 6
	mkdir -p "$d"
	add=$(grep -n 'WARN(1, "Failed to allocate memory: jump_label' "$jl" | cut -d: -f1)
	dels=$(grep -n -A1 'No memory during module load' "$jl" | sed -n 's/^\([0-9]*\)-.*WARN_ON.*/\1/p')
	del1=$(echo "$dels" | sed -n 1p) del2=$(echo "$dels" | sed -n 2p)
	w="WARNING: CPU: 0 PID"
	printf '%s\n' "[    1.0] zswb-vm: running /run.sh" "ok 1 a test" > "$d/clean"
	printf '%s\n' "[    1.0] zswb-vm: running /run.sh" "[    2.0] BUG: kernel NULL pointer dereference, address: 0" > "$d/bug"
	printf '%s\n' "[    1.0] zswb-vm: fail-nth over module loads: start" \
		"[    2.0] Failed to allocate memory: jump_label may not work properly." \
		"[    2.1] $w: 489 at kernel/jump_label.c:$add jump_label_module_notify+0x70d/0xa30" \
		"[    2.2] $w: 489 at kernel/jump_label.c:$del1 jump_label_del_module+0x3c1/0x660" \
		"[    3.1] $w: 496 at kernel/jump_label.c:$add jump_label_module_notify+0x70d/0xa30" \
		"[    3.2] $w: 496 at kernel/jump_label.c:$del2 jump_label_del_module+0x3c1/0x660" \
		"[    4.0] zswb-vm: fail-nth over module loads: end" > "$d/marked"
	grep -v zswb-vm "$d/marked" > "$d/unmarked"
	# Between the marks: another task's, another line's; after them: any.
	sed -e "/3.2/a [    3.3] $w: 500 at kernel/jump_label.c:$del1 jump_label_del_module+0x3c1/0x660" \
	    -e "/3.2/a [    3.4] $w: 496 at kernel/jump_label.c:$((add - 1)) jump_label_module_notify+0x1/0x2" "$d/marked" > "$d/others"
	echo "[    5.0] $w: 600 at kernel/jump_label.c:$add jump_label_module_notify+0x70d/0xa30" >> "$d/others"
	if [ -n "$add" ] && [ -n "$del2" ] &&
	   bash tools/vm/console_check.sh "$d/clean" "$jl" > "$d/clean.out" && [ ! -s "$d/clean.out" ] &&
	   ! bash tools/vm/console_check.sh "$d/bug" "$jl" > "$d/bug.out" && grep -q "BUG: kernel NULL" "$d/bug.out"; then
		ktap_test_pass "a clean console passes, a BUG fails the run"
	else
		ktap_test_fail "a clean console passes, a BUG fails the run"
	fi
	if bash tools/vm/console_check.sh "$d/marked" "$jl" > "$d/marked.out"; then
		ktap_test_pass "jump_label's WARNs between the fault-injection marks pass"
	else
		sed 's/^/# /' "$d/marked.out"; ktap_test_fail "jump_label's WARNs between the fault-injection marks pass"
	fi
	if ! bash tools/vm/console_check.sh "$d/unmarked" "$jl" > "$d/unmarked.out" &&
	   [ "$(wc -l < "$d/unmarked.out")" = 4 ]; then
		ktap_test_pass "the same WARNs without the marks fail"
	else
		sed 's/^/# /' "$d/unmarked.out"; ktap_test_fail "the same WARNs without the marks fail"
	fi
	if ! bash tools/vm/console_check.sh "$d/others" "$jl" > "$d/others.out" &&
	   [ "$(cut -c1-9 "$d/others.out" | tr "\n" " ")" = "[    3.3] [    3.4] [    5.0] " ]; then
		ktap_test_pass "another task's, another line's or a later WARN of jump_label fails"
	else
		sed 's/^/# /' "$d/others.out"; ktap_test_fail "another task's, another line's or a later WARN of jump_label fails"
	fi
	if ! bash tools/vm/console_check.sh "$d/marked" /nonexistent > "$d/nosrc.out" &&
	   [ "$(wc -l < "$d/nosrc.out")" = 4 ]; then
		ktap_test_pass "without the kernel's source no WARN passes"
	else
		sed 's/^/# /' "$d/nosrc.out"; ktap_test_fail "without the kernel's source no WARN passes"
	fi
	# --report: the first problem, to the end of its trace, and no further.
	printf '%s\n' "[    1.0] zswb-vm: running /run.sh" \
		"[  246.9] INFO: task thrash:207 blocked for more than 122 seconds." \
		"[  246.9] task:thrash state:D stack:0 pid:207" "[  246.9] Call Trace:" "[  246.9]  <TASK>" \
		"[  246.9]  schedule+0x1/0x2" "[  246.9]  </TASK>" "[  247.0] ok 1 a test" \
		"[  369.8] INFO: task thrash:207 blocked for more than 245 seconds." > "$d/hung"
	if ! bash tools/vm/console_check.sh --report "$d/hung" "$jl" > "$d/hung.out" &&
	   sed -n 2,7p "$d/hung" | cmp -s - "$d/hung.out"; then
		ktap_test_pass "--report prints the first problem to the end of its trace"
	else
		sed 's/^/# /' "$d/hung.out"; ktap_test_fail "--report prints the first problem to the end of its trace"
	fi
}

suite_console_check
