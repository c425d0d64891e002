#!/usr/bin/env python3
"""The intake server's benchmark: durable submissions per second and latency
over HTTP on loopback, side by side in one run with a floor and a peer.

    python3 scripts/bench_intake.py                 # prints the results
    python3 scripts/bench_intake.py --write         # ... and rewrites BENCHMARKS.md's intake part
    python3 scripts/bench_intake.py --seconds 5 --clients 1,16,256

For each number of concurrent clients (1, 16, 256), in this order:

1. the floor: examples/intake_floor.rs, the server's own work for a POST
   (server::job::prepare) and its one writer's group commit (WAL,
   synchronous=FULL), in one process without HTTP;
2. `receipt-review serve` under wrk (scripts/intake/post.lua: every request a
   new submission with its own key), its peak RSS and its CPU time; after it
   stops, every receipt answered 201 must be in its database;
3. the peer: a plain Python model of the intake behind ThreadingHTTPServer
   (scripts/intake/python_peer.py), committing per request, under the same
   wrk load, with Python's default rollback journal as a plain script has
   it, and again with the server's WAL journal.

Then the retry storm: examples/retry_storm.rs against the server, every
submission sent three times with the same key and 10 % of the answers
dropped unread; one receipt per key, the same bytes for every answer.

It needs wrk (Debian: apt-get install wrk), python3 and a Rust toolchain, and
builds `cargo build --release` itself unless --no-build. Raw results go to
target/bench-results/intake-latest.json.
"""

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-intake"
RESULTS = ROOT / "target" / "bench-results"
LUA = ROOT / "scripts" / "intake" / "post.lua"
PEER = ROOT / "scripts" / "intake" / "python_peer.py"
BENCH_MD = ROOT / "BENCHMARKS.md"

TARGET_PER_S = 20_000
TARGET_P99_MS = 25
TARGET_RATIO = 20
TARGET_RSS_MB = 100

