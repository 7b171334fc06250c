/*
 * conn_kafka_common.c - what the Kafka source and sink share: the table's
 * 'properties.*' options handed to librdkafka, the 'topic' list, and the
 * key and value formats (docs/kafka.md).
 *
 * Properties are checked while the job is planned by setting them on a
 * throwaway librdkafka configuration (rd_kafka_conf_set allocates only: no
 * socket, no thread), so a misspelt property is a planning error with
 * librdkafka's own words; they are copied out of the planner's options for
 * open.  Formats reuse the project's decoders and encoders (json, csv,
 * raw, debezium-json, ...): the key side over the 'key.fields' columns,
 * the value side over the physical columns ('value.fields-include' =
 * 'ALL') or those not in the key ('EXCEPT_KEY'), each with its own
 * options (the table's 'key.' / 'value.' options with the prefix removed).
 * Metadata columns are in neither.
 */
#include "conn_kafka_int.h"
#include "sluice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int nomem(const char *what, const char *table, sl_err *err)
{
	return sl_err_set(err, SL_ENOMEM, "%s '%s': out of memory", what, table);
}

const char *sl__kafka_prop(const sl_kafka_props *p, const char *key)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->key[i], key))
			return p->val[i];
	return NULL;
}

void sl__kafka_props_free(sl_kafka_props *p)
{
	sl__kafka_free_strv(p->key, p->n);
	sl__kafka_free_strv(p->val, p->n);
	p->key = p->val = NULL;
	p->n = 0;
}

void sl__kafka_free_strv(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int sl__kafka_props_read(sl_kafka_props *p, const sl_conn_args *a, const char *what,
                         const char *const *skip, sl_err *err)
{
	const sl_opts *o = a->opts;
	int cap = o->n + 1;
	p->key = calloc((size_t)cap, sizeof(char *));
	p->val = calloc((size_t)cap, sizeof(char *));
	if (!p->key || !p->val)
		return nomem(what, a->table, err);
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	int rc = 0;
	for (int i = 0; i < o->n && !rc; i++) {
		const char *k = o->v[i].key;
		if (strncmp(k, "properties.", 11))
			continue;
		const char *v = sl_opts_get(o, k); /* marks it used */
		k += 11;
		int skipped = 0;
		for (int j = 0; skip && skip[j]; j++)
			skipped |= !strcmp(skip[j], k);
		if (skipped)
			continue;
		char es[512];
		if (rd_kafka_conf_set(conf, k, v, es, sizeof es) != RD_KAFKA_CONF_OK) {
			rc = sl_err_set(err, SL_EINVAL, "%s '%s': option 'properties.%s': %s", what,
			                a->table, k, es);
			break;
		}
		if (!(p->key[p->n] = strdup(k)) || !(p->val[p->n] = strdup(v))) {
			p->n++;
			rc = nomem(what, a->table, err);
			break;
		}
		p->n++;
	}
	rd_kafka_conf_destroy(conf);
	if (!rc && !sl__kafka_prop(p, "bootstrap.servers"))
		rc = sl_err_set(err, SL_EINVAL, "%s '%s': Missing required options are:\n\n"
		                "properties.bootstrap.servers", what, a->table);
	return rc;
}

/* librdkafka's log lines, printed on the thread that serves the queue the
 * logs are forwarded to (the job's, docs/kafka.md "Threads"). */
static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	fprintf(stderr, "sluice: kafka %s: %s: %s\n", rd_kafka_name(rk), fac, buf);
}

rd_kafka_conf_t *sl__kafka_conf(const sl_kafka_props *p, const char *what, const char *table,
                                sl_err *err)
{
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	char es[512];
	for (int i = 0; i < p->n; i++)
		if (rd_kafka_conf_set(conf, p->key[i], p->val[i], es, sizeof es) != RD_KAFKA_CONF_OK) {
			rd_kafka_conf_destroy(conf);
			sl_err_set(err, SL_EINVAL, "%s '%s': property '%s': %s", what, table,
			           p->key[i], es);
			return NULL;
		}
	/* logs go to a queue the job thread serves, not to stderr from
	 * librdkafka's threads (a forked checkpoint writer must never find a
	 * stdio lock taken: docs/checkpoints.md) */
	rd_kafka_conf_set_log_cb(conf, log_cb);
	rd_kafka_conf_set(conf, "log.queue", "true", es, sizeof es);
	if (!sl__kafka_prop(p, "log_level"))
		rd_kafka_conf_set(conf, "log_level", "4", es, sizeof es);
	return conf;
}

