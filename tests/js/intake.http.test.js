// intake.js's sending over real sockets: Node's fetch against a small
// idempotent server on 127.0.0.1 that can lose its answer after storing, or
// never answer. Run: node --test tests/js/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const vm = require('node:vm');

const SOURCE = fs.readFileSync(path.join(__dirname, '..', '..', 'assets', 'intake.js'), 'utf8');

function loadApi() {
  const sandbox = { module: { exports: {} } };
  vm.runInNewContext(SOURCE, sandbox, { filename: 'intake.js' });
  return sandbox.module.exports;
}

// POST /f/contact stores a key's first body once; `plan` says per request
// whether to answer, destroy the socket after storing ('lose'), or hang.
async function server(plan) {
  const receipts = new Map();
  const seen = [];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      seen.push({ method: req.method, url: req.url, key });
      if (req.method === 'GET') {
        const held = receipts.get(decodeURIComponent(req.url.split('/receipts/')[1]));
        res.writeHead(held ? 200 : 404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(held ? { receipt: held, state: 'completed' } : {}));
        return;
      }
      const step = plan.shift() || 'answer';
      if (step === 'hang') return;
      const replay = receipts.has(key);
      if (!replay) receipts.set(key, receipts.size + 1);
      if (step === 'lose') {
        res.socket.destroy();
        return;
      }
      res.writeHead(replay ? 200 : 201, {
        'Content-Type': 'application/json',
        ...(replay ? { 'Idempotent-Replayed': 'true' } : {}),
      });
      res.end(JSON.stringify({ receipt: receipts.get(key), state: 'completed' }));
    });
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${srv.address().port}/f/contact`;
  return {
    url, receipts, seen,
    close: () => { srv.closeAllConnections(); return new Promise((r) => srv.close(r)); },
  };
}

function env() {
  return {
    fetch, AbortController, setTimeout, clearTimeout, now: Date.now,
    timeoutMs: 200, attempts: 3, backoffMs: 10, maxWaitMs: 100,
  };
}

test('a response lost after the commit, then the same key: one receipt', async () => {
  const api = loadApi();
  const s = await server(['lose']);
  try {
    const progress = [];
    const outcome = await api.deliver(env(), s.url, '{"email":"a@example.jp"}', 'k-1',
      (name) => progress.push(name));
    assert.deepEqual({ ...outcome }, { kind: 'received', receipt: 1 });
    assert.deepEqual(progress, ['retrying']);
    assert.deepEqual(s.seen.map((r) => r.key), ['"k-1"', '"k-1"']);
    assert.equal(s.receipts.size, 1);
  } finally {
    await s.close();
  }
});

test('an intake that never answers: bounded, then unknown', async () => {
  const api = loadApi();
  const s = await server(['hang', 'hang', 'hang']);
  try {
    const started = Date.now();
    const outcome = await api.deliver(env(), s.url, '{}', 'k-2', () => {});
    const elapsed = Date.now() - started;
    // Nothing was stored, but the lookup's 404 cannot prove it: unknown.
    assert.equal(outcome.kind, 'unknown');
    assert.ok(elapsed < 2000, `bounded by the timeouts, took ${elapsed} ms`);
    assert.deepEqual(s.seen.map((r) => r.method), ['POST', 'POST', 'POST', 'GET']);
    assert.equal(s.seen[3].url, '/f/contact/receipts/k-2');
  } finally {
    await s.close();
  }
});
