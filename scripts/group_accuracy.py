#!/usr/bin/env python3
"""How well `report --json` finds the duplicate groups that scripts/gen_mixed.py planted.

    python3 scripts/group_accuracy.py DB [--binary target/release/receipt-review]

Reads DB's `.planted.json` (gen_mixed.py's `--summary`, beside it), runs the report, and prints
for exact and near groups, as the report calls them (near: a partial or edited member), the
planted groups found and the precision; and for all groups, recall (the planted groups found
with exactly their receipts) and precision (the reported groups that are exactly a planted
one). Standard library only.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--binary", default="target/release/receipt-review")
    ap.add_argument("--now", default=None, help="default: the planted file's")
    args = ap.parse_args()
    db = Path(args.db)
    planted_path = db.with_suffix(".planted.json")
    if not planted_path.exists():
        sys.exit(f"no {planted_path}: write the database with scripts/gen_mixed.py")
    planted = json.loads(planted_path.read_text())
    now = args.now or planted["now"]
    r = subprocess.run([args.binary, "report", str(db), "--json", "--now", now],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"report failed: {r.stderr.strip()}")
    report = json.loads(r.stdout)

    planted_groups = {tuple(sorted(g)) for g in planted["groups"]}
    reported = {}
    for d in report["duplicates"]:
        near = any(m["match"] != "exact" for m in d["members"])
        reported[tuple(sorted(d["receipt_ids"]))] = near
    found = planted_groups & reported.keys()
    rows = []
    for name, pick in (("exact", False), ("near", True)):
        hits = sum(1 for g in found if reported[g] == pick)
        rep = sum(1 for g, near in reported.items() if near == pick)
        true = sum(1 for g, near in reported.items() if near == pick and g in planted_groups)
        rows.append((name, hits, rep, true))
    missed = len(planted_groups) - len(found)
    print(f"{db.name}: {len(planted_groups)} planted groups, {len(reported)} reported, "
          f"{len(found)} found exactly, {missed} missed")
    for name, hits, rep, true in rows:
        precision = true / rep if rep else 1.0
        print(f"  {name:5}: found {hits}, reported {rep}, precision {precision:.5f}")
    recall = len(found) / len(planted_groups) if planted_groups else 1.0
    precision = sum(1 for g in reported if g in planted_groups) / len(reported) if reported else 1.0
    print(f"  all  : recall {recall:.5f}, precision {precision:.5f}")


if __name__ == "__main__":
    main()
