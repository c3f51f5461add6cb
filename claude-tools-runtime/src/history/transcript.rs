//! Reading a transcript: its lines (whole ones only, a malformed one skipped), the conversation
//! they link up to (`parentUuid`), and the typed [`Message`] each visible line becomes.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::message::Message;

/// The line types that are links of the conversation (each has a `uuid` and a `parentUuid`).
const LINKED_TYPES: [&str; 5] = ["user", "assistant", "progress", "system", "attachment"];

/// One line of a transcript, as JSON.
pub(crate) type Entry = Map<String, Value>;

/// The JSON objects of a transcript's lines, in order. A line a running session has not
/// finished writing (the end of the file, with no newline after it) is left out unless it is
/// already whole JSON; a line that is not a JSON object is skipped.
pub(crate) fn lines(content: &[u8]) -> impl Iterator<Item = Entry> + '_ {
    content.split(|b| *b == b'\n').filter_map(|line| {
        let line = line.trim_ascii();
        if line.is_empty() {
            return None;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(entry)) => Some(entry),
            Ok(_) => None,
            Err(error) => {
                tracing::debug!(%error, "skipping a transcript line that is not JSON");
                None
            }
        }
    })
}

/// The lines that are links of the conversation.
pub(crate) fn linked(content: &[u8]) -> Vec<Entry> {
    lines(content)
        .filter(|entry| {
            str_field(entry, "type").is_some_and(|t| LINKED_TYPES.contains(&t))
                && str_field(entry, "uuid").is_some()
        })
        .collect()
}

pub(crate) fn str_field<'e>(entry: &'e Entry, key: &str) -> Option<&'e str> {
    entry.get(key).and_then(Value::as_str)
}

/// A field that is set: not absent, `null`, `false`, `0` or `""` (as JavaScript tests it).
pub(crate) fn is_set(entry: &Entry, key: &str) -> bool {
    match entry.get(key) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(_) => true,
    }
}

fn kind(entry: &Entry) -> &str {
    str_field(entry, "type").unwrap_or_default()
}

fn uuid(entry: &Entry) -> &str {
    str_field(entry, "uuid").unwrap_or_default()
}

fn parent(entry: &Entry) -> Option<&str> {
    str_field(entry, "parentUuid").filter(|p| !p.is_empty())
}

fn is_message(entry: &Entry) -> bool {
    matches!(kind(entry), "user" | "assistant")
}

/// The conversation's lines, linked by `uuid`: the latest uuid's line wins, positions are
/// the file's.
struct Links<'e> {
    entries: &'e [Entry],
    /// uuid → index of the line (the last line with that uuid).
    by_uuid: HashMap<&'e str, usize>,
}

impl<'e> Links<'e> {
    fn new(entries: &'e [Entry]) -> Self {
        let by_uuid = entries
            .iter()
            .enumerate()
            .map(|(i, entry)| (uuid(entry), i))
            .collect();
        Links { entries, by_uuid }
    }

    fn parent_of(&self, i: usize) -> Option<usize> {
        parent(&self.entries[i]).and_then(|p| self.by_uuid.get(p).copied())
    }

    /// From `leaf` back to the root, then turned around: the chain, oldest first.
    fn chain_to(&self, leaf: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut seen = HashSet::new();
        let mut at = Some(leaf);
        while let Some(i) = at {
            if !seen.insert(i) {
                break;
            }
            chain.push(i);
            at = self.parent_of(i);
        }
        chain.reverse();
        chain
    }
}

/// The main conversation of a session transcript, oldest first: from the latest message that
/// ends a branch of the main thread (not a subagent's, a team member's, or meta) back to the
/// root, with the tool calls and results of parallel tool use that the branch skipped put back.
pub(crate) fn conversation(entries: &[Entry]) -> Vec<usize> {
    let links = Links::new(entries);
    let parents: HashSet<&str> = entries.iter().filter_map(parent).collect();
    // From each line nothing follows, back to the nearest user or assistant message.
    let mut leaves = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if parents.contains(uuid(entry)) || links.by_uuid.get(uuid(entry)) != Some(&i) {
            continue;
        }
        let mut seen = HashSet::new();
        let mut at = Some(i);
        while let Some(j) = at {
            if !seen.insert(j) {
                break;
            }
            if is_message(&entries[j]) {
                leaves.push(j);
                break;
            }
            at = links.parent_of(j);
        }
    }
    let main = |i: &&usize| {
        let e = &entries[**i];
        !is_set(e, "isSidechain") && !is_set(e, "teamName") && !is_set(e, "isMeta")
    };
    let leaf = leaves
        .iter()
        .filter(main)
        .max()
        .or_else(|| leaves.iter().max());
    let Some(&leaf) = leaf else {
        return Vec::new();
    };
    let chain = links.chain_to(leaf);
    put_back_parallel_tool_use(&links, chain)
}

