//! The guidelines search example's tools: retrieval over a small bundled corpus.
//!
//! Five short engineering guidelines (`examples/guidelines/*.md`) are compiled into the binary
//! with `include_str!` and indexed in memory at start-up ([`Guidelines::bundled`]): each
//! document's words are counted once, and a query is ranked with BM25, the classic
//! term-frequency / inverse-document-frequency score of search engines. No files are read at
//! run time, no embedding model is needed.
//!
//! | tool (as the model sees it) | returns |
//! |---|---|
//! | `mcp__guidelines__search_guidelines` | the best-matching documents, each with its id, title, score and best sentence |
//! | `mcp__guidelines__get_guideline` | one document's full text, or an error naming the known ids |
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::guidelines::{Guidelines, GuidelinesServer};
//!
//! # tokio_test_block_on(async {
//! let server = GuidelinesServer::server().with_state(Guidelines::bundled());
//! let found = server
//!     .call("search_guidelines", serde_json::json!({"query": "rotate a leaked key", "limit": 1}), ToolContext::new())
//!     .await;
//! assert!(found.text_content().starts_with("1. secrets: Handling secrets"));
//! # });
//! # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```

use std::collections::HashMap;

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::run::Example;

/// The bundled corpus: `(id, markdown)`; the first line of each is `# <title>`.
const CORPUS: [(&str, &str); 5] = [
    ("api-design", include_str!("../guidelines/api-design.md")),
    ("code-review", include_str!("../guidelines/code-review.md")),
    ("incidents", include_str!("../guidelines/incidents.md")),
    ("releases", include_str!("../guidelines/releases.md")),
    ("secrets", include_str!("../guidelines/secrets.md")),
];

/// How many hits `search_guidelines` returns when the model gives no `limit`.
pub const DEFAULT_LIMIT: u32 = 3;

/// BM25's term-frequency saturation: how quickly repeating a word stops adding to the score.
const K1: f64 = 1.2;
/// BM25's length normalisation: 0 ignores document length, 1 divides by it fully.
const B: f64 = 0.75;

/// Words too common to say anything about a document.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "if", "in", "is", "it", "its", "may", "not", "of", "on", "or", "our", "say", "so", "that",
    "the", "their", "then", "there", "they", "this", "to", "up", "was", "we", "what", "when",
    "which", "who", "with", "you", "your",
];

/// The server: the model sees its tools as `mcp__guidelines__<tool>`.
#[tool_server(
    name = "guidelines",
    version = "1.0.0",
    instructions = "The team's engineering guidelines: search them, then read a whole document by id."
)]
pub struct GuidelinesServer;

/// One indexed document.
#[derive(Debug)]
struct Document {
    id: &'static str,
    title: String,
    text: &'static str,
    /// How often each (normalised) term occurs.
    term_counts: HashMap<String, u32>,
    /// How many terms the document has.
    length: u32,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The document's id (what `get_guideline` takes).
    pub id: &'static str,
    /// Its title.
    pub title: String,
    /// Its BM25 score for the query (higher is better).
    pub score: f64,
    /// The sentence of the document that shares the most terms with the query.
    pub best_sentence: String,
}

/// The in-memory index the tools share (the example's state).
#[derive(Debug)]
pub struct Guidelines {
    documents: Vec<Document>,
    /// In how many documents each term occurs.
    document_frequency: HashMap<String, u32>,
    average_length: f64,
}

impl Guidelines {
    /// Indexes the bundled corpus.
    pub fn bundled() -> Guidelines {
        Guidelines::index(CORPUS)
    }

    /// Indexes `(id, markdown)` documents; a document's title is its first line without `# `.
    pub fn index(corpus: impl IntoIterator<Item = (&'static str, &'static str)>) -> Guidelines {
        let documents: Vec<Document> = corpus
            .into_iter()
            .map(|(id, text)| {
                let title = text.lines().next().unwrap_or(id);
                let mut term_counts = HashMap::new();
                let mut length = 0;
                for term in terms(text) {
                    *term_counts.entry(term).or_insert(0) += 1;
                    length += 1;
                }
                Document {
                    id,
                    title: title.trim_start_matches('#').trim().to_string(),
                    text,
                    term_counts,
                    length,
                }
            })
            .collect();
        let mut document_frequency = HashMap::new();
        for document in &documents {
            for term in document.term_counts.keys() {
                *document_frequency.entry(term.clone()).or_insert(0) += 1;
            }
        }
        let total: u32 = documents.iter().map(|d| d.length).sum();
        let average_length = f64::from(total) / documents.len().max(1) as f64;
        Guidelines {
            documents,
            document_frequency,
            average_length,
        }
    }

