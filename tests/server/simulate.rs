//! `receipt-review simulate` against a real server on 127.0.0.1: what it
//! sends ends up in the database as the pathways it drew, the analysis finds
//! them, and the counts it prints are what the database holds. A bad
//! address, a missing form, an unreachable server, a server that goes away
//! and SIGTERM each end as they should.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::common::{bin, run};
use crate::support::TestServer;

/// The example config's contact form, its window on, no rate limit.
const CONFIG: &str = r#"
[server]
listen = "127.0.0.1:0"
rate = "off"

[forms.contact]
scope = "acme.example/contact"
fields = { name = 100, email = 254, company = 200, phone = 40, message = 5000 }
required = ["email", "message"]
extra = "keep"
window = "10m"
honeypot = "_gotcha"
"#;

/// The numbers of the summary's lines.
#[derive(Debug, Default)]
struct Printed {
    posts: i64,
    created: [i64; 3],
    see_other: [i64; 3],
    pending: i64,
    in_flight: i64,
    conflicts: i64,
    too_many: i64,
    refused: i64,
    server_errors: i64,
    no_answer: i64,
    receipts: i64,
    pages_failed: i64,
    lost: i64,
    pathways: HashMap<String, i64>,
}

fn printed(stdout: &str) -> Printed {
    let answers = regex::Regex::new(
        r"posts (\d+): 201 (\d+) \((\d+) replayed, (\d+) absorbed\) · 303 (\d+) \((\d+) replayed, (\d+) absorbed\) · 202 (\d+) · 409 (\d+) · 422 (\d+) · 429 (\d+) · other 4xx (\d+) · 5xx (\d+) · no answer (\d+)",
    )
    .unwrap();
    let c = answers
        .captures(stdout)
        .unwrap_or_else(|| panic!("no answers line in {stdout}"));
    let n = |i: usize| c[i].parse::<i64>().unwrap();
    let totals =
        regex::Regex::new(r"receipts (\d+) \(numbers first answered in this run\) · pages \d+ \((\d+) failed\) · answers lost on purpose (\d+)")
            .unwrap();
    let t = totals
        .captures(stdout)
        .unwrap_or_else(|| panic!("no totals line in {stdout}"));
    let pathways = stdout
        .lines()
        .find_map(|l| l.strip_prefix("pathways (visitors): "))
        .unwrap_or_else(|| panic!("no pathways line in {stdout}"))
        .split(", ")
        .map(|p| {
            let (id, count) = p.rsplit_once(' ').unwrap();
            (id.to_string(), count.parse().unwrap())
        })
        .collect();
    Printed {
        posts: n(1),
        created: [n(2), n(3), n(4)],
        see_other: [n(5), n(6), n(7)],
        pending: n(8),
        in_flight: n(9),
        conflicts: n(10),
        too_many: n(11),
        refused: n(12),
        server_errors: n(13),
        no_answer: n(14),
        receipts: t[1].parse().unwrap(),
        pages_failed: t[2].parse().unwrap(),
        lost: t[3].parse().unwrap(),
        pathways,
    }
}

fn payloads(s: &TestServer) -> Vec<(i64, Option<String>, Map<String, Value>)> {
    s.conn()
        .prepare("SELECT id, request_key, payload FROM receipts ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            let payload: String = r.get(2)?;
            Ok((r.get(0)?, r.get(1)?, payload))
        })
        .unwrap()
        .map(|r| {
            let (id, key, payload) = r.unwrap();
            let Value::Object(map) = serde_json::from_str(&payload).unwrap() else {
                panic!("{payload}")
            };
            (id, key, map)
        })
        .collect()
}

fn text<'a>(p: &'a Map<String, Value>, field: &str) -> &'a str {
    p.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The visitor's own fields that are filled in.
fn filled(p: &Map<String, Value>) -> BTreeSet<&str> {
    ["name", "email", "company", "phone", "message"]
        .into_iter()
        .filter(|f| !text(p, f).is_empty())
        .collect()
}

