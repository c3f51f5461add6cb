//! The front matter of a `SKILL.md`: the YAML block between its two `---` lines, read as the
//! Claude Code CLI reads it, or refused.
//!
//! The CLI loads a skill from an MCP server only when the front matter it parses from the
//! served `SKILL.md` (with `Bun.YAML.parse`) is *deep-equal* to the `frontmatter` object the
//! server listed. A server that guessed YAML's typing differently from Bun (`version: 1.0` is
//! a number, `draft: no` may be a boolean, a date may be a date) would list a skill the CLI
//! then drops. So this reader accepts a plain, common subset whose meaning is not in doubt and
//! refuses everything else with an error that says how to write it:
//!
//! | written | read as |
//! |---|---|
//! | `key: plain text` | the string, trailing spaces cut |
//! | `key: "double quoted"` (escapes `\"` `\\` `\/` `\n` `\t` `\r` `\uXXXX`) | the string |
//! | `key: 'single quoted'` (`''` for a quote) | the string |
//! | `key:` then lines indented by spaces, each `child: value` as above | an object of strings (`metadata:`) |
//! | blank lines, lines starting with `#` | nothing |
//!
//! Refused: a plain value YAML could read as something else than a string (`null`, `~`,
//! `true`, `yes`, `off`, numbers, dates, `.inf`), a plain value starting with a YAML indicator
//! (`[`, `{`, `&`, `*`, `!`, `|`, `>`, `%`, `@`, `` ` ``, `-`, `?`, `:`, `,`, `#`) or holding
//! `: ` or ` #`, an empty value with nothing indented under it (YAML's `null`), values on
//! several lines, tabs in indentation, a repeated key, carriage returns, and `---` anywhere in
//! the block but its closing line (the CLI ends the block at the first `---` it meets).

use serde_json::{Map, Value};

/// The longest front matter block the CLI parses (characters), per its untrusted-input rule.
pub const MAX_FRONT_MATTER: usize = 65_536;

/// The longest `description` the Agent Skills format allows (characters).
pub const MAX_DESCRIPTION: usize = 1024;

/// A `SKILL.md` read: its front matter as the CLI will see it, and where the body starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FrontMatter {
    /// `name`.
    pub(crate) name: String,
    /// `description`.
    pub(crate) description: String,
    /// Every key, `name` and `description` included, in the order written.
    pub(crate) fields: Map<String, Value>,
}

/// Reads the front matter of `text` (a whole `SKILL.md`), or says why it cannot be served.
pub(crate) fn parse(text: &str) -> Result<FrontMatter, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n") else {
        return Err(
            "SKILL.md must open with a `---` line, then the front matter (`name:` and \
             `description:`), then a closing `---` line (and use LF line endings)"
                .into(),
        );
    };
    let Some(end) = find_closing(rest) else {
        return Err("the front matter has no closing `---` line".into());
    };
    let block = &rest[..end];
    if block.chars().count() > MAX_FRONT_MATTER {
        return Err(format!(
            "the front matter is longer than {MAX_FRONT_MATTER} characters, which the Claude \
             Code CLI does not read"
        ));
    }
    if block.contains('\r') {
        return Err("the front matter holds a carriage return: use LF line endings".into());
    }
    if block.contains("---") {
        return Err(
            "the front matter holds `---` before its closing line: the Claude Code CLI ends \
             the block there; quote differently or reword"
                .into(),
        );
    }
    check_anchor_like(block)?;
    let fields = read_block(block)?;
    let name = match fields.get("name") {
        Some(Value::String(name)) => name.clone(),
        Some(_) => return Err("`name` must be a string".into()),
        None => return Err("the front matter has no `name`".into()),
    };
    let description = match fields.get("description") {
        Some(Value::String(description)) => description.clone(),
        Some(_) => return Err("`description` must be a string".into()),
        None => {
            return Err(
                "the front matter has no `description` (say what the skill does and when the \
                 model should use it)"
                    .into(),
            );
        }
    };
    let length = description.chars().count();
    if length == 0 || length > MAX_DESCRIPTION {
        return Err(format!(
            "`description` must be 1 to {MAX_DESCRIPTION} characters, not {length}"
        ));
    }
    Ok(FrontMatter {
        name,
        description,
        fields,
    })
}

