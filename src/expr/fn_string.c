/*
 * fn_string.c - (being written) kernels for the string functions.
 */
#include "expr_int.h"
#include "base/timeutil.h"

/* Picks kernels for the string functions; SL_ENOTSUP for other functions. */
int sl__bind_string(sl_prog *p, sl_step *st, sl_err *err)
{
	return SL_ENOTSUP;
}
