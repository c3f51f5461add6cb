//! The one writer: every line to the CLI's stdin goes through this task, so concurrent answers
//! never interleave. Lines arrive already serialised; the task writes whatever is queued and
//! flushes once the queue is empty, so a burst of answers costs one flush.

use std::pin::Pin;

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// What the writer is asked to do.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// Write one NDJSON line (newline included).
    Line(Vec<u8>),
    /// Flush and close the CLI's stdin; later lines are dropped.
    CloseInput,
}

pub(crate) async fn write_loop(
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
    writer: Pin<Box<dyn AsyncWrite + Send>>,
) {
    let mut writer = Some(BufWriter::with_capacity(64 * 1024, writer));
    while let Some(first) = queue.recv().await {
        let mut next = Some(first);
        while let Some(item) = next {
            match item {
                Outgoing::Line(line) => {
                    if let Some(out) = writer.as_mut() {
                        if let Err(error) = out.write_all(&line).await {
                            tracing::debug!(%error, "the CLI's stdin is closed; dropping further lines");
                            writer = None;
                        }
                    } else {
                        tracing::debug!("stdin already closed; dropping a line for the CLI");
                    }
                }
                Outgoing::CloseInput => {
                    if let Some(mut out) = writer.take() {
                        let _ = out.flush().await;
                        let _ = out.shutdown().await;
                    }
                }
            }
            next = queue.try_recv().ok();
        }
        if let Some(out) = writer.as_mut()
            && let Err(error) = out.flush().await
        {
            tracing::debug!(%error, "flushing the CLI's stdin failed");
            writer = None;
        }
    }
}
