//! The parity tables (`parity/typescript.md`, `parity/python.md`, `parity/audit-77d8130.md`):
//! their header (the SDK's version, the counts), their sections and rows, and what the check
//! derives from them.

use std::path::Path;

/// The TypeScript table, relative to the workspace root: the one the drift check holds to the
/// pinned SDK's `.d.ts` files.
pub const TABLE: &str = "parity/typescript.md";

/// The Python SDK's own items (what it has that the TypeScript SDK does not).
pub const PYTHON_TABLE: &str = "parity/python.md";

/// The audit of revision 77d8130 (`shared/reference/sdk-parity.md`): its missing and partial
/// rows, each with what it is today.
pub const AUDIT_TABLE: &str = "parity/audit-77d8130.md";

/// Every table whose counts and ✓ paths are checked.
pub const TABLES: [&str; 3] = [TABLE, PYTHON_TABLE, AUDIT_TABLE];

/// What a row says about its item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `✓`: claude-tools has it, at the Rust path the row names.
    Done,
    /// `n/a`: it does not apply to a Rust host, for the reason the row gives.
    NotApplicable,
    /// `missing`: not there yet; the row says what is missing.
    Missing,
}

/// One row.
#[derive(Debug, Clone)]
pub struct Row {
    /// The section's key (`options`, `query`, …).
    pub section: String,
    /// The SDK's name of the item.
    pub item: String,
    /// Its status.
    pub status: Status,
    /// For a ✓ row, the Rust path (the first `code span` of the third column).
    pub path: Option<String>,
}

/// Counts of rows by status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub done: usize,
    pub not_applicable: usize,
    pub missing: usize,
}

/// The header line that holds `counts`.
pub fn counts_line(counts: Counts) -> String {
    format!(
        "Counts: ✓ {} · n/a {} · missing {} · rows {}",
        counts.done,
        counts.not_applicable,
        counts.missing,
        counts.done + counts.not_applicable + counts.missing
    )
}

/// The parsed table.
pub struct Table {
    /// The SDK version it is for: the last word of its `SDK: PACKAGE VERSION` line.
    pub version: String,
    /// The counts its header states.
    pub header_counts: Counts,
    /// The rows, in order.
    pub rows: Vec<Row>,
}

fn code_span(text: &str) -> Option<&str> {
    let start = text.find('`')? + 1;
    let len = text[start..].find('`')?;
    Some(&text[start..start + len])
}

impl Table {
    /// Parses the Markdown: a section starts at a heading with `<!-- section: KEY -->`; a row is
    /// `| `item` | ✓ or n/a or missing | path, reason or note |`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut version = None;
        let mut header_counts = None;
        let mut section: Option<String> = None;
        let mut rows = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let at = |what: String| format!("line {}: {what}", index + 1);
            if let Some(rest) = line.strip_prefix("SDK: ") {
                version = rest.split_whitespace().last().map(str::to_owned);
            } else if line.starts_with("Counts: ") {
                let numbers: Vec<usize> = line
                    .split_whitespace()
                    .filter_map(|word| word.parse().ok())
                    .collect();
                let [done, not_applicable, missing, _rows] = numbers[..] else {
                    return Err(at(format!(
                        "write the counts as `{}`",
                        counts_line(Counts::default())
                    )));
                };
                header_counts = Some(Counts {
                    done,
                    not_applicable,
                    missing,
                });
            } else if line.starts_with('#') {
                section = line
                    .split_once("<!-- section: ")
                    .and_then(|(_, rest)| rest.split_once(" -->"))
                    .map(|(key, _)| key.to_owned());
            } else if line.starts_with("| `") {
                let Some(section) = &section else {
                    return Err(at("a row outside any section".into()));
                };
                let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
                let [item, status, note] = cells[..] else {
                    return Err(at(format!("a row needs 3 cells, has {}", cells.len())));
                };
                let item = code_span(item).ok_or_else(|| at("the item is not `code`".into()))?;
                let status = match status {
                    "✓" => Status::Done,
                    "n/a" => Status::NotApplicable,
                    "missing" => Status::Missing,
                    other => {
                        return Err(at(format!(
                            "`{item}`: status `{other}` is not ✓, n/a or missing"
                        )));
                    }
                };
                let path = match status {
                    Status::Done => {
                        let path = code_span(note)
                            .filter(|path| path.starts_with("claude_tools::"))
                            .ok_or_else(|| {
                                at(format!("`{item}` is ✓ but names no `claude_tools::…` path"))
                            })?;
                        Some(path.to_owned())
                    }
                    _ if note.trim().is_empty() => {
                        return Err(at(format!("`{item}` needs a reason or a note")));
                    }
                    _ => None,
                };
                rows.push(Row {
                    section: section.clone(),
                    item: item.to_owned(),
                    status,
                    path,
                });
            }
        }
        Ok(Self {
            version: version.ok_or("no `SDK: PACKAGE VERSION` line")?,
            header_counts: header_counts.ok_or("no `Counts: …` line")?,
            rows,
        })
    }

    /// The items of one section.
    pub fn items<'a>(&'a self, section: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.rows
            .iter()
            .filter(move |row| row.section == section)
            .map(|row| row.item.as_str())
    }

    /// The sections that have rows.
    pub fn sections(&self) -> std::collections::BTreeSet<&str> {
        self.rows.iter().map(|row| row.section.as_str()).collect()
    }

    /// The rows counted by status.
    pub fn count(&self) -> Counts {
        let mut counts = Counts::default();
        for row in &self.rows {
            match row.status {
                Status::Done => counts.done += 1,
                Status::NotApplicable => counts.not_applicable += 1,
                Status::Missing => counts.missing += 1,
            }
        }
        counts
    }

    /// The row of `item` in `section`.
    pub fn row(&self, section: &str, item: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|row| row.section == section && row.item == item)
    }
}

