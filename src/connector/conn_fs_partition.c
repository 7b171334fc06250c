/*
 * conn_fs_partition.c - PARTITIONED BY tables of the 'filesystem'
 * connector, as Flink writes and reads them (Hive-style directories):
 *
 *     path/dt=2026-08-01/hm=09%3A00/part-<job>-<id>-<a>-<n>.csv
 *
 * Sink.  Each partition directory is written by its own unpartitioned
 * filesystem sink (conn_fs_sink.c, "child"), which brings the whole
 * exactly-once protocol of docs/semantics.md §3 along: in-progress and staged
 * names start with '.', parts are renamed into place at commit, recover
 * publishes the restored checkpoint's parts and deletes other hidden
 * files.  A row goes to the directory named by its partition values (the
 * value's SQL text, escaped; NULL or '' -> 'partition.default-name',
 * default __DEFAULT_PARTITION__); the partition columns are not written
 * into the files (as Flink).  Children are opened when their partition
 * first gets a row and closed after a commit leaves them idle, so the
 * open files track the active partitions, not all partitions ever seen.
 * configure checks the options (through a child configured on the table's
 * own options); open creates the root directory; planning touches no file.
 *
 * Partition commit (Flink's 'sink.partition-commit.*').  A partition that
 * received rows since its last commit is pending.  At each pre_commit the
 * pending partitions whose trigger fired are scheduled for that
 * checkpoint: 'process-time' when processing time >= the time its first
 * pending row arrived + 'sink.partition-commit.delay'; 'partition-time'
 * when the watermark (read in 'sink.partition-commit.watermark-time-zone')
 * > the time extracted from its values + delay.  At end of input every
 * pending partition is scheduled (Flink's endInput); a finish after a
 * fatal error publishes files but commits no partition.  commit(id) first
 * publishes the children's parts, then commits the partitions scheduled up
 * to id: the 'success-file' policy creates the (empty) success file in the
 * partition directory.  So a partition is committed only after all its
 * files up to that checkpoint are published, and a success file never
 * precedes the data it announces.  Committing is idempotent and recover
 * repeats the restored checkpoint's commits.  Without checkpointing,
 * finish publishes every part and commits every partition.
 *
 * pre_commit writes (version 2): u8 2, i64 id, bytes job, u32 count and per
 * child (bytes partition path, bytes the child's pre_commit data), u32
 * count and per scheduled commit (i64 checkpoint id, bytes partition
 * path), u32 count and per pending partition (bytes path, i64 the
 * processing time of its first pending row).  Version 3, of instance
 * `subtask` of nsub > 1 (conn.h): u8 3, i64 id, bytes job, u32 subtask,
 * u32 nsub, then version 2's fields from the children on.  recover walks
 * the partition directories: one listed gets its child's data back; any
 * other directory recovers as a child that restores the checkpoint with
 * nothing staged by the record's instance (its hidden files there
 * deleted; a part published by a newer checkpoint refused).
 *
 * Parallel instances: every instance runs its own children, whose part
 * names carry the instance number (conn_fs_sink.c), so instances writing
 * the same partition directory never touch each other's files; each
 * record recovers as conn_fs_sink.c's recover says.  The 'success-file'
 * commit policy is refused at more than one instance: each instance
 * decides its trigger alone, so one could announce a partition whose
 * files from another instance are not published yet (Flink gathers the
 * writers' reports in one committer task; sluice has none yet).
 *
 * Source: sl__fs_list_partitions lists the files of the partition
 * directories with their values (conn_filesystem.c reads them).
 * One thread uses an instance at a time, like every connector.
 */
#include "conn_fs_int.h"
#include "sluice.h"
#include "../base/hash.h"
#include "../base/timeutil.h"
#include "../data/valtext.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FSP_SNAP_VERSION 2      /* pre-commit data of a sink of one instance */
#define FSP_SNAP_PARALLEL 3     /* ... of one of several instances */
#define FSP_DEFAULT_NAME "__DEFAULT_PARTITION__"

/* ---- names ------------------------------------------------------------------- */

static int must_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f || (c && strchr("\"#%'*/:=?\\{[]^", c) != NULL);
}

/* must_escape of every byte, computed once (a strchr per byte of every
 * row's partition values was 2% of a partitioned sink's instructions) */
static unsigned char escape_map[256];
static pthread_once_t escape_once = PTHREAD_ONCE_INIT;

static void escape_init(void)
{
	for (int c = 0; c < 256; c++)
		escape_map[c] = (unsigned char)must_escape((unsigned char)c);
}

/* Appends a partition value escaped as Flink and Hive do in directory
 * names ('%' + two upper-case hex digits for control characters and
 * "#%'*\/:=?\\\x7f{[]^ and the double quote).  0 or SL_ENOMEM. */
static int fs_escape(sl_buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	pthread_once(&escape_once, escape_init);
	if (sl_buf_reserve(out, 3 * n))
		return SL_ENOMEM;
	char *w = out->p + out->len;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c && escape_map[c]) {
			*w++ = '%';
			*w++ = hex[c >> 4];
			*w++ = hex[c & 15];
		} else {
			*w++ = (char)c;
		}
	}
	out->len = (size_t)(w - out->p);
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
	     : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Unescapes a directory-name value in place (%XX sequences); returns its
 * new length. */
static size_t fs_unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (r[0] == '%' && r[1] && r[2] && hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
			*w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
	return (size_t)(w - s);
}

const char *sl__fs_local_path(const char *path, const char *what, const char *table,
                              sl_err *err)
{
	if (!strncmp(path, "file://", 7)) {
		if (path[7] != '/') {
			sl_err_set(err, SL_EINVAL, "%s '%s': path '%s': a file:// URI needs an absolute "
			           "path (file:///dir)", what, table, path);
			return NULL;
		}
		return path + 7;
	}
	if (!strncmp(path, "file:/", 6))
		return path + 5;
	const char *colon = strstr(path, "://");
	if (colon && strcspn(path, "/") > (size_t)(colon - path)) {
		sl_err_set(err, SL_ENOTSUP, "%s '%s': path '%s': only local paths and file:// URIs "
		           "are supported", what, table, path);
		return NULL;
	}
	return path;
}

