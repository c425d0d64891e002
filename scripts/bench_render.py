"""BENCHMARKS.md's results section from a run's results (target/bench-results/*.json),
and its table of earlier runs."""

import json
import re

BEGIN = "<!-- bench:results:begin -->"
END = "<!-- bench:results:end -->"
HISTORY_BEGIN = "<!-- bench:history:begin -->"
HISTORY_END = "<!-- bench:history:end -->"
HEADLINE_RE = re.compile(r"<!-- bench:headline (\{.*?\}) -->")

REFRESH_TARGET_MS = 50
HISTORY_ROWS = 10
SHAPES = [("demo", "demo"), ("mixed", "mixed"), ("heavy", "heavy")]


def label(n):
    if n % 1000000 == 0:
        return f"{n // 1000000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def f1(x, unit="", nd=1):
    return "—" if x is None else f"{x:.{nd}f}{unit}"


def within(x, limit, nd):
    """The figure as shown (to `nd` decimals) is at most the target."""
    return round(x, nd) <= limit


def met(ok, blocked=False):
    if ok is None:
        return "—"
    if ok:
        return "yes"
    return "**no** (blocked)" if blocked else "**no**"


def shape_sizes(results, shape):
    """{n: entry} of one shape: the demo's are under by_size, the others under their name."""
    table = results.get("by_size", {}) if shape == "demo" else results.get(shape, {})
    return {int(n): e for n, e in table.items()}


def screen_done_ms(t):
    """The screen's time to read everything: the median of its runs (older results: the one run)."""
    return t.get("analysis_done_median_ms", t.get("analysis_done_ms"))


def screen_peak_mb(t):
    kb = (t or {}).get("rss_end_kb", {}).get("VmHWM")
    return kb / 1024 if kb else None


def checked_ratio(r):
    c = r.get("checked_floor_s")
    return r["report_best_s"] / c if c else None


def refresh_of(results, shape):
    return results.get("refresh" if shape == "demo" else f"refresh_{shape}")


# ---------------------------------------------------------------- headline and history

def rounded(x, nd):
    return None if x is None else round(x, nd)


def headline(results):
    """The run's headline figures at its largest size, kept in the section for the history table."""
    big = max(results["sizes"])
    h = {"date": results["machine"]["date_utc"], "commit": results["commit"]["commit"], "n": big}
    for shape, _ in SHAPES:
        e = shape_sizes(results, shape).get(big)
        if not e:
            continue
        r, t = e["report"], e.get("tui") or {}
        ref = refresh_of(results, shape)
        ms = [x["ms"] for x in ref["rounds"]] if ref and "rounds" in ref else None
        h[shape] = {
            "ratio_floor": round(r["ratio_best"], 2),
            "ratio_checked": checked_ratio(r) and round(checked_ratio(r), 2),
            "first_frame_ms": t.get("first_frame_ms") and round(t["first_frame_ms"]),
            "scroll_p99_ms": rounded(t.get("scroll", {}).get("frame", {}).get("p99"), 1),
            "filter_p99_ms": rounded(t.get("filter", {}).get("frame", {}).get("p99"), 1),
            "refresh_ms": [round(min(ms)), round(max(ms))] if ms else None,
            "screen_rss_mb": screen_peak_mb(t) and round(screen_peak_mb(t)),
        }
    return h


def history_row(h):
    d, m = h.get("demo", {}), h.get("mixed", {})

    def ratio(x):
        return "—" if x is None else f"{x:.1f}×"

    def ms(x):
        return "—" if x is None else f"{x:.0f} ms"

    keys = "—" if d.get("scroll_p99_ms") is None else \
        f"{d['scroll_p99_ms']:.1f} / {f1(d.get('filter_p99_ms'), ' ms')}"
    ref = d.get("refresh_ms")
    return (f"| {h['date'].replace(' UTC', '')} | `{h['commit']}` | {label(h['n'])} | {ratio(d.get('ratio_floor'))} | "
            f"{ratio(d.get('ratio_checked'))} | {ms(d.get('first_frame_ms'))} | {keys} | "
            + ("—" if not ref else f"{ref[0]}–{ref[1]} ms") + " | "
            + ("—" if d.get("screen_rss_mb") is None else f"{d['screen_rss_mb']} MB") + " | "
            + f"{ratio(m.get('ratio_checked'))} | "
            + ("—" if m.get("screen_rss_mb") is None else f"{m['screen_rss_mb']} MB") + " |")


