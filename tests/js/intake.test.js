// assets/intake.js on a page built of plain objects, against an intake played
// by a fake fetch. Run: node --test tests/js/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const SOURCE = fs.readFileSync(path.join(__dirname, '..', '..', 'assets', 'intake.js'), 'utf8');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function json(status, value, headers = {}) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

function problem(status, detail, headers = {}) {
  return new Response(JSON.stringify({ title: 'Problem', status, detail }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });
}

// An idempotent intake: a key's first body is stored once and its answer
// replayed. Each request takes the next scripted behaviour:
// 'answer' (store or replay, answered), 'drop' (store or replay, then the
// answer is lost), 'hang' (no answer until the client aborts), or a function
// giving the Response.
function fakeIntake({ posts = [], lookups = [] } = {}) {
  const receipts = new Map();
  const calls = [];
  function store(key, body) {
    if (!receipts.has(key)) receipts.set(key, { receipt: receipts.size + 1, body });
    const held = receipts.get(key);
    assert.equal(held.body, body, 'the same key always carries the same body');
    return held.receipt;
  }
  async function fetch(url, init) {
    const headers = init.headers || {};
    calls.push({ url, method: init.method, headers, body: init.body });
    const behaviour = (init.method === 'POST' ? posts : lookups).shift() || 'answer';
    if (behaviour === 'hang') {
      return new Promise((_, reject) => {
        init.signal.addEventListener('abort', () =>
          reject(new DOMException('The operation was aborted.', 'AbortError')));
      });
    }
    if (typeof behaviour === 'function') return behaviour(url, init);
    if (init.method === 'GET') {
      const key = decodeURIComponent(url.split('/receipts/')[1]);
      const held = receipts.get(key);
      return held ? json(200, { receipt: held.receipt, state: 'completed' })
        : problem(404, 'no receipt for this key');
    }
    const key = JSON.parse(headers['Idempotency-Key']);
    const replay = receipts.has(key);
    const receipt = store(key, init.body);
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (behaviour === 'drop') throw new TypeError('fetch failed');
    return json(replay ? 200 : 201, { receipt, state: 'completed' },
      replay ? { 'Idempotent-Replayed': 'true' } : {});
  }
  return { fetch, calls, receipts, posts: () => calls.filter((c) => c.method === 'POST') };
}

function fakeStorage() {
  const map = new Map();
  return {
    map,
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
  };
}

function attributes(initial) {
  const attrs = { ...initial };
  return {
    attrs,
    getAttribute: (n) => (n in attrs ? attrs[n] : null),
    setAttribute: (n, v) => { attrs[n] = String(v); },
    removeAttribute: (n) => { delete attrs[n]; },
  };
}

// The form page of src/server/page.rs, as plain objects.
function fakePage({ lang = 'ja', fields = {}, attrs = {} } = {}) {
  const control = (name, value, type = 'text') => ({ name, type, value, defaultValue: value });
  const elements = [
    control('_key', 'page-key', 'hidden'),
    control('name', fields.name ?? '山田 太郎'),
    control('email', fields.email ?? 'taro@example.jp', 'email'),
    control('message', fields.message ?? '見積もりをお願いします', 'textarea'),
    control('_gotcha', ''),
  ];
  const button = { type: 'submit', disabled: false, id: 'intake-submit' };
  const status = { textContent: '', ...attributes({ id: 'intake-status' }) };
  const listeners = {};
  const form = {
    ...attributes({ action: '/f/contact', method: 'post', 'data-intake': '', ...attrs }),
    elements,
    resets: 0,
    addEventListener: (type, fn) => { (listeners[type] ||= []).push(fn); },
    querySelector: () => null,
    querySelectorAll: (selector) => (selector.includes('button') ? [button] : []),
    reset() {
      this.resets++;
      for (const el of elements) el.value = el.defaultValue;
    },
  };
  // A submit as the browser fires it; true when the script let the plain post go.
  form.submit = () => {
    let prevented = false;
    for (const fn of listeners.submit || []) fn({ preventDefault: () => { prevented = true; } });
    return !prevented;
  };
  form.field = (name) => elements.find((el) => el.name === name);
  const docListeners = {};
  const document = {
    documentElement: { lang },
    readyState: 'loading',
    forms: [form],
    location: { href: 'http://127.0.0.1:8080/f/contact' },
    querySelectorAll: (selector) => (selector === 'form[data-intake]' ? [form] : []),
    getElementById: (id) => (id === 'intake-status' ? status : null),
    addEventListener: (type, fn) => { (docListeners[type] ||= []).push(fn); },
  };
  return { form, button, status, document, docListeners };
}

