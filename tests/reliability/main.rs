//! Reliability: crashes, bad files, hostile data, a live intake, races, and
//! the properties they lean on. `scripts/reliability.sh` runs them longer.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod crash;
mod files;
mod hostile;
mod live;
mod props;
mod race;

/// The entry point of the helper processes [`support::spawn_helper`] starts
/// (this binary run again with a filter on this test's name).
#[test]
#[ignore = "a child process of the other tests (RELIAB_ROLE)"]
fn reliability_helper() {
    support::helper_main();
}
