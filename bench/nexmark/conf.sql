-- bench/nexmark/conf.sql - the table options of Flink's published Nexmark
-- configuration, applied to both engines by bench/nexmark/run_query.sh
-- (NEXMARK_CONF=none leaves them out; docs/nexmark.md section 20).
--
-- Source: nexmark/nexmark, nexmark-flink/src/main/resources/conf/config.yaml
-- (and flink-conf.yaml / sql-client-defaults.yaml before it), "Runtime
-- Others": the configuration Flink's published Nexmark figures ran with.
-- Its other entries are not table options and are left out: RocksDB state
-- and a checkpoint every 180 s (the benchmark runs without checkpoints, in
-- memory), memory sizes and parallelism 8 (run_query.sh's caller sets the
-- parallelism).  The aggregation phase strategy is not set there, so it is
-- Flink's default AUTO: with mini-batch on, Flink splits a GROUP BY into a
-- local and a global aggregate (sluice does not; docs/sql.md).
-- 'table.optimizer.distinct-agg.split.enabled' rewrites COUNT(DISTINCT) in
-- Flink; sluice does not implement it and says so when it plans a DISTINCT
-- aggregate with it set (a warning), with the same results.
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '2s';
SET 'table.exec.mini-batch.size' = '50000';
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
