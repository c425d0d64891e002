#!/usr/bin/env python3
"""receipt-review performance benchmark: the tool against the SQLite floors.

    python3 scripts/bench.py            # 100k and 1M receipts, both shapes, prints the results
    python3 scripts/bench.py --write    # ... and rewrites BENCHMARKS.md's latest results
    python3 scripts/bench.py --quick    # 20k and 100k
    python3 scripts/bench.py --sizes 50k,200k --binary ../wt-perf/target/release/receipt-review

It builds `--release` itself (unless --binary or --no-build) and drives the
binary only from outside (the CLI, and the review screen in a pseudo-terminal),
so it measures any version of it. For each size and each shape of database
(the demo's, scripts/gen_mixed.py's, and at the largest size its --heavy
shape), on the same machine in one run:

1. the floor and the checked floor (examples/bench_floor.rs, best of --runs),
   and the sqlite3 CLI for reference;
2. `report DB --json`: wall time (best and median of --runs, interleaved with the
   floor runs), peak RSS and CPU time (/usr/bin/time -v), the ratios to the
   floors, and the answers checked against what the generator planted;
3. the review screen: time to first frame, time to the analysis shown and to
   everything read, keypress -> frame latency while scrolling and filtering, and
   peak RSS (examples/bench_tui/);
4. at one size (--resolve-size, demo): `resolve ... duplicate` on --resolve-count
   pending groups of a copy of the database while scripts/bench_writer.py
   inserts receipts, with the guarded write itself timed from SQLite's WAL
   write lock (strace) when strace is available;
5. the Forms view after the analysis ("Forms view at 1M"): forms::compute
   for each period and the screen opening the Forms tab, in process
   (examples/forms_timing.rs), with the activity summary's time and size;
6. at the largest size, both shapes, a refresh after appends:
   examples/refresh_timing.rs on a copy of the database (a full reading, then
   --refresh-rounds rounds of --refresh-appends receipts appended and read in
   by the screen's worker);
7. at the largest size (demo), a slice check: a tenth of the database is
   analysed on its own and every item whose receipts are all far (more than the
   window) from any receipt outside the slice must be identical in both reports,
   and a legacy table (no UNIQUE key) at 20k and 100k.

Databases are cached in target/bench-data/ (keyed by size, seed, now, and for
the mixed shape the generator's text). Raw results go to
target/bench-results/latest.json; scripts/bench_render.py writes BENCHMARKS.md.
"""

import argparse
import bisect
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the worktree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_mixed  # noqa: E402
from bench_render import label, render, write_markdown  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_NOW = "2026-11-29T12:00:00Z"
PLANTED_RE = re.compile(
    r"planted (\d+) duplicate groups, (\d+) follow-ups hours later, (\d+) conflicts, "
    r"(\d+) stuck, (\d+) bot receipts, (\d+) damaged rows among (\d+) receipts")
# report --json count -> the demo's planted number
PLANTED_KEYS = [("receipts", "receipts"), ("duplicate_groups", "groups"),
                ("conflicts", "conflicts"), ("stuck", "stuck"),
                ("suspected_bots", "bots"), ("damaged", "damaged")]


