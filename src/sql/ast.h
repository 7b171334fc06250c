/*
 * ast.h - the abstract syntax tree of a Flink SQL script.
 *
 * Data flow:  SQL text --(sl_parse, src/sql/parser.c)--> sl_ast_script
 *             --(binder, src/plan)--> logical plan.
 *
 * The tree is purely syntactic: names are not resolved, types of
 * expressions are not computed, function names are not checked.  Every node
 * lives in the sl_arena passed to sl_parse and is immutable once sl_parse
 * returns; the tree is freed with the arena.  Strings are NUL-terminated
 * arena copies.  Every node records the 1-based line and column (in
 * characters, not bytes) of its first token in the SQL text.
 *
 * Lists are (count, array) pairs; arrays never contain NULL pointers unless
 * the field comment says so.  Optional children are NULL when absent.
 *
 * Identifiers keep their original spelling; `quoted` is 1 for `back-quoted`
 * and "double-quoted" identifiers (how names match is the binder's
 * decision; Flink is case-sensitive by default).  Keywords
 * are case-insensitive and never appear as identifiers unless quoted or
 * non-reserved.
 *
 * Normalizations done by the parser (the binder sees only the generic forms):
 *   - Function names are stored as written in `call.name` and upper-cased in
 *     `call.fname` (e.g. "TUMBLE_START"); CEILING becomes "CEIL", SUBSTR
 *     stays SUBSTR.
 *   - EXTRACT(unit FROM x)              -> call EXTRACT(KEYWORD unit, x)
 *   - FLOOR(x TO unit) / CEIL(x TO unit) -> call FLOOR/CEIL(x, KEYWORD unit);
 *     FLOOR(x) / CEIL(x) stay one-argument calls.
 *   - POSITION(a IN b)                  -> call POSITION(a, b)
 *   - TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) and TRIM(s)
 *                                       -> call TRIM(KEYWORD side, chars, s)
 *     where side defaults to BOTH and chars to the string literal ' '.
 *   - SUBSTRING(s FROM a [FOR b])       -> call SUBSTRING(s, a [, b]);
 *     SUBSTRING(s, a, b) is the same call.
 *   - TIMESTAMPADD(unit, n, ts), TIMESTAMPDIFF(unit, a, b) -> calls whose
 *     first argument is a KEYWORD node holding the unit.
 *   - CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME,
 *     LOCALTIME, CURRENT_ROW_TIMESTAMP written without parentheses -> call
 *     with no arguments and `noparen` = 1.
 *   - ROW(a, b) and (a, b) in an expression -> call ROW(a, b).
 *   - x[i]                              -> call ITEM(x, i).
 *   - Reserved words used as function names (LEFT, RIGHT, IF, INSERT,
 *     REPLACE, TRUNCATE, MOD, ...) are ordinary calls.
 *   - Legacy group windows (TUMBLE(ts, INTERVAL ..), TUMBLE_START(..)) are
 *     ordinary calls; window table functions inside FROM TABLE(...) are
 *     calls whose arguments may be TABLE_ARG and DESCRIPTOR nodes, possibly
 *     named (DATA => TABLE t): see call.argnames.
 *   - OVERLAY(s PLACING r FROM p [FOR n]), JSON_VALUE, JSON_QUERY,
 *     JSON_EXISTS, JSON_OBJECT and JSON_ARRAY with their keyword clauses
 *     -> calls with KEYWORD arguments (listed in parse_fn.c);
 *     x IS [NOT] JSON [kind] -> an IS node (what = JSON, b = KEYWORD kind).
 *   - `x NOT IN (...)`, `x NOT LIKE p`, `x NOT BETWEEN ..` set `negated` on
 *     their node instead of wrapping in NOT; `IS NOT ...` likewise.
 *   - A parenthesised expression leaves no node; a parenthesised query in
 *     expression position is a SUBQUERY node.
 *   - Unary plus is dropped; unary minus is a NEG node (also before numeric
 *     literals: `-5` is NEG(5); the binder may fold it).
 *   - `a.b.c` is one COLUMN node with a 3-part path (table, column, field
 *     resolution is the binder's); `t.*` is a STAR node with path "t".
 *     Field access on a non-name expression, `(expr).f` or `f(x).g`, is a
 *     FIELD node.
 *   - INTERVAL literals keep their string text (sign included, e.g. "-1",
 *     "1:30") plus start and end units; `INTERVAL '5' SECONDS` and MINUTES,
 *     HOURS, DAYS, MONTHS, YEARS plural spellings map to the same units.
 */
