# SPDX-License-Identifier: GPL-2.0
# Sourced by the host suites, after tools/kernel/common.sh: one KTAP
# printer for every suite, host and guest, the kernel's own
# tools/testing/selftests/kselftest/ktap_helpers.sh (the guest's initramfs
# carries the same file). The kernel source is extracted if it is not yet.
zswb_ktap=tools/testing/selftests/kselftest/ktap_helpers.sh
if ! { zswb_dirs 2>/dev/null && [ -f "$ZSWB_SRC/$zswb_ktap" ]; }; then
	ZSWB_BUILD_ONLY_SOURCE=1 bash "$ZSWB_TOP/tools/kernel/build.sh" >&2 && zswb_dirs ||
		zswb_die "cannot extract the kernel source for $zswb_ktap"
fi
. "$ZSWB_SRC/$zswb_ktap"

# ktap_counts: the closing line that make check and CI read.
ktap_counts() {
	ktap_print_totals
	echo "$KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed, $KTAP_CNT_SKIP skipped"
}
