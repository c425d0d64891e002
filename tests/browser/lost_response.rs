//! Answers lost on the way back to the browser after the server committed:
//! `intake.js` sends again with the same key (the server replays), asks the
//! lookup route when no answer comes, and says it could not confirm (never
//! that it failed) when it cannot know; the key it keeps makes a resend
//! after a reload a replay too. A POST whose connection closes unanswered
//! may be sent again by the browser itself, so the tests count at least the
//! page's attempts, each after the first a replay.

use crate::chromium::{Chromium, Scripts};
use crate::intake::Intake;
use crate::proxy::{Exchange, Fate, Proxy, lose_first_post, lose_posts};
use crate::{fill_in, received_text, sent_key, settled_status, wait_for_script};

/// The served form page through `proxy`, filled in and sent.
fn send_the_form(browser: &Chromium, proxy: &Proxy) {
    browser.goto(&format!("{}/f/contact", proxy.url()));
    wait_for_script(browser, "#intake-form");
    fill_in(browser, "#intake-form");
    browser.click(&browser.find("#intake-submit"));
}

fn is_lookup(e: &Exchange) -> bool {
    e.method == "GET" && e.path.starts_with("/f/contact/receipts/")
}

/// Every POST sent the same key; that key.
fn one_key(posts: &[Exchange]) -> String {
    let key = sent_key(posts[0].key.as_deref()).to_string();
    for post in posts {
        assert_eq!(sent_key(post.key.as_deref()), key, "{posts:#?}");
    }
    key
}

#[test]
fn a_lost_answer_is_sent_again_with_the_same_key_and_answered_from_the_first_receipt() {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    proxy.plan(lose_first_post());
    let Some(browser) = Chromium::start(Scripts::On) else {
        return;
    };
    send_the_form(&browser, &proxy);

    let (outcome, text) = settled_status(&browser, "#intake-status");
    let receipt = intake.only_receipt();
    assert_eq!(
        (outcome.as_str(), text),
        ("received", received_text(receipt.id))
    );
    let posts = proxy.posts();
    assert_eq!(posts.len(), 2, "{posts:#?}");
    // The server stored the first and answered it; the browser never saw it.
    assert_eq!((posts[0].status, posts[0].fate), (Some(201), Fate::Lose));
    assert_eq!((posts[1].status, posts[1].fate), (Some(201), Fate::Pass));
    assert_eq!(receipt.key, Some(one_key(&posts)));
    assert_eq!(intake.replays(), 1);
}

#[test]
fn with_no_answer_at_all_the_page_says_it_could_not_confirm_and_a_resend_after_a_reload_is_a_replay()
 {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    proxy.plan(lose_posts(is_lookup));
    let Some(browser) = Chromium::start(Scripts::On) else {
        return;
    };
    send_the_form(&browser, &proxy);

    let (outcome, text) = settled_status(&browser, "#intake-status");
    assert_eq!(outcome, "unknown", "{text}");
    assert!(
        text.starts_with("送信結果を確認できませんでした。"),
        "{text}"
    );
    assert!(
        !text.contains("失敗") && !text.to_lowercase().contains("fail"),
        "{text}"
    );
    // Every attempt reached the server: one receipt, the others replays.
    let receipt = intake.only_receipt();
    let posts = proxy.posts();
    assert!(posts.len() >= 3, "{posts:#?}");
    let key = one_key(&posts);
    assert_eq!(receipt.key.as_ref(), Some(&key));
    assert_eq!(intake.replays(), posts.len() as i64 - 1);
    let lookups: Vec<Exchange> = proxy.seen().into_iter().filter(is_lookup).collect();
    assert_eq!(lookups.len(), 1, "{lookups:#?}");
    assert_eq!(lookups[0].path, format!("/f/contact/receipts/{key}"));
    assert_eq!(lookups[0].status, Some(200));

    // The network is back. The visitor reloads the page and sends the same
    // words again: the key kept for them makes it the same submission.
    proxy.plan(|_: &Exchange| Fate::Pass);
    browser.refresh();
    wait_for_script(&browser, "#intake-form");
    fill_in(&browser, "#intake-form");
    browser.click(&browser.find("#intake-submit"));

    let (outcome, text) = settled_status(&browser, "#intake-status");
    assert_eq!(
        (outcome.as_str(), text),
        ("received", received_text(receipt.id))
    );
    assert_eq!(intake.only_receipt().id, receipt.id);
    let posts = proxy.posts();
    assert!(posts.len() >= 4, "{posts:#?}");
    assert_eq!(one_key(&posts), key);
    assert_eq!(intake.replays(), posts.len() as i64 - 1);
}

#[test]
fn when_only_the_lookup_answers_the_page_shows_the_receipt_it_found() {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    proxy.plan(lose_posts(|_| false));
    let Some(browser) = Chromium::start(Scripts::On) else {
        return;
    };
    send_the_form(&browser, &proxy);

    let (outcome, text) = settled_status(&browser, "#intake-status");
    let receipt = intake.only_receipt();
    assert_eq!(
        (outcome.as_str(), text),
        ("received", received_text(receipt.id))
    );
    // The page sends three times; the browser itself may send a POST again
    // when a connection closes unanswered. Each is a replay all the same.
    let posts = proxy.posts();
    assert!(posts.len() >= 3, "{posts:#?}");
    one_key(&posts);
    assert_eq!(intake.replays(), posts.len() as i64 - 1);
    let lookups: Vec<Exchange> = proxy.seen().into_iter().filter(is_lookup).collect();
    assert_eq!(lookups.len(), 1, "{lookups:#?}");
    assert_eq!(
        (lookups[0].status, lookups[0].fate),
        (Some(200), Fate::Pass)
    );
}
