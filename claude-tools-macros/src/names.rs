//! The names the Anthropic API and the Claude Code CLI accept, as `#[tool]` and `#[tool_server]`
//! report them (the rule itself is `names_rule`, shared with claude-tools-core).

use crate::names_rule;

/// The longest `mcp__{server}__{tool}` the CLI accepts.
pub(crate) const MAX_QUALIFIED: usize = names_rule::MAX_QUALIFIED_LEN;

/// The longest server name that leaves room for a one-character tool name.
pub(crate) const MAX_SERVER: usize = names_rule::MAX_SERVER_LEN;

/// Why `name` is not a valid tool or server name of at most `max` characters, if it is not.
pub(crate) fn problem(name: &str, max: usize) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".to_string());
    }
    if let Some(bad) = name.chars().find(|c| !names_rule::is_name_char(*c)) {
        return Some(format!(
            "`{name}` contains {bad:?}; only ASCII letters, digits, `_` and `-` are allowed"
        ));
    }
    if name.len() > max {
        return Some(format!(
            "`{name}` is {} characters; at most {max} are allowed",
            name.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_api_alphabet_and_rejects_the_rest() {
        assert_eq!(problem("get_weather-2", 64), None);
        assert_eq!(problem("", 64).as_deref(), Some("the name is empty"));
        assert_eq!(
            problem("get weather", 64).as_deref(),
            Some("`get weather` contains ' '; only ASCII letters, digits, `_` and `-` are allowed")
        );
        assert_eq!(
            problem("abc", 2).as_deref(),
            Some("`abc` is 3 characters; at most 2 are allowed")
        );
        assert_eq!(MAX_SERVER, 56);
    }
}
