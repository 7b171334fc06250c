/*
 * scaleout.c - the member process of a scale-out through a Kafka consumer
 * group ('sluice.scale-out' = 'kafka-group'; the design and its reasons:
 * docs/kafka.md "Several processes, one job").
 *
 * sl_exec of such a job in a process without 'sluice.scale-out.partition'
 * plans and checks it (src/plan/plan_scaleout.c) and opens nothing
 * (engine.c); sl__scale_out_member keeps the Kafka table's options.
 * sl_run_scale_out joins the group (src/connector/conn_kafka_group.c:
 * cooperative-sticky, reads nothing) and runs one child process per
 * partition the group gives it: the caller's command for the same job
 * with `--set sluice.scale-out.partition=P -q`.  The child's engine
 * (sl__scale_out_child, when its job starts, after the script's own SETs)
 * then sets
 *   pipeline.name            <job>-p<P>  (a job of its own: lock, attempts,
 *                                         part-file names)
 *   state.checkpoints.dir    <base>/p<P>/checkpoints
 *   state.savepoints.dir     <base>/p<P>/savepoints
 *   parallelism.default      1
 * and its job finished writes <base>/p<P>/_finished, where <base> is the
 * job's 'state.checkpoints.dir' (default ./sluice-state/<job>/checkpoints),
 * which every process must reach; its Kafka source reads only P
 * (plan_job.c).  A
 * child restores its partition's newest complete checkpoint or savepoint
 * (the offset and that partition's state) like any restarted job.  A
 * child dies with its member (PR_SET_PDEATHSIG = SIGKILL), so a member
 * killed with kill -9 leaves no orphan writing output.  On a revoke the
 * member sends SIGTERM (the child stops with a savepoint, docs/checkpoints.md)
 * and waits for it before the partition can go to another member; a
 * partition lost without a revoke gets SIGKILL (another member may own
 * it already).  A child whose job finished (bounded input, final
 * checkpoint taken) writes its finished file (sl__scale_out_finished);
 * the member starts no child for a finished partition and returns once
 * every partition of the topic is finished.  A child that dies alone
 * before its input ended is started again after a second (it restores
 * its partition's last complete checkpoint), up to
 * 'sluice.scale-out.child-restarts' times (default 3) per partition;
 * past that it fails the member, after its other children stopped with
 * savepoints.  Each child reports its completed checkpoints' offsets on a
 * pipe (--set sluice.scale-out.offsets-fd=N; conn_kafka.c writes "P
 * OFFSET" lines) and the member, which holds the partition in the group,
 * commits them (sl_kgroup_commit), so Kafka tools show the lag.
 */
#include "engine_int.h"
#include "../connector/conn_kafka_group.h"
#include "../plan/plan.h"
#include "../state/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SO_MAX_KIDS 1024
#define SO_STOP_WAIT_MS 120000 /* a child's stop with savepoint, before SIGKILL */

typedef struct so_kid {
	int32_t part;
	pid_t pid;   /* 0: held but finished (no child), or waiting for restart_at */
	int rfd;     /* the read end of its offsets pipe, -1 = none */
	char line[64]; /* a partial line read from it */
	int nline;
	int64_t offset;    /* the last offset it reported (-1 = none) */
	int64_t committed; /* the last offset committed to the group (-1 = none) */
	int64_t commit_ms; /* monotonic ms of the last commit */
	int restarts;      /* times it was restarted after dying alone */
	int64_t restart_at; /* monotonic ms of its next start, 0 = none due */
} so_kid;

typedef struct so_member {
	sl_engine *e;
	char *const *argv;
	int argc;
	char base[2048];
	int nkids;
	so_kid kids[SO_MAX_KIDS];
	int failed;          /* a child failed: leave */
	char failmsg[512];
	sl_kgroup *g;        /* the group (commits of the children's offsets) */
	int commit;          /* 'properties.commit.offsets.on.checkpoint' */
	int max_restarts;    /* 'sluice.scale-out.child-restarts' */
} so_member;

/* The job's name and the base of its partitions' directories. */
static int job_base(sl_engine *e, const char **job, char *base, size_t cap)
{
	*job = sl_opts_get(&e->session, "pipeline.name");
	if (!*job)
		*job = sl_opts_get(&e->session, "sluice.script-name");
	if (!*job)
		return sl_err_set(&e->err, SL_EINVAL, "checkpointing needs a job name: SET "
		                  "'pipeline.name' = '...' (run -e and run - have no script file name)");
	const char *d = sl_opts_get2(&e->session, "state.checkpoints.dir",
	                             "execution.checkpointing.dir");
	if (d)
		snprintf(base, cap, "%s", d);
	else
		snprintf(base, cap, "./sluice-state/%s/checkpoints", *job);
	return 0;
}

