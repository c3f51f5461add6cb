//! What claude-tools' `#[derive(JsonSchema)]` calls to tell a tool's input schema the Rust names
//! of renamed fields.

/// What claude-tools' `#[derive(JsonSchema)]` calls with the `(rust name, wire name)` of a
/// struct's renamed fields: they ride in its schema while a tool's input schema is built, so
/// that a call sending a Rust name is refused by name (see `InputSchemaBuilder::rust_name`).
pub fn record_rust_names(
    generator: &schemars::SchemaGenerator,
    schema: &mut schemars::Schema,
    pairs: &[(&str, &str)],
) {
    crate::schema::record_rust_names(generator, schema, pairs);
}
