//! Word lists and sentence parts for visitors' contact-form inquiries, Japanese and English.
//! Everything is invented; the domains are reserved example domains.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

/// The language a visitor writes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextLang {
    Ja,
    En,
}

/// The fields a visitor types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visitor {
    pub lang: TextLang,
    pub name: String,
    pub email: String,
    pub phone: String,
    pub company: String,
}

/// (kanji, romaji)
const JA_SURNAMES: &[(&str, &str)] = &[
    ("佐藤", "sato"),
    ("鈴木", "suzuki"),
    ("高橋", "takahashi"),
    ("田中", "tanaka"),
    ("伊藤", "ito"),
    ("渡辺", "watanabe"),
    ("山本", "yamamoto"),
    ("中村", "nakamura"),
    ("小林", "kobayashi"),
    ("加藤", "kato"),
    ("吉田", "yoshida"),
    ("山田", "yamada"),
    ("佐々木", "sasaki"),
    ("山口", "yamaguchi"),
    ("松本", "matsumoto"),
    ("井上", "inoue"),
    ("木村", "kimura"),
    ("林", "hayashi"),
    ("斎藤", "saito"),
    ("清水", "shimizu"),
    ("山崎", "yamazaki"),
    ("森", "mori"),
    ("池田", "ikeda"),
    ("橋本", "hashimoto"),
    ("阿部", "abe"),
    ("石川", "ishikawa"),
    ("前田", "maeda"),
    ("藤田", "fujita"),
    ("岡田", "okada"),
    ("後藤", "goto"),
];

const JA_GIVEN: &[(&str, &str)] = &[
    ("太郎", "taro"),
    ("花子", "hanako"),
    ("翔", "sho"),
    ("陽菜", "hina"),
    ("大輔", "daisuke"),
    ("美咲", "misaki"),
    ("健太", "kenta"),
    ("さくら", "sakura"),
    ("拓也", "takuya"),
    ("由美", "yumi"),
    ("誠", "makoto"),
    ("優子", "yuko"),
    ("直樹", "naoki"),
    ("真由美", "mayumi"),
    ("悠斗", "yuto"),
    ("結衣", "yui"),
    ("蓮", "ren"),
    ("葵", "aoi"),
    ("浩二", "koji"),
    ("恵", "megumi"),
];

const EN_FIRST: &[&str] = &[
    "James",
    "Mary",
    "Robert",
    "Patricia",
    "John",
    "Jennifer",
    "Michael",
    "Linda",
    "David",
    "Elizabeth",
    "William",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Sarah",
    "Daniel",
    "Karen",
    "Emma",
    "Oliver",
    "Sophie",
    "Liam",
    "Chloe",
    "Noah",
    "Priya",
    "Mateo",
];

const EN_LAST: &[&str] = &[
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Wilson",
    "Anderson",
    "Taylor",
    "Thomas",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Thompson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
    "Walker",
    "O'Neil",
    "Nguyen",
    "Patel",
];

const JA_COMPANY_CORE: &[&str] = &[
    "サンプル",
    "みらい",
    "あおば",
    "ひかり",
    "東都",
    "北斗",
    "さくら",
    "大和",
    "青空",
    "テクノ",
    "グリーン",
    "アルファ",
    "ミナト",
    "フジ",
    "コスモ",
    "はやて",
    "ことぶき",
    "つばさ",
];
const JA_COMPANY_TAIL: &[&str] = &[
    "商事",
    "工業",
    "システム",
    "物産",
    "企画",
    "製作所",
    "ソリューションズ",
    "デザイン",
    "不動産",
    "食品",
    "建設",
    "クリニック",
];
const EN_COMPANY_CORE: &[&str] = &[
    "Acme",
    "Northwind",
    "Blue Harbor",
    "Evergreen",
    "Summit",
    "Brightline",
    "Redwood",
    "Silverleaf",
    "Ironbridge",
    "Maple",
    "Harbor Point",
    "Lumen",
    "Crescent",
    "Atlas",
];
const EN_COMPANY_TAIL: &[&str] = &[
    "Logistics Ltd",
    "Consulting",
    "Labs",
    "Studio",
    "Trading Co.",
    "Health",
    "Foods Inc.",
    "Partners",
    "Software",
    "Realty",
];

