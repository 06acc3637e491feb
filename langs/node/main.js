// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Node's file
// streams, close, read them back one byte per call. One JSON line per rep and op.
// Variants:
//   default  fs.WriteStream.write(Buffer) honouring back-pressure / ReadStream.read(1) in paused
//            mode: the standard buffered streams, one byte per call
//   manual   a hand-kept 64 KiB buffer flushed with fs.writeSync, filled with fs.readSync
'use strict';
const fs = require('fs');
const { once } = require('events');

const args = process.argv.slice(2);
const value = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const path = value('--file');
const n = Number(value('--bytes', '0'));
const reps = Number(value('--reps', '1'));
const variant = value('--variant', 'default');
const wait = args.includes('--wait');
if (!path || !['default', 'manual'].includes(variant)) {
  process.stderr.write('usage: --file PATH --bytes N --reps R --variant default|manual\n');
  process.exit(2);
}

const report = (rep, op, bytes, ns, sum) =>
  process.stdout.write(`{"lang":"node","variant":"${variant}","rep":${rep},"op":"${op}","bytes":${bytes},"ns":${ns},"checksum":${sum}}\n`);

// The timed loops hold the calls and nothing more (a read folds each byte into one sum, which
// the harness checks; it reads each written file back itself).
async function writeStream() {
  const out = fs.createWriteStream(path);
  for (let i = 0; i < n; i++) {
    if (!out.write(Buffer.of(i & 255))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

async function readStream() {
  const inp = fs.createReadStream(path);
  let sum = 0;
  let done = false;
  const ended = once(inp, 'end').then(() => { done = true; });
  while (!done) {
    let chunk;
    while ((chunk = inp.read(1)) !== null) sum += chunk[0];
    if (done) break;
    await Promise.race([once(inp, 'readable'), ended]);
  }
  const count = inp.bytesRead;
  inp.destroy();
  return [sum, count];
}

function writeManual() {
  const fd = fs.openSync(path, 'w');
  const buf = Buffer.alloc(65536);
  let used = 0;
  for (let i = 0; i < n; i++) {
    buf[used++] = i & 255;
    if (used === buf.length) { fs.writeSync(fd, buf, 0, used); used = 0; }
  }
  if (used) fs.writeSync(fd, buf, 0, used);
  fs.closeSync(fd);
}

function readManual() {
  const fd = fs.openSync(path, 'r');
  const buf = Buffer.alloc(65536);
  let sum = 0;
  let count = 0;
  for (;;) {
    const got = fs.readSync(fd, buf, 0, buf.length, null);
    if (got === 0) break;
    for (let k = 0; k < got; k++) sum += buf[k];
    count += got;
  }
  fs.closeSync(fd);
  return [sum, count];
}

async function waitLine() {
  if (!wait) return;
  await new Promise((resolve) => {
    const onData = (d) => { if (d.includes('\n')) { process.stdin.off('data', onData); process.stdin.pause(); resolve(); } };
    process.stdin.on('data', onData);
    process.stdin.resume();
  });
}

(async () => {
  for (let rep = 1; rep <= reps; rep++) {
    let t0 = process.hrtime.bigint();
    if (variant === 'manual') writeManual(); else await writeStream();
    report(rep, 'write', n, process.hrtime.bigint() - t0, 0);
    await waitLine();
    t0 = process.hrtime.bigint();
    const [sum, count] = variant === 'manual' ? readManual() : await readStream();
    report(rep, 'read', count, process.hrtime.bigint() - t0, sum);
  }
  // A stdin still open would keep Node's event loop alive.
  if (wait) process.stdin.destroy();
})().catch((e) => { process.stderr.write(`${e.message}\n`); process.exit(1); });
