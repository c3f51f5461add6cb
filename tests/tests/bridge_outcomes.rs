//! The Rust bridge's two outcome-classifying requests against a fake CCR service that
//! misbehaves: every classified outcome of `create_code_session` (including a 2xx that does not
//! parse and a service that never answers), the git context it sends and the dropped-branch log
//! it dedups, and every classified outcome of `fetch_remote_credentials`. No panic, no hang:
//! every wait has a deadline. The attached session's stream and transport faults are in
//! `bridge_session_faults.rs`.

use std::time::Duration;

use claude_tools::bridge::{
    BranchDropLogDedup, CodeSessionGitContext, CreateCodeSession, CreateSessionFailureReason,
    CreateSessionOutcome, CredentialsFailureReason, CredentialsOutcome, RejectionSource,
    create_code_session, fetch_remote_credentials,
};
use claude_tools_testkit::ccr::CcrServer;
use serde_json::{Value, json};

const SECOND: Duration = Duration::from_secs(1);

fn create(ccr: &CcrServer) -> CreateCodeSession {
    CreateCodeSession::new(ccr.base_url(), "tok", "t", 2 * SECOND).cwd("/x")
}

async fn fetch(ccr: &CcrServer, id: &str) -> CredentialsOutcome {
    fetch_remote_credentials(id, &ccr.base_url(), "tok", 2 * SECOND, None).await
}

#[tokio::test]
async fn create_code_session_classifies_every_answer() {
    let ccr = CcrServer::start().await;
    assert!(
        matches!(create_code_session(&create(&ccr), None).await, CreateSessionOutcome::Created(id) if id == "cse_fake0001")
    );

    ccr.answer_next(
        "POST",
        "/v1/code/sessions",
        1,
        200,
        json!({"session": {"id": "not-cse"}}),
    );
    let CreateSessionOutcome::Failure(failure) = create_code_session(&create(&ccr), None).await
    else {
        panic!("a malformed 2xx")
    };
    assert_eq!(
        failure.reason,
        CreateSessionFailureReason::MalformedResponse
    );
    assert_eq!((failure.status, failure.detail), (200, None));

    ccr.answer_next("POST", "/v1/code/sessions", 1, 200, json!("not an object"));
    assert!(
        create_code_session(&create(&ccr), None)
            .await
            .is_create_session_failure()
    );

    ccr.answer_next("POST", "/v1/code/sessions", 1, 401, json!({}));
    let rejected = create_code_session(&create(&ccr), None).await;
    assert!(rejected.is_credentials_rejection() && !rejected.is_create_session_failure());

    for status in [408, 429, 500, 503] {
        ccr.answer_next("POST", "/v1/code/sessions", 1, status, json!({}));
        assert_eq!(
            create_code_session(&create(&ccr), None).await,
            CreateSessionOutcome::Transient,
            "{status}"
        );
    }

    ccr.answer_next(
        "POST",
        "/v1/code/sessions",
        1,
        404,
        json!({"error": {"type": "not_found_error",
        "resource_type": "session_grouping", "message": "no such grouping"}}),
    );
    let CreateSessionOutcome::Failure(failure) = create_code_session(&create(&ccr), None).await
    else {
        panic!("a grouping rejection")
    };
    assert_eq!(failure.reason, CreateSessionFailureReason::GroupingRejected);
    assert_eq!(
        (failure.status, failure.detail.as_deref()),
        (404, Some("no such grouping"))
    );

    // The service's text is passed on only when it is one plain line.
    ccr.answer_next(
        "POST",
        "/v1/code/sessions",
        1,
        400,
        json!({"message": "bad\nrequest"}),
    );
    let CreateSessionOutcome::Failure(failure) = create_code_session(&create(&ccr), None).await
    else {
        panic!("a rejection")
    };
    assert_eq!(failure.reason, CreateSessionFailureReason::RequestRejected);
    assert_eq!((failure.status, failure.detail), (400, None));

    // A service that never answers: transient, within the caller's timeout.
    ccr.hang_next("POST", "/v1/code/sessions", 1);
    let started = std::time::Instant::now();
    let request = CreateCodeSession::new(ccr.base_url(), "tok", "t", Duration::from_millis(300));
    assert_eq!(
        create_code_session(&request, None).await,
        CreateSessionOutcome::Transient
    );
    assert!(started.elapsed() < 5 * SECOND);
}