/// A subagent's conversation, oldest first: from its last message back to the root (a
/// subagent's transcript does not branch).
pub(crate) fn subagent_conversation(entries: &[Entry]) -> Vec<usize> {
    let links = Links::new(entries);
    match entries.iter().rposition(is_message) {
        Some(leaf) => links.chain_to(leaf),
        None => Vec::new(),
    }
}

/// The API message id of an assistant line.
fn response_id(entry: &Entry) -> Option<&str> {
    if kind(entry) != "assistant" {
        return None;
    }
    entry
        .get("message")?
        .get("id")?
        .as_str()
        .filter(|id| !id.is_empty())
}

/// The `field` of each `block_type` content block of a line's message.
fn block_ids<'e>(entry: &'e Entry, block_type: &str, field: &str) -> Vec<&'e str> {
    let blocks = entry
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(block_type))
        .filter_map(|b| b.get(field).and_then(Value::as_str))
        .collect()
}

fn is_tool_result(entry: &Entry) -> bool {
    kind(entry) == "user"
        && parent(entry).is_some()
        && !block_ids(entry, "tool_result", "tool_use_id").is_empty()
}

/// Whether two lines were written by the same agent (the main thread, or one subagent).
fn same_writer(a: &Entry, b: &Entry) -> bool {
    is_set(a, "isSidechain") == is_set(b, "isSidechain") && a.get("agentId") == b.get("agentId")
}

