/*
 * cpus.h - how many CPUs this process may use: the default parallelism of
 * a job (docs/parallel.md; issue 10: "the number of CPUs this process may
 * use (cgroup and affinity aware), not 1").
 *
 * Two limits apply on Linux: the CPU affinity mask (taskset, cpusets,
 * container --cpuset-cpus) says on which CPUs the threads may run, and a
 * cgroup CPU quota (container --cpus, systemd CPUQuota) says how much CPU
 * time per period they may use, which is a number of CPUs when divided by
 * the period.  sl_cpus_available takes the smaller, the quota rounded up
 * (1.5 CPUs of quota keep 2 threads busy part of the time), and at least
 * 1.  The cgroup files are read from a root given as a parameter so that
 * tests can point it at a fake tree.
 */
#ifndef SL_CPUS_H
#define SL_CPUS_H

/* The CPUs in the calling thread's affinity mask (sched_getaffinity), at
 * least 1; 1 when the mask cannot be read. */
int sl_cpus_affinity(void);

/*
 * The CPU quota of the cgroup of a process, in CPUs rounded up, or 0 when
 * no quota applies (or nothing could be read).  proc_cgroup is that
 * process's /proc/<pid>/cgroup; cgroup_root is where the cgroup
 * filesystems are mounted (/sys/fs/cgroup).  Every quota on the way from
 * the process's cgroup up to the root counts (a parent's quota bounds its
 * children) and the smallest wins: cgroup v2's cpu.max ("max PERIOD" = no
 * quota) under cgroup_root, and cgroup v1's cpu.cfs_quota_us over
 * cpu.cfs_period_us (-1 = no quota) under the mount of the cpu
 * controller, cgroup_root/<its controller list> (cpu,cpuacct) or
 * cgroup_root/cpu.  A cgroup directory that does not exist (a container
 * seeing its host's cgroup path with its own cgroup mounted as the root)
 * is skipped and its ancestors still count.
 */
int sl_cpus_cgroup_limit(const char *proc_cgroup, const char *cgroup_root);

/* The CPUs this process may use: min(sl_cpus_affinity(), the cgroup
 * limit of /proc/self/cgroup under /sys/fs/cgroup when there is one),
 * at least 1. */
int sl_cpus_available(void);

#endif
