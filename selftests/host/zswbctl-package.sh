#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What zswbctl ships beside its binary, and its sources' style: the man
# page (man and groff report no warning, and do warn about a broken page;
# every section, command and exit status), make install (DESTDIR,
# PREFIX), checkpatch --strict on its own sources, json_writer.[ch] as
# the kernel's bpftool copy with each change marked; the man page and
# zswap_wb.rst on ab, zswbctl-plot and the scope label, and what make
# install and the packages ship of them. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 13

for lint in "man --warnings -E UTF-8 -l" "groff -man -ww -z"; do
	# shellcheck disable=SC2086 # split lint on purpose
	LC_ALL=C.UTF-8 MANWIDTH=80 $lint "$tool/zswbctl.8" >/dev/null 2>"$tmp/lint"
	rc=$?
	err=$(<"$tmp/lint")
	[ "$rc" = 0 ] && [ -z "$err" ]
	result "man page: ${lint%% *} reports no warning" $?
	sed 's/^\.SH EXIT STATUS$/.XX EXIT STATUS/' "$tool/zswbctl.8" >"$tmp/broken.8"
	# shellcheck disable=SC2086
	LC_ALL=C.UTF-8 MANWIDTH=80 $lint "$tmp/broken.8" 2>&1 >/dev/null | grep -q warning
	result "man page: ${lint%% *} warns about a broken page" $?
done
ok=0
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
	grep -qx "\\.SH $s" "$tool/zswbctl.8" || { diag "no section $s"; ok=1; }
done
for c in status get set stats diff prometheus reset unload; do
	grep -q "^\\.B[IR]* $c\\b" "$tool/zswbctl.8" || { diag "no command $c"; ok=1; }
done
for c in 0 1 2 3 4 5 6 64; do
	grep -qx "\\.B $c" "$tool/zswbctl.8" || { diag "no exit status $c"; ok=1; }
done
result "man page: the sections, every command, every exit status" $ok

make -s -C "$tool" install DESTDIR="$tmp/root" >"$tmp/build" 2>&1 &&
	[ "$(stat -c %a "$tmp/root/usr/sbin/zswbctl")" = 755 ] &&
	[ "$(stat -c %a "$tmp/root/usr/share/man/man8/zswbctl.8")" = 644 ] &&
	cmp -s "$tmp/root/usr/share/man/man8/zswbctl.8" "$tool/zswbctl.8" &&
	cmp -s "$tmp/root/usr/share/bash-completion/completions/zswbctl" \
		"$tool/zswbctl.bash-completion" &&
	"$tmp/root/usr/sbin/zswbctl" --version | grep -qx "zswbctl $version"
result "make install DESTDIR: sbin/zswbctl, the man page and the bash completion under /usr" $?
make -s -C "$tool" install DESTDIR="$tmp/root2" PREFIX=/usr/local >"$tmp/build" 2>&1 &&
	[ -x "$tmp/root2/usr/local/sbin/zswbctl" ] &&
	[ -f "$tmp/root2/usr/local/share/man/man8/zswbctl.8" ]
result "make install PREFIX=/usr/local" $?

# zswbctl's own sources; json_writer.[ch] are the kernel's bpftool's, in
# its style (checked against the kernel's copy instead).
own_srcs=()
for f in "$tool"/*.[ch]; do
	[[ $f == */json_writer.[ch] ]] || own_srcs+=("$f")
done
cp=$(compgen -G "$ZSWB_CACHE/linux-*/scripts/checkpatch.pl" | head -1)
if [ -n "$cp" ]; then
	perl "$cp" --strict --no-tree -q -f "${own_srcs[@]}" >"$tmp/cp.log" 2>&1
	rc=$?
	out=$(<"$tmp/cp.log")
	err=''
	[ "$rc" = 0 ] && [ -z "$out" ]
	result "checkpatch --strict -f on zswbctl's sources" $?
else
	skip "checkpatch --strict -f on zswbctl's sources" "no kernel source in $ZSWB_CACHE"
fi

# json_writer.[ch] are the kernel's bpftool copy: each change is marked.
kjw=$(compgen -G "$ZSWB_CACHE/linux-*/tools/bpf/bpftool/json_writer.c" | head -1)
if [ -n "$kjw" ]; then
	ok=0
	for f in json_writer.c json_writer.h; do
		diff -U0 "${kjw%/*}/$f" "$tool/$f" >"$tmp/jw.diff"
		"$py" -c 'import re, sys
hunks = re.split(r"^@@.*\n", open(sys.argv[1]).read(), flags=re.M)[1:]
sys.exit(0 if all(re.search(r"^\+.*zswbctl:", h, re.M) for h in hunks) else 1)' \
			"$tmp/jw.diff" || { diag "$f: a change to the kernel's copy not marked zswbctl:"; ok=1; }
	done
	result "json_writer.[ch]: the kernel's bpftool copy, each change marked zswbctl:" $ok
else
	skip "json_writer.[ch]: the kernel's bpftool copy, each change marked zswbctl:" \
		"no kernel source in $ZSWB_CACHE"
fi

# The documents say what ab, the plot and the scope label are; what
# make install and the packages ship of them.
man=$tool/zswbctl.8
grep -q "^\.SS A/B comparisons" "$man" && grep -q 'zswbctl\\-plot' "$man" && grep -q 'scope' "$man" &&
	grep -q 'from\\-csv' "$man" && grep -q 'concurrent' "$man"
result "zswbctl(8) documents ab, zswbctl-plot and the scope label" $?
grep -q '^A fleet A/B' "$top/Documentation/zswap_wb.rst" &&
	grep -q 'zswap_wb_scope:freed_per_written_back:ratio_rate5m' "$top/Documentation/zswap_wb.rst" &&
	grep -q 'zswap-wb-prometheus-rules' "$top/Documentation/zswap_wb.rst"
result "zswap_wb.rst has the fleet A/B section, naming the rules and their package" $?
man -l "$man" >/dev/null 2>"$tmp/man.err"
rc=$? out='' err=$(<"$tmp/man.err")
[ "$rc" = 0 ] && [ -z "$err" ]
result "zswbctl(8) renders without warnings" $?
grep -q 'zswbctl-plot' "$tool/Makefile" && grep -q 'zswap_wb.rules.yml' "$tool/Makefile" &&
	grep -q 'python3-matplotlib' "$top/debian/control"
result "make install ships zswbctl-plot and the rules; the package recommends matplotlib" $?

ktap_finished
