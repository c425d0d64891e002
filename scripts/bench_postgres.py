#!/usr/bin/env python3
"""receipt-review on PostgreSQL, side by side with SQLite in one run on one machine.

    python3 scripts/bench_postgres.py                    # 1M receipts; prints the results
    python3 scripts/bench_postgres.py --write            # ... and rewrites BENCHMARKS.md's PostgreSQL part
    python3 scripts/bench_postgres.py --receipts 50k --no-build
    python3 scripts/bench_postgres.py --from-json target/bench-results/postgres-latest.json --write

The PostgreSQL server runs on this machine too: a throwaway cluster made by
scripts/pg_cluster.sh (fsync on) in --cluster-dir, stopped and removed at the
end, one database per case. In this order:

1. data: the demo at --receipts (`receipt-review demo --seed 1 --now
   2026-12-01T00:00:00Z`, cached in target/bench-postgres/), copied into
   PostgreSQL by scripts/copy_to_postgres.py --init. It skips receipts whose
   time is not a time (timestamptz cannot hold them); the same receipts, and
   the key_conflicts, replays and absorbed rows that name them, are deleted
   from a copy of the SQLite file, so that both hold the same rows (checked
   table by table);
2. `report --json --now T` on SQLite and on PostgreSQL, alternating, after
   one discarded run each: wall time (median and best of --runs), peak RSS
   (/usr/bin/time -f %M), and whether every output is byte-identical (it must
   be); target: PostgreSQL's median ≤ 1.5× SQLite's;
3. `find DB EMAIL --json --now T` by an email one receipt holds, alternating:
   median and best, the hits checked against SQL and compared between the two;
   target on PostgreSQL ≤ 300 ms (median);
4. the intake: `receipt-review init` on a fresh database, then two `serve`
   processes on it (bench_intake.py's form: rate off, window 10m), each
   under its own `wrk -t2 -c128 -d10s -s scripts/intake/post.lua --latency`
   at the same time, with its own key prefix: submissions/s (the 201 answers)
   in total, p50/p99 of each (post.lua's LATENCY line, else wrk's), errors
   and non-201 answers, each server's peak RSS (VmHWM before it is stopped).
   After both stop, every key answered 201 must be stored once: count(*)
   and count(DISTINCT request_key) of the receipts with those prefixes must be
   equal, and at least the 201s (wrk stops with requests on the wire).
   Targets: ≥ 15,000/s in total, p99 ≤ 50 ms, 0 errors, each ≤ 100 MB;
5. the review screen on PostgreSQL in a pseudo-terminal
   (examples/bench_tui, as scripts/bench.py drives it; the URL is its DB):
   first frame, analysis shown / all read, keypress → frame p99 scrolling
   and filtering, its peak RSS; its header's counts against the report's.
   Targets: first frame ≤ 100 ms, keypress p99 ≤ 16 ms;
6. the screen's refresh after 1,000 appends: examples/refresh_timing.rs on
   each engine (the worker's reading of the appended rows and the screen's
   update, in-process, 3 rounds), on copies of the data (it writes).
   Target on PostgreSQL: ≤ 100 ms.

It needs python3 (standard library only), PostgreSQL's server and psql
(scripts/pg_cluster.sh finds them), wrk, GNU /usr/bin/time and a Rust
toolchain; it builds the release binary and examples/bench_tui unless
--no-build. Raw results go to target/bench-results/postgres-latest.json (and
a timestamped copy); URLs are kept without their password.
"""

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the worktree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import (commit_of, copy_db, ensure_demo, loadavg, machine_info,  # noqa: E402
                   parse_size, repo_of, tui_run, warm)
from bench_render import label  # noqa: E402
from copy_to_postgres import TABLES, good_time  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "target" / "bench-postgres"
RESULTS = REPO / "target" / "bench-results"
BENCH_MD = REPO / "BENCHMARKS.md"
LUA = REPO / "scripts" / "intake" / "post.lua"
PG_CLUSTER = REPO / "scripts" / "pg_cluster.sh"
COPY = REPO / "scripts" / "copy_to_postgres.py"
TUI_BIN = REPO / "target" / "release" / "examples" / "bench_tui"

DEFAULT_NOW = "2026-12-01T00:00:00Z"

TARGET_REPORT_RATIO = 1.5
TARGET_FIND_MS = 300
TARGET_INTAKE_PER_S = 15_000
TARGET_INTAKE_P99_MS = 50
TARGET_INTAKE_RSS_MB = 100
TARGET_FIRST_FRAME_MS = 100
TARGET_KEY_P99_MS = 16

REFRESH_BIN = REPO / "target" / "release" / "examples" / "refresh_timing"
TARGET_REFRESH_MS = 100

# The form of scripts/bench_intake.py.
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

BEGIN = "<!-- postgres:results:begin -->"
END = "<!-- postgres:results:end -->"
HISTORY_BEGIN = "<!-- postgres:history:begin -->"
HISTORY_END = "<!-- postgres:history:end -->"
HEADLINE_RE = re.compile(r"<!-- postgres:headline (\{.*?\}) -->")
HISTORY_ROWS = 10


def log(msg=""):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def shown(text):
    """`text` with the password of every URL in it taken out."""
    return re.sub(r"(postgres(?:ql)?://[^:/@\s]+):[^@\s]*@", r"\1@", str(text))


def redact(value):
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    return value


def ms(seconds):
    return seconds * 1000.0


def fmt_int(n):
    return f"{n:,}"


def receipts(k):
    return f"{fmt_int(k)} receipt" + ("" if k == 1 else "s")


# ---------------------------------------------------------------- building

