use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, "site.toml")
}

fn error(text: &str) -> String {
    parse(text).expect_err("refused").0
}

#[test]
fn the_shipped_example_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/forms.toml");
    let config = Config::load(&path).unwrap();
    assert_eq!(config.server.listen, "127.0.0.1:8080".parse().unwrap());
    assert_eq!(config.server.body_limit, 65_536);
    assert_eq!(
        config.server.rate,
        Some(Rate {
            count: 30,
            per: Duration::from_secs(60)
        })
    );
    let contact = &config.forms["contact"];
    assert_eq!(contact.scope, "acme.example/contact");
    assert_eq!(contact.title, "お問い合わせ");
    assert!(contact.labels.is_empty());
    let names: Vec<&str> = contact.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["name", "email", "company", "phone", "message"],
        "the file's order"
    );
    assert_eq!(contact.max_chars("email"), Some(254));
    assert_eq!(contact.max_chars("anything"), Some(5000), "extra = keep");
    assert_eq!(contact.required, ["email", "message"]);
    assert_eq!(contact.extra, Extra::Keep);
    assert_eq!(contact.key, KeyPolicy::Optional);
    assert_eq!(contact.window_ms, 600_000);
    assert_eq!(contact.honeypot.as_deref(), Some("_gotcha"));
    assert_eq!(contact.origins, ["https://acme.example"]);
    assert_eq!(contact.frame_ancestors, ["'self'"], "the default");
    assert_eq!(contact.action, None);
    assert_eq!(contact.retention, None, "kept for ever unless set");
    assert_eq!(config.retention_every, Duration::from_secs(86_400));
}

#[test]
fn the_specs_action_parses() {
    let config = parse(
        r#"[forms.contact]
action = { webhook = "http://127.0.0.1:9000/inquiries", timeout = "5s" }"#,
    )
    .unwrap();
    let form = &config.forms["contact"];
    assert_eq!(
        form.action,
        Some(Action {
            webhook: "http://127.0.0.1:9000/inquiries".into(),
            timeout: Duration::from_secs(5)
        })
    );
    assert_eq!(
        form.scope, "contact",
        "the scope defaults to the form's name"
    );
    assert_eq!(form.window_ms, DEFAULT_WINDOW_MS);
    assert_eq!(config.server, ServerSettings::default());
}

#[test]
fn extra_drop_and_refuse_take_only_listed_fields() {
    let config = parse(
        r#"[forms.a]
fields = { email = 10 }
extra = "drop"
honeypot = "website"
window = "0s"
[forms.b]
fields = { email = 10 }
extra = "refuse"
key = "required""#,
    )
    .unwrap();
    let a = &config.forms["a"];
    assert_eq!(a.max_chars("email"), Some(10));
    assert_eq!(a.max_chars("other"), None);
    assert_eq!(a.max_chars("website"), Some(10), "the honeypot is taken");
    assert_eq!(a.window_ms, 0);
    assert_eq!(config.forms["b"].extra, Extra::Refuse);
    assert_eq!(config.forms["b"].key, KeyPolicy::Required);
}

