use claude_tools::prelude::*;
use serde::Deserialize;

#[tool_server(name = "geo")]
pub struct Geo;

#[derive(Deserialize)]
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
