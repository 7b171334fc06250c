/*
 * cpus.c - the CPUs a process may use (cpus.h): its affinity mask bounded
 * by its cgroup's CPU quota.  Read once when a job is planned, never on a
 * hot path; nothing here allocates more than a CPU set and a line buffer.
 *
 * /proc/self/cgroup has a line "ID:CONTROLLERS:PATH" per hierarchy: cgroup
 * v2 is the line "0::PATH"; a cgroup v1 hierarchy with the cpu controller
 * lists it among its CONTROLLERS ("4:cpu,cpuacct:/PATH").  Quotas are read
 * on the path from the process's cgroup up to the mount root, so a
 * parent's quota bounds a child without one.
 */
#include "cpus.h"

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int sl_cpus_affinity(void)
{
	for (int n = 1024; n <= (1 << 16); n *= 4) {
		cpu_set_t *set = CPU_ALLOC(n);
		if (!set)
			return 1;
		size_t sz = CPU_ALLOC_SIZE(n);
		CPU_ZERO_S(sz, set);
		int count = -1;
		if (sched_getaffinity(0, sz, set) == 0)
			count = CPU_COUNT_S(sz, set);
		CPU_FREE(set);
		if (count >= 0)
			return count > 0 ? count : 1;
		/* EINVAL: more CPUs than the set holds; try a bigger one */
	}
	return 1;
}

/* Reads up to cap - 1 bytes of the first line of a file; 0 or -1. */
static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)cap, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

/* CPUs of quota q per period p, rounded up, at least 1; 0 if no quota. */
static int quota_cpus(long long q, long long p)
{
	if (q <= 0 || p <= 0)
		return 0;
	long long n = (q + p - 1) / p;
	return n > 4096 ? 4096 : (int)(n < 1 ? 1 : n);
}

/* cgroup v2: dir/cpu.max is "QUOTA PERIOD" or "max PERIOD". */
static int v2_limit(const char *dir)
{
	char path[4200], line[128];
	snprintf(path, sizeof(path), "%s/cpu.max", dir);
	if (read_line(path, line, sizeof(line)))
		return 0;
	long long q, p;
	if (sscanf(line, "%lld %lld", &q, &p) != 2)
		return 0; /* "max ..." or damaged */
	return quota_cpus(q, p);
}

/* cgroup v1: dir/cpu.cfs_quota_us (-1: none) over dir/cpu.cfs_period_us. */
static int v1_limit(const char *dir)
{
	char path[4200], line[128];
	long long q, p;
	snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir);
	if (read_line(path, line, sizeof(line)) || sscanf(line, "%lld", &q) != 1)
		return 0;
	snprintf(path, sizeof(path), "%s/cpu.cfs_period_us", dir);
	if (read_line(path, line, sizeof(line)) || sscanf(line, "%lld", &p) != 1)
		return 0;
	return quota_cpus(q, p);
}

/* The smaller of two limits, 0 meaning none. */
static int min_limit(int a, int b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* The smallest limit `one` finds in mount + cgpath and each ancestor of
 * it up to mount itself. */
static int walk_up(const char *mount, const char *cgpath, int (*one)(const char *))
{
	char dir[4200];
	int n = snprintf(dir, sizeof(dir), "%s%s%s", mount, cgpath[0] == '/' ? "" : "/", cgpath);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return 0;
	size_t root = strlen(mount), len = (size_t)n;
	while (len > root && dir[len - 1] == '/')
		dir[--len] = 0;
	int lim = 0;
	for (;;) {
		lim = min_limit(lim, one(dir));
		if (len <= root)
			return lim;
		while (len > root && dir[len - 1] != '/')
			len--;
		while (len > root && dir[len - 1] == '/')
			len--;
		dir[len] = 0;
	}
}

/* Is `ctrl` one of the comma-separated controllers in list[0..n)? */
static int has_controller(const char *list, size_t n, const char *ctrl)
{
	size_t k = strlen(ctrl);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && list[j] != ',')
			j++;
		if (j - i == k && !memcmp(list + i, ctrl, k))
			return 1;
		i = j + 1;
	}
	return 0;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int sl_cpus_cgroup_limit(const char *proc_cgroup, const char *cgroup_root)
{
	FILE *f = fopen(proc_cgroup, "r");
	if (!f)
		return 0;
	char line[4096], mount[4200];
	int lim = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		const char *ctrl = c1 + 1, *path = c2 + 1;
		size_t nctrl = (size_t)(c2 - ctrl);
		if (nctrl == 0 && c1 - line == 1 && line[0] == '0') {
			lim = min_limit(lim, walk_up(cgroup_root, path, v2_limit));
		} else if (has_controller(ctrl, nctrl, "cpu")) {
			snprintf(mount, sizeof(mount), "%s/%.*s", cgroup_root, (int)nctrl, ctrl);
			if (!is_dir(mount))
				snprintf(mount, sizeof(mount), "%s/cpu", cgroup_root);
			if (is_dir(mount))
				lim = min_limit(lim, walk_up(mount, path, v1_limit));
		}
	}
	fclose(f);
	return lim;
}

int sl_cpus_available(void)
{
	int n = sl_cpus_affinity();
	int q = sl_cpus_cgroup_limit("/proc/self/cgroup", "/sys/fs/cgroup");
	return q > 0 && q < n ? q : n;
}
