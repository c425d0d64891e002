//! A hand-built reading of a receipts database for the `update` and `view`
//! tests.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use receipt_review::i18n::Lang;
use receipt_review::model::{Millis, ReceiptState, Settings};
use receipt_review::reading::{ItemReview, LogLine, Snapshot};
use receipt_review::triage::activity::Activity;
use receipt_review::triage::model::{
    Attempt, AttemptSource, BotEvidence, BotGroup, BotReceipt, Conflict, DamageReason, Damaged,
    DuplicateGroup, GapClass, MatchKind, Member, Receipt, Stuck, Triage, VisitorFields,
};
use receipt_review::tui::app::indexed::IndexedSnapshot;
use receipt_review::tui::app::msg::{Effect, ItemDecision, Msg, PayloadRef};
use receipt_review::tui::app::{App, update};
use receipt_review::tui::canvas::draw;

/// 2026-11-29T10:15:30.123Z
pub const T0: Millis = 1_795_947_330_123;
pub const MIN: Millis = 60_000;
pub const NOW: Millis = T0 + 120 * MIN;

pub struct Fixture {
    pub snapshot: Snapshot,
    pub payloads: HashMap<PayloadRef, String>,
}

fn visitor(fields: &[(&str, &str)]) -> VisitorFields {
    let mut v: Vec<(String, String)> = fields
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    v.sort();
    VisitorFields(v)
}

fn receipt(
    id: i64,
    scope: &str,
    key: Option<&str>,
    created_ms: Millis,
    state: ReceiptState,
    fields: &[(&str, &str)],
) -> Receipt {
    Receipt {
        id,
        scope: scope.into(),
        request_key: key.map(Into::into),
        digest: format!("{id:064x}"),
        state,
        created_ms,
        updated_ms: None,
        visitor: visitor(fields),
        honeypot_filled: false,
    }
}

fn member(id: i64, match_kind: MatchKind, fields: &[&str]) -> Member {
    Member {
        id,
        match_kind,
        fields: fields.iter().map(|f| f.to_string()).collect(),
        sentence_changes: Vec::new(),
    }
}

fn group(scope: &str, members: Vec<Member>, gaps_ms: Vec<Millis>) -> Arc<DuplicateGroup> {
    let largest = gaps_ms.iter().copied().max().unwrap_or(0);
    Arc::new(DuplicateGroup {
        scope: scope.into(),
        class: GapClass::of_gap(largest),
        members,
        gaps_ms,
    })
}

fn log(
    id: i64,
    item: &str,
    decision: &str,
    operator: &str,
    at: Millis,
    receipt_ids: &[i64],
) -> LogLine {
    LogLine {
        id,
        item: item.into(),
        kind: item.split(':').next().unwrap_or("").into(),
        decision: decision.into(),
        operator: operator.into(),
        decided_at_ms: Some(at),
        receipt_ids: receipt_ids.to_vec(),
        note: None,
        reopens: None,
        kept: None,
        batch: None,
    }
}

const JP: &str = "site-jp/お問い合わせ";
const SITE_A: &str = "site-a/contact";

/// The English and Japanese reading used by most tests:
///
/// - `dup:120` (minutes, edited, Japanese): resolved as correction by hanako;
/// - `dup:110` (seconds, partial, Japanese): pending — the first pending group;
/// - `dup:101` (simultaneous, exact, English): pending, decided then undone;
/// - `dup:130` (seconds, exact, 3 copies): resolved, then a new copy arrived;
/// - `dup:140` (minutes, exact): pending;
/// - `conflict:150` with two refused attempts; `stuck:160`; three damaged rows.
pub fn fixture() -> Fixture {
    fixture_with(Vec::new(), Vec::new(), None)
}

/// The fixture of a database that counts the exact copies its intake
/// absorbed: two of `dup:101`'s second copy (#102, which also has a replay),
/// one of `conflict:150`'s original and three of `stuck:160`'s receipt.
pub fn absorbed_fixture() -> Fixture {
    let absorbed = HashMap::from([(102, 2), (150, 1), (160, 3)]);
    fixture_with(Vec::new(), Vec::new(), Some(absorbed))
}

