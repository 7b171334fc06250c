-- Flink docs: docs/dev/table/sql/queries/deduplication.md (keep the first row on event time),
-- with a row for key b arriving after a later one (within the watermark delay).  Both keep row
-- 5 for b.  sluice emits a key's first row once the watermark passes it, so its stream is
-- append-only (+I of row 5 only); Flink emits row 3 at once and corrects it with -U/+U when
-- row 5 arrives.
-- deliberate: event-time keep-first deduplication emits when the watermark passes the row (append-only); Flink emits at once and retracts
CREATE TABLE t (
    id INT, k STRING, n INT, m BIGINT, d DECIMAL(10, 2), x DOUBLE, s STRING, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '$DATA/dedup_ooo.jsonl', 'format' = 'json');
SELECT id, k, n, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM t) WHERE rn = 1;
