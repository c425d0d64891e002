#!/usr/bin/env python3
"""Drive the review screen from outside, in a pseudo-terminal, and time it.

Used by scripts/bench.py; also runs alone:

    python3 scripts/bench_tui.py target/release/receipt-review DB [--keys 200] [--json]

Method (standard library only):

* The binary runs on the slave side of a pty (160x48, TERM=xterm-256color) as a
  session leader with the pty as its controlling terminal; this process holds
  the master side and timestamps with time.perf_counter().
* Every byte the screen writes is fed to a small VT emulator (cursor moves,
  erase, text with East Asian widths) so the screen's text can be read, e.g.
  to see when the header's counts appear.
* Frame boundaries: ratatui ends every drawn frame by setting cursor
  visibility (ESC[?25l, or ESC[?25h plus a cursor position while an input has
  focus). A frame "has content" when, with escape sequences removed, any text
  is left (an unchanged redraw only resets colours and the cursor).
* Keypress -> frame: wait until the screen has been quiet for QUIET seconds,
  write one key, then record the first byte that arrives (first_byte), the end
  of the first frame with content (frame) and the end of the last frame before
  the screen is quiet again (settle: e.g. the detail pane filled by a
  background load). Keys are measured one at a time, never queued.
* Time to first frame: spawn -> end of the first frame with content.
  Analysis complete: spawn -> end of the first frame whose top three lines show
  tab counts ("Duplicates N/M") with no progress marker (no "⟳", no "Reading").
* The harness floor: the same write -> read path through a pty to `cat` in raw
  mode; what it measures is overhead included in every latency above.
"""

import argparse
import codecs
import fcntl
import json
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
import unicodedata

CSI_RE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
FRAME_END_RE = re.compile(rb"\x1b\[\?25[lh]")
DONE_TAB_RE = re.compile(r"Duplicates\s+(\d+)/(\d+)")


def now():
    return time.perf_counter()


class Screen:
    """Just enough of a VT100/xterm to read what ratatui draws."""

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.state = "text"
        self.params = ""
        self.clear()

    def clear(self):
        self.grid = [[" "] * self.cols for _ in range(self.rows)]
        self.r = self.c = 0

    def feed(self, data):
        for ch in self.decoder.decode(data):
            st = self.state
            if st == "text":
                if ch == "\x1b":
                    self.state = "esc"
                elif ch == "\r":
                    self.c = 0
                elif ch == "\n":
                    self.r = min(self.r + 1, self.rows - 1)
                elif ch == "\b":
                    self.c = max(0, self.c - 1)
                elif ch >= " " and ch != "\x7f":
                    self.put(ch)
            elif st == "esc":
                if ch == "[":
                    self.state, self.params = "csi", ""
                elif ch == "]":
                    self.state = "osc"
                elif ch in "()*+":
                    self.state = "charset"
                else:
                    self.state = "text"
            elif st == "csi":
                if "@" <= ch <= "~":
                    self.csi(self.params, ch)
                    self.state = "text"
                else:
                    self.params += ch
            elif st == "osc":
                if ch == "\x07":
                    self.state = "text"
                elif ch == "\x1b":
                    self.state = "osc_esc"
            else:  # charset designation or the end of an OSC string
                self.state = "text"

    def put(self, ch):
        if unicodedata.combining(ch) or unicodedata.category(ch) == "Cf":
            return
        w = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        if self.c + w > self.cols:
            return
        self.grid[self.r][self.c] = ch
        if w == 2:
            self.grid[self.r][self.c + 1] = ""
        self.c += w

    def csi(self, params, final):
        private = params.startswith("?")
        nums = []
        for p in params.lstrip("?>=").split(";"):
            nums.append(int(p) if p.isdigit() else 0)

        def arg(i, default):
            return nums[i] if i < len(nums) and nums[i] else default

        if private:
            if final in "hl" and 1049 in nums:
                self.clear()
            return
        if final in "Hf":
            self.r = min(arg(0, 1), self.rows) - 1
            self.c = min(arg(1, 1), self.cols) - 1
        elif final == "J":
            mode = arg(0, 0)
            if mode in (2, 3):
                self.clear_keep_cursor()
            elif mode == 0:
                self.grid[self.r][self.c:] = [" "] * (self.cols - self.c)
                for r in range(self.r + 1, self.rows):
                    self.grid[r] = [" "] * self.cols
            elif mode == 1:
                for r in range(self.r):
                    self.grid[r] = [" "] * self.cols
                self.grid[self.r][: self.c + 1] = [" "] * (self.c + 1)
        elif final == "K":
            mode = arg(0, 0)
            if mode == 0:
                self.grid[self.r][self.c:] = [" "] * (self.cols - self.c)
            elif mode == 1:
                self.grid[self.r][: self.c + 1] = [" "] * (self.c + 1)
            else:
                self.grid[self.r] = [" "] * self.cols
        elif final == "A":
            self.r = max(0, self.r - arg(0, 1))
        elif final == "B":
            self.r = min(self.rows - 1, self.r + arg(0, 1))
        elif final == "C":
            self.c = min(self.cols - 1, self.c + arg(0, 1))
        elif final == "D":
            self.c = max(0, self.c - arg(0, 1))
        elif final == "G":
            self.c = min(arg(0, 1), self.cols) - 1
        elif final == "d":
            self.r = min(arg(0, 1), self.rows) - 1

    def clear_keep_cursor(self):
        r, c = self.r, self.c
        self.clear()
        self.r, self.c = r, c

    def lines(self):
        return ["".join(row).rstrip() for row in self.grid]

    def text(self):
        return "\n".join(self.lines())


