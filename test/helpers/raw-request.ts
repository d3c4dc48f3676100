// A request written byte for byte on a socket: for request-targets no HTTP client sends
// (a raw '#', a NUL byte, a missing Host). Resolves to the status line, headers and body.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(port: number, request: string, host = '127.0.0.1'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      resolve({ status, headers, body: split === -1 ? '' : text.slice(split + 4) });
    });
  });
}
