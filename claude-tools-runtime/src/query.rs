//! [`query`]: one prompt (or a stream of them), one stream of messages, then the CLI exits.

use std::future::poll_fn;
use std::pin::Pin;

use futures_core::Stream;

use crate::client::{open, process_transport};
use crate::error::Result;
use crate::message::UserInput;
use crate::options::{DEFAULT_RUN_END_CEILING, Options};
use crate::session::run_end::wait_for_end;
use crate::stream::MessageStream;
use crate::transport::Transport;

/// What a one-shot query sends.
pub enum Prompt {
    /// One text prompt.
    Text(String),
    /// Several user messages, sent at once.
    Messages(Vec<UserInput>),
    /// User messages produced over time; the session ends after the stream does and the last
    /// one has been answered.
    Stream(Pin<Box<dyn Stream<Item = UserInput> + Send>>),
}

impl Prompt {
    /// A prompt from a stream of user messages.
    pub fn stream(messages: impl Stream<Item = UserInput> + Send + 'static) -> Self {
        Prompt::Stream(Box::pin(messages))
    }
}

impl From<&str> for Prompt {
    fn from(text: &str) -> Self {
        Prompt::Text(text.to_string())
    }
}

impl From<String> for Prompt {
    fn from(text: String) -> Self {
        Prompt::Text(text)
    }
}

impl From<UserInput> for Prompt {
    fn from(message: UserInput) -> Self {
        Prompt::Messages(vec![message])
    }
}

impl From<Vec<UserInput>> for Prompt {
    fn from(messages: Vec<UserInput>) -> Self {
        Prompt::Messages(messages)
    }
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prompt::Text(text) => f.debug_tuple("Text").field(text).finish(),
            Prompt::Messages(messages) => f.debug_tuple("Messages").field(&messages.len()).finish(),
            Prompt::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

/// Runs one prompt and streams the CLI's messages until it exits.
///
/// The CLI's stdin is kept open while the session may still be asked something (a tool, a hook,
/// the permission callback) — until the last `result` and the CLI reporting `idle` — so a slow
/// tool never meets a closed stream. With no in-process tools, hooks or permission callback,
/// stdin is closed right after the prompt.
///
/// Fails with [`Error::ProcessExited`](crate::Error::ProcessExited) (exit code or signal, and
/// the CLI's stderr tail, e.g. "not logged in") when the CLI exits before answering
/// `initialize`. Later, a run failed when the stream yields an `Err` item (the CLI exited
/// before answering the prompt), when the `result` message has `is_error` set, or when the
/// CLI's exit status ([`MessageStream::exit_status`]) is not a success: see
/// [`MessageStream`]'s "Did the run succeed?".
///
/// ```no_run
/// use claude_tools::options::Options;
/// use claude_tools::query;
///
/// # async fn run() -> claude_tools::Result<()> {
/// let mut messages = query("Say hello", Options::new()).await?;
/// while let Some(item) = messages.next().await {
///     match item {
///         Ok(message) => println!("{message:?}"),
///         // The session is over (see `MessageStream` for the two kinds of error).
///         Err(error) if error.is_fatal() => return Err(error),
///         // One bad line from the CLI: the session goes on.
///         Err(error) => eprintln!("skipped: {error}"),
///     }
/// }
/// let exit = messages.exit_status().await;
/// if !exit.success() {
///     eprintln!("the CLI failed ({exit:?}): {}", exit.stderr_tail);
/// }
/// # Ok(())
/// # }
/// ```
pub async fn query(prompt: impl Into<Prompt>, options: Options) -> Result<MessageStream> {
    let transport = process_transport(&options);
    query_with(prompt, options, transport).await
}

/// [`query`] through any transport.
pub async fn query_with(
    prompt: impl Into<Prompt>,
    options: Options,
    transport: impl Transport + 'static,
) -> Result<MessageStream> {
    let (shared, messages, _, info) = open(&options, Box::new(transport)).await?;
    let needs_host = options.has_host_callbacks();
    let ceiling = options.run_end_ceiling.unwrap_or(DEFAULT_RUN_END_CEILING);
    let driver = shared.clone();
    let prompt = prompt.into();
    tokio::spawn(async move {
        let mut sent = 0usize;
        match prompt {
            Prompt::Text(text) => {
                sent += usize::from(
                    driver
                        .send_user(&UserInput::text(text).to_message(""))
                        .await,
                );
            }
            Prompt::Messages(list) => {
                for message in list {
                    sent += usize::from(driver.send_user(&message.to_message("")).await);
                }
            }
            Prompt::Stream(mut stream) => {
                while let Some(message) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
                    if !driver.send_user(&message.to_message("")).await {
                        break;
                    }
                    sent += 1;
                }
            }
        }
        if needs_host && sent > 0 {
            wait_for_end(driver.progress(), ceiling).await;
        }
        driver.close_input();
    });
    Ok(MessageStream::new(messages, shared, info))
}
