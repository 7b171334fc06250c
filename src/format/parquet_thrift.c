/*
 * parquet_thrift.c - the Thrift compact protocol, as much of it as the
 * Parquet footer (FileMetaData) and page headers use: written by the
 * Parquet writer, read by the Parquet reader (docs/parquet.md).
 *
 * Encoding (Apache Thrift's compact protocol specification): integers are
 * zigzag ULEB128 varints; a field header is one byte (delta from the
 * previous field id << 4 | type) when the delta is 1..15, else the type
 * byte and the id as a zigzag varint; a bool field carries its value in
 * the type (1 true, 2 false); binary is a varint length and the bytes; a
 * list header is (size << 4 | element type) below 15 elements, else
 * 0xF0 | type and a varint size; a struct ends with a STOP byte (0) and
 * field ids restart from 0 inside each nested struct.
 *
 * The writer appends to an sl_buf and records a failure (out of memory,
 * nesting deeper than PQ_TDEPTH) in w->failed instead of returning codes
 * from every call.  The reader never reads past its end: every read checks
 * the bytes left and sets r->err, after which every read returns 0; the
 * skip of unknown fields is recursive with a depth limit, so hostile input
 * (the fuzz target) cannot overflow the stack.  No allocation.
 */
#include "parquet.h"

#include <string.h>

/* ---- writer --------------------------------------------------------------- */

static void put(pq_tw *w, const void *p, size_t n)
{
	if (!w->failed && sl_buf_append(w->b, p, n))
		w->failed = 1;
}

