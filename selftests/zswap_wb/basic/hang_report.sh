#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a workload stuck in the kernel is reported with its stack and killed
#
# What every test's workload wait (wait_workload) does with a hang: a
# reader of a suspended device-mapper device sleeps in the kernel until
# the device resumes. Past the bound, the wait names it with its kernel
# stack, kills it and returns 124 at once; once the device resumes, the
# reader ends by that SIGKILL, not by its read.
. "$(dirname "$0")/../lib.sh"

dm=$(dmctl create zswbhang /dev/vdb) || exit 1
dmctl suspend zswbhang || exit 1
(exec dd if=/dev/$dm of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null) &
pid=$!
start=$(date +%s)
WORKLOAD_SECONDS=3 wait_workload $pid > /tmp/hang.out 2>&1
rc=$?
took=$(($(date +%s) - start))
cat /tmp/hang.out
dmctl resume zswbhang
wait $pid
drc=$?
dmctl remove zswbhang
msg "gave up after $took s with $rc; the reader ended with $drc"
check "the wait gave up with 124 after its bound, not much later" \
	"[ $rc -eq 124 ] && [ $took -ge 2 ] && [ $took -le $((3 + 20 * SCALE)) ]" &&
check "it named the reader blocked, with a kernel stack" \
	"grep -Eq '^# blocked: $pid dd in .*\\+0x' /tmp/hang.out" &&
check "it said what is in flight on the device" "grep -q '^# in flight (reads writes):.* $dm [0-9]* [0-9]* ;' /tmp/hang.out" &&
check "the reader ended by SIGKILL once the device resumed" "[ $drc -eq 137 ]"
