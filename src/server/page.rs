//! The intake server's HTML: the form page a visitor fills in and the
//! thank-you page a plain form's post is redirected to (303).
//!
//! Pure functions from a form's configuration to a complete HTML5 document;
//! no I/O. The form works without JavaScript (a plain post with the hidden
//! `_key` minted for this page, answered 303 to the thank-you page);
//! `/intake.js` ([`INTAKE_JS`]) enhances it when it runs: a key kept until a
//! confirmed success, a timeout, retries with the same key, and a truthful
//! status line (`#intake-status`).
//!
//! Every text that reaches the HTML goes through [`escape`]: the form's name,
//! title and field names come from the operator's configuration and the key
//! from the server, but none of them is trusted to be markup.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::i18n::Lang;
use crate::sanitize;
use crate::t;

/// The enhancing script served at `/intake.js`, built into the binary.
pub const INTAKE_JS: &str = include_str!("../../assets/intake.js");

/// The pages' one stylesheet, inline so that a page is a single response.
/// A server that sends a Content-Security-Policy allows it by hash
/// (`style-src 'sha256-…'` of this text).
pub const STYLE: &str = "\
body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;padding:1rem;color:#1a1a1a;background:#fff}\
main{max-width:40rem;margin:0 auto}\
.field{margin:0 0 1rem}\
.field label{display:block;font-weight:600}\
.field input,.field textarea{box-sizing:border-box;width:100%;padding:.5rem;font:inherit;border:1px solid #767676;border-radius:4px}\
.field textarea{min-height:10rem}\
.required{font-weight:400;font-size:.875em;color:#a4000f;margin-left:.5em}\
.intake-hp{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}\
button{padding:.6rem 1.6rem;font:inherit}\
button[disabled]{opacity:.6}\
#intake-status{min-height:1.5em}\
#intake-notice{border:2px solid #a4000f;border-radius:4px;padding:.5rem 1rem;margin:0 0 1rem}\
.field .error{display:block;color:#a4000f}";

/// One form of the configuration, as its pages show it.
#[derive(Clone, Copy, Debug)]
pub struct FormPage<'a> {
    /// The form's name in the configuration and the route (`/f/{form}`).
    pub form: &'a str,
    /// The page's heading and `<title>`; the form's name when the
    /// configuration gives no title.
    pub title: &'a str,
    /// The visitor's fields in the configuration's order: name → maximum
    /// length (the page's `maxlength`).
    pub fields: &'a [(&'a str, usize)],
    /// The fields a visitor must fill in.
    pub required: &'a [&'a str],
    /// The honeypot field's name: hidden from people, filled by bots.
    pub honeypot: Option<&'a str>,
    /// Labels the configuration gives fields, by field name.
    pub labels: &'a BTreeMap<String, String>,
    /// The language of the page's own words.
    pub lang: Lang,
}

/// No configured labels.
pub static NO_LABELS: BTreeMap<String, String> = BTreeMap::new();

/// The form shown again after a post that was not taken: what the visitor
/// typed, what to do, and the message beside each field it is about.
#[derive(Clone, Debug, Default)]
pub struct Filled<'a> {
    pub values: Option<&'a Map<String, Value>>,
    /// What the page says above the form.
    pub notice: Vec<String>,
    /// Field name → the message beside it.
    pub messages: Vec<(String, String)>,
    /// The receipt the notice names (`data-receipt`, for scripts and tests).
    pub receipt: Option<u64>,
}

/// The hidden field that carries a plain form's idempotency key.
pub const KEY_FIELD: &str = "_key";

/// Above this maximum length a field is a `<textarea>` (one line of an
/// `<input>` is no place for a few hundred characters).
const TEXTAREA_ABOVE: usize = 255;

/// Names of fields that hold a long text whatever their maximum length.
const LONG_TEXT_NAMES: &[&str] = &[
    "message", "body", "inquiry", "comment", "comments", "details", "content",
];

