//! W3C Trace Context (`traceparent`, `tracestate`) to and from OpenTelemetry span contexts.
//!
//! Written here rather than taken from `opentelemetry_sdk`'s propagator: reading is a strict
//! parser of untrusted input whose every refusal has a test, and the SDK would be a dependency
//! for the few lines of it.

use std::str::FromStr;

use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};

/// The span context a `traceparent` (and `tracestate`) names, marked remote; `None` for
/// anything that is not a valid traceparent (W3C Trace Context §3.2): a version other than
/// two lowercase hex digits, version `ff`, a trace id or parent id of the wrong length, not
/// lowercase hex, or all zeros, flags that are not two hex digits, or a version-00 value with
/// anything after its flags. A later version's extra fields (after a `-`) are read past, as
/// §3.2.4 says. A `tracestate` that does not parse is dropped alone (§3.3.1.5).
///
/// ```
/// use claude_tools_core::telemetry::w3c::span_context;
///
/// let context = span_context("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", None).unwrap();
/// assert!(context.is_remote() && context.is_sampled());
/// assert!(span_context("00-00000000000000000000000000000000-00f067aa0ba902b7-01", None).is_none());
/// ```
pub fn span_context(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
    let bytes = traceparent.as_bytes();
    // version "-" trace-id "-" parent-id "-" flags: 2 + 1 + 32 + 1 + 16 + 1 + 2.
    // ASCII first: the slices below cut at fixed byte offsets, which must be char boundaries.
    if bytes.len() < 55 || !bytes[..55].is_ascii() {
        return None;
    }
    let (version, trace_id, span_id, flags) = (
        &traceparent[0..2],
        &traceparent[3..35],
        &traceparent[36..52],
        &traceparent[53..55],
    );
    if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return None;
    }
    if !is_lower_hex(version) || version == "ff" {
        return None;
    }
    // Version 00 is exactly 55 characters; a later one may go on, after a dash.
    if bytes.len() > 55 && (version == "00" || bytes[55] != b'-') {
        return None;
    }
    if !is_lower_hex(trace_id) || !is_lower_hex(span_id) || !is_lower_hex(flags) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace_id).ok()?;
    let span_id = SpanId::from_hex(span_id).ok()?;
    if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    let flags = u8::from_str_radix(flags, 16).ok()?;
    // Only the sampled bit is defined; the others are not carried on (§3.2.2.5).
    let flags = TraceFlags::new(flags) & TraceFlags::SAMPLED;
    let state = tracestate
        .and_then(|state| TraceState::from_str(state).ok())
        .unwrap_or_default();
    Some(SpanContext::new(trace_id, span_id, flags, true, state))
}

/// The `traceparent` and `tracestate` (`None` when empty) that name `context`, or `None` when
/// it is not a valid span context (no span, or a span of no trace).
///
/// ```
/// use claude_tools_core::telemetry::w3c::{headers, span_context};
///
/// let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
/// let context = span_context(parent, Some("vendor=value")).unwrap();
/// assert_eq!(headers(&context), Some((parent.to_owned(), Some("vendor=value".to_owned()))));
/// ```
pub fn headers(context: &SpanContext) -> Option<(String, Option<String>)> {
    if !context.is_valid() {
        return None;
    }
    let traceparent = format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags() & TraceFlags::SAMPLED
    );
    let state = context.trace_state().header();
    Some((traceparent, (!state.is_empty()).then_some(state)))
}

fn is_lower_hex(text: &str) -> bool {
    text.bytes()
        .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_is_read_with_its_ids_flags_and_state() {
        let context = span_context(VALID, Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")).unwrap();
        assert_eq!(
            context.trace_id(),
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
        );
        assert_eq!(
            context.span_id(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap()
        );
        assert!(context.is_sampled());
        assert!(context.is_remote());
        assert_eq!(context.trace_state().get("rojo"), Some("00f067aa0ba902b7"));
        let unsampled = VALID.replace("-01", "-00");
        assert!(!span_context(&unsampled, None).unwrap().is_sampled());
    }

    #[test]
    fn a_later_version_is_read_past_its_extra_fields() {
        let later = format!("cc{}-what-comes-next", &VALID[2..]);
        assert!(span_context(&later, None).is_some());
        let glued = format!("cc{}xyz", &VALID[2..]);
        assert!(span_context(&glued, None).is_none());
    }

    #[test]
    fn malformed_or_hostile_traceparents_are_refused() {
        let refused = [
            "",
            "00",
            &VALID[..54],
            &format!("{VALID}-"),
            &VALID.replace("00-4b", "ff-4b"),
            &VALID.replace("00-4b", "0g-4b"),
            &VALID.replace("4bf92f", "4BF92F"),
            &VALID.replace('-', "_"),
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",
            "00-4bf92f3577b34da6a3ce929d0e0e473é-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0é",
            "éé-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-+bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ];
        for traceparent in refused {
            assert!(span_context(traceparent, None).is_none(), "{traceparent:?}");
        }
    }

    #[test]
    fn a_tracestate_that_does_not_parse_is_dropped_alone() {
        let context = span_context(VALID, Some("not a tracestate,,=")).unwrap();
        assert_eq!(context.trace_state().header(), "");
    }

    #[test]
    fn undefined_flags_are_not_carried_on() {
        let context = span_context(&VALID.replace("-01", "-ff"), None).unwrap();
        assert_eq!(context.trace_flags(), TraceFlags::SAMPLED);
    }

    #[test]
    fn headers_round_trip_and_an_invalid_context_has_none() {
        let context = span_context(VALID, None).unwrap();
        assert_eq!(headers(&context), Some((VALID.to_owned(), None)));
        assert_eq!(headers(&SpanContext::empty_context()), None);
    }
}
