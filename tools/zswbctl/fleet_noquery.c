// SPDX-License-Identifier: GPL-2.0
/*
 * zswbctl fleet without libcurl and jansson (fleet.h): the static build
 * for the test VM, which has no server to ask. The command's help and its
 * checks of the options are there; a query says why it cannot be made.
 */
#include "fleet.h"
#include "zswbctl.h"

const int fleet_can_query;

static int no_query(void)
{
	msg("fleet: this zswbctl is built without libcurl and jansson (a static build): %s",
	    "use the zswbctl package's, or make STATIC=");
	return EXIT_FAIL;
}

int fleet_query_range(const struct fleet_server *srv, const char *expr,
		      struct fleet_series **out, int *n)
{
	(void)srv;
	(void)expr;
	*out = NULL;
	*n = 0;
	return no_query();
}

int fleet_longest_interval(const struct fleet_server *srv, double *secs)
{
	(void)srv;
	*secs = 0;
	return no_query();
}