int sl__scale_out_member(sl_engine *e, const sl_scale_out *so)
{
	sl_opts_init(&e->so_opts, &e->opt_arena);
	if (sl_opts_merge(&e->so_opts, so->opts))
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	for (int i = 0; i < e->so_opts.n; i++)
		e->so_opts.v[i].used = 0;
	snprintf(e->so_table, sizeof e->so_table, "%s", so->table);
	snprintf(e->so_topic, sizeof e->so_topic, "%s", so->topic);
	e->so_nco = 0;
	for (int i = 0; i < so->nco && i < 8; i++)
		snprintf(e->so_co[e->so_nco++], sizeof e->so_co[0], "%s", so->co_topics[i]);
	const char *job;
	char base[2048];
	int rc = job_base(e, &job, base, sizeof base);
	if (rc)
		return rc;
	snprintf(e->so_job, sizeof e->so_job, "%s", job);
	snprintf(e->so_base, sizeof e->so_base, "%s", base);
	e->so_member = 1;
	return 0;
}

int sl_scale_out_member(sl_engine *e)
{
	return e->so_member;
}

int sl__scale_out_child(sl_engine *e)
{
	const char *part = sl_opts_get(&e->session, "sluice.scale-out.partition");
	if (!part || sl_opts_get(&e->session, "sluice.scale-out.finished-file"))
		return 0; /* not a child, or set up already */
	const char *job;
	char base[2048], v[2400];
	int rc = job_base(e, &job, base, sizeof base);
	if (rc)
		return rc;
	char name[160];
	snprintf(name, sizeof name, "%s-p%s", job, part);
	snprintf(v, sizeof v, "%s/p%s/_finished", base, part);
	rc |= sl_opts_set(&e->session, "sluice.scale-out.finished-file", v);
	snprintf(v, sizeof v, "%s/p%s/checkpoints", base, part);
	rc |= sl_opts_set(&e->session, "state.checkpoints.dir", v);
	snprintf(v, sizeof v, "%s/p%s/savepoints", base, part);
	rc |= sl_opts_set(&e->session, "state.savepoints.dir", v);
	rc |= sl_opts_set(&e->session, "pipeline.name", name);
	rc |= sl_opts_set(&e->session, "parallelism.default", "1");
	return rc ? sl_err_set(&e->err, SL_ENOMEM, "out of memory") : 0;
}

int sl__scale_out_finished(sl_engine *e)
{
	const char *f = sl_opts_get(&e->session, "sluice.scale-out.finished-file");
	if (!f || !sl_opts_get(&e->session, "sluice.scale-out.partition"))
		return 0;
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fsync(fd)) {
		int en = errno;
		if (fd >= 0)
			close(fd);
		return sl_err_set(&e->err, SL_EIO, "scale-out: cannot write '%s': %s", f, strerror(en));
	}
	close(fd);
	return 0;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void part_path(const so_member *m, int32_t p, const char *what, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/p%d%s%s", m->base, (int)p, what[0] ? "/" : "", what);
}

static int finished(const so_member *m, int32_t p)
{
	char f[2300];
	part_path(m, p, "_finished", f, sizeof f);
	return access(f, F_OK) == 0;
}

/* A finished partition's last offset, written by the member that saw its
 * child finish (<base>/p<P>/_offset), so that whichever member holds it
 * later, or is the last to leave, can commit it to the group. */
static void write_offset(const so_member *m, int32_t p, int64_t off)
{
	char f[2300], t[2310];
	part_path(m, p, "_offset", f, sizeof f);
	snprintf(t, sizeof t, "%s.tmp", f);
	FILE *fp = fopen(t, "w");
	if (!fp)
		return;
	int bad = fprintf(fp, "%lld\n", (long long)off) < 0;
	bad |= fclose(fp) != 0;
	if (bad || rename(t, f))
		unlink(t);
}

static int64_t read_offset(const so_member *m, int32_t p)
{
	char f[2300];
	part_path(m, p, "_offset", f, sizeof f);
	FILE *fp = fopen(f, "r");
	long long off = -1;
	if (fp) {
		if (fscanf(fp, "%lld", &off) != 1)
			off = -1;
		fclose(fp);
	}
	return off;
}

