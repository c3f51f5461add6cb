use claude_tools::prelude::*;

#[tool_server(name = "s")]
pub struct S;

/// A header name with a space, one that is not a string, one given twice, and a header on an
/// extractor.
#[tool(server = S)]
async fn deploy(
    #[arg(header = "My Region")] region: String,
    #[arg(header = 7)] zone: String,
    #[arg(header = "A")]
    #[arg(header = "B")]
    rack: String,
    #[arg(header = "Ctx")] State(_x): State<u32>,
) -> String {
    format!("{region}{zone}{rack}")
}

fn main() {}
