// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl fleet: the verdict on an A/B comparison that ran on a fleet,
 * from the series a Prometheus server keeps (fleet.h). One value per host
 * and arm: the mean over the range of a range query of --metric, the
 * series of a host that belong to one arm averaged. The arms are the
 * settings of each series' policy scope (zswap_wb_scope_info's "settings"
 * label, joined here on instance and scope), lists of hosts, or lists of
 * scopes by name. Paired by host when every host runs both arms (a scope
 * each), unpaired when each runs one; then ab_report.c reports as for
 * zswbctl ab, each host a pair (paired) or a run of its arm (unpaired).
 *
 * A range query rather than an instant avg_over_time(): it takes any
 * expression as it is (a recording rule or PromQL, no subquery), and each
 * series' points are seen, so a series with none in the range is left out
 * rather than averaged from before it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ab.h"
#include "fleet.h"
#include "zswbctl.h"

#define FLEET_MAX_HOSTS		AB_MAX_PAIRS
#define FLEET_TIMEOUT		30	/* seconds, each request */
#define FLEET_MAX_POINTS	10000	/* per series; the server allows 11,000 */
#define FLEET_INFO		"zswap_wb_scope_info"
#define FLEET_DEFAULT_STEP	60	/* when the server names no interval */
#define TIME_FORMS	"a time is RFC 3339 (2025-01-31T12:00:00Z), Unix seconds or now"

/* The ways to name the arms: an option for A and one for B each. */
enum fleet_by { BY_SETTINGS, BY_HOSTS, BY_SCOPES, NR_BY };

static const struct {
	const char *opt[2];	/* A's option, B's */
	const char *what;	/* the side's spec for the report: what=n1,n2 */
	const char *one;	/* one name of the list */
} by[NR_BY] = {
	[BY_SETTINGS]	= { { "--a", "--b" }, "settings", "setting" },
	[BY_HOSTS]	= { { "--a-hosts", "--b-hosts" }, "hosts", "host" },
	[BY_SCOPES]	= { { "--a-scopes", "--b-scopes" }, "scopes", "scope" },
};

/* The options, as given. */
static struct {
	struct fleet_server srv;
	const char *metric, *name, *from, *to, *range, *step, *host_label;
	const char *arm[NR_BY][2];	/* each way's A and B, as by[] names them */
	enum fleet_by by;		/* the way given */
} opt = {
	.srv.timeout = FLEET_TIMEOUT,
	.host_label = "instance",
};

/* A host: the sum and count of its series' means, per arm. */
struct host {
	char *name;
	double sum[2];
	int n[2];
};

static struct host *hosts;
static int nr_hosts;

bool fleet_parse_duration(const char *s, double *secs)
{
	static const struct {
		const char *unit;
		double secs;
	} units[] = {	/* "ms" before "m" */
		{ "ms", 0.001 }, { "s", 1 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 },
		{ "w", 604800 }, { "y", 31536000 },
	};
	unsigned long long v;
	size_t i;
	char *end;

	*secs = 0;
	if (!*s)
		return false;
	while (*s) {
		if (*s < '0' || *s > '9')
			return false;
		v = strtoull(s, &end, 10);
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!strncmp(end, units[i].unit, strlen(units[i].unit)))
				break;
		if (i == ARRAY_SIZE(units))
			return false;
		*secs += v * units[i].secs;
		s = end + strlen(units[i].unit);
	}
	return true;
}

/*
 * A time: "now", Unix seconds, or RFC 3339 (2025-01-31T12:00:00Z, a
 * fraction and an offset allowed), into *@t; false if it is none.
 */
static bool parse_time(const char *s, double now, double *t)
{
	struct tm tm = { 0 };
	double frac = 0;
	int hh, mm, k = 0, off = 0;
	char *end;

	if (!strcmp(s, "now")) {
		*t = now;
		return true;
	}
	if (ab_parse_double(s, t))
		return isfinite(*t) && *t >= 0;
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return false;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9')
		frac = strtod(end, &end);
	if ((*end == '+' || *end == '-') && sscanf(end + 1, "%2d:%2d%n", &hh, &mm, &k) == 2 &&
	    !end[1 + k] && hh < 24 && mm < 60)
		off = (*end == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
	else if ((*end != 'Z' && *end != 'z') || end[1])
		return false;
	*t = (double)timegm(&tm) + frac - off;
	return true;
}

/* @t as RFC 3339 UTC, to the second, into @buf. */
static void fmt_time(char *buf, size_t len, double t)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	if (gmtime_r(&s, &tm))
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "%.0f", t);
}

