#!/usr/bin/env python3
"""A stand-in intake for the benchmark: inserts receipts continuously.

    python3 scripts/bench_writer.py DB [--rate 200] [--batch 2] [--stats OUT.json]

Each transaction is `BEGIN IMMEDIATE`, BATCH inserts of valid receipts
(canonical JSON payload, its SHA-256 digest, a unique key in scope
`bench.example/load`), `COMMIT`, with a 5 s busy timeout, paced to RATE rows per
second. Payloads are all different, so they form no duplicate groups. Prints
"ready" once the first transaction committed; on SIGTERM/SIGINT writes its
statistics (rows, transactions, busy errors, transaction latency) to --stats.
"""

import argparse
import hashlib
import json
import os
import signal
import sqlite3
import sys
import time
from datetime import datetime, timedelta, timezone

WORDS = ["invoice", "receipt", "delivery", "refund", "order", "question", "address",
         "schedule", "payment", "account", "support", "request", "change", "cancel"]


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def rfc3339(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--rate", type=float, default=200.0, help="rows per second")
    ap.add_argument("--batch", type=int, default=2, help="rows per transaction")
    ap.add_argument("--stats", help="write statistics here (JSON) when stopped")
    ap.add_argument("--base-time", default="2026-11-29T11:00:00Z",
                    help="created_at of the first row; each next row is 5 ms later")
    args = ap.parse_args()

    stop = {"flag": False}

    def on_signal(_sig, _frm):
        stop["flag"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    conn = sqlite3.connect(args.db, timeout=5.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    base = datetime.fromisoformat(args.base_time.replace("Z", "+00:00")).astimezone(timezone.utc)
    tag = f"{os.getpid():x}"
    rows = txs = busy = 0
    latencies = []
    started = time.perf_counter()
    interval = args.batch / args.rate
    next_at = started
    i = 0
    ready = False
    while not stop["flag"]:
        t0 = time.perf_counter()
        try:
            conn.execute("BEGIN IMMEDIATE")
            for _ in range(args.batch):
                created = rfc3339(base + timedelta(milliseconds=5 * i))
                payload = canonical({
                    "email": f"load{tag}-{i}@bench.example",
                    "event_id": f"{tag}-{i}",
                    "message": f"load test {i}: {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} #{i * 2654435761 % 1000003}",
                    "name": f"load {tag} {i}",
                    "subject": WORDS[(i * 3) % len(WORDS)],
                })
                digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()
                conn.execute(
                    "INSERT INTO receipts (scope, request_key, digest, payload, state, response,"
                    " created_at, updated_at) VALUES (?, ?, ?, ?, 'completed', '{\"ok\":true}', ?, ?)",
                    ("bench.example/load", f"bench-{tag}-{i}", digest, payload, created, created),
                )
                i += 1
            conn.execute("COMMIT")
            txs += 1
            rows += args.batch
            latencies.append((time.perf_counter() - t0) * 1000.0)
            if not ready:
                print("ready", flush=True)
                ready = True
        except sqlite3.OperationalError as e:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if "locked" in str(e) or "busy" in str(e):
                busy += 1
            else:
                raise
        next_at += interval
        pause = next_at - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        else:
            next_at = time.perf_counter()  # fell behind: do not burst to catch up
    elapsed = time.perf_counter() - started
    conn.close()
    lat = sorted(latencies)

    def pct(p):
        if not lat:
            return None
        return lat[max(0, min(len(lat) - 1, int(round(p / 100.0 * len(lat) + 0.5)) - 1))]

    stats = {"rows": rows, "transactions": txs, "busy_errors": busy, "seconds": elapsed,
             "rows_per_s": rows / elapsed if elapsed else None,
             "tx_ms_p50": pct(50), "tx_ms_p99": pct(99), "tx_ms_max": lat[-1] if lat else None}
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump(stats, f)
    else:
        print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
