/*
 * test_statements.c - the catalog statements through the public API:
 * SHOW TABLES / VIEWS / USER FUNCTIONS / CURRENT DATABASE, [NOT] LIKE
 * filters, DESCRIBE / DESC / SHOW COLUMNS and SHOW CREATE TABLE / VIEW
 * (their text compared with Flink 1.20's documented output, in
 * sl_explain_text), CREATE TABLE ... LIKE (the merged table's SHOW CREATE
 * TABLE and Flink's conflict messages), CREATE TABLE ... AS SELECT's table,
 * ALTER TABLE (Flink's documented session) and ALTER VIEW, and the refusals of legacy option keys, PARTITIONED BY
 * and unsupported SHOW forms with their positions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sluice.h"

/* The table of Flink's DESCRIBE docs example
 * (docs/content/docs/dev/table/sql/describe.md, Flink 1.20). */
static const char *orders_ddl =
	"CREATE TABLE Orders (\n"
	" `user` BIGINT NOT NULl comment 'this is primary key',\n"
	" product VARCHAR(32),\n"
	" amount INT,\n"
	" ts TIMESTAMP(3) comment 'notice: watermark',\n"
	" ptime AS PROCTIME() comment 'this is a computed column',\n"
	" PRIMARY KEY(`user`) NOT ENFORCED,\n"
	" WATERMARK FOR ts AS ts - INTERVAL '1' SECONDS\n"
	") with ('connector' = 'datagen');";

static sl_engine *open_with_orders(void)
{
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, orders_ddl), 0);
	return e;
}

static void expect_output(sl_engine *e, const char *sql, const char *want)
{
	int rc = sl_exec(e, sql);
	if (rc)
		fail_msg("%s: %s", sql, sl_errmsg(e));
	if (strcmp(sl_explain_text(e), want))
		fail_msg("%s\n--- got:\n%s--- want:\n%s", sql, sl_explain_text(e), want);
}

static void expect_error(sl_engine *e, const char *sql, const char *want)
{
	int rc = sl_exec(e, sql);
	assert_true(rc < 0);
	if (!strstr(sl_errmsg(e), want))
		fail_msg("%s\n got: %s\nwant: %s", sql, sl_errmsg(e), want);
}

/* The docs' DESCRIBE Orders result, verbatim. */
static void test_describe(void **st)
{
	(void)st;
	sl_engine *e = open_with_orders();
	const char *want =
		"+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+\n"
		"|    name |                        type |  null |       key |        extras |                  watermark |                   comment |\n"
		"+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+\n"
		"|    user |                      BIGINT | FALSE | PRI(user) |               |                            |       this is primary key |\n"
		"| product |                 VARCHAR(32) |  TRUE |           |               |                            |                           |\n"
		"|  amount |                         INT |  TRUE |           |               |                            |                           |\n"
		"|      ts |      TIMESTAMP(3) *ROWTIME* |  TRUE |           |               | `ts` - INTERVAL '1' SECOND |         notice: watermark |\n"
		"|   ptime | TIMESTAMP_LTZ(3) *PROCTIME* | FALSE |           | AS PROCTIME() |                            | this is a computed column |\n"
		"+---------+-----------------------------+-------+-----------+---------------+----------------------------+---------------------------+\n"
		"5 rows in set\n";
	expect_output(e, "DESCRIBE Orders", want);
	expect_output(e, "DESC Orders;", want);
	expect_output(e, "SHOW COLUMNS FROM Orders LIKE '%r'",
		"+------+--------+-------+-----------+--------+-----------+---------------------+\n"
		"| name |   type |  null |       key | extras | watermark |             comment |\n"
		"+------+--------+-------+-----------+--------+-----------+---------------------+\n"
		"| user | BIGINT | FALSE | PRI(user) |        |           | this is primary key |\n"
		"+------+--------+-------+-----------+--------+-----------+---------------------+\n"
		"1 row in set\n");
	expect_error(e, "DESCRIBE Nope", "line 1, column 1: Table or view 'Nope' not found");
	expect_error(e, "DESCRIBE CATALOG c", "line 1, column 10: DESCRIBE CATALOG / DATABASE / "
	             "FUNCTION / MODEL is not supported");
	sl_engine_close(e);
}

