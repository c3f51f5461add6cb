//! Header-carried parameters (MCP 2026-07-28, SEP-2243): a tool parameter whose input-schema
//! property carries `"x-mcp-header": "<Name>"` travels, over Streamable HTTP, also in the
//! `Mcp-Param-<Name>` header, so that a gateway can route or refuse a call (by region, by
//! tenant) without reading its body; the server checks that the header says what the body says.
//!
//! Mark one with [`InputSchemaBuilder::header`](crate::schema::InputSchemaBuilder::header) (or
//! `#[arg(header = "Region")]` on a `#[tool]` parameter), or write `x-mcp-header` in a schema
//! given as written. The server checks each when it is built:
//!
//! | rule | otherwise |
//! |---|---|
//! | the name is an HTTP token of letters, digits and `-` | a build error naming the tool and property |
//! | unique in the tool, without regard to case | likewise |
//! | on a top-level property of type `string`, `integer` or `boolean` (not `number`: a float's text is not one value) | likewise |
//!
//! Never mark a secret: headers are logged by proxies.

use serde_json::{Map, Value};

/// The `x-mcp-header` annotation's key in a property's schema.
pub const X_MCP_HEADER: &str = "x-mcp-header";

/// One header-carried parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The input property (the argument's name).
    pub property: Box<str>,
    /// The header's name after `Mcp-Param-`.
    pub header: Box<str>,
    /// The property's JSON type.
    pub kind: HeaderParamKind,
}

/// The JSON type of a header-carried parameter, which says how its header is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderParamKind {
    /// Compared as text, exactly.
    String,
    /// Compared as a number (`007` and `7` agree).
    Integer,
    /// `true` or `false`.
    Boolean,
}

impl HeaderParam {
    /// Whether the header's (decoded) `text` says what the body's `value` says.
    pub fn agrees(&self, text: &str, value: &Value) -> bool {
        match (self.kind, value) {
            (HeaderParamKind::String, Value::String(body)) => text == body,
            (HeaderParamKind::Integer, Value::Number(body)) => {
                match (text.trim().parse::<i128>(), body.as_i64(), body.as_u64()) {
                    (Ok(header), Some(body), _) => header == i128::from(body),
                    (Ok(header), None, Some(body)) => header == i128::from(body),
                    _ => false,
                }
            }
            (HeaderParamKind::Boolean, Value::Bool(body)) => {
                text.trim() == if *body { "true" } else { "false" }
            }
            _ => false,
        }
    }
}

/// The header-carried parameters of an input schema, checked (see the [module docs](self)).
pub(crate) fn header_params(input_schema: &Map<String, Value>) -> Result<Vec<HeaderParam>, String> {
    let Some(Value::Object(properties)) = input_schema.get("properties") else {
        return Ok(Vec::new());
    };
    let mut params: Vec<HeaderParam> = Vec::new();
    for (property, schema) in properties {
        let Some(header) = schema.get(X_MCP_HEADER) else {
            continue;
        };
        let Value::String(header) = header else {
            return Err(format!(
                "property `{property}`: `x-mcp-header` must be a string, the header's name"
            ));
        };
        if header.is_empty()
            || !header
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(format!(
                "property `{property}`: `x-mcp-header` `{header}` must be letters, digits and \
                 `-` (it becomes the header Mcp-Param-{header})"
            ));
        }
        if let Some(other) = params
            .iter()
            .find(|other| other.header.eq_ignore_ascii_case(header))
        {
            return Err(format!(
                "properties `{}` and `{property}` both travel in the header Mcp-Param-{header} \
                 (names are compared without regard to case): give each its own",
                other.property
            ));
        }
        let kind = match schema.get("type").and_then(Value::as_str) {
            Some("string") => HeaderParamKind::String,
            Some("integer") => HeaderParamKind::Integer,
            Some("boolean") => HeaderParamKind::Boolean,
            other => {
                return Err(format!(
                    "property `{property}` travels in the header Mcp-Param-{header}, so it must \
                     be a string, an integer or a boolean, not {}",
                    other.map_or("a type of several kinds".to_string(), |t| format!("`{t}`"))
                ));
            }
        };
        params.push(HeaderParam {
            property: property.as_str().into(),
            header: header.as_str().into(),
            kind,
        });
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(schema: Value) -> Result<Vec<HeaderParam>, String> {
        header_params(schema.as_object().unwrap())
    }

    #[test]
    fn the_rules_of_the_module_docs() {
        let params = read(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "plain": {"type": "string"},
        }}))
        .unwrap();
        assert_eq!(
            params
                .iter()
                .map(|p| (&*p.property, &*p.header))
                .collect::<Vec<_>>(),
            [("region", "Region"), ("count", "Count")]
        );
        for bad in [
            json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"x-mcp-header": "A"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
            json!({"properties": {"a": {"type": "string", "x-mcp-header": "Same"},
                                  "b": {"type": "string", "x-mcp-header": "sAME"}}}),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn headers_agree_with_bodies_by_type() {
        let param = |kind| HeaderParam {
            property: "p".into(),
            header: "P".into(),
            kind,
        };
        let string = param(HeaderParamKind::String);
        assert!(string.agrees("eu-west", &json!("eu-west")));
        assert!(!string.agrees("EU-WEST", &json!("eu-west")));
        assert!(!string.agrees("7", &json!(7)));
        let integer = param(HeaderParamKind::Integer);
        assert!(integer.agrees("007", &json!(7)));
        assert!(integer.agrees("18446744073709551615", &json!(u64::MAX)));
        assert!(!integer.agrees("7.0", &json!(7)));
        assert!(!integer.agrees("8", &json!(7)));
        let boolean = param(HeaderParamKind::Boolean);
        assert!(boolean.agrees("true", &json!(true)));
        assert!(!boolean.agrees("1", &json!(true)));
    }
}
