#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: modprobe loads the DKMS-installed zswap_wb
#
# In the initramfs selftests/host/dkms.sh builds from a DKMS install:
# zswap_wb resolves to the module under updates/dkms/, which loads and
# unloads.
. "$(dirname "$0")/../lib.sh"

ko=$(modinfo -n zswap_wb 2>/dev/null)
case "$ko" in
*/updates/dkms/*) ;;
*) msg "zswap_wb resolves to '$ko', not a DKMS install"; exit 1 ;;
esac
modprobe zswap_wb || exit 1
[ -d /sys/kernel/debug/zswap_wb ] && rmmod zswap_wb
