// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl: "ab", an A/B comparison of two (or up to eight) sets of
 * settings on one host: an A/A pair first, as a check that the host is
 * steady, then pairs of runs adjacent in time (A B, B A, ...), each run of
 * the command in a fresh cgroup, and per metric the change of each side
 * against A with its interval and p-value (ab_report.c, ab_stat.c). This
 * file: the options, the checks made before anything runs, and cmd_ab().
 * The runs themselves are ab_run.c's.
 *
 * The command's own figures (its throughput, its latency) are metrics
 * like the others: each run finds in $ZSWBCTL_AB_METRICS the path of a
 * file of its own, where it may write "NAME VALUE" lines; they are
 * reported as cmd.NAME.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab.h"
#include "zswbctl.h"

struct ab_state ab = {
	.pairs = AB_DEFAULT_PAIRS,
	.nr_sides = 2,
	.alpha = AB_DEFAULT_ALPHA,
	.metric = AB_DEFAULT_METRIC,
};

/* The index of metric @name, added if new; -1 if the table is full. */
int ab_metric_idx(const char *name)
{
	int i;

	for (i = 0; i < ab.nr_metrics; i++)
		if (!strcmp(ab.metric_name[i], name))
			return i;
	if (ab.nr_metrics == AB_MAX_METRICS)
		return -1;
	ab.metric_name[ab.nr_metrics] = strdup(name);
	return ab.metric_name[ab.nr_metrics] ? ab.nr_metrics++ : -1;
}

/* A new run at the end of the list, every metric NAN; NULL if out of memory. */
struct run *ab_run_new(enum run_kind kind, int pair, char side)
{
	struct run *tmp, *r;
	int i;

	tmp = realloc(ab.runs, (ab.nr_runs + 1) * sizeof(*tmp));
	if (!tmp) {
		msg("out of memory");
		return NULL;
	}
	ab.runs = tmp;
	r = &ab.runs[ab.nr_runs++];
	r->kind = kind;
	r->pair = pair;
	r->side = side;
	r->exit = 0;
	r->host = NULL;
	for (i = 0; i < AB_MAX_METRICS; i++)
		r->val[i] = NAN;
	return r;
}

/* Parse a decimal number that fills @s; false if it is not one. */
bool ab_parse_double(const char *s, double *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !errno && !*end;
}

/* Parse --a or --b into side @k; 0 or EXIT_USAGE after saying why. */
int ab_side_parse(int k, const char *spec)
{
	struct side *s = &ab.side[k];
	char *copy, *w, *save, *eq;
	int i;

	s->spec = strdup(spec);
	copy = strdup(spec);
	if (!s->spec || !copy) {
		msg("out of memory");
		return 1;
	}
	for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		eq = strchr(w, '=');
		if (!eq || eq == w || !eq[1]) {
			msg("--%c: '%s' is not NAME=VALUE", 'a' + k, w);
			return EXIT_USAGE;
		}
		*eq = '\0';
		for (i = 0; i < s->n; i++)
			if (!strcmp(s->name[i], w)) {
				msg("--%c sets %s twice", 'a' + k, w);
				return EXIT_USAGE;
			}
		if (s->n == AB_MAX_SETTINGS) {
			msg("--%c: more than %d settings", 'a' + k, AB_MAX_SETTINGS);
			return EXIT_USAGE;
		}
		s->name[s->n] = w;
		s->val[s->n++] = eq + 1;
	}
	return 0;
}

/*
 * Give every side the same names: what one side sets and another does
 * not, the other runs with as it is now (sequential), or as the scope
 * starts, the global value (concurrent). Saves each value to put back.
 * 0, or the exit code after saying why (an unknown parameter: 1).
 */
static int sides_complete(void)
{
	int k, o, i, j, err;
	bool used;
	char *cur;

	for (k = 0; k < ab.nr_sides; k++) {
		for (i = 0; i < ab.side[k].n; i++) {
			const char *name = ab.side[k].name[i];

			cur = param_read(name, &err);
			if (!cur)
				return read_failed(name, err);
			err = param_check(name, ab.side[k].val[i]);
			if (err) {
				free(cur);
				return err;
			}
			for (j = 0; j < ab.nr_saved && strcmp(ab.saved_name[j], name); j++)
				;
			if (j == ab.nr_saved && !ab.concurrent) {
				ab.saved_name[j] = (char *)name;
				ab.saved_val[j] = strdup(cur);
				ab.nr_saved = ab.saved_val[j] ? j + 1 : j;
			}
			used = false;
			for (o = 0; o < ab.nr_sides; o++) {
				struct side *so = &ab.side[o];

				for (j = 0; j < so->n && strcmp(so->name[j], name); j++)
					;
				if (j < so->n)
					continue;
				if (so->n == AB_MAX_SETTINGS) {
					msg("--%c: more than %d settings with the other sides'",
					    'a' + o, AB_MAX_SETTINGS);
					return EXIT_USAGE;
				}
				/* the sides share @cur: it lives as long as they do */
				so->name[so->n] = (char *)name;
				so->val[so->n++] = cur;
				used = true;
			}
			if (!used)
				free(cur);
		}
	}
	return 0;
}

