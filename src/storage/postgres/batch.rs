//! A group commit's reads and writes on PostgreSQL, in a few round trips
//! rather than a few per submission: what the batch will ask is read in one
//! go at its start ([`Batch::prefetch`]), and the rows it only adds
//! (completed receipts, replays, conflicts, absorbed copies, visitor
//! hashes) are held back and written in one statement each before the
//! commit ([`Batch::flush`]).
//!
//! What the batch writes itself is kept in the caches as it is written, so
//! that a later submission of the same batch reads it. A completed receipt
//! held back whose key another process took meanwhile cannot be written:
//! the flush fails, the transaction rolls back, and the writer does the
//! batch again one submission at a time.

use std::collections::HashMap;

use postgres::Client;

use crate::model::{Millis, ReceiptId};
use crate::storage::intake::{
    AbsorbedKey, BatchPlan, KeyHolder, NewReceipt, ReceiptAnswer, WriteFailure,
};

type Key = (String, String);

/// Rows of four columns held back, column by column (for `unnest`).
type Columns4<A, B, C, D> = (Vec<A>, Vec<B>, Vec<C>, Vec<D>);

/// The caches and the writes held back of one transaction.
#[derive(Default)]
pub struct Batch {
    pub key_holders: HashMap<Key, Option<KeyHolder>>,
    pub absorbed: HashMap<Key, Option<AbsorbedKey>>,
    pub visitors: HashMap<(String, u128), Option<(ReceiptId, Millis)>>,
    /// Ids taken from the sequence for the receipts to come, last first.
    ids: Vec<ReceiptId>,
    /// State and response of the receipts held back.
    pub answers: HashMap<ReceiptId, ReceiptAnswer>,
    receipts: Receipts,
    replays: (Vec<ReceiptId>, Vec<String>),
    conflicts: Columns4<ReceiptId, String, String, String>,
    absorbed_rows: Columns4<ReceiptId, Option<String>, String, Option<String>>,
    noted: Columns4<String, Vec<u8>, ReceiptId, String>,
}

/// Completed receipts held back, column by column (for `unnest`).
#[derive(Default)]
struct Receipts {
    id: Vec<ReceiptId>,
    scope: Vec<String>,
    key: Vec<Option<String>>,
    digest: Vec<String>,
    payload: Vec<String>,
    response: Vec<String>,
    at: Vec<String>,
}

fn at(at_ms: Millis) -> String {
    crate::model::time::format_rfc3339(at_ms)
}