#ifndef SL_SQL_AST_H
#define SL_SQL_AST_H

#include <stddef.h>
#include <stdint.h>

#include "../data/types.h"

struct sl_buf;

typedef struct sl_ast_query sl_ast_query;
typedef struct sl_ast_expr sl_ast_expr;
typedef struct sl_ast_from sl_ast_from;
typedef struct sl_ast_stmt sl_ast_stmt;
typedef struct sl_ast_type sl_ast_type;

/* An identifier as written. */
typedef struct sl_ast_ident {
	const char *name; /* original spelling, unquoted, escapes removed */
	uint8_t quoted;   /* 1 if `...` or "..." */
	int line, col;
} sl_ast_ident;

/* A dotted name: catalog.db.table, t.col, t.col.field. n >= 1. */
typedef struct sl_ast_name {
	int n;
	sl_ast_ident *parts;
} sl_ast_name;

/* A 'key' = 'value' pair of a WITH clause, a SET statement or a hint. */
typedef struct sl_ast_option {
	const char *key;   /* NULL for a positional hint argument */
	const char *value; /* string content (identifier text if unquoted) */
	int line, col;     /* of the key (or value when no key) */
} sl_ast_option;

/* A hint: `OPTIONS('k'='v')`, `STATE_TTL('o'='1h')`, `UID('x')`,
 * `BROADCAST(t1, t2)`.  One hint comment (slash-star-plus) may hold
 * several hints, separated by commas. */
typedef struct sl_ast_hint {
	const char *name; /* upper-cased hint name */
	int nargs;
	sl_ast_option *args;
	int line, col;
} sl_ast_hint;

/* Time units (INTERVAL qualifiers, EXTRACT, FLOOR/CEIL TO, TIMESTAMPADD). */
typedef enum sl_ast_unit {
	SL_AU_NONE = 0,
	SL_AU_YEAR, SL_AU_QUARTER, SL_AU_MONTH, SL_AU_WEEK, SL_AU_DAY,
	SL_AU_HOUR, SL_AU_MINUTE, SL_AU_SECOND, SL_AU_MILLISECOND,
	SL_AU_MICROSECOND, SL_AU_NANOSECOND,
	SL_AU_DOW, SL_AU_DOY, SL_AU_ISODOW, SL_AU_ISOYEAR, SL_AU_EPOCH,
	SL_AU_DECADE, SL_AU_CENTURY, SL_AU_MILLENNIUM
} sl_ast_unit;

/* Upper-case name of a unit ("HOUR"), "" for SL_AU_NONE. */
const char *sl_ast_unit_name(sl_ast_unit u);

/* ------------------------------------------------------------------ */
/* Types                                                               */

typedef enum sl_ast_type_kind {
	SL_ATY_SQL = 0,  /* `sql` holds the type (ROW: sql.row in the arena) */
	SL_ATY_ARRAY,    /* ARRAY<elem> of a non-SQL elem (else SL_ATY_SQL): binder refuses */
	SL_ATY_MULTISET, /* MULTISET<elem>: binder refuses */
	SL_ATY_MAP,      /* MAP<key, value> of non-SQL types (else SL_ATY_SQL): binder refuses */
	SL_ATY_ROW       /* ROW with a field that is not SL_ATY_SQL: fields */
} sl_ast_type_kind;

struct sl_ast_type {
	sl_ast_type_kind kind;
	sl_type sql;        /* SL_ATY_SQL; notnull set from NOT NULL */
	uint8_t notnull;    /* declared NOT NULL (all kinds) */
	sl_ast_type *elem;  /* ARRAY, MULTISET elements; MAP key */
	sl_ast_type *value; /* MAP values */
	int nfields;        /* SL_ATY_ROW (also filled for SQL ROW types) */
	sl_ast_ident *field_names;
	sl_ast_type **field_types;
	int line, col;
};

/* ------------------------------------------------------------------ */
/* Expressions                                                         */

