/*
 * opts.c - string options (see opts.h).
 */
#include "opts.h"
#include "sluice.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sl_opts_init(sl_opts *o, sl_arena *a)
{
	o->n = o->cap = 0;
	o->v = NULL;
	o->arena = a;
}

static sl_opt *find(const sl_opts *o, const char *key)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->v[i].key, key) == 0)
			return &o->v[i];
	return NULL;
}

int sl_opts_set(sl_opts *o, const char *key, const char *value)
{
	sl_opt *p = find(o, key);
	char *v = sl_arena_strdup(o->arena, value);
	if (!v)
		return SL_ENOMEM;
	if (p) {
		p->value = v;
		return 0;
	}
	if (o->n == o->cap) {
		int nc = o->cap ? o->cap * 2 : 8;
		sl_opt *nv = sl_arena_alloc(o->arena, sizeof(*nv) * (size_t)nc);
		if (!nv)
			return SL_ENOMEM;
		if (o->n)
			memcpy(nv, o->v, sizeof(*nv) * (size_t)o->n);
		o->v = nv;
		o->cap = nc;
	}
	char *k = sl_arena_strdup(o->arena, key);
	if (!k)
		return SL_ENOMEM;
	o->v[o->n].key = k;
	o->v[o->n].value = v;
	o->v[o->n].used = 0;
	o->n++;
	return 0;
}

int sl_opts_merge(sl_opts *o, const sl_opts *src)
{
	for (int i = 0; i < src->n; i++) {
		int rc = sl_opts_set(o, src->v[i].key, src->v[i].value);
		if (rc)
			return rc;
	}
	return 0;
}

const char *sl_opts_get(const sl_opts *o, const char *key)
{
	sl_opt *p = find(o, key);
	if (!p)
		return NULL;
	/* relaxed atomic: the instances of a parallel job's connector may be
	 * configured on several threads from one table's options */
	if (!__atomic_load_n(&p->used, __ATOMIC_RELAXED))
		__atomic_store_n(&p->used, 1, __ATOMIC_RELAXED);
	return p->value;
}

const char *sl_opts_get2(const sl_opts *o, const char *key, const char *alias)
{
	const char *v = sl_opts_get(o, key);
	if (!v && alias)
		v = sl_opts_get(o, alias);
	return v;
}

int sl_opts_int(const sl_opts *o, const char *key, int64_t def, int64_t *out, sl_err *err)
{
	const char *v = sl_opts_get(o, key);
	if (!v) {
		*out = def;
		return 0;
	}
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	while (*end && isspace((unsigned char)*end))
		end++;
	if (errno || end == v || *end)
		return sl_err_set(err, SL_EINVAL, "option '%s': '%s' is not an integer", key, v);
	*out = x;
	return 0;
}

int sl_opts_bool(const sl_opts *o, const char *key, int def, int *out, sl_err *err)
{
	const char *v = sl_opts_get(o, key);
	if (!v) {
		*out = def;
		return 0;
	}
	if (strcasecmp(v, "true") == 0)
		*out = 1;
	else if (strcasecmp(v, "false") == 0)
		*out = 0;
	else
		return sl_err_set(err, SL_EINVAL, "option '%s': '%s' is not true or false", key, v);
	return 0;
}

int sl_parse_duration(const char *s, int64_t *out_us)
{
	while (isspace((unsigned char)*s))
		s++;
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || x < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	char unit[16];
	size_t n = 0;
	while (*end && !isspace((unsigned char)*end) && n < sizeof(unit) - 1)
		unit[n++] = (char)tolower((unsigned char)*end++);
	unit[n] = 0;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -1;
	double mult;
	if (!n || !strcmp(unit, "ms") || !strcmp(unit, "milli") || !strcmp(unit, "millis") ||
	    !strcmp(unit, "millisecond") || !strcmp(unit, "milliseconds"))
		mult = 1e3;
	else if (!strcmp(unit, "us") || !strcmp(unit, "micro") || !strcmp(unit, "micros") ||
	         !strcmp(unit, "microsecond") || !strcmp(unit, "microseconds"))
		mult = 1;
	else if (!strcmp(unit, "s") || !strcmp(unit, "sec") || !strcmp(unit, "secs") ||
	         !strcmp(unit, "second") || !strcmp(unit, "seconds"))
		mult = 1e6;
	else if (!strcmp(unit, "m") || !strcmp(unit, "min") || !strcmp(unit, "mins") ||
	         !strcmp(unit, "minute") || !strcmp(unit, "minutes"))
		mult = 60e6;
	else if (!strcmp(unit, "h") || !strcmp(unit, "hour") || !strcmp(unit, "hours"))
		mult = 3600e6;
	else if (!strcmp(unit, "d") || !strcmp(unit, "day") || !strcmp(unit, "days"))
		mult = 86400e6;
	else
		return -1;
	*out_us = (int64_t)(x * mult + 0.5);
	return 0;
}

int sl_opts_duration(const sl_opts *o, const char *key, int64_t def_us, int64_t *out_us,
                     sl_err *err)
{
	const char *v = sl_opts_get(o, key);
	if (!v) {
		*out_us = def_us;
		return 0;
	}
	if (sl_parse_duration(v, out_us))
		return sl_err_set(err, SL_EINVAL, "option '%s': '%s' is not a duration (e.g. '10 s')",
		                  key, v);
	return 0;
}

int sl_opts_size(const sl_opts *o, const char *key, int64_t def, int64_t *out, sl_err *err)
{
	const char *v = sl_opts_get(o, key);
	if (!v) {
		*out = def;
		return 0;
	}
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || x < 0)
		goto bad;
	while (isspace((unsigned char)*end))
		end++;
	double m = 1;
	if (!*end || !strcasecmp(end, "b") || !strcasecmp(end, "bytes"))
		m = 1;
	else if (!strcasecmp(end, "k") || !strcasecmp(end, "kb"))
		m = 1024;
	else if (!strcasecmp(end, "m") || !strcasecmp(end, "mb"))
		m = 1024.0 * 1024;
	else if (!strcasecmp(end, "g") || !strcasecmp(end, "gb"))
		m = 1024.0 * 1024 * 1024;
	else
		goto bad;
	*out = (int64_t)(x * m);
	return 0;
bad:
	return sl_err_set(err, SL_EINVAL, "option '%s': '%s' is not a size (e.g. '128 mb')", key, v);
}

const char *sl_opts_unused(const sl_opts *o)
{
	for (int i = 0; i < o->n; i++)
		if (!__atomic_load_n(&o->v[i].used, __ATOMIC_RELAXED))
			return o->v[i].key;
	return NULL;
}
