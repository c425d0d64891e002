//! What the server answered, counted as it answered: each status, the
//! replays (`Idempotent-Replayed: true`), the copies answered with a receipt
//! number this run was already given (the server's window absorbed them),
//! the receipts, and the pathways sent. Pure; the lines it prints are the
//! catalogue's.

use std::collections::{BTreeMap, HashSet};

use super::client::{Answer, Sent};
use super::scenario::{KINDS, Step};
use crate::i18n::Lang;
use crate::t;
use crate::traffic::VisitKind;

/// Answers of one status that may name a receipt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accepted {
    pub n: u64,
    /// With `Idempotent-Replayed: true`: the key's stored answer.
    pub replayed: u64,
    /// Without it, naming a receipt this run was already answered with:
    /// an exact copy the server's window absorbed.
    pub absorbed: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnswerCounts {
    pub posts: u64,
    pub created: Accepted,
    pub see_other: Accepted,
    /// 202: received, the action's outcome unknown.
    pub pending: u64,
    /// 409: the key's first request still in flight.
    pub in_flight: u64,
    /// 422 naming a receipt: the same key with other fields.
    pub conflicts: u64,
    /// 429: over the server's rate for this client.
    pub too_many: u64,
    /// Other 4xx (invalid, too large, unknown form…).
    pub refused: u64,
    pub server_errors: u64,
    /// Any other status.
    pub other: u64,
    /// No answer at all.
    pub no_answer: u64,
    /// Answers the visitor never saw (counted above as what they were).
    pub lost: u64,
    /// Pages fetched (form pages, thank-you pages), and of them not 200.
    pub pages: u64,
    pub pages_failed: u64,
    /// Planned requests not sent (the run was stopped).
    pub not_sent: u64,
    /// Visitors by pathway.
    pub pathways: BTreeMap<VisitKind, u64>,
    /// Receipt numbers answered (201, 202, 303).
    receipts: HashSet<u64>,
    /// Of them, those named by an answer that was not a replay. A replay
    /// can be counted before the answer it repeats (sender threads answer
    /// in any order), so a replay's number alone must not make that answer
    /// look like an absorbed copy.
    first_named: HashSet<u64>,
}

impl AnswerCounts {
    /// Counts one sent request and its answer.
    pub fn add(&mut self, step: &Step, sent: &Sent) {
        self.posts += 1;
        if step.first {
            *self.pathways.entry(step.pathway).or_default() += 1;
        }
        self.lost += u64::from(step.lost);
        self.pages += u64::from(sent.pages);
        self.pages_failed += u64::from(sent.pages_failed);
        let (status, replayed, receipt) = match &sent.answer {
            Answer::None(_) => {
                self.no_answer += 1;
                return;
            }
            Answer::Http {
                status,
                replayed,
                receipt,
            } => (*status, *replayed, *receipt),
        };
        let known = receipt.is_some_and(|r| self.first_named.contains(&r));
        let count = |a: &mut Accepted| {
            a.n += 1;
            if replayed {
                a.replayed += 1;
            } else if known {
                a.absorbed += 1;
            }
        };
        match status {
            201 => count(&mut self.created),
            303 => count(&mut self.see_other),
            202 => self.pending += 1,
            409 => self.in_flight += 1,
            422 if receipt.is_some() => self.conflicts += 1,
            429 => self.too_many += 1,
            400..=499 => self.refused += 1,
            500..=599 => self.server_errors += 1,
            _ => self.other += 1,
        }
        if matches!(status, 201 | 202 | 303)
            && let Some(r) = receipt
        {
            self.receipts.insert(r);
            if !replayed {
                self.first_named.insert(r);
            }
        }
    }

    /// A planned request left unsent.
    pub fn skip(&mut self) {
        self.not_sent += 1;
    }

    /// Distinct receipt numbers answered in this run.
    pub fn receipts(&self) -> u64 {
        self.receipts.len() as u64
    }

    /// Answers that came back at all.
    pub fn answered(&self) -> u64 {
        self.posts - self.no_answer
    }

    /// `posts 52: 201 31 (4 replayed, 3 absorbed) · 303 …`
    pub fn answers_line(&self, lang: Lang) -> String {
        let accepted = |status: u16, a: &Accepted| {
            t!(
                lang,
                "simulate.answers.accepted",
                status = status,
                n = a.n,
                replayed = a.replayed,
                absorbed = a.absorbed
            )
        };
        let line = t!(
            lang,
            "simulate.answers.line",
            posts = self.posts,
            created = accepted(201, &self.created),
            see_other = accepted(303, &self.see_other),
            pending = self.pending,
            in_flight = self.in_flight,
            conflicts = self.conflicts,
            too_many = self.too_many,
            refused = self.refused,
            server_errors = self.server_errors,
            no_answer = self.no_answer
        );
        // A status outside these (200, 302, ...) is said as such, never as a 5xx.
        match self.other {
            0 => line,
            n => line + &t!(lang, "simulate.answers.other", n = n),
        }
    }

