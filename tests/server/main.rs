//! The intake server over real HTTP on 127.0.0.1: every answer of SPEC's
//! table, what each writes (and that a refusal writes nothing), races,
//! the hardening, and the `serve` command itself.

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
mod lookup;
mod page_headers;
mod plain_form;
mod protocol;
mod proxies;
mod race;
mod refusals;
mod simulate;
mod transport;
