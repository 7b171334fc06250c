-- Flink docs: docs/dev/table/sql/queries/set-ops.md (verbatim: views over VALUES)
create view t1(s) as values ('c'), ('a'), ('b'), ('b'), ('c');
create view t2(s) as values ('d'), ('e'), ('a'), ('b'), ('b');
(SELECT s FROM t1) UNION (SELECT s FROM t2);