#[test]
fn a_short_run_writes_every_pathway_and_prints_what_the_database_holds() {
    let s = TestServer::with_config(CONFIG);
    let out = run(&[
        "simulate",
        &s.url,
        "--seconds",
        "2",
        "--rate",
        "12",
        "--seed",
        "23",
        "--reload-after",
        "2s",
        "--resend-after",
        "2s",
    ]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("done: "), "{stdout}");
    assert!(stderr.contains("(seed 23; bots fill _gotcha)"), "{stderr}");
    let p = printed(&stdout);

    // Every answer came and was one the protocol gives without an action.
    assert_eq!(
        (
            p.pending,
            p.in_flight,
            p.too_many,
            p.refused,
            p.server_errors,
            p.no_answer,
            p.pages_failed
        ),
        (0, 0, 0, 0, 0, 0, 0),
        "{stdout}"
    );
    assert_eq!(
        p.posts,
        p.created[0] + p.see_other[0] + p.conflicts,
        "{stdout}"
    );
    for id in [
        "single",
        "second_click",
        "retry_same_key",
        "retry_new_key",
        "reload",
        "two_handlers",
        "edited_resend",
        "follow_up",
        "honeypot_bot",
        "bot_campaign",
    ] {
        assert!(
            p.pathways.get(id).is_some_and(|&n| n >= 1),
            "{id}: {stdout}"
        );
    }

    // The printed counts are what the database holds.
    let [receipts, conflicts, replays, absorbed] = s.counts();
    assert_eq!(p.receipts, receipts, "{stdout}");
    assert_eq!(p.created[1] + p.see_other[1], replays, "{stdout}");
    assert_eq!(p.created[2] + p.see_other[2], absorbed, "{stdout}");
    assert_eq!(p.conflicts, conflicts, "{stdout}");
    assert!(
        p.lost >= 2,
        "a lost answer before each kind of retry: {stdout}"
    );
    assert!(replays >= 2 && absorbed >= 2, "{stdout}");
    let absorbed_keys: i64 = s
        .conn()
        .query_row(
            "SELECT count(*) FROM absorbed WHERE request_key IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        absorbed_keys >= 1,
        "a retry with a regenerated key was absorbed"
    );

    let rows = payloads(&s);
    // Bots: a filled honeypot, and one body from three or more senders.
    assert!(rows.iter().any(|(_, _, p)| !text(p, "_gotcha").is_empty()));
    let mut senders: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for (_, _, p) in &rows {
        senders
            .entry(text(p, "message"))
            .or_default()
            .insert(text(p, "email"));
    }
    assert!(senders.values().any(|e| e.len() >= 3), "a campaign");
    // Genuine follow-ups: one email, different messages.
    let mut by_email: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for (_, _, p) in &rows {
        by_email
            .entry(text(p, "email"))
            .or_default()
            .insert(text(p, "message"));
    }
    assert!(by_email.values().any(|m| m.len() >= 2), "a follow-up");
    // Two handlers: a half-empty copy beside a whole one.
    let half = rows.iter().any(|(_, _, a)| {
        rows.iter().any(|(_, _, b)| {
            text(a, "email") == text(b, "email")
                && text(a, "message") == text(b, "message")
                && filled(a).len() < filled(b).len()
                && filled(a).is_subset(&filled(b))
        })
    });
    assert!(half, "a half-empty copy");
    // Scripts add their own fields; none is a visitor's, so none stopped
    // an exact copy being absorbed.
    assert!(rows.iter().any(|(_, _, p)| p.contains_key("submitted_at")));
    // Plain form posts carry their page's key; it is not stored as a field.
    assert!(rows.iter().all(|(_, _, p)| !p.contains_key("_key")));

    // The analysis finds the kinds of pathway it was sent.
    let report = run(&["report", s.path().to_str().unwrap(), "--json"]);
    assert_eq!(report.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(v["counts"]["receipts"], receipts);
    assert_eq!(v["counts"]["replays"], replays);
    assert_eq!(v["counts"]["conflicts"], conflicts);
    let groups = v["duplicates"].as_array().unwrap();
    let has = |class: &str, kind: &str| {
        groups.iter().any(|g| {
            g["class"] == class
                && g["members"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["match"] == kind)
        })
    };
    assert!(has("simultaneous", "partial"), "two handlers: {groups:#?}");
    assert!(has("seconds", "edited"), "a corrected resend: {groups:#?}");
    assert!(
        groups.iter().all(|g| g["members"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["match"] != "exact" || m == &g["members"][0])),
        "no exact copy got past the window: {groups:#?}"
    );
    assert!(v["suspected_bots"].as_array().unwrap().len() >= 4);
    let pathways: BTreeSet<&str> = v["forms"][0]["pathways"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pathway"].as_str().unwrap())
        .collect();
    for id in ["two_handlers", "edited_resend", "bots", "retries_absorbed"] {
        assert!(pathways.contains(id), "{id}: {pathways:?}");
    }
}

#[test]
fn a_bad_address_is_one_line_and_exit_2() {
    for url in [
        "https://127.0.0.1:8080",
        "127.0.0.1:8080",
        "http://h:99999",
        "http://",
    ] {
        let out = run(&["simulate", url, "--seconds", "1"]);
        assert_eq!(out.status.code(), Some(2), "{url}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("simulate --help"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    let out = run(&["simulate", "http://127.0.0.1:1", "--rate", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_unreachable_server_is_a_clear_line_and_exit_1() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run(&["simulate", &format!("http://127.0.0.1:{port}")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot reach http://127.0.0.1:"),
        "{stderr}"
    );
    assert!(stderr.contains("serve running"), "{stderr}");
}

#[test]
fn a_form_the_server_does_not_have_is_exit_2() {
    let s = TestServer::with_config(CONFIG);
    let out = run(&["simulate", &format!("{}/f/nope", s.url)]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("there is no form nope"), "{stderr}");
    assert_eq!(s.count("receipts"), 0);
}

/// The simulator running until stopped.
struct Simulating(Child);

impl Simulating {
    fn start(url: &str) -> Self {
        Self(
            bin()
                .args(["simulate", url, "--seconds", "0", "--rate", "20", "--quiet"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        )
    }

    /// Exit code, stdout, stderr, once it ends (within `limit`).
    fn wait(&mut self, limit: Duration) -> (Option<i32>, String, String) {
        let began = Instant::now();
        let status = loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                break status;
            }
            assert!(began.elapsed() < limit, "still running after {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut out = String::new();
        let mut err = String::new();
        self.0
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        self.0
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (status.code(), out, err)
    }
}

impl Drop for Simulating {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn sigterm_stops_the_run_with_its_summary() {
    let s = TestServer::with_config(CONFIG);
    let mut sim = Simulating::start(&s.url);
    crate::support::wait_for(|| s.count("receipts") >= 10, "ten receipts");
    unsafe {
        libc::kill(sim.0.id() as i32, libc::SIGTERM);
    }
    let (code, stdout, stderr) = sim.wait(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("stopped: "), "{stdout}");
    let p = printed(&stdout);
    assert!(p.posts >= 10, "{stdout}");
    assert_eq!(p.no_answer, 0, "{stdout}");
    assert_eq!(p.receipts, s.count("receipts"), "{stdout}");
    assert!(stdout.contains("not sent "), "{stdout}");
}

#[test]
fn a_server_that_goes_away_is_counted_and_the_run_stops() {
    let mut s = TestServer::with_config(CONFIG);
    let mut sim = Simulating::start(&s.url);
    crate::support::wait_for(|| s.count("receipts") >= 1, "a receipt");
    s.running.take().unwrap().stop().unwrap();
    let (code, stdout, stderr) = sim.wait(Duration::from_secs(30));
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.starts_with("stopped, the server went away: "),
        "{stdout}"
    );
    let p = printed(&stdout);
    assert!(p.no_answer >= 1, "{stdout}");
    assert!(
        stderr.contains("has not answered for 5 s; stopped"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}
