//! Times written the Japanese way, read into the forms
//! [`crate::model::zone::typed`] reads: a visitor on the phone says 「昨日の
//! 10時ごろ」, and the operator types it as they heard it, whatever the
//! language of the screen.
//!
//! - days: 今日, きょう, 本日; 昨日, きのう; 一昨日, おととい, おとつい;
//! - dates: `12月3日`, `2026年12月3日`, `12/3`, `2026/12/3`;
//! - times of day: `10時`, `10時30分`, `10時30分15秒`, `10時半`, `10:30`,
//!   after 午前 or 午後 too, followed by ごろ or 頃 (a moment is already
//!   "around" it);
//! - ranges: two of these joined by `～`, `〜`, `~`, `..` or から (まで may
//!   close the end).
//!
//! One word may hold several (`昨日10時～11時`, `昨日の10時`). A word is read
//! as a time only when all of it is one: `10時間` and `昨日の件` are text.

use chrono::{Duration, NaiveDate};

/// One piece of a time, as `typed` reads it, and as it was typed (a refusal
/// quotes what the operator wrote, not what it was read as).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub read: String,
    pub typed: String,
}

/// Words that join two times into a range when they stand alone, as `to`
/// does.
pub fn is_joiner(word: &str) -> bool {
    matches!(word, "から" | "～" | "〜" | "~")
}

/// The pieces of `word` (NFKC-folded), when all of it is a time written
/// the Japanese way; `today` is the operator's day, for 一昨日.
pub fn read(word: &str, today: NaiveDate) -> Option<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut rest = word;
    // What the last piece was: a day may be followed by の, a time of day
    // by ごろ, any side of a range by まで.
    let mut last = Last::Nothing;
    while !rest.is_empty() {
        let before = rest;
        let read = if let Some((read, after)) = day(rest, today) {
            rest = after;
            last = Last::Day;
            read
        } else if let Some((read, after)) = date(rest) {
            rest = after;
            last = Last::Day;
            read
        } else if let Some((read, after)) = clock(rest) {
            rest = after;
            last = Last::Clock;
            read
        } else if let Some(after) = JOINERS.iter().find_map(|j| rest.strip_prefix(j)) {
            rest = after;
            last = Last::Joiner;
            "..".to_string()
        } else if let Some(after) = rest.strip_prefix('の').filter(|_| last == Last::Day) {
            rest = after;
            last = Last::Of;
            continue;
        } else if let Some(after) = AROUND
            .iter()
            .find_map(|a| rest.strip_prefix(a))
            .filter(|_| last == Last::Clock)
        {
            rest = after;
            last = Last::Around;
            continue;
        } else if let Some(after) = rest
            .strip_prefix("まで")
            .filter(|_| matches!(last, Last::Day | Last::Clock | Last::Around))
        {
            rest = after;
            last = Last::Until;
            continue;
        } else {
            return None;
        };
        let typed = before[..before.len() - rest.len()].to_string();
        pieces.push(Piece { read, typed });
    }
    // A word of nothing but joiners is a joiner, for the query to place.
    (!pieces.is_empty() && pieces.iter().any(|p| p.read != "..")).then_some(pieces)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    Nothing,
    Day,
    Of,
    Clock,
    Around,
    Joiner,
    Until,
}

/// Within a word (`..` too, as English ranges are written).
const JOINERS: &[&str] = &["～", "〜", "~", "..", "から"];

const AROUND: &[&str] = &["ごろ", "頃", "ころ"];

fn day(text: &str, today: NaiveDate) -> Option<(String, &str)> {
    // The longest first: 一昨日 holds 昨日.
    const DAYS: &[(&str, i64)] = &[
        ("一昨日", 2),
        ("おととい", 2),
        ("おとつい", 2),
        ("昨日", 1),
        ("きのう", 1),
        ("今日", 0),
        ("きょう", 0),
        ("本日", 0),
    ];
    let (rest, back) = DAYS
        .iter()
        .find_map(|&(w, back)| text.strip_prefix(w).map(|rest| (rest, back)))?;
    let read = match back {
        0 => "today".to_string(),
        1 => "yesterday".to_string(),
        n => (today - Duration::days(n)).format("%Y-%m-%d").to_string(),
    };
    Some((read, rest))
}

/// ASCII digits at the start of `text`, 1 to `max` of them.
fn digits(text: &str, max: usize) -> Option<(&str, &str)> {
    let n = text.bytes().take_while(u8::is_ascii_digit).count();
    (1..=max).contains(&n).then(|| text.split_at(n))
}