// Loads intake.js into a fresh page, as a browser would: deferred, then
// DOMContentLoaded. Short timings so that the tests run in milliseconds.
function load({ intake, storage = fakeStorage(), crypto = globalThis.crypto, ...page } = {}) {
  const p = fakePage(page);
  const window = {
    document: p.document,
    fetch: intake.fetch,
    sessionStorage: storage,
    crypto,
    AbortController,
    setTimeout,
    clearTimeout,
  };
  window.window = window;
  vm.runInNewContext(SOURCE, window, { filename: 'intake.js' });
  Object.assign(window.ReceiptIntake.DEFAULTS, { timeoutMs: 40, backoffMs: 5, maxWaitMs: 50 });
  for (const fn of p.docListeners.DOMContentLoaded || []) fn();
  return { ...p, storage, api: window.ReceiptIntake };
}

async function settled(page, limitMs = 3000) {
  const start = Date.now();
  while (page.form.getAttribute('aria-busy') !== null) {
    if (Date.now() - start > limitMs) throw new Error('still sending: ' + page.status.textContent);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function keysSent(intake) {
  return intake.posts().map((c) => c.headers['Idempotency-Key']);
}

/** The post went out twice, under one key, and ended received. */
function assertSentTwiceWithOneKeyThenReceived(intake, page) {
  const keys = keysSent(intake);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1]);
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'received');
}

test('a 201 says the receipt number and clears the key', async () => {
  const intake = fakeIntake();
  const page = load({ intake });
  assert.equal(page.form.submit(), false, 'the script takes the post over');
  assert.equal(page.button.disabled, true, 'the button is disabled while sending');
  assert.equal(page.status.textContent, '送信しています…');
  await settled(page);

  const [post] = intake.posts();
  assert.equal(post.url, '/f/contact');
  assert.equal(post.headers['Content-Type'], 'application/json');
  assert.equal(post.headers.Accept, 'application/json');
  assert.match(JSON.parse(post.headers['Idempotency-Key']), UUID);
  assert.deepEqual(JSON.parse(post.body), {
    name: '山田 太郎', email: 'taro@example.jp', message: '見積もりをお願いします', _gotcha: '',
  }, 'the fields and the honeypot, never the plain form\'s _key');

  assert.equal(page.status.textContent, '受け付けました。受付番号は 1 です。');
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'received');
  assert.equal(page.storage.map.size, 0, 'the key is dropped after a confirmed success');
  assert.equal(page.form.resets, 1);
  assert.equal(page.button.disabled, false);
});

