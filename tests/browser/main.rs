//! The form page (`GET /f/{form}`) and `intake.js` in headless Chromium,
//! driven through ChromeDriver: a double click, a lost response, a reload
//! and a site's own form each end with exactly one receipt in the database
//! and the page saying the right thing.
//!
//! Chromium and ChromeDriver are Debian's `chromium` and `chromium-driver`
//! (`.ci/run` installs them). Where they are missing the tests say so on
//! stderr and pass, except under CI (`CI` set), where they fail.

mod chromium;
mod intake;
mod proxy;
mod site;
mod webdriver;

mod double_click;
mod lost_response;
mod own_form;
mod reload;

use chromium::{Chromium, eventually};

/// What a visitor types: the form's fields, in Japanese where people write
/// Japanese.
pub const VISITOR: &[(&str, &str)] = &[
    ("name", "山田 花子"),
    ("email", "hanako@example.jp"),
    ("company", "株式会社サンプル商事"),
    (
        "message",
        "請求書の宛名を変更したいので、ご連絡をお願いします。",
    ),
];

/// Types [`VISITOR`] into the form that `form` selects.
pub fn fill_in(browser: &Chromium, form: &str) {
    for (name, value) in VISITOR {
        let field = browser.find(&format!("{form} [name=\"{name}\"]"));
        browser.fill(&field, value);
    }
}

/// The fields a receipt stores for [`VISITOR`]: each as typed.
pub fn assert_stored_as_typed(payload: &serde_json::Value) {
    for (name, value) in VISITOR {
        assert_eq!(payload[name], *value, "{name} in {payload}");
    }
}

/// Waits until `intake.js` has taken over the form that `form` selects
/// (it marks it `data-intake-ready`).
pub fn wait_for_script(browser: &Chromium, form: &str) {
    let selector = format!("{form}[data-intake-ready]");
    eventually("intake.js to enhance the form", || {
        browser.try_find(&selector).ok_or_else(|| "not yet".into())
    });
}

/// The status line's outcome (`data-intake-outcome`) and text once the
/// script has settled on one: neither sending nor retrying.
pub fn settled_status(browser: &Chromium, status: &str) -> (String, String) {
    eventually("the status to settle", || {
        let element = browser.find(status);
        let outcome = browser
            .attribute(&element, "data-intake-outcome")
            .unwrap_or_default();
        match outcome.as_str() {
            "" | "sending" | "retrying" => Err(format!("outcome {outcome:?}")),
            _ => Ok((outcome, browser.text(&element))),
        }
    })
}

/// The script's words for a received submission with this number
/// (`page.script.received` in Japanese).
/// Waits until the browser is on the thank-you page; its address.
pub fn thanks_page(browser: &Chromium) -> String {
    eventually("the thanks page", || {
        let url = browser.current_url();
        if url.contains("/thanks") {
            Ok(url)
        } else {
            Err(url)
        }
    })
}

pub fn received_text(receipt: i64) -> String {
    format!("受け付けました。受付番号は {receipt} です。")
}

/// The key `intake.js` sent, as it was sent: a structured-field string.
pub fn sent_key(header: Option<&str>) -> &str {
    let header = header.expect("an Idempotency-Key header");
    header
        .strip_prefix('"')
        .and_then(|k| k.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a quoted key: {header}"))
}
