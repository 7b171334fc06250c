// peer.mjs - the JavaScript readers of tests/iceberg/ (docs/iceberg.md
// "Tests"), run with node; NPM is the directory tests/iceberg/peers.sh
// installed into.  They share no code with sluice.
//
//   node peer.mjs avsc <table dir>
//       reads the current version's manifest list and every manifest with
//       avsc (an Avro reader: the file's own schema and header metadata),
//       checks the header keys the Iceberg spec requires, the manifest
//       list's counts and the snapshot summary's totals against the files,
//       and prints the live data files' paths, one per line ("ok ..."
//       summary on stderr; a table with delete files: read it with delta)
//   node peer.mjs delta <table dir> "<DuckDB select list>"
//       the same manifests, then DuckDB reads every live data file (with
//       its row numbers) and delete file, and the deletes are applied here
//       by the table spec's rules ("Scan Planning"): a position delete
//       removes row pos of file_path when its data sequence number is >=
//       the data file's, an equality delete removes the rows whose
//       equality_ids columns equal its row when its data sequence number
//       is > the data file's, both only within the same partition; prints
//       the select list of the live rows as tab-separated lines
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
const a2 = rest[0];
// The live entries of the current snapshot, checked as they are read:
// [{ content, path, seq, partition (JSON text), equalityIds, records }]
async function liveEntries(dir) {
  const { meta } = current(dir);
  const snap = meta.snapshots.find((s) => String(s['snapshot-id']) === String(meta['current-snapshot-id']));
  if (!snap) throw new Error('no current snapshot');
  const ml = await avroRead(local(snap['manifest-list']));
  const mh = need(ml.header, ['avro.schema', 'snapshot-id', 'parent-snapshot-id',
    'sequence-number', 'format-version'], 'manifest list');
  if (mh['snapshot-id'] !== String(snap['snapshot-id'])) throw new Error('manifest list snapshot-id');
  if (mh['format-version'] !== '2') throw new Error('manifest list format-version');
  const out = [];
  let manifests = 0;
  for (const m of ml.recs) {
    manifests++;
    const mf = await avroRead(local(m.manifest_path));
    const h = need(mf.header, ['avro.schema', 'schema', 'schema-id', 'partition-spec',
      'partition-spec-id', 'format-version', 'content'], 'manifest ' + m.manifest_path);
    if (h.content !== (m.content === 0 ? 'data' : 'deletes') || h['format-version'] !== '2')
      throw new Error('manifest header content ' + h.content + ' for list content ' + m.content);
    JSON.parse(h.schema);
    JSON.parse(h['partition-spec']);
    if (statSync(local(m.manifest_path)).size !== Number(m.manifest_length))
      throw new Error('manifest_length of ' + m.manifest_path);
    let added = 0, addedRows = 0n, existing = 0, existingRows = 0n;
    for (const e of mf.recs) {
      if (e.status === 2) continue;
      const d = e.data_file;
      if (e.status === 1) { added++; addedRows += BigInt(d.record_count); }
      else { existing++; existingRows += BigInt(d.record_count); }
      if ((d.content === 0) !== (m.content === 0) || d.file_format !== 'PARQUET')
        throw new Error('file kind ' + d.content + ' in a manifest of content ' + m.content);
      if (statSync(local(d.file_path)).size !== Number(d.file_size_in_bytes))
        throw new Error('file_size_in_bytes of ' + d.file_path);
      if (d.content === 2 && !(d.equality_ids && d.equality_ids.length))
        throw new Error('equality delete file without equality_ids: ' + d.file_path);
      // sequence number inheritance (the spec): null in an ADDED entry is the manifest's
      let seq = e.sequence_number;
      if (seq === null || seq === undefined) {
        if (e.status !== 1) throw new Error('an existing entry without a sequence number');
        seq = m.sequence_number;
      }
      out.push({ content: d.content, path: local(d.file_path), seq: BigInt(seq),
        partition: JSON.stringify(d.partition, (k, v) => typeof v === 'bigint' ? String(v) : v),
        equalityIds: d.equality_ids, records: BigInt(d.record_count) });
    }
    if (added !== m.added_files_count || addedRows !== BigInt(m.added_rows_count))
      throw new Error('added_files_count / added_rows_count of ' + m.manifest_path);
    if (existing !== m.existing_files_count || existingRows !== BigInt(m.existing_rows_count))
      throw new Error('existing_files_count / existing_rows_count of ' + m.manifest_path);
  }
  // the snapshot summary's totals are the live files'
  const sum = snap.summary, data = out.filter((f) => f.content === 0);
  const total = (c) => out.filter((f) => f.content === c).reduce((a, f) => a + f.records, 0n);
  const checks = [['total-data-files', BigInt(data.length)], ['total-records', total(0)],
    ['total-delete-files', BigInt(out.length - data.length)],
    ['total-position-deletes', total(1)], ['total-equality-deletes', total(2)]];
  for (const [k, want] of checks)
    if (k in sum && BigInt(sum[k]) !== want)
      throw new Error(`summary ${k} = ${sum[k]}, the manifests hold ${want}`);
  return { meta, out, manifests };
}

