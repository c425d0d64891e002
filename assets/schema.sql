-- receipt-review database contract: the single source of truth.
-- The intake writes receipts, key_conflicts and replays (the intake server also
-- absorbed); receipt-review writes review_log (created only by commands that
-- write) and, for stuck receipts only, a guarded receipts.state.

CREATE TABLE IF NOT EXISTS receipts (
  id INTEGER PRIMARY KEY,
  scope TEXT NOT NULL,          -- tenant / site / form, decided by the server, never by the client
  request_key TEXT,             -- client idempotency key, 1-64 of [A-Za-z0-9_-]; NULL when keyless
  digest TEXT NOT NULL,         -- sha256 hex of canonical(payload)
  payload TEXT NOT NULL,        -- canonical JSON object of the validated fields
  state TEXT NOT NULL DEFAULT 'completed' CHECK (state IN ('in_flight','completed','failed')),
  response TEXT,                -- the response replayed on a retry with the same key
  created_at TEXT NOT NULL,     -- when the receipt was first accepted
  updated_at TEXT,
  UNIQUE(scope, request_key)
);

CREATE TABLE IF NOT EXISTS key_conflicts (
  id INTEGER PRIMARY KEY,
  receipt_id INTEGER NOT NULL REFERENCES receipts(id),
  digest TEXT NOT NULL,
  payload TEXT NOT NULL,
  received_at TEXT NOT NULL
);

-- Retries absorbed by the key: counted, not stored twice.
CREATE TABLE IF NOT EXISTS replays (
  id INTEGER PRIMARY KEY,
  receipt_id INTEGER NOT NULL REFERENCES receipts(id),
  received_at TEXT NOT NULL
);

-- Exact copies of one visitor's fields that the intake server absorbed within
-- a form's window: counted, never stored as a second receipt. A copy's key
-- holds the receipt from then on: the same body (digest) replays it, another
-- body is a conflict. Optional: a database without it has absorbed nothing.
CREATE TABLE IF NOT EXISTS absorbed (
  id INTEGER PRIMARY KEY,
  receipt_id INTEGER NOT NULL REFERENCES receipts(id),
  request_key TEXT,
  received_at TEXT NOT NULL,
  digest TEXT                   -- sha256 hex of the copy's canonical body; NULL when keyless
);

CREATE INDEX IF NOT EXISTS key_conflicts_receipt ON key_conflicts(receipt_id);
CREATE INDEX IF NOT EXISTS replays_receipt ON replays(receipt_id);
CREATE INDEX IF NOT EXISTS absorbed_receipt ON absorbed(receipt_id);
CREATE INDEX IF NOT EXISTS absorbed_key ON absorbed(request_key);
