use claude_tools::prelude::*;

#[tool_server(name = "geo")]
pub struct Geo;

/// Distance from the origin.
#[tool(server = Geo)]
async fn norm((x, y): (f64, f64)) -> f64 {
    (x * x + y * y).sqrt()
}

fn main() {}
