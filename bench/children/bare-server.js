// The bare baseline of the throughput measure: a `node:http` server answering every request
// with the exact status, headers and bytes the service answered for the module (read from
// the JSON file named by argv[2]: { status, headers, body (base64) }). Prints `URL <url>`.
import fs from 'node:fs';
import http from 'node:http';

const answer = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const body = Buffer.from(answer.body, 'base64');
const headers = answer.headers;

const server = http.createServer((request, response) => {
  response.writeHead(answer.status, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
});
// The same keep-alive settings as the service's server (src/service/listen.ts `listen`).
server.keepAliveTimeout = 5_000;
server.headersTimeout = 10_000;
server.requestTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`URL http://127.0.0.1:${server.address().port}/\n`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