/// The form page: a complete HTML5 document whose form posts to
/// `/f/{form}` with `key` in the hidden `_key` field. The caller mints `key`
/// once per page, so that a second click or a resubmitted post carries the
/// same key and the server answers it without a second receipt.
pub fn form_page(page: &FormPage<'_>, key: &str) -> String {
    render_form(page, key, &Filled::default())
}

/// [`form_page`] again, filled in as the visitor left it, with `filled`'s
/// notice and messages.
pub fn form_page_again(page: &FormPage<'_>, key: &str, filled: &Filled<'_>) -> String {
    render_form(page, key, filled)
}

fn render_form(page: &FormPage<'_>, key: &str, filled: &Filled<'_>) -> String {
    let lang = page.lang;
    let mut html = String::with_capacity(4096);
    head(&mut html, lang, page.title, true);
    html.push_str("<main>\n<h1>");
    html.push_str(&escape(page.title));
    html.push_str("</h1>\n<p>");
    html.push_str(&escape(t!(lang, "page.intro")));
    html.push_str("</p>\n");
    notice(&mut html, filled);
    let _ = writeln!(
        html,
        "<form id=\"intake-form\" method=\"post\" action=\"{}\" accept-charset=\"utf-8\" data-intake>",
        escape(&form_path(page.form))
    );
    let _ = writeln!(
        html,
        "<input type=\"hidden\" name=\"{KEY_FIELD}\" value=\"{}\">",
        escape(key)
    );
    for (index, &(name, max)) in page.fields.iter().enumerate() {
        field(&mut html, page, filled, index, name, max);
    }
    if let Some(name) = page.honeypot {
        honeypot(&mut html, lang, name);
    }
    let _ = writeln!(
        html,
        "<p><button id=\"intake-submit\" type=\"submit\">{}</button></p>",
        escape(t!(lang, "page.submit"))
    );
    html.push_str("<p id=\"intake-status\" role=\"status\" aria-live=\"polite\"></p>\n");
    html.push_str("</form>\n</main>\n</body>\n</html>\n");
    html
}

/// The thank-you page a plain form's post is redirected to (303): it says
/// the submission was received, and since it is reached by a GET, reloading
/// it posts nothing. Its link leads back to a fresh form page (a new key).
/// `receipt`: the number the redirect named, for the visitor to quote.
pub fn thanks_page(page: &FormPage<'_>, receipt: Option<u64>) -> String {
    let lang = page.lang;
    let mut html = String::with_capacity(1024);
    let heading = t!(lang, "page.thanks.title");
    let title = format!("{heading} — {}", page.title);
    head(&mut html, lang, &title, false);
    html.push_str("<main>\n<h1>");
    html.push_str(&escape(heading));
    html.push_str("</h1>\n<p id=\"intake-status\" role=\"status\">");
    html.push_str(&escape(t!(lang, "page.thanks.received")));
    html.push_str("</p>\n");
    if let Some(n) = receipt {
        let _ = writeln!(
            html,
            "<p id=\"intake-receipt\">{}</p>",
            escape(&t!(lang, "page.thanks.number", receipt = n))
        );
    }
    html.push_str("<p>");
    html.push_str(&escape(t!(lang, "page.thanks.reload")));
    html.push_str("</p>\n");
    back_and_end(&mut html, page);
    html
}

