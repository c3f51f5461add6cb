//! Usage, cost and the other accounting fields of `result` and `assistant` frames, typed:
//! against the real CLI's result lines (fixtures/cli-2.1.330-stdout.ndjson) and against lines a
//! newer or broken producer could write.

use claude_tools_runtime::message::{
    AssistantError, CostBasis, FastModeDisabledReason, FastModeState, Message, ServiceTier, Speed,
    StartupFailureReason, TerminalReason, UsageNotice,
};
use serde_json::{Value, json};

const CLI_STDOUT: &str = include_str!("fixtures/cli-2.1.330-stdout.ndjson");

fn results() -> Vec<(Value, Message)> {
    CLI_STDOUT
        .lines()
        .filter(|line| line.contains("\"type\":\"result\""))
        .map(|line| {
            let wire: Value = serde_json::from_str(line).unwrap();
            (wire.clone(), Message::from_value(wire))
        })
        .collect()
}

#[test]
fn every_real_result_line_is_typed_whole_and_written_back_as_it_came() {
    let results = results();
    assert!(results.len() >= 3, "{}", results.len());
    for (wire, message) in &results {
        let result = message.as_result().unwrap_or_else(|| panic!("{message:?}"));
        assert!(
            result.field_errors().is_empty(),
            "{:?}",
            result.field_errors()
        );
        // Nothing typed is left behind in `extra`.
        for key in [
            "usage",
            "modelUsage",
            "permission_denials",
            "terminal_reason",
            "fast_mode_state",
            "fast_mode_disabled_reason",
            "queued_turn_count",
        ] {
            assert!(!result.extra.contains_key(key), "{key} left in extra");
        }
        let usage = result.usage.as_ref().unwrap();
        assert_eq!(
            usage.input_tokens,
            wire["usage"]["input_tokens"].as_u64().unwrap()
        );
        assert_eq!(usage.service_tier, Some(ServiceTier::Standard));
        assert_eq!(usage.speed, Some(Speed::Standard));
        assert_eq!(
            usage.server_tool_use.as_ref().unwrap().web_search_requests,
            0
        );
        assert_eq!(usage.extra["inference_geo"], "");
        let opus = &result.model_usage["claude-opus-5-5"];
        assert_eq!(opus.cost_basis, Some(CostBasis::List));
        assert_eq!(opus.context_window, 1_000_000);
        assert_eq!(opus.cost_usd, wire["total_cost_usd"].as_f64().unwrap());
        assert_eq!(result.queued_turn_count, Some(0));
        assert_eq!(result.fast_mode_state, Some(FastModeState::Off));
        assert_eq!(
            result.fast_mode_disabled_reason,
            Some(FastModeDisabledReason::SdkOptInRequired)
        );
        assert_eq!(message.to_value(), *wire);
    }
}