/// The fixture with bot groups: a campaign posted to two forms by three
/// senders (one of them also filling a honeypot), and a scanner's empty
/// submissions.
pub fn bots_fixture() -> Fixture {
    let spam = "boost your search ranking today with our seo package";
    let at = |m: i64| T0 + 90 * MIN + m * 1_000;
    let sent = |n: u32| format!("bot{n}@spam.example");
    let bots = vec![
        receipt(
            201,
            SITE_A,
            None,
            at(0),
            ReceiptState::Completed,
            &[("email", &sent(1)), ("message", spam)],
        ),
        receipt(
            202,
            "site-b/quote",
            None,
            at(2),
            ReceiptState::Completed,
            &[("email", &sent(2)), ("message", spam)],
        ),
        receipt(
            203,
            SITE_A,
            None,
            at(5),
            ReceiptState::Completed,
            &[("email", &sent(3)), ("message", spam)],
        ),
        receipt(210, SITE_A, None, at(600), ReceiptState::Completed, &[]),
        receipt(211, SITE_A, None, at(660), ReceiptState::Completed, &[]),
    ];
    let groups = vec![
        Arc::new(BotGroup {
            evidence: BotEvidence::Campaign,
            receipts: vec![
                BotReceipt {
                    id: 201,
                    created_ms: at(0),
                    scope: 0,
                },
                BotReceipt {
                    id: 202,
                    created_ms: at(2),
                    scope: 1,
                },
                BotReceipt {
                    id: 203,
                    created_ms: at(5),
                    scope: 0,
                },
            ],
            senders: 3,
            scopes: vec![SITE_A.into(), "site-b/quote".into()],
        }),
        Arc::new(BotGroup {
            evidence: BotEvidence::Empty,
            receipts: vec![
                BotReceipt {
                    id: 210,
                    created_ms: at(600),
                    scope: 0,
                },
                BotReceipt {
                    id: 211,
                    created_ms: at(660),
                    scope: 0,
                },
            ],
            senders: 0,
            scopes: vec![SITE_A.into()],
        }),
    ];
    fixture_with(bots, groups, None)
}