def log(msg=""):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    t = text.strip().lower()
    scale = 1
    if t.endswith("k"):
        scale, t = 1000, t[:-1]
    elif t.endswith("m"):
        scale, t = 1000000, t[:-1]
    return int(float(t) * scale)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def pct(values, p):
    """Nearest-rank percentile of a list (None when empty), as examples/bench_tui reports them."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    k = max(0, min(len(xs) - 1, int(round(p / 100.0 * len(xs) + 0.5)) - 1))
    return xs[k]


# ---------------------------------------------------------------- the machine

def machine_info():
    info = {"nproc": os.cpu_count(), "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "kernel": platform.release(), "python": platform.python_version()}
    try:
        info["nproc"] = int(run(["nproc"]).stdout.strip())
    except (OSError, ValueError):
        pass
    try:
        cpu = Path("/proc/cpuinfo").read_text()
        m = re.search(r"^model name\s*:\s*(.+)$", cpu, re.M)
        info["cpu"] = m.group(1).strip() if m else platform.processor()
    except OSError:
        info["cpu"] = platform.processor()
    try:
        mem = Path("/proc/meminfo").read_text()
        m = re.search(r"^MemTotal:\s+(\d+) kB", mem, re.M)
        info["ram_gib"] = round(int(m.group(1)) / 1048576, 1) if m else None
    except OSError:
        info["ram_gib"] = None
    info["load_start"] = loadavg()
    cli = run(["sqlite3", "--version"]) if shutil.which("sqlite3") else None
    info["sqlite3_cli"] = cli.stdout.split()[0] if cli and cli.stdout else None
    return info


def loadavg():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return None


def repo_of(path):
    p = Path(path).resolve().parent
    while p != p.parent:
        if (p / "Cargo.toml").exists() and (p / ".git").exists():
            return p
        p = p.parent
    return None


def commit_of(repo):
    if repo is None:
        return {"commit": "unknown"}
    head = run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"]).stdout.strip()
    branch = run(["git", "-C", str(repo), "rev-parse", "--abbrev-ref", "HEAD"]).stdout.strip()
    dirty = run(["git", "-C", str(repo), "status", "--porcelain", "--", "src", "Cargo.toml",
                 "Cargo.lock"]).stdout.strip()
    code = run(["git", "-C", str(repo), "log", "-1", "--format=%h", "--", "src", "Cargo.toml",
                "Cargo.lock", "assets"]).stdout.strip()
    return {"commit": head + ("+dirty" if dirty else ""), "branch": branch, "repo": str(repo),
            "code_commit": code}


# ---------------------------------------------------------------- building

def build(args):
    floor_bin = REPO / "target/release/examples/bench_floor"
    if not args.no_build:
        if args.binary is None:
            log("building: cargo build --release")
            r = subprocess.run(["cargo", "build", "--release"], cwd=REPO)
            if r.returncode != 0:
                sys.exit("cargo build --release failed")
        log("building: cargo build --release --example bench_floor")
        r = subprocess.run(["cargo", "build", "--release", "--example", "bench_floor"], cwd=REPO)
        if r.returncode != 0:
            log("warning: the floor example did not build; the sqlite3 CLI is the floor")
        log("building: cargo build --release --example bench_tui")
        r = subprocess.run(["cargo", "build", "--release", "--example", "bench_tui"], cwd=REPO)
        if r.returncode != 0:
            log("warning: the screen's driver did not build; the screen is not measured")
        log("building: cargo build --release --example refresh_timing")
        r = subprocess.run(["cargo", "build", "--release", "--example", "refresh_timing"], cwd=REPO)
        if r.returncode != 0:
            log("warning: the refresh example did not build; refreshes are not measured")
        log("building: cargo build --release --example forms_timing")
        r = subprocess.run(["cargo", "build", "--release", "--example", "forms_timing"], cwd=REPO)
        if r.returncode != 0:
            log("warning: the forms example did not build; the Forms view is not measured")
    binary = Path(args.binary).resolve() if args.binary else REPO / "target/release/receipt-review"
    if not binary.exists():
        sys.exit(f"no binary at {binary}")
    return binary, (floor_bin if floor_bin.exists() else None)


# ---------------------------------------------------------------- demo data

def ensure_demo(binary, n, seed, now, data_dir):
    data_dir.mkdir(parents=True, exist_ok=True)
    stem = f"demo-n{n}-s{seed}-{now.replace(':', '').replace('-', '')}"
    db = data_dir / f"{stem}.db"
    meta_path = data_dir / f"{stem}.planted.json"
    if db.exists() and meta_path.exists():
        return db, json.loads(meta_path.read_text())
    tmp = data_dir / f"{stem}.tmp.db"
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    log(f"generating the {label(n)} demo database (seed {seed}) ...")
    t0 = time.perf_counter()
    r = run([str(binary), "demo", "--out", str(tmp), "--receipts", str(n), "--seed", str(seed),
             "--now", now])
    if r.returncode != 0:
        sys.exit(f"demo failed: {r.stderr.strip()}")
    m = PLANTED_RE.search(r.stderr)
    planted = None
    if m:
        g = list(map(int, m.groups()))
        planted = {"groups": g[0], "follow_ups": g[1], "conflicts": g[2], "stuck": g[3],
                   "bots": g[4], "damaged": g[5], "receipts": g[6]}
    meta = {"planted": planted, "demo_stderr": r.stderr.strip().splitlines()[:1],
            "seconds": time.perf_counter() - t0, "binary": str(binary)}
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    tmp.rename(db)
    meta_path.write_text(json.dumps(meta, indent=1))
    return db, meta


def warm(path):
    """Read the file once so every measurement sees a warm page cache."""
    with open(path, "rb") as f:
        while f.read(8 << 20):
            pass


# ---------------------------------------------------------------- floor and report

def time_floor(floor_bin, db, checked=False):
    """The floor, or with `checked` what no reading that keeps the contract
    can skip (every column it reads, on every core, each digest checked)."""
    t0 = time.perf_counter()
    r = run([str(floor_bin)] + (["--checked"] if checked else []) + [str(db)])
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"bench_floor failed: {r.stderr.strip()}")
    return wall, json.loads(r.stdout)


def time_sqlite_cli(db):
    if not shutil.which("sqlite3"):
        return None
    t0 = time.perf_counter()
    r = run(["sqlite3", "-readonly", str(db), "SELECT sum(length(payload)) FROM receipts"])
    wall = time.perf_counter() - t0
    return wall if r.returncode == 0 else None


def time_report(binary, db, now, out_path):
    cmd = ["/usr/bin/time", "-v", str(binary), "report", str(db), "--json", "--now", now]
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
    err = r.stderr

    def field(name):
        m = re.search(rf"{re.escape(name)}:\s*([\d.:]+)", err)
        return m.group(1) if m else None

    res = {"wall": wall, "exit": r.returncode,
           "rss_kb": int(field("Maximum resident set size (kbytes)") or 0),
           "user": float(field("User time (seconds)") or 0),
           "sys": float(field("System time (seconds)") or 0)}
    if r.returncode != 0:
        res["stderr"] = err.strip().splitlines()[:3]
    return res


def file_sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def norm_dup(d):
    return [d["item"], d["class"], d["exact"], sorted(d["receipt_ids"]),
            [[m["id"], m["match"], sorted(m.get("fields") or [])] for m in d["members"]],
            d.get("gaps_ms"), d["status"]]


def norm_conflict(c):
    return [c["item"], c["receipt_id"], [[a["source"], a["id"]] for a in c["attempts"]], c["status"]]


def norm_stuck(s):
    return [s["item"], s["receipt_id"], s["age_s"], s["status"]]


def answers(rep):
    """The documented answers, normalised (wording and added keys left out)."""
    return {
        "counts": {k: rep["counts"].get(k) for k in ("receipts", "duplicate_groups", "conflicts",
                                                     "stuck", "suspected_bots", "damaged", "replays")},
        "duplicates": [norm_dup(d) for d in rep["duplicates"]],
        "conflicts": [norm_conflict(c) for c in rep["conflicts"]],
        "stuck": [norm_stuck(s) for s in rep["stuck"]],
        "suspected_bots": sorted(rep["suspected_bots"]),
        "damaged": [[d["receipt_id"], d["reason"]] for d in rep["damaged"]],
    }


def answers_digest(rep):
    text = json.dumps(answers(rep), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def summary_of(rep):
    dups = rep["duplicates"]
    by_class = {}
    by_match = {}
    for d in dups:
        by_class[d["class"]] = by_class.get(d["class"], 0) + 1
        for m in d["members"]:
            by_match[m["match"]] = by_match.get(m["match"], 0) + 1
    return {"counts": rep["counts"], "by_class": by_class,
            "exact_groups": sum(1 for d in dups if d["exact"]), "member_matches": by_match}


def time_find(binary, db, now, query):
    """One `find DB QUERY --json`: wall time, peak RSS, CPU, and the hits' ids."""
    cmd = ["/usr/bin/time", "-v", str(binary), "find", str(db), query, "--json", "--now", now,
           "--tz", "UTC"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0

    def field(name):
        m = re.search(rf"{re.escape(name)}:\s*([\d.:]+)", r.stderr)
        return m.group(1) if m else None

    res = {"wall": wall, "exit": r.returncode,
           "rss_kb": int(field("Maximum resident set size (kbytes)") or 0),
           "user": float(field("User time (seconds)") or 0),
           "sys": float(field("System time (seconds)") or 0)}
    if r.returncode == 0:
        res["ids"] = [h["receipt_id"] for h in json.loads(r.stdout)["hits"]]
    else:
        res["stderr"] = r.stderr.strip().splitlines()[-3:]
    return res


def bench_find(args, binary, db, n):
    """`find` by an email that one receipt holds (a hit: the scan, then the analysis for its
    items), by one nobody sent (a miss: the scan alone) and by `#id`; best and median of
    --runs, each checked against the database (the email's receipts found with SQL)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    mid = con.execute("SELECT max(id) / 2 FROM receipts").fetchone()[0]
    email, rid = None, None
    for rid_, payload in con.execute("SELECT id, payload FROM receipts WHERE id >= ? LIMIT 200", (mid,)):
        try:
            e = json.loads(payload).get("email")
        except (ValueError, AttributeError):
            continue
        if isinstance(e, str) and e:
            email, rid = e, rid_
            break
    expect = sorted(i for (i,) in con.execute(
        "SELECT id FROM receipts WHERE instr(lower(payload), lower(?)) > 0", (email,)))
    con.close()
    out = {"email": email, "expected_ids": expect}
    for name, query in (("hit", email), ("miss", "nobody-at-all@nowhere.invalid"), ("number", f"#{rid}")):
        runs = [time_find(binary, db, args.now, query) for _ in range(args.runs)]
        walls = [r["wall"] for r in runs]
        out[name] = {"query": query, "best_s": min(walls), "median_s": statistics.median(walls),
                     "rss_mb": max(r["rss_kb"] for r in runs) / 1024,
                     "cpu_s": min(r["user"] + r["sys"] for r in runs),
                     "ids": runs[0].get("ids"), "exit": runs[0]["exit"]}
    out["hit"]["correct"] = sorted(out["hit"]["ids"] or []) == expect
    out["miss"]["correct"] = out["miss"]["ids"] == []
    out["number"]["correct"] = out["number"]["ids"] == [rid]
    log(f"  find {label(n)}: hit {out['hit']['best_s']:.3f} s, miss {out['miss']['best_s']:.3f} s, "
        f"#id {out['number']['best_s']:.3f} s; correct "
        f"{all(out[k]['correct'] for k in ('hit', 'miss', 'number'))}")
    return out


def screen_load(args, binary, db):
    """The screen started on `db` until all is read, then quit: (analysis shown, all read) in ms,
    or None."""
    r = tui_screen(args, binary, db, keys=0)
    if r.get("analysis_done_ms") is None:
        return None
    return r["analysis_shown_ms"], r["analysis_done_ms"]


def bench_report(args, binary, floor_bin, db, n, meta, work, with_screen=False, tag=None):
    tag = tag or label(n)
    res = {"n": n, "db": str(db), "db_mb": round(db.stat().st_size / 1e6, 1), "load": loadavg()}
    log(f"[{tag}] warming the page cache ({res['db_mb']} MB)")
    warm(db)
    time_floor(floor_bin, db) if floor_bin else time_sqlite_cli(db)  # a discarded warm-up
    floors, checked, clis, reports, shas, loads = [], [], [], [], [], []
    out0 = work / f"report-{tag.replace(' ', '-')}.json"
    outk = work / f"report-{tag.replace(' ', '-')}.again.json"
    for i in range(args.runs):
        if floor_bin:
            wall, fj = time_floor(floor_bin, db)
            floors.append(wall)
            res["floor_detail"] = fj
            wall, cj = time_floor(floor_bin, db, checked=True)
            checked.append(wall)
            res["checked_detail"] = cj
        clis.append(time_sqlite_cli(db))
        out = out0 if i == 0 else outk
        rr = time_report(binary, db, args.now, out)
        reports.append(rr)
        if rr["exit"] != 0:
            sys.exit(f"report failed on {db}: {rr.get('stderr')}")
        shas.append(file_sha(out))
        # The screen's analysis is compared with the report's: started in the
        # same rounds, so that drift on a shared machine hits both.
        load = screen_load(args, binary, db) if with_screen else None
        if load:
            loads.append(load)
        log(f"[{tag}] round {i + 1}: floor {floors[-1] if floors else float('nan'):.3f} s, "
            f"sqlite3 {clis[-1] or float('nan'):.3f} s, report {rr['wall']:.3f} s, "
            f"RSS {rr['rss_kb'] / 1024:.0f} MB"
            + (f", screen shown / all read {load[0] / 1000:.2f} / {load[1] / 1000:.2f} s" if load else ""))
    outk.unlink(missing_ok=True)
    clis = [c for c in clis if c is not None]
    walls = [r["wall"] for r in reports]
    floor = min(floors) if floors else min(clis)
    res.update({
        "floor_source": "rusqlite (examples/bench_floor.rs)" if floors else "sqlite3 CLI",
        "floor_s": floor, "floor_runs": floors,
        "checked_floor_s": min(checked) if checked else None, "checked_floor_runs": checked,
        "sqlite_cli_s": min(clis) if clis else None,
        "sqlite_cli_runs": clis,
        "report_best_s": min(walls), "report_median_s": statistics.median(walls),
        "report_runs": walls, "report_rss_mb": max(r["rss_kb"] for r in reports) / 1024,
        "report_cpu_s": min(r["user"] + r["sys"] for r in reports),
        "ratio_best": min(walls) / floor, "ratio_median": statistics.median(walls) / floor,
        "runs_identical": len(set(shas)) == 1,
        "screen_loads_ms": loads,
    })
    best = min(range(len(reports)), key=lambda i: walls[i])
    res["report_cpu_util"] = (reports[best]["user"] + reports[best]["sys"]) / walls[best]
    rep = json.loads(out0.read_text())
    res["answers_digest"] = answers_digest(rep)
    res["summary"] = summary_of(rep)
    res["window_s"] = rep.get("settings", {}).get("window_s", 600.0)
    planted = (meta or {}).get("planted")
    if planted:
        res["planted"] = planted
        res["planted_check"] = {k: {"found": rep["counts"].get(k), "planted": planted[p]}
                                for k, p in PLANTED_KEYS}
        res["planted_ok"] = all(v["found"] == v["planted"] for v in res["planted_check"].values())
    res["report_json"] = str(out0)
    return res, rep


# ---------------------------------------------------------------- the screen

TUI_BIN = REPO / "target/release/examples/bench_tui"


def tui_run(argv, progress=False):
    """examples/bench_tui with these arguments: its one JSON line, or {"error": ...}."""
    if not TUI_BIN.exists():
        return {"error": "examples/bench_tui did not build"}
    r = subprocess.run([str(TUI_BIN)] + argv, stdout=subprocess.PIPE, text=True,
                       stderr=None if progress else subprocess.PIPE)
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0 or not lines:
        why = (r.stderr or "").strip().splitlines()[-1:] or [f"exit {r.returncode}"]
        return {"error": f"bench_tui failed: {why[0]}"}
    out = json.loads(lines[-1])
    out.pop("kind", None)
    return out


def tui_screen(args, binary, db, keys, label=None):
    argv = ["screen", str(binary), str(db), "--now", args.now, "--keys", str(keys),
            "--quiet-ms", str(args.quiet_ms)]
    if label is not None:
        argv += ["--label", label]
    return tui_run(argv, progress=label is not None)


def harness_floor():
    return tui_run(["floor"])


def review_log_rows(db):
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT count(*) FROM review_log").fetchone()[0]
        except sqlite3.OperationalError:
            return 0
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def bench_screen(args, binary, db, n, rep, rep_res, work, tag=None):
    tag = tag or label(n)
    log(f"[{tag}] review screen: {args.keys} keys scrolling, {args.keys}+ keys filtering")
    warm(db)
    res = tui_screen(args, binary, db, keys=args.keys, label=f"[{tag}] ")
    if "header_counts" in res:
        want = {k: rep["counts"].get(k) for k in res["header_counts"]}
        res["counts_match_report"] = res["header_counts"] == want
    rows = review_log_rows(db)
    res["review_log_rows_after"] = rows
    if rows:
        log(f"[{tag}] WARNING: the screen wrote {rows} review_log rows while only scrolling "
            "and filtering; the cached database is discarded")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    res.pop("screen", None) if "error" not in res else None
    if "error" not in res:
        # Left alone with its clock moving (no --now), as a support desk leaves it open.
        idle = tui_run(["screen", str(binary), str(db), "--now", "wall", "--keys", "0",
                        "--idle-s", str(args.idle_s)])
        res["idle_cpu_pct"] = idle.get("idle_cpu_pct")
        res["idle_s"] = idle.get("idle_s")
        if res["idle_cpu_pct"] is not None:
            log(f"[{tag}] idle screen, clock moving: {res['idle_cpu_pct']:.2f} % CPU over {res['idle_s']:.0f} s")
    # The analysis time is compared with the report's median: the screen was
    # started in each of the report's rounds (this run, with keys, comes after).
    loads = rep_res.get("screen_loads_ms") or []
    if "error" not in res and res.get("analysis_done_ms") is not None and loads:
        shown = [a for a, _ in loads]
        done = [b for _, b in loads]
        res["analysis_done_runs_ms"] = done
        res["analysis_done_median_ms"] = statistics.median(done)
        res["analysis_shown_runs_ms"] = shown
        res["analysis_shown_median_ms"] = statistics.median(shown)
        log(f"[{tag}] screen analysis shown / all read, {len(done)} runs: "
            + ", ".join(f"{a / 1000:.2f} / {b / 1000:.2f}" for a, b in zip(shown, done)) + " s")
    return res


# ---------------------------------------------------------------- refresh after appends

REFRESH_FULL = re.compile(r"full reading: (\d+) ms \(screen update ([\d.]+) ms\), rss (\d+) MB")
REFRESH_ROUND = re.compile(r"round (\d+): (\d+) appended; load → screen updated ([\d.]+) ms "
                           r"\(of which the screen's update ([\d.]+) ms\); selection kept: (\w+); rss (\d+) MB")


def bench_refresh(args, db, n, work, tag=None):
    """The screen's worker and update in-process (examples/refresh_timing.rs): a full reading,
    then rounds of --refresh-appends receipts appended by a writer and a reload each."""
    tag = tag or label(n)
    example = REPO / "target/release/examples/refresh_timing"
    if not example.exists():
        return {"error": "examples/refresh_timing did not build"}
    copy = work / f"refresh-{tag.replace(' ', '-')}.db"
    log(f"[{tag}] refresh: copying the database, then {args.refresh_rounds} rounds of "
        f"{args.refresh_appends} appended receipts")
    copy_db(db, copy)
    try:
        r = run([str(example), str(copy), str(args.refresh_appends), str(args.refresh_rounds)])
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["refresh_timing failed"])[-1]}
    full = REFRESH_FULL.search(r.stdout)
    rounds = [{"round": int(m[1]), "appended": int(m[2]), "ms": float(m[3]), "screen_ms": float(m[4]),
               "selection_kept": m[5] == "true", "rss_mb": int(m[6])}
              for m in REFRESH_ROUND.finditer(r.stdout)]
    if not full or not rounds:
        return {"error": "could not read refresh_timing's output"}
    res = {"n": n, "appends": args.refresh_appends, "full_ms": int(full[1]), "full_rss_mb": int(full[3]),
           "rounds": rounds}
    log(f"[{tag}] refresh: full {res['full_ms']} ms; rounds "
        + ", ".join(f"{x['ms']:.0f}" for x in rounds) + " ms")
    return res


# ---------------------------------------------------------------- the Forms view

FORMS_TARGET_MS = 100


def bench_forms(args, db, n, tag=None):
    """The Forms view after the analysis (examples/forms_timing.rs, in process): forms::compute for
    each period, and the screen's update that opens the Forms tab on a fresh reading (the view made
    then), medians of --runs; with the size of the activity summary the reading keeps for it."""
    tag = tag or label(n)
    example = REPO / "target/release/examples/forms_timing"
    if not example.exists():
        return {"error": "examples/forms_timing did not build"}
    log(f"[{tag}] Forms view: computing it for each period, opening the tab")
    warm(db)
    r = run([str(example), str(db), args.now, str(max(args.runs, 3))])
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if r.returncode != 0 or not lines:
        return {"error": (r.stderr.strip().splitlines() or ["forms_timing failed"])[-1]}
    res = json.loads(lines[-1])
    res.pop("kind", None)
    res["n"] = n
    worst = max(res["compute_ms"].values())
    log(f"[{tag}] Forms view: compute {worst:.1f} ms at most (" + ", ".join(
        f"{k} {v:.1f}" for k, v in res["compute_ms"].items()) + f"), opening the tab {res['open_tab_ms']:.1f} ms, "
        f"activity {res['activity_ms']:.1f} ms ({res['activity_refresh_ms']:.1f} ms on a refresh) and "
        f"{res['activity_bytes'] / 1e6:.2f} MB")
    return res


# ---------------------------------------------------------------- decisions under a writer

def strace_ok():
    if not shutil.which("strace"):
        return False
    r = run(["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=fcntl", "-o", os.devnull, "true"])
    return r.returncode == 0


FCNTL_RE = re.compile(r"^\d+\s+([\d.]+)\s+fcntl\(\d+, F_SETLKW?, \{l_type=(F_\w+), l_whence=SEEK_SET, "
                      r"l_start=(\d+), l_len=(\d+)\}\) = (-?\d+)")
WAL_WRITE_LOCK = 120  # the byte of the -shm file SQLite locks for a WAL write transaction


def guarded_write_times(trace_path):
    """(attempt, acquired, released) of the last WAL write transaction, from strace -ttt."""
    events = []
    for line in Path(trace_path).read_text(errors="replace").splitlines():
        m = FCNTL_RE.match(line)
        if m and int(m.group(3)) == WAL_WRITE_LOCK and int(m.group(4)) == 1:
            events.append((float(m.group(1)), m.group(2), int(m.group(5))))
    events.sort()
    best = None
    attempt = None
    acquired = None
    for t, kind, rc in events:
        if kind == "F_WRLCK":
            if attempt is None:
                attempt = t
            if rc == 0:
                acquired = t
        elif kind == "F_UNLCK" and acquired is not None:
            best = (attempt, acquired, t)
            attempt = acquired = None
    return best


def copy_db(src, dst):
    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    s = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    d = sqlite3.connect(dst)
    s.backup(d)
    d.execute("PRAGMA journal_mode=WAL")
    d.close()
    s.close()


def bench_decisions(args, binary, db, n, rep, work):
    items = [d["item"] for d in rep["duplicates"] if d["status"] == "pending"]
    count = min(args.resolve_count, max(0, len(items) - 1))
    if count == 0:
        return {"error": "no pending duplicate groups"}
    step = max(1, len(items) // (count + 1))
    chosen = items[::step][: count + 1]
    copy = work / f"resolve-n{n}.db"
    log(f"[{label(n)}] decisions: copying the database, then {count} resolves under a writer "
        f"({args.writer_rate:.0f} rows/s)")
    copy_db(db, copy)
    use_strace = strace_ok()
    stats_path = work / "writer-stats.json"
    stats_path.unlink(missing_ok=True)
    writer = subprocess.Popen([sys.executable, str(REPO / "scripts/bench_writer.py"), str(copy),
                               "--rate", str(args.writer_rate), "--batch", "2",
                               "--stats", str(stats_path)],
                              stdout=subprocess.PIPE, text=True)
    samples = []
    try:
        if writer.stdout.readline().strip() != "ready":
            raise RuntimeError("the writer did not start")
        time.sleep(1.0)
        for k, item in enumerate(chosen):
            cmd = [str(binary), "resolve", str(copy), item, "duplicate", "--operator", "bench",
                   "--now", args.now]
            trace = work / "resolve.strace"
            if use_strace:
                cmd = ["strace", "-f", "-qq", "--seccomp-bpf", "-ttt", "-e", "trace=fcntl",
                       "-o", str(trace)] + cmd
            t_start = time.time()
            t0 = time.perf_counter()
            r = run(cmd)
            wall = time.perf_counter() - t0
            t_end = t_start + wall
            s = {"item": item, "wall_ms": wall * 1000.0, "exit": r.returncode,
                 "warmup": k == 0}
            if r.returncode != 0:
                s["stderr"] = r.stderr.strip()[:200]
            if use_strace:
                w = guarded_write_times(trace)
                if w:
                    s["write_ms"] = (w[2] - w[0]) * 1000.0
                    s["lock_wait_ms"] = (w[1] - w[0]) * 1000.0
                    s["before_write_ms"] = (w[0] - t_start) * 1000.0
                    s["after_write_ms"] = (t_end - w[2]) * 1000.0
            samples.append(s)
            if k == 0:
                log(f"[{label(n)}] decisions: warm-up {item} {s['wall_ms']:.0f} ms (not counted: "
                    "it creates review_log)")
            elif k % 10 == 0:
                log(f"[{label(n)}] decisions: {k}/{count}, last {s['wall_ms']:.0f} ms")
    finally:
        writer.send_signal(signal.SIGTERM)
        try:
            writer.wait(timeout=15)
        except subprocess.TimeoutExpired:
            writer.kill()
            writer.wait()
    wstats = json.loads(stats_path.read_text()) if stats_path.exists() else None
    counted = [s for s in samples if not s["warmup"]]
    ok = [s for s in counted if s["exit"] == 0]

    def stat(key):
        vals = [s[key] for s in ok if key in s]
        if not vals:
            return None
        return {"p50": pct(vals, 50), "p99": pct(vals, 99), "max": max(vals), "n": len(vals)}

    conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    logged = conn.execute("SELECT count(*) FROM review_log WHERE operator = 'bench'").fetchone()[0]
    conn.close()
    res = {"n": n, "decisions": len(counted), "succeeded": len(ok),
           "failures": [s for s in counted if s["exit"] != 0][:5],
           "review_log_rows": logged, "strace": use_strace,
           "wall_ms": stat("wall_ms"), "write_ms": stat("write_ms"),
           "lock_wait_ms": stat("lock_wait_ms"), "before_write_ms": stat("before_write_ms"),
           "after_write_ms": stat("after_write_ms"), "writer": wstats,
           "writer_rate": args.writer_rate}
    for suffix in ("", "-wal", "-shm"):
        Path(f"{copy}{suffix}").unlink(missing_ok=True)
    Path(work / "resolve.strace").unlink(missing_ok=True)
    return res


# ---------------------------------------------------------------- slice check

def parse_time(v):
    if isinstance(v, (int, float)):
        return v / 1000.0 if abs(v) > 1e11 else float(v)
    if not isinstance(v, str):
        return None
    try:
        dt = datetime.fromisoformat(v.strip())
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def slice_check(args, binary, db, full_rep, n_slice, work):
    window = float(full_rep.get("settings", {}).get("window_s", 600.0)) + 1.0
    src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = src.execute("SELECT id, created_at FROM receipts ORDER BY id").fetchall()
    n = len(rows)
    lo_idx = max(0, (n - n_slice) // 2)
    lo, hi = rows[lo_idx][0], rows[min(n, lo_idx + n_slice) - 1][0]
    log(f"slice check: receipts {lo}..{hi} of {label(n)} analysed on their own")
    out = work / "slice.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    schema = src.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                         "AND name NOT LIKE 'sqlite_%'").fetchall()
    tables = {name for typ, name, _ in schema if typ == "table"}
    src.close()
    dst = sqlite3.connect(f"file:{out}", uri=True, isolation_level=None)
    order = {"table": 0, "index": 1, "view": 2, "trigger": 3}
    for typ, name, sql in sorted(schema, key=lambda x: order.get(x[0], 9)):
        if name != "review_log" and not sql.startswith("CREATE TRIGGER review_log"):
            dst.execute(sql)
    dst.execute("ATTACH DATABASE ? AS src", (f"file:{db}?mode=ro",))
    dst.execute("BEGIN")
    dst.execute("INSERT INTO main.receipts SELECT * FROM src.receipts WHERE id BETWEEN ? AND ?", (lo, hi))
    for t in ("key_conflicts", "replays"):
        if t in tables:
            dst.execute(f"INSERT INTO main.{t} SELECT * FROM src.{t} WHERE receipt_id BETWEEN ? AND ?",
                        (lo, hi))
    dst.execute("COMMIT")
    dst.execute("DETACH DATABASE src")
    dst.close()
    r = run([str(binary), "report", str(out), "--json", "--now", args.now])
    if r.returncode != 0:
        return {"error": r.stderr.strip()[:300]}
    part = json.loads(r.stdout)

    times = {rid: parse_time(t) for rid, t in rows}
    outside = sorted(t for rid, t in times.items() if t is not None and not lo <= rid <= hi)
    interior = set()
    for rid in range(lo, hi + 1):
        t = times.get(rid)
        if t is None:
            continue
        i = bisect.bisect_left(outside, t - window)
        if i >= len(outside) or outside[i] > t + window:
            interior.add(rid)

    def inside(ids):
        return all(i in interior for i in ids)

    def pick(rep):
        return {
            "duplicates": {tuple(sorted(d["receipt_ids"])): norm_dup(d)
                           for d in rep["duplicates"] if inside(d["receipt_ids"])},
            "conflicts": {c["receipt_id"]: norm_conflict(c) for c in rep["conflicts"]
                          if inside([c["receipt_id"]])},
            "stuck": {s["receipt_id"]: norm_stuck(s) for s in rep["stuck"] if inside([s["receipt_id"]])},
            "suspected_bots": {b: b for b in rep["suspected_bots"] if b in interior},
            "damaged": {d["receipt_id"]: [d["receipt_id"], d["reason"]] for d in rep["damaged"]
                        if d["receipt_id"] in interior},
        }

    a, b = pick(full_rep), pick(part)
    res = {"slice": [lo, hi], "slice_receipts": part["counts"]["receipts"],
           "interior_receipts": len(interior), "window_s": window - 1.0, "categories": {}}
    all_ok = True
    for cat in a:
        keys = set(a[cat]) | set(b[cat])
        diff = [k for k in keys if a[cat].get(k) != b[cat].get(k)]
        all_ok &= not diff
        res["categories"][cat] = {"compared": len(keys), "differ": len(diff),
                                  "examples": [{"key": str(k), "full": a[cat].get(k), "slice": b[cat].get(k)}
                                               for k in sorted(diff, key=str)[:3]]}
    res["ok"] = all_ok
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    return res


def legacy_check(args, binary, db, sizes, work):
    """The report on a legacy receipts table (no UNIQUE(scope, request_key)) in which every
    receipt shares its key with another: the first receipts of `db`, paired by id. Its time at
    each size says whether the rules for shared keys grow faster than the receipts do."""
    out = work / "legacy.db"
    res = {"sizes": {}}
    for n in sizes:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{out}{suffix}").unlink(missing_ok=True)
        dst = sqlite3.connect(f"file:{out}", uri=True, isolation_level=None)
        dst.execute("CREATE TABLE receipts (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, request_key TEXT, "
                    "digest TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'completed', "
                    "response TEXT, created_at TEXT NOT NULL, updated_at TEXT)")
        dst.execute("ATTACH DATABASE ? AS src", (f"file:{db}?mode=ro",))
        dst.execute("BEGIN")
        dst.execute("INSERT INTO main.receipts SELECT id, scope, 'legacy-' || (id / 2), digest, payload, "
                    "state, response, created_at, updated_at FROM src.receipts ORDER BY id LIMIT ?", (n,))
        dst.execute("COMMIT")
        dst.execute("DETACH DATABASE src")
        dst.close()
        walls, counts = [], None
        for _ in range(2):
            t0 = time.perf_counter()
            r = run([str(binary), "report", str(out), "--json", "--now", args.now])
            walls.append(time.perf_counter() - t0)
            if r.returncode != 0:
                return {"error": r.stderr.strip()[:300]}
            counts = json.loads(r.stdout)["counts"]
        res["sizes"][str(n)] = {"report_best_s": min(walls), "runs": walls,
                                "conflicts": counts.get("conflicts"), "receipts": counts.get("receipts")}
        log(f"legacy table, {label(n)}: report {min(walls):.2f} s, {counts.get('conflicts')} conflicts")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
    return res


# ---------------------------------------------------------------- the mixed shape

def bench_mixed_shape(args, binary, floor_bin, n, skip, data_dir, work, dbs, shape="mixed"):
    """The floors, the report and the screen on the database of scripts/gen_mixed.py (with
    --heavy for the heavy shape), and the report's answers checked against what it planted."""
    tag = f"{label(n)} {shape}"
    db, planted = bench_mixed.ensure(n, args.seed, args.now, data_dir, log, shape)
    dbs[n] = db
    rep_res, rep = bench_report(args, binary, floor_bin, db, n, None, work,
                                with_screen="tui" not in skip, tag=tag)
    entry = {"report": rep_res, "check": bench_mixed.check(rep, planted)}
    bad = [c["what"] for c in entry["check"]["checks"] if c["ok"] is False]
    log(f"[{tag}] answers: " + ("as planted" if not bad else "NOT as planted: " + "; ".join(bad)))
    if "tui" not in skip:
        entry["tui"] = bench_screen(args, binary, db, n, rep, rep_res, work, tag=tag)
    if "find" not in skip:
        entry["find"] = bench_find(args, binary, db, n)
    return entry


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="receipt-review benchmark (see the module docstring)",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--sizes", help="receipt counts, e.g. 100k,1M (default: 100k,1M)")
    ap.add_argument("--quick", action="store_true", help="20k,100k; decisions at 20k")
    ap.add_argument("--runs", type=int, default=3, help="floor and report runs per size (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--now", default=DEFAULT_NOW)
    ap.add_argument("--binary", help="benchmark this binary instead of building this worktree's")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in target/")
    ap.add_argument("--keys", type=int, default=200, help="keypresses per screen session (default 200)")
    ap.add_argument("--idle-s", type=float, default=30.0, help="seconds the idle screen's CPU is measured (default 30)")
    ap.add_argument("--quiet-ms", type=float, default=150.0,
                    help="the screen must be quiet this long before each key (default 150)")
    ap.add_argument("--resolve-size", help="size for the decision test (default: the smallest)")
    ap.add_argument("--resolve-count", type=int, default=50)
    ap.add_argument("--writer-rate", type=float, default=200.0)
    ap.add_argument("--slice", default="auto",
                    help="receipts in the slice check (default: a tenth of the largest size; 0: skip)")
    ap.add_argument("--skip", default="",
                    help="comma list of: tui, find, refresh, decisions, slice, legacy, mixed, heavy, "
                         "forms")
    ap.add_argument("--mixed-sizes", default="all",
                    help="sizes at which the mixed database is measured too: all (default), largest, "
                         "or a list such as 1M")
    ap.add_argument("--heavy-sizes", default="largest",
                    help="sizes at which the heavy-duplicate database is measured too: largest "
                         "(default), all, or a list such as 1M")
    ap.add_argument("--refresh-appends", type=int, default=1000, help="receipts appended per refresh round")
    ap.add_argument("--refresh-rounds", type=int, default=5)
    ap.add_argument("--data-dir", default=str(REPO / "target/bench-data"))
    ap.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's results section")
    ap.add_argument("--from-json", metavar="FILE",
                    help="measure nothing: render the results of an earlier run (e.g. "
                         "target/bench-results/latest.json), with --write to put them in BENCHMARKS.md")
    args = ap.parse_args()

    if args.from_json:
        body = render(json.loads(Path(args.from_json).read_text()))
        print(body)
        if args.write:
            write_markdown(REPO / "BENCHMARKS.md", body)
            log(f"wrote the results of {args.from_json} into {REPO / 'BENCHMARKS.md'}")
        return 0

    sizes = ([parse_size(s) for s in args.sizes.split(",")] if args.sizes
             else [20000, 100000] if args.quick else [100000, 1000000])
    sizes = sorted(set(sizes))
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    data_dir = Path(args.data_dir)
    work = data_dir / "work"
    work.mkdir(parents=True, exist_ok=True)
    results_dir = REPO / "target/bench-results"
    results_dir.mkdir(parents=True, exist_ok=True)

    machine = machine_info()
    binary, floor_bin = build(args)
    commit = commit_of(repo_of(binary))
    version = run([str(binary), "--version"]).stdout.strip()
    log(f"binary {binary} ({version}), commit {commit['commit']}; {machine['nproc']} cores, "
        f"{machine['cpu']}, load {machine['load_start']}")
    try:
        binary_rel = str(binary.relative_to(REPO))
    except ValueError:
        binary_rel = str(binary)
    results = {"machine": machine, "commit": commit, "binary": str(binary), "binary_rel": binary_rel,
               "version": version, "sizes": sizes, "runs": args.runs, "now": args.now,
               "command": "python3 scripts/bench.py " + " ".join(sys.argv[1:]), "by_size": {},
               "screen_driver": "examples/bench_tui"}
    if "tui" not in skip:
        results["harness_floor"] = harness_floor()
    reports = {}
    def sizes_of(option):
        return (set(sizes) if option == "all" else {max(sizes)} if option == "largest"
                else {parse_size(x) for x in option.split(",")})
    other_shapes = {"mixed": (sizes_of(args.mixed_sizes), {}), "heavy": (sizes_of(args.heavy_sizes), {})}
    for n in sizes:
        db, meta = ensure_demo(binary, n, args.seed, args.now, data_dir)
        rep_res, rep = bench_report(args, binary, floor_bin, db, n, meta, work,
                                    with_screen="tui" not in skip)
        results.setdefault("sqlite_bundled", rep_res.get("floor_detail", {}).get("sqlite"))
        entry = {"report": rep_res}
        if "find" not in skip:
            entry["find"] = bench_find(args, binary, db, n)
        if "tui" not in skip:
            entry["tui"] = bench_screen(args, binary, db, n, rep, rep_res, work)
        if "forms" not in skip:
            entry["forms"] = bench_forms(args, db, n)
        results["by_size"][str(n)] = entry
        reports[n] = (db, rep)
        json.dump(results, open(results_dir / "partial.json", "w"), indent=1, default=str)
        for shape, (at, dbs) in other_shapes.items():
            if shape not in skip and n in at:
                results.setdefault(shape, {})[str(n)] = bench_mixed_shape(
                    args, binary, floor_bin, n, skip, data_dir, work, dbs, shape)
                json.dump(results, open(results_dir / "partial.json", "w"), indent=1, default=str)
    big = sizes[-1]
    n_slice = max(5000, big // 10) if args.slice == "auto" else parse_size(args.slice)
    if "slice" not in skip and n_slice and big >= 2 * n_slice:
        db, rep = reports[big]
        results["slice"] = slice_check(args, binary, db, rep, n_slice, work)
    if "legacy" not in skip and big >= 100_000:
        results["legacy"] = legacy_check(args, binary, reports[big][0], [20_000, 100_000], work)
    if "refresh" not in skip:
        results["refresh"] = bench_refresh(args, reports[big][0], big, work)
        for shape, (_, dbs) in other_shapes.items():
            if big in dbs:
                results[f"refresh_{shape}"] = bench_refresh(args, dbs[big], big, work,
                                                            tag=f"{label(big)} {shape}")
    if "decisions" not in skip:
        rn = parse_size(args.resolve_size) if args.resolve_size else sizes[0]
        if rn not in reports:
            db, meta = ensure_demo(binary, rn, args.seed, args.now, data_dir)
            reports[rn] = (db, json.loads(run([str(binary), "report", str(db), "--json", "--now",
                                               args.now]).stdout))
        db, rep = reports[rn]
        results["decisions"] = bench_decisions(args, binary, db, rn, rep, work)
    results["load_end"] = loadavg()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for name in ("latest.json", f"bench-{stamp}.json"):
        with open(results_dir / name, "w") as f:
            json.dump(results, f, indent=1, default=str)
    (results_dir / "partial.json").unlink(missing_ok=True)
    body = render(results)
    print(body)
    if args.write:
        write_markdown(REPO / "BENCHMARKS.md", body)
        log(f"wrote the results into {REPO / 'BENCHMARKS.md'}")
    log(f"raw results: {results_dir / 'latest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
