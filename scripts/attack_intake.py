#!/usr/bin/env python3
"""The intake server under the attacks an open port invites, on loopback only,
with the server's peak memory after each.

    python3 scripts/attack_intake.py                       # target/release/receipt-review
    python3 scripts/attack_intake.py path/to/receipt-review --hold 8

It builds nothing: give it a built binary (`cargo build --release`). It writes
a database and a config in a temporary folder, starts `serve` on a free port
of 127.0.0.1 and runs, one after the other:

  a. 200 connections, each declaring Content-Length: 1048576, sending 960 KiB
     of it and stalling;
  b. 200 connections, each sending 400 KB of headers (never finished);
  c. 300 slowloris connections, a header line a second;
  d. 2,000 idle connections that never send a byte;

while ordinary posts keep going (a new connection each, a few a second). Before
each attack the server's peak RSS (VmHWM in /proc/PID/status) is reset, and
read after it; the table shows it with what the attack's connections were
answered and what became of the ordinary posts meanwhile (how many were
answered 201, their worst latency).

Exit 0 when every peak stayed within --max-rss-mb (100) and every ordinary
post was answered; 1 otherwise, or when the run passes --time-limit.
Every loop is bounded; the whole run takes about a minute.
"""

import argparse
import http.client
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"

CONFIG = """
[server]
listen = "127.0.0.1:{port}"
body_limit = "64KiB"
rate = "off"
header_timeout = "10s"
body_timeout = "10s"

[forms.contact]
scope = "acme.example/contact"
fields = {{ name = 100, email = 254, company = 200, phone = 40, message = 5000 }}
required = ["email", "message"]
window = "0s"
honeypot = "_gotcha"
"""

KIB = 1024