/* Whether @cmd can be run as execvp() would find it. */
static bool cmd_found(const char *cmd)
{
	const char *path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
	char buf[PATH_MAX];
	size_t len;

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	while (*path) {
		len = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", cmd);
		if (!access(buf, X_OK)) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode))
				return true;
		}
		path += len + (path[len] == ':');
	}
	return false;
}

/*
 * Whether @v is a size memory.max takes: "max", or a number with an
 * optional K, M, G, T, P or E (memparse()'s suffixes).
 */
static bool mem_size(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (!strcmp(v, "max"))
		return true;
	return n && (!v[n] || (strchr("kKmMgGtTpPeE", v[n]) && !v[n + 1]));
}

/* Parse an integer option @opt from @arg into @v, from @lo to @hi; 0 or EXIT_USAGE. */
static int int_opt(const char *opt, const char *arg, int lo, int hi, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(arg, &end, 10);
	if (errno || *end || end == arg || x < lo || x > hi) {
		msg("ab: %s '%s': a number from %d to %d", opt, arg, lo, hi);
		return EXIT_USAGE;
	}
	*v = x;
	return 0;
}

/* "ab --help": its usage and options. */
static int ab_help(void)
{
	fputs("usage: zswbctl ab [OPTIONS] [--a 'NAME=VALUE ...'] [--b 'NAME=VALUE ...']\n"
	      "                  [--c ...] -- CMD [ARGS ...]\n"
	      "       zswbctl ab [--json] [--csv FILE] [--metric NAME] [--alpha A] [--all]\n"
	      "                  --from-csv FILE\n"
	      "\n"
	      "Runs CMD an A/A pair, then pairs of runs adjacent in time (A B, B A, ...), each\n"
	      "in a fresh cgroup, with side A's settings or B's (C to H add sides, each\n"
	      "compared with A), and reports per metric the change of B against A: the\n"
	      "Hodges-Lehmann estimate with its exact interval and the Wilcoxon signed-rank\n"
	      "p-value of the paired runs. The primary metric is judged at alpha; every other\n"
	      "metric and side is secondary, its p adjusted by Benjamini-Hochberg.\n"
	      "\n"
	      "Options:\n"
	      "  --pairs N        pairs to run (default 10; 6 is the fewest that can reach\n"
	      "                   p <= 0.05), the least with --precision\n"
	      "  --precision X%   add pairs until the primary metric's interval is at most\n"
	      "                   +-X% (needs --max-pairs)\n"
	      "  --max-pairs N    the most pairs --precision runs\n"
	      "  --metric NAME    the primary metric (default wall_s; cmd.NAME for the\n"
	      "                   command's own figures)\n"
	      "  --alpha A        the significance level, and 1 - A the interval's (0.05)\n"
	      "  --all            every metric in the text report, not only those that differ\n"
	      "  --concurrent     A and B at once, each in a policy scope of its own\n"
	      "  --memory-max V   memory.max of each run's cgroup (a size or max)\n"
	      "  --zswap-max V    memory.zswap.max of each run's cgroup\n"
	      "  --drop-caches    empty the page cache before each run\n"
	      "  --warmup         a run before the A/A pair, not reported\n"
	      "  --parent CGROUP  make the cgroups under CGROUP\n"
	      "  -j, --json       the report as JSON\n"
	      "  --csv FILE       every run, every metric, as CSV (- for stdout)\n"
	      "  --from-csv FILE  report again on the runs a --csv saved; nothing is run\n"
	      "\n"
	      "Exits 0, 1 if a run of CMD failed, 64 on bad usage (nothing run), 127 if CMD\n"
	      "is not found, 128+N on signal N. See zswbctl(8), \"ab\".\n", stdout);
	return 0;
}

