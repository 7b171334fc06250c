# lib.sh - the Kafka peer of the Kafka tests, sourced by tests/kafka/*.sh
# and tests/integration/kafka_*.sh (docs/kafka.md "Tests").
#
# The peer kind is $KAFKA_PEER: `mock` (default: librdkafka's mock cluster,
# build/tools/kafka_mock, one broker on a random loopback port, started and
# stopped here in a few ms).  Another kind (a real Apache Kafka broker) plugs
# in by giving the four functions below a branch of its own; tests only use
# these functions and $KAFKA_BOOTSTRAP:
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
	esac
}

kafka_down() {
	[ -n "$KAFKA_PID" ] || return 0
	case "$KAFKA_PEER" in
	mock)
		exec 9>&-
		kill "$KAFKA_PID" 2>/dev/null
		wait "$KAFKA_PID" 2>/dev/null
		;;
	esac
	KAFKA_PID=
}

kafka_cat() {
	kcat -b "$KAFKA_BOOTSTRAP" -X log_level=3 "$@"
}
