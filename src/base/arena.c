/*
 * arena.c - bump allocator (see arena.h).
 *
 * Blocks are chained newest first.  An allocation larger than a quarter of
 * the block size gets a block of its own, so big vectors do not waste the
 * tail of the current block.
 */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sl_arena_block {
	sl_arena_block *next;
	size_t size;
	char data[];
};

#define ALIGN 16

void sl_arena_init(sl_arena *a, size_t block_size)
{
	memset(a, 0, sizeof(*a));
	a->block_size = block_size ? block_size : 64 * 1024;
}

void sl_arena_deinit(sl_arena *a)
{
	sl_arena_block *b = a->head;
	while (b) {
		sl_arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
	a->ptr = a->end = NULL;
	a->total = 0;
}

void sl_arena_reset(sl_arena *a)
{
	sl_arena_block *keep = NULL, *b = a->head;
	while (b) {
		sl_arena_block *n = b->next;
		if (!keep || b->size > keep->size) {
			if (keep)
				free(keep);
			keep = b;
		} else {
			free(b);
		}
		b = n;
	}
	a->head = keep;
	if (keep) {
		keep->next = NULL;
		a->ptr = keep->data;
		a->end = keep->data + keep->size;
		a->total = keep->size;
	} else {
		a->ptr = a->end = NULL;
		a->total = 0;
	}
}

static sl_arena_block *new_block(sl_arena *a, size_t need)
{
	size_t size = a->block_size;
	if (need > size / 4)
		size = need;
	sl_arena_block *b = malloc(sizeof(*b) + size + ALIGN);
	if (!b)
		return NULL;
	b->size = size;
	a->total += size;
	return b;
}

void *sl_arena_alloc(sl_arena *a, size_t n)
{
	if (n == 0)
		n = 1;
	uintptr_t p = ((uintptr_t)a->ptr + (ALIGN - 1)) & ~(uintptr_t)(ALIGN - 1);
	if (a->ptr && p + n <= (uintptr_t)a->end) {
		a->ptr = (char *)(p + n);
		return (void *)p;
	}
	sl_arena_block *b = new_block(a, n);
	if (!b)
		return NULL;
	char *start = (char *)(((uintptr_t)b->data + (ALIGN - 1)) & ~(uintptr_t)(ALIGN - 1));
	if (b->size == a->block_size || !a->head) {
		/* becomes the current block */
		b->next = a->head;
		a->head = b;
		a->ptr = start + n;
		a->end = b->data + b->size;
	} else {
		/* dedicated block for a big allocation: keep the current one */
		b->next = a->head->next;
		a->head->next = b;
	}
	return start;
}

void *sl_arena_calloc(sl_arena *a, size_t n)
{
	void *p = sl_arena_alloc(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *sl_arena_memdup(sl_arena *a, const void *src, size_t n)
{
	void *p = sl_arena_alloc(a, n);
	if (p && n)
		memcpy(p, src, n);
	return p;
}

char *sl_arena_strndup(sl_arena *a, const char *s, size_t n)
{
	char *p = sl_arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

char *sl_arena_strdup(sl_arena *a, const char *s)
{
	return sl_arena_strndup(a, s, strlen(s));
}

char *sl_arena_printf(sl_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = sl_arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
