//! The operator's time zone: which one (`--tz`, else `TZ`, else the
//! system's, else UTC), times shown in it, and times typed in it
//! ([`typed`]).
//!
//! The zone data is compiled in (chrono-tz), so a machine without
//! `/usr/share/zoneinfo` shows the same local times as one with it. Inside
//! the program every time stays unix milliseconds, UTC; a zone only changes
//! what a person reads and types.

pub mod typed;

use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeZone, Utc};
use chrono_tz::{OffsetName, Tz};

use super::Millis;

/// An IANA time zone (UTC is one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone(Tz);

impl Default for Zone {
    fn default() -> Self {
        Zone::UTC
    }
}

/// Where the zone in use came from, to say so when it cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneSource {
    Flag,
    Env,
}

impl Zone {
    pub const UTC: Zone = Zone(Tz::UTC);

    /// An IANA name (`Asia/Tokyo`, `Europe/Berlin`, `UTC`), any letter case.
    pub fn parse(name: &str) -> Result<Zone, String> {
        let name = name.trim();
        // POSIX lets TZ name a file with a leading colon (`:Asia/Tokyo`).
        let bare = name.strip_prefix(':').unwrap_or(name);
        if bare.eq_ignore_ascii_case("z") {
            return Ok(Zone::UTC);
        }
        bare.parse::<Tz>()
            .ok()
            .or_else(|| {
                chrono_tz::TZ_VARIANTS
                    .iter()
                    .copied()
                    .find(|tz| tz.name().eq_ignore_ascii_case(bare))
            })
            .map(Zone)
            .ok_or_else(|| {
                crate::t!(
                    crate::i18n::current(),
                    "error.zone.unknown",
                    name = format!("{:?}", crate::sanitize::inline(name, 40))
                )
            })
    }

    /// The operator's zone: `flag` (`--tz`), else `tz_env` (`TZ`, unless
    /// empty), else `system` (the system's zone name), else UTC. A named zone
    /// that is not known is an error; a system zone that is not known is
    /// passed over (UTC).
    pub fn choose(
        flag: Option<&str>,
        tz_env: Option<&str>,
        system: Option<&str>,
    ) -> Result<Zone, String> {
        if let Some(name) = flag {
            return Zone::parse(name)
                .map_err(|e| crate::t!(crate::i18n::current(), "error.zone.flag", error = e));
        }
        if let Some(name) = tz_env.filter(|n| !n.trim().is_empty()) {
            return Zone::parse(name)
                .map_err(|e| crate::t!(crate::i18n::current(), "error.zone.env", error = e));
        }
        Ok(system
            .and_then(|n| Zone::parse(n).ok())
            .unwrap_or(Zone::UTC))
    }

    /// [`Zone::choose`] with this process's `TZ` and the system's zone.
    pub fn operator(flag: Option<&str>) -> Result<Zone, String> {
        let env = std::env::var("TZ").ok();
        // Asked only when needed: it reads files.
        let system = if flag.is_none() && env.as_deref().is_none_or(|e| e.trim().is_empty()) {
            iana_time_zone::get_timezone().ok()
        } else {
            None
        };
        Zone::choose(flag, env.as_deref(), system.as_deref())
    }

    /// `Asia/Tokyo`, `UTC`.
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    pub fn is_utc(&self) -> bool {
        matches!(
            self.0,
            Tz::UTC | Tz::Etc__UTC | Tz::Etc__UCT | Tz::Etc__Zulu | Tz::UCT | Tz::Zulu
        )
    }

    fn at(&self, ms: Millis) -> Option<DateTime<Tz>> {
        DateTime::<Utc>::from_timestamp_millis(ms).map(|t| t.with_timezone(&self.0))
    }

