//! How one request of a [`TestClient`] travels: sent as a real client's bytes, the server's
//! own requests answered while it runs (2025-11-25), and at 2026-07-28 sent again with the
//! answers to an `input_required` result's questions.

use super::*;

impl TestClient {
    pub(super) fn lock_questions(&self) -> MutexGuard<'_, Vec<ServerRequestParams>> {
        // Pushes and clones under the lock: a poisoned one is still consistent.
        self.questions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends a request until it has a final answer: the answer and how many times it was sent.
    /// A 2025-11-25 connection is opened first; at 2026-07-28, an `input_required` answer is
    /// answered and the request sent again, up to [`MAX_ROUNDS`] times.
    pub(super) async fn request<B: Serialize>(
        &self,
        method: &'static str,
        body: &B,
        progress_token: Option<i64>,
    ) -> Result<(Answer, usize), TestClientError> {
        if self.revision == ProtocolRevision::V2025_11_25 {
            self.opened().await?;
        }
        let mut retry = None;
        for round in 1..=MAX_ROUNDS {
            match self
                .send(method, body, progress_token, retry.take())
                .await?
            {
                Answer::InputRequired(questions) => retry = Some(self.answer_round(questions)?),
                answer => return Ok((answer, round)),
            }
        }
        Err(TestClientError::TooManyRounds {
            method,
            rounds: MAX_ROUNDS,
        })
    }

    /// Sends one request and waits for its answer, answering the server's requests meanwhile.
    pub(super) async fn send<B: Serialize>(
        &self,
        method: &'static str,
        body: &B,
        progress_token: Option<i64>,
        retry: Option<Retry>,
    ) -> Result<Answer, TestClientError> {
        let (input_responses, request_state) = match retry {
            Some(Retry { answers, state }) => (Some(answers), state),
            None => (None, None),
        };
        let request = wire::OutgoingRequest {
            jsonrpc: "2.0",
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            method,
            params: Params {
                body,
                meta: self.meta(progress_token),
                input_responses,
                request_state,
            },
        };
        let bytes = serde_json::to_vec(&request).map_err(|error| TestClientError::NotJson {
            what: "a request",
            error,
        })?;
        let response = self
            .exchange(Message::decode(&bytes))
            .await
            .ok_or(TestClientError::NoAnswer { method })?;
        response
            .outcome
            .map_err(|error| TestClientError::Server { method, error })
    }

    /// `params._meta` of a request.
    pub(super) fn meta(&self, progress_token: Option<i64>) -> wire::Meta {
        let modern = (self.revision == ProtocolRevision::V2026_07_28).then(|| wire::ModernMeta {
            protocol_version: self.revision.as_str(),
            capabilities: self.capabilities().into(),
            client_info: CLIENT_INFO,
            log_level: self.log_level.unwrap_or(LoggingLevel::Debug),
        });
        wire::Meta {
            progress_token,
            modern,
        }
    }

    /// Hands `message` to the router and waits for its answer, answering the requests the
    /// server sends the client meanwhile (a running tool's questions on a 2025-11-25
    /// connection), as a client's read loop does.
    async fn exchange(&self, message: Message) -> Option<Response> {
        let answer = self.router.handle(message);
        tokio::pin!(answer);
        loop {
            tokio::select! {
                biased;
                response = &mut answer => return response,
                requests = self.inbox.next_requests() => {
                    for request in requests {
                        self.answer_request(request).await;
                    }
                }
            }
        }
    }

    /// Answers one request of the server's (2025-11-25) with the answer the test gave for its
    /// kind, or, without one, with the error a client that cannot answer it sends (`-32601`).
    async fn answer_request(&self, request: ServerRequest) {
        let method = request.method();
        self.lock_questions().push(request.params.clone());
        let outcome = match self.answers.answer(&request.params) {
            Ok(result) => serde_json::to_value(&result)
                .and_then(|result| RawParams::from_value(&result))
                .map_err(|error| {
                    ErrorObject::internal_error(format!("the answer is not JSON: {error}"))
                }),
            Err(TestClientError::NotJson { error, .. }) => Err(ErrorObject::internal_error(
                format!("the test's answer could not be written as JSON: {error}"),
            )),
            Err(_) => Err(ErrorObject::method_not_found(method)),
        };
        let response = ClientResponse {
            id: Some(request.id),
            outcome,
        };
        self.router.handle(Message::Response(response)).await;
    }

    /// The retry of a request answered `input_required` (2026-07-28): an answer to each
    /// question, and the state echoed.
    fn answer_round(&self, questions: InputRequiredResult) -> Result<Retry, TestClientError> {
        let mut answers = BTreeMap::new();
        for (key, question) in questions.input_requests {
            let answer = self.answers.answer(&question);
            self.lock_questions().push(question);
            answers.insert(key, answer?);
        }
        Ok(Retry {
            answers,
            state: questions.request_state,
        })
    }
}

/// What a retry carries.
pub(super) struct Retry {
    answers: BTreeMap<String, wire::QuestionAnswer>,
    state: Option<String>,
}
