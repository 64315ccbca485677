#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that patches/6.12/*.patch applies to every version of Debian's
# linux-source-6.12 that apt offers (apt-cache madison). For each version the
# .deb is fetched with apt-get download into a cache (kept for reruns), only
# the files the patches touch are extracted from its source tarball into a
# temporary tree, and the patches are applied there in order (a dry run
# first, then for real so later patches see the earlier ones). Nothing is
# installed system-wide.
#
# One more test keeps the series small: on the first version, the code
# lines it adds and removes (comments and blank lines left out; Kconfig
# help text counted) must stay within BUDGET, 300.
#
# Output is a KTAP block on stdout, one test per version and the budget's, followed by a
# "N passed, N failed, 0 skipped" line; progress and timings go to stderr.
# Exits non-zero if any version fails.
#
# Usage: check-versions.sh [--latest-only]
#   --latest-only  check only apt's candidate version
#
# Environment: ZSWB_CACHE (cache directory; the .debs go to $ZSWB_CACHE/debs).
set -eu
. "$(dirname "$0")/common.sh"

usage() {
	sed -n 's/^# \{0,1\}//; /^Usage:/,/^$/p' "$0" | sed '/^$/d'
}

latest_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--latest-only) latest_only=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done

zswb_need apt dpkg tar xz-utils patch

DEBS=$ZSWB_CACHE/debs
TMP=""
# fetch_deb runs in a subshell; $$ is still this script's pid.
DL=$ZSWB_CACHE/debs/.download.$$
cleanup() {
	[ -z "$TMP" ] || rm -rf "$TMP"
	[ -z "$DL" ] || rm -rf "$DL"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() {
	echo "$*" >&2
}

# Versions apt offers, newest first as madison lists them, without duplicates
# (the same version from several mirrors) and without source package lines.
list_versions() {
	apt-cache madison "$ZSWB_SRCPKG" 2>/dev/null |
		awk -F'|' '$3 !~ /Sources[[:space:]]*$/ { gsub(/[[:space:]]/, "", $2); if ($2 != "" && !seen[$2]++) print $2 }'
}

candidate_version() {
	apt-cache policy "$ZSWB_SRCPKG" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }'
}

