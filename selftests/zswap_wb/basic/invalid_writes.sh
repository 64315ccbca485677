#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: invalid parameter writes refused, nothing changed
#
# Every parameter refuses values outside its kind (bools, shrink_batch's
# range, the policies' names), leaves its value as it was and says why in
# the log; every valid value is taken. The range, the defaults and the
# choices are the loaded module's, from its debugfs schema.
. "$(dirname "$0")/../lib.sh"

# invalid_write NAME VALUE: the write must fail and change nothing.
invalid_write() {
	local before after
	before=$(cat "$ZSWB_PARAMS/$1")
	if printf '%s' "$2" > "$ZSWB_PARAMS/$1" 2>/dev/null; then
		msg "writing '$2' to $1 succeeded"
		return 1
	fi
	after=$(cat "$ZSWB_PARAMS/$1")
	[ "$before" = "$after" ] || { msg "$1 changed from '$before' to '$after' on a refused write"; return 1; }
}

need_module || exit 1
rc=0
for p in sync_free async_free; do
	for v in 2 maybe " " -1 yesno 1x; do
		invalid_write $p "$v" || rc=1
	done
	set_param $p 1 && invalid_write $p bogus || rc=1
	[ "$(cat $ZSWB_PARAMS/$p)" = Y ] || { msg "$p lost its value"; rc=1; }
	set_param $p 0
done
dmesg | grep -q "is not a boolean" || { msg "no log line explains the refusal"; rc=1; }
# shrink_batch's range, MIN..MAX, and default.
range=$(param_schema shrink_batch values)
min=${range%..*} max=${range#*..} def=$(param_default shrink_batch)
case "$min.$max.$def" in
*[!0-9.]*|.*|*..*|*.) range= ;;
esac
[ "$range" = "$min..$max" ] ||
	{ msg "shrink_batch: no MIN..MAX range and default in the schema: '$(param_schema shrink_batch values)' '$def'"; exit 1; }
# 2^32 + the default: a value that wraps to a valid one in 32 bits.
for v in $((min - 1)) $((max + 1)) -1 abc "${def}x" " $def " $((4294967296 + def)); do
	invalid_write shrink_batch "$v" || rc=1
done
for v in $min $max $(((min + max) / 2)); do
	set_param shrink_batch $v && [ "$(cat $ZSWB_PARAMS/shrink_batch)" = $v ] || { msg "shrink_batch=$v not taken"; rc=1; }
done
set_param shrink_batch "$def"
for v in Stock carry2 " carry" per-node 1 "[carry]" "stock [carry]"; do
	invalid_write shrink_policy "$v" || rc=1
done
for v in $(choices shrink_policy); do
	set_param shrink_policy $v && [ "$(param_value shrink_policy)" = $v ] || { msg "shrink_policy=$v not taken"; rc=1; }
done
for v in Stock skip skip_faults " stock" 0; do
	invalid_write readahead_policy "$v" || rc=1
done
for v in $(choices readahead_policy); do
	set_param readahead_policy $v && [ "$(param_value readahead_policy)" = $v ] || { msg "readahead_policy=$v not taken"; rc=1; }
done
[ "$(choices shrink_policy | wc -w)" -ge 5 ] && [ "$(choices readahead_policy | wc -w)" -ge 3 ] ||
	{ msg "the schema lists too few choices"; rc=1; }
# A policy reads as every choice, the current one in brackets; it is
# written with the bare name, with or without a newline.
if printf 'carry\n\n' > $ZSWB_PARAMS/shrink_policy 2>/dev/null; then
	msg "a name and two newlines taken"; rc=1
fi
printf split > $ZSWB_PARAMS/shrink_policy || { msg "a name without a newline refused"; rc=1; }
v=$(cat $ZSWB_PARAMS/shrink_policy)
want=$(bracketed shrink_policy split)
[ "$v" = "$want" ] || { msg "shrink_policy reads '$v', not '$want'"; rc=1; }
set_param shrink_policy "$(param_default shrink_policy)"
def=$(param_default readahead_policy)
set_param readahead_policy "$def"
v=$(cat $ZSWB_PARAMS/readahead_policy)
want=$(bracketed readahead_policy "$def")
[ "$v" = "$want" ] || { msg "readahead_policy reads '$v', not '$want'"; rc=1; }
dmesg | grep -q "shrink_policy: .* is not one of" || { msg "no log line explains a refused policy"; rc=1; }
exit $rc
