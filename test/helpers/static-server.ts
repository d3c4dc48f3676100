// A plain static file server, as a user serves `core dist`'s output: the files of a directory by
// path, nothing outside it, and at `/` either a page of the test's own or the directory's
// index.html.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json', '.html': 'text/html' };

// Files of `dir` by path, and `page` at `/` (else the directory's index.html, as any static server does); nothing outside `dir`.
export function staticServer(dir: string, page: string | null): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    let pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (pathname === '/' && page === null) pathname = '/index.html';
    if (pathname === '/' && page !== null) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    const file = path.resolve(dir, `.${pathname}`);
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