/// `2026年12月3日`, `12月3日`, `2026/12/3`, `12/3`, as `typed` writes them
/// (`2026-12-3`, `12-3`); a date that does not exist is refused there.
fn date(text: &str) -> Option<(String, &str)> {
    let kanji = |text| {
        let (year, rest) = match digits(text, 4) {
            Some((y, rest)) if y.len() == 4 => (Some(y), rest.strip_prefix('年')?),
            _ => (None, text),
        };
        let (month, rest) = digits(rest, 2)?;
        let (day, rest) = digits(rest.strip_prefix('月')?, 2)?;
        Some((year, month, day, rest.strip_prefix('日')?))
    };
    let slashed = |text| {
        let (first, rest) = digits(text, 4)?;
        let (second, rest) = digits(rest.strip_prefix('/')?, 2)?;
        match rest.strip_prefix('/').and_then(|r| digits(r, 2)) {
            Some((third, rest)) if first.len() == 4 => Some((Some(first), second, third, rest)),
            Some(_) => None,
            None if first.len() <= 2 => Some((None, first, second, rest)),
            None => None,
        }
    };
    let (year, month, day, rest) = kanji(text).or_else(|| slashed(text))?;
    let read = match year {
        Some(y) => format!("{y}-{month}-{day}"),
        None => format!("{month}-{day}"),
    };
    Some((read, rest))
}

/// `10時`, `10時30分`, `10時30分15秒`, `10時半`, `10:30`, `10:30:15`, after
/// 午前 or 午後 too. An hour or minute that does not exist is read as typed
/// into a time `typed` refuses.
fn clock(text: &str) -> Option<(String, &str)> {
    let (half, text) = match (text.strip_prefix("午前"), text.strip_prefix("午後")) {
        (Some(rest), _) => (Some(false), rest),
        (_, Some(rest)) => (Some(true), rest),
        _ => (None, text),
    };
    let (hour, rest) = digits(text, 2)?;
    let (minute, second, rest) = if let Some(rest) = rest.strip_prefix('時') {
        if let Some(rest) = rest.strip_prefix('半') {
            ("30", None, rest)
        } else if let Some((m, after)) = digits(rest, 2) {
            // 分 may be left out (`10時30`); seconds need both.
            match after.strip_prefix('分') {
                Some(after) => match digits(after, 2) {
                    Some((s, a)) if a.starts_with('秒') => (m, Some(s), &a['秒'.len_utf8()..]),
                    _ => (m, None, after),
                },
                None => (m, None, after),
            }
        } else {
            ("00", None, rest)
        }
    } else {
        let (m, rest) = digits(rest.strip_prefix(':')?, 2).filter(|(m, _)| m.len() == 2)?;
        match rest.strip_prefix(':').and_then(|r| digits(r, 2)) {
            Some((s, rest)) if s.len() == 2 => (m, Some(s), rest),
            Some(_) => return None,
            None => (m, None, rest),
        }
    };
    let hour = match half {
        // Twelve and more after 午前 or 午後 are no time of day: refused.
        Some(_) if hour.parse::<u32>().ok()? >= 12 => "99".to_string(),
        Some(true) => (hour.parse::<u32>().ok()? + 12).to_string(),
        _ => hour.to_string(),
    };
    let read = match second {
        Some(s) => format!("{hour}:{minute:0>2}:{s:0>2}"),
        None => format!("{hour}:{minute:0>2}"),
    };
    Some((read, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(word: &str) -> Option<Vec<String>> {
        let today = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
        read(word, today).map(|p| p.into_iter().map(|p| p.read).collect())
    }

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn each_form_reads_as_typed_writes_it() {
        for (word, read) in [
            ("昨日", &["yesterday"][..]),
            ("一昨日", &["2026-11-28"]),
            ("本日", &["today"]),
            ("12月3日", &["12-3"]),
            ("2026年12月3日", &["2026-12-3"]),
            ("12/3", &["12-3"]),
            ("2026/12/03", &["2026-12-03"]),
            ("10時", &["10:00"]),
            ("9時5分", &["9:05"]),
            ("10時30", &["10:30"]),
            ("10時30分15秒", &["10:30:15"]),
            ("10時半", &["10:30"]),
            ("午後3時", &["15:00"]),
            ("午前0時", &["0:00"]),
            ("午後12時", &["99:00"]),
            ("10:30", &["10:30"]),
            ("昨日の10時ごろ", &["yesterday", "10:00"]),
            ("12月3日10時", &["12-3", "10:00"]),
            ("10時～11時まで", &["10:00", "..", "11:00"]),
            ("10時から11時", &["10:00", "..", "11:00"]),
        ] {
            assert_eq!(reads(word), Some(strings(read)), "{word}");
        }
    }

    #[test]
    fn words_that_are_not_wholly_times_are_not() {
        for word in [
            "",
            "から",
            "～",
            "3日",
            "12月",
            "10時間",
            "昨日の件",
            "時",
            "10:3",
            "1/2/3",
            "123/4",
            "の10時",
            "10時の",
            "ごろ",
            "まで",
            "渡辺",
        ] {
            assert_eq!(reads(word), None, "{word}");
        }
        assert!(is_joiner("から") && is_joiner("〜") && !is_joiner("まで"));
    }
}
