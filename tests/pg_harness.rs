//! The PostgreSQL harness of the tests (tests/common/pg.rs): each test gets a
//! database of its own, usable, and gone once the value is dropped.

#[path = "common/mod.rs"]
mod common;

use common::pg::{pg_database, with_path, without_password};
use postgres::{Client, NoTls};

#[test]
fn a_database_of_its_own_is_usable_then_dropped() {
    let Some(db) = pg_database() else { return };
    let mut client = db.client();
    client
        .batch_execute("CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL)")
        .unwrap();
    client
        .execute("INSERT INTO notes VALUES ($1, $2)", &[&7_i64, &"kept"])
        .unwrap();
    let row = client
        .query_one(
            "SELECT body, current_database() FROM notes WHERE id = $1",
            &[&7_i64],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "kept");
    assert_eq!(row.get::<_, String>(1), db.name());

    let name = db.name().to_string();
    let mut admin = Client::connect(db.admin_url(), NoTls).unwrap();
    let count = |admin: &mut Client| -> i64 {
        admin
            .query_one(
                "SELECT count(*) FROM pg_database WHERE datname = $1",
                &[&name],
            )
            .unwrap()
            .get(0)
    };
    assert_eq!(count(&mut admin), 1);
    // The client is still connected: dropping must not wait for it.
    drop(db);
    assert_eq!(count(&mut admin), 0, "{name} outlived its PgDatabase");
    assert!(client.is_closed() || client.simple_query("SELECT 1").is_err());
}

#[test]
fn databases_are_apart() {
    let Some(a) = pg_database() else { return };
    let b = pg_database().unwrap();
    assert_ne!(a.name(), b.name());
    a.client()
        .batch_execute("CREATE TABLE only_in_a ()")
        .unwrap();
    let seen: i64 = b
        .client()
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(seen, 0);
}

#[test]
fn urls_keep_all_but_the_part_replaced() {
    let url = "postgres://rr:s3cret@127.0.0.1:5433/postgres?sslmode=disable";
    assert_eq!(
        with_path(url, "rr_t_1"),
        "postgres://rr:s3cret@127.0.0.1:5433/rr_t_1?sslmode=disable"
    );
    assert_eq!(
        with_path("postgres://rr:pw@h:1", "x"),
        "postgres://rr:pw@h:1/x"
    );
    assert_eq!(
        without_password(url),
        "postgres://rr@127.0.0.1:5433/postgres?sslmode=disable"
    );
    assert_eq!(without_password("postgres://h/db"), "postgres://h/db");
}