#[tokio::test]
async fn create_code_session_sends_the_git_context_and_logs_a_dropped_branch_once() {
    let ccr = CcrServer::start().await;
    let request = create(&ccr)
        .git_context(
            CodeSessionGitContext::new("git@github.com:acme/app.git", "feature")
                .default_branch("main"),
        )
        .session_grouping_id("g1");
    let _ = create_code_session(&request, None).await;
    let body = ccr.requests()[0].body.clone();
    assert_eq!(body["session_grouping_id"], "g1");
    assert_eq!(
        body["config"]["sources"],
        json!([{"type": "git_repository",
        "url": "https://github.com/acme/app", "revision": "feature"}])
    );
    assert_eq!(
        body["config"]["outcomes"],
        json!([{"type": "git_repository",
        "git_info": {"type": "github", "repo": "acme/app", "branches": ["feature"]}}])
    );
    assert_eq!(body["config"]["reuse_outcome_branches"], true);

    let mut dedup = BranchDropLogDedup::default();
    let unknown_default =
        create(&ccr).git_context(CodeSessionGitContext::new("acme/app", "feature"));
    let _ = create_code_session(&unknown_default, Some(&mut dedup)).await;
    assert_eq!(
        dedup.last_key.as_deref(),
        Some("no_evidence:acme/app:feature")
    );
    let kept = create(&ccr)
        .git_context(CodeSessionGitContext::new("acme/app", "x").default_branch("main"));
    let _ = create_code_session(&kept, Some(&mut dedup)).await;
    assert_eq!(dedup.last_key, None);
}

#[tokio::test]
async fn fetch_remote_credentials_classifies_every_answer() {
    let ccr = CcrServer::start().await;
    // An invalid id is refused before any request.
    for bad in ["", "../x", "a/b", "a b", "cse_\u{e9}"] {
        let CredentialsOutcome::Failure(failure) = fetch(&ccr, bad).await else {
            panic!("{bad:?}")
        };
        assert_eq!(failure.reason, CredentialsFailureReason::InvalidSessionId);
    }
    assert!(ccr.requests().is_empty());

    let CredentialsOutcome::Credentials(credentials) = fetch(&ccr, "cse_1").await else {
        panic!()
    };
    assert_eq!(
        (credentials.worker_epoch, credentials.worker_jwt.as_str()),
        (1, "jwt-1")
    );
    assert!(
        !format!("{credentials:?}").contains("jwt-1"),
        "Debug shows no JWT"
    );

    let cases: Vec<(u16, Value, CredentialsFailureReason, Option<u16>)> = vec![
        (
            403,
            json!({"error": {"resource": "untrusted_device"}}),
            CredentialsFailureReason::UntrustedDevice,
            None,
        ),
        (
            403,
            json!({"error": {"resource": "session_stale_relogin"}}),
            CredentialsFailureReason::SessionStaleRelogin,
            None,
        ),
        (
            403,
            json!({"error": {"resource": "session_security_tier_below_org_policy"}}),
            CredentialsFailureReason::SessionSecurityTierBelowOrgPolicy,
            Some(403),
        ),
        (
            404,
            json!({"error": {"reason": "session_not_bridge"}}),
            CredentialsFailureReason::RequestRejected,
            Some(404),
        ),
        (
            200,
            json!({"worker_jwt": "j", "expires_in": 1, "api_base_url": "u"}),
            CredentialsFailureReason::MalformedResponse,
            Some(200),
        ),
        (
            200,
            json!({"worker_jwt": "j", "expires_in": 1, "api_base_url": "u", "worker_epoch": 1.5}),
            CredentialsFailureReason::MalformedResponse,
            Some(200),
        ),
    ];
    for (status, body, reason, want_status) in cases {
        ccr.answer_next("POST", "/bridge", 1, status, body.clone());
        let CredentialsOutcome::Failure(failure) = fetch(&ccr, "cse_1").await else {
            panic!("{body}")
        };
        assert_eq!(
            (failure.reason, failure.status),
            (reason, want_status),
            "{body}"
        );
        assert_eq!(failure.session_not_bridge, status == 404);
    }
    ccr.answer_next("POST", "/bridge", 1, 403, json!({}));
    let CredentialsOutcome::Failure(failure) = fetch(&ccr, "cse_1").await else {
        panic!()
    };
    assert_eq!(failure.source, Some(RejectionSource::NonoriginOther));

    ccr.answer_next("POST", "/bridge", 1, 401, json!({}));
    assert!(fetch(&ccr, "cse_1").await.is_credentials_rejection());
    ccr.answer_next("POST", "/bridge", 1, 502, json!({}));
    assert_eq!(fetch(&ccr, "cse_1").await, CredentialsOutcome::Transient);
    ccr.hang_next("POST", "/bridge", 1);
    assert_eq!(
        fetch_remote_credentials(
            "cse_1",
            &ccr.base_url(),
            "tok",
            Duration::from_millis(200),
            None
        )
        .await,
        CredentialsOutcome::Transient
    );
}
