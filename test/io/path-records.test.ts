import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { pathRecord } from '../../src/io/path-records.js';

const source = (file: string) => JSON.stringify(pathToFileURL(path.resolve('src', file)).href);

describe('path records', () => {
  it('are plain objects: Object.prototype, own keys in the order set, the JSON of a literal', () => {
    const record = pathRecord<string>();
    record['lib/b.ts'] = 'hash-b';
    record['lib/a.ts'] = 'hash-a';
    expect(Object.getPrototypeOf(record)).to.equal(Object.prototype);
    expect(Object.keys(record)).to.deep.equal(['lib/b.ts', 'lib/a.ts']);
    expect(JSON.stringify(record)).to.equal(JSON.stringify({ 'lib/b.ts': 'hash-b', 'lib/a.ts': 'hash-a' }));
  });

  // The state a first start of 10,000 modules left (ARCHITECTURE.md "One module's requests at
  // 10,000 modules"), in a process of its own: V8 tells whether two objects share a shape only
  // to a process started with --allow-natives-syntax.
  it("leave {}'s shape room: after 5,000 modules' inputs are recorded, two objects built alike from {} share one shape", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'path-records-'));
    try {
      const script = `
        import { createFileHashes } from ${source('io/file-hashes.ts')};
        import { hashInputs } from ${source('io/build-inputs.ts')};
        const hashes = createFileHashes(process.env.RECORDS_ROOT);
        const kept = [];
        for (let index = 0; index < 5000; index++) kept.push(hashInputs(hashes, ['p' + index + '/m0.ts', 'p' + index + '/m0.css'], new Map(), 0));
        const headers = () => { const made = {}; made['x-first-seen-now'] = 'a'; made['user-agent'] = 'b'; return made; };
        const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)');
        console.log(JSON.stringify({ kept: kept.filter((inputs) => Object.keys(inputs).length === 2).length, shared: sameShape(headers(), headers()) }));`;
      const output = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, RECORDS_ROOT: dir }, encoding: 'utf8' });
      expect(JSON.parse(output)).to.deep.equal({ kept: 5000, shared: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