#[test]
fn cost_helpers_add_up_the_models() {
    let (wire, message) = &results()[0];
    let result = message.as_result().unwrap();
    let model = &wire["modelUsage"]["claude-opus-5-5"];
    let tokens = [
        "inputTokens",
        "outputTokens",
        "cacheReadInputTokens",
        "cacheCreationInputTokens",
    ]
    .iter()
    .map(|key| model[key].as_u64().unwrap())
    .sum::<u64>();
    assert_eq!(result.total_tokens(), tokens);
    assert_eq!(
        result.cost_by_model().collect::<Vec<_>>(),
        [("claude-opus-5-5", model["costUSD"].as_f64().unwrap())]
    );
    assert_eq!(result.cost_usd(), wire["total_cost_usd"].as_f64().unwrap());

    // Two models, no total: the sum; no per-model totals: the main loop's usage.
    let two = Message::from_value(json!({"type": "result", "subtype": "success",
        "modelUsage": {"claude-opus-5-5": {"inputTokens": 10, "outputTokens": 5, "costUSD": 0.25},
                       "claude-haiku-4-5": {"inputTokens": 100, "cacheReadInputTokens": 50, "costUSD": 0.5}}}));
    let two = two.as_result().unwrap();
    assert_eq!(two.total_tokens(), 165);
    assert_eq!(two.cost_usd(), 0.75);
    let main_loop = Message::from_value(json!({"type": "result", "subtype": "success",
        "usage": {"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 2}}));
    assert_eq!(main_loop.as_result().unwrap().total_tokens(), 12);
}

#[test]
fn terminal_and_startup_reasons_are_enums_that_keep_a_newer_clis_values() {
    let api_error = results()
        .into_iter()
        .find(|(wire, _)| wire["terminal_reason"] == "api_error")
        .unwrap()
        .1;
    assert_eq!(
        api_error.as_result().unwrap().terminal_reason,
        Some(TerminalReason::ApiError)
    );

    let wire = json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
        "session_id": "s", "errors": ["Claude Code could not read ~/.claude.json"],
        "startup_failure_reason": "config_file_invalid", "terminal_reason": "galaxy_collapsed",
        "fast_mode_state": "warp", "invalid_config_file": {"path": "/home/u/.claude.json",
        "is_global": true, "backup_searched": true, "backup_path": "/home/u/.claude.json.bak"},
        "deferred_tool_use": {"id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}});
    let message = Message::from_value(wire.clone());
    let result = message.as_result().unwrap();
    assert_eq!(
        result.startup_failure_reason,
        Some(StartupFailureReason::ConfigFileInvalid)
    );
    assert_eq!(
        result.terminal_reason,
        Some(TerminalReason::Other("galaxy_collapsed".into()))
    );
    assert_eq!(
        result.fast_mode_state,
        Some(FastModeState::Other("warp".into()))
    );
    let file = result.invalid_config_file.as_ref().unwrap();
    assert_eq!(
        file.backup_path.as_deref(),
        Some("/home/u/.claude.json.bak")
    );
    let deferred = result.deferred_tool_use.as_ref().unwrap();
    assert_eq!(
        (deferred.name.as_str(), &deferred.input["command"]),
        ("Bash", &json!("ls"))
    );
    assert_eq!(message.to_value(), wire);
}

#[test]
fn a_field_of_the_wrong_type_is_named_kept_and_costs_nothing_else() {
    let wire = json!({"type": "result", "subtype": "success", "is_error": false, "session_id": "s",
        "result": "done", "terminal_reason": "completed",
        "usage": {"input_tokens": "many", "output_tokens": 3},
        "modelUsage": {"claude-opus-5-5": {"inputTokens": 5, "costUSD": "free"}},
        "permission_denials": "none", "queued_turn_count": -1, "errors": [{"code": 1}]});
    let message = Message::from_value(wire.clone());
    // Still a result: the caller waiting for the end of the turn sees it.
    let result = message.as_result().unwrap_or_else(|| panic!("{message:?}"));
    assert_eq!(result.result.as_deref(), Some("done"));
    assert_eq!(result.terminal_reason, Some(TerminalReason::Completed));
    let fields: Vec<&str> = result.field_errors().iter().map(|e| e.field()).collect();
    assert_eq!(
        fields,
        [
            "usage",
            "modelUsage",
            "permission_denials",
            "errors",
            "queued_turn_count"
        ]
    );
    let usage_error = &result.field_errors()[0];
    assert!(usage_error.path.starts_with("usage"), "{usage_error}");
    assert!(usage_error.reason.contains("invalid type"), "{usage_error}");
    assert!(result.usage.is_none() && result.model_usage.is_empty());
    // The values are kept as they came, and the line is written back whole.
    assert_eq!(result.extra["usage"], wire["usage"]);
    assert_eq!(result.extra["permission_denials"], "none");
    assert_eq!(message.to_value(), wire);
}

#[test]
fn the_assistants_error_and_usage_are_typed_and_a_bad_usage_costs_nothing_else() {
    let line = CLI_STDOUT
        .lines()
        .find(|line| line.contains("\"type\":\"assistant\""))
        .unwrap();
    let message = Message::from_value(serde_json::from_str(line).unwrap());
    let assistant = message.as_assistant().unwrap();
    let usage = assistant.usage().unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (17961, 1));
    assert_eq!(usage.total_tokens(), 17962);

    let wire = json!({"type": "assistant", "error": "quota_exploded",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "API Error"}],
            "usage": {"input_tokens": [1]}}});
    let message = Message::from_value(wire.clone());
    let assistant = message
        .as_assistant()
        .unwrap_or_else(|| panic!("{message:?}"));
    assert_eq!(
        assistant.error,
        Some(AssistantError::Other("quota_exploded".into()))
    );
    assert_eq!(assistant.usage(), None);
    assert_eq!(assistant.message.extra["usage"], wire["message"]["usage"]);
    assert_eq!(assistant.field_errors().len(), 1);
    assert!(
        assistant.field_errors()[0]
            .path
            .starts_with("message.usage")
    );
    assert_eq!(message.to_value(), wire);

    let billing = Message::from_value(json!({"type": "assistant", "error": "billing_error",
        "message": {"content": []}}));
    assert_eq!(
        billing.as_assistant().unwrap().error,
        Some(AssistantError::BillingError)
    );
}

#[test]
fn usage_limit_texts_are_sorted_by_the_sdks_prefixes() {
    let limited = Message::from_value(json!({"type": "result", "subtype": "success",
        "is_error": true, "result": "You've hit your limit · resets 5pm (Europe/Paris)"}));
    assert_eq!(
        limited.as_result().unwrap().usage_notice(),
        Some(UsageNotice::LimitReached)
    );
    let org = Message::from_value(
        json!({"type": "result", "subtype": "error_during_execution",
        "is_error": true, "errors": ["This service is disabled for your org"]}),
    );
    assert_eq!(
        org.as_result().unwrap().usage_notice(),
        Some(UsageNotice::OrgPolicy)
    );
    let fine = Message::from_value(json!({"type": "result", "subtype": "success",
        "is_error": false, "result": "You've hit your target."}));
    assert_eq!(fine.as_result().unwrap().usage_notice(), None);
    assert_eq!(
        UsageNotice::classify("Now using extra usage"),
        Some(UsageNotice::Transition)
    );
    assert_eq!(
        UsageNotice::classify("You're close to your limit"),
        Some(UsageNotice::Warning)
    );
}
