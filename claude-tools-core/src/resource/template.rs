//! [`UriTemplate`]: RFC 6570 level-1 URI templates (`tickets://{id}`), parsed and matched.

use std::collections::BTreeMap;

/// A URI template of literal text and level-1 variables (`{name}`), as a resource template's
/// `uriTemplate` is. Level 1 percent-encodes every reserved character of a value, so a
/// variable matches text without `/`, `?` or `#`, and is percent-decoded.
///
/// ```
/// use claude_tools::resources::UriTemplate;
///
/// let template = UriTemplate::parse("tickets://{project}/{id}").unwrap();
/// assert_eq!(template.variables().collect::<Vec<_>>(), ["project", "id"]);
/// let values = template.matches("tickets://core/42").unwrap();
/// assert_eq!(values["project"], "core");
/// assert_eq!(values["id"], "42");
/// assert!(template.matches("tickets://core").is_none());
/// assert!(UriTemplate::parse("files://{+path}").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

impl UriTemplate {
    /// Parses `text`: an error says what is wrong (an unclosed brace, an operator or a
    /// modifier beyond level 1, a variable twice, two variables side by side).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find(['{', '}']) {
            if rest.as_bytes()[open] == b'}' {
                return Err(format!("`{text}` has a `}}` without its `{{`"));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                return Err(format!("`{text}` has a `{{` without its `}}`"));
            };
            let name = &after[..close];
            check_variable(text, name)?;
            if parts
                .iter()
                .any(|part| *part == Part::Variable(name.to_string()))
            {
                return Err(format!("`{text}` has the variable `{name}` twice"));
            }
            if matches!(parts.last(), Some(Part::Variable(_))) {
                return Err(format!(
                    "`{text}` has two variables side by side: put literal text between them, or \
                     the URI cannot say where one ends"
                ));
            }
            parts.push(Part::Variable(name.to_string()));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_string()));
        }
        Ok(Self {
            text: text.to_string(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its variables' names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            Part::Variable(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Whether the template has no variable (a fixed URI).
    pub fn is_fixed(&self) -> bool {
        self.variables().next().is_none()
    }

    /// The variables' values when `uri` fits the template, percent-decoded.
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut values = BTreeMap::new();
        match_parts(&self.parts, uri, &mut values).then_some(values)
    }
}

fn check_variable(text: &str, name: &str) -> Result<(), String> {
    if let Some(operator) = name.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c)) {
        return Err(format!(
            "`{text}` uses the operator `{operator}` of `{{{name}}}`: only level-1 variables \
             (`{{name}}`) are supported"
        ));
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "`{text}` has the variable `{{{name}}}`: a variable's name is ASCII letters, digits \
             and `_` (level 1: no modifiers, no lists)"
        ));
    }
    Ok(())
}

/// Matches `parts` against `uri`, a variable taking the shortest text that lets the rest
/// match (backtracking, so `{a}.{b}` style templates work).
fn match_parts(parts: &[Part], uri: &str, values: &mut BTreeMap<String, String>) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(literal), rest)) => uri
            .strip_prefix(literal.as_str())
            .is_some_and(|tail| match_parts(rest, tail, values)),
        Some((Part::Variable(name), rest)) => {
            // A level-1 value has its reserved characters encoded.
            let end = uri.find(['/', '?', '#']).unwrap_or(uri.len());
            for split in (1..=end).filter(|split| uri.is_char_boundary(*split)) {
                if match_parts(rest, &uri[split..], values) {
                    let Some(value) = percent_decode(&uri[..split]) else {
                        return false;
                    };
                    values.insert(name.clone(), value);
                    return true;
                }
            }
            false
        }
    }
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_match_up_to_the_next_literal_and_are_decoded() {
        let template = UriTemplate::parse("units://{from}/to/{to}.json").unwrap();
        let values = template.matches("units://km/to/mile.json").unwrap();
        assert_eq!(
            (values["from"].as_str(), values["to"].as_str()),
            ("km", "mile")
        );
        let values = template.matches("units://k%C3%A9/to/a.b.json").unwrap();
        assert_eq!(
            (values["from"].as_str(), values["to"].as_str()),
            ("ké", "a.b")
        );
        assert!(template.matches("units://a/b/to/c.json").is_none());
        assert!(template.matches("units:///to/c.json").is_none());
        assert!(template.matches("units://%ZZ/to/c.json").is_none());
    }

    #[test]
    fn bad_templates_say_why() {
        for (text, problem) in [
            ("a://{id", "without its `}`"),
            ("a://id}", "without its `{`"),
            ("a://{id}/{id}", "twice"),
            ("a://{a}{b}", "side by side"),
            ("a://{?q}", "operator `?`"),
            ("a://{id*}", "level 1"),
            ("a://{}", "level 1"),
        ] {
            let error = UriTemplate::parse(text).unwrap_err();
            assert!(error.contains(problem), "{text}: {error}");
        }
    }
}