/// The offset in `rest` of the closing `---` line, if any.
fn find_closing(rest: &str) -> Option<usize> {
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        if bare.trim_end() == "---" {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

/// The CLI refuses a block that "may hold a YAML anchor": an `&` that starts a word.
fn check_anchor_like(block: &str) -> Result<(), String> {
    let chars: Vec<char> = block.chars().collect();
    for (index, &c) in chars.iter().enumerate() {
        if c != '&' {
            continue;
        }
        let next_blank = chars.get(index + 1).is_none_or(|n| n.is_whitespace());
        let after_word = index > 0 && chars[index - 1].is_alphanumeric();
        if !next_blank && !after_word {
            return Err(
                "the front matter holds `&` at the start of a word, which YAML reads as an \
                 anchor (and the Claude Code CLI refuses): write `and`, or put a space after it"
                    .into(),
            );
        }
    }
    Ok(())
}

fn read_block(block: &str) -> Result<Map<String, Value>, String> {
    let mut fields = Map::new();
    let mut lines = block.lines().enumerate().peekable();
    while let Some((number, line)) = lines.next() {
        let line_no = number + 2;
        if is_blank_or_comment(line) {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            return Err(format!(
                "line {line_no}: an indented line outside a `key:` block (values on several \
                 lines are not read: write the value on one line, quoted if need be)"
            ));
        }
        let (key, value) = split_entry(line, line_no)?;
        let value = if value.is_empty() {
            let mut children = Map::new();
            let mut indent = None;
            while let Some((child_number, child)) = lines
                .next_if(|(_, next)| is_blank_or_comment(next) || next.starts_with([' ', '\t']))
            {
                let child_no = child_number + 2;
                if is_blank_or_comment(child) {
                    continue;
                }
                let width = child.len() - child.trim_start_matches(' ').len();
                if child[width..].starts_with('\t') {
                    return Err(format!("line {child_no}: indent with spaces, not tabs"));
                }
                if *indent.get_or_insert(width) != width {
                    return Err(format!(
                        "line {child_no}: every line under `{key}:` must have the same indent \
                         (nested blocks go one level deep)"
                    ));
                }
                let (child_key, child_value) = split_entry(&child[width..], child_no)?;
                if child_value.is_empty() {
                    return Err(format!(
                        "line {child_no}: `{child_key}` has no value (nested blocks go one \
                         level deep; YAML would read an empty value as null)"
                    ));
                }
                let child_value = scalar(child_value, child_no)?;
                if children
                    .insert(child_key.to_string(), Value::String(child_value))
                    .is_some()
                {
                    return Err(format!(
                        "line {child_no}: `{key}.{child_key}` is written twice"
                    ));
                }
            }
            if children.is_empty() {
                return Err(format!(
                    "line {line_no}: `{key}` has no value (YAML would read it as null): write \
                     `{key}: \"\"` for an empty string"
                ));
            }
            Value::Object(children)
        } else {
            Value::String(scalar(value, line_no)?)
        };
        if fields.insert(key.to_string(), value).is_some() {
            return Err(format!("line {line_no}: `{key}` is written twice"));
        }
    }
    Ok(fields)
}

fn is_blank_or_comment(line: &str) -> bool {
    let trimmed = line.trim_start_matches([' ', '\t']);
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// `key: value` → (`key`, `value` without its leading spaces).
fn split_entry(line: &str, line_no: usize) -> Result<(&str, &str), String> {
    let Some((key, value)) = line.split_once(':') else {
        return Err(format!("line {line_no}: expected `key: value`"));
    };
    let key_ok = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !key_ok {
        return Err(format!(
            "line {line_no}: the key `{key}` must be ASCII letters, digits, `_`, `-` and `.`"
        ));
    }
    if !value.is_empty() && !value.starts_with(' ') {
        return Err(format!(
            "line {line_no}: put a space after `{key}:` (YAML reads `{key}:{value}` otherwise)"
        ));
    }
    Ok((key, value.trim_start_matches(' ')))
}

/// One value, as a string, or why it is refused.
fn scalar(value: &str, line_no: usize) -> Result<String, String> {
    if let Some(quoted) = value.strip_prefix('"') {
        return double_quoted(quoted, line_no);
    }
    if let Some(quoted) = value.strip_prefix('\'') {
        return single_quoted(quoted, line_no);
    }
    let value = value.trim_end_matches([' ', '\t']);
    let quote_it = |why: &str| {
        Err(format!(
            "line {line_no}: the value `{value}` {why}; put it in double quotes to keep it a \
             string the Claude Code CLI reads the same way"
        ))
    };
    if value.starts_with([
        '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '-', '?', ':', ',', '#', '\t',
    ]) {
        return quote_it("starts with a YAML indicator");
    }
    if value.contains(": ") || value.contains(" #") || value.ends_with(':') {
        return quote_it("holds `: ` or ` #`, which YAML reads as structure or a comment");
    }
    if reads_as_non_string(value) {
        return quote_it("is read by YAML as a null, a boolean, a number or a date");
    }
    Ok(value.to_string())
}

/// Whether a plain YAML scalar might be read as something other than a string (YAML 1.1 or
/// 1.2: this errs on the side of refusing).
fn reads_as_non_string(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "null" | "~" | "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n"
    ) || matches!(lower.as_str(), ".inf" | "-.inf" | "+.inf" | ".nan")
    {
        return true;
    }
    let body = value.strip_prefix(['+', '-']).unwrap_or(value);
    let numeric = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body.chars().all(|c| {
            c.is_ascii_hexdigit()
                || matches!(
                    c,
                    '.' | '_' | 'x' | 'o' | 'X' | 'O' | 'e' | 'E' | '+' | '-' | ':'
                )
        });
    // Dates (`2026-07-28`) and sexagesimal numbers (`1:30`) are covered by the character set.
    numeric && body.chars().any(|c| c.is_ascii_digit())
}

fn double_quoted(quoted: &str, line_no: usize) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = quoted.chars();
    loop {
        match chars.next() {
            None => return Err(format!("line {line_no}: the double quote is not closed")),
            Some('"') => break,
            Some('\\') => match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('/') => out.push('/'),
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16)
                        .ok()
                        .filter(|_| hex.len() == 4)
                        .and_then(char::from_u32);
                    match code {
                        Some(c) => out.push(c),
                        None => {
                            return Err(format!(
                                "line {line_no}: `\\u{hex}` is not a character (surrogate pairs \
                                 are not read: write the character itself)"
                            ));
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "line {line_no}: the escape `\\{}` is not read here (use `\\\"`, `\\\\`, \
                         `\\n`, `\\t`, `\\r` or `\\uXXXX`)",
                        other.map(String::from).unwrap_or_default()
                    ));
                }
            },
            Some(c) => out.push(c),
        }
    }
    after_quote(chars.as_str(), line_no)?;
    Ok(out)
}

