//! `ct-bench-request-state` with small N (the figures come from running it by hand, see its
//! docs): every state it seals opens with its payload, and each figure comes out.

use std::process::Command;

const BENCH: &str = env!("CARGO_BIN_EXE_ct-bench-request-state");

#[test]
fn every_round_opens_and_each_figure_comes_out() {
    let output = Command::new(BENCH)
        .args(["300", "100"])
        .output()
        .expect("the bench runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        "rounds: 300\n",
        "payload: 100 bytes\n",
        // 57 bytes of envelope plus the payload, in base64 without padding.
        "sealed: 210 characters\n",
        "seal (params digest included): ",
        "open (params digest and replay guard included): ",
        "round (seal + open): ",
        "replay guard: ",
    ] {
        assert!(stdout.contains(line), "no `{line}` in:\n{stdout}");
    }
}

#[test]
fn a_wrong_argument_is_a_usage_error() {
    for args in [&[][..], &["many"][..], &["10", "big"][..]] {
        let status = Command::new(BENCH)
            .args(args)
            .status()
            .expect("the bench runs");
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}
