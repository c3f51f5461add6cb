//! Making a schema Claude-safe: the passes that rewrite a generated (or hand-written) schema
//! into the subset the Anthropic API and the Claude Code CLI accept (see the [module
//! docs](super)).

use serde_json::{Map, Value};

use super::description::doc_description;
use super::rust_names;

/// The formats of JSON Schema 2020-12; any other `format` is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Rewrites a schema in place into the subset Claude accepts (see the module docs). It does not
/// inline `$ref`s (generate with inlining for that) and does not check the root. Descriptions
/// are kept as written (only generated schemas apply [`doc_description`]).
pub fn make_claude_safe(schema: &mut Value) {
    rewrite(
        schema,
        &Rewrite {
            descriptions: false,
            variant_orders: &[],
        },
    );
}

/// How [`rewrite`] treats what the Claude-safe subset leaves open.
pub(super) struct Rewrite<'a> {
    /// Apply [`doc_description`] to every `description` (they come from doc comments).
    pub(super) descriptions: bool,
    /// Variant names in declaration order (see
    /// [`InputSchemaBuilder::variant_order_of`](super::InputSchemaBuilder::variant_order_of)).
    pub(super) variant_orders: &'a [&'static [&'static str]],
}

pub(super) fn rewrite(schema: &mut Value, how: &Rewrite<'_>) {
    if let Value::Bool(accepts) = schema {
        *schema = if *accepts {
            Value::Object(Map::new())
        } else {
            serde_json::json!({"not": {}})
        };
        return;
    }
    let Value::Object(object) = schema else {
        return;
    };
    object.shift_remove("$schema");
    object.shift_remove("nullable");
    rust_names::strip(object);
    if let Some(Value::String(format)) = object.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        object.shift_remove("format");
    }
    merge_nullable_union(object);
    if how.descriptions
        && let Some(Value::String(doc)) = object.get_mut("description")
    {
        *doc = doc_description(doc);
        if doc.is_empty() {
            object.shift_remove("description");
        }
    }
    for key in [
        "properties",
        "patternProperties",
        "$defs",
        "dependentSchemas",
    ] {
        if let Some(Value::Object(map)) = object.get_mut(key) {
            map.values_mut().for_each(|sub| rewrite(sub, how));
        }
    }
    for key in ["oneOf", "anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(items)) = object.get_mut(key) {
            items.iter_mut().for_each(|sub| rewrite(sub, how));
        }
    }
    for key in [
        "items",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
    ] {
        if let Some(sub) = object.get_mut(key) {
            rewrite(sub, how);
        }
    }
    // `additionalProperties: false` is the idiom every client knows; keep booleans there.
    for key in ["additionalProperties", "unevaluatedProperties"] {
        if let Some(sub @ Value::Object(_)) = object.get_mut(key) {
            rewrite(sub, how);
        }
    }
    fold_unit_enum(object, how.variant_orders);
    tuple_as_items(object);
    lead_with(object, &["type", "description"]);
}

/// Moves `keys` (those present) to the front, in that order: every schema then reads `type`,
/// then `description`, then the rest, whatever order the rewrites left the keys in.
fn lead_with(object: &mut Map<String, Value>, keys: &[&str]) {
    let present: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|key| object.contains_key(*key))
        .collect();
    if object
        .keys()
        .take(present.len())
        .eq(present.iter().copied())
    {
        return;
    }
    let mut rest = std::mem::take(object);
    for key in present {
        if let Some(value) = rest.shift_remove(key) {
            object.insert(key.to_string(), value);
        }
    }
    object.extend(rest);
}

/// schemars writes `Option<E>`, for an `E` whose schema has no `type` (an enum written as
/// `oneOf`/`anyOf`), as `anyOf: [<E>, {"type": "null"}]`. Move the `null` into `E`'s own
/// `oneOf`/`anyOf` and lift `E` up, so a unit enum can then fold into one `enum` with `null`.
/// The outer keys (a parameter's description) win over `E`'s.
fn merge_nullable_union(object: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = object.get("anyOf") else {
        return;
    };
    let [first, second] = branches.as_slice() else {
        return;
    };
    let is_null = |v: &Value| {
        v.as_object()
            .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&Value::String("null".into())))
    };
    let inner_index = match (is_null(first), is_null(second)) {
        (false, true) => 0,
        (true, false) => 1,
        _ => return,
    };
    let Some(inner) = branches[inner_index].as_object() else {
        return;
    };
    if inner.contains_key("type") {
        return;
    }
    let combinator = match (inner.get("oneOf"), inner.get("anyOf")) {
        (Some(Value::Array(_)), None) => "oneOf",
        (None, Some(Value::Array(_))) => "anyOf",
        _ => return,
    };
    // The outer `anyOf` is replaced; an outer `oneOf` would shadow the inner one.
    if combinator == "oneOf" && object.contains_key("oneOf") {
        return;
    }
    let Some(Value::Array(mut branches)) = object.shift_remove("anyOf") else {
        return;
    };
    let Value::Object(mut inner) = branches.swap_remove(inner_index) else {
        return;
    };
    if let Some(Value::Array(variants)) = inner.get_mut(combinator) {
        variants.push(serde_json::json!({"type": "null"}));
    }
    for (key, value) in inner {
        object.entry(key).or_insert(value);
    }
}