/* @secs as the shortest Prometheus duration that says it: 90 -> 1m30s. */
static void fmt_duration(char *buf, size_t len, double secs)
{
	static const struct {
		char unit;
		long secs;
	} units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
	long v = lround(secs);
	size_t i, n = 0;

	*buf = '\0';
	if (v < 1 || fabs(secs - v) > 0.0005) {
		snprintf(buf, len, "%gs", secs);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units) && n < len; i++) {
		if (v < units[i].secs)
			continue;
		n += snprintf(buf + n, len - n, "%ld%c", v / units[i].secs, units[i].unit);
		v %= units[i].secs;
	}
}

const char *fleet_label(const struct fleet_series *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_labels; i++)
		if (!strcmp(s->label[i].name, name))
			return s->label[i].val;
	return NULL;
}

void fleet_series_free(struct fleet_series *s, int n)
{
	int i, j;

	for (i = 0; s && i < n; i++) {
		for (j = 0; j < s[i].nr_labels; j++) {
			free(s[i].label[j].name);
			free(s[i].label[j].val);
		}
		free(s[i].label);
	}
	free(s);
}

/* Whether instance @inst is host @h: the same, or @h without the port. */
static bool same_host(const char *inst, const char *h, size_t hlen)
{
	const char *colon = strrchr(inst, ':');
	size_t ilen = strlen(inst);

	if (hlen == ilen && !strncmp(inst, h, hlen))
		return true;
	return colon && (size_t)(colon - inst) == hlen && !strncmp(inst, h, hlen);
}

/*
 * Whether @name is in the list @list (names apart by commas or spaces):
 * the same name, or for a host (@host) the same without the port.
 */
static bool in_list(const char *list, const char *name, bool host)
{
	size_t len;

	while (*list) {
		list += strspn(list, ", \t");
		len = strcspn(list, ", \t");
		if (len && (host ? same_host(name, list, len) :
			    len == strlen(name) && !strncmp(name, list, len)))
			return true;
		list += len;
	}
	return false;
}

/*
 * Whether the settings label @settings ("name=value ...") has every
 * NAME=VALUE word of side @k (ab.side, parsed from --a or --b).
 */
static bool settings_match(int k, const char *settings)
{
	const struct side *sd = &ab.side[k];
	size_t nlen, vlen;
	const char *w;
	int i;

	for (i = 0; i < sd->n; i++) {
		nlen = strlen(sd->name[i]);
		vlen = strlen(sd->val[i]);
		for (w = settings; *w; w += strcspn(w, " ")) {
			w += strspn(w, " ");
			if (!strncmp(w, sd->name[i], nlen) && w[nlen] == '=' &&
			    !strncmp(w + nlen + 1, sd->val[i], vlen) &&
			    (!w[nlen + 1 + vlen] || w[nlen + 1 + vlen] == ' '))
				break;
		}
		if (!*w)
			return false;
	}
	return true;
}

/* The host named @name, added if new; NULL if out of memory or too many. */
static struct host *host_get(const char *name)
{
	struct host *tmp;
	int i;

	for (i = 0; i < nr_hosts; i++)
		if (!strcmp(hosts[i].name, name))
			return &hosts[i];
	if (nr_hosts == FLEET_MAX_HOSTS) {
		msg("fleet: more than %d hosts", FLEET_MAX_HOSTS);
		return NULL;
	}
	tmp = realloc(hosts, (nr_hosts + 1) * sizeof(*tmp));
	if (!tmp) {
		msg("out of memory");
		return NULL;
	}
	hosts = tmp;
	memset(&hosts[nr_hosts], 0, sizeof(*hosts));
	hosts[nr_hosts].name = strdup(name);
	if (!hosts[nr_hosts].name) {
		msg("out of memory");
		return NULL;
	}
	return &hosts[nr_hosts++];
}

