//! The codec's behaviours, each refused case by name.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::wire::{HEADER_LEN, KEY_ID_AT, MIN_SEALED_BYTES, NONCE_AT, TAG_LEN};
use super::*;

const SECRET: [u8; 32] = [7; 32];
const OTHER_SECRET: [u8; 32] = [9; 32];

/// A clock the test moves, in milliseconds since the epoch.
#[derive(Clone)]
struct TestClock(Arc<AtomicU64>);

impl TestClock {
    fn new() -> Self {
        Self(Arc::new(AtomicU64::new(1_800_000_000_000)))
    }
    fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_millis() as u64, Ordering::SeqCst);
    }
    fn at(&self) -> impl Fn() -> SystemTime + Send + Sync + 'static {
        let millis = Arc::clone(&self.0);
        move || UNIX_EPOCH + Duration::from_millis(millis.load(Ordering::SeqCst))
    }
}

fn key(secret: [u8; 32]) -> StateKey {
    StateKey::new(secret).unwrap()
}

fn codec_with(secret: [u8; 32], audience: &str, clock: &TestClock) -> RequestStateCodec {
    RequestStateConfig::default()
        .key(key(secret))
        .clock(clock.at())
        .build(audience)
        .unwrap()
}

fn codec() -> RequestStateCodec {
    codec_with(SECRET, "tickets", &TestClock::new())
}

fn digest(parts: &[&str]) -> ParamsDigest {
    ParamsDigest::of(parts.iter().map(|p| p.as_bytes()))
}

fn binding() -> Binding<'static> {
    Binding::new("tools/call", digest(&["deploy", r#"{"env":"prod"}"#]))
        .with_principal(Some("user:42"))
}

const PAYLOAD: &[u8] = b"the build id is 1234; the user answered yes";

async fn failure(codec: &RequestStateCodec, sealed: &str, binding: &Binding<'_>) -> OpenFailure {
    match codec.open(sealed, binding).await {
        Ok(payload) => panic!("opened: {payload:?}"),
        Err(e) => {
            assert_eq!(e.to_string(), "invalid or expired requestState");
            e.into_failure()
        }
    }
}

fn raw(sealed: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(sealed).unwrap()
}

fn text(raw: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(raw)
}

#[tokio::test]
async fn a_sealed_payload_opens_under_its_binding() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    assert!(
        sealed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{sealed}"
    );
    assert_eq!(raw(&sealed).len(), MIN_SEALED_BYTES + PAYLOAD.len());
    assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), PAYLOAD);
}

#[tokio::test]
async fn the_payload_is_not_readable_in_the_state() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let raw = raw(&sealed);
    assert!(!raw.windows(PAYLOAD.len()).any(|w| w == PAYLOAD));
    // And two seals of one payload differ (a fresh nonce each).
    assert_ne!(sealed, codec.seal(&binding(), PAYLOAD).unwrap());
}

#[tokio::test]
async fn an_empty_payload_round_trips() {
    let codec = codec();
    let sealed = codec.seal(&binding(), b"").unwrap();
    assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), b"");
}

#[tokio::test]
async fn typed_payloads_round_trip() {
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Carried {
        build: u32,
        answers: Vec<String>,
    }
    let codec = codec();
    let value = Carried {
        build: 1234,
        answers: vec!["yes".into()],
    };
    let sealed = codec.seal_json(&binding(), &value).unwrap();
    let opened: Carried = codec.open_json(&sealed, &binding()).await.unwrap();
    assert_eq!(opened, value);
}

#[tokio::test]
async fn a_payload_of_another_type_is_refused_and_spent() {
    let codec = codec();
    let sealed = codec.seal_json(&binding(), &"text").unwrap();
    let e = codec
        .open_json::<u32>(&sealed, &binding())
        .await
        .unwrap_err();
    assert!(matches!(e.failure(), OpenFailure::Payload(_)), "{e:?}");
    assert!(matches!(
        failure(&codec, &sealed, &binding()).await,
        OpenFailure::Replayed { .. }
    ));
}

#[tokio::test]
async fn another_method_is_refused() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let other = Binding::new("prompts/get", binding().params()).with_principal(Some("user:42"));
    assert!(matches!(
        failure(&codec, &sealed, &other).await,
        OpenFailure::Unauthentic
    ));
    assert!(
        codec.open(&sealed, &binding()).await.is_ok(),
        "a refused open does not spend"
    );
}

