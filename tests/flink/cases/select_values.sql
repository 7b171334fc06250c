-- Flink docs: docs/dev/table/sql/queries/select.md (SELECT without FROM / VALUES)
SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1)) AS t (order_id, price);
