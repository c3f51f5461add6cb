//! The codec's keys (rings, rotation, operator keys shared by replicas) and its replay guard.

use super::*;

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