def write_markdown(path, body):
    """Puts `body` between the results markers; the run it replaces joins the
    table of earlier runs (newest first)."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    block = f"{BEGIN}\n{body.rstrip()}\n{END}"
    if BEGIN not in text or END not in text:
        path.write_text(text.rstrip() + "\n\n## Latest results\n\n" + block + "\n")
        return
    pre, rest = text.split(BEGIN, 1)
    old, post = rest.split(END, 1)
    text = pre + block + post
    old_head = HEADLINE_RE.search(old)
    new_head = HEADLINE_RE.search(body)
    if old_head and HISTORY_BEGIN in text and HISTORY_END in text \
            and (not new_head or new_head.group(1) != old_head.group(1)):
        row = history_row(json.loads(old_head.group(1)))
        pre, rest = text.split(HISTORY_BEGIN, 1)
        table, post = rest.split(HISTORY_END, 1)
        lines = table.strip("\n").splitlines()
        header = [line for line in lines[:2] if line.startswith("|")]
        rows = [line for line in lines[len(header):] if line.startswith("|")]
        if row not in rows:
            rows.insert(0, row)
        # A short table: the older runs stay in the file's history.
        rows = rows[:HISTORY_ROWS]
        text = pre + HISTORY_BEGIN + "\n" + "\n".join(header + rows) + "\n" + HISTORY_END + post
    path.write_text(text)


# ---------------------------------------------------------------- the section

def render(results):
    m = results["machine"]
    sizes = results["sizes"]
    big = max(sizes)
    L = [f"<!-- bench:headline {json.dumps(headline(results), separators=(',', ':'))} -->", ""]
    c = results["commit"]
    L.append(f"Run **{m['date_utc']}** on commit **`{c['commit']}`** (branch `{c.get('branch', '?')}`; src/, "
             f"Cargo.*, assets/ last changed in `{c.get('code_commit', '?')}`): `{results['command']}`. "
             f"{m['nproc']} cores ({m['cpu']}), {m['ram_gib']} GiB RAM, Linux {m['kernel']}; load average "
             f"{m['load_start']} at the start, {results.get('load_end')} at the end; bundled SQLite "
             f"{results.get('sqlite_bundled') or '?'}; the screen driven by "
             f"`{results.get('screen_driver', 'examples/bench_tui')}`.")
    L.append("")
    render_targets(L, results, big)
    render_reports(L, results, sizes)
    render_screens(L, results, sizes)
    render_refreshes(L, results)
    render_forms(L, results, sizes)
    render_decisions(L, results)
    render_find(L, results, sizes)
    render_answers(L, results, sizes, big)
    return "\n".join(L)


def render_find(L, results, sizes):
    rows = [(n, results["by_size"].get(str(n), {}).get("find")) for n in sizes]
    rows = [(n, f) for n, f in rows if f]
    if not rows:
        return
    L.append("### `find DB QUERY --json` (demo)")
    L.append("")
    L.append("By an email one receipt holds (*hit*: the scan, then the analysis for the hit's items), by "
             "one nobody sent (*miss*: the scan alone, no analysis) and by `#id`; wall time best / median "
             "of the runs, peak RSS; *correct*: the hits equal the receipts SQL finds holding the email.")
    L.append("")
    L.append("| receipts | hit | miss | #id | peak RSS (hit) | correct |")
    L.append("|---|---|---|---|---|---|")
    for n, f in rows:
        cell = lambda k: f"{f[k]['best_s']:.3f} / {f[k]['median_s']:.3f} s"
        ok = all(f[k]["correct"] for k in ("hit", "miss", "number"))
        L.append(f"| {label(n)} | {cell('hit')} | {cell('miss')} | {cell('number')} | "
                 f"{f['hit']['rss_mb']:.0f} MB | {'yes' if ok else '**no**'} |")
    L.append("")


def render_targets(L, results, big):
    L.append(f"### Against the targets ({label(big)} receipts)")
    L.append("")
    L.append("| target | shape | figure | met |")
    L.append("|---|---|---|---|")
    rows = {shape: shape_sizes(results, shape).get(big) for shape, _ in SHAPES}

    def row(target, fn):
        for i, (shape, e) in enumerate(rows.items()):
            figure, ok, *blocked = fn(shape, e) if e else ("not measured in this run", None)
            L.append(f"| {target if i == 0 else ''} | {shape} | {figure} | {met(ok, bool(blocked))} |")

    def floor(shape, e):
        r = e["report"]
        return (f"{r['ratio_best']:.1f}× ({r['report_best_s']:.2f} s / {r['floor_s']:.3f} s)",
                within(r["ratio_best"], 3.0, 1), "blocked")

    def checked(shape, e):
        r = e["report"]
        x = checked_ratio(r)
        if x is None:
            return "not measured", None
        return f"{x:.1f}× ({r['report_best_s']:.2f} s / {r['checked_floor_s']:.3f} s)", within(x, 3.6, 1)

    def first_frame(shape, e):
        t = e.get("tui") or {}
        if "first_frame_ms" not in t or t.get("first_frame_ms") is None:
            return t.get("error", "not measured"), None
        return f"{t['first_frame_ms']:.0f} ms", within(t["first_frame_ms"], 100, 0)

    def keys(shape, e):
        t = e.get("tui") or {}
        if "scroll" not in t:
            return t.get("error", "not measured"), None
        sp, fp = t["scroll"]["frame"]["p99"], t["filter"]["frame"]["p99"]
        ok = None if sp is None or fp is None else within(sp, 16, 1) and within(fp, 16, 1)
        return f"scrolling {f1(sp, ' ms')}, filtering {f1(fp, ' ms')}", ok

    def refresh(shape, e):
        ref = refresh_of(results, shape)
        if not ref:
            return "not measured", None
        if "error" in ref:
            return ref["error"], False
        ms = [x["ms"] for x in ref["rounds"]]
        return (f"{min(ms):.0f}–{max(ms):.0f} ms over {len(ms)} rounds (full reading {ref['full_ms'] / 1000:.2f} s)",
                within(max(ms), REFRESH_TARGET_MS, 0))

    def peak(shape, e):
        mb = screen_peak_mb(e.get("tui"))
        rep = f"report {e['report']['report_rss_mb']:.0f} MB"
        return (f"{mb:.0f} MB ({rep})" if mb else f"not measured ({rep})"), (None if mb is None else within(mb, 300, 0))

    def idle(shape, e):
        t = e.get("tui") or {}
        pct = t.get("idle_cpu_pct")
        if pct is None:
            return "not measured", None
        return f"{pct:.2f} % over {t.get('idle_s', 0):.0f} s", within(pct, 1.0, 2)

    def find(shape, e):
        f = e.get("find")
        if not f or "hit" not in f:
            return "not measured", None
        hit, miss = f["hit"]["best_s"], f["miss"]["best_s"]
        return (f"hit {hit:.2f} s (scan + analysis), miss {miss:.2f} s (the scan: the screen's search)",
                within(hit, 1.0, 2))

    def forms(shape, e):
        f = e.get("forms")
        if not f or "compute_ms" not in f:
            return (f or {}).get("error", "not measured"), None
        worst = max(f["compute_ms"].values())
        return (f"{worst:.0f} ms at most over the periods, opening the tab {f['open_tab_ms']:.0f} ms",
                within(max(worst, f["open_tab_ms"]), 100, 0))

    def answers(shape, e):
        return answers_line(results, shape, big)

    row("`report --json` ≤ 3× the floor (blocked, see the method)", floor)
    row("`report --json` ≤ 3.6× the checked floor", checked)
    row("first frame ≤ 100 ms", first_frame)
    row("keypress → frame p99 ≤ 16 ms", keys)
    row(f"refresh ≤ {REFRESH_TARGET_MS} ms after 1,000 appends (every round)", refresh)
    row("screen peak RSS ≤ 300 MB", peak)
    row("idle screen, clock moving < 1 % CPU", idle)
    row("`find` by email ≤ 1 s", find)
    row("Forms view ≤ 100 ms after the analysis", forms)
    row("the same answers", answers)
    L.append("")


def answers_line(results, shape, n):
    e = shape_sizes(results, shape).get(n)
    r = e["report"]
    parts, oks = [], [r["runs_identical"]]
    if shape == "demo":
        if "planted_ok" in r:
            parts.append("counts = what the demo planted" if r["planted_ok"] else "counts ≠ planted")
            oks.append(r["planted_ok"])
        sl = results.get("slice")
        if n == max(results["sizes"]) and sl and "ok" in sl:
            parts.append("slice check equal" if sl["ok"] else "slice check differs")
            oks.append(sl["ok"])
    else:
        ch = e.get("check")
        if ch:
            good = sum(1 for x in ch["checks"] if x["ok"] is not False)
            parts.append(f"{good}/{len(ch['checks'])} checks of what was planted")
            oks.append(ch["ok"])
    parts.append("runs identical" if r["runs_identical"] else "runs differ")
    return "; ".join(parts), all(oks)


def render_reports(L, results, sizes):
    L.append("### `report --json` against the floors")
    L.append("")
    L.append(f"| shape | receipts | DB | payload bytes | floor | checked floor | report best / median | ÷ floor | "
             f"÷ checked floor | peak RSS | CPU ÷ wall |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    runs = []
    for shape, _ in SHAPES:
        for n, e in sorted(shape_sizes(results, shape).items()):
            r = e["report"]
            fb = r.get("floor_detail", {}).get("bytes")
            ck = r.get("checked_floor_s")
            L.append(f"| {shape} | {label(n)} | {r['db_mb']:.0f} MB | {f1(fb and fb / 1e6, ' MB', 0)} | "
                     f"{r['floor_s'] * 1000:.0f} ms | {f1(ck and ck * 1000, ' ms', 0)} | "
                     f"{r['report_best_s']:.2f} / {r['report_median_s']:.2f} s | {r['ratio_best']:.1f}× | "
                     f"{f1(checked_ratio(r), '×')} | {r['report_rss_mb']:.0f} MB | {r['report_cpu_util']:.2f} |")
            runs.append(f"{shape} {label(n)}: floor " + ", ".join(f"{x * 1000:.0f}" for x in r["floor_runs"])
                        + " ms, checked " + ", ".join(f"{x * 1000:.0f}" for x in r.get("checked_floor_runs", []))
                        + " ms, report " + ", ".join(f"{x:.2f}" for x in r["report_runs"]) + " s")
    L.append("")
    L.append(f"Best of {results['runs']}, interleaved. Every run: " + "; ".join(runs) + ".")
    L.append("")


def render_screens(L, results, sizes):
    L.append("### The review screen (160×48 pseudo-terminal)")
    L.append("")
    L.append("| shape | receipts | first frame | analysis shown | all read | scroll p50 / p99 | filter p50 / p99 | "
             "letters p99 | settle p99 (scroll / filter) | no frame | peak RSS |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for shape, _ in SHAPES:
        for n, e in sorted(shape_sizes(results, shape).items()):
            t = e.get("tui")
            if not t:
                continue
            if "scroll" not in t:
                L.append(f"| {shape} | {label(n)} | {f1(t.get('first_frame_ms'), ' ms', 0)} | "
                         f"{t.get('error', 'not measured')} | | | | | | | |")
                continue
            sc, fl, le = t["scroll"], t["filter"], t["filter_letters"]
            shown = t.get("analysis_shown_median_ms", t.get("analysis_shown_ms"))
            L.append(f"| {shape} | {label(n)} | {t['first_frame_ms']:.0f} ms | {f1(shown and shown / 1000, ' s', 2)} | "
                     f"{f1(screen_done_ms(t) / 1000, ' s', 2)} | "
                     f"{f1(sc['frame']['p50'])} / {f1(sc['frame']['p99'], ' ms')} | "
                     f"{f1(fl['frame']['p50'])} / {f1(fl['frame']['p99'], ' ms')} | {f1(le['frame']['p99'], ' ms')} | "
                     f"{f1(sc['settle']['p99'], '', 0)} / {f1(fl['settle']['p99'], ' ms', 0)} | "
                     f"{sc['frame']['missing']} + {fl['frame']['missing']} of {sc['n']} + {fl['n']} | "
                     f"{f1(screen_peak_mb(t), ' MB', 0)} |")
    hf = results.get("harness_floor")
    if hf and "p50" in hf:
        L.append("")
        L.append(f"Harness floor (pty round trip to `cat`, included in every latency): p50 {hf['p50']:.2f} ms, "
                 f"p99 {hf['p99']:.2f} ms over {hf['n']} keys. Analysis shown / all read are medians of "
                 f"{results['runs']} starts, one in each round of the report.")
    L.append("")


def render_refreshes(L, results):
    refs = [(shape, refresh_of(results, shape)) for shape, _ in SHAPES]
    refs = [(s, r) for s, r in refs if r]
    if not refs:
        return
    L.append(f"### A refresh after appends ({label(refs[0][1].get('n', max(results['sizes'])))} receipts, in process)")
    L.append("")
    L.append("| shape | full reading | rounds of 1,000 appends | of which the screen's update (max) | "
             "selection kept | RSS after the last |")
    L.append("|---|---:|---|---:|---|---:|")
    for shape, ref in refs:
        if "error" in ref:
            L.append(f"| {shape} | {ref['error']} | | | | |")
            continue
        rs = ref["rounds"]
        L.append(f"| {shape} | {ref['full_ms']} ms ({ref['full_rss_mb']} MB) | "
                 + ", ".join(f"{x['ms']:.1f}" for x in rs) + " ms | "
                 f"{max(x['screen_ms'] for x in rs):.1f} ms | "
                 f"{sum(1 for x in rs if x['selection_kept'])}/{len(rs)} | {rs[-1]['rss_mb']} MB |")
    L.append("")


def render_forms(L, results, sizes):
    rows = [(n, results["by_size"].get(str(n), {}).get("forms")) for n in sizes]
    rows = [(n, f) for n, f in rows if f]
    if not rows:
        return
    L.append("### The Forms view after the analysis (demo, in process)")
    L.append("")
    L.append("| receipts | compute 24h / 7d / 30d / all | opening the tab | activity summary (first reading; "
             "a refresh) | forms, pathways |")
    L.append("|---:|---|---:|---|---|")
    for n, f in rows:
        if "error" in f:
            L.append(f"| {label(n)} | {f['error']} | | | |")
            continue
        c = f["compute_ms"]
        L.append(f"| {label(n)} | " + " / ".join(f"{c[k]:.1f}" for k in ("24h", "7d", "30d", "all"))
                 + f" ms | {f['open_tab_ms']:.1f} ms | {f['activity_ms']:.1f} ms; "
                 f"{f['activity_refresh_ms']:.1f} ms; {f['activity_bytes'] / 1e6:.2f} MB | "
                 f"{f['forms']}, {f['pathways']} |")
    L.append("")


def render_decisions(L, results):
    dec = results.get("decisions")
    if not dec:
        return
    L.append(f"### A decision while a writer inserts (demo, {label(dec.get('n', 0))} receipts)")
    L.append("")
    if "error" in dec:
        L.append(f"Not measured: {dec['error']}.")
        L.append("")
        return
    w = dec.get("writer") or {}
    wm, gw, lw = dec["wall_ms"] or {}, dec.get("write_ms") or {}, dec.get("lock_wait_ms") or {}
    L.append("| decisions | succeeded | `resolve` p50 / p99 | guarded write p50 / p99 | lock wait p99 | "
             "writer | review_log rows |")
    L.append("|---:|---:|---:|---:|---:|---|---:|")
    L.append(f"| {dec['decisions']} | {dec['succeeded']} | {f1(wm.get('p50'), '', 0)} / {f1(wm.get('p99'), ' ms', 0)} | "
             + (f"{f1(gw.get('p50'), '', 2)} / {f1(gw.get('p99'), ' ms', 2)} | {f1(lw.get('p99'), ' ms', 2)} | "
                if dec.get("strace") else "(no strace) | — | ")
             + f"{f1(w.get('rows_per_s'), ' rows/s', 0)}, {w.get('rows', '?')} rows, tx p99 "
             f"{f1(w.get('tx_ms_p99'), ' ms', 1)}, {w.get('busy_errors', '?')} busy errors | "
             f"{dec['review_log_rows']} |")
    L.append("")


def render_answers(L, results, sizes, big):
    L.append("### Answers")
    L.append("")
    L.append("| shape | receipts | checked | answers digest | runs identical | screen counts = report |")
    L.append("|---|---:|---|---|---|---|")
    for shape, _ in SHAPES:
        for n, e in sorted(shape_sizes(results, shape).items()):
            r = e["report"]
            pc = r.get("planted_check")
            if shape == "demo" and pc:
                cells = " / ".join(
                    (f"{pc[k]['found']}" if pc[k]["found"] == pc[k]["planted"]
                     else f"**{pc[k]['found']} ≠ {pc[k]['planted']}**")
                    for k in ("duplicate_groups", "conflicts", "stuck", "suspected_bots", "damaged"))
                cells = ("found = planted: " if r["planted_ok"] else "**found ≠ planted**: ") + cells \
                    + " (groups / conflicts / stuck / bot receipts / damaged)"
            else:
                cells, _ = answers_line(results, shape, n)
            screen = {True: "yes", False: "**no**"}.get((e.get("tui") or {}).get("counts_match_report"), "—")
            L.append(f"| {shape} | {label(n)} | {cells} | `{r['answers_digest']}` | "
                     f"{'yes' if r['runs_identical'] else '**no**'} | {screen} |")
    L.append("")
    mixed = shape_sizes(results, "mixed").get(big)
    if mixed and mixed.get("check"):
        ch = mixed["check"]
        L.append(f"Mixed database at {label(big)} ({ch['scopes']} scopes, {ch['noncanonical']} payloads stored "
                 "non-canonically), against what `scripts/gen_mixed.py` planted:")
        L.append("")
        L.append("| check | found | planted | ok |")
        L.append("|---|---:|---:|---|")
        for x in ch["checks"]:
            L.append(f"| {x['what']} | {x['found']} | {x['planted']} | {met(x['ok'])} |")
        L.append("")
    sl = results.get("slice")
    if sl:
        if "error" in sl:
            L.append(f"Slice check: failed to run ({sl['error']}).")
        else:
            cats = ", ".join(f"{c} {v['compared'] - v['differ']}/{v['compared']}" for c, v in sl["categories"].items())
            L.append(f"Slice check (demo, {label(big)}): receipts {sl['slice'][0]}–{sl['slice'][1]} analysed alone; "
                     f"items far from the slice's edges identical in both reports: {cats} — "
                     + ("**all equal**." if sl["ok"] else "**differences found** (see latest.json)."))
        L.append("")
    lg = results.get("legacy")
    if lg:
        if "error" in lg:
            L.append(f"Legacy table: failed to run ({lg['error']}).")
        else:
            szs = sorted(lg["sizes"].items(), key=lambda kv: int(kv[0]))
            (na, a), (nb, b) = szs[0], szs[-1]
            L.append("Legacy table (no `UNIQUE(scope, request_key)`, every receipt sharing its key with the next): "
                     + ", ".join(f"{label(int(n))} {v['report_best_s']:.2f} s ({v['conflicts']} conflicts)"
                                 for n, v in szs)
                     + f": {b['report_best_s'] / a['report_best_s']:.1f}× the time for "
                       f"{int(nb) / int(na):.0f}× the receipts.")
        L.append("")