/* ---- commit options ------------------------------------------------------------ */

enum { TRIGGER_PROC, TRIGGER_PART };

typedef struct fs_commit {
	int trigger;              /* TRIGGER_* */
	int64_t delay_us;         /* 'sink.partition-commit.delay' */
	int success;              /* policy kind includes success-file */
	const char *success_name; /* 'sink.partition-commit.success-file.name' */
	const char *pattern;      /* 'partition.time-extractor.timestamp-pattern', or NULL */
	sl_datefmt *fmt;          /* '...timestamp-formatter', or NULL (lenient SQL form) */
	const char *wm_tz;        /* 'sink.partition-commit.watermark-time-zone' */
	const char *default_name; /* 'partition.default-name' */
} fs_commit;

static int read_commit(const sl_conn_args *a, fs_commit *c, sl_err *err)
{
	const sl_opts *o = a->opts;
	const char *v;
	memset(c, 0, sizeof *c);
	if ((v = sl_opts_get(o, "sink.partition-commit.trigger")) && strcmp(v, "process-time")) {
		if (strcmp(v, "partition-time"))
			return sl_err_set(err, SL_EINVAL, "'sink.partition-commit.trigger' "
			                  "must be 'process-time' or 'partition-time', not '%s'",
			                  v);
		c->trigger = TRIGGER_PART;
	}
	if (sl_opts_duration(o, "sink.partition-commit.delay", 0, &c->delay_us, err))
		return SL_EINVAL;
	if ((v = sl_opts_get(o, "sink.partition-commit.policy.kind"))) {
		char buf[128];
		snprintf(buf, sizeof buf, "%s", v);
		for (char *save = NULL, *k = strtok_r(buf, ",", &save); k;
		     k = strtok_r(NULL, ",", &save)) {
			while (*k == ' ')
				k++;
			if (!strcmp(k, "success-file"))
				c->success = 1;
			else
				return sl_err_set(err, SL_ENOTSUP, "partition commit policy "
				                  "'%s' is not supported (sluice has no metastore and no "
				                  "custom policies): use 'success-file'", k);
		}
	}
	c->success_name = sl_opts_get(o, "sink.partition-commit.success-file.name");
	if (!c->success_name)
		c->success_name = "_SUCCESS";
	if (!*c->success_name || strchr(c->success_name, '/'))
		return sl_err_set(err, SL_EINVAL, "bad success file name '%s'", c->success_name);
	if ((v = sl_opts_get(o, "partition.time-extractor.kind")) && strcmp(v, "default"))
		return sl_err_set(err, SL_ENOTSUP, "partition time extractor '%s' is not "
		                  "supported (only 'default')", v);
	if (sl_opts_get(o, "partition.time-extractor.class"))
		return sl_err_set(err, SL_ENOTSUP, "custom partition time extractors "
		                  "('partition.time-extractor.class') are not supported");
	c->pattern = sl_opts_get(o, "partition.time-extractor.timestamp-pattern");
	if ((v = sl_opts_get(o, "partition.time-extractor.timestamp-formatter"))) {
		char eb[160];
		if (!(c->fmt = sl_datefmt_compile(v, eb, sizeof eb)))
			return sl_err_set(err, SL_EINVAL,
			                  "'partition.time-extractor.timestamp-formatter': %s", eb);
	}
	c->wm_tz = sl_opts_get(o, "sink.partition-commit.watermark-time-zone");
	int64_t off;
	if (c->wm_tz && sl_tz_offset(c->wm_tz, 0, &off))
		return sl_err_set(err, SL_EINVAL, "unknown time zone '%s' in "
		                  "'sink.partition-commit.watermark-time-zone'", c->wm_tz);
	c->default_name = sl_opts_get(o, "partition.default-name");
	if (!c->default_name)
		c->default_name = FSP_DEFAULT_NAME;
	int shuffle;
	if (sl_opts_bool(o, "sink.shuffle-by-partition.enable", 0, &shuffle, err))
		return SL_EINVAL;
	return 0;
}

int sl__fs_check_commit_options(const sl_conn_args *a, sl_err *err)
{
	fs_commit c;
	int64_t v;
	int rc = read_commit(a, &c, err);
	sl_datefmt_free(c.fmt);
	if (!rc && (sl_opts_size(a->opts, "sink.rolling-policy.file-size", 0, &v, err) ||
	            sl_opts_duration(a->opts, "sink.rolling-policy.rollover-interval", 0, &v, err) ||
	            sl_opts_duration(a->opts, "sink.rolling-policy.check-interval", 0, &v, err)))
		rc = SL_EINVAL;
	return rc;
}

/* ---- the partitioned sink ---------------------------------------------------------- */

typedef struct fs_part {
	char *rel;            /* "k1=v1/k2=v2" (escaped) */
	uint64_t hash;
	sl_sink *child;       /* open child sink, or NULL */
	int pending;          /* rows since the last commit */
	int64_t created_us;   /* processing time of the first pending row */
	int64_t ptime;        /* partition time (partition-time trigger) */
	int batch_slot;       /* scratch: index in the batch's distinct list, -1 */
} fs_part;

typedef struct fs_sched {
	int64_t id;           /* checkpoint that commits it */
	char *rel;
} fs_sched;

typedef struct fs_psink {
	sl_sink base;         /* must be first */
	char *root;           /* the table's directory */
	sl_arena arena;       /* child options and fields */
	sl_opts copts;        /* the table's options; 'path' set per child */
	sl_conn_args ca;      /* children's arguments (data columns only) */
	sl_opts ropts;        /* the table's options as given (the root) */
	int npart;
	int *pcol;            /* partition columns: batch column indexes */
	const char **pname;   /* their names */
	int ndata;
	int *dcol;            /* data columns: batch column indexes */
	sl_col *vcols;        /* view columns (data columns of the batch) */
	fs_commit cm;
	char *job;            /* checkpointing job name, or NULL */
	int subtask, nsub;    /* instance `subtask` of `nsub` (conn.h) */
	int ended;            /* finish() was called */
	fs_part *parts;
	int nparts, cap;
	int *slots;           /* open hash of parts: index + 1, 0 = empty */
	int nslots;
	fs_sched *sched;      /* scheduled commits, ascending ids */
	int nsched, sched_cap;
	/* per-batch scratch */
	int *row_slot;        /* per row: index in `distinct` */
	uint32_t *sel;
	int *distinct, *counts;
	int scap;
	sl_buf key;
} fs_psink;

