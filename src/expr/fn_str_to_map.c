/*
 * fn_str_to_map.c - STR_TO_MAP(text [, listDelimiter, keyValueDelimiter]):
 * the MAP<STRING, STRING> of the key=value pairs of a text (Flink 1.20's
 * SqlFunctionUtils.strToMap).
 *
 * As Flink: the text is split at listDelimiter (',' by default) as Java's
 * String.split(regex) does (no limit: trailing empty pieces dropped, a
 * zero-width match at the start gives no leading piece, no match at all
 * gives the whole text), then each piece at the first keyValueDelimiter
 * ('=' by default; String.split(regex, 2)): a piece without one is a key
 * whose value is NULL, "a=" has the empty value, "a=b=c" the value "b=c".
 * Both delimiters are Java regular expressions (libpcre2 here, fn_regex.c);
 * a one-character delimiter that is no regex metacharacter, or a
 * backslash and a non-alphanumeric character, is matched as text without
 * the regex engine (Java's own fast path, the same result).  A repeated
 * key keeps its last value.  An empty text gives {}; a NULL argument
 * gives NULL.
 *
 * Entry order: Flink builds a java.util.HashMap (new HashMap<>(number of
 * pieces)) and the map's entries are printed and iterated in that
 * HashMap's order, so sluice packs the entries in the same order: by
 * bucket, (h ^ h >>> 16) & (capacity - 1) with h Java's String.hashCode
 * of the key (over its UTF-16 code units) and the capacity HashMap's
 * (the power of two at least the piece count, doubled while the entries
 * exceed three quarters of it), and in insertion order within a bucket
 * (a repeated key keeps its first position).  Buckets that Java would turn
 * into trees (8 colliding keys in a table of 64 or more) are not modelled.
 *
 * Pieces, entries and the packed value live in buffers the step owns
 * (grown, never freed per row); the value is copied into the step's arena.
 */
#include "expr_int.h"
#include "data/javahash.h"
#include "data/packed.h"

#include <stdlib.h>
#include <string.h>

typedef struct piece {
	int64_t off, len;
} piece;

typedef struct entry {
	sl_str k, v;
	int vnull;
	uint32_t hash;   /* Java's String.hashCode of k */
	uint32_t bucket;
	int order;       /* first insertion */
} entry;

typedef struct stm_aux {
	void *rx[2];          /* list, key-value delimiter patterns (fn_regex.c) */
	piece *pieces;
	entry *ents, *tmp;
	size_t cap;           /* of pieces, ents and tmp */
	sl_buf buf;           /* the packed value */
} stm_aux;

static void aux_free(void *v)
{
	stm_aux *a = v;
	free(a->pieces);
	free(a->ents);
	free(a->tmp);
	sl_buf_deinit(&a->buf);
	free(a);
}

static int grow(stm_aux *a, size_t n)
{
	if (n <= a->cap)
		return 0;
	size_t c = a->cap ? a->cap * 2 : 16;
	while (c < n)
		c *= 2;
	piece *p = realloc(a->pieces, c * sizeof(*p));
	if (p)
		a->pieces = p;
	entry *e = realloc(a->ents, c * sizeof(*e));
	if (e)
		a->ents = e;
	entry *t = realloc(a->tmp, c * sizeof(*t));
	if (t)
		a->tmp = t;
	if (!p || !e || !t)
		return SL_ENOMEM;
	a->cap = c;
	return 0;
}

