# SPDX-License-Identifier: GPL-2.0
#
# A group's tests, as its kselftest Makefile lists them, for run_group.sh
# in the test VM (which has no make) and for the host suite that checks
# every group (selftests/host/groups.sh). POSIX sh and busybox awk.

# test_progs GROUP: the TEST_PROGS of GROUP's Makefile, one a line, in
# order, as make reads them: "TEST_PROGS += X", "TEST_PROGS := X" and
# "TEST_PROGS = X" (either of the last two starts the list again), a
# trailing backslash continuing a line, a "#" starting a comment.
test_progs() {
	awk '
		function add(s,    i, n, w) {
			sub(/#.*/, "", s)
			n = split(s, w)
			for (i = 1; i <= n; i++)
				list[++len] = w[i]
		}
		more { l = $0; more = sub(/\\$/, "", l); add(l); next }
		/^TEST_PROGS[ \t]*[:+]?=/ {
			l = $0
			if (l !~ /^TEST_PROGS[ \t]*\+=/)
				len = 0
			sub(/^TEST_PROGS[ \t]*[:+]?=/, "", l)
			more = sub(/\\$/, "", l)
			add(l)
		}
		END { for (i = 1; i <= len; i++) print list[i] }' "$1/Makefile"
}

# check_progs GROUP: every *.sh of GROUP is in its TEST_PROGS and every
# TEST_PROGS is an executable script of GROUP; prints a "# " line for
# each that is not, and returns 1 if any.
check_progs() {
	local progs f t bad=0
	progs=" $(test_progs "$1" | tr '\n' ' ') "
	for f in "$1"/*.sh; do
		[ -e "$f" ] || continue
		case "$progs" in
		*" ${f##*/} "*) ;;
		*) echo "# $f is not in $1/Makefile's TEST_PROGS"; bad=1 ;;
		esac
	done
	for t in $progs; do
		[ -x "$1/$t" ] || { echo "# $1/Makefile: TEST_PROGS $t is not an executable script of $1"; bad=1; }
	done
	return $bad
}