static fs_psink *psink(sl_sink *s)
{
	return (fs_psink *)s;
}

/* Finds or adds the partition rel[0..n). Returns its index or -1 (OOM). */
static int part_find(fs_psink *k, const char *rel, size_t n, int create)
{
	uint64_t h = sl_hash_bytes(rel, n, 0x9a27);
	if (k->nslots) {
		for (uint64_t i = h & (uint64_t)(k->nslots - 1);; i = (i + 1) & (uint64_t)(k->nslots - 1)) {
			int s = k->slots[i];
			if (!s)
				break;
			fs_part *p = &k->parts[s - 1];
			if (p->hash == h && strlen(p->rel) == n && !memcmp(p->rel, rel, n))
				return s - 1;
		}
	}
	if (!create)
		return -2;
	if (k->nparts == k->cap) {
		int cap = k->cap ? k->cap * 2 : 16;
		fs_part *np = realloc(k->parts, sizeof(*np) * (size_t)cap);
		if (!np)
			return -1;
		k->parts = np;
		k->cap = cap;
	}
	if (2 * (k->nparts + 1) > k->nslots) {
		int ns = k->nslots ? k->nslots * 2 : 32;
		int *sl = calloc((size_t)ns, sizeof(int));
		if (!sl)
			return -1;
		for (int j = 0; j < k->nparts; j++) {
			uint64_t i = k->parts[j].hash & (uint64_t)(ns - 1);
			while (sl[i])
				i = (i + 1) & (uint64_t)(ns - 1);
			sl[i] = j + 1;
		}
		free(k->slots);
		k->slots = sl;
		k->nslots = ns;
	}
	fs_part *p = &k->parts[k->nparts];
	memset(p, 0, sizeof *p);
	if (!(p->rel = strndup(rel, n)))
		return -1;
	p->hash = h;
	p->ptime = INT64_MIN;
	p->batch_slot = -1;
	uint64_t i = h & (uint64_t)(k->nslots - 1);
	while (k->slots[i])
		i = (i + 1) & (uint64_t)(k->nslots - 1);
	k->slots[i] = k->nparts + 1;
	return k->nparts++;
}

/* Rebuilds the hash after parts were removed. */
static void rehash(fs_psink *k)
{
	memset(k->slots, 0, sizeof(int) * (size_t)k->nslots);
	for (int j = 0; j < k->nparts; j++) {
		uint64_t i = k->parts[j].hash & (uint64_t)(k->nslots - 1);
		while (k->slots[i])
			i = (i + 1) & (uint64_t)(k->nslots - 1);
		k->slots[i] = j + 1;
	}
}

/* The (unescaped) value of partition key `name` in rel, into buf. */
static int rel_value(const char *rel, const char *name, char *buf, size_t cap)
{
	size_t nl = strlen(name);
	for (const char *p = rel; p && *p;) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > nl && !strncmp(p, name, nl) && p[nl] == '=') {
			snprintf(buf, cap, "%.*s", (int)(len - nl - 1), p + nl + 1);
			fs_unescape(buf);
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	return -1;
}

/* The partition time of rel (partition-time trigger), as Flink's default
 * extractor: the timestamp pattern with $name replaced by values (default:
 * the first partition value), parsed with the formatter or as SQL text. */
static int part_time(fs_psink *k, const char *rel, int64_t *out, sl_err *err)
{
	char text[512], v[256];
	size_t n = 0;
	if (!k->cm.pattern) {
		if (rel_value(rel, k->pname[0], text, sizeof text))
			text[0] = 0;
		n = strlen(text);
	} else {
		for (const char *p = k->cm.pattern; *p && n + 1 < sizeof text;) {
			int best = -1;
			size_t bl = 0;
			if (*p == '$')
				for (int i = 0; i < k->npart; i++) {
					size_t l = strlen(k->pname[i]);
					if (l > bl && !strncmp(p + 1, k->pname[i], l)) {
						best = i;
						bl = l;
					}
				}
			if (best < 0) {
				text[n++] = *p++;
				continue;
			}
			if (rel_value(rel, k->pname[best], v, sizeof v))
				v[0] = 0;
			n += (size_t)snprintf(text + n, sizeof text - n, "%s", v);
			if (n >= sizeof text)
				n = sizeof text - 1;
			p += 1 + bl;
		}
		text[n] = 0;
	}
	int bad = k->cm.fmt ? sl_datefmt_parse(k->cm.fmt, text, n, out) : sl_ts_parse(text, n, out);
	if (bad)
		return sl_err_set(err, SL_EINPUT, "sink '%s': cannot extract the partition time of "
		                  "partition '%s' from '%s' (partition.time-extractor.*)",
		                  k->base.table, rel, text);
	return 0;
}

/* Opens the child sink of part p (its directory is created). */
static int open_child(fs_psink *k, fs_part *p, sl_err *err)
{
	char *dir = sl_arena_printf(&k->arena, "%s/%s", k->root, p->rel);
	if (!dir || sl_opts_set(&k->copts, "path", dir))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
	k->ca.opts = &k->copts;
	if (!(p->child = sl_sink_new_open(&sl_filesystem_sink_vtab, &k->ca, err)))
		return err->code ? err->code : SL_EIO;
	return 0;
}

static void close_child(fs_part *p)
{
	sl_sink_free(p->child);
	p->child = NULL;
}

/* Reads the options (the partition commit's, and through a child
 * configured on the table's own options the format and rolling policy);
 * nothing on disk is touched. */