typedef enum sl_ast_expr_kind {
	SL_AX_LITERAL = 1, /* lit */
	SL_AX_COLUMN,      /* name: a, t.a, t.r.f */
	SL_AX_STAR,        /* `*` (name.n == 0) or `t.*` (name = qualifier) */
	SL_AX_UNARY,       /* op in {NEG, NOT}, a */
	SL_AX_BINARY,      /* op, a, b */
	SL_AX_IS,          /* a IS [NOT] NULL|TRUE|FALSE|UNKNOWN, a IS [NOT] DISTINCT FROM b */
	SL_AX_BETWEEN,     /* a [NOT] BETWEEN [SYMMETRIC] b AND c */
	SL_AX_IN_LIST,     /* a [NOT] IN (list) */
	SL_AX_IN_QUERY,    /* a [NOT] IN (query) */
	SL_AX_LIKE,        /* a [NOT] LIKE|SIMILAR TO b [ESCAPE c] */
	SL_AX_CASE,        /* CASE [a] WHEN .. THEN .. [ELSE c] END */
	SL_AX_CAST,        /* CAST / TRY_CAST (a AS type) */
	SL_AX_CALL,        /* call: every function, incl. normalized syntaxes */
	SL_AX_EXISTS,      /* EXISTS (query) */
	SL_AX_SUBQUERY,    /* scalar subquery (query) */
	SL_AX_KEYWORD,     /* a bare keyword argument: time unit, TRIM side */
	SL_AX_FIELD,       /* a.field on a non-name expression */
	SL_AX_TABLE_ARG,   /* TABLE t [PARTITION BY k, ..] (table function arg) */
	SL_AX_DESCRIPTOR   /* DESCRIPTOR(c1, c2) (table function arg) */
} sl_ast_expr_kind;

typedef enum sl_ast_op {
	SL_AOP_NONE = 0,
	SL_AOP_OR, SL_AOP_AND, SL_AOP_NOT,
	SL_AOP_EQ, SL_AOP_NE, SL_AOP_LT, SL_AOP_LE, SL_AOP_GT, SL_AOP_GE,
	SL_AOP_ADD, SL_AOP_SUB, SL_AOP_MUL, SL_AOP_DIV, SL_AOP_MOD,
	SL_AOP_CONCAT, /* || */
	SL_AOP_NEG
} sl_ast_op;

/* SQL spelling of an operator ("+", "AND", "<>", "NEG"). */
const char *sl_ast_op_name(sl_ast_op op);

typedef enum sl_ast_lit_kind {
	SL_AL_NULL = 1,
	SL_AL_BOOL,       /* text "TRUE" / "FALSE", bval */
	SL_AL_INTEGER,    /* digits only: "42" */
	SL_AL_DECIMAL,    /* digits with a point: "1.50", ".5" */
	SL_AL_APPROX,     /* with an exponent: "1e3", "2.5E-2" */
	SL_AL_STRING,     /* text = content with '' unescaped */
	SL_AL_BINARY,     /* X'0A1B': text = the hex digits */
	SL_AL_DATE,       /* DATE '2020-01-01': text = the string */
	SL_AL_TIME,       /* TIME '12:00:00' */
	SL_AL_TIMESTAMP,  /* TIMESTAMP '2020-01-01 00:00:00' */
	SL_AL_TIMESTAMP_LTZ, /* TIMESTAMP WITH LOCAL TIME ZONE '...' */
	SL_AL_INTERVAL    /* INTERVAL 'text' unit [TO unit2] */
} sl_ast_lit_kind;

typedef struct sl_ast_lit {
	sl_ast_lit_kind kind;
	const char *text;   /* see sl_ast_lit_kind; never NULL */
	uint8_t bval;       /* SL_AL_BOOL */
	sl_ast_unit unit;   /* SL_AL_INTERVAL: leading unit */
	sl_ast_unit unit2;  /* SL_AL_INTERVAL: `TO unit2`, or SL_AU_NONE */
} sl_ast_lit;

typedef enum sl_ast_is_kind {
	SL_AIS_NULL = 1, SL_AIS_TRUE, SL_AIS_FALSE, SL_AIS_UNKNOWN, SL_AIS_DISTINCT,
	SL_AIS_JSON       /* a IS [NOT] JSON b: b a KEYWORD VALUE|SCALAR|ARRAY|OBJECT */
} sl_ast_is_kind;

typedef struct sl_ast_order {
	sl_ast_expr *expr;
	uint8_t desc;        /* DESC */
	int8_t nulls_first;  /* -1 unspecified, 0 NULLS LAST, 1 NULLS FIRST */
	int line, col;
} sl_ast_order;

typedef enum sl_ast_bound_kind {
	SL_AB_NONE = 0,
	SL_AB_UNBOUNDED_PRECEDING,
	SL_AB_PRECEDING,   /* expr PRECEDING */
	SL_AB_CURRENT_ROW,
	SL_AB_FOLLOWING,   /* expr FOLLOWING */
	SL_AB_UNBOUNDED_FOLLOWING
} sl_ast_bound_kind;

