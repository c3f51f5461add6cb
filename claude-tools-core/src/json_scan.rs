//! A tolerant scanner of JSON text that may not parse: what can still be read of a line that
//! serde_json refuses (bad escapes, out-of-range numbers, a line cut short), without recursing
//! and without failing. Shared by the control protocol's recovery (`claude-tools-runtime`) and
//! the MCP servers (`claude-tools-mcp`), which echo a request's id exactly as it was written.
//!
//! Not public API: the workspace's crates use it; its items may change at any release.

/// A string or number id exactly as the line wrote it: valid JSON, written back unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawId(pub String);

impl RawId {
    /// The id's JSON text.
    pub fn json(&self) -> &str {
        &self.0
    }

    /// The id for people: a string's text, a number's digits.
    pub fn text(&self) -> String {
        if self.0.starts_with('"') {
            decode_string(self.0.as_bytes())
                .unwrap_or_else(|| self.0[1..self.0.len() - 1].to_string())
        } else {
            self.0.clone()
        }
    }
}

/// What a scan makes out of a JSON-RPC message that does not parse: its `id` exactly as
/// written (a string or a number), its `method`, and a `tools/call`'s tool (`params.name`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageHead {
    /// `id`.
    pub id: Option<RawId>,
    /// `method`, when it is a string.
    pub method: Option<String>,
    /// `params.name`, when it is a string.
    pub tool: Option<String>,
}

/// The [`MessageHead`] of `line`, one JSON-RPC message; what the control protocol's recovery
/// reads of a message inside a `control_request`, for the messages the decoder cannot read.
pub fn message_head(line: &[u8]) -> MessageHead {
    let mut head = MessageHead::default();
    let mut s = Scanner {
        bytes: line,
        pos: 0,
    };
    s.whitespace();
    if !s.eat(b'{') {
        return head;
    }
    let mut in_params = false;
    // The last of a repeated key counts, as for the parsers.
    loop {
        s.whitespace();
        match s.peek() {
            Some(b',') => s.pos += 1,
            Some(b'}') if in_params => {
                s.pos += 1;
                in_params = false;
            }
            Some(b'"') => {
                let Some(key) = s.string() else {
                    return head;
                };
                s.whitespace();
                if !s.eat(b':') {
                    return head;
                }
                s.whitespace();
                match (in_params, key) {
                    (false, b"id") => head.id = s.id(),
                    (false, b"method") => head.method = s.text(),
                    (false, b"params") if s.peek() == Some(b'{') => {
                        s.pos += 1;
                        in_params = true;
                    }
                    (true, b"name") => head.tool = s.text(),
                    _ => {
                        if !s.skip_value() {
                            return head;
                        }
                    }
                }
            }
            _ => return head,
        }
    }
}

/// A cursor over the bytes of a line.
pub struct Scanner<'a> {
    /// The line.
    pub bytes: &'a [u8],
    /// The cursor: the next byte to read.
    pub pos: usize,
}

impl<'a> Scanner<'a> {
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub fn eat(&mut self, byte: u8) -> bool {
        let matched = self.peek() == Some(byte);
        if matched {
            self.pos += 1;
        }
        matched
    }

    pub fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The raw bytes between a string's quotes (escapes left as written), the cursor after it;
    /// `None` when there is no string here or it is not closed.
    pub fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.pos;
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(&self.bytes[start..self.pos - 1]);
                }
                // Whatever follows a backslash belongs to the escape, a quote included.
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    /// A string value as text (lossy where it cannot be decoded); `None` (the value skipped)
    /// when the value is not a string.
    pub fn text(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            self.skip_value();
            return None;
        }
        let raw = self.string()?;
        if !raw.contains(&b'\\') {
            return Some(String::from_utf8_lossy(raw).into_owned());
        }
        let quoted = &self.bytes[self.pos - raw.len() - 2..self.pos];
        Some(decode_string(quoted).unwrap_or_else(|| String::from_utf8_lossy(raw).into_owned()))
    }

    /// A string or number value as its JSON text; `None` (the value skipped) for anything else
    /// or a string that is not valid JSON as written.
    pub fn id(&mut self) -> Option<RawId> {
        let start = self.pos;
        match self.peek()? {
            b'"' => {
                self.string()?;
                let quoted = &self.bytes[start..self.pos];
                let text = std::str::from_utf8(quoted).ok()?;
                // Echoed as written, so it must be a JSON string as written (lone surrogates
                // are valid for the CLI's JavaScript parser).
                decode_string(quoted).map(|_| RawId(text.to_string()))
            }
            b'-' | b'0'..=b'9' => {
                self.skip_value();
                let number = &self.bytes[start..self.pos];
                let well_formed = number
                    .iter()
                    .all(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    && number.last().is_some_and(u8::is_ascii_digit);
                // Out-of-range numbers are kept too: the CLI's parser reads them.
                well_formed.then(|| RawId(String::from_utf8_lossy(number).into_owned()))
            }
            _ => {
                self.skip_value();
                None
            }
        }
    }

    /// Moves past one value of any kind and depth, counting brackets rather than recursing.
    /// `false` when the line ends (or breaks) inside it.
    pub fn skip_value(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            self.whitespace();
            match self.peek() {
                None => return false,
                Some(b'"') => {
                    if self.string().is_none() {
                        return false;
                    }
                }
                Some(b'{' | b'[') => {
                    depth += 1;
                    self.pos += 1;
                }
                Some(b'}' | b']' | b',' | b':') if depth == 0 => {
                    // The end of the value, or a value missing: either way the caller's.
                    return true;
                }
                Some(b'}' | b']') => {
                    depth -= 1;
                    self.pos += 1;
                }
                Some(b',' | b':') => self.pos += 1,
                Some(_) => {
                    // A number or literal, well-formed or not: up to the next delimiter.
                    while let Some(byte) = self.peek() {
                        if matches!(
                            byte,
                            b' ' | b'\t'
                                | b'\n'
                                | b'\r'
                                | b','
                                | b':'
                                | b'['
                                | b']'
                                | b'{'
                                | b'}'
                                | b'"'
                        ) {
                            break;
                        }
                        self.pos += 1;
                    }
                }
            }
            if depth == 0 {
                return true;
            }
        }
    }
}

