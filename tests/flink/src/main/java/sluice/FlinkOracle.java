/*
 * FlinkOracle - the Apache Flink side of `make test-flink` (docs/testing.md).
 *
 * Runs SQL scripts through Flink 1.20's Table API in streaming mode in a local
 * MiniCluster, one fresh TableEnvironment per script, parallelism 1, session time
 * zone UTC (a script may SET its own). Every statement runs in order; each query
 * (SELECT / WITH / VALUES) is collected with TableResult.collect() and printed as
 * the changelog Flink emitted, one row a line, "+I[v1, v2]" with the row kind and
 * the values as sluice's print sink writes them (docs/semantics.md §2: TRUE/FALSE,
 * DECIMAL with its scale, DOUBLE as Java's Double.toString, timestamps without
 * trailing zeros in the fraction, TIMESTAMP_LTZ in the session zone, ROW as "(a, b)",
 * NULL as "null", a NULL inside an ARRAY or MAP as "NULL").
 *
 * Usage: FlinkOracle OUTDIR script.sql...  writes OUTDIR/<script name>.out (the rows)
 * and OUTDIR/<script name>.err (empty when the script ran; otherwise the error, its
 * first line the exception's message). A script that runs longer than the timeout
 * (system property oracle.timeout, seconds, default 120) is cancelled and reported
 * as "TIMEOUT" in its .err file.
 */
package sluice;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

