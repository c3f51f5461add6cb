//! JSON patterns (for `expect`) and templates (for `send` / `let`).
//!
//! Special strings:
//!
//! | string | in a pattern | in a template |
//! |---|---|---|
//! | `"$any"` | matches any value (the key must exist) | — |
//! | `"$absent"` | the key must be missing | — |
//! | `"$name"` | equal to variable `name` if bound, else captures the value into `name` | the value of `name` (any JSON type) |
//! | `"$>name"` | always captures into `name` (rebinding it) | — |
//! | `"$uuid"` | — | a fresh UUID v4 |
//! | `"…${name}…"` | the string with bound variables spliced in, compared for equality | the string with variables (or `${uuid}`) spliced in |
//! | `"$$…"` | the literal string `"$…"` | the literal string `"$…"` |
//!
//! Objects in a pattern match partially (extra keys in the line are fine); arrays match
//! element-wise with equal length; numbers compare by value (`1` equals `1.0`).

use std::collections::HashMap;

use serde_json::Value;

use crate::util::uuid_v4;

/// Variable bindings of a running script.
pub type Vars = HashMap<String, Value>;

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How a pattern or template string is to be read.
enum Special<'a> {
    Any,
    Absent,
    Uuid,
    Var(&'a str),
    Capture(&'a str),
    Literal(&'a str),
    Splice,
    Plain,
}

fn classify(s: &str) -> Special<'_> {
    if let Some(rest) = s.strip_prefix('$') {
        if let Some(lit) = rest.strip_prefix('$') {
            return Special::Literal(lit);
        }
        match rest {
            "any" => return Special::Any,
            "absent" => return Special::Absent,
            "uuid" => return Special::Uuid,
            _ => {}
        }
        if let Some(name) = rest.strip_prefix('>')
            && is_ident(name)
        {
            return Special::Capture(name);
        }
        if is_ident(rest) {
            return Special::Var(rest);
        }
    }
    if s.contains("${") {
        Special::Splice
    } else {
        Special::Plain
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Replaces every `${name}` in `s` (`${uuid}` gives a fresh UUID).
fn splice(s: &str, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        if name == "uuid" {
            out.push_str(&uuid_v4());
        } else if let Some(v) = lookup(name) {
            out.push_str(&value_text(&v));
        } else {
            return Err(format!("variable `{name}` is not bound (in {s:?})"));
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Instantiates a template: variables substituted, `$uuid` generated.
/// Errors name an unbound variable.
pub fn substitute(template: &Value, vars: &Vars) -> Result<Value, String> {
    Ok(match template {
        Value::String(s) => match classify(s) {
            Special::Uuid => Value::String(uuid_v4()),
            Special::Var(name) => vars
                .get(name)
                .cloned()
                .ok_or_else(|| format!("variable `{name}` is not bound"))?,
            Special::Literal(lit) => Value::String(format!("${lit}")),
            Special::Splice => Value::String(splice(s, &|n| vars.get(n).cloned())?),
            Special::Any | Special::Absent | Special::Capture(_) | Special::Plain => {
                template.clone()
            }
        },
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| substitute(v, vars))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, v) in map {
                out.insert(k.clone(), substitute(v, vars)?);
            }
            Value::Object(out)
        }
        other => other.clone(),
    })
}

/// Why a line did not match: where, and what was expected and found.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// JSON path of the mismatch, like `$.request.subtype`.
    pub path: String,
    /// What the pattern wanted.
    pub expected: String,
    /// What the line had.
    pub found: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "at {}: expected {}, found {}",
            self.path, self.expected, self.found
        )
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 200 {
        let mut end = 200;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        _ => a == b,
    }
}

/// Matches `actual` (`None` = key missing) against `pattern`. New captures go to `captured`
/// (not to `vars`), so a failed match leaves the bindings untouched.
pub fn match_value(
    pattern: &Value,
    actual: Option<&Value>,
    vars: &Vars,
    captured: &mut Vars,
    path: &mut String,
) -> Result<(), Mismatch> {
    let fail = |path: &str, expected: String, found: String| Mismatch {
        path: path.to_string(),
        expected,
        found,
    };
    if let Value::String(s) = pattern {
        match classify(s) {
            Special::Absent => {
                return match actual {
                    None => Ok(()),
                    Some(a) => Err(fail(path, "no such key".into(), short(a))),
                };
            }
            Special::Any => {
                return match actual {
                    Some(_) => Ok(()),
                    None => Err(fail(
                        path,
                        "any value".into(),
                        "nothing (missing key)".into(),
                    )),
                };
            }
            Special::Capture(name) => {
                let Some(a) = actual else {
                    return Err(fail(
                        path,
                        format!("a value to capture into ${name}"),
                        "nothing (missing key)".into(),
                    ));
                };
                captured.insert(name.to_string(), a.clone());
                return Ok(());
            }
            Special::Var(name) => {
                let Some(a) = actual else {
                    return Err(fail(
                        path,
                        format!("${name}"),
                        "nothing (missing key)".into(),
                    ));
                };
                let bound = captured.get(name).or_else(|| vars.get(name));
                return match bound {
                    Some(v) if numbers_equal(v, a) => Ok(()),
                    Some(v) => Err(fail(path, format!("{} (${name})", short(v)), short(a))),
                    None => {
                        captured.insert(name.to_string(), a.clone());
                        Ok(())
                    }
                };
            }
            Special::Literal(lit) => {
                let want = Value::String(format!("${lit}"));
                return match actual {
                    Some(a) if *a == want => Ok(()),
                    Some(a) => Err(fail(path, short(&want), short(a))),
                    None => Err(fail(path, short(&want), "nothing (missing key)".into())),
                };
            }
            Special::Splice => {
                let want = splice(s, &|n| captured.get(n).or_else(|| vars.get(n)).cloned())
                    .map_err(|e| fail(path, e, "(not compared)".into()))?;
                let want = Value::String(want);
                return match actual {
                    Some(a) if *a == want => Ok(()),
                    Some(a) => Err(fail(path, short(&want), short(a))),
                    None => Err(fail(path, short(&want), "nothing (missing key)".into())),
                };
            }
            Special::Uuid | Special::Plain => {}
        }
    }
    let Some(actual) = actual else {
        return Err(fail(path, short(pattern), "nothing (missing key)".into()));
    };
    match (pattern, actual) {
        (Value::Object(p), Value::Object(a)) => {
            for (k, pv) in p {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                let r = match_value(pv, a.get(k), vars, captured, path);
                path.truncate(len);
                r?;
            }
            Ok(())
        }
        (Value::Array(p), Value::Array(a)) => {
            if p.len() != a.len() {
                return Err(fail(
                    path,
                    format!("an array of {} element(s)", p.len()),
                    format!("{} element(s): {}", a.len(), short(actual)),
                ));
            }
            for (i, (pv, av)) in p.iter().zip(a).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let r = match_value(pv, Some(av), vars, captured, path);
                path.truncate(len);
                r?;
            }
            Ok(())
        }
        (p, a) if numbers_equal(p, a) => Ok(()),
        (p, a) => Err(fail(path, short(p), short(a))),
    }
}