impl Batch {
    /// Locks the plan's visitors in one order and reads its keys' holders,
    /// the receipts its keys were absorbed into, its visitors' latest
    /// receipts, and ids for the receipts it may store.
    pub fn prefetch(client: &mut Client, plan: &BatchPlan<'_>) -> Result<Batch, WriteFailure> {
        let mut batch = Batch::default();
        let mut locks: Vec<i64> = plan.visitors.iter().map(|v| v.1 as u64 as i64).collect();
        locks.sort_unstable();
        locks.dedup();
        if !locks.is_empty() {
            // unnest hands the locks over in the array's order.
            client.execute(
                "SELECT count(pg_advisory_xact_lock(l)) FROM unnest($1::bigint[]) AS l",
                &[&locks],
            )?;
        }
        if !plan.keys.is_empty() {
            let scopes: Vec<&str> = plan.keys.iter().map(|k| k.0).collect();
            let keys: Vec<&str> = plan.keys.iter().map(|k| k.1).collect();
            for (scope, key) in &plan.keys {
                batch
                    .key_holders
                    .insert((scope.to_string(), key.to_string()), None);
                batch
                    .absorbed
                    .insert((scope.to_string(), key.to_string()), None);
            }
            let rows = client.query(
                "SELECT r.scope, r.request_key, r.id, r.digest, r.state, r.response, \
                        (extract(epoch FROM coalesce(r.updated_at, r.created_at)) * 1000)::bigint \
                 FROM unnest($1::text[], $2::text[]) AS t(scope, key) \
                 JOIN receipts r ON r.scope = t.scope AND r.request_key = t.key",
                &[&scopes, &keys],
            )?;
            for r in rows {
                batch.key_holders.insert(
                    (r.get(0), r.get(1)),
                    Some(KeyHolder {
                        id: r.get(2),
                        digest: r.get(3),
                        state: r.get(4),
                        response: r.get(5),
                        claimed_at: r.get(6),
                    }),
                );
            }
            let rows = client.query(
                "SELECT DISTINCT ON (t.scope, t.key) t.scope, t.key, r.id, r.digest, r.state, \
                        r.response, a.digest \
                 FROM unnest($1::text[], $2::text[]) AS t(scope, key) \
                 JOIN absorbed a ON a.request_key = t.key \
                 JOIN receipts r ON r.id = a.receipt_id AND r.scope = t.scope \
                 WHERE NOT EXISTS (SELECT 1 FROM receipts h \
                                   WHERE h.scope = t.scope AND h.request_key = t.key) \
                 ORDER BY t.scope, t.key, a.id",
                &[&scopes, &keys],
            )?;
            for r in rows {
                batch.absorbed.insert(
                    (r.get(0), r.get(1)),
                    Some(AbsorbedKey {
                        id: r.get(2),
                        receipt_digest: r.get(3),
                        state: r.get(4),
                        response: r.get(5),
                        copy_digest: r.get(6),
                    }),
                );
            }
        }
        if !plan.visitors.is_empty() {
            let scopes: Vec<&str> = plan.visitors.iter().map(|v| v.0).collect();
            let hashes: Vec<Vec<u8>> = plan
                .visitors
                .iter()
                .map(|v| v.1.to_le_bytes().to_vec())
                .collect();
            let since: Vec<String> = plan.visitors.iter().map(|v| at(v.2)).collect();
            for &(scope, visitor, _) in &plan.visitors {
                batch.visitors.insert((scope.to_string(), visitor), None);
            }
            let rows = client.query(
                "SELECT DISTINCT ON (t.scope, t.visitor) t.scope, t.visitor, v.receipt_id, \
                        (extract(epoch FROM v.received_at) * 1000)::bigint \
                 FROM unnest($1::text[], $2::bytea[], $3::text[]) AS t(scope, visitor, since) \
                 JOIN recent_visitors v ON v.scope = t.scope AND v.visitor = t.visitor \
                      AND v.received_at >= t.since::timestamptz \
                 ORDER BY t.scope, t.visitor, v.received_at DESC, v.receipt_id DESC",
                &[&scopes, &hashes, &since],
            )?;
            for r in rows {
                let hash: Vec<u8> = r.get(1);
                let Ok(hash) = <[u8; 16]>::try_from(hash.as_slice()) else {
                    continue;
                };
                batch.visitors.insert(
                    (r.get(0), u128::from_le_bytes(hash)),
                    Some((r.get(2), r.get(3))),
                );
            }
        }
        if plan.receipts > 0 {
            let n = i64::try_from(plan.receipts).unwrap_or(i64::MAX);
            let rows = client.query(
                "SELECT nextval(pg_get_serial_sequence('receipts', 'id')) FROM generate_series(1::bigint, $1::bigint)",
                &[&n],
            )?;
            batch.ids = rows.iter().rev().map(|r| r.get(0)).collect();
        }
        Ok(batch)
    }

    /// Holds back a completed receipt whose key is known to be free (or
    /// that has none); `None` when that is not known, or no id is left:
    /// then it is written at once.
    pub fn insert_completed(
        &mut self,
        r: &NewReceipt<'_>,
        response: &dyn Fn(ReceiptId) -> String,
    ) -> Option<(ReceiptId, String)> {
        let key = r.key.map(|k| (r.scope.to_string(), k.to_string()));
        if let Some(key) = &key
            && !matches!(self.key_holders.get(key), Some(None))
        {
            return None;
        }
        let id = self.ids.pop()?;
        let text = response(id);
        let at_text = at(r.at_ms);
        if let Some(key) = key {
            self.key_holders.insert(
                key.clone(),
                Some(KeyHolder {
                    id,
                    digest: r.digest.to_string(),
                    state: "completed".into(),
                    response: Some(text.clone()),
                    claimed_at: Some(r.at_ms),
                }),
            );
            self.absorbed.insert(key, None);
        }
        self.answers.insert(
            id,
            ReceiptAnswer {
                state: "completed".into(),
                response: Some(text.clone()),
            },
        );
        let held = &mut self.receipts;
        held.id.push(id);
        held.scope.push(r.scope.to_string());
        held.key.push(r.key.map(str::to_string));
        held.digest.push(r.digest.to_string());
        held.payload.push(r.payload.to_string());
        held.response.push(text.clone());
        held.at.push(at_text);
        Some((id, text))
    }

