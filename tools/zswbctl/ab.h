/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswbctl ab, split as bpftool splits a command: ab.c the options, the
 * checks and the schedule; ab_run.c the runs on the host (cgroups, scopes,
 * parameters, and the metrics read around each run); ab_report.c the
 * pairing of the runs, the report and the CSV; ab_stat.c the arithmetic.
 */
#ifndef ZSWBCTL_AB_H
#define ZSWBCTL_AB_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define AB_MAX_METRICS	256
#define AB_MAX_SETTINGS	16
#define AB_MAX_SIDES	8	/* A, B, then C to H: each compared with A */
#define AB_MAX_CMD_METRICS	64	/* of AB_MAX_METRICS, the command's own */
#define AB_DEFAULT_PAIRS 10
#define AB_MAX_PAIRS	1000
#define AB_DEFAULT_METRIC "wall_s"
#define AB_DEFAULT_ALPHA 0.05

enum run_kind { RUN_WARMUP, RUN_AA, RUN_PAIR };

extern const char * const ab_kind_names[];

/* One run of the command: which side, and every metric (NAN: not measured). */
struct run {
	enum run_kind kind;
	int pair;		/* 0: the warm-up and the A/A pair; 1..N */
	char side;		/* 'A', 'B', ... */
	int exit;		/* the command's status, as a shell gives it */
	char *host;		/* zswbctl fleet: the host measured; else NULL */
	double val[AB_MAX_METRICS];
};

/* A side's settings: the NAME=VALUE words of --a, --b, ... */
struct side {
	char *spec;		/* as given, for the report */
	int n;
	char *name[AB_MAX_SETTINGS], *val[AB_MAX_SETTINGS];
};

struct ab_state {
	/* the options */
	bool concurrent, drop_caches, warmup, all;
	/*
	 * zswbctl fleet (or a CSV it wrote): each run is a host's value; pair
	 * N is host N, with a run of each side when paired by host, of one
	 * side when unpaired (the rank-sum test). fleet_what: the header's
	 * words for where the values came from.
	 */
	bool fleet, unpaired;
	const char *fleet_what;
	int pairs;		/* pairs to run, the least with --precision */
	int max_pairs;		/* --precision: the most; 0 without it */
	double alpha;		/* --alpha */
	double precision;	/* --precision, in % of the primary; 0: none */
	const char *metric;	/* --metric: the primary */
	const char *memory_max, *zswap_max, *csv, *from_csv, *parent;
	char **cmd;
	struct side side[AB_MAX_SIDES];	/* A, B, ... */
	int nr_sides;		/* 2, or more with --c ... (sequential only) */
	/* the metrics, by name, in the order they were first seen */
	char *metric_name[AB_MAX_METRICS];
	int nr_metrics;
	struct run *runs;
	int nr_runs;
	int pairs_run;		/* pairs with every side measured */
	/* what was made, to be undone: cgroups, scopes, saved parameters */
	char cg_root[PATH_MAX], cg_dir[PATH_MAX], cg_rel[PATH_MAX];
	bool cg_made;
	char scope[2][32];
	bool scope_made[2];
	char metrics_dir[PATH_MAX];	/* the runs' metrics files, or "" */
	int nr_saved;
	bool params_set;	/* a parameter was written: put them back */
	char *saved_name[AB_MAX_SIDES * AB_MAX_SETTINGS];
	char *saved_val[AB_MAX_SIDES * AB_MAX_SETTINGS];
	pid_t child[2];
};

extern struct ab_state ab;

/* ab.c */
int ab_metric_idx(const char *name);
struct run *ab_run_new(enum run_kind kind, int pair, char side);
int ab_side_parse(int k, const char *spec);
bool ab_parse_double(const char *s, double *v);

/* ab_run.c */
#define AB_NR_SIGNALS	4
extern const int ab_signals[AB_NR_SIGNALS];
extern atomic_int ab_stop;
void ab_signal(int sig);
int ab_check_metric_name(const char *name);
int ab_cgroup_setup(void);
int ab_scopes_setup(void);
void ab_metrics_setup(void);
int ab_run_all(void);
void ab_cleanup(void);

/* ab_report.c */
bool ab_fleet_unpaired(void);
int ab_primary(void);
double ab_primary_halfwidth(void);
void ab_report_text(FILE *f);
void ab_report_json(void);
int ab_write_csv(const char *path);
int ab_read_csv(const char *path);

#endif