static int fsp_configure(sl_sink *s, const sl_conn_args *a, sl_err *err)
{
	fs_psink *k = psink(s);
	sl_arena_init(&k->arena, 4096);
	sl_buf_init(&k->key);
	const char *path = sl_opts_get(a->opts, "path");
	if (!path)
		return sl_err_set(err, SL_EINVAL, "sink '%s': option 'path' is required", a->table);
	if (!(path = sl__fs_local_path(path, "sink", a->table, err)))
		return err->code;
	int rc = read_commit(a, &k->cm, err);
	if (rc)
		return rc;
	k->nsub = a->nsubtasks > 0 ? a->nsubtasks : 1;
	k->subtask = a->subtask;
	if (k->cm.success && k->nsub > 1)
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': the partition commit policy "
		                  "'success-file' needs parallelism 1 (each of %d instances would "
		                  "announce a partition before the others' files in it are "
		                  "published): set 'parallelism.default' = '1'", a->table, k->nsub);
	if (!(k->root = strdup(path)))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	size_t rl = strlen(k->root);
	while (rl > 1 && k->root[rl - 1] == '/')
		k->root[--rl] = 0;
	if (a->checkpointing && !(k->job = strdup(a->job ? a->job : "")))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	k->npart = a->npart;
	k->ndata = a->nfields - a->npart;
	if (k->ndata < 1)
		return sl_err_set(err, SL_EPLAN, "sink '%s': every column is a partition column: "
		                  "the files would have no content", a->table);
	k->pcol = sl_arena_calloc(&k->arena, sizeof(int) * (size_t)k->npart);
	k->pname = sl_arena_calloc(&k->arena, sizeof(char *) * (size_t)k->npart);
	sl_field *df = sl_arena_calloc(&k->arena, sizeof(sl_field) * (size_t)k->ndata);
	int *dcol = sl_arena_calloc(&k->arena, sizeof(int) * (size_t)k->ndata);
	k->vcols = calloc((size_t)k->ndata, sizeof(sl_col));
	if (!k->pcol || !k->pname || !df || !dcol || !k->vcols)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", a->table);
	for (int i = 0, d = 0; i < a->nfields; i++) {
		int pk = -1;
		for (int j = 0; j < a->npart; j++)
			if (a->part[j] == i)
				pk = j;
		if (pk >= 0) {
			k->pcol[pk] = i;
			k->pname[pk] = a->fields[i].name;
		} else {
			df[d] = a->fields[i];
			dcol[d++] = i;
		}
	}
	/* the children's arguments: data columns, the table's options */
	sl_opts_init(&k->copts, &k->arena);
	sl_opts_merge(&k->copts, a->opts);
	k->ca = *a;
	k->ca.fields = df;
	k->ca.nfields = k->ndata;
	k->ca.pk = NULL;
	k->ca.npk = 0;
	k->ca.part = NULL;
	k->ca.npart = 0;
	k->ca.opts = &k->copts;
	k->dcol = dcol;
	sl_opts_init(&k->ropts, &k->arena);
	sl_opts_merge(&k->ropts, a->opts);
	/* a child on the table's own options, configured and freed at once:
	 * checks the format and rolling options (read now, so unknown options
	 * are reported when the job is planned) */
	sl_conn_args pa = k->ca;
	pa.opts = a->opts;
	sl_sink *probe = sl_sink_new(&sl_filesystem_sink_vtab, &pa, err);
	if (!probe)
		return err->code ? err->code : SL_EINVAL;
	sl_sink_free(probe);
	return 0;
}

/* Creates the root directory, through a child on the table's own options
 * opened and closed at once (the same message as an unpartitioned sink's). */
