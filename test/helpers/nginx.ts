// A real nginx serving a Bazel HTTP remote cache from a temporary directory, its logs there too
// (README "A team's remote cache" shows the same configuration): a read-write port (WebDAV PUT)
// and a read-only one (GET and HEAD only), run as a child in the foreground, stopped by `stopNginx`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './wait-for.js';

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((file) => fs.existsSync(file)) ?? null;

export interface Nginx {
  /** Accepts PUT. */
  readWrite: string;
  /** GET and HEAD only: a PUT is 403. */
  readOnly: string;
  /** Where the stored files are: `ac/` and `cas/` (with an instance, under it). */
  data: string;
  /** The requests so far, "METHOD /path STATUS" each. */
  requests(): string[];
  /**
   * How many requests the log holds once every request answered so far is in it. nginx logs a
   * request after it answered it, so a client can hold the answer before the log has the line; one
   * worker serves in turn, so once a request of its own is logged every earlier one is. That
   * request's line is counted too (it comes before whatever the test asks next).
   */
  settled(): Promise<number>;
  /** The requests after the first `count`, once every request answered so far is logged (the lines of `settled` left out). */
  since(count: number): Promise<string[]>;
}

const running = new Set<{ child: ChildProcess; dir: string }>();

export async function startNginx(): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-nginx-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const [readWrite, readOnly] = [await freePort(), await freePort()];
  const log = path.join(dir, 'access.log');
  const requests = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  let markers = 0;
  const settled = async (): Promise<number> => {
    const marker = `/settled-${(markers += 1)}`;
    await fetch(`http://127.0.0.1:${readOnly}${marker}`).then((response) => response.arrayBuffer());
    const line = `GET ${marker} 404`;
    return waitFor(
      () => {
        const index = requests().indexOf(line);
        return index >= 0 && index + 1;
      },
      { what: `nginx's log line ${line}` },
    );
  };
  const location = (port: number, extra: string) => `
    server {
      listen 127.0.0.1:${port};
      root ${data};
      client_max_body_size 64m;
      location / {
        ${extra}
      }
    }`;
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
worker_processes 1;
error_log ${path.join(dir, 'error.log')};
pid ${path.join(dir, 'nginx.pid')};
events { worker_connections 64; }
http {
  log_format requests '$request_method $uri $status';
  access_log ${log} requests;
  client_body_temp_path ${path.join(dir, 'body')};
  proxy_temp_path ${path.join(dir, 'proxy')};
  fastcgi_temp_path ${path.join(dir, 'fastcgi')};
  uwsgi_temp_path ${path.join(dir, 'uwsgi')};
  scgi_temp_path ${path.join(dir, 'scgi')};
  ${location(readWrite, 'dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:r all:r;')}
  ${location(readOnly, 'limit_except GET HEAD { deny all; }')}
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  const entry = { child, dir };
  running.add(entry);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  // Ready once both ports accept a connection.
  for (const port of [readWrite, readOnly]) await waitForPort(port, child, () => stderr);
  return {
    readWrite: `http://127.0.0.1:${readWrite}/`,
    readOnly: `http://127.0.0.1:${readOnly}/`,
    data,
    requests,
    settled,
    since: async (count) => requests().slice(count, (await settled()) - 1).filter((line) => !/^GET \/settled-\d+ /.test(line)),
  };
}

export async function stopNginx(): Promise<void> {
  for (const entry of [...running]) {
    running.delete(entry);
    if (entry.child.exitCode === null) {
      const exited = new Promise((resolve) => entry.child.once('exit', resolve));
      entry.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(entry.dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