if (cmd === 'avsc') {
  const { out, manifests } = await liveEntries(a1);
  let rows = 0n, files = 0;
  for (const f of out) {
    if (f.content !== 0) throw new Error('the table has delete files: read it with delta');
    console.log(f.path);
    files++;
    rows += f.records;
  }
  console.error(`ok avsc: ${manifests} manifests, ${files} data files, ${rows} rows`);
} else if (cmd === 'delta') {
  const { meta, out, manifests } = await liveEntries(a1);
  const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id']);
  const name = Object.fromEntries(schema.fields.map((f) => [f.id, f.name]));
  const { DuckDBInstance } = require('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run("SET TimeZone = 'UTC'");
  const q = async (sql) => (await c.runAndReadAll(sql)).getRowsJson();
  const keyOf = (row) => row.map((x) => x === null ? '\u0000' : String(x)).join('\u0001');
  const pos = new Map(), eq = [];
  for (const f of out.filter((f) => f.content === 1))
    for (const [p, r] of await q(`SELECT file_path, pos FROM read_parquet('${f.path}')`)) {
      const k = local(p) + '\u0001' + r;
      if (!pos.has(k)) pos.set(k, []);
      pos.get(k).push(f);
    }
  for (const f of out.filter((f) => f.content === 2)) {
    const cols = f.equalityIds.map((id) => `"${name[id]}"::VARCHAR`).join(', ');
    const keys = new Set((await q(`SELECT ${cols} FROM read_parquet('${f.path}')`)).map(keyOf));
    eq.push({ f, keys, ids: f.equalityIds.join(',') });
  }
  let live = 0, gone = 0;
  for (const d of out.filter((f) => f.content === 0)) {
    const idsets = [...new Set(eq.map((e) => e.ids))];
    const keycols = idsets.map((ids) => ids.split(',').map((id) => `"${name[id]}"::VARCHAR`).join(', '));
    const sel = [a2, ...keycols].join(', ');
    for (const row of await q(`SELECT file_row_number, ${sel} FROM read_parquet('${d.path}', file_row_number = true)`)) {
      const r = row[0];
      let dead = (pos.get(d.path + '\u0001' + r) || []).some((f) => f.seq >= d.seq && f.partition === d.partition);
      const vals = row.slice(1);
      const nsel = vals.length - idsets.reduce((a, ids) => a + ids.split(',').length, 0);
      let at = nsel;
      const keys = {};
      for (const ids of idsets) {
        const n = ids.split(',').length;
        keys[ids] = keyOf(vals.slice(at, at + n));
        at += n;
      }
      dead ||= eq.some((e) => e.f.seq > d.seq && e.f.partition === d.partition && e.keys.has(keys[e.ids]));
      if (dead) { gone++; continue; }
      live++;
      console.log(vals.slice(0, nsel).map((x) => x === null ? 'NULL' : String(x)).join('\t'));
    }
  }
  console.error(`ok delta: ${manifests} manifests, ${out.filter((f) => f.content === 0).length} data files, ` +
    `${out.filter((f) => f.content === 1).length} position and ${eq.length} equality delete files, ` +
    `${live} live rows, ${gone} deleted`);
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