test('a lost response is retried with the same key: one receipt', async () => {
  const intake = fakeIntake({ posts: ['drop', 'answer'] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);

  const keys = keysSent(intake);
  assert.equal(keys.length, 2);
  assert.equal(keys[0], keys[1], 'the retry carries the same key');
  assert.equal(intake.receipts.size, 1);
  assert.equal(page.status.textContent, '受け付けました。受付番号は 1 です。');
  assert.equal(page.storage.map.size, 0);
});

test('a double click while sending sends once', async () => {
  const intake = fakeIntake();
  const page = load({ intake });
  page.form.submit();
  assert.equal(page.form.submit(), false, 'the second submit is swallowed, not posted plainly');
  await settled(page);
  assert.equal(intake.posts().length, 1);
});

test('a timeout ends in "could not confirm", keeping the key', async () => {
  const intake = fakeIntake({ posts: ['hang', 'hang', 'hang'], lookups: ['hang'] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);

  const keys = keysSent(intake);
  assert.equal(keys.length, 3, 'the first send and two retries');
  assert.ok(keys.every((k) => k === keys[0]), 'all with one key');
  const lookups = intake.calls.filter((c) => c.method === 'GET');
  assert.deepEqual(lookups.map((c) => c.url),
    ['/f/contact/receipts/' + encodeURIComponent(JSON.parse(keys[0]))]);
  assert.ok(page.status.textContent.startsWith('送信結果を確認できませんでした'),
    page.status.textContent);
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'unknown');
  assert.ok(!page.status.textContent.includes('失敗'));
  assert.equal(JSON.parse([...page.storage.map.values()][0]).key, JSON.parse(keys[0]),
    'the key is kept for a safe retry');
  assert.equal(page.form.resets, 0, 'the visitor\'s text is kept');
  assert.equal(page.button.disabled, false, 'a later retry is possible');
});

test('a later send and a reload after an unknown outcome reuse the key', async () => {
  const storage = fakeStorage();
  const intake = fakeIntake({ posts: ['drop', 'drop', 'drop'], lookups: ['hang'] });
  const first = load({ intake, storage });
  first.form.submit();
  await settled(first);
  assert.equal(first.status.getAttribute('data-intake-outcome'), 'unknown');
  assert.equal(intake.receipts.size, 1, 'stored, though the visitor could not know');

  // The visitor presses Send again on the same page.
  first.form.submit();
  await settled(first);
  assert.equal(first.status.textContent, '受け付けました。受付番号は 1 です。');

  // Another lost answer, then a reload of the page with the same text.
  const again = fakeIntake({ posts: ['drop', 'drop', 'drop'], lookups: ['hang'] });
  const before = load({ intake: again, storage });
  before.form.submit();
  await settled(before);
  const reloaded = load({ intake: again, storage });
  reloaded.form.submit();
  await settled(reloaded);
  const keys = keysSent(again);
  assert.equal(keys.length, 4);
  assert.ok(keys.every((k) => k === keys[0]), 'the reload sent the kept key');
  assert.equal(again.receipts.size, 1);
  assert.equal(reloaded.status.textContent, '受け付けました。受付番号は 1 です。');
});

test('changed input gets a new key', async () => {
  const storage = fakeStorage();
  const intake = fakeIntake({ posts: ['drop', 'drop', 'drop'], lookups: ['hang'] });
  const page = load({ intake, storage });
  page.form.submit();
  await settled(page);
  page.form.field('message').value = '見積もりをお願いします（3 台分）';
  page.form.submit();
  await settled(page);
  const keys = keysSent(intake);
  assert.equal(keys.length, 4);
  assert.notEqual(keys[3], keys[0]);
  assert.equal(intake.receipts.size, 2);
});

test('when every answer is lost, the lookup tells the receipt', async () => {
  const intake = fakeIntake({ posts: ['drop', 'drop', 'drop'] });
  const page = load({ intake, lang: 'en' });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent, 'Received. Your receipt number is 1.');
  assert.equal(page.storage.map.size, 0);
});

test('a lookup that finds nothing is still "could not confirm"', async () => {
  const intake = fakeIntake({
    posts: ['hang', 'hang', 'hang'],
    lookups: [() => problem(404, 'no receipt for this key')],
  });
  const page = load({ intake, lang: 'en' });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'unknown');
  assert.ok(page.status.textContent.startsWith('Could not confirm the result of sending.'));
  assert.ok(!/fail/i.test(page.status.textContent));
  assert.equal(page.storage.map.size, 1);
});

test('202 says received, confirmation pending, and keeps the key', async () => {
  const intake = fakeIntake({ posts: [() => json(202, { receipt: 4, state: 'in_flight' })] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent,
    '受け付けました（受付番号 4）。処理の完了を確認中です。もう一度送信する必要はありません。');
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'pending');
  assert.equal(page.storage.map.size, 1);
});

test('409 waits for Retry-After and asks again with the same key', async () => {
  const intake = fakeIntake({
    posts: [() => problem(409, 'in progress', { 'Retry-After': '0' }), 'answer'],
  });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assertSentTwiceWithOneKeyThenReceived(intake, page);
});

test('409 to the end is received, pending: the first holds the key', async () => {
  const busy = () => problem(409, 'in progress', { 'Retry-After': '0' });
  const intake = fakeIntake({
    posts: [busy, busy, busy],
    lookups: [() => problem(404, 'not yet')],
  });
  const page = load({ intake, lang: 'en' });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent,
    'Received. Confirmation is pending; there is no need to send it again.');
});

