/*
 * intake.js: send a form to a receipt-review intake without ever registering
 * it twice, and without ever telling a visitor it failed when nobody knows.
 *
 * A plain script, no dependencies. It enhances every <form data-intake>
 * (else the page's only form); without it the form still posts plainly.
 *
 * - One idempotency key per input: minted before the first send and kept in
 *   sessionStorage (per form) until a confirmed success, so that a retry, a
 *   second click or a reload after a lost answer sends the same key and the
 *   server answers it without a second receipt. Changed input gets a new key.
 * - Each attempt has a timeout (AbortController). With no answer (lost
 *   response, reset, timeout, a gateway error) it sends again with the SAME
 *   key, backing off; then it asks GET {action}/receipts/{key}. When it still
 *   cannot know, it says so ("could not confirm") and keeps the key.
 * - 201/200 (or a replay): received, with the receipt number; the key is
 *   dropped. 202: received, confirmation pending. 502 problem+json: not
 *   accepted, safe to send again. Any other 4xx: the problem's detail, the
 *   form's contents kept.
 *
 * The status goes to the form's [data-intake-status] element, else
 * #intake-status, else a new <p role="status"> after the form; its
 * data-intake-outcome attribute names the case for scripts and tests.
 * Options on the form: data-intake-timeout (ms), data-intake-attempts.
 */
