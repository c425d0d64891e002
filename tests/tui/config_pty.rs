//! The config file in the real screen, in a pseudo-terminal: remapped keys
//! act, and the footer, the help and the status line name them; the light
//! theme draws in its own colours.

use std::time::Duration;

use crate::common;
use common::pty::Pty;

const WAIT: Duration = Duration::from_secs(30);

#[test]
fn remapped_keys_act_and_the_screen_names_them() {
    let fx = common::fixture();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "operator = \"desk\"\ntheme = \"light\"\n\
         [keys]\nhelp = \"H\"\nutc = \"Z\"\nquit = [\"Q\"]\n",
    )
    .unwrap();
    let mut screen = Pty::spawn(
        &[
            fx.path(),
            "--config-file",
            config.to_str().unwrap(),
            "--now",
            common::NOW,
        ],
        120,
        32,
        fx.db.parent().unwrap(),
    );
    let shown = screen.wait_for("pending", WAIT);
    // The footer names the keys in effect.
    let footer = shown.lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("H help"), "{footer}");
    assert!(footer.contains("Q quit"), "{footer}");
    // The light theme: dark orange for what is pending, never the dark theme's cyan tabs.
    let raw = String::from_utf8_lossy(&screen.raw()).into_owned();
    assert!(raw.contains("38;5;130"), "no dark orange in {raw:?}");
    assert!(!raw.contains("48;5;14"), "a cyan background in {raw:?}");

    // The status line names the remapped key of the zone switch.
    screen.keys("Z");
    screen.wait_for("(Z switches)", WAIT);
    // The help lists the remapped key, and `q` is no longer quit on the main screen.
    screen.keys("H");
    screen.wait_for("Keys and words", WAIT);
    // Further down, where the keys of the whole screen are.
    let mut pages = 0;
    while !screen.text().contains("H/F1") {
        assert!(pages < 8, "no H/F1 in the help: {}", screen.text());
        screen.keys("\x1b[6~");
        screen.settle(Duration::from_millis(200), WAIT);
        pages += 1;
    }
    screen.keys("\x1b");
    screen.settle(Duration::from_millis(300), WAIT);
    screen.keys("q");
    screen.settle(Duration::from_millis(500), WAIT);
    assert!(screen.text().contains("H help"), "q quit the screen");
    screen.keys("Q");
    screen.wait_exit(WAIT);
}
