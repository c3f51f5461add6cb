use std::collections::HashMap;

use claude_tools::prelude::*;
use serde::Deserialize;

#[tool_server(name = "geo")]
pub struct Geo;

#[derive(Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// The number of points.
#[tool(server = Geo)]
async fn count(points: Vec<Point>) -> usize {
    points.len()
}

/// Whether a point was given.
#[tool(server = Geo)]
async fn given(point: Option<Point>) -> bool {
    point.is_some()
}

/// The names of the points.
#[tool(server = Geo)]
async fn names(points: HashMap<String, Point>) -> String {
    points.into_keys().collect()
}

fn main() {}
