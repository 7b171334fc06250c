/*
 * plan_scaleout.c - whether a job can run as several processes sharing a
 * Kafka topic through its consumer group ('sluice.scale-out' =
 * 'kafka-group', a sluice extension; docs/kafka.md "Several processes,
 * one job"), checked on the final plan (after plan_dist.c).
 *
 * Each partition of the topic is then processed by a job of its own (a
 * child process, src/api/scaleout.c), so the job is correct only when no
 * state needs rows of two partitions: the job has exactly one source, a
 * 'kafka' or 'upsert-kafka' table of one topic with a consumer group and
 * a declared Kafka key ('key.fields', or the PRIMARY KEY of upsert-kafka),
 * no VALUES, checkpointing on (a partition's state and offset move through
 * its checkpoints), and every input an operator requires hashed
 * (sl_dist HASH) is hashed by columns that include every key field.  A
 * hash column is traced back to the scan's output column it copies
 * (origin): through Calc projections of a plain column, the window and
 * session table functions, the ConstraintEnforcer, ChangelogNormalize,
 * Top-N / deduplication and a lookup join (their leading columns are
 * their input's), and the group keys of an aggregate or window
 * aggregate; anything else (an expression, an aggregate's result) traces
 * to nothing and the job is refused naming the operator and its key.  A
 * singleton input (a global aggregate, ORDER BY ... LIMIT) is refused:
 * it needs every partition's rows in one place.  Since equal keys are in
 * one partition when the producers partition by the Kafka key (the
 * planner cannot see the producers: docs/kafka.md says so), every state
 * entry then belongs to one partition.
 *
 * A child's plan (session option 'sluice.scale-out.partition' set by the
 * member, src/api/scaleout.c) passes the same check; plan_job.c gives its
 * Kafka scan 'scan.partitions' and no offset commits.
 */
#include "plan_int.h"

#include <stdlib.h>
#include <string.h>

/* The scan output column that column c of node n's output copies, or -1. */
static int origin(const sl_pnode *n, int c)
{
	while (n) {
		if (c < 0 || c >= n->nout)
			return -1;
		switch (n->kind) {
		case SL_OPK_SCAN:
			return c;
		case SL_OPK_CALC: {
			const sl_calc_params *cp = n->params;
			if (!cp->proj || cp->nproj == 0)
				break; /* a filter only: the input's columns */
			const sl_expr *x = c < cp->nproj ? cp->proj[c] : NULL;
			if (!x || x->kind != SL_EX_COL)
				return -1;
			c = x->col;
			break;
		}
		case SL_OPK_GROUP_AGG: {
			const sl_group_agg_plan *gp = n->params;
			if (c >= gp->nkeys)
				return -1;
			c = gp->key_cols[c];
			break;
		}
		case SL_OPK_WINDOW_AGG:
		case SL_OPK_SESSION_AGG:
		case SL_OPK_LOCAL_WINDOW_AGG: { /* its partials lead with the keys */
			const sl_window_agg_plan *wp = n->params;
			if (c >= wp->nkeys)
				return -1;
			c = wp->key_cols[c];
			break;
		}
		case SL_OPK_CONSTRAINT:
		case SL_OPK_CHANGELOG_NORMALIZE:
		case SL_OPK_WINDOW_ASSIGN:
		case SL_OPK_SESSION_ASSIGN:
		case SL_OPK_RANK:
		case SL_OPK_DEDUP:
		case SL_OPK_WINDOW_RANK:
		case SL_OPK_LOOKUP_JOIN:
			break; /* leading columns are the input's */
		default:
			return -1;
		}
		if (n->nin < 1 || !n->in[0] || c >= n->in[0]->nout)
			return -1;
		n = n->in[0];
	}
	return -1;
}

/* Column names cols[0..n) of node in's output, "a, b" (arena). */
static const char *col_names(planner *p, const sl_pnode *in, const int *cols, int n)
{
	const char *s = "";
	for (int i = 0; i < n; i++)
		s = sl_arena_printf(p->a, "%s%s%s", s, i ? ", " : "",
		                    in && in->out_names && cols[i] < in->nout ? in->out_names[cols[i]]
		                                                              : "?");
	return s;
}

static int refuse(planner *p, const char *why)
{
	return sl_err_set(p->err, SL_EPLAN, "'sluice.scale-out' = 'kafka-group' (several processes "
	                  "sharing the topic, docs/kafka.md): %s", why);
}

