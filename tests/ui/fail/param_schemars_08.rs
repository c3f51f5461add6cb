use claude_tools::prelude::*;

#[tool_server(name = "geo")]
pub struct Geo;

/// Derives the JsonSchema of schemars 0.8, which is not the one the tools speak.
#[derive(Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Distance from the origin.
#[tool(server = Geo)]
async fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {}