/// `absorbed`: the copies absorbed per receipt, when the database counts them.
fn fixture_with(
    bots: Vec<Receipt>,
    bot_groups: Vec<Arc<BotGroup>>,
    absorbed: Option<HashMap<i64, u32>>,
) -> Fixture {
    use ReceiptState::*;
    let mut payloads = HashMap::new();
    let mut put = |r: PayloadRef, json: &str| {
        payloads.insert(r, json.to_string());
    };
    let rc = PayloadRef::Receipt;
    let alice_msg = "Hello, I would like a quote for 20 chairs and 4 tables, delivered before the end of the month.";
    put(
        rc(101),
        &format!(
            r#"{{"_token":"t1","email":"alice@example.com","message":"{alice_msg}","name":"Alice Smith"}}"#
        ),
    );
    put(
        rc(102),
        &format!(
            r#"{{"_token":"t2","email":"alice@example.com","message":"{alice_msg}","name":"Alice Smith"}}"#
        ),
    );
    put(
        rc(110),
        r#"{"email":"taro@example.jp","message":"お見積もりをお願いします。会議室用の椅子を20脚、机を4台です。","name":"山田太郎","phone":"03-1234-5678"}"#,
    );
    put(
        rc(111),
        r#"{"email":"taro@example.jp","message":"お見積もりをお願いします。会議室用の椅子を20脚、机を4台です。","name":"山田太郎"}"#,
    );
    put(
        rc(120),
        r#"{"email":"hanako@example.jp","message":"明日の午後に電話をください。","name":"佐藤花子"}"#,
    );
    put(
        rc(121),
        r#"{"email":"hanako@example.jp","message":"明日の午前中に電話をください。","name":"佐藤花子"}"#,
    );
    put(
        rc(130),
        r#"{"email":"bob@example.com","message":"Please call me back.","name":"Bob Jones"}"#,
    );
    put(
        rc(131),
        r#"{"email":"bob@example.com","message":"Please call me back.","name":"bob  JONES"}"#,
    );
    put(
        rc(132),
        r#"{"email":"bob@example.com","message":"Please call me back.","name":"Bob Jones"}"#,
    );
    put(
        rc(140),
        r#"{"company":"Acme","email":"carol@example.com","message":"Quote please","name":"Carol"}"#,
    );
    put(
        rc(141),
        r#"{"company":"Acme","email":"carol@example.com","message":"Quote please","name":"Carol"}"#,
    );
    put(
        rc(150),
        r#"{"email":"dave@example.com","message":"Order 2 boxes","name":"Dave"}"#,
    );
    put(
        PayloadRef::KeyConflict(3),
        r#"{"email":"dave@example.com","message":"Order 3 boxes","name":"Dave"}"#,
    );
    put(
        PayloadRef::KeyConflict(4),
        r#"{"email":"dave@example.com","message":"Order 3 boxes, express","name":"Dave","phone":"555-0100"}"#,
    );
    put(
        rc(160),
        r#"{"amount":"1200","email":"erin@example.com","name":"Erin"}"#,
    );
    put(rc(170), r#"[1,2,3]"#);

    let alice = [
        ("email", "alice@example.com"),
        (
            "message",
            "hello, i would like a quote for 20 chairs and 4 tables, delivered before the end of the month.",
        ),
        ("name", "alice smith"),
    ];
    let taro_msg = "お見積もりをお願いします。会議室用の椅子を20脚、机を4台です。";
    let bob = [
        ("email", "bob@example.com"),
        ("message", "please call me back."),
        ("name", "bob jones"),
    ];
    let carol = [
        ("company", "acme"),
        ("email", "carol@example.com"),
        ("message", "quote please"),
        ("name", "carol"),
    ];
    let mut receipts = vec![
        receipt(
            101,
            SITE_A,
            Some("k-101a"),
            T0 + 30 * MIN,
            Completed,
            &alice,
        ),
        receipt(
            102,
            SITE_A,
            Some("k-102b"),
            T0 + 30 * MIN + 300,
            Completed,
            &alice,
        ),
        receipt(
            110,
            JP,
            Some("k-110"),
            T0 + 20 * MIN,
            Completed,
            &[
                ("email", "taro@example.jp"),
                ("message", taro_msg),
                ("name", "山田太郎"),
                ("phone", "03-1234-5678"),
            ],
        ),
        receipt(
            111,
            JP,
            None,
            T0 + 20 * MIN + 2_300,
            Completed,
            &[
                ("email", "taro@example.jp"),
                ("message", taro_msg),
                ("name", "山田太郎"),
            ],
        ),
        receipt(
            120,
            JP,
            Some("k-120"),
            T0,
            Completed,
            &[
                ("email", "hanako@example.jp"),
                ("message", "明日の午後に電話をください。"),
                ("name", "佐藤花子"),
            ],
        ),
        receipt(
            121,
            JP,
            Some("k-121"),
            T0 + 250_000,
            Completed,
            &[
                ("email", "hanako@example.jp"),
                ("message", "明日の午前中に電話をください。"),
                ("name", "佐藤花子"),
            ],
        ),
        receipt(130, SITE_A, Some("k-130"), T0 + 40 * MIN, Completed, &bob),
        receipt(
            131,
            SITE_A,
            Some("k-131"),
            T0 + 40 * MIN + 5_000,
            Completed,
            &bob,
        ),
        receipt(
            132,
            SITE_A,
            Some("k-132"),
            T0 + 40 * MIN + 17_000,
            Completed,
            &bob,
        ),
        receipt(
            140,
            "site-b/quote",
            Some("k-140"),
            T0 + 50 * MIN,
            Completed,
            &carol,
        ),
        receipt(
            141,
            "site-b/quote",
            Some("k-141"),
            T0 + 53 * MIN,
            Completed,
            &carol,
        ),
        receipt(
            150,
            "site-a/orders",
            Some("order-7f3a"),
            T0 + 60 * MIN,
            Completed,
            &[
                ("email", "dave@example.com"),
                ("message", "order 2 boxes"),
                ("name", "dave"),
            ],
        ),
        receipt(
            160,
            "site-a/payments",
            Some("pay-9c1e"),
            NOW - 65 * MIN,
            InFlight,
            &[
                ("amount", "1200"),
                ("email", "erin@example.com"),
                ("name", "erin"),
            ],
        ),
    ];

    let triage = Triage {
        duplicates: vec![
            group(
                JP,
                vec![
                    member(120, MatchKind::Exact, &[]),
                    member(121, MatchKind::Edited, &["message"]),
                ],
                vec![250_000],
            ),
            group(
                JP,
                vec![
                    member(110, MatchKind::Exact, &[]),
                    member(111, MatchKind::Partial, &["phone"]),
                ],
                vec![2_300],
            ),
            group(
                SITE_A,
                vec![
                    member(101, MatchKind::Exact, &[]),
                    member(102, MatchKind::Exact, &[]),
                ],
                vec![300],
            ),
            group(
                SITE_A,
                vec![
                    member(130, MatchKind::Exact, &[]),
                    member(131, MatchKind::Exact, &[]),
                    member(132, MatchKind::Exact, &[]),
                ],
                vec![5_000, 12_000],
            ),
            group(
                "site-b/quote",
                vec![
                    member(140, MatchKind::Exact, &[]),
                    member(141, MatchKind::Exact, &[]),
                ],
                vec![3 * MIN],
            ),
        ],
        conflicts: vec![Arc::new(Conflict {
            receipt_id: 150,
            scope: "site-a/orders".into(),
            request_key: "order-7f3a".into(),
            attempts: vec![
                Attempt {
                    source: AttemptSource::KeyConflicts,
                    id: 3,
                    at_ms: Some(T0 + 65 * MIN),
                    digest: "d3".into(),
                },
                Attempt {
                    source: AttemptSource::KeyConflicts,
                    id: 4,
                    at_ms: Some(T0 + 66 * MIN),
                    digest: "d4".into(),
                },
            ],
        })],
        stuck: vec![Stuck {
            receipt_id: 160,
            scope: "site-a/payments".into(),
            request_key: Some("pay-9c1e".into()),
            age_ms: 65 * MIN,
        }],
        next_stuck_ms: None,
        suspected_bots: bots.iter().map(|r| r.id).collect(),
        bot_groups,
        damaged: vec![
            Damaged {
                receipt_id: 170,
                reason: DamageReason::Payload,
                detail: "payload is not a JSON object".into(),
            },
            Damaged {
                receipt_id: 171,
                reason: DamageReason::Time,
                detail: "unrecognised time \"yesterday\"".into(),
            },
            Damaged {
                receipt_id: 172,
                reason: DamageReason::Digest,
                detail: "stored digest does not match the payload".into(),
            },
        ],
    };

    let mut reviews = HashMap::new();
    reviews.insert(
        "dup:120".to_string(),
        ItemReview {
            resolved: true,
            decision: Some("correction".into()),
            operator: Some("hanako".into()),
            decided_at_ms: Some(T0 + 60 * MIN),
            note: Some("2通目が正しい内容です".into()),
            new_copy_since_decision: false,
            last_log_id: Some(2),
            kept: Some(121),
        },
    );
    reviews.insert(
        "dup:130".to_string(),
        ItemReview {
            resolved: false,
            decision: Some("duplicate".into()),
            operator: Some("alice".into()),
            decided_at_ms: Some(T0 + 45 * MIN),
            note: None,
            new_copy_since_decision: true,
            last_log_id: Some(1),
            kept: Some(130),
        },
    );
    reviews.insert(
        "dup:101".to_string(),
        ItemReview {
            resolved: false,
            decision: None,
            operator: None,
            decided_at_ms: None,
            note: None,
            new_copy_since_decision: false,
            last_log_id: Some(4),
            kept: None,
        },
    );
    let log = vec![
        LogLine {
            kept: Some(130),
            ..log(
                1,
                "dup:130",
                "duplicate",
                "alice",
                T0 + 45 * MIN,
                &[130, 131],
            )
        },
        LogLine {
            note: Some("2通目が正しい内容です".into()),
            kept: Some(121),
            ..log(
                2,
                "dup:120",
                "correction",
                "hanako",
                T0 + 60 * MIN,
                &[120, 121],
            )
        },
        log(
            3,
            "dup:101",
            "duplicate",
            "alice",
            T0 + 70 * MIN,
            &[101, 102],
        ),
        LogLine {
            note: Some("wrong group".into()),
            reopens: Some(3),
            ..log(
                4,
                "dup:101",
                "reopened",
                "alice",
                T0 + 71 * MIN,
                &[101, 102],
            )
        },
    ];

    receipts.extend(bots);
    let mut replays = HashMap::new();
    replays.insert(102, 1);
    replays.insert(150, 2);
    replays.insert(160, 2);
    let absorbed_total = absorbed
        .as_ref()
        .map(|per| per.values().map(|&n| u64::from(n)).sum());
    let absorbed = absorbed.unwrap_or_default();
    let activity = Activity::of_receipts(&receipts, &triage, &replays, &absorbed).into();
    Fixture {
        snapshot: Snapshot {
            database: PathBuf::from("/srv/intake/receipts.db").into(),
            read_only: None,
            state_changes_off: None,
            settings: Settings::new(NOW),
            receipt_count: receipts.len(),
            receipts: receipts.into(),
            receipts_pending: false,
            replays,
            replay_total: 5,
            absorbed,
            absorbed_total,
            triage: triage.into(),
            reviews,
            activity,
            log,
            latest_erasure: None,
            erased_receipts: 0,
        },
        payloads,
    }
}

pub fn key(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub fn code(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Feeds the payloads that `effects` asked for, as the runtime would.
pub fn answer(app: &mut App, payloads: &HashMap<PayloadRef, String>, effects: &[Effect]) {
    for effect in effects {
        if let Effect::LoadPayloads(refs) = effect {
            let list = refs
                .iter()
                .map(|r| {
                    let text = payloads
                        .get(r)
                        .cloned()
                        .ok_or_else(|| "no such row".to_string());
                    (*r, text)
                })
                .collect();
            let more = update(app, Msg::Payloads(list));
            assert!(more.is_empty(), "{more:?}");
        }
    }
}

/// Sends a message and answers its payload requests; returns the other effects.
pub fn send(app: &mut App, fx: &Fixture, msg: Msg) -> Vec<Effect> {
    let effects = update(app, msg);
    answer(app, &fx.payloads, &effects);
    effects
        .into_iter()
        .filter(|e| !matches!(e, Effect::LoadPayloads(_)))
        .collect()
}

/// An app at `width`×`height` that has read the fixture (payloads answered).
pub fn loaded(fx: &Fixture, width: u16, height: u16, no_color: bool) -> App {
    loaded_with(App::new(no_color), fx, width, height)
}

/// [`loaded`], its words in `lang`.
pub fn loaded_in(lang: Lang, fx: &Fixture, width: u16, height: u16) -> App {
    loaded_with(App::new(false).with_lang(lang), fx, width, height)
}

fn loaded_with(app: App, fx: &Fixture, width: u16, height: u16) -> App {
    let mut app = app.with_operator("alice");
    update(&mut app, Msg::Resize { width, height });
    send(
        &mut app,
        fx,
        Msg::Loaded(IndexedSnapshot::new(fx.snapshot.clone())),
    );
    app
}

/// What `D` sends for a reading: every exact group as a duplicate, the
/// copy kept left to the worker.
pub fn every_exact_group_as_duplicate(snapshot: &Snapshot) -> Vec<ItemDecision> {
    snapshot
        .triage
        .duplicates
        .iter()
        .filter(|g| g.is_exact())
        .map(|g| ItemDecision {
            item: g.item(),
            decision: "duplicate".into(),
            receipt_ids: g.receipt_ids(),
            note: None,
            expected_last: None,
            kept: None,
        })
        .collect()
}

/// A worker on a fresh 1,500-receipt demo database in `dir` (demo `seed`,
/// as of [`DEMO_NOW`]), and the channel it answers on.
pub fn demo_worker(
    dir: &std::path::Path,
    seed: u64,
    read_only: bool,
    operator: &str,
    lang: Lang,
) -> (
    receipt_review::tui::collection::Worker,
    std::sync::mpsc::Receiver<Msg>,
) {
    use receipt_review::demo::{DemoOptions, generate};
    use receipt_review::tui::collection::{Worker, WorkerConfig};
    let path = dir.join("worker.db");
    let options = DemoOptions {
        receipts: 1_500,
        seed,
        now_ms: DEMO_NOW,
    };
    let location = path.into();
    generate(&location, &options).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let config = WorkerConfig {
        location,
        read_only,
        settings: Settings::new(DEMO_NOW),
        fixed_now: Some(DEMO_NOW),
        operator: operator.into(),
        export_dir: dir.to_path_buf(),
        lang,
    };
    (Worker::start(config, tx).unwrap(), rx)
}

/// The demo databases' "now": 2026-11-29T10:15:30.123Z.
pub const DEMO_NOW: Millis = 1_795_947_330_123;

/// The worker's next message that is not a reading or its progress.
pub fn next_answer(rx: &std::sync::mpsc::Receiver<Msg>) -> Msg {
    loop {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(Msg::Loaded(_) | Msg::Progress { .. }) => {}
            Ok(msg) => return msg,
            Err(e) => panic!("hung: no answer ({e})"),
        }
    }
}

/// The state drawn once on a terminal of this size.
pub fn render(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| {
            draw(frame, app);
        })
        .unwrap();
    terminal
}

/// The screen as text, cell by cell.
pub fn screen(app: &App, width: u16, height: u16) -> String {
    render(app, width, height).backend().to_string()
}

/// Sends each character as a key.
pub fn keys(app: &mut App, fx: &Fixture, keys: &str) {
    for c in keys.chars() {
        send(app, fx, key(c));
    }
}

/// The screen's rows as a person reads them (a wide character once).
pub fn rows(app: &App, width: u16, height: u16) -> Vec<String> {
    let terminal = render(app, width, height);
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < width {
                let symbol = buffer[(x, y)].symbol();
                row.push_str(symbol);
                x += unicode_width::UnicodeWidthStr::width(symbol).max(1) as u16;
            }
            row
        })
        .collect()
}

/// The selected row's item id.
pub fn selected_item(app: &App) -> Option<String> {
    let tab = app.tab;
    let row = *app.rows(tab).get(app.pos(tab).selected)?;
    app.row_id(tab, row)
}

/// The status line's text.
pub fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}
