// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl - read and set zswap_wb module parameters and statistics.
 *
 * Parameters are files in $ZSWB_SYSFS/parameters (default
 * /sys/module/zswap_wb); statistics are "key value" lines in
 * $ZSWB_DEBUGFS/stats (default /sys/kernel/debug/zswap_wb), and the
 * free-latency histogram is in $ZSWB_DEBUGFS/free_latency_us.
 * Each cause of failure has its exit status (EXIT_* in zswbctl.h, --help,
 * and zswbctl(8)); "diff" exits with the status of the command it ran.
 *
 * This file: the command table, the global options, the usage and the
 * exit codes. The commands are in params.c, stats.c, ab.c and prom.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zswbctl.h"

#ifndef ZSWBCTL_VERSION
#error "ZSWBCTL_VERSION is not set: build with tools/zswbctl/Makefile, which reads dkms.conf"
#endif

const char *sysfs_dir;
const char *debugfs_dir;
bool json;

/* Print the usage text on @f and return @code for main() to exit with. */
int print_usage(FILE *f, int code)
{
	fputs("usage: zswbctl [-j|--json] [status]\n"
	      "       zswbctl get [-c|--choices] NAME\n"
	      "       zswbctl set NAME VALUE [NAME VALUE ...]\n"
	      "       zswbctl [-j|--json] stats [--scope NAME] [KEY ...]\n"
	      "       zswbctl diff [--] CMD [ARGS ...]\n"
	      "       zswbctl ab [OPTIONS] [--a 'NAME=VALUE ...'] [--b 'NAME=VALUE ...'] [--c ...] -- CMD [ARGS ...]\n"
	      "       zswbctl ab [--json] [--csv FILE] [--metric NAME] [--alpha A] [--all] --from-csv FILE\n"
	      "       zswbctl prometheus [FILE]\n"
	      "       zswbctl reset\n"
	      "       zswbctl unload\n"
	      "       zswbctl -h|--help | -V|--version\n", f);
	if (code)
		fputs("Run 'zswbctl --help' for the commands, values and exit codes.\n", f);
	return code;
}

/* "--help": the usage, then the commands, parameters and exit codes. */
static int print_help(void)
{
	print_usage(stdout, 0);
	fputs("\nCommands:\n"
	      "  status      every parameter as \"name = value\", then the statistics\n"
	      "              (the default command); the parameters alone, and a note\n"
	      "              on stderr, when debugfs cannot be read\n"
	      "  get         print the value of parameter NAME; with --choices, every\n"
	      "              choice of a policy, the current one in brackets\n"
	      "  set         set parameters in order; if one fails, put back those set\n"
	      "  stats       print the statistics, or the values of the KEYs in order\n"
	      "  diff        run CMD and print how each counter changed (gauges and\n"
	      "              latency percentiles are left out: they are not deltas);\n"
	      "              exits with the status of CMD\n"
	      "  ab          an A/B comparison: an A/A pair (a check of the host), then\n"
	      "              --pairs N pairs (10) of CMD adjacent in time (A B, B A, ...),\n"
	      "              each run in a fresh cgroup, with the settings of --a or --b\n"
	      "              (sequential: the parameters, put back at the end;\n"
	      "              --concurrent: A and B at once, each in a policy scope);\n"
	      "              per metric B's change against A with its 95% interval\n"
	      "              (Hodges-Lehmann) and p (Wilcoxon signed-rank, exact); the\n"
	      "              primary metric (--metric, wall_s) judged at --alpha (0.05),\n"
	      "              the others Benjamini-Hochberg adjusted. --c ... --h add\n"
	      "              sides, each compared with A. --from-csv FILE reports again\n"
	      "              on the runs a --csv saved. 'zswbctl ab --help' lists its\n"
	      "              options. Exits 1 if a run of CMD failed, 127 if CMD is not\n"
	      "              found\n"
	      "  prometheus  parameters, statistics and the free-latency histogram in\n"
	      "              the Prometheus text format, for node_exporter's textfile\n"
	      "              collector; FILE is replaced atomically, else stdout\n"
	      "  reset       zero the counters (gauges are kept)\n"
	      "  unload      turn the free policies off (those the module says drain),\n"
	      "              waiting for the folios in flight, then remove the module\n"
	      "\nOptions:\n"
	      "  -j, --json     print status and stats as JSON\n"
	      "  -h, --help     print this help\n"
	      "  -V, --version  print the version\n"
	      "\nParameters (/sys/module/" MODNAME "/parameters):\n", stdout);
	print_params_help();
	fputs("\nExit status:\n"
	      "  0   success\n"
	      "  1   failure: unknown parameter or statistic, a value the module\n"
	      "      refused, a file that cannot be read or written\n"
	      "  2   " MODNAME " is not loaded (load it: modprobe " MODNAME ")\n"
	      "  3   the running kernel has no zswap writeback hook (" HOOK_CONFIG ")\n"
	      "  4   debugfs is not mounted\n"
	      "  5   permission denied: debugfs is for root\n"
	      "  6   the kernel is locked down and refused a debugfs file\n"
	      "  64  bad usage: unknown command or option, wrong arguments, invalid value\n"
	      "  diff exits with the status of CMD (126, 127: cannot run; 128+N: signal N)\n"
	      "\nEnvironment: ZSWB_SYSFS (default /sys/module/" MODNAME "),\n"
	      "ZSWB_DEBUGFS (default /sys/kernel/debug/" MODNAME "),\n"
	      "ZSWB_KALLSYMS (default /proc/kallsyms), ZSWB_KCONFIG (default\n"
	      "/boot/config-$(uname -r)), ZSWB_LOCKDOWN (default\n"
	      "/sys/kernel/security/lockdown), ZSWB_NO_DELETE_MODULE=1 (unload: skip\n"
	      "delete_module). See zswbctl(8).\n", stdout);
	return 0;
}

