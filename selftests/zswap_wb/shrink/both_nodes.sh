#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DESC: every shrink policy writes back from both nodes
#
# Under max_pool_percent=1 (shrink_worker), random writers on both NUMA
# nodes' CPUs: each policy the module lists writes back from node 0 and
# node 1, and the writers' data stays intact.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/shrink.lib"

need_module || exit 1
rc=0
for pol in $(choices shrink_policy); do
	shrink_setup pool || exit 1
	set_param shrink_policy $pol
	echo 1 > $ZSWB_DEBUGFS/reset
	shrink_load 8 || rc=1
	msg "$pol: node0 written $(wbstat shrink_written_node0) node1 written $(wbstat shrink_written_node1), calls $(calls)"
	[ "$(wbstat shrink_written_node0)" -gt 0 ] && [ "$(wbstat shrink_written_node1)" -gt 0 ] ||
		{ msg "FAILED: $pol did not write back from both nodes"; rc=1; }
	shrink_teardown
done
exit $rc
