//! `Debug` output without secrets: names stay visible, values that may be credentials print as
//! `<redacted>`.

/// The CLI flags whose values may carry credentials: `--mcp-config` (MCP HTTP headers, stdio
/// servers' environments) and `--settings` (e.g. an `env` block or an `apiKeyHelper`).
const SECRET_FLAGS: &[&str] = &["--mcp-config", "--settings"];

/// What `Debug` output prints instead of a value that may be a secret.
pub(crate) const REDACTED: &str = "<redacted>";

/// `args` with the values of every [`SECRET_FLAGS`] flag replaced by `<redacted>`, in both the
/// `--flag value…` and the `--flag=value` forms.
pub(crate) fn args(args: &[String]) -> Vec<String> {
    let mut redacted = Vec::with_capacity(args.len());
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        match arg.split_once('=') {
            Some((flag, _)) if SECRET_FLAGS.contains(&flag) => {
                redacted.push(format!("{flag}={REDACTED}"));
            }
            _ if SECRET_FLAGS.contains(&arg.as_str()) => {
                redacted.push(arg.clone());
                // Its values: up to the next flag (`--mcp-config` takes several).
                while args.next_if(|value| !value.starts_with("--")).is_some() {
                    redacted.push(REDACTED.to_string());
                }
            }
            _ => redacted.push(arg.clone()),
        }
    }
    redacted
}

/// `Debug` for named values (environment variables, headers): the names, each with
/// `<redacted>` for its value.
pub(crate) struct NamesOnly<'a>(pub(crate) Vec<&'a str>);

impl<'a> NamesOnly<'a> {
    /// From `(name, value)` pairs.
    pub(crate) fn of_pairs(pairs: &'a [(String, String)]) -> Self {
        Self(pairs.iter().map(|(name, _)| name.as_str()).collect())
    }

    /// From a map of names to values.
    pub(crate) fn of_map(map: &'a std::collections::BTreeMap<String, String>) -> Self {
        Self(map.keys().map(String::as_str).collect())
    }
}

impl std::fmt::Debug for NamesOnly<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.0.iter().map(|name| (name, Redacted)))
            .finish()
    }
}

/// The members of an MCP server's config whose values may carry credentials: a stdio server's
/// environment and an HTTP server's headers (maps of names to values).
const SECRET_MEMBERS: &[&str] = &["env", "headers"];

/// `Debug` for the members of an MCP server's config as the CLI reports it: `env` and
/// `headers` print their names only (a value that is not a map, `<redacted>`), every other
/// member as it is.
pub(crate) struct ConfigMembers<'a>(pub(crate) &'a serde_json::Map<String, serde_json::Value>);

impl std::fmt::Debug for ConfigMembers<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in self.0 {
            if !SECRET_MEMBERS.contains(&name.as_str()) {
                map.entry(name, value);
            } else if let serde_json::Value::Object(members) = value {
                map.entry(
                    name,
                    &NamesOnly(members.keys().map(String::as_str).collect()),
                );
            } else {
                map.entry(name, &Redacted);
            }
        }
        map.finish()
    }
}

/// Prints `<redacted>` in `Debug` output.
pub(crate) struct Redacted;

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}