/* SHOW CREATE TABLE in Flink's layout (docs/content/docs/dev/table/sql/show.md). */
static void test_show_create(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE orders (\n"
		"  order_id BIGINT NOT NULL comment 'this is the primary key, named ''order_id''.',\n"
		"  product VARCHAR(32),\n"
		"  amount INT,\n"
		"  ts TIMESTAMP(3) comment 'notice: watermark, named ''ts''.',\n"
		"  ptime AS PROCTIME() comment 'notice: computed column, named ''ptime''.',\n"
		"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,\n"
		"  CONSTRAINT `PK_order_id` PRIMARY KEY (order_id) NOT ENFORCED\n"
		") WITH (\n"
		"  'connector' = 'datagen'\n"
		");"), 0);
	expect_output(e, "show create table orders;",
		"CREATE TABLE `default_catalog`.`default_database`.`orders` (\n"
		"  `order_id` BIGINT NOT NULL COMMENT 'this is the primary key, named ''order_id''.',\n"
		"  `product` VARCHAR(32),\n"
		"  `amount` INT,\n"
		"  `ts` TIMESTAMP(3) COMMENT 'notice: watermark, named ''ts''.',\n"
		"  `ptime` AS PROCTIME() COMMENT 'notice: computed column, named ''ptime''.',\n"
		"  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,\n"
		"  CONSTRAINT `PK_order_id` PRIMARY KEY (`order_id`) NOT ENFORCED\n"
		") WITH (\n"
		"  'connector' = 'datagen'\n"
		")\n");
	assert_int_equal(sl_exec(e, "CREATE TABLE t2 (a INT, b DECIMAL(10, 2), c AS a * (2 + a), "
	                            "PRIMARY KEY (a, b) NOT ENFORCED) COMMENT 'it''s t2' WITH "
	                            "('connector' = 'blackhole')"), 0);
	expect_output(e, "SHOW CREATE TABLE t2",
		"CREATE TABLE `default_catalog`.`default_database`.`t2` (\n"
		"  `a` INT NOT NULL,\n"
		"  `b` DECIMAL(10, 2) NOT NULL,\n"
		"  `c` AS `a` * (2 + `a`),\n"
		"  CONSTRAINT `PK_a_b` PRIMARY KEY (`a`, `b`) NOT ENFORCED\n"
		") COMMENT 'it''s t2'\n"
		"WITH (\n"
		"  'connector' = 'blackhole'\n"
		")\n");
	/* PARTITIONED BY and a file:// path, as Nexmark q10's sink */
	assert_int_equal(sl_exec(e, "CREATE TABLE fs_sink (auction BIGINT, dt STRING, hm STRING) "
	                            "PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', "
	                            "'path' = 'file:///tmp/x', 'format' = 'csv')"), 0);
	expect_output(e, "SHOW CREATE TABLE fs_sink",
		"CREATE TABLE `default_catalog`.`default_database`.`fs_sink` (\n"
		"  `auction` BIGINT,\n"
		"  `dt` STRING,\n"
		"  `hm` STRING\n"
		") PARTITIONED BY (`dt`, `hm`)\n"
		"WITH (\n"
		"  'connector' = 'filesystem',\n"
		"  'path' = 'file:///tmp/x',\n"
		"  'format' = 'csv'\n"
		")\n");
	assert_int_equal(sl_exec(e, "CREATE VIEW v AS SELECT order_id FROM orders"), 0);
	expect_output(e, "SHOW CREATE VIEW v", "CREATE VIEW v AS SELECT order_id FROM orders\n");
	expect_error(e, "SHOW CREATE TABLE v", "'v' is a view");
	expect_error(e, "SHOW CREATE VIEW orders", "View 'orders' not found");
	/* DESCRIBE of a view: its query's columns, a time attribute marked */
	assert_int_equal(sl_exec(e, "CREATE VIEW v2 (id, t, two) AS SELECT order_id, ts, amount * 2 "
	                            "FROM orders WHERE amount > 1"), 0);
	expect_output(e, "DESCRIBE v2",
		"+------+------------------------+-------+-----+--------+-----------+---------+\n"
		"| name |                   type |  null | key | extras | watermark | comment |\n"
		"+------+------------------------+-------+-----+--------+-----------+---------+\n"
		"|   id |                 BIGINT | FALSE |     |        |           |         |\n"
		"|    t | TIMESTAMP(3) *ROWTIME* |  TRUE |     |        |           |         |\n"
		"|  two |                    INT |  TRUE |     |        |           |         |\n"
		"+------+------------------------+-------+-----+--------+-----------+---------+\n"
		"3 rows in set\n");
	sl_engine_close(e);
}