(function () {
  'use strict';

  // The same texts as [page.script] in assets/i18n/*.toml (checked there).
  var MESSAGES = {
    en: {
      sending: "Sending…",
      retrying: "No answer yet; checking again as the same submission…",
      received: "Received. Your receipt number is {receipt}.",
      received_plain: "Received.",
      pending: "Received (receipt number {receipt}). Confirmation is pending; there is no need to send it again.",
      pending_plain: "Received. Confirmation is pending; there is no need to send it again.",
      refused: "Not accepted. Nothing was registered, so it is safe to send it again.",
      rejected: "The submission was not accepted. Please check the form.",
      unknown: "Could not confirm the result of sending. Sending the same content again will not register it twice."
    },
    ja: {
      sending: "送信しています…",
      retrying: "応答がないため、同じ送信としてもう一度確認しています…",
      received: "受け付けました。受付番号は {receipt} です。",
      received_plain: "受け付けました。",
      pending: "受け付けました（受付番号 {receipt}）。処理の完了を確認中です。もう一度送信する必要はありません。",
      pending_plain: "受け付けました。処理の完了を確認中です。もう一度送信する必要はありません。",
      refused: "受け付けられませんでした。登録はされていないため、もう一度送信できます。",
      rejected: "送信内容を受け付けられませんでした。入力内容をご確認ください。",
      unknown: "送信結果を確認できませんでした。同じ内容のままもう一度送信しても、二重に登録されることはありません。"
    }
  };

  var DEFAULTS = {
    timeoutMs: 10000, // per attempt, reading the answer included
    attempts: 3, // the first send and two retries with the same key
    backoffMs: 1000, // doubled after each unanswered attempt
    maxWaitMs: 10000 // the longest Retry-After honoured
  };

  var KEY_FIELD = '_key';
  var STORE_PREFIX = 'intake-key:';

  function language(code) {
    return String(code || '').toLowerCase().indexOf('ja') === 0 ? 'ja' : 'en';
  }

  function say(lang, name, receipt) {
    var text = MESSAGES[lang][name];
    return text.replace('{receipt}', function () { return String(receipt); });
  }

  // A random UUID (version 4); null when the browser has no secure random.
  function mintKey(crypto) {
    if (!crypto) return null;
    if (typeof crypto.randomUUID === 'function') {
      try {
        return crypto.randomUUID();
      } catch (e) { /* not a secure context: fall back */ }
    }
    if (typeof crypto.getRandomValues !== 'function') return null;
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = '';
    for (var i = 0; i < 16; i++) {
      hex += (bytes[i] + 0x100).toString(16).slice(1);
      if (i === 3 || i === 5 || i === 7 || i === 9) hex += '-';
    }
    return hex;
  }

  // Keys by form: sessionStorage (survives a reload, not the tab), with a
  // copy in memory for browsers that refuse storage.
  function keyStore(storage) {
    var memory = {};
    return {
      read: function (name) {
        try {
          var raw = storage && storage.getItem(name);
          if (raw) return JSON.parse(raw);
        } catch (e) { /* unreadable: use the memory copy */ }
        return memory[name] || null;
      },
      write: function (name, entry) {
        memory[name] = entry;
        try {
          if (storage) storage.setItem(name, JSON.stringify(entry));
        } catch (e) { /* full or refused: the memory copy serves */ }
      },
      clear: function (name) {
        delete memory[name];
        try {
          if (storage) storage.removeItem(name);
        } catch (e) { /* nothing to clear */ }
      }
    };
  }

  // The key for this input: the kept one when the input is the one it was
  // minted for, else a new one, kept from now on.
  function keyFor(store, name, body, crypto) {
    var kept = store.read(name);
    if (kept && kept.body === body && typeof kept.key === 'string') return kept.key;
    var key = mintKey(crypto);
    if (key) store.write(name, { key: key, body: body });
    return key;
  }

  // Seconds or an HTTP date, in ms; null when absent or unreadable.
  function retryAfterMs(headers, now) {
    var value = headers && headers.get && headers.get('Retry-After');
    if (!value) return null;
    if (/^\s*\d+\s*$/.test(value)) return parseInt(value, 10) * 1000;
    var at = Date.parse(value);
    return isNaN(at) ? null : Math.max(0, at - now);
  }

  function isProblem(headers) {
    var type = (headers && headers.get && headers.get('Content-Type')) || '';
    return type.toLowerCase().indexOf('application/problem+json') === 0;
  }

  function wait(env, ms) {
    return new Promise(function (resolve) { env.setTimeout(resolve, ms); });
  }

  // One request under the timeout; null when no answer came (lost, reset,
  // aborted), whatever the server did with it.
  async function exchange(env, url, init) {
    var controller = new env.AbortController();
    var timer = env.setTimeout(function () { controller.abort(); }, env.timeoutMs);
    init.signal = controller.signal;
    try {
      var response = await env.fetch(url, init);
      var text = await response.text();
      var data = null;
      try {
        data = text ? JSON.parse(text) : null;
      } catch (e) { /* not JSON: judged by its status alone */ }
      return { status: response.status, headers: response.headers, data: data };
    } catch (e) {
      return null;
    } finally {
      env.clearTimeout(timer);
    }
  }

  function receiptOf(data) {
    return data && (typeof data.receipt === 'number' || typeof data.receipt === 'string')
      ? data.receipt
      : null;
  }

  // What an answer to the POST tells. `uncertain`: an earlier attempt got
  // no answer, so it may have been stored whatever this one says.
  function judge(answer, uncertain, env) {
    if (!answer) return { kind: 'lost' };
    var status = answer.status;
    var data = answer.data || {};
    var receipt = receiptOf(data);
    if (status >= 200 && status < 300) {
      if (status === 202 || data.state === 'in_flight') return { kind: 'pending', receipt: receipt };
      return { kind: 'received', receipt: receipt };
    }
    var later = retryAfterMs(answer.headers, env.now());
    // The first request with this key is still being processed: it is held.
    if (status === 409) return { kind: 'busy', held: true, waitMs: later };
    // A definite refusal from the intake (not a gateway's 502): nothing kept.
    if (status === 502 && isProblem(answer.headers)) return { kind: 'refused' };
    // A rate limit says nothing about an earlier unanswered attempt.
    if (status === 429 && uncertain) return { kind: 'busy', waitMs: later };
    if (status === 408 || status >= 500) return { kind: 'lost', waitMs: later };
    return {
      kind: 'rejected',
      status: status,
      detail: typeof data.detail === 'string' && data.detail ? data.detail
        : typeof data.title === 'string' && data.title ? data.title : null
    };
  }

  function lookupUrl(action, key) {
    var base = String(action).split('#')[0].split('?')[0].replace(/\/+$/, '');
    return base + '/receipts/' + encodeURIComponent(key);
  }

  // The key holder's lookup, for when the POST never got an answer.
  async function lookup(env, action, key) {
    var answer = await exchange(env, lookupUrl(action, key), {
      method: 'GET',
      headers: { 'Accept': 'application/json' },
      cache: 'no-store'
    });
    if (!answer || answer.status !== 200 || !answer.data) return null;
    var receipt = receiptOf(answer.data);
    switch (answer.data.state) {
      case 'completed': return { kind: 'received', receipt: receipt };
      case 'in_flight': return { kind: 'pending', receipt: receipt };
      case 'failed': return { kind: 'refused' };
      default: return null; // not found may still be in progress: unknown
    }
  }

  // Sends `body` under `key` until its outcome is known or the attempts run
  // out; `progress(name)` is told of retries. Never rejects.
  async function deliver(env, action, body, key, progress) {
    var uncertain = false;
    var held = false;
    var last = null;
    for (var attempt = 1; attempt <= env.attempts; attempt++) {
      var answer = await exchange(env, action, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Accept': 'application/json',
          // A structured-field string, as the intake reads it.
          'Idempotency-Key': '"' + key + '"'
        },
        body: body,
        cache: 'no-store'
      });
      last = judge(answer, uncertain, env);
      if (last.kind !== 'lost' && last.kind !== 'busy') return last;
      if (last.kind === 'lost') uncertain = true;
      if (last.held) held = true;
      if (attempt < env.attempts) {
        progress('retrying');
        var backoff = env.backoffMs * Math.pow(2, attempt - 1);
        await wait(env, Math.min(last.waitMs != null ? last.waitMs : backoff, env.maxWaitMs));
      }
    }
    var found = await lookup(env, action, key);
    if (found) return found;
    // A 409 said a request with this key is in progress there: received.
    if (held) return { kind: 'pending', receipt: null };
    return { kind: 'unknown' };
  }

  // The form's fields as the JSON body: the visitor's fields and the
  // honeypot, in the form's order, without the plain form's `_key`.
  function fieldsOf(form) {
    var fields = {};
    var elements = form.elements || [];
    for (var i = 0; i < elements.length; i++) {
      var el = elements[i];
      var type = String(el.type || '').toLowerCase();
      if (!el.name || el.disabled || el.name === KEY_FIELD) continue;
      if (type === 'submit' || type === 'button' || type === 'reset' || type === 'image' ||
          type === 'file' || el.tagName === 'FIELDSET') continue;
      if ((type === 'checkbox' || type === 'radio') && !el.checked) continue;
      var values = [];
      if (type === 'select-multiple') {
        for (var j = 0; j < el.options.length; j++) {
          if (el.options[j].selected) values.push(el.options[j].value);
        }
      } else {
        values.push(String(el.value == null ? '' : el.value));
      }
      for (var k = 0; k < values.length; k++) {
        if (!Object.prototype.hasOwnProperty.call(fields, el.name)) fields[el.name] = values[k];
        else if (Array.isArray(fields[el.name])) fields[el.name].push(values[k]);
        else fields[el.name] = [fields[el.name], values[k]];
      }
    }
    return fields;
  }

  function statusFor(form, doc) {
    var el = form.querySelector && form.querySelector('[data-intake-status]');
    if (!el && doc.getElementById) el = doc.getElementById('intake-status');
    if (!el && doc.createElement) {
      el = doc.createElement('p');
      el.setAttribute('role', 'status');
      el.setAttribute('aria-live', 'polite');
      if (form.parentNode) form.parentNode.insertBefore(el, form.nextSibling);
    }
    return el;
  }

  function numberOption(form, name, fallback) {
    var value = parseInt(form.getAttribute && form.getAttribute(name), 10);
    return value > 0 ? value : fallback;
  }

  function enhance(form, env, doc) {
    if (!form || form.getAttribute('data-intake-ready') !== null) return;
    form.setAttribute('data-intake-ready', '');
    var lang = language(doc.documentElement && doc.documentElement.lang);
    var status = statusFor(form, doc);
    var store = keyStore(env.storage);
    var settings = {};
    for (var name in env) settings[name] = env[name];
    settings.timeoutMs = numberOption(form, 'data-intake-timeout', env.timeoutMs);
    settings.attempts = numberOption(form, 'data-intake-attempts', env.attempts);
    var sending = false;

    function show(outcome, text) {
      if (!status) return;
      status.textContent = text;
      status.setAttribute('data-intake-outcome', outcome);
    }

    function buttons(disabled) {
      var all = form.querySelectorAll ? form.querySelectorAll('button, input[type=submit]') : [];
      for (var i = 0; i < all.length; i++) {
        var b = all[i];
        if (String(b.type || 'submit').toLowerCase() === 'submit') b.disabled = disabled;
      }
      if (disabled) form.setAttribute('aria-busy', 'true');
      else form.removeAttribute('aria-busy');
    }

    form.addEventListener('submit', function (event) {
      if (sending) {
        event.preventDefault();
        return;
      }
      // The attribute, not form.action, which a field named "action" hides.
      var action = form.getAttribute('action') || (doc.location && doc.location.href) || '';
      var body = JSON.stringify(fieldsOf(form));
      var storeName = STORE_PREFIX + action;
      var key = keyFor(store, storeName, body, env.crypto);
      if (!key) return; // no secure random: the plain post (with its _key) goes ahead
      event.preventDefault();
      sending = true;
      buttons(true);
      show('sending', say(lang, 'sending'));
      deliver(settings, action, body, key, function (name) { show(name, say(lang, name)); })
        .then(function (outcome) {
          switch (outcome.kind) {
            case 'received':
              store.clear(storeName);
              show('received', outcome.receipt != null
                ? say(lang, 'received', outcome.receipt) : say(lang, 'received_plain'));
              if (typeof form.reset === 'function') form.reset();
              break;
            case 'pending':
              show('pending', outcome.receipt != null
                ? say(lang, 'pending', outcome.receipt) : say(lang, 'pending_plain'));
              break;
            case 'refused':
              store.clear(storeName);
              show('refused', say(lang, 'refused'));
              break;
            case 'rejected':
              show('rejected', outcome.detail || say(lang, 'rejected'));
              break;
            default:
              show('unknown', say(lang, 'unknown'));
          }
        }, function () {
          show('unknown', say(lang, 'unknown'));
        })
        .then(function () {
          sending = false;
          buttons(false);
        });
    });
  }

  function browserEnv() {
    var storage = null;
    try {
      storage = window.sessionStorage;
    } catch (e) { /* storage refused: keys live in memory */ }
    return {
      fetch: window.fetch.bind(window),
      storage: storage,
      crypto: window.crypto || null,
      AbortController: window.AbortController,
      setTimeout: window.setTimeout.bind(window),
      clearTimeout: window.clearTimeout.bind(window),
      now: Date.now,
      timeoutMs: DEFAULTS.timeoutMs,
      attempts: DEFAULTS.attempts,
      backoffMs: DEFAULTS.backoffMs,
      maxWaitMs: DEFAULTS.maxWaitMs
    };
  }

  function start() {
    if (typeof window.fetch !== 'function' || typeof window.AbortController !== 'function') return;
    var env = browserEnv();
    var forms = document.querySelectorAll('form[data-intake]');
    if (!forms.length && document.forms && document.forms.length === 1) forms = [document.forms[0]];
    for (var i = 0; i < forms.length; i++) enhance(forms[i], env, document);
  }

  var api = {
    MESSAGES: MESSAGES,
    DEFAULTS: DEFAULTS,
    mintKey: mintKey,
    keyStore: keyStore,
    keyFor: keyFor,
    deliver: deliver,
    lookupUrl: lookupUrl,
    fieldsOf: fieldsOf,
    enhance: enhance,
    start: start
  };

  if (typeof window !== 'undefined' && typeof document !== 'undefined') {
    window.ReceiptIntake = api;
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
    else start();
  } else if (typeof module === 'object' && module && module.exports) {
    module.exports = api;
  }
})();
