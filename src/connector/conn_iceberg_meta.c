/*
 * conn_iceberg_meta.c - the Iceberg sink's Hadoop catalog (docs/iceberg.md):
 * a table is a directory `<warehouse>/<database>/<table>` whose
 * metadata/vN.metadata.json files are its versions, the current one being
 * the highest N (metadata/version-hint.text names it, and may lag behind
 * after a crash: readers probe the numbers after it, as Iceberg's
 * HadoopTableOperations does).
 *
 * Creating a table writes v1 (format version 2: the DDL's schema with
 * field ids 1..n, the PRIMARY KEY as identifier fields, the partition spec
 * (conn_iceberg_part.c) with field ids from 1000, unsorted).  Committing a snapshot writes its manifest and manifest list
 * (conn_iceberg_avro.c), then the next version: a temporary file, fsynced,
 * published by link() to v<N+1>.metadata.json, which fails when the name
 * exists, so of two writers racing for one version exactly one wins and
 * the other re-reads the table and retries on top of it (a plain rename
 * would replace the winner's file); then version-hint.text (temporary name
 * and rename).  Fault points for the crash tests sit between those steps:
 * iceberg-before-metadata-link, iceberg-after-metadata-link.
 *
 * The new version is the old file's text with the members a commit
 * changes rewritten (last-sequence-number, last-updated-ms,
 * current-snapshot-id, snapshots, snapshot-log, metadata-log, refs) and
 * every other member copied unchanged, so what another writer put there
 * (properties, older schemas) survives.  The JSON is walked by a small
 * span scanner (js_* below): values are located, never converted into a
 * tree.  The checkpoint id a commit ends is recorded in the snapshot's
 * summary as Flink does (flink.job-id, flink.max-committed-checkpoint-id);
 * sl__ice_committed reads it back for exactly-once after a restore.
 *
 * A snapshot with delete files lists a data and a delete manifest and is
 * an "overwrite" (or "delete"); a replace (rewrite-data-files) lists only
 * its new files and its removed ones, and is committed only on top of the
 * snapshot it read (ice_commit).  sl__ice_describe reads a table's schema,
 * spec and current snapshot for the rewrite.  expire-snapshots is at the
 * end.
 */
#include "conn_iceberg_int.h"
#include "iceberg.h"
#include "base/fault.h"
#include "format/avro.h"
#include "state/checkpoint.h"
#include "sluice.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define ICE_PATH 4096
#define ICE_RETRIES 10   /* commits lost to a concurrent writer before giving up */

/* ---- a span scanner over JSON text ------------------------------------- */

typedef struct js { const char *p, *e; } js; /* a value's text [p, e) */

static const char *js_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* The end of the value at p (after whitespace), or NULL when malformed. */
static const char *js_skip(const char *p, const char *e, int depth)
{
	p = js_ws(p, e);
	if (p >= e || depth > 64)
		return NULL;
	if (*p == '"') {
		for (p++; p < e; p++) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				return p + 1;
		}
		return NULL;
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p = js_ws(p + 1, e);
		if (p < e && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (!(p = js_skip(p, e, depth + 1)) || (p = js_ws(p, e)) >= e || *p++ != ':')
					return NULL;
			}
			if (!(p = js_skip(p, e, depth + 1)) || (p = js_ws(p, e)) >= e)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	while (p < e && !strchr(",:]} \n\r\t", *p))
		p++;
	return p;
}

/* Iterates the members of an object or the elements of an array. */
typedef struct js_it { const char *p, *e; int obj, first; } js_it;

static int js_iter(js_it *it, js v, char open)
{
	const char *p = js_ws(v.p, v.e);
	if (p >= v.e || *p != open)
		return -1;
	it->p = p + 1;
	it->e = v.e;
	it->obj = open == '{';
	it->first = 1;
	return 0;
}

/* 1 and the next member (key span with quotes, value) or element; 0 at the end. */
static int js_next(js_it *it, js *key, js *val)
{
	const char *p = js_ws(it->p, it->e);
	if (p >= it->e || *p == '}' || *p == ']')
		return 0;
	if (!it->first) {
		if (*p++ != ',')
			return 0;
		p = js_ws(p, it->e);
	}
	it->first = 0;
	if (it->obj) {
		key->p = p;
		if (!(p = js_skip(p, it->e, 0)))
			return 0;
		key->e = p;
		p = js_ws(p, it->e);
		if (p >= it->e || *p++ != ':')
			return 0;
	}
	val->p = js_ws(p, it->e);
	if (!(val->e = js_skip(p, it->e, 0)))
		return 0;
	it->p = val->e;
	return 1;
}

/* Whether key span (with quotes) is "name". */
static int js_key_is(js k, const char *name)
{
	size_t n = strlen(name);
	return (size_t)(k.e - k.p) == n + 2 && !memcmp(k.p + 1, name, n);
}

/* The member `name` of object v; 0 when absent. */
static int js_get(js v, const char *name, js *out)
{
	js_it it;
	js k;
	if (js_iter(&it, v, '{'))
		return 0;
	while (js_next(&it, &k, out))
		if (js_key_is(k, name))
			return 1;
	return 0;
}

/* An integer value (or a string holding one); 0 when it is one. */
static int js_i64(js v, int64_t *out)
{
	const char *p = v.p, *e = v.e;
	if (p < e && *p == '"') {
		p++;
		e--;
	}
	if (p >= e || e - p > 20)
		return -1;
	char tmp[24], *end;
	memcpy(tmp, p, (size_t)(e - p));
	tmp[e - p] = 0;
	errno = 0;
	long long x = strtoll(tmp, &end, 10);
	if (errno || *end || end == tmp)
		return -1;
	*out = x;
	return 0;
}

/* A string value without escapes other than \" \\ \/ into buf; 0 when it is one. */
static int js_str(js v, char *buf, size_t cap)
{
	size_t n = 0;
	if (v.e - v.p < 2 || *v.p != '"')
		return -1;
	for (const char *p = v.p + 1; p < v.e - 1; p++) {
		if (*p == '\\') {
			p++;
			if (p >= v.e - 1 || !strchr("\"\\/", *p))
				return -1;
		}
		if (n + 1 >= cap)
			return -1;
		buf[n++] = *p;
	}
	buf[n] = 0;
	return 0;
}

/* Appends v's text without the whitespace outside strings. */
static void js_compact(js v, sl_buf *out)
{
	int in_str = 0;
	for (const char *p = v.p; p < v.e; p++) {
		if (in_str && *p == '\\' && p + 1 < v.e) {
			sl_buf_append(out, p, 2);
			p++;
			continue;
		}
		if (*p == '"')
			in_str = !in_str;
		if (in_str || !strchr(" \n\r\t", *p))
			sl_buf_putc(out, *p);
	}
}

static int js_get_i64(js v, const char *name, int64_t *out)
{
	js m;
	return js_get(v, name, &m) ? js_i64(m, out) : -1;
}

/* ---- writing JSON --------------------------------------------------------- */

static int put_jstr(sl_buf *b, const char *s)
{
	int rc = sl_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			rc |= sl_buf_putc(b, '\\') | sl_buf_putc(b, (char)c);
		else if (c < 0x20)
			rc |= sl_buf_printf(b, "\\u%04x", c);
		else
			rc |= sl_buf_putc(b, (char)c);
	}
	return rc | sl_buf_putc(b, '"');
}

