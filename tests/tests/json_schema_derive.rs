//! `claude_tools::JsonSchema`, the derive a crate can use without depending on schemars, gives
//! the schema schemars' own derive gives, for the shapes tool inputs take.

use std::collections::BTreeMap;

use serde_json::json;

/// Declares the same types twice, in `ours` with claude-tools' derive and in `theirs` with
/// schemars', so that each pair can be compared.
macro_rules! twice {
    ($($item:item)*) => {
        mod ours {
            #![allow(dead_code)]
            use super::*;
            use claude_tools::{Deserialize, JsonSchema};
            $(#[derive(Deserialize, JsonSchema)] $item)*
        }
        mod theirs {
            #![allow(dead_code)]
            use super::*;
            use schemars::JsonSchema;
            use serde::Deserialize;
            $(#[derive(Deserialize, JsonSchema)] $item)*
        }
    };
}

twice! {
    /// A search.
    #[serde(rename_all = "camelCase")]
    pub struct Search {
        /// Words to find
        pub query_text: String,
        /// The most results
        #[serde(default)]
        pub limit: u32,
        #[schemars(range(min = 1, max = 5))]
        pub stars: Option<u8>,
        pub filters: BTreeMap<String, Filter>,
    }

    /// A filter.
    #[serde(tag = "kind")]
    pub enum Filter {
        /// Only in stock
        InStock,
        /// Within a price range
        Price { min: u32, max: u32 },
    }

    /// A page of something.
    pub struct Page<T> {
        pub items: Vec<T>,
        pub next: Option<String>,
    }

    pub struct Wrapper(pub String);
}

fn both<Ours: schemars::JsonSchema, Theirs: schemars::JsonSchema>()
-> (serde_json::Value, serde_json::Value) {
    (
        schemars::schema_for!(Ours).to_value(),
        schemars::schema_for!(Theirs).to_value(),
    )
}

#[test]
fn a_struct_with_serde_and_schemars_attributes_gets_schemars_schema() {
    let (ours, theirs) = both::<ours::Search, theirs::Search>();
    assert_eq!(ours, theirs);
    assert_eq!(ours["title"], json!("Search"));
    assert_eq!(ours["description"], json!("A search."));
    assert_eq!(ours["required"], json!(["queryText", "filters"]));
}

#[test]
fn a_tagged_enum_gets_schemars_schema() {
    let (ours, theirs) = both::<ours::Filter, theirs::Filter>();
    assert_eq!(ours, theirs);
}

#[test]
fn a_generic_struct_gets_schemars_schema_and_name() {
    let (ours, theirs) = both::<ours::Page<ours::Filter>, theirs::Page<theirs::Filter>>();
    assert_eq!(ours, theirs);
    assert_eq!(ours["title"], json!("Page"));
}

#[test]
fn a_newtype_gets_schemars_schema() {
    let (ours, theirs) = both::<ours::Wrapper, theirs::Wrapper>();
    assert_eq!(ours, theirs);
}

#[test]
fn a_type_declared_in_a_fn_body_derives_it() {
    #[derive(claude_tools::JsonSchema)]
    #[allow(dead_code)]
    struct Local {
        /// A field
        field: bool,
    }
    let schema = schemars::schema_for!(Local).to_value();
    assert_eq!(
        schema["properties"],
        json!({"field": {"type": "boolean", "description": "A field"}})
    );
}