/// Text made safe for HTML, in element content and in a double- or
/// single-quoted attribute value alike: `& < > " '` become character
/// references, and every character the terminal sanitiser refuses (controls,
/// bidi overrides and isolates, zero-width and other invisible format
/// characters) becomes a visible escape such as `\u{202e}`, so that a
/// configured name cannot reorder or hide the text around it.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in sanitize::clean(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A page that only says something: a heading, its paragraphs, and a link
/// back to a fresh form page.
/// `receipt`: the number the page names, also as `data-receipt` for scripts.
pub fn notice_page(
    page: &FormPage<'_>,
    heading: &str,
    paragraphs: &[String],
    receipt: Option<u64>,
) -> String {
    let lang = page.lang;
    let mut html = String::with_capacity(1024);
    head(
        &mut html,
        lang,
        &format!("{heading} — {}", page.title),
        false,
    );
    html.push_str("<main>\n<h1>");
    html.push_str(&escape(heading));
    html.push_str("</h1>\n");
    for (i, text) in paragraphs.iter().enumerate() {
        let mut attrs = String::new();
        if i == 0 {
            attrs.push_str(" id=\"intake-status\" role=\"status\"");
            if let Some(n) = receipt {
                let _ = write!(attrs, " data-receipt=\"{n}\"");
            }
        }
        let _ = writeln!(html, "<p{attrs}>{}</p>", escape(text));
    }
    back_and_end(&mut html, page);
    html
}

/// The link back to a fresh form page, and the document's end.
fn back_and_end(html: &mut String, page: &FormPage<'_>) {
    let _ = writeln!(
        html,
        "<p><a href=\"{}\">{}</a></p>",
        escape(&form_path(page.form)),
        escape(t!(page.lang, "page.thanks.back"))
    );
    html.push_str("</main>\n</body>\n</html>\n");
}

/// The box above a form shown again: what happened and what to do.
fn notice(html: &mut String, filled: &Filled<'_>) {
    if filled.notice.is_empty() && filled.messages.is_empty() {
        return;
    }
    html.push_str("<div id=\"intake-notice\" role=\"alert\"");
    if let Some(n) = filled.receipt {
        let _ = write!(html, " data-receipt=\"{n}\"");
    }
    html.push_str(">\n");
    for text in &filled.notice {
        let _ = writeln!(html, "<p>{}</p>", escape(text));
    }
    if !filled.messages.is_empty() {
        html.push_str("<ul>\n");
        for (_, message) in &filled.messages {
            let _ = writeln!(html, "<li>{}</li>", escape(message));
        }
        html.push_str("</ul>\n");
    }
    html.push_str("</div>\n");
}

/// What a field held as the visitor left it, as the control's text.
fn typed_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(typed_text)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        other => Some(other.to_string()),
    }
}

/// `<!DOCTYPE>` up to the opening `<body>`.
fn head(html: &mut String, lang: Lang, title: &str, script: bool) {
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n",
        lang.code(),
        escape(title)
    );
    if script {
        // Deferred: the form is usable (and posts plainly) before it runs.
        html.push_str("<script src=\"/intake.js\" defer></script>\n");
    } else {
        html.push_str("<meta name=\"robots\" content=\"noindex\">\n");
    }
    html.push_str("</head>\n<body>\n");
}

/// One visitor field: its label (in the page's language for the usual
/// names, else the name itself), and an `<input>` or `<textarea>` limited to
/// the configured length.
fn field(
    html: &mut String,
    page: &FormPage<'_>,
    filled: &Filled<'_>,
    index: usize,
    name: &str,
    max: usize,
) {
    let lang = page.lang;
    // Ids by position: a configured name need not be a valid id.
    let id = format!("intake-field-{index}");
    let label = label_of(page, name);
    let required = page.required.contains(&name);
    let typed = filled
        .values
        .and_then(|v| v.get(name))
        .and_then(typed_text)
        .unwrap_or_default();
    let message = filled
        .messages
        .iter()
        .find(|(field, _)| field == name)
        .map(|(_, m)| m.as_str());
    html.push_str("<p class=\"field\">");
    let _ = write!(html, "<label for=\"{id}\">{}", escape(label));
    if required {
        let _ = write!(
            html,
            "<span class=\"required\">{}</span>",
            escape(t!(lang, "page.required"))
        );
    }
    html.push_str("</label>\n");
    if let Some(message) = message {
        let _ = writeln!(
            html,
            "<span class=\"error\" id=\"intake-error-{index}\">{}</span>",
            escape(message)
        );
    }
    let mut attrs = String::new();
    if required {
        attrs.push_str(" required");
    }
    if message.is_some() {
        let _ = write!(
            attrs,
            " aria-invalid=\"true\" aria-describedby=\"intake-error-{index}\""
        );
    }
    let name_attr = escape(name);
    if is_long_text(name, max) {
        let _ = write!(
            html,
            "<textarea id=\"{id}\" name=\"{name_attr}\" maxlength=\"{max}\" rows=\"8\"{attrs}>{}</textarea>",
            escape(&typed)
        );
    } else {
        let (kind, autocomplete) = input_kind(name);
        let _ = write!(
            html,
            "<input id=\"{id}\" name=\"{name_attr}\" type=\"{kind}\" maxlength=\"{max}\""
        );
        if let Some(autocomplete) = autocomplete {
            let _ = write!(html, " autocomplete=\"{autocomplete}\"");
        }
        if !typed.is_empty() {
            let _ = write!(html, " value=\"{}\"", escape(&typed));
        }
        let _ = write!(html, "{attrs}>");
    }
    html.push_str("</p>\n");
}