    pub fn replay(&mut self, id: ReceiptId, at_ms: Millis) {
        self.replays.0.push(id);
        self.replays.1.push(at(at_ms));
    }

    pub fn conflict(&mut self, id: ReceiptId, digest: &str, payload: &str, at_ms: Millis) {
        let c = &mut self.conflicts;
        c.0.push(id);
        c.1.push(digest.to_string());
        c.2.push(payload.to_string());
        c.3.push(at(at_ms));
    }

    pub fn absorbed_copy(
        &mut self,
        id: ReceiptId,
        key: Option<&str>,
        digest: Option<&str>,
        at_ms: Millis,
    ) {
        // The copy's key holds the receipt from now on: read it again.
        if let Some(key) = key {
            self.absorbed.retain(|(_, k), _| k != key);
        }
        let a = &mut self.absorbed_rows;
        a.0.push(id);
        a.1.push(key.map(str::to_string));
        a.2.push(at(at_ms));
        a.3.push(digest.map(str::to_string));
    }

    pub fn note_visitor(&mut self, scope: &str, visitor: u128, id: ReceiptId, at_ms: Millis) {
        self.visitors
            .insert((scope.to_string(), visitor), Some((id, at_ms)));
        let n = &mut self.noted;
        n.0.push(scope.to_string());
        n.1.push(visitor.to_le_bytes().to_vec());
        n.2.push(id);
        n.3.push(at(at_ms));
    }

    /// Writes what was held back, one statement a table.
    pub fn flush(&mut self, client: &mut Client) -> Result<(), WriteFailure> {
        let r = std::mem::take(&mut self.receipts);
        if !r.id.is_empty() {
            let written = client.query(
                "INSERT INTO receipts (id, scope, request_key, digest, payload, state, response, \
                                       created_at, updated_at) \
                 SELECT id, scope, key, digest, payload, 'completed', response, \
                        at::timestamptz, at::timestamptz \
                 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], \
                             $6::text[], $7::text[]) \
                      AS t(id, scope, key, digest, payload, response, at) \
                 ON CONFLICT (scope, request_key) DO NOTHING RETURNING id",
                &[
                    &r.id,
                    &r.scope,
                    &r.key,
                    &r.digest,
                    &r.payload,
                    &r.response,
                    &r.at,
                ],
            )?;
            if written.len() != r.id.len() {
                return Err(WriteFailure::other(
                    "another process stored a key of this batch meanwhile; the batch is done again",
                ));
            }
        }
        let (ids, ats) = std::mem::take(&mut self.replays);
        if !ids.is_empty() {
            client.execute(
                "INSERT INTO replays (receipt_id, received_at) \
                 SELECT id, at::timestamptz FROM unnest($1::bigint[], $2::text[]) AS t(id, at)",
                &[&ids, &ats],
            )?;
        }
        let (ids, digests, payloads, ats) = std::mem::take(&mut self.conflicts);
        if !ids.is_empty() {
            client.execute(
                "INSERT INTO key_conflicts (receipt_id, digest, payload, received_at) \
                 SELECT id, digest, payload, at::timestamptz \
                 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) \
                      AS t(id, digest, payload, at)",
                &[&ids, &digests, &payloads, &ats],
            )?;
        }
        let (ids, keys, ats, digests) = std::mem::take(&mut self.absorbed_rows);
        if !ids.is_empty() {
            client.execute(
                "INSERT INTO absorbed (receipt_id, request_key, received_at, digest) \
                 SELECT id, key, at::timestamptz, digest \
                 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) \
                      AS t(id, key, at, digest)",
                &[&ids, &keys, &ats, &digests],
            )?;
        }
        let (scopes, hashes, ids, ats) = std::mem::take(&mut self.noted);
        if !ids.is_empty() {
            client.execute(
                "INSERT INTO recent_visitors (scope, visitor, receipt_id, received_at) \
                 SELECT scope, visitor, id, at::timestamptz \
                 FROM unnest($1::text[], $2::bytea[], $3::bigint[], $4::text[]) \
                      AS t(scope, visitor, id, at)",
                &[&scopes, &hashes, &ids, &ats],
            )?;
        }
        Ok(())
    }
}
