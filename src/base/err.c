/*
 * err.c - error messages with a place (see err.h).
 */
#include "err.h"
#include "sluice.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sl_err_clear(sl_err *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = 0;
	e->line = e->col = 0;
	e->row = 0;
	e->row_batch = NULL;
	e->in_line = 0;
	e->in_file[0] = 0;
}

static int vset(sl_err *e, int code, int line, int col, const char *fmt, va_list ap)
{
	if (!e || e->code)
		return code;
	e->code = code;
	e->line = line;
	e->col = col;
	e->in_line = 0;
	e->in_file[0] = 0;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int sl_err_set(sl_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

int sl_err_set_at(sl_err *e, int code, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(e, code, line, col, fmt, ap);
	va_end(ap);
	return code;
}

void sl_err_prefix(sl_err *e, const char *fmt, ...)
{
	if (!e || !e->code)
		return;
	char pre[SL_ERR_MAX], old[SL_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s: %s", pre, old);
}

void sl_err_prefix_at(sl_err *e, int line, int col)
{
	if (!e || !e->code)
		return;
	sl_err_prefix(e, "line %d, column %d", line, col);
	e->line = line;
	e->col = col;
}

void sl_err_input(sl_err *e, const char *file, int64_t line)
{
	if (!e || !e->code || e->in_line > 0 || line <= 0)
		return;
	e->in_line = line;
	snprintf(e->in_file, sizeof(e->in_file), "%s", file ? file : "");
}

void sl_err_append(sl_err *e, const char *fmt, ...)
{
	if (!e || !e->code)
		return;
	size_t n = strlen(e->msg);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg + n, sizeof(e->msg) - n, fmt, ap);
	va_end(ap);
}

const char *sl_err_name(int code)
{
	switch (code) {
	case SL_OK: return "ok";
	case SL_ENOMEM: return "out of memory";
	case SL_ESYNTAX: return "syntax error";
	case SL_EPLAN: return "planning error";
	case SL_EINPUT: return "bad input";
	case SL_EIO: return "I/O error";
	case SL_ERUNTIME: return "runtime error";
	case SL_EINVAL: return "invalid argument";
	case SL_ENOTSUP: return "not supported";
	case SL_EEOF: return "end of input";
	case SL_ESTATE: return "state error";
	default: return "error";
	}
}
