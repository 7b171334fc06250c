// peer.mjs - the Parquet peers' side of tests/integration/parquet.sh, run
// with node; PEERS is the directory tests/parquet/peers.sh installed into.
//
//
//   node peer.mjs sql "<DuckDB SQL>"        rows as JSON lines
//   node peer.mjs hyparquet <dir> <sql-of-duckdb-canonical>
//        reads every *.parquet file of <dir> with hyparquet and with DuckDB
//        (the canonical query, {f} standing for the file) and compares them
//        row by row: prints "ok N rows" or the first difference (exit 1)
import { createRequire } from 'node:module';
const peers = process.env.PEERS;
const require = createRequire(peers + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const { asyncBufferFromFile, parquetReadObjects } = await import(require.resolve('hyparquet'));
const { compressors } = await import(require.resolve('hyparquet-compressors'));

async function duck(sql) {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run("SET TimeZone = 'UTC'");
  const r = await c.runAndReadAll(sql);
  return r.getRowObjectsJson();
}

const hex = (u8) => Buffer.from(u8).toString('hex').toUpperCase();

// hyparquet's value as the canonical text the DuckDB query gives
function canon(name, v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return String(v.getTime());
  if (v instanceof Uint8Array) return hex(v);
  if (typeof v === 'object') return JSON.stringify(Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, canon(k, x)])));
  return String(v);
}

// DuckDB's canonical value (strings and numbers from the query)
function dcanon(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'object') return JSON.stringify(Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, dcanon(x)])));
  return String(v);
}

function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const x = Number(a), y = Number(b);
  // decimals wider than a double and floats: hyparquet gives a JS number
  return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(x));
}

const [cmd, a1, a2] = process.argv.slice(2);
if (cmd === 'sql') {
  for (const row of await duck(a1)) console.log(JSON.stringify(row));
} else if (cmd === 'hyparquet') {
  const { readdirSync } = await import('node:fs');
  let total = 0;
  for (const name of readdirSync(a1).filter((x) => x.endsWith('.parquet')).sort()) {
    const path = a1 + '/' + name;
    const file = await asyncBufferFromFile(path);
    const hrows = await parquetReadObjects({ file, compressors, utf8: false });
    const drows = await duck(a2.replaceAll('{f}', path));
    if (hrows.length !== drows.length) {
      console.log(`${name}: hyparquet read ${hrows.length} rows, DuckDB ${drows.length}`);
      process.exit(1);
    }
    for (let i = 0; i < hrows.length; i++) {
      for (const [k, dv] of Object.entries(drows[i])) {
        const h = canon(k, hrows[i][k]), d = dcanon(dv);
        if (!same(h, d)) {
          console.log(`${name} row ${i} column ${k}: hyparquet ${h}, DuckDB ${d}`);
          process.exit(1);
        }
      }
    }
    total += hrows.length;
  }
  console.log(`ok ${total} rows`);
} else {
  console.error('usage: peer.mjs sql SQL | hyparquet FILE CANON_SQL');
  process.exit(2);
}
