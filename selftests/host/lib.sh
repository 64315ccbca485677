# SPDX-License-Identifier: GPL-2.0
# Sourced by each host suite, selftests/host/NAME.sh, which selftests/run.sh
# runs as the suite NAME (one of them alone: bash selftests/host/NAME.sh):
# the tree's paths, the Debian packages the host suites use, the KTAP
# printer, a scratch directory $out removed on exit, and c_test.
set -u
# zswbctl fits its text to COLUMNS (zswbctl(8)): the suites compare its
# text as a pipe reads it, whatever terminal make check was started from.
unset COLUMNS
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/kernel/common.sh"
# sparse for C=2, dkms, checkpatch's perl, the patch check's apt tools.
zswb_need sparse dkms perl git patch xz-utils gcc libc6-dev make tar python3
zswb_dirs || exit 1
cd "$ZSWB_TOP" || exit 1
. "$ZSWB_TOP/selftests/ktap.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# res STATUS DESC: one test, passed if STATUS is 0.
res() {
	if [ "$1" = 0 ]; then ktap_test_pass "$2"; else ktap_test_fail "$2"; fi
}

# c_test NAME ARGS...: build selftests/zswbctl/NAME.c with zswbctl ab's
# arithmetic and run it with ARGS; it prints its own KTAP.
c_test() {
	local name=$1
	shift
	if ! gcc -O2 -Wall -Wextra -Werror -Itools/zswbctl -o "$out/$name" \
		"selftests/zswbctl/$name.c" tools/zswbctl/ab_stat.c -lm >"$out/$name.log" 2>&1; then
		ktap_print_header
		ktap_set_plan 1
		sed 's/^/# /' "$out/$name.log"
		ktap_test_fail "$name builds"
		return
	fi
	"$out/$name" "$@"
}
