//! How the test client answers the server's questions: the answers the test gave, one kind
//! each (elicitation, sampling, roots), and the capabilities they make the client announce.

use std::sync::Arc;

use claude_tools_core::ask::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitParams, Root,
    ServerRequestParams,
};

use super::TestClientError;
use super::wire::{self, ElicitResult, QuestionAnswer};

/// Writes a client's answer to an elicitation.
pub(super) type ElicitationHandler =
    Arc<dyn Fn(&ElicitParams) -> Result<ElicitResult, serde_json::Error> + Send + Sync>;

/// Gives the client's model's answer to a sampling request.
pub(super) type SamplingHandler =
    Arc<dyn Fn(&CreateMessageRequest) -> CreateMessageResult + Send + Sync>;

/// What the test gave the client to answer with, by kind of question.
#[derive(Clone, Default)]
pub(super) struct Answers {
    pub(super) elicitation: Option<ElicitationHandler>,
    pub(super) sampling: Option<SamplingHandler>,
    pub(super) roots: Option<Vec<Root>>,
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
                Ok(QuestionAnswer::Sampled(handler(request)))
            }
            ServerRequestParams::ListRoots => {
                let roots = self.roots.as_ref().ok_or(unanswered("roots/list"))?;
                Ok(QuestionAnswer::Roots(wire::RootsResult {
                    roots: roots.clone(),
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
