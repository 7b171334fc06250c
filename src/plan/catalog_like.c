/*
 * catalog_like.c - CREATE TABLE ... LIKE: the new table's definition merged
 * with its source table's, as Flink's MergeTableLikeUtil merges them.
 *
 * The merge works on the CREATE TABLE nodes: the source table's node (the
 * one its sl_table_def keeps, itself already merged when it was declared
 * with LIKE) and the new statement's node give a third node, allocated in
 * the catalog's arena, which sl_catalog_add_table then checks and records
 * exactly as if the user had written it (so SHOW CREATE TABLE prints the
 * merged table, as Flink's does).  The merged node points into both
 * statements' ASTs (expressions, names, option strings), which the engine
 * keeps while the catalog lives.
 *
 * Each feature of the source table has a strategy (catalog.h's list,
 * docs/sql.md "CREATE TABLE ... LIKE"):
 *   physical columns  always included; a new column of the same name fails;
 *   GENERATED / METADATA  computed / metadata columns: INCLUDING fails on a
 *                     name both define, OVERWRITING replaces the source's in
 *                     its place, EXCLUDING leaves the source's out; neither
 *                     may replace a physical column;
 *   WATERMARKS        per rowtime column, the same three ways;
 *   CONSTRAINTS       the PRIMARY KEY: INCLUDING fails if both declare one;
 *   PARTITIONS        PARTITIONED BY: INCLUDING fails if both declare one;
 *   OPTIONS           WITH options: INCLUDING fails on a key both set,
 *                     OVERWRITING lets the new statement's value win.
 * With no options the default is INCLUDING ALL OVERWRITING OPTIONS; `{
 * INCLUDING | EXCLUDING } ALL` sets the strategy of every feature not named.
 * The source's columns come first, in their order, then the new ones.
 * The messages are Flink's.
 */
#include "catalog.h"
#include "sluice.h"

#include <string.h>

/* The strategy of each feature after ALL and the defaults are applied. */
static void strategies(const sl_ast_create_table *t, uint8_t out[SL_LIKE_NFEATURES])
{
	uint8_t all = t->like_opt[SL_LIKE_ALL] ? t->like_opt[SL_LIKE_ALL] : SL_LIKE_INCLUDING;
	for (int k = 0; k < SL_LIKE_NFEATURES; k++)
		out[k] = t->like_opt[k] ? t->like_opt[k] : all;
	if (!t->like_opt[SL_LIKE_ALL] && !t->like_opt[SL_LIKE_OPTIONS])
		out[SL_LIKE_OPTIONS] = SL_LIKE_OVERWRITING;
}

static int find_col(const sl_ast_column *cols, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(cols[i].name.name, name) == 0)
			return i;
	return -1;
}

static int find_wm(const sl_ast_watermark *w, int n, const char *col)
{
	for (int i = 0; i < n; i++)
		if (strcmp(sl_ast_name_last(&w[i].column), col) == 0)
			return i;
	return -1;
}

/* The columns: the source's (computed and metadata ones as their
 * strategies say), then the new statement's, merged by name. */
static int merge_columns(sl_catalog *c, const sl_ast_create_table *base,
                         const sl_ast_create_table *t, const uint8_t *st,
                         sl_ast_create_table *m, sl_err *err)
{
	m->cols = sl_arena_calloc(&c->arena, sizeof(*m->cols) * (size_t)(base->ncols + t->ncols + 1));
	if (!m->cols)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < base->ncols; i++) {
		const sl_ast_column *bc = &base->cols[i];
		if ((bc->kind == SL_ACOL_COMPUTED && st[SL_LIKE_GENERATED] == SL_LIKE_EXCLUDING) ||
		    (bc->kind == SL_ACOL_METADATA && st[SL_LIKE_METADATA] == SL_LIKE_EXCLUDING))
			continue;
		m->cols[m->ncols] = *bc;
		if (st[SL_LIKE_CONSTRAINTS] == SL_LIKE_EXCLUDING)
			m->cols[m->ncols].primary_key = 0;
		m->ncols++;
	}
	for (int i = 0; i < t->ncols; i++) {
		const sl_ast_column *nc = &t->cols[i];
		int j = find_col(m->cols, m->ncols, nc->name.name);
		if (j < 0) {
			m->cols[m->ncols++] = *nc;
			continue;
		}
		const char *nm = nc->name.name;
		int line = nc->line, col = nc->col;
		if (nc->kind == SL_ACOL_PHYSICAL)
			return sl_err_set_at(err, SL_EPLAN, line, col,
			                     "line %d, column %d: A column named '%s' already exists in "
			                     "the base table.", line, col, nm);
		int gen = nc->kind == SL_ACOL_COMPUTED;
		if (m->cols[j].kind == SL_ACOL_PHYSICAL)
			return sl_err_set_at(err, SL_EPLAN, line, col,
			                     "line %d, column %d: A physical column named '%s' already "
			                     "exists in the base table. %s columns cannot overwrite "
			                     "physical fields", line, col, nm,
			                     gen ? "Computed" : "Metadata");
		if (st[gen ? SL_LIKE_GENERATED : SL_LIKE_METADATA] != SL_LIKE_OVERWRITING)
			return sl_err_set_at(err, SL_EPLAN, line, col,
			                     "line %d, column %d: A %s column named '%s' already exists "
			                     "in the base table. You might want to specify EXCLUDING %s "
			                     "or OVERWRITING %s.", line, col,
			                     gen ? "generated" : "metadata", nm,
			                     gen ? "GENERATED" : "METADATA", gen ? "GENERATED" : "METADATA");
		m->cols[j] = *nc;
	}
	return 0;
}