static void test_show_lists(void **st)
{
	(void)st;
	sl_engine *e = open_with_orders();
	assert_int_equal(sl_exec(e, "CREATE TABLE items (a INT) WITH ('connector' = 'blackhole');"
	                            "CREATE VIEW my_view AS SELECT * FROM items"), 0);
	/* as Flink: SHOW TABLES lists tables and views, sorted */
	expect_output(e, "SHOW TABLES",
		"+------------+\n"
		"| table name |\n"
		"+------------+\n"
		"|     Orders |\n"
		"|      items |\n"
		"|    my_view |\n"
		"+------------+\n"
		"3 rows in set\n");
	expect_output(e, "SHOW VIEWS",
		"+-----------+\n| view name |\n+-----------+\n|   my_view |\n+-----------+\n"
		"1 row in set\n");
	expect_output(e, "show tables like '%s'",
		"+------------+\n| table name |\n+------------+\n|     Orders |\n|      items |\n"
		"+------------+\n2 rows in set\n");
	expect_output(e, "show tables not like '%s'",
		"+------------+\n| table name |\n+------------+\n|    my_view |\n+------------+\n"
		"1 row in set\n");
	expect_output(e, "SHOW TABLES LIKE 'x%'", "Empty set\n");
	expect_output(e, "SHOW USER FUNCTIONS", "Empty set\n");
	expect_output(e, "SHOW JARS", "Empty set\n");
	expect_output(e, "SHOW CURRENT DATABASE",
		"+-----------------------+\n"
		"| current database name |\n"
		"+-----------------------+\n"
		"|      default_database |\n"
		"+-----------------------+\n"
		"1 row in set\n");
	/* several in one script: outputs one after the other */
	expect_output(e, "SHOW VIEWS; SHOW CATALOGS",
		"+-----------+\n| view name |\n+-----------+\n|   my_view |\n+-----------+\n"
		"1 row in set\n"
		"+-----------------+\n"
		"|    catalog name |\n"
		"+-----------------+\n"
		"| default_catalog |\n"
		"+-----------------+\n"
		"1 row in set\n");
	sl_engine_close(e);
}

