/*
 * plan_job.c - plans a job: the one function that makes plan nodes
 * (sl__node_new), table scans (sources with computed columns and
 * watermarks), sinks (with the changelog check; casts and constraints in
 * front of them come from plan_sink.c), INSERT INTO (with a column list:
 * missing columns NULL; an OPTIONS hint on the target overriding its
 * options) / bare SELECT / statement sets, PARTITIONED BY tables handed to
 * the connector's `partitioned` vtabs, then the ids, the rewrite pass and
 * the EXPLAIN text printed from the plan nodes.  sl_plan_job returns the
 * nodes; it builds no operator (src/runtime/instantiate.c does, when the
 * job runs).
 *
 * A job's statements share their sources: a table read by several INSERTs
 * is scanned once and its node feeds every consumer.
 *
 * Connectors are configured here (sl_source_new / sl_sink_new: every
 * option and the format checked, options left unread refused), never
 * opened: the configured source or sink goes into its node, and the scan
 * and sink operators built from it open it when the job starts (conn.h),
 * so planning, and with it EXPLAIN, touches no file.
 *
 * Operator ids (for state) are set by plan_ident.c once the plan is
 * complete: unique within the job, stable across runs of the same job.
 */
#include "plan_int.h"
#include "sluice.h"
#include "../connector/conn_lines.h"
#include "../format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Appends n to the plan (arena array, doubled when full). */
static int plan_append(planner *p, sl_pnode *n)
{
	sl_pplan *pl = &p->plan;
	if (pl->n == pl->cap) {
		int cap = pl->cap ? pl->cap * 2 : 32;
		sl_pnode **nn = sl_arena_alloc(p->a, sizeof(*nn) * (size_t)cap);
		if (!nn)
			return SL_ENOMEM;
		if (pl->n)
			memcpy(nn, pl->nodes, sizeof(*nn) * (size_t)pl->n);
		pl->nodes = nn;
		pl->cap = cap;
	}
	n->id = pl->n;
	pl->nodes[pl->n++] = n;
	return 0;
}

