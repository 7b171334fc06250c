/*
 * arena.h - bump allocation by lifetime.
 *
 * An arena hands out memory from large blocks and frees it all at once.
 * sluice uses one arena per statement (AST, plan), one per batch (string
 * bytes, scratch vectors; reset when the batch is recycled) and one per
 * operator for long-lived plan data.  Nothing allocated from an arena is
 * freed individually.  sl_arena_reset keeps the first block so that a
 * recycled batch allocates nothing in steady state.
 *
 * Not thread-safe; one owner at a time.
 */
#ifndef SL_ARENA_H
#define SL_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct sl_arena_block sl_arena_block;

typedef struct sl_arena {
	sl_arena_block *head;  /* current block (newest first) */
	char *ptr, *end;       /* free space of the current block */
	size_t block_size;     /* default size of a new block */
	size_t total;          /* bytes obtained from malloc, for accounting */
} sl_arena;

/* Initializes an empty arena whose blocks are at least block_size bytes
 * (0 = 64 KiB).  Allocates nothing yet. */
void sl_arena_init(sl_arena *a, size_t block_size);

/* Frees every block.  The arena may be re-used after sl_arena_init. */
void sl_arena_deinit(sl_arena *a);

/* Frees all allocations but keeps the largest block for re-use. */
void sl_arena_reset(sl_arena *a);

/* Returns n bytes aligned to 16, or NULL when out of memory. */
void *sl_arena_alloc(sl_arena *a, size_t n);

/* sl_arena_alloc with the case that fits the current block inline (the
 * same result), for per-value callers such as sl_col_set_str: the call
 * was ~25 instructions a string (callgrind, bench 4). */
static inline void *sl_arena_alloc_inl(sl_arena *a, size_t n)
{
	uintptr_t p = ((uintptr_t)a->ptr + 15) & ~(uintptr_t)15;
	if (n && a->ptr && p + n <= (uintptr_t)a->end) {
		a->ptr = (char *)(p + n);
		return (void *)p;
	}
	return sl_arena_alloc(a, n);
}

/* Like sl_arena_alloc, zero-filled. */
void *sl_arena_calloc(sl_arena *a, size_t n);

/* Copies n bytes / a NUL-terminated string into the arena. */
void *sl_arena_memdup(sl_arena *a, const void *p, size_t n);
char *sl_arena_strdup(sl_arena *a, const char *s);
char *sl_arena_strndup(sl_arena *a, const char *s, size_t n);

/* printf into the arena; returns NULL when out of memory. */
char *sl_arena_printf(sl_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
