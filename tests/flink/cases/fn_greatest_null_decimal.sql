-- Flink docs: docs/dev/table/functions/systemFunctions.md (GREATEST) over a DECIMAL column with a
-- NULL: Flink 1.20.3 fails the job with a NullPointerException ("Cannot invoke
-- DecimalData.toBigDecimal() because dec is null"); sluice returns NULL, as GREATEST is
-- documented to for a NULL argument.
-- deliberate: Flink 1.20 bug: GREATEST/LEAST over a NULL DECIMAL throws a NullPointerException; sluice returns NULL
CREATE TABLE f (id INT, d DECIMAL(10, 3)) WITH ('connector' = 'filesystem', 'path' = '$DATA/funcs.jsonl', 'format' = 'json');
SELECT id, GREATEST(d, 1), LEAST(d, 1) FROM f;
