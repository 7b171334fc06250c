/*
 * rocksdb_dl.h - librocksdb, loaded at run time by the RocksDB state
 * backend only.
 *
 * Linking librocksdb (and libstdc++) into every sluice process cost about
 * 9 MB of resident memory at start-up (relocations of the C++ library),
 * measured by bench/run.sh: it pushed the 1 M-keys window benchmark from
 * 92 MB to 101 MB RSS although that job never touches RocksDB.  So
 * state_rocksdb.c calls RocksDB's C API through this table of function
 * pointers, filled by dlopen/dlsym the first time a job asks for the
 * 'rocksdb' backend.  librocksdb stays a required Debian dependency
 * (scripts/install-deps.sh installs it).
 *
 * Include after <rocksdb/c.h>: the macros at the end route each call
 * through the table, with the header's own prototypes.
 */
#ifndef SL_ROCKSDB_DL_H
#define SL_ROCKSDB_DL_H

#include <rocksdb/c.h>

#include "../base/err.h"

#define SL_RDB_FUNCS(X) \
	X(rocksdb_approximate_sizes) \
	X(rocksdb_block_based_options_create) \
	X(rocksdb_block_based_options_destroy) \
	X(rocksdb_block_based_options_set_block_cache) \
	X(rocksdb_block_based_options_set_cache_index_and_filter_blocks) \
	X(rocksdb_block_based_options_set_filter_policy) \
	X(rocksdb_block_based_options_set_format_version) \
	X(rocksdb_cache_create_lru_opts) \
	X(rocksdb_cache_destroy) \
	X(rocksdb_cache_get_usage) \
	X(rocksdb_close) \
	X(rocksdb_envoptions_create) \
	X(rocksdb_envoptions_destroy) \
	X(rocksdb_ingest_external_file) \
	X(rocksdb_ingestexternalfileoptions_create) \
	X(rocksdb_ingestexternalfileoptions_destroy) \
	X(rocksdb_ingestexternalfileoptions_set_move_files) \
	X(rocksdb_sstfilewriter_create) \
	X(rocksdb_sstfilewriter_destroy) \
	X(rocksdb_sstfilewriter_finish) \
	X(rocksdb_sstfilewriter_open) \
	X(rocksdb_sstfilewriter_put) \
	X(rocksdb_create_iterator) \
	X(rocksdb_create_snapshot) \
	X(rocksdb_delete) \
	X(rocksdb_filterpolicy_create_bloom_full) \
	X(rocksdb_get) \
	X(rocksdb_get_pinned) \
	X(rocksdb_iter_destroy) \
	X(rocksdb_iter_get_error) \
	X(rocksdb_iter_key) \
	X(rocksdb_iter_next) \
	X(rocksdb_iter_seek) \
	X(rocksdb_iter_valid) \
	X(rocksdb_iter_value) \
	X(rocksdb_lru_cache_options_create) \
	X(rocksdb_lru_cache_options_destroy) \
	X(rocksdb_lru_cache_options_set_capacity) \
	X(rocksdb_lru_cache_options_set_num_shard_bits) \
	X(rocksdb_open) \
	X(rocksdb_options_create) \
	X(rocksdb_options_destroy) \
	X(rocksdb_options_increase_parallelism) \
	X(rocksdb_options_set_block_based_table_factory) \
	X(rocksdb_options_set_create_if_missing) \
	X(rocksdb_options_set_db_write_buffer_size) \
	X(rocksdb_options_set_level_compaction_dynamic_level_bytes) \
	X(rocksdb_options_set_max_background_jobs) \
	X(rocksdb_options_set_max_open_files) \
	X(rocksdb_options_set_max_write_buffer_number) \
	X(rocksdb_options_set_memtable_prefix_bloom_size_ratio) \
	X(rocksdb_options_set_memtable_whole_key_filtering) \
	X(rocksdb_options_set_write_buffer_size) \
	X(rocksdb_pinnableslice_destroy) \
	X(rocksdb_pinnableslice_value) \
	X(rocksdb_property_int) \
	X(rocksdb_put) \
	X(rocksdb_readoptions_create) \
	X(rocksdb_readoptions_destroy) \
	X(rocksdb_readoptions_set_fill_cache) \
	X(rocksdb_readoptions_set_iterate_upper_bound) \
	X(rocksdb_readoptions_set_snapshot) \
	X(rocksdb_release_snapshot) \
	X(rocksdb_write) \
	X(rocksdb_writebatch_clear) \
	X(rocksdb_writebatch_count) \
	X(rocksdb_writebatch_create) \
	X(rocksdb_writebatch_delete) \
	X(rocksdb_writebatch_delete_range) \
	X(rocksdb_writebatch_destroy) \
	X(rocksdb_writebatch_put) \
	X(rocksdb_writeoptions_create) \
	X(rocksdb_writeoptions_destroy) \
	X(rocksdb_writeoptions_disable_WAL) \