    /// The ids of the indexed documents, sorted.
    pub fn ids(&self) -> Vec<&'static str> {
        let mut ids: Vec<_> = self.documents.iter().map(|d| d.id).collect();
        ids.sort_unstable();
        ids
    }

    /// A document's full text (without the file's final newline).
    pub fn get(&self, id: &str) -> Option<&'static str> {
        self.documents
            .iter()
            .find(|d| d.id == id)
            .map(|d| d.text.trim_end())
    }

    /// The `limit` best documents for `query`, best first; documents sharing no term with the
    /// query are left out (ties keep corpus order).
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let query_terms: Vec<String> = unique(terms(query));
        let mut scored: Vec<(f64, &Document)> = self
            .documents
            .iter()
            .map(|document| (self.score(document, &query_terms), document))
            .filter(|(score, _)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored
            .into_iter()
            .take(limit)
            .map(|(score, document)| Hit {
                id: document.id,
                title: document.title.clone(),
                score,
                best_sentence: best_sentence(document.text, &query_terms),
            })
            .collect()
    }

    /// BM25 of one document for a query's (distinct) terms.
    fn score(&self, document: &Document, query_terms: &[String]) -> f64 {
        let documents = self.documents.len() as f64;
        query_terms
            .iter()
            .map(|term| {
                let count = f64::from(document.term_counts.get(term).copied().unwrap_or(0));
                if count == 0.0 {
                    return 0.0;
                }
                let frequency = f64::from(self.document_frequency.get(term).copied().unwrap_or(0));
                let idf = (1.0 + (documents - frequency + 0.5) / (frequency + 0.5)).ln();
                let length_ratio = f64::from(document.length) / self.average_length;
                idf * count * (K1 + 1.0) / (count + K1 * (1.0 - B + B * length_ratio))
            })
            .sum()
    }
}

/// The normalised terms of a text: lower-cased alphanumeric words, stop words dropped, a
/// plural `s` folded away (`secrets` finds `secret`), so that query and documents meet.
fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOP_WORDS.contains(&word.as_str()))
        .map(|word| match word.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => word,
        })
}

fn unique(terms: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = Vec::new();
    for term in terms {
        if !seen.contains(&term) {
            seen.push(term);
        }
    }
    seen
}

/// The sentence (of the body, title excluded) sharing the most distinct terms with the query,
/// whitespace collapsed; the first one wins a tie.
fn best_sentence(text: &str, query_terms: &[String]) -> String {
    let body = text.split_once('\n').map_or(text, |(_, body)| body);
    let mut best = (0, String::new());
    for paragraph in body.split("\n\n") {
        let paragraph = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        for sentence in sentences(&paragraph) {
            let shared = unique(terms(sentence))
                .iter()
                .filter(|term| query_terms.contains(term))
                .count();
            if shared > best.0 {
                best = (shared, sentence.to_string());
            }
        }
    }
    best.1
}

/// Splits a paragraph after each `.`, `!` or `?` that ends a word.
fn sentences(paragraph: &str) -> impl Iterator<Item = &str> {
    let mut rest = paragraph;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .match_indices(['.', '!', '?'])
            .map(|(at, _)| at + 1)
            .find(|&after| rest[after..].is_empty() || rest[after..].starts_with(' '))
            .unwrap_or(rest.len());
        let (sentence, tail) = rest.split_at(end);
        rest = tail.trim_start();
        Some(sentence.trim())
    })
}

