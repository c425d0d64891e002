#!/usr/bin/env python3
"""Copy a receipts database from a SQLite file into PostgreSQL, ids kept.

    python3 scripts/copy_to_postgres.py receipts.db postgres://user:pw@host/db

The PostgreSQL database gets the schema first (`receipt-review init URL`
must have run, or this runs it with --init). Rows whose created_at does not
read as a time are skipped (a timestamptz column cannot hold them) and
counted. Uses psql's COPY: the rows never pass through this process whole.
"""

import argparse
import csv
import io
import sqlite3
import subprocess
import sys

TABLES = {
    "receipts": ["id", "scope", "request_key", "digest", "payload", "state",
                 "response", "created_at", "updated_at"],
    "key_conflicts": ["id", "receipt_id", "digest", "payload", "received_at"],
    "replays": ["id", "receipt_id", "received_at"],
    "absorbed": ["id", "receipt_id", "request_key", "received_at", "digest"],
}


def good_time(value):
    """A time PostgreSQL reads as timestamptz: RFC 3339 or SQLite's text."""
    if value is None:
        return True
    if not isinstance(value, str) or len(value) < 19:
        return False
    import datetime
    text = value.replace("Z", "+00:00")
    try:
        datetime.datetime.fromisoformat(text)
        return True
    except ValueError:
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sqlite")
    parser.add_argument("url")
    parser.add_argument("--init", action="store_true",
                        help="run receipt-review init URL first")
    parser.add_argument("--bin", default="target/release/receipt-review")
    args = parser.parse_args()
    if args.init:
        subprocess.run([args.bin, "init", args.url], check=True)
    src = sqlite3.connect(args.sqlite)
    skipped = set()
    for table, columns in TABLES.items():
        have = {r[1] for r in src.execute(f"PRAGMA table_info({table})")}
        if not have:
            continue
        cols = [c for c in columns if c in have]
        buf = io.StringIO()
        out = csv.writer(buf, lineterminator="\n")
        n = 0
        for row in src.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY id"):
            row = dict(zip(cols, row))
            if table == "receipts":
                if not good_time(row["created_at"]) or not good_time(row.get("updated_at")):
                    skipped.add(row["id"])
                    continue
            elif row.get("receipt_id") in skipped:
                continue
            out.writerow(["\\N" if row[c] is None else row[c] for c in cols])
            n += 1
        copy = (f"\\copy {table} ({', '.join(cols)}) FROM STDIN "
                "WITH (FORMAT csv, NULL '\\N')")
        subprocess.run(["psql", args.url, "-q", "-v", "ON_ERROR_STOP=1", "-c", copy],
                       input=buf.getvalue(), text=True, check=True)
        print(f"{table}: {n} rows", file=sys.stderr)
    # Identity columns go on from the highest id copied.
    fix = "".join(
        f"SELECT setval(pg_get_serial_sequence('{t}', 'id'), "
        f"coalesce((SELECT max(id) FROM {t}), 0) + 1, false);"
        for t in TABLES)
    subprocess.run(["psql", args.url, "-q", "-v", "ON_ERROR_STOP=1", "-c", fix + "ANALYZE;"],
                   check=True, stdout=subprocess.DEVNULL)
    if skipped:
        print(f"skipped {len(skipped)} receipts whose time is not a time: "
              f"{sorted(skipped)[:10]}", file=sys.stderr)


if __name__ == "__main__":
    main()