/// Matches a whole line's JSON against `pattern`; on success returns the new captures.
pub fn match_line(pattern: &Value, line: &Value, vars: &Vars) -> Result<Vars, Mismatch> {
    let mut captured = Vars::new();
    let mut path = String::from("$");
    match_value(pattern, Some(line), vars, &mut captured, &mut path)?;
    Ok(captured)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_objects_wildcards_and_captures() {
        let vars: Vars = [("known".to_string(), json!("abc"))].into();
        let line = json!({"type": "control_request", "request_id": "r1", "request": {"subtype": "initialize", "hooks": null}, "extra": 1});
        let caps = match_line(
            &json!({"type": "control_request", "request_id": "$rid", "request": {"subtype": "initialize", "hooks": "$any", "agents": "$absent"}}),
            &line,
            &vars,
        )
        .unwrap();
        assert_eq!(caps, [("rid".to_string(), json!("r1"))].into());

        let err =
            match_line(&json!({"request": {"subtype": "interrupt"}}), &line, &vars).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"at $.request.subtype: expected "interrupt", found "initialize""#
        );
        let err = match_line(&json!({"request_id": "$known"}), &line, &vars).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"at $.request_id: expected "abc" ($known), found "r1""#
        );
        let err = match_line(&json!({"nope": "$any"}), &line, &vars).unwrap_err();
        assert_eq!(err.path, "$.nope");
        let err = match_line(&json!({"extra": "$absent"}), &line, &vars).unwrap_err();
        assert_eq!(err.expected, "no such key");
        // $> rebinds even a bound variable.
        let caps = match_line(&json!({"request_id": "$>known"}), &line, &vars).unwrap();
        assert_eq!(caps["known"], json!("r1"));
        // A variable captured earlier in the same pattern must agree later on.
        assert!(
            match_line(
                &json!({"a": "$x", "b": "$x"}),
                &json!({"a": 1, "b": 1.0}),
                &Vars::new()
            )
            .is_ok()
        );
        assert!(
            match_line(
                &json!({"a": "$x", "b": "$x"}),
                &json!({"a": 1, "b": 2}),
                &Vars::new()
            )
            .is_err()
        );
    }

    #[test]
    fn arrays_literals_and_splices() {
        let vars: Vars = [("i".to_string(), json!(7))].into();
        assert!(match_line(&json!([1, "$any"]), &json!([1, {}]), &vars).is_ok());
        let err = match_line(&json!([1]), &json!([1, 2]), &vars).unwrap_err();
        assert_eq!(err.expected, "an array of 1 element(s)");
        assert!(match_line(&json!("$$any"), &json!("$any"), &vars).is_ok());
        assert!(match_line(&json!("$$any"), &json!("x"), &vars).is_err());
        assert!(match_line(&json!("toolu_${i}"), &json!("toolu_7"), &vars).is_ok());
        assert!(match_line(&json!("toolu_${i}"), &json!("toolu_8"), &vars).is_err());
    }

    #[test]
    fn templates() {
        let vars: Vars = [
            ("rid".to_string(), json!("r1")),
            ("n".to_string(), json!(3)),
        ]
        .into();
        let out = substitute(
            &json!({"request_id": "$rid", "id": "$n", "s": "call ${n} of ${rid}", "lit": "$$rid", "u": "$uuid", "plain": "$ x"}),
            &vars,
        )
        .unwrap();
        assert_eq!(out["request_id"], "r1");
        assert_eq!(out["id"], 3);
        assert_eq!(out["s"], "call 3 of r1");
        assert_eq!(out["lit"], "$rid");
        assert_eq!(out["u"].as_str().unwrap().len(), 36);
        assert_eq!(out["plain"], "$ x");
        assert_eq!(
            substitute(&json!(["$nope"]), &vars).unwrap_err(),
            "variable `nope` is not bound"
        );
    }
}
