//! The intake benchmark's retry storm: every submission sent three times
//! with the same key and body, and a share of the answers dropped after the
//! server has sent them (the client closes its connection unread, as when a
//! response is lost on its way back). The database must then hold exactly
//! one receipt per key, and every answer a key got must be the same bytes.
//!
//! `cargo run --release --example retry_storm -- URL DB KEYS CLIENTS DROP_PERCENT`
//! (URL like `http://127.0.0.1:8080/f/contact`) prints one JSON line:
//! `{"kind":"retry_storm","keys","sends","dropped","answered","statuses",
//! "receipts","keys_with_two_receipts","answered_keys_without_receipt",
//! "keys_with_differing_answers","seconds","per_s"}`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SENDS_PER_KEY: u64 = 3;

/// The same body as the other loads of the benchmark.
fn body(n: &str) -> String {
    format!(
        r#"{{"email":"v{n}@example.jp","name":"山田 花子","company":"株式会社サンプル","message":"お世話になっております。先日お問い合わせした件について、見積もりを改めてお願いできますでしょうか。納期は来月末を希望しています。{n}"}}"#
    )
}

/// A well-mixed number from `x`: which sends are dropped, the same in every run.
fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

struct Target {
    host: String,
    path: String,
}

/// One answer: its status and its body.
type Answer = (u16, Vec<u8>);

/// Reads one response of a keep-alive connection.
async fn read_answer(conn: &mut TcpStream, buf: &mut Vec<u8>) -> anyhow::Result<Answer> {
    buf.clear();
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            bail!("the connection closed before an answer");
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = std::str::from_utf8(&buf[..head_end]).context("answer head")?;
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .context("status line")?;
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let mut chunk = [0u8; 4096];
        let n = conn.read(&mut chunk).await?;
        if n == 0 {
            bail!("the connection closed inside an answer");
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok((status, buf[head_end..head_end + length].to_vec()))
}

struct Tally {
    sends: u64,
    dropped: u64,
    answers: HashMap<String, Vec<Answer>>,
}

async fn client(
    target: Arc<Target>,
    next: Arc<AtomicU64>,
    keys: u64,
    drop_percent: u64,
    run: u64,
) -> anyhow::Result<Tally> {
    let mut tally = Tally {
        sends: 0,
        dropped: 0,
        answers: HashMap::new(),
    };
    let mut conn: Option<TcpStream> = None;
    let mut buf = Vec::new();
    loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= keys {
            return Ok(tally);
        }
        let key = format!("storm-{run}-{k}");
        let text = body(&key);
        let request = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nIdempotency-Key: \"{key}\"\r\nContent-Length: {}\r\n\r\n{text}",
            target.path,
            target.host,
            text.len()
        );
        for attempt in 0..SENDS_PER_KEY {
            let c = match conn.as_mut() {
                Some(c) => c,
                None => conn.insert(TcpStream::connect(&target.host).await?),
            };
            c.set_nodelay(true)?;
            c.write_all(request.as_bytes()).await?;
            tally.sends += 1;
            if splitmix(k * SENDS_PER_KEY + attempt) % 100 < drop_percent {
                // The answer is on its way back: close without reading it.
                c.readable().await?;
                conn = None;
                tally.dropped += 1;
                continue;
            }
            let answer = read_answer(c, &mut buf).await?;
            tally.answers.entry(key.clone()).or_default().push(answer);
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, db, keys, clients, drop_percent] = args.as_slice() else {
        bail!("usage: retry_storm URL DB KEYS CLIENTS DROP_PERCENT");
    };
    let rest = url
        .strip_prefix("http://")
        .context("the URL must start with http://")?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let target = Arc::new(Target {
        host: host.to_string(),
        path: if path.is_empty() { "/" } else { path }.to_string(),
    });
    let keys: u64 = keys.parse().context("KEYS")?;
    let clients: u64 = clients.parse().context("CLIENTS")?;
    let drop_percent: u64 = drop_percent.parse().context("DROP_PERCENT")?;
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as u64;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let tallies = runtime.block_on(async {
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                tokio::spawn(client(
                    Arc::clone(&target),
                    Arc::clone(&next),
                    keys,
                    drop_percent,
                    run,
                ))
            })
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await??);
        }
        anyhow::Ok(all)
    })?;
    let seconds = started.elapsed().as_secs_f64();
    // Give the server's last commits a moment before reading the database.
    std::thread::sleep(Duration::from_millis(200));

    let (mut sends, mut dropped) = (0, 0);
    let mut answers: HashMap<String, Vec<Answer>> = HashMap::new();
    for t in tallies {
        sends += t.sends;
        dropped += t.dropped;
        answers.extend(t.answers);
    }
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let mut differing = 0;
    for list in answers.values() {
        for (status, _) in list {
            *statuses.entry(*status).or_default() += 1;
        }
        if list.windows(2).any(|w| w[0] != w[1]) {
            differing += 1;
        }
    }
    let conn = rusqlite::Connection::open(db)?;
    let prefix = format!("storm-{run}-%");
    let per_key: HashMap<String, i64> = conn
        .prepare(
            "SELECT request_key, count(*) FROM receipts WHERE request_key LIKE ?1 GROUP BY request_key",
        )?
        .query_map([&prefix], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let receipts: i64 = per_key.values().sum();
    let twice = per_key.values().filter(|&&n| n > 1).count();
    let missing = answers
        .iter()
        .filter(|(k, list)| {
            list.iter().any(|(s, _)| *s == 201) && !per_key.contains_key(k.as_str())
        })
        .count();
    let statuses = statuses
        .iter()
        .map(|(s, n)| format!("\"{s}\":{n}"))
        .collect::<Vec<_>>()
        .join(",");
    println!(
        "{{\"kind\":\"retry_storm\",\"keys\":{keys},\"sends\":{sends},\"dropped\":{dropped},\"answered\":{},\"statuses\":{{{statuses}}},\"receipts\":{receipts},\"keys_with_two_receipts\":{twice},\"answered_keys_without_receipt\":{missing},\"keys_with_differing_answers\":{differing},\"seconds\":{seconds:.3},\"per_s\":{:.0}}}",
        sends - dropped,
        sends as f64 / seconds
    );
    Ok(())
}