/* How a child ended, for messages. */
static void status_text(int st, char *buf, size_t cap)
{
	if (WIFEXITED(st))
		snprintf(buf, cap, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, cap, "status %d", st);
}

static void spawn(so_member *m, so_kid *k)
{
	char set[64], fdset[64], dir[2300];
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC)) {
		m->failed = 1;
		snprintf(m->failmsg, sizeof m->failmsg, "cannot make the offsets pipe of partition "
		         "%d: %s", (int)k->part, strerror(errno));
		return;
	}
	snprintf(set, sizeof set, "sluice.scale-out.partition=%d", (int)k->part);
	snprintf(fdset, sizeof fdset, "sluice.scale-out.offsets-fd=%d", pfd[1]);
	char **av = calloc((size_t)m->argc + 6, sizeof *av);
	if (!av) {
		close(pfd[0]);
		close(pfd[1]);
		m->failed = 1;
		snprintf(m->failmsg, sizeof m->failmsg, "out of memory");
		return;
	}
	int n = 0;
	for (int i = 0; i < m->argc; i++)
		av[n++] = m->argv[i];
	av[n++] = "--set";
	av[n++] = set;
	av[n++] = "--set";
	av[n++] = fdset;
	av[n++] = "-q";
	av[n] = NULL;
	part_path(m, k->part, "", dir, sizeof dir);
	sl_err err = {0};
	sl_mkdirs(dir, &err);
	fflush(NULL);
	pid_t parent = getpid();
	pid_t pid = fork();
	int fork_errno = errno;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* its own pipe's write end survives the exec, never blocks */
		fcntl(pfd[1], F_SETFD, 0);
		fcntl(pfd[1], F_SETFL, O_NONBLOCK);
		execv(av[0], av);
		_exit(127);
	}
	free(av);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		m->failed = 1;
		snprintf(m->failmsg, sizeof m->failmsg, "cannot start the process of partition %d: "
		         "%s", (int)k->part, strerror(fork_errno));
		return;
	}
	k->pid = pid;
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	k->rfd = pfd[0];
	k->nline = 0;
	k->restart_at = 0;
	fprintf(stderr, "sluice: scale-out: partition %d assigned: process %d runs it\n",
	        (int)k->part, (int)pid);
}

/*
 * Reads what child k reported on its pipe ("PARTITION OFFSET" lines: the
 * offsets of its completed checkpoints, conn_kafka.c) and commits the
 * newest to the group as the partition's holder, so Kafka tools show the
 * partition's lag: at once when now is 1 (the child ended, or the
 * partition is being revoked), at most once a second when 0, never when
 * -1 (the partition was lost: it may be another member's).  Commits wait
 * for the broker's answer (an asynchronous one could fail unseen in a
 * rebalance); a failed one is printed and tried again later.  At the
 * child's end (eof) the pipe is closed.
 */
