//! `include_skill!("skills/deploy")`: a skill directory embedded in the binary at compile time.
//!
//! The directory is walked when the macro expands (relative to the `Cargo.toml` of the crate
//! being compiled); each file becomes an `include_bytes!` of its absolute path, so cargo
//! rebuilds when one changes. What the walk can see is a compile error pointing at the path:
//! no such directory, no `SKILL.md`, a symbolic link leading out of the directory (or to a
//! directory), a file name that is not UTF-8, more files or bytes than a skill may have. The
//! front matter is checked when the server adds the skill (`ToolServer::with_skill`), by the
//! same code as a skill read from disk.

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::LitStr;

/// The caps of `claude_tools::skills` (`MAX_SKILL_FILES`, `MAX_SKILL_BYTES`), checked here so
/// that an oversized directory is never embedded.
const MAX_FILES: usize = 512;
const MAX_BYTES: u64 = 16 * 1024 * 1024;

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let literal: LitStr = match syn::parse2(input) {
        Ok(literal) => literal,
        Err(_) => {
            return syn::Error::new(
                Span::call_site(),
                "include_skill! takes the skill directory's path as a string literal, relative to \
                 the crate's Cargo.toml: include_skill!(\"skills/deploy\")",
            )
            .to_compile_error();
        }
    };
    match walk(&literal.value()) {
        Ok(files) => {
            let written = literal.value();
            let entries = files.iter().map(|(relative, absolute)| {
                let absolute = absolute.to_string_lossy();
                quote! { (#relative, include_bytes!(#absolute) as &[u8]) }
            });
            quote! {
                {
                    const FILES: &[(&str, &[u8])] = &[#(#entries),*];
                    ::claude_tools::skills::EmbeddedSkill::new(#written, FILES)
                }
            }
        }
        Err(message) => syn::Error::new(literal.span(), message).to_compile_error(),
    }
}

/// Every file to embed: its `/`-separated path in the skill and its absolute path.
fn walk(written: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|_| "CARGO_MANIFEST_DIR is not set: build with cargo".to_string())?;
    let dir = Path::new(&manifest).join(written);
    let root = dir.canonicalize().map_err(|error| {
        format!(
            "cannot read the skill directory `{}` ({error}); the path is relative to {manifest}/Cargo.toml",
            dir.display()
        )
    })?;
    if !root.join("SKILL.md").is_file() {
        return Err(format!(
            "`{written}` has no SKILL.md: a skill is a directory with a SKILL.md at its top"
        ));
    }
    let mut walk = Walk {
        root: &root,
        files: Vec::new(),
        total: 0,
    };
    walk.visit(&root, "", 0)?;
    Ok(walk.files)
}

struct Walk<'a> {
    root: &'a Path,
    files: Vec<(String, PathBuf)>,
    total: u64,
}

impl Walk<'_> {
    fn visit(&mut self, dir: &Path, prefix: &str, depth: usize) -> Result<(), String> {
        if depth > 32 {
            return Err(format!(
                "`{prefix}` is nested more than 32 directories deep"
            ));
        }
        let read = |error: std::io::Error| format!("cannot read `{}`: {error}", dir.display());
        let mut entries = std::fs::read_dir(dir)
            .map_err(read)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(read)?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(format!(
                    "the file name `{prefix}{}` is not UTF-8",
                    name.to_string_lossy()
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            let relative = format!("{prefix}{name}");
            let path = entry.path();
            let link = std::fs::symlink_metadata(&path)
                .map_err(|error| format!("cannot read `{relative}`: {error}"))?
                .file_type()
                .is_symlink();
            let target = path
                .canonicalize()
                .map_err(|_| format!("`{relative}` is a symbolic link that leads nowhere"))?;
            if link && !target.starts_with(self.root) {
                return Err(format!(
                    "`{relative}` is a symbolic link that leads out of the skill's directory"
                ));
            }
            let meta = std::fs::metadata(&target)
                .map_err(|error| format!("cannot read `{relative}`: {error}"))?;
            if meta.is_dir() {
                if link {
                    return Err(format!(
                        "`{relative}` is a symbolic link to a directory (link its files, or copy it)"
                    ));
                }
                self.visit(&path, &format!("{relative}/"), depth + 1)?;
            } else if meta.is_file() {
                self.total += meta.len();
                if self.files.len() >= MAX_FILES {
                    return Err(format!("the skill has more than {MAX_FILES} files"));
                }
                if meta.len() > MAX_BYTES {
                    return Err(format!(
                        "`{relative}` is {} bytes, past the cap of {MAX_BYTES} bytes of a skill",
                        meta.len()
                    ));
                }
                if self.total > MAX_BYTES {
                    return Err(format!(
                        "the skill's files are more than {MAX_BYTES} bytes together"
                    ));
                }
                self.files.push((relative, target));
            } else {
                return Err(format!("`{relative}` is neither a file nor a directory"));
            }
        }
        Ok(())
    }
}
