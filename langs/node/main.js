// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Node's file
// streams, close, read them back one byte per call, check them. One JSON line per rep and op.
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

const check = (b, count) => {
  if (b !== (count & 255)) {
    process.stderr.write(`byte ${count} is ${b}, expected ${count & 255}\n`);
    process.exit(3);
  }
};

async function writeStream() {
  const out = fs.createWriteStream(path);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const b = i & 255;
    sum += b;
    if (!out.write(Buffer.of(b))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return sum;
}

async function readStream() {
  const inp = fs.createReadStream(path);
  let sum = 0;
  let count = 0;
  let done = false;
  const ended = once(inp, 'end').then(() => { done = true; });
  while (!done) {
    let chunk;
    while ((chunk = inp.read(1)) !== null) {
      const b = chunk[0];
      check(b, count);
      sum += b;
      count++;
    }
    if (done) break;
    await Promise.race([once(inp, 'readable'), ended]);
  }
  inp.destroy();
  return [sum, count];
}

function writeManual() {
  const fd = fs.openSync(path, 'w');
  const buf = Buffer.alloc(65536);
  let used = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const b = i & 255;
    buf[used++] = b;
    sum += b;
    if (used === buf.length) { fs.writeSync(fd, buf, 0, used); used = 0; }
  }
  if (used) fs.writeSync(fd, buf, 0, used);
  fs.closeSync(fd);
  return sum;
}

function readManual() {
  const fd = fs.openSync(path, 'r');
  const buf = Buffer.alloc(65536);
  let sum = 0;
  let count = 0;
  for (;;) {
    const got = fs.readSync(fd, buf, 0, buf.length, null);
    if (got === 0) break;
    for (let k = 0; k < got; k++) {
      const b = buf[k];
      check(b, count);
      sum += b;
      count++;
    }
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
    const written = variant === 'manual' ? writeManual() : await writeStream();
    report(rep, 'write', n, process.hrtime.bigint() - t0, written);
    await waitLine();
    t0 = process.hrtime.bigint();
    const [sum, count] = variant === 'manual' ? readManual() : await readStream();
    report(rep, 'read', count, process.hrtime.bigint() - t0, sum);
  }
  // A stdin still open would keep Node's event loop alive.
  if (wait) process.stdin.destroy();
})().catch((e) => { process.stderr.write(`${e.message}\n`); process.exit(1); });
