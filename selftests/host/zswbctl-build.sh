#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's build: it builds (the compiler's warnings are errors), make
# then finds it up to date (so that every other zswbctl suite's plan,
# which builds it if it is not, costs nothing), and the binary is static
# (the test VM's busybox root has no libc), or dynamic when STATIC= asks
# for the package's build. KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
ktap_print_header
ktap_set_plan 3

build
rc=$? out='' err=$(<"$tmp/build")
result "build" $rc
[ "$rc" = 0 ] || ktap_exit_fail_msg "zswbctl does not build"
run make -s -q -C "$tool" zswbctl
result "make again finds zswbctl up to date: nothing rebuilt" $rc
if command -v readelf >/dev/null && [ -n "${STATIC+set}" ] && [ -z "$STATIC" ]; then
	readelf -l "$bin" | grep -q INTERP
	result "binary is dynamic, as STATIC= asks (the package's build)" $?
elif command -v readelf >/dev/null; then
	! readelf -l "$bin" | grep -q INTERP
	result "binary is static" $?
else
	skip "binary is static" "no readelf"
fi

ktap_finished