static void put_varint(pq_tw *w, uint64_t v)
{
	uint8_t tmp[10];
	int n = 0;
	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	put(w, tmp, (size_t)n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void field(pq_tw *w, int id, int type)
{
	int delta = id - w->last[w->depth];
	if (delta > 0 && delta <= 15) {
		uint8_t c = (uint8_t)(delta << 4 | type);
		put(w, &c, 1);
	} else {
		uint8_t c = (uint8_t)type;
		put(w, &c, 1);
		put_varint(w, zigzag(id));
	}
	w->last[w->depth] = (int16_t)id;
}

/* pq_tw_init: a writer appending to b, inside the outermost struct. */
void pq_tw_init(pq_tw *w, sl_buf *b)
{
	memset(w, 0, sizeof *w);
	w->b = b;
}

void pq_tw_i32(pq_tw *w, int id, int32_t v)
{
	field(w, id, TC_I32);
	put_varint(w, zigzag(v));
}

void pq_tw_i8(pq_tw *w, int id, int v)
{
	uint8_t c = (uint8_t)v;
	field(w, id, TC_BYTE);
	put(w, &c, 1);
}

void pq_tw_i64(pq_tw *w, int id, int64_t v)
{
	field(w, id, TC_I64);
	put_varint(w, zigzag(v));
}

void pq_tw_bool(pq_tw *w, int id, int v)
{
	field(w, id, v ? TC_TRUE : TC_FALSE);
}

void pq_tw_bin(pq_tw *w, int id, const void *p, size_t n)
{
	field(w, id, TC_BINARY);
	put_varint(w, n);
	put(w, p, n);
}

static void open_struct(pq_tw *w)
{
	if (w->depth + 1 >= PQ_TDEPTH) {
		w->failed = 1;
		return;
	}
	w->last[++w->depth] = 0;
}

void pq_tw_struct(pq_tw *w, int id)
{
	field(w, id, TC_STRUCT);
	open_struct(w);
}

void pq_tw_elem_struct(pq_tw *w)
{
	open_struct(w);
}

/* pq_tw_end: the STOP of the innermost open struct (the outermost too). */
void pq_tw_end(pq_tw *w)
{
	uint8_t c = TC_STOP;
	put(w, &c, 1);
	if (w->depth > 0)
		w->depth--;
}

void pq_tw_list(pq_tw *w, int id, int etype, int64_t n)
{
	field(w, id, TC_LIST);
	if (n < 15) {
		uint8_t c = (uint8_t)(n << 4 | etype);
		put(w, &c, 1);
	} else {
		uint8_t c = (uint8_t)(0xF0 | etype);
		put(w, &c, 1);
		put_varint(w, (uint64_t)n);
	}
}

void pq_tw_elem_i32(pq_tw *w, int32_t v)
{
	put_varint(w, zigzag(v));
}

void pq_tw_elem_bin(pq_tw *w, const void *p, size_t n)
{
	put_varint(w, n);
	put(w, p, n);
}

/* ---- reader --------------------------------------------------------------- */

static uint64_t get_varint(pq_tr *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->err || r->p >= r->e) {
			r->err = 1;
			return 0;
		}
		uint8_t c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->err = 1;
	return 0;
}

int64_t pq_tr_int(pq_tr *r)
{
	uint64_t u = get_varint(r);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int pq_tr_byte(pq_tr *r)
{
	if (r->err || r->p >= r->e) {
		r->err = 1;
		return 0;
	}
	return (int8_t)*r->p++;
}

int pq_tr_field(pq_tr *r, int16_t *last, int *type)
{
	if (r->err || r->p >= r->e) {
		r->err = 1;
		return 0;
	}
	uint8_t c = *r->p++;
	*type = c & 0x0f;
	if (*type == TC_STOP)
		return 0;
	int delta = c >> 4;
	int64_t id = delta ? *last + delta : pq_tr_int(r);
	if (r->err || id <= 0 || id > 32767) {
		r->err = 1;
		return 0;
	}
	*last = (int16_t)id;
	return (int)id;
}

const uint8_t *pq_tr_bin(pq_tr *r, size_t *n)
{
	uint64_t len = get_varint(r);
	if (r->err || len > (uint64_t)(r->e - r->p)) {
		r->err = 1;
		*n = 0;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += len;
	*n = (size_t)len;
	return p;
}

int64_t pq_tr_list(pq_tr *r, int *etype)
{
	if (r->err || r->p >= r->e) {
		r->err = 1;
		return -1;
	}
	uint8_t c = *r->p++;
	*etype = c & 0x0f;
	int64_t n = c >> 4;
	if (n == 15) {
		uint64_t u = get_varint(r);
		if (u > (uint64_t)(r->e - r->p)) /* every element takes a byte or more, but bools */
			r->err = 1;
		n = (int64_t)u;
	}
	return r->err ? -1 : n;
}

void pq_tr_skip(pq_tr *r, int type)
{
	int16_t last = 0;
	int et, t;
	if (r->err)
		return;
	switch (type) {
	case TC_TRUE: case TC_FALSE:
		return; /* a bool field's value is in its type */
	case TC_BYTE:
		(void)pq_tr_byte(r);
		return;
	case TC_I16: case TC_I32: case TC_I64:
		(void)get_varint(r);
		return;
	case TC_DOUBLE:
		if (r->e - r->p < 8)
			r->err = 1;
		else
			r->p += 8;
		return;
	case TC_BINARY: {
		size_t n;
		(void)pq_tr_bin(r, &n);
		return;
	}
	case TC_LIST: case TC_SET: {
		int64_t n = pq_tr_list(r, &et);
		if (++r->depth > PQ_TDEPTH)
			r->err = 1;
		for (int64_t i = 0; i < n && !r->err; i++) {
			if (et == TC_TRUE || et == TC_FALSE)
				(void)pq_tr_byte(r); /* list bools take a byte each */
			else
				pq_tr_skip(r, et);
		}
		r->depth--;
		return;
	}
	case TC_MAP: {
		uint64_t n = get_varint(r);
		if (n == 0)
			return;
		int kv = pq_tr_byte(r) & 0xff;
		if (++r->depth > PQ_TDEPTH || n > (uint64_t)(r->e - r->p))
			r->err = 1;
		for (uint64_t i = 0; i < n && !r->err; i++) {
			pq_tr_skip(r, kv >> 4);
			pq_tr_skip(r, kv & 0x0f);
		}
		r->depth--;
		return;
	}
	case TC_STRUCT:
		if (++r->depth > PQ_TDEPTH)
			r->err = 1;
		while (!r->err && pq_tr_field(r, &last, &t))
			pq_tr_skip(r, t);
		r->depth--;
		return;
	default:
		r->err = 1;
	}
}

int64_t pq_tr_int_in(pq_tr *r, int type, int64_t lo, int64_t hi)
{
	int64_t v;
	if (type == TC_BYTE)
		v = pq_tr_byte(r);
	else if (type == TC_I16 || type == TC_I32 || type == TC_I64)
		v = pq_tr_int(r);
	else {
		pq_tr_skip(r, type);
		r->err = 1;
		return lo;
	}
	if (v < lo || v > hi) {
		r->err = 1;
		return lo;
	}
	return v;
}
