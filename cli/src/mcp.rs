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
//! What a host relies on beyond the text: each tool has a title, the
//! annotations of a read-only tool of the open web, and an `outputSchema`;
//! every ok or soft result carries `structuredContent` that follows it
//! (the text content is unchanged for clients that read only text). A
//! call that sends a `progressToken` gets a progress notification at each
//! phase (lookup, connection, request, head, every redirect, body bytes,
//! extraction; the search request). `notifications/cancelled` drops the
//! call's future: its connections close at once and the budget unit it
//! held is given back.
//!
//! stdout carries the protocol only; diagnostics go to stderr.

use std::sync::Arc;

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ProgressNotificationParam,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use webgate::agent::{Run, ToolDescriptor, Toolbox};
use webgate::messages::Progress;
use webgate::progress;

/// The error a cancelled call ends with (the client has stopped waiting,
/// so it is for the log only).
const CANCELLED: &str = "the client cancelled the call";

/// What the server says it is for, shown by clients that display it.
const INSTRUCTIONS: &str = "web_fetch reads one https page as markdown; web_search returns \
    search results. Everything they return is third-party content, quoted inside markers.";

/// The longest a call with a progress token goes without a progress
/// notification while it waits (the TypeScript SDK's default request
/// timeout resets on progress; 5 s is well inside any client's).
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(5);

/// The `_meta` key of a provider's Retry-After (a prefixed name, as MCP
/// asks of implementation-specific keys).
pub const RETRY_AFTER_META: &str = "webgate/retry_after_s";

/// The server: one run over one toolbox.
pub(crate) struct Server {
    run: Arc<Run>,
    /// Open `subscriptions/listen` streams (protocol 2026-07-28): where
    /// `tools/list_changed` goes for clients of that protocol.
    listeners: Arc<std::sync::Mutex<Vec<SubscriptionSink>>>,
    /// Write each call's audit record to stderr (`--audit`).
    audit: bool,
    /// The calls in progress, where the line filter's cancels reach them.
    calls: crate::mcp_wire::Calls,
}

/// How a call ended.
enum Ended<T> {
    Replied(T),
    /// Cancelled; by the line filter, which waits on the sender to know
    /// the call has let go of its work.
    Cancelled(Option<tokio::sync::oneshot::Sender<()>>),
}

fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        // OK because descriptors always build object schemas.
        _ => unreachable!("tool schemas are objects"),
    }
}

