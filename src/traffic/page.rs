//! What a form's page adds to what the visitor typed: the keys it makes, its session, the
//! campaign tag it came from, and per click an event id and the browser's clock. None of it is
//! the visitor's: the server's window and the analysis leave it out of the fingerprint.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::model::Millis;

/// One page view: what stays the same across clicks on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageView {
    pub csrf: String,
    pub session: String,
    /// The campaign the visitor came from (`utm_source`), when tagged.
    pub utm: Option<&'static str>,
}

impl PageView {
    pub fn new(rng: &mut ChaCha8Rng) -> Self {
        Self {
            csrf: hex_token(rng, 24),
            session: hex_token(rng, 16),
            utm: [
                Some("google"),
                Some("yahoo"),
                Some("newsletter"),
                Some("x"),
                Some("facebook"),
                None,
                None,
                None,
                None,
            ]
            .choose(rng)
            .copied()
            .flatten(),
        }
    }
}

/// What a site's script stamps on one click.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Click {
    pub event_id: String,
    /// When the browser says it was clicked: its clock is a little off, and it stamps before
    /// sending.
    pub clicked_at: Millis,
}

impl Click {
    pub fn new(rng: &mut ChaCha8Rng, at: Millis) -> Self {
        let event_id = uuid(rng);
        let skew = rng.random_range(-4_000..1_500);
        Self {
            event_id,
            clicked_at: at + skew,
        }
    }
}

pub fn hex_token(rng: &mut ChaCha8Rng, len: usize) -> String {
    const HEX: &[u8] = b"0123456789abcdef";
    (0..len)
        .map(|_| HEX[rng.random_range(0..16)] as char)
        .collect()
}

/// A fresh UUID-v4-shaped id.
pub fn uuid(rng: &mut ChaCha8Rng) -> String {
    let v: u128 = rng.random();
    let v = (v & !(0xf << 76) | (0x4 << 76)) & !(0x3 << 62) | (0x2 << 62);
    let h = format!("{v:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// A new idempotency key as a page would make one.
pub fn new_key(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..3) {
        0 => uuid(rng),
        1 => format!("sub_{}", hex_token(rng, 20)),
        _ => format!("{}-{}", hex_token(rng, 12), rng.random_range(0..1_000_000)),
    }
}

/// What a bot puts into a honeypot field.
pub fn honeypot_text(rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..4) {
        0 => format!("https://seo-boost{}.example/", rng.random_range(1..1000)),
        1 => "1".to_string(),
        2 => "on".to_string(),
        _ => format!("{:x}", rng.random::<u32>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn ids_have_the_shapes_pages_make() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let id = uuid(&mut rng);
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4", "{id}");
        assert!("89ab".contains(&id[19..20]), "{id}");
        let keys: std::collections::HashSet<String> = (0..200).map(|_| new_key(&mut rng)).collect();
        assert_eq!(keys.len(), 200);
        assert!(keys.iter().all(|k| (8..=64).contains(&k.len())));
    }
}
