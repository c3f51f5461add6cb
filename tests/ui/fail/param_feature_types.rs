// chrono's and uuid's types get their JsonSchema from schemars' `chrono04` / `uuid1` features,
// which claude-tools turns on with its own `chrono` / `uuid` features (off in this crate).
use claude_tools::prelude::*;

#[tool_server(name = "bookings")]
pub struct Bookings;

/// Book a room.
#[tool(server = Bookings)]
async fn book(room: uuid::Uuid, on: chrono::NaiveDate, at: Option<chrono::DateTime<chrono::Utc>>) -> String {
    format!("{room} on {on} at {at:?}")
}

#[derive(Deserialize, JsonSchema)]
pub struct Booking {
    pub room: uuid::Uuid,
    pub on: chrono::NaiveDate,
}

/// Book a room, the whole input as one struct.
#[tool(server = Bookings)]
async fn book_input(Input(booking): Input<Booking>) -> String {
    format!("{} on {}", booking.room, booking.on)
}

/// An alias hides the type's crate: the error lists the features.
pub type RoomId = uuid::Uuid;

/// Look a room up.
#[tool(server = Bookings)]
async fn room(id: RoomId) -> String {
    id.to_string()
}

fn main() {}
