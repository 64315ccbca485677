#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# zswbctl's bash completion (tools/zswbctl/zswbctl.bash-completion) and
# its text fitted to the terminal, on a fake module tree:
#  - _zswbctl completes the commands --help lists, the options of each
#    command's --help, the parameter names of the module, a policy's
#    choices after "set NAME" (those of "get --choices", no brackets),
#    the scopes after "stats --scope", a file after "ab --csv";
#  - without the module it still completes commands and options, offers
#    no parameter, and prints nothing on stderr;
#  - with COLUMNS=60 and COLUMNS=200, and on a terminal of 60 columns,
#    no line of status, stats, diff or the ab and fleet reports is wider,
#    and every number is whole; without COLUMNS off a terminal, nothing
#    changes.
# KTAP on stdout.

# shellcheck source=../zswbctl/lib.sh
. "$(dirname "$0")/../zswbctl/lib.sh"
comp=$tool/zswbctl.bash-completion

# The fake module: its parameters and statistics as the module's schema
# (from its sources) gives them, a choice parameter's file listing every
# choice with the current one in brackets, two policy scopes.
module_schema
# schema_values NAME: the values the schema gives parameter NAME.
schema_values() {
	local name=$1

	awk -F'\t' -v n="$name" '$1 == "param" && $2 == n { print $4 }' <<<"$schema"
}
mkdir -p "$p" "$d/scopes/global" "$d/scopes/batch-1"
params=$(awk -F'\t' '$1 == "param" { print $2 }' <<<"$schema" | sort)
for n in $params; do
	case $(awk -F'\t' -v n="$n" '$1 == "param" && $2 == n { print $3 }' <<<"$schema") in
	bool) echo N ;;
	uint) echo 32 ;;
	choice) schema_values "$n" | sed 's/^\([^ ]*\)/[\1]/' ;;
	esac >"$p/$n"
done
# a name wider than a narrow terminal, to be cut; the schema describes
# it, as it describes every statistic: a counter per node
{
	printf '%s\n' "$schema"
	printf 'stat\tshrink_written_from_the_remote_node_node<N>\tcounter\t-\tWritten from afar.\n'
} >"$d/schema"
v=101
awk -F'\t' '$1 == "stat" { sub(/<N>$/, "0", $2); print $2 }' <<<"$schema" | while read -r k; do
	echo "$k $v"
	v=$((v + 1013))
done >"$d/stats"
# the wide name; its value stays whole
echo "shrink_written_from_the_remote_node_node12 123456789012" >>"$d/stats"
cp "$d/stats" "$d/scopes/global/stats"
cp "$d/stats" "$d/scopes/batch-1/stats"
shrink_choices=$(schema_values shrink_policy)
ra_choices=$(schema_values readahead_policy)

# complete WORD...: set COMP_WORDS to zswbctl WORD... (the last the one
# completed), call _zswbctl in a bash that sourced the completion; the
# completions, sorted, in the global $got; its stderr in $tmp/err.
complete_words() {
	got=$(bash -c '. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_zswbctl zswbctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' bash "$comp" "$bin" "$@" 2>"$tmp/err" | sort -u |
		sed '/^$/d')
}

