// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl fleet: the Prometheus server's HTTP API (fleet.h), over libcurl,
 * its answers read with jansson. A range query is a POST of the form
 * query=...&start=...&end=...&step=... to /api/v1/query_range (a long
 * expression fits, as it would not always in a URL); the answer is
 * {"status": "success", "data": {"resultType": "matrix", "result":
 * [{"metric": {...}, "values": [[t, "v"], ...]}, ...]}}, or {"status":
 * "error", "errorType": ..., "error": ...} with an HTTP error status.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "zswbctl.h"

const int fleet_can_query = 1;

/* The body of an answer, as it arrives. */
struct body {
	char *buf;
	size_t len;
};

static size_t body_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t add = size * nmemb;
	char *tmp = realloc(b->buf, b->len + add + 1);

	if (!tmp)
		return 0;	/* libcurl then fails the transfer */
	memcpy(tmp + b->len, data, add);
	b->len += add;
	tmp[b->len] = '\0';
	b->buf = tmp;
	return add;
}

/*
 * GET @path of the server, or POST @form to it when not NULL; the answer
 * parsed into *@root, its "data" into *@data. 0, or the exit status after
 * saying why.
 */
static int api_call(const struct fleet_server *srv, const char *path, const char *form,
		    json_t **root, json_t **data)
{
	char url[4096], err[CURL_ERROR_SIZE] = "";
	struct body b = { NULL, 0 };
	const char *status, *etype, *emsg;
	json_error_t jerr;
	long code = 0;
	bool failed;
	size_t len;
	CURL *curl;

	*root = NULL;
	/* one slash between the server's URL and the path */
	len = strlen(srv->url);
	while (len && srv->url[len - 1] == '/')
		len--;
	snprintf(url, sizeof(url), "%.*s%s", (int)len, srv->url, path);
	curl = curl_easy_init();
	if (!curl) {
		msg("fleet: cannot start libcurl");
		return EXIT_FAIL;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, srv->timeout);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "zswbctl-fleet");
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (form)
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, form);
	/* libcurl fills the error buffer on every failure */
	failed = curl_easy_perform(curl) != CURLE_OK;
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(curl);
	if (failed) {
		msg("fleet: cannot reach the Prometheus server at %s: %s", srv->url,
		    *err ? err : "the transfer failed");
		free(b.buf);
		return EXIT_NOSERVER;
	}
	*root = b.buf ? json_loads(b.buf, 0, &jerr) : NULL;
	free(b.buf);
	status = json_string_value(json_object_get(*root, "status"));
	if (!status) {
		msg("fleet: %s answered HTTP %ld, %s", url, code,
		    "not as a Prometheus server's HTTP API does (is --url the server's?)");
		json_decref(*root);
		*root = NULL;
		return EXIT_NOSERVER;
	}
	if (strcmp(status, "success")) {
		etype = json_string_value(json_object_get(*root, "errorType"));
		emsg = json_string_value(json_object_get(*root, "error"));
		msg("fleet: the Prometheus server refused the query (HTTP %ld, %s): %s", code,
		    etype ? etype : "?", emsg ? emsg : "no reason given");
		/* bad_data: the expression or a parameter; else the server's trouble */
		code = etype && !strcmp(etype, "bad_data") ? EXIT_USAGE : EXIT_FAIL;
		json_decref(*root);
		*root = NULL;
		return code;
	}
	*data = json_object_get(*root, "data");
	return 0;
}

/* "&NAME=VALUE", VALUE escaped, at the end of the @cap bytes of @form; false if no room. */
static bool form_add(CURL *curl, char *form, size_t cap, const char *name, const char *val)
{
	char *esc = curl_easy_escape(curl, val, 0);
	size_t len = strlen(form);
	int n;

	if (!esc)
		return false;
	n = snprintf(form + len, cap - len, "%s%s=%s", len ? "&" : "", name, esc);
	curl_free(esc);
	return n >= 0 && (size_t)n < cap - len;
}