static void test_refusals(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	expect_error(e, "CREATE TABLE k (a INT) WITH (\n  'connector.type' = 'kafka',\n"
	                "  'connector.topic' = 't')",
	             "line 2, column 3: table 'k': 'connector.type' is one of Flink's legacy option "
	             "keys (deprecated since Flink 1.11, FLIP-122), not supported: write 'connector' = 'kafka'");
	expect_error(e, "CREATE TABLE k (a INT) WITH ('connector' = 'filesystem', "
	                "'format.type' = 'csv')", "write 'format' = 'csv'");
	expect_error(e, "CREATE TABLE k (a INT) WITH ('connector' = 'filesystem', "
	                "'format.ignore-parse-errors' = 'true')",
	             "write '<format>.ignore-parse-errors' (e.g. 'json.ignore-parse-errors'");
	expect_error(e, "CREATE TABLE k (a INT) WITH ('connector' = 'kafka', "
	                "'update-mode' = 'append')", "'update-mode' is one of Flink's legacy");
	expect_error(e, "CREATE TABLE k (a INT) WITH ('connector' = 'kafka', "
	                "'connector.startup-mode' = 'earliest-offset')",
	             "write 'scan.startup.mode' = 'earliest-offset'");
	expect_error(e, "CREATE TABLE p (a INT, b STRING) PARTITIONED BY (c) WITH ('connector' = "
	                "'blackhole')", "line 1, column 50: partition column 'c' is not a physical "
	                "column of table 'p'");
	expect_error(e, "SHOW PARTITIONS t", "line 1, column 6: SHOW PARTITIONS is not supported");
	expect_error(e, "SHOW JOBS", "SHOW JOBS is not supported");
	expect_error(e, "SHOW FUNCTIONS", "SHOW FUNCTIONS (with the built-in functions) is not "
	             "supported");
	expect_error(e, "SHOW TABLES FROM db1", "line 1, column 13: SHOW ... FROM|IN a database");
	sl_engine_close(e);
}

/* CREATE TABLE ... LIKE, merged as Flink's MergeTableLikeUtil: the docs'
 * two examples (docs/content/docs/dev/table/sql/create.md, "LIKE"), then
 * each strategy and each of Flink's conflict messages. */