/// Puts back what a turn with parallel tool calls leaves off the chain.
///
/// The CLI writes one assistant line per content block: N parallel calls are N assistant
/// lines of one response, chained one after another, and each result's parent is its own
/// call's line. The conversation goes on from one result only, so the chain walked back from
/// the end holds that result and skips the other calls and results. For each response on the
/// chain, its lines and results the chain skipped are inserted after its last line on the
/// chain (calls first, then results, each in timestamp order).
fn put_back_parallel_tool_use(links: &Links<'_>, chain: Vec<usize>) -> Vec<usize> {
    let entries = links.entries;
    let mut on_chain: HashSet<usize> = chain.iter().copied().collect();
    // The last line on the chain of each response.
    let mut anchors: HashMap<&str, usize> = HashMap::new();
    for &i in &chain {
        if let Some(id) = response_id(&entries[i]) {
            anchors.insert(id, i);
        }
    }
    if anchors.is_empty() {
        return chain;
    }
    // The lines of each response, and the line of each call (`None`: claimed by two responses).
    let mut lines_of: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut call_line: HashMap<&str, Option<usize>> = HashMap::new();
    let mut results = Vec::new();
    let mut unique: Vec<usize> = links.by_uuid.values().copied().collect();
    unique.sort_unstable();
    for &i in &unique {
        let entry = &entries[i];
        if let Some(id) = response_id(entry) {
            lines_of.entry(id).or_default().push(i);
            for call in block_ids(entry, "tool_use", "id") {
                let owner = call_line.entry(call).or_insert(Some(i));
                if owner.is_some_and(|o| o != i && response_id(&entries[o]) != Some(id)) {
                    *owner = None;
                } else if owner.is_some() {
                    *owner = Some(i);
                }
            }
        } else if is_tool_result(entry) {
            results.push(i);
        }
    }
    // The results that may belong to each assistant line: by parent, by the line the CLI
    // says made the call, by the calls they answer (the last two from the same writer only).
    let mut results_of: HashMap<usize, Vec<usize>> = HashMap::new();
    for &r in &results {
        let result = &entries[r];
        let mut owners: Vec<usize> = links.parent_of(r).into_iter().collect();
        if let Some(source) = str_field(result, "sourceToolAssistantUUID")
            .and_then(|s| links.by_uuid.get(s).copied())
            .filter(|s| same_writer(result, &entries[*s]))
        {
            owners.push(source);
        }
        for call in block_ids(result, "tool_result", "tool_use_id") {
            if let Some(Some(owner)) = call_line.get(call)
                && same_writer(result, &entries[*owner])
            {
                owners.push(*owner);
            }
        }
        for owner in owners {
            results_of.entry(owner).or_default().push(r);
        }
    }
    let answered_on_chain: HashSet<&str> = chain
        .iter()
        .flat_map(|&i| block_ids(&entries[i], "tool_result", "tool_use_id"))
        .collect();
    let timestamp = |i: &usize| str_field(&entries[*i], "timestamp").unwrap_or_default();
    let mut inserts: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut done: HashSet<&str> = HashSet::new();
    for &i in &chain {
        let Some(id) = response_id(&entries[i]) else {
            continue;
        };
        if !done.insert(id) {
            continue;
        }
        let group = lines_of.get(id).cloned().unwrap_or_else(|| vec![i]);
        let mut calls: Vec<usize> = group
            .iter()
            .copied()
            .filter(|m| !on_chain.contains(m))
            .collect();
        let mut answers = Vec::new();
        let mut strays = Vec::new();
        let mut collected = HashSet::new();
        for member in &group {
            for &r in results_of.get(member).into_iter().flatten() {
                if on_chain.contains(&r) || !collected.insert(r) {
                    continue;
                }
                if links.parent_of(r).is_some_and(|p| group.contains(&p)) {
                    answers.push(r);
                } else {
                    strays.push(r);
                }
            }
        }
        // A result whose parent is elsewhere is put back only if it answers a call of this
        // response that nothing else answers.
        if !strays.is_empty() {
            let mut answered = answered_on_chain.clone();
            answered.extend(
                answers
                    .iter()
                    .flat_map(|&r| block_ids(&entries[r], "tool_result", "tool_use_id")),
            );
            strays.sort_unstable();
            for r in strays {
                let ids = block_ids(&entries[r], "tool_result", "tool_use_id");
                let open = ids.iter().any(|call| {
                    !answered.contains(call)
                        && matches!(call_line.get(call), Some(Some(o)) if group.contains(o))
                });
                if open {
                    answered.extend(ids);
                    answers.push(r);
                }
            }
        }
        if calls.is_empty() && answers.is_empty() {
            continue;
        }
        calls.sort_by_key(|c| timestamp(c));
        answers.sort_by_key(|r| timestamp(r));
        calls.extend(answers);
        on_chain.extend(calls.iter().copied());
        if let Some(&anchor) = anchors.get(id) {
            inserts.insert(anchor, calls);
        }
    }
    if inserts.is_empty() {
        return chain;
    }
    let mut whole = Vec::with_capacity(chain.len() + inserts.values().map(Vec::len).sum::<usize>());
    for i in chain {
        whole.push(i);
        whole.extend(inserts.remove(&i).into_iter().flatten());
    }
    whole
}

/// Whether a line of the main conversation is shown: a user or assistant message (or, with
/// `system`, a system line) of the main thread, not meta (a compaction summary is shown: it is
/// all that is left of what it summarizes).
pub(crate) fn is_visible(entry: &Entry, system: bool) -> bool {
    (is_message(entry) || (system && kind(entry) == "system"))
        && !is_set(entry, "isMeta")
        && !is_set(entry, "isSidechain")
        && !is_set(entry, "teamName")
}

