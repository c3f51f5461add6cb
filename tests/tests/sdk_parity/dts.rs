//! A reader for the few declarations of the TypeScript SDK's `.d.ts` files the parity table
//! follows. Not a TypeScript parser: it tokenizes (comments dropped, string literals kept as
//! strings) and walks the shapes these declarations have in `sdk.d.ts` and `sdk-tools.d.ts`,
//! failing with the declaration's name when a shape it expects is not there.

/// One token of a `.d.ts` file.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// A string literal's content ('…', "…" or `…`).
    Str(String),
    /// Punctuation; `=>` is one token, so that its `>` is not taken for a closing `<`.
    Punct(&'static str),
}

const PUNCTS: &[&str] = &[
    "=>", "{", "}", "(", ")", "[", "]", "<", ">", ";", ",", ":", "?", "|", "&", "=", ".", "*", "-",
    "+", "!", "@", "#", "%", "^", "~", "/", "\\",
];

/// Splits a `.d.ts` text into tokens, dropping comments and whitespace.
pub fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            if i + 1 >= chars.len() {
                return Err("a /* comment is never closed".into());
            }
            i += 2;
        } else if c == '\'' || c == '"' || c == '`' {
            let quote = c;
            let mut value = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(format!("a {quote} string is never closed")),
                    Some('\\') => {
                        if let Some(escaped) = chars.get(i + 1) {
                            value.push(*escaped);
                        }
                        i += 2;
                    }
                    Some(&ch) if ch == quote => {
                        i += 1;
                        break;
                    }
                    Some(&ch) => {
                        value.push(ch);
                        i += 1;
                    }
                }
            }
            tokens.push(Token::Str(value));
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
        } else {
            let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let punct = PUNCTS
                .iter()
                .find(|p| rest.starts_with(**p))
                .ok_or_else(|| format!("unexpected character {c:?}"))?;
            tokens.push(Token::Punct(punct));
            i += punct.chars().count();
        }
    }
    Ok(tokens)
}

fn ident(token: Option<&Token>) -> Option<&str> {
    match token {
        Some(Token::Ident(name)) => Some(name),
        _ => None,
    }
}

fn opens(token: &Token) -> bool {
    matches!(token, Token::Punct("{" | "(" | "[" | "<"))
}

fn closes(token: &Token) -> bool {
    matches!(token, Token::Punct("}" | ")" | "]" | ">"))
}

/// The parsed tokens of one `.d.ts` file.
pub struct Dts {
    tokens: Vec<Token>,
}

impl Dts {
    /// Tokenizes `text`.
    pub fn parse(text: &str) -> Result<Self, String> {
        Ok(Self {
            tokens: tokenize(text)?,
        })
    }

    /// The index just past the keyword sequence `head` (e.g. `["type", "Options", "="]`),
    /// found at the top level of the file.
    fn after(&self, head: &[&str]) -> Result<usize, String> {
        let mut depth = 0usize;
        for i in 0..self.tokens.len() {
            let token = &self.tokens[i];
            if depth == 0
                && head
                    .iter()
                    .enumerate()
                    .all(|(k, word)| match self.tokens.get(i + k) {
                        Some(Token::Ident(name)) => name == word,
                        Some(Token::Punct(p)) => p == word,
                        _ => false,
                    })
            {
                return Ok(i + head.len());
            }
            if opens(token) {
                depth += 1;
            } else if closes(token) {
                depth = depth.saturating_sub(1);
            }
        }
        Err(format!("no top-level declaration `{}`", head.join(" ")))
    }