CONFIG = """
[server]
listen = "127.0.0.1:{port}"
body_limit = "64KiB"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
fields = {{ name = 100, email = 254, company = 200, phone = 40, message = 5000 }}
required = ["email", "message"]
window = "10m"
honeypot = "_gotcha"
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loadavg():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def fresh_db(name):
    WORK.mkdir(parents=True, exist_ok=True)
    db = WORK / name
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


def wait_until_up(url, proc, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"the server under test ended at its start (exit {proc.returncode})")
        try:
            with socket.create_connection(url, timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    sys.exit("the server under test did not start listening")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return 0


def wrk(url, clients, seconds, tag):
    threads = min(2, clients)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{clients}", f"-d{seconds}s", "--latency", "-s", str(LUA), url, tag],
        capture_output=True, text=True, check=True).stdout
    statuses = json.loads(re.search(r"^STATUSES (.*)$", out, re.M).group(1))
    latency = json.loads(re.search(r"^LATENCY (.*)$", out, re.M).group(1))
    socket_errors = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        socket_errors = sum(int(x) for x in m.groups())
    accepted = statuses.get("201", 0)
    return {
        "accepted": accepted,
        "per_s": round(accepted / seconds),
        "p50_ms": latency["p50_us"] / 1000,
        "p99_ms": latency["p99_us"] / 1000,
        "errors": sum(n for s, n in statuses.items() if s != "201") + socket_errors,
        "statuses": statuses,
    }


@contextlib.contextmanager
def serving(binary, db):
    """`receipt-review serve` on `db` and a free port, stopped by SIGTERM
    afterwards; yields its form's URL and the process."""
    port = free_port()
    config = WORK / "forms.toml"
    config.write_text(CONFIG.format(port=port))
    proc = subprocess.Popen([str(binary), "serve", str(db), "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(("127.0.0.1", port), proc)
        yield f"http://127.0.0.1:{port}/f/contact", proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def run_server(binary, clients, seconds):
    db = fresh_db(f"server-{clients}.db")
    with serving(binary, db) as (url, proc):
        cpu0 = cpu_seconds(proc.pid)
        result = wrk(url, clients, seconds, f"s{clients}-{time.time_ns()}")
        cpu = cpu_seconds(proc.pid) - cpu0
        result["rss_mb"] = peak_rss_mb(proc.pid)
        result["cpu_us_per_submission"] = round(cpu * 1e6 / max(result["accepted"], 1))
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT count(*) FROM receipts").fetchone()[0]
    # wrk stops with requests on the wire: those may be stored unanswered.
    result["stored"] = stored
    result["answered_201_missing"] = max(0, result["accepted"] - stored)
    return result


def run_floor(example, clients, seconds):
    db = fresh_db(f"floor-{clients}.db")
    config = WORK / "forms.toml"
    config.write_text(CONFIG.format(port=0))
    out = subprocess.run([str(example), str(db), str(config), "contact", str(clients), str(seconds)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def run_peer(clients, seconds, journal):
    port = free_port()
    db = fresh_db(f"peer-{journal}-{clients}.db")
    proc = subprocess.Popen([sys.executable, str(PEER), str(db), str(port), "--journal", journal],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(("127.0.0.1", port), proc)
        result = wrk(f"http://127.0.0.1:{port}/f/contact", clients, seconds, f"p{journal}{clients}-{time.time_ns()}")
        result["rss_mb"] = peak_rss_mb(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    return result


def run_storm(binary, example, keys, clients, drop_percent):
    db = fresh_db("storm.db")
    with serving(binary, db) as (url, _):
        out = subprocess.run([str(example), url, str(db), str(keys), str(clients), str(drop_percent)],
                             capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def build():
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "receipt-review",
                    "--example", "intake_floor", "--example", "retry_storm"], cwd=ROOT, check=True)


def fmt_int(n):
    return f"{n:,}"


def render(results):
    rows = results["rows"]
    top = rows[-1]
    server, floor, peer, peer_wal = top["server"], top["floor"], top["peer_delete"], top["peer_wal"]
    storm = results["storm"]
    ratio = server["per_s"] / max(peer["per_s"], 1)
    ratio_wal = server["per_s"] / max(peer_wal["per_s"], 1)
    rss = max(r["server"]["rss_mb"] for r in rows)
    errors = sum(r["server"]["errors"] for r in rows)
    missing = sum(r["server"]["answered_201_missing"] for r in rows)
    c = top["clients"]

    def met(ok):
        return "yes" if ok else "**no**"

    out = [
        f"<!-- intake:headline {json.dumps(results['headline'], separators=(',', ':'))} -->",
        "",
        f"Run **{results['date']}** on commit **`{results['commit']}`**: `{results['command']}`. "
        f"{results['cores']} cores; load average {results['load_start']} at the start, "
        f"{results['load_end']} at the end; {results['seconds']} s a run; wrk on the same cores.",
        "",
        f"### Against the targets ({c} clients)",
        "",
        "| target | figure | met |",
        "|---|---:|---|",
        f"| ≥ {fmt_int(TARGET_PER_S)} durable submissions/s | {fmt_int(server['per_s'])}/s | {met(server['per_s'] >= TARGET_PER_S)} |",
        f"| p99 ≤ {TARGET_P99_MS} ms | {server['p99_ms']:.1f} ms | {met(server['p99_ms'] <= TARGET_P99_MS)} |",
        f"| ≥ {TARGET_RATIO}× the Python peer (a plain script: Python's default journal) | {ratio:.1f}× | {met(ratio >= TARGET_RATIO)} |",
        f"| … the peer given the server's WAL journal | {ratio_wal:.1f}× | {met(ratio_wal >= TARGET_RATIO)} |",
        f"| the server's peak RSS ≤ {TARGET_RSS_MB} MB (every run) | {rss} MB | {met(rss <= TARGET_RSS_MB)} |",
        f"| 0 errors (every run) | {errors} | {met(errors == 0)} |",
        f"| every 201 stored (every run) | {missing} missing | {met(missing == 0)} |",
        f"| retry storm: one receipt per key | {fmt_int(storm['receipts'])} receipts for {fmt_int(storm['keys'])} keys, "
        f"{storm['keys_with_two_receipts']} keys twice, {storm['keys_with_differing_answers']} keys with differing answers "
        f"| {met(storm['receipts'] == storm['keys'] and storm['keys_with_two_receipts'] == 0 and storm['keys_with_differing_answers'] == 0)} |",
        "",
        "### Side by side",
        "",
        "| clients | what | submissions/s | p50 | p99 | errors | peak RSS | server CPU per submission |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s, f, p, w = r["server"], r["floor"], r["peer_delete"], r["peer_wal"]
        n = r["clients"]
        out += [
            f"| {n} | floor: the same work and commits, no HTTP | {fmt_int(f['per_s'])} | {f['p50_ms']:.2f} ms | {f['p99_ms']:.2f} ms | {f['errors']} | {f['rss_mb']} MB | — |",
            f"| {n} | **`receipt-review serve`** | **{fmt_int(s['per_s'])}** | {s['p50_ms']:.2f} ms | {s['p99_ms']:.2f} ms | {s['errors']} | {s['rss_mb']} MB | {s['cpu_us_per_submission']} µs |",
            f"| {n} | Python peer, default journal | {fmt_int(p['per_s'])} | {p['p50_ms']:.2f} ms | {p['p99_ms']:.2f} ms | {p['errors']} | {p['rss_mb']} MB | — |",
            f"| {n} | Python peer, WAL | {fmt_int(w['per_s'])} | {w['p50_ms']:.2f} ms | {w['p99_ms']:.2f} ms | {w['errors']} | {w['rss_mb']} MB | — |",
        ]
    out += [
        "",
        f"Retry storm: {fmt_int(storm['keys'])} keys × 3 sends from {results['storm_clients']} clients, "
        f"{fmt_int(storm['dropped'])} answers dropped unread, {fmt_int(storm['answered'])} answered "
        f"({', '.join(f'{k}: {fmt_int(v)}' for k, v in storm['statuses'].items())}) in {storm['seconds']:.1f} s; "
        f"{fmt_int(storm['receipts'])} receipts, {storm['keys_with_two_receipts']} keys with two, "
        f"{storm['answered_keys_without_receipt']} answered keys without one.",
    ]
    return "\n".join(out)


def history_row(headline):
    h = headline
    return (f"| {h['date']} | `{h['commit']}` | {fmt_int(h['per_s'])} | {h['p99_ms']:.1f} ms | "
            f"{fmt_int(h['floor_per_s'])} | {fmt_int(h['peer_per_s'])} ({h['ratio']:.0f}×) | "
            f"{fmt_int(h['peer_wal_per_s'])} ({h['ratio_wal']:.1f}×) | {h['rss_mb']} MB | {h['errors']} |")


def write(results):
    text = BENCH_MD.read_text()
    begin, end = "<!-- intake:results:begin -->", "<!-- intake:results:end -->"
    hbegin, hend = "<!-- intake:history:begin -->", "<!-- intake:history:end -->"
    if begin not in text or hbegin not in text:
        sys.exit("BENCHMARKS.md has no intake markers")
    old = text[text.index(begin):text.index(end)]
    m = re.search(r"<!-- intake:headline (.*?) -->", old)
    head, rest = text.split(hbegin)
    table, tail = rest.split(hend)
    lines = [l for l in table.strip().splitlines()]
    header, rows = lines[:2], lines[2:]
    if m:
        rows.insert(0, history_row(json.loads(m.group(1))))
    rows = rows[:10]
    text = head + hbegin + "\n" + "\n".join(header + rows) + "\n" + hend + tail
    text = (text[:text.index(begin) + len(begin)] + "\n" + render(results) + "\n"
            + text[text.index(end):])
    BENCH_MD.write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", default="1,16,256")
    parser.add_argument("--storm-keys", type=int, default=20_000)
    parser.add_argument("--storm-clients", type=int, default=64)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's intake results")
    parser.add_argument("--sustain", type=int, metavar="SECONDS",
                        help="only the server, at the most clients, for this long: its rate and peak "
                             "memory with the form's 10-minute window filling (prints, writes nothing)")
    args = parser.parse_args()
    if subprocess.run(["which", "wrk"], capture_output=True).returncode != 0:
        sys.exit("wrk is needed (Debian: apt-get install wrk)")
    if not args.no_build:
        build()
    binary = ROOT / "target" / "release" / "receipt-review"
    floor = ROOT / "target" / "release" / "examples" / "intake_floor"
    storm = ROOT / "target" / "release" / "examples" / "retry_storm"
    clients = [int(c) for c in args.clients.split(",")]
    if args.sustain:
        n = max(clients)
        s = run_server(binary, n, args.sustain)
        print(f"sustained {args.sustain} s at {n} clients: {s['per_s']:,}/s, p50 {s['p50_ms']:.2f} "
              f"p99 {s['p99_ms']:.2f} ms, errors {s['errors']}, peak RSS {s['rss_mb']} MB, "
              f"{s['stored']:,} receipts stored")
        return
    results = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git("rev-parse", "--short", "HEAD"),
        "command": "python3 scripts/bench_intake.py" + (" --write" if args.write else ""),
        "cores": os.cpu_count(),
        "load_start": loadavg(),
        "seconds": args.seconds,
        "storm_clients": args.storm_clients,
        "rows": [],
    }
    for n in clients:
        row = {"clients": n}
        row["floor"] = run_floor(floor, n, args.seconds)
        row["server"] = run_server(binary, n, args.seconds)
        row["peer_delete"] = run_peer(n, args.seconds, "delete")
        row["peer_wal"] = run_peer(n, args.seconds, "wal")
        results["rows"].append(row)
        s = row["server"]
        print(f"{n:>4} clients: floor {row['floor']['per_s']:>7,}/s  server {s['per_s']:>7,}/s "
              f"p50 {s['p50_ms']:.2f} p99 {s['p99_ms']:.2f} ms  errors {s['errors']}  rss {s['rss_mb']} MB  "
              f"peer {row['peer_delete']['per_s']:,}/s (WAL {row['peer_wal']['per_s']:,}/s)", flush=True)
    results["storm"] = run_storm(binary, storm, args.storm_keys, args.storm_clients, 10)
    print(f"retry storm: {json.dumps(results['storm'])}")
    results["load_end"] = loadavg()
    top = results["rows"][-1]
    results["headline"] = {
        "date": results["date"][:16], "commit": results["commit"],
        "per_s": top["server"]["per_s"], "p99_ms": top["server"]["p99_ms"],
        "floor_per_s": top["floor"]["per_s"], "peer_per_s": top["peer_delete"]["per_s"],
        "peer_wal_per_s": top["peer_wal"]["per_s"],
        "ratio": top["server"]["per_s"] / max(top["peer_delete"]["per_s"], 1),
        "ratio_wal": top["server"]["per_s"] / max(top["peer_wal"]["per_s"], 1),
        "rss_mb": max(r["server"]["rss_mb"] for r in results["rows"]),
        "errors": sum(r["server"]["errors"] for r in results["rows"]),
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "intake-latest.json").write_text(json.dumps(results, indent=1))
    print()
    print(render(results))
    if args.write:
        write(results)
        print(f"\nwrote {BENCH_MD.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