def bench_refresh(sqlite_db, pg_url):
    """examples/refresh_timing on copies of both databases: 1,000 appends a
    round, 3 rounds; the milliseconds from the load asked to the screen
    updated, per round."""
    out = {}
    sqlite_copy = WORK / "refresh-copy.db"
    copy_db(sqlite_db, sqlite_copy)
    admin = pg_url.rsplit("/", 1)[0] + "/postgres"
    name = pg_url.rsplit("/", 1)[1]
    copy_name = name + "_refresh"
    run(["psql", admin, "-q", "-c", f"DROP DATABASE IF EXISTS {copy_name} WITH (FORCE)",
         "-c", f"CREATE DATABASE {copy_name} TEMPLATE {name}"])
    targets = {"sqlite": str(sqlite_copy), "postgres": pg_url.rsplit("/", 1)[0] + "/" + copy_name}
    for engine, db in targets.items():
        text = run([str(REFRESH_BIN), db, "1000", "3"]).stdout
        rounds = [float(m) for m in re.findall(r"load → screen updated ([0-9.]+) ms", text)]
        log(f"[refresh] {engine}: " + ", ".join(f"{v:.1f} ms" for v in rounds))
        out[engine] = rounds
    remove_db(sqlite_copy)
    run(["psql", admin, "-q", "-c", f"DROP DATABASE IF EXISTS {copy_name} WITH (FORCE)"])
    return out


def build(args):
    if not args.no_build:
        cmd = ["cargo", "build", "--release", "--bin", "receipt-review", "--example", "bench_tui",
               "--example", "refresh_timing"]
        log("building: " + " ".join(cmd))
        if subprocess.run(cmd, cwd=REPO).returncode != 0:
            sys.exit("the build failed")
    binary = REPO / "target" / "release" / "receipt-review"
    if not binary.exists():
        sys.exit(f"no binary at {binary} (build it, or leave out --no-build)")
    return binary


def needs():
    missing = [t for t in ("psql", "wrk") if shutil.which(t) is None]
    if not Path("/usr/bin/time").exists():
        missing.append("/usr/bin/time (GNU time)")
    if missing:
        sys.exit("needed: " + ", ".join(missing))


# ---------------------------------------------------------------- PostgreSQL

def psql(url, sql):
    r = run(["psql", url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql])
    if r.returncode != 0:
        raise RuntimeError(f"psql: {shown(r.stderr.strip())}")
    return r.stdout.strip()


def database_url(url, name):
    """The server's URL with another database name."""
    head, _, tail = url.rpartition("/")
    query = tail.split("?", 1)[1] if "?" in tail else None
    return f"{head}/{name}" + (f"?{query}" if query else "")


def create_database(server_url, name):
    psql(server_url, f"CREATE DATABASE {name}")
    return database_url(server_url, name)


@contextlib.contextmanager
def cluster(directory):
    """scripts/pg_cluster.sh's throwaway server in `directory`: yields its URL; stopped and
    removed afterwards, whatever happened."""
    directory = Path(directory).resolve()  # pg_cluster.sh stop needs an absolute path
    if directory.exists():
        # A run that was killed may have left one behind; the script removes only its own.
        run(["bash", str(PG_CLUSTER), "stop", str(directory)], cwd=REPO)
    log(f"cluster: scripts/pg_cluster.sh start {directory}")
    t0 = time.perf_counter()
    r = run(["bash", str(PG_CLUSTER), "start", str(directory)], cwd=REPO)
    if r.returncode != 0:
        sys.exit(f"the cluster did not start: {r.stderr.strip()}")
    url = r.stdout.strip().splitlines()[-1]
    log(f"cluster: up at {shown(url)} in {time.perf_counter() - t0:.1f} s")
    try:
        yield url
    finally:
        log(f"cluster: scripts/pg_cluster.sh stop {directory}")
        r = run(["bash", str(PG_CLUSTER), "stop", str(directory)], cwd=REPO)
        if r.returncode != 0:
            log(f"warning: the cluster did not stop: {r.stderr.strip()}")


def server_info(url):
    info = {}
    for name in ("server_version", "shared_buffers", "work_mem", "max_connections", "fsync",
                 "synchronous_commit"):
        try:
            info[name] = psql(url, f"SHOW {name}")
        except RuntimeError:
            info[name] = None
    return info


# ---------------------------------------------------------------- data