typedef struct sl_ast_bound {
	sl_ast_bound_kind kind;
	sl_ast_expr *expr; /* PRECEDING / FOLLOWING offset */
} sl_ast_bound;

/* OVER ( [PARTITION BY ..] [ORDER BY ..] [ROWS|RANGE frame] ) or OVER w. */
typedef struct sl_ast_window {
	const sl_ast_ident *ref; /* OVER w (named window), else NULL */
	int npartition;
	sl_ast_expr **partition;
	int norder;
	sl_ast_order *order;
	uint8_t frame;           /* 0 none, 'R' ROWS, 'G' RANGE */
	sl_ast_bound start;      /* BETWEEN start AND end, or `start` alone */
	sl_ast_bound end;        /* SL_AB_NONE when the short form was used */
	int line, col;
} sl_ast_window;

struct sl_ast_expr {
	sl_ast_expr_kind kind;
	int line, col;
	int height;         /* 1 + the largest child's height (parse_limits.c) */
	union {
		sl_ast_lit lit;                 /* LITERAL */
		sl_ast_name name;               /* COLUMN, STAR */
		struct {                        /* UNARY, BINARY */
			sl_ast_op op;
			sl_ast_expr *a, *b;
		} op;
		struct {                        /* IS */
			sl_ast_is_kind what;
			uint8_t negated;
			sl_ast_expr *a, *b;     /* b: DISTINCT FROM operand */
		} is;
		struct {                        /* BETWEEN */
			uint8_t negated, symmetric;
			sl_ast_expr *a, *lo, *hi;
		} between;
		struct {                        /* IN_LIST, IN_QUERY */
			uint8_t negated;
			sl_ast_expr *a;
			int nlist;
			sl_ast_expr **list;     /* IN_LIST */
			sl_ast_query *query;    /* IN_QUERY */
		} in;
		struct {                        /* LIKE */
			uint8_t negated, similar;
			sl_ast_expr *a, *pattern, *escape;
		} like;
		struct {                        /* CASE */
			sl_ast_expr *operand;   /* simple CASE, else NULL */
			int nwhen;
			sl_ast_expr **when, **then;
			sl_ast_expr *else_;     /* NULL when absent */
		} case_;
		struct {                        /* CAST */
			uint8_t try_;           /* TRY_CAST */
			sl_ast_expr *a;
			sl_ast_type *type;
		} cast;
		struct {                        /* CALL */
			sl_ast_name name;       /* as written (may be qualified) */
			const char *fname;      /* last part, upper-cased, normalized */
			int nargs;
			sl_ast_expr **args;
			const char **argnames;  /* NULL, or nargs entries (NULL = positional) */
			uint8_t distinct;       /* f(DISTINCT ..) */
			uint8_t star;           /* COUNT(*): nargs == 0 */
			uint8_t noparen;        /* CURRENT_TIMESTAMP etc. */
			sl_ast_expr *filter;    /* FILTER (WHERE cond) */
			sl_ast_window *over;    /* OVER (...) */
		} call;
		sl_ast_query *query;            /* EXISTS, SUBQUERY */
		struct {                        /* KEYWORD */
			const char *word;       /* upper-case: "HOUR", "BOTH" */
			sl_ast_unit unit;       /* time unit, or SL_AU_NONE */
		} kw;
		struct {                        /* FIELD */
			sl_ast_expr *a;
			sl_ast_ident field;
		} field;
		struct {                        /* TABLE_ARG */
			sl_ast_name table;
			int npartition;
			sl_ast_expr **partition; /* PARTITION BY keys */
		} table_arg;
		struct {                        /* DESCRIPTOR */
			int ncols;
			sl_ast_ident *cols;
		} descriptor;
	} u;
};

/* ------------------------------------------------------------------ */
/* Queries                                                             */

typedef enum sl_ast_join_kind {
	SL_AJ_INNER = 1, SL_AJ_LEFT, SL_AJ_RIGHT, SL_AJ_FULL,
	SL_AJ_CROSS,     /* CROSS JOIN */
	SL_AJ_COMMA      /* FROM a, b */
} sl_ast_join_kind;