sl_pnode *sl__node_new(planner *p, sl_op_kind k, const void *params, size_t size,
                       sl_pnode *const *in, int nin, sl_pnode *side, rel *r, const char *label)
{
	sl_pnode *n = sl_arena_calloc(p->a, sizeof(*n));
	sl_type *t = sl_arena_alloc(p->a, sizeof(sl_type) * (size_t)(r->ncols + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(r->ncols + 1));
	n->in = sl_arena_calloc(p->a, sizeof(sl_pnode *) * (size_t)(nin + 1));
	void *pc = params && size ? sl_arena_alloc(p->a, size) : NULL;
	if (!n || !t || !names || !n->in || (params && size && !pc)) {
		sl_err_set(p->err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	if (pc)
		memcpy(pc, params, size);
	n->kind = k;
	n->params = pc;
	n->nin = nin;
	for (int i = 0; in && i < nin; i++)
		n->in[i] = in[i];
	n->side = side;
	for (int i = 0; i < r->ncols; i++) {
		t[i] = r->cols[i].type;
		names[i] = r->cols[i].name;
	}
	n->nout = r->ncols;
	n->out_types = t;
	n->out_names = names;
	n->changelog = !r->updating ? SL_CHANGELOG_APPEND
	             : r->upsert_key ? SL_CHANGELOG_UPSERT : SL_CHANGELOG_UPDATING;
	n->upsert_key = r->updating ? r->upsert_key : NULL;
	n->rowtime = r->rowtime >= 0 && r->rowtime < r->ncols ? r->rowtime : -1;
	/* the identity text (plan_ident.c) is frozen; today's EXPLAIN label
	 * shows the same decoration, but may change without changing ids */
	n->ident = sl__op_ident(p, label, r);
	if (r->ncols > 0) {
		int rt = n->rowtime >= 0;
		const char *kind = !r->updating ? "append-only"
		                 : r->upsert_key ? sl_arena_printf(p->a, "upsert, key=[%s]", r->upsert_key)
		                 : "updating";
		label = sl_arena_printf(p->a, "%s [%s%s%s]", label, kind,
		                        rt ? ", rowtime=" : "", rt ? r->cols[r->rowtime].name : "");
	}
	n->label = label;
	sl__plan_ttl_default(p, n);
	if (sl__node_struct(p, n)) /* its structural identity (plan_ident.c) */
		return NULL;
	if (plan_append(p, n)) {
		sl_err_set(p->err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	r->node = n;
	return n;
}

/* Writes the EXPLAIN lines (ids are set by sl__plan_idents); with ids
 * (session option 'sluice.explain.ids'), each line ends with the
 * operator's state id, " uid=<16 hex digits>", for tests that pin ids;
 * with exchanges ('sluice.explain.exchanges'), a node with inputs shows
 * the distribution each requires (plan_dist.c), "exchange=[hash[k]]"; a
 * job at a parallelism above 1 set by 'parallelism.default' (or with
 * exchanges) shows each node's parallelism and the exchange of each input
 * (plan_par.c), "parallelism=2 ship=[HASH[k]]": the default parallelism
 * is the machine's CPU count, which a plan pinned by a test must not
 * depend on. */
static void explain_plan(planner *p, sl_buf *out, int ids, int exchanges)
{
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		sl_buf_printf(out, "#%d %s", i, n->label);
		for (int k = 0, nins = 0; k < n->nin; k++)
			if (n->in[k])
				sl_buf_printf(out, "%s#%d", nins++ ? ", " : " <- ", n->in[k]->id);
		/* not in the label: ids must not depend on the TTL */
		const char *st = sl__plan_ttl_explain(p, n);
		if (st)
			sl_buf_printf(out, " %s", st);
		if (exchanges && n->nin)
			sl_buf_printf(out, " %s", sl__plan_dist_explain(p, n));
		if (p->plan.par > 1 && (exchanges || p->parallelism_explicit))
			sl_buf_printf(out, " %s", sl__plan_par_explain(p, n));
		if (ids)
			sl_buf_printf(out, " uid=%s", n->uid);
		sl_buf_putc(out, '\n');
	}
}

/* ---- scans ---------------------------------------------------------------- */

static int check_unused(planner *p, const sl_table_def *t, const sl_opts *o, int line, int col)
{
	const char *u = sl_opts_unused(o);
	if (!u)
		return 0;
	sl__plan_error(p, line, col, SL_EPLAN,
	               "Unsupported options found for '%s' (table '%s'): '%s'",
	               sl_opts_get(o, "connector"), t->name, u);
	return SL_EPLAN;
}

/* Options of a table for one use: the table's WITH options, unread. */
static sl_opts *use_opts(planner *p, const sl_table_def *t)
{
	sl_opts *o = sl_arena_calloc(p->a, sizeof(*o));
	sl_opts_init(o, p->a);
	sl_opts_merge(o, &t->opts);
	for (int i = 0; i < o->n; i++)
		o->v[i].used = 0;
	return o;
}

/* The PRIMARY KEY's column names, comma-separated (arena). */
static const char *key_names(planner *p, const sl_table_def *t)
{
	const char *s = "";
	for (int i = 0; i < t->npk; i++)
		s = sl_arena_printf(p->a, "%s%s%s", s, i ? ", " : "", t->cols[t->pk[i]].name);
	return s;
}

/*
 * ChangelogNormalize after the scan rel `in` of changelog table t with a
 * PRIMARY KEY: the upsert stream (updates possibly without their old row,
 * deletes possibly with only the key) becomes a full retract stream.
 */
static rel *plan_normalize(planner *p, const sl_table_def *t, rel *in)
{
	sl_normalize_params np = {t->pk, t->npk};
	rel *r = sl__rel_new(p, in->ncols);
	memcpy(r->cols, in->cols, sizeof(rcol) * (size_t)in->ncols);
	r->rowtime = in->rowtime;
	r->proctime = in->proctime;
	r->updating = 1;
	const char *label = sl_arena_printf(p->a, "ChangelogNormalize(key=[%s])", key_names(p, t));
	r->upd_op = label;
	if (!sl__node_new(p, SL_OPK_CHANGELOG_NORMALIZE, &np, sizeof(np), &in->node, 1, NULL, r,
	                  label))
		return NULL;
	return r;
}

/* PARTITIONED BY columns of t as indexes into its physical columns (map:
 * table column -> physical index), arena array. */
static int *part_fields(planner *p, const sl_table_def *t, const int *map)
{
	int *pf = sl_arena_calloc(p->a, sizeof(int) * (size_t)(t->npart + 1));
	for (int i = 0; i < t->npart; i++)
		pf[i] = map[t->part[i]];
	return pf;
}

static void *not_partitionable(planner *p, const sl_table_def *t, const char *conn,
                               const char *what)
{
	const sl_ast_ident *id = &t->ast->partition[0];
	return sl__plan_error(p, id->line, id->col, SL_ENOTSUP,
	                      "table '%s': connector '%s' cannot %s a partitioned table "
	                      "(PARTITIONED BY): only 'filesystem' can", t->name, conn, what);
}

rel *sl__plan_scan(planner *p, const sl_table_def *t, const sl_opts *hint, int line, int col)
{
	for (int i = 0; !hint && i < p->nscans; i++)
		if (p->scans[i].t == t && !p->scans[i].hint)
			return p->scans[i].r;
	if (p->nscans == 64)
		return sl__plan_error(p, line, col, SL_ENOTSUP, "too many tables in one job");
	sl_opts *o = use_opts(p, t);
	if (hint) {
		sl_opts_merge(o, hint);
		for (int i = 0; i < o->n; i++)
			o->v[i].used = 0;
	}
	const char *conn = sl_opts_get(o, "connector");
	int push = strcmp(conn, "push") == 0;
	const char *sopart = sl_opts_get(p->session, "sluice.scale-out.partition");
	if (sopart && (!strcmp(conn, "kafka") || !strcmp(conn, "upsert-kafka"))) {
		/* a scale-out's child (plan_scaleout.c): its one partition, and
		 * no offset commits of its own (the broker refuses a
		 * non-member's while the group has members) */
		sl_opts_set(o, "scan.partitions", sopart);
		sl_opts_set(o, "properties.commit.offsets.on.checkpoint", "false");
		/* its member commits them for it: the pipe its offsets go to */
		const char *fd = sl_opts_get(p->session, "sluice.scale-out.offsets-fd");
		if (fd)
			sl_opts_set(o, "scan.commit-fd", fd);
	}
	const char *from_stdin = sl_opts_get(p->session, "sluice.script-from-stdin");
	if (!strcmp(conn, "stdin") && from_stdin && !strcmp(from_stdin, "true"))
		return sl__plan_error(p, line, col, SL_EPLAN,
		                      "table '%s' reads stdin, but the script itself is read from stdin "
		                      "(sluice run -): pass the script as a file or with -e", t->name);
	/* physical columns and the output map */
	sl_field *phys = sl_arena_calloc(p->a, sizeof(sl_field) * (size_t)(t->ncols + 1));
	int nphys = 0, ncomp = 0;
	int *map = sl_arena_calloc(p->a, sizeof(int) * (size_t)(t->ncols + 1));
	/* METADATA columns are read by the source like physical ones, when its
	 * connector knows the key (sl_source_vtab.metadata_keys; conn.h) */
	const sl_source_vtab *mvt = push ? NULL : sl_source_find(conn);
	const char **meta = NULL;
	for (int i = 0; i < t->ncols; i++) {
		if (t->cols[i].metadata) {
			const char *key = t->cols[i].metadata_key ? t->cols[i].metadata_key
			                                          : t->cols[i].name;
			const char *const *mk = mvt ? mvt->metadata_keys : NULL;
			if (!mk)
				return sl__plan_error(p, line, col, SL_ENOTSUP,
				                      "table '%s': connector '%s' has no METADATA columns "
				                      "(column '%s')", t->name, conn, t->cols[i].name);
			int k = 0;
			while (mk[k] && strcmp(mk[k], key))
				k++;
			if (!mk[k]) {
				sl_buf kb;
				sl_buf_init(&kb);
				for (k = 0; mk[k]; k++)
					sl_buf_printf(&kb, "\n%s", mk[k]);
				const char *list = sl_arena_strndup(p->a, kb.p, kb.len);
				sl_buf_deinit(&kb);
				return sl__plan_error(p, line, col, SL_EPLAN,
				                      "Invalid metadata key '%s' in column '%s' of table '%s'. "
				                      "The connector '%s' supports the following metadata keys "
				                      "for reading:%s", key, t->cols[i].name, t->name, conn,
				                      list);
			}
			if (!meta)
				meta = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(t->ncols + 1));
			meta[nphys] = mk[k];
		}
		if (t->cols[i].computed) {
			map[i] = -1 - ncomp++;
			continue;
		}
		phys[nphys].name = t->cols[i].name;
		phys[nphys].type = t->cols[i].type;
		map[i] = nphys++;
	}
	rel *pr = sl__rel_new(p, nphys);
	for (int i = 0; i < nphys; i++) {
		pr->cols[i].name = phys[i].name;
		pr->cols[i].type = phys[i].type;
	}
	sl_expr **comp = sl_arena_calloc(p->a, sizeof(sl_expr *) * (size_t)(ncomp + 1));
	rel *r = sl__rel_new(p, t->ncols);
	scope ps = {pr, NULL, NULL};
	for (int i = 0, k = 0; i < t->ncols; i++) {
		r->cols[i].name = t->cols[i].name;
		r->cols[i].qual = t->name;
		if (t->cols[i].computed) {
			if (!(comp[k] = sl__bind_expr(p, &ps, t->cols[i].computed)))
				return NULL;
			r->cols[i].type = comp[k]->type;
			if (comp[k]->kind == SL_EX_CALL && comp[k]->fn == SL_FN_PROCTIME)
				r->proctime = i;
			k++;
		} else {
			r->cols[i].type = t->cols[i].type;
		}
	}
	sl_scan_plan sp = {0};
	sp.nphys = nphys;
	sp.phys = phys;
	sp.table = t->name;
	sp.nout = t->ncols;
	sp.out_map = map;
	sp.computed = comp;
	sp.ncomputed = ncomp;
	sp.rowtime_col = t->rowtime;
	if (t->watermark) {
		if (!sl_type_is_timestamp(r->cols[t->rowtime].type)) {
			char b[64];
			return sl__plan_error(p, t->line, t->col, SL_EPLAN,
			                      "table '%s': the rowtime column '%s' must be TIMESTAMP(3) or "
			                      "TIMESTAMP_LTZ(3), not %s", t->name, t->cols[t->rowtime].name,
			                      sl_type_format(r->cols[t->rowtime].type, b, sizeof(b)));
		}
		scope ws = {r, NULL, NULL};
		if (!(sp.watermark = sl__bind_expr(p, &ws, t->watermark)))
			return NULL;
		if (!sl_type_is_timestamp(sp.watermark->type))
			return sl__plan_error(p, t->watermark->line, t->watermark->col, SL_EPLAN,
			                      "the WATERMARK expression must return a timestamp");
		r->rowtime = t->rowtime;
	}
	if (sl_opts_duration(o, "scan.watermark.idle-timeout", 0, &sp.idle_timeout_us, p->err))
		return NULL;
	/* Flink's 'scan.watermark.emit.strategy': sluice's watermark always moves
	 * per row (docs/semantics.md §1), which is 'on-event'; 'on-periodic' only makes
	 * Flink's lateness depend on timing, so it is accepted and acts the same */
	const char *emit = sl_opts_get(o, "scan.watermark.emit.strategy");
	if (emit && strcasecmp(emit, "on-event") && strcasecmp(emit, "on-periodic"))
		return sl__plan_error(p, t->line, t->col, SL_EPLAN,
		                      "table '%s': 'scan.watermark.emit.strategy' must be 'on-event' or "
		                      "'on-periodic', not '%s'", t->name, emit);
	int64_t br;
	if (sl_opts_int(p->session, "sluice.batch-size", 0, &br, p->err))
		return NULL;
	sp.batch_rows = (int)br;
	sl_conn_args ca = {t->name, phys, nphys, t->pk, t->npk, o, p->engine, p->tz,
	                   p->checkpointing, p->job, (int)p->attempt, 0,
	                   part_fields(p, t, map), t->npart, 0, 1, (const char *const *)meta, 0,
	                   0, NULL};
	if (!strcmp(conn, "stdin") && p->checkpointing && p->warnings)
		sl_buf_printf(p->warnings, "warning: table '%s' reads stdin, which cannot be replayed: "
		              "the job is at-least-once for it, not exactly-once\n", t->name);
	if (push && t->npart)
		return not_partitionable(p, t, conn, "read");
	/* configured here to check the options and learn the format, then
	 * freed: each instance of the scan configures its own (pnode.h) */
	const sl_source_vtab *vt = NULL;
	if (push) {
		/* a push table decodes its records with its 'format' (json by default) */
		if (!(sp.push_dec = sl__conn_decoder(&ca, "json", p->err)))
			return NULL;
	} else {
		vt = sl_source_find(conn);
		if (!vt)
			return sl__plan_error(p, t->line, t->col, SL_EPLAN,
			                      "table '%s': connector '%s' cannot be read (no such source)",
			                      t->name, conn);
		if (t->npart && !(vt = vt->partitioned))
			return not_partitionable(p, t, conn, "read");
		if (!(sp.source = sl_source_new(vt, &ca, p->err))) {
			sl_err_prefix(p->err, "table '%s'", t->name);
			return NULL;
		}
	}
	const sl_decoder *dec = sp.push_dec ? sp.push_dec : sp.source ? sp.source->dec : NULL;
	const char *cl_format = dec && dec->vt->changelog ? dec->vt->name : NULL;
	if (!cl_format && sp.source)
		cl_format = sp.source->changelog; /* upsert-kafka */
	if (check_unused(p, t, o, t->line, t->col)) {
		sl_source_free(sp.source);
		sl_decoder_free(sp.push_dec);
		return NULL;
	}
	int changelog = cl_format != NULL;
	const char *fmt = changelog ? sl_arena_printf(p->a, ", format=[%s]", cl_format) : "";
	const char *label = sl_arena_printf(p->a, "TableSourceScan(table=[%s], connector=[%s]%s%s%s%s)",
	                                    t->name, conn, fmt, t->watermark ? ", watermark=[" : "",
	                                    t->watermark ? sl__ast_text(p, t->watermark) : "",
	                                    t->watermark ? "]" : "");
	if (changelog) {
		r->updating = 1;
		r->upd_op = sl_arena_printf(p->a, "TableSourceScan(table=[%s], format=[%s])", t->name,
		                            cl_format);
		if (t->npk)
			r->upsert_key = key_names(p, t);
	}
	/* the node's structural identity reads the configured source and
	 * decoder (connector and format names); they go once it is made */
	sl_scan_params sc = {sp, vt, ca};
	sl_pnode *sn = sl__node_new(p, SL_OPK_SCAN, &sc, sizeof(sc), NULL, 0, NULL, r, label);
	sl_source_free(sp.source);
	sl_decoder_free(sp.push_dec);
	if (!sn)
		return NULL;
	((sl_scan_params *)sn->params)->scan.source = NULL;
	((sl_scan_params *)sn->params)->scan.push_dec = NULL;
	if (changelog && t->npk && !(r = plan_normalize(p, t, r)))
		return NULL;
	p->scans[p->nscans].t = t;
	p->scans[p->nscans].hint = hint;
	p->scans[p->nscans++].r = r;
	return r;
}

/* sl__sink_writes: see plan_int.h. */
int sl__sink_writes(const sl_table_def *t, int c)
{
	const sl_table_col *tc = &t->cols[c];
	if (tc->computed)
		return 0;
	if (!tc->metadata)
		return 1;
	if (tc->is_virtual)
		return 0;
	const char *conn = sl_opts_get(&t->opts, "connector");
	const sl_sink_vtab *vt = conn ? sl_sink_find(conn) : NULL;
	const char *key = tc->metadata_key ? tc->metadata_key : tc->name;
	for (int k = 0; vt && vt->metadata_keys && vt->metadata_keys[k]; k++)
		if (!strcmp(vt->metadata_keys[k], key))
			return 1;
	return 0;
}

/* ---- sinks ---------------------------------------------------------------- */

static const char *schema_text(planner *p, const rel *r)
{
	sl_buf s;
	sl_buf_init(&s);
	sl_buf_putc(&s, '[');
	for (int i = 0; i < r->ncols; i++) {
		char tb[64];
		sl_buf_printf(&s, "%s%s: %s", i ? ", " : "", r->cols[i].name,
		              sl_type_format(r->cols[i].type, tb, sizeof(tb)));
	}
	sl_buf_putc(&s, ']');
	const char *t = sl_arena_strndup(p->a, s.p, s.len);
	sl_buf_deinit(&s);
	return t;
}

sl_pnode *sl__plan_sink(planner *p, const sl_table_def *t, const rel *in, int line, int col,
                        int connect)
{
	sl_opts *o = use_opts(p, t);
	const char *conn = sl_opts_get(o, "connector");
	const char *sopart = sl_opts_get(p->session, "sluice.scale-out.partition");
	const char *txp = NULL;
	for (int i = 0; sopart && i < o->n; i++) /* read without marking it used */
		if (!strcmp(o->v[i].key, "sink.transactional-id-prefix"))
			txp = o->v[i].value;
	if (txp && conn && (!strcmp(conn, "kafka") || !strcmp(conn, "upsert-kafka")))
		/* a scale-out's child (plan_scaleout.c): transactional ids of its
		 * own, or the children of the partitions would fence each other */
		sl_opts_set(o, "sink.transactional-id-prefix",
		            sl_arena_printf(p->a, "%s-p%s", txp, sopart));
	const sl_sink_vtab *vt = conn && !strcmp(conn, "push") ? p->push_sink : sl_sink_find(conn);
	if (!vt)
		return sl__plan_error(p, line, col, SL_EPLAN,
		                      "table '%s': connector '%s' cannot be written (no such sink)",
		                      t->name, conn);
	if (t->npart && !(vt = vt->partitioned))
		return not_partitionable(p, t, conn, "write");
	sl_field *f = sl_arena_calloc(p->a, sizeof(sl_field) * (size_t)(t->ncols + 1));
	int *fmap = sl_arena_calloc(p->a, sizeof(int) * (size_t)(t->ncols + 1));
	int n = 0;
	const char **fmeta = sl_arena_calloc(p->a, sizeof(char *) * (size_t)(t->ncols + 1));
	int nmeta = 0;
	for (int i = 0; i < t->ncols; i++) {
		fmap[i] = -1;
		if (sl__sink_writes(t, i)) {
			if (t->cols[i].metadata) {
				fmeta[n] = t->cols[i].metadata_key ? t->cols[i].metadata_key
				                                   : t->cols[i].name;
				nmeta++;
			}
			fmap[i] = n;
			f[n].name = t->cols[i].name;
			f[n++].type = t->cols[i].type;
		}
	}
	rel sink_rel = {0};
	sink_rel.ncols = n;
	sink_rel.cols = sl_arena_calloc(p->a, sizeof(rcol) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		sink_rel.cols[i].name = f[i].name;
		sink_rel.cols[i].type = f[i].type;
	}
	if (in->ncols != n)
		return sl__plan_error(p, line, col, SL_EPLAN,
		                      "Column types of query result and sink for '%s' do not match.\n"
		                      "Query schema: %s\nSink schema:  %s", t->name, schema_text(p, in),
		                      schema_text(p, &sink_rel));
	const char *ow = sl_opts_get(p->session, "sluice.overwrite-output");
	/* the connector's PRIMARY KEY indexes its physical columns (conn.h);
	 * none when a key column is computed or metadata */
	int *ppk = t->npk ? sl_arena_calloc(p->a, sizeof(int) * (size_t)t->npk) : NULL;
	for (int i = 0; ppk && i < t->npk; i++)
		if ((ppk[i] = fmap[t->pk[i]]) < 0)
			ppk = NULL;
	sl_conn_args ca = {t->name, f, n, ppk, ppk ? t->npk : 0, o, p->engine, p->tz,
	                   p->checkpointing, p->job, (int)p->attempt, ow && !strcmp(ow, "true"),
	                   part_fields(p, t, fmap), t->npart, 0, 1, NULL, 0, in->updating, NULL};
	ca.meta = nmeta ? fmeta : NULL;
	if (p->checkpointing &&
	    sl_opts_duration(p->session, "execution.checkpointing.interval", 0, &ca.ckpt_interval_us,
	                     p->err))
		return NULL;
	int can = vt->can_update ? vt->can_update(&ca) : vt->accepts_updates;
	if (in->updating && !can)
		return sl__plan_error(p, line, col, SL_EPLAN,
		                      "Table sink '%s' doesn't support consuming update and delete "
		                      "changes which is produced by node %s (use a changelog "
		                      "'format' such as 'debezium-json', or an upsert sink with a "
		                      "PRIMARY KEY)", t->name, in->upd_op);
	/* an upsert sink with a PRIMARY KEY: its key as positions of the
	 * sink's (physical) columns */
	int *fpk = NULL;
	if (in->updating && vt->upsert && t->npk) {
		fpk = sl_arena_calloc(p->a, sizeof(int) * (size_t)(t->npk + 1));
		for (int i = 0; i < t->npk; i++) {
			int c = t->pk[i], k = 0;
			if (t->cols[c].computed || t->cols[c].metadata)
				return sl__plan_error(p, t->line, t->col, SL_ENOTSUP,
				                      "table '%s': a PRIMARY KEY on the computed or metadata "
				                      "column '%s' is not supported", t->name, t->cols[c].name);
			for (int j = 0; j < c; j++)
				k += sl__sink_writes(t, j);
			fpk[i] = k;
		}
	}
	rel *src = connect ? sl__plan_sink_input(p, (rel *)in, t, f, n) : (rel *)in;
	if (!src)
		return NULL;
	/* configured here to check the options, then freed: each instance of
	 * the sink configures its own (pnode.h) */
	sl_sink *k = sl_sink_new(vt, &ca, p->err);
	if (!k) {
		sl_err_prefix(p->err, "table '%s'", t->name);
		return NULL;
	}
	const char *guarantee = k->guarantee ? k->guarantee : vt->guarantee;
	sl_sink_free(k);
	if (check_unused(p, t, o, t->line, t->col))
		return NULL;
	sl_sink_params sk = {vt, ca, t->name, fpk, fpk ? t->npk : 0};
	rel out = {0};
	const char *kind = !in->updating ? "append-only"
	                 : fpk ? sl_arena_printf(p->a, "upsert, key=[%s]", key_names(p, t))
	                 : "updating";
	const char *label = sl_arena_printf(p->a, "Sink(table=[%s], connector=[%s], changelog=[%s], "
	                                    "guarantee=[%s])", t->name, conn, kind,
	                                    guarantee ? guarantee : "at-least-once");
	/* not connected: one input fed by another node's side output (NULL) */
	return sl__node_new(p, SL_OPK_SINK, &sk, sizeof(sk), connect ? &src->node : NULL, 1, NULL,
	                    &out, label);
}

/* Sink of a bare SELECT: the print sink (CLI) or the engine's queue (API). */
static sl_pnode *select_sink(planner *p, const rel *in, int line, int col)
{
	sl_table_def *t = sl_arena_calloc(p->a, sizeof(*t));
	t->name = "select";
	t->ncols = in->ncols;
	t->cols = sl_arena_calloc(p->a, sizeof(sl_table_col) * (size_t)(in->ncols + 1));
	for (int i = 0; i < in->ncols; i++) {
		t->cols[i].name = in->cols[i].name;
		t->cols[i].type = in->cols[i].type;
		t->cols[i].type.notnull = 0; /* the query's own types: nothing to enforce */
	}
	t->rowtime = -1;
	sl_opts_init(&t->opts, p->a);
	sl_opts_set(&t->opts, "connector", p->select_to_queue ? "push" : "print");
	return sl__plan_sink(p, t, in, line, col, 1);
}

/*
 * INSERT INTO t (c1, c2, ...) query: the query's columns go to the listed
 * columns in order, every other physical column of t gets NULL (as Flink;
 * a NOT NULL column left out is an error).  Returns the projection in t's
 * physical column order, or NULL with p->err set.
 */
static rel *insert_columns(planner *p, const sl_table_def *t, const sl_ast_insert *in, rel *q)
{
	int *src = sl_arena_alloc(p->a, sizeof(int) * (size_t)(t->ncols + 1));
	for (int c = 0; c < t->ncols; c++)
		src[c] = -1;
	if (q->ncols != in->ncols)
		return sl__plan_error(p, in->cols[0].line, in->cols[0].col, SL_EPLAN,
		                      "Number of INSERT target columns (%d) does not equal number of "
		                      "source items (%d)", in->ncols, q->ncols);
	for (int i = 0; i < in->ncols; i++) {
		const sl_ast_ident *id = &in->cols[i];
		int c = 0;
		while (c < t->ncols && strcmp(t->cols[c].name, id->name))
			c++;
		if (c == t->ncols)
			return sl__plan_error(p, id->line, id->col, SL_EPLAN,
			                      "Unknown target column '%s' of table '%s'", id->name,
			                      t->name);
		if (!sl__sink_writes(t, c))
			return sl__plan_error(p, id->line, id->col, SL_EPLAN,
			                      "Column '%s' of table '%s' is a %s column and cannot be "
			                      "written", id->name, t->name,
			                      t->cols[c].computed ? "computed" : "metadata");
		if (src[c] >= 0)
			return sl__plan_error(p, id->line, id->col, SL_EPLAN,
			                      "Target column '%s' is assigned more than once", id->name);
		src[c] = i;
	}
	sl_expr **x = sl_arena_alloc(p->a, sizeof(sl_expr *) * (size_t)(t->ncols + 1));
	const char **names = sl_arena_alloc(p->a, sizeof(char *) * (size_t)(t->ncols + 1));
	int n = 0;
	for (int c = 0; c < t->ncols; c++) {
		if (!sl__sink_writes(t, c))
			continue;
		names[n] = t->cols[c].name;
		if (src[c] >= 0) {
			x[n++] = sl_expr_col(p->a, src[c], q->cols[src[c]].type);
			continue;
		}
		if (t->cols[c].type.notnull)
			return sl__plan_error(p, in->cols[0].line, in->cols[0].col, SL_EPLAN,
			                      "Column '%s' has no default value and does not allow NULLs "
			                      "(INSERT INTO '%s' leaves it out)", t->cols[c].name, t->name);
		sl_type ty = t->cols[c].type;
		x[n++] = sl_expr_lit_null(p->a, ty);
	}
	return sl__add_calc(p, q, NULL, x, n, names);
}

/* INSERT INTO t with an OPTIONS('k' = 'v') hint after the table: a copy of
 * t whose options are overridden by the hint's (Flink's dynamic table
 * options on a sink).
 * NULL with p->err set for another hint or a bad argument. */
static const sl_table_def *hinted_sink(planner *p, const sl_table_def *t,
                                       const sl_ast_insert *in)
{
	sl_table_def *c = sl_arena_calloc(p->a, sizeof(*c));
	*c = *t;
	sl_opts_init(&c->opts, p->a);
	sl_opts_merge(&c->opts, &t->opts);
	for (int i = 0; i < in->nhints; i++) {
		const sl_ast_hint *h = &in->hints[i];
		if (strcmp(h->name, "OPTIONS"))
			return sl__plan_error(p, h->line, h->col, SL_ENOTSUP,
			                      "table hint %s is not supported (OPTIONS is)", h->name);
		for (int k = 0; k < h->nargs; k++) {
			if (!h->args[k].key)
				return sl__plan_error(p, h->line, h->col, SL_EPLAN,
				                      "OPTIONS hint arguments are 'key' = 'value' pairs");
			if (!strcmp(h->args[k].key, "connector"))
				return sl__plan_error(p, h->args[k].line, h->args[k].col, SL_EPLAN,
				                      "an OPTIONS hint cannot change 'connector'");
			sl_opts_set(&c->opts, h->args[k].key, h->args[k].value);
		}
	}
	return c;
}

static int plan_stmt(planner *p, const sl_ast_stmt *s)
{
	switch (s->kind) {
	case SL_AS_INSERT: {
		const char *name = sl_ast_name_last(&s->u.insert.table);
		const sl_table_def *t = sl_catalog_table(p->cat, name);
		if (!t) {
			sl__plan_error(p, s->line, s->col, SL_EPLAN, "Object '%s' not found", name);
			return SL_EPLAN;
		}
		if (s->u.insert.nhints && !(t = hinted_sink(p, t, &s->u.insert)))
			return p->err->code ? p->err->code : SL_EPLAN;
		rel *r = sl__plan_query(p, s->u.insert.query);
		if (r && s->u.insert.ncols)
			r = insert_columns(p, t, &s->u.insert, r);
		if (!r || !sl__plan_sink(p, t, r, s->line, s->col, 1))
			return p->err->code ? p->err->code : SL_EPLAN;
		return 0;
	}
	case SL_AS_QUERY: {
		rel *r = sl__plan_query(p, s->u.query);
		if (!r || !select_sink(p, r, s->line, s->col))
			return p->err->code ? p->err->code : SL_EPLAN;
		return 0;
	}
	case SL_AS_STATEMENT_SET:
		for (int i = 0; i < s->u.set_block.nstmts; i++) {
			int rc = plan_stmt(p, s->u.set_block.stmts[i]);
			if (rc)
				return rc;
		}
		return 0;
	default:
		sl__plan_error(p, s->line, s->col, SL_EPLAN, "statement cannot be part of a job");
		return SL_EPLAN;
	}
}

/* A planner over a's catalog, session and arena, with the session's
 * planning options read (NULL: err set). */
static planner *planner_new(const sl_plan_args *a, sl_err *err)
{
	planner *p = sl_arena_calloc(a->arena, sizeof(*p));
	if (!p) {
		sl_err_set(err, SL_ENOMEM, "out of memory");
		return NULL;
	}
	p->a = a->arena;
	p->cat = a->cat;
	p->session = a->session;
	p->err = err;
	p->engine = a->engine;
	p->select_to_queue = a->select_to_queue;
	p->push_sink = a->push_sink;
	p->tz = sl_opts_get(a->session, "table.local-time-zone");
	p->checkpointing = a->checkpointing;
	p->parallelism = a->parallelism > 1 ? a->parallelism : 1;
	p->parallelism_explicit = a->parallelism_explicit;
	p->warnings = a->warnings;
	p->job = a->job ? a->job : "";
	p->attempt = a->attempt;
	if (sl_opts_duration(a->session, "table.exec.emit.allow-lateness", 0, &p->default_lateness,
	                     err) ||
	    sl_opts_bool(a->session, "table.exec.mini-batch.enabled", 0, &p->mini_batch, err) ||
	    sl_opts_duration(a->session, "table.exec.state.ttl", 0, &p->state_ttl, err) ||
	    sl_opts_duration(a->session, "table.exec.mini-batch.allow-latency", 0, &p->mb_latency,
	                     err) ||
	    sl_opts_int(a->session, "table.exec.mini-batch.size", 0, &p->mb_size, err))
		return NULL;
	/* as Flink: a latency needs a size ("table.exec.mini-batch.size must be
	 * > 0"); a negative one is what Flink's default (-1) means: none */
	if (p->mini_batch && p->mb_latency > 0 && p->mb_size <= 0) {
		sl_err_set(err, SL_EPLAN, "'table.exec.mini-batch.size' must be > 0 when "
		           "'table.exec.mini-batch.allow-latency' is set");
		return NULL;
	}
	if (p->mb_size < 0)
		p->mb_size = 0;
	return p;
}

int sl_plan_query_columns(const sl_plan_args *a, const sl_ast_query *q, int *ncols,
                          const char ***names, sl_type **types, sl_err *err)
{
	planner *p = planner_new(a, err);
	if (!p)
		return err->code ? err->code : SL_ENOMEM;
	rel *r = sl__plan_query(p, q);
	if (!r)
		return err->code ? err->code : SL_EPLAN;
	*names = sl_arena_calloc(a->arena, sizeof(**names) * (size_t)(r->ncols + 1));
	*types = sl_arena_calloc(a->arena, sizeof(**types) * (size_t)(r->ncols + 1));
	if (!*names || !*types)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < r->ncols; i++) {
		(*names)[i] = r->cols[i].name;
		(*types)[i] = r->cols[i].type;
	}
	*ncols = r->ncols;
	return 0;
}

int sl_plan_job(const sl_plan_args *a, sl_ast_stmt *const *stmts, int n, sl_pplan *plan,
                sl_buf *explain, sl_err *err)
{
	memset(plan, 0, sizeof(*plan));
	planner *p = planner_new(a, err);
	if (!p)
		return err->code ? err->code : SL_ENOMEM;
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = plan_stmt(p, stmts[i]);
	if (!rc)
		rc = sl__plan_idents(p);
	if (!rc) /* after the ids: no rewrite changes an operator's state id */
		rc = sl__plan_rewrite(p);
	if (!rc) /* on the final node list */
		rc = sl__plan_dist(p);
	if (!rc)
		rc = sl__plan_par(p);
	if (!rc) /* needs the exchanges: a split pays only across one */
		rc = sl__plan_two_phase(p);
	sl_scale_out so = {0};
	if (!rc)
		rc = sl__plan_scale_out(p, a->scale_out ? a->scale_out : &so);
	int ids = 0, exchanges = 0;
	if (!rc && explain)
		rc = sl_opts_bool(a->session, "sluice.explain.ids", 0, &ids, err);
	if (!rc && explain)
		rc = sl_opts_bool(a->session, "sluice.explain.exchanges", 0, &exchanges, err);
	if (rc)
		return rc;
	if (explain) {
		explain_plan(p, explain, ids, exchanges);
		sl__plan_scale_out_explain(p, a->scale_out ? a->scale_out : &so, explain);
	}
	*plan = p->plan;
	return 0;
}
