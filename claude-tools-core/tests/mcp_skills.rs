//! Skills (the MCP skills extension, SEP-2640) served by the router at 2026-07-28: the exact
//! replies, and every kind of bad input refused with its error (see `claude_tools_core::skill`
//! and the router's `skills` module).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use claude_tools_core::jsonrpc::ServerNotification;
use claude_tools_core::mcp::McpRouter;
use claude_tools_core::skill::{MAX_SKILL_BYTES, Skill, SkillError};
use claude_tools_core::tool::{ServerBuildError, ToolServer};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const V: &str = "2026-07-28";

const SKILL_MD: &str = "---\nname: deploy\ndescription: Deploy the app to an environment. Use when asked to ship.\nmetadata:\n  owner: ops\n---\n# Deploy\n\nRun `scripts/deploy.sh`, then call the `status` tool.\n";

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("ct-skills-{}-{label}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes `files` (path, bytes) under `skill` and returns the skill's directory.
    fn skill(&self, skill: &str, files: &[(&str, &[u8])]) -> PathBuf {
        let dir = self.0.join(skill);
        for (path, bytes) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn deploy(scratch: &Scratch) -> PathBuf {
    scratch.skill(
        "deploy",
        &[
            ("SKILL.md", SKILL_MD.as_bytes()),
            ("scripts/deploy.sh", b"#!/bin/sh\necho deploying \"$1\"\n"),
            ("assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0"),
            (".hidden", b"not served"),
        ],
    )
}

fn server(dir: &Path) -> ToolServer {
    ToolServer::new("ops", "1.0.0").with_skill(dir).unwrap()
}

fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn ask(router: &McpRouter, message: Value) -> Value {
    router
        .handle_json(message)
        .await
        .expect("a request is answered")
}

fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn entry() -> Value {
    let script = b"#!/bin/sh\necho deploying \"$1\"\n";
    let logo = b"\x89PNG\r\n\x1a\n\0\0";
    json!({
        "uri": "skill://deploy/SKILL.md",
        "frontmatter": {
            "name": "deploy",
            "description": "Deploy the app to an environment. Use when asked to ship.",
            "metadata": {"owner": "ops"}
        },
        "resources": [
            {"uri": "skill://deploy/SKILL.md", "digest": sha256(SKILL_MD.as_bytes()), "size": SKILL_MD.len()},
            {"uri": "skill://deploy/assets/logo.png", "digest": sha256(logo), "size": logo.len()},
            {"uri": "skill://deploy/scripts/deploy.sh", "digest": sha256(script), "size": script.len()},
        ]
    })
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "ops", "version": "1.0.0"}})
}

#[tokio::test]
async fn discover_declares_the_skills_extension_and_resources() {
    let scratch = Scratch::new("discover");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let reply = ask(&router, modern(1, "server/discover", json!({}))).await;
    let capabilities = &reply["result"]["capabilities"];
    assert_eq!(
        capabilities["extensions"],
        json!({"io.modelcontextprotocol/skills": {"directoryRead": true}})
    );
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": false, "listChanged": false})
    );
    // A server without skills declares no extension.
    let plain = McpRouter::new(ToolServer::new("ops", "1.0.0"));
    let reply = ask(&plain, modern(1, "server/discover", json!({}))).await;
    assert_eq!(reply["result"]["capabilities"].get("extensions"), None);
}

#[tokio::test]
async fn skills_list_and_get_give_the_manifest() {
    let scratch = Scratch::new("list");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let reply = ask(&router, modern(1, "skills/list", json!({}))).await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "skills": [entry()], "resultType": "complete", "_meta": meta(),
            // The official TypeScript client refuses a listing without its cache hint.
            "ttlMs": 0, "cacheScope": "private"
        }})
    );
    let reply = ask(
        &router,
        modern(2, "skills/get", json!({"uri": "skill://deploy/SKILL.md"})),
    )
    .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "skill": entry(), "resultType": "complete", "_meta": meta(),
            "ttlMs": 0, "cacheScope": "private"
        }})
    );
    let reply = ask(
        &router,
        modern(3, "skills/get", json!({"uri": "skill://nope/SKILL.md"})),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(
        reply["error"]["data"],
        json!({"uri": "skill://nope/SKILL.md"})
    );
    let reply = ask(&router, modern(4, "skills/get", json!({}))).await;
    assert_eq!(reply["error"]["code"], -32602);
    let reply = ask(&router, modern(5, "skills/list", json!({"cursor": "x"}))).await;
    assert_eq!(reply["error"]["code"], -32602);
}