struct sl_rdb_api {
#define SL_RDB_MEMBER(f) __typeof__(f) *f;
	SL_RDB_FUNCS(SL_RDB_MEMBER)
#undef SL_RDB_MEMBER
};

extern struct sl_rdb_api sl__rdb;

/* Loads librocksdb once per process (thread-safe; a failure is kept and
 * reported again to later callers).  Returns 0, or SL_ENOTSUP with err
 * naming the library or symbol that is missing. */
int sl__rdb_load(sl_err *err);

#ifndef SL_RDB_NO_MACROS
#define rocksdb_approximate_sizes (sl__rdb.rocksdb_approximate_sizes)
#define rocksdb_block_based_options_create (sl__rdb.rocksdb_block_based_options_create)
#define rocksdb_block_based_options_destroy (sl__rdb.rocksdb_block_based_options_destroy)
#define rocksdb_block_based_options_set_block_cache (sl__rdb.rocksdb_block_based_options_set_block_cache)
#define rocksdb_block_based_options_set_cache_index_and_filter_blocks (sl__rdb.rocksdb_block_based_options_set_cache_index_and_filter_blocks)
#define rocksdb_block_based_options_set_filter_policy (sl__rdb.rocksdb_block_based_options_set_filter_policy)
#define rocksdb_block_based_options_set_format_version (sl__rdb.rocksdb_block_based_options_set_format_version)
#define rocksdb_cache_create_lru_opts (sl__rdb.rocksdb_cache_create_lru_opts)
#define rocksdb_cache_destroy (sl__rdb.rocksdb_cache_destroy)
#define rocksdb_cache_get_usage (sl__rdb.rocksdb_cache_get_usage)
#define rocksdb_close (sl__rdb.rocksdb_close)
#define rocksdb_envoptions_create (sl__rdb.rocksdb_envoptions_create)
#define rocksdb_envoptions_destroy (sl__rdb.rocksdb_envoptions_destroy)
#define rocksdb_ingest_external_file (sl__rdb.rocksdb_ingest_external_file)
#define rocksdb_ingestexternalfileoptions_create (sl__rdb.rocksdb_ingestexternalfileoptions_create)
#define rocksdb_ingestexternalfileoptions_destroy (sl__rdb.rocksdb_ingestexternalfileoptions_destroy)
#define rocksdb_ingestexternalfileoptions_set_move_files (sl__rdb.rocksdb_ingestexternalfileoptions_set_move_files)
#define rocksdb_sstfilewriter_create (sl__rdb.rocksdb_sstfilewriter_create)
#define rocksdb_sstfilewriter_destroy (sl__rdb.rocksdb_sstfilewriter_destroy)
#define rocksdb_sstfilewriter_finish (sl__rdb.rocksdb_sstfilewriter_finish)
#define rocksdb_sstfilewriter_open (sl__rdb.rocksdb_sstfilewriter_open)
#define rocksdb_sstfilewriter_put (sl__rdb.rocksdb_sstfilewriter_put)
#define rocksdb_create_iterator (sl__rdb.rocksdb_create_iterator)
#define rocksdb_create_snapshot (sl__rdb.rocksdb_create_snapshot)
#define rocksdb_delete (sl__rdb.rocksdb_delete)
#define rocksdb_filterpolicy_create_bloom_full (sl__rdb.rocksdb_filterpolicy_create_bloom_full)
#define rocksdb_get (sl__rdb.rocksdb_get)
#define rocksdb_get_pinned (sl__rdb.rocksdb_get_pinned)
#define rocksdb_iter_destroy (sl__rdb.rocksdb_iter_destroy)
#define rocksdb_iter_get_error (sl__rdb.rocksdb_iter_get_error)
#define rocksdb_iter_key (sl__rdb.rocksdb_iter_key)
#define rocksdb_iter_next (sl__rdb.rocksdb_iter_next)
#define rocksdb_iter_seek (sl__rdb.rocksdb_iter_seek)
#define rocksdb_iter_valid (sl__rdb.rocksdb_iter_valid)
#define rocksdb_iter_value (sl__rdb.rocksdb_iter_value)
#define rocksdb_lru_cache_options_create (sl__rdb.rocksdb_lru_cache_options_create)
#define rocksdb_lru_cache_options_destroy (sl__rdb.rocksdb_lru_cache_options_destroy)
#define rocksdb_lru_cache_options_set_capacity (sl__rdb.rocksdb_lru_cache_options_set_capacity)
#define rocksdb_lru_cache_options_set_num_shard_bits (sl__rdb.rocksdb_lru_cache_options_set_num_shard_bits)
#define rocksdb_open (sl__rdb.rocksdb_open)
#define rocksdb_options_create (sl__rdb.rocksdb_options_create)
#define rocksdb_options_destroy (sl__rdb.rocksdb_options_destroy)
#define rocksdb_options_increase_parallelism (sl__rdb.rocksdb_options_increase_parallelism)
#define rocksdb_options_set_block_based_table_factory (sl__rdb.rocksdb_options_set_block_based_table_factory)
#define rocksdb_options_set_create_if_missing (sl__rdb.rocksdb_options_set_create_if_missing)
#define rocksdb_options_set_db_write_buffer_size (sl__rdb.rocksdb_options_set_db_write_buffer_size)
#define rocksdb_options_set_level_compaction_dynamic_level_bytes (sl__rdb.rocksdb_options_set_level_compaction_dynamic_level_bytes)
#define rocksdb_options_set_max_background_jobs (sl__rdb.rocksdb_options_set_max_background_jobs)
#define rocksdb_options_set_max_open_files (sl__rdb.rocksdb_options_set_max_open_files)
#define rocksdb_options_set_max_write_buffer_number (sl__rdb.rocksdb_options_set_max_write_buffer_number)
#define rocksdb_options_set_memtable_prefix_bloom_size_ratio (sl__rdb.rocksdb_options_set_memtable_prefix_bloom_size_ratio)
#define rocksdb_options_set_memtable_whole_key_filtering (sl__rdb.rocksdb_options_set_memtable_whole_key_filtering)
#define rocksdb_options_set_write_buffer_size (sl__rdb.rocksdb_options_set_write_buffer_size)
#define rocksdb_pinnableslice_destroy (sl__rdb.rocksdb_pinnableslice_destroy)
#define rocksdb_pinnableslice_value (sl__rdb.rocksdb_pinnableslice_value)
#define rocksdb_property_int (sl__rdb.rocksdb_property_int)
#define rocksdb_put (sl__rdb.rocksdb_put)
#define rocksdb_readoptions_create (sl__rdb.rocksdb_readoptions_create)
#define rocksdb_readoptions_destroy (sl__rdb.rocksdb_readoptions_destroy)
#define rocksdb_readoptions_set_fill_cache (sl__rdb.rocksdb_readoptions_set_fill_cache)
#define rocksdb_readoptions_set_iterate_upper_bound (sl__rdb.rocksdb_readoptions_set_iterate_upper_bound)
#define rocksdb_readoptions_set_snapshot (sl__rdb.rocksdb_readoptions_set_snapshot)
#define rocksdb_release_snapshot (sl__rdb.rocksdb_release_snapshot)
#define rocksdb_write (sl__rdb.rocksdb_write)
#define rocksdb_writebatch_clear (sl__rdb.rocksdb_writebatch_clear)
#define rocksdb_writebatch_count (sl__rdb.rocksdb_writebatch_count)
#define rocksdb_writebatch_create (sl__rdb.rocksdb_writebatch_create)
#define rocksdb_writebatch_delete (sl__rdb.rocksdb_writebatch_delete)
#define rocksdb_writebatch_delete_range (sl__rdb.rocksdb_writebatch_delete_range)
#define rocksdb_writebatch_destroy (sl__rdb.rocksdb_writebatch_destroy)
#define rocksdb_writebatch_put (sl__rdb.rocksdb_writebatch_put)
#define rocksdb_writeoptions_create (sl__rdb.rocksdb_writeoptions_create)
#define rocksdb_writeoptions_destroy (sl__rdb.rocksdb_writeoptions_destroy)
#define rocksdb_writeoptions_disable_WAL (sl__rdb.rocksdb_writeoptions_disable_WAL)

#endif /* SL_RDB_NO_MACROS */

#endif
