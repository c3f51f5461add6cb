//! `Artifact`'s answer ([`ArtifactOutput`]): one shape per action — publish, list, read, watch,
//! unwatch, status, the asset actions and pin — told apart by the key each one carries.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// What `Artifact` answered (`ArtifactOutput` of `sdk-tools.d.ts`), by action. A shape this
/// library does not know (a newer CLI's action) reads as [`Other`](Self::Other), kept whole.
///
/// ```
/// use claude_tools::builtin_tools::{ArtifactOutput, BuiltinToolOutput};
/// use serde_json::json;
///
/// let answer = json!({"url": "https://claude.ai/a/x1", "path": "/w/page.html", "version": "3"});
/// let Ok(BuiltinToolOutput::Artifact(ArtifactOutput::Published(page))) =
///     BuiltinToolOutput::parse("Artifact", &answer)
/// else {
///     panic!("a published page")
/// };
/// assert_eq!(page.url, "https://claude.ai/a/x1");
/// assert_eq!(page.version.as_deref(), Some("3"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ArtifactOutput {
    /// `list`: the artifacts.
    Listed(ArtifactList),
    /// `read`: a published page's content.
    Read(ArtifactReadOutput),
    /// `watch`: a live-update subscription asked for.
    Watch(ArtifactWatchOutput),
    /// `unwatch`: a subscription ended.
    Unwatch(ArtifactUnwatchOutput),
    /// `status`: the session's subscriptions.
    Watches(ArtifactWatches),
    /// `upload_asset` of one file.
    AssetUpload(ArtifactAssetUploadOutput),
    /// `upload_asset` of several files.
    AssetUploads(ArtifactAssetUploadsOutput),
    /// `list_assets`.
    AssetList(ArtifactAssetListOutput),
    /// `read_asset`.
    AssetRead(ArtifactAssetReadOutput),
    /// `delete_asset`.
    AssetDelete(ArtifactAssetDeleteOutput),
    /// `pin` or `unpin`.
    Pin(ArtifactPinOutput),
    /// `publish`: the page published (or updated).
    Published(ArtifactPublished),
    /// A shape this library does not know, as it came.
    Other(Map<String, Value>),
}

