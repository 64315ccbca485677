#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prom.c: prometheus FILE, a node exporter textfile collector's file. It
# is replaced atomically (a hidden temporary in its directory, created
# exclusively, renamed over FILE: a reader never sees part of one), mode
# 644; a FILE refused (no directory, a directory, a trailing /, an
# unwritable directory) changes nothing and leaves no temporary; a module
# that cannot be read leaves FILE with zswap_wb_up 0 alone, the exit
# status saying why.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 26
module_schema

kernel=$(uname -r)
# What prometheus prints on stdout for the module's own tree.
fake_mod
zsw prometheus
printf '%s\n' "$out" >"$tmp/prom.stdout"

mkdir "$tmp/tf"
echo old >"$tmp/tf/zswap_wb.prom"
ino=$(stat -c %i "$tmp/tf/zswap_wb.prom")
t "prometheus FILE" 0 '' '' prometheus "$tmp/tf/zswap_wb.prom"
cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.stdout" &&
	[ "$(stat -c %a "$tmp/tf/zswap_wb.prom")" = 644 ] &&
	[ "$(stat -c %i "$tmp/tf/zswap_wb.prom")" != "$ino" ] &&
	[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
result "prometheus FILE: same text, mode 644, a new inode (renamed), no temporary left" $?
(cd "$tmp/tf" && "$bin" prometheus rel.prom) && cmp -s "$tmp/tf/rel.prom" "$tmp/prom.stdout"
result "prometheus FILE: relative name" $?
rm "$tmp/tf/rel.prom"

t "prometheus: no such directory" 1 '' \
	"zswbctl: cannot create a temporary file in $tmp/nodir: No such file or directory" \
	prometheus "$tmp/nodir/zswap_wb.prom"
[ ! -e "$tmp/nodir" ]
result "prometheus: no such directory, nothing created" $?
t "prometheus: FILE is a directory" 1 '' "zswbctl: cannot write $tmp/tf: Is a directory" \
	prometheus "$tmp/tf"
t "prometheus: FILE ends in /" 64 '' "zswbctl: '$tmp/tf/' is not a file name" \
	prometheus "$tmp/tf/"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] && ! compgen -G "$tmp/.tf.*" >/dev/null
result "prometheus: refused FILEs leave no temporary file" $?
cp "$tmp/tf/zswap_wb.prom" "$tmp/prom.before"
if chattr +i "$tmp/tf" 2>/dev/null; then
	at_exit chattr -i "$tmp/tf"
	t "prometheus: unwritable directory" 1 '' \
		"zswbctl: cannot create a temporary file in $tmp/tf: Operation not permitted" \
		prometheus "$tmp/tf/zswap_wb.prom"
	chattr -i "$tmp/tf"
	cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.before" && [ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
	result "prometheus: unwritable directory, FILE unchanged" $?
else
	skip "prometheus: unwritable directory" "chattr +i not supported here"
	skip "prometheus: unwritable directory, FILE unchanged" "chattr +i not supported here"
fi
rm "$d/free_latency_us"
t "prometheus: unreadable histogram" 1 '' \
	"zswbctl: cannot read $d/free_latency_us: No such file or directory" \
	prometheus "$tmp/tf/zswap_wb.prom"
printf '2 1\n4 x\n' >"$d/free_latency_us"
t "prometheus: malformed histogram" 1 '' \
	"zswbctl: $d/free_latency_us: unexpected line '4 x'" prometheus "$tmp/tf/zswap_wb.prom"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] && only_down "$tmp/tf/zswap_wb.prom"
result "prometheus: a module file that cannot be read, FILE holds zswap_wb_up 0 alone" $?

# A module gone leaves no series of it.
fake_mod
fake_hist "2 1" "4 2"
zsw prometheus "$tmp/tf/zswap_wb.prom"
grep -q '^zswap_wb_written_back_total ' "$tmp/tf/zswap_wb.prom"
result "prometheus FILE: the module's series, before it goes" $?
# gone DESC STATUS ERR ENV...: with ENV, a way the module cannot be read,
# FILE is replaced by zswap_wb_up 0 alone, renamed over the old one, no
# temporary left; the exit status is STATUS, stderr matches the glob ERR.
gone() {
	local desc=$1 want=$2 want_err=$3 ino

	shift 3
	fake_mod
	fake_hist "2 1" "4 2"
	"$bin" prometheus "$tmp/tf/zswap_wb.prom" 2>/dev/null
	ino=$(stat -c %i "$tmp/tf/zswap_wb.prom")
	env "$@" "$bin" prometheus "$tmp/tf/zswap_wb.prom" >"$tmp/out" 2>"$tmp/err"
	rc=$? out=$(<"$tmp/out") err=$(<"$tmp/err")
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $rc == "$want" && -z $out && $err == $want_err ]] &&
		only_down "$tmp/tf/zswap_wb.prom" &&
		[ "$(stat -c %a "$tmp/tf/zswap_wb.prom")" = 644 ] &&
		[ "$(stat -c %i "$tmp/tf/zswap_wb.prom")" != "$ino" ] &&
		[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ]
	result "prometheus FILE, $desc: zswap_wb_up 0 alone, exit $want" $?
}
gone "module not loaded" 2 "$nomod" ZSWB_SYSFS="$tmp/none"
echo "ffffffff81000000 T _stext" >"$tmp/nohook"
gone "no hook in the running kernel" 3 "zswbctl: zswap_wb cannot be loaded: *" \
	ZSWB_SYSFS="$tmp/none" ZSWB_KALLSYMS="$tmp/nohook"