/// The honeypot: a text field people neither see (off-screen rather than
/// `display:none`, which bots skip) nor reach (no tab stop, hidden from
/// assistive technology, no autofill), so that only a bot fills it in.
fn honeypot(html: &mut String, lang: Lang, name: &str) {
    let _ = writeln!(
        html,
        "<div class=\"intake-hp\" aria-hidden=\"true\">\
         <label for=\"intake-hp\">{}</label>\
         <input id=\"intake-hp\" name=\"{}\" type=\"text\" value=\"\" tabindex=\"-1\" autocomplete=\"off\">\
         </div>",
        escape(t!(lang, "page.honeypot")),
        escape(name)
    );
}

/// A field's label: the configuration's, else the catalogue's for the usual
/// names, else the name itself.
pub fn label_of<'a>(page: &FormPage<'a>, name: &'a str) -> &'a str {
    page.labels
        .get(name)
        .map(String::as_str)
        .or_else(|| field_label(page.lang, name))
        .unwrap_or(name)
}

fn field_label(lang: Lang, name: &str) -> Option<&'static str> {
    // Literal keys only: the catalogue is never asked for a key built from
    // configured text.
    let text = match name {
        "name" => t!(lang, "page.field.name"),
        "email" => t!(lang, "page.field.email"),
        "company" => t!(lang, "page.field.company"),
        "phone" | "tel" => t!(lang, "page.field.phone"),
        "subject" => t!(lang, "page.field.subject"),
        "message" => t!(lang, "page.field.message"),
        _ => return None,
    };
    Some(text)
}

fn is_long_text(name: &str, max: usize) -> bool {
    max > TEXTAREA_ABOVE || LONG_TEXT_NAMES.contains(&name)
}

/// The input's `type` and `autocomplete` for the usual field names.
fn input_kind(name: &str) -> (&'static str, Option<&'static str>) {
    match name {
        "email" => ("email", Some("email")),
        "phone" | "tel" => ("tel", Some("tel")),
        "name" => ("text", Some("name")),
        "company" => ("text", Some("organization")),
        _ => ("text", None),
    }
}

