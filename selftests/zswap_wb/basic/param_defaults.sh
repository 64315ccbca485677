#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: parameters present with their documented defaults
#
# The loaded module has exactly the parameters the admin guide
# (zswap_wb.rst, packed beside the tests) documents, each at its
# documented default.
. "$(dirname "$0")/../lib.sh"

# Documented parameters and defaults: "name default" lines from the docs.
doc_defaults() {
	awk '/^``[a-z_]+``$/ { p = $0; gsub(/`/, "", p) }
	     /^Default: ``/ && p { d = $0; sub(/^Default: ``/, "", d); sub(/``.*/, "", d); print p, d; p = "" }' \
		/selftests/zswap_wb.rst
}

need_module || exit 1
doc_defaults > /tmp/defaults
[ -s /tmp/defaults ] || { msg "no parameter found in the documentation"; exit 1; }
ls $ZSWB_PARAMS | sort > /tmp/present
cut -d' ' -f1 /tmp/defaults | sort > /tmp/documented
if ! cmp -s /tmp/present /tmp/documented; then
	msg "parameters present: $(tr '\n' ' ' < /tmp/present)"
	msg "parameters documented: $(tr '\n' ' ' < /tmp/documented)"
	exit 1
fi
rc=0
while read -r name def; do
	v=$(param_value "$name")
	[ "$v" = "$def" ] || { msg "$name is '$v', documented default '$def'"; rc=1; }
done < /tmp/defaults
exit $rc