    /// `receipts 40 · pages 12 (0 failed) · lost on purpose 5 · not sent 0`
    pub fn totals_line(&self, lang: Lang) -> String {
        t!(
            lang,
            "simulate.totals",
            receipts = self.receipts(),
            pages = self.pages,
            pages_failed = self.pages_failed,
            lost = self.lost,
            not_sent = self.not_sent
        )
    }

    /// `pathways: single 20, second_click 4, …` (every pathway, by its id).
    pub fn pathways_line(&self, lang: Lang) -> String {
        let list = KINDS
            .iter()
            .map(|(p, _)| format!("{} {}", p.id(), self.pathways.get(p).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ");
        t!(lang, "simulate.pathways", list = list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::form::FormShape;
    use crate::simulate::scenario::{self, Timing};
    use rand::SeedableRng;

    fn step(pathway: VisitKind) -> Step {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        scenario::steps(
            &mut rng,
            0,
            pathway,
            0,
            &FormShape::contact(),
            &Timing::default().profile(),
        )
        .remove(0)
    }

    fn http(status: u16, replayed: bool, receipt: Option<u64>) -> Sent {
        Sent {
            answer: Answer::Http {
                status,
                replayed,
                receipt,
            },
            pages: 0,
            pages_failed: 0,
        }
    }

    #[test]
    fn a_replay_counted_before_its_original_leaves_the_original_new() {
        let mut t = AnswerCounts::default();
        let first = step(VisitKind::SecondClick);
        let mut later = first.clone();
        later.first = false;
        // The second click's replay reaches the tally first.
        t.add(&later, &http(201, true, Some(7)));
        t.add(&first, &http(201, false, Some(7)));
        assert_eq!(
            t.created,
            Accepted {
                n: 2,
                replayed: 1,
                absorbed: 0
            }
        );
        // An exact copy answered with that number afterwards is absorbed.
        t.add(&later, &http(201, false, Some(7)));
        assert_eq!(t.created.absorbed, 1);
    }

    #[test]
    fn answers_are_counted_as_they_came() {
        let mut t = AnswerCounts::default();
        let first = step(VisitKind::Single);
        let mut later = first.clone();
        later.first = false;
        t.add(&first, &http(201, false, Some(1)));
        t.add(&later, &http(201, true, Some(1)));
        t.add(&later, &http(201, false, Some(1)));
        t.add(&later, &http(303, false, Some(2)));
        t.add(&later, &http(303, false, Some(1)));
        t.add(&later, &http(422, false, Some(1)));
        t.add(&later, &http(422, false, None));
        t.add(&later, &http(429, false, None));
        t.add(&later, &http(409, false, Some(1)));
        t.add(&later, &http(503, false, None));
        t.add(
            &later,
            &Sent {
                answer: Answer::None("refused".into()),
                pages: 1,
                pages_failed: 1,
            },
        );
        assert_eq!(
            t.created,
            Accepted {
                n: 3,
                replayed: 1,
                absorbed: 1
            }
        );
        assert_eq!(
            t.see_other,
            Accepted {
                n: 2,
                replayed: 0,
                absorbed: 1
            }
        );
        assert_eq!(
            (
                t.conflicts,
                t.refused,
                t.too_many,
                t.in_flight,
                t.server_errors
            ),
            (1, 1, 1, 1, 1)
        );
        assert_eq!((t.posts, t.no_answer, t.answered()), (11, 1, 10));
        assert_eq!(t.receipts(), 2);
        assert_eq!((t.pages, t.pages_failed), (1, 1));
        assert_eq!(t.pathways.get(&VisitKind::Single), Some(&1));
        assert_eq!(
            t.answers_line(Lang::En),
            "posts 11: 201 3 (1 replayed, 1 absorbed) · 303 2 (0 replayed, 1 absorbed) · 202 0 · 409 1 · \
             422 1 · 429 1 · other 4xx 1 · 5xx 1 · no answer 1"
        );
        t.add(&later, &http(200, false, None));
        assert!(
            t.answers_line(Lang::En)
                .ends_with("5xx 1 · no answer 1 · other statuses 1"),
            "a 200 is not a 5xx"
        );
        assert!(
            t.pathways_line(Lang::En)
                .contains("single 1, second_click 0")
        );
        assert!(t.answers_line(Lang::Ja).contains("応答なし 1"));
    }
}
