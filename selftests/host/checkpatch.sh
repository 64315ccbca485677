#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The host suite checkpatch (selftests/run.sh checkpatch); KTAP on stdout.
. "$(dirname "$0")/lib.sh"

# doc_names DOC: the statistics, parameters and policy choices DOC lists,
# as "stat NAME", "param NAME" and "choice PARAM NAME" lines. In
# zswap_wb.rst the parameters are the section titles of "Interface: Module
# Parameters", with their choices the items "- ``name``: ..." of their
# section, and the statistics the terms of the list of "Interface:
# Statistics" (a term can name several); in zswbctl.8 the parameters are
# the tags of its "Parameters" subsection, with their choices the names of
# the .BR line after "one of".
doc_names() {
	case $1 in
	*.rst) awk '
		/^=+$/ { sec = prev }
		/^-+$/ && sec == "Interface: Module Parameters" && prev ~ /^``[a-z0-9_]+``$/ {
			param = prev; gsub(/`/, "", param); print "param", param }
		/^- ``[a-z0-9_]+``:/ && sec == "Interface: Module Parameters" && param {
			split($0, t, "``"); print "choice", param, t[2] }
		/^ +[^ ]/ && sec == "Interface: Statistics" && prev ~ /^``/ {
			n = split(prev, t, "``")
			for (i = 2; i <= n; i += 2) print "stat", t[i] }
		{ prev = $0 }' "$1" ;;
	*.8) awk '
		/^\.S[SH] / { sec = $0 }
		sec == ".SS Parameters" && tp && /^\.B [a-z0-9_]+$/ { param = $2; print "param", param }
		sec == ".SS Parameters" && /^\.BR / && prev ~ /one of$/ {
			line = $0; sub(/^\.BR /, "", line); gsub(/"[^"]*"/, " ", line)
			n = split(line, t, " ")
			for (i = 1; i <= n; i++) if (t[i] != ".") print "choice", param, t[i] }
		{ tp = ($0 == ".TP"); prev = $0 }' "$1" ;;
	esac | sort -u
}

# The module's statistics, parameters and policy choices, the schema its
# sources describe (selftests/module_schema.sh), against what the documents list:
# each name in both, none in a document only; and each counter's and
# gauge's help in the words of zswap_wb.rst (zswbctl prints it as the
# module gives it).
check_doc_names() {
	local rst=Documentation/zswap_wb.rst man=tools/zswbctl/zswbctl.8 doc words h ok
	if ! bash selftests/module_schema.sh > "$out/schema" 2> "$out/names.err"; then
		sed 's/^/# /' "$out/names.err"
		ktap_test_fail "selftests/module_schema.sh prints the module's schema"
		return
	fi
	awk -F'\t' '{ print $1, $2 }
		$1 == "param" && $3 == "choice" { n = split($4, c, " "); for (i = 1; i <= n; i++) print "choice", $2, c[i] }' \
		"$out/schema" | sort -u > "$out/names.module"
	for doc in "$rst" "$man"; do
		doc_names "$doc" > "$out/names.doc"
		# zswbctl.8 lists the parameters and choices: the statistics are the guide's.
		[ "$doc" = "$man" ] && grep -v '^stat ' "$out/names.module" > "$out/names.want" ||
			cp "$out/names.module" "$out/names.want"
		comm -3 "$out/names.want" "$out/names.doc" > "$out/names.diff"
		if [ -s "$out/names.doc" ] && [ ! -s "$out/names.diff" ]; then
			ktap_test_pass "$doc lists every module $([ "$doc" = "$man" ] || echo "statistic, ")parameter and choice, and no other"
		else
			sed 's/^\t\(.*\)$/# in the document only: \1/; t; s/^/# in the module only: /' \
				"$out/names.diff"
			ktap_test_fail "$doc lists every module $([ "$doc" = "$man" ] || echo "statistic, ")parameter and choice, and no other"
		fi
	done
	words=$(tr -d '`' < "$rst" | tr -s ' \n' '  ')
	ok=0
	while IFS=$'\t' read -r h; do
		[[ $words == *"${h%.}"* ]] || { echo "# not in $rst: $h"; ok=1; }
	done < <(awk -F'\t' '$1 == "stat" && $4 == "-" && $2 !~ /<N>/ { print $5 }' "$out/schema")
	if [ "$ok" = 0 ]; then
		ktap_test_pass "the help of each counter and gauge is in the words of $rst"
	else
		ktap_test_fail "the help of each counter and gauge is in the words of $rst"
	fi
}

suite_checkpatch() {
	local cp=$ZSWB_SRC/scripts/checkpatch.pl p
	ktap_print_header
	ktap_set_plan $(( $(ls patches/6.12/*.patch | wc -l) + 5 ))
	for p in patches/6.12/*.patch; do
		# On stdin: checkpatch checks a git-tracked file as source, not as a patch.
		if perl "$cp" --strict --no-tree -q - < "$p" > "$out/cp.log" 2>&1 && [ ! -s "$out/cp.log" ]; then
			ktap_test_pass "checkpatch --strict $(basename "$p")"
		else
			sed 's/^/# /' "$out/cp.log"; ktap_test_fail "checkpatch --strict $(basename "$p")"
		fi
	done
	# params.c declares a module parameter per row of zswap_wb_params.h
	# with a macro of two declarations, each ended with its semicolon, as
	# DAMON's modules-common.h does: the two checks of that shape are off
	# there, and only there.
	if perl "$cp" --strict --no-tree -q -f $(git ls-files "module/*.[ch]" "selftests/zswap_wb/modules/*.c" |
		grep -v '^module/params\.c$') > "$out/cpf.log" 2>&1 &&
	   perl "$cp" --strict --no-tree -q --ignore TRAILING_SEMICOLON,MACRO_ARG_REUSE \
		-f module/params.c >> "$out/cpf.log" 2>&1; then
		ktap_test_pass "checkpatch --strict -f on the module sources"
	else
		sed 's/^/# /' "$out/cpf.log"; ktap_test_fail "checkpatch --strict -f on the module sources"
	fi
	# Only what the series documents: the rest of mm/ has warnings of its own.
	(cd "$ZSWB_SRC" && perl scripts/kernel-doc -none -Wall include/linux/zswap.h mm/zswap.c mm/vmscan.c) 2>&1 |
		grep -E "zswap\.h|zswap_wb_|zswap_entry_present|zswap_shrink_node" > "$out/kd.log"
	if [ -s "$out/kd.log" ]; then
		sed 's/^/# /' "$out/kd.log"; ktap_test_fail "kernel-doc -Wall on the hook"
	else
		ktap_test_pass "kernel-doc -Wall on the hook"
	fi
	check_doc_names
}

suite_checkpatch
