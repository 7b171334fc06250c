# lib.sh - the Kafka peer of the Kafka tests, sourced by tests/kafka/*.sh
# and tests/integration/kafka_*.sh (docs/kafka.md "Tests").
#
# The peer kind is $KAFKA_PEER:
#   mock    (default) librdkafka's mock cluster, build/tools/kafka_mock, one
#           broker on a random loopback port, started and stopped here in a
#           few ms;
#   broker  a real Apache Kafka broker (kafka_2.13 from Maven Central through
#           scripts/kafka-setup.sh), formatted and started here in KRaft mode
#           on two free loopback ports with a private log directory under $W,
#           in 5-15 s.  When $KAFKA_SHARED_BOOTSTRAP is set, an outer script
#           (tests/integration/kafka_broker.sh) already runs one: kafka_up
#           uses it and kafka_down leaves it running, so several scripts
#           share one broker start; kafka_topic then replaces a topic an
#           earlier script left under the same name.  A broker that does
#           not start fails the test (exit 1), never skips it.
# Tests only use these functions and $KAFKA_BOOTSTRAP:
#   kafka_up              start the peer, set KAFKA_BOOTSTRAP
#   kafka_topic NAME N    create topic NAME with N partitions
#   kafka_down            stop the peer (also run by the EXIT trap)
#   kafka_cat ARGS...     kcat against the peer (-b is added)
# The caller sets W (its scratch directory) before kafka_up.
KAFKA_PEER=${KAFKA_PEER:-mock}
KAFKA_PID=

kafka_up() {
	case "$KAFKA_PEER" in
	mock)
		rm -f "$W/kafka.ctl" "$W/kafka.out"
		mkfifo "$W/kafka.ctl"
		"$B/tools/kafka_mock" 1 < "$W/kafka.ctl" > "$W/kafka.out" 2> "$W/kafka.err" &
		KAFKA_PID=$!
		exec 9> "$W/kafka.ctl"
		i=0
		while [ ! -s "$W/kafka.out" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
		KAFKA_BOOTSTRAP=$(head -1 "$W/kafka.out")
		[ -n "$KAFKA_BOOTSTRAP" ] || { echo "kafka_up: the mock cluster did not start" >&2; cat "$W/kafka.err" >&2; exit 1; }
		;;
	broker)
		if [ -n "${KAFKA_SHARED_BOOTSTRAP:-}" ]; then
			KAFKA_BOOTSTRAP=$KAFKA_SHARED_BOOTSTRAP
		else
			kafka_broker_start "$W/kbroker"
		fi
		;;
	*)
		echo "kafka_up: unknown KAFKA_PEER '$KAFKA_PEER'" >&2
		exit 1
		;;
	esac
	export KAFKA_BOOTSTRAP
}

kafka_topic() {
	case "$KAFKA_PEER" in
	mock)
		echo "create $1 $2" >&9
		i=0
		while ! grep -qx "created $1" "$W/kafka.out" && [ $i -lt 500 ]; do
			if grep -q "^error $1" "$W/kafka.out"; then break; fi
			sleep 0.01
			i=$((i + 1))
		done
		grep -qx "created $1" "$W/kafka.out" || { echo "kafka_topic: cannot create $1" >&2; exit 1; }
		;;
	broker)
		"$B/tools/kafka_admin" "$KAFKA_BOOTSTRAP" "$1" "$2" || { echo "kafka_topic: cannot create $1" >&2; exit 1; }
		;;
	esac
}

kafka_down() {
	[ -n "$KAFKA_PID" ] || return 0
	case "$KAFKA_PEER" in
	mock)
		exec 9>&-
		kill "$KAFKA_PID" 2>/dev/null
		wait "$KAFKA_PID" 2>/dev/null || :
		;;
	broker)
		kafka_broker_stop
		;;
	esac
	KAFKA_PID=
}

kafka_cat() {
	kcat -b "$KAFKA_BOOTSTRAP" -X log_level=3 "$@"
}

# kafka_broker_start DIR: formats a single-node KRaft broker (broker and
# controller in one JVM) in DIR and starts it on two free loopback ports;
# sets KAFKA_PID and KAFKA_BOOTSTRAP when it answers metadata requests.
# Exits 1 with the broker's log when it cannot start within 90 s.
kafka_broker_start() {
	kd=$1
	sh "$ROOT/scripts/kafka-setup.sh" "$B" || { echo "kafka_up: cannot fetch the Kafka broker" >&2; exit 1; }
	mkdir -p "$kd"
	ports=$(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))') || { echo "kafka_up: no free port" >&2; exit 1; }
	set -- $ports
	cat > "$kd/server.properties" <<KPROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$2
listeners=PLAINTEXT://127.0.0.1:$1,CONTROLLER://127.0.0.1:$2
advertised.listeners=PLAINTEXT://127.0.0.1:$1
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$kd/logs
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
file.delete.delay.ms=1000
KPROPS
	kcp=$(cat "$B/kafka/classpath.txt")
	# a cluster id starting with '-' is taken for an option by the tool
	# ("argument --cluster-id/-t: expected one argument": 1 start in 64;
	# Kafka's own Uuid.randomUuid never makes one)
	kid=-
	while [ "${kid#-}" != "$kid" ]; do
		kid=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22)
	done
	java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$kcp" kafka.tools.StorageTool format \
		-t "$kid" -c "$kd/server.properties" > "$kd/format.log" 2>&1 ||
		{ echo "kafka_up: cannot format the broker's storage" >&2; cat "$kd/format.log" >&2; exit 1; }
	# C1 only by default: a third less CPU to start (5-8 s instead of 8-12 s
	# here); a benchmark wanting the broker at full speed sets
	# KAFKA_BROKER_JVM_OPTS (bench/kafka.sh: empty)
	java -Xms256m -Xmx1g -XX:+UseSerialGC ${KAFKA_BROKER_JVM_OPTS--XX:TieredStopAtLevel=1} \
		-cp "$kcp" kafka.Kafka "$kd/server.properties" > "$kd/broker.log" 2>&1 &
	KAFKA_PID=$!
	KAFKA_BOOTSTRAP=127.0.0.1:$1
	i=0
	until kcat -b "$KAFKA_BOOTSTRAP" -X log_level=0 -L -m 1 > /dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 450 ] || ! kill -0 "$KAFKA_PID" 2>/dev/null; then
			echo "kafka_up: the Kafka broker did not start (log follows)" >&2
			tail -30 "$kd/broker.log" >&2
			kafka_broker_stop
			exit 1
		fi
		sleep 0.2
	done
}

# kafka_broker_stop: stops the broker kafka_broker_start started (its log
# directory is scratch: SIGKILL, no controlled shutdown to wait for)
kafka_broker_stop() {
	[ -n "$KAFKA_PID" ] || return 0
	kill -9 "$KAFKA_PID" 2>/dev/null
	wait "$KAFKA_PID" 2>/dev/null || :
	KAFKA_PID=
}
