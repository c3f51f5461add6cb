//! The router's answers for the skills extension (`io.modelcontextprotocol/skills`), at MCP
//! 2026-07-28 only, for a server with skills ([`ToolServer::with_skill`]):
//!
//! | request | answer |
//! |---|---|
//! | `skills/list` | `{"skills": [{uri, frontmatter, resources: [{uri, digest, size}]}]}`, every skill on one page, sorted by name; with a `cursor` `-32602` |
//! | `skills/get {uri}` | `{"skill": entry}` for the skill whose `SKILL.md` is at `uri`; none there `-32602` with `{"uri"}` (the 2026-07-28 "resource not found") |
//! | `resources/read {uri}` of a skill file | `{"contents": [one item]}`: `text` for a textual MIME type holding UTF-8 without NUL, else a base64 `blob`, with `mimeType`; bytes equal to the manifest's `size` and `digest` |
//! | `resources/read` of a `skill://` URI with a `.` or `..` segment (also percent-encoded) | `-32602` saying so: files are read by the URIs the manifest lists |
//! | `resources/read` of another URI | the server's own resources, or `-32602` not found when it has none |
//! | `resources/directory/read {uri}` of `skill://name` or a directory in it | `{"resources": [...]}`: each file (`mimeType`, `size`) and directory (`inode/directory`), sorted |
//! | `resources/list` | the server's resources, then each skill's `SKILL.md` |
//! | `resources/templates/list` | the server's templates (none for a server of skills alone) |
//!
//! Every one of these results carries its cache hint (`ttlMs`, `cacheScope`; see
//! [`CacheableMethod`](crate::jsonrpc::CacheableMethod)): the official TypeScript client refuses
//! a `skills/list` page without it.
//!
//! A server with skills declares `capabilities.extensions["io.modelcontextprotocol/skills"]:
//! {"directoryRead": true}` and `capabilities.resources` in `server/discover`. A request at
//! 2025-11-25 or earlier gets `-32601` for `skills/*` and `resources/directory/read`, as from a
//! server without skills; a server without skills answers them `-32601` at any revision.

use serde::Deserialize;

use crate::jsonrpc::{
    Answer, Call, CatalogAnswer, DirectoryEntry, ErrorObject, RawParams, SkillsAnswer,
};
use crate::resource::{ReadResourceResult, ResourceContents, ResourceDef};
use crate::skill::{DIRECTORY_MIME_TYPE, SKILL_URI_SCHEME, Skill, is_textual};
use crate::tool::ToolServer;

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

#[derive(Deserialize)]
struct ListParams {
    cursor: Option<serde_json::Value>,
}

/// The answer of a 2026-07-28 request that the skills extension serves, or `None` when it is
/// not one (the router answers it as any other).
pub(super) fn answer(server: &ToolServer, call: &Call) -> Option<Result<Answer, ErrorObject>> {
    if !server.has_skills() {
        return None;
    }
    let outcome = match call {
        Call::Other { method, params } => match method.as_str() {
            "skills/list" => list(server, params.as_ref()),
            "skills/get" => read_uri(method, params.as_ref()).and_then(|uri| get(server, &uri)),
            "resources/directory/read" => {
                read_uri(method, params.as_ref()).and_then(|uri| directory(server, &uri))
            }
            "resources/list" => no_cursor(params.as_ref(), method).map(|()| {
                let mut resources = server.list_resources();
                resources.extend(skill_resources(server));
                Answer::Catalog(CatalogAnswer::ResourcesList { resources })
            }),
            "resources/templates/list" if !server.has_resources() => {
                no_cursor(params.as_ref(), method).map(|()| {
                    Answer::Catalog(CatalogAnswer::ResourceTemplatesList {
                        resource_templates: Vec::new(),
                    })
                })
            }
            _ => return None,
        },
        Call::ResourcesRead(Err(error)) if !server.has_resources() => Err(error.clone()),
        Call::ResourcesRead(Ok(read)) if read.uri.starts_with(SKILL_URI_SCHEME) => {
            read_file(server, &read.uri)
        }
        Call::ResourcesRead(Ok(read)) if !server.has_resources() => Err(not_found(&read.uri)),
        _ => return None,
    };
    Some(outcome)
}

/// The `SKILL.md` of each skill, as `resources/list` lists it (after the server's own).
pub(super) fn skill_resources(server: &ToolServer) -> Vec<ResourceDef> {
    server
        .skills()
        .iter()
        .map(|skill| ResourceDef {
            uri: skill.uri().to_string(),
            name: skill.name().to_string(),
            title: None,
            description: Some(skill.description().to_string()),
            mime_type: Some("text/markdown".into()),
        })
        .collect()
}

fn list(server: &ToolServer, params: Option<&RawParams>) -> Result<Answer, ErrorObject> {
    no_cursor(params, "skills/list")?;
    Ok(Answer::Skills(SkillsAnswer::List(server.skills().to_vec())))
}