const JA_DOMAINS: &[&str] = &[
    "example.jp",
    "example.co.jp",
    "mail.example.ne.jp",
    "example.com",
];
const EN_DOMAINS: &[&str] = &[
    "example.com",
    "example.org",
    "example.net",
    "mail.example.com",
];

/// A new visitor.
pub fn visitor(rng: &mut ChaCha8Rng, lang: TextLang) -> Visitor {
    match lang {
        TextLang::Ja => {
            let (sk, sr) = *JA_SURNAMES.choose(rng).unwrap();
            let (gk, gr) = *JA_GIVEN.choose(rng).unwrap();
            let email = match rng.random_range(0..3) {
                0 => format!("{}.{}{}", gr, sr, rng.random_range(1..100)),
                1 => format!("{}{}{}", &gr[..1], sr, rng.random_range(1..1000)),
                _ => format!("{}_{}{}", sr, gr, rng.random_range(60..100)),
            };
            let phone = if rng.random_bool(0.6) {
                format!(
                    "0{}0-{:04}-{:04}",
                    [7, 8, 9].choose(rng).unwrap(),
                    rng.random_range(0..10000),
                    rng.random_range(0..10000)
                )
            } else {
                format!(
                    "0{}-{:04}-{:04}",
                    rng.random_range(3..10),
                    rng.random_range(1000..10000),
                    rng.random_range(0..10000)
                )
            };
            let company = if rng.random_bool(0.15) {
                String::new() // individuals leave it empty
            } else if rng.random_bool(0.5) {
                format!(
                    "株式会社{}{}",
                    JA_COMPANY_CORE.choose(rng).unwrap(),
                    JA_COMPANY_TAIL.choose(rng).unwrap()
                )
            } else {
                format!(
                    "{}{}株式会社",
                    JA_COMPANY_CORE.choose(rng).unwrap(),
                    JA_COMPANY_TAIL.choose(rng).unwrap()
                )
            };
            let phone = if rng.random_bool(0.35) {
                String::new() // optional on most forms
            } else {
                phone
            };
            Visitor {
                lang,
                name: format!("{sk} {gk}"),
                email: format!("{email}@{}", JA_DOMAINS.choose(rng).unwrap()),
                phone,
                company,
            }
        }
        TextLang::En => {
            let first = *EN_FIRST.choose(rng).unwrap();
            let last = *EN_LAST.choose(rng).unwrap();
            let local = format!(
                "{}.{}{}",
                first.to_lowercase(),
                last.to_lowercase().replace('\'', ""),
                rng.random_range(1..100)
            );
            let company = if rng.random_bool(0.2) {
                String::new()
            } else {
                format!(
                    "{} {}",
                    EN_COMPANY_CORE.choose(rng).unwrap(),
                    EN_COMPANY_TAIL.choose(rng).unwrap()
                )
            };
            Visitor {
                lang,
                name: format!("{first} {last}"),
                email: format!("{local}@{}", EN_DOMAINS.choose(rng).unwrap()),
                phone: format!(
                    "+1 {} 555 {:04}",
                    rng.random_range(201..990),
                    rng.random_range(100..10000)
                ),
                company,
            }
        }
    }
}

/// What a scope's form is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    Corporate,
    AiWeb,
    Recovery,
    Shop,
}

const JA_SUBJECTS: &[(Topic, &[&str])] = &[
    (
        Topic::Corporate,
        &[
            "サービス導入のご相談",
            "お見積もりのお願い",
            "資料請求について",
            "業務提携のご提案",
            "料金プランについての質問",
            "採用に関するお問い合わせ",
        ],
    ),
    (
        Topic::AiWeb,
        &[
            "AIホームページ制作の相談",
            "サイトリニューアルのお見積もり",
            "無料相談の申し込み",
            "制作期間について",
        ],
    ),
    (
        Topic::Recovery,
        &[
            "データ復旧のご依頼",
            "HDDが認識されません",
            "復旧費用の確認",
            "至急対応のお願い",
        ],
    ),
    (
        Topic::Shop,
        &[
            "商品が届きません",
            "返品・交換について",
            "注文内容の変更",
            "領収書の発行依頼",
        ],
    ),
];

