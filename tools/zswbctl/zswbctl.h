/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zswbctl: what the command files share. main.c picks the command (the
 * table, the options, the usage and exit codes); params.c reads and sets
 * the module parameters; stats.c reads the statistics; prom.c writes them
 * in the Prometheus text format; ab.c runs an A/B comparison and reports
 * on it; fleet.c reports on one from a Prometheus server's series
 * (fleet_query.c asks the server); common.c holds the file helpers and
 * says why the module or debugfs is not there; schema.c reads what the module
 * says of its statistics and parameters. Every JSON byte comes from
 * json_writer.c, the kernel's bpftool's.
 */
#ifndef ZSWBCTL_H
#define ZSWBCTL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define MODNAME		"zswap_wb"
#define HOOK_CONFIG	"CONFIG_ZSWAP_WRITEBACK_HOOK"

/* Exit status: one for each cause, listed by --help and in zswbctl(8). */
#define EXIT_FAIL	1	/* an operation failed */
#define EXIT_NOMOD	2	/* the module is not loaded */
#define EXIT_NOHOOK	3	/* the running kernel has no writeback hook */
#define EXIT_NODEBUGFS	4	/* debugfs is not mounted */
#define EXIT_NOACCESS	5	/* debugfs refused us: not root */
#define EXIT_LOCKDOWN	6	/* kernel lockdown refused a debugfs file */
#define EXIT_NOSERVER	7	/* fleet: no Prometheus server answered at the URL */
#define EXIT_NODATA	8	/* fleet: the query returned nothing, or nothing for an arm */
#define EXIT_BOTHARMS	9	/* fleet: a host or scope in both arms */
#define EXIT_SHORTRANGE	10	/* fleet: a range shorter than the scrape interval */
#define EXIT_USAGE	64	/* bad command line or value */

/* What a command needs before it runs: check_dirs() checks it. */
#define NEED_SYSFS	1
#define NEED_DEBUGFS	2
#define NEED_SCHEMA	4	/* the module's schema, in its debugfs directory */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __maybe_unused	__attribute_maybe_unused__

/*
 * Print "zswbctl: <message>" on stderr; with --json, msg_put() keeps it
 * for the error a failure ends with on stdout (json_error()). The
 * arguments are read once, with errno as the caller left it.
 */
#define msg(fmt, ...) do {						\
	int msg_errno_ = errno;						\
	char *msg_text_ = NULL;						\
	size_t msg_len_;						\
	FILE *msg_f_ = open_memstream(&msg_text_, &msg_len_);		\
									\
	errno = msg_errno_;						\
	if (msg_f_) {							\
		fprintf(msg_f_, fmt, ##__VA_ARGS__);			\
		fclose(msg_f_);						\
	}								\
	msg_put(msg_text_);						\
	free(msg_text_);						\
} while (0)

struct dirent;

/*
 * main.c: $ZSWB_SYSFS, $ZSWB_DEBUGFS, whether --json was given, and
 * whether a JSON document is on stdout already.
 */
extern const char *sysfs_dir;
extern const char *debugfs_dir;
extern bool json;
extern bool json_printed;

int print_usage(FILE *f, int code);

/* common.c */
void msg_put(const char *text);
void json_error(const char *cmd, int code);
const char *env_or(const char *name, const char *def);
int neg_errno(void);
char *read_all(const char *path, int *err);
int write_str(const char *path, const char *val);
int debugfs_failed(const char *what, int err);
char *debugfs_read(const char *name, int *code);
int check_debugfs(void);
int check_dirs(int needs);
bool parse_num(const char *s, unsigned long long *v);
void print_num(FILE *f, const char *s);

/* The end of a name cut to fit the terminal (fit_name()). */
#define FIT_MARKER	"..."

int out_width(void);
const char *fit_name(char *buf, size_t len, const char *s, int width);
void print_pair(FILE *f, const char *name, const char *sep, const char *val, int width);
void fit_print(FILE *f, const char *text, int width);

const char *current_choice(const char *val, char *buf, size_t len);

/* schema.c: the module's description of its statistics and parameters. */
enum stat_kind { STAT_COUNTER, STAT_GAUGE };

struct stat_info {
	const char *key;	/* per node: the base of "<key>_node<N>" */
	enum stat_kind kind;
	bool per_node;
	bool usec;		/* a time in microseconds */
	const char *help;
};

/* A parameter's kind: its JSON and Prometheus type, and how set checks it. */
enum param_type {
	PARAM_BOOL,	/* values: the module's words, in pairs: off, on */
	PARAM_UINT,	/* min..max */
	PARAM_CHOICE,	/* values: the names */
};

/* What turning a parameter off means for the folios in flight (its flags). */
#define DRAIN_ON_UNLOAD	0x1	/* "drains": unload turns it off first, waits for inflight */
#define DRAIN_WAIT_OFF	0x2	/* "waits": off leaves folios in flight, set waits for them */

/* A "param" line of the schema. */
struct param_info {
	const char *name;
	enum param_type type;
	char **values;		/* NULL-terminated; NULL for PARAM_UINT */
	unsigned long min, max;
	const char *def;
	unsigned int flags;
	const char *help;
};

int schema_check(void);
int schema_error(void);
const struct stat_info *stat_find(const char *key);
size_t param_infos(const struct param_info **list);
const struct param_info *param_info(const char *name);

/* params.c */
/* A parameter's value, read as its kind (params_typed()). */
struct param_val {
	const struct param_info *info;
	char *val;			/* as param_read() gives it */
	bool on;			/* PARAM_BOOL: an on word */
	unsigned long long num;		/* PARAM_UINT */
};

void print_params_help(void);
char *param_read_raw(const char *name, int *err);
char *param_read(const char *name, int *err);
int read_failed(const char *name, int err);
int param_list(struct dirent ***ents);
void param_list_free(struct dirent **ents, int n);
int param_check(const char *name, const char *val);
int param_set(const char *name, const char *val);
int params_typed(struct param_val **vals, size_t *n);
void params_typed_free(struct param_val *vals, size_t n);
int cmd_get(char **argv);
int cmd_set(char **argv);
int cmd_unload(char **argv);

/* stats.c */
struct stat_ent {
	const char *key;
	const char *val;
};

struct stats {
	char *buf;
	struct stat_ent *ent;
	size_t n;
};

#define LAT_MAX_BUCKETS	64

/* free_latency_us: the bucket bounds in microseconds and their counts. */
struct latency {
	unsigned long long bound[LAT_MAX_BUCKETS], count[LAT_MAX_BUCKETS];
	int n;
};

bool node_key(const char *key, size_t *base_len, const char **node);
int stats_load(struct stats *st);
int stats_split(struct stats *st);
int stats_load_file(struct stats *st, const char *name);
const char *stats_find(const struct stats *st, const char *key);
bool stat_is_counter(const char *key);
int exit_code(int status);
void stats_free(struct stats *st);
int latency_load(struct latency *lat);
int latency_load_file(struct latency *lat, const char *name);
int cmd_status(char **argv);
int cmd_stats(char **argv);
int cmd_diff(char **argv);
int cmd_reset(char **argv);

/* ab.c */
int cmd_ab(char **argv);

/* prom.c */
int cmd_prometheus(char **argv);

/* fleet.c */
int cmd_fleet(char **argv);

#endif /* ZSWBCTL_H */