static int fsp_open(sl_sink *s, sl_err *err)
{
	fs_psink *k = psink(s);
	sl_conn_args pa = k->ca;
	pa.opts = &k->ropts;
	sl_sink *probe = sl_sink_new_open(&sl_filesystem_sink_vtab, &pa, err);
	if (!probe)
		return err->code ? err->code : SL_EIO;
	sl_sink_free(probe);
	return 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* Grows the per-batch scratch to n rows. */
static int scratch(fs_psink *k, int n)
{
	if (n <= k->scap)
		return 0;
	int *rs = realloc(k->row_slot, sizeof(int) * (size_t)n);
	if (rs)
		k->row_slot = rs;
	uint32_t *sel = realloc(k->sel, sizeof(uint32_t) * (size_t)n);
	if (sel)
		k->sel = sel;
	int *d = realloc(k->distinct, sizeof(int) * (size_t)n);
	if (d)
		k->distinct = d;
	int *c = realloc(k->counts, sizeof(int) * (size_t)(n + 1));
	if (c)
		k->counts = c;
	if (!rs || !sel || !d || !c)
		return SL_ENOMEM;
	k->scap = n;
	return 0;
}

/* The partition path of row `row` into k->key. */
static int row_path(fs_psink *k, const sl_batch *b, int row)
{
	sl_buf_clear(&k->key);
	for (int j = 0; j < k->npart; j++) {
		const sl_col *c = &b->cols[k->pcol[j]];
		if ((j && sl_buf_putc(&k->key, '/')) || sl_buf_puts(&k->key, k->pname[j]) ||
		    sl_buf_putc(&k->key, '='))
			return SL_ENOMEM;
		size_t at = k->key.len;
		if (!c->null[row] && sl_value_text(c, row, NULL, k->ca.tz, &k->key))
			return SL_ENOMEM;
		if (k->key.len == at) { /* NULL or '': the default partition name */
			if (sl_buf_puts(&k->key, k->cm.default_name))
				return SL_ENOMEM;
			continue;
		}
		/* escape the value in place (copy it out first) */
		size_t n = k->key.len - at;
		char small[256], *v = n < sizeof small ? small : malloc(n);
		if (!v)
			return SL_ENOMEM;
		memcpy(v, k->key.p + at, n);
		k->key.len = at;
		int rc = fs_escape(&k->key, v, n);
		if (v != small)
			free(v);
		if (rc)
			return rc;
	}
	return 0;
}

/* Whether rows r1 and r2 of b hold the same partition values, so the same
 * partition (the text of a value depends on the value alone).  Values of
 * nested types are not compared (0: the caller computes the path). */
static int same_values(const fs_psink *k, const sl_batch *b, int r1, int r2)
{
	for (int j = 0; j < k->npart; j++) {
		const sl_col *c = &b->cols[k->pcol[j]];
		if (c->null[r1] != c->null[r2])
			return 0;
		if (c->null[r1])
			continue;
		switch (sl_type_phys(c->type)) {
		case SL_PHYS_I64:
		case SL_PHYS_F64: /* the bits: -0.0 and 0.0 print differently */
			if (c->v.i64[r1] != c->v.i64[r2])
				return 0;
			break;
		case SL_PHYS_I128:
			if (c->v.i128[r1] != c->v.i128[r2])
				return 0;
			break;
		case SL_PHYS_STR:
			if (c->type.id == SL_T_ROW || c->type.id == SL_T_ARRAY || c->type.id == SL_T_MAP)
				return 0;
			if (c->v.str[r1].len != c->v.str[r2].len ||
			    memcmp(c->v.str[r1].ptr, c->v.str[r2].ptr, (size_t)c->v.str[r1].len))
				return 0;
			break;
		default: return 0;
		}
	}
	return 1;
}

/* Marks part p as holding rows not yet committed. */
static int touch(fs_psink *k, fs_part *p, sl_err *err)
{
	if (p->pending)
		return 0;
	p->pending = 1;
	p->created_us = k->base.proc_now;
	if (k->cm.trigger == TRIGGER_PART && p->ptime == INT64_MIN)
		return part_time(k, p->rel, &p->ptime, err);
	return 0;
}

static int fsp_write(sl_sink *s, const sl_batch *b, sl_err *err)
{
	fs_psink *k = psink(s);
	int live = sl_batch_live(b), nd = 0, rc;
	if (live == 0)
		return 0;
	if (scratch(k, live))
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
	/* each live row's partition, and the batch's distinct partitions */
	int prev = -1, pi = -1;
	SL_BATCH_FOREACH(b, i, row) {
		/* consecutive rows of one partition (the common case: rows in
		 * time order partitioned by time) share the previous row's path */
		if (prev < 0 || !same_values(k, b, prev, row)) {
			if (row_path(k, b, row))
				return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
			pi = part_find(k, k->key.p, k->key.len, 1);
			if (pi < 0)
				return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
		}
		prev = row;
		fs_part *p = &k->parts[pi];
		if (p->batch_slot < 0) {
			p->batch_slot = nd;
			k->distinct[nd] = pi;
			k->counts[nd++] = 0;
		}
		k->row_slot[i] = p->batch_slot;
		k->counts[p->batch_slot]++;
	}
	/* counting sort of the rows by partition, keeping their order */
	for (int d = 0, at = 0; d < nd; d++) {
		int c = k->counts[d];
		k->counts[d] = at;
		at += c;
	}
	SL_BATCH_FOREACH(b, i, row)
		k->sel[k->counts[k->row_slot[i]]++] = (uint32_t)row;
	sl_batch v = *b;
	for (int j = 0; j < k->ndata; j++)
		k->vcols[j] = b->cols[k->dcol[j]];
	v.cols = k->vcols;
	v.ncols = k->ndata;
	rc = 0;
	for (int d = 0, from = 0; d < nd; d++) {
		fs_part *p = &k->parts[k->distinct[d]];
		p->batch_slot = -1;
		if (rc)
			continue;
		v.sel = k->sel + from;
		v.nsel = k->counts[d] - from;
		from = k->counts[d];
		if (!p->child && (rc = open_child(k, p, err)))
			continue;
		if ((rc = touch(k, p, err)))
			continue;
		p->child->proc_now = s->proc_now;
		p->child->wm = s->wm;
		if ((rc = p->child->vt->write(p->child, &v, err)))
			continue;
		s->rows_written += v.nsel;
	}
	return rc;
}

/* ---- committing partitions ------------------------------------------------------ */

/* Whether pending part p's trigger fires now. */
static int trigger_fires(fs_psink *k, const fs_part *p)
{
	if (k->ended)
		return 1;
	if (k->cm.trigger == TRIGGER_PROC)
		return k->base.proc_now >= p->created_us + k->cm.delay_us;
	int64_t wm = k->base.wm, off = 0;
	if (wm == INT64_MIN)
		return 0;
	if (wm == INT64_MAX)
		return 1;
	if (k->cm.wm_tz && sl_tz_offset(k->cm.wm_tz, wm, &off))
		off = 0;
	return wm + off > p->ptime + k->cm.delay_us;
}

static int add_sched(fs_psink *k, int64_t id, const char *rel)
{
	if (k->nsched == k->sched_cap) {
		int cap = k->sched_cap ? k->sched_cap * 2 : 16;
		fs_sched *ns = realloc(k->sched, sizeof(*ns) * (size_t)cap);
		if (!ns)
			return SL_ENOMEM;
		k->sched = ns;
		k->sched_cap = cap;
	}
	if (!(k->sched[k->nsched].rel = strdup(rel)))
		return SL_ENOMEM;
	k->sched[k->nsched++].id = id;
	return 0;
}

/* Commits partition rel (its files are published): the success file. */
static int commit_partition(fs_psink *k, const char *rel, sl_err *err)
{
	if (!k->cm.success)
		return 0;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", k->root, rel, k->cm.success_name);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0 && errno == ENOENT) { /* a partition without a file yet */
		snprintf(path, sizeof path, "%s/%s", k->root, rel);
		for (char *q = path + strlen(k->root) + 1; *q; q++)
			if (*q == '/') {
				*q = 0;
				mkdir(path, 0777);
				*q = '/';
			}
		mkdir(path, 0777);
		snprintf(path, sizeof path, "%s/%s/%s", k->root, rel, k->cm.success_name);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	}
	if (fd < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot write the success file '%s': %s",
		                  k->base.table, path, strerror(errno));
	int rc = fsync(fd);
	close(fd);
	if (rc)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot fsync '%s': %s", k->base.table,
		                  path, strerror(errno));
	return 0;
}

