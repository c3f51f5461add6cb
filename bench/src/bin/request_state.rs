//! `ct-bench-request-state`: what sealing and opening an MCP 2026-07-28 `requestState` costs per
//! round of a multi-round-trip request (issue 28), with no router, transport or handler around
//! it.
//!
//! `ct-bench-request-state <rounds> [payload-bytes]` (default payload 256 bytes) makes one codec
//! (an operator key, the default TTL, an in-memory replay guard sized for the run), then:
//! digests `<rounds>` requests' params ([`ParamsDigest::of`] over a tool name and its
//! arguments) and seals a payload bound to each; then opens every state (which checks and spends
//! it in the replay guard) and checks its payload. It prints the wall-clock nanoseconds per
//! seal, per open and per round (both), the sealed length, and the resident memory the replay
//! guard gained per state remembered.
//!
//! For instruction counts that repeat on a shared machine, run it twice under
//! `valgrind --tool=callgrind` and divide the difference by the difference of `<rounds>`
//! (start-up cancels out), as for `ct-bench-hot-path`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use claude_tools::mcp::request_state::{
    Binding, MemoryReplayGuard, ParamsDigest, ReplayGuard, RequestStateConfig, StateKey,
};
use claude_tools_bench::procfs::rss_kib;

/// The arguments of the bench's `deploy` call, digested with the tool's name each round.
const ARGUMENTS: &[u8] = br#"{"env":"production","service":"tickets","version":"1.42.0"}"#;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(rounds) = args.next().and_then(|n| n.parse::<usize>().ok()) else {
        eprintln!("usage: ct-bench-request-state <rounds> [payload-bytes]");
        return ExitCode::from(2);
    };
    let payload_len = match args.next().map(|n| n.parse::<usize>()) {
        None => 256,
        Some(Ok(n)) => n,
        Some(Err(e)) => {
            eprintln!("ct-bench-request-state: payload-bytes: {e}");
            return ExitCode::from(2);
        }
    };
    match run(rounds, payload_len) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-request-state: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(rounds: usize, payload_len: usize) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let guard = Arc::new(MemoryReplayGuard::with_capacity(rounds.max(1)));
    let key = StateKey::new([0x5a; 32]).map_err(|e| e.to_string())?;
    let codec = RequestStateConfig::default()
        .key(key)
        .replay_guard(Arc::clone(&guard) as Arc<dyn ReplayGuard>)
        .build("bench")
        .map_err(|e| e.to_string())?;
    let payload: Vec<u8> = (0..payload_len).map(|i| (i % 251) as u8).collect();
    let principal = "user:bench";

    let started = Instant::now();
    let mut sealed = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let round = (round as u64).to_be_bytes();
        let params = ParamsDigest::of([b"deploy".as_slice(), ARGUMENTS, &round]);
        let binding = Binding::new("tools/call", params).with_principal(Some(principal));
        sealed.push(codec.seal(&binding, &payload).map_err(|e| e.to_string())?);
    }
    let seal_time = started.elapsed();

    let pid = std::process::id();
    let rss_before = rss_kib(pid).map(|(rss, _)| rss);
    let started = Instant::now();
    let opened = runtime.block_on(async {
        let mut opened = 0usize;
        for (round, state) in sealed.iter().enumerate() {
            let round = (round as u64).to_be_bytes();
            let params = ParamsDigest::of([b"deploy".as_slice(), ARGUMENTS, &round]);
            let binding = Binding::new("tools/call", params).with_principal(Some(principal));
            let back = codec
                .open(state, &binding)
                .await
                .map_err(|e| format!("round {round:?}: {e}: {}", e.failure()))?;
            if back != payload {
                return Err(format!("round {round:?}: another payload came back"));
            }
            opened += 1;
        }
        Ok::<usize, String>(opened)
    })?;
    let open_time = started.elapsed();
    let rss_after = rss_kib(pid).map(|(rss, _)| rss);
    if opened != rounds || guard.len() != rounds {
        return Err(format!(
            "opened {opened} of {rounds}, {} spent",
            guard.len()
        ));
    }

    let per = |time: std::time::Duration| time.as_nanos() as f64 / rounds.max(1) as f64;
    println!("rounds: {rounds}");
    println!("payload: {payload_len} bytes");
    println!(
        "sealed: {} characters",
        sealed.first().map_or(0, String::len)
    );
    println!("seal (params digest included): {:.0} ns", per(seal_time));
    println!(
        "open (params digest and replay guard included): {:.0} ns",
        per(open_time)
    );
    println!("round (seal + open): {:.0} ns", per(seal_time + open_time));
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        println!(
            "replay guard: {:.0} bytes of resident memory per state remembered",
            (after.saturating_sub(before) * 1024) as f64 / rounds.max(1) as f64
        );
    }
    Ok(())
}
