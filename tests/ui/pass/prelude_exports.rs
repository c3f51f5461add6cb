//! What a tool author needs is in the prelude, and the crate's version at its root.
use claude_tools::prelude::*;

/// Names the types tool code handles: a permission request, a run's result message, the
/// progress reporter, its token and the cancellation token of a call.
#[allow(dead_code)]
fn tool_code_types(
    _: PermissionRequest,
    _: ResultMessage,
    _: ProgressReporter,
    _: ProgressToken,
    _: CancellationToken,
) {
}

/// Derived with the prelude's derives.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Reply {
    /// The text
    pub text: String,
}

/// A bound with the prelude's `JsonSchema` trait.
fn schema_name<T: JsonSchema>() -> String {
    T::schema_name().into_owned()
}

fn main() {
    assert_eq!(claude_tools::VERSION.split('.').count(), 3);
    assert_eq!(schema_name::<Reply>(), "Reply");
}