class Run:
    """The run's clock: every wait and loop stops at its end."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()

    def over(self):
        return self.left() <= 0


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def status_field(pid, name):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak(pid):
    """Resets VmHWM to the current RSS (Linux: 5 > clear_refs); False when
    the kernel refuses, and the peaks are then since the start."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def connect(port, timeout=5.0):
    s = socket.create_connection((HOST, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def what_came_back(s, until):
    """The status the server sent on `s` before it closed, or how it ended:
    '413', 'closed', 'reset', 'open' (still open at `until`)."""
    got = b""
    while time.monotonic() < until:
        s.settimeout(max(0.05, min(1.0, until - time.monotonic())))
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            return status_of(got) or "reset"
        if not chunk:
            return status_of(got) or "closed"
        got += chunk
    return status_of(got) or "open"


def status_of(data):
    if data.startswith(b"HTTP/1.1 "):
        return data[9:12].decode("ascii", "replace")
    return None


class Posts:
    """Ordinary submissions, one after another on new connections, counted
    per attack."""

    def __init__(self, port, run):
        self.port = port
        self.run = run
        self.lock = threading.Lock()
        self.phase = "start"
        self.stats = {}
        self.stop = threading.Event()
        self.n = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def counts(self, phase):
        return self.stats.setdefault(phase, {"sent": 0, "201": 0, "other": {}, "unanswered": 0, "worst_ms": 0.0})

    def loop(self):
        while not self.stop.is_set() and not self.run.over():
            self.n += 1
            body = json.dumps({
                "email": f"visitor{self.n}@example.jp",
                "name": "山田 花子",
                "message": f"見積もりをお願いします（{self.n}）",
            }).encode()
            with self.lock:
                phase = self.phase
            t0 = time.monotonic()
            status = None
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=10)
                conn.request("POST", "/f/contact", body, {
                    "Content-Type": "application/json",
                    "Idempotency-Key": f'"attack-run-{self.n}"',
                })
                response = conn.getresponse()
                response.read()
                status = response.status
                conn.close()
            except OSError:
                pass
            took_ms = (time.monotonic() - t0) * 1000
            with self.lock:
                c = self.counts(phase)
                c["sent"] += 1
                if status is None:
                    c["unanswered"] += 1
                elif status == 201:
                    c["201"] += 1
                    c["worst_ms"] = max(c["worst_ms"], took_ms)
                else:
                    c["other"][str(status)] = c["other"].get(str(status), 0) + 1
            self.stop.wait(0.1)

    def enter(self, phase):
        with self.lock:
            self.phase = phase


def in_threads(count, work):
    """Runs `work(i)` in `count` threads; their results."""
    results = [None] * count

    def one(i):
        try:
            results[i] = work(i)
        except OSError as e:
            results[i] = f"error: {type(e).__name__}"

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def held(hold, end):
    """When an attack whose connections are all open lets go."""
    return min(time.monotonic() + hold, end)


def oversized(port, count, hold, end):
    until = held(hold, end)
    head = (b"POST /f/contact HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1048576\r\n\r\n")
    chunk = b" " * (64 * KIB)

    def work(_):
        s = connect(port)
        try:
            s.sendall(head)
            sent = 0
            try:
                while sent < 960 * KIB and time.monotonic() < until:
                    s.sendall(chunk[: min(len(chunk), 960 * KIB - sent)])
                    sent += min(len(chunk), 960 * KIB - sent)
            except socket.timeout:
                pass
            except OSError:
                return "cut while sending"
            return what_came_back(s, until)
        finally:
            s.close()

    return in_threads(count, work)


def huge_heads(port, count, hold, end):
    until = held(hold, end)
    line = b"X-Pad: " + b"a" * 3990 + b"\r\n"

    def work(_):
        s = connect(port)
        try:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n")
            sent = 0
            try:
                while sent < 400_000 and time.monotonic() < until:
                    s.sendall(line)
                    sent += len(line)
            except socket.timeout:
                pass
            except OSError:
                return "cut while sending"
            return what_came_back(s, until)
        finally:
            s.close()

    return in_threads(count, work)


def slowloris(port, count, hold, end):
    socks = []
    for _ in range(count):
        if time.monotonic() >= end:
            break
        s = connect(port)
        s.sendall(b"POST /f/contact HTTP/1.1\r\nHost: t\r\n")
        socks.append(s)
    until = held(hold, end)
    alive = set(range(len(socks)))
    ends = {}
    while alive and time.monotonic() < until:
        for i in list(alive):
            try:
                socks[i].sendall(b"X-Slow: 1\r\n")
            except OSError:
                alive.discard(i)
                ends[i] = "closed"
        time.sleep(min(1.0, max(0.0, until - time.monotonic())))
    results = []
    for i, s in enumerate(socks):
        results.append(ends.get(i) or what_came_back(s, time.monotonic() + 0.05))
        s.close()
    return results


def idle(port, count, hold, end):
    socks = []
    for _ in range(count):
        if time.monotonic() >= end:
            break
        socks.append(connect(port))
    until = held(hold, end)
    while time.monotonic() < until:
        time.sleep(min(0.5, max(0.0, until - time.monotonic())))
    results = [what_came_back(s, time.monotonic() + 0.01) for s in socks]
    for s in socks:
        s.close()
    return results


def summary(results):
    counts = {}
    for r in results:
        counts[r] = counts.get(r, 0) + 1
    return ", ".join(f"{n} {what}" for what, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def raise_fd_limit(needed):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, needed), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", nargs="?", default=str(ROOT / "target" / "release" / "receipt-review"))
    p.add_argument("--hold", type=float, default=6.0,
                   help="seconds each attack of (a) and (b) is held (c and d: the header timeout + 3 s)")
    p.add_argument("--max-rss-mb", type=float, default=100.0)
    p.add_argument("--time-limit", type=float, default=240.0, help="the whole run, in seconds")
    p.add_argument("--json", help="also write the results to this file")
    args = p.parse_args()
    binary = Path(args.binary)
    if not binary.is_file():
        sys.exit(f"no binary at {binary}: build it first (cargo build --release)")
    fds = raise_fd_limit(4096)
    if fds < 2300:
        sys.exit(f"the open-file limit is {fds}; 2,300 connections need more (ulimit -n 4096)")
    run = Run(args.time_limit)
    header_timeout = 10.0
    with tempfile.TemporaryDirectory(prefix="attack-intake-") as tmp:
        port = free_port()
        config = Path(tmp) / "forms.toml"
        config.write_text(CONFIG.format(port=port))
        db = Path(tmp) / "receipts.db"
        server = subprocess.Popen([str(binary), "serve", str(db), "--config", str(config)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            rows, posts, ok = attack(server, port, run, args, header_timeout)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    print(f"{'attack':<39} {'lasted':>6} {'peak RSS':>9}  {'posts 201':>9} {'worst':>8}  answers to the attack")
    for r in rows:
        print(f"{r['attack']:<39} {r['lasted_s']:>5.1f}s {r['peak_mb']:>6.1f} MB  "
              f"{r['posts_201']:>4}/{r['posts_sent']:<4} {r['worst_ms']:>6.0f}ms  {r['answers']}")
    if posts["unanswered"] or posts["other"]:
        print(f"ordinary posts not answered 201: {posts['unanswered']} unanswered, other: {posts['other']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "binary": str(binary)}, indent=2))
    if run.over():
        print("the run passed its time limit", file=sys.stderr)
        ok = False
    sys.exit(0 if ok else 1)


def attack(server, port, run, args, header_timeout):
    deadline = time.monotonic() + 10
    while True:
        if server.poll() is not None:
            sys.exit(f"the server ended at its start (exit {server.returncode})")
        try:
            connect(port, timeout=0.2).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                sys.exit("the server did not start listening")
            time.sleep(0.05)
    pid = server.pid
    posts = Posts(port, run)
    posts.thread.start()
    time.sleep(1.0)
    rows = [{"attack": "none (start)", "lasted_s": 1.0, "peak_mb": status_field(pid, "VmHWM"), "answers": "",
             **post_row(posts, "start")}]
    resettable = True
    slow_hold = header_timeout + 3
    attacks = [
        ("a. 200 × 1 MiB declared, 960 KiB sent", oversized, 200, args.hold),
        ("b. 200 × 400 KB of headers", huge_heads, 200, args.hold),
        ("c. 300 slowloris", slowloris, 300, slow_hold),
        ("d. 2,000 idle sockets", idle, 2000, slow_hold),
    ]
    for name, run_attack, count, hold in attacks:
        if run.over():
            break
        # Let the previous attack's connections end before the next is measured.
        time.sleep(min(3.0, max(0.0, run.left())))
        resettable = reset_peak(pid) and resettable
        posts.enter(name)
        began = time.monotonic()
        results = run_attack(port, count, hold, run.end)
        time.sleep(0.5)
        rows.append({"attack": name, "lasted_s": time.monotonic() - began, "peak_mb": status_field(pid, "VmHWM"),
                     "answers": summary(results), **post_row(posts, name)})
    posts.stop.set()
    posts.thread.join(timeout=15)
    if not resettable:
        print("(the kernel did not reset VmHWM: each peak is the peak since the start)")
    total = {"unanswered": 0, "other": {}}
    for c in posts.stats.values():
        total["unanswered"] += c["unanswered"]
        for k, v in c["other"].items():
            total["other"][k] = total["other"].get(k, 0) + v
    ok = all(r["peak_mb"] <= args.max_rss_mb for r in rows) and not total["unanswered"] \
        and not total["other"] and server.poll() is None
    return rows, total, ok


def post_row(posts, phase):
    with posts.lock:
        c = posts.counts(phase)
        return {"posts_sent": c["sent"], "posts_201": c["201"], "worst_ms": c["worst_ms"]}


if __name__ == "__main__":
    main()