static void offsets(so_member *m, so_kid *k, int now, int eof)
{
	int commit = now >= 0;
	if (now < 0)
		now = 0;
	char buf[1024];
	ssize_t r;
	while (k->rfd >= 0 && (r = read(k->rfd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (k->nline < (int)sizeof k->line - 1)
					k->line[k->nline++] = buf[i];
				continue;
			}
			k->line[k->nline] = 0;
			k->nline = 0;
			int part, used = 0;
			long long off;
			/* "TOPIC PARTITION OFFSET": only the group's topic (a
			 * co-partitioned join's other topics are read, not committed) */
			const char *sp = strchr(k->line, ' ');
			if (sp && (size_t)(sp - k->line) == strlen(m->e->so_topic) &&
			    !strncmp(k->line, m->e->so_topic, (size_t)(sp - k->line)) &&
			    sscanf(sp, " %d %lld%n", &part, &off, &used) == 2 && part == k->part)
				k->offset = off;
		}
	if (eof && k->rfd >= 0) {
		close(k->rfd);
		k->rfd = -1;
	}
	if (commit && m->commit && m->g && k->offset > k->committed &&
	    (now || mono_ms() - k->commit_ms >= 1000)) {
		sl_err err = {0};
		k->commit_ms = mono_ms();
		if (!sl_kgroup_commit(m->g, k->part, k->offset, 1, &err))
			k->committed = k->offset;
	}
}

/* Waits up to ms for child k; its status or -1 if it is still running. */
static int wait_kid(so_kid *k, int ms)
{
	for (int waited = 0;; waited += 10) {
		int st;
		pid_t r = waitpid(k->pid, &st, WNOHANG);
		if (r == k->pid || (r < 0 && errno == ECHILD))
			return r == k->pid ? st : 0;
		if (waited >= ms)
			return -1;
		sleep_ms(10);
	}
}

static void on_assigned(void *ctx, int32_t part)
{
	so_member *m = ctx;
	if (m->nkids == SO_MAX_KIDS || m->failed) {
		if (!m->failed)
			snprintf(m->failmsg, sizeof m->failmsg, "more than %d partitions", SO_MAX_KIDS);
		m->failed = 1;
		return;
	}
	so_kid *k = &m->kids[m->nkids++];
	memset(k, 0, sizeof *k);
	k->part = part;
	k->rfd = -1;
	k->offset = k->committed = -1;
	if (finished(m, part)) {
		fprintf(stderr, "sluice: scale-out: partition %d assigned: finished already\n",
		        (int)part);
		k->offset = read_offset(m, part); /* committed by the next pass */
	} else
		spawn(m, k);
}

static void on_revoked(void *ctx, int32_t part, int lost)
{
	so_member *m = ctx;
	for (int i = 0; i < m->nkids; i++) {
		so_kid *k = &m->kids[i];
		if (k->part != part)
			continue;
		if (k->pid > 0) {
			kill(k->pid, lost ? SIGKILL : SIGTERM);
			int st = wait_kid(k, lost ? 10000 : SO_STOP_WAIT_MS);
			if (st == -1) {
				kill(k->pid, SIGKILL);
				st = wait_kid(k, 10000);
			}
			char how[64];
			status_text(st, how, sizeof how);
			fprintf(stderr, "sluice: scale-out: partition %d %s: process %d stopped (%s)\n",
			        (int)part, lost ? "lost" : "revoked", (int)k->pid, how);
		}
		/* its savepoint's offset, committed while the partition is still
		 * this member's (not when lost: it may be another's already);
		 * a finished one's last offset for whoever holds it next */
		offsets(m, k, lost ? -1 : 1, 1);
		if (k->offset >= 0 && finished(m, part) && read_offset(m, part) < 0)
			write_offset(m, part, k->offset);
		m->kids[i] = m->kids[--m->nkids];
		return;
	}
}

/*
 * When every partition has finished: commits each one's last offset
 * (_offset) to the group, whoever held it (the broker checks the member
 * and its generation, not the assignment), trying again for up to 5 s
 * while a rebalance (the other members leaving) refuses the commits.
 */
static void commit_finished(so_member *m, int nparts)
{
	if (!m->commit)
		return;
	int64_t until = mono_ms() + 5000;
	for (int p = 0; p < nparts; p++) {
		int64_t off = read_offset(m, p);
		sl_err err = {0};
		while (off >= 0 && sl_kgroup_commit(m->g, p, off, 1, &err) && mono_ms() < until) {
			sl_err_clear(&err);
			sl_kgroup_poll(m->g, 200, &err); /* the rejoin */
			sl_err_clear(&err);
		}
	}
}

/*
 * Reaps children that ended by themselves, commits what they reported,
 * and restarts one that died before its input ended (killed, crashed,
 * failed) after a second, from its partition's last complete checkpoint,
 * up to 'sluice.scale-out.child-restarts' times (default 3) per partition
 * while this member holds it; past that the member fails.  Also starts
 * the restarts that are due.
 */
static void reap(so_member *m)
{
	for (int i = 0; i < m->nkids; i++) {
		so_kid *k = &m->kids[i];
		int st;
		if (k->pid == 0 && k->restart_at && mono_ms() >= k->restart_at && !m->failed) {
			k->restarts++;
			spawn(m, k);
			continue;
		}
		if (k->pid <= 0 || waitpid(k->pid, &st, WNOHANG) != k->pid) {
			offsets(m, k, 0, 0);
			continue;
		}
		k->pid = 0;
		offsets(m, k, 1, 1);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && finished(m, k->part)) {
			fprintf(stderr, "sluice: scale-out: partition %d finished\n", (int)k->part);
			if (k->offset >= 0)
				write_offset(m, k->part, k->offset);
			continue;
		}
		char how[64];
		status_text(st, how, sizeof how);
		if (k->restarts < m->max_restarts) {
			fprintf(stderr, "sluice: scale-out: the process of partition %d ended (%s) "
			        "before its input did: restarting it from its last checkpoint in 1 s "
			        "(restart %d of %d)\n", (int)k->part, how, k->restarts + 1,
			        m->max_restarts);
			k->restart_at = mono_ms() + 1000;
			continue;
		}
		if (!m->failed)
			snprintf(m->failmsg, sizeof m->failmsg, "the process of partition %d ended "
			         "(%s) before its input did%s; its messages are above", (int)k->part, how,
			         m->max_restarts ? ", after its last restart" : "");
		m->failed = 1;
	}
}