/* Trims spaces at both ends of s[0..*n). */
static const char *trim(const char *s, size_t *n)
{
	while (*n && (*s == ' ' || *s == '\t')) {
		s++;
		(*n)--;
	}
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t'))
		(*n)--;
	return s;
}

int sl__kafka_topics(const char *s, char ***names, int *n, const char *what, const char *table,
                     sl_err *err)
{
	int cap = 1;
	for (const char *c = s; *c; c++)
		cap += *c == ';';
	char **v = calloc((size_t)cap, sizeof(char *));
	if (!v)
		return nomem(what, table, err);
	int k = 0;
	for (const char *c = s;; c++) {
		const char *e = strchr(c, ';');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		const char *t = trim(c, &len);
		if (!len) {
			sl__kafka_free_strv(v, k);
			return sl_err_set(err, SL_EINVAL, "%s '%s': option 'topic' holds an empty "
			                  "topic name: '%s'", what, table, s);
		}
		if (!(v[k] = strndup(t, len))) {
			sl__kafka_free_strv(v, k);
			return nomem(what, table, err);
		}
		k++;
		if (!e)
			break;
		c = e;
	}
	*names = v;
	*n = k;
	return 0;
}

/* Copies the options under prefix (without it) into o, and marks the
 * originals used once the format read them (mark_used). */
static int prefixed(sl_opts *o, const sl_opts *src, const char *prefix)
{
	size_t pl = strlen(prefix);
	for (int i = 0; i < src->n; i++)
		if (!strncmp(src->v[i].key, prefix, pl) && src->v[i].key[pl] &&
		    sl_opts_set(o, src->v[i].key + pl, src->v[i].value))
			return SL_ENOMEM;
	return 0;
}

static void mark_used(const sl_opts *o, const sl_opts *src, const char *prefix)
{
	char k[512];
	for (int i = 0; i < o->n; i++)
		if (o->v[i].used) {
			snprintf(k, sizeof k, "%s%s", prefix, o->v[i].key);
			(void)sl_opts_get(src, k);
		}
}

/* Index of the physical (non-metadata) field named name[0..len), -1. */
static int find_field(const sl_conn_args *a, const char *name, size_t len)
{
	for (int i = 0; i < a->nfields; i++)
		if ((!a->meta || !a->meta[i]) && strlen(a->fields[i].name) == len &&
		    !memcmp(a->fields[i].name, name, len))
			return i;
	return -1;
}

/* One side's decoder or encoder over fields cols[0..n) of a. */
static int side(sl_kafka_fmt *f, const sl_conn_args *a, int sink, int key, const char *fmt,
                const char *optkey, sl_err *err)
{
	const char *what = sink ? "sink" : "source";
	const sl_format_vtab *vt = sl_format_find(fmt);
	if (!vt)
		return sl_err_set(err, SL_EINVAL, "%s '%s': unknown format '%s' ('%s')", what,
		                  a->table, fmt, optkey);
	int n = key ? f->nkey : f->nval;
	const int *cols = key ? f->kcol : f->vcol;
	sl_field *fl = calloc((size_t)n + 1, sizeof(sl_field));
	if (!fl)
		return nomem(what, a->table, err);
	for (int i = 0; i < n; i++)
		fl[i] = a->fields[cols[i]];
	if (key)
		f->kfields = fl;
	else
		f->vfields = fl;
	sl_opts *o = key ? &f->kopts : &f->vopts;
	if (sink ? !vt->encoder_size : !vt->decoder_size)
		return sl_err_set(err, SL_EINVAL, "%s '%s': format '%s' cannot be %s", what, a->table,
		                  fmt, sink ? "written" : "read");
	if (key && vt->changelog)
		return sl_err_set(err, SL_EINVAL, "%s '%s': the key format '%s' is a changelog "
		                  "format; a key format must be insert-only", what, a->table, fmt);
	if (sink) {
		sl_encoder *e = sl_encoder_new(vt, fl, n, o, err);
		if (!e) {
			sl_err_prefix(err, "%s '%s'", what, a->table);
			return err->code ? err->code : SL_EINVAL;
		}
		*(key ? &f->kenc : &f->venc) = e;
	} else {
		sl_decoder *d = sl_decoder_new(vt, fl, n, o, err);
		if (!d) {
			sl_err_prefix(err, "%s '%s'", what, a->table);
			return err->code ? err->code : SL_EINVAL;
		}
		d->keyed = a->npk > 0;
		*(key ? &f->kdec : &f->vdec) = d;
	}
	return 0;
}