#[tokio::test]
async fn files_read_with_the_listed_size_and_digest() {
    let scratch = Scratch::new("read");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let listed = entry();
    for resource in listed["resources"].as_array().unwrap() {
        let uri = resource["uri"].as_str().unwrap();
        let reply = ask(&router, modern(1, "resources/read", json!({"uri": uri}))).await;
        let contents = reply["result"]["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 1, "{reply}");
        assert_eq!(contents[0]["uri"], uri);
        let bytes = match (&contents[0]["text"], &contents[0]["blob"]) {
            (Value::String(text), _) => text.as_bytes().to_vec(),
            (_, Value::String(blob)) => base64_decode(blob),
            _ => panic!("{reply}"),
        };
        assert_eq!(
            bytes.len() as u64,
            resource["size"].as_u64().unwrap(),
            "{uri}"
        );
        assert_eq!(sha256(&bytes), resource["digest"], "{uri}");
    }
    let skill_md = ask(
        &router,
        modern(
            1,
            "resources/read",
            json!({"uri": "skill://deploy/SKILL.md"}),
        ),
    )
    .await;
    assert_eq!(
        skill_md["result"]["contents"][0]["mimeType"],
        "text/markdown"
    );
    assert_eq!(skill_md["result"]["contents"][0]["text"], SKILL_MD);
    let logo = ask(
        &router,
        modern(
            1,
            "resources/read",
            json!({"uri": "skill://deploy/assets/logo.png"}),
        ),
    )
    .await;
    assert_eq!(logo["result"]["contents"][0]["mimeType"], "image/png");
    assert!(logo["result"]["contents"][0]["blob"].is_string());
    // Hidden files are not served; unknown files are "not found" (-32602 at 2026-07-28).
    for uri in [
        "skill://deploy/.hidden",
        "skill://deploy/nope.md",
        "other://x",
    ] {
        let reply = ask(&router, modern(1, "resources/read", json!({"uri": uri}))).await;
        assert_eq!(reply["error"]["code"], -32602, "{uri}: {reply}");
        assert_eq!(reply["error"]["data"]["uri"], uri);
    }
}

#[tokio::test]
async fn dot_segments_in_a_read_uri_are_refused() {
    let scratch = Scratch::new("dots");
    let router = McpRouter::new(server(&deploy(&scratch)));
    for uri in [
        "skill://deploy/../deploy/SKILL.md",
        "skill://deploy/scripts/../SKILL.md",
        "skill://deploy/%2e%2e/etc/passwd",
        "skill://deploy/%2E%2E/%2E%2E/etc/passwd",
        "skill://deploy/./SKILL.md",
    ] {
        let reply = ask(&router, modern(1, "resources/read", json!({"uri": uri}))).await;
        assert_eq!(reply["error"]["code"], -32602, "{uri}: {reply}");
        let message = reply["error"]["data"].as_str().unwrap();
        assert!(message.contains("`..` segment"), "{uri}: {message}");
    }
}

#[tokio::test]
async fn directories_read_one_level() {
    let scratch = Scratch::new("dirs");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let reply = ask(
        &router,
        modern(
            1,
            "resources/directory/read",
            json!({"uri": "skill://deploy"}),
        ),
    )
    .await;
    assert_eq!(
        reply["result"]["resources"],
        json!([
            {"uri": "skill://deploy/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": SKILL_MD.len()},
            {"uri": "skill://deploy/assets", "name": "assets", "mimeType": "inode/directory"},
            {"uri": "skill://deploy/scripts", "name": "scripts", "mimeType": "inode/directory"},
        ])
    );
    let reply = ask(
        &router,
        modern(
            2,
            "resources/directory/read",
            json!({"uri": "skill://deploy/scripts"}),
        ),
    )
    .await;
    assert_eq!(
        reply["result"]["resources"][0]["uri"],
        "skill://deploy/scripts/deploy.sh"
    );
    assert_eq!(
        reply["result"]["resources"][0]["mimeType"],
        "text/x-shellscript"
    );
    for uri in [
        "skill://deploy/SKILL.md",
        "skill://deploy/nope",
        "skill://deploy/..",
        "skill://other",
    ] {
        let reply = ask(
            &router,
            modern(3, "resources/directory/read", json!({"uri": uri})),
        )
        .await;
        assert_eq!(reply["error"]["code"], -32602, "{uri}: {reply}");
    }
}

#[tokio::test]
async fn resources_list_names_each_skill_md() {
    let scratch = Scratch::new("reslist");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let reply = ask(&router, modern(1, "resources/list", json!({}))).await;
    assert_eq!(
        reply["result"]["resources"],
        json!([{
            "uri": "skill://deploy/SKILL.md", "name": "deploy",
            "description": "Deploy the app to an environment. Use when asked to ship.",
            "mimeType": "text/markdown"
        }])
    );
    let reply = ask(&router, modern(2, "resources/templates/list", json!({}))).await;
    assert_eq!(reply["result"]["resourceTemplates"], json!([]));
}

#[tokio::test]
async fn skills_are_only_served_at_2026_07_28() {
    let scratch = Scratch::new("legacy");
    let router = McpRouter::new(server(&deploy(&scratch)));
    let reply = ask(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {}}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    // And a server without skills does not have the methods.
    let plain = McpRouter::new(ToolServer::new("ops", "1.0.0"));
    for method in ["skills/list", "skills/get", "resources/directory/read"] {
        let reply = ask(
            &plain,
            modern(1, method, json!({"uri": "skill://deploy/SKILL.md"})),
        )
        .await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
}

#[tokio::test]
async fn the_live_handle_adds_and_removes_skills_with_list_changed() {
    let scratch = Scratch::new("live");
    let dir = deploy(&scratch);
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sink = sent.clone();
    let router = McpRouter::new(ToolServer::new("ops", "1.0.0")).with_notifier(Arc::new(
        move |notification| sink.lock().unwrap().push(notification),
    ));
    let handle = router.tool_server_handle();
    handle.add_skill(dir.as_path()).unwrap();
    assert_eq!(
        *sent.lock().unwrap(),
        [ServerNotification::ResourcesListChanged]
    );
    let reply = ask(&router, modern(1, "skills/list", json!({}))).await;
    assert_eq!(
        reply["result"]["skills"][0]["uri"],
        "skill://deploy/SKILL.md"
    );
    assert!(
        handle.add_skill(dir.as_path()).is_err(),
        "a second skill of the same name"
    );
    handle.remove_skill("deploy").unwrap();
    assert_eq!(sent.lock().unwrap().len(), 2);
    assert!(handle.remove_skill("deploy").is_err());
    let reply = ask(&router, modern(2, "skills/list", json!({}))).await;
    assert_eq!(reply["error"]["code"], -32601);
}

/// A 2026-07-28 `subscriptions/listen` request with `notifications` as its filter.
fn listen_request(id: u64, notifications: Value) -> claude_tools_core::mcp::Request {
    let message = modern(
        id,
        "subscriptions/listen",
        json!({"notifications": notifications}),
    );
    match claude_tools_core::mcp::Message::decode(message.to_string().as_bytes()) {
        claude_tools_core::mcp::Message::Request(request) => request,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_listen_stream_opened_before_the_first_skill_hears_of_it() {
    let scratch = Scratch::new("listen-first");
    let dir = deploy(&scratch);
    // No skill and no resource yet.
    let router = McpRouter::new(ToolServer::new("ops", "1.0.0")).with_listen(true);
    let handle = router.tool_server_handle();
    let mut stream = router
        .listen(listen_request(3, json!({"resourcesListChanged": true})))
        .expect("a stream");
    assert_eq!(
        serde_json::to_value(stream.acknowledgement()).unwrap()["params"]["notifications"],
        json!({"resourcesListChanged": true})
    );
    handle.add_skill(dir.as_path()).unwrap();
    let heard = tokio::time::timeout(std::time::Duration::from_secs(5), stream.next())
        .await
        .expect("the first skill is announced");
    assert_eq!(
        serde_json::to_value(stream.message(&heard)).unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 3}}})
    );
}