/// schemars writes a unit enum as `{"type": "string", "enum": [...]}` when no variant has a doc
/// comment, and otherwise as a `oneOf` mixing `{"enum": [...]}` groups (undocumented variants)
/// and `{"const": v, "description": doc}` entries. Fold such a `oneOf` into one `enum`, with the
/// variant docs appended to the description. The values keep the declaration order when one of
/// `variant_orders` names them all, and schemars' order of the branches otherwise.
fn fold_unit_enum(object: &mut Map<String, Value>, variant_orders: &[&'static [&'static str]]) {
    let Some(Value::Array(branches)) = object.get("oneOf") else {
        return;
    };
    // Each value with its doc, if it has one.
    let mut values: Vec<(Value, Option<String>)> = Vec::with_capacity(branches.len());
    for branch in branches {
        let Value::Object(branch) = branch else {
            return;
        };
        if branch
            .keys()
            .any(|k| !matches!(k.as_str(), "const" | "enum" | "description" | "type"))
        {
            return;
        }
        let branch_values: Vec<&Value> = match (branch.get("const"), branch.get("enum")) {
            (Some(value), None) => vec![value],
            (None, Some(Value::Array(group))) => group.iter().collect(),
            (None, None) if branch.get("type") == Some(&Value::String("null".into())) => {
                vec![&Value::Null]
            }
            _ => return,
        };
        for value in branch_values {
            if matches!(value, Value::Array(_) | Value::Object(_)) {
                return;
            }
            let doc = match branch.get("description") {
                Some(Value::String(doc)) => {
                    Some(format!("- {}: {}", enum_label(value), one_line(doc)))
                }
                _ => None,
            };
            values.push((value.clone(), doc));
        }
    }
    // The shortest list that names them all: aliases lengthen a list, and another enum may use
    // a superset of these names.
    let order = variant_orders
        .iter()
        .filter(|order| names_all(order, &values))
        .min_by_key(|order| order.len());
    if let Some(order) = order {
        // Stable: `null` (an `Option`'s) and values the order does not name stay last.
        values.sort_by_key(|(value, _)| {
            value
                .as_str()
                .and_then(|name| order.iter().position(|v| v == &name))
                .unwrap_or(usize::MAX)
        });
    }
    let (values, docs): (Vec<Value>, Vec<Option<String>>) = values.into_iter().unzip();
    let docs: Vec<String> = docs.into_iter().flatten().collect();
    let mut kinds: Vec<Value> = Vec::new();
    for value in &values {
        let kind = Value::String(
            match value {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_f64() => "number",
                Value::Number(_) => "integer",
                _ => "string",
            }
            .into(),
        );
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    object.shift_remove("oneOf");
    object.insert(
        "type".into(),
        match kinds.len() {
            1 => kinds.swap_remove(0),
            _ => Value::Array(kinds),
        },
    );
    object.insert("enum".into(), Value::Array(values));
    if !docs.is_empty() {
        append_description(object, &docs.join("\n"));
    }
}

/// Appends `text` to the description, on a new line when there is one.
fn append_description(object: &mut Map<String, Value>, text: &str) {
    let description = match object.get("description") {
        Some(Value::String(own)) if !own.is_empty() => format!("{own}\n{text}"),
        _ => text.to_string(),
    };
    object.insert("description".into(), Value::String(description));
}

/// schemars writes a tuple `(A, B)` (or a tuple struct) as `{"type": "array", "prefixItems":
/// [A, B], "minItems": 2, "maxItems": 2}`, and Claude's strict tool use refuses `prefixItems`.
/// Rewrite it as `items` accepting any element's schema (`anyOf` them, or the one schema when
/// they are all the same), keep the length bounds, and state the exact shape in the description:
/// `2 items, in this order: integer, string`.
fn tuple_as_items(object: &mut Map<String, Value>) {
    if !matches!(object.get("prefixItems"), Some(Value::Array(_))) {
        return;
    }
    let Some(Value::Array(elements)) = object.shift_remove("prefixItems") else {
        return;
    };
    let shape: Vec<String> = elements.iter().map(brief_type).collect();
    let mut distinct: Vec<Value> = Vec::with_capacity(elements.len());
    // A tuple with a tail (`items` next to `prefixItems`) accepts the tail's schema too;
    // `items: false` only repeats what `maxItems` says.
    let tail = match object.shift_remove("items") {
        Some(tail @ Value::Object(_)) => Some(tail),
        _ => None,
    };
    for element in elements.into_iter().chain(tail) {
        if !distinct.contains(&element) {
            distinct.push(element);
        }
    }
    let items = match distinct.len() {
        0 => return,
        1 => distinct.swap_remove(0),
        _ => serde_json::json!({"anyOf": distinct}),
    };
    object.insert("items".into(), items);
    append_description(
        object,
        &format!("{} items, in this order: {}", shape.len(), shape.join(", ")),
    );
}

/// A few words for a schema, for a tuple's shape: `integer`, `string or null`, `"a" | "b"`.
fn brief_type(schema: &Value) -> String {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => match schema.get("const") {
            Some(value) => value.to_string(),
            None => "any value".to_string(),
        },
    }
}

/// Whether `order` names every string value of an enum that has at least one.
fn names_all(order: &[&str], values: &[(Value, Option<String>)]) -> bool {
    let mut names = values
        .iter()
        .filter_map(|(value, _)| value.as_str())
        .peekable();
    names.peek().is_some() && names.all(|name| order.contains(&name))
}

fn enum_label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A doc comment on one line, so it fits a `- value: doc` list item.
fn one_line(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}