static void test_like(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE Orders (`user` BIGINT, product STRING, order_time TIMESTAMP(3))\n"
		"WITH ('connector' = 'kafka', 'scan.startup.mode' = 'earliest-offset');\n"
		"CREATE TABLE Orders_with_watermark (\n"
		"  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n"
		") WITH ('scan.startup.mode' = 'latest-offset')\n"
		"LIKE Orders;"), 0);
	expect_output(e, "SHOW CREATE TABLE Orders_with_watermark",
		"CREATE TABLE `default_catalog`.`default_database`.`Orders_with_watermark` (\n"
		"  `user` BIGINT,\n"
		"  `product` STRING,\n"
		"  `order_time` TIMESTAMP(3),\n"
		"  WATERMARK FOR `order_time` AS `order_time` - INTERVAL '5' SECOND\n"
		") WITH (\n"
		"  'connector' = 'kafka',\n"
		"  'scan.startup.mode' = 'latest-offset'\n"
		")\n");
	assert_int_equal(sl_exec(e,
		"CREATE TABLE Orders_in_file (`user` BIGINT, product STRING,\n"
		"  order_time_string STRING, order_time AS to_timestamp(order_time_string))\n"
		"PARTITIONED BY (`user`) WITH ('connector' = 'filesystem', 'path' = '/tmp/x',\n"
		"  'format' = 'json');\n"
		"CREATE TABLE Orders_in_kafka (\n"
		"  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND\n"
		") WITH ('connector' = 'kafka', 'topic' = 't')\n"
		"LIKE Orders_in_file (EXCLUDING ALL INCLUDING GENERATED);"), 0);
	expect_output(e, "SHOW CREATE TABLE Orders_in_kafka",
		"CREATE TABLE `default_catalog`.`default_database`.`Orders_in_kafka` (\n"
		"  `user` BIGINT,\n"
		"  `product` STRING,\n"
		"  `order_time_string` STRING,\n"
		"  `order_time` AS TO_TIMESTAMP(`order_time_string`),\n"
		"  WATERMARK FOR `order_time` AS `order_time` - INTERVAL '5' SECOND\n"
		") WITH (\n"
		"  'connector' = 'kafka',\n"
		"  'topic' = 't'\n"
		")\n");
	/* the base's key and computed column; OVERWRITING GENERATED replaces c in
	 * its place, EXCLUDING CONSTRAINTS drops the key, a new column comes last */
	assert_int_equal(sl_exec(e,
		"CREATE TABLE b (a INT, c AS a + 1, ts TIMESTAMP(3), PRIMARY KEY (a) NOT ENFORCED,\n"
		"  WATERMARK FOR ts AS ts) WITH ('connector' = 'blackhole');\n"
		"CREATE TABLE d (c AS a * 10, z STRING, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)\n"
		"LIKE b (OVERWRITING GENERATED EXCLUDING CONSTRAINTS OVERWRITING WATERMARKS);"), 0);
	expect_output(e, "SHOW CREATE TABLE d",
		"CREATE TABLE `default_catalog`.`default_database`.`d` (\n"
		"  `a` INT,\n"
		"  `c` AS `a` * 10,\n"
		"  `ts` TIMESTAMP(3),\n"
		"  `z` STRING,\n"
		"  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND\n"
		") WITH (\n"
		"  'connector' = 'blackhole'\n"
		")\n");
	/* LIKE a table declared with LIKE: its merged definition, key included */
	assert_int_equal(sl_exec(e, "CREATE TABLE b2 WITH ('connector' = 'print') LIKE b"), 0);
	expect_output(e, "SHOW CREATE TABLE b2",
		"CREATE TABLE `default_catalog`.`default_database`.`b2` (\n"
		"  `a` INT NOT NULL,\n"
		"  `c` AS `a` + 1,\n"
		"  `ts` TIMESTAMP(3),\n"
		"  WATERMARK FOR `ts` AS `ts`,\n"
		"  CONSTRAINT `PK_a` PRIMARY KEY (`a`) NOT ENFORCED\n"
		") WITH (\n"
		"  'connector' = 'print'\n"
		")\n");
	expect_error(e, "CREATE TABLE x (a INT) LIKE b",
	             "line 1, column 17: A column named 'a' already exists in the base table.");
	expect_error(e, "CREATE TABLE x (c AS a + 2) LIKE b",
	             "line 1, column 17: A generated column named 'c' already exists in the base "
	             "table. You might want to specify EXCLUDING GENERATED or OVERWRITING GENERATED.");
	expect_error(e, "CREATE TABLE x (a AS 1) LIKE b (OVERWRITING GENERATED)",
	             "A physical column named 'a' already exists in the base table. Computed "
	             "columns cannot overwrite physical fields");
	expect_error(e, "CREATE TABLE x (WATERMARK FOR ts AS ts) LIKE b",
	             "There already exists a watermark spec for column 'ts' in the base table. You "
	             "might want to specify EXCLUDING WATERMARKS or OVERWRITING WATERMARKS.");
	expect_error(e, "CREATE TABLE x (PRIMARY KEY (ts) NOT ENFORCED) LIKE b",
	             "line 1, column 1: The base table already has a primary key. You might want to "
	             "specify EXCLUDING CONSTRAINTS.");
	expect_error(e, "CREATE TABLE x WITH ('connector' = 'print') LIKE b (INCLUDING OPTIONS)",
	             "line 1, column 22: There already exists an option ['connector' -> "
	             "'blackhole'] in the base table. You might want to specify EXCLUDING OPTIONS "
	             "or OVERWRITING OPTIONS.");
	expect_error(e, "CREATE TABLE x (p STRING) PARTITIONED BY (p) LIKE Orders_in_file",
	             "The base table already has partitions defined. You might want to specify "
	             "EXCLUDING PARTITIONS.");
	expect_error(e, "CREATE TABLE x (z INT) LIKE nope",
	             "line 1, column 24: Source table 'nope' of the LIKE clause not found in the "
	             "catalog");
	assert_int_equal(sl_exec(e, "CREATE VIEW v AS SELECT a FROM b"), 0);
	expect_error(e, "CREATE TABLE x (z INT) LIKE v",
	             "Source table 'v' of the LIKE clause can not be a VIEW");
	expect_error(e, "CREATE TABLE x (z INT) LIKE b (OVERWRITING PARTITIONS)",
	             "line 1, column 32: Illegal merging strategy 'OVERWRITING' for 'PARTITIONS' "
	             "option.");
	expect_error(e, "CREATE TABLE x (z INT) LIKE b (INCLUDING ALL EXCLUDING ALL)",
	             "line 1, column 46: Each like option feature can be declared only once.");
	/* the source table is unchanged and x was never created */
	expect_error(e, "SHOW CREATE TABLE x", "x");
	sl_engine_close(e);
}

