//! `ct-bench`: the harness (placeholder until the harness lands).
fn main() {}