#[tokio::test]
async fn other_params_are_refused() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let other = Binding::new("tools/call", digest(&["deploy", r#"{"env":"staging"}"#]))
        .with_principal(Some("user:42"));
    assert!(matches!(
        failure(&codec, &sealed, &other).await,
        OpenFailure::Unauthentic
    ));
    assert!(codec.open(&sealed, &binding()).await.is_ok());
}

#[tokio::test]
async fn another_principal_or_none_is_refused() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    for principal in [Some("user:43"), Some("user:4"), Some(""), None] {
        let other = binding().with_principal(principal);
        assert!(
            matches!(
                failure(&codec, &sealed, &other).await,
                OpenFailure::Unauthentic
            ),
            "{principal:?}"
        );
    }
    // A state of an anonymous caller does not open for an authenticated one, nor one with an
    // empty principal (none and empty are told apart).
    let anonymous = binding().with_principal(None);
    let sealed_anonymous = codec.seal(&anonymous, PAYLOAD).unwrap();
    for principal in [Some("user:42"), Some("")] {
        let other = binding().with_principal(principal);
        assert!(matches!(
            failure(&codec, &sealed_anonymous, &other).await,
            OpenFailure::Unauthentic
        ));
    }
    assert!(codec.open(&sealed, &binding()).await.is_ok());
    assert!(codec.open(&sealed_anonymous, &anonymous).await.is_ok());
}

#[tokio::test]
async fn another_audience_with_the_same_key_is_refused() {
    let clock = TestClock::new();
    let tickets = codec_with(SECRET, "tickets", &clock);
    let billing = codec_with(SECRET, "billing", &clock);
    let sealed = tickets.seal(&binding(), PAYLOAD).unwrap();
    assert!(matches!(
        failure(&billing, &sealed, &binding()).await,
        OpenFailure::Unauthentic
    ));
    assert!(tickets.open(&sealed, &binding()).await.is_ok());
}

#[tokio::test]
async fn every_changed_byte_is_refused_by_its_check_and_spends_nothing() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let original = raw(&sealed);
    let tag_at = original.len() - TAG_LEN;
    for at in 0..original.len() {
        for flip in [0x01u8, 0x80] {
            let mut changed = original.clone();
            changed[at] ^= flip;
            let failure = failure(&codec, &text(&changed), &binding()).await;
            let class = match at {
                0 => "version",
                _ if at < NONCE_AT => "key id",
                _ if at < HEADER_LEN => "nonce",
                _ if at < tag_at => "ciphertext",
                _ => "tag",
            };
            let expected = match class {
                "version" => matches!(failure, OpenFailure::UnknownVersion(v) if v == 1 ^ flip),
                "key id" => matches!(failure, OpenFailure::UnknownKey { .. }),
                _ => matches!(failure, OpenFailure::Unauthentic),
            };
            assert!(expected, "byte {at} ({class}) ^ {flip:#x}: {failure:?}");
        }
    }
    assert_eq!(KEY_ID_AT, 1);
    // None of those spent the genuine state.
    assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), PAYLOAD);
}

#[tokio::test]
async fn a_key_id_of_another_key_in_the_ring_is_refused() {
    // The key id is authenticated too: relabelling a state with the id of another key the ring
    // holds makes it fail under that key.
    let old = key(OTHER_SECRET);
    let ring = KeyRing::new(key(SECRET)).accept(old.clone());
    let codec = RequestStateConfig::default()
        .keys(ring)
        .build("tickets")
        .unwrap();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let mut changed = raw(&sealed);
    changed[KEY_ID_AT..NONCE_AT].copy_from_slice(&old.id());
    assert!(matches!(
        failure(&codec, &text(&changed), &binding()).await,
        OpenFailure::Unauthentic
    ));
}

#[tokio::test]
async fn truncated_states_are_refused() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let original = raw(&sealed);
    assert!(matches!(
        failure(&codec, "", &binding()).await,
        OpenFailure::Truncated { len: 0, .. }
    ));
    for len in 1..original.len() {
        let failure = failure(&codec, &text(&original[..len]), &binding()).await;
        if len < MIN_SEALED_BYTES {
            assert!(
                matches!(failure, OpenFailure::Truncated { .. }),
                "{len}: {failure:?}"
            );
        } else {
            assert!(
                matches!(failure, OpenFailure::Unauthentic),
                "{len}: {failure:?}"
            );
        }
    }
    // Cut in the text, not the bytes: a length base64 cannot have.
    let cut = &sealed[..sealed.len() - 1];
    assert!(codec.open(cut, &binding()).await.is_err());
    assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), PAYLOAD);
}