const EN_SUBJECTS: &[(Topic, &[&str])] = &[
    (
        Topic::Corporate,
        &[
            "Request for a quote",
            "Question about pricing",
            "Partnership inquiry",
            "Product demo request",
            "Careers question",
        ],
    ),
    (
        Topic::AiWeb,
        &[
            "Website redesign",
            "AI website inquiry",
            "Free consultation",
        ],
    ),
    (
        Topic::Recovery,
        &[
            "Data recovery request",
            "Drive not detected",
            "Recovery cost",
        ],
    ),
    (
        Topic::Shop,
        &[
            "Order not delivered",
            "Return and exchange",
            "Change my order",
            "Invoice request",
        ],
    ),
];

fn pick<'a>(table: &'a [(Topic, &'a [&'a str])], topic: Topic) -> &'a [&'a str] {
    table
        .iter()
        .find(|(t, _)| *t == topic)
        .map(|(_, list)| *list)
        .unwrap_or(&[])
}

pub fn subject(rng: &mut ChaCha8Rng, lang: TextLang, topic: Topic) -> String {
    let list = match lang {
        TextLang::Ja => pick(JA_SUBJECTS, topic),
        TextLang::En => pick(EN_SUBJECTS, topic),
    };
    list.choose(rng).unwrap().to_string()
}

const JA_OPENINGS: &[&str] = &[
    "お世話になっております。",
    "はじめまして。",
    "突然のご連絡失礼いたします。",
    "いつもお世話になっております。",
    "お問い合わせフォームより失礼します。",
];

const JA_CLOSINGS: &[&str] = &[
    "ご検討ください。",
    "ご返信いただけますと幸いです。",
    "よろしくお願いいたします。",
    "ご連絡お待ちしております。",
    "取り急ぎご相談まで。",
];

const EN_OPENINGS: &[&str] = &["Hello,", "Hi there,", "Good morning,", "Dear team,", "Hi,"];
const EN_CLOSINGS: &[&str] = &[
    "Thanks in advance.",
    "Looking forward to hearing from you.",
    "Best regards.",
    "Thank you for your help.",
    "Please let me know.",
];

/// One request sentence, and a detail sentence when `detail` (or now and then anyway).
fn ja_body(rng: &mut ChaCha8Rng, topic: Topic, detail: bool) -> String {
    let n = rng.random_range(2..40);
    let budget = rng.random_range(3..80) * 10;
    let month = rng.random_range(1..13);
    let day = rng.random_range(1..29);
    // Only the chosen sentence is formatted: this runs a million times for the big demo.
    let mut text = match (topic, rng.random_range(0..4)) {
        (Topic::Corporate, 0) => {
            format!("貴社の業務支援サービスを{n}名規模の部署で導入検討中です。")
        }
        (Topic::Corporate, 1) => format!("年間契約で{n}アカウントの場合の料金を教えてください。"),
        (Topic::Corporate, 2) => format!("{month}月中に一度打ち合わせをお願いできないでしょうか。"),
        (Topic::Corporate, _) => format!("{n}拠点での導入事例を教えてください。"),
        (Topic::AiWeb, 0) => format!("現在のサイトを{n}ページほどリニューアルしたいです。"),
        (Topic::AiWeb, 1) => format!("AIサイト制作に興味があります。予算は{budget}万円程度です。"),
        (Topic::AiWeb, 2) => format!("{month}月{day}日までに公開したいのですが可能でしょうか。"),
        (Topic::AiWeb, _) => format!("スマホ対応を含め{n}ページ程度で見積もりをお願いします。"),
        (Topic::Recovery, 0) => format!("外付けHDD（{n}TB）が突然認識しなくなりました。"),
        (Topic::Recovery, 1) => format!("誤って{n}GBほどの写真を削除しました。復旧できますか。"),
        (Topic::Recovery, 2) => {
            format!("NASのディスクが{n}台中1台故障し、共有フォルダが開けません。")
        }
        (Topic::Recovery, _) => format!("PCに水をこぼし、{month}月{day}日から起動しません。"),
        (Topic::Shop, 0) => format!(
            "注文番号{:08}の商品がまだ届いていません。",
            rng.random_range(10_000_000..100_000_000)
        ),
        (Topic::Shop, 1) => format!("{month}月{day}日に届いた商品が不良品でした。交換希望です。"),
        (Topic::Shop, 2) => format!(
            "注文番号{:08}の数量を{n}個に変更できますか。",
            rng.random_range(10_000_000..100_000_000)
        ),
        (Topic::Shop, _) => format!("{month}月分の領収書を{n}枚発行してください。"),
    };
    if detail || rng.random_bool(0.2) {
        let detail = match rng.random_range(0..4) {
            0 => format!(
                "平日{}時{}分以降なら電話も可能です。",
                rng.random_range(10..19),
                rng.random_range(0..6) * 10
            ),
            1 => format!("社内で{}名ほどが利用予定です。", rng.random_range(2..900)),
            2 => format!("{month}月{day}日までにご回答いただけると助かります。"),
            _ => format!("予算は{budget}万円程度です。"),
        };
        text.push_str(&detail);
    }
    text
}

