//! A site's own form on another origin, posting with `fetch` through
//! `intake.js` loaded from the intake: across origins (CORS from the form's
//! configured origins), with a lost answer on the way; and the same form on
//! an origin the form does not list, refused.

use crate::chromium::{Chromium, Scripts, eventually};
use crate::intake::Intake;
use crate::proxy::{Fate, Proxy, lose_first_post};
use crate::site::Site;
use crate::{
    assert_stored_as_typed, fill_in, received_text, sent_key, settled_status, wait_for_script,
};

/// The contact page of a company's own site: its own markup, its own
/// status line, the intake's script and address.
fn page(intake: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="ja">
<head>
<meta charset="utf-8">
<title>お問い合わせ | サンプル商事</title>
<script src="{intake}/intake.js" defer></script>
</head>
<body>
<h1>お問い合わせ</h1>
<form class="contact" action="{intake}/f/contact" method="post" data-intake>
  <label>お名前 <input name="name"></label>
  <label>メールアドレス <input name="email" type="email" required></label>
  <label>会社名 <input name="company"></label>
  <label>内容 <textarea name="message" required></textarea></label>
  <button type="submit">送信</button>
  <p class="note" data-intake-status></p>
</form>
</body>
</html>
"#
    )
}

#[test]
fn a_sites_own_form_posts_across_origins_and_a_lost_answer_ends_in_one_receipt() {
    let (listener, origin) = Site::bind();
    let intake = Intake::start(&[&origin]);
    let proxy = Proxy::start(intake.addr());
    proxy.plan(lose_first_post());
    let site = Site::serve(listener, page(&proxy.url()));
    let Some(browser) = Chromium::start(Scripts::On) else {
        return;
    };
    browser.goto(&site.url());
    wait_for_script(&browser, "form.contact");
    fill_in(&browser, "form.contact");
    browser.click(&browser.find("form.contact button"));

    let (outcome, text) = settled_status(&browser, "form.contact [data-intake-status]");
    let receipt = intake.only_receipt();
    assert_eq!(
        (outcome.as_str(), text),
        ("received", received_text(receipt.id))
    );
    // The scope is the configuration's, whatever the page.
    assert_eq!(receipt.scope, "acme.example/contact");
    assert_stored_as_typed(&receipt.payload);
    let posts = proxy.posts();
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert_eq!((posts[0].status, posts[0].fate), (Some(201), Fate::Lose));
    assert_eq!(
        sent_key(posts[0].key.as_deref()),
        sent_key(posts[1].key.as_deref())
    );
    assert_eq!(
        receipt.key.as_deref(),
        Some(sent_key(posts[1].key.as_deref()))
    );
    assert_eq!(intake.replays(), 1);
    // The browser asked first whether this origin may post with a key.
    assert!(
        proxy
            .seen()
            .iter()
            .any(|e| e.method == "OPTIONS" && e.status == Some(200)),
        "{:#?}",
        proxy.seen()
    );
}

#[test]
fn a_plain_form_on_a_page_of_an_unlisted_origin_is_refused_and_nothing_stored() {
    let (listener, _unlisted) = Site::bind();
    let intake = Intake::start(&[]);
    let proxy = Proxy::start(intake.addr());
    let site = Site::serve(listener, page(&proxy.url()));
    // Without scripts: a plain form's post needs no CORS, which is why the
    // server itself must refuse it.
    let Some(browser) = Chromium::start(Scripts::Off) else {
        return;
    };
    browser.goto(&site.url());
    fill_in(&browser, "form.contact");
    browser.click(&browser.find("form.contact button"));

    let post = eventually("the post's answer", || {
        proxy
            .posts()
            .into_iter()
            .find(|p| p.status.is_some())
            .ok_or_else(|| format!("{:?}", proxy.seen()))
    });
    assert_eq!(post.status, Some(403), "{post:?}");
    assert!(intake.receipts().is_empty(), "{:#?}", intake.receipts());
}