const char *sl__ice_type_name(sl_type t, char *buf, size_t cap)
{
	switch ((sl_type_id)t.id) {
	case SL_T_BOOLEAN: return "boolean";
	case SL_T_TINYINT: case SL_T_SMALLINT: case SL_T_INT: return "int";
	case SL_T_BIGINT: return "long";
	case SL_T_FLOAT: return "float";
	case SL_T_DOUBLE: return "double";
	case SL_T_DECIMAL:
		snprintf(buf, cap, "decimal(%d, %d)", t.precision, t.scale);
		return buf;
	case SL_T_DATE: return "date";
	case SL_T_TIME: return "time";
	case SL_T_TIMESTAMP: return "timestamp";
	case SL_T_TIMESTAMP_LTZ: return "timestamptz";
	case SL_T_CHAR: case SL_T_VARCHAR: return "string";
	case SL_T_BINARY: case SL_T_VARBINARY: return "binary";
	default: return NULL;
	}
}

/* The table's schema object (schema-id 0). */
static int schema_json(const ice_table *t, sl_buf *b)
{
	char tb[48];
	int rc = sl_buf_puts(b, "{\"type\":\"struct\",\"schema-id\":0,\"identifier-field-ids\":[");
	for (int i = 0; i < t->npk; i++)
		rc |= sl_buf_printf(b, "%s%d", i ? "," : "", t->cols[t->pk[i]].id);
	rc |= sl_buf_puts(b, "],\"fields\":[");
	for (int i = 0; i < t->ncols; i++) {
		const ice_col *c = &t->cols[i];
		rc |= sl_buf_printf(b, "%s{\"id\":%d,\"name\":", i ? "," : "", c->id);
		rc |= put_jstr(b, c->name);
		rc |= sl_buf_printf(b, ",\"required\":%s,\"type\":\"%s\"}",
		                    c->type.notnull ? "true" : "false",
		                    sl__ice_type_name(c->type, tb, sizeof tb));
	}
	rc |= sl_buf_puts(b, "]}");
	return rc;
}

/* The partition spec's fields (a JSON array). */
static int spec_json(const ice_table *t, sl_buf *b)
{
	char tb[32];
	int rc = sl_buf_putc(b, '[');
	for (int i = 0; i < t->npf; i++) {
		const ice_col *c = &t->cols[t->pf[i].col];
		rc |= sl_buf_puts(b, i ? ",{\"name\":" : "{\"name\":");
		rc |= put_jstr(b, t->pf[i].name);
		rc |= sl_buf_printf(b, ",\"transform\":\"%s\",\"source-id\":%d,\"field-id\":%d}",
		                    sl__ice_transform_name(&t->pf[i], tb, sizeof tb), c->id,
		                    t->pf[i].field_id);
	}
	return rc | sl_buf_putc(b, ']');
}

/* ---- files ------------------------------------------------------------------ */

static int64_t now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void rand_bytes(void *p, size_t n)
{
	if (getrandom(p, n, 0) == (ssize_t)n)
		return;
	uint64_t x = (uint64_t)now_ms() * 2654435761u ^ (uint64_t)getpid();
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		((uint8_t *)p)[i] = (uint8_t)(x >> 56);
	}
}

static void uuid4(char out[37])
{
	uint8_t u[16];
	rand_bytes(u, 16);
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
	         u[13], u[14], u[15]);
}