#[tokio::test]
async fn an_oversized_state_is_refused_before_decoding() {
    let codec = RequestStateConfig::default()
        .max_len(200)
        .build("tickets")
        .unwrap();
    // Not even base64: the length alone refuses it.
    let huge = "!".repeat(201);
    assert!(matches!(
        failure(&codec, &huge, &binding()).await,
        OpenFailure::TooLarge { len: 201, max: 200 }
    ));
    let at_bound = "!".repeat(200);
    assert!(matches!(
        failure(&codec, &at_bound, &binding()).await,
        OpenFailure::NotBase64
    ));
}

#[tokio::test]
async fn seal_refuses_what_open_would_refuse_for_size() {
    for max_len in [200usize, 201, 202, 203] {
        let codec = RequestStateConfig::default()
            .max_len(max_len)
            .build("tickets")
            .unwrap();
        let largest = vec![b'x'; codec.max_payload_len()];
        let sealed = codec.seal(&binding(), &largest).unwrap();
        assert!(sealed.len() <= max_len, "{max_len}: {}", sealed.len());
        assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), largest);
        let over = vec![b'x'; codec.max_payload_len() + 1];
        assert!(
            matches!(codec.seal(&binding(), &over), Err(SealError::TooLarge { max, .. }) if max == max_len),
            "{max_len}"
        );
    }
    let default = codec();
    assert_eq!(default.max_len(), DEFAULT_MAX_STATE_LEN);
    assert!(
        default
            .seal(&binding(), &vec![0; DEFAULT_MAX_STATE_LEN])
            .is_err()
    );
}

#[tokio::test]
async fn text_that_is_not_url_safe_base64_is_refused() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let padded = URL_SAFE_NO_PAD.encode(raw(&sealed)) + "==";
    // The standard alphabet's two characters, where the URL-safe one has `-` and `_`.
    let plus = format!("+{}", &sealed[1..]);
    let slash = format!("/{}", &sealed[1..]);
    for bad in [
        "not base64!".to_string(),
        format!("{sealed} "),
        format!("{sealed}="),
        padded,
        plus,
        slash,
        "A".to_string(),
    ] {
        let failure = failure(&codec, &bad, &binding()).await;
        assert!(
            matches!(failure, OpenFailure::NotBase64),
            "{bad}: {failure:?}"
        );
    }
}

#[tokio::test]
async fn a_state_expires_after_its_ttl() {
    let clock = TestClock::new();
    let codec = RequestStateConfig::default()
        .key(key(SECRET))
        .clock(clock.at())
        .build("tickets")
        .unwrap();
    assert_eq!(codec.ttl(), DEFAULT_TTL);
    let early = codec.seal(&binding(), PAYLOAD).unwrap();
    let late = codec.seal(&binding(), PAYLOAD).unwrap();

    clock.advance(DEFAULT_TTL - Duration::from_millis(1));
    assert_eq!(codec.open(&early, &binding()).await.unwrap(), PAYLOAD);

    clock.advance(Duration::from_millis(1));
    assert!(matches!(
        failure(&codec, &late, &binding()).await,
        OpenFailure::Expired { ago } if ago == Duration::ZERO
    ));
    clock.advance(Duration::from_secs(60));
    assert!(matches!(
        failure(&codec, &late, &binding()).await,
        OpenFailure::Expired { ago } if ago == Duration::from_secs(60)
    ));
}

#[tokio::test]
async fn the_ttl_is_configurable() {
    let clock = TestClock::new();
    let codec = RequestStateConfig::default()
        .ttl(Duration::from_secs(30))
        .clock(clock.at())
        .build("tickets")
        .unwrap();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    clock.advance(Duration::from_secs(30));
    assert!(matches!(
        failure(&codec, &sealed, &binding()).await,
        OpenFailure::Expired { .. }
    ));
}

#[tokio::test]
async fn an_expired_state_is_not_recorded_as_spent() {
    let clock = TestClock::new();
    let guard = Arc::new(MemoryReplayGuard::new());
    let codec = RequestStateConfig::default()
        .clock(clock.at())
        .replay_guard(Arc::clone(&guard) as Arc<dyn ReplayGuard>)
        .build("tickets")
        .unwrap();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    clock.advance(DEFAULT_TTL);
    assert!(matches!(
        failure(&codec, &sealed, &binding()).await,
        OpenFailure::Expired { .. }
    ));
    assert!(guard.is_empty());
}

