/*
 * FlinkBench - Apache Flink 1.20 measured beside sluice by `make bench-nexmark`
 * (bench/nexmark/bench.sh, docs/nexmark.md §9).
 *
 * Runs SQL scripts one after the other in one JVM, each in its own TableEnvironment
 * (CREATE statements, SET 'key' = 'value', and an INSERT INTO a blackhole sink) in
 * streaming mode in a local MiniCluster at the parallelism given, waits for each
 * INSERT's job to finish, and prints one line per script:
 *
 *   <script name> cpu_s=<CPU seconds> wall_s=<wall seconds>
 *   <script name> error <message>
 *
 * CPU seconds are the process's user + sys time (all threads: task threads, the
 * MiniCluster's, JIT compiler and GC threads) from just before the script's
 * TableEnvironment is created to the end of its job: planning, the MiniCluster's
 * start, the job and its shutdown; the JVM's start is not included.  Measured with
 * com.sun.management.OperatingSystemMXBean.getProcessCpuTime().  bench.sh runs each
 * query twice, over an empty file and over the events, and takes the difference as
 * the cost of the events (the fixed cost of a job is the empty run's).
 *
 * Usage: FlinkBench PARALLELISM script.sql...
 */
package sluice;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

public final class FlinkBench {
	private FlinkBench() {}

	private static long cpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean)
			ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}

	/* Runs one script; returns after its INSERT's job has finished. */
	private static void runScript(String parallelism, String sql) throws Exception {
		TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
		env.getConfig().set("parallelism.default", parallelism);
		env.getConfig().set("table.local-time-zone", "UTC");
		TableResult last = null;
		for (String stmt : FlinkOracle.splitStatements(sql)) {
			java.util.regex.Matcher m = FlinkOracle.SET.matcher(FlinkOracle.stripComments(stmt));
			if (FlinkOracle.firstWord(stmt).equals("SET") && m.matches()) {
				env.getConfig().set(m.group(1), m.group(2));
				continue;
			}
			TableResult r = env.executeSql(stmt);
			if (FlinkOracle.firstWord(stmt).equals("INSERT"))
				last = r;
		}
		if (last == null)
			throw new IllegalArgumentException("the script has no INSERT");
		last.await();
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 2) {
			System.err.println("usage: FlinkBench PARALLELISM script.sql...");
			System.exit(2);
		}
		for (int i = 1; i < args.length; i++) {
			Path script = Paths.get(args[i]);
			String name = script.getFileName().toString().replaceFirst("\\.sql$", "");
			String sql = Files.readString(script, StandardCharsets.UTF_8);
			long c0 = cpuNanos();
			long t0 = System.nanoTime();
			try {
				runScript(args[0], sql);
				System.out.printf("%s cpu_s=%.3f wall_s=%.3f%n", name, (cpuNanos() - c0) / 1e9,
					(System.nanoTime() - t0) / 1e9);
			} catch (Exception e) {
				Throwable root = e;
				while (root.getCause() != null && root.getCause() != root)
					root = root.getCause();
				String msg = String.valueOf(root.getMessage()).replace('\n', ' ');
				System.out.printf("%s error %s%n", name, msg.length() > 300 ? msg.substring(0, 300) : msg);
			}
			System.out.flush();
		}
		System.exit(0);
	}
}
