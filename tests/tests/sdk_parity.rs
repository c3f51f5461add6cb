//! The drift check of issue 30: `parity/typescript.md` has one row per item of the pinned
//! TypeScript Agent SDK (`Options` fields, `Query` methods, `SDKMessage` variants and system
//! subtypes, hook events, `AgentDefinition` fields, the root's value exports, the built-in tools'
//! input and output types, and the exports of the other entry points `./core`, `./extract`,
//! `./browser` and `./bridge`), and this test fails, naming the item, when
//!
//! - the SDK's `.d.ts` files (read from `bench/node_modules`, which `bench/install-sdks.sh`
//!   installs at the pinned version; the SDK's licence does not allow vendoring them) have an item
//!   the table lacks, or the table has a row for an item the SDK no longer has;
//! - a `./core` row (a re-export of the root) says something else than the root's row;
//! - a ✓ row of any table of `parity/` (also `python.md`, the Python SDK's own items, and
//!   `audit-77d8130.md`, the audit's missing and partial rows as they are today) names a Rust
//!   path that does not exist: every ✓ path is `use`d by the generated
//!   `sdk_parity/paths.rs` (compiled with this test, so the compiler checks types, functions,
//!   constants, modules and enum variants); a method or field (`Type::member`) is checked by
//!   `use`ing its type and finding `pub fn member` / `pub member:` next to an `impl`/`struct` of
//!   that type in the workspace's sources;
//! - `paths.rs` is not the one the tables generate (regenerate: `SDK_PARITY_BLESS=1 cargo test -p
//!   claude-tools-tests --test sdk_parity`), or the counts in a table's header are wrong.
//!
//! Moving the pin (`TS_SDK_VERSION` in `bench/install-sdks.sh`) to a newer SDK lists the new
//! work at once.

#[path = "sdk_parity/dts.rs"]
mod dts;
#[allow(unused_imports)]
#[path = "sdk_parity/paths.rs"]
mod paths;
#[path = "sdk_parity/table.rs"]
mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use dts::Dts;
use table::{Status, Table};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("reading {}: {err}", path.display()))
}

fn table() -> Table {
    parse_table(table::TABLE)
}

