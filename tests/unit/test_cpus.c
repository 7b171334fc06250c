/*
 * test_cpus.c - the CPUs a process may use (src/runtime/cpus.h), over fake
 * cgroup trees in a scratch directory: cgroup v2 cpu.max (a quota, "max",
 * rounding up, at least 1, a parent's quota bounding its child, a cgroup
 * path missing under the mount as inside a container, damaged files),
 * cgroup v1 cfs quota and period (the cpu,cpuacct and cpu mount names, -1
 * for none), both at once (the smaller wins) and no cgroup file at all;
 * then the affinity mask of this thread narrowed to one CPU.
 */
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/cpus.h"

static char root[1024];

static int setup(void **st)
{
	return th_tmpdir(root, sizeof(root), "sluice-cpus");
}

static int teardown(void **st)
{
	return th_rmtree(root);
}

/* Writes text to root/rel, making the directories on the way. */
static void put(const char *rel, const char *text)
{
	char path[2048];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s", path);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The limit for the process whose /proc/self/cgroup is `cgroup_text`,
 * with the cgroup filesystems under root/fs. */
static int limit(const char *cgroup_text)
{
	char proc[2048], fs[2048];
	put("proc-cgroup", cgroup_text);
	snprintf(proc, sizeof(proc), "%s/proc-cgroup", root);
	snprintf(fs, sizeof(fs), "%s/fs", root);
	return sl_cpus_cgroup_limit(proc, fs);
}

static void test_v2(void **st)
{
	const char *self = "0::/jobs/one\n";
	put("fs/jobs/one/cpu.max", "200000 100000\n");
	assert_int_equal(limit(self), 2);
	put("fs/jobs/one/cpu.max", "150000 100000\n"); /* 1.5 CPUs: 2 threads */
	assert_int_equal(limit(self), 2);
	put("fs/jobs/one/cpu.max", "20000 100000\n"); /* a fifth: still 1 */
	assert_int_equal(limit(self), 1);
	put("fs/jobs/one/cpu.max", "max 100000\n");
	assert_int_equal(limit(self), 0);
	/* the parent's quota bounds the child, the smallest on the way wins */
	put("fs/jobs/cpu.max", "300000 100000\n");
	assert_int_equal(limit(self), 3);
	put("fs/jobs/one/cpu.max", "800000 100000\n");
	assert_int_equal(limit(self), 3);
	put("fs/jobs/one/cpu.max", "100000 50000\n");
	assert_int_equal(limit(self), 2);
	put("fs/cpu.max", "100000 100000\n"); /* the mount root counts too */
	assert_int_equal(limit(self), 1);
	put("fs/cpu.max", "max 100000\n");
	/* a path that does not exist under the mount: its ancestors count */
	assert_int_equal(limit("0::/jobs/one/gone/deeper\n"), 2);
	assert_int_equal(limit("0::/elsewhere\n"), 0);
	put("fs/cpu.max", "250000 100000\n");
	assert_int_equal(limit("0::/docker/abc123\n"), 3);
	assert_int_equal(limit("0::/\n"), 3);
	/* damaged or empty files are no quota */
	put("fs/cpu.max", "garbage\n");
	assert_int_equal(limit("0::/\n"), 0);
	put("fs/cpu.max", "");
	assert_int_equal(limit("0::/\n"), 0);
	put("fs/cpu.max", "0 100000\n");
	assert_int_equal(limit("0::/\n"), 0);
	/* lines that are not the v2 hierarchy do not read cpu.max */
	put("fs/cpu.max", "100000 100000\n");
	assert_int_equal(limit("1:name=systemd:/\n"), 0);
	assert_int_equal(limit("garbage\n\n0:\n"), 0);
}

static void test_v1(void **st)
{
	const char *self = "12:memory:/job\n4:cpu,cpuacct:/job\n1:name=systemd:/job\n";
	put("fs/cpu,cpuacct/job/cpu.cfs_quota_us", "400000\n");
	put("fs/cpu,cpuacct/job/cpu.cfs_period_us", "100000\n");
	assert_int_equal(limit(self), 4);
	put("fs/cpu,cpuacct/job/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(limit(self), 0);
	put("fs/cpu,cpuacct/cpu.cfs_quota_us", "50000\n"); /* the parent's */
	put("fs/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
	assert_int_equal(limit(self), 1);
	/* no period: no quota */
	put("fs/cpu,cpuacct/cpu.cfs_period_us", "x\n");
	assert_int_equal(limit(self), 0);
	/* the controller mounted as "cpu", listed in another order */
	put("fs/cpu/job/cpu.cfs_quota_us", "250000\n");
	put("fs/cpu/job/cpu.cfs_period_us", "100000\n");
	assert_int_equal(limit("3:cpuacct,cpu:/job\n"), 3);
	/* cpuset or cpuacct alone is not the cpu controller */
	assert_int_equal(limit("5:cpuset:/job\n6:cpuacct:/job\n"), 0);
}

static void test_hybrid_and_missing(void **st)
{
	put("fs/a/cpu.max", "600000 100000\n");
	put("fs/cpu,cpuacct/a/cpu.cfs_quota_us", "200000\n");
	put("fs/cpu,cpuacct/a/cpu.cfs_period_us", "100000\n");
	assert_int_equal(limit("4:cpu,cpuacct:/a\n0::/a\n"), 2);
	put("fs/a/cpu.max", "100000 100000\n");
	assert_int_equal(limit("4:cpu,cpuacct:/a\n0::/a\n"), 1);
	/* no /proc file, no mount */
	char fs[2048];
	snprintf(fs, sizeof(fs), "%s/fs", root);
	assert_int_equal(sl_cpus_cgroup_limit("/nonexistent/cgroup", fs), 0);
	assert_int_equal(limit("0::/a\n") >= 0, 1);
	char proc[2048];
	snprintf(proc, sizeof(proc), "%s/proc-cgroup", root);
	assert_int_equal(sl_cpus_cgroup_limit(proc, "/nonexistent/fs"), 0);
}

static void test_affinity(void **st)
{
	cpu_set_t old;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	int n = sl_cpus_affinity();
	assert_int_equal(n, CPU_COUNT(&old));
	int avail = sl_cpus_available();
	assert_true(avail >= 1 && avail <= n);
	/* one CPU of the mask */
	int first = 0;
	while (!CPU_ISSET(first, &old))
		first++;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	int got = sl_cpus_affinity(), got_avail = sl_cpus_available();
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(got, 1);
	assert_int_equal(got_avail, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_and_missing, setup, teardown),
		cmocka_unit_test(test_affinity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
