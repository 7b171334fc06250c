// peer.mjs - the JavaScript readers of tests/iceberg/ (docs/iceberg.md
// "Tests"), run with node; NPM is the directory tests/iceberg/peers.sh
// installed into.  They share no code with sluice.
//
//   node peer.mjs avsc <table dir>
//       reads the current version's manifest list and every manifest with
//       avsc (an Avro reader: the file's own schema and header metadata),
//       checks the header keys the Iceberg spec requires and prints the live
//       data files' paths, one per line ("ok ..." summary on stderr)
//   node peer.mjs duck "<DuckDB SQL>" [file...]
//       runs the SQL with {files} standing for the list of files (as a
//       DuckDB list literal): rows as tab-separated lines
//   node peer.mjs icebird <table dir> <col,col,...>
//       serves "/" on loopback over HTTP (with Range requests), makes the
//       table's absolute file paths URLs of that server, reads the table
//       through its current snapshot with icebird and prints the columns
//       as tab-separated canonical text (timestamps "YYYY-MM-DD HH:MM:SS",
//       decimals with their scale from the metadata)
import { createRequire } from 'node:module';
import { readFileSync, readdirSync, statSync, createReadStream } from 'node:fs';
import http from 'node:http';
const require = createRequire(process.env.NPM + '/');

function current(dir) {
  const vs = readdirSync(dir + '/metadata').map((n) => /^v(\d+)\.metadata\.json$/.exec(n))
    .filter(Boolean).map((m) => Number(m[1]));
  const v = Math.max(...vs);
  // snapshot ids use 63 bits: keep them as strings (JSON.parse would round them)
  const text = readFileSync(`${dir}/metadata/v${v}.metadata.json`, 'utf8')
    .replace(/("(?:snapshot-id|current-snapshot-id|parent-snapshot-id)"\s*:\s*)(-?\d+)/g, '$1"$2"');
  return { v, meta: JSON.parse(text) };
}

const local = (p) => p.replace(/^file:(\/\/)?/, '');

// longs as BigInt: snapshot ids use all 63 bits (avsc's default refuses them)
const avro = require('avsc');
const longType = avro.types.LongType.__with({
  fromBuffer: (b) => b.readBigInt64LE(),
  toBuffer: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b; },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
});
const parseHook = (schema) => avro.Type.forSchema(schema, { registry: { long: longType } });

function avroRead(path) {
  return new Promise((resolve, reject) => {
    let header = null;
    const recs = [];
    avro.createFileDecoder(path, { parseHook })
      .on('metadata', (type, codec, h) => { header = h; })
      .on('data', (r) => recs.push(r))
      .on('error', reject)
      .on('end', () => resolve({ header, recs }));
  });
}

function need(header, keys, what) {
  const meta = header.meta;
  for (const k of keys)
    if (!(k in meta)) throw new Error(`${what}: header metadata has no '${k}'`);
  return Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, v.toString()]));
}

const [cmd, a1, ...rest] = process.argv.slice(2);
if (cmd === 'avsc') {
  const { meta } = current(a1);
  const snap = meta.snapshots.find((s) => String(s['snapshot-id']) === String(meta['current-snapshot-id']));
  if (!snap) throw new Error('no current snapshot');
  const ml = await avroRead(local(snap['manifest-list']));
  const mh = need(ml.header, ['avro.schema', 'snapshot-id', 'parent-snapshot-id',
    'sequence-number', 'format-version'], 'manifest list');
  if (mh['snapshot-id'] !== String(snap['snapshot-id'])) throw new Error('manifest list snapshot-id');
  if (mh['format-version'] !== '2') throw new Error('manifest list format-version');
  let files = 0, rows = 0n, manifests = 0;
  for (const m of ml.recs) {
    manifests++;
    const mf = await avroRead(local(m.manifest_path));
    const h = need(mf.header, ['avro.schema', 'schema', 'schema-id', 'partition-spec',
      'partition-spec-id', 'format-version', 'content'], 'manifest ' + m.manifest_path);
    if (h.content !== 'data' || h['format-version'] !== '2') throw new Error('manifest header');
    JSON.parse(h.schema);
    JSON.parse(h['partition-spec']);
    if (statSync(local(m.manifest_path)).size !== Number(m.manifest_length))
      throw new Error('manifest_length of ' + m.manifest_path);
    let added = 0;
    for (const e of mf.recs) {
      if (e.status === 2) continue;
      if (e.status === 1) added++;
      const d = e.data_file;
      if (d.content !== 0 || d.file_format !== 'PARQUET') throw new Error('data file kind');
      if (statSync(local(d.file_path)).size !== Number(d.file_size_in_bytes))
        throw new Error('file_size_in_bytes of ' + d.file_path);
      console.log(local(d.file_path));
      files++;
      rows += BigInt(d.record_count);
    }
    if (String(m.added_snapshot_id) === mh['snapshot-id'] && added !== m.added_files_count)
      throw new Error('added_files_count');
  }
  console.error(`ok avsc: ${manifests} manifests, ${files} data files, ${rows} rows`);
} else if (cmd === 'duck') {
  const { DuckDBInstance } = require('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run("SET TimeZone = 'UTC'");
  const list = '[' + rest.map((f) => `'${f}'`).join(', ') + ']';
  const r = await c.runAndReadAll(a1.replaceAll('{files}', list));
  for (const row of r.getRowsJson()) console.log(row.map((x) => x === null ? 'NULL' : String(x)).join('\t'));
} else if (cmd === 'icebird') {
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let size;
    try { size = statSync(path).size; } catch { res.writeHead(404); res.end(); return; }
    const m = /bytes=(\d+)-(\d*)/.exec(req.headers.range || '');
    if (m) {
      const start = Number(m[1]), end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      res.writeHead(206, { 'Content-Length': end - start + 1,
        'Content-Range': `bytes ${start}-${end}/${size}` });
      createReadStream(path, { start, end }).pipe(res);
    } else {
      res.writeHead(200, { 'Content-Length': size });
      createReadStream(path).pipe(res);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const orig = globalThis.fetch;
  // the table's paths are absolute local paths: make them this server's URLs
  // (partition directories hold '%' escapes: the path is encoded once more)
  const url = (p) => base + p.split('/').map(encodeURIComponent).join('/');
  globalThis.fetch = (u, init) => orig(String(u).startsWith('/') ? url(String(u)) : u, init);
  const { icebergRead } = await import(process.env.NPM + '/node_modules/icebird/src/index.js');
  const { meta } = current(a1);
  const cols = rest[0].split(',');
  const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id']);
  const types = Object.fromEntries(schema.fields.map((f) => [f.name, f.type]));
  const rows = await icebergRead({ tableUrl: base + a1 });
  const text = (v, t) => {
    if (v === null || v === undefined) return 'NULL';
    if (v instanceof Date) return v.toISOString().replace('T', ' ').replace(/\.000Z$/, '').replace(/Z$/, '');
    const d = /^decimal\(\d+, *(\d+)\)$/.exec(t);
    if (d) return Number(v).toFixed(Number(d[1]));
    return String(v);
  };
  for (const r of rows) console.log(cols.map((c) => text(r[c], types[c])).join('\t'));
  server.close();
} else {
  console.error('usage: peer.mjs avsc|duck|icebird ...');
  process.exit(2);
}
