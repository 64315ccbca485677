#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: debugfs schema describes every statistic and parameter
#
# debugfs "schema" describes what the module has: a stat row for each line
# of "stats" and a file for each counter and gauge, a param row for each
# parameter, with the choices its file lists and the default it reads
# after a load, and exactly what the sources' rows describe (modschema).
. "$(dirname "$0")/../lib.sh"

need_module || exit 1
unload && modprobe zswap_wb || { msg "cannot reload zswap_wb"; exit 1; }
s=$ZSWB_DEBUGFS/schema
[ -r $s ] || { msg "no $s"; exit 1; }
rc=0
awk -F'\t' '$1 == "stat" { sub(/<N>$/, "0", $2); print $2 }' $s | sort > /tmp/schema.stats
cut -d' ' -f1 $ZSWB_DEBUGFS/stats | sed 's/_node[0-9]*$/_node0/' | sort -u > /tmp/stats.keys
if ! cmp -s /tmp/schema.stats /tmp/stats.keys; then
	msg "schema: $(tr '\n' ' ' < /tmp/schema.stats)"
	msg "stats: $(tr '\n' ' ' < /tmp/stats.keys)"
	rc=1
fi
awk -F'\t' '$1 == "stat" { sub(/<N>$/, "0", $2); print $2, $4 }' $s > /tmp/schema.units
while read -r name unit; do
	if [ "$unit" = us ] && [ -e $ZSWB_DEBUGFS/$name ]; then
		msg "a file for the percentile $name"; rc=1
	elif [ "$unit" != us ] && [ ! -r $ZSWB_DEBUGFS/$name ]; then
		msg "no file for $name"; rc=1
	fi
done < /tmp/schema.units
awk -F'\t' '$1 == "param" { print $2 }' $s | sort > /tmp/schema.params
ls $ZSWB_PARAMS | sort > /tmp/params
cmp -s /tmp/schema.params /tmp/params || {
	msg "schema: $(tr '\n' ' ' < /tmp/schema.params), parameters: $(tr '\n' ' ' < /tmp/params)"
	rc=1
}
awk -F'\t' '$1 == "param" { print $2 "|" $3 "|" $4 "|" $5 "|" $6 }' $s > /tmp/schema.rows
while IFS='|' read -r name kind values def flags; do
	v=$(param_value "$name")
	[ "$v" = "$def" ] || { msg "$name reads '$v', its schema default is '$def'"; rc=1; }
	case $kind in
	choice) v=$(tr -d '[]' < $ZSWB_PARAMS/$name)
		[ "$v" = "$values" ] || { msg "$name lists '$v', its schema '$values'"; rc=1; } ;;
	bool|uint) ;;
	*) msg "$name: kind '$kind'"; rc=1 ;;
	esac
done < /tmp/schema.rows
# What the sources describe (modschema, from the same rows), line for line.
if ! modschema | diff - $s > /tmp/schema.diff; then
	msg "schema differs from what the sources describe (< sources, > module):"
	sed 's/^/# /' /tmp/schema.diff
	rc=1
fi
[ "$rc" = 0 ] || sed 's/^/# /' $s
exit $rc