static int merge_watermarks(sl_catalog *c, const sl_ast_create_table *base,
                            const sl_ast_create_table *t, const uint8_t *st,
                            sl_ast_create_table *m, sl_err *err)
{
	int nb = st[SL_LIKE_WATERMARKS] == SL_LIKE_EXCLUDING ? 0 : base->nwatermarks;
	m->watermarks = sl_arena_calloc(&c->arena,
	                                sizeof(*m->watermarks) * (size_t)(nb + t->nwatermarks + 1));
	if (!m->watermarks)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nb; i++)
		m->watermarks[m->nwatermarks++] = base->watermarks[i];
	for (int i = 0; i < t->nwatermarks; i++) {
		const sl_ast_watermark *w = &t->watermarks[i];
		int j = find_wm(m->watermarks, nb, sl_ast_name_last(&w->column));
		if (j < 0) {
			m->watermarks[m->nwatermarks++] = *w;
		} else if (st[SL_LIKE_WATERMARKS] == SL_LIKE_OVERWRITING) {
			m->watermarks[j] = *w;
		} else {
			return sl_err_set_at(err, SL_EPLAN, w->line, w->col,
			                     "line %d, column %d: There already exists a watermark spec "
			                     "for column '%s' in the base table. You might want to specify "
			                     "EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.", w->line,
			                     w->col, sl_ast_name_last(&w->column));
		}
	}
	return 0;
}

/* PRIMARY KEY and PARTITIONED BY. */
static int merge_keys(const sl_ast_create_table *base, const sl_ast_create_table *t,
                      const uint8_t *st, sl_ast_create_table *m, int line, int col, sl_err *err)
{
	if (st[SL_LIKE_CONSTRAINTS] != SL_LIKE_EXCLUDING && sl__ast_has_pk(base)) {
		if (sl__ast_has_pk(t))
			return sl_err_set_at(err, SL_EPLAN, line, col,
			                     "line %d, column %d: The base table already has a primary "
			                     "key. You might want to specify EXCLUDING CONSTRAINTS.",
			                     line, col);
		m->npk = base->npk;
		m->pk = base->pk;
		m->pk_constraint = base->pk_constraint;
		m->pk_enforced = base->pk_enforced;
		m->pk_line = base->pk_line;
		m->pk_col = base->pk_col;
	}
	if (st[SL_LIKE_PARTITIONS] != SL_LIKE_EXCLUDING && base->npartition) {
		if (t->npartition)
			return sl_err_set_at(err, SL_EPLAN, line, col,
			                     "line %d, column %d: The base table already has partitions "
			                     "defined. You might want to specify EXCLUDING PARTITIONS.",
			                     line, col);
		m->npartition = base->npartition;
		m->partition = base->partition;
	}
	return 0;
}

static int merge_options(sl_catalog *c, const sl_ast_create_table *base,
                         const sl_ast_create_table *t, const uint8_t *st,
                         sl_ast_create_table *m, sl_err *err)
{
	int nb = st[SL_LIKE_OPTIONS] == SL_LIKE_EXCLUDING ? 0 : base->noptions;
	m->options = sl_arena_calloc(&c->arena,
	                             sizeof(*m->options) * (size_t)(nb + t->noptions + 1));
	if (!m->options)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < nb; i++)
		m->options[m->noptions++] = base->options[i];
	for (int i = 0; i < t->noptions; i++) {
		const sl_ast_option *o = &t->options[i];
		int j = -1;
		for (int k = 0; k < nb && j < 0; k++)
			if (strcmp(m->options[k].key, o->key) == 0)
				j = k;
		if (j < 0) {
			m->options[m->noptions++] = *o;
		} else if (st[SL_LIKE_OPTIONS] == SL_LIKE_OVERWRITING) {
			m->options[j].value = o->value;
		} else {
			return sl_err_set_at(err, SL_EPLAN, o->line, o->col,
			                     "line %d, column %d: There already exists an option ['%s' -> "
			                     "'%s'] in the base table. You might want to specify EXCLUDING "
			                     "OPTIONS or OVERWRITING OPTIONS.", o->line, o->col,
			                     m->options[j].key, m->options[j].value);
		}
	}
	return 0;
}

int sl_catalog_merge_like(sl_catalog *c, const sl_ast_create_table *t,
                          const sl_ast_create_table **out, int line, int col, sl_err *err)
{
	const char *src = sl_ast_name_last(&t->like);
	const sl_table_def *bd = sl_catalog_table(c, src);
	if (!bd) {
		const char *what = sl_catalog_view(c, src) ? "can not be a VIEW" :
		                                             "not found in the catalog";
		return sl_err_set_at(err, SL_EPLAN, t->like_line, t->like_col,
		                     "line %d, column %d: Source table '%s' of the LIKE clause %s",
		                     t->like_line, t->like_col, src, what);
	}
	const sl_ast_create_table *base = bd->ast;
	uint8_t st[SL_LIKE_NFEATURES];
	strategies(t, st);
	sl_ast_create_table *m = sl_arena_calloc(&c->arena, sizeof(*m));
	if (!m)
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	m->name = t->name;
	m->if_not_exists = t->if_not_exists;
	m->temporary = t->temporary;
	m->comment = t->comment;
	m->npk = t->npk;
	m->pk = t->pk;
	m->pk_constraint = t->pk_constraint;
	m->pk_enforced = t->pk_enforced;
	m->pk_line = t->pk_line;
	m->pk_col = t->pk_col;
	m->npartition = t->npartition;
	m->partition = t->partition;
	int rc = merge_columns(c, base, t, st, m, err);
	if (!rc)
		rc = merge_watermarks(c, base, t, st, m, err);
	if (!rc)
		rc = merge_keys(base, t, st, m, line, col, err);
	if (!rc)
		rc = merge_options(c, base, t, st, m, err);
	if (!rc)
		*out = m;
	return rc;
}
