#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: a second backend registration is refused
#
# zswb_dup registers a second backend: refused with EEXIST while zswap_wb
# is registered, and an incomplete one (a required callback missing) with
# EINVAL, registered or not; the log says why each time.
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
dup=$(modinfo -n zswb_dup) || { msg "no zswb_dup test module"; exit 1; }
# busybox modprobe hides init errors: insmod reports them.
out=$(insmod "$dup" 2>&1) && { msg "a second backend registered"; rmmod zswb_dup; exit 1; }
echo "$out" | grep -qi "exists" || { msg "expected EEXIST, got: $out"; exit 1; }
dmesg | grep -q "zswb_dup: one is registered" || { msg "no log line explains the refusal"; exit 1; }
out=$(insmod "$dup" incomplete=1 2>&1) && { msg "an incomplete backend registered"; rmmod zswb_dup; exit 1; }
echo "$out" | grep -qi "invalid" || { msg "expected EINVAL, got: $out"; exit 1; }
# Alone, the incomplete one is still refused, and the test module works.
unload || exit 1
out=$(insmod "$dup" incomplete=1 2>&1) && { msg "an incomplete backend registered alone"; rmmod zswb_dup; exit 1; }
echo "$out" | grep -qi "invalid" || { msg "expected EINVAL alone, got: $out"; exit 1; }
insmod "$dup" || { msg "zswb_dup does not load on its own"; exit 1; }
rmmod zswb_dup && modprobe zswap_wb