/* The subcommands, their argument counts and what they need to exist. */
static const struct {
	const char *name;
	int (*fn)(char **argv);	/* argv: the arguments, NULL-terminated */
	int min_args, max_args;	/* max_args < 0: no limit */
	int needs;
	bool json;		/* takes --json, also among its arguments */
} commands[] = {
	/* status checks debugfs itself: it shows the parameters without it */
	{ "status", cmd_status, 0, 0, NEED_SYSFS, true },
	{ "get", cmd_get, 1, 2, NEED_SYSFS, false },
	{ "set", cmd_set, 2, -1, NEED_SYSFS, false },
	{ "stats", cmd_stats, 0, -1, NEED_DEBUGFS, true },
	{ "diff", cmd_diff, 1, -1, NEED_DEBUGFS, false },
	/* ab checks the module itself: --from-csv needs none; --json is its own */
	{ "ab", cmd_ab, 1, -1, 0, false },
	{ "prometheus", cmd_prometheus, 0, 1, NEED_DEBUGFS, false },
	{ "reset", cmd_reset, 0, 0, NEED_DEBUGFS, false },
	{ "unload", cmd_unload, 0, 0, NEED_SYSFS, false },
};

/* Remove -j and --json from the @n arguments in @argv; the new count. */
static int take_json(char **argv, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			json = true;
		else
			argv[k++] = argv[i];
	}
	argv[k] = NULL;
	return k;
}

/* Pick the paths, the options and the command, and dispatch (default: status). */
int main(int argc, char **argv)
{
	const char *cmd;
	int a, nargs, ret;
	size_t i;

	sysfs_dir = env_or("ZSWB_SYSFS", "/sys/module/" MODNAME);
	debugfs_dir = env_or("ZSWB_DEBUGFS", "/sys/kernel/debug/" MODNAME);

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return print_help();
		if (!strcmp(argv[a], "-V") || !strcmp(argv[a], "--version")) {
			puts("zswbctl " ZSWBCTL_VERSION);
			return 0;
		}
		if (strcmp(argv[a], "-j") && strcmp(argv[a], "--json")) {
			msg("unknown option '%s'", argv[a]);
			return print_usage(stderr, EXIT_USAGE);
		}
		json = true;
	}
	cmd = a < argc ? argv[a++] : "status";
	nargs = argc - a;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		if (commands[i].json)
			nargs = take_json(argv + a, nargs);
		if (json && !commands[i].json) {
			msg("--json is for status and stats, not %s", cmd);
			return print_usage(stderr, EXIT_USAGE);
		}
		if (nargs < commands[i].min_args ||
		    (commands[i].max_args >= 0 &&
		     nargs > commands[i].max_args))
			return print_usage(stderr, EXIT_USAGE);
		ret = check_dirs(commands[i].needs);
		if (!ret)
			ret = commands[i].fn(argv + a);
		/* Output that did not reach its reader is a failure too. */
		if (fflush(stdout) || ferror(stdout)) {
			msg("cannot write to stdout: %s", strerror(errno));
			ret = ret ? ret : 1;
		}
		return ret;
	}
	msg("unknown command '%s'", cmd);
	return print_usage(stderr, EXIT_USAGE);
}
