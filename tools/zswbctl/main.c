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
 * This file: the command table (each command's usage, help and options),
 * the global options, the usage and the exit codes. The commands are in
 * params.c, stats.c, ab.c, fleet.c and prom.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zswbctl.h"

#ifndef ZSWBCTL_VERSION
#error "ZSWBCTL_VERSION is not set: build with tools/zswbctl/Makefile, which reads dkms.conf"
#endif

const char *sysfs_dir;
const char *debugfs_dir;
bool json;
bool json_printed;

static int cmd_help(char **argv);

/*
 * A command: what runs it, its arguments and what it needs, and the words
 * of --help, "zswbctl help CMD" and "zswbctl CMD --help".
 */
struct command {
	const char *name;
	int (*fn)(char **argv);	/* argv: the arguments, NULL-terminated */
	int min_args, max_args;	/* max_args < 0: no limit */
	int needs;
	bool json;		/* takes --json, also among its arguments */
	/*
	 * The options it takes, NULL-terminated, "NAME=" for one that takes
	 * a value; NULL: it reads its own options, --help too (ab).
	 */
	const char *const *opts;
	bool opts_first;	/* options only before the first operand */
	/* after "zswbctl ", a line per form; one that starts with a space goes on */
	const char *usage;
	const char *help;	/* lines of at most 62 columns */
};

static const char *const no_opts[] = { NULL };
static const char *const get_opts[] = { "-c", "--choices", NULL };
static const char *const stats_opts[] = { "--scope=", NULL };

static const struct command commands[] = {
	/* status checks debugfs itself: it shows the parameters without it */
	{ "status", cmd_status, 0, 0, NEED_SYSFS, true, no_opts, false,
	  "[-j|--json] [status]",
	  "every parameter as \"name = value\", then the statistics\n"
	  "(the default command); the parameters alone, and a note\n"
	  "on stderr, when debugfs cannot be read; -j, --json: as JSON" },
	{ "get", cmd_get, 1, 2, NEED_SYSFS, false, get_opts, false,
	  "get [-c|--choices] NAME",
	  "print the value of parameter NAME; with --choices, every\n"
	  "choice of a policy, the current one in brackets" },
	{ "set", cmd_set, 2, -1, NEED_SCHEMA, false, no_opts, false,
	  "set NAME VALUE [NAME VALUE ...]",
	  "set parameters in order; if one fails, put back those set" },
	{ "stats", cmd_stats, 0, -1, NEED_DEBUGFS, true, stats_opts, false,
	  "[-j|--json] stats [--scope NAME] [KEY ...]",
	  "print the statistics, or the values of the KEYs in order;\n"
	  "--scope NAME: those of policy scope NAME; -j, --json: as JSON" },
	{ "diff", cmd_diff, 1, -1, NEED_SCHEMA, false, no_opts, true,
	  "diff [--] CMD [ARGS ...]",
	  "run CMD and print how each counter changed (gauges and\n"
	  "latency percentiles are left out: they are not deltas);\n"
	  "exits with the status of CMD" },
	/* ab checks the module itself: --from-csv needs none; --json is its own */
	{ "ab", cmd_ab, 1, -1, 0, false, NULL, false,
	  "ab [OPTIONS] [--a 'NAME=VALUE ...'] [--b ...] -- CMD [ARGS ...]\n"
	  "ab [--json] [--csv FILE] [--metric NAME] [--alpha A] [--all]\n"
	  "    --from-csv FILE",
	  "an A/B comparison: an A/A pair (a check of the host), then\n"
	  "--pairs N pairs (10) of CMD adjacent in time (A B, B A, ...),\n"
	  "each run in a fresh cgroup, with the settings of --a or --b\n"
	  "(sequential: the parameters, put back at the end;\n"
	  "--concurrent: A and B at once, each in a policy scope);\n"
	  "per metric B's change against A with its 95% interval\n"
	  "(Hodges-Lehmann) and p (Wilcoxon signed-rank, exact); the\n"
	  "primary metric (--metric, wall_s) judged at --alpha (0.05),\n"
	  "the others Benjamini-Hochberg adjusted. --c ... --h add\n"
	  "sides, each compared with A. --from-csv FILE reports again\n"
	  "on the runs a --csv saved. 'zswbctl ab --help' lists its\n"
	  "options. Exits 1 if a run of CMD failed, 127 if CMD is not\n"
	  "found" },
	/* fleet needs no module: it asks a Prometheus server; --json is its own */
	{ "fleet", cmd_fleet, 1, -1, 0, false, NULL, false,
	  "fleet --url URL --metric EXPR (--from TIME | --range DUR)\n"
	  "    [--to TIME] (--a SETTINGS --b SETTINGS | --a-hosts LIST\n"
	  "    --b-hosts LIST | --a-scopes LIST --b-scopes LIST) [--json]\n"
	  "    [--csv FILE] [--alpha A]",
	  "the verdict on a fleet's A/B comparison: EXPR from the\n"
	  "Prometheus server at URL over the range, its mean per host\n"
	  "and arm (the arms: the scopes' settings label, lists of\n"
	  "hosts or of scopes), reported as ab does: paired by host\n"
	  "(signed-rank) when every host runs both arms, else\n"
	  "unpaired (rank-sum, Mann-Whitney). 'zswbctl fleet --help'\n"
	  "lists its options. Exits 7 if no server answered, 8 if the\n"
	  "query returned nothing, 9 if a host or scope is in both\n"
	  "arms, 10 if the range is shorter than the scrape interval" },
	/* prometheus checks the module itself: without it, zswap_wb_up 0 */
	{ "prometheus", cmd_prometheus, 0, 1, 0, false, no_opts, false,
	  "prometheus [FILE]",
	  "parameters, statistics and the free-latency histogram in\n"
	  "the Prometheus text format, for node_exporter's textfile\n"
	  "collector, with zswap_wb_up 1; zswap_wb_up 0 alone when\n"
	  "the module cannot be read (exit status: why); FILE is\n"
	  "replaced atomically, else stdout" },
	{ "reset", cmd_reset, 0, 0, NEED_DEBUGFS, false, no_opts, false,
	  "reset",
	  "zero the counters (gauges are kept)" },
	{ "unload", cmd_unload, 0, 0, NEED_SCHEMA, false, no_opts, false,
	  "unload",
	  "turn the free policies off (those the module says drain),\n"
	  "waiting for the folios in flight, then remove the module" },
	{ "help", cmd_help, 0, 1, 0, false, no_opts, false,
	  "help [CMD]",
	  "print this help, or the usage and help of command CMD" },
};

/* The command being run, for print_usage(); NULL before one is picked. */
static const struct command *current;

/* The command named @name, or NULL. */
static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* @text on stdout, its first line after @first, the others after @rest. */
static void print_indented(const char *first, const char *rest, const char *text)
{
	const char *nl;

	do {
		nl = strchrnul(text, '\n');
		printf("%s%.*s\n", first, (int)(nl - text), text);
		first = rest;
		text = nl + 1;
	} while (*nl);
}

/* @c's forms on @f, the first after "usage: " if @first. */
static void print_forms(FILE *f, const struct command *c, bool first)
{
	const char *line = c->usage, *nl;

	do {
		nl = strchrnul(line, '\n');
		fprintf(f, "%s%.*s\n", first ? "usage: zswbctl " :
			*line == ' ' ? "              " : "       zswbctl ",
			(int)(nl - line), line);
		first = false;
		line = nl + 1;
	} while (*nl);
}

/*
 * Print the usage on @f, that of the command being run if there is one,
 * and return @code for main() to exit with.
 */
int print_usage(FILE *f, int code)
{
	size_t i;

	if (current) {
		print_forms(f, current, true);
		if (code)
			fprintf(f, "Run 'zswbctl help %s' for more.\n", current->name);
		return code;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		print_forms(f, &commands[i], !i);
	fputs("       zswbctl -h|--help | -V|--version\n", f);
	if (code)
		fputs("Run 'zswbctl --help' for the commands, values and exit codes.\n", f);
	return code;
}

/* "--help", "help": the usage, then the commands, parameters and exit codes. */
static int print_help(void)
{
	char name[16];
	size_t i;

	current = NULL;
	print_usage(stdout, 0);
	fputs("\nCommands:\n", stdout);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		snprintf(name, sizeof(name), "  %-11s ", commands[i].name);
		print_indented(name, "              ", commands[i].help);
	}
	fputs("\nOptions:\n"
	      "  -j, --json     print status and stats as JSON, and errors as\n"
	      "                 {\"error\": \"...\"} on stdout\n"
	      "  -h, --help     print this help; after a command, its own\n"
	      "  -V, --version  print the version, and that of the module loaded\n"
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
	      "  7   fleet: no Prometheus server answered at the URL\n"
	      "  8   fleet: the query returned nothing, or nothing for an arm\n"
	      "  9   fleet: a host or a scope is in both arms\n"
	      "  10  fleet: the range is shorter than the server's scrape interval\n"
	      "  64  bad usage: unknown command or option, wrong arguments, invalid value\n"
	      "  diff exits with the status of CMD (126, 127: cannot run; 128+N: signal N)\n"
	      "\nEnvironment: ZSWB_SYSFS (default /sys/module/" MODNAME "),\n"
	      "ZSWB_DEBUGFS (default /sys/kernel/debug/" MODNAME "),\n"
	      "ZSWB_KALLSYMS (default /proc/kallsyms), ZSWB_KCONFIG (default\n"
	      "/boot/config-$(uname -r)), ZSWB_LOCKDOWN (default\n"
	      "/sys/kernel/security/lockdown), ZSWB_NO_DELETE_MODULE=1 (unload: skip\n"
	      "delete_module), COLUMNS (the width text fits; default: the terminal's,\n"
	      "no limit off a terminal). See zswbctl(8).\n", stdout);
	return 0;
}

/* "CMD --help", "help CMD": @c's usage and what it does. */
static int print_cmd_help(const struct command *c)
{
	print_forms(stdout, c, true);
	putchar('\n');
	print_indented("  ", "  ", c->help);
	if (c->fn == cmd_get || c->fn == cmd_set) {
		fputs("\nParameters (/sys/module/" MODNAME "/parameters):\n", stdout);
		print_params_help();
	}
	fputs("\n'zswbctl --help' lists the exit codes; zswbctl(8) says more.\n", stdout);
	return 0;
}

/* "help [CMD]": the help, or that of CMD (ab and fleet print their own). */
static int cmd_help(char **argv)
{
	char help[] = "--help", *ab_argv[] = { help, NULL };
	const struct command *c;

	if (!argv[0])
		return print_help();
	c = find_command(argv[0]);
	if (!c) {
		msg("unknown command '%s'", argv[0]);
		return print_usage(stderr, EXIT_USAGE);
	}
	return c->opts ? print_cmd_help(c) : c->fn(ab_argv);
}

/* "--version": the tool's, and that of the module loaded, if one is. */
static int print_version(void)
{
	char path[PATH_MAX], *ver;
	struct stat st;
	int err;

	printf("zswbctl %s\n", ZSWBCTL_VERSION);
	snprintf(path, sizeof(path), "%s/version", sysfs_dir);
	ver = read_all(path, &err);
	if (ver) {
		ver[strcspn(ver, "\n")] = '\0';
		printf("module: " MODNAME " %s\n", ver);
		free(ver);
	} else if (stat(sysfs_dir, &st) || !S_ISDIR(st.st_mode)) {
		puts("module: not loaded");
	} else {
		printf("module: " MODNAME " loaded, version unknown (%s: %s)\n", path,
		       strerror(-err));
	}
	return 0;
}

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

/*
 * Read @c's options among the *@n arguments in @argv: 1 if one is -h or
 * --help, EXIT_USAGE after saying why if @c does not take one, else 0.
 * "--" ends them and is dropped, but for diff, where CMD may follow it;
 * a word that starts with "-" and a digit, or is "-", is no option.
 */
static int read_opts(const struct command *c, char **argv, int *n)
{
	const char *const *o;
	size_t len;
	int i;

	for (i = 0; i < *n; i++) {
		if (!strcmp(argv[i], "--")) {
			if (!c->opts_first) {
				memmove(argv + i, argv + i + 1, (*n - i) * sizeof(*argv));
				(*n)--;
			}
			return 0;
		}
		if (argv[i][0] != '-' || !argv[i][1] || isdigit((unsigned char)argv[i][1])) {
			if (c->opts_first)
				return 0;
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
		for (o = c->opts; *o; o++) {
			len = strlen(*o);
			if ((*o)[len - 1] == '=')
				len--;
			if (!strncmp(argv[i], *o, len) && !argv[i][len])
				break;
		}
		if (!*o) {
			msg("%s: unknown option '%s'", c->name, argv[i]);
			return EXIT_USAGE;
		}
		if ((*o)[len] == '=')
			i++;	/* its value */
	}
	return 0;
}

/* Pick the paths, the options and the command, and run it (default: status). */
static int run(int argc, char **argv)
{
	const struct command *c;
	int a, nargs, ret;

	sysfs_dir = env_or("ZSWB_SYSFS", "/sys/module/" MODNAME);
	debugfs_dir = env_or("ZSWB_DEBUGFS", "/sys/kernel/debug/" MODNAME);

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return print_help();
		if (!strcmp(argv[a], "-V") || !strcmp(argv[a], "--version"))
			return print_version();
		if (strcmp(argv[a], "-j") && strcmp(argv[a], "--json")) {
			msg("unknown option '%s'", argv[a]);
			return print_usage(stderr, EXIT_USAGE);
		}
		json = true;
	}
	c = find_command(a < argc ? argv[a++] : "status");
	if (!c) {
		msg("unknown command '%s'", argv[a - 1]);
		return print_usage(stderr, EXIT_USAGE);
	}
	current = c;
	nargs = argc - a;
	if (c->json)
		nargs = take_json(argv + a, nargs);
	ret = c->opts ? read_opts(c, argv + a, &nargs) : 0;
	if (ret == 1)
		return print_cmd_help(c);
	if (ret)
		return print_usage(stderr, ret);
	if (json && !c->json) {
		msg("--json is for status and stats, not %s", c->name);
		return print_usage(stderr, EXIT_USAGE);
	}
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
		return print_usage(stderr, EXIT_USAGE);
	ret = check_dirs(c->needs);
	return ret ? ret : c->fn(argv + a);
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/*
	 * With --json, a failure says why on stdout too, unless JSON is there
	 * (ab, whose --json is its own, reports its failures itself).
	 */
	if (ret && json && !json_printed && (!current || current->opts))
		json_error(current ? current->name : NULL, ret);
	/* Output that did not reach its reader is a failure too. */
	if (fflush(stdout) || ferror(stdout)) {
		msg("cannot write to stdout: %s", strerror(errno));
		ret = ret ? ret : 1;
	}
	return ret;
}