const EN_MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn en_body(rng: &mut ChaCha8Rng, topic: Topic, detail: bool) -> String {
    let n = rng.random_range(2..40);
    let budget = rng.random_range(2..90) * 500;
    let month = *EN_MONTHS.choose(rng).unwrap();
    let day = rng.random_range(1..29);
    let mut text = match (topic, rng.random_range(0..3)) {
        (Topic::Corporate, 0) => format!("We'd like a quote for a team of about {n} people."),
        (Topic::Corporate, 1) => format!("What does an annual plan with {n} seats cost?"),
        (Topic::Corporate, _) => format!("Could we have a short call before {month} {day}?"),
        (Topic::AiWeb, 0) => {
            format!("We want to redesign our site, about {n} pages, budget ${budget}.")
        }
        (Topic::AiWeb, 1) => format!("Can a new site of {n} pages launch by {month} {day}?"),
        (Topic::AiWeb, _) => format!("Interested in your AI website service for our {n} staff."),
        (Topic::Recovery, 0) => format!("My {n} TB external drive is no longer detected."),
        (Topic::Recovery, 1) => format!("I deleted about {n} GB of photos. Can they be recovered?"),
        (Topic::Recovery, _) => format!("Our NAS lost one of {n} disks on {month} {day}."),
        (Topic::Shop, 0) => format!(
            "Order #{} has not arrived, it was due on {month} {day}.",
            rng.random_range(100_000..1_000_000)
        ),
        (Topic::Shop, 1) => {
            format!("The item I got on {month} {day} is damaged; please exchange it.")
        }
        (Topic::Shop, _) => format!(
            "Can I change order #{} to {n} items?",
            rng.random_range(100_000..1_000_000)
        ),
    };
    if detail || rng.random_bool(0.2) {
        let detail = match rng.random_range(0..3) {
            0 => format!(
                "You can call me at {} ext. {}.",
                rng.random_range(1..6),
                rng.random_range(100..1000)
            ),
            1 => format!("We need an answer by {month} {day}."),
            _ => format!("Our budget is about ${budget}."),
        };
        text.push(' ');
        text.push_str(&detail);
    }
    text
}