    /// The members (property and method names) of the object type or interface body that
    /// starts at the first `{` at or after `start`, in their order.
    fn members_from(&self, start: usize, what: &str) -> Result<Vec<String>, String> {
        let open = (start..self.tokens.len())
            .find(|&i| self.tokens[i] == Token::Punct("{"))
            .ok_or_else(|| format!("{what}: no `{{` body"))?;
        let mut names = Vec::new();
        let mut depth = 0usize;
        let mut member_start = false;
        for i in open..self.tokens.len() {
            let token = &self.tokens[i];
            if opens(token) {
                depth += 1;
                member_start = depth == 1;
                continue;
            }
            if closes(token) {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(names);
                }
                continue;
            }
            if depth != 1 {
                continue;
            }
            if matches!(token, Token::Punct(";" | ",")) {
                member_start = true;
                continue;
            }
            if !member_start {
                continue;
            }
            member_start = false;
            let mut k = i;
            if ident(self.tokens.get(k)) == Some("readonly")
                && !matches!(self.tokens.get(k + 1), Some(Token::Punct(":" | "?" | "(")))
            {
                k += 1;
            }
            let name = match self.tokens.get(k) {
                Some(Token::Ident(name) | Token::Str(name)) => name.clone(),
                _ => continue,
            };
            k += 1;
            if self.tokens.get(k) == Some(&Token::Punct("?")) {
                k += 1;
            }
            if matches!(self.tokens.get(k), Some(Token::Punct(":" | "(" | "<"))) {
                names.push(name);
            }
        }
        Err(format!("{what}: its body is never closed"))
    }

    /// The members of `export declare type NAME = { … }`.
    pub fn type_members(&self, name: &str) -> Result<Vec<String>, String> {
        let start = self.after(&["export", "declare", "type", name, "="])?;
        self.members_from(start, name)
    }

    /// The members of `export declare interface NAME … { … }`.
    pub fn interface_members(&self, name: &str) -> Result<Vec<String>, String> {
        let start = self.after(&["export", "declare", "interface", name])?;
        self.members_from(start, name)
    }

    /// The type names of a union alias `export [declare] type NAME = A | B | …` (ended by `;`
    /// or the next `export`); `None` when the alias is not a union of plain names.
    pub fn union(&self, head: &[&str]) -> Result<Option<Vec<String>>, String> {
        let start = self.after(head)?;
        let mut names = Vec::new();
        let mut expect_name = true;
        for token in &self.tokens[start..] {
            match token {
                Token::Punct(";") => break,
                Token::Ident(word) if word == "export" => break,
                Token::Punct("|") if !expect_name || names.is_empty() => expect_name = true,
                Token::Ident(name) if expect_name => {
                    names.push(name.clone());
                    expect_name = false;
                }
                _ => return Ok(None),
            }
        }
        Ok((!names.is_empty()).then_some(names))
    }

    /// The string elements of `export declare const NAME: readonly [ '…', … ];`.
    pub fn string_tuple(&self, name: &str) -> Result<Vec<String>, String> {
        let start = self.after(&["export", "declare", "const", name, ":", "readonly", "["])?;
        let mut values = Vec::new();
        for token in &self.tokens[start..] {
            match token {
                Token::Str(value) => values.push(value.clone()),
                Token::Punct(",") => {}
                Token::Punct("]") => return Ok(values),
                other => return Err(format!("{name}: unexpected {other:?} in the tuple")),
            }
        }
        Err(format!("{name}: the tuple is never closed"))
    }

    /// The string value of the property `key: '…'` at the first level of the body of
    /// `export declare type NAME = { … }`, if it has one.
    pub fn literal_property(&self, name: &str, key: &str) -> Result<Option<String>, String> {
        let start = self.after(&["export", "declare", "type", name, "="])?;
        let open = (start..self.tokens.len())
            .find(|&i| self.tokens[i] == Token::Punct("{"))
            .ok_or_else(|| format!("{name}: no `{{` body"))?;
        let mut depth = 0usize;
        for i in open..self.tokens.len() {
            let token = &self.tokens[i];
            if opens(token) {
                depth += 1;
            } else if closes(token) {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(None);
                }
            } else if depth == 1
                && ident(Some(token)) == Some(key)
                && self.tokens.get(i + 1) == Some(&Token::Punct(":"))
                && let Some(Token::Str(value)) = self.tokens.get(i + 2)
            {
                return Ok(Some(value.clone()));
            }
        }
        Err(format!("{name}: its body is never closed"))
    }

    /// Every name an entry point's `.d.ts` exports, in its order: its own declarations
    /// (`export [declare] function|const|class|type|interface|enum NAME`) and the names of its
    /// value re-export lists (`export { a, b as c } from '…'`). Type-only re-exports
    /// (`export type { … } from`, `export type * from`) are left out: they are the root's types,
    /// not items of their own.
    pub fn entry_exports(&self) -> Vec<String> {
        const KINDS: [&str; 7] = [
            "function",
            "const",
            "let",
            "class",
            "type",
            "interface",
            "enum",
        ];
        let mut names = Vec::new();
        let mut depth = 0usize;
        for (i, token) in self.tokens.iter().enumerate() {
            if depth == 0 && ident(Some(token)) == Some("export") {
                let mut k = i + 1;
                if ident(self.tokens.get(k)) == Some("declare") {
                    k += 1;
                }
                match (self.tokens.get(k), self.tokens.get(k + 1)) {
                    (Some(Token::Punct("{")), _) => names.extend(self.export_list(k + 1)),
                    (Some(Token::Ident(kind)), Some(Token::Ident(name)))
                        if KINDS.contains(&kind.as_str()) =>
                    {
                        names.push(name.clone());
                    }
                    _ => {}
                }
            }
            if opens(token) {
                depth += 1;
            } else if closes(token) {
                depth = depth.saturating_sub(1);
            }
        }
        names
    }

    /// The exported names of the list `a, b as c, }` that starts at `start`.
    fn export_list(&self, start: usize) -> Vec<String> {
        let mut names = Vec::new();
        let mut current: Option<&str> = None;
        for token in &self.tokens[start..] {
            match token {
                Token::Punct(",") => names.extend(current.take().map(str::to_owned)),
                Token::Punct("}") => {
                    names.extend(current.take().map(str::to_owned));
                    break;
                }
                // `a as b`: the name exported is the last identifier.
                Token::Ident(name) if name != "as" => current = Some(name),
                _ => {}
            }
        }
        names
    }

    /// The names of the root's value exports: `export declare function|const|class NAME`.
    pub fn value_exports(&self) -> Vec<String> {
        self.tokens
            .windows(4)
            .filter_map(|w| match w {
                [
                    Token::Ident(e),
                    Token::Ident(d),
                    Token::Ident(kind),
                    Token::Ident(name),
                ] if e == "export"
                    && d == "declare"
                    && matches!(kind.as_str(), "function" | "const" | "class") =>
                {
                    Some(name.clone())
                }
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_skip_nested_bodies_arrows_and_comments() {
        let dts = Dts::parse(
            "export declare type Options = {\n  /** a: no */ a?: string;\n  b: (x: { c: number }) => Promise<void>;\n  'd-e'?: { f: 1 } | { g: 2 };\n  h(x: string): void;\n  readonly i: number[];\n};",
        )
        .unwrap();
        assert_eq!(
            dts.type_members("Options").unwrap(),
            ["a", "b", "d-e", "h", "i"]
        );
    }

    #[test]
    fn entry_exports_list_declarations_and_value_re_exports_only() {
        let dts = Dts::parse(
            "import type { X } from './a.js';\nexport type { X } from './a.js';\nexport { a, b as c, } from './a.js';\nexport type T = { inner: { export: 1 } };\nexport declare function f(x: { y: 1 }): void;\nexport declare const K: boolean;\nexport function g(p: string): string\nexport type * from './a.js'\ndeclare type Hidden = 1;",
        )
        .unwrap();
        assert_eq!(dts.entry_exports(), ["a", "c", "T", "f", "K", "g"]);
    }

    #[test]
    fn unions_end_at_a_semicolon_or_the_next_export() {
        let dts = Dts::parse("export type T =\n  | A\n  | B\nexport type U = C | D;").unwrap();
        assert_eq!(
            dts.union(&["export", "type", "T", "="]).unwrap().unwrap(),
            ["A", "B"]
        );
        assert_eq!(
            dts.union(&["export", "type", "U", "="]).unwrap().unwrap(),
            ["C", "D"]
        );
    }
}