public final class FlinkOracle {
	private FlinkOracle() {}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("usage: FlinkOracle OUTDIR script.sql...");
			System.exit(2);
		}
		Path out = Paths.get(args[0]);
		Files.createDirectories(out);
		long timeout = Long.getLong("oracle.timeout", 120L);
		ExecutorService pool = Executors.newCachedThreadPool(r -> {
			Thread t = new Thread(r, "oracle-script");
			t.setDaemon(true);
			return t;
		});
		for (int i = 1; i < args.length; i++) {
			Path script = Paths.get(args[i]);
			String name = script.getFileName().toString().replaceFirst("\\.sql$", "");
			StringBuilder rows = new StringBuilder();
			String err = "";
			long t0 = System.nanoTime();
			Runner runner = new Runner(Files.readString(script, StandardCharsets.UTF_8), rows);
			Future<?> f = pool.submit(() -> {
				runner.run();
				return null;
			});
			try {
				f.get(timeout, TimeUnit.SECONDS);
			} catch (TimeoutException e) {
				runner.cancel();
				f.cancel(true);
				err = "TIMEOUT after " + timeout + " s\n";
			} catch (java.util.concurrent.ExecutionException e) {
				err = describe(e.getCause());
			}
			synchronized (rows) {
				Files.writeString(out.resolve(name + ".out"), rows.toString(), StandardCharsets.UTF_8);
			}
			Files.writeString(out.resolve(name + ".err"), err, StandardCharsets.UTF_8);
			System.out.printf("%s %s %.1f s%n", name, err.isEmpty() ? "ok" : "error",
				(System.nanoTime() - t0) / 1e9);
			System.out.flush();
		}
		pool.shutdownNow();
		System.exit(0);
	}

	/* The innermost message first (the useful one), then the whole trace. */
	private static String describe(Throwable t) {
		Throwable root = t;
		while (root.getCause() != null && root.getCause() != root)
			root = root.getCause();
		StringWriter sw = new StringWriter();
		t.printStackTrace(new PrintWriter(sw));
		String first = t.getMessage() == null ? t.toString() : t.getMessage();
		String last = root.getMessage() == null ? root.toString() : root.getMessage();
		return first.replace('\n', ' ') + "\n" + (root != t ? "root cause: " + last + "\n" : "")
			+ sw;
	}

	/* SET 'key' = 'value' (what the SQL client accepts; executeSql does not). */
	static final java.util.regex.Pattern SET = java.util.regex.Pattern.compile(
		"(?is)\\s*SET\\s+'([^']*)'\\s*=\\s*'([^']*)'\\s*");

	/* One script in its own TableEnvironment. */
	static final class Runner {
		private final String sql;
		private final StringBuilder rows;
		private volatile CloseableIterator<Row> current;
		private volatile boolean cancelled;

		Runner(String sql, StringBuilder rows) {
			this.sql = sql;
			this.rows = rows;
		}

		void cancel() {
			cancelled = true;
			CloseableIterator<Row> it = current;
			if (it != null) {
				try {
					it.close();
				} catch (Exception ignored) {
					// the job is being torn down anyway
				}
			}
		}

		void run() throws Exception {
			TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
			env.getConfig().set("parallelism.default", "1");
			env.getConfig().set("table.local-time-zone", "UTC");
			for (String stmt : splitStatements(sql)) {
				if (cancelled)
					return;
				String head = firstWord(stmt);
				java.util.regex.Matcher m = SET.matcher(stripComments(stmt));
				if (head.equals("SET") && m.matches()) {
					env.getConfig().set(m.group(1), m.group(2));
					continue;
				}
				if (head.equals("SELECT") || head.equals("WITH") || head.equals("VALUES")
					|| head.equals("(")) {
					TableResult r = env.executeSql(stmt);
					ZoneId zone = zoneOf(env);
					try (CloseableIterator<Row> it = r.collect()) {
						current = it;
						while (it.hasNext()) {
							Row row = it.next();
							String line = row.getKind().shortString() + "[" + fields(row, zone) + "]\n";
							synchronized (rows) {
								rows.append(line);
							}
						}
					} finally {
						current = null;
					}
				} else {
					TableResult r = env.executeSql(stmt);
					if (head.equals("INSERT") || head.equals("EXECUTE"))
						r.await();
				}
			}
		}

		private static ZoneId zoneOf(TableEnvironment env) {
			String z = env.getConfig().getConfiguration().getString("table.local-time-zone", "UTC");
			return z.equals("default") ? ZoneId.systemDefault() : ZoneId.of(z);
		}
	}

	static String fields(Row row, ZoneId zone) {
		StringBuilder b = new StringBuilder();
		for (int i = 0; i < row.getArity(); i++) {
			if (i > 0)
				b.append(", ");
			b.append(text(row.getField(i), zone));
		}
		return b.toString();
	}

	/* An ARRAY element or MAP key or value: a NULL is "NULL", as Flink's CAST to STRING
	 * writes it inside a collection (ArrayToStringCastRule in 1.20.3; what its print
	 * connector writes, and sluice too: src/data/valtext.c). */
	static String elem(Object v, ZoneId zone) {
		return v == null ? "NULL" : text(v, zone);
	}

	/* sluice's text form of one value (src/base/valtext.c). */
	static String text(Object v, ZoneId zone) {
		if (v == null)
			return "null";
		if (v instanceof Boolean)
			return ((Boolean) v) ? "TRUE" : "FALSE";
		if (v instanceof BigDecimal)
			return ((BigDecimal) v).toPlainString();
		if (v instanceof byte[]) {
			StringBuilder b = new StringBuilder("x'");
			for (byte x : (byte[]) v)
				b.append(String.format("%02x", x & 0xff));
			return b.append('\'').toString();
		}
		if (v instanceof LocalDateTime)
			return timestamp((LocalDateTime) v);
		if (v instanceof Instant)
			return timestamp(LocalDateTime.ofInstant((Instant) v, zone));
		if (v instanceof java.sql.Timestamp)
			return timestamp(((java.sql.Timestamp) v).toLocalDateTime());
		if (v instanceof LocalDate)
			return v.toString();
		if (v instanceof LocalTime)
			return time((LocalTime) v);
		if (v instanceof Duration) {
			Duration d = (Duration) v;
			long ms = Math.abs(d.toMillis());
			return String.format("%c%d %02d:%02d:%02d.%03d", d.isNegative() ? '-' : '+', ms / 86400000,
				ms / 3600000 % 24, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
		}
		if (v instanceof Period) {
			long m = ((Period) v).toTotalMonths();
			long a = Math.abs(m);
			return String.format("%c%d-%02d", m < 0 ? '-' : '+', a / 12, a % 12);
		}
		if (v instanceof Row)
			return "(" + fields((Row) v, zone) + ")";
		if (v instanceof Object[]) {
			StringBuilder b = new StringBuilder("[");
			Object[] a = (Object[]) v;
			for (int i = 0; i < a.length; i++)
				b.append(i > 0 ? ", " : "").append(elem(a[i], zone));
			return b.append(']').toString();
		}
		if (v instanceof Map) {
			StringBuilder b = new StringBuilder("{");
			boolean first = true;
			for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
				b.append(first ? "" : ", ").append(elem(e.getKey(), zone)).append('=')
					.append(elem(e.getValue(), zone));
				first = false;
			}
			return b.append('}').toString();
		}
		return v.toString();
	}

	private static String fraction(int nanos) {
		if (nanos == 0)
			return "";
		String f = String.format("%09d", nanos).replaceFirst("0+$", "");
		return "." + f;
	}

	static String timestamp(LocalDateTime t) {
		return String.format("%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(),
			t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()) + fraction(t.getNano());
	}

	static String time(LocalTime t) {
		return String.format("%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond())
			+ fraction(t.getNano());
	}

	/* The statement without the comments before its first keyword. */
	static String stripComments(String s) {
		int i = 0;
		int n = s.length();
		while (i < n) {
			if (Character.isWhitespace(s.charAt(i))) {
				i++;
			} else if (s.startsWith("--", i)) {
				while (i < n && s.charAt(i) != '\n')
					i++;
			} else if (s.startsWith("/*", i)) {
				int e = s.indexOf("*/", i + 2);
				i = e < 0 ? n : e + 2;
			} else {
				break;
			}
		}
		return s.substring(i);
	}

	/* The first keyword of a statement (comments skipped), upper case. */
	static String firstWord(String s) {
		int i = 0;
		int n = s.length();
		while (i < n) {
			char c = s.charAt(i);
			if (Character.isWhitespace(c)) {
				i++;
			} else if (s.startsWith("--", i)) {
				while (i < n && s.charAt(i) != '\n')
					i++;
			} else if (s.startsWith("/*", i)) {
				int e = s.indexOf("*/", i + 2);
				i = e < 0 ? n : e + 2;
			} else {
				break;
			}
		}
		if (i < n && s.charAt(i) == '(')
			return "(";
		int j = i;
		while (j < n && Character.isLetter(s.charAt(j)))
			j++;
		return s.substring(i, j).toUpperCase();
	}

	/*
	 * Splits a script at top-level semicolons (outside quotes and comments); an
	 * EXECUTE STATEMENT SET BEGIN ... END; block stays one statement. Statements
	 * holding only comments are dropped.
	 */
	static List<String> splitStatements(String s) {
		List<String> out = new ArrayList<>();
		StringBuilder cur = new StringBuilder();
		int n = s.length();
		boolean inSet = false;
		for (int i = 0; i < n; i++) {
			char c = s.charAt(i);
			if (c == '\'' || c == '"' || c == '`') {
				int j = i + 1;
				while (j < n) {
					if (s.charAt(j) == c) {
						if (j + 1 < n && s.charAt(j + 1) == c) {
							j += 2;
							continue;
						}
						break;
					}
					j++;
				}
				cur.append(s, i, Math.min(j + 1, n));
				i = j;
			} else if (s.startsWith("--", i)) {
				int j = s.indexOf('\n', i);
				j = j < 0 ? n : j;
				cur.append(s, i, j);
				i = j - 1;
			} else if (s.startsWith("/*", i)) {
				int j = s.indexOf("*/", i + 2);
				j = j < 0 ? n : j + 2;
				cur.append(s, i, j);
				i = j - 1;
			} else if (c == ';') {
				String stmt = cur.toString();
				String up = stmt.toUpperCase();
				if (!inSet && firstWord(stmt).equals("EXECUTE") && up.contains("BEGIN"))
					inSet = true;
				if (inSet && !up.trim().endsWith("END")) {
					cur.append(c);
					continue;
				}
				inSet = false;
				if (!firstWord(stmt).isEmpty())
					out.add(stmt.trim());
				cur.setLength(0);
			} else {
				cur.append(c);
			}
		}
		if (!firstWord(cur.toString()).isEmpty())
			out.add(cur.toString().trim());
		return out;
	}
}
