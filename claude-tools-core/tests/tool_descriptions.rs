//! A tool added at run time without a description is logged as a warning when it is added (a
//! `#[tool]` fn gets a compile-time warning instead, pinned in the UI tests): the model would
//! know it by its name alone.

use std::sync::{Arc, Mutex};

use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Every warning's message.
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<String>>>);

struct Message<'a>(&'a mut String);

impl Visit for Message<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() == tracing::Level::WARN {
            let mut message = String::new();
            event.record(&mut Message(&mut message));
            self.0.lock().unwrap().push(message);
        }
    }
}

fn warnings_of(build: impl FnOnce()) -> Vec<String> {
    let warnings = Warnings::default();
    let subscriber = tracing_subscriber::registry().with(warnings.clone());
    tracing::subscriber::with_default(subscriber, build);
    warnings.0.lock().unwrap().clone()
}

#[test]
fn a_run_time_tool_without_a_description_is_a_warning() {
    let warnings = warnings_of(|| {
        ToolServer::new("shop", "1.0.0")
            .with_typed_tool("search", || async { "found" })
            .and_then(|server| {
                server.with_tool(ToolDefBuilder::new("raw"), |_: ToolCall| async { "done" })
            })
            .and_then(|server| {
                // An empty description is none.
                server.with_typed_tool(ToolDefBuilder::new("blank").description(""), || async {
                    ""
                })
            })
            .unwrap();
    });
    assert_eq!(
        warnings,
        ["search", "raw", "blank"].map(|tool| format!(
            "tool `{tool}` of server `shop` has no description, so the model sees only its name: \
             set one with ToolDefBuilder::description, saying what the tool does and when to use it"
        ))
    );
}

#[test]
fn a_described_run_time_tool_is_no_warning() {
    let warnings = warnings_of(|| {
        ToolServer::new("shop", "1.0.0")
            .with_typed_tool(
                ToolDefBuilder::new("search").description("Search the catalogue"),
                || async { "found" },
            )
            .unwrap();
    });
    assert_eq!(warnings, Vec::<String>::new());
}