test('the intake\'s 502 is a refusal: safe to send again, with a new key', async () => {
  const intake = fakeIntake({ posts: [() => problem(502, 'the inquiry system refused it')] });
  const page = load({ intake, lang: 'en' });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent,
    'Not accepted. Nothing was registered, so it is safe to send it again.');
  assert.equal(intake.posts().length, 1);
  assert.equal(page.storage.map.size, 0);
  assert.equal(page.form.resets, 0);
});

test('a gateway\'s 502 is no answer: retried with the same key', async () => {
  const gateway = () => new Response('<h1>Bad Gateway</h1>', {
    status: 502, headers: { 'Content-Type': 'text/html' },
  });
  const intake = fakeIntake({ posts: [gateway, 'answer'] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assertSentTwiceWithOneKeyThenReceived(intake, page);
});

test('a 4xx problem shows its detail and keeps the form', async () => {
  const intake = fakeIntake({
    posts: [() => problem(422, 'message: at most 5000 characters')],
  });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assert.equal(intake.posts().length, 1, 'a refusal of the content is not retried');
  assert.equal(page.status.textContent, 'message: at most 5000 characters');
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'rejected');
  assert.equal(page.form.resets, 0);
  assert.equal(page.form.field('message').value, '見積もりをお願いします');
  assert.equal(page.button.disabled, false);
});

test('a 4xx without a detail says to check the form', async () => {
  const intake = fakeIntake({ posts: [() => new Response('', { status: 400 })] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent,
    '送信内容を受け付けられませんでした。入力内容をご確認ください。');
});

test('a problem\'s detail is shown as text, never as markup', async () => {
  const detail = '<img src=x onerror=alert(1)>';
  const intake = fakeIntake({ posts: [() => problem(400, detail)] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assert.equal(page.status.textContent, detail);
  assert.equal(page.status.innerHTML, undefined, 'innerHTML is never written');
});

test('a rate limit after a lost answer is not taken as "not stored"', async () => {
  const limited = () => problem(429, 'too many', { 'Retry-After': '0' });
  const intake = fakeIntake({ posts: ['hang', limited, limited], lookups: ['hang'] });
  const page = load({ intake });
  page.form.submit();
  await settled(page);
  assert.equal(intake.posts().length, 3);
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'unknown');
});

test('a first rate limit is the problem\'s detail', async () => {
  const intake = fakeIntake({
    posts: [() => problem(429, 'Too many submissions; try again in 60 s', { 'Retry-After': '60' })],
  });
  const page = load({ intake, lang: 'en' });
  page.form.submit();
  await settled(page);
  assert.equal(intake.posts().length, 1);
  assert.equal(page.status.textContent, 'Too many submissions; try again in 60 s');
});

test('without randomUUID the key comes from getRandomValues', async () => {
  const intake = fakeIntake();
  const crypto = { getRandomValues: (a) => globalThis.crypto.getRandomValues(a) };
  const page = load({ intake, crypto });
  page.form.submit();
  await settled(page);
  assert.match(JSON.parse(keysSent(intake)[0]), UUID);
});

test('without secure random the plain post goes ahead', () => {
  const intake = fakeIntake();
  const page = load({ intake, crypto: null });
  assert.equal(page.form.submit(), true, 'not prevented: the browser posts the form');
  assert.equal(intake.calls.length, 0);
});

test('storage that throws still keeps the key in memory', async () => {
  const refusing = {
    getItem() { throw new Error('SecurityError'); },
    setItem() { throw new Error('QuotaExceededError'); },
    removeItem() { throw new Error('SecurityError'); },
    map: new Map(),
  };
  const intake = fakeIntake({ posts: ['drop', 'drop', 'drop'], lookups: ['hang'] });
  const page = load({ intake, storage: refusing });
  page.form.submit();
  await settled(page);
  page.form.submit();
  await settled(page);
  const keys = keysSent(intake);
  assert.equal(keys.length, 4);
  assert.ok(keys.every((k) => k === keys[0]));
  assert.equal(page.status.getAttribute('data-intake-outcome'), 'received');
});

test('the lookup route is built from the form\'s action', () => {
  const { api } = load({ intake: fakeIntake() });
  assert.equal(api.lookupUrl('https://intake.example/f/contact?x=1#top', 'a b'),
    'https://intake.example/f/contact/receipts/a%20b');
  assert.equal(api.lookupUrl('/f/contact/', 'k'), '/f/contact/receipts/k');
});