/* CREATE TABLE ... AS SELECT: the table's columns are the query's, with
 * their nullability; IF NOT EXISTS over an existing table inserts into it. */
static void test_ctas(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE src (k STRING, v INT NOT NULL, ts TIMESTAMP(3),\n"
		"  WATERMARK FOR ts AS ts) WITH ('connector' = 'push');\n"
		"CREATE TABLE t WITH ('connector' = 'blackhole')\n"
		"AS SELECT k, v + 1 AS v1, ts, CAST(v AS DECIMAL(10, 2)) AS d FROM src"), 0);
	expect_output(e, "SHOW CREATE TABLE t",
		"CREATE TABLE `default_catalog`.`default_database`.`t` (\n"
		"  `k` STRING,\n"
		"  `v1` INT NOT NULL,\n"
		"  `ts` TIMESTAMP(3),\n"
		"  `d` DECIMAL(10, 2) NOT NULL\n"
		") WITH (\n"
		"  'connector' = 'blackhole'\n"
		")\n");
	sl_engine_close(e);
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e,
		"CREATE TABLE src (k STRING) WITH ('connector' = 'push');\n"
		"CREATE TABLE t (k STRING, extra INT) WITH ('connector' = 'blackhole');"), 0);
	expect_error(e, "CREATE TABLE t WITH ('connector' = 'blackhole') AS SELECT k FROM src",
	             "line 1, column 1: table or view 't' already exists");
	/* into the existing t: its two columns against the query's one */
	expect_error(e, "CREATE TABLE IF NOT EXISTS t WITH ('connector' = 'blackhole') "
	             "AS SELECT k FROM src", "t");
	sl_engine_close(e);
}

/* ALTER TABLE: Flink's documented session (docs/dev/table/sql/alter.md,
 * SQL CLI tab), every DESCRIBE compared with the documented table; then
 * the refusals, which change nothing. */