/* Parse the options of ab; 0, EXIT_USAGE, or -1 when --help was printed. */
static int ab_options(char **argv)
{
	const char *opt, *arg;
	bool seen[AB_MAX_SIDES] = { false }, any = false;
	int i, k, ret;
	char *end;

	for (i = 0; argv[i]; i++) {
		opt = argv[i];
		if (!strcmp(opt, "--")) {
			ab.cmd = argv + i + 1;
			break;
		}
		if (!strcmp(opt, "-h") || !strcmp(opt, "--help"))
			return ab_help() - 1;
		if (!strcmp(opt, "--concurrent")) {
			ab.concurrent = true;
			continue;
		}
		if (!strcmp(opt, "--drop-caches")) {
			ab.drop_caches = true;
			continue;
		}
		if (!strcmp(opt, "--warmup")) {
			ab.warmup = true;
			continue;
		}
		if (!strcmp(opt, "--all")) {
			ab.all = true;
			continue;
		}
		if (!strcmp(opt, "-j") || !strcmp(opt, "--json")) {
			json = true;
			continue;
		}
		if (opt[0] != '-') {
			ab.cmd = argv + i;
			break;
		}
		arg = argv[i + 1];
		if (!arg) {
			msg("ab: %s needs a value", opt);
			return EXIT_USAGE;
		}
		i++;
		ret = 0;
		if (opt[0] == '-' && opt[1] == '-' && opt[2] >= 'a' &&
		    opt[2] < 'a' + AB_MAX_SIDES && !opt[3]) {
			k = opt[2] - 'a';
			if (seen[k]) {
				msg("ab: %s given twice", opt);
				return EXIT_USAGE;
			}
			seen[k] = true;
			any = true;
			ret = ab_side_parse(k, arg);
			if (k >= ab.nr_sides)
				ab.nr_sides = k + 1;
		} else if (!strcmp(opt, "--pairs")) {
			ret = int_opt(opt, arg, 1, AB_MAX_PAIRS, &ab.pairs);
		} else if (!strcmp(opt, "--max-pairs")) {
			ret = int_opt(opt, arg, 1, AB_MAX_PAIRS, &ab.max_pairs);
		} else if (!strcmp(opt, "--precision")) {
			errno = 0;
			ab.precision = strtod(arg, &end);
			if (*end == '%')
				end++;
			if (errno || *end || end == arg ||
			    !(ab.precision > 0 && ab.precision < 100)) {
				msg("ab: --precision '%s': a half-width in %%, from 0 to 100", arg);
				return EXIT_USAGE;
			}
		} else if (!strcmp(opt, "--alpha")) {
			if (!ab_parse_double(arg, &ab.alpha) ||
			    !(ab.alpha > 0 && ab.alpha <= 0.5)) {
				msg("ab: --alpha '%s': a probability above 0, at most 0.5", arg);
				return EXIT_USAGE;
			}
		} else if (!strcmp(opt, "--metric")) {
			ab.metric = arg;
		} else if (!strcmp(opt, "--memory-max") || !strcmp(opt, "--zswap-max")) {
			if (!mem_size(arg)) {
				msg("ab: %s '%s': %s", opt, arg,
				    "a size in bytes, with K, M, G or T if you like, or max");
				return EXIT_USAGE;
			}
			*(opt[2] == 'm' ? &ab.memory_max : &ab.zswap_max) = arg;
		} else if (!strcmp(opt, "--parent")) {
			ab.parent = arg;
		} else if (!strcmp(opt, "--csv")) {
			ab.csv = arg;
		} else if (!strcmp(opt, "--from-csv")) {
			ab.from_csv = arg;
		} else {
			msg("ab: unknown option '%s' (zswbctl ab --help lists them)", opt);
			return EXIT_USAGE;
		}
		if (ret)
			return ret;
	}
	for (k = 0; k < AB_MAX_SIDES; k++) {
		if (!seen[k] && k > 0 && k < ab.nr_sides && ab.nr_sides > 2) {
			msg("ab: --%c without --%c: the sides after B are C, D, ... in turn",
			    'a' + ab.nr_sides - 1, 'a' + k);
			return EXIT_USAGE;
		}
		ret = seen[k] ? 0 : ab_side_parse(k, "");
		if (ret)
			return ret;
	}
	if (ab.concurrent && ab.nr_sides > 2) {
		msg("ab: --concurrent runs two sides, A and B: --%c is for sequential runs",
		    'a' + ab.nr_sides - 1);
		return EXIT_USAGE;
	}
	if (json && ab.csv && !strcmp(ab.csv, "-")) {
		msg("ab: --csv - and --json both write to standard output: give --csv a file");
		return EXIT_USAGE;
	}
	if (ab.precision && !ab.max_pairs) {
		msg("ab: --precision needs --max-pairs N: the most pairs it may run");
		return EXIT_USAGE;
	}
	if (ab.max_pairs && !ab.precision) {
		msg("ab: --max-pairs is --precision's limit: give both, or --pairs alone");
		return EXIT_USAGE;
	}
	if (ab.max_pairs && ab.max_pairs < ab.pairs) {
		msg("ab: --max-pairs %d is below --pairs %d", ab.max_pairs, ab.pairs);
		return EXIT_USAGE;
	}
	if (ab.from_csv && ((ab.cmd && *ab.cmd) || any)) {
		msg("ab: --from-csv reports on saved runs: it takes no command or settings");
		return EXIT_USAGE;
	}
	if (ab.from_csv && (ab.precision || ab.concurrent || ab.warmup || ab.drop_caches ||
			    ab.memory_max || ab.zswap_max || ab.parent)) {
		msg("ab: --from-csv runs nothing: the options of the runs do not apply");
		return EXIT_USAGE;
	}
	if (!ab.from_csv && (!ab.cmd || !*ab.cmd)) {
		msg("ab: no command to run (ab [OPTIONS] -- CMD [ARGS])");
		return EXIT_USAGE;
	}
	return 0;
}