#[test]
fn every_mistake_is_one_line_naming_the_key() {
    let cases = [
        ("[server]\nbody_limit = \"lots\"", "[server] body_limit"),
        ("[server]\nrate = \"30 per minute\"", "[server] rate"),
        ("[server]\nlisten = \"localhost\"", "[server] listen"),
        ("[server]\nbody_timeout = \"0s\"", "[server] body_timeout"),
        (
            "[server]\nshutdown_grace = \"soon\"",
            "[server] shutdown_grace",
        ),
        (
            "[server]\ntrusted_proxies = [\"10.0.0.0/33\"]",
            "[server] trusted_proxies",
        ),
        (
            "[server]\ntrusted_proxies = [\"the load balancer\"]",
            "[server] trusted_proxies",
        ),
        ("[forms.c]\nwindow = \"ten minutes\"", "[forms.c] window"),
        ("[forms.c]\nextra = \"ignore\"", "[forms.c] extra"),
        ("[forms.c]\nkey = \"maybe\"", "[forms.c] key"),
        ("[forms.c]\nscope = \" \"", "[forms.c] scope"),
        (
            "[forms.c]\nfields = { email = 0 }",
            "[forms.c] fields email",
        ),
        (
            "[forms.c]\nfields = { email = 9 }\nextra = \"refuse\"\nrequired = [\"message\"]",
            "[forms.c] required",
        ),
        ("[forms.c]\nhoneypot = \"\"", "[forms.c] honeypot"),
        (
            "[forms.c]\norigins = [\"acme.example\"]",
            "[forms.c] origins",
        ),
        (
            "[forms.c]\nframe_ancestors = [\"*\"]",
            "[forms.c] frame_ancestors",
        ),
        (
            "[forms.c]\nframe_ancestors = [\"self\"]",
            "[forms.c] frame_ancestors",
        ),
        (
            "[forms.c]\naction = { webhook = \"https://hook.example\" }",
            "[forms.c] action.webhook",
        ),
        ("[forms.\"a b\"]", "[forms.a b]"),
        (
            "[forms.c]\nretention = \"two years\"",
            "[forms.c] retention",
        ),
    ];
    for (text, key) in cases {
        let message = error(text);
        assert!(
            message.starts_with(&format!("site.toml: {key}")),
            "{text:?} → {message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }
}

#[test]
fn syntax_and_unknown_keys_name_the_line() {
    let message =
        error("[server]\nlisten = \"127.0.0.1:1\"\n\n[forms.c]\nrequried = [\"email\"]\n");
    assert!(message.starts_with("site.toml line 5: "), "{message}");
    assert!(message.contains("requried"), "{message}");
    assert!(!message.contains('\n'));
    let message = error("[forms.c\n");
    assert!(message.starts_with("site.toml line 1: "), "{message}");
    assert!(error("[server]\n").contains("no form"));
}

#[test]
fn a_title_and_labels_for_the_page() {
    let c = parse("[forms.c]\nfields = { order_no = 20 }\nlabels = { order_no = \"ご注文番号\" }")
        .unwrap();
    assert_eq!(c.forms["c"].title, "c", "the form's name by default");
    assert_eq!(c.forms["c"].labels["order_no"], "ご注文番号");
    let e = error("[forms.c]\nfields = { a = 1 }\nlabels = { b = \"B\" }");
    assert!(e.contains("[forms.c] labels") && e.contains("b"), "{e}");
    let e = error("[forms.c]\ntitle = \"  \"");
    assert!(e.contains("[forms.c] title"), "{e}");
}

#[test]
fn the_shutdown_grace_is_a_duration_of_10s_by_default() {
    assert_eq!(
        ServerSettings::default().shutdown_grace,
        Duration::from_secs(10)
    );
    let config = parse("[server]\nshutdown_grace = \"2500ms\"\n[forms.c]\n").unwrap();
    assert_eq!(config.server.shutdown_grace, Duration::from_millis(2500));
    assert!(error("[server]\nshutdown_grace = \"0s\"\n[forms.c]\n").contains("shutdown_grace"));
}

#[test]
fn trusted_proxies_are_cidrs_or_single_addresses() {
    let config = parse(
        r#"[server]
trusted_proxies = ["10.0.0.0/8", "::1/128", " 192.168.1.7 ", "2001:db8::/32", "172.16.5.4/12"]
[forms.c]"#,
    )
    .unwrap();
    let shown: Vec<String> = config
        .server
        .trusted_proxies
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        shown,
        [
            "10.0.0.0/8",
            "::1/128",
            "192.168.1.7/32",
            "2001:db8::/32",
            "172.16.0.0/12"
        ]
    );
    assert!(
        parse("[forms.c]")
            .unwrap()
            .server
            .trusted_proxies
            .is_empty()
    );
}

#[test]
fn frame_ancestors_are_origins_or_self() {
    let config = parse(
        r#"[forms.a]
frame_ancestors = ["https://acme.example/", " 'self' "]
[forms.b]
frame_ancestors = []"#,
    )
    .unwrap();
    assert_eq!(
        config.forms["a"].frame_ancestors,
        ["https://acme.example", "'self'"]
    );
    assert!(config.forms["b"].frame_ancestors.is_empty());
}

#[test]
fn a_retention_is_a_period_of_a_day_or_more() {
    const DAY: Millis = 86_400_000;
    let config = parse(
        r#"[forms.a]
retention = " 2y "
[forms.b]
retention = "18mo"
[forms.c]
retention = "36h"
[forms.d]"#,
    )
    .unwrap();
    let retention = |form: &str| config.forms[form].retention.clone();
    assert_eq!(
        retention("a"),
        Some(Retention {
            period: "2y".into(),
            ms: 730 * DAY
        })
    );
    assert_eq!(retention("b").unwrap().ms, 540 * DAY);
    assert_eq!(retention("c").unwrap().ms, 36 * 3_600_000);
    assert_eq!(retention("d"), None, "absent: kept for ever");
    for bad in ["", "0d", "-2y", "2 years", "500y", "12h", "90m", "forever"] {
        let text = format!("[forms.contact]\nretention = \"{bad}\"");
        assert_eq!(
            error(&text),
            format!(
                "site.toml: [forms.contact] retention must be a period such as 2y, 18mo, 90d or \
                 12w, at least 1d and at most 100y, not \"{bad}\""
            )
        );
    }
    assert!(
        error("[forms.c]\nretention = 2\n").contains("line 2"),
        "not text"
    );
}

#[test]
fn forms_that_share_a_scope_share_its_retention() {
    let same = parse(
        r#"[forms.a]
scope = "s"
retention = "90d"
[forms.b]
scope = "s"
retention = "90d""#,
    )
    .unwrap();
    assert_eq!(
        same.forms["b"].retention.as_ref().unwrap().ms,
        90 * 86_400_000
    );
    for b in ["retention = \"30d\"", ""] {
        let e = error(&format!(
            "[forms.a]\nscope = \"s\"\nretention = \"90d\"\n[forms.b]\nscope = \"s\"\n{b}"
        ));
        assert_eq!(
            e,
            "site.toml: [forms.b] retention must be the same as in [forms.a], which stores its \
             receipts under the same scope s"
        );
    }
}