/* Forgets parts with nothing open and nothing pending. */
static void forget_idle(fs_psink *k)
{
	int w = 0;
	for (int i = 0; i < k->nparts; i++) {
		fs_part *p = &k->parts[i];
		if (p->child && sl__fs_sink_idle(p->child))
			close_child(p);
		if (!p->child && !p->pending) {
			free(p->rel);
			continue;
		}
		k->parts[w++] = *p;
	}
	if (w != k->nparts) {
		k->nparts = w;
		rehash(k);
	}
}

static int need_job(fs_psink *k, const char *what, sl_err *err)
{
	if (k->job)
		return 0;
	return sl_err_set(err, SL_EINVAL, "sink '%s': %s without checkpointing in the connector "
	                  "arguments", k->base.table, what);
}

static int fsp_pre_commit(sl_sink *s, int64_t id, sl_snap_writer *w, sl_err *err)
{
	fs_psink *k = psink(s);
	int rc, nchild = 0, npend = 0, nsch = 0;
	if ((rc = need_job(k, "pre_commit", err)))
		return rc;
	for (int i = 0; i < k->nparts; i++)
		nchild += k->parts[i].child != NULL;
	sl_snap_put_u8(w, k->nsub > 1 ? FSP_SNAP_PARALLEL : FSP_SNAP_VERSION);
	sl_snap_put_i64(w, id);
	sl_snap_put_bytes(w, k->job, strlen(k->job));
	if (k->nsub > 1) {
		sl_snap_put_u32(w, (uint32_t)k->subtask);
		sl_snap_put_u32(w, (uint32_t)k->nsub);
	}
	sl_snap_put_u32(w, (uint32_t)nchild);
	for (int i = 0; i < k->nparts; i++) {
		fs_part *p = &k->parts[i];
		if (!p->child)
			continue;
		sl_snap_writer sub;
		sl_snap_writer_init(&sub);
		p->child->proc_now = s->proc_now;
		p->child->wm = s->wm;
		rc = p->child->vt->pre_commit(p->child, id, &sub, err);
		sl_snap_put_bytes(w, p->rel, strlen(p->rel));
		sl_snap_put_bytes(w, sub.buf, sub.len);
		sl_snap_writer_deinit(&sub);
		if (rc)
			return rc;
	}
	/* schedule the partitions whose trigger fired */
	for (int i = 0; i < k->nparts; i++) {
		fs_part *p = &k->parts[i];
		if (!p->pending || !trigger_fires(k, p))
			continue;
		if (add_sched(k, id, p->rel))
			return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
		p->pending = 0;
	}
	for (int i = 0; i < k->nsched; i++)
		nsch += k->sched[i].id <= id;
	sl_snap_put_u32(w, (uint32_t)nsch);
	for (int i = 0; i < k->nsched; i++)
		if (k->sched[i].id <= id) {
			sl_snap_put_i64(w, k->sched[i].id);
			sl_snap_put_bytes(w, k->sched[i].rel, strlen(k->sched[i].rel));
		}
	for (int i = 0; i < k->nparts; i++)
		npend += k->parts[i].pending;
	sl_snap_put_u32(w, (uint32_t)npend);
	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].pending) {
			sl_snap_put_bytes(w, k->parts[i].rel, strlen(k->parts[i].rel));
			sl_snap_put_i64(w, k->parts[i].created_us);
		}
	if (w->failed)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': pre_commit: out of memory", s->table);
	return 0;
}

/* Commits the scheduled partitions of checkpoints <= id. */
static int run_sched(fs_psink *k, int64_t id, sl_err *err)
{
	int w = 0, rc = 0;
	for (int i = 0; i < k->nsched; i++) {
		if (!rc && k->sched[i].id <= id) {
			if (!(rc = commit_partition(k, k->sched[i].rel, err))) {
				free(k->sched[i].rel);
				continue;
			}
		}
		k->sched[w++] = k->sched[i];
	}
	k->nsched = w;
	return rc;
}

static int fsp_commit(sl_sink *s, int64_t id, sl_err *err)
{
	fs_psink *k = psink(s);
	int rc;
	if ((rc = need_job(k, "commit", err)))
		return rc;
	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].child && (rc = k->parts[i].child->vt->commit(k->parts[i].child, id, err)))
			return rc;
	if ((rc = run_sched(k, id, err)))
		return rc;
	forget_idle(k);
	return 0;
}

static int fsp_abort(sl_sink *s, int64_t id, sl_err *err)
{
	fs_psink *k = psink(s);
	int rc;
	if ((rc = need_job(k, "abort", err)))
		return rc;
	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].child && (rc = k->parts[i].child->vt->abort(k->parts[i].child, id, err)))
			return rc;
	return 0;
}

/*
 * finish: with checkpointing the children only close their open parts and
 * every pending partition is scheduled by the final checkpoint; without,
 * the children publish and every pending partition is committed now.
 * Partitions are committed only at the end of input (the watermark is
 * +infinity): a finish after a fatal error publishes the rows written
 * before it (docs/semantics.md §3) but announces no partition as complete.
 */
static int fsp_finish(sl_sink *s, sl_err *err)
{
	fs_psink *k = psink(s);
	int rc;
	k->ended = s->wm == SL_WM_MAX;
	for (int i = 0; i < k->nparts; i++)
		if (k->parts[i].child && (rc = k->parts[i].child->vt->finish(k->parts[i].child, err)))
			return rc;
	if (k->job || !k->ended)
		return 0;
	for (int i = 0; i < k->nparts; i++) {
		fs_part *p = &k->parts[i];
		if (p->pending && (rc = commit_partition(k, p->rel, err)))
			return rc;
		p->pending = 0;
	}
	return 0;
}

/* ---- partition directories ------------------------------------------------------ */

typedef struct strvec {
	char **v;
	int n, cap;
} strvec;