int sl__plan_scale_out(planner *p, sl_scale_out *out)
{
	const char *mode = sl_opts_get(p->session, "sluice.scale-out");
	const char *part = sl_opts_get(p->session, "sluice.scale-out.partition");
	if (!mode || !strcmp(mode, "none")) {
		if (part)
			return refuse(p, "'sluice.scale-out.partition' is set by the scale-out's member "
			              "process for its children, without 'sluice.scale-out'");
		return 0;
	}
	if (strcmp(mode, "kafka-group"))
		return sl_err_set(p->err, SL_EINVAL, "'sluice.scale-out' = '%s': expected 'none' or "
		                  "'kafka-group'", mode);
	if (!p->checkpointing)
		return refuse(p, "it needs checkpointing ('execution.checkpointing.interval'): a "
		              "partition's state and offset move to its next owner through its "
		              "checkpoints");
	const sl_pnode *scan = NULL;
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		if (n->kind == SL_OPK_VALUES)
			return refuse(p, "the job reads VALUES, which every process would read again");
		if (n->kind != SL_OPK_SCAN)
			continue;
		if (scan)
			return refuse(p, "the job reads more than one table (co-partitioned joins of "
			              "two topics are not supported)");
		scan = n;
	}
	if (!scan)
		return refuse(p, "the job reads no table");
	const sl_scan_params *sp = scan->params;
	const sl_opts *o = sp->args.opts;
	const char *tname = sp->args.table;
	const char *conn = o ? sl_opts_get(o, "connector") : NULL;
	int upsert = conn && !strcmp(conn, "upsert-kafka");
	if (!conn || (strcmp(conn, "kafka") && !upsert))
		return refuse(p, sl_arena_printf(p->a, "table '%s' is not a 'kafka' or 'upsert-kafka' "
		                                 "table", tname));
	const char *topic = sl_opts_get(o, "topic");
	const char *group = sl_opts_get(o, "properties.group.id");
	if (!topic || strchr(topic, ';') || sl_opts_get(o, "topic-pattern"))
		return refuse(p, sl_arena_printf(p->a, "table '%s' must name one 'topic' (not a list "
		                                 "or a 'topic-pattern')", tname));
	if (!group)
		return refuse(p, sl_arena_printf(p->a, "table '%s' needs 'properties.group.id': the "
		                                 "processes split the topic through that group",
		                                 tname));
	/* the Kafka key's columns, as scan output columns */
	int key[64], nkey = 0;
	const char *keytext;
	if (upsert) {
		for (int i = 0; i < sp->args.npk && nkey < 64; i++) {
			const char *name = sp->args.fields[sp->args.pk[i]].name;
			for (int c = 0; c < scan->nout; c++)
				if (!strcmp(scan->out_names[c], name))
					key[nkey++] = c;
		}
		keytext = "its PRIMARY KEY";
	} else {
		const char *kf = sl_opts_get(o, "key.fields");
		if (!kf)
			return refuse(p, sl_arena_printf(p->a, "table '%s' declares no Kafka key "
			                                 "('key.fields' with 'key.format'): state can "
			                                 "be kept per partition only when the topic is "
			                                 "partitioned by a key the job groups by",
			                                 tname));
		const char *c = kf;
		while (*c && nkey < 64) {
			const char *e = strchr(c, ';');
			size_t len = e ? (size_t)(e - c) : strlen(c);
			while (len && *c == ' ')
				c++, len--;
			while (len && c[len - 1] == ' ')
				len--;
			int found = -1;
			for (int k = 0; k < scan->nout && found < 0; k++)
				if (strlen(scan->out_names[k]) == len && !strncmp(scan->out_names[k], c, len))
					found = k;
			if (found >= 0)
				key[nkey++] = found;
			if (!e)
				break;
			c = e + 1;
		}
		keytext = "its 'key.fields'";
	}
	if (!nkey)
		return refuse(p, sl_arena_printf(p->a, "table '%s': %s name no column", tname,
		                                 keytext));
	const char *keys = col_names(p, scan, key, nkey);
	int nkeyed = 0;
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		for (int j = 0; j < n->nin; j++) {
			const sl_dist *d = &n->dist[j];
			const char *name = sl_op_kind_name(n->kind);
			if (d->kind == SL_DIST_SINGLETON || d->kind == SL_DIST_BROADCAST)
				return refuse(p, sl_arena_printf(p->a, "%s needs every row of the job in one "
				                                 "place (it has no key), so its state cannot "
				                                 "be kept per partition of '%s'", name, topic));
			if (d->kind != SL_DIST_HASH)
				continue;
			for (int k = 0; k < nkey; k++) {
				int found = 0;
				for (int c = 0; c < d->ncols && !found; c++)
					found = origin(n->in[j], d->cols[c]) == key[k];
				if (!found)
					return refuse(p, sl_arena_printf(p->a, "%s is keyed by [%s], which does "
					              "not hold the Kafka key [%s] of table '%s' (or computes "
					              "it): rows of one of its keys could come from different "
					              "partitions, so its state cannot be kept per partition",
					              name, col_names(p, n->in[j], d->cols, d->ncols), keys,
					              tname));
			}
			nkeyed++;
		}
	}
	out->on = 1;
	out->table = tname;
	out->opts = o;
	out->topic = topic;
	out->group = group;
	out->keys = keys;
	out->nkeyed = nkeyed;
	return 0;
}

void sl__plan_scale_out_explain(planner *p, const sl_scale_out *so, sl_buf *explain)
{
	if (!so->on)
		return;
	const char *part = sl_opts_get(p->session, "sluice.scale-out.partition");
	sl_buf_printf(explain, "Scale-out: kafka-group: processes sharing group '%s' split topic "
	              "'%s' by partition; state kept per partition (%d keyed input%s, each keyed "
	              "by the Kafka key [%s]; the producers must partition by it)%s\n", so->group,
	              so->topic, so->nkeyed, so->nkeyed == 1 ? "" : "s", so->keys,
	              part ? sl_arena_printf(p->a, "; this process: partition %s", part) : "");
}