fn parse_table(name: &str) -> Table {
    let path = root().join(name);
    Table::parse(&read(&path)).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn all_tables() -> Vec<(&'static str, Table)> {
    table::TABLES
        .iter()
        .map(|name| (*name, parse_table(name)))
        .collect()
}

/// The pinned version, as `bench/install-sdks.sh` installs it.
fn pinned_version() -> String {
    let script = read(&root().join("bench/install-sdks.sh"));
    script
        .lines()
        .find_map(|line| line.strip_prefix("TS_SDK_VERSION=\""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("bench/install-sdks.sh has no TS_SDK_VERSION=\"…\" line"))
}

/// Every item of the SDK the table follows, by section, in the SDK's order.
fn sdk_items(
    sdk: &Dts,
    tools: &Dts,
    entries: &BTreeMap<&'static str, Dts>,
) -> Result<BTreeMap<&'static str, Vec<String>>, String> {
    let mut items = BTreeMap::new();
    items.insert("options", sdk.type_members("Options")?);
    items.insert("query", sdk.interface_members("Query")?);
    let mut messages = Vec::new();
    let variants = sdk
        .union(&["export", "declare", "type", "SDKMessage", "="])?
        .ok_or("SDKMessage is not a union of type names")?;
    for variant in variants {
        // A variant that is itself a union of names (SDKResultMessage) counts as its members.
        let head = ["export", "declare", "type", variant.as_str(), "="];
        let leaves = sdk.union(&head)?.unwrap_or_else(|| vec![variant.clone()]);
        for leaf in leaves {
            let kind = sdk.literal_property(&leaf, "type")?;
            let subtype = sdk.literal_property(&leaf, "subtype")?;
            messages.push(match (kind.as_deref(), subtype) {
                (Some("system"), Some(subtype)) => format!("{leaf}/{subtype}"),
                _ => leaf,
            });
        }
    }
    items.insert("messages", messages);
    items.insert("hooks", sdk.string_tuple("HOOK_EVENTS")?);
    items.insert("agent", sdk.type_members("AgentDefinition")?);
    items.insert("exports", sdk.value_exports());
    let mut tool_types = Vec::new();
    for union in ["ToolInputSchemas", "ToolOutputSchemas"] {
        let members = tools
            .union(&["export", "type", union, "="])?
            .ok_or_else(|| format!("{union} is not a union of type names"))?;
        for member in members {
            // ToolInputSchemas lists ToolOutputSchemas, a union of names itself: count its
            // members (an interface has no `type … =` declaration, hence `ok()`).
            match tools
                .union(&["export", "type", member.as_str(), "="])
                .ok()
                .flatten()
            {
                Some(inner) => tool_types.extend(inner),
                None => tool_types.push(member),
            }
        }
    }
    items.insert("tools", tool_types);
    for (section, dts) in entries {
        items.insert(section, dts.entry_exports());
    }
    Ok(items)
}

/// The entry points other than the root and `./sdk-tools` (section `tools`): their section and
/// their `.d.ts` (the package's `exports` map names them).
const ENTRY_POINTS: [(&str, &str); 4] = [
    ("core", "core.d.ts"),
    ("extract", "extractFromBunfs.d.ts"),
    ("browser", "browser-sdk.d.ts"),
    ("bridge", "bridge.d.ts"),
];

fn skip_or_fail(missing: &str) {
    let hint = "run bench/install-sdks.sh (scripts/test does)";
    if std::env::var_os("CI").is_some() {
        panic!("sdk_parity: {missing} and CI is set; {hint}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "\n!!! SKIPPED sdk_parity (the SDK's items): {missing} ({hint})\n"
    );
}

#[test]
fn the_table_has_a_row_for_every_item_of_the_pinned_sdk_and_no_other() {
    let table = table();
    let version = pinned_version();
    assert_eq!(
        table.version,
        version,
        "{} is for SDK {} but bench/install-sdks.sh pins {version}",
        table::TABLE,
        table.version
    );
    let dir = root().join("bench/node_modules/@anthropic-ai/claude-agent-sdk");
    let package = dir.join("package.json");
    let Ok(package) = std::fs::read_to_string(&package) else {
        return skip_or_fail(&format!("{} is missing", package.display()));
    };
    let installed = serde_json::from_str::<serde_json::Value>(&package)
        .ok()
        .and_then(|json| json.get("version")?.as_str().map(str::to_owned));
    if installed.as_deref() != Some(version.as_str()) {
        return skip_or_fail(&format!(
            "bench/node_modules has SDK {installed:?}, not the pinned {version}"
        ));
    }
    let sdk =
        Dts::parse(&read(&dir.join("sdk.d.ts"))).unwrap_or_else(|err| panic!("sdk.d.ts: {err}"));
    let tools = Dts::parse(&read(&dir.join("sdk-tools.d.ts")))
        .unwrap_or_else(|err| panic!("sdk-tools.d.ts: {err}"));
    let entries: BTreeMap<&'static str, Dts> = ENTRY_POINTS
        .iter()
        .map(|(section, file)| {
            let dts =
                Dts::parse(&read(&dir.join(file))).unwrap_or_else(|err| panic!("{file}: {err}"));
            (*section, dts)
        })
        .collect();
    let items =
        sdk_items(&sdk, &tools, &entries).unwrap_or_else(|err| panic!("reading the SDK: {err}"));

    let mut problems = Vec::new();
    for (section, names) in &items {
        let rows: BTreeSet<&str> = table.items(section).collect();
        let mut seen = BTreeSet::new();
        for name in names {
            if !seen.insert(name.as_str()) {
                continue;
            }
            if !rows.contains(name.as_str()) {
                problems.push(format!(
                    "the SDK has {section} item `{name}`, the table has no row for it"
                ));
            }
        }
        for row in rows.difference(&seen) {
            problems.push(format!(
                "the table has {section} row `{row}`, the pinned SDK has no such item"
            ));
        }
    }
    for section in table.sections() {
        if !items.contains_key(section) {
            problems.push(format!(
                "the table has a section `{section}` the check does not know"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} is out of date:\n  {}",
        table::TABLE,
        problems.join("\n  ")
    );
}

#[test]
fn the_header_counts_the_rows() {
    for (name, table) in all_tables() {
        let counted = table.count();
        assert_eq!(
            table.header_counts,
            counted,
            "the counts in {name}'s header are not those of its rows; write {}",
            table::counts_line(counted)
        );
    }
}

#[test]
fn a_core_row_says_what_the_root_row_of_the_same_export_says() {
    // `./core` re-exports names of the root: its rows follow the root's (`exports`), so that a
    // change of one (say `prewarm` becoming ✓) is made to both.
    let table = table();
    let mut differ = Vec::new();
    for row in table.rows.iter().filter(|row| row.section == "core") {
        match table.row("exports", &row.item) {
            Some(root) if root.status == row.status && root.path == row.path => {}
            Some(_) => differ.push(format!("`{}` differs from its root row", row.item)),
            None => differ.push(format!("`{}` has no root row", row.item)),
        }
    }
    assert!(differ.is_empty(), "{}: {}", table::TABLE, differ.join(", "));
}

#[test]
fn the_python_table_is_for_the_python_sdk_the_audit_read() {
    assert_eq!(parse_table(table::PYTHON_TABLE).version, "0.2.189");
}

#[test]
fn the_generated_paths_file_uses_every_path_of_the_table() {
    let path = root().join("tests/tests/sdk_parity/paths.rs");
    let tables: Vec<Table> = all_tables().into_iter().map(|(_, table)| table).collect();
    let wanted = table::paths_file(&tables);
    if std::env::var_os("SDK_PARITY_BLESS").is_some() {
        std::fs::write(&path, &wanted).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        return;
    }
    assert!(
        read(&path) == wanted,
        "{} is not the one the tables of parity/ generate; run SDK_PARITY_BLESS=1 cargo test -p \
         claude-tools-tests --test sdk_parity (the compiler then checks the new paths)",
        path.display()
    );
}

#[test]
fn every_method_or_field_path_names_a_public_member_of_its_type() {
    let sources = table::workspace_sources(&root());
    for (name, table) in all_tables() {
        let missing: Vec<String> = table
            .rows
            .iter()
            .filter(|row| row.status == Status::Done)
            .filter_map(|row| table::member_path(row.path.as_deref()?))
            .filter(|(owner, member)| !table::member_exists(&sources, owner, member))
            .map(|(owner, member)| format!("`{owner}::{member}`"))
            .collect();
        assert!(
            missing.is_empty(),
            "{name} names members no `impl`/`struct` of their type in the workspace defines as \
             public: {}",
            missing.join(", ")
        );
    }
}
