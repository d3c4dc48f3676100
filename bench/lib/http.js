// The HTTP client of the harness: node:http, whose own overhead is a fraction of fetch's
// (undici), so the timings are mostly the servers'. The body is always read to its end.
import http from 'node:http';
import { now } from './stats.js';

/** A keep-alive agent, as a page's connection to its server. */
export const keepAlive = () => new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * GET `url`; the time from sending to the last byte of the body, in ms. `agent: false` (the
 * default) opens a new connection, so the first request is timed end to end.
 */
export function timedGet(url, { headers = {}, agent = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = now();
    const request = http.get(url, { headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ ms: now() - started, status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** GET `url` as text (any status). */
export async function getText(url, options) {
  const answer = await timedGet(url, options);
  return { status: answer.status, headers: answer.headers, text: answer.body.toString('utf8') };
}

/** Polls `/state` every `pollMs` until it lists `expected` modules, all valid. */
export async function untilAllValid(address, expected, pollMs) {
  for (;;) {
    const report = JSON.parse((await timedGet(`${address}state`)).body.toString('utf8'));
    if (report.modules.length === expected && report.modules.every((module) => module.status === 'valid')) return;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