# same WANT DESC: pass if $got is the words of WANT (any order), nothing on stderr.
same() {
	local words=$1 desc=$2 want

	want=$(tr ' ' '\n' <<<"$words" | sed '/^$/d' | sort -u)
	if [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
		echo "# want: ${want//$'\n'/ }"
		echo "# got:  ${got//$'\n'/ }"
		sed 's/^/# stderr: /' "$tmp/err"
	fi
}

# fits WIDTH DESC ARGS...: zswbctl ARGS with COLUMNS=WIDTH: pass if it
# exits 0, no line is wider than WIDTH, and every number it prints is one
# it prints with no limit (none cut); its output in $tmp/fit.
fits() {
	local width=$1 desc=$2 ok=0

	shift 2
	"$bin" "$@" >"$tmp/whole" 2>"$tmp/err" || ok=1
	COLUMNS=$width "$bin" "$@" >"$tmp/fit" 2>>"$tmp/err" || ok=1
	check_fit "$width" "$tmp/fit" "$tmp/whole" || ok=1
	if [ "$ok" = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
		sed 's/^/# /' "$tmp/fit"
		sed 's/^/# stderr: /' "$tmp/err"
	fi
}

# check_fit WIDTH FILE WHOLE: no line of FILE is wider than WIDTH, and
# each number of FILE is a word of WHOLE (brackets and commas aside).
check_fit() {
	local width=$1 file=$2 whole=$3 wide

	wide=$(awk -v w="$width" 'length($0) > w' "$file")
	[ -z "$wide" ] || { diag "wider than $width: $wide"; return 1; }
	# shellcheck disable=SC2020 # each of the four characters a line end
	tr ' [],' '\n\n\n\n' <"$whole" | sort -u >"$tmp/words"
	# shellcheck disable=SC2020
	tr ' [],' '\n\n\n\n' <"$file" | grep -E '^[-+]?[0-9][0-9.]*(e[-+][0-9]+)?[%kMGTP]?$' |
		sort -u | comm -23 - "$tmp/words" >"$tmp/cut"
	[ ! -s "$tmp/cut" ] || { diag "numbers not in the whole output: $(tr "\n" " " <"$tmp/cut")"; return 1; }
}

plan 29
"$bin" --help >"$tmp/help"
cmds=$(sed -n '/^Commands:$/,/^$/s/^  \([a-z]\+\) .*/\1/p' "$tmp/help")

complete_words ''
same "$cmds" "zswbctl <TAB>: the commands --help lists (${cmds//$'\n'/ })"
complete_words s
same "$(grep '^s' <<<"$cmds")" "zswbctl s<TAB>: the commands that start with s"
complete_words -
same "-j --json -h --help -V --version" "zswbctl -<TAB>: zswbctl's own options"
complete_words -j st
same "status stats" "zswbctl -j st<TAB>: commands after an option of zswbctl's"
complete_words get -
same "-c --choices --help" "get -<TAB>: get's options, as its usage gives them"
complete_words stats --
same "--json --scope --help" "stats --<TAB>: stats's options"
complete_words ab --from
same "--from-csv" "ab --from<TAB>: an option of ab's own --help"
complete_words fleet --a
same "--a --a-hosts --a-scopes --alpha" "fleet --a<TAB>: options of fleet's own --help"
complete_words get ''
same "$params" "get <TAB>: the parameters of the module (${params//$'\n'/ })"
complete_words set sy
same "$(grep '^sy' <<<"$params")" "set sy<TAB>: the parameters that start with sy"
complete_words set shrink_policy ''
same "$shrink_choices" "set shrink_policy <TAB>: its choices, as get --choices lists them"
complete_words set async_free 1 readahead_policy skip
same "$(tr ' ' '\n' <<<"$ra_choices" | grep '^skip')" \
	"set async_free 1 readahead_policy skip<TAB>: the choices of the second NAME"
complete_words set async_free 1 ''
same "$params" "set NAME VALUE <TAB>: the parameters again"
complete_words get --choices ''
same "$params" "get --choices <TAB>: the parameters"
complete_words stats --scope ''
same "batch-1 global" "stats --scope <TAB>: the module's policy scopes"
complete_words stats --scope batch-1 free_latency_p
same "free_latency_p50_us free_latency_p99_us" "stats --scope NAME free_latency_p<TAB>: its statistics"
: >"$tmp/runs-a.csv"
complete_words ab --csv "$tmp/runs-"
same "$tmp/runs-a.csv" "ab --csv <TAB>: a file name"
complete_words ab --pairs ''
same "" "ab --pairs <TAB>: nothing (a number)"

# No module: commands and options, no parameter, nothing on stderr.
ok=0
export ZSWB_SYSFS=$tmp/none ZSWB_DEBUGFS=$tmp/none
for words in "''" "-" "get -" "stats -" "ab --" "get ''" "set ''" "set shrink_policy ''" \
	"stats --scope ''" "stats ''"; do
	eval "complete_words $words"
	[ ! -s "$tmp/err" ] || { diag "$words: stderr: $(<"$tmp/err")"; ok=1; }
	case $words in
	"''") [ "$got" = "$(tr ' ' '\n' <<<"$cmds" | sort -u)" ] || ok=1 ;;
	-|"get -"|"stats -"|"ab --") [ -n "$got" ] || { diag "$words: no option"; ok=1; } ;;
	*) [ -z "$got" ] || { diag "$words: $got"; ok=1; } ;;
	esac
