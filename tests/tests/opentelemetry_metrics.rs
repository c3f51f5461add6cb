//! Calls, errors and latency per tool (feature `opentelemetry`; issue 32): the
//! `OperationMetricsLayer` records `mcp.server.operation.duration` per tool and outcome, read
//! back from the OpenTelemetry SDK's in-memory metrics exporter.

use std::collections::BTreeMap;
use std::time::Duration;

use claude_tools::layer::OperationMetricsLayer;
use claude_tools::tools::{ToolContext, ToolServer};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use serde_json::json;
use tower::ServiceBuilder;

/// What one data point of the histogram says: its count and sum, keyed by
/// (`gen_ai.tool.name`, `error.type`).
type Points = BTreeMap<(String, Option<String>), (u64, f64)>;

fn points(exporter: &InMemoryMetricExporter) -> Points {
    let mut points = Points::new();
    let exported = exporter.get_finished_metrics().unwrap();
    let resource = exported.last().expect("one export");
    for scope in resource.scope_metrics() {
        for metric in scope.metrics() {
            assert_eq!(metric.name(), "mcp.server.operation.duration");
            assert_eq!(metric.unit(), "s");
            let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = metric.data() else {
                panic!("a histogram of f64: {:?}", metric.data());
            };
            for point in histogram.data_points() {
                let attribute = |key: &str| {
                    point
                        .attributes()
                        .find(|kv| kv.key.as_str() == key)
                        .map(|kv| kv.value.to_string())
                };
                assert_eq!(attribute("mcp.method.name").as_deref(), Some("tools/call"));
                assert_eq!(
                    attribute("gen_ai.operation.name").as_deref(),
                    Some("execute_tool")
                );
                // The advised buckets, 10 ms to 300 s.
                let bounds: Vec<f64> = point.bounds().collect();
                assert_eq!(bounds.first(), Some(&0.01));
                assert_eq!(bounds.last(), Some(&300.0));
                let key = (
                    attribute("gen_ai.tool.name").expect("the tool's name"),
                    attribute("error.type"),
                );
                points.insert(key, (point.count(), point.sum()));
            }
        }
    }
    points
}

fn server() -> ToolServer {
    ToolServer::new("metered", "1.0.0")
        .with_typed_tool("lookup", || async { "found" })
        .unwrap()
        .with_typed_tool("broken", || async {
            Err::<String, _>(claude_tools::tools::ToolError::new("the database is down"))
        })
        .unwrap()
        .with_typed_tool("slow", || async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "too late"
        })
        .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn calls_errors_and_latency_are_recorded_per_tool() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    let meter = provider.meter("claude-tools-tests");
    let server = server()
        // Inside the metrics: a call the timeout stops is measured as `timeout`.
        .layer(ServiceBuilder::new().timeout(Duration::from_millis(200)))
        .layer(OperationMetricsLayer::new(&meter));

    for _ in 0..2 {
        let found = server.call("lookup", json!({}), ToolContext::new()).await;
        assert_eq!(found.text_content(), "found");
    }
    let broken = server.call("broken", json!({}), ToolContext::new()).await;
    assert!(broken.is_error);
    let timed_out = server.call("slow", json!({}), ToolContext::new()).await;
    assert!(timed_out.is_error, "{}", timed_out.text_content());
    // A call dropped before it ends (its client went away) is counted as cancelled.
    let dropped = tokio::time::timeout(
        Duration::from_millis(20),
        server.call("slow", json!({}), ToolContext::new()),
    )
    .await;
    assert!(dropped.is_err());

    provider.force_flush().unwrap();
    let points = points(&exporter);
    let key = |tool: &str, error: Option<&str>| (tool.to_owned(), error.map(str::to_owned));
    assert_eq!(
        points.keys().cloned().collect::<Vec<_>>(),
        vec![
            key("broken", Some("tool_error")),
            key("lookup", None),
            key("slow", Some("cancelled")),
            key("slow", Some("timeout")),
        ]
    );
    assert_eq!(points[&key("lookup", None)].0, 2);
    assert_eq!(points[&key("broken", Some("tool_error"))].0, 1);
    let (count, seconds) = points[&key("slow", Some("timeout"))];
    assert_eq!(count, 1);
    // The latency is the call's: the timeout's 200 ms, not the handler's 30 s.
    assert!((0.2..5.0).contains(&seconds), "{seconds}");
    assert_eq!(points[&key("slow", Some("cancelled"))].0, 1);
}

#[tokio::test(flavor = "current_thread")]
async fn the_layer_measures_calls_over_every_transport() {
    // Over stdio, as the router calls tools for any transport: the server's layers apply.
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    let server = server().layer(OperationMetricsLayer::new(
        &provider.meter("claude-tools-tests"),
    ));
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (from_client, to_client) = tokio::io::split(server_side);
    tokio::spawn(claude_tools::mcp::stdio::serve(server, from_client, to_client).into_future());
    let (from_server, mut to_server) = tokio::io::split(client);
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "lookup", "arguments": {}}});
    to_server
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = tokio::io::BufReader::new(from_server).lines();
    let answer = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(answer.contains("found"), "{answer}");
    provider.force_flush().unwrap();
    assert_eq!(points(&exporter)[&("lookup".to_owned(), None)].0, 1);
}