# Files the patches touch, as paths relative to the tree top. Files that a
# patch creates are left out: they are not in the tarball.
touched_files() {
	awk '
		/^diff --git / { f = $3; sub(/^a\//, "", f); all[f] = 1; cur = f; next }
		/^new file mode/ && cur != "" { created[cur] = 1 }
		END { for (f in all) if (!(f in created)) print f }
	' "$@" | sort
}

# Path of the cached .deb of version $1, downloading it if missing.
fetch_deb() {
	local ver=$1 name
	# apt encodes the epoch colon in file names.
	name=${ZSWB_SRCPKG}_${ver//:/%3a}_all.deb
	if [ -f "$DEBS/$name" ] &&
		[ "$(dpkg-deb -f "$DEBS/$name" Version 2>/dev/null)" = "$ver" ]; then
		echo "$DEBS/$name"
		return 0
	fi
	# Download into a private directory and move it into place only when
	# complete, so an interrupted download is never taken for a cached one.
	rm -rf "$DL"
	mkdir "$DL" || return 1
	# As root, apt would warn that its sandbox user cannot write into a
	# private cache such as /root/.cache; download as root without asking.
	local sandbox=()
	[ "$(id -u)" != 0 ] || sandbox=(-o APT::Sandbox::User=root)
	if (cd "$DL" && apt-get download -q "${sandbox[@]}" "$ZSWB_SRCPKG=$ver") >&2 &&
		set -- "$DL"/*.deb && [ $# -eq 1 ] && [ -f "$1" ] &&
		mv "$1" "$DEBS/$name"; then
		rm -rf "$DL"
		echo "$DEBS/$name"
		return 0
	fi
	rm -rf "$DL"
	return 1
}

# Extract the touched files of the .deb $1 into directory $2 (the tree top).
extract_files() {
	local deb=$1 dir=$2 f
	local members=()
	for f in "${FILES[@]}"; do
		members+=("$ZSWB_SRCPKG/$f")
	done
	# Callers test the result, which turns off set -e here: check each step.
	mkdir -p "$dir/deb" || return 1
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$dir/deb" "./usr/src/$ZSWB_SRCPKG.tar.xz" || return 1
	[ -f "$dir/deb/usr/src/$ZSWB_SRCPKG.tar.xz" ] || return 1
	tar -xJf "$dir/deb/usr/src/$ZSWB_SRCPKG.tar.xz" -C "$dir" --strip-components=1 \
		"${members[@]}" || return 1
	rm -rf "$dir/deb"
}

# Apply the series to the tree $1 in order; on failure print patch's output,
# on success the hunks that needed fuzz (a sign of drifting context).
apply_series() {
	local tree=$1 p out
	for p in "${PATCHES[@]}"; do
		if ! out=$(cd "$tree" && patch -p1 -N -f --dry-run --no-backup-if-mismatch -i "$p" 2>&1); then
			echo "$(basename "$p") does not apply:"
			echo "$out"
			return 1
		fi
		if grep -q 'with fuzz' <<<"$out"; then
			echo "$(basename "$p") applies with fuzz:"
			grep -e '^checking file' -e 'with fuzz' <<<"$out" |
				grep -B1 'with fuzz' | grep -v '^--$'
		fi
		if ! out=$(cd "$tree" && patch -p1 -N -f -s --no-backup-if-mismatch -r - -i "$p" 2>&1); then
			echo "$(basename "$p") passed the dry run but failed to apply:"
			echo "$out"
			return 1
		fi
	done
}

comment() {
	sed 's/^/# /; s/[[:space:]]*$//'
}

BUDGET=300

# code_lines BEFORE AFTER: the lines of code the series adds and removes,
# the two trees diffed, blank lines and C comment lines left out.
code_lines() {
	diff -ruN "$1" "$2" | awk '/^(\+\+\+|---)/ { next }
		/^[-+]/ { t = substr($0, 2); gsub(/^[ \t]+/, "", t)
			if (t != "" && t !~ /^(\/\*|\*|\/\/)/) n++ }
		END { print n + 0 }'
}

PATCHES=("$ZSWB_TOP"/patches/6.12/*.patch)
[ -f "${PATCHES[0]}" ] || zswb_die "no patches in $ZSWB_TOP/patches/6.12"
mapfile -t FILES < <(touched_files "${PATCHES[@]}")
[ ${#FILES[@]} -gt 0 ] || zswb_die "the patches touch no files"

mapfile -t VERSIONS < <(list_versions)
if [ ${#VERSIONS[@]} -eq 0 ]; then
	log "apt-cache madison lists no $ZSWB_SRCPKG; running apt-get update"
	apt-get update -qq >&2 || zswb_die "apt-get update failed"
	mapfile -t VERSIONS < <(list_versions)
fi
[ ${#VERSIONS[@]} -gt 0 ] || zswb_die "apt offers no version of $ZSWB_SRCPKG"
if [ $latest_only = 1 ]; then
	cand=$(candidate_version)
	[ -n "$cand" ] && [ "$cand" != "(none)" ] || cand=${VERSIONS[0]}
	VERSIONS=("$cand")
fi

mkdir -p "$DEBS"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/zswb-check.XXXXXX")
log "checking ${#PATCHES[@]} patch(es) touching ${#FILES[@]} file(s) against ${#VERSIONS[@]} version(s) of $ZSWB_SRCPKG"

. "$ZSWB_TOP/selftests/ktap.sh"
ktap_print_header
ktap_set_plan $(( ${#VERSIONS[@]} + 1 ))
n=0 start_all=$SECONDS budget=
for ver in "${VERSIONS[@]}"; do
	n=$((n + 1))
	tree=$TMP/$n
	mkdir -p "$tree"
	ok=1 out=""
	t0=$SECONDS
	if ! deb=$(fetch_deb "$ver"); then
		ok=0 out="cannot download $ZSWB_SRCPKG=$ver"
	fi
	t1=$SECONDS
	if [ $ok = 1 ] && ! out=$(extract_files "$deb" "$tree" 2>&1); then
		ok=0 out="cannot extract the touched files from $deb:"$'\n'"$out"
	fi
	t2=$SECONDS
	[ $ok = 1 ] && [ -z "$budget" ] && cp -a "$tree" "$tree.orig"
	if [ $ok = 1 ] && ! out=$(apply_series "$tree"); then
		ok=0
	fi
	[ $ok = 1 ] && [ -z "$budget" ] && budget=$(code_lines "$tree.orig" "$tree") bver=$ver
	t3=$SECONDS
	rm -rf "$tree" "$tree.orig"
	if [ $ok = 1 ]; then
		ktap_test_pass "patches apply to $ZSWB_SRCPKG $ver"
		[ -z "$out" ] || printf '%s\n' "$out" | comment
	else
		ktap_test_fail "patches apply to $ZSWB_SRCPKG $ver"
		printf '%s\n' "$out" | comment
	fi
	log "$ver: fetch $((t1 - t0)) s, extract $((t2 - t1)) s, patch $((t3 - t2)) s"
done
if [ -n "$budget" ] && [ "$budget" -le $BUDGET ]; then
	ktap_test_pass "the series changes $budget code lines of $ZSWB_SRCPKG $bver (at most $BUDGET)"
else
	ktap_test_fail "the series changes ${budget:-?} code lines of $ZSWB_SRCPKG ${bver:-} (at most $BUDGET)"
fi
ktap_counts
log "total $((SECONDS - start_all)) s"
[ "$KTAP_CNT_FAIL" = 0 ]