done
export ZSWB_SYSFS=$tmp/sys ZSWB_DEBUGFS=$tmp/debug
result "no module: commands and options complete, nothing else, no stderr" "$ok"

# The text fitted to the terminal.
# grow: a command for diff, after which the long name's counter is 87 more.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/grow" <<EOF
#!/bin/bash
while read -r k v; do
	[[ \$k == shrink_written_from_* ]] && v=\$((v + 87))
	echo "\$k \$v"
done <"$d/stats" >"$d/stats.new" && mv "$d/stats.new" "$d/stats"
EOF
chmod +x "$tmp/bin/grow"
fits 60 "status, COLUMNS=60: no line wider, every number whole" status
fits 24 "stats, COLUMNS=24: names cut with ..., the values whole" stats
grep -q '^shrink_w[a-z_]*\.\.\. 123456789012$' "$tmp/fit"
ret=$?
fits 24 "diff, COLUMNS=24: no line wider, the deltas whole" diff -- "$tmp/bin/grow"
[ "$ret" = 0 ] && grep -q '^shrink_w[a-z_]*\.\.\. 87$' "$tmp/fit"
result "stats and diff: a name too wide cut with '...' before its whole value" $?

# An A/B report (the runs as ab --csv saves them) and a fleet's.
{
	echo "run,kind,pair,side,settings,exit,wall_s,vmstat.pswpin_a_rather_long_metric_name,zswap_wb.freed_async"
	echo "0,aa,0,A,\"async_free=N\",0,10.0,1000,0"
	echo "1,aa,0,A,\"async_free=N\",0,10.1,1010,0"
	for i in 1 2 3 4 5 6 7 8; do
		echo "$((2 * i)),pair,$i,A,\"async_free=N\",0,10.$i,$((1000 + i * 3)),0"
		echo "$((2 * i + 1)),pair,$i,B,\"async_free=Y\",0,9.$((9 - i)),$((500 + i * 5)),$((120000 + i))"
	done
} >"$tmp/ab.csv"
{
	echo "run,kind,pair,side,settings,exit,host,value"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "$((2 * i - 2)),pair,$i,A,\"async_free=N\",0,host-$i.example.org:9100,0.$((40 + i))"
		echo "$((2 * i - 1)),pair,$i,B,\"async_free=Y\",0,host-$i.example.org:9100,0.$((60 + i))"
	done
} >"$tmp/fleet.csv"
for w in 60 200; do
	fits "$w" "ab --from-csv, COLUMNS=$w: no line wider, every number whole" \
		ab --all --from-csv "$tmp/ab.csv"
done
grep -q '^wall_s .* [-+][0-9.]*% \[[-+][0-9.]*%, [-+][0-9.]*%\] *[0-9.e-]* *8 \*$' "$tmp/fit"
result "ab, COLUMNS=200: the table as with no limit, the primary row whole" $?
fits 60 "a fleet's report (ab --from-csv), COLUMNS=60: no line wider, every number whole" \
	ab --metric value --from-csv "$tmp/fleet.csv"
# The terminal's own width (TIOCGWINSZ), through script(1)'s terminal.
script -qec "stty cols 60 rows 24; '$bin' ab --all --from-csv '$tmp/ab.csv'" /dev/null 2>&1 |
	tr -d '\r' | grep -v '^$' >"$tmp/tty"
"$bin" ab --all --from-csv "$tmp/ab.csv" >"$tmp/whole"
COLUMNS=60 "$bin" ab --all --from-csv "$tmp/ab.csv" | grep -v '^$' >"$tmp/fit"
check_fit 60 "$tmp/tty" "$tmp/whole" && cmp -s "$tmp/tty" "$tmp/fit"
result "on a terminal of 60 columns, ab's report as with COLUMNS=60" $?
# Off a terminal, without COLUMNS (or with it empty), nothing changes.
COLUMNS='' "$bin" ab --all --from-csv "$tmp/ab.csv" | cmp -s - "$tmp/whole" &&
	COLUMNS=0 "$bin" stats | cmp -s - "$d/stats"
result "no COLUMNS (empty, 0) and no terminal: the output of a file" $?

ktap_finished
