//! The codec's behaviours, each refused case by name: sealing, binding, tampering, size and
//! expiry here; keys, replicas and replay in [`keys_and_replay`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::wire::{HEADER_LEN, KEY_ID_AT, MIN_SEALED_BYTES, NONCE_AT, TAG_LEN};
use super::*;

mod keys_and_replay;

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
