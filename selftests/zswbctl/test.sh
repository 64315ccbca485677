#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's host tests as the package build runs them (debian/rules'
# override_dh_auto_test runs this file, with STATIC= for its dynamic
# build): the zswbctl suites on this directory's lib.sh,
# selftests/host/zswbctl-*.sh, one after the other, each printing its own
# KTAP (the C ones, on selftests/host/lib.sh, are not among them). A suite that asks for packages of its
# own (a zswb_need line: matplotlib, a Prometheus server's libraries) is
# left out, saying so: the package build installs only those debian/rules
# checks for. make check runs every suite on its own (selftests/run.sh).
# Exits 0 only if every suite run passed.

# shellcheck source=../../tools/kernel/common.sh
. "$(dirname "$0")/../../tools/kernel/common.sh"
rc=0
for s in "$ZSWB_TOP"/selftests/host/zswbctl-*.sh; do
	name=$(basename "$s" .sh)
	grep -q '^\. .*/zswbctl/lib\.sh"$' "$s" || continue
	if grep -q '^zswb_need ' "$s"; then
		echo "# $name left out: it needs $(sed -n 's/^zswb_need //p' "$s")"
		continue
	fi
	echo "# $name"
	bash "$s" || rc=1
done
exit "$rc"