/// A free-text message, specific enough that visitors do not write the same one: it names the
/// writer or carries a detail sentence (two numbers drawn from wide ranges), or both.
pub fn message(rng: &mut ChaCha8Rng, visitor: &Visitor, topic: Topic) -> String {
    match visitor.lang {
        TextLang::Ja => {
            let surname = visitor.name.split(' ').next().unwrap_or("");
            let intro = if rng.random_bool(0.5) {
                String::new() // the name is in its own field
            } else if visitor.company.is_empty() {
                format!("{surname}と申します。\n")
            } else {
                format!("{}の{surname}です。\n", visitor.company)
            };
            let opening = if rng.random_bool(0.2) {
                JA_OPENINGS.choose(rng).unwrap()
            } else {
                ""
            };
            format!(
                "{opening}{intro}{}\n{}",
                ja_body(rng, topic, intro.is_empty()),
                JA_CLOSINGS.choose(rng).unwrap()
            )
        }
        TextLang::En => {
            let first = visitor.name.split(' ').next().unwrap_or("");
            let intro = if rng.random_bool(0.5) {
                String::new()
            } else if visitor.company.is_empty() {
                format!("This is {first}. ")
            } else {
                let company = visitor.company.trim_end_matches('.');
                format!("This is {first} from {company}. ")
            };
            format!(
                "{} {intro}{}\n{}",
                EN_OPENINGS.choose(rng).unwrap(),
                en_body(rng, topic, intro.is_empty()),
                EN_CLOSINGS.choose(rng).unwrap()
            )
        }
    }
}

const JA_INSERTS: &[&str] = &["至急", "改めて", "念のため", "追記："];
const EN_INSERTS: &[&str] = &["please", "also", "urgently", "kindly", "actually"];

/// The same text with a few words (or, in Japanese, a few characters) changed, as when a visitor
/// corrects a message and sends it again. Always different from `text`.
pub fn edit_text(rng: &mut ChaCha8Rng, lang: TextLang, text: &str) -> String {
    // Change one number when there is one: "50万円" -> "80万円", "12 pages" -> "15 pages".
    if rng.random_bool(0.5)
        && let Some(start) = text.find(|c: char| c.is_ascii_digit())
    {
        let end = text[start..]
            .find(|c: char| !c.is_ascii_digit())
            .map_or(text.len(), |i| start + i);
        let old: u64 = text[start..end].parse().unwrap_or(0);
        let new = old + rng.random_range(1..9);
        return format!("{}{}{}", &text[..start], new, &text[end..]);
    }
    match lang {
        TextLang::Ja => {
            // Insert a short phrase at the start of one sentence.
            let word = JA_INSERTS.choose(rng).unwrap();
            let starts: Vec<usize> = std::iter::once(0)
                .chain(text.match_indices('。').map(|(i, m)| i + m.len()))
                .filter(|i| *i < text.len())
                .collect();
            let at = *starts.choose(rng).unwrap_or(&0);
            format!("{}{}、{}", &text[..at], word, &text[at..])
        }
        TextLang::En => {
            let mut words: Vec<&str> = text.split(' ').collect();
            let at = rng.random_range(1..words.len().max(2));
            let at = at.min(words.len());
            words.insert(at, EN_INSERTS.choose(rng).unwrap());
            words.join(" ")
        }
    }
}

const JA_URGENT: &[&str] = &["至急", "大至急", "urgent"];
const EN_URGENT: &[&str] = &["urgent", "URGENT", "please reply"];

/// The same text with one sentence (or two, in a longer text) after the first replaced by a
/// word or two ("urgent"), as when a visitor cuts a detail and resends in a hurry; `None`
/// for a text of fewer than three sentences.
pub fn rewrite_sentences(rng: &mut ChaCha8Rng, lang: TextLang, text: &str) -> Option<String> {
    let mut sentences: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, d)| d);
        let ends = matches!(c, '。' | '！' | '？' | '\n')
            || (matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace));
        if ends {
            let end = i + c.len_utf8();
            sentences.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        sentences.push(&text[start..]);
    }
    let whole: Vec<usize> = (1..sentences.len())
        .filter(|&i| !sentences[i].trim().is_empty())
        .collect();
    if whole.len() < 2 {
        return None;
    }
    let at = whole[rng.random_range(0..whole.len())];
    let two = whole.len() >= 4 && at + 1 < sentences.len() && rng.random_bool(0.5);
    let word = match lang {
        TextLang::Ja => JA_URGENT.choose(rng).unwrap(),
        TextLang::En => EN_URGENT.choose(rng).unwrap(),
    };
    let gone = if two { at..at + 2 } else { at..at + 1 };
    let mut out = String::with_capacity(text.len());
    for (i, s) in sentences.iter().enumerate() {
        if i == gone.start {
            // Keep the line break or space that separated the sentence from the next.
            let tail = sentences[gone.end - 1].len() - sentences[gone.end - 1].trim_end().len();
            let lead = s.len() - s.trim_start().len();
            out.push_str(&s[..lead]);
            out.push_str(word);
            let last = sentences[gone.end - 1];
            out.push_str(&last[last.len() - tail..]);
            if tail == 0 && gone.end < sentences.len() {
                out.push(' ');
            }
        } else if !gone.contains(&i) {
            out.push_str(s);
        }
    }
    Some(out)
}

