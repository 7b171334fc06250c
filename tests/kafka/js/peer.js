// peer.js - KafkaJS, the second Kafka client of the tests (tests/kafka/broker/kafkajs.sh):
// a client that shares no code with librdkafka, produces what sluice reads and reads
// what sluice writes.
//
//   node peer.js produce BOOTSTRAP TOPIC N     N orders (key = id, JSON value), printed
//                                              as "key|value" lines once acknowledged
//   node peer.js consume BOOTSTRAP TOPIC N     reads the topic from the beginning with a
//                                              fresh group (read_committed, KafkaJS's
//                                              default) until N messages came or 20 s
//                                              passed; prints "key|value" lines
// NODE_PATH names the node_modules that tests/kafka/peers.sh installed.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [mode, bootstrap, topic, nstr] = process.argv.slice(2);
const n = parseInt(nstr, 10);
const kafka = new Kafka({ clientId: 'sluice-test-kafkajs', brokers: bootstrap.split(','),
  logLevel: logLevel.ERROR });

function order(i) {
  const t = new Date(Date.UTC(2026, 0, 1, 10, 0, 0) + i * 7000).toISOString().replace('T', ' ').slice(0, 19);
  return { id: 'o' + i, user_id: 'u' + (i % 7), amount: ((i * 37) % 10000) / 100, event_time: t };
}

async function produce() {
  const p = kafka.producer({ idempotent: true });
  await p.connect();
  const msgs = [];
  for (let i = 1; i <= n; i++) msgs.push({ key: 'o' + i, value: JSON.stringify(order(i)) });
  for (let i = 0; i < msgs.length; i += 500)
    await p.send({ topic, acks: -1, messages: msgs.slice(i, i + 500) });
  await p.disconnect();
  for (const m of msgs) process.stdout.write(m.key + '|' + m.value + '\n');
}

async function consume() {
  const c = kafka.consumer({ groupId: 'kafkajs-' + process.pid + '-' + Date.now() });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  const out = [];
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const timer = setTimeout(() => done(), 20000);
  await c.run({
    eachMessage: async ({ message }) => {
      out.push((message.key ? message.key.toString() : '') + '|' +
               (message.value ? message.value.toString() : ''));
      if (out.length >= n) done();
    },
  });
  await finished;
  clearTimeout(timer);
  await c.disconnect();
  for (const l of out) process.stdout.write(l + '\n');
}

(mode === 'produce' ? produce() : consume()).catch((e) => {
  process.stderr.write('kafkajs: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
