// A second, independent reading of agentfootprint's afp-cjson/1 rules, run by
// Node, to give tests/formats/test_audit.py expected canonical texts and hashes
// that do not come from the Python code under test.
//
//   node afp_cjson.js cases.json > expected.json        # the canonicalization cases
//   node afp_cjson.js --verify bundle.json ...          # re-walks sample bundles' chains
//   node afp_cjson.js --chain draft.json > crafted.json # hashes a hand-written bundle's records
//
// Rules (agentfootprint 9.62, src/lib/canonicalJson.ts): object keys sorted by
// JavaScript's default sort (UTF-16 code units), no whitespace, strings and
// numbers exactly as JSON.stringify writes them. A record's hash is the SHA-256
// hex of the UTF-8 bytes of the canonical record without its `hash` member.
'use strict';
const fs = require('fs');
const crypto = require('crypto');

function canonical(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  if (typeof value === 'object') {
    return '{' + Object.keys(value).sort()
      .map((key) => JSON.stringify(key) + ':' + canonical(value[key])).join(',') + '}';
  }
  return JSON.stringify(value); // string, finite number (JSON never holds another), boolean
}

function sha256(text) {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

function recordHash(record) {
  const preimage = Object.assign({}, record);
  delete preimage.hash;
  return sha256(canonical(preimage));
}

const args = process.argv.slice(2);
if (args[0] === '--verify') {
  for (const file of args.slice(1)) {
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
    let previous = bundle.header.chainHead;
    bundle.records.forEach((record, index) => {
      const hash = recordHash(record);
      if (record.prevHash !== previous || hash !== record.hash) {
        throw new Error(`${file}: record ${index} does not verify`);
      }
      previous = hash;
    });
    if (previous !== bundle.finalHash) throw new Error(`${file}: finalHash does not verify`);
    console.log(`${file}: ${bundle.records.length} records verify`);
  }
} else if (args[0] === '--chain') {
  // Link the records of a hand-written bundle as auditExport does: seq from
  // header.firstSeq, prevHash from header.chainHead, then hash, count, finalHash.
  const bundle = JSON.parse(fs.readFileSync(args[1], 'utf8'));
  let previous = bundle.header.chainHead;
  bundle.records = bundle.records.map((record, index) => {
    const linked = Object.assign({}, record, { seq: bundle.header.firstSeq + index, prevHash: previous });
    delete linked.hash;
    linked.hash = recordHash(linked);
    previous = linked.hash;
    return linked;
  });
  bundle.header.recordCount = bundle.records.length;
  bundle.finalHash = previous;
  process.stdout.write(JSON.stringify(bundle) + '\n');
} else {
  const cases = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const expected = cases.map(({ name, json }) => {
    const text = canonical(JSON.parse(json));
    return { name, json, canonical: text, sha256: sha256(text) };
  });
  process.stdout.write(JSON.stringify(expected, null, 1) + '\n');
}
