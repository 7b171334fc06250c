/*
 * plan_scaleout.c - whether a job can run as several processes sharing a
 * Kafka topic through its consumer group ('sluice.scale-out' =
 * 'kafka-group', a sluice extension; docs/kafka.md "Several processes,
 * one job"), checked on the final plan (after plan_dist.c).
 *
 * Each partition of the topic is then processed by a job of its own (a
 * child process, src/api/scaleout.c), so the job is correct only when no
 * state needs rows of two partitions: every table the job reads is a
 * 'kafka' or 'upsert-kafka' table of one topic with a declared Kafka key
 * ('key.fields', or the PRIMARY KEY of upsert-kafka), the first one with
 * a consumer group, no VALUES, checkpointing on (a partition's state and
 * offset move through its checkpoints), and every input an operator
 * requires hashed (sl_dist HASH) is hashed by columns that include every
 * key field of one of those tables.  With several tables (co-partitioned
 * joins: partition P of each topic is read by the child of partition P of
 * the first), the inputs of one operator must hold their tables' key
 * fields at the same places of their hash keys (the join pairs key with
 * key) and the keys must be written alike (same 'key.format' and column
 * types); that the topics have as many partitions is checked by the
 * member when it starts, and that their producers partition alike is the
 * user's promise (docs/kafka.md).  A
 * hash column is traced back to the scan's output column it copies
 * (origin): through Calc projections of a plain column, the window and
 * session table functions, the ConstraintEnforcer, ChangelogNormalize,
 * Top-N / deduplication and a lookup join (their leading columns are
 * their input's), the group keys of an aggregate or window aggregate,
 * and a join's output (left ++ right) to the side it copies, unless an
 * outer join pads that side with NULLs; anything else (an expression, an aggregate's result) traces
 * to nothing and the job is refused naming the operator and its key.  A
 * singleton input (a global aggregate, ORDER BY ... LIMIT) is refused:
 * it needs every partition's rows in one place.  Since equal keys are in
 * one partition when the producers partition by the Kafka key (the
 * planner cannot see the producers: docs/kafka.md says so), every state
 * entry then belongs to one partition.
 *
 * A child's plan (session option 'sluice.scale-out.partition' set by the
 * member, src/api/scaleout.c) passes the same check; plan_job.c gives its
 * Kafka scans 'scan.partitions' and no offset commits of their own.
 */
#include "plan_int.h"

#include <stdlib.h>
#include <string.h>

/* The scan output column that column c of node n's output copies, or -1;
 * *scan is that scan. */
