#!/usr/bin/env python3
"""The benchmark's peer: a plain Python model of the intake (sqlite3 +
json + hashlib, the receipt and its key committed together, one commit per
request) behind the standard library's ThreadingHTTPServer.

    python3 scripts/intake/python_peer.py DB PORT [--journal delete|wal]

POST /f/contact with a JSON object and an Idempotency-Key header: 201 with
{"receipt": N, "state": "completed"}; the same key and body again: the same
answer; the same key with another body: 422. Every commit is synced
(synchronous=FULL). `--journal delete` (the default) keeps Python's sqlite3
defaults, as a plain script has them; `--journal wal` gives it the
server's own journal, the same promise at its cheapest.
"""

import hashlib
import json
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCHEMA = """
CREATE TABLE IF NOT EXISTS receipts (
    id INTEGER PRIMARY KEY, scope TEXT NOT NULL, request_key TEXT NOT NULL,
    digest TEXT NOT NULL, payload TEXT NOT NULL, UNIQUE(scope, request_key)
);
"""
SCOPE = "acme.example/contact"


class Store:
    """The model's submit(), with one connection shared under a lock (a
    sqlite3 connection is not to be used by two threads at once)."""

    def __init__(self, path, journal):
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.execute(f"PRAGMA journal_mode={journal}")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)
        self.lock = threading.Lock()

    def submit(self, scope, key, payload):
        if any(not isinstance(v, str) or not v.strip() for v in (scope, key)):
            raise ValueError("invalid scope/key")
        if not isinstance(payload, dict) or any(not isinstance(v, str) for v in payload.values()):
            raise ValueError("invalid form fields")
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self.lock:
            try:
                with self.db:  # Commit the receipt and its scoped key together.
                    return self.db.execute(
                        "INSERT INTO receipts(scope, request_key, digest, payload) VALUES(?,?,?,?)",
                        (scope, key, digest, text)).lastrowid
            except sqlite3.IntegrityError:
                row = self.db.execute(
                    "SELECT id,digest,payload FROM receipts WHERE scope=? AND request_key=?",
                    (scope, key)).fetchone()
                if row is None:
                    raise
                if (row[1], row[2]) != (digest, text):
                    raise ValueError("same key, different input") from None
                return row[0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the Rust server offers
    # Headers and body go out in two writes: without this, each answer
    # waits for the client's delayed ACK (about 40 ms).
    disable_nagle_algorithm = True

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            payload = json.loads(self.rfile.read(length))
            key = (self.headers.get("Idempotency-Key") or "").strip('"')
            receipt = self.server.store.submit(SCOPE, key, payload)
        except (ValueError, json.JSONDecodeError) as error:
            self.answer(422, json.dumps({"title": str(error)}))
            return
        self.answer(201, json.dumps({"receipt": receipt, "state": "completed"}, separators=(",", ":")))

    def answer(self, status, body):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def handle_error(self, request, client_address):
        # The load generator closes its connections when its time is up.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def main():
    args = sys.argv[1:]
    journal = "delete"
    if len(args) == 4 and args[2] == "--journal" and args[3] in ("delete", "wal"):
        journal = args[3]
        args = args[:2]
    if len(args) != 2:
        sys.exit("usage: python_peer.py DB PORT [--journal delete|wal]")
    server = Server(("127.0.0.1", int(args[1])), Handler)
    server.store = Store(args[0], journal)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