/* Creates path (O_EXCL) with b's bytes, fsynced.  -1 with errno. */
static int write_new(const char *path, const sl_buf *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < b->len) {
		ssize_t w = write(fd, b->p + done, b->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int e = errno;
			close(fd);
			unlink(path);
			errno = e;
			return -1;
		}
		done += (size_t)w;
	}
	if (fsync(fd)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static int fsync_path(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int sl__ice_read_file(const char *path, sl_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char tmp[65536];
	ssize_t got;
	sl_buf_clear(b);
	while ((got = read(fd, tmp, sizeof tmp)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0 && sl_buf_append(b, tmp, (size_t)got)) {
			got = -1;
			break;
		}
	close(fd);
	return got < 0 ? -1 : 0;
}

/* A location as a local path: "file:" schemes removed. */
static const char *local_of(const char *loc)
{
	if (!strncmp(loc, "file://", 7))
		return loc + 7;
	if (!strncmp(loc, "file:", 5))
		return loc + 5;
	return loc;
}

/*
 * The current version: *ver (0 = the table has none) and its text in b.
 * Starts at version-hint.text (or 1) and probes upwards.
 */
static int read_current(ice_table *t, int64_t *ver, sl_buf *b, sl_err *err)
{
	char path[ICE_PATH];
	struct stat sb;
	int64_t v = 0;
	sl_buf hint;
	sl_buf_init(&hint);
	snprintf(path, sizeof path, "%s/metadata/version-hint.text", t->dir);
	if (!sl__ice_read_file(path, &hint) && sl_buf_cstr(&hint)) {
		char *end;
		long long x = strtoll(hint.p, &end, 10);
		if (x > 0 && (*end == 0 || *end == '\n'))
			v = x;
	}
	sl_buf_deinit(&hint);
	snprintf(path, sizeof path, "%s/metadata/v%lld.metadata.json", t->dir, (long long)v);
	if (v > 0 && stat(path, &sb))
		v = 0; /* a hint without its file: probe from the start */
	for (;;) {
		snprintf(path, sizeof path, "%s/metadata/v%lld.metadata.json", t->dir,
		         (long long)v + 1);
		if (stat(path, &sb))
			break;
		v++;
	}
	*ver = v;
	if (v == 0)
		return 0;
	snprintf(path, sizeof path, "%s/metadata/v%lld.metadata.json", t->dir, (long long)v);
	if (sl__ice_read_file(path, b) || !sl_buf_cstr(b))
		return sl_err_set(err, SL_EIO, "sink '%s': cannot read '%s': %s", t->name, path,
		                  strerror(errno));
	js root = {b->p, b->p + b->len};
	const char *end = js_skip(root.p, root.e, 0);
	if (!end || js_ws(end, root.e) != root.e || *js_ws(root.p, root.e) != '{')
		return sl_err_set(err, SL_ESTATE, "sink '%s': '%s' is not a JSON object", t->name,
		                  path);
	return 0;
}

/* Publishes tmp as metadata/v<ver>.metadata.json with link(); 1 when the
 * name exists already (another writer's), 0 when published, -1 on error. */
static int publish_version(ice_table *t, const char *tmp, int64_t ver)
{
	char path[ICE_PATH];
	snprintf(path, sizeof path, "%s/metadata/v%lld.metadata.json", t->dir, (long long)ver);
	sl_fault("iceberg-before-metadata-link");
	int rc = link(tmp, path);
	int e = errno;
	unlink(tmp);
	if (rc && e == EEXIST)
		return 1;
	if (rc) {
		errno = e;
		return -1;
	}
	sl_fault("iceberg-after-metadata-link");
	return 0;
}

/* version-hint.text := ver (temporary name, rename: a reader sees the old
 * or the new number, never a partial one). */
static int write_hint(ice_table *t, int64_t ver, sl_err *err)
{
	char tmp[ICE_PATH], path[ICE_PATH], uuid[37];
	sl_buf b;
	sl_buf_init(&b);
	uuid4(uuid);
	snprintf(tmp, sizeof tmp, "%s/metadata/.version-hint-%s.tmp", t->dir, uuid);
	snprintf(path, sizeof path, "%s/metadata/version-hint.text", t->dir);
	sl_buf_printf(&b, "%lld", (long long)ver);
	int rc = write_new(tmp, &b) || rename(tmp, path);
	sl_buf_deinit(&b);
	if (rc) {
		unlink(tmp);
		return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s", t->name, path,
		                  strerror(errno));
	}
	snprintf(path, sizeof path, "%s/metadata", t->dir);
	fsync_path(path);
	return 0;
}

/* Writes v1 of a new table; a concurrent creator's v1 wins (no error). */
static int create_table(ice_table *t, sl_err *err)
{
	char tmp[ICE_PATH], uuid[37];
	sl_buf b;
	sl_buf_init(&b);
	uuid4(uuid);
	int last_pid = 999;
	for (int i = 0; i < t->npf; i++)
		last_pid = t->pf[i].field_id > last_pid ? t->pf[i].field_id : last_pid;
	int rc = sl_buf_printf(&b, "{\n  \"format-version\" : 2,\n  \"table-uuid\" : \"%s\",\n"
	                       "  \"location\" : ", uuid);
	rc |= put_jstr(&b, t->loc);
	rc |= sl_buf_printf(&b, ",\n  \"last-sequence-number\" : 0,\n  \"last-updated-ms\" : %lld,\n"
	                    "  \"last-column-id\" : %d,\n  \"current-schema-id\" : 0,\n"
	                    "  \"schemas\" : [ ", (long long)now_ms(), t->ncols);
	rc |= schema_json(t, &b);
	rc |= sl_buf_puts(&b, " ],\n  \"default-spec-id\" : 0,\n  \"partition-specs\" : "
	                  "[ {\"spec-id\":0,\"fields\":");
	rc |= spec_json(t, &b);
	rc |= sl_buf_printf(&b, "} ],\n  \"last-partition-id\" : %d,\n  \"default-sort-order-id\" : 0,\n"
	                    "  \"sort-orders\" : [ {\"order-id\":0,\"fields\":[]} ],\n"
	                    "  \"properties\" : {\"write.format.default\":\"parquet\","
	                    "\"created-by\":\"sluice\"},\n"
	                    "  \"refs\" : { },\n  \"snapshots\" : [ ],\n  \"snapshot-log\" : [ ],\n"
	                    "  \"metadata-log\" : [ ]\n}\n", last_pid);
	snprintf(tmp, sizeof tmp, "%s/metadata/.v1-%s.metadata.json.tmp", t->dir, uuid);
	if (rc || write_new(tmp, &b)) {
		sl_buf_deinit(&b);
		return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s", t->name, tmp,
		                  rc ? "out of memory" : strerror(errno));
	}
	sl_buf_deinit(&b);
	int pub = publish_version(t, tmp, 1);
	if (pub < 0)
		return sl_err_set(err, SL_EIO, "sink '%s': cannot create '%s/metadata/v1.metadata.json':"
		                  " %s", t->name, t->dir, strerror(errno));
	return pub == 0 ? write_hint(t, 1, err) : 0;
}

/* Checks the current schema and default spec against the DDL's. */
static int check_table(ice_table *t, js root, sl_err *err)
{
	js v, f, k, s;
	js_it it;
	int64_t fv = 0, sid = -1, x;
	char name[256], ty[64], tb[48];
	int n = 0;
	if (js_get_i64(root, "format-version", &fv) || fv != 2)
		return sl_err_set(err, SL_ENOTSUP, "sink '%s': table '%s' has format version %lld: "
		                  "sluice writes version 2 tables", t->name, t->dir, (long long)fv);
	js_get_i64(root, "current-schema-id", &sid);
	if (!js_get(root, "schemas", &v) || js_iter(&it, v, '['))
		goto bad;
	while (js_next(&it, &k, &s))
		if (!js_get_i64(s, "schema-id", &x) && x == sid)
			break;
		else
			s.p = NULL;
	if (!s.p || !js_get(s, "fields", &v) || js_iter(&it, v, '['))
		goto bad;
	while (js_next(&it, &k, &f)) {
		js nm, tyv;
		if (n >= t->ncols || !js_get(f, "name", &nm) || js_str(nm, name, sizeof name) ||
		    !js_get(f, "type", &tyv) || js_str(tyv, ty, sizeof ty) ||
		    js_get_i64(f, "id", &x) || strcmp(name, t->cols[n].name) || x != t->cols[n].id ||
		    strcmp(ty, sl__ice_type_name(t->cols[n].type, tb, sizeof tb)))
			return sl_err_set(err, SL_EPLAN, "sink '%s': the schema of table '%s' is not the "
			                  "DDL's (column %d: %s %s in the table, %s %s declared)", t->name,
			                  t->dir, n + 1, js_str(nm, name, sizeof name) ? "?" : name, ty,
			                  n < t->ncols ? t->cols[n].name : "(none)",
			                  n < t->ncols ? sl__ice_type_name(t->cols[n].type, tb, sizeof tb)
			                               : "");
		n++;
	}
	if (n != t->ncols)
		return sl_err_set(err, SL_EPLAN, "sink '%s': table '%s' has %d columns, the DDL %d",
		                  t->name, t->dir, n, t->ncols);
	/* the default partition spec */
	sl_buf want;
	sl_buf_init(&want);
	spec_json(t, &want);
	int64_t dspec = 0;
	js_get_i64(root, "default-spec-id", &dspec);
	int same = 0;
	if (js_get(root, "partition-specs", &v) && !js_iter(&it, v, '['))
		while (js_next(&it, &k, &s))
			if (!js_get_i64(s, "spec-id", &x) && x == dspec && js_get(s, "fields", &f)) {
				sl_buf got;
				sl_buf_init(&got);
				js_compact(f, &got);
				same = dspec == 0 && got.len == want.len && !memcmp(got.p, want.p, got.len);
				sl_buf_deinit(&got);
			}
	sl_buf_deinit(&want);
	if (!same)
		return sl_err_set(err, SL_EPLAN, "sink '%s': the partition spec of table '%s' is not "
		                  "the DDL's PARTITIONED BY", t->name, t->dir);
	return 0;
bad:
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged table metadata in '%s'", t->name,
	                  t->dir);
}

int sl__ice_table_open(ice_table *t, sl_err *err)
{
	char path[ICE_PATH];
	int64_t ver;
	sl_buf b;
	int rc;
	snprintf(path, sizeof path, "%s/metadata", t->dir);
	if ((rc = sl_mkdirs(path, err)) ||
	    (snprintf(path, sizeof path, "%s/data", t->dir), (rc = sl_mkdirs(path, err)))) {
		sl_err_prefix(err, "sink '%s'", t->name);
		return rc;
	}
	sl_buf_init(&b);
	if (!(rc = read_current(t, &ver, &b, err)) && ver == 0 && !(rc = create_table(t, err)))
		rc = read_current(t, &ver, &b, err);
	if (!rc) {
		js root = {b.p, b.p + b.len}, loc;
		char l[ICE_PATH];
		rc = check_table(t, root, err);
		if (!rc && js_get(root, "location", &loc) && !js_str(loc, l, sizeof l) &&
		    strcmp(l, t->loc)) { /* the table's own location names its files */
			free(t->loc);
			if (!(t->loc = strdup(l)))
				rc = sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", t->name);
		}
	}
	sl_buf_deinit(&b);
	return rc;
}