def skipped_receipts(db):
    """The receipts copy_to_postgres.py skips: a created_at or updated_at it cannot copy."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(receipts)")}
        upd = "updated_at" if "updated_at" in cols else "NULL"
        return sorted(rid for rid, c, u in con.execute(f"SELECT id, created_at, {upd} FROM receipts")
                      if not good_time(c) or not good_time(u))
    finally:
        con.close()


def row_counts_sqlite(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        have = {name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES if t in have}
    finally:
        con.close()


def row_counts_pg(url, tables):
    return {t: int(psql(url, f"SELECT count(*) FROM {t}")) for t in tables}


def same_rows_copy(demo, skipped, out):
    """A copy of the demo without the receipts PostgreSQL could not take, nor the rows that
    name them."""
    copy_db(demo, out)
    con = sqlite3.connect(out, isolation_level=None)
    try:
        con.execute("BEGIN")
        con.execute("CREATE TEMP TABLE skipped (id INTEGER PRIMARY KEY)")
        con.executemany("INSERT INTO skipped VALUES (?)", [(i,) for i in skipped])
        tables = [name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for t in tables:
            cols = {r[1] for r in con.execute(f"PRAGMA table_info({t})")}
            if t != "receipts" and "receipt_id" in cols:
                con.execute(f"DELETE FROM {t} WHERE receipt_id IN (SELECT id FROM skipped)")
        con.execute("DELETE FROM receipts WHERE id IN (SELECT id FROM skipped)")
        con.execute("COMMIT")
    finally:
        con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)


def remove_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def prepare_data(args, binary, server_url, n):
    log(f"[data] the {label(n)} demo (seed {args.seed}, --now {args.now}), cached in {WORK}")
    demo, meta = ensure_demo(binary, n, args.seed, args.now, WORK)
    log(f"[data] demo: {demo} ({demo.stat().st_size / 1e6:.0f} MB)"
        + (f"; planted {json.dumps(meta['planted'])}" if meta.get("planted") else ""))
    url = create_database(server_url, "bench")
    log(f"[data] CREATE DATABASE bench; scripts/copy_to_postgres.py {demo.name} {shown(url)} --init")
    t0 = time.perf_counter()
    r = run([sys.executable, str(COPY), str(demo), url, "--init", "--bin", str(binary)], cwd=REPO)
    copy_s = time.perf_counter() - t0
    for line in r.stderr.strip().splitlines():
        log(f"[data]   {shown(line)}")
    if r.returncode != 0:
        sys.exit("copy_to_postgres.py failed")
    m = re.search(r"skipped (\d+) receipts", r.stderr)
    said = int(m.group(1)) if m else 0
    skipped = skipped_receipts(demo)
    log(f"[data] copied in {copy_s:.1f} s; skipped {receipts(len(skipped))} whose time is not a time: "
        f"{skipped[:20]}{' …' if len(skipped) > 20 else ''}")
    if said != len(skipped):
        sys.exit(f"copy_to_postgres.py says it skipped {said} receipts, this script finds {len(skipped)}")
    same = WORK / f"{demo.stem}.as-in-postgres.db"
    same_rows_copy(demo, skipped, same)
    sq = row_counts_sqlite(same)
    pg = row_counts_pg(url, sq)
    log("[data] rows, SQLite copy / PostgreSQL: "
        + ", ".join(f"{t} {fmt_int(sq[t])} / {fmt_int(pg[t])}" for t in sq))
    if sq != pg:
        sys.exit("the SQLite copy and the PostgreSQL database do not hold the same rows")
    # copy_to_postgres.py and the read-only connections leave the demo's -wal and -shm behind;
    # the last connection to close, if it may write, removes them.
    con = sqlite3.connect(demo)
    con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    con.close()
    res = {"demo": str(demo), "demo_mb": round(demo.stat().st_size / 1e6, 1), "planted": meta.get("planted"),
           "copy_s": copy_s, "skipped_ids": skipped, "rows": sq, "sqlite_copy": str(same),
           "pg_size_mb": round(int(psql(url, "SELECT pg_database_size(current_database())")) / 1e6, 1)}
    return same, url, res


# ---------------------------------------------------------------- report and find

def timed(cmd, out_path):
    """One run of `cmd` under /usr/bin/time -f %M, its stdout into `out_path`."""
    rss_file = WORK / "time.out"
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-o", str(rss_file), "-f", "%M"] + cmd,
                           stdout=out, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
    try:
        rss_kb = int(rss_file.read_text().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        rss_kb = 0
    res = {"wall": wall, "exit": r.returncode, "rss_kb": rss_kb}
    if r.returncode != 0:
        res["stderr"] = shown(r.stderr.strip())[-400:]
    return res


def sha_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def first_difference(a, b):
    x, y = Path(a).read_bytes(), Path(b).read_bytes()
    if x == y:
        return "the first outputs are the same bytes: a later run's differ"
    i, step = 0, 1 << 16
    while x[i:i + step] == y[i:i + step]:
        i += step
    while i < min(len(x), len(y)) and x[i] == y[i]:
        i += 1
    line = x[:i].count(b"\n") + 1
    return (f"byte {i} (line {line}): SQLite {x[max(0, i - 60):i + 60]!r} / "
            f"PostgreSQL {y[max(0, i - 60):i + 60]!r}")


def side_by_side(args, name, make_cmd, dbs, tag):
    """`make_cmd(db)` on each of `dbs` ({engine: db}), one discarded run each, then --runs
    rounds alternating: wall times, peak RSS, and whether every output is the same bytes."""
    outs = {e: WORK / f"{name}-{e}.out" for e in dbs}
    again = {e: WORK / f"{name}-{e}.again.out" for e in dbs}
    for e, db in dbs.items():
        r = timed(make_cmd(db), outs[e])
        if r["exit"] != 0:
            sys.exit(f"{name} on {e} failed: {r.get('stderr')}")
        log(f"[{tag}] warm-up on {e}: {ms(r['wall']):.0f} ms (not counted)")
    runs = {e: [] for e in dbs}
    shas = {e: [sha_of(outs[e])] for e in dbs}
    for i in range(args.runs):
        for e, db in dbs.items():
            r = timed(make_cmd(db), again[e])
            if r["exit"] != 0:
                sys.exit(f"{name} on {e} failed: {r.get('stderr')}")
            runs[e].append(r)
            shas[e].append(sha_of(again[e]))
        log(f"[{tag}] round {i + 1}: " + ", ".join(
            f"{e} {ms(runs[e][-1]['wall']):.0f} ms, RSS {runs[e][-1]['rss_kb'] / 1024:.0f} MB" for e in dbs))
    res = {}
    for e in dbs:
        walls = [r["wall"] for r in runs[e]]
        res[e] = {"median_s": statistics.median(walls), "best_s": min(walls), "runs_s": walls,
                  "rss_mb": max(r["rss_kb"] for r in runs[e]) / 1024, "bytes": outs[e].stat().st_size}
        again[e].unlink(missing_ok=True)
    every = {s for e in dbs for s in shas[e]}
    res["identical"] = len(every) == 1
    res["each_engine_stable"] = all(len(set(shas[e])) == 1 for e in dbs)
    if not res["identical"]:
        a, b = list(outs.values())[:2]
        res["difference"] = first_difference(a, b)
        log(f"[{tag}] OUTPUTS DIFFER: {res['difference']}")
    res["outputs"] = {e: str(p) for e, p in outs.items()}
    return res


def bench_report(args, binary, sqlite_db, pg_url):
    log(f"[report] report --json --now {args.now}: SQLite and PostgreSQL alternating, "
        f"{args.runs} runs each")
    warm(sqlite_db)
    res = side_by_side(args, "report", lambda db: [str(binary), "report", str(db), "--json", "--now", args.now],
                       {"sqlite": sqlite_db, "postgres": pg_url}, "report")
    res["ratio_median"] = res["postgres"]["median_s"] / res["sqlite"]["median_s"]
    res["ratio_best"] = res["postgres"]["best_s"] / res["sqlite"]["best_s"]
    rep = json.loads(Path(res["outputs"]["sqlite"]).read_text())
    res["counts"] = rep.get("counts")
    log(f"[report] median SQLite {res['sqlite']['median_s']:.3f} s, PostgreSQL {res['postgres']['median_s']:.3f} s: "
        f"{res['ratio_median']:.2f}× (best {res['ratio_best']:.2f}×, target ≤ {TARGET_REPORT_RATIO}×); "
        f"peak RSS {res['sqlite']['rss_mb']:.0f} / {res['postgres']['rss_mb']:.0f} MB; "
        f"byte-identical: {'yes' if res['identical'] else 'NO'} ({fmt_int(res['sqlite']['bytes'])} bytes)")
    return res, rep


def pick_email(db):
    """An email a receipt near the middle holds, and every receipt that holds it (SQL)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        mid = con.execute("SELECT max(id) / 2 FROM receipts").fetchone()[0]
        for _, payload in con.execute("SELECT id, payload FROM receipts WHERE id >= ? LIMIT 200", (mid,)):
            try:
                e = json.loads(payload).get("email")
            except (ValueError, AttributeError):
                continue
            if isinstance(e, str) and e:
                expect = sorted(i for (i,) in con.execute(
                    "SELECT id FROM receipts WHERE instr(lower(payload), lower(?)) > 0", (e,)))
                return e, expect
    finally:
        con.close()
    return None, []