static int origin(const sl_pnode *n, int c, const sl_pnode **scan)
{
	*scan = NULL;
	while (n) {
		if (c < 0 || c >= n->nout)
			return -1;
		switch (n->kind) {
		case SL_OPK_SCAN:
			*scan = n;
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
		case SL_OPK_JOIN:
		case SL_OPK_INTERVAL_JOIN:
		case SL_OPK_WINDOW_JOIN:
		case SL_OPK_SEMI_JOIN: {
			/* the joined row is left ++ right (semi and anti: left);
			 * a side an outer join pads with NULLs traces to nothing
			 * (its NULL keys come from every partition) */
			const sl_join_plan *jp = n->params;
			int semi = jp->kind == SL_JOIN_SEMI || jp->kind == SL_JOIN_ANTI ||
			           n->kind == SL_OPK_SEMI_JOIN;
			if (n->nin != 2 || !n->in[0] || !n->in[1] || jp->nl != n->in[0]->nout ||
			    n->nout != (semi ? jp->nl : jp->nl + jp->nr))
				return -1;
			int left = c < jp->nl;
			if (left ? jp->kind == SL_JOIN_RIGHT || jp->kind == SL_JOIN_FULL
			         : jp->kind != SL_JOIN_INNER && jp->kind != SL_JOIN_RIGHT)
				return -1;
			n = n->in[left ? 0 : 1];
			c = left ? c : c - jp->nl;
			continue;
		}
		case SL_OPK_CONSTRAINT:
		case SL_OPK_CHANGELOG_NORMALIZE:
		case SL_OPK_WINDOW_ASSIGN:
		case SL_OPK_SESSION_ASSIGN:
		case SL_OPK_RANK:
		case SL_OPK_DEDUP:
		case SL_OPK_WINDOW_RANK:
		case SL_OPK_LOOKUP_JOIN:
		case SL_OPK_CORRELATE:
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

#define SO_MAX_SRC 8

/* A table the job reads, as the scale-out needs it. */
typedef struct so_src {
	const sl_pnode *scan;
	const char *table, *topic, *keys;
	const sl_opts *opts;
	int key[64], nkey;    /* the Kafka key's columns, as scan output columns
	                       * (-1: pruned, read by nothing) */
} so_src;

/* Checks scan n (a 'kafka' or 'upsert-kafka' table of one topic with a
 * Kafka key) and fills *out. */
static int source_of(planner *p, const sl_pnode *scan, so_src *out)
{
	const sl_scan_params *sp = scan->params;
	const sl_opts *o = sp->args.opts;
	const char *tname = sp->args.table;
	const char *conn = o ? sl_opts_get(o, "connector") : NULL;
	int upsert = conn && !strcmp(conn, "upsert-kafka");
	memset(out, 0, sizeof *out);
	out->scan = scan;
	out->table = tname;
	out->opts = o;
	if (!conn || (strcmp(conn, "kafka") && !upsert))
		return refuse(p, sl_arena_printf(p->a, "table '%s' is not a 'kafka' or 'upsert-kafka' "
		                                 "table", tname));
	const char *topic = sl_opts_get(o, "topic");
	if (!topic || strchr(topic, ';') || sl_opts_get(o, "topic-pattern"))
		return refuse(p, sl_arena_printf(p->a, "table '%s' must name one 'topic' (not a list "
		                                 "or a 'topic-pattern')", tname));
	out->topic = topic;
	int *key = out->key, nkey = 0;
	const char *knames[64];
	const char *keytext;
	if (upsert) {
		for (int i = 0; i < sp->args.npk && nkey < 64; i++) {
			const char *name = sp->args.fields[sp->args.pk[i]].name;
			int found = -1;
			for (int c = 0; c < scan->nout && found < 0; c++)
				if (!strcmp(scan->out_names[c], name))
					found = c;
			knames[nkey] = name;
			key[nkey++] = found; /* -1: a key column the job does not read */
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
			int found = -1, declared = -1;
			for (int k = 0; k < scan->nout && found < 0; k++)
				if (strlen(scan->out_names[k]) == len && !strncmp(scan->out_names[k], c, len))
					found = k;
			for (int f = 0; f < sp->args.nfields && declared < 0; f++)
				if (strlen(sp->args.fields[f].name) == len &&
				    !strncmp(sp->args.fields[f].name, c, len))
					declared = f;
			/* a declared key column that column pruning left out of the
			 * scan (nothing reads it) is kept as -1: no keyed operator can
			 * hold it, and the refusal names the operator, not the table */
			if (found >= 0 || declared >= 0) {
				knames[nkey] = found >= 0 ? scan->out_names[found] : sp->args.fields[declared].name;
				key[nkey++] = found;
			}
			if (!e)
				break;
			c = e + 1;
		}
		keytext = "its 'key.fields'";
	}
	if (!nkey)
		return refuse(p, sl_arena_printf(p->a, "table '%s': %s name no column", tname,
		                                 keytext));
	out->nkey = nkey;
	const char *ks = "";
	for (int i = 0; i < nkey; i++)
		ks = sl_arena_printf(p->a, "%s%s%s", ks, i ? ", " : "", knames[i]);
	out->keys = ks;
	return 0;
}

/* Whether equal keys of tables a and b are written as equal bytes: the
 * same 'key.format' and the same key column types, in key order (then a
 * producer's partitioner puts them in partitions of the same number when
 * the topics have as many partitions). */
static int same_key_bytes(const so_src *a, const so_src *b)
{
	const char *fa = sl_opts_get(a->opts, "key.format");
	const char *fb = sl_opts_get(b->opts, "key.format");
	if (a->nkey != b->nkey || !fa || !fb || strcmp(fa, fb))
		return 0;
	const sl_scan_params *pa = a->scan->params, *pb = b->scan->params;
	for (int k = 0; k < a->nkey; k++) {
		if (a->key[k] < 0 || b->key[k] < 0)
			return 0; /* a key column nothing reads: no join holds it */
		const char *na = a->scan->out_names[a->key[k]], *nb = b->scan->out_names[b->key[k]];
		const sl_type *ta = NULL, *tb = NULL;
		for (int f = 0; f < pa->args.nfields; f++)
			if (!strcmp(pa->args.fields[f].name, na))
				ta = &pa->args.fields[f].type;
		for (int f = 0; f < pb->args.nfields; f++)
			if (!strcmp(pb->args.fields[f].name, nb))
				tb = &pb->args.fields[f].type;
		if (!ta || !tb || ta->id != tb->id)
			return 0;
	}
	return 1;
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
	/* every table read: a 'kafka' or 'upsert-kafka' table of one topic
	 * with a Kafka key; the first is the one whose group the processes
	 * share, the others are joined with it partition by partition */
	so_src src[SO_MAX_SRC];
	int nsrc = 0;
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		if (n->kind == SL_OPK_VALUES)
			return refuse(p, "the job reads VALUES, which every process would read again");
		if (n->kind != SL_OPK_SCAN)
			continue;
		if (nsrc == SO_MAX_SRC)
			return refuse(p, sl_arena_printf(p->a, "the job reads more than %d tables",
			                                 SO_MAX_SRC));
		int rc = source_of(p, n, &src[nsrc]);
		if (rc)
			return rc;
		nsrc++;
	}
	if (!nsrc)
		return refuse(p, "the job reads no table");
	const char *topic = src[0].topic, *tname = src[0].table;
	const char *group = sl_opts_get(src[0].opts, "properties.group.id");
	if (!group)
		return refuse(p, sl_arena_printf(p->a, "table '%s' needs 'properties.group.id': the "
		                                 "processes split the topic through that group",
		                                 tname));
	for (int i = 1; i < nsrc; i++)
		if (!strcmp(src[i].topic, topic))
			return refuse(p, sl_arena_printf(p->a, "tables '%s' and '%s' read the same topic "
			                                 "'%s'", tname, src[i].table, topic));
	const char *keys = src[0].keys;
	int nkeyed = 0;
	for (int i = 0; i < p->plan.n; i++) {
		const sl_pnode *n = p->plan.nodes[i];
		const char *name = sl_op_kind_name(n->kind);
		int hashed = 0, pos0[64] = {0};
		const so_src *s0 = NULL;
		for (int j = 0; j < n->nin; j++) {
			const sl_dist *d = &n->dist[j];
			if (d->kind == SL_DIST_SINGLETON || d->kind == SL_DIST_BROADCAST)
				return refuse(p, sl_arena_printf(p->a, "%s needs every row of the job in one "
				                                 "place (it has no key), so its state cannot "
				                                 "be kept per partition of '%s'", name, topic));
			if (d->kind != SL_DIST_HASH)
				continue;
			/* the table whose whole Kafka key the hash columns hold, and
			 * where in them each key field is */
			const so_src *hit = NULL;
			int pos[64];
			for (int t = 0; t < nsrc && !hit; t++) {
				int all = 1;
				for (int k = 0; k < src[t].nkey && all; k++) {
					pos[k] = -1;
					for (int c = 0; c < d->ncols && pos[k] < 0; c++) {
						const sl_pnode *sc;
						if (origin(n->in[j], d->cols[c], &sc) == src[t].key[k] &&
						    sc == src[t].scan)
							pos[k] = c;
					}
					all = pos[k] >= 0;
				}
				if (all)
					hit = &src[t];
			}
			if (!hit && nsrc == 1)
				return refuse(p, sl_arena_printf(p->a, "%s is keyed by [%s], which does "
				              "not hold the Kafka key [%s] of table '%s' (or computes "
				              "it): rows of one of its keys could come from different "
				              "partitions, so its state cannot be kept per partition",
				              name, col_names(p, n->in[j], d->cols, d->ncols), keys,
				              tname));
			if (!hit)
				return refuse(p, sl_arena_printf(p->a, "%s is keyed by [%s], which holds "
				              "the whole Kafka key of none of the tables it reads (or "
				              "computes it): rows of one of its keys could come from "
				              "different partitions, so its state cannot be kept per "
				              "partition", name, col_names(p, n->in[j], d->cols,
				                                          d->ncols)));
			if (hashed && (hit->nkey != s0->nkey || memcmp(pos, pos0, sizeof(int) *
			                                               (size_t)hit->nkey)))
				return refuse(p, sl_arena_printf(p->a, "%s pairs the Kafka key [%s] of "
				              "table '%s' with columns of table '%s' other than its Kafka "
				              "key [%s]: matching rows could be in partitions of different "
				              "numbers", name, s0->keys, s0->table, hit->table, hit->keys));
			if (hashed && hit != s0 && !same_key_bytes(s0, hit))
				return refuse(p, sl_arena_printf(p->a, "%s joins tables '%s' and '%s', "
				              "whose Kafka keys [%s] and [%s] are not written alike (the "
				              "same 'key.format' and column types): equal keys could be in "
				              "partitions of different numbers", name, s0->table,
				              hit->table, s0->keys, hit->keys));
			if (!hashed) {
				s0 = hit;
				memcpy(pos0, pos, sizeof(int) * (size_t)hit->nkey);
			}
			hashed = 1;
			nkeyed++;
		}
	}
	for (int i = 1; i < nsrc; i++)
		out->co_topics[out->nco++] = src[i].topic;
	out->on = 1;
	out->table = tname;
	out->opts = src[0].opts;
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
	const char *co = "";
	for (int i = 0; i < so->nco; i++)
		co = sl_arena_printf(p->a, "%s%s'%s'", co, i ? ", " : "", so->co_topics[i]);
	sl_buf_printf(explain, "Scale-out: kafka-group: processes sharing group '%s' split topic "
	              "'%s' by partition%s%s; state kept per partition (%d keyed input%s, each keyed "
	              "by the Kafka key [%s]%s; the producers must partition by it)%s\n", so->group,
	              so->topic, so->nco ? ", co-partitioned with " : "", co, so->nkeyed,
	              so->nkeyed == 1 ? "" : "s", so->keys, so->nco ? " or its counterpart" : "",
	              part ? sl_arena_printf(p->a, "; this process: partition %s", part) : "");
}
