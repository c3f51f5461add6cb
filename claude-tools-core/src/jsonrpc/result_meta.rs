//! What an MCP 2026-07-28 result carries beside its own fields: `resultType`, the cache hints
//! (`ttlMs`, `cacheScope`) and `_meta["io.modelcontextprotocol/serverInfo"]`. A 2025-11-25
//! result carries none of them; the router decides which a response gets, and
//! [`Response::write_to`](super::Response::write_to) writes them into the result object.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::Implementation;

/// What kind of result a 2026-07-28 result is (`resultType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultType {
    /// `"complete"`: the request's final result.
    Complete,
    /// `"input_required"`: the server needs answers from the client before it can go on; the
    /// client retries the request with them.
    InputRequired,
    /// `"task"`: the request goes on as a task of the tasks extension ([`crate::task`]); the
    /// client polls it with `tasks/get`.
    Task,
}

impl ResultType {
    /// The value on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }
}

/// Who may keep a cached result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any cache may keep it and give it to any caller: the result is the same for everyone.
    Public,
    /// Only the caller's own cache may keep it: the result may depend on who asks (the
    /// default).
    #[default]
    Private,
}

/// How long, and for whom, a client may reuse a result (`ttlMs` and `cacheScope`).
///
/// ```
/// use std::time::Duration;
/// use claude_tools::mcp::{CacheHint, CacheScope};
///
/// let hint = CacheHint::public(Duration::from_secs(60));
/// assert_eq!((hint.ttl_ms, hint.scope), (60_000, CacheScope::Public));
/// assert_eq!(CacheHint::default(), CacheHint::private(Duration::ZERO));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheHint {
    /// For how many milliseconds the result may be reused (0: fetch it again next time).
    pub ttl_ms: u64,
    /// Who may keep it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A result anyone's cache may keep for `ttl`.
    pub fn public(ttl: Duration) -> Self {
        Self {
            ttl_ms: duration_ms(ttl),
            scope: CacheScope::Public,
        }
    }

    /// A result only the caller's cache may keep, for `ttl`.
    pub fn private(ttl: Duration) -> Self {
        Self {
            ttl_ms: duration_ms(ttl),
            scope: CacheScope::Private,
        }
    }
}

/// The results MCP 2026-07-28 lets a client cache, each with a [`CacheHint`] of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheableMethod {
    /// `server/discover`.
    Discover,
    /// `tools/list`.
    ToolsList,
    /// `prompts/list`.
    PromptsList,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourceTemplatesList,
    /// `resources/read` (every resource's; a resource's own hint, when it has one, wins).
    ResourcesRead,
    /// `skills/list` (the skills extension; the official TypeScript client refuses a listing
    /// without `ttlMs` and `cacheScope`).
    SkillsList,
    /// `skills/get` (the skills extension).
    SkillsGet,
    /// `resources/directory/read` (the skills extension's directory reads).
    ResourcesDirectoryRead,
}

impl CacheableMethod {
    /// Every cacheable method.
    pub const ALL: [CacheableMethod; 9] = [
        CacheableMethod::Discover,
        CacheableMethod::ToolsList,
        CacheableMethod::PromptsList,
        CacheableMethod::ResourcesList,
        CacheableMethod::ResourceTemplatesList,
        CacheableMethod::ResourcesRead,
        CacheableMethod::SkillsList,
        CacheableMethod::SkillsGet,
        CacheableMethod::ResourcesDirectoryRead,
    ];

    /// The method's name.
    pub fn method(self) -> &'static str {
        match self {
            CacheableMethod::Discover => "server/discover",
            CacheableMethod::ToolsList => "tools/list",
            CacheableMethod::PromptsList => "prompts/list",
            CacheableMethod::ResourcesList => "resources/list",
            CacheableMethod::ResourceTemplatesList => "resources/templates/list",
            CacheableMethod::ResourcesRead => "resources/read",
            CacheableMethod::SkillsList => "skills/list",
            CacheableMethod::SkillsGet => "skills/get",
            CacheableMethod::ResourcesDirectoryRead => "resources/directory/read",
        }
    }

    /// The cacheable method named `method`.
    pub fn of(method: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.method() == method)
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