gone "no debugfs" 4 "$nodbg" ZSWB_DEBUGFS="$tmp/none"
gone "no schema" 1 "zswbctl: cannot read $tmp/sys/parameters/schema: No such file or directory" \
	ZSWB_DEBUGFS="$tmp/sys/parameters"
mkdir -p "$tmp/nostats"
printf '%s\n' "$schema" >"$tmp/nostats/schema"
gone "statistics that cannot be read" 1 "zswbctl: cannot read $tmp/nostats/stats: *" \
	ZSWB_DEBUGFS="$tmp/nostats"
ZSWB_SYSFS=$tmp/none zsw prometheus
printf '%s\n' "$out" >"$tmp/down.prom"
[ "$rc" = 2 ] && [ "$err" = "$nomod" ] && only_down "$tmp/down.prom" &&
	printf '%s\n' "$out" | promcheck && has "zswap_wb_up 0.0" &&
	has "zswap_wb_build_info{kernel=\"$kernel\",zswbctl=\"$version\"} 1.0"
result "prometheus: module not loaded, zswap_wb_up 0 and the build info on stdout, exit 2" $?
# A bad FILE is refused before the module is read: nothing changes.
cp "$tmp/tf/zswap_wb.prom" "$tmp/prom.before"
ZSWB_SYSFS=$tmp/none t "prometheus: FILE ends in /, module not loaded: bad usage first" 64 '' \
	"zswbctl: '$tmp/tf/' is not a file name" prometheus "$tmp/tf/"
ZSWB_SYSFS=$tmp/none t "prometheus: no such directory, module not loaded" 1 '' \
	"$nomod"$'\n'"zswbctl: cannot create a temporary file in $tmp/nodir: No such file or directory" \
	prometheus "$tmp/nodir/zswap_wb.prom"
cmp -s "$tmp/tf/zswap_wb.prom" "$tmp/prom.before" && [ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] &&
	[ ! -e "$tmp/nodir" ]
result "prometheus: refused FILEs change nothing" $?

# Atomic replace: a temporary file in FILE's directory, hidden and not
# *.prom, created exclusively, renamed over FILE; and a reader that reads
# FILE while it is replaced again and again only ever sees a whole file.
fake_mod
fake_hist "2 1" "4 2"
if command -v strace >/dev/null; then
	strace -f -qq -e trace=openat,rename,renameat,renameat2 -o "$tmp/strace" \
		"$bin" prometheus "$tmp/tf/zswap_wb.prom"
	grep -qE "openat\(AT_FDCWD, \"$tmp/tf/\.zswap_wb\.prom\.[A-Za-z0-9]{6}\", O_RDWR\|O_CREAT\|O_EXCL" \
		"$tmp/strace" &&
		grep -qE "rename(at2?)?\((AT_FDCWD, )?\"$tmp/tf/\.zswap_wb\.prom\.[A-Za-z0-9]{6}\", (AT_FDCWD, )?\"$tmp/tf/zswap_wb\.prom\"" \
			"$tmp/strace"
	result "prometheus FILE: written to a hidden temporary in its directory, then renamed" $?
else
	skip "prometheus FILE: written to a hidden temporary in its directory, then renamed" "no strace"
fi
full=$(<"$tmp/tf/zswap_wb.prom")
echo 0 >"$tmp/stop"
(
	i=0
	while [ "$(<"$tmp/stop")" = 0 ] && [ $i -lt 2000 ]; do
		[ "$(<"$tmp/tf/zswap_wb.prom")" = "$full" ] || { echo "read $i differs"; exit 1; }
		i=$((i + 1))
	done
	echo "$i reads"
) >"$tmp/reader" 2>&1 &
rpid=$!
ok=0
for i in $(seq 100); do "$bin" prometheus "$tmp/tf/zswap_wb.prom" || ok=1; done
echo 1 >"$tmp/stop"
wait $rpid || ok=1
diag "reader: $(<"$tmp/reader")"
[ "$(ls -A "$tmp/tf")" = zswap_wb.prom ] || ok=1
result "prometheus FILE: replaced 100 times, a reader never sees a partial file" $ok
(cd "$tmp/tf" && zsw prometheus - && [ "$rc" = 0 ] && [ -n "$out" ] && [ ! -e "$tmp/tf/-" ])
result "prometheus: FILE '-' is stdout" $?

ktap_finished