fn refused(dir: &Path) -> SkillError {
    match ToolServer::new("ops", "1.0.0").with_skill(dir) {
        Err(ServerBuildError::Skill { error, .. }) => error,
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("accepted {}", dir.display()),
    }
}

#[test]
fn bad_skill_directories_are_refused_at_build() {
    let scratch = Scratch::new("bad");
    let missing = scratch.skill("missing", &[("README.md", b"x")]);
    assert!(matches!(refused(&missing), SkillError::MissingSkillMd(_)));

    let malformed = scratch.skill("malformed", &[("SKILL.md", b"# Deploy\nno front matter\n")]);
    let error = refused(&malformed);
    assert!(matches!(error, SkillError::FrontMatter { .. }), "{error}");
    assert!(
        error.to_string().contains("must open with a `---` line"),
        "{error}"
    );

    let typed = scratch.skill(
        "typed",
        &[(
            "SKILL.md",
            b"---\nname: typed\ndescription: d\nversion: 1.0\n---\n",
        )],
    );
    assert!(refused(&typed).to_string().contains("double quotes"));

    let bad_name = scratch.skill(
        "Bad_Name",
        &[("SKILL.md", b"---\nname: Bad_Name\ndescription: d\n---\n")],
    );
    assert!(matches!(refused(&bad_name), SkillError::InvalidName { .. }));

    let mismatch = scratch.skill(
        "ship",
        &[("SKILL.md", b"---\nname: deploy\ndescription: d\n---\n")],
    );
    assert!(matches!(
        refused(&mismatch),
        SkillError::NameMismatch { .. }
    ));

    // Past the cap: a sparse file, never read.
    let big = scratch.skill(
        "big",
        &[("SKILL.md", b"---\nname: big\ndescription: d\n---\n")],
    );
    std::fs::File::create(big.join("data.bin"))
        .unwrap()
        .set_len(MAX_SKILL_BYTES + 1)
        .unwrap();
    match refused(&big) {
        SkillError::TooLarge { what, size, .. } => {
            assert_eq!((what.as_str(), size), ("data.bin", MAX_SKILL_BYTES + 1));
        }
        other => panic!("{other}"),
    }

    let no_dir = scratch.0.join("absent");
    assert!(matches!(refused(&no_dir), SkillError::Io { .. }));
}

#[cfg(unix)]
#[test]
fn symlinks_may_lead_only_inside_the_skill() {
    let scratch = Scratch::new("links");
    std::fs::write(scratch.0.join("secret.txt"), "outside").unwrap();
    let dir = scratch.skill(
        "linked",
        &[
            ("SKILL.md", b"---\nname: linked\ndescription: d\n---\n"),
            ("notes.md", b"inside"),
        ],
    );
    std::os::unix::fs::symlink("notes.md", dir.join("alias.md")).unwrap();
    let skill = Skill::from_dir(&dir).unwrap();
    let alias = skill
        .files()
        .iter()
        .find(|file| file.path() == "alias.md")
        .unwrap();
    assert_eq!(alias.bytes(), b"inside");

    std::os::unix::fs::symlink("../secret.txt", dir.join("leak.txt")).unwrap();
    match refused(&dir) {
        SkillError::SymlinkOutside { path, .. } => assert_eq!(path, "leak.txt"),
        other => panic!("{other}"),
    }
    std::fs::remove_file(dir.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/nowhere", dir.join("dangling")).unwrap();
    assert!(matches!(refused(&dir), SkillError::SymlinkOutside { .. }));
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}
