use claude_tools::prelude::*;

#[tool_server(name = "calc")]
pub struct Calc;

pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Distance from the origin.
#[tool(server = Calc)]
async fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {}
