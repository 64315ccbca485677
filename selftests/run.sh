#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole zswap_wb test suite (what 'make check' runs): host checks, then
# the VM tests, one VM boot per group. Prints KTAP, each suite as a subtest
# with its own results indented, and ends with "N passed, N failed, N skipped"
# counted over every leaf test. Exit status 0 only if none failed.
#
#   selftests/run.sh [SUITE...]     default: every suite, in order
#
# The host suites run first, one after the other; the VM suites (the
# groups of selftests/zswap_wb, found from their settings files) then in
# ZSWB_CHECK_JOBS lanes (below), each suite printed in order when all are
# done, with a "# lane N: SUITE" line as each starts and ends.
set -u
# zswbctl fits its text to COLUMNS (zswbctl(8)): the suites compare its
# text as a pipe reads it, whatever terminal make check was started from.
unset COLUMNS
. "$(dirname "$0")/../tools/kernel/common.sh"
# What the host suites use beyond the kernel build (sparse for C=2, dkms,
# checkpatch's perl, the patch check's apt tools); the VM runner installs QEMU.
zswb_need sparse dkms perl git patch xz-utils gcc libc6-dev make tar python3
zswb_dirs || exit 1
cd "$ZSWB_TOP" || exit 1

HOST="build-warnings build-configs hot-paths checkpatch zswbctl zswbctl-ab zswbctl-help zswbctl-completion zswbctl-stat zswbctl-calibrate zswbctl-ranksum zswbctl-fleet patch-versions dkms arch deb bench-args console-check"

# The VM groups are found from the tree: each directory of
# selftests/zswap_wb with a settings file, which holds, one KEY=VALUE a
# line, kselftest's timeout= and this project's keys beside it:
#   timeout=SECONDS     the VM's timeout (ZSWB_VM_TIMEOUT overrides it)
#   smp=N mem=MIB       the VM's CPUs and memory (default 2 and 2048)
#   append=ARGS         on the guest kernel's command line
#   variants=A B ...    a suite per argument, vm-GROUP-A ..., each given
#                       to the group's tests as "$1"
#   debug=no            not run on the debug kernel (make check-debug)
#   suite=no            not a suite: another one boots it (dkms)
# A group is its directory: make check finds it, with no list to edit.

# setting GROUP KEY: the value of KEY in GROUP's settings (the last), or nothing.
setting() {
	sed -n "s/^$2=//p" "selftests/zswap_wb/$1/settings" 2>/dev/null | tail -n 1
}