/// A spam body, the same for every sender of one campaign.
pub fn spam(rng: &mut ChaCha8Rng) -> (String, String) {
    let site = format!(
        "https://{}{}.example/{}",
        [
            "seo-boost",
            "cheap-meds",
            "crypto-win",
            "best-backlinks",
            "traffic"
        ]
        .choose(rng)
        .unwrap(),
        rng.random_range(1..1000),
        rng.random_range(1000..100000)
    );
    let subject = [
        "Boost your ranking today",
        "Partnership opportunity!!!",
        "高品質な被リンクを格安で",
        "Your website has errors",
        "ビジネス拡大のご提案",
    ]
    .choose(rng)
    .unwrap()
    .to_string();
    let message = match rng.random_range(0..3) {
        0 => format!(
            "Hello, I found your site and noticed 37 SEO errors. Fix them now: {site} Best regards"
        ),
        1 => format!("当社のサービスで検索順位が確実に上がります。詳しくはこちら {site}"),
        _ => format!(
            "Dear owner, we offer guaranteed traffic for your business. Visit {site} today!!!"
        ),
    };
    (subject, message)
}

/// Spam sender names and addresses.
pub fn spam_sender(rng: &mut ChaCha8Rng) -> (String, String) {
    let name = [
        "Crytoboost",
        "SEO Expert",
        "Mike",
        "Anna Smith",
        "jessica",
        "Eric Jones",
    ]
    .choose(rng)
    .unwrap()
    .to_string();
    let email = format!(
        "{}{}@{}",
        ["mike", "seo", "info", "anna", "win", "eric"]
            .choose(rng)
            .unwrap(),
        rng.random_range(1000..99999),
        ["spam.example", "bulk.example.net", "mailer.example.org"]
            .choose(rng)
            .unwrap()
    );
    (name, email)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_sentence_rewrite_replaces_a_sentence_after_the_first_by_a_word() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let ja = "お世話になっております。\n見積もりをお願いします。予算は50万円です。\nよろしくお願いします。";
        for _ in 0..30 {
            let out = rewrite_sentences(&mut rng, TextLang::Ja, ja).unwrap();
            assert!(out.starts_with("お世話になっております。"), "{out}");
            assert!(JA_URGENT.iter().any(|w| out.contains(w)), "{out}");
            assert!(out.chars().count() < ja.chars().count(), "{out}");
        }
        let en = "Hello. We'd like a quote for 12 people. We need it by May 3.\nBest regards.";
        let out = rewrite_sentences(&mut rng, TextLang::En, en).unwrap();
        assert!(out.starts_with("Hello. "), "{out}");
        assert!(EN_URGENT.iter().any(|w| out.contains(w)), "{out}");
        assert_eq!(
            rewrite_sentences(&mut rng, TextLang::En, "Hello. Thanks."),
            None
        );
    }

    #[test]
    fn edits_always_change_the_text_a_little() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for lang in [TextLang::Ja, TextLang::En] {
            for topic in [Topic::Corporate, Topic::AiWeb, Topic::Recovery, Topic::Shop] {
                for _ in 0..50 {
                    let v = visitor(&mut rng, lang);
                    let m = message(&mut rng, &v, topic);
                    let e = edit_text(&mut rng, lang, &m);
                    assert_ne!(m, e);
                    let grown = e.chars().count().abs_diff(m.chars().count());
                    assert!(grown <= 10, "{m:?} -> {e:?}");
                }
            }
        }
    }
}