typedef enum sl_ast_from_kind {
	SL_AF_TABLE = 1, /* a named table or view */
	SL_AF_SUBQUERY,  /* (query) [AS] alias */
	SL_AF_TABLE_FN,  /* TABLE(f(..)), LATERAL TABLE(f(..)), UNNEST(..) */
	SL_AF_JOIN,
	SL_AF_MATCH      /* input MATCH_RECOGNIZE (..) (plan_match.c) */
} sl_ast_from_kind;

/* One PATTERN term: a variable with its quantifier ({1,1} when none). */
typedef struct sl_ast_match_term {
	sl_ast_ident var;
	int min, max;       /* max -1: unbounded */
	uint8_t reluctant;  /* *?, +?, ??, {..}? */
	int line, col;
} sl_ast_match_term;

typedef enum sl_ast_match_skip {
	SL_AMS_PAST_LAST = 0, /* AFTER MATCH SKIP PAST LAST ROW */
	SL_AMS_NEXT_ROW,      /* SKIP TO NEXT ROW (the default, as Flink's) */
	SL_AMS_TO_FIRST,      /* SKIP TO FIRST var */
	SL_AMS_TO_LAST        /* SKIP TO LAST var, SKIP TO var */
} sl_ast_match_skip;

/* The MATCH_RECOGNIZE clause (Flink's subset, docs/match_recognize.md). */
typedef struct sl_ast_match {
	sl_ast_from *input;           /* the table or subquery it reads */
	int npartition;
	sl_ast_expr **partition;      /* PARTITION BY */
	int norder;
	sl_ast_order *order;          /* ORDER BY */
	int nmeasures;
	sl_ast_expr **measures;       /* MEASURES expr AS name */
	sl_ast_ident *measure_names;
	uint8_t all_rows;             /* ALL ROWS PER MATCH (refused by the planner) */
	int all_rows_line, all_rows_col;
	sl_ast_match_skip skip;
	sl_ast_ident skip_var;        /* SKIP TO FIRST / LAST var */
	int nterms;
	sl_ast_match_term *terms;     /* PATTERN (t1 t2 ..) */
	sl_ast_expr *within;          /* WITHIN INTERVAL .., or NULL */
	int ndefines;
	sl_ast_ident *define_vars;    /* DEFINE var AS cond */
	sl_ast_expr **defines;
	int line, col;                /* of MATCH_RECOGNIZE */
} sl_ast_match;

struct sl_ast_from {
	sl_ast_from_kind kind;
	int line, col;
	const sl_ast_ident *alias;  /* [AS] alias, NULL when none */
	int ncol_aliases;           /* AS alias(c1, c2) */
	sl_ast_ident *col_aliases;
	union {
		struct {                    /* TABLE */
			sl_ast_name name;
			int nhints;
			sl_ast_hint *hints;     /* hint comment after the name */
			sl_ast_expr *as_of;     /* FOR SYSTEM_TIME AS OF expr */
		} table;
		struct {                    /* SUBQUERY */
			sl_ast_query *query;
			uint8_t lateral;
		} sub;
		struct {                    /* TABLE_FN */
			sl_ast_expr *call;      /* an SL_AX_CALL */
			uint8_t lateral;        /* LATERAL TABLE(..) */
			uint8_t unnest;         /* UNNEST(..) */
			uint8_t ordinality;     /* UNNEST(..) WITH ORDINALITY */
		} fn;
		struct {                    /* JOIN */
			sl_ast_join_kind type;
			sl_ast_from *left, *right;
			sl_ast_expr *on;        /* ON cond, else NULL */
			int nusing;             /* USING (c1, c2) */
			sl_ast_ident *using_;
			uint8_t natural;        /* NATURAL ... JOIN: USING the common
			                         * columns (plan_join.c) */
		} join;
		sl_ast_match *match;        /* MATCH */
	} u;
};

typedef struct sl_ast_select_item {
	sl_ast_expr *expr;          /* may be an SL_AX_STAR */
	const sl_ast_ident *alias;  /* NULL when none */
	int line, col;
} sl_ast_select_item;

typedef enum sl_ast_on_late {
	SL_LATE_UNSET = 0, /* no ON LATE clause */
	SL_LATE_DROP,      /* ON LATE DROP */
	SL_LATE_INSERT     /* ON LATE INSERT INTO table */
} sl_ast_on_late;

