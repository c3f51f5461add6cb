//! [`query`]: one prompt (or a stream of them), one stream of messages, then the CLI exits.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_core::Stream;

use crate::client::{open, process_transport};
use crate::control::{Controls, InitializeInfo};
use crate::error::Result;
use crate::message::UserInput;
use crate::options::{DEFAULT_RUN_END_CEILING, Options};
use crate::session::run_end::wait_for_end;
use crate::session::{MessageReceiver, SessionCore};
use crate::stream::MessageStream;
use crate::transport::{ExitInfo, Transport};

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
/// The CLI's stdin is kept open until the run is over — the last `result` and the CLI reporting
/// `idle` — so a slow tool, a hook or the permission callback never meets a closed stream, and
/// the stream's controls ([`Controls::interrupt`](crate::control::Controls::interrupt), [`Controls::abort_handle`](crate::control::Controls::abort_handle)…, which [`MessageStream`] dereferences to) reach
/// the CLI whatever the options. (The official SDKs close it after a text prompt when nothing
/// of the host's can be asked, which leaves such a run without controls.)
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
    Ok(startup_with(options, transport).await?.query(prompt))
}

/// Starts the CLI and finishes the handshake before the prompt is known, so the first answer
/// does not wait for the CLI to start: the process, its tools, MCP servers and the
/// `initialize` exchange are done by the time [`WarmQuery::query`] sends the prompt. Then
/// everything is as with [`query`].
///
/// Fails as [`query`] does when the CLI cannot start or answer `initialize`.
///
/// ```no_run
/// use claude_tools::options::Options;
///
/// # async fn run() -> claude_tools::Result<()> {
/// // At application start, before anyone has typed anything:
/// let warm = claude_tools::startup(Options::new().max_turns(3)).await?;
/// // …later, when the prompt is known:
/// let messages = warm.query("What is 2 + 2?").collect().await?;
/// # let _ = messages;
/// # Ok(())
/// # }
/// ```
pub async fn startup(options: Options) -> Result<WarmQuery> {
    let transport = process_transport(&options);
    startup_with(options, transport).await
}

/// [`startup`] through any transport.
pub async fn startup_with(
    options: Options,
    transport: impl Transport + 'static,
) -> Result<WarmQuery> {
    let (shared, messages, _, info, controls) = open(&options, Box::new(transport)).await?;
    Ok(WarmQuery::from_parts(
        shared,
        messages,
        info,
        controls,
        options.run_end_ceiling.unwrap_or(DEFAULT_RUN_END_CEILING),
    ))
}

/// A CLI started and initialized by [`startup`], waiting for its one prompt. Dropping it (or
/// [`WarmQuery::close`]) ends the CLI without a prompt.
pub struct WarmQuery {
    session: Option<(Arc<SessionCore>, MessageReceiver, InitializeInfo, Controls)>,
    ceiling: Duration,
}

impl WarmQuery {
    /// A started session waiting for its prompt (a claimed spare's, for one).
    pub(crate) fn from_parts(
        shared: Arc<SessionCore>,
        messages: MessageReceiver,
        info: InitializeInfo,
        controls: Controls,
        ceiling: Duration,
    ) -> Self {
        WarmQuery {
            session: Some((shared, messages, info, controls)),
            ceiling,
        }
    }

    /// The CLI's answer to `initialize`, typed.
    pub fn initialize_info(&self) -> Option<&InitializeInfo> {
        self.session.as_ref().map(|(_, _, info, _)| info)
    }

    /// Sends the prompt and streams the CLI's messages until it exits, as [`query`] does.
    pub fn query(mut self, prompt: impl Into<Prompt>) -> MessageStream {
        let (shared, messages, info, controls) = self
            .session
            .take()
            .expect("a WarmQuery holds its session until query or drop");
        let driver = shared.clone();
        let ceiling = self.ceiling;
        let prompt = prompt.into();
        tokio::spawn(async move {
            let sent = send_prompt(&driver, prompt).await;
            if sent > 0 {
                wait_for_end(driver.progress(), ceiling).await;
            }
            driver.close_input();
        });
        MessageStream::new(messages, shared, controls, info)
    }

    /// Ends the CLI without sending a prompt: its stdin is closed, and this waits for it to
    /// exit.
    pub async fn close(mut self) -> ExitInfo {
        match self.session.take() {
            Some((shared, _, _, _)) => {
                shared.close_input();
                shared.wait_exit().await
            }
            None => ExitInfo::default(),
        }
    }
}

impl Drop for WarmQuery {
    fn drop(&mut self) {
        if let Some((shared, _, _, _)) = &self.session {
            shared.shutdown();
        }
    }
}

impl std::fmt::Debug for WarmQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmQuery").finish_non_exhaustive()
    }
}

/// Sends the prompt's messages; how many the CLI was sent.
async fn send_prompt(driver: &SessionCore, prompt: Prompt) -> usize {
    let mut sent = 0usize;
    match prompt {
        Prompt::Text(text) => {
            sent += usize::from(driver.send_user(&UserInput::text(text), "").await);
        }
        Prompt::Messages(list) => {
            for message in list {
                sent += usize::from(driver.send_user(&message, "").await);
            }
        }
        Prompt::Stream(mut stream) => {
            while let Some(message) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
                if !driver.send_user(&message, "").await {
                    break;
                }
                sent += 1;
            }
        }
    }
    sent
}
