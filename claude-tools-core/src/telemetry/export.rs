//! A collector that is down costs the spans and nothing else: [`CountingExporter`] wraps the
//! application's span exporter (OTLP, or any other) and counts the spans it failed to deliver,
//! saying so once per outage rather than once per batch.
//!
//! The agent and the server never wait for an exporter: the OpenTelemetry SDK's batch span
//! processor exports from a thread of its own and drops what its bounded queue cannot hold. What
//! the application needs is to know that spans are being lost, without a log line per failed
//! batch flooding the very logs it reads: a warning when exporting starts to fail, one line when
//! it works again (with how many spans were lost meanwhile), and a count to read at any time
//! ([`DroppedSpans`]), for a health check or a metric of its own.
//!
//! ```
//! use claude_tools_core::telemetry::CountingExporter;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//! # #[derive(Debug)]
//! # struct Otlp;
//! # impl opentelemetry_sdk::trace::SpanExporter for Otlp {
//! #     async fn export(
//! #         &self,
//! #         _: Vec<opentelemetry_sdk::trace::SpanData>,
//! #     ) -> opentelemetry_sdk::error::OTelSdkResult {
//! #         Ok(())
//! #     }
//! # }
//!
//! // In production: opentelemetry_otlp::SpanExporter::builder().with_http().build()?
//! let exporter = Otlp;
//! let (exporter, dropped) = CountingExporter::new(exporter);
//! let provider = SdkTracerProvider::builder().with_batch_exporter(exporter).build();
//! // … later, in a health check:
//! if dropped.is_failing() {
//!     eprintln!("the collector is down: {} spans lost so far", dropped.count());
//! }
//! # let _ = provider.shutdown();
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

use super::TARGET;

/// A span exporter that counts the spans `E` failed to export and logs each outage once
/// (see the [module docs](self)).
#[derive(Debug)]
pub struct CountingExporter<E> {
    inner: E,
    state: Arc<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Spans the inner exporter failed to export, since the start.
    dropped: AtomicU64,
    /// `dropped` when the current outage began; meaningful while `failing`.
    dropped_before_outage: AtomicU64,
    /// Whether the last export failed.
    failing: AtomicBool,
}

/// How many spans a [`CountingExporter`] failed to export, read at any time from any thread.
#[derive(Clone, Debug)]
pub struct DroppedSpans {
    state: Arc<State>,
}

impl DroppedSpans {
    /// The spans lost since the exporter was made.
    pub fn count(&self) -> u64 {
        self.state.dropped.load(Ordering::Relaxed)
    }

    /// Whether the last export failed (the collector is down, as far as is known).
    pub fn is_failing(&self) -> bool {
        self.state.failing.load(Ordering::Relaxed)
    }
}

impl<E: SpanExporter> CountingExporter<E> {
    /// Wraps `inner`; the [`DroppedSpans`] reads what it lost.
    pub fn new(inner: E) -> (Self, DroppedSpans) {
        let state = Arc::new(State::default());
        let dropped = DroppedSpans {
            state: state.clone(),
        };
        (Self { inner, state }, dropped)
    }
}

impl<E: SpanExporter> SpanExporter for CountingExporter<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len() as u64;
        let outcome = self.inner.export(batch).await;
        let state = &self.state;
        match &outcome {
            Ok(()) => {
                if state.failing.swap(false, Ordering::Relaxed) {
                    let lost = state.dropped.load(Ordering::Relaxed)
                        - state.dropped_before_outage.load(Ordering::Relaxed);
                    tracing::info!(
                        target: TARGET,
                        lost,
                        "exporting spans works again; {lost} spans were dropped meanwhile"
                    );
                }
            }
            Err(error) => {
                let before = state.dropped.fetch_add(spans, Ordering::Relaxed);
                if !state.failing.swap(true, Ordering::Relaxed) {
                    state.dropped_before_outage.store(before, Ordering::Relaxed);
                    tracing::warn!(
                        target: TARGET,
                        %error,
                        "exporting spans failed; they are dropped (and counted) until it works \
                         again, which will be logged once"
                    );
                }
            }
        }
        outcome
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}