static int utf8_len(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

/* A delimiter matched as text (Java's String.split fast path): one
 * character that is not one of .$|()[{^?*+\ , or a backslash and an ASCII
 * character that is neither a digit nor a letter.  Sets *lit to it. */
static int literal_delim(sl_str d, sl_str *lit)
{
	if (d.len >= 1 && d.len == utf8_len((unsigned char)d.ptr[0]) &&
	    !((unsigned char)d.ptr[0] < 0x80 && strchr(".$|()[{^?*+\\", d.ptr[0]))) {
		*lit = d;
		return 1;
	}
	if (d.len == 2 && d.ptr[0] == '\\' && (unsigned char)d.ptr[1] < 0x80 &&
	    !(d.ptr[1] >= '0' && d.ptr[1] <= '9') && !(d.ptr[1] >= 'a' && d.ptr[1] <= 'z') &&
	    !(d.ptr[1] >= 'A' && d.ptr[1] <= 'Z')) {
		lit->ptr = d.ptr + 1;
		lit->len = 1;
		return 1;
	}
	return 0;
}

typedef struct splitter {
	int literal;
	sl_str lit;
	void *rx;
} splitter;

/* Sets up s for delimiter d (regex k of the step).  0, or a run-time
 * error for an invalid pattern. */
static int splitter_for(sl_xctx *x, const sl_step *st, stm_aux *a, int k, sl_str d, splitter *s)
{
	s->literal = literal_delim(d, &s->lit);
	if (s->literal)
		return 0;
	char msg[300];
	int rc = sl__rx_set(a->rx[k], d.ptr, (size_t)d.len, msg, sizeof(msg));
	if (rc == SL_ENOMEM)
		return sl_err_set(x->err, SL_ENOMEM, "out of memory compiling a regex");
	if (rc)
		return sl_err_set(x->err, SL_ERUNTIME, "STR_TO_MAP: %s", msg);
	s->rx = a->rx[k];
	return 0;
}

/* The first match of s in t at or after byte `from`: 1 with [*ms, *me). */
static int find(const splitter *s, sl_str t, int64_t from, int64_t *ms, int64_t *me)
{
	if (s->literal) {
		if (from > t.len)
			return 0;
		const char *p = memmem(t.ptr + from, (size_t)(t.len - from), s->lit.ptr, (size_t)s->lit.len);
		if (!p)
			return 0;
		*ms = p - t.ptr;
		*me = *ms + s->lit.len;
		return 1;
	}
	size_t a, b;
	int r = sl__rx_find(s->rx, t.ptr, (size_t)t.len, (size_t)from, &a, &b);
	if (r <= 0)
		return r;
	*ms = (int64_t)a;
	*me = (int64_t)b;
	return 1;
}

/* Java's String.split(regex, limit) of t into a->pieces (limit 0: no
 * limit, trailing empty pieces dropped; limit 2: at the first match).
 * Returns the piece count, or -1 on a matching error. */
static int64_t jsplit(stm_aux *a, const splitter *s, sl_str t, int limit)
{
	int64_t n = 0, index = 0, from = 0, ms, me;
	int matched = 0;
	while (!(limit > 0 && n == limit - 1)) {
		int r = find(s, t, from, &ms, &me);
		if (r < 0)
			return -1;
		if (!r)
			break;
		if (!(index == 0 && ms == 0 && me == 0)) { /* no leading piece for an empty match at 0 */
			if (grow(a, (size_t)n + 2))
				return -1;
			a->pieces[n].off = index;
			a->pieces[n++].len = ms - index;
			index = me;
			matched = 1;
		}
		if (me >= t.len && ms == me)
			break;
		from = me > ms ? me : me + utf8_len((unsigned char)t.ptr[me]); /* Java steps past an empty match */
	}
	if (!matched) {
		if (grow(a, 1))
			return -1;
		a->pieces[0].off = 0;
		a->pieces[0].len = t.len;
		return 1;
	}
	a->pieces[n].off = index;
	a->pieces[n++].len = t.len - index;
	if (limit == 0)
		while (n > 0 && a->pieces[n - 1].len == 0)
			n--;
	return n;
}

/* Java's String.hashCode of the key (data/javahash.h) */
static uint32_t java_hash(sl_str s)
{
	return sl_java_string_hash(s.ptr, s.len);
}

static int put_str(sl_buf *b, sl_str s, int null)
{
	uint8_t nul = (uint8_t)null;
	sl_col c = {.type = sl_type_make(SL_T_VARCHAR), .null = &nul, .v.str = &s};
	return sl_pack_value(b, &c, 0);
}

/* The entries of text t into a->ents in HashMap order; their count or -1. */
static int64_t entries(stm_aux *a, sl_str t, const splitter *ls, const splitter *kv)
{
	int64_t np = jsplit(a, ls, t, 0), n = 0;
	if (np < 0)
		return -1;
	/* kv splits reuse a->pieces: copy the list's pieces out first */
	if (grow(a, (size_t)np + 2))
		return -1;
	for (int64_t i = 0; i < np; i++) {
		a->tmp[i].k.ptr = t.ptr + a->pieces[i].off;
		a->tmp[i].k.len = a->pieces[i].len;
	}
	for (int64_t i = 0; i < np; i++) {
		sl_str p = a->tmp[i].k, k = p, v = {"", 0};
		int vnull = 1;
		int64_t m = jsplit(a, kv, p, 2);
		if (m < 0)
			return -1;
		if (m >= 2) {
			k.ptr = p.ptr + a->pieces[0].off;
			k.len = a->pieces[0].len;
			v.ptr = p.ptr + a->pieces[1].off;
			v.len = a->pieces[1].len;
			vnull = 0;
		}
		uint32_t h = java_hash(k);
		int64_t j = 0;
		while (j < n && !(a->ents[j].hash == h && a->ents[j].k.len == k.len &&
		                  !memcmp(a->ents[j].k.ptr, k.ptr, (size_t)k.len)))
			j++;
		if (j == n) {
			a->ents[n].k = k;
			a->ents[n].hash = h;
			a->ents[n].order = (int)n;
			n++;
		}
		a->ents[j].v = v;
		a->ents[j].vnull = vnull;
	}
	/* HashMap(np): capacity the power of two >= np (at least 1), doubled
	 * while the entries exceed (int)(capacity * 0.75) */
	uint64_t cap = 1;
	while (cap < (uint64_t)np)
		cap <<= 1;
	while ((uint64_t)n > cap * 3 / 4)
		cap <<= 1;
	for (int64_t i = 0; i < n; i++) {
		uint32_t h = a->ents[i].hash;
		a->ents[i].bucket = (h ^ (h >> 16)) & (uint32_t)(cap - 1);
	}
	/* stable insertion sort by bucket (maps are small) */
	for (int64_t i = 1; i < n; i++) {
		entry e = a->ents[i];
		int64_t j = i;
		while (j > 0 && a->ents[j - 1].bucket > e.bucket) {
			a->ents[j] = a->ents[j - 1];
			j--;
		}
		a->ents[j] = e;
	}
	return n;
}

static int k_str_to_map(sl_xctx *x, const sl_step *st)
{
	stm_aux *a = st->aux;
	sl_col *o = SL_X_OUT(x, st);
	const sl_col *tc = SL_X_ARG(x, st, 0);
	const sl_col *lc = st->nargs == 3 ? SL_X_ARG(x, st, 1) : NULL;
	const sl_col *kc = st->nargs == 3 ? SL_X_ARG(x, st, 2) : NULL;
	SL_FOR_ROWS(SL_X_SEL(x, st), i, {
		o->null[i] = tc->null[i] || (lc && (lc->null[i] || kc->null[i]));
		if (o->null[i])
			continue;
		sl_str t = tc->v.str[i], ld = {",", 1}, kd = {"=", 1};
		if (lc) {
			ld = lc->v.str[i];
			kd = kc->v.str[i];
		}
		splitter ls, ks;
		int rc = splitter_for(x, st, a, 0, ld, &ls);
		if (!rc)
			rc = splitter_for(x, st, a, 1, kd, &ks);
		if (rc)
			return rc;
		int64_t n = t.len ? entries(a, t, &ls, &ks) : 0;
		if (n < 0)
			return sl_err_set(x->err, SL_ERUNTIME, "STR_TO_MAP: out of memory or a regex "
			                  "matching error");
		if (sl_pack_begin(&a->buf))
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in STR_TO_MAP");
		for (int64_t j = 0; j < n; j++)
			if (put_str(&a->buf, a->ents[j].k, 0) ||
			    put_str(&a->buf, a->ents[j].v, a->ents[j].vnull))
				return sl_err_set(x->err, SL_ENOMEM, "out of memory in STR_TO_MAP");
		sl_pack_end(&a->buf, (uint32_t)n);
		if (sl_col_set_str_in(sl__x_arena(x, st), o, i, a->buf.p, (int64_t)a->buf.len))
			return sl_err_set(x->err, SL_ENOMEM, "out of memory in STR_TO_MAP");
	});
	return 0;
}

/* Picks the kernel of STR_TO_MAP; SL_ENOTSUP for other functions. */
int sl__bind_str_to_map(sl_prog *p, sl_step *st, sl_err *err)
{
	if (st->fn != SL_FN_STR_TO_MAP)
		return SL_ENOTSUP;
	stm_aux *a = calloc(1, sizeof(*a));
	if (!a || sl__prog_on_free(p, aux_free, a)) {
		free(a);
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	}
	sl_buf_init(&a->buf);
	if (!(a->rx[0] = sl__rx_new(p)) || !(a->rx[1] = sl__rx_new(p)))
		return sl_err_set(err, SL_ENOMEM, "out of memory");
	st->aux = a;
	st->k = k_str_to_map;
	return 0;
}