#[tokio::test]
async fn an_old_key_opens_and_the_new_key_seals() {
    let clock = TestClock::new();
    let before = codec_with(OTHER_SECRET, "tickets", &clock);
    let sealed_before = before.seal(&binding(), PAYLOAD).unwrap();

    let rotated = RequestStateConfig::default()
        .keys(KeyRing::new(key(SECRET)).accept(key(OTHER_SECRET)))
        .clock(clock.at())
        .build("tickets")
        .unwrap();
    assert_eq!(rotated.keys().current().id(), key(SECRET).id());
    assert_eq!(
        rotated.open(&sealed_before, &binding()).await.unwrap(),
        PAYLOAD
    );

    let sealed_after = rotated.seal(&binding(), PAYLOAD).unwrap();
    assert_eq!(&raw(&sealed_after)[KEY_ID_AT..NONCE_AT], key(SECRET).id());
    // A replica still on the old key alone refuses it; one given the new key opens it.
    assert!(matches!(
        failure(&before, &sealed_after, &binding()).await,
        OpenFailure::UnknownKey { .. }
    ));
    let after = codec_with(SECRET, "tickets", &clock);
    assert_eq!(
        after.open(&sealed_after, &binding()).await.unwrap(),
        PAYLOAD
    );
    // The old key, once dropped, opens nothing.
    let sealed_before_again = before.seal(&binding(), PAYLOAD).unwrap();
    assert!(matches!(
        failure(&after, &sealed_before_again, &binding()).await,
        OpenFailure::UnknownKey { .. }
    ));
}

#[test]
fn a_ring_holds_a_key_once() {
    let ring = KeyRing::new(key(SECRET))
        .accept(key(SECRET))
        .accept(key(OTHER_SECRET));
    assert_eq!(ring.len(), 2);
    assert!(!ring.is_empty());
}

#[tokio::test]
async fn replicas_with_one_operator_key_open_each_others_states() {
    let clock = TestClock::new();
    let shared_guard: Arc<dyn ReplayGuard> = Arc::new(MemoryReplayGuard::new());
    let replica = |secret: [u8; 32]| {
        RequestStateConfig::default()
            .key(
                StateKey::from_base64(&base64::engine::general_purpose::STANDARD.encode(secret))
                    .unwrap(),
            )
            .replay_guard(Arc::clone(&shared_guard))
            .clock(clock.at())
            .build("tickets")
            .unwrap()
    };
    let a = replica(SECRET);
    let b = replica(SECRET);
    let stranger = replica(OTHER_SECRET);
    let from_a = a.seal(&binding(), PAYLOAD).unwrap();
    let from_b = b.seal(&binding(), PAYLOAD).unwrap();
    assert!(matches!(
        failure(&stranger, &from_a, &binding()).await,
        OpenFailure::UnknownKey { .. }
    ));
    assert_eq!(b.open(&from_a, &binding()).await.unwrap(), PAYLOAD);
    assert_eq!(a.open(&from_b, &binding()).await.unwrap(), PAYLOAD);
    // With a shared guard, spent on one replica is spent on all.
    assert!(matches!(
        failure(&a, &from_a, &binding()).await,
        OpenFailure::Replayed { .. }
    ));
}

#[tokio::test]
async fn per_process_keys_refuse_each_others_states() {
    let a = RequestStateCodec::new("tickets").unwrap();
    let b = RequestStateCodec::new("tickets").unwrap();
    assert!(a.has_per_process_key());
    let sealed = a.seal(&binding(), PAYLOAD).unwrap();
    assert!(matches!(
        failure(&b, &sealed, &binding()).await,
        OpenFailure::UnknownKey { .. }
    ));
    assert!(!codec().has_per_process_key());
}

#[tokio::test]
async fn a_state_opens_once() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    assert_eq!(codec.open(&sealed, &binding()).await.unwrap(), PAYLOAD);
    let replayed = codec.open(&sealed, &binding()).await.unwrap_err();
    assert!(!replayed.is_server_fault());
    match replayed.failure() {
        OpenFailure::Replayed { id } => {
            assert_eq!(id.as_bytes(), &raw(&sealed)[NONCE_AT..HEADER_LEN])
        }
        other => panic!("{other:?}"),
    }
    // Each round's state is its own: the next round's opens.
    let next_round = codec.seal(&binding(), PAYLOAD).unwrap();
    assert!(codec.open(&next_round, &binding()).await.is_ok());
}