/// A JSON string as written (quotes included) decoded, its lone surrogate escapes read as
/// U+FFFD; `None` when it is not a valid JSON string even so.
pub fn decode_string(quoted: &[u8]) -> Option<String> {
    let repaired = replace_lone_surrogates(quoted);
    serde_json::from_slice(repaired.as_deref().unwrap_or(quoted)).ok()
}

/// The line with each lone UTF-16 surrogate escape (`\ud800`–`\udfff` not part of a pair)
/// replaced by `\ufffd`, or `None` when it has none. JavaScript's `JSON.stringify` writes such
/// escapes for strings cut in the middle of a pair; serde_json refuses them, and U+FFFD (the
/// replacement character) is the closest a Rust string can hold. Same length, same offsets.
pub fn replace_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let mut fixed: Option<Vec<u8>> = None;
    let mut i = 0;
    while let Some(offset) = line[i..].iter().position(|&b| b == b'\\') {
        let at = i + offset;
        match hex_escape(line, at) {
            Some(0xD800..=0xDBFF) => {
                if matches!(hex_escape(line, at + 6), Some(0xDC00..=0xDFFF)) {
                    // A proper pair: keep both halves.
                    i = at + 12;
                    continue;
                }
                fixed.get_or_insert_with(|| line.to_vec())[at..at + 6].copy_from_slice(br"\ufffd");
                i = at + 6;
            }
            Some(0xDC00..=0xDFFF) => {
                fixed.get_or_insert_with(|| line.to_vec())[at..at + 6].copy_from_slice(br"\ufffd");
                i = at + 6;
            }
            // Any other escape, `\\` included, is two bytes or more; its second byte is never
            // the start of another escape.
            _ => i = at + 2,
        }
        if i >= line.len() {
            break;
        }
    }
    fixed
}

/// The code unit of the `\uXXXX` escape at `at`, if there is one.
fn hex_escape(line: &[u8], at: usize) -> Option<u16> {
    let escape = line.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    if !escape[2..].iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let digits = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Option<RawId> {
        Some(RawId(text.to_string()))
    }

    #[test]
    fn a_messages_head_is_read_as_written() {
        let head = message_head(
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"name":"no","n":1e400},"name":"add"},"id":"x\u0041"}"#,
        );
        assert_eq!(
            head,
            MessageHead {
                id: raw(r#""x\u0041""#),
                method: Some("tools/call".into()),
                tool: Some("add".into()),
            }
        );
        let id = |line: &str| message_head(line.as_bytes()).id;
        assert_eq!(
            id(
                r#"{"jsonrpc":"2.0","params":{"id":1,"a":[1e400]},"id":123456789012345678901234567890}"#
            ),
            raw("123456789012345678901234567890")
        );
        assert_eq!(
            id(r#"{"id":"a\"b","id":7}"#),
            raw("7"),
            "the last id counts"
        );
        assert_eq!(id(r#" {"method":"x","id":-1e400"#), raw("-1e400"));
        for none in [
            r#"{"method":"x"}"#,
            r#"{"id":null}"#,
            "[1]",
            "",
            r#"{"a":{"#,
        ] {
            assert_eq!(id(none), None, "{none}");
        }
    }

    #[test]
    fn only_lone_surrogates_are_replaced() {
        let fix = |text: &str| {
            replace_lone_surrogates(text.as_bytes()).map(|fixed| String::from_utf8(fixed).unwrap())
        };
        assert_eq!(
            fix(r#"{"a":"\ud800"}"#).as_deref(),
            Some(r#"{"a":"\ufffd"}"#)
        );
        assert_eq!(
            fix(r#""\uDC00x\uD83D""#).as_deref(),
            Some(r#""\ufffdx\ufffd""#)
        );
        assert_eq!(
            fix(r#""\ud800\u0041""#).as_deref(),
            Some(r#""\ufffd\u0041""#)
        );
        assert_eq!(
            fix(r#""\ud800\ud800\udc00""#).as_deref(),
            Some(r#""\ufffd\ud800\udc00""#)
        );
        // A pair, an escaped backslash before `ud800`, other escapes, a cut escape: unchanged.
        for kept in [
            r#""\ud83d\ude00""#,
            r#""\\ud800""#,
            r#""\n\"\u0041""#,
            r#""\ud8"#,
            "\\",
        ] {
            assert_eq!(fix(kept), None, "{kept}");
        }
    }
}