typedef struct sl_ast_select {
	int line, col;
	uint8_t distinct;            /* SELECT DISTINCT (ALL = 0) */
	int nhints;
	sl_ast_hint *hints;          /* hint comment after SELECT */
	int nitems;
	sl_ast_select_item *items;
	sl_ast_from *from;           /* NULL for SELECT without FROM */
	sl_ast_expr *where;
	int ngroup;
	sl_ast_expr **group;         /* GROUP BY expressions */
	sl_ast_expr *having;
	/* sluice late-data extension clauses */
	sl_ast_expr *allowed_lateness;  /* ALLOWED LATENESS expr, or NULL */
	int lateness_line, lateness_col;
	sl_ast_on_late on_late;
	sl_ast_name late_table;         /* ON LATE INSERT INTO table */
	int on_late_line, on_late_col;
	/* WINDOW w AS (...) named windows */
	int nwindows;
	sl_ast_ident *window_names;
	sl_ast_window **windows;
} sl_ast_select;

typedef struct sl_ast_cte {
	sl_ast_ident name;
	int ncols;                  /* WITH a(c1, c2) AS (...) */
	sl_ast_ident *cols;
	sl_ast_query *query;
} sl_ast_cte;

typedef enum sl_ast_query_kind {
	SL_AQ_SELECT = 1,
	SL_AQ_SETOP,     /* UNION / INTERSECT / EXCEPT */
	SL_AQ_VALUES     /* VALUES (..), (..) */
} sl_ast_query_kind;

typedef enum sl_ast_setop {
	SL_SET_UNION = 1, SL_SET_INTERSECT, SL_SET_EXCEPT
} sl_ast_setop;

struct sl_ast_query {
	sl_ast_query_kind kind;
	int line, col;
	int nwith;                   /* WITH ctes (outermost query only) */
	sl_ast_cte *with;
	sl_ast_select *select;       /* SELECT */
	struct {                     /* SETOP */
		sl_ast_setop op;
		uint8_t all;
		sl_ast_query *left, *right;
	} setop;
	int nrows;                   /* VALUES: rows of nvalues expressions */
	int nvalues;
	sl_ast_expr ***rows;
	/* apply to the whole query (after set operations) */
	int norder;
	sl_ast_order *order;
	sl_ast_expr *limit;          /* LIMIT n / FETCH FIRST n ROWS ONLY */
	sl_ast_expr *offset;
};

/* ------------------------------------------------------------------ */
/* Statements                                                          */

typedef enum sl_ast_col_kind {
	SL_ACOL_PHYSICAL = 1,  /* name type */
	SL_ACOL_COMPUTED,      /* name AS expr */
	SL_ACOL_METADATA       /* name type METADATA [FROM 'key'] [VIRTUAL] */
} sl_ast_col_kind;

typedef struct sl_ast_column {
	sl_ast_col_kind kind;
	sl_ast_ident name;
	sl_ast_type *type;          /* PHYSICAL, METADATA */
	sl_ast_expr *expr;          /* COMPUTED */
	const char *metadata_key;   /* METADATA FROM 'key', else NULL */
	uint8_t is_virtual;         /* METADATA ... VIRTUAL */
	uint8_t primary_key;        /* inline `PRIMARY KEY NOT ENFORCED` */
	const char *comment;        /* COMMENT '...', else NULL */
	int line, col;
	/* ALTER TABLE ADD / MODIFY: FIRST, or AFTER column (name NULL: neither) */
	uint8_t pos_first;
	sl_ast_ident pos_after;
} sl_ast_column;

typedef struct sl_ast_watermark {
	sl_ast_name column;          /* WATERMARK FOR column */
	sl_ast_expr *expr;           /* AS expr */
	int line, col;
} sl_ast_watermark;

/* The LIKE clause of CREATE TABLE: a feature of the source table and
 * how it merges into the new one (Flink's SqlTableLike; plan/catalog_like.c). */
typedef enum {
	SL_LIKE_ALL, SL_LIKE_CONSTRAINTS, SL_LIKE_GENERATED, SL_LIKE_METADATA,
	SL_LIKE_OPTIONS, SL_LIKE_PARTITIONS, SL_LIKE_WATERMARKS, SL_LIKE_NFEATURES
} sl_like_feature;
typedef enum {
	SL_LIKE_UNSET, SL_LIKE_INCLUDING, SL_LIKE_EXCLUDING, SL_LIKE_OVERWRITING
} sl_like_strategy;