/* "fleet --help": its usage and options. */
static int fleet_help(void)
{
	fputs("usage: zswbctl fleet --url URL --metric EXPR (--from TIME | --range DURATION)\n"
	      "                     [--to TIME] (--a SETTINGS --b SETTINGS |\n"
	      "                     --a-hosts LIST --b-hosts LIST |\n"
	      "                     --a-scopes LIST --b-scopes LIST) [OPTIONS]\n"
	      "\n"
	      "Asks the Prometheus server at URL for EXPR over the range (a range query),\n"
	      "takes per host and arm the mean of its series, and reports B's change against\n"
	      "A as zswbctl ab does: paired by host (Wilcoxon signed-rank) when every host runs\n"
	      "both arms, as policy scopes; unpaired (Wilcoxon rank-sum, Mann-Whitney) when\n"
	      "each host runs one. The change is the Hodges-Lehmann estimate with its exact\n"
	      "interval.\n"
	      "\n"
	      "Options:\n"
	      "  --url URL         the Prometheus server, e.g. http://prometheus:9090\n"
	      "  --metric EXPR     a recording rule or PromQL expression with one series per\n"
	      "                    host (instance) or per host and scope, e.g.\n"
	      "                    zswap_wb_scope:freed_per_written_back:ratio_rate5m\n"
	      "  --name NAME       the metric's name in the report (default: EXPR if it is a\n"
	      "                    metric name, else value)\n"
	      "  --from TIME       the range's start: RFC 3339, Unix seconds or now\n"
	      "  --to TIME         its end (default now)\n"
	      "  --range DURATION  its length, instead of --from (30m, 6h, 1d, 1w)\n"
	      "  --step DURATION   between the query's points (default: the server's longest\n"
	      "                    scrape or rule evaluation interval)\n"
	      "  --a SETTINGS      arm A: the series whose scope's settings label has every\n"
	      "  --b SETTINGS      NAME=VALUE word of SETTINGS (e.g. 'async_free=N')\n"
	      "  --a-hosts LIST    arm A: every series of these hosts (names apart by commas;\n"
	      "  --b-hosts LIST    a name without a port matches the instance with one)\n"
	      "  --a-scopes LIST   arm A: every series of these policy scopes (names apart by\n"
	      "  --b-scopes LIST   commas; a series without a scope label is global), as for\n"
	      "                    an A/A test on every host\n"
	      "  --host-label L    the label that names the host (default instance)\n"
	      "  --alpha A         the significance level, and 1 - A the interval's (0.05)\n"
	      "  --timeout SECS    for each request to the server (30)\n"
	      "  -j, --json        the report as JSON\n"
	      "  --csv FILE        each host's value per arm as CSV (- for stdout), which\n"
	      "                    zswbctl ab --from-csv reports on again\n"
	      "\n"
	      "Exits 0; 1 if the server failed the query; 7 if no Prometheus server answered\n"
	      "at URL; 8 if the query returned nothing, or nothing for an arm; 9 if a host or\n"
	      "a scope is in both arms; 10 if the range is shorter than the scrape interval;\n"
	      "64 on bad usage or an expression the server refused. See zswbctl(8), \"fleet\".\n",
	      stdout);
	return 0;
}