static int strvec_push(strvec *sv, char *s)
{
	if (!s)
		return SL_ENOMEM;
	if (sv->n == sv->cap) {
		int cap = sv->cap ? sv->cap * 2 : 16;
		char **nv = realloc(sv->v, sizeof(char *) * (size_t)cap);
		if (!nv) {
			free(s);
			return SL_ENOMEM;
		}
		sv->v = nv;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	return 0;
}

static void strvec_free(strvec *sv)
{
	for (int i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof *sv);
}

/*
 * Collects the partition directories under root/rel at level `lvl`: names
 * `<names[lvl]>=...` (others, hidden ones and files are skipped); at level
 * npart, with files = 1, the visible regular files instead (relative
 * paths).  Errors other than a missing directory are reported.
 */
static int walk(const char *root, const char *rel, int lvl, int npart,
                const char *const *names, int files, strvec *out, const char *table,
                sl_err *err)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
	if (lvl == npart && !files)
		return strvec_push(out, strdup(rel));
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT && lvl > 0)
			return 0;
		return sl_err_set(err, SL_EIO, "'%s': cannot open directory '%s': %s", table, dir,
		                  strerror(errno));
	}
	struct dirent *e;
	int rc = 0;
	size_t nl = lvl < npart ? strlen(names[lvl]) : 0;
	while (!rc && (e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0))
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		if (lvl == npart) {
			if (S_ISREG(st.st_mode))
				rc = strvec_push(out, strdup(sub));
			continue;
		}
		if (!S_ISDIR(st.st_mode) || strncmp(e->d_name, names[lvl], nl) || e->d_name[nl] != '=')
			continue;
		rc = walk(root, sub, lvl + 1, npart, names, files, out, table, err);
	}
	closedir(d);
	if (rc == SL_ENOMEM)
		sl_err_set(err, SL_ENOMEM, "'%s': out of memory", table);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sl__fs_list_partitions(const char *root, int npart, const char *const *names,
                           const char *default_name, char ***files, char ***values,
                           int *nfiles, const char *table, sl_err *err)
{
	strvec sv = {0};
	int rc = walk(root, "", 0, npart, names, 1, &sv, table, err);
	if (rc) {
		strvec_free(&sv);
		return rc;
	}
	if (sv.n > 1)
		qsort(sv.v, (size_t)sv.n, sizeof(char *), cmp_names);
	char **vals = calloc((size_t)sv.n * (size_t)npart + 1, sizeof(char *));
	if (!vals) {
		strvec_free(&sv);
		return sl_err_set(err, SL_ENOMEM, "'%s': out of memory", table);
	}
	for (int f = 0; f < sv.n; f++) {
		const char *p = sv.v[f];
		for (int j = 0; j < npart; j++) {
			const char *eq = strchr(p, '='), *end = strchr(p, '/');
			char *v = strndup(eq + 1, (size_t)(end - eq - 1));
			if (!v) {
				for (int i = 0; i < sv.n * npart; i++)
					free(vals[i]);
				free(vals);
				strvec_free(&sv);
				return sl_err_set(err, SL_ENOMEM, "'%s': out of memory", table);
			}
			if (!strcmp(v, default_name)) {
				free(v);
				v = NULL;
			} else {
				fs_unescape(v);
			}
			vals[f * npart + j] = v;
			p = end + 1;
		}
	}
	*files = sv.v;
	*values = vals;
	*nfiles = sv.n;
	return 0;
}

/* ---- recovery ------------------------------------------------------------------ */

/* What the restored checkpoint's pre_commit wrote (version 2). */
typedef struct fsp_restored {
	int64_t id;
	uint32_t from, nsub;    /* the instance that wrote it, of how many */
	const char *job;
	size_t joblen;
	int nchild;
	const char **rel;       /* child partition paths (into the reader's buffer) */
	size_t *rellen;
	const void **data;      /* their child data */
	size_t *datalen;
} fsp_restored;

static int damaged(fs_psink *k, sl_err *err)
{
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged partitioned filesystem sink "
	                  "checkpoint data", k->base.table);
}

/* Recovers the child of partition directory rel from data (NULL: the
 * checkpoint listed nothing for it; id < 0: a start without checkpoint). */
static int recover_dir(fs_psink *k, const char *rel, const void *data, size_t len,
                       const fsp_restored *rs, sl_err *err)
{
	int pi = part_find(k, rel, strlen(rel), 1);
	if (pi < 0)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
	fs_part *p = &k->parts[pi];
	int rc = p->child ? 0 : open_child(k, p, err);
	if (rc)
		return rc;
	sl_snap_reader r;
	sl_snap_writer synth;
	sl_snap_writer_init(&synth);
	if (!data && rs) {
		/* the checkpoint with nothing staged here by the instance that
		 * wrote rs (conn_fs_sink.c's layouts, version 2 of one of several
		 * instances: that instance's leftovers here go) */
		sl_snap_put_u8(&synth, rs->nsub > 1 ? 2 : 1);
		sl_snap_put_i64(&synth, rs->id);
		sl_snap_put_bytes(&synth, rs->job, rs->joblen);
		sl_snap_put_u32(&synth, 0);
		if (rs->nsub > 1) {
			sl_snap_put_u32(&synth, rs->from);
			sl_snap_put_u32(&synth, rs->nsub);
		}
		sl_snap_put_u32(&synth, 0);
		data = synth.buf;
		len = synth.len;
	}
	if (data)
		sl_snap_reader_init(&r, data, len);
	rc = synth.failed ? SL_ENOMEM : p->child->vt->recover(p->child, data ? &r : NULL, err);
	sl_snap_writer_deinit(&synth);
	return rc;
}

