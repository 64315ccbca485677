// SPDX-License-Identifier: GPL-2.0
/*
 * modschema: print the debugfs "schema" that the module's sources
 * describe, from the same rows (module/zswap_wb_stats.h and
 * module/zswap_wb_params.h), in the module's order and format
 * (Documentation/zswap_wb.rst, "schema"). The host tests read it instead
 * of a loaded module (the names the documents must list, zswbctl's fake
 * debugfs tree); basic/schema.sh checks in the VM that the loaded module
 * prints exactly this.
 *
 *	modschema
 */
#include <stdio.h>

#define BIT(n)	(1U << (n))
#include "../../module/zswap_wb_params.h"

static const char * const bool_words[] = ZSWB_BOOL_WORDS;

static void words(const char * const *w, unsigned int n, char sep)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%s%c", w[i], i + 1 < n ? sep : '\t');
}

static void flags(unsigned int f, const char *help)
{
	if (!f)
		printf("-");
	if (f & ZSWB_PARAM_DRAINS)
		printf("drains%s", f & ZSWB_PARAM_WAITS ? "," : "");
	if (f & ZSWB_PARAM_WAITS)
		printf("waits");
	printf("\t%s\n", help);
}

#define ZSWB_CHOICE(name, ...)	#name

int main(void)
{
#define ZSWB_COUNTER(item, name, help)	printf("stat\t%s\tcounter\t-\t%s\n", #name, help);
#define ZSWB_GAUGE(name, help)		printf("stat\t%s\tgauge\t-\t%s\n", #name, help);
#define ZSWB_PERCENTILE(name, pct, help) printf("stat\t%s\tgauge\tus\t%s\n", #name, help);
#define ZSWB_NODE_COUNTER(item, name, help) \
	printf("stat\t%s_node<N>\tcounter\t-\t%s\n", #name, help);
#include "../../module/zswap_wb_stats.h"

#define ZSWB_PARAM_BOOL(name, help, def, f, family) {			\
	printf("param\t%s\tbool\t", #name);				\
	words(bool_words, sizeof(bool_words) / sizeof(*bool_words), ' '); \
	printf("%c\t", (def) ? 'Y' : 'N');				\
	flags(f, help);							\
}
#define ZSWB_PARAM_UINT(name, help, def, min, max, f, family) {	\
	printf("param\t%s\tuint\t%u..%u\t%u\t", #name, min, max, def);	\
	flags(f, help);							\
}
#define ZSWB_PARAM_CHOICE(name, help, choices, f, family) {		\
	static const char * const names[] = choices;			\
	printf("param\t%s\tchoice\t", #name);				\
	words(names, sizeof(names) / sizeof(*names), ' ');		\
	printf("%s\t", names[0]);					\
	flags(f, help);							\
}
#include "../../module/zswap_wb_params.h"
	return 0;
}