/// Search the engineering guidelines. Returns the best-matching documents, best first, each
/// with its id (for `get_guideline`), title, relevance score and the sentence that matches best.
#[tool(server = GuidelinesServer, read_only)]
async fn search_guidelines(
    index: State<Guidelines>,
    /// What to look for, in a few words, e.g. `rotate a leaked key`
    query: String,
    /// How many documents to return (1 to 5, default 3)
    limit: Option<u32>,
) -> Result<String, ToolError> {
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=5).contains(&limit) {
        return Err(ToolError::new(format!(
            "limit must be between 1 and 5, not {limit}"
        )));
    }
    let hits = index.search(&query, limit as usize);
    if hits.is_empty() {
        return Ok(format!(
            "No guideline matches `{query}`. Known documents: {}",
            index.ids().join(", ")
        ));
    }
    Ok(hits
        .iter()
        .enumerate()
        .map(|(rank, hit)| {
            format!(
                "{}. {}: {} (score {:.2}): \"{}\"",
                rank + 1,
                hit.id,
                hit.title,
                hit.score,
                hit.best_sentence
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Read one guideline in full.
#[tool(server = GuidelinesServer, read_only)]
async fn get_guideline(
    index: State<Guidelines>,
    /// The document's id, as `search_guidelines` gives it, e.g. `secrets`
    id: String,
) -> Result<String, ToolError> {
    index.get(&id).map(str::to_string).ok_or_else(|| {
        ToolError::new(format!(
            "no guideline `{id}`; known ids: {}",
            index.ids().join(", ")
        ))
    })
}

/// The tools the example allows (both read-only).
pub const TOOLS: [&str; 2] = [
    "mcp__guidelines__search_guidelines",
    "mcp__guidelines__get_guideline",
];

/// The example's prompt.
pub const PROMPT: &str = "A customer's API token showed up in our application logs, and we \
want to roll back yesterday's release. What do our guidelines say we should do?";

/// The tool_use ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 3] = [
    "toolu_guidelines_search_token",
    "toolu_guidelines_search_rollback",
    "toolu_guidelines_get_releases",
];

/// The scripted model: two searches in two turns, the release guideline read in full, then an
/// answer quoting both searches.
pub fn script() -> Script {
    let [search_token, search_rollback, get_releases] = TOOL_USE_IDS;
    Script::new()
        .turn(
            Turn::text("First, what the guidelines say about a token in the logs.").and_tool_use(
                search_token,
                "mcp__guidelines__search_guidelines",
                json!({"query": "token leaked in logs", "limit": 2}),
            ),
        )
        .turn(Turn::text("Now rolling back a release.").and_tool_use(
            search_rollback,
            "mcp__guidelines__search_guidelines",
            json!({"query": "roll back a release"}),
        ))
        .turn(
            Turn::text("The release guideline looks relevant; reading it in full.").and_tool_use(
                get_releases,
                "mcp__guidelines__get_guideline",
                json!({"id": "releases"}),
            ),
        )
        .turn(Turn::text(format!(
            "Here is what the guidelines say.\n\n\
             About the token in the logs:\n{{{{tool_result:{search_token}}}}}\n\n\
             About the rollback:\n{{{{tool_result:{search_rollback}}}}}\n\n\
             In short: rotate the token first, then roll back; releases must be reversible."
        )))
}

/// The example's server with its index.
pub fn server() -> ToolServer {
    GuidelinesServer::server().with_state(Guidelines::bundled())
}

/// The example as its `main` runs it: the server with the bundled index, both tools allowed.
pub fn example() -> Example {
    Example::new("guidelines", PROMPT, script())
        .system_prompt(
            "You answer questions about the team's engineering guidelines. Search them with \
             the guidelines tools (several searches if the question has several parts), read a \
             whole guideline when a hit looks relevant, and quote what you found.",
        )
        .note(format!(
            "corpus: {} bundled guidelines, indexed in memory (BM25)",
            CORPUS.len()
        ))
        .server(server())
        .allowed_tools(TOOLS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_lowercased_stopped_and_plural_folded() {
        let got: Vec<String> = terms("The Secrets of our API-keys, and a class").collect();
        assert_eq!(got, ["secret", "api", "key", "class"]);
    }

    #[test]
    fn sentences_split_at_the_end_of_words_only() {
        let got: Vec<&str> =
            sentences("Use /v1/ paths. Timestamps are RFC 3339 in UTC. Ok? Yes").collect();
        assert_eq!(
            got,
            [
                "Use /v1/ paths.",
                "Timestamps are RFC 3339 in UTC.",
                "Ok?",
                "Yes"
            ]
        );
    }

    #[test]
    fn search_ranks_the_document_about_the_query_first() {
        let index = Guidelines::bundled();
        let ids = |query: &str| -> Vec<&str> {
            index.search(query, 5).iter().map(|hit| hit.id).collect()
        };
        assert_eq!(ids("rotate a leaked key")[0], "secrets");
        assert_eq!(ids("roll back a release")[0], "releases");
        assert_eq!(ids("pull request reviewer")[0], "code-review");
        assert_eq!(ids("postmortem timeline")[0], "incidents");
        assert_eq!(ids("pagination cursor")[0], "api-design");
        assert_eq!(ids("xylophone"), Vec::<&str>::new());
    }

    #[test]
    fn the_best_sentence_shares_the_most_query_terms() {
        let hits = Guidelines::bundled().search("rotate a leaked secret", 1);
        assert_eq!(
            hits[0].best_sentence,
            "If a secret was committed or logged, rotate it at once: revoke the old value, \
             issue a new one, then clean up the history."
        );
    }

    #[tokio::test]
    async fn the_tools_answer_in_process() {
        let server = server();
        let call = |tool: &'static str, arguments: serde_json::Value| {
            let server = server.clone();
            async move {
                server
                    .call(tool, arguments, ToolContext::new())
                    .await
                    .to_json()
            }
        };
        let found = call(
            "search_guidelines",
            json!({"query": "token leaked in logs", "limit": 2}),
        )
        .await;
        assert_eq!(found["isError"], false);
        assert_eq!(
            found["content"][0]["text"],
            "1. secrets: Handling secrets (score 5.38): \"Log the name of the credential, not its \
             value; redact tokens and card numbers before a request or response body is written \
             to a log.\"\n\
             2. incidents: Incident response (score 0.85): \"Anyone may declare an incident: \
             customers cannot log in, data looks wrong, or an alert fires that nobody understands.\""
        );
        let missing = call("get_guideline", json!({"id": "holidays"})).await;
        assert_eq!(
            missing,
            json!({"content": [{"type": "text", "text": "no guideline `holidays`; known ids: api-design, code-review, incidents, releases, secrets"}], "isError": true})
        );
        let bad_limit = call("search_guidelines", json!({"query": "x", "limit": 9})).await;
        assert_eq!(
            bad_limit["content"][0]["text"],
            "limit must be between 1 and 5, not 9"
        );
        let full = call("get_guideline", json!({"id": "releases"})).await;
        assert_eq!(
            full["content"][0]["text"],
            include_str!("../guidelines/releases.md").trim_end()
        );
    }
}
