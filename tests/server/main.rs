//! The intake server over real HTTP on 127.0.0.1: every answer of the
//! status table (docs/intake-protocol.md), what each writes (and that a refusal writes nothing), races,
//! the hardening, and the `serve` command itself.
//!
//! What the server writes runs on both engines (`both!`: `case::sqlite`,
//! `case::postgres`): the protocol, exact copies, the lookup, the action's
//! outcomes, a race on one key and a SIGKILL under load; several `serve`
//! processes on one PostgreSQL database in `several`. The rest is about HTTP
//! (refusals, transport, hardening, pages, proxies, the log), which no engine
//! changes: it runs on SQLite.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod absorb;
mod action;
mod command;
mod counted;
mod crash;
mod cross_site;
mod hardening;
mod language;
mod log;
mod lookup;
mod metrics;
mod page_headers;
mod plain_form;
mod protocol;
mod proxies;
mod race;
mod refusals;
mod retention;
mod several;
mod simulate;
mod transport;
