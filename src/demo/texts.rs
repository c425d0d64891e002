//! Word lists and sentence parts for the demo's contact-form inquiries, Japanese and English.
//! Everything is invented; the domains are reserved example domains.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Ja,
    En,
}

/// The fields a visitor types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Visitor {
    pub lang: Lang,
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
pub fn visitor(rng: &mut ChaCha8Rng, lang: Lang) -> Visitor {
    match lang {
        Lang::Ja => {
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
        Lang::En => {
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

pub fn subject(rng: &mut ChaCha8Rng, lang: Lang, topic: Topic) -> String {
    let list = match lang {
        Lang::Ja => pick(JA_SUBJECTS, topic),
        Lang::En => pick(EN_SUBJECTS, topic),
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

fn ja_body(rng: &mut ChaCha8Rng, topic: Topic) -> String {
    let n = rng.random_range(2..40);
    let budget = rng.random_range(3..80) * 10;
    let month = rng.random_range(1..13);
    let day = rng.random_range(1..29);
    let hour = rng.random_range(10..19);
    let main = match topic {
        Topic::Corporate => [
            format!("貴社の業務支援サービスについて、{n}名規模の部署での導入を検討しております。"),
            format!(
                "御社の料金体系について質問があります。年間契約の場合、{n}アカウントでいくらになりますか。"
            ),
            format!(
                "新規事業の立ち上げにあたり、{month}月中に一度打ち合わせをお願いできないでしょうか。"
            ),
            format!("資料を拝見しました。導入事例の詳細と、{n}拠点での運用実績を教えてください。"),
        ],
        Topic::AiWeb => [
            format!("現在のホームページを{n}ページほどリニューアルしたいと考えています。"),
            format!(
                "AIを活用したサイト制作に興味があります。予算は{budget}万円程度を想定しています。"
            ),
            format!("{month}月{day}日までに公開したいのですが、制作期間はどのくらいかかりますか。"),
            format!(
                "スマホ対応と問い合わせフォームの改善を含めて、{n}ページ程度でお見積もりをお願いします。"
            ),
        ],
        Topic::Recovery => [
            format!("外付けHDD（{n}TB）が突然認識しなくなりました。"),
            format!("誤って{n}GBほどの写真データを削除してしまいました。復旧は可能でしょうか。"),
            format!("NASのディスクが{n}台中1台故障し、共有フォルダが開けません。"),
            format!("ノートPCに水をこぼしてしまい、{month}月{day}日から起動しません。"),
        ],
        Topic::Shop => [
            format!(
                "注文番号{:08}の商品がまだ届いていません。",
                rng.random_range(10_000_000..100_000_000)
            ),
            format!("{month}月{day}日に届いた商品に不具合があり、交換を希望します。"),
            format!(
                "注文番号{:08}の数量を{n}個に変更できますか。",
                rng.random_range(10_000_000..100_000_000)
            ),
            format!("{month}月分のご注文について、宛名入りの領収書を{n}枚発行してください。"),
        ],
    };
    let detail = [
        format!("平日の{hour}時以降であればお電話でも対応可能です。"),
        format!(
            "社内で{}名ほどが利用する予定です。",
            rng.random_range(2..300)
        ),
        format!("{month}月{day}日までにご回答いただけると助かります。"),
        format!("予算は{budget}万円程度を想定しています。"),
    ];
    let mut text = main.choose(rng).unwrap().clone();
    if rng.random_bool(0.3) {
        text.push_str(detail.choose(rng).unwrap());
    }
    text
}

fn en_body(rng: &mut ChaCha8Rng, topic: Topic) -> String {
    let n = rng.random_range(2..40);
    let budget = rng.random_range(2..90) * 500;
    let month = [
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
    ]
    .choose(rng)
    .unwrap()
    .to_string();
    let day = rng.random_range(1..29);
    let main = match topic {
        Topic::Corporate => [
            format!(
                "We are evaluating your service for a team of about {n} people and would like a quote."
            ),
            format!("Could you explain the pricing for an annual plan with {n} seats?"),
            format!(
                "I would like to schedule a short call before {month} {day} to discuss a pilot."
            ),
        ],
        Topic::AiWeb => [
            format!(
                "We want to redesign our website, roughly {n} pages, with a budget around ${budget}."
            ),
            format!(
                "Is it possible to launch a new site by {month} {day}? We have about {n} pages."
            ),
            format!(
                "I'm interested in your AI website service for our small business of {n} staff."
            ),
        ],
        Topic::Recovery => [
            format!("My external drive ({n} TB) is no longer detected after a power cut."),
            format!("I accidentally deleted about {n} GB of photos. Can they be recovered?"),
            format!("Our NAS lost one of {n} disks on {month} {day} and the share will not mount."),
        ],
        Topic::Shop => [
            format!(
                "Order #{} has not arrived yet, it was due on {month} {day}.",
                rng.random_range(100_000..1_000_000)
            ),
            format!("The item I received on {month} {day} is damaged; I would like an exchange."),
            format!(
                "Can I change the quantity of order #{} to {n}?",
                rng.random_range(100_000..1_000_000)
            ),
        ],
    };
    let detail = [
        format!(
            "You can reach me after {} pm on weekdays.",
            rng.random_range(1..6)
        ),
        format!("We need an answer by {month} {day} if possible."),
        format!("Our budget is about ${budget}."),
        String::new(),
    ];
    let mut text = main.choose(rng).unwrap().clone();
    let d = detail.choose(rng).unwrap();
    if !d.is_empty() {
        text.push(' ');
        text.push_str(d);
    }
    text
}

/// A free-text message, long and specific enough that two visitors do not write the same one.
pub fn message(rng: &mut ChaCha8Rng, visitor: &Visitor, topic: Topic) -> String {
    match visitor.lang {
        Lang::Ja => {
            let surname = visitor.name.split(' ').next().unwrap_or("");
            let intro = if rng.random_bool(0.5) {
                String::new() // the name is in its own field
            } else if visitor.company.is_empty() {
                format!("{surname}と申します。\n")
            } else {
                format!("{}の{surname}です。\n", visitor.company)
            };
            let opening = if rng.random_bool(0.4) {
                JA_OPENINGS.choose(rng).unwrap()
            } else {
                ""
            };
            format!(
                "{opening}{intro}{}\n{}",
                ja_body(rng, topic),
                JA_CLOSINGS.choose(rng).unwrap()
            )
        }
        Lang::En => {
            let first = visitor.name.split(' ').next().unwrap_or("");
            let intro = if visitor.company.is_empty() {
                format!("This is {first}.")
            } else {
                let company = visitor.company.trim_end_matches('.');
                format!("This is {first} from {company}.")
            };
            format!(
                "{} {} {}\n\n{}",
                EN_OPENINGS.choose(rng).unwrap(),
                intro,
                en_body(rng, topic),
                EN_CLOSINGS.choose(rng).unwrap()
            )
        }
    }
}

const JA_INSERTS: &[&str] = &["至急", "改めて", "念のため", "追記："];
const EN_INSERTS: &[&str] = &["please", "also", "urgently", "kindly", "actually"];

/// The same text with a few words (or, in Japanese, a few characters) changed, as when a visitor
/// corrects a message and sends it again. Always different from `text`.
pub fn edit_text(rng: &mut ChaCha8Rng, lang: Lang, text: &str) -> String {
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
        Lang::Ja => {
            // Insert a short phrase at the start of one sentence.
            let word = JA_INSERTS.choose(rng).unwrap();
            let starts: Vec<usize> = std::iter::once(0)
                .chain(text.match_indices('。').map(|(i, m)| i + m.len()))
                .filter(|i| *i < text.len())
                .collect();
            let at = *starts.choose(rng).unwrap_or(&0);
            format!("{}{}、{}", &text[..at], word, &text[at..])
        }
        Lang::En => {
            let mut words: Vec<&str> = text.split(' ').collect();
            let at = rng.random_range(1..words.len().max(2));
            let at = at.min(words.len());
            words.insert(at, EN_INSERTS.choose(rng).unwrap());
            words.join(" ")
        }
    }
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
    fn edits_always_change_the_text_a_little() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for lang in [Lang::Ja, Lang::En] {
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