/* The max committed checkpoint of job in root's snapshots. */
static int64_t committed_in(js root, const char *job)
{
	js v, k, s, sum, m;
	js_it it;
	char j[256];
	int64_t max = 0, x;
	if (!js_get(root, "snapshots", &v) || js_iter(&it, v, '['))
		return 0;
	while (js_next(&it, &k, &s))
		if (js_get(s, "summary", &sum) && js_get(sum, "flink.job-id", &m) &&
		    !js_str(m, j, sizeof j) && !strcmp(j, job) &&
		    !js_get_i64(sum, "flink.max-committed-checkpoint-id", &x) && x > max)
			max = x;
	return max;
}

int sl__ice_committed(ice_table *t, const char *job, int64_t *max, sl_err *err)
{
	sl_buf b;
	int64_t ver;
	sl_buf_init(&b);
	int rc = read_current(t, &ver, &b, err);
	*max = rc || ver == 0 ? 0 : committed_in((js){b.p, b.p + b.len}, job);
	sl_buf_deinit(&b);
	return rc;
}

/* Appends to array text `old` (or starts one) the element in add. */
static int append_array(sl_buf *o, js old, const char *add)
{
	const char *e = old.e;
	if (old.p && e > old.p)
		e--; /* the ']' */
	while (old.p && e > old.p && strchr(" \n\r\t", e[-1]))
		e--;
	int empty = !old.p || e - old.p <= 1;
	int rc = old.p ? sl_buf_append(o, old.p, (size_t)(e - old.p)) : sl_buf_putc(o, '[');
	return rc | sl_buf_puts(o, empty ? " " : ", ") | sl_buf_puts(o, add) | sl_buf_puts(o, " ]");
}

/* What one commit attempt works from: the current version's facts. */
typedef struct ice_base {
	int64_t ver, seq, parent, last_ms, total_size;
	int64_t total_eq, total_pos; /* the parent's total equality / position deletes */
	char mlist[ICE_PATH];  /* the parent's manifest list (local path), "" = none */
} ice_base;

static int read_base(ice_table *t, js root, ice_base *bs, sl_err *err)
{
	js v, k, s, m;
	js_it it;
	bs->seq = bs->last_ms = bs->total_size = bs->total_eq = bs->total_pos = 0;
	bs->mlist[0] = 0;
	bs->parent = -1;
	js_get_i64(root, "last-sequence-number", &bs->seq);
	js_get_i64(root, "last-updated-ms", &bs->last_ms);
	js_get_i64(root, "current-snapshot-id", &bs->parent);
	if (bs->parent <= 0)
		return 0;
	if (!js_get(root, "snapshots", &v) || js_iter(&it, v, '['))
		goto bad;
	while (js_next(&it, &k, &s)) {
		int64_t id;
		if (js_get_i64(s, "snapshot-id", &id) || id != bs->parent)
			continue;
		char l[ICE_PATH];
		if (!js_get(s, "manifest-list", &m) || js_str(m, l, sizeof l))
			goto bad;
		snprintf(bs->mlist, sizeof bs->mlist, "%s", local_of(l));
		if (js_get(s, "summary", &m)) {
			js_get_i64(m, "total-files-size", &bs->total_size);
			js_get_i64(m, "total-equality-deletes", &bs->total_eq);
			js_get_i64(m, "total-position-deletes", &bs->total_pos);
		}
		return 0;
	}
bad:
	return sl_err_set(err, SL_ESTATE, "sink '%s': damaged table metadata in '%s' (current "
	                  "snapshot %lld)", t->name, t->dir, (long long)bs->parent);
}

/* What a snapshot adds and holds, for its summary. */
typedef struct ice_counts {
	int64_t files, rows, size;          /* added data files, records, bytes of all files */
	int64_t eq_files, eq, pos_files, pos; /* added delete files and their deletes */
	int64_t tot_files, tot_rows, tot_del_files; /* live in the snapshot */
	int64_t gone_files, gone_rows, gone_del, gone_eq, gone_pos; /* a replace's removed */
} ice_counts;

/* The new snapshot's JSON object. */
static int snapshot_json(sl_buf *o, const ice_commit *c, const ice_base *bs, int64_t snap,
                         int64_t ms, const char *mlist, const ice_counts *n)
{
	/* Iceberg's operations: "append" (data files only), "overwrite"
	 * (data and deletes, a row delta), "delete" (deletes only) */
	const char *op = c->replace ? "replace" : !n->eq_files && !n->pos_files ? "append"
	               : n->files ? "overwrite" : "delete";
	int rc = sl_buf_printf(o, "{\"snapshot-id\":%lld,", (long long)snap);
	if (bs->parent > 0)
		rc |= sl_buf_printf(o, "\"parent-snapshot-id\":%lld,", (long long)bs->parent);
	rc |= sl_buf_printf(o, "\"sequence-number\":%lld,\"timestamp-ms\":%lld,\"manifest-list\":",
	                    (long long)bs->seq + 1, (long long)ms);
	rc |= put_jstr(o, mlist);
	rc |= sl_buf_printf(o, ",\"summary\":{\"operation\":\"%s\",\"engine-name\":\"sluice\","
	                    "\"added-data-files\":\"%lld\",\"added-records\":\"%lld\","
	                    "\"added-files-size\":\"%lld\",", op, (long long)n->files,
	                    (long long)n->rows, (long long)n->size);
	if (n->eq_files || n->pos_files)
		rc |= sl_buf_printf(o, "\"added-delete-files\":\"%lld\","
		                    "\"added-equality-delete-files\":\"%lld\","
		                    "\"added-position-delete-files\":\"%lld\","
		                    "\"added-equality-deletes\":\"%lld\","
		                    "\"added-position-deletes\":\"%lld\",",
		                    (long long)(n->eq_files + n->pos_files), (long long)n->eq_files,
		                    (long long)n->pos_files, (long long)n->eq, (long long)n->pos);
	if (c->replace)
		rc |= sl_buf_printf(o, "\"deleted-data-files\":\"%lld\",\"deleted-records\":\"%lld\","
		                    "\"removed-delete-files\":\"%lld\","
		                    "\"removed-equality-deletes\":\"%lld\","
		                    "\"removed-position-deletes\":\"%lld\",",
		                    (long long)n->gone_files, (long long)n->gone_rows,
		                    (long long)n->gone_del, (long long)n->gone_eq, (long long)n->gone_pos);
	rc |= sl_buf_printf(o, "\"total-data-files\":\"%lld\",\"total-records\":\"%lld\","
	                    "\"total-files-size\":\"%lld\",\"total-delete-files\":\"%lld\","
	                    "\"total-position-deletes\":\"%lld\","
	                    "\"total-equality-deletes\":\"%lld\"",
	                    (long long)n->tot_files, (long long)n->tot_rows,
	                    (long long)(c->replace ? n->size : bs->total_size + n->size),
	                    (long long)n->tot_del_files,
	                    (long long)(c->replace ? n->pos : bs->total_pos + n->pos),
	                    (long long)(c->replace ? n->eq : bs->total_eq + n->eq));
	if (c->job)
		rc |= sl_buf_puts(o, ",\"flink.job-id\":") | put_jstr(o, c->job);
	if (c->ckpt > 0)
		rc |= sl_buf_printf(o, ",\"flink.max-committed-checkpoint-id\":\"%lld\"",
		                    (long long)c->ckpt);
	return rc | sl_buf_puts(o, "},\"schema-id\":0}");
}

