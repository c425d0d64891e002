//! Reloads: the thank-you page a plain form's post was redirected to (303)
//! is reached by a GET, so reloading it sends nothing again; and a reload of
//! the form page before sending mints a new key for a new page.

use crate::chromium::{Chromium, Scripts};
use crate::intake::Intake;
use crate::proxy::Proxy;
use crate::{assert_stored_as_typed, fill_in, thanks_page};

#[test]
fn reloading_the_thanks_page_sends_nothing_again() {
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    let Some(browser) = Chromium::start(Scripts::Off) else {
        return;
    };
    let form = format!("{}/f/contact", proxy.url());
    browser.goto(&form);
    let page_key = |b: &Chromium| b.attribute(&b.find("#intake-form [name=_key]"), "value");
    let first = page_key(&browser).expect("a key on the page");
    browser.refresh();
    let second = page_key(&browser).expect("a key on the page");
    assert_ne!(
        first, second,
        "a reloaded form page is a new page with a new key"
    );

    fill_in(&browser, "#intake-form");
    browser.click(&browser.find("#intake-submit"));
    let thanks = thanks_page(&browser);
    let receipt = intake.only_receipt();
    assert_eq!(receipt.key.as_ref(), Some(&second));
    assert_eq!(thanks, format!("{form}/thanks?receipt={}", receipt.id));

    browser.refresh();

    assert_eq!(browser.current_url(), thanks);
    assert_eq!(
        browser.text(&browser.find("#intake-status")),
        "お問い合わせを受け付けました。"
    );
    assert_eq!(
        browser.text(&browser.find("#intake-receipt")),
        format!("受付番号は {} です。", receipt.id)
    );
    assert_eq!(
        browser.text(&browser.find("main p:nth-of-type(3)")),
        "このページを再読み込みしても、もう一度送信されることはありません。"
    );
    let receipt = intake.only_receipt();
    assert_stored_as_typed(&receipt.payload);
    assert_eq!(intake.replays(), 0);
    // The browser fetched the thanks page twice and posted once.
    let seen: Vec<(String, String)> = proxy
        .seen()
        .into_iter()
        .map(|e| (e.method, e.path))
        .filter(|(_, path)| path.starts_with("/f/contact"))
        .collect();
    let thanks_path = format!("/f/contact/thanks?receipt={}", receipt.id);
    assert_eq!(
        seen,
        [
            ("GET", "/f/contact"),
            ("GET", "/f/contact"),
            ("POST", "/f/contact"),
            ("GET", thanks_path.as_str()),
            ("GET", thanks_path.as_str()),
        ]
        .map(|(m, p)| (m.to_string(), p.to_string()))
    );
}