# VM_GROUP[SUITE]: the group and argument of each VM suite; VM_ALL, their names.
declare -A VM_GROUP
VM_ALL=""
for f in selftests/zswap_wb/*/settings; do
	g=$(basename "$(dirname "$f")")
	[ "$(setting "$g" suite)" = no ] && continue
	[ "${ZSWB_FLAVOUR:-}" = debug ] && [ "$(setting "$g" debug)" = no ] && continue
	v=$(setting "$g" variants)
	if [ -z "$v" ]; then
		VM_GROUP[vm-$g]=$g
		VM_ALL="$VM_ALL vm-$g"
	fi
	for a in $v; do
		VM_GROUP[vm-$g-$a]="$g $a"
		VM_ALL="$VM_ALL vm-$g-$a"
	done
done
ALL="$HOST$VM_ALL"
# "vm" stands for every VM suite (make check-debug).
suites=$(for s in ${*:-$ALL}; do [ "$s" = vm ] && echo $VM_ALL || echo "$s"; done)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Each suite runs in a subshell with the KTAP counters of its own.

# W=1 and sparse (C=2) over the module sources: any warning fails.
suite_build_warnings() {
	ktap_print_header
	ktap_set_plan 2
	# Only module/: a clean of the whole tree also deletes the test modules.
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP/module" clean >/dev/null 2>&1
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP" W=1 modules > "$out/w1.log" 2>&1
	if [ $? = 0 ] && ! grep -q "warning:" "$out/w1.log"; then
		ktap_test_pass "module builds with W=1, no warning"
	else
		sed 's/^/# /' "$out/w1.log"; ktap_test_fail "module builds with W=1, no warning"
	fi
	make -s -C "$ZSWB_OBJ" M="$ZSWB_TOP" C=2 modules > "$out/sparse.log" 2>&1
	if [ $? = 0 ] && ! grep -q "warning:\|error:" "$out/sparse.log"; then
		ktap_test_pass "module passes sparse (C=2), no warning"
	else
		sed 's/^/# /' "$out/sparse.log"; ktap_test_fail "module passes sparse (C=2), no warning"
	fi
}

# config_tree NAME OPTION [SELECTOR...]: a tree of the test kernel's
# config with OPTION off (and the SELECTORs, options of the test config
# that select it), beside the test kernel's ($ZSWB_CACHE/NAME-build-*),
# prepared for modules (modules_prepare only); its path on stdout, its log
# in $out/NAME.log. Fails if olddefconfig turned OPTION on again (y or m).
config_tree() {
	local name=$1 opt=$2 obj o
	shift 2
	obj=$(dirname "$ZSWB_OBJ")/$name-$(basename "$ZSWB_OBJ")
	mkdir -p "$obj"
	cp "$ZSWB_OBJ/.config" "$obj/.config.new"
	for o in "$opt" "$@"; do
		"$ZSWB_SRC/scripts/config" --file "$obj/.config.new" -d "$o"
	done
	cmp -s "$obj/.config.new" "$obj/.config.base" || {
		cp "$obj/.config.new" "$obj/.config"
		cp "$obj/.config.new" "$obj/.config.base"
	}
	echo "$obj"
	make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" olddefconfig > "$out/$name.log" 2>&1 &&
		! grep -q "^CONFIG_$opt=[ym]" "$obj/.config" &&
		make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" modules_prepare \
			>> "$out/$name.log" 2>&1
}

# config_module NAME TREE DESC: the module with W=1 against TREE, in a copy
# of its sources of its own ($out/NAME-module), and then, since modpost
# cannot tell a missing kernel symbol there (no vmlinux, so no
# Module.symvers), that nothing of scopes is in it and none of the
# module's own symbols is undefined: two tests.
config_module() {
	local name=$1 obj=$2 desc=$3 m=$out/$1-module
	mkdir -p "$m"
	cp -r Kbuild module "$m/"
	rm -f "$m"/module/*.o "$m"/module/*.ko "$m"/module/.*.cmd
	make -s -C "$obj" M="$m" CC="ccache gcc" W=1 KBUILD_MODPOST_WARN=1 modules > "$out/$name-m.log" 2>&1
	if [ $? = 0 ] && [ -f "$m/module/zswap_wb.ko" ] && ! grep -q "warning:\|error:" "$out/$name-m.log"; then
		ktap_test_pass "the module builds with $desc, W=1, no warning"
	else
		sed 's/^/# /' "$out/$name-m.log" | tail -30
		ktap_test_fail "the module builds with $desc, W=1, no warning"
	fi
	if [ -f "$m/module/zswap_wb.ko" ] &&
	   ! nm "$m/module/zswap_wb.ko" | grep -q "configfs_\|zswb_scope_of\|zswb_scope_srcu\|mem_cgroup_from_task" &&
	   ! nm -u "$m/module/zswap_wb.ko" | grep " zswb_"; then
		ktap_test_pass "with $desc the module has no scopes and leaves none of its symbols undefined"
	else
		ktap_test_fail "with $desc the module has no scopes and leaves none of its symbols undefined"
	fi
}

# The hook and the module build on a kernel without the memory controller
# (CONFIG_MEMCG=n; the test kernel's config otherwise): the hook's files
# with W=1 in a tree of their own, the module with W=1 against it, without
# scopes; and the module on a kernel without configfs (CONFIG_CONFIGFS_FS=n,
# where the scopes live), also without them. modpost's unresolved-symbol
# warnings are expected: those trees have no vmlinux.
ZSWB_HOOK_OBJS="mm/zswap.o mm/vmscan.o mm/page_io.o mm/swap_state.o mm/memory.o mm/swapfile.o"
suite_build_configs() {
	local obj
	export CCACHE_DIR=${CCACHE_DIR:-$ZSWB_CACHE/ccache}
	ktap_print_header
	ktap_set_plan 6
	if obj=$(config_tree nomemcg MEMCG) &&
	   make -s -C "$ZSWB_SRC" O="$obj" CC="ccache gcc" -j"$ZSWB_JOBS" W=1 $ZSWB_HOOK_OBJS \
		>> "$out/nomemcg.log" 2>&1 && ! grep -q "warning:" "$out/nomemcg.log"; then
		ktap_test_pass "the hook's files build with CONFIG_MEMCG=n, W=1, no warning"
	else
		sed 's/^/# /' "$out/nomemcg.log" | tail -30
		ktap_test_fail "the hook's files build with CONFIG_MEMCG=n, W=1, no warning"
	fi
	config_module nomemcg "$obj" CONFIG_MEMCG=n
	# null_blk (the test config's, for the slow-device tests) selects configfs.
	if obj=$(config_tree noconfigfs CONFIGFS_FS BLK_DEV_NULL_BLK) &&
	   ! grep -q "warning:" "$out/noconfigfs.log"; then
		ktap_test_pass "a kernel tree with CONFIG_CONFIGFS_FS=n prepares for modules"
	else
		sed 's/^/# /' "$out/noconfigfs.log" | tail -30
		ktap_test_fail "a kernel tree with CONFIG_CONFIGFS_FS=n prepares for modules"
	fi
	config_module noconfigfs "$obj" CONFIG_CONFIGFS_FS=n
}

# The hot paths write no shared global with a locked instruction: every
# counter and gauge is per CPU (this_cpu ops carry no lock prefix). A lock
# prefix (or xchg, locked implicitly) on a %rip-relative operand is an
# atomic on a global of the module or the kernel; the ones left work on
# the folio being handled or on a per-CPU llist head. Read off the built
# module and vmlinux (design.rst, "Per CPU").
ZSWB_HOT_MODULE="zswb_writeback_end zswb_writeback_prepare zswb_writeback_issued zswb_alloc_off_lru zswb_queue zswb_finish zswb_drain zswb_free_workfn zswb_shrink_memcg zswb_walk zswb_readahead_skip"
ZSWB_HOT_KERNEL="__zswap_wb_end_writeback __zswap_wb_readahead_skip folio_end_writeback"
hot_locked_globals() {
	local obj=$1 fn
	shift
	for fn in "$@"; do
		objdump -d --no-show-raw-insn --disassemble="$fn" "$obj" 2>/dev/null |
			grep -E "^ +[0-9a-f]+:" | grep -E "(lock |xchg ).*\(%rip\)" | sed "s/^/$fn: /"
	done
}
suite_hot_paths() {
	local ko=$ZSWB_TOP/module/zswap_wb.ko found fn
	ktap_print_header
	ktap_set_plan 2
	found=0
	for fn in $ZSWB_HOT_MODULE; do
		objdump -d --disassemble="$fn" "$ko" 2>/dev/null | grep -q "<$fn>:" && found=$((found + 1))
	done
	hot_locked_globals "$ko" $ZSWB_HOT_MODULE > "$out/hot.log"
	if [ "$found" -ge 5 ] && [ ! -s "$out/hot.log" ]; then
		ktap_test_pass "module hot paths: no locked instruction on a global ($found functions)"
	else
		sed 's/^/# /' "$out/hot.log"
		ktap_test_fail "module hot paths: no locked instruction on a global ($found functions)"
	fi
	hot_locked_globals "$ZSWB_OBJ/vmlinux" $ZSWB_HOT_KERNEL > "$out/hotk.log"
	if [ -f "$ZSWB_OBJ/vmlinux" ] && [ ! -s "$out/hotk.log" ]; then
		ktap_test_pass "hook hot paths in vmlinux: no locked instruction on a global"
	else
		sed 's/^/# /' "$out/hotk.log"
		ktap_test_fail "hook hot paths in vmlinux: no locked instruction on a global"
	fi
}

# doc_names DOC: the statistics, parameters and policy choices DOC lists,
# as "stat NAME", "param NAME" and "choice PARAM NAME" lines. In
# zswap_wb.rst the parameters are the section titles of "Interface: Module
# Parameters", with their choices the items "- ``name``: ..." of their
# section, and the statistics the terms of the list of "Interface:
# Statistics" (a term can name several); in zswbctl.8 the parameters are
# the tags of its "Parameters" subsection, with their choices the names of
# the .BR line after "one of".
doc_names() {
	case $1 in
	*.rst) awk '
		/^=+$/ { sec = prev }
		/^-+$/ && sec == "Interface: Module Parameters" && prev ~ /^``[a-z0-9_]+``$/ {
			param = prev; gsub(/`/, "", param); print "param", param }
		/^- ``[a-z0-9_]+``:/ && sec == "Interface: Module Parameters" && param {
			split($0, t, "``"); print "choice", param, t[2] }
		/^ +[^ ]/ && sec == "Interface: Statistics" && prev ~ /^``/ {
			n = split(prev, t, "``")
			for (i = 2; i <= n; i += 2) print "stat", t[i] }
		{ prev = $0 }' "$1" ;;
	*.8) awk '
		/^\.S[SH] / { sec = $0 }
		sec == ".SS Parameters" && tp && /^\.B [a-z0-9_]+$/ { param = $2; print "param", param }
		sec == ".SS Parameters" && /^\.BR / && prev ~ /one of$/ {
			line = $0; sub(/^\.BR /, "", line); gsub(/"[^"]*"/, " ", line)
			n = split(line, t, " ")
			for (i = 1; i <= n; i++) if (t[i] != ".") print "choice", param, t[i] }
		{ tp = ($0 == ".TP"); prev = $0 }' "$1" ;;
	esac | sort -u
}

# The module's statistics, parameters and policy choices, the schema its
# sources describe (selftests/module_schema.sh), against what the documents list:
# each name in both, none in a document only; and each counter's and
# gauge's help in the words of zswap_wb.rst (zswbctl prints it as the
# module gives it).
check_doc_names() {
	local rst=Documentation/zswap_wb.rst man=tools/zswbctl/zswbctl.8 doc words h ok
	if ! bash selftests/module_schema.sh > "$out/schema" 2> "$out/names.err"; then
		sed 's/^/# /' "$out/names.err"
		ktap_test_fail "selftests/module_schema.sh prints the module's schema"
		return
	fi
	awk -F'\t' '{ print $1, $2 }
		$1 == "param" && $3 == "choice" { n = split($4, c, " "); for (i = 1; i <= n; i++) print "choice", $2, c[i] }' \
		"$out/schema" | sort -u > "$out/names.module"
	for doc in "$rst" "$man"; do
		doc_names "$doc" > "$out/names.doc"
		# zswbctl.8 lists the parameters and choices: the statistics are the guide's.
		[ "$doc" = "$man" ] && grep -v '^stat ' "$out/names.module" > "$out/names.want" ||
			cp "$out/names.module" "$out/names.want"
		comm -3 "$out/names.want" "$out/names.doc" > "$out/names.diff"
		if [ -s "$out/names.doc" ] && [ ! -s "$out/names.diff" ]; then
			ktap_test_pass "$doc lists every module $([ "$doc" = "$man" ] || echo "statistic, ")parameter and choice, and no other"
		else
			sed 's/^\t\(.*\)$/# in the document only: \1/; t; s/^/# in the module only: /' \
				"$out/names.diff"
			ktap_test_fail "$doc lists every module $([ "$doc" = "$man" ] || echo "statistic, ")parameter and choice, and no other"
		fi
	done
	words=$(tr -d '`' < "$rst" | tr -s ' \n' '  ')
	ok=0
	while IFS=$'\t' read -r h; do
		[[ $words == *"${h%.}"* ]] || { echo "# not in $rst: $h"; ok=1; }
	done < <(awk -F'\t' '$1 == "stat" && $4 == "-" && $2 !~ /<N>/ { print $5 }' "$out/schema")
	if [ "$ok" = 0 ]; then
		ktap_test_pass "the help of each counter and gauge is in the words of $rst"
	else
		ktap_test_fail "the help of each counter and gauge is in the words of $rst"
	fi
}

suite_checkpatch() {
	local cp=$ZSWB_SRC/scripts/checkpatch.pl p
	ktap_print_header
	ktap_set_plan $(( $(ls patches/6.12/*.patch | wc -l) + 5 ))
	for p in patches/6.12/*.patch; do
		# On stdin: checkpatch checks a git-tracked file as source, not as a patch.
		if perl "$cp" --strict --no-tree -q - < "$p" > "$out/cp.log" 2>&1 && [ ! -s "$out/cp.log" ]; then
			ktap_test_pass "checkpatch --strict $(basename "$p")"
		else
			sed 's/^/# /' "$out/cp.log"; ktap_test_fail "checkpatch --strict $(basename "$p")"
		fi
	done
	# params.c declares a module parameter per row of zswap_wb_params.h
	# with a macro of two declarations, each ended with its semicolon, as
	# DAMON's modules-common.h does: the two checks of that shape are off
	# there, and only there.
	if perl "$cp" --strict --no-tree -q -f $(git ls-files "module/*.[ch]" "selftests/zswap_wb/modules/*.c" |
		grep -v '^module/params\.c$') > "$out/cpf.log" 2>&1 &&
	   perl "$cp" --strict --no-tree -q --ignore TRAILING_SEMICOLON,MACRO_ARG_REUSE \
		-f module/params.c >> "$out/cpf.log" 2>&1; then
		ktap_test_pass "checkpatch --strict -f on the module sources"
	else
		sed 's/^/# /' "$out/cpf.log"; ktap_test_fail "checkpatch --strict -f on the module sources"
	fi
	# Only what the series documents: the rest of mm/ has warnings of its own.
	(cd "$ZSWB_SRC" && perl scripts/kernel-doc -none -Wall include/linux/zswap.h mm/zswap.c mm/vmscan.c) 2>&1 |
		grep -E "zswap\.h|zswap_wb_|zswap_entry_present|zswap_shrink_node" > "$out/kd.log"
	if [ -s "$out/kd.log" ]; then
		sed 's/^/# /' "$out/kd.log"; ktap_test_fail "kernel-doc -Wall on the hook"
	else
		ktap_test_pass "kernel-doc -Wall on the hook"
	fi
	check_doc_names
}

suite_zswbctl() { bash selftests/zswbctl/test.sh; }
suite_zswbctl_ab() { bash selftests/zswbctl/ab_test.sh; }
# Every command's --help, bad usage, --json errors, --version.
suite_zswbctl_help() { bash selftests/zswbctl/help_test.sh; }
# The bash completion, and the text fitted to the terminal's width.
suite_zswbctl_completion() { bash selftests/zswbctl/completion_test.sh; }

# c_test NAME ARGS...: build selftests/zswbctl/NAME.c with zswbctl ab's
# arithmetic and run it with ARGS; it prints its own KTAP.
c_test() {
	local name=$1
	shift
	if ! gcc -O2 -Wall -Wextra -Werror -Itools/zswbctl -o "$out/$name" \
		"selftests/zswbctl/$name.c" tools/zswbctl/ab_stat.c -lm >"$out/$name.log" 2>&1; then
		ktap_print_header
		ktap_set_plan 1
		sed 's/^/# /' "$out/$name.log"
		ktap_test_fail "$name builds"
		return
	fi
	"$out/$name" "$@"
}
# zswbctl ab's arithmetic against published tables and its definitions.
suite_zswbctl_stat() { c_test ab_stat_test selftests/zswbctl/ab_signrank_fixtures.txt; }
# zswbctl ab's verdicts on synthetic runs: false positives, power, coverage.
suite_zswbctl_calibrate() {
	make -s -C tools/zswbctl >"$out/calibrate-make.log" 2>&1 ||
		sed 's/^/# /' "$out/calibrate-make.log"
	c_test ab_calibrate tools/zswbctl/zswbctl "$out"
}
# zswbctl fleet's unpaired arithmetic (rank-sum): published tables, its
# definitions, and its calibration with a fixed seed.
suite_zswbctl_ranksum() { c_test ab_ranksum_test selftests/zswbctl/ab_ranksum_fixtures.txt; }
# zswbctl fleet against a real Prometheus, on a backfilled synthetic fleet.
suite_zswbctl_fleet() { bash selftests/zswbctl/fleet_test.sh; }
suite_patch_versions() { bash tools/kernel/check-versions.sh 2>/dev/null; }
suite_dkms() { bash selftests/dkms_test.sh; }
# Kbuild and dkms refuse a 32-bit kernel, without building one.
suite_arch() { bash selftests/arch_test.sh; }
suite_deb() { bash selftests/deb_test.sh; }

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

# bench_knobs_conf, bench_knobs_doc: "FILE NAME DEFAULT" for every knob of
# tools/bench/config/*.conf, as the files set them and as running.rst's
# tables (one per file, "Benchmark knobs") list them.
bench_knobs_conf() {
	awk 'FNR == 1 { f = FILENAME; sub(/.*\//, "", f) }
		/^ZSWB_/ {
			n = substr($0, 1, index($0, "=") - 1); p = n "=${" n ":-"
			if (index($0, p) != 1 || $0 !~ /}$/) { print f, n, "(not NAME=${NAME:-default})"; next }
			print f, n, substr($0, length(p) + 1, length($0) - length(p) - 1) }' tools/bench/config/*.conf
}
bench_knobs_doc() {
	awk '/^\.\. list-table::/ { f = ""; if (match($0, /config\/[a-z-]+\.conf/)) f = substr($0, RSTART + 7, RLENGTH - 7) }
		f != "" && /^   \* - ``ZSWB_/ {
			n = $0; gsub(/^   \* - ``|``$/, "", n)
			getline d; sub(/^     - /, "", d)
			if (d == "(empty)") d = ""; else gsub(/^``|``$/, "", d)
			print f, n, d }' Documentation/running.rst
}

# make bench refuses bad input before it builds or boots anything,
# running.rst lists its knobs as tools/bench/config sets them, and
# report.py draws the figures of results.rst from the committed JSON.
suite_bench_args() {
	local msg v f bad=""
	ktap_print_header
	ktap_set_plan 9
	msg=$(bash tools/bench/run.sh prompt-free nosuch 2>&1)
	# Names are checked before the first benchmark boots its VM.
	if [ $? = 1 ] && [[ $msg == *"unknown benchmark 'nosuch'"* ]] &&
	   [[ $msg != *"accel tcg"* ]]; then
		ktap_test_pass "an unknown benchmark name is refused"
	else
		echo "$msg" | sed 's/^/# /'; ktap_test_fail "an unknown benchmark name is refused"
	fi
	for v in x 0; do
		msg=$(ZSWB_BENCH_JOBS=$v bash tools/bench/run.sh store 2>&1)
		if [ $? = 1 ] && [[ $msg == *"ZSWB_BENCH_JOBS must be a positive number, not '$v'"* ]]; then
			ktap_test_pass "ZSWB_BENCH_JOBS=$v is refused"
		else
			echo "$msg" | sed 's/^/# /'; ktap_test_fail "ZSWB_BENCH_JOBS=$v is refused"
		fi
	done
	bench_apps_plan
	# The files in any order, the knobs of each in the file's order.
	bench_knobs_conf | sort -s -k1,1 > "$out/knobs.conf"
	bench_knobs_doc | sort -s -k1,1 > "$out/knobs.doc"
	if [ -s "$out/knobs.conf" ] && diff "$out/knobs.conf" "$out/knobs.doc" > "$out/knobs.diff"; then
		ktap_test_pass "running.rst lists the $(wc -l < "$out/knobs.conf") benchmark knobs with their defaults"
	else
		sed 's/^/# /' "$out/knobs.diff"
		ktap_test_fail "running.rst lists the benchmark knobs with their defaults"
	fi
	# Every figure results.rst includes, drawn again from bench-results/
	# into a directory of its own, as a well-formed SVG.
	zswb_need python3-matplotlib
	msg=$(/usr/bin/python3 tools/bench/report.py figures bench-results "$out/figures" 2>&1) || bad=" report.py failed"
	for f in $(sed -n 's/^\.\. \(image\|figure\):: figures\///p' Documentation/results.rst); do
		/usr/bin/python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$out/figures/$f" 2>/dev/null ||
			bad="$bad $f"
	done
	if [ -z "$bad" ] && grep -q "^\.\. \(image\|figure\):: figures/" Documentation/results.rst; then
		ktap_test_pass "report.py draws every figure of results.rst from bench-results/"
	else
		echo "$msg" | sed 's/^/# /'
		ktap_test_fail "report.py draws every figure of results.rst from bench-results/ (missing or broken:$bad)"
	fi
	bench_apps_report
	bench_ab_report
}

# report.py reports a make bench comparison as it reports apps: a store
# log as the guest prints it, stock (A) against per_node (B), 6 pairs
# (A B, B A, ...) after a warm-up and an A/A pair: per_node's store p99
# twice stock's in every pair (the primary metric, p 2/2^6), its rejected
# share a tenth. The CSV is kept beside the JSON as store-disk.csv, the
# JSON keyed by the swap kind (the group is the benchmark's own) and by
# ab's metric names.
bench_ab_report() {
	local d=$out/ab-report p s i=3 desc="report.py store: a make bench comparison from zswbctl ab's CSV"
	mkdir -p "$d"
	{
		echo "ABSIDES store disk A=stock B=per_node"
		echo "# store: a line of the guest's"
		{
			printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.store_p99_us,cmd.rejected_pct" \
				'0,warmup,0,A,"shrink_policy=stock",0,30,20000,20' \
				'1,aa,0,A,"shrink_policy=stock",0,29,21000,21' \
				'2,aa,0,A,"shrink_policy=stock",0,29,20500,20'
			for p in 1 2 3 4 5 6; do
				for s in $([ $((p % 2)) = 1 ] && echo A B || echo B A); do
					case $s in
					A) echo "$i,pair,$p,A,\"shrink_policy=stock\",0,29,$((20000 + 100 * p)),20" ;;
					B) echo "$i,pair,$p,B,\"shrink_policy=per_node\",0,22,$((40000 + 200 * p)),2" ;;
					esac
					i=$((i + 1))
				done
			done
		} | sed 's/^/ABCSV store disk /'
	} | sed 's/$/\r/' > "$d/store.log"
	if python3 tools/bench/report.py store "$d/store.log" "$d/store.json" > "$d/out" 2>&1 &&
	   grep -q '^\[disk\] per_node against stock (disk swap), zswbctl ab: medians of 6 and 6 runs' "$d/out" &&
	   grep -q 'adjusted but for cmd.store_p99_us, the primary metric$' "$d/out" &&
	   grep -q '^  cmd.store_p99_us  .* +100\.0% \[+[0-9.]*%, +[0-9.]*%\]  *0\.031  differs$' "$d/out" &&
	   grep -q '^  cmd.rejected_pct  .* -90\.0% \[-90\.0%, -90\.0%\]  .*differs$' "$d/out" &&
	   [ "$(head -1 "$d/store-disk.csv")" = "run,kind,pair,side,settings,exit,wall_s,cmd.store_p99_us,cmd.rejected_pct" ] &&
	   [ "$(wc -l < "$d/store-disk.csv")" = 16 ] &&
	   python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
b = j["disk"]["per_node"]
sys.exit(not (list(j) == ["disk"] and b["against"] == "stock" and b["primary"] == "cmd.store_p99_us"
              and b["cmd.store_p99_us_differs"] is True and b["iterations"] == 6
              and abs(b["cmd.store_p99_us_p"] - 2 / 2 ** 6) < 1e-9
              and len(b["runs"]["cmd.store_p99_us"]) == 6))' "$d/store.json"; then
		ktap_test_pass "$desc"
	else
		sed 's/^/# /' "$d/out"
		ktap_test_fail "$desc"
	fi
}

# bench-apps splits its comparisons over two VMs, longest first, each to
# the VM with less work (as tools/bench/apps/run.sh's work() counts it:
# 3 runs, then a pair's: each side after A and an A run beside every two
# of them: 8 for the six sides on disk, 2 on zram), and over one with
# ZSWB_BENCH_JOBS=1; a comparison it does
# not know is refused before anything is built.
bench_apps_plan() {
	local p1 p2 p3 desc="bench-apps: the comparisons split over two VMs, one with ZSWB_BENCH_JOBS=1"
	p1=$(ZSWB_BENCH_JOBS=2 ZSWB_APPS_ROUNDS=2 bash tools/bench/apps/run.sh --plan 2>&1)
	p2=$(ZSWB_BENCH_JOBS=1 ZSWB_APPS_ROUNDS=2 bash tools/bench/apps/run.sh --plan redis:zram build 2>&1)
	if [ "$p1" = "vm1: redis:disk redis:zram mariadb:zram (1478 s)
vm2: mariadb:disk build:disk build:zram (1694 s)" ] &&
	   [ "$p2" = "vm1: redis:zram build:disk build:zram (1173 s)" ]; then
		ktap_test_pass "$desc"
	else
		printf '%s\n' "$p1" "$p2" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
	desc="bench-apps: an unknown comparison is refused before the image is built"
	p3=$(bash tools/bench/apps/run.sh build:nvme 2>&1)
	if [ $? = 1 ] && [[ $p3 == *"unknown comparison 'build:nvme'"* ]] && [[ $p3 != *image* ]]; then
		ktap_test_pass "$desc"
	else
		printf '%s\n' "$p3" | sed 's/^/# /'
		ktap_test_fail "$desc"
	fi
}

# report.py apps takes its table from zswbctl ab: a log as the guest
# prints it (serial console line ends), two comparisons. build on disk,
# three sides, 8 pairs (A B C A, then A C B A): async_free's build_s 20%
# lower in every pair, and pgrotated 0 against 500 (no ratio: ab's
# relative change, -100% exactly); per_node's build_s 1% above and below
# in turn. build_s is the primary metric (B's), p 2/2^8; pgrotated is
# secondary, p adjusted to 2/2^8 x 2 (two secondary metrics vary). redis
# on zram: 2 pairs, too few to judge.
bench_apps_report() {
	local d=$out/apps-report desc="report.py apps: the table, JSON and CSV from zswbctl ab's report"
	local p s i=2
	mkdir -p "$d"
	{
		# A comparison of the other VM first: the table orders them.
		echo "ABSIDES redis zram A=zram-stock B=zram-sync_free"
		printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.rps" \
			'0,aa,0,A,"sync_free=N",0,9,1000' '1,aa,0,A,"sync_free=N",0,9,1010' \
			'2,pair,1,A,"sync_free=N",0,9,1000' '3,pair,1,B,"sync_free=Y",0,9,1100' \
			'4,pair,2,B,"sync_free=Y",0,9,1110' '5,pair,2,A,"sync_free=N",0,9,1000' |
			sed 's/^/ABCSV redis zram /'
		echo "ABSIDES build disk A=stock B=async_free C=per_node"
		{
			printf '%s\n' "run,kind,pair,side,settings,exit,wall_s,cmd.build_s,cmd.pgrotated" \
				'0,aa,0,A,"async_free=N",0,9,100,500' '1,aa,0,A,"async_free=N",0,9,102,500'
			for p in 1 2 3 4 5 6 7 8; do
				for s in $([ $((p % 2)) = 1 ] && echo A B C A || echo A C B A); do
					case $s in
					A) echo "$i,pair,$p,A,\"async_free=N\",0,9,100,500" ;;
					B) echo "$i,pair,$p,B,\"async_free=Y\",0,9,$((81 - p % 2)),0" ;;
					C) echo "$i,pair,$p,C,\"shrink_policy=per_node\",0,9,$((99 + 2 * (p % 2))),500" ;;
					esac
					i=$((i + 1))
				done
			done
		} | sed 's/^/ABCSV build disk /'
		echo "# not a comparison"
	} | sed 's/$/\r/' > "$d/apps.log"
	if python3 tools/bench/report.py apps "$d/apps.log" "$d/apps.json" > "$d/out" 2>&1 &&
	   grep -q '^  build_s  *100  *80\.50  *-19\.[0-9]% \[-20\.0%, -19\.0%\]  *0\.0078  differs$' "$d/out" &&
	   grep -q '^  pgrotated  *500  *0\.00  *-100\.0% \[-100\.0%, -100\.0%\]  *0\.016  differs$' "$d/out" &&
	   grep -q '^\[build\] async_free against stock .*adjusted but for build_s, the primary metric$' "$d/out" &&
	   grep -q '^  build_s  *100  *100  *[-+]0\.0% \[-1\.0%, +1\.0%\]  *0\.[0-9]*  none detected$' "$d/out" &&
	   grep -q '^  pgrotated  *500  *500  *+0\.0% \[+0\.0%, +0\.0%\]  *-  the same$' "$d/out" &&
	   grep -q '^  rps  *1,000  *1,105  *+[0-9.]*% \[-\]  *[0-9.]*  too few pairs$' "$d/out" &&
	   grep -q '^\[build\] per_node against stock (disk swap), zswbctl ab: medians of 8 and 16 runs' "$d/out" &&
	   [ "$(grep -o '^\[[a-z]*\]' "$d/out" | uniq | tr -d '[]' | tr '\n' ' ')" = "build redis " ] &&
	   ! grep -qi 'noise\|outside' "$d/out" &&
	   python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
s, b, c = j["build"]["stock"], j["build"]["async_free"], j["build"]["per_node"]
r = j["redis"]["zram-sync_free"]
near = lambda x, y: x is not None and abs(x - y) < 1e-9
ok = (s["build_s"] == 100 and s["runs"]["build_s"][:3] == [100, 102, 100]
      and len(s["runs"]["build_s"]) == 18 and "wall_s" not in s
      and not any(k.endswith(("_noise_pct", "_aa_spread_pct", "_paired_ratio")) for k in s)
      and b["build_s_differs"] is True and b["pgrotated_differs"] is True and b["iterations"] == 8
      and -20 < b["build_s_change_pct"] < -19 and near(b["build_s_ci_pct"][0], -20) and near(b["build_s_ci_pct"][1], -19)
      and near(b["build_s_p"], 2 / 2 ** 8) and near(b["pgrotated_p"], 2 / 2 ** 8 * 2)
      and b["primary"] == "build_s" and "primary" not in c
      and b["pgrotated_change_pct"] == -100 and "pgrotated_difference" not in b
      and b["verdicts"]["build_s"].startswith("B is 19.")
      and c["build_s_differs"] is False and c["build_s_p"] > 0.05
      and r["rps_differs"] is None and r["verdicts"]["rps"].startswith("too few pairs"))
sys.exit(not ok)' "$d/apps.json" &&
	   grep -q '^3,pair,1,B,"async_free=Y",0,9,80,0$' "$d/apps-build-disk.csv"; then
		ktap_test_pass "$desc"
	else
		sed 's/^/# /' "$d/out"
		ktap_test_fail "$desc"
	fi
}

# vm_timeout GROUP: the VM's timeout for GROUP, ZSWB_VM_TIMEOUT or the
# timeout= of the group's settings file (as kselftest's), 1200 s without.
vm_timeout() {
	local t
	t=$(setting "$1" timeout)
	case "$t" in ''|*[!0-9]*) t=1200 ;; esac
	echo "${ZSWB_VM_TIMEOUT:-$t}"
}

# vm_group GROUP [ARG...]: the group's tests in one VM boot
# (selftests/zswap_wb/run_group.sh), their KTAP; the VM as its settings say.
vm_group() {
	# One log per group and argument: the prompt groups run side by side.
	local log=$out/vm-$(echo "$*" | tr ' ' '-').log envs smp mem
	# The workload sizes (ZSWB_TEST_*) go to the guest's environment.
	envs=$(env | grep -E '^ZSWB_TEST_[A-Z_]+=[0-9A-Za-z]+$' | tr '\n' ' ')
	smp=$(setting "$1" smp) mem=$(setting "$1" mem)
	bash tools/vm/run.sh --timeout "$(vm_timeout "$1")" --mem "${mem:-2048}" --smp "${smp:-2}" \
		--append "$(setting "$1" append)" --cmd "$envs/selftests/run_group.sh $*" > "$log" 2>&1
	local rc=$?
	# The guest's KTAP, then whatever the runner said about the kernel.
	grep -E "^(TAP version|1\.\.|ok |not ok |# |Bail out)" "$log"
	# 1: a test failed, and said so above. Anything else is the kernel or
	# the VM (99 splat, 98 no status, 124 timeout): that fails the group
	# even if every test passed.
	if [ $rc != 0 ] && [ $rc != 1 ]; then
		echo "# vm run failed ($rc); console tail:"
		grep -Ev "^(TAP version|1\.\.|ok |not ok )" "$log" | tail -25 | sed 's/^/# /'
		# And the kernel's first problem whole, trace and all.
		bash tools/vm/console_check.sh --report "$log" "$ZSWB_SRC/kernel/jump_label.c" |
			sed 's/^/# first problem: /'
		echo "not ok 99 kernel and VM ran clean"
	fi
}
# The VM suites' times as last measured on this machine, per kernel
# flavour, kept outside the tree ("SUITE SECONDS" lines): the lanes below
# take the longest first; a suite never measured counts as its timeout.
TIMES=$ZSWB_CACHE/check-seconds-${ZSWB_FLAVOUR:-test}

# run_suite SUITE: run it into $out/SUITE.tap (.err, .secs).
run_suite() {
	local start=$(date +%s)
	(KTAP_TESTNO=1 KTAP_CNT_PASS=0 KTAP_CNT_FAIL=0 KTAP_CNT_SKIP=0
	 case $1 in vm-*) vm_group ${VM_GROUP[$1]} ;; *) suite_${1//-/_} ;; esac) \
		> "$out/$1.tap" 2> "$out/$1.err"
	echo $(( $(date +%s) - start )) > "$out/$1.secs"
}

# times_save SUITE...: their times of this run into $TIMES.
times_save() {
	local s
	mkdir -p "$(dirname "$TIMES")"
	touch "$TIMES"
	for s in "$@"; do
		[ -f "$out/$s.secs" ] || continue
		{ grep -v "^$s " "$TIMES"; echo "$s $(cat "$out/$s.secs")"; } > "$TIMES.new"
		mv "$TIMES.new" "$TIMES"
	done
}

# report_suite SUITE: print its KTAP as a subtest and count its leaves.
report_suite() {
	local s=$1 p a f
	sed 's/^/    /' "$out/$s.tap"
	p=$(grep -cE "^ok [0-9]+ .*# SKIP" "$out/$s.tap")
	a=$(grep -cE "^ok [0-9]+" "$out/$s.tap")
	f=$(grep -cE "^not ok [0-9]+" "$out/$s.tap")
	skip=$((skip + p)) pass=$((pass + a - p)) fail=$((fail + f))
	ktap_print_msg "$s: $(cat "$out/$s.secs") s"
	if [ "$f" = 0 ] && [ "$a" -gt 0 ]; then
		ktap_test_pass "$s"
	else
		[ "$a" = 0 ] && [ "$f" = 0 ] && { fail=$((fail + 1)); sed 's/^/# /' "$out/$s.err" | tail -20; }
		ktap_test_fail "$s"
	fi
}

# vm_lane N: run VM suites from $out/queue, one at a time, until it is empty.
vm_lane() {
	local s
	while :; do
		s=$(flock "$out/queue.lock" sh -c 'head -n 1 "$1"; sed -i 1d "$1"' sh "$out/queue")
		[ -n "$s" ] || return 0
		echo "# lane $1: $s" >&2
		run_suite "$s"
		echo "# lane $1: $s done in $(cat "$out/$s.secs") s" >&2
	done
}

# ZSWB_CHECK_JOBS: how many VM suites run at once, each in its own VM (one
# per host core: the default is the host's cores, at most 2). Each VM
# suite compares its variants inside its own boot, so another VM's load
# falls on both sides of a comparison. 1: one after the other.
jobs=${ZSWB_CHECK_JOBS:-$(nproc)}
case "$jobs" in
''|*[!0-9]*|0) zswb_die "ZSWB_CHECK_JOBS must be a positive number, not '$jobs'" ;;
esac
[ "$jobs" -le 2 ] || jobs=2

for s in $suites; do
	if [ -z "${VM_GROUP[$s]:-}" ] && ! declare -F "suite_${s//-/_}" >/dev/null; then
		echo "run.sh: unknown suite '$s' (suites: $ALL, or vm for every VM suite)" >&2
		exit 64
	fi
done
host="" vm=""
for s in $suites; do
	case $s in vm-*) vm="$vm $s" ;; *) host="$host $s" ;; esac
done

. "$ZSWB_TOP/selftests/ktap.sh"
pass=0 fail=0 skip=0
ktap_print_header
ktap_set_plan "$(echo $suites | wc -w)"
# The host suites first, one after the other (they build: both cores).
for s in $host; do
	run_suite "$s"
	report_suite "$s"
done
if [ "$jobs" -gt 1 ] && [ "$(echo $vm | wc -w)" -gt 1 ]; then
	# Longest first, each to the first lane that is free; printed in order.
	for s in $vm; do
		t=$(sed -n "s/^$s //p" "$TIMES" 2>/dev/null)
		echo "${t:-$(vm_timeout ${VM_GROUP[$s]})} $s"
	done | sort -rn | cut -d' ' -f2 > "$out/queue"
	ktap_print_msg "VM suites in $jobs lanes:$vm"
	for l in $(seq "$jobs"); do
		vm_lane "$l" 2>&1 | sed -u 's/^\([^#]\)/# \1/' &
	done
	wait
	for s in $vm; do
		report_suite "$s"
	done
else
	for s in $vm; do
		run_suite "$s"
		report_suite "$s"
	done
fi
times_save $vm
# Counted over every leaf test of every suite, not over the suites.
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