typedef struct sl_ast_create_table {
	sl_ast_name name;
	uint8_t if_not_exists, temporary;
	int ncols;
	sl_ast_column *cols;
	int nwatermarks;
	sl_ast_watermark *watermarks;
	int npk;                     /* PRIMARY KEY (..) NOT ENFORCED */
	sl_ast_ident *pk;
	const char *pk_constraint;   /* CONSTRAINT name, else NULL */
	uint8_t pk_enforced;         /* 1 when NOT ENFORCED was missing */
	int pk_line, pk_col;
	const char *comment;
	int npartition;              /* PARTITIONED BY (..) */
	sl_ast_ident *partition;
	int noptions;                /* WITH ('k' = 'v', ..) */
	sl_ast_option *options;
	sl_ast_query *as_query;      /* CREATE TABLE .. AS query, else NULL */
	sl_ast_name like;            /* LIKE source_table (like.n == 0: none) */
	uint8_t like_opt[SL_LIKE_NFEATURES]; /* sl_like_strategy per feature, as written */
	int like_line, like_col;     /* of the LIKE keyword */
} sl_ast_create_table;

typedef struct sl_ast_create_view {
	sl_ast_name name;
	uint8_t if_not_exists, temporary;
	int ncols;
	sl_ast_ident *cols;
	const char *comment;
	sl_ast_query *query;
	const char *query_text;     /* the query as written (ALTER VIEW RENAME) */
} sl_ast_create_view;

typedef struct sl_ast_drop {
	sl_ast_name name;
	uint8_t if_exists, temporary;
} sl_ast_drop;

typedef struct sl_ast_insert {
	sl_ast_name table;
	int nhints;
	sl_ast_hint *hints;          /* hint comment after the table */
	int ncols;
	sl_ast_ident *cols;          /* INSERT INTO t (a, b) */
	sl_ast_query *query;
} sl_ast_insert;

/* SHOW ... / DESCRIBE (parse_show.c). */
typedef enum sl_ast_show_what {
	SL_SHOW_TABLES = 1,     /* SHOW TABLES [[NOT] LIKE 'p'] */
	SL_SHOW_VIEWS,          /* SHOW VIEWS */
	SL_SHOW_FUNCTIONS,      /* SHOW [USER] FUNCTIONS [[NOT] LIKE 'p'] (user: `user`) */
	SL_SHOW_CREATE_TABLE,   /* SHOW CREATE TABLE name */
	SL_SHOW_CREATE_VIEW,    /* SHOW CREATE VIEW name */
	SL_SHOW_COLUMNS,        /* SHOW COLUMNS FROM|IN name [[NOT] LIKE 'p'], DESCRIBE name */
	SL_SHOW_CATALOGS,       /* SHOW CATALOGS */
	SL_SHOW_DATABASES,      /* SHOW DATABASES */
	SL_SHOW_CURRENT_CATALOG,
	SL_SHOW_CURRENT_DATABASE,
	SL_SHOW_JARS,           /* SHOW JARS */
	SL_SHOW_WATERMARKS        /* SHOW WATERMARKS: the running job's (sluice) */
} sl_ast_show_what;

typedef struct sl_ast_show {
	sl_ast_show_what what;
	uint8_t user;            /* SHOW USER FUNCTIONS */
	uint8_t describe;        /* written DESCRIBE / DESC */
	uint8_t not_like;        /* NOT LIKE */
	uint8_t ilike;           /* ILIKE (case-insensitive) */
	const char *like;        /* LIKE pattern, or NULL */
	sl_ast_name name;        /* table / view (n = 0 when none) */
} sl_ast_show;

/* CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'symbol'
 * [LANGUAGE lang] [USING JAR 'path'] (parse_show.c). */
typedef struct sl_ast_create_function {
	sl_ast_name name;
	uint8_t temporary, system, if_not_exists;
	const char *symbol;      /* AS '...' */
	const char *language;    /* upper-cased LANGUAGE word, or NULL */
	int lang_line, lang_col;
	const char *path;        /* USING JAR '...', or NULL */
	int nusing;              /* number of USING resources */
} sl_ast_create_function;

typedef struct sl_ast_drop_function {
	sl_ast_name name;
	uint8_t temporary, system, if_exists;
} sl_ast_drop_function;