static void test_alter(void **st)
{
	(void)st;
	sl_engine *e;
	assert_int_equal(sl_engine_open(&e), 0);
	assert_int_equal(sl_exec(e, "CREATE TABLE Orders (`user` BIGINT, product STRING, amount INT) WITH ('connector' = 'datagen')"), 0);
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders ADD `order` INT COMMENT 'order identifier' FIRST"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+---------+--------+------+-----+--------+-----------+------------------+\n"
		"|    name |   type | null | key | extras | watermark |          comment |\n"
		"+---------+--------+------+-----+--------+-----------+------------------+\n"
		"|   order |    INT | TRUE |     |        |           | order identifier |\n"
		"|    user | BIGINT | TRUE |     |        |           |                  |\n"
		"| product | STRING | TRUE |     |        |           |                  |\n"
		"|  amount |    INT | TRUE |     |        |           |                  |\n"
		"+---------+--------+------+-----+--------+-----------+------------------+\n"
		"4 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders ADD (ts TIMESTAMP(3), category STRING AFTER product, PRIMARY KEY(`order`) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+----------+------------------------+-------+------------+--------+--------------------------+------------------+\n"
		"|     name |                   type |  null |        key | extras |                watermark |          comment |\n"
		"+----------+------------------------+-------+------------+--------+--------------------------+------------------+\n"
		"|    order |                    INT | FALSE | PRI(order) |        |                          | order identifier |\n"
		"|     user |                 BIGINT |  TRUE |            |        |                          |                  |\n"
		"|  product |                 STRING |  TRUE |            |        |                          |                  |\n"
		"| category |                 STRING |  TRUE |            |        |                          |                  |\n"
		"|   amount |                    INT |  TRUE |            |        |                          |                  |\n"
		"|       ts | TIMESTAMP(3) *ROWTIME* |  TRUE |            |        | `ts` - INTERVAL '1' HOUR |                  |\n"
		"+----------+------------------------+-------+------------+--------+--------------------------+------------------+\n"
		"6 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders MODIFY (amount DOUBLE NOT NULL, category STRING COMMENT 'category identifier' AFTER `order`, WATERMARK FOR ts AS ts)"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+----------+------------------------+-------+------------+--------+-----------+---------------------+\n"
		"|     name |                   type |  null |        key | extras | watermark |             comment |\n"
		"+----------+------------------------+-------+------------+--------+-----------+---------------------+\n"
		"|    order |                    INT | FALSE | PRI(order) |        |           |    order identifier |\n"
		"| category |                 STRING |  TRUE |            |        |           | category identifier |\n"
		"|     user |                 BIGINT |  TRUE |            |        |           |                     |\n"
		"|  product |                 STRING |  TRUE |            |        |           |                     |\n"
		"|   amount |                 DOUBLE | FALSE |            |        |           |                     |\n"
		"|       ts | TIMESTAMP(3) *ROWTIME* |  TRUE |            |        |      `ts` |                     |\n"
		"+----------+------------------------+-------+------------+--------+-----------+---------------------+\n"
		"6 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders DROP WATERMARK"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+----------+--------------+-------+------------+--------+-----------+---------------------+\n"
		"|     name |         type |  null |        key | extras | watermark |             comment |\n"
		"+----------+--------------+-------+------------+--------+-----------+---------------------+\n"
		"|    order |          INT | FALSE | PRI(order) |        |           |    order identifier |\n"
		"| category |       STRING |  TRUE |            |        |           | category identifier |\n"
		"|     user |       BIGINT |  TRUE |            |        |           |                     |\n"
		"|  product |       STRING |  TRUE |            |        |           |                     |\n"
		"|   amount |       DOUBLE | FALSE |            |        |           |                     |\n"
		"|       ts | TIMESTAMP(3) |  TRUE |            |        |           |                     |\n"
		"+----------+--------------+-------+------------+--------+-----------+---------------------+\n"
		"6 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders DROP (amount, ts, category)"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+---------+--------+-------+------------+--------+-----------+------------------+\n"
		"|    name |   type |  null |        key | extras | watermark |          comment |\n"
		"+---------+--------+-------+------------+--------+-----------+------------------+\n"
		"|   order |    INT | FALSE | PRI(order) |        |           | order identifier |\n"
		"|    user | BIGINT |  TRUE |            |        |           |                  |\n"
		"| product | STRING |  TRUE |            |        |           |                  |\n"
		"+---------+--------+-------+------------+--------+-----------+------------------+\n"
		"3 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders RENAME `order` to `order_id`"), 0);
	expect_output(e, "DESCRIBE Orders",
		"+----------+--------+-------+---------------+--------+-----------+------------------+\n"
		"|     name |   type |  null |           key | extras | watermark |          comment |\n"
		"+----------+--------+-------+---------------+--------+-----------+------------------+\n"
		"| order_id |    INT | FALSE | PRI(order_id) |        |           | order identifier |\n"
		"|     user | BIGINT |  TRUE |               |        |           |                  |\n"
		"|  product | STRING |  TRUE |               |        |           |                  |\n"
		"+----------+--------+-------+---------------+--------+-----------+------------------+\n"
		"3 rows in set\n");
	assert_int_equal(sl_exec(e, "ALTER TABLE Orders RENAME TO NewOrders"), 0);
	expect_output(e, "SHOW TABLES",
		"+------------+\n"
		"| table name |\n"
		"+------------+\n"
		"|  NewOrders |\n"
		"+------------+\n"
		"1 row in set\n");
	/* refusals: nothing changes */
	assert_int_equal(sl_exec(e, "CREATE TABLE t (a INT, b INT, c AS a + 1, ts TIMESTAMP(3), "
	                            "PRIMARY KEY (a) NOT ENFORCED, WATERMARK FOR ts AS ts) "
	                            "PARTITIONED BY (b) WITH ('connector' = 'blackhole')"), 0);
	expect_error(e, "ALTER TABLE t ADD a INT",
	             "line 1, column 15: Try to add a column `a` which already exists in the table.");
	expect_error(e, "ALTER TABLE t MODIFY z INT",
	             "Try to modify a column `z` which does not exist in the table.");
	expect_error(e, "ALTER TABLE t ADD z INT AFTER nope",
	             "Referenced column `nope` by 'AFTER' does not exist in the table.");
	expect_error(e, "ALTER TABLE t ADD PRIMARY KEY (b) NOT ENFORCED",
	             "The base table has already defined the primary key constraint.");
	expect_error(e, "ALTER TABLE t ADD WATERMARK FOR ts AS ts",
	             "The base table has already defined the watermark strategy for `ts`.");
	expect_error(e, "ALTER TABLE t DROP a", "The column `a` is used as the primary key.");
	expect_error(e, "ALTER TABLE t DROP b", "The column `b` is used as the partition keys.");
	expect_error(e, "ALTER TABLE t DROP ts",
	             "The column `ts` is referenced by watermark expression.");
	expect_error(e, "ALTER TABLE t RENAME a TO a2",
	             "The column `a` is referenced by computed column `c`.");
	expect_error(e, "ALTER TABLE t DROP nope",
	             "The column `nope` does not exist in the base table.");
	expect_error(e, "ALTER TABLE t RESET ('connector')",
	             "ALTER TABLE RESET does not support changing 'connector'");
	expect_error(e, "ALTER TABLE nope SET ('k' = 'v')", "Table 'nope' does not exist");
	assert_int_equal(sl_exec(e, "ALTER TABLE IF EXISTS nope SET ('k' = 'v')"), 0);
	expect_error(e, "ALTER DATABASE db SET ('k' = 'v')", "ALTER DATABASE is not supported");
	/* DROP of the key, then of the columns; SET and RESET of options */
	assert_int_equal(sl_exec(e, "ALTER TABLE t DROP PRIMARY KEY; ALTER TABLE t DROP c; "
	                            "ALTER TABLE t DROP a; ALTER TABLE t SET ('x.y' = '1', "
	                            "'connector' = 'print'); ALTER TABLE t RESET ('x.y')"), 0);
	expect_output(e, "SHOW CREATE TABLE t",
		"CREATE TABLE `default_catalog`.`default_database`.`t` (\n"
		"  `b` INT,\n"
		"  `ts` TIMESTAMP(3),\n"
		"  WATERMARK FOR `ts` AS `ts`\n"
		") PARTITIONED BY (`b`)\n"
		"WITH (\n"
		"  'connector' = 'print'\n"
		")\n");
	/* ALTER VIEW: rename, then a new query */
	assert_int_equal(sl_exec(e, "CREATE VIEW v (x) AS SELECT b FROM t; ALTER VIEW v RENAME TO w"),
	                 0);
	expect_output(e, "SHOW CREATE VIEW w", "CREATE VIEW w (x) AS SELECT b FROM t\n");
	assert_int_equal(sl_exec(e, "ALTER VIEW w AS SELECT ts FROM t"), 0);
	expect_output(e, "SHOW CREATE VIEW w", "CREATE VIEW w AS SELECT ts FROM t\n");
	expect_error(e, "ALTER VIEW t RENAME TO u", "'t' is a table, not a view: use ALTER TABLE");
	sl_engine_close(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_show_create),
		cmocka_unit_test(test_show_lists),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_like),
		cmocka_unit_test(test_ctas),
		cmocka_unit_test(test_alter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