/* The next version's text: root with the commit's members rewritten. */
static int next_version(sl_buf *o, js root, const ice_table *t, const ice_base *bs,
                        int64_t snap, int64_t ms, const char *snap_json)
{
	static const char *const mine[] = {"last-sequence-number", "last-updated-ms",
	                                   "current-snapshot-id", "snapshots", "snapshot-log",
	                                   "metadata-log", "refs"};
	int done[7] = {0};
	js_it it;
	js k, v;
	char add[ICE_PATH + 128];
	int rc = sl_buf_puts(o, "{\n"), first = 1;
	js_iter(&it, root, '{');
	for (;;) {
		int more = js_next(&it, &k, &v), w = -1;
		js old = {NULL, NULL};
		if (more) {
			for (int i = 0; i < 7; i++)
				if (js_key_is(k, mine[i]))
					w = i;
			if (w < 0) {
				rc |= sl_buf_puts(o, first ? "  " : ",\n  ");
				rc |= sl_buf_append(o, k.p, (size_t)(k.e - k.p)) | sl_buf_puts(o, " : ");
				rc |= sl_buf_append(o, v.p, (size_t)(v.e - v.p));
				first = 0;
				continue;
			}
			old = v;
		} else {
			for (int i = 0; i < 7 && w < 0; i++)
				if (!done[i])
					w = i;
			if (w < 0)
				break;
		}
		done[w] = 1;
		rc |= sl_buf_puts(o, first ? "  \"" : ",\n  \"") | sl_buf_puts(o, mine[w]) |
		      sl_buf_puts(o, "\" : ");
		first = 0;
		switch (w) {
		case 0: rc |= sl_buf_printf(o, "%lld", (long long)bs->seq + 1); break;
		case 1: rc |= sl_buf_printf(o, "%lld", (long long)ms); break;
		case 2: rc |= sl_buf_printf(o, "%lld", (long long)snap); break;
		case 3: rc |= append_array(o, old, snap_json); break;
		case 4:
			snprintf(add, sizeof add, "{\"timestamp-ms\":%lld,\"snapshot-id\":%lld}",
			         (long long)ms, (long long)snap);
			rc |= append_array(o, old, add);
			break;
		case 5: {
			sl_buf e;
			sl_buf_init(&e);
			rc |= sl_buf_printf(&e, "{\"timestamp-ms\":%lld,\"metadata-file\":",
			                    (long long)bs->last_ms);
			snprintf(add, sizeof add, "%s/metadata/v%lld.metadata.json", t->loc,
			         (long long)bs->ver);
			rc |= put_jstr(&e, add) | sl_buf_putc(&e, '}') | (sl_buf_cstr(&e) == NULL);
			rc |= append_array(o, old, e.p);
			sl_buf_deinit(&e);
			break;
		}
		case 6: { /* refs: main moves to the new snapshot, other refs stay */
			js_it r;
			js rk, rv;
			rc |= sl_buf_printf(o, "{\"main\":{\"snapshot-id\":%lld,\"type\":\"branch\"}",
			                    (long long)snap);
			if (old.p && !js_iter(&r, old, '{'))
				while (js_next(&r, &rk, &rv))
					if (!js_key_is(rk, "main"))
						rc |= sl_buf_putc(o, ',') |
						      sl_buf_append(o, rk.p, (size_t)(rk.e - rk.p)) |
						      sl_buf_putc(o, ':') |
						      sl_buf_append(o, rv.p, (size_t)(rv.e - rv.p));
			rc |= sl_buf_putc(o, '}');
			break;
		}
		}
	}
	return rc | sl_buf_puts(o, "\n}\n");
}

/* Writes an Avro file under metadata/ named name; its location into loc. */
static int put_meta_file(ice_table *t, const char *name, const sl_buf *b, char *loc,
                         sl_err *err)
{
	char path[ICE_PATH];
	snprintf(path, sizeof path, "%s/metadata/%s", t->dir, name);
	snprintf(loc, ICE_PATH, "%s/metadata/%s", t->loc, name);
	if (write_new(path, b))
		return sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s", t->name, path,
		                  strerror(errno));
	return 0;
}

/* Writes the manifest of c's data files (deletes = 0) or delete files
 * (1) named <uuid>-m<deletes>.avro and its manifest list record into *m.
 * 0 or a code with err. */
static int put_manifest(ice_table *t, const ice_commit *c, const ice_base *bs, int64_t snap,
                        const char *uuid, int deletes, ice_mref *m, char *loc, sl_err *err)
{
	char name[128];
	sl_buf man, schema, spec;
	int64_t files = 0, rows = 0;
	int rc = 0;
	for (int i = 0; i < c->nfiles; i++)
		if ((c->files[i].content != ICE_DATA) == (deletes != 0)) {
			files++;
			rows += c->files[i].rows;
		}
	sl_buf_init(&man);
	sl_buf_init(&schema);
	sl_buf_init(&spec);
	snprintf(name, sizeof name, "%s-m%d.avro", uuid, deletes);
	if (schema_json(t, &schema) || spec_json(t, &spec) || !sl_buf_cstr(&schema) ||
	    !sl_buf_cstr(&spec) ||
	    sl__ice_manifest(t, schema.p, spec.p, snap, c->files, c->nfiles, deletes, &man) ||
	    (rc = put_meta_file(t, name, &man, loc, err)) ||
	    sl__ice_mref_new(m, loc, (int64_t)man.len, bs->seq + 1, snap, deletes, files, rows))
		rc = rc ? rc : sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", t->name);
	sl_buf_deinit(&man);
	sl_buf_deinit(&schema);
	sl_buf_deinit(&spec);
	return rc;
}

/* Writes a replace's manifest of its removed data files (deletes = 0) or
 * delete files (1), entries DELETED, named <uuid>-g<deletes>.avro, and its
 * manifest list record into *m.  0 or a code with err. */
static int put_gone(ice_table *t, const ice_commit *c, const ice_base *bs, int64_t snap,
                    const char *uuid, int deletes, ice_mref *m, char *loc, sl_err *err)
{
	char name[128];
	sl_buf man, schema, spec;
	int64_t files = 0, rows = 0, minseq = INT64_MAX;
	int rc = 0;
	for (int i = 0; i < c->ngone; i++)
		if ((c->gone[i].content != ICE_DATA) == (deletes != 0)) {
			files++;
			rows += c->gone[i].rows;
			minseq = c->gone[i].seq < minseq ? c->gone[i].seq : minseq;
		}
	sl_buf_init(&man);
	sl_buf_init(&schema);
	sl_buf_init(&spec);
	snprintf(name, sizeof name, "%s-g%d.avro", uuid, deletes);
	if (schema_json(t, &schema) || spec_json(t, &spec) || !sl_buf_cstr(&schema) ||
	    !sl_buf_cstr(&spec) ||
	    sl__ice_manifest_gone(t, schema.p, spec.p, snap, c->gone, c->ngone, deletes, &man) ||
	    (rc = put_meta_file(t, name, &man, loc, err)) ||
	    sl__ice_mref_gone(m, loc, (int64_t)man.len, bs->seq + 1, minseq, snap, deletes, files,
	                      rows))
		rc = rc ? rc : sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", t->name);
	sl_buf_deinit(&man);
	sl_buf_deinit(&schema);
	sl_buf_deinit(&spec);
	return rc;
}

