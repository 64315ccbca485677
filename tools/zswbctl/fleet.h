/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswbctl fleet: fleet.c the options, the grouping of the series into A
 * and B and the report (ab_report.c's); fleet_query.c the Prometheus
 * server's HTTP API, with libcurl and jansson. A static build (the test
 * VM's) has neither library: it links fleet_noquery.c instead, and the
 * command says so.
 */
#ifndef ZSWBCTL_FLEET_H
#define ZSWBCTL_FLEET_H

#include <stdbool.h>

/* A label of a series. */
struct fleet_label {
	char *name, *val;
};

/* One series of a range query: its labels, the mean of its finite values. */
struct fleet_series {
	struct fleet_label *label;
	int nr_labels;
	double mean;		/* NAN when no point was a finite number */
	int points;		/* finite points */
};

/* What a query needs: the server, the range and the step, in seconds. */
struct fleet_server {
	const char *url;	/* http://host:9090, without /api/v1 */
	double from, to, step;
	long timeout;		/* seconds, for each request */
};

/*
 * A range query of @expr from srv->from to srv->to every srv->step: its
 * series into *@out (fleet_series_free() frees them), their count into
 * *@n. 0, or the exit status after saying why: EXIT_NOSERVER when nothing
 * answered as a Prometheus server does, EXIT_USAGE when it refused the
 * expression, EXIT_FAIL when it failed to evaluate it.
 */
int fleet_query_range(const struct fleet_server *srv, const char *expr,
		      struct fleet_series **out, int *n);

/*
 * The longest scrape_interval and evaluation_interval in the server's
 * configuration (/api/v1/status/config), in seconds, into *@secs; 0 when
 * it does not say. 0, or the exit status after saying why.
 */
int fleet_longest_interval(const struct fleet_server *srv, double *secs);

/* A Prometheus duration (1h30m, 5m, 90s, 250ms, 1d, 1w, 1y) in seconds; false if not one. */
bool fleet_parse_duration(const char *s, double *secs);

/* The value of label @name of @s, or NULL. */
const char *fleet_label(const struct fleet_series *s, const char *name);

void fleet_series_free(struct fleet_series *s, int n);

/* Whether this build can ask a server (libcurl and jansson linked). */
extern const int fleet_can_query;

#endif
