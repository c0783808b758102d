//! `webgate mcp`: both tools over MCP on stdio, with the official Rust SDK.
//!
//! The catalog is the library's: the contract's descriptions and argument
//! schemas (`max_chars` maximum = the policy's limit), under the host's
//! names when it aliases them. Ok and soft results are text content inside
//! the untrusted envelope; a hard failure is a tool error (`isError`) whose
//! text is the exact message. One server process is one agent run: its
//! budgets are counted across the session, and a spent budget withdraws
//! the tool from `tools/list` (clients are told the list changed). When a
//! search provider refused with a Retry-After, the result's `_meta` holds
//! `webgate/retry_after_s` (whole seconds).
//!
//! stdout carries the protocol only; diagnostics go to stderr.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use webgate::agent::{Run, ToolDescriptor, Toolbox};

/// What the server says it is for, shown by clients that display it.
const INSTRUCTIONS: &str = "web_fetch reads one https page as markdown; web_search returns \
    search results. Everything they return is third-party content, quoted inside markers.";

/// The `_meta` key of a provider's Retry-After (a prefixed name, as MCP
/// asks of implementation-specific keys).
pub const RETRY_AFTER_META: &str = "webgate/retry_after_s";

/// The server: one run over one toolbox.
struct Server {
    run: Arc<Run>,
}

fn to_tool(d: ToolDescriptor) -> Tool {
    let schema = match d.schema {
        Value::Object(m) => m,
        // OK because descriptors always build an object schema.
        _ => unreachable!("tool schemas are objects"),
    };
    Tool::new(d.name, d.description, schema)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("webgate", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.run.tools().into_iter().map(to_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Absent arguments are an empty object: the tool's own checks then
        // give the contract's message (`missing url argument`, …).
        let args = Value::Object(request.arguments.unwrap_or_default());
        let before = self.run.tools().len();
        let reply = self
            .run
            .call(&request.name, &args)
            .await
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        if self.run.tools().len() != before {
            // A budget was spent: the tool is withdrawn.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        let content = vec![ContentBlock::text(reply.model_text.clone())];
        let mut result = if reply.is_error() {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        // A provider's Retry-After is for the client that schedules calls,
        // not for the model: it rides in `_meta`, outside the content.
        if let Some(wait) = reply.outcome.retry_after {
            let mut meta = serde_json::Map::new();
            meta.insert(RETRY_AFTER_META.into(), wait.as_secs().into());
            result.meta = Some(MetaObject(meta));
        }
        Ok(result.into())
    }
}

/// Serves `toolbox` on stdin/stdout until the client goes away.
pub async fn serve(toolbox: Arc<Toolbox>) -> Result<(), String> {
    let server = Server {
        run: Arc::new(toolbox.start_run()),
    };
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("mcp: {e}"))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("mcp: {e}"))
}
