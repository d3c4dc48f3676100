// Runs the command in one file, dist/core.cjs, from the code V8 compiled it to when the build
// kept it (dist/core.cjs.code-cache): V8 then neither parses the 1.1 MB bundle nor compiles
// the functions its loading runs (ARCHITECTURE.md, "The command in one file"). Node 20 keeps
// no compiled code of its own for a file it loads, so the bundle is a CommonJS script compiled
// here, with the code cache V8's `vm.Script` takes and gives.
'use strict';
const { isAscii } = require('node:buffer');
const crypto = require('node:crypto');
const fs = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

/** Where the compiled code of `file` is kept: beside it, made with it by the build. */
const codeCacheOf = (file) => `${file}.code-cache`;

// V8 takes compiled code made from any source of the same length, and does not check the code
// itself: a cache whose bytes changed crashes the process. So the cache starts with a hash of
// the bundle and the code together, and is taken only when both hash to it.
const HASH_BYTES = 32;
const hashOf = (bundle, code) => crypto.createHash('sha256').update(bundle).update(code).digest();

function compile(file, useCache) {
  const bytes = fs.readFileSync(file);
  const cache = useCache ? readCache(codeCacheOf(file), bytes) : undefined;
  // The wrapper Node gives a CommonJS file, and `bundleImport`: code compiled from a cache
  // loses the `import()` it holds (Node 20), so a workspace's own extension or bundler is
  // imported by this module's (src/load-module.ts).
  // The build makes the bundle ASCII (scripts/build-cli.js): read as Latin-1, faster than UTF-8.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, bundleImport) {${source}\n})`, {
    filename: file,
    cachedData: cache,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file), bundleImport);
  return { exports: module.exports, fromCache: cache !== undefined && !script.cachedDataRejected, script, bytes };
}

const bundleImport = (url) => import(url);

function readCache(cacheFile, bundle) {
  let cache;
  try {
    cache = fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const code = cache.subarray(HASH_BYTES);
  return cache.length > HASH_BYTES && cache.subarray(0, HASH_BYTES).equals(hashOf(bundle, code)) ? code : undefined;
}

/**
 * The exports of the CommonJS bundle `file`, run from its code cache when one was made from
 * these very bytes by this Node (V8 refuses another's, and the file is compiled from source).
 */
function loadBundle(file) {
  // CORE_CODE_CACHE=off: compiled from source, as without a cache (README "Performance").
  const { exports, fromCache } = compile(file, process.env.CORE_CODE_CACHE !== 'off');
  return { exports, fromCache };
}

/**
 * Loads `file` from source and writes its code cache: the code of the bundle and of every
 * function its loading ran, and the loading of the modules a start loads late (the bundle's
 * `loadDeferredModules`). A temporary name renamed, so that a `core` starting meanwhile
 * reads the old cache or the new one, never half of one.
 */
async function writeCodeCache(file) {
  const { script, bytes, exports } = compile(file, false);
  await exports.loadDeferredModules?.();
  const code = script.createCachedData();
  const cacheFile = codeCacheOf(file);
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, Buffer.concat([hashOf(bytes, code), code]));
  fs.renameSync(temporary, cacheFile);
}

exports.codeCacheOf = codeCacheOf;
exports.loadBundle = loadBundle;
exports.writeCodeCache = writeCodeCache;