int sl_run_scale_out(sl_engine *e, char *const *argv)
{
	sl_err_clear(&e->err);
	if (!e->so_member)
		return sl_err_set(&e->err, SL_EINVAL, "not a scale-out member "
		                  "('sluice.scale-out' = 'kafka-group')");
	so_member *m = calloc(1, sizeof *m);
	if (!m)
		return sl_err_set(&e->err, SL_ENOMEM, "out of memory");
	m->e = e;
	m->argv = argv;
	while (argv[m->argc])
		m->argc++;
	snprintf(m->base, sizeof m->base, "%s", e->so_base);
	sl_conn_args a = {.table = e->so_table, .opts = &e->so_opts};
	sl_kgroup_cb cb = {m, on_assigned, on_revoked};
	m->commit = 1;
	m->max_restarts = 3;
	const char *mr = sl_opts_get(&e->session, "sluice.scale-out.child-restarts");
	if (mr)
		m->max_restarts = atoi(mr) > 0 ? atoi(mr) : 0;
	int rc = sl_opts_bool(&e->so_opts, "properties.commit.offsets.on.checkpoint", 1,
	                      &m->commit, &e->err);
	sl_kgroup *g = rc ? NULL : sl_kgroup_open(&a, e->so_topic, &cb, &e->err);
	if (!rc)
		rc = g ? 0 : e->err.code;
	m->g = g;
	int nparts = g ? sl_kgroup_partitions(g, NULL, &e->err) : 0;
	if (g && !nparts)
		rc = e->err.code;
	/* a co-partitioned join: partition P of every topic goes to the child
	 * of partition P, so the counts must be equal */
	for (int i = 0; !rc && i < e->so_nco; i++) {
		int n = sl_kgroup_partitions(g, e->so_co[i], &e->err);
		if (!n)
			rc = e->err.code;
		else if (n != nparts)
			rc = sl_err_set(&e->err, SL_EINVAL, "scale-out: topic '%s' has %d partitions and "
			                "topic '%s' %d: a join of the two is split partition by partition, "
			                "which needs as many partitions in both (and equal keys in "
			                "partitions of the same number)", e->so_co[i], n, e->so_topic,
			                nparts);
	}
	if (!rc) /* after the checks: a refusal leaves a consumer that never joined */
		rc = sl_kgroup_subscribe(g, &e->err);
	if (!rc)
		fprintf(stderr, "sluice: scale-out: joining group of topic '%s' (%d partitions), "
		        "state under %s\n", e->so_topic, nparts, m->base);
	while (!rc && !m->failed && !__atomic_load_n(&e->so_stop, __ATOMIC_RELAXED)) {
		reap(m); /* children that finished, before the check below */
		int all = 1;
		for (int p = 0; p < nparts && all; p++)
			all = finished(m, p);
		if (all) {
			fprintf(stderr, "sluice: scale-out: every partition of '%s' has finished\n",
			        e->so_topic);
			commit_finished(m, nparts);
			break;
		}
		rc = sl_kgroup_poll(g, 100, &e->err);
	}
	sl_kgroup_close(g); /* revokes what is held: children stop with savepoints */
	m->g = NULL;
	for (int i = 0; i < m->nkids; i++) /* (none left after the revokes) */
		if (m->kids[i].pid > 0) {
			kill(m->kids[i].pid, SIGTERM);
			if (wait_kid(&m->kids[i], SO_STOP_WAIT_MS) == -1)
				kill(m->kids[i].pid, SIGKILL);
		}
	if (!rc && m->failed)
		rc = sl_err_set(&e->err, SL_ERUNTIME, "scale-out: %s", m->failmsg);
	free(m);
	return rc;
}
