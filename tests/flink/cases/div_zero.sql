-- Division by zero: Flink 1.20 fails the job for DECIMAL ("Division by zero") and INT
-- (ArithmeticException) operands; sluice stops with an error too.
-- both-refuse: Division by zero
CREATE TABLE n (id INT, i INT, j INT, d DECIMAL(10, 3), e DECIMAL(10, 3), x DOUBLE, y DOUBLE)
WITH ('connector' = 'filesystem', 'path' = '$DATA/nums.jsonl', 'format' = 'json');
SELECT id, e / d FROM n;