/* Parse the options of fleet; 0, EXIT_USAGE, or -1 when --help was printed. */
static int fleet_options(char **argv)
{
	const char **dst;
	const char *o, *arg;
	int i, w, k, nr_by;
	double v;

	for (i = 0; argv[i]; i++) {
		o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help"))
			return fleet_help() - 1;
		if (!strcmp(o, "-j") || !strcmp(o, "--json")) {
			json = true;
			continue;
		}
		if (o[0] != '-') {
			msg("fleet: '%s': fleet takes options only (zswbctl fleet --help)", o);
			return EXIT_USAGE;
		}
		dst = !strcmp(o, "--url") ? &opt.srv.url : !strcmp(o, "--metric") ? &opt.metric :
		      !strcmp(o, "--name") ? &opt.name : !strcmp(o, "--from") ? &opt.from :
		      !strcmp(o, "--to") ? &opt.to : !strcmp(o, "--range") ? &opt.range :
		      !strcmp(o, "--step") ? &opt.step :
		      !strcmp(o, "--host-label") ? &opt.host_label :
		      !strcmp(o, "--csv") ? &ab.csv : NULL;
		for (w = 0; !dst && w < NR_BY; w++)
			for (k = 0; !dst && k < 2; k++)
				if (!strcmp(o, by[w].opt[k]))
					dst = &opt.arm[w][k];
		if (!dst && strcmp(o, "--alpha") && strcmp(o, "--timeout")) {
			msg("fleet: unknown option '%s' (zswbctl fleet --help lists them)", o);
			return EXIT_USAGE;
		}
		arg = argv[++i];
		if (!arg) {
			msg("fleet: %s needs a value", o);
			return EXIT_USAGE;
		}
		if (!strcmp(o, "--alpha")) {
			if (!ab_parse_double(arg, &ab.alpha) ||
			    !(ab.alpha > 0 && ab.alpha <= 0.5)) {
				msg("fleet: --alpha '%s': a probability above 0, at most 0.5", arg);
				return EXIT_USAGE;
			}
		} else if (!strcmp(o, "--timeout")) {
			if (!ab_parse_double(arg, &v) || !(v >= 1 && v <= 3600)) {
				msg("fleet: --timeout '%s': seconds, from 1 to 3600", arg);
				return EXIT_USAGE;
			}
			opt.srv.timeout = (long)v;
		} else if (*dst && dst != &opt.host_label) {
			msg("fleet: %s given twice", o);
			return EXIT_USAGE;
		}
		if (dst)
			*dst = arg;
	}
	if (!opt.srv.url || !opt.metric) {
		msg("fleet: %s",
		    opt.srv.url ? "no --metric EXPR" : "no --url of a Prometheus server");
		return EXIT_USAGE;
	}
	if (!!opt.from == !!opt.range) {
		msg("fleet: give the range's start, --from TIME, or its length, --range DURATION%s",
		    opt.from ? ", not both" : "");
		return EXIT_USAGE;
	}
	/* one way to name the arms, both of its options */
	for (w = 0, nr_by = 0; w < NR_BY; w++) {
		if (opt.arm[w][0] || opt.arm[w][1]) {
			opt.by = w;
			nr_by++;
		}
	}
	w = opt.by;
	if (nr_by == 1 && !opt.arm[w][0] != !opt.arm[w][1]) {
		msg("fleet: %s goes with %s: give both", by[w].opt[!opt.arm[w][0]],
		    by[w].opt[!opt.arm[w][1]]);
		return EXIT_USAGE;
	}
	if (nr_by != 1) {
		msg("fleet: name the arms one way: --a and --b (settings), %s",
		    "--a-hosts and --b-hosts, or --a-scopes and --b-scopes");
		return EXIT_USAGE;
	}
	if (json && ab.csv && !strcmp(ab.csv, "-")) {
		msg("fleet: --csv - and --json both write to standard output: give --csv a file");
		return EXIT_USAGE;
	}
	if (!*opt.host_label) {
		msg("fleet: --host-label: a label name");
		return EXIT_USAGE;
	}
	return 0;
}

/* The length of host name @h (@len bytes) without its port. */
static size_t host_len(const char *h, size_t len)
{
	const char *colon = memrchr(h, ':', len);

	return colon ? (size_t)(colon - h) : len;
}

/* The next name of list *@p, its length into *@len; NULL at the end. */
static const char *list_next(const char **p, size_t *len)
{
	const char *h = *p + strspn(*p, ", \t");

	*len = strcspn(h, ", \t");
	*p = h + *len;
	return *len ? h : NULL;
}

/* The length of name @n (@len bytes) as a list compares it: a host's without its port. */
static size_t name_len(const char *n, size_t len)
{
	return opt.by == BY_HOSTS ? host_len(n, len) : len;
}

