/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswap_wb's policy parameters, one row each: a module parameter, an
 * attribute of every scope (scope.c), a "param" line of debugfs "schema"
 * and a field of struct zswb_settings, in this order, with the words that
 * "schema" and modinfo print as its help (those of Documentation/zswap_wb.rst).
 * A parameter added here is parsed, stored, re-armed, printed and
 * described; its family arms what it asks for. selftests/run.sh
 * (checkpatch) checks that the documents list it.
 *
 * The including file defines the row macros it needs, the others expand to
 * nothing, and every one is undefined at the end, as in zswap_wb_stats.h:
 *
 * ZSWB_PARAM_BOOL(name, help, def, flags, family): a boolean, written as
 *	zswb_parse_bool() takes it, read Y or N; @def is 0 or 1.
 * ZSWB_PARAM_UINT(name, help, def, min, max, flags, family): an integer
 *	from @min to @max.
 * ZSWB_PARAM_CHOICE(name, help, choices, flags, family): one of the rows
 *	of the list macro @choices (below), by name; the first is the default.
 *
 * @flags are ZSWB_PARAM_* (below): what turning the parameter off means
 * for the folios in flight. @family is the policy family whose arm() runs
 * after every change of the parameter, global or a scope's (struct
 * zswb_family; zswb_<family> is its definition). A list of choices is a
 * braced list of ZSWB_CHOICE(name, ...) rows, whose other columns are the
 * policy's own (the family's file defines ZSWB_CHOICE to read them).
 */
#ifndef ZSWB_PARAM_BOOL
#define ZSWB_PARAM_BOOL(...)
#endif
#ifndef ZSWB_PARAM_UINT
#define ZSWB_PARAM_UINT(...)
#endif
#ifndef ZSWB_PARAM_CHOICE
#define ZSWB_PARAM_CHOICE(...)
#endif

/*
 * What turning a parameter off means for the folios in flight, for the
 * tools that unload the module or wait for them (zswbctl); "schema" names
 * the bits in this order:
 */
#define ZSWB_PARAM_DRAINS	BIT(0)	/* "drains": off before unloading, then inflight 0 */
#define ZSWB_PARAM_WAITS	BIT(1)	/* "waits": off leaves folios in flight: inflight 0 */

/*
 * A boolean's words (zswb_parse_bool()), in pairs: the one that turns a
 * parameter off, then on.
 */
#define ZSWB_BOOL_WORDS	{ "0", "1", "n", "y", "no", "yes", "off", "on", "false", "true" }

/*
 * The shrink policies (shrinker.c), one row each: the name, how a call's
 * batch is spread over the nodes, where the walk starts.
 */
#define ZSWB_SHRINK_POLICIES {						\
	ZSWB_CHOICE(stock,		ONE,	NODE0),			\
	ZSWB_CHOICE(carry,		CARRY,	NODE0),			\
	ZSWB_CHOICE(split,		SPLIT,	NODE0),			\
	ZSWB_CHOICE(per_node,		EACH,	NODE0),			\
	ZSWB_CHOICE(local_first,	CARRY,	FOLIO),			\
}

/*
 * The readahead policies (readahead.c), one row each: the name, whether a
 * fault on a zswap entry reads it alone, whether a window leaves out its
 * slots in zswap. A policy that skips nothing is stock: the point stays
 * disarmed.
 */
#define ZSWB_RA_POLICIES {						\
	ZSWB_CHOICE(stock,		false,	false),			\
	ZSWB_CHOICE(skip_fault,		true,	false),			\
	ZSWB_CHOICE(skip_zswap_slots,	true,	true),			\
}

ZSWB_PARAM_BOOL(sync_free,
		"Free writeback folios right after their write on SWP_SYNCHRONOUS_IO swap (zram, brd, pmem).",
		0, ZSWB_PARAM_DRAINS, prompt_free)
/* Off stops marking at once; the folios in flight are still freed as their writes end. */
ZSWB_PARAM_BOOL(async_free,
		"Free writeback folios from a work item as soon as their write ends, on block and file swap.",
		0, ZSWB_PARAM_DRAINS | ZSWB_PARAM_WAITS, prompt_free)
ZSWB_PARAM_CHOICE(shrink_policy,
		  "How shrink_memcg() spreads its batch over the nodes.",
		  ZSWB_SHRINK_POLICIES, 0, shrinker)
/* Calls from zswap_store() scan at most SWAP_CLUSTER_MAX per node, whatever it says. */
ZSWB_PARAM_UINT(shrink_batch,
		"Entries one shrink_memcg() call may scan.",
		32, 1, 1024, 0, shrinker)
ZSWB_PARAM_CHOICE(readahead_policy,
		  "Which swap readahead to skip for zswap entries on a swapin fault.",
		  ZSWB_RA_POLICIES, 0, readahead)

#undef ZSWB_PARAM_BOOL
#undef ZSWB_PARAM_UINT
#undef ZSWB_PARAM_CHOICE
