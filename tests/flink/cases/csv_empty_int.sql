-- Flink docs: docs/connectors/table/formats/csv.md: an empty field for an INT column without
-- 'csv.null-literal': Flink 1.20 fails the job (NumberFormatException: For input string: "");
-- sluice reads NULL.
-- deliberate: an empty CSV field of a non-string column reads as NULL; Flink fails the job
-- both-refuse: For input string: ""
CREATE TABLE t (id INT, s STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = '$DATA/csv_empty.csv', 'format' = 'csv');
SELECT id, s, n FROM t;