/*
 * Side @k named by a list, of hosts or scopes: "hosts=h1,h2" or
 * "scopes=s1,s2" for the report. 0 or the exit status.
 */
static int list_side(int k)
{
	const char *p = opt.arm[opt.by][k], *what = by[opt.by].what, *n;
	size_t len, at = strlen(what) + 1;
	char *spec = malloc(at + strlen(p) + 1);
	int ret;

	if (!spec) {
		msg("out of memory");
		return EXIT_FAIL;
	}
	sprintf(spec, "%s=", what);
	while ((n = list_next(&p, &len)))
		sprintf(spec + strlen(spec), "%s%.*s", spec[at] ? "," : "", (int)len, n);
	if (!spec[at]) {
		msg("fleet: %s: no %s", by[opt.by].opt[k], by[opt.by].one);
		free(spec);
		return EXIT_USAGE;
	}
	ret = ab_side_parse(k, spec);
	free(spec);
	return ret;
}

/* The range, the step and the arms from the options; 0 or the exit status. */
static int fleet_setup(void)
{
	const char *pa, *pb, *na, *nb;
	double now = (double)time(NULL), len;
	size_t la, lb;
	int k, ret;

	if (!parse_time(opt.to ? opt.to : "now", now, &opt.srv.to)) {
		msg("fleet: --to '%s': %s", opt.to, TIME_FORMS);
		return EXIT_USAGE;
	}
	if (opt.from && !parse_time(opt.from, now, &opt.srv.from)) {
		msg("fleet: --from '%s': %s", opt.from, TIME_FORMS);
		return EXIT_USAGE;
	}
	if (opt.range) {
		if (!fleet_parse_duration(opt.range, &len) || !(len > 0)) {
			msg("fleet: --range '%s': a duration such as 30m, 6h, 1d", opt.range);
			return EXIT_USAGE;
		}
		opt.srv.from = opt.srv.to - len;
	}
	if (!(opt.srv.from < opt.srv.to)) {
		msg("fleet: the range ends before it starts");
		return EXIT_USAGE;
	}
	if (opt.step && (!fleet_parse_duration(opt.step, &opt.srv.step) || !(opt.srv.step > 0))) {
		msg("fleet: --step '%s': a duration such as 15s, 1m", opt.step);
		return EXIT_USAGE;
	}
	for (k = 0; k < 2; k++) {
		ret = opt.by == BY_SETTINGS ? ab_side_parse(k, opt.arm[BY_SETTINGS][k]) :
		      list_side(k);
		if (ret)
			return ret;
		if (!ab.side[k].n) {
			msg("fleet: --%c: no NAME=VALUE setting", 'a' + k);
			return EXIT_USAGE;
		}
	}
	if (opt.by == BY_SETTINGS)
		return 0;
	/* a name in both lists (a host with a port or without): each is in one arm */
	for (pa = opt.arm[opt.by][0]; (na = list_next(&pa, &la));) {
		for (pb = opt.arm[opt.by][1]; (nb = list_next(&pb, &lb));) {
			if (name_len(na, la) != name_len(nb, lb) ||
			    strncmp(na, nb, name_len(na, la)))
				continue;
			if (la == lb && !strncmp(na, nb, la))
				msg("fleet: %s %.*s is in %s and %s: a %s is in one arm",
				    by[opt.by].one, (int)la, na, by[opt.by].opt[0],
				    by[opt.by].opt[1], by[opt.by].one);
			else
				msg("fleet: %s %.*s is in %s and %s (as %.*s): a %s is in one arm",
				    by[opt.by].one, (int)la, na, by[opt.by].opt[0],
				    by[opt.by].opt[1], (int)lb, nb, by[opt.by].one);
			return EXIT_BOTHARMS;
		}
	}
	return 0;
}