fn single_quoted(quoted: &str, line_no: usize) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = quoted.chars().peekable();
    loop {
        match chars.next() {
            None => return Err(format!("line {line_no}: the single quote is not closed")),
            Some('\'') if chars.peek() == Some(&'\'') => {
                chars.next();
                out.push('\'');
            }
            Some('\'') => break,
            Some(c) => out.push(c),
        }
    }
    after_quote(&chars.collect::<String>(), line_no)?;
    Ok(out)
}

fn after_quote(rest: &str, line_no: usize) -> Result<(), String> {
    if rest.trim_matches([' ', '\t']).is_empty() {
        Ok(())
    } else {
        Err(format!(
            "line {line_no}: text after the closing quote (`{}`)",
            rest.trim()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(text: &str) -> Value {
        Value::Object(
            parse(text)
                .map(|fm| fm.fields)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    }

    fn refused(text: &str) -> String {
        match parse(text) {
            Ok(fm) => panic!("accepted: {:?}", fm.fields),
            Err(error) => error,
        }
    }

    #[test]
    fn reads_the_common_subset_as_yaml_does() {
        let text = "---\nname: deploy\ndescription: Deploy the app. Use when asked to ship.\n\
                    license: 'Apache-2.0'\n# a comment\n\nallowed-tools: \"Bash(git:*) Read\"\n\
                    metadata:\n  author: ops team\n  version: \"1.0\"\n---\n# Deploy\n";
        assert_eq!(
            fields(text),
            json!({
                "name": "deploy",
                "description": "Deploy the app. Use when asked to ship.",
                "license": "Apache-2.0",
                "allowed-tools": "Bash(git:*) Read",
                "metadata": {"author": "ops team", "version": "1.0"}
            })
        );
        let fm = parse(text).unwrap();
        assert_eq!(fm.name, "deploy");
    }

    #[test]
    fn reads_escapes_in_quotes() {
        let text = "---\nname: a\ndescription: \"say \\\"hi\\\" \\u00e9\\n\"\nnote: 'it''s'\n---\n";
        assert_eq!(
            fields(text),
            json!({"name": "a", "description": "say \"hi\" é\n", "note": "it's"})
        );
    }

    #[test]
    fn refuses_what_yaml_would_type_or_structure() {
        for (value, why) in [
            ("1.0", "number"),
            ("42", "number"),
            ("yes", "boolean"),
            ("Off", "boolean"),
            ("null", "null"),
            ("~", "null"),
            ("2026-07-28", "date"),
            ("[a, b]", "indicator"),
            ("*ref", "indicator"),
            ("a: b", "`: `"),
            ("text # comment", "` #`"),
        ] {
            let error = refused(&format!(
                "---\nname: a\ndescription: d\nversion: {value}\n---\n"
            ));
            assert!(error.contains("double quotes"), "{value} ({why}): {error}");
        }
    }

    #[test]
    fn refuses_malformed_blocks() {
        for (text, says) in [
            ("# no front matter\n", "must open with"),
            ("---\nname: a\ndescription: d\n", "no closing"),
            ("---\r\nname: a\r\n---\r\n", "must open with"),
            ("---\nname: a\ndescription: d\r\n---\n", "carriage return"),
            ("---\ndescription: d\n---\n", "no `name`"),
            ("---\nname: a\n---\n", "no `description`"),
            ("---\nname: a\ndescription: \"\"\n---\n", "1 to 1024"),
            ("---\nname: a\nname: b\ndescription: d\n---\n", "twice"),
            ("---\nname: a\ndescription:\n---\n", "no value"),
            ("---\nname: a\ndescription: d\n  more\n---\n", "indented"),
            ("---\nname: a\ndescription: \"open\n---\n", "not closed"),
            ("---\nname: a\ndescription: x --- y\n---\n", "`---`"),
            ("---\nname: a\ndescription: R &D\n---\n", "anchor"),
            ("---\nname:a\ndescription: d\n---\n", "space after"),
            (
                "---\nname: a\ndescription: d\nmeta:\n  k:\n---\n",
                "no value",
            ),
        ] {
            let error = refused(text);
            assert!(error.contains(says), "{text:?}: {error}");
        }
    }

    #[test]
    fn keeps_r_and_d_and_spaced_ampersands() {
        let text = "---\nname: a\ndescription: R&D and a & b\n---\n";
        assert_eq!(fields(text)["description"], "R&D and a & b");
    }
}