typedef enum sl_ast_stmt_kind {
	SL_AS_CREATE_TABLE = 1,
	SL_AS_CREATE_VIEW,
	SL_AS_DROP_TABLE,
	SL_AS_DROP_VIEW,
	SL_AS_INSERT,
	SL_AS_STATEMENT_SET,  /* EXECUTE STATEMENT SET BEGIN ..; END */
	SL_AS_SET,            /* SET 'k' = 'v'; SET alone lists (option NULL) */
	SL_AS_RESET,          /* RESET ['k'] */
	SL_AS_EXPLAIN,
	SL_AS_QUERY,
	SL_AS_SHOW,           /* SHOW ..., DESCRIBE */
	SL_AS_CREATE_FUNCTION,
	SL_AS_DROP_FUNCTION,
	SL_AS_ADD_JAR,        /* ADD JAR 'path' */
	SL_AS_REMOVE_JAR,     /* REMOVE JAR 'path' */
	SL_AS_ALTER_TABLE,    /* ALTER TABLE (parse_alter.c) */
	SL_AS_ALTER_VIEW      /* ALTER VIEW v RENAME TO / AS query */
} sl_ast_stmt_kind;

/* ALTER TABLE / ALTER VIEW (parse_alter.c; plan/catalog_alter.c). */
typedef enum sl_alter_kind {
	SL_ALTER_ADD = 1,      /* ADD element | (elements): columns, PRIMARY KEY, WATERMARK */
	SL_ALTER_MODIFY,       /* MODIFY element | (elements) */
	SL_ALTER_DROP,         /* DROP col | (cols) | PRIMARY KEY | CONSTRAINT c | WATERMARK */
	SL_ALTER_RENAME_COL,   /* RENAME col TO col */
	SL_ALTER_RENAME,       /* RENAME TO name (tables and views) */
	SL_ALTER_SET,          /* SET ('k' = 'v', ..) */
	SL_ALTER_RESET,        /* RESET ('k', ..) */
	SL_ALTER_AS            /* ALTER VIEW v AS query */
} sl_alter_kind;

typedef struct sl_ast_alter {
	sl_ast_name name;
	uint8_t if_exists;
	sl_alter_kind kind;
	sl_ast_create_table elems;   /* ADD / MODIFY: columns (with pos_*), watermarks,
	                              * PRIMARY KEY, as in CREATE TABLE */
	int ndrop;                   /* DROP columns */
	sl_ast_ident *drop;
	uint8_t drop_pk, drop_wm;    /* DROP PRIMARY KEY / DROP WATERMARK */
	const char *drop_constraint; /* DROP CONSTRAINT name */
	sl_ast_ident old_col, new_col; /* RENAME old TO new */
	sl_ast_name new_name;        /* RENAME TO */
	int noptions;                /* SET: 'k' = 'v'; RESET: keys (value NULL) */
	sl_ast_option *options;
	sl_ast_query *query;         /* ALTER VIEW AS */
	const char *query_text;      /* its text (SHOW CREATE VIEW) */
	int line, col;               /* of the operation's first word */
} sl_ast_alter;

struct sl_ast_stmt {
	sl_ast_stmt_kind kind;
	int line, col;
	const char *text;     /* the statement's source text, arena copy */
	size_t offset, len;   /* its byte span in the script */
	union {
		sl_ast_create_table create_table;
		sl_ast_create_view create_view;
		sl_ast_drop drop;             /* DROP_TABLE, DROP_VIEW */
		sl_ast_insert insert;
		struct {                      /* STATEMENT_SET */
			int nstmts;
			sl_ast_stmt **stmts;  /* INSERT statements */
		} set_block;
		struct {                      /* SET, RESET */
			const sl_ast_option *option; /* NULL: SET / RESET of all */
		} set;
		struct {                      /* EXPLAIN */
			sl_ast_stmt *stmt;    /* NULL for EXPLAIN PENDING */
			int pending;          /* EXPLAIN PENDING: the running job (sluice) */
			int ndetails;         /* EXPLAIN CHANGELOG_MODE, .. */
			const char **details;
		} explain;
		sl_ast_query *query;          /* QUERY */
		sl_ast_show show;             /* SHOW */
		sl_ast_create_function create_function;
		sl_ast_alter alter;           /* ALTER_TABLE, ALTER_VIEW */
		sl_ast_drop_function drop_function;
		const char *jar_path;         /* ADD_JAR, REMOVE_JAR */
	} u;
};

typedef struct sl_ast_script {
	int nstmts;
	sl_ast_stmt **stmts;
} sl_ast_script;

/*
 * Prints a statement / expression to b in a compact, deterministic,
 * parenthesised form (used by tests and debug output; the format is not a
 * stable interface).  Returns 0 or SL_ENOMEM.
 */
int sl_ast_print_stmt(struct sl_buf *b, const sl_ast_stmt *s);
int sl_ast_print_expr(struct sl_buf *b, const sl_ast_expr *e);

#endif