/// Refuses a `cursor`: every list is on one page and no cursor is ever issued.
fn no_cursor(params: Option<&RawParams>, method: &str) -> Result<(), ErrorObject> {
    let cursor = params
        .and_then(|params| params.parse::<ListParams>().ok())
        .and_then(|params| params.cursor)
        .filter(|cursor| !cursor.is_null());
    match cursor {
        Some(cursor) => Err(ErrorObject::invalid_params(format!(
            "invalid cursor {}: this server lists everything on one page of {method} and issued \
             no cursor",
            crate::jsonrpc::echo(&cursor.to_string())
        ))),
        None => Ok(()),
    }
}

fn read_uri(method: &str, params: Option<&RawParams>) -> Result<String, ErrorObject> {
    let parsed = params.map(RawParams::parse::<UriParams>);
    match parsed {
        Some(Ok(params)) => Ok(params.uri),
        Some(Err(error)) => Err(ErrorObject::invalid_params(format!(
            "invalid params of {method}: {error}"
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "{method} needs params with a string `uri`"
        ))),
    }
}

fn get(server: &ToolServer, uri: &str) -> Result<Answer, ErrorObject> {
    server
        .skills()
        .iter()
        .find(|skill| skill.uri() == uri)
        .map(|skill| Answer::Skills(SkillsAnswer::Get(skill.clone())))
        .ok_or_else(|| not_found(uri))
}

/// The skill whose directory holds `uri`, and the rest of `uri` after `skill://name`.
fn skill_of<'a>(server: &'a ToolServer, uri: &'a str) -> Option<(&'a Skill, &'a str)> {
    let rest = uri.strip_prefix(SKILL_URI_SCHEME)?;
    let (name, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    Some((server.skill(name)?, path))
}

/// Whether `uri` has a `.` or `..` segment, literally or percent-encoded.
fn has_dot_segment(uri: &str) -> bool {
    let path = uri.strip_prefix(SKILL_URI_SCHEME).unwrap_or(uri);
    path.split('/').any(|segment| {
        let decoded = segment.replace("%2e", ".").replace("%2E", ".");
        decoded == "." || decoded == ".."
    })
}

fn read_file(server: &ToolServer, uri: &str) -> Result<Answer, ErrorObject> {
    if has_dot_segment(uri) {
        return Err(ErrorObject::invalid_params(format!(
            "the URI `{}` has a `.` or `..` segment: a skill's files are read by the URIs its \
             skills/get manifest lists",
            crate::jsonrpc::echo(uri)
        )));
    }
    let file = skill_of(server, uri).and_then(|(skill, _)| skill.file(uri));
    let Some(file) = file else {
        return Err(not_found(uri));
    };
    let text = is_textual(file.mime_type())
        .then(|| std::str::from_utf8(file.bytes()).ok())
        .flatten()
        .filter(|text| !text.contains('\0'));
    let contents = match text {
        Some(text) => ResourceContents::text(uri, text, Some(file.mime_type())),
        None => ResourceContents::blob(uri, file.bytes(), Some(file.mime_type())),
    };
    Ok(Answer::Catalog(CatalogAnswer::Resource(
        ReadResourceResult {
            contents: vec![contents],
        },
    )))
}

fn directory(server: &ToolServer, uri: &str) -> Result<Answer, ErrorObject> {
    let not_a_directory = || {
        ErrorObject::invalid_params(format!(
            "`{}` is not a directory of a skill of this server",
            crate::jsonrpc::echo(uri)
        ))
    };
    if has_dot_segment(uri) {
        return Err(not_a_directory());
    }
    let Some((skill, path)) = skill_of(server, uri) else {
        return Err(not_a_directory());
    };
    // `path` is "" for the skill's root, else "/sub/dir" (as encoded in the files' URIs).
    let prefix = match path {
        "" => String::new(),
        path => format!("{}/", &path[1..]),
    };
    let root = skill.root_uri();
    let mut entries: Vec<DirectoryEntry> = Vec::new();
    for file in skill.files() {
        let encoded = &file.uri()[root.len() + 1..];
        let Some(rest) = encoded.strip_prefix(prefix.as_str()) else {
            continue;
        };
        let entry = match rest.split_once('/') {
            None => DirectoryEntry {
                uri: file.uri().to_string(),
                name: file
                    .path()
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                mime_type: file.mime_type().to_string(),
                size: Some(file.size()),
            },
            Some((dir, _)) => DirectoryEntry {
                uri: format!("{root}/{prefix}{dir}"),
                name: percent_decode(dir),
                mime_type: DIRECTORY_MIME_TYPE.to_string(),
                size: None,
            },
        };
        if entries.last().is_none_or(|last| last.uri != entry.uri) {
            entries.push(entry);
        }
    }
    if entries.is_empty() {
        return Err(not_a_directory());
    }
    entries.sort_by(|a, b| a.uri.cmp(&b.uri));
    entries.dedup_by(|a, b| a.uri == b.uri);
    Ok(Answer::Skills(SkillsAnswer::Directory(entries)))
}

/// `segment` with its `%XX` escapes decoded (the encoder wrote only those and unreserved
/// characters).
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%'
            && let Some(hex) = segment.get(index + 1..index + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn not_found(uri: &str) -> ErrorObject {
    // `-32002` here; the 2026-07-28 answer rewrites it to `-32602`, as for any resource.
    ErrorObject::new(super::RESOURCE_NOT_FOUND, "Resource not found")
        .with_data(serde_json::json!({ "uri": uri }))
}