def bench_find(args, binary, sqlite_db, pg_url):
    email, expect = pick_email(sqlite_db)
    if email is None:
        return {"error": "no receipt with an email near the middle"}
    log(f"[find] find DB {email} --json --now {args.now}: alternating, {args.runs} runs each "
        f"(held by {receipts(len(expect))})")
    res = side_by_side(args, "find", lambda db: [str(binary), "find", str(db), email, "--json", "--now", args.now,
                                                 "--tz", "UTC"],
                       {"sqlite": sqlite_db, "postgres": pg_url}, "find")
    res["email"] = email
    res["expected_ids"] = expect
    for e in ("sqlite", "postgres"):
        ids = sorted(h["receipt_id"] for h in json.loads(Path(res["outputs"][e]).read_text())["hits"])
        res[e]["correct"] = ids == expect
    log(f"[find] median SQLite {ms(res['sqlite']['median_s']):.0f} ms, PostgreSQL "
        f"{ms(res['postgres']['median_s']):.0f} ms (target ≤ {TARGET_FIND_MS} ms); hits as SQL finds them: "
        f"{res['sqlite']['correct']} / {res['postgres']['correct']}; byte-identical: "
        f"{'yes' if res['identical'] else 'NO'}")
    return res


# ---------------------------------------------------------------- the intake

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(port, proc, seconds=15.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve ended at its start (exit {proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("serve did not start listening")


def proc_status(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


WRK_PCT = re.compile(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s)\s*$", re.M)


def read_wrk(out, seconds):
    statuses = {}
    m = re.search(r"^STATUSES (.*)$", out, re.M)
    if m:
        statuses = json.loads(m.group(1))
    latency = {}
    m = re.search(r"^LATENCY (.*)$", out, re.M)
    if m:
        lat = json.loads(m.group(1))
        latency = {"p50_ms": lat["p50_us"] / 1000, "p99_ms": lat["p99_us"] / 1000,
                   "max_ms": lat["max_us"] / 1000, "latency_from": "post.lua"}
    else:
        scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
        got = {p: float(v) * scale[u] for p, v, u in WRK_PCT.findall(out)}
        latency = {"p50_ms": got.get("50"), "p99_ms": got.get("99"), "latency_from": "wrk"}
    socket_errors = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        socket_errors = sum(int(x) for x in m.groups())
    accepted = statuses.get("201", 0)
    return {"accepted": accepted, "per_s": accepted / seconds,
            "non_201": sum(n for s, n in statuses.items() if s != "201"),
            "socket_errors": socket_errors, "statuses": statuses, **latency}


def bench_intake(args, binary, server_url):
    url = create_database(server_url, "intake")
    r = run([str(binary), "init", url])
    if r.returncode != 0:
        return {"error": f"init failed: {shown(r.stderr.strip())}"}
    stamp = time.time_ns() % 10**12
    sides = []
    for name in ("a", "b"):
        port = free_port()
        config = WORK / f"intake-{name}.toml"
        config.write_text(CONFIG.format(port=port))
        sides.append({"name": name, "port": port, "config": config, "prefix": f"pg{name}{stamp}"})
    log(f"[intake] CREATE DATABASE intake; receipt-review init; two serve processes on it "
        f"(ports {sides[0]['port']}, {sides[1]['port']}), each under wrk -t{args.threads} -c{args.clients} "
        f"-d{args.seconds}s at the same time")
    procs, wrks = [], []
    try:
        for s in sides:
            s["log"] = WORK / f"intake-{s['name']}.log"
            with open(s["log"], "wb") as errf:
                procs.append(subprocess.Popen([str(binary), "serve", url, "--config", str(s["config"])],
                                              stdout=subprocess.DEVNULL, stderr=errf))
        for s, p in zip(sides, procs):
            wait_until_up(s["port"], p)
            s["cpu0"] = cpu_seconds(p.pid)
        wrks = [subprocess.Popen(["wrk", f"-t{args.threads}", f"-c{args.clients}", f"-d{args.seconds}s",
                                  "-s", str(LUA), "--latency", f"http://127.0.0.1:{s['port']}/f/contact",
                                  "--", s["prefix"]],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for s in sides]
        outs = [w.communicate(timeout=args.seconds + 120) for w in wrks]
        for s, p, w, (out, err) in zip(sides, procs, wrks, outs):
            if w.returncode != 0:
                raise RuntimeError(f"wrk failed: {err.strip()}")
            if p.poll() is not None:
                raise RuntimeError(f"serve {s['name']} ended during the run (exit {p.returncode}, "
                                   f"see {s['log']})")
            s.update(read_wrk(out, args.seconds))
            s["rss_mb"] = proc_status(p.pid, "VmHWM") / 1024
            s["cpu_us_per_submission"] = (cpu_seconds(p.pid) - s["cpu0"]) * 1e6 / max(s["accepted"], 1)
    finally:
        for w in wrks:
            if w.poll() is None:
                w.kill()
                w.wait()
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    for s, p in zip(sides, procs):
        s["exit"] = p.returncode
        s.pop("cpu0", None)
        s["config"] = str(s["config"])
        s["log"] = str(s["log"])
    where = " OR ".join(f"left(request_key, {len(s['prefix']) + 1}) = '{s['prefix']}-'" for s in sides)
    stored, distinct = map(int, psql(url, f"SELECT count(*), count(DISTINCT request_key) FROM receipts "
                                          f"WHERE {where}").split("|"))
    accepted = sum(s["accepted"] for s in sides)
    res = {"seconds": args.seconds, "clients": args.clients, "threads": args.threads, "servers": sides,
           "per_s": accepted / args.seconds, "accepted": accepted, "stored": stored, "distinct_keys": distinct,
           "stored_once": stored == distinct and stored >= accepted,
           "p99_ms": max((s["p99_ms"] or 0) for s in sides),
           "errors": sum(s["socket_errors"] + s["non_201"] for s in sides),
           "rss_mb": max(s["rss_mb"] for s in sides)}
    for s in sides:
        log(f"[intake] serve {s['name']}: {fmt_int(round(s['per_s']))}/s, p50 {s['p50_ms']:.1f} ms, "
            f"p99 {s['p99_ms']:.1f} ms ({s['latency_from']}), non-201 {s['non_201']}, socket errors "
            f"{s['socket_errors']}, peak RSS {s['rss_mb']:.0f} MB, {s['cpu_us_per_submission']:.0f} µs CPU "
            f"per submission, exit {s['exit']}")
    log(f"[intake] total {fmt_int(round(res['per_s']))}/s (target ≥ {fmt_int(TARGET_INTAKE_PER_S)}); "
        f"{fmt_int(accepted)} answered 201, {fmt_int(stored)} stored with those keys, {fmt_int(distinct)} "
        f"distinct keys: each stored once {'yes' if res['stored_once'] else 'NO'}")
    return res


# ---------------------------------------------------------------- the screen

def review_log_rows(url):
    if psql(url, "SELECT to_regclass('review_log') IS NOT NULL") != "t":
        return 0
    return int(psql(url, "SELECT count(*) FROM review_log"))


def bench_screen(args, binary, pg_url, rep):
    log(f"[screen] examples/bench_tui screen on PostgreSQL: {args.keys} keys scrolling, "
        f"{args.keys}+ keys filtering, {args.quiet_ms:.0f} ms quiet before each")
    if not TUI_BIN.exists():
        return {"error": "examples/bench_tui is not built"}
    res = tui_run(["screen", str(binary), pg_url, "--now", args.now, "--keys", str(args.keys),
                   "--quiet-ms", str(args.quiet_ms), "--label", "[screen] "], progress=True)
    res.pop("argv", None)
    if "error" in res:
        log(f"[screen] {shown(res['error'])}")
        res.pop("screen", None)
        return redact(res)
    if "header_counts" in res and rep:
        want = {k: rep["counts"].get(k) for k in res["header_counts"]}
        res["counts_match_report"] = res["header_counts"] == want
    res["review_log_rows_after"] = review_log_rows(pg_url)
    sc, fi = res.get("scroll", {}).get("frame", {}), res.get("filter", {}).get("frame", {})
    res["key_p99_ms"] = max(x for x in (sc.get("p99"), fi.get("p99"), -1) if x is not None)
    res["rss_peak_mb"] = ((res.get("rss_end_kb") or {}).get("VmHWM") or 0) / 1024
    log(f"[screen] first frame {res['first_frame_ms']:.0f} ms (target ≤ {TARGET_FIRST_FRAME_MS}), analysis "
        f"shown {res['analysis_shown_ms']:.0f} ms, all read {res['analysis_done_ms']:.0f} ms; key p99 scroll "
        f"{sc.get('p99') or -1:.1f} ms, filter {fi.get('p99') or -1:.1f} ms (target ≤ {TARGET_KEY_P99_MS}); "
        f"RSS {res['rss_peak_mb']:.0f} MB at its peak; header counts as the report's: "
        f"{res.get('counts_match_report')}")
    return redact(res)


# ---------------------------------------------------------------- rendering

def met(ok):
    return "yes" if ok else "**no**"


def headline_of(results):
    h = {"date": results["machine"]["date_utc"][:16], "commit": results["commit"]["commit"],
         "n": results["n"]}
    rep, fnd, intk, scr = (results.get(k) or {} for k in ("report", "find", "intake", "screen"))
    if "ratio_median" in rep:
        h["report_ratio"] = round(rep["ratio_median"], 2)
        h["identical"] = rep["identical"]
    if "postgres" in fnd:
        h["find_ms"] = round(ms(fnd["postgres"]["median_s"]))
    if "per_s" in intk:
        h.update(intake_per_s=round(intk["per_s"]), intake_p99_ms=round(intk["p99_ms"], 1),
                 intake_rss_mb=round(intk["rss_mb"]), intake_errors=intk["errors"])
    if "first_frame_ms" in scr:
        h.update(first_frame_ms=round(scr["first_frame_ms"]), key_p99_ms=round(scr["key_p99_ms"], 1))
    return h


def history_row(h):
    def g(k, f):
        return f(h[k]) if h.get(k) is not None else "—"
    return (f"| {h['date']} | `{h['commit']}` | {label(h['n'])} | {g('report_ratio', lambda x: f'{x:.2f}×')} | "
            f"{g('find_ms', lambda x: f'{x} ms')} | {g('intake_per_s', fmt_int)} | "
            f"{g('intake_p99_ms', lambda x: f'{x:.1f} ms')} | {g('intake_rss_mb', lambda x: f'{x} MB')} | "
            f"{g('first_frame_ms', lambda x: f'{x} ms')} | {g('key_p99_ms', lambda x: f'{x:.1f} ms')} |")


def render(results):
    m, c, pg, data = results["machine"], results["commit"], results["postgres"], results["data"]
    rep, fnd, intk, scr = (results.get(k) or {} for k in ("report", "find", "intake", "screen"))
    n = results["n"]
    out = [f"<!-- postgres:headline {json.dumps(headline_of(results), separators=(',', ':'))} -->", "",
           f"Run **{m['date_utc']}** on commit **`{c['commit']}`**: `{results['command']}`. "
           f"{fmt_int(n)} receipts (the demo, seed {results['seed']}, `--now {results['now']}`); "
           f"PostgreSQL {pg.get('server_version')} on the same machine (scripts/pg_cluster.sh: fsync "
           f"{pg.get('fsync')}, shared_buffers {pg.get('shared_buffers')}); {m['nproc']} cores, {m.get('cpu')}, "
           f"{m.get('ram_gib')} GiB; load average {m['load_start']} at the start, {results['load_end']} at the end.",
           "", "### Against the targets", "", "| target | figure | met |", "|---|---:|---|"]
    if "ratio_median" in rep:
        out += [f"| `report --json` on PostgreSQL ≤ {TARGET_REPORT_RATIO}× SQLite (medians of {results['runs']}) | "
                f"{rep['ratio_median']:.2f}× ({rep['postgres']['median_s']:.2f} s / "
                f"{rep['sqlite']['median_s']:.2f} s) "
                f"| {met(rep['ratio_median'] <= TARGET_REPORT_RATIO)} |",
                f"| the two reports byte-identical (every run) | {'yes' if rep['identical'] else 'no'}, "
                f"{fmt_int(rep['sqlite']['bytes'])} bytes | {met(rep['identical'])} |"]
    if "postgres" in fnd:
        fm = ms(fnd["postgres"]["median_s"])
        out.append(f"| `find` by email on PostgreSQL ≤ {TARGET_FIND_MS} ms (median of {results['runs']}) | "
                   f"{fm:.0f} ms | {met(fm <= TARGET_FIND_MS and fnd['postgres']['correct'])} |")
    if "per_s" in intk:
        sv = intk["servers"]
        out += [f"| intake, two `serve` on one database: ≥ {fmt_int(TARGET_INTAKE_PER_S)} submissions/s in total | "
                f"{fmt_int(round(intk['per_s']))}/s | {met(intk['per_s'] >= TARGET_INTAKE_PER_S)} |",
                f"| … p99 ≤ {TARGET_INTAKE_P99_MS} ms (each) | "
                + " / ".join(f"{s['p99_ms']:.1f} ms" for s in sv)
                + f" | {met(intk['p99_ms'] <= TARGET_INTAKE_P99_MS)} |",
                f"| … 0 errors, every answer 201 | {intk['errors']} | {met(intk['errors'] == 0)} |",
                f"| … every key answered 201 stored once | {fmt_int(intk['accepted'])} answered 201, "
                f"{fmt_int(intk['stored'])} stored, {fmt_int(intk['distinct_keys'])} distinct keys | "
                f"{met(intk['stored_once'])} |",
                f"| … each process's peak RSS ≤ {TARGET_INTAKE_RSS_MB} MB | "
                + " / ".join(f"{s['rss_mb']:.0f} MB" for s in sv)
                + f" | {met(intk['rss_mb'] <= TARGET_INTAKE_RSS_MB)} |"]
    elif intk.get("error"):
        out.append(f"| intake, two `serve` on one database | failed: {intk['error']} | **no** |")
    if "first_frame_ms" in scr:
        sc, fi = scr["scroll"]["frame"], scr["filter"]["frame"]
        out += [f"| the screen's first frame ≤ {TARGET_FIRST_FRAME_MS} ms | {scr['first_frame_ms']:.0f} ms | "
                f"{met(scr['first_frame_ms'] <= TARGET_FIRST_FRAME_MS)} |",
                f"| keypress → frame p99 ≤ {TARGET_KEY_P99_MS} ms | scroll {sc['p99']:.1f} ms, filter "
                f"{fi['p99']:.1f} ms | {met(scr['key_p99_ms'] <= TARGET_KEY_P99_MS)} |"]
    elif scr.get("error"):
        out.append(f"| the screen | not measured: {scr['error']} | **no** |")
    ref = results.get("refresh") or {}
    if "postgres" in ref:
        worst = max(ref["postgres"])
        out.append(f"| the screen's refresh after 1,000 appends ≤ {TARGET_REFRESH_MS} ms (worst of "
                   f"{len(ref['postgres'])}) | {worst:.0f} ms | {met(worst <= TARGET_REFRESH_MS)} |")
    out += ["", "### Side by side", "", "| | SQLite | PostgreSQL |", "|---|---:|---:|"]
    if "ratio_median" in rep:
        s, p = rep["sqlite"], rep["postgres"]
        out += [f"| `report --json`: median (best) | {s['median_s']:.2f} s ({s['best_s']:.2f} s) | "
                f"{p['median_s']:.2f} s ({p['best_s']:.2f} s) |",
                f"| … peak RSS | {s['rss_mb']:.0f} MB | {p['rss_mb']:.0f} MB |"]
    if "postgres" in fnd:
        s, p = fnd["sqlite"], fnd["postgres"]
        out += [f"| `find` by email: median (best) | {ms(s['median_s']):.0f} ms ({ms(s['best_s']):.0f} ms) | "
                f"{ms(p['median_s']):.0f} ms ({ms(p['best_s']):.0f} ms) |",
                f"| … peak RSS | {s['rss_mb']:.0f} MB | {p['rss_mb']:.0f} MB |",
                f"| … hits as SQL finds them; the two outputs the same bytes | {'yes' if s['correct'] else 'no'} | "
                f"{'yes' if p['correct'] else 'no'}; {'identical' if fnd['identical'] else 'different'} |"]
    if "postgres" in ref:
        out.append("| refresh after 1,000 appends (each round) | "
                   + " / ".join(f"{v:.0f} ms" for v in ref["sqlite"]) + " | "
                   + " / ".join(f"{v:.0f} ms" for v in ref["postgres"]) + " |")
    out.append(f"| the database | {data['demo_mb']:.0f} MB file | {data['pg_size_mb']:.0f} MB "
               f"(copied in {data['copy_s']:.0f} s) |")
    if "per_s" in intk:
        out += ["", f"Intake: each `serve` under `wrk -t{intk['threads']} -c{intk['clients']} -d{intk['seconds']}s` "
                "(scripts/intake/post.lua, its own key prefix), both at once; wrk, both servers and "
                "PostgreSQL on the same cores.", "",
                "| serve | submissions/s | p50 | p99 | non-201 | socket errors | peak RSS | CPU per submission |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for s in intk["servers"]:
            out.append(f"| {s['name']} | {fmt_int(round(s['per_s']))} | {s['p50_ms']:.1f} ms | {s['p99_ms']:.1f} ms | "
                       f"{s['non_201']} | {s['socket_errors']} | {s['rss_mb']:.0f} MB | "
                       f"{s['cpu_us_per_submission']:.0f} µs |")
    if "first_frame_ms" in scr:
        sc, fi = scr["scroll"]["frame"], scr["filter"]["frame"]
        out += ["", f"The screen on PostgreSQL: first frame {scr['first_frame_ms']:.0f} ms, the analysis shown "
                f"{scr['analysis_shown_ms'] / 1000:.2f} s and all read {scr['analysis_done_ms'] / 1000:.2f} s after "
                f"start; keypress → frame p50 / p99 scrolling {sc['p50']:.1f} / {sc['p99']:.1f} ms "
                f"({scr['scroll']['n']} keys), filtering {fi['p50']:.1f} / {fi['p99']:.1f} ms "
                f"({scr['filter']['n']} keys); peak RSS {scr['rss_peak_mb']:.0f} MB; the header's counts "
                f"{'are' if scr.get('counts_match_report') else '**are not**'} the report's."]
    sk = data["skipped_ids"]
    out += ["", f"Data: `scripts/copy_to_postgres.py` skipped {receipts(len(sk))} whose time is not a time "
            f"({', '.join(f'#{i}' for i in sk[:20])}{' …' if len(sk) > 20 else ''}); the same receipts and the rows "
            f"naming them were deleted from the SQLite copy, so both hold "
            + ", ".join(f"{fmt_int(v)} {k}" for k, v in data["rows"].items() if v) + "."]
    return "\n".join(out)


SECTION = """
## A team's shared database: PostgreSQL

The same commands on PostgreSQL, side by side with SQLite in one run, the server on the same machine.

```sh
python3 scripts/bench_postgres.py --write              # 1M receipts; rewrites the results below
python3 scripts/bench_postgres.py --receipts 50k --no-build   # a quick look (prints, writes nothing)
```

It needs PostgreSQL's server and `psql`, `wrk`, GNU `/usr/bin/time`, python3 and a Rust toolchain;
it builds the release binary and `examples/bench_tui` itself (`--no-build` to skip). Raw figures go
to `target/bench-results/postgres-latest.json`. Options: `--receipts` (1M), `--runs` (3),
`--seconds` (10), `--clients` (128), `--keys` (200), `--skip report,find,intake,screen`.

- **Server:** a throwaway cluster from `scripts/pg_cluster.sh` (its settings: fsync on), one
  database per case, stopped and removed at the end.
- **Data:** the demo (`--seed 1 --now 2026-12-01T00:00:00Z`) copied by
  `scripts/copy_to_postgres.py`; the receipts it skips (a time that is not a time) are deleted
  from a copy of the SQLite file too, so that both hold the same rows.
- **report, find:** one discarded run on each, then SQLite and PostgreSQL alternating; wall time,
  peak RSS (`/usr/bin/time`), and the outputs compared byte for byte.
- **Intake:** two `serve` processes on one fresh database, each under its own wrk (2 threads, 128
  connections, 10 s, `scripts/intake/post.lua`) at once; the 201 answers per second in total, each
  one's p99 and peak RSS (`VmHWM`); afterwards every key answered 201 must be stored once.
- **Screen:** `examples/bench_tui` on the PostgreSQL URL, as for SQLite above.
- **Refresh:** `examples/refresh_timing` on a copy of each database (it appends 1,000 exact copies
  of the latest receipts a round, 3 rounds): from the load asked to the screen updated, in-process.

### Latest results

{begin}
{end}

### Earlier runs

{hbegin}
| run (UTC) | commit | receipts | report PG/SQLite | find (PG) | intake/s | intake p99 | serve peak RSS | first frame | key p99 |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
{hend}
"""


def write_markdown(body):
    text = BENCH_MD.read_text()
    if BEGIN not in text or END not in text:
        text = text.rstrip() + "\n" + SECTION.format(begin=BEGIN, end=END, hbegin=HISTORY_BEGIN,
                                                     hend=HISTORY_END)
    pre, rest = text.split(BEGIN, 1)
    old, post = rest.split(END, 1)
    text = pre + BEGIN + "\n" + body.rstrip() + "\n" + END + post
    old_head, new_head = HEADLINE_RE.search(old), HEADLINE_RE.search(body)
    if old_head and HISTORY_BEGIN in text and (not new_head or new_head.group(1) != old_head.group(1)):
        row = history_row(json.loads(old_head.group(1)))
        pre, rest = text.split(HISTORY_BEGIN, 1)
        table, post = rest.split(HISTORY_END, 1)
        lines = [line for line in table.strip("\n").splitlines() if line.startswith("|")]
        header, rows = lines[:2], lines[2:]
        if row not in rows:
            rows.insert(0, row)
        text = pre + HISTORY_BEGIN + "\n" + "\n".join(header + rows[:HISTORY_ROWS]) + "\n" + HISTORY_END + post
    BENCH_MD.write_text(text)


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--receipts", default="1M", help="the demo's size, e.g. 50k or 1M (default 1M)")
    ap.add_argument("--runs", type=int, default=3, help="report and find runs on each (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--now", default=DEFAULT_NOW)
    ap.add_argument("--seconds", type=int, default=10, help="each wrk's duration (default 10)")
    ap.add_argument("--clients", type=int, default=128, help="each wrk's connections (default 128)")
    ap.add_argument("--threads", type=int, default=2, help="each wrk's threads (default 2)")
    ap.add_argument("--keys", type=int, default=200, help="keypresses scrolling, and filtering (default 200)")
    ap.add_argument("--quiet-ms", type=float, default=150.0,
                    help="the screen must be quiet this long before each key (default 150)")
    ap.add_argument("--skip", default="", help="comma list of: report, find, intake, screen")
    ap.add_argument("--cluster-dir", default=str(WORK / "cluster"),
                    help="where the throwaway cluster lives (default target/bench-postgres/cluster)")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in target/")
    ap.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's PostgreSQL results")
    ap.add_argument("--from-json", metavar="FILE",
                    help="measure nothing: render an earlier run's results (with --write, into BENCHMARKS.md)")
    args = ap.parse_args()

    if args.from_json:
        body = render(json.loads(Path(args.from_json).read_text()))
        print(body)
        if args.write:
            write_markdown(body)
            log(f"wrote the results of {args.from_json} into {BENCH_MD}")
        return 0

    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))
    needs()
    n = parse_size(args.receipts)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    WORK.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    machine = machine_info()
    one_min = float((machine["load_start"] or "0").split()[0])
    if one_min > 1.5:
        log(f"note: the load average is {machine['load_start']}: the machine is busy, the figures will be noisy")
    binary = build(args)
    commit = commit_of(repo_of(binary))
    version = run([str(binary), "--version"]).stdout.strip()
    log(f"binary {binary} ({version}), commit {commit['commit']}; {machine['nproc']} cores, "
        f"{machine['cpu']}, load {machine['load_start']}")
    results = {"machine": machine, "commit": commit, "version": version, "n": n, "seed": args.seed,
               "now": args.now, "runs": args.runs,
               "command": "python3 scripts/bench_postgres.py " + " ".join(sys.argv[1:]),
               "refresh": {}}
    with cluster(args.cluster_dir) as server_url:
        results["postgres"] = server_info(server_url)
        log(f"[server] PostgreSQL {results['postgres']['server_version']}, shared_buffers "
            f"{results['postgres']['shared_buffers']}, fsync {results['postgres']['fsync']}")
        t = time.perf_counter()
        sqlite_db, pg_url, results["data"] = prepare_data(args, binary, server_url, n)
        log(f"[data] ready in {time.perf_counter() - t:.0f} s")
        rep = None
        if "report" not in skip:
            results["report"], rep = bench_report(args, binary, sqlite_db, pg_url)
        if "find" not in skip:
            results["find"] = bench_find(args, binary, sqlite_db, pg_url)
        if "intake" not in skip:
            try:
                results["intake"] = bench_intake(args, binary, server_url)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                log(f"[intake] failed: {shown(e)}")
                results["intake"] = {"error": shown(e)}
        if "screen" not in skip:
            if rep is None:
                rep = json.loads(run([str(binary), "report", str(sqlite_db), "--json", "--now", args.now]).stdout)
            results["screen"] = bench_screen(args, binary, pg_url, rep)
        if "refresh" not in skip:
            results["refresh"] = bench_refresh(sqlite_db, pg_url)
        remove_db(sqlite_db)
    results["load_end"] = loadavg()
    results["elapsed_s"] = time.perf_counter() - started
    results = redact(results)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for name in ("postgres-latest.json", f"postgres-{stamp}.json"):
        (RESULTS / name).write_text(json.dumps(results, indent=1, default=str))
    body = render(results)
    print(body)
    if args.write:
        if n != 1_000_000:
            log(f"note: writing a run at {label(n)}, not 1M")
        write_markdown(body)
        log(f"wrote the results into {BENCH_MD}")
    log(f"raw results: {RESULTS / 'postgres-latest.json'}; {results['elapsed_s'] / 60:.1f} minutes in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
