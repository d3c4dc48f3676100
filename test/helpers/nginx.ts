// A real nginx serving a Bazel HTTP remote cache from a temporary directory, its logs there too
// (README "A team's remote cache" shows the same configuration): a read-write port (WebDAV PUT)
// and a read-only one (GET and HEAD only), run as a child in the foreground, stopped by `stopNginx`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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
}

const running = new Set<{ child: ChildProcess; dir: string }>();

export async function startNginx(): Promise<Nginx> {
  if (!NGINX) throw new Error('nginx is not installed');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-nginx-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const [readWrite, readOnly] = [await freePort(), await freePort()];
  const log = path.join(dir, 'access.log');
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
    requests: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
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
