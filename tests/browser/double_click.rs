//! A double click on the send button, as fast as the browser takes input:
//! with the page's script (which sends once and disables the button) and
//! without it (a plain form post, each carrying the page's `_key`).

use serde_json::json;

use crate::chromium::{Chromium, Scripts};
use crate::intake::Intake;
use crate::proxy::Proxy;
use crate::{
    assert_stored_as_typed, fill_in, received_text, sent_key, settled_status, thanks_page,
    wait_for_script,
};

#[test]
fn a_double_click_on_the_served_page_sends_once_and_shows_the_receipt_number() {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    let Some(browser) = Chromium::start(Scripts::On) else {
        return;
    };
    browser.goto(&format!("{}/f/contact", proxy.url()));
    wait_for_script(&browser, "#intake-form");
    // The page's one stylesheet applies under its Content-Security-Policy:
    // the honeypot stays out of people's sight.
    assert_eq!(
        browser.execute("return getComputedStyle(document.querySelector('.intake-hp')).position"),
        json!("absolute")
    );
    fill_in(&browser, "#intake-form");

    browser.double_click(&browser.find("#intake-submit"));

    let (outcome, text) = settled_status(&browser, "#intake-status");
    let receipt = intake.only_receipt();
    assert_eq!(
        (outcome.as_str(), text),
        ("received", received_text(receipt.id))
    );
    assert_eq!(receipt.state, "completed");
    assert_stored_as_typed(&receipt.payload);
    // The first click sent; the second met a disabled button.
    let posts = proxy.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(
        receipt.key.as_deref(),
        Some(sent_key(posts[0].key.as_deref()))
    );
    assert_eq!(intake.replays(), 0);
    // A confirmed success forgets the key and empties the form for the next
    // inquiry; the button works again.
    assert_eq!(browser.execute("return sessionStorage.length"), json!(0));
    assert_eq!(
        browser.execute(
            "return [document.querySelector('#intake-form [name=message]').value,
                     document.getElementById('intake-submit').disabled]"
        ),
        json!(["", false])
    );
}

#[test]
fn a_double_click_on_a_plain_form_stores_one_receipt_and_shows_the_thanks_page() {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    let Some(browser) = Chromium::start(Scripts::Off) else {
        return;
    };
    browser.goto(&format!("{}/f/contact", proxy.url()));
    fill_in(&browser, "#intake-form");
    assert!(
        browser
            .try_find("#intake-form[data-intake-ready]")
            .is_none(),
        "the script ran in a browser without scripts"
    );

    browser.double_click(&browser.find("#intake-submit"));

    let url = thanks_page(&browser);
    let receipt = intake.only_receipt();
    assert_eq!(
        url,
        format!("{}/f/contact/thanks?receipt={}", proxy.url(), receipt.id)
    );
    assert_eq!(
        browser.text(&browser.find("#intake-status")),
        "お問い合わせを受け付けました。"
    );
    assert_eq!(
        browser.text(&browser.find("#intake-receipt")),
        format!("受付番号は {} です。", receipt.id)
    );
    assert_stored_as_typed(&receipt.payload);
    // However many posts the browser let through, each carried the page's
    // one key, and every one after the first was answered as a replay.
    let posts = proxy.posts();
    assert!(!posts.is_empty());
    let key = receipt.key.clone().expect("the page's key");
    for post in &posts {
        assert!(
            post.body.contains(&format!("_key={key}&")),
            "{post:#?} does not carry {key}"
        );
        assert_eq!(post.status, Some(303), "{post:#?}");
    }
    assert_eq!(intake.replays(), posts.len() as i64 - 1);
}
