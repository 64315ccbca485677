#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: load and unload 20 times
#
# Twenty modprobe/rmmod cycles with nothing in flight: each load creates
# the debugfs directory, each unload removes the module.
. "$(dirname "$0")/../lib.sh"

# From an unloaded module, whatever the test before left: unload waits for
# the reference async_free drops a moment after it goes off.
[ ! -d /sys/module/zswap_wb ] || unload || { msg "cannot unload zswap_wb first"; exit 1; }
i=0
while [ $i -lt 20 ]; do
	modprobe zswap_wb || { msg "load $i failed"; exit 1; }
	[ -d /sys/kernel/debug/zswap_wb ] || { msg "no debugfs dir after load $i"; exit 1; }
	rmmod zswap_wb || { msg "unload $i failed"; exit 1; }
	[ ! -d /sys/module/zswap_wb ] || { msg "still loaded after unload $i"; exit 1; }
	i=$((i + 1))
done