fn duration_ms(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The fields a 2026-07-28 result carries beside its own.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResultMeta {
    /// `resultType`.
    pub result_type: ResultType,
    /// `ttlMs` and `cacheScope`, on the results that are cacheable (discover, the lists,
    /// `resources/read`) when complete.
    pub cache: Option<CacheHint>,
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (shared: every result of a server carries
    /// the same).
    pub server_info: Arc<Implementation>,
}

impl ResultMeta {
    /// The fields of a result of `result_type` from the server `server_info`.
    pub fn new(result_type: ResultType, server_info: impl Into<Arc<Implementation>>) -> Self {
        Self {
            result_type,
            cache: None,
            server_info: server_info.into(),
        }
    }

    /// The same with the cache hint `cache`.
    pub fn with_cache(mut self, cache: Option<CacheHint>) -> Self {
        self.cache = cache;
        self
    }

    /// Writes the fields as members of an object already open, each preceded by a comma
    /// unless `first`.
    pub(super) fn write_members(&self, out: &mut Vec<u8>, first: bool) -> serde_json::Result<()> {
        if !first {
            out.push(b',');
        }
        out.extend_from_slice(br#""resultType":""#);
        out.extend_from_slice(self.result_type.as_str().as_bytes());
        out.push(b'"');
        if let Some(cache) = self.cache {
            out.extend_from_slice(br#","ttlMs":"#);
            out.extend_from_slice(cache.ttl_ms.to_string().as_bytes());
            out.extend_from_slice(match cache.scope {
                CacheScope::Public => br#","cacheScope":"public""#.as_slice(),
                CacheScope::Private => br#","cacheScope":"private""#.as_slice(),
            });
        }
        out.extend_from_slice(br#","_meta":{""#);
        out.extend_from_slice(super::SERVER_INFO_META.as_bytes());
        out.extend_from_slice(br#"":{"name":"#);
        write_json_string(out, &self.server_info.name)?;
        out.extend_from_slice(br#","version":"#);
        write_json_string(out, &self.server_info.version)?;
        out.extend_from_slice(b"}}");
        Ok(())
    }

    /// Adds the fields to the result object `result` (merging into a `_meta` it already has).
    pub(super) fn merge_into(&self, result: &mut serde_json::Map<String, serde_json::Value>) {
        result.insert(
            "resultType".into(),
            serde_json::Value::from(self.result_type.as_str()),
        );
        if let Some(cache) = self.cache {
            result.insert("ttlMs".into(), cache.ttl_ms.into());
            result.insert(
                "cacheScope".into(),
                match cache.scope {
                    CacheScope::Public => "public",
                    CacheScope::Private => "private",
                }
                .into(),
            );
        }
        let server_info =
            serde_json::to_value(&*self.server_info).unwrap_or(serde_json::Value::Null);
        match result.get_mut("_meta") {
            Some(serde_json::Value::Object(meta)) => {
                meta.insert(super::SERVER_INFO_META.into(), server_info);
            }
            _ => {
                let mut meta = serde_json::Map::new();
                meta.insert(super::SERVER_INFO_META.into(), server_info);
                result.insert("_meta".into(), meta.into());
            }
        }
    }
}

/// Writes `text` as a JSON string. A name or a version rarely has anything to escape: such a
/// string is copied as it is, without the serializer's machinery (every 2026-07-28 result
/// writes two of them).
fn write_json_string(out: &mut Vec<u8>, text: &str) -> serde_json::Result<()> {
    if text
        .bytes()
        .all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\')
    {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(out, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_info_is_written_as_serde_writes_it_whatever_it_holds() {
        for (name, version) in [
            ("bench", "1.0.0"),
            ("quote\"and\\backslash", "tab\tnewline\n"),
            ("ünïcødé ✓", "\u{1}\u{7f}"),
            ("", ""),
        ] {
            let info = Implementation::new(name, version);
            let meta = ResultMeta::new(ResultType::Complete, info.clone());
            let mut out = b"{".to_vec();
            meta.write_members(&mut out, true).unwrap();
            out.push(b'}');
            let written: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(
                written["_meta"][crate::jsonrpc::SERVER_INFO_META],
                serde_json::to_value(&info).unwrap(),
                "{name:?} {version:?}"
            );
        }
    }
}