int sl__kafka_fmt_init(sl_kafka_fmt *f, const sl_conn_args *a, int upsert, int sink,
                       sl_err *err)
{
	const char *what = sink ? "sink" : "source", *mode = sink ? "sink" : "scan";
	const sl_opts *o = a->opts;
	sl_arena_init(&f->arena, 4096);
	sl_opts_init(&f->kopts, &f->arena);
	sl_opts_init(&f->vopts, &f->arena);
	const char *fmt = sl_opts_get(o, "format");
	const char *kf = sl_opts_get(o, "key.format"), *vf = sl_opts_get(o, "value.format");
	const char *kfields = sl_opts_get(o, "key.fields");
	const char *inc = sl_opts_get(o, "value.fields-include");
	f->kcol = calloc((size_t)a->nfields + 1, sizeof(int));
	f->vcol = calloc((size_t)a->nfields + 1, sizeof(int));
	f->kview = calloc((size_t)a->nfields + 1, sizeof(sl_col));
	f->vview = calloc((size_t)a->nfields + 1, sizeof(sl_col));
	if (!f->kcol || !f->vcol || !f->kview || !f->vview)
		return nomem(what, a->table, err);
	if (upsert && fmt)
		return sl_err_set(err, SL_EINVAL, "%s '%s': 'upsert-kafka' takes 'key.format' and "
		                  "'value.format', not 'format'", what, a->table);
	if (fmt && vf)
		return sl_err_set(err, SL_EINVAL, "%s '%s': options 'format' and 'value.format' "
		                  "cannot both be set", what, a->table);
	if (!fmt && !vf)
		return sl_err_set(err, SL_EINVAL, "%s '%s': Could not find required %s format "
		                  "'value.format'.", what, a->table, mode);
	if (upsert && !kf)
		return sl_err_set(err, SL_EINVAL, "%s '%s': Could not find required %s format "
		                  "'key.format'.", what, a->table, mode);
	if (upsert && !a->npk)
		return sl_err_set(err, SL_EINVAL, "%s '%s': 'upsert-kafka' tables require to define "
		                  "a PRIMARY KEY constraint. The PRIMARY KEY specifies which columns "
		                  "should be read from or write to the Kafka message key. The PRIMARY "
		                  "KEY also defines records in the 'upsert-kafka' table should update "
		                  "or delete on which keys.", what, a->table);
	if (upsert && kfields)
		return sl_err_set(err, SL_EINVAL, "%s '%s': 'upsert-kafka' takes its key from the "
		                  "PRIMARY KEY; option 'key.fields' is not supported", what, a->table);
	if (kfields && !kf)
		return sl_err_set(err, SL_EINVAL, "%s '%s': The option 'key.fields' can only be "
		                  "declared if a key format is defined using 'key.format'.", what,
		                  a->table);
	if (kf && !upsert && !kfields)
		return sl_err_set(err, SL_EINVAL, "%s '%s': A key format 'key.format' requires the "
		                  "declaration of one or more of key fields using 'key.fields'.", what,
		                  a->table);
	int except_key = 0;
	if (inc && !strcasecmp(inc, "EXCEPT_KEY"))
		except_key = 1;
	else if (inc && strcasecmp(inc, "ALL"))
		return sl_err_set(err, SL_EINVAL, "%s '%s': option 'value.fields-include' must be "
		                  "'ALL' or 'EXCEPT_KEY', not '%s'", what, a->table, inc);
	/* the key fields, in 'key.fields' order or the PRIMARY KEY's */
	if (upsert) {
		for (int i = 0; i < a->npk; i++)
			f->kcol[f->nkey++] = a->pk[i];
	} else if (kfields) {
		for (const char *c = kfields;; c++) {
			const char *e = strchr(c, ';');
			size_t len = e ? (size_t)(e - c) : strlen(c);
			const char *t = trim(c, &len);
			int k = find_field(a, t, len);
			if (k < 0)
				return sl_err_set(err, SL_EINVAL, "%s '%s': Could not find the field '%.*s' "
				                  "in the table schema for usage in the key format. A key "
				                  "field must be a regular, physical column.", what,
				                  a->table, (int)len, t);
			for (int j = 0; j < f->nkey; j++)
				if (f->kcol[j] == k)
					return sl_err_set(err, SL_EINVAL, "%s '%s': key field '%.*s' is listed "
					                  "twice in 'key.fields'", what, a->table, (int)len, t);
			f->kcol[f->nkey++] = k;
			if (!e)
				break;
			c = e;
		}
	}
	for (int i = 0; i < a->nfields; i++) {
		if (a->meta && a->meta[i])
			continue;
		int in_key = 0;
		for (int j = 0; j < f->nkey; j++)
			in_key |= f->kcol[j] == i;
		if (!(except_key && in_key))
			f->vcol[f->nval++] = i;
	}
	if (prefixed(&f->kopts, o, "key.") || prefixed(&f->vopts, o, fmt ? "" : "value."))
		return nomem(what, a->table, err);
	int rc = 0;
	if (f->nkey)
		rc = side(f, a, sink, 1, kf, "key.format", err);
	if (!rc)
		rc = side(f, a, sink, 0, fmt ? fmt : vf, fmt ? "format" : "value.format", err);
	mark_used(&f->kopts, o, "key.");
	mark_used(&f->vopts, o, fmt ? "" : "value.");
	const sl_format_vtab *vvt = f->vdec ? f->vdec->vt : f->venc ? f->venc->vt : NULL;
	if (!rc && !upsert && a->npk && vvt && !vvt->changelog)
		rc = sl_err_set(err, SL_EINVAL, "%s '%s': The Kafka table '%s' with '%s' format "
		                "doesn't support defining PRIMARY KEY constraint on the table, because "
		                "it can't guarantee the semantic of primary key.", what, a->table,
		                a->table, vvt->name);
	if (!rc && upsert && f->vdec && f->vdec->vt->changelog)
		rc = sl_err_set(err, SL_EINVAL, "%s '%s': 'upsert-kafka' needs an insert-only value "
		                "format, not '%s'", what, a->table, vf);
	if (!rc && upsert && f->venc && f->venc->vt->changelog)
		rc = sl_err_set(err, SL_EINVAL, "%s '%s': 'upsert-kafka' needs an insert-only value "
		                "format, not '%s'", what, a->table, vf);
	return rc;
}

void sl__kafka_fmt_deinit(sl_kafka_fmt *f)
{
	if (f->kdec)
		sl_decoder_free(f->kdec);
	if (f->vdec)
		sl_decoder_free(f->vdec);
	if (f->kenc)
		sl_encoder_free(f->kenc);
	if (f->venc)
		sl_encoder_free(f->venc);
	free(f->kfields);
	free(f->vfields);
	free(f->kcol);
	free(f->vcol);
	free(f->kview);
	free(f->vview);
	sl_arena_deinit(&f->arena);
	memset(f, 0, sizeof *f);
}
