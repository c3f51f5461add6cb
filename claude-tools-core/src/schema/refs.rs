//! Inlining the `$ref`s of a derived schema, as Claude needs them: schemars inlines every
//! subschema itself, except those of a recursive type; a hand-written `JsonSchema` impl may
//! still bring `$defs` and `$ref`s of its own.

use serde_json::{Map, Value};

/// Why a `$ref` could not be inlined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RefError {
    /// The definition (or the root, `#`) contains itself (the `$ref` as written).
    Recursive(String),
    /// Not a `#/$defs/…` (or `#/definitions/…`) name that the schema defines: a network
    /// reference, a JSON pointer elsewhere, an anchor, a missing definition.
    Unresolvable(String),
}

/// Replaces every local `$ref` of `schema` by the definition it names, from the schema's own
/// `$defs` (or `definitions`, at any depth) and from `defs` (the generator's), and drops the
/// `$defs`. The `$ref`'s sibling keywords (a parameter's `description`) win over the
/// definition's. Nothing is ever fetched: a reference that is not a local definition is an
/// error.
pub(super) fn inline_refs(schema: &mut Value, defs: &Map<String, Value>) -> Result<(), RefError> {
    if !has_ref(schema) {
        // Only a schema with a `$ref` pays for the walk; a `$defs` with no use is dropped.
        drop_defs(schema, &mut Map::new());
        return Ok(());
    }
    let mut all = defs.clone();
    drop_defs(schema, &mut all);
    resolve(schema, &all, &mut Vec::new())
}

fn has_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => object.contains_key("$ref") || object.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// Takes every `$defs`/`definitions` map out of `schema` into `into`.
fn drop_defs(schema: &mut Value, into: &mut Map<String, Value>) {
    match schema {
        Value::Object(object) => {
            for key in ["$defs", "definitions"] {
                if let Some(Value::Object(defs)) = object.get(key) {
                    let defs = defs.clone();
                    object.shift_remove(key);
                    for (name, mut definition) in defs {
                        drop_defs(&mut definition, into);
                        into.entry(name).or_insert(definition);
                    }
                }
            }
            object.values_mut().for_each(|value| drop_defs(value, into));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| drop_defs(item, into)),
        _ => {}
    }
}

fn resolve(
    value: &mut Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
) -> Result<(), RefError> {
    match value {
        Value::Object(object) => {
            if let Some(reference) = object.get("$ref") {
                let reference = match reference {
                    Value::String(reference) => reference.clone(),
                    other => return Err(RefError::Unresolvable(other.to_string())),
                };
                // `#` is the root schema itself: a type that contains itself.
                if reference == "#" {
                    return Err(RefError::Recursive(reference));
                }
                let name = local_name(&reference)
                    .ok_or_else(|| RefError::Unresolvable(reference.clone()))?;
                if stack.contains(&name) {
                    return Err(RefError::Recursive(reference));
                }
                let mut target = defs
                    .get(&name)
                    .cloned()
                    .ok_or_else(|| RefError::Unresolvable(reference.clone()))?;
                stack.push(name);
                resolve(&mut target, defs, stack)?;
                stack.pop();
                object.shift_remove("$ref");
                match target {
                    Value::Object(target) => {
                        for (key, value) in target {
                            object.entry(key).or_insert(value);
                        }
                    }
                    Value::Bool(false) => {
                        object.insert("not".into(), Value::Object(Map::new()));
                    }
                    _ => {}
                }
                // The definition's own keywords are resolved already.
                return Ok(());
            }
            for value in object.values_mut() {
                resolve(value, defs, stack)?;
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter_mut()
            .try_for_each(|item| resolve(item, defs, stack)),
        _ => Ok(()),
    }
}

/// The definition a local reference names: `#/$defs/NAME` or `#/definitions/NAME`, decoded.
fn local_name(reference: &str) -> Option<String> {
    let name = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    (!name.contains('/')).then(|| super::build::decode_ref_name(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_refs_are_inlined_and_defs_dropped() {
        let mut schema = json!({
            "type": "object",
            "$defs": {
                "address": {"type": "object", "properties": {"city": {"$ref": "#/$defs/city"}}},
                "city": {"type": "string"}
            },
            "properties": {"home": {"$ref": "#/$defs/address", "description": "Where"}}
        });
        inline_refs(&mut schema, &Map::new()).unwrap();
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"home": {
                    "description": "Where",
                    "type": "object",
                    "properties": {"city": {"type": "string"}}
                }}
            })
        );
    }

    #[test]
    fn a_definition_that_contains_itself_is_recursive() {
        let mut schema = json!({
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {"head": {"$ref": "#/$defs/node"}}
        });
        assert_eq!(
            inline_refs(&mut schema, &Map::new()),
            Err(RefError::Recursive("#/$defs/node".into()))
        );
    }

    #[test]
    fn network_refs_pointers_and_missing_definitions_are_unresolvable() {
        for reference in [
            "https://example.com/address.json",
            "#/properties/a",
            "#addressDef",
            "#/$defs/missing",
        ] {
            let mut schema = json!({"properties": {"a": {"$ref": reference}}});
            assert_eq!(
                inline_refs(&mut schema, &Map::new()),
                Err(RefError::Unresolvable(reference.into())),
                "{reference}"
            );
        }
    }
}
