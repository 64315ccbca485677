# SPDX-License-Identifier: GPL-2.0
# Lanes: long jobs (make check's VM suites, make bench's benchmarks,
# make bench-apps' comparisons) shared out over a few host cores. Source
# it; do not run it.
#
# An item weighs its seconds as last measured on this machine, kept in a
# times file outside the tree, one "ITEM SECONDS" line each (the last line
# of an item counts; any other line is ignored, and a missing or
# unreadable file holds nothing). An item the file does not hold weighs
# the default its user gives (its timeout, or its own estimate). Items go
# longest first, either each to the least-loaded lane of a plan made
# before the start (lanes_plan: a lane that cannot take more once it has
# started, as a VM boot), or each to the first lane that is free
# (lanes_run). After a run, each user saves the seconds it measured
# (lanes_save), and the next run is ordered by them.

# lanes_weigh TIMES: the "ITEM DEFAULT" lines of standard input as
# "SECONDS ITEM" lines, in their order: SECONDS is the item's in the file
# TIMES, or its DEFAULT (0 if that is not a number).
lanes_weigh() {
	local times=$1
	[ -f "$times" ] && [ -r "$times" ] || times=/dev/null
	awk -v times="$times" 'BEGIN {
			while ((getline l < times) > 0)
				if (split(l, f, " ") == 2 && f[2] ~ /^[0-9]+$/)
					t[f[1]] = f[2] + 0
		}
		NF >= 1 { print ($1 in t) ? t[$1] : ($2 ~ /^[0-9]+$/ ? $2 + 0 : 0), $1 }'
}

# lanes_order TIMES: as lanes_weigh, the heaviest first; items of equal
# weight keep their order.
lanes_order() {
	lanes_weigh "$1" | sort -s -k1,1nr
}

# lanes_plan N: the "SECONDS ITEM" lines of standard input (lanes_order's)
# shared out over N lanes, each item in turn to the lane with the fewest
# seconds so far (the first of them on a tie); prints N lines, one a
# lane, "SECONDS ITEM...": the lane's seconds and its items in order.
lanes_plan() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) w[i] = 0 }
		NF == 2 {
			b = 1
			for (i = 2; i <= n; i++)
				if (w[i] < w[b])
					b = i
			w[b] += $1
			l[b] = l[b] " " $2
		}
		END { for (i = 1; i <= n; i++) print w[i] l[i] }'
}

# lanes_run N DIR CMD...: "CMD... LANE ITEM" for each ITEM of the file
# DIR/queue, one a line, in N lanes at once: each lane takes the first
# item left in the queue as soon as its last one is done. Each item that
# succeeds adds "ITEM SECONDS" to DIR/seconds (for lanes_save), each that
# fails its name to DIR/failed. Returns when the queue is empty and every
# lane done. CMD runs as its own job, so that a shell's errexit stops it
# and not its lane; its standard input is /dev/null.
lanes_run() {
	local n=$1 dir=$2 l
	shift 2
	: > "$dir/seconds"
	: > "$dir/failed"
	for l in $(seq "$n"); do
		lanes_lane "$l" "$dir" "$@" &
	done
	wait
}

# lanes_lane LANE DIR CMD...: one lane of lanes_run.
lanes_lane() {
	local lane=$1 dir=$2 item start rc
	shift 2
	while :; do
		item=$(flock "$dir/queue.lock" sh -c 'head -n 1 "$1"; sed -i 1d "$1"' sh "$dir/queue")
		[ -n "$item" ] || return 0
		start=$(date +%s)
		"$@" "$lane" "$item" < /dev/null &
		wait "$!" && rc=0 || rc=$?
		if [ "$rc" = 0 ]; then
			echo "$item $(($(date +%s) - start))" >> "$dir/seconds"
		else
			echo "$item" >> "$dir/failed"
		fi
	done
}

# lanes_save TIMES: the "ITEM SECONDS" lines of standard input into the
# file TIMES, each replacing the item's line there (or added after them);
# the other items' lines are kept, any line that is not "ITEM SECONDS"
# dropped. Without such a line on standard input, TIMES is left as it is.
# The file is replaced whole, never left half written, and stays readable
# by all (0644); two runs that save at once take turns on the lock file
# TIMES.lock, so neither loses the other's times. A TIMES that is not a
# file is left alone, and the run's times with it.
lanes_save() {
	local times=$1 lines new
	lines=$(awk 'NF == 2 && $2 ~ /^[0-9]+$/')
	[ -n "$lines" ] || return 0
	mkdir -p "$(dirname "$times")" || return 1
	if [ -e "$times" ] && [ ! -f "$times" ]; then
		echo "lanes_save: $times is not a file" >&2
		return 1
	fi
	{
		flock 9 || return 1
		new=$(mktemp "$times.XXXXXX") || return 1
		printf '%s\n' "$lines" | awk -v times="$times" 'function keep(k, v) {
				if (!(k in s))
					o[++n] = k
				s[k] = v
			}
			BEGIN {
				while ((getline l < times) > 0)
					if (split(l, f, " ") == 2 && f[2] ~ /^[0-9]+$/)
						keep(f[1], f[2])
			}
			{ keep($1, $2) }
			END { for (i = 1; i <= n; i++) print o[i], s[o[i]] }' > "$new" &&
			chmod 0644 "$new" && mv "$new" "$times" || { rm -f "$new"; return 1; }
	} 9> "$times.lock"
}
