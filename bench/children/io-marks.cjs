// Preloaded (`node --require`) into a server child by bench/push-phases.js: the time of each
// fs.watch notice, each write to and read from a pipe (the service's esbuild process; Vite has
// none on this path) and each write of a socket the server accepted (the push message, the
// answer), on stderr as `MARK <name> <epoch ms>` lines every 50 ms, so that the bench process can
// place them against its own clock (performance.timeOrigin + now() in both).
'use strict';
const fs = require('node:fs');
const net = require('node:net');

const at = () => performance.timeOrigin + performance.now();
const pending = [];
const mark = (name) => pending.push(`MARK ${name} ${at().toFixed(3)}\n`);
setInterval(() => {
  if (pending.length > 0) process.stderr.write(pending.splice(0).join(''));
}, 50).unref();

const isPipe = (socket) => socket._handle?.constructor?.name === 'Pipe';
const accepted = (socket) => Boolean(socket.server);
const ownStdio = new Set([process.stdout, process.stderr]);

const watch = fs.watch;
fs.watch = function markedWatch(...args) {
  const watcher = watch.apply(this, args);
  const emit = watcher.emit;
  watcher.emit = function markedEmit(event, ...rest) {
    if (event === 'change') mark('fs.watch');
    return emit.call(this, event, ...rest);
  };
  return watcher;
};

const write = net.Socket.prototype.write;
net.Socket.prototype.write = function markedWrite(...args) {
  if (ownStdio.has(this)) return write.apply(this, args);
  if (isPipe(this)) {
    mark('pipe.write');
    const written = write.apply(this, args);
    mark('pipe.written');
    return written;
  }
  if (accepted(this)) mark('socket.write');
  return write.apply(this, args);
};

const emit = net.Socket.prototype.emit;
net.Socket.prototype.emit = function markedEmit(event, ...rest) {
  if (event === 'data' && isPipe(this) && !ownStdio.has(this)) mark('pipe.read');
  return emit.call(this, event, ...rest);
};