/* The settings labels of scope @scope on host @inst in @info; how many, into @out. */
static int info_settings(const struct fleet_series *info, int ni, const char *inst,
			 const char *scope, const char **out, int max)
{
	const char *i_inst, *i_scope, *set;
	int i, n = 0;

	for (i = 0; i < ni && n < max; i++) {
		i_inst = fleet_label(&info[i], opt.host_label);
		i_scope = fleet_label(&info[i], "scope");
		set = fleet_label(&info[i], "settings");
		if (i_inst && i_scope && set && !strcmp(i_inst, inst) && !strcmp(i_scope, scope))
			out[n++] = set;
	}
	return n;
}

/*
 * Each series' mean to its host and arm. 0, or the exit status after
 * saying why: a scope whose settings match both arms, one that switched
 * arms within the range.
 */
static int fleet_assign(const struct fleet_series *s, int ns, const struct fleet_series *info,
			int ni)
{
	const char *inst, *scope, *name, *set[16];
	int i, j, k, nset, arm;
	bool in[2];
	struct host *h;

	for (i = 0; i < ns; i++) {
		inst = fleet_label(&s[i], opt.host_label);
		if (!inst || isnan(s[i].mean))
			continue;
		scope = fleet_label(&s[i], "scope");
		in[0] = false;
		in[1] = false;
		if (opt.by != BY_SETTINGS) {
			name = opt.by == BY_HOSTS ? inst : scope ? scope : "global";
			for (k = 0; k < 2; k++)
				in[k] = in_list(opt.arm[opt.by][k], name, opt.by == BY_HOSTS);
		} else {
			set[0] = fleet_label(&s[i], "settings");
			nset = set[0] ? 1 : info_settings(info, ni, inst, scope ? scope : "global",
							  set, ARRAY_SIZE(set));
			for (j = 0; j < nset; j++) {
				for (k = 0; k < 2; k++)
					in[k] |= settings_match(k, set[j]);
				if (settings_match(0, set[j]) && settings_match(1, set[j])) {
					msg("fleet: settings '%s' (%s, scope %s) match --a and --b",
					    set[j], inst, scope ? scope : "global");
					return EXIT_USAGE;
				}
			}
			if (in[0] && in[1]) {
				msg("fleet: %s, scope %s, ran A's settings and B's within the %s",
				    inst, scope ? scope : "global",
				    "range: a host in both arms; choose a range after the switch");
				return EXIT_BOTHARMS;
			}
		}
		if (!in[0] && !in[1])
			continue;
		arm = in[1];
		h = host_get(inst);
		if (!h)
			return EXIT_FAIL;
		h->sum[arm] += s[i].mean;
		h->n[arm]++;
	}
	return 0;
}

static int cmp_host(const void *a, const void *b)
{
	return strcmp(((const struct host *)a)->name, ((const struct host *)b)->name);
}

/*
 * Paired when every host has both arms, unpaired when none has; the runs
 * for ab_report.c. 0, or the exit status after saying why.
 */
static int fleet_runs(void)
{
	int i, k, both = 0, one = 0, arm[2] = { 0, 0 }, m;
	struct run *r;

	for (i = 0; i < nr_hosts; i++) {
		both += hosts[i].n[0] && hosts[i].n[1];
		one += !hosts[i].n[0] || !hosts[i].n[1];
		for (k = 0; k < 2; k++)
			arm[k] += hosts[i].n[k] > 0;
	}
	for (k = 0; k < 2; k++) {
		if (!arm[k]) {
			msg("fleet: no host has a series of arm %c (%s)", 'A' + k, ab.side[k].spec);
			return EXIT_NODATA;
		}
	}
	if (both && one) {
		msg("fleet: %d hosts run both arms, %d one: a host is in both arms%s", both, one,
		    " or in one; the hosts that run both:");
		for (i = 0; i < nr_hosts; i++)
			if (hosts[i].n[0] && hosts[i].n[1])
				fprintf(stderr, "  %s\n", hosts[i].name);
		return EXIT_BOTHARMS;
	}
	ab.unpaired = !both;
	qsort(hosts, nr_hosts, sizeof(*hosts), cmp_host);
	m = ab_metric_idx(ab.metric);
	if (m < 0)
		return EXIT_FAIL;
	for (i = 0; i < nr_hosts; i++) {
		for (k = 0; k < 2; k++) {
			if (!hosts[i].n[k])
				continue;
			r = ab_run_new(RUN_PAIR, i + 1, 'A' + k);
			if (!r)
				return EXIT_FAIL;
			r->host = hosts[i].name;
			r->val[m] = hosts[i].sum[k] / hosts[i].n[k];
		}
	}
	ab.pairs_run = nr_hosts;
	return 0;
}