/// `publish`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactPublished {
    /// The page's address.
    pub url: String,
    /// The file published.
    pub path: String,
    /// The artifact's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<String>,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The version now published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the publish warns about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    /// Publishes left in the current window.
    #[serde(
        rename = "publishesRemaining",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub publishes_remaining: Option<u64>,
    /// When the window resets (milliseconds since the epoch).
    #[serde(
        rename = "publishesResetAt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub publishes_reset_at: Option<Number>,
    /// Whether an existing artifact was updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<bool>,
    /// Whether the user owns it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned: Option<bool>,
    /// Whether it is pinned in the user's sidebar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `list`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactList {
    /// The artifacts listed.
    pub artifacts: Vec<ArtifactListing>,
    /// Whether there are more than listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// How many there are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// The `page_token` of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// `shared` or `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One artifact of a listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactListing {
    /// Its title.
    pub title: String,
    /// Its address.
    pub url: String,
    /// When it last changed.
    #[serde(rename = "updatedAt", default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// `mine` or `shared`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<String>,
    /// The user's role on it (`editor`, `commenter`, `reader`, `viewer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Whether it is pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `read`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactReadOutput {
    /// The page read.
    pub read: ArtifactPageRead,
    /// Whether the user owns it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A page read by `read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactPageRead {
    /// Its address.
    pub url: String,
    /// Its size.
    pub bytes: u64,
    /// The HTTP status.
    pub code: u16,
    /// The HTTP status text.
    #[serde(rename = "codeText")]
    pub code_text: String,
    /// The content (raw, or a summary for someone else's page).
    pub result: String,
    /// How long the read took, in milliseconds.
    #[serde(rename = "durationMs")]
    pub duration_ms: Number,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `watch`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactWatchOutput {
    /// What became of the subscription.
    pub watch: ArtifactWatch,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A subscription asked for by `watch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactWatch {
    /// The artifact watched.
    pub url: String,
    /// Whether it is watched now.
    pub watching: bool,
    /// What happened.
    pub outcome: String,
    /// Why, when it is not watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `unwatch`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactUnwatchOutput {
    /// The subscription ended.
    pub unwatch: ArtifactUnwatch,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A subscription ended by `unwatch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactUnwatch {
    /// The artifact.
    pub url: String,
    /// Whether it was watched.
    pub was_watching: bool,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `status`'s answer: the session's subscriptions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactWatches {
    /// One per subscription.
    pub watches: Vec<ArtifactWatchEntry>,
    /// The one artifact asked about, when `url` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_url: Option<String>,
    /// Fields this library does not know (`arms`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One subscription of `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactWatchEntry {
    /// The artifact.
    pub url: String,
    /// How it is followed (`durable_wake`, `live_stopped`; absent for a live one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rail: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file of an artifact's asset store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAsset {
    /// Its id.
    pub id: String,
    /// Its address.
    pub url: String,
    /// Its size.
    pub size_bytes: u64,
    /// Its media type.
    pub content_type: String,
    /// Its SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Fields this library does not know (`file_name`, `created_at`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `upload_asset`'s answer for one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetUploadOutput {
    /// The file uploaded.
    pub asset_upload: ArtifactAsset,
    /// Fields this library does not know (`written`, `owned`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `upload_asset`'s answer for several files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetUploadsOutput {
    /// The files, each uploaded or not.
    pub asset_uploads: ArtifactAssetUploads,
    /// Fields this library does not know (`written`, `owned`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The files of a several-file upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetUploads {
    /// The artifact.
    pub url: String,
    /// One per file, in order.
    pub results: Vec<ArtifactAssetUploadResult>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One file of a several-file upload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetUploadResult {
    /// The local file.
    pub file_path: String,
    /// `uploaded`, `failed` or `not_attempted`.
    pub status: String,
    /// The asset's id, once uploaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Why it was not, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `list_assets`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetListOutput {
    /// The listing.
    pub asset_list: ArtifactAssetList,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An artifact's asset store, listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetList {
    /// The artifact.
    pub url: String,
    /// Its files.
    pub assets: Vec<ArtifactAsset>,
    /// The `after` of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Fields this library does not know (`usage`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `read_asset`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetReadOutput {
    /// The file saved.
    pub asset_read: ArtifactAssetRead,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file saved by `read_asset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetRead {
    /// The asset's id.
    pub id: String,
    /// Where it was saved.
    pub path: String,
    /// Its size.
    pub size_bytes: u64,
    /// Its media type.
    pub content_type: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `delete_asset`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetDeleteOutput {
    /// The file deleted.
    pub asset_delete: ArtifactAssetDelete,
    /// Fields this library does not know (`written`, `owned`…), kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file deleted by `delete_asset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactAssetDelete {
    /// The asset's id.
    pub id: String,
    /// Whether it was deleted.
    pub deleted: bool,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `pin` and `unpin`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactPinOutput {
    /// What was done.
    pub pin: ArtifactPin,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A pin or unpin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactPin {
    /// `pin` or `unpin`.
    pub action: String,
    /// The artifact.
    pub url: String,
    /// Whether it is pinned now.
    pub pinned: bool,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> ArtifactOutput {
        let output: ArtifactOutput = serde_json::from_value(value.clone()).unwrap();
        // Written back exactly as it came.
        assert_eq!(serde_json::to_value(&output).unwrap(), value);
        output
    }

    #[test]
    fn each_action_reads_as_its_own_shape_and_writes_back_as_it_came() {
        assert!(matches!(
            read(json!({"url": "u", "path": "/p", "faviconSent": true})),
            ArtifactOutput::Published(ArtifactPublished { ref url, .. }) if url == "u"
        ));
        assert!(matches!(
            read(json!({"artifacts": [{"title": "t", "url": "u", "rel": "mine"}], "total": 1})),
            ArtifactOutput::Listed(ArtifactList { ref artifacts, total: Some(1), .. })
                if artifacts[0].rel.as_deref() == Some("mine")
        ));
        assert!(matches!(
            read(json!({"read": {"url": "u", "bytes": 10, "code": 200, "codeText": "OK",
                                 "result": "<p>", "durationMs": 12.5}, "owned": true})),
            ArtifactOutput::Read(ArtifactReadOutput { ref read, owned: Some(true), .. })
                if read.code == 200
        ));
        assert!(matches!(
            read(json!({"watch": {"url": "u", "watching": false, "outcome": "unsupported"}})),
            ArtifactOutput::Watch(_)
        ));
        assert!(matches!(
            read(json!({"unwatch": {"url": "u", "was_watching": true}})),
            ArtifactOutput::Unwatch(_)
        ));
        assert!(matches!(
            read(json!({"watches": [{"url": "u", "rail": "durable_wake", "trigger_id": "t",
                                     "since": "2026-01-01"}]})),
            ArtifactOutput::Watches(ArtifactWatches { ref watches, .. })
                if watches[0].rail.as_deref() == Some("durable_wake")
        ));
        assert!(matches!(
            read(
                json!({"asset_upload": {"id": "a1", "url": "u", "size_bytes": 3,
                        "content_type": "image/png", "file_name": "x.png"}, "owned": true})
            ),
            ArtifactOutput::AssetUpload(_)
        ));
        assert!(matches!(
            read(json!({"asset_uploads": {"url": "u", "results": [
                {"file_path": "/a", "status": "failed", "reason": "too_big", "message": "m"}]}})),
            ArtifactOutput::AssetUploads(ArtifactAssetUploadsOutput { ref asset_uploads, .. })
                if asset_uploads.results[0].reason.as_deref() == Some("too_big")
        ));
        assert!(matches!(
            read(json!({"asset_list": {"url": "u", "assets": [], "usage":
                        {"files": 0, "bytes": 0, "max_files": 9, "max_bytes": 9}}})),
            ArtifactOutput::AssetList(_)
        ));
        assert!(matches!(
            read(
                json!({"asset_read": {"id": "a", "path": "/o/a", "size_bytes": 1,
                        "content_type": "text/plain", "sha256": "ab"}})
            ),
            ArtifactOutput::AssetRead(_)
        ));
        assert!(matches!(
            read(json!({"asset_delete": {"id": "a", "deleted": true}})),
            ArtifactOutput::AssetDelete(ArtifactAssetDeleteOutput {
                asset_delete: ArtifactAssetDelete { deleted: true, .. },
                ..
            })
        ));
        assert!(matches!(
            read(json!({"pin": {"action": "unpin", "url": "u", "pinned": false}})),
            ArtifactOutput::Pin(_)
        ));
        // A newer CLI's action is kept whole.
        assert!(matches!(
            read(json!({"archive": {"url": "u"}})),
            ArtifactOutput::Other(ref other) if other.contains_key("archive")
        ));
    }
}