    /// The zone's abbreviation at that moment (`JST`, `CET`, `CEST`), or its
    /// offset (`+0530`) where it has none.
    pub fn abbreviation(&self, ms: Millis) -> String {
        match self.at(ms) {
            Some(t) => {
                let offset = t.offset();
                match offset.abbreviation() {
                    Some(a) if !a.starts_with(['+', '-']) => a.to_string(),
                    _ => format_offset(offset.fix().local_minus_utc()),
                }
            }
            None => "UTC".into(),
        }
    }

    /// The offset from UTC at that moment, in seconds.
    pub fn offset_seconds(&self, ms: Millis) -> i32 {
        self.at(ms)
            .map_or(0, |t| t.offset().fix().local_minus_utc())
    }

    /// `2026-11-29 19:15:30`, local.
    pub fn format_seconds(&self, ms: Millis) -> String {
        self.pattern(ms, "%Y-%m-%d %H:%M:%S")
    }

    /// `2026-11-29 19:15`, local.
    pub fn format_minutes(&self, ms: Millis) -> String {
        self.pattern(ms, "%Y-%m-%d %H:%M")
    }

    /// `2026-11-29 19:15:30.123`, local.
    pub fn format_millis(&self, ms: Millis) -> String {
        self.pattern(ms, "%Y-%m-%d %H:%M:%S%.3f")
    }

    /// `19:15`, local.
    pub fn clock(&self, ms: Millis) -> String {
        self.pattern(ms, "%H:%M")
    }

    /// RFC 3339 with milliseconds and the zone's offset at that moment:
    /// `2026-11-29T19:15:30.123+09:00`, `2026-11-29T10:15:30.123Z` in UTC.
    pub fn format_rfc3339(&self, ms: Millis) -> String {
        if self.is_utc() {
            return crate::model::time::format_rfc3339(ms);
        }
        match self.at(ms) {
            Some(t) => t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            None => format!("@{ms}ms"),
        }
    }

    /// `2026-11-29 19:15:30 JST`: a time that says which zone it is in.
    pub fn format_named(&self, ms: Millis) -> String {
        format!("{} {}", self.format_seconds(ms), self.abbreviation(ms))
    }

    fn pattern(&self, ms: Millis, pattern: &str) -> String {
        match self.at(ms) {
            Some(t) => t.format(pattern).to_string(),
            None => format!("@{ms}ms"),
        }
    }

    /// The local calendar date and time of a moment.
    pub fn local(&self, ms: Millis) -> Option<NaiveDateTime> {
        self.at(ms).map(|t| t.naive_local())
    }

    /// The moment a local wall-clock time names. Where the clocks went back
    /// and it names two moments, the earlier; where they went forward and it
    /// names none (a time skipped), the moment the clocks showed it would
    /// have been, read with the offset before the change (02:30 in a gap
    /// from 02:00 to 03:00 is 03:30).
    pub fn to_utc(&self, local: NaiveDateTime) -> Option<Millis> {
        match self.0.from_local_datetime(&local) {
            LocalResult::Single(t) => Some(t.timestamp_millis()),
            LocalResult::Ambiguous(a, b) => Some(a.timestamp_millis().min(b.timestamp_millis())),
            LocalResult::None => {
                // The offset an hour (or two) earlier still holds the old rule.
                let before = local - chrono::Duration::hours(3);
                let offset = match self.0.from_local_datetime(&before) {
                    LocalResult::Single(t) => t.offset().fix(),
                    LocalResult::Ambiguous(a, _) => a.offset().fix(),
                    LocalResult::None => return None,
                };
                Some(
                    (local - chrono::Duration::seconds(i64::from(offset.local_minus_utc())))
                        .and_utc()
                        .timestamp_millis(),
                )
            }
        }
    }
}

