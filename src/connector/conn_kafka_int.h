/*
 * conn_kafka_int.h - shared internals of the Kafka connectors' files:
 * conn_kafka_common.c (librdkafka properties, the key and value formats),
 * conn_kafka.c (the source of 'kafka' and 'upsert-kafka') and
 * conn_kafka_sink.c (their sink).  Internal to src/connector; the design
 * note is docs/kafka.md.
 */
#ifndef SL_CONN_KAFKA_INT_H
#define SL_CONN_KAFKA_INT_H

#include "conn_builtin.h"
#include "../base/buf.h"
#include "../format/format.h"

#include <librdkafka/rdkafka.h>

/* The 'properties.*' options of a table, without the prefix, copied out of
 * the planner's options (what open needs later). */
typedef struct sl_kafka_props {
	int n;
	char **key, **val;
} sl_kafka_props;

/*
 * Reads every 'properties.*' option of a (marking it used) into p, checks
 * each against librdkafka's configuration (a throwaway rd_kafka_conf_t: no
 * I/O, no thread), requires 'properties.bootstrap.servers' and leaves out
 * the keys sluice reads itself (skip, NULL-terminated, without the
 * prefix).  what is "source" or "sink".  0 or SL_EINVAL with err.
 */
int sl__kafka_props_read(sl_kafka_props *p, const sl_conn_args *a, const char *what,
                         const char *const *skip, sl_err *err);
/* A librdkafka configuration holding p, with logs and errors served on the
 * caller's thread (docs/kafka.md "Threads"); NULL with err. */
rd_kafka_conf_t *sl__kafka_conf(const sl_kafka_props *p, const char *what, const char *table,
                                sl_err *err);
/* The value of property key in p, or NULL. */
const char *sl__kafka_prop(const sl_kafka_props *p, const char *key);
void sl__kafka_props_free(sl_kafka_props *p);

/* 'topic': one name or a ';' list, each trimmed; *n names, malloc'd.
 * 0, or SL_EINVAL with err for an empty name. */
int sl__kafka_topics(const char *s, char ***names, int *n, const char *what, const char *table,
                     sl_err *err);
void sl__kafka_free_strv(char **v, int n);

/*
 * The key and value formats of a table (Flink's 'format', or 'key.format'
 * with 'key.fields' and 'value.format' with 'value.fields-include').  The
 * connector's fields are the table's physical columns, metadata columns
 * among them (meta[i] != NULL); the key fields are kcol[0..nkey), the value
 * fields vcol[0..nval) (indexes into the connector's fields).  Each side's
 * format options are the table's options under its prefix ('key.' /
 * 'value.') when declared with 'key.format' / 'value.format', unprefixed
 * with 'format'.  upsert: 'upsert-kafka' (key = the PRIMARY KEY, both
 * formats required).
 */
typedef struct sl_kafka_fmt {
	sl_arena arena;
	sl_opts kopts, vopts;     /* each side's options, prefix removed */
	int nkey, nval;
	int *kcol, *vcol;
	sl_field *kfields, *vfields;
	sl_decoder *kdec, *vdec;  /* source */
	sl_encoder *kenc, *venc;  /* sink */
	sl_col *kview, *vview;    /* scratch: each side's view of a batch */
} sl_kafka_fmt;

/* Sets up f for the source (sink = 0: decoders) or the sink (encoders).
 * 0 or a negative code with err. */
int sl__kafka_fmt_init(sl_kafka_fmt *f, const sl_conn_args *a, int upsert, int sink,
                       sl_err *err);
void sl__kafka_fmt_deinit(sl_kafka_fmt *f);

/* rd_kafka error text for messages ("Local: Broker transport failure"). */
#define SL_KERR(e) rd_kafka_err2str(e)

#endif