#[tokio::test]
async fn replicas_with_their_own_guards_each_accept_a_state_once() {
    // The documented limit of the per-process guard: a shared key without a shared guard.
    let clock = TestClock::new();
    let a = codec_with(SECRET, "tickets", &clock);
    let b = codec_with(SECRET, "tickets", &clock);
    let sealed = a.seal(&binding(), PAYLOAD).unwrap();
    assert!(a.open(&sealed, &binding()).await.is_ok());
    assert!(b.open(&sealed, &binding()).await.is_ok());
    assert!(a.open(&sealed, &binding()).await.is_err());
    assert!(b.open(&sealed, &binding()).await.is_err());
}

#[tokio::test]
async fn concurrent_opens_of_one_state_let_one_through() {
    let codec = Arc::new(codec());
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let codec = Arc::clone(&codec);
        let sealed = sealed.clone();
        tasks.push(tokio::spawn(async move {
            codec.open(&sealed, &binding()).await.is_ok()
        }));
    }
    let mut opened = 0;
    for task in tasks {
        opened += usize::from(task.await.unwrap());
    }
    assert_eq!(opened, 1);
}

#[test]
fn the_memory_guard_is_bounded_and_evicts_expired_ids() {
    let guard = MemoryReplayGuard::with_capacity(2);
    let t0 = UNIX_EPOCH + Duration::from_secs(1_000);
    let id = |n: u8| StateId::from_bytes([n; STATE_ID_LEN]);
    let ttl = Duration::from_secs(600);
    assert_eq!(guard.spend_now(id(1), t0 + ttl, t0).unwrap(), Spend::First);
    assert_eq!(
        guard.spend_now(id(1), t0 + ttl, t0).unwrap(),
        Spend::Replayed
    );
    let later = t0 + Duration::from_secs(1);
    assert_eq!(
        guard.spend_now(id(2), later + ttl, later).unwrap(),
        Spend::First
    );
    // Full of unexpired ids: refused, not grown, and nothing forgotten to make room.
    assert!(matches!(
        guard.spend_now(id(3), later + ttl, later),
        Err(GuardError::Full { capacity: 2 })
    ));
    assert_eq!(guard.len(), 2);
    assert_eq!(
        guard.spend_now(id(1), later + ttl, later).unwrap(),
        Spend::Replayed
    );
    // Once the first id expires, it is evicted and the third fits.
    let after_first = t0 + ttl;
    assert_eq!(
        guard
            .spend_now(id(3), after_first + ttl, after_first)
            .unwrap(),
        Spend::First
    );
    assert_eq!(guard.len(), 2);
    assert_eq!(
        guard.spend_now(id(2), later + ttl, after_first).unwrap(),
        Spend::Replayed
    );
    // An id already expired is not recorded.
    assert_eq!(
        guard.spend_now(id(4), after_first, after_first).unwrap(),
        Spend::First
    );
    assert_eq!(guard.len(), 2);
    assert_eq!(MemoryReplayGuard::new().capacity(), DEFAULT_REPLAY_CAPACITY);
}

#[tokio::test]
async fn a_full_guard_refuses_the_state_as_the_servers_fault() {
    let guard = Arc::new(MemoryReplayGuard::with_capacity(1));
    let codec = RequestStateConfig::default()
        .replay_guard(Arc::clone(&guard) as Arc<dyn ReplayGuard>)
        .build("tickets")
        .unwrap();
    let first = codec.seal(&binding(), PAYLOAD).unwrap();
    let second = codec.seal(&binding(), PAYLOAD).unwrap();
    assert!(codec.open(&first, &binding()).await.is_ok());
    let e = codec.open(&second, &binding()).await.unwrap_err();
    assert!(e.is_server_fault(), "{e:?}");
    assert_eq!(e.to_string(), "invalid or expired requestState");
    assert!(matches!(
        e.failure(),
        OpenFailure::Guard(GuardError::Full { capacity: 1 })
    ));
    assert_eq!(guard.len(), 1);
}

#[tokio::test]
async fn refusals_say_the_same_to_the_client_and_the_reason_to_the_log() {
    let codec = codec();
    let sealed = codec.seal(&binding(), PAYLOAD).unwrap();
    let other = binding().with_principal(Some("user:43"));
    let e = codec.open(&sealed, &other).await.unwrap_err();
    assert_eq!(e.to_string(), "invalid or expired requestState");
    let reason = e.failure().to_string();
    assert!(reason.contains("does not authenticate"), "{reason}");
    assert!(!format!("{e:?}").contains(&format!("{:?}", SECRET)));
}

