# pg.sh - a throwaway PostgreSQL 15 server for one test (sourced, POSIX sh).
#
#   . tests/pg/pg.sh
#   pg_up            # sets PGW (work dir), PGPORT, PGHOST (socket dir), PGUSER,
#                    # PGDATABASE, PG_URL (jdbc:postgresql://127.0.0.1:PORT/postgres)
#                    # and PG_PASSWORD; installs an EXIT trap that stops it
#   psql_q 'SQL'     # psql over the socket (trust): unaligned, tuples only
#   pg_kill          # stop the server at once (SIGQUIT: "server gone")
#   pg_restart       # start it again on the same directory and port
#   pg_down          # stop it and remove its directory (the trap does this)
#
# The server listens on 127.0.0.1 at a free port in 20000-59999 and on a
# Unix socket in its own directory; TCP connections need the password
# (scram-sha-256: PG_PASSWORD, user postgres), the socket is trusted (psql
# in the tests).  fsync is off: the data need not survive the machine.
# initdb and postgres refuse to run as root: as root they run as the
# postgres user (setpriv; the postmaster's pid is read from postmaster.pid:
# $! of a backgrounded shell function is a subshell's).  Exit status 77
# (skip) when PostgreSQL 15's binaries are missing.
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
PG_PASSWORD=sluice-pw
if [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/initdb" ]; then
	echo "skip: PostgreSQL 15 binaries not found in $PGBIN" >&2
	exit 77
fi

pg_as() { # command...: run as the postgres user when root
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=postgres --regid=postgres --init-groups "$@"
	else
		"$@"
	fi
}

pg_up() {
	PGW=$(mktemp -d /tmp/sluice-pg.XXXXXX)
	chmod 755 "$PGW"
	mkdir -p "$PGW/sock"
	printf '%s\n' "$PG_PASSWORD" > "$PGW/pw"
	[ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PGW"
	if ! pg_as "$PGBIN/initdb" -D "$PGW/data" -U postgres --auth-local=trust \
		--auth-host=scram-sha-256 --pwfile="$PGW/pw" -E UTF8 --locale=C.UTF-8 --no-sync \
		> "$PGW/initdb.log" 2>&1; then
		echo "initdb failed:" >&2; cat "$PGW/initdb.log" >&2; return 1
	fi
	tries=0
	while :; do
		PGPORT=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
		pg_as "$PGBIN/postgres" -D "$PGW/data" -p "$PGPORT" -k "$PGW/sock" \
			-c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off \
			-c wal_level=logical -c max_prepared_transactions=0 \
			> "$PGW/server.log" 2>&1 &
		PG_PID=$!
		n=0
		while [ $n -lt 500 ] && kill -0 $PG_PID 2>/dev/null &&
			! pg_isready -q -h "$PGW/sock" -p "$PGPORT"; do
			sleep 0.01; n=$((n + 1))
		done
		if pg_isready -q -h "$PGW/sock" -p "$PGPORT"; then
			PG_PID=$(head -1 "$PGW/data/postmaster.pid")
			break
		fi
		kill $PG_PID 2>/dev/null; wait $PG_PID 2>/dev/null
		tries=$((tries + 1))
		if [ $tries -ge 5 ]; then
			echo "postgres did not start:" >&2; cat "$PGW/server.log" >&2; return 1
		fi
	done
	PGHOST="$PGW/sock"; PGUSER=postgres; PGDATABASE=postgres
	export PGHOST PGPORT PGUSER PGDATABASE
	PG_URL="jdbc:postgresql://127.0.0.1:$PGPORT/postgres"
	trap 'pg_down' EXIT
	trap 'exit 130' INT TERM
}

psql_q() {
	psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"
}

pg_restart() {
	pg_as "$PGBIN/postgres" -D "$PGW/data" -p "$PGPORT" -k "$PGW/sock" \
		-c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off \
		-c wal_level=logical -c max_prepared_transactions=0 >> "$PGW/server.log" 2>&1 &
	n=0
	while [ $n -lt 1000 ] && ! pg_isready -q -h "$PGW/sock" -p "$PGPORT"; do
		sleep 0.01; n=$((n + 1))
	done
	pg_isready -q -h "$PGW/sock" -p "$PGPORT" || { echo "postgres did not restart" >&2; return 1; }
	PG_PID=$(head -1 "$PGW/data/postmaster.pid")
}

pg_kill() { # the server goes away at once
	[ -n "${PG_PID:-}" ] || return 0
	kill -QUIT $PG_PID 2>/dev/null
	n=0
	while [ $n -lt 500 ] && [ -e "$PGW/data/postmaster.pid" ]; do sleep 0.01; n=$((n + 1)); done
	PG_PID=
}

pg_down() {
	if [ -n "${PG_PID:-}" ]; then
		kill -INT $PG_PID 2>/dev/null
		n=0
		while [ $n -lt 500 ] && [ -e "$PGW/data/postmaster.pid" ]; do sleep 0.01; n=$((n + 1)); done
		[ -e "$PGW/data/postmaster.pid" ] && kill -KILL $PG_PID 2>/dev/null
		PG_PID=
	fi
	[ -n "${PGW:-}" ] && [ -z "${PG_KEEP:-}" ] && rm -rf "$PGW"
	PGW=
}
