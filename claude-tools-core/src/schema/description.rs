//! Doc comments → the prose the model reads (the rule is documented on [`doc_description`]).

/// The part of a doc comment the model needs, as sent in tool, parameter, field and variant
/// descriptions.
///
/// A doc comment is written for rustdoc readers; the model needs what the item does and how to
/// use it. The rule:
///
/// - **Sections**: everything from the first Markdown heading (`# Examples`, `# Errors`,
///   `## Panics`…) to the end is left out: by rustdoc convention the summary and its paragraphs
///   come first and the reference sections after.
/// - **Code blocks** in the kept prose: Rust code blocks (no language, `rust`, or only rustdoc's
///   doctest attributes such as `no_run`, `ignore`, `should_panic`, `compile_fail`) are left out,
///   since they are tests of the Rust API rather than something the model can call; blocks in
///   another language (`json`, `text`, `sh`…) are kept as written, since they were written for a
///   reader (an example of the arguments, say).
/// - **Links** become their text: ``[`Store`]`` → `` `Store` ``, ``[`Foo::bar`]`` →
///   `` `Foo::bar` ``, `[the store](crate::Store)` → `the store`, `[text][ref]` → `text`, and
///   link reference definitions (`[ref]: path`) are dropped. A bracket that is not a link
///   (`[1, 2]`, `list[i]`) is kept.
/// - Blank lines left by what was removed are collapsed, and the text is trimmed.
///
/// `#[tool]` applies it to the tool's doc comment (unless `full_doc` is given, or the
/// description is set with `description = "..."`, which is sent as written); the schemas apply it
/// to parameter docs and to every description schemars takes from a doc comment (struct fields,
/// enum variants, nested types).
///
/// ```
/// use claude_tools::schema::doc_description;
///
/// let doc = [
///     "Looks up a ticket in the [`Store`] by id.",
///     "",
///     "See [the guide](crate::guide) for ids.",
///     "",
///     "```",
///     "let ticket = lookup(1);",
///     "```",
///     "",
///     "\x23 Errors", // `# Errors`
///     "",
///     "When the store is down.",
/// ]
/// .join("\n");
/// assert_eq!(
///     doc_description(&doc),
///     "Looks up a ticket in the `Store` by id.\n\nSee the guide for ids."
/// );
/// ```
pub fn doc_description(doc: &str) -> String {
    let mut kept: Vec<String> = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(fence) = Fence::open(line) {
            let mut block = vec![line.to_string()];
            for inner in lines.by_ref() {
                block.push(inner.to_string());
                if fence.closes(inner) {
                    break;
                }
            }
            if !fence.is_rust {
                kept.extend(block);
            }
            continue;
        }
        if is_heading(line) {
            break;
        }
        if is_link_definition(line) {
            continue;
        }
        kept.push(links_as_text(line));
    }
    collapse_blank_lines(&kept)
}

/// An opening code fence: ```` ``` ```` or `~~~` (three or more), indented at most three spaces.
struct Fence {
    marker: char,
    len: usize,
    is_rust: bool,
}

impl Fence {
    fn open(line: &str) -> Option<Fence> {
        let trimmed = strip_indent(line)?;
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let len = trimmed.chars().take_while(|c| *c == marker).count();
        if len < 3 {
            return None;
        }
        let info = trimmed[len..].trim();
        if marker == '`' && info.contains('`') {
            return None;
        }
        Some(Fence {
            marker,
            len,
            is_rust: is_rust_info(info),
        })
    }

    fn closes(&self, line: &str) -> bool {
        strip_indent(line).is_some_and(|trimmed| {
            let len = trimmed.chars().take_while(|c| *c == self.marker).count();
            len >= self.len && trimmed[len * self.marker.len_utf8()..].trim().is_empty()
        })
    }
}

/// Whether a fence's info string makes it a Rust block for rustdoc: no language, `rust`, or only
/// doctest attributes.
fn is_rust_info(info: &str) -> bool {
    info.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|word| !word.is_empty())
        .all(|word| {
            matches!(
                word,
                "rust"
                    | "ignore"
                    | "no_run"
                    | "should_panic"
                    | "compile_fail"
                    | "test_harness"
                    | "standalone_crate"
            ) || word.starts_with("edition")
                || word.starts_with("ignore-")
                || (word.starts_with('E') && word[1..].chars().all(|c| c.is_ascii_digit()))
        })
}

/// The line without up to three spaces of indentation (`None` when indented more: a Markdown
/// indented code block or a continuation, never a fence or a heading).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

