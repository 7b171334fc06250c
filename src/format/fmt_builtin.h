/*
 * fmt_builtin.h - the method tables of the built-in formats, each defined
 * in its fmt_*.c file and listed in fmt_registry.c's table (the only
 * reader: everything else finds a format by name through sl_format_find).
 * Internal to src/format.
 */
#ifndef SL_FMT_BUILTIN_H
#define SL_FMT_BUILTIN_H

#include "format.h"

extern const sl_format_vtab sl__fmt_json;          /* fmt_json.c */
extern const sl_format_vtab sl__fmt_csv;           /* fmt_csv.c */
extern const sl_format_vtab sl__fmt_debezium_json; /* fmt_debezium_json.c */
extern const sl_format_vtab sl__fmt_canal_json;    /* fmt_canal_json.c */
extern const sl_format_vtab sl__fmt_maxwell_json;  /* fmt_maxwell_json.c */
extern const sl_format_vtab sl__fmt_parquet;       /* fmt_parquet.c */

#endif
