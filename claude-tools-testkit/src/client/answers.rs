//! How the test client answers the server's questions: the answers the test gave, one kind
//! each (elicitation, sampling, roots), and the capabilities they make the client announce.

use std::sync::Arc;

use claude_tools_core::ask::{
    ClientCapabilities, CreateMessageRequest, ElicitParams, SamplingContent, ServerRequestParams,
};

use super::TestClientError;
use super::wire::{self, ElicitResult, QuestionAnswer};

/// Writes a client's answer to an elicitation.
pub(super) type ElicitationHandler =
    Arc<dyn Fn(&ElicitParams) -> Result<ElicitResult, serde_json::Error> + Send + Sync>;

/// Gives the client's model's answer to a sampling request.
pub(super) type SamplingHandler =
    Arc<dyn Fn(&CreateMessageRequest) -> SampledMessage + Send + Sync>;

/// The client model's answer to a tool's `ctx.create_message` (`sampling/createMessage`), as
/// a [`TestClient::on_create_message`](super::TestClient::on_create_message) handler gives it.
///
/// ```
/// use claude_tools_testkit::SampledMessage;
///
/// let answer = SampledMessage::text("test-model", "Paris").stop_reason("endTurn");
/// # let _ = answer;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SampledMessage {
    content: SamplingContent,
    model: String,
    stop_reason: Option<String>,
}

impl SampledMessage {
    /// The model `model` answered `text`.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(model, SamplingContent::text(text))
    }

    /// The model `model` answered `content` (text, an image, audio).
    pub fn new(model: impl Into<String>, content: SamplingContent) -> Self {
        Self {
            content,
            model: model.into(),
            stop_reason: None,
        }
    }

    /// The same answer, saying why the model stopped (`endTurn`, `maxTokens`…).
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// One of the client's roots, as [`TestClient::roots`](super::TestClient::roots) lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientRoot {
    uri: String,
    name: Option<String>,
}

impl ClientRoot {
    /// The root at `uri` (a `file://` URI), without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// The same root, named `name` for people.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// What the test gave the client to answer with, by kind of question.
#[derive(Clone, Default)]
pub(super) struct Answers {
    pub(super) elicitation: Option<ElicitationHandler>,
    pub(super) sampling: Option<SamplingHandler>,
    pub(super) roots: Option<Vec<ClientRoot>>,
}

impl Answers {
    /// What the client announces it can be asked: what it has answers for.
    pub(super) fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities::NONE
            .with_elicitation(self.elicitation.is_some())
            .with_sampling(self.sampling.is_some())
            .with_roots(self.roots.is_some())
    }

    /// The answer to `question`, from what the test gave for its kind.
    pub(super) fn answer(
        &self,
        question: &ServerRequestParams,
    ) -> Result<QuestionAnswer, TestClientError> {
        let unanswered = |method| TestClientError::Unanswered { method };
        match question {
            ServerRequestParams::Elicit(params) => {
                let handler = self
                    .elicitation
                    .as_ref()
                    .ok_or(unanswered("elicitation/create"))?;
                handler(params)
                    .map(QuestionAnswer::Elicit)
                    .map_err(|error| TestClientError::NotJson {
                        what: "the answer to an elicitation",
                        error,
                    })
            }
            ServerRequestParams::CreateMessage(request) => {
                let handler = self
                    .sampling
                    .as_ref()
                    .ok_or(unanswered("sampling/createMessage"))?;
                let SampledMessage {
                    content,
                    model,
                    stop_reason,
                } = handler(request);
                Ok(QuestionAnswer::Sampled(wire::SampledResult {
                    role: "assistant",
                    content,
                    model,
                    stop_reason,
                }))
            }
            ServerRequestParams::ListRoots => {
                let roots = self.roots.as_ref().ok_or(unanswered("roots/list"))?;
                Ok(QuestionAnswer::Roots(wire::RootsResult {
                    roots: roots
                        .iter()
                        .map(|root| wire::RootEntry {
                            uri: root.uri.clone(),
                            name: root.name.clone(),
                        })
                        .collect(),
                }))
            }
            _ => Err(unanswered("a server request")),
        }
    }
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("elicitation", &self.elicitation.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("roots", &self.roots)
            .finish()
    }
}