/// An ATX heading: one to six `#` followed by a space or the end of the line.
fn is_heading(line: &str) -> bool {
    strip_indent(line).is_some_and(|trimmed| {
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        (1..=6).contains(&hashes)
            && trimmed[hashes..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
    })
}

/// `[label]: destination`.
fn is_link_definition(line: &str) -> bool {
    let Some(rest) = strip_indent(line).and_then(|t| t.strip_prefix('[')) else {
        return false;
    };
    match rest.find("]:") {
        Some(end) => end > 0 && !rest[..end].contains(['[', ']']),
        None => false,
    }
}

/// Rewrites the links of one line of prose as their text, leaving code spans alone.
fn links_as_text(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                out.push(chars[i]);
                out.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                let end = code_span_end(&chars, i);
                out.extend(&chars[i..end]);
                i = end;
            }
            '[' => match link_at(&chars, i) {
                Some((text, end)) => {
                    out.push_str(&text);
                    i = end;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            },
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The end (exclusive) of the code span opened by the backticks at `start`, or the end of that
/// run of backticks when nothing closes it.
fn code_span_end(chars: &[char], start: usize) -> usize {
    let run = chars[start..].iter().take_while(|c| **c == '`').count();
    let mut i = start + run;
    while i < chars.len() {
        if chars[i] == '`' {
            let close = chars[i..].iter().take_while(|c| **c == '`').count();
            if close == run {
                return i + close;
            }
            i += close;
        } else {
            i += 1;
        }
    }
    start + run
}

/// A link starting at the `[` at `start`: its text and where it ends.
fn link_at(chars: &[char], start: usize) -> Option<(String, usize)> {
    let close = closing_bracket(chars, start)?;
    let label: String = chars[start + 1..close].iter().collect();
    if label.is_empty() {
        return None;
    }
    match chars.get(close + 1) {
        // `[text](destination)`
        Some('(') => {
            let end = chars[close + 1..].iter().position(|c| *c == ')')? + close + 1;
            Some((label, end + 1))
        }
        // `[text][ref]` or `[text][]`
        Some('[') => {
            let end = closing_bracket(chars, close + 1)?;
            Some((label, end + 1))
        }
        // `[path]` or ``[`path`]``: an intra-doc link.
        _ => {
            let glued =
                start > 0 && (chars[start - 1].is_alphanumeric() || chars[start - 1] == '_');
            if glued {
                return None;
            }
            let text = intra_doc_text(&label)?;
            Some((text, close + 1))
        }
    }
}

/// The index of the `]` closing the `[` at `open` (no nesting, code spans skipped).
fn closing_bracket(chars: &[char], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '`' => i = code_span_end(chars, i),
            '[' => return None,
            ']' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The text rustdoc shows for a shortcut link `[label]`, if `label` is a path (optionally in
/// backticks, with a disambiguator such as `struct@` or a trailing `()` / `!`).
fn intra_doc_text(label: &str) -> Option<String> {
    let (inner, ticks) = match label.strip_prefix('`').and_then(|l| l.strip_suffix('`')) {
        Some(inner) => (inner, true),
        None => (label, false),
    };
    let path = match inner.split_once('@') {
        Some((kind, path)) if kind.chars().all(|c| c.is_ascii_lowercase()) => path,
        _ => inner,
    };
    let bare = path
        .strip_suffix("()")
        .or_else(|| path.strip_suffix('!'))
        .unwrap_or(path);
    let is_path = !bare.is_empty()
        && bare.split("::").all(|segment| {
            let mut chars = segment.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        });
    match (ticks, is_path) {
        (true, true) => Some(format!("`{path}`")),
        // Code in backticks that is not a plain path (``[`Vec<u8>`]``): still a link.
        (true, false) => Some(format!("`{inner}`")),
        (false, true) => Some(path.to_string()),
        (false, false) => None,
    }
}

/// Joins lines, with runs of blank lines made one and no blank line at either end.
fn collapse_blank_lines(lines: &[String]) -> String {
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() && out.last().is_none_or(|last| last.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|last| last.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::doc_description;

    #[test]
    fn links_become_their_text() {
        let cases = [
            ("Reads the [`Store`].", "Reads the `Store`."),
            ("See [`Foo::bar`] and [Baz].", "See `Foo::bar` and Baz."),
            ("Calls [`run()`] or [`vec!`].", "Calls `run()` or `vec!`."),
            ("A [`struct@Store`].", "A `Store`."),
            ("Read [the guide](crate::guide).", "Read the guide."),
            ("Read [the guide][guide].", "Read the guide."),
            ("Read [the guide][].", "Read the guide."),
            ("Takes [`Vec<u8>`].", "Takes `Vec<u8>`."),
            (
                "Not links: [1, 2], list[i], `[Store]`.",
                "Not links: [1, 2], list[i], `[Store]`.",
            ),
            ("An escaped \\[Store].", "An escaped \\[Store]."),
            ("An unclosed [bracket", "An unclosed [bracket"),
        ];
        for (doc, expected) in cases {
            assert_eq!(doc_description(doc), expected, "{doc}");
        }
    }

    #[test]
    fn sections_from_the_first_heading_are_left_out() {
        assert_eq!(
            doc_description("Adds.\n\nTwo numbers.\n\n# Examples\n\nadd(1, 2)\n\n# Errors\nnever"),
            "Adds.\n\nTwo numbers."
        );
        assert_eq!(doc_description("Adds.\n## Panics\nnever"), "Adds.");
        assert_eq!(doc_description("# Examples\nonly"), "");
        // Not headings: no space after the hashes, indented four spaces, or inside a code block.
        assert_eq!(
            doc_description("Tag #1 and #hash.\n#not a heading"),
            "Tag #1 and #hash.\n#not a heading"
        );
        assert_eq!(
            doc_description("Adds.\n\n```json\n# {\"a\": 1}\n```\n\nMore."),
            "Adds.\n\n```json\n# {\"a\": 1}\n```\n\nMore."
        );
    }

    #[test]
    fn rust_code_blocks_go_and_others_stay() {
        let doc = "Adds.\n\n```\n# use x;\nlet y = add(1, 2);\n```\n\n\
                   Arguments:\n\n```json\n{\"a\": 1, \"b\": [2]}\n```\n\n\
                   ```rust,no_run\nmain();\n```\n\n~~~text\nplain [`Store`]\n~~~\nEnd.";
        assert_eq!(
            doc_description(doc),
            "Adds.\n\nArguments:\n\n```json\n{\"a\": 1, \"b\": [2]}\n```\n\n~~~text\nplain [`Store`]\n~~~\nEnd."
        );
        // An unclosed Rust block runs to the end.
        assert_eq!(doc_description("Adds.\n```should_panic\nboom"), "Adds.");
    }

    #[test]
    fn link_definitions_are_dropped() {
        assert_eq!(
            doc_description("Uses the [store].\n\n[store]: crate::Store\n"),
            "Uses the store."
        );
    }
}