class PtyApp:
    """A program on a pseudo-terminal, with frame-aware reading."""

    def __init__(self, argv, rows=48, cols=160, stderr_path=None, env=None):
        self.rows, self.cols = rows, cols
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        full_env = dict(os.environ)
        full_env.pop("NO_COLOR", None)
        full_env.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
        full_env.update(env or {})

        def controlling_tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.stderr = open(stderr_path or os.devnull, "wb")
        self.t_spawn = now()
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=self.stderr,
            preexec_fn=controlling_tty,
            env=full_env,
            close_fds=True,
        )
        os.close(slave)
        self.fd = master
        self.screen = Screen(rows, cols)
        self.pending = b""  # bytes since the last frame end
        self.bytes_total = 0
        self.eof = False

    def pump(self, timeout):
        """One read (waiting at most `timeout`). Returns None, or
        (t, data, frames) where frames is a list of (t, has_content)."""
        if self.eof:
            time.sleep(max(0.0, timeout))
            return None
        r, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not r:
            return None
        try:
            data = os.read(self.fd, 1 << 20)
        except OSError:
            data = b""
        t = now()
        if not data:
            self.eof = True
            return None
        self.bytes_total += len(data)
        self.screen.feed(data)
        buf = self.pending + data
        frames = []
        start = 0
        for m in FRAME_END_RE.finditer(buf):
            segment = buf[start : m.start()]
            frames.append((t, bool(CSI_RE.sub(b"", segment).strip(b"\x1b"))))
            start = m.end()
        self.pending = buf[start:]
        return t, data, frames

    def drain(self, quiet, limit=2.0):
        """Read until nothing has arrived for `quiet` seconds."""
        deadline = now() + limit
        last = now()
        while now() < deadline:
            wait = quiet - (now() - last)
            if wait <= 0:
                return True
            if self.pump(wait) is not None:
                last = now()
        return False

    def press(self, key, quiet, timeout, settle_cap=2.0):
        """Write one key when the screen is quiet; time the answer (ms).

        Waits at most `timeout` for the first frame and `settle_cap` for the
        screen to go quiet again (a screen that redraws by itself never does)."""
        was_quiet = self.drain(quiet)
        t0 = now()
        os.write(self.fd, key)
        first_byte = frame = settle = None
        last_activity = None
        deadline = t0 + timeout
        while True:
            t = now()
            if frame is not None:
                wait = min(quiet - (t - last_activity), t0 + settle_cap - t)
            else:
                wait = deadline - t
            if wait <= 0:
                break
            ev = self.pump(wait)
            if ev is None:
                if self.eof:
                    break
                continue
            tr, _, frames = ev
            last_activity = tr
            if first_byte is None:
                first_byte = tr
            for tf, content in frames:
                if content:
                    if frame is None:
                        frame = tf
                    settle = tf

        def ms(x):
            return None if x is None else (x - t0) * 1000.0

        return {"first_byte": ms(first_byte), "frame": ms(frame), "settle": ms(settle),
                "quiet_before": was_quiet}

    def rss_kb(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                status = f.read()
        except OSError:
            return {}
        out = {}
        for key in ("VmHWM", "VmRSS"):
            m = re.search(rf"^{key}:\s+(\d+) kB", status, re.M)
            if m:
                out[key] = int(m.group(1))
        return out

    def close(self, quit_key=b"q"):
        if self.proc.poll() is None and not self.eof:
            try:
                os.write(self.fd, quit_key)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:
            os.close(self.fd)
        except OSError:
            pass
        self.stderr.close()
        return self.proc.returncode


def triage_shown(screen):
    """The analysis is on screen: the tab counts, past the progress screen (the
    items' receipts and the filter index may still be coming, marked ⟳)."""
    if "Reading" in screen.text():
        return False
    return DONE_TAB_RE.search("\n".join(screen.lines()[:4])) is not None


def header_done(screen):
    top = "\n".join(screen.lines()[:4])
    if "⟳" in top or "Reading" in screen.text():
        return False
    return DONE_TAB_RE.search(top) is not None


def header_counts(screen):
    top = " ".join(screen.lines()[:4])
    out = {}
    for name, rx in (
        ("duplicate_groups", r"Duplicates\s+(\d+)/(\d+)"),
        ("conflicts", r"Conflicts\s+(\d+)/(\d+)"),
        ("stuck", r"Stuck\s+(\d+)/(\d+)"),
        ("damaged", r"Damaged\s+(\d+)"),
        ("suspected_bots", r"suspected bots\s+(\d+)"),
        ("receipts", r"(\d+)\s+receipts"),
    ):
        m = re.search(rx, top)
        if m:
            out[name] = int(m.group(m.lastindex))  # "pending/all": the total
    return out


def pct(values, p):
    """Nearest-rank percentile of a list (None when empty)."""
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    k = max(0, min(len(xs) - 1, int(round(p / 100.0 * len(xs) + 0.5)) - 1))
    return xs[k]


def summarize(samples):
    out = {"n": len(samples), "not_quiet_before": sum(1 for s in samples if not s["quiet_before"])}
    for field in ("first_byte", "frame", "settle"):
        vals = [s[field] for s in samples]
        got = [v for v in vals if v is not None]
        out[field] = {
            "p50": pct(got, 50),
            "p99": pct(got, 99),
            "max": max(got) if got else None,
            "mean": statistics.fmean(got) if got else None,
            "missing": len(vals) - len(got),
        }
    return out


FILTER_WORDS = ["shop", "smith", "dup:1", "corp.ex", "tanaka", "x", "lp/ai"]


def filter_keys(count):
    """'/', a word, Esc; repeated until at least `count` keys."""
    keys = []
    i = 0
    while len(keys) < count:
        word = FILTER_WORDS[i % len(FILTER_WORDS)]
        keys.append(b"/")
        keys.extend(bytes([b]) for b in word.encode())
        keys.append(b"\x1b")
        i += 1
    return keys


def harness_floor(keys=200, quiet=0.02):
    """Write -> read round trip through a pty to `cat` in raw mode."""
    app = PtyApp(["sh", "-c", "stty raw -echo; echo ready; exec cat"])
    deadline = now() + 5
    while "ready" not in app.screen.text() and now() < deadline:
        app.pump(0.1)
    app.drain(0.1)
    samples = []
    for _ in range(keys):
        app.drain(quiet)
        t0 = now()
        os.write(app.fd, b"j")
        ev = app.pump(2.0)
        samples.append(None if ev is None else (ev[0] - t0) * 1000.0)
    app.proc.send_signal(signal.SIGTERM)
    app.close(quit_key=b"")
    return {"n": len(samples), "p50": pct(samples, 50), "p99": pct(samples, 99),
            "max": max(s for s in samples if s is not None)}


def measure(binary, db, now_arg, keys=200, quiet=0.15, load_timeout=1800.0,
            key_timeout=10.0, rows=48, cols=160, stderr_path=None, extra_args=(),
            log=print):
    argv = [binary, str(db), "--now", now_arg, "--operator", "bench", *extra_args]
    app = PtyApp(argv, rows=rows, cols=cols, stderr_path=stderr_path)
    res = {"argv": argv[1:], "rows": rows, "cols": cols, "quiet_ms": quiet * 1000}
    first_byte = first_frame = shown = done = None
    deadline = app.t_spawn + load_timeout
    while now() < deadline and done is None:
        ev = app.pump(min(1.0, deadline - now()))
        if ev is None:
            if app.eof:
                break
            continue
        t, _, frames = ev
        if first_byte is None:
            first_byte = t
        for tf, content in frames:
            if content and first_frame is None:
                first_frame = tf
        if frames and shown is None and triage_shown(app.screen):
            shown = frames[-1][0]
        if frames and header_done(app.screen):
            done = frames[-1][0]

    def ms(x):
        return None if x is None else (x - app.t_spawn) * 1000.0

    res["first_byte_ms"] = ms(first_byte)
    res["first_frame_ms"] = ms(first_frame)
    res["analysis_shown_ms"] = ms(shown)
    res["analysis_done_ms"] = ms(done)
    if done is None:
        res["error"] = "analysis did not complete" + (" (the program exited)" if app.eof else "")
        res["screen"] = app.screen.text()
        app.close()
        return res
    app.drain(0.5)
    res["header"] = app.screen.lines()[:3]
    res["header_counts"] = header_counts(app.screen)
    res["rss_after_load_kb"] = app.rss_kb()
    log(f"    tui: first frame {res['first_frame_ms']:.1f} ms, analysis shown {res['analysis_shown_ms']:.0f} ms, "
        f"all read {res['analysis_done_ms']:.0f} ms")

    scroll = [app.press(b"j", quiet, key_timeout) for _ in range(keys)]
    res["scroll"] = summarize(scroll)
    log("    tui: scroll (j) p50/p99 frame {:.2f}/{:.2f} ms".format(
        res["scroll"]["frame"]["p50"] or -1, res["scroll"]["frame"]["p99"] or -1))

    fkeys = filter_keys(keys)
    samples = [app.press(k, quiet, key_timeout) for k in fkeys]
    letters = [s for k, s in zip(fkeys, samples) if k not in (b"/", b"\x1b")]
    res["filter"] = summarize(samples)
    res["filter_letters"] = summarize(letters)
    res["filter_words"] = FILTER_WORDS
    log("    tui: filter (/ letters Esc) p50/p99 frame {:.2f}/{:.2f} ms".format(
        res["filter"]["frame"]["p50"] or -1, res["filter"]["frame"]["p99"] or -1))
    res["rss_end_kb"] = app.rss_kb()
    res["exit_code"] = app.close()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("db")
    ap.add_argument("--now", default="2026-11-29T12:00:00Z")
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--quiet-ms", type=float, default=150.0)
    ap.add_argument("--json", action="store_true", help="print the whole result as JSON")
    args = ap.parse_args()
    floor = harness_floor()
    print(f"harness floor (pty round trip to cat): p50 {floor['p50']:.3f} ms, p99 {floor['p99']:.3f} ms",
          file=sys.stderr)
    res = measure(args.binary, args.db, args.now, keys=args.keys, quiet=args.quiet_ms / 1000.0,
                  log=lambda m: print(m, file=sys.stderr))
    res["harness_floor"] = floor
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False))
    return 0 if "error" not in res else 1


if __name__ == "__main__":
    sys.exit(main())
