//! The intake benchmark's floor: the server's own durable inserts without
//! HTTP. CLIENTS tasks each check a JSON body into a job exactly as
//! `POST /f/{form}` does (`server::job::prepare`) and wait for the one
//! writer's group commit (WAL, `synchronous=FULL`), for SECONDS.
//!
//! `cargo run --release --example intake_floor -- DB CONFIG FORM CLIENTS SECONDS`
//! prints one JSON line: `{"kind":"floor","clients","accepted","errors",
//! "seconds","per_s","p50_ms","p99_ms","rss_mb"}`.

#[path = "common/peak_rss.rs"]
mod peak_rss;

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use receipt_review::model::time::now_ms;
use receipt_review::server::body::BodyType;
use receipt_review::server::job::prepare;
use receipt_review::server::writer::Outcome;
use receipt_review::server::{Config, open_writer};

use peak_rss::peak_rss_mb;

/// The body every load of the benchmark sends, made unique by `n`.
fn body(n: &str) -> String {
    format!(
        r#"{{"email":"v{n}@example.jp","name":"山田 花子","company":"株式会社サンプル","message":"お世話になっております。先日お問い合わせした件について、見積もりを改めてお願いできますでしょうか。納期は来月末を希望しています。{n}"}}"#
    )
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, config, form, clients, seconds] = args.as_slice() else {
        bail!("usage: intake_floor DB CONFIG FORM CLIENTS SECONDS");
    };
    let config = Config::load(config.as_ref()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let form = Arc::clone(
        config
            .forms
            .get(form)
            .context("no such form in the config")?,
    );
    let clients: usize = clients.parse().context("CLIENTS")?;
    let seconds: f64 = seconds.parse().context("SECONDS")?;
    // The server's own runtime: as many workers as cores.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let writer = open_writer(&db.as_str().into(), &config, Default::default())?;
    let request_timeout = config.server.request_timeout;
    let handle = writer.handle.clone();
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(seconds);
    let results = runtime.block_on(async move {
        let tasks: Vec<_> = (0..clients)
            .map(|c| {
                let (form, handle) = (Arc::clone(&form), handle.clone());
                tokio::spawn(async move {
                    let (mut times, mut errors) = (Vec::new(), 0u64);
                    let mut n = 0u64;
                    while Instant::now() < until {
                        n += 1;
                        let id = format!("{c}-{n}");
                        let t = Instant::now();
                        let job = prepare(
                            &form,
                            request_timeout,
                            BodyType::Json,
                            body(&id).as_bytes(),
                            Some(id),
                            now_ms(),
                        );
                        let ok = match job {
                            Ok(p) => {
                                matches!(handle.submit(p.job).await, Ok(Outcome::Stored { .. }))
                            }
                            Err(_) => false,
                        };
                        if ok {
                            times.push(t.elapsed());
                        } else {
                            errors += 1;
                        }
                    }
                    (times, errors)
                })
            })
            .collect();
        let mut all = (Vec::new(), 0u64);
        for t in tasks {
            let (times, errors) = t.await.expect("a client task");
            all.0.extend(times);
            all.1 += errors;
        }
        all
    });
    let elapsed = started.elapsed().as_secs_f64();
    drop(runtime);
    writer.finish();
    let (mut times, errors) = results;
    times.sort();
    println!(
        "{{\"kind\":\"floor\",\"clients\":{clients},\"accepted\":{},\"errors\":{errors},\"seconds\":{elapsed:.3},\"per_s\":{:.0},\"p50_ms\":{:.3},\"p99_ms\":{:.3},\"rss_mb\":{}}}",
        times.len(),
        times.len() as f64 / elapsed,
        percentile(&times, 0.50),
        percentile(&times, 0.99),
        peak_rss_mb()
    );
    Ok(())
}