/* Whether @s is a metric name: a recording rule's or a series'. */
static bool metric_name(const char *s)
{
	return *s && !(*s >= '0' && *s <= '9') &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:") ==
	       strlen(s);
}

static int fleet_run(void)
{
	struct fleet_series *s = NULL, *info = NULL;
	char from[32], to[32], step[32], what[1024];
	int ns = 0, ni = 0, ret, i;
	bool have_settings = true;
	double interval;

	ret = fleet_setup();
	if (ret)
		return ret;
	if (!fleet_can_query)
		return fleet_query_range(&opt.srv, opt.metric, &s, &ns);
	ret = fleet_longest_interval(&opt.srv, &interval);
	if (ret)
		return ret;
	fmt_duration(step, sizeof(step), interval);
	if (interval > 0 && opt.srv.to - opt.srv.from < interval) {
		fmt_duration(what, sizeof(what), opt.srv.to - opt.srv.from);
		msg("fleet: the range, %s, is shorter than the server's scrape interval, %s: %s",
		    what, step, "each host would have a sample or none");
		return EXIT_SHORTRANGE;
	}
	if (!opt.step)
		opt.srv.step = interval > 0 ? interval : FLEET_DEFAULT_STEP;
	if ((opt.srv.to - opt.srv.from) / opt.srv.step > FLEET_MAX_POINTS)
		opt.srv.step = ceil((opt.srv.to - opt.srv.from) / FLEET_MAX_POINTS);
	ret = fleet_query_range(&opt.srv, opt.metric, &s, &ns);
	fmt_time(from, sizeof(from), opt.srv.from);
	fmt_time(to, sizeof(to), opt.srv.to);
	if (!ret && !ns) {
		msg("fleet: the query returned no series from %s to %s: %s", from, to, opt.metric);
		ret = EXIT_NODATA;
	}
	for (i = 0; !ret && i < ns; i++)
		have_settings &= !!fleet_label(&s[i], "settings");
	/* the scopes' settings, unless the expression kept them as a label */
	if (!ret && opt.by == BY_SETTINGS && !have_settings) {
		ret = fleet_query_range(&opt.srv, FLEET_INFO, &info, &ni);
		if (!ret && !ni) {
			msg("fleet: no %s series from %s to %s: %s", FLEET_INFO, from, to,
			    "no host exported its scopes' settings (zswbctl prometheus)");
			ret = EXIT_NODATA;
		}
	}
	if (!ret)
		ret = fleet_assign(s, ns, info, ni);
	fleet_series_free(s, ns);
	fleet_series_free(info, ni);
	if (!ret)
		ret = fleet_runs();
	if (ret)
		return ret;
	fmt_duration(step, sizeof(step), opt.srv.step);
	snprintf(what, sizeof(what), "%s, %s to %s every %s, mean per host and arm",
		 opt.srv.url, from, to, step);
	ab.fleet_what = strdup(what);
	return 0;
}

/*
 * "fleet --url URL --metric EXPR ...": the verdict on a fleet's A/B
 * comparison, reported as zswbctl ab reports (ab_report.c).
 */
int cmd_fleet(char **argv)
{
	int ret;

	ab.fleet = true;
	ret = fleet_options(argv);
	if (ret < 0)
		return 0;
	if (!ret) {
		ab.metric = opt.name ? opt.name : metric_name(opt.metric) ? opt.metric : "value";
		ret = fleet_run();
	}
	if (ret) {
		if (json) {
			json_error("fleet", ret);
			json_printed = true;
		}
		return ret;
	}
	ret = ab.csv ? ab_write_csv(ab.csv) : 0;
	if (json)
		ab_report_json();
	else
		ab_report_text(stdout);
	return ret;
}
