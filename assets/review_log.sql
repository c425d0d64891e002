-- receipt-review: the review log. Append-only: every decision, and every undo
-- (a `reopened` row), is a new row; UPDATE and DELETE are refused by triggers.
-- Created only by commands that write; every reader copes with its absence.
--
-- Rows are ordered by `id` (append order), never by `decided_at`: operators'
-- clocks may disagree, the order in which the database accepted rows does not.

CREATE TABLE IF NOT EXISTS review_log (
  -- Append order. AUTOINCREMENT: an id is never handed out twice, even if the
  -- triggers below were dropped and rows deleted.
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- The stable item id: dup:<earliest receipt id>, conflict:<original receipt id>,
  -- stuck:<receipt id>, bot:<earliest receipt id>; an erasure of visitor data
  -- (never undone) is erase:<smallest receipt id>.
  item TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('duplicate', 'conflict', 'stuck', 'bot', 'erasure')),
  decision TEXT NOT NULL CHECK (
       (kind = 'duplicate' AND decision IN ('duplicate', 'correction', 'distinct', 'spam', 'reopened'))
    OR (kind = 'conflict' AND decision IN ('original_stands', 'follow_up', 'reopened'))
    OR (kind = 'stuck' AND decision IN ('completed', 'failed', 'still_pending', 'reopened'))
    OR (kind = 'bot' AND decision IN ('spam', 'not_spam', 'reopened'))
    OR (kind = 'erasure' AND decision = 'erased')),
  operator TEXT NOT NULL CHECK (length(operator) > 0),
  -- RFC 3339, UTC, milliseconds: 2026-11-29T10:15:30.123Z
  decided_at TEXT NOT NULL,
  -- The receipt ids the decision covers, ascending: a JSON array of integers.
  receipt_ids TEXT NOT NULL CHECK (json_valid(receipt_ids) AND json_type(receipt_ids) = 'array'),
  note TEXT,
  -- For a `reopened` row: the id of the row it reopens.
  reopens INTEGER REFERENCES review_log(id),
  -- Set only when this row changed receipts.state (a stuck `completed`/`failed`,
  -- or an undo that put the receipt back in flight): the receipt's state and
  -- updated_at before, and what this row wrote. An undo reverts a state change
  -- only while the receipt still holds exactly what was written.
  state_before TEXT,
  state_after TEXT,
  updated_at_before TEXT,
  updated_at_after TEXT,
  -- For a `duplicate` or `correction`: the receipt kept as the one to answer
  -- (a member of receipt_ids). NULL for every other decision.
  kept INTEGER,
  -- For a row written with others as one step (a bulk decision, or the undo
  -- of one, each in one transaction): the id of the step's first row, which
  -- holds its own id. NULL for a row written on its own. A log made before
  -- these two columns is given them by the first write (rows kept as they are).
  batch INTEGER,
  CHECK ((decision = 'reopened') = (reopens IS NOT NULL))
);

CREATE INDEX IF NOT EXISTS review_log_item ON review_log(item, id);
CREATE INDEX IF NOT EXISTS review_log_operator ON review_log(operator, id);
CREATE INDEX IF NOT EXISTS review_log_reopens ON review_log(reopens) WHERE reopens IS NOT NULL;
CREATE INDEX IF NOT EXISTS review_log_batch ON review_log(batch) WHERE batch IS NOT NULL;

CREATE TRIGGER IF NOT EXISTS review_log_no_update
BEFORE UPDATE ON review_log
BEGIN
  SELECT RAISE(ABORT, 'review_log is append-only: rows cannot be changed');
END;

-- INSERT OR REPLACE would delete the old row without firing the DELETE trigger.
CREATE TRIGGER IF NOT EXISTS review_log_no_replace
BEFORE INSERT ON review_log
WHEN NEW.id IS NOT NULL AND EXISTS (SELECT 1 FROM review_log WHERE id = NEW.id)
BEGIN
  SELECT RAISE(ABORT, 'review_log is append-only: ids cannot be reused');
END;

CREATE TRIGGER IF NOT EXISTS review_log_no_delete
BEFORE DELETE ON review_log
BEGIN
  SELECT RAISE(ABORT, 'review_log is append-only: rows cannot be deleted');
END;
