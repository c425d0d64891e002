//! `assets/intake.js` under Node's test runner (`tests/js/`): the key kept
//! across a lost response, a timeout and a reload, every answer's words.
//! Node is not a dependency of the crate: without `node` on the PATH the
//! scripts are not run and this says so on stderr, except under CI (`CI`
//! set), which installs Node, so that there a missing one fails.

use std::process::Command;

#[test]
fn the_form_script_passes_its_node_tests() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = match Command::new("node")
        .args(["--test", "tests/js/"])
        .current_dir(root)
        .output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
            assert!(
                !ci,
                "node not found on PATH, and CI is set: .ci/run installs Debian's nodejs"
            );
            eprintln!("node not found: tests/js/ not run");
            return;
        }
        Err(e) => panic!("node: {e}"),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "node --test tests/js/ failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Node runs nothing, successfully, when it finds no test file.
    assert!(
        stdout.contains("# pass ") && !stdout.contains("# pass 0\n"),
        "{stdout}"
    );
}