/* One commit attempt on top of version bs->ver; 1 = lost the race. */
static int commit_once(ice_table *t, const ice_commit *c, js root, ice_base *bs, sl_err *err)
{
	char uuid[37], name[128], mloc[2][ICE_PATH], gloc[2][ICE_PATH], lloc[ICE_PATH],
	     tmp[ICE_PATH];
	sl_buf list, snapj, meta;
	ice_mref *refs = NULL;
	int nrefs = 0, nnew = 0, rc, kinds[2] = {0, 0};
	int64_t snap, ms = now_ms();
	ice_counts n;
	memset(&n, 0, sizeof n);
	mloc[0][0] = mloc[1][0] = gloc[0][0] = gloc[1][0] = 0;
	rand_bytes(&snap, sizeof snap);
	snap &= INT64_MAX >> 1;
	snap += !snap;
	if (ms < bs->last_ms)
		ms = bs->last_ms;
	sl_buf_init(&list);
	sl_buf_init(&snapj);
	sl_buf_init(&meta);
	for (int i = 0; i < c->nfiles; i++) {
		const ice_file *f = &c->files[i];
		kinds[f->content != ICE_DATA] = 1;
		n.size += f->bytes;
		if (f->content == ICE_DATA) {
			n.files++;
			n.rows += f->rows;
		} else if (f->content == ICE_EQ_DELETES) {
			n.eq_files++;
			n.eq += f->rows;
		} else {
			n.pos_files++;
			n.pos += f->rows;
		}
	}
	for (int i = 0; c->replace && i < c->ngone; i++) {
		const ice_gone *g = &c->gone[i];
		if (g->content == ICE_DATA) {
			n.gone_files++;
			n.gone_rows += g->rows;
		} else {
			n.gone_del++;
			*(g->content == ICE_EQ_DELETES ? &n.gone_eq : &n.gone_pos) += g->rows;
		}
	}
	/* a replace lists its own files and its removed ones, not the parent's */
	if ((rc = bs->mlist[0] && !c->replace ? sl__ice_mlist_read(bs->mlist, &refs, &nrefs, err)
	                                      : 0))
		goto done;
	/* the new manifests (data, deletes) first, then the parent's (a
	 * replace: the manifests of its removed data and delete files) */
	int gkinds[2] = {0, 0};
	for (int i = 0; c->replace && i < c->ngone; i++)
		gkinds[c->gone[i].content != ICE_DATA] = 1;
	nnew = kinds[0] + kinds[1] + gkinds[0] + gkinds[1];
	ice_mref *nr = realloc(refs, (size_t)(nrefs + nnew) * sizeof *nr);
	if (!nr) {
		rc = sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", t->name);
		goto done;
	}
	refs = nr;
	memmove(refs + nnew, refs, (size_t)nrefs * sizeof *refs);
	for (int i = 0; i < nnew; i++)
		sl_buf_init(&refs[i].rec);
	nrefs += nnew;
	uuid4(uuid);
	for (int d = 0, j = 0; d < 4; d++)
		if (d < 2 ? kinds[d] && (rc = put_manifest(t, c, bs, snap, uuid, d, &refs[j++],
		                                           mloc[d], err))
		          : gkinds[d - 2] && (rc = put_gone(t, c, bs, snap, uuid, d - 2, &refs[j++],
		                                            gloc[d - 2], err)))
			goto done;
	for (int i = 0; i < nrefs; i++)
		if (refs[i].content == 0) {
			n.tot_files += refs[i].files;
			n.tot_rows += refs[i].rows;
		} else {
			n.tot_del_files += refs[i].files;
		}
	snprintf(name, sizeof name, "snap-%lld-1-%s.avro", (long long)snap, uuid);
	if (sl__ice_mlist(refs, nrefs, snap, bs->parent, bs->seq + 1, &list) ||
	    (rc = put_meta_file(t, name, &list, lloc, err)) ||
	    snapshot_json(&snapj, c, bs, snap, ms, lloc, &n) || !sl_buf_cstr(&snapj) ||
	    next_version(&meta, root, t, bs, snap, ms, snapj.p)) {
		rc = rc ? rc : sl_err_set(err, SL_ENOMEM, "sink '%s': out of memory", t->name);
		goto done;
	}
	snprintf(tmp, sizeof tmp, "%s/metadata/.v%lld-%s.metadata.json.tmp", t->dir,
	         (long long)bs->ver + 1, uuid);
	if (write_new(tmp, &meta)) {
		rc = sl_err_set(err, SL_EIO, "sink '%s': cannot write '%s': %s", t->name, tmp,
		                strerror(errno));
		goto done;
	}
	int pub = publish_version(t, tmp, bs->ver + 1);
	if (pub < 0) {
		rc = sl_err_set(err, SL_EIO, "sink '%s': cannot publish '%s/metadata/v%lld.metadata."
		                "json': %s", t->name, t->dir, (long long)bs->ver + 1, strerror(errno));
	} else if (pub == 1) { /* lost the race: this attempt's files are garbage */
		for (int d = 0; d < 4; d++)
			if ((d < 2 ? mloc[d] : gloc[d - 2])[0]) {
				snprintf(tmp, sizeof tmp, "%s", local_of(d < 2 ? mloc[d] : gloc[d - 2]));
				unlink(tmp);
			}
		snprintf(tmp, sizeof tmp, "%s", local_of(lloc));
		unlink(tmp);
		rc = 1;
	} else {
		snprintf(tmp, sizeof tmp, "%s/metadata", t->dir);
		fsync_path(tmp);
		rc = write_hint(t, bs->ver + 1, err);
	}
done:
	sl__ice_mrefs_free(refs, nrefs);
	sl_buf_deinit(&list);
	sl_buf_deinit(&snapj);
	sl_buf_deinit(&meta);
	return rc;
}

int sl__ice_commit(ice_table *t, const ice_commit *c, sl_err *err)
{
	sl_buf b;
	ice_base bs;
	int rc = 0;
	sl_buf_init(&b);
	for (int attempt = 0; attempt < ICE_RETRIES; attempt++) {
		if ((rc = read_current(t, &bs.ver, &b, err)))
			break;
		if (bs.ver == 0) {
			rc = sl_err_set(err, SL_ESTATE, "sink '%s': table '%s' has no metadata",
			                t->name, t->dir);
			break;
		}
		js root = {b.p, b.p + b.len};
		if (c->ckpt > 0 && committed_in(root, c->job) >= c->ckpt)
			break; /* committed before (a restore repeats the commit) */
		if ((rc = read_base(t, root, &bs, err)))
			break;
		if (c->replace && bs.parent != c->base) {
			rc = sl_err_set(err, SL_ESTATE, "iceberg: table '%s' changed (snapshot %lld is "
			                "current, not %lld)", t->dir, (long long)bs.parent,
			                (long long)c->base);
			break;
		}
		if ((rc = commit_once(t, c, root, &bs, err)) != 1)
			break;
	}
	if (rc == 1)
		rc = sl_err_set(err, SL_EIO, "sink '%s': table '%s': %d commits lost to concurrent "
		                "writers", t->name, t->dir, ICE_RETRIES);
	sl_buf_deinit(&b);
	return rc;
}