/// `/f/{form}` with the name percent-encoded as one path segment.
fn form_path(form: &str) -> String {
    let mut path = String::from("/f/");
    for byte in form.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            path.push(byte as char);
        } else {
            let _ = write!(path, "%{byte:02X}");
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTACT_FIELDS: &[(&str, usize)] = &[
        ("name", 100),
        ("email", 254),
        ("company", 200),
        ("phone", 40),
        ("message", 5000),
    ];

    fn contact(lang: Lang) -> FormPage<'static> {
        FormPage {
            form: "contact",
            title: "Contact",
            fields: CONTACT_FIELDS,
            required: &["email", "message"],
            honeypot: Some("_gotcha"),
            labels: &NO_LABELS,
            lang,
        }
    }

    /// The opening tag of the `<input>` or `<textarea>` named `name`.
    fn control<'h>(html: &'h str, name: &str) -> &'h str {
        let needle = format!(" name=\"{name}\"");
        let at = html
            .find(&needle)
            .unwrap_or_else(|| panic!("no control named {name}"));
        let start = html[..at].rfind('<').unwrap();
        let end = at + html[at..].find('>').unwrap() + 1;
        &html[start..end]
    }

    /// The names of the form's controls, in the page's order.
    fn control_names(html: &str) -> Vec<&str> {
        let form = &html[html.find("<form ").unwrap()..];
        let mut names = Vec::new();
        for piece in form.split(" name=\"").skip(1) {
            names.push(&piece[..piece.find('"').unwrap()]);
        }
        names
    }

    #[test]
    fn the_form_page_is_a_complete_html5_document() {
        let html = form_page(&contact(Lang::En), "k1");
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"));
        assert!(html.contains("<meta charset=\"utf-8\">"));
        assert!(
            html.contains(
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            )
        );
        assert!(html.contains("<title>Contact</title>"));
        assert!(html.contains("<script src=\"/intake.js\" defer></script>"));
        assert!(html.contains(
            "<form id=\"intake-form\" method=\"post\" action=\"/f/contact\" \
             accept-charset=\"utf-8\" data-intake>"
        ));
        assert!(html.contains("<button id=\"intake-submit\" type=\"submit\">Send</button>"));
        assert!(html.contains("<p id=\"intake-status\" role=\"status\" aria-live=\"polite\"></p>"));
        assert!(html.ends_with("</form>\n</main>\n</body>\n</html>\n"));
        // Every element opened is closed (the page has no void element among these).
        for tag in [
            "html", "head", "body", "main", "form", "p", "label", "textarea", "div",
        ] {
            let opened = html.matches(&format!("<{tag}>")).count()
                + html.matches(&format!("<{tag} ")).count();
            let closed = html.matches(&format!("</{tag}>")).count();
            assert_eq!(opened, closed, "<{tag}> opened {opened}, closed {closed}");
        }
    }

    #[test]
    fn the_fields_follow_the_configuration() {
        let html = form_page(&contact(Lang::En), "k1");
        assert_eq!(
            control_names(&html),
            [
                "_key", "name", "email", "company", "phone", "message", "_gotcha"
            ]
        );
        assert_eq!(
            control(&html, "name"),
            "<input id=\"intake-field-0\" name=\"name\" type=\"text\" maxlength=\"100\" autocomplete=\"name\">"
        );
        assert_eq!(
            control(&html, "email"),
            "<input id=\"intake-field-1\" name=\"email\" type=\"email\" maxlength=\"254\" autocomplete=\"email\" required>"
        );
        assert_eq!(
            control(&html, "phone"),
            "<input id=\"intake-field-3\" name=\"phone\" type=\"tel\" maxlength=\"40\" autocomplete=\"tel\">"
        );
        assert_eq!(
            control(&html, "message"),
            "<textarea id=\"intake-field-4\" name=\"message\" maxlength=\"5000\" rows=\"8\" required>"
        );
        assert!(html.contains(
            "<label for=\"intake-field-4\">Message<span class=\"required\">required</span></label>"
        ));
        assert!(html.contains("<label for=\"intake-field-0\">Name</label>"));
    }

    #[test]
    fn long_or_message_like_fields_are_textareas() {
        let fields = [("note", 2000), ("comment", 100), ("city", 80)];
        let page = FormPage {
            fields: &fields,
            required: &[],
            ..contact(Lang::En)
        };
        let html = form_page(&page, "k");
        assert!(control(&html, "note").starts_with("<textarea "));
        assert!(control(&html, "comment").starts_with("<textarea "));
        assert!(control(&html, "city").starts_with("<input "));
        // A name without a catalogue label is its own label; nothing is required.
        assert!(html.contains(">city</label>"));
        assert!(!html.contains(" required"));
    }

    #[test]
    fn the_key_rides_in_a_hidden_field() {
        let html = form_page(&contact(Lang::En), "8f14e45f-ceea-467f-a0b2-a1f0d9e3c4b5");
        assert_eq!(
            control(&html, "_key"),
            "<input type=\"hidden\" name=\"_key\" value=\"8f14e45f-ceea-467f-a0b2-a1f0d9e3c4b5\">"
        );
        let odd = form_page(&contact(Lang::En), "a\"><script>x</script>");
        assert_eq!(
            control(&odd, "_key"),
            "<input type=\"hidden\" name=\"_key\" value=\"a&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">"
        );
    }

    #[test]
    fn the_honeypot_is_hidden_from_people_but_not_from_bots() {
        let html = form_page(&contact(Lang::En), "k");
        let field = control(&html, "_gotcha");
        assert_eq!(
            field,
            "<input id=\"intake-hp\" name=\"_gotcha\" type=\"text\" value=\"\" tabindex=\"-1\" autocomplete=\"off\">"
        );
        let wrapper_at = html
            .find("<div class=\"intake-hp\" aria-hidden=\"true\">")
            .unwrap();
        let field_at = html.find(field).unwrap();
        let wrapper_end = wrapper_at + html[wrapper_at..].find("</div>").unwrap();
        assert!(wrapper_at < field_at && field_at < wrapper_end);
        // Off-screen rather than display:none or type=hidden, which bots skip.
        assert!(STYLE.contains(".intake-hp{position:absolute;left:-10000px;"));
        assert!(!STYLE.contains("display:none"));
        assert!(!field.contains("required"));

        let without = FormPage {
            honeypot: None,
            ..contact(Lang::En)
        };
        let html = form_page(&without, "k");
        assert!(!html.contains("intake-hp\""));
        assert!(!html.contains("_gotcha"));
    }

    #[test]
    fn escape_covers_text_and_attributes() {
        assert_eq!(
            escape("<script>alert(1)</script>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(escape(r#"a "b" 'c'"#), "a &quot;b&quot; &#39;c&#39;");
        assert_eq!(escape("R&D &amp;"), "R&amp;D &amp;amp;");
        // A bidi override cannot reverse what follows it; the escape is visible.
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("a\u{2066}b\u{200b}c"), "a\\u{2066}b\\u{200b}c");
        assert_eq!(escape("line\nbreak\0"), "line\\nbreak\\x00");
        assert_eq!(escape("お問い合わせ ☃"), "お問い合わせ ☃");
    }

    #[test]
    fn configured_text_cannot_become_markup() {
        let fields = [("x\"><script>alert(1)</script>", 10), ("e\u{202e}vil", 10)];
        let page = FormPage {
            form: "a b/\"c",
            title: "<img src=x onerror=alert(1)>\u{202e}",
            fields: &fields,
            required: &[],
            honeypot: Some("h\"p"),
            labels: &NO_LABELS,
            lang: Lang::En,
        };
        for html in [form_page(&page, "k"), thanks_page(&page, Some(7))] {
            assert!(!html.contains("<script>alert"), "{html}");
            assert!(!html.contains("<img"), "{html}");
            assert!(!html.contains('\u{202e}'), "{html}");
            assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;\\u{202e}"));
            // The route's segment is percent-encoded, then escaped.
            assert!(html.contains("\"/f/a%20b%2F%22c\""), "{html}");
        }
        let html = form_page(&page, "k");
        assert!(html.contains("name=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""));
        assert!(html.contains(">x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</label>"));
        assert!(html.contains("name=\"e\\u{202e}vil\""));
        assert!(html.contains("name=\"h&quot;p\""));
    }

    #[test]
    fn the_page_speaks_the_configured_language() {
        let ja = form_page(&contact(Lang::Ja), "k");
        assert!(ja.starts_with("<!DOCTYPE html>\n<html lang=\"ja\">"));
        for words in [
            ">お名前</label>",
            ">メールアドレス<span class=\"required\">必須</span></label>",
            ">会社名</label>",
            ">電話番号</label>",
            ">お問い合わせ内容<span class=\"required\">必須</span></label>",
            ">送信する</button>",
            "<p>必要事項を入力して「送信する」を押してください。</p>",
            ">この欄には何も入力しないでください</label>",
        ] {
            assert!(ja.contains(words), "{words} missing from\n{ja}");
        }
        let en = form_page(&contact(Lang::En), "k");
        for words in [
            ">Email<span class=\"required\">required</span></label>",
            ">Send</button>",
        ] {
            assert!(en.contains(words), "{words} missing from\n{en}");
        }
        assert!(!en.contains("送信"));
    }

    #[test]
    fn the_thanks_page_says_received_and_posts_nothing() {
        let en = thanks_page(&contact(Lang::En), Some(12));
        assert!(en.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
        assert!(en.contains("<title>Thank you — Contact</title>"));
        assert!(en.contains(
            "<p id=\"intake-status\" role=\"status\">We have received your submission.</p>"
        ));
        assert!(en.contains("<p id=\"intake-receipt\">Your receipt number is 12.</p>"));
        assert!(en.contains("<a href=\"/f/contact\">Back to the form</a>"));
        assert!(!en.contains("<form") && !en.contains("<script"));
        let ja = thanks_page(&contact(Lang::Ja), None);
        assert!(
            !ja.contains("intake-receipt"),
            "no number named: none shown"
        );
        assert!(ja.contains("<h1>送信ありがとうございました</h1>"));
        assert!(ja.contains("お問い合わせを受け付けました。"));
        assert!(ja.contains("再読み込みしても、もう一度送信されることはありません。"));
        assert!(ja.contains(">フォームに戻る</a>"));
    }

    /// The script carries its own copy of [page.script] (a site's own form
    /// has no catalogue): every text, under its name, in both languages.
    #[test]
    fn the_script_says_what_the_catalogues_say() {
        let block = |code: &str| {
            let start = INTAKE_JS
                .find(&format!("\n    {code}: {{\n"))
                .unwrap_or_else(|| panic!("no {code} block in intake.js"));
            let end = start + INTAKE_JS[start..].find("\n    }").unwrap();
            &INTAKE_JS[start..end]
        };
        // (Split so that the key checker does not read a prefix as a key.)
        let keys: Vec<String> = crate::i18n::keys(Lang::En)
            .unwrap()
            .into_iter()
            .filter(|key| {
                key.strip_prefix("page.")
                    .is_some_and(|rest| rest.starts_with("script."))
            })
            .collect();
        assert!(keys.len() >= 9, "{keys:?}");
        for lang in Lang::ALL {
            let block = block(lang.code());
            assert_eq!(
                block.matches(": \"").count(),
                keys.len(),
                "intake.js {} has other messages than the catalogue",
                lang.code()
            );
            for key in &keys {
                let name = &key[key.rfind('.').unwrap() + 1..];
                let text = serde_json::to_string(crate::i18n::text(lang, key)).unwrap();
                assert!(
                    block.contains(&format!("      {name}: {text}")),
                    "intake.js {}: {name} is not {text}",
                    lang.code()
                );
            }
        }
        // Never "failed": an outcome the script cannot know is said as such.
        assert!(block("ja").contains("unknown: \"送信結果を確認できませんでした。"));
        assert!(!block("en").to_lowercase().contains("fail"));
        assert!(!block("ja").contains("失敗"));
    }

    #[test]
    fn the_japanese_form_page_reads_whole() {
        insta::assert_snapshot!(form_page(
            &contact(Lang::Ja),
            "0b9d3f8e-2c41-4f6a-9e57-3d1c8a7b5e20"
        ));
    }
}