static int read_restored(fs_psink *k, sl_snap_reader *r, fsp_restored *rs, sl_err *err)
{
	uint8_t ver = sl_snap_get_u8(r);
	if (ver != FSP_SNAP_VERSION && ver != FSP_SNAP_PARALLEL)
		return damaged(k, err);
	rs->id = sl_snap_get_i64(r);
	rs->job = sl_snap_get_bytes(r, &rs->joblen);
	rs->from = 0;
	rs->nsub = 1;
	if (ver == FSP_SNAP_PARALLEL) {
		rs->from = sl_snap_get_u32(r);
		rs->nsub = sl_snap_get_u32(r);
	}
	uint32_t n = sl_snap_get_u32(r);
	if (!sl_snap_reader_ok(r) || !rs->job || rs->id < 0 || n > r->len ||
	    rs->from >= rs->nsub || (ver == FSP_SNAP_PARALLEL && rs->nsub < 2))
		return damaged(k, err);
	rs->nchild = (int)n;
	rs->rel = calloc(n + 1, sizeof(char *));
	rs->rellen = calloc(n + 1, sizeof(size_t));
	rs->data = calloc(n + 1, sizeof(void *));
	rs->datalen = calloc(n + 1, sizeof(size_t));
	if (!rs->rel || !rs->rellen || !rs->data || !rs->datalen)
		return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
	for (uint32_t i = 0; i < n; i++) {
		rs->rel[i] = sl_snap_get_bytes(r, &rs->rellen[i]);
		rs->data[i] = sl_snap_get_bytes(r, &rs->datalen[i]);
		if (!rs->rel[i] || !rs->data[i] || !rs->rellen[i] ||
		    memchr(rs->rel[i], 0, rs->rellen[i]) || memmem(rs->rel[i], rs->rellen[i], "..", 2) ||
		    rs->rel[i][0] == '/')
			return damaged(k, err);
	}
	return sl_snap_reader_ok(r) ? 0 : damaged(k, err);
}

static void restored_free(fsp_restored *rs)
{
	free(rs->rel);
	free(rs->rellen);
	free(rs->data);
	free(rs->datalen);
}

/* Reads the scheduled commits and pending partitions after the children. */
static int read_partitions(fs_psink *k, sl_snap_reader *r, sl_err *err)
{
	uint32_t ns = sl_snap_get_u32(r);
	for (uint32_t i = 0; sl_snap_reader_ok(r) && i < ns; i++) {
		size_t n = 0;
		int64_t id = sl_snap_get_i64(r);
		const char *rel = sl_snap_get_bytes(r, &n);
		if (!rel || !n || memchr(rel, 0, n) || memmem(rel, n, "..", 2))
			return damaged(k, err);
		char *s = strndup(rel, n);
		if (!s || add_sched(k, id, s)) {
			free(s);
			return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
		}
		free(s);
	}
	uint32_t np = sl_snap_get_u32(r);
	for (uint32_t i = 0; sl_snap_reader_ok(r) && i < np; i++) {
		size_t n = 0;
		const char *rel = sl_snap_get_bytes(r, &n);
		int64_t created = sl_snap_get_i64(r);
		if (!rel || !n || memchr(rel, 0, n))
			return damaged(k, err);
		int pi = part_find(k, rel, n, 1);
		if (pi < 0)
			return sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", k->base.table);
		fs_part *p = &k->parts[pi];
		p->pending = 1;
		p->created_us = created;
		if (k->cm.trigger == TRIGGER_PART && p->ptime == INT64_MIN &&
		    part_time(k, p->rel, &p->ptime, err))
			return err->code;
	}
	if (!sl_snap_reader_ok(r) || r->pos != r->len)
		return damaged(k, err);
	return 0;
}

/*
 * recover: every partition directory's child recovers (publishes what the
 * checkpoint staged there, deletes other hidden files of the job, refuses
 * output of a newer checkpoint), then the checkpoint's scheduled partition
 * commits are repeated (idempotent) and its pending partitions restored.
 */
static int fsp_recover(sl_sink *s, sl_snap_reader *r, sl_err *err)
{
	fs_psink *k = psink(s);
	fsp_restored rs = {0};
	strvec dirs = {0};
	int rc;
	if ((rc = need_job(k, "recover", err)))
		return rc;
	if (r && (rc = read_restored(k, r, &rs, err)))
		goto done;
	if ((rc = walk(k->root, "", 0, k->npart, k->pname, 0, &dirs, s->table, err)))
		goto done;
	for (int i = 0; !rc && i < rs.nchild; i++) {
		char *rel = strndup(rs.rel[i], rs.rellen[i]);
		if (!rel) {
			rc = sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", s->table);
			break;
		}
		rc = recover_dir(k, rel, rs.data[i], rs.datalen[i], &rs, err);
		free(rel);
	}
	for (int i = 0; !rc && i < dirs.n; i++) {
		int listed = 0;
		for (int j = 0; j < rs.nchild; j++)
			listed |= strlen(dirs.v[i]) == rs.rellen[j] &&
			          !memcmp(dirs.v[i], rs.rel[j], rs.rellen[j]);
		if (!listed)
			rc = recover_dir(k, dirs.v[i], NULL, 0, r ? &rs : NULL, err);
	}
	if (!rc && r && !(rc = read_partitions(k, r, err)))
		rc = run_sched(k, rs.id, err);
	if (!rc)
		forget_idle(k);
done:
	strvec_free(&dirs);
	restored_free(&rs);
	return rc;
}

static int fsp_can_update(const sl_conn_args *a)
{
	return sl_filesystem_sink_vtab.can_update(a);
}

/* Closes without publishing (the children keep their output hidden). */
static void fsp_close(sl_sink *s)
{
	fs_psink *k = psink(s);
	for (int i = 0; i < k->nparts; i++) {
		close_child(&k->parts[i]);
		free(k->parts[i].rel);
	}
	for (int i = 0; i < k->nsched; i++)
		free(k->sched[i].rel);
	free(k->parts);
	free(k->slots);
	free(k->sched);
	free(k->row_slot);
	free(k->sel);
	free(k->distinct);
	free(k->counts);
	free(k->vcols);
	free(k->root);
	free(k->job);
	sl_datefmt_free(k->cm.fmt);
	sl_buf_deinit(&k->key);
	sl_arena_deinit(&k->arena);
	memset(k, 0, sizeof *k);
}

/* The filesystem sink of PARTITIONED BY tables (sl_filesystem_sink_vtab's
 * `partitioned`). */
const sl_sink_vtab sl__fs_partitioned_sink_vtab = {
	.name = "filesystem",
	.size = sizeof(fs_psink),
	.accepts_updates = 1,
	.can_update = fsp_can_update,
	.guarantee = "exactly-once",
	.configure = fsp_configure,
	.open = fsp_open,
	.write = fsp_write,
	.finish = fsp_finish,
	.pre_commit = fsp_pre_commit,
	.commit = fsp_commit,
	.abort = fsp_abort,
	.recover = fsp_recover,
	.close = fsp_close,
};