/* Print the report as --json or text asks, and the CSV; 0 or 1. */
static int ab_output(void)
{
	int ret = 0;

	if (ab.csv)
		ret = ab_write_csv(ab.csv);
	if (json)
		ab_report_json();
	else
		ab_report_text(stdout);
	return ret;
}

/* The metrics a --csv file has, on stderr, after an unknown --metric. */
static int unknown_metric(const char *where)
{
	int m;

	msg("ab: --metric '%s': no such metric in %s; it has:", ab.metric, where);
	for (m = 0; m < ab.nr_metrics; m++)
		fprintf(stderr, "  %s\n", ab.metric_name[m]);
	return EXIT_USAGE;
}

/*
 * "ab [OPTIONS] [--a 'NAME=VALUE ...'] [--b 'NAME=VALUE ...'] -- CMD
 * [ARGS]". Everything is checked before the first run: the options, the
 * module, every name and value, the command, the cgroups and the scopes.
 * Exits 0 when every run of CMD exited 0, 1 when one did not, 128+N on
 * signal N.
 */
int cmd_ab(char **argv)
{
	struct sigaction sa = { .sa_handler = ab_signal }, old[AB_NR_SIGNALS];
	int ret, i, failed = 0;

	ret = ab_options(argv);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (ab.from_csv) {
		ret = ab_read_csv(ab.from_csv);
		if (!ret && ab_primary() < 0)
			ret = unknown_metric(ab.from_csv);
		return ret ? ret : ab_output();
	}
	ret = check_dirs(NEED_SCHEMA);
	if (!ret)
		ret = ab_check_metric_name(ab.metric);
	if (!ret)
		ret = sides_complete();
	if (ret)
		return ret;
	if (!cmd_found(ab.cmd[0])) {
		msg("ab: cannot run %s: %s", ab.cmd[0], strerror(ENOENT));
		return 127;
	}
	/* From here on, everything made is undone on every way out. */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < AB_NR_SIGNALS; i++)
		sigaction(ab_signals[i], &sa, &old[i]);
	ret = ab.concurrent ? ab_scopes_setup() : 0;
	if (!ret) {
		ab_metrics_setup();
		ret = ab_cgroup_setup();
	}
	if (!ret && !ab_stop)
		ret = ab_run_all();
	ab_cleanup();
	for (i = 0; i < AB_NR_SIGNALS; i++)
		sigaction(ab_signals[i], &old[i], NULL);
	if (ab_stop) {
		msg("ab: stopped by signal %d; the settings are put back", (int)ab_stop);
		return 128 + ab_stop;
	}
	if (ret)
		return ret;
	if (ab_primary() < 0) {
		msg("ab: --metric '%s': the runs did not measure it", ab.metric);
		return EXIT_USAGE;
	}
	ret = ab_output();
	for (i = 0; i < ab.nr_runs; i++)
		failed += ab.runs[i].exit != 0;
	return ret ? ret : failed ? 1 : 0;
}
