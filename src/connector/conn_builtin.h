/*
 * conn_builtin.h - the method tables of the built-in connectors, each
 * defined in its conn_*.c file and listed in conn_registry.c's tables
 * (the planner finds a connector by name through sl_source_find /
 * sl_sink_find; the filesystem connector's files also use its tables
 * directly).  Internal to src/connector.  (The engine's 'push' sink is not
 * one of them: src/api/engine_int.h declares it.)
 */
#ifndef SL_CONN_BUILTIN_H
#define SL_CONN_BUILTIN_H

#include "conn.h"

extern const sl_source_vtab sl_filesystem_source_vtab; /* conn_filesystem.c */
extern const sl_source_vtab sl_stdin_source_vtab;      /* conn_stdio.c */
extern const sl_source_vtab sl_datagen_source_vtab;    /* conn_datagen.c */
extern const sl_source_vtab sl_nexmark_source_vtab;    /* conn_nexmark.c */
extern const sl_source_vtab sl_kafka_source_vtab;      /* conn_kafka.c */
extern const sl_source_vtab sl_upsert_kafka_source_vtab; /* conn_kafka.c */
extern const sl_source_vtab sl_pgcdc_source_vtab;     /* conn_pgcdc.c */
extern const sl_source_vtab sl_jdbc_source_vtab;      /* conn_jdbc_lookup.c */

extern const sl_sink_vtab sl_filesystem_sink_vtab; /* conn_fs_sink.c */
extern const sl_sink_vtab sl_stdout_sink_vtab;     /* conn_stdio.c */
extern const sl_sink_vtab sl_print_sink_vtab;      /* conn_print.c */
extern const sl_sink_vtab sl_blackhole_sink_vtab;  /* conn_blackhole.c */
extern const sl_sink_vtab sl_kafka_sink_vtab;      /* conn_kafka_sink.c */
extern const sl_sink_vtab sl_upsert_kafka_sink_vtab; /* conn_kafka_sink.c */
extern const sl_sink_vtab sl_jdbc_sink_vtab;       /* conn_jdbc.c */
extern const sl_sink_vtab sl_iceberg_sink_vtab;    /* conn_iceberg.c */

#endif