/// `sdk_parity/paths.rs`: a `use` of every ✓ path of the tables (of the type, for a member
/// path), so that the compiler checks them.
pub fn paths_file(tables: &[Table]) -> String {
    let uses: std::collections::BTreeSet<String> = tables
        .iter()
        .flat_map(|table| &table.rows)
        .filter_map(|row| row.path.as_deref())
        .map(|path| match member_path(path) {
            Some((owner, _)) => owner.to_owned(),
            None => path.to_owned(),
        })
        .collect();
    let mut file = String::from(
        "// Generated from the tables of parity/ by tests/tests/sdk_parity.rs (SDK_PARITY_BLESS=1):\n\
         // every Rust path of a ✓ row, so that the compiler checks it exists. Do not edit.\n\n",
    );
    for path in uses {
        file.push_str(&format!("use {path} as _;\n"));
    }
    file
}

/// `(owner, member)` when `path` names a method or field (`…::Type::member`).
pub fn member_path(path: &str) -> Option<(&str, &str)> {
    let (owner, member) = path.rsplit_once("::")?;
    let type_name = owner.rsplit("::").next()?;
    let starts_upper = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
    let is_member = starts_upper(type_name)
        && member
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_');
    is_member.then_some((owner, member))
}

/// The text of every `.rs` file under the workspace crates' `src/` folders.
pub fn workspace_sources(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "rs")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                out.push(text);
            }
        }
    }
    let mut sources = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with("claude-tools") {
                walk(&entry.path().join("src"), &mut sources);
            }
        }
    }
    sources
}

/// Whether some source file has an `impl` (or `struct`) of the owner's type and a public
/// method (or field) `member`.
pub fn member_exists(sources: &[String], owner: &str, member: &str) -> bool {
    let type_name = owner.rsplit("::").next().unwrap_or(owner);
    let names_type = |line: &str| {
        line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == type_name)
    };
    let method_prefixes = [
        "pub fn ",
        "pub async fn ",
        "pub const fn ",
        "pub unsafe fn ",
    ];
    sources.iter().any(|text| {
        let has_owner = text.lines().any(|line| {
            let line = line.trim_start();
            (line.starts_with("impl") || line.starts_with("pub struct ")) && names_type(line)
        });
        has_owner
            && text.lines().any(|line| {
                let line = line.trim_start();
                let method = method_prefixes.iter().any(|prefix| {
                    line.strip_prefix(prefix)
                        .and_then(|rest| rest.strip_prefix(member))
                        .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('<'))
                });
                let field = line
                    .strip_prefix("pub ")
                    .and_then(|rest| rest.strip_prefix(member))
                    .is_some_and(|rest| rest.starts_with(':'));
                method || field
            })
    })
}
