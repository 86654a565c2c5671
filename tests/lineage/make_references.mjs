// Pins what footprintjs itself says about every key of every visible recording
// (tests/lineage/recordings.json) and of the hand-built cases (tests/lineage/cases),
// so that the Python port in recorders/lineage/ is checked against the library
// without npm at test time.
//
//   mkdir -p /tmp/fpjs && cd /tmp/fpjs && npm init -y && npm install footprintjs@9.24.0
//   node tests/lineage/make_references.mjs /tmp/fpjs        (from the project root)
//
// Writes references/<path, "/" as "__">.json (gzipped past 128 KB)
// and references/cases/<name>.json: {key: {backward, forward, timeline, births?}},
// births only for a key whose value is an array at the end of the log.

import { createRequire } from 'node:module';
import { gunzipSync, gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const installDir = process.argv[2];
if (!installDir) {
  console.error('usage: node make_references.mjs DIR_WHERE_FOOTPRINTJS_IS_INSTALLED');
  process.exit(2);
}
const require = createRequire(join(installDir, 'package.json'));
const fp = require('footprintjs/trace');
const version = require('footprintjs/package.json').version;
if (version !== '9.24.0') console.error(`warning: footprintjs ${version}, references pin 9.24.0`);

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const GZIP_PAST = 128 * 1024;

function readDocument(path) {
  let bytes = readFileSync(path);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
}

// A recording {snapshot, ...} or an envelope {format, recording: {snapshot, ...}}.
function snapshotOf(doc) {
  return doc.snapshot ?? doc.recording?.snapshot;
}

function writtenKeys(commitLog) {
  const keys = new Set();
  for (const bundle of commitLog) for (const t of bundle.trace) keys.add(t.path);
  return [...keys];
}

function lineage(snapshot, extraKeys = []) {
  const log = snapshot.commitLog;
  const reads = () => fp.keysReadFromExecutionTree(snapshot.executionTree ?? []);
  const out = {};
  for (const key of [...writtenKeys(log), ...extraKeys]) {
    const name = fp.normaliseStateKey(key);
    const entry = {
      backward: fp.sliceToJSON(fp.sliceForKey(log, key, reads())),
      forward: fp.forwardSliceToJSON(fp.forwardSliceForKey(log, key, reads())),
      timeline: fp.keyTimeline(log, key, reads()),
    };
    const births = fp.arrayProvenance(log, key);
    if (births.births) entry.births = births;
    out[name] = entry;
  }
  return out;
}

function write(path, value) {
  const text = JSON.stringify(value, null, 1) + '\n';
  if (Buffer.byteLength(text) > GZIP_PAST) writeFileSync(path + '.gz', gzipSync(text, { level: 9 }));
  else writeFileSync(path, text);
}

const references = join(here, 'references');
mkdirSync(join(references, 'cases'), { recursive: true });
const manifest = JSON.parse(readFileSync(join(here, 'recordings.json'), 'utf8'));
let keys = 0;
for (const { path } of manifest.recordings) {
  const result = lineage(snapshotOf(readDocument(join(root, path))));
  keys += Object.keys(result).length;
  write(join(references, path.replaceAll('/', '__')), result);
}
const cases = readdirSync(join(here, 'cases')).filter((name) => name.endsWith('.json'));
for (const name of cases) {
  const doc = readDocument(join(here, 'cases', name));
  write(join(references, 'cases', name), lineage(doc.snapshot, doc.extra_keys));
}
console.log(`footprintjs ${version}: ${manifest.recordings.length} recordings, ${keys} keys; ` +
  `${cases.length} hand-built cases`);
