#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# common.c: why a command cannot run, and what it says then: the module
# not loaded, or not loadable (no hook in the running kernel, from
# kallsyms or the kernel's config); debugfs not mounted, or for root
# only; a reset refused by kernel lockdown; each path named from what
# $ZSWB_SYSFS and $ZSWB_DEBUGFS hold. Each reason has its exit status.
# On a fake module tree (selftests/zswbctl/lib.sh); KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
plan 24

# Without the module, or without debugfs, each command says so.
fake
export ZSWB_SYSFS=$tmp/none
for cmd in status "get enabled" "set enabled N" unload; do
	# shellcheck disable=SC2086 # split cmd on purpose
	t "$cmd: module not loaded" 2 '' "$nomod" $cmd
done
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/none
t "status: no debugfs shows the parameters" 4 "${status%%$'\n'stored_pages*}" \
	"$nodbg"$'\n'"zswbctl: statistics not shown, parameters only" status
for cmd in stats reset "diff true"; do
	# shellcheck disable=SC2086
	t "$cmd: no debugfs" 4 '' "$nodbg" $cmd
done
t "prometheus: no debugfs, zswap_wb_up 0" 4 "$down" "$nodbg" prometheus
export ZSWB_DEBUGFS=$tmp/debug

# Why the module is not there: a kernel without the hook cannot load it.

export ZSWB_SYSFS=$tmp/none
nohook="zswbctl: zswap_wb cannot be loaded: the running kernel has no zswap writeback hook"
printf '%s\n' "ffffffff81000000 T _stext" "ffffffff81234560 T zswap_wb_registered" \
	"ffffffffc0000000 t zswap_wb_register_x	[foo]" >"$tmp/kallsyms"
t "no hook in kallsyms" 3 '' \
	"$nohook"$'\n'"zswbctl: (* has no zswap_wb_register in $tmp/kallsyms): boot a kernel built with CONFIG_ZSWAP_WRITEBACK_HOOK=y" \
	stats
echo "ffffffffc0001000 T zswap_wb_register	[zswap_hook]" >>"$tmp/kallsyms"
t "hook in kallsyms, module line format" 2 '' "$nomod" get sync_free
export ZSWB_KALLSYMS=$tmp/none ZSWB_KCONFIG=$tmp/config
printf '%s\n' "CONFIG_ZSWAP=y" "# CONFIG_ZSWAP_WRITEBACK_HOOK is not set" >"$tmp/config"
t "no kallsyms, config without the hook" 3 '' \
	"$nohook"$'\n'"zswbctl: (* has no CONFIG_ZSWAP_WRITEBACK_HOOK=y in $tmp/config): boot a kernel built with it" \
	status
echo "CONFIG_ZSWAP_WRITEBACK_HOOK=y" >>"$tmp/config"
t "no kallsyms, config with the hook" 2 "$down" "$nomod" prometheus
export ZSWB_KCONFIG=$tmp/none
t "neither kallsyms nor config: not loaded" 2 '' "$nomod" unload
export ZSWB_SYSFS=$tmp/sys ZSWB_KALLSYMS=$tmp/kallsyms

# A reset that lockdown refuses says so; the same error without it does not.
fake
echo "none [integrity] confidentiality" >"$tmp/lockdown"
if chattr +i "$d/reset" 2>/dev/null; then
	at_exit chattr -i "$d/reset"
	t "reset: kernel lockdown" 6 '' \
		"zswbctl: cannot reset statistics: Operation not permitted: the kernel is locked down (integrity), see kernel_lockdown(7)" \
		reset
	echo "[none] integrity confidentiality" >"$tmp/lockdown"
	t "reset: EPERM without lockdown" 1 '' \
		"zswbctl: cannot reset statistics: Operation not permitted" reset
	chattr -i "$d/reset"
	[ ! -s "$d/reset" ]
	result "reset: refused, nothing written" $?
else
	for i in 1 2 3; do skip "reset: kernel lockdown ($i)" "chattr +i not supported here"; done
fi
echo "[none] integrity confidentiality" >"$tmp/lockdown"

# asnobody ARGS...: zsw ARGS as user nobody, debugfs a directory for root
# (run: $rc, $out and $err).
asnobody() {
	ZSWB_DEBUGFS=$tmp/rootonly/zswap_wb run setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$bin" "$@"
}
# debugfs is for root: a user is told so.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$tmp/rootonly/zswap_wb"
	chmod 700 "$tmp/rootonly"
	chmod 755 "$tmp"
	asnobody stats
	[ "$rc" = 5 ] && [ -z "$out" ] && [ "$err" == \
		"zswbctl: cannot access $tmp/rootonly/zswap_wb: Permission denied: debugfs is for root, run zswbctl as root" ]
	result "stats as a user: permission denied" $?
	asnobody status
	[ "$rc" = 5 ] && [ "$out" == "${status%%$'\n'stored_pages*}" ] &&
		[[ $err == *"debugfs is for root"*"statistics not shown, parameters only" ]]
	result "status as a user: the parameters, and why no statistics" $?
	chmod 700 "$tmp"
else
	skip "stats as a user: permission denied" "needs root and setpriv"
	skip "status as a user: the parameters, and why no statistics" "needs root and setpriv"
fi

# Where debugfs would be mounted, named from its path.

: >"$tmp/file"
ZSWB_DEBUGFS=$tmp/file zsw stats
[[ $rc == 1 && -z $out && $err == "zswbctl: $tmp/file is not a directory" ]]
result "common: a debugfs path that is a file" $?
ZSWB_DEBUGFS=$tmp/none/// zsw stats
[[ $rc == 4 && $err == "zswbctl: no $tmp/none///: debugfs is not mounted on $tmp (mount -t debugfs none $tmp)" ]]
result "common: trailing slashes of the debugfs path left out of its parent" $?
ZSWB_DEBUGFS=/none zsw stats
[[ $rc == 4 && $err == "zswbctl: no /none: debugfs is not mounted on / (mount -t debugfs none /)" ]]
result "common: a debugfs path right under /" $?
(cd "$tmp" && ZSWB_DEBUGFS=none zsw stats
 [[ $rc == 4 && $err == "zswbctl: no none: debugfs is not mounted on . (mount -t debugfs none .)" ]])
result "common: a relative debugfs path" $?
ZSWB_SYSFS=$tmp/file zsw get enabled
[[ $rc == 2 && $err == "zswbctl: zswap_wb is not loaded (no $tmp/file): load it with 'modprobe zswap_wb'" ]]
result "common: a sysfs path that is a file: not loaded" $?

ktap_finished