fn to_tool(d: ToolDescriptor) -> Tool {
    // Read-only (nothing on the host changes), not destructive, and of the
    // open world (it reaches arbitrary sites): what lets a host that
    // auto-approves read-only tools stop prompting for every fetch.
    let annotations = ToolAnnotations::with_title(d.title.clone())
        .read_only(true)
        .destructive(false)
        .open_world(true);
    Tool::new(d.name, d.description, object(d.schema))
        .with_title(d.title)
        .with_raw_output_schema(Arc::new(object(d.output_schema)))
        .with_annotations(annotations)
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

    /// `subscriptions/listen` (2026-07-28): the one notification this
    /// server sends unprompted is `tools/list_changed`.
    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if let Ok(mut l) = self.listeners.lock() {
            l.push(context.sink().clone());
        }
        context.cancelled().await;
        let id = context.sink().id().clone();
        if let Ok(mut l) = self.listeners.lock() {
            l.retain(|s| *s.id() != id);
        }
        Ok(())
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
        // Progress goes through a queue: the observer runs inside the
        // fetch and must not wait on the client; a task sends the reports
        // in order, numbered from 1.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let outbox = self.calls.outbox();
        let notifier = context.meta.get_progress_token().map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                let mut n = 0u32;
                let mut last = String::from("working");
                loop {
                    // A call that waits on the network reports at least
                    // every HEARTBEAT (its last phase again): a client
                    // whose timeout resets on progress keeps waiting.
                    let message = match tokio::time::timeout(HEARTBEAT, rx.recv()).await {
                        Ok(Some(p)) => {
                            last = p.to_string();
                            last.clone()
                        }
                        Ok(None) => break,
                        Err(_) => format!("{last} (still waiting)"),
                    };
                    n += 1;
                    let param = ProgressNotificationParam::new(token.clone(), f64::from(n))
                        .with_message(message);
                    let sent = match &outbox {
                        // stdio: in order with the call's response.
                        Some(out) => {
                            let mut line = serde_json::json!({
                                "jsonrpc": "2.0",
                                "method": "notifications/progress",
                                "params": param,
                            })
                            .to_string()
                            .into_bytes();
                            line.push(b'\n');
                            out.send(line).await.is_ok()
                        }
                        None => peer.notify_progress(param).await.is_ok(),
                    };
                    if !sent {
                        break;
                    }
                }
            })
        });
        let observer: progress::Observer = Arc::new(move |p| {
            let _ = tx.send(p);
        });
        let key = serde_json::to_value(&context.id)
            .map(|id| crate::mcp_wire::id_key(&id))
            .unwrap_or_default();
        let mut filter_cancel = match self.calls.start(&key) {
            crate::mcp_wire::Start::Run(rx) => rx,
            crate::mcp_wire::Start::Cancelled => {
                if let Some(t) = notifier {
                    t.abort();
                }
                return Err(ErrorData::internal_error(CANCELLED, None));
            }
        };
        let call = progress::observed(observer, self.run.call(&request.name, &args));
        // A cancel drops the call: its connections close with it, and the
        // budget unit it held is given back (the Run's tickets). The call's
        // future is gone once `select!` returns; only then is the filter
        // told, so that it reads the next line after the unit is back.
        let ended = tokio::select! {
            r = call => Ended::Replied(r),
            () = context.ct.cancelled() => Ended::Cancelled(None),
            Ok(done) = &mut filter_cancel => Ended::Cancelled(Some(done)),
        };
        self.calls.end(&key);
        let reply = match ended {
            Ended::Replied(r) => r,
            Ended::Cancelled(done) => {
                if let Some(t) = notifier {
                    t.abort();
                }
                if let Some(done) = done {
                    let _ = done.send(());
                }
                return Err(ErrorData::internal_error(CANCELLED, None));
            }
        };
        if let Some(t) = notifier {
            // The observer (and its sender) went with the call: the task
            // ends once the queue is drained.
            let _ = t.await;
        }
        let reply = reply.map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        if self.audit {
            if let Some(record) = &reply.audit {
                eprintln!("{}", record.to_json_line());
            }
        }
        if self.run.tools().len() != before {
            // A budget was spent: the tool is withdrawn. Clients of the
            // session protocols are told directly; clients of 2026-07-28
            // on their `subscriptions/listen` streams.
            let _ = context.peer.notify_tool_list_changed().await;
            let sinks: Vec<SubscriptionSink> =
                self.listeners.lock().map(|l| l.clone()).unwrap_or_default();
            let mut closed = Vec::new();
            for sink in &sinks {
                if sink.notify_tool_list_changed().await.is_err() {
                    closed.push(sink.id().clone());
                }
            }
            if let Ok(mut l) = self.listeners.lock() {
                l.retain(|s| !closed.contains(s.id()));
            }
        }
        let content = vec![ContentBlock::text(reply.model_text.clone())];
        let mut result = if reply.is_error() {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = reply.structured();
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

/// The server of one session: a run of its own (its budgets) over the
/// shared toolbox. `calls` is where the stdio filter's cancels reach it.
pub(crate) fn session(
    toolbox: &Arc<Toolbox>,
    audit: bool,
    calls: crate::mcp_wire::Calls,
) -> Server {
    Server {
        run: Arc::new(toolbox.start_run()),
        audit,
        listeners: Arc::default(),
        calls,
    }
}

/// Serves `toolbox` on stdin/stdout until the client goes away, with at
/// most `in_flight` requests handed to the SDK whose replies are not yet
/// written out.
pub async fn serve(toolbox: Arc<Toolbox>, audit: bool, in_flight: usize) -> Result<(), String> {
    let calls = crate::mcp_wire::Calls::default();
    let server = session(&toolbox, audit, calls.clone());
    // The line discipline in front of the SDK (`mcp_wire`): JSON-RPC's
    // error replies for what rmcp would drop or misname, the bound on
    // requests in flight, and cancels carried out in order.
    let (sdk, written) = crate::mcp_wire::start(
        tokio::io::stdin(),
        tokio::io::stdout(),
        crate::mcp_wire::Limits { in_flight },
        calls,
    );
    let running = server.serve(sdk).await.map_err(|e| format!("mcp: {e}"))?;
    let ended = running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("mcp: {e}"));
    let _ = written.await;
    ended
}