#[test]
fn keys_need_32_bytes_and_never_show_their_material() {
    assert!(matches!(
        StateKey::new([0u8; 31]),
        Err(KeyError::TooShort { len: 31 })
    ));
    assert!(StateKey::new([0u8; 32]).is_ok());
    assert!(matches!(
        StateKey::from_base64("not base64!"),
        Err(KeyError::NotBase64)
    ));
    assert!(matches!(
        StateKey::from_base64("c2hvcnQ="),
        Err(KeyError::TooShort { len: 5 })
    ));
    // Both alphabets, padded or not, around whitespace: one key.
    let standard = base64::engine::general_purpose::STANDARD.encode([0xfb; 32]);
    let url_safe = URL_SAFE_NO_PAD.encode([0xfb; 32]);
    assert_ne!(standard.trim_end_matches('='), url_safe);
    let a = StateKey::from_base64(&format!(" {standard}\n")).unwrap();
    let b = StateKey::from_base64(&url_safe).unwrap();
    assert_eq!(a.id(), b.id());
    assert_eq!(a.id(), StateKey::new([0xfb; 32]).unwrap().id());
    assert_ne!(a.id(), key(SECRET).id());
    let debug = format!("{a:?}");
    assert!(debug.starts_with("StateKey { id: \""), "{debug}");
    assert!(!debug.contains("fbfb"), "{debug}");
}

#[test]
fn the_associated_data_length_prefixes_every_variable_field() {
    // So that no two bindings encode alike (a principal cannot lend bytes to the audience, a
    // method to the digest), and an absent principal differs from an empty one.
    let params = digest(&["x"]);
    let header = [1u8, 2, 3];
    let mut expected = b"claude-tools/request-state/v1 binding".to_vec();
    expected.extend_from_slice(&header);
    expected.extend_from_slice(&10u64.to_be_bytes());
    expected.extend_from_slice(b"tools/call");
    expected.extend_from_slice(&params.to_bytes());
    let mut audience = 7u64.to_be_bytes().to_vec();
    audience.extend_from_slice(b"tickets");
    let anonymous = Binding::new("tools/call", params);
    assert_eq!(
        anonymous.associated_data("tickets", &header),
        [expected.as_slice(), &[0], &audience].concat()
    );
    let mut principal = vec![1u8];
    principal.extend_from_slice(&2u64.to_be_bytes());
    principal.extend_from_slice(b"u1");
    assert_eq!(
        anonymous
            .with_principal(Some("u1"))
            .associated_data("tickets", &header),
        [expected.as_slice(), &principal, &audience].concat()
    );
}

#[test]
fn the_params_digest_is_unambiguous() {
    let parts = |p: &[&[u8]]| ParamsDigest::of(p.iter().copied());
    assert_ne!(parts(&[b"ab", b"c"]), parts(&[b"a", b"bc"]));
    assert_ne!(parts(&[b"abc"]), parts(&[b"abc", b""]));
    assert_ne!(parts(&[]), parts(&[b""]));
    assert_eq!(parts(&[b"a", b"b"]), parts(&[b"a", b"b"]));
    let bytes = parts(&[b"a"]).to_bytes();
    assert_eq!(ParamsDigest::from_bytes(bytes), ParamsDigest::from(bytes));
}

#[test]
fn the_config_refuses_what_cannot_work() {
    assert!(matches!(
        RequestStateConfig::default().ttl(Duration::ZERO).build("t"),
        Err(ConfigError::Ttl(_))
    ));
    assert!(matches!(
        RequestStateConfig::default()
            .ttl(MAX_TTL + Duration::from_secs(1))
            .build("t"),
        Err(ConfigError::Ttl(_))
    ));
    assert!(
        RequestStateConfig::default()
            .ttl(MAX_TTL)
            .build("t")
            .is_ok()
    );
    assert!(matches!(
        RequestStateConfig::default().max_len(10).build("t"),
        Err(ConfigError::MaxLen { max: 10, .. })
    ));
    let codec = RequestStateConfig::new().build("t").unwrap();
    assert_eq!((codec.ttl(), codec.audience()), (DEFAULT_TTL, "t"));
    assert!(codec.has_per_process_key());
}

#[test]
fn the_codec_and_its_futures_cross_threads() {
    // The router holds one codec per server behind an `Arc` and awaits `open` on a
    // multi-threaded runtime.
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: T) {}
    let codec = codec();
    send_sync(&codec);
    send_sync(&RequestStateConfig::default());
    send(codec.open("", &binding()));
    send(codec.open_json::<String>("", &binding()));
}