/// `+0530`, `-0300`.
fn format_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let m = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}{:02}", m / 60, m % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Millis = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

    #[test]
    fn names_are_iana_names() {
        assert_eq!(Zone::parse("Asia/Tokyo").unwrap().name(), "Asia/Tokyo");
        assert_eq!(Zone::parse("asia/tokyo").unwrap().name(), "Asia/Tokyo");
        assert_eq!(
            Zone::parse(":Europe/Berlin").unwrap().name(),
            "Europe/Berlin"
        );
        assert_eq!(Zone::parse("UTC").unwrap(), Zone::UTC);
        let e = Zone::parse("Mars/Olympus").unwrap_err();
        assert!(e.contains("unknown time zone \"Mars/Olympus\""), "{e}");
        assert!(Zone::parse("").is_err());
    }

    #[test]
    fn the_flag_then_tz_then_the_system_then_utc() {
        let z = |f, e, s| Zone::choose(f, e, s).map(|z| z.name());
        assert_eq!(
            z(
                Some("Asia/Tokyo"),
                Some("Europe/Berlin"),
                Some("America/New_York")
            ),
            Ok("Asia/Tokyo")
        );
        assert_eq!(
            z(None, Some("Europe/Berlin"), Some("America/New_York")),
            Ok("Europe/Berlin")
        );
        assert_eq!(
            z(None, Some(""), Some("America/New_York")),
            Ok("America/New_York")
        );
        assert_eq!(z(None, None, Some("Nowhere/Else")), Ok("UTC"));
        assert_eq!(z(None, None, None), Ok("UTC"));
        assert!(
            z(Some("Nowhere/Else"), None, None)
                .unwrap_err()
                .starts_with("--tz: ")
        );
        assert!(
            z(None, Some("JST-9"), None)
                .unwrap_err()
                .starts_with("TZ: ")
        );
    }

    #[test]
    fn shown_in_the_zone() {
        let tokyo = Zone::parse("Asia/Tokyo").unwrap();
        assert_eq!(tokyo.format_seconds(T), "2026-11-29 19:15:30");
        assert_eq!(tokyo.format_named(T), "2026-11-29 19:15:30 JST");
        assert_eq!(tokyo.clock(T), "19:15");
        assert_eq!(tokyo.format_rfc3339(T), "2026-11-29T19:15:30.123+09:00");
        assert_eq!(Zone::UTC.format_rfc3339(T), "2026-11-29T10:15:30.123Z");
        assert_eq!(Zone::UTC.format_minutes(T), "2026-11-29 10:15");
        assert_eq!(Zone::UTC.abbreviation(T), "UTC");
        let berlin = Zone::parse("Europe/Berlin").unwrap();
        assert_eq!(berlin.abbreviation(T), "CET");
        // 2026-07-01T12:00:00Z, summer time.
        assert_eq!(berlin.abbreviation(1_782_907_200_000), "CEST");
        assert_eq!(berlin.format_minutes(1_782_907_200_000), "2026-07-01 14:00");
        let kolkata = Zone::parse("Asia/Kolkata").unwrap();
        assert_eq!(kolkata.offset_seconds(T), 19_800);
    }

    fn local(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").unwrap()
    }

    #[test]
    fn local_times_across_daylight_saving_changes() {
        let berlin = Zone::parse("Europe/Berlin").unwrap();
        // 2026-03-29: 02:00 CET became 03:00 CEST; 02:30 never showed.
        let gap = berlin.to_utc(local("2026-03-29 02:30")).unwrap();
        assert_eq!(Zone::UTC.format_minutes(gap), "2026-03-29 01:30");
        assert_eq!(berlin.format_minutes(gap), "2026-03-29 03:30");
        // 2026-10-25: 03:00 CEST became 02:00 CET; 02:30 showed twice.
        let twice = berlin.to_utc(local("2026-10-25 02:30")).unwrap();
        assert_eq!(Zone::UTC.format_minutes(twice), "2026-10-25 00:30");
        let tokyo = Zone::parse("Asia/Tokyo").unwrap();
        let t = tokyo.to_utc(local("2026-11-29 19:15")).unwrap();
        assert_eq!(Zone::UTC.format_minutes(t), "2026-11-29 10:15");
    }
}