/* Series @s from one element of the answer's result; false if it is not one. */
static bool series_read(json_t *elem, struct fleet_series *s)
{
	json_t *metric = json_object_get(elem, "metric"), *values = json_object_get(elem, "values");
	const char *key, *v;
	double sum = 0, x;
	json_t *lv, *pt;
	size_t i;
	char *end;

	memset(s, 0, sizeof(*s));
	s->mean = NAN;
	if (!json_is_object(metric) || !json_is_array(values))
		return false;
	s->label = calloc(json_object_size(metric) + 1, sizeof(*s->label));
	if (!s->label)
		return false;
	json_object_foreach(metric, key, lv) {
		v = json_string_value(lv);
		s->label[s->nr_labels].name = strdup(key);
		s->label[s->nr_labels].val = strdup(v ? v : "");
		if (!s->label[s->nr_labels].name || !s->label[s->nr_labels].val)
			return false;
		s->nr_labels++;
	}
	json_array_foreach(values, i, pt) {
		v = json_string_value(json_array_get(pt, 1));
		if (!v)
			return false;
		x = strtod(v, &end);
		if (*end || !isfinite(x))
			continue;	/* NaN (0/0: nothing written back), Inf */
		sum += x;
		s->points++;
	}
	if (s->points)
		s->mean = sum / s->points;
	return true;
}

int fleet_query_range(const struct fleet_server *srv, const char *expr,
		      struct fleet_series **out, int *n)
{
	char num[3][64], *form;
	size_t cap = 3 * strlen(expr) + 256;
	json_t *root, *data, *result, *elem;
	const char *type;
	CURL *curl;
	size_t i;
	int ret;

	*out = NULL;
	*n = 0;
	form = calloc(cap, 1);
	curl = curl_easy_init();
	snprintf(num[0], sizeof(num[0]), "%.3f", srv->from);
	snprintf(num[1], sizeof(num[1]), "%.3f", srv->to);
	snprintf(num[2], sizeof(num[2]), "%.3f", srv->step);
	if (!form || !curl || !form_add(curl, form, cap, "query", expr) ||
	    !form_add(curl, form, cap, "start", num[0]) ||
	    !form_add(curl, form, cap, "end", num[1]) ||
	    !form_add(curl, form, cap, "step", num[2])) {
		msg("out of memory");
		curl_easy_cleanup(curl);
		free(form);
		return EXIT_FAIL;
	}
	curl_easy_cleanup(curl);
	ret = api_call(srv, "/api/v1/query_range", form, &root, &data);
	free(form);
	if (ret)
		return ret;
	type = json_string_value(json_object_get(data, "resultType"));
	result = json_object_get(data, "result");
	if (!type || strcmp(type, "matrix") || !json_is_array(result)) {
		msg("fleet: the server's answer to a range query has no matrix (%s)",
		    type ? type : "no resultType");
		json_decref(root);
		return EXIT_NOSERVER;
	}
	*out = calloc(json_array_size(result) + 1, sizeof(**out));
	if (!*out) {
		msg("out of memory");
		json_decref(root);
		return EXIT_FAIL;
	}
	json_array_foreach(result, i, elem) {
		if (!series_read(elem, &(*out)[*n])) {
			msg("fleet: series %zu of the server's answer is not one", i);
			fleet_series_free(*out, *n + 1);
			*out = NULL;
			*n = 0;
			json_decref(root);
			return EXIT_NOSERVER;
		}
		(*n)++;
	}
	json_decref(root);
	return 0;
}

int fleet_longest_interval(const struct fleet_server *srv, double *secs)
{
	static const char *const keys[] = { "scrape_interval:", "evaluation_interval:" };
	const char *yaml, *p;
	json_t *root, *data;
	char word[64];
	size_t k;
	double d;
	int ret;

	*secs = 0;
	ret = api_call(srv, "/api/v1/status/config", NULL, &root, &data);
	if (ret)
		return ret;
	/* the server's YAML with its defaults filled in: "  scrape_interval: 1m" lines */
	yaml = json_string_value(json_object_get(data, "yaml"));
	for (k = 0; yaml && k < ARRAY_SIZE(keys); k++) {
		for (p = strstr(yaml, keys[k]); p; p = strstr(p + 1, keys[k])) {
			if (sscanf(p + strlen(keys[k]), " %63[0-9a-z]", word) == 1 &&
			    fleet_parse_duration(word, &d) && d > *secs)
				*secs = d;
		}
	}
	json_decref(root);
	return 0;
}