/* ---- expire-snapshots ------------------------------------------------------ */

/* The manifest paths listed by manifest list `path` (local), appended to
 * *paths (n of them, malloc'd strings).  0 or a code with err. */
static int manifests_of(const char *path, char ***paths, int *n, sl_err *err)
{
	ice_mref *refs = NULL;
	int nr = 0, rc = sl__ice_mlist_read(path, &refs, &nr, err);
	for (int i = 0; !rc && i < nr; i++) {
		sl_avro_rd r = {(const uint8_t *)refs[i].rec.p,
		                (const uint8_t *)refs[i].rec.p + refs[i].rec.len, 0};
		size_t len;
		const uint8_t *p = sl_avro_get_bytes(&r, &len);
		char **nv = realloc(*paths, (size_t)(*n + 1) * sizeof *nv);
		if (!nv || !p || !(nv[*n] = strndup((const char *)p, len))) {
			if (nv)
				*paths = nv;
			rc = sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
			break;
		}
		*paths = nv;
		(*n)++;
	}
	sl__ice_mrefs_free(refs, nr);
	return rc;
}

static void free_paths(char **p, int n)
{
	for (int i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

/* A snapshot of the current version, for expiring. */
typedef struct exp_snap {
	js text;           /* its JSON object */
	int64_t id, ts;
	char mlist[ICE_PATH]; /* local path */
	int keep;
} exp_snap;

/* One attempt: 1 = lost the race for the next version. */
static int expire_once(ice_table *t, js root, int64_t ver, int64_t older_ms, int retain,
                       sl_iceberg_expired *st, sl_err *err)
{
	js v, k, s, m;
	js_it it;
	exp_snap *sn = NULL;
	int n = 0, rc = 0, nkeep = 0, nk = 0, ne = 0;
	char **kept = NULL, **gone = NULL, tmp[ICE_PATH], uuid[37], l[ICE_PATH];
	int64_t cur = -1, last_ms = 0;
	sl_buf o;
	sl_buf_init(&o);
	js_get_i64(root, "current-snapshot-id", &cur);
	js_get_i64(root, "last-updated-ms", &last_ms);
	if (js_get(root, "snapshots", &v) && !js_iter(&it, v, '['))
		while (js_next(&it, &k, &s)) {
			exp_snap *nv = realloc(sn, (size_t)(n + 1) * sizeof *nv);
			if (!nv) {
				rc = sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
				goto done;
			}
			sn = nv;
			sn[n].text = s;
			if (js_get_i64(s, "snapshot-id", &sn[n].id) || js_get_i64(s, "timestamp-ms",
			                                                          &sn[n].ts) ||
			    !js_get(s, "manifest-list", &m) || js_str(m, l, sizeof l)) {
				rc = sl_err_set(err, SL_ESTATE, "iceberg: damaged snapshot in '%s'", t->dir);
				goto done;
			}
			snprintf(sn[n].mlist, ICE_PATH, "%s", local_of(l));
			n++;
		}
	for (int i = n - 1; i >= 0; i--) {
		sn[i].keep = sn[i].id == cur || n - i <= retain || sn[i].ts >= older_ms;
		nkeep += sn[i].keep;
	}
	st->kept = nkeep;
	st->expired = n - nkeep;
	if (nkeep == n)
		goto done;
	for (int i = 0; i < n && !rc; i++)
		rc = manifests_of(sn[i].mlist, sn[i].keep ? &kept : &gone, sn[i].keep ? &nk : &ne,
		                  err);
	if (rc)
		goto done;
	/* the next version: snapshots and snapshot-log without the expired ones */
	int first = 1;
	int64_t ms = now_ms() > last_ms ? now_ms() : last_ms;
	rc = sl_buf_puts(&o, "{\n");
	js_iter(&it, root, '{');
	while (js_next(&it, &k, &v)) {
		rc |= sl_buf_puts(&o, first ? "  " : ",\n  ");
		first = 0;
		rc |= sl_buf_append(&o, k.p, (size_t)(k.e - k.p)) | sl_buf_puts(&o, " : ");
		if (js_key_is(k, "snapshots") || js_key_is(k, "snapshot-log")) {
			js_it a;
			js ak, av;
			int any = 0, snaps = js_key_is(k, "snapshots");
			rc |= sl_buf_puts(&o, "[ ");
			js_iter(&a, v, '[');
			while (js_next(&a, &ak, &av)) {
				int64_t id = -1, keep = 0;
				js_get_i64(av, "snapshot-id", &id);
				for (int i = 0; i < n; i++)
					keep |= sn[i].id == id && sn[i].keep;
				if (!keep)
					continue;
				rc |= sl_buf_puts(&o, any ? ", " : "") |
				      sl_buf_append(&o, av.p, (size_t)(av.e - av.p));
				any = 1;
			}
			rc |= sl_buf_puts(&o, " ]");
			(void)snaps;
		} else if (js_key_is(k, "last-updated-ms")) {
			rc |= sl_buf_printf(&o, "%lld", (long long)ms);
		} else if (js_key_is(k, "metadata-log")) {
			char add[ICE_PATH + 128];
			sl_buf e;
			sl_buf_init(&e);
			snprintf(add, sizeof add, "%s/metadata/v%lld.metadata.json", t->loc,
			         (long long)ver);
			rc |= sl_buf_printf(&e, "{\"timestamp-ms\":%lld,\"metadata-file\":",
			                    (long long)last_ms);
			rc |= put_jstr(&e, add) | sl_buf_putc(&e, '}') | (sl_buf_cstr(&e) == NULL);
			rc |= append_array(&o, v, e.p);
			sl_buf_deinit(&e);
		} else {
			rc |= sl_buf_append(&o, v.p, (size_t)(v.e - v.p));
		}
	}
	rc |= sl_buf_puts(&o, "\n}\n");
	uuid4(uuid);
	snprintf(tmp, sizeof tmp, "%s/metadata/.v%lld-%s.metadata.json.tmp", t->dir,
	         (long long)ver + 1, uuid);
	if (rc || write_new(tmp, &o)) {
		rc = sl_err_set(err, SL_EIO, "iceberg: cannot write '%s': %s", tmp,
		                rc ? "out of memory" : strerror(errno));
		goto done;
	}
	int pub = publish_version(t, tmp, ver + 1);
	if (pub) {
		rc = pub == 1 ? 1 : sl_err_set(err, SL_EIO, "iceberg: cannot publish version %lld of "
		                               "'%s': %s", (long long)ver + 1, t->dir, strerror(errno));
		goto done;
	}
	snprintf(tmp, sizeof tmp, "%s/metadata", t->dir);
	fsync_path(tmp);
	if ((rc = write_hint(t, ver + 1, err)))
		goto done;
	/* the files only the expired snapshots referenced: their manifest lists
	 * and the manifests no kept snapshot lists (data files stay: in an
	 * append-only table every one is listed by the current snapshot) */
	for (int i = 0; i < n; i++)
		if (!sn[i].keep && unlink(sn[i].mlist) == 0)
			st->files_deleted++;
	for (int i = 0; i < ne; i++) {
		int used = 0;
		for (int j = 0; j < nk && !used; j++)
			used = !strcmp(gone[i], kept[j]);
		for (int j = 0; j < i && !used; j++)
			used = !strcmp(gone[i], gone[j]); /* deleted already */
		if (!used && unlink(local_of(gone[i])) == 0)
			st->files_deleted++;
	}
done:
	free(sn);
	free_paths(kept, nk);
	free_paths(gone, ne);
	sl_buf_deinit(&o);
	return rc;
}

int sl_iceberg_expire(const char *dir, int64_t older_ms, int retain, sl_iceberg_expired *st,
                      sl_err *err)
{
	ice_table t;
	sl_buf b;
	int64_t ver;
	int rc = 0;
	memset(&t, 0, sizeof t);
	memset(st, 0, sizeof *st);
	t.name = "expire-snapshots";
	if (retain < 1)
		return sl_err_set(err, SL_EINVAL, "iceberg: expire-snapshots must retain at least 1 "
		                  "snapshot");
	if (!(t.dir = strdup(dir)))
		return sl_err_set(err, SL_ENOMEM, "iceberg: out of memory");
	sl_buf_init(&b);
	for (int attempt = 0; attempt < ICE_RETRIES; attempt++) {
		js root, loc;
		char l[ICE_PATH];
		if ((rc = read_current(&t, &ver, &b, err)))
			break;
		if (ver == 0) {
			rc = sl_err_set(err, SL_EINVAL, "iceberg: '%s' holds no Iceberg table "
			                "(no metadata/v<N>.metadata.json)", dir);
			break;
		}
		root = (js){b.p, b.p + b.len};
		free(t.loc);
		t.loc = NULL;
		if (!js_get(root, "location", &loc) || js_str(loc, l, sizeof l) ||
		    !(t.loc = strdup(l))) {
			rc = sl_err_set(err, SL_ESTATE, "iceberg: damaged table metadata in '%s'", dir);
			break;
		}
		memset(st, 0, sizeof *st);
		st->version = ver;
		if ((rc = expire_once(&t, root, ver, older_ms, retain, st, err)) != 1)
			break;
	}
	if (rc == 1)
		rc = sl_err_set(err, SL_EIO, "iceberg: '%s': %d attempts lost to concurrent writers",
		                dir, ICE_RETRIES);
	if (!rc && st->expired)
		st->version = ver + 1;
	free(t.dir);
	free(t.loc);
	sl_buf_deinit(&b);
	return rc;
}

/* ---- describing a table (rewrite-data-files) -------------------------------- */

static char *js_strdup(js v)
{
	char buf[ICE_PATH];
	return js_str(v, buf, sizeof buf) ? NULL : strdup(buf);
}

int sl__ice_describe(const char *dir, ice_desc *d, sl_err *err)
{
	ice_table t;
	sl_buf b;
	int64_t ver, sid = -1, x, dspec = 0;
	js root, v, k, s, f, m;
	js_it it, fi;
	int rc = 0;
	memset(d, 0, sizeof *d);
	memset(&t, 0, sizeof t);
	t.name = "rewrite-data-files";
	t.dir = (char *)dir;
	sl_buf_init(&b);
	if ((rc = read_current(&t, &ver, &b, err)))
		goto out;
	if (ver == 0) {
		rc = sl_err_set(err, SL_EINVAL, "iceberg: '%s' holds no Iceberg table "
		                "(no metadata/v<N>.metadata.json)", dir);
		goto out;
	}
	root = (js){b.p, b.p + b.len};
	js_get_i64(root, "current-schema-id", &sid);
	js_get_i64(root, "default-spec-id", &dspec);
	d->snap = -1;
	js_get_i64(root, "current-snapshot-id", &d->snap);
	if (!js_get(root, "schemas", &v) || js_iter(&it, v, '['))
		goto bad;
	while (js_next(&it, &k, &s) && !(!js_get_i64(s, "schema-id", &x) && x == sid))
		s.p = NULL;
	if (!s.p || !js_get(s, "fields", &v) || js_iter(&fi, v, '['))
		goto bad;
	while (js_next(&fi, &k, &f)) {
		js nm, ty;
		if (d->ncols == ICE_MAX_COLS || !js_get(f, "name", &nm) || !js_get(f, "type", &ty) ||
		    js_get_i64(f, "id", &x))
			goto bad;
		ice_dcol *c = &d->cols[d->ncols++];
		c->id = (int)x;
		c->required = js_get(f, "required", &m) && m.e - m.p == 4 && !memcmp(m.p, "true", 4);
		if (!(c->name = js_strdup(nm)) || !(c->type = js_strdup(ty)))
			goto bad; /* a nested type is no string: refused */
	}
	if (js_get(s, "identifier-field-ids", &v) && !js_iter(&fi, v, '['))
		while (js_next(&fi, &k, &f) && d->npk < ICE_MAX_COLS && !js_i64(f, &x))
			d->pk_ids[d->npk++] = (int)x;
	if (!js_get(root, "partition-specs", &v) || js_iter(&it, v, '['))
		goto bad;
	while (js_next(&it, &k, &s))
		if (!js_get_i64(s, "spec-id", &x) && x == dspec && js_get(s, "fields", &v) &&
		    !js_iter(&fi, v, '['))
			while (js_next(&fi, &k, &f)) {
				js tr, nm;
				if (d->npf == ICE_MAX_COLS || !js_get(f, "transform", &tr) ||
				    !js_get(f, "name", &nm) || js_get_i64(f, "source-id", &x))
					goto bad;
				ice_dpart *p = &d->pf[d->npf++];
				p->source = (int)x;
				if (!(p->transform = js_strdup(tr)) || !(p->name = js_strdup(nm)))
					goto bad;
			}
	if (d->snap > 0) {
		if (!js_get(root, "snapshots", &v) || js_iter(&it, v, '['))
			goto bad;
		while (js_next(&it, &k, &s)) {
			char l[ICE_PATH];
			if (js_get_i64(s, "snapshot-id", &x) || x != d->snap)
				continue;
			if (!js_get(s, "manifest-list", &m) || js_str(m, l, sizeof l))
				goto bad;
			snprintf(d->mlist, sizeof d->mlist, "%s", local_of(l));
		}
		if (!d->mlist[0])
			goto bad;
	}
	goto out;
bad:
	rc = sl_err_set(err, SL_ESTATE, "iceberg: table metadata in '%s' that sluice cannot "
	                "rewrite (nested types, or damaged)", dir);
out:
	sl_buf_deinit(&b);
	return rc;
}

void sl__ice_desc_free(ice_desc *d)
{
	for (int i = 0; i < d->ncols; i++) {
		free(d->cols[i].name);
		free(d->cols[i].type);
	}
	for (int i = 0; i < d->npf; i++) {
		free(d->pf[i].transform);
		free(d->pf[i].name);
	}
	memset(d, 0, sizeof *d);
}
