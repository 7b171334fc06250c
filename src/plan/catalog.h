/*
 * catalog.h - tables and views declared by CREATE TABLE / CREATE VIEW.
 *
 * The catalog belongs to an engine and lives as long as it.  Definitions
 * keep pointers into the AST of the script that declared them (computed
 * column expressions, the watermark expression, view queries), so the
 * engine keeps every script arena that declared something until it closes.
 * Names are matched case-sensitively, as Flink does.
 *
 * What is checked at CREATE time: unique column names, the WATERMARK
 * column exists and is TIMESTAMP(p)/TIMESTAMP_LTZ(p), PRIMARY KEY and
 * PARTITIONED BY columns exist, 'connector' is present, and none of
 * Flink's legacy option keys ('connector.type', 'format.type',
 * 'update-mode', ...) is used (the error gives the new spelling), but
 * those of the legacy CSV file source Flink 1.20 still ships
 * ('connector.type' = 'filesystem', 'format.type' = 'csv'), which are
 * read in their new spelling.  Expressions are bound later, when a job
 * reads the table (their errors still come before any input is read).
 */
#ifndef SL_CATALOG_H
#define SL_CATALOG_H

#include "../base/arena.h"
#include "../base/err.h"
#include "../base/opts.h"
#include "../sql/ast.h"

typedef struct sl_table_col {
	const char *name;
	sl_type type;               /* physical and metadata columns */
	const sl_ast_expr *computed; /* computed columns: `name AS expr` */
	int metadata;               /* METADATA column (read by sources that know its key) */
	const char *metadata_key;   /* METADATA: its key (FROM 'key', else the name) */
	int is_virtual;             /* METADATA ... VIRTUAL: never written by a sink */
} sl_table_col;

typedef struct sl_table_def {
	const char *name;
	int ncols;
	sl_table_col *cols;
	int rowtime;                /* column of WATERMARK FOR, -1 */
	const sl_ast_expr *watermark;
	int npk;
	int *pk;                    /* column indexes */
	sl_opts opts;               /* WITH options */
	int line, col;
	const sl_ast_create_table *ast; /* its CREATE TABLE (comments, PARTITIONED BY,
	                                 * constraint name: SHOW CREATE TABLE) */
	int npart;                  /* PARTITIONED BY columns */
	int *part;                  /* their column indexes */
} sl_table_def;

typedef struct sl_view_def {
	const char *name;
	const sl_ast_query *query;
	int ncols;                  /* CREATE VIEW v (c1, c2) */
	const sl_ast_ident *cols;
	const char *text;           /* the CREATE VIEW statement's text, or NULL */
	const char *query_text;     /* its query's text (ALTER VIEW RENAME rewrites text) */
} sl_view_def;

/* A function of CREATE FUNCTION (udf.c loads it). */
typedef struct sl_func_def {
	const char *name;           /* as written; matched case-insensitively */
	const char *symbol;         /* AS '...' */
	const char *path;           /* USING JAR '...' */
	int temporary;
	void *dl;                   /* dlopen handle (udf.c); closed with the catalog */
	const struct sluice_udf *udf; /* the registration the symbol returned */
	int nargs;
	sl_type *arg_types;         /* the registration's types, parsed */
	sl_type result;
	struct sl_agg_vtab *agg_vt; /* an aggregate function's (udf.c), NULL for scalar */
} sl_func_def;

typedef struct sl_catalog {
	sl_arena arena;             /* definitions (not the ASTs) */
	int ntables, nviews, nfunctions;
	sl_table_def **tables;
	sl_view_def **views;
	sl_func_def **functions;
	int ndls;
	void **dls;                 /* every library loaded (udf.c), closed at deinit */
	int njars;
	const char **jars;          /* ADD JAR paths in order (udf.c), arena copies */
	void **jar_dls;             /* their dlopen handles (also in dls) */
} sl_catalog;

void sl_catalog_init(sl_catalog *c);
void sl_catalog_deinit(sl_catalog *c);

/* Adds a table from its CREATE TABLE node (the AST must outlive the
 * catalog).  Returns 0, or SL_EPLAN with err (line/column set) for a bad
 * definition or a duplicate name (unless IF NOT EXISTS). */
int sl_catalog_add_table(sl_catalog *c, const sl_ast_create_table *t, int line, int col,
                         sl_err *err);
/* CREATE TABLE ... LIKE (catalog_like.c): *out = t merged with its source
 * table's definition as t's like options say, allocated in c's arena; 0,
 * or SL_EPLAN with err naming the conflict (Flink's messages) or the
 * missing source table.  sl_catalog_add_table calls it. */
int sl_catalog_merge_like(sl_catalog *c, const sl_ast_create_table *t,
                          const sl_ast_create_table **out, int line, int col, sl_err *err);
/* 1 when CREATE TABLE node t declares a PRIMARY KEY, as a constraint or on
 * a column (LIKE and ALTER TABLE merge keys). */
int sl__ast_has_pk(const sl_ast_create_table *t);
/* The checked definition of CREATE TABLE node t in c's arena, not added
 * (sl_catalog_add_table adds it; ALTER TABLE replaces a table with one).
 * 0, or SL_EPLAN with err set. */
int sl__catalog_build_table(sl_catalog *c, const sl_ast_create_table *t, int line, int col,
                            sl_table_def **out, sl_err *err);
/* ALTER TABLE / ALTER VIEW (catalog_alter.c): the table or view named in
 * al, changed as al says, checked like a CREATE of it and put in its
 * place; nothing changes when it fails.  A running job keeps reading the
 * definition it planned with.  0, or SL_EPLAN with err naming the problem
 * (Flink's messages) and s_line/s_col the statement's position. */
int sl_catalog_alter(sl_catalog *c, const sl_ast_alter *al, int view, int s_line, int s_col,
                     sl_err *err);
int sl_catalog_add_view(sl_catalog *c, const sl_ast_create_view *v, int line, int col,
                        sl_err *err);
/* DROP TABLE / VIEW. */
int sl_catalog_drop(sl_catalog *c, const sl_ast_drop *d, int view, int line, int col,
                    sl_err *err);

/* CREATE FUNCTION (loads the library and checks the registration, udf.c)
 * / DROP FUNCTION.  0, or an error with line and column. */
int sl_catalog_add_function(sl_catalog *c, const sl_ast_create_function *f, int line, int col,
                            sl_err *err);
int sl_catalog_drop_function(sl_catalog *c, const sl_ast_drop_function *f, int line, int col,
                             sl_err *err);
/* ADD JAR 'path': loads the library (an error names it and dlerror's
 * text) and appends it to the libraries CREATE FUNCTION without USING JAR
 * searches, in order; adding a path already added changes nothing.
 * REMOVE JAR 'path': takes it off that list (SL_EPLAN when it is not on
 * it); functions created from it stay, and so does the library. */
int sl_catalog_add_jar(sl_catalog *c, const char *path, int line, int col, sl_err *err);
int sl_catalog_remove_jar(sl_catalog *c, const char *path, int line, int col, sl_err *err);
/* Closes the libraries of every function ever loaded (sl_catalog_deinit). */
void sl_catalog_close_functions(sl_catalog *c);
/* The function named (case-insensitive), or NULL. */
sl_func_def *sl_catalog_function(const sl_catalog *c, const char *name);

sl_table_def *sl_catalog_table(const sl_catalog *c, const char *name);
sl_view_def *sl_catalog_view(const sl_catalog *c, const char *name);

/* The last part of a possibly qualified name (catalog.db.t -> t). */
const char *sl_ast_name_last(const sl_ast_name *n);

#endif