/// A transcript line as the live stream would give it: `sessionId` and `toolUseResult` under
/// the stream's names (`session_id`, `tool_use_result`), `parent_tool_use_id` set (the
/// subagent's Agent call, for a subagent's message), `parent_agent_id` added for a nested
/// subagent's; every other field of the line (`parentUuid`, `timestamp`, `cwd`, `gitBranch`…)
/// kept in the message's `extra`.
pub(crate) fn to_message(
    mut entry: Entry,
    parent_tool_use_id: Option<&str>,
    parent_agent_id: Option<&str>,
) -> Message {
    let mut rename = |from: &str, to: &str| {
        if let Some(value) = entry.shift_remove(from) {
            entry.insert(to.to_string(), value);
        }
    };
    rename("sessionId", "session_id");
    rename("toolUseResult", "tool_use_result");
    entry.insert(
        "parent_tool_use_id".into(),
        parent_tool_use_id.map_or(Value::Null, Value::from),
    );
    if let Some(agent) = parent_agent_id {
        entry.insert("parent_agent_id".into(), Value::from(agent));
    }
    Message::from_value(Value::Object(entry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(uuid: &str, parent: Option<&str>, kind: &str, extra: Value) -> String {
        let mut entry = json!({"type": kind, "uuid": uuid, "parentUuid": parent,
                               "message": {"role": kind, "content": uuid}});
        if let (Value::Object(entry), Value::Object(extra)) = (&mut entry, extra) {
            entry.extend(extra);
        }
        entry.to_string()
    }

    /// The uuids of the main conversation's visible lines, or of a subagent's conversation.
    fn uuids(content: &str, subagent: bool) -> Vec<String> {
        let entries = linked(content.as_bytes());
        let picked = if subagent {
            subagent_conversation(&entries)
        } else {
            conversation(&entries)
        };
        picked
            .into_iter()
            .filter(|&i| subagent || is_visible(&entries[i], false))
            .map(|i| uuid(&entries[i]).to_string())
            .collect()
    }

    #[test]
    fn the_latest_branch_of_the_main_thread_is_the_conversation() {
        let content = [
            line("u1", None, "user", json!({})),
            line("a1", Some("u1"), "assistant", json!({})),
            // The user rewound to u1 and asked again: a1 is a dead branch.
            line("a2", Some("u1"), "assistant", json!({})),
            line("p1", Some("a2"), "progress", json!({})),
            line("u2", Some("p1"), "user", json!({})),
            // Later, a subagent's line, a meta line and a team member's, each ending a branch
            // of its own: not the main thread's.
            line("s1", Some("a2"), "user", json!({"isSidechain": true})),
            line("m1", Some("u1"), "user", json!({"isMeta": true})),
            line("t1", Some("a2"), "assistant", json!({"teamName": "blue"})),
            "not json".to_string(),
            line("x1", None, "summary", json!({})),
        ]
        .join("\n");
        assert_eq!(uuids(&content, false), ["u1", "a2", "u2"]);
    }

    #[test]
    fn a_cycle_ends_the_walk() {
        let content = [
            line("u1", Some("a1"), "user", json!({})),
            line("a1", Some("u1"), "assistant", json!({})),
            line("u2", Some("a1"), "user", json!({})),
        ]
        .join("\n");
        assert_eq!(uuids(&content, false), ["u1", "a1", "u2"]);
        assert_eq!(uuids(&content, true), ["u1", "a1", "u2"]);
    }

    #[test]
    fn a_result_answering_a_call_from_elsewhere_is_put_back_once() {
        let call = |uuid: &str, parent: &str, id: &str| {
            let content = json!([{"type": "tool_use", "id": id, "name": "t", "input": {}}]);
            json!({"type": "assistant", "uuid": uuid, "parentUuid": parent,
                   "message": {"id": "msg_1", "role": "assistant", "content": content}})
            .to_string()
        };
        let result = |uuid: &str, parent: &str, id: &str, ts: &str| {
            let content = json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
            json!({"type": "user", "uuid": uuid, "parentUuid": parent, "timestamp": ts,
                   "message": {"role": "user", "content": content}})
            .to_string()
        };
        let content = [
            line("u1", None, "user", json!({})),
            call("c1", "u1", "toolu_1"),
            call("c2", "c1", "toolu_2"),
            call("c3", "c2", "toolu_3"),
            // toolu_1's result hangs off an attachment (a stray); toolu_3's is on the chain.
            line("x1", Some("c1"), "attachment", json!({})),
            result("r1", "x1", "toolu_1", "2026-01-01T00:00:03Z"),
            result("r2", "c2", "toolu_2", "2026-01-01T00:00:02Z"),
            result("r3", "c3", "toolu_3", "2026-01-01T00:00:01Z"),
            line("a9", Some("r3"), "assistant", json!({})),
        ]
        .join("\n");
        assert_eq!(
            uuids(&content, false),
            // Put back after the response's last line on the chain, in timestamp order.
            ["u1", "c1", "c2", "c3", "r2", "r1", "r3", "a9"]
        );
    }
}
